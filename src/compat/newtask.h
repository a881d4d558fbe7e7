/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task_newtask tracepoint (include/trace/events/task.h), whose probe
 * fork.c registers (kernel_tp.h). The type of its clone flags is taken from
 * the header, without a version number; UE_TP_PROBE_CHECK() fails the build
 * if the probe does not match it.
 *
 * Up to 6.12 (5.10, 6.1, 6.12 here): (struct task_struct *, unsigned long).
 * 7.2, 7.3: (struct task_struct *, u64): clone flags became 64-bit on every
 *   architecture. The same size on 64-bit kernels, not on 32-bit ones.
 */
#ifndef UE_COMPAT_NEWTASK_H
#define UE_COMPAT_NEWTASK_H

#include <linux/build_bug.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <trace/events/task.h>

/* Whether the tracepoint's probes take the clone flags as a u64. */
#define UE_NEWTASK_U64 __builtin_types_compatible_p(			\
	typeof(register_trace_task_newtask),				\
	int (void (*)(void *, struct task_struct *, u64), void *))

/* The type of the clone flags the probe is given. */
typedef typeof(__builtin_choose_expr(UE_NEWTASK_U64, (u64)0, 0UL))
	ue_clone_flags_t;

#endif /* UE_COMPAT_NEWTASK_H */
