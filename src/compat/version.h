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

/*
 * Whether it is at least the stable update @major.@minor.@sublevel, for
 * sublevels up to 255: the kernel counts no further (5.10.262 says
 * 5.10.255).
 */
#define UE_LINUX_AT_LEAST_STABLE(major, minor, sublevel) \
	(KERNEL_VERSION(major, minor, sublevel) <= LINUX_VERSION_CODE)

#endif /* UE_COMPAT_VERSION_H */
