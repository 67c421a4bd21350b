// SPDX-License-Identifier: MIT
/*
 * lrulab layout: struct lruvec and struct mem_cgroup_per_node as this
 * binary lays them out, field by field, with the 64-byte line and the
 * 128-byte prefetch pair of each, which lines the lru_lock holder writes
 * and which a stat update reads, and the pairs where the two meet.
 *
 * The s3 layout is a build variant, so the answer differs between
 * build/release/lrulab and build/pncold/lrulab; each names its own.
 * The pn cache hands out objects 64 bytes apart from a 128-byte boundary
 * as often as on one, so pairs are given for both slots: "+0" for an
 * object at a 128-byte boundary, "+64" for one 64 bytes past it.
 */
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "tools/commands.h"
#include "tools/options.h"
#include <lrulab/memcontrol.h>
#include <lrulab/switches.h>

#define PROG "lrulab layout"
#define PAIR_BYTES (2 * L1_CACHE_BYTES)
#define MAX_LINES 64

static const unsigned int slots[] = { 0, L1_CACHE_BYTES };

enum clash {
	CLASH_NONE,
	CLASH_LRUVEC,	/* "r/W": gone for folio and kmem updates with patch 2 */
	CLASH_STAT,	/* "R/W": every stat update; what patch 1 is about */
};

static const char *const clash_names[] = { NULL, "r/W", "R/W" };

struct line_info {
	unsigned int use;
	const char *groups[4];
	int nr_groups;
};

struct pn_view {
	struct memcg_layout_field fields[MEMCG_PN_LAYOUT_MAX];
	size_t nr;
	size_t nr_lines;
	struct line_info lines[MAX_LINES];
};

static void use_str(unsigned int use, char *buf)
{
	char *p = buf;

	if (use & LAYOUT_LRU_LOCK_WRITE)
		*p++ = 'W';
	if (use & LAYOUT_STAT_READ)
		*p++ = 'R';
	if (use & LAYOUT_STAT_READ_LRUVEC)
		*p++ = 'r';
	if (p == buf)
		*p++ = '-';
	*p = '\0';
}

static enum clash clash_of(unsigned int a, unsigned int b)
{
	unsigned int reads = LAYOUT_STAT_READ | LAYOUT_STAT_READ_LRUVEC;
	unsigned int r;

	if (!(a & LAYOUT_LRU_LOCK_WRITE) && !(b & LAYOUT_LRU_LOCK_WRITE))
		return CLASH_NONE;
	/* the reads that face a write on the other line */
	r = ((b & LAYOUT_LRU_LOCK_WRITE) ? a & reads : 0) |
	    ((a & LAYOUT_LRU_LOCK_WRITE) ? b & reads : 0);
	if (r & LAYOUT_STAT_READ)
		return CLASH_STAT;
	return r ? CLASH_LRUVEC : CLASH_NONE;
}

static size_t last_line(const struct memcg_layout_field *f)
{
	return (f->offset + (f->size ? f->size - 1 : 0)) / L1_CACHE_BYTES;
}

static void pn_view_build(struct pn_view *v)
{
	size_t i, l;

	memset(v, 0, sizeof(*v));
	v->nr = mem_cgroup_per_node_layout(v->fields);
	v->nr_lines = sizeof(struct mem_cgroup_per_node) / L1_CACHE_BYTES;
	for (l = 0; l < v->nr_lines && l < MAX_LINES; l++) {
		struct line_info *li = &v->lines[l];

		li->use = memcg_layout_line_use(v->fields, v->nr, l);
		for (i = 0; i < v->nr; i++) {
			const struct memcg_layout_field *f = &v->fields[i];
			int g;

			if (!f->size || f->offset / L1_CACHE_BYTES > l || last_line(f) < l)
				continue;
			for (g = 0; g < li->nr_groups; g++)
				if (!strcmp(li->groups[g], f->group))
					break;
			if (g == li->nr_groups && g < (int)ARRAY_SIZE(li->groups))
				li->groups[li->nr_groups++] = f->group;
		}
	}
}

/* A neighbour's line is a line of the same struct: the cache holds only pns. */
static unsigned int mate_use(const struct pn_view *v, long mate)
{
	if (mate < 0)
		return v->lines[v->nr_lines - 1].use;
	if ((size_t)mate >= v->nr_lines)
		return v->lines[0].use;
	return v->lines[mate].use;
}

static void mate_str(const struct pn_view *v, long mate, char *buf, size_t len)
{
	if (mate < 0)
		snprintf(buf, len, "prev %zu", v->nr_lines - 1);
	else if ((size_t)mate >= v->nr_lines)
		snprintf(buf, len, "next 0");
	else
		snprintf(buf, len, "%ld", mate);
}

static void range_str(size_t a, size_t b, char *buf, size_t len)
{
	if (a == b)
		snprintf(buf, len, "%zu", a);
	else
		snprintf(buf, len, "%zu-%zu", a, b);
}

/* The pair of a byte @off of an object in @slot, pair 0 holding line 0. */
static size_t pair_of(size_t off, unsigned int slot)
{
	return (off + slot) / PAIR_BYTES;
}

static const char *variant_line(void)
{
#ifdef LRULAB_PN_COLD_PAIRING
	return "memcg_pn_cold right after memcg_pn_read_mostly, as after s3 patch 1 "
	       "(built with -DLRULAB_PN_COLD_PAIRING)";
#else
	return "memcg_pn_cold last, as before s3 patch 1 "
	       "(built without -DLRULAB_PN_COLD_PAIRING)";
#endif
}

/* ---- text ---- */

static void print_lruvec(void)
{
	char lines[48], use[4];
	size_t i, end = 0;

	printf("struct lruvec: %zu bytes; offsets, lines and pairs from its start "
	       "(in mem_cgroup_per_node at %zu)\n", sizeof(struct lruvec),
	       offsetof(struct mem_cgroup_per_node, lruvec));
	printf("%6s %5s %5s %5s %-4s %s\n", "offset", "size", "line", "pair", "use", "field");
	for (i = 0; i <= lruvec_layout_nr; i++) {
		const struct memcg_layout_field *f = &lruvec_layout[i];
		size_t next = i < lruvec_layout_nr ? f->offset : sizeof(struct lruvec);

		if (next > end)
			printf("%6zu %5zu %5zu %5s %-4s %s\n", end, next - end,
			       end / L1_CACHE_BYTES, "", "", "(padding)");
		if (i == lruvec_layout_nr)
			break;
		range_str(f->offset / L1_CACHE_BYTES, last_line(f), lines, sizeof(lines));
		use_str(f->use, use);
		printf("%6zu %5zu %5s %5zu %-4s %s\n", f->offset, f->size, lines,
		       f->offset / PAIR_BYTES, use, f->name);
		end = f->offset + f->size;
	}
}

static void print_hole(size_t from, size_t to)
{
	printf("%6zu %5zu %5zu %6s %7s %-4s %-21s %s\n", from, to - from,
	       from / L1_CACHE_BYTES, "", "", "", "", "(padding)");
}

static void print_pn_fields(const struct pn_view *v)
{
	size_t i, end = 0;

	printf("%6s %5s %5s %6s %7s %-4s %-21s %s\n", "offset", "size", "line",
	       "pair+0", "pair+64", "use", "group", "field");
	for (i = 0; i < v->nr; i++) {
		const struct memcg_layout_field *f = &v->fields[i];
		char lines[48], p0[48], p64[48], use[4];
		size_t last = f->offset + (f->size ? f->size - 1 : 0);

		if (f->offset > end)
			print_hole(end, f->offset);
		range_str(f->offset / L1_CACHE_BYTES, last / L1_CACHE_BYTES, lines, sizeof(lines));
		range_str(pair_of(f->offset, 0), pair_of(last, 0), p0, sizeof(p0));
		range_str(pair_of(f->offset, L1_CACHE_BYTES), pair_of(last, L1_CACHE_BYTES),
			  p64, sizeof(p64));
		use_str(f->use, use);
		printf("%6zu %5zu %5s %6s %7s %-4s %-21s %s%s\n", f->offset, f->size, lines,
		       p0, p64, use, f->group, f->prefix, f->name);
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	}
	if (end < sizeof(struct mem_cgroup_per_node))
		print_hole(end, sizeof(struct mem_cgroup_per_node));
}

static void print_pn_lines(const struct pn_view *v)
{
	size_t l, s;
	int g;

	printf("\n%4s %9s %-4s %-8s %-5s %-8s %-5s %s\n", "line", "bytes", "use",
	       "mate+0", "clash", "mate+64", "clash", "groups");
	for (l = 0; l < v->nr_lines; l++) {
		char bytes[48], use[4], mate[2][32];
		const char *clash[2];

		snprintf(bytes, sizeof(bytes), "%zu-%zu", l * L1_CACHE_BYTES,
			 (l + 1) * L1_CACHE_BYTES - 1);
		use_str(v->lines[l].use, use);
		for (s = 0; s < ARRAY_SIZE(slots); s++) {
			long m = memcg_layout_pair_mate((long)l, slots[s]);

			mate_str(v, m, mate[s], sizeof(mate[s]));
			clash[s] = clash_names[clash_of(v->lines[l].use, mate_use(v, m))];
		}
		printf("%4zu %9s %-4s %-8s %-5s %-8s %-5s ", l, bytes, use, mate[0],
		       clash[0] ? clash[0] : "", mate[1], clash[1] ? clash[1] : "");
		for (g = 0; g < v->lines[l].nr_groups; g++)
			printf("%s%s", g ? " " : "", v->lines[l].groups[g]);
		printf("\n");
	}
}

/*
 * Each pair an object's lines are in, once: the lower line names it.  A
 * pair that crosses into a neighbour is listed from this object's side.
 */
static void print_clashes(const struct pn_view *v)
{
	size_t s;
	long l;

	printf("\nstat reads paired with lru_lock writes:\n");
	for (s = 0; s < ARRAY_SIZE(slots); s++) {
		int n = 0;

		printf("  slot +%-3u", slots[s]);
		for (l = -1; l < (long)v->nr_lines; l++) {
			long m = memcg_layout_pair_mate(l, slots[s]);
			enum clash c;
			char a[32], b[32];

			if (m < l || (l < 0 && m != 0))
				continue;
			c = clash_of(mate_use(v, l), mate_use(v, m));
			if (c == CLASH_NONE)
				continue;
			mate_str(v, l, a, sizeof(a));
			mate_str(v, m, b, sizeof(b));
			printf("%s lines %s+%s %s", n++ ? "," : "", a, b, clash_names[c]);
		}
		printf("%s\n", n ? "" : " none");
	}
	printf("lines read by stat updates and written under lru_lock themselves:");
	for (l = 0; l < (long)v->nr_lines; l++) {
		enum clash c = clash_of(v->lines[l].use, v->lines[l].use);

		if (c != CLASH_NONE)
			printf(" %ld %s", l, clash_names[c]);
	}
	printf("\n");
	printf("R/W: every stat update pulls in a written line (s3 patch 1 moves the cold\n"
	       "  group to stop it); r/W: only updates through the lruvec do (with\n"
	       "  memcg-direct-stat, s3 patch 2, folio and kmem updates no longer do)\n");
}

static void print_text(void)
{
	struct pn_view v;

	pn_view_build(&v);
	printf("layout %s: %s\n", lrulab_pn_layout_name(), variant_line());
	printf("lines of %d bytes, prefetch pairs of %d; use: W written with lru_lock "
	       "held (fault/free\n  path or reclaim), R read by every memcg stat update, "
	       "r read by stat updates\n  through the lruvec (mod_lruvec_state(); folio and "
	       "kmem ones only with\n  memcg-direct-stat off)\n\n", L1_CACHE_BYTES, PAIR_BYTES);
	print_lruvec();
	printf("\nstruct mem_cgroup_per_node: %zu bytes, %zu lines (odd: pn cache slots "
	       "alternate between +0 and +64)\n", sizeof(struct mem_cgroup_per_node),
	       v.nr_lines);
	print_pn_fields(&v);
	print_pn_lines(&v);
	print_clashes(&v);
}

/* ---- JSON ---- */

static json_t *field_json(const struct memcg_layout_field *f, bool in_pn)
{
	size_t last = f->offset + (f->size ? f->size - 1 : 0);
	char name[64], use[4];
	json_t *o;

	snprintf(name, sizeof(name), "%s%s", f->prefix, f->name);
	use_str(f->use, use);
	o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:s, s:b, s:b, s:b}",
		      "name", name, "offset", (json_int_t)f->offset,
		      "size", (json_int_t)f->size,
		      "first_line", (json_int_t)(f->offset / L1_CACHE_BYTES),
		      "last_line", (json_int_t)(last / L1_CACHE_BYTES), "use", use,
		      "lru_lock_write", !!(f->use & LAYOUT_LRU_LOCK_WRITE),
		      "stat_read", !!(f->use & LAYOUT_STAT_READ),
		      "stat_read_via_lruvec", !!(f->use & LAYOUT_STAT_READ_LRUVEC));
	if (!in_pn) {
		json_object_set_new(o, "pair", json_integer((json_int_t)(f->offset / PAIR_BYTES)));
		return o;
	}
	json_object_set_new(o, "group", json_string(f->group));
	json_object_set_new(o, "pairs_at_slot_0",
			    json_pack("[I, I]", (json_int_t)pair_of(f->offset, 0),
				      (json_int_t)pair_of(last, 0)));
	json_object_set_new(o, "pairs_at_slot_64",
			    json_pack("[I, I]", (json_int_t)pair_of(f->offset, L1_CACHE_BYTES),
				      (json_int_t)pair_of(last, L1_CACHE_BYTES)));
	return o;
}

static json_t *pn_json(const struct pn_view *v)
{
	json_t *fields = json_array(), *holes = json_array(), *lines = json_array();
	json_t *clashes = json_object(), *shared = json_array();
	size_t i, s, end = 0;
	long l;

	for (i = 0; i < v->nr; i++) {
		const struct memcg_layout_field *f = &v->fields[i];

		if (f->offset > end)
			json_array_append_new(holes, json_pack("{s:I, s:I}",
				"offset", (json_int_t)end, "size", (json_int_t)(f->offset - end)));
		json_array_append_new(fields, field_json(f, true));
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	}
	if (end < sizeof(struct mem_cgroup_per_node))
		json_array_append_new(holes, json_pack("{s:I, s:I}", "offset", (json_int_t)end,
			"size", (json_int_t)(sizeof(struct mem_cgroup_per_node) - end)));

	for (i = 0; i < v->nr_lines; i++) {
		json_t *groups = json_array(), *o;
		char use[4];
		int g;

		for (g = 0; g < v->lines[i].nr_groups; g++)
			json_array_append_new(groups, json_string(v->lines[i].groups[g]));
		use_str(v->lines[i].use, use);
		o = json_pack("{s:I, s:s, s:o}", "line", (json_int_t)i, "use", use,
			      "groups", groups);
		for (s = 0; s < ARRAY_SIZE(slots); s++) {
			long m = memcg_layout_pair_mate((long)i, slots[s]);
			enum clash c = clash_of(v->lines[i].use, mate_use(v, m));
			char key[32];

			/* -1: the previous object's last line; nr_lines: the next one's first */
			snprintf(key, sizeof(key), "mate_at_slot_%u", slots[s]);
			json_object_set_new(o, key, json_integer(m));
			snprintf(key, sizeof(key), "clash_at_slot_%u", slots[s]);
			json_object_set_new(o, key, c ? json_string(clash_names[c]) : json_null());
		}
		json_array_append_new(lines, o);
	}

	for (s = 0; s < ARRAY_SIZE(slots); s++) {
		json_t *list = json_array();
		char key[8];

		for (l = -1; l < (long)v->nr_lines; l++) {
			long m = memcg_layout_pair_mate(l, slots[s]);
			enum clash c;

			if (m < l || (l < 0 && m != 0))
				continue;
			c = clash_of(mate_use(v, l), mate_use(v, m));
			if (c != CLASH_NONE)
				json_array_append_new(list, json_pack("{s:[I, I], s:s}",
					"lines", (json_int_t)l, (json_int_t)m,
					"kind", clash_names[c]));
		}
		snprintf(key, sizeof(key), "%u", slots[s]);
		json_object_set_new(clashes, key, list);
	}

	for (i = 0; i < v->nr_lines; i++) {
		enum clash c = clash_of(v->lines[i].use, v->lines[i].use);

		if (c != CLASH_NONE)
			json_array_append_new(shared, json_pack("{s:I, s:s}", "line",
				(json_int_t)i, "kind", clash_names[c]));
	}

	return json_pack("{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}",
			 "size", (json_int_t)sizeof(struct mem_cgroup_per_node),
			 "lines", (json_int_t)v->nr_lines,
			 "lruvec_offset", (json_int_t)offsetof(struct mem_cgroup_per_node, lruvec),
			 "fields", fields, "holes", holes, "lines_detail", lines,
			 "clashes_by_slot", clashes, "clashes_within_line", shared);
}

static int print_json(void)
{
	json_t *lruvec_fields = json_array(), *root;
	struct pn_view v;
	size_t i;
	int ret;

	pn_view_build(&v);
	for (i = 0; i < lruvec_layout_nr; i++)
		json_array_append_new(lruvec_fields, field_json(&lruvec_layout[i], false));
	root = json_pack("{s:s, s:b, s:i, s:i, s:{s:I, s:o}, s:o}",
			 "variant", lrulab_pn_layout_name(),
#ifdef LRULAB_PN_COLD_PAIRING
			 "cold_pairing", 1,
#else
			 "cold_pairing", 0,
#endif
			 "line_bytes", L1_CACHE_BYTES, "pair_bytes", PAIR_BYTES,
			 "lruvec", "size", (json_int_t)sizeof(struct lruvec),
			 "fields", lruvec_fields,
			 "mem_cgroup_per_node", pn_json(&v));
	if (!root) {
		fprintf(stderr, PROG ": cannot build the JSON document\n");
		return 1;
	}
	ret = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	printf("\n");
	json_decref(root);
	return ret ? 1 : 0;
}

enum { OPT_JSON = 1 };

static const struct cmd_opt layout_opts[] = {
	{ "json", NULL, OPT_JSON, "the same as JSON" },
	{ NULL },
};

static const struct cmd_spec layout_spec = {
	.prog = PROG,
	.about = "The fields of struct lruvec and struct mem_cgroup_per_node in this binary's\n"
		 "layout, their 64-byte lines and 128-byte pairs.",
	.opts = layout_opts,
};

int cmd_layout(int argc, char **argv)
{
	struct cmd_parser cp;
	bool json = false;
	const char *arg;
	int c;

	cmd_parse_init(&cp, &layout_spec, argc, argv);
	while ((c = cmd_parse_next(&cp, &arg)) != CMD_OPT_END) {
		switch (c) {
		case CMD_OPT_HELP:
			return 0;
		case CMD_OPT_ERROR:
			return 2;
		case OPT_JSON:
			json = true;
			break;
		}
	}
	if (cmd_parse_end(&cp))
		return 2;
	if (json)
		return print_json();
	print_text();
	return 0;
}
