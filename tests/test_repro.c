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
 * The plot: horizontal bars, a slot each, the rows' names beside them;
 * a published and a measured bar for a measured row, a predicted bar
 * for the predicted row after it (not its published figure again), each
 * kind in its own block, colour and legend entry naming its interval.
 * A +66410% bar is cut at +300% with its figures beside it, a row below
 * its resolution and one with no change to compute say so at zero, a
 * bar without an interval says so, and the range holds every bar.
 */
static void test_plot(void **state)
{
	char dir[] = "/tmp/lrulab-test-repro-XXXXXX", path[128], *dat, *gp;
	struct repro_opts ro = { .cpus = 2 };
	struct repro_table t = { .seed = "sX", .before_name = "x off", .after_name = "x on" };
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
	/* as predict/repro_predict.c fills one: the published figure copied */
	r = repro_table_row(&t, "ms", 1960, 917.71, "  predicted: 16 CPUs of m");
	r->predicted = true;
	r->delta_pct = -20;
	r->ci_low_pct = r->ci_high_pct = NAN;
	r = repro_table_row(&t, "ms", NAN, NAN, "wait b");
	r->below_resolution = true;
	r->resolution = 0.1;
	r->delta_pct = r->ci_low_pct = r->ci_high_pct = NAN;
	r = repro_table_row(&t, "/1k recl", NAN, NAN, "acquisitions c");
	r->delta_pct = -100;
	r->ci_low_pct = r->ci_high_pct = -100;
	r = repro_table_row(&t, "pages/s", NAN, NAN, "d");
	r->before = 0;
	r->after = 5;
	r->delta_pct = r->ci_low_pct = r->ci_high_pct = NAN;
	assert_int_equal(repro_write_plot(&ro, &t), 0);

	snprintf(path, sizeof(path), "%s/sX.dat", dir);
	dat = slurp(path);
	assert_string_equal(dat,
		"# the rows' names (gnuplot index 0): slot name\n"
		"0.5 \"wait a (ms, lower is better)\"\n"
		"2 \"predicted: 16 CPUs of m\"\n"
		"3.6 \"wait b (ms, lower is better)\"\n"
		"5.2 \"# acquisitions c (/1k recl, lower is better)\"\n"
		"6.8 \"d (pages/s, higher is better)\"\n"
		"\n\n# published (gnuplot index 1): slot change_pct (cut at +300%) row\n"
		"0 -53.1781 \"wait a\"\n"
		"\n\n# measured here (gnuplot index 2): slot change_pct ci95_low ci95_high (cut at +300%) row\n"
		"1 300 300 300 \"wait a\"\n"
		"5.2 -100 -100 -100 \"acquisitions c\"\n"
		"\n\n# predicted (gnuplot index 3): slot change_pct p10 p90 (cut at +300%) row\n"
		"2 -20 ? ? \"predicted: 16 CPUs of m\"\n");
	snprintf(path, sizeof(path), "%s/sX.gp", dir);
	gp = slurp(path);
	/*
	 * 22 pixels a slot (6.8 + 1.4 of them) and 240 around; the names'
	 * margin 6.6 pixels a character of the longest (44) and 24 beside
	 */
	assert_non_null(strstr(gp, "\n  set terminal pngcairo size 1400,421 font ',9'\n"));
	assert_non_null(strstr(gp, "\nset lmargin at screen 0.2250\n"));
	/* -100 and 300, room past the cap for the cut bar's figures, 4% each side */
	assert_non_null(strstr(gp, "\nset xrange [-122:462]\n"));
	assert_non_null(strstr(gp, "\nset yrange [7.5:-0.7]\n"));
	assert_non_null(strstr(gp, "\nset title \"sX: change after vs before, % of before\\n"
				   "before: x off; after: x on\\n"
				   "# holds on any machine: work counted, not this machine's speed; "
				   "bars and intervals past +300% cut there, their figures beside them\"\n"));
	assert_non_null(strstr(gp, "\nset label \"+66410% [+24400%, +109725%]\" at first 300, first 1 left offset character 0.7,0 front\n"));
	/* the bar goes left of zero: its note right of it */
	assert_non_null(strstr(gp, "\nset label \"no interval\" at first 0, first 2 left offset character 0.7,0 front\n"));
	assert_non_null(strstr(gp, "\nset label \"~0: below the row's resolution (0.1 ms)\" at first 0, first 3.6 left offset character 0.7,0 front\n"));
	assert_non_null(strstr(gp, "\nset label \"no change to compute: before 0, after 5 pages/s\" at first 0, first 6.8 left offset character 0.7,0 front\n"));
	/* a line between groups: before wait b, acquisitions c and d */
	assert_non_null(strstr(gp, "\nset arrow from graph 0, first 2.8 to graph 1, first 2.8 nohead"));
	assert_non_null(strstr(gp, "\nset arrow from graph 0, first 4.4 to graph 1, first 4.4 nohead"));
	assert_non_null(strstr(gp, "\nset arrow from graph 0, first 6 to graph 1, first 6 nohead"));
	assert_null(strstr(gp, "first 1.3 to"));
	assert_non_null(strstr(gp, "\nplot '"));
	assert_non_null(strstr(gp, "/sX.dat' index 0 using (NaN):1:ytic(2) notitle, \\\n"
		"     '' index 1 using 2:1:($2<0?$2:0):($2<0?0:$2):($1-0.35):($1+0.35) with boxxyerror lc rgb '#8c6bb1' title \"published (the mail's figures)\", \\\n"
		"     '' index 2 using 2:1:($2<0?$2:0):($2<0?0:$2):($1-0.35):($1+0.35) with boxxyerror lc rgb '#1b9e77' title \"measured here (2 CPUs): the medians' change, whisker its 95% CI (bootstrap)\", \\\n"
		"     '' index 2 using 2:1:3:4 with xerrorbars lc rgb '#0b4f3a' lw 1.5 pt 7 ps 0.4 notitle, \\\n"
		"     '' index 3 using 2:1:($2<0?$2:0):($2<0?0:$2):($1-0.35):($1+0.35) with boxxyerror lc rgb '#e6550d' title \"predicted by lrulab predict for the CPUs and profile named: the median recording's change, whisker P10-P90 of paired draws\"\n"));
	/* no predicted row has an interval: no series of them (gnuplot would warn) */
	assert_null(strstr(gp, "index 3 using 2:1:3:4"));
	free(dat);
	free(gp);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/*
 * A table of measured rows only, none with a figure: one block (the
 * names), no series of bars, the notes on the side with the room.
 */
static void test_plot_no_bar(void **state)
{
	char dir[] = "/tmp/lrulab-test-repro-XXXXXX", path[128], *dat, *gp;
	struct repro_opts ro = { .cpus = 2 };
	struct repro_table t = { .seed = "sY", .before_name = "y off", .after_name = "y on" };
	struct repro_row *r;

	assert_non_null(mkdtemp(dir));
	ro.out_dir = dir;
	ro.gnuplot_warned = true;
	r = repro_table_row(&t, "/s", NAN, NAN, "pgrotated / s");
	r->below_resolution = true;
	r->resolution = 1;
	r->delta_pct = r->ci_low_pct = r->ci_high_pct = NAN;
	assert_int_equal(repro_write_plot(&ro, &t), 0);
	snprintf(path, sizeof(path), "%s/sY.dat", dir);
	dat = slurp(path);
	assert_string_equal(dat, "# the rows' names (gnuplot index 0): slot name\n"
				 "0 \"pgrotated / s (/s, should not change)\"\n");
	snprintf(path, sizeof(path), "%s/sY.gp", dir);
	gp = slurp(path);
	/* 10 wide at least, the note's side 35% of it at least, 4% each side */
	assert_non_null(strstr(gp, "\nset xrange [-1:11]\n"));
	assert_non_null(strstr(gp, "\nset label \"~0: below the row's resolution (1 /s)\" at first 0, first 0 left offset character 0.7,0 front\n"));
	assert_non_null(strstr(gp, "/sY.dat' index 0 using (NaN):1:ytic(2) notitle\n"));
	assert_null(strstr(gp, "boxxyerror"));
	/* no "#" row, nothing cut: the title says neither */
	assert_null(strstr(gp, "any machine"));
	assert_null(strstr(gp, "cut there"));
	free(dat);
	free(gp);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/*
 * Notes: one past the length is cut with "...", and past the table's
 * room the last slot counts the ones left out.
 */
static void test_notes(void **state)
{
	struct repro_table *t = calloc(1, sizeof(*t));
	char long_note[REPRO_NOTE_LEN + 100];
	int i;

	assert_non_null(t);
	memset(long_note, 'x', sizeof(long_note) - 1);
	long_note[sizeof(long_note) - 1] = 0;
	repro_table_note(t, "%s", long_note);
	assert_int_equal(strlen(t->notes[0]), REPRO_NOTE_LEN - 1);
	assert_string_equal(t->notes[0] + REPRO_NOTE_LEN - 4, "...");
	assert_int_equal(t->notes[0][REPRO_NOTE_LEN - 5], 'x');
	for (i = 1; i < REPRO_MAX_NOTES + 2; i++)
		repro_table_note(t, "note %d", i);
	assert_int_equal(t->nr_notes, REPRO_MAX_NOTES);
	assert_string_equal(t->notes[REPRO_MAX_NOTES - 2], "note 30");
	assert_string_equal(t->notes[REPRO_MAX_NOTES - 1], "(3 notes left out: a table holds 32)");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_below_resolution),
		cmocka_unit_test(test_above_resolution),
		cmocka_unit_test(test_resolution_is_spread),
		cmocka_unit_test(test_better_and_any_machine),
		cmocka_unit_test(test_plot),
		cmocka_unit_test(test_plot_no_bar),
		cmocka_unit_test(test_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
