/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event directories of every trace instance, on kernels whose event
 * directories are plain tracefs dentries (before eventfs, 6.6: 5.10 and
 * 6.1 here, UE_HAVE_EVENT_FILE_DENTRY of compat/probes.mk): a walk over
 * the top instance's tracefs and each instances/NAME.
 */
#ifndef UE_COMPAT_EVENT_DIR_H
#define UE_COMPAT_EVENT_DIR_H

#include <linux/dcache.h>
#include <linux/types.h>

#ifdef UE_HAVE_EVENT_FILE_DENTRY
/*
 * A walk over the instances: @fn is called with the tracefs directory of
 * the top instance, then with that of each other instance (instances/NAME),
 * while it returns true. The caller's state embeds the walk.
 */
struct ue_instance_walk {
	bool (*fn)(struct ue_instance_walk *walk, struct dentry *base);
};

/*
 * Whether every instance was reached and @walk's fn returned true for
 * each: one that could not be looked up is passed by, and makes it false.
 * event_mutex held, under which alone instances come and go.
 */
bool ue_walk_instances(struct ue_instance_walk *walk);
#endif

#endif /* UE_COMPAT_EVENT_DIR_H */
