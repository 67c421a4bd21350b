// SPDX-License-Identifier: MIT
/*
 * `lrulab demo`: a short fault/free run through the whole add/free path
 * (fault, charge, folio_add_lru, zap or hole punch, folios_put_refs),
 * printing the lock table, the figures that hold on any machine, the
 * vmstat deltas and memory.stat, and the invariant check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/commands.h"
#include <lrulab/lrulab.h>
#include "tools/options.h"
#include "tools/parse.h"
#include <lrulab/workqueue.h>

struct demo_opts {
	long threads;
	bool shmem;
	unsigned long mem;	/* bytes per thread */
	long loops;
	enum lock_impl lock;
	enum lockstat_mode lockstat;
};

struct demo_thread {
	pthread_t tid;
	int cpu;
	const struct demo_opts *o;
	struct mem_cgroup *memcg;
	pthread_barrier_t *start;
	unsigned long pages_done;
	int err;
};

static int fault_range(struct vm_area_struct *vma, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++) {
		vm_fault_t ret = mm_access(vma, vma->vm_start + i * PAGE_SIZE, true);

		if (ret)
			return ret & VM_FAULT_OOM ? -ENOMEM : -EFAULT;
	}
	return 0;
}

static void *demo_worker(void *arg)
{
	struct demo_thread *t = arg;
	unsigned long pages = t->o->mem / PAGE_SIZE;
	struct address_space *mapping = NULL;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	long loop;

	if ((t->err = cpu_enter(t->cpu, true)))
		goto out_wait;
	mm = mm_alloc(t->memcg);
	if (!mm) {
		t->err = -errno;
		goto out_cpu;
	}
	if (t->o->shmem) {
		mapping = shmem_file_setup(pages, 0);
		vma = mapping ? mmap_shmem(mm, mapping, 0, pages * PAGE_SIZE) : NULL;
	} else {
		vma = mmap_anon(mm, pages * PAGE_SIZE, 0);
	}
	if (!vma)
		t->err = -ENOMEM;
	barrier_wait_sleep(t->start);
	for (loop = 0; !t->err && loop < t->o->loops; loop++) {
		t->err = fault_range(vma, pages);
		zap_page_range_single(vma, vma->vm_start, pages * PAGE_SIZE);
		if (mapping)
			shmem_truncate_range(mapping, 0, pages - 1);
		if (!t->err)
			t->pages_done += pages;
	}
	mmput(mm);
	if (mapping)
		shmem_file_free(mapping);
	lru_add_drain();
out_cpu:
	cpu_exit();
	return NULL;
out_wait:
	barrier_wait_sleep(t->start);
	return NULL;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "%.0f ns*", the lock table's footnote mark; "-" when no hold was timed */
static const char *hold_ns(char *buf, size_t len, const struct lock_stat *st, double ns)
{
	if (st->hold_timed)
		snprintf(buf, len, "%.0f ns*", ns);
	else
		snprintf(buf, len, "-");
	return buf;
}

static void print_figures(unsigned long pages, double secs)
{
	struct lock_stat lru;
	char a[32], b[32], name[128];
	int i;

	lockstat_read_class("lru_lock", &lru);
	printf("\npages faulted and freed: %lu in %.3f s = %.0f pages/s\n",
	       pages, secs, pages / secs);
	if (lockstat_mode == LOCKSTAT_OFF || !pages)
		return;
	printf("lru_lock acquisitions per 1000 pages: %.1f\n",
	       1000.0 * lru.acquired / pages);
	printf("lru_lock hold per acquisition: %s, per page: %s\n",
	       hold_ns(a, sizeof(a), &lru, lru.acquired ?
		       (double)lru.hold_total_ns / lru.acquired : 0.0),
	       hold_ns(b, sizeof(b), &lru, (double)lru.hold_total_ns / pages));
	for (i = 0; i < lockstat_nr_sites(); i++) {
		struct lock_site *site = lockstat_site(i);
		struct lock_stat st;

		if (strcmp(site->cls, "lru_lock"))
			continue;
		lockstat_read(site, &st);
		lock_site_name(site->caller, site->fn, name, sizeof(name));
		if (st.acquired)
			printf("  %-44s %8.1f acquisitions/1000 pages, %8s hold each\n",
			       name, 1000.0 * st.acquired / pages,
			       hold_ns(a, sizeof(a), &st, (double)st.hold_total_ns / st.acquired));
	}
}

static void print_vmstat_delta(const unsigned long *before)
{
	unsigned long after[NR_VM_EVENT_ITEMS];
	int i;

	all_vm_events(after);
	printf("\nvmstat event deltas:\n");
	for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
		if (after[i] != before[i])
			printf("  %s %lu\n", vm_event_name(i), after[i] - before[i]);
}

static int run_demo(const struct demo_opts *o)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	unsigned long ev[NR_VM_EVENT_ITEMS], total = 0;
	unsigned long pages = o->mem / PAGE_SIZE, span = 1UL << MAX_PAGE_ORDER;
	struct demo_thread *t;
	pthread_barrier_t start;
	struct mem_cgroup *memcg;
	int i, err = 0, bad;
	double t0, t1;

	cfg.nr_cpus = (int)o->threads;
	cfg.node_pages = ((pages * o->threads + 4096) + span - 1) / span * span;
	cfg.lock = o->lock;
	cfg.lockstat = o->lockstat;
	/* the kernel's periodic rstat flush, which reclaim's ratelimited flush relies on */
	cfg.memcg_flush_ms = FLUSH_TIME_MS;
	if ((err = lrulab_init(&cfg))) {
		fprintf(stderr, "lrulab demo: cannot set up the model: %s\n", strerror(-err));
		return 1;
	}
	memcg = mem_cgroup_create(root_mem_cgroup, "demo");
	t = calloc(o->threads, sizeof(*t));
	if (!memcg || !t) {
		fprintf(stderr, "lrulab demo: out of memory\n");
		lrulab_exit();
		return 1;
	}
	printf("lrulab demo: %s fault/free, %ld thread%s on %d processor%s%s, %lu KiB each, %ld loop%s, lock %s\n",
	       o->shmem ? "shmem" : "anon", o->threads, o->threads == 1 ? "" : "s",
	       lrulab_nr_processors(), lrulab_nr_processors() == 1 ? "" : "s",
	       lrulab_oversubscribed() ? " (OVERSUBSCRIBED: more model CPUs than processors)" : "",
	       o->mem >> 10, o->loops, o->loops == 1 ? "" : "s", lock_impl_name(o->lock));
	pthread_barrier_init(&start, NULL, (unsigned int)o->threads + 1);
	all_vm_events(ev);
	lockstat_reset();
	for (i = 0; i < o->threads; i++) {
		t[i] = (struct demo_thread){ .cpu = i, .o = o, .memcg = memcg, .start = &start };
		pthread_create(&t[i].tid, NULL, demo_worker, &t[i]);
	}
	barrier_wait_sleep(&start);
	t0 = now_sec();
	for (i = 0; i < o->threads; i++) {
		pthread_join(t[i].tid, NULL);
		total += t[i].pages_done;
		if (t[i].err && !err)
			err = t[i].err;
	}
	t1 = now_sec();
	pthread_barrier_destroy(&start);

	printf("\n");
	lockstat_print(stdout, LOCKSTAT_SORT_WAIT_TOTAL);
	print_figures(total, t1 - t0);
	print_vmstat_delta(ev);
	printf("\nmemory.stat of %s:\n", memcg->name);
	memory_stat_show(memcg, stdout);
	bad = lrulab_check_invariants(true, stderr);
	printf("\ninvariants: %s\n", bad ? "VIOLATED" : "ok");
	mem_cgroup_offline(memcg);
	free(t);
	lrulab_exit();
	if (err)
		fprintf(stderr, "lrulab demo: a worker failed: %s\n", strerror(-err));
	return err || bad ? 1 : 0;
}

enum { OPT_THREADS = 1, OPT_TYPE, OPT_MEM, OPT_LOOPS, OPT_LOCK, OPT_NO_LOCKSTAT };

static const struct cmd_opt demo_opts[] = {
	{ "threads", "N", OPT_THREADS, "model CPUs faulting and freeing (default 2)" },
	{ "type", "shmem|anon", OPT_TYPE, "the memory faulted (default shmem)" },
	{ "mem", "SIZE", OPT_MEM, "per thread, a multiple of 4K (default 4M)" },
	{ "loops", "N", OPT_LOOPS, "fault/free passes (default 20)" },
	{ "lock", "IMPL", OPT_LOCK, "qspinlock, ticket, tas, pthread-spin or mutex (default qspinlock)" },
	{ "no-lockstat", NULL, OPT_NO_LOCKSTAT, "lock statistics off" },
	{ NULL },
};

static const struct cmd_spec demo_spec = {
	.prog = "lrulab demo",
	.about = "A short fault/free run with every table: locks, figures, stats, invariants.",
	.opts = demo_opts,
};

int cmd_demo(int argc, char **argv)
{
	struct demo_opts o = {
		.threads = 2, .shmem = true, .mem = 4UL << 20, .loops = 20,
		.lock = LOCK_QSPINLOCK, .lockstat = LOCKSTAT_SAMPLED,
	};
	const char *p = demo_spec.prog, *arg;
	struct cmd_parser cp;
	int c;

	cmd_parse_init(&cp, &demo_spec, argc, argv);
	while ((c = cmd_parse_next(&cp, &arg)) != CMD_OPT_END) {
		switch (c) {
		case CMD_OPT_HELP:
			return 0;
		case CMD_OPT_ERROR:
			return 2;
		case OPT_THREADS:
			if (parse_long(p, "--threads", arg, 1, LRULAB_MAX_CPUS, &o.threads))
				return 2;
			break;
		case OPT_TYPE:
			if (!strcmp(arg, "shmem") || !strcmp(arg, "anon")) {
				o.shmem = !strcmp(arg, "shmem");
				break;
			}
			fprintf(stderr, "%s: --type: unknown type '%s' (shmem or anon)\n", p, arg);
			return 2;
		case OPT_MEM:
			if (parse_size_max(p, "--mem", arg, 1UL << 30, "per thread", &o.mem))
				return 2;
			if (o.mem % PAGE_SIZE) {
				fprintf(stderr, "%s: --mem: must be a multiple of 4K\n", p);
				return 2;
			}
			break;
		case OPT_LOOPS:
			if (parse_long(p, "--loops", arg, 1, 1000000, &o.loops))
				return 2;
			break;
		case OPT_LOCK:
			if (lock_impl_parse(arg, &o.lock)) {
				fprintf(stderr, "%s: --lock: unknown lock '%s' (qspinlock, ticket, tas, pthread-spin, mutex)\n",
					p, arg);
				return 2;
			}
			break;
		case OPT_NO_LOCKSTAT:
			o.lockstat = LOCKSTAT_OFF;
			break;
		}
	}
	if (cmd_parse_end(&cp))
		return 2;
	return run_demo(&o);
}
