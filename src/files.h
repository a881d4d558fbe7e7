/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UE_FILES_H
#define UE_FILES_H

#include <linux/fs.h>

/* Modes of upstream's TRACE_MODE_WRITE and TRACE_MODE_READ. */
#define UE_MODE_DATA	0640
#define UE_MODE_STATUS	0440

extern const struct file_operations ue_data_fops;
extern const struct file_operations ue_status_fops;

int ue_files_create(void);
void ue_files_remove(void);

#endif /* UE_FILES_H */
