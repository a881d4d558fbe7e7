// SPDX-License-Identifier: GPL-2.0
/*
 * user_events_status: one line per event in hash-table order, then the
 * totals, as in user_events.rst, Status:
 *   <tracepoint name>[ # Used by[ ftrace][ perf][ other]]
 *   (empty line)
 *   Active: <events>
 *   Busy: <events with a probe attached>
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "event.h"
#include "files.h"

struct ue_status {
	struct seq_file	*m;
	unsigned int	active;
	unsigned int	busy;
};

static void ue_status_line(struct ue_event *ev, void *arg)
{
	struct ue_status *st = arg;
	u8 status = READ_ONCE(ev->status);

	seq_puts(st->m, ev->tp_name);
	if (status) {
		seq_puts(st->m, " # Used by");
		if (status & UE_STATUS_FTRACE)
			seq_puts(st->m, " ftrace");
		if (status & UE_STATUS_PERF)
			seq_puts(st->m, " perf");
		if (status & UE_STATUS_OTHER)
			seq_puts(st->m, " other");
		st->busy++;
	}
	seq_puts(st->m, "\n");
	st->active++;
}

static int ue_status_show(struct seq_file *m, void *v)
{
	struct ue_status st = { .m = m };

	/* Show the state releases already finished have left. */
	ue_events_settle();
	ue_events_for_each(ue_status_line, &st);
	seq_puts(m, "\n");
	seq_printf(m, "Active: %u\n", st.active);
	seq_printf(m, "Busy: %u\n", st.busy);
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
