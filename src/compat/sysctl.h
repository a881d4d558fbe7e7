/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registering a sysctl table from a module (register_sysctl_init() is for
 * built-in code only).
 *
 * Up to 6.5:  register_sysctl(path, table) is a function that walks the table
 *             up to an empty sentinel entry, which the table must end with.
 * 6.6+:       register_sysctl() is a macro over register_sysctl_sz() that
 *             passes ARRAY_SIZE(table); no sentinel is needed, and from 6.11
 *             an empty entry is refused. UE_SYSCTL_ENTRIES(n) sizes a table
 *             of n entries for both: the sentinel, where needed, is the
 *             zero-initialised entry after them.
 * Up to 6.10: a proc_handler takes a struct ctl_table *.
 * 6.11+:      it takes a const struct ctl_table * (handlers were constified
 *             treewide). UE_CTL_TABLE is the pointed-to type.
 */
#ifndef UE_COMPAT_SYSCTL_H
#define UE_COMPAT_SYSCTL_H

#include <linux/sysctl.h>
#include "version.h"

#if UE_LINUX_AT_LEAST(6, 6)
#define UE_SYSCTL_ENTRIES(n)	(n)
#else
#define UE_SYSCTL_ENTRIES(n)	((n) + 1)
#endif

#if UE_LINUX_AT_LEAST(6, 11)
#define UE_CTL_TABLE		const struct ctl_table
#else
#define UE_CTL_TABLE		struct ctl_table
#endif

#endif /* UE_COMPAT_SYSCTL_H */
