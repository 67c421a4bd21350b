// SPDX-License-Identifier: MIT
/*
 * Classic two-list reclaim (the kernel's mm/vmscan.c, MGLRU off):
 * isolation and putback, shrink_folio_list, the list shrinkers,
 * shrink_lruvec/shrink_node and the direct and memcg reclaim entry
 * points.  How a pass splits its work between anon and file (the cost
 * recording and its s1 replacement, get_scan_count) is in
 * scan_balance.c, kswapd in kswapd.c, the throttle of too many
 * isolating reclaimers in reclaim_throttle.c; the memcg charge path's
 * margin and memory.max reclaim loop are in memcg_charge.c.
 *
 * lru_lock is taken only where the kernel takes it: to isolate a chunk,
 * to put the survivors back, and (switch off) to record and snapshot
 * the cost.  rmap walks, unmapping, swap writeout and freeing all run
 * with it dropped, on folios this CPU isolated.
 *
 * What the model leaves out: zones other than ZONE_NORMAL (no wrong-zone
 * skips), memory.min/low protection, writeback throttling (kswapd's
 * PGDAT_WRITEBACK and the congestion waits), slab shrinkers, demotion,
 * and swapping a large folio whole (the device hands out one slot at a
 * time, so a large anon folio is split and its pages swapped one by
 * one).  The memcg walk of direct reclaim has no shared per-node
 * iterator cookie: each walk starts at the target and stops once it
 * reclaimed enough.
 */
#include <errno.h>
#include <string.h>

#include <lrulab/huge_mm.h>
#include <lrulab/mm.h>
#include <lrulab/mm_inline.h>
#include <lrulab/pagemap.h>
#include <lrulab/switches.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "vmscan-internal.h"

int vm_swappiness = 60;

/* An isolated folio goes back through the per-CPU batch. */
void folio_putback_lru(struct folio *folio)
{
	folio_add_lru(folio);
	folio_put(folio);
}

/*
 * ---------------------------------------------------------------------
 * Isolation and putback, under lru_lock
 * ---------------------------------------------------------------------
 */

unsigned long isolate_lru_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
				 struct list_head *dst, unsigned long *nr_scanned,
				 struct scan_control *sc, enum lru_list lru)
{
	struct list_head *src = &lruvec->lists[lru];
	unsigned long nr_taken = 0, scan = 0, total_scan = 0;

	while (scan < nr_to_scan && !list_empty(src)) {
		struct folio *folio = lru_to_folio(src);
		long nr_pages = folio_nr_pages(folio);

		total_scan += (unsigned long)nr_pages;
		scan += (unsigned long)nr_pages;

		if (!folio_test_lru(folio))
			goto move;
		if (!sc->may_unmap && folio_mapped(folio))
			goto move;
		/* a folio on its way to the allocator is not ours to take */
		if (!folio_try_get(folio))
			goto move;
		/* another isolator won: it holds a reference, ours is not the last */
		if (!folio_test_clear_lru(folio)) {
			folio_put(folio);
			goto move;
		}
		nr_taken += (unsigned long)nr_pages;
		list_move(&folio->lru, dst);
		continue;
move:
		/* rotated to the head so the scan does not see it again */
		list_move(&folio->lru, src);
	}
	*nr_scanned = total_scan;
	if (nr_taken)
		update_lru_size(lruvec, lru, ZONE_NORMAL, -(long)nr_taken);
	return nr_taken;
}

static void free_folio_batch(struct folio_batch *fbatch)
{
	mem_cgroup_uncharge_folios(fbatch);
	free_unref_folios(fbatch);
}

/* shrink_folio_list's: no other CPU may still reach a page through its TLB */
static void free_reclaimed_batch(struct folio_batch *fbatch)
{
	mem_cgroup_uncharge_folios(fbatch);
	try_to_unmap_flush();
	free_unref_folios(fbatch);
}

/*
 * PG_lru goes back on before the isolation reference is dropped: once
 * the reference is gone a concurrent freer must find PG_lru set and take
 * lru_lock to unlink, or it would skip the lock while we link it.
 */
unsigned int move_folios_to_lru(struct lruvec *lruvec, struct list_head *list)
{
	struct folio_batch free_folios;
	unsigned int nr_moved = 0;
	LIST_HEAD(elsewhere);

	folio_batch_init(&free_folios);
	while (!list_empty(list)) {
		struct folio *folio = lru_to_folio(list);
		long nr_pages = folio_nr_pages(folio);

		/*
		 * Its memcg went offline while it was isolated: it belongs on
		 * the parent's list now (the kernel relocks per folio).
		 */
		if (unlikely(folio_lruvec(folio) != lruvec)) {
			list_move_tail(&folio->lru, &elsewhere);
			continue;
		}
		list_del(&folio->lru);
		if (unlikely(!folio_evictable(folio))) {
			spin_unlock(&lruvec->lru_lock);
			folio_putback_lru(folio);
			spin_lock_at(&lruvec->lru_lock, SITE_MOVE_UNEVICTABLE);
			continue;
		}
		folio_set_lru(folio);
		if (unlikely(folio_put_testzero(folio))) {
			__folio_clear_lru_flags(folio);
			if (!folio_batch_add(&free_folios, folio)) {
				spin_unlock(&lruvec->lru_lock);
				free_folio_batch(&free_folios);
				spin_lock_at(&lruvec->lru_lock, SITE_MOVE_FREE);
			}
			continue;
		}
		lruvec_add_folio(lruvec, folio);
		nr_moved += (unsigned int)nr_pages;
		if (folio_test_active(folio))
			workingset_age_nonresident(lruvec, (unsigned long)nr_pages);
	}
	if (folio_batch_count(&free_folios)) {
		spin_unlock(&lruvec->lru_lock);
		free_folio_batch(&free_folios);
		spin_lock_at(&lruvec->lru_lock, SITE_MOVE_END);
	}
	if (unlikely(!list_empty(&elsewhere))) {
		spin_unlock(&lruvec->lru_lock);
		while (!list_empty(&elsewhere)) {
			struct folio *folio = lru_to_folio(&elsewhere);
			struct lruvec *other = folio_lruvec_lock(folio);
			LIST_HEAD(one);

			list_move(&folio->lru, &one);
			nr_moved += move_folios_to_lru(other, &one);
			spin_unlock(&other->lru_lock);
		}
		spin_lock_at(&lruvec->lru_lock, SITE_MOVE_END);
	}
	return nr_moved;
}

/*
 * ---------------------------------------------------------------------
 * shrink_folio_list
 * ---------------------------------------------------------------------
 */

enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_RECLAIM_CLEAN,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};

static enum folio_references folio_check_references(struct folio *folio,
						    struct scan_control *sc)
{
	unsigned long vm_flags;
	int referenced_ptes;
	bool referenced_folio;

	referenced_ptes = folio_referenced(folio, 1, sc->target_mem_cgroup, &vm_flags);
	if (vm_flags & VM_LOCKED)
		return FOLIOREF_ACTIVATE;
	if (referenced_ptes == -1)
		return FOLIOREF_KEEP;
	/* MGLRU: a second young sighting activates, a first one keeps */
	if (lru_gen_enabled()) {
		if (!referenced_ptes)
			return FOLIOREF_RECLAIM;
		return lru_gen_set_refs(folio) ? FOLIOREF_ACTIVATE : FOLIOREF_KEEP;
	}
	referenced_folio = folio_test_clear_referenced(folio);
	if (referenced_ptes) {
		/*
		 * Young once: one more trip round the inactive list decides;
		 * young again then, or young in two places now, it is in use.
		 */
		folio_set_referenced(folio);
		if (referenced_folio || referenced_ptes > 1)
			return FOLIOREF_ACTIVATE;
		return FOLIOREF_KEEP;
	}
	if (referenced_folio && folio_is_file_lru(folio))
		return FOLIOREF_RECLAIM_CLEAN;
	return FOLIOREF_RECLAIM;
}

/* What pageout() did with the folio. */
typedef enum {
	PAGE_KEEP,	/* not written: still locked */
	PAGE_SUCCESS,	/* write started: unlocked, under writeback until it ends */
	PAGE_WRITTEN,	/* written synchronously: still locked, clean */
} pageout_t;

/*
 * Swap writeout of a locked, unmapped, swap-cached folio.  PG_reclaim:
 * the write's end rotates it to the inactive tail.  (The kernel's sync
 * write hands the folio back unlocked; the model's never lets go.)
 */
static pageout_t pageout(struct folio *folio, struct scan_control *sc)
{
	struct address_space *mapping = READ_ONCE(folio->mapping);
	long nr = folio_nr_pages(folio);
	bool shmem = mapping && !folio_test_anon(folio);
	int expected = 1 + (int)nr + (shmem ? (int)nr : 0);
	bool started;

	/* someone else holds a reference: writing would be wasted */
	if (folio_ref_count(folio) != expected)
		return PAGE_KEEP;
	folio_clear_dirty(folio);
	folio_set_reclaim(folio);
	/*
	 * shmem_writeout: the page cache gives the page up for its swap
	 * entry, which then names the slot, and drops its references.  The
	 * slot's count for that entry is taken first, as swap_shmem_alloc()
	 * precedes the replacement in the kernel: a truncation that finds
	 * the entry the moment it is published frees that count.
	 */
	if (shmem) {
		swap_duplicate(folio_swap_entry(folio));
		if (filemap_replace_folio_by_swap(mapping, folio,
						  swp_to_radix_entry(folio_swap_entry(folio))))
			folio_put_refs(folio, (int)nr);
		else
			swap_free(folio_swap_entry(folio));
	}
	started = swap_writeout(folio);
	if (!folio_test_writeback(folio))
		folio_clear_reclaim(folio);
	/* s1 makes the pageout counter per-lruvec, a cost input for reclaim */
	if (lrulab_switch_on(SW_VMSTAT_SCAN_COST))
		lruvec_stat_mod_folio(folio, NR_VMSCAN_WRITE, (int)nr);
	else
		node_stat_mod_folio(folio, NR_VMSCAN_WRITE, nr);
	return started ? PAGE_SUCCESS : PAGE_WRITTEN;
}

/*
 * Freeze the references the folio's owners hold (isolation + swap
 * cache), leave a shadow in the slot and take it out of the swap cache.
 * A lazyfree anon folio has only the isolation reference.
 */
/*
 * A clean, unmapped regular file folio: freeze the isolation's and the
 * page cache's references, then give its page cache slot to a shadow.
 */
static bool remove_file_folio(struct folio *folio, struct mem_cgroup *target_memcg)
{
	struct address_space *mapping = READ_ONCE(folio->mapping);
	int refs = 1 + (int)folio_nr_pages(folio);
	void *shadow;

	if (!mapping_regular(mapping) || !folio_ref_freeze(folio, refs))
		return false;
	if (folio_test_dirty(folio) || folio_mapped(folio)) {
		folio_ref_unfreeze(folio, refs);
		return false;
	}
	shadow = workingset_eviction(folio, target_memcg);
	if (!filemap_replace_folio_by_swap(mapping, folio, (unsigned long)shadow)) {
		/* truncated meanwhile: truncation frees it */
		folio_ref_unfreeze(folio, refs);
		return false;
	}
	return true;
}

static bool __remove_mapping(struct folio *folio, struct mem_cgroup *target_memcg)
{
	long nr = folio_nr_pages(folio);

	if (folio_test_swapcache(folio)) {
		void *shadow;

		if (!folio_ref_freeze(folio, 1 + (int)nr))
			return false;
		if (folio_test_dirty(folio) || folio_mapped(folio)) {
			folio_ref_unfreeze(folio, 1 + (int)nr);
			return false;
		}
		shadow = workingset_eviction(folio, target_memcg);
		__delete_from_swap_cache(folio, shadow);
		return true;
	}
	if (folio_test_anon(folio) && !folio_test_swapbacked(folio)) {
		if (!folio_ref_freeze(folio, 1))
			return false;
		if (folio_test_dirty(folio)) {
			folio_ref_unfreeze(folio, 1);
			return false;
		}
		return true;
	}
	if (!folio_test_swapbacked(folio))
		return remove_file_folio(folio, target_memcg);
	return false;
}

/*
 * The device has no room for a large folio in one piece (its slots are
 * allocated one at a time), so a large anon folio is split and swapped
 * page by page, as the kernel falls back when no free cluster is left:
 * the other pieces join @folio_list and are scanned on their own, so
 * only the first page stays counted as scanned here.  0, or -EAGAIN
 * when the split was refused.
 */
static int swap_split_large_folio(struct folio *folio, struct list_head *folio_list,
				  struct scan_control *sc, long *nr_pages)
{
	unsigned int order = folio_order(folio);

	if (split_folio_to_list(folio, folio_list))
		return -EAGAIN;
	if (order == HPAGE_PMD_ORDER) {
		count_vm_event(THP_SWPOUT_FALLBACK);
		count_memcg_folio_events(folio, THP_SWPOUT_FALLBACK, 1);
	}
	count_mthp_stat(order, MTHP_STAT_SWPOUT_FALLBACK);
	sc->nr_scanned -= (unsigned long)(*nr_pages - 1);
	*nr_pages = 1;
	return 0;
}

unsigned long shrink_folio_list(struct list_head *folio_list, struct pglist_data *pgdat,
				struct scan_control *sc, struct reclaim_stat *stat,
				bool ignore_references)
{
	struct folio_batch free_folios;
	unsigned long nr_reclaimed = 0;
	LIST_HEAD(ret_folios);

	memset(stat, 0, sizeof(*stat));
	folio_batch_init(&free_folios);

	while (!list_empty(folio_list)) {
		struct folio *folio = lru_to_folio(folio_list);
		enum folio_references references = FOLIOREF_RECLAIM;
		long nr_pages = folio_nr_pages(folio);
		bool lazyfree, file_dirty;

		cond_resched();

		list_del(&folio->lru);
		if (!folio_trylock(folio))
			goto keep;
		sc->nr_scanned += (unsigned long)nr_pages;

		if (unlikely(!folio_evictable(folio)))
			goto activate_locked;
		if (!sc->may_unmap && folio_mapped(folio))
			goto keep_locked;

		/*
		 * Dirty file folios at the tail tell kswapd the flusher is
		 * not keeping up (anon is written from here, so not counted).
		 */
		file_dirty = folio_is_file_lru(folio) && !folio_test_anon(folio) &&
			     folio_test_dirty(folio);
		if (file_dirty || (folio_is_file_lru(folio) && folio_test_writeback(folio)))
			stat->nr_dirty += (unsigned int)nr_pages;
		if (file_dirty && !folio_test_writeback(folio))
			stat->nr_unqueued_dirty += (unsigned int)nr_pages;

		/*
		 * Under writeback: no throttling in cgroup v2, so mark it to
		 * be rotated when the write ends, and move on.
		 */
		if (folio_test_writeback(folio)) {
			folio_set_reclaim(folio);
			stat->nr_writeback += (unsigned int)nr_pages;
			goto activate_locked;
		}

		if (!ignore_references)
			references = folio_check_references(folio, sc);
		switch (references) {
		case FOLIOREF_ACTIVATE:
			goto activate_locked;
		case FOLIOREF_KEEP:
			stat->nr_ref_keep += (unsigned int)nr_pages;
			goto keep_locked;
		case FOLIOREF_RECLAIM:
		case FOLIOREF_RECLAIM_CLEAN:
			break;
		}

		lazyfree = folio_test_anon(folio) && !folio_test_swapbacked(folio);
		if (folio_test_swapbacked(folio) && !folio_test_swapcache(folio)) {
			if (!sc->may_swap)
				goto activate_locked;
			if (folio_test_large(folio) &&
			    swap_split_large_folio(folio, folio_list, sc, &nr_pages))
				goto activate_locked;
			if (folio_alloc_swap(folio))
				goto activate_locked;
			/* the new slot holds nothing yet, whatever the PTEs say */
			folio_set_dirty(folio);
		}

		if (folio_mapped(folio) && !try_to_unmap(folio)) {
			stat->nr_unmap_fail += (unsigned int)nr_pages;
			goto activate_locked;
		}

		/* clean and swap-cached: its slot holds the page already */
		if (folio_test_swapbacked(folio) && folio_test_dirty(folio)) {
			if (!sc->may_writepage)
				goto keep_locked;
			/* a CPU that still has the PTE could write after the I/O starts */
			try_to_unmap_flush_dirty();
			switch (pageout(folio, sc)) {
			case PAGE_KEEP:
				goto keep_locked;
			case PAGE_SUCCESS:
				stat->nr_pageout += (unsigned int)nr_pages;
				/* the write's end rotates it; the next scan frees it */
				if (folio_test_writeback(folio) || folio_test_dirty(folio) ||
				    !folio_trylock(folio))
					goto keep;
				/* it ended already and is still ours: free it now */
				if (folio_test_dirty(folio) || folio_test_writeback(folio))
					goto keep_locked;
				break;
			case PAGE_WRITTEN:
				stat->nr_pageout += (unsigned int)nr_pages;
				break;
			}
		} else if (file_dirty) {
			/*
			 * Reclaim no longer writes filesystem folios (as the
			 * s1 mail notes): the flusher does, and PG_reclaim has
			 * the folio rotated to the inactive tail once written.
			 */
			node_stat_mod_folio(folio, NR_VMSCAN_IMMEDIATE, nr_pages);
			stat->nr_immediate += (unsigned int)nr_pages;
			folio_set_reclaim(folio);
			goto activate_locked;
		}

		if (!__remove_mapping(folio, sc->target_mem_cgroup))
			goto keep_locked;
		if (lazyfree) {
			__count_vm_events(PGLAZYFREED, nr_pages);
			count_memcg_folio_events(folio, PGLAZYFREED, (unsigned long)nr_pages);
		}
		/* the refcount is frozen: nobody else can see the lock bit */
		__folio_clear_locked(folio);
		nr_reclaimed += (unsigned long)nr_pages;
		if (!folio_batch_add(&free_folios, folio))
			free_reclaimed_batch(&free_folios);
		continue;

activate_locked:
		if (!folio_test_mlocked(folio)) {
			int type = folio_is_file_lru(folio);

			folio_set_active(folio);
			stat->nr_activate[type] += (unsigned int)nr_pages;
			count_memcg_folio_events(folio, PGACTIVATE, (unsigned long)nr_pages);
		}
keep_locked:
		/* a swap-cached copy that nothing names any more is dead weight */
		if (folio_test_swapcache(folio) && !folio_mapped(folio) &&
		    !folio_test_writeback(folio) && !__swap_count(folio_swap_entry(folio)))
			delete_from_swap_cache(folio);
		folio_unlock(folio);
keep:
		list_add(&folio->lru, &ret_folios);
	}
	if (folio_batch_count(&free_folios))
		free_reclaimed_batch(&free_folios);
	try_to_unmap_flush();
	__count_vm_events(PGACTIVATE, stat->nr_activate[0] + stat->nr_activate[1]);
	list_splice_tail_init(&ret_folios, folio_list);
	return nr_reclaimed;
}

/*
 * ---------------------------------------------------------------------
 * The list shrinkers
 * ---------------------------------------------------------------------
 */

void shrink_active_list(unsigned long nr_to_scan, struct lruvec *lruvec,
			struct scan_control *sc, enum lru_list lru)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	bool file = is_file_lru(lru);
	unsigned long nr_taken, nr_scanned, vm_flags;
	unsigned int nr_rotated = 0, nr_deactivate;
	LIST_HEAD(l_hold);
	LIST_HEAD(l_active);
	LIST_HEAD(l_inactive);

	/* the writes that ended since: their rotations join the drain */
	swap_complete_writes();
	lru_add_drain();

	spin_lock_at(&lruvec->lru_lock, SITE_ACTIVE_ISOLATE);
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &l_hold, &nr_scanned, sc, lru);
	mod_node_page_state(pgdat, NR_ISOLATED_ANON + file, (long)nr_taken);
	mod_lruvec_state(lruvec, PGREFILL, (int)nr_scanned);
	spin_unlock(&lruvec->lru_lock);

	while (!list_empty(&l_hold)) {
		struct folio *folio = lru_to_folio(&l_hold);

		list_del(&folio->lru);
		if (unlikely(!folio_evictable(folio))) {
			folio_putback_lru(folio);
			continue;
		}
		/*
		 * Only executable file pages earn another round on the
		 * active list; everything else goes inactive, where a
		 * second reference can still rescue it.
		 */
		if (folio_referenced(folio, 0, sc->target_mem_cgroup, &vm_flags) &&
		    (vm_flags & VM_EXEC) && file) {
			nr_rotated += (unsigned int)folio_nr_pages(folio);
			list_add(&folio->lru, &l_active);
			continue;
		}
		folio_clear_active(folio);
		folio_set_workingset(folio);
		list_add(&folio->lru, &l_inactive);
	}

	spin_lock_at(&lruvec->lru_lock, SITE_ACTIVE_PUTBACK);
	move_folios_to_lru(lruvec, &l_active);
	nr_deactivate = move_folios_to_lru(lruvec, &l_inactive);
	spin_unlock(&lruvec->lru_lock);

	__count_vm_events(PGDEACTIVATE, nr_deactivate);
	count_memcg_events(memcg, PGDEACTIVATE, nr_deactivate);
	mod_node_page_state(pgdat, NR_ISOLATED_ANON + file, -(long)nr_taken);
	note_rotations(lruvec, file, 0, nr_rotated, SITE_ACTIVE_COST);
}

static unsigned long shrink_inactive_list(unsigned long nr_to_scan, struct lruvec *lruvec,
					  struct scan_control *sc, enum lru_list lru)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	bool file = is_file_lru(lru);
	unsigned long nr_scanned, nr_taken, nr_reclaimed;
	struct reclaim_stat stat;
	LIST_HEAD(folio_list);
	bool stalled = false;

	/* no fatal signals in the model: a throttled reclaimer just waits */
	while (unlikely(too_many_isolated(pgdat, file, sc))) {
		if (stalled)
			return 0;
		/* wait a bit for the reclaimers ahead to put theirs back */
		stalled = true;
		reclaim_throttle(pgdat, VMSCAN_THROTTLE_ISOLATED);
	}

	swap_complete_writes();
	lru_add_drain();

	spin_lock_at(&lruvec->lru_lock, SITE_INACTIVE_ISOLATE);
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &folio_list, &nr_scanned, sc, lru);
	mod_node_page_state(pgdat, NR_ISOLATED_ANON + file, (long)nr_taken);
	count_reclaim_events(sc, lruvec, PGSCAN_KSWAPD, PGSCAN_ANON, file, nr_scanned);
	spin_unlock(&lruvec->lru_lock);

	if (!nr_taken)
		return 0;

	nr_reclaimed = shrink_folio_list(&folio_list, pgdat, sc, &stat, false);

	spin_lock_at(&lruvec->lru_lock, SITE_INACTIVE_PUTBACK);
	move_folios_to_lru(lruvec, &folio_list);
	spin_unlock(&lruvec->lru_lock);

	mod_node_page_state(pgdat, NR_ISOLATED_ANON + file, -(long)nr_taken);
	count_reclaim_events(sc, lruvec, PGSTEAL_KSWAPD, PGSTEAL_ANON, file, nr_reclaimed);

	/* pages that came back instead of going: the price of this type */
	note_rotations(lruvec, file, stat.nr_pageout,
		       (unsigned int)(nr_scanned - nr_reclaimed),
		       SITE_INACTIVE_COST);

	/*
	 * Every folio taken was dirty and nobody had queued it for
	 * writeback: the flusher is asleep or behind, nudge it.
	 */
	if (file && stat.nr_unqueued_dirty == nr_taken)
		wakeup_flusher_threads();

	sc->nr.dirty += stat.nr_dirty;
	sc->nr.congested += stat.nr_congested;
	sc->nr.unqueued_dirty += stat.nr_unqueued_dirty;
	sc->nr.writeback += stat.nr_writeback;
	sc->nr.immediate += stat.nr_immediate;
	sc->nr.taken += (unsigned int)nr_taken;
	if (file)
		sc->nr.file_taken += (unsigned int)nr_taken;
	return nr_reclaimed;
}

static unsigned long shrink_list(enum lru_list lru, unsigned long nr_to_scan,
				 struct lruvec *lruvec, struct scan_control *sc)
{
	if (is_active_lru(lru)) {
		if (sc->may_deactivate & (1 << is_file_lru(lru)))
			shrink_active_list(nr_to_scan, lruvec, sc, lru);
		else
			sc->skipped_deactivate = 1;
		return 0;
	}
	return shrink_inactive_list(nr_to_scan, lruvec, sc, lru);
}

static bool can_age_anon_pages(struct lruvec *lruvec, struct scan_control *sc)
{
	return can_reclaim_anon_pages(sc);
}

void shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long nr[NR_LRU_LISTS] = { 0 }, targets[NR_LRU_LISTS] = { 0 };
	unsigned long nr_to_reclaim = sc->nr_to_reclaim, nr_reclaimed = 0;
	bool proportional_reclaim;
	enum lru_list lru;

	/* root reclaim goes through lru_gen_shrink_node() instead */
	if (lru_gen_enabled() && !root_reclaim(sc)) {
		lru_gen_shrink_lruvec(lruvec, sc);
		return;
	}
	get_scan_count(lruvec, sc, nr, NULL);
	memcpy(targets, nr, sizeof(nr));

	/*
	 * Global direct reclaim at the first priority scans the whole
	 * target, proportionally; otherwise it may stop once it has enough.
	 */
	proportional_reclaim = !cgroup_reclaim(sc) && !current_is_kswapd() &&
			       sc->priority == DEF_PRIORITY;

	while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE]) {
		unsigned long nr_anon, nr_file, percentage, nr_scanned;

		cond_resched();

		for_each_evictable_lru(lru) {
			if (nr[lru]) {
				unsigned long nr_to_scan = min_t(unsigned long, nr[lru],
								 SWAP_CLUSTER_MAX);

				nr[lru] -= nr_to_scan;
				nr_reclaimed += shrink_list(lru, nr_to_scan, lruvec, sc);
			}
		}
		if (nr_reclaimed < nr_to_reclaim || proportional_reclaim)
			continue;

		/*
		 * Enough reclaimed.  Stop the type with less work left, and
		 * scale the other's remaining target so that both end up
		 * scanned by the same fraction of their original targets.
		 */
		nr_file = nr[LRU_INACTIVE_FILE] + nr[LRU_ACTIVE_FILE];
		nr_anon = nr[LRU_INACTIVE_ANON] + nr[LRU_ACTIVE_ANON];
		if (!nr_file || !nr_anon)
			break;
		if (nr_file > nr_anon) {
			unsigned long scan_target = targets[LRU_INACTIVE_ANON] +
						    targets[LRU_ACTIVE_ANON] + 1;

			lru = LRU_BASE;
			percentage = nr_anon * 100 / scan_target;
		} else {
			unsigned long scan_target = targets[LRU_INACTIVE_FILE] +
						    targets[LRU_ACTIVE_FILE] + 1;

			lru = LRU_FILE;
			percentage = nr_file * 100 / scan_target;
		}
		nr[lru] = 0;
		nr[lru + LRU_ACTIVE] = 0;

		lru = (lru == LRU_FILE) ? LRU_BASE : LRU_FILE;
		nr_scanned = targets[lru] - nr[lru];
		nr[lru] = targets[lru] * (100 - percentage) / 100;
		nr[lru] -= min_t(unsigned long, nr[lru], nr_scanned);

		lru += LRU_ACTIVE;
		nr_scanned = targets[lru] - nr[lru];
		nr[lru] = targets[lru] * (100 - percentage) / 100;
		nr[lru] -= min_t(unsigned long, nr[lru], nr_scanned);
	}
	sc->nr_reclaimed += nr_reclaimed;

	/* keep enough inactive anon to find reclaim candidates next time */
	if (can_age_anon_pages(lruvec, sc) && inactive_is_low(lruvec, LRU_INACTIVE_ANON))
		shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc, LRU_ACTIVE_ANON);
}

static void shrink_node_memcgs(struct pglist_data *pgdat, struct scan_control *sc)
{
	struct mem_cgroup *target_memcg = sc->target_mem_cgroup;
	struct mem_cgroup *memcg;

	memcg = mem_cgroup_iter(target_memcg, NULL);
	do {
		struct lruvec *lruvec = mem_cgroup_lruvec(memcg, pgdat);

		cond_resched();
		shrink_lruvec(lruvec, sc);
		if (!sc->memcg_full_walk && sc->nr_reclaimed >= sc->nr_to_reclaim) {
			mem_cgroup_iter_break(target_memcg, memcg);
			break;
		}
	} while ((memcg = mem_cgroup_iter(target_memcg, memcg)));
}

void shrink_node(struct pglist_data *pgdat, struct scan_control *sc)
{
	memset(&sc->nr, 0, sizeof(sc->nr));
	if (lru_gen_enabled() && root_reclaim(sc)) {
		lru_gen_shrink_node(pgdat, sc);
		return;
	}
	prepare_scan_control(pgdat, sc);
	shrink_node_memcgs(pgdat, sc);
}

void snapshot_refaults(struct mem_cgroup *target_memcg, struct pglist_data *pgdat)
{
	struct lruvec *target_lruvec = mem_cgroup_lruvec(target_memcg, pgdat);

	target_lruvec->refaults[WORKINGSET_ANON] =
		lruvec_page_state(target_lruvec, WORKINGSET_ACTIVATE_ANON);
	target_lruvec->refaults[WORKINGSET_FILE] =
		lruvec_page_state(target_lruvec, WORKINGSET_ACTIVATE_FILE);
}

static unsigned long do_try_to_free_pages(struct scan_control *sc, int only_nid)
{
	int nid;

retry:
	do {
		sc->nr_scanned = 0;
		for_each_node(nid) {
			if (only_nid >= 0 && nid != only_nid)
				continue;
			shrink_node(NODE_DATA(nid), sc);
		}
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
	} while (--sc->priority >= 0);

	for_each_node(nid)
		if (only_nid < 0 || nid == only_nid)
			snapshot_refaults(sc->target_mem_cgroup, NODE_DATA(nid));

	if (sc->nr_reclaimed)
		return sc->nr_reclaimed;
	/* the active lists were left alone: try again letting them shrink */
	if (sc->skipped_deactivate) {
		sc->priority = DEF_PRIORITY;
		sc->force_deactivate = 1;
		sc->skipped_deactivate = 0;
		goto retry;
	}
	return 0;
}

unsigned long try_to_free_mem_cgroup_pages(struct mem_cgroup *memcg,
					   unsigned long nr_pages,
					   unsigned int reclaim_options,
					   int *swappiness)
{
	struct scan_control sc = {
		.nr_to_reclaim = max_t(unsigned long, nr_pages, SWAP_CLUSTER_MAX),
		.proactive_swappiness = swappiness,
		.reclaim_idx = MAX_NR_ZONES - 1,
		.target_mem_cgroup = memcg,
		.priority = DEF_PRIORITY,
		.may_writepage = 1,
		.may_unmap = 1,
		.may_swap = !!(reclaim_options & MEMCG_RECLAIM_MAY_SWAP),
		.proactive = !!(reclaim_options & MEMCG_RECLAIM_PROACTIVE),
	};

	/* the zonelist of the current node covers every node */
	return do_try_to_free_pages(&sc, -1);
}

unsigned long try_to_free_pages(unsigned long nr_pages)
{
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX,
		.reclaim_idx = MAX_NR_ZONES - 1,
		.priority = DEF_PRIORITY,
		.may_writepage = 1,
		.may_unmap = 1,
		.may_swap = 1,
	};

	if (nr_pages > SWAP_CLUSTER_MAX)
		sc.nr_to_reclaim = nr_pages;
	return do_try_to_free_pages(&sc, -1);
}
