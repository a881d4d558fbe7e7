// SPDX-License-Identifier: GPL-2.0
/*
 * The last user of a traced process's address space dropped by a reader of
 * the trace file. With options/userstacktrace and sym-userobj, printing a
 * user stack entry takes the process's mm (trace_user_stack_print():
 * get_task_mm(), mmput()) while the reader holds trace_event_sem for
 * reading (s_start()). The process registered an event that is not
 * persistent and closed its file, so its enabler holds the event's last
 * reference; it writes records of another event in a loop (each with a
 * user stack entry of its own) and is killed while a reader prints those
 * entries. Whenever the reader held the mm at the exit, the reader's
 * mmput() is the last one. Retiring the enabler there removes the event,
 * which takes trace_event_sem for writing under the reader's own read
 * lock: the reader never returns, and it holds up all tracing. Nothing may
 * be put in that task: each reader must finish, and each event go.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "ue_abi.h"

#define ROUNDS		40
#define OPTS		TRACEFS "/options/"

/*
 * The traced process: a registration of the round's event, its file closed;
 * then records of ue_ustack_w, each with a user stack entry of its own.
 */
static void traced(int round, int ready)
{
	static __u32 word, w_word;
	struct { __u32 index, a; } rec = { 0, 1 };
	int fd = ue_open_data(), w_fd = ue_open_data();
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "ue_ustack_%d u32 a", round);
	if (fd < 0 || w_fd < 0 || ue_reg(fd, cmd, &word, 0, 0, NULL) ||
	    ue_reg(w_fd, "ue_ustack_w u32 a", &w_word, 0, 0, &rec.index))
		_exit(2);
	close(fd);
	if (write(ready, "", 1) != 1)
		_exit(3);
	for (;;)
		if (write(w_fd, &rec, sizeof(rec)) != sizeof(rec))
			_exit(4);
}

/* The reader: reads the whole trace file again and again until killed. */
static void reader(void)
{
	char buf[65536];
	int fd;

	for (;;) {
		fd = open(TRACEFS "/trace", O_RDONLY);
		if (fd < 0)
			_exit(2);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

/* Wait up to @secs for @pid; 1 if it was reaped. */
static int reaped_within(pid_t pid, int secs)
{
	int i;

	for (i = 0; i < secs * 100; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return 1;
		usleep(10000);
	}
	return 0;
}

static int event_gone_within(int round, int secs)
{
	char path[128];
	int i;

	snprintf(path, sizeof(path), TRACEFS "/events/user_events/ue_ustack_%d",
		 round);
	for (i = 0; i < secs * 100; i++) {
		if (!ue_exists(path))
			return 1;
		usleep(10000);
	}
	return 0;
}

int main(void)
{
	int round, left = 0, fd = ue_open_data(), p[2];
	static __u32 w_word;
	pid_t x, r;
	char c;

	ue_suite = "ustack";
	/* ue_ustack_w lives throughout, enabled: the traced write it. */
	UE_EQ("ustack.reg_w", ue_reg(fd, "ue_ustack_w u32 a", &w_word, 0, 0,
				     NULL), 0);
	UE_EQ("ustack.enable_w", ue_enable("ue_ustack_w", 1), 0);
	UE_EQ("ustack.userstacktrace", ue_write_text(OPTS "userstacktrace", "1",
						     O_TRUNC), 0);
	UE_EQ("ustack.sym_userobj", ue_write_text(OPTS "sym-userobj", "1",
						  O_TRUNC), 0);
	for (round = 0; round < ROUNDS; round++) {
		ue_trace_clear();
		if (pipe(p))
			break;
		x = fork();
		if (!x)
			traced(round, p[1]);
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			left++;
		close(p[0]);
		/* Entries of x to print, then a reader printing them. */
		usleep(20000);
		r = fork();
		if (!r)
			reader();
		/* Somewhere in the reader's pass over x's entries. */
		usleep(20000 + 37000 * round % 180000);
		kill(x, SIGKILL);
		waitpid(x, NULL, 0);
		usleep(20000);
		kill(r, SIGKILL);
		if (!reaped_within(r, 5)) {
			/* It holds up all tracing: nothing more can be done. */
			ue_show_stack(r);
			UE_EQ("ustack.reader_returned", round, -1);
			return 1;
		}
		if (!event_gone_within(round, 5))
			left++;
	}
	UE_EQ("ustack.rounds", round, ROUNDS);
	UE_EQ("ustack.events_gone", left, 0);
	UE_EQ("ustack.sym_userobj_off", ue_write_text(OPTS "sym-userobj", "0",
						      O_TRUNC), 0);
	UE_EQ("ustack.userstacktrace_off",
	      ue_write_text(OPTS "userstacktrace", "0", O_TRUNC), 0);
	ue_trace_clear();
	UE_EQ("ustack.disable_w", ue_enable("ue_ustack_w", 0), 0);
	UE_EQ("ustack.unreg_w", ue_unreg(fd, &w_word, 0), 0);
	/* Not persistent: it goes with the file. */
	close(fd);
	return ue_failures ? 1 : 0;
}
