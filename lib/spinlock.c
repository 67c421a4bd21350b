// SPDX-License-Identifier: MIT
/*
 * Lock implementations behind spinlock_t.  All of them live in the one
 * 32-bit word, so a struct that embeds a lock keeps the kernel's layout
 * whichever implementation a run uses, and a zeroed word is an unlocked
 * lock for every one of them.
 *
 *   qspinlock     the kernel's queued lock: fast-path cmpxchg, one
 *                 "pending" waiter spinning on the word, everyone else in
 *                 an MCS queue spinning on their own node.  FIFO; with
 *                 more threads than processors the paravirt variant.
 *   ticket        next/owner halves, xadd to take a ticket.  FIFO, but
 *                 every waiter spins on the lock word.
 *   tas           test-and-test-and-set.  Unfair: whoever sees the word
 *                 free first wins.
 *   pthread-spin  glibc's pthread_spinlock_t algorithm.
 *   mutex         a futex sleeping lock, standing in for pthread_mutex_t
 *                 (whose 40 bytes would break every struct layout): the
 *                 PREEMPT_RT question of what a sleeping lru_lock costs.
 *
 * Acquire ordering on every path that takes a lock, release on unlock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lrulab/spinlock.h>

#include "lockstat-internal.h"

enum lock_impl lrulab_lock_impl = LOCK_QSPINLOCK;

static const char *const lock_impl_names[NR_LOCK_IMPLS] = {
	[LOCK_QSPINLOCK]	= "qspinlock",
	[LOCK_TICKET]		= "ticket",
	[LOCK_TAS]		= "tas",
	[LOCK_PTHREAD_SPIN]	= "pthread-spin",
	[LOCK_MUTEX]		= "mutex",
};

int lock_impl_parse(const char *name, enum lock_impl *impl)
{
	int i;

	for (i = 0; name && i < NR_LOCK_IMPLS; i++) {
		if (!strcmp(name, lock_impl_names[i])) {
			*impl = (enum lock_impl)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *lock_impl_name(enum lock_impl impl)
{
	if ((unsigned int)impl >= NR_LOCK_IMPLS)
		return "unknown";
	return lock_impl_names[impl];
}

void lock_impl_set(enum lock_impl impl)
{
	if ((unsigned int)impl >= NR_LOCK_IMPLS) {
		fprintf(stderr, "lrulab: lock_impl_set: no lock implementation %d\n",
			(int)impl);
		abort();
	}
	WRITE_ONCE(lrulab_lock_impl, impl);
}

/*
 * A kernel waiter spins with preemption off until it is served, and so do
 * ours.  A thread here can be preempted, though, and with more threads
 * than processors a FIFO lock may hand itself to a waiter that is not
 * running while everyone behind it spins for the rest of a time slice.
 * Only then, after a long spin, does a waiter give its processor away;
 * queue positions are kept, so the order of service does not change.
 * Without oversubscription a yield would only put a syscall where the
 * kernel has none (and a waiter in it when the MCS baton arrives delays
 * the hand-over), at the very wait lengths the mails measure.
 */
bool lrulab_spin_yield;
unsigned int lrulab_spin_yield_loops = 1024;
static u64 spin_yields;
static u64 pv_steals;

u64 lrulab_spin_yields(void)
{
	return __atomic_load_n(&spin_yields, __ATOMIC_RELAXED);
}

u64 lrulab_pv_steals(void)
{
	return __atomic_load_n(&pv_steals, __ATOMIC_RELAXED);
}

static inline void spin_wait(unsigned int *loops)
{
	if (likely(++*loops < READ_ONCE(lrulab_spin_yield_loops)) ||
	    likely(!READ_ONCE(lrulab_spin_yield))) {
		cpu_relax();
		return;
	}
	*loops = 0;
	__atomic_fetch_add(&spin_yields, 1, __ATOMIC_RELAXED);
	sched_yield();
}

/*
 * The kernel's qspinlock and ticket lock also address parts of the word
 * (the locked byte, locked+pending, the tail, the ticket owner): a byte
 * or halfword store releases or hands over the lock without a locked
 * instruction.  may_alias makes those accesses legal C for GCC.
 */
typedef u16 __attribute__((may_alias)) u16_alias;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORD_LOW_BYTE	0
#define WORD_LOW_HALF	0
#define WORD_HIGH_HALF	1
#else
#define WORD_LOW_BYTE	3
#define WORD_LOW_HALF	1
#define WORD_HIGH_HALF	0
#endif

static inline u8 *word_low_byte(spinlock_t *l)
{
	return (u8 *)&l->val + WORD_LOW_BYTE;
}

static inline u16_alias *word_low_half(spinlock_t *l)
{
	return (u16_alias *)&l->val + WORD_LOW_HALF;
}

static inline u16_alias *word_high_half(spinlock_t *l)
{
	return (u16_alias *)&l->val + WORD_HIGH_HALF;
}

/* ---- qspinlock ---- */

/*
 * Kernel qspinlock spins this many times for a pending->locked hand-over
 * that is under way before queueing (x86 value).
 */
#define _Q_PENDING_LOOPS	512

struct qnode {
	struct qnode *next;
	int locked;		/* set by our predecessor: we are the head */
	int count;		/* nesting level, kept in node 0 */
};

/*
 * The kernel has four nodes per CPU for task, softirq, hardirq and NMI
 * nesting.  A thread waits for one lock at a time, so only a signal
 * handler could nest here; the four levels are kept for the encoding.
 */
static __thread struct qnode qnodes[_Q_MAX_NODES] __attribute__((aligned(64)));
static __thread int qnode_thread = -1;	/* index in qnode_table, -1 unset */

/* A successor finds its predecessor's node from the tail it replaced. */
static struct qnode *qnode_table[QSPIN_MAX_THREADS];
static pthread_mutex_t qnode_mutex = PTHREAD_MUTEX_INITIALIZER;
static int qnode_free[QSPIN_MAX_THREADS];
static int qnode_nr_free, qnode_next_unused;
static pthread_key_t qnode_key;
static pthread_once_t qnode_key_once = PTHREAD_ONCE_INIT;

/*
 * An exiting thread is in no queue (it left the slow path holding the
 * lock, and nobody touches a node after it is handed on), so its index
 * can go to the next thread at once.
 */
static void qnode_thread_exit(void *arg)
{
	int idx = (int)(uintptr_t)arg - 1;

	pthread_mutex_lock(&qnode_mutex);
	__atomic_store_n(&qnode_table[idx], NULL, __ATOMIC_RELAXED);
	qnode_free[qnode_nr_free++] = idx;
	pthread_mutex_unlock(&qnode_mutex);
	qnode_thread = -1;
}

static void qnode_key_create(void)
{
	if (pthread_key_create(&qnode_key, qnode_thread_exit)) {
		fprintf(stderr, "lrulab: qspinlock: pthread_key_create failed\n");
		abort();
	}
}

/* Done the first time a thread has to queue; the fast path never needs it. */
static void qnode_register(void)
{
	int idx;

	pthread_once(&qnode_key_once, qnode_key_create);
	pthread_mutex_lock(&qnode_mutex);
	if (qnode_nr_free) {
		idx = qnode_free[--qnode_nr_free];
	} else if (qnode_next_unused < QSPIN_MAX_THREADS) {
		idx = qnode_next_unused++;
	} else {
		pthread_mutex_unlock(&qnode_mutex);
		fprintf(stderr, "lrulab: qspinlock: more than %d threads at once\n",
			QSPIN_MAX_THREADS);
		abort();
	}
	/* published to a successor by our tail exchange (acq_rel) */
	__atomic_store_n(&qnode_table[idx], qnodes, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&qnode_mutex);
	pthread_setspecific(qnode_key, (void *)(uintptr_t)(idx + 1));
	qnode_thread = idx;
}

static inline u32 encode_tail(int thread, int idx)
{
	return ((u32)(thread + 1) << _Q_TAIL_CPU_OFFSET) |
	       ((u32)idx << _Q_TAIL_IDX_OFFSET);
}

static inline struct qnode *decode_tail(u32 tail)
{
	int thread = (int)(tail >> _Q_TAIL_CPU_OFFSET) - 1;
	int idx = (tail & _Q_TAIL_IDX_MASK) >> _Q_TAIL_IDX_OFFSET;

	return __atomic_load_n(&qnode_table[thread], __ATOMIC_RELAXED) + idx;
}

static inline bool qspin_trylock(spinlock_t *l)
{
	u32 val = __atomic_load_n(&l->val, __ATOMIC_RELAXED);

	/* Any pending or queued waiter makes the word non-zero: no barging. */
	if (val)
		return false;
	return __atomic_compare_exchange_n(&l->val, &val, _Q_LOCKED_VAL, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* The owner's byte store: no locked instruction on the unlock path. */
static inline void qspin_unlock(spinlock_t *l)
{
	__atomic_store_n(word_low_byte(l), 0, __ATOMIC_RELEASE);
}

static inline u32 qspin_xchg_tail(spinlock_t *l, u32 tail)
{
	u16 old = __atomic_exchange_n(word_high_half(l),
				      (u16)(tail >> _Q_TAIL_OFFSET),
				      __ATOMIC_ACQ_REL);

	return (u32)old << _Q_TAIL_OFFSET;
}

/*
 * Oversubscribed runs (lrulab_spin_yield): the model is then a guest
 * with more vCPUs than the host gives it processors, and such a kernel
 * runs the paravirt qspinlock (kernel/locking/qspinlock_paravirt.h).
 * Strict FIFO there would hand lru_lock to a queued waiter that is not
 * running while every running CPU waits behind it.  So, as the paravirt
 * lock does: no pending fast path, a newcomer may take a free lock out
 * of turn while waiters are queued and the queue head has not raised
 * the pending bit, and the queue head raises it while it spins and
 * drops it before it gives its processor away.  A waiter's yield stands
 * for the guest's halt (pv_wait) or the host's pause-loop exit.
 */
static bool pv_steal_lock(spinlock_t *l)
{
	unsigned int loops = 0;
	u32 val;

	for (;;) {
		val = __atomic_load_n(&l->val, __ATOMIC_RELAXED);
		if (!(val & _Q_LOCKED_PENDING_MASK) &&
		    __atomic_compare_exchange_n(&l->val, &val, val | _Q_LOCKED_VAL, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			__atomic_fetch_add(&pv_steals, 1, __ATOMIC_RELAXED);
			return true;
		}
		/* nobody queued, or the head asks for its turn: get in line */
		if (!(val & _Q_TAIL_MASK) || (val & _Q_PENDING_MASK))
			return false;
		spin_wait(&loops);
	}
}

/*
 * The queue head takes the lock with a cmpxchg, since a newcomer may
 * take it between our load and our store.  True if it emptied the tail
 * (nobody behind us), false if a successor needs the MCS baton.
 */
static bool pv_wait_head_or_lock(spinlock_t *l, u32 tail)
{
	unsigned int loops;
	u32 val, new;

	for (;;) {
		__atomic_fetch_or(&l->val, _Q_PENDING_VAL, __ATOMIC_RELAXED);
		/* one look at least, however short the spin before a yield */
		for (loops = 0;;) {
			val = __atomic_load_n(&l->val, __ATOMIC_RELAXED);
			if (!(val & _Q_LOCKED_MASK)) {
				new = (val & _Q_TAIL_MASK) == tail ? _Q_LOCKED_VAL :
				      (val & _Q_TAIL_MASK) | _Q_LOCKED_VAL;
				if (__atomic_compare_exchange_n(&l->val, &val, new, false,
								__ATOMIC_ACQUIRE,
								__ATOMIC_RELAXED))
					return new == _Q_LOCKED_VAL;
				continue;
			}
			if (++loops >= READ_ONCE(lrulab_spin_yield_loops))
				break;
			cpu_relax();
		}
		/* about to lose the processor: let running CPUs steal meanwhile */
		__atomic_fetch_and(&l->val, ~_Q_PENDING_VAL, __ATOMIC_RELAXED);
		__atomic_fetch_add(&spin_yields, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
}

static __attribute__((noinline)) void qspin_lock_slowpath(spinlock_t *l, u32 val)
{
	struct qnode *node, *prev, *next;
	unsigned int loops = 0;
	bool pv = READ_ONCE(lrulab_spin_yield);
	u32 old, tail;
	int idx;

	if (pv)
		goto queue;

	/*
	 * Pending set, lock free, nobody queued: the pending waiter is
	 * turning itself into the owner right now.  Give it a moment
	 * rather than queueing behind a lock that is about to be taken.
	 */
	if (val == _Q_PENDING_VAL) {
		int cnt = _Q_PENDING_LOOPS;

		while ((val = __atomic_load_n(&l->val, __ATOMIC_RELAXED)) ==
		       _Q_PENDING_VAL && cnt--)
			cpu_relax();
	}

	/* Someone is already waiting: get in line. */
	if (val & ~_Q_LOCKED_MASK)
		goto queue;

	/* Try to become the one waiter that spins on the word. */
	val = __atomic_fetch_or(&l->val, _Q_PENDING_VAL, __ATOMIC_ACQUIRE);
	if (unlikely(val & ~_Q_LOCKED_MASK)) {
		/* lost a race with another waiter; undo pending if it is ours */
		if (!(val & _Q_PENDING_MASK))
			__atomic_fetch_and(&l->val, ~_Q_PENDING_VAL, __ATOMIC_RELAXED);
		goto queue;
	}

	/* Pending waiter: only the owner is ahead of us.  Wait for it... */
	if (val & _Q_LOCKED_MASK)
		while (__atomic_load_n(&l->val, __ATOMIC_ACQUIRE) & _Q_LOCKED_MASK)
			spin_wait(&loops);

	/* ...then pending -> locked in one halfword store; only the tail
	 * half can change under us and it is not touched. */
	__atomic_store_n(word_low_half(l), (u16)_Q_LOCKED_VAL, __ATOMIC_RELAXED);
	return;

queue:
	if (unlikely(qnode_thread < 0))
		qnode_register();
	idx = qnodes[0].count++;
	tail = encode_tail(qnode_thread, idx);

	/* Nested deeper than the tail can name: spin without a node. */
	if (unlikely(idx >= _Q_MAX_NODES)) {
		while (!qspin_trylock(l))
			spin_wait(&loops);
		goto release;
	}

	node = &qnodes[idx];
	__atomic_store_n(&node->locked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&node->next, NULL, __ATOMIC_RELAXED);

	/* The owner may have left while we got here. */
	if (pv ? pv_steal_lock(l) : qspin_trylock(l))
		goto release;

	/* Publish the node (release) and find who is ahead (acquire). */
	old = qspin_xchg_tail(l, tail);
	next = NULL;

	if (old & _Q_TAIL_MASK) {
		prev = decode_tail(old);
		__atomic_store_n(&prev->next, node, __ATOMIC_RELEASE);
		/* Local spinning: only our predecessor writes this line. */
		while (!__atomic_load_n(&node->locked, __ATOMIC_ACQUIRE))
			spin_wait(&loops);
		/* acquire: the successor's node init must precede our baton
		 * store (the kernel leans on the address dependency) */
		next = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE);
	}

	if (pv) {
		if (pv_wait_head_or_lock(l, tail))
			goto release;
		goto pass_baton;
	}

	/* Queue head: wait for the owner and any pending waiter to go. */
	while ((val = __atomic_load_n(&l->val, __ATOMIC_ACQUIRE)) &
	       _Q_LOCKED_PENDING_MASK)
		spin_wait(&loops);

	/* Last in the queue: take the lock and empty the tail at once. */
	if ((val & _Q_TAIL_MASK) == tail &&
	    __atomic_compare_exchange_n(&l->val, &val, _Q_LOCKED_VAL, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		goto release;

	/*
	 * Someone is behind us, or a racing pending bit made the cmpxchg
	 * fail - that thread will see our tail and queue, so a successor
	 * is coming either way.  Take the lock, then pass the MCS baton.
	 */
	__atomic_store_n(word_low_byte(l), (u8)_Q_LOCKED_VAL, __ATOMIC_RELAXED);
pass_baton:
	if (!next)
		while (!(next = __atomic_load_n(&node->next, __ATOMIC_ACQUIRE)))
			spin_wait(&loops);
	__atomic_store_n(&next->locked, 1, __ATOMIC_RELEASE);

release:
	qnodes[0].count--;
}

static inline void qspin_lock(spinlock_t *l)
{
	u32 val = 0;

	if (likely(__atomic_compare_exchange_n(&l->val, &val, _Q_LOCKED_VAL, false,
					       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return;
	qspin_lock_slowpath(l, val);
}

/* ---- ticket ---- */

static inline void ticket_lock(spinlock_t *l)
{
	u32 val = __atomic_fetch_add(&l->val, 1U << TICKET_NEXT_SHIFT,
				     __ATOMIC_ACQUIRE);
	u16 ticket = (u16)(val >> TICKET_NEXT_SHIFT);
	unsigned int loops = 0;

	while ((u16)(val & TICKET_OWNER_MASK) != ticket) {
		spin_wait(&loops);
		val = __atomic_load_n(&l->val, __ATOMIC_ACQUIRE);
	}
}

static inline bool ticket_trylock(spinlock_t *l)
{
	u32 val = __atomic_load_n(&l->val, __ATOMIC_RELAXED);

	if ((u16)(val >> TICKET_NEXT_SHIFT) != (u16)(val & TICKET_OWNER_MASK))
		return false;
	/* the next half wraps by itself: bit 32 falls off */
	return __atomic_compare_exchange_n(&l->val, &val,
					   val + (1U << TICKET_NEXT_SHIFT), false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/*
 * Only the owner moves the owner half, so a halfword store suffices; an
 * add on the whole word would carry into "next" when owner wraps.
 */
static inline void ticket_unlock(spinlock_t *l)
{
	u16 owner = __atomic_load_n(word_low_half(l), __ATOMIC_RELAXED);

	__atomic_store_n(word_low_half(l), (u16)(owner + 1), __ATOMIC_RELEASE);
}

static inline bool ticket_is_locked(spinlock_t *l)
{
	u32 val = __atomic_load_n(&l->val, __ATOMIC_RELAXED);

	return (u16)(val >> TICKET_NEXT_SHIFT) != (u16)(val & TICKET_OWNER_MASK);
}

/* ---- test-and-test-and-set ---- */

/*
 * Concurrency Kit's ck_spinlock_fas is 4 bytes and would fit, but its
 * atomics are inline assembly that ThreadSanitizer cannot see; with C
 * atomics the stress tests check the lock, not just its callers.
 */
static inline bool tas_trylock(spinlock_t *l)
{
	return !__atomic_load_n(&l->val, __ATOMIC_RELAXED) &&
	       !__atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE);
}

static inline void tas_lock(spinlock_t *l)
{
	unsigned int loops = 0;

	while (__atomic_exchange_n(&l->val, 1, __ATOMIC_ACQUIRE))
		/* read-only spin: the line stays shared until it is freed */
		while (__atomic_load_n(&l->val, __ATOMIC_RELAXED))
			spin_wait(&loops);
}

static inline void tas_unlock(spinlock_t *l)
{
	__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
}

/* ---- glibc pthread_spinlock_t ---- */

_Static_assert(sizeof(pthread_spinlock_t) == sizeof(u32),
	       "pthread_spinlock_t must fit the spinlock_t word");
_Static_assert(_Alignof(pthread_spinlock_t) <= _Alignof(u32),
	       "pthread_spinlock_t must not need more alignment than u32");

/*
 * glibc's generic pthread_spinlock_t is 0 when free, and we call it on
 * the word.  On x86 glibc uses its own assembly where free is 1 and
 * lock is "lock decl": a zeroed word would be a held lock, and the word
 * must start at 0 like every other implementation.  There we run the
 * x86 algorithm itself on the complement (word = 1 - glibc's value):
 * lock incl and succeed on 0 -> 1; otherwise spin reading until the
 * word is 0 again and retry; unlock stores 0.
 */
static bool glibc_spin_free_is_zero;

__attribute__((constructor)) static void glibc_spin_probe(void)
{
	pthread_spinlock_t s;

	pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);
	glibc_spin_free_is_zero = (s == 0);
	pthread_spin_destroy(&s);
}

static inline pthread_spinlock_t *glibc_spin(spinlock_t *l)
{
	return (pthread_spinlock_t *)&l->val;
}

static inline void pspin_lock(spinlock_t *l)
{
	unsigned int loops = 0;

	if (glibc_spin_free_is_zero) {
		pthread_spin_lock(glibc_spin(l));
		return;
	}
	while (__atomic_fetch_add(&l->val, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->val, __ATOMIC_RELAXED))
			spin_wait(&loops);
}

static inline bool pspin_trylock(spinlock_t *l)
{
	u32 val = 0;

	if (glibc_spin_free_is_zero)
		return pthread_spin_trylock(glibc_spin(l)) == 0;
	return __atomic_compare_exchange_n(&l->val, &val, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void pspin_unlock(spinlock_t *l)
{
	if (glibc_spin_free_is_zero)
		pthread_spin_unlock(glibc_spin(l));
	else
		__atomic_store_n(&l->val, 0, __ATOMIC_RELEASE);
}

/* ---- futex mutex ---- */

/*
 * 0 free, 1 held, 2 held and someone may sleep in the kernel.  A waiter
 * always leaves 2 behind when it takes the lock, because it cannot know
 * whether others still sleep; the cost is one spare wake-up.
 */
enum { MUTEX_FREE, MUTEX_HELD, MUTEX_WAITERS };

static inline void futex_wait(u32 *word, u32 val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static inline void futex_wake(u32 *word, int nr)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, nr, NULL, NULL, 0);
}

static inline bool mutex_trylock(spinlock_t *l)
{
	u32 c = MUTEX_FREE;

	return __atomic_compare_exchange_n(&l->val, &c, MUTEX_HELD, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void mutex_lock(spinlock_t *l)
{
	u32 c = MUTEX_FREE;

	if (likely(__atomic_compare_exchange_n(&l->val, &c, MUTEX_HELD, false,
					       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return;
	if (c != MUTEX_WAITERS)
		c = __atomic_exchange_n(&l->val, MUTEX_WAITERS, __ATOMIC_ACQUIRE);
	while (c != MUTEX_FREE) {
		futex_wait(&l->val, MUTEX_WAITERS);
		c = __atomic_exchange_n(&l->val, MUTEX_WAITERS, __ATOMIC_ACQUIRE);
	}
}

static inline void mutex_unlock(spinlock_t *l)
{
	if (__atomic_exchange_n(&l->val, MUTEX_FREE, __ATOMIC_RELEASE) == MUTEX_WAITERS)
		futex_wake(&l->val, 1);
}

/* ---- dispatch ---- */

static inline void arch_spin_lock(enum lock_impl impl, spinlock_t *l)
{
	switch (impl) {
	case LOCK_QSPINLOCK:	qspin_lock(l); break;
	case LOCK_TICKET:	ticket_lock(l); break;
	case LOCK_TAS:		tas_lock(l); break;
	case LOCK_PTHREAD_SPIN:	pspin_lock(l); break;
	case LOCK_MUTEX:	mutex_lock(l); break;
	default:		__builtin_unreachable();
	}
}

static inline bool arch_spin_trylock(enum lock_impl impl, spinlock_t *l)
{
	switch (impl) {
	case LOCK_QSPINLOCK:	return qspin_trylock(l);
	case LOCK_TICKET:	return ticket_trylock(l);
	case LOCK_TAS:		return tas_trylock(l);
	case LOCK_PTHREAD_SPIN:	return pspin_trylock(l);
	case LOCK_MUTEX:	return mutex_trylock(l);
	default:		__builtin_unreachable();
	}
}

static inline void arch_spin_unlock(enum lock_impl impl, spinlock_t *l)
{
	switch (impl) {
	case LOCK_QSPINLOCK:	qspin_unlock(l); break;
	case LOCK_TICKET:	ticket_unlock(l); break;
	case LOCK_TAS:		tas_unlock(l); break;
	case LOCK_PTHREAD_SPIN:	pspin_unlock(l); break;
	case LOCK_MUTEX:	mutex_unlock(l); break;
	default:		__builtin_unreachable();
	}
}

/*
 * The implementation's own first attempt, as its lock fast path makes
 * it; on failure *@val is the word it saw, for the qspinlock slow path.
 */
static inline bool arch_spin_lock_first(enum lock_impl impl, spinlock_t *l, u32 *val)
{
	*val = 0;
	if (impl == LOCK_QSPINLOCK)
		return __atomic_compare_exchange_n(&l->val, val, _Q_LOCKED_VAL, false,
						   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	return arch_spin_trylock(impl, l);
}

static inline void arch_spin_lock_wait(enum lock_impl impl, spinlock_t *l, u32 val)
{
	if (impl == LOCK_QSPINLOCK)
		qspin_lock_slowpath(l, val);
	else
		arch_spin_lock(impl, l);
}

/*
 * With statistics on, a failed first try is what makes an acquisition
 * "contended", as perf lock contention counts it, and only then is the
 * clock read: the wait runs from just after that try to the moment the
 * lock is ours.  Out of line, so that the uncontended path needs no
 * registers saved.
 */
static __attribute__((noinline)) void spin_lock_contended(spinlock_t *l,
							  struct lock_site *site,
							  enum lock_impl impl, u32 val)
{
	u64 t0 = lrulab_now_ns();

	arch_spin_lock_wait(impl, l, val);
	__lockstat_acquired(l, site, t0, lrulab_now_ns());
}

void spin_lock_at(spinlock_t *l, struct lock_site *site)
{
	enum lock_impl impl = READ_ONCE(lrulab_lock_impl);
	u32 val;

	if (READ_ONCE(lockstat_mode) == LOCKSTAT_OFF) {
		arch_spin_lock(impl, l);
		return;
	}
	if (likely(arch_spin_lock_first(impl, l, &val)))
		lockstat_acquired(l, site);
	else
		spin_lock_contended(l, site, impl, val);
}

bool spin_trylock_at(spinlock_t *l, struct lock_site *site)
{
	if (!arch_spin_trylock(READ_ONCE(lrulab_lock_impl), l))
		return false;
	if (READ_ONCE(lockstat_mode) != LOCKSTAT_OFF)
		lockstat_acquired(l, site);
	return true;
}

/*
 * A timed hold reads the clock as the section ends and does its
 * bookkeeping after the lock is free.  A lock taken without a timed hold
 * while another one's is open is only looked for.
 */
static __attribute__((noinline)) void spin_unlock_timed(spinlock_t *l,
							enum lock_impl impl,
							struct lockstat_block *b)
{
	struct held_lock *h = lockstat_held(b, l);
	u64 now;

	if (!h) {
		arch_spin_unlock(impl, l);
		return;
	}
	now = lrulab_now_ns();
	arch_spin_unlock(impl, l);
	__lockstat_released(b, h, now);
}

/* An unsampled acquisition's unlock finds this thread's open timed holds at 0. */
void spin_unlock(spinlock_t *l)
{
	enum lock_impl impl = READ_ONCE(lrulab_lock_impl);
	struct lockstat_block *b = lockstat_self;

	if (unlikely(STAT_READ(b->nr_held)))
		spin_unlock_timed(l, impl, b);
	else
		arch_spin_unlock(impl, l);
}

bool spin_is_locked(spinlock_t *l)
{
	/* As the kernel's qspinlock: a waiter alone makes it "locked". */
	if (READ_ONCE(lrulab_lock_impl) == LOCK_TICKET)
		return ticket_is_locked(l);
	return __atomic_load_n(&l->val, __ATOMIC_RELAXED) != 0;
}
