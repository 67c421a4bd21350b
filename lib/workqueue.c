// SPDX-License-Identifier: MIT
/*
 * Per-CPU work queues (include/lrulab/workqueue.h).
 *
 * Each CPU's queue is a singly linked list under a test-and-set word:
 * queueing is rare (drains of all CPUs, folds, stock drains), so the
 * only cost on the hot path is the owner's relaxed load of its own
 * nr_pending at each scheduling point.
 *
 * Who runs a CPU's work is decided by its state word (cpu.h): the thread
 * that holds CPU_ACTIVE.  A waiter in flush_work() that finds the target
 * not active takes CPU_ACTIVE itself, becomes that CPU for the length of
 * the work, and gives it back; the CPU's own thread, waking meanwhile,
 * waits in cpu_sleep_end() until it is handed back.  Acquire on taking
 * CPU_ACTIVE and release on giving it up order every access to the
 * CPU's per-CPU data, whoever made it.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>

#include <lrulab/rcupdate.h>
#include <lrulab/workqueue.h>

/* Nonzero while this thread runs work as another CPU. */
static __thread int borrowing;

/* work->pending: queued or running, and a waiter sleeps on it */
#define WORK_PENDING	1
#define WORK_SLEEPER	2

static void queue_lock(struct cpu_state *cs)
{
	while (__atomic_exchange_n(&cs->qlock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&cs->qlock, __ATOMIC_RELAXED))
			cpu_relax();
}

static void queue_unlock(struct cpu_state *cs)
{
	__atomic_store_n(&cs->qlock, 0, __ATOMIC_RELEASE);
}

bool queue_work_on(int cpu, struct work_struct *work)
{
	struct cpu_state *cs;

	if (cpu < 0 || cpu >= nr_cpu_ids) {
		fprintf(stderr, "lrulab: queue_work_on: no CPU %d\n", cpu);
		abort();
	}
	if (__atomic_exchange_n(&work->pending, WORK_PENDING, __ATOMIC_ACQ_REL))
		return false;
	cs = &cpu_states[cpu];
	__atomic_store_n(&work->cpu, cpu, __ATOMIC_RELAXED);
	work->next = NULL;
	queue_lock(cs);
	*cs->tail = work;
	cs->tail = &work->next;
	__atomic_store_n(&cs->nr_pending, cs->nr_pending + 1, __ATOMIC_RELAXED);
	queue_unlock(cs);
	return true;
}

/*
 * The caller is CPU_ACTIVE on lrulab_cpu.  A work item is unlinked
 * before it runs and its ->next read before it is marked done: once
 * done, it may be queued again at once.
 */
void run_pending_work(void)
{
	int cpu = lrulab_cpu;
	struct cpu_state *cs;
	struct work_struct *work, *next;

	if (cpu < 0)
		return;
	cs = &cpu_states[cpu];
	while (__atomic_load_n(&cs->nr_pending, __ATOMIC_RELAXED)) {
		queue_lock(cs);
		work = cs->head;
		cs->head = NULL;
		cs->tail = &cs->head;
		__atomic_store_n(&cs->nr_pending, 0, __ATOMIC_RELAXED);
		queue_unlock(cs);
		for (; work; work = next) {
			next = work->next;
			work->func(work);
			WRITE_ONCE(cs->nr_work_run, READ_ONCE(cs->nr_work_run) + 1);
			/*
			 * Once 0, the work may be gone (work_on_cpu()'s is on
			 * its waiter's stack): a wake then finds nobody, or
			 * someone whose wait loop checks again.
			 */
			if (__atomic_exchange_n(&work->pending, 0, __ATOMIC_RELEASE) ==
			    WORK_SLEEPER)
				syscall(SYS_futex, &work->pending, FUTEX_WAKE_PRIVATE,
					INT_MAX, NULL, NULL, 0);
		}
	}
}

void __cond_resched(void)
{
	run_pending_work();
}

static void no_sleep_in_work(const char *fn)
{
	if (unlikely(borrowing)) {
		fprintf(stderr, "lrulab: %s from work run for CPU %d: work must not wait for work\n",
			fn, lrulab_cpu);
		abort();
	}
}

/*
 * Work run for another CPU that blocks (a sleeping lock taken on the way)
 * keeps that CPU: it has no thread of its own to give it back to.
 */
void cpu_sleep_begin(void)
{
	int cpu = lrulab_cpu;

	if (cpu < 0 || borrowing)
		return;
	run_pending_work();
	__atomic_fetch_and(&cpu_states[cpu].state, ~CPU_ACTIVE, __ATOMIC_RELEASE);
}

/* Waiting for a CPU to hand back its state word (cpu_sleep_end()). */
static void wait_relax(unsigned int *loops)
{
	if (++*loops < 1000 || !lrulab_oversubscribed()) {
		cpu_relax();
	} else {
		*loops = 0;
		sched_yield();
	}
}

/*
 * Waiting for @work to be run by its CPU.  The kernel's waiter sleeps and
 * is woken the moment the work completes.  A model CPU with a processor
 * of its own spins there; a thread that is no model CPU, or any thread of
 * an oversubscribed run, shares its processor, so after a short spin it
 * sleeps on the pending word and the runner wakes it: giving the
 * processor away with sched_yield() would bring it back only after the
 * others' time slices, milliseconds for a drain of microseconds.  The
 * sleep is bounded, because the target may stop running just as we
 * decide to sleep, and then it is ours to run (run_work_for()).
 */
static void wait_for_work(struct work_struct *work, unsigned int *loops)
{
	struct timespec ts = { 0, 100 * 1000 };
	int p = WORK_PENDING;

	if ((lrulab_cpu >= 0 && !lrulab_oversubscribed()) || ++*loops < 100) {
		cpu_relax();
		return;
	}
	if (__atomic_compare_exchange_n(&work->pending, &p, WORK_SLEEPER, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED) ||
	    p == WORK_SLEEPER)
		syscall(SYS_futex, &work->pending, FUTEX_WAIT_PRIVATE, WORK_SLEEPER,
			&ts, NULL, 0);
}

static bool cpu_take_active(unsigned int *state)
{
	unsigned int old = __atomic_load_n(state, __ATOMIC_RELAXED);

	return !(old & CPU_ACTIVE) &&
	       __atomic_compare_exchange_n(state, &old, old | CPU_ACTIVE, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void cpu_sleep_end(void)
{
	int cpu = lrulab_cpu;
	unsigned int loops = 0;

	if (cpu < 0 || borrowing)
		return;
	while (!cpu_take_active(&cpu_states[cpu].state))
		wait_relax(&loops);
	run_pending_work();
}

/* Run @cpu's queue as @cpu if nobody is running as it; false if busy. */
static bool run_work_for(int cpu)
{
	unsigned int *state = &cpu_states[cpu].state;
	bool reader = rcu_thread_registered;
	int self = lrulab_cpu;

	if (!cpu_take_active(state))
		return false;
	lrulab_cpu = cpu;
	borrowing++;
	/* work may enter RCU read sections */
	if (!reader)
		rcu_register_thread();
	run_pending_work();
	if (!reader)
		rcu_unregister_thread();
	borrowing--;
	lrulab_cpu = self;
	__atomic_fetch_and(state, ~CPU_ACTIVE, __ATOMIC_RELEASE);
	return true;
}

bool flush_work(struct work_struct *work)
{
	unsigned int loops = 0;
	int cpu;

	if (!__atomic_load_n(&work->pending, __ATOMIC_ACQUIRE))
		return false;
	no_sleep_in_work(__func__);
	cpu = __atomic_load_n(&work->cpu, __ATOMIC_RELAXED);
	if (cpu == lrulab_cpu) {
		run_pending_work();
		if (!__atomic_load_n(&work->pending, __ATOMIC_ACQUIRE))
			return true;
	}
	cpu_sleep_begin();
	while (__atomic_load_n(&work->pending, __ATOMIC_ACQUIRE))
		if (!run_work_for(cpu))
			wait_for_work(work, &loops);
	cpu_sleep_end();
	return true;
}

struct work_on_cpu_args {
	struct work_struct work;
	long (*fn)(void *);
	void *arg;
	long ret;
};

static void work_on_cpu_fn(struct work_struct *work)
{
	struct work_on_cpu_args *a = container_of(work, struct work_on_cpu_args, work);

	a->ret = a->fn(a->arg);
}

long work_on_cpu(int cpu, long (*fn)(void *), void *arg)
{
	struct work_on_cpu_args a = { .fn = fn, .arg = arg };

	if (cpu == lrulab_cpu)
		return fn(arg);
	INIT_WORK(&a.work, work_on_cpu_fn);
	queue_work_on(cpu, &a.work);
	flush_work(&a.work);
	return a.ret;
}
