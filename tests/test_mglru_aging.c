// SPDX-License-Identifier: MIT
/*
 * MGLRU aging (mm/mglru_aging.c, mm/mglru_walk.c): what one aging pass
 * promotes, which mms the mm list hands out and which PTE tables the
 * Bloom filters let through, and the s2 switch's effect on folio flags
 * and locked cmpxchgs.  One model CPU, the test thread; every count is
 * exact.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/lru_gen_debugfs.h>
#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include <lrulab/mglru_walk.h>
#include <lrulab/mm_inline.h>
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>

#define NODE_PAGES 16384
#define FILE_PAGES 1024UL	/* two PTE tables per mapping */
#define MAX_MMS 4

static struct mem_cgroup *memcg;
static struct address_space *file;
static struct mm_struct *mms[MAX_MMS];
static struct vm_area_struct *vmas[MAX_MMS];

static int setup_mglru(unsigned int caps, bool skip_noop)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = 1;
	cfg.node_pages = NODE_PAGES;
	cfg.lru_gen = caps;
	lrulab_switches_clear();
	lrulab_switches[SW_MGLRU_SKIP_NOOP_CMPXCHG] = skip_noop;
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		return -1;
	memcg = mem_cgroup_create(root_mem_cgroup, "t");
	file = shmem_file_setup(FILE_PAGES, 0);
	return memcg && file ? 0 : -1;
}

static int setup(void **state)
{
	return setup_mglru(LRU_GEN_CAPS_ALL, false);
}

static void free_model(void)
{
	int i;

	for (i = 0; i < MAX_MMS; i++) {
		mmput(mms[i]);
		mms[i] = NULL;
		vmas[i] = NULL;
	}
	shmem_file_free(file);
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
	lrulab_switches_clear();
}

static int teardown(void **state)
{
	free_model();
	return 0;
}

static void map_procs(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		mms[i] = mm_alloc(memcg);
		assert_non_null(mms[i]);
		vmas[i] = mmap_shmem(mms[i], file, 0, FILE_PAGES * PAGE_SIZE);
		assert_non_null(vmas[i]);
	}
}

/* @proc reads pages first, first + step, ... of the file */
static void read_pages(int proc, unsigned long first, unsigned long step)
{
	unsigned long p;

	for (p = first; p < FILE_PAGES; p += step)
		assert_int_equal(mm_access(vmas[proc], vmas[proc]->vm_start + p * PAGE_SIZE,
					   false), 0);
	lru_add_drain();
}

static struct lruvec *lruvec(void)
{
	return get_lruvec(memcg, 0);
}

static unsigned long max_seq(void)
{
	return READ_ONCE(lruvec()->lrugen.max_seq);
}

static struct folio *file_folio(unsigned long index)
{
	pte_t pte = ptep_get(vma_pte(vmas[0], vmas[0]->vm_start + index * PAGE_SIZE));

	assert_true(pte_present(pte));
	return pte_folio(pte);
}

static void mm_stats(unsigned long *s)
{
	lru_gen_read_mm_stats(lruvec(), s);
}

static bool age(bool force_scan)
{
	return try_to_inc_max_seq(lruvec(), max_seq(), 200, force_scan);
}

static long gen_pages(int gen)
{
	return lruvec()->lrugen.nr_pages[gen][LRU_GEN_ANON][0];
}

/*
 * Every folio was promoted once; then only the even pages are read: one
 * pass moves exactly those to the generation that was max_seq when the
 * walk ran, with PG_workingset and no refs, clears every young bit, and
 * leaves the odd ones where they were.
 */
static void test_pass_promotes_young(void **state)
{
	unsigned long s0[NR_MM_STATS], s1[NR_MM_STATS], seq0, seq1, i;

	map_procs(1);
	read_pages(0, 0, 1);
	assert_true(age(true));
	seq0 = max_seq() - 1;
	for (i = 0; i < FILE_PAGES; i++) {
		struct folio *folio = file_folio(i);

		assert_int_equal(folio_lru_gen(folio), lru_gen_from_seq(seq0));
		assert_true(folio_test_workingset(folio));
		assert_false(folio_test_referenced(folio));
		assert_false(pte_young(ptep_get(vma_pte(vmas[0], vmas[0]->vm_start + i * PAGE_SIZE))));
	}
	assert_int_equal(gen_pages(lru_gen_from_seq(seq0)), FILE_PAGES);

	read_pages(0, 0, 2);
	seq1 = max_seq();
	mm_stats(s0);
	assert_true(age(true));
	mm_stats(s1);
	assert_int_equal(max_seq(), seq1 + 1);
	for (i = 0; i < FILE_PAGES; i++) {
		struct folio *folio = file_folio(i);

		assert_int_equal(folio_lru_gen(folio), lru_gen_from_seq(i % 2 ? seq0 : seq1));
		assert_true(folio_test_workingset(folio));
		assert_false(folio_test_referenced(folio));
		assert_false(pte_young(ptep_get(vma_pte(vmas[0], vmas[0]->vm_start + i * PAGE_SIZE))));
	}
	assert_int_equal(gen_pages(lru_gen_from_seq(seq1)), FILE_PAGES / 2);
	assert_int_equal(gen_pages(lru_gen_from_seq(seq0)), FILE_PAGES / 2);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], FILE_PAGES);
	assert_int_equal(s1[MM_LEAF_YOUNG] - s0[MM_LEAF_YOUNG], FILE_PAGES / 2);
	/* both tables were found (forced) and, half young, are worth a next look */
	assert_int_equal(s1[MM_NONLEAF_FOUND] - s0[MM_NONLEAF_FOUND], 2);
	assert_int_equal(s1[MM_NONLEAF_ADDED] - s0[MM_NONLEAF_ADDED], 2);
}

/* A folio nobody marked: its first young sighting only sets PG_referenced. */
static void test_first_sighting_marks(void **state)
{
	struct folio *folio;
	unsigned long seq;
	int gen;

	map_procs(1);
	read_pages(0, 0, 1);
	folio = file_folio(5);
	/* as if reclaim had cleared its refs: it was never seen young */
	lru_gen_clear_refs(folio);
	gen = folio_lru_gen(folio);
	seq = max_seq();
	assert_true(age(true));
	assert_int_equal(folio_lru_gen(folio), gen);
	assert_true(folio_test_referenced(folio));
	assert_false(folio_test_workingset(folio));
	/* the second sighting promotes */
	read_pages(0, 5, FILE_PAGES);
	assert_true(age(true));
	assert_int_equal(folio_lru_gen(folio), lru_gen_from_seq(seq + 1));
	assert_true(folio_test_workingset(folio));
	assert_false(folio_test_referenced(folio));
}

/*
 * Three mms share the file.  A forced pass walks each exactly once; an
 * unforced one only the mm that ran since (its bitmap bit), and only the
 * PTE tables the last pass found worth scanning (the Bloom filter).
 */
static void test_mm_list_and_bloom(void **state)
{
	unsigned long s0[NR_MM_STATS], s1[NR_MM_STATS], i;

	map_procs(3);
	read_pages(0, 0, 1);
	read_pages(1, 0, 1);
	read_pages(2, 0, 1);
	mm_stats(s0);
	assert_true(age(true));
	mm_stats(s1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], 3 * FILE_PAGES);
	assert_int_equal(s1[MM_LEAF_YOUNG] - s0[MM_LEAF_YOUNG], 3 * FILE_PAGES);
	assert_int_equal(s1[MM_NONLEAF_FOUND] - s0[MM_NONLEAF_FOUND], 6);

	/* only mm 1 runs (a context switch to it) */
	lru_gen_use_mm(mms[1]);
	read_pages(1, 0, 1);
	mm_stats(s0);
	assert_true(age(false));
	mm_stats(s1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], FILE_PAGES);
	assert_int_equal(s1[MM_LEAF_YOUNG] - s0[MM_LEAF_YOUNG], FILE_PAGES);
	assert_int_equal(s1[MM_NONLEAF_FOUND] - s0[MM_NONLEAF_FOUND], 2);
	assert_int_equal(s1[MM_NONLEAF_ADDED] - s0[MM_NONLEAF_ADDED], 2);

	/* nobody ran: the iteration ends at once, max_seq still advances */
	mm_stats(s0);
	assert_true(age(false));
	mm_stats(s1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], 0);

	/* mm 1 reads its first table and 8 pages of its second */
	read_pages(1, 0, 1);
	mm_stats(s0);
	assert_true(age(true));
	mm_stats(s1);
	/* the first table is still young from the read above */
	assert_int_equal(s1[MM_LEAF_YOUNG] - s0[MM_LEAF_YOUNG], FILE_PAGES);
	read_pages(1, 0, 1);
	for (i = PTRS_PER_PTE; i < FILE_PAGES; i++)
		if (i % 64)
			ptep_test_and_clear_young(vma_pte(vmas[1], vmas[1]->vm_start + i * PAGE_SIZE));
	mm_stats(s0);
	assert_true(age(true));
	mm_stats(s1);
	assert_int_equal(s1[MM_LEAF_YOUNG] - s0[MM_LEAF_YOUNG], PTRS_PER_PTE + 8);
	/* forced: all 6 tables found; only mm 1's dense one goes to the next filter */
	assert_int_equal(s1[MM_NONLEAF_FOUND] - s0[MM_NONLEAF_FOUND], 6);
	assert_int_equal(s1[MM_NONLEAF_ADDED] - s0[MM_NONLEAF_ADDED], 1);

	/* mms 0 and 1 run, mm 1 reads everything: unforced, only its dense table is walked */
	lru_gen_use_mm(mms[0]);
	lru_gen_use_mm(mms[1]);
	read_pages(1, 0, 1);
	mm_stats(s0);
	assert_true(age(false));
	mm_stats(s1);
	assert_int_equal(s1[MM_NONLEAF_FOUND] - s0[MM_NONLEAF_FOUND], 1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], PTRS_PER_PTE);
	assert_int_equal(s1[MM_LEAF_YOUNG] - s0[MM_LEAF_YOUNG], PTRS_PER_PTE);
	/* the skipped table kept its young bits for a later pass */
	assert_true(pte_young(ptep_get(vma_pte(vmas[1],
					       vmas[1]->vm_start + PTRS_PER_PTE * PAGE_SIZE))));
}

/* Without 0x0002 nothing is walked: only the iteration's seq moves. */
static void test_no_walk_cap(void **state)
{
	unsigned long s0[NR_MM_STATS], s1[NR_MM_STATS], seq;

	free_model();
	assert_int_equal(setup_mglru(BIT(LRU_GEN_CORE), false), 0);
	map_procs(1);
	read_pages(0, 0, 1);
	seq = max_seq();
	mm_stats(s0);
	assert_true(age(true));
	mm_stats(s1);
	assert_int_equal(max_seq(), seq + 1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], 0);
	assert_true(pte_young(ptep_get(vma_pte(vmas[0], vmas[0]->vm_start))));
	/* a stale seq is refused */
	assert_false(try_to_inc_max_seq(lruvec(), seq, 200, true));
}

/* Without 0x0004 the PMD accessed bit is ignored; with it, a clear one skips. */
static void test_nonleaf_young(void **state)
{
	unsigned long s0[NR_MM_STATS], s1[NR_MM_STATS];

	map_procs(1);
	read_pages(0, 0, 1);
	assert_true(age(true));
	/* a forced pass leaves the PMD bits alone: clear table 0's by hand */
	vmas[0]->tables[0].young = 0;
	vmas[0]->tables[1].young = 0;
	lru_gen_use_mm(mms[0]);
	read_pages(0, 0, 1);
	/* the PTEs of table 0 are young again but its PMD bit is not: a TLB hit */
	vmas[0]->tables[0].young = 0;
	assert_int_equal(vmas[0]->tables[1].young, 1);
	mm_stats(s0);
	assert_true(age(false));
	mm_stats(s1);
	assert_int_equal(s1[MM_NONLEAF_FOUND] - s0[MM_NONLEAF_FOUND], 1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], PTRS_PER_PTE);
	assert_int_equal(vmas[0]->tables[1].young, 0);
	assert_true(pte_young(ptep_get(vma_pte(vmas[0], vmas[0]->vm_start))));

	/* without 0x0004 the PMD bit is not looked at */
	lru_gen_caps &= ~BIT(LRU_GEN_NONLEAF_YOUNG);
	lru_gen_use_mm(mms[0]);
	read_pages(0, 0, 1);
	vmas[0]->tables[0].young = 0;
	vmas[0]->tables[1].young = 0;
	mm_stats(s0);
	assert_true(age(false));
	mm_stats(s1);
	/*
	 * Table 1 is walked with its PMD bit clear; table 0 is not, because
	 * the pass that skipped it for its PMD bit did not carry it over to
	 * the Bloom filter this pass reads.
	 */
	assert_int_equal(s1[MM_NONLEAF_FOUND] - s0[MM_NONLEAF_FOUND], 1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], PTRS_PER_PTE);
	assert_false(pte_young(ptep_get(vma_pte(vmas[0],
						vmas[0]->vm_start + PTRS_PER_PTE * PAGE_SIZE))));
	lru_gen_caps |= BIT(LRU_GEN_NONLEAF_YOUNG);
}

static pte_t *pte_of(int proc, unsigned long page)
{
	return vma_pte(vmas[proc], vmas[proc]->vm_start + page * PAGE_SIZE);
}

/*
 * The rmap walk found page 10 young: look-around clears it and promotes
 * the young pages in the 64-page window around it (pages 0-63 here, the
 * window starting at the VMA), through the rmap rules: workingset folios
 * are activated, to max_seq once the per-CPU batch drains.  Pages past
 * the window keep their young bits.
 */
static void test_look_around(void **state)
{
	unsigned long addr, i, seq0;
	spinlock_t *ptl;

	map_procs(1);
	read_pages(0, 0, 1);
	assert_true(age(true));
	seq0 = max_seq() - 1;
	read_pages(0, 0, 1);
	addr = vmas[0]->vm_start + 10 * PAGE_SIZE;
	ptl = pte_lockptr(vmas[0], addr);
	spin_lock(ptl);
	assert_true(lru_gen_look_around(vmas[0], addr, pte_of(0, 10)));
	/* now old: a second look finds nothing */
	assert_false(lru_gen_look_around(vmas[0], addr, pte_of(0, 10)));
	spin_unlock(ptl);
	lru_add_drain();
	for (i = 0; i < FILE_PAGES; i++) {
		struct folio *folio = file_folio(i);

		assert_int_equal(pte_young(ptep_get(pte_of(0, i))), i >= 64);
		assert_int_equal(folio_lru_gen(folio),
				 lru_gen_from_seq(i < 64 && i != 10 ? max_seq() : seq0));
	}
}

struct flags_run {
	unsigned long flags[FILE_PAGES];
	unsigned long max_seq;
	struct lru_gen_cas_stat cas;
};

#define S2_FLAG_BITS (LRU_GEN_MASK | LRU_REFS_MASK | BIT(PG_referenced) | \
		      BIT(PG_workingset) | BIT(PG_active) | BIT(PG_lru))

/* @procs processes read everything, then a pass; twice */
static void s2_run(int procs, bool skip, struct flags_run *r)
{
	struct lru_gen_cas_stat c0, c1;
	unsigned long i;
	int pass, p;

	free_model();
	assert_int_equal(setup_mglru(LRU_GEN_CAPS_ALL, skip), 0);
	map_procs(procs);
	lru_gen_cas_read(&c0);
	for (pass = 0; pass < 2; pass++) {
		for (p = 0; p < procs; p++)
			read_pages(p, 0, 1);
		assert_true(age(true));
	}
	lru_gen_cas_read(&c1);
	r->cas.done = c1.done - c0.done;
	r->cas.skipped = c1.skipped - c0.skipped;
	r->max_seq = max_seq();
	for (i = 0; i < FILE_PAGES; i++)
		r->flags[i] = file_folio(i)->flags & S2_FLAG_BITS;
}

/*
 * The switch changes no resulting flags, only the locked cmpxchgs: with
 * 4 processes each pass promotes a folio once (one cmpxchg) and sees it
 * 3 more times unchanged, which the switch skips; with 1 process there
 * is nothing to skip.
 */
static void test_s2_skip_noop(void **state)
{
	static struct flags_run off, on, one;

	s2_run(4, false, &off);
	s2_run(4, true, &on);
	assert_memory_equal(off.flags, on.flags, sizeof(off.flags));
	assert_int_equal(off.max_seq, on.max_seq);
	assert_int_equal(off.cas.done, 2 * 4 * FILE_PAGES);
	assert_int_equal(off.cas.skipped, 0);
	assert_int_equal(on.cas.done, 2 * FILE_PAGES);
	assert_int_equal(on.cas.skipped, 2 * 3 * FILE_PAGES);

	s2_run(1, true, &one);
	assert_int_equal(one.cas.done, 2 * FILE_PAGES);
	assert_int_equal(one.cas.skipped, 0);
}

/* folio_flags_set_mask(): an unchanged word is skipped only with the switch */
static void test_set_mask_noop(void **state)
{
	struct lru_gen_cas_stat c0, c1;
	struct folio *folio;
	unsigned long old;

	map_procs(1);
	read_pages(0, 0, 1);
	folio = file_folio(0);
	lru_gen_cas_fold();
	lru_gen_cas_read(&c0);
	old = folio_flags_set_mask(folio, LRU_REFS_MASK, 0);
	assert_int_equal(folio_flags_set_mask(folio, LRU_REFS_MASK, 0), old & ~LRU_REFS_MASK);
	lru_gen_cas_fold();
	lru_gen_cas_read(&c1);
	assert_int_equal(c1.done - c0.done, 2);
	assert_int_equal(c1.skipped - c0.skipped, 0);

	lrulab_switches[SW_MGLRU_SKIP_NOOP_CMPXCHG] = true;
	assert_int_equal(folio_flags_set_mask(folio, LRU_REFS_MASK, 0), old & ~LRU_REFS_MASK);
	lru_gen_cas_fold();
	lru_gen_cas_read(&c0);
	assert_int_equal(c0.done - c1.done, 0);
	assert_int_equal(c0.skipped - c1.skipped, 1);
}

/*
 * Eviction from the lru_gen file runs with a walk context, as kswapd and
 * every reclaimer after its first aging do: page 10, alone in the oldest
 * generation and young, is seen by the rmap walk, and look-around moves
 * its 63 young neighbours to max_seq in place, PG_workingset kept, with
 * no PGACTIVATE (the rmap path would activate each through the per-CPU
 * batch).  The sizes the walk batched are applied before the command
 * returns.
 */
static void test_look_around_uses_walk(void **state)
{
	struct lruvec *lv = lruvec();
	struct folio *target;
	unsigned long i, seq0;
	char cmd[64];
	int len;

	assert_int_equal(swapon(FILE_PAGES, SWAP_STORE_COPY), 0);
	map_procs(1);
	read_pages(0, 0, 1);
	assert_true(age(true));
	seq0 = max_seq() - 1;
	/* page 10 to the oldest generation, with no refs left to protect it */
	target = file_folio(10);
	lru_gen_clear_refs(target);
	spin_lock(&lv->lru_lock);
	assert_true(folio_test_clear_lru(target));
	assert_true(lru_gen_del_folio(lv, target, true));
	lruvec_add_folio_tail(lv, target);
	folio_set_lru(target);
	spin_unlock(&lv->lru_lock);
	assert_int_equal(folio_lru_gen(target), lru_gen_from_seq(lv->lrugen.min_seq[LRU_GEN_ANON]));
	for (i = 0; i < 64; i++)
		assert_int_equal(mm_access(vmas[0], vmas[0]->vm_start + i * PAGE_SIZE, false), 0);
	mem_cgroup_flush_all();
	assert_int_equal(memcg_events(memcg, PGACTIVATE), 0);

	len = snprintf(cmd, sizeof(cmd), "- %llu 0 %lu 200 1",
		       (unsigned long long)mem_cgroup_id(memcg),
		       lv->lrugen.min_seq[LRU_GEN_ANON]);
	assert_int_equal(lru_gen_seq_write(cmd, (size_t)len), len);
	lru_add_drain();
	mem_cgroup_flush_all();
	assert_int_equal(memcg_events(memcg, PGACTIVATE), 0);
	for (i = 0; i < 64; i++) {
		struct folio *folio = file_folio(i);

		if (i == 10)
			continue;
		assert_int_equal(folio_lru_gen(folio), lru_gen_from_seq(max_seq()));
		assert_true(folio_test_workingset(folio));
		assert_false(pte_young(ptep_get(pte_of(0, i))));
	}
	assert_int_equal(folio_lru_gen(file_folio(64)), lru_gen_from_seq(seq0));
	assert_int_equal(gen_pages(lru_gen_from_seq(max_seq())), 63);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	swapoff();
}

/*
 * A reclaimer without a walk of its own (memory.max reclaim: not
 * proactive) gets one from its first aging, try_to_inc_max_seq(), and
 * keeps it until clear_mm_walk(): the eviction after it promotes the
 * young neighbours of page 10 in place, with no PGACTIVATE.
 */
static void test_look_around_walk_from_aging(void **state)
{
	struct lruvec *lv = lruvec();
	struct scan_control sc = {
		.nr_to_reclaim = 1, .target_mem_cgroup = memcg, .priority = DEF_PRIORITY,
		.reclaim_idx = MAX_NR_ZONES - 1, .may_writepage = 1, .may_unmap = 1,
		.may_swap = 1,
	};
	struct folio *target;
	unsigned long i;

	assert_int_equal(swapon(FILE_PAGES, SWAP_STORE_COPY), 0);
	map_procs(1);
	read_pages(0, 0, 1);
	assert_null(set_mm_walk(NULL, sc.proactive));
	assert_true(age(true));
	target = file_folio(10);
	lru_gen_clear_refs(target);
	spin_lock(&lv->lru_lock);
	assert_true(folio_test_clear_lru(target));
	assert_true(lru_gen_del_folio(lv, target, true));
	lruvec_add_folio_tail(lv, target);
	folio_set_lru(target);
	spin_unlock(&lv->lru_lock);
	for (i = 0; i < 64; i++)
		assert_int_equal(mm_access(vmas[0], vmas[0]->vm_start + i * PAGE_SIZE, false), 0);

	assert_true(evict_folios(64, lv, &sc, 200) > 0);
	clear_mm_walk();
	lru_add_drain();
	mem_cgroup_flush_all();
	assert_int_equal(memcg_events(memcg, PGACTIVATE), 0);
	for (i = 0; i < 64; i++)
		if (i != 10)
			assert_int_equal(folio_lru_gen(file_folio(i)), lru_gen_from_seq(max_seq()));
	assert_int_equal(gen_pages(lru_gen_from_seq(max_seq())), 63);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	swapoff();
}

/*
 * A 4 MiB anonymous mapping faulted in only in its first 2 MiB: the
 * second range has no PTE table, and a forced pass counts it once in T
 * (the kernel's walk_pmd_range() skips a PMD that is not present), not
 * as 512 PTEs.
 */
static void test_walk_skips_absent_pmd(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 2 * PMD_SIZE, 0);
	unsigned long s0[NR_MM_STATS], s1[NR_MM_STATS], i;

	assert_non_null(vma);
	assert_int_equal(swapon(64, SWAP_STORE_COPY), 0);
	for (i = 0; i < PTRS_PER_PTE; i++)
		assert_int_equal(mm_access(vma, vma->vm_start + i * PAGE_SIZE, true), 0);
	lru_add_drain();
	mm_stats(s0);
	assert_true(age(true));
	mm_stats(s1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], PTRS_PER_PTE + 1);
	assert_int_equal(s1[MM_LEAF_YOUNG] - s0[MM_LEAF_YOUNG], PTRS_PER_PTE);
	/* only the populated table was looked into */
	assert_int_equal(s1[MM_NONLEAF_FOUND] - s0[MM_NONLEAF_FOUND], 1);
	mmput(mm);
	swapoff();
}

/*
 * A 64 KiB anon folio (order 4) whose first PTE alone was used again:
 * the walker takes the folio's 16 PTEs as one batch with their young
 * bits merged (folio_pte_batch_flags(FPB_MERGE_YOUNG_DIRTY)), so Y
 * counts 16, and clears all of them.
 */
static void test_walk_batches_large_folio(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, PMD_SIZE, 4);
	unsigned long s0[NR_MM_STATS], s1[NR_MM_STATS], i;

	assert_non_null(vma);
	assert_int_equal(swapon(64, SWAP_STORE_COPY), 0);
	assert_int_equal(mm_access(vma, vma->vm_start, true), 0);
	lru_add_drain();
	assert_int_equal(folio_nr_pages(pte_folio(ptep_get(vma_pte(vma, vma->vm_start)))), 16);
	for (i = 0; i < 16; i++)
		ptep_test_and_clear_young(vma_pte(vma, vma->vm_start + i * PAGE_SIZE));
	assert_int_equal(mm_access(vma, vma->vm_start, false), 0);
	mm_stats(s0);
	assert_true(age(true));
	mm_stats(s1);
	assert_int_equal(s1[MM_LEAF_TOTAL] - s0[MM_LEAF_TOTAL], PTRS_PER_PTE);
	assert_int_equal(s1[MM_LEAF_YOUNG] - s0[MM_LEAF_YOUNG], 16);
	for (i = 0; i < 16; i++)
		assert_false(pte_young(ptep_get(vma_pte(vma, vma->vm_start + i * PAGE_SIZE))));
	mmput(mm);
	swapoff();
}

static struct lru_gen_cas_stat cas_since(const struct lru_gen_cas_stat *c0)
{
	struct lru_gen_cas_stat c;

	lru_gen_cas_fold();
	lru_gen_cas_read(&c);
	c.done -= c0->done;
	c.skipped -= c0->skipped;
	return c;
}

static void cas_now(struct lru_gen_cas_stat *c)
{
	lru_gen_cas_fold();
	lru_gen_cas_read(c);
}

/*
 * The s2 switch also serves lru_gen_clear_refs(), lru_gen_set_refs()
 * and lru_gen_refault(), which the mail's patched helper covers: each
 * write of their flags goes through folio_flags_set_mask(), counted,
 * and skipped when the word would not change.
 */
static void test_s2_refs_helpers(void **state)
{
	struct address_space *reg = file_setup(1);
	struct scan_control sc = {
		.nr_to_reclaim = 1, .target_mem_cgroup = memcg, .priority = DEF_PRIORITY,
		.reclaim_idx = MAX_NR_ZONES - 1, .may_writepage = 1, .may_unmap = 1,
	};
	struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(0));
	struct lru_gen_cas_stat c0, c;
	struct folio *folio;

	lrulab_switches[SW_MGLRU_SKIP_NOOP_CMPXCHG] = true;
	map_procs(1);
	read_pages(0, 0, 1);
	folio = file_folio(0);

	/* the faults left it referenced: start from clear refs */
	lru_gen_clear_refs(folio);
	assert_false(folio_test_referenced(folio) || folio_test_workingset(folio));

	/* set_refs: a first sighting marks the folio, one cmpxchg */
	cas_now(&c0);
	assert_false(lru_gen_set_refs(folio));
	assert_true(folio_test_referenced(folio));
	c = cas_since(&c0);
	assert_int_equal(c.done, 1);
	assert_int_equal(c.skipped, 0);

	/* clear_refs: the first call clears PG_referenced, the second nothing */
	cas_now(&c0);
	lru_gen_clear_refs(folio);
	assert_false(folio_test_referenced(folio));
	lru_gen_clear_refs(folio);
	c = cas_since(&c0);
	assert_int_equal(c.done, 1);
	assert_int_equal(c.skipped, 1);

	/*
	 * refault: a page read once is evicted with refs 1; its refault
	 * writes refs 0 into a new folio's clear field, a no-op
	 */
	assert_non_null(reg);
	assert_int_equal(file_read_page(reg, 0, memcg, NULL), 0);
	lru_add_drain();
	assert_int_equal(evict_folios(64, lruvec, &sc, 0), 1);
	assert_int_equal(sc.nr_reclaimed, 1);
	cas_now(&c0);
	assert_int_equal(file_read_page(reg, 0, memcg, NULL), 0);
	c = cas_since(&c0);
	assert_int_equal(c.done, 0);
	assert_int_equal(c.skipped, 1);
	file_free(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pass_promotes_young, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_sighting_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mm_list_and_bloom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_walk_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nonleaf_young, setup, teardown),
		cmocka_unit_test_setup_teardown(test_look_around, setup, teardown),
		cmocka_unit_test_setup_teardown(test_s2_skip_noop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_mask_noop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_s2_refs_helpers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_look_around_uses_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_look_around_walk_from_aging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_skips_absent_pmd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_batches_large_folio, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
