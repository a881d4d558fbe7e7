/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UE_WRITE_H
#define UE_WRITE_H

#include <linux/uio.h>

struct ue_event;

/*
 * Record the payload left in @i (the write index already consumed) for @ev,
 * which the caller keeps referenced: 0 or a negative errno (spec 1.8).
 */
int ue_write_event(struct ue_event *ev, struct iov_iter *i);

int ue_write_init(void);
void ue_write_exit(void);

#endif /* UE_WRITE_H */
