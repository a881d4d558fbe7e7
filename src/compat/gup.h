/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pinning and mapping one page of another process for an enable-bit write.
 *
 * pin_user_pages_remote(): 7 arguments (with vmas) up to 6.4, 6 from 6.5.
 * FOLL_NOFAULT: 5.16+. On 5.10 the pin faults the page in itself (under the
 *   mmap lock, as upstream's synchronous fix-up would), so the asynchronous
 *   fault path is never needed there.
 * kmap_local_page(): 5.11+. 5.10 (amd64 here) has no highmem, so the page's
 *   address is its mapping; a 5.10 highmem build is refused.
 */
#ifndef UE_COMPAT_GUP_H
#define UE_COMPAT_GUP_H

#include <linux/highmem.h>
#include <linux/mm.h>

#include "version.h"

#if UE_LINUX_AT_LEAST(5, 16)
#define UE_FOLL_NOFAULT	FOLL_NOFAULT
#else
#define UE_FOLL_NOFAULT	0
#endif

/* Pin the page at @addr of @mm for writing; mmap lock held. 1 on success. */
static inline long ue_pin_page(struct mm_struct *mm, unsigned long addr,
			       struct page **page)
{
#if UE_LINUX_AT_LEAST(6, 5)
	return pin_user_pages_remote(mm, addr, 1, FOLL_WRITE | UE_FOLL_NOFAULT,
				     page, NULL);
#else
	return pin_user_pages_remote(mm, addr, 1, FOLL_WRITE | UE_FOLL_NOFAULT,
				     page, NULL, NULL);
#endif
}

#if UE_LINUX_AT_LEAST(5, 11)
static inline void *ue_kmap(struct page *page)
{
	return kmap_local_page(page);
}

static inline void ue_kunmap(void *addr)
{
	kunmap_local(addr);
}
#elif defined(CONFIG_HIGHMEM)
#error "user-events-dkms needs Linux 5.11 or later on kernels with highmem"
#else
static inline void *ue_kmap(struct page *page)
{
	return page_address(page);
}

static inline void ue_kunmap(void *addr)
{
}
#endif

#endif /* UE_COMPAT_GUP_H */
