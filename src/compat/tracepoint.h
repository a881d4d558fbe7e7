/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a tracepoint has probes: the enable count of its static key, read
 * on the write path of every event, so it must stay one inline load.
 *
 * Up to 6.12 (5.10, 6.1, 6.12 here): tracepoint.key is a struct static_key.
 * 7.2 and 7.3 (Debian's unstable and trixie-backports): it is a struct
 *   static_key_false, which wraps a struct static_key as its only member.
 *   Between 6.12 and 7.2 the kernel moved tracepoints to the static_branch
 *   API; the exact release was not checked against the kernels between.
 *
 * Rather than a version number, the type of the member is tested: both
 * layouts begin with the struct static_key, which is what the kernel's own
 * static_key_enabled() casts to. That macro is not used because, with
 * CONFIG_JUMP_LABEL, it calls the out-of-line static_key_count(). The count
 * is read as upstream user_events reads it: > 0 is enabled; -1, a first
 * enable still patching code, counts as not yet enabled.
 */
#ifndef UE_COMPAT_TRACEPOINT_H
#define UE_COMPAT_TRACEPOINT_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/jump_label.h>
#include <linux/tracepoint.h>

#define UE_TP_KEY_IS(tp, type) \
	__builtin_types_compatible_p(typeof((tp)->key), type)

static __always_inline bool ue_tp_enabled(struct tracepoint *tp)
{
	BUILD_BUG_ON(!UE_TP_KEY_IS(tp, struct static_key) &&
		     !UE_TP_KEY_IS(tp, struct static_key_false));
	return atomic_read(&((struct static_key *)&tp->key)->enabled) > 0;
}

#endif /* UE_COMPAT_TRACEPOINT_H */
