// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/user_events_dkms/state: what the module holds, one
 * "name value" line each. It answers "why does rmmod refuse?" (events pin
 * the module; orphans wait for the tracing core to let go) and lets the
 * tests see that a failed call leaves nothing behind; forks_untraced counts
 * the forks whose child got none of its parent's enablers for want of
 * memory (fork_snap.c). Upstream has no such
 * file; nothing of the ABI depends on it. debugfs guards its files against
 * unload itself, so removing the directory is all that unload needs.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "debugfs.h"
#include "enabler.h"
#include "event.h"

static struct dentry *ue_debugfs_dir;

static int state_show(struct seq_file *m, void *unused)
{
	unsigned int events, orphans, queued;

	ue_events_count(&events, &orphans, &queued);
	seq_printf(m, "events %u\n", events);
	seq_printf(m, "orphans %u\n", orphans);
	seq_printf(m, "address_spaces %u\n", ue_mms_count());
	seq_printf(m, "queued_work %u\n", queued);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(state);

/* Without debugfs (or its memory) the module works as well: no error. */
void ue_debugfs_init(void)
{
	ue_debugfs_dir = debugfs_create_dir("user_events_dkms", NULL);
	debugfs_create_file("state", 0400, ue_debugfs_dir, NULL, &state_fops);
	debugfs_create_atomic_t("forks_untraced", 0400, ue_debugfs_dir,
				&ue_forks_untraced);
}

void ue_debugfs_exit(void)
{
	debugfs_remove(ue_debugfs_dir);
	ue_debugfs_dir = NULL;
}
