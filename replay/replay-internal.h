/* SPDX-License-Identifier: MIT */
/* What the files of replay/ share: the input stream and the loader's sink. */
#ifndef LRULAB_REPLAY_INTERNAL_H
#define LRULAB_REPLAY_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <zlib.h>
#include <zstd.h>

#include "replay/replay.h"

/*
 * A trace file read front to back: plain, or decompressed on the fly
 * when its name ends in ".zst" (or ".zst.22", as libCacheSim's datasets
 * are named) or ".gz".  A compressed stream that ends inside a frame is
 * an error, like a truncated record.
 */
struct replay_stream {
	const char *path;
	FILE *f;
	gzFile gz;
	ZSTD_DStream *zd;
	unsigned char *zin;		/* compressed input */
	size_t zin_pos, zin_len;
	size_t zret;			/* last ZSTD_decompressStream(): 0 = frame done */
	unsigned char *buf;		/* decoded bytes */
	size_t pos, len;
	bool eof;
	char *line;			/* a line that crossed the buffer's end */
	size_t line_cap;
	char *err;
	size_t errlen;
};

int rs_open(struct replay_stream *s, const char *path, char *err, size_t errlen);
void rs_close(struct replay_stream *s);
/* Up to @n bytes; fewer only at the end.  -1 on a read or decode error. */
long rs_read(struct replay_stream *s, void *dst, size_t n);
/*
 * The next line without its '\n' (nor a '\r' before it), NUL-terminated
 * in place (a last line may lack its newline).  1, 0 at the end, -1 on
 * error.
 */
int rs_getline(struct replay_stream *s, char **line, size_t *len);

/* One error line into the caller's buffer; always returns -1. */
int __attribute__((format(printf, 3, 4)))
replay_err(char *err, size_t errlen, const char *fmt, ...);

/*
 * What readers produce, one request at a time (replay/trace.c): 0, or
 * why it was not taken (the reader names the record).
 */
#define REPLAY_EMIT_NOMEM	1
#define REPLAY_EMIT_BOUND	2	/* past the load's max_page_accesses */
struct replay_sink;
int replay_emit(struct replay_sink *k, uint64_t id, uint64_t size, bool write);
/* the same, with the request's time stamp in seconds (at least 0) */
int replay_emit_at(struct replay_sink *k, uint64_t id, uint64_t size, bool write, double time);
/* The reader's loop stops once the -n cap is reached. */
bool replay_sink_full(const struct replay_sink *k);

/* replay/readers.c: parse @s into @k; the counters go to @t. */
int replay_read_stream(struct replay_stream *s, const struct replay_load_opts *o,
		       struct replay_sink *k, struct replay_trace *t);

static inline uint64_t replay_hash64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

#endif /* LRULAB_REPLAY_INTERNAL_H */
