// SPDX-License-Identifier: GPL-2.0
/*
 * A removed event's enable file, held by an O_PATH descriptor across the
 * module's unload and reload, for suite module:
 *
 *   opath_test MODULE.ko
 *
 * The module must be loaded, with no user event. An event is registered,
 * its enable file opened with O_PATH (which takes no reference to the
 * core's trace_event_file), the event deleted, the module unloaded and
 * loaded again, and new events made (kprobe events, user events) so that
 * the core's allocations of their files are likely to reuse the removed
 * one's memory, were it freed: on 5.10 and 6.1 it was, and the reopen
 * below then enabled one of them. The descriptor is reopened through
 * /proc/self/fd for writing: ENODEV, and no event is enabled. It leaves the
 * module loaded, with none of its events, and no kprobe event of its own.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>

#include "ue_abi.h"

#define NEW_EVENTS	8
#define GONE		"opath_gone"

static __u32 word;

static int kprobe(const char *text)
{
	return ue_write_text(TRACEFS "/kprobe_events", text, O_APPEND);
}

/* Whether the enable file @path reads "0". */
static int disabled(const char *path)
{
	char buf[16];

	return ue_read_text(path, buf, sizeof(buf)) > 0 && buf[0] == '0';
}

/* Open the descriptor @fd again through /proc/self/fd; the open's result. */
static int reopen(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_CLOEXEC);
}

int main(int argc, char **argv)
{
	char name[64], cmd[128], path[256], set_event[4096], now[4096];
	int data, opath, fd, ko, i, n;
	cpu_set_t cpu;

	ue_suite = "module";
	if (argc != 2) {
		fprintf(stderr, "usage: %s MODULE.ko\n", argv[0]);
		return 255;
	}
	/* One CPU's slab freelist: what is freed is handed out next. */
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	sched_setaffinity(0, sizeof(cpu), &cpu);

	/* What is enabled in the top instance: nothing may be added. */
	ue_read_text(TRACEFS "/set_event", set_event, sizeof(set_event));
	data = ue_open_data();
	UE_EQ("opath_kept.reg", ue_reg(data, GONE " u32 a", &word, 0,
				       USER_EVENT_REG_PERSIST, NULL), 0);
	opath = open(EVENTS "/" GONE "/enable", O_PATH | O_CLOEXEC);
	UE_EQ("opath_kept.open_opath", opath >= 0, 1);
	UE_EQ("opath_kept.unreg", ue_unreg(data, &word, 0), 0);
	/* The file that registered it holds it until closed. */
	close(data);
	data = ue_open_data();
	UE_EQ("opath_kept.delete", ue_del(data, GONE), 0);
	close(data);
	UE_EQ("opath_kept.deleted", ue_exists(EVENTS "/" GONE), 0);
	/* While the module is loaded, its pin keeps the file: ENODEV. */
	UE_ERRNO("opath_kept.loaded_reopen_enodev", fd = reopen(opath), ENODEV);
	if (fd >= 0)
		close(fd);

	UE_EQ("opath_kept.unload",
	      syscall(SYS_delete_module, "user_events", O_NONBLOCK), 0);
	ko = open(argv[1], O_RDONLY | O_CLOEXEC);
	UE_EQ("opath_kept.load", syscall(SYS_finit_module, ko, "", 0), 0);
	close(ko);

	for (i = 0; i < NEW_EVENTS; i++) {
		snprintf(cmd, sizeof(cmd), "p:ue_opath_kp%d vfs_read", i);
		snprintf(name, sizeof(name), "opath_kept.kprobe_add.%d", i);
		UE_EQ(name, kprobe(cmd), 0);
	}
	data = ue_open_data();
	for (i = 0; i < NEW_EVENTS; i++) {
		snprintf(cmd, sizeof(cmd), "opath_new%d u32 a", i);
		snprintf(name, sizeof(name), "opath_kept.new_reg.%d", i);
		UE_EQ(name, ue_reg(data, cmd, &word, i, USER_EVENT_REG_PERSIST,
				   NULL), 0);
		ue_unreg(data, &word, i);
	}
	close(data);

	UE_ERRNO("opath_kept.unloaded_reopen_enodev", fd = reopen(opath), ENODEV);
	if (fd >= 0) {
		/* What the reopen reached, enabled: seen below, then undone. */
		n = write(fd, "1", 1);
		printf("UE-INFO module: opath_kept: reopened, and wrote 1: %d\n",
		       n);
	}
	n = 0;
	for (i = 0; i < NEW_EVENTS; i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/kprobes/ue_opath_kp%d/enable", i);
		n += !disabled(path);
		snprintf(path, sizeof(path), EVENTS "/opath_new%d/enable", i);
		n += !disabled(path);
	}
	UE_EQ("opath_kept.nothing_enabled", n, 0);
	ue_read_text(TRACEFS "/set_event", now, sizeof(now));
	UE_STREQ("opath_kept.set_event_unchanged", now, set_event);
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0)
			perror("opath_test: disabling through the reopened descriptor");
		close(fd);
	}
	close(opath);

	data = ue_open_data();
	for (i = 0; i < NEW_EVENTS; i++) {
		snprintf(cmd, sizeof(cmd), "opath_new%d", i);
		snprintf(name, sizeof(name), "opath_kept.new_delete.%d", i);
		UE_EQ(name, ue_del(data, cmd), 0);
		snprintf(cmd, sizeof(cmd), "-:ue_opath_kp%d", i);
		snprintf(name, sizeof(name), "opath_kept.kprobe_remove.%d", i);
		UE_EQ(name, kprobe(cmd), 0);
	}
	close(data);
	return ue_failures ? 1 : 0;
}
