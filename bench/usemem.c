// SPDX-License-Identifier: MIT
/*
 * `lrulab bench usemem` (also `lrulab usemem`): the s1 mail's workload,
 * vm-scalability's `usemem -n N --prealloc --prefault --random SIZE`
 * run inside a two-level memcg whose leaf memory.max is a fraction of
 * the working set, so that reclaim (shrink_inactive_list, swap-out) and
 * refaults (workingset_refault, swap-in) run continuously on every
 * thread.  Reports what the mail's tables report: pgscan_direct,
 * pgsteal_direct and workingset_refault_anon per second, and the lock
 * table, with the cost-recording sites singled out.  A workload of the
 * bench harness with its own run (a memcg limit, swap, a prefault before
 * the clock), so that `lrulab ab` and `lrulab repro s1` run it too.
 *
 * Anon memory (the default, as usemem's) leaves swap PTEs behind;
 * --type shmem swaps a shmem file instead, whose swap entries live in
 * the page cache; --type file reads a regular file at random through the
 * page cache, so that reclaim drops clean file folios and the reads
 * refault through their shadows (the file LRU, no swap).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "bench/bench.h"
#include "tools/commands.h"
#include <lrulab/fs.h>
#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include "tools/parse.h"
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>
#include <lrulab/workqueue.h>

#include "usemem.h"

struct usemem_thread {
	pthread_t tid;
	int cpu;
	const struct bench_opts *o;
	struct mem_cgroup *memcg;
	struct address_space *file;	/* shmem or regular */
	struct file f;			/* the regular file, opened */
	struct usemem_stream stream;	/* --pattern's pages (--type file) */
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	pthread_barrier_t *start;
	volatile int *stop;
	int *cut;			/* the prefault's bound is up */
	int *prefaulted;		/* threads done with their prefault */
	unsigned long prefault_pages;	/* pages this thread wrote before the window */
	unsigned long accesses;
	int err;
	/* the leaf's lists when this thread's charge failed: exact, then flushed */
	unsigned long oom_lists[2][NR_LRU_LISTS];
};

/*
 * A file read that misses waits for the device: an SSD's 4 KiB read,
 * the same stated typical value as the async swap device's.  Without
 * it a miss costs the model nothing, its memory turns over some fifty
 * times a memcg flush period where a machine reading from a disk turns
 * over a few times, and reclaim reads stats of a different age.
 */
#define USEMEM_READ_LATENCY_US	100

static unsigned int usemem_read_latency_us(const struct bench_opts *o)
{
	return o->read_latency_us >= 0 ? (unsigned int)o->read_latency_us :
	       USEMEM_READ_LATENCY_US;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * What reclaim saw when the charge failed: the exact list sizes
 * (get_scan_count's) beside the flushed ones (inactive_is_low's).
 */
static void usemem_oom_snapshot(struct usemem_thread *t)
{
	struct lruvec *lruvec = mem_cgroup_lruvec(t->memcg, NODE_DATA(0));
	enum lru_list lru;

	for_each_evictable_lru(lru) {
		t->oom_lists[0][lru] = lruvec_lru_size(lruvec, lru, MAX_NR_ZONES - 1);
		t->oom_lists[1][lru] = lruvec_page_state(lruvec, NR_LRU_BASE + lru);
	}
}

/*
 * One access: a write through the mapping, or a read(2) of a regular
 * file; --type mixed has the anon half of the working set first, then
 * the file half.
 */
static int usemem_touch(struct usemem_thread *t, unsigned long page)
{
	unsigned long anon = t->o->mixed ? t->o->mem / PAGE_SIZE / 2 : 0;

	if (t->o->regular && page >= anon)
		return filemap_read(&t->f, (long long)(page - anon) * PAGE_SIZE, PAGE_SIZE,
				    t->memcg, NULL) == PAGE_SIZE ? 0 : -ENOMEM;
	return mm_access(t->vma, t->vma->vm_start + page * PAGE_SIZE, true) ? -ENOMEM : 0;
}

/* the files' device: --read-ahead-kb, or the kernel's default 128 */
static unsigned long usemem_read_ahead_kb(const struct bench_opts *o)
{
	return o->read_ahead_kb ? o->read_ahead_kb : VM_READAHEAD_PAGES * (PAGE_SIZE >> 10);
}

static void *usemem_worker(void *arg)
{
	struct usemem_thread *t = arg;
	unsigned long pages = t->o->mem / PAGE_SIZE, i;
	u64 x = 0x9e3779b97f4a7c15ULL * (u64)(t->cpu + 1);

	if (cpu_enter(t->cpu, true) && cpu_enter(t->cpu, false)) {
		t->err = -EBUSY;
		barrier_wait_sleep(t->start);
		return NULL;
	}
	/* a device read's completion wakes the reader at once, no timer slack */
	if (t->o->regular && !t->o->mixed && usemem_read_latency_us(t->o))
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	/*
	 * --prealloc --prefault: every page written once before the clock,
	 * unless the prefault's bound comes first (usemem_prefault_bound);
	 * a file read a page per read (no readahead, as host usemem reads
	 * it: see there), then advised as --fadvise says.
	 */
	if (t->o->regular && !t->o->mixed)
		vfs_fadvise(&t->f, POSIX_FADV_RANDOM);
	for (i = 0; i < pages && !t->err && !__atomic_load_n(t->cut, __ATOMIC_ACQUIRE); i++) {
		if (usemem_touch(t, i)) {
			usemem_oom_snapshot(t);
			t->err = -ENOMEM;
		}
	}
	t->prefault_pages = i;
	if (t->o->regular && !t->o->mixed) {
		vfs_fadvise(&t->f, t->o->fadvise >= 0 ? t->o->fadvise : POSIX_FADV_NORMAL);
		/* the device's time counts in the window: the prefault is untimed */
		WRITE_ONCE(t->file->read_latency_us, usemem_read_latency_us(t->o));
	}
	__atomic_fetch_add(t->prefaulted, 1, __ATOMIC_RELEASE);
	barrier_wait_sleep(t->start);
	/*
	 * --random: uniform random writes over the whole region.  The end is
	 * seen at the next access: with many more threads than processors
	 * one access may wait for reclaim behind preempted lock holders.
	 */
	while (!t->err && !__atomic_load_n(t->stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < 64 && !__atomic_load_n(t->stop, __ATOMIC_RELAXED); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (usemem_touch(t, t->stream.pages ? usemem_stream_next(&t->stream) :
					 x % pages)) {
				usemem_oom_snapshot(t);
				t->err = -ENOMEM;
				break;
			}
		}
		t->accesses += i;
	}
	lru_add_drain();
	cpu_exit();
	return NULL;
}

/*
 * How long the set-up and prefault may take, from the start of the run:
 * --seconds, at least 1 s, and 20 ms per thread.  With many more threads
 * than processors the prefault is reclaim under preempted lock holders
 * and took 20 s for a 0.3 s run (64 threads on 2 processors); cut at
 * its bound, the pages it did not reach are first touched in the
 * window, and the run says so.  A thread sees the cut (and the window's
 * end) after the fault it is in, which may wait behind preempted lock
 * holders: the run ends within 1 s + 40 ms per thread after the window.
 */
static double usemem_prefault_bound(const struct bench_opts *o, long threads)
{
	return max_t(double, o->seconds, 1.0) + 0.02 * (double)threads;
}

/* The leaf's memory.max in pages for @threads threads of @o. */
static unsigned long usemem_max_pages(const struct bench_opts *o, long threads)
{
	unsigned long total = o->mem / PAGE_SIZE * (unsigned long)threads;

	/*
	 * An eighth of the working set, but not so small that the pages
	 * parked in per-CPU LRU batches and charge stocks (up to 31 + 64
	 * per CPU, out of reclaim's reach) take a memcg to OOM.
	 */
	if (o->max)
		return o->max / PAGE_SIZE;
	return max_t(unsigned long, total / 8, 256 * (unsigned long)threads);
}

/*
 * --swap-io async: a disk behind a swap file, the s1 mail's setup.  An
 * NVMe write of a page takes tens of microseconds, queued behind
 * others more, and a random 4 KiB read about as long: 100 us each.  A disk stores pages as they are, so the store
 * is a copy unless --swap says otherwise.
 */
#define USEMEM_SWAP_LATENCY_US	100

/* mapping_max_folio_order() of ext4 and XFS files: PMD_ORDER with 4K pages */
#define USEMEM_FILE_MAX_FOLIO_ORDER	9

static bool usemem_swap_copy(const struct bench_opts *o)
{
	return o->swap_store_given ? o->swap_copy : o->swap_async;
}

static unsigned int usemem_swap_latency_us(const struct bench_opts *o)
{
	return o->swap_latency_us >= 0 ? (unsigned int)o->swap_latency_us :
	       USEMEM_SWAP_LATENCY_US;
}

static double tv_sec(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static double per_1k(u64 n, unsigned long pages)
{
	return pages ? 1000.0 * n / pages : 0;
}

/* What a run measured, for its JSON object (usemem_json). */
struct usemem_figures {
	const char *type;
	long threads;
	bool oversubscribed, spin_yield;
	unsigned long max;		/* the leaf's memory.max, pages */
	unsigned int flush_ms;
	struct usemem_staleness stale;
	struct swap_io_stat io;
	double secs;
	double prefault_secs;
	unsigned long prefault_pages;	/* of threads x --mem / 4K */
	bool prefault_cut;
	unsigned long accesses, scan, steal, refaults, refaults_file, written;
	unsigned long throttled;
	u64 throttled_ns;
	unsigned long ev[NR_VM_EVENT_ITEMS];	/* events in the window */
	unsigned int lru_gen;			/* the caps: 0 for the classic LRU */
	struct usemem_lru lru_d;		/* aging and eviction in the window */
	struct lock_stat lru, cost;
	int invariant_violations;
	int interrupted;		/* the signal that ended it early, or 0 */
	double user_s, sys_s;		/* the process's CPU time in the window */
};

/*
 * The run's JSON object but for its lock table and errors:
 * one function, so that bench_has_metric() sees the keys a run prints.
 */
static json_t *usemem_json(const struct bench_opts *o, const struct usemem_figures *f)
{
	json_t *j = json_object(), *sw = json_array();
	int i;

	/* usemem takes vmstat-scan-cost and lru-gen only, and runs with them as given */
	for (i = 0; i < NR_LRULAB_SWITCHES; i++)
		if (o->sw[i] == 1)
			json_array_append_new(sw, json_string(lrulab_switch_name(i)));
	json_object_set_new(j, "workload", json_string("usemem"));
	json_object_set_new(j, "type", json_string(f->type));
	json_object_set_new(j, "threads", json_integer(f->threads));
	json_object_set_new(j, "cpus", json_integer(lrulab_nr_processors()));
	json_object_set_new(j, "oversubscribed", json_boolean(f->oversubscribed));
	json_object_set_new(j, "switches", sw);
	json_object_set_new(j, "lock", json_string(lock_impl_name(o->lock)));
	bench_lockstat_json(j, f->lru.hold_sampled, f->spin_yield);
	json_object_set_new(j, "mem_per_thread", json_integer(o->mem));
	json_object_set_new(j, "memory_max", json_integer(f->max * PAGE_SIZE));
	json_object_set_new(j, "memcg_flush_ms", json_integer(f->flush_ms));
	json_object_set_new(j, "memcg_flush", json_string(usemem_flush_name(f->flush_ms)));
	/* how stale a flush period leaves reclaim's sizes: leaf turnovers in it */
	json_object_set_new(j, "leaf_turnovers_per_flush_period",
			    json_real(f->flush_ms && f->max ?
				      f->steal / f->secs * f->flush_ms / 1000.0 / (double)f->max : 0));
	json_object_set_new(j, "stale_stats_samples", json_integer(f->stale.samples));
	json_object_set_new(j, "stale_stats_corner_share",
			    json_real(f->stale.samples ? (double)f->stale.corner / f->stale.samples : 0));
	json_object_set_new(j, "swap_store", json_string(usemem_swap_copy(o) ? "copy" : "zstd"));
	json_object_set_new(j, "swap_io", json_string(o->swap_async ? "async" : "sync"));
	if (o->swap_async) {
		json_object_set_new(j, "swap_latency_us", json_integer(usemem_swap_latency_us(o)));
		json_object_set_new(j, "swap_async_writes", json_integer(f->io.async_writes));
		json_object_set_new(j, "swap_io_irqs", json_integer(f->io.irqs));
		json_object_set_new(j, "swap_async_reads", json_integer(f->io.reads));
	}
	json_object_set_new(j, "prefault_seconds", json_real(f->prefault_secs));
	json_object_set_new(j, "prefault_pages", json_integer((json_int_t)f->prefault_pages));
	json_object_set_new(j, "prefault_complete", json_boolean(!f->prefault_cut));
	json_object_set_new(j, "seconds", json_real(f->secs));
	json_object_set_new(j, "accesses", json_integer(f->accesses));
	json_object_set_new(j, "user_s", json_real(f->user_s));
	json_object_set_new(j, "sys_s", json_real(f->sys_s));
	/* the workload's rate, for `lrulab ab`'s default metric */
	json_object_set_new(j, "pages_per_sec", json_real(f->accesses / f->secs));
	json_object_set_new(j, "pgscan", json_integer(f->scan));
	json_object_set_new(j, "pgsteal", json_integer(f->steal));
	json_object_set_new(j, "pgscan_anon", json_integer(f->lru_d.scan[0]));
	json_object_set_new(j, "pgscan_file", json_integer(f->lru_d.scan[1]));
	json_object_set_new(j, "pgsteal_anon", json_integer(f->lru_d.steal[0]));
	json_object_set_new(j, "pgsteal_file", json_integer(f->lru_d.steal[1]));
	json_object_set_new(j, "pgsteal_anon_per_sec", json_real(f->lru_d.steal[0] / f->secs));
	json_object_set_new(j, "pgsteal_file_per_sec", json_real(f->lru_d.steal[1] / f->secs));
	json_object_set_new(j, "workingset_refault_anon", json_integer(f->refaults));
	json_object_set_new(j, "workingset_refault_file", json_integer(f->refaults_file));
	usemem_lru_json(j, &f->lru_d, f->ev, f->lru_gen);
	json_object_set_new(j, "pgscan_per_sec", json_real(f->scan / f->secs));
	json_object_set_new(j, "pgsteal_per_sec", json_real(f->steal / f->secs));
	json_object_set_new(j, "pgscan_per_1k_accesses", json_real(per_1k(f->scan, f->accesses)));
	json_object_set_new(j, "pgsteal_per_1k_accesses", json_real(per_1k(f->steal, f->accesses)));
	json_object_set_new(j, "refaults_per_1k_accesses",
			    json_real(per_1k(f->refaults + f->refaults_file, f->accesses)));
	json_object_set_new(j, "workingset_refault_anon_per_sec", json_real(f->refaults / f->secs));
	json_object_set_new(j, "workingset_refault_file_per_sec", json_real(f->refaults_file / f->secs));
	json_object_set_new(j, "pswpout_per_sec", json_real(f->ev[PSWPOUT] / f->secs));
	json_object_set_new(j, "pswpin_per_sec", json_real(f->ev[PSWPIN] / f->secs));
	json_object_set_new(j, "nr_vmscan_write_per_sec", json_real(f->written / f->secs));
	/* reclaim's IPIs to the CPUs of the mms it unmapped (try_to_unmap_flush) */
	json_object_set_new(j, "tlb_ipi", json_string(tlb_ipi_mode()));
	json_object_set_new(j, "nr_tlb_remote_flush", json_integer(f->ev[NR_TLB_REMOTE_FLUSH]));
	json_object_set_new(j, "nr_tlb_remote_flush_received",
			    json_integer(f->ev[NR_TLB_REMOTE_FLUSH_RECEIVED]));
	json_object_set_new(j, "pgrotated", json_integer(f->ev[PGROTATED]));
	json_object_set_new(j, "pgrotated_per_sec", json_real(f->ev[PGROTATED] / f->secs));
	json_object_set_new(j, "throttled_isolated", json_integer(f->throttled));
	json_object_set_new(j, "throttled_isolated_ms", json_real(f->throttled_ns / 1e6));
	json_object_set_new(j, "lru_lock_acquired", json_integer(f->lru.acquired));
	json_object_set_new(j, "lru_lock_contended", json_integer(f->lru.contended));
	json_object_set_new(j, "lru_lock_wait_total_ns", json_integer(f->lru.wait_total_ns));
	json_object_set_new(j, "lru_lock_acquisitions_per_1k_reclaimed",
			    json_real(per_1k(f->lru.acquired, f->steal)));
	json_object_set_new(j, "cost_sites_acquired", json_integer(f->cost.acquired));
	json_object_set_new(j, "cost_sites_wait_total_ns", json_integer(f->cost.wait_total_ns));
	json_object_set_new(j, "cost_sites_acquisitions_per_1k_reclaimed",
			    json_real(per_1k(f->cost.acquired, f->steal)));
	json_object_set_new(j, "invariant_violations", json_integer(f->invariant_violations));
	json_object_set_new(j, "invariants_ok", json_boolean(!f->invariant_violations));
	json_object_set_new(j, "interrupted", json_boolean(f->interrupted));
	if (f->interrupted)
		json_object_set_new(j, "signal", json_string(bench_signal_name(f->interrupted)));
	return j;
}

/* --show's file of the last run, printed by usemem_main() after its report */
static char *usemem_show;

int bench_usemem_run(const struct bench_opts *o, long threads, FILE *text,
		     json_t **json)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	unsigned long pages = o->mem / PAGE_SIZE, total = pages * (unsigned long)threads;
	unsigned long max = usemem_max_pages(o, threads);
	unsigned long span = 1UL << MAX_PAGE_ORDER, ev0[NR_VM_EVENT_ITEMS], ev1[NR_VM_EVENT_ITEMS];
	unsigned long refaults, refaults_file, scan, steal, accesses = 0, written, throttled;
	unsigned long throttled0;
	u64 throttled_ns, throttled_ns0;
	struct swap_io_stat io = { 0 };
	const char *type = o->mixed ? "mixed" : o->regular ? "file" : o->shmem ? "shmem" : "anon";
	struct mem_cgroup *parent, *leaf;
	struct usemem_thread *t;
	pthread_barrier_t start;
	volatile int stop = 0;
	int cut = 0, prefaulted = 0;
	unsigned long prefault_pages = 0;
	double run_t0 = now_sec(), prefault_secs;
	struct lock_stat lru, cost;
	struct usemem_stats stats;
	struct usemem_staleness stale = { 0 };
	unsigned long ra0[NR_RA_EVENTS], ra1[NR_RA_EVENTS];
	bool oversubscribed;
	char pat[32];
	struct usemem_figures f;
	struct usemem_lru snap0, snap1;
	char lru_name[32];
	json_t *j, *locks, *extra;
	double t0, secs;
	struct rusage ru0, ru1;
	bool recorded = true;
	int i, err = 0, bad;

	*json = NULL;
	cfg.nr_cpus = (int)threads;
	/* the leaf's limit plus headroom for the allocator and watermarks */
	cfg.node_pages = ((max + 4096) + span - 1) / span * span;
	cfg.lock = o->lock;
	cfg.lockstat = LOCKSTAT_SAMPLED;
	cfg.memcg_flush_ms = usemem_flush_ms(o);
	cfg.lru_gen = bench_lru_gen_caps(o);
	lrulab_switches_clear();
	lrulab_switches[SW_VMSTAT_SCAN_COST] = o->sw[SW_VMSTAT_SCAN_COST] == 1;
	lrulab_switches[SW_LRU_GEN] = o->sw[SW_LRU_GEN] == 1;
	err = lrulab_init(&cfg);
	if (err) {
		lrulab_switches_clear();
		return err;
	}
	if (swapon(total + 64, usemem_swap_copy(o) ? SWAP_STORE_COPY : SWAP_STORE_ZSTD) ||
	    (o->swap_async && swap_io_start(usemem_swap_latency_us(o)))) {
		lrulab_exit();
		lrulab_switches_clear();
		return -ENOMEM;
	}
	parent = mem_cgroup_create(root_mem_cgroup, "usemem");
	leaf = parent ? mem_cgroup_create(parent, "leaf") : NULL;
	t = calloc((size_t)threads, sizeof(*t));
	if (!leaf || !t || mem_cgroup_set_max(leaf, max))
		return -ENOMEM;
	oversubscribed = lrulab_oversubscribed();
	snprintf(lru_name, sizeof(lru_name), "multi-gen LRU 0x%04x", cfg.lru_gen);
	if (text && o->swap_async)
		fprintf(text, "lrulab bench usemem: swap-io async: writes end %u us after submission, on the submitting CPU at its next list shrink, which rotates their folios (pgrotated) before its lru_add_drain; a swap-in sleeps %u us for its read\n",
			usemem_swap_latency_us(o), usemem_swap_latency_us(o));
	if (text)
		fprintf(text, "lrulab bench usemem: %ld thread%s x %lu KiB %s, %s%s, leaf memory.max %lu KiB, swap %s (%s I/O), %s%.0u%s, %.1f s, vmstat-scan-cost %s, %s%s\n",
			threads, threads == 1 ? "" : "s", o->mem >> 10, type,
			o->regular && !o->mixed && o->pattern != USEMEM_PATTERN_RANDOM ? "" : "random ",
			o->mixed ? "anon writes and file reads" : o->regular ? "reads" : "writes",
			max * (PAGE_SIZE >> 10), usemem_swap_copy(o) ? "copy" : "zstd",
			o->swap_async ? "async" : "sync",
			cfg.memcg_flush_ms ? "memcg flush every " : "no memcg flusher",
			cfg.memcg_flush_ms, cfg.memcg_flush_ms ? " ms" : "", o->seconds,
			lrulab_switches[SW_VMSTAT_SCAN_COST] ? "on" : "off",
			cfg.lru_gen & BIT(LRU_GEN_CORE) ? lru_name : "classic LRU",
			oversubscribed ? " (OVERSUBSCRIBED)" : "");
	if (text)
		usemem_print_flush(text, cfg.memcg_flush_ms);
	if (text && o->regular && !o->mixed)
		fprintf(text, "file reads: 4K pread()s, pattern %s, fadvise %s, readahead up to %lu KiB, device read latency %u us%s\n",
			usemem_pattern_name(o, pat, sizeof(pat)), usemem_fadvise_name(o),
			(o->fadvise == POSIX_FADV_SEQUENTIAL ? 2 : 1) * usemem_read_ahead_kb(o),
			usemem_read_latency_us(o),
			o->read_latency_us >= 0 ? " (--read-latency)" :
			" (default, an SSD's; --read-latency 0: memory speed)");
	if (usemem_record_begin(o)) {
		swapoff();
		lrulab_exit();
		lrulab_switches_clear();
		return -ENOMEM;
	}
	pthread_barrier_init(&start, NULL, (unsigned int)threads + 1);
	for (i = 0; i < threads; i++) {
		t[i] = (struct usemem_thread){ .cpu = i, .o = o, .memcg = leaf,
					       .start = &start, .stop = &stop, .cut = &cut,
					       .prefaulted = &prefaulted };
		if (o->regular) {
			unsigned long anon = o->mixed ? pages / 2 : 0;

			t[i].file = file_setup(pages - anon);
			t[i].mm = anon ? mm_alloc(leaf) : NULL;
			t[i].vma = t[i].mm ? mmap_anon(t[i].mm, anon * PAGE_SIZE, 0) : NULL;
			if (!t[i].file || (anon && !t[i].vma) ||
			    (!o->mixed && usemem_stream_init(&t[i].stream, o, pages, (unsigned long)i)))
				return -ENOMEM;
			if (o->read_ahead_kb)
				t[i].file->ra_pages = (unsigned int)(o->read_ahead_kb / (PAGE_SIZE >> 10));
			/*
			 * A disk file system's: ext4 and XFS take folios up to
			 * PMD order, which shapes readahead's windows
			 */
			t[i].file->max_folio_order = USEMEM_FILE_MAX_FOLIO_ORDER;
			file_open(&t[i].f, t[i].file);
			pthread_create(&t[i].tid, NULL, usemem_worker, &t[i]);
			continue;
		}
		t[i].file = o->shmem ? shmem_file_setup(pages, 0) : NULL;
		t[i].mm = t[i].file || !o->shmem ? mm_alloc(leaf) : NULL;
		t[i].vma = !t[i].mm ? NULL : o->shmem ?
			mmap_shmem(t[i].mm, t[i].file, 0, pages * PAGE_SIZE) :
			mmap_anon(t[i].mm, pages * PAGE_SIZE, 0);
		if (!t[i].vma)
			return -ENOMEM;
		pthread_create(&t[i].tid, NULL, usemem_worker, &t[i]);
	}
	while (__atomic_load_n(&prefaulted, __ATOMIC_ACQUIRE) < threads &&
	       now_sec() - run_t0 < usemem_prefault_bound(o, threads) && !bench_interrupted)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	__atomic_store_n(&cut, 1, __ATOMIC_RELEASE);
	barrier_wait_sleep(&start);
	prefault_secs = now_sec() - run_t0;
	for (i = 0; i < threads; i++)
		prefault_pages += t[i].prefault_pages;
	if (text && prefault_pages < total)
		fprintf(text, "prefault cut at %.2f s, its bound (--seconds, at least 1 s, + 20 ms per thread): %lu of %lu pages written (%.0f%%); the window's writes first touch the rest\n",
			prefault_secs, prefault_pages, total, 100.0 * prefault_pages / total);
	/*
	 * The measured window starts once every thread has prefaulted.  The
	 * node counters and global events say the same as the leaf's: all
	 * reclaim is the leaf's.
	 */
	all_vm_events(ev0);
	usemem_lru_take(&snap0, leaf);
	refaults = node_page_state_snapshot(NODE_DATA(0), WORKINGSET_REFAULT_ANON);
	refaults_file = node_page_state_snapshot(NODE_DATA(0), WORKINGSET_REFAULT_FILE);
	written = node_page_state_snapshot(NODE_DATA(0), NR_VMSCAN_WRITE);
	reclaim_throttle_stats(0, VMSCAN_THROTTLE_ISOLATED, &throttled0, &throttled_ns0);
	if (o->regular)
		usemem_stats_begin(&stats, leaf);
	readahead_events_start();
	readahead_events(ra0);
	lockstat_reset();
	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_sec();
	/* SIGINT and SIGTERM end the window early (bench_signal.c) */
	while (now_sec() - t0 < o->seconds && !bench_interrupted) {
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		usemem_sample_lists(leaf, o, &stale);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < threads; i++) {
		pthread_join(t[i].tid, NULL);
		accesses += t[i].accesses;
		if (t[i].err && !err)
			err = t[i].err;
	}
	secs = now_sec() - t0;
	getrusage(RUSAGE_SELF, &ru1);
	usemem_record_stop(o);
	readahead_events(ra1);
	readahead_events_stop();
	all_vm_events(ev1);
	usemem_lru_take(&snap1, leaf);
	usemem_lru_delta(&snap1, &snap0);
	refaults = node_page_state_snapshot(NODE_DATA(0), WORKINGSET_REFAULT_ANON) - refaults;
	refaults_file = node_page_state_snapshot(NODE_DATA(0), WORKINGSET_REFAULT_FILE) -
			refaults_file;
	written = node_page_state_snapshot(NODE_DATA(0), NR_VMSCAN_WRITE) - written;
	reclaim_throttle_stats(0, VMSCAN_THROTTLE_ISOLATED, &throttled, &throttled_ns);
	throttled -= throttled0;
	throttled_ns -= throttled_ns0;
	swap_io_stats(&io);
	/* all reclaim is the leaf's and it is direct: the type sums are pgscan_direct */
#define d(item) (ev1[item] - ev0[item])
	scan = snap1.scan[0] + snap1.scan[1];
	steal = snap1.steal[0] + snap1.steal[1];
	pthread_barrier_destroy(&start);
	lockstat_read_class("lru_lock", &lru);
	lru_cost_sites_read(&cost);

	if (text) {
		/* cgroup reclaim counts pgscan_direct in the memcg; the anon totals are the same */
		fprintf(text, "\n%-32s %14s\n", "", "per second");
		fprintf(text, "%-32s %14.0f\n", "pgscan_direct", scan / secs);
		fprintf(text, "%-32s %14.0f\n", "pgsteal_direct", steal / secs);
		if (o->mixed) {
			/* what the scan balance decided: get_scan_count's split */
			fprintf(text, "%-32s %14.0f\n", "pgscan_anon", snap1.scan[0] / secs);
			fprintf(text, "%-32s %14.0f\n", "pgscan_file", snap1.scan[1] / secs);
			fprintf(text, "%-32s %14.0f\n", "pgsteal_anon", snap1.steal[0] / secs);
			fprintf(text, "%-32s %14.0f\n", "pgsteal_file", snap1.steal[1] / secs);
		}
		fprintf(text, "%-32s %14.0f\n", "workingset_refault_anon", refaults / secs);
		if (o->regular)
			fprintf(text, "%-32s %14.0f\n", "workingset_refault_file",
				refaults_file / secs);
		usemem_lru_print(text, &snap1, ev0, ev1, cfg.lru_gen, secs);
		fprintf(text, "%-32s %14.0f\n", "pswpout", (ev1[PSWPOUT] - ev0[PSWPOUT]) / secs);
		fprintf(text, "%-32s %14.0f\n", "nr_vmscan_write", written / secs);
		/* the writes' ends: the lru_move_tail batch's rotations */
		fprintf(text, "%-32s %14.0f\n", "pgrotated", d(PGROTATED) / secs);
		fprintf(text, "%-32s %14.0f   (%.0f IPIs, %s)\n", "nr_tlb_remote_flush",
			d(NR_TLB_REMOTE_FLUSH) / secs, d(NR_TLB_REMOTE_FLUSH_RECEIVED) / secs,
			tlb_ipi_mode());
		fprintf(text, "%-32s %14.0f   (%.1f ms asleep)\n",
			"reclaim throttled (isolated)", throttled / secs, throttled_ns / 1e6);
		fprintf(text, "%-32s %14.0f\n", o->mixed ? "random accesses" :
			o->regular ? (o->pattern == USEMEM_PATTERN_RANDOM ? "random reads" : "reads") :
			"random writes", accesses / secs);
		fprintf(text, "\n");
		lockstat_print(text, LOCKSTAT_SORT_WAIT_TOTAL);
		fprintf(text, "\nlru_lock: %llu acquisitions, %.3f ms total wait; cost sites (lru_note_cost_*, prepare_scan_control): %llu acquisitions, %.3f ms wait\n",
			(unsigned long long)lru.acquired, lru.wait_total_ns / 1e6,
			(unsigned long long)cost.acquired, cost.wait_total_ns / 1e6);
		fprintf(text, "\nfigures that hold on any machine:\n");
		fprintf(text, "  lru_lock acquisitions per 1000 reclaimed pages: %.1f (cost sites %.1f)\n",
			per_1k(lru.acquired, steal), per_1k(cost.acquired, steal));
		/* the LRU's choices, whatever the speed: how much it scanned, took, got back */
		fprintf(text, "  per 1000 accesses: pgscan %.1f, pgsteal %.1f, refaults %.1f\n",
			per_1k(scan, accesses), per_1k(steal, accesses),
			per_1k(refaults + refaults_file, accesses));
		usemem_print_staleness(text, cfg.memcg_flush_ms, &stale, steal / secs, max);
	}

	f = (struct usemem_figures){
		.type = type, .threads = threads, .oversubscribed = oversubscribed,
		.spin_yield = READ_ONCE(lrulab_spin_yield), .max = max,
		.flush_ms = cfg.memcg_flush_ms, .stale = stale, .io = io, .secs = secs,
		.prefault_secs = prefault_secs, .prefault_pages = prefault_pages,
		.prefault_cut = prefault_pages < total,
		.accesses = accesses, .scan = scan, .steal = steal,
		.refaults = refaults, .refaults_file = refaults_file,
		.written = written, .throttled = throttled,
		.throttled_ns = throttled_ns, .lru = lru, .cost = cost,
	};
	for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
		f.ev[i] = ev1[i] - ev0[i];
	f.lru_gen = cfg.lru_gen;
	f.lru_d = snap1;
	/* the lock table now: the teardown below takes the locks again */
	locks = bench_locks_json();
	/* a file run's own keys, taken before the teardown changes the stats */
	extra = json_object();
	if (o->regular && !o->mixed) {
		json_object_set_new(extra, "pattern", json_string(usemem_pattern_name(o, pat, sizeof(pat))));
		json_object_set_new(extra, "fadvise", json_string(usemem_fadvise_name(o)));
		json_object_set_new(extra, "read_ahead_kb", json_integer((json_int_t)usemem_read_ahead_kb(o)));
		json_object_set_new(extra, "read_latency_us", json_integer(usemem_read_latency_us(o)));
		json_object_set_new(extra, "read_latency_default", json_boolean(o->read_latency_us < 0));
		json_object_set_new(extra, "max_folio_order", json_integer(USEMEM_FILE_MAX_FOLIO_ORDER));
		usemem_report_readahead(ra0, ra1, text, extra);
	}
	if (o->regular)
		usemem_stats_end(&stats, leaf, text, extra);
	/* the generations as the run left them, before the teardown empties them */
	usemem_show = bench_show_capture(o);

	if (cpu_enter(0, false) == 0) {
		/* the writes still out end before the teardown unmaps their pages */
		swap_io_wait_idle();
		for (i = 0; i < threads; i++) {
			if (o->regular) {
				file_free(t[i].file);
				usemem_stream_free(&t[i].stream);
				if (!t[i].vma)
					continue;
				munmap_vma(t[i].vma);
				mmput(t[i].mm);
				continue;
			}
			munmap_vma(t[i].vma);
			mmput(t[i].mm);
			if (t[i].file)
				shmem_file_free(t[i].file);
		}
		cpu_exit();
	}
	bad = lrulab_check_invariants(true, stderr);
	if (text)
		fprintf(text, "invariants: %s\n", bad ? "VIOLATED" : "ok");
	if (text && bench_interrupted)
		fprintf(text, "INTERRUPTED by %s: the figures are those of the %.3f s before it\n",
			bench_signal_name(bench_interrupted), secs);
	f.invariant_violations = bad;
	f.user_s = tv_sec(&ru1.ru_utime) - tv_sec(&ru0.ru_utime);
	f.sys_s = tv_sec(&ru1.ru_stime) - tv_sec(&ru0.ru_stime);
	if (usemem_record_write(o, type, threads, accesses, secs,
				err ? strerror(-err) : bad ? "invariants violated" : NULL))
		recorded = false;
	f.interrupted = bench_interrupted;
	j = usemem_json(o, &f);
	json_object_set_new(j, "locks", locks);
	json_object_update(j, extra);
	json_decref(extra);
	if (err) {
		/* which limit ran out: the memcg's (its OOM events) or the node's */
		json_object_set_new(j, "error", json_string(strerror(-err)));
		json_object_set_new(j, "memcg_oom_events", json_integer(
			atomic_long_read(&leaf->memory_events[MEMCG_OOM])));
		json_object_set_new(j, "node_free_pages", json_integer(
			(json_int_t)zone_free_pages_exact(&NODE_DATA(0)->node_zones[ZONE_NORMAL])));
		if (text)
			fprintf(text, "out of memory: leaf memory.events oom %ld, node 0 free pages %lu\n",
				atomic_long_read(&leaf->memory_events[MEMCG_OOM]),
				zone_free_pages_exact(&NODE_DATA(0)->node_zones[ZONE_NORMAL]));
		for (i = 0; i < threads && t[i].err != -ENOMEM; i++)
			;
		if (i < threads)
			usemem_report_oom(t[i].oom_lists, text, j);
	}
	*json = j;
	mem_cgroup_offline(leaf);
	mem_cgroup_offline(parent);
	free(t);
	swapoff();
	lrulab_exit();
	lrulab_switches_clear();
	return err || bad || !recorded ? 1 : 0;
#undef d
}

json_t *bench_usemem_json_shape(const struct bench_opts *o)
{
	/* one second, so that every rate is a number (0), none NaN */
	struct usemem_figures f = { .type = "anon", .threads = 1, .secs = 1 };

	return usemem_json(o, &f);
}

static void usemem_defaults(struct bench_opts *o)
{
	o->threads[0] = 2;
	o->nr_threads = 1;
	/*
	 * The s1 mail's 256M a process: its leaf (an eighth) turns over a
	 * few times in a FLUSH_TIME here, where the kernel's flush timing
	 * holds; 8M's 1M leaf turned over some 300 times in one and walked
	 * into the stale-stats corner's OOM within 2 s.
	 */
	o->mem = 256UL << 20;
	o->seconds = 2.0;
}

/* Options of the harness that usemem has no use for, and the checks it needs. */
int bench_usemem_check(const char *prog, const struct bench_opts *o)
{
	int i;

	if (o->loops) {
		fprintf(stderr, "%s: --loops: usemem runs for --seconds\n", prog);
		return -1;
	}
	if (o->memcgs != 1 || o->folio_order || o->fault_work_ns || o->profile_hold) {
		fprintf(stderr, "%s: --memcgs, --folio-size, --fault-work and --profile-hold do not apply to usemem\n",
			prog);
		return -1;
	}
	if ((o->pattern_given || o->fadvise >= 0 || o->read_ahead_kb || o->read_latency_us >= 0) &&
	    (!o->regular || o->mixed)) {
		fprintf(stderr, "%s: --pattern, --fadvise, --read-ahead-kb and --read-latency: only --type file reads a file that way\n",
			prog);
		return -1;
	}
	if (o->swap_latency_us >= 0 && !o->swap_async) {
		fprintf(stderr, "%s: --swap-latency: only the async device (--swap-io async) has one\n",
			prog);
		return -1;
	}
	if (o->mem % PAGE_SIZE || !o->mem) {
		fprintf(stderr, "%s: --mem: must be a positive multiple of 4K\n", prog);
		return -1;
	}
	for (i = 0; i < NR_LRULAB_SWITCHES; i++)
		if (i != SW_VMSTAT_SCAN_COST && i != SW_LRU_GEN && o->sw[i] >= 0) {
			fprintf(stderr, "%s: --with/--without %s: only vmstat-scan-cost and lru-gen apply to usemem\n",
				prog, lrulab_switch_name(i));
			return -1;
		}
	for (i = 0; i < o->nr_threads; i++)
		if (usemem_max_pages(o, o->threads[i]) >=
		    o->mem / PAGE_SIZE * (unsigned long)o->threads[i]) {
			fprintf(stderr, "%s: the working set (--mem x --threads) must exceed memory.max (--max, at least 1M per thread by default)\n",
				prog);
			return -1;
		}
	return 0;
}

static int usemem_main(const struct bench_workload *w, const char *prog,
		       struct bench_opts *o)
{
	int i, ret, status = 0;

	if (bench_usemem_check(prog, o))
		return 2;
	for (i = 0; i < o->nr_threads; i++) {
		json_t *j;

		if (i && !o->json)
			printf("\n");
		ret = bench_usemem_run(o, o->threads[i], o->json ? NULL : stdout, &j);
		if (ret < 0) {
			fprintf(stderr, "%s: cannot set up the model for %ld threads: %s\n", prog,
				o->threads[i], strerror(-ret));
			return bench_exit_status(1);
		}
		if (o->json)
			bench_json_line(j);
		fflush(stdout);
		bench_show_print(o, usemem_show);
		usemem_show = NULL;
		if (ret) {
			fprintf(stderr, "%s: %s\n", prog,
				json_object_get(j, "error") ? "a worker failed: out of memory" :
				"invariants violated");
			status = 1;
		}
		json_decref(j);
		/* the thread counts after an interrupted one do not run */
		if (bench_interrupted)
			break;
	}
	return bench_exit_status(status);
}

const struct bench_workload usemem_workload = {
	.name = "usemem",
	.summary = "s1: usemem --prealloc --prefault --random, N threads in a two-level memcg whose\n"
		   "leaf memory.max is an eighth of the working set (--max; at least 1M per thread):\n"
		   "continuous reclaim, swap-out and refaults.  --mem is the working set per thread\n"
		   "(default 256M, the mail's), --seconds the measured window after the prefault\n"
		   "(default 2).\n"
		   "--type file reads a regular file instead: 4K pread()s through the page cache\n"
		   "with the kernel's readahead (up to --read-ahead-kb, default 128; `lrulab host\n"
		   "usemem` prints the host disk's), of the pages --pattern gives (random, zipf:A,\n"
		   "seq; default random), the file advised as --fadvise says; clean page cache\n"
		   "dropped and refaulted, no swap, vmstat and memory.stat deltas; --read-latency\n"
		   "US: a device read each miss sleeps through (default 100, an SSD's; 0: memory\n"
		   "speed).  --type mixed\n"
		   "splits the working set between anon writes and file reads, so the anon/file\n"
		   "scan balance decides.  --swap copy stores swapped pages with memcpy instead\n"
		   "of zstd (zram's cost, the default).  The memcg stats flush is the kernel's\n"
		   "(every 2 s; --flush-ms): the run reports the leaf's turnovers per period and\n"
		   "how often reclaim read sizes from the stale-stats corner.\n"
		   "--swap-io async swaps to a disk, as the mail's swap file: writes end\n"
		   "--swap-latency US later (default 100) and rotate their folios to the\n"
		   "inactive tail (pgrotated), and a swap-in sleeps as long for its read;\n"
		   "pages are copied unless --swap zstd.  The default, sync, is zram's:\n"
		   "written and freed in the same pass, read back with no wait.",
	.opts = BENCH_OPT_TYPE | BENCH_OPT_MAX | BENCH_OPT_TYPE_FILE | BENCH_OPT_SWAP |
		BENCH_OPT_PATTERN,
	.defaults = usemem_defaults,
	.main = usemem_main,
};

/* `lrulab usemem`: the same as `lrulab bench usemem` */
int cmd_usemem(int argc, char **argv)
{
	const struct bench_workload *w = &usemem_workload;
	const char *prog = "lrulab usemem";
	struct bench_opts o;
	int ret;

	bench_defaults(w, &o);
	ret = bench_parse(w, prog, argc, argv, &o);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (bench_signals_catch()) {
		fprintf(stderr, "%s: cannot catch SIGINT and SIGTERM\n", prog);
		return 1;
	}
	return w->main(w, prog, &o);
}
