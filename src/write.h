/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UE_WRITE_H
#define UE_WRITE_H

#include <linux/uio.h>

#include "event.h"

/* ue_write_event() once the event is known to be enabled. */
int ue_write_enabled(struct ue_event *ev, struct iov_iter *i);

/*
 * Record the payload left in @i (the write index already consumed) for @ev,
 * which the caller keeps referenced: 0 or a negative errno, as upstream's
 * user_events_write_core() in kernel/trace/trace_events_user.c.
 * Inline: a disabled event's write costs no further call.
 */
static inline int ue_write_event(struct ue_event *ev, struct iov_iter *i)
{
	if (iov_iter_count(i) < ev->fields.min_size)
		return -EINVAL;
	if (!ue_event_enabled(ev))
		return -EBADF;
	return ue_write_enabled(ev, i);
}

int ue_write_init(void);
void ue_write_exit(void);

#endif /* UE_WRITE_H */
