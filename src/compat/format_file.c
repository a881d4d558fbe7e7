// SPDX-License-Identifier: GPL-2.0
/*
 * Format files of removed events lose their call: see format_file.h.
 */
#include "format_file.h"

#ifdef UE_HAVE_EVENT_FILE_DENTRY
#include <linux/build_bug.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/mount.h>
#include <linux/string.h>
#include "ksyms.h"
#include "namei.h"

/*
 * Instance names, copied out of the dcache under its lock to be looked up
 * after it; one user at a time, as event_mutex is held.
 */
static char ue_instance_names[1024];

/* @base/events/@system/@name/format loses its call, if it is there. */
static void ue_format_detach_at(struct dentry *base, const char *system,
				const char *name)
{
	struct dentry *d = dget(base);

	if (ue_lookup_step(&d, "events") && ue_lookup_step(&d, system) &&
	    ue_lookup_step(&d, name) && ue_lookup_step(&d, "format"))
		WRITE_ONCE(d_inode(d)->i_private, NULL);
	dput(d);
}

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

void ue_format_detach(const char *system, const char *name)
{
	struct dentry *root = READ_ONCE(*ue_ksym_tracefs_mount)->mnt_root;
	unsigned int done = 0, n, i;
	struct dentry *dir, *base;
	const char *p;

	ue_format_detach_at(root, system, name);
	dir = ue_lookup_positive("instances", root);
	if (IS_ERR(dir))
		return;
	while ((n = ue_instances_copy(dir, done))) {
		p = ue_instance_names;
		for (i = 0; i < n; i++, p += strlen(p) + 1) {
			base = ue_lookup_positive(p, dir);
			if (IS_ERR(base))
				continue;
			ue_format_detach_at(base, system, name);
			dput(base);
		}
		done += n;
	}
	dput(dir);
}
#endif
