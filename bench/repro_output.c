// SPDX-License-Identifier: MIT
/*
 * What `lrulab repro` prints and writes: each table as text, in the
 * mail's shape with the published numbers beside ours (and s3 also in
 * its cover letter's), as JSON, and as a gnuplot plot of the deltas, and
 * the files under the results directory.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "repro.h"

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

double repro_unit_step(const char *unit)
{
	if (!strcmp(unit, "s"))
		return 1e-4;
	if (!strcmp(unit, "%") || !strcmp(unit, "ns/page") || !strcmp(unit, "/1k pages") ||
	    !strcmp(unit, "ms") || !strcmp(unit, "/1k recl"))
		return 0.1;
	return 1;
}

/*
 * Which way a row's change is good, by what it measures: throughput up;
 * time, waits, lock traffic and contention down; reclaim's rates (/s)
 * are the workload's, which a locking patch should leave alone.
 */
int repro_row_better(const struct repro_row *r)
{
	static const char *const lower[] = {
		"s", "ms", "%", "ns/page", "/1k pages", "/1k recl", "count", "cas/pass",
	};
	size_t i;

	/* s2: a skipped cmpxchg is a locked instruction not executed */
	if (!strcmp(r->unit, "pages/s") || !strcmp(r->unit, "skip/pass"))
		return 1;
	for (i = 0; i < ARRAY_SIZE(lower); i++)
		if (!strcmp(r->unit, lower[i]))
			return -1;
	return 0;
}

static const char *better_name(int better)
{
	return better > 0 ? "higher" : better < 0 ? "lower" : "neither";
}

/*
 * Lock acquisitions per 1000 pages (or reclaimed pages) and lock hold
 * time per page count what the code does, not how fast this machine
 * does it: they hold on any machine.  Rates, waits, contention and
 * shares of time are this machine's.
 */
bool repro_row_any_machine(const struct repro_row *r)
{
	return !strcmp(r->unit, "/1k pages") || !strcmp(r->unit, "/1k recl") ||
	       !strcmp(r->unit, "ns/page") || !strcmp(r->unit, "cas/pass") ||
	       !strcmp(r->unit, "skip/pass");
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

void repro_print_table(const struct repro_opts *ro, const struct repro_table *t)
{
	char pb[16], pa[16], pd[16], b[16], a[16], d[16], lo[16], hi[16], ci[64], label[100];
	int i, any = 0, noise = 0, fixed = 0;

	printf("\n== %s: %s\n", t->seed, t->title);
	printf("   before: %s; after: %s\n", t->before_name, t->after_name);
	for (i = 0; i < t->nr_notes; i++)
		printf("   %s\n", t->notes[i]);
	if (t->oversubscribed)
		printf("   WARNING: OVERSUBSCRIBED: more threads than processors; wait times and pages/s mean little\n");
	printf("\n%-62s %-9s %-7s | %-26s | %s\n", "", "", "", "published", "this machine");
	printf("%-62s %-9s %-7s | %8s %8s %8s | %8s %8s %8s  %s\n", "", "unit", "better",
	       "before", "after", "delta", "before", "after", "delta", "95% CI");
	for (i = 0; i < t->nr_rows; i++) {
		const struct repro_row *r = &t->rows[i];

		fmt_val(pb, sizeof(pb), r->pub_before, r->unit);
		fmt_val(pa, sizeof(pa), r->pub_after, r->unit);
		fmt_pct(pd, sizeof(pd), pub_delta(r));
		fmt_val(b, sizeof(b), r->before, r->unit);
		fmt_val(a, sizeof(a), r->after, r->unit);
		fmt_pct(d, sizeof(d), r->delta_pct);
		if (r->fixed_by_inputs) {
			snprintf(ci, sizeof(ci), "= fixed by its inputs, not a check");
			fixed++;
		} else if (r->below_resolution) {
			snprintf(d, sizeof(d), "~0");
			snprintf(ci, sizeof(ci), "below resolution (%g %s)", r->resolution, r->unit);
			noise++;
		} else if (isnan(r->ci_low_pct)) {
			snprintf(ci, sizeof(ci), "-");
		} else {
			fmt_pct(lo, sizeof(lo), r->ci_low_pct);
			fmt_pct(hi, sizeof(hi), r->ci_high_pct);
			snprintf(ci, sizeof(ci), "[%s, %s]%s", lo, hi,
				 r->ci_low_pct <= 0 && r->ci_high_pct >= 0 ? " no difference" : "");
		}
		any += repro_row_any_machine(r);
		snprintf(label, sizeof(label), "%s%s", repro_row_any_machine(r) ? "# " : "  ",
			 r->label);
		printf("%-62s %-9s %-7s | %8s %8s %8s | %8s %8s %8s  %s\n", label, r->unit,
		       better_name(repro_row_better(r)), pb, pa, pd, b, a, d, ci);
	}
	if (any)
		printf("\n   # holds on any machine: counts of work (lock acquisitions per 1000 pages, cmpxchgs per pass) and lock hold time per page, not this machine's speed; the other rows are this machine's\n");
	else
		printf("\n   no row holds on any machine: every figure here is this machine's speed (rates, wait times, contention)\n");
	if (fixed)
		printf("   = fixed by its inputs: a predicted figure no simulation could move (a saturated lock: every acquisition contends, so the count is the recording's acquisitions per page times the pages); shown, not a check\n");
	if (noise)
		printf("   ~0: both medians within the row's resolution, the larger of the table's last digit and the runs' spread (median absolute deviation): no change to read\n");
}

/* s3 as the cover letter prints it: base, patch 1, patch 1+2 side by side. */
void repro_print_s3_mail(const struct s3_mail_row *mail, int n)
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

json_t *repro_table_json(const struct repro_opts *ro, const struct repro_table *t,
			 const char *machine)
{
	json_t *j = json_object(), *rows = json_array(), *notes = json_array(), *row;
	const char *key;
	json_t *v;
	int i;

	json_object_set_new(j, "seed", json_string(t->seed));
	json_object_set_new(j, "title", json_string(t->title));
	json_object_set_new(j, "machine", json_string(machine));
	json_object_set_new(j, "cpus", json_integer(ro->cpus));
	json_object_set_new(j, "reps", json_integer(ro->reps));
	json_object_set_new(j, "quick", json_boolean(ro->quick));
	json_object_set_new(j, "oversubscribed", json_boolean(t->oversubscribed));
	json_object_set_new(j, "before", json_string(t->before_name));
	json_object_set_new(j, "after", json_string(t->after_name));
	for (i = 0; i < t->nr_rows; i++) {
		const struct repro_row *r = &t->rows[i];

		json_array_append_new(rows, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}",
			"label", r->label, "unit", r->unit,
			"published_before", repro_jreal(r->pub_before),
			"published_after", repro_jreal(r->pub_after),
			"published_delta_pct", repro_jreal(pub_delta(r)),
			"before", repro_jreal(r->before), "after", repro_jreal(r->after),
			"delta_pct", repro_jreal(r->delta_pct),
			"ci_low_pct", repro_jreal(r->ci_low_pct),
			"ci_high_pct", repro_jreal(r->ci_high_pct), "runs", r->n));
		row = json_array_get(rows, json_array_size(rows) - 1);
		json_object_set_new(row, "resolution", repro_jreal(r->resolution));
		json_object_set_new(row, "below_resolution", json_boolean(r->below_resolution));
		json_object_set_new(row, "better", json_string(better_name(repro_row_better(r))));
		json_object_set_new(row, "any_machine", json_boolean(repro_row_any_machine(r)));
		json_object_set_new(row, "fixed_by_inputs", json_boolean(r->fixed_by_inputs));
		if (r->site_fns) {
			json_t *sites = json_array();
			char site[128];
			int k;

			for (k = 0; r->site_fns[k]; k++) {
				snprintf(site, sizeof(site), "%s:%s", r->site_cls, r->site_fns[k]);
				json_array_append_new(sites, json_string(site));
			}
			json_object_set_new(row, "sites", sites);
		}
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

/*
 * A change past +300% is cut there in the plot, its value written above
 * the bar: one +66410% (0.1 ms of wait -> 78 ms) would otherwise flatten
 * every other row to nothing.  Changes cannot go below -100%.
 */
#define PLOT_CAP_PCT 300.0

static void plot_value(FILE *f, double v)
{
	fprintf(f, isnan(v) ? "? " : "%g ", fmin(v, PLOT_CAP_PCT));
}

/* where a cut bar's value goes, and the value, or "?" "" */
static void plot_cut_label(FILE *f, double v, bool *cut)
{
	if (isnan(v) || v <= PLOT_CAP_PCT) {
		fprintf(f, "? \"\" ");
		return;
	}
	*cut = true;
	fprintf(f, "%g \"%+.0f%%\" ", PLOT_CAP_PCT, v);
}

/* Where the plot's range reaches: every (cut) bar and interval inside the frame. */
static void plot_extent(const struct repro_table *t, double *lo, double *hi)
{
	int i, k;

	*lo = 0;
	*hi = 0;
	for (i = 0; i < t->nr_rows; i++) {
		const struct repro_row *r = &t->rows[i];
		double v[4] = { pub_delta(r), r->delta_pct, r->ci_low_pct, r->ci_high_pct };

		for (k = 0; k < 4; k++) {
			if (isnan(v[k]))
				continue;
			*lo = fmin(*lo, v[k]);
			*hi = fmax(*hi, fmin(v[k], PLOT_CAP_PCT));
		}
	}
}

/*
 * Published and measured deltas per row, our interval as error bars.
 * Each row's name says its unit and which way is better, "#" marks what
 * holds on any machine, and a row below its resolution gets no bar of
 * ours ("~0").  The legend sits above the plot, clear of the bars, and
 * the range holds every bar, those cut at +300% with their value.
 */
int repro_write_plot(struct repro_opts *ro, const struct repro_table *t)
{
	char dat[4096], gp[4096], png[4096];
	double lo, hi, pad;
	bool cut[2] = { false, false };	/* published, ours */
	FILE *f;
	pid_t pid;
	int i, status;

	snprintf(dat, sizeof(dat), "%s/%s.dat", ro->out_dir, t->seed);
	snprintf(gp, sizeof(gp), "%s/%s.gp", ro->out_dir, t->seed);
	snprintf(png, sizeof(png), "%s/%s.png", ro->out_dir, t->seed);
	f = fopen(dat, "w");
	if (!f)
		return -1;
	fprintf(f, "# label published_delta_pct delta_pct ci_low_pct ci_high_pct (each cut at +%g%%) published_cut_at published_value cut_at value\n",
		PLOT_CAP_PCT);
	for (i = 0; i < t->nr_rows; i++) {
		const struct repro_row *r = &t->rows[i];
		int better = repro_row_better(r);

		fprintf(f, "\"%s%s (%s, %s%s)\" ", repro_row_any_machine(r) ? "# " : "", r->label,
			r->unit, better > 0 ? "higher is better" : better < 0 ? "lower is better" :
			"should not change", r->below_resolution ? "; ~0" : "");
		plot_value(f, pub_delta(r));
		plot_value(f, r->delta_pct);
		plot_value(f, r->ci_low_pct);
		plot_value(f, r->ci_high_pct);
		plot_cut_label(f, pub_delta(r), &cut[0]);
		plot_cut_label(f, r->delta_pct, &cut[1]);
		fprintf(f, "\n");
	}
	if (fclose(f))
		return -1;
	plot_extent(t, &lo, &hi);
	/* room above a cut bar for its value */
	pad = fmax(5, (cut[0] || cut[1] ? 0.14 : 0.08) * (hi - lo));
	f = fopen(gp, "w");
	if (!f)
		return -1;
	fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "  set terminal pngcairo size 1400,900 font ',9'\n"
		   "} else {\n"
		   "  set terminal png size 1400,900\n"
		   "}\n"
		   "set termoption noenhanced\n"
		   "set output '%s'\n"
		   "set title \"%s: change after vs before, published vs this machine (%d CPUs, 95%% CI as error bars)\\n"
		   "# holds on any machine; ~0: below the row's resolution, no bar of ours; bars and intervals past +%g%% cut there, the bar's value above it\"\n"
		   "set datafile missing '?'\n"
		   "set style fill solid 0.6 border -1\n"
		   "set boxwidth 0.35\n"
		   "set ylabel 'change, %% of before (0: none)'\n"
		   "set xlabel 'row (its unit, which way is better)'\n"
		   "set yrange [%g:%g]\n"
		   "set xrange [-0.6:%d.6]\n"
		   "set xtics rotate by 45 right\n"
		   "set bmargin at screen 0.40\n"
		   "set lmargin at screen 0.30\n"
		   "set grid ytics\n"
		   "set key tmargin center horizontal\n"
		   "set rmargin at screen 0.98\n"
		   "set xzeroaxis\n"
		   "plot '%s' using ($0-0.18):2:xtic(1) with boxes title 'published', \\\n"
		   "     '' using ($0+0.18):3 with boxes title 'this machine (median)', \\\n"
		   "     '' using ($0+0.18):3:4:5 with yerrorbars lc rgb 'black' pt 0 notitle",
		png, t->seed, ro->cpus, PLOT_CAP_PCT, floor(lo - pad), ceil(hi + pad),
		t->nr_rows - 1, dat);
	/* gnuplot warns of a series with no point: only those with a cut bar */
	if (cut[0])
		fprintf(f, ", \\\n     '' using ($0-0.18):6:7 with labels offset 0,1 notitle");
	if (cut[1])
		fprintf(f, ", \\\n     '' using ($0+0.18):8:9 with labels offset 0,1 notitle");
	fprintf(f, "\n");
	if (fclose(f))
		return -1;

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

/*
 * A full run's table took minutes and is what the README quotes: a
 * --quick run does not replace it, and a full run that does says so.
 * A table without "quick" predates the key, from full runs only.
 */
int repro_check_replace(const struct repro_opts *ro, const char *path)
{
	json_t *old = json_load_file(path, 0, NULL);
	bool full = old && !json_is_true(json_object_get(old, "quick"));

	json_decref(old);
	if (!full)
		return 0;
	if (ro->quick) {
		fprintf(stderr, "%s: %s holds a full run's table: --quick does not replace it (give --out another DIR)\n",
			REPRO_PROG, path);
		return -1;
	}
	/* stdout carries JSON Lines only under --json */
	if (ro->json)
		fprintf(stderr, "%s: note: replacing the full run's table in %s\n",
			REPRO_PROG, path);
	else
		printf("   note: replacing the full run's table in %s\n", path);
	return 0;
}

int repro_write_json_file(const char *path, json_t *j)
{
	if (json_dump_file(j, path, JSON_INDENT(1))) {
		fprintf(stderr, "%s: cannot write %s\n", REPRO_PROG, path);
		return -1;
	}
	return 0;
}

int repro_mkdir_p(const char *dir)
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

