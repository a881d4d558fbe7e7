// SPDX-License-Identifier: GPL-2.0
/*
 * Started by the test VM's /init before the suites: keeps the kernel's
 * static branches and static calls of the scheduler's hot paths switched
 * on for the whole VM, so that nothing a suite does patches them again.
 *
 * Why: QEMU 7.2's multi-threaded TCG (Debian 12's) sometimes runs a stale
 * int3 when a guest patches kernel text that the other vCPU is executing
 * (docs/testing.md, "Two CPUs"). The text the suites patch most is in
 * __schedule and try_to_wake_up: the first ftrace event turned on
 * registers the cmdline recorder on sched_switch, sched_wakeup and
 * sched_wakeup_new (each a tracepoint's static key and static call), and
 * the first perf event bound to a task enables perf_sched_events. Each
 * loading and unloading of the module adds and removes a probe on
 * task_newtask, in copy_process. A static key is patched only when its
 * first user comes and its last goes, a tracepoint's static call when its
 * probes go from one to two and back; so held users stop the patching:
 *   - two ftrace instances of our own, "ue_keyhold" and "ue_keyhold2",
 *     with tracing off and a 4 KB buffer. In the first, sched_kthread_stop
 *     enabled (an event that almost never fires), with record-cmd on as an
 *     instance inherits it from the top level at boot: the cmdline
 *     recorder stays registered. In both, task_newtask enabled: two probes
 *     there before the module adds its own;
 *   - a dummy software perf event bound to this process: a task's event.
 * The suites' toggles then change counts, not code. What they test is
 * unchanged: user_events' tracepoints are data, not kernel text.
 *
 * Forks a child that sets both up and then sleeps forever; the parent
 * exits 0 once the child has both, or prints what failed and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define INSTANCES "/sys/kernel/tracing/instances/"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* In instance NAME: tracing off, the least buffer, EVENTS enabled. */
static int instance(const char *name, const char *const *events, char *msg,
		    size_t len)
{
	const char *const setup[][2] = {
		{ "tracing_on", "0" },
		{ "buffer_size_kb", "4" },
	};
	char path[200];
	unsigned int i;

	snprintf(path, sizeof(path), INSTANCES "%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		goto fail;
	for (i = 0; i < ARRAY_SIZE(setup); i++) {
		snprintf(path, sizeof(path), INSTANCES "%s/%s", name, setup[i][0]);
		if (write_file(path, setup[i][1]))
			goto fail;
	}
	for (i = 0; events[i]; i++) {
		snprintf(path, sizeof(path), INSTANCES "%s/events/%s/enable",
			 name, events[i]);
		if (write_file(path, "1"))
			goto fail;
	}
	return 0;
fail:
	snprintf(msg, len, "%s: %s", path, strerror(errno));
	return -1;
}

/* The holds; on failure, a line saying which in msg. */
static int hold(char *msg, size_t len)
{
	static const char *const first[] = {
		"sched/sched_kthread_stop", "task/task_newtask", NULL
	};
	static const char *const second[] = { "task/task_newtask", NULL };
	struct perf_event_attr pe;

	if (instance("ue_keyhold", first, msg, len) ||
	    instance("ue_keyhold2", second, msg, len))
		return -1;
	memset(&pe, 0, sizeof(pe));
	pe.size = sizeof(pe);
	pe.type = PERF_TYPE_SOFTWARE;
	pe.config = PERF_COUNT_SW_DUMMY;
	pe.disabled = 1;
	/* pid 0, any CPU: bound to this task; the fd stays open for good. */
	if (syscall(SYS_perf_event_open, &pe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC) < 0) {
		snprintf(msg, len, "perf_event_open(dummy, this task): %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

int main(void)
{
	char msg[320] = "";
	int p[2];
	ssize_t n;
	pid_t pid;
	int fd;

	if (pipe(p))
		return perror("pipe"), 1;
	pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		close(p[0]);
		if (hold(msg, sizeof(msg)) == 0)
			snprintf(msg, sizeof(msg), "OK");
		if (write(p[1], msg, strlen(msg)) < 0)
			return 1;
		close(p[1]);
		/* Nobody waits for this process's output: a caller's $(...) ends. */
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setsid();
		for (;;)
			pause();
	}
	close(p[1]);
	n = read(p[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	if (strcmp(msg, "OK")) {
		printf("ue_keyhold: %s\n", n > 0 ? msg : "the child said nothing");
		return 1;
	}
	return 0;
}
