/* SPDX-License-Identifier: MIT */
/*
 * What mm/file.c and mm/page-writeback.c share: a regular file's inode
 * with its store, and the list of files the flusher walks; and the
 * reader's wait for its device, which mm/page_io.c's swap-ins share.
 */
#ifndef LRULAB_MM_FILE_INTERNAL_H
#define LRULAB_MM_FILE_INTERNAL_H

#include <pthread.h>

#include <lrulab/pagemap.h>

/*
 * Freed a grace period after file_free(), as shmem's inode: a CPU that
 * read a folio's ->mapping just before truncation may still test it.
 */
struct file_inode {
	struct address_space mapping;
	unsigned char *store;		/* size_pages pages */
	struct list_head list;		/* on regular_files */
	struct rcu_head rcu;
};

extern pthread_mutex_t regular_files_lock;
extern struct list_head regular_files;

static inline unsigned long *file_store_page(struct address_space *mapping,
					     unsigned long index)
{
	struct file_inode *inode = container_of(mapping, struct file_inode, mapping);

	return (unsigned long *)(inode->store + index * PAGE_SIZE);
}

/*
 * Sleep until the device has read a page, @latency_ns after the miss:
 * a file's read here, a swap-in from a disk in mm/page_io.c.
 */
void io_wait_read(u64 latency_ns);

/* Write @buf (a page) to page @index of the store. */
void file_store_write(struct address_space *mapping, unsigned long index, const void *buf);

/*
 * Read page @index of the store into a new folio in the cache and on
 * the LRU (PG_readahead set when @readahead; no refault accounting of
 * the shadow for a @write): 0 with *@foliop referenced (when not NULL),
 * -ENOMEM, or -EAGAIN when a folio got there first.  mm/file.c's misses
 * and mm/readahead.c's windows.
 */
int file_read_folio(struct address_space *mapping, unsigned long index,
		    struct mem_cgroup *memcg, bool readahead, bool write,
		    struct folio **foliop);

#endif /* LRULAB_MM_FILE_INTERNAL_H */
