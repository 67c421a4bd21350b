// SPDX-License-Identifier: MIT
/*
 * Per-CPU folio batches and batched release (the kernel's mm/swap.c).
 *
 * A folio entering or moving on the LRU is queued in this CPU's batch and
 * the batch is applied under one lru_lock hold per run of folios that share
 * a lruvec.  The batches are per-CPU data of a kernel without PREEMPT_RT:
 * the local lock costs nothing, and lru_add_drain_all() queues a drain on
 * each CPU that needs one and waits for them (lib/workqueue.c).
 *
 * mthp-lru-cache (s4) lets folios of fewer than FOLIO_BATCH_SIZE pages
 * wait in the batches too, and then drains a batch once it holds more
 * than FOLIO_BATCH_SIZE pages, whatever its folio count.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/mmdebug.h>
#include <lrulab/cpu.h>
#include <lrulab/gfp.h>
#include <lrulab/huge_mm.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mm.h>
#include <lrulab/mm_inline.h>
#include <lrulab/pagemap.h>
#include <lrulab/rcupdate.h>
#include <lrulab/switches.h>
#include <lrulab/swap.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

typedef void (*move_fn_t)(struct lruvec *lruvec, struct folio *folio);

struct cpu_fbatches {
	local_lock_t lock;
	struct folio_batch lru_add;
	struct folio_batch lru_deactivate_file;
	struct folio_batch lru_deactivate;
	struct folio_batch lru_lazyfree;
	struct folio_batch lru_activate;
	/* the rotate batch is filled from writeback completion (IRQs) */
	local_lock_t lock_irq;
	struct folio_batch lru_move_tail;
	/* written by the owning CPU only; see lru_drain_stats_read() */
	unsigned long nr_drain_local;
	unsigned long nr_drain_all;
	unsigned long nr_drain_all_ns;
	unsigned long nr_drain_all_works;
};

static struct cpu_fbatches *cpu_fbatches;
static atomic_t lru_disable_count;
static pthread_mutex_t lru_drain_mutex = PTHREAD_MUTEX_INITIALIZER;
static unsigned int lru_drain_gen;
/* drains of all CPUs started by threads that are not model CPUs */
static atomic_long_t lru_drain_all_nocpu, lru_drain_all_nocpu_ns;
static atomic_long_t lru_drain_all_nocpu_works;
/* the kernel's per-CPU lru_add_drain_work; only drainers touch it */
static struct work_struct lru_add_drain_work[LRULAB_MAX_CPUS];

int lru_batches_init(void)
{
	int cpu;

	cpu_fbatches = alloc_percpu(struct cpu_fbatches);
	if (!cpu_fbatches)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct cpu_fbatches *fb = per_cpu_ptr(cpu_fbatches, cpu);

		local_lock_init(&fb->lock);
		local_lock_init(&fb->lock_irq);
	}
	atomic_set(&lru_disable_count, 0);
	atomic_long_set(&lru_drain_all_nocpu, 0);
	atomic_long_set(&lru_drain_all_nocpu_ns, 0);
	atomic_long_set(&lru_drain_all_nocpu_works, 0);
	lru_drain_gen = 0;
	if (deferred_split_init()) {
		free_percpu(cpu_fbatches);
		cpu_fbatches = NULL;
		return -ENOMEM;
	}
	return 0;
}

void lru_batches_exit(void)
{
	deferred_split_exit();
	free_percpu(cpu_fbatches);
	cpu_fbatches = NULL;
}

/* ---- lru_lock with the LRU size stats deferred past the unlock (s0) ---- */

/*
 * With lru-stat-batch on, a batch is attached to the lruvec while its
 * lru_lock is held; __update_lru_size() accumulates into it and the stats
 * are applied here, after the unlock but still inside the RCU read section
 * taken at lock time, which keeps the lruvec's memcg alive.
 */
static void lruvec_unlock_batched(struct lruvec *lruvec, struct lru_size_batch *batch)
{
	enum lru_list lru;

	if (!batch) {
		lruvec_unlock(lruvec);
		return;
	}
	lruvec->lru_size_batch = NULL;
	lruvec_unlock(lruvec);
	for_each_lru(lru) {
		long nr_pages = batch->nr_pages[lru];

		if (!nr_pages)
			continue;
		mod_lruvec_state(lruvec, NR_LRU_BASE + lru, nr_pages);
		batch->nr_pages[lru] = 0;
		trace_lru_stat_deferred();
	}
	rcu_read_unlock();
}

static struct lruvec *folio_lruvec_relock_batched(struct folio *folio,
						    struct lruvec *locked,
						    struct lru_size_batch *batch,
						    struct lock_site *site)
{
	struct lruvec *lruvec = folio_lruvec(folio);

	if (lruvec == locked)
		return locked;
	if (locked)
		lruvec_unlock_batched(locked, batch);
retry:
	if (batch)
		rcu_read_lock();
	spin_lock_at(&lruvec->lru_lock, site);
	/* reparented meanwhile (memcg offline): the parent's lock, then */
	if (unlikely(folio_lruvec(folio) != lruvec)) {
		spin_unlock(&lruvec->lru_lock);
		if (batch)
			rcu_read_unlock();
		lruvec = folio_lruvec(folio);
		goto retry;
	}
	lruvec->lru_size_batch = batch;
	return lruvec;
}

/*
 * The lock sites of this file, named as `perf lock contention` shows them
 * on a v7 kernel: a batch moved because it filled up is
 * folio_batch_move_lru's, one moved by a drain is lru_add_drain_cpu's
 * (the s1 mail's lru_add_drain_cpu+0x34), and folios freed in
 * folios_put_refs() or __folio_put() are __page_cache_release's, the
 * out-of-line function that takes the lock for both (perf on this
 * kernel: __page_cache_release.part.0).
 */
#define SITE_BATCH_FULL	LOCK_SITE_AT("lru_lock", "folio_batch_move_lru", "folio_batch_move_lru")
#define SITE_DRAIN	LOCK_SITE_AT("lru_lock", "lru_add_drain_cpu", "lru_add_drain_cpu")
#define SITE_PUT_REFS	LOCK_SITE_AT("lru_lock", "__page_cache_release", "folios_put_refs")
#define SITE_FOLIO_PUT	LOCK_SITE_AT("lru_lock", "__page_cache_release", "__folio_put")

static struct lru_size_batch *lru_size_batch_get(struct lru_size_batch *b)
{
	if (!lrulab_switch_on(SW_LRU_STAT_BATCH))
		return NULL;
	memset(b, 0, sizeof(*b));
	return b;
}

static struct cpu_fbatches *this_cpu_fbatches(const char *fn)
{
	if (unlikely(smp_processor_id() < 0)) {
		fprintf(stderr, "lrulab: %s called from a thread that is not a model CPU\n", fn);
		abort();
	}
	return this_cpu_ptr(cpu_fbatches);
}

bool lru_cache_disabled(void)
{
	return atomic_read(&lru_disable_count) != 0;
}

/* ---- move functions, all under the folio's lru_lock ---- */

static void lru_add(struct lruvec *lruvec, struct folio *folio)
{
	bool was_unevictable = folio_test_clear_unevictable(folio);
	long nr_pages = folio_nr_pages(folio);

	if (folio_evictable(folio)) {
		if (was_unevictable)
			__count_vm_events(UNEVICTABLE_PGRESCUED, nr_pages);
	} else {
		folio_clear_active(folio);
		folio_set_unevictable(folio);
		if (!was_unevictable)
			__count_vm_events(UNEVICTABLE_PGCULLED, nr_pages);
	}
	lruvec_add_folio(lruvec, folio);
}

static void lru_move_tail(struct lruvec *lruvec, struct folio *folio)
{
	if (folio_test_unevictable(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear_active(folio);
	lruvec_add_folio_tail(lruvec, folio);
	__count_vm_events(PGROTATED, folio_nr_pages(folio));
}

static void lru_activate(struct lruvec *lruvec, struct folio *folio)
{
	long nr_pages = folio_nr_pages(folio);

	if (folio_test_active(folio) || folio_test_unevictable(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_set_active(folio);
	lruvec_add_folio(lruvec, folio);
	__count_vm_events(PGACTIVATE, nr_pages);
	count_memcg_events(lruvec_memcg(lruvec), PGACTIVATE, nr_pages);
}

static void lru_deactivate_file(struct lruvec *lruvec, struct folio *folio)
{
	/* under MGLRU every deactivation leaves the young generations */
	bool active = folio_test_active(folio) || lru_gen_enabled();
	long nr_pages = folio_nr_pages(folio);

	if (folio_test_unevictable(folio) || folio_mapped(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear_active(folio);
	folio_clear_referenced(folio);
	if (folio_test_writeback(folio) || folio_test_dirty(folio)) {
		/* the flusher writes it; completion rotates it to the tail */
		lruvec_add_folio(lruvec, folio);
		folio_set_reclaim(folio);
	} else {
		lruvec_add_folio_tail(lruvec, folio);
		__count_vm_events(PGROTATED, nr_pages);
	}
	if (active) {
		__count_vm_events(PGDEACTIVATE, nr_pages);
		count_memcg_events(lruvec_memcg(lruvec), PGDEACTIVATE, nr_pages);
	}
}

static void lru_deactivate(struct lruvec *lruvec, struct folio *folio)
{
	long nr_pages = folio_nr_pages(folio);

	if (folio_test_unevictable(folio) ||
	    !(folio_test_active(folio) || lru_gen_enabled()))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear_active(folio);
	folio_clear_referenced(folio);
	lruvec_add_folio(lruvec, folio);
	__count_vm_events(PGDEACTIVATE, nr_pages);
	count_memcg_events(lruvec_memcg(lruvec), PGDEACTIVATE, nr_pages);
}

static void lru_lazyfree(struct lruvec *lruvec, struct folio *folio)
{
	long nr_pages = folio_nr_pages(folio);

	if (!folio_test_anon(folio) || !folio_test_swapbacked(folio) ||
	    folio_test_swapcache(folio) || folio_test_unevictable(folio))
		return;
	lruvec_del_folio(lruvec, folio);
	folio_clear_active(folio);
	if (lru_gen_enabled())
		lru_gen_clear_refs(folio);
	else
		folio_clear_referenced(folio);
	/* a clean lazyfree folio is reclaimed like page cache: file LRU */
	folio_clear_swapbacked(folio);
	lruvec_add_folio(lruvec, folio);
	__count_vm_events(PGLAZYFREE, nr_pages);
	count_memcg_events(lruvec_memcg(lruvec), PGLAZYFREE, nr_pages);
}

/* ---- applying a batch ---- */

/*
 * A folio whose last reference other than the batch's was dropped while
 * it waited (a page faulted and freed within one batch) has nothing to do
 * on the LRU: since v7.2 the kernel freezes its count and frees it with
 * the others, no lru_lock for it.  Flags a freed folio must not carry
 * are cleared here, as the LRU release would have.
 */
static bool lru_add_folio_dead(struct folio *folio)
{
	if (!folio_ref_freeze(folio, 1))
		return false;
	__folio_clear_active(folio);
	__folio_clear_unevictable(folio);
	if (folio_test_large(folio))
		folio_unqueue_deferred_split(folio);
	return true;
}

static void folio_batch_move_lru(struct folio_batch *fbatch, move_fn_t move_fn,
				 struct lock_site *site)
{
	struct lru_size_batch stat_batch, *batch = lru_size_batch_get(&stat_batch);
	struct folio_batch dead;
	struct lruvec *lruvec = NULL;
	unsigned int i, j;

	folio_batch_init(&dead);
	for (i = 0, j = 0; i < folio_batch_count(fbatch); i++) {
		struct folio *folio = fbatch->folios[i];

		/* someone isolated it since it was queued: drop the op */
		if (move_fn != lru_add && !folio_test_clear_lru(folio)) {
			fbatch->folios[j++] = folio;
			continue;
		}
		if (move_fn == lru_add && lru_add_folio_dead(folio)) {
			folio_batch_add(&dead, folio);
			continue;
		}
		lruvec = folio_lruvec_relock_batched(folio, lruvec, batch, site);
		move_fn(lruvec, folio);
		folio_set_lru(folio);
		fbatch->folios[j++] = folio;
	}
	if (lruvec)
		lruvec_unlock_batched(lruvec, batch);
	if (folio_batch_count(&dead)) {
		mem_cgroup_uncharge_folios(&dead);
		free_unref_folios(&dead);
	}
	fbatch->nr = j;
	folios_put(fbatch);
}

static void __folio_batch_add_and_move(size_t batch_off, struct folio *folio,
				       move_fn_t move_fn, bool disable_irq)
{
	struct cpu_fbatches *fb = this_cpu_fbatches(__func__);
	local_lock_t *lock = disable_irq ? &fb->lock_irq : &fb->lock;
	struct folio_batch *fbatch = (struct folio_batch *)((char *)fb + batch_off);
	unsigned int space;

	folio_get(folio);
	local_lock(lock);
	if (lrulab_switch_on(SW_MTHP_LRU_CACHE))
		space = folio_batch_add_lru_cache(fbatch, folio);
	else
		space = folio_batch_add(fbatch, folio);
	if (!space || !folio_may_be_lru_cached(folio) || lru_cache_disabled())
		folio_batch_move_lru(fbatch, move_fn, SITE_BATCH_FULL);
	local_unlock(lock);
}

#define folio_batch_add_and_move(folio, op, irq) \
	__folio_batch_add_and_move(offsetof(struct cpu_fbatches, op), folio, op, irq)

void folio_add_lru(struct folio *folio)
{
	VM_BUG_ON_FOLIO(folio_test_active(folio) && folio_test_unevictable(folio), folio);
	if (folio_test_lru(folio)) {
		fprintf(stderr, "BUG: folio_add_lru: pfn %lu already on the LRU\n",
			folio_pfn(folio));
		abort();
	}
	/*
	 * MGLRU, in a fault: a refaulted workingset folio goes to the young
	 * generations, any other counts as accessed once (PG_referenced:
	 * max_seq - 2 unless anon).  Faults never run with PF_MEMALLOC in
	 * the model (reclaim does not fault), so that test is left out.
	 */
	if (lru_gen_enabled() && !folio_test_unevictable(folio) && lru_gen_in_fault()) {
		if (folio_test_workingset(folio))
			folio_set_active(folio);
		else if (!folio_test_referenced(folio))
			folio_mark_accessed(folio);
	}
	folio_batch_add_and_move(folio, lru_add, false);
}

void folio_add_lru_vma(struct folio *folio, void *vma)
{
	folio_add_lru(folio);
}

void folio_rotate_reclaimable(struct folio *folio)
{
	if (folio_test_locked(folio) || folio_test_dirty(folio) ||
	    folio_test_unevictable(folio) || !folio_test_lru(folio))
		return;
	folio_batch_add_and_move(folio, lru_move_tail, true);
}

void folio_activate(struct folio *folio)
{
	if (folio_test_active(folio) || folio_test_unevictable(folio) ||
	    !folio_test_lru(folio))
		return;
	folio_batch_add_and_move(folio, lru_activate, false);
}

void deactivate_file_folio(struct folio *folio)
{
	if (folio_test_unevictable(folio) || !folio_test_lru(folio))
		return;
	/* already the oldest generation: clearing its refs was enough */
	if (lru_gen_enabled() && lru_gen_clear_refs(folio))
		return;
	folio_batch_add_and_move(folio, lru_deactivate_file, false);
}

void folio_deactivate(struct folio *folio)
{
	if (folio_test_unevictable(folio) || !folio_test_lru(folio))
		return;
	if (lru_gen_enabled() ? lru_gen_clear_refs(folio) : !folio_test_active(folio))
		return;
	folio_batch_add_and_move(folio, lru_deactivate, false);
}

void folio_mark_lazyfree(struct folio *folio)
{
	if (!folio_test_anon(folio) || !folio_test_swapbacked(folio) ||
	    !folio_test_lru(folio) || folio_test_swapcache(folio) ||
	    folio_test_unevictable(folio))
		return;
	folio_batch_add_and_move(folio, lru_lazyfree, false);
}

/*
 * A folio not yet on the LRU may sit in this CPU's lru_add batch: mark it
 * active there so lru_add() puts it on the active list.  Only the local
 * batch is searched, as in the kernel.
 */
static void __lru_cache_activate_folio(struct folio *folio)
{
	struct cpu_fbatches *fb = this_cpu_fbatches(__func__);
	struct folio_batch *fbatch;
	int i;

	local_lock(&fb->lock);
	fbatch = &fb->lru_add;
	for (i = folio_batch_count(fbatch) - 1; i >= 0; i--) {
		if (fbatch->folios[i] == folio) {
			folio_set_active(folio);
			break;
		}
	}
	local_unlock(&fb->lock);
}

static void workingset_activation(struct folio *folio)
{
	struct mem_cgroup *memcg = folio_memcg(folio);
	struct lruvec *lruvec;

	/* activations age the workingset clock of the lruvec and its parents */
	for (lruvec = mem_cgroup_lruvec(memcg, folio_pgdat(folio)); lruvec;
	     lruvec = parent_lruvec(lruvec))
		atomic_long_add(folio_nr_pages(folio), &lruvec->nonresident_age);
}

void folio_mark_accessed(struct folio *folio)
{
	if (folio_test_dropbehind(folio))
		return;
	/* MGLRU: a tier up, never a generation (see lru_gen_inc_refs()) */
	if (lru_gen_enabled()) {
		lru_gen_inc_refs(folio);
		return;
	}
	if (!folio_test_referenced(folio)) {
		folio_set_referenced(folio);
	} else if (folio_test_unevictable(folio)) {
		/* unevictable folios are never activated */
	} else if (!folio_test_active(folio)) {
		if (folio_test_lru(folio))
			folio_activate(folio);
		else
			__lru_cache_activate_folio(folio);
		folio_clear_referenced(folio);
		workingset_activation(folio);
	}
}

/* ---- draining ---- */

static void drain_batch(struct folio_batch *fbatch, move_fn_t move_fn)
{
	if (folio_batch_count(fbatch))
		folio_batch_move_lru(fbatch, move_fn, SITE_DRAIN);
}

/* Runs on the CPU that owns @fb: its batches have no other writer. */
static void __lru_add_drain_cpu(struct cpu_fbatches *fb)
{
	drain_batch(&fb->lru_add, lru_add);
	local_lock(&fb->lock_irq);
	drain_batch(&fb->lru_move_tail, lru_move_tail);
	local_unlock(&fb->lock_irq);
	drain_batch(&fb->lru_deactivate_file, lru_deactivate_file);
	drain_batch(&fb->lru_deactivate, lru_deactivate);
	drain_batch(&fb->lru_lazyfree, lru_lazyfree);
	drain_batch(&fb->lru_activate, lru_activate);
}

static unsigned int fbatches_pages(struct cpu_fbatches *fb)
{
	return fb->lru_add.nr_pages + fb->lru_deactivate_file.nr_pages +
	       fb->lru_deactivate.nr_pages + fb->lru_lazyfree.nr_pages +
	       fb->lru_activate.nr_pages + fb->lru_move_tail.nr_pages;
}

static unsigned int fbatches_count(struct cpu_fbatches *fb)
{
	return folio_batch_count(&fb->lru_add) +
	       folio_batch_count(&fb->lru_deactivate_file) +
	       folio_batch_count(&fb->lru_deactivate) +
	       folio_batch_count(&fb->lru_lazyfree) +
	       folio_batch_count(&fb->lru_activate) +
	       folio_batch_count(&fb->lru_move_tail);
}

static long drain_cpu_fn(void *arg)
{
	struct cpu_fbatches *fb = this_cpu_ptr(cpu_fbatches);

	local_lock(&fb->lock);
	__lru_add_drain_cpu(fb);
	local_unlock(&fb->lock);
	return 0;
}

/*
 * Drain @cpu's batches.  Another CPU's batches are drained by that CPU
 * (work run there and waited for), as the kernel only ever drains a
 * remote CPU's batches once it is dead.
 */
void lru_add_drain_cpu(int cpu)
{
	work_on_cpu(cpu, drain_cpu_fn, NULL);
}

/* Only the owner writes its counters; readers may run at any time. */
static inline void drain_stat_add(unsigned long *v, unsigned long n)
{
	WRITE_ONCE(*v, READ_ONCE(*v) + n);
}

void lru_add_drain(void)
{
	struct cpu_fbatches *fb = this_cpu_fbatches(__func__);

	drain_stat_add(&fb->nr_drain_local, 1);
	drain_cpu_fn(NULL);
}

static long batches_count_fn(void *arg)
{
	return fbatches_count(this_cpu_ptr(cpu_fbatches));
}

static long batches_pages_fn(void *arg)
{
	return fbatches_pages(this_cpu_ptr(cpu_fbatches));
}

unsigned int lru_batches_count(int cpu)
{
	return (unsigned int)work_on_cpu(cpu, batches_count_fn, NULL);
}

unsigned int lru_batches_pages(int cpu)
{
	return (unsigned int)work_on_cpu(cpu, batches_pages_fn, NULL);
}

void lru_drain_stats_read(struct lru_drain_stats *out)
{
	int cpu;

	out->local = 0;
	out->all = (unsigned long)atomic_long_read(&lru_drain_all_nocpu);
	out->all_ns = (unsigned long)atomic_long_read(&lru_drain_all_nocpu_ns);
	out->all_works = (unsigned long)atomic_long_read(&lru_drain_all_nocpu_works);
	for_each_possible_cpu(cpu) {
		struct cpu_fbatches *fb = per_cpu_ptr(cpu_fbatches, cpu);

		out->local += READ_ONCE(fb->nr_drain_local);
		out->all += READ_ONCE(fb->nr_drain_all);
		out->all_ns += READ_ONCE(fb->nr_drain_all_ns);
		out->all_works += READ_ONCE(fb->nr_drain_all_works);
	}
}

/*
 * The kernel reads other CPUs' batch counts without their lock
 * (data_race()): a count that changes right after the read belongs to a
 * folio queued after this drain began, which the drain need not take.
 * The same unsynchronised peek here, hidden from ThreadSanitizer.
 */
__attribute__((no_sanitize("thread")))
static bool cpu_needs_drain(int cpu)
{
	struct cpu_fbatches *fb = per_cpu_ptr(cpu_fbatches, cpu);

	/* the fields themselves: an inlined helper would be instrumented */
	return fb->lru_add.nr || fb->lru_move_tail.nr ||
	       fb->lru_deactivate_file.nr || fb->lru_deactivate.nr ||
	       fb->lru_lazyfree.nr || fb->lru_activate.nr;
}

static void lru_add_drain_per_cpu(struct work_struct *work)
{
	drain_cpu_fn(NULL);
}

/* Who asked, how long it took, how many CPUs had work queued. */
static void drain_all_account(int cpu, u64 ns, unsigned long works)
{
	struct cpu_fbatches *fb;

	if (cpu < 0) {
		atomic_long_inc(&lru_drain_all_nocpu);
		atomic_long_add((long)ns, &lru_drain_all_nocpu_ns);
		atomic_long_add((long)works, &lru_drain_all_nocpu_works);
		return;
	}
	fb = per_cpu_ptr(cpu_fbatches, cpu);
	drain_stat_add(&fb->nr_drain_all, 1);
	drain_stat_add(&fb->nr_drain_all_ns, ns);
	drain_stat_add(&fb->nr_drain_all_works, works);
}

/*
 * A drain work item is queued on each CPU with folios in its batches and
 * waited for; the CPUs drain concurrently, each its own batches.  The
 * generation counter lets a caller whose folios a drain that started
 * after them has already taken skip a round of its own.
 *
 * @force_all_cpus queues on every CPU, empty or not.  The kernel's
 * lru_cache_disable() waits for an RCU grace period before it drains,
 * so that no CPU is still inside an enqueue that read the old disable
 * count; a model CPU runs work only at a scheduling point, never inside
 * an enqueue, so work run on every CPU is that grace period.
 */
static void __lru_add_drain_all(bool force_all_cpus)
{
	int cpu = smp_processor_id();
	unsigned long works = 0;
	unsigned int this_gen;
	u64 t0 = lrulab_now_ns();
	int i;

	smp_mb();
	this_gen = smp_load_acquire(&lru_drain_gen);
	if (cpu >= 0)
		lru_add_drain_cpu(cpu);

	mutex_lock_sleep(&lru_drain_mutex);
	if (this_gen != READ_ONCE(lru_drain_gen) && !force_all_cpus)
		goto done;
	WRITE_ONCE(lru_drain_gen, lru_drain_gen + 1);
	smp_mb();
	for_each_possible_cpu(i) {
		if (!force_all_cpus && !cpu_needs_drain(i))
			continue;
		INIT_WORK(&lru_add_drain_work[i], lru_add_drain_per_cpu);
		queue_work_on(i, &lru_add_drain_work[i]);
		works++;
	}
	for_each_possible_cpu(i)
		flush_work(&lru_add_drain_work[i]);
done:
	pthread_mutex_unlock(&lru_drain_mutex);
	drain_all_account(cpu, lrulab_now_ns() - t0, works);
}

void lru_add_drain_all(void)
{
	__lru_add_drain_all(false);
}

/*
 * The extra reference a cache holds is invisible from outside, so the
 * only test is a refcount the mappings and the caller do not explain.
 * This CPU's caches are the likely holders (the folio was faulted or
 * touched here); only if draining them does not settle it is every CPU
 * drained, which is the expensive part a batch of callers shares.
 */
void lru_cache_drain_for_folio(struct folio *folio, int caller_refs,
			       enum lru_cache_drained *drained)
{
	enum lru_cache_drained done = drained ? *drained : LRU_CACHE_NOT_DRAINED;

	if (!folio_may_be_lru_cached(folio))
		return;
	if (folio_ref_count(folio) == folio_expected_ref_count(folio) + caller_refs)
		return;
	if (done < LRU_CACHE_DRAINED_LOCAL) {
		lru_add_drain();
		done = LRU_CACHE_DRAINED_LOCAL;
		if (folio_ref_count(folio) == folio_expected_ref_count(folio) + caller_refs)
			goto out;
	}
	if (done < LRU_CACHE_DRAINED_ALL) {
		lru_add_drain_all();
		done = LRU_CACHE_DRAINED_ALL;
	}
out:
	if (drained)
		*drained = done;
}

void lru_cache_disable(void)
{
	atomic_add_return(1, &lru_disable_count);
	__lru_add_drain_all(true);
}

void lru_cache_enable(void)
{
	atomic_sub_return(1, &lru_disable_count);
}

/* ---- releasing folios ---- */

/* Take a folio whose last reference is gone off its LRU list. */
static void lruvec_release_folio(struct lruvec *lruvec, struct folio *folio)
{
	lruvec_del_folio(lruvec, folio);
	__folio_clear_lru_flags(folio);
}

void folios_put_refs(struct folio_batch *folios, unsigned int *refs)
{
	struct lru_size_batch stat_batch, *batch = lru_size_batch_get(&stat_batch);
	struct lruvec *lruvec = NULL;
	unsigned int i, j;

	for (i = 0, j = 0; i < folio_batch_count(folios); i++) {
		struct folio *folio = folios->folios[i];
		unsigned int nr_refs = refs ? refs[i] : 1;

		if (!folio_ref_sub_and_test(folio, nr_refs))
			continue;
		if (folio_test_large(folio))
			folio_unqueue_deferred_split(folio);
		/* nobody can find a zero-count folio: PG_lru is stable */
		if (folio_test_lru(folio)) {
			lruvec = folio_lruvec_relock_batched(folio, lruvec, batch,
							       SITE_PUT_REFS);
			lruvec_release_folio(lruvec, folio);
		}
		folios->folios[j++] = folio;
	}
	if (lruvec)
		lruvec_unlock_batched(lruvec, batch);
	if (!j) {
		folio_batch_reinit(folios);
		return;
	}
	folios->nr = j;
	mem_cgroup_uncharge_folios(folios);
	free_unref_folios(folios);
}

void __folio_batch_release(struct folio_batch *fbatch)
{
	if (!fbatch->percpu_pvec_drained) {
		lru_add_drain();
		fbatch->percpu_pvec_drained = true;
	}
	folios_put(fbatch);
}

void __folio_put(struct folio *folio)
{
	if (folio_test_large(folio))
		folio_unqueue_deferred_split(folio);
	if (folio_test_lru(folio)) {
		struct lru_size_batch stat_batch, *batch = lru_size_batch_get(&stat_batch);
		struct lruvec *lruvec = folio_lruvec_relock_batched(folio, NULL, batch,
								      SITE_FOLIO_PUT);

		lruvec_release_folio(lruvec, folio);
		lruvec_unlock_batched(lruvec, batch);
	}
	mem_cgroup_uncharge(folio);
	free_frozen_pages(folio, folio_order(folio));
}
