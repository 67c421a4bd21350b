// SPDX-License-Identifier: MIT
/*
 * The predictor's 128-byte pair reads (s3): the engine's rule on a
 * hand-made recording (a read of a line another CPU wrote costs the
 * reader one transfer, the writer's next section one invalidation, or,
 * read while the writer's section runs, that section the line taken
 * back; the partner fetched only when the line itself missed, which a
 * line no CPU writes does only where a store takes the pair whole; a
 * profile without pair prefetch costs neither; the other placement reads
 * the other partner), and what memcg lruvec stat updates record: one
 * event per mem_cgroup_per_node line read outside the object's own
 * lru_lock, its partner the list heads' or lru_zone_size[]'s line
 * exactly where the layout pairs them.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/cpu.h>
#include <lrulab/lrulab.h>
#include <lrulab/memcontrol.h>
#include "predict/predict.h"

/* ---- the engine ---- */

#define XFER 40
#define LIST_LINE 0		/* what the writer's sections write */
#define OTHER_LINE 1		/* nobody writes it */
#define READ_LINE 2		/* the line the reader reads itself; nobody writes it */

/*
 * CPU 0, the writer, takes a shared lock whose section writes LIST_LINE
 * (work 1000, hold 100); CPU 1, the reader, takes a private lock (work
 * 500, hold 10) and, before its third acquisition only (at 1020 ns, after
 * the writer's first section at 1000), reads READ_LINE with the pair @ev
 * describes.
 */
struct pair_gen {
	struct pred_event ev;
	u64 n[2];
};

static void pair_next(struct pred_source *src, int cpu, struct pred_op *op)
{
	struct pair_gen *g = src->arg;

	if (!cpu)
		*op = (struct pred_op){ .work_ns = 1000, .hold_ns = 100, .lock = 0, .site = 0 };
	else
		*op = (struct pred_op){ .work_ns = 500, .hold_ns = 10, .lock = 1, .site = 1 };
	g->n[cpu]++;
}

static u32 pair_events(struct pred_source *src, int cpu, const struct pred_event **ev)
{
	struct pair_gen *g = src->arg;

	*ev = &g->ev;
	return cpu == 1 && g->n[1] == 3;
}

static void pair_sim(u32 partner, u32 other, bool prefetch, bool rfo, bool other_placement,
		     struct pred_result *r)
{
	struct pred_costs c = { .work_scale = 1, .hold_scale = 1, .xfer_socket = XFER,
				.pair_prefetch = prefetch, .pair_rfo = rfo };
	u32 pairs[4] = { PRED_NO_LINE, PRED_NO_LINE, PRED_NO_LINE, PRED_NO_LINE };
	u32 p = other_placement ? other : partner;
	struct pred_lock locks[2] = {
		{ .scope = PRED_SHARED, .nr_lines = 1, .lines = { LIST_LINE } },
		{ .scope = PRED_PRIVATE },
	};
	struct pair_gen g = {
		.ev = { .op = 1, .line = READ_LINE, .line2 = partner, .arg = other,
			.kind = PRED_EV_PAIR_READ },
	};
	struct pred_source src = { .next = pair_next, .events = pair_events, .arg = &g };
	struct pred_sim_opts o = {
		.cpus = 2, .impl = LOCK_QSPINLOCK, .costs = &c, .nr_locks = 2, .locks = locks,
		.nr_sites = 2, .nr_lines = 3, .acquisitions = 40, .src = &src,
		.other_placement = other_placement, .line_partner = pairs,
	};

	pairs[READ_LINE] = p;
	pairs[p] = READ_LINE;
	assert_int_equal(pred_simulate(&o, r), 0);
	/* the writer's sections ran after the read */
	assert_true(r->sites[0].acquired >= 3);
	assert_int_equal(r->ev_seen[PRED_EV_PAIR_READ], 1);
	/* the read was in the reader's work: its holds are as recorded */
	assert_true(r->sites[1].hold_total == 10.0 * (double)r->sites[1].acquired);
}

/* the writer's holds over their recorded 100 ns each */
static double extra_hold(const struct pred_result *r)
{
	return r->sites[0].hold_total - 100.0 * (double)r->sites[0].acquired;
}

static void test_pair_read_rule(void **state)
{
	struct pred_result r;

	/*
	 * The partner is the list heads.  The writer's first section
	 * (1000-1100) writes them, and its miss takes their pair whole, the
	 * read-mostly line too (pair_rfo).  The reader's read in that
	 * section misses the read-mostly line (a transfer from the writer),
	 * so the prefetcher fetches the list heads (another), and the
	 * section takes them back (a steal, 40 ns more in it); the next
	 * section finds no copy to invalidate.
	 */
	pair_sim(LIST_LINE, OTHER_LINE, true, true, false, &r);
	assert_true(r.ev_xfer_ns == 2 * XFER);
	assert_int_equal(r.ev_xfers, 2);
	assert_int_equal(r.steals, 1);
	assert_true(r.steal_ns == XFER);
	assert_int_equal(r.invalidations, 0);
	assert_true(extra_hold(&r) == XFER);
	pred_result_free(&r);

	/*
	 * A store that takes only its own line: the read-mostly line, which
	 * no CPU writes, stays in the reader's cache, and a hit prefetches
	 * nothing.
	 */
	pair_sim(LIST_LINE, OTHER_LINE, true, false, false, &r);
	assert_true(r.ev_xfer_ns == 0);
	assert_int_equal(r.steals, 0);
	assert_true(extra_hold(&r) == 0);
	pred_result_free(&r);

	/* a CPU that does not prefetch pairs: the list heads are never read */
	pair_sim(LIST_LINE, OTHER_LINE, false, false, false, &r);
	assert_true(r.ev_xfer_ns == 0);
	assert_int_equal(r.invalidations, 0);
	assert_int_equal(r.steals, 0);
	assert_true(extra_hold(&r) == 0);
	pred_result_free(&r);

	/* placed the other way, the partner is the line nobody writes */
	pair_sim(LIST_LINE, OTHER_LINE, true, true, true, &r);
	assert_true(r.ev_xfer_ns == 0);
	assert_int_equal(r.invalidations, 0);
	assert_true(extra_hold(&r) == 0);
	pred_result_free(&r);

	/* and a recording placed badly the other way costs there */
	pair_sim(OTHER_LINE, LIST_LINE, true, true, true, &r);
	assert_true(r.ev_xfer_ns == 2 * XFER);
	assert_int_equal(r.steals, 1);
	assert_int_equal(r.invalidations, 0);
	assert_true(extra_hold(&r) == XFER);
	pred_result_free(&r);
}

/*
 * Three readers (CPUs 1-3, work 500, hold 10, private locks) read the
 * list heads' line itself (no pair prefetch), at the start of their third and
 * fourth works (1020 ns, and about 550 ns later); the writer's first
 * section (1000-1100) writes it, its second (at 2140) writes it again.
 * The first reader takes it from the writer in its section (40 ns, the
 * line busy until 1060), and the section takes it back (40 more, to
 * 1100, its release put off to 1140: one steal); the other two share
 * the first's copy before that (40 each, no wait); the writer's stores
 * drop all three.  The fourth works' reads find the line clean and out
 * of any section: the first takes it (40, the line busy for that long),
 * the others find it shared and are served side by side once that
 * transfer ends (80 each, not 80 and 120), and the writer's second
 * section drops the three copies at once, waiting for the farthest ack
 * (40 ns).
 */
static u64 sharer_n[4];

static void sharer_next(struct pred_source *src, int cpu, struct pred_op *op)
{
	if (!cpu)
		*op = (struct pred_op){ .work_ns = 1000, .hold_ns = 100, .lock = 0, .site = 0 };
	else
		*op = (struct pred_op){ .work_ns = 500, .hold_ns = 10, .lock = 1, .site = 1 };
	sharer_n[cpu]++;
}

static u32 sharer_events(struct pred_source *src, int cpu, const struct pred_event **ev)
{
	*ev = src->arg;
	return cpu && (sharer_n[cpu] == 3 || sharer_n[cpu] == 4);
}

static void test_line_sharers(void **state)
{
	struct pred_costs c = { .work_scale = 1, .hold_scale = 1, .xfer_socket = XFER };
	struct pred_lock locks[2] = {
		{ .scope = PRED_SHARED, .nr_lines = 1, .lines = { LIST_LINE } },
		{ .scope = PRED_PRIVATE },
	};
	struct pred_event ev = { .op = 1, .line = LIST_LINE, .line2 = READ_LINE,
				 .arg = OTHER_LINE, .kind = PRED_EV_PAIR_READ };
	struct pred_source src = { .next = sharer_next, .events = sharer_events, .arg = &ev };
	struct pred_sim_opts o = {
		.cpus = 4, .impl = LOCK_QSPINLOCK, .costs = &c, .nr_locks = 2, .locks = locks,
		.nr_sites = 2, .nr_lines = 3, .acquisitions = 40, .src = &src,
	};
	struct pred_result r;

	memset(sharer_n, 0, sizeof(sharer_n));
	assert_int_equal(pred_simulate(&o, &r), 0);
	assert_true(r.sites[0].acquired >= 2);
	assert_int_equal(r.ev_seen[PRED_EV_PAIR_READ], 6);
	assert_int_equal(r.ev_xfers, 6);
	assert_true(r.ev_xfer_ns == 3 * XFER + XFER + 2 * 2 * XFER);
	assert_true(r.line_wait_ns == 2 * XFER);
	assert_int_equal(r.steals, 1);
	assert_true(r.steal_ns == XFER);
	assert_int_equal(r.invalidations, 1);
	assert_true(r.inval_ns == XFER);
	assert_true(extra_hold(&r) == 2 * XFER);
	pred_result_free(&r);
}

/* ---- the recording ---- */

static spinlock_t other_lock, inner_lock;

/*
 * One memcg: an LRU size update with its lru_lock held (acquisition 0;
 * not recorded: that section writes every line of the object others
 * write); in another lock's section (1), a mod_lruvec_state() inside a
 * third lock's (2), then one after that closed (pn's read-mostly line and
 * lruvec->pgdat's each time, inside: the second pair goes with the outer
 * acquisition, 1, and comes first in the trace); two after it (the same
 * two lines before the next acquisition, 3: the second update's reads are
 * the first's again, and not recorded), and a mod_memcg_state(), which
 * reads no line of mem_cgroup_per_node.
 */
static void stat_updates(struct lruvec *lruvec, struct mem_cgroup *memcg)
{
	struct lock_site *lru = LOCK_SITE_AT("lru_lock", "test_pair", "stat_updates");
	struct lock_site *other = LOCK_SITE_AT("other", "test_pair", "stat_updates");
	struct lock_site *inner = LOCK_SITE_AT("inner", "test_pair", "stat_updates");
	int i;

	spin_lock_at(&lruvec->lru_lock, lru);
	__mod_lruvec_state(lruvec, NR_INACTIVE_ANON, 1);
	spin_unlock(&lruvec->lru_lock);
	spin_lock_at(&other_lock, other);
	spin_lock_at(&inner_lock, inner);
	mod_lruvec_state(lruvec, NR_INACTIVE_ANON, 1);
	spin_unlock(&inner_lock);
	mod_lruvec_state(lruvec, NR_INACTIVE_ANON, 1);
	spin_unlock(&other_lock);
	for (i = 0; i < 2; i++)
		mod_lruvec_state(lruvec, NR_INACTIVE_ANON, 1);
	mod_memcg_state(memcg, MEMCG_SWAP, 1);
	spin_lock_at(&lruvec->lru_lock, lru);
	spin_unlock(&lruvec->lru_lock);
}

/* the PAIR_READ events of @tr, in order, into @out */
static int pair_reads(const struct pred_trace *tr, const struct pred_event **out, int max)
{
	int n = 0;
	u32 k;

	for (k = 0; k < tr->nr_events; k++)
		if (tr->events[k].kind == PRED_EV_PAIR_READ && n < max)
			out[n++] = &tr->events[k];
	return n;
}

static void check_memcg(struct mem_cgroup *memcg)
{
	struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(0));
	bool at0 = mem_cgroup_pn_offset128(memcg, 0) == 0;
	const struct pred_event *ev[16];
	struct pred_recording rec;
	const struct pred_lock *lock;
	u32 lists, zone_size;
	int i;

	assert_int_equal(pred_record_start(), 0);
	stat_updates(lruvec, memcg);
	assert_int_equal(pred_record_stop(&rec), 0);
	assert_int_equal(rec.nr_traces, 1);
	assert_int_equal(rec.traces[0].nr, 4);
	assert_int_equal(pair_reads(&rec.traces[0], ev, 16), 6);
	/* the section writes the list heads' line, then lru_zone_size[]'s, then a folio's */
	lock = &rec.locks[rec.traces[0].ops[0].lock];
	assert_int_equal(lock->nr_lines, 3);
	lists = lock->lines[0];
	zone_size = lock->lines[1];
	for (i = 0; i < 6; i++) {
		assert_int_equal(ev[i]->op, 1 + i / 2);
		assert_int_equal(ev[i]->inside, i < 4);
		/* read-mostly line, then pgdat's, each time */
		assert_int_equal(ev[i]->line, ev[i % 2]->line);
		assert_int_equal(ev[i]->line2, ev[i % 2]->line2);
		assert_int_equal(ev[i]->arg, ev[i % 2]->arg);
		assert_true(ev[i]->line2 != ev[i]->arg && ev[i]->line2 != ev[i]->line);
	}
	assert_true(ev[0]->line != ev[1]->line);
#ifdef LRULAB_PN_COLD_PAIRING
	/* the read-mostly line pairs with the cold line either way */
	assert_true(ev[0]->line2 != lists && ev[0]->arg != lists);
	/* lruvec->pgdat's with lru_zone_size[]'s at +64 */
	assert_int_equal(at0 ? ev[1]->arg : ev[1]->line2, zone_size);
	assert_true((at0 ? ev[1]->line2 : ev[1]->arg) != zone_size);
#else
	/* at +0 the read-mostly line pairs with the list heads, at +64 the other way */
	assert_int_equal(at0 ? ev[0]->line2 : ev[0]->arg, lists);
	assert_true((at0 ? ev[0]->arg : ev[0]->line2) != lists);
	/* and lruvec->pgdat's with lru_zone_size[]'s */
	assert_int_equal(at0 ? ev[1]->line2 : ev[1]->arg, zone_size);
	assert_true((at0 ? ev[1]->arg : ev[1]->line2) != zone_size);
#endif
	pred_recording_free(&rec);
}

static void test_record_pair_reads(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct mem_cgroup *m[2];
	int i;

	cfg.nr_cpus = 1;
	cfg.node_pages = 16384;
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(cpu_enter(0, false), 0);
	spin_lock_init(&other_lock);
	spin_lock_init(&inner_lock);
	m[0] = mem_cgroup_create(root_mem_cgroup, "a");
	m[1] = mem_cgroup_create(root_mem_cgroup, "b");
	assert_non_null(m[0]);
	assert_non_null(m[1]);
	/* consecutive slots of an odd-sized object: one of each placement */
	assert_int_equal(mem_cgroup_pn_offset128(m[0], 0) + mem_cgroup_pn_offset128(m[1], 0), 64);
	for (i = 0; i < 2; i++)
		check_memcg(m[i]);
	for (i = 0; i < 2; i++)
		mem_cgroup_offline(m[i]);
	cpu_exit();
	lrulab_exit();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair_read_rule),
		cmocka_unit_test(test_line_sharers),
		cmocka_unit_test(test_record_pair_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
