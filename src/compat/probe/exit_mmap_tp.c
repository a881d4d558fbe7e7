// SPDX-License-Identifier: GPL-2.0
/*
 * Probe UE_HAVE_EXIT_MMAP_TP, for compat/mm_gone.h: the exit_mmap
 * tracepoint of <trace/events/mmap.h>, which 6.1 added with the maple tree
 * (6.1, 6.12 and 7.x here; not 5.10). The preprocessor cannot see a
 * tracepoint; this compiles only where its register function is declared.
 * Its probe's prototype is not looked at here: where it differs from the
 * module's, the module's build fails (UE_TP_PROBE_CHECK()), rather than go
 * without the tracepoint. <linux/mm.h> first, as the module has it: the
 * tracepoints' header names its structures without declaring them.
 */
#include <linux/build_bug.h>
#include <linux/mm.h>
#include <linux/stddef.h>
#include <trace/events/mmap.h>

static_assert(__same_type(register_trace_exit_mmap(NULL, NULL), 0));
