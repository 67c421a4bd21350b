/* SPDX-License-Identifier: MIT */
/*
 * Model CPUs.  A model CPU is a thread that called cpu_enter(); it owns a
 * slot in every per-CPU area and is (optionally) pinned to a processor.
 * More model CPUs than processors is allowed and reported as
 * oversubscribed, because the kernel never preempts a lock holder and an
 * oversubscribed run can.
 *
 * Per-CPU data is touched by the CPU that owns it, as in a kernel without
 * PREEMPT_RT.  Work on another CPU's data is queued to that CPU
 * (include/lrulab/workqueue.h), which runs it at a scheduling point; a
 * CPU whose thread sleeps or that has no thread at all is "not running"
 * and its work is run for it by whoever waits for the work.  The state
 * word below says which it is.
 */
#ifndef LRULAB_CPU_H
#define LRULAB_CPU_H

#include <lrulab/types.h>

#define LRULAB_MAX_CPUS 256

struct work_struct;

/*
 * Every CPU's per-CPU area is a unit of its own, PCPU_UNIT_SIZE apart, as
 * the kernel's per-CPU allocator lays them out: one CPU's variables are
 * packed together in its unit, and no two CPUs' data ever share a line or
 * a 128-byte prefetch pair.  Units are reserved, not committed: only the
 * pages in use cost memory.
 */
#define PCPU_UNIT_SIZE	(4UL << 20)

extern int nr_cpu_ids;
extern __thread int lrulab_cpu;

static inline int smp_processor_id(void)
{
	return lrulab_cpu;
}

int lrulab_cpus_init(int nr_cpus);
void lrulab_cpus_exit(void);
/*
 * Bind the calling thread to model CPU @cpu (pin it if @pin); registers
 * the thread with RCU.  Returns 0, -EINVAL or -EBUSY.  Work queued on
 * the CPU while it had no thread runs before this returns.
 */
int cpu_enter(int cpu, bool pin);
/* Runs the CPU's queued work, then leaves it. */
void cpu_exit(void);
int lrulab_nr_processors(void);
/* The processor model CPU @cpu's thread is pinned to, or -1: not pinned. */
int cpu_processor(int cpu);
/* More model CPUs than processors: decided in lrulab_cpus_init(). */
bool lrulab_oversubscribed(void);

#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)

/*
 * CPU state.  CPU_OWNED: a thread has entered it.  CPU_ACTIVE: someone
 * executes as this CPU right now - its own thread, or a thread that runs
 * its queued work while it is not running.  Only the thread that set
 * CPU_ACTIVE touches the CPU's per-CPU data.
 */
#define CPU_OWNED	1U
#define CPU_ACTIVE	2U

struct cpu_state {
	unsigned int state;
	unsigned int nr_pending;	/* work queued, not yet taken */
	struct work_struct *head, **tail;	/* under qlock */
	int qlock;			/* a test-and-set word; work queues are cold */
	unsigned long nr_work_run;	/* by this CPU's thread or for it */
	int processor;			/* the one it is pinned to, or -1 */
} __attribute__((aligned(128)));

extern struct cpu_state cpu_states[LRULAB_MAX_CPUS];

void *__alloc_percpu(size_t size);
void free_percpu(void *p);
#define alloc_percpu(type) ((type *)__alloc_percpu(sizeof(type)))
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * PCPU_UNIT_SIZE))
#define this_cpu_ptr(p) per_cpu_ptr(p, smp_processor_id())
/* Bytes of each unit in use, for tests and reports. */
size_t pcpu_unit_used(void);

#endif /* LRULAB_CPU_H */
