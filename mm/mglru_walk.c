// SPDX-License-Identifier: MIT
/*
 * MGLRU aging, part 1 (the kernel's mm/vmscan.c "Bloom filters", "mm_struct
 * list" and the page-table walk): which mms a walker visits and how it
 * walks their page tables.
 *
 * The model has no mmap_lock: a VMA list is under mm->page_table_lock,
 * which the walker only ever trylocks (the kernel's mmap_read_trylock,
 * so that a walker never waits behind a writer), and holds while it
 * walks one PUD_SIZE range at a time.  PTE tables are trylocked too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/memcontrol.h>
#include <lrulab/mm.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>
#include <lrulab/workqueue.h>

#include "mglru-internal-walk.h"

/* ---- Bloom filters ---- */

#define BITS_PER_LONG_ 64

/* hash_ptr() on 64-bit: multiply by the golden ratio, keep the top bits */
#define GOLDEN_RATIO_64 0x61C8864680B583EBULL

static void get_item_key(const void *item, int *key)
{
	u32 hash = (u32)(((u64)(uintptr_t)item * GOLDEN_RATIO_64) >>
			 (64 - BLOOM_FILTER_SHIFT * 2));

	key[0] = hash & (BIT(BLOOM_FILTER_SHIFT) - 1);
	key[1] = hash >> BLOOM_FILTER_SHIFT;
}

static unsigned long *filter_of(struct lru_gen_mm_state *mm_state, unsigned long seq)
{
	return __atomic_load_n(&mm_state->filters[seq % NR_BLOOM_FILTERS],
			       __ATOMIC_ACQUIRE);
}

/* a missing filter (allocation failed) lets everything through */
static bool test_bloom_filter(struct lru_gen_mm_state *mm_state, unsigned long seq,
			      const void *item)
{
	unsigned long *filter = filter_of(mm_state, seq);
	int key[2];

	if (!filter)
		return true;
	get_item_key(item, key);
	return test_bit(key[0] % BITS_PER_LONG_, &filter[key[0] / BITS_PER_LONG_]) &&
	       test_bit(key[1] % BITS_PER_LONG_, &filter[key[1] / BITS_PER_LONG_]);
}

void update_bloom_filter(struct lru_gen_mm_state *mm_state, unsigned long seq,
			 const void *item)
{
	unsigned long *filter = filter_of(mm_state, seq);
	int key[2], i;

	if (!filter)
		return;
	get_item_key(item, key);
	/* test first: most keys of a stable working set are already there */
	for (i = 0; i < 2; i++) {
		unsigned long *w = &filter[key[i] / BITS_PER_LONG_];

		if (!test_bit(key[i] % BITS_PER_LONG_, w))
			set_bit(key[i] % BITS_PER_LONG_, w);
	}
}

#define BLOOM_FILTER_BYTES (BIT(BLOOM_FILTER_SHIFT) / 8)

static void reset_bloom_filter(struct lru_gen_mm_state *mm_state, unsigned long seq)
{
	unsigned long **slot = &mm_state->filters[seq % NR_BLOOM_FILTERS];
	unsigned long *filter = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *old = NULL;
	size_t i;

	if (!filter) {
		filter = calloc(1, BLOOM_FILTER_BYTES);
		/*
		 * This runs after mm_list's lock is dropped, so a walker held up
		 * here for two iterations meets the next one's first walker at
		 * the same filter: the one that installs second frees its own
		 * and clears the other's.
		 */
		if (!filter || __atomic_compare_exchange_n(slot, &old, filter, false,
							   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return;
		free(filter);
		filter = old;
	}
	/* word by word: look-around may set bits in it meanwhile */
	for (i = 0; i < BLOOM_FILTER_BYTES / sizeof(long); i++)
		__atomic_store_n(&filter[i], 0UL, __ATOMIC_RELAXED);
}

/* ---- the mm_struct list ---- */

void lru_gen_init_memcg(struct mem_cgroup *memcg)
{
	INIT_LIST_HEAD(&memcg->mm_list.fifo);
	spin_lock_init(&memcg->mm_list.lock);
}

/* before the lruvecs go: the mms were all deleted, the filters are freed */
void lru_gen_exit_memcg(struct mem_cgroup *memcg)
{
	int nid, i;

	for_each_node(nid) {
		struct lru_gen_mm_state *mm_state;

		if (!memcg->nodeinfo[nid])
			continue;
		mm_state = &memcg->nodeinfo[nid]->lruvec.mm_state;
		for (i = 0; i < NR_BLOOM_FILTERS; i++) {
			free(mm_state->filters[i]);
			mm_state->filters[i] = NULL;
		}
	}
}

static struct lru_gen_mm_list *get_mm_list(struct mem_cgroup *memcg)
{
	return &memcg->mm_list;
}

static struct lru_gen_mm_state *get_mm_state(struct lruvec *lruvec)
{
	return &lruvec->mm_state;
}

void lru_gen_add_mm(struct mm_struct *mm)
{
	struct mem_cgroup *memcg = mm->memcg;
	struct lru_gen_mm_list *mm_list = get_mm_list(memcg);
	int nid;

	css_get(memcg);
	mm->lru_gen.memcg = memcg;
	spin_lock_at(&mm_list->lock, LOCK_SITE("mm_list_lock"));
	for_each_node(nid) {
		struct lru_gen_mm_state *mm_state =
			get_mm_state(mem_cgroup_lruvec(memcg, NODE_DATA(nid)));

		/* the first mm added since the last iteration ended */
		if (mm_state->tail == &mm_list->fifo)
			mm_state->tail = &mm->lru_gen.list;
	}
	list_add_tail(&mm->lru_gen.list, &mm_list->fifo);
	spin_unlock(&mm_list->lock);
}

void lru_gen_del_mm(struct mm_struct *mm)
{
	struct mem_cgroup *memcg = mm->lru_gen.memcg;
	struct lru_gen_mm_list *mm_list;
	int nid;

	if (!memcg)
		return;
	mm_list = get_mm_list(memcg);
	spin_lock_at(&mm_list->lock, LOCK_SITE("mm_list_lock"));
	for_each_node(nid) {
		struct lru_gen_mm_state *mm_state =
			get_mm_state(mem_cgroup_lruvec(memcg, NODE_DATA(nid)));

		/* keep the iteration's cursor and end mark on the list */
		if (mm_state->head == &mm->lru_gen.list)
			mm_state->head = mm_state->head->prev;
		if (mm_state->tail == &mm->lru_gen.list)
			mm_state->tail = mm_state->tail->next;
	}
	list_del_init(&mm->lru_gen.list);
	spin_unlock(&mm_list->lock);
	mm->lru_gen.memcg = NULL;
	css_put(memcg);
}

/* The memcg of @mm changed: move it to the new memcg's list. */
void lru_gen_migrate_mm(struct mm_struct *mm)
{
	if (!mm->lru_gen.memcg || mm->lru_gen.memcg == mm->memcg)
		return;
	lru_gen_del_mm(mm);
	lru_gen_add_mm(mm);
}

void lru_gen_use_mm(struct mm_struct *mm)
{
	__atomic_store_n(&mm->lru_gen.bitmap, ~0UL, __ATOMIC_RELAXED);
}

static struct mm_struct *get_next_mm(struct lru_gen_mm_walk *walk)
{
	struct lru_gen_mm_state *mm_state = get_mm_state(walk->lruvec);
	struct mm_struct *mm = list_entry(mm_state->head, struct mm_struct, lru_gen.list);
	int key = lruvec_pgdat(walk->lruvec)->node_id % BITS_PER_LONG_;

	/* not run since the last walk of this node: nothing can be young */
	if (!walk->force_scan && !test_bit(key, &mm->lru_gen.bitmap))
		return NULL;
	clear_bit(key, &mm->lru_gen.bitmap);
	return mm;
}

/* under the list lock: fold the walker's counts into the lruvec's */
static void reset_mm_stats(struct lru_gen_mm_walk *walk, bool last)
{
	struct lru_gen_mm_state *mm_state = get_mm_state(walk->lruvec);
	int i;

	for (i = 0; i < NR_MM_STATS; i++) {
		WRITE_ONCE(mm_state->stats[0][i], mm_state->stats[0][i] + walk->mm_stats[i]);
		walk->mm_stats[i] = 0;
	}
}

/*
 * Hand the walker the next mm of this iteration in *@iter (NULL when
 * there is none left).  Returns true to the walker that ended the
 * iteration: it creates the next generation.  An mm stays valid while
 * the walker is in the RCU read section try_to_inc_max_seq() holds,
 * because mmput() frees it after a grace period.
 */
bool iterate_mm_list(struct lru_gen_mm_walk *walk, struct mm_struct **iter)
{
	struct lruvec *lruvec = walk->lruvec;
	struct lru_gen_mm_list *mm_list = get_mm_list(lruvec_memcg(lruvec));
	struct lru_gen_mm_state *mm_state = get_mm_state(lruvec);
	struct mm_struct *mm = NULL;
	bool first = false, last = false;

	spin_lock_at(&mm_list->lock, LOCK_SITE("mm_list_lock"));
	/* an iteration for this seq is over: a stale walker has nothing to do */
	if (walk->seq <= mm_state->seq)
		goto done;
	if (!mm_state->head)
		mm_state->head = &mm_list->fifo;
	if (mm_state->head == &mm_list->fifo)
		first = true;
	do {
		mm_state->head = mm_state->head->next;
		if (mm_state->head == &mm_list->fifo) {
			WRITE_ONCE(mm_state->seq, mm_state->seq + 1);
			last = true;
			break;
		}
		/* mms added since the last iteration were never seen: scan them */
		if (!mm_state->tail || mm_state->tail == mm_state->head) {
			mm_state->tail = mm_state->head->next;
			walk->force_scan = true;
		}
	} while (!(mm = get_next_mm(walk)));
done:
	if (*iter || last)
		reset_mm_stats(walk, last);
	spin_unlock(&mm_list->lock);

	/* the iteration's first walker starts the filter the next one reads */
	if (mm && first)
		reset_bloom_filter(mm_state, walk->seq + 1);
	*iter = mm;
	return last;
}

/* Without page-table walks (0x0002 off): end the iteration at once. */
bool iterate_mm_list_nowalk(struct lruvec *lruvec, unsigned long seq)
{
	struct lru_gen_mm_list *mm_list = get_mm_list(lruvec_memcg(lruvec));
	struct lru_gen_mm_state *mm_state = get_mm_state(lruvec);
	bool success = false;

	spin_lock_at(&mm_list->lock, LOCK_SITE("mm_list_lock"));
	if (seq > mm_state->seq) {
		mm_state->head = NULL;
		mm_state->tail = NULL;
		WRITE_ONCE(mm_state->seq, mm_state->seq + 1);
		success = true;
	}
	spin_unlock(&mm_list->lock);
	return success;
}

void lru_gen_read_mm_stats(struct lruvec *lruvec, unsigned long *stats)
{
	int i;

	for (i = 0; i < NR_MM_STATS; i++)
		stats[i] = READ_ONCE(lruvec->mm_state.stats[0][i]);
}

/* ---- the page-table walk ---- */

/* One PUD entry maps 1 GiB: the walk yields between such ranges. */
#define PUD_SHIFT	(PMD_SHIFT + 9)
#define PUD_SIZE	(1UL << PUD_SHIFT)

static bool should_skip_vma(struct vm_area_struct *vma, struct lru_gen_mm_walk *walk)
{
	struct address_space *mapping = vma->vm_file;

	if (!(vma->vm_flags & VM_READ))
		return true;
	if (vma->vm_flags & VM_LOCKED)
		return true;
	/* anon and shmem can only be reclaimed by swapping */
	if (vma_is_anonymous(vma) || !(mapping->flags & BIT(AS_REGULAR)))
		return !walk->swappiness;
	/* regular files, when only anon may be reclaimed (swappiness "max") */
	return walk->swappiness > MAX_SWAPPINESS;
}

unsigned long get_pte_pfn(pte_t pte, int nid)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	unsigned long pfn = pte_pfn(pte);

	if (!pte_present(pte) || !pte_young(pte))
		return -1UL;
	if (pfn < pgdat->node_start_pfn ||
	    pfn >= pgdat->node_start_pfn + pgdat->node_spanned_pages)
		return -1UL;
	return pfn;
}

/* the folio @pte maps, if it is on this memcg's and node's MGLRU lists */
struct folio *get_pfn_folio(pte_t pte, struct mem_cgroup *memcg, int nid)
{
	struct folio *folio = pte_folio(pte);

	if (folio_lru_gen(folio) < 0)
		return NULL;
	if (folio_nid(folio) != nid)
		return NULL;
	if (folio_memcg(folio) != memcg)
		return NULL;
	return folio;
}

unsigned int folio_pte_batch(struct folio *folio, pte_t *ptep, pte_t *ptent,
			     unsigned int max_nr)
{
	const pte_t ignored = _PAGE_ACCESSED | _PAGE_DIRTY;
	unsigned long pfn = pte_pfn(*ptent);
	unsigned long left = folio_pfn(folio) + folio_nr_pages(folio) - pfn;
	unsigned int nr;

	if (left < max_nr)
		max_nr = (unsigned int)left;
	for (nr = 1; nr < max_nr; nr++) {
		pte_t pte = ptep_get(ptep + nr);

		if ((pte & ~ignored) != ((*ptent + ((pte_t)nr << PTE_PFN_SHIFT)) & ~ignored))
			break;
		*ptent |= pte & ignored;
	}
	return nr;
}

bool test_and_clear_young_ptes(pte_t *ptep, unsigned int nr)
{
	bool young = false;
	unsigned int i;

	for (i = 0; i < nr; i++)
		young |= ptep_test_and_clear_young(ptep + i);
	return young;
}

bool suitable_to_scan(int total, int young)
{
	/* 8 PTEs per 64-byte line: at least one young PTE per line scanned */
	return young * 8 >= total;
}

/*
 * One PTE table's part of [start, end): promote the folios of young
 * PTEs.  Returns whether the table is worth scanning next time (also
 * when its lock was contended, as the kernel does).
 */
static bool walk_pte_range(struct vm_area_struct *vma, unsigned long start,
			   unsigned long end, struct lru_gen_mm_walk *walk)
{
	struct lruvec *lruvec = walk->lruvec;
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	int nid = lruvec_pgdat(lruvec)->node_id;
	int gen = lru_gen_from_seq(READ_ONCE(lruvec->lrugen.max_seq));
	spinlock_t *ptl = pte_lockptr(vma, start);
	struct folio *last = NULL;
	int total = 0, young = 0;
	bool dirty = false;
	unsigned long addr;

	unsigned int nr;

	if (!spin_trylock_at(ptl, LOCK_SITE("ptl")))
		return true;
	for (addr = start; addr != end; addr += nr * PAGE_SIZE) {
		pte_t *ptep = vma_pte(vma, addr);
		pte_t pte = ptep_get(ptep);
		struct folio *folio;
		unsigned long pfn;

		nr = 1;
		total++;
		walk->mm_stats[MM_LEAF_TOTAL]++;
		pfn = get_pte_pfn(pte, nid);
		if (pfn == -1UL)
			continue;
		folio = get_pfn_folio(pte, memcg, nid);
		if (!folio)
			continue;
		/* a large folio's run of PTEs counts and clears as one */
		if (folio_test_large(folio)) {
			nr = folio_pte_batch(folio, ptep, &pte,
					     (unsigned int)((end - addr) >> PAGE_SHIFT));
			total += (int)nr - 1;
			walk->mm_stats[MM_LEAF_TOTAL] += nr - 1;
		}
		/* no TLB flush: a stale TLB entry only delays the next young bit */
		if (!test_and_clear_young_ptes(ptep, nr))
			continue;
		if (last != folio) {
			walk_update_folio(walk, last, gen, dirty);
			last = folio;
			dirty = false;
		}
		if (pte_dirty(pte))
			dirty = true;
		young += (int)nr;
		walk->mm_stats[MM_LEAF_YOUNG] += nr;
	}
	walk_update_folio(walk, last, gen, dirty);
	spin_unlock(ptl);
	return suitable_to_scan(total, young);
}

/*
 * The PTE tables of @vma in [start, end) (one PUD range at most).  A
 * range no fault ever reached has no table: it counts once in T.  With
 * LRU_GEN_NONLEAF_YOUNG a table whose PMD accessed bit is clear was not
 * used since the last walk and is skipped; the bit is cleared for the
 * next one.  Unless forced, a table the previous walk did not find
 * worth scanning (absent from the Bloom filter of walk->seq) is skipped.
 */
static void walk_pmd_range(struct vm_area_struct *vma, unsigned long start,
			   unsigned long end, struct lru_gen_mm_walk *walk)
{
	struct lru_gen_mm_state *mm_state = get_mm_state(walk->lruvec);
	bool nonleaf_young = should_clear_pmd_young();
	unsigned long addr, next;

	for (addr = start; addr < end; addr = next) {
		struct pte_table *table = &vma->tables[(addr - vma->vm_start) >> PMD_SHIFT];

		next = min_t(unsigned long, (addr & PMD_MASK) + PMD_SIZE, end);
		/* never faulted in: one entry seen, no table to scan */
		if (!__atomic_load_n(&table->present, __ATOMIC_RELAXED)) {
			walk->mm_stats[MM_LEAF_TOTAL]++;
			continue;
		}
		if (!walk->force_scan && nonleaf_young) {
			if (!__atomic_load_n(&table->young, __ATOMIC_RELAXED))
				continue;
			__atomic_store_n(&table->young, 0, __ATOMIC_RELAXED);
		}
		if (!walk->force_scan && !test_bloom_filter(mm_state, walk->seq, table))
			continue;
		walk->mm_stats[MM_NONLEAF_FOUND]++;
		if (!walk_pte_range(vma, addr, next, walk))
			continue;
		walk->mm_stats[MM_NONLEAF_ADDED]++;
		/* carry the table over to the next generation's filter */
		update_bloom_filter(mm_state, walk->seq + 1, table);
	}
}

/*
 * Walk @mm from walk->next_addr, one PUD range per step; return -EAGAIN
 * with walk->next_addr set when the batch is full, so that the caller
 * can flush it under lru_lock without holding the VMA list, 0 at the end.
 */
static int walk_pud_ranges(struct mm_struct *mm, struct lru_gen_mm_walk *walk)
{
	struct vm_area_struct *vma;

	list_for_each_entry(vma, &mm->mmap, vm_list) {
		unsigned long addr, next;

		if (vma->vm_end <= walk->next_addr || should_skip_vma(vma, walk))
			continue;
		addr = max_t(unsigned long, vma->vm_start, walk->next_addr);
		for (; addr < vma->vm_end; addr = next) {
			next = min_t(unsigned long, (addr & ~(PUD_SIZE - 1)) + PUD_SIZE, vma->vm_end);
			walk_pmd_range(vma, addr, next, walk);
			if (walk->batched >= (int)MAX_LRU_BATCH) {
				walk->next_addr = next;
				return -EAGAIN;
			}
		}
	}
	return 0;
}

void walk_mm(struct mm_struct *mm, struct lru_gen_mm_walk *walk)
{
	struct lruvec *lruvec = walk->lruvec;
	int err;

	walk->next_addr = 0;
	do {
		err = -EBUSY;
		/* another walker may have created the generation already */
		if (walk->seq != __atomic_load_n(&lruvec->lrugen.max_seq, __ATOMIC_ACQUIRE))
			break;
		/* never wait for a writer of the VMA list */
		if (spin_trylock_at(&mm->page_table_lock, LOCK_SITE("page_table_lock"))) {
			err = walk_pud_ranges(mm, walk);
			spin_unlock(&mm->page_table_lock);
		}
		/*
		 * No cond_resched() here: the caller's RCU read section keeps
		 * the mm alive, and work run at a scheduling point may wait
		 * for a grace period.  try_to_inc_max_seq() yields between mms.
		 */
		if (walk->batched)
			reset_batch_size(walk);
	} while (err == -EAGAIN);
}
