// SPDX-License-Identifier: MIT
/*
 * Regular files and their reclaim: reads fill the file LRU and mark
 * folios accessed (a second read activates), clean folios are dropped
 * leaving shadows that refaults find, dirty folios are left to the
 * flusher (PG_reclaim, nr_vmscan_immediate_reclaim) and freed by the
 * scan after their writeback rotated them, and the data survives it
 * all; then the flusher thread woken by reclaim itself.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/fs.h>
#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include <lrulab/mm_inline.h>
#include <lrulab/swap.h>
#include <lrulab/vmscan.h>

#include "reclaim_test.h"

static int setup(void **state)
{
	return reclaim_test_setup(16384, "f");
}

static unsigned long stat_of(enum node_stat_item item)
{
	mem_cgroup_flush_all();
	return lruvec_page_state(lruvec_of(memcg), item);
}

/* node-only items (nr_vmscan_immediate_reclaim) */
static unsigned long node_stat(enum node_stat_item item)
{
	vmstat_refresh();
	return global_node_page_state(item);
}

static unsigned long ev(enum vm_event_item item)
{
	mem_cgroup_flush_all();
	return memcg_events(memcg, item);
}

static unsigned long lru_pages(enum lru_list lru)
{
	return lruvec_lru_size(lruvec_of(memcg), lru, MAX_NR_ZONES - 1);
}

/* Page @i of a test file holds @i * 7 + 1 in its word @i % 512. */
static void fill(unsigned long *page, unsigned long i)
{
	memset(page, 0, PAGE_SIZE);
	page[i % 512] = i * 7 + 1;
}

static void check_page(const unsigned long *page, unsigned long i)
{
	assert_int_equal(page[i % 512], i * 7 + 1);
	assert_int_equal(page[(i + 1) % 512], 0);
}

/* Write pages [0, @n) of @file with their pattern. */
static void write_pages(struct address_space *file, unsigned long n)
{
	unsigned long buf[PAGE_SIZE / sizeof(long)], i;

	for (i = 0; i < n; i++) {
		fill(buf, i);
		assert_int_equal(file_write_page(file, i, memcg, buf), 0);
	}
}

/* Check pages [0, @n): through the page cache, or the store itself. */
static void check_pages(struct address_space *file, unsigned long n, bool store)
{
	unsigned long buf[PAGE_SIZE / sizeof(long)], i;

	for (i = 0; i < n; i++) {
		if (store)
			file_store_read(file, i, buf);
		else
			assert_int_equal(file_read_page(file, i, memcg, buf), 0);
		check_page(buf, i);
	}
}

static void test_read_fills_file_lru(void **state)
{
	struct address_space *file = file_setup(8);
	unsigned long buf[PAGE_SIZE / sizeof(long)];
	unsigned long i;

	assert_non_null(file);
	assert_int_equal(file_read_page(file, 8, memcg, buf), -EINVAL);
	for (i = 0; i < 8; i++) {
		assert_int_equal(file_read_page(file, i, memcg, buf), 0);
		assert_int_equal(buf[0], 0);	/* a new file reads as zeroes */
	}
	lru_add_drain();
	assert_int_equal(stat_of(NR_FILE_PAGES), 8);
	assert_int_equal(stat_of(NR_SHMEM), 0);
	assert_int_equal(lru_pages(LRU_INACTIVE_FILE), 8);
	assert_int_equal(mem_cgroup_usage(memcg) - memcg_stock_pages(memcg), 8);

	/* the second read of a referenced folio activates it */
	for (i = 0; i < 8; i++)
		assert_int_equal(file_read_page(file, i, memcg, NULL), 0);
	lru_add_drain();
	assert_int_equal(lru_pages(LRU_INACTIVE_FILE), 0);
	assert_int_equal(lru_pages(LRU_ACTIVE_FILE), 8);
	assert_int_equal(ev(PGACTIVATE), 8);
	file_free(file);
	assert_int_equal(mem_cgroup_usage(memcg) - memcg_stock_pages(memcg), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * Clean pages go without I/O, each leaving a shadow; reading them again
 * refaults through it and brings the store's data back.
 */
static void test_clean_reclaim_refault(void **state)
{
	struct address_space *file = file_setup(64);
	unsigned long reclaimed;

	write_pages(file, 64);
	lru_add_drain();
	assert_int_equal(stat_of(NR_FILE_DIRTY), 64);
	assert_int_equal(filemap_write_and_wait(file), 64);
	assert_int_equal(stat_of(NR_FILE_DIRTY), 0);
	assert_int_equal(stat_of(NR_WRITEBACK), 0);
	check_pages(file, 64, true);

	/* no swap: file only; once-read folios are reclaimed clean */
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 64, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_int_equal(reclaimed, 64);
	assert_int_equal(memcg_stat(memcg, PGSTEAL_FILE), 64);
	assert_int_equal(stat_of(NR_FILE_PAGES), 0);
	assert_int_equal(atomic_long_read(&file->nrswapped), 64);	/* shadows */
	assert_int_equal(mem_cgroup_usage(memcg) - memcg_stock_pages(memcg), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	check_pages(file, 64, false);
	assert_int_equal(stat_of(WORKINGSET_REFAULT_FILE), 64);
	assert_int_equal(atomic_long_read(&file->nrswapped), 0);
	assert_int_equal(stat_of(NR_FILE_PAGES), 64);
	file_free(file);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * A file whose store keeps no data (replay's): the same reclaim, shadows
 * and refaults as test_clean_reclaim_refault, every count equal, and
 * every read, from the cache or the store, zeroes.
 */
static void test_nodata_same_counts(void **state)
{
	struct address_space *file = file_setup_nodata(64);
	unsigned long buf[PAGE_SIZE / sizeof(long)], i;
	struct file f;

	assert_non_null(file);
	assert_true(mapping_regular(file));
	write_pages(file, 64);
	lru_add_drain();
	assert_int_equal(stat_of(NR_FILE_DIRTY), 64);
	assert_int_equal(filemap_write_and_wait(file), 64);
	assert_int_equal(stat_of(NR_FILE_DIRTY), 0);
	assert_int_equal(try_to_free_mem_cgroup_pages(memcg, 64, MEMCG_RECLAIM_MAY_SWAP, NULL),
			 64);
	assert_int_equal(memcg_stat(memcg, PGSTEAL_FILE), 64);
	assert_int_equal(stat_of(NR_FILE_PAGES), 0);
	assert_int_equal(atomic_long_read(&file->nrswapped), 64);
	for (i = 0; i < 64; i++) {
		memset(buf, 0xa5, sizeof(buf));
		file_store_read(file, i, buf);
		assert_int_equal(buf[i % 512], 0);
		memset(buf, 0xa5, sizeof(buf));
		assert_int_equal(file_read_page(file, i, memcg, buf), 0);
		assert_int_equal(buf[i % 512], 0);
		assert_int_equal(buf[511 - i % 512], 0);
	}
	assert_int_equal(stat_of(WORKINGSET_REFAULT_FILE), 64);
	assert_int_equal(atomic_long_read(&file->nrswapped), 0);
	assert_int_equal(stat_of(NR_FILE_PAGES), 64);
	file_open(&f, file);
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(filemap_read(&f, 3 * PAGE_SIZE + 8, 16, memcg, buf), 16);
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[1], 0);
	assert_int_equal(buf[2], 0xa5a5a5a5a5a5a5a5UL);
	assert_int_equal(file_read_page(file, 64, memcg, buf), -EINVAL);
	file_free(file);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * A write that misses puts a new folio where the shadow was without
 * counting a refault (the kernel adds it with __GFP_WRITE, and
 * filemap_add_folio() leaves workingset_refault() out then), under
 * either LRU; a read that misses the same pages afterwards does count.
 */
static unsigned long file_tiers_refaulted(void)
{
	struct lruvec *lruvec = lruvec_of(memcg);
	unsigned long sum = 0;
	int tier;

	for (tier = 0; tier < (int)MAX_NR_TIERS; tier++)
		sum += atomic_long_read(&lruvec->lrugen.refaulted[0][LRU_GEN_FILE][tier]);
	return sum;
}

static void write_miss_no_refault(void)
{
	struct address_space *file = file_setup(64);
	int round;

	for (round = 0; round < 2; round++) {
		write_pages(file, 64);
		lru_add_drain();
		assert_int_equal(filemap_write_and_wait(file), 64);
		assert_int_equal(try_to_free_mem_cgroup_pages(memcg, 64,
							      MEMCG_RECLAIM_MAY_SWAP, NULL), 64);
		assert_int_equal(stat_of(NR_FILE_PAGES), 0);
		assert_int_equal(atomic_long_read(&file->nrswapped), 64);
	}
	/* the second round's writes replaced 64 shadows and counted nothing */
	assert_int_equal(stat_of(WORKINGSET_REFAULT_FILE), 0);
	assert_int_equal(stat_of(WORKINGSET_ACTIVATE_FILE), 0);
	assert_int_equal(file_tiers_refaulted(), 0);

	check_pages(file, 64, false);
	assert_int_equal(stat_of(WORKINGSET_REFAULT_FILE), 64);
	assert_int_equal(atomic_long_read(&file->nrswapped), 0);
	file_free(file);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_write_miss_no_refault(void **state)
{
	write_miss_no_refault();
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
	memcg = mem_cgroup_create(root_mem_cgroup, "f");
	return memcg ? 0 : -1;
}

static void test_write_miss_no_refault_mglru(void **state)
{
	assert_true(lru_gen_enabled());
	write_miss_no_refault();
}

/*
 * Dirty pages are not written by reclaim: it marks them PG_reclaim and
 * activates them.  Their writeback then rotates them to the inactive
 * tail, and the next reclaim frees them.
 */
static void test_dirty_left_to_writeback(void **state)
{
	struct address_space *file = file_setup(32);
	unsigned long i, reclaimed;

	write_pages(file, 32);
	lru_add_drain();
	/*
	 * Every scan of a dirty folio leaves it to writeback and activates
	 * it; aging brings it back to the inactive list for the next
	 * priority, which finds it dirty again.
	 */
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_int_equal(reclaimed, 0);
	lru_add_drain();
	assert_true(memcg_stat(memcg, PGSCAN_FILE) >= 32);
	assert_int_equal(node_stat(NR_VMSCAN_IMMEDIATE), memcg_stat(memcg, PGSCAN_FILE));
	assert_int_equal(ev(PGACTIVATE), memcg_stat(memcg, PGSCAN_FILE));
	assert_int_equal(stat_of(NR_FILE_DIRTY), 32);
	for (i = 0; i < 32; i++) {
		struct folio *folio = filemap_get_folio(file, i);

		assert_true(folio_test_reclaim(folio));
		folio_put(folio);
	}

	assert_int_equal(filemap_write_and_wait(file), 32);
	lru_add_drain();
	assert_int_equal(sum_vm_event(PGROTATED), 32);
	assert_int_equal(lru_pages(LRU_INACTIVE_FILE), 32);
	assert_int_equal(lru_pages(LRU_ACTIVE_FILE), 0);
	assert_int_equal(stat_of(NR_FILE_DIRTY), 0);

	reclaimed = try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_int_equal(reclaimed, 32);
	check_pages(file, 32, false);
	file_free(file);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * The flusher thread: reclaim that isolates only unqueued dirty folios
 * wakes it; it writes them back, and the next pass frees them.
 */
static void test_flusher_woken_by_reclaim(void **state)
{
	struct address_space *file = file_setup(32);
	unsigned long i, reclaimed;

	assert_int_equal(wb_flusher_run(1), 0);
	assert_int_equal(wb_flusher_run(1), -EBUSY);
	write_pages(file, 32);
	lru_add_drain();
	assert_int_equal(wb_flusher_nr_wakeups(), 0);
	/*
	 * The first batch reclaim takes is all unqueued dirty: it wakes the
	 * flusher, which may clean folios fast enough for this very call's
	 * later priorities to free some.  Whatever is left, clean by then,
	 * goes in the next call.
	 */
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_true(wb_flusher_nr_wakeups() >= 1);
	wb_flusher_wait_idle();
	assert_int_equal(stat_of(NR_FILE_DIRTY), 0);
	check_pages(file, 32, true);
	/*
	 * A folio the first call had isolated when its writeback ended missed
	 * its rotation and is still active: a call that frees others returns
	 * before forcing deactivation, so it may take one more.
	 */
	for (i = 0; i < 4 && reclaimed < 32; i++)
		reclaimed += try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_int_equal(reclaimed, 32);
	assert_int_equal(stat_of(NR_FILE_PAGES), 0);
	wb_flusher_stop();
	file_free(file);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_fills_file_lru, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clean_reclaim_refault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nodata_same_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_miss_no_refault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_miss_no_refault_mglru, setup_mglru,
						teardown),
		cmocka_unit_test_setup_teardown(test_dirty_left_to_writeback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flusher_woken_by_reclaim, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
