/* SPDX-License-Identifier: MIT */
/*
 * Classic two-list reclaim (mm/vmscan.c), the accessed-bit rmap walk
 * (mm/rmap_walk.c) and workingset refault detection (mm/workingset.c).
 */
#ifndef LRULAB_VMSCAN_H
#define LRULAB_VMSCAN_H

#include <lrulab/memcontrol.h>
#include <lrulab/swap.h>

#define DEF_PRIORITY 12
#define MIN_SWAPPINESS 0
#define MAX_SWAPPINESS 200
#define SWAPPINESS_ANON_ONLY (MAX_SWAPPINESS + 1)
#define MAX_RECLAIM_RETRIES 16
#ifndef VM_EXEC
#define VM_EXEC 0x4UL	/* not in <lrulab/mm.h> yet: no VMA is executable */
#endif
#define WORKINGSET_ANON 0
#define WORKINGSET_FILE 1

extern int vm_swappiness;

struct scan_control {
	unsigned long nr_to_reclaim;
	struct mem_cgroup *target_mem_cgroup;
	unsigned long anon_cost;
	unsigned long file_cost;
	int *proactive_swappiness;	/* NULL: the memcg's swappiness */
	/* bit 1 << is_file_lru(): that type's active list may shrink */
	unsigned int may_deactivate:2;
	unsigned int force_deactivate:1;
	unsigned int skipped_deactivate:1;
	unsigned int may_writepage:1;
	unsigned int may_unmap:1;
	unsigned int may_swap:1;
	unsigned int proactive:1;
	unsigned int memcg_full_walk:1;
	unsigned int cache_trim_mode:1;
	unsigned int file_is_tiny:1;
	unsigned int no_cache_trim_mode:1;
	unsigned int is_kswapd:1;
	s8 order;
	s8 priority;
	s8 reclaim_idx;
	struct {
		unsigned int dirty;
		unsigned int unqueued_dirty;
		unsigned int congested;
		unsigned int writeback;
		unsigned int immediate;
		unsigned int file_taken;
		unsigned int taken;
	} nr;
	unsigned long nr_scanned;
	unsigned long nr_reclaimed;
};

enum scan_balance {
	SCAN_EQUAL,
	SCAN_FRACT,
	SCAN_ANON,
	SCAN_FILE,
};

struct reclaim_stat {
	unsigned int nr_dirty;
	unsigned int nr_unqueued_dirty;
	unsigned int nr_congested;
	unsigned int nr_writeback;
	unsigned int nr_immediate;
	unsigned int nr_pageout;
	unsigned int nr_activate[ANON_AND_FILE];
	unsigned int nr_ref_keep;
	unsigned int nr_unmap_fail;
};

/*
 * The pieces of reclaim, exported for the tests.  get_scan_count() also
 * reports the mode it chose in *@mode (may be NULL).
 */
void get_scan_count(struct lruvec *lruvec, struct scan_control *sc,
		    unsigned long *nr, enum scan_balance *mode);
bool inactive_is_low(struct lruvec *lruvec, enum lru_list inactive_lru);
void prepare_scan_control(struct pglist_data *pgdat, struct scan_control *sc);
void shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc);
void shrink_node(struct pglist_data *pgdat, struct scan_control *sc);
unsigned long isolate_lru_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
				 struct list_head *dst, unsigned long *nr_scanned,
				 struct scan_control *sc, enum lru_list lru);
unsigned int move_folios_to_lru(struct lruvec *lruvec, struct list_head *list);
unsigned long shrink_folio_list(struct list_head *folio_list, struct pglist_data *pgdat,
				struct scan_control *sc, struct reclaim_stat *stat,
				bool ignore_references);

/*
 * Scan-balance cost, producer side (today's kernel, vmstat-scan-cost
 * off): lru_note_cost_unlock_irq() is entered with @lruvec's lru_lock
 * held and returns with it dropped, having walked every ancestor.
 */
void lru_note_cost_unlock_irq(struct lruvec *lruvec, bool file,
			      unsigned int nr_io, unsigned int nr_rotated);
void lru_note_cost_refault(struct folio *folio);
/*
 * The lock statistics of the s1 mail's cost sites summed: lru_lock taken
 * to record a cost (lru_note_cost_unlock_irq, lru_note_cost_refault) or
 * to snapshot it (prepare_scan_control).
 */
void lru_cost_sites_read(struct lock_stat *out);
/* The lrusize/4 decay rule on one lruvec's pair of costs. */
void lru_cost_decay(unsigned long *anon_cost, unsigned long *file_cost,
		    unsigned long lrusize);
/*
 * vmstat-scan-cost on: fold the counter deltas since the last call into
 * the lruvec's accumulators, under cost_lock, and return them.
 */
void lruvec_cost_sample(struct lruvec *lruvec, unsigned long *anon_cost,
			unsigned long *file_cost);

/*
 * Reclaim throttling (mm/reclaim_throttle.c).  Only the wait for other
 * reclaimers to put their isolated pages back is modelled.
 * reclaim_throttle_stats(): the waits on node @nid for @reason, and the
 * time spent in them, since reclaim_throttle_reset() (lrulab_init()).
 */
enum vmscan_throttle_state {
	VMSCAN_THROTTLE_ISOLATED,
	NR_VMSCAN_THROTTLE,
};
void reclaim_throttle_stats(int nid, enum vmscan_throttle_state reason,
			    unsigned long *nr, u64 *ns);
void reclaim_throttle_reset(void);

/* ---- entry points ---- */
#define MEMCG_RECLAIM_MAY_SWAP (1 << 1)
#define MEMCG_RECLAIM_PROACTIVE (1 << 2)
unsigned long try_to_free_mem_cgroup_pages(struct mem_cgroup *memcg,
					   unsigned long nr_pages,
					   unsigned int reclaim_options,
					   int *swappiness);
/* Global direct reclaim of the calling CPU's node (try_to_free_pages). */
unsigned long try_to_free_pages(unsigned long nr_pages);

/*
 * Room left under the tightest memory.max from @memcg up to the root
 * (the kernel's static mem_cgroup_margin() in mm/memcontrol.c).
 */
unsigned long mem_cgroup_margin(struct mem_cgroup *memcg);

/* memory.max write: reclaim usage - max, up to MAX_RECLAIM_RETRIES tries. */
bool mem_cgroup_reclaim_to_max(struct mem_cgroup *memcg);

/*
 * kswapd.  kswapd_run() starts node @nid's kswapd on model CPU @cpu,
 * which must be otherwise unused: 0, -EINVAL, -EBUSY, -EAGAIN.
 * wakeup_kswapd() is for the allocator, which calls it whenever it had to
 * go to the buddy lists: it wakes kswapd when the node's free pages are
 * below the low watermark; kswapd then reclaims until
 * they are above the high one.  kswapd_wait_idle() waits until it has
 * finished what it was woken for.
 */
int kswapd_run(int nid, int cpu);
void kswapd_stop(int nid);
void wakeup_kswapd(struct pglist_data *pgdat);
void kswapd_wait_idle(int nid);
/*
 * Wakeups that found kswapd idle and set it going since kswapd_run();
 * one already pending absorbs later ones, as the kernel's wait queue does.
 */
unsigned long kswapd_nr_wakeups(int nid);

/* ---- rmap walk (mm/rmap_walk.c) ---- */
/*
 * Test and clear the accessed bits of every PTE mapping @folio; the
 * number of young PTEs.  *@vm_flags collects VM_LOCKED of the VMAs.
 */
int folio_referenced(struct folio *folio, int is_locked, struct mem_cgroup *memcg,
		     unsigned long *vm_flags);
/*
 * Clear every PTE mapping @folio; an anon folio in the swap cache leaves
 * a swap PTE.  True when the folio is no longer mapped.
 */
bool try_to_unmap(struct folio *folio);
/*
 * Unmapping a page of an mm that another CPU may hold in its TLB defers
 * the flush to a batch of the reclaimer's (x86's
 * arch_tlbbatch_should_defer); these flush it, with an IPI to each CPU
 * it names: the whole batch, or only a batch that holds a dirty PTE's
 * page (before that page's write starts).
 */
void try_to_unmap_flush(void);
void try_to_unmap_flush_dirty(void);

/* ---- workingset (mm/workingset.c) ---- */
void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr_pages);
void *workingset_eviction(struct folio *folio, struct mem_cgroup *target_memcg);
bool workingset_test_recent(void *shadow, bool file, bool *workingset);
void workingset_refault(struct folio *folio, void *shadow);
/* Shadow format, exported for the tests. */
void *pack_shadow(int memcgid, int nid, unsigned long eviction, bool workingset);
void unpack_shadow(void *shadow, int *memcgidp, int *nidp, unsigned long *evictionp,
		   bool *workingsetp);
/* The decision itself: refault distance against the workingset size. */
bool workingset_distance_recent(unsigned long refault, unsigned long eviction,
				unsigned long workingset_size);
extern unsigned int bucket_order;
#define EVICTION_SHIFT (1 + 1 + NODES_SHIFT + 16)	/* value bit, ws bit, node, memcg */
#define EVICTION_BITS ((int)(sizeof(long) * 8) - EVICTION_SHIFT)
#define EVICTION_MASK (~0UL >> EVICTION_SHIFT)

#endif /* LRULAB_VMSCAN_H */
