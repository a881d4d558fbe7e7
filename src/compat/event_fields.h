/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct trace_event_fields (include/linux/trace_events.h), whose members are
 * const, so an entry is built from a compound literal.
 *
 * 5.10:  no .len; the format file prints "char name[N]" from the type.
 * 6.1+:  .len, printed as the N of "char name[N]" for array types. Upstream
 *        user_events leaves it uninitialised (spec 1.12); we set it.
 * 6.12:  is_signed and needs_test become bit-fields (no change here).
 */
#ifndef UE_COMPAT_EVENT_FIELDS_H
#define UE_COMPAT_EVENT_FIELDS_H

#include <linux/string.h>
#include <linux/trace_events.h>
#include "version.h"

/* One packed field (align 1); the core computes the filter type. */
static inline void ue_set_event_field(struct trace_event_fields *dst,
				      const char *type, const char *name,
				      int size, int is_signed, int array_len)
{
	struct trace_event_fields f = {
		.type = type,
		.name = name,
		.size = size,
		.align = 1,
		.is_signed = is_signed,
		.filter_type = FILTER_OTHER,
#if UE_LINUX_AT_LEAST(6, 1)
		.len = array_len,
#endif
	};

	memcpy(dst, &f, sizeof(f));
}

#endif /* UE_COMPAT_EVENT_FIELDS_H */
