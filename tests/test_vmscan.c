// SPDX-License-Identifier: MIT
/*
 * Classic reclaim: get_scan_count() against hand-computed cases for each
 * mode, the cost decay rule and its producer-side parent walk, the s1
 * cost sampler and the _monotonic readers across a signed wrap, shmem
 * and anon reclaim through swap and back with their counters, memory.max
 * reclaim (own and a parent's limit, and OOM when nothing can go), and
 * the lock sites of the cost paths with vmstat-scan-cost off and on.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/huge_mm.h>
#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include <lrulab/mm_inline.h>
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>

#include "reclaim_test.h"

#define NODE_PAGES 16384

static int setup(void **state)
{
	return reclaim_test_setup(NODE_PAGES, "t");
}

/* Exact list sizes as get_scan_count() reads them; undone by the test. */
static void set_sizes(struct lruvec *lruvec, const unsigned long *sizes)
{
	struct mem_cgroup_per_node *pn = lruvec_pn(lruvec);
	enum lru_list lru;

	for_each_evictable_lru(lru)
		pn->lru_zone_size[ZONE_NORMAL][lru] = sizes[lru];
}

static void check_nr(const unsigned long *nr, unsigned long ia, unsigned long aa,
		     unsigned long iff, unsigned long af)
{
	assert_int_equal(nr[LRU_INACTIVE_ANON], ia);
	assert_int_equal(nr[LRU_ACTIVE_ANON], aa);
	assert_int_equal(nr[LRU_INACTIVE_FILE], iff);
	assert_int_equal(nr[LRU_ACTIVE_FILE], af);
}

static void test_get_scan_count(void **state)
{
	/* >> 12: 10, 5, 20, 2 */
	static const unsigned long sizes[4] = { 40960, 20480, 81920, 8192 };
	static const unsigned long zero[4] = { 0, 0, 0, 0 };
	struct lruvec *lruvec = lruvec_of(memcg);
	int swappiness = 60;
	struct scan_control sc = {
		.target_mem_cgroup = memcg, .priority = DEF_PRIORITY,
		.may_swap = 1, .proactive_swappiness = &swappiness,
	};
	enum scan_balance mode;
	unsigned long nr[NR_LRU_LISTS];

	set_sizes(lruvec, sizes);

	/* no swap device: file only */
	get_scan_count(lruvec, &sc, nr, &mode);
	assert_int_equal(mode, SCAN_FILE);
	check_nr(nr, 0, 0, 20, 2);
	/* anon-only with nothing to put anon into: nothing at all */
	swappiness = SWAPPINESS_ANON_ONLY;
	get_scan_count(lruvec, &sc, nr, &mode);
	check_nr(nr, 0, 0, 0, 0);

	assert_int_equal(swapon(64, SWAP_STORE_ZSTD), 0);
	get_scan_count(lruvec, &sc, nr, &mode);
	assert_int_equal(mode, SCAN_ANON);
	check_nr(nr, 10, 5, 0, 0);

	/* may_swap off */
	swappiness = 60;
	sc.may_swap = 0;
	get_scan_count(lruvec, &sc, nr, &mode);
	assert_int_equal(mode, SCAN_FILE);
	check_nr(nr, 0, 0, 20, 2);
	sc.may_swap = 1;

	/* swappiness 0 in cgroup reclaim */
	swappiness = 0;
	get_scan_count(lruvec, &sc, nr, &mode);
	assert_int_equal(mode, SCAN_FILE);
	check_nr(nr, 0, 0, 20, 2);

	/* priority 0: equal, whole lists */
	swappiness = 60;
	sc.priority = 0;
	get_scan_count(lruvec, &sc, nr, &mode);
	assert_int_equal(mode, SCAN_EQUAL);
	check_nr(nr, 40960, 20480, 81920, 8192);
	sc.priority = DEF_PRIORITY;

	sc.file_is_tiny = 1;
	get_scan_count(lruvec, &sc, nr, &mode);
	assert_int_equal(mode, SCAN_ANON);
	check_nr(nr, 10, 5, 0, 0);
	sc.file_is_tiny = 0;

	sc.cache_trim_mode = 1;
	get_scan_count(lruvec, &sc, nr, &mode);
	assert_int_equal(mode, SCAN_FILE);
	check_nr(nr, 0, 0, 20, 2);
	sc.cache_trim_mode = 0;

	/*
	 * FRACT, no cost: ap = 60, fp = 140, denominator 200:
	 * 10*60/200 = 3, 5*60/200 = 1, 20*140/200 = 14, 2*140/200 = 1.
	 */
	get_scan_count(lruvec, &sc, nr, &mode);
	assert_int_equal(mode, SCAN_FRACT);
	check_nr(nr, 3, 1, 14, 1);

	/*
	 * anon 100, file 300: T = 400, A' = 500, F' = 700, T' = 1200;
	 * ap = 60*1201/501 = 143, fp = 140*1201/701 = 239, d = 382:
	 * 1430/382 = 3, 715/382 = 1, 4780/382 = 12, 478/382 = 1.
	 */
	sc.anon_cost = 100;
	sc.file_cost = 300;
	get_scan_count(lruvec, &sc, nr, &mode);
	check_nr(nr, 3, 1, 12, 1);

	/*
	 * swappiness 100, anon 0, file 1000: T = 1000, A' = 1000,
	 * F' = 2000, T' = 3000; ap = 100*3001/1001 = 299,
	 * fp = 100*3001/2001 = 149, d = 448: 2990/448 = 6, 1495/448 = 3,
	 * 2980/448 = 6, 298/448 = 0.
	 */
	swappiness = 100;
	sc.anon_cost = 0;
	sc.file_cost = 1000;
	get_scan_count(lruvec, &sc, nr, &mode);
	check_nr(nr, 6, 3, 6, 0);

	/* swappiness 200: the file weight is 0 */
	swappiness = MAX_SWAPPINESS;
	get_scan_count(lruvec, &sc, nr, &mode);
	check_nr(nr, 10, 5, 0, 0);

	/* lists smaller than 1 << priority get nothing (online memcg) */
	static const unsigned long small[4] = { 4095, 4095, 4095, 4095 };
	set_sizes(lruvec, small);
	swappiness = 60;
	get_scan_count(lruvec, &sc, nr, &mode);
	check_nr(nr, 0, 0, 0, 0);

	set_sizes(lruvec, zero);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_inactive_is_low(void **state)
{
	struct lruvec *lruvec = lruvec_of(memcg);

	/* under 1 GiB the target ratio is 1:1 */
	mod_lruvec_state(lruvec, NR_INACTIVE_ANON, 100);
	mod_lruvec_state(lruvec, NR_ACTIVE_ANON, 101);
	mem_cgroup_flush_all();
	assert_true(inactive_is_low(lruvec, LRU_INACTIVE_ANON));
	mod_lruvec_state(lruvec, NR_ACTIVE_ANON, -1);
	mem_cgroup_flush_all();
	assert_false(inactive_is_low(lruvec, LRU_INACTIVE_ANON));
	/* 2640000 pages >> 18 = 10 GiB: ratio int_sqrt(100) = 10 */
	mod_lruvec_state(lruvec, NR_INACTIVE_ANON, 239999 - 100);
	mod_lruvec_state(lruvec, NR_ACTIVE_ANON, 2400000 - 100);
	mem_cgroup_flush_all();
	assert_true(inactive_is_low(lruvec, LRU_INACTIVE_ANON));	/* 2399990 < 2400000 */
	mod_lruvec_state(lruvec, NR_INACTIVE_ANON, 1);
	mem_cgroup_flush_all();
	assert_false(inactive_is_low(lruvec, LRU_INACTIVE_ANON));
	mod_lruvec_state(lruvec, NR_INACTIVE_ANON, -240000);
	mod_lruvec_state(lruvec, NR_ACTIVE_ANON, -2400000);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_cost_decay(void **state)
{
	struct mem_cgroup *child = mem_cgroup_create(memcg, "c");
	struct lruvec *c = lruvec_of(child), *p = lruvec_of(memcg), *r = lruvec_of(root_mem_cgroup);
	unsigned long a = 100, f = 200;

	/* 300 is not above 1200 / 4: kept */
	lru_cost_decay(&a, &f, 1200);
	assert_int_equal(a, 100);
	assert_int_equal(f, 200);
	a = 101;
	lru_cost_decay(&a, &f, 1200);
	assert_int_equal(a, 50);
	assert_int_equal(f, 100);

	/* 400 LRU pages in the child: every level sees them (hierarchical) */
	mod_lruvec_state(c, NR_INACTIVE_FILE, 400);
	mem_cgroup_flush_all();

	/* 1 pageout * 32 + 5 rotations = 37, on the child and each ancestor */
	lruvec_lock_irq(c);
	lru_note_cost_unlock_irq(c, true, 1, 5);
	assert_int_equal(c->file_cost, 37);
	assert_int_equal(p->file_cost, 37);
	assert_int_equal(r->file_cost, 37);
	assert_int_equal(c->anon_cost, 0);

	/* 37 + 70 = 107 > 100: both halve */
	c->anon_cost = 11;
	lruvec_lock_irq(c);
	lru_note_cost_unlock_irq(c, true, 0, 70);
	assert_int_equal(c->file_cost, 53);
	assert_int_equal(c->anon_cost, 5);
	assert_int_equal(p->file_cost, 53);
	assert_false(spin_is_locked(&c->lru_lock));
	assert_false(spin_is_locked(&r->lru_lock));

	/* nothing to note: just the unlock */
	lruvec_lock_irq(c);
	lru_note_cost_unlock_irq(c, false, 0, 0);
	assert_int_equal(c->anon_cost, 5);
	assert_false(spin_is_locked(&c->lru_lock));

	mod_lruvec_state(c, NR_INACTIVE_FILE, -400);
	mem_cgroup_offline(child);
	mem_cgroup_wait_frees();
}

/* s1: the reclaim-side accumulator over monotonic counter samples */
static void test_cost_sample(void **state)
{
	struct lruvec *l = lruvec_of(memcg);
	struct lruvec_stats *st = lruvec_pn(l)->lruvec_stats;
	unsigned long anon, file;

	mod_lruvec_state(l, NR_INACTIVE_ANON, 1000);	/* lrusize/4 = 250 */
	mod_lruvec_state(l, PGROTATE_ANON, 10);
	mod_lruvec_state(l, NR_VMSCAN_WRITE, 2);
	mod_lruvec_state(l, WORKINGSET_RESTORE_ANON, 1);
	mod_lruvec_state(l, PGROTATE_FILE, 7);
	mem_cgroup_flush_all();
	lruvec_cost_sample(l, &anon, &file);
	assert_int_equal(anon, 10 + 3 * 32);
	assert_int_equal(file, 7);

	/* only the delta counts; 106 + 150 + 7 = 263 > 250: both halve */
	mod_lruvec_state(l, PGROTATE_ANON, 150);
	mem_cgroup_flush_all();
	lruvec_cost_sample(l, &anon, &file);
	assert_int_equal(anon, 128);
	assert_int_equal(file, 3);
	/* nothing new: unchanged */
	lruvec_cost_sample(l, &anon, &file);
	assert_int_equal(anon, 128);

	/*
	 * The signed sum wraps past LONG_MAX: the clamped reader drops to
	 * 0 but the monotonic samples still differ by the true growth.
	 */
	WRITE_ONCE(st->state[PGROTATE_FILE], LONG_MAX - 4);
	lruvec_cost_sample(l, &anon, &file);	/* resync on the big jump */
	l->cost[1].count = 3;
	assert_int_equal(lruvec_page_state(l, PGROTATE_FILE), LONG_MAX - 4);
	WRITE_ONCE(st->state[PGROTATE_FILE],
		   (long)((unsigned long)(LONG_MAX - 4) + 10));
	assert_true(st->state[PGROTATE_FILE] < 0);
	assert_int_equal(lruvec_page_state(l, PGROTATE_FILE), 0);
	assert_int_equal(lruvec_page_state_monotonic(l, PGROTATE_FILE) -
			 (unsigned long)(LONG_MAX - 4), 10);
	lruvec_cost_sample(l, &anon, &file);
	assert_int_equal(file, 13);

	/* the node-level monotonic reader across the same wrap */
	atomic_long_set(&NODE_DATA(0)->vm_stat[PGROTATE_ANON], LONG_MAX - 1);
	{
		unsigned long before = node_page_state_monotonic(NODE_DATA(0), PGROTATE_ANON);

		atomic_long_add(5, &NODE_DATA(0)->vm_stat[PGROTATE_ANON]);
		assert_int_equal(node_page_state(NODE_DATA(0), PGROTATE_ANON), 0);
		assert_int_equal(node_page_state_monotonic(NODE_DATA(0), PGROTATE_ANON) - before, 5);
	}
	atomic_long_set(&NODE_DATA(0)->vm_stat[PGROTATE_ANON], 0);
	WRITE_ONCE(st->state[PGROTATE_FILE], 7);

	mod_lruvec_state(l, NR_INACTIVE_ANON, -1000);
}

/* ---- end-to-end reclaim ---- */

static void test_shmem_reclaim(void **state)
{
	struct address_space *file = shmem_file_setup(256, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, 256 * PAGE_SIZE);
	unsigned long reclaimed, usage;

	assert_int_equal(swapon(1024, SWAP_STORE_ZSTD), 0);
	write_pattern(vma, 256);
	lru_add_drain();
	usage = mem_cgroup_usage(memcg);

	/*
	 * Every page is young once: only those a lower priority saw a
	 * second time without a new access go, the rest are kept, and
	 * the rotations make the anon share (all there is) shrink.
	 */
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 64, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_true(reclaimed > 0);
	assert_int_equal(swap_slots_used(), reclaimed);
	assert_int_equal(swap_cache_nr(), 0);
	assert_int_equal(atomic_long_read(&file->nrswapped), reclaimed);
	assert_int_equal(atomic_long_read(&file->nrpages), 256 - reclaimed);
	assert_int_equal(memcg_stat(memcg, PGSTEAL_DIRECT), reclaimed);
	assert_true(memcg_stat(memcg, PGSCAN_DIRECT) >= reclaimed);
	assert_int_equal(memcg_ev(memcg, PSWPOUT), reclaimed);
	assert_true(mem_cgroup_usage(memcg) <= usage - reclaimed + MEMCG_CHARGE_BATCH);
	/*
	 * v7.2 counts pgscan/pgsteal per lruvec for every reclaim: the
	 * node's per-reclaimer items have cgroup reclaim too (6.12's vm
	 * events left it out).
	 */
	assert_int_equal(node_stat_sum(PGSTEAL_DIRECT), reclaimed);
	assert_int_equal(node_stat_sum(PGSCAN_DIRECT), memcg_stat(memcg, PGSCAN_DIRECT));
	assert_int_equal(node_stat_sum(PGSTEAL_ANON), reclaimed);
	assert_int_equal(node_stat_sum(PGSTEAL_PROACTIVE), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/* everything comes back from swap intact; slots are freed */
	check_pattern(vma, 256);
	assert_int_equal(memcg_ev(memcg, PSWPIN), reclaimed);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(atomic_long_read(&file->nrswapped), 0);
	mem_cgroup_flush_all();
	assert_int_equal(lruvec_page_state(lruvec_of(memcg), WORKINGSET_REFAULT_ANON),
			 reclaimed);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/*
	 * out again through memory.reclaim, then truncated while out: the
	 * slots go with the file.  Proactive reclaim has its own items.
	 */
	usage = node_stat_sum(PGSTEAL_DIRECT);
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 64, MEMCG_RECLAIM_MAY_SWAP |
						 MEMCG_RECLAIM_PROACTIVE, NULL);
	assert_true(reclaimed > 0);
	assert_int_equal(swap_slots_used(), reclaimed);
	assert_int_equal(node_stat_sum(PGSTEAL_PROACTIVE), reclaimed);
	assert_int_equal(memcg_stat(memcg, PGSTEAL_PROACTIVE), reclaimed);
	assert_true(memcg_stat(memcg, PGSCAN_PROACTIVE) >= reclaimed);
	assert_int_equal(node_stat_sum(PGSTEAL_DIRECT), usage);
	munmap_vma(vma);
	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_anon_swap(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 128 * PAGE_SIZE, 0);
	unsigned long reclaimed, i, swapped = 0;

	assert_int_equal(swapon(256, SWAP_STORE_COPY), 0);
	write_pattern(vma, 128);

	reclaimed = try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_true(reclaimed > 0);
	for (i = 0; i < 128; i++)
		swapped += is_swap_pte(ptep_get(vma_pte(vma, vma->vm_start + i * PAGE_SIZE)));
	assert_int_equal(swapped, reclaimed);
	assert_int_equal(swap_slots_used(), reclaimed);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), 128 - reclaimed);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	check_pattern(vma, 128);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), 128);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(memcg_ev(memcg, PSWPIN), reclaimed);

	/* out again; the zap of the swap PTEs frees their slots */
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_true(reclaimed > 0);
	assert_int_equal(swap_slots_used(), reclaimed);
	mmput(mm);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(swap_cache_nr(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * The corner behind usemem's early memcg OOMs: every anon page is
 * active, none inactive, no file pages, and the flushed stats (a root
 * flush recent enough that the ratelimited flush skips) still show the
 * lists as they were.  shrink_lruvec() loops only while inactive anon or
 * file targets remain, and its aging step asks inactive_is_low() of the
 * flushed stats: nothing is scanned and nothing reclaimed, at every
 * priority and on the force_deactivate retry, as in the kernel.  Once a
 * flush shows the truth, aging deactivates and reclaim goes on.
 */
static void test_stale_stats_no_progress(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 64 * PAGE_SIZE, 0);
	struct lruvec *lruvec = lruvec_of(memcg);
	unsigned long i, reclaimed;

	assert_int_equal(swapon(128, SWAP_STORE_COPY), 0);
	write_pattern(vma, 64);
	lru_add_drain();
	mem_cgroup_flush_all();
	for (i = 0; i < 64; i++)
		folio_activate(pte_folio(ptep_get(vma_pte(vma, vma->vm_start + i * PAGE_SIZE))));
	lru_add_drain();
	assert_int_equal(lruvec_lru_size(lruvec, LRU_INACTIVE_ANON, MAX_NR_ZONES - 1), 0);
	assert_int_equal(lruvec_lru_size(lruvec, LRU_ACTIVE_ANON, MAX_NR_ZONES - 1), 64);
	assert_int_equal(lruvec_page_state(lruvec, NR_INACTIVE_ANON), 64);
	assert_int_equal(lruvec_page_state(lruvec, NR_ACTIVE_ANON), 0);

	reclaimed = try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_int_equal(reclaimed, 0);
	mem_cgroup_flush_all();
	assert_int_equal(memcg_stat(memcg, PGREFILL), 0);
	assert_int_equal(memcg_stat(memcg, PGSCAN_DIRECT), 0);
	assert_int_equal(lruvec_page_state(lruvec, NR_ACTIVE_ANON), 64);

	/*
	 * With the truth flushed: the aging steps at priorities 12 and 11
	 * deactivate 32 each (the young bits they clear were the faults'),
	 * priorities 4 to 1 scan the anon share (swappiness 60 of 200) of
	 * 64 >> priority, 9 pages, and priority 0 scans equally: one batch
	 * of 32 and the target is met.
	 */
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_int_equal(reclaimed, 41);
	assert_int_equal(memcg_ev(memcg, PGDEACTIVATE), 64);
	/* the aging steps' pgrefill, in the node's counter too (v7.2) */
	assert_true(memcg_stat(memcg, PGREFILL) >= 64);
	assert_int_equal(node_stat_sum(PGREFILL), memcg_stat(memcg, PGREFILL));
	assert_int_equal(swap_slots_used(), reclaimed);
	mmput(mm);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * The device takes one page per slot, so a large anon folio cannot go
 * whole: reclaim splits it (swpout_fallback) and swaps its pages one by
 * one, each piece taking its own trip through shrink_folio_list().
 */
static void test_large_anon_swapout_splits(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 64 * PAGE_SIZE, 2);
	unsigned long reclaimed, i, swapped = 0;

	mthp_stats_reset();
	assert_int_equal(swapon(128, SWAP_STORE_COPY), 0);
	write_pattern(vma, 64);
	lru_add_drain();
	assert_int_equal(mthp_stat_read(2, MTHP_STAT_ANON_FAULT_ALLOC), 16);
	/* four young PTEs would activate a folio: age them all first */
	for (i = 0; i < 64; i++)
		ptep_test_and_clear_young(vma_pte(vma, vma->vm_start + i * PAGE_SIZE));

	reclaimed = try_to_free_mem_cgroup_pages(memcg, 64, MEMCG_RECLAIM_MAY_SWAP, NULL);
	/* every folio split once, every page out, none activated or scanned twice */
	assert_int_equal(reclaimed, 64);
	assert_int_equal(mthp_stat_read(2, MTHP_STAT_SPLIT), 16);
	assert_int_equal(mthp_stat_read(2, MTHP_STAT_SWPOUT_FALLBACK), 16);
	assert_int_equal(memcg_ev(memcg, PGACTIVATE), 0);
	assert_int_equal(memcg_stat(memcg, PGSCAN_DIRECT), 64);
	assert_int_equal(memcg_stat(memcg, PGSTEAL_DIRECT), 64);
	for (i = 0; i < 64; i++)
		swapped += is_swap_pte(ptep_get(vma_pte(vma, vma->vm_start + i * PAGE_SIZE)));
	assert_int_equal(swapped, reclaimed);
	assert_int_equal(swap_slots_used(), reclaimed);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	check_pattern(vma, 64);
	assert_int_equal(swap_slots_used(), 0);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_memory_max(void **state)
{
	struct mem_cgroup *child = mem_cgroup_create(memcg, "leaf");
	struct address_space *file = shmem_file_setup(512, 0);
	struct mm_struct *mm = mm_alloc(child);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, 512 * PAGE_SIZE);
	struct mm_struct *amm = mm_alloc(child);
	struct vm_area_struct *anon = mmap_anon(amm, 256 * PAGE_SIZE, 0);
	unsigned long i;

	/*
	 * 768 pages in all, at most 128 resident: 640 must be in a swap
	 * device of 600 slots, so the anon faults run into an OOM.
	 */
	assert_int_equal(swapon(600, SWAP_STORE_ZSTD), 0);
	/* the parent's limit: reclaim has to come from the child */
	assert_int_equal(mem_cgroup_set_max(memcg, 128), 0);
	for (i = 0; i < 512; i++) {
		assert_int_equal(mm_access(vma, vma->vm_start + i * PAGE_SIZE, true), 0);
		assert_true(mem_cgroup_usage(memcg) <= 128);
		assert_true(mem_cgroup_usage(child) <= 128 + MEMCG_CHARGE_BATCH);
	}
	assert_true(memcg_stat(child, PGSTEAL_DIRECT) >= 512 - 128);
	assert_true(atomic_long_read(&memcg->memory_events[MEMCG_MAX]) > 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/* once swap is full nothing can go: the anon charge fails, OOM */
	for (i = 0; i < 256; i++) {
		vm_fault_t ret = mm_access(anon, anon->vm_start + i * PAGE_SIZE, true);

		if (ret) {
			assert_int_equal(ret, VM_FAULT_OOM);
			break;
		}
	}
	assert_true(i < 256);
	/* one charge failed, after its ladder ran out: one OOM, swap full */
	assert_int_equal(atomic_long_read(&memcg->memory_events[MEMCG_OOM]), 1);
	assert_int_equal(swap_slots_used(), 600);
	assert_true(mem_cgroup_usage(memcg) <= 128);

	mmput(amm);
	munmap_vma(vma);
	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	mem_cgroup_offline(child);
	mem_cgroup_wait_frees();
}

/* A memory.max write below usage reclaims down to it (memory_max_write). */
static void test_max_write(void **state)
{
	struct address_space *file = shmem_file_setup(200, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, 200 * PAGE_SIZE);
	unsigned long i;

	assert_int_equal(swapon(160, SWAP_STORE_ZSTD), 0);
	for (i = 0; i < 200; i++)
		assert_int_equal(mm_access(vma, vma->vm_start + i * PAGE_SIZE, true), 0);
	/* the write reclaims down to the new limit */
	assert_int_equal(mem_cgroup_set_max(memcg, 50), 0);
	assert_true(mem_cgroup_usage(memcg) <= 50);
	assert_true(mem_cgroup_reclaim_to_max(memcg));
	assert_int_equal(mem_cgroup_margin(memcg), 50 - mem_cgroup_usage(memcg));
	assert_true(swap_slots_used() >= 150 - MEMCG_CHARGE_BATCH);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/* with swap nearly full the anon pages cannot all go: the limit fails */
	{
		struct vm_area_struct *anon = mmap_anon(mm, 16 * PAGE_SIZE, 0);

		assert_int_equal(mem_cgroup_set_max(memcg, PAGE_COUNTER_MAX), 0);
		for (i = 0; i < 16; i++)
			assert_int_equal(mm_access(anon, anon->vm_start + i * PAGE_SIZE, true), 0);
		assert_int_equal(mem_cgroup_set_max(memcg, 8), -EBUSY);
		assert_int_equal(atomic_long_read(&memcg->memory_events[MEMCG_OOM]), 1);
		assert_false(mem_cgroup_reclaim_to_max(memcg));
		drain_all_stock();
		assert_true(mem_cgroup_usage(memcg) >= 16);
	}
	assert_int_equal(mem_cgroup_set_max(memcg, PAGE_COUNTER_MAX), 0);
	munmap_vma(vma);
	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(swap_slots_used(), 0);
}

/* lru_lock acquisitions from the cost sites, summed over their sites */
static u64 cost_site_acquisitions(void)
{
	struct lock_stat st;

	lru_cost_sites_read(&st);
	return st.acquired;
}

static u64 cost_lock_acquisitions(void)
{
	struct lock_stat st;

	lockstat_read_class("cost_lock", &st);
	return st.acquired;
}

static void reclaim_workload(void)
{
	struct address_space *file = shmem_file_setup(256, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, 256 * PAGE_SIZE);
	int round;

	for (round = 0; round < 3; round++) {
		write_pattern(vma, 256);
		assert_true(try_to_free_mem_cgroup_pages(memcg, 128, MEMCG_RECLAIM_MAY_SWAP,
							 NULL) > 0);
	}
	check_pattern(vma, 256);
	munmap_vma(vma);
	mmput(mm);
	shmem_file_free(file);
}

static void test_cost_lock_sites(void **state)
{
	assert_int_equal(swapon(1024, SWAP_STORE_ZSTD), 0);
	lockstat_reset();
	reclaim_workload();
	assert_true(cost_site_acquisitions() > 0);
	assert_int_equal(cost_lock_acquisitions(), 0);

	lrulab_switches[SW_VMSTAT_SCAN_COST] = true;
	lockstat_reset();
	reclaim_workload();
	assert_int_equal(cost_site_acquisitions(), 0);
	assert_true(cost_lock_acquisitions() > 0);
	/* the rotations went to the counter instead */
	mem_cgroup_flush_all();
	assert_true(lruvec_page_state(lruvec_of(memcg), PGROTATE_ANON) > 0);
	assert_true(lruvec_page_state(lruvec_of(memcg), NR_VMSCAN_WRITE) > 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* 16 MiB: watermarks min 128, low 160, high 192 */
static int setup_small(void **state)
{
	return reclaim_test_setup(4096, "t");
}

/*
 * Fill the node below the low watermark: kswapd, woken as the allocator
 * will wake it, reclaims (global reclaim, from the memcg that holds the
 * pages) until free pages are above the high watermark, and counts it
 * under the kswapd names.
 */
static void test_kswapd(void **state)
{
	struct zone *zone = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	unsigned long free, pages = 0;
	struct address_space *file = shmem_file_setup(4096, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, 4096 * PAGE_SIZE);

	assert_int_equal(zone->_watermark[WMARK_LOW], 160);
	assert_int_equal(zone->_watermark[WMARK_HIGH], 192);
	assert_int_equal(swapon(4096, SWAP_STORE_ZSTD), 0);
	assert_int_equal(kswapd_run(0, 1), 0);
	assert_int_equal(kswapd_run(0, 1), -EBUSY);

	/* above the low watermark a wakeup does nothing */
	wakeup_kswapd(NODE_DATA(0));
	kswapd_wait_idle(0);
	assert_int_equal(sum_vm_event(PAGEOUTRUN), 0);
	assert_int_equal(kswapd_nr_wakeups(0), 0);

	/*
	 * The faults below the low watermark would wake it themselves, at a
	 * point that depends on the per-CPU drift: fill with it stopped, so
	 * that only the wakeups this test makes count.
	 */
	kswapd_stop(0);
	do {
		assert_int_equal(mm_access(vma, vma->vm_start + pages * PAGE_SIZE, true), 0);
		pages++;
		drain_all_pages();
		vmstat_refresh();
	} while (zone_page_state(zone, NR_FREE_PAGES) >= 150);
	assert_int_equal(kswapd_run(0, 1), 0);
	/*
	 * Every page was just written: the first run finds each young,
	 * clears the bit and keeps it for one more trip; priorities run out
	 * before it comes round again.
	 */
	wakeup_kswapd(NODE_DATA(0));
	kswapd_wait_idle(0);
	assert_int_equal(sum_vm_event(PAGEOUTRUN), 1);
	assert_int_equal(node_stat_sum(PGSTEAL_KSWAPD), 0);
	assert_true(node_stat_sum(PGSCAN_KSWAPD) > 0);
	/* the next allocation's wakeup: now they go */
	wakeup_kswapd(NODE_DATA(0));
	kswapd_wait_idle(0);
	drain_all_pages();
	vmstat_refresh();
	free = zone_page_state(zone, NR_FREE_PAGES);
	assert_true(free >= 192);
	assert_int_equal(sum_vm_event(PAGEOUTRUN), 2);
	assert_true(node_stat_sum(PGSTEAL_KSWAPD) > 0);
	assert_int_equal(node_stat_sum(PGSTEAL_DIRECT), 0);
	assert_int_equal(swap_slots_used(), node_stat_sum(PGSTEAL_KSWAPD));
	assert_int_equal(memcg_stat(memcg, PGSTEAL_KSWAPD), node_stat_sum(PGSTEAL_KSWAPD));

	kswapd_stop(0);
	munmap_vma(vma);
	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * The allocator wakes kswapd itself: not while free pages stay at or
 * above the low watermark, exactly once for the allocation that takes
 * them under it, and not at all for one that the pcp list serves.
 */
static void test_kswapd_alloc_wakeup(void **state)
{
	struct zone *zone = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	static struct folio *f[4096];
	struct folio *hit;
	unsigned long n = 0;

	assert_int_equal(zone->_watermark[WMARK_LOW], 160);
	assert_int_equal(kswapd_run(0, 1), 0);
	/*
	 * Batch 1 at this size, doubled by each refill without a free in
	 * between (alloc_factor, up to 32 pages): no wakeup while the
	 * buddy keeps the low watermark's 160 pages.
	 */
	for (;;) {
		f[n] = folio_alloc(0, 0);
		assert_non_null(f[n]);
		n++;
		if (zone_page_state_snapshot(zone, NR_FREE_PAGES) < 160)
			break;
		assert_int_equal(kswapd_nr_wakeups(0), 0);
	}
	/* the refill that took it under: one wakeup */
	assert_int_equal(kswapd_nr_wakeups(0), 1);
	kswapd_wait_idle(0);
	/* nothing on the LRU: it ran once and gave up */
	assert_int_equal(sum_vm_event(PAGEOUTRUN), 1);
	assert_int_equal(node_stat_sum(PGSTEAL_KSWAPD), 0);

	/* still below low, but a pcp hit never looks at the watermark */
	folio_put(f[--n]);
	hit = folio_alloc(0, 0);
	assert_non_null(hit);
	assert_int_equal(kswapd_nr_wakeups(0), 1);
	folio_put(hit);

	kswapd_stop(0);
	while (n)
		folio_put(f[--n]);
	assert_int_equal(sum_vm_event(PAGEOUTRUN), 1);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * With no kswapd, an allocation that finds the node empty reclaims for
 * itself (direct reclaim) and retries: it succeeds, from pages that
 * went to swap, counted under the direct names.
 */
/* Teardown stops a kswapd still running and turns swap off. */
static void test_exit_stops_kswapd(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	(void)state;
	cfg.nr_cpus = 2;
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(swapon(64, SWAP_STORE_COPY), 0);
	assert_int_equal(kswapd_run(0, 1), 0);
	lrulab_exit();
	assert_int_equal(get_nr_swap_pages(), 0);
	/* nothing left over: the next system starts both afresh */
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(kswapd_run(0, 1), 0);
	assert_int_equal(swapon(64, SWAP_STORE_COPY), 0);
	assert_int_equal(get_nr_swap_pages(), 64);
	lrulab_exit();
}

/*
 * Memcg offline reparents its LRU folios (v7.2, both LRUs): 64 file
 * pages read in a child are on the parent's lruvec after the child goes
 * offline, counted there (lists, LRU sizes, NR_FILE_PAGES), while their
 * charges stay with the child until they are freed; the parent's
 * reclaim takes them from its own lists.
 */
static unsigned long file_lru_local(struct lruvec *lruvec)
{
	mem_cgroup_flush_all();
	return lruvec_page_state_local(lruvec, NR_INACTIVE_FILE) +
	       lruvec_page_state_local(lruvec, NR_ACTIVE_FILE);
}

static void offline_reparents(void)
{
	struct mem_cgroup *child = mem_cgroup_create(memcg, "child");
	struct address_space *file = file_setup(64);
	struct lruvec *from, *to;
	unsigned long i, reclaimed, usage;
	int type;

	assert_non_null(child);
	assert_non_null(file);
	from = lruvec_of(child);
	to = lruvec_of(memcg);
	for (i = 0; i < 64; i++)
		assert_int_equal(file_read_page(file, i, child, NULL), 0);
	lru_add_drain();
	assert_int_equal(file_lru_local(from), 64);
	assert_int_equal(file_lru_local(to), 0);
	usage = mem_cgroup_usage(child) - memcg_stock_pages(child);
	assert_int_equal(usage, 64);

	mem_cgroup_offline(child);
	assert_int_equal(file_lru_local(from), 0);
	assert_int_equal(file_lru_local(to), 64);
	assert_int_equal(lruvec_page_state_local(from, NR_FILE_PAGES), 0);
	assert_int_equal(lruvec_page_state_local(to, NR_FILE_PAGES), 64);
	for (i = 0; i < 64; i++) {
		struct folio *folio = filemap_get_folio(file, i);

		assert_ptr_equal(folio_memcg(folio), memcg);
		assert_ptr_equal(folio_memcg_charged(folio), child);
		assert_ptr_equal(folio_lruvec(folio), to);
		folio_put(folio);
	}
	if (lru_gen_enabled()) {
		long pages = 0;
		int gen, zone;

		for_each_gen_type_zone(gen, type, zone) {
			assert_int_equal(from->lrugen.nr_pages[gen][type][zone], 0);
			pages += to->lrugen.nr_pages[gen][type][zone];
		}
		assert_int_equal(pages, 64);
		/* the parent took every generation first */
		for (type = 0; type < ANON_AND_FILE; type++)
			assert_int_equal(get_nr_gens(to, type), (int)MAX_NR_GENS);
	} else {
		assert_int_equal(lruvec_lru_size(from, LRU_INACTIVE_FILE, MAX_NR_ZONES - 1), 0);
		assert_int_equal(lruvec_lru_size(to, LRU_INACTIVE_FILE, MAX_NR_ZONES - 1), 64);
	}
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/* the parent's reclaim finds them on its lists; they uncharge the child */
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 64, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_true(reclaimed > 0);
	assert_int_equal(memcg_stat(memcg, PGSTEAL_DIRECT), reclaimed);
	assert_int_equal(memcg_stat(child, PGSTEAL_DIRECT), 0);
	assert_int_equal(mem_cgroup_usage(child), usage - reclaimed);
	assert_int_equal(file_lru_local(to), 64 - reclaimed);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	file_free(file);
	assert_int_equal(file_lru_local(to), 0);
	assert_int_equal(lruvec_page_state_local(to, NR_FILE_PAGES), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_offline_reparents(void **state)
{
	assert_false(lru_gen_enabled());
	offline_reparents();
}

static int setup_mglru(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = 2;
	cfg.node_pages = 16384;
	cfg.lru_gen = LRU_GEN_CAPS_ALL;
	lrulab_switches_clear();
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		return -1;
	memcg = mem_cgroup_create(root_mem_cgroup, "v");
	return memcg ? 0 : -1;
}

static void test_offline_reparents_mglru(void **state)
{
	assert_true(lru_gen_enabled());
	offline_reparents();
}

static void test_alloc_direct_reclaim(void **state)
{
	struct zone *zone = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	struct address_space *file = shmem_file_setup(2048, 0);
	static struct folio *f[4096];
	unsigned long i, n = 0, free_before;
	struct folio *folio;

	assert_int_equal(swapon(4096, SWAP_STORE_ZSTD), 0);
	/* unmapped shmem: no young PTE to win it a second trip */
	for (i = 0; i < 2048; i++) {
		assert_int_equal(shmem_get_folio(file, i, memcg, &folio), 0);
		folio_put(folio);
	}
	lru_add_drain_all();
	assert_int_equal(node_stat_sum(PGSTEAL_DIRECT), 0);

	do {
		assert_true(n < 4096);
		free_before = zone_free_pages_exact(zone);
		f[n] = folio_alloc(0, 0);
		assert_non_null(f[n]);
		n++;
	} while (node_stat_sum(PGSTEAL_DIRECT) == 0);
	/* reclaim ran for the allocation that found nothing free, not before */
	assert_int_equal(free_before, 0);
	assert_int_equal(sum_vm_event(PAGEOUTRUN), 0);
	assert_int_equal(node_stat_sum(PGSTEAL_KSWAPD), 0);
	assert_true(node_stat_sum(PGSTEAL_DIRECT) >= SWAP_CLUSTER_MAX);
	assert_int_equal(swap_slots_used(), node_stat_sum(PGSTEAL_DIRECT));
	assert_int_equal(memcg_stat(memcg, PGSTEAL_DIRECT), node_stat_sum(PGSTEAL_DIRECT));

	while (n)
		folio_put(f[--n]);
	shmem_file_free(file);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_scan_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inactive_is_low, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cost_decay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cost_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shmem_reclaim, setup, teardown),
		cmocka_unit_test_setup_teardown(test_anon_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_stats_no_progress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_anon_swapout_splits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_max, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cost_lock_sites, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offline_reparents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_offline_reparents_mglru, setup_mglru, teardown),
		cmocka_unit_test_setup_teardown(test_kswapd, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_kswapd_alloc_wakeup, setup_small, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_direct_reclaim, setup_small, teardown),
		cmocka_unit_test(test_exit_stops_kswapd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
