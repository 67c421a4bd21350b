// SPDX-License-Identifier: MIT
/*
 * Memory cgroups (mm/memcontrol.c): the memcg tree and its ids, the
 * per-node info that holds each lruvec, per-CPU stat deltas folded by an
 * rstat-style flush, charging through a per-CPU stock, memory.max,
 * offline with the mainline "zombie" lifetime, and memory.stat.
 *
 * Locks, outermost first: a CPU's stock lock, memcg_tree_lock (the tree,
 * the id table), memcg_rstat_lock (every aggregate and pending array),
 * pn_cache.lock.  lru_lock is taken by callers around the LRU helpers and
 * nothing here nests inside it except stat updates, which take no lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lrulab/gfp.h>
#include <lrulab/memcontrol.h>
#include <lrulab/rcupdate.h>
#include <lrulab/swap.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>
#include <lrulab/vmstat.h>

#define MEM_CGROUP_ID_MAX 65535

struct mem_cgroup *root_mem_cgroup;

static pthread_mutex_t memcg_tree_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t memcg_rstat_lock = PTHREAD_MUTEX_INITIALIZER;

/* id -> memcg, published with release so RCU readers see it whole */
static struct mem_cgroup *memcg_ids[MEM_CGROUP_ID_MAX + 1];

/* CLOCK_MONOTONIC ns of the last flush that started at the root */
static u64 flush_last_time;
/*
 * The kernel's FLUSH_TIME: the flusher's period, which also sets how
 * stale a ratelimited reader may let the stats get (two periods).
 */
static u64 flush_period_ns = FLUSH_TIME_NS;

/*
 * memcgs whose RCU-deferred free has not run yet.  Waiters sleep on a
 * condition variable rather than in rcu_barrier(), whose own bookkeeping
 * ThreadSanitizer reports as racy (liburcu is not instrumented), and the
 * mutex gives TSan the ordering between a free and what follows the wait.
 */
static int memcg_frees_pending;
static pthread_mutex_t memcg_frees_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t memcg_frees_done = PTHREAD_COND_INITIALIZER;

static void mem_cgroup_release(struct mem_cgroup *memcg);

static void memcg_warn(const char *fmt, const char *name)
{
	fprintf(stderr, "WARNING: memcg: ");
	fprintf(stderr, fmt, name);
	fputc('\n', stderr);
}

static u64 memcg_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static void *zalloc_aligned(size_t size)
{
	size_t bytes = (size + L1_CACHE_BYTES - 1) & ~(size_t)(L1_CACHE_BYTES - 1);
	void *p;

	if (posix_memalign(&p, L1_CACHE_BYTES, bytes))
		return NULL;
	memset(p, 0, bytes);
	return p;
}

/*
 * ---------------------------------------------------------------------
 * The mem_cgroup_per_node cache.
 *
 * Like a SLAB_HWCACHE_ALIGN kmem_cache: objects only 64-byte aligned,
 * packed back to back from the start of page-aligned slabs at a stride
 * of their size rounded up to 64.  The 128-byte offset of an object is
 * then a matter of its slot, which is what the s3 layout experiment is
 * about; a plain aligned allocator would hide it.  The slab header sits
 * in the slab's tail, which the objects never reach, and slabs are
 * aligned to their size so that an object finds its slab by masking.
 * ---------------------------------------------------------------------
 */
#define PN_SLAB_SIZE (4 * PAGE_SIZE)

struct pn_slab {
	struct list_head list;	/* pn_cache.partial or pn_cache.full */
	void *freelist;
	unsigned int inuse;
};

static struct {
	pthread_mutex_t lock;
	size_t stride;
	unsigned int objs_per_slab;
	struct list_head partial;
	struct list_head full;
} pn_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct pn_slab *pn_slab_of(void *obj)
{
	char *base = (char *)((uintptr_t)obj & ~(uintptr_t)(PN_SLAB_SIZE - 1));

	return (struct pn_slab *)(base + PN_SLAB_SIZE - sizeof(struct pn_slab));
}

static void pn_cache_init(void)
{
	pn_cache.stride = (sizeof(struct mem_cgroup_per_node) + L1_CACHE_BYTES - 1) &
			  ~(size_t)(L1_CACHE_BYTES - 1);
	pn_cache.objs_per_slab = (PN_SLAB_SIZE - sizeof(struct pn_slab)) / pn_cache.stride;
	INIT_LIST_HEAD(&pn_cache.partial);
	INIT_LIST_HEAD(&pn_cache.full);
}

static struct pn_slab *pn_slab_new(void)
{
	struct pn_slab *slab;
	char *base;
	unsigned int i;

	base = aligned_alloc(PN_SLAB_SIZE, PN_SLAB_SIZE);
	if (!base)
		return NULL;
	slab = pn_slab_of(base);
	slab->inuse = 0;
	/* in address order, so a fresh slab hands out slot 0, 1, 2, ... */
	slab->freelist = NULL;
	for (i = pn_cache.objs_per_slab; i-- > 0;) {
		void *obj = base + (size_t)i * pn_cache.stride;

		*(void **)obj = slab->freelist;
		slab->freelist = obj;
	}
	list_add(&slab->list, &pn_cache.partial);
	return slab;
}

static struct mem_cgroup_per_node *pn_cache_alloc(void)
{
	struct pn_slab *slab;
	void *obj = NULL;

	pthread_mutex_lock(&pn_cache.lock);
	if (list_empty(&pn_cache.partial) && !pn_slab_new())
		goto out;
	slab = list_first_entry(&pn_cache.partial, struct pn_slab, list);
	obj = slab->freelist;
	slab->freelist = *(void **)obj;
	if (++slab->inuse == pn_cache.objs_per_slab)
		list_move(&slab->list, &pn_cache.full);
	memset(obj, 0, pn_cache.stride);
out:
	pthread_mutex_unlock(&pn_cache.lock);
	return obj;
}

static void pn_cache_free(struct mem_cgroup_per_node *pn)
{
	struct pn_slab *slab = pn_slab_of(pn);
	bool was_full;

	pthread_mutex_lock(&pn_cache.lock);
	was_full = slab->inuse == pn_cache.objs_per_slab;
	*(void **)pn = slab->freelist;
	slab->freelist = pn;
	slab->inuse--;
	if (was_full)
		list_move(&slab->list, &pn_cache.partial);
	/* keep one empty slab around, as SLUB keeps a few partial ones */
	if (!slab->inuse && pn_cache.partial.next->next != &pn_cache.partial) {
		list_del(&slab->list);
		free((char *)((uintptr_t)pn & ~(uintptr_t)(PN_SLAB_SIZE - 1)));
	}
	pthread_mutex_unlock(&pn_cache.lock);
}

static void pn_cache_destroy(void)
{
	struct pn_slab *slab, *next;
	struct list_head *lists[] = { &pn_cache.partial, &pn_cache.full };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		list_for_each_entry_safe(slab, next, lists[i], list) {
			list_del(&slab->list);
			free((char *)((uintptr_t)slab & ~(uintptr_t)(PN_SLAB_SIZE - 1)));
		}
	}
}

unsigned long mem_cgroup_pn_offset128(struct mem_cgroup *memcg, int nid)
{
	return (uintptr_t)memcg->nodeinfo[nid] & 127;
}

/*
 * ---------------------------------------------------------------------
 * page_counter (mm/page_counter.c)
 * ---------------------------------------------------------------------
 */
void page_counter_init(struct page_counter *counter, struct page_counter *parent)
{
	atomic_long_set(&counter->usage, 0);
	counter->max = PAGE_COUNTER_MAX;
	counter->watermark = 0;
	atomic_long_set(&counter->failcnt, 0);
	counter->parent = parent;
}

static void page_counter_cancel(struct page_counter *counter, unsigned long nr_pages)
{
	long new = atomic_long_sub_return(nr_pages, &counter->usage);

	/* more uncharged than charged: a caller bug, keep the counter sane */
	if (new < 0) {
		fprintf(stderr, "WARNING: page_counter underflow: %ld nr_pages=%lu\n",
			new, nr_pages);
		atomic_long_set(&counter->usage, 0);
	}
}

/*
 * Add first and back out on overflow: concurrent chargers may push usage
 * over max for a moment, but each one that does sees it and undoes its
 * own part, so the limit holds without a lock.
 */
bool page_counter_try_charge(struct page_counter *counter, unsigned long nr_pages,
			     struct page_counter **fail)
{
	struct page_counter *c;

	for (c = counter; c; c = c->parent) {
		long new = atomic_long_add_return(nr_pages, &c->usage);

		if (new > (long)READ_ONCE(c->max)) {
			atomic_long_sub(nr_pages, &c->usage);
			atomic_long_inc(&c->failcnt);
			*fail = c;
			goto failed;
		}
		/* racy, like the kernel's: a high-water mark, not an invariant */
		if (new > (long)READ_ONCE(c->watermark))
			WRITE_ONCE(c->watermark, new);
	}
	return true;

failed:
	for (c = counter; c != *fail; c = c->parent)
		page_counter_cancel(c, nr_pages);
	return false;
}

void page_counter_uncharge(struct page_counter *counter, unsigned long nr_pages)
{
	struct page_counter *c;

	for (c = counter; c; c = c->parent)
		page_counter_cancel(c, nr_pages);
}

/*
 * ---------------------------------------------------------------------
 * css references
 *
 * The kernel's css refcount is a percpu_ref: per-CPU counting while the
 * cgroup is online, atomic after it is killed.  A plain atomic here would
 * put a line every charge and uncharge writes into a benchmark of many
 * threads in one memcg, which the kernel does not have.  While online,
 * model CPUs count in their own slot inside an RCU read section; the
 * atomic count holds a bias then, so that the gets and puts of threads
 * that are not model CPUs, which always go to the atomic count, cannot
 * reach zero.  Offline flips css_ref_atomic, waits a grace period so that
 * no CPU is still inside a slot update, folds the slots in and drops the
 * bias.
 *
 * Slot stores are releases and the fold's loads acquires: on x86 the
 * same instructions as relaxed ones, but they let ThreadSanitizer see
 * that every CPU's last use of the memcg happens before its free, an
 * ordering the grace period provides and TSan cannot see in liburcu.
 * ---------------------------------------------------------------------
 */
#define CSS_REF_BIAS (LONG_MAX / 4)

static bool css_ref_percpu_add(struct mem_cgroup *memcg, long nr)
{
	int cpu = smp_processor_id();
	bool done = false;

	if (cpu < 0)
		return false;
	rcu_read_lock();
	if (!READ_ONCE(memcg->css_ref_atomic)) {
		long *slot = per_cpu_ptr(memcg->css_ref_percpu, cpu);

		smp_store_release(slot, READ_ONCE(*slot) + nr);
		done = true;
	}
	rcu_read_unlock();
	return done;
}

static void css_get_many(struct mem_cgroup *memcg, long nr)
{
	if (!memcg || memcg->css_no_ref)
		return;
	if (!css_ref_percpu_add(memcg, nr))
		atomic_long_add(nr, &memcg->refcnt);
}

static void css_put_many(struct mem_cgroup *memcg, long nr)
{
	if (!memcg || memcg->css_no_ref)
		return;
	if (css_ref_percpu_add(memcg, -nr))
		return;
	if (atomic_long_sub_return(nr, &memcg->refcnt) == 0)
		mem_cgroup_release(memcg);
}

void css_get(struct mem_cgroup *memcg)
{
	css_get_many(memcg, 1);
}

void css_put(struct mem_cgroup *memcg)
{
	css_put_many(memcg, 1);
}

bool css_tryget(struct mem_cgroup *memcg)
{
	long old;

	if (!memcg)
		return false;
	if (memcg->css_no_ref || css_ref_percpu_add(memcg, 1))
		return true;
	old = atomic_long_read(&memcg->refcnt);
	do {
		if (old == 0)
			return false;
	} while (!atomic_long_try_cmpxchg(&memcg->refcnt, &old, old + 1));
	return true;
}

/* percpu_ref_kill(), synchronously.  The creator's reference stays. */
static void css_ref_kill(struct mem_cgroup *memcg)
{
	long sum = 0;
	int cpu;

	WRITE_ONCE(memcg->css_ref_atomic, true);
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		sum += smp_load_acquire(per_cpu_ptr(memcg->css_ref_percpu, cpu));
	/* fully ordered: the final put must see everything done before */
	atomic_long_add_return(sum - CSS_REF_BIAS, &memcg->refcnt);
}

/*
 * ---------------------------------------------------------------------
 * Statistics: updates
 *
 * Per-CPU counters are written only by their CPU, as a plain load and
 * store (the kernel's this_cpu_add), and read by the flusher.  The stores
 * are releases and the flusher's loads acquires, for the same reason as
 * the css slots above: the final flush before an RCU-deferred free reads
 * every counter, which orders every CPU's writes before the free for
 * ThreadSanitizer.
 *
 * A thread that is not a model CPU has no per-CPU area.  Its updates go
 * straight into the aggregates, with atomic adds, of the memcg (local
 * and hierarchical) and of every ancestor (hierarchical): the values a
 * flush would have produced, visible at once.  The flusher therefore adds
 * to the aggregates atomically too.
 * ---------------------------------------------------------------------
 */
static inline void pcpu_add_long(long *p, long val)
{
	smp_store_release(p, READ_ONCE(*p) + val);
}

static inline void pcpu_add_ulong(unsigned long *p, unsigned long val)
{
	smp_store_release(p, READ_ONCE(*p) + val);
}

static inline void agg_add_long(long *p, long val)
{
	__atomic_fetch_add(p, val, __ATOMIC_RELAXED);
}

static inline void agg_add_ulong(unsigned long *p, unsigned long val)
{
	__atomic_fetch_add(p, val, __ATOMIC_RELAXED);
}

static inline bool memcg_vmstats_needs_flush(struct memcg_vmstats *vmstats)
{
	return atomic_read(&vmstats->stats_updates) >
		(int)(MEMCG_CHARGE_BATCH * (unsigned int)nr_cpu_ids);
}

/* Bytes per unit of a state item, for converting to pages. */
static int memcg_page_state_unit(int idx)
{
	switch (idx) {
	case MEMCG_PERCPU_B:
		return 1;
	default:
		return PAGE_SIZE;
	}
}

/*
 * How much an update weighs against the flush threshold: its size in
 * pages, at least 1 for a non-zero update in bytes.  Capped past the
 * largest threshold so the int sums cannot overflow.
 */
static unsigned int memcg_state_weight(int idx, long val)
{
	unsigned long v = val < 0 ? -(unsigned long)val : (unsigned long)val;
	int unit = memcg_page_state_unit(idx);

	if (v && unit != PAGE_SIZE) {
		v = v * (unsigned long)unit / PAGE_SIZE;
		if (!v)
			v = 1;
	}
	if (v > MEMCG_CHARGE_BATCH * LRULAB_MAX_CPUS + 1)
		v = MEMCG_CHARGE_BATCH * LRULAB_MAX_CPUS + 1;
	return (unsigned int)v;
}

static unsigned int memcg_event_weight(unsigned long count)
{
	if (count > MEMCG_CHARGE_BATCH * LRULAB_MAX_CPUS + 1)
		count = MEMCG_CHARGE_BATCH * LRULAB_MAX_CPUS + 1;
	return (unsigned int)count;
}

/*
 * Count an update towards the flush threshold of @memcg and its
 * ancestors.  Per-CPU counts spill into the shared atomic every
 * MEMCG_CHARGE_BATCH, so the shared line is written once per 64 updates,
 * and the walk stops at the first level that already needs a flush:
 * every level above it does too.
 */
static void memcg_rstat_updated(struct mem_cgroup *memcg, unsigned int weight, int cpu)
{
	struct memcg_vmstats_percpu *statc;

	if (!weight)
		return;
	/*
	 * The kernel also links the cgroup into this CPU's rstat updated
	 * tree here; the flush below visits every memcg of the subtree
	 * instead, so there is nothing to mark.
	 */
	for (statc = per_cpu_ptr(memcg->vmstats_percpu, cpu); statc;
	     statc = statc->parent_pcpu) {
		unsigned int updates;

		if (memcg_vmstats_needs_flush(statc->vmstats))
			break;
		updates = READ_ONCE(statc->stats_updates) + weight;
		if (updates < MEMCG_CHARGE_BATCH) {
			smp_store_release(&statc->stats_updates, updates);
			continue;
		}
		smp_store_release(&statc->stats_updates, 0U);
		atomic_add((int)updates, &statc->vmstats->stats_updates);
	}
}

static void memcg_state_nocpu(struct mem_cgroup *memcg, int nid, int idx, long val)
{
	struct mem_cgroup *m;

	agg_add_long(&memcg->vmstats->state_local[idx], val);
	if (nid >= 0)
		agg_add_long(&memcg->nodeinfo[nid]->lruvec_stats->state_local[idx], val);
	for (m = memcg; m; m = parent_mem_cgroup(m)) {
		agg_add_long(&m->vmstats->state[idx], val);
		if (nid >= 0)
			agg_add_long(&m->nodeinfo[nid]->lruvec_stats->state[idx], val);
	}
}

static void memcg_events_nocpu(struct mem_cgroup *memcg, int idx, unsigned long count)
{
	struct mem_cgroup *m;

	agg_add_ulong(&memcg->vmstats->events_local[idx], count);
	for (m = memcg; m; m = parent_mem_cgroup(m))
		agg_add_ulong(&m->vmstats->events[idx], count);
}

/*
 * The per-node update proper, for a memcg and node the caller knows.  Of
 * mem_cgroup_per_node it reads lruvec_stats_percpu only, on the
 * read-mostly line; memcg->nodeinfo[] shares the line of struct
 * mem_cgroup that the update reads anyway for vmstats_percpu.
 */
static void mod_memcg_node_state(struct mem_cgroup *memcg, int nid,
				 enum node_stat_item idx, int val)
{
	int cpu = smp_processor_id();
	struct mem_cgroup_per_node *pn;

	if (unlikely(cpu < 0)) {
		memcg_state_nocpu(memcg, nid, idx, val);
		return;
	}
	pn = memcg->nodeinfo[nid];
	pcpu_add_long(&per_cpu_ptr(memcg->vmstats_percpu, cpu)->state[idx], val);
	pcpu_add_long(&per_cpu_ptr(pn->lruvec_stats_percpu, cpu)->state[idx], val);
	memcg_rstat_updated(memcg, memcg_state_weight(idx, val), cpu);
}

/*
 * From a lruvec the memcg and node have to be read back: pn->memcg on
 * the read-mostly line, and lruvec->pgdat, whose line shares a 128-byte
 * pair with lru_lock's or lru_zone_size[]'s depending on where the pn
 * object lands.  LRU size updates have only the lruvec and pay that in
 * both settings of memcg-direct-stat.
 */
void __mod_memcg_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val)
{
	mod_memcg_node_state(lruvec_memcg(lruvec), lruvec_pgdat(lruvec)->node_id, idx, val);
}

void __mod_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val)
{
	__mod_node_page_state(lruvec_pgdat(lruvec), idx, val);
	__mod_memcg_lruvec_state(lruvec, idx, val);
}

void mod_lruvec_state(struct lruvec *lruvec, enum node_stat_item idx, int val)
{
	mod_node_page_state(lruvec_pgdat(lruvec), idx, val);
	__mod_memcg_lruvec_state(lruvec, idx, val);
}

/*
 * Folio and kmem updates: the node's counter, and the per-node stats of
 * the memcg the folio is charged to, if any.  The RCU section keeps the
 * memcg alive should the folio be uncharged meanwhile.
 *
 * memcg-direct-stat off, as before the s3 patch 2: the memcg's lruvec is
 * looked up and updated through mod_lruvec_state(), which reads the node
 * back from lruvec->pgdat and the memcg from pn->memcg.  On: the node and
 * memcg already in hand are used directly, and no line of the lruvec is
 * read.  Both give the same figures everywhere: the node counter, the
 * memcg's and its ancestors' memory.stat, and every lruvec's stats.
 */
static void mod_folio_node_state(struct folio *folio, enum node_stat_item idx, int val)
{
	struct pglist_data *pgdat = folio_pgdat(folio);
	struct mem_cgroup *memcg;

	if (lrulab_switch_on(SW_MEMCG_DIRECT_STAT)) {
		mod_node_page_state(pgdat, idx, val);
		rcu_read_lock();
		memcg = folio_memcg(folio);
		if (memcg)
			mod_memcg_node_state(memcg, pgdat->node_id, idx, val);
		rcu_read_unlock();
		return;
	}

	rcu_read_lock();
	memcg = folio_memcg(folio);
	/* an uncharged folio has no lruvec stats, only node ones */
	if (!memcg) {
		rcu_read_unlock();
		mod_node_page_state(pgdat, idx, val);
		return;
	}
	mod_lruvec_state(mem_cgroup_lruvec(memcg, pgdat), idx, val);
	rcu_read_unlock();
}

void lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val)
{
	mod_folio_node_state(folio, idx, val);
}

void __lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, int val)
{
	mod_folio_node_state(folio, idx, val);
}

/*
 * The folio whose memory holds @p, or NULL outside the arena.  A tail
 * page's entry points at its head with bit 0 set; a head's first word
 * there is a list pointer, with bit 0 clear.
 */
static struct folio *kmem_virt_to_folio(const void *p)
{
	unsigned long pfn, head;
	struct folio *page;

	if (!mem_arena || (const char *)p < mem_arena)
		return NULL;
	pfn = (unsigned long)((const char *)p - mem_arena) >> PAGE_SHIFT;
	if (pfn >= max_pfn)
		return NULL;
	page = pfn_folio(pfn);
	head = READ_ONCE(page->compound_head);
	return head & 1 ? (struct folio *)(head - 1) : page;
}

void mod_lruvec_kmem_state(void *p, enum node_stat_item idx, int val)
{
	struct folio *folio = kmem_virt_to_folio(p);

	if (!folio) {
		fprintf(stderr, "WARNING: mod_lruvec_kmem_state(%p): not arena memory\n", p);
		return;
	}
	mod_folio_node_state(folio, idx, val);
}

void mod_memcg_state(struct mem_cgroup *memcg, enum memcg_stat_item idx, int val)
{
	int cpu = smp_processor_id();
	int i = (int)idx;

	if (!memcg || i < 0 || i >= MEMCG_NR_STAT)
		return;
	if (unlikely(cpu < 0)) {
		memcg_state_nocpu(memcg, -1, i, val);
		return;
	}
	pcpu_add_long(&per_cpu_ptr(memcg->vmstats_percpu, cpu)->state[i], val);
	memcg_rstat_updated(memcg, memcg_state_weight(i, val), cpu);
}

void count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx,
			unsigned long count)
{
	int cpu = smp_processor_id();

	if (!memcg || (int)idx < 0 || idx >= NR_VM_EVENT_ITEMS)
		return;
	if (unlikely(cpu < 0)) {
		memcg_events_nocpu(memcg, idx, count);
		return;
	}
	pcpu_add_ulong(&per_cpu_ptr(memcg->vmstats_percpu, cpu)->events[idx], count);
	memcg_rstat_updated(memcg, memcg_event_weight(count), cpu);
}

void count_memcg_folio_events(struct folio *folio, enum vm_event_item idx,
			      unsigned long nr)
{
	struct mem_cgroup *memcg = folio_memcg(folio);

	if (memcg)
		count_memcg_events(memcg, idx, nr);
}

/*
 * memory.events counts on the memcg and every ancestor below the root;
 * memory.events.local on the memcg alone.
 */
void memcg_memory_event(struct mem_cgroup *memcg, enum memcg_memory_event event)
{
	if (!memcg || (int)event < 0 || event >= MEMCG_NR_MEMORY_EVENTS)
		return;
	atomic_long_inc(&memcg->memory_events_local[event]);
	do {
		atomic_long_inc(&memcg->memory_events[event]);
		memcg = parent_mem_cgroup(memcg);
	} while (memcg && !mem_cgroup_is_root(memcg));
}

/*
 * ---------------------------------------------------------------------
 * Statistics: the rstat flush
 * ---------------------------------------------------------------------
 */

/*
 * Fold one CPU's deltas of @memcg (memcg state, events, every node's
 * lruvec state) plus what its children left pending, then pass the total
 * to the parent's pending.  Children must have been flushed for this CPU
 * first, so that their deltas are in the pending arrays already.
 * Called with memcg_rstat_lock held.
 */
static void memcg_flush_cpu(struct mem_cgroup *memcg, int cpu)
{
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);
	struct memcg_vmstats *vmstats = memcg->vmstats;
	struct memcg_vmstats *pvmstats = parent ? parent->vmstats : NULL;
	struct memcg_vmstats_percpu *statc = per_cpu_ptr(memcg->vmstats_percpu, cpu);
	int i, nid;

	for (i = 0; i < MEMCG_NR_STAT; i++) {
		long delta = vmstats->state_pending[i];
		long v = smp_load_acquire(&statc->state[i]);
		long delta_cpu = v - statc->state_prev[i];

		if (delta)
			vmstats->state_pending[i] = 0;
		if (delta_cpu) {
			statc->state_prev[i] = v;
			agg_add_long(&vmstats->state_local[i], delta_cpu);
			delta += delta_cpu;
		}
		if (!delta)
			continue;
		agg_add_long(&vmstats->state[i], delta);
		if (pvmstats)
			pvmstats->state_pending[i] += delta;
	}

	for (i = 0; i < NR_VM_EVENT_ITEMS; i++) {
		unsigned long delta = vmstats->events_pending[i];
		unsigned long v = smp_load_acquire(&statc->events[i]);
		unsigned long delta_cpu = v - statc->events_prev[i];

		if (delta)
			vmstats->events_pending[i] = 0;
		if (delta_cpu) {
			statc->events_prev[i] = v;
			agg_add_ulong(&vmstats->events_local[i], delta_cpu);
			delta += delta_cpu;
		}
		if (!delta)
			continue;
		agg_add_ulong(&vmstats->events[i], delta);
		if (pvmstats)
			pvmstats->events_pending[i] += delta;
	}

	for_each_node(nid) {
		struct mem_cgroup_per_node *pn = memcg->nodeinfo[nid];
		struct lruvec_stats *lstats = pn->lruvec_stats;
		struct lruvec_stats *plstats =
			parent ? parent->nodeinfo[nid]->lruvec_stats : NULL;
		struct lruvec_stats_percpu *lstatc =
			per_cpu_ptr(pn->lruvec_stats_percpu, cpu);

		for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++) {
			long delta = lstats->state_pending[i];
			long v = smp_load_acquire(&lstatc->state[i]);
			long delta_cpu = v - lstatc->state_prev[i];

			if (delta)
				lstats->state_pending[i] = 0;
			if (delta_cpu) {
				lstatc->state_prev[i] = v;
				agg_add_long(&lstats->state_local[i], delta_cpu);
				delta += delta_cpu;
			}
			if (!delta)
				continue;
			agg_add_long(&lstats->state[i], delta);
			if (plstats)
				plstats->state_pending[i] += delta;
		}
	}

	/* a remote write into the CPU's counter, as in the kernel */
	if (smp_load_acquire(&statc->stats_updates))
		WRITE_ONCE(statc->stats_updates, 0U);
	if (atomic_read(&vmstats->stats_updates))
		atomic_set(&vmstats->stats_updates, 0);
}

/* Bottom-up over the subtree; both tree and rstat locks held. */
static void memcg_flush_subtree(struct mem_cgroup *memcg)
{
	struct mem_cgroup *child;
	int cpu;

	for_each_mem_cgroup_child(child, memcg)
		memcg_flush_subtree(child);
	for_each_possible_cpu(cpu)
		memcg_flush_cpu(memcg, cpu);
}

static void __mem_cgroup_flush_stats(struct mem_cgroup *memcg, bool force)
{
	if (!force && !memcg_vmstats_needs_flush(memcg->vmstats))
		return;
	if (mem_cgroup_is_root(memcg))
		WRITE_ONCE(flush_last_time, memcg_clock_ns());
	pthread_mutex_lock(&memcg_tree_lock);
	pthread_mutex_lock(&memcg_rstat_lock);
	memcg_flush_subtree(memcg);
	pthread_mutex_unlock(&memcg_rstat_lock);
	pthread_mutex_unlock(&memcg_tree_lock);
}

void mem_cgroup_flush_stats(struct mem_cgroup *memcg)
{
	if (!memcg)
		memcg = root_mem_cgroup;
	__mem_cgroup_flush_stats(memcg, false);
}

/*
 * For readers that can live with older figures (reclaim, workingset):
 * flush only when the periodic root flush is a whole period late.
 */
void mem_cgroup_flush_stats_ratelimited(struct mem_cgroup *memcg)
{
	if (memcg_clock_ns() > READ_ONCE(flush_last_time) + 2 * READ_ONCE(flush_period_ns))
		mem_cgroup_flush_stats(memcg);
}

void mem_cgroup_flush_all(void)
{
	__mem_cgroup_flush_stats(root_mem_cgroup, true);
}

/*
 * The kernel flushes root from deferrable work every FLUSH_TIME; a
 * thread does it here.  It needs no RCU and no model CPU: the flush
 * walks the tree under memcg_tree_lock and reads every CPU's counters
 * remotely, as any flusher does.  It sleeps on a condvar, not in
 * sleep(), so that stopping it does not wait out the period.
 */
static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool running;		/* set-up thread only */
	bool stop;		/* under lock */
	unsigned int period_ms;
	unsigned long nr_flushes;	/* under lock */
} flusher = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static void timespec_add_ms(struct timespec *ts, unsigned int ms)
{
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *memcg_flusher(void *arg)
{
	struct timespec deadline;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	pthread_mutex_lock(&flusher.lock);
	for (;;) {
		timespec_add_ms(&deadline, flusher.period_ms);
		while (!flusher.stop &&
		       pthread_cond_timedwait(&flusher.wake, &flusher.lock,
					      &deadline) != ETIMEDOUT)
			;
		if (flusher.stop)
			break;
		/* the flush takes the rstat locks: not under ours */
		pthread_mutex_unlock(&flusher.lock);
		mem_cgroup_flush_all();
		pthread_mutex_lock(&flusher.lock);
		flusher.nr_flushes++;
		/*
		 * A flush slower than the period would otherwise leave the
		 * deadline behind and flush back to back to catch up; the
		 * kernel's work is simply requeued one period on.
		 */
		clock_gettime(CLOCK_MONOTONIC, &deadline);
	}
	pthread_mutex_unlock(&flusher.lock);
	return NULL;
}

int mem_cgroup_flusher_start(unsigned int period_ms)
{
	pthread_condattr_t attr;
	int err = 0;

	if (!period_ms || !root_mem_cgroup)
		return -EINVAL;
	if (flusher.running)
		return -EBUSY;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&flusher.wake, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_lock(&flusher.lock);
	flusher.stop = false;
	flusher.period_ms = period_ms;
	flusher.nr_flushes = 0;
	pthread_mutex_unlock(&flusher.lock);
	WRITE_ONCE(flush_period_ns, period_ms * 1000000ULL);
	if (pthread_create(&flusher.thread, NULL, memcg_flusher, NULL)) {
		pthread_cond_destroy(&flusher.wake);
		err = -EAGAIN;
	} else {
		flusher.running = true;
	}
	return err;
}

void mem_cgroup_flusher_stop(void)
{
	if (!flusher.running)
		return;
	pthread_mutex_lock(&flusher.lock);
	flusher.stop = true;
	pthread_cond_signal(&flusher.wake);
	pthread_mutex_unlock(&flusher.lock);
	pthread_join(flusher.thread, NULL);
	pthread_cond_destroy(&flusher.wake);
	flusher.running = false;
	WRITE_ONCE(flush_period_ns, FLUSH_TIME_NS);
}

u64 mem_cgroup_flush_period_ns(void)
{
	return READ_ONCE(flush_period_ns);
}

unsigned long mem_cgroup_nr_periodic_flushes(void)
{
	unsigned long nr;

	pthread_mutex_lock(&flusher.lock);
	nr = flusher.nr_flushes;
	pthread_mutex_unlock(&flusher.lock);
	return nr;
}

/*
 * ---------------------------------------------------------------------
 * Statistics: readers (flushed values; negatives read as 0 as on SMP)
 * ---------------------------------------------------------------------
 */
static unsigned long clamp_state(long x)
{
	return x < 0 ? 0 : (unsigned long)x;
}

unsigned long lruvec_page_state(struct lruvec *lruvec, enum node_stat_item idx)
{
	if ((int)idx < 0 || idx >= NR_VM_NODE_STAT_ITEMS)
		return 0;
	return clamp_state(READ_ONCE(lruvec_pn(lruvec)->lruvec_stats->state[idx]));
}

unsigned long lruvec_page_state_local(struct lruvec *lruvec, enum node_stat_item idx)
{
	if ((int)idx < 0 || idx >= NR_VM_NODE_STAT_ITEMS)
		return 0;
	return clamp_state(READ_ONCE(lruvec_pn(lruvec)->lruvec_stats->state_local[idx]));
}

/*
 * For monotonically incremented counters sampled twice and subtracted
 * (the s1 scan cost): the raw flushed value, not clamped, so that the
 * unsigned difference of two samples stays the true growth even when
 * the signed sum wraps.  Never for page counts, which can dip below 0.
 */
unsigned long lruvec_page_state_monotonic(struct lruvec *lruvec, enum node_stat_item idx)
{
	if ((int)idx < 0 || idx >= NR_VM_NODE_STAT_ITEMS)
		return 0;
	return (unsigned long)READ_ONCE(lruvec_pn(lruvec)->lruvec_stats->state[idx]);
}

unsigned long memcg_page_state(struct mem_cgroup *memcg, int idx)
{
	if (idx < 0 || idx >= MEMCG_NR_STAT)
		return 0;
	return clamp_state(READ_ONCE(memcg->vmstats->state[idx]));
}

unsigned long memcg_page_state_local(struct mem_cgroup *memcg, int idx)
{
	if (idx < 0 || idx >= MEMCG_NR_STAT)
		return 0;
	return clamp_state(READ_ONCE(memcg->vmstats->state_local[idx]));
}

unsigned long memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx)
{
	if ((int)idx < 0 || idx >= NR_VM_EVENT_ITEMS)
		return 0;
	return READ_ONCE(memcg->vmstats->events[idx]);
}

unsigned long memcg_events_local(struct mem_cgroup *memcg, enum vm_event_item idx)
{
	if ((int)idx < 0 || idx >= NR_VM_EVENT_ITEMS)
		return 0;
	return READ_ONCE(memcg->vmstats->events_local[idx]);
}

/*
 * ---------------------------------------------------------------------
 * Charging: the per-CPU stock
 *
 * Each CPU caches pre-charged pages for up to NR_MEMCG_STOCK memcgs, so
 * that most charges and refills touch no shared counter.  The owner
 * takes its stock lock with a trylock, as the kernel's local_trylock,
 * and on failure goes to the page counter directly; remote drainers take
 * it for real.  Every occupied slot holds a css reference, so a stock
 * never points at a freed memcg.
 * ---------------------------------------------------------------------
 */
struct memcg_stock_pcp {
	spinlock_t lock;
	u8 nr_pages[NR_MEMCG_STOCK];
	u8 evict_next;	/* round-robin victim; the kernel picks at random */
	struct mem_cgroup *cached[NR_MEMCG_STOCK];
};

static struct memcg_stock_pcp *memcg_stock;	/* alloc_percpu */

static void memcg_uncharge(struct mem_cgroup *memcg, unsigned long nr_pages)
{
	if (!mem_cgroup_is_root(memcg))
		page_counter_uncharge(&memcg->memory, nr_pages);
}

static bool consume_stock(struct mem_cgroup *memcg, unsigned int nr_pages, int cpu)
{
	struct memcg_stock_pcp *stock = per_cpu_ptr(memcg_stock, cpu);
	bool ret = false;
	int i;

	if (nr_pages > MEMCG_CHARGE_BATCH)
		return false;
	if (!spin_trylock_at(&stock->lock, LOCK_SITE("memcg_stock")))
		return false;
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		unsigned int stock_pages;

		if (READ_ONCE(stock->cached[i]) != memcg)
			continue;
		stock_pages = READ_ONCE(stock->nr_pages[i]);
		if (stock_pages >= nr_pages) {
			WRITE_ONCE(stock->nr_pages[i], (u8)(stock_pages - nr_pages));
			ret = true;
		}
		break;
	}
	spin_unlock(&stock->lock);
	return ret;
}

/* Return a slot's pages to its memcg and empty it; stock lock held. */
static void drain_stock(struct memcg_stock_pcp *stock, int i)
{
	struct mem_cgroup *old = READ_ONCE(stock->cached[i]);
	unsigned int stock_pages;

	if (!old)
		return;
	stock_pages = READ_ONCE(stock->nr_pages[i]);
	if (stock_pages) {
		memcg_uncharge(old, stock_pages);
		WRITE_ONCE(stock->nr_pages[i], (u8)0);
	}
	WRITE_ONCE(stock->cached[i], NULL);
	css_put(old);
}

static void refill_stock(struct mem_cgroup *memcg, unsigned int nr_pages, int cpu)
{
	struct memcg_stock_pcp *stock = per_cpu_ptr(memcg_stock, cpu);
	int i, empty_slot = -1;

	if (nr_pages > MEMCG_CHARGE_BATCH ||
	    !spin_trylock_at(&stock->lock, LOCK_SITE("memcg_stock"))) {
		memcg_uncharge(memcg, nr_pages);
		return;
	}
	for (i = 0; i < NR_MEMCG_STOCK; i++) {
		struct mem_cgroup *cached = READ_ONCE(stock->cached[i]);
		unsigned int stock_pages;

		if (!cached) {
			if (empty_slot < 0)
				empty_slot = i;
			continue;
		}
		if (cached != memcg)
			continue;
		stock_pages = READ_ONCE(stock->nr_pages[i]) + nr_pages;
		WRITE_ONCE(stock->nr_pages[i], (u8)stock_pages);
		/* a stock holds at most a batch: the rest goes back */
		if (stock_pages > MEMCG_CHARGE_BATCH)
			drain_stock(stock, i);
		goto out;
	}
	i = empty_slot;
	if (i < 0) {
		i = stock->evict_next;
		stock->evict_next = (u8)((i + 1) % NR_MEMCG_STOCK);
		drain_stock(stock, i);
	}
	css_get(memcg);
	WRITE_ONCE(stock->cached[i], memcg);
	WRITE_ONCE(stock->nr_pages[i], (u8)nr_pages);
out:
	spin_unlock(&stock->lock);
}

static bool mem_cgroup_is_descendant(struct mem_cgroup *memcg, struct mem_cgroup *root)
{
	for (; memcg; memcg = parent_mem_cgroup(memcg))
		if (memcg == root)
			return true;
	return false;
}

/*
 * Drain every CPU's slots that hold @root or a descendant (all slots for
 * NULL).  The kernel queues work on each CPU and skips the whole drain if
 * another one is running; here the drainer takes each CPU's stock lock
 * itself, so a drain always completes.
 */
static void drain_all_stock_memcg(struct mem_cgroup *root)
{
	int cpu, i;

	if (!memcg_stock)
		return;
	for_each_possible_cpu(cpu) {
		struct memcg_stock_pcp *stock = per_cpu_ptr(memcg_stock, cpu);

		spin_lock_at(&stock->lock, LOCK_SITE("memcg_stock"));
		for (i = 0; i < NR_MEMCG_STOCK; i++) {
			struct mem_cgroup *cached = READ_ONCE(stock->cached[i]);

			if (cached && (!root || mem_cgroup_is_descendant(cached, root)))
				drain_stock(stock, i);
		}
		spin_unlock(&stock->lock);
	}
}

void drain_all_stock(void)
{
	drain_all_stock_memcg(NULL);
}

unsigned long memcg_stock_pages(struct mem_cgroup *memcg)
{
	unsigned long pages = 0;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct memcg_stock_pcp *stock = per_cpu_ptr(memcg_stock, cpu);

		for (i = 0; i < NR_MEMCG_STOCK; i++)
			if (READ_ONCE(stock->cached[i]) == memcg)
				pages += READ_ONCE(stock->nr_pages[i]);
	}
	return pages;
}

/*
 * ---------------------------------------------------------------------
 * Charging: try_charge_memcg(), commit and uncharge
 * ---------------------------------------------------------------------
 */

/*
 * Charge @nr_pages to @memcg.  A model CPU charges a whole batch and
 * keeps the surplus in its stock; a thread without a per-CPU area has no
 * stock and charges exactly @nr_pages.
 */
int try_charge_memcg(struct mem_cgroup *memcg, unsigned int nr_pages)
{
	int cpu = smp_processor_id();
	unsigned int batch;
	struct page_counter *counter;
	struct mem_cgroup *mem_over_limit;
	int nr_retries = MAX_RECLAIM_RETRIES;
	unsigned long nr_reclaimed;
	bool drained = false;

	if (!memcg)
		memcg = root_mem_cgroup;
	if (mem_cgroup_is_root(memcg) || !nr_pages)
		return 0;
	batch = cpu >= 0 ? max_t(unsigned int, MEMCG_CHARGE_BATCH, nr_pages) : nr_pages;

retry:
	if (cpu >= 0 && consume_stock(memcg, nr_pages, cpu))
		return 0;
	if (page_counter_try_charge(&memcg->memory, batch, &counter))
		goto done_restock;

	mem_over_limit = container_of(counter, struct mem_cgroup, memory);
	/* the batch is an optimisation: never fail for its surplus */
	if (batch > nr_pages) {
		batch = nr_pages;
		goto retry;
	}

	memcg_memory_event(mem_over_limit, MEMCG_MAX);

	/*
	 * Reclaim from the subtree that is over its limit, then retry: at
	 * once if that made room, once more after the stocks are drained,
	 * again on any progress for a small charge, and MAX_RECLAIM_RETRIES
	 * times in all without progress.  Only a model CPU reclaims (it
	 * drains its own LRU batches); another thread just runs the ladder.
	 */
	nr_reclaimed = cpu >= 0 ?
		try_to_free_mem_cgroup_pages(mem_over_limit, nr_pages,
					     MEMCG_RECLAIM_MAY_SWAP, NULL) : 0;
	if (mem_cgroup_margin(mem_over_limit) >= nr_pages)
		goto retry;

	/* pages parked in other CPUs' stocks may be enough */
	if (!drained) {
		drain_all_stock_memcg(mem_over_limit);
		drained = true;
		goto retry;
	}
	if (nr_reclaimed && nr_pages <= (1U << PAGE_ALLOC_COSTLY_ORDER))
		goto retry;
	if (nr_retries--)
		goto retry;

	/*
	 * mem_cgroup_oom(): the kernel counts MEMCG_OOM (for orders up to
	 * PAGE_ALLOC_COSTLY_ORDER only) and runs the OOM killer, which the
	 * model has no tasks for.
	 */
	if (nr_pages <= (1U << PAGE_ALLOC_COSTLY_ORDER))
		memcg_memory_event(mem_over_limit, MEMCG_OOM);
	return -ENOMEM;

done_restock:
	if (batch > nr_pages)
		refill_stock(memcg, batch - nr_pages, cpu);
	return 0;
}

int mem_cgroup_charge(struct folio *folio, struct mem_cgroup *memcg)
{
	int ret;

	if (!memcg)
		memcg = root_mem_cgroup;
	if (folio_memcg(folio)) {
		memcg_warn("charging a folio that is charged already (to %s)",
			   folio_memcg(folio)->name);
		return -EINVAL;
	}
	ret = try_charge_memcg(memcg, (unsigned int)folio_nr_pages(folio));
	if (ret)
		return ret;
	/* commit_charge(): the folio pins the memcg until it is uncharged */
	css_get(memcg);
	WRITE_ONCE(folio->memcg_data, (unsigned long)memcg);
	return 0;
}

void mem_cgroup_uncharge(struct folio *folio)
{
	struct mem_cgroup *memcg = folio_memcg(folio);

	if (!memcg)
		return;
	WRITE_ONCE(folio->memcg_data, 0UL);
	memcg_uncharge(memcg, (unsigned long)folio_nr_pages(folio));
	/* last: this may be what lets the memcg go */
	css_put(memcg);
}

/*
 * One page_counter_uncharge() per run of folios of the same memcg.  The
 * run's references are dropped only after its uncharge, which still
 * needs the memcg.
 */
void mem_cgroup_uncharge_folios(struct folio_batch *folios)
{
	struct mem_cgroup *run = NULL;
	unsigned long nr_pages = 0;
	long refs = 0;
	unsigned int i;

	for (i = 0; i < folio_batch_count(folios); i++) {
		struct folio *folio = folios->folios[i];
		struct mem_cgroup *memcg = folio_memcg(folio);

		if (!memcg)
			continue;
		if (memcg != run) {
			if (run) {
				memcg_uncharge(run, nr_pages);
				css_put_many(run, refs);
			}
			run = memcg;
			nr_pages = 0;
			refs = 0;
		}
		nr_pages += (unsigned long)folio_nr_pages(folio);
		refs++;
		WRITE_ONCE(folio->memcg_data, 0UL);
	}
	if (run) {
		memcg_uncharge(run, nr_pages);
		css_put_many(run, refs);
	}
}

unsigned long mem_cgroup_usage(struct mem_cgroup *memcg)
{
	return page_counter_read(&memcg->memory);
}

int mem_cgroup_set_max(struct mem_cgroup *memcg, unsigned long max_pages)
{
	if (!memcg || mem_cgroup_is_root(memcg))
		return -EINVAL;
	if (max_pages > PAGE_COUNTER_MAX)
		max_pages = PAGE_COUNTER_MAX;
	__atomic_exchange_n(&memcg->memory.max, max_pages, __ATOMIC_SEQ_CST);
	if (mem_cgroup_usage(memcg) <= max_pages)
		return 0;
	drain_all_stock_memcg(memcg);
	/*
	 * memory_max_write: reclaim the excess, MAX_RECLAIM_RETRIES tries
	 * without progress.  The kernel then OOM-kills; the model has no
	 * tasks, so it counts the OOM and the limit stands over the usage.
	 */
	if (smp_processor_id() >= 0 && mem_cgroup_reclaim_to_max(memcg))
		return 0;
	if (mem_cgroup_usage(memcg) > max_pages)
		memcg_memory_event(memcg, MEMCG_OOM);
	if (mem_cgroup_usage(memcg) <= max_pages)
		return 0;
	return -EBUSY;
}

/*
 * ---------------------------------------------------------------------
 * The tree and the lifetime of a memcg
 * ---------------------------------------------------------------------
 */
static void memcg_lruvec_init(struct lruvec *lruvec, struct pglist_data *pgdat)
{
	enum lru_list lru;

	memset(lruvec, 0, sizeof(*lruvec));
	for_each_lru(lru)
		INIT_LIST_HEAD(&lruvec->lists[lru]);
	spin_lock_init(&lruvec->lru_lock);
	lruvec->pgdat = pgdat;
}

static void free_mem_cgroup_per_node_info(struct mem_cgroup_per_node *pn)
{
	if (!pn)
		return;
	free_percpu(pn->lruvec_stats_percpu);
	free(pn->lruvec_stats);
	pn_cache_free(pn);
}

static int alloc_mem_cgroup_per_node_info(struct mem_cgroup *memcg, int nid)
{
	struct mem_cgroup_per_node *pn = pn_cache_alloc();

	if (!pn)
		return -ENOMEM;
	pn->memcg = memcg;
	pn->lruvec_stats_percpu = alloc_percpu(struct lruvec_stats_percpu);
	pn->lruvec_stats = zalloc_aligned(sizeof(struct lruvec_stats));
	INIT_LIST_HEAD(&pn->objcg_list);
	memcg_lruvec_init(&pn->lruvec, NODE_DATA(nid));
	memcg->nodeinfo[nid] = pn;
	if (!pn->lruvec_stats_percpu || !pn->lruvec_stats)
		return -ENOMEM;
	return 0;
}

static void mem_cgroup_free(struct mem_cgroup *memcg)
{
	int nid;

	for_each_node(nid)
		free_mem_cgroup_per_node_info(memcg->nodeinfo[nid]);
	free_percpu(memcg->vmstats_percpu);
	free(memcg->vmstats);
	free_percpu(memcg->css_ref_percpu);
	free(memcg);
}

static struct mem_cgroup *mem_cgroup_alloc(struct mem_cgroup *parent, const char *name)
{
	struct mem_cgroup *memcg;
	int cpu, nid;

	memcg = zalloc_aligned(sizeof(*memcg) +
			       (size_t)nr_node_ids * sizeof(memcg->nodeinfo[0]));
	if (!memcg)
		return NULL;
	strcpy(memcg->name, name);
	memcg->parent = parent;
	INIT_LIST_HEAD(&memcg->children);
	INIT_LIST_HEAD(&memcg->sibling);
	/* the creator's reference, on top of the per-CPU mode bias */
	atomic_long_set(&memcg->refcnt, CSS_REF_BIAS + 1);
	page_counter_init(&memcg->memory, parent ? &parent->memory : NULL);

	memcg->css_ref_percpu = alloc_percpu(long);
	memcg->vmstats = zalloc_aligned(sizeof(struct memcg_vmstats));
	memcg->vmstats_percpu = alloc_percpu(struct memcg_vmstats_percpu);
	if (!memcg->css_ref_percpu || !memcg->vmstats || !memcg->vmstats_percpu)
		goto fail;
	for_each_possible_cpu(cpu) {
		struct memcg_vmstats_percpu *statc = per_cpu_ptr(memcg->vmstats_percpu, cpu);

		statc->vmstats = memcg->vmstats;
		statc->parent_pcpu = parent ? per_cpu_ptr(parent->vmstats_percpu, cpu) : NULL;
	}
	for_each_node(nid)
		if (alloc_mem_cgroup_per_node_info(memcg, nid))
			goto fail;
	return memcg;

fail:
	mem_cgroup_free(memcg);
	return NULL;
}

/* Lowest free id, as the kernel's xa_alloc; tree lock held. */
static int mem_cgroup_alloc_id(struct mem_cgroup *memcg)
{
	int id;

	for (id = 1; id <= MEM_CGROUP_ID_MAX; id++) {
		if (!memcg_ids[id]) {
			memcg->id = (unsigned short)id;
			return id;
		}
	}
	return -ENOSPC;
}

static bool memcg_name_valid(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strlen(name);
	return len > 0 && len < sizeof(((struct mem_cgroup *)0)->name) &&
		!strchr(name, '/');
}

struct mem_cgroup *mem_cgroup_create(struct mem_cgroup *parent, const char *name)
{
	struct mem_cgroup *memcg, *sib;
	int err;

	if (!parent)
		parent = root_mem_cgroup;
	if (!parent || !memcg_name_valid(name)) {
		errno = EINVAL;
		return NULL;
	}
	memcg = mem_cgroup_alloc(parent, name);
	if (!memcg) {
		errno = ENOMEM;
		return NULL;
	}

	pthread_mutex_lock(&memcg_tree_lock);
	err = ENOENT;
	if (!READ_ONCE(parent->online))
		goto fail;
	err = EEXIST;
	for_each_mem_cgroup_child(sib, parent)
		if (READ_ONCE(sib->online) && !strcmp(sib->name, name))
			goto fail;
	err = ENOSPC;
	if (mem_cgroup_alloc_id(memcg) < 0)
		goto fail;
	/* a child pins its parent: parent_pcpu and the page counter chain */
	css_get(parent);
	list_add_tail(&memcg->sibling, &parent->children);
	WRITE_ONCE(memcg->online, true);
	smp_store_release(&memcg_ids[memcg->id], memcg);
	pthread_mutex_unlock(&memcg_tree_lock);
	return memcg;

fail:
	pthread_mutex_unlock(&memcg_tree_lock);
	mem_cgroup_free(memcg);
	errno = err;
	return NULL;
}

struct mem_cgroup *mem_cgroup_from_id(unsigned short id)
{
	if (!id)
		return NULL;
	return smp_load_acquire(&memcg_ids[id]);
}

void mem_cgroup_offline(struct mem_cgroup *memcg)
{
	struct mem_cgroup *child;

	if (!memcg)
		return;
	if (mem_cgroup_is_root(memcg)) {
		memcg_warn("the root memcg cannot go offline", "");
		return;
	}
	pthread_mutex_lock(&memcg_tree_lock);
	if (!READ_ONCE(memcg->online)) {
		pthread_mutex_unlock(&memcg_tree_lock);
		return;
	}
	for_each_mem_cgroup_child(child, memcg) {
		if (READ_ONCE(child->online)) {
			pthread_mutex_unlock(&memcg_tree_lock);
			memcg_warn("%s has online children: not taken offline", memcg->name);
			return;
		}
	}
	WRITE_ONCE(memcg->online, false);
	pthread_mutex_unlock(&memcg_tree_lock);

	/*
	 * LRU folios stay on this memcg's lruvecs and keep their charges;
	 * each holds a reference, so the memcg lives on as a zombie until
	 * the last of them is freed.  Stats need no moving: the parent's
	 * hierarchical figures include them once flushed.
	 */
	drain_all_stock_memcg(memcg);
	__mem_cgroup_flush_stats(memcg, true);
	css_ref_kill(memcg);
	css_put(memcg);
}

static void mem_cgroup_free_rcu(struct rcu_head *head)
{
	struct mem_cgroup *memcg = container_of(head, struct mem_cgroup, rcu);
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);
	int cpu;

	/* pairs with the store in mem_cgroup_release(), for TSan */
	(void)smp_load_acquire(&memcg->released);
	/*
	 * Deltas that arrived after the last flush (RCU readers may update
	 * stats of a memcg they found under rcu_read_lock()) go to the
	 * parent's pending arrays, so hierarchical totals stay whole.
	 */
	pthread_mutex_lock(&memcg_rstat_lock);
	for_each_possible_cpu(cpu)
		memcg_flush_cpu(memcg, cpu);
	pthread_mutex_unlock(&memcg_rstat_lock);
	mem_cgroup_free(memcg);
	/* a parent freed in our wake is counted before we stop counting */
	css_put(parent);
	pthread_mutex_lock(&memcg_frees_lock);
	if (!--memcg_frees_pending)
		pthread_cond_broadcast(&memcg_frees_done);
	pthread_mutex_unlock(&memcg_frees_lock);
}

void mem_cgroup_wait_frees(void)
{
	pthread_mutex_lock(&memcg_frees_lock);
	while (memcg_frees_pending)
		pthread_cond_wait(&memcg_frees_done, &memcg_frees_lock);
	pthread_mutex_unlock(&memcg_frees_lock);
}

/* The refcount reached 0: nothing charges, caches or walks it any more. */
static void mem_cgroup_release(struct mem_cgroup *memcg)
{
	pthread_mutex_lock(&memcg_tree_lock);
	list_del_init(&memcg->sibling);
	smp_store_release(&memcg_ids[memcg->id], (struct mem_cgroup *)NULL);
	pthread_mutex_unlock(&memcg_tree_lock);
	smp_store_release(&memcg->released, true);
	pthread_mutex_lock(&memcg_frees_lock);
	memcg_frees_pending++;
	pthread_mutex_unlock(&memcg_frees_lock);
	call_rcu(&memcg->rcu, mem_cgroup_free_rcu);
}

/* Next in pre-order after @pos within @root's subtree; tree lock held. */
static struct mem_cgroup *memcg_next_pre(struct mem_cgroup *pos, struct mem_cgroup *root)
{
	if (!list_empty(&pos->children))
		return list_first_entry(&pos->children, struct mem_cgroup, sibling);
	while (pos != root) {
		struct mem_cgroup *parent = parent_mem_cgroup(pos);

		if (pos->sibling.next != &parent->children)
			return list_entry(pos->sibling.next, struct mem_cgroup, sibling);
		pos = parent;
	}
	return NULL;
}

struct mem_cgroup *mem_cgroup_iter(struct mem_cgroup *root, struct mem_cgroup *prev)
{
	struct mem_cgroup *pos = prev;

	if (!root)
		root = root_mem_cgroup;
	pthread_mutex_lock(&memcg_tree_lock);
	for (;;) {
		pos = pos ? memcg_next_pre(pos, root) : root;
		/* one whose count hit 0 waits for our lock to be unlinked */
		if (!pos || pos == root || css_tryget(pos))
			break;
	}
	pthread_mutex_unlock(&memcg_tree_lock);
	/* outside the lock: this put may release prev */
	if (prev && prev != root)
		css_put(prev);
	return pos;
}

void mem_cgroup_iter_break(struct mem_cgroup *root, struct mem_cgroup *prev)
{
	if (!root)
		root = root_mem_cgroup;
	if (prev && prev != root)
		css_put(prev);
}

int mem_cgroup_init(void)
{
	struct mem_cgroup *root;
	int cpu, nid;

	if (root_mem_cgroup)
		return -EBUSY;
	if (nr_cpu_ids < 1 || nr_node_ids < 1)
		return -EINVAL;
	for_each_node(nid)
		if (!NODE_DATA(nid))
			return -EINVAL;

	pn_cache_init();
	memcg_stock = alloc_percpu(struct memcg_stock_pcp);
	if (!memcg_stock)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		spin_lock_init(&per_cpu_ptr(memcg_stock, cpu)->lock);

	root = mem_cgroup_alloc(NULL, "/");
	if (!root) {
		free_percpu(memcg_stock);
		memcg_stock = NULL;
		pn_cache_destroy();
		return -ENOMEM;
	}
	/* the root is never freed by its refcount (CSS_NO_REF) */
	root->css_no_ref = true;
	memset(memcg_ids, 0, sizeof(memcg_ids));
	mem_cgroup_alloc_id(root);
	WRITE_ONCE(root->online, true);
	smp_store_release(&memcg_ids[root->id], root);
	WRITE_ONCE(flush_last_time, 0ULL);
	root_mem_cgroup = root;
	return 0;
}

static void mem_cgroup_free_tree(struct mem_cgroup *memcg)
{
	struct list_head *link = memcg->children.next;

	while (link != &memcg->children) {
		struct list_head *next = link->next;

		mem_cgroup_free_tree(list_entry(link, struct mem_cgroup, sibling));
		link = next;
	}
	mem_cgroup_free(memcg);
}

/*
 * Quiescent teardown.  Folios still charged keep dangling memcg_data
 * pointers: free them first, or do not look at them afterwards.
 */
void mem_cgroup_exit(void)
{
	if (!root_mem_cgroup)
		return;
	/* lrulab_exit() stops it first; a bare mem_cgroup_init() user may not */
	mem_cgroup_flusher_stop();
	drain_all_stock();
	mem_cgroup_wait_frees();
	mem_cgroup_free_tree(root_mem_cgroup);
	root_mem_cgroup = NULL;
	memset(memcg_ids, 0, sizeof(memcg_ids));
	free_percpu(memcg_stock);
	memcg_stock = NULL;
	pn_cache_destroy();
}

/*
 * ---------------------------------------------------------------------
 * LRU helpers
 * ---------------------------------------------------------------------
 */

/*
 * The exact, non-hierarchical list size.  Subtract before the check and
 * add after it, so that a removal that would go negative is caught
 * whatever the order of the caller's updates.
 */
void mem_cgroup_update_lru_size(struct lruvec *lruvec, enum lru_list lru,
				int zid, int nr_pages)
{
	struct mem_cgroup_per_node *pn = lruvec_pn(lruvec);
	unsigned long *lru_size = &pn->lru_zone_size[zid][lru];
	long size;

	if (nr_pages < 0)
		WRITE_ONCE(*lru_size, READ_ONCE(*lru_size) + nr_pages);
	size = (long)READ_ONCE(*lru_size);
	if (size < 0) {
		fprintf(stderr,
			"WARNING: mem_cgroup_update_lru_size(%p, %d, %d): lru_size %ld\n",
			(void *)lruvec, lru, nr_pages, size);
		WRITE_ONCE(*lru_size, 0UL);
	}
	if (nr_pages > 0)
		WRITE_ONCE(*lru_size, READ_ONCE(*lru_size) + nr_pages);
}

unsigned long lruvec_lru_size(struct lruvec *lruvec, enum lru_list lru, int zone_idx)
{
	struct mem_cgroup_per_node *pn = lruvec_pn(lruvec);
	unsigned long size = 0;
	int zid;

	for (zid = 0; zid <= zone_idx && zid < MAX_NR_ZONES; zid++)
		size += READ_ONCE(pn->lru_zone_size[zid][lru]);
	return size;
}

struct lruvec *parent_lruvec(struct lruvec *lruvec)
{
	struct mem_cgroup *parent = parent_mem_cgroup(lruvec_memcg(lruvec));

	if (!parent)
		return NULL;
	return mem_cgroup_lruvec(parent, lruvec_pgdat(lruvec));
}

struct lruvec *__folio_lruvec_lock(struct folio *folio, struct lock_site *site)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	spin_lock_at(&lruvec->lru_lock, site);
	return lruvec;
}

struct lruvec *__folio_lruvec_relock(struct folio *folio, struct lruvec *locked,
				     struct lock_site *site)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	if (lruvec == locked)
		return locked;
	if (locked)
		lruvec_unlock(locked);
	spin_lock_at(&lruvec->lru_lock, site);
	return lruvec;
}

void lruvec_unlock(struct lruvec *lruvec)
{
	spin_unlock(&lruvec->lru_lock);
}

/*
 * ---------------------------------------------------------------------
 * memory.stat and memory.events
 * ---------------------------------------------------------------------
 */
struct memory_stat {
	const char *name;
	int idx;
};

/* The kernel's order, less what the model does not have. */
static const struct memory_stat memory_stats[] = {
	{ "anon",			NR_ANON_MAPPED },
	{ "file",			NR_FILE_PAGES },
	{ "kernel",			MEMCG_KMEM },
	{ "percpu",			MEMCG_PERCPU_B },
	{ "sock",			MEMCG_SOCK },
	{ "shmem",			NR_SHMEM },
	{ "file_mapped",		NR_FILE_MAPPED },
	{ "file_dirty",			NR_FILE_DIRTY },
	{ "file_writeback",		NR_WRITEBACK },
	{ "swapcached",			NR_SWAPCACHE },
	{ "anon_thp",			NR_ANON_THPS },
	{ "inactive_anon",		NR_INACTIVE_ANON },
	{ "active_anon",		NR_ACTIVE_ANON },
	{ "inactive_file",		NR_INACTIVE_FILE },
	{ "active_file",		NR_ACTIVE_FILE },
	{ "unevictable",		NR_UNEVICTABLE },
	{ "workingset_refault_anon",	WORKINGSET_REFAULT_ANON },
	{ "workingset_refault_file",	WORKINGSET_REFAULT_FILE },
	{ "workingset_activate_anon",	WORKINGSET_ACTIVATE_ANON },
	{ "workingset_activate_file",	WORKINGSET_ACTIVATE_FILE },
	{ "workingset_restore_anon",	WORKINGSET_RESTORE_ANON },
	{ "workingset_restore_file",	WORKINGSET_RESTORE_FILE },
	{ "workingset_nodereclaim",	WORKINGSET_NODERECLAIM },
};

/* The vm events memory.stat shows, after the pgscan/pgsteal sums. */
static const enum vm_event_item memcg_vm_event_stat[] = {
	PSWPIN,
	PSWPOUT,
	PGSCAN_KSWAPD,
	PGSCAN_DIRECT,
	PGSTEAL_KSWAPD,
	PGSTEAL_DIRECT,
	PGFAULT,
	PGMAJFAULT,
	PGREFILL,
	PGACTIVATE,
	PGDEACTIVATE,
	PGLAZYFREE,
	PGLAZYFREED,
	THP_FAULT_ALLOC,
};

/* Workingset items are counted in pages but shown as event counts. */
static int memcg_page_state_output_unit(int idx)
{
	if (idx >= WORKINGSET_REFAULT_ANON && idx <= WORKINGSET_NODERECLAIM)
		return 1;
	return memcg_page_state_unit(idx);
}

void memory_stat_show(struct mem_cgroup *memcg, FILE *f)
{
	unsigned int i;

	if (!memcg)
		memcg = root_mem_cgroup;
	mem_cgroup_flush_stats(memcg);
	for (i = 0; i < ARRAY_SIZE(memory_stats); i++) {
		int idx = memory_stats[i].idx;

		fprintf(f, "%s %lu\n", memory_stats[i].name,
			memcg_page_state(memcg, idx) *
			(unsigned long)memcg_page_state_output_unit(idx));
	}
	fprintf(f, "pgscan %lu\n",
		memcg_events(memcg, PGSCAN_KSWAPD) + memcg_events(memcg, PGSCAN_DIRECT));
	fprintf(f, "pgsteal %lu\n",
		memcg_events(memcg, PGSTEAL_KSWAPD) + memcg_events(memcg, PGSTEAL_DIRECT));
	for (i = 0; i < ARRAY_SIZE(memcg_vm_event_stat); i++)
		fprintf(f, "%s %lu\n", vm_event_name(memcg_vm_event_stat[i]),
			memcg_events(memcg, memcg_vm_event_stat[i]));
}

void memory_events_show(struct mem_cgroup *memcg, FILE *f)
{
	if (!memcg)
		memcg = root_mem_cgroup;
	fprintf(f, "low %ld\n", atomic_long_read(&memcg->memory_events[MEMCG_LOW]));
	fprintf(f, "high %ld\n", atomic_long_read(&memcg->memory_events[MEMCG_HIGH]));
	fprintf(f, "max %ld\n", atomic_long_read(&memcg->memory_events[MEMCG_MAX]));
	fprintf(f, "oom %ld\n", atomic_long_read(&memcg->memory_events[MEMCG_OOM]));
	fprintf(f, "oom_kill %ld\n",
		atomic_long_read(&memcg->memory_events[MEMCG_OOM_KILL]));
}

/*
 * ---------------------------------------------------------------------
 * Layout description
 *
 * Written out once, by hand, with offsetof() for the numbers; the tests
 * check that it leaves no byte of either struct unexplained.  The uses
 * are those of the model's paths, the fault/free path's and reclaim's,
 * see enum memcg_layout_use.
 * ---------------------------------------------------------------------
 */
#define LRUVEC_FIELD(f, use)						\
	{ "", #f, NULL, offsetof(struct lruvec, f),			\
	  sizeof(((struct lruvec *)0)->f), (use) }
#define PN_FIELD(f, group, use)						\
	{ "", #f, #group, offsetof(struct mem_cgroup_per_node, f),	\
	  sizeof(((struct mem_cgroup_per_node *)0)->f), (use) }

const struct memcg_layout_field lruvec_layout[] = {
	LRUVEC_FIELD(lists, LAYOUT_LRU_LOCK_WRITE),
	LRUVEC_FIELD(lru_lock, LAYOUT_LRU_LOCK_WRITE),
	LRUVEC_FIELD(cost_lock, 0),
	/* set and cleared by a batch that holds lru_lock (lru-stat-batch) */
	LRUVEC_FIELD(lru_size_batch, LAYOUT_LRU_LOCK_WRITE),
	/* lru_note_cost_unlock_irq() adds to them under lru_lock */
	LRUVEC_FIELD(anon_cost, LAYOUT_LRU_LOCK_WRITE),
	LRUVEC_FIELD(file_cost, LAYOUT_LRU_LOCK_WRITE),
	/* vmstat-scan-cost: the reclaim side's, under cost_lock */
	LRUVEC_FIELD(cost, 0),
	/*
	 * Reclaim adds to it under lru_lock when it puts activated folios
	 * back (move_folios_to_lru), activations on access without it.
	 */
	LRUVEC_FIELD(nonresident_age, LAYOUT_LRU_LOCK_WRITE),
	LRUVEC_FIELD(refaults, 0),
	LRUVEC_FIELD(flags, 0),
	LRUVEC_FIELD(pgdat, LAYOUT_STAT_READ_LRUVEC),
};
const size_t lruvec_layout_nr = ARRAY_SIZE(lruvec_layout);

static const struct memcg_layout_field pn_layout[] = {
	PN_FIELD(memcg, memcg_pn_read_mostly, LAYOUT_STAT_READ_LRUVEC),
	PN_FIELD(lruvec_stats_percpu, memcg_pn_read_mostly, LAYOUT_STAT_READ),
	PN_FIELD(lruvec_stats, memcg_pn_read_mostly, 0),
	PN_FIELD(shrinker_info, memcg_pn_read_mostly, 0),
	PN_FIELD(objcg, memcg_pn_read_mostly, 0),
	/* stands for lruvec_layout[], placed at its offset */
	PN_FIELD(lruvec, memcg_pn_lruvec, 0),
	PN_FIELD(lru_zone_size, memcg_pn_write_hot, LAYOUT_LRU_LOCK_WRITE),
	PN_FIELD(_pad_odd_, memcg_pn_write_hot, 0),
	/* reclaim's, once per round of the memcg tree */
	PN_FIELD(iter, memcg_pn_write_hot, 0),
	PN_FIELD(orig_objcg, memcg_pn_cold, 0),
	PN_FIELD(objcg_list, memcg_pn_cold, 0),
};

static int layout_field_cmp(const void *a, const void *b)
{
	const struct memcg_layout_field *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	/* a zero-size field first, as it ends where the other starts */
	return (x->size > y->size) - (x->size < y->size);
}

size_t mem_cgroup_per_node_layout(struct memcg_layout_field *buf)
{
	size_t i, j, nr = 0;

	_Static_assert(ARRAY_SIZE(pn_layout) - 1 + ARRAY_SIZE(lruvec_layout) <=
		       MEMCG_PN_LAYOUT_MAX, "MEMCG_PN_LAYOUT_MAX too small");
	for (i = 0; i < ARRAY_SIZE(pn_layout); i++) {
		if (strcmp(pn_layout[i].name, "lruvec")) {
			buf[nr++] = pn_layout[i];
			continue;
		}
		for (j = 0; j < ARRAY_SIZE(lruvec_layout); j++) {
			buf[nr] = lruvec_layout[j];
			buf[nr].prefix = "lruvec.";
			buf[nr].group = pn_layout[i].group;
			buf[nr].offset += pn_layout[i].offset;
			nr++;
		}
	}
	qsort(buf, nr, sizeof(*buf), layout_field_cmp);
	return nr;
}

unsigned int memcg_layout_line_use(const struct memcg_layout_field *fields,
				   size_t nr, size_t line)
{
	size_t start = line * L1_CACHE_BYTES, end = start + L1_CACHE_BYTES;
	unsigned int use = 0;
	size_t i;

	for (i = 0; i < nr; i++)
		if (fields[i].size && fields[i].offset < end &&
		    fields[i].offset + fields[i].size > start)
			use |= fields[i].use;
	return use;
}
