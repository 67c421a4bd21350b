/* SPDX-License-Identifier: MIT */
/*
 * `lrulab host`: lrulab's workloads run on this machine's own kernel with
 * real system calls (bench/host.c), so that the model's rates and lock
 * tables can be set beside the real thing's, and `lrulab bench
 * --calibrate` (bench/calibrate.c) can add the fault work that makes
 * lrulab's one-thread rate the kernel's.  What a host run changes on the
 * machine (an mTHP size's sysfs setting, a perf data file; for later
 * workloads a cgroup or a file) is undone at exit and on SIGINT, SIGTERM
 * and SIGHUP (bench/host_sys.c).
 */
#ifndef LRULAB_HOST_H
#define LRULAB_HOST_H

#include <sys/types.h>

#include "bench/bench.h"
#include "tools/util.h"

struct host_opts {
	bool shmem;
	unsigned int folio_order;	/* 0, 2, 3 or 4 */
	unsigned long mem;		/* bytes per thread */
	double seconds;
	long threads[BENCH_MAX_THREAD_COUNTS];
	int nr_threads;
	bool json;
	bool perf_lock;
	bool perf_hold;
	unsigned long fault_work_ns;	/* lrulab's side of --perf-lock and --perf-hold */
	bool vma_own;			/* anon: each thread's region a VMA of its own */
};

struct host_result {
	long threads;
	int cpus;			/* processors this process may use */
	bool oversubscribed;
	unsigned long pages;		/* written and freed in the timed passes */
	unsigned long warmup_pages;	/* the pass before the clock */
	double seconds;
	double pages_per_sec;
	double user_s, sys_s;
	struct bench_deltas vmstat;	/* /proc/vmstat: the whole machine */
	int vmas;			/* /proc/self/maps' lines over the threads' regions */
	struct bench_deltas mthp;	/* hugepages-*kB/stats */
	int err;			/* -errno of the first failed call */
	const char *failed;		/* that call */
};

/*
 * One fault-free run of @threads threads on the host kernel.  An mTHP
 * size must have been set up by host_thp_prepare().  0, or -errno when
 * nothing could be measured (r->err says which call failed in a worker).
 */
int host_fault_free_run(const struct host_opts *o, long threads,
			struct host_result *r);
void host_result_free(struct host_result *r);
json_t *host_result_json(const struct host_opts *o, const struct host_result *r);

/*
 * lru_lock's hold per page, the kernel's over lrulab's, from one run of
 * @o's fault-free shape at one thread on each (the host under `perf
 * record -e cpu-clock`, lrulab with o->fault_work_ns): what `host
 * --perf-hold` prints (bench/host_perf.c says how).  0, or -1 after an
 * error line, or when a side never held it (*@ratio NAN).
 */
int host_lru_hold_ratio(const char *prog, const struct host_opts *o, double *ratio);

/* `lrulab host usemem` (bench/host_usemem.c): the exit status */
int host_usemem_main(const char *prog, int argc, char **argv);
/* `lrulab host replay` (bench/host_replay.c) */
int host_replay_main(const char *prog, int argc, char **argv);

/* ---- the machine (bench/host_sys.c) ---- */

/*
 * Make the kernel fault folios of 4K << @order and nothing larger in the
 * regions host_fault_free_run() maps: for @order > 0 the size's mTHP
 * setting (enabled, or shmem_enabled for @shmem) is set to "always" and
 * registered to be restored.  0, or -1 after one error line prefixed
 * @prog (no such size, not root, a larger size also enabled).
 */
int host_thp_prepare(const char *prog, bool shmem, unsigned int order);
/* "[never]" of "always inherit madvise [never]" into @out; -1 if none. */
int host_sysfs_choice(const char *text, char *out, size_t len);
/*
 * Whether a size whose setting is @size_val faults in a region the run
 * maps (no MADV_HUGEPAGE), given the top-level setting @top_val: anon
 * reads "enabled", shmem (anonymous shared memory) "shmem_enabled".
 */
bool host_thp_size_active(bool shmem, const char *size_val, const char *top_val);

/*
 * Undo at host_undo_all(), or on SIGINT, SIGTERM or SIGHUP before the
 * signal's default action: write @value back to @path, unlink @path,
 * remove the directory @path.  Last registered, first undone; each once.
 * 0, or -1 when the table is full.
 */
int host_undo_write(const char *path, const char *value);
int host_undo_unlink(const char *path);
int host_undo_rmdir(const char *path);
/* SIGKILL child @pid and reap it (one still running in a cgroup to remove) */
int host_undo_kill(pid_t pid);
/* swapoff(@path), before whatever was registered earlier (its unlink) */
int host_undo_swapoff(const char *path);
void host_undo_all(void);
/*
 * What a host run that was killed (SIGKILL: no undo runs) left behind,
 * each named by its PID: the memory cgroups lrulab-PID under
 * @cgroup_root (and its v1 memory/), the tracefs instance lrulab-PID,
 * and the folders lrulab-host-PID-* and lrulab-perf-PID-* under
 * $TMPDIR, /var/tmp and /tmp.  Those of a PID that no process has any
 * more are removed (a process still in such a cgroup is the dead run's
 * child and is killed first), each with one line on stderr saying what
 * went.  Returns how many were removed.
 */
int host_leftovers_clear(const char *prog, const char *cgroup_root);

/* Pin the calling thread to the @n-th processor it may run on (modulo). */
int host_pin(int n);
/* "hugepages-16kB/anon_fault_alloc N" for every size and counter */
void host_read_mthp(struct bench_deltas *d);
/* /proc/vmstat */
void host_read_vmstat(struct bench_deltas *d);
/* The requests a block device completed and their time (its stat file), since boot */
struct host_disk_stat {
	unsigned long long reads, read_sectors, read_ms, writes, write_ms;
};
/* 0, or -1 if @dev has no stat file */
int host_disk_stat(dev_t dev, struct host_disk_stat *d);
/* host_mem_available() and host_mem_total() are in tools/util.h */

/* ---- --perf-lock (bench/host_perf.c) ---- */

/* One row of `perf lock contention`. */
struct host_perf_row {
	unsigned long long contended;
	double wait_total_ns, wait_max_ns, wait_avg_ns;
	char type[24];
	char caller[96];
};

/* Parse a row of the table; 0, or -1 for a header or another line. */
int host_perf_parse_row(const char *line, struct host_perf_row *row);
/*
 * Whether @caller ("__page_cache_release.part.0+0x58") is a kernel
 * function that takes an lruvec's lru_lock itself.
 */
bool host_perf_lru_caller(const char *caller);
/* `lrulab host fault-free --perf-lock`: the exit status */
int host_perf_lock(const char *prog, const struct host_opts *o);

/* lru_lock's hold by kernel caller, from `perf script` of a cpu-clock recording */
#define HOST_HOLD_MAX_SITES	16

struct host_hold_site {
	char caller[48];		/* the function, without .part.N or +0x */
	unsigned long long samples;
	double ns;			/* their periods summed */
};

struct host_hold {
	unsigned long long samples;	/* all of the recording's */
	double ns;
	int nr_sites;
	struct host_hold_site site[HOST_HOLD_MAX_SITES];	/* in the order first seen */
};

/*
 * Parse `perf script -F period,ip,sym` of a `perf record -g -e
 * cpu-clock` run into @h: every sample counts in the totals, and one
 * whose innermost frame is _raw_spin_unlock_irqrestore or
 * _raw_spin_unlock_irq, called from a host_perf_lru_caller(), counts for
 * that caller.  0, or -1 when no sample was read or a caller did not fit.
 */
int host_hold_parse(const char *text, struct host_hold *h);
/* `lrulab host fault-free --perf-hold`: the exit status */
int host_perf_hold(const char *prog, const struct host_opts *o);

/* ---- calibration (bench/calibrate.c) ---- */

#define CALIB_MAX_STEPS		12
#define CALIB_MAX_HOST_RUNS	(8 + CALIB_MAX_STEPS)
#define CALIB_TOLERANCE		0.05	/* matched: within 5% of the host */
#define CALIB_AIM		0.02	/* stop searching within 2% */

/* One measured rate at @work_ns per fault, pages/s; < 0 on failure. */
typedef double (*calib_rate_fn)(unsigned long work_ns, void *arg);

/*
 * What the search measures.  The host is run @host_reps times before
 * the search and once more before every probe after the first, so a
 * machine whose speed drifts (a neighbour's load, the clock) moves the
 * target with it: the target is the median of every host run so far.
 */
struct calib_sources {
	calib_rate_fn host;		/* one host run (its work is 0) */
	void *host_arg;
	int host_reps;			/* at most 8 */
	calib_rate_fn model;		/* one lrulab run at a work per fault */
	void *model_arg;
	int model_reps;			/* a probe is their median */
};

enum calib_status {
	CALIB_MATCHED,		/* within CALIB_TOLERANCE */
	CALIB_SLOWER,		/* slower than the host with no work: 0 */
	CALIB_UNMATCHED,	/* steps or work ran out: the closest work */
	CALIB_FAILED,		/* a measurement failed */
};

struct calib_step {
	unsigned long work_ns;
	double rate;		/* median of the model's runs */
};

struct calib_result {
	enum calib_status status;
	double target;		/* median of the host's runs */
	int nr_host;
	double host[CALIB_MAX_HOST_RUNS];
	unsigned long work_ns;	/* chosen */
	double rate;		/* lrulab's median rate at work_ns */
	int nr_steps;
	struct calib_step steps[CALIB_MAX_STEPS];
};

/*
 * Find the work per fault that brings lrulab's rate down to the host's:
 * the first probe is 0, the second the work that a rate linear in
 * per-page time predicts (@faults_per_page faults per page), then a
 * bracket closed by interpolation and bisection, at most
 * CALIB_MAX_STEPS probes and at most @max_work ns.
 */
void calib_search(const struct calib_sources *src, double faults_per_page,
		  unsigned long max_work, struct calib_result *res);
const char *calib_status_name(enum calib_status s);
/*
 * `lrulab bench WORKLOAD --calibrate`: measure the host, search, set
 * o->fault_work_ns; the report goes to @text when not NULL, the JSON
 * object into *@json.  0, or -1 after one error line prefixed @prog.
 */
int bench_calibrate(const struct bench_workload *w, const char *prog,
		    struct bench_opts *o, FILE *text, json_t **json);

#endif /* LRULAB_HOST_H */
