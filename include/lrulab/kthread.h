/* SPDX-License-Identifier: MIT */
/*
 * Kernel threads that work when woken (lib/kthread.c): what kswapd and
 * the writeback flusher are in the kernel, a kthread sleeping on a wait
 * queue.  Each runs as a model CPU of its own, which its starter sets
 * aside, since the work drains and fills that CPU's per-CPU state.
 *
 * A wakeup while one is pending is absorbed by it, as a wait queue
 * absorbs them; kthread_wait_idle() returns once the work every wakeup
 * so far asked for is done.
 */
#ifndef LRULAB_KTHREAD_H
#define LRULAB_KTHREAD_H

#include <pthread.h>
#include <stdbool.h>

struct lrulab_kthread {
	const char *name;			/* for messages */
	void (*work)(struct lrulab_kthread *kt);	/* one round, when woken */
	void (*enter)(struct lrulab_kthread *kt);	/* may be NULL */
	void (*leave)(struct lrulab_kthread *kt);	/* may be NULL */
	pthread_t thread;
	/*
	 * The lock and condvar live as long as the struct (static in every
	 * user): a waker may read ->running just before a stop and still
	 * take the lock.
	 */
	pthread_mutex_t lock;
	pthread_cond_t wait;
	bool running;			/* written by its starter and stopper only */
	bool wake, stop, busy;		/* under lock */
	int cpu;
	unsigned long nr_wakeups;	/* under lock */
};

#define LRULAB_KTHREAD_INIT(name_, work_, enter_, leave_) {			\
	.name = (name_), .work = (work_), .enter = (enter_), .leave = (leave_),	\
	.lock = PTHREAD_MUTEX_INITIALIZER, .wait = PTHREAD_COND_INITIALIZER }

/* Start it on model CPU @cpu: 0, -EBUSY (running), -EAGAIN. */
int kthread_run_on(struct lrulab_kthread *kt, int cpu);
/* Stop it, at once if it sleeps, after its round if it works; joins. */
void kthread_stop(struct lrulab_kthread *kt);
/* Wake it unless a wakeup is pending; cheap when it is not running. */
void kthread_wake(struct lrulab_kthread *kt);
void kthread_wait_idle(struct lrulab_kthread *kt);
/* Wakeups that found it idle since it was started. */
unsigned long kthread_nr_wakeups(struct lrulab_kthread *kt);

static inline bool kthread_running(struct lrulab_kthread *kt)
{
	return __atomic_load_n(&kt->running, __ATOMIC_RELAXED);
}

#endif /* LRULAB_KTHREAD_H */
