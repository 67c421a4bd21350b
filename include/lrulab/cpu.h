/* SPDX-License-Identifier: MIT */
/*
 * Model CPUs.  A model CPU is a thread that called cpu_enter(); it owns a
 * slot in every per-CPU array and is (optionally) pinned to a processor.
 * More model CPUs than processors is allowed and reported as
 * oversubscribed, because the kernel never preempts a lock holder and an
 * oversubscribed run can.
 */
#ifndef LRULAB_CPU_H
#define LRULAB_CPU_H

#include <lrulab/types.h>

#define LRULAB_MAX_CPUS 256
/* per-CPU array elements are padded to whole lines: no false sharing */
#define PCPU_STRIDE(sz) (((sz) + L1_CACHE_BYTES - 1) & ~(size_t)(L1_CACHE_BYTES - 1))

extern int nr_cpu_ids;
extern __thread int lrulab_cpu;

static inline int smp_processor_id(void)
{
	return lrulab_cpu;
}

int lrulab_cpus_init(int nr_cpus);
void lrulab_cpus_exit(void);
/* Bind the calling thread to model CPU @cpu (pin it if @pin); registers
 * the thread with RCU.  Returns 0, -EINVAL or -EBUSY. */
int cpu_enter(int cpu, bool pin);
void cpu_exit(void);
int lrulab_nr_processors(void);
bool lrulab_oversubscribed(void);

#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)

void *__alloc_percpu(size_t size);
void free_percpu(void *p);
#define alloc_percpu(type) ((type *)__alloc_percpu(sizeof(type)))
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * PCPU_STRIDE(sizeof(*(p)))))
#define this_cpu_ptr(p) per_cpu_ptr(p, smp_processor_id())

#endif /* LRULAB_CPU_H */
