// SPDX-License-Identifier: GPL-2.0
/* Per-CPU scratch areas: see hwt_scratch.h. */
#include <linux/percpu.h>
#include <linux/slab.h>

#include "hwt_scratch.h"

static DEFINE_PER_CPU(void *, hwt_scratch);
static DEFINE_PER_CPU(int, hwt_scratch_busy);	/* this CPU only */

int hwt_scratch_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		void *s = kmalloc_node(HWT_SCRATCH_SIZE, GFP_KERNEL, cpu_to_node(cpu));

		if (!s) {
			hwt_scratch_exit();
			return -ENOMEM;
		}
		per_cpu(hwt_scratch, cpu) = s;
	}
	return 0;
}

void hwt_scratch_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		kfree(per_cpu(hwt_scratch, cpu));
		per_cpu(hwt_scratch, cpu) = NULL;
	}
}

void *hwt_scratch_get(void)
{
	if (this_cpu_inc_return(hwt_scratch_busy) != 1) {
		this_cpu_dec(hwt_scratch_busy);
		return NULL;
	}
	return this_cpu_read(hwt_scratch);
}

void hwt_scratch_put(void)
{
	this_cpu_dec(hwt_scratch_busy);
}
