// SPDX-License-Identifier: GPL-2.0
/*
 * Races between two CPUs, run by 35-race.sh against user_events_race.ko, a
 * build that waits at the place its race_site parameter names (src/race.h),
 * so that each window is hit many times a second. Each mode runs one race
 * for a while and checks what the ABI promises afterwards; a kernel that
 * corrupts memory, loops or oopses on the way fails through the rig's splat
 * scan and the suite's timeout.
 *
 *   race_test unreg-fork SECS   DIAG_IOCSUNREG beside fork()
 *   race_test del-fork SECS     UNREG, close and DIAG_IOCSDEL of a
 *                               persistent event beside fork()
 *   race_test fault-unreg-fork SECS
 *                               DIAG_IOCSUNREG of an enabler whose
 *                               fault-in is pending, beside fork() (run
 *                               with race_site 1)
 *   race_test fault-unreg-fork-ev SECS
 *                               the same, its results named apart (run
 *                               with race_site 8)
 *   race_test refault-fork SECS DIAG_IOCSREG and DIAG_IOCSUNREG of a word
 *                               that each fork() makes copy-on-write,
 *                               beside fork(): never EFAULT (run with
 *                               race_site 9)
 *   race_test fault-work-fork SECS
 *                               a state change's fault-in, done by the
 *                               fault worker, beside fork(): the bit
 *                               follows the state (run with race_site 10)
 *   race_test exit-wait N       a child's exit is in effect when wait()
 *                               returns, while its enable bits are being
 *                               written
 *   race_test ftrace-enable N   a write made as soon as the enable bit is
 *                               seen is recorded, while the core is still
 *                               enabling the ftrace file
 *   race_test exit-rmmod MOD    MOD is unloaded while tracked address
 *                               spaces die
 *   race_test attach-rmmod MOD  MOD is unloaded while a fork's attachment
 *                               drops its last event
 *   race_test init-fail KO      KO is loaded with its sysctl failing while
 *                               a thread registers
 *   race_test open-delete N     an event's enable file is opened while the
 *                               event is deleted: ENODEV, never the freed
 *                               (or reused) file (private/removed_event.h)
 *   race_test bits-shared N     the module's bit flips (N enables) are
 *                               atomic with the program's own flips of
 *                               other bits of the same word
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include "ue_abi.h"

#define NWORDS	32

static atomic_int stop;
static __u32 words[NWORDS];
static atomic_long cycles;	/* rounds of the racing thread's loop */
static long forks, bad_children, errors;
static char error[256];

static void fail_once(const char *what, int err)
{
	if (!errors++)
		snprintf(error, sizeof(error), "%s: %s", what, strerror(err));
}

/* One fork whose child runs @fn(@arg) (or nothing) and must exit 0. */
static void fork_child(int (*fn)(int), int arg)
{
	pid_t pid = fork();

	if (pid < 0) {
		fail_once("fork", errno);
		return;
	}
	if (!pid)
		_exit(fn ? fn(arg) : 0);
	if (ue_child_exit_status(pid))
		bad_children++;
	forks++;
}

/* Register @n words of @w for @cmd, then unregister them, until stopped. */
static void reg_unreg_cycles(const char *cmd, __u32 *w, int n)
{
	int fd = ue_open_data(), i;

	if (fd < 0)
		fail_once("open user_events_data", errno);
	while (fd >= 0 && !atomic_load(&stop)) {
		for (i = 0; i < n; i++)
			if (ue_reg(fd, cmd, &w[i], 0, 0, NULL))
				fail_once("DIAG_IOCSREG", errno);
		for (i = 0; i < n; i++)
			if (ue_unreg(fd, &w[i], 0))
				fail_once("DIAG_IOCSUNREG", errno);
		cycles++;
	}
	if (fd >= 0)
		close(fd);
	atomic_store(&stop, 1);
}

/*
 * unreg-fork: a thread registers NWORDS enablers and unregisters them again,
 * over and over, while the main thread forks. The fork probe walks the
 * address space's enablers under RCU and waits at each (race_site 1): an
 * enabler unregistered meanwhile must still lead the walk on to the next,
 * never into the unregistering thread's stack.
 */
static void *unreg_loop(void *arg)
{
	(void)arg;
	reg_unreg_cycles("race_unreg u32 v", words, NWORDS);
	return NULL;
}

/*
 * del-fork: a thread makes a persistent event with an enabler, unregisters,
 * closes and deletes it, over and over, while the main thread forks. The fork
 * probe waits between seeing the enabler and taking its event's reference
 * (race_site 1): a reference taken before the deletion makes the deletion
 * EBUSY; after it, the event must not be revived.
 */
static void *del_loop(void *arg)
{
	int fd;

	(void)arg;
	while (!atomic_load(&stop)) {
		fd = ue_open_data();
		if (fd < 0) {
			fail_once("open user_events_data", errno);
			break;
		}
		if (ue_reg(fd, "race_del u32 v", &words[0], 0,
			   USER_EVENT_REG_PERSIST, NULL))
			fail_once("DIAG_IOCSREG", errno);
		if (ue_unreg(fd, &words[0], 0))
			fail_once("DIAG_IOCSUNREG", errno);
		close(fd);
		fd = ue_open_data();
		if (ue_del(fd, "race_del") && errno != EBUSY)
			fail_once("DIAG_IOCSDEL", errno);
		close(fd);
		cycles++;
	}
	atomic_store(&stop, 1);
	return NULL;
}

/*
 * Attach a perf event of @pe to its event: on CPU 0 for every task, not a
 * task's own (see toggle_loop: that patches __schedule's text each time).
 * The perf fd, or -1 with the failure noted as @what's.
 */
static int perf_open_cpu0(struct perf_event_attr *pe, const char *what)
{
	int pfd = syscall(__NR_perf_event_open, pe, -1, 0, -1, 0);

	if (pfd < 0)
		fail_once(what, errno);
	return pfd;
}

/* Milliseconds on the monotonic clock. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void check_run(const char *name, long long ms)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s.no_error", name);
	ue_result(buf, !errors, error);
	snprintf(buf, sizeof(buf), "%s.children_exited_0", name);
	UE_EQ(buf, bad_children, 0);
	snprintf(buf, sizeof(buf), "%s.raced", name);
	ue_result(buf, forks > 0 && cycles > 0, "no fork or no cycle ran");
	printf("# %s: %ld forks beside %ld cycles in %lld ms\n", name, forks,
	       atomic_load(&cycles), ms);
}

/* How long a race may run past its time for its first fork and cycle. */
#define RACE_GRACE_MS	20000

/*
 * How long a race counted in rounds may take before it stops short of its
 * count: under KASAN and lockdep, beside another guest, a round can take
 * many times its usual time, and a suite cut off at its limit says nothing
 * of the races after it. Every such race runs at least one round.
 */
#define RACE_CEILING_MS	30000

/* Whether a race of @n rounds that began at @start does round @done + 1. */
static int more_rounds(int done, int n, long long start)
{
	return done < n && (!done || now_ms() - start < RACE_CEILING_MS);
}

/*
 * Fork for @secs seconds while @loop runs in a thread, and on until both
 * have done a round, for RACE_GRACE_MS more at most (then .raced fails).
 * The time is measured in milliseconds: a deadline of time(NULL) + 1 (a
 * short budget's 1 s) came at the next tick of the seconds, as soon as
 * a few milliseconds after the start, and a race whose loop had not ended
 * its first cycle by then failed .raced (6.1-cloud, refault_fork, CI of
 * 78c4153).
 */
static void fork_race(const char *name, void *(*loop)(void *), int secs)
{
	long long start = now_ms(), end = start + secs * 1000LL, now;
	pthread_t t;

	if (pthread_create(&t, NULL, loop, NULL)) {
		fail_once("pthread_create", errno);
	} else {
		while (!atomic_load(&stop)) {
			now = now_ms();
			if (now >= end + RACE_GRACE_MS ||
			    (now >= end && forks && atomic_load(&cycles)))
				break;
			fork_child(NULL, 0);
		}
		atomic_store(&stop, 1);
		pthread_join(t, NULL);
	}
	check_run(name, now_ms() - start);
}

/*
 * fault-unreg-fork: unregistering an enabler whose asynchronous fault-in is
 * queued drops its event reference and forgets the event at once (enabler.c,
 * ue_enabler_unlink()), while the fork probe, under RCU only, may be between
 * the enabler's check and its event (race_site 1) or between loading the
 * event and taking its reference (race_site 8). A probe that loaded en->ev
 * twice would dereference NULL in fork() at the first load, or at the second
 * leak the reference taken and hand a NULL event to the child. Site 1 in
 * unreg-fork never has a fault pending: the words there are always present.
 *
 * Here the enable word's page is dropped (MADV_DONTNEED) under a userfaultfd
 * that reports missing pages, so that a state change of the event (a perf
 * event opened or closed on CPU 0) cannot write the bit and queues a fault-in
 * whose fault the handler thread holds. Only once the handler has seen that
 * fault does the unregistering thread unregister; the unregister's own clear
 * of the bit faults too, and that second fault is answered with the page,
 * which ends both.
 */
static int fu_uffd = -1;
static __u32 *fu_word;
static long fu_page;
static atomic_int fu_seen;	/* faults the handler has read */
static atomic_int fu_answer;	/* answer every one read meanwhile */
static long fu_missed;		/* state changes whose fault was not seen */
static atomic_int fu_done;	/* the unregistering thread has ended */

static void *fu_handler(void *arg)
{
	static char zeros[1 << 16];	/* the largest page size */
	struct pollfd p = { .fd = fu_uffd, .events = POLLIN };
	struct uffdio_copy copy = {
		.dst = (uintptr_t)fu_word, .src = (uintptr_t)zeros,
		.len = fu_page,
	};
	struct uffdio_range wake = { (uintptr_t)fu_word, fu_page };
	struct uffd_msg msg;

	(void)arg;
	/* Until the unregistering thread is done: it may wait on an answer. */
	while (!atomic_load(&fu_done)) {
		if (poll(&p, 1, 20) <= 0 ||
		    read(fu_uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		atomic_fetch_add(&fu_seen, 1);
		if (!atomic_load(&fu_answer))
			continue;
		copy.copy = 0;
		if (ioctl(fu_uffd, UFFDIO_COPY, &copy) &&
		    ioctl(fu_uffd, UFFDIO_WAKE, &wake))
			fail_once("UFFDIO_COPY/WAKE", errno);
	}
	return NULL;
}

/* Whether the handler reads a fault beyond @seen within 2 s. */
static int fu_fault_seen(int seen)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (atomic_load(&fu_seen) > seen)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void *fu_loop(void *arg)
{
	struct perf_event_attr pe;
	int fd = ue_open_data(), pfd = -1, seen, pending, ret;

	(void)arg;
	/* The page is present: the registration writes the bit at once. */
	if (fd < 0 || ue_reg(fd, "race_fault u32 v", fu_word, 0, 0, NULL) ||
	    ue_perf_attr("race_fault", &pe)) {
		fail_once("register race_fault", errno);
		goto out;
	}
	if (ue_unreg(fd, fu_word, 0))
		fail_once("DIAG_IOCSUNREG", errno);
	while (!atomic_load(&stop)) {
		if (ue_reg(fd, "race_fault u32 v", fu_word, 0, 0, NULL)) {
			fail_once("DIAG_IOCSREG", errno);
			break;
		}
		madvise(fu_word, fu_page, MADV_DONTNEED);
		seen = atomic_load(&fu_seen);
		/* A state change: the write faults, the fault-in is held. */
		if (pfd < 0) {
			pfd = perf_open_cpu0(&pe, "perf_event_open race_fault");
			if (pfd < 0)
				break;
		} else {
			close(pfd);
			pfd = -1;
		}
		/*
		 * A fault-in queued behind one that is still held, or a
		 * worker slow under TCG, may not reach the handler within
		 * 2 s: that cycle races nothing and is not counted, but its
		 * unregistration runs all the same, and answers every fault
		 * then, which lets any held one go.
		 */
		pending = fu_fault_seen(seen);
		/* Its clear faults in turn; that fault is answered. */
		atomic_store(&fu_answer, 1);
		ret = ue_unreg(fd, fu_word, 0);
		atomic_store(&fu_answer, 0);
		if (ret) {
			fail_once("DIAG_IOCSUNREG", errno);
			break;
		}
		if (pending)
			cycles++;
		else
			fu_missed++;
	}
out:
	if (pfd >= 0)
		close(pfd);
	if (fd >= 0)
		close(fd);
	atomic_store(&stop, 1);
	return NULL;
}

static void fault_unreg_fork(const char *name, int secs)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register r = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	pthread_t handler;
	char setup[64];

	snprintf(setup, sizeof(setup), "%s.setup", name);
	fu_page = sysconf(_SC_PAGESIZE);
	fu_word = mmap(NULL, fu_page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fu_word == MAP_FAILED) {
		ue_result(setup, 0, strerror(errno));
		return;
	}
	*(volatile __u32 *)fu_word = 0;
	r.range.start = (uintptr_t)fu_word;
	r.range.len = fu_page;
	fu_uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fu_uffd < 0 || ioctl(fu_uffd, UFFDIO_API, &api) ||
	    ioctl(fu_uffd, UFFDIO_REGISTER, &r) ||
	    pthread_create(&handler, NULL, fu_handler, NULL)) {
		ue_result(setup, 0, strerror(errno));
		return;
	}
	fork_race(name, fu_loop, secs);
	printf("# %s: %ld state changes whose fault-in was not seen in 2 s (not counted)\n",
	       name, fu_missed);
	atomic_store(&fu_done, 1);
	pthread_join(handler, NULL);
	/* Closing it ends any fault still held (none should be). */
	close(fu_uffd);
	munmap(fu_word, fu_page);
}

/*
 * The try after a fault-in (race_site 9): a registration or unregistration
 * whose write of the bit finds the page read-only, because a fork() made
 * it copy-on-write, faults the page in and tries again with its mutexes
 * taken again; the module waits at 9 in between, while the main thread
 * forks. Each fork there write-protects the page again, and a call that
 * only faulted in would fail with EFAULT once ten rounds in a row had
 * (UE_FAULT_ATTEMPTS, upstream's bound too; upstream's window, met by
 * fault_unreg_fork without a site).
 * The module keeps the page pinned over the try, which makes fork() copy
 * it for the child and leave it writable: never EFAULT. The word has its
 * page to itself, which no other thread writes.
 */
static __u32 rf_page[4096 / sizeof(__u32)] __attribute__((aligned(4096)));

static void *refault_loop(void *arg)
{
	(void)arg;
	reg_unreg_cycles("race_refault u32 v", rf_page, 1);
	return NULL;
}

/*
 * The fault worker's window: a state change that finds the word
 * read-only (copy-on-write since a fork) and cannot fault it in at once
 * leaves the write to the fault worker (enabler.c), which faults the word
 * in with no lock held, then writes it under event_mutex (race_site 10
 * waits between the two). A fork() there made the page read-only again,
 * the write failed, and after UE_FAULT_ATTEMPTS such rounds the bit stayed
 * stale until the next state change. The module keeps the page pinned from
 * the fault-in to the write: never stale. The word is in a private mapping
 * of a memfd, a file: the state change faults in only anonymous memory
 * itself. A thread attaches a perf event (perf_open_cpu0()) and detaches
 * it, and waits each time for the bit to follow, while the main thread
 * forks.
 */
static volatile __u32 *fw_word;

/* Wait up to 3 s for bit 0 of *fw_word to be @set. */
static int fw_bit_follows(__u32 set)
{
	int ms;

	for (ms = 0; ms < 3000; ms++) {
		if ((*fw_word & 1) == set)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void *fw_loop(void *arg)
{
	struct perf_event_attr pe;
	int fd = ue_open_data(), pfd;

	(void)arg;
	if (fd < 0 || ue_reg(fd, "race_fwork u32 v", (__u32 *)fw_word, 0, 0,
			     NULL) || ue_perf_attr("race_fwork", &pe)) {
		fail_once("registering race_fwork", errno);
		if (fd >= 0)
			close(fd);
		atomic_store(&stop, 1);
		return NULL;
	}
	while (!atomic_load(&stop)) {
		pfd = perf_open_cpu0(&pe, "perf_event_open race_fwork");
		if (pfd < 0)
			break;
		if (!fw_bit_follows(1))
			fail_once("bit still clear 3 s after attaching",
				  ETIMEDOUT);
		close(pfd);
		if (!fw_bit_follows(0))
			fail_once("bit still set 3 s after detaching",
				  ETIMEDOUT);
		if (errors)
			break;
		cycles++;
	}
	if (ue_unreg(fd, (__u32 *)fw_word, 0))
		fail_once("DIAG_IOCSUNREG", errno);
	close(fd);
	atomic_store(&stop, 1);
	return NULL;
}

static void fault_work_fork(int secs)
{
	long page = sysconf(_SC_PAGESIZE);
	int mfd = memfd_create("race_fwork", 0);
	void *p = MAP_FAILED;

	if (mfd < 0 || ftruncate(mfd, page))
		fail_once("memfd", errno);
	else
		p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, mfd,
			 0);
	if (p == MAP_FAILED) {
		fail_once("mmap of the memfd", errno);
		check_run("fault_work_fork", 0);
		return;
	}
	fw_word = p;
	fork_race("fault_work_fork", fw_loop, secs);
	munmap(p, page);
	close(mfd);
}

/*
 * exit-wait: a thread opens and closes a perf event on race_ew1, so that the
 * module writes the enable bits of every process registered for it, and waits
 * while it holds a user of that process's address space (race_site 2).
 * Meanwhile a child registers race_ew1 and race_ew2 and exits; if its exit
 * happens during such a write, the module drops the last user. Once wait()
 * has returned, the exit is in effect: race_ew2, which only the child used,
 * can be deleted (EBUSY only while in use). A perf event of one CPU, not
 * ftrace or a task's perf event: those patch the kernel's text (the first
 * ftrace event the sched_switch static call, the first task event perf's jump
 * label in __schedule), thousands of times here, and QEMU 7.2's
 * multi-threaded TCG then sometimes runs a stale int3 (docs/testing.md).
 */
static void *toggle_loop(void *arg)
{
	struct perf_event_attr pe;
	int pfd;

	(void)arg;
	if (ue_perf_attr("race_ew1", &pe)) {
		fail_once("race_ew1/id", errno);
		return NULL;
	}
	while (!atomic_load(&stop)) {
		pfd = perf_open_cpu0(&pe, "perf_event_open race_ew1");
		if (pfd < 0)
			break;
		close(pfd);
	}
	return NULL;
}

/*
 * Registering waits for event_mutex, which the toggling thread holds while
 * it writes: exiting at once would always exit between two of its writes.
 * Lingering a varying while lets some of the exits fall inside one.
 */
static int child_registers(int round)
{
	int fd = ue_open_data();

	if (fd < 0 || ue_reg(fd, "race_ew1 u32 v", &words[0], 0, 0, NULL) ||
	    ue_reg(fd, "race_ew2 u32 v", &words[0], 1, 0, NULL))
		return 1;
	usleep(round * 397 % 4000);
	return 0;
}

static void exit_wait(int n)
{
	long busy = 0, other = 0;
	long long start = now_ms();
	pthread_t t;
	int fd, i;

	fd = ue_open_data();
	if (fd < 0 ||
	    ue_write_text(TRACEFS "/dynamic_events", "u:race_ew1 u32 v",
			  O_APPEND)) {
		ue_result("exit_wait.setup", 0, strerror(errno));
		return;
	}
	if (pthread_create(&t, NULL, toggle_loop, NULL)) {
		ue_result("exit_wait.setup", 0, "pthread_create");
		return;
	}
	for (i = 0; more_rounds(i, n, start) && !errors; i++) {
		if (ue_write_text(TRACEFS "/dynamic_events",
				  "u:race_ew2 u32 v", O_APPEND)) {
			fail_once("create race_ew2", errno);
			break;
		}
		fork_child(child_registers, i);
		if (!ue_del(fd, "race_ew2"))
			continue;
		if (errno == EBUSY)
			busy++;
		else
			other++;
		/* Let the exit finish, for the next round. */
		usleep(100 * 1000);
		ue_del(fd, "race_ew2");
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	cycles = i;
	UE_EQ("exit_wait.del_after_wait_not_ebusy", busy, 0);
	UE_EQ("exit_wait.del_after_wait_other_errors", other, 0);
	check_run("exit_wait", now_ms() - start);
	UE_EQ("exit_wait.delete_ew1", ue_del(fd, "race_ew1"), 0);
	close(fd);
}

/*
 * A thread spins on its enable bit and writes once when it sees it, while the
 * main thread enables the event for ftrace: the register callback flips the
 * bit and then waits (race_site 3), before the core marks the file enabled.
 * Upstream drops that record (user_event_ftrace() returns while the file is
 * not yet EVENT_FILE_FL_ENABLED); ours keeps it.
 */
static __u32 fe_index;
static int fe_fd;

static void *fe_writer(void *arg)
{
	__u32 rec[2] = { fe_index, (__u32)(uintptr_t)arg };

	/*
	 * The main thread stops the wait only once it has seen the bit (the
	 * bit may be written after the enable returns, from the fault
	 * worker), so a writer told to stop looks at the bit once more: a
	 * round without a write is then only one whose enable failed.
	 */
	while (!(__atomic_load_n(&words[0], __ATOMIC_ACQUIRE) & 1))
		if (atomic_load(&stop) &&
		    !(__atomic_load_n(&words[0], __ATOMIC_ACQUIRE) & 1))
			return NULL;
	if (write(fe_fd, rec, sizeof(rec)) != sizeof(rec))
		fail_once("write", errno);
	return NULL;
}

static void ftrace_enable(int n)
{
	long long start = now_ms();
	long lost = 0;
	char want[64];
	pthread_t t;
	int i;

	fe_fd = ue_open_data();
	if (fe_fd < 0 || ue_reg(fe_fd, "race_fe u32 v", &words[0], 0, 0,
				&fe_index)) {
		ue_result("ftrace_enable.setup", 0, strerror(errno));
		return;
	}
	for (i = 1; more_rounds(i - 1, n, start) && !errors; i++) {
		if (!ue_wait_bits(&words[0], 1, 0))
			fail_once("bit still set after disabling", EBUSY);
		ue_trace_clear();
		atomic_store(&stop, 0);
		if (pthread_create(&t, NULL, fe_writer, (void *)(uintptr_t)i)) {
			fail_once("pthread_create", errno);
			break;
		}
		if (ue_enable("race_fe", 1))
			fail_once("enable race_fe", errno);
		else if (!ue_wait_bits(&words[0], 1, 1))
			fail_once("bit not set after enabling", EBUSY);
		atomic_store(&stop, 1);
		pthread_join(t, NULL);
		snprintf(want, sizeof(want), "race_fe: v=0x%x (%d)\n", i, i);
		if (!ue_trace_has(want))
			lost++;
		if (ue_enable("race_fe", 0))
			fail_once("disable race_fe", errno);
	}
	printf("UE-INFO race ftrace_enable: %d rounds in %lld ms\n", i - 1, now_ms() - start);
	UE_EQ("ftrace_enable.records_lost", lost, 0);
	ue_result("ftrace_enable.no_error", !errors, error);
	/* Not persistent: closing deletes it (35-race.sh checks). */
	UE_EQ("ftrace_enable.unreg", ue_unreg(fe_fd, &words[0], 0), 0);
	close(fe_fd);
}

/*
 * The enable word is the program's as much as the module's: it may keep other
 * flags in the same word and flip them while the module flips its bit, and
 * neither may lose the other's update. The event's bit is bit 31 of a 4-byte
 * word at 4 mod 8, so that the module's atomic update covers the whole
 * 8-byte-aligned long (the 32-bit word rule of upstream's align_addr_bit()):
 * two threads flip bit 3 of that word and bit 7 of the word beside it, with
 * atomic XORs, while the main thread enables and disables the event N times.
 * Each word must then hold exactly the flips made to it. No race site: the
 * module's update is a single atomic instruction (an LSE or exclusive-pair
 * loop on arm64, a locked op on x86), so the test runs with the shipped
 * code's windows, for long enough to meet them.
 */
static __u64 bs_long __attribute__((aligned(8)));
static long bs_flips[2];

static void *bs_flipper(void *arg)
{
	long half = (long)(uintptr_t)arg;
	__u32 *word = (__u32 *)&bs_long + half;
	__u32 mask = half ? 1u << 3 : 1u << 7;

	while (!atomic_load(&stop)) {
		__atomic_fetch_xor(word, mask, __ATOMIC_RELAXED);
		bs_flips[half]++;
	}
	return NULL;
}

static void bits_shared(int n)
{
	__u32 *word = (__u32 *)&bs_long, want0, want1;
	pthread_t t[2];
	int fd, i, done, bad = 0;
	long long start;

	fd = ue_open_data();
	if (fd < 0 || ue_reg(fd, "race_bs u32 v", &word[1], 31, 0, NULL)) {
		ue_result("bits_shared.setup", 0, strerror(errno));
		return;
	}
	atomic_store(&stop, 0);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, bs_flipper, (void *)(uintptr_t)i)) {
			fail_once("pthread_create", errno);
			atomic_store(&stop, 1);
			while (i--)
				pthread_join(t[i], NULL);
			close(fd);
			return;
		}
	/*
	 * (From 7.x on each enable for ftrace waits for an SRCU grace period,
	 * which the two flipping threads slow down a lot: the ceiling ends it.)
	 */
	for (i = 0, start = now_ms(); more_rounds(i, n, start) && !errors; i++) {
		if (ue_enable("race_bs", 1))
			fail_once("enable race_bs", errno);
		bad += !(__atomic_load_n(&word[1], __ATOMIC_ACQUIRE) & (1u << 31));
		if (ue_enable("race_bs", 0))
			fail_once("disable race_bs", errno);
		bad += !!(__atomic_load_n(&word[1], __ATOMIC_ACQUIRE) & (1u << 31));
	}
	done = i;
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	want0 = bs_flips[0] & 1 ? 1u << 7 : 0;
	want1 = bs_flips[1] & 1 ? 1u << 3 : 0;
	printf("UE-INFO race bits_shared: %d enables, %ld and %ld flips by the program\n",
	       done, bs_flips[0], bs_flips[1]);
	ue_result("bits_shared.enabled_at_all", done > 0, "no enable");
	UE_EQ("bits_shared.enable_bit_followed", bad, 0);
	UE_EQ("bits_shared.lower_word_kept", word[0], want0);
	UE_EQ("bits_shared.own_word_kept", word[1], want1);
	ue_result("bits_shared.no_error", !errors, error);
	UE_EQ("bits_shared.unreg", ue_unreg(fd, &word[1], 31), 0);
	close(fd);
}

/*
 * An enable file opened while its event is deleted (site 7: the deletion
 * waits holding event_mutex, before the call is removed). The open, its
 * path walk done, reads the file's trace_event_file and then waits for
 * event_mutex; the deletion frees that file meanwhile, where the module
 * does not pin it (5.10 and 6.1, private/removed_event.h). The open must
 * fail with ENODEV (or ENOENT, a walk after the deletion), or succeed if
 * it came first; never open freed memory. The rig boots with
 * slub_debug=FP,trace_event_file, so that such a read (poisoned) or write
 * is a splat, not a silent success.
 */
static int od_fd;

static void *od_deleter(void *arg)
{
	(void)arg;
	if (ue_del(od_fd, "race_od"))
		fail_once("DIAG_IOCSDEL race_od", errno);
	return NULL;
}

static void open_delete(int n)
{
	long long start = now_ms();
	long hit = 0, late = 0, early = 0;
	pthread_t t;
	int i, fd;

	od_fd = ue_open_data();
	for (i = 0; more_rounds(i, n, start) && !errors; i++) {
		/* Persistent, held by nothing: a deletion removes it. */
		fd = ue_open_data();
		if (ue_reg(fd, "race_od u32 a", &words[0], 0,
			   USER_EVENT_REG_PERSIST, NULL) ||
		    ue_unreg(fd, &words[0], 0)) {
			fail_once("register race_od", errno);
			break;
		}
		close(fd);
		if (pthread_create(&t, NULL, od_deleter, NULL)) {
			fail_once("pthread_create", errno);
			break;
		}
		/* Into the deletion's window (race_us 20 ms). */
		usleep(5000);
		fd = open(EVENTS "/race_od/enable", O_WRONLY);
		if (fd >= 0) {
			early++;
			close(fd);
		} else if (errno == ENODEV) {
			hit++;
		} else if (errno == ENOENT) {
			late++;
		} else {
			fail_once("open of the enable file", errno);
		}
		pthread_join(t, NULL);
	}
	close(od_fd);
	printf("UE-INFO race open_delete: %d rounds in %lld ms, ENODEV %ld, ENOENT %ld, opened %ld\n",
	       i, now_ms() - start, hit, late, early);
	ue_result("open_delete.no_error", !errors, error);
	/* The window was met (the open waited in it) in most rounds. */
	ue_result("open_delete.window_hit", hit * 2 > i, "few opens waited");
	UE_EQ("open_delete.gone", ue_exists(EVENTS "/race_od"), 0);
}

/*
 * Unload @mod as soon as nothing holds it, trying for up to 5 s: whether
 * it was unloaded.
 */
static void rmmod_soon(const char *name, const char *mod)
{
	char buf[128];
	int i, ret = -1;

	for (i = 0; i < 5000 && ret; i++) {
		ret = syscall(SYS_delete_module, mod, O_NONBLOCK);
		if (ret && errno != EAGAIN && errno != EWOULDBLOCK) {
			fail_once("delete_module", errno);
			break;
		}
		if (ret)
			usleep(1000);
	}
	snprintf(buf, sizeof(buf), "%s.unloaded", name);
	UE_EQ(buf, ret, 0);
}

/* After an unload: time for what it left behind to run, and oops. */
static void rmmod_after(const char *name)
{
	char buf[128];

	usleep(500 * 1000);
	snprintf(buf, sizeof(buf), "%s.children_exited_0", name);
	UE_EQ(buf, bad_children, 0);
	snprintf(buf, sizeof(buf), "%s.no_error", name);
	ue_result(buf, !errors, error);
}

/* A registration whose event only its enabler holds (the fd is closed). */
static int reg_closed(const char *cmd, int unreg)
{
	int fd = ue_open_data(), ret;

	if (fd < 0)
		return -1;
	ret = ue_reg(fd, cmd, &words[0], 0, 0, NULL);
	if (!ret && unreg)
		ret = ue_unreg(fd, &words[0], 0);
	close(fd);
	return ret;
}

/*
 * exit-rmmod: address spaces that are tracked (they registered and
 * unregistered: no event, nothing holds the module) die while the module is
 * unloaded. Unload waits a second holding event_mutex (race_site 4), so the
 * exits that fall in that second are reported while unload holds the table:
 * every address space must still be let go of, none twice, and no work item
 * may run after unload. One child exits every 10 ms for 2 s, so some fall
 * inside the window.
 */
#define RM_CHILDREN	200

static void exit_rmmod(const char *mod)
{
	pid_t pids[RM_CHILDREN];
	int go[2], ready[2], i, n = 0;
	char x;

	if (pipe(go) || pipe(ready)) {
		ue_result("exit_rmmod.setup", 0, strerror(errno));
		return;
	}
	for (i = 0; i < RM_CHILDREN; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			fail_once("fork", errno);
			break;
		}
		if (!pids[i]) {
			close(go[1]);
			if (reg_closed("race_rm u32 v", 1) ||
			    write(ready[1], "", 1) != 1)
				_exit(1);
			/* Unload has begun when the pipe closes. */
			if (read(go[0], &x, 1) != 0)
				_exit(1);
			usleep(i * 10000);
			_exit(0);
		}
		n++;
	}
	close(go[0]);
	close(ready[1]);
	for (i = 0; i < n; i++)
		if (read(ready[0], &x, 1) != 1)
			fail_once("child setup", EIO);
	close(go[1]);
	rmmod_soon("exit_rmmod", mod);
	for (i = 0; i < n; i++)
		if (ue_child_exit_status(pids[i]))
			bad_children++;
	rmmod_after("exit_rmmod");
}

/*
 * attach-rmmod: a fork's snapshot holds the parent's event, which the parent
 * then lets go; the child's attachment fails (race_site 5) and drops the last
 * reference, while the parent unloads the module. The task work may not be in
 * the module's code when it goes.
 */
static void attach_rmmod(const char *mod)
{
	pid_t pid;
	int fd;

	if (reg_closed("race_fa u32 v", 0)) {
		ue_result("attach_rmmod.setup", 0, strerror(errno));
		return;
	}
	pid = fork();
	if (!pid)
		_exit(0);
	/* The child's attachment waits before it drops the references. */
	fd = ue_open_data();
	if (pid < 0 || fd < 0 || ue_unreg(fd, &words[0], 0))
		fail_once("setup", errno);
	if (fd >= 0)
		close(fd);
	rmmod_soon("attach_rmmod", mod);
	if (pid > 0 && ue_child_exit_status(pid))
		bad_children++;
	rmmod_after("attach_rmmod");
}

/*
 * init-fail: the module's files are visible before the last step of its init,
 * the sysctl, which race_site 6 fails after a wait. A thread opens
 * user_events_data and registers as soon as it can, meanwhile: the load must
 * succeed anyway (a failed init would free the module under the fd and the
 * event), and the registration work.
 */
static atomic_int if_fd = -1;

static void *init_opener(void *arg)
{
	int fd = -1;

	(void)arg;
	while (!atomic_load(&stop)) {
		fd = ue_open_data();
		if (fd >= 0)
			break;
	}
	if (fd >= 0 && ue_reg(fd, "race_init u32 v", &words[0], 0, 0, NULL))
		fail_once("DIAG_IOCSREG", errno);
	atomic_store(&if_fd, fd);
	return NULL;
}

static void init_fail(const char *ko)
{
	int kfd = open(ko, O_RDONLY | O_CLOEXEC), ret, fd;
	pthread_t t;

	if (kfd < 0 || pthread_create(&t, NULL, init_opener, NULL)) {
		ue_result("init_fail.setup", 0, strerror(errno));
		return;
	}
	ret = syscall(SYS_finit_module, kfd, "race_site=6 race_us=300000", 0);
	ue_result("init_fail.loaded", !ret, strerror(errno));
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	close(kfd);
	fd = atomic_load(&if_fd);
	UE_EQ("init_fail.opened_during_init", fd >= 0, 1);
	UE_EQ("init_fail.registered", ue_exists(EVENTS "/race_init"), 1);
	ue_result("init_fail.no_error", !errors, error);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 10, fd, ret;

	ue_suite = "race";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: race_test MODE SECS|N|MODULE\n");
		return 2;
	}
	if (!strcmp(argv[1], "unreg-fork")) {
		fork_race("unreg_fork", unreg_loop, n);
	} else if (!strcmp(argv[1], "del-fork")) {
		fork_race("del_fork", del_loop, n);
		/* Every child has been reaped: nothing holds it now. */
		fd = ue_open_data();
		ret = ue_del(fd, "race_del") ? errno : 0;
		ue_result("del_fork.final_delete", !ret || ret == ENOENT,
			  strerror(ret));
		UE_EQ("del_fork.gone", ue_exists(EVENTS "/race_del"), 0);
		close(fd);
	} else if (!strcmp(argv[1], "fault-unreg-fork")) {
		fault_unreg_fork("fault_unreg_fork", n);
	} else if (!strcmp(argv[1], "fault-unreg-fork-ev")) {
		fault_unreg_fork("fault_unreg_fork_ev", n);
	} else if (!strcmp(argv[1], "refault-fork")) {
		fork_race("refault_fork", refault_loop, n);
	} else if (!strcmp(argv[1], "fault-work-fork")) {
		fault_work_fork(n);
	} else if (!strcmp(argv[1], "exit-wait")) {
		exit_wait(n);
	} else if (!strcmp(argv[1], "ftrace-enable")) {
		ftrace_enable(n);
	} else if (!strcmp(argv[1], "open-delete")) {
		open_delete(n);
	} else if (!strcmp(argv[1], "bits-shared")) {
		bits_shared(n);
	} else if (!strcmp(argv[1], "exit-rmmod") && argc > 2) {
		exit_rmmod(argv[2]);
	} else if (!strcmp(argv[1], "attach-rmmod") && argc > 2) {
		attach_rmmod(argv[2]);
	} else if (!strcmp(argv[1], "init-fail") && argc > 2) {
		init_fail(argv[2]);
	} else {
		fprintf(stderr, "race_test: unknown mode %s\n", argv[1]);
		return 2;
	}
	return ue_failures ? 1 : 0;
}
