/* SPDX-License-Identifier: MIT */
/*
 * Memory cgroups: the tree, mem_cgroup_per_node (which holds each
 * lruvec) and offline (mm/memcontrol.c); charging with a per-CPU stock
 * and memory.max (mm/memcg_charge.c); per-CPU stat deltas with rstat
 * flushing, memory.stat and memory.events (mm/memcg_stats.c).
 */
#ifndef LRULAB_MEMCONTROL_H
#define LRULAB_MEMCONTROL_H

#include <limits.h>
#include <stdio.h>
#include <lrulab/mmzone.h>
#include <lrulab/cpu.h>
#include <lrulab/rcupdate.h>
#include <lrulab/mglru_walk.h>

#define MEMCG_CHARGE_BATCH 64U
#define NR_MEMCG_STOCK 7
#define PAGE_COUNTER_MAX (LONG_MAX / PAGE_SIZE)
/* The kernel's FLUSH_TIME (2 * HZ), in nanoseconds of CLOCK_MONOTONIC. */
#define FLUSH_TIME_NS (2ULL * 1000000000ULL)
#define FLUSH_TIME_MS 2000U

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
 * struct mem_cgroup_per_node is built from one macro per cacheline group,
 * so that the two layouts of the s3 series (a build variant, as the mail
 * compares two kernels) cannot drift apart in their fields:
 *
 *   default:                 read-mostly, lruvec, write-hot, cold
 *   LRULAB_PN_COLD_PAIRING:  read-mostly, cold, lruvec, write-hot
 *
 * Every group starts a line.  The begin and end markers are zero-size
 * members, so offsetof() finds the groups (lrulab layout, the tests).
 *
 * Objects come from a cache that aligns them to 64 bytes only (the pn
 * cache in mm/memcontrol.c, as SLAB_HWCACHE_ALIGN does), while Intel's
 * spatial prefetcher pulls lines in 128-byte aligned pairs.  Which line
 * the read-mostly line (every memcg stat update reads it) is paired with
 * therefore depends on where the object lands: at a 128-byte boundary it
 * is paired with the object's own line 1; 64 bytes past one, with the
 * previous object's last line.  Before the s3 patch line 1 holds the LRU
 * list heads, which the lru_lock holder writes all the time, and the
 * mail measured per-memcg throughput as bimodal: fresh memcgs got either
 * alignment.  That needs objects of an odd number of lines, as the
 * kernel's 576 bytes (9 lines) are: with an even number every slot of a
 * page-aligned slab starts at the same 128-byte offset, and the model
 * would show one mode only, the bad one before the patch.
 *
 * The model has one zone where the kernel has four or five, so its
 * lru_zone_size[] fits one line, and with today's lruvec the groups add
 * up to an even number of lines.  The odd pad restores the parity, and it
 * goes inside the write-hot group, between lru_zone_size[] and the
 * reclaim iterator: where the kernel's entries for its upper zones sit,
 * rarely written.  That keeps both claims of the mail true in the model
 * (tests/test_layout.c checks them in both layouts):
 *
 *  - the object's last line holds "the end of lru_zone_size[] and the
 *    reclaim iterator", so after the patch the read-mostly line of an
 *    object 64 bytes past a pair boundary is paired with a line that is
 *    written only by reclaim, and never with the list heads;
 *  - lruvec->pgdat's line is paired with lru_zone_size[]'s at one of the
 *    two alignments (patch 2).  The multi-gen LRU's lrugen and mm_state
 *    sit between lru_lock and pgdat, as in a CONFIG_LRU_GEN kernel, so
 *    pgdat is never in lru_lock's pair; without them (a kernel built
 *    without MGLRU) it would be at the other alignment.
 *
 * The pad is one line, or two when the groups already add up to an odd
 * number (a larger lruvec): the cold tail of the write-hot group must
 * stay whatever the lruvec's size.
 */
#define memcg_pn_group_begin(name) \
	CACHELINE_PADDING(__cacheline_group_begin__##name)
#define memcg_pn_group_end(name) \
	struct { } __cacheline_group_end__##name

#define __MEMCG_PN_READ_MOSTLY						\
	memcg_pn_group_begin(memcg_pn_read_mostly);			\
	struct mem_cgroup *memcg;					\
	struct lruvec_stats_percpu *lruvec_stats_percpu; /* alloc_percpu */ \
	struct lruvec_stats *lruvec_stats;				\
	void *shrinker_info;						\
	void *objcg;							\
	memcg_pn_group_end(memcg_pn_read_mostly);

/* the lruvec on its own lines, away from lru_zone_size[] */
#define __MEMCG_PN_LRUVEC						\
	memcg_pn_group_begin(memcg_pn_lruvec);				\
	struct lruvec lruvec;						\
	memcg_pn_group_end(memcg_pn_lruvec);

/* lru_zone_size[] is exact and non-hierarchical, under lru_lock */
#define __MEMCG_PN_WRITE_HOT(odd_pad)					\
	memcg_pn_group_begin(memcg_pn_write_hot);			\
	unsigned long lru_zone_size[MAX_NR_ZONES][NR_LRU_LISTS];	\
	char _pad_odd_[odd_pad];					\
	struct mem_cgroup_reclaim_iter iter;				\
	memcg_pn_group_end(memcg_pn_write_hot);

/* touched only when the memcg goes offline or is freed */
#define __MEMCG_PN_COLD							\
	memcg_pn_group_begin(memcg_pn_cold);				\
	void *orig_objcg;						\
	struct list_head objcg_list;					\
	memcg_pn_group_end(memcg_pn_cold);

/* The groups alone; their order does not change the sum of their lines. */
struct __mem_cgroup_per_node_unpadded {
	__MEMCG_PN_READ_MOSTLY
	__MEMCG_PN_LRUVEC
	__MEMCG_PN_WRITE_HOT(0)
	__MEMCG_PN_COLD
} ____cacheline_aligned;

#define MEMCG_PN_ODD_PAD						\
	((sizeof(struct __mem_cgroup_per_node_unpadded) / L1_CACHE_BYTES) % 2 ? \
	 2 * L1_CACHE_BYTES : L1_CACHE_BYTES)

struct mem_cgroup_per_node {
	__MEMCG_PN_READ_MOSTLY
#ifdef LRULAB_PN_COLD_PAIRING
	/*
	 * Right after the read-mostly line, so that in an object at a
	 * 128-byte boundary the read-mostly line's prefetch partner is this
	 * line, which nothing writes while the memcg lives, instead of the
	 * LRU list heads.
	 */
	__MEMCG_PN_COLD
#endif
	__MEMCG_PN_LRUVEC
	__MEMCG_PN_WRITE_HOT(MEMCG_PN_ODD_PAD)
#ifndef LRULAB_PN_COLD_PAIRING
	__MEMCG_PN_COLD
#endif
} ____cacheline_aligned;

_Static_assert((sizeof(struct mem_cgroup_per_node) / L1_CACHE_BYTES) % 2 == 1,
	       "mem_cgroup_per_node must be an odd number of cache lines");

struct mem_cgroup {
	struct mem_cgroup *parent;
	struct list_head children;	/* under memcg_tree_lock */
	struct list_head sibling;
	char name[64];
	unsigned short id;		/* private id: shadows, reused after offline */
	u64 cgroup_id;			/* the cgroup's id: 1 for the root, never reused */
	bool online;
	/*
	 * Offline, its LRU folios reparented: they live on the parent's
	 * lruvecs and their stats count there (folio_memcg()), while their
	 * charges and references stay with this memcg until they are freed.
	 */
	bool reparented;
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

	/* the mms charged here, for the MGLRU page-table walkers */
	struct lru_gen_mm_list mm_list;

	struct mem_cgroup_per_node *nodeinfo[];
};

extern struct mem_cgroup *root_mem_cgroup;

/*
 * The children of @memcg; under the tree lock (inside mm/memcontrol.c
 * and mm/memcg_stats.c) or
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
 * The public id, the kernel's mem_cgroup_id() (cgroup_id() of its css):
 * what lru_gen prints and parses.  0 for NULL (memcg disabled).
 */
static inline u64 mem_cgroup_id(const struct mem_cgroup *memcg)
{
	return memcg ? memcg->cgroup_id : 0;
}
/* The online memcg with cgroup id @id, with a reference; NULL if none. */
struct mem_cgroup *mem_cgroup_get_from_id(u64 id);
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
/* The memcg the folio is charged to and pins: uncharge and references. */
static inline struct mem_cgroup *folio_memcg_charged(const struct folio *folio)
{
	return (struct mem_cgroup *)READ_ONCE(folio->memcg_data);
}
/*
 * The memcg whose LRU and stats the folio belongs to: its charged memcg,
 * or, once that was taken offline and its folios reparented, the nearest
 * ancestor that was not (the kernel's folio_memcg() through the objcg,
 * which offline points at the parent).  Stable under rcu_read_lock() or
 * the folio's lruvec lock.
 */
static inline struct mem_cgroup *mem_cgroup_live(struct mem_cgroup *memcg)
{
	while (memcg && unlikely(__atomic_load_n(&memcg->reparented, __ATOMIC_ACQUIRE)))
		memcg = memcg->parent;
	return memcg;
}
static inline struct mem_cgroup *folio_memcg(const struct folio *folio)
{
	return mem_cgroup_live(folio_memcg_charged(folio));
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
/*
 * Folio and kmem updates: the node counter, plus the per-node stats of
 * the folio's memcg when it is charged.  Through the memcg's lruvec, or
 * with memcg-direct-stat (s3 patch 2) straight to the memcg and node;
 * the figures are the same either way.
 */
void lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val);
void __lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val);
static inline void lruvec_stat_add_folio(struct folio *folio, enum node_stat_item idx)
{
	lruvec_stat_mod_folio(folio, idx, (int)folio_nr_pages(folio));
}
static inline void lruvec_stat_sub_folio(struct folio *folio, enum node_stat_item idx)
{
	lruvec_stat_mod_folio(folio, idx, -(int)folio_nr_pages(folio));
}
/*
 * For kernel memory: @p is arena memory of a folio (charged or not), as
 * the kernel's kmem pages are; anything else is refused with a warning.
 */
void mod_lruvec_kmem_state(void *p, enum node_stat_item idx, int val);
void mod_memcg_state(struct mem_cgroup *memcg, enum memcg_stat_item idx, int val);
void count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx, unsigned long count);
void count_memcg_folio_events(struct folio *folio, enum vm_event_item idx, unsigned long nr);
void memcg_memory_event(struct mem_cgroup *memcg, enum memcg_memory_event event);

/*
 * Flush @memcg's subtree (NULL: root) if more than MEMCG_CHARGE_BATCH *
 * nr_cpu_ids updates are pending; the ratelimited form only when the
 * last root flush is more than two flusher periods old (2 * FLUSH_TIME
 * when no flusher runs).
 */
void mem_cgroup_flush_stats(struct mem_cgroup *memcg);
void mem_cgroup_flush_stats_ratelimited(struct mem_cgroup *memcg);
/* Unconditional flush of the whole tree (what the periodic worker does). */
void mem_cgroup_flush_all(void);
/*
 * The periodic flusher (the kernel's flush_memcg_stats_dwork): a thread
 * that calls mem_cgroup_flush_all() every @period_ms, so that the
 * ratelimited readers never see figures much older than one period.
 * @period_ms plays the kernel's FLUSH_TIME until the flusher stops: the
 * ratelimited flush waits for two of them.
 * start: 0, -EBUSY, -EINVAL (period 0), -EAGAIN; stop wakes it at once
 * and waits for it.  Both from the set-up thread, after
 * mem_cgroup_init() and before mem_cgroup_exit().
 */
int mem_cgroup_flusher_start(unsigned int period_ms);
void mem_cgroup_flusher_stop(void);
/* FLUSH_TIME as the ratelimited flush counts it: the flusher's period. */
u64 mem_cgroup_flush_period_ns(void);
/* Periodic flushes completed since the flusher was started. */
unsigned long mem_cgroup_nr_periodic_flushes(void);

/* Flushed values; hierarchical unless _local; clamped at 0. */
unsigned long lruvec_page_state(struct lruvec *lruvec, enum node_stat_item idx);
unsigned long lruvec_page_state_local(struct lruvec *lruvec, enum node_stat_item idx);
/* Not clamped: for monotonic counters whose samples are subtracted. */
unsigned long lruvec_page_state_monotonic(struct lruvec *lruvec, enum node_stat_item idx);
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

/*
 * ---- layout description (lrulab layout, tests/test_layout.c) ----
 *
 * What touches each field on the paths the s3 series is about.  A 64-byte
 * line is "written by the lru_lock holder" or "read by a stat update" if
 * one of its fields is; a 128-byte pair holding one of each makes the
 * stat update pull in, through the spatial prefetcher, a line the
 * lru_lock holder keeps writing.
 */
enum memcg_layout_use {
	/* "W": written with lru_lock held, on the fault/free path or by reclaim */
	LAYOUT_LRU_LOCK_WRITE	= 1 << 0,
	LAYOUT_STAT_READ	= 1 << 1,	/* "R": every per-node memcg stat update */
	/*
	 * "r": stat updates that start from a lruvec: mod_lruvec_state()
	 * always, folio and kmem updates only with memcg-direct-stat off.
	 */
	LAYOUT_STAT_READ_LRUVEC	= 1 << 2,
};

struct memcg_layout_field {
	const char *prefix;	/* "lruvec." for the lruvec inside the pn */
	const char *name;
	const char *group;	/* cacheline group; NULL in struct lruvec */
	size_t offset;
	size_t size;
	unsigned int use;	/* LAYOUT_* */
};

/* struct lruvec, offsets from its start, in offset order. */
extern const struct memcg_layout_field lruvec_layout[];
extern const size_t lruvec_layout_nr;

#define MEMCG_PN_LAYOUT_MAX 32
/*
 * struct mem_cgroup_per_node in this binary's layout, the lruvec expanded
 * into its fields, offsets from the object's start, in offset order.
 * Fills @buf (MEMCG_PN_LAYOUT_MAX entries) and returns the count.
 */
size_t mem_cgroup_per_node_layout(struct memcg_layout_field *buf);

/* LAYOUT_* bits of the fields that overlap 64-byte line @line. */
unsigned int memcg_layout_line_use(const struct memcg_layout_field *fields,
				   size_t nr, size_t line);

/*
 * The line that line @line of an object starting @slot bytes (0 or 64)
 * past a 128-byte boundary shares its prefetch pair with, counted in the
 * same object: -1 is the previous object's last line, and the object's
 * line count is the next object's first line.
 */
static inline long memcg_layout_pair_mate(long line, unsigned int slot)
{
	long shift = (long)(slot / L1_CACHE_BYTES);

	return ((line + shift) ^ 1) - shift;
}

#endif /* LRULAB_MEMCONTROL_H */
