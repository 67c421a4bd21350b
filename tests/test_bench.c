// SPDX-License-Identifier: MIT
/*
 * The benchmark harness (bench/bench_common.c): the statistics the A/B
 * harness rests on, with fixed inputs; option parsing; and short runs
 * whose counts are exact (pages, faults, mTHP allocations), whose stats
 * equal the list lengths afterwards, and whose JSON has every key the
 * scripts read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <errno.h>
#include <cmocka.h>

#include "bench/bench.h"

/* ---- statistics ---- */

static void test_median(void **state)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	double v[] = { 5, 1, 4 };

	assert_true(median_double(odd, 3) == 2);
	assert_true(median_double(even, 4) == 2.5);
	assert_true(median_double(one, 1) == 7);
	assert_true(isnan(median_double(one, 0)));
	/* the input is left as it was */
	assert_true(median_double(v, 3) == 4);
	assert_true(v[0] == 5 && v[1] == 1 && v[2] == 4);
}

/* The reference splitmix64 stream from state 0. */
static void test_rng_stream(void **state)
{
	struct bench_rng r = { 0 };

	assert_true(bench_rng_next(&r) == 0xe220a8397b1dcdafULL);
	assert_true(bench_rng_next(&r) == 0x6e789e6aa1b965f4ULL);
}

/* Two identical configurations: every resample is 1, so "no difference". */
static void test_ci_identical(void **state)
{
	const double a[] = { 93.75, 93.75, 93.75, 93.75, 93.75 };
	double lo, hi;

	assert_int_equal(bench_ratio_ci(a, 5, a, 5, BENCH_BOOTSTRAP_ITERS,
					BENCH_BOOTSTRAP_SEED, &lo, &hi), 0);
	assert_true(lo == 1.0 && hi == 1.0);
	assert_true(bench_ci_covers_one(lo, hi));
}

static void test_ci_noisy_same(void **state)
{
	const double a[] = { 100, 103, 97, 101, 99, 102, 98 };
	const double b[] = { 101, 98, 102, 97, 100, 103, 99 };
	double lo, hi;

	assert_int_equal(bench_ratio_ci(a, 7, b, 7, BENCH_BOOTSTRAP_ITERS,
					BENCH_BOOTSTRAP_SEED, &lo, &hi), 0);
	assert_true(lo < 1.0 && hi > 1.0);
	assert_true(bench_ci_covers_one(lo, hi));
	/* bounded by the extreme ratios a resample can give */
	assert_true(lo >= 97.0 / 103 && hi <= 103.0 / 97);
}

static void test_ci_different(void **state)
{
	const double a[] = { 100, 102, 98, 101, 99 };
	const double b[] = { 150, 149, 151, 152, 148 };
	double lo, hi, lo2, hi2;

	assert_int_equal(bench_ratio_ci(a, 5, b, 5, BENCH_BOOTSTRAP_ITERS,
					BENCH_BOOTSTRAP_SEED, &lo, &hi), 0);
	assert_false(bench_ci_covers_one(lo, hi));
	assert_true(lo > 148.0 / 102 - 1e-9 && hi < 152.0 / 98 + 1e-9);
	assert_true(lo <= 1.5 && hi >= 1.5);
	/* the same seed, the same interval */
	assert_int_equal(bench_ratio_ci(a, 5, b, 5, BENCH_BOOTSTRAP_ITERS,
					BENCH_BOOTSTRAP_SEED, &lo2, &hi2), 0);
	assert_true(lo == lo2 && hi == hi2);
	/* and B lower is the mirror image */
	assert_int_equal(bench_ratio_ci(b, 5, a, 5, BENCH_BOOTSTRAP_ITERS,
					BENCH_BOOTSTRAP_SEED, &lo, &hi), 0);
	assert_true(hi < 1.0);
}

static void test_ci_bad_input(void **state)
{
	const double a[] = { 1 }, z[] = { 0, 0 };
	double lo, hi;

	assert_int_equal(bench_ratio_ci(a, 0, a, 1, 100, 1, &lo, &hi), -EINVAL);
	assert_int_equal(bench_ratio_ci(a, 1, a, 0, 100, 1, &lo, &hi), -EINVAL);
	/* a ratio over a zero median has no interval */
	assert_int_equal(bench_ratio_ci(z, 2, a, 1, 100, 1, &lo, &hi), -EINVAL);
}

/* ---- options ---- */

static int parse(const struct bench_workload *w, struct bench_opts *o, ...)
{
	char *argv[32];
	va_list ap;
	int argc = 0;

	argv[argc++] = (char *)w->name;
	va_start(ap, o);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	bench_defaults(w, o);
	return bench_parse(w, "lrulab bench", argc, argv, o);
}

static void test_parse_good(void **state)
{
	struct bench_opts o;

	assert_int_equal(parse(&fault_free_workload, &o, "--threads", "1,2,4", "--type", "anon",
			       "--folio-size", "32K", "--mem", "1M", "--with", "lru-stat-batch",
			       "--without", "mthp-lru-cache", "--loops", "3", "--json", NULL), 0);
	assert_int_equal(o.nr_threads, 3);
	assert_int_equal(o.threads[2], 4);
	assert_false(o.shmem);
	assert_int_equal(o.folio_order, 3);
	assert_int_equal(o.mem, 1UL << 20);
	assert_int_equal(o.sw[SW_LRU_STAT_BATCH], 1);
	assert_int_equal(o.sw[SW_MTHP_LRU_CACHE], 0);
	assert_int_equal(o.sw[SW_MEMCG_DIRECT_STAT], -1);
	assert_int_equal(o.loops, 3);
	assert_true(o.json);

	/* the mail's defaults: shmem, 16M, 7 memcgs; 16K folios for s4 */
	assert_int_equal(parse(&fault_free_workload, &o, NULL), 0);
	assert_true(o.shmem);
	assert_int_equal(o.mem, 16UL << 20);
	assert_int_equal(o.memcgs, 7);
	assert_int_equal(parse(&mmap_madvise_workload, &o, NULL), 0);
	assert_false(o.shmem);
	assert_int_equal(o.folio_order, 2);
	assert_true(o.loops > 0);
}

static void test_parse_bad(void **state)
{
	struct bench_opts o;

	assert_int_equal(parse(&fault_free_workload, &o, "--folio-size", "8K", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--mem", "0", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--threads", "0", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--threads", "-1", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--threads", "1,0,2", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--threads", "1,,2", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--with", "no-such-switch", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--with", "lru-stat-batch",
			       "--without", "lru-stat-batch", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--type", "shmem",
			       "--folio-size", "16K", NULL), 2);
	assert_int_equal(parse(&mmap_madvise_workload, &o, "--type", "anon", NULL), 2);
	assert_int_equal(parse(&fault_free_workload, &o, "--seconds", "1", "--loops", "1", NULL), 2);
}

/* ---- runs ---- */

static long long delta_of(const struct bench_deltas *d, const char *name)
{
	int i;

	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->d[i].name, name))
			return d->d[i].delta;
	return 0;
}

static void small_opts(const struct bench_workload *w, struct bench_opts *o, bool shmem,
		       unsigned int order)
{
	bench_defaults(w, o);
	o->shmem = shmem;
	o->folio_order = order;
	o->mem = 256UL << 10;		/* 64 pages */
	o->loops = 2;
	o->memcgs = 2;
}

static void test_run_shmem_exact(void **state)
{
	struct bench_opts o;
	struct bench_result r, r2;
	int i;

	small_opts(&fault_free_workload, &o, true, 0);
	assert_int_equal(bench_run(&fault_free_workload, &o, 2, &r), 0);
	assert_int_equal(r.err, 0);
	/* 2 threads x 2 memcgs x 2 loops x 64 pages */
	assert_int_equal(r.pages, 512);
	assert_int_equal(r.nr_memcgs, 2);
	for (i = 0; i < r.nr_memcgs; i++) {
		assert_int_equal(r.memcg[i].pages, 256);
		assert_true(r.memcg[i].pn_offset128 == 0 || r.memcg[i].pn_offset128 == 64);
	}
	assert_int_equal(delta_of(&r.vmstat, "pgfault"), 512);
	/* and one PTE table for each thread's mm in each memcg */
	assert_int_equal(delta_of(&r.vmstat, "pgalloc_normal"), 512 + 2 * 2);
	assert_int_equal(delta_of(&r.memory_stat, "pgfault"), 512);
	/* everything faulted was freed: nothing left on the LRU */
	assert_int_equal(delta_of(&r.memory_stat, "shmem"), 0);
	/* stats equal list lengths once the batches are drained */
	assert_int_equal(r.invariant_violations, 0);
	assert_true(r.lru.acquired > 0);

	/* one thread: the lock count is a property of the batching alone */
	assert_int_equal(bench_run(&fault_free_workload, &o, 1, &r2), 0);
	bench_result_free(&r);
	assert_int_equal(bench_run(&fault_free_workload, &o, 1, &r), 0);
	assert_int_equal(r.pages, 256);
	assert_true(r.lru.acquired == r2.lru.acquired);
	assert_int_equal(r.invariant_violations, 0);
	bench_result_free(&r);
	bench_result_free(&r2);
}

static void test_run_mthp_exact(void **state)
{
	struct bench_opts o;
	struct bench_result r;

	small_opts(&mmap_madvise_workload, &o, false, 2);
	o.memcgs = 1;
	o.profile_hold = true;
	assert_int_equal(bench_run(&mmap_madvise_workload, &o, 2, &r), 0);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.pages, 256);
	/* every write to a fresh 16K folio faulted in all four pages */
	assert_int_equal(delta_of(&r.mthp, "hugepages-16kB/anon_fault_alloc"), 64);
	assert_int_equal(delta_of(&r.vmstat, "pgfault"), 64);
	assert_int_equal(r.invariant_violations, 0);
	assert_true(r.have_profile);
	assert_true(r.profile.count[LRU_HOLD_LIST] > 0);
	/* the profile's shares divide by every hold: all of them timed */
	assert_int_equal(r.lru.hold_sampled, 1);
	assert_int_equal(r.lru.hold_timed, r.lru.acquired);
	bench_result_free(&r);
	/* and the run takes its probes off again */
	assert_false(trace_on(lru_hold_section));
	assert_false(trace_on(lru_stat_deferred));
}

static void test_run_switches_applied(void **state)
{
	struct bench_opts o;
	struct bench_result r;
	json_t *j, *sw;

	small_opts(&fault_free_workload, &o, false, 0);
	o.memcgs = 1;
	o.sw[SW_LRU_STAT_BATCH] = 1;
	assert_int_equal(bench_run(&fault_free_workload, &o, 1, &r), 0);
	j = bench_result_json(&fault_free_workload, &o, &r);
	sw = json_object_get(j, "switches");
	assert_true(json_is_array(sw));
	assert_int_equal(json_array_size(sw), 1);
	assert_string_equal(json_string_value(json_array_get(sw, 0)), "lru-stat-batch");
	assert_int_equal(r.invariant_violations, 0);
	/* and the run leaves the model as before every patch */
	assert_false(lrulab_switch_on(SW_LRU_STAT_BATCH));
	json_decref(j);
	bench_result_free(&r);
}

/*
 * bench_has_metric() knows, before any run, exactly the numbers a run's
 * JSON has at its top level: each of @run's numbers, and nothing else.
 */
static void assert_metrics_of(const struct bench_workload *w,
			      const struct bench_opts *o, json_t *run)
{
	const char *key;
	json_t *v;
	int n = 0;

	json_object_foreach(run, key, v) {
		if (!strcmp(key, "error") || !strcmp(key, "memcg_oom_events") ||
		    !strcmp(key, "node_free_pages"))
			continue;	/* a failed run's, never a figure to compare */
		if (bench_has_metric(w, o, key) != json_is_number(v))
			fail_msg("metric %s: bench_has_metric() says otherwise", key);
		n += json_is_number(v);
	}
	assert_true(n > 10);
	assert_false(bench_has_metric(w, o, "no_such_key"));
}

static void test_json_keys(void **state)
{
	static const char *const keys[] = {
		"workload", "type", "threads", "cpus", "oversubscribed", "folio_size",
		"switches", "pages_per_sec", "lru_lock_acquisitions_per_1k_pages",
		"lru_lock_hold_ns_per_page", "locks", "memcgs", "vmstat", "memory_stat",
		"invariants_ok", "pn_layout", "lockstat", "hold_sampled", "clock_cost_ns",
		"spin_yield",
	};
	static const char *const lock_keys[] = {
		"site", "acquired", "contended", "wait_total_ns", "wait_max_ns",
		"hold_total_ns", "hold_timed", "hold_sampled",
	};
	struct bench_opts o;
	struct bench_result r;
	json_t *j, *locks, *l, *m;
	char *text;
	size_t i, k;
	bool lru = false;

	small_opts(&fault_free_workload, &o, true, 0);
	assert_int_equal(bench_run(&fault_free_workload, &o, 1, &r), 0);
	j = bench_result_json(&fault_free_workload, &o, &r);
	/* what --json prints must load back as the same object */
	text = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	j = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(j);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		assert_non_null(json_object_get(j, keys[i]));
	assert_string_equal(json_string_value(json_object_get(j, "workload")), "fault-free");
	assert_string_equal(json_string_value(json_object_get(j, "type")), "shmem");
	assert_int_equal(json_integer_value(json_object_get(j, "threads")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "folio_size")), 4096);
	assert_true(json_is_boolean(json_object_get(j, "oversubscribed")));
	assert_true(json_is_true(json_object_get(j, "invariants_ok")));
	/* one thread: sampled statistics, and waiters that never yield */
	assert_string_equal(json_string_value(json_object_get(j, "lockstat")), "sampled");
	assert_int_equal(json_integer_value(json_object_get(j, "hold_sampled")),
			 LOCKSTAT_HOLD_SAMPLE);
	assert_true(json_is_false(json_object_get(j, "spin_yield")));
	assert_true(json_number_value(json_object_get(j, "pages_per_sec")) > 0);
	assert_true(json_number_value(json_object_get(j, "lru_lock_acquisitions_per_1k_pages")) > 0);
	locks = json_object_get(j, "locks");
	assert_true(json_is_array(locks) && json_array_size(locks) > 0);
	json_array_foreach(locks, i, l) {
		for (k = 0; k < ARRAY_SIZE(lock_keys); k++)
			assert_non_null(json_object_get(l, lock_keys[k]));
		if (!strncmp(json_string_value(json_object_get(l, "site")), "lru_lock:", 9))
			lru = true;
	}
	assert_true(lru);
	json_array_foreach(json_object_get(j, "memcgs"), i, m)
		assert_non_null(json_object_get(m, "pn_offset128"));
	assert_int_equal(json_array_size(json_object_get(j, "memcgs")), 2);
	assert_metrics_of(&fault_free_workload, &o, j);
	/* the hold profile's share is a figure only with --profile-hold */
	assert_false(bench_has_metric(&fault_free_workload, &o, "lru_lock_stat_hold_pct"));
	o.profile_hold = true;
	assert_true(bench_has_metric(&fault_free_workload, &o, "lru_lock_stat_hold_pct"));
	json_decref(j);
	bench_result_free(&r);
}

/* usemem (s1) runs its own model: a tiny run has every key repro s1 reads */
static void test_usemem_json_keys(void **state)
{
	static const char *const keys[] = {
		"workload", "threads", "switches", "pgscan_per_sec", "pgsteal_per_sec",
		"workingset_refault_anon_per_sec", "lru_lock_wait_total_ns",
		"lru_lock_acquisitions_per_1k_reclaimed", "pgsteal", "pages_per_sec",
		"locks", "invariants_ok", "lockstat", "hold_sampled", "spin_yield",
	};
	static const char *const lock_keys[] = {
		"site", "class", "caller", "acquired", "contended", "wait_total_ns",
		"wait_max_ns", "hold_total_ns",
	};
	const struct bench_workload *w = bench_find_workload("usemem");
	struct bench_opts o;
	json_t *j = NULL, *l;
	size_t i, k;
	bool cost = false;

	assert_ptr_equal(w, &usemem_workload);
	bench_defaults(w, &o);
	o.mem = 2UL << 20;		/* 512 pages over a 256-page memory.max */
	o.seconds = 0.05;
	o.sw[SW_VMSTAT_SCAN_COST] = 0;
	assert_int_equal(bench_usemem_run(&o, 1, NULL, &j), 0);
	assert_non_null(j);
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		assert_non_null(json_object_get(j, keys[i]));
	assert_string_equal(json_string_value(json_object_get(j, "workload")), "usemem");
	assert_int_equal(json_array_size(json_object_get(j, "switches")), 0);
	assert_true(json_is_true(json_object_get(j, "invariants_ok")));
	/* the prefault alone overflows memory.max: reclaim ran, so the lock did */
	json_array_foreach(json_object_get(j, "locks"), i, l) {
		for (k = 0; k < ARRAY_SIZE(lock_keys); k++)
			assert_non_null(json_object_get(l, lock_keys[k]));
		if (!strcmp(json_string_value(json_object_get(l, "caller")),
			    "lru_note_cost_unlock_irq"))
			cost = true;
	}
	assert_true(cost);
	assert_metrics_of(w, &o, j);
	json_decref(j);

	/* with the switch the cost sites leave lru_lock for cost_lock */
	o.sw[SW_VMSTAT_SCAN_COST] = 1;
	assert_int_equal(bench_usemem_run(&o, 1, NULL, &j), 0);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "switches"), 0)),
			    "vmstat-scan-cost");
	json_array_foreach(json_object_get(j, "locks"), i, l)
		if (!strcmp(json_string_value(json_object_get(l, "class")), "lru_lock"))
			assert_string_not_equal(json_string_value(json_object_get(l, "caller")),
						"lru_note_cost_unlock_irq");
	json_decref(j);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_rng_stream),
		cmocka_unit_test(test_ci_identical),
		cmocka_unit_test(test_ci_noisy_same),
		cmocka_unit_test(test_ci_different),
		cmocka_unit_test(test_ci_bad_input),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_run_shmem_exact),
		cmocka_unit_test(test_run_mthp_exact),
		cmocka_unit_test(test_run_switches_applied),
		cmocka_unit_test(test_json_keys),
		cmocka_unit_test(test_usemem_json_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
