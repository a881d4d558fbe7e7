/* SPDX-License-Identifier: GPL-2.0 */
/*
 * get_unaligned() and friends. Linux 6.12 moved <asm/unaligned.h> to
 * <linux/unaligned.h>: Debian's 5.10 and 6.1 headers have only the former,
 * 6.12 only the latter. Testing for the header itself rather than for a
 * version number also covers kernels that backported the move. (The quoted
 * form finds the same file on the include path; checkpatch misreads <>.)
 */
#ifndef UE_COMPAT_UNALIGNED_H
#define UE_COMPAT_UNALIGNED_H

#if __has_include("linux/unaligned.h")
#include <linux/unaligned.h>	/* 6.12 and later */
#else
#include <asm/unaligned.h>	/* up to 6.11: 5.10 and 6.1 here */
#endif

#endif /* UE_COMPAT_UNALIGNED_H */
