/* SPDX-License-Identifier: MIT */
/*
 * A remote TLB flush's IPI round (arch/x86/mm/tlb.c's flush_tlb_multi):
 * the flusher interrupts every other CPU in a mask that runs right now
 * and waits until each has run the handler.  lrulab sends real IPIs for
 * it: membarrier(2)'s CPU-targeted expedited command interrupts the
 * target processor, if it runs one of this process's threads, and
 * returns once the handler has run there, which is the round a flush
 * costs both sides (with several targets, its whole-process command:
 * lib/tlb.c).  The model has no TLB, so nothing is flushed: what is
 * reproduced is the interruption and the wait.
 */
#ifndef LRULAB_TLBFLUSH_H
#define LRULAB_TLBFLUSH_H

#include <lrulab/cpu.h>

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define CPUMASK_LONGS		(LRULAB_MAX_CPUS / BITS_PER_LONG)

struct cpumask {
	unsigned long bits[CPUMASK_LONGS];
};

static inline void cpumask_set_cpu(int cpu, struct cpumask *m)
{
	__atomic_fetch_or(&m->bits[cpu / BITS_PER_LONG], 1UL << (cpu % BITS_PER_LONG),
			  __ATOMIC_RELAXED);
}
static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
	return (__atomic_load_n(&m->bits[cpu / BITS_PER_LONG], __ATOMIC_RELAXED) >>
		(cpu % BITS_PER_LONG)) & 1;
}
/* @dst |= @src; @dst is the caller's own */
static inline void cpumask_or(struct cpumask *dst, const struct cpumask *src)
{
	int i;

	for (i = 0; i < CPUMASK_LONGS; i++)
		dst->bits[i] |= __atomic_load_n(&src->bits[i], __ATOMIC_RELAXED);
}
static inline void cpumask_clear(struct cpumask *m)
{
	int i;

	for (i = 0; i < CPUMASK_LONGS; i++)
		m->bits[i] = 0;
}
/* A CPU of @m other than @cpu, or -1. */
int cpumask_any_but(const struct cpumask *m, int cpu);
/* The CPUs of @m other than @cpu. */
int cpumask_weight_but(const struct cpumask *m, int cpu);

/*
 * The round to every CPU of @mask but the caller's, none where the mask
 * names no other: counts a remote flush, and one received for each of
 * those CPUs that runs now (a sleeping one is lazy and the kernel skips
 * it), each of which gets an IPI.  Returns the CPUs interrupted.
 */
int flush_tlb_multi(const struct cpumask *mask);

/*
 * Real IPIs on (the default, where membarrier can send them) or off: a
 * recording for the predictor turns them off, as its engine costs each
 * round at the machine it simulates.  tlb_ipi_mode() names what a run
 * does, for its header: "membarrier" or "none (why)".
 */
void tlb_ipi_enable(bool on);
const char *tlb_ipi_mode(void);

#endif /* LRULAB_TLBFLUSH_H */
