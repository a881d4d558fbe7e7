// SPDX-License-Identifier: GPL-2.0
/*
 * One module syscall, for tests that assert exact errnos (busybox insmod
 * retries a failed finit_module with init_module, running init twice).
 *
 *   ue_modctl load FILE.ko [PARAMS]
 *                             finit_module(FILE, PARAMS or "", 0)
 *   ue_modctl unload NAME     delete_module(NAME, O_NONBLOCK)
 *   ue_modctl reopen FILE NAME
 *                             open FILE with O_PATH (which pins no module),
 *                             unload NAME, then open FILE again through
 *                             /proc/self/fd: prints both results
 *
 * Prints the errno name (or "OK") and exits with the errno (0 on success).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int report(long ret)
{
	int err = ret ? errno : 0;

	printf("%s\n", err ? strerrorname_np(err) : "OK");
	return err;
}

int main(int argc, char **argv)
{
	char path[64];
	int fd;

	if (argc == 4 && !strcmp(argv[1], "reopen")) {
		fd = open(argv[2], O_PATH | O_CLOEXEC);
		if (fd < 0)
			return report(-1);
		report(syscall(SYS_delete_module, argv[3], O_NONBLOCK));
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		return report(open(path, O_RDWR | O_CLOEXEC) < 0 ? -1 : 0);
	}
	if (argc != 3 && !(argc == 4 && !strcmp(argv[1], "load"))) {
		fprintf(stderr, "usage: %s load FILE.ko [PARAMS] | unload NAME\n", argv[0]);
		return 255;
	}
	if (!strcmp(argv[1], "load")) {
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return report(-1);
		return report(syscall(SYS_finit_module, fd, argc == 4 ? argv[3] : "", 0));
	}
	if (!strcmp(argv[1], "unload"))
		return report(syscall(SYS_delete_module, argv[2], O_NONBLOCK));
	fprintf(stderr, "unknown command %s\n", argv[1]);
	return 255;
}
