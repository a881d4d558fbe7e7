// SPDX-License-Identifier: GPL-2.0
/*
 * Probe UE_HAVE_EVENT_FILE_REF, for compat/event_file.h: whether struct
 * trace_event_file counts the references of opened files in an atomic_t
 * "ref", as the stable backport of "tracing: Have trace_event_file have ref
 * counters" made it (5.10.202, 6.1.64; Debian's 5.10 and 6.1 have it).
 * 6.12 and 7.x keep the count in a refcount_t, and the probe says no
 * there: the module takes and drops references with atomic_t's functions.
 * This compiles only where the member is there, an atomic_t.
 */
#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/trace_events.h>

static_assert(__same_type(&((struct trace_event_file *)NULL)->ref,
			  (atomic_t *)NULL));
