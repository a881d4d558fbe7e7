/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two members of struct trace_event_file (<linux/trace_events.h>), an
 * event's state in one trace instance:
 *
 * dir: up to 6.5 (5.10 and 6.1 here), the event's directory in tracefs, a
 *   plain dentry (UE_HAVE_EVENT_FILE_DENTRY). From 6.6 (6.12 and 7.x here)
 *   eventfs makes directories when they are looked up, and the file has
 *   none.
 * ref: an atomic_t count of references from opened files, which the stable
 *   backport of "tracing: Have trace_event_file have ref counters" added
 *   (5.10.202, 5.15.140, 6.1.64; Debian's 5.10.262 and 6.1.192 have it)
 *   (UE_HAVE_EVENT_FILE_REF). 6.12 and 7.x count them in a refcount_t,
 *   which the module has no use for there.
 *
 * With both, the core leaves a removed event's files to opens in flight,
 * and the module pins them (private/removed_event.h): UE_PIN_EVENT_FILES.
 *
 * Probed, not versioned: the count came to 5.10 and 6.1 with a stable
 * update (compat/probes.h: probe/event_file_dentry.c,
 * probe/event_file_ref.c).
 */
#ifndef UE_COMPAT_EVENT_FILE_H
#define UE_COMPAT_EVENT_FILE_H

#include "probes.h"

#if defined(UE_HAVE_EVENT_FILE_DENTRY) && defined(UE_HAVE_EVENT_FILE_REF)
#define UE_PIN_EVENT_FILES
#endif

#endif /* UE_COMPAT_EVENT_FILE_H */
