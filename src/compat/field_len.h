/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The length N of a char[N] field, in the tracing core's own entry for it.
 *
 * 5.10:      struct ftrace_event_field has no len; the format file prints the
 *            type's own "[N]": "char name[16]".
 * 6.1-7.3:   the format file prints "name[len]", or "name[]" where len is 0,
 *            as trace_define_field() leaves it (only the core's static
 *            trace_define_field_ext() sets it). The entry is the core's
 *            private struct ftrace_event_field (kernel/trace/trace.h), whose
 *            members up to len are at the same places from 6.1 to 7.3
 *            (is_signed an int on 6.1, bit-fields in one from 6.12). Each
 *            entry is checked against what was just defined before len is
 *            written; where it differs, len stays 0 and the format shows
 *            "name[]", nothing worse.
 *
 * A version number rather than a probe: len came with the struct's 6.1
 * layout, which no stable kernel backports.
 */
#ifndef UE_COMPAT_FIELD_LEN_H
#define UE_COMPAT_FIELD_LEN_H

#include <linux/list.h>
#include <linux/trace_events.h>
#include "version.h"

#if UE_LINUX_AT_LEAST(6, 1)
struct ue_core_field {
	struct list_head	link;
	const char		*name;
	const char		*type;
	int			filter_type;
	int			offset;
	int			size;
	unsigned int		is_signed;
	int			len;
};

/* After trace_define_field(@call, @type, @name, @offset, @size, ...). */
static inline void ue_field_set_len(struct trace_event_call *call,
				    const char *type, const char *name,
				    int offset, int size, int len)
{
	struct ue_core_field *f = list_first_entry(&call->class->fields,
						   struct ue_core_field, link);

	if (f->name == name && f->type == type && f->offset == offset &&
	    f->size == size && !f->len)
		f->len = len;
}
#else
static inline void ue_field_set_len(struct trace_event_call *call,
				    const char *type, const char *name,
				    int offset, int size, int len)
{
}
#endif

#endif /* UE_COMPAT_FIELD_LEN_H */
