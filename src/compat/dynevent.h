/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dynamic-events core (kernel/trace/trace_dynevent.h), which is private:
 * linux-headers packages do not ship it, so its two structures are declared
 * here with the kernel's names and layouts (checked against the BTF of the
 * three Debian kernels: dyn_event is 24 bytes, list + ops, and
 * dyn_event_operations 56 bytes, list then five callbacks, on all three; the
 * same on Debian's 7.2.13 and 7.3.4). Verified at load (private/verify.c).
 *
 * 5.10:   create(argc, argv): the core splits each line at white space
 *         (argv_split) before calling it.
 * 5.11+:  create(raw_command): the line as written ("tracing/dynevent:
 *         Delegate parsing to create function", v5.11). 6.1 and 6.12 have it.
 * All:    match(system, event, argc, argv, ev), with the words after the
 *         event name in argc/argv; show, is_busy and free unchanged.
 *
 * The core's registration (dyn_event_register) is not exported, has no
 * inverse, and is sealed by IBT on 6.12; dyn_event_add/remove are inlines of
 * the private header. The module does both by hand on the resolved data
 * symbols (dynevent.c), under the core's locks: dyn_event_ops_mutex for the
 * list of operations, event_mutex for dyn_event_list.
 */
#ifndef UE_COMPAT_DYNEVENT_H
#define UE_COMPAT_DYNEVENT_H

#include <linux/list.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "version.h"

struct dyn_event;

struct dyn_event_operations {
	struct list_head	list;
#ifdef UE_TEST_LAYOUT_SKEW
	/* The test rig's stand-in for a kernel that moved a member. */
	int (*show)(struct seq_file *m, struct dyn_event *ev);
#endif
#if UE_LINUX_AT_LEAST(5, 11)
	int (*create)(const char *raw_command);
#else
	int (*create)(int argc, const char **argv);
#endif
#ifndef UE_TEST_LAYOUT_SKEW
	int (*show)(struct seq_file *m, struct dyn_event *ev);
#endif
	bool (*is_busy)(struct dyn_event *ev);
	int (*free)(struct dyn_event *ev);
	bool (*match)(const char *system, const char *event,
		      int argc, const char **argv, struct dyn_event *ev);
};

struct dyn_event {
	struct list_head		list;
	struct dyn_event_operations	*ops;
};

/* What a user event's line starts with in dynamic_events. */
#define UE_DYN_PREFIX	"u:"

/* Our create, on the command line as written (dynevent.c). */
int ue_dyn_create(const char *raw_command);

#if UE_LINUX_AT_LEAST(5, 11)
static inline int ue_dyn_create_entry(const char *raw_command)
{
	return ue_dyn_create(raw_command);
}
#else
/*
 * Re-join the words with single spaces. Runs of white space and tabs in the
 * line become one space, which the field parser, unlike the matcher, would
 * otherwise have rejected: a 5.10 difference.
 */
static inline int ue_dyn_create_entry(int argc, const char **argv)
{
	size_t len = 0;
	char *cmd, *pos;
	int i, ret;

	/* Not ours: no allocation, and the next type's create is tried. */
	if (!argc || !str_has_prefix(argv[0], UE_DYN_PREFIX))
		return -ECANCELED;
	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cmd = kmalloc(len + 1, GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;
	pos = cmd;
	*pos = '\0';
	for (i = 0; i < argc; i++)
		pos += sprintf(pos, "%s%s", i ? " " : "", argv[i]);
	ret = ue_dyn_create(cmd);
	kfree(cmd);
	return ret;
}
#endif

#endif /* UE_COMPAT_DYNEVENT_H */
