// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time checks of the kernel internals the module relies on but no header
 * gives it: a kernel that changed one of them would build, load and corrupt
 * memory. On any difference the module refuses to load with one dmesg line
 * naming it.
 *
 * Checked here, reading only, each read of kernel memory fault-safe
 * (copy_from_kernel_nofault()), before anything is locked or written:
 * - the resolved data symbols are objects of at least their type's size
 *   (kallsyms gives the distance to the next symbol; without
 *   CONFIG_KALLSYMS_ALL, the System.map does, private/sysmap.h), the heads of the two
 *   lists are consistent (and the lists, walked under their locks, closed),
 *   and the tracefs mount, once there is one, is a tracefs superblock's;
 * - where removed events' files are pinned (private/removed_event.h), the
 *   core's file_cachep is a slab of objects large enough for them;
 * - struct dyn_event_operations (compat/dynevent.h): in every registered
 *   type of dynamic event, each of the five slots holds the start of a
 *   function whose name says what the slot is for (..._create, ..._show,
 *   ..._is_busy, ..._release or ..._free, ..._match), as in every kernel
 *   from 5.10 to 7.3;
 * - struct dyn_event: every dynamic event's ops is a registered type.
 *
 * Checked elsewhere: the task_newtask probe's prototype at build time
 * (compat/newtask.h); the core's locking contracts where they are relied
 * on (->create runs under dyn_event_ops_mutex, trace_add_event_call() and
 * trace_remove_event_call() under event_mutex) by lockdep on the debug
 * kernels, and the first also at run time (dynevent.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kallsyms.h>
#include <linux/list.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../compat/dynevent.h"
#include "ksyms.h"
#include "sysmap.h"
#include "verify.h"

/* More entries than any kernel registers: past this, the list is not one. */
#define UE_VERIFY_MAX_OPS	32
#define UE_VERIFY_MAX_EVENTS	65536

static int ue_differs(const char *what)
{
	pr_err("cannot load: this kernel's %s differs from what user-events-dkms knows; please report it with `uname -rv`\n",
	       what);
	return -ENOEXEC;
}

static bool ue_peek(void *dst, const void *src, size_t size)
{
	return !copy_from_kernel_nofault(dst, src, size);
}

/*
 * Walk the list at @head, whose lock is held: each node's neighbour must
 * point back at it.
 * @fn, if any, sees each node (not the head). -EINVAL if the list is not
 * one, else what @fn returned first that was not 0.
 */
static int ue_walk(struct list_head *head, unsigned int max,
		   int (*fn)(struct list_head *node, void *arg), void *arg)
{
	struct list_head *pos = head, *next, *back;
	unsigned int n = 0;
	int ret;

	for (;;) {
		if (!ue_peek(&next, &pos->next, sizeof(next)) ||
		    !ue_peek(&back, &next->prev, sizeof(back)) || back != pos)
			return -EINVAL;
		if (next == head)
			return 0;
		if (++n > max)
			return -EINVAL;
		if (fn) {
			ret = fn(next, arg);
			if (ret)
				return ret;
		}
		pos = next;
	}
}

/*
 * Whether @addr is the start of a symbol: its name in @name (a buffer of
 * KSYM_SYMBOL_LEN), and the size kallsyms gives it (the distance to the
 * next symbol) in *@size.
 */
static bool ue_sym_start(const void *addr, char *name, unsigned long *size)
{
	char *plus;

	sprint_symbol(name, (unsigned long)addr);
	plus = strchr(name, '+');
	if (!plus || sscanf(plus, "+0x0/%lx", size) != 1)
		return false;
	*plus = '\0';
	return true;
}

/*
 * The size of the data symbol that starts at @addr; 0 if none does. Where
 * kallsyms has no data (no CONFIG_KALLSYMS_ALL), the System.map's size.
 */
static unsigned long ue_sym_size(const void *addr)
{
#ifdef UE_SYSMAP
	return ue_sysmap_size(addr);
#else
	char name[KSYM_SYMBOL_LEN];
	unsigned long size;

	return ue_sym_start(addr, name, &size) ? size : 0;
#endif
}

/*
 * Whether @head's neighbours point back at it. Read without the lock that
 * guards the list, so a change in flight may upset one reading: one of a
 * few must agree.
 */
static bool ue_head_sane(struct list_head *head)
{
	struct list_head *next, *prev, *back, *fwd;
	int i;

	for (i = 0; i < 3; i++) {
		if (ue_peek(&next, &head->next, sizeof(next)) &&
		    ue_peek(&prev, &head->prev, sizeof(prev)) &&
		    ue_peek(&back, &next->prev, sizeof(back)) &&
		    ue_peek(&fwd, &prev->next, sizeof(fwd)) &&
		    back == head && fwd == head)
			return true;
	}
	return false;
}

/*
 * Only its size: a mutex's insides differ between kernels (a wait list up
 * to 7.2, a first waiter on 7.3, an rt_mutex on PREEMPT_RT).
 */
static bool ue_mutex_sane(struct mutex *m)
{
	return ue_sym_size(m) >= sizeof(*m);
}

static bool ue_list_sane(struct list_head *head)
{
	return ue_sym_size(head) >= sizeof(*head) && ue_head_sane(head);
}

static bool ue_tracefs_mount_sane(void)
{
	struct vfsmount *mnt;
	struct super_block *sb;
	unsigned long magic;

	if (ue_sym_size(ue_ksym_tracefs_mount) < sizeof(mnt) ||
	    !ue_peek(&mnt, ue_ksym_tracefs_mount, sizeof(mnt)))
		return false;
	/* Not mounted yet: nothing of it is used until it is. */
	if (!mnt)
		return true;
	return ue_peek(&sb, &mnt->mnt_sb, sizeof(sb)) &&
	       ue_peek(&magic, &sb->s_magic, sizeof(magic)) &&
	       magic == TRACEFS_MAGIC;
}

/* Whether @fn is the start of a function whose name has @word or @alt. */
static bool ue_slot_holds(const void *fn, const char *word, const char *alt)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned long size;

	return ue_sym_start(fn, name, &size) &&
	       (strstr(name, word) || (alt && strstr(name, alt)));
}

struct ue_ops_seen {
	const void	*ops[UE_VERIFY_MAX_OPS];
	unsigned int	nr;
};

static int ue_check_ops(struct list_head *node, void *arg)
{
	struct dyn_event_operations *ops, o;
	struct ue_ops_seen *seen = arg;

	ops = list_entry(node, struct dyn_event_operations, list);
	if (!ue_peek(&o, ops, sizeof(o)))
		return -EINVAL;
	if (!ue_slot_holds(o.create, "create", NULL) ||
	    !ue_slot_holds(o.show, "show", NULL) ||
	    !ue_slot_holds(o.is_busy, "busy", NULL) ||
	    !ue_slot_holds(o.free, "release", "free") ||
	    !ue_slot_holds(o.match, "match", NULL))
		return -EINVAL;
	seen->ops[seen->nr++] = ops;
	return 0;
}

static int ue_check_event(struct list_head *node, void *arg)
{
	struct ue_ops_seen *seen = arg;
	struct dyn_event de;
	unsigned int i;

	if (!ue_peek(&de, list_entry(node, struct dyn_event, list), sizeof(de)))
		return -EINVAL;
	for (i = 0; i < seen->nr; i++)
		if (seen->ops[i] == de.ops)
			return 0;
	return -EINVAL;
}

#ifdef UE_PIN_EVENT_FILES
#ifdef UE_TEST_LAYOUT_SKEW
/*
 * The test rig's skewed build also plays a kernel whose file_cachep is not
 * what we take it for: a pointer to something that is no slab object
 * (test_file_cache_ptr), or to a cache of objects too small
 * (test_file_cache_size more bytes needed). 10-module.sh.
 */
static bool test_file_cache_ptr;
module_param(test_file_cache_ptr, bool, 0);
static ulong test_file_cache_size;
module_param(test_file_cache_size, ulong, 0);
static char ue_not_slab[64];
#else
#define test_file_cache_ptr false
#define test_file_cache_size 0UL
#define ue_not_slab NULL
#endif

/*
 * The core's slab of struct trace_event_file, into which a pinned file is
 * freed (private/removed_event.h): a pointer to a cache of objects that
 * hold one (a merged cache may hold larger ones). A struct kmem_cache is
 * itself a slab object, in the kernel's direct map: anything else is
 * refused before kmem_cache_size() reads it, and so is a cache that cannot
 * be read.
 */
static bool ue_file_cache_sane(void)
{
	struct kmem_cache *cache;
	char head[64];

	if (ue_sym_size(ue_ksym_file_cachep) < sizeof(cache) ||
	    !ue_peek(&cache, ue_ksym_file_cachep, sizeof(cache)))
		return false;
	if (test_file_cache_ptr)
		cache = (struct kmem_cache *)ue_not_slab;
	return cache && virt_addr_valid(cache) &&
	       ue_peek(head, cache, sizeof(head)) &&
	       kmem_cache_size(cache) >=
	       sizeof(struct trace_event_file) + test_file_cache_size;
}
#else
static bool ue_file_cache_sane(void)
{
	return true;
}
#endif

int ue_kernel_verify(void)
{
	struct ue_ops_seen seen = { .nr = 0 };
	int ret;

	if (!ue_mutex_sane(ue_ksym_event_mutex))
		return ue_differs("event_mutex");
	if (!ue_mutex_sane(ue_ksym_dyn_event_ops_mutex))
		return ue_differs("dyn_event_ops_mutex");
	if (!ue_list_sane(ue_ksym_dyn_event_ops_list))
		return ue_differs("dyn_event_ops_list");
	if (!ue_list_sane(ue_ksym_dyn_event_list))
		return ue_differs("dyn_event_list");
	if (!ue_tracefs_mount_sane())
		return ue_differs("tracefs_mount");
	if (!ue_file_cache_sane())
		return ue_differs("file_cachep");

	/* Now known to be mutexes and lists: walk them under their locks. */
	mutex_lock(ue_ksym_dyn_event_ops_mutex);
	ret = ue_walk(ue_ksym_dyn_event_ops_list, UE_VERIFY_MAX_OPS,
		      ue_check_ops, &seen);
	mutex_unlock(ue_ksym_dyn_event_ops_mutex);
	/* The kernel registers several types (kprobes, synthetic, ...). */
	if (ret || !seen.nr)
		return ue_differs("struct dyn_event_operations");

	mutex_lock(ue_ksym_event_mutex);
	ret = ue_walk(ue_ksym_dyn_event_list, UE_VERIFY_MAX_EVENTS,
		      ue_check_event, &seen);
	mutex_unlock(ue_ksym_event_mutex);
	if (ret)
		return ue_differs("struct dyn_event");
	return 0;
}
