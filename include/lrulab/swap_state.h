/* SPDX-License-Identifier: MIT */
/*
 * Swap (mm/swapfile.c, mm/swap_state.c, mm/page_io.c, as in the kernel): one
 * zram-like swap device of page slots, the swap cache, shadow entries in
 * free slots, swap-out from reclaim and swap-in on fault.
 *
 * A slot's life: allocated by folio_alloc_swap() together with the
 * folio's entry in the swap cache; each PTE or shmem page-cache entry
 * that names it holds one count in swap_map; the data is written by
 * swap_writeout() (compressed, as zram does, so it costs real CPU);
 * reclaim then removes the folio from the swap cache and a shadow entry
 * takes its place.  The slot is free again once swap_map is 0 and the
 * swap cache holds no folio; its shadow goes with it.
 */
#ifndef LRULAB_SWAP_STATE_H
#define LRULAB_SWAP_STATE_H

#include <lrulab/mm.h>

typedef struct {
	unsigned long val;	/* slot offset; 0 is never a valid entry */
} swp_entry_t;

/*
 * A non-present PTE that names a swap slot (the kernel's swap PTE):
 * present clear, this bit set, the offset where the pfn would be.
 */
#define _PAGE_SWP_ENTRY 0x080UL

static inline bool is_swap_pte(pte_t pte)
{
	return !pte_present(pte) && (pte & _PAGE_SWP_ENTRY);
}
static inline pte_t swp_entry_to_pte(swp_entry_t entry)
{
	return (entry.val << PTE_PFN_SHIFT) | _PAGE_SWP_ENTRY;
}
static inline swp_entry_t pte_to_swp_entry(pte_t pte)
{
	return (swp_entry_t){ pte >> PTE_PFN_SHIFT };
}
/*
 * A swap slot as a page cache value entry (shmem's), and back: bit 0 tags
 * a value, as the kernel's swp_to_radix_entry() makes it one.
 */
static inline unsigned long swp_to_radix_entry(swp_entry_t entry)
{
	return (entry.val << 1) | 1UL;
}
static inline swp_entry_t radix_to_swp_entry(unsigned long value)
{
	return (swp_entry_t){ value >> 1 };
}
static inline swp_entry_t folio_swap_entry(const struct folio *folio)
{
	return (swp_entry_t){ folio->private };
}

/* How the device stores a page: zram-like compression or a plain copy. */
enum swap_store_mode {
	SWAP_STORE_ZSTD,	/* zstd level 1, same-filled pages kept as one value */
	SWAP_STORE_COPY,	/* memcpy, same-filled pages kept as one value */
};

/*
 * Set up / tear down the swap device (swapon / swapoff).  0, -EINVAL,
 * -ENOMEM or -EBUSY.  swapoff requires every slot to be free.
 */
int swapon(unsigned long nr_slots, enum swap_store_mode mode);
void swapoff(void);

/* Free slots (the kernel's nr_swap_pages) and total slots. */
long get_nr_swap_pages(void);
unsigned long total_swap_pages(void);
/* Slots in use (counted, cached or both). */
unsigned long swap_slots_used(void);
/* Folios in the swap cache. */
unsigned long swap_cache_nr(void);

/*
 * Reclaim side.  The folio is locked (PG_locked) and isolated.
 * folio_alloc_swap(): a slot for an order-0 swap-backed folio, the folio
 * added to the swap cache (nr references, PG_swapcache, NR_SWAPCACHE).
 * -ENOMEM when the device is full or absent, -EINVAL for large folios.
 */
int folio_alloc_swap(struct folio *folio);
/*
 * Write the folio's memory to its slot: PSWPOUT.  On the synchronous
 * device (the default) the write is over when it returns false, the
 * folio still locked.  On the asynchronous one it returns true having
 * only started it: the folio is under writeback (nr_writeback) and
 * unlocked, and the write ends later (folio_end_writeback, which
 * rotates a PG_reclaim folio).  A zero-filled page needs no I/O there
 * either: false, at once.
 */
bool swap_writeout(struct folio *folio);

/*
 * The asynchronous device, a disk behind a swap file: from
 * swap_io_start() on, a swap-in's read sleeps @latency_us (unless the
 * slot is zero-filled), and a write ends @latency_us after it was submitted,
 * on the submitting CPU, which takes the completions due when it next
 * enters a list shrinker (swap_complete_writes(): folio_end_writeback,
 * which rotates the folio).  0, -EBUSY or -ENOMEM.  swap_io_wait_idle()
 * ends every write in flight when it is due, on the calling CPU (even
 * quiesced), and drains that CPU's batches if it is a model CPU: for
 * quiescent points, such as a teardown.  swap_io_stop() ends the writes
 * and turns the device back to sync; swapoff() and lrulab_exit() stop
 * it too.  swap_io_quiesce(true) holds the shrinkers' and waiters'
 * completions back (blk_mq_quiesce_queue), false lets them go.
 */
int swap_io_start(unsigned int latency_us);
void swap_io_stop(void);
bool swap_io_async(void);
void swap_complete_writes(void);
/* For a writeback waiter: end the writes due on every CPU, here. */
void swap_complete_due_writes(void);
void swap_io_wait_idle(void);
void swap_io_quiesce(bool quiesce);

struct swap_io_stat {
	unsigned long async_writes;	/* writes that went to the device */
	unsigned long in_flight;	/* of those, not yet ended */
	unsigned long irqs;		/* swap_complete_writes() calls that ended some */
	unsigned long reads;		/* swap-ins that waited for the device's read */
};
/* Counts since the last swap_io_start(). */
void swap_io_stats(struct swap_io_stat *st);

/*
 * Remove a folio whose refcount reclaim froze from the swap cache,
 * leaving @shadow (may be NULL) in the slot.
 */
void __delete_from_swap_cache(struct folio *folio, void *shadow);
/* Take a folio that is not going away out of the swap cache, dropping
 * the cache's references (the kernel's folio_free_swap). */
void delete_from_swap_cache(struct folio *folio);

/* One more / one less PTE or page-cache entry naming @entry. */
void swap_duplicate(swp_entry_t entry);
void swap_free(swp_entry_t entry);
/* Swap count of @entry (references from PTEs and page-cache entries). */
int __swap_count(swp_entry_t entry);

/* Referenced folio in the swap cache at @entry, or NULL. */
struct folio *swap_cache_get_folio(swp_entry_t entry);
/*
 * Bring @entry into memory: the swap-cache folio, or a new folio charged
 * to @memcg, filled from the slot (decompressing), added to the swap
 * cache and to the LRU after workingset_refault() has seen the slot's
 * shadow.  Returns a referenced folio, or NULL with *@err = -ENOMEM
 * (allocation or charge) or -ENOENT (the entry is no longer in use).
 */
struct folio *swapin_folio(swp_entry_t entry, struct mem_cgroup *memcg, int *err);

/*
 * The anonymous swap fault (the kernel's do_swap_page): the PTE at @addr
 * holds a swap entry; bring the page in, map it, free the slot.  0 or
 * VM_FAULT_OOM.  mm/memory.c calls it from handle_mm_fault when the PTE
 * is a swap PTE.
 */
vm_fault_t do_swap_page(struct vm_area_struct *vma, unsigned long addr, bool write);
/*
 * Zap of a swap PTE (the kernel's free_swap_and_cache): drop the PTE's
 * count on the slot.  Called by zap_pte_range with the PTE lock held,
 * after clearing the PTE.
 */
void free_swap_and_cache(swp_entry_t entry);

/*
 * An unmapped folio the swap cache holds for a slot nothing names (a
 * swap-in found it there while its write was in flight, which kept it
 * cached): let it go, if its lock is free.  The zap calls it with the
 * last mapping gone (the kernel's free_pages_and_swap_cache).
 */
void free_swap_cache(struct folio *folio);

/* The swap cache's folio at @entry, no reference taken: quiescent only
 * (the invariant checker). */
struct folio *__swap_cache_folio(swp_entry_t entry);

/* The slot's shadow entry, or NULL. */
void *swap_shadow(swp_entry_t entry);

/*
 * Slots come in clusters of this many (the kernel's SWAPFILE_CLUSTER):
 * slot offsets [n * SWAPFILE_CLUSTER, (n + 1) * SWAPFILE_CLUSTER) are
 * cluster n, the last one shorter when the device size asks for it.
 * Each model CPU allocates from a cluster of its own.
 */
#define SWAPFILE_CLUSTER 512

/* Where the clusters are: on which list, or held by a CPU. */
struct swap_cluster_stat {
	unsigned long nr_clusters;
	unsigned long nr_free;		/* every slot free */
	unsigned long nr_nonfull;
	unsigned long nr_full;
	unsigned long nr_percpu;	/* a CPU's current cluster */
};

/*
 * At a quiescent point (tests, the invariant checker): fill @st (may be
 * NULL) and check the cluster bookkeeping against the slots: counts,
 * list membership, the CPUs' clusters, the in-use and cached totals.
 * Returns the number of violations, each printed to @out (may be NULL).
 */
int swap_cluster_check(struct swap_cluster_stat *st, FILE *out);

#endif /* LRULAB_SWAP_STATE_H */
