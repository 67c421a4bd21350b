// SPDX-License-Identifier: MIT
/*
 * Trace input as one stream of bytes, whatever the file's compression.
 * Compressed traces are never decompressed to disk: public datasets ship
 * as multi-gigabyte .zst files, and only a buffer's worth of them is
 * needed at a time.  The readers see bytes (binary records) or lines
 * (text records) and count records themselves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay-internal.h"

#define RS_BUF		(1UL << 20)
/* A text record longer than this is not a record: binary data read as text. */
#define RS_MAX_LINE	(1UL << 20)

int replay_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int rs_open(struct replay_stream *s, const char *path, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->err = err;
	s->errlen = errlen;
	s->buf = malloc(RS_BUF + 1);
	if (!s->buf)
		return replay_err(err, errlen, "%s: out of memory", path);
	if (ends_with(path, ".gz")) {
		s->gz = gzopen(path, "rb");
		if (!s->gz)
			return replay_err(err, errlen, "%s: %s", path,
					  strerror(errno ? errno : ENOMEM));
		gzbuffer(s->gz, 256 << 10);
		return 0;
	}
	s->f = fopen(path, "rb");
	if (!s->f)
		return replay_err(err, errlen, "%s: %s", path, strerror(errno));
	if (ends_with(path, ".zst") || ends_with(path, ".zst.22")) {
		s->zd = ZSTD_createDStream();
		s->zin = malloc(ZSTD_DStreamInSize());
		if (!s->zd || !s->zin)
			return replay_err(err, errlen, "%s: out of memory", path);
		ZSTD_initDStream(s->zd);
	}
	return 0;
}

void rs_close(struct replay_stream *s)
{
	if (s->gz)
		gzclose(s->gz);
	if (s->f)
		fclose(s->f);
	ZSTD_freeDStream(s->zd);
	free(s->zin);
	free(s->buf);
	free(s->line);
	memset(s, 0, sizeof(*s));
}

/* Decode into @dst; 0 at the end of the input, -1 on error. */
static long rs_zstd(struct replay_stream *s, unsigned char *dst, size_t n)
{
	ZSTD_outBuffer out = { dst, n, 0 };

	while (!out.pos) {
		ZSTD_inBuffer in;

		if (s->zin_pos == s->zin_len) {
			s->zin_len = fread(s->zin, 1, ZSTD_DStreamInSize(), s->f);
			s->zin_pos = 0;
			if (ferror(s->f))
				return replay_err(s->err, s->errlen, "%s: %s", s->path,
						  strerror(errno));
			if (!s->zin_len) {
				/* 0: the last frame ended; anything else: cut short */
				if (s->zret)
					return replay_err(s->err, s->errlen,
							  "%s: zstd: truncated: the stream ends inside a frame",
							  s->path);
				return 0;
			}
		}
		in = (ZSTD_inBuffer){ s->zin, s->zin_len, s->zin_pos };
		s->zret = ZSTD_decompressStream(s->zd, &out, &in);
		s->zin_pos = in.pos;
		if (ZSTD_isError(s->zret))
			return replay_err(s->err, s->errlen, "%s: zstd: %s", s->path,
					  ZSTD_getErrorName(s->zret));
	}
	return (long)out.pos;
}

static long rs_gzip(struct replay_stream *s, unsigned char *dst, size_t n)
{
	int got = gzread(s->gz, dst, (unsigned int)n), errnum;
	const char *msg;

	if (got > 0 && gzdirect(s->gz))
		return replay_err(s->err, s->errlen, "%s: gzip: not in gzip format", s->path);
	msg = gzerror(s->gz, &errnum);
	if (got < 0 || (errnum != Z_OK && errnum != Z_STREAM_END))
		return replay_err(s->err, s->errlen, "%s: gzip: %s", s->path,
				  errnum == Z_ERRNO ? strerror(errno) :
				  errnum == Z_BUF_ERROR ? "truncated: unexpected end of file" : msg);
	return got;
}

/* Refill the buffer with what follows; false at the end or on error (-1 in *ret). */
static bool rs_fill(struct replay_stream *s, int *ret)
{
	long n;

	*ret = 0;
	if (s->eof)
		return false;
	if (s->zd)
		n = rs_zstd(s, s->buf, RS_BUF);
	else if (s->gz)
		n = rs_gzip(s, s->buf, RS_BUF);
	else {
		n = (long)fread(s->buf, 1, RS_BUF, s->f);
		if (ferror(s->f))
			n = replay_err(s->err, s->errlen, "%s: %s", s->path, strerror(errno));
	}
	if (n <= 0) {
		s->eof = true;
		*ret = (int)n;
		return false;
	}
	s->pos = 0;
	s->len = (size_t)n;
	return true;
}

long rs_read(struct replay_stream *s, void *dst, size_t n)
{
	unsigned char *d = dst;
	size_t got = 0;
	int ret;

	while (got < n) {
		size_t k;

		if (s->pos == s->len && !rs_fill(s, &ret))
			return ret < 0 ? -1 : (long)got;
		k = s->len - s->pos < n - got ? s->len - s->pos : n - got;
		memcpy(d + got, s->buf + s->pos, k);
		s->pos += k;
		got += k;
	}
	return (long)got;
}

static int rs_line_append(struct replay_stream *s, size_t *have, const char *p, size_t n)
{
	if (*have + n + 1 > RS_MAX_LINE)
		return replay_err(s->err, s->errlen,
				  "%s: a line longer than %lu bytes: not a text trace",
				  s->path, RS_MAX_LINE);
	if (*have + n + 1 > s->line_cap) {
		size_t cap = s->line_cap ? s->line_cap : 256;
		char *l;

		while (cap < *have + n + 1)
			cap *= 2;
		l = realloc(s->line, cap);
		if (!l)
			return replay_err(s->err, s->errlen, "%s: out of memory", s->path);
		s->line = l;
		s->line_cap = cap;
	}
	memcpy(s->line + *have, p, n);
	*have += n;
	return 0;
}

int rs_getline(struct replay_stream *s, char **line, size_t *len)
{
	size_t have = 0;
	bool spill = false;
	char *p, *nlp;
	int ret;

	for (;;) {
		if (s->pos == s->len && !rs_fill(s, &ret)) {
			if (ret < 0)
				return -1;
			if (!spill)
				return 0;
			/* a last line without a newline */
			s->line[have] = '\0';
			*line = s->line;
			*len = have;
			break;
		}
		p = (char *)s->buf + s->pos;
		nlp = memchr(p, '\n', s->len - s->pos);
		if (nlp && !spill) {
			*nlp = '\0';
			*line = p;
			*len = (size_t)(nlp - p);
			s->pos += *len + 1;
			break;
		}
		if (nlp) {
			if (rs_line_append(s, &have, p, (size_t)(nlp - p)))
				return -1;
			s->pos += (size_t)(nlp - p) + 1;
			s->line[have] = '\0';
			*line = s->line;
			*len = have;
			break;
		}
		if (rs_line_append(s, &have, p, s->len - s->pos))
			return -1;
		s->pos = s->len;
		spill = true;
	}
	if (*len && (*line)[*len - 1] == '\r')
		(*line)[--*len] = '\0';
	return 1;
}
