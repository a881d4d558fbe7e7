// SPDX-License-Identifier: GPL-2.0
/*
 * Probe UE_HAVE_EVENT_FILE_DENTRY, for compat/event_file.h: whether struct
 * trace_event_file has "struct dentry *dir", its event's directory in
 * tracefs. Up to 6.5 (5.10 and 6.1 here) it has; eventfs (6.6, so 6.12 and
 * 7.x here) took it away. This compiles only where the member is there,
 * with that type.
 */
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/trace_events.h>

static_assert(__same_type(((struct trace_event_file *)NULL)->dir,
			  (struct dentry *)NULL));
