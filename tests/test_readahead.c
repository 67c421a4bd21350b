// SPDX-License-Identifier: MIT
/*
 * Readahead on reads of regular files (mm/readahead.c): the windows of a
 * sequential read from offset 0 as the kernel's ramp sizes them, the
 * PG_readahead hit that starts the next window, random reads detected
 * and read as they are, POSIX_FADV_RANDOM reading exactly the demanded
 * page per miss and SEQUENTIAL doubling the cap; readahead folios on
 * the inactive list unreferenced, and reads within one folio marking it
 * accessed once.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <lrulab/trace.h>
#include <lrulab/fs.h>
#include <lrulab/lrulab.h>
#include <lrulab/mm_inline.h>
#include <lrulab/swap.h>

#include "reclaim_test.h"

static int setup(void **state)
{
	return reclaim_test_setup(16384, "ra");
}

static unsigned long ev(enum vm_event_item item)
{
	mem_cgroup_flush_all();
	return memcg_events(memcg, item);
}

static unsigned long lru_pages(enum lru_list lru)
{
	return lruvec_lru_size(lruvec_of(memcg), lru, MAX_NR_ZONES - 1);
}

/* pgpgin is the block layer's: no memcg counts it */
static unsigned long pgpgin_sectors(void)
{
	unsigned long events[NR_VM_EVENT_ITEMS];

	all_vm_events(events);
	return events[PGPGIN];
}

static unsigned long cached(struct address_space *mapping)
{
	return (unsigned long)atomic_long_read(&mapping->nrpages);
}

/* The flags of the cached folio at @index (which must be there). */
static bool folio_flag(struct address_space *mapping, unsigned long index, int bit)
{
	struct folio *folio = filemap_get_folio(mapping, index);
	bool ret;

	assert_non_null(folio);
	ret = test_bit(bit, &folio->flags);
	folio_put(folio);
	return ret;
}

static void read_page(struct file *file, unsigned long index)
{
	assert_int_equal(filemap_read(file, (long long)index * PAGE_SIZE, PAGE_SIZE,
				      memcg, NULL), PAGE_SIZE);
}

static void test_ra_sizes(void **state)
{
	/* the kernel's table for ra_pages 32, and the ramp */
	static const unsigned long init[][2] = {
		{ 1, 4 }, { 2, 4 }, { 3, 8 }, { 4, 8 }, { 5, 16 }, { 8, 16 },
		{ 9, 32 }, { 31, 32 }, { 32, 32 }, { 100, 32 },
	};
	static const unsigned int next[][2] = {
		{ 1, 4 }, { 4, 8 }, { 8, 16 }, { 16, 32 }, { 17, 32 }, { 32, 32 },
	};
	struct file_ra_state ra = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(init); i++)
		assert_int_equal(get_init_ra_size(init[i][0], 32), init[i][1]);
	for (i = 0; i < ARRAY_SIZE(next); i++) {
		ra.size = next[i][0];
		assert_int_equal(get_next_ra_size(&ra, 32), next[i][1]);
	}
	/* SEQUENTIAL's cap of 64: small windows still quadruple */
	ra.size = 2;
	assert_int_equal(get_next_ra_size(&ra, 64), 8);
	ra.size = 32;
	assert_int_equal(get_next_ra_size(&ra, 64), 64);
}

/* what the readahead trace events report, counted by the test's own probes */
struct ra_counts {
	unsigned long sync, async, windows, window_pages;
};

static void count_sync(void *data, unsigned long index, unsigned long req_count)
{
	((struct ra_counts *)data)->sync++;
}

static void count_async(void *data, unsigned long index)
{
	((struct ra_counts *)data)->async++;
}

static void count_window(void *data, unsigned long start, unsigned int size,
			 unsigned int async_size)
{
	((struct ra_counts *)data)->windows++;
	((struct ra_counts *)data)->window_pages += size;
}

/*
 * 4 KiB reads of a 256-page file from 0: one sync window of 4, async
 * windows of 8, 16, then 32 each started by the read of the page that
 * carries the mark, the last one cut at the end of the file with no
 * mark; every page read ahead once, none of them by a demand read.
 */
static void test_sequential_windows(void **state)
{
	static const unsigned long expect[][4] = {
		/* read of page, window start, size, async_size */
		{ 0, 0, 4, 3 },      { 1, 4, 8, 8 },      { 4, 12, 16, 16 },
		{ 12, 28, 32, 32 },  { 28, 60, 32, 32 },  { 60, 92, 32, 32 },
		{ 92, 124, 32, 32 }, { 124, 156, 32, 32 }, { 156, 188, 32, 32 },
		{ 188, 220, 32, 32 }, { 220, 252, 32, 32 },
	};
	struct address_space *mapping = file_setup(256);
	unsigned long pgpgin = pgpgin_sectors(), seen = 0, i, last_start = ~0UL, pages = 0;
	struct ra_counts ra = { 0 };
	struct file file;

	assert_non_null(mapping);
	file_open(&file, mapping);
	assert_int_equal(register_trace_readahead_sync(count_sync, &ra), 0);
	assert_int_equal(register_trace_readahead_async(count_async, &ra), 0);
	assert_int_equal(register_trace_readahead_window(count_window, &ra), 0);
	for (i = 0; i < 256; i++) {
		read_page(&file, i);
		if (file.f_ra.start == last_start)
			continue;
		last_start = file.f_ra.start;
		assert_true(seen < ARRAY_SIZE(expect));
		assert_int_equal(i, expect[seen][0]);
		assert_int_equal(file.f_ra.start, expect[seen][1]);
		assert_int_equal(file.f_ra.size, expect[seen][2]);
		assert_int_equal(file.f_ra.async_size, expect[seen][3]);
		/* the window is in the cache up to the file's end */
		assert_int_equal(cached(mapping), min_t(unsigned long, 256,
							expect[seen][1] + expect[seen][2]));
		seen++;
	}
	assert_int_equal(seen, ARRAY_SIZE(expect));
	/* one miss reached readahead, each other window a mark's hit */
	unregister_trace_readahead_sync(count_sync, &ra);
	unregister_trace_readahead_async(count_async, &ra);
	unregister_trace_readahead_window(count_window, &ra);
	for (i = 0; i < ARRAY_SIZE(expect); i++)
		pages += expect[i][2];
	assert_int_equal(ra.sync, 1);
	assert_int_equal(ra.async, ARRAY_SIZE(expect) - 1);
	assert_int_equal(ra.windows, ARRAY_SIZE(expect));
	assert_int_equal(ra.window_pages, pages);
	assert_int_equal(file.f_ra.prev_pos, 256L * PAGE_SIZE);
	for (i = 0; i < 256; i++)
		assert_false(folio_flag(mapping, i, PG_readahead));
	/* pgpgin in sectors: each page came in once */
	assert_int_equal(pgpgin_sectors() - pgpgin, 256 * (PAGE_SIZE >> 9));
	lru_add_drain();
	assert_int_equal(lru_pages(LRU_INACTIVE_FILE), 256);
	assert_int_equal(ev(PGACTIVATE), 0);
	file_free(mapping);
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

/*
 * The first miss reads 0-3 with the mark on 1, the pages not asked for
 * unreferenced; reading 1 clears the mark and reads the next window,
 * 4-11, marked on its first page.
 */
static void test_mark_hit_starts_next_window(void **state)
{
	struct address_space *mapping = file_setup(64);
	struct file file;
	unsigned long i;

	assert_non_null(mapping);
	file_open(&file, mapping);
	read_page(&file, 0);
	assert_int_equal(cached(mapping), 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(folio_flag(mapping, i, PG_readahead), i == 1);
	assert_true(folio_flag(mapping, 0, PG_referenced));
	for (i = 1; i < 4; i++)
		assert_false(folio_flag(mapping, i, PG_referenced));
	/* a read that does not reach the mark reads nothing ahead */
	assert_int_equal(filemap_read(&file, 100, 200, memcg, NULL), 200);
	assert_int_equal(cached(mapping), 4);

	read_page(&file, 1);
	assert_false(folio_flag(mapping, 1, PG_readahead));
	assert_int_equal(cached(mapping), 12);
	for (i = 4; i < 12; i++) {
		assert_int_equal(folio_flag(mapping, i, PG_readahead), i == 4);
		assert_false(folio_flag(mapping, i, PG_referenced));
	}
	lru_add_drain();
	assert_int_equal(lru_pages(LRU_INACTIVE_FILE), 12);
	assert_int_equal(lru_pages(LRU_ACTIVE_FILE), 0);
	file_free(mapping);
}

/*
 * Away from where the file last read and with nothing cached before:
 * random, read as it is with the state untouched; the next page after a
 * random read starts a stream.
 */
static void test_random_read_as_is(void **state)
{
	struct address_space *mapping = file_setup(1024);
	struct file file;

	assert_non_null(mapping);
	file_open(&file, mapping);
	read_page(&file, 500);
	assert_int_equal(cached(mapping), 1);
	read_page(&file, 100);
	assert_int_equal(cached(mapping), 2);
	assert_int_equal(file.f_ra.size, 0);
	read_page(&file, 101);
	assert_int_equal(cached(mapping), 6);
	assert_int_equal(file.f_ra.start, 101);
	assert_int_equal(file.f_ra.size, 4);
	assert_true(folio_flag(mapping, 102, PG_readahead));
	/* a miss just past a cached run longer than the request continues it */
	read_page(&file, 105);
	assert_int_equal(file.f_ra.start, 105);
	assert_int_equal(file.f_ra.size, 6);	/* min(100-104 cached + 1, 32) */
	assert_int_equal(file.f_ra.async_size, 1);
	assert_int_equal(cached(mapping), 12);
	assert_true(folio_flag(mapping, 110, PG_readahead));
	/* and one with no cached run before it is still read as it is */
	read_page(&file, 300);
	assert_int_equal(cached(mapping), 13);
	assert_int_equal(file.f_ra.start, 105);
	file_free(mapping);
}

/* FADV_RANDOM: one page per 4 KiB miss, even for the next page; NORMAL
 * restores readahead; SEQUENTIAL doubles the cap. */
static void test_fadvise(void **state)
{
	struct address_space *mapping = file_setup(1024);
	unsigned long pgpgin = pgpgin_sectors(), i;
	static const unsigned long pages[] = { 7, 8, 9, 0, 1, 500, 2 };
	struct file file;

	assert_non_null(mapping);
	file_open(&file, mapping);
	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_WILLNEED), -EINVAL);
	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_RANDOM), 0);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		read_page(&file, pages[i]);
		assert_int_equal(cached(mapping), i + 1);
	}
	assert_int_equal(pgpgin_sectors() - pgpgin, ARRAY_SIZE(pages) * (PAGE_SIZE >> 9));
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		assert_false(folio_flag(mapping, pages[i], PG_readahead));
	/* a two-page read reads exactly its two pages */
	assert_int_equal(filemap_read(&file, 600L * PAGE_SIZE, 2 * PAGE_SIZE, memcg, NULL),
			 2 * PAGE_SIZE);
	assert_int_equal(cached(mapping), ARRAY_SIZE(pages) + 2);

	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_NORMAL), 0);
	read_page(&file, 602);		/* continues the last read */
	assert_int_equal(file.f_ra.size, 4);

	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_SEQUENTIAL), 0);
	assert_int_equal(file.f_ra.ra_pages, 64);
	file_free(mapping);

	/* a stream from 0 under SEQUENTIAL: 4, 8, 16, 32, then 64 */
	mapping = file_setup(1024);
	assert_non_null(mapping);
	file_open(&file, mapping);
	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_SEQUENTIAL), 0);
	for (i = 0; i < 1024; i++) {
		unsigned int size = file.f_ra.size;

		read_page(&file, i);
		if (file.f_ra.size != size)
			assert_int_equal(file.f_ra.size, size ? 2 * size : 4);
	}
	assert_int_equal(file.f_ra.size, 64);
	assert_int_equal(cached(mapping), 1024);
	file_free(mapping);
}

/*
 * A device with read_ahead_kb 8192 (2048 pages), set before the open as
 * sysfs would: the ramp goes on doubling to it, and fadvise NORMAL and
 * SEQUENTIAL take the device's value, not the default.
 */
static void test_device_ra_pages(void **state)
{
	static const unsigned int sizes[] = { 4, 16, 64, 256, 512, 1024, 2048 };
	struct address_space *mapping = file_setup(8192);
	unsigned int seen = 0, size;
	struct file file;
	unsigned long i;

	assert_non_null(mapping);
	assert_int_equal(mapping->ra_pages, VM_READAHEAD_PAGES);
	mapping->ra_pages = 2048;
	file_open(&file, mapping);
	assert_int_equal(file.f_ra.ra_pages, 2048);
	for (i = 0; i < 8192; i++) {
		size = file.f_ra.size;
		read_page(&file, i);
		if (file.f_ra.size == size || seen == ARRAY_SIZE(sizes))
			continue;
		assert_int_equal(file.f_ra.size, sizes[seen]);
		seen++;
	}
	assert_int_equal(seen, ARRAY_SIZE(sizes));
	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_SEQUENTIAL), 0);
	assert_int_equal(file.f_ra.ra_pages, 4096);
	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_NORMAL), 0);
	assert_int_equal(file.f_ra.ra_pages, 2048);
	file_free(mapping);
}

/*
 * 1 KiB reads through one page mark it once; a read that starts where
 * the last ended marks nothing again; one crossing into the next folio
 * marks that.  Reading page 0 again after another page marks it a
 * second time: it is activated.
 */
static void test_accessed_once_per_run(void **state)
{
	struct address_space *mapping = file_setup(64);
	struct file file;
	int i;

	assert_non_null(mapping);
	file_open(&file, mapping);
	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_RANDOM), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(filemap_read(&file, i * 1024L, 1024, memcg, NULL), 1024);
	/* the same page again, right after: still the same run */
	assert_int_equal(filemap_read(&file, 0, PAGE_SIZE, memcg, NULL), PAGE_SIZE);
	lru_add_drain();
	assert_true(folio_flag(mapping, 0, PG_referenced));
	assert_false(folio_flag(mapping, 0, PG_active));
	assert_int_equal(ev(PGACTIVATE), 0);

	read_page(&file, 1);
	assert_true(folio_flag(mapping, 1, PG_referenced));
	read_page(&file, 0);
	lru_add_drain();
	assert_true(folio_flag(mapping, 0, PG_active));
	assert_false(folio_flag(mapping, 1, PG_active));
	assert_int_equal(ev(PGACTIVATE), 1);
	assert_int_equal(lru_pages(LRU_ACTIVE_FILE), 1);
	file_free(mapping);
}

/* The (start, size) of each window a read of @n pages from 0 sets up. */
static int stream_windows(struct file *file, unsigned long n, unsigned long (*w)[2], int max)
{
	unsigned long i, last_start = ~0UL;
	int seen = 0;

	for (i = 0; i < n; i++) {
		read_page(file, i);
		if (file->f_ra.start == last_start)
			continue;
		last_start = file->f_ra.start;
		if (seen < max) {
			w[seen][0] = file->f_ra.start;
			w[seen][1] = file->f_ra.size;
		}
		seen++;
	}
	return seen;
}

/*
 * A file system with large folios (max order 9, as ext4's and XFS's):
 * the order grows by two a window and each async window ends on its
 * alignment, so that a stream's windows are cut as the kernel cuts
 * them: with 128 KiB, 0-3, 4-11, 12-15, 16-23, 24-31, 32-47, 48-63,
 * then 32 pages each; with the 8 MiB of a disk's read_ahead_kb 8192,
 * 4, 16, 60, 240, 448, 256, 512, 512, 1024, 1024, then 2048 each (the
 * host's traced ramp begins 4, 16, 60, 240, 448).  Pages stay order 0.
 */
static void test_large_folio_windows(void **state)
{
	static const unsigned long small[][2] = {
		{ 0, 4 }, { 4, 8 }, { 12, 4 }, { 16, 8 }, { 24, 8 }, { 32, 16 },
		{ 48, 16 }, { 64, 32 }, { 96, 32 }, { 128, 32 },
	};
	static const unsigned long big[] = {
		4, 16, 60, 240, 448, 256, 512, 512, 1024, 1024, 2048, 2048,
	};
	unsigned long w[16][2], start = 0;
	struct address_space *mapping = file_setup(160);
	struct file file;
	int i;

	assert_non_null(mapping);
	mapping->max_folio_order = 9;
	file_open(&file, mapping);
	assert_int_equal(stream_windows(&file, 128, w, 16), ARRAY_SIZE(small));
	for (i = 0; i < (int)ARRAY_SIZE(small); i++) {
		assert_int_equal(w[i][0], small[i][0]);
		assert_int_equal(w[i][1], small[i][1]);
	}
	assert_int_equal(file.f_ra.order, 5);
	assert_int_equal(cached(mapping), 160);
	file_free(mapping);

	mapping = file_setup(10240);
	assert_non_null(mapping);
	mapping->max_folio_order = 9;
	mapping->ra_pages = 2048;
	file_open(&file, mapping);
	assert_int_equal(stream_windows(&file, 6144, w, 16), ARRAY_SIZE(big));
	for (i = 0; i < (int)ARRAY_SIZE(big); i++) {
		assert_int_equal(w[i][0], start);
		assert_int_equal(w[i][1], big[i]);
		start += big[i];
	}
	assert_int_equal(file.f_ra.order, 9);
	file_free(mapping);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * A device with a read latency: each miss sleeps through it (a lower
 * bound, whatever else the machine does), so that five misses take at
 * least five latencies; what was read is the same as without one.
 */
static void test_read_latency(void **state)
{
	struct address_space *mapping = file_setup(64);
	unsigned long pgpgin = pgpgin_sectors();
	struct file file;
	long long t0;
	int i;

	assert_non_null(mapping);
	mapping->read_latency_us = 2000;
	file_open(&file, mapping);
	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_RANDOM), 0);
	t0 = now_ns();
	for (i = 0; i < 5; i++)
		read_page(&file, (unsigned long)i * 10);
	assert_true(now_ns() - t0 >= 5 * 2000000LL);
	assert_int_equal(cached(mapping), 5);
	assert_int_equal(pgpgin_sectors() - pgpgin, 5 * (PAGE_SIZE >> 9));
	file_free(mapping);
}

/* Bad positions and the end of the file. */
static void test_read_bounds(void **state)
{
	struct address_space *mapping = file_setup(4);
	char buf[2 * PAGE_SIZE];
	struct file file;

	assert_non_null(mapping);
	file_open(&file, mapping);
	assert_int_equal(filemap_read(&file, -1, 1, memcg, buf), -EINVAL);
	assert_int_equal(filemap_read(&file, 4L * PAGE_SIZE, 1, memcg, buf), 0);
	assert_int_equal(filemap_read(&file, 3L * PAGE_SIZE + 10, sizeof(buf), memcg, buf),
			 PAGE_SIZE - 10);
	file_free(mapping);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ra_sizes),
		cmocka_unit_test_setup_teardown(test_sequential_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark_hit_starts_next_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_read_as_is, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fadvise, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_ra_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_accessed_once_per_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_folio_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_latency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_bounds, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
