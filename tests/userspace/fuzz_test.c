// SPDX-License-Identifier: GPL-2.0
/*
 * The seeded ABI fuzzer (suite fuzz): random DIAG_IOCSREG, DIAG_IOCSUNREG,
 * DIAG_IOCSDEL and unknown ioctls, write()/writev()/pwrite() with random
 * indexes, sizes, __data_loc/__rel_loc words and iovec splits, "u:"
 * creations and deletions in dynamic_events, enable toggles, and writes to
 * kernel.user_events_max, each result checked against what upstream allows
 * for that call:
 *   - exactly, where upstream's order of checks decides (the argument
 *     checks of user_reg_get(), the size and reserved checks of
 *     user_unreg_get(), the first checks of user_events_write_core(), an
 *     unknown ioctl's ENOTTY, a pwrite at an offset);
 *   - as a set of errnos otherwise (what depends on events other ops made).
 * Nothing is written outside the fuzzer's own enable page: every enable
 * address is in it, or deliberately unmapped, read-only, misaligned or a
 * kernel address.
 *
 * Usage: fuzz_test [SEED [OPS]]   (default: a seed from the clock, 100000)
 * The seed is printed first; the same seed and count run the same calls
 * (each call is drawn from the generator alone), so a failure reproduces.
 *
 * The calls run in a child; afterwards the parent (with no enablers of its
 * own) deletes the persistent events the child made, restores
 * user_events_max and checks that nothing is left.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/uio.h>

#include "ue_abi.h"

#define FUZZ_NAMES	6
#define FUZZ_FDS	3
#define FUZZ_MAX_FILE	"/proc/sys/kernel/user_events_max"
#define FUZZ_DYN	TRACEFS "/dynamic_events"

static unsigned long long rng_state;

static unsigned long long rnd(void)
{
	unsigned long long x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* A number below n (n > 0). */
static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static int chance(unsigned int percent)
{
	return below(100) < percent;
}

/* Field lists: valid ones (matching or clashing) and malformed ones. */
static const char *const fields[] = {
	"", "u32 a", "u32 a;u32 b", "u64 x; char[8] s", "__data_loc char[] msg",
	"__rel_loc char[] r; u16 n", "struct foo f 12", "unsigned int u",
	"u32 a;", "u32  a", "long l", "char[] s", "char[9999] s", "struct foo f",
	"u32", "u32 a b", "char[0x14] s", "int i; short h; char c",
	"__data_loc u8[] raw", "u8 a;;u8 b",
};

/* Per file description: the indexes DIAG_IOCSREG gave, and those it may have. */
struct fuzz_fd {
	int fd;
	unsigned int known;	/* highest returned index + 1 */
	unsigned int maybe;	/* registrations that failed after taking an index */
};

static struct fuzz_fd fds[FUZZ_FDS];
static unsigned char *page;	/* enable words: 2 pages, rw */
static unsigned char *ro_page;	/* read-only */
static unsigned char *none_page;	/* PROT_NONE */
static unsigned long long seed, op;
static unsigned long long calls[8], succeeded[8], bad[8];
static const char *const kinds[8] = {
	"reg", "unreg", "del", "ioctl", "write", "dynev", "enable", "sysctl"
};

enum { K_REG, K_UNREG, K_DEL, K_IOCTL, K_WRITE, K_DYNEV, K_ENABLE, K_SYSCTL };

/*
 * A result against what is allowed: @exact >= 0 is the only errno allowed
 * (0: success), otherwise @allowed lists them (0-terminated, success as -1).
 */
static void check(int kind, const char *what, long ret, int err, int exact,
		  const int *allowed)
{
	char d[400];
	int ok = 0, i;

	calls[kind]++;
	succeeded[kind] += ret >= 0;
	if (exact >= 0) {
		ok = exact ? (ret == -1 && err == exact) : ret >= 0;
	} else if (ret >= 0) {
		for (i = 0; allowed[i]; i++)
			ok |= allowed[i] == -1;
	} else {
		for (i = 0; allowed[i]; i++)
			ok |= allowed[i] == err;
	}
	if (ok)
		return;
	if (!bad[kind]++) {
		char want[120] = "";
		int n = 0;

		if (exact >= 0)
			snprintf(want, sizeof(want), "%d", exact);
		else
			for (i = 0; allowed[i] && n < (int)sizeof(want) - 8; i++)
				n += snprintf(want + n, sizeof(want) - n, "%s%d", i ? "," : "",
					      allowed[i] == -1 ? 0 : allowed[i]);
		snprintf(d, sizeof(d), "seed %llu op %llu: %.200s returned %ld errno %d (%s), want errno %s (0: success)",
			 seed, op, what, ret, ret < 0 ? err : 0,
			 ret < 0 ? strerror(err) : "-", want);
		ue_result(kinds[kind], 0, d);
	}
}

/*
 * Where access_ok() stops taking user addresses (user_reg_get()'s last
 * check), for the addresses enable_addr() draws: x86-64's TASK_SIZE_MAX; on
 * arm64 the mappings lie below 2^48 (no mmap hint above it) and the kernel's
 * addresses at 0xffff8... are above any user space, 48 or 52 bits.
 */
#ifdef __aarch64__
#define FUZZ_USER_TOP (1ULL << 48)
#else
#define FUZZ_USER_TOP 0x00007ffffffff000ULL
#endif

/* A user address for an enable word, for the alignment and address checks. */
static unsigned long long enable_addr(unsigned int size)
{
	switch (below(12)) {
	case 0:
		return 0;
	case 1:
		return (unsigned long long)(uintptr_t)ro_page;
	case 2:
		return (unsigned long long)(uintptr_t)none_page;
	case 3:
		return 0xffff800000000000ULL + below(4096) * 8;
	case 4:
		return (unsigned long long)(uintptr_t)page + below(8192);
	default:
		return (unsigned long long)(uintptr_t)page + below(8192 / 8) * 8 + (size == 4 && chance(50) ? 4 : 0);
	}
}

/*
 * The size field of an ioctl struct of @min bytes in @buf (the size checks of
 * user_reg_get() and user_unreg_get()), drawn one time in @odds: too small,
 * past a page, or larger (now and then with a non-zero byte past @min);
 * otherwise @min.
 */
static unsigned int arg_size(unsigned char *buf, unsigned int min, unsigned int odds)
{
	unsigned int v = below(odds), size = min;

	if (v == 0)
		size = below(min);
	else if (v == 1)
		size = 4097 + below(64);
	else if (v < 2 + odds / 10)
		size = min + 1 + below(4096 - min - 1);
	if (size > min && size <= 4096 && chance(30))
		buf[min + below(size - min)] = 1 + below(255);
	return size;
}

/* What the size checks give @size (0: they pass). */
static int arg_size_errno(const unsigned char *buf, unsigned int size, unsigned int min)
{
	unsigned int i;

	if (size > 4096)
		return E2BIG;
	if (size < min)
		return EINVAL;
	for (i = min; i < size; i++)
		if (buf[i])
			return E2BIG;
	return 0;
}

static void fuzz_reg(void)
{
	unsigned char buf[4096 + 64] __attribute__((aligned(8)));
	struct user_reg *reg = (struct user_reg *)buf;
	static const unsigned int sizes[] = { 0, 1, 2, 4, 8, 16 };
	struct fuzz_fd *f = &fds[below(FUZZ_FDS)];
	char name[700];
	unsigned int size, esize, bit, flags;
	unsigned long long addr, sz;
	int exact, ret, err;
	static const int later[] = { -1, EADDRINUSE, EFAULT, EINVAL, ENOMEM, EMFILE, ENODEV, 0 };

	memset(buf, 0, sizeof(buf));
	size = arg_size(buf, 28, 20);
	esize = chance(85) ? (chance(50) ? 4 : 8) : sizes[below(6)];
	bit = chance(90) ? below(esize ? esize * 8 : 8) : below(80);
	flags = chance(90) ? below(4) : below(16);
	addr = enable_addr(esize);
	switch (below(25)) {
	case 0:
		sz = 0;
		break;
	case 1:
		sz = (unsigned long long)(uintptr_t)none_page;
		break;
	case 2:
		memset(name, 'n', sizeof(name));
		sz = (unsigned long long)(uintptr_t)name;
		break;
	default:
		snprintf(name, sizeof(name), "%sfz%u%s%s", chance(3) ? "bad:" : "",
			 below(FUZZ_NAMES), chance(60) ? " " : "",
			 fields[below(sizeof(fields) / sizeof(fields[0]))]);
		sz = (unsigned long long)(uintptr_t)name;
	}
	reg->size = size;
	reg->enable_bit = bit;
	reg->enable_size = esize;
	reg->flags = flags;
	reg->enable_addr = addr;
	reg->name_args = sz;

	/* The checks of upstream's user_reg_get(), in order. */
	exact = arg_size_errno(buf, size, 28);
	if (!exact) {
		if (flags & ~3U)
			exact = EINVAL;
		else if (esize != 4 && esize != 8)
			exact = EINVAL;
		else if (addr % esize)
			exact = EINVAL;
		else if (bit > esize * 8 - 1)
			exact = EINVAL;
		else if (addr >= FUZZ_USER_TOP)
			exact = EFAULT;
		else
			exact = -1;
	}
	if (chance(2))
		ret = ioctl(f->fd, DIAG_IOCSREG, ue_bad_ptr), exact = EFAULT;
	else
		ret = ioctl(f->fd, DIAG_IOCSREG, reg);
	err = errno;
	check(K_REG, "DIAG_IOCSREG", ret, err, exact, later);
	if (!ret && reg->write_index + 1 > f->known)
		f->known = reg->write_index + 1;
	/*
	 * ENOMEM or EFAULT after the checks: the event was found or made and
	 * this file took an index for it, then the enabler or the enable
	 * write failed.
	 */
	if (ret && (err == EFAULT || err == ENOMEM) && exact < 0)
		f->maybe++;
}

static void fuzz_unreg(void)
{
	unsigned char buf[4096 + 64] __attribute__((aligned(8)));
	struct user_unreg *u = (struct user_unreg *)buf;
	unsigned int size;
	int exact, ret;
	static const int later[] = { -1, ENOENT, EFAULT, 0 };

	memset(buf, 0, sizeof(buf));
	size = arg_size(buf, 16, 10);
	u->size = size;
	u->disable_bit = below(70);
	u->disable_addr = enable_addr(4);
	if (chance(5))
		u->__reserved = 1;
	if (chance(5))
		u->__reserved2 = 1;
	/*
	 * Upstream's user_unreg_get() checks the reserved fields before the
	 * copy's error is returned, but a copy that failed copied nothing
	 * (upstream then reads its stack's garbage; ours a zeroed struct):
	 * E2BIG.
	 */
	exact = arg_size_errno(buf, size, 16);
	if (!exact)
		exact = u->__reserved || u->__reserved2 ? EINVAL : -1;
	ret = ioctl(fds[below(FUZZ_FDS)].fd, DIAG_IOCSUNREG, u);
	check(K_UNREG, "DIAG_IOCSUNREG", ret, errno, exact, later);
}

static void fuzz_del(void)
{
	char name[700];
	int ret, exact = -1;
	static const int later[] = { -1, ENOENT, EBUSY, 0 };

	switch (below(10)) {
	case 0:
		ret = ioctl(fds[0].fd, DIAG_IOCSDEL, ue_bad_ptr);
		exact = EFAULT;
		break;
	case 1:
		memset(name, 'd', sizeof(name));
		ret = ioctl(fds[0].fd, DIAG_IOCSDEL, name);
		exact = EINVAL;
		break;
	default:
		snprintf(name, sizeof(name), "%s%u", chance(50) ? "fz" : "fzp", below(FUZZ_NAMES));
		ret = ioctl(fds[below(FUZZ_FDS)].fd, DIAG_IOCSDEL, name);
	}
	check(K_DEL, "DIAG_IOCSDEL", ret, errno, exact, later);
}

static void fuzz_ioctl(void)
{
	/* Our magic with a number past the three: never a VFS ioctl. */
	unsigned long cmd = _IOC(below(4), '*', 3 + below(253), below(64));
	long ret = ioctl(fds[below(FUZZ_FDS)].fd, cmd, page);

	check(K_IOCTL, "unknown ioctl", ret, errno, ENOTTY, NULL);
}

static void fuzz_write(void)
{
	unsigned char data[600];
	struct iovec iov[4];
	struct fuzz_fd *f = &fds[below(FUZZ_FDS)];
	unsigned int len = chance(5) ? below(4) : 4 + below(sizeof(data) - 4);
	unsigned int i, n, at, cut;
	int idx, exact = -1, how = below(10);
	long ret;
	static const int later[] = { -1, EINVAL, EBADF, EFAULT, ENOENT, 0 };

	for (i = 0; i < sizeof(data); i++)
		data[i] = chance(30) ? 0 : (unsigned char)rnd();
	switch (below(8)) {
	case 0: idx = -1 - (int)below(3); break;
	case 1: idx = (int)(rnd() & 0x7fffffff); break;
	default: idx = (int)below(f->known + f->maybe + 2);
	}
	memcpy(data, &idx, sizeof(idx));
	/* A __data_loc/__rel_loc word at a likely field offset. */
	if (len >= 12 && chance(50)) {
		__u32 loc = (below(len + 8) & 0xffff) | (below(len + 8) << 16);

		memcpy(data + 4 + 4 * below(2), &loc, sizeof(loc));
	}
	/*
	 * The first checks of upstream's user_events_write_core(); a pwrite at
	 * an offset fails before them.
	 */
	if (len < 4)
		exact = EFAULT;
	else if (idx < 0)
		exact = EINVAL;
	else if ((unsigned int)idx >= f->known + f->maybe)
		exact = ENOENT;
	/* (writev() of no bytes returns 0 before reaching the file) */
	if (how >= 5 && !len)
		exact = 0;
	if (how == 0) {
		ret = pwrite(f->fd, data, len, 1 + below(100));
		exact = EFAULT;
	} else if (how == 1 && len) {
		ret = write(f->fd, ue_bad_ptr, len);
		exact = EFAULT;
	} else if (how < 5) {
		ret = write(f->fd, data, len);
	} else {
		n = 1 + below(4);
		for (i = 0, at = 0; i < n; i++) {
			cut = i == n - 1 ? len - at : below(len - at + 1);
			iov[i].iov_base = data + at;
			iov[i].iov_len = cut;
			at += cut;
		}
		ret = writev(f->fd, iov, n);
	}
	check(K_WRITE, "write", ret, errno, exact, later);
	if (ret >= 0 && ret != (long)len) {
		calls[K_WRITE]++;
		if (!bad[K_WRITE]++) {
			char d[200];

			snprintf(d, sizeof(d), "seed %llu op %llu: write of %u bytes returned %ld",
				 seed, op, len, ret);
			ue_result("write", 0, d);
		}
	}
}

static int write_file(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	int ret, err;

	if (fd < 0)
		return -1;
	ret = write(fd, text, strlen(text));
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

static void fuzz_dynev(void)
{
	char line[600];
	const char *fl = fields[below(sizeof(fields) / sizeof(fields[0]))];
	static const int create[] = { -1, EINVAL, EADDRINUSE, EMFILE, ENOMEM, ENODEV, 0 };
	static const int del[] = { -1, ENOENT, EBUSY, EINVAL, 0 };
	int ret;

	switch (below(8)) {
	case 0:
		snprintf(line, sizeof(line), "-:fzp%u%s%s", below(FUZZ_NAMES), *fl ? " " : "", fl);
		ret = write_file(FUZZ_DYN, line, O_APPEND);
		check(K_DYNEV, "dynamic_events delete", ret, errno, -1, del);
		return;
	case 1:
		snprintf(line, sizeof(line), "!u:fzp%u%s%s", below(FUZZ_NAMES), *fl ? " " : "", fl);
		ret = write_file(FUZZ_DYN, line, O_APPEND);
		check(K_DYNEV, "dynamic_events delete", ret, errno, -1, del);
		return;
	case 2:
		if (chance(10)) {
			/* O_TRUNC: every dynamic event, or EBUSY while one is busy. */
			int fd = open(FUZZ_DYN, O_WRONLY | O_TRUNC);
			static const int trunc[] = { -1, EBUSY, 0 };

			check(K_DYNEV, "dynamic_events O_TRUNC", fd, errno, -1, trunc);
			if (fd >= 0)
				close(fd);
			return;
		}
		/* fall through */
	default:
		snprintf(line, sizeof(line), "u:fzp%u%s%s", below(FUZZ_NAMES), *fl ? " " : "", fl);
		ret = write_file(FUZZ_DYN, line, O_APPEND);
		check(K_DYNEV, "dynamic_events create", ret, errno, -1, create);
	}
}

static void fuzz_enable(void)
{
	char path[200];
	static const int allowed[] = { -1, ENOENT, 0 };
	int ret;

	snprintf(path, sizeof(path), EVENTS "/%s%u/enable", chance(50) ? "fz" : "fzp",
		 below(FUZZ_NAMES));
	ret = write_file(path, chance(50) ? "1" : "0", 0);
	/* (an event deleted between open and write: ENODEV from the core) */
	if (ret < 0 && errno == ENODEV)
		ret = 0;
	check(K_ENABLE, "enable", ret, errno, -1, allowed);
}

static void fuzz_sysctl(void)
{
	static const char *const bad_values[] = { "-1", "x", "", "4294967296", "0x" };
	char v[40];
	int ret, exact = 0;

	if (chance(25)) {
		const char *b = bad_values[below(5)];

		ret = write_file(FUZZ_MAX_FILE, b, 0);
		/* (an empty write changes nothing and succeeds) */
		exact = *b ? EINVAL : 0;
	} else {
		snprintf(v, sizeof(v), "%u", chance(50) ? below(8) : 32768);
		ret = write_file(FUZZ_MAX_FILE, v, 0);
	}
	check(K_SYSCTL, "user_events_max", ret, errno, exact, NULL);
}

static void fuzz_run(unsigned long long ops)
{
	int i;

	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || ro_page == MAP_FAILED || none_page == MAP_FAILED) {
		ue_result("setup", 0, "mmap failed");
		return;
	}
	for (i = 0; i < FUZZ_FDS; i++)
		fds[i].fd = ue_open_data();
	for (op = 0; op < ops; op++) {
		unsigned int k = below(100);

		if (k < 30)
			fuzz_reg();
		else if (k < 38)
			fuzz_unreg();
		else if (k < 42)
			fuzz_del();
		else if (k < 45)
			fuzz_ioctl();
		else if (k < 90)
			fuzz_write();
		else if (k < 95)
			fuzz_dynev();
		else if (k < 99)
			fuzz_enable();
		else
			fuzz_sysctl();
		/* Now and then a file description starts over. */
		if (below(5000) == 0) {
			i = below(FUZZ_FDS);
			close(fds[i].fd);
			fds[i].fd = ue_open_data();
			fds[i].known = fds[i].maybe = 0;
		}
	}
	for (i = 0; i < 8; i++) {
		char d[100];

		printf("UE-INFO fuzz %s: %llu calls, %llu succeeded\n", kinds[i], calls[i],
		       succeeded[i]);
		if (bad[i])
			continue;
		snprintf(d, sizeof(d), "%llu calls", calls[i]);
		ue_result(kinds[i], calls[i] > 0, d);
	}
}

/* After the child: nothing of the fuzzer's is left. */
static void fuzz_cleanup(void)
{
	char status[4096];
	int fd = ue_open_data(), i, n;

	write_file(FUZZ_MAX_FILE, "32768", 0);
	write_file(EVENTS "/enable", "0", 0);
	/*
	 * Every user event dynamic_events lists (persistent ones, made with
	 * names of any of the shapes the fuzzer writes): DIAG_IOCSDEL of its
	 * name, which deletes every variant.
	 */
	for (i = 0; i < 50; i++) {
		FILE *dyn = fopen(FUZZ_DYN, "r");
		char line[4200], *end;
		int deleted = 0;

		while (dyn && fgets(line, sizeof(line), dyn)) {
			if (strncmp(line, "u:", 2))
				continue;
			end = line + 2 + strcspn(line + 2, " \n");
			*end = 0;
			deleted += !ioctl(fd, DIAG_IOCSDEL, line + 2);
		}
		if (dyn)
			fclose(dyn);
		if (!deleted)
			break;
	}
	close(fd);
	/* Orphans go from delayed work: up to 10 s. */
	for (i = 0; i < 100; i++) {
		fd = open(TRACEFS "/user_events_status", O_RDONLY);
		n = fd < 0 ? 0 : read(fd, status, sizeof(status) - 1);
		if (fd >= 0)
			close(fd);
		status[n > 0 ? n : 0] = 0;
		if (!strcmp(status, "\nActive: 0\nBusy: 0\n"))
			break;
		usleep(100000);
	}
	UE_STREQ("cleanup.nothing_left", status, "\nActive: 0\nBusy: 0\n");
	fd = open(FUZZ_MAX_FILE, O_RDONLY);
	n = fd < 0 ? 0 : read(fd, status, sizeof(status) - 1);
	status[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
	UE_STREQ("cleanup.max_restored", status, "32768\n");
}

int main(int argc, char **argv)
{
	unsigned long long ops = argc > 2 ? strtoull(argv[2], NULL, 0) : 100000;
	int status = -1;
	pid_t pid;

	ue_suite = "fuzz";
	seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (unsigned long long)time(NULL);
	printf("UE-INFO fuzz seed %llu, %llu calls (fuzz_test %llu %llu reproduces them)\n",
	       seed, ops, seed, ops);
	rng_state = seed * 2654435761ULL + 0x9E3779B97F4A7C15ULL;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		fuzz_run(ops);
		fflush(stdout);
		_exit(ue_failures ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	ue_result("child_exited", WIFEXITED(status), "the fuzzing child did not exit");
	fuzz_cleanup();
	return ue_failures ? 1 : 0;
}
