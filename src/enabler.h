/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Enable bits in user memory and the processes that own them. See
 * enabler.c for how address spaces are followed without kernel hooks.
 */
#ifndef UE_ENABLER_H
#define UE_ENABLER_H

#include <linux/types.h>
#include <linux/workqueue.h>

#include "ue.h"

struct page;
struct ue_event;
struct ue_mm;

/*
 * DIAG_IOCSREG's EADDRINUSE check: current has an enabler at exactly
 * (addr, bit), as upstream's current_user_event_enabler_exists().
 */
bool ue_enabler_exists(u64 addr, u8 bit);

/* Attempts at faulting in an enable word before giving up, as upstream. */
#define UE_FAULT_ATTEMPTS	10

/*
 * A fault on user memory may wait on user space for ever (a userfaultfd
 * nobody answers, a FUSE daemon that hangs): none of these fault, so that
 * the caller can fault in with ue_enabler_fault_in_pin() after dropping
 * ue_reg_mutex, and try again: no other process waits on that fault.
 */

/*
 * The end of DIAG_IOCSREG: an enabler of @ev for current, its bit written
 * with the event's state before this returns; 0 or a negative errno,
 * -EFAULT if the word is not present and writable, -EBUSY if current's
 * mmap lock is taken (ue_enabler_wait_mm(), unlocked). ue_reg_mutex held.
 */
int ue_enabler_create(struct ue_event *ev, const struct user_reg *reg);
/*
 * A DIAG_IOCSREG failed, ue_reg_mutex held: current's tracking goes if it
 * has no enabler, so that a failed registration leaves nothing (a process
 * that registered, unregistered, then failed is tracked no more, as one
 * that never registered).
 */
void ue_enabler_reg_failed(void);
/* DIAG_IOCSUNREG: 0 or -ENOENT; the bit is left as it is. */
int ue_enabler_unregister(u64 addr, u8 bit, bool *word32);
/*
 * Clear the bit in current's memory: 0, -EFAULT if not present, or -EBUSY
 * if current's mmap lock is taken.
 */
int ue_enabler_clear(u64 addr, u8 bit, bool word32);

/*
 * Fault the word in for writing and pin its page in *@pin, with no lock
 * held: 0, -EFAULT or -EINTR. While it is pinned, a fork() leaves the word
 * writable; ue_enabler_unpin() when done trying.
 */
int ue_enabler_fault_in_pin(u64 addr, u8 bit, bool word32,
			    struct page **pin);
void ue_enabler_unpin(struct page **pin);
/*
 * Wait, with no lock held, until current's mmap lock is free for reading:
 * 0, or -EINTR if current was killed meanwhile. The functions above that
 * write a word return -EBUSY where they found it taken: a reader of that
 * lock may wait on user space, and nobody waits for it holding a mutex.
 */
int ue_enabler_wait_mm(void);

/* The event's status changed: rewrite all its bits; event_mutex held. */
void ue_enablers_update(struct ue_event *ev);

/* The enablers a forked child gets: a copy of its parent's, referenced. */
struct ue_fork_snap {
	struct callback_head	twork;		/* runs ue_fork_attach() */
	struct work_struct	put_work;
	u32			cap;		/* entries allocated */
	u32			nr;
	struct {
		struct ue_event	*ev;
		u64		addr;
		u8		bit;
		bool		word32;
	} e[];
};

struct ue_fork_snap *ue_fork_snapshot(struct mm_struct *parent);
/*
 * fork_snap.c: memory for snapshots. In the probe: one for @n enablers, or
 * NULL (counted in ue_forks_untraced); one that turned out unused, given
 * back (false: no room for it, ue_fork_drop() it). In process context:
 * one done with.
 */
struct ue_fork_snap *ue_fork_snap_get(u32 n);
bool ue_fork_snap_unused(struct ue_fork_snap *snap);
void ue_fork_snap_free(struct ue_fork_snap *snap);
/* An address space has @n enablers now; event_mutex held. */
void ue_fork_snap_need(u32 n);
int ue_fork_snap_init(void);
void ue_fork_snap_exit(void);
/* Forks whose child got none of its parent's enablers, for want of memory. */
extern atomic_t ue_forks_untraced;
void ue_fork_attach(struct ue_fork_snap *snap);
void ue_fork_drop(struct ue_fork_snap *snap, bool atomic);

/* Address spaces tracked now (debugfs). */
unsigned int ue_mms_count(void);

/*
 * Dead address spaces (compat/mm_gone.h): the kernel reports @mm dead, from
 * any context; or says that some may have died. The sweep, in process
 * context with no lock held, retires their enablers: ue_events_settle()
 * runs it, and our worker.
 */
void ue_mm_gone(struct mm_struct *mm);
void ue_mms_maybe_gone(void);
void ue_mms_sweep(void);

/* mm_gone.c: the probes that report dead address spaces. */
int ue_mm_gone_init(void);
void ue_mm_gone_exit(void);

int ue_enablers_init(void);
/* At unload, after the last event: let go of every address space. */
void ue_enablers_exit(void);

/* fork.c: the task_newtask probe. */
int ue_fork_init(void);
void ue_fork_exit(void);

#endif /* UE_ENABLER_H */
