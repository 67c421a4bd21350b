/* SPDX-License-Identifier: MIT */
/*
 * The page allocator (mm/page_alloc.c): one real memory arena for every
 * node, a struct folio array beside it, buddy free lists per order under
 * zone->lock, and per-CPU page lists refilled and drained in batches.
 */
#ifndef LRULAB_GFP_H
#define LRULAB_GFP_H

#include <lrulab/mmzone.h>

extern struct folio *mem_map;	/* one entry per pfn, all nodes */
extern char *mem_arena;		/* PAGE_SIZE bytes per pfn */
extern unsigned long max_pfn;

static inline struct folio *pfn_folio(unsigned long pfn)
{
	return &mem_map[pfn];
}
static inline unsigned long folio_pfn(const struct folio *folio)
{
	return (unsigned long)(folio - mem_map);
}
static inline void *folio_address(const struct folio *folio)
{
	return mem_arena + (folio_pfn(folio) << PAGE_SHIFT);
}

/* @node_pages must be a multiple of 1 << MAX_PAGE_ORDER. */
int page_alloc_init(int nr_nodes, unsigned long node_pages);
void page_alloc_exit(void);

/*
 * Allocate a folio of 2^order pages on node @nid (or the calling CPU's
 * home node when @nid < 0, falling back to other nodes).  Returns it
 * with refcount 1, mapcount -1, flags holding only its node and zone
 * (and PG_head for order > 0), memory not zeroed; NULL when no node has
 * a free block of that order.
 */
struct folio *folio_alloc(unsigned int order, int nid);
/* Free a folio whose refcount already dropped to 0 and which is off
 * every list (kernel: free_frozen_pages / free_unref_folios). */
void free_frozen_pages(struct folio *folio, unsigned int order);
struct folio_batch;
void free_unref_folios(struct folio_batch *folios);

/* Return this CPU's (or every CPU's) pcp pages to the buddy lists. */
void drain_local_pages(void);
void drain_all_pages(void);

/* Free pages in the buddy lists plus pcp lists of one zone (exact). */
unsigned long zone_free_pages_exact(struct zone *zone);
unsigned long totalram_pages(void);

#endif /* LRULAB_GFP_H */
