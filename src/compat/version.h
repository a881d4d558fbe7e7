/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place that compares kernel versions; only src/compat/ uses it.
 */
#ifndef UE_COMPAT_VERSION_H
#define UE_COMPAT_VERSION_H

#include <linux/version.h>

/* Whether the kernel we build against is at least @major.@minor. */
#define UE_LINUX_AT_LEAST(major, minor) \
	(KERNEL_VERSION(major, minor, 0) <= LINUX_VERSION_CODE)

#endif /* UE_COMPAT_VERSION_H */
