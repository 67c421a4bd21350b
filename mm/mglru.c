// SPDX-License-Identifier: MIT
/*
 * The multi-gen LRU's core: its configuration, new generations
 * (lru_gen_init_lruvec, v7.2 vmscan.c:5769), and the lists folios are
 * placed on (include/linux/mm_inline.h: lru_gen_folio_seq,
 * lru_gen_add_folio, lru_gen_del_folio, lru_gen_update_size).
 */
#include <errno.h>

#include <lrulab/mglru.h>
#include <lrulab/mglru_walk.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mm_inline.h>
#include <lrulab/rcupdate.h>
#include <lrulab/spinlock.h>
#include <lrulab/swap.h>

unsigned int lru_gen_caps;
unsigned long lru_gen_min_ttl;

static bool clock_frozen;
static unsigned long clock_frozen_at;

unsigned long lru_gen_jiffies(void)
{
	if (READ_ONCE(clock_frozen))
		return READ_ONCE(clock_frozen_at);
	return (unsigned long)(lrulab_now_ns() / 1000000);
}

void lru_gen_clock_freeze(bool frozen, unsigned long now)
{
	WRITE_ONCE(clock_frozen_at, now);
	WRITE_ONCE(clock_frozen, frozen);
}

int lru_gen_set_config(unsigned int caps, unsigned int min_ttl_ms)
{
	if (caps & ~LRU_GEN_CAPS_ALL)
		return -EINVAL;
	WRITE_ONCE(lru_gen_caps, caps);
	/* jiffies are ms here: HZ = 1000 */
	WRITE_ONCE(lru_gen_min_ttl, (unsigned long)min_ttl_ms);
	return 0;
}

/*
 * A new lruvec: the window full (max_seq 3, min_seq 0), every
 * generation born now, the mm walk one step behind max_seq.
 */
void lru_gen_init_lruvec(struct lruvec *lruvec)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long now = lru_gen_jiffies();
	int gen, type, zone;

	lrugen->max_seq = MIN_NR_GENS + 1;
	lrugen->enabled = lru_gen_enabled();
	for (gen = 0; gen < (int)MAX_NR_GENS; gen++)
		lrugen->timestamps[gen] = now;
	for_each_gen_type_zone(gen, type, zone)
		INIT_LIST_HEAD(&lrugen->folios[gen][type][zone]);
	INIT_LIST_HEAD(&lrugen->list);
	lruvec->mm_state.seq = MIN_NR_GENS;
}

void lru_gen_init_pgdat(struct pglist_data *pgdat)
{
	struct lru_gen_memcg *memcg_lru = &pgdat->memcg_lru;
	int gen, bin;

	spin_lock_init(&memcg_lru->lock);
	for (gen = 0; gen < MEMCG_NR_GENS; gen++)
		for (bin = 0; bin < MEMCG_NR_BINS; bin++)
			INIT_LIST_HEAD(&memcg_lru->fifo[gen][bin]);
}

struct lruvec *get_lruvec(struct mem_cgroup *memcg, int nid)
{
	return mem_cgroup_lruvec(memcg, NODE_DATA(nid));
}

/* ---- the fault hint (handle_mm_fault's lru_gen_enter_fault) ---- */

__thread bool lru_gen_in_lru_fault;

/* ---- placement ---- */

/*
 * Where a folio being added goes, counted back from max_seq, never
 * below the oldest generation of its type (v7.2):
 *  - PG_active, which only an isolated folio carries: the two youngest,
 *    max_seq itself when it is workingset too;
 *  - reclaim putting it back at the tail: the oldest;
 *  - anon outside the swap cache (just faulted), or a reclaimed folio
 *    still dirty or under writeback: max_seq - 1;
 *  - workingset or referenced (one fd access): max_seq - 2;
 *  - anything else: the oldest.
 */
unsigned long lru_gen_folio_seq(const struct lruvec *lruvec, const struct folio *folio,
				bool reclaiming)
{
	const struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int type = folio_is_file_lru(folio);
	unsigned long max_seq = READ_ONCE(lrugen->max_seq);
	unsigned long min_seq = READ_ONCE(lrugen->min_seq[type]);
	unsigned long seq;
	unsigned int gen;

	if (folio_test_active(folio))
		gen = MIN_NR_GENS - folio_test_workingset(folio);
	else if (reclaiming)
		gen = MAX_NR_GENS;
	else if ((!folio_is_file_lru(folio) && !folio_test_swapcache(folio)) ||
		 (folio_test_reclaim(folio) &&
		  (folio_test_dirty(folio) || folio_test_writeback(folio))))
		gen = MIN_NR_GENS;
	else if (folio_test_workingset(folio) || folio_test_referenced(folio))
		gen = MAX_NR_GENS - 1;
	else
		gen = MAX_NR_GENS;

	seq = max_seq - gen + 1;
	return seq > min_seq ? seq : min_seq;
}

/*
 * nr_pages[] and the node/memcg LRU counters: the two youngest
 * generations stand for the active lists in /proc/vmstat and
 * memory.stat.  lru_zone_size[] is left alone, as the kernel leaves it.
 */
void lru_gen_update_size(struct lruvec *lruvec, struct folio *folio,
			 int old_gen, int new_gen)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int type = folio_is_file_lru(folio);
	int zone = folio_zonenum(folio);
	long delta = folio_nr_pages(folio);
	enum lru_list lru = type ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON;

	if (old_gen >= 0)
		WRITE_ONCE(lrugen->nr_pages[old_gen][type][zone],
			   lrugen->nr_pages[old_gen][type][zone] - delta);
	if (new_gen >= 0)
		WRITE_ONCE(lrugen->nr_pages[new_gen][type][zone],
			   lrugen->nr_pages[new_gen][type][zone] + delta);
	if (old_gen < 0) {
		if (lru_gen_is_active(lruvec, new_gen))
			lru += LRU_ACTIVE;
		__update_lru_size(lruvec, lru, zone, delta);
		return;
	}
	if (new_gen < 0) {
		if (lru_gen_is_active(lruvec, old_gen))
			lru += LRU_ACTIVE;
		__update_lru_size(lruvec, lru, zone, -delta);
		return;
	}
	/* a promotion; a demotion only happens through isolation */
	if (!lru_gen_is_active(lruvec, old_gen) && lru_gen_is_active(lruvec, new_gen)) {
		__update_lru_size(lruvec, lru, zone, -delta);
		__update_lru_size(lruvec, lru + LRU_ACTIVE, zone, delta);
	}
}

bool lru_gen_add_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int type = folio_is_file_lru(folio);
	int zone = folio_zonenum(folio);
	struct list_head *head;
	int gen;

	if (folio_test_unevictable(folio) || !lrugen->enabled)
		return false;
	gen = lru_gen_from_seq(lru_gen_folio_seq(lruvec, folio, reclaiming));
	/* PG_active was only the placement hint: it is clear on the lists */
	set_mask_bits(&folio->flags, LRU_GEN_MASK | BIT(PG_active),
		      (gen + 1UL) << LRU_GEN_PGOFF);
	lru_gen_update_size(lruvec, folio, -1, gen);
	head = &lrugen->folios[gen][type][zone];
	/* at the tail for folio_rotate_reclaimable(): evicted first */
	if (reclaiming)
		lru_hold_timed(LRU_HOLD_LIST, list_add_tail(&folio->lru, head));
	else
		lru_hold_timed(LRU_HOLD_LIST, list_add(&folio->lru, head));
	return true;
}

bool lru_gen_del_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming)
{
	unsigned long flags;
	int gen = folio_lru_gen(folio);

	if (gen < 0)
		return false;
	/*
	 * A folio leaving an active generation other than for reclaim
	 * carries PG_active off the list (migration copies it); the gen
	 * read from the swapped-out word is the one whose counters go.
	 */
	flags = !reclaiming && lru_gen_is_active(lruvec, gen) ? BIT(PG_active) : 0;
	flags = set_mask_bits(&folio->flags, LRU_GEN_MASK, flags);
	gen = (int)((flags & LRU_GEN_MASK) >> LRU_GEN_PGOFF) - 1;
	lru_gen_update_size(lruvec, folio, gen, -1);
	lru_hold_timed(LRU_HOLD_LIST, list_del(&folio->lru));
	return true;
}

/* ---- references (mm/swap.c, mm/vmscan.c) ---- */

/*
 * An fd access: the first sets PG_referenced, the next three count in
 * the refs field, and one more after it saturated sets PG_workingset.
 * None moves the folio between generations, only between tiers.
 */
void lru_gen_inc_refs(struct folio *folio)
{
	unsigned long old = READ_ONCE(folio->flags), new_;

	if (folio_test_unevictable(folio))
		return;
	if (!folio_test_referenced(folio)) {
		set_mask_bits(&folio->flags, LRU_REFS_MASK, BIT(PG_referenced));
		return;
	}
	do {
		if ((old & LRU_REFS_MASK) == LRU_REFS_MASK) {
			/* saturated: no atomic once both are set */
			if (!folio_test_workingset(folio))
				folio_set_workingset(folio);
			return;
		}
		new_ = old + BIT(LRU_REFS_PGOFF);
	} while (!__atomic_compare_exchange_n(&folio->flags, &old, new_, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
}

bool lru_gen_clear_refs(struct folio *folio)
{
	int gen = folio_lru_gen(folio);
	int type = folio_is_file_lru(folio);
	unsigned long seq;

	if (gen < 0)
		return true;
	/* the s2 switch's helper: no cmpxchg when there is nothing to clear */
	folio_flags_set_mask(folio, LRU_REFS_FLAGS | BIT(PG_workingset), 0);
	rcu_read_lock();
	seq = READ_ONCE(folio_lruvec(folio)->lrugen.min_seq[type]);
	rcu_read_unlock();
	/* already the oldest: nothing to move under lru_lock */
	return gen == lru_gen_from_seq(seq);
}

/*
 * The rmap walk of eviction saw a young PTE: the first sighting only
 * marks the folio; a later one has it activated (taken off its list and
 * added back with PG_active), unlike the page-table walk, which moves
 * the generation in place (folio_update_gen()).  It becomes workingset
 * once its refs show two accesses; before that the sighting counts as
 * one more access (v7.2's "promote on second access"), so a folio the
 * rmap walk alone found young is workingset on its third sighting.
 */
bool lru_gen_set_refs(struct folio *folio)
{
	if (!folio_test_referenced(folio) && !folio_test_workingset(folio)) {
		folio_flags_set_mask(folio, LRU_REFS_MASK, BIT(PG_referenced));
		return false;
	}
	if (folio_lru_refs(folio) > 1)
		folio_flags_set_mask(folio, LRU_REFS_FLAGS, BIT(PG_workingset));
	else
		folio_mark_accessed(folio);
	return true;
}
