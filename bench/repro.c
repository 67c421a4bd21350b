// SPDX-License-Identifier: MIT
/*
 * `lrulab repro s0|s1|s2|s3|s4|all`: each seed mail's table, rebuilt on this
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
 *
 * This file holds the options, the running of a cell and the filling of
 * a row from it, and the command; repro_seeds.c the published numbers and
 * each seed's table, repro_output.c the text tables, JSON, plot and files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "tools/commands.h"
#include "tools/outfile.h"
#include "tools/parse.h"

#include "repro.h"

/* ---- options ---- */

/* 25% and 100% of the processors, as 20 and 80 were of the mails' 80 */
long repro_scaled_threads(const struct repro_opts *ro, int mail_threads)
{
	long n = (long)ro->cpus * mail_threads / 80;

	return n < 1 ? 1 : n;
}

json_t *repro_jreal(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static repro_predict_fn repro_predictor;

void repro_predict_register(repro_predict_fn fn)
{
	repro_predictor = fn;
}

/*
 * A note past the table's room is not dropped unsaid: the last slot
 * counts what was left out; one past its length ends in "...".
 */
void repro_table_note(struct repro_table *t, const char *fmt, ...)
{
	char *n;
	va_list ap;
	int len;

	if (t->nr_notes >= REPRO_MAX_NOTES) {
		t->notes_left_out++;
		snprintf(t->notes[REPRO_MAX_NOTES - 1], REPRO_NOTE_LEN,
			 "(%d notes left out: a table holds %d)", t->notes_left_out + 1,
			 REPRO_MAX_NOTES);
		return;
	}
	n = t->notes[t->nr_notes++];
	va_start(ap, fmt);
	len = vsnprintf(n, REPRO_NOTE_LEN, fmt, ap);
	va_end(ap);
	if (len >= REPRO_NOTE_LEN)
		memcpy(n + REPRO_NOTE_LEN - 4, "...", 4);
}

/* ---- running cells ---- */

void repro_cell_arg(struct repro_cell *c, const char *s)
{
	c->argv[c->argc++] = (char *)s;
}

void repro_cell_argf(struct repro_cell *c, const char *fmt, ...)
{
	va_list ap;
	char *b = c->bufs[c->nbufs++];

	va_start(ap, fmt);
	vsnprintf(b, sizeof(c->bufs[0]), fmt, ap);
	va_end(ap);
	repro_cell_arg(c, b);
}

void repro_cell_free(struct repro_cell *c)
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
int repro_cell_run(const struct repro_opts *ro, struct repro_table *t,
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
		return json_number(run, key);
	snprintf(head, sizeof(head), "%.*s", (int)(dot - key), key);
	return json_number(json_object_get(run, head), dot + 1);
}

/* The median absolute deviation of @v: how far a run strays from the median. */
static double repro_mad(const double *v, int n)
{
	double m = median_double(v, n), *d = malloc(n * sizeof(*d)), mad;
	int i;

	if (!d)
		return NAN;
	for (i = 0; i < n; i++)
		d[i] = fabs(v[i] - m);
	mad = median_double(d, n);
	free(d);
	return mad;
}

/* Row from configs @ka (before) and @kb (after) of a cell. */
int repro_row_fill(struct repro_row *row, const struct repro_cell *c, int ka, int kb,
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
	row->before = median_double(a, row->n);
	row->after = median_double(b, row->n);
	row->delta_pct = row->before ? 100.0 * (row->after - row->before) / row->before : NAN;
	row->ci_low_pct = row->ci_high_pct = NAN;
	if (row->n > 1 && !bench_ratio_ci(a, row->n, b, row->n, BENCH_BOOTSTRAP_ITERS,
					  BENCH_BOOTSTRAP_SEED, &lo, &hi)) {
		row->ci_low_pct = 100.0 * (lo - 1);
		row->ci_high_pct = 100.0 * (hi - 1);
	}
	row->resolution = fmax(repro_unit_step(row->unit),
			       fmax(repro_mad(a, row->n), repro_mad(b, row->n)));
	if (fabs(row->before) <= row->resolution && fabs(row->after) <= row->resolution) {
		/* 0.011 ms -> 0 is not -100%: both are noise */
		row->below_resolution = true;
		row->delta_pct = row->ci_low_pct = row->ci_high_pct = NAN;
	}
	err = 0;
out:
	free(a);
	free(b);
	return err;
}

struct repro_row *repro_table_row(struct repro_table *t, const char *unit,
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

void repro_cell_common(const struct repro_opts *ro, struct repro_cell *c,
		       const char *workload)
{
	memset(c, 0, sizeof(*c));
	repro_cell_arg(c, workload);
	repro_cell_arg(c, "--mem");
	repro_cell_arg(c, ro->mem);
}

void repro_cfg_init(struct bench_config *cfg, const char *label, const char *bin)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->label = label;
	cfg->bin = bin;
}

void repro_cfg_arg(struct bench_config *cfg, const char *a, const char *b)
{
	cfg->args[cfg->nargs++] = a;
	cfg->args[cfg->nargs++] = b;
}

/* s0 and s3 run the same workload, sized alike, so that their cells compare. */
void repro_cell_fault_free(const struct repro_opts *ro, struct repro_cell *c,
			   const char *type, long threads, long memcgs)
{
	repro_cell_common(ro, c, "fault-free");
	repro_cell_arg(c, "--type");
	repro_cell_arg(c, type);
	repro_cell_arg(c, "--threads");
	repro_cell_argf(c, "%ld", threads);
	repro_cell_arg(c, "--seconds");
	repro_cell_argf(c, "%g", ro->seconds);
	repro_cell_arg(c, "--memcgs");
	repro_cell_argf(c, "%ld", memcgs);
	repro_cell_calibrate(ro, c, "fault-free", type, 0);
}

/* Before and after: @bin without and with switch @sw. */
void repro_cell_switch(struct repro_cell *c, const char *bin, const char *sw)
{
	c->ncfg = 2;
	repro_cfg_init(&c->cfg[0], "before", bin);
	repro_cfg_arg(&c->cfg[0], "--without", sw);
	repro_cfg_init(&c->cfg[1], "after", bin);
	repro_cfg_arg(&c->cfg[1], "--with", sw);
}

/* ---- the command ---- */

static const struct option repro_long_options[] = {
	{ "quick", no_argument, NULL, 'q' },
	{ "reps", required_argument, NULL, 'r' },
	{ "seconds", required_argument, NULL, 's' },
	{ "memcgs", required_argument, NULL, 'M' },
	{ "loops", required_argument, NULL, 'l' },
	{ "usemem-seconds", required_argument, NULL, 'u' },
	{ "swap-io", required_argument, NULL, 'I' },
	{ "mem", required_argument, NULL, 'm' },
	{ "s2-mem", required_argument, NULL, 'S' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "out", required_argument, NULL, 'o' },
	{ "before-bin", required_argument, NULL, 'B' },
	{ "calibrate", no_argument, NULL, 'C' },
	{ "after-bin", required_argument, NULL, 'A' },
	{ "json", no_argument, NULL, 'j' },
	{ "predict", no_argument, NULL, 'P' },
	{ "fit", no_argument, NULL, 'F' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void repro_usage(FILE *f)
{
	fprintf(f, "usage: lrulab repro s0|s1|s2|s3|s4|all [--quick] [--reps N] [--seconds S]\n"
		   "                    [--memcgs N] [--loops N] [--usemem-seconds S] [--swap-io sync|async]\n"
		   "                    [--mem SIZE] [--s2-mem SIZE] [--cpus N] [--out DIR] [--before-bin PATH]\n"
		   "                    [--after-bin PATH] [--calibrate] [--predict [--fit]] [--json]\n"
		   "\n"
		   "Rebuilds each seed mail's table at this machine's scale (20 and 80 threads\n"
		   "of the mails' 80 CPUs become 25%% and 100%% of --cpus, by default the\n"
		   "processors here), with the published numbers beside ours.  Writes\n"
		   "DIR/SEED.json, the runs behind it, and a gnuplot PNG (DIR: results).\n"
		   "s3 runs the pn-default and pn-cold-pairing builds (build/release and\n"
		   "build/pncold, or --before-bin and --after-bin).  s1 runs usemem with all\n"
		   "processors (at most the mail's 16), --usemem-seconds each (default 4.5),\n"
		   "swapping to a disk as the mail's swap file (--swap-io async, the default:\n"
		   "100 us a write and a read), or with --swap-io sync to zram's synchronous\n"
		   "device (its table is then s1-vmstat-scan-cost-sync).\n"
		   "s2 runs mglru-age at the mail's 1, 8, 32 and 64 processes sharing one\n"
		   "--s2-mem file (default 64M, so that `make run` stays short; the mail's is 2G).\n"
		   "--calibrate: the fault-free and mmap-madvise runs get the --fault-work that\n"
		   "matches this machine's kernel, found once per workload shape (as bench\n"
		   "--calibrate finds it) before the table runs.\n"
		   "--predict: s0, s1, s3 and s4 also get the rows lrulab predict gives at the\n"
		   "mail's CPU counts on the mail's machine profile (profiles/skylake-2s-80), with\n"
		   "the P10-P90 band of paired draws in the CI column (s3: each side recorded by\n"
		   "its own build, both placements of mem_cgroup_per_node averaged); s2 each\n"
		   "pass on profiles/i7-13700hx, its locked ops at that profile's cost and the\n"
		   "rest at the core speed its 1-process row fits.\n"
		   "--fit (with --predict): s0's and s4's predictions take the target's one-thread\n"
		   "speed, which no mail gives, from one published row each, the one the locks\n"
		   "weigh least in (s0: each workload's 20-thread after row; s4: 16K after), the\n"
		   "same factor over lrulab's for both sides, five recordings a side; that row is\n"
		   "marked fitted and the others check it.  With --calibrate (lru_lock's holds and the work the\n"
		   "kernel's, as measured here) the factor is the target core's speed over this\n"
		   "machine's, holds and work alike, fitted once for s0 on shmem's row: anon's\n"
		   "rows check it.  Without --fit the speed is lrulab's own here (or, with\n"
		   "--calibrate, this machine's kernel's).\n"
		   "--quick: tiny runs, for tests, written under results/quick unless --out;\n"
		   "a --quick run never replaces a full run's table.\n");
}

static int repro_one(struct repro_opts *ro, const char *which, const char *machine)
{
	struct repro_table t;
	struct s3_mail_row mail[REPRO_S3_MAIL_ROWS];
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
	else if (!strcmp(which, "s2"))
		err = repro_s2(ro, &t);
	else if (!strcmp(which, "s3"))
		err = repro_s3(ro, &t, mail, &nr_mail);
	else
		err = repro_s4(ro, &t);
	if (!err && ro->predict)
		err = repro_predictor(ro, &t, which);
	if (err) {
		json_decref(t.runs);
		json_decref(t.extra);
		return -1;
	}

	j = repro_table_json(ro, &t, machine);
	if (ro->json) {
		bench_json_line(j);
	} else {
		repro_print_table(ro, &t);
		if (nr_mail)
			repro_print_s3_mail(mail, nr_mail);
	}
	snprintf(path, sizeof(path), "%s/%s.json", ro->out_dir, t.seed);
	err = repro_check_replace(ro, path);
	if (!err)
		err = repro_write_json_file(path, j);
	if (!err) {
		snprintf(path, sizeof(path), "%s/%s-runs.json", ro->out_dir, t.seed);
		err = repro_write_json_file(path, t.runs);
	}
	/* each of its failures is one line of its own */
	if (!err && repro_write_plot(ro, &t))
		err = -1;
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
		/* the s1 mail's "16 GB swap file": a disk's, not zram's */
		.swap_async = true,
		.loops = 50,
		.usemem_seconds = 4.5,
		.mem = "16M",
		.mem_bytes = 16UL << 20,
		.s2_mem = "64M",
		.s2_mem_bytes = 64UL << 20,
		.out_dir = "results",
	};
	static const char *const all[] = { "s0", "s1", "s2", "s3", "s4" };
	bool reps_given = false, seconds_given = false, memcgs_given = false, out_given = false,
	     loops_given = false, mem_given = false, usemem_given = false, s2_mem_given = false;
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
		case 'I':
			if (strcmp(optarg, "sync") && strcmp(optarg, "async")) {
				fprintf(stderr, "%s: --swap-io: unknown device '%s' (sync or async)\n",
					REPRO_PROG, optarg);
				return 2;
			}
			ro.swap_async = !strcmp(optarg, "async");
			break;
		case 'm':
			if (parse_size_max(REPRO_PROG, "--mem", optarg, BENCH_MAX_MEM,
					   "per thread", &mem))
				return 2;
			if (mem % (64UL << 10)) {
				fprintf(stderr, "%s: --mem: must be a multiple of 64K\n",
					REPRO_PROG);
				return 2;
			}
			snprintf(ro.mem, sizeof(ro.mem), "%luK", mem >> 10);
			ro.mem_bytes = mem;
			mem_given = true;
			break;
		case 'S':
			if (parse_size_max(REPRO_PROG, "--s2-mem", optarg, BENCH_MAX_SHARED_MEM,
					   NULL, &mem))
				return 2;
			if (!mem || mem % PAGE_SIZE) {
				fprintf(stderr, "%s: --s2-mem: must be a positive multiple of 4K\n",
					REPRO_PROG);
				return 2;
			}
			snprintf(ro.s2_mem, sizeof(ro.s2_mem), "%luK", mem >> 10);
			ro.s2_mem_bytes = mem;
			s2_mem_given = true;
			break;
		case 'c':
			if (parse_long(REPRO_PROG, "--cpus", optarg, 1, LRULAB_MAX_CPUS, &v))
				return 2;
			ro.cpus = (int)v;
			break;
		case 'o':
			ro.out_dir = optarg;
			out_given = true;
			break;
		case 'C':
			ro.calibrate = true;
			break;
		case 'B':
			if (parse_program(REPRO_PROG, "--before-bin", optarg))
				return 2;
			ro.before_bin = optarg;
			break;
		case 'A':
			if (parse_program(REPRO_PROG, "--after-bin", optarg))
				return 2;
			ro.after_bin = optarg;
			break;
		case 'j':
			ro.json = true;
			break;
		case 'P':
			if (!repro_predictor) {
				fprintf(stderr, "%s: --predict: this build has no predictor\n",
					REPRO_PROG);
				return 2;
			}
			ro.predict = true;
			break;
		case 'F':
			ro.fit = true;
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
		fprintf(stderr, "%s: no seed given (s0, s1, s2, s3, s4 or all)\n", REPRO_PROG);
		return 2;
	}
	which = argv[optind];
	if (strcmp(which, "s0") && strcmp(which, "s1") && strcmp(which, "s2") &&
	    strcmp(which, "s3") && strcmp(which, "s4") && strcmp(which, "all")) {
		fprintf(stderr, "%s: unknown seed '%s' (s0, s1, s2, s3, s4 or all)\n", REPRO_PROG,
			which);
		return 2;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", REPRO_PROG, argv[optind + 1]);
		return 2;
	}
	/* the two builds are s3's (a struct layout); no other seed runs them */
	if ((ro.before_bin || ro.after_bin) && strcmp(which, "s3") && strcmp(which, "all")) {
		fprintf(stderr, "%s: %s: only s3 runs two builds (%s is not s3 or all)\n",
			REPRO_PROG, ro.before_bin ? "--before-bin" : "--after-bin", which);
		return 2;
	}
	if (ro.fit && !ro.predict) {
		fprintf(stderr, "%s: --fit fits the predicted rows: it needs --predict\n", REPRO_PROG);
		return 2;
	}
	if (ro.fit && strcmp(which, "s0") && strcmp(which, "s4") && strcmp(which, "all")) {
		fprintf(stderr, "%s: --fit: only s0 and s4 fit a speed (%s is not s0, s4 or all)\n",
			REPRO_PROG, which);
		return 2;
	}
	/* --quick: the whole path in seconds, for tests; the figures mean nothing */
	if (ro.quick) {
		/* beside a full run's tables, never over them */
		if (!out_given)
			ro.out_dir = "results/quick";
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
		if (!s2_mem_given) {
			snprintf(ro.s2_mem, sizeof(ro.s2_mem), "256K");
			ro.s2_mem_bytes = 256UL << 10;
		}
	}
	/* made if need be and written to once, before any run starts */
	if (out_dir_check(REPRO_PROG, ro.out_dir, true))
		return 2;
	ro.progress = ro.json ? NULL : stdout;

	bench_machine_describe(machine, sizeof(machine));
	if (!ro.json) {
		printf("lrulab repro %s\nmachine: %s\n", which, machine);
		printf("threads: the mails' 20 and 80 of 80 CPUs are %ld and %ld of %d here; switches: %s\n",
		       repro_scaled_threads(&ro, 20), repro_scaled_threads(&ro, 80), ro.cpus,
		       bench_switch_list());
		printf("writing under %s%s\n", ro.out_dir, ro.quick ?
		       " (--quick: tiny runs whose figures mean nothing)" : "");
		if (ro.cpus > lrulab_nr_processors())
			printf("WARNING: OVERSUBSCRIBED: --cpus %d is more than the %d processor%s here\n",
			       ro.cpus, lrulab_nr_processors(),
			       lrulab_nr_processors() == 1 ? "" : "s");
		fflush(stdout);
	} else if (ro.cpus > lrulab_nr_processors()) {
		fprintf(stderr, "%s: warning: OVERSUBSCRIBED: --cpus %d is more than the %d processor%s here\n",
			REPRO_PROG, ro.cpus, lrulab_nr_processors(),
			lrulab_nr_processors() == 1 ? "" : "s");
	}

	if (bench_signals_catch()) {
		fprintf(stderr, "%s: cannot catch SIGINT and SIGTERM\n", REPRO_PROG);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < ARRAY_SIZE(all) && !bench_interrupted; i++) {
		if (strcmp(which, "all") && strcmp(which, all[i]))
			continue;
		if (repro_one(&ro, all[i], machine))
			failed++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ro.json)
		printf("\nlrulab repro %s: done in %.1f s%s\n", which,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		       bench_interrupted ? " (interrupted)" : failed ? " (with failures)" : "");
	return bench_exit_status(failed ? 1 : 0);
}
