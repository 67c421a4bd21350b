// SPDX-License-Identifier: MIT
/*
 * `lrulab repro s0|s1|s3|s4|all`: each seed mail's table, rebuilt on this
 * machine with the switch (or the layout build) off and on, and printed
 * in the mail's shape with the published numbers beside ours.  Every cell
 * is a set of A/B runs in fresh processes, alternated, with medians and a
 * bootstrap interval (bench_collect(), as `lrulab ab`).
 *
 * Thread counts scale: the mails' 20 and 80 threads on 80 CPUs are 25%
 * and 100% of the processors here.  Pages/s on a small machine is not the
 * mails' pages/s, so the tables also carry the figures that hold on any
 * machine (lru_lock acquisitions per 1000 pages, hold time per page, the
 * share of hold time spent in stat updates).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <lrulab/bench.h>
#include <lrulab/commands.h>
#include <lrulab/parse.h>

#define REPRO_PROG "lrulab repro"
#define REPRO_MAX_ROWS 24

/*
 * ---- published numbers ----
 *
 * Data copied from the mails in shared/seeds/, not results: they are
 * printed beside ours so that a reader compares shapes (which way, how
 * much), never absolute rates, which belong to an 80-CPU Skylake.
 */

/*
 * s0-lru-stat-batch.txt, "[PATCH v2] mm: move LRU size stat updates out
 * of lru_lock in folio batches" (Joanne Koong): 2-socket Skylake, 80
 * CPUs, threads pinned, fault-in and free in one memcg, pages/s averaged
 * over 7 fresh memcgs per run.
 */
static const struct s0_published {
	const char *type;
	int mail_threads;
	double before, after;
} s0_published[] = {
	{ "shmem", 20, 4.74e6, 5.47e6 },
	{ "shmem", 80, 7.94e6, 10.33e6 },
	{ "anon", 20, 3.04e6, 3.35e6 },
	{ "anon", 80, 3.23e6, 3.41e6 },
};
/* s0: "About 25% of the time spent holding lru_lock in those two paths
 * goes to the LRU stat updates" (80 threads, shmem, before the patch). */
#define S0_PUBLISHED_STAT_SHARE_PCT 25.0

/*
 * s1-vmstat-scan-cost.txt, "mm/vmscan: reduce lru_lock contention via
 * vmstat-derived scan-balance cost" v4 (Usama Arif): 176 cores, 256 GB,
 * `usemem -n 16 --prealloc --prefault --random 256M` in a two-level memcg
 * with memory.max=512M on the leaf, 16 GB swap file, a 30 s `perf lock
 * record -a` window; baseline and patched kernels.
 *
 *                          baseline    patched
 *   pgscan_direct  / s      172,662     171,817
 *   pgsteal_direct / s       67,162      66,306
 *   workingset_refault_anon / s
 *                            40,696      39,830
 *
 *   Lock Name (total wait per 30 s)   Before      After
 *   shrink_lruvec+0x770             722.84 ms    0       (lru_note_cost_unlock_irq)
 *   workingset_refault+0x167        385.26 ms    0       (lru_note_cost_refault)
 *   shrink_node+0x4ad               689.43 ms    26.95 ms
 *   shrink_active_list              208.34 ms    15.97 ms
 *   lru_add_drain_cpu+0x34            1.96 s    917.71 ms
 *   Total LRU lock wait              ~4.23 s     ~1.66 s
 *
 * Our sites are named by function: shrink_node+0x4ad is where shrink_node
 * inlines prepare_scan_control (the anon_cost/file_cost snapshot), and
 * lru_add_drain_cpu+0x34 the lru_lock of the folio_batch_move_lru it
 * inlines.
 */
#define S1_MAIL_PROCESSES	16
#define S1_MAIL_WINDOW_S	30
static const struct s1_rate {
	const char *label, *metric;
	double before, after;
} s1_rates[] = {
	{ "pgscan_direct", "pgscan_per_sec", 172662, 171817 },
	{ "pgsteal_direct", "pgsteal_per_sec", 67162, 66306 },
	{ "workingset_refault_anon", "workingset_refault_anon_per_sec", 40696, 39830 },
};
static const struct s1_site {
	const char *cls, *caller, *mail;	/* mail: its name there, if another */
	double before_ms, after_ms;	/* NAN: not in the mail */
} s1_sites[] = {
	{ "lru_lock", "lru_note_cost_unlock_irq", "shrink_lruvec+0x770", 722.84, 0 },
	{ "lru_lock", "lru_note_cost_refault", "workingset_refault+0x167", 385.26, 0 },
	{ "lru_lock", "prepare_scan_control", "shrink_node+0x4ad", 689.43, 26.95 },
	{ "lru_lock", "shrink_active_list", NULL, 208.34, 15.97 },
	{ "lru_lock", "folio_batch_move_lru", "lru_add_drain_cpu+0x34", 1960, 917.71 },
	{ "lru_lock", "shrink_inactive_list", NULL, NAN, NAN },
	{ "cost_lock", "lruvec_cost_sample", NULL, NAN, NAN },
};
#define S1_TOTAL_WAIT_BEFORE_MS	4230.0
#define S1_TOTAL_WAIT_AFTER_MS	1660.0

/*
 * s3-memcg-pn-layout.txt, "[PATCH v3 0/2] memcg: reduce cacheline
 * contention from lruvec stat" (Joanne Koong): same machine and
 * benchmark; base, patch 1 (memcg_pn_cold after memcg_pn_read_mostly),
 * patch 1+2 (folio stats to memcg and node directly).
 */
static const struct s3_published {
	const char *type;
	int mail_threads;
	double base, patch1, patch12;
} s3_published[] = {
	{ "shmem", 20, 4.74e6, 5.59e6, 5.77e6 },
	{ "shmem", 80, 7.94e6, 8.66e6, 8.82e6 },
	{ "anon", 20, 3.04e6, 3.08e6, 3.10e6 },
};

/*
 * s4-mthp-lru-cache.txt, "[RFC PATCH v3] mm: enable lru cache for smaller
 * large folios" (Barry Song): the mmap/write/MADV_DONTNEED
 * microbenchmark, 20 threads x 1000 loops x 16 MiB, `time` and `perf lock
 * report` (the lru_lock line) without and with the series.
 */
#define S4_MAIL_THREADS		20
#define S4_MAIL_LOOPS		1000
#define S4_MAIL_MEM		(16UL << 20)
#define S4_REAL_BEFORE		17.760
#define S4_REAL_AFTER		16.292
#define S4_LRU_ACQUIRED_BEFORE	21414857.0
#define S4_LRU_ACQUIRED_AFTER	2641286.0
/*
 * ... and Shivank Garg's Graph500 test of the series in the same thread
 * (AMD Zen 5, 320 cores): folio_lruvec_lock_irqsave contended counts per
 * mTHP size, base and patched.
 */
static const struct s4_published {
	unsigned long folio_size;
	double contended_before, contended_after;
} s4_published[] = {
	{ 4096, 834603, 844193 },
	{ 16384, 7008834, 840695 },
	{ 65536, 188144, 40874 },
};

/* ---- options ---- */

struct repro_opts {
	int cpus;
	long reps;
	double seconds;		/* per fault-free run */
	long memcgs;
	long loops;		/* per mmap-madvise run */
	double usemem_seconds;	/* per s1 usemem run */
	char mem[24];
	const char *out_dir;
	const char *before_bin, *after_bin;
	bool json, quick;
	FILE *progress;		/* NULL with --json */
	bool gnuplot_warned;
};

struct repro_row {
	char label[96];
	const char *unit;
	double pub_before, pub_after;	/* NAN where the mail has none */
	double before, after;		/* medians */
	double delta_pct, ci_low_pct, ci_high_pct;
	int n;
};

struct repro_table {
	const char *seed;
	const char *title;
	const char *before_name, *after_name;
	int nr_rows;
	struct repro_row rows[REPRO_MAX_ROWS];
	bool oversubscribed;
	json_t *runs;		/* every run's JSON object, by cell */
	json_t *extra;		/* seed-specific additions to the JSON table */
	char notes[4][200];
	int nr_notes;
};

/* 25% and 100% of the processors, as 20 and 80 were of the mails' 80 */
static long scaled_threads(const struct repro_opts *ro, int mail_threads)
{
	long n = (long)ro->cpus * mail_threads / 80;

	return n < 1 ? 1 : n;
}

static json_t *jreal(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void table_note(struct repro_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void table_note(struct repro_table *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nr_notes >= (int)ARRAY_SIZE(t->notes))
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nr_notes++], sizeof(t->notes[0]), fmt, ap);
	va_end(ap);
}

/* ---- running cells ---- */

struct repro_cell {
	int ncfg;
	struct bench_config cfg[3];
	int argc;
	char *argv[24];
	char bufs[8][32];
	int nbufs;
	json_t **runs[3];
	long reps;
};

static void cell_arg(struct repro_cell *c, const char *s)
{
	c->argv[c->argc++] = (char *)s;
}

static void cell_argf(struct repro_cell *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void cell_argf(struct repro_cell *c, const char *fmt, ...)
{
	va_list ap;
	char *b = c->bufs[c->nbufs++];

	va_start(ap, fmt);
	vsnprintf(b, sizeof(c->bufs[0]), fmt, ap);
	va_end(ap);
	cell_arg(c, b);
}

static void cell_free(struct repro_cell *c)
{
	int k, r;

	for (k = 0; k < c->ncfg; k++) {
		if (!c->runs[k])
			continue;
		for (r = 0; r < c->reps; r++)
			json_decref(c->runs[k][r]);
		free(c->runs[k]);
		c->runs[k] = NULL;
	}
}

/* Run the cell's configs alternately; keep every run in @t->runs. */
static int cell_run(const struct repro_opts *ro, struct repro_table *t,
		    struct repro_cell *c, const char *what, long reps)
{
	json_t *cell;
	int k, r;

	c->reps = reps;
	if (ro->progress) {
		fprintf(ro->progress, "  %-44s runs: ", what);
		fflush(ro->progress);
	}
	if (bench_collect(REPRO_PROG, c->cfg, c->ncfg, c->argc, c->argv, (int)reps,
			  c->runs, ro->progress))
		return -1;
	cell = json_object();
	json_object_set_new(cell, "cell", json_string(what));
	for (k = 0; k < c->ncfg; k++) {
		json_t *a = json_array();

		for (r = 0; r < reps; r++) {
			json_array_append(a, c->runs[k][r]);
			if (json_is_true(json_object_get(c->runs[k][r], "oversubscribed")))
				t->oversubscribed = true;
		}
		json_object_set_new(cell, c->cfg[k].label, a);
	}
	json_array_append_new(t->runs, cell);
	return 0;
}

/* A number from a run's JSON; "a.b" reads member b of object a. */
static double run_number(json_t *run, const char *key)
{
	const char *dot = strchr(key, '.');
	char head[64];

	if (!dot)
		return bench_json_number(run, key);
	snprintf(head, sizeof(head), "%.*s", (int)(dot - key), key);
	return bench_json_number(json_object_get(run, head), dot + 1);
}

/* Row from configs @ka (before) and @kb (after) of a cell. */
static int row_fill(struct repro_row *row, const struct repro_cell *c, int ka, int kb,
		    const char *metric)
{
	double *a = calloc(c->reps, sizeof(double)), *b = calloc(c->reps, sizeof(double));
	double lo, hi;
	int r, err = -1;

	if (!a || !b)
		goto out;
	for (r = 0; r < c->reps; r++) {
		a[r] = run_number(c->runs[ka][r], metric);
		b[r] = run_number(c->runs[kb][r], metric);
		if (isnan(a[r]) || isnan(b[r])) {
			fprintf(stderr, "%s: the runs report no number '%s'\n", REPRO_PROG, metric);
			goto out;
		}
	}
	row->n = (int)c->reps;
	row->before = bench_median(a, row->n);
	row->after = bench_median(b, row->n);
	row->delta_pct = row->before ? 100.0 * (row->after - row->before) / row->before : NAN;
	row->ci_low_pct = row->ci_high_pct = NAN;
	if (row->n > 1 && !bench_ratio_ci(a, row->n, b, row->n, BENCH_BOOTSTRAP_ITERS,
					  BENCH_BOOTSTRAP_SEED, &lo, &hi)) {
		row->ci_low_pct = 100.0 * (lo - 1);
		row->ci_high_pct = 100.0 * (hi - 1);
	}
	err = 0;
out:
	free(a);
	free(b);
	return err;
}

static struct repro_row *table_row(struct repro_table *t, const char *unit,
				   double pub_before, double pub_after, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static struct repro_row *table_row(struct repro_table *t, const char *unit,
				   double pub_before, double pub_after, const char *fmt, ...)
{
	struct repro_row *row = &t->rows[t->nr_rows++];
	va_list ap;

	memset(row, 0, sizeof(*row));
	va_start(ap, fmt);
	vsnprintf(row->label, sizeof(row->label), fmt, ap);
	va_end(ap);
	row->unit = unit;
	row->pub_before = pub_before;
	row->pub_after = pub_after;
	return row;
}

static void cell_common(const struct repro_opts *ro, struct repro_cell *c,
			const char *workload)
{
	memset(c, 0, sizeof(*c));
	cell_arg(c, workload);
	cell_arg(c, "--mem");
	cell_arg(c, ro->mem);
}

static void cfg_init(struct bench_config *cfg, const char *label, const char *bin)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->label = label;
	cfg->bin = bin;
}

static void cfg_arg(struct bench_config *cfg, const char *a, const char *b)
{
	cfg->args[cfg->nargs++] = a;
	cfg->args[cfg->nargs++] = b;
}

/* ---- s0 ---- */

static int repro_s0(const struct repro_opts *ro, struct repro_table *t)
{
	const char *self = bench_self_exe();
	size_t i;

	t->seed = "s0-lru-stat-batch";
	t->title = "mm: move LRU size stat updates out of lru_lock in folio batches";
	t->before_name = "lru-stat-batch off";
	t->after_name = "lru-stat-batch on";
	for (i = 0; i < ARRAY_SIZE(s0_published); i++) {
		const struct s0_published *p = &s0_published[i];
		long n = scaled_threads(ro, p->mail_threads);
		struct repro_cell c;
		char what[96];
		int err;

		cell_common(ro, &c, "fault-free");
		cell_arg(&c, "--type");
		cell_arg(&c, p->type);
		cell_arg(&c, "--threads");
		cell_argf(&c, "%ld", n);
		cell_arg(&c, "--seconds");
		cell_argf(&c, "%g", ro->seconds);
		cell_arg(&c, "--memcgs");
		cell_argf(&c, "%ld", ro->memcgs);
		c.ncfg = 2;
		cfg_init(&c.cfg[0], "before", self);
		cfg_arg(&c.cfg[0], "--without", "lru-stat-batch");
		cfg_init(&c.cfg[1], "after", self);
		cfg_arg(&c.cfg[1], "--with", "lru-stat-batch");
		snprintf(what, sizeof(what), "%s, %d threads (here %ld)", p->type,
			 p->mail_threads, n);
		if (cell_run(ro, t, &c, what, ro->reps)) {
			cell_free(&c);
			return -1;
		}
		err = row_fill(table_row(t, "pages/s", p->before, p->after, "%s", what),
			       &c, 0, 1, "pages_per_sec");
		if (!err && p->mail_threads == 80)
			err = row_fill(table_row(t, "ns/page", NAN, NAN,
						 "%s: lru_lock hold per page", what),
				       &c, 0, 1, "lru_lock_hold_ns_per_page");
		cell_free(&c);
		if (err)
			return -1;
	}

	/*
	 * The mail's profile: the share of lru_lock hold time in the LRU stat
	 * updates, 80 threads of shmem.  Timing every section lengthens the
	 * hold, so these runs are separate from the throughput runs.
	 */
	{
		long n = scaled_threads(ro, 80);
		struct repro_cell c;
		char what[96];
		int err;

		cell_common(ro, &c, "fault-free");
		cell_arg(&c, "--type");
		cell_arg(&c, "shmem");
		cell_arg(&c, "--threads");
		cell_argf(&c, "%ld", n);
		cell_arg(&c, "--seconds");
		cell_argf(&c, "%g", ro->seconds);
		cell_arg(&c, "--memcgs");
		cell_arg(&c, "1");
		cell_arg(&c, "--profile-hold");
		c.ncfg = 2;
		cfg_init(&c.cfg[0], "before", self);
		cfg_arg(&c.cfg[0], "--without", "lru-stat-batch");
		cfg_init(&c.cfg[1], "after", self);
		cfg_arg(&c.cfg[1], "--with", "lru-stat-batch");
		snprintf(what, sizeof(what), "shmem, 80 threads (here %ld), --profile-hold", n);
		if (cell_run(ro, t, &c, what, ro->reps > 2 ? 2 : ro->reps)) {
			cell_free(&c);
			return -1;
		}
		err = row_fill(table_row(t, "%", S0_PUBLISHED_STAT_SHARE_PCT, NAN,
					 "shmem, 80 (here %ld): node+memcg stat share of hold", n),
			       &c, 0, 1, "hold_profile.node_memcg_stat_pct");
		if (!err)
			err = row_fill(table_row(t, "%", NAN, NAN,
						 "shmem, 80 (here %ld): all stat updates share", n),
				       &c, 0, 1, "hold_profile.stat_pct");
		cell_free(&c);
		if (err)
			return -1;
	}
	table_note(t, "fault-free, %ld fresh memcg%s per run, %g s per run; median of %ld runs per cell, before/after alternating, each a fresh process",
		   ro->memcgs, ro->memcgs == 1 ? "" : "s", ro->seconds, ro->reps);
	return 0;
}

/* ---- s1 ---- */

/*
 * Per-site sums of a usemem run's "locks" (a caller can own several
 * sites), kept in the run's JSON as "s1_sites" so rows read them as
 * "s1_sites.CALLER_wait_ms" and "s1_sites.CALLER_per_1k".
 */
static void s1_add_sites(json_t *run)
{
	double reclaimed = bench_json_number(run, "pgsteal");
	json_t *o = json_object(), *l;
	char key[96];
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(s1_sites); k++) {
		double acq = 0, wait = 0;

		json_array_foreach(json_object_get(run, "locks"), i, l) {
			const char *cls = json_string_value(json_object_get(l, "class"));
			const char *caller = json_string_value(json_object_get(l, "caller"));

			if (!cls || !caller || strcmp(cls, s1_sites[k].cls) ||
			    strcmp(caller, s1_sites[k].caller))
				continue;
			acq += bench_json_number(l, "acquired");
			wait += bench_json_number(l, "wait_total_ns");
		}
		snprintf(key, sizeof(key), "%s_wait_ms", s1_sites[k].caller);
		json_object_set_new(o, key, json_real(wait / 1e6));
		snprintf(key, sizeof(key), "%s_per_1k", s1_sites[k].caller);
		json_object_set_new(o, key, json_real(reclaimed > 0 ? 1000 * acq / reclaimed : 0));
	}
	json_object_set_new(o, "lru_lock_wait_ms",
			    json_real(bench_json_number(run, "lru_lock_wait_total_ns") / 1e6));
	json_object_set_new(run, "s1_sites", o);
}

/* lru_lock sites go by their caller alone, others by lock and caller */
static const char *s1_site_prefix(const struct s1_site *p)
{
	return strcmp(p->cls, "lru_lock") ? "cost_lock:" : "";
}

static int repro_s1(const struct repro_opts *ro, struct repro_table *t)
{
	const char *self = bench_self_exe();
	long n = ro->cpus < S1_MAIL_PROCESSES ? ro->cpus : S1_MAIL_PROCESSES;
	struct repro_cell c;
	char what[96], key[96];
	size_t i;
	long r;
	int k, err = 0;

	t->seed = "s1-vmstat-scan-cost";
	t->title = "mm/vmscan: reduce lru_lock contention via vmstat-derived scan-balance cost";
	t->before_name = "vmstat-scan-cost off";
	t->after_name = "vmstat-scan-cost on";

	memset(&c, 0, sizeof(c));
	cell_arg(&c, "usemem");
	cell_arg(&c, "--mem");
	cell_arg(&c, "8M");
	cell_arg(&c, "--threads");
	cell_argf(&c, "%ld", n);
	cell_arg(&c, "--seconds");
	cell_argf(&c, "%g", ro->usemem_seconds);
	c.ncfg = 2;
	cfg_init(&c.cfg[0], "before", self);
	cfg_arg(&c.cfg[0], "--without", "vmstat-scan-cost");
	cfg_init(&c.cfg[1], "after", self);
	cfg_arg(&c.cfg[1], "--with", "vmstat-scan-cost");
	snprintf(what, sizeof(what), "usemem, %d processes (here %ld threads)",
		 S1_MAIL_PROCESSES, n);
	if (cell_run(ro, t, &c, what, ro->reps)) {
		cell_free(&c);
		return -1;
	}
	for (k = 0; k < c.ncfg; k++)
		for (r = 0; r < c.reps; r++)
			s1_add_sites(c.runs[k][r]);

	for (i = 0; !err && i < ARRAY_SIZE(s1_rates); i++)
		err = row_fill(table_row(t, "/s", s1_rates[i].before, s1_rates[i].after,
					 "%s / s", s1_rates[i].label),
			       &c, 0, 1, s1_rates[i].metric);
	for (i = 0; !err && i < ARRAY_SIZE(s1_sites); i++) {
		const struct s1_site *p = &s1_sites[i];

		snprintf(key, sizeof(key), "s1_sites.%s_wait_ms", p->caller);
		err = row_fill(table_row(t, "ms", p->before_ms, p->after_ms, "wait %s%s%s%s%s",
					 s1_site_prefix(p), p->caller, p->mail ? " (" : "",
					 p->mail ? p->mail : "", p->mail ? ")" : ""),
			       &c, 0, 1, key);
	}
	if (!err)
		err = row_fill(table_row(t, "ms", S1_TOTAL_WAIT_BEFORE_MS, S1_TOTAL_WAIT_AFTER_MS,
					 "wait, every lru_lock site"),
			       &c, 0, 1, "s1_sites.lru_lock_wait_ms");
	/* what holds on any machine: how often reclaim takes the locks */
	for (i = 0; !err && i < ARRAY_SIZE(s1_sites); i++) {
		snprintf(key, sizeof(key), "s1_sites.%s_per_1k", s1_sites[i].caller);
		err = row_fill(table_row(t, "/1k recl", NAN, NAN, "acquisitions %s%s",
					 s1_site_prefix(&s1_sites[i]), s1_sites[i].caller),
			       &c, 0, 1, key);
	}
	if (!err)
		err = row_fill(table_row(t, "/1k recl", NAN, NAN,
					 "acquisitions, every lru_lock site"),
			       &c, 0, 1, "lru_lock_acquisitions_per_1k_reclaimed");
	cell_free(&c);
	if (err)
		return -1;
	table_note(t, "usemem --random, %ld threads x %s in a two-level memcg, leaf memory.max an eighth of it; %g s measured per run after the prefault",
		   n, "8M", ro->usemem_seconds);
	table_note(t, "median of %ld runs, before/after alternating, each a fresh process; wait in ms: published over the mail's %d s window, ours over each run's",
		   ro->reps, S1_MAIL_WINDOW_S);
	table_note(t, "compare the deltas and the acquisitions per 1000 reclaimed pages (which hold on any machine), not the absolute rates");
	return 0;
}

/* ---- s3 ---- */

static bool bin_ok(const char *path)
{
	return path && !access(path, X_OK);
}

/*
 * The two layout builds sit side by side under build/: release (and
 * static) are pn-default, pncold (and static-pncold) pn-cold-pairing.
 */
static void find_layout_bins(const struct repro_opts *ro, char *before, char *after,
			     size_t len)
{
	bool self_cold = !strcmp(lrulab_pn_layout_name(), "pn-cold-pairing");
	char self[1024], parent[1024], base[1024];
	char *slash;
	size_t l;

	/* self = PARENT/BASE/lrulab */
	snprintf(self, sizeof(self), "%s", bench_self_exe());
	snprintf(parent, sizeof(parent), "%s", self);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(parent, sizeof(parent), ".");
	slash = strrchr(parent, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : parent);
	if (slash)
		*slash = '\0';
	else
		snprintf(parent, sizeof(parent), ".");
	l = strlen(base);

	if (ro->before_bin)
		snprintf(before, len, "%s", ro->before_bin);
	else if (!self_cold)
		snprintf(before, len, "%s", self);
	else if (l > 7 && !strcmp(base + l - 7, "-pncold"))	/* static-pncold */
		snprintf(before, len, "%s/%.*s/lrulab", parent, (int)(l - 7), base);
	else
		snprintf(before, len, "%s/release/lrulab", parent);

	if (ro->after_bin) {
		snprintf(after, len, "%s", ro->after_bin);
	} else if (self_cold) {
		snprintf(after, len, "%s", self);
	} else {
		snprintf(after, len, "%s/%s-pncold/lrulab", parent, base);
		if (!bin_ok(after))
			snprintf(after, len, "%s/pncold/lrulab", parent);
	}
}

/*
 * Per-memcg throughput by where the memcg's per-node info starts in its
 * 128-byte pair: each memcg's pages/s over its run's mean, so that
 * run-to-run drift cancels, averaged per offset.  The s3 thread says
 * it is bimodal before patch 1 and uniform after.
 */
static json_t *offset_split(json_t **runs, long reps, double rel[2], int cnt[2])
{
	double sum[2] = { 0, 0 };
	long r;

	cnt[0] = cnt[1] = 0;
	for (r = 0; r < reps; r++) {
		double mean = bench_json_number(runs[r], "pages_per_sec");
		json_t *m, *memcgs = json_object_get(runs[r], "memcgs");
		size_t i;

		if (!(mean > 0))
			continue;
		json_array_foreach(memcgs, i, m) {
			int off = bench_json_number(m, "pn_offset128") >= 64;

			sum[off] += bench_json_number(m, "pages_per_sec") / mean;
			cnt[off]++;
		}
	}
	rel[0] = cnt[0] ? sum[0] / cnt[0] : NAN;
	rel[1] = cnt[1] ? sum[1] / cnt[1] : NAN;
	return json_pack("{s:o, s:o, s:i, s:i}", "offset0_rel", jreal(rel[0]),
			 "offset64_rel", jreal(rel[1]), "offset0_memcgs", cnt[0],
			 "offset64_memcgs", cnt[1]);
}

struct s3_mail_row {
	char label[96];
	double ours[3];
	const struct s3_published *p;
	double rel[3][2];
	int cnt[3][2];
};

static int repro_s3(struct repro_opts *ro, struct repro_table *t,
		    struct s3_mail_row *mail, int *nr_mail)
{
	static const char *const names[3] = { "base", "patch 1", "patch 1+2" };
	static char before[4096], after[4096];
	json_t *offsets = json_array();
	size_t i;

	t->seed = "s3-memcg-pn-layout";
	t->title = "memcg: reduce cacheline contention from lruvec stat";
	t->before_name = "base (pn-default build)";
	t->after_name = "patch 1 (pn-cold-pairing build), patch 1+2 (+ memcg-direct-stat)";
	t->extra = json_object();
	json_object_set_new(t->extra, "memcg_offsets", offsets);
	*nr_mail = 0;

	find_layout_bins(ro, before, after, sizeof(before));
	if (!bin_ok(before) || !bin_ok(after)) {
		fprintf(stderr, "%s: s3 needs both layout builds, %s and %s (`make` builds build/pncold/lrulab; or --before-bin/--after-bin)\n",
			REPRO_PROG, before, after);
		return -1;
	}
	json_object_set_new(t->extra, "before_bin", json_string(before));
	json_object_set_new(t->extra, "after_bin", json_string(after));
	table_note(t, "base: %s", before);
	table_note(t, "patch 1: %s; patch 1+2: the same with --with memcg-direct-stat", after);

	for (i = 0; i < ARRAY_SIZE(s3_published); i++) {
		const struct s3_published *p = &s3_published[i];
		long n = scaled_threads(ro, p->mail_threads);
		struct s3_mail_row *mr = &mail[(*nr_mail)++];
		struct repro_cell c;
		char what[96];
		int k, err = 0;

		cell_common(ro, &c, "fault-free");
		cell_arg(&c, "--type");
		cell_arg(&c, p->type);
		cell_arg(&c, "--threads");
		cell_argf(&c, "%ld", n);
		cell_arg(&c, "--seconds");
		cell_argf(&c, "%g", ro->seconds);
		cell_arg(&c, "--memcgs");
		cell_argf(&c, "%ld", ro->memcgs);
		c.ncfg = 3;
		cfg_init(&c.cfg[0], names[0], before);
		cfg_arg(&c.cfg[0], "--without", "memcg-direct-stat");
		cfg_init(&c.cfg[1], names[1], after);
		cfg_arg(&c.cfg[1], "--without", "memcg-direct-stat");
		cfg_init(&c.cfg[2], names[2], after);
		cfg_arg(&c.cfg[2], "--with", "memcg-direct-stat");
		snprintf(what, sizeof(what), "%s, %d threads (here %ld)", p->type,
			 p->mail_threads, n);
		snprintf(mr->label, sizeof(mr->label), "%s", what);
		mr->p = p;
		if (cell_run(ro, t, &c, what, ro->reps)) {
			cell_free(&c);
			return -1;
		}
		err = row_fill(table_row(t, "pages/s", p->base, p->patch1, "%s: patch 1", what),
			       &c, 0, 1, "pages_per_sec");
		if (!err)
			err = row_fill(table_row(t, "pages/s", p->base, p->patch12,
						 "%s: patch 1+2", what),
				       &c, 0, 2, "pages_per_sec");
		for (k = 0; !err && k < 3; k++) {
			double *a = calloc(c.reps, sizeof(double));
			json_t *o;
			long r;

			if (!a) {
				err = -1;
				break;
			}
			for (r = 0; r < c.reps; r++)
				a[r] = bench_json_number(c.runs[k][r], "pages_per_sec");
			mr->ours[k] = bench_median(a, (int)c.reps);
			free(a);
			o = offset_split(c.runs[k], c.reps, mr->rel[k], mr->cnt[k]);
			json_object_set_new(o, "cell", json_string(what));
			json_object_set_new(o, "config", json_string(names[k]));
			json_array_append_new(offsets, o);
			/* the layout of the binary, as the run itself reports it */
			if (!i) {
				const char *lay = json_string_value(
					json_object_get(c.runs[k][0], "pn_layout"));
				const char *want = k ? "pn-cold-pairing" : "pn-default";

				if (!lay || strcmp(lay, want))
					table_note(t, "WARNING: %s ran layout %s, not %s", names[k],
						   lay ? lay : "?", want);
			}
		}
		cell_free(&c);
		if (err)
			return -1;
	}
	table_note(t, "fault-free, %ld fresh memcg%s per run, %g s per run; median of %ld runs per cell, the three alternating, each a fresh process",
		   ro->memcgs, ro->memcgs == 1 ? "" : "s", ro->seconds, ro->reps);
	return 0;
}

/* ---- s4 ---- */

static int repro_s4(const struct repro_opts *ro, struct repro_table *t)
{
	static const unsigned long sizes[] = { 16384, 4096, 65536 };
	const char *self = bench_self_exe();
	long n = scaled_threads(ro, 80);
	double mail_pages = (double)S4_MAIL_THREADS * S4_MAIL_LOOPS * (S4_MAIL_MEM / PAGE_SIZE);
	size_t i;

	t->seed = "s4-mthp-lru-cache";
	t->title = "mm: enable lru cache for smaller large folios";
	t->before_name = "mthp-lru-cache off";
	t->after_name = "mthp-lru-cache on";
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned long kb = sizes[i] >> 10;
		const struct s4_published *gp = NULL;
		struct repro_cell c;
		char what[96];
		size_t g;
		int err;

		for (g = 0; g < ARRAY_SIZE(s4_published); g++)
			if (s4_published[g].folio_size == sizes[i])
				gp = &s4_published[g];
		cell_common(ro, &c, "mmap-madvise");
		cell_arg(&c, "--threads");
		cell_argf(&c, "%ld", n);
		cell_arg(&c, "--loops");
		cell_argf(&c, "%ld", ro->loops);
		cell_arg(&c, "--folio-size");
		cell_argf(&c, "%luK", kb);
		c.ncfg = 2;
		cfg_init(&c.cfg[0], "before", self);
		cfg_arg(&c.cfg[0], "--without", "mthp-lru-cache");
		cfg_init(&c.cfg[1], "after", self);
		cfg_arg(&c.cfg[1], "--with", "mthp-lru-cache");
		snprintf(what, sizeof(what), "mmap-madvise %luK, %d threads (here %ld)", kb,
			 S4_MAIL_THREADS, n);
		if (cell_run(ro, t, &c, what, ro->reps)) {
			cell_free(&c);
			return -1;
		}
		err = 0;
		if (sizes[i] == 16384)
			err = row_fill(table_row(t, "s", S4_REAL_BEFORE, S4_REAL_AFTER,
						 "%luK: real time, %ld loops (mail 1000)", kb, ro->loops),
				       &c, 0, 1, "seconds");
		if (!err)
			/* the mail's counts over the pages its benchmark faulted */
			err = row_fill(table_row(t, "/1k pages",
						 sizes[i] == 16384 ? 1000 * S4_LRU_ACQUIRED_BEFORE / mail_pages : NAN,
						 sizes[i] == 16384 ? 1000 * S4_LRU_ACQUIRED_AFTER / mail_pages : NAN,
						 "%luK: lru_lock acquisitions", kb),
				       &c, 0, 1, "lru_lock_acquisitions_per_1k_pages");
		if (!err)
			err = row_fill(table_row(t, "count", gp ? gp->contended_before : NAN,
						 gp ? gp->contended_after : NAN,
						 "%luK: lru_lock contended (pub.: Graph500)", kb),
				       &c, 0, 1, "lru_lock_contended");
		cell_free(&c);
		if (err)
			return -1;
	}
	table_note(t, "mmap-madvise (the mail's microbenchmark), 100%% of the processors (the mail's 20 threads all ran at once), %ld loops; median of %ld runs per cell, alternating, fresh processes",
		   ro->loops, ro->reps);
	table_note(t, "published contended counts are Shivank Garg's Graph500 runs (320 cores); compare their deltas, not the counts");
	return 0;
}

/* ---- output ---- */

static void fmt_val(char *buf, size_t len, double v, const char *unit)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (!strcmp(unit, "s"))
		snprintf(buf, len, v < 1 ? "%.4f" : "%.3f", v);
	else if (!strcmp(unit, "%") || !strcmp(unit, "ns/page") || !strcmp(unit, "/1k pages") ||
		 !strcmp(unit, "ms") || !strcmp(unit, "/1k recl"))
		snprintf(buf, len, "%.1f", v);
	else if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(buf, len, "%.1fK", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

static void fmt_pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", v);
}

static double pub_delta(const struct repro_row *r)
{
	if (isnan(r->pub_before) || isnan(r->pub_after) || !r->pub_before)
		return NAN;
	return 100.0 * (r->pub_after - r->pub_before) / r->pub_before;
}

static void print_table(const struct repro_opts *ro, const struct repro_table *t)
{
	char pb[16], pa[16], pd[16], b[16], a[16], d[16], lo[16], hi[16], ci[64];
	int i;

	printf("\n== %s: %s\n", t->seed, t->title);
	printf("   before: %s; after: %s\n", t->before_name, t->after_name);
	for (i = 0; i < t->nr_notes; i++)
		printf("   %s\n", t->notes[i]);
	if (t->oversubscribed)
		printf("   WARNING: OVERSUBSCRIBED: more threads than processors; wait times and pages/s mean little\n");
	printf("\n%-58s %-9s | %-26s | %s\n", "", "", "published", "this machine");
	printf("%-58s %-9s | %8s %8s %8s | %8s %8s %8s  %s\n", "", "unit", "before", "after",
	       "delta", "before", "after", "delta", "95% CI");
	for (i = 0; i < t->nr_rows; i++) {
		const struct repro_row *r = &t->rows[i];

		fmt_val(pb, sizeof(pb), r->pub_before, r->unit);
		fmt_val(pa, sizeof(pa), r->pub_after, r->unit);
		fmt_pct(pd, sizeof(pd), pub_delta(r));
		fmt_val(b, sizeof(b), r->before, r->unit);
		fmt_val(a, sizeof(a), r->after, r->unit);
		fmt_pct(d, sizeof(d), r->delta_pct);
		if (isnan(r->ci_low_pct)) {
			snprintf(ci, sizeof(ci), "-");
		} else {
			fmt_pct(lo, sizeof(lo), r->ci_low_pct);
			fmt_pct(hi, sizeof(hi), r->ci_high_pct);
			snprintf(ci, sizeof(ci), "[%s, %s]%s", lo, hi,
				 r->ci_low_pct <= 0 && r->ci_high_pct >= 0 ? " no difference" : "");
		}
		printf("%-58s %-9s | %8s %8s %8s | %8s %8s %8s  %s\n", r->label, r->unit,
		       pb, pa, pd, b, a, d, ci);
	}
}

/* s3 as the cover letter prints it: base, patch 1, patch 1+2 side by side. */
static void print_s3_mail(const struct s3_mail_row *mail, int n)
{
	char v[3][16], p[3][16];
	int i, k;

	printf("\n   in the cover letter's shape (pages/s; published | this machine):\n");
	printf("   %-34s %8s %8s %9s | %8s %8s %9s\n", "", "base", "patch 1", "patch 1+2",
	       "base", "patch 1", "patch 1+2");
	for (i = 0; i < n; i++) {
		const double pub[3] = { mail[i].p->base, mail[i].p->patch1, mail[i].p->patch12 };

		for (k = 0; k < 3; k++) {
			fmt_val(p[k], sizeof(p[k]), pub[k], "pages/s");
			fmt_val(v[k], sizeof(v[k]), mail[i].ours[k], "pages/s");
		}
		printf("   %-34s %8s %8s %9s | %8s %8s %9s\n", mail[i].label, p[0], p[1], p[2],
		       v[0], v[1], v[2]);
	}
	printf("\n   per-memcg pages/s over its run's mean, by pn offset %% 128 (0 | 64)\n");
	printf("   (bimodal before patch 1, uniform after, says the thread):\n");
	for (i = 0; i < n; i++) {
		printf("   %-34s", mail[i].label);
		for (k = 0; k < 3; k++) {
			if (isnan(mail[i].rel[k][0]) || isnan(mail[i].rel[k][1]))
				printf("  %s: %s", k == 0 ? "base" : k == 1 ? "p1" : "p1+2",
				       "one offset only");
			else
				printf("  %s: %.3f | %.3f", k == 0 ? "base" : k == 1 ? "p1" : "p1+2",
				       mail[i].rel[k][0], mail[i].rel[k][1]);
		}
		printf("\n");
	}
}

static json_t *table_json(const struct repro_opts *ro, const struct repro_table *t,
			  const char *machine)
{
	json_t *j = json_object(), *rows = json_array(), *notes = json_array();
	const char *key;
	json_t *v;
	int i;

	json_object_set_new(j, "seed", json_string(t->seed));
	json_object_set_new(j, "title", json_string(t->title));
	json_object_set_new(j, "machine", json_string(machine));
	json_object_set_new(j, "cpus", json_integer(ro->cpus));
	json_object_set_new(j, "reps", json_integer(ro->reps));
	json_object_set_new(j, "oversubscribed", json_boolean(t->oversubscribed));
	json_object_set_new(j, "before", json_string(t->before_name));
	json_object_set_new(j, "after", json_string(t->after_name));
	for (i = 0; i < t->nr_rows; i++) {
		const struct repro_row *r = &t->rows[i];

		json_array_append_new(rows, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
			"label", r->label, "unit", r->unit,
			"published_before", jreal(r->pub_before),
			"published_after", jreal(r->pub_after),
			"published_delta_pct", jreal(pub_delta(r)),
			"before", jreal(r->before), "after", jreal(r->after),
			"delta_pct", jreal(r->delta_pct),
			"ci_low_pct", jreal(r->ci_low_pct),
			"ci_high_pct", jreal(r->ci_high_pct), "runs", r->n));
	}
	json_object_set_new(j, "rows", rows);
	for (i = 0; i < t->nr_notes; i++)
		json_array_append_new(notes, json_string(t->notes[i]));
	json_object_set_new(j, "notes", notes);
	if (t->extra)
		json_object_foreach(t->extra, key, v)
			json_object_set(j, key, v);
	return j;
}

static bool have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save = NULL;

	if (!path)
		return false;
	snprintf(buf, sizeof(buf), "%s", path);
	for (dir = strtok_r(buf, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char exe[4200];

		snprintf(exe, sizeof(exe), "%s/gnuplot", dir);
		if (!access(exe, X_OK))
			return true;
	}
	return false;
}

/* Published and measured deltas per row, our interval as error bars. */
static int write_plot(struct repro_opts *ro, const struct repro_table *t)
{
	char dat[4096], gp[4096], png[4096];
	FILE *f;
	pid_t pid;
	int i, status;

	snprintf(dat, sizeof(dat), "%s/%s.dat", ro->out_dir, t->seed);
	snprintf(gp, sizeof(gp), "%s/%s.gp", ro->out_dir, t->seed);
	snprintf(png, sizeof(png), "%s/%s.png", ro->out_dir, t->seed);
	f = fopen(dat, "w");
	if (!f)
		return -1;
	fprintf(f, "# label published_delta_pct delta_pct ci_low_pct ci_high_pct\n");
	for (i = 0; i < t->nr_rows; i++) {
		const struct repro_row *r = &t->rows[i];
		double pd = pub_delta(r);

		fprintf(f, "\"%s\" ", r->label);
		fprintf(f, isnan(pd) ? "? " : "%g ", pd);
		fprintf(f, isnan(r->delta_pct) ? "? " : "%g ", r->delta_pct);
		fprintf(f, isnan(r->ci_low_pct) ? "? " : "%g ", r->ci_low_pct);
		fprintf(f, isnan(r->ci_high_pct) ? "?\n" : "%g\n", r->ci_high_pct);
	}
	fclose(f);
	f = fopen(gp, "w");
	if (!f)
		return -1;
	fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "  set terminal pngcairo size 1200,640 font ',9'\n"
		   "} else {\n"
		   "  set terminal png size 1200,640\n"
		   "}\n"
		   "set termoption noenhanced\n"
		   "set output '%s'\n"
		   "set title '%s: delta after/before (%%), published vs this machine (%d CPUs, 95%% CI)'\n"
		   "set datafile missing '?'\n"
		   "set style fill solid 0.6 border -1\n"
		   "set boxwidth 0.35\n"
		   "set ylabel 'delta %%'\n"
		   "set xtics rotate by 30 right\n"
		   "set bmargin 16\n"
		   "set lmargin 28\n"
		   "set grid ytics\n"
		   "set key top left\n"
		   "set xzeroaxis\n"
		   "plot '%s' using ($0-0.18):2:xtic(1) with boxes title 'published', \\\n"
		   "     '' using ($0+0.18):3 with boxes title 'this machine', \\\n"
		   "     '' using ($0+0.18):3:4:5 with yerrorbars lc rgb 'black' pt 0 notitle\n",
		png, t->seed, ro->cpus, dat);
	fclose(f);

	if (!have_gnuplot()) {
		if (!ro->gnuplot_warned)
			fprintf(stderr, "%s: gnuplot not found: no PNG written (install gnuplot-nox)\n",
				REPRO_PROG);
		ro->gnuplot_warned = true;
		return 0;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execlp("gnuplot", "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: gnuplot failed on %s: no PNG\n", REPRO_PROG, gp);
		return 0;
	}
	return 0;
}

static int write_json_file(const char *path, json_t *j)
{
	if (json_dump_file(j, path, JSON_INDENT(1))) {
		fprintf(stderr, "%s: cannot write %s\n", REPRO_PROG, path);
		return -1;
	}
	return 0;
}

static int mkdir_p(const char *dir)
{
	char buf[4096], *p;

	snprintf(buf, sizeof(buf), "%s", dir);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return -1;
	return 0;
}

/* ---- the command ---- */

static const struct option repro_long_options[] = {
	{ "quick", no_argument, NULL, 'q' },
	{ "reps", required_argument, NULL, 'r' },
	{ "seconds", required_argument, NULL, 's' },
	{ "memcgs", required_argument, NULL, 'M' },
	{ "loops", required_argument, NULL, 'l' },
	{ "usemem-seconds", required_argument, NULL, 'u' },
	{ "mem", required_argument, NULL, 'm' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "out", required_argument, NULL, 'o' },
	{ "before-bin", required_argument, NULL, 'B' },
	{ "after-bin", required_argument, NULL, 'A' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void repro_usage(FILE *f)
{
	fprintf(f, "usage: lrulab repro s0|s1|s3|s4|all [--quick] [--reps N] [--seconds S]\n"
		   "                    [--memcgs N] [--loops N] [--usemem-seconds S] [--mem SIZE] [--cpus N]\n"
		   "                    [--out DIR] [--before-bin PATH] [--after-bin PATH] [--json]\n"
		   "\n"
		   "Rebuilds each seed mail's table at this machine's scale (20 and 80 threads\n"
		   "of the mails' 80 CPUs become 25%% and 100%% of --cpus, by default the\n"
		   "processors here), with the published numbers beside ours.  Writes\n"
		   "DIR/SEED.json, the runs behind it, and a gnuplot PNG (DIR: results).\n"
		   "s3 runs the pn-default and pn-cold-pairing builds (build/release and\n"
		   "build/pncold, or --before-bin and --after-bin).  s1 runs usemem with all\n"
		   "processors (at most the mail's 16), --usemem-seconds each (default 4.5).\n"
		   "--quick: tiny runs, for tests.\n");
}

static int repro_one(struct repro_opts *ro, const char *which, const char *machine)
{
	struct repro_table t;
	struct s3_mail_row mail[ARRAY_SIZE(s3_published)];
	int nr_mail = 0, err;
	char path[4096];
	json_t *j;

	memset(&t, 0, sizeof(t));
	t.runs = json_array();
	if (ro->progress) {
		fprintf(ro->progress, "\n%s:\n", which);
		fflush(ro->progress);
	}
	if (!strcmp(which, "s0"))
		err = repro_s0(ro, &t);
	else if (!strcmp(which, "s1"))
		err = repro_s1(ro, &t);
	else if (!strcmp(which, "s3"))
		err = repro_s3(ro, &t, mail, &nr_mail);
	else
		err = repro_s4(ro, &t);
	if (err) {
		json_decref(t.runs);
		json_decref(t.extra);
		return -1;
	}

	j = table_json(ro, &t, machine);
	if (ro->json) {
		char *s = json_dumps(j, JSON_COMPACT);

		printf("%s\n", s);
		free(s);
	} else {
		print_table(ro, &t);
		if (nr_mail)
			print_s3_mail(mail, nr_mail);
	}
	snprintf(path, sizeof(path), "%s/%s.json", ro->out_dir, t.seed);
	err = write_json_file(path, j);
	if (!err) {
		snprintf(path, sizeof(path), "%s/%s-runs.json", ro->out_dir, t.seed);
		err = write_json_file(path, t.runs);
	}
	if (!err && write_plot(ro, &t))
		fprintf(stderr, "%s: cannot write the plot files under %s\n", REPRO_PROG,
			ro->out_dir);
	if (!ro->json && !err)
		printf("   written: %s/%s.json, %s-runs.json, %s.png\n", ro->out_dir, t.seed,
		       t.seed, t.seed);
	fflush(stdout);
	json_decref(j);
	json_decref(t.runs);
	json_decref(t.extra);
	return err;
}

int cmd_repro(int argc, char **argv)
{
	struct repro_opts ro = {
		.cpus = lrulab_nr_processors(),
		/*
		 * `make run` on a 2-CPU machine: about 150 runs of under a
		 * second each, well inside five minutes with the build.
		 */
		.reps = 7,
		.seconds = 0.6,
		.memcgs = 7,
		.loops = 50,
		.usemem_seconds = 4.5,
		.mem = "16M",
		.out_dir = "results",
	};
	static const char *const all[] = { "s0", "s1", "s3", "s4" };
	bool reps_given = false, seconds_given = false, memcgs_given = false,
	     loops_given = false, mem_given = false, usemem_given = false;
	const char *which;
	char machine[512];
	struct timespec t0, t1;
	unsigned long mem;
	size_t i;
	long v;
	int c, failed = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", repro_long_options, NULL)) != -1) {
		switch (c) {
		case 'q':
			ro.quick = true;
			break;
		case 'r':
			if (parse_long(REPRO_PROG, "--reps", optarg, 1, 1000, &ro.reps))
				return 2;
			reps_given = true;
			break;
		case 's':
			if (parse_double(REPRO_PROG, "--seconds", optarg, 0.001, 3600, &ro.seconds))
				return 2;
			seconds_given = true;
			break;
		case 'M':
			if (parse_long(REPRO_PROG, "--memcgs", optarg, 1, BENCH_MAX_MEMCGS, &ro.memcgs))
				return 2;
			memcgs_given = true;
			break;
		case 'l':
			if (parse_long(REPRO_PROG, "--loops", optarg, 1, 1000000, &ro.loops))
				return 2;
			loops_given = true;
			break;
		case 'u':
			if (parse_double(REPRO_PROG, "--usemem-seconds", optarg, 0.01, 3600,
					 &ro.usemem_seconds))
				return 2;
			usemem_given = true;
			break;
		case 'm':
			if (parse_size(REPRO_PROG, "--mem", optarg, &mem))
				return 2;
			if (mem % (64UL << 10) || mem > BENCH_MAX_MEM) {
				fprintf(stderr, "%s: --mem: must be a multiple of 64K and at most 1G\n",
					REPRO_PROG);
				return 2;
			}
			snprintf(ro.mem, sizeof(ro.mem), "%luK", mem >> 10);
			mem_given = true;
			break;
		case 'c':
			if (parse_long(REPRO_PROG, "--cpus", optarg, 1, LRULAB_MAX_CPUS, &v))
				return 2;
			ro.cpus = (int)v;
			break;
		case 'o':
			ro.out_dir = optarg;
			break;
		case 'B':
			ro.before_bin = optarg;
			break;
		case 'A':
			ro.after_bin = optarg;
			break;
		case 'j':
			ro.json = true;
			break;
		case 'h':
			repro_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "%s: unknown or incomplete option '%s'\n", REPRO_PROG,
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no seed given (s0, s1, s3, s4 or all)\n", REPRO_PROG);
		return 2;
	}
	which = argv[optind];
	if (strcmp(which, "s0") && strcmp(which, "s1") && strcmp(which, "s3") &&
	    strcmp(which, "s4") && strcmp(which, "all")) {
		fprintf(stderr, "%s: unknown seed '%s' (s0, s1, s3, s4 or all)\n", REPRO_PROG,
			which);
		return 2;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", REPRO_PROG, argv[optind + 1]);
		return 2;
	}
	/* --quick: the whole path in seconds, for tests; the figures mean nothing */
	if (ro.quick) {
		if (!reps_given)
			ro.reps = 2;
		if (!seconds_given)
			ro.seconds = 0.02;
		if (!memcgs_given)
			ro.memcgs = 2;
		if (!loops_given)
			ro.loops = 1;
		if (!usemem_given)
			ro.usemem_seconds = 0.05;
		if (!mem_given)
			snprintf(ro.mem, sizeof(ro.mem), "256K");
	}
	if (mkdir_p(ro.out_dir)) {
		fprintf(stderr, "%s: cannot create %s: %s\n", REPRO_PROG, ro.out_dir,
			strerror(errno));
		return 2;
	}
	ro.progress = ro.json ? NULL : stdout;

	bench_machine_describe(machine, sizeof(machine));
	if (!ro.json) {
		printf("lrulab repro %s\nmachine: %s\n", which, machine);
		printf("threads: the mails' 20 and 80 of 80 CPUs are %ld and %ld of %d here; switches: %s\n",
		       scaled_threads(&ro, 20), scaled_threads(&ro, 80), ro.cpus, bench_switch_list());
		if (ro.cpus > lrulab_nr_processors())
			printf("WARNING: OVERSUBSCRIBED: --cpus %d is more than the %d processors here\n",
			       ro.cpus, lrulab_nr_processors());
		fflush(stdout);
	} else if (ro.cpus > lrulab_nr_processors()) {
		fprintf(stderr, "%s: warning: OVERSUBSCRIBED: --cpus %d is more than the %d processors here\n",
			REPRO_PROG, ro.cpus, lrulab_nr_processors());
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		if (strcmp(which, "all") && strcmp(which, all[i]))
			continue;
		if (repro_one(&ro, all[i], machine))
			failed++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ro.json)
		printf("\nlrulab repro %s: done in %.1f s%s\n", which,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       failed ? " (with failures)" : "");
	return failed ? 1 : 0;
}
