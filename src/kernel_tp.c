// SPDX-License-Identifier: GPL-2.0
/* Probes on the kernel's own tracepoints, found by name (kernel_tp.h). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>
#include <linux/tracepoint.h>

#include "kernel_tp.h"

struct ue_tp_lookup {
	struct ue_kernel_probe	*p;
	unsigned int		n;
};

static void ue_tp_match(struct tracepoint *tp, void *priv)
{
	struct ue_tp_lookup *l = priv;
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(tp->name, l->p[i].name))
			l->p[i].tp = tp;
}

int ue_kernel_probes_register(struct ue_kernel_probe *p, unsigned int n)
{
	struct ue_tp_lookup l = { .p = p, .n = n };
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++)
		p[i].tp = NULL;
	for_each_kernel_tracepoint(ue_tp_match, &l);
	for (i = 0; i < n; i++) {
		if (!p[i].tp) {
			pr_err("cannot load: tracepoint %s not found\n",
			       p[i].name);
			ret = -ENOENT;
			break;
		}
		ret = tracepoint_probe_register(p[i].tp, p[i].probe, NULL);
		if (ret) {
			pr_err("cannot load: %s probe: %d\n", p[i].name, ret);
			break;
		}
	}
	/* The first i are registered. */
	if (ret)
		ue_kernel_probes_unregister(p, i);
	return ret;
}

void ue_kernel_probes_unregister(struct ue_kernel_probe *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		tracepoint_probe_unregister(p[i].tp, p[i].probe, NULL);
	tracepoint_synchronize_unregister();
}
