// SPDX-License-Identifier: MIT
/*
 * What `lrulab replay` prints: cachesim's lines, byte for byte up to
 * their end (so that the scripts that parse them keep working), then
 * lrulab's own counters as key=value; one JSON object per size and LRU;
 * and the miss-ratio curves through gnuplot.
 */
#include <stdlib.h>
#include <string.h>

#include "replay-cmd.h"
#include "tools/outfile.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define TiB (1ULL << 40)

const char *replay_cache_name(enum replay_lru lru)
{
	return lru == REPLAY_EXACT ? "lru" : lru == REPLAY_CLASSIC ? "linux-classic" :
	       lru == REPLAY_MGLRU ? "linux-mglru" : "host-kernel";
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static double req_per_sec(const struct replay_cmd *c, const struct replay_run *r)
{
	return r->seconds > 0 ? (double)r->c.requests / r->seconds : 0;
}

/* seconds from the first request to the last, on the trace's stamps as the replay keeps them */
static double trace_span(const struct replay_trace *t)
{
	double last = t->times[0];
	size_t i;

	for (i = 1; i < t->nr_reqs; i++)
		if (t->times[i] > last)
			last = t->times[i];
	return last - t->times[0];
}

void replay_print_header(const struct replay_cmd *c, FILE *f)
{
	const struct replay_trace *t = &c->t;

	fprintf(f, "lrulab replay: %s (%s): %llu requests in %llu records, %zu objects, working set %llu %s (%llu pages), loaded in %.2f s",
		c->trace_path, c->type_name, (unsigned long long)t->nr_reqs,
		(unsigned long long)t->nr_records, t->nr_objs, (unsigned long long)t->wss,
		t->objects ? "objects" : "bytes", (unsigned long long)t->total_pages,
		c->load_seconds);
	if (t->nr_zero_size)
		fprintf(f, "; %llu zero-size requests skipped (as libCacheSim)",
			(unsigned long long)t->nr_zero_size);
	if (t->type == REPLAY_LACKEY)
		fprintf(f, "; not replayed: %llu instruction fetches, %llu valgrind message lines",
			(unsigned long long)t->nr_instr, (unsigned long long)t->nr_messages);
	if (t->ops_unused)
		fprintf(f, "; lcs op field not replayed (every request is a read)");
	fprintf(f, "\n");
	if (c->classic || c->mglru)
		fprintf(f, "%s: the model's page cache in %s mode, one memcg with memory.max = the cache size%s, memcg reclaim, no kswapd; %s\n",
			c->classic && c->mglru ? "linux-classic, linux-mglru" :
			c->classic ? "linux-classic" : "linux-mglru",
			c->mode == REPLAY_MODE_FD ? "fd" : "mmap",
			t->objects ? " (one page per object)" : " rounded down to pages",
			t->has_writes ? (c->mode == REPLAY_MODE_FD ?
					 "writes dirty pages, written back oldest first above 10% of memory.max" :
					 "writes dirty the PTEs") : "reads only");
	if (c->host)
		fprintf(f, "host-kernel: this machine's page cache (lrulab host replay), %ld run%s a size: the median miss ratio, the runs' range, the median rate\n",
			c->host_reps, c->host_reps == 1 ? "" : "s");
	if ((c->classic || c->mglru) && c->host) {
		fprintf(f, "clock: at each size the host kernel's median request rate there%s (the model's default clock where the host gave none); the memcg stats flush every 2 s of it\n",
			c->rate ? ", the host's reads paced at --rate" : "");
	} else if ((c->classic || c->mglru) && c->trace_time) {
		fprintf(f, "clock: the trace's own time stamps (--trace-time), %.0f s from its first request to its last; the memcg stats flush every 2 s of it\n",
			c->t.nr_reqs ? trace_span(&c->t) : 0.0);
	} else if (c->classic || c->mglru) {
		if (c->rate)
			fprintf(f, "clock: %ld requests a second (--rate); the memcg stats flush every 2 s of it\n",
				c->rate);
		else
			fprintf(f, "clock: a hit 1 us, a page read from the device %ld us (--read-latency; default 100, an SSD's); the memcg stats flush every 2 s of it\n",
				c->read_latency_us);
	}
	if (c->mglru)
		fprintf(f, "linux-mglru: the multi-gen LRU, lru_gen enabled 0x0007 (the kernel's default when built in), min_ttl_ms 0; max_seq, min_seq and the pages in the leaf's generations at the end, and per tier (0-3) of the replayed type lru_gen_full's evicted, refaulted and protected folios and the PID controller's averages\n");
}

/* cachesim's size string for one cache: a count, or a whole number of a unit */
static void size_str(const struct replay_cmd *c, uint64_t s, char *buf, size_t len)
{
	if (c->t.objects)
		snprintf(buf, len, "%llu", (unsigned long long)s);
	else if (s >= TiB)
		snprintf(buf, len, "%.0lfTiB", (double)s / TiB);
	else if (s >= GiB)
		snprintf(buf, len, "%.0lfGiB", (double)s / GiB);
	else if (s >= MiB)
		snprintf(buf, len, "%.0lfMiB", (double)s / MiB);
	else if (s >= KiB)
		snprintf(buf, len, "%.0lfKiB", (double)s / KiB);
	else
		snprintf(buf, len, "%lluB", (unsigned long long)s);
}

/* several caches: one unit for all, from the first size */
static uint64_t size_unit(const struct replay_cmd *c, const char **suffix)
{
	uint64_t first = c->sizes[0];

	*suffix = "";
	if (c->t.objects)
		return 1;
	if (first >= GiB)
		return *suffix = "GiB", GiB;
	if (first >= MiB)
		return *suffix = "MiB", MiB;
	if (first >= KiB)
		return *suffix = "KiB", KiB;
	*suffix = "B";
	return 1;
}

/* " name=t0,t1,t2,t3": a figure per tier */
static void print_tiers(FILE *f, const char *name, const uint64_t *v)
{
	int i;

	fprintf(f, " %s=", name);
	for (i = 0; i < REPLAY_TIERS; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
}

static json_t *tiers_json(const uint64_t *v)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < REPLAY_TIERS; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

static void tiers_from_json(json_t *a, uint64_t *v)
{
	int i;

	for (i = 0; i < REPLAY_TIERS; i++) {
		json_t *e = json_array_get(a, (size_t)i);

		v[i] = json_is_integer(e) ? (uint64_t)json_integer_value(e) : 0;
	}
}

/* the host's row at @r's size, or NULL */
static const struct replay_run *host_at(const struct replay_cmd *c, uint64_t size)
{
	int i;

	for (i = 0; c->host && i < c->nr_runs; i++)
		if (c->runs[i].lru == REPLAY_HOST && c->runs[i].c.size == size &&
		    c->runs[i].host.runs)
			return &c->runs[i];
	return NULL;
}

static void print_host(const struct replay_cmd *c, const struct replay_run *r, FILE *f)
{
	if (!r->host.runs) {
		fprintf(f, "%s host-kernel cache size %llu: not replayed", c->trace_path,
			(unsigned long long)r->c.size);
		if (r->host.oom)
			fprintf(f, ": the OOM killer ended %d of %ld runs (the page cache's own kernel memory does not fit)",
				r->host.oom, c->host_reps);
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "%s host-kernel cache size %llu, %llu req, miss ratio %.4f", c->trace_path,
		(unsigned long long)r->c.size, (unsigned long long)r->c.requests, r->host.mr);
	if (r->host.runs > 1)
		fprintf(f, " (%d runs: %.4f-%.4f)", r->host.runs, r->host.mr_lo, r->host.mr_hi);
	fprintf(f, " misses=%llu req_per_sec=%.0f page_misses=%llu page_accesses=%llu",
		(unsigned long long)r->c.misses, r->host.rate,
		(unsigned long long)r->k.page_misses, (unsigned long long)r->k.page_accesses);
	if (r->host.oom)
		fprintf(f, " runs_oom_killed=%d", r->host.oom);
	fprintf(f, "\n");
}

void replay_print_run(const struct replay_cmd *c, const struct replay_run *r, FILE *f)
{
	const struct replay_linux_result *k = &r->k;
	double mr = ratio(r->c.misses, r->c.requests);
	double bmr = ratio(r->c.miss_bytes, r->c.bytes);
	int file = c->mode == REPLAY_MODE_FD;

	if (r->lru == REPLAY_HOST) {
		print_host(c, r, f);
		return;
	}
	if (r->skipped) {
		fprintf(f, "%s %s cache size %llu: not replayed: memory.max %llu pages is below %d, one per-CPU LRU batch, which reclaim cannot see\n",
			c->trace_path, replay_cache_name(r->lru), (unsigned long long)r->c.size,
			(unsigned long long)k->memory_max, REPLAY_MIN_PAGES);
		return;
	}
	if (c->nr_sizes == 1) {
		char s[32];

		size_str(c, r->c.size, s, sizeof(s));
		fprintf(f, "%s %s cache size %8s, %16lu req, miss ratio %.4lf", c->trace_path,
			replay_cache_name(r->lru), s, (unsigned long)r->c.requests, mr);
		if (!c->t.objects)
			fprintf(f, ", byte miss ratio %.4lf", bmr);
		fprintf(f, ", throughput %.2lf MQPS", req_per_sec(c, r) / 1e6);
	} else {
		const char *suffix;
		uint64_t unit = size_unit(c, &suffix);

		fprintf(f, "%s %s cache size %8ld%s, %lld req, miss ratio %.4lf, byte miss ratio %.4lf",
			c->trace_path, replay_cache_name(r->lru), (long)(r->c.size / unit), suffix,
			(long long)r->c.requests, mr, bmr);
	}
	fprintf(f, " misses=%llu req_per_sec=%.0f", (unsigned long long)r->c.misses,
		req_per_sec(c, r));
	if (r->lru == REPLAY_EXACT) {
		fprintf(f, "\n");
		return;
	}
	if (r->failed) {
		fprintf(f, " FAILED: %s\n", k->error);
		return;
	}
	fprintf(f, " memory_max=%llu page_misses=%llu page_accesses=%llu workingset_refault_%s=%llu workingset_activate_%s=%llu workingset_restore_%s=%llu pgscan=%llu pgsteal=%llu pgactivate=%llu pgdeactivate=%llu pgrotated=%llu",
		(unsigned long long)k->memory_max, (unsigned long long)k->page_misses,
		(unsigned long long)k->page_accesses,
		file ? "file" : "anon", (unsigned long long)k->refault[file],
		file ? "file" : "anon", (unsigned long long)k->activate[file],
		file ? "file" : "anon", (unsigned long long)k->restore[file],
		(unsigned long long)k->pgscan, (unsigned long long)k->pgsteal,
		(unsigned long long)k->pgactivate, (unsigned long long)k->pgdeactivate,
		(unsigned long long)k->pgrotated);
	if (!file)
		fprintf(f, " pswpin=%llu pswpout=%llu", (unsigned long long)k->pswpin,
			(unsigned long long)k->pswpout);
	if (c->t.has_writes && file)
		fprintf(f, " written_back=%llu throttled=%llu", (unsigned long long)k->written_back,
			(unsigned long long)k->throttled);
	fprintf(f, " resident_avg=%.0f resident_max=%llu", k->resident_avg,
		(unsigned long long)k->resident_max);
	if (k->clock_seconds > 0)
		fprintf(f, " clock_seconds=%.2f clock_flushes=%llu", k->clock_seconds,
			(unsigned long long)k->clock_flushes);
	if (host_at(c, r->c.size))
		fprintf(f, " vs_host=%.3f", mr / host_at(c, r->c.size)->host.mr);
	if (k->mglru)
		fprintf(f, " max_seq=%llu min_seq_anon=%llu min_seq_file=%llu gen_pages_anon=%llu gen_pages_file=%llu",
			(unsigned long long)k->max_seq, (unsigned long long)k->min_seq[0],
			(unsigned long long)k->min_seq[1], (unsigned long long)k->gen_pages[0],
			(unsigned long long)k->gen_pages[1]);
	if (k->mglru) {
		print_tiers(f, "tier_evicted", k->tier_evicted);
		print_tiers(f, "tier_refaulted", k->tier_refaulted);
		print_tiers(f, "tier_protected", k->tier_protected);
		print_tiers(f, "tier_avg_refaulted", k->tier_avg_refaulted);
		print_tiers(f, "tier_avg_total", k->tier_avg_total);
	}
	fprintf(f, "\n");
	if (r->locks)
		fprintf(f, "%s", r->locks);
}

static json_t *host_json(const struct replay_cmd *c, const struct replay_run *r, json_t *j)
{
	json_object_set_new(j, "engine", json_string("host-kernel"));
	json_object_set_new(j, "runs", json_integer(r->host.runs));
	json_object_set_new(j, "runs_oom_killed", json_integer(r->host.oom));
	if (!r->host.runs) {
		json_object_set_new(j, "skipped", json_string(r->host.oom ? "OOM-killed" :
							      "below one per-CPU LRU batch"));
		return j;
	}
	json_object_set_new(j, "requests", json_integer((json_int_t)r->c.requests));
	json_object_set_new(j, "misses", json_integer((json_int_t)r->c.misses));
	json_object_set_new(j, "miss_ratio", json_real(r->host.mr));
	json_object_set_new(j, "miss_ratio_min", json_real(r->host.mr_lo));
	json_object_set_new(j, "miss_ratio_max", json_real(r->host.mr_hi));
	json_object_set_new(j, "requests_per_sec", json_real(r->host.rate));
	json_object_set_new(j, "page_accesses", json_integer((json_int_t)r->k.page_accesses));
	json_object_set_new(j, "page_misses", json_integer((json_int_t)r->k.page_misses));
	(void)c;
	return j;
}

json_t *replay_run_json(const struct replay_cmd *c, const struct replay_run *r)
{
	const struct replay_linux_result *k = &r->k;
	json_t *j = json_object();

	json_object_set_new(j, "trace", json_string(c->trace_path));
	json_object_set_new(j, "type", json_string(c->type_name));
	json_object_set_new(j, "lru", json_string(r->lru == REPLAY_EXACT ? "exact" :
						  r->lru == REPLAY_CLASSIC ? "classic" :
						  r->lru == REPLAY_MGLRU ? "mglru" : "host"));
	json_object_set_new(j, "cache", json_string(replay_cache_name(r->lru)));
	json_object_set_new(j, "size", json_integer((json_int_t)r->c.size));
	json_object_set_new(j, "size_unit", json_string(c->t.objects ? "objects" : "bytes"));
	if (r->lru == REPLAY_HOST)
		return host_json(c, r, j);
	if (r->skipped) {
		json_object_set_new(j, "memory_max_pages", json_integer((json_int_t)k->memory_max));
		json_object_set_new(j, "skipped", json_string("memory.max below one per-CPU LRU batch"));
		return j;
	}
	json_object_set_new(j, "requests", json_integer((json_int_t)r->c.requests));
	json_object_set_new(j, "misses", json_integer((json_int_t)r->c.misses));
	json_object_set_new(j, "miss_ratio", json_real(ratio(r->c.misses, r->c.requests)));
	json_object_set_new(j, "bytes", json_integer((json_int_t)r->c.bytes));
	json_object_set_new(j, "miss_bytes", json_integer((json_int_t)r->c.miss_bytes));
	json_object_set_new(j, "byte_miss_ratio", json_real(ratio(r->c.miss_bytes, r->c.bytes)));
	json_object_set_new(j, "requests_per_sec", json_real(req_per_sec(c, r)));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	json_object_set_new(j, "working_set", json_integer((json_int_t)c->t.wss));
	if (r->lru == REPLAY_EXACT)
		return j;

	json_object_set_new(j, "mode", json_string(c->mode == REPLAY_MODE_FD ? "fd" : "mmap"));
	json_object_set_new(j, "memory_max_pages", json_integer((json_int_t)k->memory_max));
	json_object_set_new(j, "page_accesses", json_integer((json_int_t)k->page_accesses));
	json_object_set_new(j, "page_misses", json_integer((json_int_t)k->page_misses));
#define J(name, v) json_object_set_new(j, name, json_integer((json_int_t)(v)))
	J("workingset_refault_anon", k->refault[0]);
	J("workingset_refault_file", k->refault[1]);
	J("workingset_activate_anon", k->activate[0]);
	J("workingset_activate_file", k->activate[1]);
	J("workingset_restore_anon", k->restore[0]);
	J("workingset_restore_file", k->restore[1]);
	if (k->mglru) {
		J("max_seq", k->max_seq);
		J("min_seq_anon", k->min_seq[0]);
		J("min_seq_file", k->min_seq[1]);
		J("gen_pages_anon", k->gen_pages[0]);
		J("gen_pages_file", k->gen_pages[1]);
		json_object_set_new(j, "tier_evicted", tiers_json(k->tier_evicted));
		json_object_set_new(j, "tier_refaulted", tiers_json(k->tier_refaulted));
		json_object_set_new(j, "tier_protected", tiers_json(k->tier_protected));
		json_object_set_new(j, "tier_avg_refaulted", tiers_json(k->tier_avg_refaulted));
		json_object_set_new(j, "tier_avg_total", tiers_json(k->tier_avg_total));
	}
	J("pgscan", k->pgscan);
	J("pgsteal", k->pgsteal);
	J("pgactivate", k->pgactivate);
	J("pgdeactivate", k->pgdeactivate);
	J("pgrefill", k->pgrefill);
	J("pgrotated", k->pgrotated);
	J("pswpin", k->pswpin);
	J("pswpout", k->pswpout);
	J("written_back", k->written_back);
	J("throttled", k->throttled);
	J("resident_max", k->resident_max);
	J("invariant_violations", k->invariant_violations);
#undef J
#define J2(name, v) json_object_set_new(j, name, json_integer((json_int_t)(v)))
	json_object_set_new(j, "resident_avg", json_real(k->resident_avg));
	json_object_set_new(j, "clock_seconds", json_real(k->clock_seconds));
	J2("clock_flushes", k->clock_flushes);
	if (r->clock.times)
		json_object_set_new(j, "clock", json_string("trace"));
	else if (r->clock.req_ns > 0)
		J2("rate", 1e9 / r->clock.req_ns + 0.5);
	else
		J2("read_latency_us", c->read_latency_us);
	if (host_at(c, r->c.size)) {
		json_object_set_new(j, "clock", json_string("host"));
		json_object_set_new(j, "vs_host", json_real(ratio(r->c.misses, r->c.requests) /
							     host_at(c, r->c.size)->host.mr));
	}
#undef J2
	json_object_set_new(j, "invariants_ok", json_boolean(!k->invariant_violations && !r->failed));
	if (r->failed)
		json_object_set_new(j, "error", json_string(k->error));
	if (r->locks)
		json_object_set_new(j, "lock_table", json_string(r->locks));
	return j;
}

static uint64_t ju(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

int replay_run_from_json(json_t *j, struct replay_run *r)
{
	struct replay_linux_result *k = &r->k;
	json_t *v;

	if (!json_is_integer(json_object_get(j, "requests")) ||
	    !json_is_number(json_object_get(j, "seconds")))
		return -1;
	r->c.requests = ju(j, "requests");
	r->c.misses = ju(j, "misses");
	r->c.bytes = ju(j, "bytes");
	r->c.miss_bytes = ju(j, "miss_bytes");
	r->seconds = json_number_value(json_object_get(j, "seconds"));
	if (r->lru == REPLAY_EXACT)
		return 0;
	k->memory_max = ju(j, "memory_max_pages");
	k->page_accesses = ju(j, "page_accesses");
	k->page_misses = ju(j, "page_misses");
	k->refault[0] = ju(j, "workingset_refault_anon");
	k->refault[1] = ju(j, "workingset_refault_file");
	k->activate[0] = ju(j, "workingset_activate_anon");
	k->activate[1] = ju(j, "workingset_activate_file");
	k->restore[0] = ju(j, "workingset_restore_anon");
	k->restore[1] = ju(j, "workingset_restore_file");
	k->mglru = json_object_get(j, "max_seq") != NULL;
	k->max_seq = ju(j, "max_seq");
	k->min_seq[0] = ju(j, "min_seq_anon");
	k->min_seq[1] = ju(j, "min_seq_file");
	k->gen_pages[0] = ju(j, "gen_pages_anon");
	k->gen_pages[1] = ju(j, "gen_pages_file");
	tiers_from_json(json_object_get(j, "tier_evicted"), k->tier_evicted);
	tiers_from_json(json_object_get(j, "tier_refaulted"), k->tier_refaulted);
	tiers_from_json(json_object_get(j, "tier_protected"), k->tier_protected);
	tiers_from_json(json_object_get(j, "tier_avg_refaulted"), k->tier_avg_refaulted);
	tiers_from_json(json_object_get(j, "tier_avg_total"), k->tier_avg_total);
	k->pgscan = ju(j, "pgscan");
	k->pgsteal = ju(j, "pgsteal");
	k->pgactivate = ju(j, "pgactivate");
	k->pgdeactivate = ju(j, "pgdeactivate");
	k->pgrefill = ju(j, "pgrefill");
	k->pgrotated = ju(j, "pgrotated");
	k->pswpin = ju(j, "pswpin");
	k->pswpout = ju(j, "pswpout");
	k->written_back = ju(j, "written_back");
	k->throttled = ju(j, "throttled");
	k->resident_max = ju(j, "resident_max");
	k->invariant_violations = (int)ju(j, "invariant_violations");
	k->clock_flushes = ju(j, "clock_flushes");
	v = json_object_get(j, "clock_seconds");
	k->clock_seconds = json_is_number(v) ? json_number_value(v) : 0;
	v = json_object_get(j, "resident_avg");
	k->resident_avg = json_is_number(v) ? json_number_value(v) : 0;
	v = json_object_get(j, "error");
	if (json_is_string(v)) {
		r->failed = true;
		snprintf(k->error, sizeof(k->error), "%s", json_string_value(v));
	}
	v = json_object_get(j, "lock_table");
	if (json_is_string(v))
		r->locks = strdup(json_string_value(v));
	return 0;
}

/* a fifth of a decade: how far the plot's x range reaches past the sizes */
#define REPLAY_PLOT_BEYOND 1.585

/* "FILE.png" -> "FILE.EXT" */
static void sibling(const char *png, const char *ext, char *buf, size_t len)
{
	size_t n = strlen(png);

	if (n > 4 && !strcmp(png + n - 4, ".png"))
		n -= 4;
	snprintf(buf, len, "%.*s.%s", (int)n, png, ext);
}

/*
 * The x range: the sizes replayed, a fifth of a decade beyond each end,
 * not gnuplot's whole decades, whose last label (at the frame's right
 * edge) the image cut in half.  Sizes with SI prefixes (10k, 1M; bytes
 * as kB, MB), the legend below the axis, clear of the title.  The .dat,
 * the .gp and the PNG are each written under a temporary name and
 * renamed when whole (tools/outfile.c): a full disk leaves none cut
 * short under its name.
 */
int replay_plot(const struct replay_cmd *c)
{
	static const enum replay_lru lrus[] = { REPLAY_EXACT, REPLAY_CLASSIC, REPLAY_MGLRU,
						REPLAY_HOST };
	char dat[4096], gp[4096], title[4200];
	const char *sep = "plot";
	uint64_t lo = UINT64_MAX, hi = 0;
	int i, l, ret, block = 0, points[NR_REPLAY_LRUS] = { 0 };
	struct out_file of;
	FILE *f;

	for (l = 0; l < NR_REPLAY_LRUS; l++) {
		for (i = 0; i < c->nr_runs; i++) {
			const struct replay_run *r = &c->runs[i];

			if (r->lru == lrus[l] && !r->failed && !r->skipped) {
				points[l]++;
				lo = r->c.size < lo ? r->c.size : lo;
				hi = r->c.size > hi ? r->c.size : hi;
			}
		}
	}
	if (!points[0] && !points[1] && !points[2] && !points[3]) {
		fprintf(stderr, REPLAY_PROG ": --plot: no size was replayed: no PNG\n");
		return -1;
	}
	sibling(c->plot, "dat", dat, sizeof(dat));
	sibling(c->plot, "gp", gp, sizeof(gp));
	f = out_open(REPLAY_PROG, dat, &of);
	if (!f)
		return -1;
	/* one block per LRU, two blank lines apart: gnuplot's "index" */
	for (l = 0; l < NR_REPLAY_LRUS; l++) {
		fprintf(f, "# %s: size miss_ratio byte_miss_ratio\n", replay_cache_name(lrus[l]));
		for (i = 0; i < c->nr_runs; i++) {
			const struct replay_run *r = &c->runs[i];

			if (r->lru == lrus[l] && !r->failed && !r->skipped)
				fprintf(f, "%llu %.6f %.6f\n", (unsigned long long)r->c.size,
					r->lru == REPLAY_HOST ? r->host.mr :
					ratio(r->c.misses, r->c.requests),
					ratio(r->c.miss_bytes, r->c.bytes));
		}
		fprintf(f, "\n\n");
	}
	if (out_commit(REPLAY_PROG, &of))
		return -1;
	f = out_open(REPLAY_PROG, gp, &of);
	if (!f)
		return -1;
	fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		   "  set terminal pngcairo size 900,600\n"
		   "} else {\n"
		   "  set terminal png size 900,600\n"
		   "}\n"
		   "set termoption noenhanced\n");
	out_gnuplot_output(f, c->plot);
	snprintf(title, sizeof(title), "miss ratio: %s (%s)",
		 strrchr(c->trace_path, '/') ? strrchr(c->trace_path, '/') + 1 : c->trace_path,
		 c->type_name);
	fprintf(f, "set title ");
	out_gnuplot_string(f, title);
	fprintf(f, "\n"
		   "set logscale x\n"
		   "set xrange [%g:%g]\n"
		   "set format x '%s'\n"
		   "set xlabel 'cache size (%s)'\n"
		   "set ylabel 'miss ratio, misses per request (lower is better)'\n"
		   "set yrange [0:1.02]\n"
		   "set grid\n"
		   "set rmargin 5\n"
		   "set bmargin 5\n"
		   "set key bmargin center horizontal\n",
		(double)(lo ? lo : 1) / REPLAY_PLOT_BEYOND, (double)hi * REPLAY_PLOT_BEYOND,
		c->t.objects ? "%.0s%c" : "%.0s %cB", c->t.objects ? "objects" : "bytes");
	for (l = 0; l < NR_REPLAY_LRUS; l++) {
		static const char *const names[2][NR_REPLAY_LRUS] = {
			{ "lru (exact)", "linux-classic (fd)", "linux-mglru (fd)",
			  "host kernel (fd, median)" },
			{ "lru (exact)", "linux-classic (mmap)", "linux-mglru (mmap)", "" },
		};

		if ((lrus[l] == REPLAY_EXACT && !c->exact) ||
		    (lrus[l] == REPLAY_CLASSIC && !c->classic) ||
		    (lrus[l] == REPLAY_MGLRU && !c->mglru) ||
		    (lrus[l] == REPLAY_HOST && !c->host))
			continue;
		/*
		 * gnuplot warns of a series with no point, and its "index"
		 * counts only blocks that have points
		 */
		if (!points[l])
			continue;
		fprintf(f, "%s ", sep);
		out_gnuplot_string(f, dat);
		fprintf(f, " index %d using 1:2 with linespoints title '%s'", block,
			names[c->mode == REPLAY_MODE_MMAP][l]);
		block++;
		sep = ", \\\n    ";
	}
	fprintf(f, "\n");
	if (out_commit(REPLAY_PROG, &of))
		return -1;
	ret = out_gnuplot(REPLAY_PROG, gp, c->plot);
	if (ret > 0)
		fprintf(stderr, REPLAY_PROG ": --plot: gnuplot %s on %s: no PNG (install gnuplot-nox)\n",
			ret == OUT_GNUPLOT_MISSING ? "not found" : "failed", gp);
	return ret ? -1 : 0;
}
