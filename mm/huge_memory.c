// SPDX-License-Identifier: MIT
/*
 * Splitting anonymous large folios and the deferred split queue (the
 * kernel's mm/huge_memory.c).  See include/lrulab/huge_mm.h for what a
 * split produces.
 *
 * The kernel unmaps a folio (migration entries) before it splits it and
 * maps the pieces back afterwards.  The model splits in place instead:
 * it holds the folio's PTE lock across the split, which keeps faults,
 * zaps and reclaim's rmap walks away from those PTEs just as the
 * migration entries would, and rewrites only the folio order each PTE
 * carries.  What makes the split safe is the same as in the kernel: the
 * refcount is frozen at exactly what the mappings and the caller's pin
 * explain, so nobody else holds a reference to the folio while its
 * struct pages are rewritten.
 *
 * Finding the PTEs: an anon folio's ->mapping is its mm; the mm is freed
 * only after an RCU grace period and a mapped folio keeps its VMA on
 * mm->mmap, so the walk checks folio_mapped() inside rcu_read_lock() and
 * then holds page_table_lock (the VMA cannot be unlinked) and the PTE
 * lock (the mapcount cannot change) for the rest of the split.
 *
 * With mthp-lru-cache (s4) on, a small mTHP may be pinned by a per-CPU
 * LRU cache, whose reference the freeze cannot explain: the split first
 * drains the caches when the refcount looks like exactly that, as the
 * patch does, and a deferred split scan shares one drain cursor for its
 * whole batch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/mmdebug.h>
#include <lrulab/huge_mm.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mm_inline.h>
#include <lrulab/pagemap.h>
#include <lrulab/rcupdate.h>
#include <lrulab/vmstat.h>

struct deferred_split {
	spinlock_t split_queue_lock;
	struct list_head split_queue;	/* through the folios' _deferred_list */
	unsigned long split_queue_len;
} ____cacheline_aligned;

/* memcg ids are 16 bits */
#define NR_MEMCG_IDS (1U << 16)

/* One queue per memcg, made on first use; one per node for uncharged folios. */
static struct deferred_split **memcg_split_queues;
static struct deferred_split *node_split_queues;


static void deferred_split_queue_init(struct deferred_split *ds)
{
	spin_lock_init(&ds->split_queue_lock);
	INIT_LIST_HEAD(&ds->split_queue);
	ds->split_queue_len = 0;
}

int deferred_split_init(void)
{
	int nid;

	memcg_split_queues = calloc(NR_MEMCG_IDS, sizeof(*memcg_split_queues));
	node_split_queues = aligned_alloc(L1_CACHE_BYTES,
					  MAX_NUMNODES * sizeof(*node_split_queues));
	if (!memcg_split_queues || !node_split_queues) {
		deferred_split_exit();
		return -ENOMEM;
	}
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		deferred_split_queue_init(&node_split_queues[nid]);
	return 0;
}

/* Queued folios live in the arena, which goes with the system: just let go. */
void deferred_split_exit(void)
{
	unsigned int id;

	if (memcg_split_queues) {
		for (id = 0; id < NR_MEMCG_IDS; id++)
			free(memcg_split_queues[id]);
	}
	free(memcg_split_queues);
	free(node_split_queues);
	memcg_split_queues = NULL;
	node_split_queues = NULL;
}

/*
 * A memcg's queue outlives nothing it holds: every queued folio is
 * charged to the memcg and so keeps it (and its id) alive; a queue left
 * empty by a freed memcg is simply reused by the next one with its id.
 */
static struct deferred_split *memcg_split_queue(struct mem_cgroup *memcg, bool create)
{
	struct deferred_split **slot = &memcg_split_queues[memcg->id];
	struct deferred_split *ds = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	struct deferred_split *old = NULL;

	if (ds || !create)
		return ds;
	ds = aligned_alloc(L1_CACHE_BYTES, sizeof(*ds));
	if (!ds) {
		fprintf(stderr, "lrulab: out of memory for a deferred split queue\n");
		abort();
	}
	deferred_split_queue_init(ds);
	if (!__atomic_compare_exchange_n(slot, &old, ds, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		free(ds);
		ds = old;
	}
	return ds;
}

/* The kernel's get_deferred_split_queue(): the memcg's, else the node's. */
static struct deferred_split *folio_split_queue(struct folio *folio)
{
	/* the queue of the memcg it is charged to, which outlives the folio */
	struct mem_cgroup *memcg = folio_memcg_charged(folio);

	if (memcg)
		return memcg_split_queue(memcg, true);
	return &node_split_queues[folio_nid(folio)];
}

static inline unsigned long *folio_flags_1(struct folio *folio)
{
	return &(folio + 1)->flags;
}

static inline struct folio *deferred_list_folio(struct list_head *pos)
{
	return (struct folio *)container_of(pos, struct folio_tail1, _deferred_list) - 1;
}

/* Split queue lock held. */
static void folio_clear_partially_mapped(struct folio *folio)
{
	if (test_and_clear_bit(PG_partially_mapped, folio_flags_1(folio)))
		mod_mthp_stat(folio_order(folio), MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, -1);
}

void deferred_split_folio(struct folio *folio, bool partially_mapped)
{
	unsigned int order = folio_order(folio);
	struct deferred_split *ds;

	/* the kernel's order-1 folios have no room for the list */
	if (order <= 1 || !partially_mapped)
		return;
	/* reclaim is writing it out; the swap cache splits what it must */
	if (folio_test_swapcache(folio))
		return;
	ds = folio_split_queue(folio);
	spin_lock_at(&ds->split_queue_lock, LOCK_SITE("split_queue_lock"));
	if (!test_and_set_bit(PG_partially_mapped, folio_flags_1(folio))) {
		if (order == HPAGE_PMD_ORDER)
			count_vm_event(THP_DEFERRED_SPLIT_PAGE);
		count_mthp_stat(order, MTHP_STAT_SPLIT_DEFERRED);
		mod_mthp_stat(order, MTHP_STAT_NR_ANON_PARTIALLY_MAPPED, 1);
	}
	if (list_empty(folio_deferred_list(folio))) {
		list_add_tail(folio_deferred_list(folio), &ds->split_queue);
		ds->split_queue_len++;
	}
	spin_unlock(&ds->split_queue_lock);
}

/*
 * Only queued folios carry PG_partially_mapped, and a folio with no
 * references left cannot be queued again, so a clear flag means there is
 * nothing to do and no lock to take.  A scan may hold the folio off the
 * queue with the flag set; then only the flag goes.
 */
bool folio_unqueue_deferred_split(struct folio *folio)
{
	struct deferred_split *ds;
	bool queued = false;

	if (folio_order(folio) <= 1 || !folio_test_partially_mapped(folio))
		return false;
	ds = folio_split_queue(folio);
	spin_lock_at(&ds->split_queue_lock, LOCK_SITE("split_queue_lock"));
	if (!list_empty(folio_deferred_list(folio))) {
		list_del_init(folio_deferred_list(folio));
		ds->split_queue_len--;
		queued = true;
	}
	folio_clear_partially_mapped(folio);
	spin_unlock(&ds->split_queue_lock);
	return queued;
}

/* ---- split ---- */

static struct vm_area_struct *find_anon_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;

	list_for_each_entry(vma, &mm->mmap, vm_list)
		if (addr >= vma->vm_start && addr < vma->vm_end)
			return vma;
	return NULL;
}

#define LONG_BITS (8 * sizeof(unsigned long))

struct split_state {
	struct list_head *list;		/* reclaim's: the pieces go here */
	struct vm_area_struct *vma;	/* NULL: the folio is not mapped */
	unsigned long addr;		/* where its first page is mapped */
	unsigned long nr;
	unsigned long mapped[(1UL << MAX_PAGE_ORDER) / LONG_BITS];	/* by page */
};

static inline bool page_mapped_bit(const struct split_state *st, unsigned long i)
{
	return st->mapped[i / LONG_BITS] >> (i % LONG_BITS) & 1;
}

/*
 * Which pages the PTEs map.  PTE lock held, so this is exact, and it must
 * agree with the mapcount: each page of an anon folio is mapped at most
 * once (one mm, no fork).
 */
static void split_find_ptes(struct folio *folio, struct split_state *st)
{
	unsigned long pfn = folio_pfn(folio), i;
	int found = 0;

	memset(st->mapped, 0, sizeof(st->mapped));
	for (i = 0; st->vma && i < st->nr; i++) {
		unsigned long a = st->addr + (i << PAGE_SHIFT);
		pte_t pte;

		if (a < st->vma->vm_start || a >= st->vma->vm_end)
			continue;
		pte = ptep_get(vma_pte(st->vma, a));
		if (pte_present(pte) && pte_pfn(pte) == pfn + i) {
			st->mapped[i / LONG_BITS] |= 1UL << (i % LONG_BITS);
			found++;
		}
	}
	/* the PTEs found are the folio's mappings */
	VM_BUG_ON_FOLIO(found != folio_mapcount(folio), folio);
}

/*
 * The flags an order-0 piece takes from the large folio, as the kernel's
 * __split_folio_to_order copies them (PG_lru follows the list position).
 */
#define SPLIT_KEEP_FLAGS						\
	(BIT(PG_referenced) | BIT(PG_uptodate) | BIT(PG_dirty) |	\
	 BIT(PG_lru) | BIT(PG_active) | BIT(PG_workingset) |		\
	 BIT(PG_swapbacked) | BIT(PG_unevictable) | BIT(PG_mlocked) |	\
	 BIT(PG_swapcache) | LRU_GEN_MASK | LRU_REFS_MASK)

/*
 * Turn page @i of the frozen @folio into an order-0 folio with @refs
 * references and the mapping its PTE gives it.  The second page's entry
 * held the large folio's order, deferred list and mapcounts, which its
 * own fields now overwrite.
 */
static void split_page_to_folio(struct folio *folio, unsigned long i, bool mapped,
				int refs)
{
	struct folio *page = folio + i;
	unsigned long flags = READ_ONCE(folio->flags) & SPLIT_KEEP_FLAGS;

	WRITE_ONCE(page->flags, (READ_ONCE(page->flags) & (NODES_MASK | ZONES_MASK)) | flags);
	WRITE_ONCE(page->compound_head, 0UL);
	page->_tail_pad = 0;
	WRITE_ONCE(page->mapping, READ_ONCE(folio->mapping));
	page->index = folio->index + i;
	WRITE_ONCE(page->memcg_data, READ_ONCE(folio->memcg_data));
	page->private = 0;
	atomic_set(&page->_mapcount, mapped ? 0 : -1);
	atomic_set(&page->_refcount, refs);
}

/*
 * The split proper: locks as described at the top held, refcount frozen.
 * The pieces go on the LRU next to the folio in one lru_lock hold, and
 * since the pages stay on the same list of the same lruvec and zone,
 * no list size changes.  Every piece but the first gets one reference
 * more than its mapping's, for the caller to drop once the locks are
 * gone (pieces that nothing maps are freed then).
 */
static void __split_frozen_folio(struct folio *folio, const struct split_state *st)
{
	struct mem_cgroup *memcg = folio_memcg_charged(folio);
	enum lru_list lru = folio_lru_list(folio);
	struct lruvec *lruvec = NULL;
	unsigned long i;

	if (folio_test_lru(folio))
		lruvec = folio_lruvec_lock(folio);
	for (i = 1; i < st->nr; i++) {
		bool mapped = page_mapped_bit(st, i);

		split_page_to_folio(folio, i, mapped, (int)mapped + 1);
		if (memcg)
			css_get(memcg);
		if (lruvec && lru != LRU_UNEVICTABLE)
			list_add_tail(&folio[i].lru, &folio->lru);
		else if (st->list)
			list_add_tail(&folio[i].lru, st->list);
	}
	WRITE_ONCE(folio->flags, READ_ONCE(folio->flags) & ~BIT(PG_head));
	atomic_set(&folio->_mapcount, page_mapped_bit(st, 0) ? 0 : -1);
	if (lruvec)
		lruvec_unlock(lruvec);

	for (i = 0; st->vma && i < st->nr; i++) {
		if (page_mapped_bit(st, i))
			__atomic_fetch_and(vma_pte(st->vma, st->addr + (i << PAGE_SHIFT)),
					   ~_PAGE_ORDER_MASK, __ATOMIC_RELAXED);
	}
	/* the first piece keeps the caller's pin, with its mapping's */
	folio_ref_unfreeze(folio, (int)page_mapped_bit(st, 0) + 1);
}

static void put_pieces(struct folio *folio, unsigned long nr)
{
	struct folio_batch fbatch;
	unsigned long i;

	folio_batch_init(&fbatch);
	for (i = 1; i < nr; i++) {
		if (!folio_batch_add(&fbatch, folio + i))
			folios_put(&fbatch);
	}
	if (folio_batch_count(&fbatch))
		folios_put(&fbatch);
}

/* The rmap part and the freeze: 0 or -EAGAIN. */
static int split_anon_folio(struct folio *folio, struct list_head *list)
{
	struct split_state st = { .nr = (unsigned long)folio_nr_pages(folio), .list = list };
	struct mm_struct *mm = NULL;
	struct deferred_split *ds;
	spinlock_t *ptl = NULL;
	int ret = 0;

	st.addr = folio->index << PAGE_SHIFT;
	rcu_read_lock();
	if (folio_mapped(folio)) {
		mm = (struct mm_struct *)((unsigned long)READ_ONCE(folio->mapping) &
					  ~PAGE_MAPPING_ANON);
		spin_lock_at(&mm->page_table_lock, LOCK_SITE("page_table_lock"));
		st.vma = find_anon_vma(mm, st.addr);
		if (st.vma) {
			ptl = pte_lockptr(st.vma, st.addr);
			spin_lock_at(ptl, LOCK_SITE("ptl"));
		}
	}
	/*
	 * Without a VMA the last PTE went before we looked (munmap unlinks
	 * after it zaps), and an anon folio is never mapped again.
	 */
	split_find_ptes(folio, &st);

	/* the queue lock orders the freeze against a scan's folio_try_get */
	ds = folio_split_queue(folio);
	spin_lock_at(&ds->split_queue_lock, LOCK_SITE("split_queue_lock"));
	if (!folio_ref_freeze(folio, folio_mapcount(folio) + 1)) {
		spin_unlock(&ds->split_queue_lock);
		ret = -EAGAIN;
		goto out;
	}
	if (!list_empty(folio_deferred_list(folio))) {
		list_del_init(folio_deferred_list(folio));
		ds->split_queue_len--;
	}
	folio_clear_partially_mapped(folio);
	spin_unlock(&ds->split_queue_lock);

	__split_frozen_folio(folio, &st);
out:
	if (ptl)
		spin_unlock(ptl);
	if (mm)
		spin_unlock(&mm->page_table_lock);
	rcu_read_unlock();
	/* pieces on reclaim's list keep their extra reference as its pin */
	if (!ret && !list)
		put_pieces(folio, st.nr);
	return ret;
}

static int split_folio_common(struct folio *folio, struct list_head *list,
			      enum lru_cache_drained *drained)
{
	unsigned int order;
	int ret;

	if (!folio_test_large(folio) || !folio_test_anon(folio))
		return -EINVAL;
	VM_BUG_ON_FOLIO(!folio_test_locked(folio), folio);
	if (smp_processor_id() < 0) {
		fprintf(stderr, "lrulab: split_folio called from a thread that is not a model CPU\n");
		abort();
	}
	order = folio_order(folio);
	/*
	 * s4: exactly one reference more than expected is what a per-CPU
	 * LRU cache holding the folio looks like.  Draining when more is
	 * unexplained could not make the split succeed.
	 */
	if (folio_ref_count(folio) ==
	    folio_expected_ref_count(folio) + 1 + (int)folio_may_be_lru_cached(folio))
		lru_cache_drain_for_folio(folio, 1, drained);

	ret = split_anon_folio(folio, list);
	if (ret) {
		count_mthp_stat(order, MTHP_STAT_SPLIT_FAILED);
		return ret;
	}
	if (order == HPAGE_PMD_ORDER)
		count_vm_event(THP_SPLIT_PAGE);
	count_mthp_stat(order, MTHP_STAT_SPLIT);
	return 0;
}

int __split_folio(struct folio *folio, enum lru_cache_drained *drained)
{
	return split_folio_common(folio, NULL, drained);
}

int split_folio(struct folio *folio)
{
	return split_folio_common(folio, NULL, NULL);
}

int split_folio_to_list(struct folio *folio, struct list_head *list)
{
	VM_BUG_ON_FOLIO(folio_test_lru(folio), folio);
	return split_folio_common(folio, list, NULL);
}

/* ---- the shrinker side ---- */

static struct deferred_split *scan_queue(struct mem_cgroup *memcg, int nid)
{
	if (memcg)
		return memcg_split_queue(memcg, false);
	if (nid < 0 || nid >= nr_node_ids)
		return NULL;
	return &node_split_queues[nid];
}

unsigned long deferred_split_count(struct mem_cgroup *memcg, int nid)
{
	struct deferred_split *ds = scan_queue(memcg, nid);
	unsigned long len;

	if (!ds)
		return 0;
	spin_lock_at(&ds->split_queue_lock, LOCK_SITE("split_queue_lock"));
	len = ds->split_queue_len;
	spin_unlock(&ds->split_queue_lock);
	return len;
}

/*
 * Take a batch off the queue, pinned; a folio whose count already hit 0
 * is being freed and its freer takes it off.  The pinned ones leave the
 * queue while they are worked on, keeping PG_partially_mapped, and come
 * back unless they were split.
 */
unsigned long deferred_split_scan(struct mem_cgroup *memcg, int nid,
				  unsigned long nr_to_scan)
{
	enum lru_cache_drained drained = LRU_CACHE_NOT_DRAINED;
	struct deferred_split *ds = scan_queue(memcg, nid);
	struct folio_batch fbatch;
	struct list_head *pos, *next;
	unsigned long split = 0;
	unsigned int i;

	if (!ds || !nr_to_scan)
		return 0;
	if (smp_processor_id() < 0) {
		fprintf(stderr, "lrulab: deferred_split_scan called from a thread that is not a model CPU\n");
		abort();
	}
	folio_batch_init(&fbatch);
	spin_lock_at(&ds->split_queue_lock, LOCK_SITE("split_queue_lock"));
	for (pos = ds->split_queue.next; pos != &ds->split_queue; pos = next) {
		struct folio *folio = deferred_list_folio(pos);

		next = pos->next;
		if (folio_try_get(folio)) {
			list_del_init(pos);
			ds->split_queue_len--;
			folio_batch_add(&fbatch, folio);
		}
		if (!--nr_to_scan || !folio_batch_space(&fbatch))
			break;
	}
	spin_unlock(&ds->split_queue_lock);

	for (i = 0; i < folio_batch_count(&fbatch); i++) {
		struct folio *folio = fbatch.folios[i];
		bool did_split = false;

		if (folio_trylock(folio)) {
			did_split = !__split_folio(folio, &drained);
			folio_unlock(folio);
		}
		if (did_split) {
			split++;
			continue;
		}
		spin_lock_at(&ds->split_queue_lock, LOCK_SITE("split_queue_lock"));
		if (list_empty(folio_deferred_list(folio))) {
			list_add_tail(folio_deferred_list(folio), &ds->split_queue);
			ds->split_queue_len++;
		}
		spin_unlock(&ds->split_queue_lock);
	}
	folios_put(&fbatch);
	return split;
}
