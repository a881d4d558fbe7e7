/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iov_iter helpers of the write path.
 *
 * Prefaulting: 5.10 has int iov_iter_fault_in_readable() (an error code);
 * 5.16+ has size_t fault_in_iov_iter_readable() (bytes not faulted in).
 * Importing one user buffer: import_single_range() is exported up to 6.1
 * and gone from exports in 6.12, where import_ubuf() (6.3+) replaces it.
 */
#ifndef UE_COMPAT_UIO_H
#define UE_COMPAT_UIO_H

#include <linux/fs.h>
#include <linux/uio.h>
#include "version.h"

/* Whether every byte left in @i could be faulted in for reading. */
static inline bool ue_iter_fault_in(struct iov_iter *i)
{
#if UE_LINUX_AT_LEAST(5, 16)
	return fault_in_iov_iter_readable(i, iov_iter_count(i)) == 0;
#else
	return iov_iter_fault_in_readable(i, iov_iter_count(i)) == 0;
#endif
}

/* An iov_iter over one user buffer that write() was given. */
static inline int ue_import_ubuf(const char __user *buf, size_t len,
				 struct iovec *iov, struct iov_iter *i)
{
#if UE_LINUX_AT_LEAST(6, 3)
	return import_ubuf(ITER_SOURCE, (void __user *)buf, len, i);
#else
	return import_single_range(WRITE, (void __user *)buf, len, iov, i);
#endif
}

#endif /* UE_COMPAT_UIO_H */
