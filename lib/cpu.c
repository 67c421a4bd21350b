// SPDX-License-Identifier: MIT
/*
 * Model CPUs: a thread becomes CPU n by cpu_enter(n).  Per-CPU arrays are
 * indexed by the thread-local CPU number; every element starts on its own
 * cache line so CPUs never false-share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

#include <lrulab/cpu.h>

int nr_cpu_ids;
__thread int lrulab_cpu = -1;

static int cpu_owner[LRULAB_MAX_CPUS];	/* 1 while a thread is CPU n */

int lrulab_nr_processors(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

bool lrulab_oversubscribed(void)
{
	return nr_cpu_ids > lrulab_nr_processors();
}

int lrulab_cpus_init(int nr_cpus)
{
	if (nr_cpus < 1 || nr_cpus > LRULAB_MAX_CPUS)
		return -EINVAL;
	nr_cpu_ids = nr_cpus;
	memset(cpu_owner, 0, sizeof(cpu_owner));
	return 0;
}

void lrulab_cpus_exit(void)
{
	nr_cpu_ids = 0;
}

/* The n-th processor this process may run on. */
static int nth_allowed_processor(int n)
{
	cpu_set_t set;
	int i, seen = 0, count;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	count = CPU_COUNT(&set);
	if (count == 0)
		return -1;
	n %= count;
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &set))
			continue;
		if (seen++ == n)
			return i;
	}
	return -1;
}

int cpu_enter(int cpu, bool pin)
{
	int expected = 0;

	if (cpu < 0 || cpu >= nr_cpu_ids || lrulab_cpu >= 0)
		return -EINVAL;
	if (!__atomic_compare_exchange_n(&cpu_owner[cpu], &expected, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return -EBUSY;
	if (pin) {
		int proc = nth_allowed_processor(cpu);

		if (proc >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(proc, &set);
			pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		}
	}
	lrulab_cpu = cpu;
	urcu_memb_register_thread();
	return 0;
}

void cpu_exit(void)
{
	if (lrulab_cpu < 0)
		return;
	urcu_memb_unregister_thread();
	__atomic_store_n(&cpu_owner[lrulab_cpu], 0, __ATOMIC_RELEASE);
	lrulab_cpu = -1;
}

void *__alloc_percpu(size_t size)
{
	size_t bytes = PCPU_STRIDE(size) * (size_t)nr_cpu_ids;
	void *p;

	if (posix_memalign(&p, L1_CACHE_BYTES, bytes))
		return NULL;
	memset(p, 0, bytes);
	return p;
}

void free_percpu(void *p)
{
	free(p);
}
