/* SPDX-License-Identifier: MIT */
/*
 * Open files of regular files (the kernel's struct file and its
 * readahead state, include/linux/fs.h), the read path that uses them
 * (filemap_read, mm/file.c), readahead (mm/readahead.c) and fadvise
 * (mm/fadvise.c).
 *
 * The readahead state belongs to the open file, as f_ra does: two files
 * opened on one mapping ramp up independently, while the PG_readahead
 * marks sit on the folios they share.  The kernel lets concurrent
 * readers of one struct file race on f_ra; here a struct file is used
 * by one thread at a time (each reader opens its own), so that the race
 * detector has nothing to report.
 */
#ifndef LRULAB_FS_H
#define LRULAB_FS_H

#include <sys/types.h>

#include <lrulab/pagemap.h>

struct mem_cgroup;

/* The kernel's default read_ahead_kb (VM_READAHEAD_PAGES) in pages. */
#define VM_READAHEAD_PAGES	(131072UL / PAGE_SIZE)

struct file_ra_state {
	unsigned long start;		/* first page of the last window */
	unsigned int size;		/* pages in it */
	unsigned int async_size;	/* its unread tail; PG_readahead on the first */
	unsigned int ra_pages;		/* window cap */
	unsigned int order;		/* folio order the kernel would give the last window */
	long long prev_pos;		/* byte after the previous read; -1 at open */
};

#define FMODE_RANDOM	(1U << 0)	/* POSIX_FADV_RANDOM */

struct file {
	struct address_space *f_mapping;
	unsigned int f_mode;
	struct file_ra_state f_ra;
};

/*
 * open(2) of a regular file (file_setup()): readahead state as
 * file_ra_state_init() leaves it, with the backing device's ra_pages
 * (mapping->ra_pages, VM_READAHEAD_PAGES unless set before the open, as
 * read_ahead_kb in sysfs).
 */
void file_open(struct file *file, struct address_space *mapping);
void file_ra_state_init(struct file_ra_state *ra, struct address_space *mapping);

/*
 * read(2)/pread(2) of @count bytes at @pos into @buf (NULL: no copy) as
 * filemap_read() does it: a miss starts synchronous readahead, a folio
 * with PG_readahead asynchronous readahead, new folios are charged to
 * @memcg, and each folio read is marked accessed once per run of reads
 * within it.  A miss waits the mapping's read_latency_us (the device's
 * read, folio_wait_locked() in the kernel) as a sleep; asynchronous
 * readahead waits for nothing.  Bytes read (short at the end of the
 * file, 0 past it) or -ENOMEM, -EINVAL.  On a model CPU.
 */
ssize_t filemap_read(struct file *file, long long pos, size_t count,
		     struct mem_cgroup *memcg, void *buf);

/*
 * Readahead (mm/readahead.c).  page_cache_sync_ra(): page @index was
 * missing and the read wants @req_count pages from it.
 * page_cache_async_ra(): the read reached @folio, which carries
 * PG_readahead.  force_page_cache_ra(): read @nr_to_read pages from
 * @index as they are, no marks, state untouched.  New folios are
 * charged to @memcg, put on the LRU and not marked accessed; each
 * counts pgpgin as the block layer does.
 */
void page_cache_sync_ra(struct file *file, unsigned long index,
			unsigned long req_count, struct mem_cgroup *memcg);
void page_cache_async_ra(struct file *file, struct folio *folio,
			 unsigned long req_count, struct mem_cgroup *memcg);
void force_page_cache_ra(struct file *file, unsigned long index,
			 unsigned long nr_to_read, struct mem_cgroup *memcg);
/* The window formulas: first window of a stream, and the next one. */
unsigned long get_init_ra_size(unsigned long size, unsigned long max);
unsigned long get_next_ra_size(struct file_ra_state *ra, unsigned long max);

/*
 * posix_fadvise(2) (generic_fadvise) for POSIX_FADV_NORMAL, RANDOM and
 * SEQUENTIAL; 0, or -EINVAL for any other advice.
 */
int vfs_fadvise(struct file *file, int advice);

#endif /* LRULAB_FS_H */
