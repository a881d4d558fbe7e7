// SPDX-License-Identifier: GPL-2.0
/*
 * Enable bits: the kernel keeps bit B of the word at address A of a process
 * equal to "event E has a probe attached" (spec 1.9, 2.6).
 *
 * Tracking without kernel hooks. Upstream hangs its tracking object off
 * task_struct and is called from fork, exec and exit. A module cannot, so
 * tracking here is per mm, not per task lineage:
 *  - one struct ue_mm per address space that registered, found by its mm
 *    and tied to it with an mmu_notifier (mmu_notifier_get());
 *  - its .release, run by exit_mmap() when the last user of the mm goes
 *    (the last thread exits, or exec replaced the image), retires the
 *    enablers; the work it queues is drained before the next registration
 *    or deletion is judged, so an exit is in effect by then;
 *  - fork without CLONE_VM: fork.c copies the parent's enablers into the
 *    child before the child first runs user code;
 *  - CLONE_VM children (threads, vfork, clone(CLONE_VM)) share the mm and
 *    so share its enablers.
 * Differences from upstream, all of them documented in the README: every
 * thread of a process shares one set of enablers (upstream: only the
 * registering task and CLONE_VM children created after it, with a separate
 * set for another thread that registers); enablers live until the address
 * space dies rather than until the last task of a lineage exits; a vfork
 * child that execs leaves them to its parent, as upstream.
 *
 * Locking: the enabler lists and the ue_mm table change under event_mutex
 * (taken by the core around status changes) and are read under RCU by the
 * fork probe; ue_mm creation is serialised by ue_reg_mutex.
 *
 * No address space's mmap lock is ever waited for under event_mutex or
 * ue_reg_mutex, only tried (issue 30, item 2). A reader of that lock can
 * wait on user space for as long as it likes (a read of /proc/PID/mem that
 * faults in a page of a FUSE file whose daemon does not answer holds it),
 * a writer that queues behind it (the process's mmap()) makes every later
 * reader wait too, and a waiter under event_mutex would stop every ftrace
 * enable, perf open, dynamic_events and kprobe_events write, instance
 * creation and module load with trace events on the machine. Upstream
 * takes the lock under both mutexes, for every registration, state change
 * and unregistration, and has that defect; here a state change that finds
 * the lock taken leaves the write to the fault worker (ue_fault_wq, which
 * waits for it with no lock held and which nothing drains), and a
 * registration or unregistration waits for it after dropping the mutexes,
 * then tries again (data_file.c ue_fix_unlocked()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/userfaultfd_k.h>

#include "compat/gup.h"
#include "compat/ksyms.h"
#include "compat/workqueue.h"
#include "enabler.h"
#include "event.h"
#include "race.h"
#include "ue.h"

/* ue_mm.flags */
#define UE_MM_DETACHED		0	/* out of the table, notifier put */
#define UE_MM_EXITED		1	/* no task uses the address space */

struct ue_mm {
	struct mmu_notifier	mn;		/* mn.mm is the address space */
	struct hlist_node	node;		/* ue_mms, by mm */
	struct list_head	enablers;
	struct work_struct	release_work;
	struct rcu_head		rcu;
	unsigned long		flags;
	/* registrations between their prepare and its end; event_mutex */
	unsigned int		preparing;
};

struct ue_enabler {
	struct list_head	link;		/* ue_mm.enablers */
	struct list_head	ev_link;	/* ue_event.enablers */
	struct ue_event		*ev;		/* referenced */
	struct ue_mm		*um;
	u64			addr;		/* as registered */
	u8			bit;		/* as registered */
	bool			word32;		/* enable_size 4 */
	bool			faulting;	/* a ue_fault is queued */
	bool			freeing;	/* off its list; the ue_fault frees */
	u8			attempt;
	struct rcu_head		rcu;
};

static DEFINE_HASHTABLE(ue_mms, 6);
/* Address spaces in ue_mms, detached ones excluded; event_mutex. */
static unsigned int ue_nr_mms;
/* ue_mm structures allocated and not yet freed, detached ones included. */
static atomic_t ue_nr_notifiers = ATOMIC_INIT(0);

static struct ue_mm *ue_mm_find(struct mm_struct *mm)
{
	struct ue_mm *um;

	hash_for_each_possible_rcu(ue_mms, um, node, (unsigned long)mm)
		if (um->mn.mm == mm && !test_bit(UE_MM_DETACHED, &um->flags))
			return um;
	return NULL;
}

/*
 * The 8-byte-aligned word and bit that an atomic update covers: a 4-byte
 * word at an address 4 mod 8 is the upper half of its long (spec 1.9).
 */
static void ue_word(u64 addr, u8 bit, bool word32, unsigned long *waddr,
		    int *wbit)
{
	*waddr = addr;
	*wbit = bit;
	if (!word32 || BITS_PER_LONG == 32)
		return;
	if (addr & 7) {
		*waddr = addr & ~7ULL;
		if (!IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
			*wbit += 32;
	} else if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN)) {
		*wbit += 32;
	}
}

/*
 * Drop the user of @um's address space that a write took, event_mutex
 * held. Where it is the last (every task of the address space exited
 * meanwhile), the address space is dead to user_events: its enablers are
 * retired by release_work on ue_wq, which ue_events_settle() drains, so the
 * exit is in effect for the next registration or deletion, as for any
 * other exit (issue 12, item 12). The address space itself is torn down by
 * mmput_async(), on the system queue, which nothing here waits for:
 * __mmput() runs exit_aio(), which waits for the process's AIO in flight,
 * and a read from a FUSE daemon that does not answer is in flight for
 * ever. Run from ue_wq, as it was, that teardown made every later
 * registration, deletion, status read and "u:" line wait with it (issue
 * 30, item 4; fuse_test aio-exit).
 */
static void ue_mm_put(struct ue_mm *um)
{
	struct mm_struct *mm = um->mn.mm;

	lockdep_assert_held(ue_ksym_event_mutex);
	if (atomic_add_unless(&mm->mm_users, -1, 1))
		return;
	/*
	 * No task uses the address space any more: writes stop here
	 * (event_mutex orders this with them), and the enablers go. The
	 * notifier's release, run by the teardown whenever it gets there,
	 * then finds the ue_mm detached already.
	 */
	set_bit(UE_MM_EXITED, &um->flags);
	if (!test_and_set_bit(UE_MM_DETACHED, &um->flags))
		ue_queue_work(&um->release_work);
	mmput_async(mm);
}

/* Write bit @wbit of the word at @waddr in @page, pinned; unpins it. */
static void ue_bit_write_page(struct page *page, unsigned long waddr,
			      int wbit, bool set)
{
	void *kaddr = ue_kmap(page);

	if (set)
		set_bit(wbit, kaddr + offset_in_page(waddr));
	else
		clear_bit(wbit, kaddr + offset_in_page(waddr));
	ue_kunmap(kaddr);
	unpin_user_pages_dirty_lock(&page, 1, true);
}

/*
 * Set or clear one bit of @mm's memory without faulting (where the kernel
 * can); the caller holds a user of @mm, and maybe event_mutex or
 * ue_reg_mutex. -EFAULT if the page is not present and writable, -EBUSY if
 * the mmap lock is not free: it is only tried (see the top of this file).
 */
static int ue_bit_write_mm(struct mm_struct *mm, u64 addr, u8 bit,
			   bool word32, bool set)
{
	unsigned long waddr;
	struct page *page;
	int wbit, ret = -EFAULT;

	ue_word(addr, bit, word32, &waddr, &wbit);
	if (!mmap_read_trylock(mm))
		return -EBUSY;
	if (ue_pin_page(mm, waddr, &page) == 1) {
		ue_bit_write_page(page, waddr, wbit, set);
		ret = 0;
	}
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Fault the word in at once, where that cannot wait on user space: in a
 * private, anonymous, writable mapping that no userfaultfd watches, with a
 * fault that may not retry (so it never drops the lock to wait). What it
 * may wait for (memory, swap-in) any allocation under event_mutex waits
 * for too. Upstream defers every fault of a state change to a work item
 * (spec 2.6), and the bit lags behind the change: abi_test's forks, which
 * reads the bit right after disabling its event on a page still
 * copy-on-write from a fork, failed that way with the machine under load.
 * The rest (file and shared mappings, FUSE, userfaultfd) stays deferred,
 * and so does a fault-in whose mmap lock is not free. The caller holds a
 * user of @mm, and event_mutex.
 */
static int ue_fault_in_anon(struct mm_struct *mm, u64 addr, u8 bit,
			    bool word32)
{
	struct vm_area_struct *vma;
	unsigned long waddr;
	int wbit, ret = -EFAULT;

	ue_word(addr, bit, word32, &waddr, &wbit);
	if (!mmap_read_trylock(mm))
		return -EBUSY;
	vma = find_vma(mm, waddr);
	if (vma && vma->vm_start <= waddr && vma_is_anonymous(vma) &&
	    (vma->vm_flags & VM_WRITE) && !userfaultfd_armed(vma))
		ret = fixup_user_fault(mm, waddr,
				       FAULT_FLAG_WRITE | FAULT_FLAG_REMOTE,
				       NULL);
	mmap_read_unlock(mm);
	return ret;
}

/*
 * The same in @um's address space, event_mutex held: 0, -EFAULT, -EBUSY
 * (the mmap lock is taken), or -ENOENT if the address space is going away.
 */
static int ue_bit_write(struct ue_mm *um, u64 addr, u8 bit, bool word32,
			bool set)
{
	int ret;

	/* Never touch an address space whose tasks are all gone. */
	if (test_bit(UE_MM_EXITED, &um->flags) || !mmget_not_zero(um->mn.mm))
		return -ENOENT;
	ret = ue_bit_write_mm(um->mn.mm, addr, bit, word32, set);
	if (ret == -EFAULT &&
	    !ue_fault_in_anon(um->mn.mm, addr, bit, word32))
		ret = ue_bit_write_mm(um->mn.mm, addr, bit, word32, set);
	ue_race_window(UE_RACE_BIT_WRITE, false);
	ue_mm_put(um);
	return ret;
}

/*
 * Fault the word in for writing, as the process itself would, and pin its
 * page in *@pin: 0, -EFAULT, or -EINTR if the caller was killed. Waits for
 * @mm's mmap lock: never with event_mutex or ue_reg_mutex held. The caller
 * holds a user of @mm, and unpins (ue_enabler_unpin()) once it has written
 * the word. While the page is pinned, a fork() copies it for the child and
 * leaves it writable here (the kernel's copy of DMA-pinned private pages,
 * since 5.9), where it would otherwise write-protect it again: with a fork
 * loop beside it, a fault-in alone was undone before the write ten times
 * in a row, and a registration failed with EFAULT (af5d02f's race run) or
 * a state change's bit stayed stale (race_test fault-work-fork).
 * A try after the first is needed only where the page left between the
 * fault and the pin (reclaim, KSM, a fault that completed with the lock
 * dropped).
 */
static int ue_fault_pin(struct mm_struct *mm, u64 addr, u8 bit, bool word32,
			struct page **pin)
{
	unsigned long waddr;
	bool unlocked;
	int wbit, n, ret = -EFAULT;

	ue_word(addr, bit, word32, &waddr, &wbit);
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	for (n = 0; n < UE_FAULT_ATTEMPTS; n++) {
		unlocked = false;
		if (fixup_user_fault(mm, waddr,
				     FAULT_FLAG_WRITE | FAULT_FLAG_REMOTE,
				     &unlocked))
			break;
		if (ue_pin_page(mm, waddr, pin) == 1) {
			ret = 0;
			break;
		}
	}
	mmap_read_unlock(mm);
	if (ret)
		*pin = NULL;
	return ret;
}

static void ue_enabler_free(struct ue_enabler *en)
{
	ue_event_put(en->ev, false);
	kfree_rcu(en, rcu);
}

/*
 * An asynchronous fault-in of an enabler's word, allocated only when one is
 * needed (an enabler stays at 96 bytes). It runs on ue_fault_wq, which
 * nothing drains: a fault can wait on user space for as long as it likes
 * (a userfaultfd nobody answers, a FUSE daemon that hangs), and draining
 * it would make every registration, deletion and status read wait too
 * (issue 12, item 3). It holds a reference on the module, dropped last,
 * and ue_events_exit() destroys the queue after the module's last
 * reference is gone, which waits for the return.
 */
struct ue_fault {
	struct work_struct	work;
	struct ue_enabler	*en;
	struct mm_struct	*mm;		/* grabbed */
};

static void ue_enabler_fault_work(struct work_struct *work);

/*
 * The enabler's word is not present or read-only (COW, swapped out), or
 * its address space's mmap lock is taken (@contended): fault it in
 * elsewhere, which waits for the lock there, then write it; event_mutex
 * held. Faults count towards UE_FAULT_ATTEMPTS (spec 2.6); a lock taken
 * does not: the bit would be left stale for as long as a process's own
 * mmap() calls kept meeting its writes. Each round waits for the lock
 * before it tries again, so contention costs waiting, not spinning.
 */
static void ue_enabler_fault_later(struct ue_enabler *en, bool contended)
{
	struct mm_struct *mm = en->um->mn.mm;
	struct ue_fault *fault;

	lockdep_assert_held(ue_ksym_event_mutex);
	if (!contended) {
		if (en->attempt >= UE_FAULT_ATTEMPTS) {
			ue_race_bit_failed("fault work", -EFAULT, en->attempt);
			return;
		}
		en->attempt++;
	}
	/* Without memory for it, the next state change tries again. */
	fault = kmalloc(sizeof(*fault), GFP_KERNEL);
	if (!fault)
		return;
	INIT_WORK(&fault->work, ue_enabler_fault_work);
	fault->en = en;
	mmgrab(mm);
	fault->mm = mm;
	en->faulting = true;
	/* The enabler's event pins the module now. */
	__module_get(THIS_MODULE);
	queue_work(ue_fault_wq, &fault->work);
}

/* Write the event's state into the enabler's word; event_mutex held. */
static void ue_enabler_write(struct ue_enabler *en)
{
	int ret;

	lockdep_assert_held(ue_ksym_event_mutex);
	/* A queued fault-in writes the state it finds when it is done. */
	if (en->faulting || en->freeing)
		return;
	ret = ue_bit_write(en->um, en->addr, en->bit, en->word32,
			   READ_ONCE(en->ev->status));
	if (ret == -EFAULT || ret == -EBUSY)
		ue_enabler_fault_later(en, ret == -EBUSY);
}

static void ue_enabler_fault_work(struct work_struct *work)
{
	struct ue_fault *fault = container_of(work, struct ue_fault, work);
	struct ue_enabler *en = fault->en;
	struct mm_struct *mm = fault->mm;
	struct page *pin = NULL;
	int ret = -ENOENT;
	bool freeing;

	/* Pinned until the write: a fork() meanwhile leaves it writable. */
	if (mmget_not_zero(mm)) {
		ret = ue_fault_pin(mm, en->addr, en->bit, en->word32, &pin);
		mmput(mm);
	}
	if (!ret)
		ue_race_window(UE_RACE_FAULT_WORK, false);
	mutex_lock(ue_ksym_event_mutex);
	en->faulting = false;
	freeing = en->freeing;
	if (!freeing && ret && ret != -ENOENT)
		pr_warn("Fault for mm: 0x%pK @ 0x%llx event: %s\n", mm,
			en->addr, en->ev->tp_name);
	else if (!freeing && !ret)
		ue_enabler_write(en);
	mutex_unlock(ue_ksym_event_mutex);
	ue_enabler_unpin(&pin);
	mmdrop(mm);
	kfree(fault);
	/* Its event reference went when it was unlinked. */
	if (freeing)
		kfree_rcu(en, rcu);
	module_put(THIS_MODULE);
}

/* Only the event's own enablers: upstream walks every tracked mm. */
void ue_enablers_update(struct ue_event *ev)
{
	struct ue_enabler *en;

	lockdep_assert_held(ue_ksym_event_mutex);
	list_for_each_entry(en, &ev->enablers, ev_link) {
		en->attempt = 0;
		ue_enabler_write(en);
	}
}

/*
 * Take @en off its lists. Unless a queued fault-in frees it, it goes on
 * @free, for the caller to free, through its ev_link. Never its link: the
 * fork probe may still be walking the ue_mm's list under RCU, and a link
 * reused at once would lead it into @free, a list head on the caller's
 * stack (issue 12, item 1). ev_link is only ever walked under event_mutex.
 */
static void ue_enabler_unlink(struct ue_enabler *en, struct list_head *free)
{
	lockdep_assert_held(ue_ksym_event_mutex);
	list_del_rcu(&en->link);
	list_del(&en->ev_link);
	en->freeing = true;
	if (!en->faulting) {
		list_add(&en->ev_link, free);
		return;
	}
	/*
	 * The fault-in frees the enabler whenever it is done, which may be
	 * never: the event's reference goes now, so that it does not keep
	 * the event busy. Upstream keeps it until the fault work ends, so
	 * that a fault a FUSE daemon never answers keeps the event busy for
	 * ever. The fork probe may be reading en->ev under RCU meanwhile: it
	 * loads it once and takes its own reference only if the event lives
	 * (ue_fork_snapshot(); issue 30, item 1).
	 */
	ue_event_put(en->ev, true);
	WRITE_ONCE(en->ev, NULL);
}

/* --- address spaces ------------------------------------------------------ */

/*
 * Take @um out of the table and put its notifier; once per ue_mm, with
 * event_mutex held, which this releases.
 */
static void ue_mm_detach_unlock(struct ue_mm *um)
{
	struct ue_enabler *en, *tmp;
	LIST_HEAD(free);

	lockdep_assert_held(ue_ksym_event_mutex);
	hash_del_rcu(&um->node);
	ue_nr_mms--;
	list_for_each_entry_safe(en, tmp, &um->enablers, link)
		ue_enabler_unlink(en, &free);
	mutex_unlock(ue_ksym_event_mutex);
	list_for_each_entry_safe(en, tmp, &free, ev_link)
		ue_enabler_free(en);
	mmu_notifier_put(&um->mn);
}

static void ue_mm_release_work(struct work_struct *work)
{
	mutex_lock(ue_ksym_event_mutex);
	ue_mm_detach_unlock(container_of(work, struct ue_mm, release_work));
	ue_work_done();
}

/*
 * exit_mmap(): the address space is dying (its last user exited, or exec
 * replaced it); its enablers go with it. Done here when event_mutex is free,
 * so that the exit is in effect when the parent's wait returns. If the lock
 * is taken, possibly by this very task (an mmput() in a path that holds it),
 * a work item does it, which ue_events_settle() drains.
 */
static void ue_mn_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct ue_mm *um = container_of(mn, struct ue_mm, mn);

	if (test_and_set_bit(UE_MM_DETACHED, &um->flags))
		return;
	if (mutex_trylock(ue_ksym_event_mutex))
		ue_mm_detach_unlock(um);
	else
		ue_queue_work(&um->release_work);
}

static struct mmu_notifier *ue_mn_alloc(struct mm_struct *mm)
{
	struct ue_mm *um = kzalloc(sizeof(*um), GFP_KERNEL_ACCOUNT);

	if (!um)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&um->enablers);
	INIT_WORK(&um->release_work, ue_mm_release_work);
	atomic_inc(&ue_nr_notifiers);
	return &um->mn;
}

static void ue_mn_free(struct mmu_notifier *mn)
{
	/* The fork probe may still be looking at it under RCU. */
	struct ue_mm *um = container_of(mn, struct ue_mm, mn);

	kfree_rcu(um, rcu);
	atomic_dec(&ue_nr_notifiers);
}

static const struct mmu_notifier_ops ue_mn_ops = {
	.release	= ue_mn_release,
	.alloc_notifier	= ue_mn_alloc,
	.free_notifier	= ue_mn_free,
};

/*
 * mmu_notifier_get() from a worker. Registering a notifier takes every lock
 * of the address space (mm_take_all_locks()), which gives up with -EINTR
 * whenever the calling task has any signal pending: runtimes that signal
 * their threads all the time (Go's preemption, profilers' timers) would see
 * a first DIAG_IOCSREG fail with EINTR, which upstream returns on no signal
 * at all, and a forked child that a signal reached before it first ran
 * (its enablers are attached in task work, right where signals are taken)
 * would be left untracked (issue 12, item 5). A worker has no signals (the
 * ue_mm it allocates is then charged to no memory cgroup). The caller
 * holds a reference on @mm's users, as registering requires.
 */
struct ue_notifier_req {
	struct work_struct	work;
	struct mm_struct	*mm;
	struct mmu_notifier	*mn;
};

static void ue_notifier_get_work(struct work_struct *work)
{
	struct ue_notifier_req *req = container_of(work, struct ue_notifier_req,
						   work);

	req->mn = mmu_notifier_get(&ue_mn_ops, req->mm);
}

static struct mmu_notifier *ue_notifier_get(struct mm_struct *mm)
{
	struct ue_notifier_req req = { .mm = mm };

	INIT_WORK_ONSTACK(&req.work, ue_notifier_get_work);
	queue_work(ue_system_dfl_wq, &req.work);
	flush_work(&req.work);
	destroy_work_on_stack(&req.work);
	return req.mn;
}

unsigned int ue_mms_count(void)
{
	return READ_ONCE(ue_nr_mms);
}

/*
 * The ue_mm of current's address space, or NULL. ue_reg_mutex keeps it: the
 * address space is alive while current uses it, and nothing else detaches.
 */
static struct ue_mm *ue_mm_of_current(void)
{
	struct ue_mm *um;

	lockdep_assert_held(&ue_reg_mutex);
	rcu_read_lock();
	um = ue_mm_find(current->mm);
	rcu_read_unlock();
	return um;
}

/*
 * The ue_mm of current's address space, made ready before ue_reg_mutex is
 * taken. Registering its notifier takes the address space's mmap lock for
 * writing, which waits for every reader, and a reader can wait on user space
 * for as long as it likes: a read of /proc/PID/mem faults pages in with the
 * lock held, through a FUSE daemon that does not answer. Under the global
 * mutex, that would stop every registration on the machine (issue 12, item
 * 3; fuse_test's notifier_others_not_blocked). Only this process waits here.
 *
 * It stays pinned until ue_enabler_prepare_end(): unpinned, another thread's
 * failed registration could forget it before this one took ue_reg_mutex,
 * and under load a thread lost it to the others ten times in a row, so that
 * DIAG_IOCSREG failed with EAGAIN, which the spec has not (stress suite on
 * 5.10, with two VMs sharing the machine).
 */
int ue_enabler_prepare(void)
{
	struct mmu_notifier *mn;
	struct ue_mm *um;

	for (;;) {
		mutex_lock(ue_ksym_event_mutex);
		um = ue_mm_find(current->mm);
		if (um)
			um->preparing++;
		mutex_unlock(ue_ksym_event_mutex);
		if (um)
			return 0;
		mn = ue_notifier_get(current->mm);
		if (IS_ERR(mn))
			return PTR_ERR(mn);
		um = container_of(mn, struct ue_mm, mn);
		mutex_lock(ue_ksym_event_mutex);
		/*
		 * Another thread of the process may have made it meanwhile
		 * (the same notifier, one more user), or be detaching one
		 * that was forgotten, whose notifier is still registered
		 * until its put: either way this user is put, and the table
		 * is looked at again. A forgetter holds ue_reg_mutex until
		 * it has put the notifier (ue_enabler_prepare_end()): wait for it. A
		 * forgotten notifier also stays registered while other
		 * threads of the process hold a user of it here, so it is
		 * gone only once they all have put theirs: no number of
		 * rounds is enough (ten were not, under load: DIAG_IOCSREG
		 * failed with EAGAIN, which the spec has not; stress suite,
		 * 5.10, two VMs sharing the machine). Only the thread's own
		 * death ends the wait early; nobody sees its errno.
		 */
		if (ue_mm_find(current->mm) ||
		    test_bit(UE_MM_DETACHED, &um->flags)) {
			mutex_unlock(ue_ksym_event_mutex);
			mmu_notifier_put(mn);
			if (fatal_signal_pending(current))
				return -EINTR;
			mutex_lock(&ue_reg_mutex);
			mutex_unlock(&ue_reg_mutex);
			cond_resched();
			continue;
		}
		um->preparing = 1;
		hash_add_rcu(ue_mms, &um->node, (unsigned long)current->mm);
		ue_nr_mms++;
		mutex_unlock(ue_ksym_event_mutex);
		return 0;
	}
}

/*
 * The ue_mm of current's address space, which ue_enabler_prepare() made; if
 * a failed registration of another thread forgot it meanwhile, -EAGAIN, for
 * the caller to prepare again with ue_reg_mutex dropped.
 */
static struct ue_mm *ue_mm_current(void)
{
	struct ue_mm *um = ue_mm_of_current();

	return um ? um : ERR_PTR(-EAGAIN);
}

/* --- registration ------------------------------------------------------- */

bool ue_enabler_exists(u64 addr, u8 bit)
{
	struct ue_enabler *en;
	struct ue_mm *um;
	bool found = false;

	/* Looking does not create tracking state (unlike upstream). */
	rcu_read_lock();
	um = ue_mm_find(current->mm);
	if (um)
		list_for_each_entry_rcu(en, &um->enablers, link)
			if (en->addr == addr && en->bit == bit) {
				found = true;
				break;
			}
	rcu_read_unlock();
	return found;
}

/*
 * Add an enabler holding a reference on @ev (consumed either way): write the
 * event's current state into the word and list the enabler, under one hold
 * of event_mutex; never faults, never waits for the mmap lock. Where the
 * word is not present and writable, or the lock is taken: a registration
 * (@later false) fails with -EFAULT or -EBUSY, for its caller to fault in
 * or wait outside every lock and try again; a forked child's copy
 * (@later true) is listed anyway and faulted in by a work item, like any
 * later state change, so that a fault waiting on user space holds up no
 * fork and nobody's registration (issue 12, item 3).
 */
static int ue_enabler_add(struct ue_mm *um, struct ue_event *ev, u64 addr,
			  u8 bit, bool word32, bool later)
{
	struct ue_enabler *en;
	int ret = -ENOMEM;

	en = kzalloc(sizeof(*en), GFP_KERNEL_ACCOUNT);
	if (!en)
		goto put;
	en->ev = ev;
	en->um = um;
	en->addr = addr;
	en->bit = bit;
	en->word32 = word32;

	mutex_lock(ue_ksym_event_mutex);
	ret = ue_bit_write(um, addr, bit, word32, READ_ONCE(ev->status));
	if (!ret || ((ret == -EFAULT || ret == -EBUSY) && later)) {
		/* Oldest first: unregistering in that order stops early. */
		list_add_tail_rcu(&en->link, &um->enablers);
		list_add(&en->ev_link, &ev->enablers);
		if (ret)
			ue_enabler_fault_later(en, ret == -EBUSY);
		ret = 0;
	}
	mutex_unlock(ue_ksym_event_mutex);
	if (!ret)
		return 0;
	kfree(en);
put:
	ue_event_put(ev, false);
	return ret;
}

int ue_enabler_create(struct ue_event *ev, const struct user_reg *reg)
{
	struct ue_mm *um = ue_mm_current();

	if (IS_ERR(um))
		return PTR_ERR(um);
	return ue_enabler_add(um, ue_event_get(ev), reg->enable_addr,
			      reg->enable_bit, reg->enable_size == 4, false);
}

/*
 * A registration (or a fork attachment) that failed leaves nothing behind:
 * current's ue_mm goes again, with its notifier, if it has no enabler and
 * no other registration of it is under way. Kept, it would stay until the
 * address space dies, against "a failed registration leaves nothing"
 * (issue 12, item 11). ue_reg_mutex, held by the caller, keeps every other
 * registration off it.
 */
void ue_enabler_prepare_end(bool failed)
{
	struct ue_mm *um = ue_mm_of_current();

	if (!um)
		return;
	mutex_lock(ue_ksym_event_mutex);
	if (um->preparing)
		um->preparing--;
	if (!failed || !list_empty(&um->enablers) || um->preparing ||
	    test_and_set_bit(UE_MM_DETACHED, &um->flags)) {
		mutex_unlock(ue_ksym_event_mutex);
		return;
	}
	ue_mm_detach_unlock(um);
}

/* ue_fault_pin() in current's address space, for the ioctls. */
int ue_enabler_fault_in_pin(u64 addr, u8 bit, bool word32,
			    struct page **pin)
{
	return ue_fault_pin(current->mm, addr, bit, word32, pin);
}

void ue_enabler_unpin(struct page **pin)
{
	if (*pin)
		unpin_user_page(*pin);
	*pin = NULL;
}

int ue_enabler_wait_mm(void)
{
	if (mmap_read_lock_killable(current->mm))
		return -EINTR;
	mmap_read_unlock(current->mm);
	return 0;
}

int ue_enabler_clear(u64 addr, u8 bit, bool word32)
{
	return ue_bit_write_mm(current->mm, addr, bit, word32, false);
}

int ue_enabler_unregister(u64 addr, u8 bit, bool *word32)
{
	struct ue_enabler *en, *tmp;
	bool found = false;
	struct ue_mm *um;
	LIST_HEAD(free);

	um = ue_mm_of_current();
	if (!um)
		return -ENOENT;
	mutex_lock(ue_ksym_event_mutex);
	list_for_each_entry_safe(en, tmp, &um->enablers, link) {
		if (en->addr != addr || en->bit != bit)
			continue;
		found = true;
		*word32 = en->word32;
		ue_enabler_unlink(en, &free);
		/* (address, bit) is unique in an address space: no other. */
		break;
	}
	mutex_unlock(ue_ksym_event_mutex);
	if (!found)
		return -ENOENT;
	list_for_each_entry_safe(en, tmp, &free, ev_link)
		ue_enabler_free(en);
	return 0;
}

/* --- fork ---------------------------------------------------------------- */

static void ue_fork_put_work(struct work_struct *work)
{
	ue_fork_drop(container_of(work, struct ue_fork_snap, put_work), false);
	ue_work_done();
}

/*
 * In the fork tracepoint (preemption disabled): the enablers of the parent's
 * address space, each with a reference on its event, or NULL.
 *
 * An unregister may unlink an enabler at any point of the walk, under
 * event_mutex, which the walk does not hold. Unlinking one whose fault-in is
 * queued drops its event reference and clears en->ev at once
 * (ue_enabler_unlink()), so en->ev is loaded once: checked, then loaded
 * again, it could be NULL at the second load (a NULL dereference in fork())
 * or differ from the event referenced at the first (a reference leaked, a
 * NULL event handed to the child; issue 30, item 1). Events are freed an RCU
 * grace period after their destruction, which only begins at a count of
 * zero: refcount_inc_not_zero() on a loaded pointer is safe, and fails for
 * an event on its way out.
 */
struct ue_fork_snap *ue_fork_snapshot(struct mm_struct *parent)
{
	struct ue_fork_snap *snap = NULL;
	struct ue_enabler *en;
	struct ue_event *ev;
	struct ue_mm *um;
	u32 n = 0;

	rcu_read_lock();
	um = ue_mm_find(parent);
	if (!um)
		goto out;
	list_for_each_entry_rcu(en, &um->enablers, link)
		n++;
	if (!n)
		goto out;
	snap = kmalloc(struct_size(snap, e, n), GFP_NOWAIT | __GFP_NOWARN);
	if (!snap)
		goto out;
	snap->nr = 0;
	list_for_each_entry_rcu(en, &um->enablers, link) {
		if (snap->nr == n)
			break;
		if (READ_ONCE(en->freeing))
			continue;
		ue_race_window(UE_RACE_FORK_SNAPSHOT, true);
		ev = READ_ONCE(en->ev);
		if (!ev)
			continue;
		ue_race_window(UE_RACE_FORK_SNAPSHOT_EV, true);
		if (!refcount_inc_not_zero(&ev->refcnt))
			continue;
		snap->e[snap->nr].ev = ev;
		snap->e[snap->nr].addr = en->addr;
		snap->e[snap->nr].bit = en->bit;
		snap->e[snap->nr].word32 = en->word32;
		snap->nr++;
	}
	INIT_WORK(&snap->put_work, ue_fork_put_work);
out:
	rcu_read_unlock();
	return snap;
}

/* Drop a snapshot; from atomic context the references go in a work item. */
void ue_fork_drop(struct ue_fork_snap *snap, bool atomic)
{
	u32 i;

	if (atomic) {
		ue_queue_work(&snap->put_work);
		return;
	}
	for (i = 0; i < snap->nr; i++)
		ue_event_put(snap->e[i].ev, false);
	kfree(snap);
}

/*
 * In the child, before it first runs user code: its own enablers, written
 * with the current state (the copied words may be stale by now).
 */
void ue_fork_attach(struct ue_fork_snap *snap)
{
	struct ue_mm *um;
	int ret = -ESRCH;
	u32 i;

	/* Test builds may fail it here (race.h); the shipped module never. */
	if (ue_race_window(UE_RACE_FORK_ATTACH, false))
		ret = -ENOMEM;
	/* The child is not yet running user code: none of its threads races. */
	else if (!(current->flags & PF_EXITING) && current->mm)
		ret = ue_enabler_prepare();
	mutex_lock(&ue_reg_mutex);
	um = ret ? ERR_PTR(ret) : ue_mm_current();
	for (i = 0; i < snap->nr; i++) {
		if (IS_ERR(um) || ue_enabler_exists(snap->e[i].addr,
						    snap->e[i].bit)) {
			ue_event_put(snap->e[i].ev, false);
			continue;
		}
		/* Only a gone address space or no memory leaves it out. */
		ue_enabler_add(um, snap->e[i].ev, snap->e[i].addr,
			       snap->e[i].bit, snap->e[i].word32, true);
	}
	/* Nothing was added: the child is not tracked. */
	if (!ret)
		ue_enabler_prepare_end(true);
	mutex_unlock(&ue_reg_mutex);
	kfree(snap);
	ue_race_window(UE_RACE_FORK_ATTACH, false);
}

/*
 * At unload no event exists, so no enabler does; what is left are address
 * spaces still registered with our notifier.
 */
void ue_enablers_exit(void)
{
	unsigned long deadline;
	struct hlist_node *tmp;
	struct ue_mm *um;
	int bkt;

	flush_workqueue(ue_wq);
	mutex_lock(ue_ksym_event_mutex);
	ue_race_window(UE_RACE_UNLOAD, false);
	hash_for_each_safe(ue_mms, bkt, tmp, um, node) {
		if (test_and_set_bit(UE_MM_DETACHED, &um->flags))
			continue;
		hash_del_rcu(&um->node);
		ue_nr_mms--;
		mmu_notifier_put(&um->mn);
	}
	mutex_unlock(ue_ksym_event_mutex);
	/*
	 * A .release that set UE_MM_DETACHED before the loop detaches its
	 * ue_mm itself, at once or from a work item it queues: wait for the
	 * callbacks in flight (they run inside the SRCU read section that
	 * this waits for), then for the work they queued, which puts their
	 * notifiers, and only then for the frees of every put notifier.
	 * Waiting for the frees before that work ran left a free_notifier
	 * callback to run after unload (issue 12, item 6a). The frees are
	 * SRCU callbacks, which a grace period need not have run yet on
	 * another CPU (its callbacks run from a work item there, which
	 * synchronize_srcu() does not wait for): wait until they have all
	 * been called, sleeping between grace periods so that such work can
	 * run, for up to 10 s. (A bound of 100 grace periods was not one of
	 * time: with expedited grace periods, rcupdate.rcu_expedited=1, the
	 * 100 passed before the frees of 28 notifiers had run, on 5.10.)
	 * What is left of one after its count is its return; SRCU calls it
	 * with bottom halves disabled, which the unload's synchronize_rcu()
	 * waits for.
	 */
	mmu_notifier_synchronize();
	flush_workqueue(ue_wq);
	deadline = jiffies + 10 * HZ;
	while (atomic_read(&ue_nr_notifiers) && time_before(jiffies, deadline)) {
		mmu_notifier_synchronize();
		if (atomic_read(&ue_nr_notifiers))
			usleep_range(1000, 2000);
	}
	WARN_ONCE(atomic_read(&ue_nr_notifiers), "%d notifiers not freed at unload\n",
		  atomic_read(&ue_nr_notifiers));
}
