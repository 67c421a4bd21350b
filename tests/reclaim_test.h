/* SPDX-License-Identifier: MIT */
/*
 * Set-up shared by the reclaim tests (test_vmscan.c, test_workingset.c):
 * one node of @node_pages, two model CPUs with the test thread as CPU 0,
 * a memcg under the root, every switch off; teardown also turns swap
 * off, since most tests swap.  Include after cmocka.h.
 */
#ifndef LRULAB_TESTS_RECLAIM_TEST_H
#define LRULAB_TESTS_RECLAIM_TEST_H

#include <lrulab/lrulab.h>
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>

static struct mem_cgroup *memcg;

static inline int reclaim_test_setup(unsigned long node_pages, const char *name)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = 2;
	cfg.node_pages = node_pages;
	lrulab_switches_clear();
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		return -1;
	memcg = mem_cgroup_create(root_mem_cgroup, name);
	return memcg ? 0 : -1;
}

static inline int teardown(void **state)
{
	swapoff();
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
	lrulab_switches_clear();
	return 0;
}

static inline struct lruvec *lruvec_of(struct mem_cgroup *m)
{
	return mem_cgroup_lruvec(m, NODE_DATA(0));
}

/*
 * Anon pages a swap-out and swap-in must keep: word i % 512 of page i
 * holds a value of its own, every other word is zero.
 */
static inline void write_pattern(struct vm_area_struct *vma, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++) {
		unsigned long addr = vma->vm_start + i * PAGE_SIZE;
		unsigned long *p;

		assert_int_equal(mm_access(vma, addr, true), 0);
		p = folio_address(pte_page(ptep_get(vma_pte(vma, addr))));
		__atomic_store_n(&p[i % 512], i * 2654435761UL + 1, __ATOMIC_RELAXED);
	}
}

static inline void check_pattern(struct vm_area_struct *vma, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++) {
		unsigned long addr = vma->vm_start + i * PAGE_SIZE;
		unsigned long *p;

		/* a swap PTE faults in through do_swap_page */
		assert_int_equal(mm_access(vma, addr, false), 0);
		p = folio_address(pte_page(ptep_get(vma_pte(vma, addr))));
		assert_int_equal(__atomic_load_n(&p[i % 512], __ATOMIC_RELAXED),
				 i * 2654435761UL + 1);
		assert_int_equal(p[(i + 1) % 512], 0);
	}
}

static inline unsigned long memcg_ev(struct mem_cgroup *m, enum vm_event_item item)
{
	mem_cgroup_flush_all();
	return memcg_events(m, item);
}

/* pgscan, pgsteal, pgrefill: lruvec stats (v7.2), the memcg's after a flush */
static inline unsigned long memcg_stat(struct mem_cgroup *m, enum node_stat_item item)
{
	mem_cgroup_flush_all();
	return memcg_page_state(m, item);
}

/* the same items' node totals, /proc/vmstat's */
static inline unsigned long node_stat_sum(enum node_stat_item item)
{
	vmstat_refresh();
	return global_node_page_state(item);
}

#endif /* LRULAB_TESTS_RECLAIM_TEST_H */
