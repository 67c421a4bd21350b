// SPDX-License-Identifier: MIT
/*
 * Workingset: the shadow format, refault distances inside and outside
 * the workingset (and across the clock's wrap), workingset_test_recent()
 * against a memcg's clock and list sizes, and a real eviction and
 * refault through swap: activation, restore and their counters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>

#include "reclaim_test.h"

static int setup(void **state)
{
	return reclaim_test_setup(8192, "ws");
}

static void test_shadow_format(void **state)
{
	unsigned long eviction;
	int id, nid;
	bool ws;
	void *shadow;

	shadow = pack_shadow(65535, 1023, EVICTION_MASK, true);
	assert_int_equal((unsigned long)shadow & 1, 1);	/* a value, never a pointer */
	unpack_shadow(shadow, &id, &nid, &eviction, &ws);
	assert_int_equal(id, 65535);
	assert_int_equal(nid, 1023);
	assert_int_equal(eviction, EVICTION_MASK);
	assert_true(ws);

	/* the timestamp keeps its low EVICTION_BITS bits */
	shadow = pack_shadow(7, 0, EVICTION_MASK + 5, false);
	unpack_shadow(shadow, &id, &nid, &eviction, &ws);
	assert_int_equal(id, 7);
	assert_int_equal(nid, 0);
	assert_int_equal(eviction, 4);
	assert_false(ws);
	assert_int_equal(EVICTION_BITS, 36);
}

static void test_distance(void **state)
{
	/* distance 100 against a workingset of 100: inside */
	assert_true(workingset_distance_recent(1000, 900, 100));
	/* 101: outside */
	assert_false(workingset_distance_recent(1000, 899, 100));
	assert_true(workingset_distance_recent(5, 5, 0));
	/* the clock wrapped between eviction and refault: distance 16 */
	assert_true(workingset_distance_recent(5, EVICTION_MASK - 10, 16));
	assert_false(workingset_distance_recent(5, EVICTION_MASK - 10, 15));
}

static void test_recent(void **state)
{
	struct lruvec *l = lruvec_of(memcg);
	bool ws;
	void *shadow = pack_shadow(memcg->id, 0, 1000, true);

	atomic_long_set(&l->nonresident_age, 1100);
	mod_lruvec_state(l, NR_ACTIVE_FILE, 50);
	mod_lruvec_state(l, NR_INACTIVE_FILE, 60);
	mod_lruvec_state(l, NR_ACTIVE_ANON, 500);
	mod_lruvec_state(l, NR_INACTIVE_ANON, 700);
	mem_cgroup_flush_all();

	/* no swap: anon refault vs active + inactive file = 110 */
	assert_true(workingset_test_recent(shadow, false, &ws));
	assert_true(ws);
	atomic_long_set(&l->nonresident_age, 1111);
	assert_false(workingset_test_recent(shadow, false, &ws));
	/* file refault: active file alone = 50 */
	atomic_long_set(&l->nonresident_age, 1050);
	assert_true(workingset_test_recent(shadow, true, &ws));
	atomic_long_set(&l->nonresident_age, 1051);
	assert_false(workingset_test_recent(shadow, true, &ws));

	/* with swap the anon lists count too: anon 110 + 500, file 50 + 1200 */
	assert_int_equal(swapon(16, SWAP_STORE_COPY), 0);
	atomic_long_set(&l->nonresident_age, 1610);
	assert_true(workingset_test_recent(shadow, false, &ws));
	atomic_long_set(&l->nonresident_age, 1611);
	assert_false(workingset_test_recent(shadow, false, &ws));
	atomic_long_set(&l->nonresident_age, 2250);
	assert_true(workingset_test_recent(shadow, true, &ws));
	atomic_long_set(&l->nonresident_age, 2251);
	assert_false(workingset_test_recent(shadow, true, &ws));

	/* an id nobody has: never recent */
	assert_false(workingset_test_recent(pack_shadow(4000, 0, 2251, false), true, &ws));

	mod_lruvec_state(l, NR_ACTIVE_FILE, -50);
	mod_lruvec_state(l, NR_INACTIVE_FILE, -60);
	mod_lruvec_state(l, NR_ACTIVE_ANON, -500);
	mod_lruvec_state(l, NR_INACTIVE_ANON, -700);
}

/* The clock moves for the lruvec and every ancestor. */
static void test_age(void **state)
{
	struct mem_cgroup *child = mem_cgroup_create(memcg, "c");
	long p0 = atomic_long_read(&lruvec_of(memcg)->nonresident_age);
	long r0 = atomic_long_read(&lruvec_of(root_mem_cgroup)->nonresident_age);

	workingset_age_nonresident(lruvec_of(child), 3);
	assert_int_equal(atomic_long_read(&lruvec_of(child)->nonresident_age), 3);
	assert_int_equal(atomic_long_read(&lruvec_of(memcg)->nonresident_age), p0 + 3);
	assert_int_equal(atomic_long_read(&lruvec_of(root_mem_cgroup)->nonresident_age), r0 + 3);
	mem_cgroup_offline(child);
	mem_cgroup_wait_frees();
}

/*
 * A real round trip.  Half the pages are made active; reclaim evicts
 * from the inactive half.  An anon refault's workingset is the file
 * lists plus the active anon list, so with 64 active pages every
 * refault (distance at most the evictions since) is activated; none had
 * been deactivated from the active list (PG_workingset), so none is a
 * restore.  Without the active half nothing would be: the inactive anon
 * list does not count for anon refaults.
 */
static void test_refault_activation(void **state)
{
	struct address_space *file = shmem_file_setup(128, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, 128 * PAGE_SIZE);
	struct lruvec *l = lruvec_of(memcg);
	unsigned long reclaimed, i;

	assert_int_equal(swapon(256, SWAP_STORE_ZSTD), 0);
	for (i = 0; i < 128; i++)
		assert_int_equal(mm_access(vma, vma->vm_start + i * PAGE_SIZE, true), 0);
	lru_add_drain();
	for (i = 64; i < 128; i++) {
		struct folio *folio = filemap_get_folio(file, i);

		folio_mark_accessed(folio);
		folio_mark_accessed(folio);
		folio_put(folio);
	}
	lru_add_drain();
	mem_cgroup_flush_all();
	assert_int_equal(lruvec_page_state(l, NR_ACTIVE_ANON), 64);
	reclaimed = try_to_free_mem_cgroup_pages(memcg, 32, MEMCG_RECLAIM_MAY_SWAP, NULL);
	assert_true(reclaimed > 0);
	for (i = 0; i < 128; i++) {
		void *shadow = NULL;
		unsigned long swap = filemap_get_swap(file, i);

		if (swap)
			shadow = swap_shadow(radix_to_swp_entry(swap));
		assert_true(!swap || shadow);
	}
	for (i = 0; i < 128; i++)
		assert_int_equal(mm_access(vma, vma->vm_start + i * PAGE_SIZE, false), 0);
	mem_cgroup_flush_all();
	assert_int_equal(lruvec_page_state(l, WORKINGSET_REFAULT_ANON), reclaimed);
	assert_int_equal(lruvec_page_state(l, WORKINGSET_ACTIVATE_ANON), reclaimed);
	assert_int_equal(lruvec_page_state(l, WORKINGSET_RESTORE_ANON), 0);
	lru_add_drain();
	mem_cgroup_flush_all();
	assert_int_equal(lruvec_page_state(l, NR_ACTIVE_ANON), 64 + reclaimed);

	munmap_vma(vma);
	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test_setup_teardown(test_shadow_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_age, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refault_activation, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
