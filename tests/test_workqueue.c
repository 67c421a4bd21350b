// SPDX-License-Identifier: MIT
/*
 * Model CPUs' per-CPU areas and work queues (lib/cpu.c, lib/workqueue.c):
 * where each CPU's data lies, and who runs work queued on a CPU that is
 * running, sleeping or has no thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <cmocka.h>

#include <lrulab/cpu.h>
#include <lrulab/workqueue.h>

#define NR_CPUS 4

static int setup(void **state)
{
	return lrulab_cpus_init(NR_CPUS);
}

static int teardown(void **state)
{
	lrulab_cpus_exit();
	return 0;
}

/* No two CPUs' copies share a line or a 128-byte prefetch pair. */
static void test_percpu_units_apart(void **state)
{
	long *a = alloc_percpu(long), *b = alloc_percpu(long);
	int cpu;

	assert_non_null(a);
	assert_non_null(b);
	for (cpu = 1; cpu < NR_CPUS; cpu++) {
		uintptr_t p0 = (uintptr_t)per_cpu_ptr(a, cpu - 1);
		uintptr_t p1 = (uintptr_t)per_cpu_ptr(a, cpu);

		assert_true(p1 - p0 >= 128);
		assert_true(p0 / 128 != p1 / 128);
		assert_int_equal(p1 - p0, PCPU_UNIT_SIZE);
	}
	/* one CPU's variables are packed together in its unit */
	assert_int_equal((uintptr_t)b - (uintptr_t)a, L1_CACHE_BYTES);
	*per_cpu_ptr(a, 2) = 7;
	free_percpu(a);
	/* a freed offset is handed out again, zeroed on every CPU */
	a = alloc_percpu(long);
	assert_int_equal(*per_cpu_ptr(a, 2), 0);
	free_percpu(a);
	free_percpu(b);
}

struct probe {
	struct work_struct work;
	int ran_on;
	int runs;
};

static void probe_fn(struct work_struct *work)
{
	struct probe *p = container_of(work, struct probe, work);

	p->ran_on = smp_processor_id();
	p->runs++;
}

/* A CPU with no thread: the waiter runs the work, as that CPU. */
static void test_work_on_cpu_without_thread(void **state)
{
	struct probe p = { .ran_on = -2 };
	unsigned long before = READ_ONCE(cpu_states[2].nr_work_run);

	INIT_WORK(&p.work, probe_fn);
	assert_true(queue_work_on(2, &p.work));
	assert_false(queue_work_on(2, &p.work));	/* still pending */
	assert_int_equal(p.runs, 0);
	assert_true(flush_work(&p.work));
	assert_int_equal(p.runs, 1);
	assert_int_equal(p.ran_on, 2);
	assert_int_equal(smp_processor_id(), -1);
	assert_int_equal(READ_ONCE(cpu_states[2].nr_work_run) - before, 1);
	assert_false(flush_work(&p.work));		/* nothing pending */
}

struct runner {
	int cpu;
	int ready, resched, stop;
	int sleep;	/* wait in cpu_sleep_begin/end instead of spinning */
	int runs_seen;	/* probe runs seen before the first cond_resched */
	struct probe *p;
};

static void *runner_fn(void *arg)
{
	struct runner *r = arg;

	if (cpu_enter(r->cpu, false))
		return NULL;
	if (r->sleep)
		cpu_sleep_begin();
	__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->resched, __ATOMIC_ACQUIRE))
		cpu_relax();
	if (r->sleep)
		cpu_sleep_end();
	r->runs_seen = __atomic_load_n(&r->p->runs, __ATOMIC_RELAXED);
	cond_resched();
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		cpu_relax();
	cpu_exit();
	return NULL;
}

static void start_runner(struct runner *r, pthread_t *t)
{
	pthread_create(t, NULL, runner_fn, r);
	while (!__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE))
		cpu_relax();
}

/* A running CPU runs queued work at its scheduling point, not before. */
static void test_running_cpu_runs_at_cond_resched(void **state)
{
	struct probe p = { .ran_on = -2 };
	struct runner r = { .cpu = 1, .p = &p };
	pthread_t t;

	start_runner(&r, &t);
	INIT_WORK(&p.work, probe_fn);
	queue_work_on(1, &p.work);
	__atomic_store_n(&r.resched, 1, __ATOMIC_RELEASE);
	flush_work(&p.work);
	assert_int_equal(p.runs, 1);
	assert_int_equal(p.ran_on, 1);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	assert_int_equal(r.runs_seen, 0);
}

/*
 * A CPU whose thread sleeps has its work run by the waiter, at once: the
 * thread cannot reach a scheduling point before it is told to wake.
 */
static void test_sleeping_cpu_work_run_for_it(void **state)
{
	struct probe p = { .ran_on = -2 };
	struct runner r = { .cpu = 3, .p = &p, .sleep = 1 };
	pthread_t t;

	start_runner(&r, &t);
	INIT_WORK(&p.work, probe_fn);
	queue_work_on(3, &p.work);
	flush_work(&p.work);
	assert_int_equal(p.runs, 1);
	assert_int_equal(p.ran_on, 3);
	__atomic_store_n(&r.resched, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	assert_int_equal(r.runs_seen, 1);
}

static long add_cpu(void *arg)
{
	return (long)arg + smp_processor_id();
}

/* work_on_cpu() returns the function's value, run on that CPU. */
static void test_work_on_cpu(void **state)
{
	assert_int_equal(work_on_cpu(2, add_cpu, (void *)100L), 102);
	assert_int_equal(cpu_enter(1, false), 0);
	assert_int_equal(work_on_cpu(1, add_cpu, (void *)100L), 101);
	assert_int_equal(work_on_cpu(0, add_cpu, (void *)100L), 100);
	assert_int_equal(smp_processor_id(), 1);
	cpu_exit();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_percpu_units_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_work_on_cpu_without_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_running_cpu_runs_at_cond_resched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleeping_cpu_work_run_for_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_work_on_cpu, setup, teardown),
	};

	return cmocka_run_group_tests_name("workqueue", tests, NULL, NULL);
}
