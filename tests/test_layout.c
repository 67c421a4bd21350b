// SPDX-License-Identifier: MIT
/*
 * struct mem_cgroup_per_node in this build's layout (the file is built
 * twice: build/release without LRULAB_PN_COLD_PAIRING, build/pncold with
 * it): the exact offsets and lines of the fields the s3 series is about,
 * the layout table against the struct, the 128-byte pairs each layout
 * makes at both slot offsets, and objects from the pn cache in real
 * memory landing at both 128-byte offsets.
 *
 * The numbers follow from struct lruvec as it is now: a change to it
 * moves them, and the table in mm/memcontrol.c must learn the new field.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/switches.h>

#define PN struct mem_cgroup_per_node
#define OFF(f) offsetof(PN, f)
#define LINE(f) (OFF(f) / L1_CACHE_BYTES)
#define GROUP(g) OFF(__cacheline_group_begin__##g)

static void test_variant_name(void **state)
{
#ifdef LRULAB_PN_COLD_PAIRING
	assert_string_equal(lrulab_pn_layout_name(), "pn-cold-pairing");
#else
	assert_string_equal(lrulab_pn_layout_name(), "pn-default");
#endif
}

/* ---- exact offsets and lines ---- */

static void test_offsets(void **state)
{
	/* lrugen and mm_state between flags and pgdat, as in the kernel */
	assert_int_equal(sizeof(struct lruvec), 848);
	assert_int_equal(offsetof(struct lruvec, lru_lock), 80);
	assert_int_equal(offsetof(struct lruvec, lrugen), 176);
	assert_int_equal(sizeof(struct lru_gen_folio), 592);
	assert_int_equal(offsetof(struct lruvec, mm_state), 768);
	assert_int_equal(sizeof(struct lru_gen_mm_state), 72);
	assert_int_equal(offsetof(struct lruvec, pgdat), 840);

	/* 19 lines in both: the pad (two lines) makes up the parity */
	assert_int_equal(sizeof(PN), 1216);
	assert_int_equal(sizeof(PN) / L1_CACHE_BYTES, 19);
	assert_int_equal(sizeof(((PN *)0)->_pad_odd_), 128);

	/* the read-mostly line is line 0 in both */
	assert_int_equal(GROUP(memcg_pn_read_mostly), 0);
	assert_int_equal(OFF(memcg), 0);
	assert_int_equal(OFF(lruvec_stats_percpu), 8);
	assert_int_equal(OFF(objcg), 32);

#ifdef LRULAB_PN_COLD_PAIRING
	assert_int_equal(GROUP(memcg_pn_cold), 64);
	assert_int_equal(LINE(orig_objcg), 1);
	assert_int_equal(OFF(objcg_list), 72);
	assert_int_equal(GROUP(memcg_pn_lruvec), 128);
	assert_int_equal(OFF(lruvec.lists), 128);
	assert_int_equal(LINE(lruvec.lists), 2);
	assert_int_equal(OFF(lruvec.lru_lock), 208);
	assert_int_equal(LINE(lruvec.lru_lock), 3);
	assert_int_equal(OFF(lruvec.lrugen), 304);
	assert_int_equal(OFF(lruvec.pgdat), 968);
	assert_int_equal(LINE(lruvec.pgdat), 15);
	assert_int_equal(GROUP(memcg_pn_write_hot), 1024);
	assert_int_equal(LINE(lru_zone_size), 16);
	assert_int_equal(OFF(iter), 1192);
	assert_int_equal(LINE(iter), 18);
#else
	assert_int_equal(GROUP(memcg_pn_lruvec), 64);
	assert_int_equal(OFF(lruvec.lists), 64);
	assert_int_equal(LINE(lruvec.lists), 1);
	assert_int_equal(OFF(lruvec.lru_lock), 144);
	assert_int_equal(LINE(lruvec.lru_lock), 2);
	assert_int_equal(OFF(lruvec.lrugen), 240);
	assert_int_equal(OFF(lruvec.pgdat), 904);
	assert_int_equal(LINE(lruvec.pgdat), 14);
	assert_int_equal(GROUP(memcg_pn_write_hot), 960);
	assert_int_equal(LINE(lru_zone_size), 15);
	assert_int_equal(OFF(iter), 1128);
	assert_int_equal(LINE(iter), 17);
	assert_int_equal(GROUP(memcg_pn_cold), 1152);
	assert_int_equal(LINE(orig_objcg), 18);
	assert_int_equal(OFF(objcg_list), 1160);
#endif
	/*
	 * the write-hot group's last line holds the iterator, not the sizes:
	 * the two-line pad sits between them
	 */
	assert_int_equal(LINE(iter), LINE(lru_zone_size) + 2);
}

/* ---- the layout table against the struct ---- */

struct hole {
	size_t offset, size;
};

/*
 * Sorted, no overlap, and every byte not in a listed field is padding:
 * a hole shorter than a long, or one that runs up to a line boundary
 * (a CACHELINE_PADDING member or the struct's alignment).  Returns the
 * holes for the caller to compare exactly.
 */
static size_t check_table(const struct memcg_layout_field *f, size_t nr, size_t size,
			  struct hole *holes, size_t max_holes)
{
	size_t i, end = 0, nr_holes = 0;

	for (i = 0; i <= nr; i++) {
		size_t next = i < nr ? f[i].offset : size;

		assert_true(next >= end);
		if (next > end) {
			assert_true(next - end < sizeof(long) || next % L1_CACHE_BYTES == 0);
			assert_true(nr_holes < max_holes);
			holes[nr_holes].offset = end;
			holes[nr_holes].size = next - end;
			nr_holes++;
		}
		if (i == nr)
			break;
		end = f[i].offset + f[i].size;
	}
	return nr_holes;
}

static const struct hole pn_holes[] = {
#ifdef LRULAB_PN_COLD_PAIRING
	{ 40, 24 }, { 88, 40 }, { 976, 48 }, { 1208, 8 },
#else
	{ 40, 24 }, { 912, 48 }, { 1144, 8 }, { 1176, 40 },
#endif
};

static void test_table_covers(void **state)
{
	struct memcg_layout_field pn[MEMCG_PN_LAYOUT_MAX];
	struct hole holes[16];
	size_t nr, nr_holes, i, listed = 0, padding = 0;

	/* struct lruvec: every byte is a listed field */
	nr_holes = check_table(lruvec_layout, lruvec_layout_nr, sizeof(struct lruvec),
			       holes, 16);
	assert_int_equal(nr_holes, 0);
	assert_int_equal(lruvec_layout_nr, 13);

	nr = mem_cgroup_per_node_layout(pn);
	assert_int_equal(nr, 10 + lruvec_layout_nr);
	nr_holes = check_table(pn, nr, sizeof(PN), holes, 16);
	for (i = 0; i < nr; i++)
		listed += pn[i].size;
	for (i = 0; i < nr_holes; i++)
		padding += holes[i].size;
	assert_int_equal(listed + padding, sizeof(PN));
	assert_int_equal(listed, 1096);
	/* each group pads out its last line, nothing else */
	assert_int_equal(nr_holes, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(holes[i].offset, pn_holes[i].offset);
		assert_int_equal(holes[i].size, pn_holes[i].size);
	}
	/* the lruvec's fields inside the pn, renamed and moved */
	for (i = 0; i < nr; i++)
		if (!strcmp(pn[i].name, "pgdat"))
			break;
	assert_true(i < nr);
	assert_string_equal(pn[i].prefix, "lruvec.");
	assert_string_equal(pn[i].group, "memcg_pn_lruvec");
	assert_int_equal(pn[i].offset, OFF(lruvec.pgdat));
	assert_int_equal(pn[i].use, LAYOUT_STAT_READ_LRUVEC);
}

/* ---- 128-byte pairs ---- */

static size_t pn_lines(void)
{
	return sizeof(PN) / L1_CACHE_BYTES;
}

/* A neighbour's line is the same line of another pn. */
static unsigned int line_use(const struct memcg_layout_field *f, size_t nr, long line)
{
	long n = (long)pn_lines();

	return memcg_layout_line_use(f, nr, (size_t)((line % n + n) % n));
}

static void test_pair_mates(void **state)
{
	long rm = LINE(memcg), lists = LINE(lruvec.lists), pgdat = LINE(lruvec.pgdat);
	long last = (long)pn_lines() - 1;

	assert_int_equal(rm, 0);
	/* at +64 the read-mostly line goes with the previous object's last */
	assert_int_equal(memcg_layout_pair_mate(rm, 64), -1);
	assert_int_equal(memcg_layout_pair_mate(last, 0), last + 1);
#ifdef LRULAB_PN_COLD_PAIRING
	/* patch 1: with the cold line at +0, the iterator's line at +64 */
	assert_int_equal(memcg_layout_pair_mate(rm, 0), LINE(orig_objcg));
	assert_int_equal(last, LINE(iter));
	assert_int_not_equal(memcg_layout_pair_mate(rm, 0), lists);
	assert_int_not_equal(last, lists);
	/*
	 * patch 2: pgdat with the end of mm_state at +0, lru_zone_size[] at
	 * +64; lrugen keeps it far from lru_lock, as in a CONFIG_LRU_GEN
	 * kernel
	 */
	assert_int_equal(memcg_layout_pair_mate(pgdat, 0), LINE(lruvec.mm_state));
	assert_int_equal(memcg_layout_pair_mate(pgdat, 64), LINE(lru_zone_size));
#else
	/* before: with the list heads at +0, the previous cold line at +64 */
	assert_int_equal(memcg_layout_pair_mate(rm, 0), lists);
	assert_int_equal(last, LINE(orig_objcg));
	/*
	 * patch 2: pgdat with lru_zone_size[] at +0, the start of mm_state
	 * at +64; lrugen keeps it far from lru_lock, as in a CONFIG_LRU_GEN
	 * kernel
	 */
	assert_int_equal(memcg_layout_pair_mate(pgdat, 0), LINE(lru_zone_size));
	assert_int_equal(memcg_layout_pair_mate(pgdat, 64), LINE(lruvec.mm_state));
#endif
}

static void test_line_uses(void **state)
{
	struct memcg_layout_field f[MEMCG_PN_LAYOUT_MAX];
	size_t nr = mem_cgroup_per_node_layout(f);
	const unsigned int W = LAYOUT_LRU_LOCK_WRITE, R = LAYOUT_STAT_READ;
	const unsigned int r = LAYOUT_STAT_READ_LRUVEC;

	/* pn->memcg (through the lruvec) and lruvec_stats_percpu (always) */
	assert_int_equal(memcg_layout_line_use(f, nr, 0), R | r);
	assert_int_equal(memcg_layout_line_use(f, nr, LINE(orig_objcg)), 0);
	assert_int_equal(memcg_layout_line_use(f, nr, LINE(lruvec.lists)), W);
	assert_int_equal(memcg_layout_line_use(f, nr, LINE(lruvec.lru_lock)), W);
	assert_int_equal(memcg_layout_line_use(f, nr, LINE(lru_zone_size)), W);
	assert_int_equal(memcg_layout_line_use(f, nr, LINE(iter)), 0);
	/* pgdat shares its line with the end of mm_state, cold here */
	assert_int_equal(LINE(lruvec.mm_state) + 1, LINE(lruvec.pgdat));
	assert_int_equal(memcg_layout_line_use(f, nr, LINE(lruvec.pgdat)), r);
	assert_int_equal(memcg_layout_line_use(f, nr, LINE(lruvec.mm_state)), 0);
#ifdef LRULAB_PN_COLD_PAIRING
	assert_int_equal(LINE(lruvec.lru_lock), 3);
#else
	assert_int_equal(LINE(lruvec.lru_lock), 2);
#endif
}

struct clash {
	long a, b;
	unsigned int reads;	/* the stat-read bits facing a write */
};

/* Pairs at @slot with a stat read on one line and a lru_lock write on the other. */
static int clashes(unsigned int slot, struct clash *out)
{
	struct memcg_layout_field f[MEMCG_PN_LAYOUT_MAX];
	size_t nr = mem_cgroup_per_node_layout(f);
	unsigned int reads = LAYOUT_STAT_READ | LAYOUT_STAT_READ_LRUVEC;
	long l;
	int n = 0;

	for (l = -1; l < (long)pn_lines(); l++) {
		long m = memcg_layout_pair_mate(l, slot);
		unsigned int ua, ub, r = 0;

		if (m < l || (l < 0 && m != 0))
			continue;
		ua = line_use(f, nr, l);
		ub = line_use(f, nr, m);
		if (ub & LAYOUT_LRU_LOCK_WRITE)
			r |= ua & reads;
		if (ua & LAYOUT_LRU_LOCK_WRITE)
			r |= ub & reads;
		if (!r)
			continue;
		out[n].a = l;
		out[n].b = m;
		out[n].reads = r;
		n++;
	}
	return n;
}

static void expect_clash(const struct clash *c, long a, long b, unsigned int reads)
{
	assert_int_equal(c->a, a);
	assert_int_equal(c->b, b);
	assert_int_equal(c->reads, reads);
}

static void test_pair_clashes(void **state)
{
	struct clash c[16];

#ifdef LRULAB_PN_COLD_PAIRING
	/*
	 * Nothing every stat update reads is paired with a written line at
	 * either slot; only pgdat is, which folio and kmem updates stop
	 * reading with patch 2.
	 */
	assert_int_equal(clashes(0, c), 0);
	assert_int_equal(clashes(64, c), 1);
	expect_clash(&c[0], 15, 16, LAYOUT_STAT_READ_LRUVEC);
#else
	/* before: the read-mostly line with the list heads, at +0 only */
	assert_int_equal(clashes(0, c), 2);
	expect_clash(&c[0], 0, 1, LAYOUT_STAT_READ | LAYOUT_STAT_READ_LRUVEC);
	expect_clash(&c[1], 14, 15, LAYOUT_STAT_READ_LRUVEC);
	assert_int_equal(clashes(64, c), 0);
#endif
}

/* ---- real objects from the pn cache ---- */

static bool same_pair(const void *a, const void *b)
{
	return (uintptr_t)a / 128 == (uintptr_t)b / 128;
}

static void test_slab_objects(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct mem_cgroup *m[8];
	PN *prev = NULL;
	int i, seen[2] = { 0, 0 };

	cfg.nr_cpus = 1;
	cfg.node_pages = 1024;
	assert_int_equal(lrulab_init(&cfg), 0);
	assert_int_equal(cpu_enter(0, false), 0);

	/* the root takes slot 0 of a fresh slab, these the next ones */
	m[0] = root_mem_cgroup;
	for (i = 1; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "m%d", i);
		m[i] = mem_cgroup_create(NULL, name);
		assert_non_null(m[i]);
	}
	for (i = 0; i < 8; i++) {
		PN *pn = m[i]->nodeinfo[0];
		unsigned long off = mem_cgroup_pn_offset128(m[i], 0);

		assert_int_equal(off, (i * sizeof(PN)) % 128);
		assert_int_equal(off, i % 2 ? 64 : 0);
		seen[off / 64]++;
		if (prev)
			assert_ptr_equal((char *)prev + sizeof(PN), (char *)pn);
#ifdef LRULAB_PN_COLD_PAIRING
		/* never the list heads in the read-mostly line's pair */
		assert_false(same_pair(&pn->memcg, pn->lruvec.lists));
		if (off == 0)
			assert_true(same_pair(&pn->memcg, &pn->orig_objcg));
		else
			assert_true(same_pair(&pn->memcg, &prev->iter));
		/* pgdat with lru_zone_size[] at +64, never with lru_lock */
		assert_int_equal(same_pair(&pn->lruvec.pgdat, pn->lru_zone_size), off == 64);
		assert_false(same_pair(&pn->lruvec.pgdat, &pn->lruvec.lru_lock));
#else
		/* the list heads in the read-mostly line's pair half the time */
		assert_int_equal(same_pair(&pn->memcg, pn->lruvec.lists), off == 0);
		if (off == 64)
			assert_true(same_pair(&pn->memcg, &prev->orig_objcg));
		/* pgdat with lru_zone_size[] at +0, never with lru_lock */
		assert_int_equal(same_pair(&pn->lruvec.pgdat, pn->lru_zone_size), off == 0);
		assert_false(same_pair(&pn->lruvec.pgdat, &pn->lruvec.lru_lock));
#endif
		prev = pn;
	}
	assert_int_equal(seen[0], 4);
	assert_int_equal(seen[1], 4);

	for (i = 1; i < 8; i++)
		mem_cgroup_offline(m[i]);
	cpu_exit();
	lrulab_exit();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variant_name),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_table_covers),
		cmocka_unit_test(test_pair_mates),
		cmocka_unit_test(test_line_uses),
		cmocka_unit_test(test_pair_clashes),
		cmocka_unit_test(test_slab_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
