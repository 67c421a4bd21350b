/* SPDX-License-Identifier: MIT */
/*
 * What bench/repro.c, bench/repro_seeds.c and bench/repro_output.c share
 * and nothing outside them may use: the options, a seed's table and its
 * rows, a cell of A/B runs, and the functions that cross the files.
 */
#ifndef LRULAB_BENCH_REPRO_H
#define LRULAB_BENCH_REPRO_H

#include <stdbool.h>
#include <stdio.h>

#include "bench/bench.h"

#define REPRO_PROG "lrulab repro"
#define REPRO_MAX_ROWS 32

/*
 * The mails' published figures that the measured rows (bench/repro_seeds.c)
 * and the predicted ones (predict/repro_predict.c) both print: a predicted
 * row names the figure it predicts, it never takes the row above's.
 */

/*
 * s0-lru-stat-batch.txt, "[PATCH v2] mm: move LRU size stat updates out
 * of lru_lock in folio batches" (Joanne Koong): 2-socket Skylake, 80
 * CPUs, threads pinned, fault-in and free in one memcg, pages/s averaged
 * over 7 fresh memcgs per run.
 */
#define REPRO_S0_MAIL_ROWS 4
struct s0_published {
	const char *type;
	int mail_threads;
	double before, after;
};
extern const struct s0_published s0_published[REPRO_S0_MAIL_ROWS];
/* s0: "52.8% of all cycles spent spinning on lru_lock" (80 threads, shmem, before) */
#define S0_PUBLISHED_LRU_SPIN_PCT 52.8
/* and about 25% of the hold in folio_batch_move_lru and folios_put_refs in the stat updates */
#define S0_PUBLISHED_STAT_HOLD_PCT 25.0

/*
 * s4-mthp-lru-cache.txt, "[RFC PATCH v3] mm: enable lru cache for smaller
 * large folios" (Barry Song): the mmap/write/MADV_DONTNEED
 * microbenchmark, 20 threads x 1000 loops x 16 MiB (16K mTHP: the
 * series' case), `time` and `perf lock report` (the lru_lock line, whose
 * acquired and contended columns are equal: perf lock sees contended
 * acquisitions only) without and with the series.  The mail names no
 * machine.
 */
#define S4_MAIL_THREADS		20
#define S4_MAIL_LOOPS		1000
#define S4_MAIL_MEM		(16UL << 20)
#define S4_MAIL_FOLIO_SIZE	16384
#define S4_MAIL_PAGES		((double)S4_MAIL_THREADS * S4_MAIL_LOOPS * (S4_MAIL_MEM / PAGE_SIZE))
#define S4_REAL_BEFORE		17.760
#define S4_REAL_AFTER		16.292
#define S4_LRU_ACQUIRED_BEFORE	21414857.0
#define S4_LRU_ACQUIRED_AFTER	2641286.0

/* s2: the mail's shared tmpfs file (bench/repro_s2.c, predict/repro_predict.c) */
#define S2_MAIL_MEM		(2UL << 30)

/* s1: the mail's set-up, and ours (bench/repro_seeds.c, predict/repro_predict.c) */
#define S1_MAIL_PROCESSES	16
#define S1_MAIL_WINDOW_S	30
/* pgsteal_direct / s, baseline and patched */
#define S1_MAIL_PGSTEAL_BEFORE	67162.0
#define S1_MAIL_PGSTEAL_AFTER	66306.0
/*
 * The memcg stats flush period of s1's runs.  The kernel's FLUSH_TIME is
 * 2 s of wall time, and what it does to reclaim depends on how many
 * times the leaf turns over in it: about once in the mail (67K pgsteal/s
 * on a 512M leaf).  The model reclaims 20 to 60 times faster per leaf
 * page, so at 2 s its reclaim reads sizes from the stale-stats corner
 * and the charge OOMs; 100 ms keeps one to three turnovers per period.
 * The table says so, and shows the turnovers beside the mail's.
 */
#define S1_FLUSH_MS 100

/*
 * s3-memcg-pn-layout.txt (Joanne Koong): the s0 machine and benchmark;
 * base, patch 1, patch 1+2, one per s3 cell, as many as the cover letter
 * has rows, also printed in its shape.
 */
#define REPRO_S3_MAIL_ROWS 3
struct s3_published {
	const char *type;
	int mail_threads;
	double base, patch1, patch12;
};
extern const struct s3_published s3_published[REPRO_S3_MAIL_ROWS];

struct repro_opts {
	int cpus;
	long reps;
	double seconds;		/* per fault-free run */
	long memcgs;
	long loops;		/* per mmap-madvise run */
	double usemem_seconds;	/* per s1 usemem run */
	bool swap_async;	/* s1: the mail's disk-backed swap (default), or zram's (sync) */
	char mem[24];
	unsigned long mem_bytes;
	char s2_mem[24];	/* s2: the shared file of mglru-age */
	unsigned long s2_mem_bytes;
	bool calibrate;		/* --calibrate: fault work from the host kernel */
	const char *out_dir;
	const char *before_bin, *after_bin;
	bool json, quick;
	bool predict;		/* --predict: rows from lrulab predict */
	bool fit;		/* --fit: s0's and s4's one-thread speed from a published row */
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
	/*
	 * The smallest value the row tells from zero: the larger of the
	 * table's last digit in its unit and the runs' spread (each side's
	 * median absolute deviation).  With both medians within it the delta
	 * is no result: printed "~0", no percentage, no bar.
	 */
	double resolution;
	bool below_resolution;
	/*
	 * lrulab predict's row (predict/repro_predict.c): its interval is
	 * the P10-P90 band of paired draws, not the runs' 95% bootstrap CI
	 */
	bool predicted;
	/*
	 * Predicted rows: the figure is fixed by the inputs, whatever the
	 * machine and the simulation (a saturated lock's contended count is
	 * its acquisitions per page times the pages), so it cannot miss and
	 * is not offered as a check.
	 */
	bool fixed_by_inputs;
	/*
	 * Predicted rows: the one row of a table whose published figure set
	 * a free parameter of the prediction (s2's core speed), shown, not
	 * a check, and the others' check on it.
	 */
	bool fitted;
	/* the lock sites a row sums, as bench's JSON names them (cls:fn) */
	const char *site_cls;
	const char *const *site_fns;
};

#define REPRO_MAX_NOTES	32
#define REPRO_NOTE_LEN	640

struct repro_table {
	const char *seed;
	const char *title;
	const char *before_name, *after_name;
	int nr_rows;
	struct repro_row rows[REPRO_MAX_ROWS];
	bool oversubscribed;
	json_t *runs;		/* every run's JSON object, by cell */
	json_t *extra;		/* seed-specific additions to the JSON table */
	char notes[REPRO_MAX_NOTES][REPRO_NOTE_LEN];
	int nr_notes;
	int notes_left_out;	/* past REPRO_MAX_NOTES: the last slot says how many */
};

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


struct s3_mail_row {
	char label[96];
	double ours[3];
	const struct s3_published *p;
	double rel[3][2];
	int cnt[3][2];
};

/* repro.c */
long repro_scaled_threads(const struct repro_opts *ro, int mail_threads);
json_t *repro_jreal(double v);
void repro_table_note(struct repro_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void repro_cell_arg(struct repro_cell *c, const char *s);
void repro_cell_argf(struct repro_cell *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void repro_cell_free(struct repro_cell *c);
int repro_cell_run(const struct repro_opts *ro, struct repro_table *t,
		   struct repro_cell *c, const char *what, long reps);
int repro_row_fill(struct repro_row *row, const struct repro_cell *c, int ka, int kb,
		   const char *metric);
struct repro_row *repro_table_row(struct repro_table *t, const char *unit,
				  double pub_before, double pub_after, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void repro_cell_common(const struct repro_opts *ro, struct repro_cell *c,
		       const char *workload);
void repro_cfg_init(struct bench_config *cfg, const char *label, const char *bin);
void repro_cfg_arg(struct bench_config *cfg, const char *a, const char *b);
void repro_cell_fault_free(const struct repro_opts *ro, struct repro_cell *c,
			   const char *type, long threads, long memcgs);
void repro_cell_switch(struct repro_cell *c, const char *bin, const char *sw);

/* repro_seeds.c */
/* bench/repro_calibrate.c */
const char *repro_fault_work(const struct repro_opts *ro, const char *workload,
			     const char *type, unsigned int order);
void repro_cell_calibrate(const struct repro_opts *ro, struct repro_cell *c,
			  const char *workload, const char *type, unsigned int order);
void repro_calib_note(const struct repro_opts *ro, struct repro_table *t,
		      const char *workload);

int repro_s0(const struct repro_opts *ro, struct repro_table *t);
int repro_s1(const struct repro_opts *ro, struct repro_table *t);
int repro_s3(struct repro_opts *ro, struct repro_table *t,
	     struct s3_mail_row *mail, int *nr_mail);
int repro_s4(const struct repro_opts *ro, struct repro_table *t);
/*
 * --predict: the predicted rows of seed @which, from the predictor's
 * command layer (predict/repro_predict.c), which registers them before a
 * command runs; repro itself knows only this call.
 */
typedef int (*repro_predict_fn)(const struct repro_opts *ro, struct repro_table *t,
				const char *which);
void repro_predict_register(repro_predict_fn fn);
/* bench/repro_s2.c */
int repro_s2(const struct repro_opts *ro, struct repro_table *t);

/* repro_output.c */
/* the table's last digit in @unit: what a value must exceed to print */
double repro_unit_step(const char *unit);
/* +1 higher is better, -1 lower is better, 0 neither (should not change) */
int repro_row_better(const struct repro_row *r);
/* whether the row's figure holds on any machine: work counted, not speed */
bool repro_row_any_machine(const struct repro_row *r);
void repro_print_table(const struct repro_opts *ro, const struct repro_table *t);
void repro_print_s3_mail(const struct s3_mail_row *mail, int n);
json_t *repro_table_json(const struct repro_opts *ro, const struct repro_table *t,
			 const char *machine);
int repro_write_plot(struct repro_opts *ro, const struct repro_table *t);
int repro_write_json_file(const char *path, json_t *j);
/* 0 when @path may take this run's table, -1 after an error line */
int repro_check_replace(const struct repro_opts *ro, const char *path);
int repro_mkdir_p(const char *dir);

#endif /* LRULAB_BENCH_REPRO_H */
