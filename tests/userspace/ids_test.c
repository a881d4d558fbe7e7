// SPDX-License-Identifier: GPL-2.0
/*
 * When the kernel's trace type ids run out (they are 16 bits:
 * TRACE_EVENT_TYPE_MAX), DIAG_IOCSREG fails with ENODEV, as upstream's
 * user_event_trace_register() when register_trace_event() returns 0, and
 * makes nothing; once events are gone their ids serve again. Run by 61-ids.sh
 * (on one row), with kernel.user_events_max raised above the ids there are:
 * distinct events are registered on one fd until one fails.
 *
 *   ids_test LIMIT   register at most LIMIT events
 */
#include "ue_abi.h"

#define STATE "/sys/kernel/debug/user_events_dkms/state"

int main(int argc, char **argv)
{
	int limit = argc > 1 ? atoi(argv[1]) : 70000, n, fd, err = 0;
	static __u32 word;
	char cmd[64], st[256];
	time_t t0 = time(NULL);

	ue_suite = "ids";
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = ue_open_data();
	for (n = 0; n < limit; n++) {
		struct user_reg reg = {
			.size = sizeof(reg),
			.enable_size = 4,
			/* No enabler: a bad address fails first (EFAULT)... */
			.enable_addr = (__u64)(uintptr_t)&word,
		};

		snprintf(cmd, sizeof(cmd), "ids_%d u32 a", n);
		reg.name_args = (__u64)(uintptr_t)cmd;
		if (ioctl(fd, DIAG_IOCSREG, &reg)) {
			err = errno;
			break;
		}
		/* ...so each registration's enabler is dropped again. */
		if (ue_unreg(fd, &word, 0)) {
			err = -errno;
			break;
		}
	}
	printf("UE-INFO ids: %d events registered in %lds, then errno %d (%s)\n",
	       n, (long)(time(NULL) - t0), err, strerror(err < 0 ? -err : err));
	UE_EQ("enodev", err, ENODEV);
	/* The one that failed made nothing; the others all exist. */
	snprintf(cmd, sizeof(cmd), EVENTS "/ids_%d", n);
	UE_EQ("failed_made_nothing", ue_exists(cmd), 0);
	ue_read_text(TRACEFS "/user_events_status", st, sizeof(st));
	ue_read_text(STATE, st, sizeof(st));
	UE_EQ("others_exist", atoi(st + strlen("events ")), n);
	/* (closing removes them all: ue_data_release, newest first) */
	t0 = time(NULL);
	close(fd);
	printf("UE-INFO ids: closing the file of %d events took %lds\n", n,
	       (long)(time(NULL) - t0));
	ue_read_text(TRACEFS "/user_events_status", st, sizeof(st));
	ue_read_text(STATE, st, sizeof(st));
	/*
	 * No address space either: every enabler was unregistered, and the
	 * failed registration took the process's tracking with it
	 * (src/enabler.c, ue_enabler_reg_failed(): a failed registration
	 * leaves nothing).
	 */
	UE_STREQ("all_gone", st,
		 "events 0\norphans 0\naddress_spaces 0\nqueued_work 0\n");
	/* Their ids are free again. */
	fd = ue_open_data();
	UE_EQ("again", ue_reg(fd, "ids_again u32 a", &word, 0, 0, NULL), 0);
	close(fd);
	return ue_failures ? 1 : 0;
}
