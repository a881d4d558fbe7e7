// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures on every entry point (suite faults), on the debug
 * kernels (FAILSLAB, FAIL_PAGE_ALLOC, the task's fail-nth): each call runs
 * with its 1st, 2nd, 3rd, ... allocation failed, until a run in which no
 * allocation was failed (the call's last allocation is behind it). Every
 * faulted call must succeed or return an errno upstream gives it (ENOMEM; the
 * core's error; ENODEV where no trace type id could be allocated); afterwards
 * nothing may be half made (what user_events_status, the events directories
 * and the module's debugfs state say agree with the call's result), the same
 * call made again without a fault succeeds, and once the child that made it
 * has exited nothing is left. The rig's splat scan and the final kmemleak
 * scan (99-kmemleak.sh) judge the rest.
 *
 * Each attempt runs in a child of its own, so that an address space that a
 * failed registration tracked would show (upstream keeps it; this module
 * forgets it). fail-nth counts the allocations of the calling thread only:
 * work the module defers to its queues is not failed.
 *
 *   fault_test MODULE.ko [OP]   load MODULE.ko (itself swept), sweep every
 *                               entry point, unload it; OP: only that one
 *                               ("load", "reg", ...), "all" (the default),
 *                               or "calls": all but load
 */
#define _GNU_SOURCE
#include <glob.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ue_abi.h"

#define STATUS		TRACEFS "/user_events_status"
#define DYN		TRACEFS "/dynamic_events"
#define MAXFILE		"/proc/sys/kernel/user_events_max"
#define STATE		"/sys/kernel/debug/user_events_dkms/state"
#define MULTI		TRACEFS "/events/user_events_multi"
#define EV		"flt_ev"
#define EV_CMD		EV " u32 a"
/* A "-:" line names the fields too. */
#define DYN_DEL		"-:" EV_CMD
/* Beyond any call's allocations: a sweep that gets here has failed. */
#define MAX_NTH		2000
/*
 * Nor any sweep's time: a cap against a sweep that never ends, not a
 * budget. The fork sweep needs some 120 calls, which took over 150 s on the
 * debug kernel beside two other VMs; the suite is cut off at 900 s
 * (60-faults.sh).
 */
#define SWEEP_SECS	400

/* What one attempt (a child) reports to the sweep. */
struct res {
	int	injected;	/* an allocation was failed */
	int	ret;		/* the call's result: 0 or -errno */
	int	info;		/* op-specific, counted (fork: child tracked) */
	char	why[400];	/* first inconsistency, empty if none */
};

static struct res *res;		/* shared with the children */
static __u32 *word;		/* enable word, in a page of its own */
/* This thread's /proc/thread-self/fail-nth (a task writes only its own). */
static int nth_fd = -1;
static pid_t nth_pid;

/* Fail the @n-th allocation of this thread from now on. */
static void arm(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (nth_pid != getpid()) {
		close(nth_fd);
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
		nth_pid = getpid();
	}
	if (pwrite(nth_fd, buf, len, 0) != len)
		snprintf(res->why, sizeof(res->why), "fail-nth: %s",
			 strerror(errno));
}

/* Stop failing; whether an allocation was failed since arm(). */
static int disarm(void)
{
	char buf[16] = "";
	int left;

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
		return 0;
	left = atoi(buf);
	if (pwrite(nth_fd, "0", 1, 0) != 1)
		return 0;
	return left == 0;
}

static void why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void why(const char *fmt, ...)
{
	va_list ap;

	if (res->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
}

static char text[8192];

/* The module's counts (debugfs), once deferred releases have run. */
static const char *state(void)
{
	static char st[256];
	char *p;

	/* Reading the status file lets queued releases finish first. */
	ue_read_text(STATUS, text, sizeof(text));
	ue_read_text(STATE, st, sizeof(st));
	for (p = st; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return st;
}

/* The multi-format variants of the event. */
static int multi_exists(void)
{
	glob_t g;
	int n = 0;

	if (!glob(MULTI "/" EV ".*", 0, NULL, &g)) {
		n = g.gl_pathc;
		globfree(&g);
	}
	return n;
}

/*
 * What exists must agree: the module's event count, the status file's
 * "Active:" line, and the event directories; and the number of tracked
 * address spaces.
 */
static void expect(const char *when, int events, int mms)
{
	char want[256], dir[256];
	const char *st = state();
	int dirs, active = -1;
	char *a;

	snprintf(want, sizeof(want),
		 "events %d orphans 0 address_spaces %d queued_work 0 ",
		 events, mms);
	if (strcmp(st, want))
		why("%s: state '%s', want '%s'", when, st, want);
	a = strstr(text, "Active: ");
	if (a)
		active = atoi(a + 8);
	if (active != events)
		why("%s: status says Active: %d, want %d", when, active, events);
	snprintf(dir, sizeof(dir), EVENTS "/" EV);
	dirs = ue_exists(dir) + multi_exists();
	if (dirs != events)
		why("%s: %d event directories, want %d", when, dirs, events);
}

static int reg(int fd, int bit, int flags)
{
	return ue_reg(fd, EV_CMD, word, bit, flags, NULL) ? -errno : 0;
}

/* The event's ftrace enable file, single- or multi-format. */
static int enable(int on)
{
	glob_t g;
	char path[300];
	int ret;

	if (ue_exists(EVENTS "/" EV))
		return ue_enable(EV, on);
	if (glob(MULTI "/" EV ".*", 0, NULL, &g))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/enable", g.gl_pathv[0]);
	globfree(&g);
	ret = ue_write_text(path, on ? "1" : "0", O_TRUNC);
	return ret;
}

/* The enabler works: the bit follows an ftrace enable. */
static void bit_follows(const char *when, int bit)
{
	if (enable(1))
		why("%s: enable failed", when);
	else if (!ue_wait_bits(word, 1U << bit, 1U << bit))
		why("%s: bit %d not set when enabled (word %#x)", when, bit, *word);
	if (enable(0))
		why("%s: disable failed", when);
	else if (!ue_wait_bits(word, 1U << bit, 0))
		why("%s: bit %d still set when disabled", when, bit);
}

/*
 * The ops: each runs in a child, makes its call with allocation @n
 * failed, checks what is left, and (where the call failed) makes it again
 * without a fault. res->ret is the faulted call's result.
 */

/* DIAG_IOCSREG of a new event, with @flags. */
static void reg_new(int n, int flags)
{
	int fd = ue_open_data();

	arm(n);
	res->ret = reg(fd, 0, flags);
	res->injected = disarm();
	if (res->ret) {
		/*
		 * Failed once the event was made (its enabler), the event
		 * stays, whole, held by the fd until it is closed, as
		 * upstream's; the address space is not tracked.
		 */
		expect("after the failed registration",
		       ue_exists(EVENTS "/" EV) || multi_exists(), 0);
		if (*word)
			why("bit set by a failed registration");
		if (reg(fd, 0, flags))
			why("registration again: %s", strerror(errno));
	}
	expect("registered", 1, 1);
	bit_follows("registered", 0);
	if (ue_unreg(fd, word, 0))
		why("unregister: %s", strerror(errno));
	close(fd);
	if ((flags & USER_EVENT_REG_PERSIST) && ue_del(ue_open_data(), EV))
		why("delete: %s", strerror(errno));
}

static void op_reg(int n)
{
	reg_new(n, 0);
}

static void op_reg_persist(int n)
{
	reg_new(n, USER_EVENT_REG_PERSIST);
}

static void op_reg_multi(int n)
{
	reg_new(n, USER_EVENT_REG_MULTI_FORMAT);
}

static void op_reg_both(int n)
{
	reg_new(n, USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT);
}

/* DIAG_IOCSREG of an event that exists, on another fd. */
static void op_reg_existing(int n)
{
	int fd1 = ue_open_data(), fd2 = ue_open_data();

	if (reg(fd1, 0, 0))
		why("first registration: %s", strerror(errno));
	arm(n);
	res->ret = reg(fd2, 1, 0);
	res->injected = disarm();
	if (res->ret) {
		expect("after the failed registration", 1, 1);
		if (*word & 2)
			why("bit 1 set by a failed registration");
		if (reg(fd2, 1, 0))
			why("registration again: %s", strerror(errno));
	}
	bit_follows("second registration", 1);
	close(fd1);
	close(fd2);
}

/* DIAG_IOCSUNREG. */
static void op_unreg(int n)
{
	int fd = ue_open_data();

	if (reg(fd, 0, 0))
		why("registration: %s", strerror(errno));
	arm(n);
	res->ret = ue_unreg(fd, word, 0) ? -errno : 0;
	res->injected = disarm();
	if (res->ret && ue_unreg(fd, word, 0))
		why("unregister again: %s", strerror(errno));
	/* No enabler is left: the bit no longer follows. */
	if (enable(1) || *word)
		why("enabled after unregister: word %#x", *word);
	enable(0);
	close(fd);
}

/* DIAG_IOCSDEL of a persistent event nothing holds. */
static void op_del(int n)
{
	int fd = ue_open_data();

	if (reg(fd, 0, USER_EVENT_REG_PERSIST) || ue_unreg(fd, word, 0))
		why("persistent registration: %s", strerror(errno));
	close(fd);
	fd = ue_open_data();
	arm(n);
	res->ret = ue_del(fd, EV) ? -errno : 0;
	res->injected = disarm();
	if (res->ret) {
		expect("after the failed delete", 1, 1);
		if (ue_del(fd, EV))
			why("delete again: %s", strerror(errno));
	}
	expect("deleted", 0, 1);
	close(fd);
}

/* write() of an enabled event: the write path allocates nothing. */
static void op_write(int n)
{
	struct { __u32 index; __u32 a; } rec = { 0, 42 };
	int fd = ue_open_data();

	if (ue_reg(fd, EV_CMD, word, 0, 0, &rec.index) || enable(1))
		why("setup: %s", strerror(errno));
	arm(n);
	res->ret = write(fd, &rec, sizeof(rec)) == sizeof(rec) ? 0 : -errno;
	res->injected = disarm();
	enable(0);
	close(fd);
}

/*
 * Write @line to dynamic_events, as one write() made with allocation @n
 * failed (the open before it is not): sets res->ret and res->injected.
 */
static void dyn_line_faulted(int n, const char *line)
{
	int fd = open(DYN, O_WRONLY | O_APPEND);

	arm(n);
	res->ret = write(fd, line, strlen(line)) < 0 ? -errno : 0;
	res->injected = disarm();
	close(fd);
}

/* A "u:" line in dynamic_events. */
static void op_dyn_create(int n)
{
	int ret;

	dyn_line_faulted(n, "u:" EV_CMD);
	if (res->ret) {
		expect("after the failed create", 0, 0);
		ret = ue_write_text(DYN, "u:" EV_CMD, O_APPEND);
		if (ret)
			why("create again: %s", strerror(-ret));
	}
	expect("created", 1, 0);
	ret = ue_write_text(DYN, DYN_DEL, O_APPEND);
	if (ret)
		why("delete: %s", strerror(-ret));
}

/* A "-:" line deleting a persistent event. */
static void op_dyn_delete(int n)
{
	int ret = ue_write_text(DYN, "u:" EV_CMD, O_APPEND);

	if (ret)
		why("create: %s", strerror(-ret));
	dyn_line_faulted(n, DYN_DEL);
	if (res->ret) {
		expect("after the failed delete", 1, 0);
		ret = ue_write_text(DYN, DYN_DEL, O_APPEND);
		if (ret)
			why("delete again: %s", strerror(-ret));
	}
	expect("deleted", 0, 0);
}

/* Turning the event on in ftrace, and off. */
static void ftrace_toggle(int n, int on)
{
	int fd = ue_open_data();
	char path[256];

	if (reg(fd, 0, 0) || (!on && enable(1)))
		why("setup: %s", strerror(errno));
	snprintf(path, sizeof(path), EVENTS "/" EV "/enable");
	arm(n);
	res->ret = ue_write_text(path, on ? "1" : "0", O_TRUNC);
	res->injected = disarm();
	ue_read_text(STATUS, text, sizeof(text));
	if (!!strstr(text, "Busy: 1") != (res->ret ? !on : on))
		why("status after %s gave %d: %s", on ? "enable" : "disable",
		    res->ret, text);
	if (!ue_wait_bits(word, 1, strstr(text, "Busy: 1") ? 1 : 0))
		why("bit %#x disagrees with status %s", *word, text);
	if (res->ret && ue_write_text(path, on ? "1" : "0", O_TRUNC))
		why("again: %s", strerror(errno));
	enable(0);
	close(fd);
}

static void op_ftrace_on(int n)
{
	ftrace_toggle(n, 1);
}

static void op_ftrace_off(int n)
{
	ftrace_toggle(n, 0);
}

/* A perf event on the user event. */
static void op_perf(int n)
{
	int fd = ue_open_data(), pfd;

	if (reg(fd, 0, 0))
		why("registration: %s", strerror(errno));
	arm(n);
	pfd = ue_perf_open(EV);
	res->ret = pfd < 0 ? -errno : 0;
	res->injected = disarm();
	if (pfd < 0) {
		if (*word)
			why("bit set by a failed perf_event_open");
		pfd = ue_perf_open(EV);
		if (pfd < 0)
			why("perf_event_open again: %s", strerror(errno));
	}
	if (!ue_wait_bits(word, 1, 1))
		why("bit not set with perf attached");
	close(pfd);
	if (!ue_wait_bits(word, 1, 0))
		why("bit still set after perf closed");
	close(fd);
}

/*
 * fork() of a process with an enabler: the child's copy of the bit follows
 * the event, or (an attachment that failed) the child is untracked, as
 * upstream's silently untracked child. res->info counts tracked children.
 */
static void op_fork(int n)
{
	int fd = ue_open_data(), go[2], status;
	pid_t pid;

	if (reg(fd, 0, 0) || pipe(go))
		why("setup: %s", strerror(errno));
	arm(n);
	pid = fork();
	if (!pid) {
		char x;

		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(2);
		_exit(ue_wait_bits(word, 1, 1) ? 0 : 3);
	}
	res->ret = pid < 0 ? -errno : 0;
	res->injected = disarm();
	close(go[0]);
	if (pid > 0) {
		if (enable(1))
			why("enable: %s", strerror(errno));
		if (write(go[1], "", 1) != 1)
			why("pipe: %s", strerror(errno));
		status = ue_child_exit_status(pid);
		if (status == 0)
			res->info = 1;
		else if (status != 3)
			why("child ended with %d", status);
		enable(0);
	}
	close(go[1]);
	close(fd);
}

/* Reading user_events_status. */
static void op_status(int n)
{
	arm(n);
	res->ret = ue_read_text(STATUS, text, sizeof(text));
	res->injected = disarm();
	if (res->ret >= 0)
		res->ret = strcmp(text, "\nActive: 0\nBusy: 0\n") ? -EBADMSG : 0;
}

/* Writing kernel.user_events_max. */
static void op_sysctl(int n)
{
	arm(n);
	res->ret = ue_write_text(MAXFILE, "32768", O_TRUNC);
	res->injected = disarm();
}

/*
 * Closing a data fd that holds the last reference of an event (an enabler
 * would hold one too, until its address space dies): the event goes, whatever
 * allocation failed (close() itself cannot fail).
 */
static void op_close(int n)
{
	int fd = ue_open_data();

	if (reg(fd, 0, 0) || ue_unreg(fd, word, 0))
		why("registration: %s", strerror(errno));
	arm(n);
	res->ret = close(fd) ? -errno : 0;
	res->injected = disarm();
	/* The address space stays tracked until it dies. */
	expect("closed", 0, 1);
}

struct op {
	const char	*name;
	void		(*fn)(int n);
	const int	*allowed;	/* errnos a faulted call may give */
};

static const int enomem[] = { ENOMEM, 0 };
/* DIAG_IOCSREG's own failures: no type id, the core's error, ENOMEM. */
static const int reg_errs[] = { ENOMEM, ENODEV, 0 };
static const int fork_errs[] = { ENOMEM, EAGAIN, 0 };
static const int none[] = { 0 };

static const struct op ops[] = {
	{ "reg",		op_reg,		reg_errs },
	{ "reg_persist",	op_reg_persist,	reg_errs },
	{ "reg_multi",		op_reg_multi,	reg_errs },
	{ "reg_persist_multi",	op_reg_both,	reg_errs },
	{ "reg_existing",	op_reg_existing, reg_errs },
	{ "unreg",		op_unreg,	enomem },
	{ "del",		op_del,		enomem },
	{ "write",		op_write,	none },
	{ "dyn_create",		op_dyn_create,	reg_errs },
	{ "dyn_delete",		op_dyn_delete,	enomem },
	{ "ftrace_on",		op_ftrace_on,	enomem },
	{ "ftrace_off",		op_ftrace_off,	enomem },
	{ "perf",		op_perf,	enomem },
	{ "fork",		op_fork,	fork_errs },
	{ "status",		op_status,	enomem },
	{ "sysctl",		op_sysctl,	enomem },
	{ "close",		op_close,	enomem },
};

static int allowed(const int *errs, int err)
{
	for (; *errs; errs++)
		if (*errs == err)
			return 1;
	return 0;
}

/* Leave nothing for the next attempt, whatever this one left. */
static void clean_up(void)
{
	int fd = ue_open_data();

	ue_write_text(EVENTS "/" EV "/enable", "0", O_TRUNC);
	ue_del(fd, EV);
	close(fd);
}

static void sweep(const struct op *op)
{
	char name[64], first[600] = "", info[256];
	int n, faulted = 0, failed = 0, ok_calls = 0, infos = 0, status;
	int counts[4] = { 0 }, k;
	const int *seen = op->allowed;
	time_t end = time(NULL) + SWEEP_SECS;
	pid_t pid;

	for (n = 1; n <= MAX_NTH && time(NULL) < end; n++) {
		memset(res, 0, sizeof(*res));
		memset(word, 0, sizeof(*word));
		pid = fork();
		if (!pid) {
			op->fn(n);
			_exit(0);
		}
		status = ue_child_exit_status(pid);
		if (status)
			why("attempt %d: child ended with %d", n, status);
		expect("child exited", 0, 0);
		if (res->why[0] && !first[0])
			snprintf(first, sizeof(first), "allocation %d failed: %s",
				 n, res->why);
		if (res->why[0]) {
			failed++;
			clean_up();
		}
		if (!res->injected)
			break;
		faulted++;
		infos += res->info;
		if (!res->ret) {
			ok_calls++;
		} else if (!allowed(op->allowed, -res->ret)) {
			failed++;
			if (!first[0])
				snprintf(first, sizeof(first),
					 "allocation %d failed: errno %d (%s)",
					 n, -res->ret, strerror(-res->ret));
		} else {
			for (k = 0; seen[k]; k++)
				if (seen[k] == -res->ret)
					counts[k]++;
		}
	}
	snprintf(name, sizeof(name), "%s.faulted_calls", op->name);
	ue_result(name, !failed, first);
	snprintf(name, sizeof(name), "%s.unfaulted_succeeds", op->name);
	if (n > MAX_NTH || time(NULL) >= end)
		ue_result(name, 0, "the sweep did not reach a call without a fault");
	else
		UE_EQ(name, res->ret, 0);
	snprintf(info, sizeof(info), "UE-INFO faults %s: %d allocations failed in turn: %d calls succeeded",
		 op->name, faulted, ok_calls);
	for (k = 0; seen[k]; k++)
		snprintf(info + strlen(info), sizeof(info) - strlen(info),
			 ", %d %s", counts[k], strerrorname_np(seen[k]));
	if (op->fn == op_fork)
		snprintf(info + strlen(info), sizeof(info) - strlen(info),
			 ", %d children tracked", infos);
	puts(info);
	if (op->allowed == none) {
		snprintf(name, sizeof(name), "%s.allocates_nothing", op->name);
		UE_EQ(name, faulted, 0);
	}
}

/*
 * Where the kernel has the fault injection's stack trace filter
 * (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER, tests/kernel/debug.config),
 * fail only allocations made with module code on the stack (@on), or any
 * again. fail-nth counts only the allocations the filter lets through, so
 * a load's sweep fails those of the module's init and what it calls, and
 * not the 300-odd allocations the kernel's loader makes before it (which
 * the module's code never sees: 422 loads for the whole sweep on 6.12,
 * most of its time in suite faults). Module code lies above the kernel's
 * image (_end), in the module area: x86_64's only, with the debug kernels.
 * Returns whether the filter is set.
 */
static int module_frames_only(int on)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };
	unsigned long long end = 0, a;
	char line[256], sym[128], path[96], val[24];
	size_t i;
	FILE *f;
	int set = 1;

	if (on) {
		f = fopen("/proc/kallsyms", "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%llx %*s %127s", &a, sym) == 2 &&
			    !strcmp(sym, "_end")) {
				end = a;
				break;
			}
		if (f)
			fclose(f);
		if (!end)
			return 0;
	}
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		/* (require-end stays at its default, the top of memory) */
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/require-start",
			 attrs[i]);
		snprintf(val, sizeof(val), "%llu", end);
		set &= ue_write_text(path, val, 0) == 0;
		if (!on)
			continue;
		/* (the most it takes, and the default: made sure of) */
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/stacktrace-depth",
			 attrs[i]);
		set &= ue_write_text(path, "32", 0) == 0;
	}
	return set;
}

/*
 * Loading the module (finit_module) with each allocation failed in turn: a
 * failed load leaves no file and no module behind, a successful one unloads.
 * With the stack trace filter, the allocations of the module's init and what
 * it calls; without it, every allocation of the load.
 */
static void sweep_load(const char *ko)
{
	char first[300] = "";
	int n, fd, ret, faulted = 0, failed = 0, ok_loads = 0;
	int filtered = module_frames_only(1);

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	for (n = 1; n <= MAX_NTH; n++) {
		arm(n);
		ret = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
		res->injected = disarm();
		if (!ret && syscall(SYS_delete_module, "user_events", O_NONBLOCK))
			snprintf(first, sizeof(first), "unload after load %d: %s",
				 n, strerror(errno));
		if (!res->injected)
			break;
		faulted++;
		if (!ret) {
			ok_loads++;
		} else if (ret != ENOMEM) {
			failed++;
			if (!first[0])
				snprintf(first, sizeof(first),
					 "allocation %d failed: errno %d (%s)",
					 n, ret, strerror(ret));
		}
		if (ue_exists(TRACEFS "/user_events_data") ||
		    ue_exists("/sys/module/user_events")) {
			failed++;
			if (!first[0])
				snprintf(first, sizeof(first),
					 "allocation %d failed: the module or its files remain",
					 n);
			syscall(SYS_delete_module, "user_events", O_NONBLOCK);
		}
	}
	close(fd);
	if (filtered && !module_frames_only(0))
		ue_result("load.filter_unset", 0, "the stack trace filter stayed set");
	ue_result("load.faulted_calls", !failed && !first[0], first);
	UE_EQ("load.unfaulted_succeeds", n <= MAX_NTH ? ret : -1, 0);
	printf("UE-INFO faults load: %d allocations %sfailed in turn: %d loads succeeded\n",
	       faulted, filtered ? "with module code on the stack " : "", ok_loads);
}

int main(int argc, char **argv)
{
	const char *only = argc > 2 ? argv[2] : NULL;
	int fd, ret;
	size_t i;

	ue_suite = "faults";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: fault_test MODULE.ko [OP|all|calls]\n");
		return 2;
	}
	res = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	/* Private: a forked child's copy is its own (op_fork). */
	word = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED || word == MAP_FAILED ||
	    !ue_exists("/proc/thread-self/fail-nth")) {
		printf("UE-RESULT faults fail setup %s\n", strerror(errno));
		return 1;
	}
	memset(res, 0, sizeof(*res));
	if (!only || !strcmp(only, "all") || !strcmp(only, "load"))
		sweep_load(argv[1]);
	if (only && (!strcmp(only, "all") || !strcmp(only, "calls")))
		only = NULL;

	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	UE_EQ("loaded", ret, 0);
	/*
	 * The first ftrace enable grows the ring buffer: done here, unfaulted,
	 * so that the sweeps fail the enable's own allocations.
	 */
	memset(res, 0, sizeof(*res));
	if (!fork()) {
		/* In a child: this process registers nothing itself. */
		reg(ue_open_data(), 0, 0);
		enable(1);
		enable(0);
		_exit(0);
	}
	wait(NULL);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (only && strcmp(only, ops[i].name))
			continue;
		memset(res, 0, sizeof(*res));
		sweep(&ops[i]);
	}
	clean_up();
	memset(res, 0, sizeof(*res));
	expect("at the end", 0, 0);
	ue_result("nothing_left", !res->why[0], res->why);
	UE_EQ("unloaded", syscall(SYS_delete_module, "user_events", O_NONBLOCK), 0);
	return ue_failures ? 1 : 0;
}
