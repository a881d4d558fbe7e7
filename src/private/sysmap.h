/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel data on kernels without CONFIG_KALLSYMS_ALL (Debian 12's arm64
 * 6.1, generic and cloud), whose kallsyms has text symbols only: the data
 * symbols private/ksyms.h names cannot be looked up there.
 *
 * Their link-time addresses and sizes come from the kernel's System.map
 * instead, written into a header at build time (scripts/sysmap.sh, Kbuild
 * defines UE_SYSMAP only on such kernels; on Debian the real System.map is
 * in linux-image-<release>-dbg, the image package's is a placeholder). At
 * load, ue_sysmap_relocate() measures the kernel's offset from its link
 * address (KASLR) as the run-time address of each of several functions
 * (found in kallsyms, as private/ksyms.c finds any) minus its address in the
 * map, and refuses, with one line, to go on unless
 * - every function gives the same offset, and
 * - linux_banner, at its address in the map plus that offset, is this
 *   kernel's banner: "Linux version <release> (...) <version>\n", with the
 *   release and version of init_uts_ns (read with
 *   copy_from_kernel_nofault(), as every read of a place we computed).
 * The kernel image moves as one piece, so that data symbols are then at
 * their map address plus the offset; the layout checks of private/verify.c
 * follow, with the sizes the map gives (ue_sysmap_size()).
 */
#ifndef UE_PRIVATE_SYSMAP_H
#define UE_PRIVATE_SYSMAP_H

#ifdef UE_SYSMAP
int ue_sysmap_relocate(void);
unsigned long ue_sysmap_addr(const char *name);
unsigned long ue_sysmap_size(const void *addr);
#endif

#endif /* UE_PRIVATE_SYSMAP_H */
