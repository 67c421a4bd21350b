/* SPDX-License-Identifier: MIT */
/*
 * usemem inside (bench/usemem.c): how its run reports the memcg flush
 * timing it used, how stale that left reclaim's list sizes, and the
 * window's readahead (bench/usemem_flush.c).
 */
#ifndef LRULAB_BENCH_USEMEM_H
#define LRULAB_BENCH_USEMEM_H

#include <stdio.h>

#include "bench/bench.h"
#include <lrulab/fs.h>
#include <lrulab/memcontrol.h>

/* The stale-stats corner, sampled every 10 ms (see USEMEM_FLUSH_MS in bench/usemem_flush.c). */
struct usemem_staleness {
	unsigned long samples;
	unsigned long corner;		/* active list full, flushed sizes not low */
};

/* The memcg flusher's period: --flush-ms, or the kernel's FLUSH_TIME. */
unsigned int usemem_flush_ms(const struct bench_opts *o);
/* "kernel" (FLUSH_TIME), "period" (another) or "none" */
const char *usemem_flush_name(unsigned int flush_ms);
void usemem_print_flush(FILE *text, unsigned int flush_ms);
/* One 10 ms sample of the leaf's lists of the types @o reclaims. */
void usemem_sample_lists(struct mem_cgroup *leaf, const struct bench_opts *o,
			 struct usemem_staleness *st);
void usemem_print_staleness(FILE *text, unsigned int flush_ms,
			    const struct usemem_staleness *st, double steal_per_sec,
			    unsigned long max);
/* A failed charge's [exact, flushed] list sizes into @j, and text. */
void usemem_report_oom(const unsigned long lists[2][NR_LRU_LISTS], FILE *text, json_t *j);
/* The readahead events between @ra0 and @ra1 into @j ("readahead"), and text. */
void usemem_report_readahead(const unsigned long *ra0, const unsigned long *ra1,
			     FILE *text, json_t *j);

/* --record FILE (bench/usemem_record.c): 0, or -1 after one error line */
int usemem_record_begin(const struct bench_opts *o);
void usemem_record_stop(const struct bench_opts *o);
int usemem_record_write(const struct bench_opts *o, const char *type, long threads,
			unsigned long accesses, double secs, const char *failed);

#endif /* LRULAB_BENCH_USEMEM_H */
