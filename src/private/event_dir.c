// SPDX-License-Identifier: GPL-2.0
/*
 * Event directories of every trace instance before eventfs, and whether
 * a call's are whole: see event_dir.h.
 */
#include "event_dir.h"

#ifdef UE_HAVE_EVENT_FILE_DENTRY
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/mount.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "../compat/namei.h"
#include "ksyms.h"

/*
 * The files of a user event's directory, in the order the core makes them
 * (event_create_dir(): "enable" and "id" for a call with a reg callback and
 * a type, "id" and "inject" only with their options).
 */
static const char *const ue_event_files[] = {
	"enable",
#ifdef CONFIG_PERF_EVENTS
	"id",
#endif
	"filter",
	"trigger",
#ifdef CONFIG_HIST_TRIGGERS
	"hist",
#endif
#ifdef CONFIG_HIST_TRIGGERS_DEBUG
	"hist_debug",
#endif
	"format",
#ifdef CONFIG_TRACE_EVENT_INJECT
	"inject",
#endif
};

/*
 * Instance names, copied out of the dcache under its lock to be looked up
 * after it; one user at a time, as event_mutex is held.
 */
static char ue_instance_names[1024];

/*
 * Copy the names of the instances past the first @skip into
 * ue_instance_names, each NUL-terminated, as many as fit; returns how many.
 * Instances come and go only under event_mutex, which the caller holds:
 * the positive children of @dir are stable. Its other children (negative
 * dentries of failed lookups, readdir cursors) are passed by. The parent's
 * d_lock keeps the children's names from being moved meanwhile.
 */
static unsigned int ue_instances_copy(struct dentry *dir, unsigned int skip)
{
	unsigned int n = 0, seen = 0;
	struct dentry *child;
	size_t used = 0, len;

	BUILD_BUG_ON(sizeof(ue_instance_names) < NAME_MAX + 1);
	spin_lock(&dir->d_lock);
	list_for_each_entry(child, &dir->d_subdirs, d_child) {
		if (!d_really_is_positive(child) || seen++ < skip)
			continue;
		len = child->d_name.len + 1;
		if (used + len > sizeof(ue_instance_names))
			break;
		memcpy(ue_instance_names + used, child->d_name.name, len);
		used += len;
		n++;
	}
	spin_unlock(&dir->d_lock);
	return n;
}

bool ue_walk_instances(const struct ue_instance_walk *walk)
{
	struct dentry *root = READ_ONCE(*ue_ksym_tracefs_mount)->mnt_root;
	unsigned int done = 0, n, i;
	struct dentry *dir, *base;
	bool all = true, go;
	const char *p;

	if (!walk->fn(walk, root))
		return false;
	/* No "instances" (the top instance's own tracefs), or no memory. */
	dir = ue_lookup_positive("instances", root);
	if (IS_ERR(dir))
		return PTR_ERR(dir) == -ENOENT;
	for (go = true; go && (n = ue_instances_copy(dir, done)); done += n) {
		p = ue_instance_names;
		for (i = 0; go && i < n; i++, p += strlen(p) + 1) {
			/* Not reached (no memory): the others still are. */
			base = ue_lookup_positive(p, dir);
			if (IS_ERR(base)) {
				all = false;
				continue;
			}
			go = walk->fn(walk, base);
			dput(base);
		}
	}
	dput(dir);
	return all && go;
}

/*
 * Whether @d, an event's directory, is another call's: its "format" file
 * carries its call (event_create_dir()).
 */
static bool ue_event_dir_foreign(struct dentry *d, struct trace_event_call *call)
{
	struct dentry *f = ue_lookup_positive("format", d);
	bool foreign;

	if (IS_ERR(f))
		return false;
	foreign = d_inode(f)->i_private != call;
	dput(f);
	return foreign;
}

/*
 * Whether @base/events/<system>/<name>/ has all its files, or is another
 * call's.
 */
static bool ue_event_dir_whole(const struct ue_instance_walk *w,
			       struct dentry *base)
{
	struct dentry *d = dget(base), *f;
	bool whole;
	size_t i;

	whole = ue_lookup_step(&d, "events") && ue_lookup_step(&d, w->system) &&
		ue_lookup_step(&d, w->name);
	if (whole && ue_event_dir_foreign(d, w->call)) {
		dput(d);
		return true;
	}
	for (i = 0; whole && i < ARRAY_SIZE(ue_event_files); i++) {
		f = ue_lookup_positive(ue_event_files[i], d);
		whole = !IS_ERR(f);
		if (whole)
			dput(f);
	}
	dput(d);
	return whole;
}

bool ue_event_dirs_whole(struct trace_event_call *call, const char *system,
			 const char *name)
{
	const struct ue_instance_walk w = {
		.fn = ue_event_dir_whole,
		.call = call,
		.system = system,
		.name = name,
	};

	return ue_walk_instances(&w);
}
#endif
