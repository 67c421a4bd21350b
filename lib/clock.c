// SPDX-License-Identifier: MIT
/*
 * The lock statistics time waits and sampled holds, so the clock must
 * cost a few nanoseconds, not the 20-30 of clock_gettime() (more in a
 * guest whose clocksource is not the TSC).  On x86-64 with an invariant
 * TSC we read the counter and scale it to CLOCK_MONOTONIC nanoseconds
 * with a fixed-point multiplier found by calibration, the way the
 * kernel's sched_clock does with cyc2ns.  Elsewhere, or when the TSC may
 * stop or change rate, clock_gettime() is the clock.  Whichever it is,
 * its own cost is measured once and reported, so that a timed interval
 * can have it taken off and figures from machines with cheap and dear
 * clocks stay comparable.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include <lrulab/spinlock.h>

enum clock_mode {
	CLOCK_MODE_UNSET,
	CLOCK_MODE_TSC,
	CLOCK_MODE_MONOTONIC,
};

/* Written once under clock_once, published by the release store of mode. */
static int clock_mode;
static u64 clock_cost;		/* ns between two back-to-back reads */
/* per thread, so a test counts its own reads and nobody shares the line */
static __thread u64 clock_reads;
static u64 tsc_base;		/* TSC at calibration... */
static u64 ns_base;		/* ...and CLOCK_MONOTONIC at the same instant */
static u64 cyc2ns_mult;		/* ns = cycles * mult >> shift */
static unsigned int cyc2ns_shift;
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

/* How long to calibrate: long enough that a 100 ns error reading the two
 * clocks is 10 ppm, short enough that no one notices at start-up. */
#define CALIBRATE_NS	10000000ULL
#define CYC2NS_SHIFT	32

static u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

#if defined(__x86_64__)
static bool tsc_invariant(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return false;
	return d & (1U << 8);		/* constant rate, runs in deep C-states */
}

/*
 * One (TSC, CLOCK_MONOTONIC) pair.  clock_gettime() may be interrupted or
 * take a slow path; of a few tries keep the one whose surrounding TSC
 * reads are closest, and take their midpoint as the instant.
 */
static void read_clock_pair(u64 *tsc, u64 *ns)
{
	u64 best = ~0ULL;
	int i;

	*tsc = *ns = 0;
	for (i = 0; i < 8; i++) {
		u64 t1 = __rdtsc();
		u64 n = monotonic_ns();
		u64 t2 = __rdtsc();

		if (!i || t2 - t1 < best) {
			best = t2 - t1;
			*tsc = t1 + (t2 - t1) / 2;
			*ns = n;
		}
	}
}

static bool tsc_calibrate(void)
{
	u64 tsc0, ns0, tsc1, ns1;
	unsigned __int128 mult;

	read_clock_pair(&tsc0, &ns0);
	while (monotonic_ns() - ns0 < CALIBRATE_NS)
		;
	read_clock_pair(&tsc1, &ns1);
	if (tsc1 <= tsc0 || ns1 <= ns0)
		return false;
	mult = ((unsigned __int128)(ns1 - ns0) << CYC2NS_SHIFT) / (tsc1 - tsc0);
	if (!mult || mult >> 64)
		return false;
	cyc2ns_mult = (u64)mult;
	cyc2ns_shift = CYC2NS_SHIFT;
	tsc_base = tsc1;
	ns_base = ns1;
	return true;
}
#endif

/*
 * rdtsc is not ordered against other reads of it, and another core's
 * counter may trail ours by a few cycles after a migration: never let
 * this thread see time go backwards, or a hold time would come out
 * negative.
 */
static inline u64 clock_read(int mode)
{
#if defined(__x86_64__)
	if (likely(mode == CLOCK_MODE_TSC)) {
		static __thread u64 last_ns;
		s64 delta = (s64)(__rdtsc() - tsc_base);
		u64 ns = ns_base;

		if (delta > 0)
			ns += (u64)(((unsigned __int128)delta * cyc2ns_mult) >>
				    cyc2ns_shift);
		if (unlikely(ns < last_ns))
			ns = last_ns;
		last_ns = ns;
		return ns;
	}
#endif
	return monotonic_ns();
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

/*
 * What a timed interval with nothing in it measures: the median of many,
 * so that an interrupt in a few of them does not count.
 */
#define COST_SAMPLES	1001

static u64 clock_measure_cost(int mode)
{
	static u64 d[COST_SAMPLES];
	int i;

	for (i = 0; i < COST_SAMPLES; i++) {
		u64 t0 = clock_read(mode);

		d[i] = clock_read(mode) - t0;
	}
	qsort(d, COST_SAMPLES, sizeof(d[0]), cmp_u64);
	return d[COST_SAMPLES / 2];
}

static void clock_setup(void)
{
	const char *env = getenv("LRULAB_CLOCK");
	int mode = CLOCK_MODE_MONOTONIC;

#if defined(__x86_64__)
	if (!(env && !strcmp(env, "monotonic")) && tsc_invariant() && tsc_calibrate())
		mode = CLOCK_MODE_TSC;
#else
	(void)env;
#endif
	/* before the mode is published: whoever sees the mode sees the cost */
	clock_cost = clock_measure_cost(mode);
	__atomic_store_n(&clock_mode, mode, __ATOMIC_RELEASE);
}

void lrulab_clock_init(void)
{
	pthread_once(&clock_once, clock_setup);
}

const char *lrulab_clock_source(void)
{
	lrulab_clock_init();
	return clock_mode == CLOCK_MODE_TSC ? "tsc" : "clock_gettime";
}

u64 lrulab_clock_cost_ns(void)
{
	if (unlikely(!__atomic_load_n(&clock_mode, __ATOMIC_ACQUIRE)))
		lrulab_clock_init();
	return clock_cost;
}

u64 lrulab_clock_reads(void)
{
	return clock_reads;
}

u64 lrulab_now_ns(void)
{
	int mode = __atomic_load_n(&clock_mode, __ATOMIC_ACQUIRE);

	if (unlikely(mode == CLOCK_MODE_UNSET)) {
		lrulab_clock_init();
		mode = __atomic_load_n(&clock_mode, __ATOMIC_ACQUIRE);
	}
	clock_reads++;
	return clock_read(mode);
}

/* ---- the model's clock ---- */

static bool model_virtual;
static u64 model_virtual_ns;

u64 lrulab_model_now_ns(void)
{
	if (READ_ONCE(model_virtual))
		return READ_ONCE(model_virtual_ns);
	return monotonic_ns();
}

void lrulab_model_clock_virtual(bool on, u64 start_ns)
{
	WRITE_ONCE(model_virtual_ns, start_ns);
	WRITE_ONCE(model_virtual, on);
}

void lrulab_model_clock_advance(u64 ns)
{
	__atomic_fetch_add(&model_virtual_ns, ns, __ATOMIC_RELAXED);
}
