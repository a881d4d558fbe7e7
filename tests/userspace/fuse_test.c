// SPDX-License-Identifier: GPL-2.0
/*
 * An enable word on a FUSE file whose daemon does not answer a read (issue
 * 12, item 2; spec 1.9 and 3.3): the fault that reads the page in waits on
 * user space for as long as the daemon likes. Only the thread that needs
 * the page may wait: another process registering, and an ftrace enable of
 * the event, must go on. Before the fix, kernels below 5.16 faulted the page
 * in under event_mutex (GUP without FOLL_NOFAULT), so both waited too.
 *
 * The daemon is a few lines over /dev/fuse (no libfuse: the test is static):
 * one directory with one 4 KiB file, "f". Reads are held until the test
 * answers them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>

#include "ue_abi.h"

#define MNT		"/tmp/ue_fuse"
#define FILE_SIZE	4096
#define ROOT_ID		1
#define FILE_ID		2
#define MAX_HELD	16

static int fuse_fd = -1;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { __u64 unique; __u32 size; } held[MAX_HELD];
static int nr_held, reads_seen;

static void fuse_reply(__u64 unique, int error, const void *data, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + FILE_SIZE];
	struct fuse_out_header *out = (void *)buf;

	out->len = sizeof(*out) + len;
	out->error = error;
	out->unique = unique;
	if (len)
		memcpy(buf + sizeof(*out), data, len);
	if (write(fuse_fd, buf, out->len) != (ssize_t)out->len)
		ue_result("fuse.daemon_reply", 0, strerror(errno));
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
		fuse_reply(in->unique, 0, &o.init, sizeof(o.init));
		break;
	case FUSE_LOOKUP:
		if (in->nodeid != ROOT_ID || strcmp(arg, "f")) {
			fuse_reply(in->unique, -ENOENT, NULL, 0);
			break;
		}
		o.entry.nodeid = FILE_ID;
		o.entry.entry_valid = 3600;
		o.entry.attr_valid = 3600;
		fuse_attr_of(FILE_ID, &o.entry.attr);
		fuse_reply(in->unique, 0, &o.entry, sizeof(o.entry));
		break;
	case FUSE_GETATTR:
		o.attr.attr_valid = 3600;
		fuse_attr_of(in->nodeid, &o.attr.attr);
		fuse_reply(in->unique, 0, &o.attr, sizeof(o.attr));
		break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		fuse_reply(in->unique, 0, &o.open, sizeof(o.open));
		break;
	case FUSE_READ:
		/* Held: the test answers it when it has seen who waits. */
		pthread_mutex_lock(&held_lock);
		reads_seen++;
		if (nr_held < MAX_HELD) {
			held[nr_held].unique = in->unique;
			held[nr_held].size = read->offset < FILE_SIZE ?
				FILE_SIZE - read->offset : 0;
			if (held[nr_held].size > read->size)
				held[nr_held].size = read->size;
			nr_held++;
		}
		pthread_mutex_unlock(&held_lock);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;
	case FUSE_FLUSH:
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
		fuse_reply(in->unique, 0, NULL, 0);
		break;
	default:
		fuse_reply(in->unique, -ENOSYS, NULL, 0);
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
		fuse_reply(held[i].unique, 0, zeros, held[i].size);
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
 * must first register a notifier on its address space, which takes that
 * lock for writing. Only the child may wait for it.
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
	UE_EQ("fuse.notifier_others_not_blocked", ue_child_run(&other, 5), 1);
	UE_EQ("fuse.mem_answered", fuse_answer_reads() >= 1, 1);
	if (other.pid > 0)
		waitpid(other.pid, NULL, 0);
	UE_EQ("fuse.mem_registered", ue_child_exit_status(locked.pid), 0);
}

int main(void)
{
	struct reg_call c = { .fd = ue_open_data() };
	struct ue_child other_reg, enabler;
	pthread_t daemon, reg;
	volatile __u32 *w;
	int file;

	ue_suite = "fuse";
	if (access("/dev/fuse", F_OK) && !access("/modules/fuse.ko", F_OK))
		UE_EQ("fuse.insmod", system("insmod /modules/fuse.ko"), 0);
	UE_EQ("fuse.mount", fuse_mount(), 0);
	if (fuse_fd < 0 || pthread_create(&daemon, NULL, fuse_daemon, NULL))
		return 1;
	file = open(MNT "/f", O_RDWR);
	UE_EQ("fuse.open", file >= 0, 1);
	if (file < 0)
		return 1;
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
	UE_EQ("fuse.reg_others_not_blocked", ue_child_run(&other_reg, 5), 1);
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
	UE_EQ("fuse.enable_not_blocked", ue_child_run(&enabler, 5), 1);
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
	close(file);
	close(c.fd);
	UE_EQ("fuse.umount", umount2(MNT, MNT_DETACH), 0);
	fuse_answer_reads();
	close(fuse_fd);
	return ue_failures ? 1 : 0;
}
