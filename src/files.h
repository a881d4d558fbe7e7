/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UE_FILES_H
#define UE_FILES_H

#include <linux/fs.h>

/*
 * Upstream's TRACE_MODE_WRITE, user_events_data's mode unless mode= says
 * otherwise; user_events_status has its read bits (TRACE_MODE_READ, 0440).
 */
#define UE_MODE_DATA	0640
#define UE_MODE_DATA_GROUP	0660

extern const struct file_operations ue_data_fops;
extern const struct file_operations ue_status_fops;

int ue_files_params_ok(void);
int ue_files_create(void);
void ue_files_remove(void);

#endif /* UE_FILES_H */
