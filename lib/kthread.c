// SPDX-License-Identifier: MIT
/*
 * Kernel threads that work when woken: one thread per struct
 * lrulab_kthread, entered as its model CPU, sleeping on a condition
 * variable between rounds.  See include/lrulab/kthread.h.
 */
#include <errno.h>
#include <stdio.h>

#include <lrulab/cpu.h>
#include <lrulab/kthread.h>
#include <lrulab/types.h>
#include <lrulab/workqueue.h>

static void *kthread_fn(void *arg)
{
	struct lrulab_kthread *kt = arg;

	if (cpu_enter(kt->cpu, false)) {
		fprintf(stderr, "lrulab: %s: model CPU %d is not free\n", kt->name, kt->cpu);
		return NULL;
	}
	if (kt->enter)
		kt->enter(kt);
	pthread_mutex_lock(&kt->lock);
	for (;;) {
		if (!kt->wake && !kt->stop) {
			cpu_sleep_begin();
			while (!kt->wake && !kt->stop)
				pthread_cond_wait(&kt->wait, &kt->lock);
			cpu_sleep_end();
		}
		if (kt->stop)
			break;
		kt->wake = false;
		kt->busy = true;
		pthread_mutex_unlock(&kt->lock);
		kt->work(kt);
		pthread_mutex_lock(&kt->lock);
		kt->busy = false;
		pthread_cond_broadcast(&kt->wait);
	}
	pthread_mutex_unlock(&kt->lock);
	if (kt->leave)
		kt->leave(kt);
	cpu_exit();
	return NULL;
}

int kthread_run_on(struct lrulab_kthread *kt, int cpu)
{
	if (kthread_running(kt))
		return -EBUSY;
	pthread_mutex_lock(&kt->lock);
	kt->wake = kt->stop = kt->busy = false;
	kt->cpu = cpu;
	kt->nr_wakeups = 0;
	pthread_mutex_unlock(&kt->lock);
	if (pthread_create(&kt->thread, NULL, kthread_fn, kt))
		return -EAGAIN;
	WRITE_ONCE(kt->running, true);
	return 0;
}

void kthread_stop(struct lrulab_kthread *kt)
{
	if (!kthread_running(kt))
		return;
	pthread_mutex_lock(&kt->lock);
	kt->stop = true;
	pthread_cond_broadcast(&kt->wait);
	pthread_mutex_unlock(&kt->lock);
	cpu_sleep_begin();
	pthread_join(kt->thread, NULL);
	cpu_sleep_end();
	WRITE_ONCE(kt->running, false);
}

void kthread_wake(struct lrulab_kthread *kt)
{
	if (!kthread_running(kt))
		return;
	pthread_mutex_lock(&kt->lock);
	if (!kt->wake && !kt->stop) {
		kt->wake = true;
		kt->nr_wakeups++;
		pthread_cond_broadcast(&kt->wait);
	}
	pthread_mutex_unlock(&kt->lock);
}

void kthread_wait_idle(struct lrulab_kthread *kt)
{
	if (!kthread_running(kt))
		return;
	cpu_sleep_begin();
	pthread_mutex_lock(&kt->lock);
	while (kt->wake || kt->busy)
		pthread_cond_wait(&kt->wait, &kt->lock);
	pthread_mutex_unlock(&kt->lock);
	cpu_sleep_end();
}

unsigned long kthread_nr_wakeups(struct lrulab_kthread *kt)
{
	unsigned long nr;

	pthread_mutex_lock(&kt->lock);
	nr = kt->nr_wakeups;
	pthread_mutex_unlock(&kt->lock);
	return nr;
}
