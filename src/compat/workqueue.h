/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU and unbound workqueues, named explicitly.
 *
 * Up to 6.16: alloc_workqueue() without WQ_UNBOUND makes a per-CPU queue,
 *   and system_unbound_wq is the shared unbound one.
 * 6.17+: WQ_PERCPU and system_dfl_wq (with system_percpu_wq) are added, so
 *   that the default can become unbound; the old names stay. Stable kernels
 *   took them: Debian's 6.12.117 has both, its 6.1 and 5.10 neither.
 * 7.2, 7.3: alloc_workqueue() with neither WQ_PERCPU nor WQ_UNBOUND warns
 *   (a WARNING with a backtrace, at load), and work queued on
 *   system_unbound_wq logs that the queue is deprecated.
 *
 * Because of the backports, both are probed (compat/probes.h: probe/
 * wq_percpu.c, UE_HAVE_WQ_PERCPU; probe/system_dfl_wq.c,
 * UE_HAVE_SYSTEM_DFL_WQ): the flag is an enumerator and the queue a
 * variable, which the preprocessor cannot see.
 */
#ifndef UE_COMPAT_WORKQUEUE_H
#define UE_COMPAT_WORKQUEUE_H

#include <linux/workqueue.h>
#include "probes.h"

/* The flag for alloc_workqueue() that keeps a queue per-CPU. */
#ifdef UE_HAVE_WQ_PERCPU
#define UE_WQ_PERCPU		WQ_PERCPU
#else
#define UE_WQ_PERCPU		0
#endif

/* The shared unbound workqueue. */
#ifdef UE_HAVE_SYSTEM_DFL_WQ
#define ue_system_dfl_wq	system_dfl_wq
#else
#define ue_system_dfl_wq	system_unbound_wq
#endif

#endif /* UE_COMPAT_WORKQUEUE_H */
