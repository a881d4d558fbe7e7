// SPDX-License-Identifier: GPL-2.0
/*
 * Descriptors and containers.
 *
 * scm_rights: a collector opens user_events_data and passes the descriptor
 * over SCM_RIGHTS to a program without the rights to open it. What the
 * program registers on it is on the same open file (the refs are the open
 * file's), its enable bit is written in its own memory, not in the opener's
 * at the same address (enablers are taken from current), and the opener's
 * exit ends neither its events nor their bits.
 *
 * mntns: a process in its own mount namespace, whose only tracefs mounts
 * are user_events_data and user_events_status bind-mounted into an empty
 * root (what a container sees), registers, writes and is traced, and its
 * bit follows the event as enabled from outside.
 *
 * second_mount: tracefs mounted a second time at another path is the same
 * superblock: registrations through either path's user_events_data make
 * one event, seen with the same files in both paths' events/user_events/,
 * enabled and traced through either.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "ue_abi.h"

#define NOBODY		65534
#define NSROOT		"/tmp/ue_fdpass_ns"
#define TRACEFS2	"/tmp/ue_fdpass_tracefs"
#define DEBUG_TRACING	"/sys/kernel/debug/tracing"
#define NO_EVENTS	"\nActive: 0\nBusy: 0\n"

/* The same addresses in every process forked from here. */
static volatile __u32 word = 0xa0;	/* the receiver's enable word */
static volatile __u32 oword = 0x50;	/* the opener's */

/* writev of [index][u32 value]: bytes written, or -errno. */
static long wr(int fd, int index, __u32 value)
{
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ &value, sizeof(value) },
	};
	long ret = writev(fd, io, 2);

	return ret < 0 ? -errno : ret;
}

/* A 32-bit word of another process's memory at @addr, or -1. */
static long long peek(pid_t pid, volatile __u32 *addr)
{
	__u32 v;
	struct iovec local = { &v, sizeof(v) };
	struct iovec remote = { (void *)addr, sizeof(v) };

	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != sizeof(v))
		return -1;
	return v;
}

/* A message of one byte that carries one descriptor (SCM_RIGHTS). */
struct fd_msg {
	char data;
	struct iovec io;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg;
};

static void fd_msg_init(struct fd_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->data = 'F';
	m->io.iov_base = &m->data;
	m->io.iov_len = 1;
	m->msg.msg_iov = &m->io;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->u.buf;
	m->msg.msg_controllen = sizeof(m->u.buf);
}

static int send_fd(int sock, int fd)
{
	struct fd_msg m;
	struct cmsghdr *c;

	fd_msg_init(&m);
	c = CMSG_FIRSTHDR(&m.msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m.msg, 0) == 1 ? 0 : -1;
}

/* The descriptor received on @sock, or -1. */
static int recv_fd(int sock)
{
	struct fd_msg m;
	struct cmsghdr *c;
	int fd;

	fd_msg_init(&m);
	if (recvmsg(sock, &m.msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m.msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* One step of a two-process script: write or wait for a byte. */
static void go(int p)
{
	if (write(p, "", 1) != 1)
		_exit(3);
}

static int wait_go(int p)
{
	char x;

	return read(p, &x, 1) == 1;
}

/* ---- scm_rights ---------------------------------------------------------- */

/* What the opener and the receiver did, for the parent to check. */
struct scm_state {
	int opener_fd, opener_reg, opener_index, opener_sent;
	int recv_become, recv_open_errno, recv_fd, recv_reg, recv_reg_errno;
	int recv_index;
};

static struct scm_state *scm;

/* A write the parent asks the receiver for: index, value; reply: result. */
struct scm_cmd {
	int index;
	__u32 value;
};

/*
 * The collector: opens, registers its own event, passes, says so on @sent
 * (the receiver may run on before the opener has stored what sendmsg()
 * returned), waits to exit.
 */
static void opener(int sock, int sent, int quit)
{
	__u32 idx = ~0u;
	int fd = open(TRACEFS "/user_events_data", O_RDWR);

	scm->opener_fd = fd >= 0;
	scm->opener_reg = ue_reg(fd, "fd_scm_opener u32 a", (__u32 *)&oword,
				 0, 0, &idx);
	scm->opener_index = idx;
	scm->opener_sent = !send_fd(sock, fd);
	go(sent);
	/* Its own copy stays open until it exits. */
	wait_go(quit);
	_exit(0);
}

/*
 * The program: no capability, no access to tracefs; registers and writes
 * on the descriptor it received.
 */
static void receiver(int sock, int cmd, int reply)
{
	struct scm_cmd c;
	__u32 idx = ~0u;
	gid_t nogroups[1] = { NOBODY };
	long ret;
	int fd;

	scm->recv_become = !setgroups(1, nogroups) &&
			   !setresgid(NOBODY, NOBODY, NOBODY) &&
			   !setresuid(NOBODY, NOBODY, NOBODY) &&
			   geteuid() == NOBODY;
	errno = 0;
	fd = open(TRACEFS "/user_events_data", O_RDWR);
	scm->recv_open_errno = fd < 0 ? errno : 0;
	fd = recv_fd(sock);
	scm->recv_fd = fd >= 0;
	errno = 0;
	scm->recv_reg = ue_reg(fd, "fd_scm u32 a", (__u32 *)&word, 0, 0, &idx);
	scm->recv_reg_errno = errno;
	scm->recv_index = idx;
	go(reply);
	while (read(cmd, &c, sizeof(c)) == sizeof(c)) {
		ret = wr(fd, c.index, c.value);
		if (write(reply, &ret, sizeof(ret)) != sizeof(ret))
			_exit(3);
	}
	_exit(0);
}

static long recv_write(int cmd, int reply, int index, __u32 value)
{
	struct scm_cmd c = { index, value };
	long ret = -1000;

	if (write(cmd, &c, sizeof(c)) != sizeof(c) ||
	    read(reply, &ret, sizeof(ret)) != sizeof(ret))
		return -1000;
	return ret;
}

static void scm_rights(void)
{
	int sv[2], sent[2], quit[2], cmd[2], reply[2];
	pid_t op, rp;
	char status[256];

	/*
	 * Our debug kernels are built from allnoconfig without CONFIG_NET
	 * (tests/kernel/), so they have no sockets at all: said, not failed.
	 * Every Debian kernel has AF_UNIX, where ENOSYS cannot happen.
	 */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		if (errno == ENOSYS)
			printf("UE-INFO fdpass: scm_rights not run: this kernel has no sockets (ENOSYS; our debug kernels are built without CONFIG_NET)\n");
		else
			ue_result("scm_rights.setup", 0, strerror(errno));
		return;
	}
	scm = mmap(NULL, sizeof(*scm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (scm == MAP_FAILED || pipe(sent) || pipe(quit) || pipe(cmd) ||
	    pipe(reply)) {
		ue_result("scm_rights.setup", 0, strerror(errno));
		return;
	}
	memset(scm, 0, sizeof(*scm));
	fflush(stdout);
	op = fork();
	if (!op) {
		close(sent[0]);
		close(quit[1]);
		opener(sv[0], sent[1], quit[0]);
	}
	close(sent[1]);
	close(quit[0]);
	rp = fork();
	if (!rp) {
		close(sent[0]);
		close(quit[1]);
		close(cmd[1]);
		close(reply[0]);
		receiver(sv[1], cmd[0], reply[1]);
	}
	close(cmd[0]);
	close(reply[1]);
	close(sv[0]);
	close(sv[1]);
	UE_EQ("scm_rights.opener_done", wait_go(sent[0]), 1);
	close(sent[0]);
	UE_EQ("scm_rights.receiver_ready", wait_go(reply[0]), 1);

	/* The opener's registration is on the open file the receiver has. */
	UE_EQ("scm_rights.opener_open", scm->opener_fd, 1);
	UE_EQ("scm_rights.opener_reg", scm->opener_reg, 0);
	UE_EQ("scm_rights.opener_index", scm->opener_index, 0);
	UE_EQ("scm_rights.sent", scm->opener_sent, 1);
	UE_EQ("scm_rights.receiver_unprivileged", scm->recv_become, 1);
	UE_EQ("scm_rights.receiver_open_eacces", scm->recv_open_errno, EACCES);
	UE_EQ("scm_rights.received", scm->recv_fd, 1);
	UE_EQ("scm_rights.receiver_reg", scm->recv_reg, 0);
	UE_EQ("scm_rights.receiver_reg_errno", scm->recv_reg_errno, 0);
	UE_EQ("scm_rights.receiver_index_same_file", scm->recv_index, 1);
	UE_EQ("scm_rights.event_made", ue_exists(EVENTS "/fd_scm/enable"), 1);
	UE_EQ("scm_rights.receiver_disabled_ebadf",
	      recv_write(cmd[1], reply[0], 1, 1), -EBADF);

	/* The receiver's event: its bit, in its memory only. */
	UE_EQ("scm_rights.receiver_word_before", peek(rp, &word), 0xa0);
	UE_EQ("scm_rights.enable", ue_enable("fd_scm", 1), 0);
	UE_EQ("scm_rights.receiver_bit_set", peek(rp, &word), 0xa1);
	UE_EQ("scm_rights.opener_word_untouched", peek(op, &word), 0xa0);
	UE_EQ("scm_rights.opener_bit_untouched", peek(op, &oword), 0x50);
	ue_trace_clear();
	UE_EQ("scm_rights.receiver_write", recv_write(cmd[1], reply[0], 1, 0x1234), 8);
	UE_EQ("scm_rights.receiver_traced", ue_trace_has("fd_scm: a=0x1234 (4660)"), 1);
	UE_EQ("scm_rights.disable", ue_enable("fd_scm", 0), 0);
	UE_EQ("scm_rights.receiver_bit_cleared", peek(rp, &word), 0xa0);

	/* The opener's event: its bit, in its memory only. */
	UE_EQ("scm_rights.opener_enable", ue_enable("fd_scm_opener", 1), 0);
	UE_EQ("scm_rights.opener_bit_set", peek(op, &oword), 0x51);
	UE_EQ("scm_rights.opener_enable_receiver_untouched", peek(rp, &oword), 0x50);
	UE_EQ("scm_rights.opener_enable_receiver_word_untouched", peek(rp, &word), 0xa0);
	ue_trace_clear();
	/* Any holder of the file writes any event registered on it. */
	UE_EQ("scm_rights.receiver_writes_opener_event",
	      recv_write(cmd[1], reply[0], 0, 0x77), 8);
	UE_EQ("scm_rights.opener_event_traced", ue_trace_has("fd_scm_opener: a=0x77 (119)"), 1);
	UE_EQ("scm_rights.opener_disable", ue_enable("fd_scm_opener", 0), 0);
	UE_EQ("scm_rights.opener_bit_cleared", peek(op, &oword), 0x50);

	/* The opener exits: the receiver's events and bits go on. */
	close(quit[1]);
	UE_EQ("scm_rights.opener_exit", ue_child_exit_status(op), 0);
	ue_read_text(TRACEFS "/user_events_status", status, sizeof(status));
	UE_EQ("after_exit.event_exists", ue_exists(EVENTS "/fd_scm/enable"), 1);
	UE_EQ("after_exit.opener_event_exists", ue_exists(EVENTS "/fd_scm_opener/enable"), 1);
	UE_EQ("after_exit.disabled_ebadf", recv_write(cmd[1], reply[0], 1, 2), -EBADF);
	UE_EQ("after_exit.word_before", peek(rp, &word), 0xa0);
	UE_EQ("after_exit.enable", ue_enable("fd_scm", 1), 0);
	UE_EQ("after_exit.bit_set", peek(rp, &word), 0xa1);
	ue_trace_clear();
	UE_EQ("after_exit.write", recv_write(cmd[1], reply[0], 1, 0x5678), 8);
	UE_EQ("after_exit.traced", ue_trace_has("fd_scm: a=0x5678 (22136)"), 1);
	UE_EQ("after_exit.disable", ue_enable("fd_scm", 0), 0);
	UE_EQ("after_exit.bit_cleared", peek(rp, &word), 0xa0);
	UE_EQ("after_exit.disabled_again_ebadf", recv_write(cmd[1], reply[0], 1, 3), -EBADF);
	UE_EQ("after_exit.opener_enable", ue_enable("fd_scm_opener", 1), 0);
	UE_EQ("after_exit.opener_enable_receiver_untouched", peek(rp, &oword), 0x50);
	ue_trace_clear();
	UE_EQ("after_exit.opener_event_write", recv_write(cmd[1], reply[0], 0, 0x99), 8);
	UE_EQ("after_exit.opener_event_traced", ue_trace_has("fd_scm_opener: a=0x99 (153)"), 1);
	UE_EQ("after_exit.opener_disable", ue_enable("fd_scm_opener", 0), 0);

	/* The last holder exits: nothing is left. */
	close(cmd[1]);
	UE_EQ("scm_rights.receiver_exit", ue_child_exit_status(rp), 0);
	close(reply[0]);
	ue_read_text(TRACEFS "/user_events_status", status, sizeof(status));
	UE_STREQ("scm_rights.no_events_left", status, NO_EVENTS);
	UE_EQ("scm_rights.event_gone", ue_exists(EVENTS "/fd_scm"), 0);
	UE_EQ("scm_rights.opener_event_gone", ue_exists(EVENTS "/fd_scm_opener"), 0);
	munmap(scm, sizeof(*scm));
}

/* ---- mntns --------------------------------------------------------------- */

/*
 * Unmount every tracefs and debugfs mount of this namespace outside
 * @keep (the bind mounts); the number of such mounts left.
 */
static int umount_tracefs(const char *keep)
{
	static char buf[1 << 16];
	char *mnts[64], *line, *sep, *save;
	char mp[512], type[64];
	int n = 0, left = 0, pass;

	for (pass = 0; pass < 2; pass++) {
		if (ue_read_text("/proc/self/mountinfo", buf, sizeof(buf)) < 0)
			return -1;
		n = 0;
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			sep = strstr(line, " - ");
			if (!sep || sscanf(line, "%*s %*s %*s %*s %511s", mp) != 1 ||
			    sscanf(sep, " - %63s", type) != 1)
				continue;
			if ((strcmp(type, "tracefs") && strcmp(type, "debugfs")) ||
			    !strncmp(mp, keep, strlen(keep)))
				continue;
			if (n < 64)
				mnts[n++] = strdup(mp);
		}
		if (pass == 1)
			break;
		/* The later ones first: a mount's submounts follow it. */
		while (n--) {
			umount2(mnts[n], MNT_DETACH);
			free(mnts[n]);
		}
	}
	left = n;
	while (n--)
		free(mnts[n]);
	return left;
}

/* Count the lines of /proc/self/mountinfo with filesystem type @type. */
static int count_mounts(const char *type, char *mps, size_t size)
{
	static char buf[1 << 16];
	char *line, *sep, *save, mp[512], t[64];
	int n = 0;

	mps[0] = '\0';
	if (ue_read_text("/proc/self/mountinfo", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %511s", mp) != 1 ||
		    sscanf(sep, " - %63s", t) != 1 || strcmp(t, type))
			continue;
		n++;
		strncat(mps, mp, size - strlen(mps) - 2);
		strcat(mps, " ");
	}
	return n;
}

static int bind_file(const char *name)
{
	char src[256], dst[256];
	int fd;

	snprintf(src, sizeof(src), TRACEFS "/%s", name);
	snprintf(dst, sizeof(dst), NSROOT TRACEFS "/%s", name);
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return mount(src, dst, NULL, MS_BIND, NULL);
}

/* The container: its own namespace, an empty root, two bind mounts. */
static void container(int to_parent, int from_parent)
{
	char status[256], mps[1024];
	__u32 idx = ~0u;
	int fd;

	ue_failures = 0;	/* (the parent's, counted there) */
	UE_EQ("mntns.unshare", unshare(CLONE_NEWNS), 0);
	UE_EQ("mntns.private", mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	UE_EQ("mntns.tmpfs", mount("tmpfs", NSROOT, "tmpfs", 0, "mode=0755"), 0);
	UE_EQ("mntns.mkdir", mkdir(NSROOT "/sys", 0755) || mkdir(NSROOT "/sys/kernel", 0755) ||
	      mkdir(NSROOT TRACEFS, 0755) || mkdir(NSROOT "/proc", 0755), 0);
	UE_EQ("mntns.bind_data", bind_file("user_events_data"), 0);
	UE_EQ("mntns.bind_status", bind_file("user_events_status"), 0);
	/* No tracefs mount of the namespace is left but the two files. */
	UE_EQ("mntns.tracefs_unmounted", umount_tracefs(NSROOT), 0);
	UE_EQ("mntns.chdir", chdir(NSROOT), 0);
	UE_EQ("mntns.move_root", mount(".", "/", NULL, MS_MOVE, NULL), 0);
	UE_EQ("mntns.chroot", chroot("."), 0);
	UE_EQ("mntns.chdir_root", chdir("/"), 0);
	UE_EQ("mntns.proc", mount("proc", "/proc", "proc", 0, NULL), 0);
	UE_EQ("mntns.tracefs_mounts", count_mounts("tracefs", mps, sizeof(mps)), 2);
	UE_STREQ("mntns.tracefs_mount_points", mps,
		 TRACEFS "/user_events_data " TRACEFS "/user_events_status ");
	UE_EQ("mntns.debugfs_mounts", count_mounts("debugfs", mps, sizeof(mps)), 0);
	UE_ERRNO("mntns.no_trace_file", open(TRACEFS "/trace", O_RDONLY), ENOENT);
	UE_ERRNO("mntns.no_events_dir", open(TRACEFS "/events", O_RDONLY), ENOENT);

	fd = open(TRACEFS "/user_events_data", O_RDWR);
	UE_EQ("mntns.open", fd >= 0, 1);
	UE_EQ("mntns.reg", ue_reg(fd, "fd_mntns u32 a", (__u32 *)&word, 0, 0, &idx), 0);
	UE_EQ("mntns.index", idx, 0);
	UE_EQ("mntns.reg_clears_bit", word, 0xa0);
	ue_read_text(TRACEFS "/user_events_status", status, sizeof(status));
	UE_STREQ("mntns.status", status, "fd_mntns\n\nActive: 1\nBusy: 0\n");
	UE_EQ("mntns.disabled_ebadf", wr(fd, idx, 1), -EBADF);
	go(to_parent);

	/* Enabled from outside. */
	wait_go(from_parent);
	UE_EQ("mntns.bit_set", ue_wait_bits(&word, 1, 1), 1);
	UE_EQ("mntns.word_enabled", word, 0xa1);
	ue_read_text(TRACEFS "/user_events_status", status, sizeof(status));
	UE_STREQ("mntns.status_enabled", status,
		 "fd_mntns # Used by ftrace\n\nActive: 1\nBusy: 1\n");
	UE_EQ("mntns.write", wr(fd, idx, 0x4242), 8);
	go(to_parent);

	/* Disabled from outside. */
	wait_go(from_parent);
	UE_EQ("mntns.bit_cleared", word, 0xa0);
	UE_EQ("mntns.disabled_again_ebadf", wr(fd, idx, 2), -EBADF);
	/* Its enabler and its file were the event's last users. */
	UE_EQ("mntns.unreg", ue_unreg(fd, (__u32 *)&word, 0), 0);
	close(fd);
	ue_read_text(TRACEFS "/user_events_status", status, sizeof(status));
	UE_STREQ("mntns.status_closed", status, NO_EVENTS);
}

static void mntns(void)
{
	int up[2], down[2];
	char status[256];
	pid_t pid;

	if (pipe(up) || pipe(down) || (mkdir(NSROOT, 0755) && errno != EEXIST)) {
		ue_result("mntns.setup", 0, strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(up[0]);
		close(down[1]);
		container(up[1], down[0]);
		fflush(stdout);
		_exit(ue_failures ? 1 : 0);
	}
	close(up[1]);
	close(down[0]);
	UE_EQ("mntns.registered", wait_go(up[0]), 1);
	UE_EQ("mntns.event_outside", ue_exists(EVENTS "/fd_mntns/enable"), 1);
	/* The namespace's mounts are its own. */
	UE_EQ("mntns.tmpfs_not_outside", ue_exists(NSROOT TRACEFS), 0);
	ue_trace_clear();
	UE_EQ("mntns.enable", ue_enable("fd_mntns", 1), 0);
	go(down[1]);
	UE_EQ("mntns.written", wait_go(up[0]), 1);
	UE_EQ("mntns.traced", ue_trace_has("fd_mntns: a=0x4242 (16962)"), 1);
	UE_EQ("mntns.disable", ue_enable("fd_mntns", 0), 0);
	go(down[1]);
	UE_EQ("mntns.exit", ue_child_exit_status(pid), 0);
	close(up[0]);
	close(down[1]);
	ue_read_text(TRACEFS "/user_events_status", status, sizeof(status));
	UE_STREQ("mntns.no_events_left", status, NO_EVENTS);
	UE_EQ("mntns.event_gone", ue_exists(EVENTS "/fd_mntns"), 0);
	UE_EQ("mntns.rmdir", rmdir(NSROOT), 0);
}

/* ---- second_mount -------------------------------------------------------- */

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Whether @path's "trace" file has a line containing @needle. */
static int trace_has_at(const char *path, const char *needle)
{
	static char buf[1 << 20];
	char p[256];

	snprintf(p, sizeof(p), "%s/trace", path);
	if (ue_read_text(p, buf, sizeof(buf)) < 0)
		return 0;
	return strstr(buf, needle) != NULL;
}

/* Both paths' user_events/fd_second/@file, identical and not empty. */
static void same_text(const char *name, const char *file)
{
	static char a[16384], b[16384];
	char p[256];
	int ra, rb;

	snprintf(p, sizeof(p), EVENTS "/fd_second/%s", file);
	ra = ue_read_text(p, a, sizeof(a));
	snprintf(p, sizeof(p), TRACEFS2 "/events/user_events/fd_second/%s", file);
	rb = ue_read_text(p, b, sizeof(b));
	if (ra <= 0 || rb <= 0) {
		char d[64];

		snprintf(d, sizeof(d), "read %d and %d bytes", ra, rb);
		ue_result(name, 0, d);
		return;
	}
	UE_STREQ(name, b, a);
}

static void second_mount(void)
{
	static __u32 w1, w2;
	char s1[256], s2[256];
	__u32 i1 = ~0u, i2 = ~0u;
	struct stat root, data, st;
	int fd1, fd2;

	if ((mkdir(TRACEFS2, 0755) && errno != EEXIST) || stat(TRACEFS, &root) ||
	    stat(TRACEFS "/user_events_data", &data)) {
		ue_result("second_mount.setup", 0, strerror(errno));
		return;
	}
	/* As a container's runtime mounts it: no options. */
	UE_EQ("second_mount.mount", mount("nodev", TRACEFS2, "tracefs", 0, NULL), 0);
	UE_EQ("second_mount.data_mode_kept", stat(TRACEFS "/user_events_data", &st) == 0 &&
	      st.st_mode == data.st_mode && st.st_uid == data.st_uid &&
	      st.st_gid == data.st_gid, 1);
	UE_EQ("second_mount.same_data_file",
	      same_file(TRACEFS "/user_events_data", TRACEFS2 "/user_events_data"), 1);

	/* Made through the second path: seen in both. */
	fd2 = open(TRACEFS2 "/user_events_data", O_RDWR);
	UE_EQ("second_mount.open2", fd2 >= 0, 1);
	UE_EQ("second_mount.reg2", ue_reg(fd2, "fd_second u32 a", &w2, 0, 0, &i2), 0);
	UE_EQ("second_mount.index2", i2, 0);
	UE_EQ("second_mount.dir1", ue_exists(EVENTS "/fd_second/enable"), 1);
	UE_EQ("second_mount.dir2", ue_exists(TRACEFS2 "/events/user_events/fd_second/enable"), 1);
	same_text("second_mount.format_same", "format");
	same_text("second_mount.id_same", "id");

	/* The same event through the first path. */
	fd1 = open(TRACEFS "/user_events_data", O_RDWR);
	UE_EQ("second_mount.open1", fd1 >= 0, 1);
	UE_EQ("second_mount.reg1", ue_reg(fd1, "fd_second u32 a", &w1, 0, 0, &i1), 0);
	UE_EQ("second_mount.index1", i1, 0);
	ue_read_text(TRACEFS "/user_events_status", s1, sizeof(s1));
	ue_read_text(TRACEFS2 "/user_events_status", s2, sizeof(s2));
	UE_STREQ("second_mount.status1", s1, "fd_second\n\nActive: 1\nBusy: 0\n");
	UE_STREQ("second_mount.status2", s2, s1);

	/* Enabled through the second path, traced through both. */
	ue_write_text(TRACEFS2 "/trace", "", O_TRUNC);
	UE_EQ("second_mount.enable2",
	      ue_write_text(TRACEFS2 "/events/user_events/fd_second/enable", "1", O_TRUNC), 0);
	UE_EQ("second_mount.enable2_bit1", w1, 1);
	UE_EQ("second_mount.enable2_bit2", w2, 1);
	ue_read_text(EVENTS "/fd_second/enable", s1, sizeof(s1));
	UE_STREQ("second_mount.enabled_in1", s1, "1\n");
	UE_EQ("second_mount.write1", wr(fd1, i1, 0x1111), 8);
	UE_EQ("second_mount.write2", wr(fd2, i2, 0x2222), 8);
	UE_EQ("second_mount.traced1_in1", trace_has_at(TRACEFS, "fd_second: a=0x1111 (4369)"), 1);
	UE_EQ("second_mount.traced2_in1", trace_has_at(TRACEFS, "fd_second: a=0x2222 (8738)"), 1);
	UE_EQ("second_mount.traced1_in2", trace_has_at(TRACEFS2, "fd_second: a=0x1111 (4369)"), 1);
	UE_EQ("second_mount.traced2_in2", trace_has_at(TRACEFS2, "fd_second: a=0x2222 (8738)"), 1);
	/* Disabled through the first path. */
	UE_EQ("second_mount.disable1", ue_enable("fd_second", 0), 0);
	UE_EQ("second_mount.disable1_bit1", w1, 0);
	UE_EQ("second_mount.disable1_bit2", w2, 0);
	UE_EQ("second_mount.disabled_ebadf", wr(fd2, i2, 3), -EBADF);

	/* The path debugfs gives tracefs (an automount) is the same too. */
	if (ue_exists(DEBUG_TRACING "/user_events_data")) {
		UE_EQ("second_mount.debug_same_data_file",
		      same_file(TRACEFS "/user_events_data", DEBUG_TRACING "/user_events_data"), 1);
		UE_EQ("second_mount.debug_event_dir",
		      ue_exists(DEBUG_TRACING "/events/user_events/fd_second/enable"), 1);
	} else {
		printf("# no %s: debugfs not mounted\n", DEBUG_TRACING);
	}

	/* Unmounted: the event and the first path go on. */
	UE_EQ("second_mount.unreg2", ue_unreg(fd2, &w2, 0), 0);
	close(fd2);
	UE_EQ("second_mount.umount", umount(TRACEFS2), 0);
	UE_EQ("second_mount.unmounted", ue_exists(TRACEFS2 "/user_events_data"), 0);
	UE_EQ("second_mount.event_left", ue_exists(EVENTS "/fd_second/enable"), 1);
	ue_trace_clear();
	UE_EQ("second_mount.enable1", ue_enable("fd_second", 1), 0);
	UE_EQ("second_mount.enable1_bit1", w1, 1);
	UE_EQ("second_mount.write_after_umount", wr(fd1, i1, 0x3333), 8);
	UE_EQ("second_mount.traced_after_umount", ue_trace_has("fd_second: a=0x3333 (13107)"), 1);
	UE_EQ("second_mount.disable_after_umount", ue_enable("fd_second", 0), 0);
	UE_EQ("second_mount.unreg1", ue_unreg(fd1, &w1, 0), 0);
	close(fd1);
	ue_read_text(TRACEFS "/user_events_status", s1, sizeof(s1));
	UE_STREQ("second_mount.no_events_left", s1, NO_EVENTS);
	UE_EQ("second_mount.rmdir", rmdir(TRACEFS2), 0);
	/*
	 * A tracefs that set its root's mode and owner to the options' at
	 * every mount would undo a chgrp of the root made for group access:
	 * say so, and give it back to the suites after.
	 */
	if (stat(TRACEFS, &st))
		memset(&st, 0, sizeof(st));
	UE_EQ("second_mount.root_kept", st.st_mode == root.st_mode &&
	      st.st_uid == root.st_uid && st.st_gid == root.st_gid, 1);
	if (st.st_mode != root.st_mode || st.st_uid != root.st_uid || st.st_gid != root.st_gid) {
		printf("# the tracefs root was mode %o group %u, is %o group %u\n",
		       root.st_mode & 07777, root.st_gid, st.st_mode & 07777, st.st_gid);
		if (chown(TRACEFS, root.st_uid, root.st_gid) ||
		    chmod(TRACEFS, root.st_mode & 07777))
			ue_result("second_mount.root_restored", 0, strerror(errno));
	}
}

int main(void)
{
	ue_suite = "fdpass";
	scm_rights();
	mntns();
	second_mount();
	return ue_failures ? 1 : 0;
}
