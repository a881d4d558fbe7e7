// SPDX-License-Identifier: GPL-2.0
/*
 * Our include/uapi/linux/user_events.h against the upstream 6.10+ ABI: every
 * size, offset, flag and ioctl number.
 */
#include <stddef.h>
#include <linux/user_events.h>

#include "ue_test.h"

#define FSIZE(type, member) sizeof(((type *)0)->member)

int main(void)
{
	ue_suite = "uapi";

	UE_EQ("user_reg.sizeof", sizeof(struct user_reg), 28);
	UE_EQ("user_reg.size.offset", offsetof(struct user_reg, size), 0);
	UE_EQ("user_reg.size.size", FSIZE(struct user_reg, size), 4);
	UE_EQ("user_reg.enable_bit.offset", offsetof(struct user_reg, enable_bit), 4);
	UE_EQ("user_reg.enable_bit.size", FSIZE(struct user_reg, enable_bit), 1);
	UE_EQ("user_reg.enable_size.offset", offsetof(struct user_reg, enable_size), 5);
	UE_EQ("user_reg.enable_size.size", FSIZE(struct user_reg, enable_size), 1);
	UE_EQ("user_reg.flags.offset", offsetof(struct user_reg, flags), 6);
	UE_EQ("user_reg.flags.size", FSIZE(struct user_reg, flags), 2);
	UE_EQ("user_reg.enable_addr.offset", offsetof(struct user_reg, enable_addr), 8);
	UE_EQ("user_reg.enable_addr.size", FSIZE(struct user_reg, enable_addr), 8);
	UE_EQ("user_reg.name_args.offset", offsetof(struct user_reg, name_args), 16);
	UE_EQ("user_reg.name_args.size", FSIZE(struct user_reg, name_args), 8);
	UE_EQ("user_reg.write_index.offset", offsetof(struct user_reg, write_index), 24);
	UE_EQ("user_reg.write_index.size", FSIZE(struct user_reg, write_index), 4);

	UE_EQ("user_unreg.sizeof", sizeof(struct user_unreg), 16);
	UE_EQ("user_unreg.size.offset", offsetof(struct user_unreg, size), 0);
	UE_EQ("user_unreg.size.size", FSIZE(struct user_unreg, size), 4);
	UE_EQ("user_unreg.disable_bit.offset", offsetof(struct user_unreg, disable_bit), 4);
	UE_EQ("user_unreg.disable_bit.size", FSIZE(struct user_unreg, disable_bit), 1);
	UE_EQ("user_unreg.__reserved.offset", offsetof(struct user_unreg, __reserved), 5);
	UE_EQ("user_unreg.__reserved.size", FSIZE(struct user_unreg, __reserved), 1);
	UE_EQ("user_unreg.__reserved2.offset", offsetof(struct user_unreg, __reserved2), 6);
	UE_EQ("user_unreg.__reserved2.size", FSIZE(struct user_unreg, __reserved2), 2);
	UE_EQ("user_unreg.disable_addr.offset", offsetof(struct user_unreg, disable_addr), 8);
	UE_EQ("user_unreg.disable_addr.size", FSIZE(struct user_unreg, disable_addr), 8);

	UE_EQ("ioctl.DIAG_IOCSREG", DIAG_IOCSREG, 0xC0082A00u);
	UE_EQ("ioctl.DIAG_IOCSDEL", DIAG_IOCSDEL, 0x40082A01u);
	UE_EQ("ioctl.DIAG_IOCSUNREG", DIAG_IOCSUNREG, 0x40082A02u);
	UE_EQ("ioctl.DIAG_IOC_MAGIC", DIAG_IOC_MAGIC, '*');

	UE_EQ("flag.PERSIST", USER_EVENT_REG_PERSIST, 1);
	UE_EQ("flag.MULTI_FORMAT", USER_EVENT_REG_MULTI_FORMAT, 2);
	UE_EQ("flag.MAX", USER_EVENT_REG_MAX, 4);

	UE_STREQ("const.USER_EVENTS_SYSTEM", USER_EVENTS_SYSTEM, "user_events");
	UE_STREQ("const.USER_EVENTS_MULTI_SYSTEM", USER_EVENTS_MULTI_SYSTEM,
		 "user_events_multi");
	UE_STREQ("const.USER_EVENTS_PREFIX", USER_EVENTS_PREFIX, "u:");
	UE_EQ("const.DYN_LOC", DYN_LOC(3, 5), 0x50003);

	return ue_failures ? 1 : 0;
}
