/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the ABI suites: registering through user_events_data, and
 * reading and writing tracefs files.
 */
#ifndef UE_ABI_H
#define UE_ABI_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/user_events.h>
#include <sys/syscall.h>

#include "ue_test.h"

#define TRACEFS "/sys/kernel/tracing"

/* An unmapped user address, hidden from the compiler's buffer checks. */
static void *volatile ue_bad_ptr = (void *)8;
#define EVENTS TRACEFS "/events/user_events"

static inline int ue_open_data(void)
{
	return open(TRACEFS "/user_events_data", O_RDWR);
}

/* DIAG_IOCSREG of @cmd with a @size-byte enable word; the ioctl's result. */
static inline int ue_reg_sized(int fd, const char *cmd, void *word, int size,
			       int bit, int flags, __u32 *index)
{
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = bit,
		.enable_size = size,
		.flags = flags,
		.enable_addr = (__u64)(uintptr_t)word,
		.name_args = (__u64)(uintptr_t)cmd,
	};
	int ret = ioctl(fd, DIAG_IOCSREG, &reg);

	if (!ret && index)
		*index = reg.write_index;
	return ret;
}

/* DIAG_IOCSREG of @cmd with a 4-byte enable word; the ioctl's result. */
static inline int ue_reg(int fd, const char *cmd, __u32 *word, int bit,
			 int flags, __u32 *index)
{
	return ue_reg_sized(fd, cmd, word, sizeof(*word), bit, flags, index);
}

/* DIAG_IOCSUNREG of a 4-byte word's bit; the ioctl's result. */
static inline int ue_unreg(int fd, __u32 *word, int bit)
{
	struct user_unreg u = {
		.size = sizeof(u),
		.disable_bit = bit,
		.disable_addr = (__u64)(uintptr_t)word,
	};

	return ioctl(fd, DIAG_IOCSUNREG, &u);
}

/*
 * Run @fn in a child process: its exit releases every enabler and file it
 * had, so the parent can check what is left. The child's
 * results are its own lines; it exits 1 after a failed one. Returns its
 * exit status (-1 if it did not exit), and counts a failure if not 0.
 */
static inline int ue_in_child(void (*fn)(void))
{
	int status = -1;
	pid_t pid = fork();

	if (!pid) {
		fn();
		fflush(stdout);
		_exit(ue_failures ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (status)
		ue_failures++;
	return status;
}

static inline int ue_del(int fd, const char *name)
{
	return ioctl(fd, DIAG_IOCSDEL, name);
}

/* Write @text to @path; 0 or -errno. */
static inline int ue_write_text(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Read up to @size - 1 bytes of @path into @buf; bytes read or -errno. */
static inline int ue_read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, total = 0;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	buf[total] = '\0';
	close(fd);
	return n < 0 ? -errno : (int)total;
}

/*
 * The size of the record header, struct trace_entry, where an event's fields
 * start and from which a __data_loc offset counts, from the common fields of
 * user_events/@name's format file: the end of the last common_ field, rounded
 * up to the alignment of the widest (the struct's). 8 on Debian's kernels; 12
 * on the 5.10 rt kernel, whose common_migrate_disable and
 * common_preempt_lazy_count end at byte 10. -1 if the file has no common
 * field (named common_...).
 */
static inline int ue_entry_size(const char *name)
{
	static char buf[16384];
	char path[512], *line, *f;
	int end = -1, align = 1, off, size;

	snprintf(path, sizeof(path), EVENTS "/%s/format", name);
	if (ue_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	/* (the common fields: those before the first empty line) */
	f = strstr(buf, "\n\n");
	if (f)
		*f = '\0';
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		f = strstr(line, "\toffset:");
		if (!strstr(line, "\tfield:") || !strstr(line, " common_") || !f ||
		    sscanf(f, "\toffset:%d;\tsize:%d;", &off, &size) != 2)
			continue;
		if (off + size > end)
			end = off + size;
		if (size > align && size <= 8)
			align = size;
	}
	return end < 0 ? -1 : (end + align - 1) / align * align;
}

static inline int ue_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Enable or disable user_events/@name in the top trace instance. */
static inline int ue_enable(const char *name, int on)
{
	char path[512];

	snprintf(path, sizeof(path), EVENTS "/%s/enable", name);
	return ue_write_text(path, on ? "1" : "0", O_TRUNC);
}

static inline void ue_trace_clear(void)
{
	ue_write_text(TRACEFS "/trace", "", O_TRUNC);
}

/* Whether the "trace" file has a line containing @needle. */
static inline int ue_trace_has(const char *needle)
{
	static char buf[1 << 20];

	if (ue_read_text(TRACEFS "/trace", buf, sizeof(buf)) < 0)
		return 0;
	return strstr(buf, needle) != NULL;
}

/* A perf tracepoint event's attributes for user_events/@name: 0 or -1. */
static inline int ue_perf_attr(const char *name, struct perf_event_attr *pe)
{
	char path[256], id[32];

	memset(pe, 0, sizeof(*pe));
	snprintf(path, sizeof(path), EVENTS "/%s/id", name);
	if (ue_read_text(path, id, sizeof(id)) < 0)
		return -1;
	pe->type = PERF_TYPE_TRACEPOINT;
	pe->size = sizeof(*pe);
	pe->config = atoi(id);
	return 0;
}

/* A perf tracepoint event on user_events/@name for this process. */
static inline int ue_perf_open(const char *name)
{
	struct perf_event_attr pe;

	if (ue_perf_attr(name, &pe))
		return -1;
	pe.sample_type = PERF_SAMPLE_RAW;
	pe.sample_period = 1;
	pe.wakeup_events = 1;
	return syscall(__NR_perf_event_open, &pe, 0, -1, -1, 0);
}

/* Where a blocked task waits, for the log. */
static inline void ue_show_stack(pid_t pid)
{
	char path[64], buf[2048];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (ue_read_text(path, buf, sizeof(buf)) < 0)
		return;
	for (i = 0; buf[i]; i++)
		if (buf[i] == '\n')
			buf[i] = ' ';
	printf("# pid %d waits in: %s\n", pid, buf);
}

/*
 * Wait up to five seconds for *@word & @mask to become @want: an enable bit
 * written from the fault worker may take over a second on the debug kernel
 * under a loaded host (seen: enable.fork.child_sees_enable with a one-second
 * wait, beside two other VMs). Every caller waits for a state it expects, so
 * the wait ends as soon as it holds.
 */
static inline int ue_wait_bits(volatile __u32 *word, __u32 mask, __u32 want)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	for (i = 0; i < 500; i++) {
		if ((*word & mask) == want)
			return 1;
		nanosleep(&ts, NULL);
	}
	return (*word & mask) == want;
}

/*
 * A child forked ahead of time, to run a function on a signal: forking
 * later could itself wait (on the mmap lock a stuck fault holds).
 */
struct ue_child {
	pid_t	pid;
	int	go;		/* write end of the child's pipe */
};

static inline int ue_child_ready(struct ue_child *c, int (*fn)(void))
{
	int p[2];
	char x;

	if (pipe(p))
		return -1;
	c->pid = fork();
	if (!c->pid) {
		close(p[1]);
		_exit(read(p[0], &x, 1) != 1 || fn() ? 1 : 0);
	}
	close(p[0]);
	c->go = p[1];
	return c->pid < 0 ? -1 : 0;
}

/*
 * Let the child run: 1 if its function returned 0 within @secs seconds, 0
 * if it is still running (c->pid is left to reap once it is unblocked), -1
 * if it failed.
 */
static inline int ue_child_run(struct ue_child *c, int secs)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i, status;

	if (write(c->go, "", 1) != 1)
		return -1;
	close(c->go);
	for (i = 0; i < secs * 100; i++) {
		if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
			c->pid = 0;
			return WIFEXITED(status) && !WEXITSTATUS(status) ? 1 : -1;
		}
		nanosleep(&ts, NULL);
	}
	ue_show_stack(c->pid);
	return 0;
}

/* Reap a child: its exit status, or -1 if it did not exit normally. */
static inline int ue_child_exit_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Fork a child for @fn now and run it: as ue_child_run(); *@pid to reap. */
static inline int ue_child_within(int (*fn)(void), int secs, pid_t *pid)
{
	struct ue_child c = { .pid = 0 };
	int ret = ue_child_ready(&c, fn) ? -1 : ue_child_run(&c, secs);

	*pid = c.pid;
	return ret;
}

/* What another user does: read user_events_status, register, unregister. */
static inline int ue_others_work(void)
{
	static __u32 w;
	char buf[4096];
	int fd = ue_open_data();

	if (ue_read_text(TRACEFS "/user_events_status", buf, sizeof(buf)) < 0 ||
	    ue_reg(fd, "en_other u32 a", &w, 0, 0, NULL) ||
	    ue_unreg(fd, &w, 0))
		return -1;
	return 0;
}

#endif /* UE_ABI_H */
