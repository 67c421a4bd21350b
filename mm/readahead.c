// SPDX-License-Identifier: MIT
/*
 * Readahead (the kernel's mm/readahead.c) for reads of regular files
 * through the page cache: a miss reads a window of pages around the
 * demanded one, and the first page of the window's unread tail carries
 * PG_readahead so that a reader reaching it starts the next, larger
 * window before it runs out (the kernel overlaps that with the I/O; the
 * store here is synchronous, so only the page cache and LRU effects
 * remain, which is what reclaim sees).
 *
 * Windows grow from the request by the kernel's ramp (x4 while small,
 * then x2, up to ra_pages).  A miss that continues nothing, with no
 * cached run before it longer than the request, is read as it is: that
 * is how random access is detected, with no state kept for it.
 *
 * In a mapping with large folios (ext4, XFS) the kernel grows the folio
 * order along a stream, two orders a window, and ends each asynchronous
 * window on that order's alignment: the windows of a stream are then
 * cut (4, 16, 60, 240, 448, ... pages rather than 4, 16, 64, 256, ...).
 * The order is kept here as the kernel keeps it, and the windows come
 * out the kernel's.
 *
 * Known differences: the page cache here has order-0 folios only, so a
 * window's pages are order-0 folios whatever order the kernel would
 * have given them (fewer, larger LRU entries there), there is no device
 * io_pages above ra_pages, and readahead charges retry as a demand
 * charge does where the kernel's __GFP_NORETRY gives up after one pass.
 */
#include <errno.h>
#include <string.h>

#include <lrulab/fs.h>
#include <lrulab/mm.h>
#include <lrulab/trace.h>

#include "file-internal.h"

static void do_page_cache_ra(struct file *file, unsigned long index,
			     unsigned long nr_to_read, unsigned long lookahead_size,
			     struct mem_cgroup *memcg);

static unsigned int ilog2_ul(unsigned long n)
{
	return n ? (unsigned int)(63 - __builtin_clzl(n)) : 0;
}

/*
 * page_cache_ra_order(), less the large folios: traced where its
 * tracepoint is, then the order it would allocate at, kept in ra->order
 * (the stream's, no more than the mapping's nor the window's; 0 in a
 * mapping without large folios), then the window read in order-0 folios.
 */
static void page_cache_ra_order(struct file *file, struct file_ra_state *ra,
				struct mem_cgroup *memcg)
{
	unsigned int max_order = file->f_mapping->max_folio_order;

	trace_readahead_window(ra->start, ra->size, ra->async_size);
	if (!max_order)
		ra->order = 0;
	else
		ra->order = min_t(unsigned int, min_t(unsigned int, ra->order, max_order),
				  ilog2_ul(ra->size));
	do_page_cache_ra(file, ra->start, ra->size, ra->async_size, memcg);
}

void file_ra_state_init(struct file_ra_state *ra, struct address_space *mapping)
{
	memset(ra, 0, sizeof(*ra));
	/* frozen at open, as the kernel copies bdi->ra_pages */
	ra->ra_pages = mapping->ra_pages;
	ra->prev_pos = -1;
}

void file_open(struct file *file, struct address_space *mapping)
{
	memset(file, 0, sizeof(*file));
	file->f_mapping = mapping;
	file_ra_state_init(&file->f_ra, mapping);
}

static unsigned long roundup_pow_of_two(unsigned long n)
{
	unsigned long p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

unsigned long get_init_ra_size(unsigned long size, unsigned long max)
{
	unsigned long newsize = roundup_pow_of_two(size);

	if (newsize <= max / 32)
		return newsize * 4;
	if (newsize <= max / 4)
		return newsize * 2;
	return max;
}

unsigned long get_next_ra_size(struct file_ra_state *ra, unsigned long max)
{
	unsigned long cur = ra->size;

	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

/*
 * Read [index, index + nr_to_read) into the cache, skipping pages that
 * are cached, with PG_readahead on the page @lookahead_size from the
 * end.  An allocation or charge failure ends the window there: the
 * demanded page is then read on its own by the caller.
 */
static void page_cache_ra_unbounded(struct file *file, unsigned long index,
				    unsigned long nr_to_read, unsigned long lookahead_size,
				    struct mem_cgroup *memcg)
{
	struct address_space *mapping = file->f_mapping;
	unsigned long mark = ~0UL, i;

	if (lookahead_size <= nr_to_read)
		mark = nr_to_read - lookahead_size;
	for (i = 0; i < nr_to_read; i++) {
		int err;

		if (page_cache_next_miss(mapping, index + i, 1) != index + i)
			continue;
		err = file_read_folio(mapping, index + i, memcg, i == mark, false, NULL);
		if (err == -ENOMEM)
			break;
	}
}

/* Clip the window to the file's end first (no mark past it). */
static void do_page_cache_ra(struct file *file, unsigned long index,
			     unsigned long nr_to_read, unsigned long lookahead_size,
			     struct mem_cgroup *memcg)
{
	unsigned long size = file->f_mapping->size_pages;

	if (!size || index >= size)
		return;
	if (nr_to_read > size - index)
		nr_to_read = size - index;
	page_cache_ra_unbounded(file, index, nr_to_read, lookahead_size, memcg);
}

void force_page_cache_ra(struct file *file, unsigned long index,
			 unsigned long nr_to_read, struct mem_cgroup *memcg)
{
	unsigned long max_pages = file->f_ra.ra_pages;

	/* 2 MiB at a time in the kernel; the cap is the same without io_pages */
	if (nr_to_read > max_pages)
		nr_to_read = max_pages;
	do_page_cache_ra(file, index, nr_to_read, 0, memcg);
}

/* ractl_max_pages() with no device io_pages above ra_pages */
static unsigned long ra_max_pages(struct file_ra_state *ra)
{
	return ra->ra_pages;
}

void page_cache_sync_ra(struct file *file, unsigned long index,
			unsigned long req_count, struct mem_cgroup *memcg)
{
	struct file_ra_state *ra = &file->f_ra;
	bool forced = file->f_mode & FMODE_RANDOM;
	unsigned long max_pages, prev_index, miss, contig;

	trace_readahead_sync(index, req_count);
	/* readahead off: still read the demanded page as readahead does */
	if (!ra->ra_pages) {
		req_count = 1;
		forced = true;
	}
	if (forced) {
		force_page_cache_ra(file, index, req_count, memcg);
		return;
	}
	max_pages = ra_max_pages(ra);
	prev_index = (unsigned long)((unsigned long long)ra->prev_pos >> PAGE_SHIFT);
	/* a new stream at the start, a big request, or the next page */
	if (!index || req_count > max_pages || index - prev_index <= 1UL) {
		ra->start = index;
		ra->size = (unsigned int)get_init_ra_size(req_count, max_pages);
		ra->async_size = ra->size > req_count ? ra->size - (unsigned int)req_count :
							ra->size / 2;
		goto readit;
	}
	/*
	 * Not where this file read last: another stream may have left a
	 * cached run just before.  None longer than the request: a random
	 * read, read as it is and remembered nowhere.
	 */
	miss = page_cache_prev_miss(file->f_mapping, index - 1, max_pages);
	contig = index - miss - 1;
	if (contig <= req_count) {
		do_page_cache_ra(file, index, req_count, 0, memcg);
		return;
	}
	/* cached back to the file's start: likely a stream from there */
	if (miss == ~0UL)
		contig *= 2;
	ra->start = index;
	ra->size = (unsigned int)min_t(unsigned long, contig + req_count, max_pages);
	ra->async_size = 1;
readit:
	/* a stream starts from order 0 again */
	ra->order = 0;
	page_cache_ra_order(file, ra, memcg);
}

void page_cache_async_ra(struct file *file, struct folio *folio,
			 unsigned long req_count, struct mem_cgroup *memcg)
{
	struct file_ra_state *ra = &file->f_ra;
	unsigned long index = folio->index, max_pages, start, end, aligned_end, align;

	if (!ra->ra_pages)
		return;
	/* PG_readahead is PG_reclaim: under writeback it is the latter */
	if (folio_test_writeback(folio))
		return;
	trace_readahead_async(index);
	folio_clear_readahead(folio);
	max_pages = ra_max_pages(ra);
	if (index == ra->start + ra->size - ra->async_size) {
		/* the mark this file's last window set: the stream goes on */
		ra->start += ra->size;
		ra->size = (unsigned int)max_t(unsigned long, ra->size,
					       get_next_ra_size(ra, max_pages));
	} else {
		/*
		 * Someone else's mark, or this file's state was overwritten
		 * (a random read between): continue after the cached run.
		 */
		start = page_cache_next_miss(file->f_mapping, index + 1, max_pages);
		if (!start || start - index > max_pages)
			return;
		ra->start = start;
		ra->size = (unsigned int)(start - index + req_count);
		ra->size = (unsigned int)get_next_ra_size(ra, max_pages);
	}
	/*
	 * Folios two orders above the last window's, and the window ended
	 * on that order's alignment, capped by ra_pages' own.
	 */
	ra->order += 2;
	align = 1UL << min_t(unsigned int, ra->order,
			     (unsigned int)__builtin_ctzl(max_pages));
	end = ra->start + ra->size;
	aligned_end = end & ~(align - 1);
	if (aligned_end > ra->start)
		ra->size -= (unsigned int)(end - aligned_end);
	ra->async_size = ra->size;
	page_cache_ra_order(file, ra, memcg);
}
