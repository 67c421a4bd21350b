// SPDX-License-Identifier: MIT
/*
 * The address space's events (mm/memory.c): each kind counted exactly in
 * a recording of faults and an MADV_DONTNEED on the model, through the
 * recording file; and the engine's cost of each on synthetic streams
 * against its closed form (an mm counter's fold at the percpu batch for
 * N, a TLB flush's IPI round, the prefetch that costs its issuer
 * nothing, a VMA's refcount line private or shared, clearing against a
 * socket's bandwidth, a device's read wait at any core speed, and
 * nothing shared when the CPUs are processes); and a device's waits
 * recorded as its latency, not as work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include <lrulab/fs.h>
#include <lrulab/lrulab.h>
#include "predict/predict.h"

#include "mm_test.h"

static int setup(void **state)
{
	return mm_test_setup(1);
}

static spinlock_t after_lock;

static u32 count_kind(const struct pred_recording *rec, enum pred_event_kind kind, double *arg)
{
	u32 n = 0, k;
	int i;

	*arg = 0;
	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr_events; k++)
			if (rec->traces[i].events[k].kind == kind) {
				n++;
				*arg += (int)rec->traces[i].events[k].arg;
			}
	return n;
}

/*
 * Two PTE tables of order-0 anon pages faulted one by one, then one
 * MADV_DONTNEED of the whole VMA: every fault prefetches mmap_lock's
 * line, takes and drops the VMA's read lock and adds one page to the mm
 * counter; the first fault in each table allocates it (and clears its
 * page); the madvise takes the VMA lock, begins and ends a gather, adds
 * -512 once per table, frees both tables and flushes once.
 */
#define TABLES 2
#define PAGES (TABLES * PTRS_PER_PTE)

static void test_record_mm_events(void **state)
{
	char path[] = "/tmp/lrulab-test-mm-events-XXXXXX";
	struct pred_recording rec, back;
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *vma = mmap_anon(mm, PAGES * PAGE_SIZE, 0);
	int fd = mkstemp(path), pass;
	unsigned long i;
	double arg;

	assert_true(fd >= 0);
	close(fd);
	assert_non_null(vma);
	spin_lock_init(&after_lock);
	assert_int_equal(pred_record_start(), 0);
	/* the recording's events go with acquisitions: one before them all */
	spin_lock_at(&after_lock, LOCK_SITE("test_after"));
	spin_unlock(&after_lock);
	for (i = 0; i < PAGES; i++)
		assert_int_equal(handle_mm_fault(vma, vma->vm_start + i * PAGE_SIZE,
						 FAULT_FLAG_WRITE), 0);
	assert_int_equal(pte_table_pages(), TABLES);
	madvise_dontneed_single_vma(vma, vma->vm_start, PAGES * PAGE_SIZE);
	assert_int_equal(pte_table_pages(), 0);
	/* an acquisition after it all, for the last events to go with */
	spin_lock_at(&after_lock, LOCK_SITE("test_after"));
	spin_unlock(&after_lock);
	assert_int_equal(pred_record_stop(&rec), 0);
	rec.pages = PAGES;
	rec.one_process = 1;
	assert_int_equal(pred_recording_write("test", path, &rec), 0);
	assert_int_equal(pred_recording_read("test", path, &back), 0);
	assert_int_equal(back.one_process, 1);
	for (pass = 0; pass < 2; pass++) {
		const struct pred_recording *r = pass ? &back : &rec;

		assert_int_equal(count_kind(r, PRED_EV_MMAP_PREFETCH, &arg), PAGES);
		assert_int_equal(count_kind(r, PRED_EV_VMA_REFCNT, &arg), 2 * PAGES + 2);
		/* taken and dropped: arg 1 then 0, each time */
		assert_true(arg == PAGES + 1);
		assert_int_equal(count_kind(r, PRED_EV_RSS, &arg), PAGES + TABLES);
		assert_true(arg == 0);
		assert_int_equal(count_kind(r, PRED_EV_TLB_PENDING, &arg), 2);
		assert_int_equal(count_kind(r, PRED_EV_TLB_FLUSH, &arg), 1);
		assert_true(arg == PAGES);
		assert_int_equal(count_kind(r, PRED_EV_PTE_TABLE, &arg), 2 * TABLES);
		assert_true(arg == TABLES);
		assert_int_equal(count_kind(r, PRED_EV_CLEAR, &arg), PAGES + TABLES);
		assert_true(arg == (double)(PAGES + TABLES) * PAGE_SIZE);
	}
	/* the flush said it freed tables */
	for (i = 0; i < back.traces[0].nr_events; i++)
		if (back.traces[0].events[i].kind == PRED_EV_TLB_FLUSH)
			assert_int_equal(back.traces[0].events[i].threshold, 1);
	pred_recording_free(&back);
	pred_recording_free(&rec);
	unlink(path);
	mmput(mm);
}

/*
 * Whether the VMA lock's events say the process's threads share the
 * line, through the file: 16 faults (and a DONTNEED) in a VMA, then a
 * count of the events flagged.  An anonymous range of a PMD multiple,
 * last in the mm, takes in the next thread's: every event is flagged;
 * a second thread's range merged into it: still; a shmem file's
 * mapping, or an anonymous VMA something else was mapped after, never.
 */
static u32 record_vma_flags(struct vm_area_struct *vma, unsigned long start, u32 *events)
{
	char path[] = "/tmp/lrulab-test-vma-shared-XXXXXX";
	struct pred_recording rec, back;
	int fd = mkstemp(path);
	u32 flagged = 0, k;
	unsigned long i;
	int t;

	assert_true(fd >= 0);
	close(fd);
	spin_lock_init(&after_lock);
	assert_int_equal(pred_record_start(), 0);
	spin_lock_at(&after_lock, LOCK_SITE("test_after"));
	spin_unlock(&after_lock);
	for (i = 0; i < 16; i++)
		assert_int_equal(handle_mm_fault(vma, start + i * PAGE_SIZE, FAULT_FLAG_WRITE), 0);
	madvise_dontneed_single_vma(vma, start, 16 * PAGE_SIZE);
	spin_lock_at(&after_lock, LOCK_SITE("test_after"));
	spin_unlock(&after_lock);
	assert_int_equal(pred_record_stop(&rec), 0);
	rec.pages = 16;
	rec.one_process = 1;
	/* four recordings in one process: each names only its own locks */
	assert_int_equal(pred_recording_write("test", path, &rec), 0);
	assert_int_equal(pred_recording_read("test", path, &back), 0);
	*events = 0;
	for (t = 0; t < back.nr_traces; t++)
		for (k = 0; k < back.traces[t].nr_events; k++)
			if (back.traces[t].events[k].kind == PRED_EV_VMA_REFCNT) {
				(*events)++;
				flagged += back.traces[t].events[k].threshold;
			}
	pred_recording_free(&back);
	pred_recording_free(&rec);
	unlink(path);
	return flagged;
}

static void test_record_vma_shared(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct address_space *file = shmem_file_setup(16, 0);
	struct vm_area_struct *anon, *shm, *alone;
	unsigned long a0, a1;
	u32 n;

	a0 = do_mmap_anon(mm, PMD_SIZE, 0);
	anon = find_vma(mm, a0);
	assert_true(vma_merges_next(anon));
	assert_int_equal(record_vma_flags(anon, a0, &n), 2 * 16 + 2);
	assert_int_equal(n, 2 * 16 + 2);
	/* the next thread's range merges: one VMA, two ranges, flagged */
	a1 = do_mmap_anon(mm, PMD_SIZE, 0);
	assert_ptr_equal(find_vma(mm, a1), anon);
	assert_int_equal(record_vma_flags(anon, a1, &n), 2 * 16 + 2);
	/* a file's mapping after it: nothing merges with either any more */
	shm = mmap_shmem(mm, file, 0, 16 * PAGE_SIZE);
	assert_false(vma_merges_next(shm));
	assert_int_equal(record_vma_flags(shm, shm->vm_start, &n), 0);
	assert_int_equal(n, 2 * 16 + 2);
	/* an anonymous VMA alone, another mapping after it */
	alone = mmap_anon(mm, 16 * PAGE_SIZE, 0);
	assert_non_null(mmap_anon(mm, 16 * PAGE_SIZE, 0));
	assert_false(vma_merges_next(alone));
	assert_int_equal(record_vma_flags(alone, alone->vm_start, &n), 0);
	assert_int_equal(n, 2 * 16 + 2);
	assert_int_equal(mm_vma_count(mm), 4);
	mmput(mm);
	shmem_file_free(file);
}

/* --vma own: a PROT_NONE guard after each range keeps every one a VMA of its own */
static void test_vma_guard(void **state)
{
	struct mm_struct *mm = mm_alloc(memcg);
	struct vm_area_struct *first, *second;
	unsigned long a0, a1;
	u32 n;

	a0 = do_mmap_anon(mm, PMD_SIZE, 0);
	first = find_vma(mm, a0);
	assert_true(do_mmap_guard(mm, PAGE_SIZE) > a0);
	assert_false(vma_merges_next(first));
	a1 = do_mmap_anon(mm, PMD_SIZE, 0);
	second = find_vma(mm, a1);
	assert_ptr_not_equal(second, first);
	assert_true(do_mmap_guard(mm, PAGE_SIZE) > a1);
	assert_int_equal(record_vma_flags(first, a0, &n), 0);
	assert_int_equal(n, 2 * 16 + 2);
	assert_int_equal(record_vma_flags(second, a1, &n), 0);
	assert_int_equal(mm_vma_count(mm), 4);
	errno = 0;
	assert_int_equal(do_mmap_guard(NULL, PAGE_SIZE), 0);
	assert_int_equal(errno, EINVAL);
	mmput(mm);
}

/* ---- the engine: one event of a kind with every acquisition ---- */

struct mm_gen {
	struct pred_event ev;
};

static void mm_next(struct pred_source *src, int cpu, struct pred_op *op)
{
	*op = (struct pred_op){ .work_ns = 100, .hold_ns = 50 };
}

static u32 mm_events(struct pred_source *src, int cpu, const struct pred_event **ev)
{
	*ev = &((struct mm_gen *)src->arg)->ev;
	return 1;
}

/* the IPI's handler and send times of the next mm_sim(): 0, the line transfers only */
static double ipi_h, ipi_send;
/* the target's work over the recording's, for the next mm_sim() */
static double work_scale = 1;

/* @events(@arg) gives each op's events: one CPU count simulated into @r */
/* the target's CPUs online for mm_sim_events() (0: as many as run) */
static int sim_online;

static void mm_sim_events(u32 (*events)(struct pred_source *, int, const struct pred_event **),
			  void *arg, int cpus, u64 per_cpu, bool one_process, bool shared_vma,
			  double mem_bw, struct pred_result *r)
{
	struct pred_costs c = { .work_scale = work_scale, .hold_scale = 1, .xfer_socket = 40,
				.mem_bw = mem_bw, .ipi_target_ns = ipi_h, .ipi_send_ns = ipi_send };
	struct pred_lock lock = { .scope = PRED_PRIVATE };
	struct pred_source src = { .next = mm_next, .events = events, .arg = arg };
	struct pred_sim_opts o = {
		.cpus = cpus, .impl = LOCK_QSPINLOCK, .costs = &c, .nr_locks = 1,
		.locks = &lock, .nr_sites = 1, .nr_lines = 2, .nr_counters = 1,
		.acquisitions = per_cpu * cpus, .src = &src, .one_process = one_process,
		.shared_vma = shared_vma, .online = sim_online,
	};

	assert_int_equal(pred_simulate(&o, r), 0);
}

static void mm_sim(struct mm_gen *g, int cpus, u64 per_cpu, bool one_process, bool shared_vma,
		   double mem_bw, struct pred_result *r)
{
	mm_sim_events(mm_events, g, cpus, per_cpu, one_process, shared_vma, mem_bw, r);
}

/*
 * +4 pages a fault: the per-CPU delta folds when it reaches the batch,
 * max(32, 2 online): every 8 faults at 2 CPUs, every 10 at 20, every 40 at
 * 80, and every 40 on one CPU of 80 online.
 */
static void test_rss_fold_batch(void **state)
{
	struct mm_gen g = { { .line = 0, .line2 = PRED_NO_LINE, .kind = PRED_EV_RSS,
			      .arg = 4 } };
	static const int cpus[] = { 2, 20, 80 }, every[] = { 8, 10, 40 };
	struct pred_result r;
	int i;

	for (i = 0; i < 3; i++) {
		mm_sim(&g, cpus[i], 400, true, false, 0, &r);
		/* each CPU folds at every[i]-th of its own: within a fold a CPU of the lot */
		assert_true(r.ev_kept[PRED_EV_RSS] <= r.ev_seen[PRED_EV_RSS] / every[i]);
		assert_true(r.ev_kept[PRED_EV_RSS] + cpus[i] >= r.ev_seen[PRED_EV_RSS] / every[i]);
		pred_result_free(&r);
	}
	/* one CPU: exactly every 8th of its 401 */
	mm_sim(&g, 1, 400, true, false, 0, &r);
	assert_int_equal(r.ev_seen[PRED_EV_RSS], 401);
	assert_int_equal(r.ev_kept[PRED_EV_RSS], 50);
	pred_result_free(&r);
	/* one CPU of 80 online: the batch is 160, every 40th */
	sim_online = 80;
	mm_sim(&g, 1, 400, true, false, 0, &r);
	sim_online = 0;
	assert_int_equal(r.ev_kept[PRED_EV_RSS], 10);
	pred_result_free(&r);
	/* a table's zap, -512, folds at once */
	g.ev.arg = (u32)-512;
	mm_sim(&g, 2, 100, true, false, 0, &r);
	assert_int_equal(r.ev_kept[PRED_EV_RSS], r.ev_seen[PRED_EV_RSS]);
	pred_result_free(&r);
}

/*
 * A flush without a line of its own (only the IPI round): the flusher
 * sends to the N - 1 others one after another (a transfer each) and
 * waits for the last one's ack: 2 transfers to it and back, one more
 * home, (N - 1) 40 + 120 ns; each target pays two transfers, 80 ns.
 */
static void test_tlb_ipi_round(void **state)
{
	struct mm_gen g = { { .line = PRED_NO_LINE, .line2 = PRED_NO_LINE,
			      .kind = PRED_EV_TLB_FLUSH, .arg = 4096 } };
	static const int cpus[] = { 2, 20, 80 };
	struct pred_result r;
	int i;

	for (i = 0; i < 3; i++) {
		int n = cpus[i];
		double flusher = (n - 1) * 40.0 + 120;

		mm_sim(&g, n, 50, true, false, 0, &r);
		assert_int_equal(r.ipis, r.ev_seen[PRED_EV_TLB_FLUSH] * (u64)(n - 1));
		assert_true(fabs(r.ipi_target_ns - 80.0 * r.ipis) < 1e-6 * r.ipi_target_ns);
		assert_true(fabs(r.ev_ns[PRED_EV_TLB_FLUSH] -
				 (r.ev_seen[PRED_EV_TLB_FLUSH] * flusher + 80.0 * r.ipis)) <
			    1e-6 * r.ev_ns[PRED_EV_TLB_FLUSH]);
		pred_result_free(&r);
	}
	/* processes of their own: no other CPU runs the mm */
	mm_sim(&g, 20, 50, false, false, 0, &r);
	assert_int_equal(r.ipis, 0);
	assert_true(r.ev_ns[PRED_EV_TLB_FLUSH] == 0);
	pred_result_free(&r);
}

/*
 * With a handler time h = 1000 and a send time of 500 ns a target, the
 * flusher's sends take (N - 1) (40 + 500), the last target's ack 2
 * transfers, h and one more home; each target pays 80 + h.
 */
static void test_tlb_ipi_times(void **state)
{
	struct mm_gen g = { { .line = PRED_NO_LINE, .line2 = PRED_NO_LINE,
			      .kind = PRED_EV_TLB_FLUSH, .arg = 4096 } };
	static const int cpus[] = { 2, 20 };
	struct pred_result r;
	int i;

	ipi_h = 1000;
	ipi_send = 500;
	for (i = 0; i < 2; i++) {
		int n = cpus[i];
		double flusher = (n - 1) * 540.0 + 120 + 1000, target = 1080;

		mm_sim(&g, n, 50, true, false, 0, &r);
		assert_int_equal(r.ipis, r.ev_seen[PRED_EV_TLB_FLUSH] * (u64)(n - 1));
		assert_true(fabs(r.ipi_target_ns - target * r.ipis) < 1e-6 * r.ipi_target_ns);
		assert_true(fabs(r.ev_ns[PRED_EV_TLB_FLUSH] -
				 (r.ev_seen[PRED_EV_TLB_FLUSH] * flusher + target * r.ipis)) <
			    1e-6 * r.ev_ns[PRED_EV_TLB_FLUSH]);
		pred_result_free(&r);
	}
	ipi_h = ipi_send = 0;
}

/* ---- reclaim's flushes: an op's events, several kinds ---- */

struct mm_gen_n {
	struct pred_event ev[2];
	u32 n;
	struct pred_event other;	/* the other CPUs' one event, if n_other */
	u32 n_other;
};

static u32 mm_events_n(struct pred_source *src, int cpu, const struct pred_event **ev)
{
	struct mm_gen_n *g = src->arg;

	if (cpu && g->n_other) {
		*ev = &g->other;
		return g->n_other;
	}
	*ev = g->ev;
	return g->n;
}

static void mm_sim_n(struct mm_gen_n *g, int cpus, u64 per_cpu, bool one_process,
		     struct pred_result *r)
{
	mm_sim_events(mm_events_n, g, cpus, per_cpu, one_process, false, 0, r);
}

static struct pred_event ev_of(enum pred_event_kind kind, u32 arg)
{
	return (struct pred_event){ .line = PRED_NO_LINE, .line2 = PRED_NO_LINE,
				    .kind = (u8)kind, .arg = arg };
}

/*
 * A dirty page reclaim unmapped is flushed at once.  Threads of one
 * process: every other CPU ran the mm, so a round to all N - 1, (N - 1)
 * 540 + 120 + 1000 on the flusher (send 40 + 500 each, the last ack 2
 * transfers, h and one home) and 80 + h on each target.  A process each:
 * the page is one of N processes' alike, a round to its CPU unless it
 * is the reclaimer's own, one time in N.
 */
static void test_reclaim_flush_rounds(void **state)
{
	struct mm_gen_n g = { .ev = { ev_of(PRED_EV_RMAP_UNMAP, 1) }, .n = 1 };
	static const int cpus[] = { 2, 20 };
	struct pred_result r;
	int i;

	ipi_h = 1000;
	ipi_send = 500;
	for (i = 0; i < 2; i++) {
		int n = cpus[i];
		double flusher = (n - 1) * 540.0 + 120 + 1000, one = 540.0 + 120 + 1000;
		u64 seen;

		mm_sim_n(&g, n, 50, true, &r);
		seen = r.ev_seen[PRED_EV_RMAP_UNMAP];
		assert_int_equal(r.ipis, seen * (u64)(n - 1));
		assert_true(fabs(r.ipi_target_ns - 1080.0 * r.ipis) < 1e-6 * r.ipi_target_ns);
		/* the flusher's part is the unmap's, the targets' the batch's */
		assert_true(fabs(r.ev_ns[PRED_EV_RMAP_UNMAP] - seen * flusher) <
			    1e-6 * r.ev_ns[PRED_EV_RMAP_UNMAP]);
		assert_true(fabs(r.ev_ns[PRED_EV_TLB_BATCH] - 1080.0 * r.ipis) <
			    1e-6 * r.ev_ns[PRED_EV_TLB_BATCH]);
		assert_true(r.ev_ns[PRED_EV_TLB_FLUSH] == 0);
		pred_result_free(&r);

		mm_sim_n(&g, n, 200, false, &r);
		seen = r.ev_seen[PRED_EV_RMAP_UNMAP];
		/* one target a round: (n - 1) / n of the pages, within a tenth */
		assert_true(fabs((double)r.ipis / seen - (n - 1.0) / n) < 0.1);
		assert_true(fabs(r.ev_ns[PRED_EV_RMAP_UNMAP] + r.ev_ns[PRED_EV_TLB_BATCH] -
				 r.ipis * (one + 1080.0)) < 1e-6 * r.ev_ns[PRED_EV_TLB_BATCH]);
		pred_result_free(&r);
	}
	ipi_h = ipi_send = 0;
}

/*
 * Clean pages wait in the batch for its flush point: none, no IPI at
 * all; one after each page, the same rounds as dirty ones.  A CPU asleep
 * for its device is lazy and gets none: with the 7 others asleep 20 us
 * an op, CPU 0's rounds find them awake about 150 ns in 20 us.
 */
static void test_reclaim_flush_batch_lazy(void **state)
{
	struct mm_gen_n g = { .ev = { ev_of(PRED_EV_RMAP_UNMAP, 0) }, .n = 1 };
	struct pred_result r;

	ipi_h = 1000;
	ipi_send = 500;
	mm_sim_n(&g, 8, 50, true, &r);
	assert_int_equal(r.ipis, 0);
	assert_true(r.ev_ns[PRED_EV_TLB_BATCH] == 0);
	pred_result_free(&r);

	g.ev[1] = ev_of(PRED_EV_TLB_BATCH, 0);
	g.n = 2;
	mm_sim_n(&g, 8, 50, true, &r);
	assert_int_equal(r.ipis, r.ev_seen[PRED_EV_TLB_BATCH] * 7);
	pred_result_free(&r);

	g.other = ev_of(PRED_EV_IO_WAIT, 20000);
	g.n_other = 1;
	mm_sim_n(&g, 8, 2000, true, &r);
	assert_true(r.ipis > 0);
	assert_true(r.ipis < r.ev_seen[PRED_EV_TLB_BATCH] * 7 / 20);
	pred_result_free(&r);
	ipi_h = ipi_send = 0;
}

/*
 * mmap_lock's prefetch costs the faulting CPU nothing; a VMA's refcount
 * line is the thread's own (nothing) unless every thread shares the VMA,
 * when it serves one CPU at a time: one transfer an acquisition at most
 * when the lock is dropped, 1/40 per ns with 8 CPUs that want more.
 */
static void test_prefetch_and_vma(void **state)
{
	struct mm_gen g = { { .line = 0, .line2 = PRED_NO_LINE,
			      .kind = PRED_EV_MMAP_PREFETCH } };
	struct pred_result r;

	mm_sim(&g, 8, 1000, true, false, 0, &r);
	assert_true(r.ev_ns[PRED_EV_MMAP_PREFETCH] == 0);
	/* 8 prefetches a 150 ns cycle want the line 2.1 times over: nobody waits */
	assert_true(r.line_wait_ns == 0);
	assert_int_equal(r.ev_kept[PRED_EV_MMAP_PREFETCH], r.ev_seen[PRED_EV_MMAP_PREFETCH]);
	/* 8 CPUs of 150 ns cycles: as if alone */
	assert_true(fabs(r.x_steady * 150 / 8 - 1) < 1e-9);
	pred_result_free(&r);

	g.ev.kind = PRED_EV_VMA_REFCNT;
	mm_sim(&g, 8, 1000, true, false, 0, &r);
	assert_true(r.ev_ns[PRED_EV_VMA_REFCNT] == 0);
	pred_result_free(&r);
	mm_sim(&g, 8, 1000, true, true, 0, &r);
	assert_true(fabs(r.x_steady * 40 - 1) < 1e-9);
	pred_result_free(&r);
	/* the event's own flag (the mm merged the threads' ranges): the same line */
	g.ev.threshold = 1;
	mm_sim(&g, 8, 1000, true, false, 0, &r);
	assert_true(fabs(r.x_steady * 40 - 1) < 1e-9);
	pred_result_free(&r);
	/*
	 * Taking the read lock (arg 1) reads the count and then cmpxchgs it:
	 * two fetches of the shared line an acquisition, 1/80 per ns (the
	 * first, of a line no CPU had yet, fetches nothing).
	 */
	g.ev.arg = 1;
	mm_sim(&g, 8, 1000, true, false, 0, &r);
	assert_true(fabs(r.x_steady * 80 - 1) < 1e-9);
	assert_int_equal(r.ev_xfers, 2 * r.ev_seen[PRED_EV_VMA_REFCNT] - 2);
	pred_result_free(&r);
	g.ev.arg = 0;
	/* processes of their own share no VMA, whatever the flag */
	mm_sim(&g, 8, 1000, false, false, 0, &r);
	assert_true(r.ev_ns[PRED_EV_VMA_REFCNT] == 0);
	pred_result_free(&r);
}

/*
 * A fault's work drops the VMA read lock at its start and takes it again
 * for the next fault halfway through (a work's events fall evenly
 * through it): the other CPUs visit the line in between, so each
 * acquisition fetches it three times (the drop, the take's read and its
 * cmpxchg), 1/120 per ns for 8 CPUs that want more.  Costed together
 * at the work's start the take would find the line its own: 1/40.
 */
static struct pred_event vma_pair[2] = {
	{ .line = 0, .line2 = PRED_NO_LINE, .kind = PRED_EV_VMA_REFCNT, .threshold = 1 },
	{ .line = 0, .line2 = PRED_NO_LINE, .kind = PRED_EV_VMA_REFCNT, .threshold = 1, .arg = 1 },
};

static u32 vma_pair_events(struct pred_source *src, int cpu, const struct pred_event **ev)
{
	*ev = vma_pair;
	return 2;
}

static void test_work_events_spread(void **state)
{
	struct pred_costs c = { .work_scale = 1, .hold_scale = 1, .xfer_socket = 40 };
	struct pred_lock lock = { .scope = PRED_PRIVATE };
	struct pred_source src = { .next = mm_next, .events = vma_pair_events };
	struct pred_sim_opts o = {
		.cpus = 8, .impl = LOCK_QSPINLOCK, .costs = &c, .nr_locks = 1,
		.locks = &lock, .nr_sites = 1, .nr_lines = 2, .nr_counters = 1,
		.acquisitions = 8000, .src = &src, .one_process = true,
	};
	struct pred_result r;

	assert_int_equal(pred_simulate(&o, &r), 0);
	assert_true(fabs(r.x_steady * 120 - 1) < 1e-4);
	/* every visit a transfer: a drop one, a take two; a CPU's op at most in flight */
	assert_true(r.ev_xfers + 8 >= r.ev_seen[PRED_EV_VMA_REFCNT] + r.acquisitions);
	assert_true(r.ev_xfers <= r.ev_seen[PRED_EV_VMA_REFCNT] + r.acquisitions + 8);
	pred_result_free(&r);
}

/*
 * 4 KiB clears at 8 bytes/ns: a socket's memory serves one each 512 ns.
 * One CPU of 150 ns cycles never waits (its own clears are in its work,
 * and it asks every 150 + wait ns, at most 1/512); four CPUs want 4/150
 * per ns and get 1/512.  No bandwidth in the profile: nothing waits.
 */
static void test_clear_bandwidth(void **state)
{
	struct mm_gen g = { { .line = 0, .line2 = PRED_NO_LINE, .kind = PRED_EV_CLEAR,
			      .arg = 4096 } };
	struct pred_result r;

	mm_sim(&g, 4, 2000, true, false, 8, &r);
	assert_true(fabs(r.x_steady * 512 - 1) < 1e-3);
	assert_true(r.bw_wait_ns > 0 && r.bw_wait_ns == r.ev_ns[PRED_EV_CLEAR]);
	pred_result_free(&r);

	mm_sim(&g, 4, 2000, true, false, 0, &r);
	assert_true(r.ev_ns[PRED_EV_CLEAR] == 0);
	assert_true(fabs(r.x_steady * 150 / 4 - 1) < 1e-9);
	pred_result_free(&r);
}

/*
 * A read's 1000 ns wait for its device, in 100 ns of work and a 50 ns
 * hold of a lock of its own: every CPU runs a cycle of 1150 ns, threads
 * of one process or not, whatever N.  The target's core at half the
 * speed doubles the work and leaves the device's time alone: 1250 ns.
 */
static void test_io_wait(void **state)
{
	struct mm_gen g = { { .line = 0, .line2 = PRED_NO_LINE, .kind = PRED_EV_IO_WAIT,
			      .arg = 1000 } };
	static const int cpus[] = { 1, 20 };
	struct pred_result r;
	int i, shared;

	for (shared = 0; shared < 2; shared++)
		for (i = 0; i < 2; i++) {
			mm_sim(&g, cpus[i], 500, shared, false, 0, &r);
			assert_true(fabs(r.x_steady * 1150 / cpus[i] - 1) < 1e-9);
			assert_true(r.ev_ns[PRED_EV_IO_WAIT] == 1000.0 * r.ev_seen[PRED_EV_IO_WAIT]);
			assert_int_equal(r.ev_xfers, 0);
			assert_true(r.ev_xfer_ns == 0);
			pred_result_free(&r);
		}
	work_scale = 2;
	mm_sim(&g, 4, 500, true, false, 0, &r);
	work_scale = 1;
	assert_true(fabs(r.x_steady * 1250 / 4 - 1) < 1e-9);
	pred_result_free(&r);
}

/*
 * Three misses of a file on a device of 450 us (under the half
 * millisecond a work may take before it counts as the thread losing
 * its processor), recorded between two acquisitions: three device waits
 * of 450 us in the recording, and the 1350 us slept are no work (what
 * is left, reading three pages, is far under one latency).  Under a
 * sanitizer the reads alone may take that long: the test needs the
 * release build's speed.
 */
static void test_record_io_wait(void **state)
{
	struct address_space *mapping;
	struct pred_recording rec;
	double arg, work = 0;
	struct file file;
	char buf[PAGE_SIZE];
	u32 k;
	int i;

#ifdef LRULAB_SANITIZE
	skip();
#endif
	mapping = file_setup(64);
	assert_non_null(mapping);
	mapping->read_latency_us = 450;
	file_open(&file, mapping);
	assert_int_equal(vfs_fadvise(&file, POSIX_FADV_RANDOM), 0);
	spin_lock_init(&after_lock);
	assert_int_equal(pred_record_start(), 0);
	spin_lock_at(&after_lock, LOCK_SITE("test_after"));
	spin_unlock(&after_lock);
	for (i = 0; i < 3; i++)
		assert_int_equal(filemap_read(&file, (long long)i * 10 * PAGE_SIZE, PAGE_SIZE,
					      memcg, buf), PAGE_SIZE);
	spin_lock_at(&after_lock, LOCK_SITE("test_after"));
	spin_unlock(&after_lock);
	assert_int_equal(pred_record_stop(&rec), 0);
	rec.pages = 3;
	assert_int_equal(count_kind(&rec, PRED_EV_IO_WAIT, &arg), 3);
	assert_true(arg == 3 * 450000.0);
	for (i = 0; i < rec.nr_traces; i++)
		for (k = 0; k < rec.traces[i].nr; k++)
			work += rec.traces[i].ops[k].work_ns;
	assert_true(work < 450000);
	pred_recording_free(&rec);
	file_free(mapping);
}

/* A process each: the mm's lines are each CPU's own, nothing to fetch. */
static void test_processes_share_nothing(void **state)
{
	static const enum pred_event_kind kinds[] = { PRED_EV_TLB_PENDING, PRED_EV_PTE_TABLE,
						      PRED_EV_RSS };
	struct pred_result r;
	int i;

	for (i = 0; i < 3; i++) {
		struct mm_gen g = { { .line = 0, .line2 = PRED_NO_LINE, .kind = (u8)kinds[i],
				      .arg = 1000 } };

		mm_sim(&g, 8, 500, false, false, 0, &r);
		assert_true(r.ev_ns[kinds[i]] == 0);
		pred_result_free(&r);
		/* one process: every write fetches the line from the CPU before */
		mm_sim(&g, 8, 500, true, false, 0, &r);
		assert_true(r.ev_ns[kinds[i]] > 0);
		pred_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_record_mm_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_vma_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vma_guard, setup, teardown),
		cmocka_unit_test(test_rss_fold_batch),
		cmocka_unit_test(test_tlb_ipi_round),
		cmocka_unit_test(test_tlb_ipi_times),
		cmocka_unit_test(test_reclaim_flush_rounds),
		cmocka_unit_test(test_reclaim_flush_batch_lazy),
		cmocka_unit_test(test_prefetch_and_vma),
		cmocka_unit_test(test_work_events_spread),
		cmocka_unit_test(test_clear_bandwidth),
		cmocka_unit_test(test_io_wait),
		cmocka_unit_test_setup_teardown(test_record_io_wait, setup, teardown),
		cmocka_unit_test(test_processes_share_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
