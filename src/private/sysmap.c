// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel data from the kernel's System.map, on kernels without
 * CONFIG_KALLSYMS_ALL: see sysmap.h. Built only there (Kbuild), as an
 * object of its own beside src/module.c: it alone includes the header
 * generated from the map. It calls nothing of the module's; private/ksyms.c
 * calls it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "sysmap.h"

struct ue_sysmap_sym {
	const char	*name;
	unsigned long	addr;	/* in the map: where the kernel was linked */
	unsigned long	next;	/* the next symbol's, so next - addr is the size */
};

/* ue_sysmap_data[], ue_sysmap_text[], UE_SYSMAP_PATH: scripts/sysmap.sh */
#include "ue_sysmap.h"

/* Where the kernel runs minus where it was linked; set once it is known. */
static unsigned long ue_sysmap_offset;

#ifdef UE_TEST_LAYOUT_SKEW
/*
 * The test rig's skewed build (Kbuild, UE_TEST_SKEW=1) also plays a
 * System.map that is not the kernel's: one whose first function is
 * test_anchor_skew bytes off, or all of whose addresses are
 * test_offset_skew bytes off (10-module.sh).
 */
static ulong test_anchor_skew;
module_param(test_anchor_skew, ulong, 0);
static ulong test_offset_skew;
module_param(test_offset_skew, ulong, 0);
#else
#define test_anchor_skew 0UL
#define test_offset_skew 0UL
#endif

static const struct ue_sysmap_sym *ue_sysmap_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ue_sysmap_data); i++)
		if (!strcmp(ue_sysmap_data[i].name, name))
			return &ue_sysmap_data[i];
	return NULL;
}

int ue_sysmap_refuse(const char *why)
{
	pr_err("cannot load: %s, which it was built with, is not this kernel's System.map (%s): rebuild the module for this kernel\n",
	       UE_SYSMAP_PATH, why);
	return -ENOEXEC;
}

/*
 * Whether the banner at @at is "Linux version <release> (...) <version>\n"
 * with this kernel's release and version, and ends within @size bytes.
 */
static bool ue_sysmap_banner_is_ours(unsigned long at, size_t size)
{
	static const char pre[] = "Linux version ";
	const struct new_utsname *uts = &init_uts_ns.name;
	size_t rlen = strlen(uts->release), vlen = strlen(uts->version);
	char buf[512];
	size_t len;

	size = min(size, sizeof(buf));
	if (copy_from_kernel_nofault(buf, (const void *)at, size))
		return false;
	len = strnlen(buf, size);
	if (len == size)
		return false;
	return len > sizeof(pre) - 1 + rlen + vlen + 2 &&
	       !memcmp(buf, pre, sizeof(pre) - 1) &&
	       !memcmp(buf + sizeof(pre) - 1, uts->release, rlen) &&
	       buf[sizeof(pre) - 1 + rlen] == ' ' &&
	       buf[len - vlen - 2] == ' ' &&
	       !memcmp(buf + len - vlen - 1, uts->version, vlen) &&
	       buf[len - 1] == '\n';
}

bool ue_sysmap_func(unsigned int i, const char **name, unsigned long *addr)
{
	if (i >= ARRAY_SIZE(ue_sysmap_text))
		return false;
	*name = ue_sysmap_text[i].name;
	*addr = ue_sysmap_text[i].addr - (i ? 0 : test_anchor_skew);
	return true;
}

int ue_sysmap_relocate(unsigned long offset)
{
	const struct ue_sysmap_sym *banner = ue_sysmap_find("linux_banner");

	offset += test_offset_skew;
	if (!banner ||
	    !ue_sysmap_banner_is_ours(banner->addr + offset,
				      banner->next - banner->addr))
		return ue_sysmap_refuse("linux_banner differs");
	ue_sysmap_offset = offset;
	return 0;
}

unsigned long ue_sysmap_addr(const char *name)
{
	const struct ue_sysmap_sym *sym = ue_sysmap_find(name);

	return sym ? sym->addr + ue_sysmap_offset : 0;
}

unsigned long ue_sysmap_size(const void *addr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ue_sysmap_data); i++)
		if (ue_sysmap_data[i].addr + ue_sysmap_offset ==
		    (unsigned long)addr)
			return ue_sysmap_data[i].next - ue_sysmap_data[i].addr;
	return 0;
}
