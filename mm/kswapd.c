// SPDX-License-Identifier: MIT
/*
 * kswapd (the kernel's, in mm/vmscan.c): one background reclaim thread
 * per node, woken by the allocator below the low watermark, reclaiming
 * every memcg of its node until the high watermark is met.
 */
#include <errno.h>

#include <lrulab/gfp.h>
#include <lrulab/kthread.h>
#include <lrulab/mglru.h>
#include <lrulab/vmstat.h>

#include "vmscan-internal.h"

__thread bool in_kswapd;

/*
 * ---------------------------------------------------------------------
 * kswapd: background reclaim per node
 *
 * Woken when an allocation finds a zone's free pages below the low
 * watermark, it reclaims (globally, every memcg of the node) until they
 * are back above the high watermark, then sleeps.  The kernel's kswapd
 * is a kthread; here it is a lrulab_kthread (lib/kthread.c), a thread
 * that runs as a model CPU of its own, which the caller of kswapd_run()
 * sets aside, because reclaim drains the running CPU's LRU batches.
 * ---------------------------------------------------------------------
 */
struct kswapd_state {
	struct lrulab_kthread kt;
	int nid;
};

static void kswapd_enter(struct lrulab_kthread *kt);
static void kswapd_leave(struct lrulab_kthread *kt);
static void kswapd_work(struct lrulab_kthread *kt);

static struct kswapd_state kswapd_states[MAX_NUMNODES] = {
	[0 ... MAX_NUMNODES - 1] = {
		.kt = LRULAB_KTHREAD_INIT("kswapd", kswapd_work, kswapd_enter, kswapd_leave),
	},
};

static bool pgdat_balanced(struct pglist_data *pgdat)
{
	struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];

	return !zone_below_wmark(zone, zone->_watermark[WMARK_HIGH]);
}

/* Keep enough inactive anon for the next pass, in every memcg of the node. */
static void kswapd_age_node(struct pglist_data *pgdat, struct scan_control *sc)
{
	struct mem_cgroup *memcg;

	/* MGLRU ages on demand; here it only checks min_ttl_ms */
	if (lru_gen_enabled()) {
		lru_gen_age_node(pgdat, sc);
		return;
	}
	if (!can_reclaim_anon_pages(sc))
		return;
	memcg = mem_cgroup_iter(NULL, NULL);
	do {
		struct lruvec *lruvec = mem_cgroup_lruvec(memcg, pgdat);

		if (inactive_is_low(lruvec, LRU_INACTIVE_ANON))
			shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc, LRU_ACTIVE_ANON);
	} while ((memcg = mem_cgroup_iter(NULL, memcg)));
}

/*
 * One pass over the node: reclaim the high watermark's worth (at least
 * a batch).  True when the pass scanned that much, or reclaimed it (the
 * kernel also counts pages freed outside the LRU): then the priority
 * need not rise, since the watermark would be met at full efficiency.
 */
static bool kswapd_shrink_node(struct pglist_data *pgdat, struct scan_control *sc)
{
	struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];
	unsigned long nr_reclaimed = sc->nr_reclaimed;

	sc->nr_to_reclaim = max_t(unsigned long, zone->_watermark[WMARK_HIGH],
				  SWAP_CLUSTER_MAX);
	shrink_node(pgdat, sc);
	return max_t(unsigned long, sc->nr_scanned, sc->nr_reclaimed - nr_reclaimed) >=
	       sc->nr_to_reclaim;
}

/*
 * Reclaim until the node is balanced, scanning harder (a lower
 * priority, so a larger share of each list) after a pass that scanned
 * too little to meet the watermark, or that freed nothing.
 */
static void balance_pgdat(struct pglist_data *pgdat)
{
	struct scan_control sc = {
		.reclaim_idx = MAX_NR_ZONES - 1,
		.priority = DEF_PRIORITY,
		.may_writepage = 1,
		.may_unmap = 1,
		.may_swap = 1,
		.is_kswapd = 1,
		.memcg_full_walk = 1,
	};

	count_vm_event(PAGEOUTRUN);
	/* meanwhile the pcp lists give back what they hold over high_min */
	set_bit(ZONE_RECLAIM_ACTIVE, &pgdat->node_zones[ZONE_NORMAL].flags);
	do {
		unsigned long nr_reclaimed = sc.nr_reclaimed;
		bool raise_priority = true;

		if (pgdat_balanced(pgdat))
			break;
		kswapd_age_node(pgdat, &sc);
		sc.nr_scanned = 0;
		if (kswapd_shrink_node(pgdat, &sc))
			raise_priority = false;
		if (raise_priority || sc.nr_reclaimed == nr_reclaimed)
			sc.priority--;
	} while (sc.priority >= 1);
	clear_bit(ZONE_RECLAIM_ACTIVE, &pgdat->node_zones[ZONE_NORMAL].flags);
	snapshot_refaults(NULL, pgdat);
}

static void kswapd_work(struct lrulab_kthread *kt)
{
	balance_pgdat(NODE_DATA(container_of(kt, struct kswapd_state, kt)->nid));
}

static void kswapd_enter(struct lrulab_kthread *kt)
{
	in_kswapd = true;
	/* kswapd's own allocations must not recurse into direct reclaim */
	memalloc_noreclaim_save();
}

static void kswapd_leave(struct lrulab_kthread *kt)
{
	memalloc_noreclaim_restore(false);
	in_kswapd = false;
}

int kswapd_run(int nid, int cpu)
{
	if (nid < 0 || nid >= nr_node_ids || cpu < 0 || cpu >= nr_cpu_ids)
		return -EINVAL;
	kswapd_states[nid].nid = nid;
	return kthread_run_on(&kswapd_states[nid].kt, cpu);
}

void kswapd_stop(int nid)
{
	if (nid >= 0 && nid < MAX_NUMNODES)
		kthread_stop(&kswapd_states[nid].kt);
}

void wakeup_kswapd(struct pglist_data *pgdat)
{
	struct lrulab_kthread *kt = &kswapd_states[pgdat->node_id].kt;
	struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];

	/* first the test that costs nothing when no kswapd runs */
	if (!kthread_running(kt))
		return;
	if (zone_below_wmark(zone, zone->_watermark[WMARK_LOW]))
		kthread_wake(kt);
}

unsigned long kswapd_nr_wakeups(int nid)
{
	if (nid < 0 || nid >= MAX_NUMNODES)
		return 0;
	return kthread_nr_wakeups(&kswapd_states[nid].kt);
}

void kswapd_wait_idle(int nid)
{
	if (nid >= 0 && nid < MAX_NUMNODES)
		kthread_wait_idle(&kswapd_states[nid].kt);
}
