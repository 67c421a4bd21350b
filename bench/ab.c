// SPDX-License-Identifier: MIT
/*
 * `lrulab ab`: two configurations of one workload, run alternately
 * (A B A B ...) so that drift of the machine (frequency, other load)
 * lands on both sides alike, each run a fresh process with fresh memcgs,
 * so that no run inherits another's allocator or slab state.  It quotes
 * medians, not means, because a preempted run is an outlier on one side
 * only, and the B/A ratio with a bootstrap 95% interval; an interval
 * that covers 1 is "no difference".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "tools/commands.h"
#include "tools/parse.h"

#define AB_PROG "lrulab ab"

/*
 * Runs per side below which no verdict is given.  With n runs a side, the
 * strongest evidence there can be, every B run above every A run, has a
 * two-sided exact rank-test p of 2 / C(2n, n): 0.33, 0.1 at n = 2, 3 and
 * 0.029 at n = 4.  Below 4 no outcome is significant at 5%, however
 * narrow the bootstrap's interval (at n = 1 it is the one ratio itself).
 */
#define AB_MIN_REPS 4

#define AB_MAX_PREDICT_CPUS	8

struct ab_opts {
	long reps;
	const char *metric;
	bool json;
	struct bench_config cfg[2];
	/* --predict-cpus, --machine: predicted there instead of measured here */
	long predict_cpus[AB_MAX_PREDICT_CPUS];
	int nr_predict_cpus;
	const char *machine;
};

static bench_ab_predict_fn ab_predictor;

void bench_ab_predict_register(bench_ab_predict_fn fn)
{
	ab_predictor = fn;
}

static const struct option ab_long_options[] = {
	{ "reps", required_argument, NULL, 'r' },
	{ "metric", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "a-bin", required_argument, NULL, 'A' },
	{ "b-bin", required_argument, NULL, 'B' },
	{ "a-with", required_argument, NULL, '1' },
	{ "a-without", required_argument, NULL, '2' },
	{ "b-with", required_argument, NULL, '3' },
	{ "b-without", required_argument, NULL, '4' },
	{ "ab", required_argument, NULL, 'x' },
	{ "predict-cpus", required_argument, NULL, 'p' },
	{ "machine", required_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void ab_usage(FILE *f)
{
	fprintf(f, "usage: lrulab ab [--reps N] [--metric KEY] [--json]\n"
		   "                 [--a-bin PATH] [--b-bin PATH] [--ab SWITCH]\n"
		   "                 [--a-with SWITCH]... [--a-without SWITCH]...\n"
		   "                 [--b-with SWITCH]... [--b-without SWITCH]...\n"
		   "                 [--predict-cpus N[,N...] --machine PROFILE]\n"
		   "                 -- WORKLOAD [bench options]\n"
		   "\n"
		   "Runs `lrulab bench WORKLOAD ...` as A and as B, alternately, --reps times\n"
		   "each (default 5), every run in a fresh process, and compares the medians\n"
		   "of KEY from the runs' JSON (default pages_per_sec).  --ab SWITCH is\n"
		   "--a-without SWITCH --b-with SWITCH.  A thread list runs the comparison\n"
		   "once per thread count.  A and B must differ (a switch or a binary), and a\n"
		   "verdict (B higher, B lower, no difference) needs --reps %d or more.\n"
		   "\n"
		   "--predict-cpus N[,N...] --machine PROFILE predicts A and B at those CPU\n"
		   "counts of the profile's machine instead (lrulab predict's recordings of\n"
		   "each side here, both simulated with the same draws): pages/s, the change\n"
		   "with the P10-P90 band of the paired draws, and a verdict when the band\n"
		   "is on one side of zero.  A and B are switches of this binary.\n",
		   AB_MIN_REPS);
}

static int add_switch_arg(struct bench_config *c, const char *flag, const char *sw)
{
	enum lrulab_switch which;

	if (lrulab_switch_parse(sw, &which)) {
		fprintf(stderr, "%s: unknown switch '%s' (%s)\n", AB_PROG, sw,
			bench_switch_list());
		return -1;
	}
	if (c->nargs + 2 > BENCH_MAX_CONFIG_ARGS) {
		fprintf(stderr, "%s: too many switch options for %s\n", AB_PROG, c->label);
		return -1;
	}
	c->args[c->nargs++] = flag;
	c->args[c->nargs++] = sw;
	return 0;
}

/*
 * Check the bench options as each side will run them, here, so that a
 * bad option is one error line before any run rather than a failed child.
 */
static int ab_check_bench(const struct bench_workload *w, const struct bench_config *c,
			  int argc, char **argv, struct bench_opts *o)
{
	char **all = calloc(argc + c->nargs + 1, sizeof(char *));
	int i, n = 0, ret;

	if (!all)
		return 2;
	for (i = 0; i < argc; i++)
		all[n++] = argv[i];
	for (i = 0; i < c->nargs; i++)
		all[n++] = (char *)c->args[i];
	bench_defaults(w, o);
	ret = bench_parse(w, AB_PROG, n, all, o);
	free(all);
	return ret;
}

/* One file under two names (a link, "./lrulab" and its full path) is one binary. */
static bool same_binary(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return !strcmp(a, b);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * A against itself measures only noise, which a verdict would present as
 * a difference: the same binary with the same switches in effect (an
 * explicit --without of a switch that is off anyway changes nothing).
 */
static bool ab_identical(const struct ab_opts *o, const struct bench_opts bo[2])
{
	int i;

	if (!same_binary(o->cfg[0].bin, o->cfg[1].bin))
		return false;
	for (i = 0; i < NR_LRULAB_SWITCHES; i++)
		if ((bo[0].sw[i] == 1) != (bo[1].sw[i] == 1))
			return false;
	return true;
}

static void fmt_value(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e4)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

struct ab_result {
	long threads;
	double *a, *b;
	double ma, mb, ratio, lo, hi;
	bool ci_ok;
	const char *layout[2];
};

static void ab_print(const struct ab_opts *o, const struct ab_result *res)
{
	char ma[32], mb[32];
	int r;

	fmt_value(ma, sizeof(ma), res->ma);
	fmt_value(mb, sizeof(mb), res->mb);
	printf("%7ld %14s %14s %8.4f   ", res->threads, ma, mb, res->ratio);
	if (o->reps < AB_MIN_REPS)
		printf("no verdict: %ld run%s a side, a verdict needs --reps %d or more\n",
		       o->reps, o->reps == 1 ? "" : "s", AB_MIN_REPS);
	else if (res->ci_ok)
		printf("[%.4f, %.4f]   %s\n", res->lo, res->hi,
		       bench_ci_covers_one(res->lo, res->hi) ? "no difference" :
		       res->ratio > 1 ? "B higher" : "B lower");
	else
		printf("(no interval)\n");
	for (r = 0; r < 2; r++) {
		const double *v = r ? res->b : res->a;
		char buf[32];
		long i;

		printf("        %s runs:", r ? "B" : "A");
		for (i = 0; i < o->reps; i++) {
			fmt_value(buf, sizeof(buf), v[i]);
			printf(" %s", buf);
		}
		printf("\n");
	}
}

static json_t *ab_json(const struct ab_opts *o, const char *workload,
		       const struct ab_result *res, int argc, char **argv)
{
	json_t *j = json_object(), *args = json_array();
	int side, i;

	for (i = 0; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	json_object_set_new(j, "workload", json_string(workload));
	json_object_set_new(j, "bench_args", args);
	json_object_set_new(j, "metric", json_string(o->metric));
	json_object_set_new(j, "threads", json_integer(res->threads));
	json_object_set_new(j, "reps", json_integer(o->reps));
	for (side = 0; side < 2; side++) {
		const struct bench_config *c = &o->cfg[side];
		json_t *s = json_object(), *v = json_array(), *a = json_array();

		for (i = 0; i < c->nargs; i++)
			json_array_append_new(a, json_string(c->args[i]));
		for (i = 0; i < o->reps; i++)
			json_array_append_new(v, json_real(side ? res->b[i] : res->a[i]));
		json_object_set_new(s, "bin", json_string(c->bin));
		json_object_set_new(s, "args", a);
		json_object_set_new(s, "pn_layout", json_string(res->layout[side] ?
								res->layout[side] : "?"));
		json_object_set_new(s, "values", v);
		json_object_set_new(s, "median", json_real(side ? res->mb : res->ma));
		json_object_set_new(j, side ? "b" : "a", s);
	}
	json_object_set_new(j, "ratio", json_real(res->ratio));
	/* too few runs: no interval and no verdict, only what would give one */
	json_object_set_new(j, "min_reps_for_verdict", json_integer(AB_MIN_REPS));
	if (o->reps >= AB_MIN_REPS && res->ci_ok) {
		json_object_set_new(j, "ci_low", json_real(res->lo));
		json_object_set_new(j, "ci_high", json_real(res->hi));
		json_object_set_new(j, "no_difference",
				    json_boolean(bench_ci_covers_one(res->lo, res->hi)));
	}
	return j;
}

/* One thread count: the runs, then the figures. */
static int ab_one(const struct ab_opts *o, const struct bench_workload *w, long threads,
		  int argc, char **argv)
{
	char tbuf[24], **args = calloc(argc + 3, sizeof(char *));
	json_t **runs[2] = { NULL, NULL };
	struct ab_result res = { .threads = threads };
	int i, side, ret = 1;

	if (!args)
		return 1;
	args[0] = (char *)w->name;
	for (i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	/* a later --threads wins, so the list in @argv is overridden */
	snprintf(tbuf, sizeof(tbuf), "%ld", threads);
	args[argc + 1] = "--threads";
	args[argc + 2] = tbuf;
	if (!o->json) {
		printf("  %ld thread%s: runs ", threads, threads == 1 ? "" : "s");
		fflush(stdout);
	}
	if (bench_collect(AB_PROG, o->cfg, 2, argc + 3, args, (int)o->reps, runs,
			  o->json ? NULL : stdout))
		goto out;

	res.a = calloc(o->reps, sizeof(double));
	res.b = calloc(o->reps, sizeof(double));
	if (!res.a || !res.b)
		goto out;
	for (side = 0; side < 2; side++) {
		for (i = 0; i < o->reps; i++) {
			double v = json_number(runs[side][i], o->metric);

			if (isnan(v)) {
				fprintf(stderr, "%s: --metric: the runs report no number '%s'\n",
					AB_PROG, o->metric);
				goto out;
			}
			(side ? res.b : res.a)[i] = v;
		}
		res.layout[side] = json_string_value(json_object_get(runs[side][0], "pn_layout"));
	}
	res.ma = median_double(res.a, (int)o->reps);
	res.mb = median_double(res.b, (int)o->reps);
	res.ratio = res.ma ? res.mb / res.ma : NAN;
	res.ci_ok = !bench_ratio_ci(res.a, (int)o->reps, res.b, (int)o->reps,
				    BENCH_BOOTSTRAP_ITERS, BENCH_BOOTSTRAP_SEED,
				    &res.lo, &res.hi);
	if (o->json) {
		json_t *j = ab_json(o, w->name, &res, argc, argv);

		bench_json_line(j);
		json_decref(j);
	} else {
		printf("%7s %14s %14s %8s   %s\n", "threads", "A median", "B median", "B/A",
		       "95% CI (bootstrap)");
		ab_print(o, &res);
	}
	ret = 0;
out:
	for (side = 0; side < 2; side++) {
		if (!runs[side])
			continue;
		for (i = 0; i < o->reps; i++)
			json_decref(runs[side][i]);
		free(runs[side]);
	}
	free(res.a);
	free(res.b);
	free(args);
	return ret;
}

int cmd_ab(int argc, char **argv)
{
	struct ab_opts o = {
		.reps = 5, .metric = "pages_per_sec",
		.cfg = { { .label = "A" }, { .label = "B" } },
	};
	const struct bench_workload *w;
	struct bench_opts bo[2];
	int c, i, ret, bargc;
	char **bargv;

	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, which is where bench's begin */
	while ((c = getopt_long(argc, argv, "+", ab_long_options, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (parse_long(AB_PROG, "--reps", optarg, 1, 1000, &o.reps))
				return 2;
			break;
		case 'm':
			o.metric = optarg;
			break;
		case 'j':
			o.json = true;
			break;
		case 'A':
		case 'B':
			if (parse_program(AB_PROG, c == 'B' ? "--b-bin" : "--a-bin", optarg))
				return 2;
			o.cfg[c == 'B'].bin = optarg;
			break;
		case '1':
		case '2':
		case '3':
		case '4':
			if (add_switch_arg(&o.cfg[c >= '3'],
					   (c - '1') % 2 ? "--without" : "--with", optarg))
				return 2;
			break;
		case 'x':
			if (add_switch_arg(&o.cfg[0], "--without", optarg) ||
			    add_switch_arg(&o.cfg[1], "--with", optarg))
				return 2;
			break;
		case 'p':
			ret = (int)parse_long_list(AB_PROG, "--predict-cpus", optarg, 1, 4096,
						   o.predict_cpus, AB_MAX_PREDICT_CPUS);
			if (ret < 0)
				return 2;
			o.nr_predict_cpus = ret;
			break;
		case 'M':
			o.machine = optarg;
			break;
		case 'h':
			ab_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "%s: unknown or incomplete option '%s'\n", AB_PROG,
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no workload given (e.g. lrulab ab --ab lru-stat-batch -- fault-free)\n",
			AB_PROG);
		return 2;
	}
	w = bench_find_workload(argv[optind]);
	if (!w) {
		fprintf(stderr, "%s: unknown workload '%s' (fault-free, mmap-madvise or usemem)\n",
			AB_PROG, argv[optind]);
		return 2;
	}
	/* bench's options follow the workload's name */
	bargc = argc - optind - 1;
	bargv = argv + optind + 1;
	for (i = 0; i < 2; i++) {
		if (!o.cfg[i].bin)
			o.cfg[i].bin = bench_self_exe();
		/* from the workload's name on, as bench_parse() reads argv[1] first */
		ret = ab_check_bench(w, &o.cfg[i], bargc + 1, bargv - 1, &bo[i]);
		if (ret)
			return ret == 1 ? 0 : 2;
	}
	/* the runs' JSON has the key for any figures, so it is known now */
	for (i = 0; i < 2; i++) {
		if (bench_has_metric(w, &bo[i], o.metric))
			continue;
		fprintf(stderr, "%s: --metric: a %s run reports no number '%s' (e.g. pages_per_sec; see bench --json)\n",
			AB_PROG, w->name, o.metric);
		return 2;
	}
	if (ab_identical(&o, bo)) {
		fprintf(stderr, "%s: A and B are the same configuration (one binary, the same switches): give --ab SWITCH, --a-with/--b-with SWITCH or --a-bin/--b-bin PATH\n",
			AB_PROG);
		return 2;
	}

	if (o.nr_predict_cpus || o.machine) {
		if (!o.nr_predict_cpus || !o.machine) {
			fprintf(stderr, "%s: --predict-cpus and --machine go together\n", AB_PROG);
			return 2;
		}
		if (strcmp(o.cfg[0].bin, o.cfg[1].bin) || strcmp(o.cfg[0].bin, bench_self_exe())) {
			fprintf(stderr, "%s: --predict-cpus: A and B are switches of this binary, not --a-bin/--b-bin\n",
				AB_PROG);
			return 2;
		}
		if (!ab_predictor) {
			fprintf(stderr, "%s: --predict-cpus: this build has no predictor\n", AB_PROG);
			return 2;
		}
		if (!o.json) {
			printf("lrulab ab: %s", w->name);
			for (i = 0; i < bargc; i++)
				printf(" %s", bargv[i]);
			printf(": predicted, not measured (drop --predict-cpus to measure here)\n");
			for (i = 0; i < 2; i++) {
				int k;

				printf("  %s:", o.cfg[i].label);
				for (k = 0; k < o.cfg[i].nargs; k++)
					printf(" %s", o.cfg[i].args[k]);
				printf("%s\n", o.cfg[i].nargs ? "" : " (no switch)");
			}
			fflush(stdout);
		}
		return ab_predictor(AB_PROG, w, bo, o.predict_cpus, o.nr_predict_cpus,
				    o.machine, o.json);
	}
	if (bench_signals_catch()) {
		fprintf(stderr, "%s: cannot catch SIGINT and SIGTERM\n", AB_PROG);
		return 1;
	}
	if (!o.json) {
		printf("lrulab ab: %s", w->name);
		for (i = 0; i < bargc; i++)
			printf(" %s", bargv[i]);
		printf("\n  metric %s, median of %ld runs per side, A B alternating, each run a fresh process\n",
		       o.metric, o.reps);
		for (i = 0; i < 2; i++) {
			int k;

			printf("  %s: %s", o.cfg[i].label, o.cfg[i].bin);
			for (k = 0; k < o.cfg[i].nargs; k++)
				printf(" %s", o.cfg[i].args[k]);
			printf("\n");
		}
		fflush(stdout);
	}
	for (i = 0; i < bo[0].nr_threads; i++)
		if (ab_one(&o, w, bo[0].threads[i], bargc, bargv))
			return bench_exit_status(1);
	return bench_exit_status(0);
}
