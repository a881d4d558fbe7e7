// SPDX-License-Identifier: GPL-2.0
/*
 * fork without CLONE_VM gives the child its own copy of the parent's
 * enablers, as upstream's user_event_mm_dup(). Upstream is called from
 * copy_process(); we attach to the task_newtask tracepoint, which fires at
 * the same place and carries the clone flags. Its probes may run with
 * preemption disabled, so the probe only snapshots the parent's enablers
 * (fork_snap.c) and hands them to the child as task work, which runs in the
 * child, able to sleep, before it first returns to user space; the child's
 * words are written with the current state then, closing the window between
 * the copy of memory and the copy of the enablers.
 *
 * The probe stays registered while the module is loaded; it returns at once
 * for a parent with no enablers.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "compat/newtask.h"
#include "enabler.h"
#include "kernel_tp.h"

/*
 * The task work holds a reference on the module, which it drops last:
 * attaching may drop the last reference of an event, and with it the
 * module reference that the event held, while this code still runs and
 * holds ue_reg_mutex. What runs after the put is the
 * return from here, which ue_fork_exit() waits for.
 */
static void ue_fork_task_work(struct callback_head *cb)
{
	ue_fork_attach(container_of(cb, struct ue_fork_snap, twork));
	module_put(THIS_MODULE);
}

static void ue_newtask_probe(void *data, struct task_struct *child,
			     ue_clone_flags_t clone_flags)
{
	struct ue_fork_snap *snap;

	/* CLONE_VM children share the address space, and its enablers. */
	if (clone_flags & CLONE_VM)
		return;
	if (!child->mm || (child->flags & PF_KTHREAD))
		return;
	snap = ue_fork_snapshot(current->mm);
	if (!snap)
		return;
	if (!snap->nr) {
		if (!ue_fork_snap_unused(snap))
			ue_fork_drop(snap, true);
		return;
	}
	/* Fails only once unload has begun, when no enabler is left. */
	if (!try_module_get(THIS_MODULE)) {
		ue_fork_drop(snap, true);
		return;
	}
	init_task_work(&snap->twork, ue_fork_task_work);
	if (task_work_add(child, &snap->twork, TWA_RESUME)) {
		/* The work that drops the snapshot is drained at unload. */
		ue_fork_drop(snap, true);
		module_put(THIS_MODULE);
	}
}

static struct ue_kernel_probe ue_fork_probes[] = {
	{ .name = "task_newtask", .probe = ue_newtask_probe },
};

int ue_fork_init(void)
{
	int ret;

	UE_TP_PROBE_CHECK(task_newtask, ue_newtask_probe);
	ret = ue_fork_snap_init();
	if (ret)
		return ret;
	ret = ue_kernel_probes_register(ue_fork_probes,
					ARRAY_SIZE(ue_fork_probes));
	if (ret)
		ue_fork_snap_exit();
	return ret;
}

void ue_fork_exit(void)
{
	ue_kernel_probes_unregister(ue_fork_probes, ARRAY_SIZE(ue_fork_probes));
	/*
	 * A task work (this file's, or enabler.c's sweep) that dropped its
	 * module reference may not have returned yet. It runs just before
	 * its task returns to user space (or in its exit) and sleeps no more
	 * after the put, so once every task has been through a voluntary
	 * switch or user space, none is in our code.
	 * Without CONFIG_TASKS_RCU (no preemption) this is synchronize_rcu(),
	 * which then suffices.
	 */
	synchronize_rcu_tasks();
	ue_fork_snap_exit();
}
