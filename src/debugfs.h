/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UE_DEBUGFS_H
#define UE_DEBUGFS_H

void ue_debugfs_init(void);
void ue_debugfs_exit(void);

#endif /* UE_DEBUGFS_H */
