// SPDX-License-Identifier: GPL-2.0
/*
 * What the core no longer guards when an event is removed, before eventfs:
 * see removed_event.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "removed_event.h"

#ifdef UE_HAVE_EVENT_FILE_DENTRY
#include <linux/dcache.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kmemleak.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "event_dir.h"
#include "../compat/namei.h"
#include "ksyms.h"

#ifdef UE_PIN_EVENT_FILES
/*
 * Files of an event directory that carry its trace_event_file: enable,
 * filter, trigger, hist, hist_debug and inject, at most.
 */
#define UE_PIN_INODES	8
/* How often the pins are looked at while there are some. */
#define UE_PINS_PERIOD	HZ

/*
 * One instance's trace_event_file of a removed event, kept from being freed
 * while its inodes can be reached; each inode is held (ihold()), so that
 * its count tells whether anybody else still has it.
 */
struct ue_pin {
	struct list_head list;
	struct trace_event_file *file;
	unsigned int nr;
	/* More inodes than known: kept until the module goes. */
	bool overflow;
	struct inode *inodes[UE_PIN_INODES];
};

/* Under event_mutex. */
static LIST_HEAD(ue_pins);

static bool ue_pin_reachable(const struct ue_pin *pin)
{
	unsigned int i;

	if (pin->overflow)
		return true;
	/* A dentry (of a path walk, an open file) holds one each. */
	for (i = 0; i < pin->nr; i++)
		if (atomic_read(&pin->inodes[i]->i_count) > 1)
			return true;
	return false;
}

static void ue_pin_drop(struct ue_pin *pin)
{
	unsigned int i;

	list_del(&pin->list);
	/* The core's event_file_put(); the removal marked the file freed. */
	if (atomic_dec_and_test(&pin->file->ref))
		kmem_cache_free(*ue_ksym_file_cachep, pin->file);
	for (i = 0; i < pin->nr; i++)
		iput(pin->inodes[i]);
	kfree(pin);
}

/*
 * Module exit: @pin's file is still reached by an inode of its directory,
 * whose dentry something other than us holds. An O_PATH descriptor does, with
 * no reference to the file: it opened nothing, so the core took none. Were
 * ours dropped, it would be the last, the file would be freed while the
 * inode's i_private still points at it, and an open through /proc/self/fd
 * would later read freed memory; on 5.10 and 6.1 it enabled whichever event's
 * trace_event_file had reused it. A file opened for reading or writing has a
 * reference of its own, but it cannot be told apart here from an O_PATH one,
 * which may outlive it. So every file still reached is kept, never freed: the
 * core marked it EVENT_FILE_FL_FREED when it removed the event, and its open
 * refuses such a file with ENODEV (after reading its tr, the core's, and,
 * under event_mutex, that flag) for as long as an inode leads to it.
 *
 * What is kept is the core's alone, an object of its file_cachep: the one
 * pointer in it to memory of ours, event_call (the freed event's), is
 * cleared, so that a reader of the core that does not check the flag
 * (where the kernel lacks upstream's event_file_file(), 6.11) finds NULL,
 * not the freed event and through it the unloaded module. The object
 * leaks once the last descriptor goes: kmemleak is told. Upstream has the
 * same defect on those kernels, in the core itself: remove_event_file_dir()
 * frees the file at its last event_file_put() while such a descriptor
 * still reaches it (for a kprobe event too); eventfs (6.6+) keeps its
 * reference until nothing reaches the file.
 */
static void ue_pin_keep(struct ue_pin *pin)
{
	unsigned int i;

	list_del(&pin->list);
	pin->file->event_call = NULL;
	kmemleak_not_leak(pin->file);
	for (i = 0; i < pin->nr; i++)
		iput(pin->inodes[i]);
	kfree(pin);
}

/* The pins nothing can reach go; whether any are left. event_mutex held. */
static bool ue_pins_reap(void)
{
	struct ue_pin *pin, *tmp;

	list_for_each_entry_safe(pin, tmp, &ue_pins, list)
		if (!ue_pin_reachable(pin))
			ue_pin_drop(pin);
	return !list_empty(&ue_pins);
}

static void ue_pins_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ue_pins_work, ue_pins_work_fn);

/* What nothing reaches goes, the rest is looked at later. event_mutex held. */
static void ue_pins_update(void)
{
	if (ue_pins_reap())
		schedule_delayed_work(&ue_pins_work, UE_PINS_PERIOD);
}

static void ue_pins_work_fn(struct work_struct *work)
{
	mutex_lock(ue_ksym_event_mutex);
	ue_pins_update();
	mutex_unlock(ue_ksym_event_mutex);
}

/*
 * Pin the trace_event_file of the event directory @dir, @call's. Its
 * children are stable: event_mutex is held, under which alone the core
 * adds and removes event files.
 */
static void ue_pin_files(struct dentry *dir, struct trace_event_call *call)
{
	struct dentry *d = dget(dir), *child;
	struct trace_event_file *file;
	struct inode *inode;
	struct ue_pin *pin;

	if (!ue_lookup_step(&d, "enable"))
		return;
	file = d_inode(d)->i_private;
	dput(d);
	if (!file || file->event_call != call ||
	    (file->flags & EVENT_FILE_FL_FREED))
		return;
	/* Without memory, this one is left as the core leaves it. */
	pin = kzalloc(sizeof(*pin), GFP_KERNEL);
	if (!pin)
		return;
	pin->file = file;
	spin_lock(&dir->d_lock);
	list_for_each_entry(child, &dir->d_subdirs, d_child) {
		inode = d_inode(child);
		if (!inode || inode->i_private != file)
			continue;
		if (pin->nr == UE_PIN_INODES) {
			pin->overflow = true;
			break;
		}
		ihold(inode);
		pin->inodes[pin->nr++] = inode;
	}
	spin_unlock(&dir->d_lock);
	atomic_inc(&file->ref);
	list_add(&pin->list, &ue_pins);
}

void ue_removed_event_exit(void)
{
	struct ue_pin *pin, *tmp;
	unsigned int kept = 0;
	bool left = true;
	int i;

	cancel_delayed_work_sync(&ue_pins_work);
	/* An open in its window holds a dentry for microseconds, not seconds. */
	for (i = 0; i < 50 && left; i++) {
		if (i)
			msleep(20);
		mutex_lock(ue_ksym_event_mutex);
		left = ue_pins_reap();
		mutex_unlock(ue_ksym_event_mutex);
	}
	/* What something still reaches is kept, never freed. */
	mutex_lock(ue_ksym_event_mutex);
	list_for_each_entry_safe(pin, tmp, &ue_pins, list) {
		if (ue_pin_reachable(pin)) {
			ue_pin_keep(pin);
			kept++;
		} else {
			ue_pin_drop(pin);
		}
	}
	mutex_unlock(ue_ksym_event_mutex);
	if (kept)
		pr_info("kept %u removed event files that descriptors still reach\n",
			kept);
}
#else
static void ue_pin_files(struct dentry *dir, struct trace_event_call *call)
{
}

static void ue_pins_update(void)
{
}
#endif

/*
 * The directory @base/events/@system/@name, if it is there and @call's:
 * its trace_event_file is pinned, and its format file loses its call. (A
 * directory of that name may be another event's, a kprobe's of the same
 * group, where the core could not make @call's: left as it is.)
 */
static void ue_removed_at(struct dentry *base, struct trace_event_call *call,
			  const char *system, const char *name)
{
	struct dentry *d = dget(base);

	if (!ue_lookup_step(&d, "events") || !ue_lookup_step(&d, system) ||
	    !ue_lookup_step(&d, name))
		return;
	ue_pin_files(d, call);
	if (ue_lookup_step(&d, "format") && d_inode(d)->i_private == call)
		WRITE_ONCE(d_inode(d)->i_private, NULL);
	dput(d);
}

static bool ue_removed_in(const struct ue_instance_walk *w,
			  struct dentry *base)
{
	ue_removed_at(base, w->call, w->system, w->name);
	return true;
}

void ue_removed_event_prepare(struct trace_event_call *call,
			      const char *system, const char *name)
{
	const struct ue_instance_walk w = {
		.fn = ue_removed_in,
		.call = call,
		.system = system,
		.name = name,
	};

	/* An instance that cannot be looked up keeps what the core leaves. */
	ue_walk_instances(&w);
	ue_pins_update();
}
#endif
