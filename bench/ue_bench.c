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
#include <linux/perf_event.h>
#include <linux/user_events.h>

#define TRACEFS "/sys/kernel/tracing"
#define EVENTS TRACEFS "/events/user_events"

/* The 3-field event of the write rows; the fields are packed (spec 1.4). */
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

static long read_long_after(const char *path, const char *key)
{
	char buf[8192], *p;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
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
 * nanoseconds per operation. *done gets the number of operations.
 */
static double timed(int (*op)(void *), void *arg, int batch, long *done)
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

/* The write rows. */
struct wctx {
	int fd;
	uint32_t idx;
	struct iovec iov[2];
	struct w_payload p;
	int expect;		/* writev's result: a byte count, or -errno */
	struct perf_event_mmap_page *pm;
	long n;
};

static int op_writev(void *arg)
{
	struct wctx *w = arg;
	ssize_t ret = writev(w->fd, w->iov, 2);

	if (ret != w->expect && !(ret < 0 && -errno == w->expect)) {
		err("writev: %zd (errno %d), expected %d", ret, errno, w->expect);
		return -1;
	}
	/* Be the perf ring buffer's reader: a full buffer would drop records. */
	if (w->pm && !(++w->n & 63)) {
		uint64_t head = __atomic_load_n(&w->pm->data_head, __ATOMIC_ACQUIRE);

		__atomic_store_n(&w->pm->data_tail, head, __ATOMIC_RELEASE);
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

/* Entries and overruns of CPU 0's ring buffer: every record written. */
static long ring_records(void)
{
	const char *s = TRACEFS "/per_cpu/cpu0/stats";

	return read_long_after(s, "entries: ") + read_long_after(s, "overrun: ");
}

static void clear_trace(void)
{
	if (write_file(TRACEFS "/trace", ""))
		err("cannot clear trace");
}

static void bench_writes(struct wctx *w)
{
	long n = 0, rec;
	double ns;

	w->expect = sizeof(w->idx) + sizeof(w->p);
	w->pm = NULL;

	/* ftrace */
	clear_trace();
	if (write_file(EVENTS "/bench_w/enable", "1"))
		err("cannot enable bench_w");
	ns = timed(op_writev, w, 1, &n);
	write_file(EVENTS "/bench_w/enable", "0");
	rec = ring_records();
	if (rec != n)
		err("write_ftrace: %ld writes but %ld records", n, rec);
	report("write_ftrace", ns, "ns/op");

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

	/* perf: a tracepoint event on this task, raw samples into a ring */
	{
		struct perf_event_attr pa = {
			.type = PERF_TYPE_TRACEPOINT,
			.size = sizeof(pa),
			.config = read_long_after(EVENTS "/bench_w/id", ""),
			.sample_period = 1,
			.sample_type = PERF_SAMPLE_RAW,
		};
		size_t len = 17 * 4096;
		uint64_t count = 0;
		int pfd = syscall(__NR_perf_event_open, &pa, 0, -1, -1, 0);

		if (pfd < 0) {
			err("perf_event_open: errno %d", errno);
			return;
		}
		w->pm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
		if (w->pm == MAP_FAILED) {
			err("perf mmap: errno %d", errno);
			close(pfd);
			w->pm = NULL;
			return;
		}
		ns = timed(op_writev, w, 1, &n);
		if (read(pfd, &count, sizeof(count)) != sizeof(count) || (long)count != n)
			err("write_perf: %ld writes but the counter says %llu", n,
			    (unsigned long long)count);
		munmap(w->pm, len);
		w->pm = NULL;
		close(pfd);
		report("write_perf", ns, "ns/op");
	}

	/* nothing attached: -EBADF */
	w->expect = -EBADF;
	ns = timed(op_writev, w, 1, NULL);
	report("write_disabled", ns, "ns/op");

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

/* Register @n distinct events: time and slab memory per event. */
static void bench_scale(int n)
{
	uint32_t *words = calloc(n, sizeof(*words));
	char cmd[64];
	long slab0, slab1, free0, free1;
	double t0, t1;
	int fd = open(TRACEFS "/user_events_data", O_RDWR), i;

	/* Fault in the enable words first. */
	memset(words, 0, n * sizeof(*words));
	slab0 = settled_kb("Slab:");
	free0 = read_long_after("/proc/meminfo", "MemFree:");
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
	free1 = read_long_after("/proc/meminfo", "MemFree:");
	report("scale_reg", (t1 - t0) * 1e9 / n, "ns/op");
	report("scale_slab", (slab1 - slab0) * 1024.0 / n, "B/event");
	report("scale_mem", (free0 - free1) * 1024.0 / n, "B/event");
	close(fd);
	free(words);
}

int main(int argc, char **argv)
{
	int rounds = 5, scale = 10000, opt, r;
	uint32_t *words = calloc(REG_N, sizeof(*words));
	uint32_t wword = 0, xword = 0;
	struct wctx w = { 0 };
	int xfd;

	while ((opt = getopt(argc, argv, "r:t:s:")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 't': loop_secs = atof(optarg); break;
		case 's': scale = atoi(optarg); break;
		default: return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	w.fd = open(TRACEFS "/user_events_data", O_RDWR);
	if (w.fd < 0 || reg(w.fd, W_EVENT, &wword, 0, &w.idx)) {
		err("cannot register %s: errno %d", W_EVENT, errno);
		return 1;
	}
	w.p.a = 1;
	w.p.b = 2;
	w.p.c_loc = DYN_LOC(0, W_STR);	/* right after the field */
	memset(w.p.c, 'c', W_STR - 1);
	w.iov[0] = (struct iovec){ &w.idx, sizeof(w.idx) };
	w.iov[1] = (struct iovec){ &w.p, sizeof(w.p) };

	/* bench_x exists throughout: reg_existing registers it again. */
	xfd = open(TRACEFS "/user_events_data", O_RDWR);
	if (reg(xfd, "bench_x u32 a", &xword, 0, NULL))
		err("cannot register bench_x: errno %d", errno);

	for (r = 0; r < rounds; r++) {
		bench_writes(&w);
		bench_reg(r, words);
	}
	bench_fanout(1, rounds);
	bench_fanout(100, rounds);
	bench_fanout(1000, rounds);
	wait_active(2);
	if (scale)
		bench_scale(scale);
	printf("BENCHDONE errors=%d\n", errors);
	return errors ? 1 : 0;
}
