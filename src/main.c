// SPDX-License-Identifier: GPL-2.0
/*
 * user-events-dkms: the Linux user_events tracing ABI as a loadable module,
 * for kernels built without CONFIG_USER_EVENTS.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/utsname.h>

#include "compat/ksyms.h"
#include "files.h"

static int __init ue_module_init(void)
{
	int ret;

	ret = ue_ksyms_resolve();
	if (ret)
		return ret;
	ret = ue_files_create();
	if (ret)
		return ret;

	pr_info("user-events-dkms %s loaded on Linux %s\n", UE_VERSION,
		init_utsname()->release);
	return 0;
}

static void __exit ue_module_exit(void)
{
	ue_files_remove();
	pr_info("unloaded\n");
}

module_init(ue_module_init);
module_exit(ue_module_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(UE_VERSION);
MODULE_AUTHOR("user-events-dkms developers");
MODULE_DESCRIPTION("user_events tracing ABI (user_events_data, user_events_status) for kernels without CONFIG_USER_EVENTS");
