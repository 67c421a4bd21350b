/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU folio batches and batched freeing (mm/swap.c):
 * folio_add_lru() and friends queue folios per CPU and
 * folio_batch_move_lru() moves a whole batch under one lru_lock hold.
 */
#ifndef LRULAB_SWAP_H
#define LRULAB_SWAP_H

#include <limits.h>
#include <lrulab/mmzone.h>
#include <lrulab/switches.h>

/* 31 slots + header = 256 bytes, a power of two */
#define FOLIO_BATCH_SIZE 31
#define SWAP_CLUSTER_MAX 32UL

/*
 * nr_pages is only kept by the per-CPU LRU caches while mthp-lru-cache
 * (s4) is on, through folio_batch_add_lru_cache(); every other batch
 * leaves it 0.  One byte, as the review of the patch asked: a cached
 * batch holds at most FOLIO_BATCH_SIZE pages before it drains, plus the
 * folio of under FOLIO_BATCH_SIZE pages that tipped it over, so the count
 * stays below 64 and the header stays 4 bytes.
 */
struct folio_batch {
	unsigned char nr;
	unsigned char i;
	unsigned char nr_pages;
	bool percpu_pvec_drained;
	struct folio *folios[FOLIO_BATCH_SIZE];
};
_Static_assert(sizeof(struct folio_batch) == 256, "folio_batch is 256 bytes");

static inline void folio_batch_init(struct folio_batch *fbatch)
{
	fbatch->nr = 0;
	fbatch->i = 0;
	fbatch->nr_pages = 0;
	fbatch->percpu_pvec_drained = false;
}
static inline void folio_batch_reinit(struct folio_batch *fbatch)
{
	fbatch->nr = 0;
	fbatch->i = 0;
	fbatch->nr_pages = 0;
}
static inline unsigned int folio_batch_count(const struct folio_batch *fbatch)
{
	return fbatch->nr;
}
static inline unsigned int folio_batch_space(const struct folio_batch *fbatch)
{
	return FOLIO_BATCH_SIZE - fbatch->nr;
}
/* Returns the slots left: 0 means the batch is now full. */
static inline unsigned int folio_batch_add(struct folio_batch *fbatch,
					   struct folio *folio)
{
	fbatch->folios[fbatch->nr++] = folio;
	return folio_batch_space(fbatch);
}
/*
 * The per-CPU LRU caches' add with mthp-lru-cache on: 0 once the batch
 * holds more than FOLIO_BATCH_SIZE pages, else the slots left.  A folio
 * too large to be cached makes its batch drain at once anyway, so its
 * pages saturate the count instead of wrapping the byte.
 */
static inline unsigned int folio_batch_add_lru_cache(struct folio_batch *fbatch,
						     struct folio *folio)
{
	long nr_pages = fbatch->nr_pages + folio_nr_pages(folio);

	fbatch->folios[fbatch->nr++] = folio;
	fbatch->nr_pages = nr_pages > UCHAR_MAX ? UCHAR_MAX : (unsigned char)nr_pages;
	if (nr_pages > FOLIO_BATCH_SIZE)
		return 0;
	return folio_batch_space(fbatch);
}

/*
 * May @folio linger in a per-CPU LRU cache?  Before s4 only small folios
 * may; with mthp-lru-cache on, any folio of fewer than FOLIO_BATCH_SIZE
 * pages (16K, 32K, 64K with 4K pages), since the page cap above keeps a
 * cache from holding more than FOLIO_BATCH_SIZE pages for long.
 */
static inline bool folio_may_be_lru_cached(const struct folio *folio)
{
	if (lrulab_switch_on(SW_MTHP_LRU_CACHE))
		return folio_nr_pages(folio) < FOLIO_BATCH_SIZE;
	return !folio_test_large(folio);
}

int lru_batches_init(void);
void lru_batches_exit(void);

void folio_add_lru(struct folio *folio);
void folio_add_lru_vma(struct folio *folio, void *vma);
void folio_mark_accessed(struct folio *folio);
void folio_activate(struct folio *folio);
void deactivate_file_folio(struct folio *folio);
void folio_deactivate(struct folio *folio);
void folio_mark_lazyfree(struct folio *folio);
void folio_rotate_reclaimable(struct folio *folio);

void lru_add_drain(void);
void lru_add_drain_cpu(int cpu);
void lru_add_drain_all(void);
void lru_cache_disable(void);
void lru_cache_enable(void);
bool lru_cache_disabled(void);
/* Folios sitting in @cpu's batches (all kinds). */
unsigned int lru_batches_count(int cpu);
/* Pages they hold, as counted with mthp-lru-cache on (0 while it is off). */
unsigned int lru_batches_pages(int cpu);

/*
 * How often the caches were drained: lru_add_drain() calls (this CPU),
 * lru_add_drain_all() calls and lru_cache_disable()'s forced drains
 * (every CPU).  The local drain a drain of all CPUs starts with is part
 * of it, not counted as a call of its own.  Summed over CPUs on read.
 */
struct lru_drain_stats {
	unsigned long local;
	unsigned long all;
	unsigned long all_ns;		/* time the lru_add_drain_all() callers waited */
	unsigned long all_works;	/* drain work items they queued */
};
void lru_drain_stats_read(struct lru_drain_stats *out);

/*
 * How far a caller working through several folios has drained: each
 * level runs at most once for all of them (the kernel's
 * lru_cache_drain_for_folio() cursor).
 */
enum lru_cache_drained {
	LRU_CACHE_NOT_DRAINED,
	LRU_CACHE_DRAINED_LOCAL,
	LRU_CACHE_DRAINED_ALL,
};
/*
 * @folio may be pinned by a per-CPU LRU cache: if its refcount is not
 * what its mappings and the caller's @caller_refs explain, drain this
 * CPU's caches, then, if that was not enough, every CPU's.  Nothing for
 * a folio that may not be cached.  @drained (may be NULL) is the cursor
 * above, updated.  Must run on a model CPU, with no spin lock held.
 */
void lru_cache_drain_for_folio(struct folio *folio, int caller_refs,
			       enum lru_cache_drained *drained);

/* Drop @refs[i] (or 1 each when @refs is NULL) references on every folio
 * of the batch; folios reaching zero leave the LRU under one lru_lock
 * hold per lruvec run and are uncharged and freed.  Empties the batch. */
void folios_put_refs(struct folio_batch *folios, unsigned int *refs);
static inline void folios_put(struct folio_batch *folios)
{
	folios_put_refs(folios, NULL);
}
void __folio_batch_release(struct folio_batch *fbatch);
static inline void folio_batch_release(struct folio_batch *fbatch)
{
	if (folio_batch_count(fbatch))
		__folio_batch_release(fbatch);
}
void __folio_put(struct folio *folio);
static inline void folio_put(struct folio *folio)
{
	if (folio_put_testzero(folio))
		__folio_put(folio);
}
static inline void folio_put_refs(struct folio *folio, int refs)
{
	if (folio_ref_sub_and_test(folio, refs))
		__folio_put(folio);
}

#endif /* LRULAB_SWAP_H */
