/* SPDX-License-Identifier: MIT */
/*
 * What the reclaim files share (mm/vmscan.c, mm/scan_balance.c,
 * mm/kswapd.c, mm/reclaim_throttle.c): the scan_control predicates, the
 * cost paths' lock sites, the throttle and the steps kswapd runs.  Not
 * a public interface.
 */
#ifndef LRULAB_MM_VMSCAN_INTERNAL_H
#define LRULAB_MM_VMSCAN_INTERNAL_H

#include <lrulab/swap_state.h>
#include <lrulab/vmscan.h>

/* Set for the life of a kswapd thread. */
extern __thread bool in_kswapd;

static inline bool current_is_kswapd(void)
{
	return in_kswapd;
}

/*
 * A cost path's lru_lock site: what perf calls it on a real kernel
 * (@caller_) and where it is in lrulab (@fn_), which lru_cost_sites_read()
 * goes by.
 */
#define COST_SITE_AT(caller_, fn_) LOCK_SITE_AT("lru_lock", (caller_), (fn_))
#define COST_SITE(fn_) COST_SITE_AT((fn_), (fn_))

/*
 * lru_lock sites as `perf lock contention` names them on a v7 kernel:
 * move_folios_to_lru() and shrink_active_list() stay functions of their
 * own; shrink_inactive_list() is inlined into shrink_lruvec(), so its
 * isolation, putback and cost re-lock are shrink_lruvec's rows (the s1
 * mail's shrink_lruvec+0x770 is the cost re-lock).  The fn beside each
 * tells the rows of one caller apart, as perf's offsets do.
 */
#define VMSCAN_SITE(caller_, fn_) LOCK_SITE_AT("lru_lock", (caller_), (fn_))
#define SITE_MOVE_UNEVICTABLE	VMSCAN_SITE("move_folios_to_lru", "move_folios_to_lru:unevictable")
#define SITE_MOVE_FREE		VMSCAN_SITE("move_folios_to_lru", "move_folios_to_lru:free")
#define SITE_MOVE_END		VMSCAN_SITE("move_folios_to_lru", "move_folios_to_lru:free_end")
#define SITE_ACTIVE_ISOLATE	VMSCAN_SITE("shrink_active_list", "shrink_active_list:isolate")
#define SITE_ACTIVE_PUTBACK	VMSCAN_SITE("shrink_active_list", "shrink_active_list:putback")
#define SITE_ACTIVE_COST	VMSCAN_SITE("shrink_active_list", "shrink_active_list:lru_note_cost")
#define SITE_INACTIVE_ISOLATE	VMSCAN_SITE("shrink_lruvec", "shrink_inactive_list:isolate")
#define SITE_INACTIVE_PUTBACK	VMSCAN_SITE("shrink_lruvec", "shrink_inactive_list:putback")
#define SITE_INACTIVE_COST	VMSCAN_SITE("shrink_lruvec", "shrink_inactive_list:lru_note_cost")

/* the list's tail, where reclaim takes folios from */
static inline struct folio *lru_to_folio(struct list_head *head)
{
	return list_last_entry(head, struct folio, lru);
}

/* An isolated folio goes back through the per-CPU batch. */
void folio_putback_lru(struct folio *folio);

/* sc->may_deactivate: which active lists may shrink this pass */
#define DEACTIVATE_ANON 1
#define DEACTIVATE_FILE 2

static inline bool cgroup_reclaim(struct scan_control *sc)
{
	return sc->target_mem_cgroup && !mem_cgroup_is_root(sc->target_mem_cgroup);
}

static inline bool root_reclaim(struct scan_control *sc)
{
	return !cgroup_reclaim(sc);
}

/*
 * Which reclaimer's pgscan/pgsteal item a pass counts in, as an offset
 * from the _KSWAPD one: kswapd, proactive reclaim (memory.reclaim, the
 * lru_gen writer), or direct reclaim (an allocation, memory.max).  The
 * model has no khugepaged, so no _KHUGEPAGED items between them.
 */
_Static_assert(PGSCAN_DIRECT == PGSCAN_KSWAPD + 1 && PGSTEAL_DIRECT == PGSTEAL_KSWAPD + 1 &&
	       PGSCAN_PROACTIVE == PGSCAN_KSWAPD + 2 &&
	       PGSTEAL_PROACTIVE == PGSTEAL_KSWAPD + 2 &&
	       PGSCAN_FILE == PGSCAN_ANON + 1 && PGSTEAL_FILE == PGSTEAL_ANON + 1,
	       "reclaimer_offset() relies on the items' order");
static inline int reclaimer_offset(struct scan_control *sc)
{
	if (current_is_kswapd())
		return 0;
	if (sc->proactive)
		return PGSTEAL_PROACTIVE - PGSTEAL_KSWAPD;
	return PGSTEAL_DIRECT - PGSTEAL_KSWAPD;
}

/*
 * A pass's pgscan or pgsteal (@base: PGSCAN_KSWAPD or PGSTEAL_KSWAPD;
 * @type_item: the _ANON item, _FILE after it): lruvec stats, so the node
 * and the memcg count every reclaim, cgroup reclaim included (v7.2; 6.12
 * had vm events and left cgroup reclaim out of /proc/vmstat).
 */
static inline void count_reclaim_events(struct scan_control *sc, struct lruvec *lruvec,
					enum node_stat_item base, enum node_stat_item type_item,
					int type, unsigned long nr)
{
	mod_lruvec_state(lruvec, base + reclaimer_offset(sc), (int)nr);
	mod_lruvec_state(lruvec, type_item + type, (int)nr);
}

/* cgroup v2: every memcg follows the global knob */
static inline int sc_swappiness(struct scan_control *sc, struct mem_cgroup *memcg)
{
	return sc->proactive_swappiness ? *sc->proactive_swappiness : vm_swappiness;
}

static inline bool can_reclaim_anon_pages(struct scan_control *sc)
{
	return get_nr_swap_pages() > 0;
}

/*
 * The producer side of a reclaim pass (mm/scan_balance.c): the cost of
 * @nr_io writes and @nr_rotated rotations, under lru_lock at @site, or
 * (vmstat-scan-cost) a PGROTATE counter.
 */
void note_rotations(struct lruvec *lruvec, bool file, unsigned int nr_io,
		    unsigned int nr_rotated, struct lock_site *site);

/* mm/reclaim_throttle.c, for shrink_inactive_list() */
bool too_many_isolated(struct pglist_data *pgdat, int file, struct scan_control *sc);
void reclaim_throttle(struct pglist_data *pgdat, enum vmscan_throttle_state reason);

/* mm/vmscan.c, for kswapd's passes */
void shrink_active_list(unsigned long nr_to_scan, struct lruvec *lruvec,
			struct scan_control *sc, enum lru_list lru);
void snapshot_refaults(struct mem_cgroup *target_memcg, struct pglist_data *pgdat);

#endif /* LRULAB_MM_VMSCAN_INTERNAL_H */
