// SPDX-License-Identifier: GPL-2.0
/*
 * Probe UE_HAVE_WQ_PERCPU, for compat/workqueue.h: the alloc_workqueue()
 * flag that keeps a queue per-CPU. 6.17 added it, and stable kernels took
 * it: Debian's 6.12.117 has it, its 5.10 and 6.1 do not. An enumerator,
 * which #ifdef cannot see; this compiles only where it is declared.
 */
#include <linux/build_bug.h>
#include <linux/workqueue.h>

static_assert(WQ_PERCPU != 0);
