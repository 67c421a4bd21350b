// SPDX-License-Identifier: MIT
/*
 * The lru_gen debugfs files (mm/mglru_debugfs.c): the printer against a
 * known state byte for byte (the reference's worked example, v7.2,
 * NR_HIST_GENS 1), and the writer's parsing, separators and error codes,
 * each failing command leaving the state as it was.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/lru_gen_debugfs.h>
#include <lrulab/mglru.h>
#include <lrulab/mglru_walk.h>
#include <lrulab/swap_state.h>

#define NOW 100000UL
#define FILE_PAGES 512UL

static struct mem_cgroup *memcg;
static struct address_space *file;
static struct mm_struct *mm;
static struct vm_area_struct *vma;

static int setup(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = 1;
	cfg.node_pages = 16384;
	cfg.lru_gen = LRU_GEN_CAPS_ALL;
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		return -1;
	memcg = mem_cgroup_create(root_mem_cgroup, "test");
	return memcg ? 0 : -1;
}

static int teardown(void **state)
{
	if (mm)
		mmput(mm);
	if (file)
		shmem_file_free(file);
	mm = NULL;
	vma = NULL;
	file = NULL;
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
	return 0;
}

static struct lruvec *lv(struct mem_cgroup *m)
{
	return get_lruvec(m, 0);
}

static char *show(bool full)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	lru_gen_seq_show_at(f, full, NOW);
	fclose(f);
	return text;
}

/* The worked example's state: max_seq 8, min_seq anon 5, file 6. */
static void set_example_state(void)
{
	struct lru_gen_folio *g = &lv(memcg)->lrugen;
	struct lru_gen_folio *r = &lv(root_mem_cgroup)->lrugen;
	static const unsigned long age[4] = { 61200, 30460, 9120, 880 };
	static const long pages[4][2] = { { 1024, 0 }, { 2311, 18034 }, { 517, 4402 },
					  { 96, 1210 } };
	static const unsigned long avg_r[2][4] = { { 40, 8, 0, 0 }, { 12, 30, 4, 0 } };
	static const unsigned long avg_t[2][4] = { { 3000, 1900, 310, 90 },
						   { 9000, 2600, 700, 120 } };
	unsigned long *st = lv(memcg)->mm_state.stats[0];
	int i, t;

	g->max_seq = 8;
	g->min_seq[LRU_GEN_ANON] = 5;
	g->min_seq[LRU_GEN_FILE] = 6;
	for (i = 0; i < 4; i++) {
		int gen = lru_gen_from_seq(5 + (unsigned long)i);

		g->timestamps[gen] = NOW - age[i];
		g->nr_pages[gen][LRU_GEN_ANON][0] = pages[i][0];
		g->nr_pages[gen][LRU_GEN_FILE][0] = pages[i][1];
	}
	for (t = 0; t < 2; t++) {
		for (i = 0; i < 4; i++) {
			g->avg_refaulted[t][i] = avg_r[t][i];
			g->avg_total[t][i] = avg_t[t][i];
		}
	}
	atomic_long_set(&g->refaulted[0][LRU_GEN_ANON][0], 12);
	atomic_long_set(&g->evicted[0][LRU_GEN_ANON][0], 900);
	g->protected[0][LRU_GEN_ANON][0] = 3;
	st[MM_LEAF_TOTAL] = 262144;
	st[MM_LEAF_YOUNG] = 5120;
	st[MM_NONLEAF_FOUND] = 512;
	st[MM_NONLEAF_ADDED] = 300;
	/* the root: a new lruvec, every generation 10 ms old */
	for (i = 0; i < 4; i++)
		r->timestamps[i] = NOW - 10;
}

static const char root_short[] =
	" node     0\n"
	"          0         10          0           0 \n"
	"          1         10          0           0 \n"
	"          2         10          0           0 \n"
	"          3         10          0           0 \n";

static const char test_short[] =
	" node     0\n"
	"          5      61200       1024           0 \n"
	"          6      30460       2311       18034 \n"
	"          7       9120        517        4402 \n"
	"          8        880         96        1210 \n";

static void test_show_example(void **state)
{
	char expect[4096], *text;

	set_example_state();
	text = show(false);
	snprintf(expect, sizeof(expect), "memcg %u /\n%smemcg %u /test\n%s",
		 (unsigned int)mem_cgroup_id(root_mem_cgroup), root_short,
		 (unsigned int)mem_cgroup_id(memcg), test_short);
	assert_string_equal(text, expect);
	free(text);
}

/* the kernel prints "x" after a counter it has no value for */
#define NO_TIER_COLS "          0x          0x          0x"
#define NO_WALK_LINE "                                0x          0x          0x          0x\n"

static const char test_full[] =
	" node     0\n"
	"          5      61200       1024           0x\n"
	"                     0         12r        900e          3p" NO_TIER_COLS "\n"
	"                     1          0r          0e          0p" NO_TIER_COLS "\n"
	"                     2          0r          0e          0p" NO_TIER_COLS "\n"
	"                     3          0r          0e          0p" NO_TIER_COLS "\n"
	NO_WALK_LINE
	"          6      30460       2311       18034 \n"
	"                     0" NO_TIER_COLS "          0r          0e          0p\n"
	"                     1" NO_TIER_COLS "          0r          0e          0p\n"
	"                     2" NO_TIER_COLS "          0r          0e          0p\n"
	"                     3" NO_TIER_COLS "          0r          0e          0p\n"
	NO_WALK_LINE
	"          7       9120        517        4402 \n"
	"                     0" NO_TIER_COLS NO_TIER_COLS "\n"
	"                     1" NO_TIER_COLS NO_TIER_COLS "\n"
	"                     2" NO_TIER_COLS NO_TIER_COLS "\n"
	"                     3" NO_TIER_COLS NO_TIER_COLS "\n"
	NO_WALK_LINE
	"          8        880         96        1210 \n"
	"                     0         40R       3000T          0x         12R       9000T          0x\n"
	"                     1          8R       1900T          0x         30R       2600T          0x\n"
	"                     2          0R        310T          0x          4R        700T          0x\n"
	"                     3          0R         90T          0x          0R        120T          0x\n"
	"                           262144T       5120Y        512F        300A\n";

static void test_show_full_example(void **state)
{
	char *text, *mine;

	set_example_state();
	text = show(true);
	/* the root's block comes first; compare the test memcg's exactly */
	mine = strstr(text, "memcg ");
	assert_non_null(mine);
	mine = strstr(mine + 1, "memcg ");
	assert_non_null(mine);
	assert_int_equal(strtoul(mine + 6, NULL, 10), mem_cgroup_id(memcg));
	mine = strchr(mine, '\n');
	assert_non_null(mine);
	assert_memory_equal(mine - strlen(" /test"), " /test", strlen(" /test"));
	assert_string_equal(mine + 1, test_full);
	/* the root's gens 0..3: 4 lines each, and 0 has min_seq's r/e/p */
	assert_non_null(strstr(text, " /\n node     0\n          0         10          0           0 \n"
				     "                     0          0r          0e          0p          0r          0e          0p\n"));
	free(text);
}

/* ---- writing ---- */

struct snap {
	unsigned long max_seq, min_seq[2], mm_seq;
	long nr_pages[MAX_NR_GENS][2];
	unsigned long young;
};

static void map_and_read(void)
{
	unsigned long p;

	file = shmem_file_setup(FILE_PAGES, 0);
	mm = mm_alloc(memcg);
	vma = mmap_shmem(mm, file, 0, FILE_PAGES * PAGE_SIZE);
	assert_non_null(vma);
	for (p = 0; p < FILE_PAGES; p++)
		assert_int_equal(mm_access(vma, vma->vm_start + p * PAGE_SIZE, false), 0);
	lru_add_drain();
}

static void take(struct snap *s)
{
	struct lruvec *l = lv(memcg);
	unsigned long p;
	int g, t;

	memset(s, 0, sizeof(*s));
	s->max_seq = l->lrugen.max_seq;
	s->min_seq[0] = l->lrugen.min_seq[0];
	s->min_seq[1] = l->lrugen.min_seq[1];
	s->mm_seq = l->mm_state.seq;
	for (g = 0; g < (int)MAX_NR_GENS; g++)
		for (t = 0; t < 2; t++)
			s->nr_pages[g][t] = l->lrugen.nr_pages[g][t][0];
	for (p = 0; vma && p < FILE_PAGES; p++)
		s->young += pte_young(ptep_get(vma_pte(vma, vma->vm_start + p * PAGE_SIZE)));
}

static ssize_t wr(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return lru_gen_seq_write(buf, strlen(buf));
}

static void expect_error(ssize_t want, const char *fmt, ...)
{
	struct snap a, b;
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	take(&a);
	if (lru_gen_seq_write(buf, strlen(buf)) != want)
		fail_msg("'%s': got %zd, want %zd", buf, lru_gen_seq_write(buf, strlen(buf)), want);
	take(&b);
	if (memcmp(&a, &b, sizeof(a)))
		fail_msg("'%s' changed the state", buf);
}

static void test_write_errors(void **state)
{
	struct mem_cgroup *gone = mem_cgroup_create(root_mem_cgroup, "gone");
	unsigned int id = (unsigned int)mem_cgroup_id(memcg);
	unsigned int gone_id = (unsigned int)mem_cgroup_id(gone);
	unsigned long seq;

	map_and_read();
	seq = lv(memcg)->lrugen.max_seq;
	mem_cgroup_offline(gone);

	expect_error(-EINVAL, "+ %u 0 %lu", id, seq + 1);	/* too new */
	expect_error(-EINVAL, "- %u 0 %lu", id, seq - 1);	/* seq + 2 > max_seq */
	expect_error(-EINVAL, "- %u 0 %lu", id, seq);
	expect_error(-EINVAL, "+ 999 0 %lu", seq);		/* no such memcg */
	expect_error(-EINVAL, "+ 99999999999 0 %lu", seq);
	expect_error(-EINVAL, "+ %u 0 %lu", gone_id, seq);	/* offline */
	expect_error(-EINVAL, "+ %u 1 %lu", id, seq);		/* no node 1 */
	expect_error(-EINVAL, "+ %u 0 %lu 202", id, seq);	/* swappiness > 201 */
	expect_error(-EINVAL, "+ %u 0 %lu 0xff", id, seq);	/* 255 */
	expect_error(-EINVAL, "+ %u 0 %lu abc", id, seq);	/* not a number */
	expect_error(-EINVAL, "+ %u 0 %lu -1", id, seq);
	expect_error(-EINVAL, "+ %u 0 %lu 08", id, seq);	/* octal */
	expect_error(-EINVAL, "+ %u 0 %lu 200 1 x", id, seq);	/* trailing */
	expect_error(-EINVAL, "+ %u 0 %lu 200 1 2", id, seq);
	expect_error(-EINVAL, "+ %u 0", id);			/* 3 fields */
	expect_error(-EINVAL, "* %u 0 %lu", id, seq);		/* no such command */
	expect_error(-EINVAL, "garbage");
	expect_error(-EINVAL, "+ -%u 0 %lu", id, seq);		/* no sign */
	expect_error(-EINVAL, "");				/* nothing to run */
	expect_error(-EINVAL, " ,;\n\n , ");
	expect_error(-EINVAL, "+ %u 0 %lu 200 x", id, seq);
}

/*
 * lru_gen names a memcg by its cgroup id, which is never reused: a memcg
 * created after another went offline takes its private id (the lowest
 * free) but not its cgroup id, so the old number names nothing.
 */
static void test_cgroup_id_not_reused(void **state)
{
	struct mem_cgroup *gone = mem_cgroup_create(root_mem_cgroup, "gone");
	struct mem_cgroup *next;
	unsigned long long gone_cgid = mem_cgroup_id(gone);
	unsigned short gone_id = gone->id;
	char line[64], *text;
	unsigned long seq;

	mem_cgroup_offline(gone);
	next = mem_cgroup_create(root_mem_cgroup, "next");
	assert_non_null(next);
	assert_int_equal(next->id, gone_id);
	assert_int_equal(mem_cgroup_id(next), gone_cgid + 1);
	assert_int_equal(mem_cgroup_id(root_mem_cgroup), 1);

	text = show(false);
	snprintf(line, sizeof(line), "memcg %llu /next\n", gone_cgid + 1);
	assert_non_null(strstr(text, line));
	snprintf(line, sizeof(line), "memcg %llu /", gone_cgid);
	assert_null(strstr(text, line));
	free(text);

	seq = lv(next)->lrugen.max_seq;
	expect_error(-EINVAL, "+ %llu 0 %lu", gone_cgid, seq);
	snprintf(line, sizeof(line), "+ %llu 0 %lu", gone_cgid + 1, seq);
	assert_int_equal(lru_gen_seq_write(line, strlen(line)), (ssize_t)strlen(line));
	assert_int_equal(lv(next)->lrugen.max_seq, seq + 1);
	mem_cgroup_offline(next);
}

static void test_write_commands(void **state)
{
	unsigned int id = (unsigned int)mem_cgroup_id(memcg);
	struct snap s;
	unsigned long seq;
	char buf[64];

	map_and_read();
	seq = lv(memcg)->lrugen.max_seq;
	/* "+" ages; force_scan defaults on; the newline ends the command */
	snprintf(buf, sizeof(buf), "+ %u 0 %lu\n", id, seq);
	assert_int_equal(lru_gen_seq_write(buf, strlen(buf)), (ssize_t)strlen(buf));
	take(&s);
	assert_int_equal(s.max_seq, seq + 1);
	/* no swap: get_swappiness() is 0, so shmem mappings are not walked */
	assert_int_equal(s.young, FILE_PAGES);
	assert_true(wr("+ %u 0 %lu 200", id, seq + 1) > 0);
	take(&s);
	assert_int_equal(s.young, 0);
	seq++;
	/* a stale seq ages from the current max_seq (v7.2) */
	assert_true(wr("  +%u 0 %lu 200 1", id, seq) > 0);
	assert_int_equal(lv(memcg)->lrugen.max_seq, seq + 2);
	/* several commands, every separator, blanks and empty pieces skipped */
	assert_true(wr("+ %u 0 %lu max 1;, + %u 0 %lu 0x10 0\n\n+\t%u\t0\t%lu 010",
		       id, seq + 2, id, seq + 3, id, seq + 4) > 0);
	assert_int_equal(lv(memcg)->lrugen.max_seq, seq + 5);
	/* the first error stops the rest; earlier commands keep their effect */
	assert_int_equal(wr("+ %u 0 %lu, + %u 0 %lu, + %u 0 %lu", id, seq + 5, id, seq + 7,
			    id, seq + 6), -EINVAL);
	assert_int_equal(lv(memcg)->lrugen.max_seq, seq + 6);
	/* the swappiness token is at most 4 characters: the fifth is the option */
	assert_int_equal(wr("+ %u 0 %lu 20000", id, seq + 6), -EINVAL);
	assert_int_equal(wr("+ %u 0 %lu 10001", id, seq + 6), -EINVAL);
	assert_true(wr("+ %u 0 %lu 01001", id, seq + 6) > 0);
	assert_int_equal(lv(memcg)->lrugen.max_seq, seq + 7);
	/* so "0x100" is swappiness 0x10 and force_scan 0, as in the kernel */
	assert_true(wr("+ %u 0 %lu 0x100", id, seq + 7) > 0);
	assert_int_equal(lv(memcg)->lrugen.max_seq, seq + 8);
}

#define REG_PAGES 256UL

static unsigned long file_lru_pages(void)
{
	struct lru_gen_folio *g = &lv(memcg)->lrugen;
	unsigned long n = 0;
	int gen;

	for (gen = 0; gen < (int)MAX_NR_GENS; gen++)
		n += (unsigned long)g->nr_pages[gen][LRU_GEN_FILE][0];
	return n;
}

/*
 * "-" evicts the generations up to MIN_GEN of the types the swappiness
 * lets it (0: file only), oldest first, up to NR_TO_RECLAIM pages.
 */
static void test_write_evict(void **state)
{
	struct address_space *reg = file_setup(REG_PAGES);
	struct lru_gen_folio *g = &lv(memcg)->lrugen;
	unsigned int id = (unsigned int)mem_cgroup_id(memcg);
	unsigned long i, before;

	assert_non_null(reg);
	for (i = 0; i < REG_PAGES; i++)
		assert_int_equal(file_read_page(reg, i, memcg, NULL), 0);
	lru_add_drain();
	assert_int_equal(file_lru_pages(), REG_PAGES);
	/* read once: referenced, at max_seq - 2; readahead's unread pages oldest */
	assert_int_equal(g->max_seq, 3);
	assert_int_equal(g->nr_pages[0][LRU_GEN_FILE][0] + g->nr_pages[1][LRU_GEN_FILE][0],
			 REG_PAGES);
	assert_true(g->nr_pages[0][LRU_GEN_FILE][0] > 0);
	/* seq + 2 > max_seq */
	expect_error(-EINVAL, "- %u 0 %lu 0", id, g->max_seq - 1);
	/* at most 100 pages */
	before = file_lru_pages();
	assert_true(wr("- %u 0 %lu 0 100", id, g->max_seq - 2) > 0);
	assert_true(before - file_lru_pages() >= 100);
	assert_true(file_lru_pages() > 0);
	/* oldest first: generation 0 went before any of generation 1 */
	assert_int_equal(g->nr_pages[0][LRU_GEN_FILE][0], 0);
	/* then the rest of generation max_seq - 2: the file LRU is empty */
	assert_true(wr("- %u 0 %lu 0", id, g->max_seq - 2) > 0);
	assert_int_equal(file_lru_pages(), 0);
	assert_int_equal(g->min_seq[LRU_GEN_FILE], g->max_seq - 1);
	file_free(reg);
}

#define ANON_PAGES 512UL

/* every anon page touched (the walker's young bits), then @cmd */
static ssize_t touch_and_write(struct vm_area_struct *anon, const char *cmd)
{
	unsigned long p;

	for (p = 0; p < ANON_PAGES; p++)
		assert_int_equal(mm_access(anon, anon->vm_start + p * PAGE_SIZE, true), 0);
	lru_add_drain();
	return lru_gen_seq_write(cmd, strlen(cmd));
}

/*
 * Issue 21 item 1: two "+" at the default swappiness promote the anon
 * folios by their gen field (the walker leaves them on their lists);
 * "+" at swappiness 0 then advances min_seq[anon] without moving them
 * and hands their list to the new youngest generation.  The folios wait
 * on a younger list than their field says, as in the kernel: the state
 * is consistent (nr_pages by the field) and eviction sorts them later.
 */
static void test_write_swappiness0_leftovers(void **state)
{
	struct lru_gen_folio *g = &lv(memcg)->lrugen;
	struct vm_area_struct *anon;
	struct list_head *pos;
	unsigned int id = memcg->id;
	char cmd[64];
	long on_list2 = 0, field0 = 0;

	assert_int_equal(swapon(4096, SWAP_STORE_COPY), 0);
	mm = mm_alloc(memcg);
	anon = mmap_anon(mm, ANON_PAGES * PAGE_SIZE, 0);
	assert_non_null(anon);
	snprintf(cmd, sizeof(cmd), "+ %u 0 0", id);
	assert_int_equal(touch_and_write(anon, cmd), (ssize_t)strlen(cmd));
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	assert_int_equal(touch_and_write(anon, cmd), (ssize_t)strlen(cmd));
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	snprintf(cmd, sizeof(cmd), "+ %u 0 0 0", id);
	assert_int_equal(touch_and_write(anon, cmd), (ssize_t)strlen(cmd));
	/* before the fix: 513 violations ("pfn N on the gen 2 list has gen field 0") */
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	assert_int_equal(g->max_seq, 6);
	assert_int_equal(g->min_seq[LRU_GEN_ANON], 3);
	assert_int_equal(g->nr_pages[0][LRU_GEN_ANON][ZONE_NORMAL], ANON_PAGES);
	for (pos = g->folios[2][LRU_GEN_ANON][ZONE_NORMAL].next;
	     pos != &g->folios[2][LRU_GEN_ANON][ZONE_NORMAL]; pos = pos->next) {
		on_list2++;
		field0 += folio_lru_gen(list_entry(pos, struct folio, lru)) == 0;
	}
	assert_int_equal(on_list2, ANON_PAGES);
	assert_int_equal(field0, ANON_PAGES);
	/* eviction at the default swappiness sorts them; all stays consistent */
	snprintf(cmd, sizeof(cmd), "- %u 0 %lu", id, g->max_seq - 2);
	assert_int_equal(lru_gen_seq_write(cmd, strlen(cmd)), (ssize_t)strlen(cmd));
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	snprintf(cmd, sizeof(cmd), "+ %u 0 0 0", id);
	assert_int_equal(touch_and_write(anon, cmd), (ssize_t)strlen(cmd));
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
	mmput(mm);
	mm = NULL;
	swapoff();
}

/* a memcg's path is its ancestors' names from the root down */
static void test_show_nested_path(void **state)
{
	struct mem_cgroup *a = mem_cgroup_create(memcg, "a");
	struct mem_cgroup *b = mem_cgroup_create(a, "bb");
	char want[64], *text;

	assert_non_null(b);
	text = show(false);
	snprintf(want, sizeof(want), "memcg %u /test/a/bb\n", b->id);
	if (!strstr(text, want))
		fail_msg("no '%s' in:\n%s", want, text);
	free(text);
	mem_cgroup_offline(b);
	mem_cgroup_offline(a);
}

static void test_show_parse(void **state)
{
	bool full = true;

	assert_int_equal(lru_gen_show_parse("lru_gen", &full), 0);
	assert_false(full);
	assert_int_equal(lru_gen_show_parse("lru_gen_full", &full), 0);
	assert_true(full);
	assert_int_equal(lru_gen_show_parse("lru_gen_fulll", &full), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_show_example, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_full_example, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_id_not_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_evict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_swappiness0_leftovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_nested_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_show_parse, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
