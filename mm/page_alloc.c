// SPDX-License-Identifier: MIT
/*
 * The page allocator: a binary buddy allocator per zone under
 * zone->lock, and per-CPU page (pcp) lists in front of it so that the
 * common order-0 and small-order traffic takes zone->lock once per batch
 * instead of once per page; the allocation and free entry points, with
 * the drain, direct reclaim and kswapd wake-up of the allocation path,
 * and the watermark test.  The arena, nodes, zones, watermarks and pcp
 * sizes are set up in mm/mm_init.c.
 *
 * Free-page accounting follows the kernel: NR_FREE_PAGES counts pages on
 * the buddy lists only.  Pages that rmqueue_bulk() moves to a pcp list
 * leave NR_FREE_PAGES at that moment, and come back when
 * free_pcppages_bulk() returns them; zone_free_pages_exact() adds the
 * pcp lists back in for the "is every page accounted for" question.
 * Every NR_FREE_PAGES update happens with zone->lock held, at the same
 * points as the page moves.
 *
 * Lock order: pcp->lock, then zone->lock.  No one holds two pcp locks.
 * Direct reclaim and the kswapd wake-up are called with neither held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <lrulab/cpu.h>
#include <lrulab/gfp.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mmzone.h>
#include <lrulab/spinlock.h>
#include <lrulab/swap.h>
#include <lrulab/vmscan.h>
#include <lrulab/vmstat.h>

#include "page_alloc-internal.h"

_Static_assert(HPAGE_PMD_ORDER > PAGE_ALLOC_COSTLY_ORDER,
	       "the PMD order needs its own pcp list");
_Static_assert(HPAGE_PMD_ORDER <= MAX_PAGE_ORDER, "PMD order must be allocatable");

/* Flags that a free page keeps: where it lives. */
#define PAGE_NODEZONE_MASK (NODES_MASK | ZONES_MASK)

/*
 * The kernel's PAGE_FLAGS_CHECK_AT_FREE: any of these on a page being
 * freed means someone still thinks they own it or left it on a list.
 */
#define PAGE_FLAGS_CHECK_AT_FREE					\
	(BIT(PG_lru) | BIT(PG_locked) | BIT(PG_private) |		\
	 BIT(PG_private_2) | BIT(PG_writeback) | BIT(PG_reserved) |	\
	 BIT(PG_active) | BIT(PG_unevictable) | BIT(PG_mlocked) |	\
	 LRU_GEN_MASK)

/* ---- pcp list indexing: orders 0..PAGE_ALLOC_COSTLY_ORDER, then PMD ---- */

static inline bool pcp_allowed_order(unsigned int order)
{
	return order <= PAGE_ALLOC_COSTLY_ORDER || order == HPAGE_PMD_ORDER;
}

static inline int order_to_pindex(unsigned int order)
{
	return order <= PAGE_ALLOC_COSTLY_ORDER ? (int)order : NR_PCP_LISTS - 1;
}

static inline unsigned int pindex_to_order(int pindex)
{
	return pindex < NR_PCP_LISTS - 1 ? (unsigned int)pindex : HPAGE_PMD_ORDER;
}

/* The pcp of @zone for @cpu, or NULL when @cpu has none (not a model CPU). */
static inline struct per_cpu_pages *zone_pcp(struct zone *zone, int cpu)
{
	if (cpu < 0 || cpu >= pcp_nr_cpus)
		return NULL;
	return per_cpu_ptr(zone->per_cpu_pageset, cpu);
}

/* ---- bad pages ---- */

static void __attribute__((noreturn))
bad_page(const struct folio *folio, const char *reason)
{
	fprintf(stderr,
		"BUG: Bad page state in process %s pfn:%05lx flags:%#lx refcount:%d mapcount:%d mapping:%p memcg_data:%#lx page dumped because: %s\n",
		program_invocation_short_name, folio_pfn(folio),
		READ_ONCE(folio->flags), folio_ref_count(folio),
		atomic_read(&folio->_mapcount), (void *)folio->mapping,
		folio->memcg_data, reason);
	fflush(stderr);
	abort();
}

static const char *page_bad_reason(const struct folio *folio)
{
	unsigned long flags = READ_ONCE(folio->flags);

	if (atomic_read(&folio->_mapcount) != -1)
		return "nonzero mapcount";
	if (folio->mapping)
		return "non-NULL mapping";
	if (folio_ref_count(folio) != 0)
		return "nonzero _refcount";
	if (flags & BIT(PG_buddy))
		return "PG_buddy set (double free?)";
	if (flags & PAGE_FLAGS_CHECK_AT_FREE)
		return "PAGE_FLAGS_CHECK_AT_FREE flag(s) set";
	if (folio->memcg_data)
		return "page still charged to cgroup";
	return NULL;
}

/*
 * Check a folio on its way back and return every entry it covers to the
 * free-page state (flags = node/zone, counts zero, mapcount -1).  Done
 * before any lock is taken: the folio is still exclusively ours.
 */
static void free_pages_prepare(struct folio *folio, unsigned int order)
{
	unsigned long head = (unsigned long)folio | 1;
	unsigned long nr = 1UL << order;
	const char *reason;
	unsigned long i;

	if (order > MAX_PAGE_ORDER)
		bad_page(folio, "order above MAX_PAGE_ORDER");
	if (folio_pfn(folio) & (nr - 1))
		bad_page(folio, "pfn not aligned to the order");
	/* anon folios keep PAGE_MAPPING_ANON to the end; that is no bug */
	if ((unsigned long)folio->mapping & PAGE_MAPPING_ANON)
		folio->mapping = NULL;
	reason = page_bad_reason(folio);
	if (reason)
		bad_page(folio, reason);
	if (folio_test_head(folio) != (order > 0) ||
	    (order && folio_order(folio) != order))
		bad_page(folio, "order does not match the folio");

	if (order) {
		struct folio_tail1 *t1 = (struct folio_tail1 *)(folio + 1);

		if (atomic_read(&t1->_entire_mapcount) != -1)
			bad_page(folio, "nonzero entire_mapcount");
		if (atomic_read(&t1->_nr_pages_mapped) != 0)
			bad_page(folio, "nonzero nr_pages_mapped");
		if (!list_empty(&t1->_deferred_list))
			bad_page(folio, "on deferred list");
		for (i = 1; i < nr; i++) {
			struct folio *tail = folio + i;

			if (READ_ONCE(tail->compound_head) != head)
				bad_page(tail, "corrupted compound_head");
			/* tail1 carried large-folio fields over these */
			WRITE_ONCE(tail->flags, tail->flags & PAGE_NODEZONE_MASK);
			WRITE_ONCE(tail->compound_head, 0);
			tail->_tail_pad = 0;
			tail->mapping = NULL;
			tail->index = 0;
			tail->memcg_data = 0;
			atomic_set(&tail->_refcount, 0);
			atomic_set(&tail->_mapcount, -1);
			tail->private = 0;
		}
	}
	WRITE_ONCE(folio->flags, folio->flags & PAGE_NODEZONE_MASK);
	folio->index = 0;
	folio->private = 0;
}

/* ---- the buddy lists (zone->lock held) ---- */

/*
 * Another CPU may read a page's flags under zone->lock to see whether it
 * is a free buddy while the page's owner changes them, so every flags
 * store here is a WRITE_ONCE; ->private is only read once PG_buddy says
 * the page belongs to the free lists, and so to zone->lock.
 */
static inline bool page_is_buddy(const struct folio *page, unsigned int order)
{
	return folio_test_buddy(page) && page->private == order;
}

/* add_to_free_list() is in page_alloc-internal.h: mm_init.c seeds the lists */
static inline void del_page_from_free_list(struct folio *page, struct zone *zone,
					   unsigned int order)
{
	list_del(&page->lru);
	__folio_clear_buddy(page);
	page->private = 0;
	zone->free_area[order].nr_free--;
}

/*
 * Carve an order-@low block out of the order-@high block at @page: each
 * halving keeps the lower half and returns the upper half to the free
 * list one order down.
 */
static void expand(struct zone *zone, struct folio *page, unsigned int low,
		   unsigned int high)
{
	unsigned long size = 1UL << high;

	while (high > low) {
		high--;
		size >>= 1;
		add_to_free_list(page + size, zone, high, false);
	}
}

static struct folio *__rmqueue_smallest(struct zone *zone, unsigned int order)
{
	unsigned int o;

	for (o = order; o < NR_PAGE_ORDERS; o++) {
		struct free_area *area = &zone->free_area[o];
		struct folio *page;

		if (list_empty(&area->free_list))
			continue;
		page = list_first_entry(&area->free_list, struct folio, lru);
		del_page_from_free_list(page, zone, o);
		expand(zone, page, order, o);
		return page;
	}
	return NULL;
}

/*
 * Give back an order-@order block, merging with its buddy for as long as
 * the buddy is a whole free block of the same order.  Blocks never span
 * zones: every zone starts and ends on a MAX_PAGE_ORDER boundary.
 */
static void __free_one_page(struct folio *page, unsigned long pfn,
			    struct zone *zone, unsigned int order)
{
	bool to_tail = false;

	while (order < MAX_PAGE_ORDER) {
		unsigned long buddy_pfn = pfn ^ (1UL << order);
		struct folio *buddy = pfn_folio(buddy_pfn);

		if (!page_is_buddy(buddy, order))
			break;
		del_page_from_free_list(buddy, zone, order);
		pfn &= ~(1UL << order);
		order++;
	}
	/*
	 * If the block one order up that we would form with our still-busy
	 * buddy could itself merge further (its own buddy is free), keep
	 * this block at the tail: allocations take from the head, so it has
	 * a better chance to be here when the buddy comes back.
	 */
	if (order < MAX_PAGE_ORDER - 1) {
		unsigned long higher = pfn & ~(1UL << order);

		to_tail = page_is_buddy(pfn_folio(higher ^ (1UL << (order + 1))),
					order + 1);
	}
	add_to_free_list(pfn_folio(pfn), zone, order, to_tail);
}

static inline void account_freepages(struct zone *zone, long nr_pages)
{
	__mod_zone_page_state(zone, NR_FREE_PAGES, nr_pages);
}

/* Move up to @count order-@order blocks onto @list under one lock hold. */
static int rmqueue_bulk(struct zone *zone, unsigned int order, int count,
			struct list_head *list)
{
	int i;

	spin_lock_at(&zone->lock, LOCK_SITE("zone->lock"));
	for (i = 0; i < count; i++) {
		struct folio *page = __rmqueue_smallest(zone, order);

		if (!page)
			break;
		/* tail: the list is consumed from the head, lowest pfn first */
		list_add_tail(&page->lru, list);
	}
	if (i)
		account_freepages(zone, -((long)i << order));
	spin_unlock(&zone->lock);
	return i;
}

/*
 * Return @count pages from the pcp lists to the buddy, starting with list
 * @pindex and taking the others round-robin; each list gives up its
 * coldest (tail) entries.  A high-order block counts its 2^order pages,
 * so the last one can overshoot @count.  pcp->lock held.
 */
static void free_pcppages_bulk(struct zone *zone, int count,
			       struct per_cpu_pages *pcp, int pindex)
{
	long freed = 0;

	count = min_t(int, count, pcp->count);
	if (count <= 0)
		return;
	/* the loop below steps first: land on @pindex */
	pindex--;
	spin_lock_at(&zone->lock, LOCK_SITE("zone->lock"));
	while (count > 0) {
		struct list_head *list;
		unsigned int order;
		int nr_pages;

		/* pcp->count >= count > 0 keeps some list non-empty */
		do {
			if (++pindex >= NR_PCP_LISTS)
				pindex = 0;
			list = &pcp->lists[pindex];
		} while (list_empty(list));
		order = pindex_to_order(pindex);
		nr_pages = 1 << order;
		do {
			struct folio *page = list_last_entry(list, struct folio, lru);

			list_del(&page->lru);
			count -= nr_pages;
			pcp->count -= nr_pages;
			freed += nr_pages;
			__free_one_page(page, folio_pfn(page), zone, order);
		} while (count > 0 && !list_empty(list));
	}
	account_freepages(zone, freed);
	spin_unlock(&zone->lock);
}

static void free_one_page(struct zone *zone, struct folio *page, unsigned int order)
{
	spin_lock_at(&zone->lock, LOCK_SITE("zone->lock"));
	__free_one_page(page, folio_pfn(page), zone, order);
	account_freepages(zone, 1L << order);
	spin_unlock(&zone->lock);
}

/* ---- allocation ---- */

static struct folio *rmqueue_pcplist(struct zone *zone, struct per_cpu_pages *pcp,
				     unsigned int order, bool *refilled)
{
	struct list_head *list = &pcp->lists[order_to_pindex(order)];
	struct folio *page;

	spin_lock_at(&pcp->lock, LOCK_SITE("pcp->lock"));
	/* an allocation ends a run of frees: the next bulk free is smaller */
	pcp->free_count >>= 1;
	if (list_empty(list)) {
		int got = rmqueue_bulk(zone, order, nr_pcp_alloc(pcp, zone, order), list);

		*refilled = true;
		pcp->count += got << order;
		if (!got) {
			spin_unlock(&pcp->lock);
			return NULL;
		}
	}
	page = list_first_entry(list, struct folio, lru);
	list_del(&page->lru);
	pcp->count -= 1 << order;
	spin_unlock(&pcp->lock);
	return page;
}

static struct folio *rmqueue_buddy(struct zone *zone, unsigned int order)
{
	struct folio *page;

	spin_lock_at(&zone->lock, LOCK_SITE("zone->lock"));
	page = __rmqueue_smallest(zone, order);
	if (page)
		account_freepages(zone, -(1L << order));
	spin_unlock(&zone->lock);
	return page;
}

/*
 * *@refilled: the buddy lists were touched, so NR_FREE_PAGES moved and
 * is worth comparing with the watermarks; a pcp hit leaves it alone.
 */
static struct folio *rmqueue(struct zone *zone, unsigned int order, int cpu,
			     bool *refilled)
{
	struct per_cpu_pages *pcp = zone_pcp(zone, cpu);
	struct folio *page;

	if (pcp && pcp_allowed_order(order)) {
		page = rmqueue_pcplist(zone, pcp, order, refilled);
		if (page)
			return page;
	}
	/* as in the kernel, a failed pcp refill still tries the buddy once */
	*refilled = true;
	return rmqueue_buddy(zone, order);
}

/*
 * The zonelist of @preferred: itself, then the other nodes in order.
 * All node distances are equal in the model, so there is nothing to
 * sort them by.
 */
static struct folio *get_page_from_freelist(unsigned int order, int preferred, int cpu)
{
	int i;

	for (i = 0; i < nr_node_ids; i++) {
		int nid = (preferred + i) % nr_node_ids;
		bool refilled = false;
		struct folio *page = rmqueue(node_zone(nid), order, cpu, &refilled);

		/*
		 * The kernel tests the watermark before it takes a page and
		 * wakes kswapd from the slow path once a zone fails it; the
		 * model takes the page first and looks only when the buddy
		 * was touched, so a pcp hit stays as cheap as before.  No
		 * lock is held here: kswapd's own lock nests under nothing.
		 */
		if (refilled) {
			struct zone *zone = node_zone(nid);

			/*
			 * The kernel notes here that free memory is under the
			 * high watermark, so that the pcp lists stop growing
			 * and shrink on frees.  Free pages only go down when
			 * the buddy gives some, so this sees every fall.
			 */
			if (!test_bit(ZONE_BELOW_HIGH, &zone->flags) &&
			    zone_below_wmark(zone, zone->_watermark[WMARK_HIGH]))
				set_bit(ZONE_BELOW_HIGH, &zone->flags);
			wakeup_kswapd(NODE_DATA(nid));
		}
		if (page)
			return page;
	}
	return NULL;
}

/*
 * PF_MEMALLOC: set while a thread reclaims (direct reclaim, kswapd), so
 * that an allocation made from inside reclaim never recurses into it.
 */
static __thread bool memalloc_noreclaim;

bool memalloc_noreclaim_save(void)
{
	bool old = memalloc_noreclaim;

	memalloc_noreclaim = true;
	return old;
}

void memalloc_noreclaim_restore(bool old)
{
	memalloc_noreclaim = old;
}

/*
 * Direct reclaim needs the memcg tree to walk and a model CPU whose LRU
 * batches it drains; a system of page_alloc alone (its unit tests) has
 * neither and fails allocations as it always did.
 */
static bool can_direct_reclaim(int cpu)
{
	return cpu >= 0 && !memalloc_noreclaim && READ_ONCE(root_mem_cgroup);
}

bool zone_below_wmark(struct zone *zone, unsigned long mark)
{
	unsigned long free = zone_page_state(zone, NR_FREE_PAGES);
	unsigned long drift = 0;

	/*
	 * The cheap read lags by up to one threshold per CPU; near the
	 * mark that is enough to hide a breach, so there pay for the exact
	 * sum (the kernel's percpu_drift_mark and zone_watermark_ok_safe).
	 */
	if (zone->per_cpu_zonestats)
		drift = (unsigned long)pcp_nr_cpus *
			READ_ONCE(per_cpu_ptr(zone->per_cpu_zonestats, 0)->stat_threshold);
	if (free >= mark + drift)
		return false;
	if (drift)
		free = zone_page_state_snapshot(zone, NR_FREE_PAGES);
	return free < mark;
}

/* Turn a block fresh off a free list into a folio (kernel: prep_new_page). */
static void prep_new_folio(struct folio *page, unsigned int order)
{
	unsigned long flags = READ_ONCE(page->flags) & PAGE_NODEZONE_MASK;

	page->mapping = NULL;
	page->index = 0;
	page->memcg_data = 0;
	page->private = 0;
	atomic_set(&page->_mapcount, -1);
	if (order) {
		struct folio_tail1 *t1 = (struct folio_tail1 *)(page + 1);
		unsigned long head = (unsigned long)page | 1;
		unsigned long i, nr = 1UL << order;

		for (i = 1; i < nr; i++)
			WRITE_ONCE(page[i].compound_head, head);
		t1->_folio_order = (unsigned char)order;
		INIT_LIST_HEAD(&t1->_deferred_list);
		/* kernel convention: -1 means not mapped by a PMD */
		atomic_set(&t1->_entire_mapcount, -1);
		atomic_set(&t1->_nr_pages_mapped, 0);
		flags |= BIT(PG_head);
	}
	WRITE_ONCE(page->flags, flags);
	atomic_set(&page->_refcount, 1);
}

struct folio *folio_alloc(unsigned int order, int nid)
{
	int cpu = smp_processor_id();
	struct folio *page;

	if (order > MAX_PAGE_ORDER || nid >= nr_node_ids || nr_node_ids <= 0)
		return NULL;
	if (nid < 0)
		nid = cpu_to_node(cpu);
	page = get_page_from_freelist(order, nid, cpu);
	if (unlikely(!page)) {
		/*
		 * The kernel's slow path drains every CPU's pcp lists before
		 * it declares the allocation failed: free pages parked there
		 * are free, and order-0 pages held back may be what stops a
		 * larger block from merging.
		 */
		drain_all_pages();
		page = get_page_from_freelist(order, nid, cpu);
	}
	if (unlikely(!page) && can_direct_reclaim(cpu)) {
		bool old = memalloc_noreclaim_save();

		/*
		 * No zone or pcp lock is held here: reclaim takes lru_lock,
		 * frees through the pcp lists and may swap.  What it frees
		 * lands on this CPU's pcp lists, so the first retry usually
		 * finds it; a larger order may need the order-0 pages it
		 * freed drained back to the buddy to merge.
		 */
		try_to_free_pages(1UL << order);
		memalloc_noreclaim_restore(old);
		page = get_page_from_freelist(order, nid, cpu);
		if (!page) {
			drain_all_pages();
			page = get_page_from_freelist(order, nid, cpu);
		}
	}
	if (unlikely(!page))
		return NULL;
	prep_new_folio(page, order);
	__count_vm_events(PGALLOC_NORMAL, 1L << order);
	return page;
}

/* ---- freeing ---- */

/*
 * Put a freed block on its pcp list, then give back to the buddy what
 * the tuning (page_alloc_pcp.c) says is over high, a batch per
 * zone->lock hold with pcp->lock dropped in between so that a long
 * drain does not hold off a remote drainer.  pcp->lock held (kernel:
 * free_frozen_page_commit).
 */
static void free_unref_page_commit(struct zone *zone, struct per_cpu_pages *pcp,
				   struct folio *page, unsigned int order)
{
	int pindex = order_to_pindex(order);
	bool free_high;
	int high, to_free;

	/* head: the hottest page is the next one handed out */
	list_add(&page->lru, &pcp->lists[pindex]);
	pcp->count += 1 << order;
	free_high = pcp_free_high(pcp, order);
	high = nr_pcp_high(pcp, zone, free_high);
	if (pcp->count < high)
		return;
	to_free = nr_pcp_free(pcp, high, free_high);
	while (to_free > 0 && pcp->count > 0) {
		int n = min_t(int, to_free, pcp->batch);

		free_pcppages_bulk(zone, n, pcp, pindex);
		to_free -= n;
		if (to_free <= 0 || !pcp->count)
			break;
		spin_unlock(&pcp->lock);
		spin_lock_at(&pcp->lock, LOCK_SITE("pcp->lock"));
	}
	if (test_bit(ZONE_BELOW_HIGH, &zone->flags) &&
	    !zone_below_wmark(zone, zone->_watermark[WMARK_HIGH]))
		clear_bit(ZONE_BELOW_HIGH, &zone->flags);
}

void free_frozen_pages(struct folio *folio, unsigned int order)
{
	struct zone *zone = folio_zone(folio);
	struct per_cpu_pages *pcp;

	free_pages_prepare(folio, order);
	pcp = zone_pcp(zone, smp_processor_id());
	if (pcp && pcp_allowed_order(order)) {
		spin_lock_at(&pcp->lock, LOCK_SITE("pcp->lock"));
		free_unref_page_commit(zone, pcp, folio, order);
		spin_unlock(&pcp->lock);
	} else {
		free_one_page(zone, folio, order);
	}
	__count_vm_events(PGFREE, 1L << order);
}

void free_unref_folios(struct folio_batch *folios)
{
	unsigned char orders[FOLIO_BATCH_SIZE];
	struct per_cpu_pages *pcp = NULL;
	struct zone *locked_zone = NULL;
	int cpu = smp_processor_id();
	unsigned int i, j;
	long nr_pages = 0;

	/*
	 * Check everything first, outside any lock; orders the pcp cannot
	 * hold, and every folio of a thread that is not a model CPU, go
	 * straight to the buddy.  The rest is compacted to the front.
	 */
	for (i = 0, j = 0; i < folio_batch_count(folios); i++) {
		struct folio *folio = folios->folios[i];
		unsigned int order = folio_order(folio);

		free_pages_prepare(folio, order);
		nr_pages += 1L << order;
		if (!pcp_allowed_order(order) || !zone_pcp(folio_zone(folio), cpu)) {
			free_one_page(folio_zone(folio), folio, order);
			continue;
		}
		orders[j] = (unsigned char)order;
		folios->folios[j++] = folio;
	}

	/* one pcp lock hold per run of folios from the same zone */
	for (i = 0; i < j; i++) {
		struct folio *folio = folios->folios[i];
		struct zone *zone = folio_zone(folio);

		if (zone != locked_zone) {
			if (pcp)
				spin_unlock(&pcp->lock);
			pcp = zone_pcp(zone, cpu);
			spin_lock_at(&pcp->lock, LOCK_SITE("pcp->lock"));
			locked_zone = zone;
		}
		free_unref_page_commit(zone, pcp, folio, orders[i]);
	}
	if (pcp)
		spin_unlock(&pcp->lock);
	if (nr_pages)
		__count_vm_events(PGFREE, nr_pages);
	folio_batch_reinit(folios);
}

/* ---- draining ---- */

/*
 * Empty one CPU's pcp of @zone.  The lock is dropped every
 * batch << PCP_BATCH_SCALE_MAX pages so that a big list does not hold
 * off its owner for the whole drain.  Safe for a remote CPU: its owner
 * takes the same lock.
 */
static void drain_pages_zone(int cpu, struct zone *zone)
{
	struct per_cpu_pages *pcp = zone_pcp(zone, cpu);
	int count;

	if (!pcp)
		return;
	do {
		spin_lock_at(&pcp->lock, LOCK_SITE("pcp->lock"));
		count = pcp->count;
		if (count) {
			int to_drain = min_t(int, count,
					     pcp->batch << PCP_BATCH_SCALE_MAX);

			free_pcppages_bulk(zone, to_drain, pcp, 0);
			count -= to_drain;
		}
		spin_unlock(&pcp->lock);
	} while (count > 0);
}

static void drain_pages(int cpu)
{
	int nid;

	for_each_node(nid)
		drain_pages_zone(cpu, node_zone(nid));
}

void drain_local_pages(void)
{
	int cpu = smp_processor_id();

	if (cpu >= 0)
		drain_pages(cpu);
}

void drain_all_pages(void)
{
	int cpu;

	for (cpu = 0; cpu < pcp_nr_cpus; cpu++)
		drain_pages(cpu);
}

/* ---- queries ---- */

unsigned long zone_buddy_free_pages(struct zone *zone)
{
	unsigned long nr = 0;
	unsigned int order;

	spin_lock_at(&zone->lock, LOCK_SITE("zone->lock"));
	for (order = 0; order < NR_PAGE_ORDERS; order++)
		nr += zone->free_area[order].nr_free << order;
	spin_unlock(&zone->lock);
	return nr;
}

unsigned long zone_free_pages_exact(struct zone *zone)
{
	unsigned long nr = 0;
	int cpu;

	for (cpu = 0; cpu < pcp_nr_cpus; cpu++) {
		struct per_cpu_pages *pcp = zone_pcp(zone, cpu);

		spin_lock_at(&pcp->lock, LOCK_SITE("pcp->lock"));
		nr += pcp->count;
		spin_unlock(&pcp->lock);
	}
	return nr + zone_buddy_free_pages(zone);
}
