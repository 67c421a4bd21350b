// SPDX-License-Identifier: MIT
/*
 * Stress: four model CPUs each write and verify a shmem file and an anon
 * region, together larger than their memcg's memory.max, so that every
 * round swaps most of them out (swap entries in the page cache and in
 * PTEs) and
 * back in: charges fail, reclaim runs on all four CPUs at once (sharing
 * the swap device, the parent's and root's lruvecs through the cost walk,
 * the node counters), pages refault through the swap cache and the
 * workingset code.  Each also writes, fsyncs and reads back its slice of
 * one shared regular file, while a flusher CPU writes back what reclaim
 * wakes it for.  A control CPU drains every CPU's batches and reads
 * memory.stat meanwhile.  Run with vmstat-scan-cost off and the
 * zram-like swap device, then with the switch on and the asynchronous
 * device, whose writes end on their CPUs later and rotate their folios.
 * Checks: every page keeps its data, memory.current never exceeds
 * memory.max, the invariant checker passes, and after teardown every
 * page and swap slot is free.
 *
 *   stress_reclaim [--short]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/lrulab.h>
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>
#include <lrulab/workqueue.h>

/* pgscan and pgsteal are node stats (lruvec stats in v7.2) */
static unsigned long reclaim_stat_sum(enum node_stat_item item)
{
	vmstat_refresh();
	return global_node_page_state(item);
}

#define NR_WORKERS 4
#define FILE_PAGES 192
#define ANON_PAGES 64
#define LEAF_MAX 96
#define REG_PAGES 24		/* each worker's slice of the shared regular file */

static int rounds = 4;
static struct mem_cgroup *parent;
static struct address_space *regular;	/* one regular file, a slice per worker */
static int stop;
static int failures;

static void die(const char *what)
{
	fprintf(stderr, "stress_reclaim: %s\n", what);
	exit(1);
}

struct worker {
	pthread_t thread;
	int cpu;
	struct mem_cgroup *memcg;
	struct address_space *file;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	struct vm_area_struct *anon;
	unsigned long expect[FILE_PAGES];
	unsigned long expect_anon[ANON_PAGES];
	unsigned long expect_reg[REG_PAGES];
	unsigned long max_seen;
};

static unsigned long *page_word(struct vm_area_struct *vma, unsigned long i)
{
	pte_t pte = ptep_get(vma_pte(vma, vma->vm_start + i * PAGE_SIZE));

	return (unsigned long *)folio_address(pte_page(pte)) + (i % 512);
}

/*
 * An access whose fault may need reclaim, which the charge path does;
 * an OOM after its whole ladder fails the test.
 */
static void access_vma(struct worker *w, struct vm_area_struct *vma, unsigned long i,
		       bool write)
{
	if (mm_access(vma, vma->vm_start + i * PAGE_SIZE, write))
		die("fault failed");
	if (mem_cgroup_usage(w->memcg) > w->max_seen)
		w->max_seen = mem_cgroup_usage(w->memcg);
}

static void access(struct worker *w, unsigned long i, bool write)
{
	access_vma(w, w->vma, i, write);
}

/*
 * The worker's slice of the regular file: written (dirty, charged to its
 * memcg on a miss), written back by an fsync, which races with the
 * flusher and with other workers' fsyncs of the same file, then read
 * back, refaulting what reclaim dropped meanwhile.
 */
static void regular_round(struct worker *w, int round)
{
	unsigned long page[PAGE_SIZE / sizeof(long)] = { 0 };
	unsigned long i, index;

	for (i = 0; i < REG_PAGES; i++) {
		index = (unsigned long)w->cpu * REG_PAGES + i;
		w->expect_reg[i] = (index << 20) ^ (unsigned long)round ^ 3;
		page[index % 512] = w->expect_reg[i];
		if (file_write_page(regular, index, w->memcg, page))
			die("file write failed");
		page[index % 512] = 0;
	}
	filemap_write_and_wait(regular);
	for (i = 0; i < REG_PAGES; i++) {
		index = (unsigned long)w->cpu * REG_PAGES + i;
		if (file_read_page(regular, index, w->memcg, page))
			die("file read failed");
		if (page[index % 512] != w->expect_reg[i]) {
			fprintf(stderr, "stress_reclaim: cpu %d file page %lu lost its data\n",
				w->cpu, index);
			__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
		}
		page[index % 512] = 0;
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned long i;
	int round;

	if (cpu_enter(w->cpu, false))
		die("cpu_enter failed");
	for (round = 0; round < rounds; round++) {
		regular_round(w, round);
		for (i = 0; i < FILE_PAGES; i++) {
			/* a hot third is written every round, the rest in turn */
			if (i % 3 && (i + (unsigned long)round) % 2)
				continue;
			access(w, i, true);
			w->expect[i] = ((unsigned long)w->cpu << 48) ^ (i << 16) ^ (unsigned long)round ^ 1;
			__atomic_store_n(page_word(w->vma, i), w->expect[i], __ATOMIC_RELAXED);
			if (i < ANON_PAGES) {
				access_vma(w, w->anon, i, true);
				w->expect_anon[i] = ~w->expect[i];
				__atomic_store_n(page_word(w->anon, i), w->expect_anon[i],
						 __ATOMIC_RELAXED);
			}
		}
		for (i = 0; i < FILE_PAGES; i++) {
			access(w, i, false);
			if (__atomic_load_n(page_word(w->vma, i), __ATOMIC_RELAXED) != w->expect[i]) {
				fprintf(stderr, "stress_reclaim: cpu %d page %lu lost its data\n",
					w->cpu, i);
				__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
			}
			if (i >= ANON_PAGES)
				continue;
			access_vma(w, w->anon, i, false);
			if (__atomic_load_n(page_word(w->anon, i), __ATOMIC_RELAXED) !=
			    w->expect_anon[i]) {
				fprintf(stderr, "stress_reclaim: cpu %d anon page %lu lost its data\n",
					w->cpu, i);
				__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
			}
		}
	}
	lru_add_drain();
	cpu_exit();
	return NULL;
}

static void *control_fn(void *arg)
{
	FILE *null = fopen("/dev/null", "w");

	if (cpu_enter(NR_WORKERS, false))
		die("cpu_enter failed");
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		lru_add_drain_all();
		memory_stat_show(parent, null);
	}
	fclose(null);
	cpu_exit();
	return NULL;
}

static void run(bool scan_cost, bool async)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct worker *w = calloc(NR_WORKERS, sizeof(*w));
	unsigned long free_before, lru_lock_cost;
	struct lock_stat cost;
	pthread_t control;
	int i;

	if (!w)
		die("out of memory");
	lrulab_switches_clear();
	lrulab_switches[SW_VMSTAT_SCAN_COST] = scan_cost;
	/* the workers, the control CPU, the flusher */
	cfg.nr_cpus = NR_WORKERS + 2;
	cfg.node_pages = 8192;
	if (lrulab_init(&cfg))
		die("lrulab_init failed");
	if (lrulab_oversubscribed())
		lrulab_spin_yield_loops = 0;
	if (swapon(NR_WORKERS * (FILE_PAGES + ANON_PAGES) + 64, SWAP_STORE_ZSTD) ||
	    (async && swap_io_start(20)))
		die("swapon failed");
	free_before = zone_free_pages_exact(&NODE_DATA(0)->node_zones[ZONE_NORMAL]);
	parent = mem_cgroup_create(NULL, "p");
	if (!parent)
		die("mem_cgroup_create failed");
	regular = file_setup(NR_WORKERS * REG_PAGES);
	if (!regular || wb_flusher_run(NR_WORKERS + 1))
		die("regular file or flusher setup failed");
	for (i = 0; i < NR_WORKERS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "w%d", i);
		w[i].cpu = i;
		w[i].memcg = mem_cgroup_create(parent, name);
		if (!w[i].memcg || mem_cgroup_set_max(w[i].memcg, LEAF_MAX))
			die("memcg setup failed");
		w[i].file = shmem_file_setup(FILE_PAGES, 0);
		w[i].mm = w[i].file ? mm_alloc(w[i].memcg) : NULL;
		w[i].vma = w[i].mm ? mmap_shmem(w[i].mm, w[i].file, 0,
						FILE_PAGES * PAGE_SIZE) : NULL;
		w[i].anon = w[i].mm ? mmap_anon(w[i].mm, ANON_PAGES * PAGE_SIZE, 0) : NULL;
		if (!w[i].vma || !w[i].anon)
			die("mapping failed");
	}
	if (pthread_create(&control, NULL, control_fn, NULL))
		die("pthread_create failed");
	for (i = 0; i < NR_WORKERS; i++)
		if (pthread_create(&w[i].thread, NULL, worker_fn, &w[i]))
			die("pthread_create failed");
	for (i = 0; i < NR_WORKERS; i++)
		join_sleep(w[i].thread, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	join_sleep(control, NULL);
	__atomic_store_n(&stop, 0, __ATOMIC_RELEASE);

	if (failures)
		die("pages lost their data");
	/* the writes still in flight end: nothing is under writeback at rest */
	if (cpu_enter(0, false))
		die("cpu_enter failed");
	swap_io_wait_idle();
	cpu_exit();
	for (i = 0; i < NR_WORKERS; i++) {
		/* the page counter refuses past max; the batch is not an excuse */
		if (w[i].max_seen > LEAF_MAX)
			die("memory.current went above memory.max");
		mem_cgroup_flush_all();
		if (!memcg_page_state(w[i].memcg, PGSTEAL_DIRECT) ||
		    !memcg_events(w[i].memcg, PSWPIN))
			die("a worker never reclaimed or swapped in");
	}
	if (lrulab_check_invariants(true, stderr))
		die("invariants violated with the model quiescent");

	lru_cost_sites_read(&cost);
	lru_lock_cost = cost.acquired;
	if (scan_cost ? lru_lock_cost != 0 : lru_lock_cost == 0)
		die("cost sites took lru_lock against the switch");

	if (cpu_enter(0, false))
		die("cpu_enter failed");
	wb_flusher_stop();
	for (i = 0; i < NR_WORKERS; i++) {
		munmap_vma(w[i].vma);
		mmput(w[i].mm);
		shmem_file_free(w[i].file);
	}
	file_free(regular);
	lru_add_drain_all();
	for (i = 0; i < NR_WORKERS; i++)
		mem_cgroup_offline(w[i].memcg);
	mem_cgroup_offline(parent);
	mem_cgroup_wait_frees();
	if (lrulab_check_invariants(true, stderr))
		die("invariants violated after teardown");
	if (swap_slots_used() || swap_cache_nr())
		die("swap slots leaked");
	drain_all_pages();
	if (zone_free_pages_exact(&NODE_DATA(0)->node_zones[ZONE_NORMAL]) != free_before)
		die("pages leaked");
	printf("stress_reclaim: vmstat-scan-cost %s, swap-io %s: %d workers x %d rounds, pgsteal %lu anon %lu file, pswpin %lu, pgrotated %lu, cost-site lru_lock acquisitions %lu\n",
	       scan_cost ? "on" : "off", async ? "async" : "sync", NR_WORKERS, rounds,
	       reclaim_stat_sum(PGSTEAL_ANON), reclaim_stat_sum(PGSTEAL_FILE), sum_vm_event(PSWPIN),
	       sum_vm_event(PGROTATED), lru_lock_cost);
	cpu_exit();
	swapoff();
	lrulab_exit();
	lrulab_switches_clear();
	free(w);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--short"))
		rounds = 2;
	run(false, false);
	run(true, true);
	return 0;
}
