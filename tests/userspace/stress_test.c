// SPDX-License-Identifier: GPL-2.0
/*
 * The concurrent stress suite (suite stress), run by 55-stress.sh for a given
 * time (30 s in make check, hours in make soak).
 *
 * Several worker processes of two threads each register, unregister,
 * write, close and reopen, fork (the child works on its copy and exits or
 * execs), vfork and exec, clone(CLONE_VM) and exit, and mprotect, madvise
 * (MADV_DONTNEED) and munmap their enable pages; each process lives a few
 * seconds and exits with its registrations held, and another takes its
 * place. Meanwhile threads of the controlling process toggle enables in two
 * ftrace instances of their own and through perf (PERF_TYPE_TRACEPOINT on
 * the event's id, one CPU), create and delete "u:" events in dynamic_events,
 * DIAG_IOCSDEL the names the workers register, lower and restore
 * kernel.user_events_max, and try to unload the module (it must refuse while
 * this process holds user_events_data open).
 *
 * Every call's result is checked against the errnos upstream gives it in this
 * setting (each check's comment names them); an unexpected errno is a failure
 * of that kind of operation. Per kind, the calls are counted and printed
 * ("UE-INFO stress ...").
 *
 * At quiescence (the time is up: no toggles, every worker stopped with its
 * pages mapped and writable): each event is enabled and disabled once in
 * the second instance, which rewrites every enable bit; then a plan (every
 * third event enabled in the first instance, every third through perf) is
 * put in place, and
 *   - user_events_status agrees with it and with the events directories
 *     and dynamic_events: the same events, Active and Busy;
 *   - every enable word of every surviving worker thread holds exactly its
 *     registered bit if its event is enabled, and nothing else (the
 *     32-on-64 rule included).
 * Then the workers exit, every non-persistent event must go by itself and the
 * persistent ones are deleted, leaving nothing.
 *
 * The run goes on past SECS, for ST_GRACE_SECS more at most, until every
 * kind of call has been made at least once: on a slow machine a short run
 * may not yet have drawn a rare kind (munmap is one draw in about 75), and
 * a kind that never ran says nothing about the module. A kind still at no
 * call after the grace fails by name.
 *
 * UE_STRESS_SUITE names the suite its result lines carry (default stress).
 *
 * Usage: stress_test SEED SECS [MODULE]
 * The seed fixes what each thread chooses to do (its random stream); the
 * timing of two CPUs decides how the calls interleave.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ue_abi.h"

#define ST_INST_A	TRACEFS "/instances/ue_stress_a"
#define ST_INST_B	TRACEFS "/instances/ue_stress_b"
#define ST_DYN		TRACEFS "/dynamic_events"
#define ST_STATUS	TRACEFS "/user_events_status"
#define ST_MAX		"/proc/sys/kernel/user_events_max"
#define ST_STATE	"/sys/kernel/debug/user_events_dkms/state"
#define ST_PLAN		"/tmp/ue_stress.plan"
#define ST_PROCS	3	/* worker processes at a time */
#define ST_THREADS	2	/* threads of a worker process */
#define ST_SLOTS	15	/* enable words of a thread; one more for clone */
#define ST_PERF		4	/* perf events held at most */
#define ST_TPS		64	/* events at quiescence, at most */
#define ST_GRACE_SECS	120	/* past SECS, until every kind has run */

/* --- what is checked -------------------------------------------------- */

enum {
	K_REG, K_DUP, K_UNREG, K_WRITE, K_CLOSE, K_FORK, K_EXEC, K_VFORK,
	K_CLONE, K_EXIT, K_MPROTECT, K_MADVISE, K_MUNMAP, K_DEL, K_DYNEV,
	K_FTRACE, K_PERF, K_SYSCTL, K_RMMOD, K_BITS, K_N
};

static const char *const kinds[K_N] = {
	"reg", "reg_dup", "unreg", "write", "close", "fork", "exec", "vfork",
	"clone", "exit", "mprotect", "madvise", "munmap", "del", "dynev",
	"ftrace", "perf", "sysctl", "rmmod", "bits",
};

enum { RUN, STOP, CHECK, END };

/* In a shared mapping: every process of the run counts here. */
struct st_shared {
	int phase;
	int alive;		/* worker threads not gone by their deadline */
	int ready;		/* survivors stopped, pages restored */
	int checked;		/* survivors done with their check */
	unsigned long calls[K_N], ok[K_N], bad[K_N];
};

static struct st_shared *sh;
static unsigned long long seed;
static const char *self_exe = "/proc/self/exe";

static int phase(void)
{
	return __atomic_load_n(&sh->phase, __ATOMIC_ACQUIRE);
}

static void add(unsigned long *v)
{
	__atomic_fetch_add(v, 1, __ATOMIC_RELAXED);
}

/* A failure of @kind; the first of each kind is printed. */
static void bad(int kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void bad(int kind, const char *fmt, ...)
{
	char d[400];
	va_list ap;

	if (__atomic_fetch_add(&sh->bad[kind], 1, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(d, sizeof(d), fmt, ap);
	va_end(ap);
	printf("UE-RESULT %s fail %s seed %llu: %s\n", ue_suite, kinds[kind], seed, d);
	fflush(stdout);
}

/*
 * A call's result (@ret, errno @err) against @allowed: errnos, 0 for
 * success, ending with -1. What is not in it is a failure of @kind.
 */
static int check(int kind, const char *what, long ret, int err, const int *allowed)
{
	int i;

	add(&sh->calls[kind]);
	if (ret >= 0)
		err = 0;
	for (i = 0; allowed[i] >= 0; i++)
		if (allowed[i] == err) {
			if (!err)
				add(&sh->ok[kind]);
			return 1;
		}
	bad(kind, "%s returned %ld, errno %d (%s)", what, ret, err,
	    err ? strerror(err) : "success");
	return 0;
}

#define ALLOW(...) ((const int[]){ __VA_ARGS__, -1 })

/* --- randomness: one stream a thread, from the seed ------------------- */

struct st_rng {
	unsigned long long s;
};

static void rng_init(struct st_rng *r, unsigned long long role)
{
	r->s = (seed ^ (role * 0x9E3779B97F4A7C15ULL)) * 2654435761ULL + 1;
}

static unsigned int below(struct st_rng *r, unsigned int n)
{
	unsigned long long x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return (unsigned int)((x * 0x2545F4914F6CDD1DULL) >> 33) % n;
}

static int chance(struct st_rng *r, unsigned int percent)
{
	return below(r, 100) < percent;
}

static void nap(struct st_rng *r, unsigned int max_us)
{
	usleep(below(r, max_us + 1));
}

/* --- the events ---------------------------------------------------------- */

enum { SINGLE, MULTI, PERSIST };

/*
 * Each name has fixed field lists, so that no registration clashes with
 * another's fields (a clash, EADDRINUSE, is the fuzzer's); the two lists of a
 * multi-format name make two variants. "u:" lines make only sp* names
 * (persistent), so that ss* and sm* are never persistent: deleting one is
 * EBUSY or ENOENT, never 0.
 */
static const struct st_event {
	const char *name, *fields;
	int kind;
} events[] = {
	{ "ss0", "u32 a", SINGLE },
	{ "ss1", "u64 x; char[8] s", SINGLE },
	{ "ss2", "__data_loc char[] msg", SINGLE },
	{ "ss3", "", SINGLE },
	{ "ss4", "u32 a;u32 b", SINGLE },
	{ "ss5", "__rel_loc char[] r; u16 n", SINGLE },
	{ "sm0", "u32 a", MULTI },
	{ "sm0", "u64 b", MULTI },
	{ "sm1", "u32 a", MULTI },
	{ "sm1", "u64 b", MULTI },
	{ "sp0", "u32 v", PERSIST },
	{ "sp1", "u32 v", PERSIST },
	{ "sp2", "u32 v", PERSIST },
};
#define NEVENTS	(int)(sizeof(events) / sizeof(events[0]))
static const char *const names[] = { "ss0", "ss1", "ss2", "ss3", "ss4", "ss5",
				     "sm0", "sm1", "sp0", "sp1", "sp2" };
#define NNAMES	(int)(sizeof(names) / sizeof(names[0]))

static void command(const struct st_event *e, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", e->name, *e->fields ? " " : "", e->fields);
}

/*
 * A record of @e after the write index: its fields, with valid
 * __data_loc/__rel_loc words (a data_loc offset counts from the record's
 * start, 8 bytes of header included; a rel_loc one from after the word). Its
 * length.
 */
/*
 * The kernel's struct trace_entry, which a __data_loc offset counts in: 8
 * bytes, 12 on 5.10's PREEMPT_RT. Read off a field's offset in the format of
 * an event made for it (header_size()).
 */
static unsigned int hdr = 8;

static void header_size(void)
{
	char fmt[4096], *f;

	if (ue_write_text(TRACEFS "/dynamic_events", "u:st_hdr u32 a", O_APPEND))
		return;
	if (ue_read_text(EVENTS "/st_hdr/format", fmt, sizeof(fmt)) > 0 &&
	    (f = strstr(fmt, "field:u32 a;\toffset:")))
		hdr = atoi(f + strlen("field:u32 a;\toffset:"));
	ue_write_text(TRACEFS "/dynamic_events", "-:st_hdr u32 a", O_APPEND);
}

static unsigned int payload(const struct st_event *e, unsigned char *p)
{
	__u32 loc;

	memset(p, 0x5a, 32);
	if (!strcmp(e->fields, "__data_loc char[] msg")) {
		loc = 3 << 16 | (hdr + 4);
		memcpy(p, &loc, 4);
		memcpy(p + 4, "hi", 3);
		return 7;
	}
	if (!strcmp(e->fields, "__rel_loc char[] r; u16 n")) {
		loc = 3 << 16 | 2;
		memcpy(p, &loc, 4);
		memcpy(p + 6, "hi", 3);
		return 9;
	}
	if (!*e->fields)
		return 0;
	if (!strcmp(e->fields, "u64 x; char[8] s"))
		return 16;
	return strstr(e->fields, "u64") || strchr(e->fields, ';') ? 8 : 4;
}

/* "user_events/NAME" or "user_events_multi/NAME.<id>" of @e, or "". */
static void tp_of(const struct st_event *e, char *tp, size_t size)
{
	char path[300], fmt[4096], want[64];
	struct dirent *d;
	DIR *dir;

	tp[0] = 0;
	if (e->kind != MULTI) {
		snprintf(tp, size, "user_events/%s", e->name);
		return;
	}
	/* The variant whose format lists these fields. */
	snprintf(want, sizeof(want), "field:%s;", e->fields);
	dir = opendir(TRACEFS "/events/user_events_multi");
	while (dir && (d = readdir(dir))) {
		if (strncmp(d->d_name, e->name, strlen(e->name)) ||
		    d->d_name[strlen(e->name)] != '.')
			continue;
		snprintf(path, sizeof(path), TRACEFS "/events/user_events_multi/%.60s/format",
			 d->d_name);
		if (ue_read_text(path, fmt, sizeof(fmt)) > 0 && strstr(fmt, want)) {
			snprintf(tp, size, "user_events_multi/%.60s", d->d_name);
			break;
		}
	}
	if (dir)
		closedir(dir);
}

/* --- worker threads ------------------------------------------------------ */

enum { PAGE_RW, PAGE_RO, PAGE_GONE };

struct st_slot {
	int reg;		/* an enabler is registered here */
	int ev, size, bit;
	int fdi, fdgen;		/* the file it was registered on, its generation */
	__u32 index;
	int dirty;		/* unregistered while the page was not writable */
	unsigned int off;	/* offset of the word in its 8 bytes (0 or 4) */
};

struct st_thread {
	struct st_rng rng;
	int id;
	unsigned char *page;	/* ST_SLOTS + 1 words of 8 bytes */
	int page_state;
	int fds[2], fdgen[2];
	struct st_slot slots[ST_SLOTS];
	time_t deadline;
	char *stack;		/* for clone(CLONE_VM) children */
	int clone_err;
	char clone_what[64];
};

static void *slot_word(struct st_thread *t, int i)
{
	return t->page + 8 * i + t->slots[i].off;
}

static int reg_allowed_ok(struct st_thread *t)
{
	return t->page_state == PAGE_RW;
}

/*
 * DIAG_IOCSREG of a random event into free slot @i. With a valid command and
 * word, only the event limit (EMFILE, while user_events_max is lowered) can
 * fail it, and the enable write (EFAULT) while the page is not mapped
 * writable.
 */
static void op_reg_slot(struct st_thread *t, int i)
{
	struct st_slot *s = &t->slots[i];
	const struct st_event *e;
	char cmd[128];
	int flags, fdi, ret;

	s->ev = below(&t->rng, NEVENTS);
	e = &events[s->ev];
	flags = e->kind == MULTI ? USER_EVENT_REG_MULTI_FORMAT : 0;
	if (e->kind == PERSIST && chance(&t->rng, 50))
		flags |= USER_EVENT_REG_PERSIST;
	s->size = chance(&t->rng, 50) ? 4 : 8;
	s->bit = below(&t->rng, s->size * 8);
	s->off = s->size == 4 && chance(&t->rng, 50) ? 4 : 0;
	fdi = below(&t->rng, 2);
	command(e, cmd, sizeof(cmd));
	ret = ue_reg_sized(t->fds[fdi], cmd, slot_word(t, i), s->size, s->bit,
			   flags, &s->index);
	if (reg_allowed_ok(t))
		check(K_REG, "DIAG_IOCSREG", ret, errno, ALLOW(0, EMFILE));
	else
		check(K_REG, "DIAG_IOCSREG (page not writable)", ret, errno,
		      ALLOW(EFAULT, EMFILE));
	if (!ret) {
		s->reg = 1;
		s->fdi = fdi;
		s->fdgen = t->fdgen[fdi];
	}
}

static void op_reg(struct st_thread *t)
{
	int i = below(&t->rng, ST_SLOTS);
	struct st_slot *s = &t->slots[i];
	char cmd[128];
	int ret;

	if (!s->reg) {
		op_reg_slot(t, i);
		return;
	}
	/* EADDRINUSE: the same address and bit again, any event. */
	command(&events[below(&t->rng, NEVENTS)], cmd, sizeof(cmd));
	ret = ue_reg_sized(t->fds[below(&t->rng, 2)], cmd, slot_word(t, i),
			   s->size, s->bit, 0, NULL);
	check(K_DUP, "DIAG_IOCSREG of a registered bit", ret, errno, ALLOW(EADDRINUSE));
}

/*
 * DIAG_IOCSUNREG: 0 for a registered bit (EFAULT when its clear cannot be
 * written: the enabler is gone all the same), ENOENT for another.
 */
static void op_unreg(struct st_thread *t)
{
	int i = below(&t->rng, ST_SLOTS), ret;
	struct st_slot *s = &t->slots[i];

	ret = ue_unreg(t->fds[below(&t->rng, 2)], slot_word(t, i), s->reg ? s->bit : 0);
	if (!s->reg) {
		check(K_UNREG, "DIAG_IOCSUNREG of an unregistered bit", ret, errno,
		      ALLOW(ENOENT));
		return;
	}
	if (reg_allowed_ok(t)) {
		check(K_UNREG, "DIAG_IOCSUNREG", ret, errno, ALLOW(0));
	} else {
		check(K_UNREG, "DIAG_IOCSUNREG (page not writable)", ret, errno,
		      ALLOW(EFAULT));
		s->dirty = 1;
	}
	s->reg = 0;
}

/*
 * write() of a registered event's record: the whole length, or EBADF while
 * nothing is attached to it.
 */
static void op_write(struct st_thread *t)
{
	unsigned char rec[48];
	int i = below(&t->rng, ST_SLOTS);
	struct st_slot *s = &t->slots[i];
	unsigned int len;
	long ret;

	if (!s->reg || s->fdgen != t->fdgen[s->fdi])
		return;
	memcpy(rec, &s->index, 4);
	len = 4 + payload(&events[s->ev], rec + 4);
	ret = write(t->fds[s->fdi], rec, len);
	if (check(K_WRITE, "write", ret, errno, ALLOW(0, EBADF)) && ret >= 0 &&
	    ret != (long)len)
		bad(K_WRITE, "write of %u bytes returned %ld", len, ret);
}

static int open_data(void)
{
	int fd = ue_open_data();

	if (fd < 0)
		bad(K_CLOSE, "open user_events_data: %s", strerror(errno));
	return fd;
}

/* close() and a new open: the enablers stay. */
static void op_close(struct st_thread *t)
{
	int fdi = below(&t->rng, 2), ret;

	ret = close(t->fds[fdi]);
	check(K_CLOSE, "close", ret, errno, ALLOW(0));
	t->fds[fdi] = open_data();
	t->fdgen[fdi]++;
}

/* --- fork, exec, vfork, clone ------------------------------------------- */

static void reap(int kind, pid_t pid, const char *what)
{
	int status = -1;

	if (pid < 0) {
		check(kind, what, -1, errno, ALLOW(0));
		return;
	}
	while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
		;
	check(kind, what, WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1,
	      EIO, ALLOW(0));
}

static void exec_child(int fd)
{
	char fdarg[16];

	snprintf(fdarg, sizeof(fdarg), "%d", fd);
	execl(self_exe, "stress_test", "--exec-child", fdarg, (char *)NULL);
	_exit(127);
}

/*
 * A forked child has copies of the forking thread's enablers (without memory
 * for them it is untracked, so unregistering an inherited bit may be ENOENT).
 * It works on its copies a while, then exits or execs with them still
 * registered.
 */
static void op_fork(struct st_thread *t)
{
	pid_t pid;
	int i;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		rng_init(&t->rng, t->rng.s);
		for (i = 0; i < 8; i++) {
			int n = below(&t->rng, ST_SLOTS), ret;
			struct st_slot *s = &t->slots[n];

			if (s->reg && chance(&t->rng, 50)) {
				ret = ue_unreg(t->fds[0], slot_word(t, n), s->bit);
				check(K_FORK, "DIAG_IOCSUNREG of an inherited bit", ret,
				      errno, ALLOW(0, ENOENT));
				s->reg = 0;
			} else if (!s->reg) {
				op_reg_slot(t, n);
			} else {
				op_write(t);
			}
		}
		if (chance(&t->rng, 50))
			exec_child(t->fds[below(&t->rng, 2)]);
		add(&sh->calls[K_EXIT]);
		_exit(0);
	}
	reap(K_FORK, pid, "forked child");
}

/* fork() and execve() at once: the enablers go with the old image. */
static void op_exec(struct st_thread *t)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid)
		exec_child(t->fds[0]);
	reap(K_EXEC, pid, "exec'd child");
}

/* vfork(): the child shares the thread's enablers until it execs or exits. */
static void op_vfork(struct st_thread *t)
{
	char fdarg[16], *argv[] = { "stress_test", "--exec-child", fdarg, NULL };
	int do_exec = chance(&t->rng, 70);
	pid_t pid;

	snprintf(fdarg, sizeof(fdarg), "%d", t->fds[1]);
	fflush(stdout);
	pid = vfork();
	if (!pid) {
		/* (only execv() or _exit() in a vfork child) */
		if (do_exec)
			execv(self_exe, argv);
		_exit(do_exec ? 127 : 0);
	}
	reap(K_VFORK, pid, "vfork'd child");
}

/*
 * A clone(CLONE_VM) child shares the thread's tracking object, if it has one:
 * it registers the spare word, writes, and unregisters it (0 in either case),
 * so that nothing of it stays in the thread's object.
 */
static int clone_fn(void *arg)
{
	struct st_thread *t = arg;
	unsigned char rec[48];
	void *word = t->page + 8 * ST_SLOTS;
	const struct st_event *e = &events[t->id % NEVENTS];
	char cmd[128];
	__u32 index;
	int ret;

	command(e, cmd, sizeof(cmd));
	ret = ue_reg_sized(t->fds[0], cmd, word, 4, t->id % 32,
			   e->kind == MULTI ? USER_EVENT_REG_MULTI_FORMAT : 0, &index);
	if (ret) {
		t->clone_err = errno == EMFILE ? 0 : errno;
		snprintf(t->clone_what, sizeof(t->clone_what), "DIAG_IOCSREG");
		return 0;
	}
	memcpy(rec, &index, 4);
	ret = write(t->fds[0], rec, 4 + payload(e, rec + 4));
	if (ret < 0 && errno != EBADF) {
		t->clone_err = errno;
		snprintf(t->clone_what, sizeof(t->clone_what), "write");
	}
	if (ue_unreg(t->fds[0], word, t->id % 32)) {
		t->clone_err = errno;
		snprintf(t->clone_what, sizeof(t->clone_what), "DIAG_IOCSUNREG");
	}
	return 0;
}

static void op_clone(struct st_thread *t)
{
	pid_t pid;

	t->clone_err = 0;
	fflush(stdout);
	pid = clone(clone_fn, t->stack + 65536, CLONE_VM | SIGCHLD, t);
	reap(K_CLONE, pid, "clone(CLONE_VM) child");
	if (t->clone_err)
		check(K_CLONE, t->clone_what, -1, t->clone_err, ALLOW(0));
}

/* --- the enable page ------------------------------------------------------ */

/*
 * While the page is read-only or unmapped, state changes cannot write its
 * bits (the module's fault-in fails and says so in the log), a registration
 * there fails with EFAULT and an unregistration with EFAULT.
 */
static void page_window(struct st_thread *t)
{
	int n = 1 + below(&t->rng, 3);

	while (n--) {
		int i = below(&t->rng, ST_SLOTS);

		if (!t->slots[i].reg && chance(&t->rng, 50))
			op_reg_slot(t, i);
		else if (chance(&t->rng, 50))
			op_unreg(t);
		else
			op_write(t);
	}
	nap(&t->rng, 3000);
}

/* After a window: the words unregistered in it are cleared by hand. */
static void page_restored(struct st_thread *t)
{
	int i;

	t->page_state = PAGE_RW;
	for (i = 0; i < ST_SLOTS; i++) {
		if (t->slots[i].dirty && !t->slots[i].reg)
			memset(t->page + 8 * i, 0, 8);
		t->slots[i].dirty = 0;
	}
}

static void op_page(struct st_thread *t)
{
	void *p;
	int ret;

	switch (below(&t->rng, 3)) {
	case 0:
		ret = mprotect(t->page, 4096, PROT_READ);
		if (!check(K_MPROTECT, "mprotect(PROT_READ)", ret, errno, ALLOW(0)))
			return;
		t->page_state = PAGE_RO;
		page_window(t);
		ret = mprotect(t->page, 4096, PROT_READ | PROT_WRITE);
		check(K_MPROTECT, "mprotect(PROT_READ|PROT_WRITE)", ret, errno, ALLOW(0));
		page_restored(t);
		break;
	case 1:
		/* Every bit reads 0 until the event's state next changes. */
		ret = madvise(t->page, 4096, MADV_DONTNEED);
		check(K_MADVISE, "madvise(MADV_DONTNEED)", ret, errno, ALLOW(0));
		break;
	default:
		ret = munmap(t->page, 4096);
		if (!check(K_MUNMAP, "munmap", ret, errno, ALLOW(0)))
			return;
		t->page_state = PAGE_GONE;
		page_window(t);
		/* The same address again, a new zeroed page (never another's). */
		p = mmap(t->page, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != t->page) {
			bad(K_MUNMAP, "mmap of the page again: %s", strerror(errno));
			/* Its enablers would write into whatever is there now. */
			_exit(2);
		}
		page_restored(t);
	}
}

/* --- a worker thread's life ----------------------------------------------- */

/* A survivor's enable words against the plan: what is left. */
static int plan_of(const char *tp)
{
	char plan[8192], key[200], *at;

	if (ue_read_text(ST_PLAN, plan, sizeof(plan)) < 0)
		return -1;
	snprintf(key, sizeof(key), "\n%s ", tp);
	at = strstr(plan, key);
	return at ? at[strlen(key)] - '0' : -1;
}

static int check_words(struct st_thread *t)
{
	char tp[200];
	int i, on, fails = 0;

	for (i = 0; i < ST_SLOTS + 1; i++) {
		struct st_slot *s = i < ST_SLOTS ? &t->slots[i] : NULL;
		unsigned long long got, want = 0;

		memcpy(&got, t->page + 8 * i, 8);
		if (s && s->reg) {
			tp_of(&events[s->ev], tp, sizeof(tp));
			on = *tp ? plan_of(tp) : -1;
			if (on < 0) {
				bad(K_BITS, "thread %d slot %d: its event %s (%s) is not there at quiescence",
				    t->id, i, events[s->ev].name, events[s->ev].fields);
				fails++;
				continue;
			}
			want = (unsigned long long)on << (s->bit + 8 * s->off);
		}
		if (got != want) {
			bad(K_BITS, "thread %d slot %d (%s, %d-byte word +%u, bit %d): enable word 0x%llx, want 0x%llx",
			    t->id, i, s && s->reg ? events[s->ev].name : "free",
			    s ? s->size : 4, s ? s->off : 0, s ? s->bit : 0, got, want);
			fails++;
		}
	}
	return fails;
}

static void wait_phase(int want)
{
	while (phase() < want)
		usleep(10000);
}

static void op_nap(struct st_thread *t)
{
	nap(&t->rng, 2000);
}

/* A worker thread's operations, each with its weight in 100. */
static const struct {
	void (*op)(struct st_thread *t);
	unsigned int weight;
} ops[] = {
	{ op_reg, 22 }, { op_unreg, 12 }, { op_write, 32 }, { op_close, 3 },
	{ op_fork, 4 }, { op_exec, 2 }, { op_vfork, 3 }, { op_clone, 3 },
	{ op_page, 4 }, { op_nap, 15 },
};

static void *worker_thread(void *arg)
{
	struct st_thread *t = arg;
	unsigned int k, i;

	while (phase() == RUN && time(NULL) < t->deadline) {
		k = below(&t->rng, 100);
		for (i = 0; k >= ops[i].weight; i++)
			k -= ops[i].weight;
		ops[i].op(t);
	}
	if (phase() == RUN) {
		/* Its time is up: it exits with its registrations held. */
		__atomic_fetch_sub(&sh->alive, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	/*
	 * A survivor: its page is mapped and writable (page_restored()); a
	 * write to each word makes it present and its own again (after
	 * MADV_DONTNEED, or copy-on-write after a fork), so that the bits are
	 * written at once, not by a fault-in later.
	 */
	for (k = 0; k < ST_SLOTS + 1; k++)
		__atomic_fetch_or((unsigned long long *)(t->page + 8 * k), 0ULL,
				  __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_RELEASE);
	wait_phase(CHECK);
	if (!check_words(t))
		add(&sh->ok[K_BITS]);
	add(&sh->calls[K_BITS]);
	__atomic_fetch_add(&sh->checked, 1, __ATOMIC_RELEASE);
	wait_phase(END);
	return NULL;
}

/*
 * A worker process: its threads are made before any registers, so that
 * each has a tracking object of its own.
 */
static void worker(unsigned long long gen, int secs)
{
	static struct st_thread th[ST_THREADS];
	pthread_t pt[ST_THREADS];
	int i;

	/*
	 * Nothing of the controller's: a perf event or an enable file it had
	 * open when it forked would stay open here, and its event enabled.
	 */
	syscall(SYS_close_range, 3, ~0U, 0);
	for (i = 0; i < ST_THREADS; i++) {
		struct st_thread *t = &th[i];

		rng_init(&t->rng, gen * 16 + i + 100);
		t->id = (int)(gen * ST_THREADS + i);
		t->deadline = time(NULL) + secs;
		t->page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t->stack = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t->fds[0] = open_data();
		t->fds[1] = open_data();
		if (t->page == MAP_FAILED || t->stack == MAP_FAILED) {
			bad(K_EXIT, "mmap: %s", strerror(errno));
			_exit(1);
		}
	}
	for (i = 1; i < ST_THREADS; i++)
		if (pthread_create(&pt[i], NULL, worker_thread, &th[i])) {
			bad(K_EXIT, "pthread_create failed");
			_exit(1);
		}
	worker_thread(&th[0]);
	for (i = 1; i < ST_THREADS; i++)
		pthread_join(pt[i], NULL);
	fflush(stdout);
	_exit(0);
}

/* --- exec'd children ------------------------------------------------------ */

/*
 * stress_test --exec-child FD: a new image, tracked by nobody (exec drops the
 * tracking object). It registers a word of its own (0, or EMFILE while
 * user_events_max is lowered), closes the inherited file, and exits with the
 * registration held half the time.
 */
static int exec_child_main(int fd)
{
	static __u32 word;
	int own = ue_open_data(), ret;

	ret = ue_reg(own, "ss0 u32 a", &word, getpid() % 32, 0, NULL);
	if (ret && errno != EMFILE) {
		printf("UE-RESULT %s fail exec_child DIAG_IOCSREG: %s\n", ue_suite, strerror(errno));
		return 1;
	}
	if (close(fd)) {
		printf("UE-RESULT %s fail exec_child close of the inherited fd: %s\n", ue_suite,
		       strerror(errno));
		return 1;
	}
	if (!ret && getpid() % 2 && ue_unreg(own, &word, getpid() % 32)) {
		printf("UE-RESULT %s fail exec_child DIAG_IOCSUNREG: %s\n", ue_suite, strerror(errno));
		return 1;
	}
	return 0;
}

/* --- the controller's threads -------------------------------------------- */

/* A random event's "system/name" (a multi-format variant among them). */
static void random_tp(struct st_rng *r, char *tp, size_t size)
{
	const struct st_event *e = &events[below(r, NEVENTS)];

	tp_of(e, tp, size);
	if (!*tp)
		snprintf(tp, size, "user_events_multi/%s.0", e->name);
}

/*
 * Enable toggles in one instance (the bits follow). ENOENT: the event does
 * not exist; ENODEV: it went between open and write.
 */
static void *ftrace_loop(void *arg)
{
	const char *inst = arg;
	struct st_rng r;
	char tp[200], path[400];
	int ret;

	rng_init(&r, inst[strlen(inst) - 1]);
	while (phase() == RUN) {
		random_tp(&r, tp, sizeof(tp));
		snprintf(path, sizeof(path), "%s/events/%s/enable", inst, tp);
		ret = ue_write_text(path, chance(&r, 50) ? "1" : "0", O_TRUNC);
		check(K_FTRACE, "write enable", ret, -ret, ALLOW(0, ENOENT, ENODEV));
		nap(&r, 4000);
	}
	return NULL;
}

/* A CPU-wide perf event on @tp (a task's would patch __schedule). */
static int perf_open(const char *tp, int cpu, int *err)
{
	struct perf_event_attr pe;
	char path[300], id[32];
	int ret;

	snprintf(path, sizeof(path), TRACEFS "/events/%s/id", tp);
	ret = ue_read_text(path, id, sizeof(id));
	if (ret < 0) {
		*err = -ret;
		return -2;
	}
	memset(&pe, 0, sizeof(pe));
	pe.type = PERF_TYPE_TRACEPOINT;
	pe.size = sizeof(pe);
	pe.config = atoi(id);
	pe.sample_type = PERF_SAMPLE_RAW;
	pe.sample_period = 1;
	ret = syscall(__NR_perf_event_open, &pe, -1, cpu, -1, 0);
	*err = errno;
	return ret;
}

/*
 * Perf events opened and closed on random events. Reading the id: ENOENT
 * or ENODEV as for ftrace; perf_event_open: EINVAL when no event has that
 * id any more, ENOENT for an event gone meanwhile.
 */
static void *perf_loop(void *arg)
{
	int fds[ST_PERF], n = 0, i, fd, err;
	struct st_rng r;
	char tp[200];

	(void)arg;
	rng_init(&r, 7);
	while (phase() == RUN) {
		if (n < ST_PERF && chance(&r, 60)) {
			random_tp(&r, tp, sizeof(tp));
			fd = perf_open(tp, below(&r, 2), &err);
			if (fd == -2)
				check(K_PERF, "read id", -1, err, ALLOW(ENOENT, ENODEV));
			else
				check(K_PERF, "perf_event_open", fd, err,
				      ALLOW(0, EINVAL, ENOENT, ENODEV));
			if (fd >= 0)
				fds[n++] = fd;
		} else if (n) {
			i = below(&r, n);
			check(K_PERF, "close perf", close(fds[i]), errno, ALLOW(0));
			fds[i] = fds[--n];
		}
		nap(&r, 8000);
	}
	while (n)
		close(fds[--n]);
	return NULL;
}

/*
 * "u:" creations and deletions: creating is 0, or EMFILE while
 * user_events_max is lowered; deleting 0, EBUSY or ENOENT; O_TRUNC 0 or EBUSY
 * (any busy event blocks it).
 */
static void *dynev_loop(void *arg)
{
	static const char *const del_fmt[] = { "-:%s u32 v", "!u:%s u32 v",
					       "-:user_events/%s u32 v" };
	struct st_rng r;
	char line[100];
	int ret, fd;

	(void)arg;
	rng_init(&r, 8);
	while (phase() == RUN) {
		const char *name = names[8 + below(&r, 3)];

		if (chance(&r, 3)) {
			fd = open(ST_DYN, O_WRONLY | O_TRUNC);
			check(K_DYNEV, "dynamic_events O_TRUNC", fd, errno, ALLOW(0, EBUSY));
			if (fd >= 0)
				close(fd);
		} else if (chance(&r, 55)) {
			snprintf(line, sizeof(line), "u:%s u32 v", name);
			ret = ue_write_text(ST_DYN, line, O_APPEND);
			check(K_DYNEV, "u: create", ret, -ret, ALLOW(0, EMFILE));
		} else {
			snprintf(line, sizeof(line), del_fmt[below(&r, 3)], name);
			ret = ue_write_text(ST_DYN, line, O_APPEND);
			check(K_DYNEV, "u: delete", ret, -ret, ALLOW(0, EBUSY, ENOENT));
		}
		nap(&r, 15000);
	}
	return NULL;
}

/*
 * DIAG_IOCSDEL of the names the workers register, racing their registrations:
 * a non-persistent event is always busy, so ss* and sm* give EBUSY or ENOENT;
 * sp* may also be deleted (0).
 */
static void *del_loop(void *arg)
{
	struct st_rng r;
	int fd = open_data(), ret, i;

	(void)arg;
	rng_init(&r, 9);
	while (phase() == RUN) {
		i = below(&r, NNAMES);
		ret = ue_del(fd, names[i]);
		if (names[i][1] == 'p')
			check(K_DEL, "DIAG_IOCSDEL of a persistent name", ret, errno,
			      ALLOW(0, EBUSY, ENOENT));
		else
			check(K_DEL, "DIAG_IOCSDEL of a non-persistent name", ret, errno,
			      ALLOW(EBUSY, ENOENT));
		nap(&r, 3000);
	}
	close(fd);
	return NULL;
}

/* kernel.user_events_max lowered for a moment, then restored. */
static void *sysctl_loop(void *arg)
{
	struct st_rng r;
	char v[16];
	int ret;

	(void)arg;
	rng_init(&r, 10);
	while (phase() == RUN) {
		nap(&r, 800000);
		snprintf(v, sizeof(v), "%u", below(&r, 8));
		ret = ue_write_text(ST_MAX, v, O_TRUNC);
		check(K_SYSCTL, "lower user_events_max", ret, -ret, ALLOW(0));
		nap(&r, 100000);
		ret = ue_write_text(ST_MAX, "32768", O_TRUNC);
		check(K_SYSCTL, "restore user_events_max", ret, -ret, ALLOW(0));
	}
	return NULL;
}

/*
 * Unloading while busy: this process holds user_events_data open, which
 * pins the module (its file operations' owner), so delete_module() must
 * refuse: EWOULDBLOCK (EAGAIN) for a module in use, EBUSY while another
 * unload or load is in progress.
 */
static const char *module = "user_events";

static void *rmmod_loop(void *arg)
{
	struct st_rng r;
	long ret;

	(void)arg;
	rng_init(&r, 11);
	while (phase() == RUN) {
		nap(&r, 600000);
		ret = syscall(SYS_delete_module, module, O_NONBLOCK);
		check(K_RMMOD, "delete_module while in use", ret, errno,
		      ALLOW(EWOULDBLOCK, EBUSY));
		if (!ret) {
			bad(K_RMMOD, "the module was unloaded while in use");
			fflush(stdout);
			_exit(3);
		}
	}
	return NULL;
}

/* --- quiescence ------------------------------------------------------------ */

/* The event directories: "system/name", sorted; their count. */
static int list_tps(char tps[][100], int max)
{
	static const char *const sys[] = { "user_events", "user_events_multi" };
	char path[300];
	struct dirent *d;
	int n = 0, i, j;
	DIR *dir;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/%s", sys[i]);
		dir = opendir(path);
		while (dir && (d = readdir(dir))) {
			if (d->d_type != DT_DIR || d->d_name[0] == '.' || n == max)
				continue;
			snprintf(tps[n++], 100, "%s/%.60s", sys[i], d->d_name);
		}
		if (dir)
			closedir(dir);
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(tps[j - 1], tps[j]) > 0; j--) {
			char x[100];

			memcpy(x, tps[j], 100);
			memcpy(tps[j], tps[j - 1], 100);
			memcpy(tps[j - 1], x, 100);
		}
	return n;
}

/* Wait until the module's queued work is done (deferred deletes, faults). */
static void settle(void)
{
	char st[256], prev[256] = "";
	int i;

	/* Without debugfs: a while. */
	if (ue_read_text(ST_STATE, st, sizeof(st)) < 0) {
		sleep(2);
		return;
	}
	/*
	 * The same state three times 100 ms apart, no work queued: also the
	 * RCU-deferred puts of exited workers' enablers have run.
	 */
	for (i = 0; i < 200; i++) {
		ue_read_text(ST_STATE, st, sizeof(st));
		if (!strstr(st, "queued_work 0\n") || strcmp(st, prev)) {
			snprintf(prev, sizeof(prev), "%s", st);
			i = i < 190 ? i : 190;
		} else if (i % 3 == 2) {
			break;
		}
		usleep(100000);
	}
}

static int count_lines(const char *text, const char *prefix)
{
	int n = 0;
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, prefix, strlen(prefix)))
			n++;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return n;
}

/* Why an event's status line is not as planned: what each consumer says. */
static void explain(const char *tp, const char *want, const char *status, int nth)
{
	char path[300], a[8], b[8], top[8], got[200] = "(none)";
	const char *name = strchr(tp, '/') + 1, *p = status;
	static char set[2048];

	if (nth > 3)
		return;
	while (p && *p) {
		if (!strncmp(p, name, strlen(name)) &&
		    (p[strlen(name)] == '\n' || p[strlen(name)] == ' ')) {
			snprintf(got, sizeof(got), "%.*s", (int)strcspn(p, "\n"), p);
			break;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	snprintf(path, sizeof(path), ST_INST_A "/events/%.100s/enable", tp);
	ue_read_text(path, a, sizeof(a));
	snprintf(path, sizeof(path), ST_INST_B "/events/%.100s/enable", tp);
	ue_read_text(path, b, sizeof(b));
	snprintf(path, sizeof(path), TRACEFS "/events/%.100s/enable", tp);
	ue_read_text(path, top, sizeof(top));
	printf("# %s: user_events_status says \"%s\", want \"%.*s\"; enable in instance a %.1s, b %.1s, top %.1s\n",
	       tp, got, (int)strlen(want) - 1, want, a, b, top);
	/* Which instance's files are enabled, as the core lists them. */
	ue_read_text(TRACEFS "/set_event", set, sizeof(set));
	printf("# set_event top: %s\n", set);
	ue_read_text(ST_INST_A "/set_event", set, sizeof(set));
	printf("# set_event a: %s\n", set);
	ue_read_text(ST_INST_B "/set_event", set, sizeof(set));
	printf("# set_event b: %s\n", set);
}

/*
 * user_events_status against the plan, the directories and dynamic_events:
 * one line per event, "Used by ftrace" exactly where the plan enabled it in
 * an instance, "perf" where it holds a perf event.
 */
static void check_status(char tps[][100], int n, const int *plan)
{
	static char status[16384], dyn[16384];
	char line[320], want[300];
	int i, busy = 0, active = -1, nbusy = -1, lines_bad = 0;
	const char *p;

	ue_read_text(ST_STATUS, status, sizeof(status));
	ue_read_text(ST_DYN, dyn, sizeof(dyn));
	for (i = 0; i < n; i++) {
		const char *name = strchr(tps[i], '/') + 1;

		snprintf(want, sizeof(want), "%s%s%s%s\n", name,
			 plan[i] ? " # Used by" : "", plan[i] == 1 ? " ftrace" : "",
			 plan[i] == 2 ? " perf" : "");
		snprintf(line, sizeof(line), "\n%s", want);
		busy += plan[i] != 0;
		if (strncmp(status, want, strlen(want)) && !strstr(status, line))
			explain(tps[i], want, status, lines_bad++);
	}
	UE_EQ("quiescent.status_lines_not_as_planned", lines_bad, 0);
	p = !strncmp(status, "\nActive: ", 9) ? status + 1 : strstr(status, "\n\nActive: ");
	if (p)
		sscanf(p + (*p == '\n' ? 2 : 0), "Active: %d\nBusy: %d", &active, &nbusy);
	UE_EQ("quiescent.status_active_is_directories", active, n);
	UE_EQ("quiescent.status_busy_is_planned", nbusy, busy);
	UE_EQ("quiescent.status_lines_are_active", count_lines(status, "") - 3, active);
	UE_EQ("quiescent.dynamic_events_lines_are_active", count_lines(dyn, "u:"), active);
}

/*
 * The bits rewritten (each event enabled and disabled once in instance B),
 * then the plan: every third event enabled in instance A, every third
 * through perf, the rest off; written for the survivors to check against.
 */
static void quiesce_and_plan(int *perf_fds)
{
	static char tps[ST_TPS][100];
	int plan[ST_TPS], n, i, ret, err, fails = 0;
	char path[300], text[8192] = "\n";
	FILE *plan_file;
	size_t at = 1;

	settle();
	n = list_tps(tps, ST_TPS);
	printf("UE-INFO stress quiescence: %d events left\n", n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), ST_INST_B "/events/%.100s/enable", tps[i]);
		ret = ue_write_text(path, "1", O_TRUNC) ?: ue_write_text(path, "0", O_TRUNC);
		fails += ret != 0;
	}
	UE_EQ("quiescent.resync_failed", fails, 0);
	for (i = 0, fails = 0; i < n; i++) {
		plan[i] = i % 3;
		perf_fds[i] = -1;
		if (plan[i] == 1) {
			snprintf(path, sizeof(path), ST_INST_A "/events/%.100s/enable", tps[i]);
			fails += ue_write_text(path, "1", O_TRUNC) != 0;
		} else if (plan[i] == 2) {
			perf_fds[i] = perf_open(tps[i], 0, &err);
			fails += perf_fds[i] < 0;
		}
		at += snprintf(text + at, sizeof(text) - at, "%s %d\n", tps[i], plan[i] != 0);
	}
	UE_EQ("quiescent.plan_failed", fails, 0);
	perf_fds[n] = -2;
	plan_file = fopen(ST_PLAN, "w");
	if (!plan_file || fputs(text, plan_file) < 0 || fclose(plan_file))
		ue_result("quiescent.plan_written", 0, strerror(errno));
	settle();
	check_status(tps, n, plan);
}

static void unplan(int *perf_fds)
{
	int i;

	for (i = 0; perf_fds[i] != -2; i++)
		if (perf_fds[i] >= 0)
			close(perf_fds[i]);
	ue_write_text(ST_INST_A "/events/enable", "0", O_TRUNC);
}

/*
 * After the workers: the non-persistent events go by themselves; what is left
 * must be persistent, and DIAG_IOCSDEL deletes it.
 */
static void final_cleanup(void)
{
	static char tps[ST_TPS][100];
	char status[4096];
	int fd = ue_open_data(), n = 0, i, j, left = 0;

	for (j = 0; j < 50; j++) {
		settle();
		n = list_tps(tps, ST_TPS);
		for (i = 0, left = 0; i < n; i++)
			left += strncmp(tps[i], "user_events/sp", 14) != 0;
		if (!left)
			break;
	}
	for (i = 0; i < n; i++)
		if (strncmp(tps[i], "user_events/sp", 14))
			ue_result("end.non_persistent_gone", 0, tps[i]);
	ue_result("end.non_persistent_gone", !left, "");
	/*
	 * No file of the module is open now, but an event pins it too (the
	 * module's own rule, src/event.c): with a persistent one, unloading
	 * must still be refused.
	 */
	close(fd);
	if (ue_write_text(ST_DYN, "u:sp0 u32 v", O_APPEND) || !ue_exists(EVENTS "/sp0")) {
		ue_result("end.persistent_made", 0, "u:sp0 u32 v");
	} else if (syscall(SYS_delete_module, module, O_NONBLOCK)) {
		check(K_RMMOD, "delete_module with an event left", -1, errno,
		      ALLOW(EWOULDBLOCK, EBUSY));
	} else {
		bad(K_RMMOD, "the module was unloaded while an event existed");
		fflush(stdout);
		_exit(3);
	}
	fd = ue_open_data();
	n = list_tps(tps, ST_TPS);
	for (i = 0, j = 0; i < n; i++)
		if (!strncmp(tps[i], "user_events/sp", 14) && ue_del(fd, tps[i] + 12)) {
			if (!j++)
				printf("# DIAG_IOCSDEL %s: %s\n", tps[i] + 12, strerror(errno));
		}
	UE_EQ("end.delete_persistent_failed", j, 0);
	close(fd);
	settle();
	ue_read_text(ST_STATUS, status, sizeof(status));
	UE_STREQ("end.nothing_left", status, "\nActive: 0\nBusy: 0\n");
	UE_EQ("end.no_event_directories", list_tps(tps, ST_TPS), 0);
}

/* --- the controller -------------------------------------------------------- */

static int make_instance(const char *inst)
{
	char path[300];
	int ret;

	rmdir(inst);
	ret = mkdir(inst, 0755);
	/* No cmdline recording: it patches sched_switch (35-race.sh). */
	snprintf(path, sizeof(path), "%s/options/record-cmd", inst);
	ue_write_text(path, "0", O_TRUNC);
	snprintf(path, sizeof(path), "%s/buffer_size_kb", inst);
	ue_write_text(path, "64", O_TRUNC);
	return ret;
}

/*
 * Whether every kind of call the run phase makes has been made (the bits
 * are checked at quiescence, after it).
 */
static int every_kind_ran(void)
{
	int k;

	for (k = 0; k < K_N; k++)
		if (k != K_BITS && !__atomic_load_n(&sh->calls[k], __ATOMIC_ACQUIRE))
			return 0;
	return 1;
}

static int run(int secs)
{
	static void *(*const loops[])(void *) = {
		ftrace_loop, ftrace_loop, perf_loop, dynev_loop, del_loop,
		sysctl_loop, rmmod_loop,
	};
	const void *args[] = { ST_INST_A, ST_INST_B, NULL, NULL, NULL, NULL, NULL };
	pthread_t threads[7];
	pid_t workers[ST_PROCS] = { 0 };
	int perf_fds[ST_TPS + 1], hold, i, status, ret, life;
	unsigned long long gen = 0;
	struct st_rng r;
	time_t t0 = time(NULL), end = t0 + secs, now;
	pid_t pid;

	rng_init(&r, 1);
	header_size();
	printf("UE-INFO stress: records start %u bytes in (struct trace_entry)\n", hdr);
	ue_result("setup.instances", !make_instance(ST_INST_A) && !make_instance(ST_INST_B),
		  strerror(errno));
	/* This file pins the module for the whole run. */
	hold = open_data();
	for (i = 0; i < 7; i++)
		if (pthread_create(&threads[i], NULL, loops[i], (void *)args[i]))
			bad(K_EXIT, "pthread_create failed");
	while ((now = time(NULL)) < end ||
	       (now < end + ST_GRACE_SECS && !every_kind_ran())) {
		for (i = 0; i < ST_PROCS; i++) {
			if (workers[i])
				continue;
			/*
			 * Its lifetime is drawn here, in the controller: drawn
			 * in the child it was the same for every worker of a
			 * run, so all of them could end together and leave no
			 * survivor at the stop (CI saw "bits: 0 calls" once).
			 * Slot 0's worker lives until the stop, whatever the
			 * VM's clock does.
			 */
			life = i ? 2 + (int)below(&r, 9) : 24 * 3600;
			__atomic_fetch_add(&sh->alive, ST_THREADS, __ATOMIC_RELEASE);
			fflush(stdout);
			workers[i] = fork();
			if (!workers[i])
				worker(gen, life);
			gen++;
		}
		pid = waitpid(-1, &status, WNOHANG);
		for (i = 0; pid > 0 && i < ST_PROCS; i++)
			if (workers[i] == pid) {
				workers[i] = 0;
				check(K_EXIT, "worker process", WIFEXITED(status) &&
				      !WEXITSTATUS(status) ? 0 : -1, EIO, ALLOW(0));
			}
		if (pid <= 0)
			usleep(50000);
	}
	/* Quiescence: no toggles, every survivor stopped with its pages writable. */
	__atomic_store_n(&sh->phase, STOP, __ATOMIC_RELEASE);
	for (i = 0; i < 7; i++)
		pthread_join(threads[i], NULL);
	ue_write_text(ST_MAX, "32768", O_TRUNC);
	ue_write_text(ST_INST_A "/events/enable", "0", O_TRUNC);
	ue_write_text(ST_INST_B "/events/enable", "0", O_TRUNC);
	for (i = 0; i < 3000; i++) {
		if (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) ==
		    __atomic_load_n(&sh->alive, __ATOMIC_ACQUIRE))
			break;
		usleep(10000);
	}
	UE_EQ("quiescent.workers_stopped", sh->ready, sh->alive);
	printf("UE-INFO stress %d worker processes in %d s, %d threads survive\n",
	       (int)gen, (int)(time(NULL) - t0), sh->ready);
	quiesce_and_plan(perf_fds);
	__atomic_store_n(&sh->phase, CHECK, __ATOMIC_RELEASE);
	for (i = 0; i < 3000 && sh->checked < sh->ready; i++)
		usleep(10000);
	UE_EQ("quiescent.survivors_checked", sh->checked, sh->ready);
	__atomic_store_n(&sh->phase, END, __ATOMIC_RELEASE);
	for (i = 0; i < ST_PROCS; i++)
		if (workers[i]) {
			waitpid(workers[i], &status, 0);
			check(K_EXIT, "worker process", WIFEXITED(status) &&
			      !WEXITSTATUS(status) ? 0 : -1, EIO, ALLOW(0));
		}
	unplan(perf_fds);
	close(hold);
	final_cleanup();
	/* errno read after the calls (an argument's order is unspecified). */
	ret = rmdir(ST_INST_A) || rmdir(ST_INST_B);
	ue_result("end.instance_removed", !ret, ret ? strerror(errno) : "");
	unlink(ST_PLAN);
	for (i = 0; i < K_N; i++) {
		char d[120];

		printf("UE-INFO stress %s: %lu calls, %lu succeeded, %lu unexpected\n",
		       kinds[i], sh->calls[i], sh->ok[i], sh->bad[i]);
		if (sh->bad[i])
			continue;
		snprintf(d, sizeof(d), "%lu calls", sh->calls[i]);
		ue_result(kinds[i], sh->calls[i] > 0, d);
	}
	return ue_failures || sh->bad[0] ? 1 : 0;
}

int main(int argc, char **argv)
{
	int secs, i, bads = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* (the name its results carry; exec'd children inherit it) */
	ue_suite = getenv("UE_STRESS_SUITE") ? getenv("UE_STRESS_SUITE") : "stress";
	if (argc == 3 && !strcmp(argv[1], "--exec-child"))
		return exec_child_main(atoi(argv[2]));
	if (argc < 3) {
		fprintf(stderr, "usage: stress_test SEED SECS [MODULE]\n");
		return 2;
	}
	seed = strtoull(argv[1], NULL, 0);
	secs = atoi(argv[2]);
	if (argc > 3)
		module = argv[3];
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	printf("UE-INFO stress seed %llu, %d s (stress_test %llu %d repeats the choices)\n",
	       seed, secs, seed, secs);
	run(secs);
	for (i = 0; i < K_N; i++)
		bads += sh->bad[i] != 0;
	return ue_failures || bads ? 1 : 0;
}
