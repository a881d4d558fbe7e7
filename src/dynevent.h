/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User events in the kernel's dynamic_events file: "u:" lines create them,
 * and every user event is listed and deletable there.
 */
#ifndef UE_DYNEVENT_H
#define UE_DYNEVENT_H

struct ue_event;

/* Join and leave dyn_event_list; event_mutex held. */
void ue_dyn_event_add(struct ue_event *ev);
void ue_dyn_event_remove(struct ue_event *ev);

/* Add our type to the core's list at load, remove it at unload. */
void ue_dyn_init(void);
void ue_dyn_exit(void);

#endif /* UE_DYNEVENT_H */
