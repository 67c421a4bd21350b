/* SPDX-License-Identifier: MIT */
/*
 * The benchmark harness behind `lrulab bench`, `lrulab ab` and `lrulab
 * repro` (bench/bench_common.c): the options every workload shares, a
 * run of N threads pinned as model CPUs in fresh memcgs, what a run
 * reports (lock tables, vmstat and memory.stat deltas, the figures that
 * hold on any machine), its JSON form, and the statistics of the A/B
 * harness (medians, bootstrap confidence intervals).
 */
#ifndef LRULAB_BENCH_H
#define LRULAB_BENCH_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>

#include <lrulab/lrulab.h>
#include <lrulab/mm_inline.h>
#include <lrulab/switches.h>
#include <lrulab/trace.h>

#include "tools/util.h"

/* ---- trace consumers of the benchmarks ---- */

/* --profile-hold (bench/hold_profile.c): lru_lock hold time by section */
struct lru_hold_profile {
	u64 ns[NR_LRU_HOLD_SECTIONS];
	u64 count[NR_LRU_HOLD_SECTIONS];
	u64 deferred_stat_updates;	/* applied after unlock (s0) */
};

/* probes on (and the sums cleared) and off, at quiescent points */
void lru_hold_profile_start(void);
void lru_hold_profile_stop(void);
void lru_hold_profile_reset(void);
void lru_hold_profile_read(struct lru_hold_profile *out);
const char *lru_hold_section_name(enum lru_hold_section sec);

/*
 * The model's readahead (bench/ra_events.c), counted as the kernel's
 * readahead tracepoints would have reported it: page_cache_sync_ra calls
 * (every miss that reached readahead), page_cache_async_ra calls
 * (PG_readahead hits acted on), the windows set up (page_cache_ra_order)
 * and their pages.  A host's traced windows use the same slots.
 */
enum ra_event {
	RA_SYNC_RA,
	RA_ASYNC_RA,
	RA_WINDOWS,
	RA_WINDOW_PAGES,
	NR_RA_EVENTS,
};

/* counts cleared and probes on; off */
void readahead_events_start(void);
void readahead_events_stop(void);
void readahead_events(unsigned long ev[NR_RA_EVENTS]);

#define BENCH_MAX_THREAD_COUNTS	16
#define BENCH_MAX_MEMCGS	64
#define BENCH_MAX_MEM		(1UL << 30)
#define BENCH_MAX_NODE_MEM	(1UL << 40)	/* --node-mem */
#define BENCH_MIN_NODE_MEM	(16UL << 20)	/* --node-mem: the least node the model runs */

/* Options a workload accepts on top of the common ones. */
#define BENCH_OPT_TYPE		(1U << 0)	/* --type shmem|anon */
#define BENCH_OPT_MAX		(1U << 1)	/* --max SIZE: the leaf's memory.max */
#define BENCH_OPT_TYPE_FILE	(1U << 2)	/* --type file|mixed: a regular file */
#define BENCH_OPT_SWAP		(1U << 3)	/* --swap zstd|copy, --swap-io sync|async,
						 * --swap-latency US: the swap device */
#define BENCH_OPT_PATTERN	(1U << 4)	/* --pattern, --fadvise: file reads */
#define BENCH_OPT_PROCS		(1U << 5)	/* --procs N[,N...], --passes N: mglru-age */
#define BENCH_OPT_VMA		(1U << 6)	/* --vma shared|own: anon ranges' VMAs */
/* mglru-age's one shared file may be larger than a thread's region */
#define BENCH_MAX_SHARED_MEM	(4UL << 30)

enum usemem_pattern {
	USEMEM_PATTERN_RANDOM,
	USEMEM_PATTERN_ZIPF,
	USEMEM_PATTERN_SEQ,
};

struct bench_opts {
	const char *workload;
	bool shmem;
	bool regular;			/* --type file (or mixed) */
	bool mixed;			/* --type mixed: half anon, half file */
	bool swap_copy;			/* --swap copy: memcpy instead of zstd */
	bool swap_store_given;		/* --swap given (async defaults to copy) */
	bool swap_async;		/* --swap-io async: a disk's writes */
	long swap_latency_us;		/* --swap-latency: each async write's */
	long threads[BENCH_MAX_THREAD_COUNTS];
	int nr_threads;
	unsigned long mem;		/* bytes per thread */
	unsigned long node_mem;		/* --node-mem: the node's bytes; 0: 4 GiB */
	unsigned long max;		/* --max: leaf memory.max, bytes; 0: the workload's */
	unsigned int folio_order;	/* anon mTHP order: 0, 2, 3 or 4 */
	bool vma_own;			/* anon: a guard after each thread's range, a VMA each */
	double seconds;			/* per run, split across the memcgs */
	long loops;			/* > 0: passes per thread instead of --seconds */
	long memcgs;			/* fresh memcgs run one after the other */
	enum lock_impl lock;
	/* -1: not given (off), 0: --without, 1: --with */
	signed char sw[NR_LRULAB_SWITCHES];
	unsigned long fault_work_ns;
	long flush_ms;			/* memcg flusher period; -1: the workload's */
	long drain_all_us;		/* lru_add_drain_all() this often; 0: never */
	bool json;
	bool profile_hold;
	const char *record;		/* --record FILE: the predictor's recording */
	bool calibrate;			/* --calibrate: --fault-work from the host */
	enum usemem_pattern pattern;	/* --pattern: which pages a file read reads */
	double zipf_a;			/* --pattern zipf:A */
	int fadvise;			/* POSIX_FADV_*; -1: not given (NORMAL) */
	unsigned long read_ahead_kb;	/* --read-ahead-kb: the device's; 0: the kernel's default */
	long read_latency_us;		/* --read-latency: the device's; 0: none (a ramdisk); -1: not given */
	bool pattern_given;
	long procs[BENCH_MAX_THREAD_COUNTS];	/* --procs: processes sharing the file */
	int nr_procs;
	long passes;			/* --passes: aging passes per run */
	int show;			/* --show: -1 none, 0 lru_gen, 1 lru_gen_full */
	unsigned int lru_gen;		/* --lru-gen=MASK: /sys/kernel/mm/lru_gen/enabled */
	bool lru_gen_given;
};

/*
 * The lru_gen caps a run starts with (lrulab_config.lru_gen): 0 for the
 * classic LRU, --lru-gen's mask (0x7 without one) with lru-gen on.
 */
unsigned int bench_lru_gen_caps(const struct bench_opts *o);

/*
 * usemem's aging and eviction counters for either LRU (bench/usemem_lru.c):
 * taken at the window's ends, turned into the window's deltas, printed
 * and put in the run's JSON with the events' deltas @ev.
 */
struct usemem_lru {
	unsigned long activate[2], restore[2];	/* workingset_*_anon, _file */
	unsigned long scan[2], steal[2];	/* pgscan_anon, _file; pgsteal_anon, _file */
	unsigned long refill;			/* pgrefill */
	unsigned long max_seq, min_seq[2];	/* the leaf's generations */
};
void usemem_lru_take(struct usemem_lru *s, struct mem_cgroup *leaf);
void usemem_lru_delta(struct usemem_lru *end, const struct usemem_lru *start);
void usemem_lru_print(FILE *text, const struct usemem_lru *d, const unsigned long *ev0,
		      const unsigned long *ev1, unsigned int caps, double secs);
/* @ev: the window's vm events (pgactivate, pgdeactivate) */
void usemem_lru_json(json_t *j, const struct usemem_lru *d, const unsigned long *ev,
		     unsigned int caps);

/*
 * --pattern and --fadvise (bench/usemem_pattern.c): 0, or -1 after one
 * error line.  A stream gives the pages one reader reads, the same on
 * the model and on the host for the same @seed.
 */
int usemem_pattern_parse(const char *prog, const char *s, struct bench_opts *o);
int usemem_fadvise_parse(const char *prog, const char *s, struct bench_opts *o);
const char *usemem_pattern_name(const struct bench_opts *o, char *buf, size_t len);
const char *usemem_fadvise_name(const struct bench_opts *o);

struct usemem_stream {
	enum usemem_pattern kind;
	unsigned long pages, next, stride;
	u64 x;
	double *cdf;			/* zipf: cumulative share by rank */
};

int usemem_stream_init(struct usemem_stream *s, const struct bench_opts *o,
		       unsigned long pages, unsigned long seed);
unsigned long usemem_stream_next(struct usemem_stream *s);
void usemem_stream_free(struct usemem_stream *s);

struct bench_thread;

struct bench_workload {
	const char *name;
	const char *summary;
	unsigned int opts;		/* BENCH_OPT_* */
	/* report wall/user/sys time and `perf lock report` as the s4 mail */
	bool report_time;
	void (*defaults)(struct bench_opts *o);
	/* Map the thread's region; 0 or -errno. */
	int (*setup)(struct bench_thread *t);
	/*
	 * Fault in every page of the region, or those before *t->stop was
	 * set, then free them all; t->done is how many were faulted.
	 */
	int (*pass)(struct bench_thread *t);
	void (*teardown)(struct bench_thread *t);
	/*
	 * A workload that sets up its own model (usemem: a memcg limit,
	 * swap, a prefault before the clock) runs here instead of through
	 * setup/pass/teardown, after the common options were parsed.
	 * Returns the exit status; @prog prefixes error lines.
	 */
	int (*main)(const struct bench_workload *w, const char *prog,
		    struct bench_opts *o);
};

#define BENCH_WORKLOAD_NAMES "fault-free, mmap-madvise, usemem or mglru-age"

extern const struct bench_workload fault_free_workload;
extern const struct bench_workload mmap_madvise_workload;
extern const struct bench_workload usemem_workload;
extern const struct bench_workload mglru_age_workload;

/*
 * One usemem run with @threads threads (bench/usemem.c): the text report
 * goes to @text when not NULL, the JSON object into *@json (the caller
 * frees it).  0, 1 when a worker failed or an invariant broke, or
 * -errno when the model could not be set up.
 */
int bench_usemem_run(const struct bench_opts *o, long threads, FILE *text,
		     json_t **json);
/* usemem's own checks of @o: 0, or -1 after one error line. */
int bench_usemem_check(const char *prog, const struct bench_opts *o);
/*
 * The JSON object a usemem run with @o prints, figures zero, lock table
 * and errors left out: the keys it has (bench_has_metric).
 */
json_t *bench_usemem_json_shape(const struct bench_opts *o);
/*
 * Whether a run of @w with @o reports @key as a number in its JSON, known
 * before any run, so that `lrulab ab --metric` is checked up front.
 */
bool bench_has_metric(const struct bench_workload *w, const struct bench_opts *o,
		      const char *key);
/*
 * SIGINT and SIGTERM (bench/bench_signal.c).  bench_signals_catch() runs
 * before any other thread starts: 0 or -1.  bench_interrupted is the
 * signal taken, or 0.  A phase registers its stop flag and the semaphore
 * its waiter sleeps on (NULL, NULL when it is over); ab and repro their
 * child (0 when it has exited), which a signal is passed on to.
 */
extern volatile sig_atomic_t bench_interrupted;
int bench_signals_catch(void);
void bench_signals_phase(int *stop, sem_t *wake);
void bench_signals_child(pid_t pid);
const char *bench_signal_name(int sig);
/* 128 + the signal once interrupted, else @status */
int bench_exit_status(int status);
/*
 * --show lru_gen|lru_gen_full: the file as the model has it at the end of
 * a run (call before lrulab_exit(); NULL without --show), and printing it
 * after the report: to stdout, or to stderr with --json so that stdout
 * stays JSON Lines.  bench_show_print() frees @text.
 */
char *bench_show_capture(const struct bench_opts *o);
void bench_show_print(const struct bench_opts *o, char *text);
/* Every lock site with acquisitions so far, as the "locks" array of --json. */
json_t *bench_locks_json(void);
struct bench_result;
/* @r's sites as that array */
json_t *bench_sites_json(const struct bench_result *r);
/*
 * How the lock figures were taken, into @j: "lockstat" (off, sampled,
 * full), "hold_sampled" (one hold in it timed), "clock_cost_ns" and
 * "spin_yield" (whether waiters yielded the processor).
 */
void bench_lockstat_json(json_t *j, unsigned int hold_sampled, bool spin_yield);

/* What a workload's thread owns; the harness fills in the first block. */
struct bench_thread {
	int cpu;
	const struct bench_opts *o;
	struct mem_cgroup *memcg;
	unsigned long pages;		/* pages per pass */
	/*
	 * Set when the run is over: a pass polls it between pages and ends
	 * early, so that no pass outlasts --seconds (one pass of one thread
	 * can take longer than the whole run when threads outnumber CPUs).
	 */
	const int *stop;
	unsigned long done;		/* pages the last pass faulted and freed */

	/*
	 * The run's threads are one process, as the mails' and lrulab
	 * host's are: one mm (proc), whose last thread out puts it.  @start
	 * is where the thread's own range begins in @vma, which may hold
	 * the other threads' ranges too (adjacent anonymous mmaps merge).
	 */
	struct bench_process *proc;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	unsigned long start;
	struct address_space *mapping;
};

struct bench_process {
	struct mm_struct *mm;
	int users;		/* threads that set up and have not torn down */
};

/* One "name value" delta (vmstat, memory.stat, mTHP counters). */
struct bench_delta {
	char name[48];
	long long delta;
};

struct bench_deltas {
	int nr;
	struct bench_delta *d;
};

struct bench_memcg_result {
	char name[32];
	unsigned long pn_offset128;	/* mem_cgroup_pn_offset128(memcg, 0) */
	unsigned long pages;
	double seconds;
	double pages_per_sec;
};

struct bench_site_result {
	char cls[32];
	char caller[48];	/* as perf names it */
	char fn[48];		/* the site in lrulab */
	char name[100];		/* the row: "caller" or "caller (fn)" */
	struct lock_stat st;
};

struct bench_result {
	long threads;
	int cpus;			/* processors this process may use */
	unsigned long node_pages;	/* the model's node, what its watermarks come from */
	bool oversubscribed;
	bool switches[NR_LRULAB_SWITCHES];	/* as the run had them */
	unsigned long pages;		/* faulted and freed, all memcgs */
	double seconds;			/* wall time of the measured passes */
	double pages_per_sec;		/* mean over the memcgs, as in the mails */
	double user_s, sys_s;		/* CPU time of the measured passes */
	int nr_memcgs;
	struct bench_memcg_result memcg[BENCH_MAX_MEMCGS];
	int nr_sites;
	struct bench_site_result *sites;
	struct lock_stat lru;		/* every lru_lock site summed */
	struct lru_drain_stats drains;	/* during the measured passes */
	bool spin_yield;		/* waiters could yield (oversubscribed) */
	bool have_profile;
	struct lru_hold_profile profile;
	struct bench_deltas vmstat;
	struct bench_deltas memory_stat;
	struct bench_deltas mthp;
	int invariant_violations;
	char *lru_gen_show;		/* --show's file at the end, or NULL */
	int err;			/* first worker error, -errno */
	int interrupted;		/* the signal that ended it early, or 0 */
};

/*
 * Parse `lrulab bench WORKLOAD` options into @o (which holds the
 * workload's defaults).  @prog prefixes error lines.  Returns 0, 1 after
 * --help was printed, or 2 after one error line on stderr.
 */
int bench_parse(const struct bench_workload *w, const char *prog, int argc,
		char **argv, struct bench_opts *o);
const struct bench_workload *bench_find_workload(const char *name);
/* --threads, --folio-size and --vma, for every command that takes them: 0 or -1 after one error line */
int bench_parse_threads(const char *prog, const char *s,
			long threads[BENCH_MAX_THREAD_COUNTS], int *nr);
int bench_parse_folio_size(const char *prog, const char *s, unsigned int *order);
/* --vma shared|own, and that it was given for anon: 0 or -1 after one error line */
int bench_parse_vma(const char *prog, const char *s, bool *own);
int bench_check_vma(const char *prog, bool shmem, bool given);
/* --vma own's guard after @t's range: 0, or -errno. */
int bench_vma_guard(struct bench_thread *t);
/*
 * The largest --threads times --mem, and the model's page entries,
 * against what the machine has available: 0, or -1 after one error line.
 */
int bench_check_memory(const char *prog, const struct bench_opts *o);
/* The common defaults, then the workload's own. */
void bench_defaults(const struct bench_workload *w, struct bench_opts *o);
void bench_usage(FILE *f, const struct bench_workload *w);

/* Run @w once with @threads threads.  0, or -errno when set-up failed. */
int bench_run(const struct bench_workload *w, const struct bench_opts *o,
	      long threads, struct bench_result *r);
void bench_result_free(struct bench_result *r);
/*
 * The lock sites that were acquired, into r->sites, most waited-on
 * first (bench_site_cmp), and the lru_lock class total into r->lru.
 */
void bench_collect_sites(struct bench_result *r);
int bench_site_cmp(const void *a, const void *b);
void bench_print_text(FILE *f, const struct bench_workload *w,
		      const struct bench_opts *o, const struct bench_result *r);
json_t *bench_result_json(const struct bench_workload *w,
			  const struct bench_opts *o, const struct bench_result *r);

/* The lock table of bench_print_text, for reports that put it beside another. */
void bench_print_contention(FILE *f, const struct bench_result *r);

/* "name value" lines into @d (appended); @acc += @after - @before, by name */
void bench_deltas_parse(struct bench_deltas *d, char *text);
void bench_deltas_accumulate(struct bench_deltas *acc,
			     const struct bench_deltas *before,
			     const struct bench_deltas *after);
void bench_deltas_free(struct bench_deltas *d);
/* @show's "key value" lines (vmstat_show(), memory_stat_show(), ...) into @d */
void bench_deltas_capture(struct bench_deltas *d, void (*show)(void *, FILE *), void *arg);
/* /proc/vmstat after a fold; @arg unused */
void bench_show_vmstat(void *arg, FILE *f);
/* memory.stat of the memcg @arg after a full flush */
void bench_show_memory_stat(void *arg, FILE *f);
/* @j as one compact JSON line on stdout (JSON Lines); @j is kept */
void bench_json_line(json_t *j);
/* The non-zero deltas under @title, as text; as a JSON object */
void bench_print_deltas(FILE *f, const char *title, const struct bench_deltas *d);
json_t *bench_deltas_json(const struct bench_deltas *d);

/* The model's /proc/vmstat and the leaf's memory.stat over a window. */
struct usemem_stats {
	struct bench_deltas vm0, memcg0;
};
struct mem_cgroup;
void usemem_stats_begin(struct usemem_stats *s, struct mem_cgroup *memcg);
void usemem_stats_end(struct usemem_stats *s, struct mem_cgroup *memcg, FILE *text,
		      json_t *j);

/* "lru-stat-batch, memcg-direct-stat, ...": every switch, for messages */
const char *bench_switch_list(void);
/* Names of the switches the run had on, for the "switches" list. */
json_t *bench_switches_json(const struct bench_result *r);

/* ---- statistics ---- */

/* splitmix64: the same stream on every libc, so CIs are reproducible */
struct bench_rng {
	u64 state;
};
u64 bench_rng_next(struct bench_rng *r);

/*
 * 95% bootstrap confidence interval of median(@b) / median(@a): @iters
 * resamples of each side with replacement, the 2.5th and 97.5th
 * percentiles.  The same @seed gives the same interval.  -EINVAL when a
 * side is empty or a resampled median of @a is 0.
 */
int bench_ratio_ci(const double *a, int na, const double *b, int nb,
		   int iters, u64 seed, double *lo, double *hi);
static inline bool bench_ci_covers_one(double lo, double hi)
{
	return lo <= 1.0 && hi >= 1.0;
}
#define BENCH_BOOTSTRAP_ITERS	10000
#define BENCH_BOOTSTRAP_SEED	0x6c72756c6162ULL	/* "lrulab" */

/* ---- runs in fresh processes (ab, repro) ---- */

#define BENCH_MAX_CONFIG_ARGS	16

/* One side of a comparison: a binary and the switch options it runs with. */
struct bench_config {
	const char *label;
	const char *bin;
	int nargs;
	const char *args[BENCH_MAX_CONFIG_ARGS];
};

/*
 * Run `BIN bench ARGV... CONFIG-ARGS... --json` for every config in
 * turn (A B A B ...), @reps times, each in a fresh process; out[c][r] is
 * the parsed JSON object of config c's r-th run (the caller frees it
 * with json_decref).  Progress goes to @progress when not NULL.  0, or
 * -1 after one error line (prefixed @prog) on stderr.
 */
int bench_collect(const char *prog, const struct bench_config *cfg, int ncfg,
		  int argc, char *const *argv, int reps, json_t ***out,
		  FILE *progress);
/* The binary this process runs (/proc/self/exe), or argv0's resolution. */
const char *bench_self_exe(void);

/*
 * What records a run for --record FILE: the predictor's recorder, which
 * its command layer registers (predict/record_hooks.c) before a command
 * runs.  bench knows nothing of recordings but these calls.
 */
struct bench_recorder {
	/* before the run's threads start: 0, or -1 after one error line */
	int (*start)(const char *prog);
	/* after bench_run(): stop, describe the run and write @path */
	int (*write_run)(const char *prog, const char *path, const struct bench_workload *w,
			 const struct bench_opts *o, const struct bench_result *r);
	/* usemem: stop when its window's threads are joined, before the teardown */
	void (*stop)(void);
	/* usemem: once its invariants were checked, what stop() kept into @path */
	int (*write_usemem)(const char *prog, const char *path, const char *type,
			    long threads, unsigned long accesses, double secs,
			    const char *failed);
};
void bench_recorder_register(const struct bench_recorder *r);
/* the registered recorder, or NULL after one error line (prefixed @prog) */
const struct bench_recorder *bench_recorder_get(const char *prog);

/*
 * `ab --predict-cpus LIST --machine PROFILE`: A and B (@bo) predicted at
 * @cpus of the profile's machine, by the predictor's command layer
 * (predict/ab_predict.c), which registers it; the exit status.
 */
typedef int (*bench_ab_predict_fn)(const char *prog, const struct bench_workload *w,
				   const struct bench_opts bo[2], const long *cpus, int nr_cpus,
				   const char *machine, bool json);
void bench_ab_predict_register(bench_ab_predict_fn fn);

/* "Intel(R) Xeon(R) ..., 2 processors, Linux 6.1.0" */
void bench_machine_describe(char *buf, size_t len);

#endif /* LRULAB_BENCH_H */
