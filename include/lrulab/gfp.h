/* SPDX-License-Identifier: MIT */
/*
 * The page allocator (mm/page_alloc.c, set up in mm/mm_init.c): one
 * real memory arena for every node, a struct folio array beside it,
 * buddy free lists per order under zone->lock, and per-CPU page lists
 * refilled and drained in batches.
 */
#ifndef LRULAB_GFP_H
#define LRULAB_GFP_H

#include <lrulab/mmzone.h>
#include <lrulab/cpu.h>

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

/*
 * Model CPU n lives on node n % nr_node_ids; a thread that is not a
 * model CPU counts as node 0.
 */
static inline int cpu_to_node(int cpu)
{
	return cpu >= 0 && nr_node_ids > 0 ? cpu % nr_node_ids : 0;
}
static inline int numa_node_id(void)
{
	return cpu_to_node(smp_processor_id());
}

/*
 * @node_pages must be a positive multiple of 1 << MAX_PAGE_ORDER and
 * @nr_nodes within 1..MAX_NUMNODES (-EINVAL); -ENOMEM, or -EBUSY when
 * already set up.  The pcp lists are sized for nr_cpu_ids, so
 * lrulab_cpus_init() comes first.  No vmstat counter is touched here.
 */
int page_alloc_init(int nr_nodes, unsigned long node_pages);
/*
 * After vmstat_init(): make every zone's NR_FREE_PAGES equal its buddy
 * free pages.  Quiescent only (no CPU inside the allocator); calling it
 * again resynchronises the counter, e.g. after vmstat_reset().
 */
void page_alloc_init_stats(void);
/* After vmstat_exit(); the per-CPU vmstat areas are vmstat's to free. */
void page_alloc_exit(void);

/*
 * Allocate a folio of 2^order pages on node @nid (or the calling CPU's
 * home node when @nid < 0, falling back to other nodes).  Returns it
 * with refcount 1, mapcount -1, flags holding only its node and zone
 * (and PG_head for order > 0), memory not zeroed; NULL when no node has
 * a free block of that order (after draining every CPU's pcp lists once,
 * as the kernel's slow path does), for an order above MAX_PAGE_ORDER, or
 * for @nid >= nr_node_ids.  A specific @nid falls back to the other nodes
 * too, as the kernel's zonelists do without __GFP_THISNODE.  Watermarks
 * are not enforced here: they are for reclaim to read.
 */
struct folio *folio_alloc(unsigned int order, int nid);
/*
 * Free a folio whose refcount already dropped to 0 and which is off
 * every list (kernel: free_frozen_pages / free_unref_folios).  A folio
 * that breaks the kernel's free-time checks (refcount, mapcount, a file
 * mapping, memcg_data, PG_lru/active/unevictable/locked/writeback/...,
 * MGLRU gen bits, a wrong order, PG_buddy) prints one
 * "BUG: Bad page state ..." line to stderr and aborts.  An anonymous
 * ->mapping is cleared silently, as in the kernel.
 */
void free_frozen_pages(struct folio *folio, unsigned int order);
struct folio_batch;
void free_unref_folios(struct folio_batch *folios);

/* Return this CPU's (or every CPU's) pcp pages to the buddy lists. */
void drain_local_pages(void);
void drain_all_pages(void);

/*
 * Free pages in the buddy lists plus pcp lists of one zone.  Exact at a
 * quiescent point; while CPUs run, a page moving between a pcp list and
 * the buddy during the walk can be missed or counted twice.
 */
/*
 * Free pages of @zone under @mark: the lagging read, made exact where the
 * per-CPU drift could hide the answer.
 */
bool zone_below_wmark(struct zone *zone, unsigned long mark);
/*
 * PF_MEMALLOC: while set, folio_alloc() of this thread does no direct
 * reclaim.  Reclaimers (kswapd, direct reclaim) set it.
 */
bool memalloc_noreclaim_save(void);
void memalloc_noreclaim_restore(bool old);

unsigned long zone_free_pages_exact(struct zone *zone);
/* Buddy free pages only: what NR_FREE_PAGES counts, as in the kernel. */
unsigned long zone_buddy_free_pages(struct zone *zone);
unsigned long totalram_pages(void);

#endif /* LRULAB_GFP_H */
