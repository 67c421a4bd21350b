// SPDX-License-Identifier: MIT
/*
 * Predicting from several recordings of the same run.  One recording is
 * one sample of the inputs: on a shared machine two recordings of the
 * same workload give holds and works a few percent apart, which at 80
 * CPUs moved s0's predicted deltas by 10 to 40 points.  The band must
 * hold that spread as well as the profile's ranges, so each recording is
 * simulated on its own (with the same machine draws) and the points are
 * pooled: the central figures are the median recording's, the band the
 * P10-P90 of every recording's draws and centrals together.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "predict-internal.h"

/* the recording whose central pages/s is the median of @k */
static int median_index(const struct pred_point *pts, int k)
{
	int order[PRED_MAX_RECORDINGS] = { 0 }, i, j;

	for (i = 0; i < k; i++)
		order[i] = i;
	for (i = 1; i < k; i++)
		for (j = i; j > 0 &&
		     pts[order[j]].pages_per_sec < pts[order[j - 1]].pages_per_sec; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return order[(k - 1) / 2];
}

void pred_pool_points(struct pred_point *pts, int k, struct pred_point *out)
{
	double v[PRED_MAX_RECORDINGS * (PRED_MAX_DRAWS + 1)];
	int m = median_index(pts, k), n = 0, i, d;

	*out = pts[m];
	/* the table moved to @out; the others' are freed here */
	memset(&pts[m].table, 0, sizeof(pts[m].table));
	out->nr_draws = 0;
	for (i = 0; i < k; i++) {
		const struct pred_point *p = &pts[i];

		v[n++] = p->pages_per_sec;
		for (d = 0; d < p->nr_draws; d++) {
			v[n++] = p->draws[d];
			if (out->nr_draws < PRED_MAX_DRAWS) {
				out->draws_contended[out->nr_draws] = p->draws_contended[d];
				out->draws_lru_wait[out->nr_draws] = p->draws_lru_wait[d];
				out->draws[out->nr_draws++] = p->draws[d];
			}
		}
		if (i != m)
			pred_point_free(&pts[i]);
	}
	qsort(v, n, sizeof(v[0]), cmp_double);
	out->band_low = quantile_sorted(v, n, 0.1);
	out->band_high = quantile_sorted(v, n, 0.9);
	out->nr_recordings = k;
}

struct pool_job {
	const struct pred_recording *rec;
	const struct pred_profile *pf;
	const struct pred_model_opts *mo;
	int cpus, err;
	struct pred_point pt;
};

static void *pool_job_run(void *arg)
{
	struct pool_job *j = arg;

	j->err = pred_model_point(j->rec, j->pf, j->cpus, j->mo, &j->pt);
	return NULL;
}

/*
 * Each recording is simulated in a thread of its own: the simulations
 * share nothing but the profile and the options, which they only read,
 * and each draws from its own seed, so the figures are those of one
 * after another (repro --predict ran some 2,000 of them on one of two
 * processors).  A thread that cannot start runs in the caller.
 */
int pred_model_pooled(const struct pred_recording *recs, int nr, const struct pred_profile *pf,
		      int cpus, const struct pred_model_opts *mo, struct pred_point *pt)
{
	struct pool_job j[PRED_MAX_RECORDINGS];
	pthread_t tid[PRED_MAX_RECORDINGS];
	bool started[PRED_MAX_RECORDINGS] = { false };
	struct pred_point each[PRED_MAX_RECORDINGS];
	int i, err = 0;

	if (nr < 1 || nr > PRED_MAX_RECORDINGS)
		return -1;
	for (i = 0; i < nr; i++) {
		j[i] = (struct pool_job){ .rec = &recs[i], .pf = pf, .mo = mo, .cpus = cpus };
		if (i)
			started[i] = !pthread_create(&tid[i], NULL, pool_job_run, &j[i]);
	}
	pool_job_run(&j[0]);
	for (i = 1; i < nr; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			pool_job_run(&j[i]);
	for (i = 0; i < nr; i++)
		err |= j[i].err;
	if (err) {
		for (i = 0; i < nr; i++)
			if (!j[i].err)
				pred_point_free(&j[i].pt);
		return -1;
	}
	for (i = 0; i < nr; i++)
		each[i] = j[i].pt;
	pred_pool_points(each, nr, pt);
	return 0;
}
