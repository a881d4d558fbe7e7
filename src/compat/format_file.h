/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The format file of an event being removed, on kernels whose event
 * directories are plain tracefs dentries (before eventfs: 5.10 and 6.1
 * here).
 *
 * There the format file's inode carries the trace_event_call itself
 * (i_private), and f_start() reads the call for as long as i_private is not
 * NULL. The core used to clear i_private of every file of an event's
 * directory when it removed the event. The stable backport of "tracing:
 * Have trace_event_file have ref counters" (5.10.202, 5.15.140, 6.1.64;
 * Debian's 5.10.262 and 6.1.192 have it) dropped that clearing for the sake
 * of the refcounted enable and filter files, and the format file lost its
 * guard with it: one opened before its event goes and read after reads
 * freed memory. Suite stress found it: a GPF in f_start() on 5.10 and 6.1,
 * reading a multi-format variant's format while it was deleted. Upstream
 * user_events has this defect on those kernels; here, before a call is
 * removed, its format files lose i_private as the core's did, with
 * event_mutex held (the lock f_start() checks under), so that their reads
 * fail with ENODEV.
 *
 * eventfs (6.6+) gives the format file the trace_event_file, refcounted,
 * and f_start() checks EVENT_FILE_FL_FREED: nothing to do there.
 *
 * Probed, not versioned (src/compat/probes.mk, UE_HAVE_EVENT_FILE_DENTRY):
 * the pre-eventfs struct trace_event_file has "struct dentry *dir".
 */
#ifndef UE_COMPAT_FORMAT_FILE_H
#define UE_COMPAT_FORMAT_FILE_H

#ifdef UE_HAVE_EVENT_FILE_DENTRY
/*
 * Clear i_private of events/@system/@name/format in the top instance and in
 * every other; event_mutex held, and the call not held by the core (so
 * that its removal, which follows, cannot be refused).
 */
void ue_format_detach(const char *system, const char *name);
#else
static inline void ue_format_detach(const char *system, const char *name)
{
}
#endif

#endif /* UE_COMPAT_FORMAT_FILE_H */
