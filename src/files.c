// SPDX-License-Identifier: GPL-2.0
/*
 * user_events_data and user_events_status in the tracefs root, where the
 * in-kernel implementation puts them, so that they appear under both
 * /sys/kernel/tracing and /sys/kernel/debug/tracing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/security.h>
#include <linux/uidgid.h>

#include "compat/namei.h"
#include "compat/setattr.h"
#include "private/ksyms.h"
#include "files.h"

static struct dentry *ue_data_dentry;
static struct dentry *ue_status_dentry;

/*
 * gid= and mode=: who may use the files without root, given once in
 * /etc/modprobe.d rather than by chgrp and chmod after every load. Read when
 * the files are created, at load; 0444 in sysfs, since a later change would
 * not reach the files. A bad value is said here, in the one line of the
 * refused load, and refused by ue_files_params_ok(): the kernel's own line
 * for a parameter whose ->set fails names no valid range.
 */
static kgid_t ue_gid = INVALID_GID;	/* unset: tracefs's own */
static umode_t ue_mode = UE_MODE_DATA;
static bool ue_mode_given;
static bool ue_param_bad;

/*
 * The mode the files get: mode= if given; with gid= alone, the group may
 * read and write user_events_data, since a group given the file is one
 * meant to use it, and user_events has no use for a read-only open.
 */
static umode_t ue_mode_effective(void)
{
	if (!ue_mode_given && gid_valid(ue_gid))
		return UE_MODE_DATA_GROUP;
	return ue_mode;
}

static int ue_gid_set(const char *val, const struct kernel_param *kp)
{
	kgid_t gid = INVALID_GID;
	unsigned int v;

	if (!kstrtouint(val, 10, &v))
		gid = make_kgid(&init_user_ns, v);
	if (!gid_valid(gid)) {
		pr_err("cannot load: gid=%.32s is not a group id (a number from 0 to 4294967294)\n",
		       val);
		ue_param_bad = true;
		return 0;
	}
	ue_gid = gid;
	return 0;
}

static int ue_gid_get(char *buf, const struct kernel_param *kp)
{
	if (!gid_valid(ue_gid))
		return sysfs_emit(buf, "\n");
	return sysfs_emit(buf, "%u\n", from_kgid(&init_user_ns, ue_gid));
}

static const struct kernel_param_ops ue_gid_ops = {
	.set = ue_gid_set,
	.get = ue_gid_get,
};
module_param_cb(gid, &ue_gid_ops, NULL, 0444);
MODULE_PARM_DESC(gid, "Group (a number) of user_events_data and user_events_status, set at load (default: tracefs's, root)");

static int ue_mode_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	if (kstrtouint(val, 8, &v) || v > 0777) {
		pr_err("cannot load: mode=%.32s is not a file mode (octal, at most 0777)\n",
		       val);
		ue_param_bad = true;
		return 0;
	}
	ue_mode = v;
	ue_mode_given = true;
	return 0;
}

static int ue_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%04o\n", ue_mode_effective());
}

static const struct kernel_param_ops ue_mode_ops = {
	.set = ue_mode_set,
	.get = ue_mode_get,
};
module_param_cb(mode, &ue_mode_ops, NULL, 0444);
MODULE_PARM_DESC(mode, "Octal mode of user_events_data, set at load (default 0640, 0660 with gid=); user_events_status gets its read bits");

int ue_files_params_ok(void)
{
	return ue_param_bad ? -EINVAL : 0;
}

/* Whether @name already exists in the tracefs root. */
static bool ue_tracefs_has(const char *name)
{
	struct vfsmount *mnt = READ_ONCE(*ue_ksym_tracefs_mount);
	struct dentry *d;

	if (!mnt)
		return false;
	d = ue_lookup_positive(name, mnt->mnt_root);
	if (IS_ERR(d))
		return false;
	dput(d);
	return true;
}

/*
 * Remove a file, and retire its inode: once the module is gone, nothing
 * may reach its operations through the inode. The dentry leaves the
 * namespace, but a file opened with O_PATH (which pins no module) keeps
 * dentry and inode, and reopening it through /proc/self/fd would otherwise
 * read the freed operations. A bad inode's operations
 * are the kernel's own, which refuse every open with EIO.
 */
static void ue_file_remove(struct dentry *d)
{
	struct inode *inode = d_inode(d);

	ihold(inode);
	static_call(ue_tracefs_remove)(d);
	make_bad_inode(inode);
	iput(inode);
}

/*
 * The group of gid=, through the VFS, as chgrp would set it: the tracefs
 * of 6.12 and 7.x keeps a group only if its ->setattr saw it, and
 * otherwise gives each file its root's at every permission check (a
 * group written into the inode was gone at the first stat there).
 * ATTR_FORCE: the module's own file, whatever capabilities the loading
 * task has.
 */
static int ue_set_group(struct dentry *d)
{
	struct inode *inode = d_inode(d);
	struct iattr ia = {
		.ia_valid = ATTR_GID | ATTR_FORCE,
		.ia_gid = ue_gid,
	};
	int ret;

	inode_lock(inode);
	ret = ue_notify_change(d, &ia);
	inode_unlock(inode);
	return ret;
}

static int ue_create(struct dentry **dp, const char *name, umode_t mode,
		     const struct file_operations *fops)
{
	struct dentry *d;
	int ret;

	d = static_call(ue_tracefs_create_file)(name, mode, NULL, NULL, fops);
	if (IS_ERR_OR_NULL(d)) {
		pr_err("cannot load: could not create %s in tracefs\n", name);
		return -ENOMEM;
	}
	if (gid_valid(ue_gid)) {
		ret = ue_set_group(d);
		if (ret) {
			pr_err("cannot load: could not give %s the group gid=%u (error %d)\n",
			       name, from_kgid(&init_user_ns, ue_gid), ret);
			ue_file_remove(d);
			return ret;
		}
	}
	*dp = d;
	return 0;
}

int ue_files_create(void)
{
	int ret;

	/* tracefs refuses new files under lockdown; say so, and why. */
	if (security_locked_down(LOCKDOWN_TRACEFS)) {
		pr_err("cannot load: tracefs is locked down (kernel lockdown=confidentiality)\n");
		return -EPERM;
	}
	if (ue_tracefs_has("user_events_data")) {
		pr_err("cannot load: user_events_data already exists in tracefs; this kernel (or another module) already provides user_events\n");
		/*
		 * Not EEXIST: from a module's init, modprobe takes it for
		 * "already loaded" and reports success, and the module
		 * loader turns it into EBUSY from 7.x on (upstream
		 * 743f8cae549a, "module: Override -EEXIST module return").
		 */
		return -EBUSY;
	}

	ret = ue_create(&ue_data_dentry, "user_events_data", ue_mode_effective(),
			&ue_data_fops);
	if (ret)
		return ret;
	ret = ue_create(&ue_status_dentry, "user_events_status", ue_mode_effective() & 0444,
			&ue_status_fops);
	if (ret)
		ue_files_remove();
	return ret;
}

void ue_files_remove(void)
{
	if (ue_status_dentry)
		ue_file_remove(ue_status_dentry);
	if (ue_data_dentry)
		ue_file_remove(ue_data_dentry);
	ue_status_dentry = NULL;
	ue_data_dentry = NULL;
}
