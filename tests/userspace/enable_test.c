// SPDX-License-Identifier: GPL-2.0
/*
 * Enable bits and DIAG_IOCSUNREG: the bit follows ftrace, a second instance
 * and perf; only that bit of the word changes; 4- and 8-byte words and the
 * 32-on-64 rule; DIAG_IOCSREG's EADDRINUSE and its failed enable write;
 * and process lifetimes: fork (with COW), CLONE_VM, exec and exit; pages
 * dropped with MADV_DONTNEED; faults that wait on user space (userfaultfd)
 * hold up no other process.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "ue_abi.h"

#define INSTANCE TRACEFS "/instances/ue_enable_test"

static const char *self;

static int reg_word(int fd, const char *cmd, void *addr, int size, int bit)
{
	struct user_reg reg = {
		.size = sizeof(reg), .enable_bit = bit, .enable_size = size,
		.enable_addr = (__u64)(uintptr_t)addr,
		.name_args = (__u64)(uintptr_t)cmd,
	};

	return ioctl(fd, DIAG_IOCSREG, &reg);
}

static int unreg(int fd, void *addr, int bit)
{
	struct user_unreg u = {
		.size = sizeof(u), .disable_bit = bit,
		.disable_addr = (__u64)(uintptr_t)addr,
	};

	return ioctl(fd, DIAG_IOCSUNREG, &u);
}


static void follows_consumers(void)
{
	static __u32 word = 0xaaaaaaaa;
	int fd = ue_open_data(), pfd;
	char status[256];

	/* Bits 1 and 3 start set: registration clears them, and only them. */
	UE_EQ("state.reg", reg_word(fd, "en_state u32 a", &word, 4, 1), 0);
	UE_EQ("state.reg_clears_bit_only", word, 0xaaaaaaa8);
	UE_EQ("state.reg_bit3", reg_word(fd, "en_state u32 a", &word, 4, 3), 0);
	UE_EQ("state.reg_bit3_cleared", word, 0xaaaaaaa0);
	ue_enable("en_state", 1);
	UE_EQ("state.ftrace_sets", word, 0xaaaaaaaa);
	ue_enable("en_state", 0);
	UE_EQ("state.ftrace_clears", word, 0xaaaaaaa0);

	/* Registering while enabled sets the bit at once. */
	ue_enable("en_state", 1);
	UE_EQ("state.reg_while_enabled", reg_word(fd, "en_state u32 a", &word, 4, 4), 0);
	UE_EQ("state.reg_while_enabled_set", word, 0xaaaaaaba);
	ue_enable("en_state", 0);
	UE_EQ("state.all_cleared", word, 0xaaaaaaa0);

	mkdir(INSTANCE, 0755);
	ue_write_text(INSTANCE "/events/user_events/en_state/enable", "1", O_TRUNC);
	UE_EQ("instance.sets", word, 0xaaaaaaba);
	ue_write_text(INSTANCE "/events/user_events/en_state/enable", "0", O_TRUNC);
	UE_EQ("instance.clears", word, 0xaaaaaaa0);
	rmdir(INSTANCE);

	pfd = ue_perf_open("en_state");
	UE_EQ("perf.open", pfd >= 0, 1);
	UE_EQ("perf.sets", word, 0xaaaaaaba);
	ue_read_text(TRACEFS "/user_events_status", status, sizeof(status));
	UE_STREQ("perf.status", status, "en_state # Used by perf\n\nActive: 1\nBusy: 1\n");
	ue_enable("en_state", 1);
	ue_read_text(TRACEFS "/user_events_status", status, sizeof(status));
	UE_STREQ("perf.status_with_ftrace", status,
		 "en_state # Used by ftrace perf\n\nActive: 1\nBusy: 1\n");
	ue_enable("en_state", 0);
	UE_EQ("perf.still_set_without_ftrace", word, 0xaaaaaaba);
	close(pfd);
	UE_EQ("perf.close_clears", word, 0xaaaaaaa0);

	/* EADDRINUSE: the same address and bit again. */
	UE_ERRNO("row10.same_addr_bit_eaddrinuse",
		 reg_word(fd, "en_state u32 a", &word, 4, 1), EADDRINUSE);
	UE_ERRNO("row10.other_event_same_bit_eaddrinuse",
		 reg_word(fd, "en_other", &word, 4, 3), EADDRINUSE);
	UE_EQ("row10.no_event_created", ue_exists(EVENTS "/en_other"), 0);
	close(fd);
}

static void word_sizes(void)
{
	static __u64 w8[2] __attribute__((aligned(8)));
	int fd = ue_open_data();
	__u32 *w4 = (__u32 *)w8;

	w8[0] = 0;
	w8[1] = 0;
	UE_EQ("size8.bit0", reg_word(fd, "en_size", &w8[0], 8, 0), 0);
	UE_EQ("size8.bit63", reg_word(fd, "en_size", &w8[0], 8, 63), 0);
	UE_EQ("size8.bit32", reg_word(fd, "en_size", &w8[0], 8, 32), 0);
	/* A 4-byte word at 4 mod 8 is the upper half of its long. */
	UE_EQ("size4.upper_half_bit31", reg_word(fd, "en_size", &w4[3], 4, 31), 0);
	UE_EQ("size4.lower_half_bit1", reg_word(fd, "en_size", &w4[2], 4, 1), 0);
	ue_enable("en_size", 1);
	UE_EQ("size8.set", w8[0], (1ULL << 63) | (1ULL << 32) | 1);
	UE_EQ("size4.upper_set", w4[3], 0x80000000u);
	UE_EQ("size4.lower_set", w4[2], 2);
	ue_enable("en_size", 0);
	UE_EQ("size8.cleared", w8[0], 0);
	UE_EQ("size4.cleared", w8[1], 0);
	close(fd);
}

static void unreg_rows(void)
{
	static __u32 word;
	unsigned char big[32] = { 0 };
	struct user_unreg u = { .size = sizeof(u) };
	int fd = ue_open_data();

	UE_ERRNO("unreg.size_fault_efault", ioctl(fd, DIAG_IOCSUNREG, (void *)8), EFAULT);
	u.size = 4097;
	UE_ERRNO("unreg.size_gt_page_e2big", ioctl(fd, DIAG_IOCSUNREG, &u), E2BIG);
	u.size = 15;
	UE_ERRNO("unreg.size_lt_16_einval", ioctl(fd, DIAG_IOCSUNREG, &u), EINVAL);
	u.size = 16;
	u.__reserved = 1;
	UE_ERRNO("unreg.reserved_einval", ioctl(fd, DIAG_IOCSUNREG, &u), EINVAL);
	u.__reserved = 0;
	u.__reserved2 = 1;
	UE_ERRNO("unreg.reserved2_einval", ioctl(fd, DIAG_IOCSUNREG, &u), EINVAL);
	((struct user_unreg *)big)->size = sizeof(big);
	big[20] = 1;
	UE_ERRNO("unreg.nonzero_tail_e2big", ioctl(fd, DIAG_IOCSUNREG, big), E2BIG);

	UE_EQ("unreg.reg", reg_word(fd, "en_unreg", &word, 4, 7), 0);
	UE_ERRNO("unreg.other_bit_enoent", unreg(fd, &word, 6), ENOENT);
	UE_ERRNO("unreg.other_addr_enoent", unreg(fd, &word + 1, 7), ENOENT);
	ue_enable("en_unreg", 1);
	UE_EQ("unreg.enabled", word, 0x80);
	/* The bit is cleared even though the event is still enabled. */
	UE_EQ("unreg.ok", unreg(fd, &word, 7), 0);
	UE_EQ("unreg.force_cleared", word, 0);
	ue_enable("en_unreg", 0);
	ue_enable("en_unreg", 1);
	UE_EQ("unreg.no_longer_updated", word, 0);
	ue_enable("en_unreg", 0);
	UE_ERRNO("unreg.twice_enoent", unreg(fd, &word, 7), ENOENT);
	close(fd);
}

/*
 * DIAG_IOCSUNREG force-clears the bit, faulting the page in if needed. On a
 * page a fork() left read-only (copy-on-write), the clear faults it in and
 * succeeds, and the word's other bits stay; on a word the process made
 * read-only, the clear's -EFAULT is the answer and the enabler is gone.
 */
static void unreg_pages(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	__u32 *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t child;

	*p = 0x100;
	UE_EQ("unreg_cow.reg", reg_word(fd, "en_pages u32 a", p, 4, 5), 0);
	ue_enable("en_pages", 1);
	UE_EQ("unreg_cow.set", ue_wait_bits(p, 0x120, 0x120), 1);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	UE_EQ("unreg_cow.fork", child > 0, 1);
	UE_EQ("unreg_cow.ok", unreg(fd, p, 5), 0);
	UE_EQ("unreg_cow.cleared", *p, 0x100);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	ue_enable("en_pages", 0);

	UE_EQ("unreg_readonly.reg", reg_word(fd, "en_pages u32 a", p, 4, 5), 0);
	mprotect(p, page, PROT_READ);
	UE_ERRNO("unreg_readonly.efault", unreg(fd, p, 5), EFAULT);
	UE_ERRNO("unreg_readonly.gone", unreg(fd, p, 5), ENOENT);
	munmap(p, page);
}

static void bad_pages(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = ue_open_data();
	__u32 *p;

	/* A read-only word cannot be written: the registration fails. */
	p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	UE_ERRNO("row21.readonly_efault", reg_word(fd, "en_pages u32 a", p, 4, 0), EFAULT);
	munmap(p, page);
	/* ...and the file still holds the event it registered. */
	UE_EQ("row21.event_kept", ue_exists(EVENTS "/en_pages"), 1);

	/* A fresh page and a dropped one are faulted in. */
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	UE_EQ("fresh_page.reg", reg_word(fd, "en_pages u32 a", p, 4, 3), 0);
	madvise(p, page, MADV_DONTNEED);
	ue_enable("en_pages", 1);
	UE_EQ("dropped_page.set", ue_wait_bits(p, 8, 8), 1);
	ue_enable("en_pages", 0);
	UE_EQ("dropped_page.cleared", ue_wait_bits(p, 8, 0), 1);
	/* An unmapped word is skipped, without harm. */
	munmap(p, page);
	ue_enable("en_pages", 1);
	ue_enable("en_pages", 0);
	/* Its unregistration is the clear's EFAULT, and removes it. */
	UE_ERRNO("unmapped.unreg_efault", unreg(fd, p, 3), EFAULT);
	UE_ERRNO("unmapped.unreg_gone", unreg(fd, p, 3), ENOENT);
	unreg_pages(fd);
	close(fd);
}

static volatile __u32 shared_word;
static int thread_fd;

static void *thread_reg(void *arg)
{
	return (void *)(long)reg_word(thread_fd, "en_thr u32 a", arg, 4, 5);
}

static int clone_child(void *arg __attribute__((unused)))
{
	return ue_wait_bits(&shared_word, 1, 1) ? 0 : 1;
}

static void lifetimes(void)
{
	static __u32 word;
	int fd = ue_open_data(), status, pipefd[2];
	static char stack[65536];
	pid_t pid;

	UE_EQ("fork.reg", reg_word(fd, "en_life u32 a", &word, 4, 0), 0);
	pid = fork();
	if (!pid) {
		/* COW: the child writes its copy, then the parent enables. */
		word = 0;
		_exit(ue_wait_bits(&word, 1, 1) ? 0 : 1);
	}
	usleep(100000);
	ue_enable("en_life", 1);
	waitpid(pid, &status, 0);
	UE_EQ("fork.child_sees_enable", WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	/* After fork the parent's page is copy-on-write: written async. */
	UE_EQ("fork.parent_set", ue_wait_bits(&word, 1, 1), 1);

	/* A child unregisters its own copy; the parent's bit is untouched. */
	pid = fork();
	if (!pid)
		_exit(unreg(fd, &word, 0) == 0 && word == 0 ? 0 : 1);
	waitpid(pid, &status, 0);
	UE_EQ("fork.child_unreg_ok", WEXITSTATUS(status), 0);
	UE_EQ("fork.parent_still_set", word, 1);
	ue_enable("en_life", 0);
	UE_EQ("fork.parent_cleared", ue_wait_bits(&word, 1, 0), 1);

	/* clone(CLONE_VM) shares the address space and its enablers. */
	UE_EQ("clone.reg", reg_word(fd, "en_life u32 a", (void *)&shared_word, 4, 0), 0);
	pid = clone(clone_child, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
	usleep(100000);
	ue_enable("en_life", 1);
	waitpid(pid, &status, 0);
	UE_EQ("clone.child_sees_enable", WEXITSTATUS(status), 0);
	ue_enable("en_life", 0);
	UE_EQ("clone.cleared", shared_word, 0);
	unreg(fd, (void *)&shared_word, 0);

	/*
	 * Threads share the address space, so they share its enablers: one
	 * that a thread registered is the process's (our per-mm tracking; a
	 * documented difference from upstream's per-task lineage).
	 */
	thread_fd = fd;
	shared_word = 0;
	{
		pthread_t t;
		void *ret = (void *)-1L;

		pthread_create(&t, NULL, thread_reg, (void *)&shared_word);
		pthread_join(t, &ret);
		UE_EQ("thread.reg", (long)ret, 0);
	}
	ue_enable("en_thr", 1);
	UE_EQ("thread.set", shared_word, 0x20);
	UE_ERRNO("thread.same_bit_from_main_eaddrinuse",
		 reg_word(fd, "en_thr u32 a", (void *)&shared_word, 4, 5), EADDRINUSE);
	UE_EQ("thread.unreg_from_main", unreg(fd, (void *)&shared_word, 5), 0);
	UE_EQ("thread.cleared", shared_word, 0);
	ue_enable("en_thr", 0);

	/*
	 * vfork then exec: the child leaves the shared address space and
	 * has no enablers; the parent keeps its own.
	 */
	pid = vfork();
	if (!pid) {
		execl(self, self, "exec-child", NULL);
		_exit(3);
	}
	waitpid(pid, &status, 0);
	UE_EQ("vfork.exec_child_has_none", WEXITSTATUS(status), 0);
	ue_enable("en_life", 1);
	UE_EQ("vfork.parent_kept", ue_wait_bits(&word, 1, 1), 1);
	ue_enable("en_life", 0);

	/* exec drops the child's copy: it has nothing to unregister. */
	pid = fork();
	if (!pid) {
		execl(self, self, "exec-child", NULL);
		_exit(3);
	}
	waitpid(pid, &status, 0);
	UE_EQ("exec.child_has_no_enablers", WEXITSTATUS(status), 0);

	/*
	 * A live child's copy keeps the event; its exit releases it before
	 * the next delete is judged.
	 */
	if (pipe(pipefd))
		return;
	pid = fork();
	if (!pid) {
		char c;

		close(pipefd[1]);
		_exit(read(pipefd[0], &c, 1) < 0);
	}
	close(pipefd[0]);
	usleep(100000);
	unreg(fd, &word, 0);
	close(fd);
	fd = ue_open_data();
	UE_ERRNO("exit.child_copy_keeps_event", ue_del(fd, "en_life"), EBUSY);
	close(pipefd[1]);
	waitpid(pid, &status, 0);
	UE_ERRNO("exit.released_before_delete", ue_del(fd, "en_life"), ENOENT);
	UE_EQ("exit.dir_gone", ue_exists(EVENTS "/en_life"), 0);
	close(fd);
}

/* Wakes every millisecond until *stop, to preempt what runs on its CPU. */
static void *preempter(void *stop)
{
	struct timespec ts = { 0, 1000 * 1000 };

	while (!__atomic_load_n((int *)stop, __ATOMIC_ACQUIRE))
		nanosleep(&ts, NULL);
	return NULL;
}

/*
 * Exits preempted while their address space is torn down: each child
 * registers an event with an enable word and exits, and the event must go
 * by itself, with nothing after (no registration, deletion or status read)
 * that would look at the address spaces again. A kernel without the
 * exit_mmap tracepoint (5.10) reports the death at sched_process_exit, where
 * a task switched out inside exit_mmap() has borrowed another task's
 * active_mm (context_switch()); a SCHED_FIFO thread on the children's CPU
 * makes that happen (compat/mm_gone.h). Eight children of 8 MB and a
 * wake-up a millisecond are enough for that on 5.10 and 5.10-rt, and
 * cheap on a debug kernel, where every page fault and wake-up is dear.
 */
#define PX_CHILDREN	8
#define PX_BYTES	(8 << 20)

static void preempted_exits(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i, j, ret, status, stop = 0, left = 0, unregistered = 0;
	char name[32], path[64];
	pthread_attr_t attr;
	static __u32 word;
	cpu_set_t cpu0;
	pthread_t t;
	pid_t pid;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	pthread_attr_setaffinity_np(&attr, sizeof(cpu0), &cpu0);
	ret = pthread_create(&t, &attr, preempter, &stop);
	UE_EQ("exit_preempted.fifo_thread", ret, 0);
	if (ret)
		return;
	for (i = 0; i < PX_CHILDREN; i++) {
		pid = fork();
		if (!pid) {
			char *mem = mmap(NULL, PX_BYTES, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (mem == MAP_FAILED ||
			    sched_setaffinity(0, sizeof(cpu0), &cpu0))
				_exit(2);
			memset(mem, 1, PX_BYTES);
			snprintf(name, sizeof(name), "en_px%d u32 a", i);
			_exit(reg_word(ue_open_data(), name, &word, 4, 0) ? 1 : 0);
		}
		waitpid(pid, &status, 0);
		unregistered += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	UE_EQ("exit_preempted.children_registered", unregistered, 0);
	/* Up to 2 s: the module's worker retires them. */
	for (j = 0; j < 200; j++) {
		for (i = 0, left = 0; i < PX_CHILDREN; i++) {
			snprintf(path, sizeof(path), EVENTS "/en_px%d", i);
			left += ue_exists(path);
		}
		if (!left)
			break;
		nanosleep(&ts, NULL);
	}
	UE_EQ("exit_preempted.events_gone", left, 0);
	ret = ue_open_data();
	for (i = 0; i < PX_CHILDREN; i++) {
		snprintf(name, sizeof(name), "en_px%d", i);
		ue_del(ret, name);
	}
	close(ret);
}

static void on_signal(int sig __attribute__((unused)))
{
}

/*
 * A pending signal: a forked child that a signal reaches before it first runs
 * (its enablers are attached then, right where signals are taken) must still
 * be tracked, its enable word following the event; tracking that took locks
 * interruptibly would give up with EINTR there and leave the word frozen. The
 * parent runs SCHED_FIFO (the children do not), so that on one CPU each child
 * first runs with the signal pending.
 */
static void signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sched_param sp = { .sched_priority = 1 };
	static __u32 word;
	int fd, i, status, lost = 0, fifo;
	pid_t pid;

	sigaction(SIGUSR1, &sa, NULL);
	fd = ue_open_data();
	UE_EQ("signal.parent_reg", reg_word(fd, "en_sig u32 a", &word, 4, 0), 0);
	fifo = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
	UE_EQ("signal.parent_fifo", fifo, 0);
	for (i = 0; i < 5; i++) {
		pid = fork();
		if (!pid)
			_exit(ue_wait_bits(&word, 1, 1) ? 0 : 1);
		kill(pid, SIGUSR1);
		usleep(50000);
		ue_enable("en_sig", 1);
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			lost++;
		ue_enable("en_sig", 0);
	}
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	UE_EQ("signal.signalled_children_tracked", lost, 0);
	unreg(fd, &word, 0);
	close(fd);
}

/* --- faults that wait on user space -------------------------------------- */

/* A userfaultfd reporting missing pages of @page; nobody reads it. */
static int uffd_on(void *page, long size)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register r = {
		.range = { (uintptr_t)page, size },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &r)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Answer the fault: a page of zeros, its waiters woken. */
static int uffd_fill(int fd, void *page, long size)
{
	static char zeros[65536];
	struct uffdio_copy c = {
		.dst = (uintptr_t)page, .src = (uintptr_t)zeros, .len = size,
	};

	return ioctl(fd, UFFDIO_COPY, &c);
}

/* Another process reads user_events_status and registers an event. */
static int others_proceed(pid_t *pid)
{
	return ue_child_within(ue_others_work, 5, pid);
}

struct stuck_call {
	pthread_t	thread;
	int		fd;
	void		*word;
	int		unreg;		/* DIAG_IOCSUNREG, else DIAG_IOCSREG */
	int		ret;
	int		err;
};

static void *stuck_call_fn(void *arg)
{
	struct stuck_call *c = arg;

	c->ret = c->unreg ? unreg(c->fd, c->word, 0) :
		reg_word(c->fd, "en_stuck_reg u32 a", c->word, 4, 0);
	c->err = errno;
	return NULL;
}

/*
 * A thread's DIAG_IOCSREG or DIAG_IOCSUNREG waits on a fault of its enable
 * word that nobody answers: that thread waits (as upstream), nobody else.
 */
static void stuck_ioctl(const char *name, int do_unreg)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stuck_call c = { .fd = ue_open_data(), .unreg = do_unreg };
	char n[128];
	pid_t other;
	int uffd, r;

	c.word = mmap(NULL, page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (do_unreg) {
		*(volatile __u32 *)c.word = 0;
		reg_word(c.fd, "en_stuck_reg u32 a", c.word, 4, 0);
		madvise(c.word, page, MADV_DONTNEED);
	}
	uffd = uffd_on(c.word, page);
	snprintf(n, sizeof(n), "%s.uffd", name);
	UE_EQ(n, uffd >= 0, 1);
	if (uffd < 0)
		return;
	pthread_create(&c.thread, NULL, stuck_call_fn, &c);
	usleep(300000);
	r = others_proceed(&other);
	snprintf(n, sizeof(n), "%s.others_not_blocked", name);
	UE_EQ(n, r, 1);
	snprintf(n, sizeof(n), "%s.fill", name);
	UE_EQ(n, uffd_fill(uffd, c.word, page), 0);
	pthread_join(c.thread, NULL);
	snprintf(n, sizeof(n), "%s.call_completes", name);
	UE_EQ(n, c.ret, 0);
	if (other)
		waitpid(other, NULL, 0);
	if (!do_unreg)
		unreg(c.fd, c.word, 0);
	close(uffd);
	close(c.fd);
	munmap(c.word, page);
}

/*
 * The page of an enable word is dropped and put under a userfaultfd, then
 * the event is enabled: the kernel's fault-in of the word waits, and must
 * hold up nobody; once answered, the bit is set.
 */
static void stuck_fault_in(void)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile __u32 *w;
	int fd = ue_open_data(), uffd;
	pid_t other;

	w = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	*w = 0;
	UE_EQ("stuck_fault.reg", reg_word(fd, "en_stuck u32 a", (void *)w, 4, 0), 0);
	madvise((void *)w, page, MADV_DONTNEED);
	uffd = uffd_on((void *)w, page);
	UE_EQ("stuck_fault.uffd", uffd >= 0, 1);
	if (uffd < 0)
		return;
	ue_enable("en_stuck", 1);
	usleep(300000);
	UE_EQ("stuck_fault.others_not_blocked", others_proceed(&other), 1);
	UE_EQ("stuck_fault.fill", uffd_fill(uffd, (void *)w, page), 0);
	UE_EQ("stuck_fault.bit_set_once_answered", ue_wait_bits(w, 1, 1), 1);
	if (other)
		waitpid(other, NULL, 0);
	ue_enable("en_stuck", 0);
	unreg(fd, (void *)w, 0);
	close(uffd);
	close(fd);
	munmap((void *)w, page);
}

static void stuck_faults(void)
{
	stuck_fault_in();
	stuck_ioctl("stuck_reg", 0);
	stuck_ioctl("stuck_unreg", 1);
}

/* A number of /sys/kernel/debug/user_events_dkms/state, or -1. */
static long state_value(const char *key)
{
	char buf[512], *p;
	size_t len = strlen(key);

	if (ue_read_text("/sys/kernel/debug/user_events_dkms/state", buf,
			 sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ' ')
			return strtol(p + len + 1, NULL, 10);
	return -1;
}

/*
 * A registration that fails at its enable write leaves no tracked address
 * space behind (README: a failed registration leaves nothing). Run first, in
 * a child of a process that has no enabler, so that fork gives the child no
 * tracking of its own.
 */
static void failed_reg_untracked(void)
{
	long page = sysconf(_SC_PAGESIZE), v[4] = { -3, -3, -3, -3 };
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	static __u32 word;
	int p[2], i;
	pid_t pid;

	if (pipe(p)) {
		ue_result("track.pipe", 0, strerror(errno));
		return;
	}
	pid = fork();
	if (!pid) {
		int fd = ue_open_data();
		void *ro = mmap(NULL, page, PROT_READ,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		v[0] = state_value("address_spaces");
		v[1] = reg_word(fd, "en_track u32 a", ro, 4, 0) == -1 ?
			errno : 0;
		v[2] = state_value("address_spaces");
		v[3] = reg_word(fd, "en_track u32 a", &word, 4, 0) == 0 ?
			state_value("address_spaces") : -2;
		_exit(write(p[1], v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], v, sizeof(v)) != sizeof(v))
		v[0] = -4;
	close(p[0]);
	waitpid(pid, NULL, 0);
	UE_EQ("track.state_file", v[0] >= 0, 1);
	UE_EQ("track.ro_word_efault", v[1], EFAULT);
	UE_EQ("track.failed_reg_leaves_none", v[2], v[0]);
	UE_EQ("track.reg_tracks", v[3], v[0] + 1);
	/* The child's exit ends its tracking (up to a second: a work item). */
	for (i = 0; i < 100 && state_value("address_spaces") != v[0]; i++)
		nanosleep(&ts, NULL);
	UE_EQ("track.exit_untracks", state_value("address_spaces"), v[0]);
}

int main(int argc, char **argv)
{
	static __u32 word;

	self = argv[0];
	if (argc == 2 && !strcmp(argv[1], "exec-child")) {
		int fd = ue_open_data();

		return unreg(fd, &word, 0) == -1 && errno == ENOENT ? 0 : 1;
	}
	ue_suite = "enable";
	failed_reg_untracked();
	follows_consumers();
	word_sizes();
	unreg_rows();
	bad_pages();
	lifetimes();
	preempted_exits();
	signals();
	stuck_faults();
	return ue_failures ? 1 : 0;
}
