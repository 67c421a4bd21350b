// SPDX-License-Identifier: MIT
/*
 * Page-cache entries, allocated and freed at the kernel's granularity.
 *
 * The kernel's xarray keeps 64 slots to a node (XA_CHUNK_SIZE): a file
 * faulted in and truncated takes a node from a per-CPU slab cache once
 * every 64 pages, and gives it to call_rcu() once every 64 pages, on the
 * CPU that emptied it.  lrulab's hash table needs an entry for every
 * index.  Taking each from malloc() and giving each to call_rcu() made
 * every page pay a malloc, a grace-period enqueue on liburcu's one global
 * queue and a free by liburcu's call_rcu thread into the faulting
 * thread's arena: shmem fault-free then scaled 1.45x from one thread to
 * two on two processors, where the host kernel scales 1.85x.
 *
 * So a model CPU keeps its entries in groups of 64: it hands out entries
 * from its loaded group, collects the entries it deletes in a group of
 * its own, and gives full groups to call_rcu() together.  After the
 * grace period they go to a depot, from which a CPU whose loaded group
 * ran out reloads.
 *
 * Full groups wait up to PC_HANDOVER_NS before they go to call_rcu().
 * Each call_rcu() on an idle queue has liburcu's thread run a grace
 * period, and unlike the kernel's, liburcu's grace period costs the
 * processors: a membarrier() IPI round per check, and spinning on a
 * reader it preempted.  Handing over each group had it run one every
 * 10 ms, 5,900 membarrier() calls a second with two threads faulting;
 * 20 ms of batching, as kfree_rcu() batched from v5.5 to v6.0
 * (KFREE_DRAIN_JIFFIES, HZ / 50), takes that to 2,200.  A thread that is not a model CPU (set-up, the
 * tests' helpers) has no per-CPU slot: it uses malloc() and call_rcu()
 * for each entry, as before.
 *
 * A CPU's groups are touched only by whoever runs as that CPU (see
 * include/lrulab/cpu.h), so they need no lock; the depot is shared and
 * taken once per 64 entries.
 */
#include <pthread.h>
#include <stdlib.h>

#include <lrulab/cpu.h>
#include <lrulab/rcupdate.h>
#include <lrulab/spinlock.h>

#include "filemap-internal.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
/* an entry waiting in a group is not to be touched: AddressSanitizer says so */
#define entry_poison(e) ASAN_POISON_MEMORY_REGION((e), sizeof(*(e)))
#define entry_unpoison(e) ASAN_UNPOISON_MEMORY_REGION((e), sizeof(*(e)))
#else
#define entry_poison(e) do { } while (0)
#define entry_unpoison(e) do { } while (0)
#endif

/*
 * Groups the depot keeps (64K entries, about 4 MiB): what a few files'
 * worth of churn recycles.  Beyond it, a group that comes back from its
 * grace period goes to malloc, as a slab cache shrinks.
 */
#define PC_DEPOT_MAX 1024U
#define PC_HANDOVER_NS (20 * 1000 * 1000ULL)

struct pc_group {
	struct rcu_head rcu;
	struct pc_group *next;		/* in the depot, or waiting for call_rcu() */
	unsigned int nr;
	struct page_cache_entry *entries[PC_GROUP_SIZE];
};

struct pc_cpu {
	struct pc_group *loaded;	/* entries to hand out */
	struct pc_group *deleted;	/* deleted entries waiting for a group to fill */
	struct pc_group *full;		/* full groups not yet given to call_rcu() */
	u64 full_since;
	struct page_cache_entry_stats stats;
} __attribute__((aligned(128)));

static struct pc_cpu pc_cpus[LRULAB_MAX_CPUS];

static pthread_mutex_t depot_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pc_group *depot;
static unsigned int depot_nr;
static unsigned long depot_groups_in, depot_groups_freed;

static void entry_free_now(struct rcu_head *head)
{
	rcu_tsan_acquire();
	free(container_of(head, struct page_cache_entry, rcu));
}

static void group_free(struct pc_group *g)
{
	unsigned int i;

	for (i = 0; i < g->nr; i++) {
		entry_unpoison(g->entries[i]);
		free(g->entries[i]);
	}
	free(g);
}

/* After the grace period (liburcu's call_rcu thread): into the depot. */
static void group_to_depot(struct pc_group *g)
{
	unsigned int i;

	for (i = 0; i < g->nr; i++)
		entry_poison(g->entries[i]);
	pthread_mutex_lock(&depot_lock);
	if (depot_nr < PC_DEPOT_MAX) {
		g->next = depot;
		__atomic_store_n(&depot, g, __ATOMIC_RELAXED);
		depot_nr++;
		depot_groups_in++;
		g = NULL;
	} else {
		depot_groups_freed++;
	}
	pthread_mutex_unlock(&depot_lock);
	if (g)
		group_free(g);
}

static void groups_rcu_done(struct rcu_head *head)
{
	struct pc_group *g = container_of(head, struct pc_group, rcu), *next;

	rcu_tsan_acquire();
	for (; g; g = next) {
		next = g->next;
		group_to_depot(g);
	}
}

static void groups_hand_over(struct pc_cpu *pc)
{
	struct pc_group *g = pc->full;

	pc->full = NULL;
	call_rcu(&g->rcu, groups_rcu_done);
}

static struct pc_group *depot_get(void)
{
	struct pc_group *g;

	/* most reloads find it empty while groups wait out their grace period */
	if (!__atomic_load_n(&depot, __ATOMIC_RELAXED))
		return NULL;
	pthread_mutex_lock(&depot_lock);
	g = depot;
	if (g) {
		__atomic_store_n(&depot, g->next, __ATOMIC_RELAXED);
		depot_nr--;
	}
	pthread_mutex_unlock(&depot_lock);
	return g;
}

/* An emptied group's shell: the next container for deletions, or freed. */
static void group_retire(struct pc_cpu *pc, struct pc_group *g)
{
	if (!pc->deleted) {
		g->nr = 0;
		pc->deleted = g;
	} else {
		free(g);
	}
}

/*
 * The depot is empty: a group of fresh entries, as a slab cache takes a
 * new slab.  Entries are separate allocations so that any of them can be
 * given back to malloc on its own.
 */
static struct pc_group *group_new_full(void)
{
	struct pc_group *g = malloc(sizeof(*g));

	if (!g)
		return NULL;
	for (g->nr = 0; g->nr < PC_GROUP_SIZE; g->nr++) {
		g->entries[g->nr] = malloc(sizeof(struct page_cache_entry));
		if (!g->entries[g->nr])
			break;
		entry_poison(g->entries[g->nr]);
	}
	if (!g->nr) {
		free(g);
		return NULL;
	}
	return g;
}

struct page_cache_entry *page_cache_entry_alloc(void)
{
	int cpu = smp_processor_id();
	struct page_cache_entry *e;
	struct pc_group *g;
	struct pc_cpu *pc;

	if (cpu < 0)
		return malloc(sizeof(*e));
	pc = &pc_cpus[cpu];
	g = pc->loaded;
	if (!g || !g->nr) {
		struct pc_group *full = depot_get();

		if (full) {
			pc->stats.reloads++;
		} else {
			full = group_new_full();
			if (!full)
				return NULL;
			pc->stats.malloced += full->nr;
		}
		pc->loaded = full;
		if (g)
			group_retire(pc, g);
		g = full;
	}
	e = g->entries[--g->nr];
	entry_unpoison(e);
	pc->stats.handed_out++;
	return e;
}

void page_cache_entry_free_unused(struct page_cache_entry *e)
{
	int cpu = smp_processor_id();
	struct pc_group *g = cpu >= 0 ? pc_cpus[cpu].loaded : NULL;

	if (g && g->nr < PC_GROUP_SIZE) {
		entry_poison(e);
		g->entries[g->nr++] = e;
		return;
	}
	free(e);
}

void page_cache_entry_free_rcu(struct page_cache_entry *e)
{
	int cpu = smp_processor_id();
	struct pc_group *g;
	struct pc_cpu *pc;

	if (cpu < 0) {
		call_rcu(&e->rcu, entry_free_now);
		return;
	}
	pc = &pc_cpus[cpu];
	g = pc->deleted;
	if (!g) {
		g = malloc(sizeof(*g));
		if (!g) {
			call_rcu(&e->rcu, entry_free_now);
			return;
		}
		g->nr = 0;
		pc->deleted = g;
	}
	g->entries[g->nr++] = e;
	if (g->nr == PC_GROUP_SIZE) {
		u64 now = lrulab_now_ns();

		pc->deleted = NULL;
		pc->stats.groups_queued++;
		if (!pc->full)
			pc->full_since = now;
		g->next = pc->full;
		pc->full = g;
		if (now - pc->full_since >= PC_HANDOVER_NS)
			groups_hand_over(pc);
	}
}

void page_cache_entry_flush(void)
{
	int cpu = smp_processor_id();

	if (cpu >= 0 && pc_cpus[cpu].full)
		groups_hand_over(&pc_cpus[cpu]);
}

/*
 * For tests and reports: CPU @cpu's slot, or every CPU's (-1), and the
 * depot.  The slots are read unlocked, so only while their CPUs are quiet.
 */
void page_cache_entry_stats(int cpu, struct page_cache_entry_stats *s)
{
	int first = cpu < 0 ? 0 : cpu, last = cpu < 0 ? LRULAB_MAX_CPUS - 1 : cpu;

	*s = (struct page_cache_entry_stats){ 0 };
	for (cpu = first; cpu <= last && cpu < LRULAB_MAX_CPUS; cpu++) {
		const struct pc_cpu *pc = &pc_cpus[cpu];
		const struct pc_group *g;

		s->malloced += pc->stats.malloced;
		s->handed_out += pc->stats.handed_out;
		s->reloads += pc->stats.reloads;
		s->groups_queued += pc->stats.groups_queued;
		s->deleted_waiting += pc->deleted ? pc->deleted->nr : 0;
		for (g = pc->full; g; g = g->next)
			s->groups_held++;
		s->loaded_left += pc->loaded ? pc->loaded->nr : 0;
	}
	pthread_mutex_lock(&depot_lock);
	s->depot_groups = depot_nr;
	s->depot_groups_in = depot_groups_in;
	s->depot_groups_freed = depot_groups_freed;
	pthread_mutex_unlock(&depot_lock);
}
