// SPDX-License-Identifier: MIT
/*
 * What a usemem run says about the memcg stats flush timing it ran
 * under: which one, how many times the leaf turned over in one period,
 * and how often reclaim read list sizes from the stale-stats corner
 * (see USEMEM_FLUSH_MS); the lists at a failed charge; and the window's
 * readahead, counted where the kernel's tracepoints are.
 */
#include <math.h>
#include <stdio.h>

#include <lrulab/lrulab.h>
#include <lrulab/vmscan.h>

#include "usemem.h"

/*
 * The kernel's flush timing by default: the periodic flusher every
 * FLUSH_TIME (2 s) and, since Linux 6.12, reclaim and the refault test
 * flushing only when that flusher is a whole period late.  Reclaim then
 * reads list sizes up to 2 s old.  That is harmless where the leaf
 * turns over in about that time (the s1 mail's 512M leaf at 67K
 * pgsteal/s), but a leaf of a few M on a fast store turns over in
 * milliseconds, and there refaults can fill the active list while the
 * flushed sizes still show an inactive one (the stale-stats corner:
 * nothing ages the active list, and anon charges OOM;
 * test_stale_stats_no_progress in tests/test_vmscan.c pins it).  The
 * kernel has the corner too, so it is kept, and measured: the run
 * samples the leaf's lists every 10 ms and reports how often the
 * active list held 7/8 of its type while the flushed sizes did not call
 * for aging, and how many turnovers of the leaf one flush period held.  Choose
 * sizes (or --read-latency, a device's time) where that stays low, as
 * it does on the host; --flush-ms sets another period, 0 none.
 */
#define USEMEM_FLUSH_MS	FLUSH_TIME_MS

unsigned int usemem_flush_ms(const struct bench_opts *o)
{
	return o->flush_ms >= 0 ? (unsigned int)o->flush_ms : USEMEM_FLUSH_MS;
}

/*
 * A failed charge's snapshot of the leaf's lists, exact and flushed:
 * the stale-stats corner shows as an empty exact inactive list beside a
 * flushed one that is not.
 */
void usemem_report_oom(const unsigned long lists[2][NR_LRU_LISTS], FILE *text, json_t *j)
{
	static const char *const names[NR_LRU_LISTS] = {
		"inactive_anon", "active_anon", "inactive_file", "active_file", "unevictable",
	};
	json_t *exact, *flushed;
	enum lru_list lru;

	exact = json_object();
	flushed = json_object();
	for_each_evictable_lru(lru) {
		json_object_set_new(exact, names[lru], json_integer(lists[0][lru]));
		json_object_set_new(flushed, names[lru], json_integer(lists[1][lru]));
	}
	json_object_set_new(j, "oom_lists_exact", exact);
	json_object_set_new(j, "oom_lists_flushed", flushed);
	if (!text)
		return;
	fprintf(text, "leaf lists at the OOM     exact  flushed (what inactive_is_low read)\n");
	for_each_evictable_lru(lru)
		fprintf(text, "  %-20s %9lu %8lu\n", names[lru], lists[0][lru], lists[1][lru]);
}

/* Which flush timing a run used, in its text and JSON. */
const char *usemem_flush_name(unsigned int flush_ms)
{
	return flush_ms == FLUSH_TIME_MS ? "kernel" : flush_ms ? "period" : "none";
}

void usemem_print_flush(FILE *text, unsigned int flush_ms)
{
	if (flush_ms == FLUSH_TIME_MS)
		fprintf(text, "memcg stats flush: the kernel's (periodic every %u ms, reclaim's ratelimited flush when that is a period late, as 6.12+)\n",
			flush_ms);
	else if (flush_ms)
		fprintf(text, "memcg stats flush: periodic every %u ms (not the kernel's %u), reclaim's ratelimited flush when that is a period late\n",
			flush_ms, FLUSH_TIME_MS);
	else
		fprintf(text, "memcg stats flush: no periodic flusher (not the kernel's): reclaim's ratelimited flush on the update threshold, but none for %u ms after a flush of the root (a file run's opening memory.stat snapshot makes one)\n",
			2 * FLUSH_TIME_MS);
}

/* inactive_is_low()'s target, on given list sizes */
static bool usemem_inactive_low(unsigned long inactive, unsigned long active)
{
	unsigned long gb = (inactive + active) >> (30 - PAGE_SHIFT);
	unsigned long ratio = gb ? (unsigned long)sqrt(10.0 * (double)gb) : 1;

	return inactive * ratio < active;
}

/*
 * The corner, not the ordinary lag of sizes that hover about the target:
 * the active list holds 7/8 of the type's pages while the flushed sizes
 * still let the active list be.
 */
static bool usemem_stale_corner(unsigned long inactive, unsigned long active,
				unsigned long flushed_inactive, unsigned long flushed_active)
{
	return inactive * 8 < inactive + active &&
	       !usemem_inactive_low(flushed_inactive, flushed_active);
}

void usemem_sample_lists(struct mem_cgroup *leaf, const struct bench_opts *o,
				struct usemem_staleness *st)
{
	struct lruvec *lruvec = mem_cgroup_lruvec(leaf, NODE_DATA(0));
	bool corner = false;
	int file;

	for (file = 0; file <= 1; file++) {
		enum lru_list lru = file ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON;

		/* the types the run reclaims: file, anon, or both (mixed) */
		if (!o->mixed && file != o->regular)
			continue;
		corner |= usemem_stale_corner(
			lruvec_lru_size(lruvec, lru, MAX_NR_ZONES - 1),
			lruvec_lru_size(lruvec, lru + LRU_ACTIVE, MAX_NR_ZONES - 1),
			lruvec_page_state(lruvec, NR_LRU_BASE + lru),
			lruvec_page_state(lruvec, NR_LRU_BASE + lru + LRU_ACTIVE));
	}
	st->samples++;
	st->corner += corner;
}

/* The window's readahead, as the kernel's tracepoints would count it. */
void usemem_report_readahead(const unsigned long *ra0, const unsigned long *ra1,
				    FILE *text, json_t *j)
{
	unsigned long ev[NR_RA_EVENTS];
	json_t *ra = json_object();
	int i;

	for (i = 0; i < NR_RA_EVENTS; i++)
		ev[i] = ra1[i] - ra0[i];
	json_object_set_new(ra, "page_cache_sync_ra", json_integer((json_int_t)ev[RA_SYNC_RA]));
	json_object_set_new(ra, "page_cache_async_ra", json_integer((json_int_t)ev[RA_ASYNC_RA]));
	json_object_set_new(ra, "windows", json_integer((json_int_t)ev[RA_WINDOWS]));
	json_object_set_new(ra, "window_pages", json_integer((json_int_t)ev[RA_WINDOW_PAGES]));
	json_object_set_new(j, "readahead", ra);
	if (text)
		fprintf(text, "readahead: %lu page_cache_sync_ra, %lu page_cache_async_ra, %lu windows of %.1f pages on average\n",
			ev[RA_SYNC_RA], ev[RA_ASYNC_RA], ev[RA_WINDOWS],
			ev[RA_WINDOWS] ? (double)ev[RA_WINDOW_PAGES] / ev[RA_WINDOWS] : 0);
}

/*
 * How stale the flushed sizes were for reclaim: the leaf's turnovers in
 * one flush period, and the share of samples in the stale-stats corner.
 */
void usemem_print_staleness(FILE *text, unsigned int flush_ms,
				   const struct usemem_staleness *st, double steal_per_sec,
				   unsigned long max)
{
	double share = st->samples ? (double)st->corner / st->samples : 0;

	if (flush_ms)
		fprintf(text, "  leaf turnovers per flush period: %.2f (pgsteal in %u ms / memory.max)\n",
			steal_per_sec * flush_ms / 1000.0 / (double)max, flush_ms);
	fprintf(text, "  stale-stats corner: %.1f%% of %lu samples (the active list over 7/8 of its type, the flushed sizes not below the inactive target)\n",
		100.0 * share, st->samples);
	if (share >= 0.1)
		fprintf(text, "STALE-STATS CORNER: in %.0f%% of the window reclaim read an inactive list the leaf no longer had, as the kernel would at this turnover: the figures are the corner's\n",
			100.0 * share);
}

