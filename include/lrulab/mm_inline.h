/* SPDX-License-Identifier: MIT */
/*
 * LRU list primitives (include/linux/mm_inline.h).  All of them run with
 * the lruvec's lru_lock held.
 */
#ifndef LRULAB_MM_INLINE_H
#define LRULAB_MM_INLINE_H

#include <lrulab/memcontrol.h>
#include <lrulab/mglru.h>
#include <lrulab/vmstat.h>
#include <lrulab/trace.h>

static inline enum lru_list folio_lru_list(const struct folio *folio)
{
	enum lru_list lru;

	if (folio_test_unevictable(folio))
		return LRU_UNEVICTABLE;
	lru = folio_is_file_lru(folio) ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON;
	if (folio_test_active(folio))
		lru += LRU_ACTIVE;
	return lru;
}

/*
 * The sections of an lru_lock hold, timed only while a probe is on the
 * lru_hold_section event (--profile-hold): the clock reads would
 * otherwise lengthen every hold.
 */
#define lru_hold_timed(sec, stmt) do {					\
	if (trace_on(lru_hold_section)) {				\
		u64 __t0 = lrulab_now_ns();				\
		stmt;							\
		trace_lru_hold_section((sec), lrulab_now_ns() - __t0);	\
	} else {							\
		stmt;							\
	}								\
} while (0)

/*
 * Node, memcg and zone stats of the list; called under lru_lock.  With a
 * batch attached (lru-stat-batch) the node/memcg part is accumulated and
 * applied by the unlocker; zone stats stay immediate, as in the patch.
 */
static inline void __update_lru_size(struct lruvec *lruvec, enum lru_list lru,
				     int zid, long nr_pages)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	struct lru_size_batch *batch = lruvec->lru_size_batch;

	if (batch)
		batch->nr_pages[lru] += nr_pages;
	else
		lru_hold_timed(LRU_HOLD_STAT,
			       mod_lruvec_state(lruvec, NR_LRU_BASE + lru, nr_pages));
	lru_hold_timed(LRU_HOLD_ZONE_STAT,
		       __mod_zone_page_state(&pgdat->node_zones[zid],
					     NR_ZONE_LRU_BASE + lru, nr_pages));
}

static inline void update_lru_size(struct lruvec *lruvec, enum lru_list lru,
				   int zid, long nr_pages)
{
	__update_lru_size(lruvec, lru, zid, nr_pages);
	lru_hold_timed(LRU_HOLD_LRU_SIZE,
		       mem_cgroup_update_lru_size(lruvec, lru, zid, nr_pages));
}

/*
 * Unevictable folios are counted but not linked, as in the kernel.  With
 * the multi-gen LRU on, evictable folios go on its generations instead.
 */
static inline void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	if (lru_gen_enabled() && lru_gen_add_folio(lruvec, folio, false))
		return;
	update_lru_size(lruvec, lru, folio_zonenum(folio), folio_nr_pages(folio));
	if (lru != LRU_UNEVICTABLE)
		lru_hold_timed(LRU_HOLD_LIST, list_add(&folio->lru, &lruvec->lists[lru]));
}

static inline void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	if (lru_gen_enabled() && lru_gen_add_folio(lruvec, folio, true))
		return;
	update_lru_size(lruvec, lru, folio_zonenum(folio), folio_nr_pages(folio));
	lru_hold_timed(LRU_HOLD_LIST, list_add_tail(&folio->lru, &lruvec->lists[lru]));
}

static inline void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	if (folio_lru_gen(folio) >= 0 && lru_gen_del_folio(lruvec, folio, false))
		return;
	if (lru != LRU_UNEVICTABLE)
		lru_hold_timed(LRU_HOLD_LIST, list_del(&folio->lru));
	update_lru_size(lruvec, lru, folio_zonenum(folio), -folio_nr_pages(folio));
}

/* Clear the LRU flags of a folio that is being freed. */
static inline void __folio_clear_lru_flags(struct folio *folio)
{
	__folio_clear_lru(folio);
	/* both set is a bug left for the bad-page check, as in the kernel */
	if (folio_test_active(folio) && folio_test_unevictable(folio))
		return;
	__folio_clear_active(folio);
	__folio_clear_unevictable(folio);
}

#endif /* LRULAB_MM_INLINE_H */
