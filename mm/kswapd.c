// SPDX-License-Identifier: MIT
/*
 * kswapd (the kernel's, in mm/vmscan.c): one background reclaim thread
 * per node, woken by the allocator below the low watermark, reclaiming
 * every memcg of its node until the high watermark is met.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include <lrulab/gfp.h>
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
 * is a kthread; here it is a thread that runs as a model CPU of its own,
 * which the caller of kswapd_run() sets aside, because reclaim drains
 * the running CPU's LRU batches.
 * ---------------------------------------------------------------------
 */
struct kswapd_state {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wait;
	bool running;
	bool wake;
	bool stop;
	bool busy;
	int cpu;
	int nid;
	unsigned long nr_wakeups;	/* under lock */
};

/*
 * The lock and condvar live as long as the process: an allocator may
 * read ->running just before kswapd_stop() and still take the lock.
 */
static struct kswapd_state kswapd_states[MAX_NUMNODES] = {
	[0 ... MAX_NUMNODES - 1] = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.wait = PTHREAD_COND_INITIALIZER,
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

	if (!can_reclaim_anon_pages(sc))
		return;
	memcg = mem_cgroup_iter(NULL, NULL);
	do {
		struct lruvec *lruvec = mem_cgroup_lruvec(memcg, pgdat);

		if (inactive_is_low(lruvec, LRU_INACTIVE_ANON))
			shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc, LRU_ACTIVE_ANON);
	} while ((memcg = mem_cgroup_iter(NULL, memcg)));
}

static void balance_pgdat(struct pglist_data *pgdat)
{
	struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];
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
	do {
		unsigned long nr_reclaimed = sc.nr_reclaimed;

		if (pgdat_balanced(pgdat))
			break;
		sc.nr_to_reclaim = max_t(unsigned long, zone->_watermark[WMARK_HIGH],
					 SWAP_CLUSTER_MAX);
		kswapd_age_node(pgdat, &sc);
		shrink_node(pgdat, &sc);
		/* only a pass without progress raises the pressure */
		if (sc.nr_reclaimed == nr_reclaimed)
			sc.priority--;
	} while (sc.priority >= 1);
	snapshot_refaults(NULL, pgdat);
}

static void *kswapd(void *arg)
{
	struct kswapd_state *ks = arg;
	struct pglist_data *pgdat = NODE_DATA(ks->nid);

	if (cpu_enter(ks->cpu, false)) {
		fprintf(stderr, "lrulab: kswapd%d: model CPU %d is not free\n", ks->nid, ks->cpu);
		return NULL;
	}
	in_kswapd = true;
	/* kswapd's own allocations must not recurse into direct reclaim */
	memalloc_noreclaim_save();
	pthread_mutex_lock(&ks->lock);
	for (;;) {
		while (!ks->wake && !ks->stop)
			pthread_cond_wait(&ks->wait, &ks->lock);
		if (ks->stop)
			break;
		ks->wake = false;
		ks->busy = true;
		pthread_mutex_unlock(&ks->lock);
		balance_pgdat(pgdat);
		pthread_mutex_lock(&ks->lock);
		ks->busy = false;
		pthread_cond_broadcast(&ks->wait);
	}
	pthread_mutex_unlock(&ks->lock);
	memalloc_noreclaim_restore(false);
	in_kswapd = false;
	cpu_exit();
	return NULL;
}

int kswapd_run(int nid, int cpu)
{
	struct kswapd_state *ks;

	if (nid < 0 || nid >= nr_node_ids || cpu < 0 || cpu >= nr_cpu_ids)
		return -EINVAL;
	ks = &kswapd_states[nid];
	if (READ_ONCE(ks->running))
		return -EBUSY;
	pthread_mutex_lock(&ks->lock);
	ks->wake = ks->stop = ks->busy = false;
	ks->cpu = cpu;
	ks->nid = nid;
	ks->nr_wakeups = 0;
	pthread_mutex_unlock(&ks->lock);
	if (pthread_create(&ks->thread, NULL, kswapd, ks))
		return -EAGAIN;
	WRITE_ONCE(ks->running, true);
	return 0;
}

void kswapd_stop(int nid)
{
	struct kswapd_state *ks = &kswapd_states[nid];

	if (nid < 0 || nid >= MAX_NUMNODES || !READ_ONCE(ks->running))
		return;
	pthread_mutex_lock(&ks->lock);
	ks->stop = true;
	pthread_cond_broadcast(&ks->wait);
	pthread_mutex_unlock(&ks->lock);
	pthread_join(ks->thread, NULL);
	WRITE_ONCE(ks->running, false);
}

void wakeup_kswapd(struct pglist_data *pgdat)
{
	struct kswapd_state *ks = &kswapd_states[pgdat->node_id];
	struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];

	/* first the test that costs nothing when no kswapd runs */
	if (!READ_ONCE(ks->running))
		return;
	if (!zone_below_wmark(zone, zone->_watermark[WMARK_LOW]))
		return;
	pthread_mutex_lock(&ks->lock);
	/* a wakeup already pending covers this one too */
	if (!ks->wake && !ks->stop) {
		ks->wake = true;
		ks->nr_wakeups++;
		pthread_cond_signal(&ks->wait);
	}
	pthread_mutex_unlock(&ks->lock);
}

unsigned long kswapd_nr_wakeups(int nid)
{
	struct kswapd_state *ks;
	unsigned long nr;

	if (nid < 0 || nid >= MAX_NUMNODES)
		return 0;
	ks = &kswapd_states[nid];
	pthread_mutex_lock(&ks->lock);
	nr = ks->nr_wakeups;
	pthread_mutex_unlock(&ks->lock);
	return nr;
}

void kswapd_wait_idle(int nid)
{
	struct kswapd_state *ks = &kswapd_states[nid];

	if (nid < 0 || nid >= MAX_NUMNODES || !READ_ONCE(ks->running))
		return;
	pthread_mutex_lock(&ks->lock);
	while (ks->wake || ks->busy)
		pthread_cond_wait(&ks->wait, &ks->lock);
	pthread_mutex_unlock(&ks->lock);
}
