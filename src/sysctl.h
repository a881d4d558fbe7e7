/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UE_SYSCTL_H
#define UE_SYSCTL_H

/* kernel.user_events_max. */
void ue_sysctl_register(void);
void ue_sysctl_unregister(void);

#endif /* UE_SYSCTL_H */
