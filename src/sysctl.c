// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/sys/kernel/user_events_max: the number of user events that may exist
 * at once, system-wide. Registrations beyond it get -EMFILE (event.c);
 * lowering it deletes nothing.
 *
 * /proc does not pin the module: unregister_sysctl_table() waits for
 * handlers that are running, so nothing runs our code after unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/mutex.h>

#include "compat/sysctl.h"
#include "private/ksyms.h"
#include "event.h"
#include "race.h"
#include "sysctl.h"

static struct ctl_table_header *ue_sysctl_header;

/* Under event_mutex, which the registration path checks the limit under. */
static int ue_max_events_handler(UE_CTL_TABLE *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret;

	mutex_lock(ue_ksym_event_mutex);
	ret = proc_douintvec(table, write, buffer, lenp, ppos);
	mutex_unlock(ue_ksym_event_mutex);
	return ret;
}

static struct ctl_table ue_sysctls[UE_SYSCTL_ENTRIES(1)] = {
	{
		.procname	= "user_events_max",
		.data		= &ue_max_events,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= ue_max_events_handler,
	},
};

/*
 * Registered once the files exist, when failing the load is no longer safe
 * (an fd or an event may already point into the module): without it the
 * module works with the default limit.
 */
void ue_sysctl_register(void)
{
	/* Test builds may fail it (race.h); the shipped module never. */
	if (!ue_race_window(UE_RACE_SYSCTL, false))
		ue_sysctl_header = register_sysctl("kernel", ue_sysctls);
	if (!ue_sysctl_header)
		pr_warn("kernel.user_events_max not registered; the limit stays %u\n",
			ue_max_events);
}

void ue_sysctl_unregister(void)
{
	unregister_sysctl_table(ue_sysctl_header);
	ue_sysctl_header = NULL;
}
