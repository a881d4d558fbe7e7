// SPDX-License-Identifier: GPL-2.0
/*
 * DIAG_IOCSDEL, PERSIST lifetime, user_events_status, and releases that are
 * effective before the next register or delete is judged (upstream defers
 * them, and a delete right after can still see the event busy).
 */
#include <dirent.h>

#include "ue_abi.h"

static __u32 word;

static void del_rows(void)
{
	int fd = ue_open_data();
	char name[600];

	UE_ERRNO("name_fault_efault", ioctl(fd, DIAG_IOCSDEL, (void *)8), EFAULT);
	memset(name, 'd', 512);
	name[512] = '\0';
	UE_ERRNO("no_nul_in_512_einval", ue_del(fd, name), EINVAL);
	UE_ERRNO("unknown_enoent", ue_del(fd, "del_nothing"), ENOENT);
	UE_EQ("reg", ue_reg(fd, "del_busy u32 a", &word, 0, 0, NULL), 0);
	/* A non-persistent event still referenced is always busy. */
	UE_ERRNO("in_use_ebusy", ue_del(fd, "del_busy"), EBUSY);
	UE_EQ("still_there", ue_exists(EVENTS "/del_busy"), 1);
	UE_EQ("unreg", ue_unreg(fd, &word, 0), 0);
	/* The file still lists it. */
	UE_ERRNO("file_ref_ebusy", ue_del(fd, "del_busy"), EBUSY);
	close(fd);
	UE_EQ("gone_after_close", ue_exists(EVENTS "/del_busy"), 0);
	fd = ue_open_data();
	UE_ERRNO("after_close_enoent", ue_del(fd, "del_busy"), ENOENT);
	close(fd);
}

static void persist(void)
{
	int fd = ue_open_data();

	UE_EQ("persist.reg", ue_reg(fd, "del_pers u32 a", &word, 1,
				    USER_EVENT_REG_PERSIST, NULL), 0);
	UE_ERRNO("persist.in_use_ebusy", ue_del(fd, "del_pers"), EBUSY);
	ue_unreg(fd, &word, 1);
	close(fd);
	UE_EQ("persist.survives_close", ue_exists(EVENTS "/del_pers"), 1);
	fd = ue_open_data();
	/* A later non-persistent registration gets the persistent event. */
	UE_EQ("persist.rereg_plain", ue_reg(fd, "del_pers u32 a", &word, 2, 0, NULL), 0);
	UE_ERRNO("persist.rereg_busy", ue_del(fd, "del_pers"), EBUSY);
	ue_unreg(fd, &word, 2);
	close(fd);
	UE_EQ("persist.still_persistent", ue_exists(EVENTS "/del_pers"), 1);
	fd = ue_open_data();
	UE_EQ("persist.delete", ue_del(fd, "del_pers"), 0);
	UE_EQ("persist.gone", ue_exists(EVENTS "/del_pers"), 0);
	close(fd);
}

static void status_and_settle(void)
{
	char buf[4096];
	int fd = ue_open_data();

	UE_EQ("status.reg", ue_reg(fd, "st_one u32 a", &word, 3, 0, NULL), 0);
	ue_read_text(TRACEFS "/user_events_status", buf, sizeof(buf));
	UE_STREQ("status.idle", buf, "st_one\n\nActive: 1\nBusy: 0\n");
	UE_EQ("status.enable", ue_enable("st_one", 1), 0);
	ue_read_text(TRACEFS "/user_events_status", buf, sizeof(buf));
	UE_STREQ("status.ftrace", buf, "st_one # Used by ftrace\n\nActive: 1\nBusy: 1\n");

	/* Closed while enabled: the event stays until ftrace lets go... */
	ue_unreg(fd, &word, 3);
	close(fd);
	UE_EQ("settle.kept_while_enabled", ue_exists(EVENTS "/st_one"), 1);
	UE_EQ("settle.disable", ue_enable("st_one", 0), 0);
	/* ...and is gone for the very next delete or register. */
	fd = ue_open_data();
	UE_ERRNO("settle.delete_sees_it_gone", ue_del(fd, "st_one"), ENOENT);
	UE_EQ("settle.dir_gone", ue_exists(EVENTS "/st_one"), 0);
	ue_read_text(TRACEFS "/user_events_status", buf, sizeof(buf));
	UE_STREQ("status.empty", buf, "\nActive: 0\nBusy: 0\n");
	UE_EQ("settle.reregister_other_fields",
	      ue_reg(fd, "st_one u64 b", &word, 4, 0, NULL), 0);
	close(fd);
}

/*
 * A persistent event at its last reference that perf holds: the core's
 * removal refuses, and so does DIAG_IOCSDEL, with EBUSY; once perf lets go
 * it deletes.
 */
static void perf_holds(void)
{
	int fd = ue_open_data(), pfd;
	char buf[4096];

	UE_EQ("perf_hold.reg", ue_reg(fd, "del_perf u32 a", &word, 5,
				      USER_EVENT_REG_PERSIST, NULL), 0);
	ue_unreg(fd, &word, 5);
	close(fd);
	pfd = ue_perf_open("del_perf");
	ue_result("perf_hold.perf_open", pfd >= 0, strerror(errno));
	ue_read_text(TRACEFS "/user_events_status", buf, sizeof(buf));
	UE_STREQ("perf_hold.status", buf, "del_perf # Used by perf\n\nActive: 1\nBusy: 1\n");
	fd = ue_open_data();
	UE_ERRNO("perf_hold.delete_ebusy", ue_del(fd, "del_perf"), EBUSY);
	UE_EQ("perf_hold.still_there", ue_exists(EVENTS "/del_perf"), 1);
	close(pfd);
	UE_EQ("perf_hold.delete_after_close", ue_del(fd, "del_perf"), 0);
	UE_EQ("perf_hold.gone", ue_exists(EVENTS "/del_perf"), 0);
	close(fd);
}

/*
 * A MULTI_FORMAT event's line in user_events_status is its tracepoint's
 * name, "<name>.<hex id>", the name of its directory.
 */
static void status_multi(void)
{
	int fd = ue_open_data();
	char buf[4096], want[300], path[200];
	struct dirent *de;
	DIR *d;

	UE_EQ("status_multi.reg", ue_reg(fd, "st_multi u32 a", &word, 6,
					 USER_EVENT_REG_MULTI_FORMAT, NULL), 0);
	snprintf(want, sizeof(want), "(no directory)");
	d = opendir(TRACEFS "/events/user_events_multi");
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "st_multi.", 9)) {
			snprintf(path, sizeof(path), "%.100s", de->d_name);
			snprintf(want, sizeof(want), "%s\n\nActive: 1\nBusy: 0\n", path);
		}
	if (d)
		closedir(d);
	ue_read_text(TRACEFS "/user_events_status", buf, sizeof(buf));
	UE_STREQ("status_multi.line", buf, want);
	ue_unreg(fd, &word, 6);
	close(fd);
}

int main(int argc, char **argv)
{
	int fd;

	ue_suite = "del";
	/* Helpers for the shell suite's module-lifetime checks. */
	if (argc == 2 && !strcmp(argv[1], "make-persistent")) {
		fd = ue_open_data();
		return ue_reg(fd, "del_pin u32 a", &word, 0,
			      USER_EVENT_REG_PERSIST, NULL) ? 1 : 0;
	}
	if (argc == 2 && !strcmp(argv[1], "delete-persistent")) {
		fd = ue_open_data();
		return ue_del(fd, "del_pin") ? 1 : 0;
	}
	del_rows();
	persist();
	perf_holds();
	status_multi();
	status_and_settle();
	return ue_failures ? 1 : 0;
}
