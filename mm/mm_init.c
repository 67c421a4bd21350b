// SPDX-License-Identifier: MIT
/*
 * Memory set-up and teardown (the kernel's mm/mm_init.c): the arena and
 * the folio array that describes it, the nodes with their one
 * ZONE_NORMAL each, the watermarks, the pcp batch and high of every
 * zone, the free lists seeded with the whole arena, and NR_FREE_PAGES
 * brought in line with them once vmstat is up.  The allocator itself is
 * in mm/page_alloc.c.
 *
 * Locks: none.  page_alloc_init() and page_alloc_exit() run while no
 * other thread touches memory, so they only initialise zone->lock and
 * the pcp locks; page_alloc_init_stats() reads the buddy lists under
 * zone->lock through zone_buddy_free_pages().
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <lrulab/cpu.h>
#include <lrulab/gfp.h>
#include <lrulab/mglru.h>
#include <lrulab/mmzone.h>
#include <lrulab/spinlock.h>
#include <lrulab/vmstat.h>

#include "page_alloc-internal.h"

struct folio *mem_map;
char *mem_arena;
unsigned long max_pfn;
int nr_node_ids;
struct pglist_data *node_data[MAX_NUMNODES];

static size_t mem_map_bytes;
static size_t mem_arena_bytes;
static unsigned long total_managed_pages;
/*
 * The CPU count the pcp arrays were sized for: nr_cpu_ids may be changed
 * later by a test, and indexing by it would run off the arrays.
 */
int pcp_nr_cpus;

/* The kernel's default vm.watermark_scale_factor: 0.1% of the zone. */
#define WATERMARK_SCALE_FACTOR 10

static inline unsigned long nodezone_flags(int nid)
{
	return ((unsigned long)nid << NODES_PGOFF) |
	       ((unsigned long)ZONE_NORMAL << ZONES_PGOFF);
}

unsigned long totalram_pages(void)
{
	return total_managed_pages;
}

/* ---- set-up ---- */

static unsigned long int_sqrt(unsigned long x)
{
	unsigned long lo = 0, hi = 1UL << 32;

	/* largest r with r * r <= x */
	while (lo + 1 < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (mid <= x / mid)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Watermarks as the kernel derives them at boot:
 *
 *   min_free_kbytes = sqrt(16 * total_kbytes), clamped to [128, 262144]
 *   zone min  = (min_free_kbytes / 4) pages * zone share of all memory
 *   gap       = max(min / 4, managed * watermark_scale_factor / 10000)
 *   zone low  = min + gap,  zone high = low + gap
 *
 * (64 MiB of memory: min_free_kbytes 1024, so min 256, low 320,
 * high 384 pages.)  The allocator does not hold back reserves below
 * them; falling under low wakes kswapd, which reclaims up to high, and
 * the pcp high mark is derived from low.
 */
static void setup_per_zone_wmarks(unsigned long total_pages)
{
	unsigned long min_free_kbytes, pages_min;
	int nid;

	min_free_kbytes = int_sqrt(total_pages * (PAGE_SIZE >> 10) * 16);
	if (min_free_kbytes < 128)
		min_free_kbytes = 128;
	if (min_free_kbytes > 262144)
		min_free_kbytes = 262144;
	pages_min = min_free_kbytes >> (PAGE_SHIFT - 10);

	for_each_node(nid) {
		struct zone *zone = node_zone(nid);
		unsigned long min, gap;

		/* exact share, no floating point; the product may pass 2^64 */
		min = (unsigned long)((unsigned __int128)pages_min *
				      zone->managed_pages / total_pages);
		gap = max_t(unsigned long, min >> 2,
			    zone->managed_pages * WATERMARK_SCALE_FACTOR / 10000);
		zone->_watermark[WMARK_MIN] = min;
		zone->_watermark[WMARK_LOW] = min + gap;
		zone->_watermark[WMARK_HIGH] = min + 2 * gap;
	}
}

static unsigned long rounddown_pow_of_two(unsigned long x)
{
	return x ? 1UL << (63 - __builtin_clzl(x)) : 0;
}

/*
 * pcp->batch as the kernel's zone_batchsize(): about a quarter of
 * min(0.1% of the zone, 1 MiB) in pages, at least 1, then rounded to
 * 2^n - 1 pages because power-of-two batches were seen to make cache
 * colouring of the allocated pages worse.  (64 MiB zone: 3; 4 GiB and
 * up: 63.)
 */
static int zone_batchsize(const struct zone *zone)
{
	unsigned long batch;

	batch = min_t(unsigned long, zone->managed_pages >> 10,
		      (1UL << 20) / PAGE_SIZE);
	batch /= 4;
	if (batch < 1)
		batch = 1;
	return (int)rounddown_pow_of_two(batch + batch / 2) - 1;
}

/*
 * The kernel's zone_highsize(): @total pages of the zone split among the
 * CPUs of its node (all CPUs for a node without any), at least 4
 * batches.  pcp->high_min splits the low watermark, so that full pcp
 * lists alone never push the zone under low (the static high of
 * 5.14-6.6); pcp->high_max splits an eighth of the zone (the kernel's
 * MIN_PERCPU_PAGELIST_HIGH_FRACTION, with the default
 * percpu_pagelist_high_fraction of 0).  pcp->high starts at high_min
 * and is tuned between the two (page_alloc_pcp.c).
 */
#define MIN_PERCPU_PAGELIST_HIGH_FRACTION 8

static int zone_highsize(int nid, unsigned long total, int batch)
{
	unsigned long high;
	int cpu, nr_split = 0;

	for (cpu = 0; cpu < pcp_nr_cpus; cpu++)
		if (cpu_to_node(cpu) == nid)
			nr_split++;
	if (!nr_split)
		nr_split = pcp_nr_cpus;
	high = total / (unsigned long)nr_split;
	high = max_t(unsigned long, high, (unsigned long)batch << 2);
	return (int)min_t(unsigned long, high, INT_MAX);
}

static int setup_zone_pageset(struct zone *zone, int nid)
{
	int batch, high_min, high_max, cpu, i;

	if (pcp_nr_cpus <= 0)
		return 0;	/* no model CPUs: everything uses the buddy */
	zone->per_cpu_pageset = alloc_percpu(struct per_cpu_pages);
	if (!zone->per_cpu_pageset)
		return -ENOMEM;
	/* under 8 MiB zone_batchsize() comes out 0; a pcp needs 1 */
	batch = max_t(int, zone_batchsize(zone), 1);
	high_min = zone_highsize(nid, zone->_watermark[WMARK_LOW], batch);
	high_max = zone_highsize(nid, zone->managed_pages / MIN_PERCPU_PAGELIST_HIGH_FRACTION,
				 batch);
	for (cpu = 0; cpu < pcp_nr_cpus; cpu++) {
		struct per_cpu_pages *pcp = per_cpu_ptr(zone->per_cpu_pageset, cpu);

		spin_lock_init(&pcp->lock);
		pcp->count = 0;
		pcp->batch = batch;
		pcp->high_min = high_min;
		pcp->high_max = max_t(int, high_max, high_min);
		pcp->high = high_min;
		/*
		 * The kernel sets this when the CPU's share of its last
		 * level cache holds over 3 batches (756 KiB at batch 63),
		 * as on every machine the model stands for: a run of
		 * high-order frees then keeps a batch on the list.
		 */
		pcp->flags = PCPF_FREE_HIGH_BATCH;
		pcp->alloc_factor = 0;
		pcp->free_count = 0;
		for (i = 0; i < NR_PCP_LISTS; i++)
			INIT_LIST_HEAD(&pcp->lists[i]);
	}
	return 0;
}

static void free_node_data(void)
{
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct pglist_data *pgdat = node_data[nid];

		if (!pgdat)
			continue;
		free_percpu(pgdat->node_zones[ZONE_NORMAL].per_cpu_pageset);
		free(pgdat);
		node_data[nid] = NULL;
	}
}

static int init_node(int nid, unsigned long node_pages)
{
	struct pglist_data *pgdat;
	struct zone *zone;
	unsigned int order;
	void *p;

	if (posix_memalign(&p, L1_CACHE_BYTES, sizeof(*pgdat)))
		return -ENOMEM;
	pgdat = p;
	memset(pgdat, 0, sizeof(*pgdat));
	node_data[nid] = pgdat;
	pgdat->node_id = nid;
	pgdat->node_start_pfn = (unsigned long)nid * node_pages;
	pgdat->node_spanned_pages = node_pages;

	zone = &pgdat->node_zones[ZONE_NORMAL];
	zone->name = "Normal";
	zone->zone_pgdat = pgdat;
	zone->zone_start_pfn = pgdat->node_start_pfn;
	zone->spanned_pages = node_pages;
	zone->managed_pages = node_pages;
	spin_lock_init(&zone->lock);
	lru_gen_init_pgdat(pgdat);
	for (order = 0; order < NR_PAGE_ORDERS; order++) {
		INIT_LIST_HEAD(&zone->free_area[order].free_list);
		zone->free_area[order].nr_free = 0;
	}
	return 0;
}

/*
 * Every entry starts as a free page of its node; then each max-order
 * block goes on its zone's free list in pfn order, so the first
 * allocations come from the bottom of each node (as memblock hands
 * memory to the buddy, to the tail, at boot).
 */
static void init_mem_map(int nr_nodes, unsigned long node_pages)
{
	unsigned long pfn;
	int nid;

	for (nid = 0; nid < nr_nodes; nid++) {
		struct zone *zone = node_zone(nid);
		unsigned long start = zone->zone_start_pfn;
		unsigned long flags = nodezone_flags(nid);

		for (pfn = start; pfn < start + node_pages; pfn++) {
			struct folio *page = pfn_folio(pfn);

			page->flags = flags;
			atomic_set(&page->_mapcount, -1);
		}
		for (pfn = start; pfn < start + node_pages; pfn += 1UL << MAX_PAGE_ORDER)
			add_to_free_list(pfn_folio(pfn), zone, MAX_PAGE_ORDER, true);
	}
}

int page_alloc_init(int nr_nodes, unsigned long node_pages)
{
	unsigned long total;
	void *p;
	int nid, err;

	if (mem_map)
		return -EBUSY;
	if (nr_nodes < 1 || nr_nodes > MAX_NUMNODES || node_pages == 0 ||
	    node_pages & ((1UL << MAX_PAGE_ORDER) - 1))
		return -EINVAL;
	/* the arena's byte size must fit an unsigned long */
	if (node_pages > (ULONG_MAX >> PAGE_SHIFT) / (unsigned long)nr_nodes)
		return -EINVAL;
	total = node_pages * (unsigned long)nr_nodes;

	mem_arena_bytes = total << PAGE_SHIFT;
	p = mmap(NULL, mem_arena_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	mem_arena = p;
	/* mmap is page aligned, more than the 64 bytes an entry needs */
	mem_map_bytes = total * sizeof(struct folio);
	p = mmap(NULL, mem_map_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		err = -ENOMEM;
		goto out_arena;
	}
	mem_map = p;

	pcp_nr_cpus = nr_cpu_ids;
	for (nid = 0; nid < nr_nodes; nid++) {
		err = init_node(nid, node_pages);
		if (err)
			goto out_nodes;
	}
	nr_node_ids = nr_nodes;
	max_pfn = total;
	total_managed_pages = total;
	setup_per_zone_wmarks(total);
	for (nid = 0; nid < nr_nodes; nid++) {
		err = setup_zone_pageset(node_zone(nid), nid);
		if (err)
			goto out_nodes;
	}
	init_mem_map(nr_nodes, node_pages);
	return 0;

out_nodes:
	/* the folio array is mapped: the full teardown applies */
	page_alloc_exit();
	return err;
out_arena:
	munmap(mem_arena, mem_arena_bytes);
	mem_arena = NULL;
	return err;
}

void page_alloc_init_stats(void)
{
	int nid;

	for_each_node(nid) {
		struct zone *zone = node_zone(nid);
		long have = (long)zone_page_state_snapshot(zone, NR_FREE_PAGES);
		long want = (long)zone_buddy_free_pages(zone);

		if (want != have)
			mod_zone_page_state(zone, NR_FREE_PAGES, want - have);
	}
}

void page_alloc_exit(void)
{
	if (!mem_map)
		return;
	free_node_data();
	nr_node_ids = 0;
	max_pfn = 0;
	total_managed_pages = 0;
	pcp_nr_cpus = 0;
	munmap(mem_map, mem_map_bytes);
	mem_map = NULL;
	munmap(mem_arena, mem_arena_bytes);
	mem_arena = NULL;
}
