/* SPDX-License-Identifier: MIT */
/*
 * What mm/mglru_aging.c and mm/mglru_walk.c share: the walk context of
 * one page-table walker (the kernel's struct lru_gen_mm_walk).  Not a
 * public interface.
 */
#ifndef LRULAB_MM_MGLRU_INTERNAL_WALK_H
#define LRULAB_MM_MGLRU_INTERNAL_WALK_H

#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include <lrulab/mglru_walk.h>

/*
 * The walk context of this thread while it ages or reclaims proactively
 * (the kernel's current->reclaim_state->mm_walk): look-around batches
 * its size updates there instead of taking lru_lock under the PTL.
 */
extern __thread struct lru_gen_mm_walk *current_mm_walk;

/* mm/mglru_aging.c */
void reset_batch_size(struct lru_gen_mm_walk *walk);
void walk_update_folio(struct lru_gen_mm_walk *walk, struct folio *folio,
		       int new_gen, bool dirty);
bool suitable_to_scan(int total, int young);

/* mm/mglru_walk.c */
bool iterate_mm_list(struct lru_gen_mm_walk *walk, struct mm_struct **iter);
bool iterate_mm_list_nowalk(struct lruvec *lruvec, unsigned long seq);
void walk_mm(struct mm_struct *mm, struct lru_gen_mm_walk *walk);
void update_bloom_filter(struct lru_gen_mm_state *mm_state, unsigned long seq,
			 const void *item);
struct folio *get_pfn_folio(pte_t pte, struct mem_cgroup *memcg, int nid);
unsigned long get_pte_pfn(pte_t pte, int nid);
/*
 * The run of PTEs from @ptep (at most @max_nr) that map consecutive
 * pages of large @folio with the same bits but young and dirty, which
 * are merged into *@ptent (folio_pte_batch_flags() with
 * FPB_MERGE_YOUNG_DIRTY); 1 for a small folio.
 */
unsigned int folio_pte_batch(struct folio *folio, pte_t *ptep, pte_t *ptent,
			     unsigned int max_nr);
/* test-and-clear young of @nr PTEs: whether any was young */
bool test_and_clear_young_ptes(pte_t *ptep, unsigned int nr);

#endif /* LRULAB_MM_MGLRU_INTERNAL_WALK_H */
