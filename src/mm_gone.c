// SPDX-License-Identifier: GPL-2.0
/*
 * The probes that tell enabler.c that an address space died
 * (compat/mm_gone.h). They stay registered while the module is loaded and
 * return at once while no address space is tracked.
 */
#include "compat/mm_gone.h"
#include "enabler.h"
#include "kernel_tp.h"

static struct ue_kernel_probe ue_mm_gone_probes[] = UE_MM_GONE_PROBES;

int ue_mm_gone_init(void)
{
	UE_MM_GONE_PROBE_CHECK();
	return ue_kernel_probes_register(ue_mm_gone_probes,
					 ARRAY_SIZE(ue_mm_gone_probes));
}

void ue_mm_gone_exit(void)
{
	ue_kernel_probes_unregister(ue_mm_gone_probes,
				    ARRAY_SIZE(ue_mm_gone_probes));
}
