// SPDX-License-Identifier: GPL-2.0
/*
 * An enable word on a FUSE file whose daemon does not answer a read: the
 * fault that reads the page in waits on user space for as long as the daemon
 * likes. Only the thread that needs the page may wait: another process
 * registering, and an ftrace enable of the event, must go on. Below 5.16,
 * GUP without FOLL_NOFAULT would fault the page in under event_mutex, and
 * both would wait too (src/compat/gup.h).
 *
 * The same daemon holds up a process's mmap lock: a read of /proc/PID/mem at
 * the FUSE page holds it while it waits, and a writer queued behind it makes
 * every later reader wait; nothing global may wait for it (lock_queued()),
 * not even when 600 threads of that process register at once (wedge()); and
 * 300 words of one process stuck on the daemon delay no other process's bit
 * (many_words()). With "aio-exit PARAMS" (35-race.sh, against
 * user_events_race.ko, whose parameters are in PARAMS), an AIO read the
 * daemon holds keeps the teardown of an exited process's address space
 * waiting, and nothing else may wait for that (aio_exit()).
 *
 * The daemon is a few lines over /dev/fuse (no libfuse: the test is static):
 * one directory with one 4 KiB file, "f". Reads are held until the test
 * answers them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/aio_abi.h>
#include <linux/fuse.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>

#include "ue_abi.h"

#define MNT		"/tmp/ue_fuse"
#define FILE_SIZE	4096
#define ROOT_ID		1
#define FILE_ID		2
#define MAX_HELD	16
/*
 * How long a process that must not wait for the daemon may take. A process
 * that does wait stays blocked until the test answers, which it does only
 * after the check, so a long bound loses nothing; it must be long because
 * what such a process does is queued behind the wedged process's own work
 * (600 registrations in wedge()), which on a debug kernel under TCG, beside
 * the rest of make check, took more than 5 s.
 */
#define NOT_BLOCKED_SECS 60

static int fuse_fd = -1;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { __u64 unique; __u32 size; } held[MAX_HELD];
static int nr_held, reads_seen;
/*
 * Set when the test unmounts. The last unmount aborts the connection
 * (fuse_conn_destroy(): fuse_abort_conn()), which ends every request, and a
 * reply the daemon is making then finds its request gone: ENOENT, from
 * fs/fuse/dev.c's fuse_dev_do_write(). A background FUSE_RELEASE (of the
 * test's file, or of aio_exit()'s P once its read is answered) can be in
 * the daemon's hands just then: 7b91198's run met it twice, in aio_exit.
 */
static atomic_int unmounting;
/* Set while reads are to be answered at once (many_words()). */
static atomic_int answer_at_once;

static void fuse_reply(__u32 opcode, __u64 unique, int error,
		       const void *data, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + FILE_SIZE];
	struct fuse_out_header *out = (void *)buf;
	char msg[128];
	int err;

	out->len = sizeof(*out) + len;
	out->error = error;
	out->unique = unique;
	if (len)
		memcpy(buf + sizeof(*out), data, len);
	if (write(fuse_fd, buf, out->len) == (ssize_t)out->len)
		return;
	err = errno;
	snprintf(msg, sizeof(msg), "opcode %u unique %llu: %s", opcode,
		 (unsigned long long)unique, strerror(err));
	if (err == ENOENT && atomic_load(&unmounting))
		printf("# fuse: reply after the unmount, %s\n", msg);
	else
		ue_result("fuse.daemon_reply", 0, msg);
}

static void fuse_attr_of(__u64 node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->mode = node == ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0666;
	a->nlink = node == ROOT_ID ? 2 : 1;
	a->size = node == ROOT_ID ? 0 : FILE_SIZE;
	a->blksize = 4096;
}

static void fuse_handle(struct fuse_in_header *in, void *arg)
{
	union {
		struct fuse_init_out init;
		struct fuse_entry_out entry;
		struct fuse_attr_out attr;
		struct fuse_open_out open;
	} o;
	struct fuse_init_in *init = arg;
	struct fuse_read_in *read = arg;

	memset(&o, 0, sizeof(o));
	switch (in->opcode) {
	case FUSE_INIT:
		o.init.major = FUSE_KERNEL_VERSION;
		o.init.minor = init->minor < 26 ? init->minor : 26;
		o.init.max_readahead = init->max_readahead;
		o.init.max_write = 4096;
		o.init.time_gran = 1;
		/* O_DIRECT reads of an AIO stay in flight (aio_exit()). */
		o.init.flags = init->flags & FUSE_ASYNC_DIO;
		fuse_reply(in->opcode, in->unique, 0, &o.init, sizeof(o.init));
		break;
	case FUSE_LOOKUP:
		if (in->nodeid != ROOT_ID || strcmp(arg, "f")) {
			fuse_reply(in->opcode, in->unique, -ENOENT, NULL, 0);
			break;
		}
		o.entry.nodeid = FILE_ID;
		o.entry.entry_valid = 3600;
		o.entry.attr_valid = 3600;
		fuse_attr_of(FILE_ID, &o.entry.attr);
		fuse_reply(in->opcode, in->unique, 0, &o.entry, sizeof(o.entry));
		break;
	case FUSE_GETATTR:
		o.attr.attr_valid = 3600;
		fuse_attr_of(in->nodeid, &o.attr.attr);
		fuse_reply(in->opcode, in->unique, 0, &o.attr, sizeof(o.attr));
		break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		fuse_reply(in->opcode, in->unique, 0, &o.open, sizeof(o.open));
		break;
	case FUSE_READ:
		if (atomic_load(&answer_at_once)) {
			static const char zeros[FILE_SIZE];
			__u32 size = read->offset < FILE_SIZE ?
				     FILE_SIZE - read->offset : 0;

			fuse_reply(in->opcode, in->unique, 0, zeros,
				   size < read->size ? size : read->size);
			break;
		}
		/*
		 * Held: the test answers it when it has seen who waits. A read
		 * past what the table holds is answered at once: one left
		 * unanswered keeps its page locked for good, and every later
		 * fault of the page (a fault-in worker's, the test's own) waits
		 * on it past the end of the test.
		 */
		pthread_mutex_lock(&held_lock);
		reads_seen++;
		if (nr_held < MAX_HELD) {
			held[nr_held].unique = in->unique;
			held[nr_held].size = read->offset < FILE_SIZE ?
				FILE_SIZE - read->offset : 0;
			if (held[nr_held].size > read->size)
				held[nr_held].size = read->size;
			nr_held++;
			pthread_mutex_unlock(&held_lock);
			break;
		}
		pthread_mutex_unlock(&held_lock);
		printf("# fuse: more than %d reads held: read %llu answered at once\n",
		       MAX_HELD, (unsigned long long)in->unique);
		{
			static const char zeros[FILE_SIZE];
			__u32 size = read->offset < FILE_SIZE ?
				     FILE_SIZE - read->offset : 0;

			fuse_reply(in->opcode, in->unique, 0, zeros,
				   size < read->size ? size : read->size);
		}
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		fuse_reply(in->opcode, in->unique, 0, NULL, 0);
		break;
	default:
		fuse_reply(in->opcode, in->unique, -ENOSYS, NULL, 0);
	}
}

static void *fuse_daemon(void *unused)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	ssize_t n;

	(void)unused;
	for (;;) {
		n = read(fuse_fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			return NULL;	/* unmounted */
		fuse_handle((void *)buf, buf + sizeof(struct fuse_in_header));
	}
}

/* Answer every held read with zeros; the number answered. */
static int fuse_answer_reads(void)
{
	static const char zeros[FILE_SIZE];
	int i, n;

	pthread_mutex_lock(&held_lock);
	for (i = 0; i < nr_held; i++)
		fuse_reply(FUSE_READ, held[i].unique, 0, zeros,
			   held[i].size);
	n = nr_held;
	nr_held = 0;
	pthread_mutex_unlock(&held_lock);
	return n;
}

/* Wait up to 5 s for the daemon to have seen @n reads. */
static int fuse_wait_reads(int n)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i, seen = 0;

	for (i = 0; i < 500 && seen < n; i++) {
		pthread_mutex_lock(&held_lock);
		seen = reads_seen;
		pthread_mutex_unlock(&held_lock);
		if (seen < n)
			nanosleep(&ts, NULL);
	}
	return seen >= n;
}

/*
 * Drop the file's page from the page cache, so that the next access reads
 * it from the daemon: 1 once mincore() says it is gone. POSIX_FADV_DONTNEED
 * returns 0 even when it leaves a page that something still holds for a
 * moment (seen once on 7.3: the read this test then waits for never came),
 * so it is repeated, for up to 5 s, until the page is not resident.
 */
static int fuse_drop_page(int file)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	unsigned char vec = 1;
	void *p;
	int i;

	p = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, file, 0);
	if (p == MAP_FAILED)
		return 0;
	for (i = 0; i < 250; i++) {
		if (posix_fadvise(file, 0, 0, POSIX_FADV_DONTNEED) ||
		    mincore(p, FILE_SIZE, &vec) || !(vec & 1))
			break;
		nanosleep(&ts, NULL);
	}
	munmap(p, FILE_SIZE);
	return !(vec & 1);
}

static int fuse_mount(void)
{
	char opts[128];

	mkdir(MNT, 0755);
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0)
		return -1;
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse_fd);
	return mount("ue_fuse", MNT, "fuse", MS_NOSUID | MS_NODEV, opts);
}

struct reg_call {
	int	fd;
	__u32	*word;
	int	ret;
};

static void *reg_fn(void *arg)
{
	struct reg_call *c = arg;

	c->ret = ue_reg(c->fd, "en_fuse u32 a", c->word, 0, 0, NULL);
	return NULL;
}

static int enable_fuse_event(void)
{
	return ue_enable("en_fuse", 1);
}

/*
 * In a child whose address space is not tracked yet: a thread reads the
 * FUSE page through /proc/self/mem, which faults it in with the child's
 * mmap lock held and waits on the daemon; then the child registers, which
 * makes its address space tracked. No one else may wait for the child's
 * lock (when tracking registered an MMU notifier, which takes the lock for
 * writing, everyone's registrations did).
 */
static int mem_file = -1, mem_go = -1;

static void *mem_read_fn(void *page)
{
	char path[32], buf[4];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", getpid());
	fd = open(path, O_RDONLY);
	if (pread(fd, buf, sizeof(buf), (off_t)(uintptr_t)page) != sizeof(buf))
		exit(2);
	close(fd);
	return NULL;
}

static int mem_locked_register(void)
{
	static __u32 word;
	pthread_t reader;
	void *page;
	int fd = ue_open_data(), ret;

	page = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, mem_file, 0);
	if (page == MAP_FAILED || pthread_create(&reader, NULL, mem_read_fn,
						 page))
		return 1;
	/* The test waits for the daemon to see the read, then for this. */
	usleep(200000);
	if (write(mem_go, "", 1) != 1)
		return 1;
	ret = ue_reg(fd, "en_fuse_mem u32 a", &word, 0, 0, NULL);
	pthread_join(reader, NULL);
	return ret || ue_unreg(fd, &word, 0);
}

static void mem_locked(void)
{
	struct ue_child other, locked;
	int go[2], seen;
	char x;

	pthread_mutex_lock(&held_lock);
	seen = reads_seen;
	pthread_mutex_unlock(&held_lock);
	UE_EQ("fuse.mem_page_dropped", fuse_drop_page(mem_file), 1);
	UE_EQ("fuse.mem_pipe", pipe(go), 0);
	mem_go = go[1];
	UE_EQ("fuse.mem_fork_other", ue_child_ready(&other, ue_others_work), 0);
	UE_EQ("fuse.mem_fork", ue_child_ready(&locked, mem_locked_register), 0);
	close(go[1]);
	/* Started: the reader's fault waits on the daemon, then it registers. */
	if (write(locked.go, "", 1) != 1)
		ue_failures++;
	close(locked.go);
	UE_EQ("fuse.mem_reads_page", fuse_wait_reads(seen + 1), 1);
	UE_EQ("fuse.mem_registering", read(go[0], &x, 1), 1);
	close(go[0]);
	usleep(300000);
	UE_EQ("fuse.mem_others_not_blocked", ue_child_run(&other, NOT_BLOCKED_SECS), 1);
	UE_EQ("fuse.mem_answered", fuse_answer_reads() >= 1, 1);
	if (other.pid > 0)
		waitpid(other.pid, NULL, 0);
	UE_EQ("fuse.mem_registered", ue_child_exit_status(locked.pid), 0);
}

/* Wait up to 5 s for *@word & @mask to become @want. */
static int wait_bits_5s(volatile __u32 *word, __u32 mask, __u32 want)
{
	int i;

	for (i = 0; i < 4 && !ue_wait_bits(word, mask, want); i++)
		;
	return ue_wait_bits(word, mask, want);
}

/*
 * lock_queued(): process L has a reader of its mmap lock that waits on the
 * daemon (a read of /proc/self/mem at the FUSE page) and a writer queued
 * behind it (mmap()), so every later reader of the lock waits too. L is
 * tracked, with an enabler of en_fuse_lk; a third thread of L then registers
 * en_fuse_lk2, whose word is elsewhere (not on FUSE). Were that thread to
 * wait for L's mmap lock holding ue_reg_mutex and event_mutex, as upstream
 * does with its own, every registration, status read and ftrace enable on the
 * machine would wait with it. Only L may wait: another process's registration
 * and status read, and an ftrace enable of en_fuse_lk (whose bit is in L),
 * finish without it; once the daemon answers, L's registration succeeds and
 * its en_fuse_lk bit is set.
 */
static __u32 lk_word;
static volatile __u32 lk_word2;
static char lk_cmd2[] = "en_fuse_lk2 u32 a";
static int lk_go = -1, lk_ready = -1, lk_wake[2];

/* L's writer: mmap() once woken, behind the stuck reader. */
static void *lk_mmap_fn(void *unused)
{
	char x;

	(void)unused;
	if (read(lk_wake[0], &x, 1) != 1 ||
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		_exit(7);
	return NULL;
}

/*
 * L: exits 0, or with the number of the step that failed. Once the writer
 * is queued, L's own page faults wait for the lock too (all of them before
 * 6.4, which has no per-VMA locks), and so does pthread_create(), which
 * maps the new thread's stack: the registration would wait before it ever
 * reached the module. So the threads are made first, and every page L has
 * then is locked in (mlockall()), before the FUSE page is mapped; the
 * ioctl's string and word are touched before that.
 */
static int lock_queued_child(void)
{
	pthread_t reader, mapper;
	int fd = ue_open_data();
	void *page;
	char x;

	if (fd < 0 || ue_reg(fd, "en_fuse_lk u32 a", &lk_word, 0, 0, NULL))
		_exit(3);
	lk_word2 = 0;
	if (!*(volatile char *)&lk_cmd2[0] ||
	    !*(volatile char *)&lk_cmd2[sizeof(lk_cmd2) - 2])
		_exit(4);
	usleep(1000);
	if (pipe(lk_wake) || pthread_create(&mapper, NULL, lk_mmap_fn, NULL))
		_exit(4);
	if (mlockall(MCL_CURRENT))
		_exit(11);
	page = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, mem_file, 0);
	if (page == MAP_FAILED ||
	    pthread_create(&reader, NULL, mem_read_fn, page))
		_exit(4);
	/* The daemon holds the reader's read: queue the writer behind it. */
	if (read(lk_go, &x, 1) != 1 || write(lk_wake[1], "", 1) != 1)
		_exit(5);
	usleep(200000);
	if (write(lk_ready, "", 1) != 1)
		_exit(6);
	if (ue_reg(fd, lk_cmd2, (__u32 *)&lk_word2, 0, 0, NULL))
		_exit(8);
	pthread_join(reader, NULL);
	pthread_join(mapper, NULL);
	/* Enabled for ftrace meanwhile: the fault worker writes the bit. */
	if (!wait_bits_5s(&lk_word, 1, 1))
		_exit(9);
	if (ue_unreg(fd, (__u32 *)&lk_word2, 0) || ue_unreg(fd, &lk_word, 0))
		_exit(10);
	return 0;
}

static int enable_lk(void)
{
	return ue_enable("en_fuse_lk", 1);
}

static void lock_queued(void)
{
	struct ue_child other, enabler, locked;
	int go[2], ready[2], seen, status;
	char x;

	pthread_mutex_lock(&held_lock);
	seen = reads_seen;
	pthread_mutex_unlock(&held_lock);
	UE_EQ("fuse.lock_page_dropped", fuse_drop_page(mem_file), 1);
	UE_EQ("fuse.lock_fork_other", ue_child_ready(&other, ue_others_work), 0);
	UE_EQ("fuse.lock_fork_enabler", ue_child_ready(&enabler, enable_lk), 0);
	UE_EQ("fuse.lock_pipes", pipe(go) || pipe(ready), 0);
	lk_go = go[0];
	lk_ready = ready[1];
	UE_EQ("fuse.lock_fork", ue_child_ready(&locked, lock_queued_child), 0);
	close(go[0]);
	close(ready[1]);
	if (write(locked.go, "", 1) != 1)
		ue_failures++;
	close(locked.go);
	UE_EQ("fuse.lock_reads_page", fuse_wait_reads(seen + 1), 1);
	if (write(go[1], "", 1) != 1)
		ue_failures++;
	UE_EQ("fuse.lock_registering", read(ready[0], &x, 1), 1);
	usleep(300000);
	UE_EQ("fuse.lock_others_not_blocked", ue_child_run(&other, NOT_BLOCKED_SECS), 1);
	UE_EQ("fuse.lock_enable_not_blocked", ue_child_run(&enabler, NOT_BLOCKED_SECS), 1);
	/* L's own registration waits for its lock, as it must. */
	UE_EQ("fuse.lock_child_waits", waitpid(locked.pid, &status, WNOHANG), 0);
	UE_EQ("fuse.lock_answered", fuse_answer_reads() >= 1, 1);
	if (other.pid > 0)
		waitpid(other.pid, NULL, 0);
	if (enabler.pid > 0)
		waitpid(enabler.pid, NULL, 0);
	UE_EQ("fuse.lock_registered", ue_child_exit_status(locked.pid), 0);
	UE_EQ("fuse.lock_disable", ue_enable("en_fuse_lk", 0), 0);
	close(go[1]);
	close(ready[0]);
}

/*
 * Process W's mmap lock is held by a reader waiting on
 * the daemon, and 600 of W's threads register at once (W's first
 * registrations). Another process must still register, write, fork and be
 * enabled for ftrace without waiting. Before the fix each of W's threads queued
 * a work item on the kernel's shared unbound queue that registered an MMU
 * notifier, which waits for W's mmap lock for writing: 512 of them filled
 * the queue, and the other process's first registration (and on 5.10 the
 * ftrace enable) waited until the daemon answered. Now no registration
 * takes an mmap lock for writing, and W's threads finish at once.
 */
#define WEDGE_THREADS	600

static __u32 wedge_words[WEDGE_THREADS];
static pthread_barrier_t wedge_start;
static atomic_int wedge_failed;
static int wedge_fd = -1, wedge_go = -1, wedge_ready = -1;

static void *wedge_reg_fn(void *arg)
{
	int i = (int)(intptr_t)arg;

	pthread_barrier_wait(&wedge_start);
	if (ue_reg(wedge_fd, "en_wedge u32 a", &wedge_words[i], 0, 0, NULL))
		atomic_fetch_add(&wedge_failed, 1);
	return NULL;
}

/* W: exits 0 once every thread registered, else the step that failed. */
static int wedge_child(void)
{
	static pthread_t t[WEDGE_THREADS];
	pthread_t reader;
	pthread_attr_t attr;
	void *page;
	long stack;
	char x;
	int i;

	wedge_fd = ue_open_data();
	memset(wedge_words, 0, sizeof(wedge_words));
	/* Small stacks, but not below the minimum (128 KiB on arm64). */
	stack = sysconf(_SC_THREAD_STACK_MIN);
	if (wedge_fd < 0 || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, stack > 65536 ? stack : 65536) ||
	    pthread_barrier_init(&wedge_start, NULL, WEDGE_THREADS + 1))
		return 2;
	/* Threads first: a thread's stack is an mmap(), a writer. */
	for (i = 0; i < WEDGE_THREADS; i++)
		if (pthread_create(&t[i], &attr, wedge_reg_fn,
				   (void *)(intptr_t)i))
			return 3;
	page = mmap(NULL, FILE_SIZE, PROT_READ, MAP_PRIVATE, mem_file, 0);
	if (page == MAP_FAILED ||
	    pthread_create(&reader, NULL, mem_read_fn, page) ||
	    write(wedge_ready, "", 1) != 1)
		return 4;
	/* The test saw the reader's read held: all register now. */
	if (read(wedge_go, &x, 1) != 1)
		return 5;
	pthread_barrier_wait(&wedge_start);
	for (i = 0; i < WEDGE_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_join(reader, NULL);
	if (atomic_load(&wedge_failed))
		return 6;
	for (i = 0; i < WEDGE_THREADS; i++)
		if (ue_unreg(wedge_fd, &wedge_words[i], 0))
			return 7;
	return 0;
}

/* What the other process does meanwhile: every step within NOT_BLOCKED_SECS. */
static int wedge_other(void)
{
	static __u32 word;
	struct { __u32 index, a; } rec = { 0, 42 };
	int fd = ue_open_data(), status;
	pid_t pid;

	if (fd < 0 || ue_reg(fd, "en_wedge_other u32 a", &word, 0, 0,
			     &rec.index))
		return 2;
	if (ue_enable("en_wedge_other", 1) || !ue_wait_bits(&word, 1, 1))
		return 3;
	/* Enabled: the write is recorded, its byte count returned. */
	if (write(fd, &rec, sizeof(rec)) != sizeof(rec))
		return 4;
	pid = fork();
	if (!pid)
		_exit(!(word & 1));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return 5;
	if (ue_enable("en_wedge_other", 0) || ue_unreg(fd, &word, 0))
		return 6;
	return 0;
}

static void wedge(void)
{
	struct ue_child other, w;
	int go[2], ready[2], seen, i, status = -1;
	char x;

	pthread_mutex_lock(&held_lock);
	seen = reads_seen;
	pthread_mutex_unlock(&held_lock);
	UE_EQ("fuse.wedge_page_dropped", fuse_drop_page(mem_file), 1);
	UE_EQ("fuse.wedge_fork_other", ue_child_ready(&other, wedge_other), 0);
	/* After the other: only W may hold the pipes' other ends. */
	UE_EQ("fuse.wedge_pipes", pipe(go) || pipe(ready), 0);
	wedge_go = go[0];
	wedge_ready = ready[1];
	UE_EQ("fuse.wedge_fork", ue_child_ready(&w, wedge_child), 0);
	close(go[0]);
	close(ready[1]);
	if (write(w.go, "", 1) != 1)
		ue_failures++;
	close(w.go);
	/* W made its threads (slow on a debug kernel), then its reader. */
	UE_EQ("fuse.wedge_threads", read(ready[0], &x, 1), 1);
	UE_EQ("fuse.wedge_reads_page", fuse_wait_reads(seen + 1), 1);
	if (write(go[1], "", 1) != 1)
		ue_failures++;
	close(go[1]);
	close(ready[0]);
	/* Long enough for 600 threads to have queued whatever they queue. */
	sleep(1);
	UE_EQ("fuse.wedge_others_not_blocked", ue_child_run(&other, NOT_BLOCKED_SECS), 1);
	/* Answered (and whatever W reads after), W finishes. */
	for (i = 0; i < 3000 && waitpid(w.pid, &status, WNOHANG) == 0; i++) {
		fuse_answer_reads();
		usleep(10000);
	}
	if (other.pid > 0)
		waitpid(other.pid, NULL, 0);
	UE_EQ("fuse.wedge_registered",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
}

/*
 * 300 enable words of this process on the FUSE page,
 * whose page the daemon holds, all to be faulted in by an ftrace enable
 * made on one CPU; and process P's word of the same event, on a
 * copy-on-write page of a file mapping (so that it is faulted in by a
 * worker too), registered first, so that it is written last. P's bit must
 * be set within 5 s. Before the fix every word had a work item of its own
 * on a per-CPU queue of 256 active items: this process's 300 filled it,
 * and P's waited until the daemon answered. Now each address space has
 * one worker, and only this process's bits wait.
 */
#define MANY_WORDS	300

static int many_go = -1, many_ready = -1;

static int many_words_other(void)
{
	int fd = ue_open_data(), mem = memfd_create("ue_many", 0), p[2];
	volatile __u32 *word;
	pid_t pid;
	char x;
	int ok;

	if (fd < 0 || mem < 0 || ftruncate(mem, 4096) || pipe(p))
		return 2;
	word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, mem, 0);
	if (word == MAP_FAILED ||
	    ue_reg(fd, "en_many u32 a", (__u32 *)word, 0, 0, NULL))
		return 3;
	/* A child keeps the page copy-on-write. */
	pid = fork();
	if (!pid) {
		close(p[1]);
		_exit(read(p[0], &x, 1) < 0);
	}
	close(p[0]);
	if (pid < 0 || write(many_ready, "", 1) != 1 ||
	    read(many_go, &x, 1) != 1)
		return 4;
	ok = ue_wait_bits(word, 1, 1);
	close(p[1]);
	waitpid(pid, NULL, 0);
	return ok ? 0 : 5;
}

static void many_words(int file, int fd)
{
	struct ue_child other;
	int go[2], ready[2], i, n = 0, tries, status = -1;
	volatile __u32 *w;
	cpu_set_t one, all;
	char x;

	UE_EQ("fuse.many_pipes", pipe(go) || pipe(ready), 0);
	many_go = go[0];
	many_ready = ready[1];
	UE_EQ("fuse.many_fork_other", ue_child_ready(&other, many_words_other), 0);
	/* Only the other holds these ends: its failure is EOF here. */
	close(go[0]);
	close(ready[1]);
	if (write(other.go, "", 1) != 1)
		ue_failures++;
	close(other.go);
	UE_EQ("fuse.many_other_ready", read(ready[0], &x, 1), 1);
	w = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, file, 0);
	UE_EQ("fuse.many_mmap", w != MAP_FAILED, 1);
	if (w == MAP_FAILED) {
		close(go[1]);
		close(ready[0]);
		return;
	}
	atomic_store(&answer_at_once, 1);
	for (i = 0; i < MANY_WORDS; i++)
		n += !ue_reg(fd, "en_many u32 a", (__u32 *)&w[i], 0, 0, NULL);
	atomic_store(&answer_at_once, 0);
	UE_EQ("fuse.many_registered", n, MANY_WORDS);
	madvise((void *)w, FILE_SIZE, MADV_DONTNEED);
	UE_EQ("fuse.many_page_dropped", fuse_drop_page(file), 1);
	/* One CPU: a per-CPU queue would take every fault-in there. */
	sched_getaffinity(0, sizeof(all), &all);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	UE_EQ("fuse.many_one_cpu", sched_setaffinity(0, sizeof(one), &one), 0);
	UE_EQ("fuse.many_enable", ue_enable("en_many", 1), 0);
	sched_setaffinity(0, sizeof(all), &all);
	if (write(go[1], "", 1) != 1)
		ue_failures++;
	for (i = 0; i < 800 && waitpid(other.pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	UE_EQ("fuse.many_other_bit_set",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	/*
	 * Answered, this process's words are all set within 5 s. From here
	 * every read is answered at once: the loop's own reads of the words
	 * fault the page in where the worker has not yet, and a read held
	 * then would wait for this thread, which waits in that fault.
	 */
	atomic_store(&answer_at_once, 1);
	for (tries = 0; tries < 500; tries++) {
		fuse_answer_reads();
		for (i = n = 0; i < MANY_WORDS; i++)
			n += w[i] & 1;
		if (n == MANY_WORDS)
			break;
		usleep(10000);
	}
	UE_EQ("fuse.many_bits_set", n, MANY_WORDS);
	UE_EQ("fuse.many_disable", ue_enable("en_many", 0), 0);
	for (i = n = 0; i < MANY_WORDS; i++)
		n += !ue_unreg(fd, (__u32 *)&w[i], 0);
	UE_EQ("fuse.many_unregistered", n, MANY_WORDS);
	if (other.pid > 0 && !WIFEXITED(status))
		waitpid(other.pid, NULL, 0);
	munmap((void *)w, FILE_SIZE);
	close(go[1]);
	close(ready[0]);
}

/*
 * aio-exit, with user_events_race.ko waiting a second at the bit write while
 * it holds a user of the address space (race_site 2): process P has an
 * enabler of ue_aio and an AIO read of the FUSE file in flight, which the
 * daemon holds, and exits while a perf attach of ue_aio writes its bit. The
 * write then drops the last user of P's address space, whose teardown
 * (__mmput(): exit_aio()) waits for the read. Were the teardown run on the
 * module's queue that every registration, deletion and status read drains
 * first, they would all wait for the daemon. They must finish without it, and
 * P's exit is in effect: ue_aio, which only P used, is deleted.
 */
static int aio_ready = -1, aio_go = -1;
static atomic_int perf_tid;

static int aio_child(void)
{
	static char buf[FILE_SIZE] __attribute__((aligned(4096)));
	struct iocb cb, *cbs[1] = { &cb };
	aio_context_t ctx = 0;
	static __u32 word;
	int fd = ue_open_data(), file;
	char x;

	if (fd < 0 || ue_reg(fd, "ue_aio u32 a", &word, 0, 0, NULL))
		_exit(3);
	file = open(MNT "/f", O_RDONLY | O_DIRECT);
	if (file < 0 || syscall(__NR_io_setup, 1, &ctx))
		_exit(4);
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = file;
	cb.aio_lio_opcode = IOCB_CMD_PREAD;
	cb.aio_buf = (__u64)(uintptr_t)buf;
	cb.aio_nbytes = FILE_SIZE;
	if (syscall(__NR_io_submit, ctx, 1, cbs) != 1)
		_exit(5);
	if (write(aio_ready, "", 1) != 1)
		_exit(6);
	/* Exit, the read in flight, when told. */
	if (read(aio_go, &x, 1) != 1)
		_exit(7);
	_exit(0);
}

/*
 * A perf event of CPU 0 for every task, as race_test's toggle_loop: a
 * task's event would patch __schedule's jump label, where QEMU's TCG can
 * run a stale int3 (docs/testing.md).
 */
static void *aio_perf_fn(void *pfd)
{
	struct perf_event_attr pe;

	atomic_store(&perf_tid, (int)syscall(SYS_gettid));
	*(int *)pfd = ue_perf_attr("ue_aio", &pe) ? -1 :
		syscall(__NR_perf_event_open, &pe, -1, 0, -1, 0);
	return NULL;
}

/*
 * Whether thread @tid of this process waits in the module's race window:
 * 1 or 0, -1 if the kernel does not show where threads wait (no such
 * file). The file is empty while the thread runs on another CPU (the
 * kernel does not walk a running task's stack): not yet in the window,
 * ask again. (Taking that for "no file" once skipped the check on bpo-rt.)
 */
static int in_race_window(pid_t tid)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	if (ue_read_text(path, buf, sizeof(buf)) == -ENOENT)
		return -1;
	return strstr(buf, "ue_race_window") != NULL;
}

static int aio_del(void)
{
	int fd = ue_open_data();

	return fd < 0 || ue_del(fd, "ue_aio");
}

static int race_param(const char *params, const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", params, name);
	return ue_write_text(path, val, O_TRUNC);
}

static void aio_exit(const char *params)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct ue_child other, del;
	struct pollfd pfd_ready;
	int ready[2], go[2], seen, i, reaped = 0, in_window = 0, pfd = -1;
	pid_t pid;
	pthread_t t;
	char x;

	UE_EQ("aio_exit.create", ue_write_text(TRACEFS "/dynamic_events",
					       "u:ue_aio u32 a", O_APPEND), 0);
	UE_EQ("aio_exit.fork_other", ue_child_ready(&other, ue_others_work), 0);
	UE_EQ("aio_exit.fork_del", ue_child_ready(&del, aio_del), 0);
	pthread_mutex_lock(&held_lock);
	seen = reads_seen;
	pthread_mutex_unlock(&held_lock);
	UE_EQ("aio_exit.pipes", pipe(ready) || pipe(go), 0);
	aio_ready = ready[1];
	aio_go = go[0];
	pid = fork();
	if (!pid)
		_exit(aio_child());
	close(ready[1]);
	close(go[0]);
	/* A read that is not asynchronous would keep P in io_submit(). */
	pfd_ready.fd = ready[0];
	pfd_ready.events = POLLIN;
	UE_EQ("aio_exit.submitted", poll(&pfd_ready, 1, 5000) == 1 &&
	      read(ready[0], &x, 1) == 1, 1);
	UE_EQ("aio_exit.read_held", fuse_wait_reads(seen + 1), 1);

	/* A perf attach writes P's bit, and waits there a second. */
	UE_EQ("aio_exit.window_us", race_param(params, "race_us", "1000000"), 0);
	UE_EQ("aio_exit.window_site", race_param(params, "race_site", "2"), 0);
	if (pthread_create(&t, NULL, aio_perf_fn, &pfd)) {
		ue_result("aio_exit.perf_thread", 0, strerror(errno));
		/* The children, never started, see EOF and exit. */
		close(other.go);
		close(del.go);
		goto answer;
	}
	for (i = 0; i < 500 && !in_window; i++) {
		in_window = atomic_load(&perf_tid) ?
			    in_race_window(atomic_load(&perf_tid)) : 0;
		if (!in_window)
			nanosleep(&ts, NULL);
	}
	/* Without /proc/PID/stack, 300 ms is well inside the second. */
	if (in_window < 0) {
		printf("# aio_exit: no /proc/PID/stack, waiting 300 ms\n");
		usleep(300000);
	} else {
		UE_EQ("aio_exit.in_window", in_window, 1);
	}
	/* P exits meanwhile: the write holds the last user of its mm. */
	if (write(go[1], "", 1) != 1)
		ue_failures++;
	for (i = 0; i < 500 && !reaped; i++) {
		reaped = waitpid(pid, NULL, WNOHANG) == pid;
		if (!reaped)
			nanosleep(&ts, NULL);
	}
	UE_EQ("aio_exit.reaped", reaped, 1);
	pthread_join(t, NULL);
	race_param(params, "race_site", "0");
	UE_EQ("aio_exit.perf_open", pfd >= 0, 1);
	if (pfd >= 0)
		close(pfd);

	UE_EQ("aio_exit.others_not_blocked", ue_child_run(&other, NOT_BLOCKED_SECS), 1);
	UE_EQ("aio_exit.exit_in_effect", ue_child_run(&del, NOT_BLOCKED_SECS), 1);
answer:
	race_param(params, "race_site", "0");
	UE_EQ("aio_exit.answered", fuse_answer_reads() >= 1, 1);
	/* P, if it was never told to exit, sees EOF. */
	close(go[1]);
	if (!reaped)
		waitpid(pid, NULL, 0);
	if (other.pid > 0)
		waitpid(other.pid, NULL, 0);
	if (del.pid > 0)
		waitpid(del.pid, NULL, 0);
	/* Whatever failed above, ue_aio goes now. */
	ue_write_text(TRACEFS "/dynamic_events", "-:ue_aio", O_APPEND);
	close(ready[0]);
}

int main(int argc, char **argv)
{
	struct reg_call c = { .fd = ue_open_data() };
	struct ue_child other_reg, enabler;
	pthread_t daemon, reg;
	volatile __u32 *w;
	int file;

	ue_suite = argc > 2 && !strcmp(argv[1], "aio-exit") ? "race" : "fuse";
	/* A child that failed early has closed its pipe: EPIPE, not death. */
	signal(SIGPIPE, SIG_IGN);
	if (access("/dev/fuse", F_OK) && !access("/modules/fuse.ko", F_OK))
		UE_EQ("fuse.insmod", system("insmod /modules/fuse.ko"), 0);
	UE_EQ("fuse.mount", fuse_mount(), 0);
	if (fuse_fd < 0 || pthread_create(&daemon, NULL, fuse_daemon, NULL))
		return 1;
	file = open(MNT "/f", O_RDWR);
	UE_EQ("fuse.open", file >= 0, 1);
	if (file < 0)
		return 1;
	if (argc > 2 && !strcmp(argv[1], "aio-exit")) {
		aio_exit(argv[2]);
		goto out;
	}
	w = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, file, 0);
	UE_EQ("fuse.mmap", w != MAP_FAILED, 1);
	if (w == MAP_FAILED)
		return 1;

	/*
	 * DIAG_IOCSREG on the untouched page: its read is held. The other
	 * process is forked first: before the fix, the stuck fault also held
	 * this process's mmap lock, which fork() takes.
	 */
	c.word = (__u32 *)w;
	UE_EQ("fuse.fork_other", ue_child_ready(&other_reg, ue_others_work), 0);
	pthread_create(&reg, NULL, reg_fn, &c);
	UE_EQ("fuse.reg_reads_page", fuse_wait_reads(1), 1);
	usleep(200000);
	UE_EQ("fuse.reg_others_not_blocked", ue_child_run(&other_reg, NOT_BLOCKED_SECS), 1);
	UE_EQ("fuse.reg_answered", fuse_answer_reads() >= 1, 1);
	pthread_join(reg, NULL);
	if (other_reg.pid > 0)
		waitpid(other_reg.pid, NULL, 0);
	UE_EQ("fuse.reg_completes", c.ret, 0);

	/*
	 * The word's page dropped, and the file's page with it: enabling the
	 * event must not wait for the kernel's fault-in of the word.
	 */
	madvise((void *)w, FILE_SIZE, MADV_DONTNEED);
	UE_EQ("fuse.page_dropped", fuse_drop_page(file), 1);
	UE_EQ("fuse.fork_enabler", ue_child_ready(&enabler, enable_fuse_event), 0);
	UE_EQ("fuse.enable_not_blocked", ue_child_run(&enabler, NOT_BLOCKED_SECS), 1);
	UE_EQ("fuse.enable_reads_page", fuse_wait_reads(2), 1);
	UE_EQ("fuse.enable_answered", fuse_answer_reads() >= 1, 1);
	if (enabler.pid > 0)
		waitpid(enabler.pid, NULL, 0);
	UE_EQ("fuse.bit_set_once_answered", ue_wait_bits(w, 1, 1), 1);
	UE_EQ("fuse.disable", ue_enable("en_fuse", 0), 0);
	UE_EQ("fuse.bit_cleared", ue_wait_bits(w, 1, 0), 1);

	UE_EQ("fuse.unreg", ue_unreg(c.fd, (__u32 *)w, 0), 0);
	munmap((void *)w, FILE_SIZE);

	/* A first registration while the process's mmap lock is held. */
	mem_file = file;
	mem_locked();
	/* A process's mmap lock with a writer queued behind a stuck reader. */
	lock_queued();
	/* The same held by a reader, and 600 threads registering. */
	wedge();
	/* Many words stuck on one page, and another process's word. */
	many_words(file, c.fd);
out:
	close(file);
	close(c.fd);
	atomic_store(&unmounting, 1);
	UE_EQ("fuse.umount", umount2(MNT, MNT_DETACH), 0);
	fuse_answer_reads();
	close(fuse_fd);
	return ue_failures ? 1 : 0;
}
