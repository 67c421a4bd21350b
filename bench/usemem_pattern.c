// SPDX-License-Identifier: MIT
/*
 * The page sequences of `usemem --type file --pattern`, shared by the
 * model (bench/usemem.c) and the host kernel (bench/host.c) so that both
 * read the same pages in the same order: uniform random pages (the s1
 * mail's --random), a Zipf distribution of exponent A over the pages
 * with the hot ones scattered over the file (so that readahead around a
 * hot page does not read only hot pages), or one sequential pass after
 * another.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include <lrulab/lrulab.h>
#include "tools/parse.h"

int usemem_pattern_parse(const char *prog, const char *s, struct bench_opts *o)
{
	char *end;

	if (!strcmp(s, "random") || !strcmp(s, "seq")) {
		o->pattern = !strcmp(s, "seq") ? USEMEM_PATTERN_SEQ : USEMEM_PATTERN_RANDOM;
		return 0;
	}
	if (!strncmp(s, "zipf:", 5)) {
		errno = 0;
		o->zipf_a = strtod(s + 5, &end);
		if (!errno && end != s + 5 && !*end && o->zipf_a > 0 && o->zipf_a <= 10) {
			o->pattern = USEMEM_PATTERN_ZIPF;
			return 0;
		}
	}
	fprintf(stderr, "%s: --pattern: '%s' is not random, seq or zipf:A with 0 < A <= 10\n",
		prog, s);
	return -1;
}

int usemem_fadvise_parse(const char *prog, const char *s, struct bench_opts *o)
{
	if (!strcmp(s, "normal"))
		o->fadvise = POSIX_FADV_NORMAL;
	else if (!strcmp(s, "random"))
		o->fadvise = POSIX_FADV_RANDOM;
	else if (!strcmp(s, "sequential"))
		o->fadvise = POSIX_FADV_SEQUENTIAL;
	else {
		fprintf(stderr, "%s: --fadvise: unknown advice '%s' (normal, random or sequential)\n",
			prog, s);
		return -1;
	}
	return 0;
}

const char *usemem_pattern_name(const struct bench_opts *o, char *buf, size_t len)
{
	switch (o->pattern) {
	case USEMEM_PATTERN_SEQ:
		return "seq";
	case USEMEM_PATTERN_ZIPF:
		snprintf(buf, len, "zipf:%g", o->zipf_a);
		return buf;
	default:
		return "random";
	}
}

const char *usemem_fadvise_name(const struct bench_opts *o)
{
	switch (o->fadvise) {
	case POSIX_FADV_RANDOM:
		return "random";
	case POSIX_FADV_SEQUENTIAL:
		return "sequential";
	default:
		return "normal";
	}
}

static unsigned long gcd(unsigned long a, unsigned long b)
{
	while (b) {
		unsigned long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int usemem_stream_init(struct usemem_stream *s, const struct bench_opts *o,
		       unsigned long pages, unsigned long seed)
{
	unsigned long i;
	double sum = 0;

	memset(s, 0, sizeof(*s));
	s->kind = o->pattern;
	s->pages = pages;
	s->x = 0x9e3779b97f4a7c15ULL * (seed + 1);
	if (s->kind != USEMEM_PATTERN_ZIPF)
		return 0;
	s->cdf = malloc(pages * sizeof(*s->cdf));
	if (!s->cdf)
		return -ENOMEM;
	for (i = 0; i < pages; i++) {
		sum += pow((double)(i + 1), -o->zipf_a);
		s->cdf[i] = sum;
	}
	for (i = 0; i < pages; i++)
		s->cdf[i] /= sum;
	/* rank r lives at page r * stride mod pages: a permutation */
	s->stride = 2654435761UL % pages;
	while (!s->stride || gcd(s->stride, pages) != 1)
		s->stride = (s->stride + 1) % pages;
	return 0;
}

void usemem_stream_free(struct usemem_stream *s)
{
	free(s->cdf);
	s->cdf = NULL;
}

static u64 xorshift(struct usemem_stream *s)
{
	s->x ^= s->x << 13;
	s->x ^= s->x >> 7;
	s->x ^= s->x << 17;
	return s->x;
}

unsigned long usemem_stream_next(struct usemem_stream *s)
{
	unsigned long lo = 0, hi, page;
	double u;

	switch (s->kind) {
	case USEMEM_PATTERN_SEQ:
		page = s->next;
		s->next = (s->next + 1) % s->pages;
		return page;
	case USEMEM_PATTERN_ZIPF:
		u = (double)(xorshift(s) >> 11) / (double)(1ULL << 53);
		hi = s->pages - 1;
		while (lo < hi) {
			unsigned long mid = lo + (hi - lo) / 2;

			if (s->cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		return (unsigned long)((unsigned __int128)lo * s->stride % s->pages);
	default:
		return xorshift(s) % s->pages;
	}
}

/* ---- the model's vmstat and memory.stat, by the kernel's key names ---- */

void usemem_stats_begin(struct usemem_stats *s, struct mem_cgroup *memcg)
{
	bench_deltas_capture(&s->vm0, bench_show_vmstat, NULL);
	bench_deltas_capture(&s->memcg0, bench_show_memory_stat, memcg);
}

/*
 * The deltas since usemem_stats_begin() into @j as "vmstat" and
 * "memory_stat", and in text (non-zero ones); gauges (nr_*, file, ...)
 * give their change too, as the host's do.
 */
void usemem_stats_end(struct usemem_stats *s, struct mem_cgroup *memcg, FILE *text,
		      json_t *j)
{
	struct bench_deltas vm = { 0 }, mc = { 0 }, after;
	long long active = 0, inactive = 0;
	double share;
	int i;

	bench_deltas_capture(&after, bench_show_vmstat, NULL);
	bench_deltas_accumulate(&vm, &s->vm0, &after);
	bench_deltas_free(&after);
	bench_deltas_capture(&after, bench_show_memory_stat, memcg);
	for (i = 0; i < after.nr; i++) {
		if (!strcmp(after.d[i].name, "active_file"))
			active = after.d[i].delta;
		if (!strcmp(after.d[i].name, "inactive_file"))
			inactive = after.d[i].delta;
	}
	share = active + inactive ? (double)active / (double)(active + inactive) : 0;
	bench_deltas_accumulate(&mc, &s->memcg0, &after);
	bench_deltas_free(&after);
	json_object_set_new(j, "vmstat", bench_deltas_json(&vm));
	json_object_set_new(j, "memory_stat", bench_deltas_json(&mc));
	/* the leaf's file LRU at the end: what the host's memory.stat shows */
	json_object_set_new(j, "active_file_share_end", json_real(share));
	if (text) {
		fprintf(text, "\nactive share of the leaf's file LRU at the end: %.3f\n", share);
		bench_print_deltas(text, "vmstat deltas", &vm);
		bench_print_deltas(text, "memory.stat deltas (the leaf)", &mc);
	}
	bench_deltas_free(&vm);
	bench_deltas_free(&mc);
	bench_deltas_free(&s->vm0);
	bench_deltas_free(&s->memcg0);
}
