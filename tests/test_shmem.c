// SPDX-License-Identifier: MIT
/*
 * shmem files and the page cache: fault, shared mappings, hole punch and
 * truncate, racing creators, OOM (mm/shmem.c, mm/filemap.c and the file
 * side of mm/memory.c and mm/rmap.c).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/workqueue.h>

#include "mm_test.h"

static int setup(void **state)
{
	return mm_test_setup(3);
}

#define N_SHMEM 100UL
#define K_PUNCH 37UL
#define PUNCH_AT 20UL

static void test_fault_and_punch(void **state)
{
	unsigned long pgfault = sum_vm_event(PGFAULT);
	unsigned long free_before = free_pages();
	struct address_space *file = shmem_file_setup(N_SHMEM, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, N_SHMEM * PAGE_SIZE);
	unsigned long i;

	assert_non_null(vma);
	for (i = 0; i < N_SHMEM; i++)
		assert_int_equal(mm_access(vma, addr_of(vma, i) + 9, true), 0);
	assert_int_equal(sum_vm_event(PGFAULT) - pgfault, N_SHMEM);
	assert_int_equal(node_stat(NR_SHMEM), N_SHMEM);
	assert_int_equal(node_stat(NR_FILE_PAGES), N_SHMEM);
	assert_int_equal(node_stat(NR_FILE_MAPPED), N_SHMEM);
	assert_int_equal(memcg_stat(NR_SHMEM), N_SHMEM);
	assert_int_equal(memcg_stat(NR_FILE_MAPPED), N_SHMEM);
	assert_int_equal(atomic_long_read(&file->nrpages), N_SHMEM);
	assert_int_equal(get_mm_counter(mm, MM_SHMEMPAGES), N_SHMEM);
	assert_int_equal(free_before - free_pages(), N_SHMEM);
	assert_int_equal(mem_cgroup_usage(memcg), N_SHMEM + memcg_stock_pages(memcg));
	lru_add_drain();
	/* swap backed: shmem lives on the anon LRU */
	assert_int_equal(list_len(LRU_INACTIVE_ANON), N_SHMEM);
	assert_int_equal(list_len(LRU_INACTIVE_FILE), 0);
	for (i = 0; i < N_SHMEM; i++) {
		struct folio *folio = folio_at(vma, i);

		/* the cache's reference and the PTE's */
		assert_int_equal(folio_ref_count(folio), 2);
		assert_int_equal(folio_mapcount(folio), 1);
		assert_ptr_equal(folio->mapping, file);
		assert_int_equal(folio->index, i);
		assert_true(folio_test_swapbacked(folio));
		assert_false(folio_test_anon(folio));
		assert_int_equal(((unsigned char *)folio_address(folio))[9], 1);
	}
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	shmem_punch_hole(file, PUNCH_AT, PUNCH_AT + K_PUNCH - 1);
	assert_int_equal(free_before - free_pages(), N_SHMEM - K_PUNCH);
	assert_int_equal(node_stat(NR_SHMEM), N_SHMEM - K_PUNCH);
	assert_int_equal(node_stat(NR_FILE_PAGES), N_SHMEM - K_PUNCH);
	assert_int_equal(node_stat(NR_FILE_MAPPED), N_SHMEM - K_PUNCH);
	assert_int_equal(atomic_long_read(&file->nrpages), N_SHMEM - K_PUNCH);
	assert_int_equal(get_mm_counter(mm, MM_SHMEMPAGES), N_SHMEM - K_PUNCH);
	assert_int_equal(list_len(LRU_INACTIVE_ANON), N_SHMEM - K_PUNCH);
	for (i = 0; i < N_SHMEM; i++) {
		bool hole = i >= PUNCH_AT && i < PUNCH_AT + K_PUNCH;
		struct folio *folio = filemap_get_folio(file, i);

		assert_int_equal(pte_none(pte_at(vma, i)), hole);
		if (hole) {
			assert_null(folio);
			continue;
		}
		assert_non_null(folio);
		assert_ptr_equal(folio, folio_at(vma, i));
		assert_int_equal(folio_ref_count(folio), 3);
		folio_put(folio);
		assert_int_equal(((unsigned char *)folio_address(folio))[9], 1);
	}
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/* whatever page a fault gets next held garbage */
	assert_int_equal(poison_free_pages() + pte_table_pages(), free_pages());
	for (i = 0; i < K_PUNCH; i++) {
		assert_int_equal(mm_access(vma, addr_of(vma, PUNCH_AT + i), false), 0);
		assert_true(all_zero(folio_address(folio_at(vma, PUNCH_AT + i)), PAGE_SIZE));
	}
	assert_int_equal(node_stat(NR_SHMEM), N_SHMEM);
	assert_int_equal(free_before - free_pages(), N_SHMEM);

	mmput(mm);
	/* unmapped, still cached */
	assert_int_equal(node_stat(NR_FILE_MAPPED), 0);
	assert_int_equal(node_stat(NR_SHMEM), N_SHMEM);
	assert_int_equal(free_before - free_pages(), N_SHMEM);
	shmem_file_free(file);
	assert_int_equal(node_stat(NR_SHMEM), 0);
	assert_int_equal(node_stat(NR_FILE_PAGES), 0);
	assert_int_equal(free_pages(), free_before);
	drain_all_stock();
	assert_int_equal(mem_cgroup_usage(memcg), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* Truncating a mapped range without unmapping leaves the PTEs' folios. */
static void test_truncate_keeps_mapped(void **state)
{
	unsigned long free_before = free_pages();
	struct address_space *file = shmem_file_setup(8, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, 8 * PAGE_SIZE);
	struct folio *kept;
	unsigned long i;

	for (i = 0; i < 8; i++)
		assert_int_equal(mm_access(vma, addr_of(vma, i), true), 0);
	kept = folio_at(vma, 2);
	zap_page_range_single(vma, addr_of(vma, 4), 4 * PAGE_SIZE);
	shmem_truncate_range(file, 2, 7);
	/* 4..7 were unmapped: freed; 2 and 3 are still mapped */
	assert_int_equal(free_before - free_pages(), 4);
	assert_int_equal(node_stat(NR_SHMEM), 2);
	assert_int_equal(node_stat(NR_FILE_MAPPED), 4);
	assert_null(filemap_get_folio(file, 2));
	assert_null(kept->mapping);
	assert_int_equal(folio_ref_count(kept), 1);
	assert_int_equal(folio_mapcount(kept), 1);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/* a new fault at a truncated index gets a new folio */
	zap_page_range_single(vma, addr_of(vma, 3), PAGE_SIZE);
	assert_int_equal(free_before - free_pages(), 3);
	assert_int_equal(mm_access(vma, addr_of(vma, 3), false), 0);
	assert_int_equal(node_stat(NR_SHMEM), 3);

	munmap_vma(vma);
	assert_int_equal(free_before - free_pages(), 3);
	assert_int_equal(node_stat(NR_FILE_MAPPED), 0);
	shmem_file_free(file);
	mmput(mm);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(node_stat(NR_SHMEM), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* Two mappings of one file: one folio, two PTEs, counted mapped once. */
static void test_shared_mappings(void **state)
{
	struct address_space *file = shmem_file_setup(16, 0);
	struct mm_struct *a = mm_alloc(memcg), *b = mm_alloc(memcg);
	struct vm_area_struct *va = mmap_shmem(a, file, 0, 16 * PAGE_SIZE);
	struct vm_area_struct *vb = mmap_shmem(b, file, 8, 8 * PAGE_SIZE);
	unsigned long free_before = free_pages();
	struct folio *folio;
	unsigned long i;

	for (i = 0; i < 16; i++)
		assert_int_equal(mm_access(va, addr_of(va, i), false), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(mm_access(vb, addr_of(vb, i), true), 0);
	assert_int_equal(free_before - free_pages(), 16);
	folio = folio_at(va, 10);
	assert_ptr_equal(folio_at(vb, 2), folio);
	assert_int_equal(folio_mapcount(folio), 2);
	lru_add_drain();
	assert_int_equal(folio_ref_count(folio), 3);
	assert_int_equal(node_stat(NR_FILE_MAPPED), 16);
	assert_int_equal(get_mm_counter(b, MM_SHMEMPAGES), 8);

	/* the writer dirtied it: the zap passes that on to the folio */
	assert_false(folio_test_dirty(folio));
	munmap_vma(vb);
	assert_true(folio_test_dirty(folio));
	assert_int_equal(folio_mapcount(folio), 1);
	assert_int_equal(folio_ref_count(folio), 2);
	assert_int_equal(node_stat(NR_FILE_MAPPED), 16);

	/* punch unmaps from every VMA before it truncates */
	vb = mmap_shmem(b, file, 0, 16 * PAGE_SIZE);
	assert_int_equal(mm_access(vb, addr_of(vb, 5), true), 0);
	assert_int_equal(folio_mapcount(folio_at(va, 5)), 2);
	shmem_punch_hole(file, 4, 11);
	assert_true(pte_none(pte_at(va, 5)) && pte_none(pte_at(vb, 5)));
	assert_int_equal(free_before - free_pages(), 8);
	assert_int_equal(node_stat(NR_FILE_MAPPED), 8);
	assert_int_equal(node_stat(NR_SHMEM), 8);
	assert_int_equal(get_mm_counter(b, MM_SHMEMPAGES), 0);
	mmput(a);
	mmput(b);
	shmem_file_free(file);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

#define RACE_PAGES 48
#define RACE_ROUNDS 40

struct racer {
	pthread_t tid;
	int cpu;
	struct address_space *file;
	struct vm_area_struct *vma;
	pthread_barrier_t *barrier;
	int err;
};

static void *racer(void *arg)
{
	struct racer *r = arg;
	struct mm_struct *mm;
	int round;
	unsigned long i;

	r->err = cpu_enter(r->cpu, false);
	mm = r->err ? NULL : mm_alloc(memcg);
	r->vma = mm ? mmap_shmem(mm, r->file, 0, RACE_PAGES * PAGE_SIZE) : NULL;
	if (!r->vma)
		r->err = -1;
	barrier_wait_sleep(r->barrier);
	for (round = 0; round < RACE_ROUNDS; round++) {
		barrier_wait_sleep(r->barrier);	/* go */
		for (i = 0; !r->err && i < RACE_PAGES; i++)
			if (mm_access(r->vma, addr_of(r->vma, i), i & 1))
				r->err = -2;
		lru_add_drain();
		barrier_wait_sleep(r->barrier);	/* done: main checks, punches */
	}
	barrier_wait_sleep(r->barrier);
	mmput(mm);
	cpu_exit();
	return NULL;
}

static void test_racing_creators(void **state)
{
	unsigned long free_before = free_pages();
	struct address_space *file = shmem_file_setup(RACE_PAGES, 0);
	pthread_barrier_t barrier;
	struct racer r[2];
	int round, t;
	unsigned long i;

	pthread_barrier_init(&barrier, NULL, 3);
	for (t = 0; t < 2; t++) {
		r[t] = (struct racer){ .cpu = t + 1, .file = file, .barrier = &barrier };
		pthread_create(&r[t].tid, NULL, racer, &r[t]);
	}
	barrier_wait_sleep(&barrier);
	assert_int_equal(r[0].err, 0);
	assert_int_equal(r[1].err, 0);
	for (round = 0; round < RACE_ROUNDS; round++) {
		barrier_wait_sleep(&barrier);
		barrier_wait_sleep(&barrier);
		assert_int_equal(r[0].err, 0);
		assert_int_equal(r[1].err, 0);
		/* every index created once, and both mappings got that folio */
		assert_int_equal(node_stat(NR_SHMEM), RACE_PAGES);
		assert_int_equal(node_stat(NR_FILE_MAPPED), RACE_PAGES);
		assert_int_equal(atomic_long_read(&file->nrpages), RACE_PAGES);
		assert_int_equal(free_before - free_pages(), RACE_PAGES);
		for (i = 0; i < RACE_PAGES; i++) {
			struct folio *folio = folio_at(r[0].vma, i);

			assert_ptr_equal(folio_at(r[1].vma, i), folio);
			assert_int_equal(folio->index, i);
			assert_int_equal(folio_mapcount(folio), 2);
			assert_int_equal(folio_ref_count(folio), 3);
		}
		assert_int_equal(lrulab_check_invariants(true, stderr), 0);
		shmem_punch_hole(file, 0, RACE_PAGES - 1);
		assert_int_equal(free_pages(), free_before);
		assert_int_equal(node_stat(NR_SHMEM), 0);
		assert_int_equal(node_stat(NR_FILE_MAPPED), 0);
	}
	barrier_wait_sleep(&barrier);
	for (t = 0; t < 2; t++)
		join_sleep(r[t].tid, NULL);
	pthread_barrier_destroy(&barrier);
	shmem_file_free(file);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* The creation race, played in order: the second insert at an index fails clean. */
static void test_insert_taken_index(void **state)
{
	unsigned long free_before = free_pages();
	struct address_space *file = shmem_file_setup(4, 0);
	struct folio *winner, *loser;

	assert_int_equal(shmem_get_folio(file, 1, memcg, &winner), 0);
	loser = folio_alloc(0, -1);
	assert_non_null(loser);
	assert_int_equal(mem_cgroup_charge(loser, memcg), 0);
	__folio_set_swapbacked(loser);
	assert_int_equal(__filemap_add_folio(file, loser, 1), -EEXIST);
	assert_null(loser->mapping);
	assert_int_equal(folio_ref_count(loser), 1);
	assert_int_equal(atomic_long_read(&file->nrpages), 1);
	assert_int_equal(node_stat(NR_SHMEM), 1);
	assert_ptr_equal(filemap_get_folio(file, 1), winner);
	folio_put(winner);

	/* at a free index it goes in: the cache's reference, accounted */
	assert_int_equal(__filemap_add_folio(file, loser, 2), 0);
	assert_ptr_equal(loser->mapping, file);
	assert_int_equal(loser->index, 2);
	assert_int_equal(folio_ref_count(loser), 2);
	assert_int_equal(atomic_long_read(&file->nrpages), 2);
	assert_int_equal(node_stat(NR_SHMEM), 2);
	assert_int_equal(node_stat(NR_FILE_PAGES), 2);
	folio_add_lru(loser);
	folio_put(loser);
	folio_put(winner);
	assert_int_equal(free_before - free_pages(), 2);

	shmem_file_free(file);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(node_stat(NR_SHMEM), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_oom(void **state)
{
	unsigned long free_before = free_pages();
	struct address_space *file = shmem_file_setup(16, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, 16 * PAGE_SIZE);
	struct folio *folio;
	unsigned long i;

	drain_all_stock();
	assert_int_equal(mem_cgroup_set_max(memcg, 5), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(mm_access(vma, addr_of(vma, i), true), 0);
	assert_int_equal(mm_access(vma, addr_of(vma, 5), true), VM_FAULT_OOM);
	assert_int_equal(shmem_get_folio(file, 6, memcg, &folio), -ENOMEM);
	assert_null(filemap_get_folio(file, 5));
	assert_int_equal(node_stat(NR_SHMEM), 5);
	assert_int_equal(atomic_long_read(&file->nrpages), 5);
	assert_int_equal(mem_cgroup_usage(memcg), 5);
	assert_int_equal(free_before - free_pages(), 5);
	/* an existing folio needs no charge */
	assert_int_equal(shmem_get_folio(file, 2, memcg, &folio), 0);
	assert_ptr_equal(folio, folio_at(vma, 2));
	folio_put(folio);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(free_pages(), free_before);
	drain_all_stock();
	assert_int_equal(mem_cgroup_usage(memcg), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_lookup_and_bounds(void **state)
{
	struct address_space *file = shmem_file_setup(4, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 2, 4 * PAGE_SIZE);
	struct folio *folio, *again;
	unsigned long idx;
	struct folio_batch fbatch;

	errno = 0;
	assert_null(shmem_file_setup(16, 2));
	assert_int_equal(errno, EINVAL);
	assert_null(filemap_get_folio(file, 0));
	assert_int_equal(shmem_get_folio(file, 4, memcg, &folio), -EINVAL);

	/* pages 2 and 3 of the file are in it, 4 and 5 are past its end */
	assert_int_equal(mm_access(vma, addr_of(vma, 1), true), 0);
	assert_int_equal(mm_access(vma, addr_of(vma, 2), false), VM_FAULT_SIGBUS);
	assert_int_equal(handle_mm_fault(vma, addr_of(vma, 3), FAULT_FLAG_WRITE),
			 VM_FAULT_SIGBUS);
	folio = filemap_get_folio(file, 3);
	assert_non_null(folio);
	assert_ptr_equal(folio, folio_at(vma, 1));
	lru_add_drain();
	assert_int_equal(folio_ref_count(folio), 3);
	assert_int_equal(shmem_get_folio(file, 3, memcg, &again), 0);
	assert_ptr_equal(again, folio);
	assert_int_equal(folio_ref_count(folio), 4);
	folio_put(again);
	folio_put(folio);

	assert_int_equal(shmem_get_folio(file, 0, memcg, &folio), 0);
	folio_put(folio);
	folio_batch_init(&fbatch);
	idx = 0;
	assert_int_equal(filemap_get_folios(file, &idx, 3, &fbatch), 2);
	assert_int_equal(idx, 4);
	assert_int_equal(fbatch.folios[0]->index, 0);
	assert_int_equal(fbatch.folios[1]->index, 3);
	folio_batch_release(&fbatch);

	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(node_stat(NR_SHMEM), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * A slot holds a folio, a value (a swap slot, a shadow) or nothing, and
 * moves between them only through the calls that say so: a value is
 * never taken for a folio, nor a stale value for the current one.
 */
static void test_value_entries(void **state)
{
	/* value entries: bit 0 set, as pack_shadow() and swp_to_radix_entry() make them */
	const unsigned long val = 0x1235, high = ~0UL;
	struct address_space *file = shmem_file_setup(4, 0);
	struct folio *folio, *other;
	int refs;

	assert_int_equal(shmem_get_folio(file, 1, memcg, &folio), 0);
	refs = folio_ref_count(folio);

	/* the folio gives its slot to a value: the cache's reference is ours */
	assert_true(filemap_replace_folio_by_swap(file, folio, val));
	assert_null(folio->mapping);
	assert_int_equal(atomic_long_read(&file->nrpages), 0);
	assert_int_equal(atomic_long_read(&file->nrswapped), 1);
	assert_int_equal(node_stat(NR_SHMEM), 0);
	folio_put_refs(folio, 1);
	assert_null(filemap_get_folio(file, 1));
	assert_int_equal(filemap_get_swap(file, 1), val);
	assert_int_equal(filemap_get_swap(file, 2), 0);
	assert_int_equal(page_cache_next_miss(file, 0, 4), 0);

	/* a value holds its index against an insert */
	other = folio_alloc(0, -1);
	assert_non_null(other);
	assert_int_equal(mem_cgroup_charge(other, memcg), 0);
	__folio_set_swapbacked(other);
	assert_int_equal(__filemap_add_folio(file, other, 1), -EEXIST);
	assert_int_equal(folio_ref_count(other), 1);
	folio_put(other);

	/* only the value the caller saw is replaced */
	assert_false(filemap_replace_swap_by_folio(file, 1, val + 2, folio));
	assert_false(filemap_replace_swap_by_folio(file, 2, val, folio));
	assert_true(filemap_replace_swap_by_folio(file, 1, val, folio));
	assert_int_equal(folio_ref_count(folio), refs);
	assert_ptr_equal(folio->mapping, file);
	assert_int_equal(atomic_long_read(&file->nrswapped), 0);
	assert_int_equal(atomic_long_read(&file->nrpages), 1);
	assert_int_equal(filemap_get_swap(file, 1), 0);
	assert_ptr_equal(filemap_get_folio(file, 1), folio);
	folio_put(folio);

	/* the widest value comes back whole */
	assert_true(filemap_replace_folio_by_swap(file, folio, high));
	folio_put_refs(folio, 1);
	assert_int_equal(filemap_get_swap(file, 1), high);
	assert_true(filemap_replace_swap_by_folio(file, 1, high, folio));

	/* value 0 is none: the slot is left empty, and takes a folio again */
	assert_true(filemap_replace_folio_by_swap(file, folio, 0));
	folio_put_refs(folio, 1);
	assert_int_equal(atomic_long_read(&file->nrswapped), 0);
	assert_int_equal(filemap_get_swap(file, 1), 0);
	assert_null(filemap_get_folio(file, 1));
	assert_int_equal(__filemap_add_folio(file, folio, 1), 0);
	assert_ptr_equal(filemap_get_folio(file, 1), folio);
	folio_put(folio);

	folio_put(folio);
	shmem_file_free(file);
	assert_int_equal(node_stat(NR_SHMEM), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fault_and_punch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncate_keeps_mapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_racing_creators, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insert_taken_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup_and_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_entries, setup, teardown),
	};

	return cmocka_run_group_tests_name("shmem", tests, NULL, NULL);
}
