/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tells the module that an address space died: its last user went
 * (its last thread exited, or exec replaced the image), so that its enable
 * bits are written no more and its enablers go (enabler.c).
 *
 * 6.1+ (with the maple tree): the exit_mmap tracepoint
 *   (include/trace/events/mmap.h), fired by exit_mmap() once per address
 *   space, in whichever task dropped the last user: each death is reported
 *   with its mm (ue_mm_gone()).
 * 5.10: no such tracepoint. sched_process_exit fires there after exit_mm(),
 *   in the exiting task, whose active_mm is the mm it left, dead if that had
 *   no user left, unless the task was switched out since: exit_mmap()
 *   reschedules, and a task without an mm borrows, when switched back in,
 *   the active_mm of the task it follows (context_switch()), a live one
 *   when that is a user task. So where the active_mm is not dead and the
 *   exiting task ends its thread group, whose threads share one mm and all
 *   left it before, the sweep looks at every tracked address space
 *   (UE_MM_GONE_WALK). sched_process_exec fires after exec dropped the old
 *   mm, which it does not name: a walk too. The sweep also walks at every
 *   registration, deletion and status read, which finds an address space
 *   whose last user was another task (a reader of /proc/PID/mem).
 *
 * Probed (compat/probes.h: probe/exit_mmap_tp.c, UE_HAVE_EXIT_MMAP_TP): the
 * preprocessor cannot see a tracepoint.
 */
#ifndef UE_COMPAT_MM_GONE_H
#define UE_COMPAT_MM_GONE_H

#include <linux/mm.h>
#include <linux/sched.h>

#include "../enabler.h"
#include "../kernel_tp.h"
#include "probes.h"

#ifdef UE_HAVE_EXIT_MMAP_TP
#include <trace/events/mmap.h>

#define UE_MM_GONE_WALK		0

static inline void ue_exit_mmap_probe(void *data, struct mm_struct *mm)
{
	ue_mm_gone(mm);
}

#define UE_MM_GONE_PROBES { { .name = "exit_mmap", .probe = ue_exit_mmap_probe } }

#define UE_MM_GONE_PROBE_CHECK() UE_TP_PROBE_CHECK(exit_mmap, ue_exit_mmap_probe)

#else
#include <linux/binfmts.h>
#include <linux/sched/signal.h>
#include <trace/events/sched.h>

#define UE_MM_GONE_WALK		1

static inline void ue_process_exit_probe(void *data, struct task_struct *p)
{
	struct mm_struct *mm = current->active_mm;

	if (mm && !atomic_read(&mm->mm_users))
		ue_mm_gone(mm);
	else if (!atomic_read(&current->signal->live))
		ue_mms_maybe_gone();
}

static inline void ue_process_exec_probe(void *data, struct task_struct *p,
					 pid_t old_pid,
					 struct linux_binprm *bprm)
{
	ue_mms_maybe_gone();
}

#define UE_MM_GONE_PROBES {						\
	{ .name = "sched_process_exit", .probe = ue_process_exit_probe }, \
	{ .name = "sched_process_exec", .probe = ue_process_exec_probe }, \
}

#define UE_MM_GONE_PROBE_CHECK() do {					\
	UE_TP_PROBE_CHECK(sched_process_exit, ue_process_exit_probe);	\
	UE_TP_PROBE_CHECK(sched_process_exec, ue_process_exec_probe);	\
} while (0)

#endif

#endif /* UE_COMPAT_MM_GONE_H */
