// SPDX-License-Identifier: MIT
/*
 * `lrulab calibrate --out FILE`: this machine as a profile.  Threads
 * pinned to chosen processors measure a cache line's one-way transfer
 * per class of pair (SMT siblings, one socket, two sockets), each lock
 * implementation's handoff against the number of waiters, the clock's
 * cost, a locked cmpxchg on a line the core holds, whether a store's
 * miss takes its 128-byte pair whole, and the speed of a busy loop with
 * one and with every processor busy (the frequency the system keeps,
 * where it does not show it).
 * Each value is the median of repetitions, its range their spread.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/membarrier.h>

#include "bench/bench.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/outfile.h"
#include "tools/parse.h"
#include "predict-internal.h"

#define PROG "lrulab calibrate"
#define REPS 5
#define MAX_WAITERS 7

struct topo {
	int n, pkg[LRULAB_MAX_CPUS], core[LRULAB_MAX_CPUS];
};

static int read_int(const char *fmt, int cpu, int *out)
{
	char p[128];
	FILE *f;
	int ok;

	snprintf(p, sizeof(p), fmt, cpu);
	f = fopen(p, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%d", out) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static void read_topo(struct topo *t)
{
	int i;

	t->n = lrulab_nr_processors();
	if (t->n > LRULAB_MAX_CPUS)
		t->n = LRULAB_MAX_CPUS;
	for (i = 0; i < t->n; i++) {
		if (read_int("/sys/devices/system/cpu/cpu%d/topology/physical_package_id", i,
			     &t->pkg[i]))
			t->pkg[i] = 0;
		if (read_int("/sys/devices/system/cpu/cpu%d/topology/core_id", i, &t->core[i]))
			t->core[i] = i;
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* ---- line transfer: compare-and-swap ping-pong ---- */

#define PINGS 100000

struct pingpong {
	u64 word __attribute__((aligned(128)));
	int cpu[2];
	pthread_barrier_t start;
	u64 ns;
};

struct pp_arg {
	struct pingpong *pp;
	int side;
};

static void *pp_thread(void *p)
{
	struct pp_arg *a = p;
	struct pingpong *pp = a->pp;
	u64 t0 = 0, i;

	pin(pp->cpu[a->side]);
	pthread_barrier_wait(&pp->start);
	if (!a->side)
		t0 = lrulab_now_ns();
	/* read until it is our turn, then one write hands the line back */
	for (i = 0; i < PINGS; i++) {
		u64 want = 2 * i + a->side;

		while (__atomic_load_n(&pp->word, __ATOMIC_ACQUIRE) != want)
			__builtin_ia32_pause();
		__atomic_store_n(&pp->word, want + 1, __ATOMIC_RELEASE);
	}
	if (!a->side)
		pp->ns = lrulab_now_ns() - t0;
	return NULL;
}

/* @fn on two threads, one with @a0 and one with @a1, until both end */
static void run_two(void *(*fn)(void *), void *a0, void *a1)
{
	pthread_t t[2];

	pthread_create(&t[0], NULL, fn, a0);
	pthread_create(&t[1], NULL, fn, a1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
}

/* one-way transfer between @a and @b: a round trip is two */
static double xfer_once(int a, int b)
{
	struct pingpong *pp = aligned_alloc(128, sizeof(*pp));
	struct pp_arg args[2] = { { pp, 0 }, { pp, 1 } };
	double ns;

	memset(pp, 0, sizeof(*pp));
	pp->cpu[0] = a;
	pp->cpu[1] = b;
	pthread_barrier_init(&pp->start, NULL, 2);
	run_two(pp_thread, &args[0], &args[1]);
	pthread_barrier_destroy(&pp->start);
	ns = (double)pp->ns / PINGS / 2;
	free(pp);
	return ns;
}

/* median, min and max of REPS runs of @fn */
static void repeat(struct pred_value *v, double (*fn)(void *), void *arg)
{
	double r[REPS];
	int i;

	for (i = 0; i < REPS; i++)
		r[i] = fn(arg);
	qsort(r, REPS, sizeof(r[0]), cmp_double);
	v->v = r[REPS / 2];
	v->lo = r[0];
	v->hi = r[REPS - 1];
	v->given = true;
}

struct pair {
	int a, b;
};

static double xfer_pair(void *p)
{
	struct pair *pr = p;

	return xfer_once(pr->a, pr->b);
}

/* the first pair of the class, or -1 */
static int find_pair(const struct topo *t, int cls, struct pair *p)
{
	int i;

	for (i = 1; i < t->n; i++) {
		bool same_pkg = t->pkg[i] == t->pkg[0], same_core = same_pkg && t->core[i] == t->core[0];

		if ((cls == PP_XFER_SMT && same_core) ||
		    (cls == PP_XFER_SOCKET && same_pkg && !same_core) ||
		    (cls == PP_XFER_REMOTE && !same_pkg)) {
			p->a = 0;
			p->b = i;
			return 0;
		}
	}
	return -1;
}

/* ---- lock handoff against waiters ---- */

#define HANDOFFS 2000

/*
 * One holder on CPU 0 and k waiters on the next processors: the holder
 * waits until every waiter has asked for the lock and spun a while,
 * then releases; the handoff is the time from its release to the first
 * waiter's grant, both read from the synchronised clock.
 */
struct handoff {
	spinlock_t lock __attribute__((aligned(128)));
	int round __attribute__((aligned(128)));
	int asked, done;
	u64 t_rel, t_acq;
	int k;
	pthread_barrier_t start;
	const struct topo *t;
	double samples[HANDOFFS];
};

struct ho_arg {
	struct handoff *h;
	int idx;
};

static void spin_for(u64 ns)
{
	u64 end = lrulab_now_ns() + ns;

	while (lrulab_now_ns() < end)
		__builtin_ia32_pause();
}

static void *ho_thread(void *p)
{
	struct ho_arg *a = p;
	struct handoff *h = a->h;
	struct lock_site *site = LOCK_SITE_AT("calibrate", "handoff", "handoff");
	int r;

	pin(a->idx % h->t->n);
	pthread_barrier_wait(&h->start);
	for (r = 1; r <= HANDOFFS; r++) {
		if (!a->idx) {
			spin_lock_at(&h->lock, site);
			__atomic_store_n(&h->round, r, __ATOMIC_RELEASE);
			while (__atomic_load_n(&h->asked, __ATOMIC_ACQUIRE) < h->k)
				__builtin_ia32_pause();
			spin_for(2000);
			h->t_rel = lrulab_now_ns();
			spin_unlock(&h->lock);
			while (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) < h->k)
				__builtin_ia32_pause();
			h->samples[r - 1] = (double)h->t_acq - (double)h->t_rel -
					    (double)lrulab_clock_cost_ns();
			__atomic_store_n(&h->asked, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&h->t_acq, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&h->done, 0, __ATOMIC_RELEASE);
			continue;
		}
		while (__atomic_load_n(&h->round, __ATOMIC_ACQUIRE) != r)
			__builtin_ia32_pause();
		__atomic_fetch_add(&h->asked, 1, __ATOMIC_ACQ_REL);
		spin_lock_at(&h->lock, site);
		{
			u64 now = lrulab_now_ns(), zero = 0;

			__atomic_compare_exchange_n(&h->t_acq, &zero, now, false,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		}
		spin_unlock(&h->lock);
		/* the holder resets the round only once all are done */
		__atomic_fetch_add(&h->done, 1, __ATOMIC_ACQ_REL);
		while (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) != 0 &&
		       __atomic_load_n(&h->round, __ATOMIC_ACQUIRE) == r)
			__builtin_ia32_pause();
	}
	return NULL;
}

/* median handoff with @k waiters, its 10th and 90th percentiles in *@lo, *@hi */
static double handoff_k(const struct topo *t, enum lock_impl impl, int k, double *lo,
			double *hi)
{
	struct handoff *h = aligned_alloc(128, sizeof(*h));
	struct ho_arg args[MAX_WAITERS + 1];
	pthread_t th[MAX_WAITERS + 1];
	double med;
	int i;

	memset(h, 0, sizeof(*h));
	lock_impl_set(impl);
	spin_lock_init(&h->lock);
	h->k = k;
	h->t = t;
	pthread_barrier_init(&h->start, NULL, k + 1);
	for (i = 0; i <= k; i++) {
		args[i] = (struct ho_arg){ h, i };
		pthread_create(&th[i], NULL, ho_thread, &args[i]);
	}
	for (i = 0; i <= k; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&h->start);
	qsort(h->samples, HANDOFFS, sizeof(double), cmp_double);
	med = h->samples[HANDOFFS / 2];
	*lo = h->samples[HANDOFFS / 10];
	*hi = h->samples[HANDOFFS * 9 / 10];
	free(h);
	return med > 0 ? med : 0;
}

/* handoffs with 1..kmax waiters, one waiter per other processor */
static void handoffs(const struct topo *t, enum lock_impl impl, double *h, double *lo,
		     double *hi, int *kmax)
{
	int k;

	*kmax = t->n - 1 < MAX_WAITERS ? t->n - 1 : MAX_WAITERS;
	for (k = 1; k <= *kmax; k++)
		h[k] = handoff_k(t, impl, k, &lo[k], &hi[k]);
}

/* least-squares slope of h[k] against k through k = 1..n, or 0 with one point */
static double slope(const double *h, int n)
{
	double sk = 0, sh = 0, skk = 0, skh = 0;
	int k;

	if (n < 2)
		return 0;
	for (k = 1; k <= n; k++) {
		sk += k;
		sh += h[k];
		skk += (double)k * k;
		skh += k * h[k];
	}
	return (n * skh - sk * sh) / (n * skk - sk * sk);
}

/* ---- speed of a busy loop with 1 and with every processor busy ---- */

struct spin_arg {
	int cpu;
	pthread_barrier_t *start;
	double ns;
};

static void *spin_thread(void *p)
{
	struct spin_arg *a = p;
	volatile u64 x = 1;
	u64 t0, i;

	pin(a->cpu);
	pthread_barrier_wait(a->start);
	t0 = lrulab_now_ns();
	for (i = 0; i < 20000000; i++)
		x = x * 6364136223846793005ULL + 1;
	a->ns = (double)(lrulab_now_ns() - t0);
	return NULL;
}

/* the mean time of the loop on @n processors at once */
static double spin_ns(int n, const int *cpus)
{
	struct spin_arg a[LRULAB_MAX_CPUS];
	pthread_t th[LRULAB_MAX_CPUS];
	pthread_barrier_t start;
	double sum = 0;
	int i;

	pthread_barrier_init(&start, NULL, n);
	for (i = 0; i < n; i++) {
		a[i] = (struct spin_arg){ cpus[i], &start, 0 };
		pthread_create(&th[i], NULL, spin_thread, &a[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		sum += a[i].ns;
	}
	pthread_barrier_destroy(&start);
	return sum / n;
}

static double cpuinfo_mhz(void)
{
	char line[256];
	double mhz = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	if (f)
		fclose(f);
	return mhz;
}

/* ---- a locked read-modify-write on a line this core holds ---- */

#define RMWS 2000000

static double locked_rmw_once(void *unused)
{
	static u64 line __attribute__((aligned(64)));
	u64 old = __atomic_load_n(&line, __ATOMIC_RELAXED), t0, i;

	(void)unused;
	t0 = lrulab_now_ns();
	/* each expects the last one's result: a chain, as the walk's are */
	for (i = 0; i < RMWS; i++) {
		while (!__atomic_compare_exchange_n(&line, &old, old + 1, false,
						    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			;
		old++;
	}
	return (double)(lrulab_now_ns() - t0) / RMWS;
}

void pred_measure_locked_rmw(struct pred_value *v)
{
	repeat(v, locked_rmw_once, NULL);
	snprintf(v->source, sizeof(v->source), "lrulab calibrate: a chain of %d lock cmpxchg on "
		 "one line, median of %d (range: min-max)", RMWS, REPS);
}

static void set(struct pred_value *v, double val, double lo, double hi, const char *src)
{
	v->v = val;
	v->lo = lo;
	v->hi = hi;
	v->given = true;
	snprintf(v->source, sizeof(v->source), "%s", src);
}

/*
 * Intel's L2 spatial prefetcher pairs lines (its optimization manual);
 * whether other vendors' cores do is not something this can measure
 * or look up, so they get 0 and the profile says why.
 */
static void pair_prefetch(struct pred_profile *pf)
{
	char line[256], vendor[64] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "vendor_id : %63s", vendor) == 1)
			break;
	if (f)
		fclose(f);
	if (!strcmp(vendor, "GenuineIntel"))
		set(&pf->p[PP_PAIR_PREFETCH], 1, 1, 1, "lrulab calibrate: /proc/cpuinfo vendor_id "
		    "GenuineIntel; Intel's optimization manual: the L2 spatial prefetcher fetches "
		    "128-byte aligned pairs");
	else
		set(&pf->p[PP_PAIR_PREFETCH], 0, 0, 0, vendor[0] ?
		    "lrulab calibrate: /proc/cpuinfo vendor_id is not GenuineIntel; no pair "
		    "prefetch assumed (edit to 1 if this core pairs lines)" :
		    "lrulab calibrate: no vendor_id in /proc/cpuinfo; no pair prefetch assumed");
}

/*
 * ---- pair_rfo: does a store's miss take its 128-byte pair whole? ----
 *
 * Two threads on two cores take turns.  The reader loads line R, then
 * line W (which leaves W shared, so the writer's next store to it
 * misses), and hands over; the writer stores to W, drains its store
 * buffer with a locked op and hands back.  R is never written.  Where a
 * store's miss on W takes W's pair partner whole, R in W's pair is gone
 * from the reader's cache at every turn, and the reader's load of it is
 * one more transfer a round than with R in another pair.  The flag the
 * two hand over with is in a pair of its own, and the reader's handover
 * depends on the value R gave, so that load is on the round's path.
 */
#define PAIR_ROUNDS 100000

/* R in another pair; beside W; beside W and stored to as well (the probe's check) */
enum pair_rfo_mode { PAIR_FAR, PAIR_ADJACENT, PAIR_WRITTEN };

struct pair_rfo {
	u64 w[16] __attribute__((aligned(128)));	/* W: line 0; R beside it: line 1 */
	u64 far[16] __attribute__((aligned(128)));	/* R in a pair of its own */
	u64 flag[16] __attribute__((aligned(128)));
	u64 drain __attribute__((aligned(128)));
	int cpu[2];
	int mode;		/* enum pair_rfo_mode */
	pthread_barrier_t start;
	u64 ns;
};

struct pair_rfo_arg {
	struct pair_rfo *pr;
	int side;
};

static void *pair_rfo_thread(void *p)
{
	struct pair_rfo_arg *a = p;
	struct pair_rfo *pr = a->pr;
	volatile u64 *r = pr->mode == PAIR_FAR ? &pr->far[0] : &pr->w[8];
	u64 t0 = 0, i, v = 0;

	pin(pr->cpu[a->side]);
	pthread_barrier_wait(&pr->start);
	t0 = lrulab_now_ns();
	for (i = 0; i < PAIR_ROUNDS; i++) {
		u64 want = 2 * i + a->side;

		while (__atomic_load_n(&pr->flag[0], __ATOMIC_ACQUIRE) != want)
			__builtin_ia32_pause();
		if (!a->side) {
			u64 z;

			/*
			 * W's address depends on R's value (z is 0, which the
			 * compiler cannot see), so the two misses do not overlap,
			 * and the handover waits for both.
			 */
			v = *r;
			z = v;
			__asm__ volatile("" : "+r"(z));
			z -= v;
			v += __atomic_load_n(&pr->w[z], __ATOMIC_RELAXED);
			z = v;
			__asm__ volatile("" : "+r"(z));
			z -= v;
			__atomic_store_n(&pr->flag[z], want + 1, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&pr->w[0], i, __ATOMIC_RELAXED);
			if (pr->mode == PAIR_WRITTEN)
				*r = i;
			__atomic_fetch_add(&pr->drain, 1, __ATOMIC_SEQ_CST);
			__atomic_store_n(&pr->flag[0], want + 1, __ATOMIC_RELEASE);
		}
	}
	if (!a->side)
		pr->ns = lrulab_now_ns() - t0;
	return NULL;
}

/* ns a round between CPUs @a and @b, R placed as @mode says */
static double pair_rfo_round(int a, int b, int mode)
{
	struct pair_rfo *pr = aligned_alloc(128, sizeof(*pr));
	struct pair_rfo_arg args[2] = { { pr, 0 }, { pr, 1 } };
	double ns;

	memset(pr, 0, sizeof(*pr));
	pr->cpu[0] = a;
	pr->cpu[1] = b;
	pr->mode = mode;
	pthread_barrier_init(&pr->start, NULL, 2);
	run_two(pair_rfo_thread, &args[0], &args[1]);
	pthread_barrier_destroy(&pr->start);
	ns = (double)pr->ns / PAIR_ROUNDS;
	free(pr);
	return ns;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

/*
 * What a round pays more with R beside W than apart: each run of the
 * three placements back to back gives its own differences, and the
 * median of PAIR_REPS runs' decides (1 where it is over half a
 * transfer), so that a drift of the machine's speed between runs, which
 * moves a round by as much as the difference looked for, cancels within
 * a run.  The probe checks itself: with the writer storing to R too, the
 * round must pay that half transfer, or the probe cannot see one and the
 * key is left out, as it is without a pair of cores or pair prefetch.
 */
#define PAIR_REPS 9

static void measure_pair_rfo(const struct topo *t, struct pred_profile *pf)
{
	struct pred_value *v = &pf->p[PP_PAIR_RFO];
	double d[PAIR_REPS], dw[PAIR_REPS], x = pf->p[PP_XFER_SOCKET].v, md, mw;
	struct pair p;
	int i, on;

	if (!pf->p[PP_PAIR_PREFETCH].v || find_pair(t, PP_XFER_SOCKET, &p))
		return;
	for (i = 0; i < PAIR_REPS; i++) {
		double adj = pair_rfo_round(p.a, p.b, PAIR_ADJACENT);
		double far = pair_rfo_round(p.a, p.b, PAIR_FAR);
		double wr = pair_rfo_round(p.a, p.b, PAIR_WRITTEN);

		d[i] = adj - far;
		dw[i] = wr - far;
	}
	md = median(d, PAIR_REPS);
	mw = median(dw, PAIR_REPS);
	if (mw <= x / 2) {
		fprintf(stderr, "%s: pair_rfo not measured: the probe's check, a line both stored "
			"to and loaded, cost %+.1f ns a turn, not over half a transfer (%.1f)\n",
			PROG, mw, x / 2);
		return;
	}
	on = md > x / 2;
	set(v, on, on, on, "");
	/* median() sorted d: its ends are the runs' range */
	snprintf(v->source, sizeof(v->source), "lrulab calibrate: CPU %d loads a never-written "
		 "line, then one CPU %d stores to, in turns: %+.1f ns a turn with the two in one "
		 "128-byte pair than apart (median of %d runs' differences, range %+.1f to "
		 "%+.1f), against half a transfer, %.1f; the probe's check, the line stored to "
		 "as well: %+.1f", p.a, p.b, md, PAIR_REPS, d[0], d[PAIR_REPS - 1], x / 2, mw);
}

static void measure_xfer(const struct topo *t, struct pred_profile *pf)
{
	static const int cls[] = { PP_XFER_SOCKET, PP_XFER_SMT, PP_XFER_REMOTE };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cls); i++) {
		struct pred_value *v = &pf->p[cls[i]];
		struct pair p;

		if (find_pair(t, cls[i], &p)) {
			/* the class does not exist here: the simulation never uses it */
			set(v, pf->p[PP_XFER_SOCKET].v, pf->p[PP_XFER_SOCKET].lo,
			    pf->p[PP_XFER_SOCKET].hi, "no such pair of processors here; "
			    "xfer_socket_ns, unused for this topology");
			continue;
		}
		repeat(v, xfer_pair, &p);
		snprintf(v->source, sizeof(v->source), "lrulab calibrate: CAS ping-pong CPU %d <-> %d, "
			 "round trip / 2, median of %d (range: min-max)", p.a, p.b, REPS);
	}
}

static void measure_locks(const struct topo *t, struct pred_profile *pf)
{
	double h[MAX_WAITERS + 1], lo[MAX_WAITERS + 1], hi[MAX_WAITERS + 1];
	double x = pf->p[PP_XFER_SOCKET].v, s;
	char src[200];
	int kmax;

	if (t->n < 2) {
		set(&pf->p[PP_HANDOFF_QSPIN], 0, 0, x, "one processor: no handoff to measure");
		set(&pf->p[PP_TICKET_SLOPE], x / 2, 0, x, "one processor: c/2 = xfer/2 (Boyd-Wickizer)");
		set(&pf->p[PP_TAS_BETA], 1, 0, 2, "one processor: not measured");
		return;
	}
	handoffs(t, LOCK_QSPINLOCK, h, lo, hi, &kmax);
	snprintf(src, sizeof(src), "lrulab calibrate: qspinlock release to the waiter's grant, "
		 "1 waiter, median %.1f ns (P10-P90 %.1f-%.1f) less xfer_socket_ns", h[1], lo[1], hi[1]);
	s = h[1] - x;
	set(&pf->p[PP_HANDOFF_QSPIN], s > 0 ? s : 0, lo[1] - x > 0 ? lo[1] - x : 0,
	    hi[1] - x > (s > 0 ? s : 0) ? hi[1] - x : (s > 0 ? s : 0), src);

	handoffs(t, LOCK_TICKET, h, lo, hi, &kmax);
	s = kmax >= 2 ? slope(h, kmax) : h[1] - x;
	if (kmax >= 2)
		snprintf(src, sizeof(src), "lrulab calibrate: ticket handoff against 1..%d waiters, "
			 "least-squares slope", kmax);
	else
		snprintf(src, sizeof(src), "lrulab calibrate: ticket handoff with 1 waiter %.1f ns "
			 "less xfer_socket_ns (no processors for a slope)", h[1]);
	s = s > 0 ? s : 0;
	set(&pf->p[PP_TICKET_SLOPE], s, 0, s * 1.5 + x / 2, src);

	handoffs(t, LOCK_TAS, h, lo, hi, &kmax);
	s = x > 0 ? h[1] / x - 1 : 0;
	snprintf(src, sizeof(src), "lrulab calibrate: test-and-set handoff with 1 waiter "
		 "%.1f ns / xfer_socket_ns - 1", h[1]);
	s = s > 0 ? s : 0;
	set(&pf->p[PP_TAS_BETA], s, 0, s * 1.5 + 0.5, src);
	lock_impl_set(LOCK_QSPINLOCK);
}

static void measure_speed(const struct topo *t, struct pred_profile *pf)
{
	int cpus[LRULAB_MAX_CPUS], i, sib = -1;
	double one, all, mhz = cpuinfo_mhz(), cur = 0;
	char src[200];

	for (i = 0; i < t->n; i++)
		cpus[i] = i;
	{
		double o[REPS], a[REPS];

		/* alternated, medians: other work on the machine comes and goes */
		for (i = 0; i < REPS; i++) {
			o[i] = spin_ns(1, cpus);
			a[i] = spin_ns(t->n, cpus);
		}
		qsort(o, REPS, sizeof(o[0]), cmp_double);
		qsort(a, REPS, sizeof(a[0]), cmp_double);
		one = o[REPS / 2];
		all = a[REPS / 2];
	}
	if (read_int("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", 0, &i) == 0)
		cur = i / 1000.0;
	if (mhz <= 0)
		mhz = cur > 0 ? cur : 1000;
	set(&pf->p[PP_FREQ_ONE], mhz, mhz, mhz, cur > 0 ? "cpufreq scaling_cur_freq" :
	    "/proc/cpuinfo cpu MHz (the system shows no cpufreq)");
	snprintf(src, sizeof(src), "lrulab calibrate: a busy loop %.3f ms alone, %.3f ms with "
		 "all %d processors busy (medians of %d), times freq_one_busy_mhz", one / 1e6,
		 all / 1e6, t->n, REPS);
	set(&pf->p[PP_FREQ_ALL], mhz * one / all, mhz * one / all * 0.95,
	    mhz * one / all > mhz ? mhz * one / all : mhz, src);
	for (i = 1; i < t->n; i++)
		if (t->pkg[i] == t->pkg[0] && t->core[i] == t->core[0])
			sib = i;
	if (sib < 0) {
		set(&pf->p[PP_SMT_SPEED], 1, 1, 1, "no SMT siblings here; unused");
	} else {
		int two[2] = { 0, sib };
		double both = spin_ns(2, two);

		snprintf(src, sizeof(src), "lrulab calibrate: busy loop on CPUs 0 and %d at once "
			 "against CPU 0 alone", sib);
		set(&pf->p[PP_SMT_SPEED], one / both, one / both * 0.9, one / both * 1.1 > 1 ?
		    1 : one / both * 1.1, src);
	}
	set(&pf->p[PP_CORE_SPEED], 1, 1, 1, "the recording machine itself");
}

/* ---- a TLB flush's IPI round ---- */

#define IPI_CALLS 2000

struct ipi_spin {
	int cpu;
	u64 count __attribute__((aligned(128)));
	int stop;
	pthread_barrier_t start;
};

/* the target: in the process, busy, its progress in count */
static void *ipi_spinner(void *p)
{
	struct ipi_spin *sp = p;
	u64 n = 0;

	pin(sp->cpu);
	pthread_barrier_wait(&sp->start);
	while (!__atomic_load_n(&sp->stop, __ATOMIC_RELAXED))
		if (!(++n & 255))
			__atomic_store_n(&sp->count, n, __ATOMIC_RELAXED);
	return NULL;
}

static long membarrier_call(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/* the spinner's iterations per ns over @ns, nothing else asked of it */
static double spin_rate(struct ipi_spin *sp, u64 ns)
{
	u64 c0 = __atomic_load_n(&sp->count, __ATOMIC_RELAXED), t0 = lrulab_now_ns(), t1;

	spin_for(ns);
	t1 = lrulab_now_ns();
	return (double)(__atomic_load_n(&sp->count, __ATOMIC_RELAXED) - c0) / (double)(t1 - t0);
}

/* one round of IPI_CALLS: the call's time less a syscall's, and the target's loss */
static void ipi_round_once(struct ipi_spin *sp, double *round, double *lost)
{
	double before = spin_rate(sp, 20000000), after;
	u64 c0, c1, t0, t1, t2;
	int i;

	c0 = __atomic_load_n(&sp->count, __ATOMIC_RELAXED);
	t0 = lrulab_now_ns();
	for (i = 0; i < IPI_CALLS; i++)
		membarrier_call(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
	t1 = lrulab_now_ns();
	c1 = __atomic_load_n(&sp->count, __ATOMIC_RELAXED);
	for (i = 0; i < IPI_CALLS; i++)
		syscall(__NR_getppid);
	t2 = lrulab_now_ns();
	after = spin_rate(sp, 20000000);
	*round = ((double)(t1 - t0) - (double)(t2 - t1)) / IPI_CALLS;
	*lost = ((double)(t1 - t0) - (double)(c1 - c0) / ((before + after) / 2)) / IPI_CALLS;
	if (*lost < 0)
		*lost = 0;
}

/*
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) IPIs every other CPU
 * that runs the process and waits for each, through the same
 * smp_call_function_many() a TLB flush's IPI round takes: the spinner's
 * time lost per call is a target's, and the caller's wait, less a
 * syscall's and the round's three line transfers and the target's
 * part, the flusher's send.  The flush itself (an INVLPG or a CR3
 * write) is left out: a tiny part of an IPI's cost.
 */
static void measure_ipi(const struct topo *t, struct pred_profile *pf)
{
	double rounds[REPS], lost[REPS], send[REPS], x = pf->p[PP_XFER_SOCKET].v;
	struct ipi_spin *sp;
	struct pair pr;
	pthread_t th;
	char src[400];
	int i;

	if (t->n < 2) {
		fprintf(stderr, "%s: ipi_target_ns and ipi_send_ns not measured: one processor, no IPI to send\n",
			PROG);
		return;
	}
	if (membarrier_call(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		fprintf(stderr, "%s: ipi_target_ns and ipi_send_ns not measured: membarrier: %s\n",
			PROG, strerror(errno));
		return;
	}
	/* a pair of cores, or without one (SMT siblings only) CPUs 0 and 1 */
	if (find_pair(t, PP_XFER_SOCKET, &pr))
		pr = (struct pair){ 0, 1 };
	sp = aligned_alloc(128, sizeof(*sp));
	memset(sp, 0, sizeof(*sp));
	sp->cpu = pr.b;
	pthread_barrier_init(&sp->start, NULL, 2);
	pthread_create(&th, NULL, ipi_spinner, sp);
	pin(pr.a);
	pthread_barrier_wait(&sp->start);
	spin_for(10000000);
	for (i = 0; i < REPS; i++) {
		ipi_round_once(sp, &rounds[i], &lost[i]);
		send[i] = rounds[i] - lost[i] - 3 * x > 0 ? rounds[i] - lost[i] - 3 * x : 0;
	}
	__atomic_store_n(&sp->stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&sp->start);
	free(sp);
	snprintf(src, sizeof(src), "lrulab calibrate: membarrier(PRIVATE_EXPEDITED) from CPU %d, "
		 "an IPI round of smp_call_function_many() as a TLB flush's, to CPU %d spinning "
		 "in the process: the spinner's time lost per call, median of %d (range: min-max); "
		 "the flush's own INVLPG left out", pr.a, pr.b, REPS);
	qsort(lost, REPS, sizeof(lost[0]), cmp_double);
	set(&pf->p[PP_IPI_TARGET], lost[REPS / 2], lost[0], lost[REPS - 1], src);
	snprintf(src, sizeof(src), "lrulab calibrate: the same call's time less a getppid's, "
		 "the target's and three line transfers (xfer_socket_ns): the flusher's own part "
		 "of the round, median of %d (range: min-max)", REPS);
	qsort(send, REPS, sizeof(send[0]), cmp_double);
	set(&pf->p[PP_IPI_SEND], send[REPS / 2], send[0], send[REPS - 1], src);
}

enum { OPT_OUT = 1, OPT_NAME };

static const struct cmd_opt calibrate_opts[] = {
	{ "out", "FILE", OPT_OUT, "where the profile goes ('-': standard output); required" },
	{ "name", "NAME", OPT_NAME, "the profile's name (default this-machine)" },
	{ NULL },
};

static const struct cmd_spec calibrate_spec = {
	.prog = PROG,
	.about = "Measures this machine (line transfer per class of processor pair, lock\n"
		 "handoff against waiters per implementation, the clock's cost, busy-loop speed\n"
		 "with one and with every processor busy, a locked cmpxchg on a line the core\n"
		 "holds, an IPI round's time on its target and on its sender, through\n"
		 "membarrier's) and writes it as a machine profile for lrulab predict --machine.",
	.opts = calibrate_opts,
};

int cmd_calibrate(int argc, char **argv)
{
	const char *out = NULL, *name = "this-machine", *arg;
	struct cmd_parser cp;
	struct pred_profile pf;
	struct out_file of;
	struct topo t;
	FILE *f;
	int i, c;

	cmd_parse_init(&cp, &calibrate_spec, argc, argv);
	while ((c = cmd_parse_next(&cp, &arg)) != CMD_OPT_END) {
		switch (c) {
		case CMD_OPT_HELP:
			return 0;
		case CMD_OPT_ERROR:
			return 2;
		case OPT_OUT:
			out = arg;
			break;
		case OPT_NAME:
			name = arg;
			break;
		}
	}
	if (cmd_parse_end(&cp))
		return 2;
	if (!out) {
		fprintf(stderr, "%s: --out FILE is required\n", PROG);
		return 2;
	}
	/* a name predict reads back: one line, not empty, no blanks at its ends */
	if (!*name || strlen(name) >= sizeof(pf.name) || strchr(name, '\n') ||
	    isspace((unsigned char)name[0]) || isspace((unsigned char)name[strlen(name) - 1])) {
		fprintf(stderr, "%s: --name '%s': 1 to %zu bytes on one line, without blanks at its ends\n",
			PROG, name, sizeof(pf.name) - 1);
		return 2;
	}
	/* where the profile goes is checked before minutes of measuring */
	if (strcmp(out, "-") && out_path_check(PROG, "--out", out))
		return 2;
	memset(&pf, 0, sizeof(pf));
	snprintf(pf.name, sizeof(pf.name), "%s", name);
	bench_machine_describe(pf.description, sizeof(pf.description));
	read_topo(&t);
	lrulab_clock_init();
	lockstat_set_mode(LOCKSTAT_OFF);
	{
		int pk[LRULAB_MAX_CPUS] = { 0 }, np = 0, j, sib = 0;

		for (i = 0; i < t.n; i++) {
			for (j = 0; j < np && pk[j] != t.pkg[i]; j++)
				;
			if (j == np)
				pk[np++] = t.pkg[i];
			sib += t.pkg[i] == t.pkg[0] && t.core[i] == t.core[0];
		}
		pf.sockets = np;
		pf.threads_per_core = sib ? sib : 1;
		pf.cores_per_socket = t.n / np / pf.threads_per_core;
		if (pf.cores_per_socket < 1)
			pf.cores_per_socket = 1;
		pf.order = t.n > 1 && t.pkg[1] == t.pkg[0] && t.core[1] == t.core[0] ?
			   PRED_ORDER_SMT_ADJACENT : PRED_ORDER_SMT_LAST;
	}
	measure_xfer(&t, &pf);
	measure_locks(&t, &pf);
	measure_speed(&t, &pf);
	pred_measure_locked_rmw(&pf.p[PP_LOCKED_RMW]);
	pair_prefetch(&pf);
	measure_pair_rfo(&t, &pf);
	measure_ipi(&t, &pf);
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	if (!strcmp(out, "-")) {
		pred_profile_write(stdout, &pf);
		return fflush(stdout) ? 1 : 0;
	}
	/* written whole under a temporary name, then renamed to @out */
	f = out_open(PROG, out, &of);
	if (!f)
		return 1;
	pred_profile_write(f, &pf);
	return out_commit(PROG, &of) ? 1 : 0;
}
