// SPDX-License-Identifier: GPL-2.0
/*
 * user_events_data: registration ioctls and the write path.
 *
 * Skeleton: the ABI (DIAG_IOCSREG, DIAG_IOCSDEL, DIAG_IOCSUNREG, write and
 * writev) comes with its own work; until then every ioctl is unknown.
 */
#include <linux/fs.h>
#include <linux/module.h>

#include "files.h"

static long ue_data_ioctl(struct file *file, unsigned int cmd,
			  unsigned long uarg)
{
	return -ENOTTY;
}

/*
 * .owner pins the module while the file is open: tracefs installs these
 * operations on the inode, and open takes a reference on their owner.
 */
const struct file_operations ue_data_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= ue_data_ioctl,
};
