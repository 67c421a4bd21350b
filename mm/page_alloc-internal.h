/* SPDX-License-Identifier: MIT */
/*
 * What mm/page_alloc.c and mm/mm_init.c share and nothing outside them
 * may use, as mm/internal.h is to the kernel's mm.  The lock order is in
 * mm/page_alloc.c's header.
 */
#ifndef LRULAB_MM_PAGE_ALLOC_INTERNAL_H
#define LRULAB_MM_PAGE_ALLOC_INTERNAL_H

#include <lrulab/mmzone.h>

/* mm_init.c: the CPU count the pcp arrays were sized for */
extern int pcp_nr_cpus;

/* CONFIG_PCP_BATCH_SCALE_MAX: a drain gives up the pcp lock this often. */
#define PCP_BATCH_SCALE_MAX 5

/* page_alloc_pcp.c: the pcp lists' size tuning, pcp->lock held */
int nr_pcp_alloc(struct per_cpu_pages *pcp, struct zone *zone, unsigned int order);
bool pcp_free_high(struct per_cpu_pages *pcp, unsigned int order);
int nr_pcp_high(struct per_cpu_pages *pcp, struct zone *zone, bool free_high);
int nr_pcp_free(const struct per_cpu_pages *pcp, int high, bool free_high);

static inline struct zone *node_zone(int nid)
{
	return &NODE_DATA(nid)->node_zones[ZONE_NORMAL];
}

/*
 * page_alloc.c's buddy-list primitive (zone->lock held), here rather
 * than exported so that the allocator's hot paths keep it inline; the
 * rules for the flags and ->private of a free page are with its
 * siblings there.
 */
static inline void add_to_free_list(struct folio *page, struct zone *zone,
				    unsigned int order, bool tail)
{
	struct free_area *area = &zone->free_area[order];

	page->private = order;
	__folio_set_buddy(page);
	if (tail)
		list_add_tail(&page->lru, &area->free_list);
	else
		list_add(&page->lru, &area->free_list);
	area->nr_free++;
}

#endif /* LRULAB_MM_PAGE_ALLOC_INTERNAL_H */
