/* SPDX-License-Identifier: MIT */
/* What predict/record.c shares with the lock statistics and the recording file code. */
#ifndef LRULAB_PREDICT_RECORD_INTERNAL_H
#define LRULAB_PREDICT_RECORD_INTERNAL_H

#include <lrulab/cpu.h>
#include <lrulab/predict.h>

/* one lock the recording met: the site that first took it, its lines as addresses >> 6 */
struct rec_lock {
	int site;
	int nr_lines;
	uintptr_t lines[PRED_MAX_LINES];
};

/* an event as recorded: the addresses written, 0 for none */
struct rec_event {
	u32 op;			/* the CPU's slot of the acquisition */
	u8 kind, inside, threshold, step;
	u32 arg;
	uintptr_t addr, addr2;
};

/*
 * A model CPU's events as they happen, in its thread's own storage: a
 * small ring, emptied into the CPU's buffer by the thread when its
 * outermost hold has been timed, and the acquisition events go with now
 * (kept by the lock hooks).  Appending is a handful of stores, no call
 * and no clock read; it still lengthens the holds it happens in (shmem
 * fault-free, one thread: lru_lock's holds by 5-11%, about 10 ns an
 * event), which is not taken off.
 */
#define EV_RING		64

struct rec_ev_cursor {
	u32 op;
	u32 inside;
	const spinlock_t *lock;	/* the innermost open section's, or NULL */
	u32 nr;
	u32 gen;		/* the recording (or reset) the ring belongs to */
	struct rec_event ring[EV_RING];
};

extern bool pred_recording;
extern struct rec_lock rec_locks[];
extern u32 rec_nr_locks;
extern u32 rec_overhead_ns;
extern __thread struct rec_ev_cursor rec_ev_cur;

/* from lib/lockstat.c's slow paths, only while pred_recording */
void pred_record_acquired(spinlock_t *l, struct lock_site *site);
void pred_record_released(spinlock_t *l, u64 t_req, u64 hold, u64 now);
void pred_record_reset(void);
u32 pred_record_trace_len(int cpu);
void pred_record_trace_copy(int cpu, struct pred_op *out);
u32 pred_record_events_len(int cpu);
const struct rec_event *pred_record_event_at(int cpu, u32 i);
/* the calling thread's ring into its CPU's buffer */
void pred_record_ev_flush(void);

/*
 * pred_record_event() for the hooks in mm/, inline: the caller has
 * tested pred_recording.  A thread that is no model CPU records nothing.
 */
static inline void pred_record_event_fast(enum pred_event_kind kind, const void *line,
					  const void *line2, u32 arg, int threshold, int step)
{
	struct rec_ev_cursor *c = &rec_ev_cur;
	struct rec_event *e;

	if ((unsigned int)lrulab_cpu >= LRULAB_MAX_CPUS)
		return;
	if (unlikely(c->nr == EV_RING))
		pred_record_ev_flush();
	e = &c->ring[c->nr++];
	e->op = c->op;
	e->inside = (u8)c->inside;
	e->kind = (u8)kind;
	e->threshold = (u8)(threshold < 0 ? 0 : threshold > 255 ? 255 : threshold);
	e->step = (u8)step;
	e->arg = arg;
	e->addr = (uintptr_t)line;
	e->addr2 = (uintptr_t)line2;
}

/*
 * A read of @line whose 128-byte pair partner a prefetching CPU fetches
 * too (PRED_EV_PAIR_READ).  The engine costs a group of events (those in
 * one hold, or in the work before one acquisition) at one instant, in
 * order: a second read of a line in the group finds it there already and
 * costs nothing, so it is not kept.  A few events back is enough: a stat
 * update reads two lines.
 */
#define PAIR_LOOKBACK	8

static inline void pred_record_pair_read_fast(const void *line)
{
	const struct rec_ev_cursor *c = &rec_ev_cur;
	u32 i;

	for (i = c->nr; i > 0 && c->nr - i < PAIR_LOOKBACK; i--) {
		const struct rec_event *e = &c->ring[i - 1];

		if (e->op != c->op || e->inside != c->inside)
			break;
		if (e->kind == PRED_EV_PAIR_READ && e->addr >> 6 == (uintptr_t)line >> 6)
			return;
	}
	pred_record_event_fast(PRED_EV_PAIR_READ, line, NULL, 0, 0, 0);
}

#endif
