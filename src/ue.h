/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module-wide definitions. The ABI comes from our own copy of the UAPI
 * header, by path: the kernel's <linux/user_events.h> may be another ABI
 * (Debian 6.1 ships the pre-6.4 one) and must never be used.
 */
#ifndef UE_H
#define UE_H

#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "../include/uapi/linux/user_events.h"

/*
 * Serialises registration, deletion and per-file state, as upstream's
 * group->reg_mutex.
 */
extern struct mutex ue_reg_mutex;

/*
 * Deferred releases (event deletion from the core's callback, enablers of
 * exited processes). ue_events_settle() drains it. Work goes on
 * it through ue_queue_work(), and every work function ends with
 * ue_work_done(), so that draining costs nothing when it is idle.
 */
extern struct workqueue_struct *ue_wq;

/*
 * Fault-ins of enable words, which may wait on user space for ever: never
 * drained, every item holds a module reference (enabler.c).
 */
extern struct workqueue_struct *ue_fault_wq;

void ue_queue_work(struct work_struct *work);
void ue_work_done(void);

#endif /* UE_H */
