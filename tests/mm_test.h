/* SPDX-License-Identifier: MIT */
/*
 * Set-up and probes shared by the address-space tests (test_memory.c,
 * test_shmem.c): one node, a memcg "t", the test thread as CPU 0.
 */
#ifndef LRULAB_TESTS_MM_TEST_H
#define LRULAB_TESTS_MM_TEST_H

#include <string.h>
#include <lrulab/lrulab.h>

#define NODE_PAGES 16384

static struct mem_cgroup *memcg;

static inline int mm_test_setup(int nr_cpus)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = nr_cpus;
	cfg.node_pages = NODE_PAGES;
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		return -1;
	memcg = mem_cgroup_create(root_mem_cgroup, "t");
	return memcg ? 0 : -1;
}

static inline int teardown(void **state)
{
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
	return 0;
}

static inline struct zone *zone0(void)
{
	return &NODE_DATA(0)->node_zones[ZONE_NORMAL];
}

/*
 * Free pages once every pcp list is back in the buddy, the PTE tables'
 * pages counted as free: the tests count what folios take.
 */
static inline unsigned long free_pages(void)
{
	drain_all_pages();
	return zone_buddy_free_pages(zone0()) + pte_table_pages();
}

static inline struct lruvec *test_lruvec(void)
{
	return mem_cgroup_lruvec(memcg, NODE_DATA(0));
}

static inline unsigned long list_len(enum lru_list lru)
{
	struct list_head *pos;
	unsigned long n = 0;

	list_for_each(pos, &test_lruvec()->lists[lru])
		n++;
	return n;
}

static inline unsigned long zone_size(enum lru_list lru)
{
	return memcg->nodeinfo[0]->lru_zone_size[ZONE_NORMAL][lru];
}

static inline unsigned long node_stat(enum node_stat_item item)
{
	vmstat_refresh();
	return node_page_state(NODE_DATA(0), item);
}

static inline unsigned long memcg_stat(enum node_stat_item item)
{
	mem_cgroup_flush_all();
	return lruvec_page_state(test_lruvec(), item);
}

static inline unsigned long addr_of(struct vm_area_struct *vma, unsigned long page)
{
	return vma->vm_start + page * PAGE_SIZE;
}

static inline pte_t pte_at(struct vm_area_struct *vma, unsigned long page)
{
	return ptep_get(vma_pte(vma, addr_of(vma, page)));
}

static inline struct folio *folio_at(struct vm_area_struct *vma, unsigned long page)
{
	pte_t pte = pte_at(vma, page);

	assert_true(pte_present(pte));
	return pte_folio(pte);
}

/* Fill every free page with garbage; returns how many there were. */
static inline unsigned long poison_free_pages(void)
{
	unsigned long pfn, n = 0;

	drain_all_pages();
	for (pfn = 0; pfn < max_pfn; pfn++) {
		struct folio *page = pfn_folio(pfn);

		/* tails of allocated folios have refcount 0 too */
		if ((page->compound_head & 1) || folio_ref_count(page))
			continue;
		memset(folio_address(page), 0x5a, PAGE_SIZE);
		n++;
	}
	return n;
}

static inline bool all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i])
			return false;
	return true;
}

#endif /* LRULAB_TESTS_MM_TEST_H */
