// SPDX-License-Identifier: GPL-2.0
/*
 * Resolution of unexported kernel symbols, without calling anything that is
 * not exported.
 *
 * register_kprobe() looks a symbol up by name and stores its address in the
 * kprobe before it checks that the address may be probed. A data symbol then
 * fails that check, but the address is known; a function is registered
 * disabled (never armed) and unregistered at once. On IBT kernels the
 * address of a function is moved past its ENDBR, so sprint_symbol() names
 * the address back, which both confirms the name and gives the offset to the
 * symbol's start.
 *
 * Where kallsyms has no data symbols (no CONFIG_KALLSYMS_ALL), they come
 * from the System.map the module was built with (sysmap.h), relocated by
 * the kernel's offset, which is measured here from the map's functions:
 * this file resolves, sysmap.c only supplies the map and checks it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "ksyms.h"
#include "sysmap.h"

/* Addresses of kernel data, see ksyms.h. */
struct vfsmount **ue_ksym_tracefs_mount;
/* The core's event_mutex (kernel/trace/trace_events.c). */
struct mutex *ue_ksym_event_mutex;
/* The dynamic-events core (kernel/trace/trace_dynevent.c). */
struct list_head *ue_ksym_dyn_event_list;
struct list_head *ue_ksym_dyn_event_ops_list;
/* The core's dyn_event_ops_mutex, held around every ->create. */
struct mutex *ue_ksym_dyn_event_ops_mutex;
#ifdef UE_PIN_EVENT_FILES
/* The core's slab of event files (private/removed_event.h). */
struct kmem_cache **ue_ksym_file_cachep;
#endif

DEFINE_STATIC_CALL_NULL(ue_tracefs_create_file, tracefs_create_file);
DEFINE_STATIC_CALL_NULL(ue_tracefs_remove, tracefs_remove);
DEFINE_STATIC_CALL_NULL(ue_trace_add_event_call, trace_add_event_call);
DEFINE_STATIC_CALL_NULL(ue_trace_remove_event_call, trace_remove_event_call);

/* Address of the start of @name, or 0 if the kernel has no such symbol. */
unsigned long ue_ksym_addr(const char *name)
{
	struct kprobe kp = {
		.symbol_name = name,
		.flags = KPROBE_FLAG_DISABLED,
	};
	char found[KSYM_SYMBOL_LEN];
	size_t len = strlen(name);
	unsigned long addr, off;

	if (!register_kprobe(&kp))
		unregister_kprobe(&kp);
	addr = (unsigned long)kp.addr;
	if (!addr)
		return 0;

	/* "name+0xOFF/0xSIZE": anything else is not the symbol we asked for. */
	sprint_symbol(found, addr);
	if (strncmp(found, name, len) || found[len] != '+' ||
	    sscanf(found + len, "+%lx/", &off) != 1)
		return 0;
	return addr - off;
}

static int ue_ksym_missing(const char *name)
{
	pr_err("cannot load: kernel symbol %s not found\n", name);
	return -ENOENT;
}

/*
 * Kernel data: from kallsyms, or where it has none (no CONFIG_KALLSYMS_ALL)
 * from the System.map the module was built with (sysmap.h).
 */
#ifdef UE_SYSMAP
#define ue_ksym_data_addr ue_sysmap_addr

/*
 * The kernel's offset from where it was linked (KASLR): the run-time
 * address of each function the map has minus its address there. They must
 * agree, and sysmap.h then checks the map against this kernel's banner:
 * nothing of the map is used before.
 */
static int ue_ksyms_relocate_map(void)
{
	unsigned long addr, at, off = 0;
	const char *name;
	unsigned int i;

	for (i = 0; ue_sysmap_func(i, &name, &addr); i++) {
		at = ue_ksym_addr(name);
		if (!at)
			return ue_ksym_missing(name);
		if (!i)
			off = at - addr;
		else if (at - addr != off)
			return ue_sysmap_refuse("its functions are not where the kernel's are");
	}
	return ue_sysmap_relocate(off);
}
#else
#define ue_ksym_data_addr ue_ksym_addr
#endif

#define UE_KSYM_DATA(ptr, sym) ({					\
	unsigned long __a = ue_ksym_data_addr(#sym);			\
	if (__a)							\
		(ptr) = (typeof(ptr))__a;				\
	__a ? 0 : ue_ksym_missing(#sym);				\
})

#define UE_KSYM_FUNC(call, sym) ({					\
	unsigned long __a = ue_ksym_addr(#sym);				\
	if (__a)							\
		static_call_update(call, (typeof(sym) *)__a);		\
	__a ? 0 : ue_ksym_missing(#sym);				\
})

#ifdef UE_TEST_LAYOUT_SKEW
/*
 * The test rig's skewed build (Kbuild, UE_TEST_SKEW=1) also plays a kernel
 * that lacks a symbol we resolve: told a name, it asks for that too.
 */
static char *test_missing_symbol;
module_param(test_missing_symbol, charp, 0);

static int ue_ksym_test_missing(void)
{
	if (!test_missing_symbol || ue_ksym_addr(test_missing_symbol))
		return 0;
	return ue_ksym_missing(test_missing_symbol);
}
#else
static int ue_ksym_test_missing(void)
{
	return 0;
}
#endif

int ue_ksyms_resolve(void)
{
	int ret = ue_ksym_test_missing();

#ifdef UE_SYSMAP
	if (!ret)
		ret = ue_ksyms_relocate_map();
	if (ret)
		return ret;
#endif
	/* Every lookup runs, so that one load names everything missing. */
	ret |= UE_KSYM_DATA(ue_ksym_tracefs_mount, tracefs_mount);
	ret |= UE_KSYM_DATA(ue_ksym_event_mutex, event_mutex);
	ret |= UE_KSYM_DATA(ue_ksym_dyn_event_list, dyn_event_list);
	ret |= UE_KSYM_DATA(ue_ksym_dyn_event_ops_list, dyn_event_ops_list);
	ret |= UE_KSYM_DATA(ue_ksym_dyn_event_ops_mutex, dyn_event_ops_mutex);
#ifdef UE_PIN_EVENT_FILES
	ret |= UE_KSYM_DATA(ue_ksym_file_cachep, file_cachep);
#endif
	ret |= UE_KSYM_FUNC(ue_tracefs_create_file, tracefs_create_file);
	ret |= UE_KSYM_FUNC(ue_tracefs_remove, tracefs_remove);
	ret |= UE_KSYM_FUNC(ue_trace_add_event_call, trace_add_event_call);
	ret |= UE_KSYM_FUNC(ue_trace_remove_event_call, trace_remove_event_call);

	return ret ? -ENOENT : 0;
}
