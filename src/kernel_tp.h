/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probes on the kernel's own tracepoints (task_newtask, exit_mmap, ...).
 * Their symbols are not exported, so the typed register_trace_NAME() cannot
 * be linked: each is found by name and registered with
 * tracepoint_probe_register(), which takes any function. A probe of the
 * wrong prototype would then be called with arguments it misreads, so every
 * probe is checked against the prototype in the kernel's header, where a
 * build fails if they differ.
 */
#ifndef UE_KERNEL_TP_H
#define UE_KERNEL_TP_H

#include <linux/build_bug.h>
#include <linux/tracepoint.h>

struct ue_kernel_probe {
	const char		*name;
	void			*probe;
	struct tracepoint	*tp;		/* found at registration */
};

/* Fails the build unless @probe is what tracepoint @name calls. */
#define UE_TP_PROBE_CHECK(name, probe) BUILD_BUG_ON_MSG(		\
	!__builtin_types_compatible_p(typeof(register_trace_##name),	\
				      int (typeof(probe) *, void *)),	\
	"probe prototype differs from this kernel's " #name)

/* Register all @n probes, or none: 0 or a negative errno, logged. */
int ue_kernel_probes_register(struct ue_kernel_probe *p, unsigned int n);
/* Unregister them and wait until no probe runs. */
void ue_kernel_probes_unregister(struct ue_kernel_probe *p, unsigned int n);

#endif /* UE_KERNEL_TP_H */
