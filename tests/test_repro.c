// SPDX-License-Identifier: MIT
/*
 * What `lrulab repro` reads off its runs and plots (bench/repro.c,
 * bench/repro_output.c): a row's resolution, below which a change is not
 * a result; which way each row is better and whether it holds on any
 * machine; and the plot's data and script, with fixed inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <cmocka.h>

#include "bench/repro.h"

#define REPS 4

/* A cell of REPS runs a side whose "m" is @a[r] before and @b[r] after. */
static void cell_make(struct repro_cell *c, const double *a, const double *b)
{
	int k, r;

	memset(c, 0, sizeof(*c));
	c->ncfg = 2;
	c->reps = REPS;
	for (k = 0; k < 2; k++) {
		c->runs[k] = calloc(REPS, sizeof(json_t *));
		assert_non_null(c->runs[k]);
		for (r = 0; r < REPS; r++)
			c->runs[k][r] = json_pack("{s:f}", "m", k ? b[r] : a[r]);
	}
}

static void cell_drop(struct repro_cell *c)
{
	int k, r;

	for (k = 0; k < 2; k++) {
		for (r = 0; r < REPS; r++)
			json_decref(c->runs[k][r]);
		free(c->runs[k]);
	}
}

static void fill(struct repro_row *row, const char *unit, const double *a, const double *b)
{
	struct repro_cell c;

	memset(row, 0, sizeof(*row));
	row->unit = unit;
	cell_make(&c, a, b);
	assert_int_equal(repro_row_fill(row, &c, 0, 1, "m"), 0);
	cell_drop(&c);
}

/* s1's 0.011 ms of wait -> 0 is below the table's last digit: ~0, no delta */
static void test_below_resolution(void **state)
{
	const double a[REPS] = { 0.011, 0, 0.02, 0.011 }, z[REPS] = { 0, 0, 0, 0 };
	struct repro_row row;

	fill(&row, "ms", a, z);
	assert_true(row.below_resolution);
	assert_true(row.resolution == 0.1);
	assert_true(isnan(row.delta_pct) && isnan(row.ci_low_pct) && isnan(row.ci_high_pct));
	assert_true(row.before == 0.011 && row.after == 0);
}

/* 722 ms -> 0 is a result: -100% */
static void test_above_resolution(void **state)
{
	const double a[REPS] = { 700, 722, 730, 722 }, z[REPS] = { 0, 0, 0, 0 };
	struct repro_row row;

	fill(&row, "ms", a, z);
	assert_false(row.below_resolution);
	assert_true(row.delta_pct == -100);
	/* the spread: the median absolute deviation of {700, 722, 722, 730} */
	assert_true(row.resolution == 4);
}

/* the spread, not the last digit, when the runs scatter more */
static void test_resolution_is_spread(void **state)
{
	const double a[REPS] = { 0, 40, 0, 30 }, b[REPS] = { 10, 0, 0, 20 };
	struct repro_row row;

	fill(&row, "ms", a, b);
	/* before: median 15, deviations {15, 25, 15, 15}: 15; after: median 5, {5, 5, 5, 15}: 5 */
	assert_true(row.resolution == 15);
	assert_true(row.below_resolution);
}

static void test_better_and_any_machine(void **state)
{
	static const struct {
		const char *unit;
		int better;
		bool any;
	} units[] = {
		{ "pages/s", 1, false }, { "/s", 0, false }, { "ms", -1, false },
		{ "s", -1, false }, { "%", -1, false }, { "count", -1, false },
		{ "ns/page", -1, true }, { "/1k pages", -1, true }, { "/1k recl", -1, true },
	};
	struct repro_row row = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++) {
		row.unit = units[i].unit;
		assert_int_equal(repro_row_better(&row), units[i].better);
		assert_int_equal(repro_row_any_machine(&row), units[i].any);
	}
	assert_true(repro_unit_step("ms") == 0.1);
	assert_true(repro_unit_step("s") == 1e-4);
	assert_true(repro_unit_step("pages/s") == 1);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, 65535, f) > 0);
	fclose(f);
	return buf;
}

/*
 * The plot: every row says its unit and which way is better, a row
 * below its resolution has no bar of ours, a +66410% bar is cut at
 * +300% with its value above it, and the range holds every bar.
 */
static void test_plot(void **state)
{
	char dir[] = "/tmp/lrulab-test-repro-XXXXXX", path[128], *dat, *gp;
	struct repro_opts ro = { .cpus = 2 };
	struct repro_table t = { .seed = "sX" };
	struct repro_row *r;

	assert_non_null(mkdtemp(dir));
	ro.out_dir = dir;
	ro.gnuplot_warned = true;
	r = repro_table_row(&t, "ms", 1960, 917.71, "wait a");
	r->before = 0.1;
	r->after = 66.5;
	r->delta_pct = 66410;
	r->ci_low_pct = 24400;
	r->ci_high_pct = 109725;
	r = repro_table_row(&t, "ms", NAN, NAN, "wait b");
	r->below_resolution = true;
	r->delta_pct = r->ci_low_pct = r->ci_high_pct = NAN;
	r = repro_table_row(&t, "/1k recl", NAN, NAN, "acquisitions c");
	r->delta_pct = -100;
	r->ci_low_pct = r->ci_high_pct = -100;
	assert_int_equal(repro_write_plot(&ro, &t), 0);

	snprintf(path, sizeof(path), "%s/sX.dat", dir);
	dat = slurp(path);
	assert_non_null(strstr(dat, "\n\"wait a (ms, lower is better)\" -53.1781 300 300 300 ? \"\" 300 \"+66410%\" \n"));
	assert_non_null(strstr(dat, "\n\"wait b (ms, lower is better; ~0)\" ? ? ? ? ? \"\" ? \"\" \n"));
	assert_non_null(strstr(dat, "\n\"# acquisitions c (/1k recl, lower is better)\" ? -100 -100 -100 ? \"\" ? \"\" \n"));
	snprintf(path, sizeof(path), "%s/sX.gp", dir);
	gp = slurp(path);
	/* -100 - pad, 300 + pad: pad is 14% of the 400 spanned, for the value's text */
	assert_non_null(strstr(gp, "\nset yrange [-156:356]\n"));
	assert_non_null(strstr(gp, "\nset key tmargin center horizontal\n"));
	assert_non_null(strstr(gp, "\nset ylabel 'change, % of before (0: none)'\n"));
	assert_non_null(strstr(gp, "using ($0+0.18):8:9 with labels"));
	/* no published bar is cut, so no series of its labels (gnuplot would warn) */
	assert_null(strstr(gp, "using ($0-0.18):6:7"));
	free(dat);
	free(gp);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_below_resolution),
		cmocka_unit_test(test_above_resolution),
		cmocka_unit_test(test_resolution_is_spread),
		cmocka_unit_test(test_better_and_any_machine),
		cmocka_unit_test(test_plot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
