// SPDX-License-Identifier: MIT
/*
 * mthp-lru-cache (s4): small mTHPs in the per-CPU LRU caches, the page
 * cap on a cache, lru_lock acquisitions per 1000 pages of 16K and 64K
 * anon faults, the drains before a split and before reuse on a write
 * fault, folio split and the deferred split queue; then a short
 * multi-CPU run of all of it ending in the invariant checker.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/huge_mm.h>
#include <lrulab/lrulab.h>
#include <lrulab/switches.h>
#include <lrulab/workqueue.h>

#define NODE_PAGES 16384

static struct mem_cgroup *memcg;

#define STRESS_CPUS 3

/* This thread is model CPU @cpu of @nr_cpus. */
static int setup_cpus(int nr_cpus, int cpu)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = nr_cpus;
	cfg.node_pages = NODE_PAGES;
	if (lrulab_init(&cfg) || cpu_enter(cpu, false))
		return -1;
	memcg = mem_cgroup_create(root_mem_cgroup, "t");
	return memcg ? 0 : -1;
}

static int setup(void **state)
{
	return setup_cpus(2, 0);
}

static int setup_on(void **state)
{
	lrulab_switches[SW_MTHP_LRU_CACHE] = true;
	return setup_cpus(2, 0);
}

/* The workers are CPUs 0..STRESS_CPUS-1; this thread checks from the last. */
static int setup_stress(void **state)
{
	lrulab_switches[SW_MTHP_LRU_CACHE] = true;
	return setup_cpus(STRESS_CPUS + 1, STRESS_CPUS);
}

static int teardown(void **state)
{
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
	lrulab_switches_clear();
	return 0;
}

/* ---- helpers ---- */

static struct lruvec *test_lruvec(void)
{
	return mem_cgroup_lruvec(memcg, NODE_DATA(0));
}

static unsigned long zone_size(enum lru_list lru)
{
	return memcg->nodeinfo[0]->lru_zone_size[ZONE_NORMAL][lru];
}

/* the PTE tables' pages counted as free: what folios take */
static unsigned long free_pages(void)
{
	drain_all_pages();
	return zone_buddy_free_pages(&NODE_DATA(0)->node_zones[ZONE_NORMAL]) + pte_table_pages();
}

static unsigned long node_stat(enum node_stat_item item)
{
	vmstat_refresh();
	return node_page_state(NODE_DATA(0), item);
}

static u64 lru_lock_acquired(void)
{
	struct lock_stat st;

	lockstat_read_class("lru_lock", &st);
	return st.acquired;
}

static u64 move_lru_acquired(void)
{
	struct lock_stat st = { 0 };
	int i;

	for (i = 0; i < lockstat_nr_sites(); i++) {
		struct lock_site *s = lockstat_site(i);

		/* batch moves: full batches and drains */
		if (!strcmp(s->cls, "lru_lock") &&
		    (!strcmp(s->fn, "folio_batch_move_lru") || !strcmp(s->fn, "lru_add_drain_cpu")))
			lockstat_read(s, &st);
	}
	return st.acquired;
}

static struct lru_drain_stats drains(void)
{
	struct lru_drain_stats d;

	lru_drain_stats_read(&d);
	return d;
}

/* A charged anon folio that no PTE maps, for the batch tests. */
static struct folio *new_folio(unsigned int order)
{
	struct folio *folio = folio_alloc(order, 0);

	assert_non_null(folio);
	assert_int_equal(mem_cgroup_charge(folio, memcg), 0);
	folio_set_swapbacked(folio);
	folio->mapping = (struct address_space *)(0x1000UL | PAGE_MAPPING_ANON);
	return folio;
}

static void free_folio(struct folio *folio)
{
	folio->mapping = NULL;
	folio_put(folio);
}

static unsigned long addr_of(struct vm_area_struct *vma, unsigned long page)
{
	return vma->vm_start + page * PAGE_SIZE;
}

static pte_t pte_at(struct vm_area_struct *vma, unsigned long page)
{
	return ptep_get(vma_pte(vma, addr_of(vma, page)));
}

static struct folio *folio_at(struct vm_area_struct *vma, unsigned long page)
{
	pte_t pte = pte_at(vma, page);

	assert_true(pte_present(pte));
	return pte_folio(pte);
}

static void zap_page(struct vm_area_struct *vma, unsigned long page)
{
	zap_page_range_single(vma, addr_of(vma, page), PAGE_SIZE);
}

/* Lock and pin a folio as split_folio() wants it. */
static void lock_pinned(struct folio *folio)
{
	folio_get(folio);
	assert_true(folio_trylock(folio));
}

static void unlock_unpin(struct folio *folio)
{
	folio_unlock(folio);
	folio_put(folio);
}

/* ---- the page cap on a per-CPU cache ---- */

/*
 * With the switch on, a cache drains as soon as it holds more than
 * FOLIO_BATCH_SIZE pages: 16K folios (4 pages) at the 8th (32 pages),
 * 32K (8) at the 4th, 64K (16) at the 2nd.  Between drains it holds
 * 4k, 8k, 16k pages, never more than 31.
 */
static void fill_one_order(unsigned int order, unsigned int drain_at)
{
	unsigned int nr = 1U << order, k, round;
	struct folio *f[2 * 8];

	lockstat_reset();
	for (round = 0; round < 2; round++) {
		for (k = 1; k <= drain_at; k++) {
			struct folio *folio = new_folio(order);

			f[round * drain_at + k - 1] = folio;
			folio_add_lru(folio);
			if (k < drain_at) {
				assert_int_equal(lru_batches_count(0), k);
				assert_int_equal(lru_batches_pages(0), k * nr);
				assert_false(folio_test_lru(folio));
				assert_int_equal(folio_ref_count(folio), 2);
			} else {
				assert_int_equal(lru_batches_count(0), 0);
				assert_int_equal(lru_batches_pages(0), 0);
				assert_true(folio_test_lru(folio));
				assert_int_equal(folio_ref_count(folio), 1);
			}
			assert_true(lru_batches_pages(0) <= FOLIO_BATCH_SIZE);
			assert_int_equal(move_lru_acquired(), round + (k == drain_at));
		}
	}
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 2 * drain_at * nr);
	for (k = 0; k < 2 * drain_at; k++)
		free_folio(f[k]);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_cap_16k(void **state)
{
	fill_one_order(2, 8);
}

static void test_cap_32k(void **state)
{
	fill_one_order(3, 4);
}

static void test_cap_64k(void **state)
{
	fill_one_order(4, 2);
}

/*
 * Mixed orders.  Pages after each add, and where the cache drains:
 *   order 0,2,3,4,1   ->  1, 5, 13, 29, 31   (31 is not more than 31)
 *   order 0           ->  32: drains (6 folios, one lru_lock hold)
 *   order 4,4         ->  16, 32: drains
 *   30 x order 0      ->  1..30
 *   order 0           ->  31 folios fill the slots: drains (count, not pages)
 *   order 2           ->  4
 *   order 5 (32 pages, too large to cache) -> drains at once, with the 16K
 */
static void test_cap_mixed_orders(void **state)
{
	static const unsigned int orders[] = { 0, 2, 3, 4, 1 };
	static const unsigned int pages[] = { 1, 5, 13, 29, 31 };
	struct folio *f[64];
	unsigned int n = 0, i;

	lockstat_reset();
	for (i = 0; i < 5; i++) {
		f[n] = new_folio(orders[i]);
		folio_add_lru(f[n++]);
		assert_int_equal(lru_batches_pages(0), pages[i]);
		assert_int_equal(lru_batches_count(0), i + 1);
	}
	assert_int_equal(move_lru_acquired(), 0);
	f[n] = new_folio(0);
	folio_add_lru(f[n++]);
	assert_int_equal(lru_batches_count(0), 0);
	assert_int_equal(lru_batches_pages(0), 0);
	assert_int_equal(move_lru_acquired(), 1);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 32);

	f[n] = new_folio(4);
	folio_add_lru(f[n++]);
	assert_int_equal(lru_batches_pages(0), 16);
	f[n] = new_folio(4);
	folio_add_lru(f[n++]);
	assert_int_equal(lru_batches_pages(0), 0);
	assert_int_equal(move_lru_acquired(), 2);

	for (i = 0; i < 30; i++) {
		f[n] = new_folio(0);
		folio_add_lru(f[n++]);
	}
	assert_int_equal(lru_batches_count(0), 30);
	assert_int_equal(lru_batches_pages(0), 30);
	f[n] = new_folio(0);
	folio_add_lru(f[n++]);
	assert_int_equal(lru_batches_count(0), 0);
	assert_int_equal(move_lru_acquired(), 3);

	f[n] = new_folio(2);
	folio_add_lru(f[n++]);
	assert_int_equal(lru_batches_pages(0), 4);
	f[n] = new_folio(5);
	folio_add_lru(f[n++]);
	assert_int_equal(lru_batches_count(0), 0);
	assert_int_equal(lru_batches_pages(0), 0);
	assert_int_equal(move_lru_acquired(), 4);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 32 + 32 + 31 + 4 + 32);
	assert_true(folio_test_lru(f[n - 2]) && folio_test_lru(f[n - 1]));

	for (i = 0; i < n; i++)
		free_folio(f[i]);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* Off: today's kernel.  Large folios pass straight through, pages uncounted. */
static void test_off_large_bypass(void **state)
{
	struct folio *small = new_folio(0), *large = new_folio(2);

	lockstat_reset();
	folio_add_lru(small);
	assert_int_equal(lru_batches_count(0), 1);
	assert_int_equal(lru_batches_pages(0), 0);
	folio_add_lru(large);
	assert_int_equal(lru_batches_count(0), 0);
	assert_int_equal(move_lru_acquired(), 1);
	assert_true(folio_test_lru(small) && folio_test_lru(large));
	assert_int_equal(folio_ref_count(large), 1);
	assert_false(folio_may_be_lru_cached(large));
	assert_true(folio_may_be_lru_cached(small));
	free_folio(small);
	free_folio(large);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* On: the bound is fewer than FOLIO_BATCH_SIZE pages, i.e. up to 64K. */
static void test_may_be_lru_cached_bound(void **state)
{
	unsigned int order;

	for (order = 0; order <= 5; order++) {
		struct folio *folio = new_folio(order);

		assert_int_equal(folio_may_be_lru_cached(folio), order <= 4);
		free_folio(folio);
	}
}

/* The cap holds for every per-CPU cache, not only lru_add: activation. */
static void test_cap_activate_batch(void **state)
{
	unsigned long before = sum_vm_event(PGACTIVATE);
	struct folio *f[8];
	int i;

	for (i = 0; i < 8; i++) {
		f[i] = new_folio(2);
		folio_add_lru(f[i]);
	}
	lru_add_drain();
	for (i = 0; i < 7; i++)
		folio_activate(f[i]);
	assert_int_equal(lru_batches_count(0), 7);
	assert_int_equal(lru_batches_pages(0), 28);
	assert_false(folio_test_active(f[0]));
	folio_activate(f[7]);
	assert_int_equal(lru_batches_count(0), 0);
	for (i = 0; i < 8; i++)
		assert_true(folio_test_active(f[i]));
	assert_int_equal(zone_size(LRU_ACTIVE_ANON), 32);
	assert_int_equal(sum_vm_event(PGACTIVATE) - before, 32);
	for (i = 0; i < 8; i++)
		free_folio(f[i]);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* ---- lru_lock acquisitions per 1000 pages ---- */

/*
 * The seed's microbenchmark on one CPU: write-fault 16 MiB (4096 pages)
 * of anon memory one folio at a time, drain, then zap it all.
 *
 * Faults (every folio is added through this CPU's lru_add cache; all
 * share one lruvec, so a batch move is one lru_lock hold):
 *   16K off: 1024 folios, each moved at once         1024 = 250   per 1000 pages
 *   16K on:  a move per 8 folios (32 pages > 31)     128 = 31.25 per 1000 pages
 *   64K off: 256 folios, each moved at once           256 = 62.5  per 1000 pages
 *   64K on:  a move per 2 folios (32 pages > 31)     128 = 31.25 per 1000 pages
 * 1024 and 256 are multiples of 8 and 2, so the final drain finds the
 * cache empty and takes nothing.
 *
 * Zap, the same either way (folios_put_refs: one hold per batch of 31):
 *   16K: 128 folios per PTE table, the gather (512) fills after 4 tables
 *        and again after 8: 2 x ceil(512 / 31) = 2 x 17 = 34
 *   64K: 256 gathered entries, one flush: ceil(256 / 31) = 9
 */
static void lock_rate_case(unsigned int order, bool on, u64 fault_acq, u64 zap_acq)
{
	unsigned long pages = 4096, nr = 1UL << order, i;
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, pages * PAGE_SIZE, order);
	u64 acq;

	assert_non_null(vma);
	lrulab_switches[SW_MTHP_LRU_CACHE] = on;
	lockstat_reset();
	for (i = 0; i < pages; i += nr)
		assert_int_equal(mm_access(vma, addr_of(vma, i), true), 0);
	lru_add_drain();
	acq = lru_lock_acquired();
	assert_int_equal(acq, fault_acq);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), pages);
	assert_int_equal(folio_order(folio_at(vma, pages - 1)), order);

	lockstat_reset();
	zap_page_range_single(vma, vma->vm_start, pages * PAGE_SIZE);
	assert_int_equal(lru_lock_acquired(), zap_acq);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 0);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_lock_rate_16k_off(void **state)
{
	lock_rate_case(2, false, 1024, 34);
}

static void test_lock_rate_16k_on(void **state)
{
	lock_rate_case(2, true, 128, 34);
}

static void test_lock_rate_64k_off(void **state)
{
	lock_rate_case(4, false, 256, 9);
}

static void test_lock_rate_64k_on(void **state)
{
	lock_rate_case(4, true, 128, 9);
}

/* ---- split ---- */

struct remote_fault {
	struct vm_area_struct *vma;
	unsigned long first, count, step;
	bool write;
};

/* Fault on model CPU 1, then leave it: what it cached stays there. */
static void *remote_faulter(void *arg)
{
	struct remote_fault *rf = arg;
	unsigned long i;

	if (cpu_enter(1, false))
		return NULL;
	for (i = 0; i < rf->count; i++)
		mm_access(rf->vma, addr_of(rf->vma, rf->first + i * rf->step), rf->write);
	cpu_exit();
	return NULL;
}

static void fault_on_cpu1(struct vm_area_struct *vma, unsigned long first,
			  unsigned long count, unsigned long step, bool write)
{
	struct remote_fault rf = { vma, first, count, step, write };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, remote_faulter, &rf), 0);
	join_sleep(t, NULL);
}

/*
 * A 16K folio faulted on CPU 1 waits in CPU 1's lru_add cache, which
 * holds a reference: refcount = 4 PTEs + cache + our pin = 6, exactly
 * expected + 1 + 1.  The split drains this CPU (no help), then every CPU,
 * and succeeds.  Pieces: one order-0 folio per page, each mapped once,
 * on the inactive anon list in place of the folio, in page order with
 * the first page last (nearest the reclaim end), charged one page each.
 */
static void test_split_drains_remote_cache(void **state)
{
	unsigned long split = mthp_stat_read(2, MTHP_STAT_SPLIT);
	unsigned long thp_split = sum_vm_event(THP_SPLIT_PAGE);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 4 * PAGE_SIZE, 2);
	struct list_head *list = &test_lruvec()->lists[LRU_INACTIVE_ANON];
	struct lru_drain_stats d0, d1;
	struct folio *folio, *pos;
	unsigned long usage, i;

	fault_on_cpu1(vma, 0, 1, 0, true);
	assert_int_equal(lru_batches_count(1), 1);
	assert_int_equal(lru_batches_pages(1), 4);
	folio = folio_at(vma, 0);
	assert_false(folio_test_lru(folio));
	drain_all_stock();
	usage = mem_cgroup_usage(memcg);

	lock_pinned(folio);
	assert_int_equal(folio_ref_count(folio), 6);
	d0 = drains();
	lockstat_reset();
	assert_int_equal(split_folio(folio), 0);
	d1 = drains();
	assert_int_equal(d1.local - d0.local, 1);
	assert_int_equal(d1.all - d0.all, 1);
	assert_int_equal(lru_batches_count(1), 0);
	/* the drain's batch move, then the split's one hold */
	assert_int_equal(lru_lock_acquired(), 2);

	for (i = 0; i < 4; i++) {
		struct folio *piece = folio_at(vma, i);

		assert_ptr_equal(piece, folio + i);
		assert_false(folio_test_large(piece));
		assert_int_equal(pte_folio_order(pte_at(vma, i)), 0);
		assert_true(pte_write(pte_at(vma, i)));
		assert_int_equal(folio_mapcount(piece), 1);
		assert_int_equal(folio_ref_count(piece), i ? 1 : 2);
		assert_true(folio_test_lru(piece) && folio_test_anon(piece));
		assert_true(folio_test_swapbacked(piece));
		assert_int_equal(folio_test_locked(piece), i == 0);
		assert_ptr_equal(folio_memcg(piece), memcg);
		assert_int_equal(piece->index, (addr_of(vma, 0) >> PAGE_SHIFT) + i);
	}
	i = 1;
	list_for_each_entry(pos, list, lru)
		assert_ptr_equal(pos, folio + (i++ % 4));
	assert_int_equal(i, 5);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 4);
	assert_int_equal(mem_cgroup_usage(memcg), usage);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 4);
	assert_int_equal(mthp_stat_read(2, MTHP_STAT_SPLIT) - split, 1);
	/* THP_SPLIT_PAGE counts PMD-sized folios only, as the kernel's */
	assert_int_equal(sum_vm_event(THP_SPLIT_PAGE), thp_split);
	unlock_unpin(folio);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	zap_page_range_single(vma, vma->vm_start, 4 * PAGE_SIZE);
	drain_all_stock();
	assert_int_equal(mem_cgroup_usage(memcg), 0);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * can_split_folio: a pin the mappings do not explain refuses the split.
 * On, the refcount looks like a cached folio's, so the patch drains
 * both levels first, in vain; off, nothing is drained.  Without the pin
 * the split needs no drain.
 */
static void extra_pin_case(bool on, unsigned long local, unsigned long all)
{
	unsigned long failed = mthp_stat_read(4, MTHP_STAT_SPLIT_FAILED);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 16 * PAGE_SIZE, 4);
	struct lru_drain_stats d0, d1;
	struct folio *folio;

	lrulab_switches[SW_MTHP_LRU_CACHE] = on;
	assert_int_equal(mm_access(vma, vma->vm_start, true), 0);
	lru_add_drain();
	folio = folio_at(vma, 0);
	folio_get(folio);		/* e.g. a GUP pin */
	lock_pinned(folio);
	d0 = drains();
	assert_int_equal(split_folio(folio), -EAGAIN);
	d1 = drains();
	assert_int_equal(d1.local - d0.local, local);
	assert_int_equal(d1.all - d0.all, all);
	assert_int_equal(folio_order(folio), 4);
	assert_int_equal(folio_ref_count(folio), 16 + 2);
	assert_int_equal(pte_folio_order(pte_at(vma, 15)), 4);
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_SPLIT_FAILED) - failed, 1);

	folio_put(folio);
	d0 = drains();
	assert_int_equal(split_folio(folio), 0);
	d1 = drains();
	assert_int_equal(d1.local - d0.local, 0);
	assert_int_equal(d1.all - d0.all, 0);
	assert_int_equal(folio_order(folio_at(vma, 15)), 0);
	unlock_unpin(folio);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_split_extra_pin_on(void **state)
{
	extra_pin_case(true, 1, 1);
}

static void test_split_extra_pin_off(void **state)
{
	extra_pin_case(false, 0, 0);
}

static void test_split_rejects(void **state)
{
	struct folio *small = new_folio(0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 4 * PAGE_SIZE, 2);

	assert_true(folio_trylock(small));
	assert_int_equal(split_folio(small), -EINVAL);
	folio_unlock(small);
	free_folio(small);
	assert_int_equal(mm_access(vma, vma->vm_start, true), 0);
	assert_int_equal(deferred_split_scan(memcg, 0, 0), 0);
	assert_int_equal(deferred_split_count(NULL, 0), 0);
	assert_int_equal(deferred_split_scan(NULL, 0, 32), 0);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* ---- the deferred split queue ---- */

/*
 * A 64K folio loses pages 3 and 7 to zaps: queued once (on its memcg's
 * queue), counted once.  The scan splits it; the two unmapped pages are
 * freed and uncharged, the 14 others stay mapped and on the LRU.
 */
static void test_deferred_split_partial_zap(void **state)
{
	unsigned long deferred = mthp_stat_read(4, MTHP_STAT_SPLIT_DEFERRED);
	unsigned long thp_deferred = sum_vm_event(THP_DEFERRED_SPLIT_PAGE);
	unsigned long free_before = free_pages();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 16 * PAGE_SIZE, 4);
	struct folio *folio;
	unsigned long i;

	assert_int_equal(mm_access(vma, vma->vm_start, true), 0);
	folio = folio_at(vma, 0);
	assert_int_equal(deferred_split_count(memcg, 0), 0);
	zap_page(vma, 3);
	assert_int_equal(deferred_split_count(memcg, 0), 1);
	assert_true(folio_test_partially_mapped(folio));
	zap_page(vma, 7);
	assert_int_equal(deferred_split_count(memcg, 0), 1);
	assert_int_equal(deferred_split_count(NULL, 0), 0);
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_SPLIT_DEFERRED) - deferred, 1);
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED), 1);
	assert_int_equal(sum_vm_event(THP_DEFERRED_SPLIT_PAGE), thp_deferred);
	assert_int_equal(folio_ref_count(folio), 14);
	assert_int_equal(free_before - free_pages(), 16);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	assert_int_equal(deferred_split_scan(memcg, 0, 128), 1);
	assert_int_equal(deferred_split_count(memcg, 0), 0);
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED), 0);
	assert_int_equal(free_before - free_pages(), 14);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 14);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 14);
	drain_all_stock();
	assert_int_equal(mem_cgroup_usage(memcg), 14);
	for (i = 0; i < 16; i++) {
		if (i == 3 || i == 7) {
			assert_true(pte_none(pte_at(vma, i)));
			continue;
		}
		assert_ptr_equal(folio_at(vma, i), folio + i);
		assert_int_equal(folio_ref_count(folio + i), 1);
		assert_int_equal(folio_order(folio + i), 0);
	}
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	mmput(mm);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* Freeing a queued folio takes it off the queue. */
static void test_free_unqueues(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 8 * PAGE_SIZE, 2);

	assert_int_equal(mm_access(vma, addr_of(vma, 0), true), 0);
	assert_int_equal(mm_access(vma, addr_of(vma, 4), true), 0);
	zap_page(vma, 1);
	zap_page(vma, 6);
	assert_int_equal(deferred_split_count(memcg, 0), 2);
	assert_int_equal(mthp_stat_read(2, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED), 2);
	zap_page_range_single(vma, addr_of(vma, 4), 4 * PAGE_SIZE);
	assert_int_equal(deferred_split_count(memcg, 0), 1);
	mmput(mm);
	assert_int_equal(deferred_split_count(memcg, 0), 0);
	assert_int_equal(mthp_stat_read(2, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* PMD-sized folios also count in /proc/vmstat, as in the kernel. */
static void test_thp_events_pmd(void **state)
{
	unsigned long thp_deferred = sum_vm_event(THP_DEFERRED_SPLIT_PAGE);
	unsigned long thp_split = sum_vm_event(THP_SPLIT_PAGE);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, PMD_SIZE, HPAGE_PMD_ORDER);
	struct folio *folio;

	assert_int_equal(mm_access(vma, vma->vm_start, true), 0);
	folio = folio_at(vma, 0);
	zap_page(vma, 100);
	assert_int_equal(sum_vm_event(THP_DEFERRED_SPLIT_PAGE) - thp_deferred, 1);
	assert_int_equal(deferred_split_scan(memcg, 0, 1), 1);
	assert_int_equal(sum_vm_event(THP_SPLIT_PAGE) - thp_split, 1);
	assert_int_equal(mthp_stat_read(HPAGE_PMD_ORDER, MTHP_STAT_SPLIT), 1);
	assert_int_equal(folio_order(folio), 0);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 511);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 511);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * Three 16K folios faulted on CPU 1 wait in its cache (12 pages); CPU 0
 * zaps a page of each, which queues them.  The scan pins all three: the
 * first looks cached (3 PTEs + cache + scan pin = expected + 2), so this
 * CPU is drained, then every CPU; the others then need nothing.  One
 * drain of each level for the batch, three splits.
 */
static void test_scan_drains_once_remote(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 12 * PAGE_SIZE, 2);
	struct lru_drain_stats d0, d1;
	int i;

	fault_on_cpu1(vma, 0, 3, 4, true);
	assert_int_equal(lru_batches_count(1), 3);
	for (i = 0; i < 3; i++)
		zap_page(vma, 4 * i + 2);
	assert_int_equal(deferred_split_count(memcg, 0), 3);
	assert_int_equal(lru_batches_count(1), 3);
	d0 = drains();
	assert_int_equal(deferred_split_scan(memcg, 0, 128), 3);
	d1 = drains();
	assert_int_equal(d1.local - d0.local, 1);
	assert_int_equal(d1.all - d0.all, 1);
	assert_int_equal(lru_batches_count(1), 0);
	assert_int_equal(deferred_split_count(memcg, 0), 0);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 9);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * Three queued 16K folios each pinned by someone else: each looks cached
 * to the split, but the scan's cursor drains each level once for the
 * batch, where splitting them one by one drains both levels for each.
 * None splits; all go back on the queue.
 */
static void test_scan_drains_once_pinned(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 12 * PAGE_SIZE, 2);
	struct lru_drain_stats d0, d1;
	struct folio *f[3];
	int i;

	for (i = 0; i < 3; i++) {
		assert_int_equal(mm_access(vma, addr_of(vma, 4 * i), true), 0);
		f[i] = folio_at(vma, 4 * i);
		zap_page(vma, 4 * i + 1);
		folio_get(f[i]);
	}
	lru_add_drain();
	assert_int_equal(deferred_split_count(memcg, 0), 3);
	d0 = drains();
	assert_int_equal(deferred_split_scan(memcg, 0, 128), 0);
	d1 = drains();
	assert_int_equal(d1.local - d0.local, 1);
	assert_int_equal(d1.all - d0.all, 1);
	assert_int_equal(deferred_split_count(memcg, 0), 3);

	d0 = drains();
	for (i = 0; i < 3; i++) {
		lock_pinned(f[i]);
		assert_int_equal(split_folio(f[i]), -EAGAIN);
		unlock_unpin(f[i]);
	}
	d1 = drains();
	assert_int_equal(d1.local - d0.local, 3);
	assert_int_equal(d1.all - d0.all, 3);

	for (i = 0; i < 3; i++)
		folio_put(f[i]);
	d0 = drains();
	assert_int_equal(deferred_split_scan(memcg, 0, 128), 3);
	d1 = drains();
	assert_int_equal(d1.local - d0.local, 0);
	assert_int_equal(d1.all - d0.all, 0);
	assert_int_equal(deferred_split_count(memcg, 0), 0);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* ---- reuse on a write fault ---- */

/*
 * A read fault maps a 16K folio read-only; with the switch on it then
 * waits in this CPU's cache (4 PTEs + cache).  The write fault finds
 * exactly one reference more than the mappings, drains this CPU and
 * reuses the folio.  Off, the folio is on the LRU already: no drain.
 */
static void reuse_case(bool on, unsigned long local)
{
	unsigned long reuse = sum_vm_event(PGREUSE);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 4 * PAGE_SIZE, 2);
	struct lru_drain_stats d0, d1;
	struct folio *folio;

	lrulab_switches[SW_MTHP_LRU_CACHE] = on;
	assert_int_equal(mm_access(vma, addr_of(vma, 0), false), 0);
	folio = folio_at(vma, 0);
	assert_false(pte_write(pte_at(vma, 1)));
	assert_int_equal(folio_ref_count(folio), on ? 5 : 4);
	assert_int_equal(lru_batches_count(0), on ? 1 : 0);
	d0 = drains();
	assert_int_equal(mm_access(vma, addr_of(vma, 1), true), 0);
	d1 = drains();
	assert_int_equal(d1.local - d0.local, local);
	assert_int_equal(d1.all - d0.all, 0);
	assert_ptr_equal(folio_at(vma, 1), folio);
	assert_true(pte_write(pte_at(vma, 1)) && pte_dirty(pte_at(vma, 1)));
	assert_false(pte_write(pte_at(vma, 0)));
	assert_int_equal(sum_vm_event(PGREUSE) - reuse, 1);
	assert_int_equal(lru_batches_count(0), 0);
	assert_true(folio_test_lru(folio));
	assert_int_equal(folio_ref_count(folio), 4);
	assert_int_equal(deferred_split_count(memcg, 0), 0);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_reuse_drains_local_on(void **state)
{
	reuse_case(true, 1);
}

static void test_reuse_no_drain_off(void **state)
{
	reuse_case(false, 0);
}

/*
 * The folio waits in CPU 1's cache instead: draining this CPU cannot
 * release it, so the write copies the page (COW) and the folio, now
 * partially mapped, is queued for deferred split.
 */
static void test_reuse_remote_cache_copies(void **state)
{
	unsigned long reuse = sum_vm_event(PGREUSE);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 4 * PAGE_SIZE, 2);
	struct lru_drain_stats d0, d1;
	struct folio *folio, *copy;

	fault_on_cpu1(vma, 0, 1, 0, false);
	folio = folio_at(vma, 0);
	((unsigned char *)folio_address(folio + 1))[9] = 0x77;
	d0 = drains();
	assert_int_equal(mm_access(vma, addr_of(vma, 1) + 8, true), 0);
	d1 = drains();
	assert_int_equal(d1.local - d0.local, 1);
	copy = folio_at(vma, 1);
	assert_ptr_not_equal(copy, folio + 1);
	assert_int_equal(folio_order(copy), 0);
	assert_int_equal(((unsigned char *)folio_address(copy))[9], 0x77);
	assert_int_equal(((unsigned char *)folio_address(copy))[8], 1);
	assert_int_equal(sum_vm_event(PGREUSE) - reuse, 0);
	assert_int_equal(folio_mapcount(folio), 3);
	/* 3 PTEs + CPU 1's cache */
	assert_int_equal(folio_ref_count(folio), 4);
	assert_int_equal(deferred_split_count(memcg, 0), 1);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), 4);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 4);

	assert_int_equal(deferred_split_scan(memcg, 0, 128), 1);
	assert_int_equal(lru_batches_count(1), 0);
	assert_int_equal(folio_order(folio_at(vma, 2)), 0);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* ---- several CPUs at once ---- */

struct stress_arg {
	int cpu;
	int rounds;
	struct mem_cgroup *memcg;
};

/* Pin the folio a present PTE maps, under the PTE lock so a split cannot
 * be half done. */
static struct folio *get_mapped_folio(struct vm_area_struct *vma, unsigned long addr)
{
	spinlock_t *ptl = pte_lockptr(vma, addr);
	struct folio *folio = NULL;
	pte_t pte;

	spin_lock(ptl);
	pte = ptep_get(vma_pte(vma, addr));
	if (pte_present(pte)) {
		folio = pte_folio(pte);
		folio_get(folio);
	}
	spin_unlock(ptl);
	return folio;
}

static void *stress_worker(void *p)
{
	struct stress_arg *a = p;
	int r;

	if (cpu_enter(a->cpu, false))
		return (void *)1L;
	for (r = 0; r < a->rounds; r++) {
		unsigned int order = 2 + (unsigned int)((a->cpu + r) % 3);
		unsigned long nr = 1UL << order, pages = 8 * nr, i;
		struct mm_struct *mm = mm_alloc(a->memcg);
		struct vm_area_struct *vma = mm ? mmap_anon(mm, pages * PAGE_SIZE, order) : NULL;
		struct folio *folio;

		if (!vma)
			return (void *)1L;
		/* read some folios first, so that writes go through do_wp_page */
		for (i = 0; i < pages; i++)
			if (mm_access(vma, addr_of(vma, i), (i / nr + r) & 1 || i % nr))
				return (void *)1L;
		for (i = 0; i < pages; i += nr)
			zap_page_range_single(vma, addr_of(vma, i + (r % nr)), PAGE_SIZE);
		folio = get_mapped_folio(vma, addr_of(vma, nr + (r + 1) % nr));
		if (folio) {
			if (folio_trylock(folio)) {
				split_folio(folio);
				folio_unlock(folio);
			}
			folio_put(folio);
		}
		deferred_split_scan(a->memcg, 0, 1 + (unsigned long)r % 8);
		if (r % 4 == a->cpu)
			lru_add_drain_all();
		/* refault what was zapped: order 0 now, the range is not empty */
		for (i = 0; i < pages; i += 2 * nr)
			if (mm_access(vma, addr_of(vma, i + (r % nr)), true))
				return (void *)1L;
		if (r & 1)
			mmput(mm);
		else {
			munmap_vma(vma);
			mmput(mm);
		}
	}
	cpu_exit();
	return NULL;
}

static void test_stress_mthp(void **state)
{
	struct stress_arg args[STRESS_CPUS];
	pthread_t t[STRESS_CPUS];
	unsigned long free_before;
	void *ret;
	int i;

	for (i = 0; i < STRESS_CPUS; i++)
		args[i] = (struct stress_arg){ i, 24, memcg };
	free_before = 0;
	for (i = 0; i < nr_node_ids; i++)
		free_before += zone_free_pages_exact(&NODE_DATA(i)->node_zones[0]);
	for (i = 0; i < STRESS_CPUS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, stress_worker, &args[i]), 0);
	for (i = 0; i < STRESS_CPUS; i++) {
		join_sleep(t[i], &ret);
		assert_null(ret);
	}
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	assert_int_equal(deferred_split_count(memcg, 0), 0);
	for (i = 2; i <= 4; i++)
		assert_int_equal(mthp_stat_read(i, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED), 0);
	drain_all_pages();
	for (i = 0; i < nr_node_ids; i++)
		free_before -= zone_free_pages_exact(&NODE_DATA(i)->node_zones[0]);
	assert_int_equal(free_before, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cap_16k, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_cap_32k, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_cap_64k, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_cap_mixed_orders, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_off_large_bypass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_may_be_lru_cached_bound, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_cap_activate_batch, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_lock_rate_16k_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_rate_16k_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_rate_64k_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_rate_64k_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_drains_remote_cache, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_split_extra_pin_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_extra_pin_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_rejects, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_deferred_split_partial_zap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_unqueues, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_thp_events_pmd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scan_drains_once_remote, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_scan_drains_once_pinned, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_reuse_drains_local_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse_no_drain_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse_remote_cache_copies, setup_on, teardown),
		cmocka_unit_test_setup_teardown(test_stress_mthp, setup_stress, teardown),
	};

	return cmocka_run_group_tests_name("mthp", tests, NULL, NULL);
}
