// SPDX-License-Identifier: MIT
/*
 * Anonymous faults, mTHP faults and fallback, user accesses, zap with
 * mmu_gather, OOM (mm/memory.c, mm/rmap.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>

#include "mm_test.h"

static int setup(void **state)
{
	return mm_test_setup(2);
}

#define N_ANON 100UL

static void test_anon_fault_zap(void **state)
{
	unsigned long pgfault = sum_vm_event(PGFAULT);
	unsigned long free_before = free_pages();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, N_ANON * PAGE_SIZE, 0);
	unsigned long i;

	assert_non_null(vma);
	assert_int_equal(vma->vm_start % PMD_SIZE, 0);
	for (i = 0; i < N_ANON; i++)
		assert_int_equal(handle_mm_fault(vma, addr_of(vma, i) + 7, FAULT_FLAG_WRITE), 0);

	assert_int_equal(sum_vm_event(PGFAULT) - pgfault, N_ANON);
	mem_cgroup_flush_all();
	assert_int_equal(memcg_events(memcg, PGFAULT), N_ANON);
	assert_int_equal(free_before - free_pages(), N_ANON);
	assert_int_equal(node_stat(NR_ANON_MAPPED), N_ANON);
	assert_int_equal(memcg_stat(NR_ANON_MAPPED), N_ANON);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), N_ANON);
	assert_int_equal(mem_cgroup_usage(memcg), N_ANON + memcg_stock_pages(memcg));

	/* 100 = 3 full batches of 31 moved at once, 7 still queued */
	assert_int_equal(list_len(LRU_INACTIVE_ANON), 93);
	lru_add_drain();
	assert_int_equal(list_len(LRU_INACTIVE_ANON), N_ANON);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), N_ANON);
	assert_int_equal(memcg_stat(NR_INACTIVE_ANON), N_ANON);

	for (i = 0; i < N_ANON; i++) {
		pte_t pte = pte_at(vma, i);
		struct folio *folio = folio_at(vma, i);

		assert_true(pte_write(pte) && pte_dirty(pte) && pte_young(pte));
		assert_int_equal(folio_order(folio), 0);
		assert_int_equal(folio_ref_count(folio), 1);
		assert_int_equal(folio_mapcount(folio), 1);
		assert_true(folio_test_anon(folio));
		assert_true(folio_test_swapbacked(folio));
		assert_true(folio_test_lru(folio));
		assert_false(folio_test_active(folio));
		assert_ptr_equal(folio->mapping,
				 (void *)((unsigned long)mm | PAGE_MAPPING_ANON));
		assert_int_equal(folio->index, addr_of(vma, i) >> PAGE_SHIFT);
		assert_ptr_equal(folio_memcg(folio), memcg);
	}
	/* present: an access neither faults nor allocates */
	assert_int_equal(mm_access(vma, addr_of(vma, 3), true), 0);
	assert_int_equal(sum_vm_event(PGFAULT) - pgfault, N_ANON);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	zap_page_range_single(vma, vma->vm_start, N_ANON * PAGE_SIZE);
	for (i = 0; i < N_ANON; i++)
		assert_true(pte_none(pte_at(vma, i)));
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), 0);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 0);
	assert_int_equal(memcg_stat(NR_ANON_MAPPED), 0);
	assert_int_equal(node_stat(NR_INACTIVE_ANON), 0);
	assert_int_equal(list_len(LRU_INACTIVE_ANON), 0);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 0);
	assert_int_equal(free_pages(), free_before);
	drain_all_stock();
	assert_int_equal(mem_cgroup_usage(memcg), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	mmput(mm);
}

static void test_zeroed_memory(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 32 * PAGE_SIZE, 0);
	unsigned long i;

	for (i = 0; i < 32; i++) {
		assert_int_equal(mm_access(vma, addr_of(vma, i) + 100, true), 0);
		assert_int_equal(((unsigned char *)folio_address(folio_at(vma, i)))[100], 1);
	}
	zap_page_range_single(vma, vma->vm_start, 32 * PAGE_SIZE);
	/* whatever page a fault gets next held garbage */
	assert_int_equal(poison_free_pages() + pte_table_pages(), free_pages());
	for (i = 0; i < 32; i++) {
		assert_int_equal(mm_access(vma, addr_of(vma, i), false), 0);
		assert_true(all_zero(folio_address(folio_at(vma, i)), PAGE_SIZE));
	}
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_read_then_write_fault(void **state)
{
	unsigned long pgfault = sum_vm_event(PGFAULT);
	unsigned long reuse = sum_vm_event(PGREUSE);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 4 * PAGE_SIZE, 0);
	struct lru_drain_stats d0, d1;
	struct folio *folio;
	pte_t pte;

	assert_int_equal(mm_access(vma, vma->vm_start, false), 0);
	pte = pte_at(vma, 0);
	assert_true(pte_present(pte) && pte_young(pte));
	assert_false(pte_write(pte) || pte_dirty(pte));
	folio = folio_at(vma, 0);
	assert_int_equal(sum_vm_event(PGFAULT) - pgfault, 1);

	/*
	 * writing a read-only PTE: a write fault that keeps the folio, once
	 * this CPU's lru_add batch, the only other holder, is drained
	 */
	assert_int_equal(folio_ref_count(folio), 2);
	lru_drain_stats_read(&d0);
	assert_int_equal(mm_access(vma, vma->vm_start + 5, true), 0);
	lru_drain_stats_read(&d1);
	assert_int_equal(d1.local - d0.local, 1);
	assert_int_equal(sum_vm_event(PGREUSE) - reuse, 1);
	pte = pte_at(vma, 0);
	assert_true(pte_write(pte) && pte_dirty(pte));
	assert_ptr_equal(folio_at(vma, 0), folio);
	assert_int_equal(((unsigned char *)folio_address(folio))[5], 1);
	assert_int_equal(sum_vm_event(PGFAULT) - pgfault, 2);

	/* a spurious fault on a present PTE counts but maps nothing new */
	assert_int_equal(handle_mm_fault(vma, vma->vm_start, 0), 0);
	assert_int_equal(sum_vm_event(PGFAULT) - pgfault, 3);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), 1);
	lru_add_drain();
	assert_int_equal(folio_ref_count(folio), 1);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * A write to a read-only page whose folio someone else pins: not
 * exclusive, so the page is copied to a new folio (COW) and the old one
 * keeps only the pin.
 */
static void test_write_fault_copies_pinned(void **state)
{
	unsigned long reuse = sum_vm_event(PGREUSE);
	unsigned long free_before = free_pages();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 2 * PAGE_SIZE, 0);
	struct folio *old, *copy;

	assert_int_equal(mm_access(vma, addr_of(vma, 1), false), 0);
	lru_add_drain();
	old = folio_at(vma, 1);
	((unsigned char *)folio_address(old))[300] = 0x42;
	folio_get(old);
	assert_int_equal(mm_access(vma, addr_of(vma, 1) + 7, true), 0);
	copy = folio_at(vma, 1);
	assert_ptr_not_equal(copy, old);
	assert_true(pte_write(pte_at(vma, 1)) && pte_dirty(pte_at(vma, 1)));
	assert_int_equal(((unsigned char *)folio_address(copy))[300], 0x42);
	assert_int_equal(((unsigned char *)folio_address(copy))[7], 1);
	assert_int_equal(((unsigned char *)folio_address(old))[7], 0);
	assert_int_equal(sum_vm_event(PGREUSE) - reuse, 0);
	assert_int_equal(folio_mapcount(old), 0);
	assert_int_equal(folio_ref_count(old), 1);
	assert_int_equal(folio_mapcount(copy), 1);
	assert_ptr_equal(folio_memcg(copy), memcg);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), 1);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 1);
	assert_int_equal(free_before - free_pages(), 2);
	folio_put(old);
	assert_int_equal(free_before - free_pages(), 1);
	mmput(mm);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* Fault one page in every block of an order-@order VMA and check the folios. */
static void check_mthp(unsigned int order)
{
	unsigned long nr = 1UL << order, blocks = 4, pages = blocks * nr, b, i;
	unsigned long alloc = mthp_stat_read(order, MTHP_STAT_ANON_FAULT_ALLOC);
	unsigned long pgfault = sum_vm_event(PGFAULT);
	unsigned long thp = sum_vm_event(THP_FAULT_ALLOC);
	unsigned long free_before = free_pages();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, pages * PAGE_SIZE, order);
	struct folio *first;

	assert_non_null(vma);
	for (b = 0; b < blocks; b++)
		assert_int_equal(handle_mm_fault(vma, addr_of(vma, b * nr + nr / 2 + 1),
						 FAULT_FLAG_WRITE), 0);
	assert_int_equal(sum_vm_event(PGFAULT) - pgfault, blocks);
	assert_int_equal(mthp_stat_read(order, MTHP_STAT_ANON_FAULT_ALLOC) - alloc, blocks);
	/* PMD-sized ones are THPs in /proc/vmstat too */
	assert_int_equal(sum_vm_event(THP_FAULT_ALLOC) - thp,
			 order == HPAGE_PMD_ORDER ? blocks : 0);
	assert_int_equal(node_stat(NR_ANON_THPS), 0);
	assert_int_equal(free_before - free_pages(), pages);
	assert_int_equal(node_stat(NR_ANON_MAPPED), pages);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), pages);
	/* large folios never wait in the per-CPU batch */
	assert_int_equal(list_len(LRU_INACTIVE_ANON), blocks);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), pages);

	for (b = 0; b < blocks; b++) {
		struct folio *folio = folio_at(vma, b * nr);

		assert_true(folio_test_large(folio));
		assert_int_equal(folio_order(folio), order);
		assert_int_equal(folio_pfn(folio) % nr, 0);
		assert_int_equal(folio_mapcount(folio), nr);
		assert_int_equal(folio_ref_count(folio), nr);
		assert_int_equal(folio->index, addr_of(vma, b * nr) >> PAGE_SHIFT);
		assert_true(all_zero(folio_address(folio), nr * PAGE_SIZE));
		for (i = 0; i < nr; i++) {
			assert_ptr_equal(folio_at(vma, b * nr + i), folio);
			assert_int_equal(pte_pfn(pte_at(vma, b * nr + i)), folio_pfn(folio) + i);
		}
	}

	/* unmap one page of the first folio: it stays, one mapping fewer,
	 * queued for deferred split */
	first = folio_at(vma, 0);
	zap_page_range_single(vma, addr_of(vma, 1), PAGE_SIZE);
	assert_true(pte_none(pte_at(vma, 1)));
	assert_int_equal(folio_mapcount(first), nr - 1);
	assert_int_equal(folio_ref_count(first), nr - 1);
	assert_int_equal(atomic_read(&((struct folio_tail1 *)(first + 1))->_nr_pages_mapped),
			 nr - 1);
	assert_int_equal(node_stat(NR_ANON_MAPPED), pages - 1);
	assert_int_equal(free_before - free_pages(), pages);
	assert_int_equal(mthp_stat_read(order, MTHP_STAT_SPLIT_DEFERRED), 1);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	zap_page_range_single(vma, vma->vm_start, pages * PAGE_SIZE);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 0);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 0);
	assert_int_equal(free_pages(), free_before);
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_mthp_16k(void **state)
{
	check_mthp(2);
}

static void test_mthp_64k(void **state)
{
	check_mthp(4);
}

static void test_mthp_2m_by_ptes(void **state)
{
	check_mthp(HPAGE_PMD_ORDER);
}

static void test_mthp_fallback_partly_mapped(void **state)
{
	unsigned long alloc = mthp_stat_read(4, MTHP_STAT_ANON_FAULT_ALLOC);
	unsigned long fallback = mthp_stat_read(4, MTHP_STAT_ANON_FAULT_FALLBACK);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 16 * PAGE_SIZE, 4);
	struct folio *large, *small;

	assert_int_equal(mm_access(vma, addr_of(vma, 0), true), 0);
	large = folio_at(vma, 15);
	assert_int_equal(folio_order(large), 4);
	zap_page_range_single(vma, addr_of(vma, 5), PAGE_SIZE);
	assert_int_equal(folio_mapcount(large), 15);

	/* 15 of the 16 PTEs are mapped: only an order-0 folio fits */
	assert_int_equal(mm_access(vma, addr_of(vma, 5), true), 0);
	small = folio_at(vma, 5);
	assert_ptr_not_equal(small, large);
	assert_int_equal(folio_order(small), 0);
	assert_int_equal(folio_mapcount(small), 1);
	assert_int_equal(folio_mapcount(large), 15);
	assert_ptr_equal(folio_at(vma, 6), large);
	/* a range that is not empty is skipped, not a failed attempt */
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_ANON_FAULT_ALLOC) - alloc, 1);
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_ANON_FAULT_FALLBACK) - fallback, 0);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 16);
	mmput(mm);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_mthp_fallback_charge(void **state)
{
	unsigned long alloc = mthp_stat_read(4, MTHP_STAT_ANON_FAULT_ALLOC);
	unsigned long fallback = mthp_stat_read(4, MTHP_STAT_ANON_FAULT_FALLBACK);
	unsigned long fb_charge = mthp_stat_read(4, MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE);
	unsigned long free_before = free_pages();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 16 * PAGE_SIZE, 4);

	drain_all_stock();
	assert_int_equal(mem_cgroup_set_max(memcg, 8), 0);
	/* 16 pages do not fit under memory.max = 8, one page does */
	assert_int_equal(mm_access(vma, addr_of(vma, 3), true), 0);
	assert_int_equal(folio_order(folio_at(vma, 3)), 0);
	assert_true(pte_none(pte_at(vma, 2)));
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_ANON_FAULT_ALLOC) - alloc, 0);
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_ANON_FAULT_FALLBACK) - fallback, 1);
	assert_int_equal(mthp_stat_read(4, MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE) - fb_charge, 1);
	assert_int_equal(free_before - free_pages(), 1);
	mmput(mm);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(mem_cgroup_set_max(memcg, PAGE_COUNTER_MAX), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_oom(void **state)
{
	unsigned long free_before = free_pages();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 8 * PAGE_SIZE, 0);
	unsigned long i;

	drain_all_stock();
	assert_int_equal(mem_cgroup_set_max(memcg, 4), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(mm_access(vma, addr_of(vma, i), true), 0);
	assert_int_equal(mm_access(vma, addr_of(vma, 4), true), VM_FAULT_OOM);
	assert_int_equal(handle_mm_fault(vma, addr_of(vma, 5), 0), VM_FAULT_OOM);
	assert_true(pte_none(pte_at(vma, 4)));
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), 4);
	assert_int_equal(mem_cgroup_usage(memcg), 4);
	assert_int_equal(free_before - free_pages(), 4);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 4);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	zap_page_range_single(vma, vma->vm_start, 8 * PAGE_SIZE);
	assert_int_equal(free_pages(), free_before);
	drain_all_stock();
	assert_int_equal(mem_cgroup_usage(memcg), 0);
	/* room again */
	assert_int_equal(mm_access(vma, addr_of(vma, 4), true), 0);
	mmput(mm);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(mem_cgroup_set_max(memcg, PAGE_COUNTER_MAX), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* More PTEs than one gather holds, across several PTE tables. */
static void test_zap_many(void **state)
{
	unsigned long pages = 3 * PTRS_PER_PTE + 17, i;
	unsigned long free_before = free_pages();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, pages * PAGE_SIZE, 0);
	struct vm_area_struct *big = mmap_anon(mm, PTRS_PER_PTE * PAGE_SIZE, 2);

	assert_non_null(big);
	assert_int_equal(big->vm_start % PMD_SIZE, 0);
	assert_true(big->vm_start >= vma->vm_end);
	for (i = 0; i < pages; i++)
		assert_int_equal(mm_access(vma, addr_of(vma, i), i & 1), 0);
	for (i = 0; i < PTRS_PER_PTE; i += 4)
		assert_int_equal(mm_access(big, addr_of(big, i), true), 0);
	assert_int_equal(free_before - free_pages(), pages + PTRS_PER_PTE);
	assert_int_equal(node_stat(NR_ANON_MAPPED), pages + PTRS_PER_PTE);

	/* from the middle of one table to the middle of another */
	zap_page_range_single(vma, addr_of(vma, 100), (pages - 200) * PAGE_SIZE);
	assert_false(pte_none(pte_at(vma, 99)));
	assert_true(pte_none(pte_at(vma, 100)));
	assert_true(pte_none(pte_at(vma, pages - 101)));
	assert_false(pte_none(pte_at(vma, pages - 100)));
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), 200 + PTRS_PER_PTE);
	assert_int_equal(free_before - free_pages(), 200 + PTRS_PER_PTE);

	munmap_vma(vma);
	assert_int_equal(free_before - free_pages(), PTRS_PER_PTE);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), PTRS_PER_PTE);
	mmput(mm);
	assert_int_equal(free_pages(), free_before);
	assert_int_equal(node_stat(NR_ANON_MAPPED), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * Threads of one process that each map a range of a PMD multiple one
 * after another get one VMA (the kernel's vma_merge_new_range()): its
 * length is theirs together, each range faults and zaps in it, and a
 * range faulted before the next merged keeps its pages.  A different
 * order, a file's mapping, or a range not ending on a PMD boundary
 * (the model leaves the rest of its PMD unmapped) starts a VMA.
 */
#define MERGED 4

static void test_vma_merge(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct address_space *file = shmem_file_setup(16, 0);
	unsigned long addr[MERGED], pfn, i;
	struct vm_area_struct *vma;

	for (i = 0; i < MERGED; i++) {
		addr[i] = do_mmap_anon(mm, PMD_SIZE, 0);
		assert_true(addr[i] != 0);
		if (i)
			assert_true(addr[i] == addr[i - 1] + PMD_SIZE);
		vma = find_vma(mm, addr[i]);
		assert_int_equal(mm_vma_count(mm), 1);
		assert_true(vma->vm_start == addr[0] && vma->vm_end == addr[i] + PMD_SIZE);
		assert_int_equal(vma->vm_ranges, i + 1);
		/* a fault in each range before the next merges */
		assert_int_equal(mm_access(vma, addr[i] + 5 * PAGE_SIZE, true), 0);
	}
	pfn = pte_pfn(ptep_get(vma_pte(vma, addr[0] + 5 * PAGE_SIZE)));
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), MERGED);
	assert_int_equal(pte_table_pages(), MERGED);
	for (i = 0; i < MERGED; i++)
		assert_true(pte_present(ptep_get(vma_pte(vma, addr[i] + 5 * PAGE_SIZE))));
	assert_true(pte_pfn(ptep_get(vma_pte(vma, addr[0] + 5 * PAGE_SIZE))) == pfn);
	madvise_dontneed_single_vma(vma, addr[1], PMD_SIZE);
	assert_int_equal(get_mm_counter(mm, MM_ANONPAGES), MERGED - 1);
	assert_true(pte_none(ptep_get(vma_pte(vma, addr[1] + 5 * PAGE_SIZE))));

	/* another mTHP order: its own VMA, which then takes in its like */
	assert_true(find_vma(mm, do_mmap_anon(mm, PMD_SIZE, 2)) != vma);
	assert_int_equal(mm_vma_count(mm), 2);
	assert_non_null(mmap_anon(mm, PMD_SIZE, 2));
	assert_int_equal(mm_vma_count(mm), 2);
	/* a file's mapping, then an anonymous range after it */
	assert_non_null(mmap_shmem(mm, file, 0, 16 * PAGE_SIZE));
	assert_non_null(mmap_anon(mm, PMD_SIZE, 0));
	assert_int_equal(mm_vma_count(mm), 4);
	/* a range short of a PMD merges into the last; the next one starts a VMA */
	assert_non_null(mmap_anon(mm, 16 * PAGE_SIZE, 0));
	assert_int_equal(mm_vma_count(mm), 4);
	assert_non_null(mmap_anon(mm, PMD_SIZE, 0));
	assert_int_equal(mm_vma_count(mm), 5);
	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(pte_table_pages(), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_bad_arguments(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma;

	errno = 0;
	assert_null(mmap_anon(mm, 4 * PAGE_SIZE, 1));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmap_anon(mm, 1024 * PAGE_SIZE, 10));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmap_anon(mm, 6 * PAGE_SIZE, 2));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmap_anon(mm, 0, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmap_anon(mm, PAGE_SIZE + 1, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmap_shmem(mm, NULL, 0, PAGE_SIZE));
	assert_int_equal(errno, EINVAL);

	vma = mmap_anon(mm, 2 * PAGE_SIZE, 0);
	assert_int_equal(handle_mm_fault(vma, vma->vm_end, FAULT_FLAG_WRITE), VM_FAULT_SIGSEGV);
	assert_int_equal(handle_mm_fault(vma, vma->vm_start - 1, 0), VM_FAULT_SIGSEGV);
	assert_int_equal(mm_access(vma, vma->vm_end + PAGE_SIZE, false), VM_FAULT_SIGSEGV);
	assert_null(mthp_stat_name(__MTHP_STAT_COUNT));
	assert_string_equal(mthp_stat_name(MTHP_STAT_ANON_FAULT_ALLOC), "anon_fault_alloc");
	assert_string_equal(mthp_stat_name(MTHP_STAT_SPLIT_DEFERRED), "split_deferred");
	assert_string_equal(mthp_stat_name(MTHP_STAT_NR_ANON_PARTIALLY_MAPPED),
			    "nr_anon_partially_mapped");
	mmput(mm);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_anon_fault_zap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zeroed_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_then_write_fault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_fault_copies_pinned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mthp_16k, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mthp_64k, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mthp_2m_by_ptes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mthp_fallback_partly_mapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mthp_fallback_charge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zap_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vma_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
	};

	return cmocka_run_group_tests_name("memory", tests, NULL, NULL);
}
