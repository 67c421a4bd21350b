// SPDX-License-Identifier: MIT
/*
 * A recording stored: the cost of recording itself, and the file format
 * (the gathering is predict/record_gather.c).
 *
 * The file is one zstd frame around a little-endian stream: the magic
 * "LRULABRC", a version, the run's description, the sites, the locks
 * (scope, written lines), then per trace its acquisitions as varints
 * and its events (version 2: the shared lines written besides the
 * locks', each with the acquisition it goes with; version 3: the lock
 * implementation the run's spinlocks were, after the flush period; a
 * version 2 file reads as qspinlock, every run's default; version 4: the
 * address space's events and whether the threads are one process).
 * Versions before 4 are refused: without the address space's events a
 * recording would predict as if faults touched nothing shared.  A reader checks
 * every index against its table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <lrulab/cpu.h>
#include "predict/predict.h"
#include "tools/outfile.h"

#include "record-internal.h"

#define REC_MAGIC	"LRULABRC"
#define REC_VERSION	4
#define REC_MAX_OPS	(1U << 28)
/*
 * What a reader takes in before it gives up: the file as stored and
 * the stream inside its frame.  A recording of a few seconds' run is a
 * few megabytes, inflated tens; these are far over both and far under
 * a machine's memory.
 */
#define REC_MAX_FILE	(1ULL << 30)
#define REC_MAX_RAW	(1ULL << 31)

u32 rec_overhead_ns;

/* ---- what recording costs ---- */

struct overhead_arg {
	double ns;
};

static double time_pairs(spinlock_t *l, struct lock_site *site, int n)
{
	u64 t0 = lrulab_now_ns();
	int i;

	for (i = 0; i < n; i++) {
		spin_lock_at(l, site);
		spin_unlock(l);
	}
	return (double)(lrulab_now_ns() - t0) / n;
}

/*
 * Pairs of an empty section with and without recording, alternated, on
 * a thread that records into a CPU slot of its own: the difference less
 * the empty section's recorded hold is what each acquisition adds to
 * the work around it.
 */
static void *overhead_thread(void *p)
{
	struct overhead_arg *a = p;
	struct lock_site *site = LOCK_SITE_AT("predict", "pred_record_overhead_ns",
					      "pred_record_overhead_ns");
	spinlock_t l;
	double best = 1e9;
	int r;

	spin_lock_init(&l);
	lrulab_cpu = LRULAB_MAX_CPUS - 1;
	for (r = 0; r < 3; r++) {
		double off, on;

		pred_record_probes(false);
		off = time_pairs(&l, site, 20000);
		pred_record_probes(true);
		on = time_pairs(&l, site, 20000);
		if (on - off < best)
			best = on - off;
	}
	pred_record_probes(false);
	lrulab_cpu = -1;
	a->ns = best > 0 ? best : 0;
	return NULL;
}

u32 pred_record_overhead_ns(void)
{
	struct overhead_arg a = { 0 };
	enum lockstat_mode mode = lockstat_mode;
	pthread_t t;

	if (mode == LOCKSTAT_OFF)
		lockstat_set_mode(LOCKSTAT_SAMPLED);
	if (pthread_create(&t, NULL, overhead_thread, &a))
		return 0;
	pthread_join(t, NULL);
	lockstat_set_mode(mode);
	pred_record_reset();
	/* the recorded hold of an empty section is the clock's cost, already off */
	return (u32)(a.ns + 0.5);
}

/* ---- the file ---- */

struct wbuf {
	u8 *p;
	size_t n, cap;
	bool oom;
};

static void put(struct wbuf *b, const void *src, size_t len)
{
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1 << 16;
		u8 *p;

		while (cap < b->n + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, src, len);
	b->n += len;
}

static void put_var(struct wbuf *b, u64 v)
{
	u8 c[10];
	int n = 0;

	do {
		c[n] = v & 0x7f;
		v >>= 7;
		if (v)
			c[n] |= 0x80;
		n++;
	} while (v);
	put(b, c, n);
}

static void put_str(struct wbuf *b, const char *s)
{
	put_var(b, strlen(s));
	put(b, s, strlen(s));
}

static void put_dbl(struct wbuf *b, double d)
{
	put(b, &d, sizeof(d));
}

/* each event's op as the distance from the one before: they come in order */
static void put_events(struct wbuf *b, const struct pred_trace *t)
{
	u32 k, prev = 0;

	put_var(b, t->nr_events);
	for (k = 0; k < t->nr_events; k++) {
		const struct pred_event *e = &t->events[k];

		put_var(b, e->op - prev);
		prev = e->op;
		put_var(b, e->kind);
		put_var(b, e->inside);
		put_var(b, e->line);
		put_var(b, e->line2 == PRED_NO_LINE ? 0 : (u64)e->line2 + 1);
		put_var(b, e->counter);
		put_var(b, e->arg);
		put_var(b, e->threshold);
		put_var(b, e->step);
	}
}

int pred_recording_write(const char *prog, const char *path, const struct pred_recording *rec)
{
	struct wbuf b = { 0 };
	struct out_file of;
	size_t bound, zn;
	void *z;
	FILE *f;
	int i, j;
	u32 k;

	put(&b, REC_MAGIC, 8);
	put_var(&b, REC_VERSION);
	put_str(&b, rec->workload);
	put_str(&b, rec->type);
	put_str(&b, rec->switches);
	put_str(&b, rec->machine);
	put_var(&b, rec->folio_size);
	put_var(&b, rec->threads);
	put_var(&b, rec->pages);
	put_dbl(&b, rec->seconds);
	put_dbl(&b, rec->pages_per_sec);
	put_var(&b, rec->clock_cost_ns);
	put_var(&b, rec->overhead_ns);
	put_var(&b, rec->preemptions);
	put_dbl(&b, rec->plain_cpu_ns_per_page);
	put_var(&b, rec->flush_period_ns);
	put_var(&b, rec->lock_impl);
	put_var(&b, rec->one_process);
	put_var(&b, rec->nr_sites);
	for (i = 0; i < rec->nr_sites; i++) {
		put_str(&b, rec->sites[i].cls);
		put_str(&b, rec->sites[i].caller);
		put_str(&b, rec->sites[i].fn);
	}
	put_var(&b, rec->nr_lines);
	put_var(&b, rec->nr_counters);
	put_var(&b, rec->nr_locks);
	for (i = 0; i < rec->nr_locks; i++) {
		const struct pred_lock *l = &rec->locks[i];

		put_var(&b, l->scope);
		put_var(&b, l->cls_site);
		put_var(&b, l->nr_lines);
		for (j = 0; j < l->nr_lines; j++)
			put_var(&b, l->lines[j]);
	}
	put_var(&b, rec->nr_traces);
	for (i = 0; i < rec->nr_traces; i++) {
		const struct pred_trace *t = &rec->traces[i];

		put_var(&b, t->nr);
		for (k = 0; k < t->nr; k++) {
			put_var(&b, t->ops[k].work_ns);
			put_var(&b, t->ops[k].hold_ns);
			put_var(&b, t->ops[k].site);
			put_var(&b, t->ops[k].lock);
		}
		put_events(&b, t);
	}
	if (b.oom) {
		free(b.p);
		fprintf(stderr, "%s: %s: out of memory\n", prog, path);
		return -1;
	}
	bound = ZSTD_compressBound(b.n);
	z = malloc(bound);
	if (!z) {
		free(b.p);
		fprintf(stderr, "%s: %s: out of memory\n", prog, path);
		return -1;
	}
	zn = ZSTD_compress(z, bound, b.p, b.n, 3);
	free(b.p);
	if (ZSTD_isError(zn)) {
		free(z);
		fprintf(stderr, "%s: %s: zstd: %s\n", prog, path, ZSTD_getErrorName(zn));
		return -1;
	}
	/* under a temporary name until it is whole */
	f = out_open(prog, path, &of);
	if (!f) {
		free(z);
		return -1;
	}
	if (fwrite(z, 1, zn, f) != zn) {
		fprintf(stderr, "%s: %s: cannot write: %s\n", prog, path, strerror(errno));
		out_discard(&of);
		free(z);
		return -1;
	}
	free(z);
	if (out_commit(prog, &of))
		return -1;
	return 0;
}

struct rbuf {
	const u8 *p;
	size_t n, off;
	bool bad;
};

static u64 get_var(struct rbuf *b)
{
	u64 v = 0;
	int shift = 0;

	while (!b->bad) {
		u8 c;

		if (b->off >= b->n || shift > 63) {
			b->bad = true;
			return 0;
		}
		c = b->p[b->off++];
		v |= (u64)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	return 0;
}

static void get_str(struct rbuf *b, char *out, size_t len)
{
	u64 n = get_var(b);

	out[0] = '\0';
	if (b->bad || n >= len || b->off + n > b->n) {
		b->bad = true;
		return;
	}
	memcpy(out, b->p + b->off, n);
	out[n] = '\0';
	b->off += n;
}

static double get_dbl(struct rbuf *b)
{
	double d = 0;

	if (b->off + sizeof(d) > b->n) {
		b->bad = true;
		return 0;
	}
	memcpy(&d, b->p + b->off, sizeof(d));
	b->off += sizeof(d);
	return d;
}

/* A count that must be at most @max: marks the stream bad otherwise. */
static u64 get_count(struct rbuf *b, u64 max)
{
	u64 v = get_var(b);

	if (v > max)
		b->bad = true;
	return b->bad ? 0 : v;
}

/* A trace's events: in order, each on an acquisition and lines of the table. */
static int parse_events(struct rbuf *b, const struct pred_recording *rec, struct pred_trace *t)
{
	u32 k, op = 0, max_line = rec->nr_lines ? rec->nr_lines - 1 : 0;

	t->nr_events = (u32)get_count(b, REC_MAX_OPS);
	if (b->bad || t->nr_events > b->n - b->off)
		return -1;
	t->events = malloc((t->nr_events + 1) * sizeof(*t->events));
	if (!t->events)
		return -1;
	for (k = 0; k < t->nr_events && !b->bad; k++) {
		struct pred_event *e = &t->events[k];
		u64 line2;

		op += (u32)get_count(b, t->nr - 1 - op);
		e->op = op;
		e->kind = (u8)get_count(b, NR_PRED_EVENTS - 1);
		e->inside = (u8)get_count(b, 1);
		e->line = (u32)get_count(b, max_line);
		line2 = get_count(b, (u64)max_line + 1);
		e->line2 = line2 ? (u32)(line2 - 1) : PRED_NO_LINE;
		e->counter = (u32)get_count(b, rec->nr_counters ? rec->nr_counters - 1 : 0);
		e->arg = (u32)get_count(b, 0xffffffffU);
		e->threshold = (u8)get_count(b, 125);
		e->step = (u8)get_count(b, 255);
		if (!rec->nr_lines)
			b->bad = true;
	}
	return b->bad ? -1 : 0;
}

static int parse_body(struct rbuf *b, struct pred_recording *rec, u64 version,
		      const char **why)
{
	int i, j;
	u32 k;

	get_str(b, rec->workload, sizeof(rec->workload));
	get_str(b, rec->type, sizeof(rec->type));
	get_str(b, rec->switches, sizeof(rec->switches));
	get_str(b, rec->machine, sizeof(rec->machine));
	rec->folio_size = (u32)get_count(b, 1U << 30);
	rec->threads = (u32)get_count(b, LRULAB_MAX_CPUS);
	rec->pages = get_var(b);
	rec->seconds = get_dbl(b);
	rec->pages_per_sec = get_dbl(b);
	rec->clock_cost_ns = (u32)get_count(b, 1U << 20);
	rec->overhead_ns = (u32)get_count(b, 1U << 20);
	rec->preemptions = get_var(b);
	rec->plain_cpu_ns_per_page = get_dbl(b);
	if (!(rec->plain_cpu_ns_per_page >= 0 && rec->plain_cpu_ns_per_page < 1e9))
		b->bad = true;
	rec->flush_period_ns = get_count(b, 3600ULL * 1000000000ULL);
	rec->lock_impl = (u8)get_count(b, NR_LOCK_IMPLS - 1);
	rec->one_process = (u8)get_count(b, 1);
	rec->nr_sites = (int)get_count(b, 1 << 16);
	if (b->bad)
		return *why = "truncated header", -1;
	rec->sites = calloc(rec->nr_sites + 1, sizeof(*rec->sites));
	for (i = 0; rec->sites && i < rec->nr_sites && !b->bad; i++) {
		get_str(b, rec->sites[i].cls, sizeof(rec->sites[i].cls));
		get_str(b, rec->sites[i].caller, sizeof(rec->sites[i].caller));
		get_str(b, rec->sites[i].fn, sizeof(rec->sites[i].fn));
	}
	rec->nr_lines = (u32)get_count(b, 1U << 24);
	rec->nr_counters = (u32)get_count(b, 1U << 24);
	rec->nr_locks = (int)get_count(b, 1 << 16);
	if (b->bad || !rec->sites)
		return *why = "truncated site table", -1;
	rec->locks = calloc(rec->nr_locks + 1, sizeof(*rec->locks));
	for (i = 0; rec->locks && i < rec->nr_locks && !b->bad; i++) {
		struct pred_lock *l = &rec->locks[i];

		l->scope = (u8)get_count(b, PRED_PRIVATE);
		l->cls_site = (u16)get_count(b, rec->nr_sites ? rec->nr_sites - 1 : 0);
		l->nr_lines = (u8)get_count(b, PRED_MAX_LINES);
		for (j = 0; j < l->nr_lines; j++)
			l->lines[j] = (u32)get_count(b, rec->nr_lines ? rec->nr_lines - 1 : 0);
	}
	rec->nr_traces = (int)get_count(b, LRULAB_MAX_CPUS);
	if (b->bad || !rec->locks)
		return *why = "bad lock table", -1;
	if (!rec->nr_traces || !rec->nr_sites || !rec->nr_locks || !rec->pages)
		return *why = "no acquisitions recorded", -1;
	rec->traces = calloc(rec->nr_traces, sizeof(*rec->traces));
	for (i = 0; rec->traces && i < rec->nr_traces && !b->bad; i++) {
		struct pred_trace *t = &rec->traces[i];

		t->nr = (u32)get_count(b, REC_MAX_OPS);
		if (b->bad || !t->nr || t->nr > b->n - b->off)
			return *why = "bad trace length", -1;
		t->ops = malloc(t->nr * sizeof(*t->ops));
		if (!t->ops)
			return *why = "out of memory", -1;
		for (k = 0; k < t->nr && !b->bad; k++) {
			t->ops[k].work_ns = (u32)get_count(b, 0xffffffffU);
			t->ops[k].hold_ns = (u32)get_count(b, 0xffffffffU);
			t->ops[k].site = (u16)get_count(b, rec->nr_sites - 1);
			t->ops[k].lock = (u16)get_count(b, rec->nr_locks - 1);
		}
		if (!b->bad && parse_events(b, rec, t))
			return *why = "bad or truncated events", -1;
	}
	if (b->bad || !rec->traces)
		return *why = "bad or truncated trace", -1;
	if (b->off != b->n)
		return *why = "trailing bytes after the last trace", -1;
	return 0;
}

/*
 * One zstd frame, whether or not it says how big it is (the zstd command
 * does not when it compresses a pipe).
 */
static int inflate(const u8 *z, size_t zn, u8 **out, unsigned long long *size,
		   const char **why)
{
	ZSTD_DStream *ds;
	ZSTD_inBuffer in = { z, zn, 0 };
	size_t cap = 1 << 20, r = 1;
	u8 *buf = NULL;

	if (ZSTD_isError(ZSTD_findFrameCompressedSize(z, zn)) &&
	    ZSTD_getFrameContentSize(z, zn) == ZSTD_CONTENTSIZE_ERROR) {
		*why = "not an lrulab recording (no zstd frame)";
		return -1;
	}
	ds = ZSTD_createDStream();
	buf = malloc(cap);
	if (!ds || !buf) {
		*why = "out of memory";
		goto fail;
	}
	ZSTD_initDStream(ds);
	*size = 0;
	while (r) {
		ZSTD_outBuffer o;

		if (*size == cap) {
			u8 *p;

			if (cap >= REC_MAX_RAW) {
				*why = "decompressed stream over the bound of 2 GiB";
				goto fail;
			}
			p = realloc(buf, cap * 2);
			if (!p) {
				*why = "out of memory";
				goto fail;
			}
			buf = p;
			cap *= 2;
		}
		o = (ZSTD_outBuffer){ buf, cap, *size };
		r = ZSTD_decompressStream(ds, &o, &in);
		*size = o.pos;
		if (ZSTD_isError(r)) {
			*why = "corrupt zstd frame";
			goto fail;
		}
		/* the magic is checked as soon as it is out, not after all of it */
		if (*size >= 8 && memcmp(buf, REC_MAGIC, 8)) {
			*why = "not an lrulab recording (bad magic)";
			goto fail;
		}
		if (r && in.pos == in.size && o.pos < o.size) {
			*why = "truncated zstd frame";
			goto fail;
		}
	}
	ZSTD_freeDStream(ds);
	*out = buf;
	return 0;
fail:
	ZSTD_freeDStream(ds);
	free(buf);
	return -1;
}

int pred_recording_read(const char *prog, const char *path, struct pred_recording *rec)
{
	const char *why = NULL;
	unsigned long long size;
	struct rbuf b = { 0 };
	u8 *z = NULL, *raw = NULL;
	size_t zn = 0, cap = 0, r;
	u64 version;
	FILE *f;

	memset(rec, 0, sizeof(*rec));
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (zn == cap) {
			u8 *p;

			if (cap >= REC_MAX_FILE) {
				why = "file over the bound of 1 GiB";
				break;
			}
			p = realloc(z, cap = cap ? cap * 2 : 1 << 16);
			if (!p) {
				why = "out of memory";
				break;
			}
			z = p;
		}
		r = fread(z + zn, 1, cap - zn, f);
		zn += r;
		if (!r)
			break;
		/* a zstd frame starts 28 b5 2f fd: anything else is not read on */
		if (zn >= 4 && memcmp(z, "\x28\xb5\x2f\xfd", 4)) {
			why = "not an lrulab recording (no zstd frame)";
			break;
		}
	}
	if (!why && ferror(f))
		why = strerror(errno);
	fclose(f);
	if (why || !z || inflate(z, zn, &raw, &size, &why))
		goto bad;
	b.p = raw;
	b.n = size;
	if (size < 8 || memcmp(raw, REC_MAGIC, 8)) {
		why = "not an lrulab recording (bad magic)";
		goto bad;
	}
	b.off = 8;
	version = get_var(&b);
	if (version != REC_VERSION) {
		fprintf(stderr, "%s: %s: recording format version %llu, this lrulab reads %d%s\n",
			prog, path, (unsigned long long)version, REC_VERSION,
			version < REC_VERSION ? " (an older recording, without the address "
			"space's events: record it again)" : "");
		free(z);
		free(raw);
		return -1;
	}
	if (parse_body(&b, rec, version, &why))
		goto bad;
	free(z);
	free(raw);
	return 0;
bad:
	fprintf(stderr, "%s: %s: %s\n", prog, path, why);
	free(z);
	free(raw);
	pred_recording_free(rec);
	return -1;
}
