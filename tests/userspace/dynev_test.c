// SPDX-License-Identifier: GPL-2.0
/*
 * User events in dynamic_events: "u:" creation (persistent), the listing of
 * every user event, deletion with "-:" and "!u:" (exact fields, systems, busy
 * events), O_TRUNC, coexistence with kprobes, and the same parsing as
 * DIAG_IOCSREG. The whole file is compared at each step, so the suite expects
 * no other dynamic event to exist when it starts, and leaves none.
 *
 *   dynev_test                 the suite
 *   dynev_test race MODULE.ko  rmmod/insmod racing "u:" writes
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>

#include "ue_abi.h"

#define DYN	TRACEFS "/dynamic_events"
#define MULTI	TRACEFS "/events/user_events_multi"
#define KPROBE	"p:uetest_kp vfs_read"
#define KPROBE_LINE "p:kprobes/uetest_kp vfs_read\n"

static __u32 word;

/* Append @text to dynamic_events as one write(); 0 or -errno. */
static int dyn(const char *text)
{
	return ue_write_text(DYN, text, O_APPEND);
}

/* The whole of dynamic_events. */
static const char *dyn_text(void)
{
	static char buf[65536];

	if (ue_read_text(DYN, buf, sizeof(buf)) < 0)
		return "(unreadable)";
	return buf;
}

static int dir_exists(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), EVENTS "/%s", name);
	return ue_exists(path);
}

/* Number of user_events_multi directories named @prefix + ".<id>". */
static int multi_dirs(const char *prefix)
{
	DIR *d = opendir(MULTI);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)) &&
		    e->d_name[strlen(prefix)] == '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

/* open() of dynamic_events with O_TRUNC; 0 or -errno. */
static int dyn_trunc(void)
{
	int fd = open(DYN, O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* What create() leaves. */
#define FIVE								\
	"u:dyn_a u32 a; char[20] b\n"					\
	"u:dyn_b u64 x\n"						\
	"u:dyn_c char[0x14] c; unsigned int n\n"				\
	"u:dyn_d struct foo x 12; __data_loc char[] s; __rel_loc unsigned char[] r\n" \
	"u:dyn_e\n"

/* Whether this is a 5.10 kernel, whose core splits lines into words. */
static int kernel_5_10(void)
{
	struct utsname u;

	return !uname(&u) && !strncmp(u.release, "5.10.", 5);
}

static void create(void)
{
	int fd;

	UE_STREQ("start.empty", dyn_text(), "");

	UE_EQ("create.ok", dyn("u:dyn_a u32 a; char[20] b"), 0);
	UE_EQ("create.dir", dir_exists("dyn_a"), 1);
	UE_STREQ("create.listed", dyn_text(), "u:dyn_a u32 a; char[20] b\n");
	/* A trailing newline ends the line; the core splits lines. */
	UE_EQ("create.newline", dyn("u:dyn_b u64 x\n"), 0);
	UE_STREQ("create.listed_in_order", dyn_text(),
		 "u:dyn_a u32 a; char[20] b\nu:dyn_b u64 x\n");

	/* Persistent: it outlives the files that used it. */
	fd = ue_open_data();
	UE_EQ("persist.ioctl_same_event",
	      ue_reg(fd, "dyn_a u32 a;char[20] b", &word, 0, 0, NULL), 0);
	UE_STREQ("persist.listed_once", dyn_text(),
		 "u:dyn_a u32 a; char[20] b\nu:dyn_b u64 x\n");
	ue_unreg(fd, &word, 0);
	close(fd);
	UE_EQ("persist.survives_close", dir_exists("dyn_a"), 1);

	/* An identical line changes nothing; other fields clash. */
	UE_EQ("identical.ok", dyn("u:dyn_a u32 a;char[20] b;"), 0);
	UE_STREQ("identical.unchanged", dyn_text(),
		 "u:dyn_a u32 a; char[20] b\nu:dyn_b u64 x\n");
	UE_EQ("clash.eaddrinuse", dyn("u:dyn_a u64 a"), -EADDRINUSE);
	UE_EQ("clash.no_fields_eaddrinuse", dyn("u:dyn_a"), -EADDRINUSE);

	/* Spaces after "u:" are skipped; the original type text is shown. */
	UE_EQ("spaces.ok", dyn("u:   dyn_c char[0x14] c;unsigned int n"), 0);
	UE_EQ("struct.ok", dyn("u:dyn_d struct foo x 12;__data_loc char[] s;"
			       "__rel_loc unsigned char[] r"), 0);
	UE_EQ("nofields.ok", dyn("u:dyn_e"), 0);
	UE_STREQ("show.types_and_struct_size", dyn_text(), FIVE);

	/* Errors, and nothing created by them. */
	UE_EQ("grammar.einval", dyn("u:dyn_bad long a"), -EINVAL);
	UE_EQ("flags.einval", dyn("u:dyn_bad:x u32 a"), -EINVAL);
	UE_EQ("bad.nothing_created", dir_exists("dyn_bad"), 0);
	/* Not ours: every type declines it, which the core makes EINVAL. */
	UE_EQ("garbage.einval", dyn("garbage_line u32 a"), -EINVAL);
	UE_EQ("other_prefix.einval", dyn("x:dyn_bad u32 a"), -EINVAL);
	UE_EQ("upper_u.einval", dyn("U:dyn_bad u32 a"), -EINVAL);
	/*
	 * Runs of white space inside the fields: from 6.1 the core hands the
	 * line over whole and the parser rejects "u32  a"; 5.10's core splits
	 * it into words first, re-joined with single spaces, so there the
	 * event is created, as "u32 a".
	 */
	if (kernel_5_10()) {
		UE_EQ("ws.5_10_double_space_ok", dyn("u:dyn_ws u32  a"), 0);
		UE_EQ("ws.5_10_tab_same_event", dyn("u:dyn_ws\tu32\ta"), 0);
		UE_STREQ("ws.5_10_listed", dyn_text(), FIVE "u:dyn_ws u32 a\n");
		UE_EQ("ws.5_10_del", dyn("-:dyn_ws u32 a"), 0);
	} else {
		UE_EQ("ws.double_space_einval", dyn("u:dyn_ws u32  a"), -EINVAL);
	}
	UE_EQ("ws.nothing_left", dir_exists("dyn_ws"), 0);
	UE_STREQ("errors.nothing_listed", dyn_text(), FIVE);
}

static void delete(void)
{
	/* The fields must match exactly; none given matches no fields only. */
	UE_EQ("del.wrong_fields_enoent", dyn("-:dyn_a u64 a; char[20] b"), -ENOENT);
	UE_EQ("del.fewer_fields_enoent", dyn("-:dyn_a u32 a"), -ENOENT);
	UE_EQ("del.no_fields_enoent", dyn("-:dyn_a"), -ENOENT);
	UE_EQ("del.wrong_name_enoent", dyn("-:dyn_aa u32 a; char[20] b"), -ENOENT);
	UE_EQ("del.other_system_enoent", dyn("-:kprobes/dyn_a u32 a; char[20] b"), -ENOENT);
	UE_EQ("del.kept", dir_exists("dyn_a"), 1);
	UE_EQ("del.exact", dyn("-:dyn_a u32 a; char[20] b"), 0);
	UE_EQ("del.dir_gone", dir_exists("dyn_a"), 0);

	UE_EQ("del.bang_u", dyn("!u:dyn_b u64 x"), 0);
	UE_EQ("del.bang_u_gone", dir_exists("dyn_b"), 0);
	/*
	 * The core splits at white space only: "c;unsigned" is one word, so
	 * it does not match (as upstream); "c; unsigned" does.
	 */
	UE_EQ("del.semicolon_word_enoent",
	      dyn("-:user_events/dyn_c char[0x14] c;unsigned int n"), -ENOENT);
	UE_EQ("del.system_user_events",
	      dyn("-:user_events/dyn_c char[0x14] c; unsigned int n;"), 0);
	UE_EQ("del.system_user_events_gone", dir_exists("dyn_c"), 0);
	UE_EQ("del.struct_size_enoent",
	      dyn("-:dyn_d struct foo x 13; __data_loc char[] s; __rel_loc unsigned char[] r"),
	      -ENOENT);
	UE_EQ("del.struct", dyn("-:dyn_d struct foo x 12; __data_loc char[] s; "
				"__rel_loc unsigned char[] r"), 0);
	UE_EQ("del.fields_for_fieldless_enoent", dyn("-:dyn_e u32 a"), -ENOENT);
	UE_EQ("del.no_fields", dyn("-:dyn_e"), 0);
	UE_EQ("del.unknown_enoent", dyn("-:dyn_nothing"), -ENOENT);
	UE_STREQ("del.all_gone", dyn_text(), "");
}

/* Multi-format variants: listed under their registered name. */
static void multi(void)
{
	int fd = ue_open_data();
	int flags = USER_EVENT_REG_MULTI_FORMAT | USER_EVENT_REG_PERSIST;

	UE_EQ("multi.reg1", ue_reg(fd, "dyn_m u32 a", &word, 0, flags, NULL), 0);
	UE_EQ("multi.reg2", ue_reg(fd, "dyn_m u64 b", &word, 1, flags, NULL), 0);
	ue_unreg(fd, &word, 0);
	ue_unreg(fd, &word, 1);
	close(fd);
	UE_STREQ("multi.listed", dyn_text(), "u:dyn_m u32 a\nu:dyn_m u64 b\n");
	UE_EQ("multi.dirs", multi_dirs("dyn_m"), 2);
	UE_EQ("multi.del_wrong_fields_enoent",
	      dyn("-:user_events_multi/dyn_m u32 b"), -ENOENT);
	UE_EQ("multi.del_system", dyn("-:user_events_multi/dyn_m u32 a"), 0);
	UE_STREQ("multi.one_left", dyn_text(), "u:dyn_m u64 b\n");
	UE_EQ("multi.one_dir_left", multi_dirs("dyn_m"), 1);
	UE_EQ("multi.del_plain", dyn("-:dyn_m u64 b"), 0);
	UE_STREQ("multi.none_left", dyn_text(), "");
	UE_EQ("multi.no_dir_left", multi_dirs("dyn_m"), 0);
}

/* Events in use are busy, persistent or not; O_TRUNC is all or nothing. */
static void busy(void)
{
	const char *both;
	int fd;

	UE_EQ("busy.create", dyn("u:dyn_p u32 a"), 0);
	UE_EQ("busy.kprobe", dyn(KPROBE), 0);
	fd = ue_open_data();
	UE_EQ("busy.ioctl_np", ue_reg(fd, "dyn_np u16 v", &word, 0, 0, NULL), 0);
	/* Every user event is listed, ioctl-registered ones too. */
	both = "u:dyn_p u32 a\n" KPROBE_LINE "u:dyn_np u16 v\n";
	UE_STREQ("busy.listed_with_kprobe", dyn_text(), both);

	UE_EQ("busy.np_ebusy", dyn("-:dyn_np u16 v"), -EBUSY);
	UE_EQ("trunc.np_ebusy", dyn_trunc(), -EBUSY);
	UE_STREQ("trunc.nothing_deleted", dyn_text(), both);
	UE_EQ("trunc.dirs_kept", dir_exists("dyn_p") && dir_exists("dyn_np"), 1);

	/* A persistent event held by a file is busy too. */
	UE_EQ("busy.ioctl_p", ue_reg(fd, "dyn_p u32 a", &word, 1, 0, NULL), 0);
	ue_unreg(fd, &word, 0);
	ue_unreg(fd, &word, 1);
	UE_EQ("busy.p_held_ebusy", dyn("-:dyn_p u32 a"), -EBUSY);
	UE_EQ("busy.p_kept", dir_exists("dyn_p"), 1);
	close(fd);
	/* The non-persistent one went with the file; the other stays. */
	UE_STREQ("busy.after_close", dyn_text(), "u:dyn_p u32 a\n" KPROBE_LINE);

	/* Enabled by ftrace: busy. */
	UE_EQ("busy.enable", ue_enable("dyn_p", 1), 0);
	UE_EQ("busy.enabled_ebusy", dyn("-:dyn_p u32 a"), -EBUSY);
	UE_EQ("trunc.enabled_ebusy", dyn_trunc(), -EBUSY);
	UE_EQ("busy.disable", ue_enable("dyn_p", 0), 0);

	/* Deleting the kprobe leaves our event alone, and the converse. */
	UE_EQ("kprobe.del", dyn("-:kprobes/uetest_kp"), 0);
	UE_STREQ("kprobe.del_left_ours", dyn_text(), "u:dyn_p u32 a\n");
	UE_EQ("kprobe.again", dyn(KPROBE), 0);
	UE_EQ("kprobe.ours_again", dyn("u:dyn_q"), 0);
	UE_STREQ("kprobe.order", dyn_text(),
		 "u:dyn_p u32 a\n" KPROBE_LINE "u:dyn_q\n");
	UE_EQ("kprobe.del_ours", dyn("-:dyn_p u32 a"), 0);
	UE_STREQ("kprobe.kept", dyn_text(), KPROBE_LINE "u:dyn_q\n");

	/* Idle and persistent: O_TRUNC deletes every dynamic event. */
	UE_EQ("trunc.idle_ok", dyn_trunc(), 0);
	UE_STREQ("trunc.all_gone", dyn_text(), "");
	UE_EQ("trunc.dir_gone", dir_exists("dyn_q"), 0);
	UE_EQ("trunc.kprobe_gone", ue_exists(TRACEFS "/events/kprobes/uetest_kp"), 0);
}

/* Whether @name's directory is gone within @ms milliseconds. */
static int dir_gone_within(const char *name, int ms)
{
	for (; ms > 0 && dir_exists(name); ms -= 50)
		usleep(50000);
	return !dir_exists(name);
}

/*
 * An eprobe on a user event holds its call (6.1+, call->refcnt): the event
 * cannot be removed while it does. Once the eprobe is gone the event must
 * be deletable again and, when nothing of ours holds it any more, go by
 * itself (else it would stay busy for ever, and pin the module).
 */
static void eprobe_hold(void)
{
	int fd;

	if (kernel_5_10()) {
		/* 5.10 has no eprobes: nothing can hold a call there. */
		UE_EQ("eprobe.none_on_5_10", dyn("e:uetest_ep user_events/dyn_h1") < 0, 1);
		return;
	}
	fd = ue_open_data();
	UE_EQ("eprobe.reg1", ue_reg(fd, "dyn_h1 u32 a", &word, 0, 0, NULL), 0);
	UE_EQ("eprobe.reg2", ue_reg(fd, "dyn_h2 u32 a", &word, 1, 0, NULL), 0);
	UE_EQ("eprobe.create1", dyn("e:uetest_ep1 user_events/dyn_h1"), 0);
	UE_EQ("eprobe.create2", dyn("e:uetest_ep2 user_events/dyn_h2"), 0);
	ue_unreg(fd, &word, 0);
	ue_unreg(fd, &word, 1);
	close(fd);
	/* Our last reference went while the eprobes hold the calls. */
	UE_EQ("eprobe.kept_while_held", dir_exists("dyn_h1") && dir_exists("dyn_h2"), 1);
	fd = ue_open_data();
	UE_ERRNO("eprobe.held_del_ebusy", ue_del(fd, "dyn_h1"), EBUSY);
	UE_EQ("eprobe.held_dyn_del_ebusy", dyn("-:dyn_h1 u32 a"), -EBUSY);
	UE_EQ("eprobe.del1", dyn("-:eprobes/uetest_ep1"), 0);
	UE_EQ("eprobe.del2", dyn("-:eprobes/uetest_ep2"), 0);
	/* Deletable at once... (the work item may have been quicker) */
	errno = 0;
	UE_EQ("eprobe.released_del_ok", ue_del(fd, "dyn_h1") == 0 || errno == ENOENT, 1);
	UE_EQ("eprobe.released_del_gone", dir_exists("dyn_h1"), 0);
	close(fd);
	/* ...and gone by itself within a few seconds. */
	UE_EQ("eprobe.released_goes_by_itself", dir_gone_within("dyn_h2", 5000), 1);
}

/*
 * The same command through both paths, as upstream's selftest dyn_test
 * (tools/testing/selftests/user_events/): the same result, and on success the
 * same listing and format (but for the ID line).
 */
static void format_of(const char *name, char *buf, size_t size)
{
	char path[256], *id;

	snprintf(path, sizeof(path), EVENTS "/%s/format", name);
	ue_read_text(path, buf, size);
	id = strstr(buf, "\nID: ");
	if (id)
		memmove(id, strchr(id + 1, '\n'), strlen(strchr(id + 1, '\n')) + 1);
}

static void equivalence(void)
{
	static const struct {
		const char	*fields;
		int		err;	/* expected of both paths */
	} cases[] = {
		{ "", 0 },
		{ " u32 a", 0 },
		{ " u32 a;char[20] b", 0 },
		{ " u32 a;", 0 },
		{ " s16 a;;s8 b", 0 },
		{ " char[0x14] c; unsigned char[20] d", 0 },
		{ " __data_loc char[] s;__rel_loc unsigned char[] r", 0 },
		{ " struct foo x 20;s64 y", 0 },
		{ " struct foo x", EINVAL },
		{ " char a 20", EINVAL },
		{ " char[9999] a", EINVAL },
		{ " char[aa] a", EINVAL },
		{ " long a", EINVAL },
		{ " u32 a b c", EINVAL },
		{ " unsigned a", EINVAL },
	};
	static char fmt_ioctl[8192], fmt_dyn[8192], show_ioctl[1024], show_dyn[1024];
	char cmd[256], name[96];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = ue_open_data();
		int r_ioctl, r_dyn;

		snprintf(cmd, sizeof(cmd), "u:dyn_eq%s", cases[i].fields);
		r_ioctl = ue_reg(fd, cmd + 2, &word, 0, 0, NULL) ? errno : 0;
		fmt_ioctl[0] = show_ioctl[0] = '\0';
		if (!r_ioctl) {
			format_of("dyn_eq", fmt_ioctl, sizeof(fmt_ioctl));
			snprintf(show_ioctl, sizeof(show_ioctl), "%s", dyn_text());
			ue_unreg(fd, &word, 0);
		}
		close(fd);

		r_dyn = -dyn(cmd);
		fmt_dyn[0] = show_dyn[0] = '\0';
		if (!r_dyn) {
			format_of("dyn_eq", fmt_dyn, sizeof(fmt_dyn));
			snprintf(show_dyn, sizeof(show_dyn), "%s", dyn_text());
			fd = ue_open_data();
			ue_del(fd, "dyn_eq");
			close(fd);
		}

		snprintf(name, sizeof(name), "equiv.%02zu.ioctl", i);
		UE_EQ(name, r_ioctl, cases[i].err);
		snprintf(name, sizeof(name), "equiv.%02zu.dyn", i);
		UE_EQ(name, r_dyn, cases[i].err);
		if (cases[i].err)
			continue;
		snprintf(name, sizeof(name), "equiv.%02zu.format", i);
		UE_STREQ(name, fmt_dyn, fmt_ioctl);
		snprintf(name, sizeof(name), "equiv.%02zu.format_read", i);
		UE_EQ(name, strncmp(fmt_dyn, "name: dyn_eq\n", 13), 0);
		snprintf(name, sizeof(name), "equiv.%02zu.listing", i);
		UE_STREQ(name, show_dyn, show_ioctl);
	}
	UE_STREQ("equiv.nothing_left", dyn_text(), "");
}

/* No 512-byte limit on a line. */
static void long_line(void)
{
	static char cmd[4096], want[4096];
	int fd, i;

	strcpy(cmd, "u:dyn_long");
	strcpy(want, "u:dyn_long");
	for (i = 0; i < 150; i++) {
		sprintf(cmd + strlen(cmd), "%su8 f%03d", i ? ";" : " ", i);
		sprintf(want + strlen(want), "%su8 f%03d", i ? "; " : " ", i);
	}
	strcat(want, "\n");
	UE_EQ("long.over_512", strlen(cmd) > 900, 1);
	UE_EQ("long.ok", dyn(cmd), 0);
	UE_STREQ("long.listed", dyn_text(), want);
	fd = ue_open_data();
	UE_ERRNO("long.ioctl_limit_einval",
		 ue_reg(fd, cmd + 2, &word, 0, 0, NULL), EINVAL);
	UE_EQ("long.delete", ue_del(fd, "dyn_long"), 0);
	close(fd);
}

/*
 * Unload racing creates (src/dynevent.c): a child writes "u:" lines and
 * deletes them while the parent unloads and reloads the module, with nothing
 * but the child's events pinning it. Each rmmod must either fail with EAGAIN
 * or succeed, each reload succeed; each create succeed or, with the module
 * gone or going, find no handler (EINVAL). A crash or a leaked event shows as
 * a kernel splat or a failed final rmmod.
 */
static int race(const char *ko)
{
	int unloads = 0, busy = 0, other = 0, rounds = 0, status = -1;
	struct timespec end, now;
	char detail[160];
	pid_t pid, done = 0;
	int mfd;

	pid = fork();
	if (!pid) {
		int ok = 0, odd = 0, r;

		/*
		 * 300 rounds, and on until one create found the module: with
		 * two vCPUs, a reload under TCG (600 ms on 5.10) can outlast
		 * them all.
		 */
		for (int i = 0; i < 300 || (!ok && i < 5000); i++) {
			r = dyn("u:dyn_race u32 a");
			if (!r)
				ok++;
			else if (r != -EINVAL)
				odd++;
			r = dyn("-:dyn_race u32 a");
			if (r && r != -ENOENT)
				odd++;
			/* Leave the parent times when no event exists. */
			usleep(1000);
		}
		_exit(odd ? 2 : ok ? 0 : 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 60;
	while (!done) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec)
			break;
		rounds++;
		if (!syscall(SYS_delete_module, "user_events", O_NONBLOCK)) {
			unloads++;
			mfd = open(ko, O_RDONLY | O_CLOEXEC);
			if (syscall(SYS_finit_module, mfd, "", 0))
				other++;
			close(mfd);
		} else if (errno == EAGAIN) {
			busy++;
		} else {
			other++;
		}
		usleep(300);
		done = waitpid(pid, &status, WNOHANG);
	}
	if (!done)
		done = waitpid(pid, &status, 0);
	snprintf(detail, sizeof(detail),
		 "rounds %d: unloads %d, busy %d, other errors %d; child exit %d",
		 rounds, unloads, busy, other,
		 done == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	printf("UE-INFO dynev race: %s\n", detail);
	ue_result("race.no_other_errors", !other, detail);
	/* 0: some creates worked, and every failure was EINVAL/ENOENT. */
	ue_result("race.child_ok", done == pid && WIFEXITED(status) &&
		  !WEXITSTATUS(status), detail);
	ue_result("race.some_unloads", unloads > 0, detail);
	return ue_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	ue_suite = "dynev";
	if (argc == 3 && !strcmp(argv[1], "race"))
		return race(argv[2]);
	create();
	delete();
	multi();
	busy();
	eprobe_hold();
	equivalence();
	long_line();
	UE_STREQ("end.empty", dyn_text(), "");
	return ue_failures ? 1 : 0;
}
