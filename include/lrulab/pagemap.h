/* SPDX-License-Identifier: MIT */
/*
 * Page cache and shmem files (mm/filemap.c, mm/shmem.c).  The index ->
 * folio map is liburcu's RCU lock-free hash table; lookups run inside an
 * RCU read section and take a reference with folio_try_get().
 *
 * A folio in the page cache holds nr_pages references of the cache (as
 * the kernel's filemap_add_folio), points back with ->mapping/->index,
 * and counts in NR_FILE_PAGES (and NR_SHMEM when swap backed) and in
 * ->nrpages.  Only order-0 folios are created for shmem files so far.
 */
#ifndef LRULAB_PAGEMAP_H
#define LRULAB_PAGEMAP_H

#include <lrulab/mmzone.h>
#include <lrulab/rcupdate.h>

struct mem_cgroup;
struct folio_batch;

#define AS_UNEVICTABLE 0
#define AS_REGULAR	1	/* a regular file on a store, not shmem */
#define AS_NODATA	2	/* its store keeps no data (file_setup_nodata) */

struct address_space {
	void **i_pages;			/* index -> folio or value: size_pages slots */
	spinlock_t i_lock;		/* serialises insert/delete at an index */
	atomic_long_t nrpages;
	atomic_long_t nrswapped;	/* swap entries in i_pages (shmem) */
	unsigned long flags;
	unsigned long size_pages;	/* i_size in pages */
	unsigned int order;		/* folio order for new folios */
	unsigned int ra_pages;		/* the backing device's read_ahead_kb, in pages */
	unsigned int read_latency_us;	/* the backing device's: a read waits this long */
	/*
	 * mapping_max_folio_order(): the largest folio the file system
	 * takes (0: none).  Readahead sizes and aligns its windows by it,
	 * as the kernel does; the folios made here are order 0 all the same.
	 */
	unsigned int max_folio_order;
	spinlock_t i_mmap_lock;		/* i_mmap */
	struct list_head i_mmap;	/* VMAs mapping this file */
};

/* A shmem file of @size_pages pages; NULL with errno set.  @order must be
 * 0 (EINVAL otherwise): large shmem folios are not modelled yet. */
struct address_space *shmem_file_setup(unsigned long size_pages, unsigned int order);
/*
 * Truncates everything and frees the file.  No VMA may still map it.
 * Like shmem_truncate_range() it may run on a thread that is not a model
 * CPU, but only at a quiescent point: such a thread is no RCU reader.
 * Everything else here must run on a model CPU.
 */
void shmem_file_free(struct address_space *mapping);

/* An empty page cache for a file of @size_pages pages: 0 or -ENOMEM. */
int page_cache_init(struct address_space *mapping, unsigned long size_pages);
/* The empty page cache of a file going away. */
void page_cache_destroy(struct address_space *mapping);

/* Referenced folio at @index or NULL. */
struct folio *filemap_get_folio(struct address_space *mapping, unsigned long index);
/*
 * Up to a batch of referenced folios from *@start to @end (inclusive),
 * in index order; *@start moves past the last one found.  Returns the
 * number added to @fbatch.
 */
unsigned int filemap_get_folios(struct address_space *mapping, unsigned long *start,
				unsigned long end, struct folio_batch *fbatch);
/*
 * The first index from @index (going up, or down) that holds no folio
 * (a hole or a shadow), scanning at most @max_scan slots; when all of
 * them hold folios, an index outside the range scanned (ULONG_MAX, or 0
 * going up, where the scan wrapped).
 */
unsigned long page_cache_next_miss(struct address_space *mapping, unsigned long index,
				   unsigned long max_scan);
unsigned long page_cache_prev_miss(struct address_space *mapping, unsigned long index,
				   unsigned long max_scan);
/*
 * Insert a new folio (refcount held by the caller, charged, not yet
 * visible to anyone) at @index: sets ->mapping/->index, takes the cache's
 * nr_pages references, accounts it.  0, or -EEXIST when the index is
 * taken (then nothing changed).  Does not add it to the LRU.
 */
int __filemap_add_folio(struct address_space *mapping, struct folio *folio,
			unsigned long index);
/*
 * Remove the referenced folios of @fbatch from @mapping under one i_lock
 * hold and drop the cache's references; those no longer in @mapping are
 * left alone.  The batch keeps the caller's references.
 */
void delete_from_page_cache_batch(struct address_space *mapping,
				  struct folio_batch *fbatch);

/*
 * Find or create the folio at @index, charged to @memcg; returns it with
 * a reference held by the caller in *foliop.  0, -ENOMEM (allocation or
 * charge failed), -EINVAL (beyond the file).
 */
int shmem_get_folio(struct address_space *mapping, unsigned long index,
		    struct mem_cgroup *memcg, struct folio **foliop);
/*
 * Remove the folios of [start, end] (pages, inclusive), freeing them:
 * hole punch (fallocate PUNCH_HOLE) and truncate.  It does not unmap: a
 * folio still mapped somewhere leaves the cache but keeps its PTEs'
 * references and is freed by their zap (shmem_punch_hole() unmaps).
 */
void shmem_truncate_range(struct address_space *mapping, unsigned long start,
			  unsigned long end);
/* fallocate(FALLOC_FL_PUNCH_HOLE): unmap [start, end] from every VMA,
 * then truncate it. */
void shmem_punch_hole(struct address_space *mapping, unsigned long start,
		      unsigned long end);

/*
 * Regular files (mm/file.c): a file of @size_pages pages on a
 * ramdisk-like store, zero-filled, whose folios are file LRU folios.
 * read(2) and write(2) of one page go through the page cache, charging a
 * new folio to @memcg: a miss reads the page from the store (refaulting
 * through its shadow entry, if it has one), every read and write marks
 * the folio accessed, a write dirties it.  @buf is PAGE_SIZE bytes (NULL:
 * touch only).  0, -EINVAL (index beyond the file) or -ENOMEM.  On a
 * model CPU.  file_free() truncates (dropping dirty data) and frees.
 */
struct address_space *file_setup(unsigned long size_pages);
/*
 * The same file on a store that keeps no data, as null_blk without
 * memory_backed: a miss reads nothing into its folio, writeback writes
 * nothing, file_store_read() gives zeroes.  The page cache, the LRU,
 * reclaim and writeback run as for file_setup(); only the copies (and
 * the store's memory) go.  For callers that never look at contents.
 */
struct address_space *file_setup_nodata(unsigned long size_pages);
void file_free(struct address_space *mapping);
int file_read_page(struct address_space *mapping, unsigned long index,
		   struct mem_cgroup *memcg, void *buf);
int file_write_page(struct address_space *mapping, unsigned long index,
		    struct mem_cgroup *memcg, const void *buf);
/* Copy page @index of the store (not the cache) into @buf: for tests. */
void file_store_read(struct address_space *mapping, unsigned long index, void *buf);

static inline bool mapping_regular(struct address_space *mapping)
{
	return mapping && test_bit(AS_REGULAR, &mapping->flags);
}

/*
 * Dirty folios and writeback (mm/page-writeback.c).  folio_mark_dirty()
 * dirties a locked page-cache folio of a regular file and accounts it
 * (nr_dirty, nr_zone_write_pending); false if it was dirty already.
 * folio_write_one() writes a locked dirty folio to its store, unlocking
 * it: the write is synchronous, as to a ramdisk, and when it ends a
 * folio reclaim marked PG_reclaim rotates to the inactive list's tail.
 * filemap_write_and_wait() writes every dirty folio of @mapping from the
 * calling model CPU (fsync); the number written.
 */
bool folio_mark_dirty(struct folio *folio);
void folio_account_cleaned(struct folio *folio);
/*
 * Writeback state and its counters (nr_writeback, nr_zone_write_pending)
 * for a file or swap write; the end rotates a PG_reclaim folio to the
 * inactive tail (pgrotated).  The ender holds a reference.
 */
void folio_start_writeback(struct folio *folio);
void folio_end_writeback(struct folio *folio);
/* Return once @folio is no longer under writeback. */
void folio_wait_writeback(struct folio *folio);
void folio_write_one(struct folio *folio);
unsigned long filemap_write_and_wait(struct address_space *mapping);
/*
 * The flusher (the kernel's per-bdi writeback worker): a thread running
 * as model CPU @cpu that writes back every regular file's dirty folios
 * when woken.  Reclaim wakes it when it isolated dirty file folios that
 * no writeback had picked up.  run: 0, -EBUSY, -EINVAL, -EAGAIN; stop
 * waits for it (lrulab_exit() stops it too); wait_idle waits until the
 * work it was woken for is done.
 */
int wb_flusher_run(int cpu);
void wb_flusher_stop(void);
void wakeup_flusher_threads(void);
void wb_flusher_wait_idle(void);
unsigned long wb_flusher_nr_wakeups(void);

static inline bool mapping_unevictable(struct address_space *mapping)
{
	return mapping && test_bit(AS_UNEVICTABLE, &mapping->flags);
}

/*
 * ->mapping can change under us (truncation clears it, the anon rmap or
 * swap-in sets it), so it is read once; the RCU read section keeps the
 * address_space it pointed to alive (inodes are freed after a grace period).
 */
static inline bool folio_evictable(struct folio *folio)
{
	struct address_space *mapping;
	bool ret;

	if (folio_test_mlocked(folio))
		return false;
	rcu_read_lock();
	mapping = READ_ONCE(folio->mapping);
	ret = ((unsigned long)mapping & PAGE_MAPPING_ANON) ||
	      !mapping_unevictable(mapping);
	rcu_read_unlock();
	return ret;
}

/*
 * The folio lock (PG_locked).  Reclaim takes it with a trylock and holds
 * it from the reference check to the free; the shmem fault and swap-in
 * wait for it, as the kernel's filemap_lock_folio() does, so that no one
 * maps a folio while reclaim writes it out.  Acquire on lock, release on
 * unlock: the lock orders the folio's memory like any other.
 */
static inline bool folio_trylock(struct folio *folio)
{
	return !(__atomic_fetch_or(&folio->flags, 1UL << PG_locked, __ATOMIC_ACQUIRE) &
		 (1UL << PG_locked));
}
void folio_lock(struct folio *folio);
static inline void folio_unlock(struct folio *folio)
{
	__atomic_fetch_and(&folio->flags, ~(1UL << PG_locked), __ATOMIC_RELEASE);
}

/*
 * Value entries in the page cache: the swap slots of swapped-out shmem
 * pages, and for regular files the shadows evicted pages leave (as the
 * kernel's xarray holds both kinds of value).  A value is a word with
 * bit 0 set, made by the caller: a shadow as pack_shadow() returns it, a
 * swap slot through swp_to_radix_entry(); 0 is none.
 * filemap_get_swap(): the value stored at @index, 0 if none.
 * filemap_replace_folio_by_swap(): @folio (locked, in the cache) gives
 * its place to @swap; the cache's references on it are dropped by the
 * caller.  filemap_replace_swap_by_folio(): the reverse, for swap-in;
 * the cache takes nr_pages references.  Both false when the entry is no
 * longer what the caller saw (truncated, or someone else got there).
 */
unsigned long filemap_get_swap(struct address_space *mapping, unsigned long index);
bool filemap_replace_folio_by_swap(struct address_space *mapping, struct folio *folio,
				   unsigned long swap);
bool filemap_replace_swap_by_folio(struct address_space *mapping, unsigned long index,
				   unsigned long swap, struct folio *folio);
/* Remove the swap entries of [start, end]; each one's slot count is
 * dropped (shmem truncate). */
void filemap_free_swap_range(struct address_space *mapping, unsigned long start,
			     unsigned long end);
/* Remove a regular file's shadow entries (truncate). */
void filemap_remove_shadows(struct address_space *mapping);

#endif /* LRULAB_PAGEMAP_H */
