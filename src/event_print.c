// SPDX-License-Identifier: GPL-2.0
/*
 * Text output of a user event in "trace": "<name>: field=value ...", the same
 * text as 6.12's print_event_fields() (kernel/trace/trace_output.c), on every
 * kernel. The core's printer does not exist before 6.12 and is IBT-sealed on
 * 6.12, so we print from our own field list.
 */
#include <linux/ctype.h>
#include <linux/trace_events.h>
#include <linux/trace_seq.h>

#include "compat/unaligned.h"
#include "event.h"

/* Where a __data_loc/__rel_loc field's data is, or false if out of range. */
static bool ue_loc_data(struct trace_iterator *iter, const struct ue_field *f,
			const void *pos, u32 *start, u32 *len)
{
	u32 loc = get_unaligned((const u32 *)pos);

	*start = loc & 0xffff;
	*len = loc >> 16;
	if (f->loc == UE_LOC_REL)
		*start += f->offset + sizeof(u32);
	return *start + *len <= iter->ent_size;
}

static void ue_print_loc(struct trace_iterator *iter, const struct ue_field *f,
			 const void *pos)
{
	const u8 *data;
	u32 start, len, i;

	if (!ue_loc_data(iter, f, pos, &start, &len)) {
		trace_seq_puts(&iter->seq, "<OVERFLOW>");
		return;
	}
	data = (const u8 *)iter->ent + start;
	if (f->is_string) {
		trace_seq_printf(&iter->seq, "%.*s", (int)len, data);
		return;
	}
	/* Other dynamic arrays: their bytes in hex. */
	for (i = 0; i < len; i++)
		trace_seq_printf(&iter->seq, i ? ",%02x" : "%02x", data[i]);
}

static void ue_print_value(struct trace_iterator *iter,
			   const struct ue_field *f, const void *pos)
{
	struct trace_seq *s = &iter->seq;

	if (f->loc != UE_LOC_NONE) {
		ue_print_loc(iter, f, pos);
		return;
	}
	if (f->array_len) {
		/* char[N], unsigned char[N]: a static string. */
		trace_seq_printf(s, "%.*s", (int)f->size, (const char *)pos);
		return;
	}
	switch (f->size) {
	case 1:
		if (isprint(*(const char *)pos))
			trace_seq_printf(s, "'%c'", *(const unsigned char *)pos);
		trace_seq_printf(s, "(%d)", *(const unsigned char *)pos);
		break;
	case 2:
		trace_seq_printf(s, "0x%x (%d)", get_unaligned((const u16 *)pos),
				 get_unaligned((const u16 *)pos));
		break;
	case 4:
		trace_seq_printf(s, "0x%x (%d)", get_unaligned((const u32 *)pos),
				 get_unaligned((const u32 *)pos));
		break;
	case 8:
		trace_seq_printf(s, "0x%llx (%lld)",
				 get_unaligned((const u64 *)pos),
				 get_unaligned((const s64 *)pos));
		break;
	default:
		trace_seq_puts(s, "<INVALID-SIZE>");
		break;
	}
}

enum print_line_t ue_event_print(struct trace_iterator *iter, int flags,
				 struct trace_event *event)
{
	struct trace_event_call *call =
		container_of(event, struct trace_event_call, event);
	struct ue_event *ev = call->data;
	const struct ue_field *f;
	u32 i;

	trace_seq_printf(&iter->seq, "%s:", ev->tp_name);
	if (!ev->fields.nr) {
		trace_seq_puts(&iter->seq, "No fields found\n");
		return trace_handle_return(&iter->seq);
	}
	for (i = 0; i < ev->fields.nr; i++) {
		f = &ev->fields.field[i];
		trace_seq_printf(&iter->seq, " %s=", f->name);
		if (f->offset + f->size > iter->ent_size)
			trace_seq_puts(&iter->seq, "<OVERFLOW>");
		else
			ue_print_value(iter, f, (const u8 *)iter->ent + f->offset);
	}
	trace_seq_putc(&iter->seq, '\n');
	return trace_handle_return(&iter->seq);
}
