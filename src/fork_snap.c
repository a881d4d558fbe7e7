// SPDX-License-Identifier: GPL-2.0
/*
 * Memory for the snapshots that the task_newtask probe takes of a parent's
 * enablers (enabler.c ue_fork_snapshot()).
 *
 * Each CPU keeps up to UE_SNAP_SPARES snapshots: the probe takes one, and
 * the forked child gives it back once it has attached its copies, so that a
 * process forking in a loop allocates none (make bench's fork rows).
 * Elsewhere the probe allocates with GFP_NOWAIT.
 *
 * Where that probe runs with preemption disabled (compat/tp_funcs.h) on
 * PREEMPT_RT, it may not allocate at all: SLUB's per-CPU lock is a sleeping
 * lock there, and a contended one gives "BUG: scheduling while atomic".
 * Upstream's fork hook runs preemptible. There the spares are allocated
 * ahead, each large enough for the address space with the most enablers
 * (the registration that passes that size grows them all before it
 * returns), and a work item replaces one that a fork took and its child has
 * not given back. A fork that finds none (more forks on one CPU than
 * spares, in a moment) leaves its child without the parent's enablers, and
 * is counted (debugfs forks_untraced), as a fork whose GFP_NOWAIT
 * allocation failed is elsewhere.
 */
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat/tp_funcs.h"
#include "enabler.h"
#include "ue.h"

/* Snapshots only from the spares, allocated ahead. */
#define UE_SNAP_AHEAD	(IS_ENABLED(CONFIG_PREEMPT_RT) && UE_TP_PROBES_ATOMIC)
#define UE_SNAP_SPARES	4
/* The smallest snapshot, in enablers. */
#define UE_SNAP_MIN	8
/* The largest kept for reuse where they are not allocated ahead. */
#define UE_SNAP_KEEP	128

/* A raw lock: the probe takes it with preemption disabled, on RT too. */
struct ue_snap_spares {
	raw_spinlock_t		lock;
	struct ue_fork_snap	*spare[UE_SNAP_SPARES];
};

static DEFINE_PER_CPU(struct ue_snap_spares, ue_snap_spares);
/* The size of new spares, in enablers: it only grows; ue_snap_mutex. */
static u32 ue_snap_cap = UE_SNAP_MIN;
static DEFINE_MUTEX(ue_snap_mutex);

static void ue_snap_refill_work(struct work_struct *work);
static DECLARE_WORK(ue_snap_refill, ue_snap_refill_work);

atomic_t ue_forks_untraced = ATOMIC_INIT(0);

static struct ue_fork_snap *ue_snap_alloc(u32 cap, gfp_t gfp)
{
	struct ue_fork_snap *snap;

	/* A spare is allocated ahead, where it may sleep: any size. */
	if (gfp == GFP_KERNEL)
		snap = kvmalloc(struct_size(snap, e, cap), gfp);
	else
		snap = kmalloc(struct_size(snap, e, cap), gfp);
	if (snap)
		snap->cap = cap;
	return snap;
}

/*
 * Give every spare of @cpu that is missing or smaller than @cap one of
 * @cap entries: 0, or -ENOMEM. Allocates with no lock of the spares held.
 */
static int ue_snap_fill(int cpu, u32 cap)
{
	struct ue_snap_spares *s = per_cpu_ptr(&ue_snap_spares, cpu);
	struct ue_fork_snap *snap, *old;
	unsigned long flags;
	bool ok;
	int i;

	for (i = 0; i < UE_SNAP_SPARES; i++) {
		raw_spin_lock_irqsave(&s->lock, flags);
		old = s->spare[i];
		ok = old && old->cap >= cap;
		raw_spin_unlock_irqrestore(&s->lock, flags);
		if (ok)
			continue;
		snap = ue_snap_alloc(cap, GFP_KERNEL);
		if (!snap)
			return -ENOMEM;
		raw_spin_lock_irqsave(&s->lock, flags);
		old = s->spare[i];
		if (!old || old->cap < snap->cap) {
			s->spare[i] = snap;
			snap = old;
		}
		raw_spin_unlock_irqrestore(&s->lock, flags);
		kvfree(snap);
	}
	return 0;
}

static void ue_snap_fill_all(void)
{
	int cpu;

	mutex_lock(&ue_snap_mutex);
	for_each_possible_cpu(cpu)
		if (ue_snap_fill(cpu, ue_snap_cap))
			break;
	mutex_unlock(&ue_snap_mutex);
}

static void ue_snap_refill_work(struct work_struct *work)
{
	ue_snap_fill_all();
}

/* A spare of this CPU's for @n enablers, or NULL. */
static struct ue_fork_snap *ue_snap_take(u32 n)
{
	struct ue_fork_snap *snap = NULL;
	struct ue_snap_spares *s;
	unsigned long flags;
	int i;

	/* 7.x calls the probe preemptible. */
	s = get_cpu_ptr(&ue_snap_spares);
	raw_spin_lock_irqsave(&s->lock, flags);
	for (i = 0; i < UE_SNAP_SPARES; i++) {
		if (s->spare[i] && s->spare[i]->cap >= n) {
			snap = s->spare[i];
			s->spare[i] = NULL;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	put_cpu_ptr(&ue_snap_spares);
	return snap;
}

/* Keep @snap as a spare of this CPU's: whether it was kept. */
static bool ue_snap_keep(struct ue_fork_snap *snap)
{
	struct ue_snap_spares *s;
	unsigned long flags;
	bool kept = false;
	int i;

	if (!UE_SNAP_AHEAD && snap->cap > UE_SNAP_KEEP)
		return false;
	s = get_cpu_ptr(&ue_snap_spares);
	raw_spin_lock_irqsave(&s->lock, flags);
	for (i = 0; i < UE_SNAP_SPARES && !kept; i++) {
		if (!s->spare[i]) {
			s->spare[i] = snap;
			kept = true;
		}
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	put_cpu_ptr(&ue_snap_spares);
	return kept;
}

struct ue_fork_snap *ue_fork_snap_get(u32 n)
{
	struct ue_fork_snap *snap = ue_snap_take(n);

	/* Allocated ahead: the next one, before the child gives this back. */
	if (UE_SNAP_AHEAD)
		queue_work(ue_wq, &ue_snap_refill);
	else if (!snap)
		snap = ue_snap_alloc(max_t(u32, n, UE_SNAP_MIN),
				     GFP_NOWAIT | __GFP_NOWARN);
	if (!snap)
		atomic_inc(&ue_forks_untraced);
	return snap;
}

bool ue_fork_snap_unused(struct ue_fork_snap *snap)
{
	return ue_snap_keep(snap);
}

void ue_fork_snap_free(struct ue_fork_snap *snap)
{
	if (!ue_snap_keep(snap))
		kvfree(snap);
}

/*
 * Grown here, in the task that added the enabler, before it can fork: a
 * process that registers, then forks at once, finds spares its size.
 */
void ue_fork_snap_need(u32 n)
{
	if (!UE_SNAP_AHEAD || n <= READ_ONCE(ue_snap_cap))
		return;
	mutex_lock(&ue_snap_mutex);
	if (n > ue_snap_cap)
		WRITE_ONCE(ue_snap_cap, roundup_pow_of_two(n));
	mutex_unlock(&ue_snap_mutex);
	ue_snap_fill_all();
}

int ue_fork_snap_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu_ptr(&ue_snap_spares, cpu)->lock);
	if (!UE_SNAP_AHEAD)
		return 0;
	for_each_possible_cpu(cpu) {
		if (ue_snap_fill(cpu, UE_SNAP_MIN)) {
			ue_fork_snap_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

/* After the probe is gone, and every child's attachment. */
void ue_fork_snap_exit(void)
{
	struct ue_snap_spares *s;
	int cpu, i;

	cancel_work_sync(&ue_snap_refill);
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(&ue_snap_spares, cpu);
		for (i = 0; i < UE_SNAP_SPARES; i++) {
			kvfree(s->spare[i]);
			s->spare[i] = NULL;
		}
	}
}
