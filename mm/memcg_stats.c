// SPDX-License-Identifier: MIT
/*
 * Memory cgroup statistics (mm/memcg_stats.c, split out of
 * memcontrol.c): per-CPU stat and event deltas, folded up the tree by an
 * rstat-style flush, the periodic flusher thread, the readers of the
 * flushed figures, and memory.stat and memory.events.
 *
 * Locks, outermost first: memcg_tree_lock (a flush walks the subtree
 * under it), memcg_rstat_lock (every aggregate and pending array).  The
 * flusher's own lock is never held across a flush.  Stat updates take no
 * lock, so they may be made under lru_lock or any other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <lrulab/gfp.h>
#include <lrulab/memcontrol.h>
#include <lrulab/rcupdate.h>
#include <lrulab/switches.h>
#include <lrulab/trace.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "memcontrol-internal.h"

static pthread_mutex_t memcg_rstat_lock = PTHREAD_MUTEX_INITIALIZER;

/* CLOCK_MONOTONIC ns of the last flush that started at the root */
u64 flush_last_time;
/*
 * The kernel's FLUSH_TIME: the flusher's period, which also sets how
 * stale a ratelimited reader may let the stats get (two periods).
 */
static u64 flush_period_ns = FLUSH_TIME_NS;

/* the kernel's jiffies: the model's clock (virtual under a trace replay) */
static u64 memcg_clock_ns(void)
{
	return lrulab_model_now_ns();
}

/*
 * ---------------------------------------------------------------------
 * Statistics: updates
 *
 * Per-CPU counters are written only by their CPU, as a plain load and
 * store (the kernel's this_cpu_add), and read by the flusher.  The stores
 * are releases and the flusher's loads acquires, for the same reason as
 * the css slots in memcontrol.c: the final flush before an RCU-deferred
 * free reads every counter, which orders every CPU's writes before the
 * free for ThreadSanitizer.
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
/*
 * The memcg's stats_updates is one atomic every CPU charged to the memcg
 * (or below it) adds to: a shared line, traced.  The batches a pending
 * flush holds back are not traced: that would cost every update, inside
 * lru_lock's holds too, and with N CPUs the atomic takes at most N + 1
 * batches a flush period anyway.  Out of line, so that the update path
 * stays what it is with no probe on.
 */
static __attribute__((noinline, cold))
void trace_spill(struct memcg_vmstats_percpu *statc, unsigned int updates)
{
	trace_memcg_batch(&statc->vmstats->stats_updates, updates);
}

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
		if (trace_on(memcg_batch))
			trace_spill(statc, updates);
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
static void __mod_memcg_node_state(struct mem_cgroup *memcg, int nid,
				   enum node_stat_item idx, int val)
{
	struct mem_cgroup_per_node *pn = memcg->nodeinfo[nid];
	int cpu = smp_processor_id();

	if (unlikely(cpu < 0)) {
		memcg_state_nocpu(memcg, nid, idx, val);
		return;
	}
	pcpu_add_long(&per_cpu_ptr(memcg->vmstats_percpu, cpu)->state[idx], val);
	pcpu_add_long(&per_cpu_ptr(pn->lruvec_stats_percpu, cpu)->state[idx], val);
	memcg_rstat_updated(memcg, memcg_state_weight(idx, val), cpu);
}

/*
 * The lines of mem_cgroup_per_node an update reads, whose 128-byte pair
 * partners a prefetching CPU fetches with them (a consumer works out the
 * partners from the addresses).  Out of line, so that the update path
 * stays what it is with no probe on.
 */
static __attribute__((noinline, cold))
void trace_pn_reads(const void *read_mostly, const void *pgdat)
{
	trace_pair_read(read_mostly);
	if (pgdat)
		trace_pair_read(pgdat);
}

/*
 * Not inside a section of the object's own lru_lock: the lines these
 * reads and their partners fall on are written, when at all, under that
 * lock (list heads, lru_zone_size[]), so such a read costs nothing; and
 * tracing it, or even calling to find that out, would lengthen the
 * traced holds (an LRU size update per folio).
 */
static inline bool pn_reads_traced(struct mem_cgroup_per_node *pn)
{
	return trace_on(pair_read) && trace_ring_self()->ctx_lock != &pn->lruvec.lru_lock;
}

static void mod_memcg_node_state(struct mem_cgroup *memcg, int nid,
				 enum node_stat_item idx, int val)
{
	if (pn_reads_traced(memcg->nodeinfo[nid]))
		trace_pn_reads(&memcg->nodeinfo[nid]->lruvec_stats_percpu, NULL);
	__mod_memcg_node_state(memcg, nid, idx, val);
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
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	int nid = lruvec_pgdat(lruvec)->node_id;

	if (pn_reads_traced(lruvec_pn(lruvec)))
		trace_pn_reads(&lruvec_pn(lruvec)->memcg, &lruvec->pgdat);
	__mod_memcg_node_state(memcg, nid, idx, val);
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

void __mem_cgroup_flush_stats(struct mem_cgroup *memcg, bool force)
{
	if (!force && !memcg_vmstats_needs_flush(memcg->vmstats))
		return;
	if (mem_cgroup_is_root(memcg))
		WRITE_ONCE(flush_last_time, memcg_clock_ns());
	mutex_lock_sleep(&memcg_tree_lock);
	mutex_lock_sleep(&memcg_rstat_lock);
	memcg_flush_subtree(memcg);
	pthread_mutex_unlock(&memcg_rstat_lock);
	pthread_mutex_unlock(&memcg_tree_lock);
}

/* Before an RCU-deferred free: this memcg's deltas only, to its parent. */
void memcg_flush_dying(struct mem_cgroup *memcg)
{
	int cpu;

	mutex_lock_sleep(&memcg_rstat_lock);
	for_each_possible_cpu(cpu)
		memcg_flush_cpu(memcg, cpu);
	pthread_mutex_unlock(&memcg_rstat_lock);
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
	mutex_lock_sleep(&flusher.lock);
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
		mutex_lock_sleep(&flusher.lock);
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
	mutex_lock_sleep(&flusher.lock);
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
	mutex_lock_sleep(&flusher.lock);
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

	mutex_lock_sleep(&flusher.lock);
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
	{ "pgsteal_kswapd",		PGSTEAL_KSWAPD },
	{ "pgsteal_direct",		PGSTEAL_DIRECT },
	{ "pgsteal_proactive",		PGSTEAL_PROACTIVE },
	{ "pgscan_kswapd",		PGSCAN_KSWAPD },
	{ "pgscan_direct",		PGSCAN_DIRECT },
	{ "pgscan_proactive",		PGSCAN_PROACTIVE },
	{ "pgrefill",			PGREFILL },
};

/* The vm events memory.stat shows, after the pgscan/pgsteal sums. */
static const enum vm_event_item memcg_vm_event_stat[] = {
	PSWPIN,
	PSWPOUT,
	PGFAULT,
	PGMAJFAULT,
	PGACTIVATE,
	PGDEACTIVATE,
	PGLAZYFREE,
	PGLAZYFREED,
	THP_FAULT_ALLOC,
	THP_SWPOUT_FALLBACK,
};

/*
 * Workingset items are counted in pages but shown as event counts, and
 * so are the reclaim counters (pages, as the global ones).
 */
static int memcg_page_state_output_unit(int idx)
{
	if (idx >= WORKINGSET_REFAULT_ANON && idx <= WORKINGSET_NODERECLAIM)
		return 1;
	if ((idx >= PGSTEAL_KSWAPD && idx <= PGSCAN_FILE) || idx == PGREFILL)
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
		memcg_page_state(memcg, PGSCAN_KSWAPD) + memcg_page_state(memcg, PGSCAN_DIRECT) +
		memcg_page_state(memcg, PGSCAN_PROACTIVE));
	fprintf(f, "pgsteal %lu\n",
		memcg_page_state(memcg, PGSTEAL_KSWAPD) + memcg_page_state(memcg, PGSTEAL_DIRECT) +
		memcg_page_state(memcg, PGSTEAL_PROACTIVE));
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
