// SPDX-License-Identifier: GPL-2.0
/*
 * The "other" marker of user_events_status (a probe that is neither ftrace's
 * nor perf's: upstream's EVENT_STATUS_OTHER), run by 35-race.sh against
 * user_events_race.ko, whose parameter other_probe attaches such a probe as
 * another module could (src/race.c). An event with only that probe is busy,
 * its enable bit is set and writes to it succeed (they record nowhere), as
 * with any probe.
 */
#include "ue_abi.h"

#define PARAM "/sys/module/user_events_race/parameters/other_probe"
#define STATUS TRACEFS "/user_events_status"

static char status[4096];

static const char *status_text(void)
{
	ue_read_text(STATUS, status, sizeof(status));
	return status;
}

int main(void)
{
	static __u32 word;
	struct { __u32 index; __u32 a; } rec = { 0, 7 };
	__u32 index = 99;
	int fd;

	ue_suite = "race";
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = ue_open_data();
	UE_EQ("other.reg", ue_reg(fd, "ue_other u32 a", &word, 0, 0, &index), 0);
	rec.index = index;
	UE_EQ("other.bit_off", word, 0);
	UE_ERRNO("other.write_unattached", write(fd, &rec, sizeof(rec)), EBADF);

	UE_EQ("other.attach", ue_write_text(PARAM, "ue_other", 0), 0);
	UE_STREQ("other.status", status_text(),
		 "ue_other # Used by other\n\nActive: 1\nBusy: 1\n");
	UE_EQ("other.bit_on", ue_wait_bits(&word, 1, 1), 1);
	UE_EQ("other.attach_twice", ue_write_text(PARAM, "ue_other", 0), -EEXIST);
	UE_EQ("other.write", write(fd, &rec, sizeof(rec)), sizeof(rec));

	UE_EQ("other.ftrace_on", ue_enable("ue_other", 1), 0);
	UE_STREQ("other.status_both", status_text(),
		 "ue_other # Used by ftrace other\n\nActive: 1\nBusy: 1\n");
	UE_EQ("other.ftrace_off", ue_enable("ue_other", 0), 0);
	UE_STREQ("other.status_again", status_text(),
		 "ue_other # Used by other\n\nActive: 1\nBusy: 1\n");
	UE_EQ("other.bit_still_on", word, 1);

	UE_EQ("other.detach", ue_write_text(PARAM, "-ue_other", 0), 0);
	UE_STREQ("other.status_detached", status_text(),
		 "ue_other\n\nActive: 1\nBusy: 0\n");
	UE_EQ("other.bit_off_again", ue_wait_bits(&word, 1, 0), 1);
	UE_ERRNO("other.write_detached", write(fd, &rec, sizeof(rec)), EBADF);

	/* The knob itself: no such event, or no such probe. */
	UE_EQ("other.attach_unknown", ue_write_text(PARAM, "ue_nothing", 0),
	      -ENOENT);
	UE_EQ("other.detach_unattached", ue_write_text(PARAM, "-ue_other", 0),
	      -ENOENT);

	/* Its registration gone, the event goes. */
	UE_EQ("other.unreg", ue_unreg(fd, &word, 0), 0);
	close(fd);
	UE_STREQ("other.gone", status_text(), "\nActive: 0\nBusy: 0\n");
	return ue_failures ? 1 : 0;
}
