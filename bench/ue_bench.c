// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the guest side. Measures the user_events paths of whatever
 * implementation the running kernel has (the in-kernel one or our module)
 * and prints one line per measurement:
 *
 *	BENCH <row> <value> <unit>
 *
 * Every value is a cost (lower is better), so that "ours / in-kernel" and
 * "ftrace write / trace_marker_raw" compare like with like. Lines starting
 * with "BENCHERR" mean a measurement could not be made or was not honest
 * (a write that did not reach its consumer, an enable bit that did not
 * flip); bench/run.sh fails on them.
 *
 *	ue_bench [-r rounds] [-t seconds per timed loop] [-s scale events]
 *		 [-u file with a uprobe_events definition of the USDT probe]
 *		 [-M (the scale row's memory breakdown: BENCHMEM lines)]
 *	ue_bench -m smp [-r rounds] [-t seconds]
 *	ue_bench -m writes ...	only the write and USDT rows (quick iterations)
 *	ue_bench -m fork -k K	fork + exit + wait holding K enable bits
 *	ue_bench -m first -k K	a first DIAG_IOCSREG with K more mappings
 *				(both run by the full run, in a process of
 *				their own)
 *
 * -m smp measures only the rows of several CPUs (bench/run.sh boots a VM
 * with 2 vCPUs and multi-threaded TCG, in real time, for them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>

/*
 * The USDT rows' probe, ue_bench:w, with a semaphore (the probe's note
 * names it; uprobe_events counts it up while the probe is attached).
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short ue_bench_w_semaphore __attribute__((unused, section(".probes")));

/* bench_w's enable word (bit 0), a global like the semaphore. */
static uint32_t w_enabled;

#define TRACEFS "/sys/kernel/tracing"
#define EVENTS TRACEFS "/events/user_events"

/* The 3-field event of the write rows; the fields are packed (user_events.rst, Field Format). */
#define W_EVENT "bench_w u32 a; u64 b; __rel_loc char[] c"
#define W_STR 32		/* bytes of c, the NUL included */

struct w_payload {
	uint32_t a;
	uint64_t b;
	uint32_t c_loc;
	char c[W_STR];
} __attribute__((packed));

static double loop_secs = 0.5;
static int errors;

static void err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("BENCHERR ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	errors++;
}

static void report(const char *row, double value, const char *unit)
{
	printf("BENCH %s %.1f %s\n", row, value, unit);
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * Read the start of the small file @path into @buf (@size bytes, NUL
 * included), NUL-terminated: its length, or -1 if it cannot be read or is
 * empty.
 */
static ssize_t read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return n;
}

static long read_long_after(const char *path, const char *key)
{
	char buf[8192], *p;

	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static int reg(int fd, const char *cmd, uint32_t *word, int bit, uint32_t *idx)
{
	struct user_reg r = {
		.size = sizeof(r),
		.enable_bit = bit,
		.enable_size = sizeof(*word),
		.enable_addr = (uint64_t)(uintptr_t)word,
		.name_args = (uint64_t)(uintptr_t)cmd,
	};
	int ret = ioctl(fd, DIAG_IOCSREG, &r);

	if (!ret && idx)
		*idx = r.write_index;
	return ret;
}

static int unreg(int fd, uint32_t *word, int bit)
{
	struct user_unreg u = {
		.size = sizeof(u),
		.disable_bit = bit,
		.disable_addr = (uint64_t)(uintptr_t)word,
	};

	return ioctl(fd, DIAG_IOCSUNREG, &u);
}

/* Wait (up to 60 s) until at most @n user events exist. */
static void wait_active(long n)
{
	for (int i = 0; i < 600; i++) {
		if (read_long_after(TRACEFS "/user_events_status", "Active: ") <= n)
			return;
		usleep(100000);
	}
	err("still more than %ld events after 60 s", n);
}

/*
 * Time @op (which does @batch operations per call) for about loop_secs;
 * nanoseconds per operation. *done gets the number of operations. Not
 * inlined: every @op is a real indirect call, so that the cheapest rows
 * (the enable-bit and semaphore checks) pay the same loop.
 */
static __attribute__((noipa)) double timed(int (*op)(void *), void *arg, int batch, long *done)
{
	double t0 = now(), t;
	long n = 0;

	do {
		for (int i = 0; i < 64; i++) {
			if (op(arg))
				return -1;
			n += batch;
		}
		t = now();
	} while (t - t0 < loop_secs);
	if (done)
		*done = n;
	return (t - t0) * 1e9 / n;
}

/* The write rows. The same record for one contiguous write(): [index][payload]. */
struct w_buf {
	uint32_t idx;
	struct w_payload p;
} __attribute__((packed));

struct wctx {
	int fd;
	uint32_t idx;
	struct iovec iov[2];
	struct w_payload p;
	struct w_buf buf;
	int expect;		/* the write's result: a byte count, or -errno */
	struct perf_event_mmap_page *pm;
	long n;
};

/* Be the perf ring buffer's reader: a full buffer would drop records. */
static void w_drain(struct wctx *w)
{
	if (w->pm && !(++w->n & 63)) {
		uint64_t head = __atomic_load_n(&w->pm->data_head, __ATOMIC_ACQUIRE);

		__atomic_store_n(&w->pm->data_tail, head, __ATOMIC_RELEASE);
	}
}

static int w_done(struct wctx *w, ssize_t ret, const char *call)
{
	if (ret != w->expect && !(ret < 0 && -errno == w->expect)) {
		err("%s: %zd (errno %d), expected %d", call, ret, errno, w->expect);
		return -1;
	}
	w_drain(w);
	return 0;
}

static int op_writev(void *arg)
{
	struct wctx *w = arg;

	return w_done(w, writev(w->fd, w->iov, 2), "writev");
}

static int op_write(void *arg)
{
	struct wctx *w = arg;

	return w_done(w, write(w->fd, &w->buf, sizeof(w->buf)), "write");
}

/* What a program does before each event: test its enable bit. */
static int op_check_bit(void *arg)
{
	struct wctx *w = arg;

	if (__atomic_load_n(&w_enabled, __ATOMIC_RELAXED) & 1)
		return w_done(w, write(w->fd, &w->buf, sizeof(w->buf)), "write");
	return 0;
}

/* The same event as a USDT probe: test its semaphore, then the probe. */
static int op_usdt(void *arg)
{
	struct wctx *w = arg;

	if (__atomic_load_n(&ue_bench_w_semaphore, __ATOMIC_RELAXED)) {
		STAP_PROBE3(ue_bench, w, w->p.a, w->p.b, (const char *)w->p.c);
		w_drain(w);
	}
	return 0;
}

struct mctx {
	int fd;
	char buf[4 + sizeof(struct w_payload)];
};

static int op_marker(void *arg)
{
	struct mctx *m = arg;

	if (write(m->fd, m->buf, sizeof(m->buf)) != sizeof(m->buf)) {
		err("trace_marker_raw write: errno %d", errno);
		return -1;
	}
	return 0;
}

/* Entries and overruns of every CPU's ring buffer: every record written. */
static long ring_records(void)
{
	long n = 0, cpus = sysconf(_SC_NPROCESSORS_CONF);
	char s[128];

	for (long cpu = 0; cpu < cpus; cpu++) {
		snprintf(s, sizeof(s), TRACEFS "/per_cpu/cpu%ld/stats", cpu);
		n += read_long_after(s, "entries: ") + read_long_after(s, "overrun: ");
	}
	return n;
}

static void clear_trace(void)
{
	if (write_file(TRACEFS "/trace", ""))
		err("cannot clear trace");
}

/*
 * Time @op with the event whose directory is @dir enabled in the top
 * instance; every operation must have left one record in the ring buffer.
 */
static long w_ftrace(const char *row, int (*op)(void *), struct wctx *w,
		     const char *dir)
{
	char enable[256];
	long n = 0, rec;
	double ns;

	snprintf(enable, sizeof(enable), "%s/enable", dir);
	clear_trace();
	if (write_file(enable, "1"))
		err("%s: cannot enable %s", row, dir);
	ns = timed(op, w, 1, &n);
	write_file(enable, "0");
	rec = ring_records();
	if (rec != n)
		err("%s: %ld operations but %ld records", row, n, rec);
	report(row, ns, "ns/op");
	return n;
}

/*
 * Time @op with a perf tracepoint event of the event in @dir on this task,
 * raw samples into a mapped ring that @op drains; the event's count must
 * be the number of operations.
 */
static long w_perf(const char *row, int (*op)(void *), struct wctx *w,
		   const char *dir)
{
	char id[256];
	struct perf_event_attr pa = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pa),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
	};
	size_t len = 17 * 4096;
	uint64_t count = 0;
	long n = 0;
	double ns;
	int pfd;

	snprintf(id, sizeof(id), "%s/id", dir);
	pa.config = read_long_after(id, "");
	pfd = syscall(__NR_perf_event_open, &pa, 0, -1, -1, 0);
	if (pfd < 0) {
		err("%s: perf_event_open: errno %d", row, errno);
		return 0;
	}
	w->pm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
	if (w->pm == MAP_FAILED) {
		err("%s: perf mmap: errno %d", row, errno);
		close(pfd);
		w->pm = NULL;
		return 0;
	}
	ns = timed(op, w, 1, &n);
	if (read(pfd, &count, sizeof(count)) != sizeof(count) || (long)count != n)
		err("%s: %ld operations but the counter says %llu", row, n,
		    (unsigned long long)count);
	munmap(w->pm, len);
	w->pm = NULL;
	close(pfd);
	report(row, ns, "ns/op");
	return n;
}

static void bench_writes(struct wctx *w)
{
	long n = 0, rec;
	double ns;

	w->expect = sizeof(w->idx) + sizeof(w->p);
	w->pm = NULL;

	/* ftrace and perf, through writev and through one write() */
	w_ftrace("write_ftrace", op_writev, w, EVENTS "/bench_w");
	w_ftrace("writec_ftrace", op_write, w, EVENTS "/bench_w");

	/* trace_marker_raw, the same payload after its 4-byte id */
	{
		struct mctx m;

		memset(m.buf, 'x', sizeof(m.buf));
		m.fd = open(TRACEFS "/trace_marker_raw", O_WRONLY);
		clear_trace();
		ns = timed(op_marker, &m, 1, &n);
		close(m.fd);
		rec = ring_records();
		if (rec != n)
			err("marker_raw: %ld writes but %ld records", n, rec);
		report("marker_raw", ns, "ns/op");
	}

	w_perf("write_perf", op_writev, w, EVENTS "/bench_w");
	w_perf("writec_perf", op_write, w, EVENTS "/bench_w");

	/* nothing attached: -EBADF */
	w->expect = -EBADF;
	report("write_disabled", timed(op_writev, w, 1, NULL), "ns/op");
	report("writec_disabled", timed(op_write, w, 1, NULL), "ns/op");
	/* and what a program does instead: test the enable bit, clear */
	if (__atomic_load_n(&w_enabled, __ATOMIC_RELAXED) & 1)
		err("bench_w's enable bit is set while nothing is attached");
	report("check_bit", timed(op_check_bit, w, 1, NULL), "ns/op");

	/* The system calls alone: the same writev and write to /dev/null. */
	{
		struct wctx nul = *w;
		struct mctx m;

		nul.fd = open("/dev/null", O_WRONLY);
		nul.expect = sizeof(w->idx) + sizeof(w->p);
		report("floor_writev", timed(op_writev, &nul, 1, NULL), "ns/op");
		m.fd = nul.fd;
		report("floor_write", timed(op_marker, &m, 1, NULL), "ns/op");
		close(nul.fd);
	}
}

/*
 * Hits of the uprobe event @event of the file @path, from uprobe_profile
 * (-1: none). Its lines are "<path> <event> <hits>", the event without its
 * group in 6.12.
 */
static long usdt_hits(const char *path, const char *event)
{
	char buf[4096], *line, *save;
	long hits = -1;

	if (read_text(TRACEFS "/uprobe_profile", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char file[256], name[128], *slash;
		long h;

		if (sscanf(line, "%255s %127s %ld", file, name, &h) != 3 ||
		    strcmp(file, path))
			continue;
		slash = strchr(name, '/');
		if (!strcmp(slash ? slash + 1 : name, event))
			hits = h;
	}
	return hits;
}

/*
 * The USDT rows: the probe ue_bench:w, attached through uprobe_events with
 * the definition in @def (bench/run.sh derives it from this program's
 * .note.stapsdt), enabled into ftrace and into perf; and the semaphore
 * check while it is not attached. Every probe hit must have been counted
 * by uprobe_profile and have reached its consumer.
 */
#define USDT_DIR TRACEFS "/events/ue_bench_usdt/w"

static void bench_usdt(struct wctx *w, const char *def)
{
	char path[256] = "";
	long hits, n;
	int fd;

	/* "p:group/event PATH:OFFSET(REF) ARGS" */
	sscanf(def, "%*s %255[^:]", path);

	if (__atomic_load_n(&ue_bench_w_semaphore, __ATOMIC_RELAXED))
		err("usdt: the semaphore is set while the probe is not attached");
	report("usdt_disabled", timed(op_usdt, w, 1, NULL), "ns/op");

	fd = open(TRACEFS "/uprobe_events", O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, def, strlen(def)) != (ssize_t)strlen(def)) {
		err("usdt: cannot define '%s': errno %d", def, errno);
		if (fd >= 0)
			close(fd);
		return;
	}
	n = w_ftrace("usdt_ftrace", op_usdt, w, USDT_DIR);
	n += w_perf("usdt_perf", op_usdt, w, USDT_DIR);
	hits = usdt_hits(path, "w");
	if (hits != n)
		err("usdt: %ld probes reached but uprobe_profile counts %ld hits", n, hits);
	if (__atomic_load_n(&ue_bench_w_semaphore, __ATOMIC_RELAXED))
		err("usdt: the semaphore is still set after the probe was disabled");
	if (write(fd, "-:ue_bench_usdt/w", 17) != 17)
		err("usdt: cannot remove the probe: errno %d", errno);
	close(fd);
}

/* DIAG_IOCSREG of new events, of an existing one, and DIAG_IOCSUNREG. */
#define REG_N 500

static void bench_reg(int round, uint32_t *words)
{
	char (*cmds)[64] = malloc(REG_N * sizeof(*cmds));
	int fd = open(TRACEFS "/user_events_data", O_RDWR);
	double t0, t1;
	int i;

	for (i = 0; i < REG_N; i++)
		snprintf(cmds[i], sizeof(cmds[i]), "bench_n%d_%d u32 a", round, i);
	t0 = now();
	for (i = 0; i < REG_N; i++)
		if (reg(fd, cmds[i], &words[i], 0, NULL)) {
			err("register %s: errno %d", cmds[i], errno);
			break;
		}
	t1 = now();
	if (i == REG_N)
		report("reg_new", (t1 - t0) * 1e9 / REG_N, "ns/op");
	for (i = 0; i < REG_N; i++)
		unreg(fd, &words[i], 0);
	close(fd);
	/*
	 * The events go away once unused, in work items of both
	 * implementations, and their memory after grace periods: let that
	 * finish outside the timed loops.
	 */
	wait_active(2);
	sleep(1);

	/* The same event REG_N times, each with its own enable word. */
	fd = open(TRACEFS "/user_events_data", O_RDWR);
	t0 = now();
	for (i = 0; i < REG_N; i++)
		if (reg(fd, "bench_x u32 a", &words[i], 0, NULL)) {
			err("register bench_x: errno %d", errno);
			break;
		}
	t1 = now();
	if (i == REG_N)
		report("reg_existing", (t1 - t0) * 1e9 / REG_N, "ns/op");
	t0 = now();
	for (i = 0; i < REG_N; i++)
		if (unreg(fd, &words[i], 0)) {
			err("unregister bench_x: errno %d", errno);
			break;
		}
	t1 = now();
	if (i == REG_N)
		report("unreg", (t1 - t0) * 1e9 / REG_N, "ns/op");
	close(fd);
	free(cmds);
}

/*
 * Write @val (0 or 1) to the enable file @efd, adding the time the write
 * took to *@acc, then check that each of the @n words has bit 0 equal to
 * @val: 0, or -1 (reported) for the first that has not.
 */
static int fanout_set(int efd, uint32_t *words, int n, int val, double *acc)
{
	const char *what = val ? "enable" : "disable";
	double t0 = now();
	int i;

	if (write(efd, val ? "1" : "0", 1) != 1)
		err("fan-out %d: %s: errno %d", n, what, errno);
	*acc += now() - t0;
	for (i = 0; i < n; i++)
		if ((__atomic_load_n(&words[i], __ATOMIC_RELAXED) & 1) != (uint32_t)val) {
			err("fan-out %d: bit of child %d not %s", n, i,
			    val ? "set" : "cleared");
			return -1;
		}
	return 0;
}

/*
 * Enable fan-out: @n processes each register bench_f with a word of a
 * shared page as the enable word; time writing "1" and "0" to the event's
 * enable file, and check every word after each.
 */
static void bench_fanout(int n, int rounds)
{
	uint32_t *words = mmap(NULL, (n * 4 + 4095) & ~4095, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ready[2], go[2], i, r, efd;
	pid_t *pids = calloc(n, sizeof(*pids));
	char row[64], c;

	if (pipe(ready) || pipe(go)) {
		err("pipe");
		return;
	}
	memset(words, 0, n * 4);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			err("fork %d: errno %d", i, errno);
			n = i;
			break;
		}
		if (!pids[i]) {
			int fd = open(TRACEFS "/user_events_data", O_RDWR);

			close(ready[0]);
			close(go[1]);
			c = reg(fd, "bench_f u32 a", &words[i], 0, NULL) ? 'E' : 'R';
			if (write(ready[1], &c, 1) != 1)
				_exit(1);
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(ready[1]);
	close(go[0]);
	for (i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1 || c != 'R') {
			err("fan-out %d: child %d did not register", n, i);
			goto out;
		}

	efd = open(EVENTS "/bench_f/enable", O_WRONLY);
	for (r = 0; r < rounds; r++) {
		double on = 0, off = 0, start = now();
		int cycles = 0;

		do {
			if (fanout_set(efd, words, n, 1, &on) ||
			    fanout_set(efd, words, n, 0, &off))
				goto out_close;
			cycles++;
		} while (now() - start < loop_secs || cycles < 3);
		snprintf(row, sizeof(row), "enable_%d", n);
		report(row, on * 1e9 / cycles, "ns/op");
		snprintf(row, sizeof(row), "disable_%d", n);
		report(row, off * 1e9 / cycles, "ns/op");
	}
out_close:
	close(efd);
out:
	close(go[1]);
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	close(ready[0]);
	free(pids);
	munmap(words, (n * 4 + 4095) & ~4095);
}

/*
 * Slab: of /proc/meminfo in kB, once it has settled: caches dropped, and
 * two readings half a second apart within 64 kB (what exited processes
 * and deleted events free arrives after RCU grace periods).
 */
static long settled_kb(const char *key)
{
	long prev = -1, cur = 0;

	for (int i = 0; i < 60; i++) {
		write_file("/proc/sys/vm/drop_caches", "3");
		usleep(500000);
		cur = read_long_after("/proc/meminfo", key);
		if (prev >= 0 && labs(cur - prev) <= 64)
			return cur;
		prev = cur;
	}
	err("%s did not settle", key);
	return cur;
}

/*
 * -m: the memory breakdown of the scale row. Each of these files is printed
 * whole, every line as "BENCHMEM <tag> <file> <line>", before and after
 * the registrations; the host diffs them (bench/mem-breakdown.sh).
 */
static int mem_dump_on;

static void mem_dump(const char *tag)
{
	static const char *const files[] = {
		"/proc/meminfo", "/proc/vmstat", "/proc/slabinfo", "/proc/zoneinfo",
	};
	char line[512];

	if (!mem_dump_on)
		return;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f = fopen(files[i], "r");

		if (!f) {
			printf("BENCHMEM %s %s missing\n", tag, files[i] + 6);
			continue;
		}
		while (fgets(line, sizeof(line), f))
			printf("BENCHMEM %s %s %s", tag, files[i] + 6, line);
		fclose(f);
	}
	fflush(stdout);
}

/*
 * All free memory in kB: the zones' free pages (what MemFree: adds up) and
 * the pages on the page allocator's per-CPU lists, which MemFree: leaves
 * out. Those lists grow and shrink by hundreds of pages with the pattern
 * of allocations and frees: around 10000 registrations they grew by 285
 * bytes per event with ours and by 194 in-kernel, and MemFree: differed
 * where the memory in use did not (docs/performance.md, Memory per event). The CPUs' counter
 * deltas are folded in first (vm.stat_refresh); both numbers come from one
 * read of /proc/zoneinfo.
 */
static long free_all_kb(void)
{
	char line[256];
	long pages = 0, n;
	FILE *f;

	if (write_file("/proc/sys/vm/stat_refresh", "1"))
		err("cannot write vm.stat_refresh");
	f = fopen("/proc/zoneinfo", "r");
	if (!f) {
		err("cannot read /proc/zoneinfo");
		return 0;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " pages free %ld", &n) == 1 ||
		    sscanf(line, " count: %ld", &n) == 1)
			pages += n;
	fclose(f);
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Register @n distinct events: time and memory per event. */
static void bench_scale(int n)
{
	uint32_t *words = calloc(n, sizeof(*words));
	char cmd[64];
	long slab0, slab1, free0, free1, mf0, mf1;
	double t0, t1;
	int fd = open(TRACEFS "/user_events_data", O_RDWR), i;

	/* Fault in the enable words first. */
	memset(words, 0, n * sizeof(*words));
	slab0 = settled_kb("Slab:");
	free0 = free_all_kb();
	mf0 = read_long_after("/proc/meminfo", "MemFree:");
	mem_dump("before");
	t0 = now();
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), "bench_s%d u32 a", i);
		if (reg(fd, cmd, &words[i], 0, NULL)) {
			err("scale: register %s: errno %d", cmd, errno);
			return;
		}
	}
	t1 = now();
	slab1 = settled_kb("Slab:");
	free1 = free_all_kb();
	mf1 = read_long_after("/proc/meminfo", "MemFree:");
	mem_dump("after");
	report("scale_reg", (t1 - t0) * 1e9 / n, "ns/op");
	report("scale_slab", (slab1 - slab0) * 1024.0 / n, "B/event");
	report("scale_mem", (free0 - free1) * 1024.0 / n, "B/event");
	report("scale_memfree", (mf0 - mf1) * 1024.0 / n, "B/event");
	t0 = now();
	close(fd);
	t1 = now();
	report("scale_close", (t1 - t0) * 1e9, "ns/op");
	free(words);
}

/*
 * Several CPUs (-m smp, in a VM with 2 vCPUs, real time): the total
 * throughput of @nproc processes, one per CPU, each doing @kind for
 * loop_secs over the same interval: enabled writes (each process with its
 * own file and registration of bench_w, as separate programs would have;
 * one contiguous write() each), or a pure CPU loop (the rig's own ceiling).
 */
enum smp_kind { SMP_WRITE, SMP_LOOP };

#define SMP_MAX 8
#define LOOP_ITERS 1000

struct smp_shared {
	double start, end;
	long n[SMP_MAX];
	double begin[SMP_MAX], stop[SMP_MAX];
};

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		err("cannot pin to CPU %d: errno %d", cpu, errno);
}

static uint64_t cpu_loop(uint64_t x)
{
	for (int j = 0; j < LOOP_ITERS; j++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static void smp_child(enum smp_kind kind, int id, volatile struct smp_shared *sh,
		      int ready, int go)
{
	struct w_buf buf;
	uint32_t word = 0, idx = 0;
	uint64_t x = id;
	long n = 0;
	int fd = -1;
	char c = 'R';

	pin_cpu(id);
	if (kind == SMP_WRITE) {
		fd = open(TRACEFS "/user_events_data", O_RDWR);
		if (fd < 0 || reg(fd, W_EVENT, &word, 0, &idx))
			c = 'E';
		buf.idx = idx;
		buf.p.a = 1;
		buf.p.b = 2;
		buf.p.c_loc = DYN_LOC(0, W_STR);
		memset(buf.p.c, 'c', W_STR - 1);
		buf.p.c[W_STR - 1] = 0;
	}
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(1);
	while ((sh->begin[id] = now()) < sh->start)
		;
	do {
		for (int i = 0; i < 16; i++) {
			if (kind == SMP_LOOP) {
				x = cpu_loop(x);
			} else if (write(fd, &buf, sizeof(buf)) != sizeof(buf)) {
				printf("BENCHERR smp write: errno %d\n", errno);
				_exit(1);
			}
			n++;
		}
	} while ((sh->stop[id] = now()) < sh->end);
	sh->n[id] = n;
	/* Keep x alive: the loop must not be optimized away. */
	if (x == 42)
		printf("\n");
	_exit(0);
}

/* ns per operation of the total throughput; -1 on failure. */
static double smp_run(enum smp_kind kind, int nproc)
{
	struct smp_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ready[2], go[2], i, status, bad = 0;
	double first = 1e300, last = 0;
	long total = 0, rec;
	pid_t pids[SMP_MAX];
	char c;

	if (sh == MAP_FAILED || pipe(ready) || pipe(go)) {
		err("smp: mmap or pipe: errno %d", errno);
		return -1;
	}
	memset(sh, 0, sizeof(*sh));
	sh->start = 1e300;
	if (kind == SMP_WRITE)
		clear_trace();
	for (i = 0; i < nproc; i++) {
		pids[i] = fork();
		if (!pids[i])
			smp_child(kind, i, sh, ready[1], go[0]);
	}
	for (i = 0; i < nproc; i++)
		if (read(ready[0], &c, 1) != 1 || c != 'R')
			bad = 1;
	/* All set up: start together a little later, for loop_secs. */
	sh->start = now() + 0.1;
	sh->end = sh->start + loop_secs;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < nproc; i++)
		if (write(go[1], "g", 1) != 1)
			bad = 1;
	for (i = 0; i < nproc; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
		total += sh->n[i];
		if (sh->begin[i] < first)
			first = sh->begin[i];
		if (sh->stop[i] > last)
			last = sh->stop[i];
	}
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	munmap(sh, sizeof(*sh));
	if (bad || !total) {
		err("smp: a process failed");
		return -1;
	}
	if (kind == SMP_WRITE) {
		rec = ring_records();
		if (rec != total)
			err("smp %d writers: %ld writes but %ld records", nproc, total, rec);
	}
	/*
	 * Over the time from the first one's begin to the last one's end: a
	 * process that the host let begin late lowers the total, never raises it.
	 */
	return (last - first) * 1e9 / total;
}

static void bench_smp(int rounds)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	char row[32];

	if (cpus < 2) {
		err("smp: %ld CPU online", cpus);
		return;
	}
	if (write_file(EVENTS "/bench_w/enable", "1"))
		err("smp: cannot enable bench_w");
	for (int r = 0; r < rounds; r++) {
		double ns[2][3];	/* [write, loop][1, 2 processes] */

		/*
		 * 1 and 2 alternate, in either order, within the boot. The
		 * ratios of each round (measured within a second of each
		 * other) follow the host's load better than ratios of medians.
		 */
		for (int kind = 0; kind < 2; kind++) {
			for (int k = 0; k < 2; k++) {
				int nproc = (r + k) % 2 ? 2 : 1;

				ns[kind][nproc] = smp_run(kind ? SMP_LOOP : SMP_WRITE, nproc);
				snprintf(row, sizeof(row), "smp_%s%d", kind ? "loop" : "w", nproc);
				report(row, ns[kind][nproc], "ns/op");
			}
		}
		/* Throughput of 2 / of 1: writers, the CPU loop, and the first over the second. */
		printf("BENCH smp_scale_w %.3f ratio\n", ns[0][1] / ns[0][2]);
		printf("BENCH smp_scale_loop %.3f ratio\n", ns[1][1] / ns[1][2]);
		printf("BENCH smp_scale_rel %.3f ratio\n",
		       (ns[0][1] / ns[0][2]) / (ns[1][1] / ns[1][2]));
	}
	write_file(EVENTS "/bench_w/enable", "0");
}

/*
 * Address spaces (-m fork K, -m first K): run in a process of their own,
 * made by exec, so that it holds no enabler it did not make itself.
 */
static int op_fork(void *arg)
{
	int status;
	pid_t pid = fork();

	(void)arg;
	if (!pid)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status) {
		err("fork: errno %d", errno);
		return -1;
	}
	return 0;
}

/* fork + exit + wait of a process holding @k enable bits (one event). */
static int mode_fork(int k)
{
	uint32_t *words = calloc(k ? k : 1, sizeof(*words));
	int fd = open(TRACEFS "/user_events_data", O_RDWR), i;
	char row[32];
	double ns;

	for (i = 0; i < k; i++)
		if (reg(fd, "bench_k u32 a", &words[i], 0, NULL)) {
			err("fork: register bench_k: errno %d", errno);
			return 1;
		}
	ns = timed(op_fork, NULL, 1, NULL);
	snprintf(row, sizeof(row), "fork_%d", k);
	if (ns > 0)
		report(row, ns, "ns/op");
	return errors ? 1 : 0;
}

/*
 * The first DIAG_IOCSREG of a process with @k more mappings (each a
 * separate VMA: private maps of offset 0 of one file, which cannot merge),
 * of an event that exists (the parent holds bench_m).
 */
static int mode_first(int k)
{
	int fd = open(TRACEFS "/user_events_data", O_RDWR);
	int file = open("/proc/self/exe", O_RDONLY), i;
	uint32_t word = 0;
	double t0, t1;

	for (i = 0; i < k; i++)
		if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, file, 0) == MAP_FAILED) {
			err("first: mmap %d: errno %d", i, errno);
			return 1;
		}
	t0 = now();
	if (reg(fd, "bench_m u32 a", &word, 0, NULL)) {
		err("first: register bench_m: errno %d", errno);
		return 1;
	}
	t1 = now();
	report("reg_first_maps", (t1 - t0) * 1e9, "ns/op");
	return errors ? 1 : 0;
}

/* Run this program again as "-m MODE -k K" in a child, and wait for it. */
static void run_mode(const char *mode, int k)
{
	char ks[16], secs[32];
	int status;
	pid_t pid;

	snprintf(ks, sizeof(ks), "%d", k);
	snprintf(secs, sizeof(secs), "%g", loop_secs);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		execl("/proc/self/exe", "ue_bench", "-m", mode, "-k", ks,
		      "-t", secs, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		err("-m %s -k %d: status %d", mode, k, status);
}

/* The address-space rows: forks with 0, 1, 100 bits; first registrations. */
#define FIRST_MAPS 1000
#define FIRST_SAMPLES 5

static void bench_mm(int rounds)
{
	uint32_t mword = 0;
	int fd = open(TRACEFS "/user_events_data", O_RDWR), r, i;

	if (reg(fd, "bench_m u32 a", &mword, 0, NULL))
		err("cannot register bench_m: errno %d", errno);
	for (r = 0; r < rounds; r++) {
		run_mode("fork", 0);
		run_mode("fork", 1);
		run_mode("fork", 100);
		for (i = 0; i < FIRST_SAMPLES; i++)
			run_mode("first", FIRST_MAPS);
	}
	unreg(fd, &mword, 0);
	close(fd);
}

int main(int argc, char **argv)
{
	int rounds = 5, scale = 10000, opt, r, smp = 0, writes_only = 0;
	const char *mode = NULL;
	int k = 0;
	char usdt_def[512] = "";
	uint32_t *words = calloc(REG_N, sizeof(*words));
	uint32_t xword = 0;
	struct wctx w = { 0 };
	int xfd;

	while ((opt = getopt(argc, argv, "r:t:s:u:m:k:M")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 't': loop_secs = atof(optarg); break;
		case 's': scale = atoi(optarg); break;
		case 'm':
			mode = optarg;
			smp = !strcmp(optarg, "smp");
			writes_only = !strcmp(optarg, "writes");
			break;
		case 'k': k = atoi(optarg); break;
		case 'u':
			if (read_text(optarg, usdt_def, sizeof(usdt_def)) < 0) {
				err("cannot read %s", optarg);
				usdt_def[0] = 0;
			}
			break;
		case 'M': mem_dump_on = 1; break;
		default: return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mode && !strcmp(mode, "fork"))
		return mode_fork(k);
	if (mode && !strcmp(mode, "first"))
		return mode_first(k);

	w.fd = open(TRACEFS "/user_events_data", O_RDWR);
	if (w.fd < 0 || reg(w.fd, W_EVENT, &w_enabled, 0, &w.idx)) {
		err("cannot register %s: errno %d", W_EVENT, errno);
		return 1;
	}
	w.p.a = 1;
	w.p.b = 2;
	w.p.c_loc = DYN_LOC(0, W_STR);	/* right after the field */
	memset(w.p.c, 'c', W_STR - 1);
	w.iov[0] = (struct iovec){ &w.idx, sizeof(w.idx) };
	w.iov[1] = (struct iovec){ &w.p, sizeof(w.p) };
	w.buf.idx = w.idx;
	w.buf.p = w.p;

	if (smp) {
		bench_smp(rounds);
		printf("BENCHDONE errors=%d\n", errors);
		return errors ? 1 : 0;
	}

	/* bench_x exists throughout: reg_existing registers it again. */
	xfd = open(TRACEFS "/user_events_data", O_RDWR);
	if (reg(xfd, "bench_x u32 a", &xword, 0, NULL))
		err("cannot register bench_x: errno %d", errno);

	for (r = 0; r < rounds; r++) {
		bench_writes(&w);
		if (usdt_def[0])
			bench_usdt(&w, usdt_def);
		if (!writes_only)
			bench_reg(r, words);
	}
	if (writes_only) {
		printf("BENCHDONE errors=%d\n", errors);
		return errors ? 1 : 0;
	}
	bench_fanout(1, rounds);
	bench_fanout(100, rounds);
	bench_fanout(1000, rounds);
	bench_mm(rounds);
	wait_active(2);
	if (scale)
		bench_scale(scale);
	printf("BENCHDONE errors=%d\n", errors);
	return errors ? 1 : 0;
}
