// SPDX-License-Identifier: MIT
/* Per-CPU folio batches, move functions and batched release (mm/swap.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/mm_inline.h>
#include <lrulab/switches.h>
#include <lrulab/trace.h>
#include <lrulab/workqueue.h>

#define NODE_PAGES 16384

static struct mem_cgroup *memcg;
static struct address_space file_mapping;	/* a bare page-cache owner */
static struct address_space unevictable_mapping;

static int setup(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = 2;
	cfg.node_pages = NODE_PAGES;
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		return -1;
	memcg = mem_cgroup_create(root_mem_cgroup, "t");
	set_bit(AS_UNEVICTABLE, &unevictable_mapping.flags);
	return memcg ? 0 : -1;
}

static int teardown(void **state)
{
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
	lrulab_switches_clear();
	return 0;
}

/* the hold sections and deferred updates, counted by probes of the test's own */
struct hold_counts {
	u64 count[NR_LRU_HOLD_SECTIONS];
	u64 deferred;
};

static void count_section(void *data, enum lru_hold_section sec, u64 ns)
{
	((struct hold_counts *)data)->count[sec]++;
}

static void count_deferred(void *data)
{
	((struct hold_counts *)data)->deferred++;
}

static struct folio *new_folio(unsigned int order, bool anon)
{
	struct folio *folio = folio_alloc(order, 0);

	assert_non_null(folio);
	assert_int_equal(mem_cgroup_charge(folio, memcg), 0);
	if (anon) {
		folio_set_swapbacked(folio);
		folio->mapping = (struct address_space *)(0x1000UL | PAGE_MAPPING_ANON);
	} else {
		folio->mapping = &file_mapping;
	}
	return folio;
}

static void free_folio(struct folio *folio)
{
	folio->mapping = NULL;
	folio_put(folio);
}

static struct lruvec *test_lruvec(void)
{
	return mem_cgroup_lruvec(memcg, NODE_DATA(0));
}

static unsigned long list_len(enum lru_list lru)
{
	struct list_head *pos;
	unsigned long n = 0;

	list_for_each(pos, &test_lruvec()->lists[lru])
		n++;
	return n;
}

static unsigned long zone_size(enum lru_list lru)
{
	return memcg->nodeinfo[0]->lru_zone_size[ZONE_NORMAL][lru];
}

static struct lock_stat site_stat(const char *caller)
{
	struct lock_stat st = { 0 };
	int i;

	for (i = 0; i < lockstat_nr_sites(); i++) {
		struct lock_site *s = lockstat_site(i);

		if (!strcmp(s->cls, "lru_lock") && !strcmp(s->fn, caller))
			lockstat_read(s, &st);
	}
	return st;
}

static void test_batch_fills_then_moves(void **state)
{
	struct folio *f[FOLIO_BATCH_SIZE];
	int i;

	lockstat_reset();
	for (i = 0; i < FOLIO_BATCH_SIZE - 1; i++) {
		f[i] = new_folio(0, true);
		folio_add_lru(f[i]);
		assert_false(folio_test_lru(f[i]));
		assert_int_equal(folio_ref_count(f[i]), 2);	/* the batch's */
	}
	assert_int_equal(lru_batches_count(0), FOLIO_BATCH_SIZE - 1);
	assert_int_equal(list_len(LRU_INACTIVE_ANON), 0);
	assert_int_equal(site_stat("folio_batch_move_lru").acquired, 0);

	f[i] = new_folio(0, true);
	folio_add_lru(f[i]);	/* the 31st fills the batch: one lock hold */
	assert_int_equal(lru_batches_count(0), 0);
	assert_int_equal(list_len(LRU_INACTIVE_ANON), FOLIO_BATCH_SIZE);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), FOLIO_BATCH_SIZE);
	assert_int_equal(site_stat("folio_batch_move_lru").acquired, 1);
	/* newest at the head */
	assert_ptr_equal(list_first_entry(&test_lruvec()->lists[LRU_INACTIVE_ANON],
					  struct folio, lru), f[FOLIO_BATCH_SIZE - 1]);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
		assert_true(folio_test_lru(f[i]));
		assert_int_equal(folio_ref_count(f[i]), 1);
		free_folio(f[i]);
	}
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 0);
	assert_int_equal(site_stat("__folio_put").acquired, FOLIO_BATCH_SIZE);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_large_folio_bypasses_batch(void **state)
{
	struct folio *small = new_folio(0, true), *large = new_folio(2, true);

	folio_add_lru(small);
	assert_int_equal(lru_batches_count(0), 1);
	folio_add_lru(large);	/* drains what was queued too */
	assert_int_equal(lru_batches_count(0), 0);
	assert_true(folio_test_lru(small));
	assert_true(folio_test_lru(large));
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 1 + 4);
	assert_int_equal(folio_ref_count(large), 1);
	free_folio(small);
	free_folio(large);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_lru_cache_disable(void **state)
{
	struct folio *f = new_folio(0, false);

	lru_cache_disable();
	assert_true(lru_cache_disabled());
	folio_add_lru(f);
	assert_true(folio_test_lru(f));
	assert_int_equal(list_len(LRU_INACTIVE_FILE), 1);
	lru_cache_enable();
	assert_false(lru_cache_disabled());
	free_folio(f);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_mark_accessed_activates(void **state)
{
	struct folio *a = new_folio(0, false), *b = new_folio(0, false);
	unsigned long before = sum_vm_event(PGACTIVATE);

	/* b: accessed twice while still in the lru_add batch */
	folio_add_lru(b);
	folio_mark_accessed(b);
	assert_true(folio_test_referenced(b));
	folio_mark_accessed(b);
	assert_true(folio_test_active(b));
	assert_false(folio_test_referenced(b));

	/* a: on the LRU, then accessed twice: activation is queued */
	folio_add_lru(a);
	lru_add_drain();
	assert_int_equal(list_len(LRU_ACTIVE_FILE), 1);
	folio_mark_accessed(a);
	folio_mark_accessed(a);
	assert_false(folio_test_active(a));
	assert_int_equal(lru_batches_count(0), 1);
	lru_add_drain();
	assert_true(folio_test_active(a));
	assert_int_equal(list_len(LRU_ACTIVE_FILE), 2);
	assert_int_equal(list_len(LRU_INACTIVE_FILE), 0);
	assert_int_equal(sum_vm_event(PGACTIVATE) - before, 1);
	free_folio(a);
	free_folio(b);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_deactivate_lazyfree_rotate(void **state)
{
	struct folio *act = new_folio(0, true), *file = new_folio(0, false);
	struct folio *lazy = new_folio(0, true), *other = new_folio(0, false);
	unsigned long deact = sum_vm_event(PGDEACTIVATE);
	unsigned long lazyev = sum_vm_event(PGLAZYFREE);
	unsigned long rot = sum_vm_event(PGROTATED);
	struct list_head *ifile = &test_lruvec()->lists[LRU_INACTIVE_FILE];

	folio_set_active(act);
	folio_add_lru(act);
	folio_add_lru(file);
	folio_add_lru(other);
	folio_add_lru(lazy);
	lru_add_drain();
	assert_int_equal(list_len(LRU_ACTIVE_ANON), 1);
	assert_ptr_equal(list_first_entry(ifile, struct folio, lru), other);

	folio_deactivate(act);
	deactivate_file_folio(file);	/* clean: to the tail, rotated */
	folio_mark_lazyfree(lazy);
	lru_add_drain();
	assert_false(folio_test_active(act));
	assert_int_equal(list_len(LRU_INACTIVE_ANON), 1);
	assert_ptr_equal(list_last_entry(ifile, struct folio, lru), file);
	assert_false(folio_test_swapbacked(lazy));
	assert_ptr_equal(list_first_entry(ifile, struct folio, lru), lazy);
	assert_int_equal(sum_vm_event(PGDEACTIVATE) - deact, 1);
	assert_int_equal(sum_vm_event(PGLAZYFREE) - lazyev, 1);
	assert_int_equal(sum_vm_event(PGROTATED) - rot, 1);
	assert_int_equal(memcg_events_local(memcg, PGLAZYFREE), 0);	/* not flushed */
	mem_cgroup_flush_all();
	assert_int_equal(memcg_events_local(memcg, PGLAZYFREE), 1);

	/* writeback done: rotate `other` from the head to the tail */
	folio_rotate_reclaimable(other);
	lru_add_drain();
	assert_ptr_equal(list_last_entry(ifile, struct folio, lru), other);
	assert_int_equal(sum_vm_event(PGROTATED) - rot, 2);

	free_folio(act);
	free_folio(file);
	free_folio(lazy);
	free_folio(other);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_queued_op_dropped_when_isolated(void **state)
{
	struct folio *f = new_folio(0, false);
	struct lruvec *lruvec;
	unsigned long before = sum_vm_event(PGACTIVATE);

	folio_add_lru(f);
	lru_add_drain();
	folio_activate(f);
	/* isolate it, as reclaim would, while the activation is queued */
	assert_true(folio_test_clear_lru(f));
	lruvec = folio_lruvec_lock_irq(f);
	lruvec_del_folio(lruvec, f);
	unlock_page_lruvec_irq(lruvec);
	lru_add_drain();
	assert_false(folio_test_active(f));
	assert_false(folio_test_lru(f));
	assert_int_equal(sum_vm_event(PGACTIVATE) - before, 0);
	assert_int_equal(folio_ref_count(f), 1);
	free_folio(f);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_unevictable_counted_not_linked(void **state)
{
	struct folio *f = new_folio(0, false);
	unsigned long culled = sum_vm_event(UNEVICTABLE_PGCULLED);

	f->mapping = &unevictable_mapping;
	folio_add_lru(f);
	lru_add_drain();
	assert_true(folio_test_unevictable(f));
	assert_int_equal(zone_size(LRU_UNEVICTABLE), 1);
	assert_true(list_empty(&test_lruvec()->lists[LRU_UNEVICTABLE]));
	assert_int_equal(sum_vm_event(UNEVICTABLE_PGCULLED) - culled, 1);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	free_folio(f);
	assert_int_equal(zone_size(LRU_UNEVICTABLE), 0);
}

static void test_folios_put_refs(void **state)
{
	unsigned long free_before = zone_free_pages_exact(&NODE_DATA(0)->node_zones[0]);
	struct folio_batch fb;
	unsigned int refs[4] = { 1, 3, 1, 2 };
	struct folio *f[4];
	int i;

	folio_batch_init(&fb);
	for (i = 0; i < 4; i++) {
		f[i] = new_folio(0, true);
		folio_ref_add(f[i], refs[i] - 1);
		folio_add_lru(f[i]);
	}
	lru_add_drain();
	folio_get(f[2]);	/* f[2] survives the batch put */
	for (i = 0; i < 4; i++) {
		f[i]->mapping = NULL;
		folio_batch_add(&fb, f[i]);
	}
	lockstat_reset();
	folios_put_refs(&fb, refs);
	assert_int_equal(folio_batch_count(&fb), 0);
	assert_int_equal(site_stat("folios_put_refs").acquired, 1);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 1);
	assert_int_equal(folio_ref_count(f[2]), 1);
	assert_ptr_equal(folio_memcg(f[2]), memcg);
	drain_all_pages();
	assert_int_equal(zone_free_pages_exact(&NODE_DATA(0)->node_zones[0]),
			 free_before - 1);
	folio_put(f[2]);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void *remote_adder(void *arg)
{
	struct folio **f = arg;

	if (cpu_enter(1, false))
		return NULL;
	folio_add_lru(*f);
	cpu_exit();	/* leaves the folio queued on CPU 1 */
	return NULL;
}

static void test_drain_all_reaches_remote_cpu(void **state)
{
	struct folio *f = new_folio(0, false);
	pthread_t t;

	pthread_create(&t, NULL, remote_adder, &f);
	join_sleep(t, NULL);
	assert_int_equal(lru_batches_count(1), 1);
	lru_add_drain();	/* local only: not enough */
	assert_false(folio_test_lru(f));
	lru_add_drain_all();
	assert_int_equal(lru_batches_count(1), 0);
	assert_true(folio_test_lru(f));
	free_folio(f);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}


/*
 * A drain of all CPUs queues work only where batches hold folios: CPU 1
 * (no thread, one folio queued) gets one work item and runs it, and a
 * second drain with nothing queued anywhere queues nothing.
 */
static void test_drain_all_only_needed_cpus(void **state)
{
	struct folio *f = new_folio(0, false);
	unsigned long run1 = READ_ONCE(cpu_states[1].nr_work_run);
	struct lru_drain_stats d0, d1, d2;
	pthread_t t;

	pthread_create(&t, NULL, remote_adder, &f);
	join_sleep(t, NULL);
	lru_drain_stats_read(&d0);
	lru_add_drain_all();
	lru_drain_stats_read(&d1);
	assert_int_equal(d1.all - d0.all, 1);
	assert_int_equal(d1.all_works - d0.all_works, 1);
	assert_int_equal(READ_ONCE(cpu_states[1].nr_work_run) - run1, 1);
	assert_true(folio_test_lru(f));
	lru_add_drain_all();
	lru_drain_stats_read(&d2);
	assert_int_equal(d2.all_works - d1.all_works, 0);
	assert_int_equal(READ_ONCE(cpu_states[1].nr_work_run) - run1, 1);
	free_folio(f);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

struct busy_cpu {
	struct folio *folio;
	int ready, allow, stop;
	unsigned long ran_here;	/* work items run by this thread */
};

/* CPU 1, running: it reaches a scheduling point only once allowed. */
static void *busy_cpu_fn(void *arg)
{
	struct busy_cpu *b = arg;
	unsigned long before;

	if (cpu_enter(1, false))
		return NULL;
	folio_add_lru(b->folio);
	before = READ_ONCE(cpu_states[1].nr_work_run);
	__atomic_store_n(&b->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&b->allow, __ATOMIC_ACQUIRE))
			cond_resched();
		cpu_relax();
	}
	b->ran_here = READ_ONCE(cpu_states[1].nr_work_run) - before;
	cpu_exit();
	return NULL;
}

static void *allow_later(void *arg)
{
	struct busy_cpu *b = arg;

	usleep(20000);
	__atomic_store_n(&b->allow, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A running CPU drains its own batches, at its next scheduling point,
 * and the caller of lru_add_drain_all() returns only after that: the
 * drain cannot have run before CPU 1 was allowed to reach one.
 */
static void test_drain_all_waits_for_running_cpu(void **state)
{
	struct busy_cpu b = { .folio = new_folio(0, false) };
	pthread_t t, a;

	pthread_create(&t, NULL, busy_cpu_fn, &b);
	while (!__atomic_load_n(&b.ready, __ATOMIC_ACQUIRE))
		cpu_relax();
	pthread_create(&a, NULL, allow_later, &b);
	lru_add_drain_all();
	assert_int_equal(__atomic_load_n(&b.allow, __ATOMIC_ACQUIRE), 1);
	assert_true(folio_test_lru(b.folio));
	__atomic_store_n(&b.stop, 1, __ATOMIC_RELEASE);
	join_sleep(a, NULL);
	join_sleep(t, NULL);
	assert_int_equal(b.ran_here, 1);
	free_folio(b.folio);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/* lru_cache_disable() runs work on every CPU, empty or not. */
static void test_lru_cache_disable_every_cpu(void **state)
{
	struct lru_drain_stats d0, d1;

	lru_drain_stats_read(&d0);
	lru_cache_disable();
	lru_drain_stats_read(&d1);
	lru_cache_enable();
	assert_int_equal(d1.all_works - d0.all_works, nr_cpu_ids);
}

/*
 * The dead-folio filter: a folio whose only reference left is the add
 * batch's is freed and uncharged by the drain without touching the LRU
 * or its lock; a live one beside it takes the lock once.
 */
static void test_dead_folio_filter(void **state)
{
	struct zone *zone = &NODE_DATA(0)->node_zones[0];
	struct folio *dead = new_folio(0, true), *live = new_folio(0, true);
	unsigned long free_before, usage_before;
	struct lock_stat st;

	folio_add_lru(dead);
	folio_add_lru(live);
	free_folio(dead);		/* the batch holds the last reference */
	assert_int_equal(folio_ref_count(dead), 1);
	free_before = zone_free_pages_exact(zone);
	usage_before = mem_cgroup_usage(memcg);
	lockstat_reset();
	lru_add_drain();
	/* without the filter: the add, then folios_put_refs() takes it off */
	lockstat_read_class("lru_lock", &st);
	assert_int_equal(st.acquired, 1);
	assert_int_equal(site_stat("lru_add_drain_cpu").acquired, 1);
	assert_false(folio_test_lru(dead));
	assert_true(folio_test_lru(live));
	assert_int_equal(list_len(LRU_INACTIVE_ANON), 1);
	assert_int_equal(zone_size(LRU_INACTIVE_ANON), 1);
	drain_all_pages();
	assert_int_equal(zone_free_pages_exact(zone), free_before + 1);
	assert_int_equal(mem_cgroup_usage(memcg), usage_before - 1);
	free_folio(live);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * lru-stat-batch (s0): one batch of 31 adds and one put of all of them.
 * Off, every folio updates the node+memcg stats under lru_lock; on, none
 * does and one deferred update per list is applied after the unlock.  The
 * stats equal the list lengths after the unlock either way.
 */
static void stat_batch_case(bool on, u64 locked_updates, u64 deferred)
{
	struct lruvec *lruvec = test_lruvec();
	struct folio_batch fb;
	struct hold_counts prof = { { 0 }, 0 };
	struct folio *f[FOLIO_BATCH_SIZE];
	int i;

	lrulab_switches[SW_LRU_STAT_BATCH] = on;
	assert_int_equal(register_trace_lru_hold_section(count_section, &prof), 0);
	assert_int_equal(register_trace_lru_stat_deferred(count_deferred, &prof), 0);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
		f[i] = new_folio(0, i & 1);
		folio_add_lru(f[i]);
	}
	assert_null(lruvec->lru_size_batch);
	mem_cgroup_flush_all();
	vmstat_refresh();
	assert_int_equal(lruvec_page_state_local(lruvec, NR_INACTIVE_ANON), 15);
	assert_int_equal(lruvec_page_state_local(lruvec, NR_INACTIVE_FILE), 16);
	assert_int_equal(node_page_state(NODE_DATA(0), NR_INACTIVE_ANON), 15);
	assert_int_equal(zone_size(LRU_INACTIVE_FILE), 16);

	folio_batch_init(&fb);
	for (i = 0; i < FOLIO_BATCH_SIZE; i++) {
		f[i]->mapping = NULL;
		folio_batch_add(&fb, f[i]);
	}
	folios_put(&fb);
	assert_null(lruvec->lru_size_batch);
	mem_cgroup_flush_all();
	vmstat_refresh();
	assert_int_equal(lruvec_page_state_local(lruvec, NR_INACTIVE_ANON), 0);
	assert_int_equal(lruvec_page_state_local(lruvec, NR_INACTIVE_FILE), 0);
	assert_int_equal(node_page_state(NODE_DATA(0), NR_INACTIVE_FILE), 0);

	assert_int_equal(unregister_trace_lru_hold_section(count_section, &prof), 0);
	assert_int_equal(unregister_trace_lru_stat_deferred(count_deferred, &prof), 0);
	assert_int_equal(prof.count[LRU_HOLD_STAT], locked_updates);
	assert_int_equal(prof.deferred, deferred);
	/* zone stats and lru_zone_size stay under the lock in both */
	assert_int_equal(prof.count[LRU_HOLD_ZONE_STAT], 2 * FOLIO_BATCH_SIZE);
	assert_int_equal(prof.count[LRU_HOLD_LRU_SIZE], 2 * FOLIO_BATCH_SIZE);
	assert_int_equal(prof.count[LRU_HOLD_LIST], 2 * FOLIO_BATCH_SIZE);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

static void test_lru_stat_batch_off(void **state)
{
	stat_batch_case(false, 2 * FOLIO_BATCH_SIZE, 0);
}

static void test_lru_stat_batch_on(void **state)
{
	/* two lists touched by the add, two by the put */
	stat_batch_case(true, 0, 4);
}

/*
 * The page count of a per-CPU cache (s4): kept by the lru_cache add only,
 * 0 means "drain" past FOLIO_BATCH_SIZE pages, a folio too large to cache
 * saturates the byte, and reinit clears it.
 */
static void test_folio_batch_nr_pages(void **state)
{
	struct folio *f16 = new_folio(4, true), *f2m = new_folio(9, true);
	struct folio *f1 = new_folio(0, true);
	struct folio_batch fb;

	folio_batch_init(&fb);
	assert_int_equal(fb.nr_pages, 0);
	assert_int_equal(folio_batch_add(&fb, f16), FOLIO_BATCH_SIZE - 1);
	assert_int_equal(fb.nr_pages, 0);
	folio_batch_reinit(&fb);
	assert_int_equal(folio_batch_add_lru_cache(&fb, f16), FOLIO_BATCH_SIZE - 1);
	assert_int_equal(fb.nr_pages, 16);
	assert_int_equal(folio_batch_add_lru_cache(&fb, f1), FOLIO_BATCH_SIZE - 2);
	assert_int_equal(fb.nr_pages, 17);
	/* 17 + 16 = 33 > 31 */
	assert_int_equal(folio_batch_add_lru_cache(&fb, f16), 0);
	assert_int_equal(fb.nr_pages, 33);
	assert_int_equal(folio_batch_add_lru_cache(&fb, f2m), 0);
	assert_int_equal(fb.nr_pages, 255);
	folio_batch_reinit(&fb);
	assert_int_equal(fb.nr_pages, 0);
	assert_int_equal(folio_batch_count(&fb), 0);
	free_folio(f1);
	free_folio(f16);
	free_folio(f2m);
}

/* Drains are counted per call: the local part of a drain of all is not. */
static void test_drain_stats(void **state)
{
	struct lru_drain_stats d0, d1;

	lru_drain_stats_read(&d0);
	lru_add_drain();
	lru_add_drain();
	lru_add_drain_all();
	lru_cache_disable();
	lru_cache_enable();
	lru_drain_stats_read(&d1);
	assert_int_equal(d1.local - d0.local, 2);
	assert_int_equal(d1.all - d0.all, 2);
}

/*
 * VM_BUG_ON_FOLIO: adding a folio both active and unevictable stops the
 * program, after the folio's dump and the broken condition with its place.
 */
static void test_add_active_unevictable_bugs(void **state)
{
	char buf[2048] = "";
	int fds[2], status;
	ssize_t len, got = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		struct folio *folio = new_folio(0, true);

		setrlimit(RLIMIT_CORE, &no_core);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		folio_set_active(folio);
		folio_set_unevictable(folio);
		folio_add_lru(folio);
		_exit(0);	/* not reached when the check works */
	}
	close(fds[1]);
	while ((len = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += len;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_true(strncmp(buf, "folio: pfn:", 11) == 0);
	assert_non_null(strstr(buf, " refcount:1 "));
	assert_non_null(strstr(buf, "\nfolio dumped because: VM_BUG_ON_FOLIO("
			       "folio_test_active(folio) && folio_test_unevictable(folio))\n"));
	assert_non_null(strstr(buf, "\nBUG: mm/swap.c:"));
	assert_non_null(strstr(buf, ": VM_BUG_ON_FOLIO(folio_test_active(folio) && "
			       "folio_test_unevictable(folio))\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_batch_fills_then_moves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_active_unevictable_bugs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_folio_bypasses_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lru_cache_disable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_accessed_activates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deactivate_lazyfree_rotate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queued_op_dropped_when_isolated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unevictable_counted_not_linked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folios_put_refs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_all_reaches_remote_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_all_only_needed_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_all_waits_for_running_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lru_cache_disable_every_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_folio_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lru_stat_batch_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lru_stat_batch_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folio_batch_nr_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_stats, setup, teardown),
	};

	return cmocka_run_group_tests_name("swap", tests, NULL, NULL);
}
