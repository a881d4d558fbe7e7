/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files of an event being removed, on kernels whose event directories
 * are plain tracefs dentries (before eventfs, 6.6: 5.10 and 6.1 here) and
 * whose struct trace_event_file counts references from opened files.
 *
 * The stable backport of "tracing: Have trace_event_file have ref counters"
 * (5.10.202, 5.15.140, 6.1.64; Debian's 5.10.262 and 6.1.192 have it) made
 * the core stop clearing i_private of an event directory's files when it
 * removes the event, and left two windows open:
 *
 * - The format file's inode carries the trace_event_call itself, and
 *   f_start() reads the call for as long as i_private is not NULL: a format
 *   file opened before its event goes and read after reads freed memory.
 *   Suite stress found it: a GPF in f_start() on 5.10 and 6.1, reading a
 *   multi-format variant's format while it was deleted. Here, before a call
 *   is removed, its format files lose i_private as the core's did, with
 *   event_mutex held (the lock f_start() checks under), so that their reads
 *   fail with ENODEV.
 *
 * - The enable, filter and trigger files (hist and inject too) carry the
 *   instance's trace_event_file, and tracing_open_file_tr() reads it from
 *   i_private and dereferences it before it takes event_mutex, checks
 *   EVENT_FILE_FL_FREED and takes its reference. An open whose path walk
 *   found the file just before the event was removed therefore opens freed
 *   memory, and when the slab has given that memory to the next event's
 *   file, it enables that one. Suite stress met it on 5.10: an event left
 *   "Used by ftrace", enabled in the top instance that no test writes to,
 *   after an enable of another instance raced the event's deletion; the
 *   instances could then not be removed, nor the module unloaded. Here each
 *   of the event's trace_event_files gets one more reference before the
 *   call is removed, so that the core's removal marks it freed but cannot
 *   free it, and such an open fails with ENODEV as the core means it to.
 *   The reference is dropped (and the file freed, as the core's
 *   event_file_put() would) once none of the file's inodes has any user
 *   but us: their dentries are gone, so no path walk nor open file can
 *   reach them. At module exit, a file something still reaches (an O_PATH
 *   descriptor holds the inode without a reference to the file) is kept,
 *   never freed (ue_pin_keep()). Upstream user_events has these defects on
 *   those kernels.
 * eventfs (6.6+) gives the format file the trace_event_file, refcounted,
 * and looks files up under its own lock, checking whether they are freed:
 * nothing to do there.
 *
 * Which kernels have the directory's dentry and the backport's reference
 * count (UE_HAVE_EVENT_FILE_DENTRY, UE_HAVE_EVENT_FILE_REF; with both,
 * UE_PIN_EVENT_FILES): compat/event_file.h. The references are dropped
 * into the core's file_cachep (a data symbol, private/ksyms.h), whose
 * objects are checked at load to be large enough for a struct
 * trace_event_file (private/verify.c).
 */
#ifndef UE_PRIVATE_REMOVED_EVENT_H
#define UE_PRIVATE_REMOVED_EVENT_H

#include <linux/trace_events.h>
#include "../compat/event_file.h"

#ifdef UE_HAVE_EVENT_FILE_DENTRY
/*
 * Before @call (events/@system/@name) is removed, in the top instance and
 * in every other: its format files lose i_private and, where files are
 * refcounted, its trace_event_files are pinned. event_mutex held, and the
 * call not held by the core (so that its removal, which follows, cannot be
 * refused).
 */
void ue_removed_event_prepare(struct trace_event_call *call,
			      const char *system, const char *name);
#else
static inline void ue_removed_event_prepare(struct trace_event_call *call,
					    const char *system,
					    const char *name)
{
}
#endif

#ifdef UE_PIN_EVENT_FILES
/* Module exit, with no event left: the last pins go. */
void ue_removed_event_exit(void);
#else
static inline void ue_removed_event_exit(void)
{
}
#endif

#endif /* UE_PRIVATE_REMOVED_EVENT_H */
