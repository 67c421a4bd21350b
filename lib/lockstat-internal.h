/* SPDX-License-Identifier: MIT */
/*
 * What lib/spinlock.c and lib/lockstat.c share: each thread's block of
 * counters, so that the lock path can count an uncontended acquisition
 * and check for a timed hold inline, and the slow paths behind them.
 *
 * A block has one writer, its thread, and concurrent readers, so every
 * field a reader or lockstat_reset() touches is a relaxed atomic load or
 * store: plain moves on x86, and visible to ThreadSanitizer.  Nothing on
 * these paths is a locked read-modify-write.
 */
#ifndef LRULAB_LOCKSTAT_INTERNAL_H
#define LRULAB_LOCKSTAT_INTERNAL_H

#include <lrulab/spinlock.h>

#define LOCKSTAT_OVERFLOW_ID	LOCKSTAT_MAX_SITES
#define LOCKSTAT_NR_SLOTS	(LOCKSTAT_MAX_SITES + 1)

#define STAT_READ(f) __atomic_load_n(&(f), __ATOMIC_RELAXED)
#define STAT_SET(f, v) __atomic_store_n(&(f), (v), __ATOMIC_RELAXED)
#define STAT_ADD(f, v) STAT_SET(f, STAT_READ(f) + (v))

/* What only a contended or a timed acquisition writes. */
struct lockstat_slow {
	u64 contended;
	u64 wait_total_ns;
	u64 wait_max_ns;
	u64 wait_min_ns;
	u64 hold_timed;
	u64 hold_timed_ns;
	u64 hold_max_ns;
};

struct held_lock {
	spinlock_t *lock;
	int id;
	u64 t0;
	u64 treq;	/* the request: t0, or the wait's start (recordings) */
};

struct lockstat_block {
	/*
	 * Acquisitions up to and including the next one whose hold is
	 * timed; 0 when sampling has to start (a new thread, a reset, a
	 * new mode).  Holds are timed at a random place in each window of
	 * hold_sampled acquisitions: at a fixed stride they would fall on
	 * the same place of every regular loop (31 adds, one batch move).
	 */
	int countdown;
	int nr_held;		/* timed holds not yet released */
	/* the hot counters together, away from the rest */
	u64 acquired[LOCKSTAT_NR_SLOTS];
	struct held_lock held[LOCKSTAT_HELD_DEPTH];
	int offset;		/* of the timed acquisition in its window */
	u64 rnd;		/* xorshift state, never 0 */
	struct lockstat_slow slow[LOCKSTAT_NR_SLOTS];
	struct lockstat_block *next;
	bool dead;		/* its thread exited; free to adopt */
};

/*
 * This thread's block.  Before the thread's first counted acquisition it
 * is a shared block whose countdown stays 0, so the inline path needs no
 * NULL check to send that acquisition to the slow path.
 */
extern __thread struct lockstat_block *lockstat_self;

/*
 * Slow path of an acquisition: a new thread or site, a timed hold, or a
 * contended acquisition that waited from @wait_t0 to @wait_t1 (both 0
 * when the first try succeeded).
 */
void __lockstat_acquired(spinlock_t *l, struct lock_site *site, u64 wait_t0,
			 u64 wait_t1);
/* After @l, whose hold @h timed, was released at @now. */
void __lockstat_released(struct lockstat_block *b, struct held_lock *h, u64 now);

/* The uncontended acquisition: a counter, and a countdown to the next timed hold. */
static inline void lockstat_acquired(spinlock_t *l, struct lock_site *site)
{
	struct lockstat_block *b = lockstat_self;
	int id = __atomic_load_n(&site->id, __ATOMIC_RELAXED);
	int left = STAT_READ(b->countdown);

	if (likely(left > 1 && id >= 0)) {
		STAT_SET(b->countdown, left - 1);
		STAT_ADD(b->acquired[id], 1);
		return;
	}
	__lockstat_acquired(l, site, 0, 0);
}

/* The timed hold of @l, if this thread has one open; newest first. */
static inline struct held_lock *lockstat_held(struct lockstat_block *b, spinlock_t *l)
{
	int i = STAT_READ(b->nr_held);

	while (--i >= 0)
		if (b->held[i].lock == l)
			return &b->held[i];
	return NULL;
}

#endif /* LRULAB_LOCKSTAT_INTERNAL_H */
