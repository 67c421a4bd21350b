/* SPDX-License-Identifier: MIT */
/* What mm/filemap.c shares with mm/page_cache_entry.c: a slot's entry. */
#ifndef LRULAB_MM_FILEMAP_INTERNAL_H
#define LRULAB_MM_FILEMAP_INTERNAL_H

#include <lrulab/pagemap.h>
#include <lrulab/rcupdate.h>

struct page_cache_entry {
	struct folio *folio;	/* NULL once deleted or swapped out */
	unsigned long swap;	/* shmem: the swap slot while swapped out */
	struct rcu_head rcu;
};

/* From the calling CPU's group, or malloc(); NULL when out of memory. */
struct page_cache_entry *page_cache_entry_alloc(void);
/* An entry the table never published: back at once. */
void page_cache_entry_free_unused(struct page_cache_entry *e);
/* An entry taken out of the table: reusable after a grace period. */
void page_cache_entry_free_rcu(struct page_cache_entry *e);
/* This CPU's full groups to call_rcu() now: a file is going away. */
void page_cache_entry_flush(void);

#endif
