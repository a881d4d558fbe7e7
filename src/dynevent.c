// SPDX-License-Identifier: GPL-2.0
/*
 * User events as a type of dynamic event: "u:NAME FIELDS" written to
 * dynamic_events creates a persistent event; every user event, however
 * created, is listed there as "u:NAME FIELDS" and can be deleted with
 * "-:[SYSTEM/]NAME FIELDS" or "!u:NAME FIELDS", or by an O_TRUNC open.
 *
 * The core calls ->create with dyn_event_ops_mutex held, and ->show,
 * ->is_busy, ->free and ->match with event_mutex held, always for an entry of
 * dyn_event_list (kernel/trace/trace_dynevent.c).
 *
 * Module lifetime. The core pins nothing of ours: its calls land in module
 * text through our operations (on its list from load to unload) and through
 * the entries of our events on dyn_event_list.
 *  - An event pins the module from its registration to its destruction
 *    (event.c), so ->show/->is_busy/->match/->free are only reached while
 *    the module is pinned, with one exception: ->free destroying an event
 *    may drop the last reference before it returns into the core. The core
 *    holds event_mutex until it has returned, so ue_dyn_exit() takes
 *    event_mutex once, after which no such call can still be running.
 *  - ->create can be entered with nothing pinning the module: rmmod may
 *    have dropped the count to zero and be about to run the exit function.
 *    The exit function takes dyn_event_ops_mutex to unlink our operations,
 *    which waits for any create in flight, and no create can begin after.
 *    A create in flight must not make an event then (the event would
 *    outlive the module), so it first takes a module reference with
 *    try_module_get(), which fails once rmmod has committed; it then
 *    declines the line with -ECANCELED, as if the module were gone. If the
 *    reference is taken, rmmod fails with EAGAIN instead. The reference is
 *    dropped before returning; the rest of the return runs under
 *    dyn_event_ops_mutex, which the exit function waits for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat/dynevent.h"
#include "private/ksyms.h"
#include "dynevent.h"
#include "event.h"
#include "ue.h"

static struct ue_event *ue_dyn_to_event(struct dyn_event *de)
{
	return container_of(de, struct ue_event, devent);
}

int ue_dyn_create(const char *raw_command)
{
	struct ue_event *ev;
	char *cmd;
	int ret;

	if (!str_has_prefix(raw_command, UE_DYN_PREFIX))
		return -ECANCELED;
	/*
	 * The core's contract, which unload relies on: ue_dyn_exit() takes
	 * this mutex to wait for a create in flight. A kernel that broke it
	 * gets a refusal, not a race with unload.
	 */
	lockdep_assert_held(ue_ksym_dyn_event_ops_mutex);
	if (!mutex_is_locked(ue_ksym_dyn_event_ops_mutex)) {
		pr_err_once("u: commands refused: this kernel calls ->create without dyn_event_ops_mutex\n");
		return -EBUSY;
	}
	if (!try_module_get(THIS_MODULE))
		return -ECANCELED;	/* being unloaded */

	/* No 512-byte limit here: the core's line limit applies. */
	cmd = kstrdup(skip_spaces(raw_command + strlen(UE_DYN_PREFIX)),
		      GFP_KERNEL_ACCOUNT);
	if (!cmd) {
		ret = -ENOMEM;
		goto out;
	}

	mutex_lock(&ue_reg_mutex);
	/*
	 * Always persistent, else it would go at once (as upstream's
	 * user_event_create()).
	 */
	ev = ue_event_find_or_create(cmd, USER_EVENT_REG_PERSIST);
	ret = PTR_ERR_OR_ZERO(ev);
	/* An existing event is left as it was, persistent or not. */
	if (!ret)
		ue_event_put(ev, false);
	mutex_unlock(&ue_reg_mutex);
out:
	module_put(THIS_MODULE);
	return ret;
}

/* "u:NAME TYPE NAME[ SIZE]; TYPE NAME...", types as registered. */
static int ue_dyn_show(struct seq_file *m, struct dyn_event *de)
{
	struct ue_event *ev = ue_dyn_to_event(de);
	const struct ue_field *f;
	u32 i;

	seq_printf(m, "%s%s", UE_DYN_PREFIX, ev->reg_name);
	for (i = 0; i < ev->fields.nr; i++) {
		f = &ev->fields.field[i];
		seq_printf(m, "%s%s %s", i ? "; " : " ", f->type, f->name);
		if (f->is_struct)
			seq_printf(m, " %u", f->size);
	}
	seq_putc(m, '\n');
	return 0;
}

static bool ue_dyn_is_busy(struct dyn_event *de)
{
	return ue_event_busy(ue_dyn_to_event(de));
}

static int ue_dyn_free(struct dyn_event *de)
{
	return ue_event_delete_locked(ue_dyn_to_event(de));
}

/*
 * The registered name (never "name.<id>"), an optional system of ours, and
 * exactly the event's fields: none given matches only a field-less event.
 */
static bool ue_dyn_match(const char *system, const char *event, int argc,
			 const char **argv, struct dyn_event *de)
{
	struct ue_event *ev = ue_dyn_to_event(de);

	if (strcmp(ev->reg_name, event))
		return false;
	if (system && strcmp(system, USER_EVENTS_SYSTEM) &&
	    strcmp(system, USER_EVENTS_MULTI_SYSTEM))
		return false;
	return ue_fields_match(&ev->fields, argc, argv);
}

static struct dyn_event_operations ue_dyn_ops = {
	.create		= ue_dyn_create_entry,
	.show		= ue_dyn_show,
	.is_busy	= ue_dyn_is_busy,
	.free		= ue_dyn_free,
	.match		= ue_dyn_match,
};

void ue_dyn_event_add(struct ue_event *ev)
{
	lockdep_assert_held(ue_ksym_event_mutex);
	ev->devent.ops = &ue_dyn_ops;
	list_add_tail(&ev->devent.list, ue_ksym_dyn_event_list);
}

void ue_dyn_event_remove(struct ue_event *ev)
{
	lockdep_assert_held(ue_ksym_event_mutex);
	list_del_init(&ev->devent.list);
}

/*
 * What dyn_event_register() does, which is not exported (docs/design.md,
 * dynamic_events).
 */
void ue_dyn_init(void)
{
	INIT_LIST_HEAD(&ue_dyn_ops.list);
	mutex_lock(ue_ksym_dyn_event_ops_mutex);
	list_add_tail(&ue_dyn_ops.list, ue_ksym_dyn_event_ops_list);
	mutex_unlock(ue_ksym_dyn_event_ops_mutex);
}

/* No event exists any more (each pins the module); see the top comment. */
void ue_dyn_exit(void)
{
	/* Waits for a create in flight; none starts after. */
	mutex_lock(ue_ksym_dyn_event_ops_mutex);
	list_del_init(&ue_dyn_ops.list);
	mutex_unlock(ue_ksym_dyn_event_ops_mutex);
	/* Waits for a ->free that dropped the last event's reference. */
	mutex_lock(ue_ksym_event_mutex);
	mutex_unlock(ue_ksym_event_mutex);
}
