/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel's headers have where the version number does not tell:
 * stable kernels took these APIs from later releases. Each is found by
 * compiling a probe (src/compat/probe/NAME.c, whose comment says what it
 * looks for and which kernels have it) against the headers of the kernel
 * the module is built for, and is UE_HAVE_<NAME> in ue_probes.h, which
 * Kbuild generates before the module is compiled (src/compat/probes.mk,
 * scripts/probes.sh). Each compat header that reads one includes this file.
 *
 * A probe that did not compile for another reason than the API's absence
 * would select the older code without a word. scripts/probes.sh stops the
 * build where a probe's compile ended otherwise than with errors (killed,
 * the compiler crashed); and here, where the version does tell (from the
 * release that brought the API, or for the stable updates that took it), a
 * probe that found nothing stops it too: there the probe is wrong, not the
 * kernel (the kernel renamed what it looks at, say), and a module built on
 * its word would take a path that is unsafe there. tests/host/probes.sh
 * checks the probes on every kernel's headers the test rig has.
 */
#ifndef UE_COMPAT_PROBES_H
#define UE_COMPAT_PROBES_H

#include "ue_probes.h"
#include "version.h"

/* compat/workqueue.h: 6.17 brought both. */
#if UE_LINUX_AT_LEAST(6, 17) && \
	!(defined(UE_HAVE_WQ_PERCPU) && defined(UE_HAVE_SYSTEM_DFL_WQ))
#error "user-events-dkms: probe wq_percpu or system_dfl_wq found nothing on 6.17+"
#endif

/* compat/mm_gone.h: 6.1 brought the tracepoint. */
#if UE_LINUX_AT_LEAST(6, 1) && !defined(UE_HAVE_EXIT_MMAP_TP)
#error "user-events-dkms: probe exit_mmap_tp found nothing on 6.1+"
#endif

/* compat/tp_funcs.h: 7.2 calls probes under SRCU-fast, and so on. */
#if UE_LINUX_AT_LEAST(7, 2) && !defined(UE_HAVE_TP_SRCU_FAST)
#error "user-events-dkms: probe tp_srcu_fast found nothing on 7.2+"
#endif

/* compat/event_file.h: the dentry up to 6.5, before eventfs. */
#if !UE_LINUX_AT_LEAST(6, 6) && !defined(UE_HAVE_EVENT_FILE_DENTRY)
#error "user-events-dkms: probe event_file_dentry found nothing before 6.6"
#endif

/* compat/event_file.h: the backport's atomic_t, 5.10.202 and 6.1.64 on. */
#if !defined(UE_HAVE_EVENT_FILE_REF) && \
	((UE_LINUX_AT_LEAST_STABLE(5, 10, 202) && !UE_LINUX_AT_LEAST(5, 11)) || \
	 (UE_LINUX_AT_LEAST_STABLE(6, 1, 64) && !UE_LINUX_AT_LEAST(6, 2)))
#error "user-events-dkms: probe event_file_ref found nothing on 5.10.202+ or 6.1.64+"
#endif

#endif /* UE_COMPAT_PROBES_H */
