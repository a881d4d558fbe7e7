/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a tracepoint's probes (tp.funcs) the way the core's own callers
 * do, so that the array read stays valid until the reader is done with it.
 *
 * Up to 6.12 (5.10, 6.1, 6.12 here): probes are called under
 *   preempt_disable_notrace(), and an old array is freed after an RCU grace
 *   period: an RCU-sched reader.
 * 7.2, 7.3: probes are called under SRCU-fast on tracepoint_srcu (exported),
 *   and an old array is freed after a grace period of that SRCU
 *   (release_probes()). An RCU-sched reader would be safe there only while
 *   SRCU-fast grace periods happen to wait for RCU, which nothing promises.
 *   The reader is an SRCU-fast one, with preemption disabled as well: the
 *   write path's record buffer is per-CPU.
 *
 * Probed (compat/probes.h: probe/tp_srcu_fast.c, UE_HAVE_TP_SRCU_FAST), by
 * what a tracepoint's call expands to: 6.12 declares tracepoint_srcu too,
 * for its _rcuidle tracepoints, so the variable alone does not tell.
 */
#ifndef UE_COMPAT_TP_FUNCS_H
#define UE_COMPAT_TP_FUNCS_H

#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/tracepoint.h>
#include "probes.h"

#ifdef UE_HAVE_TP_SRCU_FAST
#include <linux/srcu.h>

struct ue_tp_reader {
	struct srcu_ctr __percpu	*scp;
};

static __always_inline void ue_tp_read_lock(struct ue_tp_reader *r)
{
	preempt_disable_notrace();
	r->scp = srcu_read_lock_fast_notrace(&tracepoint_srcu);
}

static __always_inline void ue_tp_read_unlock(struct ue_tp_reader *r)
{
	srcu_read_unlock_fast_notrace(&tracepoint_srcu, r->scp);
	preempt_enable_notrace();
}

/* As __DO_TRACE_CALL() loads it. */
#define ue_tp_funcs(tp)		rcu_dereference_raw((tp)->funcs)

/* Whether the kernel calls a tracepoint's probes with preemption disabled. */
#define UE_TP_PROBES_ATOMIC	0

#else

struct ue_tp_reader {
};

static __always_inline void ue_tp_read_lock(struct ue_tp_reader *r)
{
	rcu_read_lock_sched();
}

static __always_inline void ue_tp_read_unlock(struct ue_tp_reader *r)
{
	rcu_read_unlock_sched();
}

#define ue_tp_funcs(tp)		rcu_dereference_sched((tp)->funcs)

#define UE_TP_PROBES_ATOMIC	1

#endif

#endif /* UE_COMPAT_TP_FUNCS_H */
