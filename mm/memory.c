// SPDX-License-Identifier: MIT
/*
 * Simulated address spaces (the kernel's mm/memory.c and mm/mmu_gather.c):
 * mm_struct, VMAs with flat PTE arrays, the anonymous and shmem fault
 * paths, user accesses that set the accessed/dirty bits, and zap with
 * mmu_gather batching.
 *
 * Reference rule: every present PTE holds one reference on its folio.  An
 * anon fault of an order-n folio keeps the allocation's reference and
 * adds 2^n - 1, one per PTE it installs; a shmem fault's reference from
 * shmem_get_folio() becomes the PTE's.  Zap hands each folio to the
 * gather with refs = the PTEs it cleared for it, and the gather drops
 * exactly that many through folios_put_refs().
 *
 * A write to a read-only anon PTE is the kernel's do_wp_page: the folio
 * is reused when its mappings explain every reference (PGREUSE),
 * otherwise the page is copied to a new folio (COW).  Without fork an
 * anon folio is always exclusive, so only transient references (a
 * per-CPU LRU cache's, an isolation's) make a copy.
 *
 * An mm is freed after an RCU grace period, so that an rmap walk which
 * found it through a mapped folio's ->mapping under rcu_read_lock() can
 * still take its page_table_lock (mm/huge_memory.c, mm/rmap_walk.c).
 *
 * What the model leaves out, and why it does not change the LRU traffic
 * the fault/free workloads generate: there is no zero page (a read fault
 * on anon memory allocates a folio, mapped read-only until written, and
 * the write fault then reuses it as above); no fault-around for
 * shmem read faults; no PMD mappings (order-9 anon folios are mapped by
 * 512 PTEs, so NR_ANON_THPS stays 0 while THP_FAULT_ALLOC counts them);
 * no mmap_lock (a VMA's users serialise their faults and zaps
 * against munmap and against an mmap that merges into the VMA, as the
 * bench threads do by mapping before their start barrier and leaving
 * the VMA to the process's last thread).
 *
 * Adjacent anonymous mappings of the same flags merge into one VMA, as
 * the kernel's vma_merge_new_range() merges them: the threads of one
 * process that each map a range then fault on one VMA, and its refcount
 * line is theirs.
 *
 * What a fault and a zap touch of the address space besides the PTEs,
 * where the kernel (v7.x) touches it, is done and traced for consumers
 * that cost it on other machines: the fault's write-intent prefetch of
 * the mm's mmap_lock line; the per-VMA read lock's count, taken and
 * dropped by a fault and by MADV_DONTNEED; the mm counters; the PTE
 * table a fault allocates (from the page allocator, cleared) and
 * MADV_DONTNEED frees again when it empties it (PT_RECLAIM), under the
 * PMD table's lock, with the mm's pgtables_bytes; the gather's
 * tlb_flush_pending and its TLB flush, at the points the kernel's
 * mmu_gather flushes; and each page cleared.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/memcontrol.h>
#include <lrulab/mglru.h>
#include <lrulab/mm.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap_state.h>
#include <lrulab/rcupdate.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>
#include <lrulab/mglru.h>

/* Where the first VMA of an mm goes; addresses are never reused. */
#define MMAP_BASE	(1UL << 32)
#define PAGE_MASK_	(~(PAGE_SIZE - 1))

unsigned long fault_extra_ns;

/* Busy, not asleep: the calibrated cost occupies the CPU as kernel work would. */
void fault_extra_work(void)
{
	unsigned long ns = READ_ONCE(fault_extra_ns);
	u64 end;

	if (!ns)
		return;
	end = lrulab_now_ns() + ns;
	while (lrulab_now_ns() < end)
		cpu_relax();
}

/* ---- per-order mTHP counters ---- */

struct mthp_stat {
	unsigned long stats[NR_PAGE_ORDERS][__MTHP_STAT_COUNT];
} ____cacheline_aligned;

/*
 * Only the owning CPU writes its slot; threads that are not model CPUs
 * share the last one and add atomically.  Readers sum; the gauge
 * (nr_anon_partially_mapped) goes up on one CPU and down on another, so
 * only the sum means anything, in modulo-2^64 arithmetic.
 */
static struct mthp_stat mthp_stats[LRULAB_MAX_CPUS + 1];

static const char *const mthp_stat_names[__MTHP_STAT_COUNT] = {
	[MTHP_STAT_ANON_FAULT_ALLOC] = "anon_fault_alloc",
	[MTHP_STAT_ANON_FAULT_FALLBACK] = "anon_fault_fallback",
	[MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE] = "anon_fault_fallback_charge",
	[MTHP_STAT_SPLIT] = "split",
	[MTHP_STAT_SPLIT_FAILED] = "split_failed",
	[MTHP_STAT_SPLIT_DEFERRED] = "split_deferred",
	[MTHP_STAT_SWPOUT_FALLBACK] = "swpout_fallback",
	[MTHP_STAT_NR_ANON_PARTIALLY_MAPPED] = "nr_anon_partially_mapped",
};

const char *mthp_stat_name(enum mthp_stat_item item)
{
	return item < __MTHP_STAT_COUNT ? mthp_stat_names[item] : NULL;
}

void mod_mthp_stat(unsigned int order, enum mthp_stat_item item, long delta)
{
	int cpu = smp_processor_id();
	unsigned long *v;

	if (!order || order >= NR_PAGE_ORDERS || item >= __MTHP_STAT_COUNT)
		return;
	if (cpu < 0) {
		__atomic_fetch_add(&mthp_stats[LRULAB_MAX_CPUS].stats[order][item],
				   (unsigned long)delta, __ATOMIC_RELAXED);
		return;
	}
	v = &mthp_stats[cpu].stats[order][item];
	WRITE_ONCE(*v, READ_ONCE(*v) + (unsigned long)delta);
}

unsigned long mthp_stat_read(unsigned int order, enum mthp_stat_item item)
{
	unsigned long sum = 0;
	int cpu;

	if (order >= NR_PAGE_ORDERS || item >= __MTHP_STAT_COUNT)
		return 0;
	for (cpu = 0; cpu <= LRULAB_MAX_CPUS; cpu++)
		sum += READ_ONCE(mthp_stats[cpu].stats[order][item]);
	return sum;
}

void mthp_stats_reset(void)
{
	memset(mthp_stats, 0, sizeof(mthp_stats));
}

/* ---- address spaces ---- */

/*
 * The mm this thread last ran in: an access from another one is a
 * context switch, which tells the MGLRU walkers that the new mm may have
 * young PTEs again (lru_gen_use_mm, as the scheduler's switch_mm does).
 */
static __thread struct mm_struct *current_mm;
static __thread int current_mm_cpu = -1;

struct mm_struct *mm_alloc(struct mem_cgroup *memcg)
{
	struct mm_struct *mm;

	if (!memcg)
		memcg = root_mem_cgroup;
	if (!memcg) {
		errno = EINVAL;
		return NULL;
	}
	/* line-aligned: its shared lines are where the struct puts them */
	mm = aligned_alloc(L1_CACHE_BYTES, (sizeof(*mm) + L1_CACHE_BYTES - 1) & ~(size_t)(L1_CACHE_BYTES - 1));
	if (!mm) {
		errno = ENOMEM;
		return NULL;
	}
	memset(mm, 0, sizeof(*mm));
	/* a slot per model CPU, and one for threads that are none */
	mm->rss_pcp = aligned_alloc(L1_CACHE_BYTES, (LRULAB_MAX_CPUS + 1) * sizeof(*mm->rss_pcp));
	if (!mm->rss_pcp) {
		free(mm);
		errno = ENOMEM;
		return NULL;
	}
	memset(mm->rss_pcp, 0, (LRULAB_MAX_CPUS + 1) * sizeof(*mm->rss_pcp));
	INIT_LIST_HEAD(&mm->mmap);
	spin_lock_init(&mm->page_table_lock);
	spin_lock_init(&mm->pmd_lock);
	mm->mmap_base = MMAP_BASE;
	mm->memcg = memcg;
	css_get(memcg);
	/* the kernel adds at exec and fork; the model's mms start here */
	INIT_LIST_HEAD(&mm->lru_gen.list);
	lru_gen_add_mm(mm);
	return mm;
}

unsigned long get_mm_counter(struct mm_struct *mm, int member)
{
	long v = 0;
	int cpu;

	for (cpu = 0; cpu <= LRULAB_MAX_CPUS; cpu++)
		v += __atomic_load_n(&mm->rss_pcp[cpu].count[member], __ATOMIC_RELAXED);
	return v < 0 ? 0 : (unsigned long)v;
}

void add_mm_counter(struct mm_struct *mm, int member, long value)
{
	int cpu = smp_processor_id();
	long *v;

	if (cpu < 0) {
		__atomic_fetch_add(&mm->rss_pcp[LRULAB_MAX_CPUS].count[member], value,
				   __ATOMIC_RELAXED);
	} else {
		v = &mm->rss_pcp[cpu].count[member];
		__atomic_store_n(v, __atomic_load_n(v, __ATOMIC_RELAXED) + value, __ATOMIC_RELAXED);
	}
	trace_mm_line(rss_counter, &mm->rss_stat[member], mm, (u32)(int)value, (u8)member);
}

static void vma_free(struct vm_area_struct *vma)
{
	free(vma->tables);
	free(vma->ptes);
	free(vma);
}

/*
 * Every VMA starts on a PMD boundary so that its PTE tables are its own
 * and an mTHP's naturally aligned range never straddles two of them.
 */
/*
 * @mapping NULL: anonymous, whose vm_pgoff is the virtual page number of
 * vm_start.  Every field is set before the VMA goes on mm->mmap, where
 * an MGLRU page-table walker may read it at once.
 */
static struct vm_area_struct *vma_create(struct mm_struct *mm, unsigned long len,
					 unsigned long vm_flags, struct address_space *mapping,
					 unsigned long pgoff, unsigned int anon_order)
{
	unsigned long nr_tables = (len + PMD_SIZE - 1) >> PMD_SHIFT;
	unsigned long span = nr_tables << PMD_SHIFT;
	struct vm_area_struct *vma;
	unsigned long i;

	if (!len || len & ~PAGE_MASK_ || !span) {
		errno = EINVAL;
		return NULL;
	}
	vma = calloc(1, sizeof(*vma));
	if (!vma)
		goto nomem;
	vma->ptes = calloc(len >> PAGE_SHIFT, sizeof(pte_t));
	vma->tables = aligned_alloc(L1_CACHE_BYTES, nr_tables * sizeof(struct pte_table));
	if (!vma->ptes || !vma->tables)
		goto nomem;
	for (i = 0; i < nr_tables; i++) {
		spin_lock_init(&vma->tables[i].ptl);
		vma->tables[i].young = 0;
		vma->tables[i].present = 0;
		vma->tables[i].page = NULL;
	}
	atomic_set(&vma->vm_refcnt, 0);
	vma->vm_flags = vm_flags;
	vma->vm_mm = mm;
	vma->vm_file = mapping;
	vma->anon_order = anon_order;
	INIT_LIST_HEAD(&vma->shared);

	spin_lock_at(&mm->page_table_lock, LOCK_SITE("page_table_lock"));
	if (mm->mmap_base + span < mm->mmap_base) {
		spin_unlock(&mm->page_table_lock);
		goto nomem;
	}
	vma->vm_start = mm->mmap_base;
	vma->vm_end = vma->vm_start + len;
	/* the kernel's anon vm_pgoff: folio->index is the virtual page number */
	vma->vm_pgoff = mapping ? pgoff : vma->vm_start >> PAGE_SHIFT;
	vma->vm_ranges = 1;
	/* a fault reads it without the lock, see vma_start_read() */
	__atomic_store_n(&mm->mmap_base, mm->mmap_base + span, __ATOMIC_RELAXED);
	list_add_tail(&vma->vm_list, &mm->mmap);
	spin_unlock(&mm->page_table_lock);
	return vma;

nomem:
	if (vma)
		vma_free(vma);
	errno = ENOMEM;
	return NULL;
}

/*
 * The mm's last VMA, if a new anonymous range of @vm_flags and @order
 * mapped now would merge into it: it ends where the range would start
 * (the model places top-down's neighbour above, where the kernel's
 * thp_get_unmapped_area() keeps an aligned range next to the last one)
 * and is_mergeable_vma() holds (flags, no file; the model has no
 * mempolicy, userfaultfd or anon name).  is_mergeable_anon_vma() needs
 * no check: the new range has no anon_vma and the model never forks, so
 * a neighbour's, if its faults made one, is taken over (its case 2).
 * The order stands for the kernel's mTHP setting, which is global.
 * Under page_table_lock.
 */
static struct vm_area_struct *anon_merge_target(struct mm_struct *mm, unsigned long vm_flags,
						unsigned int order)
{
	struct vm_area_struct *prev;

	if (list_empty(&mm->mmap))
		return NULL;
	prev = list_last_entry(&mm->mmap, struct vm_area_struct, vm_list);
	if (prev->vm_end != mm->mmap_base || !vma_is_anonymous(prev) ||
	    prev->vm_flags != vm_flags || prev->anon_order != order)
		return NULL;
	return prev;
}

/*
 * Addresses are never reused, so a VMA that ends at mmap_base is the
 * last one: no lock needed, which lets every fault ask.
 */
bool vma_merges_next(struct vm_area_struct *vma)
{
	return vma_is_anonymous(vma) &&
	       vma->vm_end == __atomic_load_n(&vma->vm_mm->mmap_base, __ATOMIC_RELAXED);
}

/*
 * vma_expand(): @vma grows by @len at its end.  Its page tables are
 * flat arrays here, so they are copied into longer ones; the walkers
 * reach them under page_table_lock, held, and no fault, zap or access
 * may run in the VMA meanwhile (do_mmap_anon()'s caller sees to it, as
 * the kernel's mmap_write_lock and vma_start_write() would).
 */
static int vma_expand(struct vm_area_struct *vma, unsigned long len)
{
	unsigned long old_pages = vma_pages(vma), pages = old_pages + (len >> PAGE_SHIFT);
	unsigned long old_tables = (vma->vm_end - vma->vm_start) >> PMD_SHIFT;
	unsigned long nr_tables = (vma->vm_end + len - vma->vm_start + PMD_SIZE - 1) >> PMD_SHIFT;
	struct pte_table *tables;
	pte_t *ptes;
	unsigned long i;

	if (atomic_read(&vma->vm_refcnt))
		return -EBUSY;
	ptes = calloc(pages, sizeof(pte_t));
	tables = aligned_alloc(L1_CACHE_BYTES, nr_tables * sizeof(struct pte_table));
	if (!ptes || !tables) {
		free(ptes);
		free(tables);
		return -ENOMEM;
	}
	memcpy(ptes, vma->ptes, old_pages * sizeof(pte_t));
	memcpy(tables, vma->tables, old_tables * sizeof(struct pte_table));
	for (i = old_tables; i < nr_tables; i++) {
		spin_lock_init(&tables[i].ptl);
		tables[i].young = 0;
		tables[i].present = 0;
		tables[i].page = NULL;
	}
	free(vma->ptes);
	free(vma->tables);
	vma->ptes = ptes;
	vma->tables = tables;
	vma->vm_end += len;
	return 0;
}

unsigned long do_mmap_anon(struct mm_struct *mm, unsigned long len, unsigned int order)
{
	unsigned long vm_flags = VM_READ | VM_WRITE, span = (len + PMD_SIZE - 1) & PMD_MASK;
	struct vm_area_struct *vma;
	unsigned long addr = 0;

	if (!mm || (order && (order < 2 || order > HPAGE_PMD_ORDER)) || !len ||
	    len & ((PAGE_SIZE << order) - 1)) {
		errno = EINVAL;
		return 0;
	}
	spin_lock_at(&mm->page_table_lock, LOCK_SITE("page_table_lock"));
	vma = anon_merge_target(mm, vm_flags, order);
	if (vma && mm->mmap_base + span > mm->mmap_base && !vma_expand(vma, len)) {
		addr = mm->mmap_base;
		vma->vm_ranges++;
		__atomic_store_n(&mm->mmap_base, mm->mmap_base + span, __ATOMIC_RELAXED);
	}
	spin_unlock(&mm->page_table_lock);
	if (addr)
		return addr;
	vma = vma_create(mm, len, vm_flags, NULL, 0, order);
	return vma ? vma->vm_start : 0;
}

unsigned long do_mmap_guard(struct mm_struct *mm, unsigned long len)
{
	struct vm_area_struct *vma = mm ? vma_create(mm, len, 0, NULL, 0, 0) : NULL;

	if (!mm)
		errno = EINVAL;
	return vma ? vma->vm_start : 0;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma, *found = NULL;

	spin_lock_at(&mm->page_table_lock, LOCK_SITE("page_table_lock"));
	list_for_each_entry(vma, &mm->mmap, vm_list)
		if (addr >= vma->vm_start && addr < vma->vm_end) {
			found = vma;
			break;
		}
	spin_unlock(&mm->page_table_lock);
	return found;
}

unsigned long mm_vma_count(struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	unsigned long n = 0;

	spin_lock_at(&mm->page_table_lock, LOCK_SITE("page_table_lock"));
	list_for_each_entry(vma, &mm->mmap, vm_list)
		n++;
	spin_unlock(&mm->page_table_lock);
	return n;
}

struct vm_area_struct *mmap_anon(struct mm_struct *mm, unsigned long len,
				 unsigned int order)
{
	unsigned long addr = do_mmap_anon(mm, len, order);

	return addr ? find_vma(mm, addr) : NULL;
}

struct vm_area_struct *mmap_shmem(struct mm_struct *mm, struct address_space *mapping,
				  unsigned long pgoff, unsigned long len)
{
	struct vm_area_struct *vma;

	if (!mm || !mapping) {
		errno = EINVAL;
		return NULL;
	}
	vma = vma_create(mm, len, VM_READ | VM_WRITE | VM_SHARED, mapping, pgoff, 0);
	if (!vma)
		return NULL;
	spin_lock_at(&mapping->i_mmap_lock, LOCK_SITE("i_mmap_lock"));
	list_add_tail(&vma->shared, &mapping->i_mmap);
	spin_unlock(&mapping->i_mmap_lock);
	return vma;
}

/* pages the tables hold, for the tests' page counts */
static atomic_long_t nr_pte_table_pages;

unsigned long pte_table_pages(void)
{
	return (unsigned long)atomic_long_read(&nr_pte_table_pages);
}

static void pte_table_free(struct vm_area_struct *vma, struct pte_table *table);

/* After the zap: nobody can reach the VMA once it is off both lists. */
static void vma_unlink_free(struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long i, nr_tables = (vma->vm_end - vma->vm_start + PMD_SIZE - 1) >> PMD_SHIFT;

	/* free_pgtables(): what the zaps left */
	for (i = 0; i < nr_tables; i++) {
		struct pte_table *table = &vma->tables[i];

		if (table->present)
			pte_table_free(vma, table);
		if (table->page) {
			atomic_long_sub(1, &nr_pte_table_pages);
			folio_put(table->page);
			table->page = NULL;
		}
	}
	if (mapping) {
		spin_lock_at(&mapping->i_mmap_lock, LOCK_SITE("i_mmap_lock"));
		list_del(&vma->shared);
		spin_unlock(&mapping->i_mmap_lock);
	}
	spin_lock_at(&mm->page_table_lock, LOCK_SITE("page_table_lock"));
	list_del(&vma->vm_list);
	spin_unlock(&mm->page_table_lock);
	vma_free(vma);
}

void munmap_vma(struct vm_area_struct *vma)
{
	struct mmu_gather tlb;

	tlb_gather_mmu(&tlb, vma->vm_mm);
	unmap_page_range(&tlb, vma, vma->vm_start, vma->vm_end);
	tlb_finish_mmu(&tlb);
	vma_unlink_free(vma);
}

static void mm_free_rcu(struct rcu_head *head)
{
	struct mm_struct *mm = container_of(head, struct mm_struct, rcu);

	rcu_tsan_acquire();
	free(mm->rss_pcp);
	free(mm);
}

/* exit_mmap: one gather for the whole address space, then the VMAs go. */
void mmput(struct mm_struct *mm)
{
	struct vm_area_struct *vma, *next;
	struct mmu_gather tlb;

	if (!mm)
		return;
	/* no walker picks the mm up once its page tables start to go */
	lru_gen_del_mm(mm);
	if (current_mm == mm)
		current_mm = NULL;
	tlb_gather_mmu(&tlb, mm);
	list_for_each_entry(vma, &mm->mmap, vm_list)
		unmap_page_range(&tlb, vma, vma->vm_start, vma->vm_end);
	tlb_finish_mmu(&tlb);
	list_for_each_entry_safe(vma, next, &mm->mmap, vm_list)
		vma_unlink_free(vma);
	css_put(mm->memcg);
	/* the deferred free acquires what every walker's read section released */
	call_rcu(&mm->rcu, mm_free_rcu);
}

/* ---- faults ---- */

static bool pte_range_none(pte_t *ptep, unsigned long nr)
{
	unsigned long i;

	for (i = 0; i < nr; i++)
		if (!pte_none(ptep_get(&ptep[i])))
			return false;
	return true;
}

static void set_ptes(pte_t *ptep, struct folio *folio, unsigned long nr, pte_t prot)
{
	unsigned long pfn = folio_pfn(folio), i;
	unsigned int order = folio_order(folio);

	for (i = 0; i < nr; i++)
		__atomic_store_n(&ptep[i], mk_pte(pfn + i, order, prot), __ATOMIC_RELAXED);
}

/*
 * The kernel's __wp_can_reuse_large_anon_folio: every reference must come
 * from this mm's PTEs.  A folio with a single page left mapped is copied
 * instead, so that the large folio can go.  With mthp-lru-cache on the
 * folio may still sit in a per-CPU LRU cache, whose reference is the one
 * extra: if it can be nothing else, drain this CPU's caches (where a
 * folio just faulted here most likely waits) before giving up on reuse.
 */
static bool wp_can_reuse_large_anon_folio(struct folio *folio)
{
	if (folio_mapcount(folio) <= 1)
		return false;
	/* large folios never enter the swap cache in the model; be safe */
	if (folio_test_swapcache(folio))
		return false;
	if (folio_may_be_lru_cached(folio) && !folio_test_lru(folio)) {
		if (folio_ref_count(folio) != folio_mapcount(folio) + 1)
			return false;
		lru_add_drain();
	}
	return folio_mapcount(folio) == folio_ref_count(folio);
}

/*
 * The kernel's wp_can_reuse_anon_folio.  A small folio not yet on the LRU
 * is probably in this CPU's lru_add batch: drain it, since its reference
 * is indistinguishable from anyone else's.  A swap-cache folio is copied
 * (the kernel would free the swap slot first; the model leaves that to
 * the swap-in path).  PTE lock held.
 */
static bool wp_can_reuse_anon_folio(struct folio *folio)
{
	if (folio_test_large(folio))
		return wp_can_reuse_large_anon_folio(folio);
	if (folio_ref_count(folio) > 3 || folio_test_swapcache(folio))
		return false;
	if (!folio_test_lru(folio))
		lru_add_drain();
	return folio_ref_count(folio) == 1;
}

/*
 * The kernel's wp_page_copy for an anon page: a new order-0 folio with
 * the page's contents replaces it in the PTE, and the old page loses
 * that mapping (a large folio is then partially mapped and queued for
 * deferred split).  @old is referenced by the caller.
 */
static vm_fault_t wp_page_copy(struct vm_area_struct *vma, unsigned long addr,
			       struct folio *old, pte_t orig)
{
	struct mm_struct *mm = vma->vm_mm;
	pte_t *ptep = vma_pte(vma, addr);
	struct folio *new;
	spinlock_t *ptl;

	new = folio_alloc(0, -1);
	if (!new)
		return VM_FAULT_OOM;
	if (mem_cgroup_charge(new, mm->memcg)) {
		folio_put(new);
		return VM_FAULT_OOM;
	}
	memcpy(folio_address(new), folio_address(pte_page(orig)), PAGE_SIZE);
	__folio_set_uptodate(new);
	fault_extra_work();

	ptl = pte_lockptr(vma, addr);
	spin_lock_at(ptl, LOCK_SITE("ptl"));
	if ((ptep_get(ptep) & ~(_PAGE_ACCESSED | _PAGE_DIRTY)) !=
	    (orig & ~(_PAGE_ACCESSED | _PAGE_DIRTY))) {
		/* someone else resolved the fault meanwhile: the access retries */
		spin_unlock(ptl);
		folio_put(new);
		return 0;
	}
	folio_add_new_anon_rmap(new, vma, addr);
	folio_add_lru_vma(new, vma);
	__atomic_store_n(ptep, mk_pte(folio_pfn(new), 0, _PAGE_PRESENT | _PAGE_ACCESSED |
				      _PAGE_RW | _PAGE_DIRTY), __ATOMIC_RELAXED);
	folio_remove_rmap_ptes(old, pte_page(orig), 1, vma);
	spin_unlock(ptl);
	/* the reference the old PTE held */
	folio_put(old);
	return 0;
}

/* A write to a present read-only PTE; @ptl is held and dropped here. */
static vm_fault_t do_wp_page(struct vm_area_struct *vma, unsigned long addr,
			     pte_t *ptep, spinlock_t *ptl)
{
	pte_t pte = ptep_get(ptep);
	struct folio *folio = pte_folio(pte);
	vm_fault_t ret;

	if (!folio_test_anon(folio) || wp_can_reuse_anon_folio(folio)) {
		__atomic_fetch_or(ptep, _PAGE_ACCESSED | _PAGE_RW | _PAGE_DIRTY,
				  __ATOMIC_RELAXED);
		spin_unlock(ptl);
		if (folio_test_anon(folio))
			count_vm_event(PGREUSE);
		return 0;
	}
	folio_get(folio);
	spin_unlock(ptl);
	ret = wp_page_copy(vma, addr, folio, pte);
	folio_put(folio);
	return ret;
}

/*
 * A fault on a PTE that is not none: another thread got there first, or
 * a write to a page a read fault mapped read-only (do_wp_page).  Returns
 * false if the PTE is none (the caller allocates), else true with the
 * result in *@ret.  Besides present pages, anon PTEs hold the swap
 * entries reclaim leaves (do_swap_page); anything else is reported, not
 * guessed at.
 */
static bool fault_present_pte(struct vm_area_struct *vma, unsigned long addr, bool write,
			      vm_fault_t *ret)
{
	pte_t *ptep = vma_pte(vma, addr);
	spinlock_t *ptl;
	pte_t pte;

	*ret = 0;
	if (pte_none(ptep_get(ptep)))
		return false;
	ptl = pte_lockptr(vma, addr);
	spin_lock_at(ptl, LOCK_SITE("ptl"));
	pte = ptep_get(ptep);
	if (pte_none(pte)) {
		spin_unlock(ptl);
		return false;
	}
	if (!pte_present(pte)) {
		spin_unlock(ptl);
		/* reclaim left a swap entry: bring the page back */
		*ret = is_swap_pte(pte) && vma_is_anonymous(vma) ?
			do_swap_page(vma, addr, write) : VM_FAULT_SIGBUS;
		return true;
	}
	if (write && !pte_write(pte)) {
		*ret = do_wp_page(vma, addr, ptep, ptl);
		return true;
	}
	__atomic_fetch_or(ptep, _PAGE_ACCESSED | (write ? _PAGE_DIRTY : 0), __ATOMIC_RELAXED);
	spin_unlock(ptl);
	return true;
}

/*
 * The kernel's alloc_anon_folio: try the VMA's mTHP order if its whole
 * naturally aligned range is still unmapped, falling back to order 0
 * when that range is partly mapped, the allocation fails or the charge
 * fails.  Returns a charged, zeroed folio, or NULL when even order 0
 * cannot be had (OOM).
 */
static struct folio *alloc_anon_folio(struct vm_area_struct *vma, unsigned long addr)
{
	struct mem_cgroup *memcg = vma->vm_mm->memcg;
	unsigned int order = vma->anon_order;
	struct folio *folio;

	if (order) {
		unsigned long start = addr & ~((PAGE_SIZE << order) - 1);

		/* unlocked peek, rechecked under the PTE lock */
		if (!pte_range_none(vma_pte(vma, start), 1UL << order))
			order = 0;
	}
	for (;;) {
		folio = folio_alloc(order, -1);
		if (folio) {
			if (!mem_cgroup_charge(folio, memcg))
				break;
			/* uncharged and unmapped: straight back to the allocator */
			folio_put(folio);
			count_mthp_stat(order, MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE);
		}
		if (!order)
			return NULL;
		count_mthp_stat(order, MTHP_STAT_ANON_FAULT_FALLBACK);
		order = 0;
	}
	/* the real cost of a fault, outside every lock */
	memset(folio_address(folio), 0, PAGE_SIZE << order);
	trace_clear_page(PAGE_SIZE << order);
	__folio_set_uptodate(folio);
	fault_extra_work();
	return folio;
}

static vm_fault_t do_anonymous_page(struct vm_area_struct *vma, unsigned long addr,
				    bool write)
{
	pte_t prot = _PAGE_PRESENT | _PAGE_ACCESSED | (write ? _PAGE_RW | _PAGE_DIRTY : 0);
	struct mm_struct *mm = vma->vm_mm;
	unsigned long nr, start;
	struct folio *folio;
	vm_fault_t ret;
	spinlock_t *ptl;
	pte_t *ptep;

retry:
	if (fault_present_pte(vma, addr, write, &ret))
		return ret;
	folio = alloc_anon_folio(vma, addr);
	if (!folio)
		return VM_FAULT_OOM;
	nr = folio_nr_pages(folio);
	start = addr & ~((nr << PAGE_SHIFT) - 1);
	ptep = vma_pte(vma, start);
	ptl = pte_lockptr(vma, start);

	spin_lock_at(ptl, LOCK_SITE("ptl"));
	if (!pte_range_none(ptep, nr)) {
		/* a racing fault mapped part of the range: start over */
		spin_unlock(ptl);
		folio_put(folio);
		goto retry;
	}
	/* one reference per PTE: the allocation's is the first */
	folio_ref_add(folio, (int)nr - 1);
	add_mm_counter(mm, MM_ANONPAGES, (long)nr);
	count_mthp_stat(folio_order(folio), MTHP_STAT_ANON_FAULT_ALLOC);
	if (folio_order(folio) == HPAGE_PMD_ORDER) {
		/* what the kernel's PMD fault counts; it maps by PMD, we by PTEs */
		count_vm_event(THP_FAULT_ALLOC);
		count_memcg_events(mm->memcg, THP_FAULT_ALLOC, 1);
	}
	folio_add_new_anon_rmap(folio, vma, start);
	folio_add_lru_vma(folio, vma);
	set_ptes(ptep, folio, nr, prot);
	spin_unlock(ptl);
	return 0;
}

static vm_fault_t do_shmem_fault(struct vm_area_struct *vma, unsigned long addr,
				 bool write)
{
	/* a shared writable mapping needs no write notification: map it RW */
	pte_t prot = _PAGE_PRESENT | _PAGE_ACCESSED | _PAGE_RW | (write ? _PAGE_DIRTY : 0);
	unsigned long pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
	pte_t *ptep = vma_pte(vma, addr);
	struct folio *folio;
	vm_fault_t ret;
	spinlock_t *ptl;
	int err;

retry:
	if (fault_present_pte(vma, addr, write, &ret))
		return ret;
	err = shmem_get_folio(vma->vm_file, pgoff, vma->vm_mm->memcg, &folio);
	if (err)
		return err == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;

	/*
	 * finish_fault maps the folio locked, as filemap_fault returns it:
	 * reclaim holds the lock from unmapping to writeout, so no PTE can
	 * come back in between; one that left the cache meanwhile (swapped
	 * out, truncated) is looked up again.
	 */
	folio_lock(folio);
	if (READ_ONCE(folio->mapping) != vma->vm_file) {
		folio_unlock(folio);
		folio_put(folio);
		goto retry;
	}
	ptl = pte_lockptr(vma, addr);
	spin_lock_at(ptl, LOCK_SITE("ptl"));
	if (!pte_none(ptep_get(ptep))) {
		__atomic_fetch_or(ptep, _PAGE_ACCESSED | (write ? _PAGE_DIRTY : 0),
				  __ATOMIC_RELAXED);
		spin_unlock(ptl);
		folio_unlock(folio);
		folio_put(folio);
		return 0;
	}
	/* the lookup's reference becomes the PTE's */
	folio_add_file_rmap_ptes(folio, folio, 1, vma);
	add_mm_counter(vma->vm_mm, MM_SHMEMPAGES, 1);
	set_ptes(ptep, folio, 1, prot);
	spin_unlock(ptl);
	folio_unlock(folio);
	return 0;
}

/*
 * A fault in a range without a PTE table gives it one (pte_alloc()): a
 * page from the allocator, cleared (__GFP_ZERO), installed under the
 * PMD table's lock unless a racing fault installed one first, and
 * counted in the mm's pgtables_bytes (pmd_install()).  A page the
 * allocator cannot give leaves the table without one: the model's PTEs
 * do not live in it.
 */
static void pte_alloc(struct vm_area_struct *vma, unsigned long addr)
{
	struct pte_table *table = &vma->tables[(addr - vma->vm_start) >> PMD_SHIFT];
	struct mm_struct *mm = vma->vm_mm;
	struct folio *page;

	if (__atomic_load_n(&table->present, __ATOMIC_ACQUIRE))
		return;
	page = folio_alloc(0, -1);
	if (page) {
		memset(folio_address(page), 0, PAGE_SIZE);
		trace_clear_page(PAGE_SIZE);
	}
	spin_lock_at(&mm->pmd_lock, LOCK_SITE("pmd_lock"));
	if (!table->present) {
		table->page = page;
		if (page)
			atomic_long_inc(&nr_pte_table_pages);
		page = NULL;
		atomic_long_add(PAGE_SIZE, &mm->pgtables_bytes);
		trace_mm_line(pte_table, &mm->pgtables_bytes, mm, 1, 0);
		__atomic_store_n(&table->present, 1UL, __ATOMIC_RELEASE);
	}
	spin_unlock(&mm->pmd_lock);
	if (page)
		folio_put(page);
}

/*
 * The table's PMD entry cleared under the PMD table's lock, and the
 * mm's pgtables_bytes; the caller frees the page (after the TLB flush,
 * for a zap's).
 */
static void pte_table_free(struct vm_area_struct *vma, struct pte_table *table)
{
	struct mm_struct *mm = vma->vm_mm;

	spin_lock_at(&mm->pmd_lock, LOCK_SITE("pmd_lock"));
	__atomic_store_n(&table->present, 0UL, __ATOMIC_RELEASE);
	atomic_long_sub(PAGE_SIZE, &mm->pgtables_bytes);
	trace_mm_line(pte_table, &mm->pgtables_bytes, mm, 0, 0);
	spin_unlock(&mm->pmd_lock);
}

/*
 * The per-VMA read lock (lock_vma_under_rcu() and vma_end_read()).  Taken
 * as the kernel's __refcount_inc_not_zero_limited_acquire() takes it: the
 * count read, then a cmpxchg from what was read until one holds, so the
 * line is fetched to be read and then again to be owned; dropped by one
 * atomic (vma_refcount_put()'s dec-and-test).  Nothing write-locks a VMA
 * in the model, so the read side always succeeds.  The event says whether the
 * line is the process's threads' (b0 1): the VMA holds ranges that more
 * than one mmap made, or takes in the next thread's as it is now, so a
 * one-thread recording says what N threads mapping alike would share.
 */
static u8 vma_refcnt_shared(struct vm_area_struct *vma)
{
	return vma->vm_ranges > 1 || vma_merges_next(vma);
}

static void vma_start_read(struct vm_area_struct *vma)
{
	int old = atomic_read(&vma->vm_refcnt);

	while (!atomic_try_cmpxchg(&vma->vm_refcnt, &old, old + 1))
		;
	trace_mm_line(vma_refcnt, &vma->vm_refcnt, NULL, 1, vma_refcnt_shared(vma));
}

static void vma_end_read(struct vm_area_struct *vma)
{
	atomic_dec(&vma->vm_refcnt);
	trace_mm_line(vma_refcnt, &vma->vm_refcnt, NULL, 0, vma_refcnt_shared(vma));
}

vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long addr,
			   unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	bool write = flags & FAULT_FLAG_WRITE;
	vm_fault_t ret;

	/* what the arch fault handler rejects before handle_mm_fault */
	if (addr < vma->vm_start || addr >= vma->vm_end)
		return VM_FAULT_SIGSEGV;
	if (write && !(vma->vm_flags & VM_WRITE))
		return VM_FAULT_SIGSEGV;
	addr &= PAGE_MASK_;

	/* exc_page_fault: prefetchw(&mm->mmap_lock), whether it is taken or not */
	trace_mm_line(mmap_lock_prefetch, &mm->mmap_lock, mm, 0, 0);
	vma_start_read(vma);
	count_vm_event(PGFAULT);
	count_memcg_events(mm->memcg, PGFAULT, 1);
	pte_alloc(vma, addr);
	lru_gen_enter_fault(vma);
	if (vma_is_anonymous(vma))
		ret = do_anonymous_page(vma, addr, write);
	else
		ret = do_shmem_fault(vma, addr, write);
	lru_gen_exit_fault();
	vma_end_read(vma);
	return ret;
}

static void switch_mm_if_needed(struct mm_struct *mm)
{
	int cpu = smp_processor_id();

	if (likely(current_mm == mm && current_mm_cpu == cpu))
		return;
	/* switch_mm_irqs_off: this CPU may now hold the mm's translations */
	if (cpu >= 0 && !cpumask_test_cpu(cpu, mm_cpumask(mm)))
		cpumask_set_cpu(cpu, mm_cpumask(mm));
	current_mm_cpu = cpu;
	if (current_mm == mm)
		return;
	current_mm = mm;
	lru_gen_use_mm(mm);
}

/*
 * The MMU's walk for a TLB fill sets the accessed bit of the PMD entry
 * too (x86), which LRU_GEN_NONLEAF_YOUNG relies on; it is only written
 * when clear, as the hardware leaves a set bit alone.
 */
static void pmd_mkyoung(struct vm_area_struct *vma, unsigned long addr)
{
	unsigned long *young = &vma->tables[(addr - vma->vm_start) >> PMD_SHIFT].young;

	if (!__atomic_load_n(young, __ATOMIC_RELAXED))
		__atomic_store_n(young, 1UL, __ATOMIC_RELAXED);
}

vm_fault_t mm_access(struct vm_area_struct *vma, unsigned long addr, bool write)
{
	pte_t bits = _PAGE_ACCESSED | (write ? _PAGE_DIRTY : 0);
	bool walked = false;
	unsigned char *p;
	pte_t *ptep;
	pte_t pte;

	/*
	 * A scheduling point, once per access: user code runs until the
	 * tick preempts it, and a fault returns to user space before the
	 * next access (handle_mm_fault() relies on this one).
	 */
	cond_resched();
	if (addr < vma->vm_start || addr >= vma->vm_end)
		return VM_FAULT_SIGSEGV;
	switch_mm_if_needed(vma->vm_mm);
	ptep = vma_pte(vma, addr);
	pte = ptep_get(ptep);
	for (;;) {
		if (!pte_present(pte) || (write && !pte_write(pte))) {
			vm_fault_t ret = handle_mm_fault(vma, addr,
							 write ? FAULT_FLAG_WRITE : 0);

			if (ret)
				return ret;
			/* the access is retried, as the hardware does */
			pte = ptep_get(ptep);
			walked = true;
			continue;
		}
		/* what the MMU does on a TLB fill: set A (and D), no lock */
		if ((pte & bits) == bits)
			break;
		walked = true;
		if (__atomic_compare_exchange_n(ptep, &pte, pte | bits, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	}
	if (walked)
		pmd_mkyoung(vma, addr);
	p = (unsigned char *)folio_address(pte_page(pte)) + (addr & ~PAGE_MASK_);
	if (write)
		__atomic_store_n(p, 1, __ATOMIC_RELAXED);
	else
		(void)__atomic_load_n(p, __ATOMIC_RELAXED);
	return 0;
}

/* ---- zap and mmu_gather ---- */

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	tlb->mm = mm;
	tlb->nr = 0;
	tlb->reclaim_pt = false;
	tlb->unmapped = tlb->slots = 0;
	tlb->nr_tables = 0;
	/* inc_tlb_flush_pending() */
	atomic_inc(&mm->tlb_flush_pending);
	trace_mm_line(tlb_flush_pending, &mm->tlb_flush_pending, mm, 1, 0);
}

/*
 * The slots the kernel's gather holds before it must flush: the on-stack
 * bundle of 8 and 10000 / 510 batch pages of 510 (asm-generic/tlb.h's
 * MMU_GATHER_BUNDLE, MAX_GATHER_BATCH_COUNT and MAX_GATHER_BATCH).
 */
#define KERNEL_GATHER_SLOTS	(8 + 10000 / 510 * 510)

/*
 * The TLB flush the kernel's gather does here (flush_tlb_mm_range():
 * the mm's tlb_gen, then the other CPUs in its cpumask), when it
 * cleared PTEs or freed tables since its last one.
 */
static void tlb_flush_tlbonly(struct mmu_gather *tlb)
{
	struct mm_struct *mm = tlb->mm;

	if (!tlb->unmapped && !tlb->nr_tables)
		return;
	atomic_long_inc(&mm->tlb_gen);
	trace_mm_line(tlb_flush, &mm->tlb_gen, mm,
		      (u32)(tlb->unmapped > 0xffffffffUL ? 0xffffffffUL : tlb->unmapped),
		      tlb->nr_tables > 0);
	flush_tlb_multi(mm_cpumask(mm));
	tlb->unmapped = tlb->slots = 0;
}

/*
 * The kernel's free_pages_and_swap_cache: drain this CPU's LRU batches
 * first (a folio still in the lru_add batch would keep its batch
 * reference and escape the free), then drop the PTEs' references a
 * folio_batch at a time.
 */
void tlb_flush_mmu(struct mmu_gather *tlb)
{
	unsigned int refs[FOLIO_BATCH_SIZE];
	struct folio_batch fbatch;
	unsigned int i;

	if (!tlb->nr)
		return;
	lru_add_drain();
	folio_batch_init(&fbatch);
	for (i = 0; i < tlb->nr; i++) {
		free_swap_cache(tlb->folios[i]);
		refs[folio_batch_count(&fbatch)] = tlb->refs[i];
		if (!folio_batch_add(&fbatch, tlb->folios[i])) {
			folios_put_refs(&fbatch, refs);
			folio_batch_reinit(&fbatch);
		}
	}
	if (folio_batch_count(&fbatch))
		folios_put_refs(&fbatch, refs);
	tlb->nr = 0;
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	unsigned int i;

	tlb_flush_tlbonly(tlb);
	tlb_flush_mmu(tlb);
	/* the emptied tables' pages, once no TLB can walk them */
	for (i = 0; i < tlb->nr_tables; i++) {
		atomic_long_sub(1, &nr_pte_table_pages);
		folio_put(tlb->tables[i]);
	}
	tlb->nr_tables = 0;
	atomic_dec(&tlb->mm->tlb_flush_pending);
	trace_mm_line(tlb_flush_pending, &tlb->mm->tlb_flush_pending, tlb->mm, 0, 0);
}

static enum mm_counter mm_counter(struct folio *folio)
{
	if (folio_test_anon(folio))
		return MM_ANONPAGES;
	return folio_test_swapbacked(folio) ? MM_SHMEMPAGES : MM_FILEPAGES;
}

/* A shmem folio's dirty bit carries no accounting (noop_dirty_folio). */
static void folio_mark_dirty_noacct(struct folio *folio)
{
	if (!folio_test_dirty(folio))
		folio_set_dirty(folio);
}

/*
 * How many PTEs from @ptep map consecutive pages of @folio starting at
 * @pfn, up to @max (the kernel's folio_pte_batch).
 */
static unsigned long folio_pte_batch(struct folio *folio, pte_t *ptep,
				     unsigned long pfn, unsigned long max)
{
	unsigned long left = folio_pfn(folio) + folio_nr_pages(folio) - pfn;
	unsigned long i;

	if (max > left)
		max = left;
	for (i = 1; i < max; i++) {
		pte_t pte = ptep_get(&ptep[i]);

		if (!pte_present(pte) || pte_pfn(pte) != pfn + i)
			break;
	}
	return i;
}

/*
 * Zap [addr, end), which lies in one PTE table, until the gather is
 * full; returns where it stopped.  Runs of PTEs mapping one folio are
 * cleared, unmapped and gathered as one entry.
 */
static unsigned long zap_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
				   unsigned long addr, unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	spinlock_t *ptl = pte_lockptr(vma, addr);
	long rss[NR_MM_COUNTERS] = { 0 };
	int member;

	spin_lock_at(ptl, LOCK_SITE("ptl"));
	while (addr < end && tlb->nr < MMU_GATHER_BATCH) {
		pte_t *ptep = vma_pte(vma, addr);
		pte_t pte = ptep_get(ptep), bits = 0;
		struct folio *folio, *page;
		unsigned long nr, i;

		if (pte_none(pte)) {
			addr += PAGE_SIZE;
			continue;
		}
		if (is_swap_pte(pte)) {
			/* the page is out: drop the entry's count on its slot */
			__atomic_exchange_n(ptep, 0, __ATOMIC_RELAXED);
			free_swap_and_cache(pte_to_swp_entry(pte));
			addr += PAGE_SIZE;
			continue;
		}
		folio = pte_folio(pte);
		page = pte_page(pte);
		nr = folio_pte_batch(folio, ptep, pte_pfn(pte), (end - addr) >> PAGE_SHIFT);
		for (i = 0; i < nr; i++)
			bits |= __atomic_exchange_n(&ptep[i], 0, __ATOMIC_RELAXED);
		if (!folio_test_anon(folio)) {
			if (bits & _PAGE_DIRTY)
				folio_mark_dirty_noacct(folio);
			if (bits & _PAGE_ACCESSED)
				folio_mark_accessed(folio);
		}
		rss[mm_counter(folio)] -= (long)nr;
		folio_remove_rmap_ptes(folio, page, (int)nr, vma);
		tlb->folios[tlb->nr] = folio;
		tlb->refs[tlb->nr] = (unsigned int)nr;
		tlb->nr++;
		tlb->unmapped += nr;
		/* a large folio takes a page slot and a count slot */
		tlb->slots += nr > 1 ? 2 : 1;
		addr += nr << PAGE_SHIFT;
		/* the kernel's gather is full: it flushes before it frees */
		if (tlb->slots + 2 > KERNEL_GATHER_SLOTS)
			tlb_flush_tlbonly(tlb);
	}
	/* add_mm_rss_vec(): once per table walked */
	for (member = 0; member < NR_MM_COUNTERS; member++)
		if (rss[member])
			add_mm_counter(mm, member, rss[member]);
	spin_unlock(ptl);
	return addr;
}

/*
 * PT_RECLAIM: a MADV_DONTNEED that covered the whole table and left
 * every PTE in it none frees the table (try_get_and_clear_pmd() and
 * free_pte()), the page going with the gather's flush.
 */
static void zap_reclaim_table(struct mmu_gather *tlb, struct vm_area_struct *vma,
			      unsigned long start, unsigned long end)
{
	struct pte_table *table = &vma->tables[(start - vma->vm_start) >> PMD_SHIFT];

	if (!tlb->reclaim_pt || start & ~PMD_MASK || end - start != PMD_SIZE ||
	    end > vma->vm_end || !table->page || tlb->nr_tables == MMU_GATHER_TABLES ||
	    !pte_range_none(vma_pte(vma, start), PMD_SIZE >> PAGE_SHIFT))
		return;
	pte_table_free(vma, table);
	tlb->tables[tlb->nr_tables++] = table->page;
	table->page = NULL;
}

void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
		      unsigned long start, unsigned long end)
{
	unsigned long addr;

	if (start < vma->vm_start)
		start = vma->vm_start;
	if (end > vma->vm_end || end < start)
		end = vma->vm_end;
	addr = start & PAGE_MASK_;
	end = (end + PAGE_SIZE - 1) & PAGE_MASK_;
	while (addr < end) {
		unsigned long next = (addr & PMD_MASK) + PMD_SIZE;
		bool whole;

		if (next > end)
			next = end;
		whole = !(addr & ~PMD_MASK) && next - addr == PMD_SIZE;
		do {
			addr = zap_pte_range(tlb, vma, addr, next);
			/* a full gather is freed with no PTE lock held */
			if (tlb->nr == MMU_GATHER_BATCH)
				tlb_flush_mmu(tlb);
		} while (addr < next);
		if (whole)
			zap_reclaim_table(tlb, vma, next - PMD_SIZE, next);
		cond_resched();
	}
}

void zap_page_range_single(struct vm_area_struct *vma, unsigned long start,
			   unsigned long size)
{
	struct mmu_gather tlb;

	if (!size || start >= vma->vm_end || start + size <= vma->vm_start)
		return;
	tlb_gather_mmu(&tlb, vma->vm_mm);
	unmap_page_range(&tlb, vma, start, start + size);
	tlb_finish_mmu(&tlb);
}

void madvise_dontneed_single_vma(struct vm_area_struct *vma, unsigned long start,
				 unsigned long size)
{
	struct mmu_gather tlb;

	if (!size || start >= vma->vm_end || start + size <= vma->vm_start)
		return;
	/* MADV_DONTNEED takes the VMA's read lock, not mmap_lock (v6.16 on) */
	vma_start_read(vma);
	tlb_gather_mmu(&tlb, vma->vm_mm);
	tlb.reclaim_pt = true;
	unmap_page_range(&tlb, vma, start, start + size);
	tlb_finish_mmu(&tlb);
	vma_end_read(vma);
}

void unmap_mapping_pages(struct address_space *mapping, unsigned long start,
			 unsigned long nr, bool even_cows)
{
	unsigned long last = start + nr - 1;
	struct vm_area_struct *vma;

	if (!nr)
		return;
	if (last < start)
		last = ~0UL;
	/* held across the zaps so that munmap cannot free a VMA under us */
	spin_lock_at(&mapping->i_mmap_lock, LOCK_SITE("i_mmap_lock"));
	list_for_each_entry(vma, &mapping->i_mmap, shared) {
		unsigned long first = vma->vm_pgoff;
		unsigned long vlast = first + vma_pages(vma) - 1;
		unsigned long zs, ze;

		if (vlast < start || first > last)
			continue;
		zs = start > first ? start : first;
		ze = last < vlast ? last : vlast;
		zap_page_range_single(vma, vma->vm_start + ((zs - first) << PAGE_SHIFT),
				      (ze - zs + 1) << PAGE_SHIFT);
	}
	spin_unlock(&mapping->i_mmap_lock);
}
