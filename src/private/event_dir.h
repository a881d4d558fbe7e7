/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When the core makes an event's directories, and whether adding the call
 * can leave them half made with no error.
 *
 * Before eventfs (6.6; 5.10 and 6.1 here, UE_HAVE_EVENT_FILE_DENTRY of
 *   compat/event_file.h): trace_add_event_call() makes events/<system>/<name>/
 *   and its files in every instance at once, as tracefs dentries and inodes
 *   from SLAB_ACCOUNT caches: charged to the memory cgroup of the task that
 *   adds the call. A cgroup at its limit refuses such a charge with no fatal
 *   signal pending when its OOM killer finds no victim (cgroup v2; every
 *   member at oom_score_adj -1000) or is disabled (v1 memory.oom_control,
 *   "docker run --oom-kill-disable"), and the core goes on: it logs "Could
 *   not create tracefs '...' directory" (or "entry", for one of the files)
 *   and still returns 0. Seen on Debian's 5.10.262 and 6.1.192, with either
 *   cgroup version (suite memcg): events whose directory lacked "filter",
 *   "trigger" or "format", or had no directory at all. So there every
 *   registration looks at the event's directory in every instance, and at
 *   each of its files: ue_event_dirs_charged(). The files are those
 *   event_create_dir() makes for a call with a reg callback and a type, as
 *   both kernels have it. The walk over the instances is shared with
 *   removed_event.c.
 *
 * eventfs (6.6+): adding the call makes eventfs nodes, not charged to any
 *   cgroup (GFP_KERNEL); the dentries and inodes are made when someone
 *   looks them up, charged to that task, whose lookup fails if they cannot
 *   be. The core's allocations while adding the call then fail only under
 *   fault injection or for an OOM victim (src/event.c,
 *   ue_core_alloc_may_fail()), and the top instance's directory is what is
 *   looked up, which makes it.
 */
#ifndef UE_PRIVATE_EVENT_DIR_H
#define UE_PRIVATE_EVENT_DIR_H

#include <linux/dcache.h>
#include <linux/mount.h>
#include <linux/trace_events.h>
#include <linux/types.h>
#include "../compat/event_file.h"
#include "../compat/namei.h"
#include "ksyms.h"

#ifdef UE_HAVE_EVENT_FILE_DENTRY
static inline bool ue_event_dirs_charged(void)
{
	return true;
}

/*
 * Whether every instance has events/@system/@name with all its files, or
 * there a directory of another event's (whose "format" is not @call's: the
 * core could not make @call's, and keeps it without one). event_mutex held.
 */
bool ue_event_dirs_whole(struct trace_event_call *call, const char *system,
			 const char *name);

/*
 * A walk over the instances for one event, @call as events/@system/@name:
 * @fn is called with the tracefs directory of the top instance, then with
 * that of each other instance (instances/NAME), while it returns true.
 */
struct ue_instance_walk {
	bool (*fn)(const struct ue_instance_walk *walk, struct dentry *base);
	struct trace_event_call *call;
	const char *system;
	const char *name;
};

/*
 * Whether every instance was reached and @walk's fn returned true for
 * each: one that could not be looked up is passed by, and makes it false.
 * event_mutex held, under which alone instances come and go.
 */
bool ue_walk_instances(const struct ue_instance_walk *walk);
#else
static inline bool ue_event_dirs_charged(void)
{
	return false;
}

static inline bool ue_event_dirs_whole(struct trace_event_call *call,
				       const char *system, const char *name)
{
	struct vfsmount *mnt = READ_ONCE(*ue_ksym_tracefs_mount);
	struct dentry *d = dget(mnt->mnt_root);
	bool whole;

	whole = ue_lookup_step(&d, "events") && ue_lookup_step(&d, system) &&
		ue_lookup_step(&d, name);
	dput(d);
	return whole;
}
#endif

#endif /* UE_PRIVATE_EVENT_DIR_H */
