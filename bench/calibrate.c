// SPDX-License-Identifier: MIT
/*
 * `lrulab bench WORKLOAD --calibrate`: the model's fault is cheaper than
 * the kernel's (no page-table walk, no real zeroing of a fresh page from
 * the buddy allocator, no syscall entry), so at the same thread count it
 * spends less time outside lru_lock and its contention is off.  The
 * calibration measures the host kernel's one-thread rate for the same
 * workload (`lrulab host fault-free`), then searches the --fault-work
 * that brings lrulab's one-thread rate to it.  Work can only be added:
 * a model already slower than the host runs with none and says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/host.h"

#define CALIB_HOST_REPS		5
#define CALIB_MODEL_REPS	3
#define CALIB_SECONDS		0.2	/* shorter when the benchmark's runs are */
#define CALIB_MAX_WORK		1000000UL	/* --fault-work's own limit */
#define CALIB_MAX_REPS		16

const char *calib_status_name(enum calib_status s)
{
	switch (s) {
	case CALIB_MATCHED:	return "matched";
	case CALIB_SLOWER:	return "slower-without-work";
	case CALIB_UNMATCHED:	return "unmatched";
	case CALIB_FAILED:	return "failed";
	}
	return "?";
}

/* A single short run is noisy (a shared machine, a timer tick): medians. */
static double median_of(calib_rate_fn rate, void *arg, unsigned long work, int reps)
{
	double v[CALIB_MAX_REPS];
	int i;

	if (reps > CALIB_MAX_REPS)
		reps = CALIB_MAX_REPS;
	for (i = 0; i < reps; i++) {
		v[i] = rate(work, arg);
		if (!(v[i] > 0))
			return -1;
	}
	return median_double(v, reps);
}

static int host_sample(const struct calib_sources *src, struct calib_result *res)
{
	double r;

	if (res->nr_host == CALIB_MAX_HOST_RUNS)
		return 0;
	r = src->host(0, src->host_arg);
	if (!(r > 0))
		return -1;
	res->host[res->nr_host++] = r;
	res->target = median_double(res->host, res->nr_host);
	return 0;
}

/* One more host run (but before the first probe), then the model at @work. */
static double probe(const struct calib_sources *src, struct calib_result *res,
		    unsigned long work)
{
	double m;

	if (res->nr_steps && host_sample(src, res))
		return -1;
	m = median_of(src->model, src->model_arg, work, src->model_reps);
	if (m < 0)
		return -1;
	res->steps[res->nr_steps].work_ns = work;
	res->steps[res->nr_steps].rate = m;
	res->nr_steps++;
	return m;
}

static double off(double rate, double target)
{
	return fabs(rate / target - 1);
}

/*
 * Per-page time is linear in the work per fault, so 1/rate between two
 * bracketing probes points at the work that hits the target.  Noise can
 * make that point land on a bracket end again and again, so every other
 * step that keeps one end is a plain bisection.
 */
static unsigned long next_work(unsigned long lo, double rlo, unsigned long hi,
			       double rhi, double target, int same_side)
{
	double tlo = 1 / rlo, thi = 1 / rhi, w;

	if (same_side < 2 && thi > tlo) {
		w = lo + (1 / target - tlo) / (thi - tlo) * (hi - lo);
		if (w > lo + 0.5 && w < hi - 0.5)
			return (unsigned long)(w + 0.5);
	}
	return lo + (hi - lo) / 2;
}

/*
 * The bracket from every probe against the current target, which moves
 * with each host run: the most work still too fast (at least the probe
 * at 0, as work cannot go below it), the least work above that which
 * is not.  Whether there is such an upper end.
 */
static bool bracket(const struct calib_result *res, unsigned long *lo, double *rlo,
		    unsigned long *hi, double *rhi)
{
	bool have_hi = false;
	int i;

	*lo = 0;
	*rlo = res->steps[0].rate;
	for (i = 1; i < res->nr_steps; i++)
		if (res->steps[i].rate > res->target && res->steps[i].work_ns > *lo) {
			*lo = res->steps[i].work_ns;
			*rlo = res->steps[i].rate;
		}
	for (i = 1; i < res->nr_steps; i++)
		if (res->steps[i].rate <= res->target && res->steps[i].work_ns > *lo &&
		    (!have_hi || res->steps[i].work_ns < *hi)) {
			*hi = res->steps[i].work_ns;
			*rhi = res->steps[i].rate;
			have_hi = true;
		}
	return have_hi;
}

void calib_search(const struct calib_sources *src, double faults_per_page,
		  unsigned long max_work, struct calib_result *res)
{
	unsigned long lo = 0, hi = 0, w;
	int i, best, same_side = 0, last_side = 0;
	double r, rlo, rhi = 0;
	bool have_hi;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < src->host_reps && i < 8; i++)
		if (host_sample(src, res)) {
			res->status = CALIB_FAILED;
			return;
		}
	rlo = res->nr_host ? probe(src, res, 0) : -1;
	if (rlo < 0) {
		res->status = CALIB_FAILED;
		return;
	}
	res->rate = rlo;
	if (rlo <= res->target * (1 + CALIB_AIM)) {
		res->status = rlo >= res->target * (1 - CALIB_TOLERANCE) ?
			      CALIB_MATCHED : CALIB_SLOWER;
		return;
	}
	/* what the time per page says the work per fault must be */
	w = (unsigned long)((1 / res->target - 1 / rlo) * 1e9 / faults_per_page + 0.5);
	w = w < 1 ? 1 : w > max_work ? max_work : w;
	while (res->nr_steps < CALIB_MAX_STEPS) {
		r = probe(src, res, w);
		if (r < 0) {
			res->status = CALIB_FAILED;
			return;
		}
		if (off(r, res->target) <= CALIB_AIM)
			break;
		same_side = (r > res->target ? 1 : -1) == last_side ? same_side + 1 : 1;
		last_side = r > res->target ? 1 : -1;
		have_hi = bracket(res, &lo, &rlo, &hi, &rhi);
		if (!have_hi) {
			/* still too fast: at most double, up to the limit */
			if (lo >= max_work)
				break;
			w = lo > max_work / 2 ? max_work : lo ? lo * 2 : 1;
			continue;
		}
		/* a bracket within 1% of the work is finer than any run can tell */
		if (hi - lo <= 1 + lo / 100)
			break;
		w = next_work(lo, rlo, hi, rhi, res->target, same_side);
	}
	/* judged against the final target, which every host run refined */
	for (best = 0, i = 1; i < res->nr_steps; i++)
		if (off(res->steps[i].rate, res->target) < off(res->steps[best].rate, res->target))
			best = i;
	res->work_ns = res->steps[best].work_ns;
	res->rate = res->steps[best].rate;
	res->status = off(res->rate, res->target) <= CALIB_TOLERANCE ?
		      CALIB_MATCHED : CALIB_UNMATCHED;
}

/* ---- against the host ---- */

struct model_probe {
	const struct bench_workload *w;
	struct bench_opts o;
};

static double model_rate(unsigned long work_ns, void *arg)
{
	struct model_probe *mp = arg;
	struct bench_result r;
	double rate;

	mp->o.fault_work_ns = work_ns;
	if (bench_run(mp->w, &mp->o, 1, &r))
		return -1;
	rate = r.err || r.invariant_violations ? -1 : r.pages_per_sec;
	bench_result_free(&r);
	return rate;
}

struct host_probe {
	const char *prog;
	struct host_opts o;
	bool failed;		/* its error line is out */
};

/* One host run with one thread; < 0 after an error line. */
static double host_rate(unsigned long work_ns, void *arg)
{
	struct host_probe *hp = arg;
	struct host_result r;
	double rate = -1;
	int err = host_fault_free_run(&hp->o, 1, &r);

	if (err)
		fprintf(stderr, "%s: --calibrate: cannot run on the host: %s\n", hp->prog,
			strerror(-err));
	else if (r.err)
		fprintf(stderr, "%s: --calibrate: the host run failed: %s: %s\n", hp->prog,
			r.failed, strerror(-r.err));
	else if (!(r.pages_per_sec > 0))
		fprintf(stderr, "%s: --calibrate: the host kernel faulted no pages\n", hp->prog);
	else
		rate = r.pages_per_sec;
	if (!err)
		host_result_free(&r);
	hp->failed = rate < 0;
	return rate;
}

static double pct_off(double rate, double target)
{
	return 100 * (rate / target - 1);
}

static void calib_print(FILE *f, const struct bench_workload *w, const struct bench_opts *o,
			double secs, const struct calib_result *res)
{
	int i;

	fprintf(f, "calibration: %s %s, %lu%s, %luK folios, one thread, runs of %.2f s; lrulab: medians of %d runs\n",
		w->name, o->shmem ? "shmem" : "anon",
		o->mem % (1UL << 20) ? o->mem >> 10 : o->mem >> 20,
		o->mem % (1UL << 20) ? "K" : "M", (PAGE_SIZE << o->folio_order) >> 10,
		secs, CALIB_MODEL_REPS);
	fprintf(f, "  host kernel                %10.0f pages/s  (median of %d runs: %d first, one before each probe)\n",
		res->target, res->nr_host, CALIB_HOST_REPS);
	for (i = 0; i < res->nr_steps; i++)
		fprintf(f, "  lrulab --fault-work %-6lu %10.0f pages/s  %+6.1f%%\n",
			res->steps[i].work_ns, res->steps[i].rate,
			pct_off(res->steps[i].rate, res->target));
	switch (res->status) {
	case CALIB_MATCHED:
		fprintf(f, "chosen: --fault-work %lu: lrulab %.0f pages/s, host %.0f (%+.1f%%)\n",
			res->work_ns, res->rate, res->target, pct_off(res->rate, res->target));
		break;
	case CALIB_SLOWER:
		fprintf(f, "lrulab is already %.1f%% slower than the host kernel with no fault work; work can only be added, so it runs with --fault-work 0\n",
			-pct_off(res->rate, res->target));
		break;
	default:
		fprintf(f, "WARNING: no work within %.0f%% of the host in %d steps; the closest, --fault-work %lu, is %+.1f%% off\n",
			100 * CALIB_TOLERANCE, res->nr_steps, res->work_ns,
			pct_off(res->rate, res->target));
		break;
	}
	fprintf(f, "\n");
}

static json_t *calib_json(double secs, const struct calib_result *res)
{
	json_t *j = json_object(), *a = json_array();
	int i;

	for (i = 0; i < res->nr_steps; i++)
		json_array_append_new(a, json_pack("{s:I, s:f}",
			"fault_work_ns", (json_int_t)res->steps[i].work_ns,
			"pages_per_sec", res->steps[i].rate));
	json_object_set_new(j, "status", json_string(calib_status_name(res->status)));
	json_object_set_new(j, "host_pages_per_sec", json_real(res->target));
	json_object_set_new(j, "lrulab_pages_per_sec", json_real(res->rate));
	json_object_set_new(j, "fault_work_ns", json_integer(res->work_ns));
	json_object_set_new(j, "off_pct", json_real(pct_off(res->rate, res->target)));
	json_object_set_new(j, "host_runs", json_integer(res->nr_host));
	json_object_set_new(j, "lrulab_runs_per_step", json_integer(CALIB_MODEL_REPS));
	json_object_set_new(j, "run_seconds", json_real(secs));
	json_object_set_new(j, "steps", a);
	return j;
}

int bench_calibrate(const struct bench_workload *w, const char *prog,
		    struct bench_opts *o, FILE *text, json_t **json)
{
	double secs = !o->loops && o->seconds < CALIB_SECONDS ? o->seconds : CALIB_SECONDS;
	struct host_probe hp = {
		.prog = prog,
		.o = { .shmem = o->shmem, .folio_order = o->folio_order, .mem = o->mem,
		       .seconds = secs },
	};
	struct model_probe mp = { .w = w, .o = *o };
	struct calib_sources src = {
		.host = host_rate, .host_arg = &hp, .host_reps = CALIB_HOST_REPS,
		.model = model_rate, .model_arg = &mp, .model_reps = CALIB_MODEL_REPS,
	};
	struct calib_result res;

	mp.o.loops = 0;
	mp.o.seconds = secs;
	mp.o.json = false;
	if (host_thp_prepare(prog, o->shmem, o->folio_order))
		return -1;
	calib_search(&src, 1.0 / (1UL << o->folio_order), CALIB_MAX_WORK, &res);
	host_undo_all();
	if (res.status == CALIB_FAILED) {
		if (!hp.failed)
			fprintf(stderr, "%s: --calibrate: a lrulab run failed\n", prog);
		return -1;
	}
	o->fault_work_ns = res.work_ns;
	if (text)
		calib_print(text, w, o, secs, &res);
	if (res.status == CALIB_UNMATCHED)
		fprintf(stderr, "%s: --calibrate: no fault work within %.0f%% of the host; running with the closest, %lu ns\n",
			prog, 100 * CALIB_TOLERANCE, res.work_ns);
	if (json)
		*json = calib_json(secs, &res);
	return 0;
}
