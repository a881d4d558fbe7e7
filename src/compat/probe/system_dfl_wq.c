// SPDX-License-Identifier: GPL-2.0
/*
 * Probe UE_HAVE_SYSTEM_DFL_WQ, for compat/workqueue.h: system_dfl_wq, the
 * shared unbound workqueue under its new name. 6.17 added it with
 * WQ_PERCPU, and stable kernels took it: Debian's 6.12.117 has it, its 5.10
 * and 6.1 do not. This compiles only where it is declared, as a queue.
 */
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/workqueue.h>

static_assert(__same_type(system_dfl_wq, (struct workqueue_struct *)NULL));
