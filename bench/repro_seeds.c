// SPDX-License-Identifier: MIT
/*
 * What `lrulab repro` compares: the published numbers of each seed mail,
 * and the table of each seed, s0, s1, s3 and s4, built from cells of A/B
 * runs: which workload, which switch or build before and after, and the
 * rows each cell fills.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"

#include "repro.h"

/*
 * ---- published numbers ----
 *
 * Data copied from the mails in shared/seeds/, not results: they are
 * printed beside ours so that a reader compares shapes (which way, how
 * much), never absolute rates, which belong to an 80-CPU Skylake.
 */

/*
 * s0-lru-stat-batch.txt, "[PATCH v2] mm: move LRU size stat updates out
 * of lru_lock in folio batches" (Joanne Koong): 2-socket Skylake, 80
 * CPUs, threads pinned, fault-in and free in one memcg, pages/s averaged
 * over 7 fresh memcgs per run.
 */
const struct s0_published s0_published[REPRO_S0_MAIL_ROWS] = {
	{ "shmem", 20, 4.74e6, 5.47e6 },
	{ "shmem", 80, 7.94e6, 10.33e6 },
	{ "anon", 20, 3.04e6, 3.35e6 },
	{ "anon", 80, 3.23e6, 3.41e6 },
};
/* s0: "About 25% of the time spent holding lru_lock in those two paths
 * goes to the LRU stat updates" (80 threads, shmem, before the patch). */
#define S0_PUBLISHED_STAT_SHARE_PCT 25.0

/*
 * s1-vmstat-scan-cost.txt, "mm/vmscan: reduce lru_lock contention via
 * vmstat-derived scan-balance cost" v4 (Usama Arif): 176 cores, 256 GB,
 * `usemem -n 16 --prealloc --prefault --random 256M` in a two-level memcg
 * with memory.max=512M on the leaf, 16 GB swap file, a 30 s `perf lock
 * record -a` window; baseline and patched kernels.
 *
 *                          baseline    patched
 *   pgscan_direct  / s      172,662     171,817
 *   pgsteal_direct / s       67,162      66,306
 *   workingset_refault_anon / s
 *                            40,696      39,830
 *
 *   Lock Name (total wait per 30 s)   Before      After
 *   shrink_lruvec+0x770             722.84 ms    0       (lru_note_cost_unlock_irq)
 *   workingset_refault+0x167        385.26 ms    0       (lru_note_cost_refault)
 *   shrink_node+0x4ad               689.43 ms    26.95 ms
 *   shrink_active_list              208.34 ms    15.97 ms
 *   lru_add_drain_cpu+0x34            1.96 s    917.71 ms
 *   Total LRU lock wait              ~4.23 s     ~1.66 s
 *
 * Rows go by lrulab's site (a lock site's fn): shrink_node+0x4ad is where
 * shrink_node inlines prepare_scan_control (the anon_cost/file_cost
 * snapshot), lru_add_drain_cpu+0x34 the lru_lock of the batches a drain
 * moves (rotations among them); a batch moved because it filled up is
 * folio_batch_move_lru's, a row of its own.
 */
#define S1_MAIL_LEAF_PAGES (512UL << 20 >> PAGE_SHIFT)
#define S1_MAIL_TURNOVERS(steal) ((steal) * 2.0 / S1_MAIL_LEAF_PAGES)

static const struct s1_rate {
	const char *label, *metric;
	double before, after;
} s1_rates[] = {
	{ "pgscan_direct", "pgscan_per_sec", 172662, 171817 },
	{ "pgsteal_direct", "pgsteal_per_sec", S1_MAIL_PGSTEAL_BEFORE, S1_MAIL_PGSTEAL_AFTER },
	{ "workingset_refault_anon", "workingset_refault_anon_per_sec", 40696, 39830 },
};
/*
 * Each row sums the lrulab sites (by fn) that make up the mail's row:
 * shrink_lruvec+0x770 is lru_note_cost_unlock_irq() as shrink_lruvec()
 * inlines it from shrink_inactive_list(), the cost re-lock and the walk
 * up the ancestors.
 */
#define S1_MAX_FNS 4
static const struct s1_site {
	const char *cls, *fn, *mail;	/* fn: the row's name; mail: its name there */
	const char *fns[S1_MAX_FNS + 1];	/* the sites it sums, NULL-terminated */
	double before_ms, after_ms;	/* NAN: not in the mail */
} s1_sites[] = {
	{ "lru_lock", "lru_note_cost_unlock_irq", "shrink_lruvec+0x770",
	  { "shrink_inactive_list:lru_note_cost", "lru_note_cost_unlock_irq" }, 722.84, 0 },
	{ "lru_lock", "lru_note_cost_refault", "workingset_refault+0x167",
	  { "lru_note_cost_refault" }, 385.26, 0 },
	{ "lru_lock", "prepare_scan_control", "shrink_node+0x4ad",
	  { "prepare_scan_control" }, 689.43, 26.95 },
	{ "lru_lock", "shrink_active_list", NULL,
	  { "shrink_active_list:isolate", "shrink_active_list:putback",
	    "shrink_active_list:lru_note_cost" }, 208.34, 15.97 },
	{ "lru_lock", "lru_add_drain_cpu", "lru_add_drain_cpu+0x34",
	  { "lru_add_drain_cpu" }, 1960, 917.71 },
	{ "lru_lock", "folio_batch_move_lru", NULL, { "folio_batch_move_lru" }, NAN, NAN },
	{ "lru_lock", "shrink_inactive_list", NULL,
	  { "shrink_inactive_list:isolate", "shrink_inactive_list:putback" }, NAN, NAN },
	{ "cost_lock", "lruvec_cost_sample", NULL, { "lruvec_cost_sample" }, NAN, NAN },
};

static bool s1_site_has(const struct s1_site *p, const char *fn)
{
	int i;

	for (i = 0; i < S1_MAX_FNS && p->fns[i]; i++)
		if (!strcmp(p->fns[i], fn))
			return true;
	return false;
}
#define S1_TOTAL_WAIT_BEFORE_MS	4230.0
#define S1_TOTAL_WAIT_AFTER_MS	1660.0

/*
 * s3-memcg-pn-layout.txt, "[PATCH v3 0/2] memcg: reduce cacheline
 * contention from lruvec stat" (Joanne Koong): same machine and
 * benchmark; base, patch 1 (memcg_pn_cold after memcg_pn_read_mostly),
 * patch 1+2 (folio stats to memcg and node directly).
 */
const struct s3_published s3_published[REPRO_S3_MAIL_ROWS] = {
	{ "shmem", 20, 4.74e6, 5.59e6, 5.77e6 },
	{ "shmem", 80, 7.94e6, 8.66e6, 8.82e6 },
	{ "anon", 20, 3.04e6, 3.08e6, 3.10e6 },
};
_Static_assert(ARRAY_SIZE(s3_published) == REPRO_S3_MAIL_ROWS,
	       "repro_one() keeps a cover-letter row per s3 cell");

/*
 * s4's microbenchmark (S4_MAIL_*: bench/repro.h), and Shivank Garg's Graph500 test of the series in the same thread
 * (AMD Zen 5, 320 cores): folio_lruvec_lock_irqsave contended counts per
 * mTHP size, base and patched.
 */
static const struct s4_published {
	unsigned long folio_size;
	double contended_before, contended_after;
} s4_published[] = {
	{ 4096, 834603, 844193 },
	{ 16384, 7008834, 840695 },
	{ 65536, 188144, 40874 },
};

/* ---- s0 ---- */

int repro_s0(const struct repro_opts *ro, struct repro_table *t)
{
	const char *self = bench_self_exe();
	size_t i;

	t->seed = "s0-lru-stat-batch";
	t->title = "mm: move LRU size stat updates out of lru_lock in folio batches";
	t->before_name = "lru-stat-batch off";
	t->after_name = "lru-stat-batch on";
	for (i = 0; i < ARRAY_SIZE(s0_published); i++) {
		const struct s0_published *p = &s0_published[i];
		long n = repro_scaled_threads(ro, p->mail_threads);
		struct repro_cell c;
		char what[96];
		int err;

		repro_cell_fault_free(ro, &c, p->type, n, ro->memcgs);
		repro_cell_switch(&c, self, "lru-stat-batch");
		snprintf(what, sizeof(what), "%s, %d threads (here %ld)", p->type,
			 p->mail_threads, n);
		if (repro_cell_run(ro, t, &c, what, ro->reps)) {
			repro_cell_free(&c);
			return -1;
		}
		err = repro_row_fill(repro_table_row(t, "pages/s", p->before, p->after,
						     "%s", what),
				     &c, 0, 1, "pages_per_sec");
		if (!err && p->mail_threads == 80)
			err = repro_row_fill(repro_table_row(t, "ns/page", NAN, NAN,
							     "%s: lru_lock hold* per page", what),
					     &c, 0, 1, "lru_lock_hold_ns_per_page");
		repro_cell_free(&c);
		if (err)
			return -1;
	}

	/*
	 * The mail's profile: the share of lru_lock hold time in the LRU stat
	 * updates, 80 threads of shmem.  Timing every section lengthens the
	 * hold, so these runs are separate from the throughput runs.
	 */
	{
		long n = repro_scaled_threads(ro, 80);
		struct repro_cell c;
		char what[96];
		int err;

		repro_cell_fault_free(ro, &c, "shmem", n, 1);
		repro_cell_arg(&c, "--profile-hold");
		repro_cell_switch(&c, self, "lru-stat-batch");
		snprintf(what, sizeof(what), "shmem, 80 threads (here %ld), --profile-hold", n);
		if (repro_cell_run(ro, t, &c, what, ro->reps > 2 ? 2 : ro->reps)) {
			repro_cell_free(&c);
			return -1;
		}
		err = repro_row_fill(repro_table_row(t, "%", S0_PUBLISHED_STAT_SHARE_PCT, NAN,
						     "shmem, 80 (here %ld): node+memcg stat share of hold",
						     n),
				     &c, 0, 1, "hold_profile.node_memcg_stat_pct");
		if (!err)
			err = repro_row_fill(repro_table_row(t, "%", NAN, NAN,
							     "shmem, 80 (here %ld): all stat updates share",
							     n),
					     &c, 0, 1, "hold_profile.stat_pct");
		repro_cell_free(&c);
		if (err)
			return -1;
	}
	repro_table_note(t, "fault-free, %ld fresh memcg%s per run, %g s per run; median of %ld runs per cell, before/after alternating, each a fresh process",
			 ro->memcgs, ro->memcgs == 1 ? "" : "s", ro->seconds, ro->reps);
	repro_calib_note(ro, t, "fault-free");
	repro_table_note(t, "* hold sampled 1/%d per thread, the clock's cost taken off; the share rows time every hold and section (--profile-hold: expensive, it lengthens the holds)",
			 LOCKSTAT_HOLD_SAMPLE);
	return 0;
}

/* ---- s1 ---- */

/*
 * Per-site sums of a usemem run's "locks" (a caller can own several
 * sites), kept in the run's JSON as "s1_sites" so rows read them as
 * "s1_sites.CALLER_wait_ms" and "s1_sites.CALLER_per_1k".
 */
static void s1_add_sites(json_t *run)
{
	double reclaimed = json_number(run, "pgsteal");
	json_t *o = json_object(), *l;
	char key[96];
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(s1_sites); k++) {
		double acq = 0, wait = 0;

		json_array_foreach(json_object_get(run, "locks"), i, l) {
			const char *cls = json_string_value(json_object_get(l, "class"));
			const char *fn = json_string_value(json_object_get(l, "fn"));

			if (!cls || !fn || strcmp(cls, s1_sites[k].cls) ||
			    !s1_site_has(&s1_sites[k], fn))
				continue;
			acq += json_number(l, "acquired");
			wait += json_number(l, "wait_total_ns");
		}
		snprintf(key, sizeof(key), "%s_wait_ms", s1_sites[k].fn);
		json_object_set_new(o, key, json_real(wait / 1e6));
		snprintf(key, sizeof(key), "%s_per_1k", s1_sites[k].fn);
		json_object_set_new(o, key, json_real(reclaimed > 0 ? 1000 * acq / reclaimed : 0));
	}
	json_object_set_new(o, "lru_lock_wait_ms",
			    json_real(json_number(run, "lru_lock_wait_total_ns") / 1e6));
	json_object_set_new(run, "s1_sites", o);
}

/* lru_lock sites go by their caller alone, others by lock and caller */
static const char *s1_site_prefix(const struct s1_site *p)
{
	return strcmp(p->cls, "lru_lock") ? "cost_lock:" : "";
}

int repro_s1(const struct repro_opts *ro, struct repro_table *t)
{
	const char *self = bench_self_exe();
	long n = ro->cpus < S1_MAIL_PROCESSES ? ro->cpus : S1_MAIL_PROCESSES;
	struct repro_cell c;
	char what[96], key[96];
	size_t i;
	long r;
	int k, err = 0;

	t->seed = ro->swap_async ? "s1-vmstat-scan-cost" : "s1-vmstat-scan-cost-sync";
	t->title = "mm/vmscan: reduce lru_lock contention via vmstat-derived scan-balance cost";
	t->before_name = "vmstat-scan-cost off";
	t->after_name = "vmstat-scan-cost on";

	memset(&c, 0, sizeof(c));
	repro_cell_arg(&c, "usemem");
	repro_cell_arg(&c, "--mem");
	/* the mail's 256M a process: the kernel's flush timing holds there */
	repro_cell_arg(&c, "256M");
	repro_cell_arg(&c, "--threads");
	repro_cell_argf(&c, "%ld", n);
	repro_cell_arg(&c, "--seconds");
	repro_cell_argf(&c, "%g", ro->usemem_seconds);
	repro_cell_arg(&c, "--flush-ms");
	repro_cell_argf(&c, "%d", S1_FLUSH_MS);
	if (ro->swap_async) {
		repro_cell_arg(&c, "--swap-io");
		repro_cell_arg(&c, "async");
	}
	repro_cell_switch(&c, self, "vmstat-scan-cost");
	snprintf(what, sizeof(what), "usemem, %d processes (here %ld thread%s)",
		 S1_MAIL_PROCESSES, n, n == 1 ? "" : "s");
	if (repro_cell_run(ro, t, &c, what, ro->reps)) {
		repro_cell_free(&c);
		return -1;
	}
	for (k = 0; k < c.ncfg; k++)
		for (r = 0; r < c.reps; r++)
			s1_add_sites(c.runs[k][r]);

	for (i = 0; !err && i < ARRAY_SIZE(s1_rates); i++)
		err = repro_row_fill(repro_table_row(t, "/s", s1_rates[i].before,
						     s1_rates[i].after, "%s / s",
						     s1_rates[i].label),
				     &c, 0, 1, s1_rates[i].metric);
	/* how old the sizes reclaim read were, in leaf turnovers: the mail's */
	if (!err)
		err = repro_row_fill(repro_table_row(t, "/period", S1_MAIL_TURNOVERS(S1_MAIL_PGSTEAL_BEFORE),
						     S1_MAIL_TURNOVERS(S1_MAIL_PGSTEAL_AFTER),
						     "leaf turnovers per memcg flush period"),
				     &c, 0, 1, "leaf_turnovers_per_flush_period");
	/* the writes' ends: what feeds lru_add_drain_cpu with the async device */
	if (!err)
		err = repro_row_fill(repro_table_row(t, "/s", NAN, NAN, "pgrotated / s"),
				     &c, 0, 1, "pgrotated_per_sec");
	for (i = 0; !err && i < ARRAY_SIZE(s1_sites); i++) {
		const struct s1_site *p = &s1_sites[i];
		struct repro_row *row;

		snprintf(key, sizeof(key), "s1_sites.%s_wait_ms", p->fn);
		/* the mail's row is perf's caller+offset; ours sum bench's sites */
		row = repro_table_row(t, "ms", p->before_ms, p->after_ms, "wait %s%s%s%s%s",
				      s1_site_prefix(p), p->fn, p->mail ? " (mail: " : "",
				      p->mail ? p->mail : "", p->mail ? ")" : "");
		row->site_cls = p->cls;
		row->site_fns = p->fns;
		err = repro_row_fill(row, &c, 0, 1, key);
	}
	if (!err)
		err = repro_row_fill(repro_table_row(t, "ms", S1_TOTAL_WAIT_BEFORE_MS,
						     S1_TOTAL_WAIT_AFTER_MS,
						     "wait, every lru_lock site"),
				     &c, 0, 1, "s1_sites.lru_lock_wait_ms");
	/* what holds on any machine: how often reclaim takes the locks */
	for (i = 0; !err && i < ARRAY_SIZE(s1_sites); i++) {
		struct repro_row *row;

		snprintf(key, sizeof(key), "s1_sites.%s_per_1k", s1_sites[i].fn);
		row = repro_table_row(t, "/1k recl", NAN, NAN, "acquisitions %s%s",
				      s1_site_prefix(&s1_sites[i]), s1_sites[i].fn);
		row->site_cls = s1_sites[i].cls;
		row->site_fns = s1_sites[i].fns;
		err = repro_row_fill(row, &c, 0, 1, key);
	}
	if (!err)
		err = repro_row_fill(repro_table_row(t, "/1k recl", NAN, NAN,
						     "acquisitions, every lru_lock site"),
				     &c, 0, 1, "lru_lock_acquisitions_per_1k_reclaimed");
	repro_cell_free(&c);
	if (err)
		return -1;
	repro_table_note(t, "usemem --random, %ld thread%s x %s in a two-level memcg, leaf memory.max an eighth of it; %g s measured per run after the prefault",
			 n, n == 1 ? "" : "s", "256M", ro->usemem_seconds);
	repro_table_note(t, ro->swap_async ?
			 "swap: async, a disk as the mail's swap file (the default; the mail names no disk, 100 us is a stated typical SSD's): pages copied, writes end 100 us later and rotate their folios to the inactive tail, swap-ins sleep 100 us for their reads" :
			 "swap: sync (--swap-io sync), zram-like (zstd), written and freed in one pass; the mail swapped to a file, on a disk (the default)");
	repro_table_note(t, "memcg stats flush every %d ms, not the kernel's 2 s: this leaf turns over 20-60x faster than the mail's (row: leaf turnovers); at 2 s reclaim hits the stale-stats corner and OOMs",
			 S1_FLUSH_MS);
	repro_table_note(t, "median of %ld runs, before/after alternating, each a fresh process; wait in ms: published over the mail's %d s window, ours over each run's",
			 ro->reps, S1_MAIL_WINDOW_S);
	repro_table_note(t, "compare the deltas and the acquisitions per 1000 reclaimed pages (which hold on any machine), not the absolute rates");
	repro_table_note(t, "a row sums bench's lock table rows of its name: lru_note_cost_unlock_irq also shrink_lruvec (shrink_inactive_list:lru_note_cost); shrink_active_list and shrink_inactive_list their :isolate, :putback (and :lru_note_cost) rows; JSON rows list them (sites)");
	return 0;
}

/* ---- s3 ---- */

static bool bin_ok(const char *path)
{
	return path && !access(path, X_OK);
}

/*
 * The two layout builds sit side by side under build/: release (and
 * static) are pn-default, pncold (and static-pncold) pn-cold-pairing.
 */
static void find_layout_bins(const struct repro_opts *ro, char *before, char *after,
			     size_t len)
{
	bool self_cold = !strcmp(lrulab_pn_layout_name(), "pn-cold-pairing");
	char self[1024], parent[1024], base[1024];
	char *slash;
	size_t l;

	/* self = PARENT/BASE/lrulab */
	snprintf(self, sizeof(self), "%s", bench_self_exe());
	snprintf(parent, sizeof(parent), "%s", self);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(parent, sizeof(parent), ".");
	slash = strrchr(parent, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : parent);
	if (slash)
		*slash = '\0';
	else
		snprintf(parent, sizeof(parent), ".");
	l = strlen(base);

	if (ro->before_bin)
		snprintf(before, len, "%s", ro->before_bin);
	else if (!self_cold)
		snprintf(before, len, "%s", self);
	else if (l > 7 && !strcmp(base + l - 7, "-pncold"))	/* static-pncold */
		snprintf(before, len, "%s/%.*s/lrulab", parent, (int)(l - 7), base);
	else
		snprintf(before, len, "%s/release/lrulab", parent);

	if (ro->after_bin) {
		snprintf(after, len, "%s", ro->after_bin);
	} else if (self_cold) {
		snprintf(after, len, "%s", self);
	} else {
		snprintf(after, len, "%s/%s-pncold/lrulab", parent, base);
		if (!bin_ok(after))
			snprintf(after, len, "%s/pncold/lrulab", parent);
	}
}

/*
 * Per-memcg throughput by where the memcg's per-node info starts in its
 * 128-byte pair: each memcg's pages/s over its run's mean, so that
 * run-to-run drift cancels, averaged per offset.  The s3 thread says
 * it is bimodal before patch 1 and uniform after.
 */
static json_t *offset_split(json_t **runs, long reps, double rel[2], int cnt[2])
{
	double sum[2] = { 0, 0 };
	long r;

	cnt[0] = cnt[1] = 0;
	for (r = 0; r < reps; r++) {
		double mean = json_number(runs[r], "pages_per_sec");
		json_t *m, *memcgs = json_object_get(runs[r], "memcgs");
		size_t i;

		if (!(mean > 0))
			continue;
		json_array_foreach(memcgs, i, m) {
			int off = json_number(m, "pn_offset128") >= 64;

			sum[off] += json_number(m, "pages_per_sec") / mean;
			cnt[off]++;
		}
	}
	rel[0] = cnt[0] ? sum[0] / cnt[0] : NAN;
	rel[1] = cnt[1] ? sum[1] / cnt[1] : NAN;
	return json_pack("{s:o, s:o, s:i, s:i}", "offset0_rel", repro_jreal(rel[0]),
			 "offset64_rel", repro_jreal(rel[1]), "offset0_memcgs", cnt[0],
			 "offset64_memcgs", cnt[1]);
}

int repro_s3(struct repro_opts *ro, struct repro_table *t,
		    struct s3_mail_row *mail, int *nr_mail)
{
	static const char *const names[3] = { "base", "patch 1", "patch 1+2" };
	static char before[4096], after[4096];
	json_t *offsets = json_array();
	size_t i;

	t->seed = "s3-memcg-pn-layout";
	t->title = "memcg: reduce cacheline contention from lruvec stat";
	t->before_name = "base (pn-default build)";
	t->after_name = "patch 1 (pn-cold-pairing build), patch 1+2 (+ memcg-direct-stat)";
	t->extra = json_object();
	json_object_set_new(t->extra, "memcg_offsets", offsets);
	*nr_mail = 0;

	find_layout_bins(ro, before, after, sizeof(before));
	if (!bin_ok(before) || !bin_ok(after)) {
		fprintf(stderr, "%s: s3 needs both layout builds, %s and %s (`make pncold` builds build/pncold/lrulab; or --before-bin/--after-bin)\n",
			REPRO_PROG, before, after);
		return -1;
	}
	json_object_set_new(t->extra, "before_bin", json_string(before));
	json_object_set_new(t->extra, "after_bin", json_string(after));
	repro_table_note(t, "base: %s", before);
	repro_table_note(t, "patch 1: %s; patch 1+2: the same with --with memcg-direct-stat", after);

	for (i = 0; i < ARRAY_SIZE(s3_published); i++) {
		const struct s3_published *p = &s3_published[i];
		long n = repro_scaled_threads(ro, p->mail_threads);
		struct s3_mail_row *mr = &mail[(*nr_mail)++];
		struct repro_cell c;
		char what[96];
		int k, err = 0;

		repro_cell_fault_free(ro, &c, p->type, n, ro->memcgs);
		c.ncfg = 3;
		repro_cfg_init(&c.cfg[0], names[0], before);
		repro_cfg_arg(&c.cfg[0], "--without", "memcg-direct-stat");
		repro_cfg_init(&c.cfg[1], names[1], after);
		repro_cfg_arg(&c.cfg[1], "--without", "memcg-direct-stat");
		repro_cfg_init(&c.cfg[2], names[2], after);
		repro_cfg_arg(&c.cfg[2], "--with", "memcg-direct-stat");
		snprintf(what, sizeof(what), "%s, %d threads (here %ld)", p->type,
			 p->mail_threads, n);
		snprintf(mr->label, sizeof(mr->label), "%s", what);
		mr->p = p;
		if (repro_cell_run(ro, t, &c, what, ro->reps)) {
			repro_cell_free(&c);
			return -1;
		}
		err = repro_row_fill(repro_table_row(t, "pages/s", p->base, p->patch1,
						     "%s: patch 1", what),
				     &c, 0, 1, "pages_per_sec");
		if (!err)
			err = repro_row_fill(repro_table_row(t, "pages/s", p->base, p->patch12,
							     "%s: patch 1+2", what),
					     &c, 0, 2, "pages_per_sec");
		for (k = 0; !err && k < 3; k++) {
			double *a = calloc(c.reps, sizeof(double));
			json_t *o;
			long r;

			if (!a) {
				err = -1;
				break;
			}
			for (r = 0; r < c.reps; r++)
				a[r] = json_number(c.runs[k][r], "pages_per_sec");
			mr->ours[k] = median_double(a, (int)c.reps);
			free(a);
			o = offset_split(c.runs[k], c.reps, mr->rel[k], mr->cnt[k]);
			json_object_set_new(o, "cell", json_string(what));
			json_object_set_new(o, "config", json_string(names[k]));
			json_array_append_new(offsets, o);
			/* the layout of the binary, as the run itself reports it */
			if (!i) {
				const char *lay = json_string_value(
					json_object_get(c.runs[k][0], "pn_layout"));
				const char *want = k ? "pn-cold-pairing" : "pn-default";

				if (!lay || strcmp(lay, want))
					repro_table_note(t, "WARNING: %s ran layout %s, not %s",
							 names[k], lay ? lay : "?", want);
			}
		}
		repro_cell_free(&c);
		if (err)
			return -1;
	}
	repro_table_note(t, "fault-free, %ld fresh memcg%s per run, %g s per run; median of %ld runs per cell, the three alternating, each a fresh process",
			 ro->memcgs, ro->memcgs == 1 ? "" : "s", ro->seconds, ro->reps);
	repro_calib_note(ro, t, "fault-free");
	repro_table_note(t, "what holds on any machine here is the layout itself: `lrulab layout` in each build names the 128-byte pairs where a stat read meets an lru_lock write");
	return 0;
}

/* ---- s4 ---- */

int repro_s4(const struct repro_opts *ro, struct repro_table *t)
{
	static const unsigned long sizes[] = { 16384, 4096, 65536 };
	const char *self = bench_self_exe();
	long n = repro_scaled_threads(ro, 80);
	double mail_pages = S4_MAIL_PAGES;
	size_t i;

	t->seed = "s4-mthp-lru-cache";
	t->title = "mm: enable lru cache for smaller large folios";
	t->before_name = "mthp-lru-cache off";
	t->after_name = "mthp-lru-cache on";
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned long kb = sizes[i] >> 10;
		const struct s4_published *gp = NULL;
		struct repro_cell c;
		char what[96];
		size_t g;
		int err;

		for (g = 0; g < ARRAY_SIZE(s4_published); g++)
			if (s4_published[g].folio_size == sizes[i])
				gp = &s4_published[g];
		repro_cell_common(ro, &c, "mmap-madvise");
		repro_cell_arg(&c, "--threads");
		repro_cell_argf(&c, "%ld", n);
		repro_cell_arg(&c, "--loops");
		repro_cell_argf(&c, "%ld", ro->loops);
		repro_cell_arg(&c, "--folio-size");
		repro_cell_argf(&c, "%luK", kb);
		repro_cell_calibrate(ro, &c, "mmap-madvise", "anon",
				     (unsigned int)__builtin_ctzl(sizes[i] / PAGE_SIZE));
		repro_cell_switch(&c, self, "mthp-lru-cache");
		snprintf(what, sizeof(what), "mmap-madvise %luK, %d threads (here %ld)", kb,
			 S4_MAIL_THREADS, n);
		if (repro_cell_run(ro, t, &c, what, ro->reps)) {
			repro_cell_free(&c);
			return -1;
		}
		err = 0;
		if (sizes[i] == S4_MAIL_FOLIO_SIZE)
			err = repro_row_fill(repro_table_row(t, "s", S4_REAL_BEFORE, S4_REAL_AFTER,
							     "%luK: real time, %ld loop%s (mail 1000)",
							     kb, ro->loops, ro->loops == 1 ? "" : "s"),
					     &c, 0, 1, "seconds");
		if (!err)
			/* the mail's counts over the pages its benchmark faulted */
			err = repro_row_fill(repro_table_row(t, "/1k pages",
							     sizes[i] == S4_MAIL_FOLIO_SIZE ?
							     1000 * S4_LRU_ACQUIRED_BEFORE / mail_pages : NAN,
							     sizes[i] == S4_MAIL_FOLIO_SIZE ?
							     1000 * S4_LRU_ACQUIRED_AFTER / mail_pages : NAN,
							     "%luK: lru_lock acquisitions", kb),
					     &c, 0, 1, "lru_lock_acquisitions_per_1k_pages");
		if (!err)
			err = repro_row_fill(repro_table_row(t, "count",
							     gp ? gp->contended_before : NAN,
							     gp ? gp->contended_after : NAN,
							     "%luK: lru_lock contended (pub.: Graph500)",
							     kb),
					     &c, 0, 1, "lru_lock_contended");
		repro_cell_free(&c);
		if (err)
			return -1;
	}
	repro_table_note(t, "mmap-madvise (the mail's microbenchmark), 100%% of the processors (the mail's 20 threads all ran at once), %ld loop%s; median of %ld runs per cell, alternating, fresh processes",
			 ro->loops, ro->loops == 1 ? "" : "s", ro->reps);
	repro_calib_note(ro, t, "mmap-madvise");
	repro_table_note(t, "published contended counts are Shivank Garg's Graph500 runs (320 cores); compare their deltas, not the counts");
	return 0;
}

