// SPDX-License-Identifier: MIT
/*
 * The multi-gen LRU's core: the gen and refs fields of folio->flags for
 * every generation and tier, the v7.2 tier ladder of fd accesses, where
 * lru_gen_folio_seq() places a folio for each of its rules, the lists
 * and counters lru_gen_add_folio()/lru_gen_del_folio() keep, the shadow
 * token and lru_gen_test_recent(), and the invariant checker on the
 * lrugen lists.
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
#include <lrulab/mglru.h>
#include <lrulab/mm_inline.h>
#include <lrulab/swap_state.h>
#include <lrulab/vmscan.h>

/* pgscan and pgsteal are node stats (lruvec stats in v7.2) */
static unsigned long reclaim_stat_sum(enum node_stat_item item)
{
	vmstat_refresh();
	return global_node_page_state(item);
}

#define NODE_PAGES 4096

static struct mem_cgroup *memcg;

static int setup(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = 2;
	cfg.node_pages = NODE_PAGES;
	cfg.lru_gen = LRU_GEN_CAPS_ALL;
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		return -1;
	memcg = mem_cgroup_create(root_mem_cgroup, "t");
	return memcg ? 0 : -1;
}

static int teardown(void **state)
{
	swapoff();
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
	return 0;
}

static struct lruvec *test_lruvec(void)
{
	return mem_cgroup_lruvec(memcg, NODE_DATA(0));
}

/* ---- folio->flags ---- */

static void test_gen_field_round_trip(void **state)
{
	/* every other bit set, to see that only the field changes */
	const unsigned long others = ~(LRU_GEN_MASK | LRU_REFS_MASK) & 0x5555555555555555UL;
	struct folio f;
	int gen;

	memset(&f, 0, sizeof(f));
	f.flags = others;
	assert_int_equal(folio_lru_gen(&f), -1);
	for (gen = 0; gen < (int)MAX_NR_GENS; gen++) {
		unsigned long old = set_mask_bits(&f.flags, LRU_GEN_MASK,
						  (gen + 1UL) << LRU_GEN_PGOFF);

		assert_int_equal((old & LRU_GEN_MASK) >> LRU_GEN_PGOFF, gen);
		assert_int_equal(folio_lru_gen(&f), gen);
		assert_int_equal(f.flags & ~LRU_GEN_MASK, others);
		assert_int_equal(lru_gen_from_seq((unsigned long)gen + 4 * 1000), gen);
	}
	set_mask_bits(&f.flags, LRU_GEN_MASK, 0);
	assert_int_equal(folio_lru_gen(&f), -1);
	assert_int_equal(f.flags, others);
	/* the fields sit where lrulab reserved them: bits 27-29 and 25-26 */
	assert_int_equal(LRU_GEN_MASK, 0x38000000UL);
	assert_int_equal(LRU_REFS_MASK, 0x06000000UL);
}

static void test_refs_round_trip(void **state)
{
	/* v7.2: tier = 3 if workingset, else order_base_2(refs) */
	static const int tier_of[5] = { 0, 0, 1, 2, 2 };
	struct folio f;
	int refs;

	memset(&f, 0, sizeof(f));
	/* refs without PG_referenced are stale: 0 */
	set_mask_bits(&f.flags, LRU_REFS_MASK, 3UL << LRU_REFS_PGOFF);
	assert_int_equal(folio_lru_refs(&f), 0);
	for (refs = 1; refs <= 4; refs++) {
		f.flags = BIT(PG_referenced) | ((refs - 1UL) << LRU_REFS_PGOFF);
		assert_int_equal(folio_lru_refs(&f), refs);
		assert_int_equal(lru_tier_from_refs(refs, false), tier_of[refs]);
		assert_int_equal(lru_tier_from_refs(refs, true), 3);
	}
	assert_int_equal(lru_tier_from_refs(0, false), 0);
	assert_int_equal(lru_tier_from_refs(0, true), 3);
}

/* The fd-access ladder of lru_gen_inc_refs(), from folio_mark_accessed() */
static void test_inc_refs_ladder(void **state)
{
	static const struct {
		int refs;
		bool workingset;
		int tier;
	} ladder[] = {
		{ 1, false, 0 }, { 2, false, 1 }, { 3, false, 2 },
		{ 4, false, 2 }, { 4, true, 3 }, { 4, true, 3 },
	};
	struct folio f;
	size_t i;

	memset(&f, 0, sizeof(f));
	f.flags = (2UL + 1) << LRU_GEN_PGOFF;
	for (i = 0; i < ARRAY_SIZE(ladder); i++) {
		folio_mark_accessed(&f);
		assert_int_equal(folio_lru_refs(&f), ladder[i].refs);
		assert_int_equal(folio_test_workingset(&f), ladder[i].workingset);
		assert_int_equal(lru_tier_from_refs(folio_lru_refs(&f),
						    folio_test_workingset(&f)), ladder[i].tier);
		/* fd accesses never change the generation */
		assert_int_equal(folio_lru_gen(&f), 2);
		assert_false(folio_test_active(&f));
	}
	/* clearing: refs, PG_referenced and PG_workingset all go; gen 2 is not the oldest */
	assert_false(lru_gen_clear_refs(&f));
	assert_int_equal(folio_lru_refs(&f), 0);
	assert_false(folio_test_referenced(&f));
	assert_false(folio_test_workingset(&f));
	assert_int_equal(f.flags & LRU_REFS_MASK, 0);
	/* in the oldest generation: deactivation need not move it */
	set_mask_bits(&f.flags, LRU_GEN_MASK, 1UL << LRU_GEN_PGOFF);
	assert_true(lru_gen_clear_refs(&f));
}

/*
 * Young sightings by the rmap walk (lru_gen_set_refs()): the first only
 * marks; later ones activate, the second as one more access (refs 2),
 * the third as workingset with the refs cleared.  A workingset folio
 * whose refs were paid for counts the sighting as an access again.
 */
static void test_set_refs_ladder(void **state)
{
	struct folio f;

	memset(&f, 0, sizeof(f));
	f.flags = (2UL + 1) << LRU_GEN_PGOFF;
	assert_false(lru_gen_set_refs(&f));
	assert_int_equal(folio_lru_refs(&f), 1);
	assert_false(folio_test_workingset(&f));

	assert_true(lru_gen_set_refs(&f));
	assert_int_equal(folio_lru_refs(&f), 2);
	assert_false(folio_test_workingset(&f));

	assert_true(lru_gen_set_refs(&f));
	assert_int_equal(folio_lru_refs(&f), 0);
	assert_true(folio_test_workingset(&f));
	assert_int_equal(f.flags & LRU_REFS_MASK, 0);

	assert_true(lru_gen_set_refs(&f));
	assert_int_equal(folio_lru_refs(&f), 1);
	assert_true(folio_test_workingset(&f));
	/* none of it moves the generation or sets PG_active */
	assert_int_equal(folio_lru_gen(&f), 2);
	assert_false(folio_test_active(&f));
}

/* ---- placement ---- */

/* A stand-in folio of @file type with @flags, in the test lruvec's node. */
static struct folio *fake_folio(struct folio *f, bool file, unsigned long flags)
{
	memset(f, 0, sizeof(*f));
	f->flags = flags | (file ? 0 : BIT(PG_swapbacked));
	return f;
}

static void test_folio_seq_rules(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct folio f;

	/* a new lruvec: max_seq 3, min_seq 0 for both types */
	assert_int_equal(lrugen->max_seq, 3);
	assert_int_equal(lrugen->min_seq[LRU_GEN_ANON], 0);
	assert_int_equal(lrugen->min_seq[LRU_GEN_FILE], 0);

	/* file, nothing known: the oldest */
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, true, 0), false), 0);
	/* referenced once, or workingset: max_seq - 2 */
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, true, BIT(PG_referenced)),
					   false), 1);
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, true, BIT(PG_workingset)),
					   false), 1);
	/* PG_active: max_seq - 1, max_seq with workingset */
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, true, BIT(PG_active)),
					   false), 2);
	assert_int_equal(lru_gen_folio_seq(lruvec,
					   fake_folio(&f, true, BIT(PG_active) | BIT(PG_workingset)),
					   false), 3);
	/* PG_active wins over reclaiming; reclaiming over referenced */
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, true, BIT(PG_active)),
					   true), 2);
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, true, BIT(PG_referenced)),
					   true), 0);
	/* anon outside the swap cache: max_seq - 1, even referenced */
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, false, 0), false), 2);
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, false, BIT(PG_referenced)),
					   false), 2);
	/* anon in the swap cache is placed like file */
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, false, BIT(PG_swapcache)),
					   false), 0);
	/* reclaimed while dirty or under writeback: max_seq - 1 */
	assert_int_equal(lru_gen_folio_seq(lruvec,
					   fake_folio(&f, true, BIT(PG_reclaim) | BIT(PG_dirty)),
					   false), 2);
	assert_int_equal(lru_gen_folio_seq(lruvec,
					   fake_folio(&f, true, BIT(PG_reclaim) | BIT(PG_writeback)),
					   false), 2);
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, true, BIT(PG_reclaim)),
					   false), 0);

	/* never below the type's oldest generation */
	spin_lock(&lruvec->lru_lock);
	lrugen->min_seq[LRU_GEN_FILE] = 1;
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, true, 0), false), 1);
	assert_int_equal(lru_gen_folio_seq(lruvec, fake_folio(&f, false, BIT(PG_swapcache)),
					   false), 0);
	lrugen->min_seq[LRU_GEN_FILE] = 0;
	spin_unlock(&lruvec->lru_lock);
}

static long gen_pages(struct lruvec *lruvec, int gen, int type)
{
	return lruvec->lrugen.nr_pages[gen][type][ZONE_NORMAL];
}

static bool on_gen_list(struct lruvec *lruvec, struct folio *folio, int gen, int type)
{
	struct folio *pos;

	list_for_each_entry(pos, &lruvec->lrugen.folios[gen][type][ZONE_NORMAL], lru)
		if (pos == folio)
			return true;
	return false;
}

static unsigned long stat_of(enum node_stat_item item)
{
	mem_cgroup_flush_all();
	return lruvec_page_state_local(test_lruvec(), item);
}

/*
 * A faulted anon folio lands in max_seq - 1 (an active generation);
 * taken off by a non-reclaim deletion it carries PG_active, and added
 * back with PG_workingset too it goes to max_seq.
 */
static void test_add_del_lists(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 4 * PAGE_SIZE, 0);
	struct folio *folio;
	int i;

	for (i = 0; i < 4; i++)
		assert_int_equal(mm_access(vma, vma->vm_start + i * PAGE_SIZE, true), 0);
	lru_add_drain();
	folio = pte_page(ptep_get(vma_pte(vma, vma->vm_start)));
	assert_int_equal(folio_lru_gen(folio), 2);
	assert_true(on_gen_list(lruvec, folio, 2, LRU_GEN_ANON));
	assert_false(folio_test_active(folio));
	assert_int_equal(gen_pages(lruvec, 2, LRU_GEN_ANON), 4);
	assert_int_equal(gen_pages(lruvec, 3, LRU_GEN_ANON), 0);
	/* the two youngest generations are the active list */
	assert_int_equal(stat_of(NR_ACTIVE_ANON), 4);
	assert_int_equal(stat_of(NR_INACTIVE_ANON), 0);
	/* the classic lists and lru_zone_size[] stay untouched */
	assert_true(list_empty(&lruvec->lists[LRU_ACTIVE_ANON]));
	assert_int_equal(lruvec_pn(lruvec)->lru_zone_size[ZONE_NORMAL][LRU_ACTIVE_ANON], 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	spin_lock(&lruvec->lru_lock);
	assert_true(folio_test_clear_lru(folio));
	lruvec_del_folio(lruvec, folio);
	assert_int_equal(folio_lru_gen(folio), -1);
	assert_true(folio_test_active(folio));
	assert_int_equal(gen_pages(lruvec, 2, LRU_GEN_ANON), 3);
	folio_set_workingset(folio);
	lruvec_add_folio(lruvec, folio);
	folio_set_lru(folio);
	spin_unlock(&lruvec->lru_lock);
	assert_int_equal(folio_lru_gen(folio), 3);
	assert_true(on_gen_list(lruvec, folio, 3, LRU_GEN_ANON));
	assert_false(folio_test_active(folio));
	assert_int_equal(gen_pages(lruvec, 3, LRU_GEN_ANON), 1);
	assert_int_equal(stat_of(NR_ACTIVE_ANON), 4);

	/* reclaim's deletion leaves PG_active clear; its tail add is the oldest */
	spin_lock(&lruvec->lru_lock);
	assert_true(folio_test_clear_lru(folio));
	assert_true(lru_gen_del_folio(lruvec, folio, true));
	assert_false(folio_test_active(folio));
	folio_clear_workingset(folio);
	lruvec_add_folio_tail(lruvec, folio);
	folio_set_lru(folio);
	spin_unlock(&lruvec->lru_lock);
	assert_int_equal(folio_lru_gen(folio), 0);
	assert_ptr_equal(list_last_entry(&lruvec->lrugen.folios[0][LRU_GEN_ANON][ZONE_NORMAL],
					 struct folio, lru), folio);
	assert_int_equal(stat_of(NR_ACTIVE_ANON), 3);
	assert_int_equal(stat_of(NR_INACTIVE_ANON), 1);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	mmput(mm);
	lru_add_drain();
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_ANON) + gen_pages(lruvec, 2, LRU_GEN_ANON), 0);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * A read of a regular file page marks it accessed once: referenced, so
 * it goes to max_seq - 2; three more reads move it up the tiers, not
 * the generations.
 */
static void test_file_read_placement(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct address_space *file = file_setup(8);
	struct folio *folio;
	int i;

	assert_int_equal(file_read_page(file, 0, memcg, NULL), 0);
	lru_add_drain();
	folio = filemap_get_folio(file, 0);
	assert_non_null(folio);
	assert_int_equal(folio_lru_gen(folio), 1);
	assert_int_equal(folio_lru_refs(folio), 1);
	assert_true(on_gen_list(lruvec, folio, 1, LRU_GEN_FILE));
	for (i = 0; i < 4; i++)
		assert_int_equal(file_read_page(file, 0, memcg, NULL), 0);
	assert_int_equal(folio_lru_gen(folio), 1);
	assert_int_equal(folio_lru_refs(folio), 4);
	assert_true(folio_test_workingset(folio));
	folio_put(folio);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	file_free(file);
}

/* ---- shadows ---- */

/*
 * The token is min_seq at eviction: recent while max_seq has moved on by
 * less than MAX_NR_GENS.
 */
static void test_test_recent(void **state)
{
	struct lruvec *lruvec = test_lruvec(), *found = NULL;
	unsigned long token = 0;
	bool workingset = false;
	void *shadow;

	/* min_seq 0, refs 3 (token's low bits 2), workingset */
	shadow = pack_shadow(memcg->id, 0, (0UL << LRU_REFS_WIDTH) | 2, true);
	rcu_read_lock();
	assert_true(lru_gen_test_recent(shadow, &found, &token, &workingset, true));
	rcu_read_unlock();
	assert_ptr_equal(found, lruvec);
	assert_int_equal(token, 2);
	assert_true(workingset);

	spin_lock(&lruvec->lru_lock);
	lruvec->lrugen.max_seq = 3;
	spin_unlock(&lruvec->lru_lock);
	rcu_read_lock();
	assert_true(lru_gen_test_recent(shadow, &found, &token, &workingset, true));
	rcu_read_unlock();
	/* four generations on: no longer recent */
	spin_lock(&lruvec->lru_lock);
	lruvec->lrugen.max_seq = 4;
	spin_unlock(&lruvec->lru_lock);
	rcu_read_lock();
	assert_false(lru_gen_test_recent(shadow, &found, &token, &workingset, true));
	rcu_read_unlock();
	spin_lock(&lruvec->lru_lock);
	lruvec->lrugen.max_seq = 3;
	spin_unlock(&lruvec->lru_lock);
	/* an id nobody has: the root's lruvec */
	shadow = pack_shadow(999, 0, 0, false);
	rcu_read_lock();
	lru_gen_test_recent(shadow, &found, &token, &workingset, false);
	rcu_read_unlock();
	assert_ptr_equal(found, mem_cgroup_lruvec(root_mem_cgroup, NODE_DATA(0)));
	assert_false(workingset);
}

/* ---- eviction ---- */

static struct scan_control reclaim_sc(void)
{
	return (struct scan_control){
		.nr_to_reclaim = 1UL << 20, .target_mem_cgroup = memcg,
		.priority = DEF_PRIORITY, .reclaim_idx = MAX_NR_ZONES - 1,
		.may_writepage = 1, .may_unmap = 1, .may_swap = 1,
	};
}

/* Off its list and back at the tail: the oldest generation of its type. */
static void to_oldest(struct lruvec *lruvec, struct folio *folio)
{
	spin_lock(&lruvec->lru_lock);
	assert_true(folio_test_clear_lru(folio));
	assert_true(lru_gen_del_folio(lruvec, folio, true));
	lruvec_add_folio_tail(lruvec, folio);
	folio_set_lru(folio);
	spin_unlock(&lruvec->lru_lock);
}

static bool cached(struct address_space *file, unsigned long index)
{
	struct folio *folio = filemap_get_folio(file, index);

	if (!folio)
		return false;
	folio_put(folio);
	return true;
}

/*
 * File pages 0-3 in the oldest generation, 4-7 in max_seq - 2: one
 * eviction takes exactly 0-3 and retires generation 0; the next takes
 * 4-7.  A refault of page 0 is recent (its token's generation is 3 from
 * max_seq) and counts in refaulted[] of its tier.
 */
static void test_evict_oldest_first(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct address_space *file = file_setup(8);
	struct scan_control sc = reclaim_sc();
	unsigned long i;

	for (i = 0; i < 8; i++)
		assert_int_equal(file_read_page(file, i, memcg, NULL), 0);
	lru_add_drain();
	for (i = 0; i < 4; i++) {
		struct folio *folio = filemap_get_folio(file, i);

		to_oldest(lruvec, folio);
		assert_int_equal(folio_lru_gen(folio), 0);
		folio_put(folio);
	}
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_FILE), 4);
	assert_int_equal(gen_pages(lruvec, 1, LRU_GEN_FILE), 4);

	assert_int_equal(evict_folios(64, lruvec, &sc, 0), 4);
	assert_int_equal(sc.nr_reclaimed, 4);
	for (i = 0; i < 8; i++)
		assert_int_equal(cached(file, i), i >= 4);
	/* generation 0 emptied: the file type's oldest is 1 now */
	assert_int_equal(lrugen->min_seq[LRU_GEN_FILE], 1);
	assert_int_equal(lrugen->min_seq[LRU_GEN_ANON], 0);
	assert_int_equal(atomic_long_read(&lrugen->evicted[0][LRU_GEN_FILE][0]), 4);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	assert_int_equal(evict_folios(64, lruvec, &sc, 0), 4);
	for (i = 0; i < 8; i++)
		assert_false(cached(file, i));
	/* two generations left: no more eviction before aging */
	assert_int_equal(lrugen->min_seq[LRU_GEN_FILE], 2);
	assert_int_equal(evict_folios(64, lruvec, &sc, 0), 0);

	/* refs 1 when evicted: tier 0, token low bits 0 */
	assert_int_equal(file_read_page(file, 0, memcg, NULL), 0);
	assert_int_equal(atomic_long_read(&lrugen->refaulted[0][LRU_GEN_FILE][0]), 1);
	mem_cgroup_flush_all();
	assert_int_equal(lruvec_page_state_local(lruvec, WORKINGSET_REFAULT_FILE), 1);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	file_free(file);
}

/*
 * Anon in the oldest generation, file one younger: swappiness 0 evicts
 * the file folios and no anon; 201 (anon only) then the anon ones.
 */
static void test_swappiness(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct address_space *file = file_setup(4);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 4 * PAGE_SIZE, 0);
	struct scan_control sc = reclaim_sc();
	unsigned long i, out0;

	assert_int_equal(swapon(64, SWAP_STORE_COPY), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(mm_access(vma, vma->vm_start + i * PAGE_SIZE, true), 0);
		assert_int_equal(file_read_page(file, i, memcg, NULL), 0);
	}
	lru_add_drain();
	/* cold anon: its accessed bits cleared, so the rmap walk finds it old */
	for (i = 0; i < 4; i++) {
		pte_t *ptep = vma_pte(vma, vma->vm_start + i * PAGE_SIZE);

		ptep_test_and_clear_young(ptep);
		to_oldest(lruvec, pte_page(ptep_get(ptep)));
	}
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_ANON), 4);
	assert_int_equal(gen_pages(lruvec, 1, LRU_GEN_FILE), 4);

	out0 = global_node_page_state(NR_SWAPCACHE) + swap_slots_used();
	while (evict_folios(64, lruvec, &sc, 0))
		;
	assert_int_equal(sc.nr_reclaimed, 4);
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_ANON), 4);
	assert_int_equal(global_node_page_state(NR_SWAPCACHE) + swap_slots_used(), out0);
	for (i = 0; i < 4; i++)
		assert_false(cached(file, i));

	while (evict_folios(64, lruvec, &sc, SWAPPINESS_ANON_ONLY))
		;
	assert_int_equal(sc.nr_reclaimed, 8);
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_ANON), 0);
	assert_int_equal(swap_slots_used(), 4);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	mmput(mm);
	file_free(file);
}

/*
 * Root reclaim at priority 0, file only: 128 referenced file pages in
 * max_seq - 2.  The first batch evicts 64 without aging; then three
 * generations are left and aging is due: max_seq advances, the batch
 * after it still evicts the other 64, and only then does the loop stop
 * for the next memcg (it would have had 128 more to scan).
 */
static void test_shrink_root_ages_then_evicts(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct address_space *file = file_setup(128);
	struct scan_control sc = reclaim_sc();
	unsigned long i;

	/* drained one by one: none fills the batch before its access marks it */
	for (i = 0; i < 128; i++) {
		assert_int_equal(file_read_page(file, i, memcg, NULL), 0);
		lru_add_drain();
	}
	assert_int_equal(gen_pages(lruvec, 1, LRU_GEN_FILE), 128);
	sc.target_mem_cgroup = NULL;
	sc.priority = 0;
	sc.may_swap = 0;

	assert_true(try_to_shrink_lruvec(lruvec, &sc));
	assert_int_equal(sc.nr_reclaimed, 128);
	assert_int_equal(lrugen->max_seq, 4);
	/* generations 1 and 2 empty: the file type's oldest is 3 */
	assert_int_equal(lrugen->min_seq[LRU_GEN_FILE], 3);
	for (i = 0; i < 128; i++)
		assert_false(cached(file, i));
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	file_free(file);
}

/*
 * A clean, unmapped file folio that shrink_folio_list() cannot free (an
 * extra reference) is tried once more as one that may have missed its
 * rotation; the retry took nothing new, so the folio counts once in
 * the reclaim's taken pages, and it goes back to the LRU with the
 * PG_reclaim it came with.
 */
static void test_evict_retry_counted_once(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct address_space *file = file_setup(1);
	struct scan_control sc = reclaim_sc();
	struct folio *folio;

	assert_int_equal(file_read_page(file, 0, memcg, NULL), 0);
	lru_add_drain();
	folio = filemap_get_folio(file, 0);
	to_oldest(lruvec, folio);
	/* isolation leaves PG_reclaim to shrink_folio_list() */
	folio_set_reclaim(folio);

	assert_int_equal(evict_folios(64, lruvec, &sc, 0), 1);
	assert_int_equal(sc.nr_reclaimed, 0);
	assert_int_equal(sc.nr.taken, 1);
	assert_int_equal(sc.nr.dirty, 0);
	assert_true(folio_test_lru(folio));
	assert_true(folio_test_reclaim(folio));
	assert_true(cached(file, 0));
	folio_put(folio);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	file_free(file);
}

/*
 * An oldest generation whose folios are all promoted lazily (refs
 * saturated and workingset: five fd accesses each) isolates nothing,
 * but it was scanned: evict_folios() says so, and the generation it
 * emptied is retired, so that reclaim goes on with the next one.
 */
static void test_evict_sorted_only(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct address_space *file = file_setup(4);
	struct scan_control sc = reclaim_sc();
	unsigned long i;
	int n;

	for (i = 0; i < 4; i++)
		assert_int_equal(file_read_page(file, i, memcg, NULL), 0);
	lru_add_drain();
	for (i = 0; i < 4; i++) {
		struct folio *folio = filemap_get_folio(file, i);

		for (n = 0; n < 4; n++)
			assert_int_equal(file_read_page(file, i, memcg, NULL), 0);
		assert_int_equal(folio_lru_refs(folio), 4);
		assert_true(folio_test_workingset(folio));
		to_oldest(lruvec, folio);
		folio_put(folio);
	}
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_FILE), 4);

	assert_int_equal(evict_folios(64, lruvec, &sc, 0), 4);
	assert_int_equal(sc.nr_reclaimed, 0);
	assert_int_equal(lrugen->min_seq[LRU_GEN_FILE], 1);
	assert_int_equal(gen_pages(lruvec, 1, LRU_GEN_FILE), 4);
	for (i = 0; i < 4; i++) {
		struct folio *folio = filemap_get_folio(file, i);

		/* the protection was paid for: refs gone, workingset kept */
		assert_int_equal(folio_lru_gen(folio), 1);
		assert_int_equal(folio_lru_refs(folio), 0);
		assert_true(folio_test_workingset(folio));
		folio_put(folio);
	}
	/* not counted as protected: the retired generation fed nothing in */
	assert_int_equal(lrugen->avg_total[LRU_GEN_FILE][3], 0);
	/* sorted, not isolated: pgrefill, in the node's counter too (v7.2) */
	assert_int_equal(reclaim_stat_sum(PGREFILL), 4);
	assert_int_equal(reclaim_stat_sum(PGSCAN_DIRECT), 0);
	mem_cgroup_flush_all();
	assert_int_equal(memcg_page_state(memcg, PGREFILL), 4);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	file_free(file);
}

/*
 * Swappiness 1: the controller always picks file, which has nothing in
 * its oldest generation (kept at max_seq - 2 by the anon type's lag),
 * while cold anon waits in generation 0.  Only reclaim at priority 0
 * falls back to anon (isolate_folios() after try_to_inc_min_seq());
 * above it a pass that scanned nothing stays with the controller's type
 * and evicts nothing.
 */
static void test_evict_type_fallback_priority(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 4 * PAGE_SIZE, 0);
	struct scan_control sc = reclaim_sc();
	unsigned long i;

	assert_int_equal(swapon(64, SWAP_STORE_COPY), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(mm_access(vma, vma->vm_start + i * PAGE_SIZE, true), 0);
	lru_add_drain();
	for (i = 0; i < 4; i++) {
		pte_t *ptep = vma_pte(vma, vma->vm_start + i * PAGE_SIZE);

		ptep_test_and_clear_young(ptep);
		to_oldest(lruvec, pte_page(ptep_get(ptep)));
	}
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_ANON), 4);
	assert_int_equal(get_type_to_scan(lruvec, 1), LRU_GEN_FILE);

	for (sc.priority = DEF_PRIORITY; sc.priority > 0; sc.priority--)
		assert_int_equal(evict_folios(64, lruvec, &sc, 1), 0);
	assert_int_equal(sc.nr_reclaimed, 0);
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_ANON), 4);
	assert_int_equal(lruvec->lrugen.min_seq[LRU_GEN_FILE], 1);
	assert_int_equal(swap_slots_used(), 0);

	assert_int_equal(evict_folios(64, lruvec, &sc, 1), 4);
	assert_int_equal(sc.nr_reclaimed, 4);
	assert_int_equal(gen_pages(lruvec, 0, LRU_GEN_ANON), 0);
	assert_int_equal(swap_slots_used(), 4);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	mmput(mm);
}

/* ---- the PID controller ---- */

static void set_ctrl(struct lruvec *lruvec, int type, int tier, unsigned long refaulted,
		     unsigned long total)
{
	lruvec->lrugen.avg_refaulted[type][tier] = refaulted;
	lruvec->lrugen.avg_total[type][tier] = total;
}

static void test_pid_controller(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct ctrl_pos pos;

	spin_lock(&lruvec->lru_lock);
	/* nothing refaulted: the file type, and no tier protected */
	assert_int_equal(get_type_to_scan(lruvec, 60), LRU_GEN_FILE);
	assert_int_equal(get_tier_idx(lruvec, LRU_GEN_FILE), 3);
	/* swappiness 0 or 1: file; 200 and up: anon */
	assert_int_equal(get_type_to_scan(lruvec, 1), LRU_GEN_FILE);
	assert_int_equal(get_type_to_scan(lruvec, 200), LRU_GEN_ANON);
	assert_int_equal(get_type_to_scan(lruvec, SWAPPINESS_ANON_ONLY), LRU_GEN_ANON);

	/* file refaults 1000 of 2000, anon 10 of 2000: anon (1000*2064*60 > 11*2000*140) */
	set_ctrl(lruvec, LRU_GEN_FILE, 0, 1000, 2000);
	set_ctrl(lruvec, LRU_GEN_ANON, 0, 10, 2000);
	assert_int_equal(get_type_to_scan(lruvec, 60), LRU_GEN_ANON);
	/* the other way round: file (100*2064*60 <= 1001*2000*140) */
	set_ctrl(lruvec, LRU_GEN_FILE, 0, 100, 2000);
	set_ctrl(lruvec, LRU_GEN_ANON, 0, 1000, 2000);
	assert_int_equal(get_type_to_scan(lruvec, 60), LRU_GEN_FILE);
	/*
	 * the current generation's counters add to the averages: file 5100
	 * of 4000 now, anon (5100*2064*60 > 1001*4000*140)
	 */
	atomic_long_set(&lrugen->refaulted[0][LRU_GEN_FILE][2], 5000);
	atomic_long_set(&lrugen->evicted[0][LRU_GEN_FILE][2], 500);
	lrugen->protected[0][LRU_GEN_FILE][2] = 1500;
	read_ctrl_pos(lruvec, LRU_GEN_FILE, MAX_NR_TIERS, 140, &pos);
	assert_int_equal(pos.refaulted, 5100);
	assert_int_equal(pos.total, 4000);
	assert_int_equal(pos.gain, 140);
	assert_int_equal(get_type_to_scan(lruvec, 60), LRU_GEN_ANON);

	/* tiers of file: tier 0 100/1000 (gain 2) against each higher one (gain 3) */
	set_ctrl(lruvec, LRU_GEN_FILE, 0, 100, 1000);
	atomic_long_set(&lrugen->refaulted[0][LRU_GEN_FILE][2], 0);
	atomic_long_set(&lrugen->evicted[0][LRU_GEN_FILE][2], 0);
	lrugen->protected[0][LRU_GEN_FILE][2] = 0;
	/* tier 1 refaults 500 of 1000: 500*1064*2 > 101*1000*3, protect from tier 1 */
	set_ctrl(lruvec, LRU_GEN_FILE, 1, 500, 1000);
	assert_int_equal(get_tier_idx(lruvec, LRU_GEN_FILE), 0);
	/* few refaults in tier 1, a low rate in 2, a high one in 3: protect tier 3 */
	set_ctrl(lruvec, LRU_GEN_FILE, 1, 30, 1000);
	set_ctrl(lruvec, LRU_GEN_FILE, 2, 100, 10000);
	set_ctrl(lruvec, LRU_GEN_FILE, 3, 900, 1000);
	assert_int_equal(get_tier_idx(lruvec, LRU_GEN_FILE), 2);

	/* min_seq moving on halves the averages with the generation's counts in */
	atomic_long_set(&lrugen->refaulted[0][LRU_GEN_FILE][3], 100);
	atomic_long_set(&lrugen->evicted[0][LRU_GEN_FILE][3], 40);
	lrugen->protected[0][LRU_GEN_FILE][3] = 60;
	reset_ctrl_pos(lruvec, LRU_GEN_FILE, true);
	assert_int_equal(lrugen->avg_refaulted[LRU_GEN_FILE][3], 500);
	assert_int_equal(lrugen->avg_total[LRU_GEN_FILE][3], 550);
	assert_int_equal(atomic_long_read(&lrugen->refaulted[0][LRU_GEN_FILE][3]), 0);
	assert_int_equal(atomic_long_read(&lrugen->evicted[0][LRU_GEN_FILE][3]), 0);
	assert_int_equal(lrugen->protected[0][LRU_GEN_FILE][3], 0);
	/* max_seq moving on leaves the single slot alone */
	atomic_long_set(&lrugen->refaulted[0][LRU_GEN_FILE][3], 7);
	reset_ctrl_pos(lruvec, LRU_GEN_FILE, false);
	assert_int_equal(atomic_long_read(&lrugen->refaulted[0][LRU_GEN_FILE][3]), 7);
	assert_int_equal(lrugen->avg_refaulted[LRU_GEN_FILE][3], 500);
	memset(lrugen->avg_refaulted, 0, sizeof(lrugen->avg_refaulted));
	memset(lrugen->avg_total, 0, sizeof(lrugen->avg_total));
	atomic_long_set(&lrugen->refaulted[0][LRU_GEN_FILE][3], 0);
	spin_unlock(&lruvec->lru_lock);
}

/* ---- kswapd ---- */

/*
 * kswapd under MGLRU: woken below the low watermark, it reclaims through
 * lru_gen_shrink_node() (the memcg LRU, aging with its node's walk
 * context) until free pages are above the high watermark, counted under
 * the kswapd names.
 */
static void test_kswapd(void **state)
{
	struct zone *zone = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	struct address_space *file = shmem_file_setup(NODE_PAGES, 0);
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_shmem(mm, file, 0, NODE_PAGES * PAGE_SIZE);
	unsigned long pages = 0, high = zone->_watermark[WMARK_HIGH];
	int wakeups, swappiness = vm_swappiness;

	/*
	 * Only shmem here: at swappiness 60 the controller would pick the
	 * empty file type, and isolate_folios() falls back to anon only at
	 * priority 0, which kswapd never reaches.  200 picks anon.
	 */
	vm_swappiness = MAX_SWAPPINESS;
	assert_int_equal(swapon(NODE_PAGES, SWAP_STORE_ZSTD), 0);
	do {
		assert_int_equal(mm_access(vma, vma->vm_start + pages * PAGE_SIZE, true), 0);
		pages++;
		drain_all_pages();
		vmstat_refresh();
	} while (zone_page_state(zone, NR_FREE_PAGES) >= zone->_watermark[WMARK_LOW] - 10);
	assert_int_equal(kswapd_run(0, 1), 0);
	/* young pages are kept once; a few passes reach the watermark */
	for (wakeups = 0; wakeups < 8; wakeups++) {
		wakeup_kswapd(NODE_DATA(0));
		kswapd_wait_idle(0);
		drain_all_pages();
		vmstat_refresh();
		if (zone_page_state(zone, NR_FREE_PAGES) >= high)
			break;
	}
	assert_true(zone_page_state(zone, NR_FREE_PAGES) >= high);
	assert_true(reclaim_stat_sum(PGSTEAL_KSWAPD) > 0);
	assert_int_equal(reclaim_stat_sum(PGSTEAL_DIRECT), 0);
	assert_int_equal(swap_slots_used(), reclaim_stat_sum(PGSTEAL_KSWAPD));
	/* the shmem pages went through MGLRU's generations, not the lists */
	assert_true(test_lruvec()->lrugen.max_seq > 3);
	kswapd_stop(0);
	vm_swappiness = swappiness;
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	munmap_vma(vma);
	mmput(mm);
	shmem_file_free(file);
	assert_int_equal(swap_slots_used(), 0);
}

/* ---- the memcg LRU ---- */

static int memcg_lru_gen_of(struct mem_cgroup *m)
{
	return mem_cgroup_lruvec(m, NODE_DATA(0))->lrugen.gen;
}

/*
 * New memcgs join the old generation; YOUNG moves one to the next
 * generation, OLD back; when the old generation empties, the young one
 * becomes old (seq + 1); offline sends a memcg to the old generation,
 * release takes it off.
 */
static void test_memcg_lru(void **state)
{
	struct lru_gen_memcg *memcg_lru = &NODE_DATA(0)->memcg_lru;
	struct mem_cgroup *a = mem_cgroup_create(root_mem_cgroup, "a");
	struct mem_cgroup *b = mem_cgroup_create(root_mem_cgroup, "b");
	struct mem_cgroup *all[4] = { root_mem_cgroup, memcg, a, b };
	int i;

	assert_int_equal(memcg_lru->seq, 0);
	/* root, t, a and b: all old */
	assert_int_equal(memcg_lru->nr_memcgs[0], 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(memcg_lru_gen_of(all[i]), 0);
	lru_gen_rotate_memcg(mem_cgroup_lruvec(a, NODE_DATA(0)), MEMCG_LRU_YOUNG);
	assert_int_equal(memcg_lru_gen_of(a), 1);
	assert_int_equal(memcg_lru->nr_memcgs[0], 3);
	assert_int_equal(memcg_lru->nr_memcgs[1], 1);
	lru_gen_rotate_memcg(mem_cgroup_lruvec(a, NODE_DATA(0)), MEMCG_LRU_OLD);
	assert_int_equal(memcg_lru_gen_of(a), 0);
	/* TAIL and HEAD keep the generation, record the segment */
	lru_gen_rotate_memcg(mem_cgroup_lruvec(a, NODE_DATA(0)), MEMCG_LRU_TAIL);
	assert_int_equal(memcg_lru_gen_of(a), 0);
	assert_int_equal(mem_cgroup_lruvec(a, NODE_DATA(0))->lrugen.seg, MEMCG_LRU_TAIL);
	assert_int_equal(lrulab_check_invariants(false, stderr), 0);

	/* every one young: the old generation empties and the young one is old */
	for (i = 0; i < 4; i++)
		lru_gen_rotate_memcg(mem_cgroup_lruvec(all[i], NODE_DATA(0)), MEMCG_LRU_YOUNG);
	assert_int_equal(memcg_lru->seq, 1);
	assert_int_equal(memcg_lru->nr_memcgs[0], 0);
	assert_int_equal(memcg_lru->nr_memcgs[1], 4);
	/* young is now gen 2: offline goes to the old one, gen 1 */
	lru_gen_rotate_memcg(mem_cgroup_lruvec(a, NODE_DATA(0)), MEMCG_LRU_YOUNG);
	assert_int_equal(memcg_lru_gen_of(a), 2);
	/* a reference (as a charged folio holds one) keeps it a zombie */
	css_get(a);
	mem_cgroup_offline(a);
	assert_int_equal(memcg_lru_gen_of(a), 1);
	assert_int_equal(memcg_lru->nr_memcgs[1], 4);
	assert_int_equal(lrulab_check_invariants(false, stderr), 0);
	/* the last reference gone: released, off the memcg LRU, freed */
	css_put(a);
	mem_cgroup_wait_frees();
	assert_int_equal(memcg_lru->nr_memcgs[1], 3);
	assert_int_equal(lrulab_check_invariants(false, stderr), 0);
	mem_cgroup_offline(b);
	mem_cgroup_wait_frees();
	assert_int_equal(memcg_lru->nr_memcgs[1], 2);
}

/* ---- min_ttl_ms ---- */

/*
 * kswapd's check: with every generation younger than min_ttl_ms the
 * kernel would call the OOM killer (counted here); once the oldest
 * generation has lived longer, reclaim may go on.
 */
static void test_min_ttl(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct scan_control sc = { .priority = 0, .reclaim_idx = MAX_NR_ZONES - 1,
				   .may_writepage = 1, .may_unmap = 1, .may_swap = 1 };
	struct address_space *file;
	struct mem_cgroup *m;
	unsigned long ooms, i;

	cfg.nr_cpus = 1;
	cfg.node_pages = NODE_PAGES;
	cfg.lru_gen = LRU_GEN_CAPS_ALL;
	cfg.lru_gen_min_ttl_ms = 1000;
	lru_gen_clock_freeze(true, 10000);
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(cpu_enter(0, false), 0);
	/* file pages: without swap, anon would not count as reclaimable */
	m = mem_cgroup_create(root_mem_cgroup, "ttl");
	file = file_setup(8);
	for (i = 0; i < 8; i++)
		assert_int_equal(file_read_page(file, i, m, NULL), 0);
	lru_add_drain();
	/* born at 10000: not yet 1000 ms old at 10999 */
	ooms = lru_gen_min_ttl_ooms();
	lru_gen_clock_freeze(true, 10999);
	lru_gen_age_node(NODE_DATA(0), &sc);
	assert_int_equal(lru_gen_min_ttl_ooms(), ooms + 1);
	lru_gen_clock_freeze(true, 11001);
	lru_gen_age_node(NODE_DATA(0), &sc);
	assert_int_equal(lru_gen_min_ttl_ooms(), ooms + 1);
	/* 0 turns the check off */
	assert_int_equal(lru_gen_set_config(LRU_GEN_CAPS_ALL, 0), 0);
	lru_gen_clock_freeze(true, 10000);
	lru_gen_age_node(NODE_DATA(0), &sc);
	assert_int_equal(lru_gen_min_ttl_ooms(), ooms + 1);
	assert_int_equal(lru_gen_set_config(0x8, 0), -EINVAL);
	lru_gen_clock_freeze(false, 0);
	file_free(file);
	mem_cgroup_offline(m);
	cpu_exit();
	lrulab_exit();
}

/* ---- the invariant checker ---- */

static void test_checker_catches(void **state)
{
	struct lruvec *lruvec = test_lruvec();
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, 2 * PAGE_SIZE, 0);
	FILE *out = tmpfile();
	char line[256];
	struct folio *folio;

	assert_int_equal(mm_access(vma, vma->vm_start, true), 0);
	assert_int_equal(mm_access(vma, vma->vm_start + PAGE_SIZE, true), 0);
	lru_add_drain();
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);

	/* a size that does not match its list */
	spin_lock(&lruvec->lru_lock);
	lruvec->lrugen.nr_pages[2][LRU_GEN_ANON][ZONE_NORMAL]++;
	spin_unlock(&lruvec->lru_lock);
	assert_int_equal(lrulab_check_invariants(false, out), 1);
	rewind(out);
	assert_non_null(fgets(line, sizeof(line), out));
	assert_string_equal(line, "invariant: memcg t node 0 gen 2 type 0: 2 pages listed, nr_pages 3\n");
	spin_lock(&lruvec->lru_lock);
	lruvec->lrugen.nr_pages[2][LRU_GEN_ANON][ZONE_NORMAL]--;
	spin_unlock(&lruvec->lru_lock);

	/* PG_active on a list */
	folio = pte_page(ptep_get(vma_pte(vma, vma->vm_start)));
	folio_set_active(folio);
	assert_int_equal(lrulab_check_invariants(false, NULL), 1);
	folio_clear_active(folio);

	/* a window of five generations, for both types */
	spin_lock(&lruvec->lru_lock);
	lruvec->lrugen.max_seq = 4;
	assert_int_equal(lrulab_check_invariants(false, NULL), 2);
	/* min_seq past max_seq */
	lruvec->lrugen.max_seq = 3;
	lruvec->lrugen.min_seq[LRU_GEN_FILE] = 4;
	assert_int_equal(lrulab_check_invariants(false, NULL), 1);
	lruvec->lrugen.min_seq[LRU_GEN_FILE] = 0;
	spin_unlock(&lruvec->lru_lock);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	fclose(out);
	mmput(mm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gen_field_round_trip),
		cmocka_unit_test(test_refs_round_trip),
		cmocka_unit_test_setup_teardown(test_inc_refs_ladder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_refs_ladder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folio_seq_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_del_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_read_placement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_test_recent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evict_oldest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swappiness, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shrink_root_ages_then_evicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evict_retry_counted_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evict_sorted_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evict_type_fallback_priority, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pid_controller, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kswapd, setup, teardown),
		cmocka_unit_test(test_min_ttl),
		cmocka_unit_test_setup_teardown(test_memcg_lru, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checker_catches, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
