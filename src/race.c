// SPDX-License-Identifier: GPL-2.0
/*
 * Race windows (race.h): built only with UE_TEST_RACE=1, for the test rig.
 * The parameters are writable, so that a test can open a window after
 * setting up and close it before checking what is left.
 */
#include <linux/delay.h>
#include <linux/moduleparam.h>

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
