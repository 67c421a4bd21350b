/* SPDX-License-Identifier: MIT */
/*
 * Simulated address spaces (mm/memory.c): an mm_struct with VMAs whose
 * page tables are flat PTE arrays (pfn + present/accessed/dirty/write
 * bits), page faults that allocate, zero, charge, map and add to the LRU,
 * and zap with mmu_gather-style batched freeing.
 *
 * Reference and map counts (mm/memory.c, mm/rmap.c):
 * - every present PTE holds one reference on the folio it maps and
 *   counts once in the folio's mapcount (head entry's _mapcount + 1);
 * - an anon folio is mapped by one mm only (no fork), so its refcount is
 *   the number of PTEs mapping it plus transient batch/isolation refs
 *   (with mthp-lru-cache on a small mTHP can carry a batch's reference
 *   for as long as it waits in a per-CPU LRU cache);
 * - a shmem folio's refcount is nr_pages (the page cache's) plus one per
 *   mapping PTE plus transient refs.
 */
#ifndef LRULAB_MM_H
#define LRULAB_MM_H

#include <lrulab/mmzone.h>
#include <lrulab/gfp.h>
#include <lrulab/rcupdate.h>
#include <lrulab/swap.h>
#include <lrulab/mglru_walk.h>
#include <lrulab/trace.h>
#include <lrulab/tlbflush.h>

struct mem_cgroup;
struct address_space;

typedef unsigned long pte_t;
#define _PAGE_PRESENT	0x001UL
#define _PAGE_RW	0x002UL
#define _PAGE_ACCESSED	0x020UL
#define _PAGE_DIRTY	0x040UL
/*
 * Bits 8-11, which the model's MMU ignores, carry the order of the folio
 * the page belongs to.  Folios are naturally aligned, so the head is the
 * pfn rounded down to that order: pte_folio() never has to read a tail
 * page's entry (the kernel follows page->compound_head).
 */
#define _PAGE_ORDER_SHIFT 8
#define _PAGE_ORDER_MASK (0xfUL << _PAGE_ORDER_SHIFT)
#define PTE_PFN_SHIFT	PAGE_SHIFT

static inline bool pte_present(pte_t pte) { return pte & _PAGE_PRESENT; }
static inline bool pte_young(pte_t pte) { return pte & _PAGE_ACCESSED; }
static inline bool pte_dirty(pte_t pte) { return pte & _PAGE_DIRTY; }
static inline bool pte_write(pte_t pte) { return pte & _PAGE_RW; }
static inline unsigned long pte_pfn(pte_t pte) { return pte >> PTE_PFN_SHIFT; }
static inline bool pte_none(pte_t pte) { return pte == 0; }
static inline unsigned int pte_folio_order(pte_t pte)
{
	return (pte & _PAGE_ORDER_MASK) >> _PAGE_ORDER_SHIFT;
}
/* The page a present PTE maps, and the folio that page belongs to. */
static inline struct folio *pte_page(pte_t pte)
{
	return pfn_folio(pte_pfn(pte));
}
static inline struct folio *pte_folio(pte_t pte)
{
	unsigned long mask = (1UL << pte_folio_order(pte)) - 1;

	return pfn_folio(pte_pfn(pte) & ~mask);
}
static inline pte_t mk_pte(unsigned long pfn, unsigned int order, pte_t prot)
{
	return (pfn << PTE_PFN_SHIFT) | ((pte_t)order << _PAGE_ORDER_SHIFT) | prot;
}

/*
 * PTEs change only by atomic operations: under the PTE lock when a
 * mapping is set or torn down, and without it when an access sets the
 * accessed/dirty bits (the hardware's job) or a walker clears young.
 */
static inline pte_t ptep_get(pte_t *ptep)
{
	return __atomic_load_n(ptep, __ATOMIC_RELAXED);
}
static inline bool ptep_test_and_clear_young(pte_t *ptep)
{
	return __atomic_fetch_and(ptep, ~_PAGE_ACCESSED, __ATOMIC_RELAXED) &
	       _PAGE_ACCESSED;
}

#define VM_READ		0x1UL
#define VM_WRITE	0x2UL
#define VM_SHARED	0x8UL
#define VM_LOCKED	0x2000UL

/* One PTE table maps PMD_SIZE, as on x86-64 with 4 KiB pages. */
#define PTRS_PER_PTE	512UL
#define PMD_SHIFT	(PAGE_SHIFT + 9)
#define PMD_SIZE	(1UL << PMD_SHIFT)
#define PMD_MASK	(~(PMD_SIZE - 1))

enum mm_counter { MM_FILEPAGES, MM_ANONPAGES, MM_SHMEMPAGES, NR_MM_COUNTERS };

/*
 * The split PTE lock of one page table (the kernel keeps it in the
 * table's struct ptdesc, one per 64-byte entry): threads faulting in
 * different 2 MiB ranges of one mm never share a lock.
 */
struct pte_table {
	spinlock_t ptl;
	/*
	 * The accessed bit of the PMD entry that points to this table: set
	 * by an access that sets a PTE's (the MMU sets it on every level of
	 * the walk), cleared by the MGLRU walker with LRU_GEN_NONLEAF_YOUNG.
	 */
	unsigned long young;
	/*
	 * Whether the PMD entry points to a table at all: set by the first
	 * fault in its range (the kernel's pte_alloc() in
	 * __handle_mm_fault()), cleared when MADV_DONTNEED empties the
	 * whole table (PT_RECLAIM) and at munmap.  The model's PTEs are a
	 * flat array allocated up front; the walker skips ranges without
	 * a table.
	 */
	unsigned long present;
	/*
	 * The page the kernel would keep the table in: taken from the page
	 * allocator and cleared when the table comes, freed when it goes,
	 * so that a fault and a zap do the allocator's work the kernel's do.
	 */
	struct folio *page;
} ____cacheline_aligned;

struct vm_area_struct {
	unsigned long vm_start;		/* bytes, PMD_SIZE aligned */
	unsigned long vm_end;
	unsigned long vm_flags;
	unsigned long vm_pgoff;		/* file offset in pages; vm_start >> PAGE_SHIFT for anon */
	struct mm_struct *vm_mm;
	struct address_space *vm_file;	/* shmem mapping or NULL (anon) */
	unsigned int anon_order;	/* folio order for anon faults (mTHP) */
	pte_t *ptes;			/* one per page of the VMA */
	struct pte_table *tables;	/* one per PMD_SIZE of the VMA */
	struct list_head vm_list;	/* mm->mmap, under mm->page_table_lock */
	struct list_head shared;	/* mapping->i_mmap, under its i_mmap_lock */
	/*
	 * The per-VMA read lock's count (the kernel's vm_refcnt; a consumer
	 * keys it by its address): a fault and MADV_DONTNEED take it and
	 * drop it, as lock_vma_under_rcu() and vma_end_read() do.  Nothing in
	 * the model write-locks a VMA (its user serialises munmap), so it is
	 * a count.  On a line of its own, as the kernel keeps it: the fields
	 * every fault reads (vm_start, ptes, tables) must not move with the
	 * other threads' RMWs.  Padded, not aligned: a VMA list's head is no
	 * VMA, and list walks take it for one.
	 */
	char vm_refcnt_before[L1_CACHE_BYTES];
	atomic_t vm_refcnt;
	char vm_refcnt_after[L1_CACHE_BYTES - sizeof(atomic_t)];
	/* the mmaps whose ranges it holds: more than one when they merged */
	unsigned int vm_ranges;
};

/* wherever the VMA lands, vm_refcnt's line holds no other field */
_Static_assert(offsetof(struct vm_area_struct, vm_refcnt) -
		       offsetof(struct vm_area_struct, vm_refcnt_before) >= L1_CACHE_BYTES &&
	       offsetof(struct vm_area_struct, vm_ranges) -
		       offsetof(struct vm_area_struct, vm_refcnt) >= L1_CACHE_BYTES,
	       "vm_refcnt shares a line with another field");

/* A CPU's part of the mm counters, on a line of its own. */
struct mm_rss_pcp {
	long count[NR_MM_COUNTERS];
} ____cacheline_aligned;

struct mm_struct {
	/*
	 * mmput() frees the mm after an RCU grace period: an rmap walk
	 * (split, reclaim) reaches it from a folio's ->mapping inside
	 * rcu_read_lock() and may use it there while the folio is mapped.
	 */
	struct rcu_head rcu;
	struct list_head mmap;		/* VMAs */
	/*
	 * The VMA list and mmap_base (the model has no mmap_lock; a VMA's
	 * faults, zaps and munmap are serialised by its user).  PTEs are
	 * under the split per-table locks, see pte_lockptr().
	 */
	spinlock_t page_table_lock;
	struct mem_cgroup *memcg;	/* charged for faults (css ref held) */
	unsigned long mmap_base;	/* next free address */
	/*
	 * The counters' shared count (the kernel's percpu_counter's
	 * fbc->count, what a fold writes), and each CPU's part: the threads
	 * of one process share the mm, and a count they all wrote on every
	 * fault would be a line the kernel does not have.
	 */
	atomic_long_t rss_stat[NR_MM_COUNTERS];
	struct mm_rss_pcp *rss_pcp;
	/* on its memcg's mm list for the MGLRU page-table walkers */
	struct lru_gen_mm lru_gen;
	/*
	 * The kernel's mm_struct lines that every thread of a process
	 * touches on the fault and zap paths, in the kernel's order, each
	 * group a line apart from the next (the mm is allocated
	 * line-aligned, so a consumer can name a line by its place in the
	 * mm; no alignment attribute: an mm list's head is no mm, and list
	 * walks take it for one):
	 * pgtables_bytes precedes mmap_lock, whose word the model never
	 * takes but every fault prefetches for write (exc_page_fault);
	 * the PMD table's split lock, which installs and clears PTE
	 * tables (the model's VMAs all lie in the first GiB of the mm,
	 * one PMD table); tlb_flush_pending on a line of its own; the
	 * flush generation in mm->context on another.
	 */
	char __pad0[L1_CACHE_BYTES];
	atomic_long_t pgtables_bytes;
	long mmap_lock;
	spinlock_t pmd_lock;
	char __pad1[L1_CACHE_BYTES];
	atomic_t tlb_flush_pending;
	char __pad2[L1_CACHE_BYTES];
	atomic_long_t tlb_gen;
	/*
	 * The CPUs that ran the mm (mm_cpumask): a CPU's first access sets
	 * its bit, as switch_mm does; the bits are never cleared, as x86
	 * clears them only lazily.  A line each CPU writes once, then reads.
	 */
	char __pad3[L1_CACHE_BYTES];
	struct cpumask cpu_bitmap;
};

static inline struct cpumask *mm_cpumask(struct mm_struct *mm)
{
	return &mm->cpu_bitmap;
}

static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}
static inline bool vma_is_anonymous(const struct vm_area_struct *vma)
{
	return !vma->vm_file;
}
/* @addr must lie inside @vma. */
static inline pte_t *vma_pte(struct vm_area_struct *vma, unsigned long addr)
{
	return &vma->ptes[(addr - vma->vm_start) >> PAGE_SHIFT];
}
static inline spinlock_t *pte_lockptr(struct vm_area_struct *vma, unsigned long addr)
{
	return &vma->tables[(addr - vma->vm_start) >> PMD_SHIFT].ptl;
}
#define pte_lock(vma, addr) spin_lock_at(pte_lockptr(vma, addr), LOCK_SITE("ptl"))

/* The sum of every CPU's part (the kernel reads fbc->count alone). */
unsigned long get_mm_counter(struct mm_struct *mm, int member);
/*
 * The kernel's counters are per-CPU (percpu_counter) and fold into the
 * mm's shared count past a batch that grows with the CPUs online; the
 * model keeps each CPU's part apart and never folds, and the event lets
 * a consumer fold at another machine's batch.
 */
void add_mm_counter(struct mm_struct *mm, int member, long value);

/* Pages held as PTE tables now, in every mm. */
unsigned long pte_table_pages(void);

/* Returns NULL with errno set. Takes a reference on @memcg (NULL = root). */
struct mm_struct *mm_alloc(struct mem_cgroup *memcg);
/* Unmaps every VMA (freeing what it maps) and frees the mm after an RCU
 * grace period. */
void mmput(struct mm_struct *mm);

/*
 * mmap(MAP_PRIVATE | MAP_ANONYMOUS) of @len bytes (a positive multiple
 * of the folio size) whose faults allocate folios of @order (0 or an
 * mTHP order 2..9): the address of the new range, 0 with errno set
 * (EINVAL, ENOMEM).  A range that starts where the mm's last anonymous
 * VMA ends, with the same flags and order, extends that VMA instead of
 * making one (the kernel's vma_merge_new_range(): is_mergeable_vma() and
 * is_mergeable_anon_vma() hold for a new anonymous range beside one,
 * faulted or not, of a process that did not fork).  The model places
 * VMAs on PMD boundaries, so only a neighbour whose length is a multiple
 * of PMD_SIZE ends where the next range starts.  The model has no
 * mmap_lock: the caller keeps accesses to the VMA merged into away while
 * it grows (the bench maps before its threads' start barrier).
 */
unsigned long do_mmap_anon(struct mm_struct *mm, unsigned long len, unsigned int order);
/*
 * mmap(NULL, @len, PROT_NONE, ...): a VMA no access may touch, whose
 * flags no anonymous range shares, so the ranges mapped on either side
 * of it stay VMAs of their own.  Its address, or 0 with errno set.
 */
unsigned long do_mmap_guard(struct mm_struct *mm, unsigned long len);
/* The VMA that holds @addr, or NULL. */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
/* do_mmap_anon()'s VMA: a new one, or the one the range merged into. */
struct vm_area_struct *mmap_anon(struct mm_struct *mm, unsigned long len,
				 unsigned int order);
/*
 * Whether a range mapped next in @vma's mm with @vma's flags and order,
 * by another thread of the process, would merge into @vma: so whether
 * the threads that each map such a range fault on one VMA.
 */
bool vma_merges_next(struct vm_area_struct *vma);
/* The VMAs of @mm (/proc/PID/maps' lines). */
unsigned long mm_vma_count(struct mm_struct *mm);
/* Shared mapping of a shmem file from page @pgoff.  Pages beyond the end
 * of the file may be mapped; touching them is VM_FAULT_SIGBUS. */
struct vm_area_struct *mmap_shmem(struct mm_struct *mm, struct address_space *mapping,
				  unsigned long pgoff, unsigned long len);
/* Zap the whole VMA, unlink it and free it. */
void munmap_vma(struct vm_area_struct *vma);

#define FAULT_FLAG_WRITE 0x01
typedef unsigned int vm_fault_t;
#define VM_FAULT_OOM	0x0001
#define VM_FAULT_SIGBUS	0x0002
#define VM_FAULT_SIGSEGV 0x0004

/*
 * Fault the page at @addr. 0 or a VM_FAULT_* code.  On 0 the PTE at
 * @addr is present (and writable, dirty on a write fault).  Counts one
 * PGFAULT event, globally and for the mm's memcg.  Must run on a model
 * CPU.
 *
 * A write to a present read-only anon PTE (a read fault maps anon memory
 * read-only) is the kernel's do_wp_page: the folio is reused (PGREUSE)
 * when the mappings explain every reference to it, after draining this
 * CPU's LRU caches when the folio may sit in one; otherwise the page is
 * copied to a new order-0 folio (COW) and the old page unmapped, which
 * leaves a large folio partially mapped.
 */
vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long addr,
			   unsigned int flags);
/*
 * Calibration: extra nanoseconds of busy work per fault that allocates,
 * spent next to the zeroing, outside every lock, so that the model's
 * single-thread fault rate can be matched to a real kernel's before
 * multi-thread curves are compared.  0 (the default) adds nothing.  Set
 * it while no fault runs.
 */
extern unsigned long fault_extra_ns;
void fault_extra_work(void);

/* A user access: fault if needed, then set accessed (and dirty on write)
 * in the PTE and touch the page's real memory.  0 or VM_FAULT_*. */
vm_fault_t mm_access(struct vm_area_struct *vma, unsigned long addr, bool write);

/*
 * Per-order anonymous mTHP fault counters, the kernel's
 * /sys/kernel/mm/transparent_hugepage/hugepages-<size>kB/stats/ files of
 * the same names.  Order 0 is never counted.  Per CPU, summed on read;
 * they survive lrulab_exit() unless mthp_stats_reset() is called.
 */
enum mthp_stat_item {
	MTHP_STAT_ANON_FAULT_ALLOC,		/* large folio mapped by a fault */
	MTHP_STAT_ANON_FAULT_FALLBACK,		/* allocation or charge failed */
	MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE,	/* the charge failed */
	MTHP_STAT_SPLIT,			/* split to order 0 */
	MTHP_STAT_SPLIT_FAILED,			/* split refused (-EAGAIN) */
	MTHP_STAT_SPLIT_DEFERRED,		/* queued for deferred split */
	MTHP_STAT_SWPOUT_FALLBACK,		/* split by reclaim to be swapped page by page */
	MTHP_STAT_NR_ANON_PARTIALLY_MAPPED,	/* a gauge: queued as partially mapped */
	__MTHP_STAT_COUNT
};
const char *mthp_stat_name(enum mthp_stat_item item);
unsigned long mthp_stat_read(unsigned int order, enum mthp_stat_item item);
void mthp_stats_reset(void);
/* Add @delta to this CPU's count (any thread; order 0 is ignored). */
void mod_mthp_stat(unsigned int order, enum mthp_stat_item item, long delta);
static inline void count_mthp_stat(unsigned int order, enum mthp_stat_item item)
{
	mod_mthp_stat(order, item, 1);
}

/*
 * The references the mappings and caches of @folio account for (the
 * kernel's folio_expected_ref_count): one per PTE, plus nr_pages for the
 * page cache or swap cache.  A caller's own pins come on top.
 */
static inline int folio_expected_ref_count(const struct folio *folio)
{
	int ref = folio_mapcount(folio);

	if (folio_test_anon(folio))
		return ref + (folio_test_swapcache(folio) ? (int)folio_nr_pages(folio) : 0);
	if (READ_ONCE(folio->mapping))
		ref += (int)folio_nr_pages(folio);
	return ref;
}

/* Batched freeing of unmapped folios, as the kernel's mmu_gather. */
#define MMU_GATHER_BATCH 512
/* PTE tables one gather frees: a 16 MiB MADV_DONTNEED empties 8 */
#define MMU_GATHER_TABLES 16
struct mmu_gather {
	struct mm_struct *mm;
	unsigned int nr;
	struct folio *folios[MMU_GATHER_BATCH];
	unsigned int refs[MMU_GATHER_BATCH];	/* PTEs zapped per entry */
	/* MADV_DONTNEED: free a PTE table the zap empties (PT_RECLAIM) */
	bool reclaim_pt;
	/*
	 * What the kernel's gather would hold: pages unmapped since its
	 * last TLB flush, the slots their folios take (two for a large
	 * one) and the tables freed, which go after the flush.
	 */
	unsigned long unmapped, slots;
	unsigned int nr_tables;
	struct folio *tables[MMU_GATHER_TABLES];
};
void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
/* Free what was gathered (tlb_flush_mmu) and end the gather. */
void tlb_finish_mmu(struct mmu_gather *tlb);
void tlb_flush_mmu(struct mmu_gather *tlb);
/* Clear the PTEs of [start, end) of @vma into @tlb. */
void unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
		      unsigned long start, unsigned long end);
/* Clear the PTEs of [start, end) and free what they mapped. */
void zap_page_range_single(struct vm_area_struct *vma, unsigned long start,
			   unsigned long size);
/*
 * madvise(MADV_DONTNEED) of [start, start + size) within @vma: the zap
 * under the VMA's read lock, freeing the PTE tables it empties.
 */
void madvise_dontneed_single_vma(struct vm_area_struct *vma, unsigned long start,
				 unsigned long size);
/* Zap the PTEs of every VMA that maps file pages [start, start + nr) of
 * @mapping (the first step of the kernel's hole punch and truncate). */
void unmap_mapping_pages(struct address_space *mapping, unsigned long start,
			 unsigned long nr, bool even_cows);

/* ---- rmap (mm/rmap.c), the model's simplified versions ---- */

/*
 * A new anon folio mapped by @nr PTEs from @address (all its pages):
 * ->mapping = mm | PAGE_MAPPING_ANON, ->index = address >> PAGE_SHIFT of
 * its first page (the kernel's linear index of an anon VMA), mapcount nr,
 * NR_ANON_MAPPED += nr.  Caller holds the PTE lock.
 */
void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address);
/* @nr_pages PTEs now map pages of @folio from @page on: mapcount += nr;
 * NR_FILE_MAPPED += 1 when a small folio becomes mapped. */
void folio_add_file_rmap_ptes(struct folio *folio, struct folio *page,
			      int nr_pages, struct vm_area_struct *vma);
/* @nr_pages PTEs no longer map @folio: mapcount -= nr; NR_ANON_MAPPED
 * -= nr for anon, NR_FILE_MAPPED -= 1 when a small file folio becomes
 * unmapped.  An anon large folio left partially mapped is queued for
 * deferred split.  Caller holds the PTE lock. */
void folio_remove_rmap_ptes(struct folio *folio, struct folio *page,
			    int nr_pages, struct vm_area_struct *vma);

#endif /* LRULAB_MM_H */
