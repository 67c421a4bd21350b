/* SPDX-License-Identifier: MIT */
/*
 * Running a piece of a test as another model CPU (or as a thread that is
 * no CPU at all), on a thread of its own, and waiting for it.  Include
 * after cmocka.h.
 */
#ifndef LRULAB_TESTS_CPU_TEST_H
#define LRULAB_TESTS_CPU_TEST_H

#include <pthread.h>

#include <lrulab/cpu.h>
#include <lrulab/workqueue.h>

struct on_cpu {
	int cpu;		/* -1: not a model CPU */
	void (*fn)(void *);
	void *arg;
};

static void *on_cpu_thread(void *p)
{
	struct on_cpu *oc = p;

	if (oc->cpu >= 0 && cpu_enter(oc->cpu, false))
		return p;
	oc->fn(oc->arg);
	if (oc->cpu >= 0)
		cpu_exit();
	return NULL;
}

/* @fn(@arg) as model CPU @cpu (-1: as no CPU); fails if @cpu is taken. */
static inline void run_on_cpu(int cpu, void (*fn)(void *), void *arg)
{
	struct on_cpu oc = { cpu, fn, arg };
	pthread_t t;
	void *ret;

	assert_int_equal(pthread_create(&t, NULL, on_cpu_thread, &oc), 0);
	assert_int_equal(join_sleep(t, &ret), 0);
	assert_null(ret);
}

#endif /* LRULAB_TESTS_CPU_TEST_H */
