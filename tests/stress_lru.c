// SPDX-License-Identifier: MIT
/*
 * Stress: model CPUs fault in and free anon and shmem memory (one shmem
 * file shared by all, so inserts race), each in a memcg it creates and
 * offlines while the others run, while a control CPU keeps calling
 * lru_add_drain_all() and lru_cache_disable()/enable().  Ends with the
 * invariant checker and a leak check.  Built plain, with TSan and ASan.
 *
 *   stress_lru [--short]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/lrulab.h>
#include <lrulab/workqueue.h>

#define NR_WORKERS 4
#define FILE_PAGES 64

static int rounds = 40;
static struct mem_cgroup *parent;
static struct address_space *shared;
static int stop;

static void die(const char *what)
{
	fprintf(stderr, "stress_lru: %s\n", what);
	exit(1);
}

static void touch(struct vm_area_struct *vma, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++)
		if (mm_access(vma, vma->vm_start + i * PAGE_SIZE, i & 1))
			die("fault failed");
}

static void one_round(int cpu, int round)
{
	struct vm_area_struct *anon, *large, *file;
	struct mem_cgroup *memcg;
	struct mm_struct *mm;
	char name[32];

	snprintf(name, sizeof(name), "w%d-%d", cpu, round);
	memcg = mem_cgroup_create(parent, name);
	if (!memcg)
		die("mem_cgroup_create failed");
	mm = mm_alloc(memcg);
	anon = mm ? mmap_anon(mm, 48 * PAGE_SIZE, 0) : NULL;
	large = mm ? mmap_anon(mm, 16 * PAGE_SIZE, 2) : NULL;
	file = mm ? mmap_shmem(mm, shared, 0, FILE_PAGES * PAGE_SIZE) : NULL;
	if (!anon || !large || !file)
		die("mapping failed");
	touch(anon, 48);
	touch(large, 16);
	touch(file, FILE_PAGES);
	if (round & 1)
		lru_add_drain();
	zap_page_range_single(anon, anon->vm_start, 24 * PAGE_SIZE);
	zap_page_range_single(file, file->vm_start, FILE_PAGES * PAGE_SIZE);
	/* punch part of the shared file while others may map it */
	shmem_truncate_range(shared, (unsigned long)cpu * 8, (unsigned long)cpu * 8 + 7);
	mmput(mm);
	mem_cgroup_offline(memcg);
}

static void *worker(void *arg)
{
	int cpu = (int)(long)arg, r;

	if (cpu_enter(cpu, true))
		die("cpu_enter failed");
	for (r = 0; r < rounds; r++)
		one_round(cpu, r);
	lru_add_drain();
	cpu_exit();
	return NULL;
}

static void *control(void *arg)
{
	unsigned long n = 0;

	if (cpu_enter(NR_WORKERS, true))
		die("cpu_enter failed");
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (n++ % 4 == 0) {
			lru_cache_disable();
			lru_add_drain();
			lru_cache_enable();
		} else {
			lru_add_drain_all();
		}
	}
	cpu_exit();
	return NULL;
}

int main(int argc, char **argv)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	pthread_t w[NR_WORKERS], ctl;
	unsigned long free_pages;
	int i, bad;

	if (argc > 1 && !strcmp(argv[1], "--short"))
		rounds = 8;
	else if (argc > 1)
		die("usage: stress_lru [--short]");
	cfg.nr_cpus = NR_WORKERS + 1;
	cfg.node_pages = 8192;
	cfg.nr_nodes = 2;
	if (lrulab_init(&cfg))
		die("lrulab_init failed");
	parent = mem_cgroup_create(root_mem_cgroup, "stress");
	shared = shmem_file_setup(FILE_PAGES, 0);
	if (!parent || !shared)
		die("setup failed");

	pthread_create(&ctl, NULL, control, NULL);
	for (i = 0; i < NR_WORKERS; i++)
		pthread_create(&w[i], NULL, worker, (void *)(long)i);
	for (i = 0; i < NR_WORKERS; i++)
		join_sleep(w[i], NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	join_sleep(ctl, NULL);

	bad = lrulab_check_invariants(true, stderr);
	shmem_file_free(shared);
	mem_cgroup_offline(parent);
	drain_all_pages();
	bad += lrulab_check_invariants(true, stderr);
	free_pages = 0;
	for (i = 0; i < cfg.nr_nodes; i++)
		free_pages += zone_free_pages_exact(&NODE_DATA(i)->node_zones[0]);
	if (free_pages != totalram_pages()) {
		fprintf(stderr, "stress_lru: leaked %lu pages\n", totalram_pages() - free_pages);
		bad++;
	}
	lrulab_exit();
	printf("stress_lru: %d workers x %d rounds, %s\n", NR_WORKERS, rounds,
	       bad ? "FAILED" : "ok");
	return bad ? 1 : 0;
}
