/* SPDX-License-Identifier: MIT */
/*
 * Page cache and shmem files (mm/filemap.c, mm/shmem.c).  The index ->
 * folio map is liburcu's RCU lock-free hash table; lookups run inside an
 * RCU read section and take a reference with folio_try_get().
 */
#ifndef LRULAB_PAGEMAP_H
#define LRULAB_PAGEMAP_H

#include <lrulab/mmzone.h>

struct mem_cgroup;
struct cds_lfht;

#define AS_UNEVICTABLE 0

struct address_space {
	struct cds_lfht *i_pages;	/* index -> folio */
	spinlock_t i_lock;		/* serialises insert/delete at an index */
	atomic_long_t nrpages;
	unsigned long flags;
	unsigned long size_pages;	/* i_size in pages */
	unsigned int order;		/* folio order for new folios */
};

/* A shmem file of @size_pages pages; NULL with errno set. */
struct address_space *shmem_file_setup(unsigned long size_pages, unsigned int order);
/* Truncates everything and frees the file. */
void shmem_file_free(struct address_space *mapping);

/* Referenced folio at @index or NULL. */
struct folio *filemap_get_folio(struct address_space *mapping, unsigned long index);
/*
 * Find or create the folio at @index, charged to @memcg; returns it with
 * a reference held by the caller in *foliop.  0, -ENOMEM (allocation or
 * charge failed), -EINVAL (beyond the file).
 */
int shmem_get_folio(struct address_space *mapping, unsigned long index,
		    struct mem_cgroup *memcg, struct folio **foliop);
/* Remove the folios of [start, end] (pages, inclusive), freeing them:
 * hole punch (fallocate PUNCH_HOLE) and truncate. */
void shmem_truncate_range(struct address_space *mapping, unsigned long start,
			  unsigned long end);

static inline bool mapping_unevictable(struct address_space *mapping)
{
	return mapping && test_bit(AS_UNEVICTABLE, &mapping->flags);
}

#endif /* LRULAB_PAGEMAP_H */
