# SPDX-License-Identifier: GPL-2.0
# Kernel APIs that stable kernels backport, found in the headers of the
# kernel we build against rather than by version number. Each defines
# UE_HAVE_<what> for the compat header named beside it. Included by Kbuild.

# ue_probe HEADER, EXTENDED-REGEX, NAME: -DNAME if HEADER matches.
ue_probe = $(if $(shell grep -sqE '$(2)' $(srctree)/include/$(1) && echo y),-D$(3))

# compat/workqueue.h: WQ_PERCPU and system_dfl_wq (6.17, and 6.12.y).
ccflags-y += $(call ue_probe,linux/workqueue.h,^[[:space:]]*WQ_PERCPU[[:space:]]*=,UE_HAVE_WQ_PERCPU)
ccflags-y += $(call ue_probe,linux/workqueue.h,\*system_dfl_wq;,UE_HAVE_SYSTEM_DFL_WQ)

# compat/event_file.h: event directories are plain tracefs dentries (before
# eventfs, 6.6), whose format files the core no longer guards (5.10.202+,
# 6.1.64+); and their event files are refcounted (the same backport).
ccflags-y += $(call ue_probe,linux/trace_events.h,^[[:space:]]*struct dentry[[:space:]]+\*dir;,UE_HAVE_EVENT_FILE_DENTRY)
ccflags-y += $(call ue_probe,linux/trace_events.h,^[[:space:]]*atomic_t[[:space:]]+ref;[[:space:]]*/\* ref count for opened files,UE_HAVE_EVENT_FILE_REF)

# compat/mm_gone.h: the exit_mmap tracepoint (6.1, with the maple tree).
ccflags-y += $(call ue_probe,trace/events/mmap.h,^TRACE_EVENT.exit_mmap[^a-z_],UE_HAVE_EXIT_MMAP_TP)

# compat/tp_funcs.h: tracepoints call their probes under SRCU-fast (7.x).
ccflags-y += $(call ue_probe,linux/tracepoint.h,guard.srcu_fast_notrace..&tracepoint_srcu,UE_HAVE_TP_SRCU_FAST)
