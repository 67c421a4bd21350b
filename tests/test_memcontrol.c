// SPDX-License-Identifier: MIT
/*
 * memcg: the tree, ids and iteration; charging through the per-CPU
 * stock; memory.max on a memcg and on an ancestor; per-CPU stats and the
 * rstat flush (local versus hierarchical, the flush threshold, threads
 * that are not model CPUs); memory.stat; offline, zombies and the
 * RCU-deferred free; the mem_cgroup_per_node slab offsets; the LRU lock
 * helpers; a concurrent run that must come out exact; and folio and kmem
 * stats with memcg-direct-stat off and on.
 *
 * The nodes are built here rather than by page_alloc_init(), so that
 * memcg can be checked without the allocator; folios are plain structs.
 * Only the memcg-direct-stat test runs a whole system, for the arena
 * memory that kmem updates point into.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/vmscan.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mglru.h>
#include <lrulab/rcupdate.h>
#include <lrulab/swap.h>
#include <lrulab/switches.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "cpu_test.h"

/*
 * A test that provokes a warning takes it off stderr, where a passing
 * run would print it as if something were wrong, and asserts its text.
 */
static FILE *stderr_file;
static int stderr_saved = -1;

static void stderr_capture(void)
{
	fflush(stderr);
	stderr_file = tmpfile();
	assert_non_null(stderr_file);
	stderr_saved = dup(STDERR_FILENO);
	assert_true(stderr_saved >= 0);
	assert_true(dup2(fileno(stderr_file), STDERR_FILENO) >= 0);
}

static void assert_stderr_was(const char *want)
{
	char buf[512];
	size_t n;

	fflush(stderr);
	assert_true(dup2(stderr_saved, STDERR_FILENO) >= 0);
	close(stderr_saved);
	rewind(stderr_file);
	n = fread(buf, 1, sizeof(buf) - 1, stderr_file);
	buf[n] = '\0';
	fclose(stderr_file);
	assert_string_equal(buf, want);
}

/* mm_init.c owns these; weak so that the test also links alone */
__attribute__((weak)) int nr_node_ids;
__attribute__((weak)) struct pglist_data *node_data[MAX_NUMNODES];

struct env {
	int nr_cpus;
	int nr_nodes;
};

static void nodes_create(int nr)
{
	int nid;

	for (nid = 0; nid < nr; nid++) {
		struct pglist_data *pgdat = aligned_alloc(L1_CACHE_BYTES, sizeof(*pgdat));

		assert_non_null(pgdat);
		memset(pgdat, 0, sizeof(*pgdat));
		/* the memcg LRU every memcg joins when it is created */
		lru_gen_init_pgdat(pgdat);
		pgdat->node_id = nid;
		pgdat->node_zones[ZONE_NORMAL].zone_pgdat = pgdat;
		pgdat->node_zones[ZONE_NORMAL].managed_pages = 1UL << 18;
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

static int setup_env(void **state, int nr_cpus, int nr_nodes)
{
	static struct env envs[4];
	static int next;
	struct env *env = &envs[next++ % 4];

	env->nr_cpus = nr_cpus;
	env->nr_nodes = nr_nodes;
	if (lrulab_cpus_init(nr_cpus))
		return -1;
	nodes_create(nr_nodes);
	if (vmstat_init())
		return -1;
	if (mem_cgroup_init())
		return -1;
	if (cpu_enter(0, false))
		return -1;
	*state = env;
	return 0;
}

static int setup_2cpu(void **state)
{
	return setup_env(state, 2, 1);
}

static int setup_2cpu_2node(void **state)
{
	return setup_env(state, 2, 2);
}

static int setup_4cpu(void **state)
{
	return setup_env(state, 4, 1);
}

static int teardown(void **state)
{
	mem_cgroup_exit();
	vmstat_exit();
	nodes_destroy();
	cpu_exit();
	lrulab_cpus_exit();
	return 0;
}

/* ---- folios ---- */

static struct folio *folios_alloc(unsigned int nr, int nid)
{
	struct folio *f = aligned_alloc(L1_CACHE_BYTES, nr * sizeof(*f));
	unsigned int i;

	assert_non_null(f);
	memset(f, 0, nr * sizeof(*f));
	for (i = 0; i < nr; i++) {
		f[i].flags = (unsigned long)nid << NODES_PGOFF;
		atomic_set(&f[i]._refcount, 1);
		atomic_set(&f[i]._mapcount, -1);
	}
	return f;
}

/* Make f[0] the head of an order-@order folio (needs 2 entries). */
static void folio_make_large(struct folio *f, unsigned int order)
{
	f[0].flags |= BIT(PG_head);
	((struct folio_tail1 *)(f + 1))->_folio_order = (unsigned char)order;
}

/* ---- running something as another model CPU ---- */

/* A thread that is not a model CPU (smp_processor_id() == -1). */
static void *nocpu_thread(void *p)
{
	struct on_cpu *oc = p;

	rcu_register_thread();
	oc->fn(oc->arg);
	rcu_unregister_thread();
	return NULL;
}

static void run_nocpu(void (*fn)(void *), void *arg)
{
	struct on_cpu oc = { -1, fn, arg };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, nocpu_thread, &oc), 0);
	assert_int_equal(join_sleep(t, NULL), 0);
}

static struct lruvec *lruvec_of(struct mem_cgroup *memcg, int nid)
{
	return mem_cgroup_lruvec(memcg, NODE_DATA(nid));
}

static long memcg_event_count(struct mem_cgroup *memcg, enum memcg_memory_event ev)
{
	return atomic_long_read(&memcg->memory_events[ev]);
}

static long memcg_event_local(struct mem_cgroup *memcg, enum memcg_memory_event ev)
{
	return atomic_long_read(&memcg->memory_events_local[ev]);
}

/* ------------------------------------------------------------------ */

static void test_tree_ids_iter(void **state)
{
	struct mem_cgroup *root = root_mem_cgroup, *a, *b, *a1, *a2, *a1x, *c, *pos;
	struct mem_cgroup *expect[6];
	char longname[80];
	int n;

	assert_non_null(root);
	assert_int_equal(root->id, 1);
	assert_string_equal(root->name, "/");
	assert_true(mem_cgroup_online(root));
	assert_null(parent_mem_cgroup(root));
	rcu_read_lock();
	assert_ptr_equal(mem_cgroup_from_id(1), root);
	assert_null(mem_cgroup_from_id(0));
	assert_null(mem_cgroup_from_id(2));
	rcu_read_unlock();

	a = mem_cgroup_create(root, "a");
	b = mem_cgroup_create(NULL, "b");
	a1 = mem_cgroup_create(a, "a1");
	a2 = mem_cgroup_create(a, "a2");
	a1x = mem_cgroup_create(a1, "a1x");
	assert_non_null(a && b && a1 && a2 && a1x);
	assert_int_equal(a->id, 2);
	assert_int_equal(b->id, 3);
	assert_int_equal(a1->id, 4);
	assert_int_equal(a2->id, 5);
	assert_int_equal(a1x->id, 6);
	assert_ptr_equal(parent_mem_cgroup(b), root);
	assert_ptr_equal(parent_mem_cgroup(a1x), a1);
	rcu_read_lock();
	assert_ptr_equal(mem_cgroup_from_id(6), a1x);
	rcu_read_unlock();

	/* names */
	errno = 0;
	assert_null(mem_cgroup_create(root, NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mem_cgroup_create(root, ""));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mem_cgroup_create(root, "x/y"));
	assert_int_equal(errno, EINVAL);
	memset(longname, 'n', 64);
	longname[64] = '\0';
	errno = 0;
	assert_null(mem_cgroup_create(root, longname));
	assert_int_equal(errno, EINVAL);
	longname[63] = '\0';
	c = mem_cgroup_create(root, longname);
	assert_non_null(c);
	assert_int_equal(c->id, 7);
	mem_cgroup_offline(c);
	errno = 0;
	assert_null(mem_cgroup_create(root, "a"));
	assert_int_equal(errno, EEXIST);
	/* the same name under another parent is fine */
	c = mem_cgroup_create(b, "a");
	assert_non_null(c);
	assert_int_equal(c->id, 7);
	mem_cgroup_offline(c);

	/* pre-order over the whole tree */
	expect[0] = root;
	expect[1] = a;
	expect[2] = a1;
	expect[3] = a1x;
	expect[4] = a2;
	expect[5] = b;
	n = 0;
	for (pos = mem_cgroup_iter(NULL, NULL); pos; pos = mem_cgroup_iter(NULL, pos)) {
		assert_true(n < 6);
		assert_ptr_equal(pos, expect[n]);
		n++;
	}
	assert_int_equal(n, 6);

	/* a subtree */
	n = 0;
	for (pos = mem_cgroup_iter(a, NULL); pos; pos = mem_cgroup_iter(a, pos)) {
		assert_ptr_equal(pos, expect[1 + n]);
		n++;
	}
	assert_int_equal(n, 4);

	/* breaking out drops the reference the walk held */
	pos = mem_cgroup_iter(a, NULL);
	pos = mem_cgroup_iter(a, pos);
	assert_ptr_equal(pos, a1);
	mem_cgroup_iter_break(a, pos);

	/* a memcg with online children stays */
	stderr_capture();
	mem_cgroup_offline(a);
	assert_stderr_was("WARNING: memcg: a has online children: not taken offline\n");
	assert_true(mem_cgroup_online(a));

	/* nothing pins a1x: it goes at once and its id is free again */
	mem_cgroup_offline(a1x);
	rcu_read_lock();
	assert_null(mem_cgroup_from_id(6));
	rcu_read_unlock();
	n = 0;
	for (pos = mem_cgroup_iter(a, NULL); pos; pos = mem_cgroup_iter(a, pos)) {
		assert_ptr_not_equal(pos, expect[3]);
		n++;
	}
	assert_int_equal(n, 3);
	c = mem_cgroup_create(a2, "c");
	assert_non_null(c);
	assert_int_equal(c->id, 6);

	/* parent lruvecs follow the tree on the same node */
	assert_ptr_equal(parent_lruvec(lruvec_of(c, 0)), lruvec_of(a2, 0));
	assert_ptr_equal(parent_lruvec(lruvec_of(a, 0)), lruvec_of(root, 0));
	assert_null(parent_lruvec(lruvec_of(root, 0)));
	assert_ptr_equal(lruvec_memcg(lruvec_of(c, 0)), c);
	assert_ptr_equal(lruvec_pgdat(lruvec_of(c, 0)), NODE_DATA(0));
	assert_ptr_equal(mem_cgroup_lruvec(NULL, NODE_DATA(0)), lruvec_of(root, 0));

	/* the root cannot go */
	stderr_capture();
	mem_cgroup_offline(root);
	assert_stderr_was("WARNING: memcg: the root memcg cannot go offline\n");
	assert_true(mem_cgroup_online(root));
}

static void test_charge_stock(void **state)
{
	struct mem_cgroup *m = mem_cgroup_create(NULL, "m");
	struct mem_cgroup *many[NR_MEMCG_STOCK + 1];
	struct folio *f = folios_alloc(8, 0);
	char name[16];
	int i;

	assert_non_null(m);
	assert_int_equal(mem_cgroup_charge(&f[0], m), 0);
	assert_ptr_equal(folio_memcg(&f[0]), m);
	assert_int_equal(mem_cgroup_usage(m), 64);
	assert_int_equal(memcg_stock_pages(m), 63);
	/* the root's counter sees its descendants' charges */
	assert_int_equal(mem_cgroup_usage(root_mem_cgroup), 64);

	/* served from the stock */
	assert_int_equal(mem_cgroup_charge(&f[1], m), 0);
	assert_int_equal(mem_cgroup_usage(m), 64);
	assert_int_equal(memcg_stock_pages(m), 62);

	/* charged twice is refused */
	stderr_capture();
	assert_int_equal(mem_cgroup_charge(&f[1], m), -EINVAL);
	assert_stderr_was("WARNING: memcg: charging a folio that is charged already (to m)\n");

	/* uncharge goes to the counter, not the stock */
	mem_cgroup_uncharge(&f[0]);
	assert_int_equal(f[0].memcg_data, 0);
	assert_int_equal(mem_cgroup_usage(m), 63);
	assert_int_equal(memcg_stock_pages(m), 62);
	mem_cgroup_uncharge(&f[0]);	/* uncharged: nothing happens */
	assert_int_equal(mem_cgroup_usage(m), 63);

	/* a 4-page folio out of the same stock */
	folio_make_large(&f[2], 2);
	assert_int_equal(mem_cgroup_charge(&f[2], m), 0);
	assert_int_equal(mem_cgroup_usage(m), 63);
	assert_int_equal(memcg_stock_pages(m), 58);

	/* more than a batch: charged exactly, the stock untouched */
	assert_int_equal(try_charge_memcg(m, 100), 0);
	assert_int_equal(mem_cgroup_usage(m), 163);
	assert_int_equal(memcg_stock_pages(m), 58);
	page_counter_uncharge(&m->memory, 100);

	drain_all_stock();
	assert_int_equal(memcg_stock_pages(m), 0);
	assert_int_equal(mem_cgroup_usage(m), 5);
	mem_cgroup_uncharge(&f[1]);
	mem_cgroup_uncharge(&f[2]);
	assert_int_equal(mem_cgroup_usage(m), 0);
	assert_int_equal(mem_cgroup_usage(root_mem_cgroup), 0);
	assert_int_equal(m->memory.watermark, 163);

	/* the root is never limited nor counted, but the folio is bound */
	assert_int_equal(mem_cgroup_charge(&f[3], NULL), 0);
	assert_ptr_equal(folio_memcg(&f[3]), root_mem_cgroup);
	assert_int_equal(mem_cgroup_usage(root_mem_cgroup), 0);
	assert_int_equal(memcg_stock_pages(root_mem_cgroup), 0);
	mem_cgroup_uncharge(&f[3]);
	assert_int_equal(f[3].memcg_data, 0);

	/* eight memcgs on one CPU: the eighth takes slot 0 back */
	for (i = 0; i < NR_MEMCG_STOCK + 1; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		many[i] = mem_cgroup_create(NULL, name);
		assert_non_null(many[i]);
		assert_int_equal(try_charge_memcg(many[i], 1), 0);
		assert_int_equal(memcg_stock_pages(many[i]), 63);
	}
	assert_int_equal(memcg_stock_pages(many[0]), 0);
	assert_int_equal(mem_cgroup_usage(many[0]), 1);
	for (i = 1; i < NR_MEMCG_STOCK + 1; i++)
		assert_int_equal(mem_cgroup_usage(many[i]), 64);
	drain_all_stock();
	for (i = 0; i < NR_MEMCG_STOCK + 1; i++) {
		assert_int_equal(mem_cgroup_usage(many[i]), 1);
		page_counter_uncharge(&many[i]->memory, 1);
		mem_cgroup_offline(many[i]);
	}
	mem_cgroup_offline(m);
	free(f);
}

struct charge_one {
	struct mem_cgroup *memcg;
	struct folio *folio;
	int ret;
};

static void charge_one_fn(void *p)
{
	struct charge_one *c = p;

	c->ret = mem_cgroup_charge(c->folio, c->memcg);
}

static void test_memory_max(void **state)
{
	struct mem_cgroup *m = mem_cgroup_create(NULL, "limited");
	struct mem_cgroup *m2 = mem_cgroup_create(NULL, "drained");
	struct folio *f = folios_alloc(120, 0);
	struct charge_one co;
	int i;

	assert_non_null(m);
	assert_int_equal(mem_cgroup_set_max(m, 100), 0);
	assert_int_equal(m->memory.max, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(mem_cgroup_charge(&f[i], m), 0);
	assert_int_equal(mem_cgroup_usage(m), 100);
	assert_int_equal(memcg_stock_pages(m), 0);
	assert_int_equal(memcg_event_count(m, MEMCG_MAX), 0);

	/*
	 * The 101st: batch, then one page; reclaim (nothing on the LRU),
	 * drain, one page again, then MAX_RECLAIM_RETRIES more rounds of
	 * reclaim without progress, and fail: a max event per failed
	 * single-page try, 18.
	 */
	assert_int_equal(mem_cgroup_charge(&f[100], m), -ENOMEM);
	assert_int_equal(f[100].memcg_data, 0);
	assert_int_equal(mem_cgroup_usage(m), 100);
	assert_int_equal(memcg_event_count(m, MEMCG_MAX), 2 + MAX_RECLAIM_RETRIES);
	assert_int_equal(memcg_event_count(m, MEMCG_OOM), 1);
	assert_int_equal(memcg_event_local(m, MEMCG_MAX), 2 + MAX_RECLAIM_RETRIES);
	assert_int_equal(memcg_event_local(m, MEMCG_OOM), 1);
	/* 1 batch failure at the 65th, 35 more up to the 100th, 1 + 18 now */
	assert_int_equal(atomic_long_read(&m->memory.failcnt), 55);
	/* memory.events stops below the root */
	assert_int_equal(memcg_event_count(root_mem_cgroup, MEMCG_MAX), 0);

	/* a 16-page charge fails without an OOM event (order > 3) */
	assert_int_equal(try_charge_memcg(m, 16), -ENOMEM);
	assert_int_equal(memcg_event_count(m, MEMCG_MAX), 2 * (2 + MAX_RECLAIM_RETRIES));
	assert_int_equal(memcg_event_count(m, MEMCG_OOM), 1);
	assert_int_equal(mem_cgroup_usage(m), 100);

	/* lowering the max below usage: it sticks, but -EBUSY */
	assert_int_equal(mem_cgroup_set_max(m, 50), -EBUSY);
	assert_int_equal(m->memory.max, 50);
	for (i = 0; i < 60; i++)
		mem_cgroup_uncharge(&f[i]);
	assert_int_equal(mem_cgroup_usage(m), 40);
	assert_int_equal(mem_cgroup_set_max(m, PAGE_COUNTER_MAX + 5), 0);
	assert_int_equal(m->memory.max, PAGE_COUNTER_MAX);
	assert_int_equal(mem_cgroup_set_max(root_mem_cgroup, 10), -EINVAL);

	/* what the stock holds is given back when the max goes down */
	assert_int_equal(mem_cgroup_charge(&f[0], m), 0);
	assert_int_equal(mem_cgroup_usage(m), 41 + 63);
	assert_int_equal(mem_cgroup_set_max(m, 45), 0);
	assert_int_equal(mem_cgroup_usage(m), 41);
	assert_int_equal(memcg_stock_pages(m), 0);
	for (i = 0; i < 100; i++)
		mem_cgroup_uncharge(&f[i]);
	assert_int_equal(mem_cgroup_usage(m), 0);

	/*
	 * CPU 0's stock holds 63 pages of m2 (max 64); CPU 1 fails its batch
	 * and its single page, drains every stock and then fits.
	 */
	assert_non_null(m2);
	assert_int_equal(mem_cgroup_set_max(m2, 64), 0);
	assert_int_equal(mem_cgroup_charge(&f[110], m2), 0);
	assert_int_equal(memcg_stock_pages(m2), 63);
	co = (struct charge_one){ m2, &f[111], -1 };
	run_on_cpu(1, charge_one_fn, &co);
	assert_int_equal(co.ret, 0);
	assert_int_equal(mem_cgroup_usage(m2), 2);
	assert_int_equal(memcg_stock_pages(m2), 0);
	assert_int_equal(memcg_event_count(m2, MEMCG_MAX), 1);
	assert_int_equal(memcg_event_count(m2, MEMCG_OOM), 0);
	mem_cgroup_uncharge(&f[110]);
	mem_cgroup_uncharge(&f[111]);
	assert_int_equal(mem_cgroup_usage(m2), 0);

	mem_cgroup_offline(m);
	mem_cgroup_offline(m2);
	free(f);
}

static void test_hierarchical_limit(void **state)
{
	struct mem_cgroup *p = mem_cgroup_create(NULL, "parent");
	struct mem_cgroup *c = mem_cgroup_create(p, "child");
	struct mem_cgroup *c2 = mem_cgroup_create(p, "child2");
	struct folio *f = folios_alloc(102, 0);
	int i;

	assert_non_null(c2);
	assert_int_equal(mem_cgroup_set_max(p, 100), 0);
	for (i = 0; i < 100; i++)
		assert_int_equal(mem_cgroup_charge(&f[i], c), 0);
	assert_int_equal(mem_cgroup_usage(c), 100);
	assert_int_equal(mem_cgroup_usage(p), 100);

	assert_int_equal(mem_cgroup_charge(&f[100], c), -ENOMEM);
	assert_int_equal(mem_cgroup_charge(&f[101], c2), -ENOMEM);
	assert_int_equal(mem_cgroup_usage(c), 100);
	assert_int_equal(mem_cgroup_usage(c2), 0);
	assert_int_equal(mem_cgroup_usage(p), 100);
	/* the events land where the limit is, not on the children */
	assert_int_equal(memcg_event_count(p, MEMCG_MAX), 2 * (2 + MAX_RECLAIM_RETRIES));
	assert_int_equal(memcg_event_count(p, MEMCG_OOM), 2);
	assert_int_equal(memcg_event_local(p, MEMCG_MAX), 2 * (2 + MAX_RECLAIM_RETRIES));
	assert_int_equal(memcg_event_count(c, MEMCG_MAX), 0);
	assert_int_equal(memcg_event_count(c2, MEMCG_MAX), 0);
	assert_int_equal(atomic_long_read(&c->memory.failcnt), 0);
	assert_int_equal(atomic_long_read(&p->memory.failcnt), 36 + 2 * (1 + 2 + MAX_RECLAIM_RETRIES));

	for (i = 0; i < 100; i++)
		mem_cgroup_uncharge(&f[i]);
	assert_int_equal(mem_cgroup_usage(p), 0);
	mem_cgroup_offline(c);
	mem_cgroup_offline(c2);
	mem_cgroup_offline(p);
	free(f);
}

struct stat_updates {
	struct mem_cgroup *c, *p;
};

static void stats_on_cpu1(void *arg)
{
	struct stat_updates *s = arg;

	mod_lruvec_state(lruvec_of(s->c, 1), NR_ACTIVE_ANON, 20);
	count_memcg_events(s->c, PGFAULT, 1);
}

static void stats_nocpu(void *arg)
{
	struct stat_updates *s = arg;

	mod_lruvec_state(lruvec_of(s->c, 0), NR_ACTIVE_ANON, 100);
	mod_memcg_state(s->c, MEMCG_SOCK, 4);
	count_memcg_events(s->c, PGFAULT, 50);
}

static void test_stats(void **state)
{
	struct mem_cgroup *root = root_mem_cgroup;
	struct mem_cgroup *p = mem_cgroup_create(NULL, "p");
	struct mem_cgroup *c = mem_cgroup_create(p, "c");
	struct stat_updates s = { c, p };
	struct folio *f = folios_alloc(2, 1);

	assert_non_null(c);
	mod_lruvec_state(lruvec_of(c, 0), NR_ACTIVE_ANON, 10);
	mod_lruvec_state(lruvec_of(p, 0), NR_ACTIVE_ANON, 5);
	mod_lruvec_state(lruvec_of(c, 1), NR_INACTIVE_FILE, 7);
	mod_memcg_state(c, MEMCG_SOCK, 3);
	count_memcg_events(c, PGFAULT, 7);
	count_memcg_events(p, PGFAULT, 2);
	run_on_cpu(1, stats_on_cpu1, &s);

	/* below the threshold nothing is visible yet */
	mem_cgroup_flush_stats(c);
	assert_int_equal(memcg_page_state(c, NR_ACTIVE_ANON), 0);
	assert_int_equal(lruvec_page_state(lruvec_of(c, 0), NR_ACTIVE_ANON), 0);

	mem_cgroup_flush_all();
	/* lruvec level, node 0 */
	assert_int_equal(lruvec_page_state(lruvec_of(c, 0), NR_ACTIVE_ANON), 10);
	assert_int_equal(lruvec_page_state_local(lruvec_of(c, 0), NR_ACTIVE_ANON), 10);
	assert_int_equal(lruvec_page_state(lruvec_of(p, 0), NR_ACTIVE_ANON), 15);
	assert_int_equal(lruvec_page_state_local(lruvec_of(p, 0), NR_ACTIVE_ANON), 5);
	assert_int_equal(lruvec_page_state(lruvec_of(root, 0), NR_ACTIVE_ANON), 15);
	assert_int_equal(lruvec_page_state_local(lruvec_of(root, 0), NR_ACTIVE_ANON), 0);
	/* node 1 */
	assert_int_equal(lruvec_page_state(lruvec_of(c, 1), NR_ACTIVE_ANON), 20);
	assert_int_equal(lruvec_page_state(lruvec_of(p, 1), NR_ACTIVE_ANON), 20);
	assert_int_equal(lruvec_page_state(lruvec_of(root, 1), NR_INACTIVE_FILE), 7);
	assert_int_equal(lruvec_page_state(lruvec_of(root, 0), NR_INACTIVE_FILE), 0);
	/* memcg level sums the nodes */
	assert_int_equal(memcg_page_state(c, NR_ACTIVE_ANON), 30);
	assert_int_equal(memcg_page_state_local(c, NR_ACTIVE_ANON), 30);
	assert_int_equal(memcg_page_state(p, NR_ACTIVE_ANON), 35);
	assert_int_equal(memcg_page_state_local(p, NR_ACTIVE_ANON), 5);
	assert_int_equal(memcg_page_state(root, NR_ACTIVE_ANON), 35);
	assert_int_equal(memcg_page_state_local(root, NR_ACTIVE_ANON), 0);
	assert_int_equal(memcg_page_state(p, MEMCG_SOCK), 3);
	assert_int_equal(memcg_page_state_local(p, MEMCG_SOCK), 0);
	assert_int_equal(memcg_events(c, PGFAULT), 8);
	assert_int_equal(memcg_events_local(c, PGFAULT), 8);
	assert_int_equal(memcg_events(p, PGFAULT), 10);
	assert_int_equal(memcg_events_local(p, PGFAULT), 2);
	assert_int_equal(memcg_events(root, PGFAULT), 10);
	assert_int_equal(memcg_events_local(root, PGFAULT), 0);

	/* the node counters agree with the root's hierarchical figures */
	vmstat_refresh();
	assert_int_equal(node_page_state(NODE_DATA(0), NR_ACTIVE_ANON),
			 lruvec_page_state(lruvec_of(root, 0), NR_ACTIVE_ANON));
	assert_int_equal(node_page_state(NODE_DATA(1), NR_ACTIVE_ANON),
			 lruvec_page_state(lruvec_of(root, 1), NR_ACTIVE_ANON));
	assert_int_equal(node_page_state(NODE_DATA(1), NR_INACTIVE_FILE), 7);

	/* a thread that is not a model CPU: straight into the aggregates */
	run_nocpu(stats_nocpu, &s);
	assert_int_equal(lruvec_page_state(lruvec_of(c, 0), NR_ACTIVE_ANON), 110);
	assert_int_equal(lruvec_page_state_local(lruvec_of(c, 0), NR_ACTIVE_ANON), 110);
	assert_int_equal(lruvec_page_state(lruvec_of(p, 0), NR_ACTIVE_ANON), 115);
	assert_int_equal(lruvec_page_state_local(lruvec_of(p, 0), NR_ACTIVE_ANON), 5);
	assert_int_equal(memcg_page_state(root, NR_ACTIVE_ANON), 135);
	assert_int_equal(memcg_page_state(p, MEMCG_SOCK), 7);
	assert_int_equal(memcg_events(root, PGFAULT), 60);
	assert_int_equal(memcg_events_local(c, PGFAULT), 58);
	assert_int_equal(node_page_state(NODE_DATA(0), NR_ACTIVE_ANON), 115);
	mem_cgroup_flush_all();
	assert_int_equal(memcg_page_state(root, NR_ACTIVE_ANON), 135);

	/* negative sums read as 0 */
	mod_lruvec_state(lruvec_of(c, 0), NR_INACTIVE_ANON, -5);
	mem_cgroup_flush_all();
	assert_int_equal(lruvec_page_state(lruvec_of(c, 0), NR_INACTIVE_ANON), 0);
	assert_int_equal(memcg_page_state(c, NR_INACTIVE_ANON), 0);
	mod_lruvec_state(lruvec_of(c, 0), NR_INACTIVE_ANON, 8);
	mem_cgroup_flush_all();
	assert_int_equal(memcg_page_state(p, NR_INACTIVE_ANON), 3);

	/* folio stats: charged ones go to memcg and node, others node only */
	assert_int_equal(mem_cgroup_charge(&f[0], c), 0);
	lruvec_stat_mod_folio(&f[0], NR_FILE_PAGES, 1);
	lruvec_stat_mod_folio(&f[1], NR_FILE_PAGES, 1);
	count_memcg_folio_events(&f[0], PGMAJFAULT, 1);
	count_memcg_folio_events(&f[1], PGMAJFAULT, 1);
	mem_cgroup_flush_all();
	vmstat_refresh();
	assert_int_equal(lruvec_page_state(lruvec_of(c, 1), NR_FILE_PAGES), 1);
	assert_int_equal(memcg_page_state(root, NR_FILE_PAGES), 1);
	assert_int_equal(node_page_state(NODE_DATA(1), NR_FILE_PAGES), 2);
	assert_int_equal(memcg_events(root, PGMAJFAULT), 1);
	mem_cgroup_uncharge(&f[0]);

	mem_cgroup_offline(c);
	mem_cgroup_offline(p);
	free(f);
}

static void test_flush_threshold(void **state)
{
	struct mem_cgroup *root = root_mem_cgroup;
	struct mem_cgroup *c = mem_cgroup_create(NULL, "c");
	int i;

	/* 2 CPUs: a flush needs more than 128 pending updates */
	assert_non_null(c);
	for (i = 0; i < 128; i++)
		mod_memcg_state(c, MEMCG_SOCK, 1);
	assert_int_equal(atomic_read(&c->vmstats->stats_updates), 128);
	assert_int_equal(atomic_read(&root->vmstats->stats_updates), 128);
	mem_cgroup_flush_stats(c);
	mem_cgroup_flush_stats(NULL);
	assert_int_equal(memcg_page_state(c, MEMCG_SOCK), 0);
	assert_int_equal(memcg_page_state(root, MEMCG_SOCK), 0);

	/* 63 more stay in the CPU's count; the 64th spills over */
	for (i = 0; i < 63; i++)
		mod_memcg_state(c, MEMCG_SOCK, 1);
	mem_cgroup_flush_stats(c);
	assert_int_equal(memcg_page_state(c, MEMCG_SOCK), 0);
	mod_memcg_state(c, MEMCG_SOCK, 1);
	assert_int_equal(atomic_read(&c->vmstats->stats_updates), 192);

	/* flushing c's subtree leaves the root's aggregate alone */
	mem_cgroup_flush_stats(c);
	assert_int_equal(memcg_page_state(c, MEMCG_SOCK), 192);
	assert_int_equal(memcg_page_state(root, MEMCG_SOCK), 0);
	assert_int_equal(atomic_read(&c->vmstats->stats_updates), 0);
	assert_int_equal(atomic_read(&root->vmstats->stats_updates), 192);
	mem_cgroup_flush_stats(root);
	assert_int_equal(memcg_page_state(root, MEMCG_SOCK), 192);
	assert_int_equal(atomic_read(&root->vmstats->stats_updates), 0);

	/* once a level needs a flush, updates stop counting there */
	for (i = 0; i < 200; i++)
		mod_memcg_state(c, MEMCG_SOCK, -1);
	assert_int_equal(atomic_read(&c->vmstats->stats_updates), 192);

	/* the ratelimited flush runs when no root flush happened lately */
	mem_cgroup_exit();
	assert_int_equal(mem_cgroup_init(), 0);
	root = root_mem_cgroup;
	c = mem_cgroup_create(NULL, "c");
	for (i = 0; i < 192; i++)
		count_memcg_events(c, PGACTIVATE, 1);
	mem_cgroup_flush_stats_ratelimited(c);
	assert_int_equal(memcg_events(c, PGACTIVATE), 192);
	assert_int_equal(memcg_events(root, PGACTIVATE), 0);

	/* byte items weigh by the page, and at least 1 */
	mod_memcg_state(c, MEMCG_PERCPU_B, 1);
	assert_int_equal(per_cpu_ptr(c->vmstats_percpu, 0)->stats_updates, 1);
	mod_memcg_state(c, MEMCG_PERCPU_B, 4096 * 130);
	assert_int_equal(per_cpu_ptr(c->vmstats_percpu, 0)->stats_updates, 0);
	assert_int_equal(atomic_read(&c->vmstats->stats_updates), 131);
	mem_cgroup_offline(c);
}

static char *capture(void (*show)(struct mem_cgroup *, FILE *), struct mem_cgroup *memcg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	show(memcg, f);
	fclose(f);
	return buf;
}

static void test_memory_stat(void **state)
{
	struct mem_cgroup *m = mem_cgroup_create(NULL, "m");
	struct lruvec *lruvec = lruvec_of(m, 0);
	char *out;

	mod_lruvec_state(lruvec, NR_ANON_MAPPED, 3);
	mod_lruvec_state(lruvec, NR_FILE_PAGES, 5);
	mod_lruvec_state(lruvec, NR_SHMEM, 2);
	mod_lruvec_state(lruvec, NR_FILE_DIRTY, 1);
	mod_lruvec_state(lruvec, NR_ACTIVE_ANON, 3);
	mod_lruvec_state(lruvec, NR_INACTIVE_FILE, 4);
	mod_lruvec_state(lruvec, NR_ACTIVE_FILE, 1);
	mod_lruvec_state(lruvec, NR_UNEVICTABLE, 2);
	mod_lruvec_state(lruvec, WORKINGSET_REFAULT_FILE, 4);
	mod_lruvec_state(lruvec, WORKINGSET_ACTIVATE_FILE, 2);
	mod_memcg_state(m, MEMCG_PERCPU_B, 1000);
	mod_memcg_state(m, MEMCG_KMEM, 6);
	count_memcg_events(m, PGFAULT, 11);
	count_memcg_events(m, PGMAJFAULT, 1);
	mod_lruvec_state(lruvec, PGSCAN_KSWAPD, 6);
	mod_lruvec_state(lruvec, PGSCAN_DIRECT, 2);
	mod_lruvec_state(lruvec, PGSCAN_PROACTIVE, 5);
	mod_lruvec_state(lruvec, PGSTEAL_DIRECT, 3);
	mod_lruvec_state(lruvec, PGSTEAL_PROACTIVE, 1);
	mod_lruvec_state(lruvec, PGREFILL, 7);
	count_memcg_events(m, PGACTIVATE, 9);
	count_memcg_events(m, PGDEACTIVATE, 4);
	memcg_memory_event(m, MEMCG_MAX);
	memcg_memory_event(m, MEMCG_MAX);
	memcg_memory_event(m, MEMCG_OOM);
	mem_cgroup_flush_all();

	out = capture(memory_stat_show, m);
	assert_string_equal(out,
		"anon 12288\n"
		"file 20480\n"
		"kernel 24576\n"
		"percpu 1000\n"
		"sock 0\n"
		"shmem 8192\n"
		"file_mapped 0\n"
		"file_dirty 4096\n"
		"file_writeback 0\n"
		"swapcached 0\n"
		"anon_thp 0\n"
		"inactive_anon 0\n"
		"active_anon 12288\n"
		"inactive_file 16384\n"
		"active_file 4096\n"
		"unevictable 8192\n"
		"workingset_refault_anon 0\n"
		"workingset_refault_file 4\n"
		"workingset_activate_anon 0\n"
		"workingset_activate_file 2\n"
		"workingset_restore_anon 0\n"
		"workingset_restore_file 0\n"
		"workingset_nodereclaim 0\n"
		"pgsteal_kswapd 0\n"
		"pgsteal_direct 3\n"
		"pgsteal_proactive 1\n"
		"pgscan_kswapd 6\n"
		"pgscan_direct 2\n"
		"pgscan_proactive 5\n"
		"pgrefill 7\n"
		"pgscan 13\n"
		"pgsteal 4\n"
		"pswpin 0\n"
		"pswpout 0\n"
		"pgfault 11\n"
		"pgmajfault 1\n"
		"pgactivate 9\n"
		"pgdeactivate 4\n"
		"pglazyfree 0\n"
		"pglazyfreed 0\n"
		"thp_fault_alloc 0\n"
		"thp_swpout_fallback 0\n");
	free(out);

	/* the root's memory.stat is hierarchical */
	out = capture(memory_stat_show, NULL);
	assert_non_null(strstr(out, "\nactive_anon 12288\n"));
	assert_non_null(strstr(out, "\npgfault 11\n"));
	free(out);

	out = capture(memory_events_show, m);
	assert_string_equal(out, "low 0\nhigh 0\nmax 2\noom 1\noom_kill 0\n");
	free(out);
	out = capture(memory_events_show, NULL);
	assert_string_equal(out, "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	free(out);
	mem_cgroup_offline(m);
}

static void test_offline_free(void **state)
{
	struct mem_cgroup *p = mem_cgroup_create(NULL, "p");
	struct mem_cgroup *c = mem_cgroup_create(p, "c");
	struct mem_cgroup *d, *pos;
	struct folio_batch fbatch;
	struct folio *f = folios_alloc(3, 0);
	unsigned short cid = c->id;
	int i, n;

	for (i = 0; i < 3; i++)
		assert_int_equal(mem_cgroup_charge(&f[i], c), 0);
	mod_lruvec_state(lruvec_of(c, 0), NR_ACTIVE_ANON, 3);
	count_memcg_events(c, PGFAULT, 3);
	assert_int_equal(mem_cgroup_usage(p), 64);

	/* offline: the stock drains, stats are flushed, the folios stay */
	mem_cgroup_offline(c);
	assert_false(mem_cgroup_online(c));
	assert_int_equal(mem_cgroup_usage(c), 3);
	assert_int_equal(mem_cgroup_usage(p), 3);
	assert_int_equal(memcg_page_state(c, NR_ACTIVE_ANON), 3);
	rcu_read_lock();
	assert_ptr_equal(mem_cgroup_from_id(cid), c);
	rcu_read_unlock();
	/* a zombie with pages is still walked */
	n = 0;
	for (pos = mem_cgroup_iter(p, NULL); pos; pos = mem_cgroup_iter(p, pos))
		n++;
	assert_int_equal(n, 2);
	mem_cgroup_flush_all();
	assert_int_equal(memcg_page_state(p, NR_ACTIVE_ANON), 3);
	assert_int_equal(memcg_events(p, PGFAULT), 3);
	/* offlining twice does nothing */
	mem_cgroup_offline(c);

	/* updates after the last flush, then the folios go */
	mod_lruvec_state(lruvec_of(c, 0), NR_ACTIVE_ANON, -3);
	count_memcg_events(c, PGFAULT, 2);
	count_memcg_events(c, PGDEACTIVATE, 3);
	folio_batch_init(&fbatch);
	for (i = 0; i < 3; i++)
		folio_batch_add(&fbatch, &f[i]);
	mem_cgroup_uncharge_folios(&fbatch);
	for (i = 0; i < 3; i++)
		assert_int_equal(f[i].memcg_data, 0);
	assert_int_equal(mem_cgroup_usage(p), 0);

	/* refcount 0: unlinked and its id released at once ... */
	rcu_read_lock();
	assert_null(mem_cgroup_from_id(cid));
	rcu_read_unlock();
	assert_true(list_empty(&p->children));
	/* ... freed after a grace period, its last deltas in p's totals */
	mem_cgroup_wait_frees();
	mem_cgroup_flush_all();
	assert_int_equal(memcg_page_state(p, NR_ACTIVE_ANON), 0);
	assert_int_equal(memcg_events(p, PGFAULT), 5);
	assert_int_equal(memcg_events(p, PGDEACTIVATE), 3);
	assert_int_equal(memcg_events_local(p, PGFAULT), 0);
	assert_int_equal(memcg_events(root_mem_cgroup, PGFAULT), 5);
	assert_int_equal(lruvec_page_state(lruvec_of(root_mem_cgroup, 0), NR_ACTIVE_ANON), 0);

	d = mem_cgroup_create(p, "c");
	assert_non_null(d);
	assert_int_equal(d->id, cid);
	mem_cgroup_offline(d);

	/* a parent whose last child goes frees in the child's wake */
	c = mem_cgroup_create(p, "c2");
	assert_int_equal(mem_cgroup_charge(&f[0], c), 0);
	mem_cgroup_offline(c);
	mem_cgroup_offline(p);
	assert_false(mem_cgroup_online(p));
	count_memcg_events(c, PGFAULT, 1);
	mem_cgroup_uncharge(&f[0]);
	mem_cgroup_wait_frees();
	mem_cgroup_flush_all();
	assert_int_equal(memcg_events(root_mem_cgroup, PGFAULT), 6);
	assert_true(list_empty(&root_mem_cgroup->children));
	free(f);
}

static void test_pn_slab(void **state)
{
	size_t stride = (sizeof(struct mem_cgroup_per_node) + 63) & ~(size_t)63;
	struct mem_cgroup *m[6];
	char name[16];
	int i, seen[2] = { 0, 0 };

	/* an odd number of lines, so consecutive slots alternate */
	assert_int_equal((stride / 64) % 2, 1);
	assert_int_equal(mem_cgroup_pn_offset128(root_mem_cgroup, 0), 0);
	for (i = 0; i < 6; i++) {
		unsigned long off;

		snprintf(name, sizeof(name), "m%d", i);
		m[i] = mem_cgroup_create(NULL, name);
		assert_non_null(m[i]);
		off = mem_cgroup_pn_offset128(m[i], 0);
		assert_int_equal(off, ((size_t)(i + 1) * stride) % 128);
		assert_int_equal((uintptr_t)m[i]->nodeinfo[0] % 64, 0);
		seen[off / 64]++;
		assert_ptr_equal(m[i]->nodeinfo[0]->memcg, m[i]);
		assert_ptr_equal(m[i]->nodeinfo[0]->lruvec.pgdat, NODE_DATA(0));
		assert_int_equal(m[i]->nodeinfo[0]->lru_zone_size[0][LRU_ACTIVE_ANON], 0);
		assert_true(list_empty(&m[i]->nodeinfo[0]->lruvec.lists[LRU_INACTIVE_FILE]));
	}
	assert_int_equal(seen[0], 3);
	assert_int_equal(seen[1], 3);
	/* back to back: slot k at k * stride from the slab start */
	assert_int_equal((char *)m[1]->nodeinfo[0] - (char *)m[0]->nodeinfo[0],
			 (long)stride);

	/* a freed slot is the next one handed out */
	mem_cgroup_offline(m[2]);
	mem_cgroup_wait_frees();
	m[2] = mem_cgroup_create(NULL, "again");
	assert_int_equal(mem_cgroup_pn_offset128(m[2], 0), (3 * stride) % 128);
	for (i = 0; i < 6; i++)
		mem_cgroup_offline(m[i]);
}

static void test_lru_helpers(void **state)
{
	struct mem_cgroup *a = mem_cgroup_create(NULL, "a");
	struct mem_cgroup *b = mem_cgroup_create(NULL, "b");
	struct folio *f = folios_alloc(3, 0);
	struct lruvec *la = lruvec_of(a, 0), *lb = lruvec_of(b, 0), *locked;
	char warn[128];

	mem_cgroup_update_lru_size(la, LRU_ACTIVE_FILE, 0, 5);
	mem_cgroup_update_lru_size(la, LRU_ACTIVE_FILE, 0, -2);
	assert_int_equal(lruvec_lru_size(la, LRU_ACTIVE_FILE, MAX_NR_ZONES - 1), 3);
	assert_int_equal(a->nodeinfo[0]->lru_zone_size[0][LRU_ACTIVE_FILE], 3);
	/* going negative warns and clamps at 0 */
	stderr_capture();
	mem_cgroup_update_lru_size(la, LRU_ACTIVE_FILE, 0, -4);
	snprintf(warn, sizeof(warn),
		 "WARNING: mem_cgroup_update_lru_size(%p, %d, -4): lru_size -1\n",
		 (void *)la, LRU_ACTIVE_FILE);
	assert_stderr_was(warn);
	assert_int_equal(lruvec_lru_size(la, LRU_ACTIVE_FILE, 0), 0);
	/* exact and per memcg: nothing propagates to the parent */
	mem_cgroup_update_lru_size(la, LRU_INACTIVE_ANON, 0, 7);
	assert_int_equal(lruvec_lru_size(lruvec_of(root_mem_cgroup, 0), LRU_INACTIVE_ANON, 0), 0);
	mem_cgroup_update_lru_size(la, LRU_INACTIVE_ANON, 0, -7);

	assert_int_equal(mem_cgroup_charge(&f[0], a), 0);
	assert_int_equal(mem_cgroup_charge(&f[1], a), 0);
	assert_int_equal(mem_cgroup_charge(&f[2], b), 0);
	locked = folio_lruvec_lock(&f[0]);
	assert_ptr_equal(locked, la);
	assert_true(spin_is_locked(&la->lru_lock));
	/* same lruvec: the lock is kept */
	locked = folio_lruvec_relock_irq(&f[1], locked);
	assert_ptr_equal(locked, la);
	assert_true(spin_is_locked(&la->lru_lock));
	/* another: dropped and the new one taken */
	locked = folio_lruvec_relock_irq(&f[2], locked);
	assert_ptr_equal(locked, lb);
	assert_false(spin_is_locked(&la->lru_lock));
	assert_true(spin_is_locked(&lb->lru_lock));
	lruvec_unlock(locked);
	assert_false(spin_is_locked(&lb->lru_lock));
	/* from nothing held */
	locked = NULL;
	folio_lruvec_relock_irqsave(&f[0], &locked, NULL);
	assert_ptr_equal(locked, la);
	unlock_page_lruvec_irqrestore(locked, 0);
	assert_false(spin_is_locked(&la->lru_lock));

	mem_cgroup_uncharge(&f[0]);
	mem_cgroup_uncharge(&f[1]);
	mem_cgroup_uncharge(&f[2]);
	/* an uncharged folio belongs to the root's lruvec */
	assert_ptr_equal(folio_lruvec(&f[0]), lruvec_of(root_mem_cgroup, 0));
	mem_cgroup_offline(a);
	mem_cgroup_offline(b);
	free(f);
}

static void test_uncharge_batch(void **state)
{
	struct mem_cgroup *a = mem_cgroup_create(NULL, "a");
	struct mem_cgroup *b = mem_cgroup_create(NULL, "b");
	struct folio *f = folios_alloc(7, 0);
	struct folio_batch fbatch;
	int i;

	/* a a b (uncharged) a, then a 4-page a */
	mem_cgroup_charge(&f[0], a);
	mem_cgroup_charge(&f[1], a);
	mem_cgroup_charge(&f[2], b);
	mem_cgroup_charge(&f[4], a);
	folio_make_large(&f[5], 2);
	mem_cgroup_charge(&f[5], a);
	drain_all_stock();
	assert_int_equal(mem_cgroup_usage(a), 7);
	assert_int_equal(mem_cgroup_usage(b), 1);
	folio_batch_init(&fbatch);
	for (i = 0; i < 6; i++)
		folio_batch_add(&fbatch, &f[i]);
	mem_cgroup_uncharge_folios(&fbatch);
	assert_int_equal(mem_cgroup_usage(a), 0);
	assert_int_equal(mem_cgroup_usage(b), 0);
	for (i = 0; i < 6; i++)
		assert_null(folio_memcg(&f[i]));
	/* the folios' references are gone: offline frees at once */
	mem_cgroup_offline(a);
	mem_cgroup_offline(b);
	assert_true(list_empty(&root_mem_cgroup->children));
	free(f);
}

/* ---- concurrency ---- */

#define CONC_WORKERS 3
#define CONC_ITERS 20000
#define CONC_ZOMBIES 150

struct conc {
	struct mem_cgroup *p, *q, *shared;
	struct mem_cgroup *own[CONC_WORKERS];
	unsigned short zombie_ids[CONC_ZOMBIES];
	int errors;
};

struct worker {
	struct conc *conc;
	int idx;
	struct folio *folios;
	unsigned long kept_shared, kept_own;
};

static void worker_fn(void *arg)
{
	struct worker *w = arg;
	struct conc *conc = w->conc;
	int i;

	w->folios = folios_alloc(CONC_ITERS, 0);
	for (i = 0; i < CONC_ITERS; i++) {
		struct folio *folio = &w->folios[i];
		struct mem_cgroup *memcg = i % 3 ? conc->shared : conc->own[w->idx];

		if (mem_cgroup_charge(folio, memcg)) {
			__atomic_fetch_add(&conc->errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		lruvec_stat_mod_folio(folio, NR_ANON_MAPPED, 1);
		mod_lruvec_state(folio_lruvec(folio), NR_ACTIVE_ANON, 1);
		count_memcg_folio_events(folio, PGFAULT, 1);
		if (i % 2 == 0) {
			lruvec_stat_mod_folio(folio, NR_ANON_MAPPED, -1);
			mod_lruvec_state(folio_lruvec(folio), NR_ACTIVE_ANON, -1);
			mem_cgroup_uncharge(folio);
		} else if (memcg == conc->shared) {
			w->kept_shared++;
		} else {
			w->kept_own++;
		}
		if (w->idx == 0 && i % 1000 == 0) {
			struct mem_cgroup *pos;

			mem_cgroup_flush_stats(NULL);
			for (pos = mem_cgroup_iter(NULL, NULL); pos;
			     pos = mem_cgroup_iter(NULL, pos))
				(void)memcg_page_state(pos, NR_ACTIVE_ANON);
		}
		if (w->idx == 1 && i % 1500 == 0)
			drain_all_stock();
	}
}

static void *worker_thread(void *arg)
{
	struct worker *w = arg;

	if (cpu_enter(w->idx + 1, false))
		abort();
	worker_fn(w);
	cpu_exit();
	return NULL;
}

/* Not a model CPU: creates, loads and offlines memcgs under q. */
static void *offliner_thread(void *arg)
{
	struct conc *conc = arg;
	struct folio *f = folios_alloc(2 * CONC_ZOMBIES, 0);
	int k;

	rcu_register_thread();
	for (k = 0; k < CONC_ZOMBIES; k++) {
		struct mem_cgroup *z;
		char name[16];

		snprintf(name, sizeof(name), "z%d", k);
		z = mem_cgroup_create(conc->q, name);
		if (!z) {
			__atomic_fetch_add(&conc->errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		conc->zombie_ids[k] = z->id;
		if (mem_cgroup_charge(&f[2 * k], z) || mem_cgroup_charge(&f[2 * k + 1], z))
			__atomic_fetch_add(&conc->errors, 1, __ATOMIC_RELAXED);
		mod_lruvec_state(lruvec_of(z, 0), NR_INACTIVE_FILE, 2);
		count_memcg_events(z, PGMAJFAULT, 1);
		mod_memcg_state(z, MEMCG_KMEM, 1);
		mem_cgroup_offline(z);
		/* one folio goes now, the other keeps a zombie for a while */
		mem_cgroup_uncharge(&f[2 * k]);
		if (k >= 10)
			mem_cgroup_uncharge(&f[2 * (k - 10) + 1]);
	}
	for (k = CONC_ZOMBIES - 10; k < CONC_ZOMBIES; k++)
		mem_cgroup_uncharge(&f[2 * k + 1]);
	rcu_unregister_thread();
	free(f);
	return NULL;
}

static void test_concurrent(void **state)
{
	struct conc conc = { 0 };
	struct worker w[CONC_WORKERS];
	pthread_t t[CONC_WORKERS], off;
	unsigned long kept_shared = 0, kept_total = 0, faults = CONC_ITERS * CONC_WORKERS;
	struct mem_cgroup *pos;
	char name[16];
	int i, j, n;

	conc.p = mem_cgroup_create(NULL, "p");
	conc.q = mem_cgroup_create(NULL, "q");
	conc.shared = mem_cgroup_create(conc.p, "shared");
	for (i = 0; i < CONC_WORKERS; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		conc.own[i] = mem_cgroup_create(conc.p, name);
		w[i] = (struct worker){ .conc = &conc, .idx = i };
	}
	for (i = 0; i < CONC_WORKERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker_thread, &w[i]), 0);
	assert_int_equal(pthread_create(&off, NULL, offliner_thread, &conc), 0);
	for (i = 0; i < CONC_WORKERS; i++)
		assert_int_equal(join_sleep(t[i], NULL), 0);
	assert_int_equal(join_sleep(off, NULL), 0);
	assert_int_equal(conc.errors, 0);

	mem_cgroup_wait_frees();
	drain_all_stock();
	mem_cgroup_flush_all();
	vmstat_refresh();

	for (i = 0; i < CONC_WORKERS; i++) {
		kept_shared += w[i].kept_shared;
		kept_total += w[i].kept_shared + w[i].kept_own;
		assert_int_equal(mem_cgroup_usage(conc.own[i]), w[i].kept_own);
		assert_int_equal(memcg_page_state(conc.own[i], NR_ACTIVE_ANON), w[i].kept_own);
		/* every third fault goes to the worker's own memcg */
		assert_int_equal(memcg_events(conc.own[i], PGFAULT), (CONC_ITERS + 2) / 3);
	}
	assert_int_equal(mem_cgroup_usage(conc.shared), kept_shared);
	assert_int_equal(memcg_page_state(conc.shared, NR_ACTIVE_ANON), kept_shared);
	assert_int_equal(memcg_page_state(conc.shared, NR_ANON_MAPPED), kept_shared);
	assert_int_equal(mem_cgroup_usage(conc.p), kept_total);
	assert_int_equal(memcg_page_state(conc.p, NR_ACTIVE_ANON), kept_total);
	assert_int_equal(memcg_page_state_local(conc.p, NR_ACTIVE_ANON), 0);
	assert_int_equal(memcg_events(conc.p, PGFAULT), faults);
	assert_int_equal(memcg_events(root_mem_cgroup, PGFAULT), faults);

	/* every zombie is gone, its figures kept in q */
	assert_int_equal(mem_cgroup_usage(conc.q), 0);
	assert_true(list_empty(&conc.q->children));
	/* the live memcgs hold ids 1-7, the zombies had higher ones */
	rcu_read_lock();
	for (j = 0; j < CONC_ZOMBIES; j++) {
		assert_true(conc.zombie_ids[j] > 3 + 1 + CONC_WORKERS);
		assert_null(mem_cgroup_from_id(conc.zombie_ids[j]));
	}
	rcu_read_unlock();
	assert_int_equal(memcg_page_state(conc.q, NR_INACTIVE_FILE), 2 * CONC_ZOMBIES);
	assert_int_equal(memcg_page_state(conc.q, MEMCG_KMEM), CONC_ZOMBIES);
	assert_int_equal(memcg_events(conc.q, PGMAJFAULT), CONC_ZOMBIES);
	assert_int_equal(memcg_page_state_local(conc.q, MEMCG_KMEM), 0);

	/* the node agrees with the root */
	assert_int_equal(node_page_state(NODE_DATA(0), NR_ACTIVE_ANON), kept_total);
	assert_int_equal(memcg_page_state(root_mem_cgroup, NR_ACTIVE_ANON), kept_total);
	assert_int_equal(node_page_state(NODE_DATA(0), NR_INACTIVE_FILE), 2 * CONC_ZOMBIES);
	assert_int_equal(memcg_page_state(root_mem_cgroup, NR_INACTIVE_FILE), 2 * CONC_ZOMBIES);

	n = 0;
	for (pos = mem_cgroup_iter(NULL, NULL); pos; pos = mem_cgroup_iter(NULL, pos))
		n++;
	assert_int_equal(n, 3 + 1 + CONC_WORKERS);

	for (i = 0; i < CONC_WORKERS; i++) {
		for (j = 0; j < CONC_ITERS; j++)
			mem_cgroup_uncharge(&w[i].folios[j]);
		free(w[i].folios);
	}
	assert_int_equal(mem_cgroup_usage(conc.p), 0);
}

/*
 * ---- memcg-direct-stat (s3 patch 2) ----
 *
 * The same folio and kmem updates, in a fresh system each time, with the
 * switch off and on: every figure must come out the same, as the patch
 * changes only how the memcg and node are found.  A real system, for
 * arena memory behind the kmem updates.
 */
struct direct_stat_run {
	struct mem_cgroup *c, *p;
	struct folio *a, *b, *k;
	char *text;		/* every figure, to compare the two runs whole */
};

static void direct_stat_on_cpu1(void *arg)
{
	struct direct_stat_run *r = arg;

	__lruvec_stat_mod_folio(r->a, NR_FILE_DIRTY, 1);
	lruvec_stat_mod_folio(r->b, NR_ANON_MAPPED, -1);
}

static void direct_stat_nocpu(void *arg)
{
	struct direct_stat_run *r = arg;

	lruvec_stat_mod_folio(r->a, NR_WRITEBACK, 1);
	mod_lruvec_kmem_state((char *)folio_address(r->k) + PAGE_SIZE + 100,
			      WORKINGSET_NODES, -1);
}

static void direct_stat_dump(FILE *f, const char *name, struct mem_cgroup *memcg)
{
	char *ms = capture(memory_stat_show, memcg);
	int nid, i;

	fprintf(f, "== %s memory.stat\n%s", name, ms);
	free(ms);
	for_each_node(nid)
		for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
			fprintf(f, "%s node %d item %d: %lu local %lu\n", name, nid, i,
				lruvec_page_state(lruvec_of(memcg, nid), i),
				lruvec_page_state_local(lruvec_of(memcg, nid), i));
}

/* @line ("anon 12288"), a whole line of memory.stat */
static bool memory_stat_has(struct mem_cgroup *memcg, const char *line)
{
	char *ms = capture(memory_stat_show, memcg), *all, *want;
	bool ret;

	assert_true(asprintf(&all, "\n%s", ms) > 0);
	assert_true(asprintf(&want, "\n%s\n", line) > 0);
	ret = strstr(all, want) != NULL;
	free(ms);
	free(all);
	free(want);
	return ret;
}

static void direct_stat_run(bool direct, struct direct_stat_run *r)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct mem_cgroup *root;
	struct folio *d, *u, *rf;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int nid, i;

	cfg.nr_cpus = 2;
	cfg.nr_nodes = 2;
	cfg.node_pages = 1024;
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(cpu_enter(0, false), 0);
	lrulab_switches[SW_MEMCG_DIRECT_STAT] = direct;
	root = root_mem_cgroup;
	r->p = mem_cgroup_create(NULL, "p");
	r->c = mem_cgroup_create(r->p, "c");
	assert_non_null(r->c);

	r->a = folio_alloc(0, 0);
	r->b = folio_alloc(2, 1);
	r->k = folio_alloc(1, 1);	/* a kmem page */
	d = folio_alloc(0, 0);
	u = folio_alloc(0, 1);		/* never charged */
	rf = folio_alloc(0, 0);
	assert_true(r->a && r->b && r->k && d && u && rf);
	assert_int_equal(folio_nid(r->b), 1);
	assert_int_equal(mem_cgroup_charge(r->a, r->c), 0);
	assert_int_equal(mem_cgroup_charge(r->b, r->c), 0);
	assert_int_equal(mem_cgroup_charge(r->k, r->c), 0);
	assert_int_equal(mem_cgroup_charge(d, r->p), 0);
	assert_int_equal(mem_cgroup_charge(rf, NULL), 0);

	lruvec_stat_mod_folio(r->a, NR_FILE_PAGES, 1);
	lruvec_stat_mod_folio(r->a, NR_SHMEM, 1);
	lruvec_stat_add_folio(r->b, NR_ANON_MAPPED);
	lruvec_stat_mod_folio(d, NR_FILE_PAGES, 1);
	lruvec_stat_mod_folio(u, NR_FILE_PAGES, 1);
	lruvec_stat_mod_folio(rf, NR_FILE_MAPPED, 1);
	/* inside the kmem folio's tail page, and an uncharged page */
	mod_lruvec_kmem_state((char *)folio_address(r->k) + PAGE_SIZE + 100,
			      WORKINGSET_NODES, 3);
	mod_lruvec_kmem_state(folio_address(u), WORKINGSET_NODES, 1);
	/* an LRU size update has only the lruvec, whatever the switch */
	mod_lruvec_state(lruvec_of(r->c, 0), NR_ACTIVE_ANON, 2);
	run_on_cpu(1, direct_stat_on_cpu1, r);
	run_nocpu(direct_stat_nocpu, r);

	mem_cgroup_flush_all();
	vmstat_refresh();

	f = open_memstream(&text, &len);
	assert_non_null(f);
	direct_stat_dump(f, "c", r->c);
	direct_stat_dump(f, "p", r->p);
	direct_stat_dump(f, "root", root);
	for_each_node(nid)
		for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
			fprintf(f, "node %d item %d: %lu\n", nid, i,
				node_page_state(NODE_DATA(nid), i));
	fclose(f);
	r->text = text;

	/* memory.stat, hierarchical */
	assert_true(memory_stat_has(r->c, "file 4096"));
	assert_true(memory_stat_has(r->c, "anon 12288"));
	assert_true(memory_stat_has(r->c, "shmem 4096"));
	assert_true(memory_stat_has(r->c, "file_dirty 4096"));
	assert_true(memory_stat_has(r->c, "file_writeback 4096"));
	assert_true(memory_stat_has(r->c, "file_mapped 0"));
	assert_true(memory_stat_has(r->c, "active_anon 8192"));
	assert_true(memory_stat_has(r->p, "file 8192"));
	assert_true(memory_stat_has(r->p, "anon 12288"));
	assert_true(memory_stat_has(root, "file 8192"));
	assert_true(memory_stat_has(root, "file_mapped 4096"));
	assert_int_equal(memcg_page_state(r->c, WORKINGSET_NODES), 2);
	assert_int_equal(memcg_page_state(root, WORKINGSET_NODES), 2);

	/* per-node lruvec stats: the memcg's own node only */
	assert_int_equal(lruvec_page_state(lruvec_of(r->c, 0), NR_FILE_PAGES), 1);
	assert_int_equal(lruvec_page_state(lruvec_of(r->c, 1), NR_FILE_PAGES), 0);
	assert_int_equal(lruvec_page_state(lruvec_of(r->c, 1), NR_ANON_MAPPED), 3);
	assert_int_equal(lruvec_page_state(lruvec_of(r->c, 0), NR_ANON_MAPPED), 0);
	assert_int_equal(lruvec_page_state(lruvec_of(r->c, 1), WORKINGSET_NODES), 2);
	assert_int_equal(lruvec_page_state(lruvec_of(r->c, 0), NR_FILE_DIRTY), 1);
	assert_int_equal(lruvec_page_state(lruvec_of(r->c, 0), NR_WRITEBACK), 1);
	assert_int_equal(lruvec_page_state(lruvec_of(r->p, 0), NR_FILE_PAGES), 2);
	assert_int_equal(lruvec_page_state_local(lruvec_of(r->p, 0), NR_FILE_PAGES), 1);
	assert_int_equal(lruvec_page_state(lruvec_of(root, 0), NR_FILE_PAGES), 2);
	assert_int_equal(lruvec_page_state_local(lruvec_of(root, 0), NR_FILE_PAGES), 0);
	assert_int_equal(lruvec_page_state_local(lruvec_of(root, 0), NR_FILE_MAPPED), 1);
	/* the uncharged folio and kmem page: node counters only */
	assert_int_equal(lruvec_page_state(lruvec_of(root, 1), NR_FILE_PAGES), 0);
	assert_int_equal(lruvec_page_state(lruvec_of(root, 1), WORKINGSET_NODES), 2);
	/* the node counters see everything */
	assert_int_equal(node_page_state(NODE_DATA(0), NR_FILE_PAGES), 2);
	assert_int_equal(node_page_state(NODE_DATA(1), NR_FILE_PAGES), 1);
	assert_int_equal(node_page_state(NODE_DATA(1), NR_ANON_MAPPED), 3);
	assert_int_equal(node_page_state(NODE_DATA(1), WORKINGSET_NODES), 3);
	assert_int_equal(node_page_state(NODE_DATA(0), NR_FILE_MAPPED), 1);
	assert_int_equal(node_page_state(NODE_DATA(0), NR_ACTIVE_ANON), 2);

	folio_put(r->a);
	folio_put(r->b);
	folio_put(r->k);
	folio_put(d);
	folio_put(u);
	folio_put(rf);
	mem_cgroup_offline(r->c);
	mem_cgroup_offline(r->p);
	lrulab_switches_clear();
	cpu_exit();
	lrulab_exit();
}

static void test_direct_stat(void **state)
{
	struct direct_stat_run off, on;

	direct_stat_run(false, &off);
	direct_stat_run(true, &on);
	assert_string_equal(off.text, on.text);
	free(off.text);
	free(on.text);
}

/*
 * With the flusher on, an update too small to trigger a flush of its
 * own becomes visible to the flushed readers without anyone flushing:
 * two periodic flushes after the update, one of them began after it.
 * The wait polls the flush count with a generous bound, so the test
 * asserts what happens, not how soon.
 */
static void test_periodic_flush(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct timespec tick = { .tv_nsec = 1000000 };
	struct mem_cgroup *c;
	unsigned long seq;
	int i;

	(void)state;
	cfg.nr_cpus = 2;
	cfg.memcg_flush_ms = 10;
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(cpu_enter(0, false), 0);
	assert_int_equal(mem_cgroup_flusher_start(10), -EBUSY);
	c = mem_cgroup_create(root_mem_cgroup, "c");
	assert_non_null(c);

	mod_memcg_state(c, MEMCG_SOCK, 3);
	seq = mem_cgroup_nr_periodic_flushes();
	for (i = 0; i < 60000 && mem_cgroup_nr_periodic_flushes() < seq + 2; i++)
		nanosleep(&tick, NULL);
	assert_true(mem_cgroup_nr_periodic_flushes() >= seq + 2);
	assert_int_equal(memcg_page_state(c, MEMCG_SOCK), 3);
	assert_int_equal(memcg_page_state(root_mem_cgroup, MEMCG_SOCK), 3);
	assert_int_equal(memcg_page_state_local(root_mem_cgroup, MEMCG_SOCK), 0);

	mod_memcg_state(c, MEMCG_SOCK, -3);
	mem_cgroup_offline(c);
	cpu_exit();
	lrulab_exit();

	/*
	 * Exit wakes the flusher rather than waiting out its period: with
	 * an hour's period this would otherwise hang.  The default config
	 * starts none.
	 */
	cfg.memcg_flush_ms = 3600 * 1000;
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(mem_cgroup_nr_periodic_flushes(), 0);
	lrulab_exit();
	cfg = (struct lrulab_config)LRULAB_CONFIG_DEFAULT;
	assert_int_equal(cfg.memcg_flush_ms, 0);
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(mem_cgroup_flusher_start(0), -EINVAL);
	assert_int_equal(mem_cgroup_flush_period_ns(), FLUSH_TIME_NS);
	assert_int_equal(mem_cgroup_flusher_start(10), 0);
	assert_int_equal(mem_cgroup_flusher_start(10), -EBUSY);
	/* the period is FLUSH_TIME for the ratelimited readers while it runs */
	assert_int_equal(mem_cgroup_flush_period_ns(), 10000000ULL);
	mem_cgroup_flusher_stop();
	assert_int_equal(mem_cgroup_flush_period_ns(), FLUSH_TIME_NS);
	lrulab_exit();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tree_ids_iter, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_charge_stock, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_memory_max, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_hierarchical_limit, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_stats, setup_2cpu_2node, teardown),
		cmocka_unit_test_setup_teardown(test_flush_threshold, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_memory_stat, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_offline_free, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_pn_slab, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_lru_helpers, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_uncharge_batch, setup_2cpu, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent, setup_4cpu, teardown),
		cmocka_unit_test(test_direct_stat),
		cmocka_unit_test(test_periodic_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
