// SPDX-License-Identifier: MIT
/*
 * A trace through the model's own page cache and classic reclaim: one
 * memcg whose memory.max is the cache size, and every request a read (or
 * write) of its object's pages, so that what stays cached is decided by
 * the kernel's LRU lists, its memcg reclaim and its refault detection,
 * not by a policy written for the replay.
 *
 * fd mode: each object owns an extent of one regular file, and a request
 * reads its pages as filemap_read() does: a page found in the cache is
 * marked accessed (the lookup, folio_mark_accessed() and the put are
 * file_read_page()'s own hit path), a missing one is allocated, charged,
 * added to the LRU by file_read_page(), refaulting through its shadow
 * entry when it has one.  The file keeps no data (file_setup_nodata(),
 * null_blk without memory_backed): nothing here reads a page's contents,
 * and copying 4 KiB into each new folio was a third of a miss's time,
 * changing no count.  A per-object file would behave the
 * same (nothing in reclaim or the workingset code looks at which file a
 * page is in) but cost a page-cache table per object.  Every request
 * marks every page it covers: a request is a fresh open file, so
 * filemap_read()'s "same folio as the last read" test never applies.
 *
 * mmap mode: the extents lie in one anonymous mapping, and a request
 * touches its pages as user code would: a missing page faults (from
 * swap if it was reclaimed), a present one only gets its PTE's accessed
 * bit, which reclaim's rmap walk reads.
 *
 * Writes (csv op-col, lackey S/M, page traces) dirty the page.  The
 * model has no balance_dirty_pages() and its flusher walks whole files,
 * so the replay plays the flusher itself, in the order pages were
 * dirtied: once dirty pages pass dirty_background_ratio (10 %) of
 * memory.max it writes the oldest back until they are under it again,
 * as background writeback keeps up with a writer.  Should a charge still
 * fail with everything reclaimable dirty, it writes back every dirty
 * page and retries, as a task throttled in reclaim would wait for the
 * flusher.  No second thread is involved, so writes stay deterministic.
 *
 * The replay is one model CPU on this thread, with no kswapd and no
 * flusher thread: nothing but the trace drives the model, so a run
 * without writes is deterministic.  Its time is the replay's clock
 * (struct replay_clock): the memcg stats flush on it every FLUSH_TIME,
 * and reclaim's ratelimited flush reads it, as the model's memcg clock
 * is virtual for the run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include "replay/replay.h"
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/workqueue.h>

#define RESIDENT_EVERY		64	/* requests between samples of residency */

struct replay_ctx {
	const struct replay_trace *t;
	struct replay_linux_result *r;
	struct mem_cgroup *memcg;
	struct address_space *file;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	/* pages dirtied and not yet written back by us, oldest first */
	unsigned long *dirty;
	size_t dirty_head, dirty_len, dirty_cap;
	unsigned long dirty_bg;
	const struct replay_clock *clk;
	double now_ns, next_flush_ns;
};

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write back page @index if it is still dirty. */
static void writeback_one(struct replay_ctx *c, unsigned long index)
{
	struct folio *folio = filemap_get_folio(c->file, index);

	if (!folio)
		return;
	if (folio_test_dirty(folio)) {
		folio_lock(folio);
		if (READ_ONCE(folio->mapping) == c->file && folio_test_dirty(folio)) {
			folio_write_one(folio);
			c->r->written_back++;
		} else {
			folio_unlock(folio);
		}
	}
	folio_put(folio);
}

/* The oldest dirtied pages, until no more than @keep are left. */
static void writeback_oldest(struct replay_ctx *c, size_t keep)
{
	while (c->dirty_len > keep) {
		writeback_one(c, c->dirty[c->dirty_head]);
		c->dirty_head = (c->dirty_head + 1) % c->dirty_cap;
		c->dirty_len--;
	}
}

static int dirty_push(struct replay_ctx *c, unsigned long index)
{
	if (c->dirty_len == c->dirty_cap) {
		size_t cap = c->dirty_cap ? c->dirty_cap * 2 : 1024, i;
		unsigned long *d = malloc(cap * sizeof(*d));

		if (!d)
			return -ENOMEM;
		for (i = 0; i < c->dirty_len; i++)
			d[i] = c->dirty[(c->dirty_head + i) % c->dirty_cap];
		free(c->dirty);
		c->dirty = d;
		c->dirty_cap = cap;
		c->dirty_head = 0;
	}
	c->dirty[(c->dirty_head + c->dirty_len++) % c->dirty_cap] = index;
	return 0;
}

/* One page of a request in fd mode: 1 if it missed, 0 on a hit, -errno. */
static int fd_page(struct replay_ctx *c, unsigned long index, bool write)
{
	struct folio *folio = filemap_get_folio(c->file, index);
	bool was_dirty = false;
	int err;

	if (folio && !write) {
		folio_mark_accessed(folio);
		folio_put(folio);
		return 0;
	}
	if (folio) {
		was_dirty = folio_test_dirty(folio);
		folio_put(folio);
	}
	err = write ? file_write_page(c->file, index, c->memcg, NULL) :
		      file_read_page(c->file, index, c->memcg, NULL);
	if (err == -ENOMEM && c->dirty_len) {
		/* only dirty pages left to reclaim: write them all, retry */
		writeback_oldest(c, 0);
		c->r->throttled++;
		err = write ? file_write_page(c->file, index, c->memcg, NULL) :
			      file_read_page(c->file, index, c->memcg, NULL);
	}
	if (err)
		return err;
	if (write && !was_dirty) {
		if (dirty_push(c, index))
			return -ENOMEM;
		if (c->dirty_len > c->dirty_bg)
			writeback_oldest(c, c->dirty_bg);
	}
	return !folio;
}

static int mmap_page(struct replay_ctx *c, unsigned long index, bool write)
{
	unsigned long addr = c->vma->vm_start + index * PAGE_SIZE;
	bool present = pte_present(ptep_get(vma_pte(c->vma, addr)));
	vm_fault_t ret = mm_access(c->vma, addr, write);

	if (ret)
		return ret & VM_FAULT_OOM ? -ENOMEM : -EFAULT;
	return !present;
}

/*
 * The request's time on the replay's clock, and the periodic memcg
 * flush wherever FLUSH_TIME went by (the kernel's flush_memcg_stats_dwork).
 */
static void clock_tick(struct replay_ctx *c, size_t i, unsigned long missed_pages)
{
	const struct replay_clock *k = c->clk;
	double dt = k->req_ns > 0 ? k->req_ns : k->hit_ns + missed_pages * k->miss_ns;

	/*
	 * The trace's own time: the request after this one starts when the
	 * trace says, or now if the trace goes back (its stamps are as read)
	 */
	if (k->times) {
		double next = i + 1 < c->t->nr_reqs ? (k->times[i + 1] - k->times[0]) * 1e9 : c->now_ns;

		dt = next > c->now_ns ? next - c->now_ns : 0;
	}

	c->now_ns += dt;
	lrulab_model_clock_advance((u64)dt);
	while (c->now_ns >= c->next_flush_ns) {
		c->next_flush_ns += FLUSH_TIME_NS;
		mem_cgroup_flush_all();
		c->r->clock_flushes++;
	}
}

static int replay_request(struct replay_ctx *c, size_t i)
{
	const struct replay_req *q = &c->t->reqs[i];
	const struct replay_obj *o = &c->t->objs[q->obj];
	unsigned long n = c->t->objects ? 1 : (unsigned long)((q->size + PAGE_SIZE - 1) / PAGE_SIZE);
	unsigned long p, missed_pages = 0;
	bool missed = false;

	for (p = 0; p < n; p++) {
		int ret = c->file ? fd_page(c, (unsigned long)o->base + p, q->write) :
				    mmap_page(c, (unsigned long)o->base + p, q->write);

		if (ret < 0)
			return ret;
		c->r->page_misses += (unsigned int)ret;
		missed_pages += (unsigned int)ret;
		missed |= ret;
	}
	c->r->page_accesses += n;
	c->r->c.bytes += q->size;
	if (c->clk)
		clock_tick(c, i, missed_pages);
	if (missed) {
		c->r->c.misses++;
		c->r->c.miss_bytes += q->size;
	}
	if (c->file)
		cond_resched();
	return 0;
}

static unsigned long resident(struct replay_ctx *c)
{
	if (c->file)
		return (unsigned long)atomic_long_read(&c->file->nrpages);
	return get_mm_counter(c->mm, MM_ANONPAGES);
}

/* pgscan, pgsteal and pgrefill: node stats (lruvec stats in v7.2) */
static const enum node_stat_item replay_reclaim_items[5] = {
	PGSCAN_ANON, PGSCAN_FILE, PGSTEAL_ANON, PGSTEAL_FILE, PGREFILL,
};

static int replay_loop(struct replay_ctx *c)
{
	struct replay_linux_result *r = c->r;
	unsigned long ev0[NR_VM_EVENT_ITEMS], ev1[NR_VM_EVENT_ITEMS];
	unsigned long ws0[3][2], rc0[5], samples = 0, sum = 0;
	struct pglist_data *pgdat = NODE_DATA(0);
	double t0;
	size_t i;
	int k, ret = 0;

	all_vm_events(ev0);
	for (k = 0; k < 2; k++) {
		ws0[0][k] = node_page_state_snapshot(pgdat, WORKINGSET_REFAULT_BASE + k);
		ws0[1][k] = node_page_state_snapshot(pgdat, WORKINGSET_ACTIVATE_BASE + k);
		ws0[2][k] = node_page_state_snapshot(pgdat, WORKINGSET_RESTORE_BASE + k);
	}
	for (k = 0; k < 5; k++)
		rc0[k] = node_page_state_snapshot(pgdat, replay_reclaim_items[k]);
	lockstat_reset();
	if (c->clk) {
		/* time 0: the periodic flusher has just run, the next is a period on */
		lrulab_model_clock_virtual(true, 0);
		mem_cgroup_flush_all();
		c->now_ns = 0;
		c->next_flush_ns = FLUSH_TIME_NS;
	}
	t0 = now_sec();
	for (i = 0; i < c->t->nr_reqs; i++) {
		ret = replay_request(c, i);
		if (ret)
			break;
		if (!(i % RESIDENT_EVERY)) {
			unsigned long n = resident(c);

			sum += n;
			samples++;
			if (n > r->resident_max)
				r->resident_max = n;
		}
	}
	r->seconds = now_sec() - t0;
	r->c.requests = i;
	if (c->clk) {
		r->clock_seconds = c->now_ns / 1e9;
		lrulab_model_clock_virtual(false, 0);
	}
	if (ret) {
		snprintf(r->error, sizeof(r->error),
			 "request %zu: %s with memory.max %llu pages", i + 1,
			 ret == -ENOMEM ? "out of memory" : "the access faulted",
			 (unsigned long long)r->memory_max);
		return -1;
	}
	lru_add_drain();
	all_vm_events(ev1);
	for (k = 0; k < 2; k++) {
		r->refault[k] = node_page_state_snapshot(pgdat, WORKINGSET_REFAULT_BASE + k) -
				ws0[0][k];
		r->activate[k] = node_page_state_snapshot(pgdat, WORKINGSET_ACTIVATE_BASE + k) -
				 ws0[1][k];
		r->restore[k] = node_page_state_snapshot(pgdat, WORKINGSET_RESTORE_BASE + k) -
				ws0[2][k];
	}
#define d(item) (ev1[item] - ev0[item])
#define rc(k) (node_page_state_snapshot(pgdat, replay_reclaim_items[k]) - rc0[k])
	/* memcg reclaim is direct reclaim: the type sums are pgscan/pgsteal */
	r->pgscan = rc(0) + rc(1);
	r->pgsteal = rc(2) + rc(3);
	r->pgactivate = d(PGACTIVATE);
	r->pgdeactivate = d(PGDEACTIVATE);
	r->pgrefill = rc(4);
#undef rc
	r->pgrotated = d(PGROTATED);
	r->pswpin = d(PSWPIN);
	r->pswpout = d(PSWPOUT);
#undef d
	r->resident_avg = samples ? (double)sum / (double)samples : 0;
	return 0;
}

/* Map the trace's pages: one file (fd) or one anonymous mapping (mmap). */
static int replay_map(struct replay_ctx *c, enum replay_mode mode)
{
	unsigned long pages = (unsigned long)c->t->total_pages;

	if (mode == REPLAY_MODE_FD) {
		c->file = file_setup_nodata(pages);
		return c->file ? 0 : -ENOMEM;
	}
	c->mm = mm_alloc(c->memcg);
	c->vma = c->mm ? mmap_anon(c->mm, pages * PAGE_SIZE, 0) : NULL;
	return c->vma ? 0 : -ENOMEM;
}

static void replay_unmap(struct replay_ctx *c)
{
	if (c->file)
		file_free(c->file);
	if (c->vma)
		munmap_vma(c->vma);
	if (c->mm)
		mmput(c->mm);
}

int replay_linux_run(const struct replay_trace *t, enum replay_mode mode,
		     uint64_t max_pages, struct replay_linux_result *r, FILE *locks)
{
	return replay_linux_run_lru(t, mode, false, NULL, max_pages, r, locks);
}

/* MGLRU's generations at the end: the leaf's seqs, and its pages by generation's age */
static void gen_figures(struct replay_ctx *c, struct replay_linux_result *r)
{
	struct lruvec *lruvec = mem_cgroup_lruvec(c->memcg, NODE_DATA(0));
	const struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int type, z;

	int t = c->file ? LRU_GEN_FILE : LRU_GEN_ANON, tier;
	unsigned long h;

	_Static_assert(REPLAY_TIERS == MAX_NR_TIERS, "a tier per MAX_NR_TIERS");
	for (tier = 0; tier < REPLAY_TIERS; tier++) {
		for (h = 0; h < NR_HIST_GENS; h++) {
			r->tier_evicted[tier] += atomic_long_read(&lrugen->evicted[h][t][tier]);
			r->tier_refaulted[tier] += atomic_long_read(&lrugen->refaulted[h][t][tier]);
			r->tier_protected[tier] += READ_ONCE(lrugen->protected[h][t][tier]);
		}
		r->tier_avg_refaulted[tier] = READ_ONCE(lrugen->avg_refaulted[t][tier]);
		r->tier_avg_total[tier] = READ_ONCE(lrugen->avg_total[t][tier]);
	}
	r->max_seq = READ_ONCE(lrugen->max_seq);
	for (type = 0; type < ANON_AND_FILE; type++) {
		unsigned long seq;

		r->min_seq[type] = READ_ONCE(lrugen->min_seq[type]);
		for (seq = r->min_seq[type]; seq <= r->max_seq; seq++)
			for (z = 0; z < MAX_NR_ZONES; z++)
				r->gen_pages[type] +=
					READ_ONCE(lrugen->nr_pages[lru_gen_from_seq(seq)][type][z]);
	}
}

int replay_linux_run_lru(const struct replay_trace *t, enum replay_mode mode, bool mglru,
			 const struct replay_clock *clk, uint64_t max_pages,
			 struct replay_linux_result *r, FILE *locks)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct replay_ctx c = { .t = t, .r = r, .clk = clk };
	unsigned long span = 1UL << MAX_PAGE_ORDER;
	bool swap = false;
	const char *what = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->memory_max = max_pages;
	r->c.size = max_pages;
	cfg.nr_cpus = 1;
	/* the limit plus headroom, but never more than the trace can fill */
	cfg.node_pages = ((max_pages < t->total_pages ? max_pages : t->total_pages) + 4096 +
			  span - 1) / span * span;
	cfg.lockstat = true;
	cfg.memcg_flush_ms = 0;
	lrulab_switches_clear();
	if (mglru) {
		/* what the kernel turns on: /sys/kernel/mm/lru_gen/enabled 0x0007 */
		lrulab_switches[SW_LRU_GEN] = true;
		cfg.lru_gen = LRU_GEN_CAPS_ALL;
	}
	r->mglru = mglru;
	err = lrulab_init(&cfg);
	if (err) {
		snprintf(r->error, sizeof(r->error), "cannot set up the model: %s",
			 strerror(-err));
		return -1;
	}
	if (mode == REPLAY_MODE_MMAP) {
		if (swapon((unsigned long)t->total_pages + 64, SWAP_STORE_ZSTD)) {
			what = "swap";
			goto out;
		}
		swap = true;
	}
	c.memcg = mem_cgroup_create(root_mem_cgroup, "replay");
	if (!c.memcg || mem_cgroup_set_max(c.memcg, (unsigned long)max_pages)) {
		what = "the memcg";
		goto out;
	}
	c.dirty_bg = (unsigned long)max_pages / 10;
	if (cpu_enter(0, false)) {
		what = "model CPU 0";
		goto out;
	}
	if (replay_map(&c, mode)) {
		replay_unmap(&c);
		cpu_exit();
		snprintf(r->error, sizeof(r->error),
			 "cannot map the trace's %llu pages (%s mode)",
			 (unsigned long long)t->total_pages, mode == REPLAY_MODE_FD ? "fd" : "mmap");
		goto out;
	}
	err = replay_loop(&c);
	if (mglru)
		gen_figures(&c, r);
	cpu_exit();
	free(c.dirty);
	/* with the cache full, then after the teardown */
	r->invariant_violations = lrulab_check_invariants(true, stderr);
	if (locks)
		lockstat_print(locks, LOCKSTAT_SORT_ACQUIRED);
	if (!cpu_enter(0, false)) {
		replay_unmap(&c);
		cpu_exit();
	}
	r->invariant_violations += lrulab_check_invariants(true, stderr);
	if (r->invariant_violations && !r->error[0])
		snprintf(r->error, sizeof(r->error), "%d invariant violations",
			 r->invariant_violations);
	err = r->error[0] ? -1 : 0;
	what = NULL;
	goto done;
out:
	err = -1;
	if (what)
		snprintf(r->error, sizeof(r->error), "cannot set up %s", what);
done:
	if (c.memcg)
		mem_cgroup_offline(c.memcg);
	if (swap)
		swapoff();
	lrulab_exit();
	lrulab_switches_clear();
	return err;
}
