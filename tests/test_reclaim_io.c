// SPDX-License-Identifier: MIT
/*
 * Reclaim against a slow device and a crowded node: anon swap-out to the
 * asynchronous device (written in one pass, rotated to the inactive tail
 * by the write's end, freed by the next pass; swap-in while the write is
 * in flight), too_many_isolated() throttling direct reclaimers, and
 * kswapd raising its priority after passes that scanned too little.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/mm_inline.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap_state.h>
#include <lrulab/vmscan.h>

#include "reclaim_test.h"

static int setup(void **state)
{
	return reclaim_test_setup(16384, "t");
}

/* 16 MiB: watermarks min 128, low 160, high 192 */
static int setup_small(void **state)
{
	return reclaim_test_setup(4096, "t");
}

static struct folio *folio_at(struct vm_area_struct *vma, unsigned long i)
{
	pte_t pte = ptep_get(vma_pte(vma, vma->vm_start + i * PAGE_SIZE));

	if (is_swap_pte(pte))
		return __swap_cache_folio(pte_to_swp_entry(pte));
	return pte_folio(pte);
}

static void age_ptes(struct vm_area_struct *vma, unsigned long first, unsigned long n)
{
	unsigned long i;

	for (i = first; i < first + n; i++)
		ptep_test_and_clear_young(vma_pte(vma, vma->vm_start + i * PAGE_SIZE));
}

/* The @n folios nearest the tail (or head) of @lru, in order. */
static void list_end(enum lru_list lru, bool tail, struct folio **f, unsigned long n)
{
	struct list_head *head = &lruvec_of(memcg)->lists[lru], *pos = head;
	unsigned long i;

	for (i = 0; i < n; i++) {
		pos = tail ? pos->prev : pos->next;
		assert_ptr_not_equal(pos, head);
		f[i] = list_entry(pos, struct folio, lru);
	}
}

static bool in(struct folio *folio, struct folio **f, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (f[i] == folio)
			return true;
	return false;
}

/*
 * One shrink_inactive_list() chunk by hand: isolate @nr from the tail
 * of inactive anon, shrink them, put back what is left.
 */
static unsigned long shrink_chunk(unsigned long nr, struct reclaim_stat *stat)
{
	struct lruvec *lruvec = lruvec_of(memcg);
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX, .target_mem_cgroup = memcg,
		.priority = DEF_PRIORITY, .reclaim_idx = MAX_NR_ZONES - 1,
		.may_writepage = 1, .may_unmap = 1, .may_swap = 1,
	};
	unsigned long scanned, taken, reclaimed;
	LIST_HEAD(list);

	lru_add_drain();
	spin_lock(&lruvec->lru_lock);
	taken = isolate_lru_folios(nr, lruvec, &list, &scanned, &sc, LRU_INACTIVE_ANON);
	spin_unlock(&lruvec->lru_lock);
	assert_int_equal(taken, nr);
	reclaimed = shrink_folio_list(&list, NODE_DATA(0), &sc, stat, false);
	spin_lock(&lruvec->lru_lock);
	move_folios_to_lru(lruvec, &list);
	spin_unlock(&lruvec->lru_lock);
	return reclaimed;
}

static unsigned long node_stat(enum node_stat_item item)
{
	return node_page_state_snapshot(NODE_DATA(0), item);
}

/*
 * 32 old pages at the tail, 32 young ones before them.  The first pass
 * writes the old ones and keeps them all, under writeback with
 * PG_reclaim, at the head; their writes' ends rotate each to the tail
 * (pgrotated), and the next pass over the tail frees all 32.
 */
static void test_async_swapout(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 64 * PAGE_SIZE, 0);
	struct folio *old[32], *end[32];
	struct reclaim_stat stat;
	struct swap_io_stat io;
	unsigned long i;

	assert_int_equal(swapon(256, SWAP_STORE_COPY), 0);
	assert_int_equal(swap_io_start(100), 0);
	assert_true(swap_io_async());
	write_pattern(vma, 64);
	lru_add_drain();
	age_ptes(vma, 0, 32);
	for (i = 0; i < 32; i++)
		old[i] = folio_at(vma, i);

	swap_io_quiesce(true);
	assert_int_equal(shrink_chunk(32, &stat), 0);
	assert_int_equal(stat.nr_pageout, 32);
	assert_int_equal(sum_vm_event(PSWPOUT), 32);
	assert_int_equal(memcg_ev(memcg, PSWPOUT), 32);
	assert_int_equal(node_stat(NR_VMSCAN_WRITE), 32);
	assert_int_equal(node_stat(NR_WRITEBACK), 32);
	swap_io_stats(&io);
	assert_int_equal(io.async_writes, 32);
	assert_int_equal(io.in_flight, 32);
	assert_int_equal(sum_vm_event(PGROTATED), 0);
	assert_int_equal(swap_cache_nr(), 32);
	list_end(LRU_INACTIVE_ANON, false, end, 32);
	for (i = 0; i < 32; i++) {
		assert_ptr_equal(folio_at(vma, i), old[i]);
		assert_true(folio_test_writeback(old[i]));
		assert_true(folio_test_reclaim(old[i]));
		assert_true(folio_test_lru(old[i]));
		assert_false(folio_test_active(old[i]));
		assert_false(folio_test_locked(old[i]));
		assert_true(in(old[i], end, 32));
	}

	swap_io_quiesce(false);
	swap_io_wait_idle();
	assert_int_equal(sum_vm_event(PGROTATED), 32);
	assert_int_equal(node_stat(NR_WRITEBACK), 0);
	swap_io_stats(&io);
	assert_int_equal(io.in_flight, 0);
	list_end(LRU_INACTIVE_ANON, true, end, 32);
	for (i = 0; i < 32; i++) {
		assert_false(folio_test_writeback(old[i]));
		assert_false(folio_test_reclaim(old[i]));
		assert_false(folio_test_dirty(old[i]));
		assert_true(in(old[i], end, 32));
	}

	assert_int_equal(shrink_chunk(32, &stat), 32);
	assert_int_equal(stat.nr_pageout, 0);
	assert_int_equal(sum_vm_event(PSWPOUT), 32);
	assert_int_equal(swap_cache_nr(), 0);
	assert_int_equal(swap_slots_used(), 32);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/* every swap-in read its page from the device, and waited for it */
	swap_io_stats(&io);
	assert_int_equal(io.reads, 0);
	check_pattern(vma, 64);
	assert_int_equal(memcg_ev(memcg, PSWPIN), 32);
	swap_io_stats(&io);
	assert_int_equal(io.reads, 32);
	mmput(mm);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* CPU 1: writes its mm's pages, then runs (spins) until told to stop */
struct remote_cpu {
	struct vm_area_struct *vma;
	bool leave;			/* leave CPU 1 before the reclaim */
	int ready, stop;
};

static void *remote_cpu_fn(void *arg)
{
	struct remote_cpu *rc = arg;

	if (cpu_enter(1, false))
		return NULL;
	write_pattern(rc->vma, 32);
	lru_add_drain();
	age_ptes(rc->vma, 0, 32);
	if (rc->leave)
		cpu_exit();
	__atomic_store_n(&rc->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&rc->stop, __ATOMIC_ACQUIRE))
		;
	if (!rc->leave)
		cpu_exit();
	return NULL;
}

/*
 * Reclaim's TLB flushes.  CPU 0 unmaps 32 dirty pages of an mm that only
 * CPU 1 ran: each is deferred to the batch and flushed before its write
 * starts, one remote flush a page, each an IPI to CPU 1 while it runs,
 * none once it has gone (lazy; its bit stays, as x86 clears it lazily).
 */
static void reclaim_remote(bool running)
{
	struct mm_struct *theirs = mm_alloc(memcg);
	struct remote_cpu rc = { .vma = mmap_anon(theirs, 32 * PAGE_SIZE, 0), .leave = !running };
	unsigned long reclaimed, flushes, received;
	struct reclaim_stat stat;
	pthread_t tid;

	assert_int_equal(swapon(256, SWAP_STORE_COPY), 0);
	assert_int_equal(swap_io_start(100), 0);
	swap_io_quiesce(true);
	pthread_create(&tid, NULL, remote_cpu_fn, &rc);
	while (!__atomic_load_n(&rc.ready, __ATOMIC_ACQUIRE))
		;
	reclaimed = shrink_chunk(32, &stat);
	flushes = sum_vm_event(NR_TLB_REMOTE_FLUSH);
	received = sum_vm_event(NR_TLB_REMOTE_FLUSH_RECEIVED);
	__atomic_store_n(&rc.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);

	assert_int_equal(reclaimed, 0);
	assert_int_equal(stat.nr_pageout, 32);
	assert_int_equal(flushes, 32);
	assert_int_equal(received, running ? 32 : 0);
	assert_true(cpumask_test_cpu(1, mm_cpumask(theirs)));
	assert_int_equal(cpumask_weight_but(mm_cpumask(theirs), 1), 0);
	swap_io_quiesce(false);
	swap_io_wait_idle();
	check_pattern(rc.vma, 32);
	mmput(theirs);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_reclaim_flush_running(void **state)
{
	reclaim_remote(true);
}

static void test_reclaim_flush_lazy(void **state)
{
	reclaim_remote(false);
}

/* Pages of the reclaimer's own mm, which no other CPU ran: flushed here. */
static void test_reclaim_flush_local(void **state)
{
	struct mm_struct *mine = mm_alloc(memcg);
	struct vm_area_struct *own = mmap_anon(mine, 32 * PAGE_SIZE, 0);
	struct reclaim_stat stat;

	assert_int_equal(swapon(256, SWAP_STORE_COPY), 0);
	write_pattern(own, 32);
	lru_add_drain();
	age_ptes(own, 0, 32);
	assert_true(cpumask_test_cpu(0, mm_cpumask(mine)));
	assert_int_equal(cpumask_weight_but(mm_cpumask(mine), 0), 0);
	assert_int_equal(shrink_chunk(32, &stat), 32);
	assert_int_equal(stat.nr_pageout, 32);
	assert_int_equal(sum_vm_event(NR_TLB_REMOTE_FLUSH), 0);
	assert_int_equal(sum_vm_event(NR_TLB_REMOTE_FLUSH_RECEIVED), 0);
	mmput(mine);
}

/*
 * A fault on a page whose write is in flight finds its folio in the swap
 * cache: no read from the device, the data is the page's own.  The
 * folio stays cached (the slot with it) while the write runs; the write
 * then ends and rotates it like the others, reclaim keeps it for its
 * young PTE, and the zap lets the cache go.  A store into the page
 * meanwhile reaches whatever reads it next.
 */
static void test_swapin_during_writeback(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 32 * PAGE_SIZE, 0);
	struct folio *f5, *f6;
	struct reclaim_stat stat;
	struct swap_io_stat io;
	unsigned long *p;
	pte_t pte;

	assert_int_equal(swapon(64, SWAP_STORE_ZSTD), 0);
	assert_int_equal(swap_io_start(100), 0);
	write_pattern(vma, 32);
	lru_add_drain();
	age_ptes(vma, 0, 32);
	swap_io_quiesce(true);
	assert_int_equal(shrink_chunk(32, &stat), 0);
	f5 = folio_at(vma, 5);
	f6 = folio_at(vma, 6);

	/* read page 5, write page 6: both from the swap cache */
	pte = ptep_get(vma_pte(vma, vma->vm_start + 5 * PAGE_SIZE));
	assert_true(is_swap_pte(pte));
	assert_int_equal(mm_access(vma, vma->vm_start + 5 * PAGE_SIZE, false), 0);
	assert_int_equal(mm_access(vma, vma->vm_start + 6 * PAGE_SIZE, true), 0);
	assert_ptr_equal(folio_at(vma, 5), f5);
	assert_ptr_equal(folio_at(vma, 6), f6);
	p = folio_address(f5);
	assert_int_equal(p[5], 5 * 2654435761UL + 1);
	p = folio_address(f6);
	__atomic_store_n(&p[6], 0xdeadUL, __ATOMIC_RELAXED);
	assert_int_equal(sum_vm_event(PSWPIN), 0);
	swap_io_stats(&io);
	assert_int_equal(io.reads, 0);
	assert_int_equal(__swap_count(pte_to_swp_entry(pte)), 0);
	assert_true(folio_test_swapcache(f5));
	assert_true(folio_test_writeback(f5));
	assert_int_equal(swap_slots_used(), 32);
	assert_int_equal(swap_cache_nr(), 32);

	swap_io_quiesce(false);
	swap_io_wait_idle();
	/* mapped, but clean and on the LRU: rotated too */
	assert_int_equal(sum_vm_event(PGROTATED), 32);
	assert_true(folio_test_swapcache(f5));
	/* the tail's next pass: 30 go, the two young ones stay */
	assert_int_equal(shrink_chunk(32, &stat), 30);
	assert_int_equal(stat.nr_ref_keep, 2);
	assert_int_equal(swap_cache_nr(), 2);
	assert_int_equal(swap_slots_used(), 32);

	p = folio_address(f6);
	assert_int_equal(__atomic_load_n(&p[6], __ATOMIC_RELAXED), 0xdeadUL);
	__atomic_store_n(&p[6], 6 * 2654435761UL + 1, __ATOMIC_RELAXED);
	check_pattern(vma, 32);
	assert_int_equal(sum_vm_event(PSWPIN), 30);
	swap_io_stats(&io);
	assert_int_equal(io.reads, 30);
	mmput(mm);
	assert_int_equal(swap_cache_nr(), 0);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* The synchronous device frees in the same pass: nothing rotates. */
static void test_sync_swapout(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 32 * PAGE_SIZE, 0);
	struct reclaim_stat stat;

	assert_int_equal(swapon(64, SWAP_STORE_COPY), 0);
	assert_false(swap_io_async());
	write_pattern(vma, 32);
	lru_add_drain();
	age_ptes(vma, 0, 32);
	assert_int_equal(shrink_chunk(32, &stat), 32);
	assert_int_equal(stat.nr_pageout, 32);
	assert_int_equal(sum_vm_event(PSWPOUT), 32);
	assert_int_equal(node_stat(NR_VMSCAN_WRITE), 32);
	assert_int_equal(sum_vm_event(PGROTATED), 0);
	assert_int_equal(node_stat(NR_WRITEBACK), 0);
	check_pattern(vma, 32);
	mmput(mm);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* Isolate @n pages of inactive anon, as a reclaimer in mid-pass holds them. */
static void isolate_anon(struct list_head *list, unsigned long n)
{
	struct lruvec *lruvec = lruvec_of(memcg);
	struct scan_control sc = { .may_unmap = 1 };
	unsigned long scanned;

	spin_lock(&lruvec->lru_lock);
	assert_int_equal(isolate_lru_folios(n, lruvec, list, &scanned, &sc,
					    LRU_INACTIVE_ANON), n);
	spin_unlock(&lruvec->lru_lock);
	mod_node_page_state(NODE_DATA(0), NR_ISOLATED_ANON, (long)n);
	vmstat_refresh();
}

static void putback_anon(struct list_head *list, unsigned long n)
{
	struct lruvec *lruvec = lruvec_of(memcg);

	spin_lock(&lruvec->lru_lock);
	move_folios_to_lru(lruvec, list);
	spin_unlock(&lruvec->lru_lock);
	mod_node_page_state(NODE_DATA(0), NR_ISOLATED_ANON, -(long)n);
	vmstat_refresh();
}

static unsigned long throttled(void)
{
	unsigned long nr;
	u64 ns;

	reclaim_throttle_stats(0, VMSCAN_THROTTLE_ISOLATED, &nr, &ns);
	return nr;
}

/*
 * 64 inactive anon pages, k of them isolated elsewhere: the limit is an
 * eighth of the 64 - k left.  At k = 8 (8 > 56 / 8) each
 * shrink_inactive_list() call waits once (HZ/50: nobody is there to
 * wake it), finds it still too many and gives up: priority 0 splits the
 * 56 into chunks of 32 and 24, so two waits, nothing scanned.  At k = 7
 * (7 > 57 / 8 is false) reclaim goes ahead.
 */
static void test_too_many_isolated(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 64 * PAGE_SIZE, 0);
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX, .target_mem_cgroup = memcg,
		.priority = 0, .reclaim_idx = MAX_NR_ZONES - 1,
		.may_writepage = 1, .may_unmap = 1, .may_swap = 1,
	};
	unsigned long nr;
	LIST_HEAD(held);
	u64 ns;

	assert_int_equal(swapon(128, SWAP_STORE_COPY), 0);
	write_pattern(vma, 64);
	lru_add_drain();
	vmstat_refresh();
	assert_int_equal(node_page_state(NODE_DATA(0), NR_INACTIVE_ANON), 64);

	isolate_anon(&held, 8);
	shrink_lruvec(lruvec_of(memcg), &sc);
	reclaim_throttle_stats(0, VMSCAN_THROTTLE_ISOLATED, &nr, &ns);
	assert_int_equal(nr, 2);
	/* asleep, up to HZ/50 each (a condition variable may wake early) */
	assert_true(ns > 0);
	assert_int_equal(sc.nr_reclaimed, 0);
	assert_int_equal(memcg_stat(memcg, PGSCAN_DIRECT), 0);
	putback_anon(&held, 8);

	/*
	 * Old pages this time, so that the first chunk meets the target and
	 * is the only one: the second would read the node counters after
	 * the putback, which lag by up to a threshold per CPU.
	 */
	age_ptes(vma, 0, 64);
	isolate_anon(&held, 7);
	shrink_lruvec(lruvec_of(memcg), &sc);
	assert_int_equal(throttled(), 2);
	assert_int_equal(sc.nr_reclaimed, 32);
	assert_int_equal(memcg_stat(memcg, PGSCAN_DIRECT), 32);
	putback_anon(&held, 7);

	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * kswapd on a node it cannot balance: 150 pages free, high watermark
 * 192, 50 clean file pages to reclaim.  Priorities 12 to 6 scan nothing
 * (50 >> 6 = 0).  Each pass from 5 on reclaims everything it scans, but
 * far less than the 192 asked for, so the priority rises after every
 * one: 50 >> 5 = 1, 49 >> 4 = 3, 46 >> 3 = 5, 41 >> 2 = 10,
 * 31 >> 1 = 15; 34 pages in all, 16 left.  (Raising it only after a pass
 * that freed nothing takes 49 in 49 passes of one page each, down to
 * the last page that 1 >> 1 no longer reaches.)
 */
static void test_kswapd_raises_priority(void **state)
{
	struct zone *zone = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	struct address_space *file = file_setup(50);
	static struct folio *f[4096];
	unsigned long i, n = 0;

	for (i = 0; i < 50; i++)
		assert_int_equal(file_read_page(file, i, memcg, NULL), 0);
	lru_add_drain();
	while (zone_page_state_snapshot(zone, NR_FREE_PAGES) > 150) {
		f[n] = folio_alloc(0, 0);
		assert_non_null(f[n]);
		n++;
	}
	assert_int_equal(lruvec_lru_size(lruvec_of(memcg), LRU_INACTIVE_FILE,
					 MAX_NR_ZONES - 1), 50);

	assert_int_equal(kswapd_run(0, 1), 0);
	wakeup_kswapd(NODE_DATA(0));
	kswapd_wait_idle(0);
	kswapd_stop(0);
	assert_int_equal(sum_vm_event(PAGEOUTRUN), 1);
	assert_int_equal(node_stat_sum(PGSCAN_KSWAPD), 34);
	assert_int_equal(node_stat_sum(PGSTEAL_KSWAPD), 34);
	assert_int_equal(lruvec_lru_size(lruvec_of(memcg), LRU_INACTIVE_FILE,
					 MAX_NR_ZONES - 1), 16);

	while (n)
		folio_put(f[--n]);
	file_free(file);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_async_swapout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swapin_during_writeback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclaim_flush_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclaim_flush_lazy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclaim_flush_local, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_swapout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_many_isolated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kswapd_raises_priority, setup_small,
						teardown),
	};

	(void)argc;
	(void)argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
