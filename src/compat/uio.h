/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iov_iter helpers of the write path.
 *
 * Prefaulting: 5.10 has int iov_iter_fault_in_readable() (an error code);
 * 5.16+ has size_t fault_in_iov_iter_readable() (bytes not faulted in).
 * Importing one user buffer: import_single_range() is exported up to 6.1
 * and gone from exports in 6.12, where import_ubuf() (6.3+) replaces it.
 * The current user segment: ITER_UBUF iterators exist from 6.0 (to 6.3 the
 * address is ->ubuf); 6.4 renamed ->iov to ->__iov and added
 * iter_iov_addr()/iter_iov_len() for both kinds.
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

/*
 * The user address of the next @len bytes of @i when they lie in its
 * current segment and @i is user memory (writev(), write()), else NULL.
 */
static inline const void __user *ue_iter_user_head(const struct iov_iter *i,
						   size_t len)
{
	if (iov_iter_count(i) < len)
		return NULL;
#if UE_LINUX_AT_LEAST(6, 4)
	if (!user_backed_iter(i) || iter_iov_len(i) < len)
		return NULL;
	return iter_iov_addr(i);
#else
#if UE_LINUX_AT_LEAST(6, 0)
	if (iter_is_ubuf(i))
		return i->ubuf + i->iov_offset;
#endif
	if (!iter_is_iovec(i) || i->iov->iov_len - i->iov_offset < len)
		return NULL;
	return i->iov->iov_base + i->iov_offset;
#endif
}

#endif /* UE_COMPAT_UIO_H */
