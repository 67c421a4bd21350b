/* SPDX-License-Identifier: MIT */
/*
 * The multi-gen LRU (CONFIG_LRU_GEN), v7.2 semantics: the gen and refs
 * fields of folio->flags, generations and tiers, and the functions the
 * core (placement, eviction, refaults, memcg LRU: mm/mglru*.c,
 * mm/workingset.c) and the aging half (page-table walk, mm lists,
 * Bloom filters, debugfs: mm/mglru_aging.c, mm/mglru_debugfs.c) call in
 * each other.  The types live in <lrulab/mmzone.h>, as in the kernel.
 *
 * Kernel anchors: include/linux/mm_inline.h (helpers, add/del),
 * mm/vmscan.c (everything else), mm/workingset.c (shadows), mm/swap.c
 * (lru_gen_inc_refs).
 */
#ifndef LRULAB_MGLRU_H
#define LRULAB_MGLRU_H

#include <lrulab/types.h>
#include <lrulab/mm_types.h>
#include <lrulab/mmzone.h>

struct mem_cgroup;
struct scan_control;
struct vm_area_struct;
struct mm_struct;
typedef unsigned long pte_t;	/* as <lrulab/mm.h> */

/* ---- configuration: /sys/kernel/mm/lru_gen/{enabled,min_ttl_ms} ---- */

/* 0x0001 main switch, 0x0002 leaf PTE young bits, 0x0004 non-leaf PMD young */
#define LRU_GEN_CAPS_ALL ((1U << NR_LRU_GEN_CAPS) - 1)

/*
 * The effective caps, the kernel's static keys.  Set by lrulab_init()
 * from lrulab_config.lru_gen (the LRU is chosen before any folio is on
 * it); the kernel's run-time switch of the core bit, which moves every
 * folio between the two LRUs, is not modelled.
 */
extern unsigned int lru_gen_caps;
/* min_ttl in jiffies (ms here): 0 = off */
extern unsigned long lru_gen_min_ttl;

static inline bool lru_gen_enabled(void)
{
	return READ_ONCE(lru_gen_caps) & BIT(LRU_GEN_CORE);
}
/* PTE young bits are walked (page tables) */
static inline bool should_walk_mmu(void)
{
	return READ_ONCE(lru_gen_caps) & BIT(LRU_GEN_MM_WALK);
}
/* non-leaf PMD young bits are cleared and tested */
static inline bool should_clear_pmd_young(void)
{
	return READ_ONCE(lru_gen_caps) & BIT(LRU_GEN_NONLEAF_YOUNG);
}

/*
 * Sets the caps and min_ttl_ms, for lrulab_init(): the core bit must not
 * change while a folio is on an LRU.  0 or -EINVAL (unknown bits).
 */
int lru_gen_set_config(unsigned int caps, unsigned int min_ttl_ms);

/* jiffies, in ms; tests may stop the clock to print exact ages */
unsigned long lru_gen_jiffies(void);
void lru_gen_clock_freeze(bool frozen, unsigned long now);

/* ---- folio->flags fields ---- */

/* the refs field and PG_referenced: what the fd accesses left (v7.2) */
#define LRU_REFS_FLAGS (LRU_REFS_MASK | BIT(PG_referenced))

static inline int lru_gen_from_seq(unsigned long seq)
{
	return (int)(seq % MAX_NR_GENS);
}
static inline int lru_hist_from_seq(unsigned long seq)
{
	return (int)(seq % NR_HIST_GENS);
}

/* v7.2: tier 3 for workingset, else order_base_2(refs) */
static inline int lru_tier_from_refs(int refs, bool workingset)
{
	if (workingset)
		return (int)MAX_NR_TIERS - 1;
	return refs > 1 ? 32 - __builtin_clz((unsigned int)refs - 1) : 0;
}

/* 0 unreferenced; 1 referenced once; 2..4 with 1..3 more fd accesses */
static inline int folio_lru_refs(const struct folio *folio)
{
	unsigned long flags = READ_ONCE(folio->flags);

	if (!(flags & BIT(PG_referenced)))
		return 0;
	return (int)((flags & LRU_REFS_MASK) >> LRU_REFS_PGOFF) + 1;
}

/* the generation of a folio on a lrugen list, -1 off them */
static inline int folio_lru_gen(const struct folio *folio)
{
	unsigned long flags = READ_ONCE(folio->flags);

	return (int)((flags & LRU_GEN_MASK) >> LRU_GEN_PGOFF) - 1;
}

static inline bool lru_gen_is_active(const struct lruvec *lruvec, int gen)
{
	unsigned long max_seq = READ_ONCE(lruvec->lrugen.max_seq);

	return gen == lru_gen_from_seq(max_seq) || gen == lru_gen_from_seq(max_seq - 1);
}

/* the kernel's set_mask_bits(): a CAS loop that always writes; the old word */
static inline unsigned long set_mask_bits(unsigned long *ptr, unsigned long mask,
					  unsigned long bits)
{
	unsigned long old = READ_ONCE(*ptr), new_;

	do {
		new_ = (old & ~mask) | bits;
	} while (!__atomic_compare_exchange_n(ptr, &old, new_, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return old;
}

/* ---- generations ---- */

/* generations of @type: max_seq - min_seq + 1, in [MIN_NR_GENS, MAX_NR_GENS] */
static inline int get_nr_gens(const struct lruvec *lruvec, int type)
{
	return (int)(lruvec->lrugen.max_seq - lruvec->lrugen.min_seq[type] + 1);
}

static inline bool seq_is_valid(const struct lruvec *lruvec)
{
	const struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int type;

	for (type = 0; type < ANON_AND_FILE; type++) {
		unsigned long n = lrugen->max_seq - lrugen->min_seq[type] + 1;

		if (n < MIN_NR_GENS || n > MAX_NR_GENS)
			return false;
	}
	return true;
}

/*
 * The oldest sequence among the types @swappiness lets reclaim evict:
 * 0 file only, SWAPPINESS_ANON_ONLY (201) anon only, else both.
 */
static inline unsigned long evictable_min_seq(const unsigned long *min_seq,
					      int swappiness)
{
	if (!swappiness)
		return min_seq[LRU_GEN_FILE];
	if (swappiness > 200)
		return min_seq[LRU_GEN_ANON];
	return min_seq[LRU_GEN_ANON] < min_seq[LRU_GEN_FILE] ?
	       min_seq[LRU_GEN_ANON] : min_seq[LRU_GEN_FILE];
}
/* the types @swappiness lets reclaim evict: for (type = first; type <= last; ...) */
#define for_each_evictable_type(type, swappiness)			\
	for ((type) = (swappiness) ? LRU_GEN_ANON : LRU_GEN_FILE;	\
	     (type) <= ((swappiness) <= 200 ? LRU_GEN_FILE : LRU_GEN_ANON); \
	     (type)++)

#define for_each_gen_type_zone(gen, type, zone)				\
	for ((gen) = 0; (gen) < (int)MAX_NR_GENS; (gen)++)		\
		for ((type) = 0; (type) < ANON_AND_FILE; (type)++)	\
			for ((zone) = 0; (zone) < MAX_NR_ZONES; (zone)++)

/* the lruvec of @memcg (NULL: root) on node @nid */
struct lruvec *get_lruvec(struct mem_cgroup *memcg, int nid);

/* ---- core: mm/mglru.c (placement, lists, refs on access) ---- */

/*
 * Inside a page fault of a VMA with recency (no VM_SEQ_READ,
 * VM_RAND_READ or FMODE_NOREUSE, none of which the model has):
 * folio_add_lru() then marks the folio as accessed (PG_active if it is
 * workingset).
 */
extern __thread bool lru_gen_in_lru_fault;
static inline bool lru_gen_in_fault(void)
{
	return lru_gen_in_lru_fault;
}
static inline void lru_gen_enter_fault(struct vm_area_struct *vma)
{
	lru_gen_in_lru_fault = true;
}
static inline void lru_gen_exit_fault(void)
{
	lru_gen_in_lru_fault = false;
}

void lru_gen_init_lruvec(struct lruvec *lruvec);
void lru_gen_init_pgdat(struct pglist_data *pgdat);
/*
 * The sequence a folio being added goes to (lru_gen_folio_seq, v7.2
 * mm_inline.h:221): PG_active, reclaiming, anon outside the swap cache
 * or a reclaimed dirty/writeback folio, workingset or referenced, else
 * the oldest.
 */
unsigned long lru_gen_folio_seq(const struct lruvec *lruvec, const struct folio *folio,
				bool reclaiming);
/*
 * Under lru_lock.  False when MGLRU is off or the folio is unevictable
 * (the caller uses the classic lists then).  @reclaiming: add at the
 * tail (add) or leave PG_active clear (del), as reclaim does.
 */
bool lru_gen_add_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming);
bool lru_gen_del_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming);
/*
 * A folio of @delta pages leaves @old_gen (-1: none) for @new_gen (-1:
 * none): nr_pages[], and the active/inactive node and memcg counters the
 * two youngest generations stand for.  Under lru_lock.
 */
void lru_gen_update_size(struct lruvec *lruvec, struct folio *folio,
			 int old_gen, int new_gen);
/* folio_mark_accessed() under MGLRU (mm/swap.c) */
void lru_gen_inc_refs(struct folio *folio);
/*
 * Clears refs, PG_referenced and PG_workingset; true when the folio is
 * already in the oldest generation (deactivation then skips the move).
 */
bool lru_gen_clear_refs(struct folio *folio);
/*
 * The rmap walk found @folio young (folio_check_references()): false on
 * the first sighting (keep), true on a later one (activate).
 */
bool lru_gen_set_refs(struct folio *folio);

/* ---- core: mm/mglru_evict.c (eviction and the PID controller) ---- */

/* a point of the PID controller: refaulted, total, gain */
struct ctrl_pos {
	unsigned long refaulted;
	unsigned long total;
	int gain;
};
/* @tier < MAX_NR_TIERS: that tier; MAX_NR_TIERS: all of them */
void read_ctrl_pos(struct lruvec *lruvec, int type, int tier, int gain,
		   struct ctrl_pos *pos);
/* on a min_seq[@type] advance (@carryover) or a max_seq one; lru_lock held */
void reset_ctrl_pos(struct lruvec *lruvec, int type, bool carryover);
bool positive_ctrl_err(const struct ctrl_pos *sp, const struct ctrl_pos *pv);
int get_tier_idx(struct lruvec *lruvec, int type);
int get_type_to_scan(struct lruvec *lruvec, int swappiness);
/* 0..201; 0 when the context cannot swap */
int get_swappiness(struct lruvec *lruvec, struct scan_control *sc);
/*
 * Evicts up to @nr_to_scan folios from the oldest generation of the
 * type the controller picks; the number reclaimed.  Takes lru_lock.
 */
int evict_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
		 struct scan_control *sc, int swappiness);
bool should_run_aging(struct lruvec *lruvec, unsigned long max_seq,
		      struct scan_control *sc, int swappiness);
long get_nr_to_scan(struct lruvec *lruvec, struct scan_control *sc, int swappiness);
bool try_to_shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc);
/* the lru_gen_enabled() branches of shrink_lruvec() and shrink_node() */
void lru_gen_shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc);
void lru_gen_shrink_node(struct pglist_data *pgdat, struct scan_control *sc);
/* kswapd, before it reclaims: min_ttl_ms */
void lru_gen_age_node(struct pglist_data *pgdat, struct scan_control *sc);
/*
 * The times lru_gen_age_node() found no memcg whose oldest generation
 * had outlived min_ttl_ms: the kernel then calls the OOM killer, which
 * the model does not have.
 */
unsigned long lru_gen_min_ttl_ooms(void);

/* ---- core: mm/workingset.c (shadows shared with the classic LRU) ---- */

/*
 * The shadow of an evicted folio: the token is min_seq of its type
 * (shifted by LRU_REFS_WIDTH) and its refs - 1; the eviction counts in
 * evicted[] of its tier.
 */
void *lru_gen_eviction(struct folio *folio);
/*
 * *@lruvec, *@token and *@workingset from @shadow (under rcu_read_lock());
 * recent when the token's generation is within MAX_NR_GENS of max_seq.
 */
bool lru_gen_test_recent(void *shadow, struct lruvec **lruvec, unsigned long *token,
			 bool *workingset, bool file);
/* counts the refault, and restores PG_workingset or the refs */
void lru_gen_refault(struct folio *folio, void *shadow);

/* ---- core: mm/mglru_memcg.c (the memcg LRU) ---- */

enum {
	MEMCG_LRU_NOP,
	MEMCG_LRU_HEAD,
	MEMCG_LRU_TAIL,
	MEMCG_LRU_OLD,
	MEMCG_LRU_YOUNG,
};
void lru_gen_online_memcg(struct mem_cgroup *memcg);
void lru_gen_offline_memcg(struct mem_cgroup *memcg);
/*
 * Reparenting on memcg offline (v7.2): @memcg's lruvec on node @nid
 * takes every generation first (max_lru_gen_memcg(), without lru_lock;
 * recheck_lru_gen_max_memcg() under it), so that each of the child's
 * generation lists can join the parent's list of the same index, at its
 * tail (lru_gen_reparent_memcg(), both lru_locks held), sizes with it.
 */
void max_lru_gen_memcg(struct mem_cgroup *memcg, int nid);
bool recheck_lru_gen_max_memcg(struct mem_cgroup *memcg, int nid);
void lru_gen_reparent_memcg(struct mem_cgroup *memcg, struct mem_cgroup *parent, int nid);
/* one more generation without a page-table walk */
void try_to_inc_max_seq_nowalk(struct lruvec *lruvec);
void lru_gen_release_memcg(struct mem_cgroup *memcg);
void lru_gen_rotate_memcg(struct lruvec *lruvec, int op);

/* ---- aging: mm/mglru_aging.c (the other half) ---- */

/*
 * Ages @lruvec from @seq (== its max_seq) to seq + 1: walks the mm list
 * when it can, else only bumps mm_state.seq; true when this call (or a
 * concurrent one for @seq) made max_seq advance.
 */
bool try_to_inc_max_seq(struct lruvec *lruvec, unsigned long seq, int swappiness,
			bool force_scan);
/* min_seq[@type]++ once every folio of its oldest gen moved up; lru_lock held */
bool inc_min_seq(struct lruvec *lruvec, int type, int swappiness);
/* skips empty oldest generations; lru_lock held */
void try_to_inc_min_seq(struct lruvec *lruvec, int swappiness);
/* walker: move @folio to @gen without lru_lock; the old gen, or -1 */
int folio_update_gen(struct folio *folio, int gen);
/* to the oldest gen + 1 (or the gen a walker gave it); lru_lock held */
int folio_inc_gen(struct lruvec *lruvec, struct folio *folio);
/*
 * From the rmap walk during eviction (folio_referenced_one), PTL held,
 * @ptep the PTE at @addr in @vma: clears its young bit and scans the
 * PTEs around it; false when the PTE was old.
 */
bool lru_gen_look_around(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep);
/* the walk context of the reclaiming thread (kswapd: its pgdat's) */
struct lru_gen_mm_walk *set_mm_walk(struct pglist_data *pgdat, bool force_alloc);
void clear_mm_walk(void);
/* mm list membership of simulated processes */
void lru_gen_add_mm(struct mm_struct *mm);
void lru_gen_del_mm(struct mm_struct *mm);
void lru_gen_migrate_mm(struct mm_struct *mm);
void lru_gen_use_mm(struct mm_struct *mm);

#endif /* LRULAB_MGLRU_H */
