// SPDX-License-Identifier: MIT
/*
 * Trace replay: every reader on small handmade files (plain, zstd and
 * gzip) gives the exact request sequence; every malformed input gets its
 * one error line; the exact LRU gives the textbook miss counts, its
 * one-pass stack distances agree with a simulated LRU, and it reproduces
 * libCacheSim on the cloudPhysicsIO sample in all three formats; the
 * kernel model misses every request of a scan bigger than memory.max,
 * keeps a hot set resident through a long scan, and leaves the invariant
 * checker clean after every replay.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "replay/replay.h"

/* tests/data beside this file; the suite runs from the repository's root */
#define DATA_DIR "tests/data/"

static char dir[] = "/tmp/lrulab-replay-XXXXXX";
static char err[512];

static const char *path_of(const char *name)
{
	static char buf[8][256];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void write_file(const char *name, const void *p, size_t n)
{
	FILE *f = fopen(path_of(name), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void write_text(const char *name, const char *s)
{
	write_file(name, s, strlen(s));
}

static void write_zst(const char *name, const void *p, size_t n)
{
	size_t cap = ZSTD_compressBound(n), got;
	void *buf = malloc(cap);

	assert_non_null(buf);
	got = ZSTD_compress(buf, cap, p, n, 3);
	assert_false(ZSTD_isError(got));
	write_file(name, buf, got);
	free(buf);
}

static void write_gz(const char *name, const void *p, size_t n)
{
	gzFile gz = gzopen(path_of(name), "wb");

	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, p, (unsigned int)n), (int)n);
	assert_int_equal(gzclose(gz), Z_OK);
}

static int load(const char *path, enum replay_type type, const char *params, bool ignore,
		struct replay_trace *t)
{
	struct replay_load_opts o = { .type = type, .ignore_obj_size = ignore };
	int ret;

	replay_params_default(&o.params);
	if (replay_params_parse(params ? params : "", type, &o.params, err, sizeof(err)))
		return -1;
	ret = replay_trace_load(path, &o, t, err, sizeof(err));
	if (ret)
		replay_trace_free(t);
	return ret;
}

struct want {
	uint64_t id, size;
	bool write;
};

static void assert_seq(const struct replay_trace *t, const struct want *w, size_t n)
{
	size_t i;

	assert_int_equal(t->nr_reqs, n);
	for (i = 0; i < n; i++) {
		const struct replay_req *q = &t->reqs[i];

		assert_int_equal(t->objs[q->obj].id, w[i].id);
		assert_int_equal(q->size, w[i].size);
		assert_int_equal(q->write, w[i].write);
	}
}

/* Loading @name fails with exactly "PATH: @what". */
static void expect_err(const char *name, enum replay_type type, const char *params,
		       const char *what)
{
	struct replay_trace t;
	char want[512];

	snprintf(want, sizeof(want), "%s: %s", path_of(name), what);
	assert_int_equal(load(path_of(name), type, params, false, &t), -1);
	assert_string_equal(err, want);
}

static size_t put_og(unsigned char *p, uint32_t time, uint64_t id, uint32_t size, int64_t next)
{
	memcpy(p, &time, 4);
	memcpy(p + 4, &id, 8);
	memcpy(p + 12, &size, 4);
	memcpy(p + 16, &next, 8);
	return 24;
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* ---- readers ---- */

static void test_oracle_general(void **state)
{
	static const struct want w[] = {
		{ 42, 512, false }, { 7, 8192, false }, { 42, 4096, false },
	};
	unsigned char b[24 * 4];
	struct replay_trace t;
	size_t n = 0;

	n += put_og(b + n, 1, 42, 512, 3);
	n += put_og(b + n, 1, 7, 8192, -1);
	n += put_og(b + n, 2, 99, 0, -1);	/* size 0: skipped, as libCacheSim */
	n += put_og(b + n, 3, 42, 4096, INT64_MAX);
	write_file("a.oracleGeneral", b, n);
	assert_int_equal(load(path_of("a.oracleGeneral"), REPLAY_ORACLE_GENERAL, NULL, false, &t), 0);
	assert_seq(&t, w, 3);
	assert_int_equal(t.nr_records, 4);
	assert_int_equal(t.nr_zero_size, 1);
	assert_int_equal(t.nr_objs, 2);
	assert_false(t.objects);
	/* bytes of each object's first request; pages of its largest */
	assert_int_equal(t.wss, 512 + 8192);
	assert_int_equal(t.objs[0].pages, 1);
	assert_int_equal(t.objs[1].pages, 2);
	assert_int_equal(t.objs[1].base, 1);
	assert_int_equal(t.total_pages, 3);
	replay_trace_free(&t);

	/* the same through zstd, and as objects */
	write_zst("a.oracleGeneral.zst", b, n);
	assert_int_equal(load(path_of("a.oracleGeneral.zst"), REPLAY_ORACLE_GENERAL, NULL, true, &t), 0);
	assert_int_equal(t.nr_reqs, 3);
	assert_true(t.objects);
	assert_int_equal(t.reqs[1].size, 1);
	assert_int_equal(t.wss, 2);
	assert_int_equal(t.total_pages, 2);
	replay_trace_free(&t);
}

static void put_lcs_header(unsigned char *h, uint64_t version)
{
	uint64_t magic = 0x123456789abcdef0ULL;

	memset(h, 0, 8192);
	memcpy(h, &magic, 8);
	memcpy(h + 8, &version, 8);
	memcpy(h + 8184, &magic, 8);
}

static void test_lcs(void **state)
{
	static const struct want w[] = { { 5, 100, false }, { 6, 10000, false } };
	unsigned char b[8192 + 2 * 40];
	struct replay_trace t;
	uint32_t u32;
	int64_t i64;
	int k;

	/* v1: oracleGeneral records */
	put_lcs_header(b, 1);
	put_og(b + 8192, 1, 5, 100, -1);
	put_og(b + 8192 + 24, 1, 6, 10000, -1);
	write_file("v1.lcs", b, 8192 + 48);
	assert_int_equal(load(path_of("v1.lcs"), REPLAY_LCS, NULL, false, &t), 0);
	assert_seq(&t, w, 2);
	assert_false(t.ops_unused);
	replay_trace_free(&t);

	/* v4: 40 bytes, the size an i64, an op word, a ttl, the next, a feature */
	put_lcs_header(b, 4);
	for (k = 0; k < 2; k++) {
		unsigned char *r = b + 8192 + 40 * k;
		uint64_t id = 5 + (uint64_t)k;

		memset(r, 0, 40);
		u32 = 1;
		memcpy(r, &u32, 4);
		memcpy(r + 4, &id, 8);
		i64 = k ? 10000 : 100;
		memcpy(r + 12, &i64, 8);
		i64 = -1;
		memcpy(r + 28, &i64, 8);
	}
	write_file("v4.lcs.zst", "", 0);
	write_zst("v4.lcs.zst", b, 8192 + 80);
	assert_int_equal(load(path_of("v4.lcs.zst"), REPLAY_LCS, NULL, false, &t), 0);
	assert_seq(&t, w, 2);
	assert_true(t.ops_unused);
	replay_trace_free(&t);
}

static void test_csv(void **state)
{
	static const struct want w[] = {
		{ 10, 4096, false }, { 11, 100, true }, { 10, 4096, true },
	};
	static const char csv[] = "version,time,op,size,lbn\n"
				  "1,5.5,28,4096,10\n"
				  "1,6, 2a ,100,11\r\n"
				  "1,7,set,4096,10";
	struct replay_trace t;

	write_text("a.csv", csv);
	assert_int_equal(load(path_of("a.csv"), REPLAY_CSV,
			      "time-col=2, obj-id-col=5, obj-size-col=4, op-col=3, delimiter=,, has-header=true",
			      false, &t), 0);
	assert_seq(&t, w, 3);
	assert_true(t.has_writes);
	assert_int_equal(t.nr_records, 4);
	replay_trace_free(&t);

	/* tab-separated, string ids hashed, no size column: objects */
	write_text("b.tsv", "x\tk1\nx\tk2\nx\tk1\n");
	assert_int_equal(load(path_of("b.tsv"), REPLAY_CSV,
			      "obj-id-col=2,delimiter=\\t,obj-id-is-num=false", false, &t), 0);
	assert_int_equal(t.nr_reqs, 3);
	assert_int_equal(t.nr_objs, 2);
	assert_int_equal(t.reqs[0].obj, t.reqs[2].obj);
	assert_true(t.objects);
	replay_trace_free(&t);
}

static void test_txt(void **state)
{
	static const struct want w[] = {
		{ 3, 1, false }, { 1, 1, false }, { 3, 1, false }, { 18446744073709551615ULL, 1, false },
	};
	static const char txt[] = "3\r\n1\r\n3\r\n18446744073709551615\r\n";
	struct replay_trace t;

	write_text("a.txt", txt);
	assert_int_equal(load(path_of("a.txt"), REPLAY_TXT, NULL, false, &t), 0);
	assert_seq(&t, w, 4);
	assert_true(t.objects);
	replay_trace_free(&t);
	write_gz("a.txt.gz", txt, strlen(txt));
	assert_int_equal(load(path_of("a.txt.gz"), REPLAY_TXT, NULL, false, &t), 0);
	assert_seq(&t, w, 4);
	replay_trace_free(&t);
	write_zst("a.txt.zst", txt, strlen(txt));
	assert_int_equal(load(path_of("a.txt.zst"), REPLAY_TXT, NULL, false, &t), 0);
	assert_seq(&t, w, 4);
	replay_trace_free(&t);
	/* -n: the first requests only */
	{
		struct replay_load_opts o = { .type = REPLAY_TXT, .max_reqs = 2 };

		replay_params_default(&o.params);
		assert_int_equal(replay_trace_load(path_of("a.txt"), &o, &t, err, sizeof(err)), 0);
		assert_seq(&t, w, 2);
		replay_trace_free(&t);
	}
}

static void test_lackey(void **state)
{
	/* pages, not addresses: 0x1fff straddles pages 1 and 2 */
	static const struct want w[] = {
		{ 0x5, 1, false }, { 0x1, 1, true }, { 0x2, 1, true }, { 0x5, 1, true },
	};
	static const char lk[] = "==1234== Lackey, an example Valgrind tool\n"
				 "I  04016b0,3\n"
				 " L 00005ff8,8\n"
				 " S 00001fff,2\n"
				 " M 00005000,4\n"
				 "==1234== \n";
	struct replay_trace t;

	write_text("a.lackey", lk);
	assert_int_equal(load(path_of("a.lackey"), REPLAY_LACKEY, NULL, false, &t), 0);
	assert_seq(&t, w, 4);
	assert_int_equal(t.nr_instr, 1);
	assert_int_equal(t.nr_messages, 2);
	/* address order: pages 1, 2, 5 get 0, 1, 2 */
	assert_int_equal(t.objs[t.reqs[0].obj].base, 2);
	assert_int_equal(t.objs[t.reqs[1].obj].base, 0);
	replay_trace_free(&t);
}

/*
 * Every request's pages are counted as it is read; past the load's
 * bound the record that passes it is refused, before anything is
 * allocated for it, naming the -n that stays within.
 */
static int load_bound(const char *name, enum replay_type type, bool ignore, uint64_t bound,
		      struct replay_trace *t)
{
	struct replay_load_opts o = { .type = type, .ignore_obj_size = ignore,
				      .max_page_accesses = bound };
	int ret;

	replay_params_default(&o.params);
	ret = replay_trace_load(path_of(name), &o, t, err, sizeof(err));
	if (ret)
		replay_trace_free(t);
	return ret;
}

static void test_page_bound(void **state)
{
	unsigned char b[24 * 3];
	struct replay_trace t;
	char want[512];
	size_t n = 0;

	/* 3 pages, then 2 (one byte over a page), then 1 */
	n += put_og(b + n, 1, 1, 3 * 4096, -1);
	n += put_og(b + n, 2, 2, 4097, -1);
	n += put_og(b + n, 3, 1, 1, -1);
	write_file("bound.og", b, n);
	assert_int_equal(load_bound("bound.og", REPLAY_ORACLE_GENERAL, false, 0, &t), 0);
	assert_int_equal(t.page_accesses, 6);
	replay_trace_free(&t);
	assert_int_equal(load_bound("bound.og", REPLAY_ORACLE_GENERAL, false, 6, &t), 0);
	assert_int_equal(t.page_accesses, 6);
	assert_int_equal(t.total_pages, 5);
	replay_trace_free(&t);
	assert_int_equal(load_bound("bound.og", REPLAY_ORACLE_GENERAL, false, 5, &t), -1);
	snprintf(want, sizeof(want),
		 "%s: record 3: a replay would read more than 5 pages (20 KiB), the bound of one replay; -n 2 replays the requests before it",
		 path_of("bound.og"));
	assert_string_equal(err, want);
	/* the first record over it: no -n to name */
	assert_int_equal(load_bound("bound.og", REPLAY_ORACLE_GENERAL, false, 2, &t), -1);
	snprintf(want, sizeof(want),
		 "%s: record 1: a replay would read more than 2 pages (8 KiB), the bound of one replay",
		 path_of("bound.og"));
	assert_string_equal(err, want);
	/* as objects, a request is a page */
	assert_int_equal(load_bound("bound.og", REPLAY_ORACLE_GENERAL, true, 3, &t), 0);
	assert_int_equal(t.page_accesses, 3);
	replay_trace_free(&t);
	/* -n stops the read before the bound is met */
	{
		struct replay_load_opts o = { .type = REPLAY_ORACLE_GENERAL, .max_reqs = 1,
					      .max_page_accesses = 3 };

		replay_params_default(&o.params);
		assert_int_equal(replay_trace_load(path_of("bound.og"), &o, &t, err, sizeof(err)), 0);
		assert_int_equal(t.page_accesses, 3);
		replay_trace_free(&t);
	}

	/* lackey: inside an access, at the page that passes it (2 + 2 pages, bound 3) */
	write_text("bound.lackey", " L 00000ff8,16\n S 00002ffc,8\n");
	assert_int_equal(load_bound("bound.lackey", REPLAY_LACKEY, false, 4, &t), 0);
	assert_int_equal(t.page_accesses, 4);
	replay_trace_free(&t);
	assert_int_equal(load_bound("bound.lackey", REPLAY_LACKEY, false, 3, &t), -1);
	snprintf(want, sizeof(want),
		 "%s: line 2: a replay would read more than 3 pages (12 KiB), the bound of one replay; -n 3 replays the requests before it",
		 path_of("bound.lackey"));
	assert_string_equal(err, want);

	/* the bound a replay through the kernel model has: 4 TiB of pages */
	assert_int_equal(REPLAY_MAX_PAGE_ACCESSES, 1ULL << 30);
}

static void test_pagetrace(void **state)
{
	static const struct want w[] = { { 9, 1, false }, { 0x10, 1, true }, { 9, 1, true } };
	static const char pt[] = "vtime,page,op\n1,9,L\n5,0x10,S\n6,9,M\n";
	struct replay_trace t;

	write_gz("a.pages.gz", pt, strlen(pt));
	assert_int_equal(load(path_of("a.pages.gz"), REPLAY_PAGETRACE, NULL, false, &t), 0);
	assert_seq(&t, w, 3);
	replay_trace_free(&t);
}

static void test_malformed(void **state)
{
	unsigned char b[8192 + 64], z[256];
	size_t n;

	n = put_og(b, 1, 1, 4096, -1);
	write_file("trunc.og", b, n + 10);
	expect_err("trunc.og", REPLAY_ORACLE_GENERAL, NULL, "record 2: truncated: 10 of 24 bytes");
	put_og(b, 1, 1, 4096, 1);
	write_file("next.og", b, 24);
	expect_err("next.og", REPLAY_ORACLE_GENERAL, NULL,
		   "record 1: next_access_vtime 1 is not after this record");
	put_og(b, 1, 1, 0, -1);
	write_file("zero.og", b, 24);
	expect_err("zero.og", REPLAY_ORACLE_GENERAL, NULL, "no requests in 1 records");
	write_file("empty.og", b, 0);
	expect_err("empty.og", REPLAY_ORACLE_GENERAL, NULL, "no requests in 0 records");
	expect_err("missing.og", REPLAY_ORACLE_GENERAL, NULL, "No such file or directory");

	put_lcs_header(b, 1);
	write_file("short.lcs", b, 100);
	expect_err("short.lcs", REPLAY_LCS, NULL, "lcs header: truncated: 100 of 8192 bytes");
	b[8184] = 0;
	write_file("magic.lcs", b, 8192);
	expect_err("magic.lcs", REPLAY_LCS, NULL, "lcs header: bad magic (not an lcs trace)");
	put_lcs_header(b, 9);
	write_file("v9.lcs", b, 8192);
	expect_err("v9.lcs", REPLAY_LCS, NULL, "lcs header: version 9 (1 to 8 are known)");
	put_lcs_header(b, 3);
	memset(b + 8192, 0xff, 36);
	write_file("neg.lcs", b, 8192 + 36);
	expect_err("neg.lcs", REPLAY_LCS, NULL, "record 1: negative object size -1");
	memset(b + 8192, 0, 36);
	b[8192 + 12 + 5] = 2;	/* 2 << 40 */
	memset(b + 8192 + 28, 0xff, 8);
	write_file("huge.lcs", b, 8192 + 36);
	expect_err("huge.lcs", REPLAY_LCS, NULL, "record 1: object size 2199023255552 is over 1 TiB");

#define CSV_T "obj-id-col=2, obj-size-col=3, time-col=1, op-col=4"
	write_text("a.csv", "1,5,4096,get\n2,x5,4096,get\n");
	expect_err("a.csv", REPLAY_CSV, CSV_T,
		   "line 2: object id 'x5' is not an unsigned decimal number (obj-id-is-num=false hashes other ids)");
	write_text("b.csv", "1,5,4096,get\n2,6\n");
	expect_err("b.csv", REPLAY_CSV, CSV_T, "line 2: 2 fields, column 4 is needed");
	write_text("c.csv", "1,5,-3,get\n");
	expect_err("c.csv", REPLAY_CSV, CSV_T,
		   "line 1: object size '-3' is not an unsigned decimal number");
	write_text("h.csv", "1,5,1099511627777,get\n");
	expect_err("h.csv", REPLAY_CSV, CSV_T, "line 1: object size 1099511627777 is over 1 TiB");
	write_text("d.csv", "t1,5,3,get\n");
	expect_err("d.csv", REPLAY_CSV, CSV_T, "line 1: time 't1' is not a number");
	write_text("e.csv", "1,5,3,delete\n");
	expect_err("e.csv", REPLAY_CSV, CSV_T, "line 1: operation 'delete' is not a read or a write");
	write_text("f.csv", "1,5,3,get\n1,18446744073709551616,3,get\n");
	expect_err("f.csv", REPLAY_CSV, CSV_T,
		   "line 2: object id '18446744073709551616' is not an unsigned decimal number (obj-id-is-num=false hashes other ids)");
	write_text("g.csv", "time,id,size,op\n1,5,3,get\n");
	expect_err("g.csv", REPLAY_CSV, CSV_T,
		   "line 1: object id 'id' is not an unsigned decimal number (a header line? -t has-header=true)");

	write_text("a.txt", "1\n\n2\n");
	expect_err("a.txt", REPLAY_TXT, NULL, "line 2: empty line");
	write_text("c.txt", "\x01" "7\tx\n");
	expect_err("c.txt", REPLAY_TXT, NULL,
		   "line 1: object id '?7?x' is not an unsigned decimal number (obj-id-is-num=false hashes other ids)");
	write_text("b.txt", "1\n*\n");
	expect_err("b.txt", REPLAY_TXT, NULL,
		   "line 2: object id '*' is not an unsigned decimal number (obj-id-is-num=false hashes other ids)");

	write_text("a.lackey", " L 1000,4\n X 1000,4\n");
	expect_err("a.lackey", REPLAY_LACKEY, NULL,
		   "line 2: not a lackey record (\"I  addr,size\", \" L|S|M addr,size\")");
	write_text("b.lackey", " L 10g0,4\n");
	expect_err("b.lackey", REPLAY_LACKEY, NULL, "line 1: address is not hexadecimal");
	write_text("c.lackey", " S 1000,0\n");
	expect_err("c.lackey", REPLAY_LACKEY, NULL, "line 1: size is not a positive decimal number");
	write_text("d.lackey", " S ffffffffffffffff,2\n");
	expect_err("d.lackey", REPLAY_LACKEY, NULL,
		   "line 1: access runs past the end of the address space");

	write_text("a.pages", "1,2,L\n1,3,L\n");
	expect_err("a.pages", REPLAY_PAGETRACE, NULL,
		   "line 2: vtime 1 is not after the previous record's 1");
	write_text("b.pages", "1,2\n");
	expect_err("b.pages", REPLAY_PAGETRACE, NULL,
		   "line 1: 2 fields, a page record has 3 (vtime,page,op)");
	write_text("c.pages", "1,2,X\n");
	expect_err("c.pages", REPLAY_PAGETRACE, NULL, "line 1: op 'X' is not L, S or M");

	/* compressed streams cut short, or not compressed at all */
	n = ZSTD_compress(z, sizeof(z), "1\n2\n3\n", 6, 3);
	write_file("cut.txt.zst", z, n - 3);
	expect_err("cut.txt.zst", REPLAY_TXT, NULL,
		   "zstd: truncated: the stream ends inside a frame");
	write_text("plain.txt.zst", "1\n2\n");
	expect_err("plain.txt.zst", REPLAY_TXT, NULL, "zstd: Unknown frame descriptor");
	write_gz("cut.txt.gz", "1\n2\n3\n4\n5\n6\n7\n8\n", 16);
	{
		FILE *f = fopen(path_of("cut.txt.gz"), "rb");

		n = fread(z, 1, sizeof(z), f);
		fclose(f);
	}
	write_file("cut.txt.gz", z, n - 6);
	expect_err("cut.txt.gz", REPLAY_TXT, NULL, "gzip: truncated: unexpected end of file");
	write_text("plain.txt.gz", "1\n2\n");
	expect_err("plain.txt.gz", REPLAY_TXT, NULL, "gzip: not in gzip format");
}

static void expect_params_err(const char *s, enum replay_type type, const char *what)
{
	struct replay_params p;

	replay_params_default(&p);
	assert_int_equal(replay_params_parse(s, type, &p, err, sizeof(err)), -1);
	assert_string_equal(err, what);
}

static void test_params(void **state)
{
	struct replay_params p;
	enum replay_type type;

	replay_params_default(&p);
	assert_int_equal(replay_params_parse("time-col=2, obj-id-col=5, obj-size-col=4, delimiter=,, has-header=true",
					     REPLAY_CSV, &p, err, sizeof(err)), 0);
	assert_int_equal(p.time_col, 2);
	assert_int_equal(p.obj_id_col, 5);
	assert_int_equal(p.obj_size_col, 4);
	assert_int_equal(p.delimiter, ',');
	assert_true(p.has_header);
	expect_params_err("obj-id-col=1, ttl-col=2", REPLAY_CSV,
			  "-t: ttl-col is libCacheSim's but not supported here");
	expect_params_err("obj-id-col=1, colour=2", REPLAY_CSV, "-t: unknown key 'colour'");
	expect_params_err("obj-id-col=0", REPLAY_CSV,
			  "-t: obj-id-col: '0' is not a column number (1-based, up to 1024)");
	expect_params_err("has-header=maybe", REPLAY_CSV, "-t: has-header: 'maybe' is not true or false");
	expect_params_err("obj-id-col=1", REPLAY_TXT, "-t: obj-id-col does not apply to txt traces");
	expect_params_err("time-col=1", REPLAY_CSV, "csv traces need -t obj-id-col=N");
	expect_params_err("obj-id-col", REPLAY_CSV, "-t: 'obj-id-col' is not key=value");
	expect_params_err("obj-id-col=1, delimiter=ab", REPLAY_CSV,
			  "-t: delimiter is one character, then ',' or the end");
	assert_int_equal(replay_type_parse("ORACLEGENERAL", &type, err, sizeof(err)), 0);
	assert_int_equal(type, REPLAY_ORACLE_GENERAL);
	assert_int_equal(replay_type_parse("vscsi", &type, err, sizeof(err)), -1);
	assert_string_equal(err, "trace type 'vscsi' is libCacheSim's but not read here (types: oracleGeneral, lcs, csv, txt, lackey, pagetrace)");
}

/* ---- the exact LRU ---- */

/* A txt trace of @ids, loaded. */
static void txt_trace(const char *name, const uint64_t *ids, size_t n, struct replay_trace *t)
{
	char *s = malloc(n * 24 + 1), *p = s;
	size_t i;

	assert_non_null(s);
	for (i = 0; i < n; i++)
		p += sprintf(p, "%llu\n", (unsigned long long)ids[i]);
	write_file(name, s, (size_t)(p - s));
	free(s);
	assert_int_equal(load(path_of(name), REPLAY_TXT, NULL, false, t), 0);
}

static void test_lru_textbook(void **state)
{
	/* Silberschatz's reference string: LRU faults 12 with 3 frames, 8 with 4 */
	static const uint64_t ref[] = { 7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1 };
	static const uint64_t sizes[] = { 1, 2, 3, 4, 5, 6, 100 };
	static const uint64_t faults[] = { 20, 17, 12, 8, 7, 6, 6 };
	struct replay_counts out[7], one;
	struct replay_trace t;
	int i;

	txt_trace("book.txt", ref, 20, &t);
	assert_int_equal(lru_exact_run(&t, sizes, 7, out), 0);
	for (i = 0; i < 7; i++) {
		assert_int_equal(out[i].size, sizes[i]);
		assert_int_equal(out[i].requests, 20);
		assert_int_equal(out[i].misses, faults[i]);
		assert_int_equal(lru_exact_sim(&t, sizes[i], &one), 0);
		assert_int_equal(one.misses, faults[i]);
	}
	replay_trace_free(&t);
}

/* One pass of stack distances and one simulation per size agree. */
static void test_lru_stack_vs_sim(void **state)
{
	uint64_t ids[20000], sizes[12], x = 88172645463325252ULL;
	struct replay_counts out[12], one;
	struct replay_trace t;
	int i;

	for (i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* a skewed mix: small hot ids and a long tail */
		ids[i] = x % 4 ? x % 64 : x % 5000;
	}
	txt_trace("mix.txt", ids, 20000, &t);
	for (i = 0; i < 12; i++)
		sizes[i] = 1ULL << i;
	assert_int_equal(lru_exact_stack(&t, sizes, 12, out), 0);
	for (i = 0; i < 12; i++) {
		assert_int_equal(lru_exact_sim(&t, sizes[i], &one), 0);
		assert_int_equal(out[i].misses, one.misses);
		if (i)
			assert_true(out[i].misses <= out[i - 1].misses);
	}
	replay_trace_free(&t);
}

/* Bytes: the too-big object is never cached, a hit keeps the inserted size. */
static void test_lru_bytes(void **state)
{
	unsigned char b[24 * 8];
	struct replay_trace t;
	struct replay_counts c;
	size_t n = 0;

	n += put_og(b + n, 0, 1, 60, -1);	/* miss: [1:60] */
	n += put_og(b + n, 0, 2, 150, -1);	/* miss, bigger than 100: not cached */
	n += put_og(b + n, 0, 1, 90, -1);	/* hit, still 60 bytes */
	n += put_og(b + n, 0, 3, 40, -1);	/* miss: [3:40 1:60] = 100 */
	n += put_og(b + n, 0, 1, 60, -1);	/* hit */
	n += put_og(b + n, 0, 4, 10, -1);	/* miss: evicts 3 (LRU), [4 1] */
	n += put_og(b + n, 0, 3, 40, -1);	/* miss: [3 4 1] = 110 > 100: evicts 1 */
	n += put_og(b + n, 0, 1, 60, -1);	/* miss */
	write_file("bytes.og", b, n);
	assert_int_equal(load(path_of("bytes.og"), REPLAY_ORACLE_GENERAL, NULL, false, &t), 0);
	assert_int_equal(lru_exact_run(&t, (uint64_t[]){ 100 }, 1, &c), 0);
	assert_int_equal(c.requests, 8);
	assert_int_equal(c.misses, 6);
	assert_int_equal(c.bytes, 60 + 150 + 90 + 40 + 60 + 10 + 40 + 60);
	assert_int_equal(c.miss_bytes, 60 + 150 + 40 + 10 + 40 + 60);
	replay_trace_free(&t);
}

/* libCacheSim's LRU, --ignore-obj-size 1, on cloudPhysicsIO in three formats. */
static void test_cloudphysics_parity(void **state)
{
	static const struct {
		const char *file;
		enum replay_type type;
		const char *params;
	} f[] = {
		{ DATA_DIR "cloudPhysicsIO.oracleGeneral.bin.zst", REPLAY_ORACLE_GENERAL, NULL },
		{ DATA_DIR "cloudPhysicsIO.csv.zst", REPLAY_CSV,
		  "time-col=2, obj-id-col=5, obj-size-col=4, delimiter=,, has-header=true" },
		{ DATA_DIR "cloudPhysicsIO.txt.zst", REPLAY_TXT, NULL },
	};
	/* cachesim's auto sizes and the exact LRU's misses at each */
	static const uint64_t sizes[] = { 48, 146, 489, 1469, 4897, 9794, 19589, 39179 };
	static const uint64_t misses[] = { 102823, 98784, 95420, 94544, 91657, 82547, 72063, 48999 };
	uint64_t got[REPLAY_MAX_SIZES];
	struct replay_counts out[8];
	struct replay_trace t;
	size_t i;
	int k;

	for (i = 0; i < 3; i++) {
		assert_int_equal(load(f[i].file, f[i].type, f[i].params, true, &t), 0);
		assert_int_equal(t.nr_reqs, 113872);
		assert_int_equal(t.nr_objs, 48974);
		assert_int_equal(replay_sizes_parse("0.1", &t, got, err, sizeof(err)), 1);
		assert_int_equal(got[0], 4897);
		assert_int_equal(lru_exact_run(&t, got, 1, out), 0);
		assert_int_equal(out[0].misses, 91657);
		assert_int_equal(out[0].requests, 113872);
		assert_int_equal(replay_sizes_parse("auto", &t, got, err, sizeof(err)), 8);
		assert_memory_equal(got, sizes, sizeof(sizes));
		assert_int_equal(lru_exact_run(&t, got, 8, out), 0);
		for (k = 0; k < 8; k++)
			assert_int_equal(out[k].misses, misses[k]);
		replay_trace_free(&t);
	}
}

static void test_sizes(void **state)
{
	uint64_t s[REPLAY_MAX_SIZES];
	unsigned char b[24];
	struct replay_trace t;

	put_og(b, 0, 1, 100 << 20, -1);
	write_file("big.og", b, 24);
	assert_int_equal(load(path_of("big.og"), REPLAY_ORACLE_GENERAL, NULL, false, &t), 0);
	assert_int_equal(replay_sizes_parse("32mb,1GiB,4k,32MB,0.5", &t, s, err, sizeof(err)), 4);
	assert_int_equal(s[0], 4096);
	assert_int_equal(s[1], 32 << 20);
	assert_int_equal(s[2], 50 << 20);
	assert_int_equal(s[3], 1 << 30);
	assert_int_equal(replay_sizes_parse("auto", &t, s, err, sizeof(err)), 8);
	assert_int_equal(s[0], (uint64_t)(0.001 * (100 << 20)));
	assert_int_equal(replay_sizes_parse("12q", &t, s, err, sizeof(err)), -1);
	assert_string_equal(err, "--sizes: '12q' is not a size (a count, a fraction, 32mb, auto)");
	assert_int_equal(replay_sizes_parse("1.5", &t, s, err, sizeof(err)), -1);
	assert_string_equal(err, "--sizes: '1.5' is not a fraction of the working set (0 < f < 1)");
	assert_int_equal(replay_sizes_parse("4,,5", &t, s, err, sizeof(err)), -1);
	assert_string_equal(err, "--sizes: empty size in '4,,5'");
	replay_trace_free(&t);
	assert_int_equal(load(path_of("big.og"), REPLAY_ORACLE_GENERAL, NULL, true, &t), 0);
	assert_int_equal(replay_sizes_parse("1mb", &t, s, err, sizeof(err)), -1);
	assert_string_equal(err, "--sizes: '1mb' is in bytes, but sizes count objects here (--ignore-obj-size, or a trace without sizes)");
	assert_int_equal(replay_sizes_parse("auto", &t, s, err, sizeof(err)), -1);
	assert_string_equal(err, "--sizes auto: the working set (1 objects) is too small for any of its fractions");
	assert_int_equal(replay_sizes_parse("0.1", &t, s, err, sizeof(err)), -1);
	assert_string_equal(err, "--sizes: 0.1 of the working set (1 objects) is 0");
	replay_trace_free(&t);
}

/* ---- the kernel's classic LRU ---- */

static void linux_run(const struct replay_trace *t, enum replay_mode mode, uint64_t max,
		      struct replay_linux_result *r)
{
	int ret = replay_linux_run(t, mode, max, r, NULL);

	if (ret)
		fprintf(stderr, "replay_linux_run: %s\n", r->error);
	assert_int_equal(ret, 0);
	assert_int_equal(r->invariant_violations, 0);
	assert_int_equal(r->c.requests, t->nr_reqs);
}

/*
 * A loop over 2x memory.max: LRU's worst case, and the kernel's too.
 * No page is used twice while resident, so none is activated; every
 * page of the later passes refaults through its shadow, each from
 * further back than the (empty) workingset, so none is activated then.
 */
static void test_classic_scan(void **state)
{
	enum { PAGES = 1024, PASSES = 3 };
	static uint64_t ids[PAGES * PASSES];
	struct replay_linux_result r;
	struct replay_trace t;
	int i, mode;

	for (i = 0; i < PAGES * PASSES; i++)
		ids[i] = (uint64_t)(i % PAGES);
	txt_trace("scan.txt", ids, PAGES * PASSES, &t);
	for (mode = REPLAY_MODE_FD; mode <= REPLAY_MODE_MMAP; mode++) {
		bool file = mode == REPLAY_MODE_FD;

		linux_run(&t, (enum replay_mode)mode, PAGES / 2, &r);
		assert_int_equal(r.c.misses, PAGES * PASSES);
		assert_int_equal(r.page_misses, PAGES * PASSES);
		assert_int_equal(r.refault[file], PAGES * (PASSES - 1));
		assert_int_equal(r.activate[file], 0);
		assert_true(r.resident_max <= PAGES / 2);
		if (!file)
			assert_int_equal(r.pswpin, PAGES * (PASSES - 1));
	}
	replay_trace_free(&t);
}

/*
 * A hot set used twice up front (so it is activated), then a long scan
 * of pages used once, with the hot set used again after every 512 scan
 * pages.  Between two uses of a hot page 611 other pages are used, more
 * than the 400 pages of memory.max: the exact LRU misses every hot use,
 * while the kernel keeps the hot set on the active list and reclaims the
 * scan from the inactive list: only the scan and the first use miss.
 */
static void test_classic_hot_set(void **state)
{
	enum { HOT = 100, SCAN = 512, ROUNDS = 8 };
	static uint64_t ids[2 * HOT + ROUNDS * (SCAN + HOT)];
	struct replay_linux_result r;
	struct replay_counts exact;
	struct replay_trace t;
	uint64_t next = 1000;
	size_t n = 0;
	int i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < HOT; i++)
			ids[n++] = (uint64_t)i;
	for (k = 0; k < ROUNDS; k++) {
		for (i = 0; i < SCAN; i++)
			ids[n++] = next++;
		for (i = 0; i < HOT; i++)
			ids[n++] = (uint64_t)i;
	}
	txt_trace("hot.txt", ids, n, &t);
	assert_int_equal(lru_exact_sim(&t, 400, &exact), 0);
	assert_int_equal(exact.misses, HOT + ROUNDS * (SCAN + HOT));
	linux_run(&t, REPLAY_MODE_FD, 400, &r);
	assert_int_equal(r.c.misses, HOT + ROUNDS * SCAN);
	assert_int_equal(r.refault[1], 0);
	replay_trace_free(&t);
}

/*
 * Writes dirty the pages; the replay's writeback cleans the oldest above
 * a tenth of memory.max, so that reclaim finds clean pages to free.
 */
static void test_classic_writes(void **state)
{
	enum { PAGES = 512 };
	char *csv = malloc(PAGES * 3 * 16), *p = csv;
	struct replay_linux_result r;
	struct replay_trace t;
	int i;

	assert_non_null(csv);
	for (i = 0; i < PAGES * 3; i++)
		p += sprintf(p, "%d,%s\n", i % PAGES, i % 2 ? "w" : "r");
	write_file("w.csv", csv, (size_t)(p - csv));
	free(csv);
	assert_int_equal(load(path_of("w.csv"), REPLAY_CSV, "obj-id-col=1, op-col=2", false, &t), 0);
	assert_true(t.has_writes);
	linux_run(&t, REPLAY_MODE_FD, PAGES / 4, &r);
	assert_int_equal(r.c.misses, PAGES * 3);
	assert_true(r.pgsteal >= PAGES * 3 - PAGES / 4);
	/* every written page but the last tenth of memory.max was written back */
	assert_int_equal(r.written_back, PAGES * 3 / 2 - PAGES / 4 / 10);
	assert_int_equal(r.throttled, 0);
	replay_trace_free(&t);
}

/*
 * Why the command replays nothing below REPLAY_MIN_PAGES (32): folios in
 * the CPU's lru_add batch (31) are not on the LRU, reclaim scans nothing
 * and the first eviction fails.  Should the model ever drain the batch
 * from memcg reclaim, this fails and the minimum can go.
 */
static void test_classic_min_pages(void **state)
{
	static uint64_t ids[200];
	struct replay_linux_result r;
	struct replay_trace t;
	int i;

	for (i = 0; i < 200; i++)
		ids[i] = (uint64_t)(i % 100);
	txt_trace("min.txt", ids, 200, &t);
	assert_int_equal(replay_linux_run(&t, REPLAY_MODE_FD, 30, &r, NULL), -1);
	assert_string_equal(r.error, "request 31: out of memory with memory.max 30 pages");
	assert_int_equal(r.invariant_violations, 0);
	linux_run(&t, REPLAY_MODE_FD, 32, &r);
	assert_int_equal(r.c.misses, 200);
	replay_trace_free(&t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle_general),
		cmocka_unit_test(test_lcs),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_txt),
		cmocka_unit_test(test_lackey),
		cmocka_unit_test(test_pagetrace),
		cmocka_unit_test(test_page_bound),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_lru_textbook),
		cmocka_unit_test(test_lru_stack_vs_sim),
		cmocka_unit_test(test_lru_bytes),
		cmocka_unit_test(test_cloudphysics_parity),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_classic_scan),
		cmocka_unit_test(test_classic_hot_set),
		cmocka_unit_test(test_classic_writes),
		cmocka_unit_test(test_classic_min_pages),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
