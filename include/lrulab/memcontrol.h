/* SPDX-License-Identifier: MIT */
/*
 * Memory cgroups: the tree, mem_cgroup_per_node (which holds each
 * lruvec), per-CPU stat deltas with rstat flushing, charging with a
 * per-CPU stock, memory.max, memory.stat, offline (mm/memcontrol.c).
 */
#ifndef LRULAB_MEMCONTROL_H
#define LRULAB_MEMCONTROL_H

#include <limits.h>
#include <stdio.h>
#include <lrulab/mmzone.h>
#include <lrulab/cpu.h>

#define MEMCG_CHARGE_BATCH 64U
#define NR_MEMCG_STOCK 7
#define PAGE_COUNTER_MAX (LONG_MAX / PAGE_SIZE)

struct page_counter {
	atomic_long_t usage;
	unsigned long max;
	unsigned long watermark;
	atomic_long_t failcnt;
	struct page_counter *parent;
};

/* memcg-only state items, numbered after the node items */
enum memcg_stat_item {
	MEMCG_SWAP = NR_VM_NODE_STAT_ITEMS,
	MEMCG_SOCK,
	MEMCG_PERCPU_B,
	MEMCG_KMEM,
	MEMCG_NR_STAT,
};

enum memcg_memory_event {
	MEMCG_LOW,
	MEMCG_HIGH,
	MEMCG_MAX,
	MEMCG_OOM,
	MEMCG_OOM_KILL,
	MEMCG_NR_MEMORY_EVENTS,
};

/* Per-CPU, per-node deltas of one memcg (lruvec_stats_percpu). */
struct lruvec_stats_percpu {
	long state[NR_VM_NODE_STAT_ITEMS];
	long state_prev[NR_VM_NODE_STAT_ITEMS];
};

struct lruvec_stats {
	long state[NR_VM_NODE_STAT_ITEMS];		/* hierarchical */
	long state_local[NR_VM_NODE_STAT_ITEMS];	/* this memcg only */
	long state_pending[NR_VM_NODE_STAT_ITEMS];	/* from children */
};

struct memcg_vmstats;

struct memcg_vmstats_percpu {
	/* the three the update path touches share one line */
	unsigned int stats_updates;
	struct memcg_vmstats_percpu *parent_pcpu;
	struct memcg_vmstats *vmstats;
	long state[MEMCG_NR_STAT];
	unsigned long events[NR_VM_EVENT_ITEMS];
	long state_prev[MEMCG_NR_STAT];
	unsigned long events_prev[NR_VM_EVENT_ITEMS];
};

struct memcg_vmstats {
	long state[MEMCG_NR_STAT];
	unsigned long events[NR_VM_EVENT_ITEMS];
	long state_local[MEMCG_NR_STAT];
	unsigned long events_local[NR_VM_EVENT_ITEMS];
	long state_pending[MEMCG_NR_STAT];
	unsigned long events_pending[NR_VM_EVENT_ITEMS];
	atomic_t stats_updates;
};

struct mem_cgroup_reclaim_iter {
	struct mem_cgroup *position;
	atomic_t generation;
};

/*
 * Cacheline groups as in the kernel before the s3 patch: read-mostly,
 * the lruvec on its own lines, write-hot, cold last.
 */
struct mem_cgroup_per_node {
	/* memcg_pn_read_mostly */
	struct mem_cgroup *memcg;
	struct lruvec_stats_percpu *lruvec_stats_percpu;	/* alloc_percpu */
	struct lruvec_stats *lruvec_stats;
	void *shrinker_info;
	void *objcg;
	CACHELINE_PADDING(_pad1_);
	/* memcg_pn_lruvec */
	struct lruvec lruvec;
	CACHELINE_PADDING(_pad2_);
	/* memcg_pn_write_hot */
	unsigned long lru_zone_size[MAX_NR_ZONES][NR_LRU_LISTS];
	struct mem_cgroup_reclaim_iter iter;
	CACHELINE_PADDING(_pad3_);
	/* memcg_pn_cold */
	void *orig_objcg;
	struct list_head objcg_list;
} ____cacheline_aligned;

struct mem_cgroup {
	struct mem_cgroup *parent;
	struct list_head children;	/* under memcg_tree_lock */
	struct list_head sibling;
	char name[64];
	unsigned short id;
	atomic_long_t refcnt;		/* css_get/css_put */
	bool online;

	struct page_counter memory;

	/* memcg_write_hot */
	CACHELINE_PADDING(_pad1_);
	atomic_long_t memory_events[MEMCG_NR_MEMORY_EVENTS];
	atomic_long_t memory_events_local[MEMCG_NR_MEMORY_EVENTS];

	/* memcg_read_mostly */
	CACHELINE_PADDING(_pad2_);
	struct memcg_vmstats_percpu *vmstats_percpu;	/* alloc_percpu */
	struct memcg_vmstats *vmstats;

	struct mem_cgroup_per_node *nodeinfo[];
};

extern struct mem_cgroup *root_mem_cgroup;

/* ---- lifetime ---- */
int mem_cgroup_init(void);		/* creates root; after nodes, vmstat */
void mem_cgroup_exit(void);
/* Returns NULL and sets errno (ENOMEM, ENOSPC for ids, EINVAL). */
struct mem_cgroup *mem_cgroup_create(struct mem_cgroup *parent, const char *name);
/* Offline: stats fold into the parent, stocks drain; LRU folios stay on
 * the dead memcg's lruvecs until freed (the mainline zombie model). */
void mem_cgroup_offline(struct mem_cgroup *memcg);
void css_get(struct mem_cgroup *memcg);
void css_put(struct mem_cgroup *memcg);	/* frees after a grace period */
struct mem_cgroup *mem_cgroup_from_id(unsigned short id);
struct mem_cgroup *mem_cgroup_iter(struct mem_cgroup *root, struct mem_cgroup *prev);
void mem_cgroup_iter_break(struct mem_cgroup *root, struct mem_cgroup *prev);

static inline bool mem_cgroup_is_root(struct mem_cgroup *memcg)
{
	return memcg == root_mem_cgroup;
}
static inline bool mem_cgroup_online(struct mem_cgroup *memcg)
{
	return READ_ONCE(memcg->online);
}
static inline struct mem_cgroup *parent_mem_cgroup(struct mem_cgroup *memcg)
{
	return memcg->parent;
}

/* ---- folio binding and lruvecs ---- */
static inline struct mem_cgroup *folio_memcg(const struct folio *folio)
{
	return (struct mem_cgroup *)READ_ONCE(folio->memcg_data);
}
static inline struct lruvec *mem_cgroup_lruvec(struct mem_cgroup *memcg,
					       struct pglist_data *pgdat)
{
	if (!memcg)
		memcg = root_mem_cgroup;
	return &memcg->nodeinfo[pgdat->node_id]->lruvec;
}
static inline struct lruvec *folio_lruvec(struct folio *folio)
{
	return mem_cgroup_lruvec(folio_memcg(folio), folio_pgdat(folio));
}
static inline struct mem_cgroup_per_node *lruvec_pn(struct lruvec *lruvec)
{
	return container_of(lruvec, struct mem_cgroup_per_node, lruvec);
}
static inline struct mem_cgroup *lruvec_memcg(struct lruvec *lruvec)
{
	return lruvec_pn(lruvec)->memcg;
}
struct lruvec *parent_lruvec(struct lruvec *lruvec);

void mem_cgroup_update_lru_size(struct lruvec *lruvec, enum lru_list lru,
				int zid, int nr_pages);
unsigned long lruvec_lru_size(struct lruvec *lruvec, enum lru_list lru, int zone_idx);

/*
 * Taking a folio's lru_lock.  The caller must keep the folio's memcg
 * binding stable (folio locked, PG_lru clear, or refcount frozen).  The
 * macros name the call site for the lock statistics.
 */
struct lruvec *__folio_lruvec_lock(struct folio *folio, struct lock_site *site);
struct lruvec *__folio_lruvec_relock(struct folio *folio, struct lruvec *locked,
				     struct lock_site *site);
void lruvec_unlock(struct lruvec *lruvec);

#define folio_lruvec_lock(folio) __folio_lruvec_lock((folio), LOCK_SITE("lru_lock"))
#define folio_lruvec_lock_irq(folio) folio_lruvec_lock(folio)
#define folio_lruvec_lock_irqsave(folio, flagsp) \
	((void)(flagsp), folio_lruvec_lock(folio))
#define folio_lruvec_relock_irq(folio, locked) \
	__folio_lruvec_relock((folio), (locked), LOCK_SITE("lru_lock"))
#define folio_lruvec_relock_irqsave(folio, lruvecp, flagsp) \
	((void)(flagsp), *(lruvecp) = __folio_lruvec_relock((folio), *(lruvecp), \
							   LOCK_SITE("lru_lock")))
#define lruvec_lock_irq(lruvec) spin_lock_at(&(lruvec)->lru_lock, LOCK_SITE("lru_lock"))
#define unlock_page_lruvec(lruvec) lruvec_unlock(lruvec)
#define unlock_page_lruvec_irq(lruvec) lruvec_unlock(lruvec)
#define unlock_page_lruvec_irqrestore(lruvec, flags) \
	((void)(flags), lruvec_unlock(lruvec))

/* ---- statistics ---- */
void __mod_memcg_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val);
void mod_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val);
void __mod_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val);
void lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val);
void __lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val);
void mod_memcg_state(struct mem_cgroup *memcg, enum memcg_stat_item idx, int val);
void count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx, unsigned long count);
void count_memcg_folio_events(struct folio *folio, enum vm_event_item idx, unsigned long nr);
void memcg_memory_event(struct mem_cgroup *memcg, enum memcg_memory_event event);

void mem_cgroup_flush_stats(struct mem_cgroup *memcg);
void mem_cgroup_flush_stats_ratelimited(struct mem_cgroup *memcg);
/* Unconditional flush of the whole tree (what the periodic worker does). */
void mem_cgroup_flush_all(void);

/* Flushed values; hierarchical unless _local; clamped at 0. */
unsigned long lruvec_page_state(struct lruvec *lruvec, enum node_stat_item idx);
unsigned long lruvec_page_state_local(struct lruvec *lruvec, enum node_stat_item idx);
unsigned long memcg_page_state(struct mem_cgroup *memcg, int idx);
unsigned long memcg_page_state_local(struct mem_cgroup *memcg, int idx);
unsigned long memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx);
unsigned long memcg_events_local(struct mem_cgroup *memcg, enum vm_event_item idx);

/* ---- charging ---- */
/* 0 or -ENOMEM (memory.max reached and nothing reclaimable). */
int mem_cgroup_charge(struct folio *folio, struct mem_cgroup *memcg);
int try_charge_memcg(struct mem_cgroup *memcg, unsigned int nr_pages);
/* Drops the charge of a folio being freed (refcount 0). */
void mem_cgroup_uncharge(struct folio *folio);
struct folio_batch;
void mem_cgroup_uncharge_folios(struct folio_batch *folios);
void drain_all_stock(void);
/* Pages held in per-CPU stocks for @memcg (for the invariant checker). */
unsigned long memcg_stock_pages(struct mem_cgroup *memcg);

unsigned long mem_cgroup_usage(struct mem_cgroup *memcg);	/* memory.current in pages */
int mem_cgroup_set_max(struct mem_cgroup *memcg, unsigned long max_pages);

/* memory.stat / memory.events format */
void memory_stat_show(struct mem_cgroup *memcg, FILE *f);
void memory_events_show(struct mem_cgroup *memcg, FILE *f);

#endif /* LRULAB_MEMCONTROL_H */
