// SPDX-License-Identifier: MIT
/*
 * The swap device's clusters: slot 0 is never handed out, a device that
 * is not a whole number of clusters ends in a short one and runs out at
 * exactly its size, each model CPU allocates from a cluster of its own
 * and moves to the next when it fills it, a part-used cluster is taken
 * before an empty one, frees move clusters full -> nonfull -> free and a
 * freed cluster is used again, a thread that is no model CPU allocates
 * too, counts and shadows behave per slot, and the lock statistics show
 * the cluster lock on every slot operation and swap_info.lock only when a
 * cluster changes lists.  Last, four model CPUs and one thread without a
 * CPU allocate and free at once (run under TSan and ASan by make check),
 * each freeing slots another one allocated.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <lrulab/lrulab.h>
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/workqueue.h>

#include "cpu_test.h"

#define NR_CPUS 4
/* folios that one test can hold in the swap cache at once */
#define MAX_FOLIOS 2048

static struct folio *folios[MAX_FOLIOS];

static int setup(void **state)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;

	cfg.nr_cpus = NR_CPUS;
	lrulab_switches_clear();
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		return -1;
	memset(folios, 0, sizeof(folios));
	return 0;
}

static int teardown(void **state)
{
	int i;

	for (i = 0; i < MAX_FOLIOS; i++)
		if (folios[i])
			folio_put(folios[i]);
	swapoff();
	cpu_exit();
	lrulab_exit();
	lrulab_switches_clear();
	return 0;
}

/* Slot for folios[i] (allocated on first use); 0 when none was had. */
static unsigned long alloc_slot(int i)
{
	if (!folios[i]) {
		folios[i] = folio_alloc(0, -1);
		assert_non_null(folios[i]);
	}
	if (folio_alloc_swap(folios[i]))
		return 0;
	assert_true(folio_test_swapcache(folios[i]));
	return folios[i]->private;
}

/* folios[i] leaves the swap cache; nothing else names its slot: freed */
static void free_slot(int i)
{
	assert_true(folio_test_swapcache(folios[i]));
	delete_from_swap_cache(folios[i]);
}

static struct swap_cluster_stat cluster_stat(void)
{
	struct swap_cluster_stat st;

	assert_int_equal(swap_cluster_check(&st, stderr), 0);
	return st;
}

static void expect_clusters(unsigned long free_, unsigned long nonfull, unsigned long full,
			    unsigned long percpu)
{
	struct swap_cluster_stat st = cluster_stat();

	assert_int_equal(st.nr_free, free_);
	assert_int_equal(st.nr_nonfull, nonfull);
	assert_int_equal(st.nr_full, full);
	assert_int_equal(st.nr_percpu, percpu);
}

/* Allocates for folios[*arg] and leaves the slot there. */
static void alloc_into(void *arg)
{
	int *i = arg;

	*i = (int)alloc_slot(*i);
}

static unsigned long alloc_slot_on(int cpu, int i)
{
	int v = i;

	run_on_cpu(cpu, alloc_into, &v);
	return (unsigned long)v;
}

/* 600 slots: cluster 0 (slot 0 and 511 more) and a short one of 89. */
static void test_short_device(void **state)
{
	unsigned long e;
	int i;

	assert_int_equal(swapon(600, SWAP_STORE_COPY), 0);
	assert_int_equal(total_swap_pages(), 600);
	assert_int_equal(get_nr_swap_pages(), 600);
	assert_int_equal(cluster_stat().nr_clusters, 2);
	/* neither is empty: slot 0, and the slots past the end, count as used */
	expect_clusters(0, 2, 0, 0);

	for (i = 0; i < 600; i++) {
		e = alloc_slot(i);
		/* one CPU: strictly in order, from 1, never 0 */
		assert_int_equal(e, (unsigned long)i + 1);
	}
	assert_int_equal(get_nr_swap_pages(), 0);
	assert_int_equal(swap_slots_used(), 600);
	assert_int_equal(swap_cache_nr(), 600);
	expect_clusters(0, 0, 2, 0);
	/* exactly 600: the next one fails */
	assert_int_equal(alloc_slot(600), 0);
	assert_false(folio_test_swapcache(folios[600]));
	assert_int_equal(swap_slots_used(), 600);

	for (i = 0; i < 600; i++)
		free_slot(i);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(swap_cache_nr(), 0);
	assert_int_equal(get_nr_swap_pages(), 600);
	expect_clusters(0, 2, 0, 0);
	/* a large folio still has no slot */
	{
		struct folio *large = folio_alloc(2, -1);

		assert_non_null(large);
		assert_int_equal(folio_alloc_swap(large), -EINVAL);
		folio_put(large);
	}
}

/* One slot, and slot 0 is still never handed out. */
static void test_one_slot(void **state)
{
	assert_int_equal(swapon(1, SWAP_STORE_COPY), 0);
	assert_int_equal(alloc_slot(0), 1);
	assert_int_equal(alloc_slot(1), 0);
	free_slot(0);
	assert_int_equal(alloc_slot(1), 1);
	assert_null(__swap_cache_folio((swp_entry_t){ 0 }));
	assert_int_equal(__swap_count((swp_entry_t){ 0 }), 0);
	free_slot(1);
}

/* Two model CPUs: a cluster each, each going on in its own. */
static void test_cpus_own_clusters(void **state)
{
	/* 2047 slots and slot 0: four whole clusters */
	assert_int_equal(swapon(4 * SWAPFILE_CLUSTER - 1, SWAP_STORE_COPY), 0);
	assert_int_equal(cluster_stat().nr_clusters, 4);
	expect_clusters(3, 1, 0, 0);

	/* CPU 0 takes the part-used cluster 0, CPU 1 an empty one */
	assert_int_equal(alloc_slot(0), 1);
	assert_int_equal(alloc_slot_on(1, 1), SWAPFILE_CLUSTER);
	expect_clusters(2, 0, 0, 2);
	assert_int_equal(alloc_slot(2), 2);
	assert_int_equal(alloc_slot_on(1, 3), SWAPFILE_CLUSTER + 1);
	assert_int_equal(alloc_slot_on(2, 4), 2 * SWAPFILE_CLUSTER);
	assert_int_equal(alloc_slot(5), 3);
	expect_clusters(1, 0, 0, 3);

	/* a slot freed in another CPU's cluster leaves it with that CPU */
	free_slot(3);
	expect_clusters(1, 0, 0, 3);
	assert_int_equal(alloc_slot_on(1, 3), SWAPFILE_CLUSTER + 2);
}

/* A CPU fills its cluster, which goes onto the full list, and moves on. */
static void test_fill_and_move_on(void **state)
{
	int i;

	assert_int_equal(swapon(4 * SWAPFILE_CLUSTER - 1, SWAP_STORE_COPY), 0);
	for (i = 0; i < SWAPFILE_CLUSTER - 2; i++)
		assert_int_equal(alloc_slot(i), (unsigned long)i + 1);
	expect_clusters(3, 0, 0, 1);
	/* the last slot of cluster 0: the CPU lets it go, full */
	assert_int_equal(alloc_slot(i), SWAPFILE_CLUSTER - 1);
	expect_clusters(3, 0, 1, 0);
	i++;
	assert_int_equal(alloc_slot(i), SWAPFILE_CLUSTER);
	expect_clusters(2, 0, 1, 1);

	/*
	 * One free in the full cluster 0 makes it nonfull; CPU 1, with no
	 * cluster, takes it before the empty ones.
	 */
	free_slot(99);
	expect_clusters(2, 1, 0, 1);
	assert_int_equal(alloc_slot_on(1, 99), 100);
	/* it was the only free slot there: full again */
	expect_clusters(2, 0, 1, 1);
}

/* Freeing all of a full cluster puts it on the free list; it is reused. */
static void test_free_cluster_reused(void **state)
{
	struct swap_cluster_stat st;
	int i, n = 0;

	/* three whole clusters */
	assert_int_equal(swapon(3 * SWAPFILE_CLUSTER - 1, SWAP_STORE_COPY), 0);
	/* clusters 0 and 1 full, CPU 0 holds cluster 2 */
	for (i = 0; i < 2 * SWAPFILE_CLUSTER; i++)
		assert_int_equal(alloc_slot(n++), (unsigned long)i + 1);
	expect_clusters(0, 0, 2, 1);

	/* the first free of cluster 1: full -> nonfull */
	free_slot(SWAPFILE_CLUSTER - 1);
	expect_clusters(0, 1, 1, 1);
	/* the last: nonfull -> free */
	for (i = SWAPFILE_CLUSTER; i < 2 * SWAPFILE_CLUSTER - 1; i++)
		free_slot(i);
	expect_clusters(1, 0, 1, 1);
	assert_int_equal(swap_slots_used(), SWAPFILE_CLUSTER);

	/* CPU 0 goes on in cluster 2; CPU 1 gets cluster 1 back, from its start */
	assert_int_equal(alloc_slot(n++), 2 * SWAPFILE_CLUSTER + 1);
	assert_int_equal(alloc_slot_on(1, SWAPFILE_CLUSTER - 1), SWAPFILE_CLUSTER);
	expect_clusters(0, 0, 1, 2);
	assert_int_equal(swap_cluster_check(&st, stderr), 0);
}

static void alloc_three(void *arg)
{
	int *base = arg, i;

	assert_int_equal(smp_processor_id(), -1);
	for (i = 0; i < 3; i++)
		assert_int_equal(alloc_slot(*base + i), (unsigned long)*base + i + 1);
}

/* A thread that is no model CPU takes a cluster for each slot and puts it back. */
static void test_no_cpu(void **state)
{
	int base = 0, i;

	assert_int_equal(swapon(4 * SWAPFILE_CLUSTER - 1, SWAP_STORE_COPY), 0);
	for (i = 0; i < 3; i++)
		folios[i] = folio_alloc(0, -1);
	run_on_cpu(-1, alloc_three, &base);
	/* cluster 0 went back to the nonfull list each time */
	expect_clusters(3, 1, 0, 0);
	free_slot(0);
	free_slot(1);
	free_slot(2);
	expect_clusters(3, 1, 0, 0);
	assert_int_equal(swap_slots_used(), 0);
}

/* Counts, the swap cache and shadows, per slot. */
static void test_counts_and_shadow(void **state)
{
	void *shadow = (void *)0x1235UL;
	swp_entry_t e;

	assert_int_equal(swapon(2 * SWAPFILE_CLUSTER, SWAP_STORE_COPY), 0);
	e.val = alloc_slot(0);
	assert_int_equal(e.val, 1);
	assert_ptr_equal(__swap_cache_folio(e), folios[0]);
	assert_int_equal(__swap_count(e), 0);
	swap_duplicate(e);
	swap_duplicate(e);
	assert_int_equal(__swap_count(e), 2);
	memset(folio_address(folios[0]), 0x5a, PAGE_SIZE);
	((unsigned long *)folio_address(folios[0]))[7] = 7;
	swap_writeout(folios[0]);

	/* reclaim takes the folio out and leaves a shadow: the slot stays */
	__delete_from_swap_cache(folios[0], shadow);
	folio_put_refs(folios[0], 1);
	assert_null(__swap_cache_folio(e));
	assert_ptr_equal(swap_shadow(e), shadow);
	assert_int_equal(swap_slots_used(), 1);
	assert_int_equal(swap_cache_nr(), 0);
	/* the slot is taken: the next allocation gets another */
	assert_int_equal(alloc_slot(1), 2);
	free_slot(1);

	swap_free(e);
	assert_int_equal(__swap_count(e), 1);
	assert_ptr_equal(swap_shadow(e), shadow);
	swap_free(e);
	/* nothing names it: free, shadow and data gone */
	assert_int_equal(__swap_count(e), 0);
	assert_null(swap_shadow(e));
	assert_int_equal(swap_slots_used(), 0);
	cluster_stat();
}

static u64 class_acquired(const char *cls)
{
	struct lock_stat st;

	lockstat_read_class(cls, &st);
	return st.acquired;
}

/*
 * Slot operations take only the cluster lock; swap_info.lock is taken when a
 * CPU needs a new cluster, and "swap_lock" is gone.
 */
static void test_lock_classes(void **state)
{
	int i;

	assert_int_equal(swapon(4 * SWAPFILE_CLUSTER - 1, SWAP_STORE_COPY), 0);
	lockstat_reset();
	/* the first allocation takes cluster 0 off the nonfull list */
	alloc_slot(0);
	assert_int_equal(class_acquired("swap_info"), 1);
	assert_int_equal(class_acquired("swap_cluster"), 1);
	/* then this CPU's own cluster, nothing else */
	for (i = 1; i < 100; i++)
		alloc_slot(i);
	assert_int_equal(class_acquired("swap_info"), 1);
	assert_int_equal(class_acquired("swap_cluster"), 100);
	for (i = 0; i < 100; i++)
		free_slot(i);
	swap_duplicate((swp_entry_t){ alloc_slot(0) });
	assert_int_equal(__swap_count((swp_entry_t){ folios[0]->private }), 1);
	assert_int_equal(class_acquired("swap_info"), 1);
	assert_int_equal(class_acquired("swap_cluster"), 203);
	assert_int_equal(class_acquired("swap_lock"), 0);
	swap_free((swp_entry_t){ folios[0]->private });
	free_slot(0);
	assert_int_equal(swap_slots_used(), 0);
}

/*
 * ---- stress: model CPUs 0-3 and a thread without a CPU ----
 *
 * Each worker allocates slots for its folios, names each slot once (as
 * an unmapped PTE would), writes some of them out, takes the folios out
 * of the swap cache leaving a shadow, and passes the entries on to the
 * next worker, which checks the shadow and drops the last count: slots
 * are freed by another thread than the one that allocated them, in
 * clusters another CPU may hold.  The device is small enough that,
 * whenever a worker runs ahead of the one draining its entries,
 * allocations fail now and then and clusters run through every list.
 */
#define NR_WORKERS (NR_CPUS + 1)
#define BATCH 128
#define ROUNDS 6
#define STRESS_SLOTS (2 * SWAPFILE_CLUSTER + 200)

/* a mailbox never holds more entries than the device has slots */
struct mailbox {
	pthread_mutex_t lock;
	unsigned long nr;
	unsigned long entries[STRESS_SLOTS];
};

static struct mailbox mailboxes[NR_WORKERS];
/* which slots a worker has been handed by folio_alloc_swap() */
static unsigned char slot_owned[STRESS_SLOTS + 1];
static int stress_errors;

struct worker {
	int id;
	struct folio *folios[BATCH];
	unsigned long allocated, enomem;
};

static void *shadow_of(unsigned long entry)
{
	return (void *)((entry << 1) | 1);
}

static void stress_error(const char *what, unsigned long entry)
{
	fprintf(stderr, "test_swapfile stress: %s (slot %lu)\n", what, entry);
	__atomic_fetch_add(&stress_errors, 1, __ATOMIC_RELAXED);
}

/* Drop the last count of every entry passed to worker @id. */
static void drain_mailbox(int id)
{
	unsigned long mine[ARRAY_SIZE(mailboxes[0].entries)];
	struct mailbox *mb = &mailboxes[id];
	unsigned long i, nr;

	pthread_mutex_lock(&mb->lock);
	nr = mb->nr;
	memcpy(mine, mb->entries, nr * sizeof(mine[0]));
	mb->nr = 0;
	pthread_mutex_unlock(&mb->lock);
	for (i = 0; i < nr; i++) {
		swp_entry_t e = { mine[i] };

		if (swap_shadow(e) != shadow_of(e.val) || __swap_count(e) != 1)
			stress_error("shadow or count lost", e.val);
		if (!__atomic_exchange_n(&slot_owned[e.val], 0, __ATOMIC_RELAXED))
			stress_error("freeing a slot nobody was given", e.val);
		swap_free(e);
	}
}

static void post(int id, const unsigned long *entries, unsigned long nr)
{
	struct mailbox *mb = &mailboxes[id];

	pthread_mutex_lock(&mb->lock);
	if (mb->nr + nr > ARRAY_SIZE(mb->entries)) {
		pthread_mutex_unlock(&mb->lock);
		stress_error("more entries in flight than slots", nr);
		return;
	}
	memcpy(&mb->entries[mb->nr], entries, nr * sizeof(entries[0]));
	mb->nr += nr;
	pthread_mutex_unlock(&mb->lock);
}

static void *stress_worker(void *p)
{
	struct worker *w = p;
	unsigned long out[BATCH];
	int round, i;

	if (w->id < NR_CPUS && cpu_enter(w->id, false))
		return p;
	for (round = 0; round < ROUNDS; round++) {
		unsigned long nr = 0;

		for (i = 0; i < BATCH; i++) {
			struct folio *folio = w->folios[i];
			swp_entry_t e;

			if (folio_alloc_swap(folio)) {
				/* full: free what was passed here, let the others run */
				drain_mailbox(w->id);
				sched_yield();
				if (folio_alloc_swap(folio)) {
					w->enomem++;
					continue;
				}
			}
			e = folio_swap_entry(folio);
			if (!e.val || e.val > STRESS_SLOTS ||
			    __atomic_exchange_n(&slot_owned[e.val], 1, __ATOMIC_RELAXED))
				stress_error("slot handed out twice, or out of range", e.val);
			w->allocated++;
			swap_duplicate(e);
			if (i % 16 == 0) {
				((unsigned long *)folio_address(folio))[1] = e.val;
				swap_writeout(folio);
			}
			__delete_from_swap_cache(folio, shadow_of(e.val));
			folio_put_refs(folio, 1);
			out[nr++] = e.val;
		}
		post((w->id + 1) % NR_WORKERS, out, nr);
		drain_mailbox(w->id);
	}
	cpu_exit();
	return NULL;
}

static void test_stress(void **state)
{
	struct worker workers[NR_WORKERS];
	pthread_t threads[NR_WORKERS];
	unsigned long allocated = 0, enomem = 0;
	int i, j;
	void *ret;

	assert_int_equal(swapon(STRESS_SLOTS, SWAP_STORE_COPY), 0);
	memset(slot_owned, 0, sizeof(slot_owned));
	stress_errors = 0;
	for (i = 0; i < NR_WORKERS; i++) {
		pthread_mutex_init(&mailboxes[i].lock, NULL);
		mailboxes[i].nr = 0;
		workers[i].id = i;
		workers[i].allocated = workers[i].enomem = 0;
		for (j = 0; j < BATCH; j++) {
			workers[i].folios[j] = folio_alloc(0, -1);
			assert_non_null(workers[i].folios[j]);
			memset(folio_address(workers[i].folios[j]), 0, PAGE_SIZE);
		}
	}
	/* the workers are CPUs 0 to 3 */
	cpu_exit();
	for (i = 0; i < NR_WORKERS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, stress_worker, &workers[i]), 0);
	for (i = 0; i < NR_WORKERS; i++) {
		assert_int_equal(join_sleep(threads[i], &ret), 0);
		assert_null(ret);
	}
	assert_int_equal(cpu_enter(0, false), 0);
	/* what the last rounds passed on */
	for (i = 0; i < NR_WORKERS; i++)
		drain_mailbox(i);
	assert_int_equal(stress_errors, 0);
	for (i = 0; i < NR_WORKERS; i++) {
		allocated += workers[i].allocated;
		enomem += workers[i].enomem;
		for (j = 0; j < BATCH; j++) {
			assert_false(folio_test_swapcache(workers[i].folios[j]));
			folio_put(workers[i].folios[j]);
		}
		pthread_mutex_destroy(&mailboxes[i].lock);
	}
	assert_int_equal(allocated + enomem, NR_WORKERS * ROUNDS * BATCH);
	/*
	 * However the threads were scheduled, the first to run alone
	 * fills the device before its allocations fail.
	 */
	assert_true(allocated >= STRESS_SLOTS);
	assert_int_equal(swap_slots_used(), 0);
	assert_int_equal(swap_cache_nr(), 0);
	assert_int_equal(get_nr_swap_pages(), STRESS_SLOTS);
	cluster_stat();
	assert_int_equal(lrulab_check_invariants(true, stderr), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_short_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_slot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpus_own_clusters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fill_and_move_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_cluster_reused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counts_and_shadow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_classes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stress, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
