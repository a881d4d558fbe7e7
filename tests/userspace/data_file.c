// SPDX-License-Identifier: GPL-2.0
/*
 * user_events_data and user_events_status: open, read, unknown ioctls (as
 * upstream). Run with the module loaded.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/user_events.h>

#include "ue_test.h"

static const char *const dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static void check_dir(const char *dir, const char *tag)
{
	char path[256], buf[256], name[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/user_events_data", dir);
	fd = open(path, O_RDWR);
	snprintf(name, sizeof(name), "%s.open_data_rdwr", tag);
	ue_result(name, fd >= 0, strerror(errno));
	if (fd >= 0) {
		/* No read operation: the VFS answers EINVAL. */
		snprintf(name, sizeof(name), "%s.read_data_einval", tag);
		UE_ERRNO(name, read(fd, buf, sizeof(buf)), EINVAL);
		close(fd);
	}

	snprintf(path, sizeof(path), "%s/user_events_status", dir);
	fd = open(path, O_RDONLY);
	snprintf(name, sizeof(name), "%s.open_status", tag);
	ue_result(name, fd >= 0, strerror(errno));
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	/* No events: an empty line and zero totals. */
	snprintf(name, sizeof(name), "%s.status_text_empty", tag);
	UE_STREQ(name, buf, "\nActive: 0\nBusy: 0\n");
	close(fd);
}

int main(void)
{
	struct user_unreg unreg = { .size = sizeof(unreg) };
	struct user_reg reg = { .size = sizeof(reg) };
	int fd;

	ue_suite = "data_file";
	check_dir(dirs[0], "tracing");
	check_dir(dirs[1], "debug_tracing");

	fd = open("/sys/kernel/tracing/user_events_data", O_RDWR);
	if (fd < 0) {
		ue_result("open", 0, strerror(errno));
		return 1;
	}
	/* Unknown ioctls are ENOTTY, as upstream. */
	UE_ERRNO("ioctl.unknown_enotty", ioctl(fd, _IO('*', 9)), ENOTTY);
	UE_ERRNO("ioctl.other_magic_enotty", ioctl(fd, _IOW('x', 0, int), 0), ENOTTY);
	/* The three ABI ioctls are known: a zeroed request is refused. */
	UE_ERRNO("ioctl.reg_zeroed_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);
	UE_ERRNO("ioctl.del_unknown_enoent", ioctl(fd, DIAG_IOCSDEL, "x"), ENOENT);
	UE_ERRNO("ioctl.unreg_unknown_enoent", ioctl(fd, DIAG_IOCSUNREG, &unreg), ENOENT);
	close(fd);

	return ue_failures ? 1 : 0;
}
