/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Load-time checks of the private kernel layouts the module relies on
 * (verify.c); after ue_ksyms_resolve(), before anything is registered.
 */
#ifndef UE_PRIVATE_VERIFY_H
#define UE_PRIVATE_VERIFY_H

/* 0, or -ENOEXEC with one dmesg line naming what differs. */
int ue_kernel_verify(void);

#endif /* UE_PRIVATE_VERIFY_H */
