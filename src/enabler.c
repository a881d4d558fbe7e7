// SPDX-License-Identifier: GPL-2.0
/*
 * Enable bits: the kernel keeps bit B of the word at address A of a process
 * equal to "event E has a probe attached" (user_events.rst, Status).
 *
 * Following address spaces without kernel hooks (docs/design.md, "Following
 * address spaces"). Upstream hangs its tracking object off task_struct and
 * is called from fork, exec and exit. A module cannot, so tracking here is
 * per mm, not per task lineage:
 *  - one struct ue_mm per address space that registered, found by its mm,
 *    which it holds with mmgrab(): the mm_struct stays allocated (not the
 *    memory it maps), so no later address space can take its address;
 *  - an address space is dead once it has no user left (its last thread
 *    exited, or exec replaced the image): a bit write takes a user with
 *    mmget_not_zero() and leaves a dead one alone, the kernel tells us when
 *    one dies (compat/mm_gone.h), and ue_mms_sweep() retires its enablers:
 *    in our own worker, or in the task that settles the state before a
 *    registration or deletion is judged, so that an exit is in effect by
 *    then; never in the task that dropped the last user, which may hold
 *    tracing locks (trace_user_stack_print() drops one under
 *    trace_event_sem);
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
 * Nothing here takes an mmap lock for writing, and no address space's mmap
 * lock is ever waited for under event_mutex or ue_reg_mutex, only tried. A
 * reader of that lock can wait on user space for as long as it likes (a
 * read of /proc/PID/mem that faults in a page of a FUSE file whose daemon
 * does not answer holds it), a writer that queues behind it (the process's
 * mmap()) makes every later reader wait too, and a waiter under event_mutex
 * would stop every ftrace enable, perf open, dynamic_events and
 * kprobe_events write, instance creation and module load with trace events
 * on the machine. Upstream takes the lock under both mutexes, for every
 * registration, state change and unregistration, and has that defect; here
 * a state change that finds the lock taken leaves the write to the address
 * space's fault worker (ue_mm.fault_work), which waits for it with no lock
 * held, and a registration or unregistration waits for it after dropping
 * the mutexes, then tries again (data_file.c ue_fix_unlocked()). A fault
 * worker that waits on user space holds one worker of our own queue and
 * delays only the bits of its own address space.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/task_work.h>
#include <linux/userfaultfd_k.h>

#include "compat/gup.h"
#include "compat/mm_gone.h"
#include "private/ksyms.h"
#include "enabler.h"
#include "event.h"
#include "race.h"
#include "ue.h"

/* ue_mm.flags */
#define UE_MM_DEAD		0	/* no user left; on ue_mms_dead */

struct ue_mm {
	struct mm_struct	*mm;		/* mmgrab()bed */
	struct hlist_node	node;		/* ue_mms, by mm; event_mutex */
	struct list_head	enablers;
	unsigned int		nr_enablers;	/* event_mutex */
	/* enablers whose word the fault worker is to fault in; event_mutex */
	struct list_head	faults;
	struct work_struct	fault_work;	/* on ue_fault_wq */
	struct work_struct	put_work;	/* a bit write's last mmput() */
	/* the sweep in the task that dropped the last user (ue_mm_gone()) */
	struct callback_head	gone_twork;
	struct work_struct	unref_work;	/* when gone_twork cannot be */
	struct llist_node	dead_node;	/* ue_mms_dead */
	/* the table, each queued run of a work item, ue_mms_dead */
	struct kref		ref;
	unsigned long		flags;
	struct rcu_head		rcu;
};

struct ue_enabler {
	struct list_head	link;		/* ue_mm.enablers */
	struct list_head	ev_link;	/* ue_event.enablers */
	struct list_head	fault_link;	/* ue_mm.faults */
	struct ue_event		*ev;		/* referenced */
	struct ue_mm		*um;
	u64			addr;		/* as registered */
	u8			bit;		/* as registered */
	bool			word32;		/* enable_size 4 */
	bool			faulting;	/* on um->faults, or being faulted in */
	bool			freeing;	/* off its lists; the fault worker frees */
	u8			attempt;
	struct rcu_head		rcu;
};

static DEFINE_HASHTABLE(ue_mms, 6);
/* Address spaces in ue_mms; event_mutex. */
static unsigned int ue_nr_mms;
/* ue_mm structures not yet released, those out of the table included. */
static atomic_t ue_nr_mm_structs = ATOMIC_INIT(0);
/* Dead address spaces the sweep has not retired yet, each referenced. */
static LLIST_HEAD(ue_mms_dead);

static void ue_mms_sweep_work(struct work_struct *work);
static DECLARE_WORK(ue_sweep_work, ue_mms_sweep_work);

static struct ue_mm *ue_mm_find(struct mm_struct *mm)
{
	struct ue_mm *um;

	hash_for_each_possible_rcu(ue_mms, um, node, (unsigned long)mm)
		if (um->mm == mm)
			return um;
	return NULL;
}

/* The last reference: process context, no lock held. */
static void ue_mm_release(struct kref *ref)
{
	struct ue_mm *um = container_of(ref, struct ue_mm, ref);

	mmdrop(um->mm);
	/* The fork probe and the exit probe may still look at it under RCU. */
	kfree_rcu(um, rcu);
	atomic_dec(&ue_nr_mm_structs);
}

static void ue_mm_unref(struct ue_mm *um)
{
	kref_put(&um->ref, ue_mm_release);
}

/* Queue one of @um's work items on ue_fault_wq; a queued run holds @um. */
static void ue_mm_queue(struct ue_mm *um, struct work_struct *work)
{
	kref_get(&um->ref);
	/* The module stays until the run returns (ue_events_exit()). */
	__module_get(THIS_MODULE);
	if (!queue_work(ue_fault_wq, work)) {
		/* Queued already, not yet running: that run does it. */
		module_put(THIS_MODULE);
		kref_put(&um->ref, ue_mm_release);
	}
}

/* The end of a run of one of @um's work items: nothing of ours after it. */
static void ue_mm_work_done(struct ue_mm *um)
{
	ue_mm_unref(um);
	module_put(THIS_MODULE);
}

/*
 * The 8-byte-aligned word and bit that an atomic update covers: a 4-byte
 * word at an address 4 mod 8 is the upper half of its long, as upstream's
 * align_addr_bit().
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
 * Flag @um dead for the sweep, once; from any context, under RCU or holding
 * a reference. Whether this call flagged it.
 */
static bool ue_mm_mark_dead(struct ue_mm *um)
{
	if (test_and_set_bit(UE_MM_DEAD, &um->flags) ||
	    !kref_get_unless_zero(&um->ref))
		return false;
	llist_add(&um->dead_node, &ue_mms_dead);
	return true;
}

/*
 * The last user of an address space, dropped by a bit write, is put by
 * @um's own worker: the teardown (__mmput()) waits for the process's AIO in
 * flight (exit_aio()), and a read from a FUSE daemon that does not answer
 * is in flight for ever. Under event_mutex that would stop all tracing, and
 * on a shared kernel queue (mmput_async()) it would hold a worker that
 * others need; on ours it holds up only this address space's work.
 */
static void ue_mm_put_work(struct work_struct *work)
{
	struct ue_mm *um = container_of(work, struct ue_mm, put_work);

	mmput(um->mm);
	ue_mm_work_done(um);
}

/*
 * Drop the user of @um's address space that a bit write took. Where it is
 * the last, no task uses the address space any more: it is dead now, for
 * the next registration or deletion to see (ue_events_settle() runs the
 * sweep), however long its teardown takes.
 */
static void __cold ue_mm_last_put(struct ue_mm *um)
{
	if (ue_mm_mark_dead(um))
		ue_queue_work(&ue_sweep_work);
	/* Once per address space: its users reach zero only once. */
	ue_mm_queue(um, &um->put_work);
}

static inline void ue_mm_put(struct ue_mm *um)
{
	if (likely(atomic_add_unless(&um->mm->mm_users, -1, 1)))
		return;
	ue_mm_last_put(um);
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
 * (user_event_enabler_queue_fault()), and the bit lags behind the change,
 * which its selftest abi_test's forks does not allow: it reads the bit right
 * after disabling its event on a page still copy-on-write from a fork.
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
 * (the mmap lock is taken), or -ENOENT if the address space is dead.
 */
static int ue_bit_write(struct ue_mm *um, u64 addr, u8 bit, bool word32,
			bool set)
{
	int ret;

	/* Never touch an address space whose tasks are all gone. */
	if (test_bit(UE_MM_DEAD, &um->flags) || !mmget_not_zero(um->mm))
		return -ENOENT;
	ret = ue_bit_write_mm(um->mm, addr, bit, word32, set);
	if (ret == -EFAULT && !ue_fault_in_anon(um->mm, addr, bit, word32))
		ret = ue_bit_write_mm(um->mm, addr, bit, word32, set);
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
 * The enabler's word is not present or read-only (COW, swapped out), or
 * its address space's mmap lock is taken (@contended): the address space's
 * fault worker faults it in, which waits for the lock there, then writes
 * it; event_mutex held. Faults count towards UE_FAULT_ATTEMPTS, as upstream;
 * a lock taken does not: the bit would be left stale for as long as a
 * process's own mmap() calls kept meeting its writes. Each round waits for
 * the lock before it tries again, so contention costs waiting, not
 * spinning.
 *
 * The worker is one work item per address space, on ue_fault_wq, which
 * nothing drains: a fault can wait on user space for as long as it likes (a
 * userfaultfd nobody answers, a FUSE daemon that hangs), and draining it
 * would make every registration, deletion and status read wait too. One
 * item per address space, rather than one per word, so that a process
 * with many words stuck holds one worker, and the words of other address
 * spaces are faulted in by others.
 */
static void ue_enabler_fault_later(struct ue_enabler *en, bool contended)
{
	lockdep_assert_held(ue_ksym_event_mutex);
	if (!contended) {
		if (en->attempt >= UE_FAULT_ATTEMPTS) {
			ue_race_bit_failed("fault work", -EFAULT, en->attempt);
			return;
		}
		en->attempt++;
	}
	en->faulting = true;
	list_add_tail(&en->fault_link, &en->um->faults);
	ue_mm_queue(en->um, &en->um->fault_work);
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

/*
 * The next enabler of @um to fault in, or NULL. One unlinked meanwhile
 * (its event reference is gone already) is freed here.
 */
static struct ue_enabler *ue_mm_next_fault(struct ue_mm *um)
{
	struct ue_enabler *en;

	mutex_lock(ue_ksym_event_mutex);
	while ((en = list_first_entry_or_null(&um->faults, struct ue_enabler,
					      fault_link))) {
		list_del(&en->fault_link);
		if (!en->freeing)
			break;
		kfree_rcu(en, rcu);
	}
	mutex_unlock(ue_ksym_event_mutex);
	return en;
}

/* Fault in @en's word, pinned until the write: a fork() leaves it writable. */
static void ue_enabler_fault(struct ue_mm *um, struct ue_enabler *en)
{
	struct page *pin = NULL;
	int ret = -ENOENT;

	/* Its address, bit and size never change: read without a lock. */
	if (mmget_not_zero(um->mm)) {
		ret = ue_fault_pin(um->mm, en->addr, en->bit, en->word32, &pin);
		/* The last user, maybe: this worker is the address space's. */
		mmput(um->mm);
	}
	if (!ret)
		ue_race_window(UE_RACE_FAULT_WORK, false);
	mutex_lock(ue_ksym_event_mutex);
	en->faulting = false;
	if (en->freeing) {
		/* Its event reference went when it was unlinked. */
		kfree_rcu(en, rcu);
	} else if (ret && ret != -ENOENT) {
		pr_warn("Fault for mm: 0x%pK @ 0x%llx event: %s\n", um->mm,
			en->addr, en->ev->tp_name);
	} else if (!ret) {
		ue_enabler_write(en);
	}
	mutex_unlock(ue_ksym_event_mutex);
	ue_enabler_unpin(&pin);
}

static void ue_mm_fault_work(struct work_struct *work)
{
	struct ue_mm *um = container_of(work, struct ue_mm, fault_work);
	struct ue_enabler *en;

	while ((en = ue_mm_next_fault(um)))
		ue_enabler_fault(um, en);
	ue_mm_work_done(um);
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
 * stack. ev_link is only ever walked under event_mutex.
 */
static void ue_enabler_unlink(struct ue_enabler *en, struct list_head *free)
{
	lockdep_assert_held(ue_ksym_event_mutex);
	list_del_rcu(&en->link);
	list_del(&en->ev_link);
	en->um->nr_enablers--;
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
	 * (ue_fork_snapshot()).
	 */
	ue_event_put(en->ev, true);
	WRITE_ONCE(en->ev, NULL);
}

/* --- address spaces ------------------------------------------------------ */

unsigned int ue_mms_count(void)
{
	return READ_ONCE(ue_nr_mms);
}

/*
 * Take @um out of the table and its enablers off their lists, onto @free;
 * event_mutex held. The table's reference goes to the caller.
 */
static void ue_mm_unhash(struct ue_mm *um, struct list_head *free)
{
	struct ue_enabler *en, *tmp;

	lockdep_assert_held(ue_ksym_event_mutex);
	hash_del_rcu(&um->node);
	ue_nr_mms--;
	list_for_each_entry_safe(en, tmp, &um->enablers, link)
		ue_enabler_unlink(en, free);
}

static void ue_enablers_free(struct list_head *free)
{
	struct ue_enabler *en, *tmp;

	list_for_each_entry_safe(en, tmp, free, ev_link)
		ue_enabler_free(en);
}

/*
 * Address spaces the kernel does not report dead one by one
 * (compat/mm_gone.h): look at every one; event_mutex held.
 */
static void ue_mms_find_dead(void)
{
	struct ue_mm *um;
	int bkt;

	lockdep_assert_held(ue_ksym_event_mutex);
	hash_for_each(ue_mms, bkt, um, node)
		if (!atomic_read(&um->mm->mm_users))
			ue_mm_mark_dead(um);
}

/*
 * Retire the enablers of every dead address space: process context, no
 * lock held. The event references they drop may be the last ones.
 */
void ue_mms_sweep(void)
{
	struct llist_node *dead;
	struct ue_mm *um, *next;
	LIST_HEAD(free);

	/* Nothing reported, and (where it walks) nothing to walk. */
	if (llist_empty(&ue_mms_dead) &&
	    (!UE_MM_GONE_WALK || !READ_ONCE(ue_nr_mms)))
		return;
	mutex_lock(ue_ksym_event_mutex);
	if (UE_MM_GONE_WALK)
		ue_mms_find_dead();
	dead = llist_del_all(&ue_mms_dead);
	llist_for_each_entry(um, dead, dead_node) {
		if (hash_hashed(&um->node)) {
			ue_mm_unhash(um, &free);
			/* The table's reference. */
			kref_put(&um->ref, ue_mm_release);
		}
	}
	mutex_unlock(ue_ksym_event_mutex);
	ue_enablers_free(&free);
	llist_for_each_entry_safe(um, next, dead, dead_node)
		ue_mm_unref(um);
}

static void ue_mms_sweep_work(struct work_struct *work)
{
	ue_mms_sweep();
	ue_work_done();
}

static void ue_mm_gone_twork(struct callback_head *cb)
{
	ue_mms_sweep();
	/* The module's reference goes last: ue_fork_exit() waits for it. */
	ue_mm_work_done(container_of(cb, struct ue_mm, gone_twork));
}

static void ue_mm_unref_work(struct work_struct *work)
{
	ue_mm_work_done(container_of(work, struct ue_mm, unref_work));
}

/*
 * The sweep also runs in the user task that dropped @um's last user, once
 * that task holds nothing: as task work, at its exit (exit_task_work(),
 * before its parent's wait returns, so that the exit is in effect then, as
 * for a deletion right after it) or its return to user space (exec; a
 * reader of /proc/PID/mem or of the trace file). Kernel threads leave it to
 * the worker. Only the task that flagged @um dead comes here. Whether the
 * task will.
 */
static bool ue_mm_sweep_in_task(struct ue_mm *um)
{
	if ((current->flags & PF_KTHREAD) || !try_module_get(THIS_MODULE))
		return false;
	if (!kref_get_unless_zero(&um->ref)) {
		module_put(THIS_MODULE);
		return false;
	}
	init_task_work(&um->gone_twork, ue_mm_gone_twork);
	if (!task_work_add(current, &um->gone_twork, TWA_RESUME))
		return true;
	/* Past its exit_task_work(): the worker sweeps, this lets go. */
	INIT_WORK(&um->unref_work, ue_mm_unref_work);
	queue_work(ue_fault_wq, &um->unref_work);
	return false;
}

/*
 * The kernel says @mm died (compat/mm_gone.h), in whichever task dropped
 * its last user, which may hold any lock, tracing's included (a reader of
 * the trace file printing a user stack holds trace_event_sem); preemption
 * may be disabled. Only flags it, for the sweep.
 */
void ue_mm_gone(struct mm_struct *mm)
{
	struct ue_mm *um;

	if (!READ_ONCE(ue_nr_mms))
		return;
	rcu_read_lock();
	um = ue_mm_find(mm);
	if (um && ue_mm_mark_dead(um) && !ue_mm_sweep_in_task(um))
		ue_queue_work(&ue_sweep_work);
	rcu_read_unlock();
}

/* The kernel says some address space may have died: look at them all. */
void ue_mms_maybe_gone(void)
{
	if (READ_ONCE(ue_nr_mms))
		ue_queue_work(&ue_sweep_work);
}

/*
 * The ue_mm of current's address space, or NULL. ue_reg_mutex keeps it: the
 * address space is alive while current uses it, and only registrations,
 * which that mutex serialises, take a live one out of the table.
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
 * The ue_mm of current's address space, made if there is none: a
 * kzalloc() and an mmgrab(), no lock of the address space. ue_reg_mutex
 * serialises the makers.
 */
static struct ue_mm *ue_mm_of_current_make(void)
{
	struct ue_mm *um;

	um = ue_mm_of_current();
	if (um)
		return um;
	um = kzalloc(sizeof(*um), GFP_KERNEL_ACCOUNT);
	if (!um)
		return ERR_PTR(-ENOMEM);
	mmgrab(current->mm);
	um->mm = current->mm;
	INIT_LIST_HEAD(&um->enablers);
	INIT_LIST_HEAD(&um->faults);
	INIT_WORK(&um->fault_work, ue_mm_fault_work);
	INIT_WORK(&um->put_work, ue_mm_put_work);
	kref_init(&um->ref);
	atomic_inc(&ue_nr_mm_structs);
	mutex_lock(ue_ksym_event_mutex);
	hash_add_rcu(ue_mms, &um->node, (unsigned long)um->mm);
	ue_nr_mms++;
	mutex_unlock(ue_ksym_event_mutex);
	return um;
}

/*
 * A registration (or a fork attachment) that failed leaves nothing behind:
 * @um goes again if it has no enabler. Kept, it would stay until the
 * address space dies. ue_reg_mutex, held by the caller, keeps every other
 * registration off it.
 */
static void ue_mm_forget_unused(struct ue_mm *um)
{
	LIST_HEAD(free);
	bool forget;

	lockdep_assert_held(&ue_reg_mutex);
	/* Only ue_reg_mutex holders take a live address space's enablers. */
	if (!list_empty(&um->enablers))
		return;
	mutex_lock(ue_ksym_event_mutex);
	forget = list_empty(&um->enablers) && hash_hashed(&um->node);
	if (forget)
		ue_mm_unhash(um, &free);
	mutex_unlock(ue_ksym_event_mutex);
	if (forget)
		ue_mm_unref(um);
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
 * Whether current's word already holds @set at the bit, read without
 * faulting. A forked child's copy of its parent's word is right unless the
 * event's state changed since the fork copied the memory; writing it anyway
 * pins its page, which cost as much as the rest of the fork's work for the
 * enabler (make bench's fork rows).
 */
static bool ue_word_is(u64 addr, u8 bit, bool word32, bool set)
{
	unsigned long waddr, val;
	int wbit;

	ue_word(addr, bit, word32, &waddr, &wbit);
	if (copy_from_user_nofault(&val, (const void __user *)waddr,
				   sizeof(val)))
		return false;
	return !!(val & BIT(wbit)) == set;
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
 * fork and nobody's registration.
 */
static int ue_enabler_add(struct ue_mm *um, struct ue_event *ev, u64 addr,
			  u8 bit, bool word32, bool later)
{
	struct ue_enabler *en;
	int ret = -ENOMEM;
	bool set;

	en = kzalloc(sizeof(*en), GFP_KERNEL_ACCOUNT);
	if (!en)
		goto put;
	en->ev = ev;
	en->um = um;
	en->addr = addr;
	en->bit = bit;
	en->word32 = word32;

	mutex_lock(ue_ksym_event_mutex);
	set = READ_ONCE(ev->status);
	if (later && ue_word_is(addr, bit, word32, set))
		ret = 0;
	else
		ret = ue_bit_write(um, addr, bit, word32, set);
	if (!ret || ((ret == -EFAULT || ret == -EBUSY) && later)) {
		/* Oldest first: unregistering in that order stops early. */
		list_add_tail_rcu(&en->link, &um->enablers);
		list_add(&en->ev_link, &ev->enablers);
		ue_fork_snap_need(++um->nr_enablers);
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
	struct ue_mm *um = ue_mm_of_current_make();

	if (IS_ERR(um))
		return PTR_ERR(um);
	return ue_enabler_add(um, ue_event_get(ev), reg->enable_addr,
			      reg->enable_bit, reg->enable_size == 4, false);
}

void ue_enabler_reg_failed(void)
{
	struct ue_mm *um = ue_mm_of_current();

	if (um)
		ue_mm_forget_unused(um);
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
 * NULL event handed to the child). Events are freed an RCU grace period after
 * their destruction, which only begins at a count of zero:
 * refcount_inc_not_zero() on a loaded pointer is safe, and fails for an event
 * on its way out.
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
	snap = ue_fork_snap_get(n);
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
	ue_fork_snap_free(snap);
}

/*
 * In the child, before it first runs user code: its own enablers, written
 * with the current state (the copied words may be stale by now).
 */
void ue_fork_attach(struct ue_fork_snap *snap)
{
	struct ue_mm *um = ERR_PTR(-ESRCH);
	bool fail;
	u32 i;

	/* Test builds may fail it here (race.h); the shipped module never. */
	fail = ue_race_window(UE_RACE_FORK_ATTACH, false);
	mutex_lock(&ue_reg_mutex);
	if (fail)
		um = ERR_PTR(-ENOMEM);
	/* The child is not yet running user code: none of its threads races. */
	else if (!(current->flags & PF_EXITING) && current->mm)
		um = ue_mm_of_current_make();
	for (i = 0; i < snap->nr; i++) {
		if (IS_ERR(um) || ue_enabler_exists(snap->e[i].addr,
						    snap->e[i].bit)) {
			ue_event_put(snap->e[i].ev, false);
			continue;
		}
		/* Only a dead address space or no memory leaves it out. */
		ue_enabler_add(um, snap->e[i].ev, snap->e[i].addr,
			       snap->e[i].bit, snap->e[i].word32, true);
	}
	/* Nothing was added: the child is not tracked. */
	if (!IS_ERR(um))
		ue_mm_forget_unused(um);
	mutex_unlock(&ue_reg_mutex);
	ue_fork_snap_free(snap);
	ue_race_window(UE_RACE_FORK_ATTACH, false);
}

int ue_enablers_init(void)
{
	return ue_gup_init();
}

/*
 * At unload no event exists, so no enabler does, and no work item of an
 * address space is queued (each holds a module reference); the kernel's
 * reports of dead address spaces have stopped (ue_mm_gone_exit()). What is
 * left are address spaces in the table, and the sweep's work.
 */
void ue_enablers_exit(void)
{
	struct hlist_node *tmp;
	struct ue_mm *um;
	LIST_HEAD(free);
	int bkt;

	flush_workqueue(ue_wq);
	ue_mms_sweep();
	mutex_lock(ue_ksym_event_mutex);
	ue_race_window(UE_RACE_UNLOAD, false);
	hash_for_each_safe(ue_mms, bkt, tmp, um, node) {
		ue_mm_unhash(um, &free);
		kref_put(&um->ref, ue_mm_release);
	}
	mutex_unlock(ue_ksym_event_mutex);
	WARN_ONCE(!list_empty(&free), "enablers left at unload\n");
	WARN_ONCE(atomic_read(&ue_nr_mm_structs),
		  "%d address spaces not released at unload\n",
		  atomic_read(&ue_nr_mm_structs));
	ue_gup_exit();
}
