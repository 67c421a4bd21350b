/* SPDX-License-Identifier: MIT */
/*
 * Trace replay (replay/): cache and memory-access traces read in
 * libCacheSim's formats and in valgrind lackey's, then replayed through
 * an exact LRU (the reference the miss ratios are checked against) and
 * through the model's own page cache, memcg limit and classic reclaim.
 *
 * A trace is read whole into memory before anything replays it: the
 * working set (for sizes given as fractions of it) is only known at the
 * end, and each replay then walks a dense array instead of hashing ids.
 */
#ifndef LRULAB_REPLAY_H
#define LRULAB_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* MAX_NR_TIERS: the multi-gen LRU's tiers, of which replay reports each */
#define REPLAY_TIERS	4

enum replay_type {
	REPLAY_ORACLE_GENERAL,	/* libCacheSim's 24-byte records */
	REPLAY_LCS,		/* libCacheSim's versioned lcs, v1..v8 */
	REPLAY_CSV,
	REPLAY_TXT,		/* one id per line */
	REPLAY_LACKEY,		/* valgrind --tool=lackey --trace-mem=yes */
	REPLAY_PAGETRACE,	/* lrulab's vtime,page,op */
	NR_REPLAY_TYPES,
};

/* The -t keys (libCacheSim's trace-type parameters); columns are 1-based, 0: none. */
struct replay_params {
	unsigned int obj_id_col;
	unsigned int obj_size_col;
	unsigned int time_col;
	unsigned int op_col;
	char delimiter;
	bool has_header;
	bool obj_id_is_num;
};

/* One request after loading: a dense object number, bytes requested. */
struct replay_req {
	uint32_t obj;
	uint32_t write;
	uint64_t size;
};

struct replay_obj {
	uint64_t id;		/* as the trace names it (a hash for string ids) */
	uint64_t size;		/* bytes at its first request: the working set's count */
	uint64_t pages;		/* the most pages any of its requests covers */
	uint64_t base;		/* its first page in the model's file or mapping */
};

struct replay_trace {
	const char *path;
	enum replay_type type;
	struct replay_req *reqs;
	size_t nr_reqs;
	struct replay_obj *objs;
	size_t nr_objs;
	/*
	 * Object mode (--ignore-obj-size, or a trace without sizes): every
	 * object is one unit, one page in the model, and sizes count
	 * objects.  Otherwise sizes are bytes and an object of S bytes is
	 * ceil(S / 4096) pages.
	 */
	bool objects;
	bool has_writes;
	uint64_t wss;		/* working set: objects, or bytes */
	uint64_t total_pages;	/* the model's file (or mapping) */
	uint64_t req_bytes;	/* bytes of every request */
	/* pages every request covers: what one replay through the kernel model reads */
	uint64_t page_accesses;
	/* what the reader passed over, reported beside the results */
	uint64_t nr_records;
	uint64_t nr_zero_size;	/* skipped as libCacheSim does */
	uint64_t nr_instr;	/* lackey: instruction fetches */
	uint64_t nr_messages;	/* lackey: valgrind's own "==pid==" lines */
	bool ops_unused;	/* lcs: its op field is not replayed */
	/*
	 * Each request's time stamp in seconds, from the traces that have
	 * one (oracleGeneral and lcs records, a csv's time-col); NULL for
	 * the others.  Kept as read: not necessarily in order.
	 */
	double *times;
};

struct replay_load_opts {
	enum replay_type type;
	struct replay_params params;
	bool ignore_obj_size;
	uint64_t max_reqs;	/* -n; 0: all */
	uint64_t max_page_accesses;	/* the trace's page_accesses at most; 0: any */
};

/*
 * A replay through the kernel model (or the host's page cache) reads
 * every page of every request, 0.3 M (all misses) to 25 M (all hits)
 * pages a second here: a trace that would read more than 2^30 pages
 * (4 TiB) in one replay, an hour or more for each size and LRU, is
 * refused at the record that passes the bound, before anything is set
 * up for it; -n replays the requests before that record.  The exact
 * LRU costs a request, not a page, and has no such bound.
 */
#define REPLAY_MAX_PAGE_ACCESSES	(1ULL << 30)

/* "oracleGeneral", ... (case-insensitive); -1 and a reason in @err if unknown. */
int replay_type_parse(const char *s, enum replay_type *type, char *err, size_t errlen);
const char *replay_type_name(enum replay_type type);
/* Fill @p from "-t" text for @type (defaults first); -1 with the reason in @err. */
int replay_params_parse(const char *s, enum replay_type type, struct replay_params *p,
			char *err, size_t errlen);
void replay_params_default(struct replay_params *p);

/*
 * Read @path (".zst" and ".gz" decompressed as streams) into @t.  0, or
 * -1 with one line in @err: "PATH: record N: what" (or "line N" for
 * text formats).  replay_trace_free() releases it either way.
 */
int replay_trace_load(const char *path, const struct replay_load_opts *o,
		      struct replay_trace *t, char *err, size_t errlen);
void replay_trace_free(struct replay_trace *t);

/*
 * Cache sizes: "auto" (or 0: the fractions 0.001 ... 0.8 of the working
 * set that libCacheSim's cachesim uses), fractions of the working set
 * ("0.1"), counts ("4897": objects or bytes) and byte sizes with binary
 * units ("32mb" = "32MiB" = 32 << 20; bytes mode only).  Sorted,
 * duplicates removed; at most REPLAY_MAX_SIZES.  Returns the count, or
 * -1 with the reason in @err.
 */
#define REPLAY_MAX_SIZES 128
int replay_sizes_parse(const char *s, const struct replay_trace *t, uint64_t *sizes,
		       char *err, size_t errlen);

/* What one replay at one size gives. */
struct replay_counts {
	uint64_t size;		/* objects or bytes */
	uint64_t requests;
	uint64_t misses;
	uint64_t bytes;		/* requested */
	uint64_t miss_bytes;
};

/*
 * The exact LRU (replay/lru_exact.c).  In object mode one pass computes
 * every request's LRU stack distance (Mattson) and so every size's
 * misses at once; in bytes mode each size is simulated as libCacheSim's
 * LRU does it (an object bigger than the cache is never inserted, a hit
 * keeps the size the object was inserted with).  @out[i] for sizes[i].
 * 0 or -ENOMEM.
 */
int lru_exact_run(const struct replay_trace *t, const uint64_t *sizes, int nr_sizes,
		  struct replay_counts *out);
/* Stack distances, for object mode only; exposed so tests can hold
 * the one-pass and the simulated LRU against each other. */
int lru_exact_stack(const struct replay_trace *t, const uint64_t *sizes, int nr_sizes,
		    struct replay_counts *out);
int lru_exact_sim(const struct replay_trace *t, uint64_t size, struct replay_counts *out);

enum replay_mode { REPLAY_MODE_FD, REPLAY_MODE_MMAP };

/* What the kernel model's replay at one memory.max gives (replay/linux.c). */
struct replay_linux_result {
	struct replay_counts c;
	uint64_t memory_max;		/* pages */
	uint64_t page_accesses;
	uint64_t page_misses;
	uint64_t refault[2];		/* workingset_refault_{anon,file} */
	uint64_t activate[2];
	uint64_t restore[2];
	uint64_t pgscan, pgsteal, pgactivate, pgdeactivate, pgrefill, pgrotated;
	uint64_t pswpin, pswpout;
	uint64_t written_back;		/* pages the replay's writeback wrote */
	uint64_t throttled;		/* charges retried after writing back everything */
	double resident_avg;
	uint64_t resident_max;
	double seconds;			/* the replay loop alone */
	double clock_seconds;		/* the replay's clock at the end; 0: no clock */
	uint64_t clock_flushes;		/* periodic memcg flushes on it */
	/* the multi-gen LRU's: the leaf's seqs at the end, its pages per type */
	bool mglru;
	uint64_t max_seq, min_seq[2], gen_pages[2];
	/*
	 * and per tier of the replayed type (file in fd mode, anon in mmap),
	 * as lru_gen_full shows them at the end: the history generation's
	 * evicted, refaulted and protected folios, and the PID controller's
	 * averages of refaults and of the tier's total
	 */
	uint64_t tier_evicted[REPLAY_TIERS], tier_refaulted[REPLAY_TIERS];
	uint64_t tier_protected[REPLAY_TIERS];
	uint64_t tier_avg_refaulted[REPLAY_TIERS], tier_avg_total[REPLAY_TIERS];
	int invariant_violations;
	char error[160];		/* empty on success */
};

/*
 * Replay @t through a fresh model whose only memcg has memory.max
 * @max_pages, on this thread as model CPU 0 (one system per process:
 * parallel sizes run in forked processes).  @locks, if not NULL, gets
 * the lock table.  0, or -1 with r->error set.
 */
int replay_linux_run(const struct replay_trace *t, enum replay_mode mode,
		     uint64_t max_pages, struct replay_linux_result *r, FILE *locks);
/*
 * The replay's clock: what a request costs in time, so that the memcg
 * stats flushes (every FLUSH_TIME, and reclaim's ratelimited one) fall
 * where they would on a machine reading at that pace.  A request takes
 * @req_ns when given (a request rate), else @hit_ns plus @miss_ns for
 * each page it reads from the device.
 */
struct replay_clock {
	/* the trace's time stamps (struct replay_trace's times), seconds; NULL: not */
	const double *times;
	double req_ns;		/* 0: by hits and misses */
	double hit_ns;
	double miss_ns;
};
/* the stated defaults: a page cache hit by pread(), an SSD's 4 KiB random read */
#define REPLAY_HIT_NS		1000.0
#define REPLAY_READ_LATENCY_US	100

/*
 * The same through the multi-gen LRU (lru_gen enabled 0x0007) when
 * @mglru, on @clk's time (NULL: no clock, as replay_linux_run(): with no
 * periodic flush the ratelimited one flushes whenever the stats are
 * over their threshold).
 */
int replay_linux_run_lru(const struct replay_trace *t, enum replay_mode mode, bool mglru,
			 const struct replay_clock *clk, uint64_t max_pages,
			 struct replay_linux_result *r, FILE *locks);

int cmd_replay(int argc, char **argv);

#endif /* LRULAB_REPLAY_H */
