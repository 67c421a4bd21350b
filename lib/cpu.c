// SPDX-License-Identifier: MIT
/*
 * Model CPUs: a thread becomes CPU n by cpu_enter(n).  Per-CPU data is
 * reached through per_cpu_ptr() from a unit that is CPU n's alone (see
 * PCPU_UNIT_SIZE); the queue of work for CPU n and its state word live in
 * cpu_states[n] (lib/workqueue.c runs the queue).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lrulab/cpu.h>
#include <lrulab/rcupdate.h>
#include <lrulab/workqueue.h>

int nr_cpu_ids;
__thread int lrulab_cpu = -1;
__thread bool rcu_thread_registered;
struct cpu_state cpu_states[LRULAB_MAX_CPUS];
static bool cpus_oversubscribed;

/*
 * The processors the process may use, read once: a thread that pinned
 * itself as a model CPU passes its one processor on to every thread it
 * creates, and those must still spread over all of them.
 */
static cpu_set_t allowed_set;
static int nr_allowed;
static pthread_once_t allowed_once = PTHREAD_ONCE_INIT;

static void allowed_read(void)
{
	if (sched_getaffinity(0, sizeof(allowed_set), &allowed_set) == 0)
		nr_allowed = CPU_COUNT(&allowed_set);
}

int lrulab_nr_processors(void)
{
	pthread_once(&allowed_once, allowed_read);
	return nr_allowed ? nr_allowed : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

bool lrulab_oversubscribed(void)
{
	return READ_ONCE(cpus_oversubscribed);
}

int lrulab_cpus_init(int nr_cpus)
{
	int cpu;

	if (nr_cpus < 1 || nr_cpus > LRULAB_MAX_CPUS)
		return -EINVAL;
	pthread_once(&allowed_once, allowed_read);
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		if (READ_ONCE(cpu_states[cpu].state))
			return -EBUSY;
		cpu_states[cpu].head = NULL;
		cpu_states[cpu].tail = &cpu_states[cpu].head;
		WRITE_ONCE(cpu_states[cpu].nr_pending, 0);
		WRITE_ONCE(cpu_states[cpu].nr_work_run, 0);
	}
	nr_cpu_ids = nr_cpus;
	WRITE_ONCE(cpus_oversubscribed, nr_cpus > lrulab_nr_processors());
	return 0;
}

void lrulab_cpus_exit(void)
{
	nr_cpu_ids = 0;
	WRITE_ONCE(cpus_oversubscribed, false);
}

/* The n-th processor this process may run on. */
static int nth_allowed_processor(int n)
{
	int i, seen = 0;

	pthread_once(&allowed_once, allowed_read);
	if (!nr_allowed)
		return -1;
	n %= nr_allowed;
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &allowed_set))
			continue;
		if (seen++ == n)
			return i;
	}
	return -1;
}

static void pin_to(int cpu)
{
	int proc = nth_allowed_processor(cpu);
	cpu_set_t set;

	if (proc < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(proc, &set);
	if (!pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		WRITE_ONCE(cpu_states[cpu].processor, proc);
}

int cpu_processor(int cpu)
{
	if (cpu < 0 || cpu >= nr_cpu_ids)
		return -1;
	return READ_ONCE(cpu_states[cpu].processor);
}

/*
 * A CPU with no thread may be running queued work for a waiter at this
 * moment (CPU_ACTIVE alone): wait for that to end rather than fail.
 */
int cpu_enter(int cpu, bool pin)
{
	unsigned int *state;
	unsigned int old;

	if (cpu < 0 || cpu >= nr_cpu_ids || lrulab_cpu >= 0)
		return -EINVAL;
	state = &cpu_states[cpu].state;
	for (;;) {
		old = __atomic_load_n(state, __ATOMIC_RELAXED);
		if (old & CPU_OWNED)
			return -EBUSY;
		if (old == 0 &&
		    __atomic_compare_exchange_n(state, &old, CPU_OWNED | CPU_ACTIVE,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		sched_yield();
	}
	WRITE_ONCE(cpu_states[cpu].processor, -1);
	if (pin)
		pin_to(cpu);
	lrulab_cpu = cpu;
	rcu_register_thread();
	run_pending_work();
	return 0;
}

void cpu_exit(void)
{
	int cpu = lrulab_cpu;

	if (cpu < 0)
		return;
	run_pending_work();
	rcu_unregister_thread();
	lrulab_cpu = -1;
	/* release: whoever runs this CPU's work next sees what we wrote */
	__atomic_store_n(&cpu_states[cpu].state, 0, __ATOMIC_RELEASE);
}

/*
 * ---- the per-CPU allocator ----
 *
 * One reservation of LRULAB_MAX_CPUS units for the life of the process;
 * an allocation takes the same offset in every unit.  Offsets are handed
 * out first-fit in 64-byte granules from a bitmap: allocations are rare
 * (set-up, memcg creation) and small.
 */
#define PCPU_GRANULE		L1_CACHE_BYTES
#define PCPU_NR_GRANULES	(PCPU_UNIT_SIZE / PCPU_GRANULE)
#define BITS_PER_WORD		(8 * sizeof(unsigned long))

static pthread_mutex_t pcpu_lock = PTHREAD_MUTEX_INITIALIZER;
static char *pcpu_base;
static unsigned long pcpu_map[PCPU_NR_GRANULES / BITS_PER_WORD];
/* granules per allocation, indexed by first granule; 0: not a start */
static unsigned int pcpu_len[PCPU_NR_GRANULES];
static size_t pcpu_used;

static bool granule_used(size_t g)
{
	return pcpu_map[g / BITS_PER_WORD] & (1UL << (g % BITS_PER_WORD));
}

static void granules_set(size_t g, size_t n, bool used)
{
	for (; n; g++, n--) {
		if (used)
			pcpu_map[g / BITS_PER_WORD] |= 1UL << (g % BITS_PER_WORD);
		else
			pcpu_map[g / BITS_PER_WORD] &= ~(1UL << (g % BITS_PER_WORD));
	}
}

static long granules_find(size_t n)
{
	size_t g, run = 0;

	for (g = 0; g < PCPU_NR_GRANULES; g++) {
		run = granule_used(g) ? 0 : run + 1;
		if (run == n)
			return (long)(g + 1 - n);
	}
	return -1;
}

static bool pcpu_reserve(void)
{
	void *p;

	if (pcpu_base)
		return true;
	p = mmap(NULL, PCPU_UNIT_SIZE * LRULAB_MAX_CPUS, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	pcpu_base = p;
	return true;
}

void *__alloc_percpu(size_t size)
{
	size_t n = (size + PCPU_GRANULE - 1) / PCPU_GRANULE;
	char *p = NULL;
	long g;
	int cpu;

	if (!n)
		n = 1;
	pthread_mutex_lock(&pcpu_lock);
	if (!pcpu_reserve())
		goto out;
	g = granules_find(n);
	if (g < 0) {
		fprintf(stderr, "lrulab: per-CPU units full (%zu of %lu bytes used)\n",
			pcpu_used, PCPU_UNIT_SIZE);
		goto out;
	}
	granules_set((size_t)g, n, true);
	pcpu_len[g] = (unsigned int)n;
	pcpu_used += n * PCPU_GRANULE;
	p = pcpu_base + (size_t)g * PCPU_GRANULE;
	/* a freed offset comes back with its old contents in every unit */
	for (cpu = 0; cpu < LRULAB_MAX_CPUS && cpu < nr_cpu_ids; cpu++)
		memset(per_cpu_ptr(p, cpu), 0, n * PCPU_GRANULE);
out:
	pthread_mutex_unlock(&pcpu_lock);
	return p;
}

void free_percpu(void *p)
{
	size_t g;

	if (!p)
		return;
	pthread_mutex_lock(&pcpu_lock);
	g = (size_t)((char *)p - pcpu_base) / PCPU_GRANULE;
	if ((char *)p < pcpu_base || g >= PCPU_NR_GRANULES || !pcpu_len[g]) {
		pthread_mutex_unlock(&pcpu_lock);
		fprintf(stderr, "lrulab: free_percpu(%p): not a per-CPU allocation\n", p);
		abort();
	}
	granules_set(g, pcpu_len[g], false);
	pcpu_used -= pcpu_len[g] * PCPU_GRANULE;
	pcpu_len[g] = 0;
	pthread_mutex_unlock(&pcpu_lock);
}

size_t pcpu_unit_used(void)
{
	size_t used;

	pthread_mutex_lock(&pcpu_lock);
	used = pcpu_used;
	pthread_mutex_unlock(&pcpu_lock);
	return used;
}
