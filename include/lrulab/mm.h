/* SPDX-License-Identifier: MIT */
/*
 * Simulated address spaces (mm/memory.c): an mm_struct with VMAs whose
 * page tables are flat PTE arrays (pfn + present/accessed/dirty/write
 * bits), page faults that allocate, zero, charge, map and add to the LRU,
 * and zap with mmu_gather-style batched freeing.
 */
#ifndef LRULAB_MM_H
#define LRULAB_MM_H

#include <lrulab/mmzone.h>
#include <lrulab/swap.h>

struct mem_cgroup;
struct address_space;

typedef unsigned long pte_t;
#define _PAGE_PRESENT	0x001UL
#define _PAGE_RW	0x002UL
#define _PAGE_ACCESSED	0x020UL
#define _PAGE_DIRTY	0x040UL
#define PTE_PFN_SHIFT	PAGE_SHIFT

static inline bool pte_present(pte_t pte) { return pte & _PAGE_PRESENT; }
static inline bool pte_young(pte_t pte) { return pte & _PAGE_ACCESSED; }
static inline bool pte_dirty(pte_t pte) { return pte & _PAGE_DIRTY; }
static inline unsigned long pte_pfn(pte_t pte) { return pte >> PTE_PFN_SHIFT; }
static inline bool pte_none(pte_t pte) { return pte == 0; }

#define VM_READ		0x1UL
#define VM_WRITE	0x2UL
#define VM_SHARED	0x8UL
#define VM_LOCKED	0x2000UL

enum mm_counter { MM_FILEPAGES, MM_ANONPAGES, MM_SHMEMPAGES, NR_MM_COUNTERS };

struct vm_area_struct {
	unsigned long vm_start;		/* bytes, page aligned */
	unsigned long vm_end;
	unsigned long vm_flags;
	unsigned long vm_pgoff;		/* file offset in pages */
	struct mm_struct *vm_mm;
	struct address_space *vm_file;	/* shmem mapping or NULL (anon) */
	unsigned int anon_order;	/* folio order for anon faults (mTHP) */
	pte_t *ptes;			/* one per page of the VMA */
	struct list_head vm_list;
};

struct mm_struct {
	struct list_head mmap;		/* VMAs */
	spinlock_t page_table_lock;	/* PTE updates */
	struct mem_cgroup *memcg;	/* charged for faults (css ref held) */
	unsigned long mmap_base;	/* next free address */
	atomic_long_t rss_stat[NR_MM_COUNTERS];
};

/* Returns NULL with errno set. Takes a reference on @memcg (NULL = root). */
struct mm_struct *mm_alloc(struct mem_cgroup *memcg);
/* Unmaps every VMA (freeing what it maps) and frees the mm. */
void mmput(struct mm_struct *mm);

/* New anonymous VMA of @len bytes (page multiple) whose faults allocate
 * folios of @order (0 or an mTHP order); NULL with errno set. */
struct vm_area_struct *mmap_anon(struct mm_struct *mm, unsigned long len,
				 unsigned int order);
/* Shared mapping of a shmem file from page @pgoff. */
struct vm_area_struct *mmap_shmem(struct mm_struct *mm, struct address_space *mapping,
				  unsigned long pgoff, unsigned long len);
void munmap_vma(struct vm_area_struct *vma);

#define FAULT_FLAG_WRITE 0x01
typedef unsigned int vm_fault_t;
#define VM_FAULT_OOM	0x0001
#define VM_FAULT_SIGBUS	0x0002
#define VM_FAULT_SIGSEGV 0x0004

/* Fault the page at @addr. 0 or a VM_FAULT_* code. */
vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long addr,
			   unsigned int flags);
/* A user access: fault if needed, then set accessed (and dirty on write)
 * in the PTE and touch the page's real memory.  0 or VM_FAULT_*. */
vm_fault_t mm_access(struct vm_area_struct *vma, unsigned long addr, bool write);

/* Batched freeing of unmapped folios, as the kernel's mmu_gather. */
#define MMU_GATHER_BATCH 512
struct mmu_gather {
	struct mm_struct *mm;
	unsigned int nr;
	struct folio *folios[MMU_GATHER_BATCH];
	unsigned int refs[MMU_GATHER_BATCH];	/* PTEs zapped per entry */
};
void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_finish_mmu(struct mmu_gather *tlb);
/* Clear the PTEs of [start, end) and free what they mapped (MADV_DONTNEED). */
void zap_page_range_single(struct vm_area_struct *vma, unsigned long start,
			   unsigned long size);

#endif /* LRULAB_MM_H */
