// SPDX-License-Identifier: MIT
/*
 * The page allocator: set-up, buddy split and merge, pcp batch refill
 * and high-mark drain, node fallback, exhaustion, bad-page aborts, and
 * model CPUs allocating and freeing at once.  Every count is exact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <lrulab/cpu.h>
#include <lrulab/gfp.h>
#include <lrulab/swap.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

/*
 * Operations per thread.  The tight run fails most allocations, and each
 * failure drains every CPU's pcp lists: fewer operations go a long way.
 */
#ifdef LRULAB_SANITIZE
#define STRESS_OPS 6000
#define TIGHT_OPS 600
#else
#define STRESS_OPS 60000
#define TIGHT_OPS 3000
#endif

#define SMALL_NODE 16384UL	/* 64 MiB: batch 3, watermarks 256/320/384 */

static bool sys_is_up;
static bool main_is_cpu;

static void sys_up(int nr_cpus, int nr_nodes, unsigned long node_pages)
{
	assert_int_equal(lrulab_cpus_init(nr_cpus), 0);
	/*
	 * as lrulab_init() would: 4 stress threads spinning on 2 processors
	 * without a yield waited out a preempted holder's whole time slice,
	 * 1 s or 200 s a run by how busy the machine was
	 */
	lrulab_spin_yield = lrulab_oversubscribed();
	assert_int_equal(page_alloc_init(nr_nodes, node_pages), 0);
	assert_int_equal(vmstat_init(), 0);
	page_alloc_init_stats();
	sys_is_up = true;
}

static void enter_cpu(int cpu)
{
	assert_int_equal(cpu_enter(cpu, false), 0);
	main_is_cpu = true;
}

static void leave_cpu(void)
{
	if (main_is_cpu)
		cpu_exit();
	main_is_cpu = false;
}

static int sys_down(void **state)
{
	leave_cpu();
	if (sys_is_up) {
		vmstat_exit();
		page_alloc_exit();
		lrulab_cpus_exit();
	}
	sys_is_up = false;
	return 0;
}

static struct zone *zone_of(int nid)
{
	return &NODE_DATA(nid)->node_zones[ZONE_NORMAL];
}

static struct per_cpu_pages *pcp_of(int nid, int cpu)
{
	return per_cpu_ptr(zone_of(nid)->per_cpu_pageset, cpu);
}

static unsigned long nodezone(int nid)
{
	return ((unsigned long)nid << NODES_PGOFF) |
	       ((unsigned long)ZONE_NORMAL << ZONES_PGOFF);
}

static unsigned long nr_free_stat(int nid)
{
	return zone_page_state_snapshot(zone_of(nid), NR_FREE_PAGES);
}

/*
 * Drain every pcp list, then demand the state right after init: only
 * max-order blocks on the free lists, every entry a clean free page, the
 * counter equal to the lists.
 */
static void assert_all_free(void)
{
	unsigned long pfn;
	int nid;

	drain_all_pages();
	for_each_node(nid) {
		struct zone *zone = zone_of(nid);
		unsigned int order;

		for (order = 0; order < MAX_PAGE_ORDER; order++)
			assert_int_equal(zone->free_area[order].nr_free, 0);
		assert_int_equal(zone->free_area[MAX_PAGE_ORDER].nr_free,
				 zone->managed_pages >> MAX_PAGE_ORDER);
		assert_int_equal(zone_buddy_free_pages(zone), zone->managed_pages);
		assert_int_equal(zone_free_pages_exact(zone), zone->managed_pages);
		assert_int_equal(nr_free_stat(nid), zone->managed_pages);
	}
	for (pfn = 0; pfn < max_pfn; pfn++) {
		struct folio *page = pfn_folio(pfn);
		int pfn_nid = (int)(pfn / NODE_DATA(0)->node_spanned_pages);
		bool head = !(pfn & ((1UL << MAX_PAGE_ORDER) - 1));

		assert_int_equal(page->flags,
				 nodezone(pfn_nid) | (head ? BIT(PG_buddy) : 0));
		assert_int_equal(page->private, head ? MAX_PAGE_ORDER : 0);
		assert_int_equal(folio_ref_count(page), 0);
		assert_int_equal(atomic_read(&page->_mapcount), -1);
		assert_null(page->mapping);
		assert_int_equal(page->memcg_data, 0);
		if (!head)
			assert_int_equal(page->compound_head & 1, 0);
	}
}

/* Is @pfn inside a block on the buddy free lists? */
static bool in_buddy(unsigned long pfn)
{
	unsigned int order;

	for (order = 0; order <= MAX_PAGE_ORDER; order++) {
		struct folio *head = pfn_folio(pfn & ~((1UL << order) - 1));

		if (folio_test_buddy(head) && head->private >= order)
			return true;
	}
	return false;
}

/* A freshly allocated folio must look exactly like this. */
static void assert_new_folio(struct folio *folio, unsigned int order)
{
	unsigned long pfn = folio_pfn(folio);
	unsigned long nr = 1UL << order, i;
	int nid = (int)(pfn / NODE_DATA(0)->node_spanned_pages);

	assert_true(pfn < max_pfn);
	assert_int_equal(pfn & (nr - 1), 0);
	assert_int_equal(folio_nid(folio), nid);
	assert_int_equal(folio_zonenum(folio), ZONE_NORMAL);
	assert_int_equal(folio_ref_count(folio), 1);
	assert_int_equal(atomic_read(&folio->_mapcount), -1);
	assert_null(folio->mapping);
	assert_int_equal(folio->index, 0);
	assert_int_equal(folio->memcg_data, 0);
	assert_int_equal(folio->private, 0);
	assert_int_equal(folio->flags, nodezone(nid) | (order ? BIT(PG_head) : 0));
	assert_int_equal(folio_order(folio), order);
	assert_int_equal(folio_nr_pages(folio), nr);
	if (order) {
		struct folio_tail1 *t1 = (struct folio_tail1 *)(folio + 1);

		assert_true(list_empty(folio_deferred_list(folio)));
		assert_int_equal(atomic_read(&t1->_entire_mapcount), -1);
		assert_int_equal(atomic_read(&t1->_nr_pages_mapped), 0);
		for (i = 1; i < nr; i++) {
			assert_int_equal(folio[i].compound_head, (unsigned long)folio | 1);
			assert_int_equal(folio[i].flags, nodezone(nid));
		}
	}
}

static void put_folio(struct folio *folio)
{
	unsigned int order = folio_order(folio);

	assert_true(folio_put_testzero(folio));
	free_frozen_pages(folio, order);
}

/* ---- set-up ---- */

static void test_init_rejects(void **state)
{
	assert_int_equal(lrulab_cpus_init(2), 0);
	assert_int_equal(page_alloc_init(0, 512), -EINVAL);
	assert_int_equal(page_alloc_init(MAX_NUMNODES + 1, 512), -EINVAL);
	assert_int_equal(page_alloc_init(-1, 512), -EINVAL);
	assert_int_equal(page_alloc_init(1, 0), -EINVAL);
	assert_int_equal(page_alloc_init(1, 511), -EINVAL);
	assert_int_equal(page_alloc_init(1, 513), -EINVAL);
	assert_int_equal(page_alloc_init(1, 1000), -EINVAL);
	assert_int_equal(page_alloc_init(2, ~0UL << MAX_PAGE_ORDER), -EINVAL);
	assert_null(mem_map);
	assert_int_equal(nr_node_ids, 0);

	assert_int_equal(page_alloc_init(1, 512), 0);
	assert_int_equal(page_alloc_init(1, 512), -EBUSY);
	page_alloc_exit();
	assert_null(mem_map);
	assert_null(mem_arena);
	assert_null(node_data[0]);
	assert_int_equal(max_pfn, 0);
	assert_int_equal(totalram_pages(), 0);
	/* and the same memory can come up again */
	assert_int_equal(page_alloc_init(MAX_NUMNODES, 512), 0);
	assert_int_equal(nr_node_ids, MAX_NUMNODES);
	assert_int_equal(totalram_pages(), 512UL * MAX_NUMNODES);
	page_alloc_exit();
	lrulab_cpus_exit();
}

static void test_init_one_node(void **state)
{
	struct zone *zone;
	int cpu;

	sys_up(4, 1, SMALL_NODE);
	assert_int_equal(nr_node_ids, 1);
	assert_int_equal(max_pfn, SMALL_NODE);
	assert_int_equal(totalram_pages(), SMALL_NODE);
	assert_int_equal((uintptr_t)mem_map % 64, 0);
	assert_int_equal((uintptr_t)mem_arena % PAGE_SIZE, 0);
	zone = zone_of(0);
	assert_string_equal(zone->name, "Normal");
	assert_ptr_equal(zone->zone_pgdat, NODE_DATA(0));
	assert_int_equal(NODE_DATA(0)->node_id, 0);
	assert_int_equal(NODE_DATA(0)->node_start_pfn, 0);
	assert_int_equal(NODE_DATA(0)->node_spanned_pages, SMALL_NODE);
	assert_int_equal(zone->zone_start_pfn, 0);
	assert_int_equal(zone->spanned_pages, SMALL_NODE);
	assert_int_equal(zone->managed_pages, SMALL_NODE);
	/* 64 MiB: min_free_kbytes = sqrt(65536 * 16) = 1024 -> 256 pages */
	assert_int_equal(zone->_watermark[WMARK_MIN], 256);
	assert_int_equal(zone->_watermark[WMARK_LOW], 320);
	assert_int_equal(zone->_watermark[WMARK_HIGH], 384);
	for (cpu = 0; cpu < 4; cpu++) {
		struct per_cpu_pages *pcp = pcp_of(0, cpu);

		/* batch: 16 / 4 = 4 -> rounddown_pow2(6) - 1 = 3 */
		assert_int_equal(pcp->batch, 3);
		/* high starts at high_min: low 320 over the node's 4 CPUs */
		assert_int_equal(pcp->high_min, 80);
		assert_int_equal(pcp->high, 80);
		/* high_max: an eighth of the zone, 2048, over 4 CPUs */
		assert_int_equal(pcp->high_max, 512);
		assert_int_equal(pcp->flags, PCPF_FREE_HIGH_BATCH);
		assert_int_equal(pcp->count, 0);
	}
	assert_int_equal(global_zone_page_state(NR_FREE_PAGES), SMALL_NODE);
	/* resynchronising is idempotent */
	page_alloc_init_stats();
	assert_int_equal(nr_free_stat(0), SMALL_NODE);
	assert_all_free();
}

static void test_init_two_nodes(void **state)
{
	int nid;

	sys_up(4, 2, SMALL_NODE);
	assert_int_equal(nr_node_ids, 2);
	assert_int_equal(max_pfn, 2 * SMALL_NODE);
	assert_int_equal(totalram_pages(), 2 * SMALL_NODE);
	assert_int_equal(global_zone_page_state(NR_FREE_PAGES), 2 * SMALL_NODE);
	for_each_node(nid) {
		struct zone *zone = zone_of(nid);

		assert_int_equal(zone->zone_start_pfn, nid * SMALL_NODE);
		assert_int_equal(NODE_DATA(nid)->node_start_pfn, nid * SMALL_NODE);
		/*
		 * 128 MiB: min_free_kbytes = isqrt(131072 * 16) = 1448,
		 * 362 pages, half each: 181; gap max(45, 16) = 45
		 */
		assert_int_equal(zone->_watermark[WMARK_MIN], 181);
		assert_int_equal(zone->_watermark[WMARK_LOW], 226);
		assert_int_equal(zone->_watermark[WMARK_HIGH], 271);
		/* two CPUs per node: 226 / 2 */
		assert_int_equal(pcp_of(nid, 0)->high, 113);
		assert_int_equal(pcp_of(nid, 0)->batch, 3);
	}
	assert_int_equal(folio_nid(pfn_folio(SMALL_NODE - 1)), 0);
	assert_int_equal(folio_nid(pfn_folio(SMALL_NODE)), 1);
	assert_all_free();
}

static void test_big_zone_batch(void **state)
{
	/* 4 GiB: batch min(4096, 256) / 4 = 64 -> rounddown_pow2(96) - 1 */
	sys_up(2, 1, 1UL << 20);
	assert_int_equal(pcp_of(0, 0)->batch, 63);
	/* min_free_kbytes sqrt(4 GiB in KiB * 16) = 8192 -> 2048 pages;
	 * gap max(512, 1048) = 1048; high = low 3096 / 2 CPUs */
	assert_int_equal(zone_of(0)->_watermark[WMARK_MIN], 2048);
	assert_int_equal(zone_of(0)->_watermark[WMARK_LOW], 3096);
	assert_int_equal(zone_of(0)->_watermark[WMARK_HIGH], 4144);
	assert_int_equal(pcp_of(0, 0)->high, 1548);
	/* an eighth of 2^20 pages over 2 CPUs */
	assert_int_equal(pcp_of(0, 0)->high_max, 65536);
}

/* ---- allocation ---- */

static void alloc_every_order(int nr_nodes)
{
	struct folio *folios[NR_PAGE_ORDERS];
	unsigned long pages = 0, alloc0, free0;
	unsigned int order;
	int nid;

	alloc0 = sum_vm_event(PGALLOC_NORMAL);
	free0 = sum_vm_event(PGFREE);
	for (nid = 0; nid < nr_nodes; nid++) {
		for (order = 0; order <= MAX_PAGE_ORDER; order++) {
			struct folio *folio = folio_alloc(order, nid);
			unsigned char *mem;
			size_t bytes = PAGE_SIZE << order;

			assert_non_null(folio);
			assert_new_folio(folio, order);
			assert_int_equal(folio_nid(folio), nid);
			mem = folio_address(folio);
			assert_ptr_equal(mem, mem_arena + folio_pfn(folio) * PAGE_SIZE);
			memset(mem, 0xa5, bytes);
			assert_int_equal(mem[0], 0xa5);
			assert_int_equal(mem[bytes - 1], 0xa5);
			folios[order] = folio;
			pages += 1UL << order;
		}
		assert_int_equal(sum_vm_event(PGALLOC_NORMAL) - alloc0, pages);
		for (order = 0; order <= MAX_PAGE_ORDER; order++)
			put_folio(folios[order]);
		assert_int_equal(sum_vm_event(PGFREE) - free0, pages);
	}
	assert_all_free();
}

static void test_alloc_orders_model_cpu(void **state)
{
	sys_up(2, 2, SMALL_NODE);
	enter_cpu(0);
	alloc_every_order(2);
}

static void test_alloc_orders_plain_thread(void **state)
{
	int order;

	sys_up(2, 1, SMALL_NODE);
	/* not a model CPU: straight from the buddy, one page at a time */
	for (order = 0; order <= MAX_PAGE_ORDER; order++) {
		struct folio *folio = folio_alloc(order, -1);

		assert_non_null(folio);
		assert_new_folio(folio, order);
		assert_int_equal(zone_buddy_free_pages(zone_of(0)),
				 SMALL_NODE - (1UL << order));
		assert_int_equal(nr_free_stat(0), SMALL_NODE - (1UL << order));
		assert_int_equal(pcp_of(0, 0)->count, 0);
		assert_int_equal(pcp_of(0, 1)->count, 0);
		put_folio(folio);
		assert_int_equal(nr_free_stat(0), SMALL_NODE);
		assert_int_equal(zone_of(0)->free_area[MAX_PAGE_ORDER].nr_free,
				 SMALL_NODE >> MAX_PAGE_ORDER);
	}
	alloc_every_order(1);
}

/* The buddy hands out the lowest block and splits it down exactly. */
static void test_split_exact(void **state)
{
	struct zone *zone;
	struct folio *folio;
	unsigned int order;

	sys_up(1, 1, SMALL_NODE);
	zone = zone_of(0);
	folio = folio_alloc(0, 0);
	assert_int_equal(folio_pfn(folio), 0);
	/* 512 = 1 + 1 + 2 + ... + 256: one block left at every lower order */
	for (order = 0; order < MAX_PAGE_ORDER; order++) {
		assert_int_equal(zone->free_area[order].nr_free, 1);
		assert_true(folio_test_buddy(pfn_folio(1UL << order)));
		assert_int_equal(pfn_folio(1UL << order)->private, order);
	}
	assert_int_equal(zone->free_area[MAX_PAGE_ORDER].nr_free,
			 (SMALL_NODE >> MAX_PAGE_ORDER) - 1);
	folio = folio_alloc(3, 0);
	assert_int_equal(folio_pfn(folio), 8);
	assert_int_equal(zone->free_area[3].nr_free, 0);
	put_folio(folio);
	put_folio(pfn_folio(0));
	assert_all_free();
}

static unsigned long lcg(unsigned long *seed)
{
	*seed = *seed * 6364136223846793005UL + 1442695040888963407UL;
	return *seed >> 33;
}

/* Mixed orders freed in scrambled order merge back to max-order blocks. */
static void test_merge_back(void **state)
{
	static struct folio *held[4096];
	unsigned long seed = 1, pages = 0, want = 0;
	int i, n = 0;

	sys_up(2, 2, SMALL_NODE);
	enter_cpu(1);
	while (n < (int)ARRAY_SIZE(held)) {
		unsigned int order = lcg(&seed) % 5;
		struct folio *folio = folio_alloc(order, (int)(lcg(&seed) % 3) - 1);

		assert_non_null(folio);
		assert_new_folio(folio, order);
		held[n++] = folio;
		pages += 1UL << order;
	}
	want = 2 * SMALL_NODE - pages;
	assert_int_equal(zone_free_pages_exact(zone_of(0)) +
			 zone_free_pages_exact(zone_of(1)), want);
	/* counter and lists agree: the counter leaves out the pcp pages */
	assert_int_equal(nr_free_stat(0), zone_buddy_free_pages(zone_of(0)));
	assert_int_equal(nr_free_stat(1), zone_buddy_free_pages(zone_of(1)));
	for (i = n - 1; i > 0; i--) {
		int j = (int)(lcg(&seed) % (unsigned long)(i + 1));
		struct folio *t = held[i];

		held[i] = held[j];
		held[j] = t;
	}
	for (i = 0; i < n; i++)
		put_folio(held[i]);
	assert_all_free();
}

static void test_exhaustion(void **state)
{
	const unsigned long total = 2 * SMALL_NODE;
	struct folio **held = calloc(total, sizeof(*held));
	unsigned long n = 0, i;
	struct folio *folio;

	assert_non_null(held);
	sys_up(2, 2, SMALL_NODE);
	enter_cpu(0);
	while ((folio = folio_alloc(0, -1)) != NULL) {
		assert_true(n < total);
		/* CPU 0's node first; node 1 only once node 0 is empty */
		assert_int_equal(folio_nid(folio), n < SMALL_NODE ? 0 : 1);
		held[n++] = folio;
	}
	assert_int_equal(n, total);
	assert_null(folio_alloc(0, 1));
	assert_null(folio_alloc(MAX_PAGE_ORDER, -1));
	assert_int_equal(zone_free_pages_exact(zone_of(0)), 0);
	assert_int_equal(zone_free_pages_exact(zone_of(1)), 0);
	assert_int_equal(nr_free_stat(0), 0);
	assert_int_equal(nr_free_stat(1), 0);
	for (i = 0; i < n; i++)
		put_folio(held[i]);
	assert_all_free();

	/* the same at the largest order */
	n = 0;
	while ((folio = folio_alloc(MAX_PAGE_ORDER, -1)) != NULL)
		held[n++] = folio;
	assert_int_equal(n, total >> MAX_PAGE_ORDER);
	assert_null(folio_alloc(0, -1));
	for (i = 0; i < n; i++)
		put_folio(held[i]);
	assert_all_free();
	free(held);
}

/*
 * Order-0 pages parked on another CPU's pcp list are still free: the
 * failing allocation drains them and succeeds, and a large block they
 * were splitting merges again.
 */
static void test_exhaustion_drains_remote_pcp(void **state)
{
	struct folio *big[SMALL_NODE >> MAX_PAGE_ORDER];
	struct folio *folio;
	int i, n = 0;

	sys_up(2, 1, SMALL_NODE);
	enter_cpu(1);
	folio = folio_alloc(0, -1);	/* CPU 1 splits block 0, parks 2 */
	assert_int_equal(pcp_of(0, 1)->count, 2);
	put_folio(folio);
	assert_int_equal(pcp_of(0, 1)->count, 3);
	leave_cpu();
	enter_cpu(0);
	while ((folio = folio_alloc(MAX_PAGE_ORDER, -1)) != NULL)
		big[n++] = folio;
	/* every block, including the one CPU 1's pcp was holding pieces of */
	assert_int_equal(n, SMALL_NODE >> MAX_PAGE_ORDER);
	assert_int_equal(pcp_of(0, 1)->count, 0);
	for (i = 0; i < n; i++)
		put_folio(big[i]);
	assert_all_free();
}

/* ---- pcp lists ---- */

static void test_pcp_refill_batch(void **state)
{
	struct per_cpu_pages *pcp;
	struct zone *zone;
	struct folio *f[8];
	int i;

	sys_up(4, 1, SMALL_NODE);
	enter_cpu(0);
	zone = zone_of(0);
	pcp = pcp_of(0, 0);
	assert_int_equal(pcp->batch, 3);

	f[0] = folio_alloc(0, -1);
	/* one zone->lock hold moved a whole batch; one page handed out */
	assert_int_equal(zone_buddy_free_pages(zone), SMALL_NODE - 3);
	assert_int_equal(nr_free_stat(0), SMALL_NODE - 3);
	assert_int_equal(pcp->count, 2);
	assert_int_equal(zone_free_pages_exact(zone), SMALL_NODE - 1);
	f[1] = folio_alloc(0, -1);
	f[2] = folio_alloc(0, -1);
	assert_int_equal(pcp->count, 0);
	assert_int_equal(zone_buddy_free_pages(zone), SMALL_NODE - 3);
	/* the batch came off the buddy lowest pfn first */
	for (i = 0; i < 3; i++)
		assert_int_equal(folio_pfn(f[i]), i);
	/* the first refill raised high by its batch and doubles the next */
	assert_int_equal(pcp->high, 83);
	assert_int_equal(pcp->alloc_factor, 1);
	f[3] = folio_alloc(0, -1);
	assert_int_equal(pcp->count, 5);
	assert_int_equal(zone_buddy_free_pages(zone), SMALL_NODE - 9);
	assert_int_equal(pcp->high, 89);
	assert_int_equal(pcp->alloc_factor, 2);
	/* the hottest page is handed out again first; a free halves the factor */
	put_folio(f[1]);
	assert_int_equal(pcp->count, 6);
	assert_int_equal(pcp->alloc_factor, 1);
	assert_int_equal(pcp->free_count, 1);
	f[1] = folio_alloc(0, -1);
	assert_int_equal(folio_pfn(f[1]), 1);
	assert_int_equal(pcp->count, 5);
	/* and an allocation halves the run of frees */
	assert_int_equal(pcp->free_count, 0);

	/* order 1: max(3 >> 1, 2) = 2 blocks = 4 pages, no doubling */
	f[4] = folio_alloc(1, -1);
	assert_int_equal(pcp->count, 5 + 2);
	assert_int_equal(zone_buddy_free_pages(zone), SMALL_NODE - 13);
	assert_int_equal(pcp->high, 92);
	/* order 9: 2 blocks, 1024 pages */
	f[5] = folio_alloc(MAX_PAGE_ORDER, -1);
	assert_int_equal(pcp->count, 7 + 512);
	assert_int_equal(zone_buddy_free_pages(zone), SMALL_NODE - 13 - 1024);
	assert_int_equal(nr_free_stat(0), SMALL_NODE - 13 - 1024);
	/* order 4 has no pcp list: straight from the buddy */
	f[6] = folio_alloc(4, -1);
	assert_int_equal(pcp->count, 519);
	assert_int_equal(zone_buddy_free_pages(zone), SMALL_NODE - 13 - 1024 - 16);
	assert_int_equal(zone_free_pages_exact(zone),
			 SMALL_NODE - 4 - 2 - 512 - 16);

	for (i = 0; i < 7; i++)
		put_folio(f[i]);
	assert_all_free();
}

/* Order-0 refills double up to batch << 5, each raising high by itself. */
static void test_pcp_refill_grows(void **state)
{
	static const int refill[] = { 3, 6, 12, 24, 48, 96, 96 };
	static struct folio *f[600];
	struct per_cpu_pages *pcp;
	unsigned long buddy;
	int i, n = 0, high = 80;

	sys_up(4, 1, SMALL_NODE);
	enter_cpu(1);
	pcp = pcp_of(0, 1);
	buddy = zone_buddy_free_pages(zone_of(0));
	for (i = 0; i < (int)ARRAY_SIZE(refill); i++) {
		/* the list is empty: the next allocation takes one refill */
		f[n++] = folio_alloc(0, -1);
		buddy -= refill[i];
		high += refill[i];
		assert_int_equal(zone_buddy_free_pages(zone_of(0)), buddy);
		assert_int_equal(pcp->high, high);
		assert_int_equal(pcp->alloc_factor, i < 5 ? i + 1 : 5);
		while (pcp->count)
			f[n++] = folio_alloc(0, -1);
	}
	assert_int_equal(n, 3 + 6 + 12 + 24 + 48 + 96 + 96);
	/* high stops at high_max */
	for (i = 0; i < 3; i++) {
		f[n++] = folio_alloc(0, -1);
		while (pcp->count)
			f[n++] = folio_alloc(0, -1);
	}
	assert_int_equal(pcp->high, 512);
	for (i = 0; i < n; i++)
		put_folio(f[i]);
	assert_all_free();
}

/*
 * Pages freed on a CPU that did not allocate them: its high is still
 * high_min.  Reaching high gives back the run of frees (free_count)
 * but keeps a batch, coldest first, and raises high to hold the run.
 */
static void test_pcp_high_frees_batch(void **state)
{
	static struct folio *f[200];
	struct per_cpu_pages *pcp;
	struct zone *zone;
	unsigned long buddy;
	int i;

	sys_up(4, 1, SMALL_NODE);
	zone = zone_of(0);
	enter_cpu(0);
	for (i = 0; i < 200; i++)
		f[i] = folio_alloc(0, -1);
	drain_local_pages();
	leave_cpu();
	enter_cpu(2);
	pcp = pcp_of(0, 2);
	assert_int_equal(pcp->high, 80);
	buddy = zone_buddy_free_pages(zone);
	assert_int_equal(buddy, SMALL_NODE - 200);

	for (i = 0; i < 79; i++)
		put_folio(f[i]);
	assert_int_equal(pcp->count, 79);
	assert_int_equal(pcp->free_count, 79);
	assert_int_equal(zone_buddy_free_pages(zone), buddy);
	/* the 80th reaches high: min(free_count 80, high - batch) = 77 go */
	put_folio(f[79]);
	assert_int_equal(pcp->count, 3);
	assert_int_equal(zone_buddy_free_pages(zone), buddy + 77);
	assert_int_equal(nr_free_stat(0), buddy + 77);
	/* high now holds the run and a batch */
	assert_int_equal(pcp->high, 83);
	/* and those were the coldest: the first 77 freed */
	for (i = 0; i < 80; i++)
		assert_int_equal(in_buddy(folio_pfn(f[i])), i < 77);
	/* free_count stops at batch << 5 = 96: the next run is 80 pages */
	for (i = 80; i < 159; i++)
		put_folio(f[i]);
	assert_int_equal(pcp->count, 82);
	put_folio(f[159]);
	assert_int_equal(pcp->free_count, 96);
	assert_int_equal(pcp->count, 3);
	assert_int_equal(pcp->high, 99);
	assert_int_equal(zone_buddy_free_pages(zone), buddy + 157);
	/* pcp pages are free pages: counted by the exact walk, not the stat */
	assert_int_equal(zone_free_pages_exact(zone), buddy + 160);
	assert_int_equal(nr_free_stat(0), buddy + 157);

	/* a PMD folio freed on top of a busy list pushes itself back out */
	{
		struct folio *thp = folio_alloc(MAX_PAGE_ORDER, -1);

		assert_int_equal(pcp->count, 3 + 512);
		drain_local_pages();
		assert_int_equal(pcp->count, 0);
		put_folio(thp);
		/* 512 >= high 99: the bulk free starts at the PMD list */
		assert_int_equal(pcp->count, 0);
	}
	for (i = 160; i < 200; i++)
		put_folio(f[i]);
	assert_all_free();
}

/*
 * free_high: order 1-3 frees in a row, no allocation between them.
 * Once the run reaches batch + high_min / 2 pages, the list goes back
 * to the buddy whole each time it holds a batch.
 */
static void test_pcp_free_high(void **state)
{
	static struct folio *f[20];
	struct per_cpu_pages *pcp;
	struct zone *zone;
	unsigned long buddy;
	int i;

	sys_up(4, 1, SMALL_NODE);
	zone = zone_of(0);
	enter_cpu(0);
	for (i = 0; i < 20; i++)
		f[i] = folio_alloc(2, -1);
	drain_local_pages();
	leave_cpu();
	enter_cpu(3);
	pcp = pcp_of(0, 3);
	buddy = zone_buddy_free_pages(zone);
	/* 11 folios: a run of 44 pages, under high 80 */
	for (i = 0; i < 11; i++)
		put_folio(f[i]);
	assert_int_equal(pcp->count, 44);
	assert_int_equal(pcp->free_count, 44);
	assert_true(pcp->flags & PCPF_PREV_FREE_HIGH_ORDER);
	assert_int_equal(zone_buddy_free_pages(zone), buddy);
	/* the 12th finds the run at 44 >= 3 + 40: all 48 pages go back */
	put_folio(f[11]);
	assert_int_equal(pcp->count, 0);
	assert_int_equal(zone_buddy_free_pages(zone), buddy + 48);
	assert_int_equal(pcp->high, 80);
	/* from now on each folio (4 pages >= batch 3) goes straight back */
	put_folio(f[12]);
	assert_int_equal(pcp->count, 0);
	assert_int_equal(zone_buddy_free_pages(zone), buddy + 52);
	/* an order-0 free ends the run of high-order frees ... */
	{
		struct folio *small = folio_alloc(0, -1);

		assert_int_equal(pcp->free_count, 26);
		put_folio(small);
		assert_false(pcp->flags & PCPF_PREV_FREE_HIGH_ORDER);
		/* ... so the next order-2 free stays on the list */
		put_folio(f[13]);
		assert_int_equal(pcp->count, 3 + 4);
	}
	for (i = 14; i < 20; i++)
		put_folio(f[i]);
	assert_all_free();
}

/* kswapd at work: a free keeps at most 4 batches on the list. */
static void test_pcp_reclaim_active(void **state)
{
	static struct folio *f[20];
	struct per_cpu_pages *pcp;
	struct zone *zone;
	unsigned long buddy;
	int i;

	sys_up(4, 1, SMALL_NODE);
	zone = zone_of(0);
	enter_cpu(0);
	for (i = 0; i < 20; i++)
		f[i] = folio_alloc(0, -1);
	drain_local_pages();
	leave_cpu();
	enter_cpu(1);
	pcp = pcp_of(0, 1);
	buddy = zone_buddy_free_pages(zone);
	set_bit(ZONE_RECLAIM_ACTIVE, &zone->flags);
	for (i = 0; i < 11; i++)
		put_folio(f[i]);
	assert_int_equal(pcp->count, 11);
	/* the 12th reaches min(batch << 2, high): min(12, 12 - 3) = 9 go */
	put_folio(f[11]);
	assert_int_equal(pcp->count, 3);
	assert_int_equal(zone_buddy_free_pages(zone), buddy + 9);
	clear_bit(ZONE_RECLAIM_ACTIVE, &zone->flags);
	for (i = 12; i < 20; i++)
		put_folio(f[i]);
	/* without it, high_min 80 holds them */
	assert_int_equal(pcp->count, 11);
	assert_all_free();
}

static void test_drain_all_remote(void **state)
{
	struct folio *f;
	int cpu;

	sys_up(3, 1, SMALL_NODE);
	for (cpu = 0; cpu < 3; cpu++) {
		enter_cpu(cpu);
		f = folio_alloc(0, -1);
		put_folio(f);
		assert_int_equal(pcp_of(0, cpu)->count, 3);
		leave_cpu();
	}
	assert_int_equal(zone_buddy_free_pages(zone_of(0)), SMALL_NODE - 9);
	assert_int_equal(zone_free_pages_exact(zone_of(0)), SMALL_NODE);
	/* not a model CPU: drain_local_pages has nothing of its own */
	drain_local_pages();
	assert_int_equal(pcp_of(0, 1)->count, 3);
	enter_cpu(1);
	drain_local_pages();
	assert_int_equal(pcp_of(0, 0)->count, 3);
	assert_int_equal(pcp_of(0, 1)->count, 0);
	assert_int_equal(pcp_of(0, 2)->count, 3);
	drain_all_pages();
	for (cpu = 0; cpu < 3; cpu++)
		assert_int_equal(pcp_of(0, cpu)->count, 0);
	assert_all_free();
}

/* ---- nodes ---- */

static void test_node_fallback(void **state)
{
	struct folio *a, *b, *c, *d;

	sys_up(2, 2, 1024);
	assert_null(folio_alloc(0, 2));
	assert_null(folio_alloc(MAX_PAGE_ORDER + 1, 0));
	/* a 4 MiB zone: zone_batchsize() says 0, the pcp gets 1 */
	assert_int_equal(pcp_of(0, 1)->batch, 1);
	assert_int_equal(pcp_of(1, 1)->high, 56);
	enter_cpu(1);
	/* CPU 1 lives on node 1 */
	a = folio_alloc(MAX_PAGE_ORDER, -1);
	b = folio_alloc(MAX_PAGE_ORDER, -1);
	assert_int_equal(folio_nid(a), 1);
	assert_int_equal(folio_nid(b), 1);
	/* node 1 is full: both kinds of request fall back to node 0 */
	c = folio_alloc(0, -1);
	d = folio_alloc(2, 1);
	assert_non_null(c);
	assert_non_null(d);
	assert_int_equal(folio_nid(c), 0);
	assert_int_equal(folio_nid(d), 0);
	assert_int_equal(zone_free_pages_exact(zone_of(1)), 0);
	assert_int_equal(zone_free_pages_exact(zone_of(0)), 1024 - 1 - 4);
	/* a folio freed on CPU 1 goes to CPU 1's pcp of the folio's zone */
	put_folio(c);
	/* batch 1: every refill was used up at once, so only c is there */
	assert_int_equal(pcp_of(0, 1)->count, 1);
	assert_int_equal(pcp_of(1, 1)->count, 0);
	put_folio(a);
	put_folio(b);
	put_folio(d);
	leave_cpu();
	enter_cpu(0);
	assert_int_equal(folio_nid(a = folio_alloc(0, -1)), 0);
	put_folio(a);
	assert_all_free();
}

/* ---- batches ---- */

static void test_free_unref_folios(void **state)
{
	static const unsigned int orders[] = { 0, 1, 2, 3, 4, 9, 0, 5 };
	struct folio_batch fbatch;
	unsigned long pages = 0, free0, base0, base1;
	int i, pass;

	sys_up(2, 2, SMALL_NODE);
	for (pass = 0; pass < 2; pass++) {
		/* pass 0: a model CPU, pass 1: a plain thread */
		if (pass == 0)
			enter_cpu(0);
		folio_batch_init(&fbatch);
		base0 = zone_free_pages_exact(zone_of(0));
		base1 = zone_free_pages_exact(zone_of(1));
		pages = 0;
		for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
			unsigned int order = orders[i % ARRAY_SIZE(orders)];
			struct folio *folio = folio_alloc(order, i & 1);

			assert_non_null(folio);
			assert_true(folio_put_testzero(folio));
			folio_batch_add(&fbatch, folio);
			pages += 1UL << order;
		}
		assert_int_equal(folio_batch_space(&fbatch), 0);
		assert_int_equal(zone_free_pages_exact(zone_of(0)) +
				 zone_free_pages_exact(zone_of(1)),
				 base0 + base1 - pages);
		free0 = sum_vm_event(PGFREE);
		free_unref_folios(&fbatch);
		assert_int_equal(folio_batch_count(&fbatch), 0);
		assert_int_equal(sum_vm_event(PGFREE) - free0, pages);
		assert_int_equal(zone_free_pages_exact(zone_of(0)), base0);
		assert_int_equal(zone_free_pages_exact(zone_of(1)), base1);
		if (pass == 1) {
			assert_int_equal(pcp_of(0, 0)->count, 0);
			assert_int_equal(pcp_of(1, 0)->count, 0);
		}
		drain_all_pages();
		leave_cpu();
	}
	assert_all_free();
}

/* ---- bad pages ---- */

enum bad_kind {
	BAD_REFCOUNT,
	BAD_LRU,
	BAD_MAPCOUNT,
	BAD_DOUBLE_FREE,
	BAD_ORDER,
	BAD_MAPPING,
	BAD_MEMCG,
	BAD_ACTIVE,
	BAD_TAIL,
};

static void make_bad_and_free(enum bad_kind kind)
{
	struct folio *folio = folio_alloc(kind == BAD_ORDER || kind == BAD_TAIL ? 2 : 0, -1);

	switch (kind) {
	case BAD_REFCOUNT:
		break;			/* refcount still 1 */
	case BAD_LRU:
		folio_put_testzero(folio);
		folio_set_lru(folio);
		break;
	case BAD_MAPCOUNT:
		folio_put_testzero(folio);
		atomic_set(&folio->_mapcount, 0);
		break;
	case BAD_DOUBLE_FREE:
		/* straight to the buddy, then again */
		folio_put_testzero(folio);
		leave_cpu();
		free_frozen_pages(folio, 0);
		break;
	case BAD_ORDER:
		folio_put_testzero(folio);
		free_frozen_pages(folio, 0);
		return;
	case BAD_MAPPING:
		folio_put_testzero(folio);
		folio->mapping = (struct address_space *)0x1000;
		break;
	case BAD_MEMCG:
		folio_put_testzero(folio);
		folio->memcg_data = 0x2000;
		break;
	case BAD_ACTIVE:
		folio_put_testzero(folio);
		folio_set_active(folio);
		break;
	case BAD_TAIL:
		folio_put_testzero(folio);
		folio[3].compound_head = 0;
		free_frozen_pages(folio, 2);
		return;
	}
	free_frozen_pages(folio, 0);
}

static void expect_abort(enum bad_kind kind, const char *why)
{
	char buf[1024] = "";
	int fds[2], status;
	ssize_t len, got = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		make_bad_and_free(kind);
		_exit(0);	/* not reached when the check works */
	}
	close(fds[1]);
	while ((len = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += len;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_true(strncmp(buf, "BUG: Bad page state", 19) == 0);
	assert_non_null(strstr(buf, " pfn:"));
	assert_non_null(strstr(buf, " flags:"));
	assert_non_null(strstr(buf, why));
}

static void test_bad_page_aborts(void **state)
{
	struct folio *folio;

	sys_up(1, 1, SMALL_NODE);
	enter_cpu(0);
	expect_abort(BAD_REFCOUNT, "nonzero _refcount");
	expect_abort(BAD_LRU, "PAGE_FLAGS_CHECK_AT_FREE");
	expect_abort(BAD_MAPCOUNT, "nonzero mapcount");
	expect_abort(BAD_DOUBLE_FREE, "PG_buddy");
	expect_abort(BAD_ORDER, "order does not match");
	expect_abort(BAD_MAPPING, "non-NULL mapping");
	expect_abort(BAD_MEMCG, "still charged");
	expect_abort(BAD_ACTIVE, "PAGE_FLAGS_CHECK_AT_FREE");
	expect_abort(BAD_TAIL, "corrupted compound_head");
	/* the parent's allocator never saw any of it */
	drain_all_pages();
	assert_all_free();

	/* an anonymous mapping is no bug: it is cleared on the way out */
	folio = folio_alloc(0, -1);
	folio->mapping = (struct address_space *)(0x3000 | PAGE_MAPPING_ANON);
	put_folio(folio);
	assert_all_free();
}

/* ---- concurrency ---- */

#define STRESS_HELD 64

struct stress_arg {
	int cpu;
	int ops;
	unsigned long allocated;	/* pages */
	unsigned long freed;
	unsigned long failed;
};

/*
 * Stamp the start and end of every page of a folio with its owner's tag
 * and check them on the way out: two owners of one page would clobber
 * each other's stamps.
 */
#define STAMP_BYTES 64
static void stamp(struct folio *folio, unsigned char v)
{
	unsigned char *mem = folio_address(folio);
	long i;

	for (i = 0; i < folio_nr_pages(folio); i++, mem += PAGE_SIZE) {
		memset(mem, v, STAMP_BYTES);
		mem[PAGE_SIZE - 1] = v;
	}
}

static bool stamp_intact(struct folio *folio, unsigned char v)
{
	unsigned char *mem = folio_address(folio);
	long i;
	int j;

	for (i = 0; i < folio_nr_pages(folio); i++, mem += PAGE_SIZE) {
		for (j = 0; j < STAMP_BYTES; j++)
			if (mem[j] != v)
				return false;
		if (mem[PAGE_SIZE - 1] != v)
			return false;
	}
	return true;
}

static void *stress_thread(void *p)
{
	static const unsigned int orders[] = { 0, 0, 0, 0, 1, 2, 3, 4, 0, 9 };
	struct stress_arg *arg = p;
	struct folio *held[STRESS_HELD] = { NULL };
	unsigned char tag[STRESS_HELD];
	struct folio_batch fbatch;
	unsigned long seed = 12345 + (unsigned long)arg->cpu;
	int i, op;

	if (cpu_enter(arg->cpu, false))
		return (void *)1;
	folio_batch_init(&fbatch);
	for (op = 0; op < arg->ops; op++) {
		int slot = (int)(lcg(&seed) % STRESS_HELD);
		struct folio *folio = held[slot];

		if (folio) {
			if (!stamp_intact(folio, tag[slot]))
				return (void *)4;
			arg->freed += folio_nr_pages(folio);
			held[slot] = NULL;
			if (!folio_put_testzero(folio))
				return (void *)2;
			if (lcg(&seed) & 1) {
				free_frozen_pages(folio, folio_order(folio));
			} else if (!folio_batch_add(&fbatch, folio)) {
				free_unref_folios(&fbatch);
			}
			continue;
		}
		{
			unsigned int order = orders[lcg(&seed) % ARRAY_SIZE(orders)];
			int nid = (int)(lcg(&seed) % 3) - 1;

			folio = folio_alloc(order, nid);
			if (!folio) {
				arg->failed++;
				continue;
			}
			if (folio_ref_count(folio) != 1 || folio_order(folio) != order ||
			    (folio_pfn(folio) & ((1UL << order) - 1)))
				return (void *)3;
			tag[slot] = (unsigned char)(arg->cpu * 64 + slot);
			stamp(folio, tag[slot]);
			held[slot] = folio;
			arg->allocated += 1UL << order;
		}
		if (op % 4096 == 4095)
			drain_local_pages();
	}
	for (i = 0; i < STRESS_HELD; i++) {
		if (!held[i])
			continue;
		if (!stamp_intact(held[i], tag[i]))
			return (void *)4;
		arg->freed += folio_nr_pages(held[i]);
		if (!folio_put_testzero(held[i]))
			return (void *)2;
		free_frozen_pages(held[i], folio_order(held[i]));
	}
	if (folio_batch_count(&fbatch))
		free_unref_folios(&fbatch);
	cpu_exit();
	return NULL;
}

static void run_stress(int nr_threads, int nr_nodes, unsigned long node_pages,
		       int ops)
{
	struct stress_arg args[4] = { { 0 } };
	pthread_t tids[4];
	unsigned long allocated = 0, freed = 0;
	int i;

	sys_up(nr_threads, nr_nodes, node_pages);
	for (i = 0; i < nr_threads; i++) {
		args[i].cpu = i;
		args[i].ops = ops;
		assert_int_equal(pthread_create(&tids[i], NULL, stress_thread, &args[i]), 0);
	}
	for (i = 0; i < nr_threads; i++) {
		void *ret;

		assert_int_equal(join_sleep(tids[i], &ret), 0);
		assert_null(ret);
		allocated += args[i].allocated;
		freed += args[i].freed;
	}
	assert_true(allocated > 0);
	assert_int_equal(allocated, freed);
	assert_int_equal(sum_vm_event(PGALLOC_NORMAL), allocated);
	assert_int_equal(sum_vm_event(PGFREE), freed);
	vmstat_refresh();
	assert_all_free();
	assert_int_equal(global_zone_page_state(NR_FREE_PAGES), nr_nodes * node_pages);
}

static void test_stress_2cpus(void **state)
{
	run_stress(2, 1, SMALL_NODE, STRESS_OPS);
}

/*
 * 4 CPUs over 2 small nodes: 4 x 64 slots can ask for more than the
 * 2 x 4 MiB there is, so exhaustion, fallback and remote drains race.
 */
static void test_stress_4cpus_tight(void **state)
{
	run_stress(4, 2, 1024, TIGHT_OPS);
}

static void test_stress_4cpus(void **state)
{
	run_stress(4, 2, SMALL_NODE, STRESS_OPS);
}

#define T(f) cmocka_unit_test_teardown(f, sys_down)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_init_rejects),
		T(test_init_one_node),
		T(test_init_two_nodes),
		T(test_big_zone_batch),
		T(test_alloc_orders_model_cpu),
		T(test_alloc_orders_plain_thread),
		T(test_split_exact),
		T(test_merge_back),
		T(test_exhaustion),
		T(test_exhaustion_drains_remote_pcp),
		T(test_pcp_refill_batch),
		T(test_pcp_refill_grows),
	T(test_pcp_high_frees_batch),
	T(test_pcp_free_high),
	T(test_pcp_reclaim_active),
		T(test_drain_all_remote),
		T(test_node_fallback),
		T(test_free_unref_folios),
		T(test_bad_page_aborts),
		T(test_stress_2cpus),
		T(test_stress_4cpus_tight),
		T(test_stress_4cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
