// SPDX-License-Identifier: GPL-2.0
/*
 * Group access from the module's parameters: run by 10-module.sh with the
 * module loaded as "insmod user_events.ko gid=GID mode=MODE", as root.
 *
 *   group_test GID MODE     (MODE in octal, as given to insmod)
 *
 * The files must have that group and mode (user_events_status the mode's read
 * bits) without any chgrp or chmod of theirs: a member of the group with no
 * capability opens user_events_data, registers and writes (the file modes are
 * the gate); someone outside the group gets EACCES from open(); and what
 * needs CAP_PERFMON still does (PERSIST, "u:" lines, deleting a persistent
 * event: EPERM without it, allowed with it alone). Only the tracefs root
 * (0700 by default) and dynamic_events are opened to the group here, as an
 * administrator would, and restored at the end.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>

#include "ue_abi.h"

#define DATA		TRACEFS "/user_events_data"
#define STATUS		TRACEFS "/user_events_status"
#define DYNEV		TRACEFS "/dynamic_events"

/* No /etc/passwd in the VM: plain numbers. */
#define UNPRIV_UID	1000
#define OTHER_GID	1001	/* not the module's group */

static gid_t member_gid;
static mode_t data_mode;

/* CapEff of this process, as /proc/self/status has it. */
static const char *cap_eff(void)
{
	static char status[8192];
	char *cap;

	if (ue_read_text("/proc/self/status", status, sizeof(status)) < 0)
		return "";
	cap = strstr(status, "CapEff:\t");
	if (!cap)
		return "";
	cap += 8;
	cap[strcspn(cap, "\n")] = '\0';
	return cap;
}

/*
 * In a forked child: become UNPRIV_UID in group @gid only, with no
 * capability but CAP_PERFMON if @perfmon, or end the child.
 */
static void become(const char *tag, gid_t gid, int perfmon, const char *want_eff)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];
	gid_t groups[1] = { gid };
	char name[64];
	int ok;

	ue_failures = 0;
	memset(c, 0, sizeof(c));
	if (perfmon) {
		c[CAP_TO_INDEX(CAP_PERFMON)].permitted = CAP_TO_MASK(CAP_PERFMON);
		c[CAP_TO_INDEX(CAP_PERFMON)].effective = CAP_TO_MASK(CAP_PERFMON);
	}
	ok = !prctl(PR_SET_KEEPCAPS, perfmon) && !setgroups(1, groups) &&
	     !setresgid(gid, gid, gid) &&
	     !setresuid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID) &&
	     (!perfmon || !syscall(SYS_capset, &h, c));
	snprintf(name, sizeof(name), "%s.become", tag);
	ue_result(name, ok && geteuid() == UNPRIV_UID && getegid() == gid,
		  strerror(errno));
	snprintf(name, sizeof(name), "%s.cap_eff", tag);
	UE_STREQ(name, cap_eff(), want_eff);
	if (ue_failures)
		_exit(1);
}

/* ---- a member of the group, no capability ------------------------------ */

static void member_child(void)
{
	static __u32 word;
	__u32 idx = 99, rec[2];
	int fd, sfd;

	become("member", member_gid, 0, "0000000000000000");

	fd = open(DATA, O_RDWR);
	ue_result("member.open_data", fd >= 0, strerror(errno));
	if (fd < 0)
		return;
	/* The event exists, root's, and is enabled: the bit is set at once. */
	UE_EQ("member.reg", ue_reg(fd, "grp_ev u32 a", &word, 0, 0, &idx), 0);
	UE_EQ("member.reg_bit_set", ue_wait_bits(&word, ~0U, 1), 1);
	rec[0] = idx;
	rec[1] = 0x5678;
	UE_EQ("member.write", write(fd, rec, sizeof(rec)), 8);

	sfd = open(STATUS, O_RDONLY);
	ue_result("member.open_status", sfd >= 0, strerror(errno));
	if (sfd >= 0)
		close(sfd);
	/* user_events_status has only the mode's read bits. */
	UE_ERRNO("member.status_wronly_eacces", open(STATUS, O_WRONLY), EACCES);

	/* What needs CAP_PERFMON still does. */
	UE_ERRNO("member.persist_eperm",
		 ue_reg(fd, "grp_p u32 a", &word, 1, USER_EVENT_REG_PERSIST,
			NULL), EPERM);
	UE_ERRNO("member.persist_existing_eperm",
		 ue_reg(fd, "grp_ev u32 a", &word, 1, USER_EVENT_REG_PERSIST,
			NULL), EPERM);
	UE_ERRNO("member.delete_persistent_eperm",
		 ue_del(fd, "grp_root_p"), EPERM);
	UE_EQ("member.dyn_u_line_eperm",
	      ue_write_text(DYNEV, "u:grp_dyn u32 a", O_APPEND), -EPERM);
	UE_EQ("member.dyn_delete_persistent_eperm",
	      ue_write_text(DYNEV, "-:grp_root_p u32 a", O_APPEND), -EPERM);

	UE_EQ("member.unreg", ue_unreg(fd, &word, 0), 0);
	UE_EQ("member.unreg_bit_clear", word, 0);
	close(fd);
}

/* ---- the same member with CAP_PERFMON alone ---------------------------- */

static void perfmon_child(void)
{
	static __u32 word;
	int fd;

	/* CAP_PERFMON is 38: CapEff 1 << 38. */
	become("perfmon", member_gid, 1, "0000004000000000");
	fd = open(DATA, O_RDWR);
	ue_result("perfmon.open_data", fd >= 0, strerror(errno));
	if (fd < 0)
		return;
	UE_EQ("perfmon.persist", ue_reg(fd, "grp_pm u32 a", &word, 0,
					USER_EVENT_REG_PERSIST, NULL), 0);
	UE_EQ("perfmon.unreg", ue_unreg(fd, &word, 0), 0);
	/* (a file that registered an event holds it until closed) */
	close(fd);
	fd = open(DATA, O_RDWR);
	UE_EQ("perfmon.delete_persistent", ue_del(fd, "grp_pm"), 0);
	close(fd);
	UE_EQ("perfmon.dyn_u_line",
	      ue_write_text(DYNEV, "u:grp_pm_dyn u32 a", O_APPEND), 0);
	UE_EQ("perfmon.dyn_delete_persistent",
	      ue_write_text(DYNEV, "-:grp_pm_dyn u32 a", O_APPEND), 0);
}

/* ---- someone outside the group ----------------------------------------- */

static void outsider_child(void)
{
	struct stat st;

	become("outsider", OTHER_GID, 0, "0000000000000000");
	/* The path is searchable: what refuses is the files' own mode. */
	UE_EQ("outsider.stat_data", stat(DATA, &st), 0);
	UE_ERRNO("outsider.open_rdwr_eacces", open(DATA, O_RDWR), EACCES);
	UE_ERRNO("outsider.open_rdonly_eacces", open(DATA, O_RDONLY), EACCES);
	UE_ERRNO("outsider.open_wronly_eacces", open(DATA, O_WRONLY), EACCES);
	UE_ERRNO("outsider.status_eacces", open(STATUS, O_RDONLY), EACCES);
}

/* ---- the parent, root --------------------------------------------------- */

static void check_file(const char *tag, const char *path, mode_t mode)
{
	struct stat st;
	char name[64];
	int ok = stat(path, &st) == 0;

	snprintf(name, sizeof(name), "%s.stat", tag);
	ue_result(name, ok, strerror(errno));
	if (!ok)
		return;
	snprintf(name, sizeof(name), "%s.gid", tag);
	UE_EQ(name, st.st_gid, member_gid);
	snprintf(name, sizeof(name), "%s.mode", tag);
	UE_EQ(name, st.st_mode & 07777, mode);
	snprintf(name, sizeof(name), "%s.uid", tag);
	UE_EQ(name, st.st_uid, 0);
}

/* Set a tracefs entry's group and mode; 0 or -errno. */
static int set_group_mode(const char *path, gid_t gid, mode_t mode)
{
	if (chown(path, -1, gid) || chmod(path, mode))
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	struct stat root, dyn, st;
	__u32 word = 0, pword = 0;
	int fd;

	ue_suite = "group";
	if (argc != 3) {
		fprintf(stderr, "usage: %s GID MODE\n", argv[0]);
		return 2;
	}
	member_gid = strtoul(argv[1], NULL, 10);
	data_mode = strtoul(argv[2], NULL, 8);

	/* As the parameters said, with no chgrp or chmod of ours. */
	check_file("data", DATA, data_mode);
	check_file("status", STATUS, data_mode & 0444);
	check_file("debug_data", "/sys/kernel/debug/tracing/user_events_data",
		   data_mode);

	/*
	 * The tracefs root searchable by the group (and by others, so that
	 * the outsider's EACCES is the files' own), dynamic_events writable
	 * by it: the administrator's part, which the module does not touch.
	 */
	if (stat(TRACEFS, &root) || stat(DYNEV, &dyn)) {
		ue_result("setup.stat", 0, strerror(errno));
		return 1;
	}
	UE_EQ("setup.root_searchable",
	      set_group_mode(TRACEFS, member_gid, (root.st_mode & 07777) | 0011), 0);
	UE_EQ("setup.dynev_group_rw",
	      set_group_mode(DYNEV, member_gid, (dyn.st_mode & 07777) | 0060), 0);

	/*
	 * A persistent event of root's, held by no file (so that only its
	 * persistence keeps the member from deleting it), and an event root
	 * keeps registered and enabled.
	 */
	fd = ue_open_data();
	UE_EQ("root.reg_persistent", ue_reg(fd, "grp_root_p u32 a", &pword, 0,
					    USER_EVENT_REG_PERSIST, NULL), 0);
	UE_EQ("root.unreg_persistent", ue_unreg(fd, &pword, 0), 0);
	close(fd);
	fd = ue_open_data();
	UE_EQ("root.reg", ue_reg(fd, "grp_ev u32 a", &word, 0, 0, NULL), 0);
	ue_trace_clear();
	UE_EQ("root.enable", ue_enable("grp_ev", 1), 0);

	UE_EQ("member.child", ue_in_child(member_child), 0);
	UE_EQ("member.record", ue_trace_has("grp_ev: a=0x5678 (22136)\n"), 1);
	UE_EQ("member.no_persistent_made", ue_exists(EVENTS "/grp_p"), 0);
	UE_EQ("member.no_dyn_event_made", ue_exists(EVENTS "/grp_dyn"), 0);
	UE_EQ("member.root_persistent_kept", ue_exists(EVENTS "/grp_root_p"), 1);

	UE_EQ("perfmon.child", ue_in_child(perfmon_child), 0);
	UE_EQ("perfmon.persistent_gone", ue_exists(EVENTS "/grp_pm"), 0);
	UE_EQ("perfmon.dyn_gone", ue_exists(EVENTS "/grp_pm_dyn"), 0);

	UE_EQ("outsider.child", ue_in_child(outsider_child), 0);

	UE_EQ("root.disable", ue_enable("grp_ev", 0), 0);
	UE_EQ("root.unreg", ue_unreg(fd, &word, 0), 0);
	close(fd);
	fd = ue_open_data();
	UE_EQ("root.delete_persistent", ue_del(fd, "grp_root_p"), 0);
	close(fd);
	UE_EQ("root.persistent_gone", ue_exists(EVENTS "/grp_root_p"), 0);

	UE_EQ("restore.root", set_group_mode(TRACEFS, root.st_gid,
					     root.st_mode & 07777), 0);
	UE_EQ("restore.dynev", set_group_mode(DYNEV, dyn.st_gid,
					      dyn.st_mode & 07777), 0);
	UE_EQ("restore.root_same", stat(TRACEFS, &st) == 0 &&
	      st.st_mode == root.st_mode && st.st_gid == root.st_gid, 1);
	UE_EQ("restore.dynev_same", stat(DYNEV, &st) == 0 &&
	      st.st_mode == dyn.st_mode && st.st_gid == dyn.st_gid, 1);
	/* The files keep the parameters' group through all of it. */
	check_file("data_after", DATA, data_mode);
	return ue_failures ? 1 : 0;
}
