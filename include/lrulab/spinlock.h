/* SPDX-License-Identifier: MIT */
/*
 * One spinlock type for every modelled lock (lru_lock, zone->lock, the
 * per-CPU local locks, cost_lock, ...).  It is 4 bytes, like the kernel's
 * spinlock_t without lock debugging, so the structs that embed it keep
 * their kernel layout.  The implementation is chosen at run time.
 *
 * Every acquisition names its site: the lock class ("lru_lock") and the
 * calling function, the way `perf lock contention` reports callers.
 */
#ifndef LRULAB_SPINLOCK_H
#define LRULAB_SPINLOCK_H

#include <stdio.h>
#include <lrulab/types.h>

typedef struct {
	u32 val;
} spinlock_t;

enum lock_impl {
	LOCK_QSPINLOCK,		/* kernel qspinlock: pending bit + MCS queue */
	LOCK_TICKET,
	LOCK_TAS,		/* test-and-test-and-set */
	LOCK_PTHREAD_SPIN,	/* glibc pthread_spinlock_t on the same word */
	LOCK_MUTEX,		/* futex sleeping lock (glibc lowlevellock style) */
	NR_LOCK_IMPLS,
};

/*
 * The qspinlock word, as in the kernel with NR_CPUS < 16K: locked byte,
 * pending byte (only bit 8 used), 2 bits of MCS node index (nesting
 * level) and 14 bits of "thread index + 1" naming the queue tail.  Other
 * implementations use the same 32 bits their own way (lib/spinlock.c).
 */
#define _Q_LOCKED_OFFSET	0
#define _Q_LOCKED_BITS		8
#define _Q_PENDING_OFFSET	8
#define _Q_PENDING_BITS		8
#define _Q_TAIL_IDX_OFFSET	16
#define _Q_TAIL_IDX_BITS	2
#define _Q_TAIL_CPU_OFFSET	18
#define _Q_TAIL_CPU_BITS	14
#define _Q_TAIL_OFFSET		_Q_TAIL_IDX_OFFSET

#define _Q_LOCKED_VAL		(1U << _Q_LOCKED_OFFSET)
#define _Q_PENDING_VAL		(1U << _Q_PENDING_OFFSET)
#define _Q_LOCKED_MASK		(((1U << _Q_LOCKED_BITS) - 1) << _Q_LOCKED_OFFSET)
#define _Q_PENDING_MASK		(((1U << _Q_PENDING_BITS) - 1) << _Q_PENDING_OFFSET)
#define _Q_LOCKED_PENDING_MASK	(_Q_LOCKED_MASK | _Q_PENDING_MASK)
#define _Q_TAIL_IDX_MASK	(((1U << _Q_TAIL_IDX_BITS) - 1) << _Q_TAIL_IDX_OFFSET)
#define _Q_TAIL_CPU_MASK	(((1U << _Q_TAIL_CPU_BITS) - 1) << _Q_TAIL_CPU_OFFSET)
#define _Q_TAIL_MASK		(_Q_TAIL_IDX_MASK | _Q_TAIL_CPU_MASK)
#define _Q_MAX_NODES		4
/* Threads that may wait in qspinlock queues at the same time. */
#define QSPIN_MAX_THREADS	((1 << _Q_TAIL_CPU_BITS) - 1)

/* Ticket lock halves: the owner's ticket low, the next ticket high. */
#define TICKET_OWNER_MASK	0xffffU
#define TICKET_NEXT_SHIFT	16

extern enum lock_impl lrulab_lock_impl;
/* Returns 0, or -EINVAL for an unknown name. */
int lock_impl_parse(const char *name, enum lock_impl *impl);
const char *lock_impl_name(enum lock_impl impl);
/*
 * Only while no lock is held or waited on, and before locks are
 * initialised (or spin_lock_init() them again): a ticket lock that has
 * been used is free with next == owner, not 0, and would read as held
 * under any other implementation.  Aborts on an invalid @impl.
 */
void lock_impl_set(enum lock_impl impl);

/*
 * Waiters spin until they are served, as the kernel's do with preemption
 * off.  Only a run with more threads than processors lets them give the
 * processor away (sched_yield) after lrulab_spin_yield_loops spins: see
 * spin_wait() in lib/spinlock.c.  lrulab_init() sets lrulab_spin_yield
 * from lrulab_oversubscribed(); a program that runs plain threads on the
 * locks sets it itself.  Change either only while no one waits.
 * lrulab_spin_yield_loops 0 yields on every spin.
 */
extern bool lrulab_spin_yield;
extern unsigned int lrulab_spin_yield_loops;
/* sched_yield() calls made by waiters so far, all threads together */
u64 lrulab_spin_yields(void);
/* oversubscribed qspinlock: free locks taken out of turn (paravirt stealing) */
u64 lrulab_pv_steals(void);

/*
 * A place that takes a lock.  @caller is what `perf lock contention`
 * shows for it on a real kernel: the function left holding the call
 * after the kernel's inlining (shrink_inactive_list() is inlined into
 * shrink_lruvec(), so its acquisitions are shrink_lruvec's).  @fn names
 * the place in lrulab, unique per site, so that rows with one caller can
 * be told apart, as perf tells them apart by offset.
 */
struct lock_site {
	const char *cls;	/* "lru_lock", "zone->lock", "ptl" */
	const char *caller;	/* as perf names it */
	const char *fn;		/* the site in lrulab */
	int id;			/* assigned on first use, -1 before */
};

#define LOCK_SITE_AT(class_, caller_, fn_) ({				\
	static struct lock_site __lock_site = {				\
		.cls = (class_), .caller = (caller_), .fn = (fn_), .id = -1 };	\
	&__lock_site; })
/* A site whose function is also the caller perf shows. */
#define LOCK_SITE(class_) LOCK_SITE_AT((class_), __func__, __func__)

/* "caller", or "caller (fn)" where the two differ: a table's row name. */
void lock_site_name(const char *caller, const char *fn, char *buf, size_t len);

static inline void spin_lock_init(spinlock_t *l)
{
	WRITE_ONCE(l->val, 0);
}

void spin_lock_at(spinlock_t *l, struct lock_site *site);
bool spin_trylock_at(spinlock_t *l, struct lock_site *site);
void spin_unlock(spinlock_t *l);
bool spin_is_locked(spinlock_t *l);

#define spin_lock(l) spin_lock_at((l), LOCK_SITE("spinlock"))
#define spin_trylock(l) spin_trylock_at((l), LOCK_SITE("spinlock"))
/* There are no interrupts in the model; _irq variants are plain locks. */
#define spin_lock_irq(l) spin_lock(l)
#define spin_unlock_irq(l) spin_unlock(l)

/*
 * local_lock_t as the kernel has it without PREEMPT_RT: an empty struct,
 * and taking it only disables preemption.  A model CPU's thread is never
 * preempted by other users of its per-CPU data (its queued work runs at
 * its scheduling points, lib/workqueue.c), so there is nothing to do: no
 * atomic, no shared line, nothing in the lock tables.  The barrier keeps
 * the compiler from moving per-CPU accesses across it, as
 * preempt_disable() does.
 */
typedef struct { } local_lock_t;
#define local_lock_init(l) ((void)(l))
#define local_lock(l) do { (void)(l); __asm__ __volatile__("" ::: "memory"); } while (0)
#define local_unlock(l) do { (void)(l); __asm__ __volatile__("" ::: "memory"); } while (0)
/* There are no interrupts: the owner always gets it. */
#define local_trylock(l) ({ local_lock(l); true; })

/* ---- lock statistics (perf lock contention style) ---- */

/*
 * What the statistics cost decides what they may be left on for.
 *   off       the bare locks: lockbench and pathbench compare against it
 *   sampled   the default, at the price of `perf lock contention`: an
 *             uncontended acquisition bumps its thread's counter for the
 *             site (no clock, no locked instruction) and its unlock
 *             checks one thread-local count; a wait is timed only when
 *             the first try fails; one acquisition in
 *             LOCKSTAT_HOLD_SAMPLE per thread has its hold timed
 *   full      every hold timed (--profile-hold): two clock reads and the
 *             bookkeeping sit inside every critical section, so holds
 *             and everything that waits on them come out longer
 */
enum lockstat_mode {
	LOCKSTAT_OFF,
	LOCKSTAT_SAMPLED,
	LOCKSTAT_FULL,
};

/* a power of two */
#define LOCKSTAT_HOLD_SAMPLE	64

struct lock_stat {
	u64 acquired;
	u64 contended;
	u64 wait_total_ns;
	u64 wait_max_ns;
	u64 wait_min_ns;	/* over contended acquisitions; 0 if none */
	/*
	 * The mean of the timed holds times acquired (exact in full mode),
	 * the clock's own cost taken off each; 0 when none was timed.
	 */
	u64 hold_total_ns;
	u64 hold_max_ns;	/* of the timed holds */
	u64 hold_timed;		/* acquisitions whose hold was timed */
	/* one in this many holds timed: 1 full, 64 sampled, 0 off */
	unsigned int hold_sampled;
};

/* Read it freely; change it with lockstat_set_mode(). */
extern enum lockstat_mode lockstat_mode;
/*
 * At a quiescent point (no lock held or waited on): every thread's
 * sampling starts afresh.  Aborts on an invalid @mode.
 */
void lockstat_set_mode(enum lockstat_mode mode);
const char *lockstat_mode_name(enum lockstat_mode mode);
/* Returns 0, or -EINVAL for a name that is not off, sampled or full. */
int lockstat_mode_parse(const char *name, enum lockstat_mode *mode);
/* The hold_sampled of @mode: 0, LOCKSTAT_HOLD_SAMPLE or 1. */
unsigned int lockstat_hold_sampled(enum lockstat_mode mode);

/*
 * Sites beyond this many share one "<overflow>" site (id
 * LOCKSTAT_MAX_SITES, reported once on stderr) instead of failing.
 */
#define LOCKSTAT_MAX_SITES	128
/* Timed holds one thread may have open at once. */
#define LOCKSTAT_HELD_DEPTH	8

int lockstat_nr_sites(void);
struct lock_site *lockstat_site(int id);
/* Sum of every thread's counters for one site. */
void lockstat_read(const struct lock_site *site, struct lock_stat *out);
/*
 * Sum over all sites of one class ("lru_lock"); the hold total is the
 * class's timed mean times its acquisitions.
 */
void lockstat_read_class(const char *cls, struct lock_stat *out);
/* The same over the sites whose fn is in NULL-terminated @fns. */
void lockstat_read_fns(const char *cls, const char *const *fns, struct lock_stat *out);
/* At a quiescent point, as lockstat_set_mode(). */
void lockstat_reset(void);

enum lockstat_sort {
	LOCKSTAT_SORT_WAIT_TOTAL,
	LOCKSTAT_SORT_CONTENDED,
	LOCKSTAT_SORT_ACQUIRED,
	LOCKSTAT_SORT_HOLD_TOTAL,
};
/*
 * A `perf lock contention -b` like table, plus acquired and hold columns,
 * and lockstat_print_notes() under it.
 */
void lockstat_print(FILE *f, enum lockstat_sort sort);
/*
 * The table itself, for rows taken elsewhere (a bench run's sites): each
 * time column in one unit, named on the line under its heading; @type,
 * when not NULL, is the lock's implementation, a column of its own.
 */
struct lockstat_row {
	const char *cls;
	const char *name;	/* lock_site_name()'s */
	struct lock_stat st;
};
void lockstat_print_rows(FILE *f, const struct lockstat_row *rows, int n, const char *type);
struct lockstat_unit {
	double ns;		/* nanoseconds in one */
	const char *name;	/* ns, us, ms or s */
};
struct lockstat_unit lockstat_unit_for(double max_ns);
void lockstat_fmt_in(char *buf, size_t len, double ns, struct lockstat_unit u);
/*
 * What the hold columns are (sampled or every acquisition, the clock
 * cost taken off) and whether waiters yielded, for a table taken with
 * @hold_sampled (a struct lock_stat's) and @spin_yield
 * (lrulab_spin_yield): lines that start with @indent.
 */
void lockstat_print_notes(FILE *f, const char *indent, unsigned int hold_sampled,
			  bool spin_yield);

/* ---- clock ---- */

/* Monotonic nanoseconds from the TSC where available: a few ns a read. */
u64 lrulab_now_ns(void);
/*
 * What one lrulab_now_ns() costs, as seen between two back-to-back reads
 * (the median, measured at calibration): every timed interval contains
 * one, so the lock statistics take it off.
 */
u64 lrulab_clock_cost_ns(void);
/* lrulab_now_ns() calls made by this thread: tests count them. */
u64 lrulab_clock_reads(void);
/* Calibrates once; later calls do nothing.  lrulab_now_ns() calls it if
 * nobody did.  LRULAB_CLOCK=monotonic in the environment forces the
 * clock_gettime() fallback. */
void lrulab_clock_init(void);
/* "tsc" or "clock_gettime" */
const char *lrulab_clock_source(void);

/*
 * The model's time for what the kernel times on its clock (the memcg
 * stats flush's period and ratelimit): CLOCK_MONOTONIC, or a virtual
 * clock that a driver with a clock of its own (a trace replay) sets and
 * advances, so that a run times its flushes by the trace, not by how
 * fast this machine replays it.
 */
u64 lrulab_model_now_ns(void);
void lrulab_model_clock_virtual(bool on, u64 start_ns);
void lrulab_model_clock_advance(u64 ns);

#endif /* LRULAB_SPINLOCK_H */
