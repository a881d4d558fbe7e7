// SPDX-License-Identifier: GPL-2.0
/*
 * Race windows (race.h): built only with UE_TEST_RACE=1, for the test rig.
 * The parameters are writable, so that a test can open a window after
 * setting up and close it before checking what is left.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "event.h"
#include "race.h"

static int race_site;
module_param(race_site, int, 0644);
MODULE_PARM_DESC(race_site, "Test builds: where to wait (enum ue_race_site)");

static unsigned int race_us = 1000;
module_param(race_us, uint, 0644);
MODULE_PARM_DESC(race_us, "Test builds: how long to wait there, microseconds (at most 1 s, 20 ms where atomic)");

bool ue_race_window(enum ue_race_site site, bool atomic)
{
	unsigned int us = READ_ONCE(race_us);

	if (READ_ONCE(race_site) != site || !us)
		return false;
	if (!atomic) {
		us = min(us, 1000000U);
		usleep_range(us, us + us / 4);
		return true;
	}
	us = min(us, 20000U);
	mdelay(us / 1000);
	udelay(us % 1000);
	return true;
}

void ue_race_bit_failed(const char *call, int err, int rounds)
{
	pr_info("%s: writing the bit failed (%d) after %d rounds\n", call, err,
		rounds);
}

/*
 * other_probe: writing "NAME" attaches a probe of neither kind (not
 * ftrace's, not perf's) to the event whose tracepoint is NAME, "-NAME"
 * detaches it; user_events_status then says "other".
 */
static int ue_other_probe_set(const char *val, const struct kernel_param *kp)
{
	bool attach = *val != '-';
	char *name;
	int ret;

	name = kstrdup(attach ? val : val + 1, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	ret = ue_event_test_other(strim(name), attach);
	kfree(name);
	return ret;
}

static const struct kernel_param_ops ue_other_probe_ops = {
	.set = ue_other_probe_set,
};
module_param_cb(other_probe, &ue_other_probe_ops, NULL, 0200);
MODULE_PARM_DESC(other_probe, "Test builds: NAME attaches a probe of neither kind to event NAME, -NAME detaches it");
