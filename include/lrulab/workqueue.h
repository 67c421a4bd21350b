/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU work, as the kernel's queue_work_on() / flush_work() on a
 * per-CPU workqueue: what one CPU needs done to another CPU's per-CPU
 * data (drain its folio batches, fold its counters) is queued to that
 * CPU and done there, so per-CPU data keeps a single writer.
 *
 * A model CPU runs its queued work at its scheduling points: cond_resched()
 * (between faults, in reclaim loops, where the kernel may reschedule) and
 * whenever its thread is about to block (cpu_sleep_begin()).  A CPU that
 * is not running - its thread blocks, or it has no thread - has its work
 * run for it by the thread that waits in flush_work(), as that CPU would
 * run its kworker at once.  Work functions run as the target CPU
 * (smp_processor_id() is the target), take spin locks only and never
 * block.
 */
#ifndef LRULAB_WORKQUEUE_H
#define LRULAB_WORKQUEUE_H

#include <lrulab/cpu.h>

struct work_struct {
	void (*func)(struct work_struct *work);
	struct work_struct *next;	/* in the target CPU's queue */
	int cpu;			/* where it was queued last */
	int pending;			/* queued or running */
};

static inline void INIT_WORK(struct work_struct *work,
			     void (*func)(struct work_struct *))
{
	work->func = func;
	work->next = NULL;
	work->cpu = -1;
	__atomic_store_n(&work->pending, 0, __ATOMIC_RELAXED);
}

/* False if @work was still pending (it then runs once, where it was). */
bool queue_work_on(int cpu, struct work_struct *work);
/* Wait until @work has run; false if it was not pending.  May block. */
bool flush_work(struct work_struct *work);
/* @fn(@arg) on @cpu, waited for, as the kernel's work_on_cpu(). */
long work_on_cpu(int cpu, long (*fn)(void *), void *arg);

void __cond_resched(void);
/* A scheduling point: run this CPU's queued work, if any.  Cheap. */
static inline void cond_resched(void)
{
	int cpu = lrulab_cpu;

	if (cpu >= 0 && __atomic_load_n(&cpu_states[cpu].nr_pending, __ATOMIC_RELAXED))
		__cond_resched();
}

/*
 * Around anything that blocks a model CPU's thread (a sleeping lock, a
 * condition variable, a barrier, a wait for other CPUs): the CPU is not
 * running in between, so others may run its work for it.  No-ops for a
 * thread that is not a model CPU.
 */
void cpu_sleep_begin(void);
void cpu_sleep_end(void);
/* Run the calling CPU's queued work now (it must be the running CPU). */
void run_pending_work(void);

/* pthread_mutex_lock() for a model CPU: blocking is a sleep. */
#include <pthread.h>
static inline void mutex_lock_sleep(pthread_mutex_t *m)
{
	if (!pthread_mutex_trylock(m))
		return;
	cpu_sleep_begin();
	pthread_mutex_lock(m);
	cpu_sleep_end();
}

/* pthread_barrier_wait() for a model CPU: waiting for others is a sleep. */
static inline int barrier_wait_sleep(pthread_barrier_t *b)
{
	int ret;

	cpu_sleep_begin();
	ret = pthread_barrier_wait(b);
	cpu_sleep_end();
	return ret;
}

/* pthread_join() for a model CPU: a sleep too. */
static inline int join_sleep(pthread_t t, void **ret)
{
	int err;

	cpu_sleep_begin();
	err = pthread_join(t, ret);
	cpu_sleep_end();
	return err;
}

#endif /* LRULAB_WORKQUEUE_H */
