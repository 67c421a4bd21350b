// SPDX-License-Identifier: MIT
/*
 * `lrulab host usemem --compare`: the host kernel and the model on the
 * same file workload, run by turns (host, model, host, model, ...) so
 * that whatever else the machine does falls on both alike, and set side
 * by side as the medians of their runs, with the model's ratio to the
 * host and its difference.
 *
 * The model is given what the host's run found: the disk's read_ahead_kb
 * and, as its device read latency, the mean time of the host's reads
 * that waited for the disk.  The kernel's memcg stats are up to a flush
 * period (2 s) old when reclaim reads them, so how far they lag behind
 * the lists depends on how often the memory turns over in that time: a
 * model reading from memory would turn over fifty times faster than the
 * host reading from its disk, and reclaim on two different clocks.
 *
 * The compared figures are per workingset refault, the event both sides
 * count alike whatever their speed.  The host's pgactivate and
 * pgdeactivate come from /proc/vmstat (a v1 memory.stat has neither): the
 * whole machine's, so other work on it adds to them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_usemem.h"
#include "tools/util.h"

enum cmp_kind {
	CMP_PER_READ,		/* pgpgin pages per read */
	CMP_PER_REFAULT,	/* a vmstat event per workingset_refault_file */
	CMP_KEY,		/* a number of the run's object */
	CMP_RA_PER_1K,		/* a readahead event per 1000 reads */
	CMP_RA_WINDOW,		/* pages per readahead window */
};

static const struct cmp_metric {
	const char *name;
	enum cmp_kind kind;
	const char *key;
	bool target;		/* one of the compared figures */
} cmp_metrics[] = {
	{ "pgpgin pages per read", CMP_PER_READ, "pgpgin", true },
	{ "workingset_activate_file per refault", CMP_PER_REFAULT, "workingset_activate_file", true },
	{ "workingset_restore_file per refault", CMP_PER_REFAULT, "workingset_restore_file", true },
	{ "pgactivate per refault", CMP_PER_REFAULT, "pgactivate", true },
	{ "pgdeactivate per refault", CMP_PER_REFAULT, "pgdeactivate", true },
	{ "active share of the file LRU at the end", CMP_KEY, "active_file_share_end", true },
	{ "page_cache_sync_ra per 1000 reads", CMP_RA_PER_1K, "page_cache_sync_ra", true },
	{ "page_cache_async_ra per 1000 reads", CMP_RA_PER_1K, "page_cache_async_ra", true },
	{ "readahead windows per 1000 reads", CMP_RA_PER_1K, "windows", true },
	{ "pages per readahead window", CMP_RA_WINDOW, "window_pages", true },
	{ "reads per second", CMP_KEY, "pages_per_sec", false },
	{ "turnovers per flush period", CMP_KEY, "leaf_turnovers_per_flush_period", false },
};

#define NR_CMP_METRICS	(int)(sizeof(cmp_metrics) / sizeof(cmp_metrics[0]))

static double json_num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/* One metric of one run; NAN where the run has nothing to divide by. */
static double cmp_value(const struct cmp_metric *m, json_t *run)
{
	json_t *vm = json_object_get(run, "vmstat"), *ra = json_object_get(run, "readahead");
	double reads = json_num(run, "accesses");
	double refaults = json_num(vm, "workingset_refault_file");

	switch (m->kind) {
	case CMP_PER_READ:
		/* pgpgin is in KiB on both */
		return reads > 0 ? json_num(vm, m->key) / (PAGE_SIZE >> 10) / reads : NAN;
	case CMP_PER_REFAULT:
		return refaults > 0 ? json_num(vm, m->key) / refaults : NAN;
	case CMP_KEY:
		return json_num(run, m->key);
	case CMP_RA_PER_1K:
		/* a host without tracefs has no account of its readahead */
		return json_is_object(ra) && reads > 0 ? 1000.0 * json_num(ra, m->key) / reads : NAN;
	case CMP_RA_WINDOW:
		return json_is_object(ra) && json_num(ra, "windows") > 0 ?
		       json_num(ra, m->key) / json_num(ra, "windows") : NAN;
	}
	return NAN;
}

/* The median of @n values, NANs left out; NAN if none is left. */
static double median(const double *v, int n)
{
	double *s = malloc(sizeof(*s) * (size_t)(n ? n : 1)), m = NAN;
	int i, k = 0;

	if (!s)
		return NAN;
	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			s[k++] = v[i];
	qsort(s, (size_t)k, sizeof(*s), cmp_double);
	if (k)
		m = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
	free(s);
	return m;
}

static json_t *json_num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* The model's options: usemem's defaults, then everything the host run had. */
static void cmp_model_opts(const struct host_usemem_opts *ho, json_t *host_run,
			   struct bench_opts *mo)
{
	const struct bench_opts *o = &ho->b;
	long ra_kb = (long)json_integer_value(json_object_get(host_run, "read_ahead_kb"));
	double wait_us = json_num(host_run, "read_wait_us");

	bench_defaults(&usemem_workload, mo);
	mo->regular = true;
	mo->mem = o->mem;
	mo->max = o->max;
	mo->seconds = o->seconds;
	mo->pattern = o->pattern;
	mo->zipf_a = o->zipf_a;
	mo->pattern_given = true;
	mo->fadvise = o->fadvise;
	/* the model's cap is 64 MiB of readahead, as bench usemem's option */
	mo->read_ahead_kb = ra_kb > 0 && ra_kb % 4 == 0 ? (unsigned long)ra_kb : 0;
	mo->read_latency_us = wait_us > 0 ? (long)(wait_us + 0.5) : 0;
}

struct cmp_runs {
	json_t *host, *model;		/* arrays of the runs' objects */
	double (*v)[2];			/* [rep * NR_CMP_METRICS + metric][host, model] */
};

static void cmp_print(const struct host_usemem_opts *ho, long threads,
		      const struct cmp_runs *r, long reps, json_t *first_model)
{
	char pat[32];
	int i;
	long k;

	printf("lrulab host usemem --compare: %ld thread%s x %lu KiB file, memory limit %lu KiB, pattern %s, fadvise %s, %.2f s a run, %ld runs each, alternating (host first)\n",
	       threads, threads == 1 ? "" : "s", ho->b.mem >> 10, ho->b.max >> 10,
	       usemem_pattern_name(&ho->b, pat, sizeof(pat)), usemem_fadvise_name(&ho->b),
	       ho->b.seconds, reps);
	printf("host: Linux %s, cgroup %s, read_ahead_kb %lld; lrulab: memcg flush %s, read_ahead_kb %lld, read latency (us) by run:",
	       json_string_value(json_object_get(json_array_get(r->host, 0), "kernel")),
	       json_string_value(json_object_get(json_array_get(r->host, 0), "cgroup")),
	       json_integer_value(json_object_get(json_array_get(r->host, 0), "read_ahead_kb")),
	       json_string_value(json_object_get(first_model, "memcg_flush")),
	       json_integer_value(json_object_get(first_model, "read_ahead_kb")));
	for (k = 0; k < reps; k++)
		printf(" %lld", json_integer_value(json_object_get(json_array_get(r->model, (size_t)k),
								  "read_latency_us")));
	printf("\n\n%-42s %12s %12s %9s %12s\n", "median of the runs", "host kernel", "lrulab",
	       "ratio", "difference");
	for (i = 0; i < NR_CMP_METRICS; i++) {
		double h[100], m[100], mh, mm;

		for (k = 0; k < reps; k++) {
			h[k] = r->v[k * NR_CMP_METRICS + i][0];
			m[k] = r->v[k * NR_CMP_METRICS + i][1];
		}
		mh = median(h, (int)reps);
		mm = median(m, (int)reps);
		printf("%-42s %12.4g %12.4g %9.3f %+12.4g%s\n", cmp_metrics[i].name, mh, mm,
		       mh ? mm / mh : NAN, mm - mh, cmp_metrics[i].target ? "" : "  (context)");
	}
	printf("\nper run (host / lrulab):\n");
	for (i = 0; i < NR_CMP_METRICS; i++) {
		printf("  %-42s", cmp_metrics[i].name);
		for (k = 0; k < reps; k++)
			printf(" %.4g/%.4g", r->v[k * NR_CMP_METRICS + i][0],
			       r->v[k * NR_CMP_METRICS + i][1]);
		printf("\n");
	}
	printf("\nthe host's pgactivate and pgdeactivate are /proc/vmstat's: the whole machine's;\n"
	       "its readahead is traced (tracefs), the model's counted where the kernel's tracepoints are\n");
}

static json_t *cmp_json(const struct host_usemem_opts *ho, long threads,
			const struct cmp_runs *r, long reps)
{
	json_t *j = json_object(), *metrics = json_object();
	char pat[32];
	int i;
	long k;

	json_object_set_new(j, "engine", json_string("compare"));
	json_object_set_new(j, "workload", json_string("usemem"));
	json_object_set_new(j, "type", json_string("file"));
	json_object_set_new(j, "threads", json_integer(threads));
	json_object_set_new(j, "mem_per_thread", json_integer((json_int_t)ho->b.mem));
	json_object_set_new(j, "memory_max", json_integer((json_int_t)ho->b.max));
	json_object_set_new(j, "pattern", json_string(usemem_pattern_name(&ho->b, pat, sizeof(pat))));
	json_object_set_new(j, "fadvise", json_string(usemem_fadvise_name(&ho->b)));
	json_object_set_new(j, "seconds", json_real(ho->b.seconds));
	json_object_set_new(j, "reps", json_integer(reps));
	for (i = 0; i < NR_CMP_METRICS; i++) {
		json_t *m = json_object(), *hv = json_array(), *mv = json_array();
		double h[100], md[100], mh, mm;

		for (k = 0; k < reps; k++) {
			h[k] = r->v[k * NR_CMP_METRICS + i][0];
			md[k] = r->v[k * NR_CMP_METRICS + i][1];
			json_array_append_new(hv, json_num_or_null(h[k]));
			json_array_append_new(mv, json_num_or_null(md[k]));
		}
		mh = median(h, (int)reps);
		mm = median(md, (int)reps);
		json_object_set_new(m, "host", hv);
		json_object_set_new(m, "lrulab", mv);
		json_object_set_new(m, "host_median", json_num_or_null(mh));
		json_object_set_new(m, "lrulab_median", json_num_or_null(mm));
		json_object_set_new(m, "ratio", json_num_or_null(mh ? mm / mh : NAN));
		json_object_set_new(m, "difference", json_num_or_null(mm - mh));
		json_object_set_new(m, "target", json_boolean(cmp_metrics[i].target));
		json_object_set_new(metrics, cmp_metrics[i].name, m);
	}
	json_object_set_new(j, "metrics", metrics);
	json_object_set_new(j, "host_runs", json_incref(r->host));
	json_object_set_new(j, "lrulab_runs", json_incref(r->model));
	return j;
}

int host_usemem_compare(const char *prog, const struct host_usemem_opts *ho, long threads,
			const char *dir, struct host_cgroup *cg)
{
	struct cmp_runs r = { json_array(), json_array(), NULL };
	int status = 0, i;
	long k;

	r.v = calloc((size_t)(ho->reps * NR_CMP_METRICS), sizeof(*r.v));
	if (!r.v)
		status = 1;
	for (k = 0; k < ho->reps && !status; k++) {
		json_t *hj = NULL, *mj = NULL;
		struct bench_opts mo;
		int ret;

		status = host_usemem_once(prog, ho, threads, dir, cg, &hj);
		if (!hj) {
			fprintf(stderr, "%s: the host run gave no figures\n", prog);
			status = 1;
		}
		if (status) {
			json_decref(hj);
			break;
		}
		cmp_model_opts(ho, hj, &mo);
		ret = bench_usemem_run(&mo, threads, NULL, &mj);
		if (ret < 0 || !mj) {
			fprintf(stderr, "%s: cannot set up the model: %s\n", prog,
				ret < 0 ? strerror(-ret) : "no figures");
			json_decref(hj);
			json_decref(mj);
			status = 1;
			break;
		}
		if (ret) {
			fprintf(stderr, "%s: the model's run failed: %s\n", prog,
				json_object_get(mj, "error") ? "out of memory" : "invariants violated");
			status = 1;
		}
		for (i = 0; i < NR_CMP_METRICS; i++) {
			r.v[k * NR_CMP_METRICS + i][0] = cmp_value(&cmp_metrics[i], hj);
			r.v[k * NR_CMP_METRICS + i][1] = cmp_value(&cmp_metrics[i], mj);
		}
		json_array_append_new(r.host, hj);
		json_array_append_new(r.model, mj);
	}
	if (!status) {
		/* the run's figures, in text or as one JSON line */
		if (ho->b.json) {
			json_t *j = cmp_json(ho, threads, &r, ho->reps);

			bench_json_line(j);
			json_decref(j);
		} else {
			cmp_print(ho, threads, &r, ho->reps, json_array_get(r.model, 0));
		}
	}
	free(r.v);
	json_decref(r.host);
	json_decref(r.model);
	return status;
}
