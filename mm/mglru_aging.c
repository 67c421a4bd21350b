// SPDX-License-Identifier: MIT
/*
 * MGLRU aging, part 2 (the kernel's mm/vmscan.c "the aging" and "rmap/PT
 * walk feedback"): promoting a folio whose PTE was young
 * (folio_update_gen), the oldest generation's folios moving up
 * (folio_inc_gen, inc_min_seq), the new generation (inc_max_seq) and its
 * driver try_to_inc_max_seq, and look-around from the rmap walk.
 *
 * The flags updaters here run without lru_lock and only change the gen
 * field of folio->flags; the list node stays where it is until eviction
 * or inc_min_seq sorts it.  Every cmpxchg on the word is counted, and
 * with mglru-skip-noop-cmpxchg (s2) a loop whose new word equals the old
 * one ends without it.
 */
#include <lrulab/memcontrol.h>
#include <lrulab/mm.h>
#include <lrulab/mm_inline.h>
#include <lrulab/pagemap.h>
#include <lrulab/switches.h>
#include <lrulab/workqueue.h>

#include "mglru-internal-walk.h"
#include "vmscan-internal.h"

__thread struct lru_gen_mm_walk *current_mm_walk;
/*
 * This thread reclaims or runs an lru_gen write: the kernel's
 * current->reclaim_state, which holds the walk from set_mm_walk() (or
 * the first aging that allocated one) until clear_mm_walk().
 */
static __thread bool current_reclaim_state;

/* ---- cmpxchg accounting (s2) ---- */

__thread struct lru_gen_cas_stat lru_gen_cas_local;
#define LRU_GEN_CAS_FOLD_BATCH 4096
static struct lru_gen_cas_stat lru_gen_cas_total;

void lru_gen_cas_fold(void)
{
	struct lru_gen_cas_stat *l = &lru_gen_cas_local;

	if (l->done)
		__atomic_fetch_add(&lru_gen_cas_total.done, l->done, __ATOMIC_RELAXED);
	if (l->skipped)
		__atomic_fetch_add(&lru_gen_cas_total.skipped, l->skipped, __ATOMIC_RELAXED);
	l->done = l->skipped = 0;
}

void lru_gen_cas_read(struct lru_gen_cas_stat *out)
{
	out->done = __atomic_load_n(&lru_gen_cas_total.done, __ATOMIC_RELAXED);
	out->skipped = __atomic_load_n(&lru_gen_cas_total.skipped, __ATOMIC_RELAXED);
}

/*
 * One try_cmpxchg() of a flags loop: false (with *@old refreshed) when
 * another updater changed the word first.  With the s2 switch on, a new
 * word equal to the old one is success without the locked instruction:
 * the result is the same, only the full barrier is lost, and no MGLRU
 * caller relies on it.
 */
static bool folio_flags_try_cmpxchg(struct folio *folio, unsigned long *old,
				    unsigned long new)
{
	if (new == *old && lrulab_switch_on(SW_MGLRU_SKIP_NOOP_CMPXCHG)) {
		lru_gen_cas_local.skipped++;
		return true;
	}
	lru_gen_cas_local.done++;
	return __atomic_compare_exchange_n(&folio->flags, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

unsigned long folio_flags_set_mask(struct folio *folio, unsigned long mask,
				   unsigned long bits)
{
	unsigned long old = READ_ONCE(folio->flags);

	while (!folio_flags_try_cmpxchg(folio, &old, (old & ~mask) | bits))
		;
	/* eviction's callers never age: publish their counts now and then */
	if (lru_gen_cas_local.done + lru_gen_cas_local.skipped >= LRU_GEN_CAS_FOLD_BATCH)
		lru_gen_cas_fold();
	return old;
}

/* ---- promotion by the page-table walk ---- */

/*
 * A young PTE maps @folio: the first sighting only marks it referenced;
 * a later one moves its gen field to @gen (the walker's max_seq) with
 * PG_workingset and no refs.  Returns the old gen, or -1 when the folio
 * was only marked or is off the lists.  (v6.12 promoted on the first
 * sighting and cleared PG_workingset.)  lrulab has no VM_EXEC, so the
 * kernel's immediate promotion of executable file folios does not arise.
 */
int folio_update_gen(struct folio *folio, int gen)
{
	unsigned long new, old = READ_ONCE(folio->flags);

	if (!(old & (BIT(PG_referenced) | BIT(PG_workingset)))) {
		folio_flags_set_mask(folio, LRU_REFS_MASK, BIT(PG_referenced));
		return -1;
	}
	do {
		/* isolated by lru_gen_del_folio() meanwhile */
		if (!(old & LRU_GEN_MASK))
			return -1;
		new = old & ~(LRU_GEN_MASK | LRU_REFS_FLAGS);
		new |= ((gen + 1UL) << LRU_GEN_PGOFF) | BIT(PG_workingset);
	} while (!folio_flags_try_cmpxchg(folio, &old, new));
	return (int)((old & LRU_GEN_MASK) >> LRU_GEN_PGOFF) - 1;
}

/*
 * Under lru_lock: a folio of the oldest generation moves to the next one
 * unless the walker promoted it already (then its gen field says where
 * it belongs).  Refs are reset: the protection was paid for.  Returns
 * the gen whose list the folio belongs on.
 */
int folio_inc_gen(struct lruvec *lruvec, struct folio *folio)
{
	int type = folio_is_file_lru(folio);
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int new_gen, old_gen = lru_gen_from_seq(lrugen->min_seq[type]);
	unsigned long new, old = READ_ONCE(folio->flags);

	do {
		new_gen = (int)((old & LRU_GEN_MASK) >> LRU_GEN_PGOFF) - 1;
		if (new_gen >= 0 && new_gen != old_gen)
			return new_gen;
		new_gen = (old_gen + 1) % MAX_NR_GENS;
		new = old & ~(LRU_GEN_MASK | LRU_REFS_FLAGS);
		new |= (new_gen + 1UL) << LRU_GEN_PGOFF;
	} while (!folio_flags_try_cmpxchg(folio, &old, new));
	lru_gen_update_size(lruvec, folio, old_gen, new_gen);
	return new_gen;
}

static void update_batch_size(struct lru_gen_mm_walk *walk, struct folio *folio,
			      int old_gen, int new_gen)
{
	int type = folio_is_file_lru(folio);
	int zone = folio_zonenum(folio);
	int delta = (int)folio_nr_pages(folio);

	walk->batched++;
	walk->nr_pages[old_gen][type][zone] -= delta;
	walk->nr_pages[new_gen][type][zone] += delta;
}

/* Apply the walker's size deltas, under lru_lock once per batch. */
void reset_batch_size(struct lru_gen_mm_walk *walk)
{
	struct pglist_data *pgdat = lruvec_pgdat(walk->lruvec);
	struct lruvec *lruvec;
	struct lru_gen_folio *lrugen;
	int gen, type, zone;

	/*
	 * The live lruvec (lruvec_live_lock_irq()): when walk->lruvec's memcg
	 * went offline meanwhile, the folios the deltas are for are its
	 * parent's now, their generations' sizes with them.
	 */
	for (;;) {
		lruvec = mem_cgroup_lruvec(mem_cgroup_live(lruvec_memcg(walk->lruvec)), pgdat);
		spin_lock_at(&lruvec->lru_lock,
			     LOCK_SITE_AT("lru_lock", "walk_mm", "reset_batch_size"));
		if (likely(lruvec_memcg(lruvec) == mem_cgroup_live(lruvec_memcg(walk->lruvec))))
			break;
		spin_unlock(&lruvec->lru_lock);
	}
	lrugen = &lruvec->lrugen;
	walk->batched = 0;
	for (gen = 0; gen < (int)MAX_NR_GENS; gen++) {
		for (type = 0; type < ANON_AND_FILE; type++) {
			for (zone = 0; zone < MAX_NR_ZONES; zone++) {
				enum lru_list lru = type * LRU_INACTIVE_FILE;
				int delta = walk->nr_pages[gen][type][zone];

				if (!delta)
					continue;
				walk->nr_pages[gen][type][zone] = 0;
				WRITE_ONCE(lrugen->nr_pages[gen][type][zone],
					   lrugen->nr_pages[gen][type][zone] + delta);
				if (lru_gen_is_active(lruvec, gen))
					lru += LRU_ACTIVE;
				__update_lru_size(lruvec, lru, zone, delta);
			}
		}
	}
	spin_unlock(&lruvec->lru_lock);
}

/*
 * A run of young PTEs mapped @folio.  A dirty PTE makes the folio dirty
 * (not anon outside the swap cache: it has nowhere to be written yet).
 * With a walk context the gen field moves and the size delta is batched;
 * without one (look-around outside aging) the rmap rules apply.
 */
void walk_update_folio(struct lru_gen_mm_walk *walk, struct folio *folio,
		       int new_gen, bool dirty)
{
	int old_gen;

	if (!folio)
		return;
	/*
	 * The model maps only swap-backed folios (anon and shmem), whose
	 * dirtying is the flag alone, as try_to_unmap_one() sets it.
	 */
	if (dirty && !folio_test_dirty(folio) &&
	    !(folio_test_anon(folio) && folio_test_swapbacked(folio) &&
	      !folio_test_swapcache(folio)))
		folio_set_dirty(folio);
	if (walk) {
		old_gen = folio_update_gen(folio, new_gen);
		if (old_gen >= 0 && old_gen != new_gen)
			update_batch_size(walk, folio, old_gen, new_gen);
	} else if (lru_gen_set_refs(folio)) {
		old_gen = folio_lru_gen(folio);
		if (old_gen >= 0 && old_gen != new_gen)
			folio_activate(folio);
	}
}

/* ---- min_seq and max_seq ---- */

/*
 * Under lru_lock: every folio of @type's oldest generation moves to the
 * next one (to its tail, so the inversion stays small), at most
 * MAX_LRU_BATCH per call; false when the budget ran out and the caller
 * must drop the lock and come back.  Folios moved up count as protected
 * by their tier, except those promoted lazily with every bit set.
 */
bool inc_min_seq(struct lruvec *lruvec, int type, int swappiness)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int hist = lru_hist_from_seq(lrugen->min_seq[type]);
	int old_gen = lru_gen_from_seq(lrugen->min_seq[type]);
	int remaining = MAX_LRU_BATCH;
	int zone;

	/* a type that is not evictable keeps its folios where they are */
	if ((type && swappiness == SWAPPINESS_ANON_ONLY) || (!type && !swappiness))
		goto done;
	for (zone = 0; zone < MAX_NR_ZONES; zone++) {
		struct list_head *head = &lrugen->folios[old_gen][type][zone];

		while (!list_empty(head)) {
			struct folio *folio = list_last_entry(head, struct folio, lru);
			int refs = folio_lru_refs(folio);
			bool workingset = folio_test_workingset(folio);
			int new_gen = folio_inc_gen(lruvec, folio);

			list_move_tail(&folio->lru, &lrugen->folios[new_gen][type][zone]);
			if (refs + workingset != BIT(LRU_REFS_WIDTH) + 1) {
				int tier = lru_tier_from_refs(refs, workingset);

				WRITE_ONCE(lrugen->protected[hist][type][tier],
					   lrugen->protected[hist][type][tier] +
					   folio_nr_pages(folio));
			}
			if (!--remaining)
				return false;
		}
	}
done:
	reset_ctrl_pos(lruvec, type, true);
	WRITE_ONCE(lrugen->min_seq[type], lrugen->min_seq[type] + 1);
	return true;
}

#define lru_min_type(swappiness) (!(swappiness))
#define lru_max_type(swappiness) ((swappiness) < SWAPPINESS_ANON_ONLY)

/*
 * Under lru_lock: step each evictable type's min_seq over empty oldest
 * generations (keeping two), and with both types evictable keep them
 * within one generation of each other below max_seq - 1.
 */
void try_to_inc_min_seq(struct lruvec *lruvec, int swappiness)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long min_seq[ANON_AND_FILE];
	bool moved = false;
	int type, zone;

	for (type = 0; type < ANON_AND_FILE; type++)
		min_seq[type] = lrugen->min_seq[type];
	for (type = lru_min_type(swappiness); type <= lru_max_type(swappiness); type++) {
		while (min_seq[type] + MIN_NR_GENS <= lrugen->max_seq) {
			int gen = lru_gen_from_seq(min_seq[type]);

			for (zone = 0; zone < MAX_NR_ZONES; zone++)
				if (!list_empty(&lrugen->folios[gen][type][zone]))
					goto next;
			min_seq[type]++;
			moved = true;
		}
next:
		;
	}
	if (!moved)
		return;
	if (swappiness && swappiness <= MAX_SWAPPINESS) {
		unsigned long seq = lrugen->max_seq - MIN_NR_GENS;

		if (min_seq[LRU_GEN_ANON] > seq && min_seq[LRU_GEN_FILE] < seq)
			min_seq[LRU_GEN_ANON] = seq;
		else if (min_seq[LRU_GEN_FILE] > seq && min_seq[LRU_GEN_ANON] < seq)
			min_seq[LRU_GEN_FILE] = seq;
	}
	for (type = lru_min_type(swappiness); type <= lru_max_type(swappiness); type++) {
		if (min_seq[type] <= lrugen->min_seq[type])
			continue;
		reset_ctrl_pos(lruvec, type, true);
		WRITE_ONCE(lrugen->min_seq[type], min_seq[type]);
	}
}

#define SITE_INC_MAX_SEQ LOCK_SITE_AT("lru_lock", "try_to_inc_max_seq", "inc_max_seq")

/*
 * Create generation @seq + 1 if @seq is still max_seq: make room first
 * (a full window moves the oldest generation up), then shift the
 * active/inactive compat counters: max_seq - 1 becomes inactive and the
 * new youngest generation's pages active.
 */
static bool inc_max_seq(struct lruvec *lruvec, unsigned long seq, int swappiness)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int prev, next, type, zone;
	bool success;

restart:
	if (seq < __atomic_load_n(&lrugen->max_seq, __ATOMIC_ACQUIRE))
		return false;
	spin_lock_at(&lruvec->lru_lock, SITE_INC_MAX_SEQ);
	success = seq == lrugen->max_seq;
	if (!success)
		goto unlock;
	for (type = 0; type < ANON_AND_FILE; type++) {
		if (get_nr_gens(lruvec, type) != (int)MAX_NR_GENS)
			continue;
		if (inc_min_seq(lruvec, type, swappiness))
			continue;
		spin_unlock(&lruvec->lru_lock);
		cond_resched();
		goto restart;
	}
	prev = lru_gen_from_seq(lrugen->max_seq - 1);
	next = lru_gen_from_seq(lrugen->max_seq + 1);
	for (type = 0; type < ANON_AND_FILE; type++) {
		for (zone = 0; zone < MAX_NR_ZONES; zone++) {
			enum lru_list lru = type * LRU_INACTIVE_FILE;
			long delta = lrugen->nr_pages[prev][type][zone] -
				     lrugen->nr_pages[next][type][zone];

			if (!delta)
				continue;
			__update_lru_size(lruvec, lru, zone, delta);
			__update_lru_size(lruvec, lru + LRU_ACTIVE, zone, -delta);
		}
	}
	for (type = 0; type < ANON_AND_FILE; type++)
		reset_ctrl_pos(lruvec, type, false);
	WRITE_ONCE(lrugen->timestamps[next], lru_gen_jiffies());
	/* what was written above is visible to whoever sees the new max_seq */
	__atomic_store_n(&lrugen->max_seq, lrugen->max_seq + 1, __ATOMIC_RELEASE);
unlock:
	spin_unlock(&lruvec->lru_lock);
	return success;
}

/*
 * The walk context of this thread's reclaim or aging request (the
 * kernel's current->reclaim_state->mm_walk): kswapd has its node's,
 * others get one allocated when @force_alloc (proactive reclaim and the
 * debugfs writer), kept until clear_mm_walk().
 */
struct lru_gen_mm_walk *set_mm_walk(struct pglist_data *pgdat, bool force_alloc)
{
	struct lru_gen_mm_walk *walk = current_mm_walk;

	if (pgdat && current_is_kswapd())
		walk = &pgdat->mm_walk;
	else if (!walk && force_alloc)
		walk = calloc(1, sizeof(*walk));
	current_mm_walk = walk;
	current_reclaim_state = true;
	return walk;
}

void clear_mm_walk(void)
{
	struct lru_gen_mm_walk *walk = current_mm_walk;

	current_mm_walk = NULL;
	current_reclaim_state = false;
	if (!current_is_kswapd())
		free(walk);
}

bool try_to_inc_max_seq(struct lruvec *lruvec, unsigned long seq, int swappiness,
			bool force_scan)
{
	struct lru_gen_mm_walk *walk;
	struct mm_struct *mm = NULL;
	bool success, own = false;

	if (seq <= READ_ONCE(lruvec->mm_state.seq))
		return false;
	/* without the walker only look-around clears young bits */
	if (!should_walk_mmu()) {
		success = iterate_mm_list_nowalk(lruvec, seq);
		goto done;
	}
	/*
	 * As the kernel's: the walk allocated here stays with the reclaimer
	 * until its clear_mm_walk(), so that look-around during the
	 * eviction that follows batches its updates in it.  A caller
	 * outside reclaim (tests, stress) gets one for this call only.
	 */
	own = !current_reclaim_state;
	walk = set_mm_walk(NULL, true);
	if (!walk) {
		if (own)
			clear_mm_walk();
		success = iterate_mm_list_nowalk(lruvec, seq);
		goto done;
	}
	walk->lruvec = lruvec;
	walk->seq = seq;
	walk->swappiness = swappiness;
	walk->force_scan = force_scan;
	do {
		/* the mm handed out cannot be freed before rcu_read_unlock() */
		rcu_read_lock();
		success = iterate_mm_list(walk, &mm);
		if (mm)
			walk_mm(mm, walk);
		rcu_read_unlock();
		cond_resched();
	} while (mm);
	if (own)
		clear_mm_walk();
done:
	if (success)
		success = inc_max_seq(lruvec, seq, swappiness);
	lru_gen_cas_fold();
	return success;
}

/*
 * One more generation without walking page tables: the mm list's
 * iteration for the current max_seq ends here, then max_seq moves (the
 * kernel's try_to_inc_max_seq_nowalk(), for reparenting).  Nothing if
 * an iteration already ended: its last walker is about to move max_seq.
 */
void try_to_inc_max_seq_nowalk(struct lruvec *lruvec)
{
	unsigned long max_seq = __atomic_load_n(&lruvec->lrugen.max_seq, __ATOMIC_ACQUIRE);

	if (iterate_mm_list_nowalk(lruvec, max_seq))
		inc_max_seq(lruvec, max_seq, READ_ONCE(vm_swappiness));
}

/* ---- look-around ---- */

/*
 * The rmap walk of eviction found @ptep (PTE lock held) young: the PTEs
 * around it in the same table, inside the VMA and at most MIN_LRU_BATCH
 * of them, were likely used at the same time, so promote their folios
 * now instead of waiting for the next page-table walk.  A window dense
 * with young PTEs tells the walker to scan this table next time.
 *
 * With the reclaimer's walk context (kswapd always; others from the
 * aging that allocated one, or proactive reclaim, until clear_mm_walk())
 * a neighbour moves to max_seq in place (folio_update_gen()) and the
 * size delta waits in the walk for evict_folios() to apply; without one
 * the rmap rules apply (lru_gen_set_refs() and folio_activate()'s
 * per-CPU batch).  Neither takes lru_lock under the PTL.
 */
bool lru_gen_look_around(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep)
{
	struct folio *folio = pte_folio(ptep_get(ptep));
	struct lru_gen_mm_walk *walk = current_mm_walk;
	struct folio *last = NULL;
	unsigned long start, end, a, max_seq;
	struct mem_cgroup *memcg;
	struct lruvec *lruvec;
	int gen, nid, i = 0, young = 1;
	unsigned int nr;
	bool dirty = false;

	if (!ptep_test_and_clear_young(ptep))
		return false;
	/* the kernel also gives up when the PTL is contended; lrulab's
	 * spin locks cannot tell, so the window is always scanned */
	start = max_t(unsigned long, addr & PMD_MASK, vma->vm_start);
	end = min_t(unsigned long, (addr & PMD_MASK) + PMD_SIZE, vma->vm_end);
	if (end - start == PAGE_SIZE)
		return true;
	if (end - start > MIN_LRU_BATCH * PAGE_SIZE) {
		if (addr - start < MIN_LRU_BATCH * PAGE_SIZE / 2)
			end = start + MIN_LRU_BATCH * PAGE_SIZE;
		else if (end - addr < MIN_LRU_BATCH * PAGE_SIZE / 2)
			start = end - MIN_LRU_BATCH * PAGE_SIZE;
		else {
			start = addr - MIN_LRU_BATCH * PAGE_SIZE / 2;
			end = addr + MIN_LRU_BATCH * PAGE_SIZE / 2;
		}
	}
	memcg = folio_memcg(folio);
	nid = folio_nid(folio);
	lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
	max_seq = __atomic_load_n(&lruvec->lrugen.max_seq, __ATOMIC_ACQUIRE);
	gen = lru_gen_from_seq(max_seq);
	for (a = start; a != end; a += nr * PAGE_SIZE, i += (int)nr) {
		pte_t *p = vma_pte(vma, a);
		pte_t pte = ptep_get(p);
		struct folio *f;

		nr = 1;
		if (get_pte_pfn(pte, nid) == -1UL)
			continue;
		f = get_pfn_folio(pte, memcg, nid);
		if (!f)
			continue;
		if (folio_test_large(f))
			nr = folio_pte_batch(f, p, &pte, (unsigned int)((end - a) >> PAGE_SHIFT));
		if (!test_and_clear_young_ptes(p, nr))
			continue;
		if (last != f) {
			walk_update_folio(walk, last, gen, dirty);
			last = f;
			dirty = false;
		}
		if (pte_dirty(pte))
			dirty = true;
		young += (int)nr;
	}
	walk_update_folio(walk, last, gen, dirty);
	if (suitable_to_scan(i, young))
		update_bloom_filter(&lruvec->mm_state, max_seq,
				    &vma->tables[(addr - vma->vm_start) >> PMD_SHIFT]);
	return true;
}
