/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel things user_events needs that modules are not given: resolved once
 * at load by ue_ksyms_resolve(), which names everything it cannot find.
 *
 * Data symbols are used through their address only (taken from the
 * kernel's System.map where kallsyms lacks them, private/sysmap.h).
 * Functions are never called through a pointer of ours: Debian 6.12 has
 * CONFIG_X86_KERNEL_IBT and seals the ENDBR of unexported functions, so an
 * indirect call to one is a #CP oops. Each function is reached through a
 * module-local static call instead, which static_call_update() turns into a
 * direct branch to it; on arm64, which has no static calls, an indirect
 * call, and why that is safe there: private/static_call.h.
 */
#ifndef UE_PRIVATE_KSYMS_H
#define UE_PRIVATE_KSYMS_H

#include <linux/mutex.h>
#include <linux/trace_events.h>
#include <linux/tracefs.h>
#include "../compat/event_file.h"
#include "static_call.h"

struct vfsmount;

/* fs/tracefs/inode.c: the kernel's internal mount of tracefs. */
extern struct vfsmount **ue_ksym_tracefs_mount;

/* kernel/trace/trace_events.c: the lock of the event core. */
extern struct mutex *ue_ksym_event_mutex;

/*
 * kernel/trace/trace_dynevent.c: every dynamic event (under event_mutex),
 * the registered types of dynamic event (static), and the lock held around
 * their ->create and changes of that list (static on 5.10).
 */
extern struct list_head *ue_ksym_dyn_event_list;
extern struct list_head *ue_ksym_dyn_event_ops_list;
extern struct mutex *ue_ksym_dyn_event_ops_mutex;

#ifdef UE_PIN_EVENT_FILES
/*
 * kernel/trace/trace_events.c: the slab of struct trace_event_file, where a
 * removed event's file pinned by private/removed_event.c goes at last.
 */
extern struct kmem_cache **ue_ksym_file_cachep;
#endif

DECLARE_STATIC_CALL(ue_tracefs_create_file, tracefs_create_file);
DECLARE_STATIC_CALL(ue_tracefs_remove, tracefs_remove);

/*
 * Exported from 6.1 on, not on 5.10: reached through static calls on every
 * kernel, which keeps one code path (they are not IBT-sealed on 6.12).
 */
DECLARE_STATIC_CALL(ue_trace_add_event_call, trace_add_event_call);
DECLARE_STATIC_CALL(ue_trace_remove_event_call, trace_remove_event_call);

int ue_ksyms_resolve(void);
/* The start of kernel symbol @name, from kallsyms; 0 if it has none. */
unsigned long ue_ksym_addr(const char *name);

#endif /* UE_PRIVATE_KSYMS_H */
