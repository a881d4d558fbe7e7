// SPDX-License-Identifier: GPL-2.0
/*
 * Limits and privileges: kernel.user_events_max, PERSIST and MULTI_FORMAT
 * (user_events.rst, Registering and Deleting), and what an unprivileged
 * member of the tracing group may do. The unprivileged parts run in forked
 * children that drop to UNPRIV_UID with no capabilities; the rest of the
 * suite stays root, and restores the tracefs modes it relaxed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>

#include "ue_abi.h"

#define SYSCTL		"/proc/sys/kernel/user_events_max"
#define DATA		TRACEFS "/user_events_data"
#define DYNEV		TRACEFS "/dynamic_events"
#define STATUS		TRACEFS "/user_events_status"
#define MULTI		TRACEFS "/events/user_events_multi"

/* No /etc/passwd in the VM: plain numbers. */
#define UNPRIV_UID	1000
#define MEMBER_GID	1000	/* the group given access to tracefs */
#define OTHER_GID	1001

/* ---- helpers ---------------------------------------------------------- */

static long long sysctl_get(void)
{
	char buf[64];

	if (ue_read_text(SYSCTL, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* Write @text to the sysctl; 0 or -errno. */
static int sysctl_set(const char *text)
{
	return ue_write_text(SYSCTL, text, 0);
}

static int sysctl_set_num(long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld\n", v);
	return sysctl_set(buf);
}

/* "Active: N" of user_events_status: the number of events. */
static int active_events(void)
{
	static char buf[1 << 16];
	char *p;

	if (ue_read_text(STATUS, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "Active: ");
	return p ? atoi(p + 8) : -1;
}

/* writev of [index][u32 value]: its result, or -errno. */
static long write_u32(int fd, __u32 index, __u32 value)
{
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ &value, sizeof(value) },
	};
	long ret = writev(fd, io, 2);

	return ret < 0 ? -errno : ret;
}

/*
 * The ids of the variants of MULTI_FORMAT event @name, in @ids (up to @max);
 * returns how many there are.
 */
static int variants(const char *name, unsigned long long *ids, int max)
{
	size_t len = strlen(name);
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(MULTI);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;

		if (strncmp(de->d_name, name, len) || de->d_name[len] != '.')
			continue;
		if (n < max)
			ids[n] = strtoull(de->d_name + len + 1, &end, 16);
		n++;
	}
	closedir(d);
	return n;
}

/* Whether user_events_multi/<name>.<id in hex> exists. */
static int variant_exists(const char *name, unsigned long long id)
{
	char path[512];

	snprintf(path, sizeof(path), MULTI "/%s.%llx", name, id);
	return ue_exists(path);
}

static int variant_enable(const char *name, unsigned long long id, int on)
{
	char path[512];

	snprintf(path, sizeof(path), MULTI "/%s.%llx/enable", name, id);
	return ue_write_text(path, on ? "1" : "0", O_TRUNC);
}

/* ---- kernel.user_events_max ------------------------------------------- */

static void max_events(void)
{
	__u32 word = 0, idx = 99;
	struct stat st;
	long long n;
	int fd = ue_open_data();

	UE_EQ("sysctl.exists", stat(SYSCTL, &st), 0);
	UE_EQ("sysctl.mode_0644", st.st_mode & 07777, 0644);
	UE_EQ("sysctl.owner_root", st.st_uid, 0);
	UE_EQ("sysctl.default_32768", sysctl_get(), 32768);

	/* unsigned int: no negatives, nothing past UINT_MAX, no text. */
	UE_EQ("sysctl.negative_einval", sysctl_set("-1"), -EINVAL);
	UE_EQ("sysctl.too_big_einval", sysctl_set("4294967296"), -EINVAL);
	UE_EQ("sysctl.text_einval", sysctl_set("many"), -EINVAL);
	UE_EQ("sysctl.unchanged", sysctl_get(), 32768);
	UE_EQ("sysctl.uint_max", sysctl_set("4294967295"), 0);
	UE_EQ("sysctl.uint_max_read", sysctl_get(), 4294967295LL);

	/* Room for exactly two more events. */
	n = active_events();
	UE_EQ("max.count_known", n >= 0, 1);
	UE_EQ("max.set_plus_2", sysctl_set_num(n + 2), 0);
	UE_EQ("max.read_back", sysctl_get(), n + 2);
	UE_EQ("max.reg_1", ue_reg(fd, "lim_max_a u32 a", &word, 0, 0, NULL), 0);
	UE_EQ("max.reg_2", ue_reg(fd, "lim_max_b u32 a", &word, 1, 0, NULL), 0);
	UE_ERRNO("max.reg_3_emfile",
		 ue_reg(fd, "lim_max_c u32 a", &word, 2, 0, NULL), EMFILE);
	UE_EQ("max.reg_3_no_dir", ue_exists(EVENTS "/lim_max_c"), 0);
	UE_ERRNO("max.multi_emfile",
		 ue_reg(fd, "lim_max_c u32 a", &word, 2,
			USER_EVENT_REG_MULTI_FORMAT, NULL), EMFILE);
	UE_ERRNO("max.persist_emfile",
		 ue_reg(fd, "lim_max_c u32 a", &word, 2,
			USER_EVENT_REG_PERSIST, NULL), EMFILE);
	/* An existing event is found, not created: no limit applies. */
	UE_EQ("max.existing_ok",
	      ue_reg(fd, "lim_max_a u32 a", &word, 3, 0, &idx), 0);
	UE_EQ("max.existing_index", idx, 0);

	/* Lowering below the count deletes nothing. */
	UE_EQ("max.lower_below_count", sysctl_set_num(n), 0);
	UE_EQ("max.lowered_read", sysctl_get(), n);
	UE_EQ("max.lower_keeps_a", ue_exists(EVENTS "/lim_max_a"), 1);
	UE_EQ("max.lower_keeps_b", ue_exists(EVENTS "/lim_max_b"), 1);
	UE_EQ("max.lower_keeps_count", active_events(), n + 2);
	UE_ERRNO("max.lowered_emfile",
		 ue_reg(fd, "lim_max_c u32 a", &word, 2, 0, NULL), EMFILE);
	UE_EQ("max.zero", sysctl_set("0"), 0);
	UE_ERRNO("max.zero_emfile",
		 ue_reg(fd, "lim_max_c u32 a", &word, 2, 0, NULL), EMFILE);

	/* Restored: room again. */
	UE_EQ("max.restore", sysctl_set("32768"), 0);
	UE_EQ("max.restored", sysctl_get(), 32768);
	UE_EQ("max.reg_after_restore",
	      ue_reg(fd, "lim_max_c u32 a", &word, 2, 0, NULL), 0);
	for (int bit = 0; bit < 4; bit++)
		ue_unreg(fd, &word, bit);
	close(fd);
	UE_EQ("max.events_gone", ue_exists(EVENTS "/lim_max_a"), 0);
}

/* ---- PERSIST, as root ------------------------------------------------- */

static void persist(void)
{
	unsigned long long ids[4];
	__u32 word = 0;
	int fd = ue_open_data();

	UE_EQ("persist.reg", ue_reg(fd, "lim_pers u32 a", &word, 0,
				    USER_EVENT_REG_PERSIST, NULL), 0);
	UE_EQ("persist.unreg", ue_unreg(fd, &word, 0), 0);
	close(fd);
	UE_EQ("persist.survives_close", ue_exists(EVENTS "/lim_pers"), 1);
	fd = ue_open_data();
	UE_EQ("persist.delete_root", ue_del(fd, "lim_pers"), 0);
	UE_EQ("persist.deleted", ue_exists(EVENTS "/lim_pers"), 0);

	/* flags = 3: PERSIST | MULTI_FORMAT. */
	UE_EQ("persist_multi.reg",
	      ue_reg(fd, "lim_pm u32 a", &word, 1, USER_EVENT_REG_PERSIST |
		     USER_EVENT_REG_MULTI_FORMAT, NULL), 0);
	UE_EQ("persist_multi.not_single", ue_exists(EVENTS "/lim_pm"), 0);
	UE_EQ("persist_multi.one_variant", variants("lim_pm", ids, 4), 1);
	ue_unreg(fd, &word, 1);
	close(fd);
	UE_EQ("persist_multi.survives_close", variants("lim_pm", ids, 4), 1);
	fd = ue_open_data();
	UE_EQ("persist_multi.delete", ue_del(fd, "lim_pm"), 0);
	UE_EQ("persist_multi.deleted", variants("lim_pm", ids, 4), 0);
	close(fd);
}

/* ---- MULTI_FORMAT ----------------------------------------------------- */

static void multi_format(void)
{
	int fda = ue_open_data(), fda2 = ue_open_data(), fdb = ue_open_data();
	int fds = ue_open_data(), i, ok;
	unsigned long long ids[4], a = 0, b = 0;
	__u32 wa = 0, wb = 0, ws = 0, idx = 99, idx2 = 99;
	char path[512], buf[4096], want[128];

	UE_EQ("multi.reg", ue_reg(fda, "lim_mf u32 a", &wa, 0,
				  USER_EVENT_REG_MULTI_FORMAT, &idx), 0);
	UE_EQ("multi.index", idx, 0);
	UE_EQ("multi.one_variant", variants("lim_mf", ids, 4), 1);
	a = ids[0];
	UE_EQ("multi.not_in_user_events", ue_exists(EVENTS "/lim_mf"), 0);
	/* The tracepoint is "<name>.<hex id>", in the format file too. */
	snprintf(path, sizeof(path), MULTI "/lim_mf.%llx/format", a);
	ue_read_text(path, buf, sizeof(buf));
	snprintf(want, sizeof(want), "name: lim_mf.%llx\n", a);
	ue_result("multi.format_name", !strncmp(buf, want, strlen(want)), buf);

	/* The same format: the same tracepoint, on one fd or another. */
	UE_EQ("multi.same_format", ue_reg(fda, "lim_mf u32 a", &wa, 1,
					  USER_EVENT_REG_MULTI_FORMAT, &idx2), 0);
	UE_EQ("multi.same_format_index", idx2, idx);
	UE_EQ("multi.same_format_spacing",
	      ue_reg(fda, "lim_mf u32 a;", &wa, 2, USER_EVENT_REG_MULTI_FORMAT,
		     &idx2), 0);
	UE_EQ("multi.same_format_spacing_index", idx2, idx);
	UE_EQ("multi.other_fd", ue_reg(fda2, "lim_mf u32 a", &wa, 3,
				       USER_EVENT_REG_MULTI_FORMAT, NULL), 0);
	UE_EQ("multi.still_one_variant", variants("lim_mf", ids, 4), 1);

	/* Failed parses use ids up; the next id is written in hex. */
	for (i = 0, ok = 1; i < 16; i++)
		ok &= ue_reg(fdb, "lim_mf u32", &wb, 0,
			     USER_EVENT_REG_MULTI_FORMAT, NULL) == -1 &&
		      errno == EINVAL;
	UE_EQ("multi.bad_format_einval", ok, 1);
	UE_EQ("multi.new_format", ue_reg(fdb, "lim_mf u64 b", &wb, 0,
					 USER_EVENT_REG_MULTI_FORMAT, &idx), 0);
	UE_EQ("multi.new_format_index", idx, 0);
	UE_EQ("multi.two_variants", variants("lim_mf", ids, 4), 2);
	b = a + 17;
	UE_EQ("multi.new_id_after_failed", variant_exists("lim_mf", b), 1);
	UE_EQ("multi.first_kept", variant_exists("lim_mf", a), 1);

	/* A single-format event of the same name lives beside them. */
	UE_EQ("multi.single_coexists",
	      ue_reg(fds, "lim_mf u32 a", &ws, 0, 0, NULL), 0);
	UE_EQ("multi.single_dir", ue_exists(EVENTS "/lim_mf"), 1);
	UE_ERRNO("multi.single_clash_eaddrinuse",
		 ue_reg(fds, "lim_mf u64 b", &ws, 1, 0, NULL), EADDRINUSE);
	UE_EQ("multi.still_two_variants", variants("lim_mf", ids, 4), 2);

	/* Each variant is its own event: enable bit and trace line. */
	ue_trace_clear();
	UE_EQ("multi.enable_a", variant_enable("lim_mf", a, 1), 0);
	UE_EQ("multi.a_bits_set", wa, 0xf);
	UE_EQ("multi.b_bit_clear", wb, 0);
	UE_EQ("multi.single_bit_clear", ws, 0);
	UE_EQ("multi.write_a", write_u32(fda, 0, 0x2a), 8);
	snprintf(want, sizeof(want), "lim_mf.%llx: a=0x2a (42)\n", a);
	UE_EQ("multi.trace_a", ue_trace_has(want), 1);
	UE_EQ("multi.disable_a", variant_enable("lim_mf", a, 0), 0);
	UE_EQ("multi.a_bits_cleared", wa, 0);

	/* Busy variants are not deleted. */
	UE_ERRNO("multi.delete_busy", ue_del(fdb, "lim_mf"), EBUSY);

	/* Each variant goes when its last user does; the others stay. */
	for (i = 0; i < 3; i++)
		ue_unreg(fda, &wa, i);
	close(fda);
	UE_EQ("autodel.a_kept_by_other_fd", variant_exists("lim_mf", a), 1);
	ue_unreg(fda2, &wa, 3);
	close(fda2);
	UE_EQ("autodel.a_gone", variant_exists("lim_mf", a), 0);
	UE_EQ("autodel.b_stays", variant_exists("lim_mf", b), 1);
	UE_EQ("autodel.single_stays", ue_exists(EVENTS "/lim_mf"), 1);
	ue_unreg(fdb, &wb, 0);
	close(fdb);
	UE_EQ("autodel.b_gone", variant_exists("lim_mf", b), 0);
	UE_EQ("autodel.single_still_stays", ue_exists(EVENTS "/lim_mf"), 1);
	ue_unreg(fds, &ws, 0);
	close(fds);
	UE_EQ("autodel.single_gone", ue_exists(EVENTS "/lim_mf"), 0);
}

/* DIAG_IOCSDEL deletes every idle event of a name, as upstream. */
static void multi_delete(void)
{
	unsigned long long ids[4];
	__u32 word = 0;
	int fd = ue_open_data();
	int pm = USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT;

	UE_EQ("multidel.reg_1", ue_reg(fd, "lim_md u32 a", &word, 0, pm, NULL), 0);
	UE_EQ("multidel.reg_2", ue_reg(fd, "lim_md u64 b", &word, 1, pm, NULL), 0);
	UE_EQ("multidel.reg_single", ue_reg(fd, "lim_md u32 a", &word, 2,
					    USER_EVENT_REG_PERSIST, NULL), 0);
	UE_EQ("multidel.two_variants", variants("lim_md", ids, 4), 2);
	ue_unreg(fd, &word, 0);
	ue_unreg(fd, &word, 1);
	ue_unreg(fd, &word, 2);
	close(fd);
	UE_EQ("multidel.survive_close", variants("lim_md", ids, 4), 2);
	UE_EQ("multidel.single_survives", ue_exists(EVENTS "/lim_md"), 1);
	fd = ue_open_data();
	UE_EQ("multidel.delete", ue_del(fd, "lim_md"), 0);
	UE_EQ("multidel.variants_gone", variants("lim_md", ids, 4), 0);
	UE_EQ("multidel.single_gone", ue_exists(EVENTS "/lim_md"), 0);
	UE_ERRNO("multidel.again_enoent", ue_del(fd, "lim_md"), ENOENT);
	close(fd);
}

/*
 * A name whose variants are not all idle: the delete walks the name's
 * variants in the table's order, newest first (as upstream's hash list),
 * deleting each idle one, and stops with EBUSY at the first busy one: the
 * newer variants are gone, the busy one and the older ones stay.
 */
static void multi_delete_busy(void)
{
	unsigned long long ids[4], sorted[3];
	__u32 word = 0;
	int fd = ue_open_data(), n, i, j;
	int pm = USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT;

	UE_EQ("multibusy.reg_old", ue_reg(fd, "lim_mb u32 a", &word, 0, pm, NULL), 0);
	UE_EQ("multibusy.reg_busy", ue_reg(fd, "lim_mb u64 b", &word, 1, pm, NULL), 0);
	UE_EQ("multibusy.reg_new", ue_reg(fd, "lim_mb u16 c", &word, 2, pm, NULL), 0);
	n = variants("lim_mb", ids, 4);
	UE_EQ("multibusy.three_variants", n, 3);
	if (n != 3) {
		close(fd);
		return;
	}
	/* Ids grow with each new variant: in order, old, busy, new. */
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2 - i; j++)
			if (ids[j] > ids[j + 1]) {
				unsigned long long t = ids[j];

				ids[j] = ids[j + 1];
				ids[j + 1] = t;
			}
	memcpy(sorted, ids, sizeof(sorted));
	/* The old and new ones idle; the middle one keeps its enabler. */
	ue_unreg(fd, &word, 0);
	ue_unreg(fd, &word, 2);
	close(fd);
	fd = ue_open_data();
	UE_ERRNO("multibusy.delete_ebusy", ue_del(fd, "lim_mb"), EBUSY);
	UE_EQ("multibusy.newer_gone", variant_exists("lim_mb", sorted[2]), 0);
	UE_EQ("multibusy.busy_stays", variant_exists("lim_mb", sorted[1]), 1);
	UE_EQ("multibusy.older_stays", variant_exists("lim_mb", sorted[0]), 1);
	UE_EQ("multibusy.unreg_busy", ue_unreg(fd, &word, 1), 0);
	UE_EQ("multibusy.delete_rest", ue_del(fd, "lim_mb"), 0);
	UE_EQ("multibusy.all_gone", variants("lim_mb", ids, 4), 0);
	close(fd);
}

/* ---- an unprivileged member of the tracing group ---------------------- */

/* A parent and its child take turns: each says when the other may go on. */
struct turns {
	int to_parent[2];
	int to_child[2];
};

static void turns_open(struct turns *t)
{
	if (pipe(t->to_parent) || pipe(t->to_child))
		ue_result("turns.pipe", 0, strerror(errno));
}

/*
 * After the fork each side keeps only its own ends, so that either one
 * sees EOF, not a hang, if the other ends early.
 */
static void turns_side(struct turns *t, int child)
{
	close(child ? t->to_parent[0] : t->to_parent[1]);
	close(child ? t->to_child[1] : t->to_child[0]);
	t->to_parent[child ? 0 : 1] = -1;
	t->to_child[child ? 1 : 0] = -1;
}

static void turns_close(struct turns *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (t->to_parent[i] >= 0)
			close(t->to_parent[i]);
		if (t->to_child[i] >= 0)
			close(t->to_child[i]);
	}
}

static void tell(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		ue_result("turns.write", 0, strerror(errno));
}

static int hear(int fd)
{
	char c;

	return read(fd, &c, 1) == 1;
}

/* Whether this process has no effective capability. */
static int no_capabilities(void)
{
	static char status[8192];
	char *cap;

	if (ue_read_text("/proc/self/status", status, sizeof(status)) < 0)
		return 0;
	cap = strstr(status, "CapEff:\t");
	return cap && !strncmp(cap + 8, "0000000000000000\n", 17);
}

/*
 * In a forked child: become UNPRIV_UID in group @gid only, which leaves no
 * capability, or end the child. Its results start from no failure.
 */
static void drop_privileges(const char *tag, gid_t gid)
{
	gid_t groups[1] = { gid };
	char name[64];
	int ok;

	ue_failures = 0;
	ok = !setgroups(1, groups) && !setresgid(gid, gid, gid) &&
	     !setresuid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID);
	snprintf(name, sizeof(name), "%s.drop_privileges", tag);
	ue_result(name, ok && geteuid() == UNPRIV_UID && getegid() == gid,
		  strerror(errno));
	snprintf(name, sizeof(name), "%s.no_capabilities", tag);
	ue_result(name, ok && no_capabilities(), "CapEff is not 0");
	if (ue_failures)
		_exit(1);
}

/* Wait for @pid; its failures are its own lines, its status counts here. */
static void reap(pid_t pid, const char *name)
{
	int status = -1;

	waitpid(pid, &status, 0);
	UE_EQ(name, WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
}

static void member_child(struct turns *t)
{
	static __u32 word;
	__u32 idx = 99;
	int fd;

	drop_privileges("member", MEMBER_GID);
	/* The sysctl reads for anyone and writes for root only. */
	UE_EQ("member.sysctl_read", sysctl_get(), 32768);
	UE_ERRNO("member.sysctl_write_eacces", open(SYSCTL, O_WRONLY), EACCES);

	fd = ue_open_data();
	ue_result("member.open_data", fd >= 0, strerror(errno));
	UE_EQ("member.reg", ue_reg(fd, "lim_perm u32 a", &word, 0, 0, &idx), 0);
	UE_EQ("member.reg_bit_clear", word, 0);
	tell(t->to_parent[1]);
	hear(t->to_child[0]);	/* the parent enabled the event */
	UE_EQ("member.enabled_bit_set", ue_wait_bits(&word, ~0U, 1), 1);
	UE_EQ("member.write", write_u32(fd, idx, 0x1234), 8);
	tell(t->to_parent[1]);
	hear(t->to_child[0]);	/* the parent disabled it */
	UE_EQ("member.disabled_bit_clear", ue_wait_bits(&word, ~0U, 0), 1);

	/* PERSIST needs CAP_PERFMON: refused even for an existing event. */
	UE_ERRNO("member.persist_eperm",
		 ue_reg(fd, "lim_perm_p u32 a", &word, 1,
			USER_EVENT_REG_PERSIST, NULL), EPERM);
	UE_ERRNO("member.persist_multi_eperm",
		 ue_reg(fd, "lim_perm_p u32 a", &word, 1,
			USER_EVENT_REG_PERSIST | USER_EVENT_REG_MULTI_FORMAT,
			NULL), EPERM);
	UE_ERRNO("member.persist_existing_eperm",
		 ue_reg(fd, "lim_perm u32 a", &word, 1,
			USER_EVENT_REG_PERSIST, NULL), EPERM);
	UE_EQ("member.multi_ok", ue_reg(fd, "lim_perm_m u32 a", &word, 2,
					USER_EVENT_REG_MULTI_FORMAT, NULL), 0);
	/* Deleting a persistent event needs it too; others need nothing. */
	UE_ERRNO("member.delete_persistent_eperm",
		 ue_del(fd, "lim_root_p"), EPERM);
	UE_ERRNO("member.delete_busy_ebusy", ue_del(fd, "lim_perm"), EBUSY);
	/*
	 * dynamic_events is group-writable too: a "u:" line is always
	 * PERSIST, so it needs CAP_PERFMON, and so does deleting a persistent
	 * event there.
	 */
	UE_EQ("member.dyn_u_line_eperm",
	      ue_write_text(DYNEV, "u:lim_dyn u32 a", O_APPEND), -EPERM);
	UE_EQ("member.dyn_delete_persistent_eperm",
	      ue_write_text(DYNEV, "-:lim_root_p u32 a", O_APPEND), -EPERM);
	UE_ERRNO("member.delete_unknown_enoent", ue_del(fd, "lim_none"), ENOENT);

	UE_EQ("member.unreg", ue_unreg(fd, &word, 0), 0);
	UE_EQ("member.unreg_multi", ue_unreg(fd, &word, 2), 0);
	UE_ERRNO("member.unreg_again_enoent", ue_unreg(fd, &word, 0), ENOENT);
	close(fd);
}

/*
 * CAP_PERFMON alone, without CAP_SYS_ADMIN, is what PERSIST, "u:" lines and
 * deleting a persistent event need (upstream's user_event_capable():
 * perfmon_capable()): a member of the group keeping only that capability may
 * do all three.
 */
static void perfmon_child(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];
	static char status[8192], dyn[4096];
	gid_t groups[1] = { MEMBER_GID };
	static __u32 word;
	char *cap;
	int fd, ok;

	ue_failures = 0;
	memset(c, 0, sizeof(c));
	c[CAP_TO_INDEX(CAP_PERFMON)].permitted = CAP_TO_MASK(CAP_PERFMON);
	c[CAP_TO_INDEX(CAP_PERFMON)].effective = CAP_TO_MASK(CAP_PERFMON);
	ok = !prctl(PR_SET_KEEPCAPS, 1) && !setgroups(1, groups) &&
	     !setresgid(MEMBER_GID, MEMBER_GID, MEMBER_GID) &&
	     !setresuid(UNPRIV_UID, UNPRIV_UID, UNPRIV_UID) &&
	     !syscall(SYS_capset, &h, c);
	ue_result("perfmon.drop_to_perfmon", ok && geteuid() == UNPRIV_UID, strerror(errno));
	cap = ue_read_text("/proc/self/status", status, sizeof(status)) < 0 ? NULL :
	      strstr(status, "CapEff:\t");
	ue_result("perfmon.only_cap_perfmon",
		  cap && !strncmp(cap + 8, "0000004000000000\n", 17), cap ? cap : "no CapEff");
	if (ue_failures)
		_exit(1);

	fd = ue_open_data();
	UE_EQ("perfmon.persist", ue_reg(fd, "lim_pm_p u32 a", &word, 0,
					USER_EVENT_REG_PERSIST, NULL), 0);
	UE_EQ("perfmon.unreg", ue_unreg(fd, &word, 0), 0);
	close(fd);
	fd = ue_open_data();
	UE_EQ("perfmon.delete_persistent", ue_del(fd, "lim_pm_p"), 0);
	close(fd);
	UE_EQ("perfmon.dyn_u_line", ue_write_text(DYNEV, "u:lim_pm_dyn u32 a", O_APPEND), 0);
	/* (the events directory may be root's alone: dynamic_events lists it) */
	UE_EQ("perfmon.dyn_listed", ue_read_text(DYNEV, dyn, sizeof(dyn)) >= 0 &&
	      strstr(dyn, "u:lim_pm_dyn u32 a\n") != NULL, 1);
	UE_EQ("perfmon.dyn_delete_persistent",
	      ue_write_text(DYNEV, "-:lim_pm_dyn u32 a", O_APPEND), 0);
}

static void perfmon(void)
{
	ue_in_child(perfmon_child);
	UE_EQ("perfmon.persistent_gone", ue_exists(EVENTS "/lim_pm_p"), 0);
	UE_EQ("perfmon.dyn_gone", ue_exists(EVENTS "/lim_pm_dyn"), 0);
}

static void member(void)
{
	__u32 word = 0;
	struct turns t;
	pid_t pid;
	int fd = ue_open_data();

	/* A persistent event of root's that the member may not delete. */
	UE_EQ("member.root_persistent", ue_reg(fd, "lim_root_p u32 a", &word, 0,
					       USER_EVENT_REG_PERSIST, NULL), 0);
	ue_unreg(fd, &word, 0);
	close(fd);

	turns_open(&t);
	pid = fork();
	if (!pid) {
		turns_side(&t, 1);
		member_child(&t);
		_exit(ue_failures ? 1 : 0);
	}
	turns_side(&t, 0);
	if (!hear(t.to_parent[0]))	/* registered */
		goto out;
	/* Created with root's fsuid, though the caller is not root. */
	UE_EQ("member.dir_created", ue_exists(EVENTS "/lim_perm/format"), 1);
	ue_trace_clear();
	UE_EQ("member.enable", ue_enable("lim_perm", 1), 0);
	tell(t.to_child[1]);
	if (!hear(t.to_parent[0]))	/* written */
		goto out;
	UE_EQ("member.record", ue_trace_has("lim_perm: a=0x1234 (4660)\n"), 1);
	UE_EQ("member.disable", ue_enable("lim_perm", 0), 0);
	tell(t.to_child[1]);
out:
	reap(pid, "member.child");
	turns_close(&t);
	UE_EQ("member.dir_gone_after_close", ue_exists(EVENTS "/lim_perm"), 0);
	UE_EQ("member.no_persistent_made", ue_exists(EVENTS "/lim_perm_p"), 0);
	UE_EQ("member.no_persistent_multi_made", variants("lim_perm_p", NULL, 0), 0);
	UE_EQ("member.multi_gone", variants("lim_perm_m", NULL, 0), 0);
	UE_EQ("member.root_persistent_kept", ue_exists(EVENTS "/lim_root_p"), 1);
	UE_EQ("member.no_dyn_event_made", ue_exists(EVENTS "/lim_dyn"), 0);
	fd = ue_open_data();
	UE_EQ("member.root_deletes", ue_del(fd, "lim_root_p"), 0);
	close(fd);
}

/*
 * Enablers belong to the process whose memory they name: a forked child's
 * unregister and register change its own copy of the word, not its
 * parent's, though it uses the parent's file.
 */
static void isolation_child(struct turns *t)
{
	static __u32 word;
	int fd, status = -1;
	pid_t pid;

	drop_privileges("iso", MEMBER_GID);
	fd = ue_open_data();
	/* Bit 1 is the process's own, no enabler's. */
	word = 2;
	UE_EQ("iso.reg", ue_reg(fd, "lim_iso u32 a", &word, 0, 0, NULL), 0);
	UE_EQ("iso.reg_while_enabled", word, 3);
	pid = fork();
	if (!pid) {
		int ok = ue_unreg(fd, &word, 0) == 0 && word == 2 &&
			 ue_reg(fd, "lim_iso2 u32 a", &word, 1, 0, NULL) == 0 &&
			 word == 0;

		_exit(ok ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	UE_EQ("iso.grandchild_changed_its_copy",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
	UE_EQ("iso.word_untouched", word, 3);
	/* Its own enabler is still there, and still only bit 0. */
	tell(t->to_parent[1]);
	hear(t->to_child[0]);	/* the parent disabled the event */
	UE_EQ("iso.disable_clears_bit0_only", ue_wait_bits(&word, ~0U, 2), 1);
	UE_EQ("iso.unreg", ue_unreg(fd, &word, 0), 0);
	close(fd);
}

static void isolation(void)
{
	__u32 word = 0;
	struct turns t;
	pid_t pid;
	int fd = ue_open_data();

	UE_EQ("iso.root_reg", ue_reg(fd, "lim_iso u32 a", &word, 0, 0, NULL), 0);
	UE_EQ("iso.enable", ue_enable("lim_iso", 1), 0);
	turns_open(&t);
	pid = fork();
	if (!pid) {
		turns_side(&t, 1);
		isolation_child(&t);
		_exit(ue_failures ? 1 : 0);
	}
	turns_side(&t, 0);
	if (hear(t.to_parent[0])) {
		UE_EQ("iso.root_word_set", ue_wait_bits(&word, ~0U, 1), 1);
		UE_EQ("iso.disable", ue_enable("lim_iso", 0), 0);
		UE_EQ("iso.root_word_cleared", ue_wait_bits(&word, ~0U, 0), 1);
		tell(t.to_child[1]);
	}
	reap(pid, "iso.child");
	turns_close(&t);
	ue_enable("lim_iso", 0);
	UE_EQ("iso.grandchild_event_gone", ue_exists(EVENTS "/lim_iso2"), 0);
	ue_unreg(fd, &word, 0);
	close(fd);
	/*
	 * Judged after a status read, which the module makes wait for the
	 * releases it had to defer (the last reference may be one dropped
	 * inside the tracing core's callback, or the exited child's copy of
	 * the enabler): a directory's lookup does not wait for them
	 * (docs/differences.md, "Releases are effective before the next
	 * decision").
	 */
	active_events();
	UE_EQ("iso.event_gone", ue_exists(EVENTS "/lim_iso"), 0);
}

/* Someone outside the group: refused at open. */
static const char *outsider_tag;

static void outsider_child(void)
{
	char name[96];

	drop_privileges(outsider_tag, OTHER_GID);
	snprintf(name, sizeof(name), "%s.open_rdwr_eacces", outsider_tag);
	UE_ERRNO(name, open(DATA, O_RDWR), EACCES);
	snprintf(name, sizeof(name), "%s.open_rdonly_eacces", outsider_tag);
	UE_ERRNO(name, open(DATA, O_RDONLY), EACCES);
	snprintf(name, sizeof(name), "%s.status_eacces", outsider_tag);
	UE_ERRNO(name, open(STATUS, O_RDONLY), EACCES);
}

static void outsider(const char *tag)
{
	outsider_tag = tag;
	ue_in_child(outsider_child);
}

/* Set a tracefs entry's group and mode; 0 or -errno. */
static int set_group_mode(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	if (chown(path, uid, gid) || chmod(path, mode))
		return -errno;
	return 0;
}

static void unprivileged(void)
{
	struct stat root, data, dyn, st;

	if (stat(TRACEFS, &root) || stat(DATA, &data) || stat(DYNEV, &dyn)) {
		ue_result("perm.stat", 0, strerror(errno));
		return;
	}
	/* chgrp GID user_events_data; chmod g+rw; the root chgrp, g+x. */
	UE_EQ("perm.root_group_x", set_group_mode(TRACEFS, root.st_uid, MEMBER_GID,
						  (root.st_mode & 07777) | 0010), 0);
	UE_EQ("perm.data_group_rw", set_group_mode(DATA, data.st_uid, MEMBER_GID,
						   (data.st_mode & 07777) | 0060), 0);
	UE_EQ("perm.dynev_group_rw", set_group_mode(DYNEV, dyn.st_uid, MEMBER_GID,
						    (dyn.st_mode & 07777) | 0060), 0);

	member();
	perfmon();
	isolation();
	outsider("outsider");
	/* With the root open to all, the file's own mode still refuses. */
	UE_EQ("perm.root_all_x", chmod(TRACEFS, (root.st_mode & 07777) | 0011), 0);
	outsider("outsider_root_open");

	UE_EQ("perm.restore_root", set_group_mode(TRACEFS, root.st_uid, root.st_gid,
						  root.st_mode & 07777), 0);
	UE_EQ("perm.restore_data", set_group_mode(DATA, data.st_uid, data.st_gid,
						  data.st_mode & 07777), 0);
	UE_EQ("perm.restore_dynev", set_group_mode(DYNEV, dyn.st_uid, dyn.st_gid,
						   dyn.st_mode & 07777), 0);
	UE_EQ("perm.root_restored", stat(TRACEFS, &st) == 0 &&
	      st.st_mode == root.st_mode && st.st_gid == root.st_gid, 1);
	UE_EQ("perm.data_restored", stat(DATA, &st) == 0 &&
	      st.st_mode == data.st_mode && st.st_gid == data.st_gid, 1);
	UE_EQ("perm.data_mode_0640", data.st_mode & 07777, 0640);
}

int main(void)
{
	ue_suite = "limits";
	max_events();
	persist();
	multi_format();
	multi_delete();
	multi_delete_busy();
	unprivileged();
	UE_EQ("no_events_left", active_events(), 0);
	return ue_failures ? 1 : 0;
}
