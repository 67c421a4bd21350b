/* SPDX-License-Identifier: MIT */
/* What the predictor's files share: a recording run, and one predicted point. */
#ifndef LRULAB_PREDICT_INTERNAL_H
#define LRULAB_PREDICT_INTERNAL_H

#include "bench/bench.h"
#include "predict/predict.h"

struct pred_model_opts {
	enum lock_impl impl;
	double single_thread_rate;	/* pages/s at one CPU; 0: from the profile */
	int draws;			/* Monte-Carlo draws for the band */
	u64 seed;
	u64 acquisitions;		/* per simulation; 0: by CPU count */
	bool other_placement;		/* pair reads: the placement not recorded */
	/*
	 * lru_lock's hold per page, the kernel's over lrulab's (lrulab host
	 * fault-free --perf-hold); 0: lrulab's own holds.
	 */
	double lru_hold_ratio;
	/*
	 * The target core's speed over the recording machine's, holds and
	 * work alike, in place of the profile's core_speed; 0: the profile's.
	 */
	double core_speed;
	/* what-if: every thread faults one VMA (its refcount line shared) */
	bool shared_vma;
};

#define PRED_MAX_DRAWS 64
/* recordings pooled into one prediction (predict/pool.c) */
#define PRED_MAX_RECORDINGS 8

struct pred_point {
	int cpus;
	int online;			/* the target's CPUs online: the kernel's thresholds */
	int nr_recordings;		/* pooled into it; 1 for one recording */
	int nr_draws;
	/* each draw's pages/s: draw d of two recordings uses the same machine draw */
	double draws[PRED_MAX_DRAWS];
	double draws_contended[PRED_MAX_DRAWS];	/* lru_lock contended per page */
	double draws_lru_wait[PRED_MAX_DRAWS];	/* lru_lock wait per page, ns */
	double pages_per_sec, band_low, band_high;
	double twin_pages_per_sec;
	double lru_wait_ns_per_page;
	double lru_contended_per_page;
	double lru_acquired_per_page;	/* what the contended count cannot pass */
	double sim_seconds;		/* simulated time the table covers */
	char bottleneck[192];
	double load;			/* the bottleneck lock's utilisation */
	/* the central simulation's events per page: writes made at this N */
	double ev_per_page[NR_PRED_EVENTS];
	double ev_xfer_ns_per_page;	/* their line transfers */
	double inval_ns_per_page;	/* writers' invalidations of lines read */
	/* holders' stalls on section lines others read during the section */
	double steals_per_page, steal_ns_per_page;
	double line_wait_ns_per_page;	/* transfers' waits for a line busy with another's */
	int vmstat_threshold;		/* stat_threshold for online (first fold's zone) */
	/* the time each event kind added, as a share of the CPUs' time */
	double ev_share[NR_PRED_EVENTS];
	double ipis_per_page;		/* TLB flush IPIs sent */
	double bw_wait_share;		/* clears' waits for their socket's memory */
	bool bw_costed;			/* the profile gives a memory bandwidth */
	bool ipi_costed;		/* the profile gives an IPI's handler or send time */
	struct bench_result table;	/* per-site figures, for the printers */
};

/*
 * Run @w once with @threads threads, recording, into @rec with the run's
 * description filled in.  0, or -1 after one error line.
 */
int pred_record_workload(const char *prog, const struct bench_workload *w,
			 const struct bench_opts *o, long threads,
			 struct pred_recording *rec);
/*
 * Two sides (@o[0], @o[1]) recorded in turn, each with its first
 * --threads, until each has @want in @rec[k] (*@nr[k] of them made, kept
 * on failure for the caller to free).  A shared machine drifts between
 * recordings a second apart; alternated, recording k of each side is
 * made at about the same time.  0, or -1 after one error line.
 */
int pred_record_alternately(const char *prog, const struct bench_workload *w,
			    const struct bench_opts o[2], int want,
			    struct pred_recording *rec[2], int *nr[2]);
/*
 * The same for usemem, which runs its own model (predict/record_usemem.c);
 * *@steal_per_access (when not NULL): pages reclaimed per access recorded.
 */
int pred_record_usemem(const char *prog, const struct bench_opts *o, long threads,
		       struct pred_recording *rec, double *steal_per_access);
/*
 * After a bench_run() that ran recording (pred_record_start()): stop, and
 * describe the run in @rec.  0, or -1 after one error line.
 */
int pred_record_finish(const char *prog, const struct bench_workload *w,
		       const struct bench_opts *o, const struct bench_result *r,
		       struct pred_recording *rec);
/* One CPU count: the point estimate, its band, the twin, the lock table. */
int pred_model_point(const struct pred_recording *rec, const struct pred_profile *pf,
		     int cpus, const struct pred_model_opts *mo, struct pred_point *pt);
void pred_point_free(struct pred_point *pt);
/*
 * The points of @k recordings of one run at one CPU count (each simulated
 * with the same machine draws) as one: the median recording's figures and
 * table, every draw, the band over all draws and centrals.  Takes the
 * points over: only @out is freed afterwards.
 */
void pred_pool_points(struct pred_point *pts, int k, struct pred_point *out);
/* pred_model_point() of each of @nr recordings, pooled: 0, or -1 (out of memory) */
int pred_model_pooled(const struct pred_recording *recs, int nr, const struct pred_profile *pf,
		      int cpus, const struct pred_model_opts *mo, struct pred_point *pt);
/* The recording's events per page, as one line (no newline) into @buf. */
void pred_events_describe(const struct pred_recording *rec, char *buf, size_t len);
/* The sum of the args of @rec's events of @kind, *@n their number */
double pred_event_arg_sum(const struct pred_recording *rec, enum pred_event_kind kind, u64 *n);
/* The address space's costs at @pt's N as shares of the CPUs' time, one line. */
void pred_point_mm_describe(const struct pred_point *pt, char *buf, size_t len);
/* The events @pt's N makes, as one line (no newline) into @buf. */
void pred_point_events_describe(const struct pred_point *pt, char *buf, size_t len);
json_t *pred_point_json(const struct pred_recording *rec, const struct pred_profile *pf,
			const struct pred_point *pt);

/* @v at its value when @central, else uniform in its range (predict/model.c) */
double pred_value_draw(const struct pred_value *v, struct bench_rng *rng, bool central);

/* ---- a one-CPU MGLRU aging pass on another machine (predict/aging_pass.c) ---- */

struct pred_aging_pass {
	double ms_here;		/* the pass as lrulab made it here */
	double locked;		/* its locked read-modify-writes: young PTEs + cmpxchgs done */
	double x_here_ns;	/* one of them here (pred_measure_locked_rmw()) */
	double x_target_ns;	/* and on the target (its profile's locked_rmw_ns) */
	double page_scale;	/* the target's pages over the recorded ones */
};

double pred_aging_pass_ms(const struct pred_aging_pass *a, double speed);
double pred_aging_pass_speed(const struct pred_aging_pass *a, double ms_target);

/*
 * This machine's locked read-modify-write on a line it holds: a chain of
 * lock cmpxchg, each after the last, ns each; median of 5 in @v->v, their
 * range in lo and hi, where it came from in source (predict/machine_calib.c).
 */
void pred_measure_locked_rmw(struct pred_value *v);

#endif
