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
#include <lrulab/rcupdate.h>

#define MEMCG_CHARGE_BATCH 64U
#define NR_MEMCG_STOCK 7
#define PAGE_COUNTER_MAX (LONG_MAX / PAGE_SIZE)
/* The kernel's FLUSH_TIME (2 * HZ), in nanoseconds of CLOCK_MONOTONIC. */
#define FLUSH_TIME_NS (2ULL * 1000000000ULL)

struct page_counter {
	atomic_long_t usage;
	unsigned long max;
	unsigned long watermark;
	atomic_long_t failcnt;
	struct page_counter *parent;
};

void page_counter_init(struct page_counter *counter, struct page_counter *parent);
/*
 * Charge @nr_pages to @counter and every ancestor.  On failure nothing
 * stays charged, *@fail names the first level that would exceed its max,
 * and its failcnt is bumped.
 */
bool page_counter_try_charge(struct page_counter *counter, unsigned long nr_pages,
			     struct page_counter **fail);
void page_counter_uncharge(struct page_counter *counter, unsigned long nr_pages);
static inline unsigned long page_counter_read(struct page_counter *counter)
{
	return atomic_long_read(&counter->usage);
}

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
 * the lruvec on its own lines, write-hot, cold last.  Objects come from a
 * cache that aligns them to 64 bytes only (mm/memcontrol.c), so, as with
 * SLAB_HWCACHE_ALIGN, whether the read-mostly line shares a 128-byte
 * prefetch pair with this object's next line (the LRU list heads) or with
 * the previous object's last line depends on the slot: see
 * mem_cgroup_pn_offset128().
 *
 * That needs an object of an odd number of lines, as the kernel's 576
 * bytes (9 lines) are: with an even number every slot would start at the
 * same 128-byte offset.  The model has one zone where the kernel has four
 * or five, so its lru_zone_size[] is smaller; the write-hot group is
 * padded by one line whenever the groups add up to an even number of
 * lines (the lruvec will grow with MGLRU, so this is computed, not fixed).
 */
#define __MEMCG_PN_READ_MOSTLY						\
	struct mem_cgroup *memcg;					\
	struct lruvec_stats_percpu *lruvec_stats_percpu; /* alloc_percpu */ \
	struct lruvec_stats *lruvec_stats;				\
	void *shrinker_info;						\
	void *objcg;

#define __MEMCG_PN_LRUVEC						\
	CACHELINE_PADDING(_pad1_);					\
	struct lruvec lruvec;

/* lru_zone_size[] is exact and non-hierarchical, under lru_lock */
#define __MEMCG_PN_WRITE_HOT						\
	CACHELINE_PADDING(_pad2_);					\
	unsigned long lru_zone_size[MAX_NR_ZONES][NR_LRU_LISTS];	\
	struct mem_cgroup_reclaim_iter iter;

#define __MEMCG_PN_COLD							\
	CACHELINE_PADDING(_pad3_);					\
	void *orig_objcg;						\
	struct list_head objcg_list;

struct __mem_cgroup_per_node_unpadded {
	__MEMCG_PN_READ_MOSTLY
	__MEMCG_PN_LRUVEC
	__MEMCG_PN_WRITE_HOT
	__MEMCG_PN_COLD
} ____cacheline_aligned;

#define MEMCG_PN_ODD_PAD						\
	((sizeof(struct __mem_cgroup_per_node_unpadded) / L1_CACHE_BYTES) % 2 ? \
	 0 : L1_CACHE_BYTES)

struct mem_cgroup_per_node {
	/* memcg_pn_read_mostly */
	__MEMCG_PN_READ_MOSTLY
	/* memcg_pn_lruvec */
	__MEMCG_PN_LRUVEC
	/* memcg_pn_write_hot */
	__MEMCG_PN_WRITE_HOT
	char _pad_odd_[MEMCG_PN_ODD_PAD];
	/* memcg_pn_cold */
	__MEMCG_PN_COLD
} ____cacheline_aligned;

_Static_assert((sizeof(struct mem_cgroup_per_node) / L1_CACHE_BYTES) % 2 == 1,
	       "mem_cgroup_per_node must be an odd number of cache lines");

struct mem_cgroup {
	struct mem_cgroup *parent;
	struct list_head children;	/* under memcg_tree_lock */
	struct list_head sibling;
	char name[64];
	unsigned short id;
	bool online;
	/*
	 * css reference count, percpu_ref style: while online, gets and
	 * puts by model CPUs go to css_ref_percpu and the atomic refcnt
	 * carries a large bias, so a busy memcg has no shared refcount
	 * line; offline folds the per-CPU parts in and drops the bias, and
	 * from then on refcnt alone is the count.
	 */
	bool css_ref_atomic;
	bool css_no_ref;		/* root: never freed by refcount */
	bool released;			/* refcount hit 0; free is queued */
	atomic_long_t refcnt;
	long *css_ref_percpu;		/* alloc_percpu */
	struct rcu_head rcu;

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

/*
 * The children of @memcg; under the tree lock (inside memcontrol.c) or
 * at a quiescent point.  Not list_for_each_entry(): its end test forms a
 * struct mem_cgroup pointer around the list head, misaligned for this
 * 64-byte aligned struct, which -fsanitize=alignment reports.
 */
#define __MEMCG_CAT2(a, b) a##b
#define __MEMCG_CAT(a, b) __MEMCG_CAT2(a, b)
#define __for_each_mem_cgroup_child(child, memcg, link)			\
	for (struct list_head *link = (memcg)->children.next;			\
	     link != &(memcg)->children &&					\
	     ((child) = list_entry(link, struct mem_cgroup, sibling), true);	\
	     link = link->next)
#define for_each_mem_cgroup_child(child, memcg)				\
	__for_each_mem_cgroup_child(child, memcg, __MEMCG_CAT(__memcg_link_, __LINE__))

/* ---- lifetime ---- */
int mem_cgroup_init(void);		/* creates root; after nodes, vmstat */
void mem_cgroup_exit(void);
/*
 * Returns NULL and sets errno: ENOMEM, ENOSPC (all 65535 ids in use),
 * EINVAL (name NULL, empty, 64 bytes or longer, or containing '/'),
 * EEXIST (an online sibling has the name), ENOENT (parent is offline).
 * A NULL @parent means the root.  The caller owns the creator reference,
 * which mem_cgroup_offline() drops.
 */
struct mem_cgroup *mem_cgroup_create(struct mem_cgroup *parent, const char *name);
/*
 * Offline (rmdir): stocks drain, stats are flushed into the parent, the
 * refcount switches to atomic mode and the creator reference is dropped.
 * LRU folios stay on the dead memcg's lruvecs, charged to it, until they
 * are freed (the mainline zombie model).  Refused with a warning for the
 * root and for a memcg with online children.  Waits for an RCU grace
 * period: never call it inside rcu_read_lock().
 */
void mem_cgroup_offline(struct mem_cgroup *memcg);
void css_get(struct mem_cgroup *memcg);
/* Fails only once the refcount has reached 0 (the memcg is going away). */
bool css_tryget(struct mem_cgroup *memcg);
void css_put(struct mem_cgroup *memcg);	/* frees after a grace period */
/*
 * Wait until every memcg whose refcount reached 0 has been freed, its
 * last stat deltas passed to its parent (and so on up, should a parent go
 * in its wake).  Like rcu_barrier() for memcgs, without the false reports
 * rcu_barrier() draws from ThreadSanitizer.  Not inside rcu_read_lock().
 */
void mem_cgroup_wait_frees(void);
/* Under rcu_read_lock(); NULL for 0 and for ids not in use. */
struct mem_cgroup *mem_cgroup_from_id(unsigned short id);
/*
 * Pre-order walk of @root's subtree (NULL: the whole tree), offline
 * memcgs that still exist included.  Every memcg returned other than
 * @root holds a reference that the next call or mem_cgroup_iter_break()
 * drops.
 */
struct mem_cgroup *mem_cgroup_iter(struct mem_cgroup *root, struct mem_cgroup *prev);
void mem_cgroup_iter_break(struct mem_cgroup *root, struct mem_cgroup *prev);
/* Where @memcg's per-node info for @nid starts, modulo 128 (0 or 64). */
unsigned long mem_cgroup_pn_offset128(struct mem_cgroup *memcg, int nid);

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

/*
 * ---- statistics ----
 *
 * Model CPUs update their own per-CPU deltas; a flush folds them in.  A
 * thread that is not a model CPU (smp_processor_id() < 0) has no per-CPU
 * area: its updates go straight into the flushed aggregates, with atomic
 * adds, and its charges bypass the stock.  Such a thread must register
 * with RCU (urcu_memb_register_thread()) before using the folio helpers,
 * which look the memcg up under rcu_read_lock().
 */
void __mod_memcg_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val);
void mod_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val);
void __mod_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val);
void lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val);
void __lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val);
void mod_memcg_state(struct mem_cgroup *memcg, enum memcg_stat_item idx, int val);
void count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx, unsigned long count);
void count_memcg_folio_events(struct folio *folio, enum vm_event_item idx, unsigned long nr);
void memcg_memory_event(struct mem_cgroup *memcg, enum memcg_memory_event event);

/*
 * Flush @memcg's subtree (NULL: root) if more than MEMCG_CHARGE_BATCH *
 * nr_cpu_ids updates are pending; the ratelimited form only when the
 * last root flush is more than 2 * FLUSH_TIME old.
 */
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
/*
 * 0 or -ENOMEM (memory.max reached and nothing reclaimable).  A NULL
 * @memcg means the root, which is never limited.  The caller keeps
 * @memcg alive (a reference, or it is online and not going offline
 * meanwhile); the folio then takes its own reference until uncharged.
 */
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
/*
 * memory.max.  The new limit takes effect at once (values above
 * PAGE_COUNTER_MAX mean "max"); if usage is above it even after the
 * stocks are drained, -EBUSY (there is no reclaim yet).  -EINVAL for
 * the root, which has no memory.max.
 */
int mem_cgroup_set_max(struct mem_cgroup *memcg, unsigned long max_pages);

/*
 * memory.stat / memory.events format.  memory_stat_show() flushes as
 * the kernel does, i.e. only past the update threshold; call
 * mem_cgroup_flush_all() first for exact figures.
 */
void memory_stat_show(struct mem_cgroup *memcg, FILE *f);
void memory_events_show(struct mem_cgroup *memcg, FILE *f);

#endif /* LRULAB_MEMCONTROL_H */
