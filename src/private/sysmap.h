/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel data on kernels without CONFIG_KALLSYMS_ALL (Debian 12's arm64
 * 6.1, generic and cloud), whose kallsyms has text symbols only: the data
 * symbols private/ksyms.h names cannot be looked up there.
 *
 * Their link-time addresses and sizes come from the kernel's System.map
 * instead, written into a header at build time (scripts/sysmap.sh, Kbuild
 * defines UE_SYSMAP only on such kernels; on Debian the real System.map is
 * in linux-image-<release>-dbg, the image package's is a placeholder).
 *
 * This file supplies the map and checks it; it looks nothing up in the
 * kernel itself. At load, ue_ksyms_resolve() (private/ksyms.c), which
 * resolves every symbol, measures the kernel's offset from its link address
 * (KASLR) as the run-time address of each of the map's functions
 * (ue_sysmap_func(), found in kallsyms) minus its address in the map, and
 * refuses, with one line (ue_sysmap_refuse()), to go on unless
 * - every function gives the same offset, and
 * - linux_banner, at its address in the map plus that offset, is this
 *   kernel's banner: "Linux version <release> (...) <version>\n", with the
 *   release and version of init_uts_ns (read with
 *   copy_from_kernel_nofault(), as every read of a place we computed):
 *   ue_sysmap_relocate().
 * The kernel image moves as one piece, so that data symbols are then at
 * their map address plus the offset (ue_sysmap_addr()); the layout checks
 * of private/verify.c follow, with the sizes the map gives
 * (ue_sysmap_size()).
 */
#ifndef UE_PRIVATE_SYSMAP_H
#define UE_PRIVATE_SYSMAP_H

#ifdef UE_SYSMAP
#include <linux/types.h>

/*
 * The map's @i-th function: its name in *@name and its address in the map
 * in *@addr; false past the last.
 */
bool ue_sysmap_func(unsigned int i, const char **name, unsigned long *addr);

/* -ENOEXEC, and one line: the map is not this kernel's, for @why. */
int ue_sysmap_refuse(const char *why);

/*
 * Whether the map at @offset, which every function of it gave, is this
 * kernel's (its linux_banner): then its data symbols are at their address
 * in the map plus @offset, and 0; else ue_sysmap_refuse().
 */
int ue_sysmap_relocate(unsigned long offset);

/* Where data symbol @name is, once relocated; 0 if the map lacks it. */
unsigned long ue_sysmap_addr(const char *name);

/* The size of the data symbol at @addr, from the map; 0 if none starts there. */
unsigned long ue_sysmap_size(const void *addr);
#endif

#endif /* UE_PRIVATE_SYSMAP_H */
