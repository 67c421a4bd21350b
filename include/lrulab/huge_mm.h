/* SPDX-License-Identifier: MIT */
/*
 * Splitting anonymous large folios and the deferred split queue (the
 * kernel's mm/huge_memory.c, include/linux/huge_mm.h), for the model's
 * PTE-mapped mTHPs.
 *
 * A split turns a large anon folio into order-0 folios in place: every
 * page becomes a folio of its own with the mapcount and reference of the
 * PTE that maps it (if any), its share of the memcg charge, and, when the
 * large folio was on the LRU, a place next to it on the same list under
 * the same lru_lock hold.  The PTEs keep their pages; only the folio
 * order they carry drops to 0.  Pages no PTE maps are freed.
 *
 * A large anon folio that a zap (or a COW, or reclaim's unmap) leaves
 * partially mapped is queued for deferred split: on its memcg's queue,
 * or on its node's when it is not charged, as the kernel's
 * get_deferred_split_queue() picks.  deferred_split_scan() is the
 * shrinker's scan callback, callable directly.
 *
 * Lock order: page_table_lock -> PTE lock -> split_queue_lock, and the
 * PTE lock -> lru_lock; nothing is taken under split_queue_lock.
 */
#ifndef LRULAB_HUGE_MM_H
#define LRULAB_HUGE_MM_H

#include <lrulab/mm.h>

struct mem_cgroup;

/*
 * Large folio flags live in the second page's flags word, as in the
 * kernel; PG_partially_mapped reuses PG_reclaim's bit there.  Set while
 * the folio is queued as partially mapped (and while a scan holds it off
 * the queue), cleared by split and free under the queue lock.
 */
#define PG_partially_mapped PG_reclaim

static inline bool folio_test_partially_mapped(const struct folio *folio)
{
	return folio_test_large(folio) &&
	       test_bit(PG_partially_mapped, &((const struct folio *)folio + 1)->flags);
}

/* From lru_batches_init() / lru_batches_exit(): the queues. */
int deferred_split_init(void);
void deferred_split_exit(void);

/*
 * Split @folio, an anon large folio the caller holds locked
 * (folio_trylock) with one reference, to order 0.  0 on success: @folio
 * is then the order-0 folio of the first page, still locked and still
 * holding the caller's reference.  -EAGAIN when references other than
 * the mappings' and the caller's remain (the kernel's can_split_folio),
 * after the drain the s4 patch adds for a folio a per-CPU LRU cache may
 * pin; -EINVAL for a small or non-anon folio.  Counts THP_SPLIT_PAGE
 * (PMD order only, as the kernel) and the per-order split /
 * split_failed.  Must run on a model CPU, with no spin lock held.
 */
int split_folio(struct folio *folio);
/*
 * The same with a drain cursor shared by a batch of splits (the patch's
 * __folio_split(..., &drained)): each drain level runs at most once for
 * all of them.  @drained may be NULL.
 */
int __split_folio(struct folio *folio, enum lru_cache_drained *drained);
/*
 * Reclaim's split of an isolated folio (off the LRU, the isolation's
 * reference being the caller's): as split_folio(), but every piece but
 * the first goes to the tail of @list with a reference of its own, off
 * the LRU, unlocked, for shrink_folio_list() to take one by one.
 */
int split_folio_to_list(struct folio *folio, struct list_head *list);

/*
 * Queue @folio (anon, large, partially mapped: some PTEs gone, some
 * left) for deferred split.  Counts THP_DEFERRED_SPLIT_PAGE (PMD order)
 * and split_deferred the first time.  From folio_remove_rmap_ptes(), PTE
 * lock held.
 */
void deferred_split_folio(struct folio *folio, bool partially_mapped);
/*
 * Take @folio, whose last reference is gone, off its queue.  A lockless
 * flag test first: most large folios never were queued.  Returns whether
 * it was queued.
 */
bool folio_unqueue_deferred_split(struct folio *folio);

/*
 * The shrinker callbacks.  @memcg selects its queue (the node is then
 * ignored, as for the kernel's per-memcg queue); a NULL @memcg selects
 * node @nid's queue, which holds folios that are not charged.
 * deferred_split_count() is the queue length.  deferred_split_scan()
 * takes up to @nr_to_scan folios (at most a folio batch) off the queue,
 * splits each it can lock, draining the per-CPU LRU caches at most once
 * per level for the whole batch, puts back those it could not split, and
 * returns how many it split.  Must run on a model CPU.
 */
unsigned long deferred_split_count(struct mem_cgroup *memcg, int nid);
unsigned long deferred_split_scan(struct mem_cgroup *memcg, int nid,
				  unsigned long nr_to_scan);

#endif /* LRULAB_HUGE_MM_H */
