// SPDX-License-Identifier: MIT
/*
 * Stress of the multi-gen LRU: four model CPUs each, round after round,
 * create a memcg, fault anon and shmem pages into it past its
 * memory.max (memcg reclaim through MGLRU, swap out and in, refaults
 * through MGLRU's shadows), verify them, take the memcg offline while
 * its folios are still charged (the memcg LRU moves it to the old
 * generation) and then free them (the memcg is released and leaves the
 * memcg LRU).  Meanwhile an aging CPU makes new generations of every
 * memcg it finds (try_to_inc_max_seq with a forced page-table walk) and
 * an evicting CPU runs global reclaim (lru_gen_shrink_node and the
 * memcg LRU).  Checks: every page keeps its data, the invariant checker
 * passes at rest (lrugen lists and sizes, generations, stats), and
 * after teardown every page and swap slot is free.
 *
 *   stress_mglru [--short]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include <lrulab/swap_state.h>
#include <lrulab/vmscan.h>
#include <lrulab/workqueue.h>

/* pgscan and pgsteal are node stats (lruvec stats in v7.2) */
static unsigned long reclaim_stat_sum(enum node_stat_item item)
{
	vmstat_refresh();
	return global_node_page_state(item);
}

#define NR_WORKERS 4
#define AGING_CPU NR_WORKERS
#define EVICT_CPU (NR_WORKERS + 1)
#define ANON_PAGES 96
#define SHMEM_PAGES 64
#define LEAF_MAX 64

static int rounds = 4;
static int stop;
static int failures;
static unsigned long aged, global_reclaimed;

static void die(const char *what)
{
	fprintf(stderr, "stress_mglru: %s\n", what);
	exit(1);
}

struct worker {
	pthread_t thread;
	int cpu;
	unsigned long expect[ANON_PAGES + SHMEM_PAGES];
};

static unsigned long *page_word(struct vm_area_struct *vma, unsigned long i)
{
	pte_t pte = ptep_get(vma_pte(vma, vma->vm_start + i * PAGE_SIZE));

	return (unsigned long *)folio_address(pte_page(pte)) + (i % 512);
}

/* What the memcg's generations held when a fault found no memory. */
static void dump_lrugen(struct mem_cgroup *memcg)
{
	struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(0));
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int gen;

	fprintf(stderr, "stress_mglru: memcg %s usage %lu, max_seq %lu, min_seq %lu/%lu\n",
		memcg->name, mem_cgroup_usage(memcg), READ_ONCE(lrugen->max_seq),
		READ_ONCE(lrugen->min_seq[0]), READ_ONCE(lrugen->min_seq[1]));
	for (gen = 0; gen < (int)MAX_NR_GENS; gen++)
		fprintf(stderr, "  gen %d: anon %ld file %ld\n", gen,
			READ_ONCE(lrugen->nr_pages[gen][0][0]), READ_ONCE(lrugen->nr_pages[gen][1][0]));
}

/*
 * A charge can find no memory for a moment: with more model CPUs than
 * processors, the aging CPU may be preempted between ending an mm-list
 * iteration and making the generation (a window of a few instructions
 * in the kernel), and until it runs again reclaim has only two
 * generations and cannot evict.  The task then waits and retries, as a
 * memcg's task does under OOM with the OOM killer disabled; a fault that
 * keeps failing is a failure.
 */
static unsigned long oom_waits;

static void touch(struct vm_area_struct *vma, unsigned long i, bool write)
{
	int tries;

	for (tries = 0; mm_access(vma, vma->vm_start + i * PAGE_SIZE, write); tries++) {
		if (tries == 1000) {
			dump_lrugen(vma->vm_mm->memcg);
			die("fault failed");
		}
		__atomic_fetch_add(&oom_waits, 1, __ATOMIC_RELAXED);
		cpu_sleep_begin();
		usleep(1000);
		cpu_sleep_end();
	}
}

static void check(struct worker *w, struct vm_area_struct *vma, unsigned long i,
		  unsigned long want)
{
	touch(vma, i, false);
	if (__atomic_load_n(page_word(vma, i), __ATOMIC_RELAXED) != want) {
		fprintf(stderr, "stress_mglru: cpu %d page %lu lost its data\n", w->cpu, i);
		__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
	}
}

/* One memcg's life: written past its limit twice, read back, offline, freed. */
static void worker_round(struct worker *w, int round)
{
	struct address_space *file = shmem_file_setup(SHMEM_PAGES, 0);
	struct mem_cgroup *memcg;
	struct vm_area_struct *anon, *shm;
	struct mm_struct *mm;
	unsigned long i;
	char name[32];
	int pass;

	snprintf(name, sizeof(name), "w%d-r%d", w->cpu, round);
	memcg = mem_cgroup_create(NULL, name);
	if (!memcg || !file || mem_cgroup_set_max(memcg, LEAF_MAX))
		die("memcg setup failed");
	mm = mm_alloc(memcg);
	anon = mm ? mmap_anon(mm, ANON_PAGES * PAGE_SIZE, 0) : NULL;
	shm = mm ? mmap_shmem(mm, file, 0, SHMEM_PAGES * PAGE_SIZE) : NULL;
	if (!anon || !shm)
		die("mapping failed");
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < ANON_PAGES; i++) {
			w->expect[i] = ((unsigned long)w->cpu << 48) ^ (i << 16) ^
				       (unsigned long)(round * 2 + pass + 1);
			touch(anon, i, true);
			__atomic_store_n(page_word(anon, i), w->expect[i], __ATOMIC_RELAXED);
		}
		for (i = 0; i < SHMEM_PAGES; i++) {
			w->expect[ANON_PAGES + i] = ~w->expect[i];
			touch(shm, i, true);
			__atomic_store_n(page_word(shm, i), w->expect[ANON_PAGES + i],
					 __ATOMIC_RELAXED);
		}
	}
	for (i = 0; i < ANON_PAGES; i++)
		check(w, anon, i, w->expect[i]);
	for (i = 0; i < SHMEM_PAGES; i++)
		check(w, shm, i, w->expect[ANON_PAGES + i]);
	lru_add_drain();
	/* offline with its folios still charged: a zombie until they go */
	mem_cgroup_offline(memcg);
	munmap_vma(anon);
	munmap_vma(shm);
	mmput(mm);
	shmem_file_free(file);
	lru_add_drain();
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	int round;

	if (cpu_enter(w->cpu, false))
		die("cpu_enter failed");
	for (round = 0; round < rounds; round++)
		worker_round(w, round);
	cpu_exit();
	return NULL;
}

/* A new generation for every memcg it meets, as the debugfs "+" makes. */
static void *aging_fn(void *arg)
{
	if (cpu_enter(AGING_CPU, false))
		die("cpu_enter failed");
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct mem_cgroup *memcg = mem_cgroup_iter(NULL, NULL);

		do {
			struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(0));
			unsigned long seq = READ_ONCE(lruvec->lrugen.max_seq);

			if (try_to_inc_max_seq(lruvec, seq, 100, true))
				__atomic_fetch_add(&aged, 1, __ATOMIC_RELAXED);
			cond_resched();
		} while ((memcg = mem_cgroup_iter(NULL, memcg)));
	}
	cpu_exit();
	return NULL;
}

/* Global reclaim: the memcg LRU, zombies first. */
static void *evict_fn(void *arg)
{
	if (cpu_enter(EVICT_CPU, false))
		die("cpu_enter failed");
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned long n = try_to_free_pages(SWAP_CLUSTER_MAX);

		__atomic_fetch_add(&global_reclaimed, n, __ATOMIC_RELAXED);
		cond_resched();
	}
	cpu_exit();
	return NULL;
}

int main(int argc, char **argv)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct worker w[NR_WORKERS];
	pthread_t aging, evict;
	unsigned long free_before;
	int i;

	if (argc > 1 && !strcmp(argv[1], "--short"))
		rounds = 2;
	memset(w, 0, sizeof(w));
	cfg.nr_cpus = NR_WORKERS + 2;
	cfg.node_pages = 8192;
	cfg.lru_gen = LRU_GEN_CAPS_ALL;
	if (lrulab_init(&cfg))
		die("lrulab_init failed");
	if (lrulab_oversubscribed())
		lrulab_spin_yield_loops = 0;
	if (swapon(NR_WORKERS * (ANON_PAGES + SHMEM_PAGES) * 2 + 64, SWAP_STORE_ZSTD))
		die("swapon failed");
	free_before = zone_free_pages_exact(&NODE_DATA(0)->node_zones[ZONE_NORMAL]);
	if (pthread_create(&aging, NULL, aging_fn, NULL) ||
	    pthread_create(&evict, NULL, evict_fn, NULL))
		die("pthread_create failed");
	for (i = 0; i < NR_WORKERS; i++) {
		w[i].cpu = i;
		if (pthread_create(&w[i].thread, NULL, worker_fn, &w[i]))
			die("pthread_create failed");
	}
	for (i = 0; i < NR_WORKERS; i++)
		join_sleep(w[i].thread, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	join_sleep(aging, NULL);
	join_sleep(evict, NULL);

	if (failures)
		die("pages lost their data");
	mem_cgroup_wait_frees();
	if (lrulab_check_invariants(true, stderr))
		die("invariants violated with the model quiescent");
	if (!reclaim_stat_sum(PGSTEAL_DIRECT) || !sum_vm_event(PSWPIN) || !aged)
		die("no reclaim, swap-in or aging happened");
	if (swap_slots_used() || swap_cache_nr())
		die("swap slots leaked");
	if (cpu_enter(0, false))
		die("cpu_enter failed");
	drain_all_pages();
	if (zone_free_pages_exact(&NODE_DATA(0)->node_zones[ZONE_NORMAL]) != free_before)
		die("pages leaked");
	printf("stress_mglru: %d workers x %d memcgs, aging passes %lu, globally reclaimed %lu, faults that waited for memory %lu, pgsteal %lu anon %lu file, pswpin %lu, root max_seq %lu\n",
	       NR_WORKERS, rounds, aged, global_reclaimed, oom_waits, reclaim_stat_sum(PGSTEAL_ANON),
	       reclaim_stat_sum(PGSTEAL_FILE), sum_vm_event(PSWPIN),
	       mem_cgroup_lruvec(root_mem_cgroup, NODE_DATA(0))->lrugen.max_seq);
	cpu_exit();
	swapoff();
	lrulab_exit();
	return 0;
}
