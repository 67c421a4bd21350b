// SPDX-License-Identifier: MIT
/*
 * lrulab lockbench: what one uncontended spin_lock + spin_unlock pair
 * costs with each lock implementation, and what the lock statistics add
 * to it in each mode - the default (sampled) that every experiment runs
 * with, and the full mode behind --profile-hold.
 *
 * One thread, one lock that stays in its cache.  Runs with statistics
 * off, sampled and full alternate, so that frequency changes and noise
 * from the rest of the machine fall on all alike, and medians are quoted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/commands.h"
#include "tools/options.h"
#include "tools/parse.h"
#include <lrulab/spinlock.h>
#include "tools/util.h"

#define PROG		"lrulab lockbench"
#define NR_RUNS		7
#define DEFAULT_ITERS	1000000L

static spinlock_t bench_lock ____cacheline_aligned;

static u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* ns per pair over @iters pairs */
static double run_pairs(long iters, enum lockstat_mode mode)
{
	struct lock_site *site = LOCK_SITE("lockbench");
	u64 t0, t1;
	long i;

	lockstat_set_mode(mode);
	t0 = mono_ns();
	for (i = 0; i < iters; i++) {
		spin_lock_at(&bench_lock, site);
		spin_unlock(&bench_lock);
	}
	t1 = mono_ns();
	return (double)(t1 - t0) / iters;
}

#define NR_MODES	3

static void bench_impl(enum lock_impl impl, long iters)
{
	double v[NR_MODES][NR_RUNS], m[NR_MODES];
	int r, mode;

	lock_impl_set(impl);
	spin_lock_init(&bench_lock);
	/* warm caches, branch predictors, the site and the stat block */
	for (mode = 0; mode < NR_MODES; mode++)
		run_pairs(iters / 10 + 1, mode);
	for (r = 0; r < NR_RUNS; r++)
		for (mode = 0; mode < NR_MODES; mode++)
			v[mode][r] = run_pairs(iters, mode);
	printf("%-14s", lock_impl_name(impl));
	for (mode = 0; mode < NR_MODES; mode++) {
		qsort(v[mode], NR_RUNS, sizeof(v[mode][0]), cmp_double);
		m[mode] = median_double(v[mode], NR_RUNS);
		printf(" %8.2f %6.2f-%-6.2f", m[mode], v[mode][0], v[mode][NR_RUNS - 1]);
	}
	printf(" %9.2f %9.2f\n", m[LOCKSTAT_SAMPLED] - m[LOCKSTAT_OFF],
	       m[LOCKSTAT_FULL] - m[LOCKSTAT_OFF]);
}

enum { OPT_IMPL = 1, OPT_ITERS };

static const struct cmd_opt lockbench_opts[] = {
	{ "impl", "NAME", OPT_IMPL, "qspinlock, ticket, tas, pthread-spin or mutex (default: all)" },
	{ "iters", "N", OPT_ITERS, "lock/unlock pairs per run (default 1000000)" },
	{ NULL },
};

static const struct cmd_spec lockbench_spec = {
	.prog = PROG,
	.about = "Uncontended spin_lock + spin_unlock on one thread, per lock implementation,\n"
		 "with lock statistics off, sampled and full, alternated: what the statistics\n"
		 "add to each acquisition.",
	.opts = lockbench_opts,
};

int cmd_lockbench(int argc, char **argv)
{
	enum lock_impl saved_impl = READ_ONCE(lrulab_lock_impl), impl = LOCK_QSPINLOCK;
	enum lockstat_mode saved_mode = READ_ONCE(lockstat_mode);
	bool all = true;
	long iters = DEFAULT_ITERS;
	struct cmd_parser cp;
	const char *v;
	int i, c;

	cmd_parse_init(&cp, &lockbench_spec, argc, argv);
	while ((c = cmd_parse_next(&cp, &v)) != CMD_OPT_END) {
		switch (c) {
		case CMD_OPT_HELP:
			return 0;
		case CMD_OPT_ERROR:
			return 2;
		case OPT_IMPL:
			if (lock_impl_parse(v, &impl)) {
				fprintf(stderr, PROG ": --impl: unknown lock implementation "
					"'%s' (qspinlock, ticket, tas, pthread-spin, mutex)\n", v);
				return 2;
			}
			all = false;
			break;
		case OPT_ITERS:
			if (parse_long(PROG, "--iters", v, 1, 1000000000L, &iters))
				return 2;
			break;
		}
	}
	if (cmd_parse_end(&cp))
		return 2;

	lrulab_clock_init();
	printf("lockbench: uncontended spin_lock + spin_unlock, one thread, "
	       "%ld pairs a run\n", iters);
	printf("%d runs each with lock statistics off, sampled (the default) and "
	       "full, alternating; clock: %s, %llu ns a read\n\n", NR_RUNS,
	       lrulab_clock_source(), (unsigned long long)lrulab_clock_cost_ns());
	printf("%-14s %-22s %-22s %-22s %-19s\n", "", "  off, ns/pair",
	       "  sampled, ns/pair", "  full, ns/pair", "  overhead, ns/acq");
	printf("%-14s", "impl");
	for (i = 0; i < NR_MODES; i++)
		printf(" %8s %-13s", "median", "  min-max");
	printf(" %9s %9s\n", "sampled", "full");
	if (all) {
		for (i = 0; i < NR_LOCK_IMPLS; i++)
			bench_impl((enum lock_impl)i, iters);
	} else {
		bench_impl(impl, iters);
	}
	printf("\noverhead = mode - off: what lock statistics add to each acquisition.\n"
	       "sampled: a per-thread counter, and one hold in %d timed (two clock reads);\n"
	       "full (--profile-hold): two clock reads and the bookkeeping in every "
	       "critical section - expensive\n", LOCKSTAT_HOLD_SAMPLE);

	lock_impl_set(saved_impl);
	lockstat_set_mode(saved_mode);
	return 0;
}
