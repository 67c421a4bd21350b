// SPDX-License-Identifier: MIT
/*
 * Trace readers: libCacheSim's oracleGeneral and lcs records, CSV and
 * plain text as its cachesim reads them, valgrind lackey's memory trace
 * and lrulab's own page trace.  Formats are described byte by byte in
 * the README; the code is ours.
 *
 * Every record is checked, and the first bad one stops the load with one
 * line naming the file, the record (binary) or line (text) and what was
 * wrong.  A binary record cut short by the end of the file is an error,
 * and so is a text record with too few fields; a last line without its
 * newline is read like any other line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "replay-internal.h"

static const char *const type_names[NR_REPLAY_TYPES] = {
	[REPLAY_ORACLE_GENERAL] = "oracleGeneral",
	[REPLAY_LCS] = "lcs",
	[REPLAY_CSV] = "csv",
	[REPLAY_TXT] = "txt",
	[REPLAY_LACKEY] = "lackey",
	[REPLAY_PAGETRACE] = "pagetrace",
};

/* cachesim's other types: named so that the error says what is missing */
static const char *const foreign_types[] = {
	"binary", "vscsi", "twr", "twrNS", "oracleGeneralOpNS", "oracleSysTwrNS",
	"oracleWiki16u", "oracleWiki19u", "oracleAkamai", "oracleCF1", "valpinTrace",
};

const char *replay_type_name(enum replay_type type)
{
	return type < NR_REPLAY_TYPES ? type_names[type] : "?";
}

int replay_type_parse(const char *s, enum replay_type *type, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < NR_REPLAY_TYPES; i++)
		if (!strcasecmp(s, type_names[i])) {
			*type = (enum replay_type)i;
			return 0;
		}
	for (i = 0; i < sizeof(foreign_types) / sizeof(foreign_types[0]); i++)
		if (!strcasecmp(s, foreign_types[i]))
			return replay_err(err, errlen,
					  "trace type '%s' is libCacheSim's but not read here (types: oracleGeneral, lcs, csv, txt, lackey, pagetrace)",
					  s);
	return replay_err(err, errlen,
			  "unknown trace type '%s' (types: oracleGeneral, lcs, csv, txt, lackey, pagetrace)",
			  s);
}

void replay_params_default(struct replay_params *p)
{
	memset(p, 0, sizeof(*p));
	p->delimiter = ',';
	p->obj_id_is_num = true;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "true") || !strcmp(v, "1")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(v, "false") || !strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	return -1;
}

static int parse_col(const char *v, unsigned int *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (!isdigit((unsigned char)*v) || *end || errno || n < 1 || n > 1024)
		return -1;
	*out = (unsigned int)n;
	return 0;
}

/* Copy [p, q) into @dst, trimmed of blanks. */
static void trim_copy(char *dst, size_t cap, const char *p, const char *q)
{
	size_t n;

	while (p < q && isspace((unsigned char)*p))
		p++;
	while (q > p && isspace((unsigned char)q[-1]))
		q--;
	n = (size_t)(q - p) < cap - 1 ? (size_t)(q - p) : cap - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

static int params_set(const char *key, const char *val, enum replay_type type,
		      struct replay_params *p, char *err, size_t errlen)
{
	static const char *const unsupported[] = {
		"ttl-col", "tenant-col", "cnt-col", "feature-cols", "block-size", "format",
	};
	bool csv = type == REPLAY_CSV;
	unsigned int *col = NULL;
	size_t i;

	if (!strcmp(key, "obj-id-is-num")) {
		if (type != REPLAY_CSV && type != REPLAY_TXT)
			goto not_here;
		if (parse_bool(val, &p->obj_id_is_num))
			goto bad_bool;
		return 0;
	}
	if (!strcmp(key, "has-header") || !strcmp(key, "header")) {
		if (!csv)
			goto not_here;
		if (parse_bool(val, &p->has_header))
			goto bad_bool;
		return 0;
	}
	if (!strcmp(key, "obj-id-col"))
		col = &p->obj_id_col;
	else if (!strcmp(key, "obj-size-col") || !strcmp(key, "size-col"))
		col = &p->obj_size_col;
	else if (!strcmp(key, "time-col"))
		col = &p->time_col;
	else if (!strcmp(key, "op-col"))
		col = &p->op_col;
	if (col) {
		if (!csv)
			goto not_here;
		if (parse_col(val, col))
			return replay_err(err, errlen,
					  "-t: %s: '%s' is not a column number (1-based, up to 1024)",
					  key, val);
		return 0;
	}
	for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (!strcmp(key, unsupported[i]))
			return replay_err(err, errlen, "-t: %s is libCacheSim's but not supported here",
					  key);
	return replay_err(err, errlen, "-t: unknown key '%s'", key);
not_here:
	return replay_err(err, errlen, "-t: %s does not apply to %s traces", key,
			  replay_type_name(type));
bad_bool:
	return replay_err(err, errlen, "-t: %s: '%s' is not true or false", key, val);
}

/*
 * "key=value, key=value".  The delimiter's value is the one character
 * after its '=' (so "delimiter=,," is a comma), or "\t" for a tab.
 */
int replay_params_parse(const char *s, enum replay_type type, struct replay_params *p,
			char *err, size_t errlen)
{
	const char *q;
	char key[64], val[256];

	while (*s) {
		while (isspace((unsigned char)*s) || *s == ',')
			s++;
		if (!*s)
			break;
		q = strchr(s, '=');
		if (!q || memchr(s, ',', (size_t)(q - s)))
			return replay_err(err, errlen, "-t: '%.*s' is not key=value",
					  (int)strcspn(s, ","), s);
		trim_copy(key, sizeof(key), s, q);
		s = q + 1;
		if (!strcmp(key, "delimiter")) {
			if (type != REPLAY_CSV)
				return replay_err(err, errlen, "-t: delimiter does not apply to %s traces",
						  replay_type_name(type));
			if (s[0] == '\\' && s[1] == 't') {
				p->delimiter = '\t';
				s += 2;
			} else if (*s && *s != '\n' && *s != '"') {
				p->delimiter = *s++;
			} else {
				return replay_err(err, errlen, "-t: delimiter needs one character");
			}
			while (*s == ' ')
				s++;
			if (*s && *s != ',')
				return replay_err(err, errlen,
						  "-t: delimiter is one character, then ',' or the end");
			continue;
		}
		q = s + strcspn(s, ",");
		trim_copy(val, sizeof(val), s, q);
		s = q;
		if (!*val)
			return replay_err(err, errlen, "-t: %s has no value", key);
		if (params_set(key, val, type, p, err, errlen))
			return -1;
	}
	if (type == REPLAY_CSV && !p->obj_id_col)
		return replay_err(err, errlen, "csv traces need -t obj-id-col=N");
	if (type == REPLAY_CSV && (p->delimiter == '.' || isdigit((unsigned char)p->delimiter)))
		return replay_err(err, errlen, "-t: delimiter '%c' would split numbers",
				  p->delimiter);
	return 0;
}

/* ---- field parsing ---- */

/* A decimal u64 that is the whole of [p, p + n). */
static bool parse_u64(const char *p, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!n || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)p[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool parse_hex(const char *p, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!n || n > 16)
		return false;
	for (i = 0; i < n; i++) {
		int c = tolower((unsigned char)p[i]), d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

/* A valid_time() field's value */
static double field_time(const char *p, size_t n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), p);
	return strtod(buf, NULL);
}

/* A time stamp: digits, optionally a fraction. */
static bool valid_time(const char *p, size_t n)
{
	size_t i = 0, digits = 0;

	while (i < n && isdigit((unsigned char)p[i]))
		i++, digits++;
	if (i < n && p[i] == '.')
		for (i++; i < n && isdigit((unsigned char)p[i]); i++)
			digits++;
	return digits && i == n;
}

/* Ids that are not numbers are hashed, as libCacheSim does (FNV-1a, then mixed). */
static uint64_t hash_str(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ULL;
	return replay_hash64(h);
}

/*
 * A request's operation: reads, and the writes of key-value, block
 * (SCSI READ/WRITE opcodes, as cloudPhysicsIO's "28"/"2a") and page
 * traces.  Anything else, deletes included, is not replayed: an error.
 */
static int parse_op(const char *p, size_t n, bool *write)
{
	static const char *const reads[] = {
		"r", "read", "get", "gets", "l", "load", "28", "88", "0x28", "0x88",
	};
	static const char *const writes[] = {
		"w", "write", "set", "add", "replace", "cas", "append", "prepend", "s",
		"store", "update", "put", "2a", "8a", "0x2a", "0x8a",
	};
	size_t i;

	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (strlen(reads[i]) == n && !strncasecmp(p, reads[i], n)) {
			*write = false;
			return 0;
		}
	for (i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		if (strlen(writes[i]) == n && !strncasecmp(p, writes[i], n)) {
			*write = true;
			return 0;
		}
	return -1;
}

/* ---- binary readers ---- */

static inline uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_u64(const unsigned char *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

#define LCS_MAGIC	0x123456789abcdef0ULL
/* Larger objects are not in any trace: a corrupt field, and pages would overflow. */
#define MAX_OBJ_SIZE	(1ULL << 40)
#define LCS_HEADER	8192

/*
 * The last field of every libCacheSim record: the 1-based number of the
 * object's next request, -1 (or INT64_MAX) for none.  Anything at or
 * before this record cannot be one.
 */
static int check_next(struct replay_stream *s, uint64_t rec, int64_t next)
{
	if (next == -1 || next == INT64_MAX || (next > 0 && (uint64_t)next > rec))
		return 0;
	return replay_err(s->err, s->errlen,
			  "%s: record %llu: next_access_vtime %lld is not after this record",
			  s->path, (unsigned long long)rec, (long long)next);
}

/*
 * Why replay_emit() refused the request of record (or line) @n: out of
 * memory, or the page bound, with the -n that stays within it.
 */
static int emit_err(struct replay_stream *s, const char *what, uint64_t n, int why,
		    const struct replay_load_opts *o, const struct replay_trace *t)
{
	static const char units[] = "KMGT";
	uint64_t kib = o->max_page_accesses * 4;
	char cut[80] = "";
	int u = 0;

	if (why != REPLAY_EMIT_BOUND)
		return replay_err(s->err, s->errlen, "%s: %s %llu: out of memory", s->path,
				  what, (unsigned long long)n);
	while (u < 3 && kib >= 1024 && !(kib & 1023)) {
		kib >>= 10;
		u++;
	}
	if (t->nr_reqs)
		snprintf(cut, sizeof(cut), "; -n %zu replays the requests before it", t->nr_reqs);
	return replay_err(s->err, s->errlen,
			  "%s: %s %llu: a replay would read more than %llu pages (%llu %ciB), the bound of one replay%s",
			  s->path, what, (unsigned long long)n,
			  (unsigned long long)o->max_page_accesses, (unsigned long long)kib,
			  units[u], cut);
}

static int read_binary(struct replay_stream *s, const struct replay_load_opts *o,
		       struct replay_sink *k, struct replay_trace *t)
{
	static const unsigned int lcs_bytes[9] = { 0, 24, 28, 36, 40, 44, 52, 68, 100 };
	unsigned char rec[100];
	unsigned int version = 1, bytes = 24;
	uint64_t n = 0;
	long got;
	int ret;

	if (o->type == REPLAY_LCS) {
		unsigned char hdr[LCS_HEADER];

		got = rs_read(s, hdr, sizeof(hdr));
		if (got < 0)
			return -1;
		if (got < (long)sizeof(hdr))
			return replay_err(s->err, s->errlen,
					  "%s: lcs header: truncated: %ld of %d bytes", s->path,
					  got, LCS_HEADER);
		if (get_u64(hdr) != LCS_MAGIC || get_u64(hdr + LCS_HEADER - 8) != LCS_MAGIC)
			return replay_err(s->err, s->errlen,
					  "%s: lcs header: bad magic (not an lcs trace)", s->path);
		if (get_u64(hdr + 8) < 1 || get_u64(hdr + 8) > 8)
			return replay_err(s->err, s->errlen,
					  "%s: lcs header: version %llu (1 to 8 are known)", s->path,
					  (unsigned long long)get_u64(hdr + 8));
		version = (unsigned int)get_u64(hdr + 8);
		bytes = lcs_bytes[version];
		/* v2 and later carry an op; the replay reads every request */
		t->ops_unused = version >= 2;
	}
	while (!replay_sink_full(k)) {
		uint64_t id, size;
		int64_t next;

		got = rs_read(s, rec, bytes);
		if (got < 0)
			return -1;
		if (!got)
			break;
		n++;
		if (got < (long)bytes)
			return replay_err(s->err, s->errlen,
					  "%s: record %llu: truncated: %ld of %u bytes", s->path,
					  (unsigned long long)n, got, bytes);
		id = get_u64(rec + 4);
		if (version <= 2) {
			size = get_u32(rec + 12);
			next = (int64_t)get_u64(rec + bytes - 8);
		} else {
			int64_t ssize = (int64_t)get_u64(rec + 12);

			if (ssize < 0)
				return replay_err(s->err, s->errlen,
						  "%s: record %llu: negative object size %lld",
						  s->path, (unsigned long long)n, (long long)ssize);
			size = (uint64_t)ssize;
			next = (int64_t)get_u64(rec + 28);
		}
		if (size > MAX_OBJ_SIZE)
			return replay_err(s->err, s->errlen,
					  "%s: record %llu: object size %llu is over 1 TiB", s->path,
					  (unsigned long long)n, (unsigned long long)size);
		if (check_next(s, n, next))
			return -1;
		t->nr_records = n;
		/* the u32 clock time both layouts begin with: seconds in libCacheSim's traces */
		ret = replay_emit_at(k, id, size, false, (double)get_u32(rec));
		if (ret)
			return emit_err(s, "record", n, ret, o, t);
	}
	return 0;
}

/* ---- text readers ---- */

#define MAX_FIELDS 1024

struct fields {
	const char *p[MAX_FIELDS + 1];
	size_t n[MAX_FIELDS + 1];
	unsigned int nr;
};

/* Split @line at @delim, keeping at most MAX_FIELDS fields, each trimmed. */
static void split(char *line, size_t len, char delim, struct fields *f)
{
	const char *p = line, *end = line + len;

	f->nr = 0;
	for (;;) {
		const char *q = memchr(p, delim, (size_t)(end - p));
		const char *a = p, *b = q ? q : end;

		if (delim != ' ' && delim != '\t') {
			while (a < b && (*a == ' ' || *a == '\t'))
				a++;
			while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
				b--;
		}
		f->p[f->nr] = a;
		f->n[f->nr] = (size_t)(b - a);
		if (++f->nr == MAX_FIELDS || !q)
			return;
		p = q + 1;
	}
}

/* A field as an error line shows it: at most 40 bytes, unprintable ones as '?'. */
static const char *shown(const char *p, size_t n)
{
	static char buf[44];
	size_t i;

	if (n > 40)
		n = 40;
	for (i = 0; i < n; i++)
		buf[i] = isprint((unsigned char)p[i]) ? p[i] : '?';
	buf[n] = '\0';
	return buf;
}

#define line_err(s, ln, fmt, ...) \
	replay_err((s)->err, (s)->errlen, "%s: line %llu: " fmt, (s)->path, \
		   (unsigned long long)(ln), ##__VA_ARGS__)

static int field_id(struct replay_stream *s, uint64_t ln, const struct replay_params *p,
		    bool header_possible, const char *what, const char *v, size_t n, uint64_t *id)
{
	if (!p->obj_id_is_num) {
		if (!n)
			return line_err(s, ln, "empty %s", what);
		*id = hash_str(v, n);
		return 0;
	}
	if (!parse_u64(v, n, id))
		return line_err(s, ln, "%s '%s' is not an unsigned decimal number (%s)", what,
				shown(v, n),
				ln == 1 && header_possible ? "a header line? -t has-header=true" :
				"obj-id-is-num=false hashes other ids");
	return 0;
}

static int read_csv_line(struct replay_stream *s, uint64_t ln, char *line, size_t len,
			 const struct replay_params *p, struct fields *f, struct replay_sink *k)
{
	unsigned int need = p->obj_id_col;
	uint64_t id, size = 1;
	bool write = false;

	if (p->obj_size_col > need)
		need = p->obj_size_col;
	if (p->time_col > need)
		need = p->time_col;
	if (p->op_col > need)
		need = p->op_col;
	split(line, len, p->delimiter, f);
	if (f->nr < need)
		return line_err(s, ln, "%u fields, column %u is needed", f->nr, need);
	if (field_id(s, ln, p, !p->has_header, "object id", f->p[p->obj_id_col - 1],
		     f->n[p->obj_id_col - 1], &id))
		return -1;
	if (p->obj_size_col &&
	    !parse_u64(f->p[p->obj_size_col - 1], f->n[p->obj_size_col - 1], &size))
		return line_err(s, ln, "object size '%s' is not an unsigned decimal number",
				shown(f->p[p->obj_size_col - 1], f->n[p->obj_size_col - 1]));
	if (size > MAX_OBJ_SIZE)
		return line_err(s, ln, "object size %llu is over 1 TiB", (unsigned long long)size);
	if (p->time_col && !valid_time(f->p[p->time_col - 1], f->n[p->time_col - 1]))
		return line_err(s, ln, "time '%s' is not a number",
				shown(f->p[p->time_col - 1], f->n[p->time_col - 1]));
	if (p->op_col && parse_op(f->p[p->op_col - 1], f->n[p->op_col - 1], &write))
		return line_err(s, ln, "operation '%s' is not a read or a write",
				shown(f->p[p->op_col - 1], f->n[p->op_col - 1]));
	if (p->time_col)
		return replay_emit_at(k, id, size, write,
				      field_time(f->p[p->time_col - 1], f->n[p->time_col - 1]));
	return replay_emit(k, id, size, write);
}

static int read_txt_line(struct replay_stream *s, uint64_t ln, char *line, size_t len,
			 const struct replay_params *p, struct replay_sink *k)
{
	uint64_t id;

	if (!len)
		return line_err(s, ln, "empty line");
	if (field_id(s, ln, p, false, "object id", line, len, &id))
		return -1;
	/* text ids have no size: one unit each, as in libCacheSim */
	return replay_emit(k, id, 1, false);
}

/*
 * lackey: "I  ADDR,SIZE" (an instruction fetch, not replayed), " L ...",
 * " S ..." and " M ..." (a load, a store, a modify), ADDR in hex, SIZE
 * in decimal bytes.  An access that straddles pages touches each.
 * Valgrind's own messages ("==PID== ...") share the stream.  An access
 * is a few bytes up to a vector register's width; one over
 * LACKEY_MAX_SIZE is not a lackey record (each of its pages would be a
 * request, so an unbounded size would be an unbounded allocation).
 */
#define LACKEY_MAX_SIZE	65536ULL

static int read_lackey_line(struct replay_stream *s, uint64_t ln, char *line, size_t len,
			    struct replay_sink *k, struct replay_trace *t)
{
	const char *comma, *a;
	uint64_t addr, size, page, last;
	bool instr = len > 2 && line[0] == 'I' && line[1] == ' ' && line[2] == ' ';
	bool data = len > 3 && line[0] == ' ' && strchr("LSM", line[1]) && line[1] &&
		    line[2] == ' ';

	if (len >= 2 && line[0] == '=' && line[1] == '=') {
		t->nr_messages++;
		return 0;
	}
	if (!instr && !data)
		return line_err(s, ln, "not a lackey record (\"I  addr,size\", \" L|S|M addr,size\")");
	a = line + 3;
	comma = memchr(a, ',', len - 3);
	if (!comma || !parse_hex(a, (size_t)(comma - a), &addr))
		return line_err(s, ln, "address is not hexadecimal");
	if (!parse_u64(comma + 1, len - (size_t)(comma + 1 - line), &size) || !size)
		return line_err(s, ln, "size is not a positive decimal number");
	if (size > LACKEY_MAX_SIZE)
		return line_err(s, ln, "access size %llu is over the bound of %llu bytes",
				(unsigned long long)size, LACKEY_MAX_SIZE);
	if (addr + size - 1 < addr)
		return line_err(s, ln, "access runs past the end of the address space");
	if (instr) {
		t->nr_instr++;
		return 0;
	}
	last = (addr + size - 1) >> 12;
	/* -n stops inside an access too */
	for (page = addr >> 12; page <= last && !replay_sink_full(k); page++) {
		int ret = replay_emit(k, page, 1, line[1] != 'L');

		if (ret)
			return ret;
	}
	return 0;
}

/* lrulab's page trace: "vtime,page,op", op L, S or M; vtimes increase. */
static int read_page_line(struct replay_stream *s, uint64_t ln, char *line, size_t len,
			  uint64_t *vtime, struct fields *f, struct replay_sink *k)
{
	uint64_t v, page;

	if (ln == 1 && len == 13 && !memcmp(line, "vtime,page,op", 13))
		return 0;
	split(line, len, ',', f);
	if (f->nr != 3)
		return line_err(s, ln, "%u fields, a page record has 3 (vtime,page,op)", f->nr);
	if (!parse_u64(f->p[0], f->n[0], &v))
		return line_err(s, ln, "vtime '%s' is not an unsigned decimal number",
				shown(f->p[0], f->n[0]));
	if (*vtime != UINT64_MAX && v <= *vtime)
		return line_err(s, ln, "vtime %llu is not after the previous record's %llu",
				(unsigned long long)v, (unsigned long long)*vtime);
	*vtime = v;
	if (!(f->n[1] > 2 && f->p[1][0] == '0' && (f->p[1][1] == 'x' || f->p[1][1] == 'X') ?
	      parse_hex(f->p[1] + 2, f->n[1] - 2, &page) : parse_u64(f->p[1], f->n[1], &page)))
		return line_err(s, ln, "page '%s' is not a number",
				shown(f->p[1], f->n[1]));
	if (f->n[2] != 1 || !strchr("LSM", f->p[2][0]))
		return line_err(s, ln, "op '%s' is not L, S or M",
				shown(f->p[2], f->n[2]));
	return replay_emit(k, page, 1, f->p[2][0] != 'L');
}

static int read_text(struct replay_stream *s, const struct replay_load_opts *o,
		     struct replay_sink *k, struct replay_trace *t)
{
	const struct replay_params *p = &o->params;
	uint64_t ln = 0, vtime = UINT64_MAX;
	struct fields *f = malloc(sizeof(*f));
	size_t len;
	char *line;
	int ret = 0;

	if (!f)
		return replay_err(s->err, s->errlen, "%s: out of memory", s->path);
	/*
	 * A last line without its newline is read as any other
	 * (cloudPhysicsIO.txt ends so); cut inside its last field, it cannot
	 * be told from a shorter value.
	 */
	while (!replay_sink_full(k) && (ret = rs_getline(s, &line, &len)) > 0) {
		ln++;
		if (o->type == REPLAY_CSV && ln == 1 && p->has_header)
			continue;
		switch (o->type) {
		case REPLAY_CSV:
			ret = read_csv_line(s, ln, line, len, p, f, k);
			break;
		case REPLAY_TXT:
			ret = read_txt_line(s, ln, line, len, p, k);
			break;
		case REPLAY_LACKEY:
			ret = read_lackey_line(s, ln, line, len, k, t);
			break;
		default:
			ret = read_page_line(s, ln, line, len, &vtime, f, k);
			break;
		}
		if (ret > 0)
			ret = emit_err(s, "line", ln, ret, o, t);
		if (ret)
			break;
		t->nr_records = ln;
	}
	free(f);
	return ret < 0 ? -1 : 0;
}

int replay_read_stream(struct replay_stream *s, const struct replay_load_opts *o,
		       struct replay_sink *k, struct replay_trace *t)
{
	if (o->type == REPLAY_ORACLE_GENERAL || o->type == REPLAY_LCS)
		return read_binary(s, o, k, t);
	return read_text(s, o, k, t);
}
