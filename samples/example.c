// SPDX-License-Identifier: GPL-2.0
/*
 * A user event from C: register "example u32 count; __rel_loc char[] msg",
 * and write it whenever its enable bit says someone is listening.
 *
 *   cc -I include/uapi -o example samples/example.c
 *   ./example 5        # writes 5 events once the event is enabled
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/user_events.h>

/* The kernel sets bit 31 of this word while the event is enabled. */
static volatile __u32 enabled;

int main(int argc, char **argv)
{
	const char *msg = "hello";
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = 31,
		.enable_size = sizeof(enabled),
		.enable_addr = (__u64)(unsigned long)&enabled,
		.name_args = (__u64)(unsigned long)
			"example u32 count; __rel_loc char[] msg",
	};
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int fd, waited = 0;
	__u32 count, loc;

	fd = open("/sys/kernel/tracing/user_events_data", O_RDWR);
	if (fd < 0 || ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
		perror("user_events");
		return 1;
	}
	for (count = 1; count <= (__u32)n; count++) {
		/* Cheap check: one load, no system call while disabled. */
		while (!(enabled & (1U << 31))) {
			if (waited++ > 3000)
				return 2;
			usleep(10000);
		}
		/* msg's data follows the field: offset 0 from its end. */
		loc = DYN_LOC(0, strlen(msg) + 1);
		struct iovec io[] = {
			{ &reg.write_index, sizeof(reg.write_index) },
			{ &count, sizeof(count) },
			{ &loc, sizeof(loc) },
			{ (void *)msg, strlen(msg) + 1 },
		};
		if (writev(fd, io, 4) < 0) {
			perror("writev");
			return 1;
		}
	}
	printf("wrote %d events\n", n);
	return 0;
}
