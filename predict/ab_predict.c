// SPDX-License-Identifier: MIT
/*
 * `lrulab ab ... --predict-cpus N[,N...] --machine PROFILE -- WORKLOAD`:
 * a user's A and B predicted at those CPU counts of a described machine
 * instead of measured here.  Each side is recorded here (with the
 * workload's first --threads, its default where none is given;
 * PRED_AB_RECORDINGS recordings, the sides alternated), and both
 * are simulated with the same draws of the profile's ranges, so that the
 * band of the change is that of paired differences: draw d of B against
 * draw d of A.  The verdict says B higher or lower only when the whole
 * band (P10-P90 of the paired changes and the central one) is on one side
 * of zero.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict-internal.h"

#define PRED_AB_RECORDINGS	3
#define PRED_AB_DRAWS		5

struct ab_side {
	struct pred_recording rec[PRED_AB_RECORDINGS];
	int nr;
};

/* One side's simulation at one CPU count: its own thread for B. */
struct ab_job {
	const struct ab_side *side;
	const struct pred_profile *pf;
	int cpus;
	struct pred_point pt;
	int err;
};

static void *ab_job_run(void *arg)
{
	struct ab_job *j = arg;
	struct pred_model_opts mo = {
		.impl = j->side->rec[0].lock_impl, .draws = PRED_AB_DRAWS, .seed = 1,
	};

	j->err = pred_model_pooled(j->side->rec, j->side->nr, j->pf, j->cpus, &mo, &j->pt);
	return NULL;
}

/*
 * A and B at @cpus, at once: the simulations share nothing but the
 * profile and each side's recordings, which they only read, and a user's
 * A/B verdict should not take twice as long as it must on two processors.
 */
static int ab_simulate(const struct ab_side *side, const struct pred_profile *pf, int cpus,
		       struct pred_point pt[2])
{
	struct ab_job j[2];
	pthread_t b;
	bool threaded;
	int i;

	for (i = 0; i < 2; i++)
		j[i] = (struct ab_job){ .side = &side[i], .pf = pf, .cpus = cpus };
	threaded = !pthread_create(&b, NULL, ab_job_run, &j[1]);
	ab_job_run(&j[0]);
	if (threaded)
		pthread_join(b, NULL);
	else
		ab_job_run(&j[1]);
	for (i = 0; i < 2; i++) {
		if (!j[i].err)
			pt[i] = j[i].pt;
		else if (!j[1 - i].err)
			pred_point_free(&j[1 - i].pt);
	}
	return j[0].err || j[1].err ? -1 : 0;
}

static void side_free(struct ab_side *s)
{
	while (s->nr)
		pred_recording_free(&s->rec[--s->nr]);
}

/* P10, P90 of the paired changes (%), the central pair's among them */
static void paired_band(const struct pred_point *a, const struct pred_point *b,
			double *lo, double *hi)
{
	double d[PRED_MAX_DRAWS + 1];
	int n = 0, i, k = a->nr_draws < b->nr_draws ? a->nr_draws : b->nr_draws;

	if (a->pages_per_sec > 0)
		d[n++] = 100.0 * (b->pages_per_sec - a->pages_per_sec) / a->pages_per_sec;
	for (i = 0; i < k; i++)
		if (a->draws[i] > 0)
			d[n++] = 100.0 * (b->draws[i] - a->draws[i]) / a->draws[i];
	if (!n) {
		*lo = *hi = NAN;
		return;
	}
	qsort(d, (size_t)n, sizeof(d[0]), cmp_double);
	*lo = quantile_sorted(d, n, 0.1);
	*hi = quantile_sorted(d, n, 0.9);
}

static const char *verdict(double lo, double hi)
{
	if (isnan(lo))
		return "no verdict";
	return lo > 0 ? "B higher" : hi < 0 ? "B lower" : "no difference";
}

/* a number, or null where there is none */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void print_point(const struct pred_profile *pf, const struct pred_point *a,
			const struct pred_point *b, double lo, double hi, bool json,
			const struct bench_workload *w)
{
	double delta = a->pages_per_sec > 0 ?
		       100.0 * (b->pages_per_sec - a->pages_per_sec) / a->pages_per_sec : NAN;
	json_t *j;

	if (!json) {
		printf("  %3d CPUs: A %10.0f  B %10.0f pages/s  B/A %+6.1f%%  band [%+.1f%%, %+.1f%%]  %s\n",
		       a->cpus, a->pages_per_sec, b->pages_per_sec, delta, lo, hi, verdict(lo, hi));
		printf("            bottleneck A: %s; B: %s\n", a->bottleneck, b->bottleneck);
		return;
	}
	j = json_object();
	json_object_set_new(j, "engine", json_string("predict"));
	json_object_set_new(j, "workload", json_string(w->name));
	json_object_set_new(j, "machine", json_string(pf->name));
	json_object_set_new(j, "cpus", json_integer(a->cpus));
	json_object_set_new(j, "a_pages_per_sec", jnum(a->pages_per_sec));
	json_object_set_new(j, "b_pages_per_sec", jnum(b->pages_per_sec));
	json_object_set_new(j, "a_band", json_pack("[o, o]", jnum(a->band_low), jnum(a->band_high)));
	json_object_set_new(j, "b_band", json_pack("[o, o]", jnum(b->band_low), jnum(b->band_high)));
	json_object_set_new(j, "delta_pct", jnum(delta));
	json_object_set_new(j, "band_pct", json_pack("[o, o]", jnum(lo), jnum(hi)));
	json_object_set_new(j, "interval", json_string("P10-P90 of paired draws"));
	json_object_set_new(j, "verdict", json_string(verdict(lo, hi)));
	json_object_set_new(j, "bottleneck_a", json_string(a->bottleneck));
	json_object_set_new(j, "bottleneck_b", json_string(b->bottleneck));
	bench_json_line(j);
	json_decref(j);
}

/* A and B recorded alternately, so that this machine's drift lands on both */
static int record_sides(const char *prog, const struct bench_workload *w,
			const struct bench_opts o[2], struct ab_side s[2], bool json)
{
	if (!json) {
		printf("  recording A and B alternately: %d runs each of %ld thread%s\n",
		       PRED_AB_RECORDINGS, o[0].threads[0], o[0].threads[0] == 1 ? "" : "s");
		fflush(stdout);
	}
	return pred_record_alternately(prog, w, o, PRED_AB_RECORDINGS,
				       (struct pred_recording *[2]){ s[0].rec, s[1].rec },
				       (int *[2]){ &s[0].nr, &s[1].nr });
}

static int ab_predict(const char *prog, const struct bench_workload *w,
		      const struct bench_opts bo[2], const long *cpus, int nr_cpus,
		      const char *machine, bool json)
{
	struct ab_side side[2] = { { .nr = 0 }, { .nr = 0 } };
	struct pred_profile pf;
	char path[4096];
	int k, status = 1;

	if (pred_profile_find(machine, path, sizeof(path)))
		snprintf(path, sizeof(path), "%s", machine);
	if (pred_profile_read(prog, path, &pf))
		return 2;
	if (record_sides(prog, w, bo, side, json))
		goto out;
	if (!json)
		printf("predicted on %s (%s): pages/s, each side the median of its %d recordings; "
		       "band: P10-P90 of %d paired draws of the profile's ranges\n",
		       pf.name, path, PRED_AB_RECORDINGS, PRED_AB_DRAWS * PRED_AB_RECORDINGS);
	for (k = 0; k < nr_cpus; k++) {
		struct pred_point pt[2];
		double lo, hi;

		if (ab_simulate(side, &pf, (int)cpus[k], pt)) {
			fprintf(stderr, "%s: cannot simulate %ld CPUs: out of memory\n", prog,
				cpus[k]);
			goto out;
		}
		paired_band(&pt[0], &pt[1], &lo, &hi);
		print_point(&pf, &pt[0], &pt[1], lo, hi, json, w);
		pred_point_free(&pt[0]);
		pred_point_free(&pt[1]);
	}
	status = 0;
out:
	side_free(&side[0]);
	side_free(&side[1]);
	return status;
}

void ab_predict_hook(void)
{
	bench_ab_predict_register(ab_predict);
}
