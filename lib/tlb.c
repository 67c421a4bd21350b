// SPDX-License-Identifier: MIT
/*
 * The IPI round of a remote TLB flush (<lrulab/tlbflush.h>), with real
 * IPIs.  One target: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
 * MEMBARRIER_CMD_FLAG_CPU) interrupts its processor and waits for the
 * handler, as smp_call_function_many_cond() waits for flush_tlb_func().
 * More: one MEMBARRIER_CMD_PRIVATE_EXPEDITED, which sends to every
 * processor running a thread of this process before it waits for any,
 * as the kernel does; a processor running a model CPU outside the mask
 * (a kswapd, a thread of another mm) is interrupted too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lrulab/tlbflush.h>
#include <lrulab/vmstat.h>

static pthread_once_t ipi_once = PTHREAD_ONCE_INIT;
static bool ipi_ready;			/* registered: IPIs can be sent */
static bool ipi_on = true;
static char ipi_why[96] = "none (not registered)";

static long membarrier(int cmd, unsigned int flags, int cpu)
{
	return syscall(__NR_membarrier, cmd, flags, cpu);
}

static void ipi_register(void)
{
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0) ||
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0)) {
		snprintf(ipi_why, sizeof(ipi_why), "none (membarrier: %s)", strerror(errno));
		return;
	}
	ipi_ready = true;
}

void tlb_ipi_enable(bool on)
{
	__atomic_store_n(&ipi_on, on, __ATOMIC_RELAXED);
}

const char *tlb_ipi_mode(void)
{
	pthread_once(&ipi_once, ipi_register);
	if (!ipi_ready)
		return ipi_why;
	return __atomic_load_n(&ipi_on, __ATOMIC_RELAXED) ? "membarrier" :
	       "none (a recording: the predictor costs them)";
}

/* Word @i of @m without @cpu's bit: a word at a time, once per unmapped page. */
static unsigned long word_but(const struct cpumask *m, int i, int cpu)
{
	unsigned long w = __atomic_load_n(&m->bits[i], __ATOMIC_RELAXED);

	if (cpu >= 0 && cpu / BITS_PER_LONG == i)
		w &= ~(1UL << (cpu % BITS_PER_LONG));
	return w;
}

int cpumask_any_but(const struct cpumask *m, int cpu)
{
	int i;

	for (i = 0; i < CPUMASK_LONGS; i++) {
		unsigned long w = word_but(m, i, cpu);

		if (w)
			return i * BITS_PER_LONG + __builtin_ctzl(w);
	}
	return -1;
}

int cpumask_weight_but(const struct cpumask *m, int cpu)
{
	int i, n = 0;

	for (i = 0; i < CPUMASK_LONGS; i++)
		n += __builtin_popcountl(word_but(m, i, cpu));
	return n;
}

/* A CPU whose thread sleeps (or that has none) is lazy: nothing to flush. */
static bool cpu_runs(int cpu)
{
	return __atomic_load_n(&cpu_states[cpu].state, __ATOMIC_ACQUIRE) & CPU_ACTIVE;
}

/* The round to @sent running targets, @last the one when alone. */
static void ipi_send(int sent, int last)
{
	int proc = cpu_processor(last);

	if (!sent || !__atomic_load_n(&ipi_on, __ATOMIC_RELAXED))
		return;
	pthread_once(&ipi_once, ipi_register);
	if (!ipi_ready)
		return;
	if (sent > 1)
		membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	else if (proc >= 0)
		membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, MEMBARRIER_CMD_FLAG_CPU, proc);
}

int flush_tlb_multi(const struct cpumask *mask)
{
	int self = smp_processor_id(), cpu, sent = 0, last = -1;

	/* flush_tlb_mm_range's test: no other CPU, a local flush alone */
	if (cpumask_any_but(mask, self) < 0)
		return 0;
	count_vm_event(NR_TLB_REMOTE_FLUSH);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (cpu == self || !cpumask_test_cpu(cpu, mask) || !cpu_runs(cpu))
			continue;
		last = cpu;
		sent++;
	}
	ipi_send(sent, last);
	count_vm_events(NR_TLB_REMOTE_FLUSH_RECEIVED, sent);
	return sent;
}
