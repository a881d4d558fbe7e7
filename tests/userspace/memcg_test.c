// SPDX-License-Identifier: GPL-2.0
/*
 * Registrations charged to a memory cgroup at its limit
 * (src/private/event_dir.h). Before eventfs (5.10, 6.1) the core makes an
 * event's directory, its files' dentries and inodes, while the call is added,
 * charged to the caller's memory cgroup; a charge refused there, with no
 * fatal signal pending, left trace_add_event_call() succeeding for a
 * directory with files missing, or none. Each DIAG_IOCSREG must instead
 * either make the whole event (its directory as complete as that of an event
 * made outside the cgroup, listed in user_events_status) or fail with ENOMEM
 * leaving nothing (no directory, not listed).
 *
 * The cgroup is a cgroup v1 memory controller's with its OOM killer
 * disabled (memory.oom_control 1, as "docker run --oom-kill-disable" sets
 * it): a charge over the limit fails at once, without an OOM report. The
 * child that registers is its only member. "memcg_test v2" uses cgroup v2
 * instead (memory.max, the child at oom_score_adj -1000, so that the OOM
 * killer finds no victim): on 5.10 and 6.1 the charge then fails too, after
 * an OOM report whose stack the splat scan would take for a kernel bug, so
 * that mode is for running by hand. Debian's kernels from 6.12 have no v1
 * memory controller, and make event directories when they are looked up
 * (eventfs, 6.6), not at registration: there the v1 mode has nothing to
 * show and says so; before 6.6 a cgroup it cannot make is a failure.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/utsname.h>

#include "ue_abi.h"

#define STATUS		TRACEFS "/user_events_status"
#define MNT		"/tmp/ue-memcg"
#define CG		MNT "/ue_memcg_test"
/* Registrations tried, each with one page more room. */
#define TRIES		300

struct shared {
	int ret[TRIES];
	int err[TRIES];
	int tried;
	long long limit;
	__u32 words[TRIES];
};

static struct shared *sh;
static long long page;
static int v2;
static char ref_files[1024];

static void name_of(char *buf, size_t size, int i)
{
	snprintf(buf, size, "ue_memcg_%d", i);
}

/* The names in @dir, sorted, one per line; "" if it cannot be read. */
static void list_dir(const char *dir, char *out, size_t size)
{
	struct dirent **ents;
	size_t used = 0;
	int n, i;

	out[0] = '\0';
	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' && used < size)
			used += snprintf(out + used, size - used, "%s\n",
					 ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* Whether user_events_status lists @name ("name[ # Used by...]"). */
static int status_lists(const char *name)
{
	static char buf[1 << 20];
	char *line;
	size_t len = strlen(name);

	if (ue_read_text(STATUS, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, name, len) &&
		    (line[len] == '\0' || line[len] == ' '))
			return 1;
	return 0;
}

static int active_events(void)
{
	static char buf[1 << 20];
	char *p;

	if (ue_read_text(STATUS, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "Active: ");
	return p ? atoi(p + 8) : -1;
}

static int write_file(const char *dir, const char *file, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return ue_write_text(path, text, 0);
}

static long long read_num(const char *dir, const char *file)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (ue_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* Whether the running kernel has eventfs (6.6 on). */
static int eventfs_kernel(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 6);
}

/*
 * The memory cgroup: 0, or 1 if an eventfs kernel has none of the kind
 * asked for (said on stdout), or -1 on an error (a failed case).
 */
static int cgroup_setup(void)
{
	int ret;

	mkdir(MNT, 0755);
	if (v2) {
		ret = mount("cgroup2", MNT, "cgroup2", 0, NULL);
		if (ret && errno != EBUSY) {
			UE_EQ("setup.mount_v2", -errno, 0);
			return -1;
		}
		write_file(MNT, "cgroup.subtree_control", "+memory");
	} else {
		ret = mount("cgroup", MNT, "cgroup", 0, "memory");
		if (ret && eventfs_kernel()) {
			/* Nothing is charged at registration there. */
			printf("UE-INFO memcg: not run: no cgroup v1 memory controller (%s)\n",
			       strerror(errno));
			rmdir(MNT);
			return 1;
		}
		if (ret) {
			UE_EQ("setup.mount_v1", -errno, 0);
			return -1;
		}
	}
	rmdir(CG);
	ret = mkdir(CG, 0755);
	UE_EQ("setup.mkdir", ret ? -errno : 0, 0);
	if (ret)
		return -1;
	if (!v2)
		UE_EQ("setup.oom_control", write_file(CG, "memory.oom_control", "1"), 0);
	return 0;
}

static void cgroup_teardown(void)
{
	int i, ret = -1;

	/* The child is gone; its cgroup empties as it is reaped. */
	for (i = 0; i < 100 && ret; i++) {
		ret = rmdir(CG);
		if (ret)
			usleep(20000);
	}
	UE_EQ("teardown.rmdir", ret ? -errno : 0, 0);
	UE_EQ("teardown.umount", umount(MNT) ? -errno : 0, 0);
	rmdir(MNT);
}

static void tell(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		_exit(3);
}

static int hear(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

/*
 * The child: joins the cgroup, waits for its limit, then registers one
 * event per try on a file of its own, raising the limit by one page before
 * each: the charges made before the limit was set are used up first, then
 * each registration has a page more than the one before, and the failed
 * ones give back what they had, so that charges fail at many points in
 * turn, in the core's making of the directory among them. It holds its
 * events until the parent has looked.
 */
static void child(int to_parent, int from_parent)
{
	static int fds[TRIES];
	char text[64], cmd[64];
	const char *limit = v2 ? "memory.max" : "memory.limit_in_bytes";
	int lim_fd, i;

	for (i = 0; i < TRIES; i++) {
		fds[i] = ue_open_data();
		if (fds[i] < 0)
			_exit(2);
	}
	snprintf(text, sizeof(text), "%s/%s", CG, limit);
	lim_fd = open(text, O_WRONLY);
	if (lim_fd < 0)
		_exit(2);
	/* No page of ours is faulted in over the limit (v1 would wait). */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		_exit(2);
	if (write_file(CG, "cgroup.procs", "0"))
		_exit(2);
	if (v2 && ue_write_text("/proc/self/oom_score_adj", "-1000", 0))
		_exit(2);
	tell(to_parent);
	if (hear(from_parent))
		_exit(2);
	for (i = 0; i < TRIES; i++) {
		sh->limit += page;
		snprintf(text, sizeof(text), "%lld", sh->limit);
		if (pwrite(lim_fd, text, strlen(text), 0) < 0)
			_exit(2);
		name_of(cmd, sizeof(cmd), i);
		strcat(cmd, " u32 a");
		errno = 0;
		sh->ret[i] = ue_reg(fds[i], cmd, &sh->words[i], 0, 0, NULL);
		sh->err[i] = sh->ret[i] ? errno : 0;
		sh->tried = i + 1;
	}
	tell(to_parent);
	hear(from_parent);
	_exit(0);
}

/*
 * What the parent sees of try @i, the child still holding its files: made,
 * whole and listed; or refused with ENOMEM, and then either nothing left or,
 * refused after the event was made (its file keeps it, as upstream), the
 * event whole and listed.
 */
static void judge(int i, int *made, int *refused, int *bad)
{
	char name[32], dir[128], files[1024], what[160];
	int whole, listed, gone;

	name_of(name, sizeof(name), i);
	snprintf(dir, sizeof(dir), EVENTS "/%s", name);
	list_dir(dir, files, sizeof(files));
	whole = !strcmp(files, ref_files);
	listed = status_lists(name);
	gone = !ue_exists(dir) && listed == 0;
	if (sh->ret[i] == 0) {
		(*made)++;
		if (whole && listed == 1)
			return;
		snprintf(what, sizeof(what), "made.%s_whole", name);
		UE_STREQ(what, files, ref_files);
		snprintf(what, sizeof(what), "made.%s_listed", name);
		UE_EQ(what, listed, 1);
		(*bad)++;
		return;
	}
	(*refused)++;
	if (sh->err[i] == ENOMEM && (gone || (whole && listed == 1)))
		return;
	snprintf(what, sizeof(what), "refused.%s_errno", name);
	UE_EQ(what, sh->err[i], ENOMEM);
	snprintf(what, sizeof(what), "refused.%s_whole_or_gone", name);
	UE_STREQ(what, ue_exists(dir) ? files : "(gone)", ref_files);
	snprintf(what, sizeof(what), "refused.%s_listed", name);
	UE_EQ(what, listed, ue_exists(dir));
	(*bad)++;
}

static void run(void)
{
	int up[2], down[2], status = -1, i, made = 0, refused = 0, bad = 0;
	const char *limit = v2 ? "memory.max" : "memory.limit_in_bytes";
	const char *usage = v2 ? "memory.current" : "memory.usage_in_bytes";
	long long used;
	char text[32];
	pid_t pid;

	if (pipe(up) || pipe(down)) {
		UE_EQ("setup.pipe", -errno, 0);
		return;
	}
	pid = fork();
	if (!pid) {
		close(up[0]);
		close(down[1]);
		child(up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	UE_EQ("child.joined", hear(up[0]), 0);
	/* Rounded down to a page: what the kernel would keep of it. */
	used = read_num(CG, usage);
	sh->limit = used / page * page;
	snprintf(text, sizeof(text), "%lld", sh->limit);
	UE_EQ("setup.limit", write_file(CG, limit, text), 0);
	tell(down[1]);
	UE_EQ("child.registered", hear(up[0]), 0);

	for (i = 0; i < sh->tried; i++)
		judge(i, &made, &refused, &bad);
	printf("UE-INFO memcg: %d tried: %d made, %d refused, %d half made or wrong\n",
	       sh->tried, made, refused, bad);
	/* Preconditions: the limit was reached, and some were made. */
	UE_EQ("limit_reached", refused > 0, 1);
	UE_EQ("some_made", made > 0, 1);
	UE_EQ("all_whole_or_refused", bad, 0);

	write_file(CG, limit, v2 ? "max" : "-1");
	tell(down[1]);
	waitpid(pid, &status, 0);
	UE_EQ("child.exit_status", WIFEXITED(status) ? WEXITSTATUS(status) : 128, 0);
	close(up[0]);
	close(down[1]);
}

int main(int argc, char **argv)
{
	static char left[1 << 16];
	char dir[128];
	__u32 word = 0;
	int fd, ret;

	ue_suite = "memcg";
	page = sysconf(_SC_PAGESIZE);
	v2 = argc > 1 && !strcmp(argv[1], "v2");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	/* A directory made outside the cgroup: what a whole one holds. */
	fd = ue_open_data();
	UE_EQ("reference.registered", ue_reg(fd, "ue_memcg_ref u32 a", &word, 0, 0, NULL), 0);
	snprintf(dir, sizeof(dir), EVENTS "/%s", "ue_memcg_ref");
	list_dir(dir, ref_files, sizeof(ref_files));
	UE_EQ("reference.has_enable", !!strstr(ref_files, "enable\n"), 1);
	UE_EQ("reference.unregistered", ue_unreg(fd, &word, 0), 0);
	close(fd);

	ret = cgroup_setup();
	if (ret < 0)
		return 1;
	if (ret == 0) {
		run();
		cgroup_teardown();
	}
	UE_EQ("no_events_left", active_events(), 0);
	list_dir(EVENTS, left, sizeof(left));
	UE_EQ("no_dirs_left", !!strstr(left, "ue_memcg_"), 0);
	if (active_events()) {
		static char buf[4096];

		ue_read_text(STATUS, buf, sizeof(buf));
		printf("UE-INFO memcg: left: %s\n", buf);
	}
	return ue_failures ? 1 : 0;
}
