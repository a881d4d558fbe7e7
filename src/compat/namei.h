/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Looking up a positive dentry by name under a directory whose inode lock
 * we do not hold (here: the root of the kernel's tracefs mount).
 *
 * Up to 6.15 (5.10, 6.1, 6.12 here): lookup_positive_unlocked(name, base,
 *   len), which also checks that current may search @base (MAY_EXEC).
 * 6.16+ (7.2 and 7.3 here): renamed lookup_noperm_positive_unlocked(qstr,
 *   base), without the permission check ("VFS: rename lookup_one_len family
 *   to lookup_noperm and remove permission check"); the name is a struct
 *   qstr, whose hash the lookup computes. The check never mattered here: the
 *   module looks in the tracefs root from its init, as root.
 *
 * A version number rather than a probe: this is a tree-wide VFS rename, not
 * something a stable kernel takes.
 */
#ifndef UE_COMPAT_NAMEI_H
#define UE_COMPAT_NAMEI_H

#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/namei.h>
#include <linux/string.h>
#include "version.h"

static inline struct dentry *ue_lookup_positive(const char *name,
						struct dentry *base)
{
#if UE_LINUX_AT_LEAST(6, 16)
	struct qstr q = QSTR_INIT(name, strlen(name));

	return lookup_noperm_positive_unlocked(&q, base);
#else
	return lookup_positive_unlocked(name, base, strlen(name));
#endif
}

/*
 * From directory *@d to its entry @name, if there is one: *@d is put and
 * replaced by the entry (referenced), or by NULL. Steps of a path walk.
 */
static inline bool ue_lookup_step(struct dentry **d, const char *name)
{
	struct dentry *next = ue_lookup_positive(name, *d);

	dput(*d);
	*d = IS_ERR(next) ? NULL : next;
	return *d;
}

#endif /* UE_COMPAT_NAMEI_H */
