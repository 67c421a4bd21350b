// SPDX-License-Identifier: MIT
/*
 * Recording what a run does with its locks, for the predictor: per model
 * CPU, every acquisition in order (site, lock, work since the previous
 * release, hold), and per lock the shared cache lines its critical
 * sections write.
 *
 * The recorder is a consumer of the trace events (<lrulab/trace.h>): its
 * probes are registered only while a recording is on, and lib/lockstat.c
 * then times every hold, as full statistics do, and calls them from its
 * slow paths; each appends to the CPU's own buffer.  Nothing here runs
 * when no recording is on.
 *
 * Nested sections are flattened: an inner section's span (its wait and
 * hold) is taken off the hold of the section around it, and it is
 * recorded with no work before it, so that the sum over a trace is still
 * the thread's time and each lock is held for what it really was.
 *
 * Besides the locks, mm/ traces the shared lines a thread writes that
 * the kernel shares between CPUs (events): a vmstat fold (the
 * zone's or node's atomic and the global one), a memcg stats_updates
 * batch reaching the memcg's atomic, a page_counter charge or uncharge.
 * Each goes with the acquisition whose hold it happened in, or the one
 * whose work before it did.  Per-CPU data (the vmstat diffs, a CPU's
 * stats_updates, its charge stock, the mm counters of one thread's own
 * mm) is not shared and is not reported.  Events are rarer than
 * acquisitions (a fold every few dozen updates, a charge every
 * MEMCG_CHARGE_BATCH pages), and each is a few stores into the thread's
 * trace ring, inline where it happens, that the release of the outermost
 * hold drains into the CPU's buffer once the hold is timed.  The ring's
 * entries carry the context the lock probes set: the acquisition they
 * go with, inside its hold or before it.
 *
 * The address space's events (mm/memory.c) come the same way: the lines
 * of the mm every thread of a process shares (mmap_lock's, the mm
 * counters', tlb_flush_pending, the flush generation, pgtables_bytes),
 * the VMA's refcount line, TLB flushes and the bytes each fault clears.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/cpu.h>
#include <lrulab/tlbflush.h>
#include <lrulab/trace.h>

#include "predict/predict.h"
#include "record-internal.h"

#define CHUNK_OPS	(1U << 16)
#define CHUNK_EVENTS	(1U << 14)

#define MAX_LOCKS	65535
#define LOCK_HASH	(1U << 17)
#define OPEN_DEPTH	8

bool pred_recording;

struct rec_open {
	u32 slot;
	spinlock_t *lock;
	u64 nested;		/* spans of sections inside this one */
};

struct rec_cpu {
	struct pred_op **chunks;
	u32 nr_chunks, nr;
	struct rec_event **ev_chunks;
	u32 nr_ev_chunks, nr_ev;
	u64 mark;		/* the last release with nothing held */
	u64 slept;		/* device waits in the work since, drained before it was timed */
	const void *thread;	/* whose thread recorded last */
	int depth;
	struct rec_open open[OPEN_DEPTH];
};

static struct rec_cpu rec_cpus[LRULAB_MAX_CPUS];
static __thread char thread_token;
/* the recording (or reset) this thread's ring entries belong to */
static __thread u32 ring_gen;

static u32 rec_gen;

/* Where the CPU's next event goes: in the innermost open hold, or before the next acquisition. */
static void cursor_sync(struct rec_cpu *rc)
{
	/* a ring from before a reset goes with acquisitions no longer kept */
	if (ring_gen != READ_ONCE(rec_gen)) {
		trace_ring_discard();
		ring_gen = READ_ONCE(rec_gen);
	}
	trace_ring_set_context(rc->depth ? rc->open[rc->depth - 1].slot : rc->nr, rc->depth > 0,
			       rc->depth ? rc->open[rc->depth - 1].lock : NULL);
}

/* address -> lock index; lines and class kept for the file */
static pthread_mutex_t lock_mutex = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t lock_addr[LOCK_HASH];
static u16 lock_idx[LOCK_HASH];
struct rec_lock rec_locks[MAX_LOCKS + 1];
u32 rec_nr_locks;
static bool lock_overflow;

bool pred_recording_active(void)
{
	return READ_ONCE(pred_recording);
}

/* the lines its class says its holds write (mm/ attaches them), less the lock word's own */
static void lock_lines(struct rec_lock *rl, spinlock_t *l, const char *cls)
{
	uintptr_t word = (uintptr_t)l >> 6;
	uintptr_t cand[PRED_MAX_LINES];
	int n = lock_class_lines(cls, l, cand, PRED_MAX_LINES), i, j;

	rl->nr_lines = 0;
	for (i = 0; i < n; i++) {
		bool dup = cand[i] == word;

		for (j = 0; j < rl->nr_lines; j++)
			dup |= rl->lines[j] == cand[i];
		if (!dup)
			rl->lines[rl->nr_lines++] = cand[i];
	}
}

static u16 lock_index(spinlock_t *l, const struct lock_site *site)
{
	uintptr_t a = (uintptr_t)l;
	u32 h = (u32)((a >> 2) * 0x9e3779b1U) & (LOCK_HASH - 1);
	u16 idx;

	pthread_mutex_lock(&lock_mutex);
	while (lock_addr[h] && lock_addr[h] != a)
		h = (h + 1) & (LOCK_HASH - 1);
	if (lock_addr[h]) {
		idx = lock_idx[h];
	} else if (rec_nr_locks >= MAX_LOCKS) {
		lock_overflow = true;
		idx = MAX_LOCKS;
	} else {
		struct rec_lock *rl = &rec_locks[rec_nr_locks];

		idx = (u16)rec_nr_locks++;
		lock_addr[h] = a;
		lock_idx[h] = idx;
		rl->site = site->id;
		lock_lines(rl, l, site->cls);
	}
	pthread_mutex_unlock(&lock_mutex);
	return idx;
}

/*
 * A small per-thread cache in front of the table, good for one
 * generation: a new recording empties the table, and an index cached
 * in the one before would name another lock, or none (the reader
 * refused such a file, and the gather read past its arrays).
 */
#define LCACHE 16
static __thread struct { spinlock_t *l; u16 idx; u32 gen; } lcache[LCACHE];

static u16 lock_lookup(spinlock_t *l, const struct lock_site *site)
{
	u32 h = (u32)(((uintptr_t)l >> 2) & (LCACHE - 1)), gen = READ_ONCE(rec_gen);

	if (lcache[h].l != l || lcache[h].gen != gen) {
		lcache[h].idx = lock_index(l, site);
		lcache[h].l = l;
		lcache[h].gen = gen;
	}
	return lcache[h].idx;
}

static struct pred_op *slot_of(struct rec_cpu *rc, u32 slot)
{
	return &rc->chunks[slot / CHUNK_OPS][slot % CHUNK_OPS];
}

static int reserve(struct rec_cpu *rc, u32 *slot)
{
	if (rc->nr == rc->nr_chunks * CHUNK_OPS) {
		struct pred_op **c = realloc(rc->chunks, (rc->nr_chunks + 1) * sizeof(*c));

		if (!c)
			return -ENOMEM;
		rc->chunks = c;
		c[rc->nr_chunks] = malloc(CHUNK_OPS * sizeof(struct pred_op));
		if (!c[rc->nr_chunks])
			return -ENOMEM;
		rc->nr_chunks++;
	}
	*slot = rc->nr++;
	return 0;
}

static struct rec_cpu *this_rec(void)
{
	int cpu = lrulab_cpu;

	return cpu >= 0 && cpu < LRULAB_MAX_CPUS ? &rec_cpus[cpu] : NULL;
}

static void rec_acquired(void *data, spinlock_t *l, struct lock_site *site)
{
	struct rec_cpu *rc = this_rec();
	struct pred_op *op;
	u32 slot;

	if (!rc)
		return;
	if (rc->thread != &thread_token) {
		/* a new thread on this CPU (the next memcg's phase): no gap as work */
		rc->thread = &thread_token;
		rc->mark = 0;
		rc->slept = 0;
		rc->depth = 0;
	}
	if (rc->depth >= OPEN_DEPTH || reserve(rc, &slot))
		return;
	op = slot_of(rc, slot);
	op->site = (u16)site->id;
	op->lock = lock_lookup(l, site);
	op->work_ns = 0;
	op->hold_ns = 0;
	rc->open[rc->depth].slot = slot;
	rc->open[rc->depth].lock = l;
	rc->open[rc->depth].nested = 0;
	rc->depth++;
	cursor_sync(rc);
}

static u32 clamp32(u64 v)
{
	return v > 0xffffffffULL ? 0xffffffffU : (u32)v;
}

static void rec_released(void *data, spinlock_t *l, u64 t_req, u64 hold, u64 now)
{
	struct rec_cpu *rc = this_rec();
	struct pred_op *op;
	int i;

	if (!rc || rc->thread != &thread_token)
		return;
	for (i = rc->depth - 1; i >= 0; i--)
		if (rc->open[i].lock == l)
			break;
	if (i < 0)
		return;
	op = slot_of(rc, rc->open[i].slot);
	op->hold_ns = clamp32(hold > rc->open[i].nested ? hold - rc->open[i].nested : 0);
	if (i == 0) {
		u64 over = rec_overhead_ns;

		if (rc->mark && t_req > rc->mark + over + rc->slept)
			op->work_ns = clamp32(t_req - rc->mark - over - rc->slept);
		rc->slept = 0;
	} else {
		rc->open[i - 1].nested += now - t_req;
	}
	memmove(&rc->open[i], &rc->open[i + 1], (rc->depth - i - 1) * sizeof(rc->open[0]));
	rc->depth--;
	if (!rc->depth) {
		rc->mark = now;
		/* the hold is timed: the thread's ring goes to the buffer */
		if (trace_ring_self()->nr)
			trace_ring_drain();
	}
	cursor_sync(rc);
}

/* lockstat_reset(): what was recorded so far was the warm-up */
static void rec_reset(void *data)
{
	pred_record_reset();
}

void pred_record_reset(void)
{
	int c;

	WRITE_ONCE(rec_gen, rec_gen + 1);
	for (c = 0; c < LRULAB_MAX_CPUS; c++) {
		rec_cpus[c].nr = 0;
		rec_cpus[c].nr_ev = 0;
		rec_cpus[c].depth = 0;
		rec_cpus[c].mark = 0;
		rec_cpus[c].slept = 0;
	}
}

static void rec_free_all(void)
{
	int c;
	u32 i;

	WRITE_ONCE(rec_gen, rec_gen + 1);
	for (c = 0; c < LRULAB_MAX_CPUS; c++) {
		struct rec_cpu *rc = &rec_cpus[c];

		for (i = 0; i < rc->nr_chunks; i++)
			free(rc->chunks[i]);
		free(rc->chunks);
		for (i = 0; i < rc->nr_ev_chunks; i++)
			free(rc->ev_chunks[i]);
		free(rc->ev_chunks);
		memset(rc, 0, sizeof(*rc));
	}
	memset(lock_addr, 0, sizeof(lock_addr));
	rec_nr_locks = 0;
	lock_overflow = false;
}

static void rec_event(void *data, const struct trace_entry *e);

static const enum trace_event_id ring_events[] = {
	[PRED_EV_VMSTAT_FOLD] = TRACE_ID_vmstat_fold,
	[PRED_EV_MEMCG_SPILL] = TRACE_ID_memcg_batch,
	[PRED_EV_PAGE_COUNTER] = TRACE_ID_page_counter,
	[PRED_EV_PAIR_READ] = TRACE_ID_pair_read,
	[PRED_EV_MMAP_PREFETCH] = TRACE_ID_mmap_lock_prefetch,
	[PRED_EV_VMA_REFCNT] = TRACE_ID_vma_refcnt,
	[PRED_EV_RSS] = TRACE_ID_rss_counter,
	[PRED_EV_TLB_PENDING] = TRACE_ID_tlb_flush_pending,
	[PRED_EV_TLB_FLUSH] = TRACE_ID_tlb_flush,
	[PRED_EV_PTE_TABLE] = TRACE_ID_pte_table,
	[PRED_EV_CLEAR] = TRACE_ID_clear_page,
	[PRED_EV_IO_WAIT] = TRACE_ID_io_wait,
	[PRED_EV_RMAP_UNMAP] = TRACE_ID_rmap_unmap,
	[PRED_EV_TLB_BATCH] = TRACE_ID_tlb_batch_flush,
};

void pred_record_probes(bool on)
{
	int (*reg)(enum trace_event_id, trace_probe_fn, void *) =
		on ? trace_probe_register : trace_probe_unregister;
	unsigned int k;

	if (on == READ_ONCE(pred_recording))
		return;
	WRITE_ONCE(pred_recording, on);
	/* a recording's flushes send no IPIs: the engine costs each round at N */
	tlb_ipi_enable(!on);
	reg(TRACE_ID_lock_acquired, (trace_probe_fn)rec_acquired, NULL);
	reg(TRACE_ID_lock_released, (trace_probe_fn)rec_released, NULL);
	reg(TRACE_ID_lockstat_reset, (trace_probe_fn)rec_reset, NULL);
	for (k = 0; k < ARRAY_SIZE(ring_events); k++)
		reg(ring_events[k], (trace_probe_fn)rec_event, (void *)(uintptr_t)k);
	/* every thread's countdown to 0: the next acquisition takes the slow path */
	lockstat_set_mode(lockstat_mode);
}

int pred_record_start(void)
{
	rec_free_all();
	rec_overhead_ns = pred_record_overhead_ns();
	pred_record_probes(true);
	/* every thread's countdown to 0: the next acquisition takes the slow path */
	lockstat_set_mode(lockstat_mode == LOCKSTAT_OFF ? LOCKSTAT_SAMPLED : lockstat_mode);
	return 0;
}

u32 pred_record_trace_len(int cpu)
{
	return rec_cpus[cpu].nr;
}

void pred_record_trace_copy(int cpu, struct pred_op *out)
{
	struct rec_cpu *rc = &rec_cpus[cpu];
	u32 i;

	for (i = 0; i < rc->nr; i += CHUNK_OPS) {
		u32 n = rc->nr - i < CHUNK_OPS ? rc->nr - i : CHUNK_OPS;

		memcpy(out + i, rc->chunks[i / CHUNK_OPS], n * sizeof(*out));
	}
}

/* ---- events: shared lines written besides the locks' ---- */

static struct rec_event *reserve_event(struct rec_cpu *rc)
{
	if (rc->nr_ev == rc->nr_ev_chunks * CHUNK_EVENTS) {
		struct rec_event **c = realloc(rc->ev_chunks, (rc->nr_ev_chunks + 1) * sizeof(*c));

		if (!c)
			return NULL;
		rc->ev_chunks = c;
		c[rc->nr_ev_chunks] = malloc(CHUNK_EVENTS * sizeof(struct rec_event));
		if (!c[rc->nr_ev_chunks])
			return NULL;
		rc->nr_ev_chunks++;
	}
	rc->nr_ev++;
	return &rc->ev_chunks[(rc->nr_ev - 1) / CHUNK_EVENTS][(rc->nr_ev - 1) % CHUNK_EVENTS];
}

/*
 * A ring entry into the buffer, @data its kind; an event that finds no
 * memory is lost, and so is one whose thread is no model CPU (any more)
 * or has not taken a lock in this recording (its context is not ours).
 */
static void rec_event(void *data, const struct trace_entry *te)
{
	struct rec_cpu *rc = this_rec();
	struct rec_event *e;

	if (!rc || rc->thread != &thread_token || ring_gen != READ_ONCE(rec_gen))
		return;
	/*
	 * A device's wait is no work of this CPU's: the sleep comes off the
	 * work it fell in, and the event carries the device's latency
	 * instead.  The ring is drained at the release that timed that work,
	 * or earlier when it fills, before it is timed.
	 */
	if ((uintptr_t)data == PRED_EV_IO_WAIT && !te->ctx_in) {
		if (te->ctx < rc->nr) {
			struct pred_op *op = slot_of(rc, te->ctx);

			op->work_ns = te->p0 < op->work_ns ? op->work_ns - (u32)te->p0 : 0;
		} else {
			rc->slept += te->p0;
		}
	}
	e = reserve_event(rc);
	if (!e)
		return;
	e->op = te->ctx;
	e->inside = te->ctx_in;
	e->kind = (u8)(uintptr_t)data;
	e->threshold = te->b0;
	e->step = te->b1;
	e->arg = te->arg;
	e->addr = te->p0;
	e->addr2 = te->p1;
}

u32 pred_record_events_len(int cpu)
{
	return rec_cpus[cpu].nr_ev;
}

const struct rec_event *pred_record_event_at(int cpu, u32 i)
{
	return &rec_cpus[cpu].ev_chunks[i / CHUNK_EVENTS][i % CHUNK_EVENTS];
}
