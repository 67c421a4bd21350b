// SPDX-License-Identifier: MIT
/*
 * Throttling reclaimers (the kernel's reclaim_throttle() and
 * too_many_isolated() in mm/vmscan.c).  Of the kernel's four reasons
 * only VMSCAN_THROTTLE_ISOLATED is modelled: direct reclaimers that find
 * more pages isolated from a node's inactive list than an eighth of what
 * is left on it wait, up to HZ/50, for one of those ahead of them to put
 * its pages back.  The writeback, congestion and no-progress throttles
 * need the dirty and congestion state the model does not keep.
 *
 * Each node's wait queue is a mutex and a condition variable; as with
 * waitqueue_active(), a waker looks at the number of waiters without
 * the mutex first, and a wakeup that races with a waiter's arrival is
 * lost to the timeout, as in the kernel.  The kernel counts throttles
 * only in a tracepoint (mm_vmscan_throttled); here each node counts
 * them and the time spent asleep.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "vmscan-internal.h"

/* HZ/50: a short wait, since isolation passes quickly */
#define THROTTLE_ISOLATED_NS	20000000L

static struct reclaim_wait {
	pthread_mutex_t lock;
	pthread_cond_t wait;
	int nr_waiters;			/* changed under lock, peeked without */
	atomic_long_t nr_throttled;
	atomic_long_t ns_throttled;
} reclaim_wait[MAX_NUMNODES][NR_VMSCAN_THROTTLE] = {
	[0 ... MAX_NUMNODES - 1] = {
		[0 ... NR_VMSCAN_THROTTLE - 1] = {
			.lock = PTHREAD_MUTEX_INITIALIZER,
			.wait = PTHREAD_COND_INITIALIZER,
		},
	},
};

static u64 throttle_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

void reclaim_throttle(struct pglist_data *pgdat, enum vmscan_throttle_state reason)
{
	struct reclaim_wait *rw = &reclaim_wait[pgdat->node_id][reason];
	struct timespec deadline;
	u64 t0 = throttle_now();

	/* the condition variable's clock is CLOCK_REALTIME */
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += THROTTLE_ISOLATED_NS;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	atomic_long_inc(&rw->nr_throttled);
	pthread_mutex_lock(&rw->lock);
	__atomic_store_n(&rw->nr_waiters, rw->nr_waiters + 1, __ATOMIC_SEQ_CST);
	/* one wait, as schedule_timeout(): a wakeup or the timeout ends it */
	cpu_sleep_begin();
	pthread_cond_timedwait(&rw->wait, &rw->lock, &deadline);
	cpu_sleep_end();
	__atomic_store_n(&rw->nr_waiters, rw->nr_waiters - 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rw->lock);
	atomic_long_add((long)(throttle_now() - t0), &rw->ns_throttled);
}

static void wake_throttle_isolated(struct pglist_data *pgdat)
{
	struct reclaim_wait *rw = &reclaim_wait[pgdat->node_id][VMSCAN_THROTTLE_ISOLATED];

	if (!__atomic_load_n(&rw->nr_waiters, __ATOMIC_SEQ_CST))
		return;
	pthread_mutex_lock(&rw->lock);
	pthread_cond_broadcast(&rw->wait);
	pthread_mutex_unlock(&rw->lock);
}

/*
 * Isolated pages sit on no list: with many direct reclaimers each
 * holding a batch, the lists shrink and are scanned faster than they
 * should be.  kswapd is never throttled here.  The kernel also exempts
 * cgroup v1 reclaim (no sane writeback throttling); the model is cgroup
 * v2, where memcg reclaim is throttled like global reclaim.  Every
 * reclaimer of the model allocates as GFP_KERNEL, may do IO and enter
 * the filesystem, and so gets the tighter limit that leaves GFP_NOIO and
 * GFP_NOFS reclaimers room to get past it.
 */
bool too_many_isolated(struct pglist_data *pgdat, int file, struct scan_control *sc)
{
	unsigned long inactive, isolated;
	bool too_many;

	if (current_is_kswapd())
		return false;
	inactive = node_page_state(pgdat, file ? NR_INACTIVE_FILE : NR_INACTIVE_ANON);
	isolated = node_page_state(pgdat, file ? NR_ISOLATED_FILE : NR_ISOLATED_ANON);
	inactive >>= 3;
	too_many = isolated > inactive;
	/* below the limit: let those waiting for it go */
	if (!too_many)
		wake_throttle_isolated(pgdat);
	return too_many;
}

void reclaim_throttle_stats(int nid, enum vmscan_throttle_state reason,
			    unsigned long *nr, u64 *ns)
{
	struct reclaim_wait *rw = &reclaim_wait[nid][reason];

	*nr = (unsigned long)atomic_long_read(&rw->nr_throttled);
	*ns = (u64)atomic_long_read(&rw->ns_throttled);
}

void reclaim_throttle_reset(void)
{
	int nid, r;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		for (r = 0; r < NR_VMSCAN_THROTTLE; r++) {
			atomic_long_set(&reclaim_wait[nid][r].nr_throttled, 0);
			atomic_long_set(&reclaim_wait[nid][r].ns_throttled, 0);
		}
}
