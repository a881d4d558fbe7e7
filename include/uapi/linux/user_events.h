/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * user_events ABI, as provided by the user-events-dkms module.
 *
 * Layout-compatible with the upstream Linux 6.10+ <linux/user_events.h>
 * (the "remote write" ABI of 6.4 plus the 6.10 registration flags), so that
 * a program built against either header works with either implementation.
 * Usable from any C program with "-I include/uapi" and the system's
 * <linux/types.h> and <linux/ioctl.h>.
 *
 * The include guard differs from upstream's on purpose: the module must never
 * pick up a kernel's own copy (Debian 6.1 ships the old, pre-6.4 ABI under
 * the same name), and a clash between the two then fails loudly.
 */
#ifndef UE_UAPI_LINUX_USER_EVENTS_H
#define UE_UAPI_LINUX_USER_EVENTS_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Trace system holding single-format events. */
#define USER_EVENTS_SYSTEM "user_events"

/* Trace system holding USER_EVENT_REG_MULTI_FORMAT events (name.<hex id>). */
#define USER_EVENTS_MULTI_SYSTEM "user_events_multi"

/* Prefix of user event commands written to dynamic_events. */
#define USER_EVENTS_PREFIX "u:"

/*
 * Value of a __data_loc or __rel_loc field: the data's size in the upper
 * 16 bits, its offset in the lower 16 bits.
 */
#define DYN_LOC(offset, size) ((size) << 16 | (offset))

/* Flags of struct user_reg. */
enum user_reg_flag {
	/* The event stays after its last user is gone (needs CAP_PERFMON). */
	USER_EVENT_REG_PERSIST		= 1U << 0,

	/* Register a format variant: <name>.<hex id> in user_events_multi. */
	USER_EVENT_REG_MULTI_FORMAT	= 1U << 1,

	/* This bit and every bit above it are invalid. */
	USER_EVENT_REG_MAX		= 1U << 2,
};

/* Argument of DIAG_IOCSREG: 28 bytes, packed. */
struct user_reg {
	/* In: size of this structure as the caller knows it (>= 28). */
	__u32	size;

	/* In: bit of the enable word the kernel sets while the event is enabled. */
	__u8	enable_bit;

	/* In: size of the enable word, 4 or 8 (8 on 64-bit kernels only). */
	__u8	enable_size;

	/* In: USER_EVENT_REG_* flags. */
	__u16	flags;

	/* In: address of the enable word in the caller's memory. */
	__u64	enable_addr;

	/* In: pointer to the command, "name[ field;field...]". */
	__u64	name_args;

	/* Out: index to put in front of each write() for this event. */
	__u32	write_index;
} __attribute__((__packed__));

/* Argument of DIAG_IOCSUNREG: 16 bytes, packed. */
struct user_unreg {
	/* In: size of this structure as the caller knows it (>= 16). */
	__u32	size;

	/* In: bit that was given as enable_bit at registration. */
	__u8	disable_bit;

	/* Reserved, must be zero. */
	__u8	__reserved;

	/* Reserved, must be zero. */
	__u16	__reserved2;

	/* In: address that was given as enable_addr at registration. */
	__u64	disable_addr;
} __attribute__((__packed__));

#define DIAG_IOC_MAGIC '*'

/* Register an event; the argument is a struct user_reg. */
#define DIAG_IOCSREG _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg *)

/* Delete an event by name; the argument is a NUL-terminated string. */
#define DIAG_IOCSDEL _IOW(DIAG_IOC_MAGIC, 1, char *)

/* Stop updating an enable bit; the argument is a struct user_unreg. */
#define DIAG_IOCSUNREG _IOW(DIAG_IOC_MAGIC, 2, struct user_unreg *)

#endif /* UE_UAPI_LINUX_USER_EVENTS_H */
