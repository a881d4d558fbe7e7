/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pinning and mapping one page of another process for an enable-bit write.
 *
 * pin_user_pages_remote(): 7 arguments (with vmas) up to 6.4, 6 from 6.5.
 * FOLL_NOFAULT: 5.16+ (a macro in 6.1, an enum constant in 6.12, so it
 *   cannot be probed with #ifdef). Below 5.16 GUP faults the page in itself,
 *   under event_mutex and the mmap lock, and such a fault can wait on user
 *   space for ever: a FUSE daemon that never answers a read, a hung NFS
 *   server. Every ftrace enable, perf open and registration on the machine
 *   would wait with it, and the process's fork() too
 *   (tests/userspace/fuse_test.c). There, the page is pinned by the fast-only
 *   walk, which never faults (5.9+): the caller then faults the word in
 *   outside every lock, as on 5.16+. The walk reads current's page tables, so
 *   for another process's address space a worker adopts it for the walk
 *   (kthread_use_mm(), 5.8+; workqueue workers are kthreads), on a queue of
 *   the module's own whose items never wait on user space: the caller waits
 *   for it under event_mutex, which it could not do behind whatever else
 *   fills a shared kernel queue (ue_gup_init()).
 * kmap_local_page(): 5.11+. 5.10 (amd64 here) has no highmem, so the page's
 *   address is its mapping; a 5.10 highmem build is refused.
 */
#ifndef UE_COMPAT_GUP_H
#define UE_COMPAT_GUP_H

#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/workqueue.h>

#include "version.h"

/*
 * Pin the page at @addr of @mm for writing, without faulting; mmap lock
 * held. 1 on success.
 */
#if UE_LINUX_AT_LEAST(5, 16)
static inline long ue_pin_page(struct mm_struct *mm, unsigned long addr,
			       struct page **page)
{
#if UE_LINUX_AT_LEAST(6, 5)
	return pin_user_pages_remote(mm, addr, 1, FOLL_WRITE | FOLL_NOFAULT,
				     page, NULL);
#else
	return pin_user_pages_remote(mm, addr, 1, FOLL_WRITE | FOLL_NOFAULT,
				     page, NULL, NULL);
#endif
}

static inline int ue_gup_init(void)
{
	return 0;
}

static inline void ue_gup_exit(void)
{
}
#else
/* Only enabler.c includes this header. */
static struct workqueue_struct *ue_walk_wq;

static inline int ue_gup_init(void)
{
	ue_walk_wq = alloc_workqueue("user_events_walk", WQ_UNBOUND, 0);
	return ue_walk_wq ? 0 : -ENOMEM;
}

static inline void ue_gup_exit(void)
{
	destroy_workqueue(ue_walk_wq);
}

struct ue_pin_walk {
	struct work_struct	work;
	struct mm_struct	*mm;
	unsigned long		addr;
	struct page		**page;
	long			ret;
};

static inline void ue_pin_walk_fn(struct work_struct *work)
{
	struct ue_pin_walk *w = container_of(work, struct ue_pin_walk, work);

	kthread_use_mm(w->mm);
	w->ret = pin_user_pages_fast_only(w->addr, 1, FOLL_WRITE, w->page);
	kthread_unuse_mm(w->mm);
}

static inline long ue_pin_page(struct mm_struct *mm, unsigned long addr,
			       struct page **page)
{
	struct ue_pin_walk w = { .mm = mm, .addr = addr, .page = page };

	if (mm == current->mm)
		return pin_user_pages_fast_only(addr, 1, FOLL_WRITE, page);
	/* The worker never waits on anything but memory: flushing is safe. */
	INIT_WORK_ONSTACK(&w.work, ue_pin_walk_fn);
	queue_work(ue_walk_wq, &w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	return w.ret;
}
#endif

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
