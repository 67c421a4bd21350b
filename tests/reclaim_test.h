/* SPDX-License-Identifier: MIT */
/*
 * Set-up shared by the reclaim tests (test_vmscan.c, test_workingset.c):
 * one node of @node_pages, two model CPUs with the test thread as CPU 0,
 * a memcg under the root, every switch off; teardown also turns swap
 * off, since most tests swap.
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

#endif /* LRULAB_TESTS_RECLAIM_TEST_H */
