// SPDX-License-Identifier: MIT
/*
 * Lock implementations, lock statistics and the clock.
 *
 * Every multi-threaded test waits for a state it can see (a bit in the
 * lock word, a futex value, CPU time burnt by a spinner) before it moves
 * on, never for a length of time, so a slow or oversubscribed machine
 * makes it slower, not flaky.  Locks are used from plain threads: no
 * model CPU is needed to take a lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <lrulab/cpu.h>
#include <lrulab/spinlock.h>

/*
 * Kept small: with more threads than processors a FIFO lock keeps
 * handing itself to a thread that is not running, and each such
 * hand-off costs a trip through the scheduler.
 */
#define NR_THREADS	4
static unsigned long nr_increments = 2000;

static enum lock_impl impl_of[NR_LOCK_IMPLS];

/* More threads than processors here: waiters may yield, as a run's would. */
static bool oversubscribed;

static int impl_setup(void **state)
{
	lock_impl_set(*(enum lock_impl *)*state);
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	lockstat_reset();
	lrulab_spin_yield = oversubscribed;
	return 0;
}

static int qspin_setup(void **state)
{
	lock_impl_set(LOCK_QSPINLOCK);
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	lockstat_reset();
	lrulab_spin_yield = oversubscribed;
	return 0;
}

static enum lock_impl cur_impl(void)
{
	return READ_ONCE(lrulab_lock_impl);
}

static u32 lock_word(spinlock_t *l)
{
	return __atomic_load_n(&l->val, __ATOMIC_RELAXED);
}

static void start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	assert_int_equal(pthread_create(t, NULL, fn, arg), 0);
}

static void join(pthread_t t)
{
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* Not lrulab_now_ns(): tests count that one's reads. */
static u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* Find a site by caller, e.g. one declared with LOCK_SITE() in a helper. */
static struct lock_site *find_site(const char *cls, const char *caller)
{
	int i;

	for (i = 0; i < lockstat_nr_sites(); i++) {
		struct lock_site *s = lockstat_site(i);

		if (!strcmp(s->cls, cls) && !strcmp(s->caller, caller))
			return s;
	}
	return NULL;
}

/* ---- mutual exclusion ---- */

static spinlock_t excl_lock;
static unsigned long excl_counter;	/* plain: only the lock protects it */
static pthread_barrier_t excl_barrier;
static struct lock_site excl_site = { .cls = "test_excl", .caller = "excl_worker", .fn = "excl_worker", .id = -1 };

static void *excl_worker(void *arg)
{
	unsigned long i;

	pthread_barrier_wait(&excl_barrier);
	for (i = 0; i < nr_increments; i++) {
		spin_lock_at(&excl_lock, &excl_site);
		excl_counter++;
		spin_unlock(&excl_lock);
	}
	return NULL;
}

static void run_exclusion(void)
{
	pthread_t t[NR_THREADS];
	int i;

	spin_lock_init(&excl_lock);
	excl_counter = 0;
	pthread_barrier_init(&excl_barrier, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++)
		start(&t[i], excl_worker, NULL);
	for (i = 0; i < NR_THREADS; i++)
		join(t[i]);
	pthread_barrier_destroy(&excl_barrier);
	assert_int_equal(excl_counter, NR_THREADS * nr_increments);
	assert_false(spin_is_locked(&excl_lock));
	if (cur_impl() == LOCK_TICKET) {
		u32 n = (u32)(NR_THREADS * nr_increments) & 0xffff;

		/* every ticket taken was served */
		assert_int_equal(lock_word(&excl_lock), n << TICKET_NEXT_SHIFT | n);
	} else {
		assert_int_equal(lock_word(&excl_lock), 0);
	}
}

static void test_mutual_exclusion(void **state)
{
	struct lock_stat st;

	run_exclusion();
	lockstat_read(&excl_site, &st);
	assert_int_equal(st.acquired, NR_THREADS * nr_increments);
	assert_true(st.contended <= st.acquired);
	/* the exited threads' counts stay in the sums, and new threads
	 * that take over their blocks add to them */
	run_exclusion();
	lockstat_read(&excl_site, &st);
	assert_int_equal(st.acquired, 2 * NR_THREADS * nr_increments);

	/* sampled: one hold in LOCKSTAT_HOLD_SAMPLE of each thread's timed */
	assert_true(st.hold_timed >= NR_THREADS * (2 * nr_increments / LOCKSTAT_HOLD_SAMPLE));
	assert_true(st.hold_timed <= NR_THREADS * ((2 * nr_increments + LOCKSTAT_HOLD_SAMPLE - 1) /
						   LOCKSTAT_HOLD_SAMPLE));
	assert_int_equal(st.hold_sampled, LOCKSTAT_HOLD_SAMPLE);

	lockstat_reset();
	lockstat_set_mode(LOCKSTAT_FULL);
	run_exclusion();
	lockstat_read(&excl_site, &st);
	assert_int_equal(st.acquired, NR_THREADS * nr_increments);
	assert_int_equal(st.hold_timed, NR_THREADS * nr_increments);
	assert_int_equal(st.hold_sampled, 1);

	lockstat_reset();
	lockstat_set_mode(LOCKSTAT_OFF);
	run_exclusion();
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	lockstat_read(&excl_site, &st);
	assert_int_equal(st.acquired, 0);
}

/* ---- trylock ---- */

struct try_arg {
	spinlock_t *lock;
	bool got;
};

static void *try_other(void *p)
{
	struct try_arg *a = p;

	a->got = spin_trylock(a->lock);
	if (a->got)
		spin_unlock(a->lock);
	return NULL;
}

static bool trylock_from_other_thread(spinlock_t *l)
{
	struct try_arg a = { .lock = l };
	pthread_t t;

	start(&t, try_other, &a);
	join(t);
	return a.got;
}

static void test_trylock(void **state)
{
	spinlock_t l;

	spin_lock_init(&l);
	assert_false(spin_is_locked(&l));
	spin_lock(&l);
	assert_true(spin_is_locked(&l));
	assert_false(spin_trylock(&l));
	assert_false(trylock_from_other_thread(&l));
	spin_unlock(&l);
	assert_false(spin_is_locked(&l));

	assert_true(spin_trylock(&l));
	assert_true(spin_is_locked(&l));
	assert_false(trylock_from_other_thread(&l));
	spin_unlock(&l);

	/* free again: another thread gets it (and gives it back) */
	assert_true(trylock_from_other_thread(&l));
	assert_false(spin_is_locked(&l));
	if (cur_impl() == LOCK_TICKET)
		assert_int_equal(lock_word(&l), 3U << TICKET_NEXT_SHIFT | 3U);
	else
		assert_int_equal(lock_word(&l), 0);
}

/* A waiter alone makes the lock not free: trylock must not barge. */
static void test_trylock_no_barging(void **state)
{
	spinlock_t l;

	lock_impl_set(LOCK_QSPINLOCK);
	WRITE_ONCE(l.val, _Q_PENDING_VAL);
	assert_false(spin_trylock(&l));
	assert_true(spin_is_locked(&l));
	WRITE_ONCE(l.val, 1U << _Q_TAIL_CPU_OFFSET);
	assert_false(spin_trylock(&l));
	assert_int_equal(lock_word(&l), 1U << _Q_TAIL_CPU_OFFSET);

	lock_impl_set(LOCK_TICKET);
	/* owner 7 is being served, ticket 8 waits */
	WRITE_ONCE(l.val, 9U << TICKET_NEXT_SHIFT | 7U);
	assert_false(spin_trylock(&l));
	assert_true(spin_is_locked(&l));
	/* owner wraps without carrying into next */
	WRITE_ONCE(l.val, 0U << TICKET_NEXT_SHIFT | 0xffffU);
	spin_unlock(&l);
	assert_int_equal(lock_word(&l), 0);
	assert_true(spin_trylock(&l));
	assert_int_equal(lock_word(&l), 1U << TICKET_NEXT_SHIFT);
	spin_unlock(&l);
	assert_int_equal(lock_word(&l), 1U << TICKET_NEXT_SHIFT | 1U);
}

/* ---- FIFO hand-over ---- */

#define NR_WAITERS	5

static spinlock_t fifo_lock;
static int fifo_order[NR_WAITERS];
static int fifo_nr;

static void *fifo_waiter(void *arg)
{
	spin_lock(&fifo_lock);
	fifo_order[fifo_nr++] = (int)(intptr_t)arg;
	spin_unlock(&fifo_lock);
	return NULL;
}

/* Tickets handed out and not yet served: the holder's and the waiters'. */
static u32 ticket_queue(u32 v)
{
	return ((v >> TICKET_NEXT_SHIFT) - v) & TICKET_OWNER_MASK;
}

static void wait_word(spinlock_t *l, u32 mask, u32 not_val)
{
	while ((lock_word(l) & mask) == not_val)
		sched_yield();
}

/*
 * The holder keeps the lock while waiters arrive one at a time; each is
 * started only once the previous one is visibly in line (pending bit,
 * then a new tail; or its ticket taken), so arrival order is known.
 */
static void run_fifo(void)
{
	pthread_t t[NR_WAITERS];
	u32 tail = 0;
	int i;

	spin_lock_init(&fifo_lock);
	fifo_nr = 0;
	spin_lock(&fifo_lock);
	for (i = 0; i < NR_WAITERS; i++) {
		start(&t[i], fifo_waiter, (void *)(intptr_t)i);
		if (cur_impl() == LOCK_TICKET) {
			u32 v;

			do {
				sched_yield();
				v = lock_word(&fifo_lock);
			} while (ticket_queue(v) != (u32)i + 2);
		} else if (i == 0) {
			wait_word(&fifo_lock, _Q_PENDING_VAL, 0);
		} else {
			/* each queued waiter replaces the tail with its own */
			while ((lock_word(&fifo_lock) & _Q_TAIL_MASK) == tail)
				sched_yield();
			tail = lock_word(&fifo_lock) & _Q_TAIL_MASK;
		}
	}
	if (cur_impl() == LOCK_QSPINLOCK)
		assert_int_equal(lock_word(&fifo_lock) & _Q_LOCKED_PENDING_MASK,
				 _Q_LOCKED_VAL | _Q_PENDING_VAL);
	spin_unlock(&fifo_lock);
	for (i = 0; i < NR_WAITERS; i++)
		join(t[i]);
	assert_int_equal(fifo_nr, NR_WAITERS);
	for (i = 0; i < NR_WAITERS; i++)
		assert_int_equal(fifo_order[i], i);
	if (cur_impl() == LOCK_QSPINLOCK)
		assert_int_equal(lock_word(&fifo_lock), 0);
}

static void test_fifo(void **state)
{
	/* strict FIFO is the native lock's; oversubscribed runs steal */
	lrulab_spin_yield = false;
	run_fifo();
	/* and again: the exited waiters' queue slots are reused */
	run_fifo();
	lrulab_spin_yield = oversubscribed;
}

/*
 * Oversubscribed, the qspinlock is the paravirt one: with waiters queued
 * (a tail) but the lock free and no pending bit, a newcomer takes the
 * lock out of turn and leaves the queue as it was.
 */
static void test_pv_steal(void **state)
{
	u32 tail = (u32)(QSPIN_MAX_THREADS) << _Q_TAIL_CPU_OFFSET;
	u64 steals = lrulab_pv_steals();

	lrulab_spin_yield = true;
	spin_lock_init(&fifo_lock);
	__atomic_store_n(&fifo_lock.val, tail, __ATOMIC_RELAXED);
	spin_lock(&fifo_lock);
	assert_int_equal(lock_word(&fifo_lock), tail | _Q_LOCKED_VAL);
	assert_int_equal(lrulab_pv_steals(), steals + 1);
	spin_unlock(&fifo_lock);
	assert_int_equal(lock_word(&fifo_lock), tail);
	spin_lock_init(&fifo_lock);
	lrulab_spin_yield = oversubscribed;
}

/* The paravirt qspinlock keeps mutual exclusion whatever the machine. */
static void test_pv_exclusion(void **state)
{
	lrulab_spin_yield = true;
	test_mutual_exclusion(state);
	lrulab_spin_yield = oversubscribed;
}

/* ---- lock statistics ---- */

static spinlock_t stat_lock;

static void take_a(void)
{
	spin_lock_at(&stat_lock, LOCK_SITE("tcls"));
	spin_unlock(&stat_lock);
}

static void take_b(void)
{
	spin_lock_at(&stat_lock, LOCK_SITE("tcls"));
	spin_unlock(&stat_lock);
}

static void take_c(void)
{
	spin_lock_at(&stat_lock, LOCK_SITE("tother"));
	spin_unlock(&stat_lock);
}

static void take_d(void)
{
	spin_lock_at(&stat_lock, LOCK_SITE("tdisabled"));
	spin_unlock(&stat_lock);
}

static bool try_e(void)
{
	if (!spin_trylock_at(&stat_lock, LOCK_SITE("tcls")))
		return false;
	spin_unlock(&stat_lock);
	return true;
}

static struct lock_stat site_stat(const char *cls, const char *caller)
{
	struct lock_site *s = find_site(cls, caller);
	struct lock_stat st;

	assert_non_null(s);
	lockstat_read(s, &st);
	return st;
}

/* Nothing counted; how holds would be timed is the mode's, not a count. */
static void assert_stat_zero(const struct lock_stat *st)
{
	struct lock_stat zero;

	memset(&zero, 0, sizeof(zero));
	zero.hold_sampled = st->hold_sampled;
	assert_memory_equal(st, &zero, sizeof(zero));
	assert_int_equal(st->hold_sampled, lockstat_hold_sampled(lockstat_mode));
}

static void test_lockstat_counts(void **state)
{
	struct lock_stat st;
	int i;

	spin_lock_init(&stat_lock);
	for (i = 0; i < 3; i++)
		take_a();
	for (i = 0; i < 5; i++)
		take_b();
	for (i = 0; i < 2; i++)
		take_c();
	assert_true(try_e());
	spin_lock(&stat_lock);
	assert_false(try_e());		/* a failed trylock is no acquisition */
	spin_unlock(&stat_lock);

	st = site_stat("tcls", "take_a");
	assert_int_equal(st.acquired, 3);
	assert_int_equal(st.contended, 0);
	assert_int_equal(st.wait_total_ns, 0);
	assert_int_equal(st.wait_max_ns, 0);
	assert_int_equal(st.wait_min_ns, 0);
	assert_int_equal(site_stat("tcls", "take_b").acquired, 5);
	assert_int_equal(site_stat("tother", "take_c").acquired, 2);
	assert_int_equal(site_stat("tcls", "try_e").acquired, 1);
	assert_int_equal(site_stat("spinlock", "test_lockstat_counts").acquired, 1);

	lockstat_read_class("tcls", &st);
	assert_int_equal(st.acquired, 3 + 5 + 1);
	assert_int_equal(st.contended, 0);
	lockstat_read_class("tother", &st);
	assert_int_equal(st.acquired, 2);
	lockstat_read_class("no such class", &st);
	assert_stat_zero(&st);

	/* some callers of one class: take_a and try_e, not take_b */
	{
		static const char *const callers[] = { "take_a", "try_e", "take_c", NULL };

		lockstat_read_fns("tcls", callers, &st);
		assert_int_equal(st.acquired, 3 + 1);
	}
}

static void test_lockstat_disabled(void **state)
{
	struct lock_stat st;
	int i;

	u64 reads = lrulab_clock_reads();

	spin_lock_init(&stat_lock);
	lockstat_set_mode(LOCKSTAT_OFF);
	for (i = 0; i < 4; i++) {
		take_a();
		take_d();
		assert_true(try_e());
	}
	lockstat_set_mode(LOCKSTAT_SAMPLED);
	assert_int_equal(lrulab_clock_reads(), reads);

	st = site_stat("tcls", "take_a");
	assert_stat_zero(&st);
	lockstat_read_class("tcls", &st);
	assert_stat_zero(&st);
	/* not even registered: the disabled path does not look at the site */
	assert_null(find_site("tdisabled", "take_d"));
}

static void test_lockstat_reset(void **state)
{
	struct lock_stat st;

	spin_lock_init(&stat_lock);
	take_a();
	take_c();
	assert_int_equal(site_stat("tcls", "take_a").acquired, 1);
	lockstat_reset();
	st = site_stat("tcls", "take_a");
	assert_stat_zero(&st);
	st = site_stat("tother", "take_c");
	assert_stat_zero(&st);
	take_a();
	assert_int_equal(site_stat("tcls", "take_a").acquired, 1);
}

#define BUSY_HOLD_NS	2000000ULL

static void test_lockstat_hold(void **state)
{
	struct lock_site *site = LOCK_SITE("thold");
	struct lock_stat st;
	spinlock_t outer, inner;
	u64 t;

	lockstat_set_mode(LOCKSTAT_FULL);
	spin_lock_init(&outer);
	spin_lock_init(&inner);
	spin_lock_at(&outer, site);
	t = lrulab_now_ns();
	while (lrulab_now_ns() - t < BUSY_HOLD_NS)
		;
	/* nested and released out of order: each finds its own entry */
	spin_lock_at(&inner, site);
	spin_unlock(&outer);
	spin_unlock(&inner);

	lockstat_read(site, &st);
	assert_int_equal(st.acquired, 2);
	assert_int_equal(st.hold_timed, 2);
	/* each timed interval had the clock's own cost taken off */
	assert_true(st.hold_total_ns >= BUSY_HOLD_NS - lrulab_clock_cost_ns());
	assert_true(st.hold_max_ns >= BUSY_HOLD_NS - lrulab_clock_cost_ns());
	assert_true(st.hold_max_ns <= st.hold_total_ns);
}

/* Holding more locks than the stack records loses hold times, not counts. */
static void test_lockstat_deep_nesting(void **state)
{
	struct lock_site *site = LOCK_SITE("tdeep");
	spinlock_t l[LOCKSTAT_HELD_DEPTH + 3];
	struct lock_stat st;
	int i, n = (int)ARRAY_SIZE(l);

	/* every hold timed, so the stack of open holds overflows */
	lockstat_set_mode(LOCKSTAT_FULL);
	for (i = 0; i < n; i++) {
		spin_lock_init(&l[i]);
		spin_lock_at(&l[i], site);
	}
	for (i = n - 1; i >= 0; i--)
		spin_unlock(&l[i]);
	for (i = 0; i < n; i++)
		assert_int_equal(lock_word(&l[i]), 0);
	lockstat_read(site, &st);
	assert_int_equal(st.acquired, n);
	/* the oldest entries made room for the newest */
	assert_int_equal(st.hold_timed, LOCKSTAT_HELD_DEPTH);
	/* and the stack works as before */
	take_a();
	assert_int_equal(site_stat("tcls", "take_a").acquired, 1);
	assert_int_equal(site_stat("tcls", "take_a").hold_timed, 1);
}

static spinlock_t cont_lock;
static int cont_started;
static struct lock_site cont_holder = { .cls = "tcont", .caller = "holder", .fn = "holder", .id = -1 };
static struct lock_site cont_waiter = { .cls = "tcont", .caller = "waiter", .fn = "waiter", .id = -1 };

static u64 cont_reads;		/* the waiter's clock reads; read after join */

static void *cont_thread(void *arg)
{
	u64 reads = lrulab_clock_reads();

	__atomic_store_n(&cont_started, 1, __ATOMIC_RELEASE);
	spin_lock_at(&cont_lock, &cont_waiter);
	spin_unlock(&cont_lock);
	cont_reads = lrulab_clock_reads() - reads;
	return NULL;
}

static u64 thread_cpu_ns(pthread_t t)
{
	struct timespec ts;
	clockid_t cid;

	assert_int_equal(pthread_getcpuclockid(t, &cid), 0);
	assert_int_equal(clock_gettime(cid, &ts), 0);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

static bool glibc_spin_free_is_zero(void)
{
	pthread_spinlock_t s;

	pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);
	return s == 0;
}

/*
 * Hold the lock until the waiter has certainly failed its first try.
 * Most implementations show a waiter in the word; a test-and-set waiter
 * only reads it, so there we wait until the waiter, which has nothing
 * left to do but try and spin, has burnt milliseconds of CPU.
 */
static void wait_for_waiter(pthread_t t)
{
	u32 v;
	u64 c0;

	while (!__atomic_load_n(&cont_started, __ATOMIC_ACQUIRE))
		sched_yield();
	switch (cur_impl()) {
	case LOCK_QSPINLOCK:
		wait_word(&cont_lock, _Q_PENDING_VAL, 0);
		return;
	case LOCK_TICKET:
		do {
			sched_yield();
			v = lock_word(&cont_lock);
		} while (ticket_queue(v) != 2);
		return;
	case LOCK_MUTEX:
		while (lock_word(&cont_lock) != 2)
			sched_yield();
		return;
	case LOCK_PTHREAD_SPIN:
		if (!glibc_spin_free_is_zero()) {
			/* x86 glibc algorithm: each failed try counts up */
			while (lock_word(&cont_lock) < 2)
				sched_yield();
			return;
		}
		/* fall through */
	case LOCK_TAS:
	default:
		c0 = thread_cpu_ns(t);
		while (thread_cpu_ns(t) - c0 < 5000000ULL)
			sched_yield();
		return;
	}
}

static void test_lockstat_contended(void **state)
{
	struct lock_stat st;
	pthread_t t;

	spin_lock_init(&cont_lock);
	cont_started = 0;
	spin_lock_at(&cont_lock, &cont_holder);
	start(&t, cont_thread, NULL);
	wait_for_waiter(t);
	spin_unlock(&cont_lock);
	join(t);

	lockstat_read(&cont_waiter, &st);
	assert_int_equal(st.acquired, 1);
	assert_int_equal(st.contended, 1);
	assert_true(st.wait_total_ns > 0);
	assert_int_equal(st.wait_max_ns, st.wait_total_ns);
	assert_int_equal(st.wait_min_ns, st.wait_total_ns);
	/* the wait's two clock reads, and two more if its hold was sampled */
	assert_true(st.hold_timed <= 1);
	assert_int_equal(cont_reads, 2 + 2 * st.hold_timed);
	lockstat_read(&cont_holder, &st);
	assert_int_equal(st.acquired, 1);
	assert_int_equal(st.contended, 0);
	assert_int_equal(st.wait_total_ns, 0);
	lockstat_read_class("tcont", &st);
	assert_int_equal(st.acquired, 2);
	assert_int_equal(st.contended, 1);
	if (cur_impl() == LOCK_TICKET)
		assert_int_equal(lock_word(&cont_lock), 2U << TICKET_NEXT_SHIFT | 2U);
	else
		assert_int_equal(lock_word(&cont_lock), 0);
}

/* ---- what the statistics cost: clock reads ---- */

static spinlock_t cost_lock;

static void take_cost(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		spin_lock_at(&cost_lock, LOCK_SITE("tcost"));
		spin_unlock(&cost_lock);
	}
}

static bool try_cost(void)
{
	if (!spin_trylock_at(&cost_lock, LOCK_SITE("tcost")))
		return false;
	spin_unlock(&cost_lock);
	return true;
}

/*
 * The default mode: every uncontended acquisition counted, one hold per
 * window of LOCKSTAT_HOLD_SAMPLE timed, and only a timed one reads the
 * clock - at its acquisition and at its release.
 */
static void test_lockstat_sampled_exact(void **state)
{
	const int n = 100 * LOCKSTAT_HOLD_SAMPLE;
	struct lock_stat st;
	u64 reads;
	int i;

	spin_lock_init(&cost_lock);
	take_cost(1);			/* the site and this thread's block exist */
	lockstat_reset();		/* ...and sampling starts afresh */
	reads = lrulab_clock_reads();
	take_cost(n - 10);
	for (i = 0; i < 10; i++)
		assert_true(try_cost());
	st = site_stat("tcost", "take_cost");
	assert_int_equal(st.acquired, n - 10);
	assert_int_equal(site_stat("tcost", "try_cost").acquired, 10);
	assert_int_equal(st.contended, 0);
	assert_int_equal(st.wait_total_ns, 0);
	assert_int_equal(st.hold_sampled, LOCKSTAT_HOLD_SAMPLE);
	lockstat_read_class("tcost", &st);
	/* n is whole windows: exactly one timed hold in each */
	assert_int_equal(st.hold_timed, n / LOCKSTAT_HOLD_SAMPLE);
	assert_int_equal(lrulab_clock_reads() - reads, 2 * st.hold_timed);

	/* a part of a window: its timed hold may or may not have come */
	take_cost(LOCKSTAT_HOLD_SAMPLE / 2);
	lockstat_read_class("tcost", &st);
	assert_int_equal(st.acquired, n + LOCKSTAT_HOLD_SAMPLE / 2);
	assert_true(st.hold_timed == n / LOCKSTAT_HOLD_SAMPLE ||
		    st.hold_timed == n / LOCKSTAT_HOLD_SAMPLE + 1);
	assert_int_equal(lrulab_clock_reads() - reads, 2 * st.hold_timed);
}

static void test_lockstat_full_exact(void **state)
{
	const int n = 1000;
	struct lock_stat st;
	u64 reads;

	lockstat_set_mode(LOCKSTAT_FULL);
	spin_lock_init(&cost_lock);
	reads = lrulab_clock_reads();
	take_cost(n);
	st = site_stat("tcost", "take_cost");
	assert_int_equal(st.acquired, n);
	assert_int_equal(st.hold_timed, n);
	assert_int_equal(st.hold_sampled, 1);
	assert_int_equal(lrulab_clock_reads() - reads, 2 * n);
	assert_true(st.hold_max_ns * n >= st.hold_total_ns);
}

/*
 * A loop of exactly one window's length - 63 acquisitions at one site
 * and one at another - is what a fixed stride would sample at one place
 * only: every timed hold at one site, none at the other.  A random place
 * in each window gives both (the chance that 200 windows all pick the
 * one acquisition, or none does, is below 1e-300).
 */
static void test_lockstat_sampled_no_aliasing(void **state)
{
	struct lock_stat a, b;
	int w;

	spin_lock_init(&cost_lock);
	for (w = 0; w < 200; w++) {
		take_cost(LOCKSTAT_HOLD_SAMPLE - 1);
		assert_true(try_cost());
	}
	a = site_stat("tcost", "take_cost");
	b = site_stat("tcost", "try_cost");
	assert_int_equal(a.acquired, 200 * (LOCKSTAT_HOLD_SAMPLE - 1));
	assert_int_equal(b.acquired, 200);
	assert_int_equal(a.hold_timed + b.hold_timed, 200);
	assert_true(a.hold_timed > 0);
	assert_true(b.hold_timed < 200);
}

/*
 * A sampled hold stands for the acquisitions that were not timed: the
 * total is the timed mean times every acquisition.
 */
#define SAMPLED_HOLD_NS	20000ULL

static void test_lockstat_sampled_estimate(void **state)
{
	const int n = 2 * LOCKSTAT_HOLD_SAMPLE;
	struct lock_stat st;
	int i;

	spin_lock_init(&cost_lock);
	for (i = 0; i < n; i++) {
		u64 t;

		spin_lock_at(&cost_lock, LOCK_SITE("tcost"));
		t = mono_ns();
		while (mono_ns() - t < SAMPLED_HOLD_NS)
			;
		spin_unlock(&cost_lock);
	}
	lockstat_read_class("tcost", &st);
	assert_int_equal(st.acquired, n);
	assert_int_equal(st.hold_timed, 2);
	assert_true(st.hold_total_ns >= n * (SAMPLED_HOLD_NS - lrulab_clock_cost_ns()));
	assert_true(st.hold_total_ns <= n * st.hold_max_ns);
}

static void test_lockstat_mode_names(void **state)
{
	enum lockstat_mode m = LOCKSTAT_FULL;

	assert_int_equal(lockstat_mode_parse("off", &m), 0);
	assert_int_equal(m, LOCKSTAT_OFF);
	assert_int_equal(lockstat_mode_parse("sampled", &m), 0);
	assert_int_equal(m, LOCKSTAT_SAMPLED);
	assert_int_equal(lockstat_mode_parse("full", &m), 0);
	assert_int_equal(m, LOCKSTAT_FULL);
	assert_int_equal(lockstat_mode_parse("Full", &m), -EINVAL);
	assert_int_equal(lockstat_mode_parse(NULL, &m), -EINVAL);
	assert_int_equal(m, LOCKSTAT_FULL);
	assert_string_equal(lockstat_mode_name(LOCKSTAT_SAMPLED), "sampled");
	assert_string_equal(lockstat_mode_name((enum lockstat_mode)7), "unknown");
	assert_int_equal(lockstat_hold_sampled(LOCKSTAT_OFF), 0);
	assert_int_equal(lockstat_hold_sampled(LOCKSTAT_SAMPLED), LOCKSTAT_HOLD_SAMPLE);
	assert_int_equal(lockstat_hold_sampled(LOCKSTAT_FULL), 1);
}

/* ---- spinning: a waiter yields only in an oversubscribed run ---- */

static spinlock_t yield_lock;
static int yield_started;

static void *yield_waiter(void *arg)
{
	__atomic_store_n(&yield_started, 1, __ATOMIC_RELEASE);
	spin_lock(&yield_lock);
	spin_unlock(&yield_lock);
	return NULL;
}

/*
 * The waiter is the qspinlock pending waiter, spinning on the word; it
 * is released once it has spun for 5 ms of its own CPU time (thousands
 * of times the 16 spins after which it could yield) or has yielded.
 */
static u64 run_spinner(bool may_yield)
{
	u64 y0 = lrulab_spin_yields(), c0;
	pthread_t t;

	lrulab_spin_yield = may_yield;
	lrulab_spin_yield_loops = 16;
	spin_lock_init(&yield_lock);
	yield_started = 0;
	spin_lock(&yield_lock);
	start(&t, yield_waiter, NULL);
	while (!__atomic_load_n(&yield_started, __ATOMIC_ACQUIRE))
		sched_yield();
	wait_word(&yield_lock, _Q_PENDING_VAL, 0);
	c0 = thread_cpu_ns(t);
	while (thread_cpu_ns(t) - c0 < 5000000ULL && lrulab_spin_yields() == y0)
		sched_yield();
	spin_unlock(&yield_lock);
	join(t);
	lrulab_spin_yield_loops = 1024;
	lrulab_spin_yield = oversubscribed;
	return lrulab_spin_yields() - y0;
}

static void test_spin_yield(void **state)
{
	assert_int_equal(run_spinner(false), 0);
	assert_true(run_spinner(true) > 0);
}

static char *print_table(enum lockstat_sort sort)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	lockstat_print(f, sort);
	fclose(f);
	return buf;
}

static void test_lockstat_print(void **state)
{
	char *out;
	int i;

	spin_lock_init(&stat_lock);
	take_c();
	lockstat_reset();
	for (i = 0; i < 3; i++)
		take_a();
	take_b();
	out = print_table(LOCKSTAT_SORT_ACQUIRED);
	assert_non_null(strstr(out, "contended"));
	assert_non_null(strstr(out, "total wait"));
	/* hold times are marked as sampled, and the footnote says how */
	assert_non_null(strstr(out, "avg hold*"));
	assert_non_null(strstr(out, "* hold times sampled 1/64"));
	assert_null(strstr(out, "expensive"));
	assert_non_null(strstr(out, lrulab_spin_yield ? "waiters yield the processor after 1024 spins" :
			       "waiters spin until served, never yield"));
	assert_non_null(strstr(out, "class"));
	assert_non_null(strstr(out, "caller"));
	assert_non_null(strstr(out, "take_a\n"));
	assert_non_null(strstr(out, "tcls"));
	assert_non_null(strstr(out, "qspinlock"));
	/* most acquisitions first */
	assert_true(strstr(out, "take_a\n") < strstr(out, "take_b\n"));
	/* no acquisitions since the reset: no row */
	assert_null(strstr(out, "take_c"));
	assert_null(strstr(out, "tother"));
	free(out);

	/* the full mode says what it costs */
	lockstat_set_mode(LOCKSTAT_FULL);
	take_a();
	lrulab_spin_yield = !lrulab_spin_yield;
	out = print_table(LOCKSTAT_SORT_ACQUIRED);
	assert_non_null(strstr(out, "* hold times from every acquisition"));
	assert_non_null(strstr(out, "expensive"));
	assert_non_null(strstr(out, lrulab_spin_yield ? "waiters yield the processor after 1024 spins" :
			       "waiters spin until served, never yield"));
	lrulab_spin_yield = oversubscribed;
	free(out);
}

/*
 * One unit per time column: the largest value's, named under the
 * heading, every cell in it; small values keep two digits.
 */
static void test_lockstat_print_units(void **state)
{
	struct lockstat_row rows[2] = {
		{ "lru_lock", "a (a:x)", { .acquired = 10, .contended = 4,
					   .wait_total_ns = 4812000000000ULL,
					   .wait_max_ns = 16570000000ULL, .hold_total_ns = 40,
					   .hold_timed = 1 } },
		{ "zone->lock", "b", { .acquired = 3, .contended = 1, .wait_total_ns = 45930,
				       .wait_max_ns = 45930 } },
	};
	char *buf = NULL, cell[32];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	lockstat_print_rows(f, rows, 2, NULL);
	fclose(f);
	/* total wait and max wait in s, avg wait in s, hold total and avg in ns */
	assert_non_null(strstr(buf, "\n                       s            s            s                        ns           ns\n\n"));
	assert_non_null(strstr(buf, "  4      4812.00        16.57      1203.00           10           40            4   lru_lock     a (a:x)\n"));
	/* 45.93 us in a column of seconds; no hold timed: "-" */
	assert_non_null(strstr(buf, "  1     0.000046     0.000046     0.000046            3            -            -   zone->lock   b\n"));
	assert_null(strstr(buf, " m "));
	free(buf);

	assert_string_equal(lockstat_unit_for(999).name, "ns");
	assert_string_equal(lockstat_unit_for(1000).name, "us");
	assert_string_equal(lockstat_unit_for(2e6).name, "ms");
	assert_string_equal(lockstat_unit_for(7e11).name, "s");
	lockstat_fmt_in(cell, sizeof(cell), 4, lockstat_unit_for(2e3));
	assert_string_equal(cell, "0.0040");
	lockstat_fmt_in(cell, sizeof(cell), 360, lockstat_unit_for(2e3));
	assert_string_equal(cell, "0.36");
	lockstat_fmt_in(cell, sizeof(cell), 0, lockstat_unit_for(2e3));
	assert_string_equal(cell, "0");
	lockstat_fmt_in(cell, sizeof(cell), 1234.4, lockstat_unit_for(1));
	assert_string_equal(cell, "1234");
}

/* ---- names ---- */

static void test_lock_impl_parse(void **state)
{
	static const char *const names[NR_LOCK_IMPLS] = {
		"qspinlock", "ticket", "tas", "pthread-spin", "mutex",
	};
	enum lock_impl impl = LOCK_MUTEX;
	int i;

	for (i = 0; i < NR_LOCK_IMPLS; i++) {
		assert_int_equal(lock_impl_parse(names[i], &impl), 0);
		assert_int_equal(impl, i);
		assert_string_equal(lock_impl_name(impl), names[i]);
	}
	impl = LOCK_TAS;
	assert_int_equal(lock_impl_parse("spinny", &impl), -EINVAL);
	assert_int_equal(lock_impl_parse("", &impl), -EINVAL);
	assert_int_equal(lock_impl_parse("Ticket", &impl), -EINVAL);
	assert_int_equal(lock_impl_parse("qspinlock ", &impl), -EINVAL);
	assert_int_equal(lock_impl_parse(NULL, &impl), -EINVAL);
	assert_int_equal(impl, LOCK_TAS);	/* untouched on error */
	assert_string_equal(lock_impl_name(NR_LOCK_IMPLS), "unknown");
}

/* ---- clock ---- */

static void test_clock(void **state)
{
	u64 prev, now, m_out0, m_in0, m_in1, m_out1, a, b;
	int i;

	lrulab_clock_init();
	prev = lrulab_now_ns();
	for (i = 0; i < 100000; i++) {
		now = lrulab_now_ns();
		assert_true(now >= prev);
		prev = now;
	}

	/*
	 * The scaled TSC runs at CLOCK_MONOTONIC's rate: the interval it
	 * measures lies between an inner and an outer monotonic interval
	 * (calibration error allowed for, 10%, which a wrong multiplier or
	 * shift exceeds many times over).
	 */
	m_out0 = mono_ns();
	a = lrulab_now_ns();
	m_in0 = mono_ns();
	while (mono_ns() - m_in0 < BUSY_HOLD_NS)
		;
	m_in1 = mono_ns();
	b = lrulab_now_ns();
	m_out1 = mono_ns();
	assert_true((b - a) * 10 >= (m_in1 - m_in0) * 9);
	assert_true((b - a) * 10 <= (m_out1 - m_out0) * 11);
	assert_true(!strcmp(lrulab_clock_source(), "tsc") ||
		    !strcmp(lrulab_clock_source(), "clock_gettime"));
}

/* ---- more sites than the table holds (run last: sites stay registered) ---- */

#define NR_OVF_SITES	(LOCKSTAT_MAX_SITES + 12)

static void test_lockstat_overflow(void **state)
{
	static struct lock_site sites[NR_OVF_SITES];
	static char callers[NR_OVF_SITES][16];
	struct lock_site *ovf;
	struct lock_stat st;
	int i, before = lockstat_nr_sites(), own;

	assert_true(before < LOCKSTAT_MAX_SITES);
	own = LOCKSTAT_MAX_SITES - before;
	spin_lock_init(&stat_lock);
	for (i = 0; i < NR_OVF_SITES; i++) {
		snprintf(callers[i], sizeof(callers[i]), "ovf%03d", i);
		sites[i] = (struct lock_site){ .cls = "tovf", .caller = callers[i], .fn = callers[i], .id = -1 };
		spin_lock_at(&stat_lock, &sites[i]);
		spin_unlock(&stat_lock);
		spin_lock_at(&stat_lock, &sites[i]);
		spin_unlock(&stat_lock);
	}
	assert_int_equal(lockstat_nr_sites(), LOCKSTAT_MAX_SITES + 1);
	ovf = lockstat_site(LOCKSTAT_MAX_SITES);
	assert_non_null(ovf);
	assert_string_equal(ovf->cls, "<overflow>");
	assert_null(lockstat_site(LOCKSTAT_MAX_SITES + 1));
	assert_int_equal(sites[own - 1].id, LOCKSTAT_MAX_SITES - 1);
	assert_int_equal(sites[own].id, LOCKSTAT_MAX_SITES);

	lockstat_read_class("tovf", &st);
	assert_int_equal(st.acquired, 2 * own);
	lockstat_read(ovf, &st);
	assert_int_equal(st.acquired, 2 * (NR_OVF_SITES - own));
	lockstat_read(&sites[NR_OVF_SITES - 1], &st);	/* reads the shared slot */
	assert_int_equal(st.acquired, 2 * (NR_OVF_SITES - own));

	/* and the table still prints, overflow row included */
	{
		char *out = print_table(LOCKSTAT_SORT_WAIT_TOTAL);

		assert_non_null(strstr(out, "<overflow>"));
		assert_non_null(strstr(out, "ovf000"));
		free(out);
	}
}

int main(int argc, char **argv)
{
	static struct CMUnitTest tests[3 * NR_LOCK_IMPLS + 21];
	static char names[3 * NR_LOCK_IMPLS][64];
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
	} per_impl[] = {
		{ "mutual_exclusion", test_mutual_exclusion },
		{ "trylock", test_trylock },
		{ "lockstat_contended", test_lockstat_contended },
	};
	size_t n = 0, i;
	int impl;

	if (argc > 1 && !strcmp(argv[1], "--short"))
		nr_increments = 500;

	lrulab_clock_init();
	/* the exclusion and FIFO tests run up to NR_WAITERS + 1 threads */
	oversubscribed = NR_WAITERS + 1 > lrulab_nr_processors();
	for (i = 0; i < ARRAY_SIZE(per_impl); i++) {
		for (impl = 0; impl < NR_LOCK_IMPLS; impl++) {
			char *name = names[i * NR_LOCK_IMPLS + impl];

			impl_of[impl] = (enum lock_impl)impl;
			snprintf(name, sizeof(names[0]), "%s/%s", per_impl[i].name,
				 lock_impl_name((enum lock_impl)impl));
			tests[n++] = (struct CMUnitTest){
				.name = name,
				.test_func = per_impl[i].fn,
				.setup_func = impl_setup,
				.initial_state = &impl_of[impl],
			};
		}
	}
#define ADD(fn, setup, st) tests[n++] = (struct CMUnitTest){ #fn, fn, setup, NULL, st }
	ADD(test_fifo, impl_setup, &impl_of[LOCK_QSPINLOCK]);
	ADD(test_fifo, impl_setup, &impl_of[LOCK_TICKET]);
	tests[n - 1].name = "test_fifo/ticket";
	tests[n - 2].name = "test_fifo/qspinlock";
	ADD(test_trylock_no_barging, qspin_setup, NULL);
	ADD(test_lockstat_counts, qspin_setup, NULL);
	ADD(test_lockstat_disabled, qspin_setup, NULL);
	ADD(test_lockstat_reset, qspin_setup, NULL);
	ADD(test_lockstat_hold, qspin_setup, NULL);
	ADD(test_lockstat_deep_nesting, qspin_setup, NULL);
	ADD(test_lockstat_print, qspin_setup, NULL);
	ADD(test_lockstat_print_units, NULL, NULL);
	ADD(test_lockstat_sampled_exact, qspin_setup, NULL);
	ADD(test_lockstat_full_exact, qspin_setup, NULL);
	ADD(test_lockstat_sampled_no_aliasing, qspin_setup, NULL);
	ADD(test_lockstat_sampled_estimate, qspin_setup, NULL);
	ADD(test_lockstat_mode_names, NULL, NULL);
	ADD(test_spin_yield, qspin_setup, NULL);
	ADD(test_pv_steal, qspin_setup, NULL);
	ADD(test_pv_exclusion, qspin_setup, NULL);
	ADD(test_lock_impl_parse, NULL, NULL);
	ADD(test_clock, NULL, NULL);
	ADD(test_lockstat_overflow, qspin_setup, NULL);
#undef ADD
	if (n != ARRAY_SIZE(tests)) {
		fprintf(stderr, "test_spinlock: %zu tests, table has %zu\n", n,
			ARRAY_SIZE(tests));
		return 1;
	}
	return _cmocka_run_group_tests("spinlock", tests, n, NULL, NULL);
}
