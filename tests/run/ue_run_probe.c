// SPDX-License-Identifier: GPL-2.0
/*
 * make check's program for scripts/user-events-run (tests/run/check.sh),
 * built dynamically linked on the host and run in the VM as it is: it
 * registers the user event "ue_run_probe u32 n", enables it through tracefs,
 * writes it once its enable bit is set, and finds the record in
 * /sys/kernel/tracing/trace. Says so on standard output, and one line on
 * standard error; exits 0 when the record was read back.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/user_events.h>

#define TRACEFS "/sys/kernel/tracing"

static volatile __u32 enabled;

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

int main(void)
{
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = 0,
		.enable_size = sizeof(enabled),
		.enable_addr = (__u64)(unsigned long)&enabled,
		.name_args = (__u64)(unsigned long)"ue_run_probe u32 n",
	};
	__u32 n = 4242;
	char line[512];
	int fd, i, found = 0;
	FILE *trace;

	fprintf(stderr, "ue_run_probe: this line is on stderr\n");
	fd = open(TRACEFS "/user_events_data", O_RDWR);
	if (fd < 0 || ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
		perror("ue_run_probe: register");
		return 1;
	}
	if (put(TRACEFS "/trace", "") < 0 ||
	    put(TRACEFS "/events/user_events/ue_run_probe/enable", "1") < 0) {
		perror("ue_run_probe: enable");
		return 1;
	}
	for (i = 0; !(enabled & 1) && i < 500; i++)
		usleep(10000);
	struct iovec io[] = {
		{ &reg.write_index, sizeof(reg.write_index) },
		{ &n, sizeof(n) },
	};
	if (!(enabled & 1) || writev(fd, io, 2) < 0) {
		perror("ue_run_probe: write");
		return 1;
	}
	trace = fopen(TRACEFS "/trace", "r");
	while (trace && fgets(line, sizeof(line), trace))
		if (strstr(line, "ue_run_probe:") && strstr(line, "n=0x1092 (4242)"))
			found = 1;
	printf("ue_run_probe: %s\n", found ? "event read back from trace" : "event NOT in trace");
	return found ? 0 : 1;
}
