/* SPDX-License-Identifier: MIT */
/* What `lrulab replay`'s command (replay/cmd.c) and its output (replay/output.c) share. */
#ifndef LRULAB_REPLAY_CMD_H
#define LRULAB_REPLAY_CMD_H

#include <signal.h>
#include <stdio.h>
#include <jansson.h>

#include "replay/replay.h"
#include <lrulab/swap.h>

#define REPLAY_PROG "lrulab replay"

/*
 * The smallest memory.max the kernel model replays.  Folios waiting in a
 * CPU's lru_add batch (FOLIO_BATCH_SIZE, 31) are not on the LRU yet, so
 * get_scan_count() sees nothing to scan and nothing drains the batch:
 * below one batch the first eviction fails and the memcg OOMs.
 */
#define REPLAY_MIN_PAGES (FOLIO_BATCH_SIZE + 1)

/*
 * One curve: the exact LRU, the model's classic or multi-gen LRU in one
 * mode, or this machine's kernel (`lrulab host replay`).
 */
enum replay_lru { REPLAY_EXACT, REPLAY_CLASSIC, REPLAY_MGLRU, REPLAY_HOST, NR_REPLAY_LRUS };

struct replay_run {
	enum replay_lru lru;
	struct replay_counts c;
	double seconds;			/* of the replay (exact: the pass that gave every size) */
	bool failed;
	bool skipped;			/* the kernel's below REPLAY_MIN_PAGES: not replayed */
	struct replay_linux_result k;	/* the kernel's LRUs only */
	char *locks;			/* the kernel's with --locks: the lock table */
	struct replay_clock clock;	/* the model's: the command's, or the host's rate */
	/* the host's (REPLAY_HOST): over its runs at this size */
	struct {
		int runs, oom;		/* runs that gave figures; OOM-killed ones */
		double mr, mr_lo, mr_hi;	/* median miss ratio, its range */
		double rate;		/* median requests a second */
	} host;
};

struct replay_cmd {
	const char *trace_path;
	const char *type_name;
	const char *sizes_arg;
	struct replay_load_opts lo;
	struct replay_trace t;
	uint64_t sizes[REPLAY_MAX_SIZES];
	int nr_sizes;
	bool exact, classic, mglru, host;
	long host_reps;			/* --reps: the host's runs a size */
	enum replay_mode mode;
	int jobs;
	bool json, locks;
	const char *plot;
	/* --print-jobs: one command per size and LRU instead of running them */
	bool print_jobs;
	/* --read-latency, --rate: the kernel replays' clock */
	struct replay_clock clock;
	long read_latency_us, rate;
	bool trace_time;		/* --trace-time: the trace's stamps are the clock */
	/* --merge FILE...: their JSON lines instead of running */
	const char *merge[REPLAY_MAX_SIZES];
	int nr_merge;
	/* what the jobs repeat: -t, --ignore-obj-size, -n as given */
	const char *params_arg;
	long max_reqs_arg;
	double load_seconds;
	struct replay_run *runs;	/* exact sizes first, then classic, mglru, host */
	int nr_runs;
};

const char *replay_cache_name(enum replay_lru lru);
void replay_print_header(const struct replay_cmd *c, FILE *f);
void replay_print_run(const struct replay_cmd *c, const struct replay_run *r, FILE *f);
json_t *replay_run_json(const struct replay_cmd *c, const struct replay_run *r);
/* The figures replay_run_json() gave back into @r (its lru set): 0, or -1 if not one */
int replay_run_from_json(json_t *j, struct replay_run *r);
/*
 * SIGINT and SIGTERM while replay's children run: _catch() blocks them
 * (*@orig the mask before), so that they arrive only where the parent
 * waits with @orig (ppoll), and sets replay_signal; the parent then
 * passes the signal on.  _default() gives them their default action
 * and sets @mask: the parent after its children, or a child at its start.
 */
extern volatile sig_atomic_t replay_signal;
void replay_signals_catch(sigset_t *orig);
void replay_signals_default(const sigset_t *mask);

/*
 * The host kernel's replays at every size (`lrulab host replay` in a
 * child), into @runs[0 .. nr_sizes): 0, or the exit status after its
 * error line.
 */
int replay_host_run(const struct replay_cmd *c, struct replay_run *runs);
/* gnuplot: PNG at c->plot, its data and script beside it.  0 or -1 (said why). */
int replay_plot(const struct replay_cmd *c);

#endif /* LRULAB_REPLAY_CMD_H */
