// SPDX-License-Identifier: MIT
/*
 * How big the per-CPU page lists may grow, and how much moves between
 * them and the buddy at a time: the auto-tuning the kernel has had since
 * 6.7 (its nr_pcp_alloc, nr_pcp_high and nr_pcp_free, and the free_high
 * test of free_frozen_page_commit).  pcp->high moves between high_min
 * (the zone's low watermark split among the node's CPUs, the old static
 * high) and high_max (an eighth of the zone, split the same way):
 *
 *  - every refill from the buddy raises it by the refill's batch, so a
 *    CPU that allocates what it frees soon holds its whole working set
 *    and stops taking zone->lock at all;
 *  - a free that finds the list at high raises it to what the run of
 *    frees since the last allocation needs (free_count plus a batch);
 *  - a long run of order 1-3 frees with no allocation between them
 *    (free_high) empties the list instead, as those pages fragment
 *    memory if held, and lowers high by the most a drain gives back;
 *  - free memory under the high watermark (ZONE_BELOW_HIGH) or kswapd
 *    at work (ZONE_RECLAIM_ACTIVE) shrink high back toward high_min.
 *
 * Order-0 refills grow too: each refill without a free in between
 * doubles the next one (alloc_factor), up to batch << 5, a free halves
 * it again.  free_count counts the pages freed since the allocations
 * (halved by each allocation) and sizes the bulk frees.
 *
 * The kernel also lowers high by an eighth each second from its vmstat
 * work; the model has no periodic vmstat work, so high only comes down
 * by the rules above.  All of this runs under pcp->lock.
 */
#include <lrulab/mmzone.h>

#include "page_alloc-internal.h"

static int pcp_clamp_high(struct per_cpu_pages *pcp)
{
	pcp->high = min_t(int, max_t(int, pcp->high, pcp->high_min), pcp->high_max);
	return pcp->high;
}

int nr_pcp_alloc(struct per_cpu_pages *pcp, struct zone *zone, unsigned int order)
{
	int base_batch = pcp->batch;
	int high = pcp_clamp_high(pcp);
	int batch;

	/* a list that cannot hold a batch takes one page at a time */
	if (high < base_batch)
		return 1;
	batch = order ? base_batch : base_batch << pcp->alloc_factor;
	/* a larger high would have kept this refill off zone->lock */
	if (pcp->high_min != pcp->high_max && !test_bit(ZONE_BELOW_HIGH, &zone->flags))
		high = pcp->high = min_t(int, high + batch, pcp->high_max);
	if (!order) {
		int room = max_t(int, high - pcp->count - base_batch, base_batch);

		if (batch <= room && pcp->alloc_factor < PCP_BATCH_SCALE_MAX)
			pcp->alloc_factor++;
		batch = min_t(int, batch, room);
	}
	/* higher orders count in blocks, but at least two are worth a list */
	if (batch > 1)
		batch = max_t(int, batch >> order, 2);
	return batch;
}

bool pcp_free_high(struct per_cpu_pages *pcp, unsigned int order)
{
	int batch = pcp->batch;
	bool free_high = false;

	pcp->alloc_factor >>= 1;
	if (order && order <= PAGE_ALLOC_COSTLY_ORDER) {
		free_high = pcp->free_count >= batch + pcp->high_min / 2 &&
			    (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) &&
			    (!(pcp->flags & PCPF_FREE_HIGH_BATCH) || pcp->count >= batch);
		pcp->flags |= PCPF_PREV_FREE_HIGH_ORDER;
	} else {
		pcp->flags &= ~PCPF_PREV_FREE_HIGH_ORDER;
	}
	if (pcp->free_count < (batch << PCP_BATCH_SCALE_MAX))
		pcp->free_count += 1 << order;
	return free_high;
}

int nr_pcp_high(struct per_cpu_pages *pcp, struct zone *zone, bool free_high)
{
	int batch = pcp->batch;
	int high = pcp_clamp_high(pcp);

	if (!high)
		return 0;
	if (free_high) {
		pcp->high = max_t(int, high - (batch << PCP_BATCH_SCALE_MAX), pcp->high_min);
		return 0;
	}
	if (test_bit(ZONE_RECLAIM_ACTIVE, &zone->flags)) {
		pcp->high = max_t(int, high - max_t(int, pcp->free_count, batch), pcp->high_min);
		return min_t(int, batch << 2, pcp->high);
	}
	if (pcp->high_min == pcp->high_max)
		return high;
	if (test_bit(ZONE_BELOW_HIGH, &zone->flags)) {
		pcp->high = max_t(int, high - max_t(int, pcp->free_count, batch), pcp->high_min);
		return max_t(int, pcp->count, pcp->high_min);
	}
	if (pcp->count >= high && pcp->high < pcp->free_count + batch)
		pcp->high = min_t(int, max_t(int, pcp->free_count + batch, pcp->high_min),
				  pcp->high_max);
	return high;
}

int nr_pcp_free(const struct per_cpu_pages *pcp, int high, bool free_high)
{
	int batch = pcp->batch;

	if (free_high)
		return min_t(int, pcp->count, batch << PCP_BATCH_SCALE_MAX);
	if (high < batch)
		return 1;
	/* a long run of frees goes back in one go; a batch always stays */
	return min_t(int, max_t(int, pcp->free_count, batch), high - batch);
}
