// SPDX-License-Identifier: MIT
/*
 * The exact LRU, the reference every kernel figure is read against.
 *
 * With objects of one unit each, LRU has the inclusion property: a cache
 * of C objects holds exactly the C most recently used ones, so a request
 * hits iff fewer than C other objects were used since its object's last
 * request (Mattson's stack distance).  One pass gives every size: the
 * distance is a count of "latest use" marks between the two requests, a
 * prefix sum over request positions kept in a Fenwick tree.
 *
 * With sizes in bytes the cache is still a prefix of the recency stack,
 * but not the longest one that fits (an eviction frees room that nothing
 * older refills), so each size is simulated as libCacheSim's LRU runs:
 * a miss evicts from the tail until the object fits, an object bigger
 * than the cache is not inserted, and a hit keeps the size the object
 * was inserted with.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

struct fenwick {
	uint32_t *t;
	size_t n;
};

static void fen_add(struct fenwick *f, size_t i, int32_t v)
{
	for (i++; i <= f->n; i += i & -i)
		f->t[i] += (uint32_t)v;
}

/* Marks at positions 0..i. */
static uint64_t fen_prefix(const struct fenwick *f, size_t i)
{
	uint64_t s = 0;

	for (i++; i; i -= i & -i)
		s += f->t[i];
	return s;
}

int lru_exact_stack(const struct replay_trace *t, const uint64_t *sizes, int nr_sizes,
		    struct replay_counts *out)
{
	struct fenwick f = { .n = t->nr_reqs };
	uint64_t *hist, cold = 0, marks = 0, above;
	size_t *last, i, d;
	int s;

	f.t = calloc(f.n + 1, sizeof(*f.t));
	last = calloc(t->nr_objs, sizeof(*last));
	hist = calloc(t->nr_objs + 1, sizeof(*hist));
	if (!f.t || !last || !hist) {
		free(f.t);
		free(last);
		free(hist);
		return -ENOMEM;
	}
	for (i = 0; i < t->nr_reqs; i++) {
		uint32_t o = t->reqs[i].obj;

		if (last[o]) {
			size_t p = last[o] - 1;

			/* objects used after p, each counted once at its latest use */
			hist[marks - fen_prefix(&f, p)]++;
			fen_add(&f, p, -1);
		} else {
			cold++;
			marks++;
		}
		fen_add(&f, i, 1);
		last[o] = i + 1;
	}
	/* misses(C) = cold + requests at distance >= C, walking C down */
	above = 0;
	d = t->nr_objs;
	for (s = nr_sizes - 1; s >= 0; s--) {
		uint64_t c = sizes[s] < t->nr_objs ? sizes[s] : t->nr_objs;

		while (d > c)
			above += hist[--d];
		out[s] = (struct replay_counts){
			.size = sizes[s], .requests = t->nr_reqs, .misses = cold + above,
			.bytes = t->nr_reqs, .miss_bytes = cold + above,
		};
	}
	free(f.t);
	free(last);
	free(hist);
	return 0;
}

#define NIL UINT32_MAX

int lru_exact_sim(const struct replay_trace *t, uint64_t size, struct replay_counts *out)
{
	uint32_t *prev = malloc(t->nr_objs * sizeof(*prev));
	uint32_t *next = malloc(t->nr_objs * sizeof(*next));
	uint64_t *held = calloc(t->nr_objs, sizeof(*held));	/* 0: not cached */
	uint32_t head = NIL, tail = NIL;			/* MRU, LRU */
	uint64_t used = 0;
	size_t i;

	if (!prev || !next || !held) {
		free(prev);
		free(next);
		free(held);
		return -ENOMEM;
	}
	*out = (struct replay_counts){ .size = size, .requests = t->nr_reqs };
	for (i = 0; i < t->nr_reqs; i++) {
		uint32_t o = t->reqs[i].obj;
		uint64_t sz = t->reqs[i].size;

		out->bytes += sz;
		if (held[o]) {
			if (o == head)
				continue;
			/* unlink, then to the MRU end */
			next[prev[o]] = next[o];
			if (next[o] != NIL)
				prev[next[o]] = prev[o];
			else
				tail = prev[o];
			prev[o] = NIL;
			next[o] = head;
			prev[head] = o;
			head = o;
			continue;
		}
		out->misses++;
		out->miss_bytes += sz;
		if (sz > size)
			continue;
		while (used + sz > size) {
			uint32_t v = tail;

			used -= held[v];
			held[v] = 0;
			tail = prev[v];
			if (tail != NIL)
				next[tail] = NIL;
			else
				head = NIL;
		}
		held[o] = sz;
		used += sz;
		prev[o] = NIL;
		next[o] = head;
		if (head != NIL)
			prev[head] = o;
		else
			tail = o;
		head = o;
	}
	free(prev);
	free(next);
	free(held);
	return 0;
}

int lru_exact_run(const struct replay_trace *t, const uint64_t *sizes, int nr_sizes,
		  struct replay_counts *out)
{
	int i, ret;

	if (t->objects)
		return lru_exact_stack(t, sizes, nr_sizes, out);
	for (i = 0; i < nr_sizes; i++) {
		ret = lru_exact_sim(t, sizes[i], &out[i]);
		if (ret)
			return ret;
	}
	return 0;
}
