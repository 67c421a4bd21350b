// SPDX-License-Identifier: MIT
/*
 * The reverse-map walks reclaim needs (the kernel's rmap_walk,
 * folio_referenced and try_to_unmap in mm/rmap.c), over the model's
 * address spaces:
 *
 * - an anon folio's ->mapping is its mm with PAGE_MAPPING_ANON and its
 *   ->index the virtual page number of its first page: the walk finds
 *   the VMA on mm->mmap under mm->page_table_lock and the PTEs at
 *   index << PAGE_SHIFT onwards;
 * - a shmem folio is found through its mapping's i_mmap list of VMAs,
 *   under i_mmap_lock, at vm_start + (index - vm_pgoff) pages.
 *
 * Each PTE is examined and changed under its PTE lock; the lock order is
 * page_table_lock or i_mmap_lock -> PTE lock -> a swap cluster's lock.
 *
 * Lifetimes.  A VMA cannot be freed while it is on mm->mmap or i_mmap
 * and the list lock is held (munmap unlinks under those locks before
 * freeing).  A shmem mapping and an mm_struct are both freed after an
 * RCU grace period (shmem_file_free, mmput), so the walk reads ->mapping
 * and takes i_mmap_lock or page_table_lock inside an RCU read section:
 * an mm whose exit raced with the walk is still there to lock, and its
 * VMA list is empty.  The kernel gets the same from anon_vma refcounts.
 */
#include <lrulab/memcontrol.h>
#include <lrulab/mglru.h>
#include <lrulab/pagemap.h>
#include <lrulab/rcupdate.h>
#include <lrulab/swap_state.h>
#include <lrulab/vmscan.h>

/* Called for each PTE that maps a page of the folio, PTE lock held. */
typedef void (*rmap_one_t)(struct folio *folio, struct vm_area_struct *vma,
			   unsigned long addr, pte_t *ptep, void *arg);

static void rmap_walk_vma(struct folio *folio, struct vm_area_struct *vma,
			  unsigned long addr, rmap_one_t fn, void *arg)
{
	unsigned long first = folio_pfn(folio), nr = (unsigned long)folio_nr_pages(folio);
	unsigned long i;

	for (i = 0; i < nr && addr + i * PAGE_SIZE < vma->vm_end; i++) {
		unsigned long a = addr + i * PAGE_SIZE;
		spinlock_t *ptl;
		pte_t *ptep;
		pte_t pte;

		if (a < vma->vm_start)
			continue;
		ptep = vma_pte(vma, a);
		/* a cheap look first: most PTEs of a cold range are empty */
		pte = ptep_get(ptep);
		if (!pte_present(pte) || pte_pfn(pte) < first || pte_pfn(pte) >= first + nr)
			continue;
		ptl = pte_lockptr(vma, a);
		spin_lock_at(ptl, LOCK_SITE("ptl"));
		pte = ptep_get(ptep);
		if (pte_present(pte) && pte_pfn(pte) >= first && pte_pfn(pte) < first + nr)
			fn(folio, vma, a, ptep, arg);
		spin_unlock(ptl);
	}
}

static void rmap_walk(struct folio *folio, rmap_one_t fn, void *arg)
{
	struct address_space *mapping;
	struct vm_area_struct *vma;

	rcu_read_lock();
	mapping = READ_ONCE(folio->mapping);
	if (!mapping)
		goto out;
	if ((unsigned long)mapping & PAGE_MAPPING_ANON) {
		struct mm_struct *mm = (struct mm_struct *)
			((unsigned long)mapping & ~PAGE_MAPPING_ANON);
		unsigned long addr = folio->index << PAGE_SHIFT;

		if (!folio_mapped(folio))
			goto out;
		spin_lock_at(&mm->page_table_lock, LOCK_SITE("page_table_lock"));
		list_for_each_entry(vma, &mm->mmap, vm_list) {
			if (addr >= vma->vm_start && addr < vma->vm_end) {
				rmap_walk_vma(folio, vma, addr, fn, arg);
				break;
			}
		}
		spin_unlock(&mm->page_table_lock);
		goto out;
	}
	spin_lock_at(&mapping->i_mmap_lock, LOCK_SITE("i_mmap_lock"));
	list_for_each_entry(vma, &mapping->i_mmap, shared) {
		unsigned long pgoff = folio->index;

		if (pgoff < vma->vm_pgoff || pgoff >= vma->vm_pgoff + vma_pages(vma))
			continue;
		rmap_walk_vma(folio, vma, vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT),
			      fn, arg);
	}
	spin_unlock(&mapping->i_mmap_lock);
out:
	rcu_read_unlock();
}

struct referenced_arg {
	int referenced;
	unsigned long vm_flags;
};

static void folio_referenced_one(struct folio *folio, struct vm_area_struct *vma,
				 unsigned long addr, pte_t *ptep, void *arg)
{
	struct referenced_arg *ra = arg;

	if (vma->vm_flags & VM_LOCKED)
		ra->vm_flags |= VM_LOCKED;
	/* MGLRU also promotes the young neighbours of a young PTE */
	if (lru_gen_enabled()) {
		if (lru_gen_look_around(vma, addr, ptep))
			ra->referenced++;
	} else if (ptep_test_and_clear_young(ptep)) {
		ra->referenced++;
	}
}

int folio_referenced(struct folio *folio, int is_locked, struct mem_cgroup *memcg,
		     unsigned long *vm_flags)
{
	struct referenced_arg ra = { 0, 0 };

	*vm_flags = 0;
	if (!folio_mapped(folio))
		return 0;
	rmap_walk(folio, folio_referenced_one, &ra);
	*vm_flags = ra.vm_flags;
	return ra.referenced;
}

/* current->tlb_ubc: the reclaimer's deferred flush */
static __thread struct tlbflush_unmap_batch {
	struct cpumask cpumask;		/* arch_tlbflush_unmap_batch */
	bool flush_required;
	bool writable;			/* a dirty PTE: flush before its I/O */
} tlb_ubc;

/* x86: only a flush that must reach other CPUs is worth batching */
static bool should_defer_flush(struct mm_struct *mm)
{
	return cpumask_any_but(mm_cpumask(mm), smp_processor_id()) >= 0;
}

static void set_tlb_ubc_flush_pending(struct mm_struct *mm, bool dirty)
{
	/* arch_tlbbatch_add_pending: the mm's generation, then its CPUs */
	atomic_long_inc(&mm->tlb_gen);
	cpumask_or(&tlb_ubc.cpumask, mm_cpumask(mm));
	tlb_ubc.flush_required = true;
	if (dirty)
		tlb_ubc.writable = true;
}

void try_to_unmap_flush(void)
{
	/* arch_tlbbatch_flush: the others by IPI, this CPU's own at once */
	int sent = tlb_ubc.flush_required ? flush_tlb_multi(&tlb_ubc.cpumask) : 0;

	trace_mm_line(tlb_batch_flush, NULL, NULL, (u32)sent, 0);
	if (!tlb_ubc.flush_required)
		return;
	cpumask_clear(&tlb_ubc.cpumask);
	tlb_ubc.flush_required = false;
	tlb_ubc.writable = false;
}

void try_to_unmap_flush_dirty(void)
{
	if (tlb_ubc.writable)
		try_to_unmap_flush();
}

static void try_to_unmap_one(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long addr, pte_t *ptep, void *arg)
{
	bool anon = folio_test_anon(folio);
	struct folio *page = pte_page(ptep_get(ptep));
	pte_t old, new = 0;

	if (anon) {
		swp_entry_t entry = folio_swap_entry(folio);

		/* only an order-0 folio in the swap cache gets here */
		if (!folio_test_swapcache(folio)) {
			*(bool *)arg = false;
			return;
		}
		swap_duplicate(entry);
		new = swp_entry_to_pte(entry);
	}
	old = __atomic_exchange_n(ptep, new, __ATOMIC_RELAXED);
	if (pte_dirty(old))
		folio_set_dirty(folio);
	trace_mm_line(rmap_unmap, NULL, vma->vm_mm, pte_dirty(old) ? 1 : 0, 0);
	/* ptep_clear_flush's local flush needs no IPI: only a deferred one */
	if (should_defer_flush(vma->vm_mm))
		set_tlb_ubc_flush_pending(vma->vm_mm, pte_dirty(old));
	folio_remove_rmap_ptes(folio, page, 1, vma);
	add_mm_counter(vma->vm_mm, anon ? MM_ANONPAGES : MM_SHMEMPAGES, -1);
	/* the PTE's reference; the caller's isolation reference remains */
	folio_put(folio);
}

bool try_to_unmap(struct folio *folio)
{
	bool ok = true;

	if (folio_mapped(folio))
		rmap_walk(folio, try_to_unmap_one, &ok);
	return ok && !folio_mapped(folio);
}
