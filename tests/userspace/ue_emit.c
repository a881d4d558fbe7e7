// SPDX-License-Identifier: GPL-2.0
/*
 * A user_events producer for the tools suite (40-tools.sh), which runs it
 * under perf and trace-cmd. Not a test by itself: it says what it did on
 * stdout ("ue_emit: ...") and its exit status tells whether it worked.
 *
 *   ue_emit persist            register the event with USER_EVENT_REG_PERSIST
 *                              and exit: the event outlives this process, so
 *                              that a tool can name it before the program
 *                              that writes it runs
 *   ue_emit emit N [SECONDS]   register the event, wait (at most SECONDS,
 *                              default 60) for a tool to enable it, write N
 *                              records, and exit without unregistering
 *   ue_emit delete             delete the event (DIAG_IOCSDEL)
 *
 * The event is
 *   ue_tools u32 count;char[16] msg;__rel_loc char[] note
 * and record i (1..N) holds count=i, msg="hello-i", note="note-i" (no other
 * bytes: the tail of msg is zeroed). Exit status: 0 done, 1 an error (the
 * errno is printed), 2 the event was not enabled in time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>

#include "ue_abi.h"

#define UE_EMIT_EVENT "ue_tools u32 count;char[16] msg;__rel_loc char[] note"
#define UE_EMIT_NAME "ue_tools"

static __u32 word;

static int fail(const char *what)
{
	printf("ue_emit: %s: %s\n", what, strerror(errno));
	return 1;
}

static int reg(int fd, int flags, __u32 *index)
{
	if (ue_reg(fd, UE_EMIT_EVENT, &word, 0, flags, index))
		return fail("DIAG_IOCSREG");
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One record: [index][count][msg][note loc] then the note's bytes. */
static int emit_one(int fd, __u32 index, __u32 count)
{
	struct __attribute__((packed)) {
		__u32 count;
		char msg[16];
		__u32 note;
	} rec;
	char note[32];
	struct iovec io[3];
	size_t nlen;
	ssize_t ret;

	memset(&rec, 0, sizeof(rec));
	rec.count = count;
	snprintf(rec.msg, sizeof(rec.msg), "hello-%u", count);
	nlen = snprintf(note, sizeof(note), "note-%u", count) + 1;
	/* __rel_loc: the data follows this field directly (offset 0). */
	rec.note = DYN_LOC(0, nlen);
	io[0] = (struct iovec){ &index, sizeof(index) };
	io[1] = (struct iovec){ &rec, sizeof(rec) };
	io[2] = (struct iovec){ note, nlen };
	ret = writev(fd, io, 3);
	if (ret < 0)
		return fail("writev");
	if ((size_t)ret != sizeof(index) + sizeof(rec) + nlen) {
		printf("ue_emit: writev returned %zd\n", ret);
		return 1;
	}
	return 0;
}

static int emit(int fd, unsigned int n, double timeout)
{
	double t0 = now();
	__u32 index;
	unsigned int i;

	if (reg(fd, 0, &index))
		return 1;
	while (!(__atomic_load_n(&word, __ATOMIC_RELAXED) & 1)) {
		if (now() - t0 > timeout) {
			printf("ue_emit: not enabled within %.0f s\n", timeout);
			return 2;
		}
		usleep(1000);
	}
	printf("ue_emit: enabled after %.3f s\n", now() - t0);
	for (i = 1; i <= n; i++)
		if (emit_one(fd, index, i))
			return 1;
	printf("ue_emit: wrote %u records\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		goto usage;
	fd = ue_open_data();
	if (fd < 0)
		return fail("open user_events_data");
	if (!strcmp(argv[1], "persist") && argc == 2) {
		ret = reg(fd, USER_EVENT_REG_PERSIST, NULL);
	} else if (!strcmp(argv[1], "delete") && argc == 2) {
		ret = ue_del(fd, UE_EMIT_NAME) ? fail("DIAG_IOCSDEL") : 0;
	} else if (!strcmp(argv[1], "emit") && (argc == 3 || argc == 4)) {
		ret = emit(fd, strtoul(argv[2], NULL, 0),
			   argc == 4 ? strtod(argv[3], NULL) : 60);
	} else {
		goto usage;
	}
	/* Exit with the event still registered and, likely, enabled. */
	return ret;
usage:
	fprintf(stderr, "usage: ue_emit persist | emit N [SECONDS] | delete\n");
	return 1;
}
