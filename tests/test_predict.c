// SPDX-License-Identifier: MIT
/*
 * The predictor: the simulation against closed forms (the machine-
 * repairman queue, the deterministic closed cycle, Little's law, each
 * lock implementation's handoff, line transfers), its twin, a fixed
 * seed's reproducibility, the recording hooks on real locks, the
 * recording file, machine profiles and their topology.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <lrulab/cpu.h>
#include <lrulab/lrulab.h>
#include <lrulab/memcontrol.h>
#include "predict/predict.h"
#include <lrulab/vmstat.h>

#include "predict/predict-internal.h"
#include "tools/util.h"

/* ---- a generated source: exponential or constant work and holds ---- */

struct gen {
	bool expo;
	double z, s;
	int nr_locks;		/* ops go round the locks */
	u64 rnd[LRULAB_MAX_CPUS];
	u64 n[LRULAB_MAX_CPUS];
};

static double unif(u64 *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return ((*x * 0x2545f4914f6cdd1dULL) >> 11) * (1.0 / 9007199254740992.0);
}

static u32 sample(struct gen *g, int cpu, double mean)
{
	double u;

	if (!g->expo)
		return (u32)mean;
	do
		u = unif(&g->rnd[cpu]);
	while (u <= 0);
	return (u32)(-log(u) * mean + 0.5);
}

static void gen_next(struct pred_source *src, int cpu, struct pred_op *op)
{
	struct gen *g = src->arg;

	op->work_ns = sample(g, cpu, g->z);
	op->hold_ns = sample(g, cpu, g->s);
	op->lock = (u16)(g->nr_locks > 1 ? g->n[cpu] % g->nr_locks : 0);
	op->site = op->lock;
	g->n[cpu]++;
}

static void gen_init(struct gen *g, bool expo, double z, double s, int locks, u64 seed)
{
	int i;

	memset(g, 0, sizeof(*g));
	g->expo = expo;
	g->z = z;
	g->s = s;
	g->nr_locks = locks;
	for (i = 0; i < LRULAB_MAX_CPUS; i++)
		g->rnd[i] = (seed + 1) * 0x9e3779b97f4a7c15ULL ^ (u64)(i + 1) * 0xbf58476d1ce4e5b9ULL;
}

static const struct pred_costs zero_costs = { .work_scale = 1, .hold_scale = 1 };

/* the simulation of @g's stream, on @topo (NULL: one socket, no SMT), simulator seeded @seed */
static int sim_on(struct gen *g, int cpus, enum lock_impl impl, const struct pred_costs *c,
		  const struct pred_lock *locks, u32 lines, u64 acq, u64 warm,
		  const struct pred_cpu *topo, u64 seed, struct pred_result *r)
{
	struct pred_source src = { .next = gen_next, .arg = g };
	struct pred_sim_opts o = {
		.cpus = cpus, .impl = impl, .costs = c, .topo = topo, .nr_locks = g->nr_locks,
		.locks = locks, .nr_sites = g->nr_locks, .nr_lines = lines,
		.acquisitions = acq, .warmup = warm, .seed = seed, .src = &src,
	};

	return pred_simulate(&o, r);
}

static int sim(struct gen *g, int cpus, enum lock_impl impl, const struct pred_costs *c,
	       const struct pred_lock *locks, u32 lines, u64 acq, u64 warm,
	       struct pred_result *r)
{
	return sim_on(g, cpus, impl, c, locks, lines, acq, warm, NULL, 7, r);
}

static bool rel_eq(double a, double b)
{
	return fabs(a / b - 1) < 1e-9;
}

/* ---- closed forms ---- */

static void test_repairman(void **state)
{
	static const struct { int n; double z, s; } cases[] = {
		{ 4, 10000, 3000 }, { 8, 10000, 2000 }, { 80, 40000, 600 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pred_result r;
		struct gen g;
		double x, w, xs, ws;

		gen_init(&g, true, cases[i].z, cases[i].s, 1, i);
		assert_int_equal(sim(&g, cases[i].n, LOCK_QSPINLOCK, &zero_costs, NULL, 0,
				     1000000, 20000, &r), 0);
		pred_repairman(cases[i].n, cases[i].z, cases[i].s, &x, &w);
		xs = r.acq_per_sec / 1e9;
		ws = r.wait_total / r.acquisitions;
		assert_true(fabs(xs / x - 1) < 0.01);
		assert_true(fabs(ws / w - 1) < 0.01);
		assert_int_equal(r.acquisitions, 1000000);
		pred_result_free(&r);
	}
}

/* exponential holds and think times make the network product-form: MVA is exact */
static void test_mva_is_repairman(void **state)
{
	int n;

	for (n = 1; n <= 80; n++) {
		double s = 600, z = 40000, x, w, resp;
		double xm = pred_mva(n, z, 1, &s, &resp);

		pred_repairman(n, z, s, &x, &w);
		assert_true(fabs(xm / x - 1) < 1e-9);
		assert_true(fabs((resp - s) / w - 1) < 1e-6 || fabs(resp - s - w) < 1e-6);
	}
}

static void test_deterministic(void **state)
{
	const double z = 1000, s = 300;
	int n;

	for (n = 1; n <= 10; n++) {
		struct pred_result r;
		struct gen g;
		double want = fmin(n / (z + s), 1 / s);

		gen_init(&g, false, z, s, 1, 0);
		assert_int_equal(sim(&g, n, LOCK_QSPINLOCK, &zero_costs, NULL, 0, 20000, 1000, &r), 0);
		assert_true(fabs(r.x_steady / want - 1) < 1e-9);
		pred_result_free(&r);
	}
}

/* L = X R per lock instance, over the counted window */
static void test_little(void **state)
{
	struct pred_result r;
	struct gen g;
	int l;

	gen_init(&g, true, 5000, 1500, 3, 3);
	assert_int_equal(sim(&g, 8, LOCK_QSPINLOCK, &zero_costs, NULL, 0, 1000000, 10000, &r), 0);
	for (l = 0; l < 3; l++) {
		const struct pred_lock_stat *ls = &r.locks[l];
		double L = ls->area / r.elapsed_ns;
		double X = ls->acquired / r.elapsed_ns, R = ls->resp_total / ls->acquired;

		assert_true(ls->acquired > 300000);
		assert_true(fabs(L / (X * R) - 1) < 0.002);
		/* a lock is never held more than the time that passed */
		assert_true(ls->busy <= r.elapsed_ns);
	}
	pred_result_free(&r);
}

/*
 * The workload's seed: the same stream of works and holds is the same
 * result, another stream another.
 */
static void test_fixed_seed(void **state)
{
	struct pred_result a, b;
	struct gen g;
	int i;

	gen_init(&g, true, 3000, 800, 2, 11);
	assert_int_equal(sim(&g, 16, LOCK_TAS, &zero_costs, NULL, 0, 200000, 1000, &a), 0);
	gen_init(&g, true, 3000, 800, 2, 11);
	assert_int_equal(sim(&g, 16, LOCK_TAS, &zero_costs, NULL, 0, 200000, 1000, &b), 0);
	assert_true(a.elapsed_ns == b.elapsed_ns);
	assert_true(a.wait_total == b.wait_total);
	assert_int_equal(a.events, b.events);
	for (i = 0; i < 2; i++)
		assert_memory_equal(&a.sites[i], &b.sites[i], sizeof(a.sites[i]));
	pred_result_free(&b);
	/* another stream of holds is another result */
	gen_init(&g, true, 3000, 800, 2, 12);
	assert_int_equal(sim(&g, 16, LOCK_TAS, &zero_costs, NULL, 0, 200000, 1000, &b), 0);
	assert_true(a.elapsed_ns != b.elapsed_ns);
	pred_result_free(&a);
	pred_result_free(&b);
}

/*
 * Saturated (no work outside the lock): every grant is a handoff with
 * all the other CPUs waiting, so one acquisition takes S plus the
 * implementation's handoff with N - 1 waiters.
 */
static void test_handoff_rules(void **state)
{
	struct pred_costs c = zero_costs;
	const double s = 100, x = 20;
	struct pred_result r;
	struct gen g;

	c.xfer_socket = x;
	c.handoff_qspin = 5;
	c.ticket_slope = 10;
	c.tas_beta = 0.5;

	gen_init(&g, false, 0, s, 1, 0);
	assert_int_equal(sim(&g, 4, LOCK_QSPINLOCK, &c, NULL, 0, 20000, 100, &r), 0);
	assert_true(fabs(r.x_steady * (s + x + 5) / 1 - 1) < 1e-9);
	pred_result_free(&r);

	gen_init(&g, false, 0, s, 1, 0);
	assert_int_equal(sim(&g, 4, LOCK_TICKET, &c, NULL, 0, 20000, 100, &r), 0);
	/* x + slope x k, k = 3 waiters at each release */
	assert_true(fabs(r.x_steady * (s + x + 10 * 3) - 1) < 1e-9);
	pred_result_free(&r);

	gen_init(&g, false, 0, s, 1, 0);
	assert_int_equal(sim(&g, 4, LOCK_TAS, &c, NULL, 0, 20000, 100, &r), 0);
	/* x (1 + beta k); no order, so counted over all CPUs together */
	assert_true(fabs(r.acq_per_sec / 1e9 * (s + x * (1 + 0.5 * 3)) - 1) < 1e-9);
	pred_result_free(&r);
}

/* Two CPUs taking turns: each hold fetches both lines the other wrote. */
static void test_line_transfers(void **state)
{
	struct pred_lock lock = { .scope = PRED_SHARED, .nr_lines = 2, .lines = { 0, 1 } };
	struct pred_costs c = zero_costs;
	struct pred_result r;
	struct gen g;

	c.xfer_socket = 40;
	gen_init(&g, false, 0, 200, 1, 0);
	assert_int_equal(sim(&g, 2, LOCK_QSPINLOCK, &c, &lock, 2, 10000, 100, &r), 0);
	assert_true(fabs(r.x_steady * (200 + 2 * 40 + 40) - 1) < 1e-9);
	/* the recorded hold is what the sites report, stretched */
	assert_true(fabs(r.sites[0].hold_total / r.sites[0].acquired - 280) < 1e-6);
	pred_result_free(&r);

	/* a private lock is each CPU's own: no transfers, no waits */
	lock.scope = PRED_PRIVATE;
	gen_init(&g, false, 100, 200, 1, 0);
	assert_int_equal(sim(&g, 2, LOCK_QSPINLOCK, &c, &lock, 2, 10000, 100, &r), 0);
	assert_true(fabs(r.x_steady * 300 / 2 - 1) < 1e-9);
	assert_int_equal(r.sites[0].contended, 0);
	pred_result_free(&r);
}

/*
 * The simulator's own seed, the workload's stream the same: it draws the
 * test-and-set winner (and events' phases), so a seed is one result and
 * another seed another; a qspinlock without events draws nothing, so
 * every seed gives the same result.
 */
static void test_sim_seed(void **state)
{
	struct pred_result a, b;
	struct gen g;

	gen_init(&g, true, 3000, 800, 1, 11);
	assert_int_equal(sim_on(&g, 16, LOCK_TAS, &zero_costs, NULL, 0, 200000, 1000, NULL, 5,
				&a), 0);
	gen_init(&g, true, 3000, 800, 1, 11);
	assert_int_equal(sim_on(&g, 16, LOCK_TAS, &zero_costs, NULL, 0, 200000, 1000, NULL, 5,
				&b), 0);
	assert_true(a.elapsed_ns == b.elapsed_ns && a.wait_total == b.wait_total);
	assert_memory_equal(&a.sites[0], &b.sites[0], sizeof(a.sites[0]));
	pred_result_free(&b);
	gen_init(&g, true, 3000, 800, 1, 11);
	assert_int_equal(sim_on(&g, 16, LOCK_TAS, &zero_costs, NULL, 0, 200000, 1000, NULL, 6,
				&b), 0);
	assert_true(a.elapsed_ns != b.elapsed_ns);
	assert_true(a.wait_total != b.wait_total);
	pred_result_free(&a);
	pred_result_free(&b);

	gen_init(&g, true, 3000, 800, 1, 11);
	assert_int_equal(sim_on(&g, 16, LOCK_QSPINLOCK, &zero_costs, NULL, 0, 200000, 1000, NULL,
				5, &a), 0);
	gen_init(&g, true, 3000, 800, 1, 11);
	assert_int_equal(sim_on(&g, 16, LOCK_QSPINLOCK, &zero_costs, NULL, 0, 200000, 1000, NULL,
				6, &b), 0);
	assert_true(a.elapsed_ns == b.elapsed_ns && a.wait_total == b.wait_total);
	assert_int_equal(a.events, b.events);
	pred_result_free(&a);
	pred_result_free(&b);
}

/*
 * Transfers by where two CPUs sit: two CPUs taking turns on a saturated
 * lock with one written line pay, per acquisition, the hold, the line
 * and the handoff's transfer between them: across sockets xfer_remote,
 * in one socket xfer_socket, between SMT siblings xfer_smt, and siblings
 * both busy run their holds at smt_speed.
 */
static void test_topology_transfers(void **state)
{
	static const struct {
		struct pred_cpu cpu[2];
		double smt_speed, want;	/* per acquisition: 200 hold, 3 line prices */
	} cases[] = {
		{ { { 0, 0, 0 }, { 1, 0, 0 } }, 0, 200 + 2 * 130 + 5 },
		{ { { 0, 0, 0 }, { 0, 1, 0 } }, 0, 200 + 2 * 45 + 5 },
		{ { { 0, 0, 0 }, { 0, 0, 1 } }, 0, 200 + 2 * 8 + 5 },
		{ { { 0, 0, 0 }, { 0, 0, 1 } }, 0.5, 2 * 200 + 2 * 8 + 5 },
		{ { { 0, 3, 0 }, { 0, 4, 1 } }, 0.5, 200 + 2 * 45 + 5 },
	};
	struct pred_lock lock = { .scope = PRED_SHARED, .nr_lines = 1, .lines = { 0 } };
	struct pred_costs c = zero_costs;
	struct pred_result r;
	struct gen g;
	size_t i;

	c.xfer_smt = 8;
	c.xfer_socket = 45;
	c.xfer_remote = 130;
	c.handoff_qspin = 5;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c.smt_speed = cases[i].smt_speed;
		gen_init(&g, false, 0, 200, 1, 0);
		assert_int_equal(sim_on(&g, 2, LOCK_QSPINLOCK, &c, &lock, 1, 10000, 100,
					cases[i].cpu, 7, &r), 0);
		assert_true(rel_eq(r.x_steady * cases[i].want, 1));
		pred_result_free(&r);
	}
}

/*
 * Per-node locks and lines on two sockets of two cores: one lock whose
 * section writes one line, holds of 200, no work, every CPU queued.  As
 * one lock for the machine the four go round in turn, each grant a
 * handoff (a transfer and 5) and the line's transfer from the last
 * holder, in-socket (45) and cross-socket (130) alternately: 380 a
 * grant.  As the kernel's per-node lock each socket's two take turns on
 * their own node's lock and line, 200 + 2 x 45 + 5, two at once.
 */
static void test_node_locks(void **state)
{
	static const struct pred_cpu topo[4] = {
		{ 0, 0, 0 }, { 0, 1, 0 }, { 1, 0, 0 }, { 1, 1, 0 },
	};
	static const u8 one = 1;
	struct pred_lock lock = { .scope = PRED_SHARED, .nr_lines = 1, .lines = { 0 } };
	struct pred_costs c = zero_costs;
	struct gen g;
	struct pred_source src = { .next = gen_next, .arg = &g };
	struct pred_sim_opts o = {
		.cpus = 4, .impl = LOCK_QSPINLOCK, .costs = &c, .topo = topo, .nr_locks = 1,
		.locks = &lock, .nr_sites = 1, .nr_lines = 1, .acquisitions = 10000,
		.warmup = 100, .seed = 7, .src = &src,
	};
	struct pred_result r;

	c.xfer_socket = 45;
	c.xfer_remote = 130;
	c.handoff_qspin = 5;
	gen_init(&g, false, 0, 200, 1, 0);
	assert_int_equal(pred_simulate(&o, &r), 0);
	assert_int_equal(r.nr_locks, 5);
	assert_true(rel_eq(r.x_steady * 380, 1));
	pred_result_free(&r);

	o.lock_node = &one;
	o.line_node = (const u8 []){ 1, 0 };
	gen_init(&g, false, 0, 200, 1, 0);
	assert_int_equal(pred_simulate(&o, &r), 0);
	/* the shared instance is node 0's; node 1's comes after the private ones */
	assert_int_equal(r.nr_locks, 6);
	assert_true(rel_eq(r.x_steady * 295, 2));
	assert_true(r.locks[0].acquired + r.locks[5].acquired == r.acquisitions);
	assert_true(llabs((long long)r.locks[0].acquired - (long long)r.locks[5].acquired) <= 1);
	pred_result_free(&r);

	/* the lock per node, the line one for the machine: cross-socket fetches come back */
	o.line_node = (const u8 []){ 0, 0 };
	gen_init(&g, false, 0, 200, 1, 0);
	assert_int_equal(pred_simulate(&o, &r), 0);
	assert_true(r.x_steady * 295 < 2 * 0.9);
	pred_result_free(&r);
}

/*
 * A sibling queued for a lock spins on PAUSE and leaves its core to the
 * other thread, which then runs at full speed; a sibling that runs code
 * halves it (smt_speed 0.5).  Two cores of two threads on one lock,
 * saturated, no transfer or handoff cost, FIFO: each grant goes to the
 * thread after the releaser, so the grantee's sibling has either just
 * released (it runs code: 400 ns) or is queued (200 ns), alternately,
 * 300 ns an acquisition; both siblings on private locks, always running
 * code, take twice their 300 ns of work each.
 */
static void test_smt_spinning_sibling(void **state)
{
	static const struct pred_cpu topo[4] = {
		{ 0, 0, 0 }, { 0, 0, 1 }, { 0, 1, 0 }, { 0, 1, 1 },
	};
	struct pred_lock priv = { .scope = PRED_PRIVATE };
	struct pred_costs c = zero_costs;
	struct pred_result r;
	struct gen g;

	c.smt_speed = 0.5;
	gen_init(&g, false, 0, 200, 1, 0);
	assert_int_equal(sim_on(&g, 4, LOCK_QSPINLOCK, &c, NULL, 0, 20000, 100, topo, 7, &r), 0);
	assert_true(rel_eq(r.acq_per_sec / 1e9 * 300, 1));
	pred_result_free(&r);

	gen_init(&g, false, 300, 0, 1, 0);
	assert_int_equal(sim_on(&g, 2, LOCK_QSPINLOCK, &c, &priv, 0, 20000, 100, topo, 7, &r), 0);
	assert_true(rel_eq(r.x_steady * 600 / 2, 1));
	pred_result_free(&r);
}

/*
 * Test-and-set goes to a spinner on the releaser's socket: two CPUs on
 * each of two sockets, saturated, hand the lock back and forth on the
 * first socket (the releaser asks again after the pick), so every
 * handoff is x_socket (1 + beta 3) and none crosses; a uniform pick would
 * cross a socket two times in three.
 */
static void test_tas_socket_bias(void **state)
{
	static const struct pred_cpu topo[4] = {
		{ 0, 0, 0 }, { 0, 1, 0 }, { 1, 0, 0 }, { 1, 1, 0 },
	};
	struct pred_costs c = zero_costs;
	struct pred_result r;
	struct gen g;

	c.xfer_socket = 40;
	c.xfer_remote = 400;
	c.tas_beta = 0.5;
	gen_init(&g, false, 0, 100, 1, 0);
	assert_int_equal(sim_on(&g, 4, LOCK_TAS, &c, NULL, 0, 20000, 100, topo, 7, &r), 0);
	assert_true(rel_eq(r.acq_per_sec / 1e9 * (100 + 40 * (1 + 0.5 * 3)), 1));
	pred_result_free(&r);
}

/*
 * The analytic twin per lock type: the birth-death chain of one lock
 * whose handoff grows with the waiters (ticket: + slope per waiter,
 * test-and-set: x (1 + beta k)).  With no handoff cost it is the
 * machine-repairman closed form for every type; saturated (no work) it
 * is what the simulation gives; at N = 2 it is the chain worked by hand;
 * in between, a dearer handoff per waiter is less throughput.
 */
static void test_twin_lock_types(void **state)
{
	static const enum lock_impl impls[] = { LOCK_QSPINLOCK, LOCK_TICKET, LOCK_TAS };
	struct pred_costs c = zero_costs;
	struct pred_result r;
	struct gen g;
	double x, w, xr, wr;
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(impls); i++)
		for (n = 1; n <= 80; n++) {
			pred_lock_chain(n, 40000, 600, impls[i], &zero_costs, 0, &x, &w);
			pred_repairman(n, 40000, 600, &xr, &wr);
			assert_true(rel_eq(x, xr));
			assert_true(fabs(w - wr) < 1e-6 * (wr > 1 ? wr : 1));
		}

	c.handoff_qspin = 5;
	c.ticket_slope = 10;
	c.tas_beta = 1;
	for (i = 0; i < ARRAY_SIZE(impls); i++) {
		gen_init(&g, false, 0, 100, 1, 0);
		c.xfer_socket = 20;
		assert_int_equal(sim(&g, 4, impls[i], &c, NULL, 0, 20000, 100, &r), 0);
		pred_lock_chain(4, 0, 100, impls[i], &c, 20, &x, &w);
		assert_true(rel_eq(x, r.acq_per_sec / 1e9));
		pred_result_free(&r);
	}
	/* saturated: 1 / (s + handoff with n - 1 waiters) */
	pred_lock_chain(4, 0, 100, LOCK_TICKET, &c, 20, &x, &w);
	assert_true(rel_eq(x, 1 / (100 + 20 + 10 * 3.0)));
	pred_lock_chain(4, 0, 100, LOCK_TAS, &c, 20, &x, &w);
	assert_true(rel_eq(x, 1 / (100 + 20 * (1 + 3.0))));

	/*
	 * N = 2, ticket: P1 = P0 2 s / z, P2 = P1 s2 / z with s2 = s + x +
	 * slope (one waiter left at the release); X = (P1/s + P2/s2) / sum P.
	 */
	{
		double z = 1000, s = 300, s2 = 300 + 20 + 10;
		double p1 = 2 * s / z, p2 = p1 * s2 / z;
		double want = (p1 / s + p2 / s2) / (1 + p1 + p2);

		pred_lock_chain(2, z, s, LOCK_TICKET, &c, 20, &x, &w);
		assert_true(rel_eq(x, want));
		assert_true(rel_eq(w, 2 / want - z - s));
	}

	/* handoffs of 25 (qspinlock), 20 + 10 k (ticket), 20 (1 + k) (TAS) */
	for (n = 2; n <= 64; n *= 2) {
		double xq, xt, xs;

		pred_lock_chain(n, 2000, 300, LOCK_QSPINLOCK, &c, 20, &xq, &w);
		pred_lock_chain(n, 2000, 300, LOCK_TICKET, &c, 20, &xt, &w);
		pred_lock_chain(n, 2000, 300, LOCK_TAS, &c, 20, &xs, &w);
		assert_true(xq > xt && xt > xs);
	}
}

static void test_bad_sim_options(void **state)
{
	struct pred_result r;
	struct gen g;

	gen_init(&g, false, 1, 1, 1, 0);
	assert_int_equal(sim(&g, 0, LOCK_QSPINLOCK, &zero_costs, NULL, 0, 10, 0, &r), -EINVAL);
	assert_int_equal(sim(&g, 2, LOCK_QSPINLOCK, &zero_costs, NULL, 0, 0, 0, &r), -EINVAL);
}

/* ---- shared lines outside the locks', recomputed for N ---- */

/* one event on every acquisition, of a private lock: no queue, lockstep CPUs */
struct ev_gen {
	struct pred_event ev;
};

static void ev_next(struct pred_source *src, int cpu, struct pred_op *op)
{
	*op = (struct pred_op){ .work_ns = 100, .hold_ns = 50 };
}

static u32 ev_events(struct pred_source *src, int cpu, const struct pred_event **ev)
{
	*ev = &((struct ev_gen *)src->arg)->ev;
	return 1;
}

/* the target's CPUs online for ev_sim() (0: as many as run) */
static int ev_online;

static void ev_sim(struct ev_gen *g, int cpus, u64 per_cpu, u64 flush, struct pred_result *r)
{
	static const struct pred_costs c = { .work_scale = 1, .hold_scale = 1,
					     .xfer_socket = 40 };
	struct pred_lock lock = { .scope = PRED_PRIVATE };
	struct pred_source src = { .next = ev_next, .events = ev_events, .arg = g };
	struct pred_sim_opts o = {
		.cpus = cpus, .impl = LOCK_QSPINLOCK, .costs = &c, .nr_locks = 1,
		.locks = &lock, .nr_sites = 1, .nr_lines = 2, .nr_counters = 1,
		.acquisitions = per_cpu * cpus, .flush_period_ns = flush, .src = &src,
		.online = ev_online,
	};

	assert_int_equal(pred_simulate(&o, r), 0);
}

#define MEM_7 (7UL << (27 - PAGE_SHIFT))	/* 896 MB: 7 units of 128 MB, fls 3 */

/*
 * The kernel's calculate_normal_threshold(), for any CPU count: the rows
 * of the table in its comment (linux mm/vmstat.c) whose fls(mem)+1
 * column agrees with their CPU count (some rows' zone sizes do not match
 * that column; the column is what the formula uses), and the CPU counts
 * of the mails' machines.
 */
static void test_threshold_for_n(void **state)
{
	static const struct { int cpus; unsigned long mem_units; int t; } rows[] = {
		{ 1, 7, 8 }, { 2, 7, 16 }, { 2, 12, 20 }, { 2, 24, 24 }, { 2, 48, 28 },
		{ 2, 96, 32 }, { 2, 0, 4 }, { 4, 96, 48 }, { 16, 0, 10 }, { 16, 7, 40 },
		{ 64, 12, 70 }, { 64, 24, 84 }, { 1024, 96, 125 }, { 1024, 200, 125 },
		/* the 2-socket Skylake: 20 and 80 CPUs, 6 GB and 64 GB zones */
		{ 20, 48, 70 }, { 80, 48, 98 }, { 80, 512, 125 }, { 20, 512, 110 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		assert_int_equal(vmstat_normal_threshold(rows[i].cpus,
							 rows[i].mem_units << (27 - PAGE_SHIFT)),
				 rows[i].t);
	/* updates between folds: inc/dec overstep by half, a mod starts at 0 */
	assert_int_equal(pred_fold_interval(8, 0), 13);
	assert_int_equal(pred_fold_interval(125, 0), 125 + 62 + 1);
	assert_int_equal(pred_fold_interval(14, 1), 15);
	assert_int_equal(pred_fold_interval(14, 63), 1);
	assert_int_equal(pred_fold_interval(70, 63), 2);
	assert_int_equal(pred_fold_interval(0, 0), 1);
}

/*
 * Recorded at one CPU of a 896 MB zone (threshold 8: a fold every 13
 * increments), a CPU of N folds every I(t_N): at 2 CPUs (16: 25) 13 of
 * every 25 recorded folds, at 4 (24: 37) 13 of 37, and a recording at 2
 * CPUs replayed on one folds 25/13 times as often.  Exact per CPU, with
 * the seed's phase 0.
 */
static void test_fold_thinning(void **state)
{
	struct ev_gen g = { { .line = 0, .line2 = 1, .counter = 0, .arg = 7,
			      .kind = PRED_EV_VMSTAT_FOLD, .inside = 1, .threshold = 8,
			      .step = 0 } };
	struct pred_result r;

	assert_int_equal(vmstat_normal_threshold(1, MEM_7), 8);
	ev_sim(&g, 2, 1000, 0, &r);
	assert_int_equal(r.ev_seen[PRED_EV_VMSTAT_FOLD], 2000);
	assert_int_equal(r.ev_kept[PRED_EV_VMSTAT_FOLD], 2 * (1000 * 13 / 25));
	/*
	 * Both CPUs fold at the same acquisitions, one after the other: every
	 * kept fold fetches both lines from the other CPU but the first
	 * CPU's first one.
	 */
	assert_int_equal(r.ev_xfers, 2 * 2 * 520 - 2);
	assert_true(fabs(r.ev_xfer_ns - 40.0 * (2 * 2 * 520 - 2)) < 1e-6);
	pred_result_free(&r);

	ev_sim(&g, 4, 1000, 0, &r);
	assert_int_equal(r.ev_kept[PRED_EV_VMSTAT_FOLD], 4 * (1000 * 13 / 37));
	pred_result_free(&r);

	g.ev.threshold = 16;		/* recorded at 2 CPUs */
	ev_sim(&g, 1, 1000, 0, &r);
	assert_int_equal(r.ev_kept[PRED_EV_VMSTAT_FOLD], 1000 * 25 / 13);
	assert_int_equal(r.ev_xfers, 0);
	pred_result_free(&r);

	/*
	 * The threshold is the CPUs online's, not the running ones': one CPU
	 * of an 80-CPU machine (56: a fold every 85) keeps 13 of every 85.
	 */
	g.ev.threshold = 8;
	assert_int_equal(vmstat_normal_threshold(80, MEM_7), 56);
	ev_online = 80;
	ev_sim(&g, 1, 1000, 0, &r);
	ev_online = 0;
	assert_int_equal(r.ev_kept[PRED_EV_VMSTAT_FOLD], 1000 * 13 / 85);
	pred_result_free(&r);

	/*
	 * A zone with no managed pages keeps threshold 0: every update folds.
	 * (Four CPUs folding onto one line at once wait for it in turn, so
	 * they drift apart and one more than 4000 may be met by the end.)
	 */
	g.ev.threshold = 0;
	ev_sim(&g, 4, 1000, 0, &r);
	assert_true(r.ev_seen[PRED_EV_VMSTAT_FOLD] >= 4000);
	assert_int_equal(r.ev_kept[PRED_EV_VMSTAT_FOLD], r.ev_seen[PRED_EV_VMSTAT_FOLD]);
	pred_result_free(&r);
}

/*
 * A line serves one requester at a time.  Three CPUs writing one shared
 * line at once outside their (private) locks: the first finds it nowhere
 * (free), the second fetches it in 40, the third waits those 40 first;
 * after that they are 40 apart and nobody waits.  Eight CPUs each
 * writing it once per 150 ns of work and hold ask more than it serves
 * (8 x 40 > 150 + 40): it moves back to back, one op per 40 ns.
 */
static void test_line_serialised(void **state)
{
	struct ev_gen g = { { .line = 0, .line2 = PRED_NO_LINE,
			      .kind = PRED_EV_PAGE_COUNTER, .inside = 0 } };
	struct pred_result r;

	ev_sim(&g, 3, 100, 0, &r);
	assert_true(r.line_wait_ns == 40);
	pred_result_free(&r);

	ev_sim(&g, 8, 1000, 0, &r);
	assert_true(fabs(r.x_steady * 40 - 1) < 1e-9);
	pred_result_free(&r);
}

/*
 * A memcg's stats_updates takes batches while it holds at most 64 per
 * CPU online (N where all of them run):
 * batches of 64 write it N + 1 times, then none until the flush.  A
 * page_counter write is never held back.
 */
static void test_memcg_flush_threshold(void **state)
{
	struct ev_gen g = { { .line = 0, .line2 = PRED_NO_LINE, .arg = 64,
			      .kind = PRED_EV_MEMCG_SPILL, .inside = 1 } };
	struct pred_result r;

	ev_sim(&g, 4, 1000, 1000000000000ULL, &r);
	assert_int_equal(r.ev_seen[PRED_EV_MEMCG_SPILL], 4000);
	assert_int_equal(r.ev_kept[PRED_EV_MEMCG_SPILL], 5);
	pred_result_free(&r);
	ev_sim(&g, 80, 100, 1000000000000ULL, &r);
	assert_int_equal(r.ev_kept[PRED_EV_MEMCG_SPILL], 81);
	pred_result_free(&r);
	/* 4 CPUs running of 80 online: the threshold is 64 x 80 */
	ev_online = 80;
	ev_sim(&g, 4, 1000, 1000000000000ULL, &r);
	ev_online = 0;
	assert_int_equal(r.ev_kept[PRED_EV_MEMCG_SPILL], 81);
	pred_result_free(&r);

	/*
	 * Outside a hold, in the work before the acquisition: met when the
	 * work starts, so each CPU's 1001st (begun as its 1000th ends) too.
	 */
	g.ev.kind = PRED_EV_PAGE_COUNTER;
	g.ev.inside = 0;
	ev_sim(&g, 4, 1000, 0, &r);
	assert_int_equal(r.ev_seen[PRED_EV_PAGE_COUNTER], 4 * 1001);
	assert_int_equal(r.ev_kept[PRED_EV_PAGE_COUNTER], 4 * 1001);
	pred_result_free(&r);
}

/* ---- recording real locks ---- */

static spinlock_t outer_lock, inner_lock;

/*
 * What the recorder's hooks are given, counted by a second probe on the
 * same events: every acquisition and release of every thread, model CPU
 * or not.
 */
static unsigned int seen_acquired, seen_released;

static void count_acquired(void *data, spinlock_t *l, struct lock_site *site)
{
	if (l == &outer_lock || l == &inner_lock)
		__atomic_fetch_add(&seen_acquired, 1, __ATOMIC_RELAXED);
}

static void count_released(void *data, spinlock_t *l, u64 t_req, u64 hold, u64 now)
{
	if (l == &outer_lock || l == &inner_lock)
		__atomic_fetch_add(&seen_released, 1, __ATOMIC_RELAXED);
}

static struct lock_site outer_site = {
	.cls = "test_outer", .caller = "recorded_thread", .fn = "outer", .id = -1,
};
static struct lock_site inner_site = {
	.cls = "pcp->lock", .caller = "recorded_thread", .fn = "inner", .id = -1,
};

static void *recorded_thread(void *arg)
{
	int i;

	lrulab_cpu = (int)(long)arg;
	for (i = 0; i < 100; i++) {
		spin_lock_at(&outer_lock, &outer_site);
		spin_lock_at(&inner_lock, &inner_site);
		spin_unlock(&inner_lock);
		spin_unlock(&outer_lock);
	}
	lrulab_cpu = -1;
	return NULL;
}

/*
 * The same nesting as recorded_thread's, told to the hooks through the
 * trace events with stated times instead of the clock's: each round
 * takes outer at T, waits 1 us for inner from T + 19 us, holds it 10 us
 * and releases both at T + 30 us; the next round starts 100 ms after
 * the last (70 ms of work, as long as no recorder's overhead).
 */
#define HOOK_ROUND_NS	100000000ULL
#define HOOK_WORK_NS	(HOOK_ROUND_NS - 30000)

static void *timed_hooks_thread(void *arg)
{
	u64 t = 1000000000ULL;
	int i;

	lrulab_cpu = (int)(long)arg;
	for (i = 0; i < 100; i++, t += HOOK_ROUND_NS) {
		trace_lock_acquired(&outer_lock, &outer_site);
		trace_lock_acquired(&inner_lock, &inner_site);
		trace_lock_released(&inner_lock, t + 19000, 10000, t + 30000);
		trace_lock_released(&outer_lock, t, 30000, t + 30000);
	}
	lrulab_cpu = -1;
	return NULL;
}

static void find_sites(const struct pred_recording *rec, int *so, int *si)
{
	int i;

	*so = *si = -1;
	for (i = 0; i < rec->nr_sites; i++) {
		if (!strcmp(rec->sites[i].fn, "outer"))
			*so = i;
		if (!strcmp(rec->sites[i].fn, "inner"))
			*si = i;
	}
	assert_true(*so >= 0 && *si >= 0);
}

/*
 * The hooks on real locks: what they keep of the events they see, by
 * count (no clock: a loaded machine stretches any section); then, on
 * times the test states, the exact figures they make of them.
 */
static void test_record_hooks(void **state)
{
	struct pred_recording rec;
	struct lock_stat st_o0, st_i0, st_o1, st_i1;
	pthread_t t;
	int so, si;
	u32 k, over = 0;

	spin_lock_init(&outer_lock);
	spin_lock_init(&inner_lock);
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	assert_int_equal(register_trace_lock_acquired(count_acquired, NULL), 0);
	assert_int_equal(register_trace_lock_released(count_released, NULL), 0);
	assert_int_equal(pred_record_start(), 0);
	assert_true(pred_recording_active());
	/* a thread that is no model CPU is seen by the hooks, but not recorded */
	pthread_create(&t, NULL, recorded_thread, (void *)-1L);
	pthread_join(t, NULL);
	assert_int_equal(seen_acquired, 200);
	assert_int_equal(seen_released, 200);
	lockstat_read(&outer_site, &st_o0);
	lockstat_read(&inner_site, &st_i0);
	pthread_create(&t, NULL, recorded_thread, (void *)3L);
	pthread_join(t, NULL);
	assert_int_equal(seen_acquired, 400);
	assert_int_equal(seen_released, 400);
	/* with a consumer of every release, every hold is timed */
	lockstat_read(&outer_site, &st_o1);
	lockstat_read(&inner_site, &st_i1);
	assert_int_equal(st_o1.acquired - st_o0.acquired, 100);
	assert_int_equal(st_i1.acquired - st_i0.acquired, 100);
	assert_int_equal(st_o1.hold_timed - st_o0.hold_timed, 100);
	assert_int_equal(st_i1.hold_timed - st_i0.hold_timed, 100);
	assert_int_equal(pred_record_stop(&rec), 0);
	assert_false(pred_recording_active());
	assert_int_equal(rec.nr_traces, 1);
	assert_int_equal(rec.traces[0].nr, 200);
	assert_int_equal(rec.nr_locks, 2);
	find_sites(&rec, &so, &si);
	for (k = 0; k < 200; k++) {
		const struct pred_op *op = &rec.traces[0].ops[k];

		/* acquisition order: outer, then inner nested in it */
		assert_int_equal(op->site, k % 2 ? si : so);
		assert_int_equal(rec.locks[op->lock].scope, k % 2 ? PRED_PRIVATE : PRED_SHARED);
		/* nested: what comes before it is its parent's hold, not work */
		if (k % 2 || !k)
			assert_int_equal(op->work_ns, 0);
	}
	pred_recording_free(&rec);

	/*
	 * Stated times: the inner section's span (its wait too) is off the
	 * outer hold, exactly, and each gap between rounds is work less
	 * one and the same overhead, the recorder's own per acquisition.
	 */
	assert_int_equal(pred_record_start(), 0);
	pthread_create(&t, NULL, timed_hooks_thread, (void *)5L);
	pthread_join(t, NULL);
	assert_int_equal(seen_acquired, 600);
	assert_int_equal(seen_released, 600);
	assert_int_equal(pred_record_stop(&rec), 0);
	assert_int_equal(rec.nr_traces, 1);
	assert_int_equal(rec.traces[0].nr, 200);
	find_sites(&rec, &so, &si);
	for (k = 0; k < 200; k++) {
		const struct pred_op *op = &rec.traces[0].ops[k];

		assert_int_equal(op->site, k % 2 ? si : so);
		if (k % 2) {
			assert_int_equal(op->hold_ns, 10000);
			assert_int_equal(op->work_ns, 0);
			continue;
		}
		assert_int_equal(op->hold_ns, 30000 - 11000);
		if (!k) {
			/* nothing before the first acquisition is work */
			assert_int_equal(op->work_ns, 0);
			continue;
		}
		if (k == 2) {
			over = HOOK_WORK_NS - op->work_ns;
			assert_true(op->work_ns <= HOOK_WORK_NS);
		}
		assert_int_equal(op->work_ns, HOOK_WORK_NS - over);
	}
	pred_recording_free(&rec);
	assert_int_equal(unregister_trace_lock_acquired(count_acquired, NULL), 0);
	assert_int_equal(unregister_trace_lock_released(count_released, NULL), 0);
}

/*
 * The shared lines outside the locks' as mm/ reports them while
 * recording: 18 unit mods of a zone counter in a hold (threshold 8: a
 * fold after every 9), 22 increments of a node counter after it (a fold
 * after 9, then after 13, from half the threshold below), a charge of a
 * page_counter with a parent and its uncharge (one write per level).
 */
static void *events_thread(void *arg)
{
	struct lock_site *site = LOCK_SITE_AT("test_events", "events_thread", "events");
	struct pglist_data *pgdat = NODE_DATA(0);
	struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];
	struct page_counter *pc = arg, *fail;
	int i;

	assert_int_equal(cpu_enter(0, false), 0);
	spin_lock_at(&outer_lock, site);
	for (i = 0; i < 18; i++)
		__mod_zone_page_state(zone, NR_FREE_PAGES, 1);
	spin_unlock(&outer_lock);
	for (i = 0; i < 22; i++)
		__inc_node_state(pgdat, NR_SHMEM);
	assert_true(page_counter_try_charge(&pc[1], 64, &fail));
	spin_lock_at(&outer_lock, site);
	page_counter_uncharge(&pc[1], 64);
	spin_unlock(&outer_lock);
	cpu_exit();
	return NULL;
}

static void check_event(const struct pred_event *e, enum pred_event_kind kind, u32 op,
			bool inside, int threshold, int step, u32 arg)
{
	assert_int_equal(e->kind, kind);
	assert_int_equal(e->op, op);
	assert_int_equal(e->inside, inside);
	assert_int_equal(e->threshold, threshold);
	assert_int_equal(e->step, step);
	assert_int_equal(e->arg, arg);
}

static void test_record_events(void **state)
{
	struct pglist_data *pgdat = aligned_alloc(L1_CACHE_BYTES, sizeof(*pgdat));
	char path[] = "/tmp/lrulab-test-events-XXXXXX";
	struct page_counter pc[2];
	struct pred_recording rec, back;
	const struct pred_event *ev;
	pthread_t t;
	int fd = mkstemp(path), i;

	assert_true(fd >= 0 && pgdat);
	close(fd);
	memset(pgdat, 0, sizeof(*pgdat));
	pgdat->node_zones[ZONE_NORMAL].zone_pgdat = pgdat;
	pgdat->node_zones[ZONE_NORMAL].managed_pages = MEM_7;
	pgdat->node_zones[ZONE_NORMAL].name = "Normal";
	node_data[0] = pgdat;
	nr_node_ids = 1;
	assert_int_equal(lrulab_cpus_init(1), 0);
	assert_int_equal(vmstat_init(), 0);
	page_counter_init(&pc[0], NULL);
	page_counter_init(&pc[1], &pc[0]);
	spin_lock_init(&outer_lock);

	assert_int_equal(pred_record_start(), 0);
	pthread_create(&t, NULL, events_thread, pc);
	pthread_join(t, NULL);
	assert_int_equal(pred_record_stop(&rec), 0);
	assert_int_equal(rec.nr_traces, 1);
	assert_int_equal(rec.traces[0].nr, 2);
	assert_int_equal(rec.traces[0].nr_events, 8);
	assert_int_equal(rec.nr_counters, 2);
	rec.pages = 1;		/* the reader wants a run that made pages */
	assert_int_equal(pred_recording_write("test", path, &rec), 0);
	assert_int_equal(pred_recording_read("test", path, &back), 0);
	assert_int_equal(back.traces[0].nr_events, 8);
	assert_memory_equal(back.traces[0].events, rec.traces[0].events,
			    8 * sizeof(struct pred_event));
	ev = back.traces[0].events;
	/* the zone's folds, in the first hold: counter and global lines */
	for (i = 0; i < 2; i++) {
		check_event(&ev[i], PRED_EV_VMSTAT_FOLD, 0, true, 8, 1, 7);
		assert_int_equal(ev[i].counter, ev[0].counter);
		assert_true(ev[i].line2 != PRED_NO_LINE && ev[i].line2 != ev[i].line);
	}
	/* the node's, between the holds: with the second acquisition */
	for (i = 2; i < 4; i++) {
		check_event(&ev[i], PRED_EV_VMSTAT_FOLD, 1, false, 8, 0, 7);
		assert_int_equal(ev[i].counter, ev[2].counter);
	}
	assert_true(ev[2].counter != ev[0].counter);
	check_event(&ev[4], PRED_EV_PAGE_COUNTER, 1, false, 0, 0, 0);
	check_event(&ev[5], PRED_EV_PAGE_COUNTER, 1, false, 0, 0, 0);
	check_event(&ev[6], PRED_EV_PAGE_COUNTER, 1, true, 0, 0, 0);
	check_event(&ev[7], PRED_EV_PAGE_COUNTER, 1, true, 0, 0, 0);
	assert_int_equal(ev[4].line, ev[6].line);
	assert_int_equal(ev[5].line, ev[7].line);
	for (i = 0; i < 8; i++)
		assert_true(ev[i].line < back.nr_lines);
	assert_int_equal(back.flush_period_ns, mem_cgroup_flush_period_ns());
	pred_recording_free(&back);
	pred_recording_free(&rec);
	unlink(path);

	vmstat_exit();
	node_data[0] = NULL;
	nr_node_ids = 0;
	free(pgdat);
	lrulab_cpus_exit();
}

/*
 * A memcg "t" below the root, one CPU: its stats_updates batches of 64
 * reach each level's atomic twice (64, then 128, over the flush
 * threshold of 64 for one CPU), then nothing until a flush.  All outside
 * a hold, with the acquisition after them.
 */
static void test_record_memcg_batches(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct lock_site *site = LOCK_SITE_AT("test_events", "memcg_batches", "memcg");
	struct mem_cgroup *t;
	struct pred_recording rec;
	const struct pred_event *ev;
	int i;

	cfg.nr_cpus = 1;
	cfg.node_pages = 16384;
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(cpu_enter(0, false), 0);
	t = mem_cgroup_create(root_mem_cgroup, "t");
	assert_non_null(t);
	spin_lock_init(&outer_lock);
	assert_int_equal(pred_record_start(), 0);
	spin_lock_at(&outer_lock, site);
	spin_unlock(&outer_lock);
	for (i = 0; i < 128 + 3 * 64; i++)
		mod_memcg_state(t, MEMCG_SWAP, 1);
	spin_lock_at(&outer_lock, site);
	spin_unlock(&outer_lock);
	assert_int_equal(pred_record_stop(&rec), 0);
	assert_int_equal(rec.nr_traces, 1);
	assert_int_equal(rec.traces[0].nr, 2);
	assert_int_equal(rec.traces[0].nr_events, 4);
	ev = rec.traces[0].events;
	for (i = 0; i < 4; i++)
		check_event(&ev[i], PRED_EV_MEMCG_SPILL, 1, false, 0, 0, 64);
	/* the leaf's atomic, then the root's, each time */
	for (i = 0; i < 4; i += 2) {
		assert_int_equal(ev[i].line, ev[0].line);
		assert_int_equal(ev[i + 1].line, ev[1].line);
	}
	assert_true(ev[0].line != ev[1].line);
	pred_recording_free(&rec);
	mem_cgroup_offline(t);
	cpu_exit();
	lrulab_exit();
}

/* ---- the file ---- */

static void fake_recording(struct pred_recording *rec)
{
	u32 k;

	memset(rec, 0, sizeof(*rec));
	strcpy(rec->workload, "fault-free");
	strcpy(rec->type, "anon");
	strcpy(rec->switches, "lru-stat-batch");
	rec->folio_size = 16384;
	rec->threads = 1;
	rec->pages = 1000;
	rec->seconds = 0.25;
	rec->pages_per_sec = 4000;
	rec->clock_cost_ns = 10;
	rec->overhead_ns = 40;
	rec->nr_sites = 2;
	rec->sites = calloc(2, sizeof(*rec->sites));
	strcpy(rec->sites[0].cls, "lru_lock");
	strcpy(rec->sites[0].caller, "folio_batch_move_lru");
	strcpy(rec->sites[0].fn, "folio_batch_move_lru");
	strcpy(rec->sites[1].cls, "ptl");
	strcpy(rec->sites[1].caller, "do_anonymous_page");
	strcpy(rec->sites[1].fn, "do_anonymous_page");
	rec->nr_locks = 2;
	rec->nr_lines = 3;
	rec->locks = calloc(2, sizeof(*rec->locks));
	rec->locks[0] = (struct pred_lock){ PRED_SHARED, 3, 0, { 0, 1, 2 } };
	rec->locks[1] = (struct pred_lock){ PRED_PRIVATE, 0, 1, { 0 } };
	rec->nr_traces = 1;
	rec->traces = calloc(1, sizeof(*rec->traces));
	rec->traces[0].nr = 300;
	rec->traces[0].ops = calloc(300, sizeof(struct pred_op));
	for (k = 0; k < 300; k++)
		rec->traces[0].ops[k] = (struct pred_op){ k * 7, 1u << (k % 30), (u16)(k % 2),
							  (u16)(k % 2) };
	rec->nr_counters = 1;
	rec->flush_period_ns = 2000000000ULL;
	rec->lock_impl = LOCK_TICKET;
	rec->traces[0].nr_events = 3;
	rec->traces[0].events = calloc(3, sizeof(struct pred_event));
	rec->traces[0].events[0] = (struct pred_event){ .op = 4, .line = 2, .line2 = 1,
		.counter = 0, .arg = 48, .kind = PRED_EV_VMSTAT_FOLD, .inside = 1,
		.threshold = 28, .step = 1 };
	rec->traces[0].events[1] = (struct pred_event){ .op = 4, .line = 0,
		.line2 = PRED_NO_LINE, .kind = PRED_EV_PAGE_COUNTER };
	rec->traces[0].events[2] = (struct pred_event){ .op = 299, .line = 1,
		.line2 = PRED_NO_LINE, .arg = 70, .kind = PRED_EV_MEMCG_SPILL, .inside = 1 };
}

static void test_file_roundtrip(void **state)
{
	char path[] = "/tmp/lrulab-test-predict-XXXXXX";
	struct pred_recording a, b;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	fake_recording(&a);
	assert_int_equal(pred_recording_write("test", path, &a), 0);
	assert_int_equal(pred_recording_read("test", path, &b), 0);
	assert_string_equal(b.workload, "fault-free");
	assert_string_equal(b.switches, "lru-stat-batch");
	assert_int_equal(b.folio_size, 16384);
	assert_int_equal(b.pages, 1000);
	assert_true(b.seconds == 0.25);
	assert_int_equal(b.nr_sites, 2);
	assert_string_equal(b.sites[1].cls, "ptl");
	assert_int_equal(b.nr_locks, 2);
	assert_memory_equal(b.locks, a.locks, 2 * sizeof(*a.locks));
	assert_int_equal(b.traces[0].nr, 300);
	assert_memory_equal(b.traces[0].ops, a.traces[0].ops, 300 * sizeof(struct pred_op));
	assert_int_equal(b.traces[0].nr_events, 3);
	assert_memory_equal(b.traces[0].events, a.traces[0].events, 3 * sizeof(struct pred_event));
	assert_int_equal(b.flush_period_ns, 2000000000ULL);
	/* the lock the run's spinlocks were, which the simulation hands over as */
	assert_int_equal(b.lock_impl, LOCK_TICKET);
	pred_recording_free(&b);

	/* an event on a line beyond the table, or past the last acquisition */
	a.traces[0].events[1].line = 3;
	assert_int_equal(pred_recording_write("test", path, &a), 0);
	assert_int_equal(pred_recording_read("test", path, &b), -1);
	a.traces[0].events[1].line = 0;
	a.traces[0].events[2].op = 300;
	assert_int_equal(pred_recording_write("test", path, &a), 0);
	assert_int_equal(pred_recording_read("test", path, &b), -1);
	a.traces[0].events[2].op = 299;

	/* an index beyond its table is a bad recording */
	a.traces[0].ops[17].lock = 2;
	assert_int_equal(pred_recording_write("test", path, &a), 0);
	assert_int_equal(pred_recording_read("test", path, &b), -1);
	pred_recording_free(&a);

	/* not zstd at all */
	{
		FILE *f = fopen(path, "w");

		fputs("hello\n", f);
		fclose(f);
	}
	assert_int_equal(pred_recording_read("test", path, &b), -1);
	assert_int_equal(pred_recording_read("test", "/nonexistent/x", &b), -1);
	unlink(path);
}

/* ---- profiles ---- */

static const char *good_profile =
	"# test\n"
	"name = t\n"
	"sockets = 2\ncores_per_socket = 20\nthreads_per_core = 2\ncpu_order = smt-last\n"
	"xfer_smt_ns = 7.6 [6 9] source: a\n"
	"xfer_socket_ns = 48 [40 56] source: b\n"
	"xfer_remote_ns = 134 source: c\n"
	"handoff_qspinlock_ns = 20 [10 30] source: e\n"
	"ticket_slope_ns = 24 [10 50] source: f\n"
	"tas_beta = 1 [0.5 2] source: g\n"
	"freq_one_busy_mhz = 3700 [3500 3900] source: i\n"
	"freq_all_busy_mhz = 2800 [2600 3000] source: j\n"
	"smt_speed = 0.62 [0.55 0.7] source: k\n"
	"core_speed = 1 [0.8 1.2] source: l\n"
	"adjacent_line_prefetch = 1 source: m\n";

static int read_profile_text(const char *text, struct pred_profile *pf)
{
	char path[] = "/tmp/lrulab-test-profile-XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	ret = pred_profile_read("test", path, pf);
	unlink(path);
	return ret;
}

static void test_profile(void **state)
{
	struct pred_profile pf, again;
	char *text, *p, buf[8192];
	FILE *f;

	assert_int_equal(read_profile_text(good_profile, &pf), 0);
	assert_string_equal(pf.name, "t");
	assert_int_equal(pred_profile_cpus(&pf), 80);
	assert_true(pf.p[PP_XFER_SOCKET].v == 48 && pf.p[PP_XFER_SOCKET].lo == 40 &&
		    pf.p[PP_XFER_SOCKET].hi == 56);
	assert_true(pf.p[PP_XFER_REMOTE].lo == 134 && pf.p[PP_XFER_REMOTE].hi == 134);
	assert_string_equal(pf.p[PP_SMT_SPEED].source, "k");
	assert_true(pf.p[PP_PAIR_PREFETCH].v == 1);
	/* pair_rfo is optional: absent, not given (0) */
	assert_false(pf.p[PP_PAIR_RFO].given);
	assert_int_equal(asprintf(&text, "%spair_rfo = 1 [1 1] source: n\n", good_profile) > 0, 1);
	assert_int_equal(read_profile_text(text, &again), 0);
	free(text);
	assert_true(again.p[PP_PAIR_RFO].given && again.p[PP_PAIR_RFO].v == 1);
	assert_string_equal(again.p[PP_PAIR_RFO].source, "n");

	/* what it writes, it reads back */
	f = fmemopen(buf, sizeof(buf), "w");
	pred_profile_write(f, &pf);
	fclose(f);
	assert_int_equal(read_profile_text(buf, &again), 0);
	assert_memory_equal(again.p, pf.p, sizeof(pf.p));

	/* an older profile's unused lock_local_ns and clock_read_ns are read and ignored */
	assert_int_equal(asprintf(&text, "%slock_local_ns = 10 [5 15] source: d\n"
				  "clock_read_ns = 8 source: h\n", good_profile) > 0, 1);
	assert_int_equal(read_profile_text(text, &again), 0);
	assert_memory_equal(again.p, pf.p, sizeof(pf.p));
	free(text);

	/* each fault alone is an error */
	text = strdup(good_profile);
	p = strstr(text, " source: c");
	memcpy(p, "          ", 10);
	assert_int_equal(read_profile_text(text, &pf), -1);	/* no source */
	free(text);
	text = strdup(good_profile);
	p = strstr(text, "[40 56]");
	memcpy(p, "[50 56]", 7);
	assert_int_equal(read_profile_text(text, &pf), -1);	/* outside its range */
	free(text);
	text = strdup(good_profile);
	p = strstr(text, "tas_beta");
	memcpy(p, "tas_bexa", 8);
	assert_int_equal(read_profile_text(text, &pf), -1);	/* unknown key, and missing */
	free(text);
	text = strdup(good_profile);
	*strstr(text, "adjacent_line_prefetch") = '\0';
	assert_int_equal(read_profile_text(text, &pf), -1);	/* older than the key */
	free(text);
	assert_int_equal(read_profile_text("name = x\nsockets = 1\n", &pf), -1);
}

static void test_topology(void **state)
{
	struct pred_profile pf = { .sockets = 2, .cores_per_socket = 20, .threads_per_core = 2 };
	struct pred_cpu c[80];

	pf.order = PRED_ORDER_SMT_LAST;
	pred_topology(&pf, 80, c);
	assert_true(c[0].socket == 0 && c[0].core == 0 && c[0].thread == 0);
	assert_true(c[19].socket == 0 && c[19].core == 19);
	assert_true(c[20].socket == 1 && c[20].core == 0 && c[20].thread == 0);
	assert_true(c[40].socket == 0 && c[40].core == 0 && c[40].thread == 1);
	assert_true(c[79].socket == 1 && c[79].core == 19 && c[79].thread == 1);
	pf.order = PRED_ORDER_SMT_ADJACENT;
	pred_topology(&pf, 80, c);
	assert_true(c[1].socket == 0 && c[1].core == 0 && c[1].thread == 1);
	assert_true(c[40].socket == 1 && c[40].core == 0 && c[40].thread == 0);
	pf.order = PRED_ORDER_SOCKET_RR;
	pred_topology(&pf, 80, c);
	assert_true(c[0].socket == 0 && c[0].core == 0 && c[0].thread == 0);
	assert_true(c[1].socket == 1 && c[1].core == 0 && c[1].thread == 0);
	assert_true(c[19].socket == 1 && c[19].core == 9 && c[19].thread == 0);
	assert_true(c[39].socket == 1 && c[39].core == 19 && c[39].thread == 0);
	assert_true(c[40].socket == 0 && c[40].core == 0 && c[40].thread == 1);
	assert_true(c[79].socket == 1 && c[79].core == 19 && c[79].thread == 1);
}

/* ---- the whole path: a recording, a profile, N CPUs ---- */

/*
 * A one-thread recording of @nr acquisitions of one shared lru_lock, a
 * page each: work @work and hold @hold ns, the second half's hold @hold2.
 */
static void synthetic_recording(struct pred_recording *rec, u32 nr, u32 work, u32 hold,
				u32 hold2)
{
	u32 k;

	memset(rec, 0, sizeof(*rec));
	strcpy(rec->workload, "synthetic");
	rec->threads = 1;
	rec->pages = nr;
	rec->nr_sites = 1;
	rec->sites = calloc(1, sizeof(*rec->sites));
	strcpy(rec->sites[0].cls, "lru_lock");
	strcpy(rec->sites[0].caller, "folio_batch_move_lru");
	strcpy(rec->sites[0].fn, "folio_batch_move_lru");
	rec->nr_locks = 1;
	rec->locks = calloc(1, sizeof(*rec->locks));
	rec->locks[0].scope = PRED_SHARED;
	rec->nr_traces = 1;
	rec->traces = calloc(1, sizeof(*rec->traces));
	rec->traces[0].nr = nr;
	rec->traces[0].ops = calloc(nr, sizeof(struct pred_op));
	for (k = 0; k < nr; k++)
		rec->traces[0].ops[k] = (struct pred_op){ work, k < nr / 2 ? hold : hold2, 0, 0 };
}

/* one socket of @cores cores, no SMT, every value exact (no range) */
static void exact_profile(struct pred_profile *pf, int cores, double f1, double fall)
{
	static const double v[NR_PRED_PARAMS] = {
		[PP_XFER_SMT] = 5, [PP_XFER_SOCKET] = 40, [PP_XFER_REMOTE] = 100,
		[PP_HANDOFF_QSPIN] = 10, [PP_SMT_SPEED] = 1, [PP_CORE_SPEED] = 1,
	};
	int i;

	memset(pf, 0, sizeof(*pf));
	strcpy(pf->name, "exact");
	pf->sockets = 1;
	pf->cores_per_socket = cores;
	pf->threads_per_core = 1;
	for (i = 0; i < NR_PRED_PARAMS; i++)
		pf->p[i] = (struct pred_value){ v[i], v[i], v[i], true, "test" };
	pf->p[PP_FREQ_ONE] = (struct pred_value){ f1, f1, f1, true, "test" };
	pf->p[PP_FREQ_ALL] = (struct pred_value){ fall, fall, fall, true, "test" };
}

/*
 * Recording -> --single-thread-rate -> N CPUs, against the closed form.
 * 1000 acquisitions of work 3000 and hold 500 ns, a page each, at 250K
 * pages/s on one CPU: the work is stretched to 3500 ns (4000 ns a page).
 * At 20 CPUs of a 20-core socket whose all-core clock is 2/3 of its
 * one-core clock, work and hold stretch by 1.5 (5250, 750), the lock is
 * saturated (20 x 750 > 5250 + 750), and every grant is a hold plus a
 * handoff of one transfer (40) and the qspinlock's 10: 1.25M pages/s,
 * the lock busy 750/800 of the time, every acquisition contended.
 */
static void test_whole_path(void **state)
{
	struct pred_model_opts mo = { .impl = LOCK_QSPINLOCK, .single_thread_rate = 250000 };
	struct pred_recording rec;
	struct pred_profile pf;
	struct pred_point pt;

	synthetic_recording(&rec, 1000, 3000, 500, 500);
	exact_profile(&pf, 20, 3000, 2000);
	assert_int_equal(pred_model_point(&rec, &pf, 1, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 250000));
	assert_true(rel_eq(pt.twin_pages_per_sec, 250000));
	assert_true(pt.band_low == pt.pages_per_sec && pt.band_high == pt.pages_per_sec);
	assert_true(pt.lru_contended_per_page == 0);
	pred_point_free(&pt);

	assert_int_equal(pred_model_point(&rec, &pf, 20, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 1e9 / (750 + 40 + 10)));
	assert_true(rel_eq(pt.load, 750.0 / 800));
	assert_true(pt.lru_contended_per_page == 1 && pt.lru_acquired_per_page == 1);
	/*
	 * The twin: mean-value analysis of think 5250 and a lock demand of
	 * the hold plus the handoff when the last holder was another CPU
	 * (1 - 1/20 of the time).
	 */
	{
		double d = 750 + (1 - 1.0 / 20) * (40 + 10);

		assert_true(rel_eq(pt.twin_pages_per_sec, pred_mva(20, 5250, 1, &d, NULL) * 1e9));
	}
	pred_point_free(&pt);

	/*
	 * The kernel's lru_lock holds twice lrulab's (--lru-hold-ratio 2): one
	 * CPU still makes the rate asked (the work shrinks to 3000 a page),
	 * and 20 CPUs hand over holds of 1.5 x 1000: 1e9 / (1500 + 50).
	 */
	mo.lru_hold_ratio = 2;
	assert_int_equal(pred_model_point(&rec, &pf, 1, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 250000));
	pred_point_free(&pt);
	assert_int_equal(pred_model_point(&rec, &pf, 20, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 1e9 / (1500 + 40 + 10)));
	pred_point_free(&pt);

	/*
	 * --fit's core speed with the kernel's holds: a core twice this
	 * machine's halves holds and work alike, where the one-thread rate
	 * stretched the work alone.  One CPU: work 1500, hold 2 x 500 / 2,
	 * 500K pages/s; 20 CPUs (x 1.5 the clock): holds of 750 saturate.
	 */
	mo.single_thread_rate = 0;
	mo.core_speed = 2;
	assert_int_equal(pred_model_point(&rec, &pf, 1, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 1e9 / (1500 + 500)));
	pred_point_free(&pt);
	assert_int_equal(pred_model_point(&rec, &pf, 20, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 1e9 / (750 + 40 + 10)));
	pred_point_free(&pt);
	pred_recording_free(&rec);
}

/* @nr ops of work 3000 and hold @hold, each dropping and taking the shared VMA's read lock */
static void vma_recording(struct pred_recording *rec, u32 nr, u32 hold)
{
	u32 k;

	synthetic_recording(rec, nr, 3000, hold, hold);
	rec->one_process = 1;
	rec->nr_lines = 1;
	rec->traces[0].nr_events = 2 * nr;
	rec->traces[0].events = calloc(2 * nr, sizeof(struct pred_event));
	for (k = 0; k < 2 * nr; k++)
		rec->traces[0].events[k] = (struct pred_event){
			.op = k / 2, .line = 0, .line2 = PRED_NO_LINE, .arg = k % 2,
			.kind = PRED_EV_VMA_REFCNT, .threshold = 1 };
}

/*
 * The twin's VMA line: the synthetic recording's every op drops and
 * takes the read lock of a VMA its process's threads share (the take's
 * read and cmpxchg two fetches, the drop one), a queue of its own of
 * 3 x 40 ns a visit less the 1/20 that find it local.  At 20 CPUs the
 * lock still bounds the simulation (the line wants 120 of every 800 ns),
 * so it makes 1e9 / 800 as without it; the twin is the MVA of the two
 * queues.
 */
static void test_twin_vma_line(void **state)
{
	struct pred_model_opts mo = { .impl = LOCK_QSPINLOCK, .single_thread_rate = 250000 };
	struct pred_recording rec;
	struct pred_profile pf;
	struct pred_point pt;
	u32 nr = 1000;
	double d[2];

	vma_recording(&rec, nr, 500);
	exact_profile(&pf, 20, 3000, 2000);
	assert_int_equal(pred_model_point(&rec, &pf, 20, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 1e9 / (750 + 40 + 10)));
	d[0] = 750 + (1 - 1.0 / 20) * (40 + 10);
	d[1] = (1 - 1.0 / 20) * 3 * 40;
	assert_true(rel_eq(pt.twin_pages_per_sec, pred_mva(20, 5250, 2, d, NULL) * 1e9));
	assert_true(pt.ev_share[PRED_EV_VMA_REFCNT] > 0);
	pred_point_free(&pt);
	pred_recording_free(&rec);

	/*
	 * Holds of 10 ns on 80 cores: the line bounds, every visit a
	 * transfer, 1e9 / 120 pages/s; the twin's two queues come within 2%.
	 */
	vma_recording(&rec, nr, 10);
	exact_profile(&pf, 80, 3000, 2000);
	assert_int_equal(pred_model_point(&rec, &pf, 80, &mo, &pt), 0);
	assert_true(fabs(pt.pages_per_sec * 120 / 1e9 - 1) < 1e-3);
	d[0] = 15 + (1 - 1.0 / 80) * (40 + 10);
	d[1] = (1 - 1.0 / 80) * 3 * 40;
	assert_true(rel_eq(pt.twin_pages_per_sec, pred_mva(80, 5985, 2, d, NULL) * 1e9));
	assert_true(fabs(pt.twin_pages_per_sec / pt.pages_per_sec - 1) < 0.02);
	pred_point_free(&pt);
	pred_recording_free(&rec);
}

/*
 * lru_lock is one per NUMA node at the target: a recording's lru_lock,
 * held 500 with no work, on two sockets of two cores (transfers 40 in a
 * socket, 100 across, handoffs 10 more) makes two locks, each its
 * socket's two CPUs' in turn, 500 + 40 + 10 a grant: 2e9 / 550 pages/s.
 * The same lock of another class is one for the machine, the four in
 * turn across the sockets every other grant: 1e9 / 580.  The twin takes
 * the per-node lock as one queue of half the demand, each visit's
 * transfers those of one socket (40, from another CPU 1 time in 2).
 */
static void test_node_recording(void **state)
{
	struct pred_model_opts mo = { .impl = LOCK_QSPINLOCK };
	struct pred_recording rec;
	struct pred_profile pf;
	struct pred_point pt;

	synthetic_recording(&rec, 1000, 0, 500, 500);
	exact_profile(&pf, 2, 3000, 3000);
	pf.sockets = 2;
	assert_int_equal(pred_model_point(&rec, &pf, 4, &mo, &pt), 0);
	assert_true(fabs(pt.pages_per_sec * 550 / 2e9 - 1) < 1e-3);
	assert_true(rel_eq(pt.twin_pages_per_sec, 1e9 / ((500 + 0.5 * 40 + 0.5 * 10) / 2)));
	pred_point_free(&pt);
	/* on one socket nothing changes: the four in turn, 500 + 40 + 10 */
	pf.sockets = 1;
	pf.cores_per_socket = 4;
	assert_int_equal(pred_model_point(&rec, &pf, 4, &mo, &pt), 0);
	assert_true(fabs(pt.pages_per_sec * 550 / 1e9 - 1) < 1e-3);
	pred_point_free(&pt);
	pf.sockets = 2;
	pf.cores_per_socket = 2;
	strcpy(rec.sites[0].cls, "other");
	assert_int_equal(pred_model_point(&rec, &pf, 4, &mo, &pt), 0);
	assert_true(fabs(pt.pages_per_sec * 580 / 1e9 - 1) < 1e-3);
	pred_point_free(&pt);
	pred_recording_free(&rec);
}

/*
 * Fewer acquisitions than a trace: the replay covers it in windows, not
 * only its start.  2000 acquisitions, a page each, work 3000 and holds
 * of 500 in the first half, 1500 in the second; one CPU simulating 1000
 * of them goes through two windows (each warmed up on 1000, then 500
 * counted: the second half, then the first), so its rate is the whole
 * recording's, 2000 pages in 8 ms: 250K pages/s, where the first 1000
 * alone give 1e9 / 3500.
 */
static void test_replay_windows(void **state)
{
	struct pred_model_opts mo = { .impl = LOCK_QSPINLOCK, .acquisitions = 1000 };
	struct pred_recording rec;
	struct pred_profile pf;
	struct pred_point pt;

	synthetic_recording(&rec, 2000, 3000, 500, 1500);
	exact_profile(&pf, 4, 3000, 3000);
	assert_int_equal(pred_model_point(&rec, &pf, 1, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 250000));
	pred_point_free(&pt);
	/* a whole trace a CPU: one window, the whole recording again */
	mo.acquisitions = 4000;
	assert_int_equal(pred_model_point(&rec, &pf, 1, &mo, &pt), 0);
	assert_true(rel_eq(pt.pages_per_sec, 250000));
	pred_point_free(&pt);
	pred_recording_free(&rec);
}

/*
 * A pass much longer than the warm-up the engine used to take: 40 passes
 * of 4999 acquisitions of a private lock (work 1000, hold 10) and one of
 * the shared lru_lock held 1 ms, a page each.  8 CPUs saturate the lock
 * (8 x 1 ms > 5.05 ms + 1 ms), so a pass is done each hold plus its
 * handoff (40 + 10): 5000 x 1e9 / (1e6 + 50) pages/s.  Started where one
 * CPU would be at a random instant, they are nearly all in the private
 * part; counted from there, 40000 acquisitions after 16000 of warm-up made
 * 6.93M pages/s.  Warmed up for a pass a CPU, they make 4.87M, within 3%
 * of the settled rate (the one pass counted is not quite settled).
 */
static void test_warmup_a_pass(void **state)
{
	struct pred_model_opts mo = { .impl = LOCK_QSPINLOCK, .acquisitions = 40000 };
	const u32 passes = 40, per = 5000, nr = passes * per;
	struct pred_recording rec;
	struct pred_profile pf;
	struct pred_point pt;
	u32 k;

	synthetic_recording(&rec, nr, 1000, 10, 10);
	rec.nr_sites = 2;
	rec.sites = realloc(rec.sites, 2 * sizeof(*rec.sites));
	memset(&rec.sites[1], 0, sizeof(rec.sites[1]));
	strcpy(rec.sites[1].cls, "pcp->lock");
	strcpy(rec.sites[1].caller, "rmqueue_pcplist");
	strcpy(rec.sites[1].fn, "rmqueue_pcplist");
	rec.nr_locks = 2;
	rec.locks = realloc(rec.locks, 2 * sizeof(*rec.locks));
	memset(&rec.locks[1], 0, sizeof(rec.locks[1]));
	rec.locks[1].scope = PRED_PRIVATE;
	rec.locks[1].cls_site = 1;
	for (k = 0; k < nr; k++)
		rec.traces[0].ops[k] = k % per == per - 1 ?
			(struct pred_op){ 0, 1000000, 0, 0 } : (struct pred_op){ 1000, 10, 1, 1 };
	exact_profile(&pf, 8, 3000, 3000);
	assert_int_equal(pred_model_point(&rec, &pf, 8, &mo, &pt), 0);
	print_message("pages/s %.0f, closed form %.0f\n", pt.pages_per_sec, per * 1e9 / (1e6 + 50));
	assert_true(fabs(pt.pages_per_sec / (per * 1e9 / (1e6 + 50)) - 1) < 0.03);
	pred_point_free(&pt);
	pred_recording_free(&rec);
}

/* Recordings pooled: the median one's figures, every draw, the band over all. */
static void test_pool_points(void **state)
{
	static const double central[3] = { 300, 100, 200 };
	struct pred_point pts[3], out;
	int i, d;

	for (i = 0; i < 3; i++) {
		memset(&pts[i], 0, sizeof(pts[i]));
		pts[i].cpus = 4;
		pts[i].nr_recordings = 1;
		pts[i].pages_per_sec = central[i];
		pts[i].lru_wait_ns_per_page = central[i] / 10;
		pts[i].nr_draws = 3;
		for (d = 0; d < 3; d++) {
			pts[i].draws[d] = central[i] + d - 1;
			pts[i].draws_lru_wait[d] = i;
		}
	}
	pred_pool_points(pts, 3, &out);
	/* the median recording is the third (200) */
	assert_true(out.pages_per_sec == 200);
	assert_true(out.lru_wait_ns_per_page == 20);
	assert_int_equal(out.nr_recordings, 3);
	assert_int_equal(out.nr_draws, 9);
	/* draws in recording order, so that two sides pooled alike pair up */
	assert_true(out.draws[0] == 299 && out.draws[3] == 99 && out.draws[8] == 201);
	assert_true(out.draws_lru_wait[4] == 1);
	/*
	 * 12 values: 99 100 100 101 199 200 200 201 299 300 300 301;
	 * P10 at 1.1 -> 100, P90 at 9.9 -> 300
	 */
	assert_true(fabs(out.band_low - 100) < 1e-9);
	assert_true(fabs(out.band_high - 300) < 1e-9);
	pred_point_free(&out);
}

/*
 * s2's pass on another machine: 10 ms here, 1M locked ops at 5 ns here
 * and 9 ns there, the mail's pages twice the recorded: the walk less its
 * locked ops is 5 ms, at speed 0.5 10 ms, plus 9 ms of the target's
 * locked ops, twice: 38 ms; and the speed that gives 38 ms is 0.5.
 */
static void test_aging_pass(void **state)
{
	struct pred_aging_pass a = {
		.ms_here = 10, .locked = 1e6, .x_here_ns = 5, .x_target_ns = 9, .page_scale = 2,
	};
	struct pred_value v;

	assert_true(rel_eq(pred_aging_pass_ms(&a, 0.5), 38));
	assert_true(rel_eq(pred_aging_pass_speed(&a, 38), 0.5));
	/* the target's locked ops alone take 18 ms: no speed gives that or less */
	assert_true(isnan(pred_aging_pass_speed(&a, 18)));
	assert_true(rel_eq(pred_aging_pass_speed(&a, 28), 1));
	/* a recording shorter than its locked ops at this machine's cost */
	a.ms_here = 5;
	assert_true(isnan(pred_aging_pass_ms(&a, 1)));
	assert_true(isnan(pred_aging_pass_speed(&a, 38)));

	pred_measure_locked_rmw(&v);
	assert_true(v.given && v.lo <= v.v && v.v <= v.hi && v.lo > 0 && v.hi < 1000);
	assert_true(!strncmp(v.source, "lrulab calibrate: a chain of", 28));
	(void)state;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repairman),
		cmocka_unit_test(test_mva_is_repairman),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_little),
		cmocka_unit_test(test_fixed_seed),
		cmocka_unit_test(test_handoff_rules),
		cmocka_unit_test(test_sim_seed),
		cmocka_unit_test(test_topology_transfers),
		cmocka_unit_test(test_node_locks),
		cmocka_unit_test(test_smt_spinning_sibling),
		cmocka_unit_test(test_tas_socket_bias),
		cmocka_unit_test(test_twin_lock_types),
		cmocka_unit_test(test_twin_vma_line),
		cmocka_unit_test(test_line_transfers),
		cmocka_unit_test(test_bad_sim_options),
		cmocka_unit_test(test_threshold_for_n),
		cmocka_unit_test(test_fold_thinning),
		cmocka_unit_test(test_memcg_flush_threshold),
		cmocka_unit_test(test_line_serialised),
		cmocka_unit_test(test_record_hooks),
		cmocka_unit_test(test_record_events),
		cmocka_unit_test(test_record_memcg_batches),
		cmocka_unit_test(test_file_roundtrip),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_pool_points),
		cmocka_unit_test(test_whole_path),
		cmocka_unit_test(test_node_recording),
		cmocka_unit_test(test_replay_windows),
		cmocka_unit_test(test_warmup_a_pass),
		cmocka_unit_test(test_aging_pass),
	};

	(void)argc;
	(void)argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
