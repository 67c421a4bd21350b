// SPDX-License-Identifier: MIT
/*
 * Memory cgroup charging (mm/memcg_charge.c, split out of memcontrol.c):
 * the page counters (the kernel's mm/page_counter.c), the per-CPU charge
 * stock, try_charge_memcg() with its reclaim and retry ladder, commit
 * and uncharge, and memory.max.
 *
 * Locks: a CPU's stock lock, the outermost of the memcg locks, since a
 * drain drops a slot's css reference under it and the last put takes
 * memcg_tree_lock to unlink the memcg (the whole order is in
 * mm/memcontrol.c).  Page counters take no lock, and reclaim, from
 * try_charge_memcg() and mem_cgroup_set_max(), runs with none held.
 */
#include <errno.h>
#include <stdio.h>

#include <lrulab/memcontrol.h>
#include <lrulab/workqueue.h>
#include <lrulab/swap.h>
#include <lrulab/trace.h>
#include <lrulab/vmscan.h>

#include "memcontrol-internal.h"

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

/*
 * A counter's usage is one atomic that every CPU charging the memcg or a
 * descendant writes, when its stock runs out and when it uncharges freed
 * folios: a shared line, traced.  Out of line, so that the charge path
 * stays what it is with no probe on.
 */
static __attribute__((noinline, cold)) void trace_usage(struct page_counter *counter)
{
	trace_page_counter(&counter->usage);
}

static void page_counter_cancel(struct page_counter *counter, unsigned long nr_pages)
{
	long new = atomic_long_sub_return(nr_pages, &counter->usage);

	if (trace_on(page_counter))
		trace_usage(counter);

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

		if (trace_on(page_counter))
			trace_usage(c);
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
 * Charging: the per-CPU stock
 *
 * Each CPU caches pre-charged pages for up to NR_MEMCG_STOCK memcgs, so
 * that most charges and refills touch no shared counter.  A stock is
 * per-CPU data: only its CPU touches it (the local_trylock, as the
 * kernel's, always succeeds outside interrupts), and other CPUs' stocks
 * are drained by work queued on them.  Every occupied slot holds a css
 * reference, so a stock never points at a freed memcg.
 * ---------------------------------------------------------------------
 */
struct memcg_stock_pcp {
	local_lock_t lock;
	u8 nr_pages[NR_MEMCG_STOCK];
	u8 evict_next;	/* round-robin victim; the kernel picks at random */
	struct mem_cgroup *cached[NR_MEMCG_STOCK];
};

static struct memcg_stock_pcp *memcg_stock;	/* alloc_percpu */

int memcg_stock_init(void)
{
	int cpu;

	memcg_stock = alloc_percpu(struct memcg_stock_pcp);
	if (!memcg_stock)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(memcg_stock, cpu)->lock);
	return 0;
}

/* After drain_all_stock(), or before any charge: no slot holds a memcg. */
void memcg_stock_free(void)
{
	free_percpu(memcg_stock);
	memcg_stock = NULL;
}

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
	if (!local_trylock(&stock->lock))
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
	local_unlock(&stock->lock);
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

	if (nr_pages > MEMCG_CHARGE_BATCH || !local_trylock(&stock->lock)) {
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
	local_unlock(&stock->lock);
}

static bool mem_cgroup_is_descendant(struct mem_cgroup *memcg, struct mem_cgroup *root)
{
	for (; memcg; memcg = parent_mem_cgroup(memcg))
		if (memcg == root)
			return true;
	return false;
}

struct stock_drain_work {
	struct work_struct work;
	struct mem_cgroup *root;
};

static bool stock_slot_matches(struct mem_cgroup *cached, struct mem_cgroup *root)
{
	return cached && (!root || mem_cgroup_is_descendant(cached, root));
}

static void drain_local_stock(struct work_struct *work)
{
	struct stock_drain_work *w = container_of(work, struct stock_drain_work, work);
	struct memcg_stock_pcp *stock = this_cpu_ptr(memcg_stock);
	int i;

	local_lock(&stock->lock);
	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (stock_slot_matches(READ_ONCE(stock->cached[i]), w->root))
			drain_stock(stock, i);
	local_unlock(&stock->lock);
}

/*
 * Whether another CPU's stock caches anything at all.  The kernel also
 * checks, under rcu_read_lock(), that the cached memcg is under the
 * drained one; the pointer alone is read here and the check is left to
 * the work, which runs on the owner, where the slot cannot change under
 * it.  A slot filled right after the peek holds a charge made after the
 * drain began.
 */
static bool stock_needs_drain(int cpu)
{
	struct memcg_stock_pcp *stock = per_cpu_ptr(memcg_stock, cpu);
	int i;

	for (i = 0; i < NR_MEMCG_STOCK; i++)
		if (READ_ONCE(stock->cached[i]))
			return true;
	return false;
}

/*
 * Drain every CPU's slots that hold @root or a descendant (all slots for
 * NULL): work queued on each CPU whose stock holds one, run there.  The
 * kernel queues the work without waiting and skips the whole drain if
 * another one is running; here the caller waits for every CPU, so that
 * a retry after the drain sees the pages it freed.
 */
void drain_all_stock_memcg(struct mem_cgroup *root)
{
	struct stock_drain_work works[LRULAB_MAX_CPUS];
	int cpu;

	if (!memcg_stock)
		return;
	for_each_possible_cpu(cpu) {
		INIT_WORK(&works[cpu].work, drain_local_stock);
		works[cpu].root = root;
		if (stock_needs_drain(cpu))
			queue_work_on(cpu, &works[cpu].work);
	}
	for_each_possible_cpu(cpu)
		flush_work(&works[cpu].work);
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
	if (folio_memcg_charged(folio)) {
		memcg_warn("charging a folio that is charged already (to %s)",
			   folio_memcg_charged(folio)->name);
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
	struct mem_cgroup *memcg = folio_memcg_charged(folio);

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
		struct mem_cgroup *memcg = folio_memcg_charged(folio);

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

/*
 * ---------------------------------------------------------------------
 * The charge path's room and memory.max writes' reclaim
 * ---------------------------------------------------------------------
 */

unsigned long mem_cgroup_margin(struct mem_cgroup *memcg)
{
	unsigned long margin = PAGE_COUNTER_MAX;

	for (; memcg && !mem_cgroup_is_root(memcg); memcg = parent_mem_cgroup(memcg)) {
		unsigned long count = page_counter_read(&memcg->memory);
		unsigned long limit = READ_ONCE(memcg->memory.max);
		unsigned long m = count < limit ? limit - count : 0;

		if (m < margin)
			margin = m;
	}
	return margin;
}

bool mem_cgroup_reclaim_to_max(struct mem_cgroup *memcg)
{
	int nr_reclaims = MAX_RECLAIM_RETRIES;

	for (;;) {
		unsigned long nr_pages = page_counter_read(&memcg->memory);
		unsigned long max = READ_ONCE(memcg->memory.max);

		if (nr_pages <= max)
			return true;
		if (nr_reclaims) {
			if (!try_to_free_mem_cgroup_pages(memcg, nr_pages - max,
							  MEMCG_RECLAIM_MAY_SWAP, NULL))
				nr_reclaims--;
			continue;
		}
		return false;
	}
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
