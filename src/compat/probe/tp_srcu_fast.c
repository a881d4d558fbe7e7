// SPDX-License-Identifier: GPL-2.0
/*
 * Probe UE_HAVE_TP_SRCU_FAST, for compat/tp_funcs.h: whether a tracepoint
 * calls its probes under SRCU-fast on tracepoint_srcu (7.2 and 7.3 here)
 * rather than with preemption disabled (5.10 to 6.12 here).
 *
 * What matters is what the call does, which no declaration says: 6.12
 * declares tracepoint_srcu too (for its _rcuidle tracepoints), and
 * SRCU-fast's own functions do not say who calls them. So a tracepoint is
 * declared here, with guard() and __DO_TRACE_CALL() (which its call
 * expands) redefined, and with tracepoint_srcu given a type of its own: its
 * call compiles only where it calls the probes (__DO_TRACE_CALL()) in the
 * block of guard(srcu_fast_notrace) on &tracepoint_srcu. Elsewhere the
 * block has another guard (6.12's preempt_notrace) or none (5.10, 6.1),
 * and struct ue_probe_srcu_fast is not declared where the call needs it.
 */
#include <linux/stddef.h>
#include <linux/tracepoint.h>

struct ue_probe_tp_srcu {
	int unused;
};

#define tracepoint_srcu (*(struct ue_probe_tp_srcu *)NULL)

#undef guard
#define guard(class) ue_probe_guard_##class
#define ue_probe_guard_srcu_fast_notrace(ssp)				\
	struct ue_probe_srcu_fast {					\
		char on_tracepoint_srcu[__same_type(ssp,		\
			(struct ue_probe_tp_srcu *)NULL) ? 1 : -1];	\
	}

#undef __DO_TRACE_CALL
#define __DO_TRACE_CALL(...) ((void)sizeof(struct ue_probe_srcu_fast))

DECLARE_TRACE(ue_probe, TP_PROTO(int v), TP_ARGS(v));
