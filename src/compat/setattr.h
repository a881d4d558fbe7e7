/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Changing a file's attributes through the VFS: notify_change(), whose
 * first argument is the idmapping of the mount the change comes through.
 *
 * Up to 5.11 (5.10 here): notify_change(dentry, attr, delegated), no
 *   idmapping.
 * 5.12 to 6.2 (6.1 here): a struct user_namespace * first ("fs: make
 *   notify_change() idmapped mount aware"); &init_user_ns maps nothing.
 * 6.3+ (6.12, 7.x here): a struct mnt_idmap * first ("fs: port
 *   ->setattr() to pass mnt_idmap"); &nop_mnt_idmap maps nothing.
 *
 * struct iattr's ia_gid stays a kgid_t in all of them (from 6.2 in a union
 * with ia_vfsgid, which is read as the same value without an idmapping).
 *
 * A version number rather than a probe: tree-wide VFS API changes, not
 * something a stable kernel takes.
 */
#ifndef UE_COMPAT_SETATTR_H
#define UE_COMPAT_SETATTR_H

#include <linux/fs.h>
#include "version.h"

#if UE_LINUX_AT_LEAST(6, 3)
#include <linux/mnt_idmapping.h>
#endif

/* notify_change() without an idmapping; the caller holds the inode lock. */
static inline int ue_notify_change(struct dentry *d, struct iattr *attr)
{
#if UE_LINUX_AT_LEAST(6, 3)
	return notify_change(&nop_mnt_idmap, d, attr, NULL);
#elif UE_LINUX_AT_LEAST(5, 12)
	return notify_change(&init_user_ns, d, attr, NULL);
#else
	return notify_change(d, attr, NULL);
#endif
}

#endif /* UE_COMPAT_SETATTR_H */
