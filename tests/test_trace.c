// SPDX-License-Identifier: MIT
/*
 * The tracer (lib/trace.c, <lrulab/trace.h>): registering and removing
 * probes and the enabled flags they set, the lock events lockstat fires
 * (every acquisition and release once a probe is on), the per-thread
 * ring (entries stamped with the context, handed on in order when
 * drained or full, pair reads of one line logged once per context), and
 * the lines mm/ attaches to lru_lock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/trace.h>

struct lock_counts {
	int acquired, released, contended, resets;
	spinlock_t *last;
	u64 hold_total;
};

static void on_acquired(void *data, spinlock_t *l, struct lock_site *site)
{
	struct lock_counts *c = data;

	c->acquired++;
	c->last = l;
}

static void on_released(void *data, spinlock_t *l, u64 t_req, u64 hold, u64 now)
{
	struct lock_counts *c = data;

	c->released++;
	c->hold_total += hold;
	assert_ptr_equal(l, c->last);
	assert_true(t_req <= now);
}

static void on_reset(void *data)
{
	((struct lock_counts *)data)->resets++;
}

static void test_register_unregister(void **state)
{
	struct lock_counts a = { 0 }, b[TRACE_MAX_PROBES];
	int i;

	assert_false(trace_on(lock_acquired));
	assert_int_equal(register_trace_lock_acquired(on_acquired, &a), 0);
	assert_true(trace_on(lock_acquired));
	assert_int_equal(register_trace_lock_acquired(on_acquired, &a), -EEXIST);
	for (i = 1; i < TRACE_MAX_PROBES; i++)
		assert_int_equal(register_trace_lock_acquired(on_acquired, &b[i]), 0);
	assert_int_equal(register_trace_lock_acquired(on_acquired, &b[0]), -ENOSPC);
	for (i = 1; i < TRACE_MAX_PROBES; i++)
		assert_int_equal(unregister_trace_lock_acquired(on_acquired, &b[i]), 0);
	assert_true(trace_on(lock_acquired));
	assert_int_equal(unregister_trace_lock_acquired(on_acquired, &b[1]), -ENOENT);
	assert_int_equal(unregister_trace_lock_acquired(on_acquired, &a), 0);
	assert_false(trace_on(lock_acquired));
	assert_int_equal(trace_probe_register(NR_TRACE_EVENTS, (trace_probe_fn)on_reset, NULL),
			 -EINVAL);

	assert_int_equal(trace_event_find("lock_acquired"), TRACE_ID_lock_acquired);
	assert_int_equal(trace_event_find("pair_read"), TRACE_ID_pair_read);
	assert_int_equal(trace_event_find("no_such_event"), NR_TRACE_EVENTS);
	assert_string_equal(trace_event_name(TRACE_ID_lru_hold_section), "lru_hold_section");
	assert_true(trace_events[TRACE_ID_vmstat_fold].ring);
	assert_false(trace_events[TRACE_ID_lock_released].ring);
}

/*
 * Once a probe is on and sampling restarted, every acquisition and
 * release reaches it and every hold is timed; with the probes off again
 * nothing does, and sampling goes back to one hold in 64.
 */
static void test_lock_events(void **state)
{
	struct lock_site *site = LOCK_SITE_AT("ttrace", "test_lock_events", "test_lock_events");
	struct lock_counts c = { 0 };
	struct lock_stat st;
	spinlock_t l;
	int i;

	spin_lock_init(&l);
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	assert_int_equal(register_trace_lock_acquired(on_acquired, &c), 0);
	assert_int_equal(register_trace_lock_released(on_released, &c), 0);
	assert_int_equal(register_trace_lockstat_reset(on_reset, &c), 0);
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	lockstat_reset();
	assert_int_equal(c.resets, 1);
	for (i = 0; i < 100; i++) {
		spin_lock_at(&l, site);
		spin_unlock(&l);
	}
	assert_int_equal(c.acquired, 100);
	assert_int_equal(c.released, 100);
	lockstat_read(site, &st);
	assert_int_equal(st.acquired, 100);
	assert_int_equal(st.hold_timed, 100);

	assert_int_equal(unregister_trace_lock_acquired(on_acquired, &c), 0);
	assert_int_equal(unregister_trace_lock_released(on_released, &c), 0);
	assert_int_equal(unregister_trace_lockstat_reset(on_reset, &c), 0);
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	lockstat_reset();
	for (i = 0; i < 640; i++) {
		spin_lock_at(&l, site);
		spin_unlock(&l);
	}
	assert_int_equal(c.acquired, 100);
	assert_int_equal(c.resets, 1);
	lockstat_read(site, &st);
	assert_int_equal(st.acquired, 640);
	assert_int_equal(st.hold_timed, 10);
}

#define MAX_SEEN 256

struct ring_seen {
	int n;
	struct trace_entry e[MAX_SEEN];
	const void *relog;	/* a line to log from inside the probe, once */
};

static void on_entry(void *data, const struct trace_entry *e)
{
	struct ring_seen *s = data;

	assert_true(s->n < MAX_SEEN);
	s->e[s->n++] = *e;
	if (s->relog) {
		const void *line = s->relog;

		s->relog = NULL;
		trace_page_counter(line);
	}
}

/* Entries wait in the ring, stamped with the context, until drained or full. */
static void test_ring(void **state)
{
	static struct ring_seen s;
	long x[16] = { 0 }, y = 0;
	int i;

	memset(&s, 0, sizeof(s));
	/* off: nothing logged */
	trace_page_counter(&y);
	assert_int_equal(trace_ring_self()->nr, 0);

	assert_int_equal(register_trace_page_counter(on_entry, &s), 0);
	assert_int_equal(register_trace_memcg_batch(on_entry, &s), 0);
	trace_ring_set_context(7, true, NULL);
	trace_page_counter(&x[0]);
	trace_memcg_batch(&x[1], 64);
	trace_ring_set_context(8, false, NULL);
	trace_page_counter(&x[2]);
	assert_int_equal(s.n, 0);
	assert_int_equal(trace_ring_self()->nr, 3);
	trace_ring_drain();
	assert_int_equal(trace_ring_self()->nr, 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.e[0].event, TRACE_ID_page_counter);
	assert_ptr_equal((void *)s.e[0].p0, &x[0]);
	assert_int_equal(s.e[0].ctx, 7);
	assert_int_equal(s.e[0].ctx_in, 1);
	assert_int_equal(s.e[1].event, TRACE_ID_memcg_batch);
	assert_ptr_equal((void *)s.e[1].p0, &x[1]);
	assert_int_equal(s.e[1].arg, 64);
	assert_int_equal(s.e[2].ctx, 8);
	assert_int_equal(s.e[2].ctx_in, 0);

	/* a full ring is handed on before the next entry goes in */
	s.n = 0;
	for (i = 0; i < TRACE_RING_SIZE + 1; i++)
		trace_page_counter(&x[i % 16]);
	assert_int_equal(s.n, TRACE_RING_SIZE);
	assert_int_equal(trace_ring_self()->nr, 1);
	trace_ring_drain();
	assert_int_equal(s.n, TRACE_RING_SIZE + 1);

	/* what a probe logs while the ring is handed on waits in the fresh ring */
	s.n = 0;
	s.relog = &y;
	trace_page_counter(&x[3]);
	trace_ring_drain();
	assert_int_equal(s.n, 1);
	assert_int_equal(trace_ring_self()->nr, 1);
	trace_ring_drain();
	assert_int_equal(s.n, 2);
	assert_ptr_equal((void *)s.e[1].p0, &y);

	/* discarded: nothing handed on */
	trace_page_counter(&x[4]);
	trace_ring_discard();
	trace_ring_drain();
	assert_int_equal(s.n, 2);

	assert_int_equal(unregister_trace_page_counter(on_entry, &s), 0);
	assert_int_equal(unregister_trace_memcg_batch(on_entry, &s), 0);
	trace_ring_set_context(0, false, NULL);
}

/* A line read again in the same context is not logged again; in another it is. */
static void test_pair_read_once_per_context(void **state)
{
	static struct ring_seen s;
	static long lines[32] __attribute__((aligned(64)));

	memset(&s, 0, sizeof(s));
	assert_int_equal(register_trace_pair_read(on_entry, &s), 0);
	trace_ring_set_context(3, true, NULL);
	trace_pair_read(&lines[0]);
	trace_pair_read(&lines[1]);	/* the same 64-byte line */
	trace_pair_read(&lines[8]);	/* the next line */
	trace_pair_read(&lines[0]);
	trace_ring_set_context(3, false, NULL);
	trace_pair_read(&lines[0]);
	trace_ring_drain();
	assert_int_equal(s.n, 3);
	assert_ptr_equal((void *)s.e[0].p0, &lines[0]);
	assert_ptr_equal((void *)s.e[1].p0, &lines[8]);
	assert_ptr_equal((void *)s.e[2].p0, &lines[0]);
	assert_int_equal(s.e[2].ctx_in, 0);
	assert_int_equal(unregister_trace_pair_read(on_entry, &s), 0);
	trace_ring_set_context(0, false, NULL);
}

/*
 * In the model: a node counter that passes its per-CPU threshold folds
 * once, and the fold is traced with the node's and the global atomic and
 * the threshold in force; lru_lock's lines are the ones mm/ attached.
 */
static void test_model_events(void **state)
{
	static struct ring_seen s;
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct pglist_data *pgdat;
	struct mem_cgroup *memcg;
	struct lruvec *lruvec;
	uintptr_t lines[8];
	int threshold;

	memset(&s, 0, sizeof(s));
	cfg.nr_cpus = 1;
	cfg.node_pages = 16384;
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(cpu_enter(0, false), 0);
	pgdat = NODE_DATA(0);
	threshold = per_cpu_ptr(pgdat->per_cpu_nodestats, 0)->stat_threshold;
	assert_true(threshold > 1);

	assert_int_equal(register_trace_vmstat_fold(on_entry, &s), 0);
	mod_node_page_state(pgdat, NR_SHMEM, threshold);
	trace_ring_drain();
	assert_int_equal(s.n, 0);
	mod_node_page_state(pgdat, NR_SHMEM, 1);
	trace_ring_drain();
	assert_int_equal(s.n, 1);
	assert_int_equal(s.e[0].event, TRACE_ID_vmstat_fold);
	assert_ptr_equal((void *)s.e[0].p0, &pgdat->vm_stat[NR_SHMEM]);
	assert_ptr_equal((void *)s.e[0].p1, &vm_node_stat[NR_SHMEM]);
	assert_int_equal(s.e[0].b0, threshold);
	assert_int_equal(s.e[0].b1, 1);
	assert_int_equal(unregister_trace_vmstat_fold(on_entry, &s), 0);
	mod_node_page_state(pgdat, NR_SHMEM, -(threshold + 1));

	memcg = mem_cgroup_create(root_mem_cgroup, "t");
	assert_non_null(memcg);
	lruvec = mem_cgroup_lruvec(memcg, pgdat);
	assert_int_equal(lock_class_lines("lru_lock", &lruvec->lru_lock, lines, 8), 4);
	assert_int_equal(lines[0], (uintptr_t)&lruvec->lists[0] >> 6);
	assert_int_equal(lines[1], (uintptr_t)&lruvec->lists[NR_LRU_LISTS - 1] >> 6);
	assert_int_equal(lines[2], (uintptr_t)&memcg->nodeinfo[0]->lru_zone_size[0][0] >> 6);
	assert_int_equal(lines[3], ((uintptr_t)&lruvec->lru_lock >> 6) | (1ULL << 60));
	assert_int_equal(lock_class_lines("lru_lock", &lruvec->lru_lock, lines, 2), 2);
	assert_int_equal(lock_class_lines("zone->lock", &lruvec->lru_lock, lines, 8), 0);
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_unregister),
		cmocka_unit_test(test_lock_events),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_pair_read_once_per_context),
		cmocka_unit_test(test_model_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
