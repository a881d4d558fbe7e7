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
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/security.h>

#include "compat/ksyms.h"
#include "compat/namei.h"
#include "files.h"

static struct dentry *ue_data_dentry;
static struct dentry *ue_status_dentry;

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

static struct dentry *ue_create(const char *name, umode_t mode,
				const struct file_operations *fops)
{
	struct dentry *d;

	d = static_call(ue_tracefs_create_file)(name, mode, NULL, NULL, fops);
	if (IS_ERR_OR_NULL(d)) {
		pr_err("cannot load: could not create %s in tracefs\n", name);
		return NULL;
	}
	return d;
}

int ue_files_create(void)
{
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

	ue_data_dentry = ue_create("user_events_data", UE_MODE_DATA,
				   &ue_data_fops);
	if (!ue_data_dentry)
		return -ENOMEM;
	ue_status_dentry = ue_create("user_events_status", UE_MODE_STATUS,
				     &ue_status_fops);
	if (!ue_status_dentry) {
		ue_files_remove();
		return -ENOMEM;
	}
	return 0;
}

/*
 * Remove a file, and retire its inode: once the module is gone, nothing
 * may reach its operations through the inode. The dentry leaves the
 * namespace, but a file opened with O_PATH (which pins no module) keeps
 * dentry and inode, and reopening it through /proc/self/fd would otherwise
 * read the freed operations (issue 12, item 10). A bad inode's operations
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

void ue_files_remove(void)
{
	if (ue_status_dentry)
		ue_file_remove(ue_status_dentry);
	if (ue_data_dentry)
		ue_file_remove(ue_data_dentry);
	ue_status_dentry = NULL;
	ue_data_dentry = NULL;
}
