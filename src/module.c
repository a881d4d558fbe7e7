// SPDX-License-Identifier: GPL-2.0
/*
 * The module's sources, compiled as one translation unit, as the kernel
 * builds its scheduler (kernel/sched/build_policy.c and build_utility.c):
 * every file of the module includes most of the tracing core's headers,
 * and parsing them is nearly all of the time a file takes to compile, so
 * one unit builds in a third of the time of twenty. DKMS builds the module
 * on the user's machine for every kernel installed, often a small cloud
 * instance or an emulated test system. Each file still keeps its own
 * includes and its own concern; a static name is unique across the files.
 *
 * This is the list of the module's sources (Kbuild builds this file, and
 * src/private/sysmap.c and src/race.c where they apply). main.c comes first:
 * it defines pr_fmt before any header, as each file that prints does.
 */
#include "main.c"
#include "files.c"
#include "data_file.c"
#include "status_file.c"
#include "event.c"
#include "dynevent.c"
#include "event_print.c"
#include "write.c"
#include "enabler.c"
#include "fork.c"
#include "fork_snap.c"
#include "mm_gone.c"
#include "kernel_tp.c"
#include "parse.c"
#include "sysctl.c"
#include "debugfs.c"
#include "private/event_dir.c"
#include "private/removed_event.c"
#include "private/ksyms.c"
#include "private/verify.c"
