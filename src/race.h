/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Race windows, for the test rig only. A build with UE_TEST_RACE=1
 * (user_events_race.ko, tests/userspace/35-race.sh) waits race_us
 * microseconds at the place its module parameter race_site names, so that a
 * window between two CPUs that is a few instructions wide in the shipped
 * module is hit within seconds by race_test (the race_test modes that use a
 * site are named beside it). The shipped module has empty inlines here, and
 * no parameters.
 */
#ifndef UE_RACE_H
#define UE_RACE_H

#include <linux/types.h>

enum ue_race_site {
	UE_RACE_NONE,
	/* The fork probe, between an enabler's check and its reference. */
	UE_RACE_FORK_SNAPSHOT,		/* unreg-fork, del-fork; atomic */
	/* Writing a bit, holding a user of the process's address space. */
	UE_RACE_BIT_WRITE,		/* exit-wait; event_mutex held */
	/* Attaching ftrace: bits flipped, the file not yet marked enabled. */
	UE_RACE_FTRACE_ENABLE,		/* event_mutex held */
	/* Unloading, event_mutex held before the address spaces go. */
	UE_RACE_UNLOAD,			/* exit-rmmod */
	/*
	 * A fork's attachment, which fails here as if out of memory: before
	 * it drops the snapshot's references, and again once it has.
	 */
	UE_RACE_FORK_ATTACH,		/* attach-rmmod */
	/* Loading, the files visible: the sysctl fails here, after a wait. */
	UE_RACE_SYSCTL,			/* init-fail */
	/* Removing a call, before anything: event_mutex held. */
	UE_RACE_CALL_REMOVE,		/* private/removed_event.h */
	/* The fork probe, between loading an enabler's event and its reference. */
	UE_RACE_FORK_SNAPSHOT_EV,	/* fault-unreg-fork-ev; atomic */
	/* A word faulted in and pinned, the mutexes dropped, before a try. */
	UE_RACE_REFAULT,		/* refault-fork; no lock held */
	/* The fault worker: a word faulted in, before its write. */
	UE_RACE_FAULT_WORK,		/* no lock held */
};

/* Whether the window at @site was open (it was waited for). */
#ifdef UE_TEST_RACE
bool ue_race_window(enum ue_race_site site, bool atomic);
#else
static inline bool ue_race_window(enum ue_race_site site, bool atomic)
{
	return false;
}
#endif

/*
 * @call's (DIAG_IOCSREG's, DIAG_IOCSUNREG's or the fault work's) write of
 * the bit failed with @err after @rounds rounds of fixing what stopped it
 * (fault-ins; UE_FAULT_ATTEMPTS at most).
 * The test builds say so in the log, so that a race test that meets the
 * error tells which bound it met; the shipped module says nothing (an
 * ioctl's error is the caller's answer; the fault work gives up silently,
 * the bit stale until the next state change).
 */
#ifdef UE_TEST_RACE
void ue_race_bit_failed(const char *call, int err, int rounds);
#else
static inline void ue_race_bit_failed(const char *call, int err, int rounds)
{
}
#endif

#endif /* UE_RACE_H */
