/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dynamic trace_event_calls (TRACE_EVENT_FL_DYNAMIC, call->refcnt).
 *
 * 5.10:  neither exists; a call with no module is never reference-counted.
 * 6.1+:  a DYNAMIC call is reference-counted by the core (perf, eprobes,
 *        enable_event triggers) through call->refcnt. Upstream user_events
 *        removes its calls without looking at it; we treat a held call as
 *        busy, so that nothing is left pointing at a freed call.
 */
#ifndef UE_COMPAT_EVENT_CALL_H
#define UE_COMPAT_EVENT_CALL_H

#include <linux/trace_events.h>
#include "version.h"

#if UE_LINUX_AT_LEAST(6, 1)
static inline void ue_call_set_dynamic(struct trace_event_call *call)
{
	call->flags |= TRACE_EVENT_FL_DYNAMIC;
}

static inline bool ue_call_held(struct trace_event_call *call)
{
	return atomic_read(&call->refcnt) != 0;
}
#else
static inline void ue_call_set_dynamic(struct trace_event_call *call)
{
}

static inline bool ue_call_held(struct trace_event_call *call)
{
	return false;
}
#endif

#endif /* UE_COMPAT_EVENT_CALL_H */
