// SPDX-License-Identifier: MIT
/*
 * `lrulab repro ... --predict`: beside each published row and ours, the
 * row the predictor gives at the mail's CPU count on the mail's machine
 * profile, from one-thread recordings made here before and after the
 * switch.  Before and after are simulated with the same draws of the
 * machine, so the band of the delta is that of paired differences.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/host.h"
#include "bench/repro.h"
#include "predict-internal.h"

#define REPRO_DRAWS 6
/* per side: the band holds the spread between recordings too */
#define REPRO_RECORDINGS 3
/*
 * With --fit the lock is saturated at the fitted speed, so a row goes as
 * one over the recorded hold, and one side's median of three recordings
 * held 20% over the others' in one run of four: five a side.
 */
#define REPRO_FIT_RECORDINGS 5
/* s1's usemem recordings take seconds each */
#define REPRO_S1_RECORDINGS 2

/*
 * What this run takes: the above, or with --quick (the whole path in
 * seconds, for tests; its figures mean nothing) one recording a side
 * and two draws, a seventh of the simulations.
 */
static int repro_draws = REPRO_DRAWS;
static int repro_recordings = REPRO_RECORDINGS;
static int repro_s1_recordings = REPRO_S1_RECORDINGS;

struct side {
	struct pred_recording rec[REPRO_FIT_RECORDINGS];
	int nr;
};

static void side_free(struct side *s)
{
	while (s->nr)
		pred_recording_free(&s->rec[--s->nr]);
}

/*
 * Both sides of a switch, recorded alternately: this machine's speed
 * drifts with its neighbours' load, by 10-30% between recordings a
 * second apart, and recording one side after the other put the drift
 * into the delta (a switch that leaves 4K folios alone came out +15% to
 * +22%).  The paired band pairs recording k of each side.
 */
static int record_sides(const struct repro_opts *ro, const char *workload, bool shmem,
			unsigned int order, const char *sw, struct side s[2])
{
	const struct bench_workload *w = bench_find_workload(workload);
	enum lrulab_switch which;
	struct bench_opts o[2];
	const char *work;
	int k;

	if (lrulab_switch_parse(sw, &which))
		return -1;
	work = repro_fault_work(ro, workload, shmem ? "shmem" : "anon", order);
	for (k = 0; k < 2; k++) {
		bench_defaults(w, &o[k]);
		o[k].shmem = shmem;
		o[k].folio_order = order;
		o[k].threads[0] = 1;
		o[k].nr_threads = 1;
		o[k].memcgs = 1;
		o[k].loops = 0;
		o[k].seconds = ro->quick ? 0.05 : 0.3;
		o[k].mem = ro->mem_bytes;
		o[k].sw[which] = k;
		if (work)
			o[k].fault_work_ns = strtoul(work, NULL, 10);
	}
	return pred_record_alternately(REPRO_PROG, w, o, repro_recordings,
				       (struct pred_recording *[2]){ s[0].rec, s[1].rec },
				       (int *[2]){ &s[0].nr, &s[1].nr });
}

/* P10 and P90 of the paired deltas and the central one (@cb, @ca), in percent */
static void paired_band(double cb, double ca, const double *b, const double *a, int n,
			double *lo, double *hi)
{
	double d[PRED_MAX_DRAWS + 1];
	int i, k = 0;

	if (cb > 0)
		d[k++] = 100.0 * (ca - cb) / cb;

	for (i = 0; i < n; i++)
		if (b[i] > 0)
			d[k++] = 100.0 * (a[i] - b[i]) / b[i];
	if (!k) {
		*lo = *hi = NAN;
		return;
	}
	qsort(d, k, sizeof(d[0]), cmp_double);
	*lo = d[(k - 1) / 10];
	*hi = d[k - 1 - (k - 1) / 10];
}

/*
 * A row at @at, beside the published figure it predicts (@pub_before,
 * @pub_after; NAN where the mail has none): never the row above's, which
 * may be another quantity (s4's microbenchmark beside Graph500's counts).
 */
static struct repro_row *insert_at(struct repro_table *t, const char *unit, int at,
				   double pub_before, double pub_after)
{
	if (t->nr_rows >= REPRO_MAX_ROWS)
		return NULL;
	memmove(&t->rows[at + 1], &t->rows[at], (t->nr_rows - at) * sizeof(t->rows[0]));
	t->nr_rows++;
	memset(&t->rows[at], 0, sizeof(t->rows[at]));
	t->rows[at].unit = unit;
	t->rows[at].pub_before = pub_before;
	t->rows[at].pub_after = pub_after;
	return &t->rows[at];
}

/* the index after the last row whose label starts with @prefix (of @unit, or any: NULL), or -1 */
static int row_after(const struct repro_table *t, const char *unit, const char *prefix)
{
	int i, at = -1;

	for (i = 0; i < t->nr_rows; i++)
		if ((!unit || !strcmp(t->rows[i].unit, unit)) &&
		    !strncmp(t->rows[i].label, prefix, strlen(prefix)))
			at = i + 1;
	return at;
}

/* a row after the last one whose label starts with @after_prefix (unit @unit), else last */
static struct repro_row *insert_row(struct repro_table *t, const char *unit,
				    const char *after_prefix, double pub_before,
				    double pub_after)
{
	int at = row_after(t, unit, after_prefix);

	return insert_at(t, unit, at < 0 ? t->nr_rows : at, pub_before, pub_after);
}

/*
 * --calibrate: lru_lock's hold at the kernel's cost, as the kernel/lrulab
 * ratio of its hold per page that host_lru_hold_ratio() measures at one
 * thread of the host's fault-free shape (which is s4's microbenchmark
 * too: write every page, MADV_DONTNEED), the kernel's from timer samples
 * under perf record, lrulab with the calibrated fault work; the median
 * of REPRO_RATIO_RUNS, each in *@each.  0 (lrulab's own holds) without
 * --calibrate or when every run failed.  Five: one run's lru_lock share
 * is some 200 samples, a few percent either way; --quick takes one short
 * run, whose figure means nothing.
 */
#define REPRO_RATIO_RUNS 5

static double kernel_hold_ratio(const struct repro_opts *ro, bool shmem, unsigned int order,
				double *each, int *nr)
{
	const char *work = repro_fault_work(ro, "fault-free", shmem ? "shmem" : "anon", order);
	struct host_opts o = {
		.shmem = shmem, .folio_order = order, .mem = 16UL << 20,
		.seconds = ro->quick ? 0.2 : 1,
		.fault_work_ns = work ? strtoul(work, NULL, 10) : 0,
	};
	double v[REPRO_RATIO_RUNS];
	int k, runs = ro->quick ? 1 : REPRO_RATIO_RUNS;

	*nr = 0;
	if (!ro->calibrate)
		return 0;
	if (ro->progress) {
		fprintf(ro->progress, "  measuring lru_lock's kernel/lrulab hold, %s %luK, 1 thread under perf record\n",
			shmem ? "shmem" : "anon", (PAGE_SIZE << order) >> 10);
		fflush(ro->progress);
	}
	for (k = 0; k < runs; k++)
		if (!host_lru_hold_ratio(REPRO_PROG, &o, &each[*nr])) {
			v[*nr] = each[*nr];
			(*nr)++;
		}
	if (!*nr)
		return 0;
	qsort(v, *nr, sizeof(v[0]), cmp_double);
	return v[(*nr - 1) / 2];
}

/* --calibrate: the ratio a prediction used, and the runs it is the median of */
static void ratio_note(const struct repro_opts *ro, struct repro_table *t, const char *type,
		       unsigned int order, double ratio, const double *each, int nr)
{
	char runs[64];
	size_t n = 0;
	int d;

	if (!ro->calibrate)
		return;
	runs[0] = 0;
	for (d = 0; d < nr; d++)
		n += (size_t)snprintf(runs + n, sizeof(runs) - n, "%s%.2f", d ? ", " : "", each[d]);
	if (ratio > 0)
		repro_table_note(t, "predicted %s %luK: lru_lock's holds x %.2f, the kernel's over lrulab's per page (median of %s: host --perf-hold at one thread here)",
				 type, (PAGE_SIZE << order) >> 10, ratio, runs);
	else
		repro_table_note(t, "predicted %s %luK: lru_lock's holds lrulab's own: no kernel/lrulab ratio (no run measured a hold on both sides)",
				 type, (PAGE_SIZE << order) >> 10);
}

/*
 * The target's speed, --fit's one free parameter: with lrulab's own
 * holds the one-thread rate (the work outside the locks set for it), with
 * the kernel's holds and work as measured here (--calibrate) the core's
 * speed over this machine's, which takes holds and work alike; zeros:
 * the profile's.
 */
struct speed {
	double rate, core;
};

/* Both sides at @cpus; @sp[2]: their speeds (--fit), or NULL */
static int points(const struct side *s, const struct pred_profile *pf, int cpus,
		  double ratio, const struct speed *sp, struct pred_point *before,
		  struct pred_point *after)
{
	struct pred_model_opts mo = {
		.impl = s[0].rec[0].lock_impl, .draws = repro_draws, .seed = 1,
		.lru_hold_ratio = ratio, .single_thread_rate = sp ? sp[0].rate : 0,
		.core_speed = sp ? sp[0].core : 0,
	};

	if (pred_model_pooled(s[0].rec, s[0].nr, pf, cpus, &mo, before))
		return -1;
	mo.impl = s[1].rec[0].lock_impl;
	mo.single_thread_rate = sp ? sp[1].rate : 0;
	mo.core_speed = sp ? sp[1].core : 0;
	if (pred_model_pooled(s[1].rec, s[1].nr, pf, cpus, &mo, after)) {
		pred_point_free(before);
		return -1;
	}
	return 0;
}

static int load_profile(const char *name, struct pred_profile *pf)
{
	char path[4096];

	if (pred_profile_find(name, path, sizeof(path))) {
		fprintf(stderr, "%s: --predict: no machine profile '%s' (profiles/ of the source tree)\n",
			REPRO_PROG, name);
		return -1;
	}
	return pred_profile_read(REPRO_PROG, path, pf);
}

static void fill(struct repro_row *row, double b, double a, const double *db,
		 const double *da, int n)
{
	row->before = b;
	row->after = a;
	row->delta_pct = b ? 100.0 * (a - b) / b : NAN;
	row->n = n;
	row->predicted = true;
	paired_band(b, a, db, da, n, &row->ci_low_pct, &row->ci_high_pct);
}

/* A side's figures at one CPU count, what s0's rows print */
struct side_fig {
	double pps, spin;	/* central: pages/s, the CPUs' share spinning on lru_lock */
	double draws[PRED_MAX_DRAWS], draws_spin[PRED_MAX_DRAWS];
	int nr_draws;
	char bottleneck[192];	/* the busiest shared lock, and its load */
	double load;
	double vma;		/* the CPUs' share in the VMA refcount line's visits */
	double hold_pp;		/* lru_lock's hold per page, ns: every site's, stalls in */
	double steal_pp;	/* of which holders' stalls on lines read in the section */
};

/* the share of the CPUs' time spent waiting for lru_lock, as perf's cycles see it */
static double spin_share(double wait_ns_per_page, double pps, int cpus)
{
	return wait_ns_per_page * pps / 1e9 / cpus;
}

/*
 * lru_lock's hold per page over every lock instance: with one lock a
 * node, each serving its node's pages, also each node's serial time a page
 */
static double lru_hold_per_page(const struct pred_point *pt)
{
	return pt->table.pages ? (double)pt->table.lru.hold_total_ns / pt->table.pages : 0;
}

/*
 * A side at @cpus: both placements of mem_cgroup_per_node (as recorded,
 * and 64 bytes the other way), averaged, as the s0 and s3 mails' 7 memcgs
 * a run landed at both; each its recordings pooled, each draw of the
 * machine the same for every side and placement.  @sp: the speed --fit
 * chose (NULL or zeros: the profile's); @draws 0: the central figures only,
 * which --fit bisects on.
 */
static int placements_fig(const struct side *s, const struct pred_profile *pf, int cpus,
			  double ratio, const struct speed *sp, int draws, struct side_fig *f)
{
	struct pred_point pt[2];
	int k, d;

	memset(f, 0, sizeof(*f));
	for (k = 0; k < 2; k++) {
		struct pred_model_opts mo = {
			.impl = s->rec[0].lock_impl, .draws = draws, .seed = 1,
			.other_placement = k, .lru_hold_ratio = ratio,
			.single_thread_rate = sp ? sp->rate : 0, .core_speed = sp ? sp->core : 0,
		};

		if (pred_model_pooled(s->rec, s->nr, pf, cpus, &mo, &pt[k])) {
			if (k)
				pred_point_free(&pt[0]);
			return -1;
		}
	}
	f->pps = (pt[0].pages_per_sec + pt[1].pages_per_sec) / 2;
	f->spin = (spin_share(pt[0].lru_wait_ns_per_page, pt[0].pages_per_sec, cpus) +
		   spin_share(pt[1].lru_wait_ns_per_page, pt[1].pages_per_sec, cpus)) / 2;
	f->nr_draws = pt[0].nr_draws < pt[1].nr_draws ? pt[0].nr_draws : pt[1].nr_draws;
	for (d = 0; d < f->nr_draws; d++) {
		f->draws[d] = (pt[0].draws[d] + pt[1].draws[d]) / 2;
		f->draws_spin[d] = (spin_share(pt[0].draws_lru_wait[d], pt[0].draws[d], cpus) +
				    spin_share(pt[1].draws_lru_wait[d], pt[1].draws[d], cpus)) / 2;
	}
	f->vma = (pt[0].ev_share[PRED_EV_VMA_REFCNT] + pt[1].ev_share[PRED_EV_VMA_REFCNT]) / 2;
	f->hold_pp = (lru_hold_per_page(&pt[0]) + lru_hold_per_page(&pt[1])) / 2;
	f->steal_pp = (pt[0].steal_ns_per_page + pt[1].steal_ns_per_page) / 2;
	k = pt[1].load > pt[0].load;
	snprintf(f->bottleneck, sizeof(f->bottleneck), "%s", pt[k].bottleneck);
	f->load = pt[k].load;
	pred_point_free(&pt[0]);
	pred_point_free(&pt[1]);
	return 0;
}

/*
 * A side's central pages/s at @cpus at speed @sp (NULL: the profile's),
 * both placements averaged (s0) or as recorded (s4).
 */
static int central_pps(const struct side *s, const struct pred_profile *pf, int cpus,
		       double ratio, const struct speed *sp, bool placements, double *pps)
{
	struct side_fig f;
	struct pred_point pt;
	struct pred_model_opts mo = {
		.impl = s->rec[0].lock_impl, .seed = 1, .lru_hold_ratio = ratio,
		.single_thread_rate = sp ? sp->rate : 0, .core_speed = sp ? sp->core : 0,
	};

	if (placements) {
		if (placements_fig(s, pf, cpus, ratio, sp, 0, &f))
			return -1;
		*pps = f.pps;
		return 0;
	}
	if (pred_model_pooled(s->rec, s->nr, pf, cpus, &mo, &pt))
		return -1;
	*pps = pt.pages_per_sec;
	pred_point_free(&pt);
	return 0;
}

/*
 * --fit: the target's speed, which no mail gives, as a factor.  With
 * lrulab's own holds (@ratio 0) it is over lrulab's one-thread rate here
 * and sets the work outside the locks alone: lrulab's holds are no
 * kernel's, whatever the speed.  With the kernel's (@ratio > 0, measured
 * here beside the kernel's work, --calibrate) it is the core's speed
 * over this machine's, which the holds take as the work does.  The
 * factor at which side @fs's central prediction at @cpus makes the
 * published @want pages/s, by bisection on its logarithm (pages/s rise
 * with the speed).  Both sides take the same factor, so the switch's
 * effect at one thread is the one recorded alternately here.  Into
 * @sp[2] the sides' speeds, *@factor the factor; 1 when no factor up to
 * FIT_MAX reaches @want (the model's ceiling at @cpus is below the
 * published figure), with @sp[] zeros and *@ceiling that ceiling.  0
 * fitted, 1 not reachable, -1 after one error line.
 */
#define FIT_MIN 1e-3
#define FIT_MAX 8.0
#define FIT_TOLERANCE 1.002

static struct speed speed_at(double factor, const double own[2], int k, bool core)
{
	struct speed sp = { 0, 0 };

	if (core)
		sp.core = factor;
	else
		sp.rate = factor * own[k];
	return sp;
}

static int fit_speed(const struct side s[2], int fs, const struct pred_profile *pf, int cpus,
		     double ratio, bool placements, double want, struct speed sp[2],
		     double *factor, double *ceiling)
{
	double own[2] = { 0, 0 }, lo = FIT_MIN, hi = FIT_MAX, got;
	bool core = ratio > 0;
	struct speed at;
	int k;

	for (k = 0; !core && k < 2; k++)
		if (central_pps(&s[k], pf, 1, ratio, NULL, placements, &own[k]) || own[k] <= 0)
			return -1;
	at = speed_at(hi, own, fs, core);
	if (central_pps(&s[fs], pf, cpus, ratio, &at, placements, &got))
		return -1;
	if (got < want) {
		memset(sp, 0, 2 * sizeof(*sp));
		*factor = 0;
		*ceiling = got;
		return 1;
	}
	while (hi / lo > FIT_TOLERANCE) {
		double mid = sqrt(lo * hi);

		at = speed_at(mid, own, fs, core);
		if (central_pps(&s[fs], pf, cpus, ratio, &at, placements, &got))
			return -1;
		if (got < want)
			lo = mid;
		else
			hi = mid;
	}
	*factor = sqrt(lo * hi);
	for (k = 0; k < 2; k++)
		sp[k] = speed_at(*factor, own, k, core);
	return 0;
}

/*
 * --fit's outcome, one note: what was fitted on which row, or why nothing
 * was; @core: the core's speed was the factor (the kernel's holds)
 */
static void fit_note(struct repro_table *t, const char *what, int fitted, bool core,
		     const struct speed sp[2], double factor, double ceiling, double want)
{
	if (fitted == 0 && core)
		repro_table_note(t, "fitted: %s: the target's core speed, %.3f x this machine's, which lru_lock's holds (the kernel's, as measured here) take as the work does (the kernel's: --calibrate's fault work), so that the predicted after row makes the mail's %.2fM pages/s; that figure is no check, the others are",
				 what, factor, want / 1e6);
	else if (fitted == 0)
		repro_table_note(t, "fitted: %s: the target's one-thread speed, %.3f x lrulab's here (%.0fK pages/s before, %.0fK after), so that the predicted after row makes the mail's %.2fM pages/s; that figure is no check, the others are",
				 what, factor, sp[0].rate / 1e3, sp[1].rate / 1e3, want / 1e6);
	else
		repro_table_note(t, "fitted: %s: no %s up to %g x %s here makes the mail's %.2fM (the model's ceiling there: %.2fM, a miss); its rows are predicted at %s",
				 what, core ? "core speed" : "speed", FIT_MAX,
				 core ? "this machine's" : "lrulab's", want / 1e6, ceiling / 1e6,
				 core ? "this machine's speed" : "lrulab's own speed");
}

/*
 * "predicted/published NAME: B (before), A (after), the delta's sign
 * right" into @t's notes; @fixed_side names a side whose figure is fixed
 * by its inputs (NULL: none), which checks nothing.
 */
static void check_note(struct repro_table *t, const char *name, const struct repro_row *r,
		       const char *fixed_side)
{
	double pd;

	if (!r || isnan(r->pub_before) || isnan(r->pub_after) || !r->pub_before ||
	    !r->pub_after || r->fixed_by_inputs || r->fitted)
		return;
	pd = r->pub_after - r->pub_before;
	repro_table_note(t, "check: %s predicted/published %.2f before, %.2f after; delta %+.1f%% (mail %+.1f%%), its sign %s%s%s%s",
			 name, r->before / r->pub_before, r->after / r->pub_after, r->delta_pct,
			 100.0 * pd / r->pub_before,
			 (r->after - r->before) * pd > 0 ? "right" : "wrong",
			 fixed_side ? "; the " : "", fixed_side ? fixed_side : "",
			 fixed_side ? " side saturated, fixed by its inputs: only the other checks" : "");
}

/* A row whose after side --fit fitted: its before side and the delta still check */
static void fitted_check_note(struct repro_table *t, const char *name, struct repro_row *r)
{
	double pd = r->pub_after - r->pub_before;

	r->fitted = true;
	repro_table_note(t, "check: %s predicted/published %.2f before (after fitted); delta %+.1f%% (mail %+.1f%%), its sign %s",
			 name, r->before / r->pub_before, r->delta_pct, 100.0 * pd / r->pub_before,
			 (r->after - r->before) * pd > 0 ? "right" : "wrong");
}

/* The mail's row of @type at @threads */
static const struct s0_published *s0_row(const char *type, int threads)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s0_published); i++)
		if (!strcmp(s0_published[i].type, type) && s0_published[i].mail_threads == threads)
			return &s0_published[i];
	return NULL;
}

/*
 * --fit for one workload of s0: fitted on its 20-thread after row, the
 * one the locks weigh least in (the fewest threads; the stats out of the
 * hold).  @sp[] stays zeros without --fit or when the fit cannot reach.
 */
static int s0_fit(const struct repro_opts *ro, struct repro_table *t, const struct side s[2],
		  const struct pred_profile *pf, const char *type, double ratio, struct speed sp[2])
{
	const struct s0_published *p = s0_row(type, 20);
	double factor, ceiling;
	char what[48];
	int fitted;

	memset(sp, 0, 2 * sizeof(*sp));
	if (!ro->fit || !p)
		return 1;
	fitted = fit_speed(s, 1, pf, p->mail_threads, ratio, true, p->after, sp, &factor,
			   &ceiling);
	if (fitted < 0)
		return -1;
	snprintf(what, sizeof(what), "%s, %d threads", type, p->mail_threads);
	fit_note(t, what, fitted, ratio > 0, sp, factor, ceiling, p->after);
	return fitted;
}

/* the row of a side pair at one of the mail's rows */
static void s0_pages_row(struct repro_table *t, const struct pred_profile *pf,
			 const struct s0_published *p, const struct side_fig f[2], bool fitted)
{
	struct repro_row *row;
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "%s, %d threads", p->type, p->mail_threads);
	row = insert_row(t, "pages/s", prefix, p->before, p->after);
	if (!row)
		return;
	snprintf(row->label, sizeof(row->label), "  predicted: %d CPUs of %.24s", p->mail_threads,
		 pf->name);
	fill(row, f[0].pps, f[1].pps, f[0].draws, f[1].draws,
	     f[0].nr_draws < f[1].nr_draws ? f[0].nr_draws : f[1].nr_draws);
	snprintf(prefix, sizeof(prefix), "%s %d", p->type, p->mail_threads);
	if (!fitted) {
		check_note(t, prefix, row, NULL);
		return;
	}
	fitted_check_note(t, prefix, row);
}

/*
 * The 80/20-thread ratio, and what bounds 80: the larger of the CPUs'
 * time spinning on lru_lock and visiting the shared VMA's refcount line
 * (anon's threads fault one VMA), before the patch.
 */
static void s0_ratio_note(struct repro_table *t, const char *type,
			  const struct s0_published *p20, const struct s0_published *p80,
			  const struct side_fig f20[2], const struct side_fig f80[2])
{
	const struct side_fig *b = &f80[0];
	const char *top = b->vma > b->spin ? "the VMA's refcount line" : "lru_lock";

	repro_table_note(t, "check: %s 80/20 threads predicted %.2f before, %.2f after (mail %.2f, %.2f); at 80 before, %s bounds it: the CPUs' time spinning on lru_lock %.1f%%, on the VMA's refcount line %.1f%%; the busiest shared lock %s (load %.2f)",
			 type, f80[0].pps / f20[0].pps, f80[1].pps / f20[1].pps,
			 p80->before / p20->before, p80->after / p20->after, top,
			 100 * b->spin, 100 * b->vma, b->bottleneck, b->load);
}

/*
 * The mail's profile at 80 shmem threads, before: 52.8% of all cycles
 * spinning on lru_lock, beside the predicted CPUs' share waiting for it.
 */
static void s0_spin_row(struct repro_table *t, const struct side_fig f[2])
{
	double db[PRED_MAX_DRAWS], da[PRED_MAX_DRAWS];
	struct repro_row *row = insert_row(t, "%", "shmem, 80", S0_PUBLISHED_LRU_SPIN_PCT, NAN);
	int d, n = f[0].nr_draws < f[1].nr_draws ? f[0].nr_draws : f[1].nr_draws;

	if (!row)
		return;
	for (d = 0; d < n; d++) {
		db[d] = 100 * f[0].draws_spin[d];
		da[d] = 100 * f[1].draws_spin[d];
	}
	snprintf(row->label, sizeof(row->label), "  predicted: 80 CPUs, cycles spinning on lru_lock");
	fill(row, 100 * f[0].spin, 100 * f[1].spin, db, da, n);
	repro_table_note(t, "check: shmem 80 share of cycles spinning on lru_lock predicted %.1f%% before (mail %.1f%%), %.1f%% after (the mail gives none)",
			 100 * f[0].spin, S0_PUBLISHED_LRU_SPIN_PCT, 100 * f[1].spin);
}

/*
 * The mail's other figure from that profile: about a quarter of the hold
 * is the stat updates the patch takes out.  Beside it the hold per page
 * the prediction takes out, and the bound the mail's own rate sets on a
 * node's lock if it is saturated, as the spin share says: a node's lock
 * serves its node's share of the pages one hold at a time.
 */
static void s0_hold_note(struct repro_table *t, const struct pred_profile *pf,
			 const struct s0_published *p80, const struct side_fig f[2])
{
	double bound = pf->sockets / p80->before * 1e9;

	if (f[0].hold_pp <= 0)
		return;
	repro_table_note(t, "check: shmem 80 lru_lock's hold per page (a node's lock, its node's pages) predicted %.0f ns before, %.0f ns after: the patch takes %.1f%% of it out (mail: about %.0f%% of the hold in folio_batch_move_lru and folios_put_refs is the stat updates); saturated, as the mail's %.1f%% spin says, the mail's before rate gives a node's lock %.0f ns a page (%d nodes / %.2fM/s); of the predicted hold, holders' stalls on their lines read by others %.0f ns before, %.0f ns after",
			 f[0].hold_pp, f[1].hold_pp, 100 * (1 - f[1].hold_pp / f[0].hold_pp),
			 S0_PUBLISHED_STAT_HOLD_PCT, S0_PUBLISHED_LRU_SPIN_PCT, bound, pf->sockets,
			 p80->before / 1e6, f[0].steal_pp, f[1].steal_pp);
}

/*
 * A core's speed is the machine's, not a workload's: with the kernel's
 * holds it is fitted once, on shmem's row, and anon's rows check it.
 * What anon's own row would have fitted says how far the two disagree.
 */
static int s0_core_taken(struct repro_table *t, const struct side s[2],
			 const struct pred_profile *pf, double ratio, const struct speed *core,
			 struct speed sp[2])
{
	const struct s0_published *p = s0_row("anon", 20);
	struct speed own[2];
	double factor, ceiling;
	int fitted = fit_speed(s, 1, pf, p->mail_threads, ratio, true, p->after, own, &factor,
			       &ceiling);

	if (fitted < 0)
		return -1;
	sp[0] = sp[1] = *core;
	if (fitted)
		repro_table_note(t, "fitted: anon takes the core speed fitted on shmem's row, %.3f x this machine's (one machine): every anon row checks it; anon's own 20-thread after row reaches no core speed up to %g x (ceiling %.2fM)",
				 core->core, FIT_MAX, ceiling / 1e6);
	else
		repro_table_note(t, "fitted: anon takes the core speed fitted on shmem's row, %.3f x this machine's (one machine): every anon row checks it; anon's own 20-thread after row would fit %.3f x, %.2f of shmem's",
				 core->core, factor, factor / core->core);
	return 0;
}

static int predict_s0(const struct repro_opts *ro, struct repro_table *t)
{
	struct speed core = { 0, 0 };
	struct pred_profile pf;
	int k;

	if (load_profile("skylake-2s-80", &pf))
		return -1;
	for (k = 0; k < 2; k++) {
		const char *type = k ? "anon" : "shmem";
		double each[REPRO_RATIO_RUNS], ratio;
		struct speed sp[2];
		struct side_fig f20[2], f80[2];
		struct side s[2];
		int err = 0, nr_each, fitted = 1, j;

		memset(s, 0, sizeof(s));
		ratio = kernel_hold_ratio(ro, !k, 0, each, &nr_each);
		ratio_note(ro, t, type, 0, ratio, each, nr_each);
		if (ro->progress) {
			fprintf(ro->progress, "  predicting %s: recording 1 thread before and after%s\n",
				type, ro->fit ? ", fitting its speed" : "");
			fflush(ro->progress);
		}
		if (record_sides(ro, "fault-free", !k, 0, "lru-stat-batch", s))
			err = -1;
		if (!err && k && ratio > 0 && core.core > 0) {
			err = s0_core_taken(t, s, &pf, ratio, &core, sp);
		} else if (!err) {
			fitted = s0_fit(ro, t, s, &pf, type, ratio, sp);
			err = fitted < 0;
			if (!fitted && ratio > 0)
				core = sp[0];
		}
		for (j = 0; !err && j < 2; j++)
			if (placements_fig(&s[j], &pf, 20, ratio, &sp[j], repro_draws, &f20[j]) ||
			    placements_fig(&s[j], &pf, 80, ratio, &sp[j], repro_draws, &f80[j]))
				err = -1;
		if (!err) {
			const struct s0_published *p20 = s0_row(type, 20), *p80 = s0_row(type, 80);

			s0_pages_row(t, &pf, p20, f20, fitted == 0);
			s0_pages_row(t, &pf, p80, f80, false);
			if (!k) {
				s0_spin_row(t, f80);
				s0_hold_note(t, &pf, p80, f80);
			}
			s0_ratio_note(t, type, p20, p80, f20, f80);
		}
		side_free(&s[0]);
		side_free(&s[1]);
		if (err)
			return -1;
	}
	return 0;
}

/*
 * Whether a side's contended count is fixed by its inputs: the lock is
 * saturated in the central simulation and every draw, so (nearly) every
 * acquisition contends and the count is the recording's acquisitions per
 * page times the pages, whatever the machine (doubling every transfer
 * and handoff leaves it where it is).  Nearly: within SATURATED of that
 * bound the figure can move by less than a tenth, so it cannot miss the
 * 25% a check allows and is no check.
 */
#define SATURATED 0.9

static bool contended_saturated(const struct pred_point *pt)
{
	double acq = pt->lru_acquired_per_page;
	int d;

	if (acq <= 0 || pt->lru_contended_per_page < SATURATED * acq)
		return false;
	for (d = 0; d < pt->nr_draws; d++)
		if (pt->draws_contended[d] < SATURATED * acq)
			return false;
	return true;
}

/*
 * --fit for s4: on the mail's folio size (@mail, sizes come 16K first)
 * the factor that makes its after run take the mail's 16.29 s, the side
 * lru_lock weighs least in; the other sizes take that factor over their
 * own one-thread speed, or take it as the core's speed (*@factor, 0 when
 * the fit cannot reach).  @sp[] the sides' speeds; 0, 1 (not fitted) or
 * -1 after one error line.
 */
static int s4_fit(struct repro_table *t, const struct side s[2], const struct pred_profile *pf,
		  double ratio, bool mail, double *factor, struct speed sp[2])
{
	double want = S4_MAIL_PAGES / S4_REAL_AFTER, own[2] = { 0, 0 }, ceiling;
	int k, fitted;

	if (!mail) {
		for (k = 0; k < 2 && *factor > 0 && ratio <= 0; k++)
			if (central_pps(&s[k], pf, 1, ratio, NULL, false, &own[k]))
				return -1;
		for (k = 0; k < 2 && *factor > 0; k++)
			sp[k] = speed_at(*factor, own, k, ratio > 0);
		return 1;
	}
	fitted = fit_speed(s, 1, pf, S4_MAIL_THREADS, ratio, false, want, sp, factor, &ceiling);
	if (fitted >= 0)
		fit_note(t, "16K, 20 threads", fitted, ratio > 0, sp, *factor, ceiling, want);
	return fitted;
}

/*
 * s4's microbenchmark: 20 threads x 1000 loops x 16 MiB, each thread the
 * same pages, all at once: the run's real time is its pages over the
 * predicted rate of 20 CPUs.
 */
static int predict_s4(const struct repro_opts *ro, struct repro_table *t)
{
	static const unsigned long sizes[] = { 16384, 4096, 65536 };
	struct pred_profile pf;
	double factor = 0;
	size_t i;

	if (load_profile("skylake-2s-80", &pf))
		return -1;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned int order = (unsigned int)__builtin_ctzl(sizes[i] / PAGE_SIZE);
		bool mail = sizes[i] == S4_MAIL_FOLIO_SIZE;
		struct side s[2];
		struct pred_point b, a;
		struct repro_row *row;
		double cb[PRED_MAX_DRAWS], ca[PRED_MAX_DRAWS], each[REPRO_RATIO_RUNS], ratio;
		struct speed sp[2];
		char prefix[64], name[48];
		int d, at, nr_each, err = 0, fitted = 1;

		memset(s, 0, sizeof(s));
		if (ro->progress) {
			fprintf(ro->progress, "  predicting %luK: recording 1 thread before and after\n",
				sizes[i] >> 10);
			fflush(ro->progress);
		}
		ratio = kernel_hold_ratio(ro, false, order, each, &nr_each);
		ratio_note(ro, t, "anon", order, ratio, each, nr_each);
		if (record_sides(ro, "mmap-madvise", false, order, "mthp-lru-cache", s))
			err = -1;
		if (!err && ro->fit)
			fitted = s4_fit(t, s, &pf, ratio, mail, &factor, sp);
		if (fitted < 0 || (!err && points(s, &pf, S4_MAIL_THREADS, ratio,
						  factor > 0 ? sp : NULL, &b, &a)))
			err = -1;
		if (!err) {
			/* the run's time: after its measured row, else first of its size */
			snprintf(prefix, sizeof(prefix), "%luK: real time", sizes[i] >> 10);
			at = row_after(t, "s", prefix);
			if (at < 0) {
				snprintf(prefix, sizeof(prefix), "%luK: ", sizes[i] >> 10);
				for (at = 0; at < t->nr_rows &&
				     strncmp(t->rows[at].label, prefix, strlen(prefix)); at++)
					;
			}
			row = insert_at(t, "s", at, mail ? S4_REAL_BEFORE : NAN,
					mail ? S4_REAL_AFTER : NAN);
			if (row && b.pages_per_sec > 0 && a.pages_per_sec > 0) {
				int n = b.nr_draws < a.nr_draws ? b.nr_draws : a.nr_draws;

				for (d = 0; d < n; d++) {
					cb[d] = b.draws[d] > 0 ? S4_MAIL_PAGES / b.draws[d] : NAN;
					ca[d] = a.draws[d] > 0 ? S4_MAIL_PAGES / a.draws[d] : NAN;
				}
				snprintf(row->label, sizeof(row->label),
					 "  predicted %luK: run time, %d CPUs of %.24s", sizes[i] >> 10,
					 S4_MAIL_THREADS, pf.name);
				fill(row, S4_MAIL_PAGES / b.pages_per_sec,
				     S4_MAIL_PAGES / a.pages_per_sec, cb, ca, n);
				snprintf(name, sizeof(name), "%luK real time", sizes[i] >> 10);
				if (mail && fitted == 0)
					fitted_check_note(t, name, row);
				else
					check_note(t, name, row, NULL);
			}

			/* beside Graph500's counts, the microbenchmark's own: perf lock's line */
			snprintf(prefix, sizeof(prefix), "%luK: lru_lock contended", sizes[i] >> 10);
			row = insert_row(t, "count", prefix, mail ? S4_LRU_ACQUIRED_BEFORE : NAN,
					 mail ? S4_LRU_ACQUIRED_AFTER : NAN);
			if (row) {
				for (d = 0; d < b.nr_draws; d++) {
					cb[d] = b.draws_contended[d] * S4_MAIL_PAGES;
					ca[d] = a.draws_contended[d] * S4_MAIL_PAGES;
				}
				snprintf(row->label, sizeof(row->label),
					 "  predicted %luK: contended, %d CPUs of %.24s", sizes[i] >> 10,
					 S4_MAIL_THREADS, pf.name);
				fill(row, b.lru_contended_per_page * S4_MAIL_PAGES,
				     a.lru_contended_per_page * S4_MAIL_PAGES, cb, ca, b.nr_draws);
				row->fixed_by_inputs = contended_saturated(&b) && contended_saturated(&a);
				snprintf(name, sizeof(name), "%luK lru_lock contended", sizes[i] >> 10);
				check_note(t, name, row, contended_saturated(&b) ? "before" :
					   contended_saturated(&a) ? "after" : NULL);
			}
			pred_point_free(&b);
			pred_point_free(&a);
		}
		side_free(&s[0]);
		side_free(&s[1]);
		if (err)
			return -1;
	}
	repro_table_note(t, "predicted: the mail names no machine (20 threads, its sys time says all 20 ran in the kernel at once); 20 CPUs of skylake-2s-80 (the s0 mail's 2-socket Skylake, one socket) stand in, so its real time checks that stand-in as much as the model");
	repro_table_note(t, "predicted: the mail's run is %.2fM pages (%d threads x %d loops x 16 MiB), its real time those pages over the predicted pages/s; published counts of the predicted rows are the microbenchmark's perf lock line (16K), not Graph500's",
			 S4_MAIL_PAGES / 1e6, S4_MAIL_THREADS, S4_MAIL_LOOPS);
	return 0;
}

/* ---- s1: usemem's reclaim, 16 processes in one leaf ---- */

struct s1_side {
	struct pred_recording rec[REPRO_S1_RECORDINGS];
	int nr;
	double steal_per_access;	/* their mean */
	struct pred_point pt;
};

static int record_s1_side(const struct repro_opts *ro, bool on, struct s1_side *s)
{
	struct bench_opts o;

	bench_defaults(&usemem_workload, &o);
	o.threads[0] = 1;
	o.nr_threads = 1;
	o.seconds = ro->quick ? 0.3 : 1.0;
	o.flush_ms = S1_FLUSH_MS;
	o.swap_async = ro->swap_async;
	o.sw[SW_VMSTAT_SCAN_COST] = on;
	for (s->nr = 0; s->nr < repro_s1_recordings; s->nr++) {
		double steal;

		if (pred_record_usemem(REPRO_PROG, &o, 1, &s->rec[s->nr], &steal))
			return -1;
		s->steal_per_access += steal / repro_s1_recordings;
	}
	return 0;
}

/* lru_lock wait per access at the sites a row sums (all lru_lock sites: NULL) */
static double s1_site_wait(const struct pred_point *pt, const struct repro_row *row)
{
	const struct bench_result *r = &pt->table;
	double wait = 0;
	int i, k;

	if (!r->pages)
		return 0;
	for (i = 0; i < r->nr_sites; i++) {
		const struct bench_site_result *st = &r->sites[i];
		bool in = !row;

		if (strcmp(st->cls, row ? row->site_cls : "lru_lock"))
			continue;
		for (k = 0; !in && row->site_fns[k]; k++)
			in = !strcmp(st->fn, row->site_fns[k]);
		if (in)
			wait += (double)st->st.wait_total_ns;
	}
	return wait / (double)r->pages;
}

/*
 * A wait per access in ms over the mail's window at the mail's reclaim
 * rate: the mail's rates are the same on both kernels, so its totals
 * compare as waits per reclaimed page do.
 */
static double s1_window_ms(double ns_per_access, double steal_per_access, double mail_steal)
{
	return steal_per_access > 0 ?
	       ns_per_access / steal_per_access * mail_steal * S1_MAIL_WINDOW_S / 1e6 : NAN;
}

static const struct repro_row *find_row(const struct repro_table *t, const char *prefix)
{
	int i;

	for (i = 0; i < t->nr_rows; i++)
		if (!strncmp(t->rows[i].label, prefix, strlen(prefix)))
			return &t->rows[i];
	return NULL;
}

static void s1_rows(struct repro_table *t, const struct s1_side *s, const char *profile,
		    double steal_b, double steal_a)
{
	int i, d, n = t->nr_rows;

	for (i = 0; i < n; i++) {
		const struct repro_row *m = &t->rows[i];
		bool total = !strcmp(m->label, "wait, every lru_lock site");
		double b, a, db[PRED_MAX_DRAWS], da[PRED_MAX_DRAWS];
		struct repro_row *row;
		char label[96];
		int nd = 0;

		if (strcmp(m->unit, "ms") || (!total && (!m->site_fns || isnan(m->pub_before))))
			continue;
		snprintf(label, sizeof(label), "%s", m->label);
		b = s1_window_ms(s1_site_wait(&s[0].pt, total ? NULL : m), s[0].steal_per_access,
				 steal_b);
		a = s1_window_ms(s1_site_wait(&s[1].pt, total ? NULL : m), s[1].steal_per_access,
				 steal_a);
		if (total) {
			nd = s[0].pt.nr_draws < s[1].pt.nr_draws ? s[0].pt.nr_draws : s[1].pt.nr_draws;
			for (d = 0; d < nd; d++) {
				db[d] = s1_window_ms(s[0].pt.draws_lru_wait[d],
						     s[0].steal_per_access, steal_b);
				da[d] = s1_window_ms(s[1].pt.draws_lru_wait[d],
						     s[1].steal_per_access, steal_a);
			}
		}
		/* the mail's wait at the same sites: the measured row of its label */
		row = insert_row(t, "ms", label, m->pub_before, m->pub_after);
		if (!row)
			return;
		snprintf(row->label, sizeof(row->label), "  predicted: %d CPUs of %.24s",
			 S1_MAIL_PROCESSES, profile);
		fill(row, b, a, db, da, nd);
		if (!nd)
			row->ci_low_pct = row->ci_high_pct = NAN;
		/* rows were inserted: the measured one moved down */
		i++;
		n++;
	}
}

/* The mean of @rec's device waits, in us (0: none) */
static double io_wait_us(const struct pred_recording *rec)
{
	u64 n;
	double sum = pred_event_arg_sum(rec, PRED_EV_IO_WAIT, &n);

	return n ? sum / (double)n / 1000 : 0;
}

/* What of the predicted time is the swap device's, not the LRU's */
static void s1_device_note(struct repro_table *t, const struct repro_opts *ro,
			   const struct s1_side s[2])
{
	if (!ro->swap_async) {
		repro_table_note(t, "predicted: zram's swap-ins wait for no device; the mail's swap file is on a disk, whose reads the default (--swap-io async) adds");
		return;
	}
	repro_table_note(t, "predicted: the swap-ins' sleeps for the disk are %.0f%% of the CPUs' time before, %.0f%% after, at the recordings' %.0f us a read (the mail names no device): pgsteal_direct/s follows that latency more than the LRU",
			 100 * s[0].pt.ev_share[PRED_EV_IO_WAIT],
			 100 * s[1].pt.ev_share[PRED_EV_IO_WAIT], io_wait_us(&s[0].rec[0]));
}

static int predict_s1(const struct repro_opts *ro, struct repro_table *t)
{
	const struct repro_row *steal = find_row(t, "pgsteal_direct");
	struct s1_side s[2];
	struct pred_profile pf;
	int k, err = 0;

	if (!steal) {
		fprintf(stderr, "%s: --predict: s1's table has no pgsteal_direct row\n", REPRO_PROG);
		return -1;
	}
	if (load_profile("skylake-2s-80", &pf))
		return -1;
	memset(s, 0, sizeof(s));
	if (ro->progress) {
		fprintf(ro->progress, "  predicting: recording usemem, 1 thread, before and after\n");
		fflush(ro->progress);
	}
	for (k = 0; k < 2 && !err; k++)
		err = record_s1_side(ro, k, &s[k]);
	if (!err) {
		struct pred_model_opts mo = {
			.impl = s[0].rec[0].lock_impl, .draws = repro_draws, .seed = 1,
		};

		err = pred_model_pooled(s[0].rec, s[0].nr, &pf, S1_MAIL_PROCESSES, &mo, &s[0].pt);
		mo.impl = s[1].rec[0].lock_impl;
		if (!err && pred_model_pooled(s[1].rec, s[1].nr, &pf, S1_MAIL_PROCESSES, &mo,
					      &s[1].pt)) {
			pred_point_free(&s[0].pt);
			err = -1;
		}
	}
	if (!err) {
		struct repro_row *row = insert_row(t, "/s", "pgsteal_direct", S1_MAIL_PGSTEAL_BEFORE,
						   S1_MAIL_PGSTEAL_AFTER);

		/* reclaimed pages a second: the predicted accesses/s x pages reclaimed an access */
		if (row) {
			double db[PRED_MAX_DRAWS], da[PRED_MAX_DRAWS];
			int d, nd = s[0].pt.nr_draws < s[1].pt.nr_draws ? s[0].pt.nr_draws :
				    s[1].pt.nr_draws;

			for (d = 0; d < nd; d++) {
				db[d] = s[0].pt.draws[d] * s[0].steal_per_access;
				da[d] = s[1].pt.draws[d] * s[1].steal_per_access;
			}
			snprintf(row->label, sizeof(row->label), "  predicted: %d CPUs of %.24s",
				 S1_MAIL_PROCESSES, pf.name);
			fill(row, s[0].pt.pages_per_sec * s[0].steal_per_access,
			     s[1].pt.pages_per_sec * s[1].steal_per_access, db, da, nd);
			check_note(t, "pgsteal_direct/s", row, NULL);
		}
		steal = find_row(t, "pgsteal_direct");
		s1_rows(t, s, pf.name, steal->pub_before, steal->pub_after);
		s1_device_note(t, ro, s);
		pred_point_free(&s[0].pt);
		pred_point_free(&s[1].pt);
		repro_table_note(t, "predicted: usemem --mem 256M, 1 thread recorded here %d times a side (%.1f and %.1f pages reclaimed per 1000 accesses), replayed by %d CPUs sharing the leaf's lru_lock; waits per reclaimed page, in ms over the mail's %d s at its pgsteal_direct / s",
				 repro_s1_recordings, 1000 * s[0].steal_per_access,
				 1000 * s[1].steal_per_access, S1_MAIL_PROCESSES, S1_MAIL_WINDOW_S);
		repro_table_note(t, "predicted: the mail's 176-core host has no profile; 16 CPUs of skylake-2s-80 (one socket) stand in");
	}
	for (k = 0; k < 2; k++)
		while (s[k].nr)
			pred_recording_free(&s[k].rec[--s[k].nr]);
	return err ? -1 : 0;
}

/* ---- s3: each side is another build ---- */

#define S3_SIDES 3

/*
 * Record a side with its own binary (a layout is a build): `BIN predict
 * fault-free ... --cpus 1 --draws 0 --recordings K --save FILE`, which
 * records as record_sides() does (K times, with the unrecorded run's
 * scaling), its own output thrown away.  0, or -1 after one error line.
 */
static int s3_record(const struct repro_opts *ro, const char *bin, const char *type,
		     bool direct, struct side *s)
{
	const char *work = repro_fault_work(ro, "fault-free", type, 0);
	char prof[4096], file[4096], secs[16], nrec[8], name[4160];
	const char *argv[32];
	int n = 0, fd, status, err, k;
	pid_t pid;

	if (pred_profile_find("kvm-2vcpu", prof, sizeof(prof))) {
		fprintf(stderr, "%s: --predict: no machine profile kvm-2vcpu to record with\n",
			REPRO_PROG);
		return -1;
	}
	fd = tmpfile_create("s3", file, sizeof(file));
	if (fd < 0) {
		fprintf(stderr, "%s: --predict: cannot make a temporary file: %s\n", REPRO_PROG,
			strerror(errno));
		return -1;
	}
	close(fd);
	snprintf(secs, sizeof(secs), "%g", ro->quick ? 0.05 : 0.3);
	snprintf(nrec, sizeof(nrec), "%d", repro_recordings);
	argv[n++] = bin;
	argv[n++] = "predict";
	argv[n++] = "fault-free";
	argv[n++] = "--type";
	argv[n++] = type;
	argv[n++] = "--seconds";
	argv[n++] = secs;
	argv[n++] = "--mem";
	argv[n++] = ro->mem;
	argv[n++] = direct ? "--with" : "--without";
	argv[n++] = "memcg-direct-stat";
	if (work) {
		argv[n++] = "--fault-work";
		argv[n++] = work;
	}
	argv[n++] = "--cpus";
	argv[n++] = "1";
	argv[n++] = "--machine";
	argv[n++] = prof;
	argv[n++] = "--draws";
	argv[n++] = "0";
	argv[n++] = "--recordings";
	argv[n++] = nrec;
	argv[n++] = "--save";
	argv[n++] = file;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		setpgid(0, 0);
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	err = pid < 0;
	if (!err) {
		bench_signals_child(pid);
		while (waitpid(pid, &status, 0) < 0 && !err)
			err = errno != EINTR;
		bench_signals_child(0);
		err = err || !WIFEXITED(status) || WEXITSTATUS(status);
	}
	if (err)
		fprintf(stderr, "%s: --predict: recording %s %s with %s failed\n", REPRO_PROG,
			type, direct ? "with memcg-direct-stat" : "", bin);
	/* FILE, FILE.2, FILE.3, ... */
	for (k = 0; k < repro_recordings; k++) {
		snprintf(name, sizeof(name), k ? "%s.%d" : "%s", file, k + 1);
		if (!err && !pred_recording_read(REPRO_PROG, name, &s->rec[k]))
			s->nr++;
		else
			err = 1;
		unlink(name);
	}
	return err ? -1 : 0;
}

/* the measured row "TYPE, N threads (here M): SUFFIX" */
static int s3_row(const struct repro_table *t, const char *type, int threads, const char *suffix)
{
	char prefix[48];
	int i;

	snprintf(prefix, sizeof(prefix), "%s, %d threads (", type, threads);
	for (i = 0; i < t->nr_rows; i++) {
		const char *l = t->rows[i].label, *c = strstr(l, "): ");

		if (!strncmp(l, prefix, strlen(prefix)) && c && !strcmp(c + 3, suffix))
			return i;
	}
	return -1;
}

static int s3_type_rows(const char *type, const struct side *sides,
			const struct pred_profile *pf, struct repro_table *t)
{
	static const char *const suffix[S3_SIDES] = { NULL, "patch 1", "patch 1+2" };
	size_t i;
	int k;

	for (i = 0; i < ARRAY_SIZE(s3_published); i++) {
		const struct s3_published *p = &s3_published[i];
		const double pub[S3_SIDES] = { p->base, p->patch1, p->patch12 };
		struct side_fig f[S3_SIDES];
		int nd = PRED_MAX_DRAWS;

		if (strcmp(p->type, type))
			continue;
		for (k = 0; k < S3_SIDES; k++) {
			if (placements_fig(&sides[k], pf, p->mail_threads, 0, NULL, repro_draws, &f[k]))
				return -1;
			nd = f[k].nr_draws < nd ? f[k].nr_draws : nd;
		}
		for (k = 1; k < S3_SIDES; k++) {
			int at = s3_row(t, type, p->mail_threads, suffix[k]);
			struct repro_row *row = at < 0 ? NULL :
						insert_at(t, "pages/s", at + 1, pub[0], pub[k]);

			if (!row)
				continue;
			snprintf(row->label, sizeof(row->label), "  predicted: %d CPUs of %.24s",
				 p->mail_threads, pf->name);
			fill(row, f[0].pps, f[k].pps, f[0].draws, f[k].draws, nd);
		}
	}
	return 0;
}

static int predict_s3(const struct repro_opts *ro, struct repro_table *t)
{
	const char *before = json_string_value(json_object_get(t->extra, "before_bin"));
	const char *after = json_string_value(json_object_get(t->extra, "after_bin"));
	const char *bins[S3_SIDES] = { before, after, after };
	struct side sides[S3_SIDES];
	struct pred_profile pf;
	int k, i, err = 0;

	if (!before || !after) {
		fprintf(stderr, "%s: --predict: s3's table names no layout builds\n", REPRO_PROG);
		return -1;
	}
	if (load_profile("skylake-2s-80", &pf))
		return -1;
	if (!pf.p[PP_PAIR_PREFETCH].v)
		repro_table_note(t, "predicted: %s does not prefetch line pairs: the layouts "
				 "predict alike", pf.name);
	for (i = 0; i < 2 && !err; i++) {
		const char *type = i ? "anon" : "shmem";

		memset(sides, 0, sizeof(sides));
		if (ro->progress) {
			fprintf(ro->progress, "  predicting %s: recording 1 thread with each build\n",
				type);
			fflush(ro->progress);
		}
		for (k = 0; k < S3_SIDES && !err; k++)
			err = s3_record(ro, bins[k], type, k == 2, &sides[k]);
		if (!err)
			err = s3_type_rows(type, sides, &pf, t);
		for (k = 0; k < S3_SIDES; k++)
			side_free(&sides[k]);
	}
	if (!err)
		repro_table_note(t, "predicted: each side recorded by its own build (1 thread, `predict --recordings %d --save`), replayed with mem_cgroup_per_node as recorded and 64 bytes the other way, averaged (the mail's memcgs landed at both)",
				 repro_recordings);
	return err;
}

/* ---- s2: one task's aging pass on the mail's desktop ---- */

#define S2_PROFILE "i7-13700hx"

/* Row @fmt's (a "%d..." label) value of side @k at @procs processes, or NAN */
static double s2_value(const struct repro_table *t, const char *fmt, int procs, int k)
{
	char prefix[64];
	const struct repro_row *r;

	snprintf(prefix, sizeof(prefix), fmt, procs);
	r = find_row(t, prefix);
	return !r ? NAN : k ? r->after : r->before;
}

/*
 * A side's pass as measured here, with its locked ops: one young PTE
 * cleared per folio visited (each a cmpxchg done or skipped) and the
 * cmpxchgs done.
 */
static int s2_pass(const struct repro_table *t, const struct repro_row *ms, int procs, int k,
		   double x_here, double x_t, double page_scale, struct pred_aging_pass *a)
{
	double done = s2_value(t, "%d: locked cmpxchgs per pass", procs, k);
	double skipped = s2_value(t, "%d: cmpxchgs skipped per pass", procs, k);

	if (isnan(done) || isnan(skipped))
		return -1;
	*a = (struct pred_aging_pass){
		.ms_here = k ? ms->after : ms->before,
		.locked = 2 * done + skipped,
		.x_here_ns = x_here, .x_target_ns = x_t, .page_scale = page_scale,
	};
	return 0;
}

/*
 * The core speed the 1-process row @one fits with this machine's locked
 * op @xh and the target's @xt.  With one process the switch has nothing
 * to skip, so both sides are the same pass, here and in the mail (32.9
 * and 31.7 ms): their means fit, which halves the noise of one side.
 */
static double s2_speed(const struct repro_table *t, const struct repro_row *one, double xh,
		       double xt, double page_scale)
{
	struct pred_aging_pass a[2];

	if (s2_pass(t, one, 1, 0, xh, xt, page_scale, &a[0]) ||
	    s2_pass(t, one, 1, 1, xh, xt, page_scale, &a[1]))
		return NAN;
	a[0].ms_here = (a[0].ms_here + a[1].ms_here) / 2;
	a[0].locked = (a[0].locked + a[1].locked) / 2;
	return pred_aging_pass_speed(&a[0], (one->pub_before + one->pub_after) / 2);
}

/*
 * The pass's time on the target for @row (its procs in @procs), side @k,
 * with this machine's locked op @xh and the target's @xt, at the speed
 * the 1-process row fits with them; NAN where either cannot be had.
 */
static double s2_predict(const struct repro_table *t, const struct repro_row *one,
			 const struct repro_row *row, int procs, int k, double xh, double xt,
			 double page_scale)
{
	double speed = s2_speed(t, one, xh, xt, page_scale);
	struct pred_aging_pass a;

	if (s2_pass(t, row, procs, k, xh, xt, page_scale, &a))
		return NAN;
	return pred_aging_pass_ms(&a, speed);
}

static int predict_s2(const struct repro_opts *ro, struct repro_table *t)
{
	const struct repro_row *one = find_row(t, "1 process: time per aging pass");
	double page_scale = (double)S2_MAIL_MEM / (double)ro->s2_mem_bytes, speed;
	struct pred_value here, *xt;
	struct pred_profile pf;
	struct bench_rng rng;
	int i, d, n = t->nr_rows;

	if (!one) {
		fprintf(stderr, "%s: --predict: s2's table has no 1-process row to fit on\n",
			REPRO_PROG);
		return -1;
	}
	if (load_profile(S2_PROFILE, &pf))
		return -1;
	xt = &pf.p[PP_LOCKED_RMW];
	if (!xt->given) {
		repro_table_note(t, "--predict: profiles/%s has no locked_rmw_ns: no predicted rows",
				 pf.name);
		return 0;
	}
	pred_measure_locked_rmw(&here);
	for (i = 0; i < n; i++) {
		const struct repro_row *m = &t->rows[i];
		double db[PRED_MAX_DRAWS], da[PRED_MAX_DRAWS];
		struct repro_row *row;
		int procs, k;

		if (strcmp(m->unit, "ms") || m->predicted ||
		    sscanf(m->label, "%d process", &procs) != 1)
			continue;
		rng.state = 1;
		for (d = 0; d < repro_draws; d++) {
			double xh = pred_value_draw(&here, &rng, false);
			double x = pred_value_draw(xt, &rng, false);

			for (k = 0; k < 2; k++)
				(k ? da : db)[d] = s2_predict(t, one, m, procs, k, xh, x, page_scale);
		}
		row = insert_at(t, "ms", i + 1, m->pub_before, m->pub_after);
		if (!row)
			break;
		/* inserted after @m, which, as @one before it, stays where it was */
		snprintf(row->label, sizeof(row->label), "  predicted: 1 CPU of %.24s", pf.name);
		fill(row, s2_predict(t, one, m, procs, 0, here.v, xt->v, page_scale),
		     s2_predict(t, one, m, procs, 1, here.v, xt->v, page_scale), db, da,
		     repro_draws);
		row->fitted = procs == 1;
		if (!row->fitted) {
			char name[32];

			snprintf(name, sizeof(name), "%d processes", procs);
			check_note(t, name, row, NULL);
		}
		i++;
		n++;
	}
	speed = s2_speed(t, one, here.v, xt->v, page_scale);
	repro_table_note(t, "predicted: each pass as measured here at %s, scaled to the mail's 2G, its locked ops (a young PTE's lock btr, each cmpxchg done) moved from this machine's %.2f ns to %s's locked_rmw_ns %.2f ns, the rest at the core speed the 1-process row fits (both sides: nothing to skip): %.2f of this machine's",
			 ro->s2_mem, here.v, pf.name, xt->v, speed);
	repro_table_note(t, "predicted: the band is P10-P90 of %d draws of both locked-op costs in their ranges (here %.2f-%.2f ns, %.2f-%.2f ns on %s), the speed refitted in each; the core speed is the one figure no table gives",
			 repro_draws, here.lo, here.hi, xt->lo, xt->hi, pf.name);
	return 0;
}

static int repro_predict(const struct repro_opts *ro, struct repro_table *t, const char *which)
{
	int err;

	repro_draws = ro->quick ? 2 : REPRO_DRAWS;
	repro_recordings = ro->quick ? 1 : ro->fit ? REPRO_FIT_RECORDINGS : REPRO_RECORDINGS;
	repro_s1_recordings = ro->quick ? 1 : REPRO_S1_RECORDINGS;

	if (!strcmp(which, "s0"))
		err = predict_s0(ro, t);
	else if (!strcmp(which, "s3"))
		err = predict_s3(ro, t);
	else if (!strcmp(which, "s1"))
		err = predict_s1(ro, t);
	else if (!strcmp(which, "s4"))
		err = predict_s4(ro, t);
	else
		/* one task's walk, no queue to simulate: its notes say how it is predicted */
		return predict_s2(ro, t);
	if (!err) {
		repro_table_note(t, "predicted: lrulab predict, 1-thread recordings here (%d a side), profiles/skylake-2s-80; the central figures are the median recording's, the CI column the P10-P90 of %d paired draws of the profile's ranges for every recording, so it holds their spread",
				 strcmp(which, "s1") ? repro_recordings : repro_s1_recordings,
				 repro_draws);
		if (!strcmp(which, "s0"))
			repro_table_note(t, "predicted: each side the mean of mem_cgroup_per_node's two placements in its 128-byte pair (as recorded, and 64 bytes the other way), as the mail's fresh memcgs landed at both");
	}
	return err;
}

void repro_predict_hook(void)
{
	repro_predict_register(repro_predict);
}
