// SPDX-License-Identifier: MIT
/*
 * vmstat: thresholds, diff folding and overstep, remote folds, clamped
 * and monotonic readers, events, /proc/vmstat output, and a concurrent
 * update-versus-fold run that must come out exact.
 *
 * The nodes are built here rather than by page_alloc_init() so that the
 * counters can be checked on their own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

/*
 * mm_init.c owns these; weak here so that the test links alone and
 * still links if the library's definitions are pulled in.
 */
__attribute__((weak)) int nr_node_ids;
__attribute__((weak)) struct pglist_data *node_data[MAX_NUMNODES];

#define GIB_PAGES (1UL << (30 - PAGE_SHIFT))
#define MIB_PAGES (1UL << (20 - PAGE_SHIFT))

static void nodes_create(int nr, const unsigned long *managed)
{
	int nid;

	for (nid = 0; nid < nr; nid++) {
		/* sizeof is a multiple of the 64-byte alignment it carries */
		struct pglist_data *pgdat = aligned_alloc(L1_CACHE_BYTES,
							  sizeof(*pgdat));

		assert_non_null(pgdat);
		memset(pgdat, 0, sizeof(*pgdat));
		pgdat->node_id = nid;
		pgdat->node_zones[ZONE_NORMAL].zone_pgdat = pgdat;
		pgdat->node_zones[ZONE_NORMAL].managed_pages = managed[nid];
		pgdat->node_zones[ZONE_NORMAL].name = "Normal";
		node_data[nid] = pgdat;
	}
	nr_node_ids = nr;
}

static void nodes_destroy(void)
{
	int nid;

	for_each_node(nid) {
		free(node_data[nid]);
		node_data[nid] = NULL;
	}
	nr_node_ids = 0;
}

/* @cpus model CPUs, @nr nodes with the given zone sizes, vmstat set up. */
static void world_create(int cpus, int nr, const unsigned long *managed)
{
	assert_int_equal(lrulab_cpus_init(cpus), 0);
	nodes_create(nr, managed);
	assert_int_equal(vmstat_init(), 0);
}

static void world_destroy(void)
{
	cpu_exit();
	vmstat_exit();
	nodes_destroy();
	lrulab_cpus_exit();
}

/* Run the calling (test) thread as model CPU @cpu from now on. */
static void become_cpu(int cpu)
{
	cpu_exit();
	assert_int_equal(cpu_enter(cpu, false), 0);
}

static struct zone *zone0(int nid)
{
	return &NODE_DATA(nid)->node_zones[ZONE_NORMAL];
}

static int node_diff(int nid, int cpu, enum node_stat_item item)
{
	return READ_ONCE(per_cpu_ptr(NODE_DATA(nid)->per_cpu_nodestats,
				     cpu)->vm_node_stat_diff[item]);
}

static int zone_diff(int nid, int cpu, enum zone_stat_item item)
{
	return READ_ONCE(per_cpu_ptr(zone0(nid)->per_cpu_zonestats,
				     cpu)->vm_stat_diff[item]);
}

static long node_raw(int nid, enum node_stat_item item)
{
	return atomic_long_read(&NODE_DATA(nid)->vm_stat[item]);
}

/* 4 CPUs, node 0 just under 1 GiB, node 1 8 GiB: thresholds 24 and 48. */
static const unsigned long two_nodes[] = { GIB_PAGES - 1, 8 * GIB_PAGES };
#define T0 24
#define T1 48

static void test_names(void **state)
{
	assert_string_equal(zone_stat_name(NR_FREE_PAGES), "nr_free_pages");
	assert_string_equal(zone_stat_name(NR_ZONE_ACTIVE_FILE),
			    "nr_zone_active_file");
	assert_string_equal(node_stat_name(NR_ANON_MAPPED), "nr_anon_pages");
	assert_string_equal(node_stat_name(NR_SWAPCACHE), "nr_swapcached");
	assert_string_equal(vm_event_name(PGPGIN), "pgpgin");
	assert_string_equal(vm_event_name(UNEVICTABLE_PGCULLED),
			    "unevictable_pgs_culled");
	assert_string_equal(vm_event_name(THP_DEFERRED_SPLIT_PAGE),
			    "thp_deferred_split_page");
	assert_null(zone_stat_name(NR_VM_ZONE_STAT_ITEMS));
	assert_null(node_stat_name(NR_VM_NODE_STAT_ITEMS));
	assert_null(vm_event_name(NR_VM_EVENT_ITEMS));
}

static int threshold_for(int cpus, unsigned long managed)
{
	struct zone zone;

	memset(&zone, 0, sizeof(zone));
	zone.managed_pages = managed;
	assert_int_equal(lrulab_cpus_init(cpus), 0);
	return calculate_normal_threshold(&zone);
}

/*
 * 2 * fls(cpus) * (1 + fls(pages >> 15)), at most 125.  Worked by hand:
 * 1 GiB is 2^18 pages, >> 15 = 8, fls 4; one page less gives 7, fls 3.
 */
static void test_threshold_formula(void **state)
{
	assert_int_equal(threshold_for(1, GIB_PAGES - 1), 8);	/* 2*1*(1+3) */
	assert_int_equal(threshold_for(1, GIB_PAGES), 10);	/* 2*1*(1+4) */
	assert_int_equal(threshold_for(2, 128 * MIB_PAGES - 1), 4); /* 2*2*1 */
	assert_int_equal(threshold_for(2, 2 * GIB_PAGES), 24);	/* 2*2*(1+5) */
	assert_int_equal(threshold_for(3, 0), 4);		/* 2*2*(1+0) */
	assert_int_equal(threshold_for(4, 8 * GIB_PAGES), 48);	/* 2*3*(1+7) */
	assert_int_equal(threshold_for(4, 16 * GIB_PAGES - 1), 48);
	assert_int_equal(threshold_for(4, 16 * GIB_PAGES), 54);	/* 2*3*(1+8) */
	assert_int_equal(threshold_for(64, 3 * GIB_PAGES / 2), 70); /* 2*7*(1+4) */
	assert_int_equal(threshold_for(64, 2 * GIB_PAGES), 84);	/* 2*7*(1+5) */
	assert_int_equal(threshold_for(256, GIB_PAGES - 1), 72); /* 2*9*(1+3) */
	assert_int_equal(threshold_for(256, 8 * GIB_PAGES), 125); /* 144 capped */
	assert_int_equal(threshold_for(128, 1UL << 40), 125);	/* 2*8*(1+26) */
	lrulab_cpus_exit();
}

static void test_refresh_thresholds(void **state)
{
	/* node 2 has no managed pages: unpopulated, threshold 0 */
	static const unsigned long managed[] = { GIB_PAGES - 1, 8 * GIB_PAGES, 0 };
	int cpu;

	world_create(4, 3, managed);
	for_each_possible_cpu(cpu) {
		assert_int_equal(per_cpu_ptr(zone0(0)->per_cpu_zonestats, cpu)
				 ->stat_threshold, T0);
		assert_int_equal(per_cpu_ptr(NODE_DATA(0)->per_cpu_nodestats, cpu)
				 ->stat_threshold, T0);
		assert_int_equal(per_cpu_ptr(zone0(1)->per_cpu_zonestats, cpu)
				 ->stat_threshold, T1);
		assert_int_equal(per_cpu_ptr(NODE_DATA(1)->per_cpu_nodestats, cpu)
				 ->stat_threshold, T1);
		assert_int_equal(per_cpu_ptr(zone0(2)->per_cpu_zonestats, cpu)
				 ->stat_threshold, 0);
		assert_int_equal(per_cpu_ptr(NODE_DATA(2)->per_cpu_nodestats, cpu)
				 ->stat_threshold, 0);
	}

	/* a zone that grows gets the bigger threshold on the next refresh */
	zone0(2)->managed_pages = 8 * GIB_PAGES;
	refresh_zone_stat_thresholds();
	for_each_possible_cpu(cpu)
		assert_int_equal(per_cpu_ptr(NODE_DATA(2)->per_cpu_nodestats, cpu)
				 ->stat_threshold, T1);

	/* threshold 0 (node 2 before the refresh) means no local caching */
	zone0(2)->managed_pages = 0;
	refresh_zone_stat_thresholds();
	become_cpu(1);
	__inc_node_state(NODE_DATA(2), NR_SHMEM);
	assert_int_equal(node_diff(2, 1, NR_SHMEM), 0);
	assert_int_equal(node_raw(2, NR_SHMEM), 1);
	assert_int_equal(global_node_page_state(NR_SHMEM), 1);
	world_destroy();
}

static void test_mod_threshold(void **state)
{
	struct pglist_data *pgdat;
	struct zone *zone;

	world_create(4, 2, two_nodes);
	pgdat = NODE_DATA(0);
	zone = zone0(0);
	become_cpu(2);

	/* exactly at the threshold: still local */
	mod_node_page_state(pgdat, NR_INACTIVE_ANON, T0);
	assert_int_equal(node_diff(0, 2, NR_INACTIVE_ANON), T0);
	assert_int_equal(node_page_state(pgdat, NR_INACTIVE_ANON), 0);
	assert_int_equal(global_node_page_state(NR_INACTIVE_ANON), 0);
	assert_int_equal(node_page_state_snapshot(pgdat, NR_INACTIVE_ANON), T0);

	/* one more passes it: the whole 25 folds, the diff is 0 (no overstep) */
	__mod_node_page_state(pgdat, NR_INACTIVE_ANON, 1);
	assert_int_equal(node_diff(0, 2, NR_INACTIVE_ANON), 0);
	assert_int_equal(node_page_state(pgdat, NR_INACTIVE_ANON), 25);
	assert_int_equal(global_node_page_state(NR_INACTIVE_ANON), 25);
	assert_int_equal(node_page_state_snapshot(pgdat, NR_INACTIVE_ANON), 25);

	/* 10 local, then -40: -30 is past -24, folds to 25 - 30 = -5 */
	mod_node_page_state(pgdat, NR_INACTIVE_ANON, 10);
	assert_int_equal(node_page_state(pgdat, NR_INACTIVE_ANON), 25);
	assert_int_equal(node_page_state_snapshot(pgdat, NR_INACTIVE_ANON), 35);
	mod_node_page_state(pgdat, NR_INACTIVE_ANON, -40);
	assert_int_equal(node_diff(0, 2, NR_INACTIVE_ANON), 0);
	assert_int_equal(node_raw(0, NR_INACTIVE_ANON), -5);
	assert_int_equal(node_page_state(pgdat, NR_INACTIVE_ANON), 0);
	assert_int_equal(global_node_page_state(NR_INACTIVE_ANON), 0);
	assert_int_equal(node_page_state_snapshot(pgdat, NR_INACTIVE_ANON), 0);
	assert_true(node_page_state_monotonic(pgdat, NR_INACTIVE_ANON) ==
		    ULONG_MAX - 4);
	assert_true(global_node_page_state_monotonic(NR_INACTIVE_ANON) ==
		    ULONG_MAX - 4);

	/* a delta far beyond an s8 folds whole */
	mod_node_page_state(pgdat, NR_INACTIVE_ANON, 100000);
	assert_int_equal(node_page_state(pgdat, NR_INACTIVE_ANON), 99995);
	assert_int_equal(node_diff(0, 2, NR_INACTIVE_ANON), 0);

	/* zones: same rule, own threshold, own atomics */
	mod_zone_page_state(zone, NR_FREE_PAGES, 10);
	__mod_zone_page_state(zone, NR_FREE_PAGES, 14);
	assert_int_equal(zone_diff(0, 2, NR_FREE_PAGES), 24);
	assert_int_equal(zone_page_state(zone, NR_FREE_PAGES), 0);
	assert_int_equal(global_zone_page_state(NR_FREE_PAGES), 0);
	assert_int_equal(zone_page_state_snapshot(zone, NR_FREE_PAGES), 24);
	mod_zone_page_state(zone, NR_FREE_PAGES, 6);
	assert_int_equal(zone_diff(0, 2, NR_FREE_PAGES), 0);
	assert_int_equal(zone_page_state(zone, NR_FREE_PAGES), 30);
	assert_int_equal(global_zone_page_state(NR_FREE_PAGES), 30);

	/* node 1 (threshold 48) keeps 48 local where node 0 would fold */
	mod_node_page_state(NODE_DATA(1), NR_INACTIVE_ANON, 48);
	assert_int_equal(node_diff(1, 2, NR_INACTIVE_ANON), 48);
	assert_int_equal(node_page_state(NODE_DATA(1), NR_INACTIVE_ANON), 0);
	/* the global reflects node 0's fold only */
	assert_int_equal(global_node_page_state(NR_INACTIVE_ANON), 99995);

	/* nothing leaked to another CPU, node or item */
	assert_int_equal(node_diff(0, 1, NR_INACTIVE_ANON), 0);
	assert_int_equal(node_raw(0, NR_ACTIVE_ANON), 0);
	assert_int_equal(node_raw(1, NR_INACTIVE_ANON), 0);
	world_destroy();
}

static void test_inc_dec_overstep(void **state)
{
	struct pglist_data *pgdat;
	struct zone *zone;
	int i;

	world_create(4, 2, two_nodes);
	pgdat = NODE_DATA(0);
	zone = zone0(0);
	become_cpu(0);

	for (i = 0; i < T0; i++)
		__inc_node_state(pgdat, NR_FILE_PAGES);
	assert_int_equal(node_diff(0, 0, NR_FILE_PAGES), 24);
	assert_int_equal(node_raw(0, NR_FILE_PAGES), 0);

	/* the 25th: 25 + 24/2 folds, diff left at -12 */
	__inc_node_state(pgdat, NR_FILE_PAGES);
	assert_int_equal(node_diff(0, 0, NR_FILE_PAGES), -12);
	assert_int_equal(node_raw(0, NR_FILE_PAGES), 37);
	assert_int_equal(global_node_page_state(NR_FILE_PAGES), 37);
	assert_int_equal(node_page_state_snapshot(pgdat, NR_FILE_PAGES), 25);

	/* 36 more stay local (-12 .. 24), the 37th folds 37 again */
	for (i = 0; i < 36; i++)
		__inc_node_state(pgdat, NR_FILE_PAGES);
	assert_int_equal(node_diff(0, 0, NR_FILE_PAGES), 24);
	assert_int_equal(node_raw(0, NR_FILE_PAGES), 37);
	__inc_node_state(pgdat, NR_FILE_PAGES);
	assert_int_equal(node_diff(0, 0, NR_FILE_PAGES), -12);
	assert_int_equal(node_raw(0, NR_FILE_PAGES), 74);
	assert_int_equal(node_page_state_snapshot(pgdat, NR_FILE_PAGES), 62);

	/* decrements overstep the other way: from 100, 25 decs fold -37 */
	mod_node_page_state(pgdat, NR_SHMEM, 100);
	assert_int_equal(node_raw(0, NR_SHMEM), 100);
	for (i = 0; i < 25; i++)
		__dec_node_state(pgdat, NR_SHMEM);
	assert_int_equal(node_diff(0, 0, NR_SHMEM), 12);
	assert_int_equal(node_raw(0, NR_SHMEM), 63);
	assert_int_equal(node_page_state_snapshot(pgdat, NR_SHMEM), 75);

	/* zone counters: same overstep with the zone's threshold */
	for (i = 0; i < 25; i++)
		__inc_zone_state(zone, NR_ZONE_ACTIVE_FILE);
	assert_int_equal(zone_diff(0, 0, NR_ZONE_ACTIVE_FILE), -12);
	assert_int_equal(zone_page_state(zone, NR_ZONE_ACTIVE_FILE), 37);
	for (i = 0; i < 13; i++)
		__dec_zone_state(zone, NR_ZONE_ACTIVE_FILE);
	/* -12 - 13 = -25: folds -25 - 12, diff +12; 37 - 37 = 0 */
	assert_int_equal(zone_diff(0, 0, NR_ZONE_ACTIVE_FILE), 12);
	assert_int_equal(zone_page_state(zone, NR_ZONE_ACTIVE_FILE), 0);
	assert_int_equal(zone_page_state_snapshot(zone, NR_ZONE_ACTIVE_FILE), 12);
	assert_int_equal(global_zone_page_state(NR_ZONE_ACTIVE_FILE), 0);
	world_destroy();
}

/* The capped, odd threshold 125: the overstep is 125 >> 1 = 62. */
static void test_overstep_capped(void **state)
{
	static const unsigned long managed[] = { 8 * GIB_PAGES };
	struct pglist_data *pgdat;
	int i;

	world_create(256, 1, managed);
	pgdat = NODE_DATA(0);
	assert_int_equal(per_cpu_ptr(pgdat->per_cpu_nodestats, 255)
			 ->stat_threshold, 125);
	become_cpu(255);
	for (i = 0; i < 125; i++)
		__inc_node_state(pgdat, NR_ANON_MAPPED);
	assert_int_equal(node_diff(0, 255, NR_ANON_MAPPED), 125);
	assert_int_equal(node_raw(0, NR_ANON_MAPPED), 0);
	__inc_node_state(pgdat, NR_ANON_MAPPED);
	assert_int_equal(node_diff(0, 255, NR_ANON_MAPPED), -62);
	assert_int_equal(node_raw(0, NR_ANON_MAPPED), 188);

	mod_node_page_state(pgdat, NR_ANON_MAPPED, -63);
	/* -125 is not past -125: stays */
	assert_int_equal(node_diff(0, 255, NR_ANON_MAPPED), -125);
	__dec_node_state(pgdat, NR_ANON_MAPPED);
	/* -126 - 62 = -188 folds, diff +62 */
	assert_int_equal(node_diff(0, 255, NR_ANON_MAPPED), 62);
	assert_int_equal(node_raw(0, NR_ANON_MAPPED), 0);
	assert_int_equal(node_page_state_snapshot(pgdat, NR_ANON_MAPPED), 62);
	world_destroy();
}

static void test_refresh_cpu_folds(void **state)
{
	struct pglist_data *n0, *n1;
	int cpu;

	world_create(4, 2, two_nodes);
	n0 = NODE_DATA(0);
	n1 = NODE_DATA(1);

	/* every CPU leaves something below its thresholds */
	for_each_possible_cpu(cpu) {
		become_cpu(cpu);
		mod_node_page_state(n0, NR_ACTIVE_FILE, 10 + cpu);	/* 10..13 */
		mod_node_page_state(n1, NR_ACTIVE_FILE, -(20 + cpu));	/* -20..-23 */
		mod_zone_page_state(zone0(1), NR_ZONE_ACTIVE_FILE, 40 + cpu);
		__inc_node_state(n0, WORKINGSET_NODES);
	}
	cpu_exit();
	assert_int_equal(node_raw(0, NR_ACTIVE_FILE), 0);
	assert_int_equal(node_page_state_snapshot(n0, NR_ACTIVE_FILE), 46);
	assert_int_equal(node_page_state_snapshot(n1, NR_ACTIVE_FILE), 0);
	assert_int_equal(zone_page_state_snapshot(zone0(1), NR_ZONE_ACTIVE_FILE),
			 166);

	/* fold CPU 1 from this (non-CPU) thread: only its share moves */
	refresh_cpu_vm_stats(1);
	assert_int_equal(node_diff(0, 1, NR_ACTIVE_FILE), 0);
	assert_int_equal(node_diff(1, 1, NR_ACTIVE_FILE), 0);
	assert_int_equal(zone_diff(1, 1, NR_ZONE_ACTIVE_FILE), 0);
	assert_int_equal(node_diff(0, 2, NR_ACTIVE_FILE), 12);
	assert_int_equal(node_raw(0, NR_ACTIVE_FILE), 11);
	assert_int_equal(node_raw(1, NR_ACTIVE_FILE), -21);
	assert_int_equal(atomic_long_read(&vm_node_stat[NR_ACTIVE_FILE]), -10);
	assert_int_equal(global_node_page_state(NR_ACTIVE_FILE), 0);
	assert_int_equal(zone_page_state(zone0(1), NR_ZONE_ACTIVE_FILE), 41);
	assert_int_equal(global_zone_page_state(NR_ZONE_ACTIVE_FILE), 41);
	assert_int_equal(node_raw(0, WORKINGSET_NODES), 1);

	/* out-of-range CPUs are ignored */
	refresh_cpu_vm_stats(-1);
	refresh_cpu_vm_stats(4);

	vmstat_refresh();
	assert_int_equal(node_page_state(n0, NR_ACTIVE_FILE), 46);
	assert_int_equal(node_raw(1, NR_ACTIVE_FILE), -86);
	assert_int_equal(node_page_state(n1, NR_ACTIVE_FILE), 0);
	assert_int_equal(atomic_long_read(&vm_node_stat[NR_ACTIVE_FILE]), -40);
	assert_int_equal(zone_page_state(zone0(1), NR_ZONE_ACTIVE_FILE), 166);
	assert_int_equal(global_zone_page_state(NR_ZONE_ACTIVE_FILE), 166);
	assert_int_equal(node_page_state(n0, WORKINGSET_NODES), 4);
	assert_int_equal(global_node_page_state(WORKINGSET_NODES), 4);
	for_each_possible_cpu(cpu) {
		assert_int_equal(node_diff(0, cpu, NR_ACTIVE_FILE), 0);
		assert_int_equal(node_diff(1, cpu, NR_ACTIVE_FILE), 0);
		assert_int_equal(zone_diff(1, cpu, NR_ZONE_ACTIVE_FILE), 0);
		assert_int_equal(node_diff(0, cpu, WORKINGSET_NODES), 0);
	}
	world_destroy();
}

/* A thread that is not a model CPU updates the atomics directly. */
static void test_non_cpu_thread(void **state)
{
	struct pglist_data *pgdat;

	world_create(4, 2, two_nodes);
	pgdat = NODE_DATA(1);
	assert_true(smp_processor_id() < 0);

	mod_node_page_state(pgdat, NR_UNEVICTABLE, 5);
	__inc_node_state(pgdat, NR_UNEVICTABLE);
	__inc_node_state(pgdat, NR_UNEVICTABLE);
	__dec_node_state(pgdat, NR_UNEVICTABLE);
	assert_int_equal(node_page_state(pgdat, NR_UNEVICTABLE), 6);
	assert_int_equal(global_node_page_state(NR_UNEVICTABLE), 6);
	__inc_zone_state(zone0(1), NR_MLOCK);
	mod_zone_page_state(zone0(1), NR_MLOCK, 2);
	assert_int_equal(zone_page_state(zone0(1), NR_MLOCK), 3);
	assert_int_equal(global_zone_page_state(NR_MLOCK), 3);

	count_vm_events(PGREUSE, 7);
	assert_int_equal(sum_vm_event(PGREUSE), 7);
	world_destroy();
}

/*
 * Before vmstat_init() every update goes to the atomics; init rebuilds
 * the globals from the nodes (dropping a stale value) and exit folds.
 */
static void test_init_exit(void **state)
{
	struct pglist_data *pgdat;

	assert_int_equal(lrulab_cpus_init(2), 0);
	nodes_create(2, two_nodes);
	atomic_long_set(&vm_zone_stat[NR_FREE_PAGES], 12345);	/* stale */
	assert_int_equal(cpu_enter(1, false), 0);
	mod_zone_page_state(zone0(0), NR_FREE_PAGES, 1000);
	mod_zone_page_state(zone0(1), NR_FREE_PAGES, 3);
	__inc_node_state(NODE_DATA(0), NR_SHMEM);
	assert_int_equal(zone_page_state(zone0(0), NR_FREE_PAGES), 1000);
	assert_int_equal(zone_page_state(zone0(1), NR_FREE_PAGES), 3);

	assert_int_equal(vmstat_init(), 0);
	assert_int_equal(vmstat_init(), -EBUSY);
	assert_int_equal(global_zone_page_state(NR_FREE_PAGES), 1003);
	assert_int_equal(global_node_page_state(NR_SHMEM), 1);

	/* 2 CPUs, just under 1 GiB: 2*2*(1+3) = 16 */
	pgdat = NODE_DATA(0);
	mod_node_page_state(pgdat, NR_SHMEM, 16);
	assert_int_equal(node_diff(0, 1, NR_SHMEM), 16);
	count_vm_event(PGFREE);
	assert_int_equal(sum_vm_event(PGFREE), 1);

	cpu_exit();
	vmstat_exit();
	assert_null(pgdat->per_cpu_nodestats);
	assert_null(zone0(0)->per_cpu_zonestats);
	assert_null(vm_event_states);
	assert_int_equal(node_page_state(pgdat, NR_SHMEM), 17);
	assert_int_equal(global_node_page_state(NR_SHMEM), 17);
	assert_int_equal(sum_vm_event(PGFREE), 0);

	/* after exit: direct again, no crash */
	assert_int_equal(cpu_enter(0, false), 0);
	__dec_node_state(pgdat, NR_SHMEM);
	count_vm_event(PGFREE);
	assert_int_equal(node_page_state(pgdat, NR_SHMEM), 16);
	assert_int_equal(sum_vm_event(PGFREE), 1);
	cpu_exit();

	/* a second cycle starts from the nodes' counters and no events */
	assert_int_equal(vmstat_init(), 0);
	assert_int_equal(sum_vm_event(PGFREE), 1);
	vmstat_exit();
	assert_int_equal(sum_vm_event(PGFREE), 0);
	nodes_destroy();
	lrulab_cpus_exit();
}

/*
 * Monotonic counters: a wrap of the signed value reads 0 through the
 * clamped reader but gives the right unsigned delta through _monotonic.
 */
static void test_monotonic_wrap(void **state)
{
	struct pglist_data *pgdat;
	unsigned long a, ga, b, gb;

	world_create(4, 2, two_nodes);
	pgdat = NODE_DATA(0);
	atomic_long_set(&pgdat->vm_stat[WORKINGSET_RESTORE_FILE], LONG_MAX - 10);
	atomic_long_set(&vm_node_stat[WORKINGSET_RESTORE_FILE], LONG_MAX - 10);
	a = node_page_state_monotonic(pgdat, WORKINGSET_RESTORE_FILE);
	ga = global_node_page_state_monotonic(WORKINGSET_RESTORE_FILE);
	assert_true(a == (unsigned long)LONG_MAX - 10);
	assert_true(node_page_state(pgdat, WORKINGSET_RESTORE_FILE) ==
		    (unsigned long)LONG_MAX - 10);

	become_cpu(3);
	/* 20 stay local, 30 more make 50 > 24: folds 50 past LONG_MAX */
	mod_node_page_state(pgdat, WORKINGSET_RESTORE_FILE, 20);
	assert_true(node_page_state_monotonic(pgdat, WORKINGSET_RESTORE_FILE) == a);
	mod_node_page_state(pgdat, WORKINGSET_RESTORE_FILE, 30);
	assert_true(node_raw(0, WORKINGSET_RESTORE_FILE) == LONG_MIN + 39);

	b = node_page_state_monotonic(pgdat, WORKINGSET_RESTORE_FILE);
	gb = global_node_page_state_monotonic(WORKINGSET_RESTORE_FILE);
	assert_true(b == (unsigned long)LONG_MAX + 40);
	assert_true(b - a == 50);
	assert_true(gb - ga == 50);
	/* the clamped readers lose it: 0 - (LONG_MAX - 10) would be garbage */
	assert_int_equal(node_page_state(pgdat, WORKINGSET_RESTORE_FILE), 0);
	assert_int_equal(global_node_page_state(WORKINGSET_RESTORE_FILE), 0);

	/* increments with overstep and a remote fold keep the delta exact */
	{
		int i;

		for (i = 0; i < 100; i++)
			__inc_node_state(pgdat, WORKINGSET_RESTORE_FILE);
	}
	cpu_exit();
	refresh_cpu_vm_stats(3);
	assert_true(node_page_state_monotonic(pgdat, WORKINGSET_RESTORE_FILE) - a ==
		    150);
	assert_true(global_node_page_state_monotonic(WORKINGSET_RESTORE_FILE) - ga ==
		    150);
	world_destroy();
}

static void test_events(void **state)
{
	unsigned long all[NR_VM_EVENT_ITEMS];
	int cpu, i;

	world_create(4, 1, two_nodes);
	for_each_possible_cpu(cpu) {
		become_cpu(cpu);
		for (i = 0; i <= cpu; i++)
			count_vm_event(PGFAULT);	/* 1+2+3+4 */
		count_vm_events(PGDEACTIVATE, 32 * (cpu + 1));	/* 320 */
		__count_vm_event(PGACTIVATE);
	}
	/* a negative delta is an unsigned subtraction on that CPU's count */
	count_vm_events(PGDEACTIVATE, -20);
	cpu_exit();
	count_vm_events(PGFAULT, 5);		/* non-CPU thread */

	assert_int_equal(READ_ONCE(per_cpu_ptr(vm_event_states, 2)->event[PGFAULT]), 3);
	assert_int_equal(sum_vm_event(PGFAULT), 15);
	assert_int_equal(sum_vm_event(PGDEACTIVATE), 300);
	assert_int_equal(sum_vm_event(PGACTIVATE), 4);
	assert_int_equal(sum_vm_event(PGLAZYFREE), 0);

	all_vm_events(all);
	for (i = 0; i < NR_VM_EVENT_ITEMS; i++) {
		switch (i) {
		case PGFAULT:
			assert_int_equal(all[i], 15);
			break;
		case PGDEACTIVATE:
			assert_int_equal(all[i], 300);
			break;
		case PGACTIVATE:
			assert_int_equal(all[i], 4);
			break;
		default:
			assert_int_equal(all[i], 0);
		}
	}
	world_destroy();
}

static void test_reset(void **state)
{
	int cpu;

	world_create(4, 2, two_nodes);
	become_cpu(1);
	mod_node_page_state(NODE_DATA(0), NR_FILE_DIRTY, 100);
	mod_node_page_state(NODE_DATA(1), NR_FILE_DIRTY, 7);
	mod_zone_page_state(zone0(0), NR_ZONE_WRITE_PENDING, 3);
	count_vm_events(PGROTATED, 9);
	cpu_exit();
	count_vm_event(PGROTATED);
	mod_node_page_state(NODE_DATA(0), NR_WRITEBACK, 2);

	vmstat_reset();
	assert_int_equal(node_page_state_snapshot(NODE_DATA(0), NR_FILE_DIRTY), 0);
	assert_int_equal(node_page_state_snapshot(NODE_DATA(1), NR_FILE_DIRTY), 0);
	assert_int_equal(zone_page_state_snapshot(zone0(0), NR_ZONE_WRITE_PENDING), 0);
	assert_int_equal(global_node_page_state(NR_FILE_DIRTY), 0);
	assert_int_equal(global_node_page_state(NR_WRITEBACK), 0);
	assert_int_equal(sum_vm_event(PGROTATED), 0);
	for_each_possible_cpu(cpu)
		assert_int_equal(node_diff(1, cpu, NR_FILE_DIRTY), 0);
	/* thresholds survive a reset */
	assert_int_equal(per_cpu_ptr(NODE_DATA(1)->per_cpu_nodestats, 3)
			 ->stat_threshold, T1);
	world_destroy();
}

static const char expected_vmstat[] =
	"nr_free_pages 1000\n"
	"nr_zone_inactive_anon 5\n"
	"nr_zone_active_anon 0\n"
	"nr_zone_inactive_file 0\n"
	"nr_zone_active_file 0\n"
	"nr_zone_unevictable 0\n"
	"nr_zone_write_pending 0\n"
	"nr_mlock 0\n"
	"nr_inactive_anon 5\n"
	"nr_active_anon 0\n"
	"nr_inactive_file 0\n"
	"nr_active_file 40\n"
	"nr_unevictable 0\n"
	"nr_isolated_anon 0\n"
	"nr_isolated_file 0\n"
	"workingset_nodes 0\n"
	"workingset_refault_anon 0\n"
	"workingset_refault_file 0\n"
	"workingset_activate_anon 0\n"
	"workingset_activate_file 0\n"
	"workingset_restore_anon 0\n"
	"workingset_restore_file 0\n"
	"workingset_nodereclaim 0\n"
	"nr_anon_pages 1024\n"
	"nr_mapped 0\n"
	"nr_file_pages 0\n"
	"nr_dirty 0\n"
	"nr_writeback 0\n"
	"nr_shmem 0\n"
	"nr_anon_transparent_hugepages 2\n"
	"nr_vmscan_write 0\n"
	"nr_vmscan_immediate_reclaim 0\n"
	"nr_swapcached 0\n"
	"pgsteal_kswapd 0\n"
	"pgsteal_direct 0\n"
	"pgsteal_proactive 0\n"
	"pgsteal_anon 0\n"
	"pgsteal_file 0\n"
	"pgscan_kswapd 0\n"
	"pgscan_direct 0\n"
	"pgscan_proactive 0\n"
	"pgscan_anon 0\n"
	"pgscan_file 0\n"
	"pgrotate_anon 0\n"
	"pgrotate_file 0\n"
	"pgrefill 0\n"
	"pgpgin 5\n"
	"pgpgout 3\n"
	"pswpin 0\n"
	"pswpout 0\n"
	"pgalloc_normal 0\n"
	"pgfree 0\n"
	"pgactivate 0\n"
	"pgdeactivate 0\n"
	"pglazyfree 0\n"
	"pgfault 12\n"
	"pgmajfault 0\n"
	"pglazyfreed 0\n"
	"pgreuse 0\n"
	"pageoutrun 0\n"
	"pgrotated 0\n"
	"unevictable_pgs_culled 0\n"
	"unevictable_pgs_scanned 0\n"
	"unevictable_pgs_rescued 0\n"
	"thp_fault_alloc 0\n"
	"thp_split_page 0\n"
	"thp_deferred_split_page 1\n"
	"thp_swpout_fallback 0\n"
	"nr_tlb_remote_flush 0\n"
	"nr_tlb_remote_flush_received 0\n"
	"nr_unstable 0\n";

static void test_vmstat_show(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	world_create(4, 2, two_nodes);
	become_cpu(0);
	mod_zone_page_state(zone0(0), NR_FREE_PAGES, 1000);
	mod_zone_page_state(zone0(1), NR_ZONE_INACTIVE_ANON, 5);	/* local */
	mod_node_page_state(NODE_DATA(0), NR_INACTIVE_ANON, 5);	/* local */
	mod_node_page_state(NODE_DATA(0), NR_ACTIVE_FILE, 50);
	mod_node_page_state(NODE_DATA(1), NR_ACTIVE_FILE, -10);	/* local */
	mod_node_page_state(NODE_DATA(1), NR_ANON_MAPPED, 1024);
	mod_node_page_state(NODE_DATA(1), NR_ANON_THPS, 1100);	/* 2 THPs + */
	count_vm_events(PGPGIN, 10);	/* sectors */
	count_vm_events(PGPGOUT, 7);
	count_vm_events(PGFAULT, 12);
	count_vm_event(THP_DEFERRED_SPLIT_PAGE);
	cpu_exit();
	/* /proc/vmstat reads the globals: fold first, as stat_refresh does */
	vmstat_refresh();

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	vmstat_show(f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, expected_vmstat);
	assert_non_null(strstr(buf, "\nnr_inactive_anon 5\n"));
	free(buf);
	world_destroy();
}

/*
 * Three model CPUs update the same node item while a fourth thread (not
 * a CPU) folds their diffs remotely and also updates directly.  Every
 * update must be counted exactly once.
 */
#define RACE_ITERS 20000
#define RACE_CPUS 3

static int race_done;

static void *race_updater(void *arg)
{
	struct pglist_data *pgdat = NODE_DATA(0);
	int cpu = (int)(long)arg, i;

	if (cpu_enter(cpu, false))
		return (void *)1L;
	for (i = 0; i < RACE_ITERS; i++) {
		__inc_node_state(pgdat, NR_FILE_PAGES);
		mod_node_page_state(pgdat, NR_FILE_PAGES, 3);
		if (i & 1)
			__dec_node_state(pgdat, NR_FILE_PAGES);
		__inc_zone_state(zone0(0), NR_ZONE_INACTIVE_FILE);
		count_vm_event(PGREUSE);
	}
	cpu_exit();
	return NULL;
}

static void *race_folder(void *arg)
{
	long *direct = arg;
	int cpu;

	/* once at least, however late the scheduler starts this thread */
	do {
		for (cpu = 0; cpu < RACE_CPUS; cpu++)
			refresh_cpu_vm_stats(cpu);
		(void)node_page_state_snapshot(NODE_DATA(0), NR_FILE_PAGES);
		(void)sum_vm_event(PGREUSE);
		mod_node_page_state(NODE_DATA(0), NR_FILE_PAGES, 1);
		(*direct)++;
	} while (!__atomic_load_n(&race_done, __ATOMIC_ACQUIRE));
	return NULL;
}

static void test_concurrent_fold(void **state)
{
	const long per_cpu = RACE_ITERS * 4L - RACE_ITERS / 2;
	pthread_t upd[RACE_CPUS], folder;
	long direct = 0, expect;
	void *ret;
	int i;

	world_create(4, 1, two_nodes);
	__atomic_store_n(&race_done, 0, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&folder, NULL, race_folder, &direct), 0);
	for (i = 0; i < RACE_CPUS; i++)
		assert_int_equal(pthread_create(&upd[i], NULL, race_updater,
						(void *)(long)i), 0);
	for (i = 0; i < RACE_CPUS; i++) {
		assert_int_equal(join_sleep(upd[i], &ret), 0);
		assert_null(ret);
	}
	__atomic_store_n(&race_done, 1, __ATOMIC_RELEASE);
	assert_int_equal(join_sleep(folder, NULL), 0);
	assert_true(direct > 0);

	expect = RACE_CPUS * per_cpu + direct;
	assert_int_equal(node_page_state_snapshot(NODE_DATA(0), NR_FILE_PAGES),
			 expect);
	assert_int_equal(zone_page_state_snapshot(zone0(0), NR_ZONE_INACTIVE_FILE),
			 RACE_CPUS * RACE_ITERS);
	assert_int_equal(sum_vm_event(PGREUSE), RACE_CPUS * RACE_ITERS);

	vmstat_refresh();
	assert_int_equal(node_page_state(NODE_DATA(0), NR_FILE_PAGES), expect);
	assert_int_equal(global_node_page_state(NR_FILE_PAGES), expect);
	assert_int_equal(zone_page_state(zone0(0), NR_ZONE_INACTIVE_FILE),
			 RACE_CPUS * RACE_ITERS);
	assert_int_equal(global_zone_page_state(NR_ZONE_INACTIVE_FILE),
			 RACE_CPUS * RACE_ITERS);
	for (i = 0; i < RACE_CPUS; i++)
		assert_int_equal(node_diff(0, i, NR_FILE_PAGES), 0);
	world_destroy();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_threshold_formula),
		cmocka_unit_test(test_refresh_thresholds),
		cmocka_unit_test(test_mod_threshold),
		cmocka_unit_test(test_inc_dec_overstep),
		cmocka_unit_test(test_overstep_capped),
		cmocka_unit_test(test_refresh_cpu_folds),
		cmocka_unit_test(test_non_cpu_thread),
		cmocka_unit_test(test_init_exit),
		cmocka_unit_test(test_monotonic_wrap),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_vmstat_show),
		cmocka_unit_test(test_concurrent_fold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
