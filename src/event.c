// SPDX-License-Identifier: GPL-2.0
/*
 * User events in the tracing core: creation from a command, lookup and
 * matching, reference counting, deletion, and the registration callback
 * through which ftrace and perf attach.
 *
 * Locking: ue_reg_mutex serialises registration and deletion (upstream's
 * group->reg_mutex); event_mutex, the core's lock, protects the hash table
 * and dyn_event_list, and is held by the core around ue_event_reg() and the
 * dynamic-events callbacks, which delete events without ue_reg_mutex (as
 * upstream): a lookup takes its reference under event_mutex, so an event
 * judged at its last reference there has no other user.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/jhash.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat/event_call.h"
#include "compat/field_len.h"
#include "compat/tp_funcs.h"
#include "compat/workqueue.h"
#include "private/event_dir.h"
#include "private/ksyms.h"
#include "private/removed_event.h"
#include "enabler.h"
#include "event.h"
#include "race.h"
#include "ue.h"

#define UE_HASH_BITS	8

/* Serialises registration, deletion and per-file state (ue.h). */
DEFINE_MUTEX(ue_reg_mutex);
unsigned int ue_max_events = 32768;

static DEFINE_HASHTABLE(ue_events, UE_HASH_BITS);
static unsigned int ue_nr_events;
/* Orphaned events (ue_event_last_put()), under event_mutex. */
static unsigned int ue_nr_orphans;
static void ue_orphans_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ue_orphans_work, ue_orphans_work_fn);
static u64 ue_multi_id;
struct workqueue_struct *ue_wq;
struct workqueue_struct *ue_fault_wq;
/* Set once at load, before any event exists. */
static const struct ue_event_hooks *ue_hooks;

static struct trace_event_functions ue_event_funcs = {
	.trace = ue_event_print,
};

/*
 * class.fields_array: empty. The fields are defined by ue_define_fields();
 * the core reads this only while the event has none (a field-less event).
 */
static struct trace_event_fields ue_no_fields[1];

void ue_probe_ftrace(void *data)
{
}

void ue_probe_perf(void *data)
{
}

static u32 ue_key(const char *name)
{
	return jhash(name, strlen(name), 0);
}

/*
 * PERSIST needs CAP_PERFMON or CAP_SYS_ADMIN, as upstream's
 * user_event_capable().
 */
static bool ue_capable(u16 reg_flags)
{
	return !(reg_flags & USER_EVENT_REG_PERSIST) || perfmon_capable();
}

/*
 * Whether only the self reference of a persistent event is left (an
 * orphaned event holds one too, see ue_event_last_put()).
 */
static bool ue_event_last_ref(struct ue_event *ev)
{
	bool own = (ev->reg_flags & USER_EVENT_REG_PERSIST) || ev->orphaned;
	unsigned int last = own ? 1 : 0;

	return refcount_read(&ev->refcnt) == last;
}

bool ue_event_busy(struct ue_event *ev)
{
	return !ue_event_last_ref(ev);
}

/*
 * Whether tracefs can make a directory called @name: a path component of
 * at most NAME_MAX bytes, not "." or ".." (lookup_one_len()). Upstream
 * registers an event of any other name too, without a directory (the core
 * says it could not make one), and so does this module.
 */
static bool ue_dir_name_possible(const char *name)
{
	size_t len = strlen(name);

	return len && len <= NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/*
 * Whether the core made all of the event, event_mutex held (with the
 * creds ue_call_visible() gives the lookup). trace_add_event_call()
 * succeeds even where it could not create the event's directory or its
 * files, or define all its fields: __add_event_to_tracers() passes the
 * errors by with a warning, leaving an event that nobody can enable in
 * that instance, or with fields missing from its format and filters.
 * Upstream keeps such an event; where memory ran out, a registration here
 * fails instead, with -ENOMEM (suites faults and memcg). A name that can
 * have no directory, or whose directory is another event's (a kprobe of
 * the same group and name), is no such failure: the event is kept without
 * one, as upstream keeps it. Which directories are looked up, and how
 * far, private/event_dir.h says.
 */
static bool ue_call_complete(struct ue_event *ev)
{
	struct list_head *pos;
	u32 defined = 0;

	list_for_each(pos, &ev->class.fields)
		defined++;
	return defined == ev->fields.nr &&
	       (!ue_dir_name_possible(ev->tp_name) ||
		ue_event_dirs_whole(&ev->call, ev->class.system, ev->tp_name));
}

/*
 * The fields, defined for the core before it adds the call (it frees them
 * when it removes it). Left to the core, event_define_fields() would build
 * them from class.fields_array while adding the call, and there a failed
 * allocation is a WARN, and the directory it had made keeps one reference
 * too few (6.12's event_create_dir(); found by suite faults). Returns 0 or
 * the first error; the fields defined until then stay listed.
 */
static int ue_define_fields(struct ue_event *ev)
{
	int offset = sizeof(struct trace_entry), ret;
	u32 i;

	for (i = 0; i < ev->fields.nr; i++) {
		struct ue_field *f = &ev->fields.field[i];
		const char *type = f->core_type ? f->core_type : f->type;

		ret = trace_define_field(&ev->call, type, f->name, offset,
					 f->size, f->is_signed, FILTER_OTHER);
		if (ret)
			return ret;
		/* "char name[16]" in the format file. */
		if (f->array_len)
			ue_field_set_len(&ev->call, type, f->name, offset,
					 f->size, f->array_len);
		offset += f->size;
	}
	return 0;
}

/*
 * Remove the call from the core, after what the core no longer guards
 * itself on 5.10 and 6.1 (private/removed_event.h: a format file read, or an
 * enable file opened, as its event goes reached freed memory there). The
 * caller made sure the core cannot refuse the removal.
 */
static int ue_call_remove(struct ue_event *ev)
{
	ue_race_window(UE_RACE_CALL_REMOVE, false);
	ue_removed_event_prepare(&ev->call, ev->class.system, ev->tp_name);
	return static_call(ue_trace_remove_event_call)(&ev->call);
}

/*
 * Whether the core's allocations while adding the call may have failed, so
 * that ue_call_complete() must look. They are small GFP_KERNEL ones (its
 * trace_event_file, its directories' dentries, inodes or eventfs nodes,
 * their names), which the page allocator does not fail ("too small to
 * fail": it reclaims, and OOM-kills, until they succeed) unless the task
 * is an OOM victim, and the OOM killer sends SIGKILL before it marks one:
 * a task with no fatal signal pending got them all. Except that before
 * eventfs the dentries and inodes are charged to the caller's memory
 * cgroup, which refuses a charge over its limit with no signal at all
 * (private/event_dir.h): there the directories are always looked at, a
 * few dcache lookups in each instance. Fault injection (FAILSLAB,
 * FAIL_PAGE_ALLOC: our debug kernels, no Debian kernel) fails them
 * anywhere. Elsewhere the lookup is skipped: on eventfs kernels it makes
 * and drops the directory's dentries and inodes every time, 21 of the
 * 34 µs a registration took in make bench (2.6 times in-kernel).
 */
static bool ue_core_alloc_may_fail(void)
{
	return ue_event_dirs_charged() || IS_ENABLED(CONFIG_FAULT_INJECTION) ||
	       fatal_signal_pending(current);
}

/*
 * Make the call visible: its fields, the core's call, all of it checked.
 * On failure nothing is left, the event's trace type id included (as
 * removing the call unregisters it).
 */
static int ue_call_add(struct ue_event *ev)
{
	int ret = ue_define_fields(ev), added;

	if (ret && list_empty(&ev->class.fields)) {
		unregister_trace_event(&ev->call.event);
		return ret;
	}
	/*
	 * The core adds a call that has no raw_init without failing (if it
	 * did, the registration would fail with its error, and the fields
	 * defined would be lost).
	 */
	added = static_call(ue_trace_add_event_call)(&ev->call);
	if (added) {
		unregister_trace_event(&ev->call.event);
		return added;
	}
	if (!ret && (!ue_core_alloc_may_fail() || ue_call_complete(ev)))
		return 0;
	/*
	 * Only the core frees the fields it allocated, when it removes the
	 * call (which also unregisters the type): an incomplete call is added
	 * only to be removed at once. Nobody could find it meanwhile: its
	 * event is in no table yet, and enabling it takes event_mutex.
	 */
	ue_call_remove(ev);
	return ret ? ret : -ENOMEM;
}

/*
 * Add or remove the call as root, so that callers whose access comes only
 * from relaxed tracefs permissions still get event directories (as
 * upstream's user_event_set_call_visible()).
 * Adding it fails with nothing left (ue_call_add()).
 */
static int ue_call_visible(struct ue_event *ev, bool visible)
{
	const struct cred *old;
	struct cred *cred;
	int ret;

	/* The core's contract since 5.1, asserted by the core on lockdep kernels. */
	lockdep_assert_held(ue_ksym_event_mutex);
	cred = prepare_creds();
	/*
	 * Removing checks no permission: without memory for the creds, the
	 * event still goes (upstream keeps it, busy, until deleted again;
	 * suite faults, close). Its format files are then looked up with
	 * the caller's own creds, which tracefs modes may keep from them.
	 */
	if (!cred && !visible)
		return ue_call_remove(ev);
	if (!cred) {
		unregister_trace_event(&ev->call.event);
		return -ENOMEM;
	}
	cred->fsuid = GLOBAL_ROOT_UID;
	/* ue_call_complete()'s lookup, whatever tracefs' owner and modes. */
	cap_raise(cred->cap_effective, CAP_DAC_READ_SEARCH);
	old = override_creds(cred);
	if (visible)
		ret = ue_call_add(ev);
	else
		ret = ue_call_remove(ev);
	revert_creds(old);
	put_cred(cred);
	return ret;
}

/* Whether @p lies in the event's own allocation, past its struct. */
static bool ue_event_owns(const struct ue_event *ev, const void *p)
{
	return p >= (const void *)ev->spare &&
	       p < (const void *)ev + UE_EVENT_ALLOC;
}

/* kfree() @p unless it is in the event's spare room. */
static void ue_event_kfree(const struct ue_event *ev, const void *p)
{
	if (!ue_event_owns(ev, p))
		kfree(p);
}

static void ue_event_free(struct ue_event *ev)
{
	u32 i;

	for (i = 0; i < ev->fields.nr; i++)
		kfree(ev->fields.field[i].core_type);
	ue_fields_free(&ev->fields);
	ue_event_kfree(ev, ev->call.print_fmt);
	if (ev->tp_name != ev->reg_name)
		kfree(ev->tp_name);
	ue_event_kfree(ev, ev->reg_name);
	kfree(ev);
}

/*
 * Move the command text, @len bytes, into the event's spare room if it
 * fits there, pointing the name and the parsed fields at the copy.
 */
static void ue_event_move_cmd(struct ue_event *ev, struct ue_spare *spare,
			      size_t len)
{
	char *old = ev->reg_name;
	char *new = ue_spare_take(spare, len);
	struct ue_field *f;
	u32 i;

	if (!new)
		return;
	memcpy(new, old, len);
	for (i = 0; i < ev->fields.nr; i++) {
		f = &ev->fields.field[i];
		f->type = new + (f->type - old);
		f->name = new + (f->name - old);
	}
	if (ev->tp_name == old)
		ev->tp_name = new;
	ev->reg_name = new;
	kfree(old);
}

static void ue_event_free_rcu(struct rcu_head *rcu)
{
	ue_event_free(container_of(rcu, struct ue_event, rcu));
}

/* Remove the event from the core and free it; event_mutex held. */
static int ue_event_destroy(struct ue_event *ev)
{
	int ret;

	lockdep_assert_held(ue_ksym_event_mutex);
	if (ue_call_held(&ev->call))
		return -EBUSY;
	ret = ue_call_visible(ev, false);
	if (ret)
		return ret;
	ue_hooks->removed(ev);
	hash_del(&ev->node);
	ue_nr_events--;
	if (ev->orphaned)
		ue_nr_orphans--;
	/* Writers and status readers may still hold a pointer under RCU. */
	call_rcu(&ev->rcu, ue_event_free_rcu);
	module_put(THIS_MODULE);
	return 0;
}

/*
 * The last reference of a non-persistent event is gone; event_mutex held.
 *
 * The core may still hold the call (an eprobe or an enable_event trigger
 * on it, 6.1+: call->refcnt) and then refuses its removal. Upstream removes
 * the call regardless (destroy_user_event()); keeping an event whose call was
 * removed under a holder is not an option, and merely keeping it, as upstream
 * does when removal fails, leaves it busy for ever: with its last reference
 * gone nothing could delete it again, nor unload the module. Such an event is
 * orphaned instead: it keeps one reference as its own, as a persistent event
 * does, so that DIAG_IOCSDEL and the dynamic_events deletes take it once the
 * hold is gone, and a work item deletes it by itself then, checking once a
 * second while orphans exist: on the module's own queue, as all its work,
 * never on a shared one of the kernel's.
 */
static void ue_event_last_put(struct ue_event *ev)
{
	int ret = ue_event_destroy(ev);

	if (!ret)
		return;
	refcount_set(&ev->refcnt, 1);
	if (!ev->orphaned) {
		ev->orphaned = true;
		ue_nr_orphans++;
		pr_info("event %s is still held by the tracing core (%d); deleted once that hold goes\n",
			ev->tp_name, ret);
	}
	queue_delayed_work(ue_wq, &ue_orphans_work, HZ);
}

/*
 * Destroy an event at its own last reference (persistent or orphaned, see
 * ue_event_last_ref()); event_mutex held. The count goes to zero first, so
 * that a fork snapshot, which takes its references under RCU with
 * refcount_inc_not_zero(), cannot revive an event being destroyed: one that
 * took a reference just before makes the event busy instead.
 */
static int ue_event_destroy_own(struct ue_event *ev)
{
	int ret;

	if (!refcount_dec_if_one(&ev->refcnt))
		return -EBUSY;
	ret = ue_event_destroy(ev);
	if (ret)
		refcount_set(&ev->refcnt, 1);
	return ret;
}

/* Delete the orphans whose hold is gone; again in a second if any is left. */
static void ue_orphans_work_fn(struct work_struct *work)
{
	struct hlist_node *tmp;
	struct ue_event *ev;
	int bkt;

	mutex_lock(ue_ksym_event_mutex);
	hash_for_each_safe(ue_events, bkt, tmp, ev, node)
		if (ev->orphaned && ue_event_last_ref(ev))
			ue_event_destroy_own(ev);
	if (ue_nr_orphans)
		queue_delayed_work(ue_wq, &ue_orphans_work, HZ);
	mutex_unlock(ue_ksym_event_mutex);
}

static void ue_event_put_work(struct work_struct *work)
{
	struct ue_event *ev = container_of(work, struct ue_event, put_work);

	mutex_lock(ue_ksym_event_mutex);
	if (refcount_dec_and_test(&ev->refcnt))
		ue_event_last_put(ev);
	mutex_unlock(ue_ksym_event_mutex);
	ue_work_done();
}

void ue_event_put(struct ue_event *ev, bool locked)
{
	if (locked) {
		/*
		 * Inside the core's registration callback the call cannot be
		 * removed: keep one reference for a work item that drops it.
		 * ue_events_settle() runs it before the next register or
		 * delete is judged.
		 */
		lockdep_assert_held(ue_ksym_event_mutex);
		if (refcount_dec_and_test(&ev->refcnt)) {
			refcount_set(&ev->refcnt, 1);
			ue_queue_work(&ev->put_work);
		}
		return;
	}
	if (refcount_dec_and_mutex_lock(&ev->refcnt, ue_ksym_event_mutex)) {
		ue_event_last_put(ev);
		mutex_unlock(ue_ksym_event_mutex);
	}
}

/* Work items queued on ue_wq that have not finished yet. */
static atomic_t ue_queued = ATOMIC_INIT(0);

void ue_queue_work(struct work_struct *work)
{
	atomic_inc(&ue_queued);
	if (!queue_work(ue_wq, work))
		atomic_dec(&ue_queued);	/* already queued: counted then */
}

/* The last thing a work function does: its effects are visible first. */
void ue_work_done(void)
{
	atomic_dec_return_release(&ue_queued);
}

/*
 * Make releases that callers have already finished effective, so that a
 * register or delete is judged on the state they left: upstream defers them
 * and a later DIAG_IOCSDEL can still see the event busy.
 */
void ue_events_settle(void)
{
	int round;

	/*
	 * Dead address spaces first, here: their enablers' puts may queue
	 * event removals. A flush waits only for the work queued before it,
	 * and work queues work: the sweep's own item (queued when the kernel
	 * reports a death) may put an event, whose removal is another item.
	 * Each round finishes one link of every chain that was under way;
	 * none is longer than two. No item waits on user space: the teardown
	 * of an address space whose last user a write dropped, which waits
	 * for the process's AIO in flight, is not on ue_wq (enabler.c
	 * ue_mm_put()). A bounded number of rounds, so that others queueing
	 * all the time cannot keep a caller here; one flush is not enough for
	 * a child's exit to be in effect (race_test exit-wait). An idle queue
	 * needs no flush (about 200 instructions, measured).
	 */
	ue_mms_sweep();
	for (round = 0; round < 4; round++) {
		if (!atomic_read_acquire(&ue_queued))
			return;
		flush_workqueue(ue_wq);
	}
}

/*
 * event_mutex, taken once what finished before the call is in effect.
 * Settling before taking the lock is not enough: whoever holds the lock
 * meanwhile may drop the last user of an address space whose process has
 * exited (a bit write, ue_mm_put()), which flags it dead and queues the
 * sweep; one more settle without the lock finishes that. Such a holder
 * took its user before the exit, and holders are serialised by the lock,
 * so one is enough (race_test exit-wait).
 */
void ue_event_mutex_lock_settled(void)
{
	ue_events_settle();
	mutex_lock(ue_ksym_event_mutex);
	if (!atomic_read_acquire(&ue_queued))
		return;
	mutex_unlock(ue_ksym_event_mutex);
	ue_events_settle();
	mutex_lock(ue_ksym_event_mutex);
}

void ue_events_count(unsigned int *events, unsigned int *orphans,
		     unsigned int *queued)
{
	mutex_lock(ue_ksym_event_mutex);
	*events = ue_nr_events;
	*orphans = ue_nr_orphans;
	mutex_unlock(ue_ksym_event_mutex);
	*queued = atomic_read(&ue_queued);
}

/* The event's probes changed: recompute its status, rewrite its bits. */
static void ue_event_update_status(struct ue_event *ev)
{
	struct ue_tp_reader r;
	struct tracepoint_func *f;
	u8 status = 0;

	if (ue_event_enabled(ev)) {
		ue_tp_read_lock(&r);
		f = ue_tp_funcs(&ev->tp);
		for (; f && f->func; f++) {
			if (f->func == ue_probe_ftrace)
				status |= UE_STATUS_FTRACE;
			else if (f->func == ue_probe_perf)
				status |= UE_STATUS_PERF;
			else
				status |= UE_STATUS_OTHER;
		}
		ue_tp_read_unlock(&r);
	}
	WRITE_ONCE(ev->status, status);
	ue_hooks->status_changed(ev);
}

/* The core attaches and detaches ftrace and perf here, event_mutex held. */
static int ue_event_reg(struct trace_event_call *call, enum trace_reg type,
			void *data)
{
	struct ue_event *ev = call->data;
	void *probe;
	int ret;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_PERF_REGISTER:
		probe = type == TRACE_REG_REGISTER ? call->class->probe :
						     call->class->perf_probe;
		ret = tracepoint_probe_register(call->tp, probe, data);
		if (ret)
			return ret;
		ue_event_get(ev);
		ue_event_update_status(ev);
		/* The core marks an ftrace file enabled only after this. */
		if (type == TRACE_REG_REGISTER)
			ue_race_window(UE_RACE_FTRACE_ENABLE, false);
		return 0;
	case TRACE_REG_UNREGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		probe = type == TRACE_REG_UNREGISTER ? call->class->probe :
						       call->class->perf_probe;
		tracepoint_probe_unregister(call->tp, probe, data);
		ue_event_update_status(ev);
		ue_event_put(ev, true);
		return 0;
	default:
		/* PERF_OPEN/CLOSE/ADD/DEL: the core's defaults do. */
		return 0;
	}
}

/*
 * Look for the event, with event_mutex held, as upstream's find_user_event():
 * the event @name with fields @args, referenced; NULL if there is none, or an
 * ERR_PTR. The fields are split for matching only once an event of that name
 * turns up: a new name costs no allocation here.
 */
static struct ue_event *ue_event_find(const char *name, const char *args,
				      u16 reg_flags)
{
	struct ue_event *ev, *found = NULL;
	char **argv = NULL;
	int argc = 0;

	hash_for_each_possible(ue_events, ev, node, ue_key(name)) {
		/* Single- and multi-format events live side by side. */
		if ((ev->reg_flags ^ reg_flags) & USER_EVENT_REG_MULTI_FORMAT)
			continue;
		if (strcmp(ev->reg_name, name))
			continue;
		if (args && !argv) {
			argv = ue_args_split(args, &argc);
			if (!argv) {
				found = ERR_PTR(-ENOMEM);
				break;
			}
		}
		if (ue_fields_match(&ev->fields, argc, (const char **)argv)) {
			found = ue_event_get(ev);
			break;
		}
		if (reg_flags & USER_EVENT_REG_MULTI_FORMAT)
			continue;
		found = ERR_PTR(-EADDRINUSE);
		break;
	}
	if (argv)
		argv_free(argv);
	return found;
}

/* Everything the core needs, built from the parsed command. */
static struct ue_event *ue_event_alloc(char *cmd, char *args, u16 reg_flags)
{
	/* what ue_cmd_split() left: "name\0args\0" or "name\0" */
	size_t cmd_len = (args ? args : cmd) - cmd + strlen(args ?: cmd) + 1;
	struct ue_spare spare;
	struct ue_event *ev;
	u32 i;
	int ret;

	ev = kzalloc(UE_EVENT_ALLOC, GFP_KERNEL_ACCOUNT);
	if (!ev) {
		/* The command is ours from the call on, whatever fails. */
		kfree(cmd);
		return ERR_PTR(-ENOMEM);
	}
	spare.buf = (u8 *)ev->spare;
	spare.len = UE_EVENT_SPARE;
	ev->reg_name = cmd;
	ev->tp_name = cmd;
	INIT_LIST_HEAD(&ev->enablers);
	ev->reg_flags = reg_flags;
	if (reg_flags & USER_EVENT_REG_MULTI_FORMAT) {
		/* The id is used up even if parsing fails, as upstream. */
		ev->tp_name = kasprintf(GFP_KERNEL_ACCOUNT, "%s.%llx", cmd,
					ue_multi_id++);
		if (!ev->tp_name) {
			ev->tp_name = cmd;
			ret = -ENOMEM;
			goto fail;
		}
	}

	/* the tables first: they save the most when they fit */
	ret = ue_fields_parse(args, &ev->fields, &spare);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	ev->call.print_fmt = ue_print_fmt(&ev->fields, GFP_KERNEL_ACCOUNT,
					  &spare);
	if (!ev->call.print_fmt)
		goto fail;
	ue_event_move_cmd(ev, &spare, cmd_len);
	for (i = 0; i < ev->fields.nr; i++) {
		struct ue_field *f = &ev->fields.field[i];

		/*
		 * char[0x10] reaches the core as char[16]: the format file
		 * prints the type's text after the name, "char name[16]".
		 */
		if (!f->array_len)
			continue;
		f->core_type = kasprintf(GFP_KERNEL_ACCOUNT, "%.*s[%u]",
					 (int)(strchr(f->type, '[') - f->type),
					 f->type, f->array_len);
		if (!f->core_type)
			goto fail;
	}

	ev->tp.name = ev->tp_name;
	ev->call.tp = &ev->tp;
	ev->call.class = &ev->class;
	ev->call.flags = TRACE_EVENT_FL_TRACEPOINT;
	ev->call.event.funcs = &ue_event_funcs;
	ev->call.data = ev;
	ev->class.system = (reg_flags & USER_EVENT_REG_MULTI_FORMAT) ?
			   USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM;
	INIT_LIST_HEAD(&ev->class.fields);
	ev->class.fields_array = ue_no_fields;
	ev->class.reg = ue_event_reg;
	ev->class.probe = ue_probe_ftrace;
	ev->class.perf_probe = ue_probe_perf;
	INIT_WORK(&ev->put_work, ue_event_put_work);
	return ev;
fail:
	ue_event_free(ev);
	return ERR_PTR(ret);
}

/* Give the event a type id and its directories; event_mutex held. */
static int ue_event_register(struct ue_event *ev)
{
	int ret;

	if (ue_nr_events >= ue_max_events)
		return -EMFILE;
	if (!register_trace_event(&ev->call.event))
		return -ENODEV;
	ret = ue_call_visible(ev, true);
	if (ret)
		return ret;
	ue_call_set_dynamic(&ev->call);
	/* The caller's reference, and the event's own if it persists. */
	refcount_set(&ev->refcnt, (ev->reg_flags & USER_EVENT_REG_PERSIST) ? 2 : 1);
	hash_add(ue_events, &ev->node, ue_key(ev->reg_name));
	ue_hooks->added(ev);
	ue_nr_events++;
	/* Every event pins the module: its callbacks are our code. */
	__module_get(THIS_MODULE);
	return 0;
}

struct ue_event *ue_event_find_or_create(char *cmd, u16 reg_flags)
{
	struct ue_event *ev;
	char *name, *args;
	int ret;

	lockdep_assert_held(&ue_reg_mutex);
	ret = ue_cmd_split(cmd, &name, &args);
	if (ret)
		goto free_cmd;
	ret = -EPERM;
	if (!ue_capable(reg_flags))
		goto free_cmd;

	ue_event_mutex_lock_settled();
	ev = ue_event_find(name, args, reg_flags);
	mutex_unlock(ue_ksym_event_mutex);
	if (ev) {
		kfree(cmd);
		return ev;
	}

	ev = ue_event_alloc(cmd, args, reg_flags);
	if (IS_ERR(ev))
		return ev;
	mutex_lock(ue_ksym_event_mutex);
	ret = ue_event_register(ev);
	mutex_unlock(ue_ksym_event_mutex);
	if (ret) {
		ue_event_free(ev);
		return ERR_PTR(ret);
	}
	return ev;

free_cmd:
	kfree(cmd);
	return ERR_PTR(ret);
}

int ue_event_delete_locked(struct ue_event *ev)
{
	lockdep_assert_held(ue_ksym_event_mutex);
	if (!ue_event_last_ref(ev))
		return -EBUSY;
	if (!ue_capable(ev->reg_flags))
		return -EPERM;
	return ue_event_destroy_own(ev);
}

int ue_event_delete(const char *name)
{
	struct ue_event *ev;
	struct hlist_node *tmp;
	int ret = -ENOENT;

	lockdep_assert_held(&ue_reg_mutex);
	ue_event_mutex_lock_settled();
	/* Every event of that name: single-format and all variants. */
	hash_for_each_possible_safe(ue_events, ev, tmp, node, ue_key(name)) {
		if (strcmp(ev->reg_name, name))
			continue;
		ret = ue_event_delete_locked(ev);
		if (ret)
			break;
	}
	mutex_unlock(ue_ksym_event_mutex);
	return ret;
}

void ue_events_for_each(void (*fn)(struct ue_event *ev, void *arg), void *arg)
{
	struct ue_event *ev;
	int bkt;

	mutex_lock(ue_ksym_event_mutex);
	hash_for_each(ue_events, bkt, ev, node)
		fn(ev, arg);
	mutex_unlock(ue_ksym_event_mutex);
}

#ifdef UE_TEST_RACE
/* A probe of neither kind: writes pass it by, as any they do not know. */
static void ue_probe_other(void *data)
{
}

/*
 * Test builds (race.c): attach or detach a probe of neither kind to the
 * event whose tracepoint is @tp_name, as another module could, and
 * recompute its status as the core's callback does, so that the "other"
 * marker of user_events_status can be tested. Holds a
 * reference while attached, as the core's probes do.
 */
int ue_event_test_other(const char *tp_name, bool attach)
{
	struct ue_event *ev;
	int bkt, ret = -ENOENT;

	mutex_lock(ue_ksym_event_mutex);
	hash_for_each(ue_events, bkt, ev, node) {
		if (strcmp(ev->tp_name, tp_name))
			continue;
		/* The core warns of a probe added twice or not there. */
		if (attach == !!(ev->status & UE_STATUS_OTHER)) {
			ret = attach ? -EEXIST : -ENOENT;
			break;
		}
		if (attach)
			ret = tracepoint_probe_register(&ev->tp, ue_probe_other,
							ev);
		else
			ret = tracepoint_probe_unregister(&ev->tp,
							  ue_probe_other, ev);
		if (ret)
			break;
		if (attach)
			ue_event_get(ev);
		ue_event_update_status(ev);
		if (!attach)
			ue_event_put(ev, true);
		break;
	}
	mutex_unlock(ue_ksym_event_mutex);
	return ret;
}
#endif

int ue_events_init(const struct ue_event_hooks *hooks)
{
	ue_hooks = hooks;
	ue_wq = alloc_workqueue("user_events", UE_WQ_PERCPU, 0);
	if (!ue_wq)
		return -ENOMEM;
	/*
	 * The address spaces' own work items (enabler.c: fault-ins, a bit
	 * write's last mmput()), which may wait on user space for ever. One
	 * per address space at most is running, so one that waits holds one
	 * worker and delays only its own bits; as many may run as the
	 * workqueue allows, so that a user needs that many processes, each
	 * stuck, to delay another's fault-ins. Unbound: it does not matter
	 * where they run. A task that turns an event off and reads its own
	 * bit at once still sees it cleared: a word on a copy-on-write page
	 * is faulted in by the state change itself (ue_fault_in_anon()).
	 */
	ue_fault_wq = alloc_workqueue("user_events_mm", WQ_UNBOUND,
				      WQ_MAX_ACTIVE);
	if (!ue_fault_wq) {
		destroy_workqueue(ue_wq);
		return -ENOMEM;
	}
	return 0;
}

void ue_events_exit(void)
{
	/*
	 * No event is left (each pins the module); drain what they queued.
	 * The orphan work may still be running past the module_put() of the
	 * last orphan it deleted.
	 */
	cancel_delayed_work_sync(&ue_orphans_work);
	destroy_workqueue(ue_wq);
	/* Fault-ins hold module references: only their returns are left. */
	destroy_workqueue(ue_fault_wq);
	/* The files of removed events the core could not keep safe. */
	ue_removed_event_exit();
	rcu_barrier();
}
