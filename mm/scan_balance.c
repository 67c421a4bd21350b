// SPDX-License-Identifier: MIT
/*
 * Scan balance: how reclaim splits its work between the anon and file
 * lists (the kernel's mm/vmscan.c and, for lru_note_cost*, mm/swap.c).
 * The cost of reclaiming each type is recorded by the producers under
 * lru_lock with the walk up the memcg tree (today's kernel), or, behind
 * the vmstat-scan-cost switch (seed s1), sampled by reclaim from
 * monotonic vmstat counters under a per-lruvec cost_lock.
 * prepare_scan_control() turns the costs, refaults and list sizes into
 * one pass's decisions, get_scan_count() into per-list scan targets.
 */
#include <lrulab/mm_inline.h>
#include <lrulab/rcupdate.h>
#include <lrulab/switches.h>
#include <lrulab/vmstat.h>

#include "vmscan-internal.h"

static unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0, bit = 1UL << (sizeof(long) * 8 - 2);

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

static unsigned long lruvec_evictable_size(struct lruvec *lruvec)
{
	return lruvec_page_state(lruvec, NR_INACTIVE_ANON) +
	       lruvec_page_state(lruvec, NR_ACTIVE_ANON) +
	       lruvec_page_state(lruvec, NR_INACTIVE_FILE) +
	       lruvec_page_state(lruvec, NR_ACTIVE_FILE);
}

/*
 * ---------------------------------------------------------------------
 * Scan-balance cost
 * ---------------------------------------------------------------------
 */

/*
 * Costs older than about a quarter of the LRU's turnover stop counting:
 * once the pair outgrows lrusize / 4, both halve, which keeps their
 * ratio and ages the history geometrically.
 */
void lru_cost_decay(unsigned long *anon_cost, unsigned long *file_cost,
		    unsigned long lrusize)
{
	if (*anon_cost + *file_cost > lrusize / 4) {
		*anon_cost /= 2;
		*file_cost /= 2;
	}
}

void lru_cost_sites_read(struct lock_stat *out)
{
	static const char *const fns[] = {
		"shrink_inactive_list:lru_note_cost", "shrink_active_list:lru_note_cost",
		"lru_note_cost_unlock_irq", "lru_note_cost_refault",
		"prepare_scan_control", NULL,
	};

	lockstat_read_fns("lru_lock", fns, out);
}

void lru_note_cost_unlock_irq(struct lruvec *lruvec, bool file,
			      unsigned int nr_io, unsigned int nr_rotated)
{
	unsigned long cost = (unsigned long)nr_io * SWAP_CLUSTER_MAX + nr_rotated;

	if (!cost) {
		spin_unlock(&lruvec->lru_lock);
		return;
	}
	/*
	 * Every ancestor balances its own reclaim on its subtree's costs,
	 * so the cost goes up the tree, one lru_lock at a time.
	 */
	for (;;) {
		if (file)
			lruvec->file_cost += cost;
		else
			lruvec->anon_cost += cost;
		lru_cost_decay(&lruvec->anon_cost, &lruvec->file_cost,
			       lruvec_evictable_size(lruvec));
		spin_unlock(&lruvec->lru_lock);
		lruvec = parent_lruvec(lruvec);
		if (!lruvec)
			break;
		spin_lock_at(&lruvec->lru_lock, COST_SITE("lru_note_cost_unlock_irq"));
	}
}

void lru_note_cost_refault(struct folio *folio)
{
	struct lruvec *lruvec;

	rcu_read_lock();
	/* inlined into workingset_refault(): the s1 mail's workingset_refault+0x167 */
	lruvec = __folio_lruvec_lock(folio, COST_SITE_AT("workingset_refault",
							 "lru_note_cost_refault"));
	rcu_read_unlock();
	lru_note_cost_unlock_irq(lruvec, folio_is_file_lru(folio),
				 (unsigned int)folio_nr_pages(folio), 0);
}

/*
 * The s1 consumer: sample the monotonic cost counters of @lruvec (which
 * rstat aggregates over its subtree), fold what happened since the last
 * sample into the accumulators, and decay.  cost_lock serialises
 * reclaimers of the same lruvec; no producer takes it.
 */
void lruvec_cost_sample(struct lruvec *lruvec, unsigned long *anon_cost,
			unsigned long *file_cost)
{
	unsigned long sample[ANON_AND_FILE], lrusize;
	int type;

	sample[0] = lruvec_page_state_monotonic(lruvec, PGROTATE_ANON) +
		(lruvec_page_state_monotonic(lruvec, NR_VMSCAN_WRITE) +
		 lruvec_page_state_monotonic(lruvec, WORKINGSET_RESTORE_ANON)) * SWAP_CLUSTER_MAX;
	sample[1] = lruvec_page_state_monotonic(lruvec, PGROTATE_FILE) +
		lruvec_page_state_monotonic(lruvec, WORKINGSET_RESTORE_FILE) * SWAP_CLUSTER_MAX;
	lrusize = lruvec_evictable_size(lruvec);

	spin_lock_at(&lruvec->cost_lock, LOCK_SITE("cost_lock"));
	for (type = 0; type < ANON_AND_FILE; type++) {
		/* unsigned modular difference: right across a wrap */
		lruvec->cost[type].count += sample[type] - lruvec->cost[type].last;
		lruvec->cost[type].last = sample[type];
	}
	lru_cost_decay(&lruvec->cost[0].count, &lruvec->cost[1].count, lrusize);
	*anon_cost = lruvec->cost[0].count;
	*file_cost = lruvec->cost[1].count;
	spin_unlock(&lruvec->cost_lock);
}

/* The producer side of a reclaim pass: a cost under lru_lock, or a counter. */
void note_rotations(struct lruvec *lruvec, bool file, unsigned int nr_io,
		    unsigned int nr_rotated, struct lock_site *site)
{
	if (lrulab_switch_on(SW_VMSTAT_SCAN_COST)) {
		if (nr_rotated)
			mod_lruvec_state(lruvec, PGROTATE_BASE + file, (int)nr_rotated);
		return;
	}
	spin_lock_at(&lruvec->lru_lock, site);
	lru_note_cost_unlock_irq(lruvec, file, nr_io, nr_rotated);
}

/*
 * ---------------------------------------------------------------------
 * Scan targets
 * ---------------------------------------------------------------------
 */

bool inactive_is_low(struct lruvec *lruvec, enum lru_list inactive_lru)
{
	enum lru_list active_lru = inactive_lru + LRU_ACTIVE;
	unsigned long inactive, active, inactive_ratio, gb;

	inactive = lruvec_page_state(lruvec, NR_LRU_BASE + inactive_lru);
	active = lruvec_page_state(lruvec, NR_LRU_BASE + active_lru);
	gb = (inactive + active) >> (30 - PAGE_SHIFT);
	inactive_ratio = gb ? int_sqrt(10 * gb) : 1;
	return inactive * inactive_ratio < active;
}

void prepare_scan_control(struct pglist_data *pgdat, struct scan_control *sc)
{
	struct lruvec *target_lruvec = mem_cgroup_lruvec(sc->target_mem_cgroup, pgdat);
	unsigned long refaults, file;

	/* MGLRU balances anon and file with its PID controller instead */
	if (lru_gen_enabled())
		return;
	mem_cgroup_flush_stats_ratelimited(sc->target_mem_cgroup);

	if (lrulab_switch_on(SW_VMSTAT_SCAN_COST)) {
		lruvec_cost_sample(target_lruvec, &sc->anon_cost, &sc->file_cost);
	} else {
		/* a consistent pair: producers update both under this lock */
		/* inlined into shrink_node(): the s1 mail's shrink_node+0x4ad */
		spin_lock_at(&target_lruvec->lru_lock,
			     COST_SITE_AT("shrink_node", "prepare_scan_control"));
		sc->anon_cost = target_lruvec->anon_cost;
		sc->file_cost = target_lruvec->file_cost;
		spin_unlock(&target_lruvec->lru_lock);
	}

	/*
	 * Refaults since the last pass mean a new workingset is forming:
	 * let the active list of that type shrink to make room for it.
	 */
	if (!sc->force_deactivate) {
		sc->may_deactivate = 0;
		refaults = lruvec_page_state(target_lruvec, WORKINGSET_ACTIVATE_ANON);
		if (refaults != target_lruvec->refaults[WORKINGSET_ANON] ||
		    inactive_is_low(target_lruvec, LRU_INACTIVE_ANON))
			sc->may_deactivate |= DEACTIVATE_ANON;
		refaults = lruvec_page_state(target_lruvec, WORKINGSET_ACTIVATE_FILE);
		if (refaults != target_lruvec->refaults[WORKINGSET_FILE] ||
		    inactive_is_low(target_lruvec, LRU_INACTIVE_FILE))
			sc->may_deactivate |= DEACTIVATE_FILE;
	} else {
		sc->may_deactivate = DEACTIVATE_ANON | DEACTIVATE_FILE;
	}

	/* plenty of cold cache and no refaults: trim the cache alone */
	file = lruvec_page_state(target_lruvec, NR_INACTIVE_FILE);
	sc->cache_trim_mode = (file >> sc->priority) &&
		!(sc->may_deactivate & DEACTIVATE_FILE) && !sc->no_cache_trim_mode;

	/*
	 * Global reclaim with so little file cache that it would thrash:
	 * lean on anon instead, if anon is not busy itself.
	 */
	if (root_reclaim(sc)) {
		struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];
		unsigned long free, anon;

		file = node_page_state(pgdat, NR_ACTIVE_FILE) +
		       node_page_state(pgdat, NR_INACTIVE_FILE);
		free = zone_page_state(zone, NR_FREE_PAGES);
		anon = node_page_state(pgdat, NR_INACTIVE_ANON);
		sc->file_is_tiny = file + free <= zone->_watermark[WMARK_HIGH] &&
			!(sc->may_deactivate & DEACTIVATE_ANON) &&
			(anon >> sc->priority);
	} else {
		sc->file_is_tiny = 0;
	}
}

/*
 * The anon share grows with swappiness and with the relative cost of
 * reclaiming file pages.  Each type's weight is its swappiness share
 * divided by its cost; adding the total cost to both keeps a cost from
 * shifting the balance by more than a factor of two.
 */
static void calculate_pressure_balance(struct scan_control *sc, int swappiness,
				       unsigned long *fraction, unsigned long *denominator)
{
	unsigned long anon_cost, file_cost, total_cost, ap, fp;

	total_cost = sc->anon_cost + sc->file_cost;
	anon_cost = total_cost + sc->anon_cost;
	file_cost = total_cost + sc->file_cost;
	total_cost = anon_cost + file_cost;

	ap = (unsigned long)swappiness * (total_cost + 1);
	ap /= anon_cost + 1;
	fp = (unsigned long)(MAX_SWAPPINESS - swappiness) * (total_cost + 1);
	fp /= file_cost + 1;

	fraction[WORKINGSET_ANON] = ap;
	fraction[WORKINGSET_FILE] = fp;
	*denominator = ap + fp;
}

void get_scan_count(struct lruvec *lruvec, struct scan_control *sc,
		    unsigned long *nr, enum scan_balance *mode)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	int swappiness = sc_swappiness(sc, memcg);
	unsigned long fraction[ANON_AND_FILE] = { 0, 0 };
	unsigned long denominator = 0;
	enum scan_balance scan_balance;
	enum lru_list lru;

	if (swappiness == SWAPPINESS_ANON_ONLY) {
		if (!can_reclaim_anon_pages(sc)) {
			for_each_evictable_lru(lru)
				nr[lru] = 0;
			if (mode)
				*mode = SCAN_ANON;
			return;
		}
		scan_balance = SCAN_ANON;
		goto out;
	}
	/* nowhere to put anon pages: file only */
	if (!sc->may_swap || !can_reclaim_anon_pages(sc)) {
		scan_balance = SCAN_FILE;
		goto out;
	}
	/* swappiness 0 in a cgroup means: never swap its anon */
	if (cgroup_reclaim(sc) && !swappiness) {
		scan_balance = SCAN_FILE;
		goto out;
	}
	/* the last priority: everything is fair game, equally */
	if (!sc->priority && swappiness) {
		scan_balance = SCAN_EQUAL;
		goto out;
	}
	if (sc->file_is_tiny) {
		scan_balance = SCAN_ANON;
		goto out;
	}
	if (sc->cache_trim_mode) {
		scan_balance = SCAN_FILE;
		goto out;
	}
	scan_balance = SCAN_FRACT;
	calculate_pressure_balance(sc, swappiness, fraction, &denominator);
out:
	if (mode)
		*mode = scan_balance;
	for_each_evictable_lru(lru) {
		bool file = is_file_lru(lru);
		unsigned long lruvec_size, scan;

		lruvec_size = lruvec_lru_size(lruvec, lru, sc->reclaim_idx);
		scan = lruvec_size >> sc->priority;
		/* a dead memcg's leftovers go even when they are few */
		if (!scan && !mem_cgroup_online(memcg))
			scan = min_t(unsigned long, lruvec_size, SWAP_CLUSTER_MAX);

		switch (scan_balance) {
		case SCAN_EQUAL:
			break;
		case SCAN_FRACT:
			if (!denominator) {
				scan = 0;
			} else if (mem_cgroup_online(memcg)) {
				scan = scan * fraction[file] / denominator;
			} else {
				scan = (scan * fraction[file] + denominator - 1) / denominator;
			}
			break;
		case SCAN_FILE:
		case SCAN_ANON:
			if ((scan_balance == SCAN_FILE) != file)
				scan = 0;
			break;
		}
		nr[lru] = scan;
	}
}
