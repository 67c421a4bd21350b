/* SPDX-License-Identifier: MIT */
/*
 * Nodes, zones, the lruvec, and the vmstat item enums (mmzone.h and
 * vm_event_item.h in the kernel).  One zone per node: ZONE_NORMAL.
 */
#ifndef LRULAB_MMZONE_H
#define LRULAB_MMZONE_H

#include <lrulab/types.h>
#include <lrulab/spinlock.h>
#include <lrulab/mm_types.h>

#define MAX_NUMNODES 64
#define MAX_NR_ZONES 1
#define ZONE_NORMAL 0

enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS
};
#define LRU_BASE 0
#define LRU_ACTIVE 1
#define LRU_FILE 2
#define ANON_AND_FILE 2
#define for_each_lru(lru) for (lru = 0; lru < NR_LRU_LISTS; lru++)
#define for_each_evictable_lru(lru) for (lru = 0; lru <= LRU_ACTIVE_FILE; lru++)

static inline bool is_file_lru(enum lru_list lru)
{
	return lru == LRU_INACTIVE_FILE || lru == LRU_ACTIVE_FILE;
}
static inline bool is_active_lru(enum lru_list lru)
{
	return lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE;
}

/*
 * Stat items as X-macros so that the enum and its /proc/vmstat name can
 * never drift apart.  Order follows the kernel's enums.
 */
#define ZONE_STAT_ITEMS(X)						\
	X(NR_FREE_PAGES, "nr_free_pages")				\
	X(NR_ZONE_INACTIVE_ANON, "nr_zone_inactive_anon")		\
	X(NR_ZONE_ACTIVE_ANON, "nr_zone_active_anon")			\
	X(NR_ZONE_INACTIVE_FILE, "nr_zone_inactive_file")		\
	X(NR_ZONE_ACTIVE_FILE, "nr_zone_active_file")			\
	X(NR_ZONE_UNEVICTABLE, "nr_zone_unevictable")			\
	X(NR_ZONE_WRITE_PENDING, "nr_zone_write_pending")		\
	X(NR_MLOCK, "nr_mlock")

#define NODE_STAT_ITEMS(X)						\
	X(NR_INACTIVE_ANON, "nr_inactive_anon")				\
	X(NR_ACTIVE_ANON, "nr_active_anon")				\
	X(NR_INACTIVE_FILE, "nr_inactive_file")				\
	X(NR_ACTIVE_FILE, "nr_active_file")				\
	X(NR_UNEVICTABLE, "nr_unevictable")				\
	X(NR_ISOLATED_ANON, "nr_isolated_anon")				\
	X(NR_ISOLATED_FILE, "nr_isolated_file")				\
	X(WORKINGSET_NODES, "workingset_nodes")				\
	X(WORKINGSET_REFAULT_ANON, "workingset_refault_anon")		\
	X(WORKINGSET_REFAULT_FILE, "workingset_refault_file")		\
	X(WORKINGSET_ACTIVATE_ANON, "workingset_activate_anon")		\
	X(WORKINGSET_ACTIVATE_FILE, "workingset_activate_file")		\
	X(WORKINGSET_RESTORE_ANON, "workingset_restore_anon")		\
	X(WORKINGSET_RESTORE_FILE, "workingset_restore_file")		\
	X(WORKINGSET_NODERECLAIM, "workingset_nodereclaim")		\
	X(NR_ANON_MAPPED, "nr_anon_pages")				\
	X(NR_FILE_MAPPED, "nr_mapped")					\
	X(NR_FILE_PAGES, "nr_file_pages")				\
	X(NR_FILE_DIRTY, "nr_dirty")					\
	X(NR_WRITEBACK, "nr_writeback")					\
	X(NR_SHMEM, "nr_shmem")						\
	X(NR_ANON_THPS, "nr_anon_transparent_hugepages")		\
	X(NR_VMSCAN_WRITE, "nr_vmscan_write")				\
	X(NR_VMSCAN_IMMEDIATE, "nr_vmscan_immediate_reclaim")		\
	X(NR_SWAPCACHE, "nr_swapcached")				\
	X(PGSTEAL_KSWAPD, "pgsteal_kswapd")				\
	X(PGSTEAL_DIRECT, "pgsteal_direct")				\
	X(PGSTEAL_PROACTIVE, "pgsteal_proactive")			\
	X(PGSTEAL_ANON, "pgsteal_anon")					\
	X(PGSTEAL_FILE, "pgsteal_file")					\
	X(PGSCAN_KSWAPD, "pgscan_kswapd")				\
	X(PGSCAN_DIRECT, "pgscan_direct")				\
	X(PGSCAN_PROACTIVE, "pgscan_proactive")				\
	X(PGSCAN_ANON, "pgscan_anon")					\
	X(PGSCAN_FILE, "pgscan_file")					\
	X(PGROTATE_ANON, "pgrotate_anon")				\
	X(PGROTATE_FILE, "pgrotate_file")				\
	X(PGREFILL, "pgrefill")

#define VM_EVENT_ITEMS(X)						\
	X(PGPGIN, "pgpgin")						\
	X(PGPGOUT, "pgpgout")						\
	X(PSWPIN, "pswpin")						\
	X(PSWPOUT, "pswpout")						\
	X(PGALLOC_NORMAL, "pgalloc_normal")				\
	X(PGFREE, "pgfree")						\
	X(PGACTIVATE, "pgactivate")					\
	X(PGDEACTIVATE, "pgdeactivate")					\
	X(PGLAZYFREE, "pglazyfree")					\
	X(PGFAULT, "pgfault")						\
	X(PGMAJFAULT, "pgmajfault")					\
	X(PGLAZYFREED, "pglazyfreed")					\
	X(PGREUSE, "pgreuse")						\
	X(PAGEOUTRUN, "pageoutrun")					\
	X(PGROTATED, "pgrotated")					\
	X(UNEVICTABLE_PGCULLED, "unevictable_pgs_culled")		\
	X(UNEVICTABLE_PGSCANNED, "unevictable_pgs_scanned")		\
	X(UNEVICTABLE_PGRESCUED, "unevictable_pgs_rescued")		\
	X(THP_FAULT_ALLOC, "thp_fault_alloc")				\
	X(THP_SPLIT_PAGE, "thp_split_page")				\
	X(THP_DEFERRED_SPLIT_PAGE, "thp_deferred_split_page")		\
	X(THP_SWPOUT_FALLBACK, "thp_swpout_fallback")			\
	X(NR_TLB_REMOTE_FLUSH, "nr_tlb_remote_flush")			\
	X(NR_TLB_REMOTE_FLUSH_RECEIVED, "nr_tlb_remote_flush_received")

#define __LRULAB_ENUM(e, s) e,
enum zone_stat_item { ZONE_STAT_ITEMS(__LRULAB_ENUM) NR_VM_ZONE_STAT_ITEMS };
enum node_stat_item { NODE_STAT_ITEMS(__LRULAB_ENUM) NR_VM_NODE_STAT_ITEMS };
enum vm_event_item { VM_EVENT_ITEMS(__LRULAB_ENUM) NR_VM_EVENT_ITEMS };
#undef __LRULAB_ENUM

#define NR_LRU_BASE NR_INACTIVE_ANON
#define NR_ZONE_LRU_BASE NR_ZONE_INACTIVE_ANON
#define WORKINGSET_REFAULT_BASE WORKINGSET_REFAULT_ANON
#define WORKINGSET_ACTIVATE_BASE WORKINGSET_ACTIVATE_ANON
#define WORKINGSET_RESTORE_BASE WORKINGSET_RESTORE_ANON
#define PGROTATE_BASE PGROTATE_ANON


/*
 * ---- Multi-gen LRU types (CONFIG_LRU_GEN, include/linux/mmzone.h) ----
 *
 * Always built in, as in the distribution kernels that ship MGLRU: the
 * lruvec carries lrugen and mm_state whether or not the LRU in use is
 * the multi-gen one (lru_gen_enabled(), <lrulab/mglru.h>).  The helpers
 * and functions are in <lrulab/mglru.h>.
 */
#define MIN_NR_GENS 2U
#define MAX_NR_GENS 4U
#define MAX_NR_TIERS 4U
/* 1 without CONFIG_LRU_GEN_STATS, the kernel's default */
#define NR_HIST_GENS 1U
#define MIN_LRU_BATCH 64U	/* BITS_PER_LONG */
#define MAX_LRU_BATCH (MIN_LRU_BATCH * 64)
#define NR_BLOOM_FILTERS 2
/* memcg LRU: two live generations and a guard, each in random bins */
#define MEMCG_NR_GENS 3
#define MEMCG_NR_BINS 8

enum {
	LRU_GEN_ANON,
	LRU_GEN_FILE,
};

/* the bits of /sys/kernel/mm/lru_gen/enabled */
enum {
	LRU_GEN_CORE,
	LRU_GEN_MM_WALK,
	LRU_GEN_NONLEAF_YOUNG,
	NR_LRU_GEN_CAPS
};

/* per mm_state history slot: what the page-table walkers saw */
enum {
	MM_LEAF_TOTAL,		/* PTEs walked */
	MM_LEAF_YOUNG,		/* young PTEs */
	MM_NONLEAF_FOUND,	/* PTE tables found in the Bloom filter */
	MM_NONLEAF_ADDED,	/* PTE tables added to the next filter */
	NR_MM_STATS
};

/*
 * One lruvec's generations.  max_seq and min_seq[] are written under
 * lru_lock and read without it; nr_pages[] may be transiently negative
 * (page-table walkers batch their updates) and readers clamp it at 0;
 * evicted[] and refaulted[] are updated without the lock.
 */
struct lru_gen_folio {
	unsigned long max_seq;
	unsigned long min_seq[ANON_AND_FILE];
	/* birth time of each generation, in jiffies (ms) */
	unsigned long timestamps[MAX_NR_GENS];
	struct list_head folios[MAX_NR_GENS][ANON_AND_FILE][MAX_NR_ZONES];
	long nr_pages[MAX_NR_GENS][ANON_AND_FILE][MAX_NR_ZONES];
	/* the PID controller's exponential moving averages, per tier */
	unsigned long avg_refaulted[ANON_AND_FILE][MAX_NR_TIERS];
	unsigned long avg_total[ANON_AND_FILE][MAX_NR_TIERS];
	/* folios kept by sort_folio() for their tier, under lru_lock */
	unsigned long protected[NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	atomic_long_t evicted[NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	atomic_long_t refaulted[NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	bool enabled;
	/* memcg LRU: the generation, the segment and the bin entry */
	u8 gen;
	u8 seg;
	struct list_head list;
};

/* A lruvec's position in its mm list (CONFIG_LRU_GEN_WALKS_MMU). */
struct lru_gen_mm_state {
	unsigned long seq;
	struct list_head *head;
	struct list_head *tail;
	unsigned long *filters[NR_BLOOM_FILTERS];
	unsigned long stats[NR_HIST_GENS][NR_MM_STATS];
};

/* A page-table walk in progress; kswapd's lives in its pgdat. */
struct lru_gen_mm_walk {
	struct lruvec *lruvec;
	unsigned long seq;
	unsigned long next_addr;
	int nr_pages[MAX_NR_GENS][ANON_AND_FILE][MAX_NR_ZONES];
	int mm_stats[NR_MM_STATS];
	int batched;
	int swappiness;
	bool force_scan;
};

/*
 * The memcg LRU of a node, for global reclaim: memcgs in generations
 * (old = seq % MEMCG_NR_GENS, young = seq + 1), each in MEMCG_NR_BINS
 * bins picked at random.  The kernel's bins are hlist_nulls walked under
 * RCU; here they are list_heads walked under the lock (shrink_many()
 * drops it around each memcg), which keeps the order and rotations.
 */
struct lru_gen_memcg {
	unsigned long seq;
	unsigned long nr_memcgs[MEMCG_NR_GENS];
	struct list_head fifo[MEMCG_NR_GENS][MEMCG_NR_BINS];
	spinlock_t lock;
};

struct pglist_data;

/* The lruvec, field order as in mmzone.h. */
/* LRU size changes made under lru_lock, applied after it is dropped (s0) */
struct lru_size_batch {
	long nr_pages[NR_LRU_LISTS];
};

struct lruvec {
	struct list_head lists[NR_LRU_LISTS];
	spinlock_t lru_lock;
	/*
	 * The scan-cost lock of the vmstat-scan-cost series sits in the hole
	 * after lru_lock, as the s0 patch places it, so that the batch
	 * pointer shares lru_lock's line without growing the struct.
	 */
	spinlock_t cost_lock;
	/* set only while lru_lock is held by a batch with lru-stat-batch on */
	struct lru_size_batch *lru_size_batch;
	unsigned long anon_cost;
	unsigned long file_cost;
	/*
	 * vmstat-scan-cost (s1): per type, the reclaim side's decaying
	 * accumulator and the cost-counter sample (rotations + I/O *
	 * SWAP_CLUSTER_MAX, modulo 2^64) it last folded in; under cost_lock.
	 */
	struct lru_cost {
		unsigned long count;
		unsigned long last;
	} cost[ANON_AND_FILE];
	atomic_long_t nonresident_age;
	unsigned long refaults[ANON_AND_FILE];
	unsigned long flags;
	/* CONFIG_LRU_GEN: the generations */
	struct lru_gen_folio lrugen;
	/* CONFIG_LRU_GEN_WALKS_MMU: where this lruvec is in its mm list */
	struct lru_gen_mm_state mm_state;
	struct pglist_data *pgdat;
};

struct free_area {
	struct list_head free_list;
	unsigned long nr_free;
};

enum zone_watermarks { WMARK_MIN, WMARK_LOW, WMARK_HIGH, NR_WMARK };

/* zone->flags bits */
enum zone_flags {
	ZONE_BELOW_HIGH,	/* free pages fell under the high watermark */
	ZONE_RECLAIM_ACTIVE,	/* kswapd is reclaiming the node */
};

/* Per-CPU page lists of one zone (kernel: struct per_cpu_pages). */
#define NR_PCP_LISTS (PAGE_ALLOC_COSTLY_ORDER + 2)	/* orders 0-3 and PMD */

/* pcp->flags */
#define PCPF_PREV_FREE_HIGH_ORDER	0x01	/* the last free was of order 1-3 */
#define PCPF_FREE_HIGH_BATCH		0x02	/* keep a batch through free_high */

struct per_cpu_pages {
	spinlock_t lock;	/* the owner and remote drainers */
	int count;		/* pages on the lists */
	int high;		/* tuned between high_min and high_max */
	int high_min;
	int high_max;
	int batch;
	u8 flags;		/* PCPF_* */
	u8 alloc_factor;	/* order-0 refills: batch << alloc_factor */
	int free_count;		/* pages freed since the last allocations */
	struct list_head lists[NR_PCP_LISTS];
};

struct per_cpu_zonestat {
	s8 vm_stat_diff[NR_VM_ZONE_STAT_ITEMS];
	s8 stat_threshold;
};

struct per_cpu_nodestat {
	s8 stat_threshold;
	s8 vm_node_stat_diff[NR_VM_NODE_STAT_ITEMS];
};

struct zone {
	/* read-mostly */
	unsigned long _watermark[NR_WMARK];
	struct pglist_data *zone_pgdat;
	struct per_cpu_pages *per_cpu_pageset;		/* alloc_percpu */
	struct per_cpu_zonestat *per_cpu_zonestats;	/* alloc_percpu */
	unsigned long zone_start_pfn;
	unsigned long spanned_pages;
	unsigned long managed_pages;
	const char *name;
	unsigned long flags;				/* ZONE_* bits */
	CACHELINE_PADDING(_pad1_);
	spinlock_t lock;
	struct free_area free_area[NR_PAGE_ORDERS];
	CACHELINE_PADDING(_pad2_);
	atomic_long_t vm_stat[NR_VM_ZONE_STAT_ITEMS];
};

typedef struct pglist_data {
	struct zone node_zones[MAX_NR_ZONES];
	int node_id;
	unsigned long node_start_pfn;
	unsigned long node_spanned_pages;
	struct per_cpu_nodestat *per_cpu_nodestats;	/* alloc_percpu */
	/* kswapd's page-table walk (CONFIG_LRU_GEN_WALKS_MMU) */
	struct lru_gen_mm_walk mm_walk;
	/* the memcg LRU of global reclaim (CONFIG_LRU_GEN, CONFIG_MEMCG) */
	struct lru_gen_memcg memcg_lru;
	CACHELINE_PADDING(_pad1_);
	atomic_long_t vm_stat[NR_VM_NODE_STAT_ITEMS];
} pg_data_t;

extern int nr_node_ids;
extern struct pglist_data *node_data[MAX_NUMNODES];
#define NODE_DATA(nid) (node_data[(nid)])
#define for_each_node(nid) for ((nid) = 0; (nid) < nr_node_ids; (nid)++)

static inline struct pglist_data *folio_pgdat(const struct folio *f)
{
	return NODE_DATA(folio_nid(f));
}
static inline struct zone *folio_zone(const struct folio *f)
{
	return &folio_pgdat(f)->node_zones[folio_zonenum(f)];
}
static inline struct pglist_data *lruvec_pgdat(struct lruvec *lruvec)
{
	return lruvec->pgdat;
}

#endif /* LRULAB_MMZONE_H */
