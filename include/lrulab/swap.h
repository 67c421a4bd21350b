/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU folio batches and batched freeing (mm/swap.c):
 * folio_add_lru() and friends queue folios per CPU and
 * folio_batch_move_lru() moves a whole batch under one lru_lock hold.
 */
#ifndef LRULAB_SWAP_H
#define LRULAB_SWAP_H

#include <lrulab/mmzone.h>

/* 31 slots + header = 256 bytes, a power of two */
#define FOLIO_BATCH_SIZE 31
#define SWAP_CLUSTER_MAX 32UL

struct folio_batch {
	unsigned char nr;
	unsigned char i;
	bool percpu_pvec_drained;
	struct folio *folios[FOLIO_BATCH_SIZE];
};
_Static_assert(sizeof(struct folio_batch) == 256, "folio_batch is 256 bytes");

static inline void folio_batch_init(struct folio_batch *fbatch)
{
	fbatch->nr = 0;
	fbatch->i = 0;
	fbatch->percpu_pvec_drained = false;
}
static inline void folio_batch_reinit(struct folio_batch *fbatch)
{
	fbatch->nr = 0;
	fbatch->i = 0;
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

/* The lru_lock hold profile behind --profile-hold (lru_hold_profile_read,
 * lru_hold_profile_enabled, ...) is declared in <lrulab/mm_inline.h>. */
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
