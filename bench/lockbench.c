// SPDX-License-Identifier: MIT
/*
 * lrulab lockbench: what one uncontended spin_lock + spin_unlock pair
 * costs with each lock implementation, and what the lock statistics add
 * to it - the price of leaving them on in every experiment.
 *
 * One thread, one lock that stays in its cache.  Runs with statistics
 * off and on alternate, so that frequency changes and noise from the
 * rest of the machine fall on both alike, and medians are quoted.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lrulab/commands.h>
#include <lrulab/parse.h>
#include <lrulab/spinlock.h>

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
static double run_pairs(long iters, bool stats)
{
	struct lock_site *site = LOCK_SITE("lockbench");
	u64 t0, t1;
	long i;

	lockstat_enabled = stats;
	t0 = mono_ns();
	for (i = 0; i < iters; i++) {
		spin_lock_at(&bench_lock, site);
		spin_unlock(&bench_lock);
	}
	t1 = mono_ns();
	return (double)(t1 - t0) / iters;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bench_impl(enum lock_impl impl, long iters)
{
	double off[NR_RUNS], on[NR_RUNS], moff, mon;
	int r;

	lock_impl_set(impl);
	spin_lock_init(&bench_lock);
	/* warm caches, branch predictors, the site and the stat block */
	run_pairs(iters / 10 + 1, false);
	run_pairs(iters / 10 + 1, true);
	for (r = 0; r < NR_RUNS; r++) {
		off[r] = run_pairs(iters, false);
		on[r] = run_pairs(iters, true);
	}
	moff = median(off, NR_RUNS);
	mon = median(on, NR_RUNS);
	printf("%-14s %10.2f %8.2f-%-8.2f %10.2f %8.2f-%-8.2f %10.2f\n",
	       lock_impl_name(impl), moff, off[0], off[NR_RUNS - 1],
	       mon, on[0], on[NR_RUNS - 1], mon - moff);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [--impl NAME] [--iters N]\n"
		"  --impl NAME   qspinlock, ticket, tas, pthread-spin or mutex "
		"(default: all)\n"
		"  --iters N     lock/unlock pairs per run (default %ld)\n",
		DEFAULT_ITERS);
}

/* "--opt VALUE" or "--opt=VALUE"; NULL after an error line if missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *opt)
{
	size_t len = strlen(opt);
	const char *a = argv[*i];

	if (a[len] == '=')
		return a + len + 1;
	if (*i + 1 >= argc) {
		fprintf(stderr, PROG ": option '%s' needs a value\n", opt);
		return NULL;
	}
	return argv[++*i];
}

static bool is_opt(const char *arg, const char *opt)
{
	size_t len = strlen(opt);

	return !strncmp(arg, opt, len) && (arg[len] == '\0' || arg[len] == '=');
}

int cmd_lockbench(int argc, char **argv)
{
	enum lock_impl saved_impl = READ_ONCE(lrulab_lock_impl), impl = LOCK_QSPINLOCK;
	bool saved_stats = lockstat_enabled, all = true;
	long iters = DEFAULT_ITERS;
	const char *v;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (is_opt(a, "--impl")) {
			v = opt_value(argc, argv, &i, "--impl");
			if (!v)
				return 2;
			if (lock_impl_parse(v, &impl)) {
				fprintf(stderr, PROG ": --impl: unknown lock implementation "
					"'%s' (qspinlock, ticket, tas, pthread-spin, mutex)\n", v);
				return 2;
			}
			all = false;
		} else if (is_opt(a, "--iters")) {
			v = opt_value(argc, argv, &i, "--iters");
			if (!v || parse_long(PROG, "--iters", v, 1, 1000000000L, &iters))
				return 2;
		} else if (a[0] == '-') {
			fprintf(stderr, PROG ": unknown option '%s'\n", a);
			return 2;
		} else {
			fprintf(stderr, PROG ": unexpected argument '%s'\n", a);
			return 2;
		}
	}

	lrulab_clock_init();
	printf("lockbench: uncontended spin_lock + spin_unlock, one thread, "
	       "%ld pairs a run\n", iters);
	printf("%d runs each with lock statistics off and on, alternating; "
	       "clock: %s\n\n", NR_RUNS, lrulab_clock_source());
	printf("%-14s %-28s %-28s %10s\n", "", "   lockstat off, ns/pair",
	       "   lockstat on, ns/pair", "overhead");
	printf("%-14s %10s %-17s %10s %-17s %10s\n", "impl", "median", "  min-max",
	       "median", "  min-max", "ns/acq");
	if (all) {
		for (i = 0; i < NR_LOCK_IMPLS; i++)
			bench_impl((enum lock_impl)i, iters);
	} else {
		bench_impl(impl, iters);
	}
	printf("\noverhead = on - off: what lock statistics add to each "
	       "acquisition (two clock reads, counters, the held-lock stack)\n");

	lock_impl_set(saved_impl);
	lockstat_enabled = saved_stats;
	return 0;
}
