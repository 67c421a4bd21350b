// SPDX-License-Identifier: MIT
/*
 * The multi-gen LRU's eviction (v7.2 mm/vmscan.c: the PID controller
 * 3122-3190, sort_folio 4573 to evict_folios 4794, should_run_aging 4881
 * to try_to_shrink_lruvec 4950, lru_gen_shrink_lruvec/_node 5106/5127).
 *
 * Reclaim takes the oldest generation of the type the PID controller
 * picks, lets through folios of the tiers it does not protect, and hands
 * them to the same shrink_folio_list() the classic LRU uses (swap,
 * unmap, shadows).  Folios that turn out younger are sorted on the way:
 * those a page-table walk promoted go to their generation, protected
 * tiers one generation up.
 */
#include <lrulab/mglru.h>
#include <lrulab/mglru_walk.h>
#include <lrulab/mm_inline.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap_state.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "mglru-internal.h"
#include "mglru-internal-walk.h"
#include "vmscan-internal.h"

#define SITE_EVICT_ISOLATE VMSCAN_SITE("evict_folios", "evict_folios:isolate")
#define SITE_EVICT_PUTBACK VMSCAN_SITE("evict_folios", "evict_folios:putback")

/*
 * The model has no memory tiers (no demotion) and swap space is global
 * (no memory.swap.max): the check is the free swap left.
 */
int get_swappiness(struct lruvec *lruvec, struct scan_control *sc)
{
	if (!sc->may_swap)
		return 0;
	if (get_nr_swap_pages() < (long)MIN_LRU_BATCH)
		return 0;
	return sc_swappiness(sc, lruvec_memcg(lruvec));
}

/*
 * ---------------------------------------------------------------------
 * The PID controller
 *
 * P is refaulted / (evicted + protected) of a tier in the generation
 * being evicted, I its moving average over the generations evicted
 * before (halved each time), no D.  The set point is tier 0 of a type;
 * the process variable another tier of it, or the other type.
 * ---------------------------------------------------------------------
 */
void read_ctrl_pos(struct lruvec *lruvec, int type, int tier, int gain,
		   struct ctrl_pos *pos)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int hist = lru_hist_from_seq(lrugen->min_seq[type]);
	int first = tier % (int)MAX_NR_TIERS;
	int last = tier < (int)MAX_NR_TIERS ? tier : (int)MAX_NR_TIERS - 1;
	int i;

	pos->gain = gain;
	pos->refaulted = 0;
	pos->total = 0;
	for (i = first; i <= last; i++) {
		pos->refaulted += lrugen->avg_refaulted[type][i] +
				  (unsigned long)atomic_long_read(&lrugen->refaulted[hist][type][i]);
		pos->total += lrugen->avg_total[type][i] +
			      lrugen->protected[hist][type][i] +
			      (unsigned long)atomic_long_read(&lrugen->evicted[hist][type][i]);
	}
}

/*
 * On a min_seq advance (@carryover) the slot of the generation that
 * left feeds the averages and, with one slot only, is cleared; on a
 * max_seq advance the slot the new generation will use is cleared when
 * there are several.
 */
void reset_ctrl_pos(struct lruvec *lruvec, int type, bool carryover)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	bool clear = carryover ? NR_HIST_GENS == 1 : NR_HIST_GENS > 1;
	unsigned long seq = carryover ? lrugen->min_seq[type] : lrugen->max_seq + 1;
	int hist, tier;

	if (!carryover && !clear)
		return;
	hist = lru_hist_from_seq(seq);
	for (tier = 0; tier < (int)MAX_NR_TIERS; tier++) {
		if (carryover) {
			unsigned long sum;

			sum = lrugen->avg_refaulted[type][tier] +
			      (unsigned long)atomic_long_read(&lrugen->refaulted[hist][type][tier]);
			WRITE_ONCE(lrugen->avg_refaulted[type][tier], sum / 2);
			sum = lrugen->avg_total[type][tier] + lrugen->protected[hist][type][tier] +
			      (unsigned long)atomic_long_read(&lrugen->evicted[hist][type][tier]);
			WRITE_ONCE(lrugen->avg_total[type][tier], sum / 2);
		}
		if (clear) {
			atomic_long_set(&lrugen->refaulted[hist][type][tier], 0);
			atomic_long_set(&lrugen->evicted[hist][type][tier], 0);
			WRITE_ONCE(lrugen->protected[hist][type][tier], 0);
		}
	}
}

/* The PV has few refaults, or no higher a refaulted/total than the SP. */
bool positive_ctrl_err(const struct ctrl_pos *sp, const struct ctrl_pos *pv)
{
	return pv->refaulted < MIN_LRU_BATCH ||
	       pv->refaulted * (sp->total + MIN_LRU_BATCH) * (unsigned long)sp->gain <=
	       (sp->refaulted + 1) * pv->total * (unsigned long)pv->gain;
}

/*
 * The highest tier not to protect: tiers above the first whose refault
 * rate stays under tier 0's (with a 2:3 margin) are let go.
 */
int get_tier_idx(struct lruvec *lruvec, int type)
{
	struct ctrl_pos sp, pv;
	int tier;

	read_ctrl_pos(lruvec, type, 0, 2, &sp);
	for (tier = 1; tier < (int)MAX_NR_TIERS; tier++) {
		read_ctrl_pos(lruvec, type, tier, 3, &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}
	return tier - 1;
}

/* File when its refault rate, weighted by 200 - swappiness, is no worse. */
int get_type_to_scan(struct lruvec *lruvec, int swappiness)
{
	struct ctrl_pos sp, pv;

	if (swappiness <= MIN_SWAPPINESS + 1)
		return LRU_GEN_FILE;
	if (swappiness >= MAX_SWAPPINESS)
		return LRU_GEN_ANON;
	read_ctrl_pos(lruvec, LRU_GEN_ANON, MAX_NR_TIERS, swappiness, &sp);
	read_ctrl_pos(lruvec, LRU_GEN_FILE, MAX_NR_TIERS, MAX_SWAPPINESS - swappiness, &pv);
	return positive_ctrl_err(&sp, &pv);
}

/*
 * ---------------------------------------------------------------------
 * Isolation, under lru_lock
 * ---------------------------------------------------------------------
 */

/*
 * True when the folio was dealt with here instead of being isolated:
 * unevictable, promoted by a walker, protected by its tier, or in a
 * zone this reclaim may not take from.
 */
static bool sort_folio(struct lruvec *lruvec, struct folio *folio, struct scan_control *sc,
		       int tier_idx)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int gen = folio_lru_gen(folio);
	int type = folio_is_file_lru(folio);
	int zone = folio_zonenum(folio);
	long delta = folio_nr_pages(folio);
	int refs = folio_lru_refs(folio);
	bool workingset = folio_test_workingset(folio);
	int tier = lru_tier_from_refs(refs, workingset);
	/* refs saturated and workingset: promoted lazily, not counted */
	bool lazy = refs + workingset == (1 << LRU_REFS_WIDTH) + 1;

	if (!folio_evictable(folio)) {
		lru_gen_del_folio(lruvec, folio, true);
		folio_set_unevictable(folio);
		lruvec_add_folio(lruvec, folio);
		__count_vm_events(UNEVICTABLE_PGCULLED, delta);
		return true;
	}
	if (gen != lru_gen_from_seq(lrugen->min_seq[type])) {
		list_move(&folio->lru, &lrugen->folios[gen][type][zone]);
		return true;
	}
	if (tier > tier_idx || lazy) {
		gen = folio_inc_gen(lruvec, folio);
		list_move(&folio->lru, &lrugen->folios[gen][type][zone]);
		if (!lazy) {
			int hist = lru_hist_from_seq(lrugen->min_seq[type]);

			WRITE_ONCE(lrugen->protected[hist][type][tier],
				   lrugen->protected[hist][type][tier] + (unsigned long)delta);
		}
		return true;
	}
	if (zone > sc->reclaim_idx) {
		gen = folio_inc_gen(lruvec, folio);
		list_move_tail(&folio->lru, &lrugen->folios[gen][type][zone]);
		return true;
	}
	return false;
}

/*
 * Dirty, writeback and swap-constrained folios are isolated like any
 * other: shrink_folio_list() deals with them, PG_reclaim included,
 * which isolation leaves as it is (v7.2; 6.12 cleared it here and kept
 * some dirty folios back).
 */
static bool isolate_folio(struct lruvec *lruvec, struct folio *folio, struct scan_control *sc)
{
	if (!folio_try_get(folio))
		return false;
	if (!folio_test_clear_lru(folio)) {
		folio_put(folio);
		return false;
	}
	/* refs without PG_referenced are stale: zero them (s2 may skip the CAS) */
	if (!folio_test_referenced(folio))
		folio_flags_set_mask(folio, LRU_REFS_MASK, 0);
	lru_gen_del_folio(lruvec, folio, true);
	return true;
}

/*
 * Up to @nr_to_scan folios from the tail of the oldest generation of
 * @type, zone by zone from reclaim_idx down; a zone stops after
 * MIN_LRU_BATCH pages isolated or skipped, the scan after MIN_LRU_BATCH
 * isolated.  The pages scanned, sorted ones included (v7.2; 6.12
 * returned 0 when nothing was isolated); *@isolatedp the ones isolated.
 */
static int scan_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
		       struct scan_control *sc, int type, int tier, struct list_head *list,
		       long *isolatedp)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	long scan_batch = (long)min_t(unsigned long, nr_to_scan, MAX_LRU_BATCH);
	long remaining = scan_batch, scanned = 0, isolated = 0, sorted = 0;
	int gen, i;

	if (get_nr_gens(lruvec, type) == (int)MIN_NR_GENS)
		return 0;
	gen = lru_gen_from_seq(lrugen->min_seq[type]);
	for (i = MAX_NR_ZONES; i > 0; i--) {
		int zone = (sc->reclaim_idx + i) % MAX_NR_ZONES;
		struct list_head *head = &lrugen->folios[gen][type][zone];
		long skipped_zone = 0;
		LIST_HEAD(moved);

		while (!list_empty(head)) {
			struct folio *folio = lru_to_folio(head);
			long delta = folio_nr_pages(folio);

			scanned += delta;
			if (sort_folio(lruvec, folio, sc, tier)) {
				sorted += delta;
			} else if (isolate_folio(lruvec, folio, sc)) {
				list_add(&folio->lru, list);
				isolated += delta;
			} else {
				list_move(&folio->lru, &moved);
				skipped_zone += delta;
			}
			if (!--remaining || max_t(long, isolated, skipped_zone) >= (long)MIN_LRU_BATCH)
				break;
		}
		/* the skipped ones go to the head, out of the next scan's way */
		while (!list_empty(&moved))
			list_move(moved.prev, head);
		if (!remaining || isolated >= (long)MIN_LRU_BATCH)
			break;
	}
	/* isolated pages are pgscan, sorted ones pgrefill, as in the kernel */
	count_reclaim_events(sc, lruvec, PGSCAN_KSWAPD, PGSCAN_ANON, type,
			     (unsigned long)isolated);
	mod_lruvec_state(lruvec, PGREFILL, (int)sorted);
	if (type == LRU_GEN_FILE)
		sc->nr.file_taken += (unsigned int)isolated;
	*isolatedp = isolated;
	return (int)scanned;
}

/*
 * The controller's type first, until something is isolated.  A type
 * that was scanned but gave nothing (its folios sorted up) is tried
 * again rather than left for the other: falling back that readily
 * would undo the controller's choice.  A type with nothing to scan
 * first retires its empty generations (try_to_inc_min_seq()) and hands
 * over only when reclaim runs at priority 0, as the mm tree's
 * isolate_folios() does.  The pages scanned over both rounds.
 */
static int isolate_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
			  struct scan_control *sc, int swappiness, int *type_isolated,
			  struct list_head *list, long *isolated)
{
	int type = get_type_to_scan(lruvec, swappiness);
	int i, total = 0;

	*isolated = 0;
	for_each_evictable_type(i, swappiness) {
		int tier = get_tier_idx(lruvec, type);
		int scanned;

		scanned = scan_folios(nr_to_scan, lruvec, sc, type, tier, list, isolated);
		total += scanned;
		if (*isolated) {
			*type_isolated = type;
			break;
		}
		if (!scanned) {
			try_to_inc_min_seq(lruvec, swappiness);
			if (!sc->priority)
				type = !type;
		}
	}
	return total;
}

/*
 * ---------------------------------------------------------------------
 * Eviction
 * ---------------------------------------------------------------------
 */

/*
 * What was not reclaimed goes back: unevictable folios through the
 * batch; clean, unmapped, inactive ones are kept for one more try on
 * the first pass (their writeback may have ended before
 * folio_rotate_reclaimable() could see them); the rest go back to the
 * LRU, never into the generation being evicted (PG_active makes them
 * young instead).
 */
static void sort_survivors(struct lruvec *lruvec, struct list_head *list,
			   struct list_head *clean, int type, bool skip_retry)
{
	struct folio *folio, *prev;

	for (folio = list_last_entry(list, struct folio, lru); &folio->lru != list;
	     folio = prev) {
		prev = list_entry(folio->lru.prev, struct folio, lru);
		if (!folio_evictable(folio)) {
			list_del(&folio->lru);
			folio_putback_lru(folio);
			continue;
		}
		if (!skip_retry && !folio_test_active(folio) && !folio_mapped(folio) &&
		    !folio_test_dirty(folio) && !folio_test_writeback(folio)) {
			list_move(&folio->lru, clean);
			continue;
		}
		if (lru_gen_folio_seq(lruvec, folio, false) ==
		    READ_ONCE(lruvec->lrugen.min_seq[type]))
			set_mask_bits(&folio->flags, LRU_REFS_FLAGS, BIT(PG_active));
	}
}

/*
 * The kernel's handle_reclaim_writeback(): when every folio taken was
 * dirty and nobody had queued it for writeback, the flushers are behind.
 */
static void handle_reclaim_writeback(struct scan_control *sc, const struct reclaim_stat *stat,
				     unsigned long nr_taken, int type)
{
	sc->nr.dirty += stat->nr_dirty;
	sc->nr.congested += stat->nr_congested;
	sc->nr.unqueued_dirty += stat->nr_unqueued_dirty;
	sc->nr.writeback += stat->nr_writeback;
	sc->nr.immediate += stat->nr_immediate;
	sc->nr.taken += (unsigned int)nr_taken;
	if (type == LRU_GEN_FILE && nr_taken && stat->nr_unqueued_dirty == nr_taken)
		wakeup_flusher_threads();
}

int evict_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
		 struct scan_control *sc, int swappiness)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	struct lru_gen_mm_walk *walk;
	struct reclaim_stat stat;
	bool skip_retry = false;
	unsigned long reclaimed;
	int type = LRU_GEN_FILE;
	LIST_HEAD(list);
	LIST_HEAD(clean);
	long isolated;
	int scanned;

	spin_lock_at(&lruvec->lru_lock, SITE_EVICT_ISOLATE);
	try_to_inc_min_seq(lruvec, swappiness);
	scanned = isolate_folios(nr_to_scan, lruvec, sc, swappiness, &type, &list, &isolated);
	/* sorting may have emptied the oldest generation */
	if (scanned)
		try_to_inc_min_seq(lruvec, swappiness);
	spin_unlock(&lruvec->lru_lock);
	if (list_empty(&list)) {
		lru_gen_cas_fold();
		return scanned;
	}
retry:
	reclaimed = shrink_folio_list(&list, pgdat, sc, &stat, false);
	sc->nr_reclaimed += reclaimed;
	/* the retry pass took nothing new: its folios were counted once */
	if (!skip_retry)
		handle_reclaim_writeback(sc, &stat, (unsigned long)isolated, type);
	sort_survivors(lruvec, &list, &clean, type, skip_retry);

	spin_lock_at(&lruvec->lru_lock, SITE_EVICT_PUTBACK);
	move_folios_to_lru(lruvec, &list);
	count_reclaim_events(sc, lruvec, PGSTEAL_KSWAPD, PGSTEAL_ANON, type, reclaimed);
	spin_unlock(&lruvec->lru_lock);
	/* what look-around promoted through the walk: the sizes now */
	walk = current_mm_walk;
	if (walk && walk->batched) {
		walk->lruvec = lruvec;
		reset_batch_size(walk);
	}

	list_splice_tail_init(&clean, &list);
	if (!list_empty(&list)) {
		skip_retry = true;
		goto retry;
	}
	/* this thread's cmpxchg counts (s2) into the totals */
	lru_gen_cas_fold();
	return scanned;
}

/*
 * ---------------------------------------------------------------------
 * The reclaim loop of one lruvec (v7.2: aging decided here, not in
 * get_nr_to_scan(); eviction in MIN_LRU_BATCH steps)
 * ---------------------------------------------------------------------
 */

bool should_run_aging(struct lruvec *lruvec, unsigned long max_seq,
		      struct scan_control *sc, int swappiness)
{
	unsigned long min_seq[ANON_AND_FILE] = {
		READ_ONCE(lruvec->lrugen.min_seq[LRU_GEN_ANON]),
		READ_ONCE(lruvec->lrugen.min_seq[LRU_GEN_FILE]),
	};
	unsigned long oldest = evictable_min_seq(min_seq, swappiness);

	/* only two generations left: nothing may be evicted until aged */
	if (oldest + MIN_NR_GENS > max_seq)
		return true;
	/* try to get away with not aging at the default priority */
	if (sc->priority == DEF_PRIORITY)
		return false;
	/* three left: better to age now, while eviction is still possible */
	return oldest + MIN_NR_GENS == max_seq;
}

/* The evictable pages of the types @swappiness allows */
static unsigned long lruvec_evictable_pages(struct lruvec *lruvec, int swappiness)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long max_seq = READ_ONCE(lrugen->max_seq), total = 0;
	int type, zone;

	for_each_evictable_type(type, swappiness) {
		unsigned long seq;

		for (seq = READ_ONCE(lrugen->min_seq[type]); seq <= max_seq; seq++) {
			int gen = lru_gen_from_seq(seq);

			for (zone = 0; zone < MAX_NR_ZONES; zone++) {
				long n = READ_ONCE(lrugen->nr_pages[gen][type][zone]);

				total += n > 0 ? (unsigned long)n : 0;
			}
		}
	}
	return total;
}

/*
 * An offline memcg is scraped whole; others give their share for this
 * priority (the model has no memory.low/min protection to apply).
 */
long get_nr_to_scan(struct lruvec *lruvec, struct scan_control *sc, int swappiness)
{
	unsigned long nr = lruvec_evictable_pages(lruvec, swappiness);

	if (nr && !mem_cgroup_online(lruvec_memcg(lruvec)))
		return (long)nr;
	return (long)(nr >> sc->priority);
}

static bool kswapd_zones_safe(struct pglist_data *pgdat, struct scan_control *sc)
{
	int i;

	for (i = 0; i <= sc->reclaim_idx; i++) {
		struct zone *zone = &pgdat->node_zones[i];

		if (zone->managed_pages &&
		    zone_below_wmark(zone, zone->_watermark[WMARK_HIGH] + MIN_LRU_BATCH))
			return false;
	}
	return true;
}

/* Proactive reclaim has no signals in the model, so that test is out. */
bool should_abort_scan(struct lruvec *lruvec, struct scan_control *sc)
{
	/* compact_gap(0) is 2 */
	if (sc->nr_reclaimed >= max_t(unsigned long, sc->nr_to_reclaim, 2UL << sc->order))
		return true;
	/* kswapd at order 0 stops once every eligible zone is safe */
	if (!current_is_kswapd() || sc->order)
		return false;
	return kswapd_zones_safe(lruvec_pgdat(lruvec), sc);
}

/*
 * Evict in MIN_LRU_BATCH steps, aging first whenever should_run_aging()
 * says so.  Root reclaim still evicts the batch after aging and only
 * then moves on to the next memcg (v7.2 vmscan.c:4950), so that an
 * lruvec short of cold folios gives one batch instead of none.  True
 * when this call made max_seq advance (the memcg then goes to the young
 * generation of the memcg LRU).
 */
bool try_to_shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	int swappiness = get_swappiness(lruvec, sc);
	long nr_to_scan = get_nr_to_scan(lruvec, sc, swappiness);
	bool need_rotate = false, should_age = false;

	while (nr_to_scan > 0) {
		unsigned long max_seq = READ_ONCE(lruvec->lrugen.max_seq);
		int delta;

		if (should_run_aging(lruvec, max_seq, sc, swappiness)) {
			if (try_to_inc_max_seq(lruvec, max_seq, swappiness, false))
				need_rotate = true;
			should_age = true;
		}
		delta = evict_folios(min_t(unsigned long, (unsigned long)nr_to_scan,
					   MIN_LRU_BATCH), lruvec, sc, swappiness);
		if (!delta)
			break;
		if (should_abort_scan(lruvec, sc))
			break;
		/* low on cold folios: fairness asks for the next memcg */
		if (root_reclaim(sc) && should_age)
			break;
		nr_to_scan -= delta;
		cond_resched();
	}
	return need_rotate;
}

/* memcg reclaim (memory.max, memory.reclaim): the lruvec of each memcg */
void lru_gen_shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	lru_add_drain();
	/* a page-table walk context only for proactive reclaim */
	set_mm_walk(NULL, sc->proactive);
	if (try_to_shrink_lruvec(lruvec, sc))
		lru_gen_rotate_memcg(lruvec, MEMCG_LRU_YOUNG);
	clear_mm_walk();
}
