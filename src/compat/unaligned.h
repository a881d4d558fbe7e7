/* SPDX-License-Identifier: GPL-2.0 */
/*
 * get_unaligned()/put_unaligned(): <asm/unaligned.h> up to 6.11, moved to
 * <linux/unaligned.h> in 6.12 (the old path is gone there).
 */
#ifndef UE_COMPAT_UNALIGNED_H
#define UE_COMPAT_UNALIGNED_H

#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#endif /* UE_COMPAT_UNALIGNED_H */
