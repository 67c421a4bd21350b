// SPDX-License-Identifier: MIT
/*
 * The swap cache and swap-in (the kernel's mm/swap_state.c), the
 * anonymous swap fault (do_swap_page, from mm/memory.c) and the zap of a
 * swap PTE (free_swap_and_cache, which the kernel keeps in
 * mm/swapfile.c; here it is all swap cache work).  The device, its slots
 * and their counts are in mm/swapfile.c, reading a slot's page in
 * mm/page_io.c.
 *
 * A slot's swap cache folio, and its shadow once the folio is gone, live
 * in the slot, under its cluster's lock like all else there: a folio
 * enters the cache (folio_alloc_swap() in mm/swapfile.c, or
 * swapin_folio() here), leaves it and is looked up under that one lock.
 *
 * Lock order: as in mm/swapfile.c's header.  Here each cluster lock is
 * taken alone; free_swap_and_cache() runs under the PTE lock (from
 * zap_pte_range), and do_swap_page() drops the PTE lock before it frees
 * the slot.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include <lrulab/memcontrol.h>
#include <lrulab/pagemap.h>
#include <lrulab/vmscan.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "swap-internal.h"

void __delete_from_swap_cache(struct folio *folio, void *shadow)
{
	swp_entry_t entry = folio_swap_entry(folio);
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	void *data;

	ci = lock_cluster(entry.val);
	s->cache = NULL;
	atomic_long_sub(1, &swap_info.cached);
	/* a shadow is worth keeping only while something names the slot */
	s->shadow = s->count ? shadow : NULL;
	data = slot_maybe_free(ci, s);
	folio_clear_swapcache(folio);
	folio->private = 0;
	unlock_cluster(ci);
	free(data);
	lruvec_stat_mod_folio(folio, NR_SWAPCACHE, -1);
}

void delete_from_swap_cache(struct folio *folio)
{
	__delete_from_swap_cache(folio, NULL);
	folio_put_refs(folio, 1);
}

struct folio *__swap_cache_folio(swp_entry_t entry)
{
	struct swap_slot *s = smp_load_acquire(&swap_info.on) ? slot_of(entry) : NULL;

	return s ? s->cache : NULL;
}

void *swap_shadow(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	void *shadow;

	if (!s)
		return NULL;
	ci = lock_cluster(entry.val);
	shadow = s->shadow;
	unlock_cluster(ci);
	return shadow;
}

/*
 * A folio leaves the swap cache only under its cluster's lock, and with
 * its refcount frozen when reclaim removes it, so a reference taken
 * under the lock is safe; a frozen folio is on its way out and reads as
 * absent.
 */
struct folio *swap_cache_get_folio(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	struct folio *folio;

	if (!s)
		return NULL;
	ci = lock_cluster(entry.val);
	folio = s->cache;
	if (folio && !folio_try_get(folio))
		folio = NULL;
	unlock_cluster(ci);
	return folio;
}

/* Locked, still cached for @entry: the folio may be used. */
static bool folio_swapcache_is(struct folio *folio, swp_entry_t entry)
{
	return folio_test_swapcache(folio) && folio->private == entry.val;
}

struct folio *swapin_folio(swp_entry_t entry, struct mem_cgroup *memcg, int *err)
{
	struct swap_slot *s = slot_of(entry);
	struct folio *folio, *new = NULL;
	struct swap_cluster_info *ci;
	void *shadow;

	if (!s) {
		*err = -ENOENT;
		return NULL;
	}
	for (;;) {
		folio = swap_cache_get_folio(entry);
		if (folio) {
			folio_lock(folio);
			if (folio_swapcache_is(folio, entry))
				break;
			/* reclaim or another fault finished with it meanwhile */
			folio_unlock(folio);
			folio_put(folio);
		}
		if (!new) {
			new = folio_alloc(0, -1);
			if (!new || mem_cgroup_charge(new, memcg)) {
				if (new)
					folio_put(new);
				*err = -ENOMEM;
				return NULL;
			}
			__folio_set_swapbacked(new);
			__folio_set_locked(new);
		}
		/* install the new folio if the slot is still out and uncached */
		ci = lock_cluster(entry.val);
		if (!s->count) {
			unlock_cluster(ci);
			__folio_clear_locked(new);
			__folio_clear_swapbacked(new);
			folio_put(new);
			*err = -ENOENT;
			return NULL;
		}
		if (s->cache) {
			unlock_cluster(ci);
			/*
			 * Cached, yet swap_cache_get_folio() found it frozen:
			 * reclaim is taking it out.  Give the CPU up until it
			 * is gone, as the kernel sleeps a jiffy here, rather
			 * than spin on the cluster lock the remover needs.
			 */
			cpu_sleep_begin();
			sched_yield();
			cpu_sleep_end();
			continue;
		}
		s->cache = new;
		shadow = s->shadow;
		s->shadow = NULL;
		atomic_long_inc(&swap_info.cached);
		folio_ref_add(new, 1);
		new->private = entry.val;
		folio_set_swapcache(new);
		unlock_cluster(ci);
		lruvec_stat_mod_folio(new, NR_SWAPCACHE, 1);

		swap_read_folio(new, entry);
		__folio_set_uptodate(new);
		count_vm_event(PGMAJFAULT);
		count_memcg_folio_events(new, PGMAJFAULT, 1);
		if (shadow)
			workingset_refault(new, shadow);
		folio_add_lru(new);
		return new;
	}
	if (new) {
		__folio_clear_locked(new);
		__folio_clear_swapbacked(new);
		folio_put(new);
	}
	return folio;
}

vm_fault_t do_swap_page(struct vm_area_struct *vma, unsigned long addr, bool write)
{
	pte_t *ptep = vma_pte(vma, addr);
	pte_t orig = ptep_get(ptep), prot;
	struct mm_struct *mm = vma->vm_mm;
	swp_entry_t entry;
	struct folio *folio;
	spinlock_t *ptl;
	int err;

	if (!is_swap_pte(orig))
		return 0;
	entry = pte_to_swp_entry(orig);
	folio = swapin_folio(entry, mm->memcg, &err);
	if (!folio)
		return err == -ENOENT ? 0 : VM_FAULT_OOM;

	ptl = pte_lockptr(vma, addr);
	spin_lock_at(ptl, LOCK_SITE("ptl"));
	if (ptep_get(ptep) != orig) {
		/* a racing fault of this mm mapped it already */
		spin_unlock(ptl);
		folio_unlock(folio);
		folio_put(folio);
		return 0;
	}
	/* exclusive to this mm (no fork): map it writable at once */
	prot = _PAGE_PRESENT | _PAGE_ACCESSED | _PAGE_RW | (write ? _PAGE_DIRTY : 0);
	/* the swap-in's reference becomes the PTE's */
	folio_add_new_anon_rmap(folio, vma, addr);
	add_mm_counter(mm, MM_ANONPAGES, 1);
	__atomic_store_n(ptep, mk_pte(folio_pfn(folio), 0, prot), __ATOMIC_RELAXED);
	spin_unlock(ptl);

	swap_free(entry);
	/*
	 * Nothing names the slot any more: the copy in swap is stale.  A
	 * write still in flight keeps it cached (folio_free_swap() refuses
	 * a folio under writeback), until the zap (free_swap_cache) or
	 * reclaim finds it unmapped.
	 */
	if (!__swap_count(entry) && folio_swapcache_is(folio, entry) &&
	    !folio_test_writeback(folio))
		delete_from_swap_cache(folio);
	folio_unlock(folio);
	return 0;
}

void free_swap_and_cache(swp_entry_t entry)
{
	struct folio *folio;

	swap_free(entry);
	if (__swap_count(entry))
		return;
	/* a cached folio nobody can fault in again is dead weight */
	folio = swap_cache_get_folio(entry);
	if (!folio)
		return;
	if (folio_trylock(folio)) {
		if (folio_swapcache_is(folio, entry) && !__swap_count(entry) &&
		    !folio_mapped(folio) && !folio_test_writeback(folio))
			delete_from_swap_cache(folio);
		folio_unlock(folio);
	}
	folio_put(folio);
}

void free_swap_cache(struct folio *folio)
{
	if (!folio_test_swapcache(folio) || folio_mapped(folio) || !folio_trylock(folio))
		return;
	if (folio_test_swapcache(folio) && !folio_test_writeback(folio) &&
	    !__swap_count(folio_swap_entry(folio)))
		delete_from_swap_cache(folio);
	folio_unlock(folio);
}
