// SPDX-License-Identifier: MIT
/*
 * A trace in memory: the readers' requests with their object ids
 * replaced by dense numbers, the objects with the extent of pages each
 * gets in the model, the working set, and the cache sizes asked for.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "replay-internal.h"

/* Open addressing, object number + 1 per slot (0: empty). */
struct replay_sink {
	struct replay_trace *t;
	const struct replay_load_opts *o;
	bool sized;
	uint32_t *slots;
	size_t mask;
	size_t req_cap, obj_cap;
};

bool replay_sink_full(const struct replay_sink *k)
{
	return k->o->max_reqs && k->t->nr_reqs >= k->o->max_reqs;
}

static int sink_grow_table(struct replay_sink *k)
{
	size_t n = (k->mask + 1) * 2, i;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < k->t->nr_objs; i++) {
		size_t h = replay_hash64(k->t->objs[i].id) & (n - 1);

		while (slots[h])
			h = (h + 1) & (n - 1);
		slots[h] = (uint32_t)i + 1;
	}
	free(k->slots);
	k->slots = slots;
	k->mask = n - 1;
	return 0;
}

/* The object's number, a new one at its first request; -1 without memory. */
static long sink_intern(struct replay_sink *k, uint64_t id, uint64_t size)
{
	struct replay_trace *t = k->t;
	size_t h;

	if ((t->nr_objs + 1) * 2 > k->mask + 1 && sink_grow_table(k))
		return -1;
	for (h = replay_hash64(id) & k->mask; k->slots[h]; h = (h + 1) & k->mask)
		if (t->objs[k->slots[h] - 1].id == id)
			return k->slots[h] - 1;
	if (t->nr_objs == UINT32_MAX - 1)
		return -1;
	if (t->nr_objs == k->obj_cap) {
		size_t cap = k->obj_cap ? k->obj_cap * 2 : 4096;
		struct replay_obj *objs = realloc(t->objs, cap * sizeof(*objs));

		if (!objs)
			return -1;
		t->objs = objs;
		k->obj_cap = cap;
	}
	t->objs[t->nr_objs] = (struct replay_obj){ .id = id, .size = size };
	k->slots[h] = (uint32_t)t->nr_objs + 1;
	return (long)t->nr_objs++;
}

/*
 * 0, REPLAY_EMIT_NOMEM, or REPLAY_EMIT_BOUND when the request's pages
 * would take the trace past the load's max_page_accesses: counted
 * before anything is allocated for it.
 */
int replay_emit(struct replay_sink *k, uint64_t id, uint64_t size, bool write)
{
	return replay_emit_at(k, id, size, write, -1.0);
}

int replay_emit_at(struct replay_sink *k, uint64_t id, uint64_t size, bool write, double time)
{
	struct replay_trace *t = k->t;
	uint64_t pages;
	long obj;

	if (k->sized && !size) {
		/* libCacheSim's readers skip these too (ignore_size_zero_req) */
		t->nr_zero_size++;
		return 0;
	}
	if (t->objects)
		size = 1;
	/* the readers bound a size at 1 TiB: no overflow */
	pages = t->objects ? 1 : (size + 4095) / 4096;
	if (k->o->max_page_accesses && pages > k->o->max_page_accesses - t->page_accesses)
		return REPLAY_EMIT_BOUND;
	obj = sink_intern(k, id, size);
	if (obj < 0)
		return REPLAY_EMIT_NOMEM;
	if (t->nr_reqs == k->req_cap) {
		size_t cap = k->req_cap ? k->req_cap * 2 : 65536;
		struct replay_req *reqs = realloc(t->reqs, cap * sizeof(*reqs));
		double *times;

		if (!reqs)
			return REPLAY_EMIT_NOMEM;
		t->reqs = reqs;
		if (time >= 0 || t->times) {
			times = realloc(t->times, cap * sizeof(*times));
			if (!times)
				return REPLAY_EMIT_NOMEM;
			t->times = times;
		}
		k->req_cap = cap;
	}
	/* a reader gives every request a time or none */
	if (t->times)
		t->times[t->nr_reqs] = time >= 0 ? time : 0;
	t->reqs[t->nr_reqs++] = (struct replay_req){ .obj = (uint32_t)obj, .write = write,
						     .size = size };
	if (t->objs[obj].pages < pages)
		t->objs[obj].pages = pages;
	t->page_accesses += pages;
	t->req_bytes += size;
	t->has_writes |= write;
	return 0;
}

static int cmp_obj_id(const void *a, const void *b)
{
	uint64_t x = ((const struct replay_obj *)a)->id, y = ((const struct replay_obj *)b)->id;

	return x < y ? -1 : x > y;
}

/*
 * Where each object's pages lie in the model's file (or mapping).
 * Object traces get extents in order of first request.  Page traces
 * keep the address order, so that neighbouring pages stay neighbours in
 * the page tables and the file.
 */
static int trace_place(struct replay_trace *t)
{
	uint64_t base = 0;
	size_t i;

	if (t->type == REPLAY_LACKEY || t->type == REPLAY_PAGETRACE) {
		struct replay_obj *sorted = malloc(t->nr_objs * sizeof(*sorted));
		uint32_t *rank;

		if (!sorted)
			return -1;
		for (i = 0; i < t->nr_objs; i++) {
			sorted[i] = t->objs[i];
			/* the old number rides along in .base */
			sorted[i].base = i;
		}
		qsort(sorted, t->nr_objs, sizeof(*sorted), cmp_obj_id);
		rank = malloc(t->nr_objs * sizeof(*rank));
		if (!rank) {
			free(sorted);
			return -1;
		}
		for (i = 0; i < t->nr_objs; i++)
			rank[sorted[i].base] = (uint32_t)i;
		for (i = 0; i < t->nr_objs; i++)
			sorted[i].base = i;
		for (i = 0; i < t->nr_reqs; i++)
			t->reqs[i].obj = rank[t->reqs[i].obj];
		free(rank);
		free(t->objs);
		t->objs = sorted;
		t->total_pages = t->nr_objs;
		t->wss = t->nr_objs;
		return 0;
	}
	t->wss = 0;
	for (i = 0; i < t->nr_objs; i++) {
		t->objs[i].base = base;
		base += t->objs[i].pages;
		t->wss += t->objects ? 1 : t->objs[i].size;
	}
	t->total_pages = base;
	return 0;
}

int replay_trace_load(const char *path, const struct replay_load_opts *o,
		      struct replay_trace *t, char *err, size_t errlen)
{
	struct replay_stream s;
	struct replay_sink k = { .t = t, .o = o };
	int ret;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->type = o->type;
	k.sized = o->type == REPLAY_ORACLE_GENERAL || o->type == REPLAY_LCS ||
		  (o->type == REPLAY_CSV && o->params.obj_size_col);
	t->objects = o->ignore_obj_size || !k.sized;
	k.mask = 4095;
	k.slots = calloc(k.mask + 1, sizeof(*k.slots));
	if (!k.slots)
		return replay_err(err, errlen, "%s: out of memory", path);
	ret = rs_open(&s, path, err, errlen);
	if (!ret)
		ret = replay_read_stream(&s, o, &k, t);
	rs_close(&s);
	free(k.slots);
	if (ret)
		return -1;
	if (!t->nr_reqs)
		return replay_err(err, errlen, "%s: no requests in %llu records", path,
				  (unsigned long long)t->nr_records);
	if (trace_place(t))
		return replay_err(err, errlen, "%s: out of memory", path);
	return 0;
}

void replay_trace_free(struct replay_trace *t)
{
	free(t->reqs);
	free(t->objs);
	free(t->times);
	t->reqs = NULL;
	t->objs = NULL;
	t->times = NULL;
	t->nr_reqs = t->nr_objs = 0;
}

/* ---- cache sizes ---- */

static const double auto_fractions[] = { 0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.4, 0.8 };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "k", "kb", "kib" and the rest, in any case: binary units. */
static int unit_shift(const char *u)
{
	static const char *const units = "kmgt";
	const char *c;

	if (!*u)
		return 0;
	c = strchr(units, tolower((unsigned char)*u));
	if (!c || !*c)
		return -1;
	u++;
	if (!*u || !strcasecmp(u, "b") || !strcasecmp(u, "ib"))
		return 10 * (int)(c - units + 1);
	return -1;
}

static int size_one(const char *tok, const struct replay_trace *t, uint64_t *sizes,
		    int *n, char *err, size_t errlen)
{
	const char *what = t->objects ? "objects" : "bytes";
	unsigned long long v;
	char *end;
	int shift;
	size_t i;

	if (!strcasecmp(tok, "auto") || !strcmp(tok, "0")) {
		int before = *n;

		/* cachesim keeps a fraction only above 4 objects or from 100 bytes */
		for (i = 0; i < sizeof(auto_fractions) / sizeof(auto_fractions[0]); i++) {
			uint64_t s = (uint64_t)(auto_fractions[i] * (double)t->wss);

			if (t->objects ? s > 4 : s >= 100) {
				if (*n == REPLAY_MAX_SIZES)
					goto too_many;
				sizes[(*n)++] = s;
			}
		}
		if (*n == before)
			return replay_err(err, errlen,
					  "--sizes auto: the working set (%llu %s) is too small for any of its fractions",
					  (unsigned long long)t->wss, what);
		return 0;
	}
	if (*n == REPLAY_MAX_SIZES)
		goto too_many;
	if (strchr(tok, '.')) {
		double f;

		errno = 0;
		f = strtod(tok, &end);
		if (errno || *end || !(f > 0 && f < 1) || !isdigit((unsigned char)*tok))
			return replay_err(err, errlen,
					  "--sizes: '%s' is not a fraction of the working set (0 < f < 1)",
					  tok);
		sizes[*n] = (uint64_t)(f * (double)t->wss);
		if (!sizes[*n])
			return replay_err(err, errlen,
					  "--sizes: %s of the working set (%llu %s) is 0", tok,
					  (unsigned long long)t->wss, what);
		(*n)++;
		return 0;
	}
	errno = 0;
	v = strtoull(tok, &end, 10);
	if (!isdigit((unsigned char)*tok) || errno || (shift = unit_shift(end)) < 0)
		return replay_err(err, errlen,
				  "--sizes: '%s' is not a size (a count, a fraction, 32mb, auto)", tok);
	if (shift && t->objects)
		return replay_err(err, errlen,
				  "--sizes: '%s' is in bytes, but sizes count objects here (--ignore-obj-size, or a trace without sizes)",
				  tok);
	if (!v || (shift && v > (UINT64_MAX >> shift)))
		return replay_err(err, errlen, "--sizes: '%s' is out of range", tok);
	sizes[(*n)++] = (uint64_t)v << shift;
	return 0;
too_many:
	return replay_err(err, errlen, "--sizes: more than %d sizes", REPLAY_MAX_SIZES);
}

int replay_sizes_parse(const char *s, const struct replay_trace *t, uint64_t *sizes,
		       char *err, size_t errlen)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int n = 0, i, j;

	if (!copy)
		return replay_err(err, errlen, "out of memory");
	if (!*s || s[strlen(s) - 1] == ',' || *s == ',' || strstr(s, ",,")) {
		free(copy);
		return replay_err(err, errlen, "--sizes: empty size in '%s'", s);
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		if (size_one(tok, t, sizes, &n, err, errlen)) {
			free(copy);
			return -1;
		}
	}
	free(copy);
	qsort(sizes, (size_t)n, sizeof(*sizes), cmp_u64);
	for (i = j = 0; i < n; i++)
		if (!j || sizes[j - 1] != sizes[i])
			sizes[j++] = sizes[i];
	return j;
}
