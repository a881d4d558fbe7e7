// SPDX-License-Identifier: GPL-2.0
/*
 * user-events-dkms: the Linux user_events tracing ABI as a loadable module,
 * for kernels built without CONFIG_USER_EVENTS.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/utsname.h>

#include "private/ksyms.h"
#include "private/verify.h"
#include "debugfs.h"
#include "dynevent.h"
#include "enabler.h"
#include "event.h"
#include "files.h"
#include "sysctl.h"
#include "write.h"

/* The event layer's calls up into the layers above it (event.h). */
static const struct ue_event_hooks ue_event_hooks = {
	.added = ue_dyn_event_add,
	.removed = ue_dyn_event_remove,
	.status_changed = ue_enablers_update,
};

static int __init ue_module_init(void)
{
	int ret;

	/* A bad gid= or mode= (files.c) has said so; refuse before anything. */
	ret = ue_files_params_ok();
	if (ret)
		return ret;
	ret = ue_ksyms_resolve();
	if (ret)
		return ret;
	ret = ue_kernel_verify();
	if (ret)
		return ret;
	ret = ue_write_init();
	if (ret)
		return ret;
	ret = ue_events_init(&ue_event_hooks);
	if (ret)
		goto fail_events;
	ret = ue_enablers_init();
	if (ret)
		goto fail_enablers;
	ret = ue_mm_gone_init();
	if (ret)
		goto fail_mm_gone;
	ret = ue_fork_init();
	if (ret)
		goto fail_fork;
	/*
	 * From here on user space can reach us. The files come first: their
	 * creation refuses a kernel that already has user_events, whose "u:"
	 * type is then left the only one.
	 */
	ret = ue_files_create();
	if (ret)
		goto fail_files;
	/*
	 * Nothing fails from here on: once the files are visible, an fd or an
	 * event may point into the module, which a failed init would free
	 * under them. The limit comes after the files so that a second copy
	 * of the module is refused by the file check, with its one message,
	 * before its sysctl could clash with ours.
	 */
	ue_sysctl_register();
	ue_debugfs_init();
	/* Last: "u:" lines in dynamic_events reach us from here on. */
	ue_dyn_init();

	pr_info("user-events-dkms %s loaded on Linux %s\n", UE_VERSION,
		init_utsname()->release);
	return 0;

fail_files:
	ue_fork_exit();
fail_fork:
	ue_mm_gone_exit();
fail_mm_gone:
	ue_enablers_exit();
fail_enablers:
	ue_events_exit();
fail_events:
	ue_write_exit();
	return ret;
}

/*
 * Runs only when nothing holds the module: no file is open and no event
 * exists (each pins the module).
 */
static void __exit ue_module_exit(void)
{
	/*
	 * The files first: from the moment rmmod committed until they are
	 * gone, an open() of one finds its owner going, which the kernel
	 * answers with ENODEV and a WARN (do_dentry_open()). tracefs has no
	 * proxy operations as debugfs has, so a module cannot close that
	 * window; it can keep it short.
	 */
	ue_files_remove();
	ue_dyn_exit();
	ue_debugfs_exit();
	ue_sysctl_unregister();
	/* Its task works, like the fork's, are waited for by ue_fork_exit(). */
	ue_mm_gone_exit();
	ue_fork_exit();
	ue_enablers_exit();
	ue_events_exit();
	ue_write_exit();
	pr_info("unloaded\n");
}

module_init(ue_module_init);
module_exit(ue_module_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(UE_VERSION);
MODULE_AUTHOR("user-events-dkms developers");
MODULE_DESCRIPTION("user_events tracing ABI (user_events_data, user_events_status) for kernels without CONFIG_USER_EVENTS");
