/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task_newtask tracepoint (include/trace/events/task.h), whose probe the
 * fork code registers on the tracepoint it finds by name: the tracepoint's
 * symbol is not exported, so the typed register_trace_task_newtask() cannot
 * be linked, and tracepoint_probe_register() takes any function. A probe of
 * the wrong prototype would then be called with arguments it misreads
 * (issue 12, item 8). So the prototype is taken from the header, without a
 * version number, and the build fails if the probe does not match it.
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

/* Fails the build unless @probe is what the tracepoint calls. */
#define UE_NEWTASK_PROBE_CHECK(probe) BUILD_BUG_ON_MSG(			\
	!__builtin_types_compatible_p(typeof(register_trace_task_newtask), \
				      int (typeof(probe) *, void *)),	\
	"task_newtask probe prototype differs from this kernel's")

#endif /* UE_COMPAT_NEWTASK_H */
