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

#include "tools/outfile.h"

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
	int i, any = 0, noise = 0, fixed = 0, fitted = 0;

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
		} else if (r->fitted) {
			snprintf(ci, sizeof(ci), "^ fitted on this row, not a check");
			fitted++;
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
		printf("   = fixed by its inputs: a predicted figure no simulation could move (a saturated lock: 90%% or more of its acquisitions contend in every draw, so the count is within a tenth of the recording's acquisitions per page times the pages); shown, not a check\n");
	if (fitted)
		printf("   ^ fitted: the published figure of this row set the prediction's one free parameter (the notes name it); shown, not a check: the other predicted rows check it\n");
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
		json_object_set_new(row, "predicted", json_boolean(r->predicted));
		/* what ci_low_pct..ci_high_pct is */
		json_object_set_new(row, "interval", json_string(r->predicted ? "P10-P90" : "95% CI"));
		json_object_set_new(row, "fixed_by_inputs", json_boolean(r->fixed_by_inputs));
		json_object_set_new(row, "fitted", json_boolean(r->fitted));
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
 * A change past +300% is cut there in the plot, its figures written
 * beside the bar: one +66410% (0.1 ms of wait -> 78 ms) would otherwise
 * flatten every other row to nothing.  Changes cannot go below -100%.
 */
#define PLOT_CAP_PCT 300.0

/*
 * The kinds of figure a seed's plot shows, each in its own colour under
 * its own legend entry: the mail's, this machine's runs (the medians'
 * change, its bootstrap 95% CI from repro_row_fill()), and lrulab
 * predict's (the median recording's change, the P10-P90 band of paired
 * draws from predict/repro_predict.c).
 */
enum plot_kind { PLOT_PUBLISHED, PLOT_HERE, PLOT_PREDICTED, PLOT_KINDS };

static const struct {
	const char *name;		/* its block of the .dat */
	const char *fill, *whisker;	/* colours of its bars and intervals */
} plot_kinds[PLOT_KINDS] = {
	[PLOT_PUBLISHED] = { "published", "#8c6bb1", NULL },
	[PLOT_HERE] = { "measured here", "#1b9e77", "#0b4f3a" },
	[PLOT_PREDICTED] = { "predicted", "#e6550d", "#8c2d04" },
};

/* a bar's slot is 1 high, its bar 0.7; a row and its predictions form a group */
#define PLOT_BAR_HALF 0.35
#define PLOT_GROUP_GAP 0.6
/*
 * Pixels: per slot, around the slots (title, legend, axes), per
 * character of a row's name (9-point sans, with room to spare), beside
 * the names and right of the frame; the bars get at least
 * PLOT_MIN_BARS_PX and the image at least PLOT_WIDTH_PX.
 */
#define PLOT_SLOT_PX 22
#define PLOT_FRAME_PX 240
#define PLOT_CHAR_PX 6.6
#define PLOT_NAMES_GAP_PX 24
#define PLOT_RIGHT_PX 30
/* a legend entry's sample and the gaps around it */
#define PLOT_KEY_SAMPLE_PX 60
#define PLOT_MIN_BARS_PX 860
#define PLOT_WIDTH_PX 1400
/* the share of the x range kept beside zero for the text written there */
#define PLOT_NOTE_ROOM 0.35

struct plot_bar {
	enum plot_kind kind;
	double y, v, lo, hi;	/* lo, hi NAN: no interval */
	const char *label;
};

struct plot_note {
	double x, y;
	bool right;		/* text ends at x (else it starts there) */
	bool either;		/* at zero, on the side with the more room */
	char text[96];
};

struct plot_layout {
	struct plot_bar bars[2 * REPRO_MAX_ROWS];
	int nr_bars, nr[PLOT_KINDS], nr_intervals[PLOT_KINDS];
	struct {
		double y;
		char text[160];
	} tics[REPRO_MAX_ROWS];
	int nr_tics;
	/* a row's at most: its published bar cut, ours cut and without an interval */
	struct plot_note notes[3 * REPRO_MAX_ROWS];
	int nr_notes;
	double seps[REPRO_MAX_ROWS];	/* lines between groups */
	int nr_seps;
	double bottom;			/* the last slot's y */
	double lo, hi;			/* the figures' x extent */
	bool cut, any_machine;
};

static double plot_cap(double v)
{
	return isnan(v) ? v : fmin(v, PLOT_CAP_PCT);
}

static void plot_note(struct plot_layout *l, double x, double y, bool right, bool either,
		      const char *text)
{
	struct plot_note *n = &l->notes[l->nr_notes++];

	n->x = x;
	n->y = y;
	n->right = right;
	n->either = either;
	snprintf(n->text, sizeof(n->text), "%s", text);
}

/*
 * A bar of @kind in the slot at @y.  Where there is no figure to draw,
 * a note at zero says why (below the row's resolution, or before or
 * after missing or zero); a bar without an interval says so on the other
 * side of zero; a bar or interval past the cap gets its figures beside it.
 */
static void plot_slot(struct plot_layout *l, enum plot_kind kind, double y,
		      const struct repro_row *r)
{
	double v = kind == PLOT_PUBLISHED ? pub_delta(r) : r->delta_pct;
	double lo = kind == PLOT_PUBLISHED ? NAN : r->ci_low_pct;
	double hi = kind == PLOT_PUBLISHED ? NAN : r->ci_high_pct;
	char text[96], b[16], a[16];
	struct plot_bar *bar;
	int k;

	if (isnan(v)) {
		if (r->below_resolution) {
			snprintf(text, sizeof(text), "~0: below the row's resolution (%g %s)",
				 r->resolution, r->unit);
		} else {
			fmt_val(b, sizeof(b), r->before, r->unit);
			fmt_val(a, sizeof(a), r->after, r->unit);
			snprintf(text, sizeof(text), "no change to compute: before %s, after %s %s",
				 b, a, r->unit);
		}
		/* which side of zero has the room is known once every bar is in */
		plot_note(l, 0, y, false, true, text);
		return;
	}
	bar = &l->bars[l->nr_bars++];
	bar->kind = kind;
	bar->y = y;
	bar->v = plot_cap(v);
	bar->lo = isnan(hi) ? NAN : plot_cap(lo);
	bar->hi = isnan(lo) ? NAN : plot_cap(hi);
	bar->label = r->label;
	l->nr[kind]++;
	if (!isnan(bar->lo))
		l->nr_intervals[kind]++;
	else if (kind != PLOT_PUBLISHED)
		plot_note(l, 0, y, v >= 0, false, "no interval");
	for (k = 0; k < 3; k++) {
		const double e = k == 0 ? bar->v : k == 1 ? bar->lo : bar->hi;

		if (!isnan(e)) {
			l->lo = fmin(l->lo, e);
			l->hi = fmax(l->hi, e);
		}
	}
	if (v > PLOT_CAP_PCT || (!isnan(bar->lo) && hi > PLOT_CAP_PCT)) {
		if (isnan(bar->lo))
			snprintf(text, sizeof(text), "%+.0f%%", v);
		else
			snprintf(text, sizeof(text), "%+.0f%% [%+.0f%%, %+.0f%%]", v, lo, hi);
		plot_note(l, PLOT_CAP_PCT, y, false, false, text);
		l->cut = true;
	}
}

static void plot_row_label(char *buf, size_t len, const struct repro_row *r)
{
	const char *label = r->label + strspn(r->label, " ");
	int better = repro_row_better(r);

	if (r->predicted)
		snprintf(buf, len, "%s%s", repro_row_any_machine(r) ? "# " : "", label);
	else
		snprintf(buf, len, "%s%s (%s, %s)", repro_row_any_machine(r) ? "# " : "", label,
			 r->unit, better > 0 ? "higher is better" : better < 0 ?
			 "lower is better" : "should not change");
}

/*
 * Slots from the top: each measured row its published figure (where the
 * mail has one) and ours, each predicted row (following the row it
 * predicts, with the same published figure) its prediction; the row's
 * name beside its slots, a gap and a line before the next measured row,
 * and before a predicted row that follows another: it predicts a figure
 * no row here measures (s4's run time of a folio size the mail timed
 * not), so it stands in a group of its own.
 */
static void plot_layout(const struct repro_table *t, struct plot_layout *l)
{
	double y = 0, top;
	int i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < t->nr_rows; i++) {
		const struct repro_row *r = &t->rows[i];

		if (i && (!r->predicted || t->rows[i - 1].predicted)) {
			y += PLOT_GROUP_GAP;
			l->seps[l->nr_seps++] = y - (1 + PLOT_GROUP_GAP) / 2;
		}
		top = y;
		if (r->predicted) {
			plot_slot(l, PLOT_PREDICTED, y, r);
		} else {
			if (!isnan(pub_delta(r))) {
				plot_slot(l, PLOT_PUBLISHED, y, r);
				y++;
			}
			plot_slot(l, PLOT_HERE, y, r);
		}
		l->tics[l->nr_tics].y = (top + y) / 2;
		plot_row_label(l->tics[l->nr_tics].text, sizeof(l->tics[0].text), r);
		l->nr_tics++;
		l->any_machine |= repro_row_any_machine(r);
		l->bottom = y;
		y++;
	}
}

/* gnuplot's double-quoted string of @s */
static void plot_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void plot_number(FILE *f, double v)
{
	fprintf(f, isnan(v) ? " ?" : " %g", v);
}

/*
 * The .dat: the rows' names (gnuplot index 0), then a block of each kind
 * of figure there is, two blank lines apart.  gnuplot counts no empty
 * block, so a kind without a bar has none, and @index says where each
 * kind's block is (-1: none).
 */
static int plot_write_dat(const char *dat, const struct plot_layout *l, int index[PLOT_KINDS])
{
	struct out_file of;
	FILE *f = out_open(REPRO_PROG, dat, &of);
	int k, i, at = 0;

	if (!f)
		return -1;
	/* as data, not `set ytics (...)`, whose labels are formats cut at 50 bytes */
	fprintf(f, "# the rows' names (gnuplot index 0): slot name\n");
	for (i = 0; i < l->nr_tics; i++) {
		fprintf(f, "%g ", l->tics[i].y);
		plot_string(f, l->tics[i].text);
		fputc('\n', f);
	}
	for (k = 0; k < PLOT_KINDS; k++) {
		index[k] = -1;
		if (!l->nr[k])
			continue;
		index[k] = ++at;
		fprintf(f, "\n\n# %s (gnuplot index %d): slot change_pct%s (cut at +%g%%) row\n",
			plot_kinds[k].name, at, k == PLOT_PUBLISHED ? "" : k == PLOT_HERE ?
			" ci95_low ci95_high" : " p10 p90", PLOT_CAP_PCT);
		for (i = 0; i < l->nr_bars; i++) {
			const struct plot_bar *b = &l->bars[i];

			if (b->kind != (enum plot_kind)k)
				continue;
			fprintf(f, "%g", b->y);
			plot_number(f, b->v);
			if (k != PLOT_PUBLISHED) {
				plot_number(f, b->lo);
				plot_number(f, b->hi);
			}
			fputc(' ', f);
			plot_string(f, b->label + strspn(b->label, " "));
			fputc('\n', f);
		}
	}
	return out_commit(REPRO_PROG, &of);
}

/*
 * The x range: every bar and interval (cut at +300%), room past the cap
 * for a cut bar's figures, and where text is written at zero, that side
 * at least PLOT_NOTE_ROOM of the range.  Notes that may go either side
 * take the one with the more room.
 */
static void plot_range(struct plot_layout *l, double *xlo, double *xhi)
{
	const double keep = PLOT_NOTE_ROOM / (1 - PLOT_NOTE_ROOM);
	double lo = fmin(0, l->lo), hi = fmax(0, l->hi), m, pad;
	bool left = false, right = false;
	int i;

	for (i = 0; i < l->nr_notes; i++) {
		struct plot_note *n = &l->notes[i];

		if (n->either)
			n->right = -lo > hi;
		if (!n->x)
			*(n->right ? &left : &right) = true;
	}
	m = fmax(hi, -lo);
	if (!m)
		m = 10;
	if (left && right) {
		hi = fmax(hi, keep * m);
		lo = fmin(lo, -keep * m);
	} else if (right) {
		hi = fmax(hi, keep * -lo);
	} else if (left) {
		lo = fmin(lo, -keep * hi);
	}
	if (hi - lo < 10)
		hi = lo + 10;
	if (l->cut)
		hi = fmax(hi, PLOT_CAP_PCT + 0.35 * (PLOT_CAP_PCT - lo));
	pad = 0.04 * (hi - lo);
	*xlo = floor(lo - pad);
	*xhi = ceil(hi + pad);
}

/*
 * Horizontal bars, one slot each, the rows' names written out beside
 * them: published, measured here and predicted changes each in their own
 * colour and legend entry, the legend naming each one's interval.  Each
 * row's name says its unit and which way is better, "#" marks what holds
 * on any machine, a row with no figure says why at zero, and the range
 * holds every bar, those cut at +300% with their figures beside them.
 */
int repro_write_plot(struct repro_opts *ro, const struct repro_table *t)
{
	struct plot_layout l;
	char dat[4096], gp[4096], png[4096], title[1024], keys[PLOT_KINDS][160];
	const char *sep = ", \\\n     ''";
	double xlo, xhi;
	size_t names = 0;
	int i, k, n, width, height, left, ret, index[PLOT_KINDS];
	struct out_file of;
	FILE *f;

	snprintf(dat, sizeof(dat), "%s/%s.dat", ro->out_dir, t->seed);
	snprintf(gp, sizeof(gp), "%s/%s.gp", ro->out_dir, t->seed);
	snprintf(png, sizeof(png), "%s/%s.png", ro->out_dir, t->seed);
	plot_layout(t, &l);
	plot_range(&l, &xlo, &xhi);
	if (plot_write_dat(dat, &l, index))
		return -1;
	/* the legend, which names each kind's interval */
	snprintf(keys[PLOT_PUBLISHED], sizeof(keys[0]), "published (the mail's figures)");
	snprintf(keys[PLOT_HERE], sizeof(keys[0]),
		 "measured here (%d CPUs): the medians' change, whisker its 95%% CI (bootstrap)",
		 ro->cpus);
	snprintf(keys[PLOT_PREDICTED], sizeof(keys[0]),
		 "predicted by lrulab predict for the CPUs and profile named: the median recording's change, whisker P10-P90 of paired draws");
	/*
	 * gnuplot's own margin for the names is a third too wide: set it,
	 * and the width that holds the bars and the legend beside them
	 */
	for (i = 0; i < l.nr_tics; i++)
		names = strlen(l.tics[i].text) > names ? strlen(l.tics[i].text) : names;
	left = (int)ceil(PLOT_CHAR_PX * names) + PLOT_NAMES_GAP_PX;
	width = left + PLOT_MIN_BARS_PX > PLOT_WIDTH_PX ? left + PLOT_MIN_BARS_PX : PLOT_WIDTH_PX;
	for (k = 0; k < PLOT_KINDS; k++)
		if (l.nr[k] && left + PLOT_KEY_SAMPLE_PX + PLOT_CHAR_PX * strlen(keys[k]) > width)
			width = left + PLOT_KEY_SAMPLE_PX + (int)ceil(PLOT_CHAR_PX * strlen(keys[k]));
	height = (int)ceil((l.bottom + 1.4) * PLOT_SLOT_PX) + PLOT_FRAME_PX;

	n = snprintf(title, sizeof(title), "%s: change after vs before, %% of before\n"
		     "before: %s; after: %s", t->seed, t->before_name, t->after_name);
	if (l.any_machine && n < (int)sizeof(title))
		n += snprintf(title + n, sizeof(title) - n,
			      "\n# holds on any machine: work counted, not this machine's speed");
	if (l.cut && n < (int)sizeof(title))
		snprintf(title + n, sizeof(title) - n, "%sbars and intervals past +%g%% cut there, their figures beside them",
			 l.any_machine ? "; " : "\n", PLOT_CAP_PCT);

	f = out_open(REPRO_PROG, gp, &of);
	if (!f)
		return -1;
	fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "  set terminal pngcairo size %d,%d font ',9'\n"
		   "} else {\n"
		   "  set terminal png size %d,%d\n"
		   "}\n"
		   "set termoption noenhanced\n", width, height, width, height);
	out_gnuplot_output(f, png);
	fprintf(f, "set title ");
	plot_string(f, title);
	fprintf(f, "\nset datafile missing '?'\n"
		   "set style fill solid 0.75 border -1\n"
		   "set lmargin at screen %.4f\n"
		   "set rmargin at screen %.4f\n"
		   "set xlabel 'change, %% of before (0: none)'\n"
		   "set xrange [%g:%g]\n"
		   "set x2tics\n"
		   "set link x2\n"
		   "set grid xtics x2tics\n"
		   "set yzeroaxis lt -1 lw 1\n"
		   "set yrange [%g:-0.7]\n"
		   "set ytics scale 0 nomirror\n"
		   "set key bmargin left vertical Left reverse samplen 3\n",
		(double)left / width, 1 - (double)PLOT_RIGHT_PX / width, xlo, xhi, l.bottom + 0.7);
	for (i = 0; i < l.nr_seps; i++)
		fprintf(f, "set arrow from graph 0, first %g to graph 1, first %g nohead lc rgb '#bbbbbb' back\n",
			l.seps[i], l.seps[i]);
	for (i = 0; i < l.nr_notes; i++) {
		fprintf(f, "set label ");
		plot_string(f, l.notes[i].text);
		fprintf(f, " at first %g, first %g %s offset character %s0.7,0 front\n",
			l.notes[i].x, l.notes[i].y, l.notes[i].right ? "right" : "left",
			l.notes[i].right ? "-" : "");
	}
	/* the names, then only the kinds there are: gnuplot warns of a series with no point */
	fprintf(f, "plot ");
	out_gnuplot_string(f, dat);
	fprintf(f, " index 0 using (NaN):1:ytic(2) notitle");
	for (k = 0; k < PLOT_KINDS; k++) {
		if (!l.nr[k])
			continue;
		fprintf(f, "%s index %d using 2:1:($2<0?$2:0):($2<0?0:$2):($1-%g):($1+%g) with boxxyerror lc rgb '%s' title ",
			sep, index[k], PLOT_BAR_HALF, PLOT_BAR_HALF, plot_kinds[k].fill);
		plot_string(f, keys[k]);
		if (l.nr_intervals[k])
			fprintf(f, "%s index %d using 2:1:3:4 with xerrorbars lc rgb '%s' lw 1.5 pt 7 ps 0.4 notitle",
				sep, index[k], plot_kinds[k].whisker);
	}
	fprintf(f, "\n");
	if (out_commit(REPRO_PROG, &of))
		return -1;

	if (!have_gnuplot()) {
		if (!ro->gnuplot_warned)
			fprintf(stderr, "%s: gnuplot not found: no PNG written (install gnuplot-nox)\n",
				REPRO_PROG);
		ro->gnuplot_warned = true;
		return 0;
	}
	/* whole under its name or not there; gnuplot failing fails no table */
	ret = out_gnuplot(REPRO_PROG, gp, png);
	if (ret > 0)
		fprintf(stderr, "%s: gnuplot failed on %s: no PNG\n", REPRO_PROG, gp);
	return ret < 0 ? -1 : 0;
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

/* Whole under a temporary name, then renamed: never a partial table. */
int repro_write_json_file(const char *path, json_t *j)
{
	struct out_file of;
	FILE *f = out_open(REPRO_PROG, path, &of);

	if (!f)
		return -1;
	if (json_dumpf(j, f, JSON_INDENT(1))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", REPRO_PROG, path,
			strerror(errno ? errno : EIO));
		out_discard(&of);
		return -1;
	}
	return out_commit(REPRO_PROG, &of);
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

