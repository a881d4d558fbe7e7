/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user event: its tracepoint and trace_event_call in the tracing core, its
 * parsed fields, and its reference count.
 */
#ifndef UE_EVENT_H
#define UE_EVENT_H

#include <linux/hashtable.h>
#include <linux/log2.h>
#include <linux/refcount.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "compat/dynevent.h"
#include "compat/tracepoint.h"
#include "parse.h"
#include "ue.h"

/* Status bits: which kinds of probe are attached (user_events_status). */
#define UE_STATUS_FTRACE	BIT(0)
#define UE_STATUS_PERF		BIT(1)
#define UE_STATUS_OTHER		BIT(7)

struct ue_event {
	struct tracepoint		tp;
	struct trace_event_call		call;
	struct trace_event_class	class;
	struct ue_fields		fields;
	char				*reg_name;	/* owns the field strings too */
	char				*tp_name;	/* reg_name, or "name.<hex id>" */
	struct hlist_node		node;
	struct list_head		enablers;	/* ue_enabler.ev_link */
	struct dyn_event		devent;		/* on dyn_event_list */
	struct work_struct		put_work;
	struct rcu_head			rcu;
	refcount_t			refcnt;
	u16				reg_flags;
	u8				status;
	bool				orphaned;	/* see ue_event_last_put() */
	/* the rest of the allocation (UE_EVENT_ALLOC) */
	unsigned long			spare[];
};

/*
 * An event is allocated at the size of the kmalloc bucket its struct falls
 * in (SLUB's buckets past 192 bytes are powers of two; elsewhere this is
 * merely a little more than needed). What the struct leaves of the bucket,
 * which slab rounding would otherwise waste, holds what fits of the field
 * and validator tables, the print fmt and the command text, in that order
 * (80 bytes on 6.12: a "u32 a" event with a name of up to 17 characters
 * needs no allocation besides the event itself).
 * Upstream allocates each of them.
 */
#define UE_EVENT_ALLOC		roundup_pow_of_two(sizeof(struct ue_event))
#define UE_EVENT_SPARE		(UE_EVENT_ALLOC - sizeof(struct ue_event))

/* Maximum number of user events (kernel.user_events_max). */
extern unsigned int ue_max_events;

/*
 * Find the event @cmd names or create it, as upstream's user_event_parse()
 * and find_user_event(). @cmd is a kmalloc'd "name[ fields]" string whose
 * ownership passes to this call.
 * Returns a referenced event or an ERR_PTR.
 */
struct ue_event *ue_event_find_or_create(char *cmd, u16 reg_flags);

/* Delete every event named @name (DIAG_IOCSDEL). */
int ue_event_delete(const char *name);

/*
 * Delete one event with event_mutex held, as the dynamic-events core calls
 * for it: -EBUSY unless at its last reference, -EPERM for a persistent
 * event without CAP_PERFMON, else destroyed, as upstream's user_event_free().
 */
int ue_event_delete_locked(struct ue_event *ev);

/* Whether something besides a persistent event's self reference holds it. */
bool ue_event_busy(struct ue_event *ev);

static inline struct ue_event *ue_event_get(struct ue_event *ev)
{
	refcount_inc(&ev->refcnt);
	return ev;
}

/*
 * Drop a reference. A non-persistent event whose last reference goes is
 * deleted at once; @locked says the caller holds event_mutex inside the
 * core's registration callback, where deletion must be deferred.
 */
void ue_event_put(struct ue_event *ev, bool locked);

/* Whether a writer of this event has anything to write to. */
static inline bool ue_event_enabled(struct ue_event *ev)
{
	return ue_tp_enabled(&ev->tp);
}

/* Run the releases that were deferred to the work queue. */
void ue_events_settle(void);
/* Take event_mutex with those releases in effect, including any its holder queued. */
void ue_event_mutex_lock_settled(void);
/* What exists now, for debugfs: events, orphans among them, queued work. */
void ue_events_count(unsigned int *events, unsigned int *orphans,
		     unsigned int *queued);

/* Walk every event, under event_mutex (status file). */
void ue_events_for_each(void (*fn)(struct ue_event *ev, void *arg), void *arg);

/* Probe identities: recognised in tp.funcs by the write path, never called. */
void ue_probe_ftrace(void *data);
void ue_probe_perf(void *data);

/* The .trace output of an event (event_print.c). */
enum print_line_t ue_event_print(struct trace_iterator *iter, int flags,
				 struct trace_event *event);

/*
 * What the layers above an event hear of it, each call with event_mutex
 * held: the dynamic-events layer lists an event from its creation to its
 * removal, the enabler layer sets enable bits when its status changes.
 * This file calls no higher layer itself; main.c, which knows them all,
 * hands their functions to ue_events_init(), so that no layer depends on
 * one above it.
 */
struct ue_event_hooks {
	void (*added)(struct ue_event *ev);
	void (*removed)(struct ue_event *ev);
	void (*status_changed)(struct ue_event *ev);
};

#ifdef UE_TEST_RACE
/* Test builds: a probe of neither kind on the event @tp_name (race.c). */
int ue_event_test_other(const char *tp_name, bool attach);
#endif

int ue_events_init(const struct ue_event_hooks *hooks);
void ue_events_exit(void);

#endif /* UE_EVENT_H */
