// SPDX-License-Identifier: MIT
/*
 * `lrulab usemem` (also `lrulab bench usemem`): the s1 mail's workload,
 * vm-scalability's `usemem -n N --prealloc --prefault --random SIZE`
 * run inside a two-level memcg whose leaf memory.max is a fraction of
 * the working set, so that reclaim (shrink_inactive_list, swap-out) and
 * refaults (workingset_refault, swap-in) run continuously on every
 * thread.  Reports what the mail's tables report: pgscan_direct,
 * pgsteal_direct and workingset_refault_anon per second, and the lock
 * table, with the cost-recording sites singled out.
 *
 * Anon memory (the default, as usemem's) leaves swap PTEs behind;
 * --type shmem swaps a shmem file instead, whose swap entries live in
 * the page cache.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lrulab/commands.h>
#include <lrulab/lrulab.h>
#include <lrulab/parse.h>
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>

struct usemem_opts {
	long threads;
	unsigned long mem;	/* bytes per thread */
	unsigned long max;	/* leaf memory.max, bytes; 0: an eighth of the total */
	double seconds;
	bool shmem;
	bool scan_cost;
	enum lock_impl lock;
};

struct usemem_thread {
	pthread_t tid;
	int cpu;
	const struct usemem_opts *o;
	struct mem_cgroup *memcg;
	struct address_space *file;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	pthread_barrier_t *start;
	volatile int *stop;
	unsigned long accesses;
	int err;
};

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *usemem_worker(void *arg)
{
	struct usemem_thread *t = arg;
	unsigned long pages = t->o->mem / PAGE_SIZE, i;
	u64 x = 0x9e3779b97f4a7c15ULL * (u64)(t->cpu + 1);

	if (cpu_enter(t->cpu, true) && cpu_enter(t->cpu, false)) {
		t->err = -EBUSY;
		pthread_barrier_wait(t->start);
		return NULL;
	}
	/* --prealloc --prefault: every page written once before the clock */
	for (i = 0; i < pages && !t->err; i++)
		if (mm_access(t->vma, t->vma->vm_start + i * PAGE_SIZE, true))
			t->err = -ENOMEM;
	pthread_barrier_wait(t->start);
	/* --random: uniform random writes over the whole region */
	while (!t->err && !__atomic_load_n(t->stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < 64; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (mm_access(t->vma, t->vma->vm_start + (x % pages) * PAGE_SIZE, true)) {
				t->err = -ENOMEM;
				break;
			}
		}
		t->accesses += i;
	}
	lru_add_drain();
	cpu_exit();
	return NULL;
}

/* lru_lock acquisitions and wait of the cost-recording sites */
static void cost_sites(u64 *acquired, u64 *wait_ns)
{
	int id;

	*acquired = *wait_ns = 0;
	for (id = 0; id < lockstat_nr_sites(); id++) {
		struct lock_site *site = lockstat_site(id);
		struct lock_stat st;

		if (!site || strcmp(site->cls, "lru_lock") ||
		    (strcmp(site->caller, "lru_note_cost_unlock_irq") &&
		     strcmp(site->caller, "lru_note_cost_refault") &&
		     strcmp(site->caller, "prepare_scan_control")))
			continue;
		lockstat_read(site, &st);
		*acquired += st.acquired;
		*wait_ns += st.wait_total_ns;
	}
}

static int run_usemem(const struct usemem_opts *o)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	unsigned long pages = o->mem / PAGE_SIZE, total = pages * (unsigned long)o->threads;
	/*
	 * An eighth of the working set, but not so small that the pages
	 * parked in per-CPU LRU batches and charge stocks (up to 31 + 64
	 * per CPU, out of reclaim's reach) take a memcg to OOM.
	 */
	unsigned long max = o->max ? o->max / PAGE_SIZE :
		max_t(unsigned long, total / 8, 256 * (unsigned long)o->threads);
	unsigned long span = 1UL << MAX_PAGE_ORDER, ev0[NR_VM_EVENT_ITEMS], ev1[NR_VM_EVENT_ITEMS];
	struct mem_cgroup *parent, *leaf;
	struct usemem_thread *t;
	pthread_barrier_t start;
	volatile int stop = 0;
	struct lock_stat lru;
	u64 cost_acq, cost_wait;
	unsigned long refaults, scan, steal;
	double t0, secs;
	int i, err = 0, bad;

	cfg.nr_cpus = (int)o->threads;
	/* the leaf's limit plus headroom for the allocator and watermarks */
	cfg.node_pages = ((max + 4096) + span - 1) / span * span;
	cfg.lock = o->lock;
	lrulab_switches_clear();
	lrulab_switches[SW_VMSTAT_SCAN_COST] = o->scan_cost;
	if ((err = lrulab_init(&cfg))) {
		fprintf(stderr, "lrulab usemem: cannot set up the model: %s\n", strerror(-err));
		return 1;
	}
	if (swapon(total + 64, SWAP_STORE_ZSTD)) {
		fprintf(stderr, "lrulab usemem: cannot set up swap\n");
		lrulab_exit();
		return 1;
	}
	parent = mem_cgroup_create(root_mem_cgroup, "usemem");
	leaf = parent ? mem_cgroup_create(parent, "leaf") : NULL;
	t = calloc((size_t)o->threads, sizeof(*t));
	if (!leaf || !t || mem_cgroup_set_max(leaf, max)) {
		fprintf(stderr, "lrulab usemem: out of memory\n");
		return 1;
	}
	printf("lrulab usemem: %ld threads x %lu KiB %s, random writes, leaf memory.max %lu KiB, %.1f s, vmstat-scan-cost %s%s\n",
	       o->threads, o->mem >> 10, o->shmem ? "shmem" : "anon",
	       max * (PAGE_SIZE >> 10), o->seconds,
	       o->scan_cost ? "on" : "off",
	       lrulab_oversubscribed() ? " (OVERSUBSCRIBED)" : "");
	pthread_barrier_init(&start, NULL, (unsigned int)o->threads + 1);
	for (i = 0; i < o->threads; i++) {
		t[i] = (struct usemem_thread){ .cpu = i, .o = o, .memcg = leaf,
					       .start = &start, .stop = &stop };
		t[i].file = o->shmem ? shmem_file_setup(pages, 0) : NULL;
		t[i].mm = t[i].file || !o->shmem ? mm_alloc(leaf) : NULL;
		t[i].vma = !t[i].mm ? NULL : o->shmem ?
			mmap_shmem(t[i].mm, t[i].file, 0, pages * PAGE_SIZE) :
			mmap_anon(t[i].mm, pages * PAGE_SIZE, 0);
		if (!t[i].vma) {
			fprintf(stderr, "lrulab usemem: out of memory\n");
			return 1;
		}
		pthread_create(&t[i].tid, NULL, usemem_worker, &t[i]);
	}
	pthread_barrier_wait(&start);
	/*
	 * The measured window starts once every thread has prefaulted.  No
	 * memcg flush here: a root flush holds reclaim's ratelimited flush
	 * off for 2 * FLUSH_TIME, and with no periodic flusher in the model
	 * reclaim would then balance on stale list sizes for the whole run.
	 * The node counters and global events say the same: all reclaim is
	 * the leaf's.
	 */
	all_vm_events(ev0);
	refaults = node_page_state_snapshot(NODE_DATA(0), WORKINGSET_REFAULT_ANON);
	lockstat_reset();
	t0 = now_sec();
	while (now_sec() - t0 < o->seconds)
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < o->threads; i++) {
		pthread_join(t[i].tid, NULL);
		if (t[i].err && !err)
			err = t[i].err;
	}
	secs = now_sec() - t0;
	all_vm_events(ev1);
	refaults = node_page_state_snapshot(NODE_DATA(0), WORKINGSET_REFAULT_ANON) - refaults;
	scan = ev1[PGSCAN_ANON] - ev0[PGSCAN_ANON];
	steal = ev1[PGSTEAL_ANON] - ev0[PGSTEAL_ANON];
	pthread_barrier_destroy(&start);

	/* cgroup reclaim counts pgscan_direct in the memcg; the anon totals are the same */
	printf("\n%-32s %14s\n", "", "per second");
	printf("%-32s %14.0f\n", "pgscan_direct", scan / secs);
	printf("%-32s %14.0f\n", "pgsteal_direct", steal / secs);
	printf("%-32s %14.0f\n", "workingset_refault_anon", refaults / secs);
	printf("%-32s %14.0f\n", "pswpout", (ev1[PSWPOUT] - ev0[PSWPOUT]) / secs);
	printf("\n");
	lockstat_print(stdout, LOCKSTAT_SORT_WAIT_TOTAL);
	lockstat_read_class("lru_lock", &lru);
	cost_sites(&cost_acq, &cost_wait);
	printf("\nlru_lock: %llu acquisitions, %.3f ms total wait; cost sites (lru_note_cost_*, prepare_scan_control): %llu acquisitions, %.3f ms wait\n",
	       (unsigned long long)lru.acquired, lru.wait_total_ns / 1e6,
	       (unsigned long long)cost_acq, cost_wait / 1e6);

	if (cpu_enter(0, false) == 0) {
		for (i = 0; i < o->threads; i++) {
			munmap_vma(t[i].vma);
			mmput(t[i].mm);
			if (t[i].file)
				shmem_file_free(t[i].file);
		}
		cpu_exit();
	}
	bad = lrulab_check_invariants(true, stderr);
	printf("invariants: %s\n", bad ? "VIOLATED" : "ok");
	mem_cgroup_offline(leaf);
	mem_cgroup_offline(parent);
	free(t);
	swapoff();
	lrulab_exit();
	lrulab_switches_clear();
	if (err)
		fprintf(stderr, "lrulab usemem: a worker failed: out of memory\n");
	return err || bad ? 1 : 0;
}

static const struct option usemem_options[] = {
	{ "threads", required_argument, NULL, 't' },
	{ "mem", required_argument, NULL, 'm' },
	{ "max", required_argument, NULL, 'M' },
	{ "seconds", required_argument, NULL, 's' },
	{ "type", required_argument, NULL, 'T' },
	{ "with", required_argument, NULL, 'w' },
	{ "without", required_argument, NULL, 'W' },
	{ "lock", required_argument, NULL, 'L' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usemem_usage(FILE *f)
{
	fprintf(f, "usage: lrulab usemem [--threads N] [--mem SIZE] [--max SIZE] [--seconds S]\n"
		   "                     [--type anon|shmem] [--with|--without vmstat-scan-cost] [--lock IMPL]\n"
		   "  --mem: working set per thread (default 8M); --max: leaf memory.max\n"
		   "  (default an eighth of the total working set, as 512M for 4G in the s1 mail,\n"
		   "  and at least 1M per thread)\n");
}

int cmd_usemem(int argc, char **argv)
{
	struct usemem_opts o = {
		.threads = 2, .mem = 8UL << 20, .seconds = 2.0, .lock = LOCK_QSPINLOCK,
	};
	const char *p = "lrulab usemem";
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", usemem_options, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_long(p, "--threads", optarg, 1, LRULAB_MAX_CPUS, &o.threads))
				return 2;
			break;
		case 'm':
		case 'M': {
			const char *opt = c == 'm' ? "--mem" : "--max";
			unsigned long v;

			if (parse_size(p, opt, optarg, &v))
				return 2;
			if (!v || v % PAGE_SIZE || v > (1UL << 30)) {
				fprintf(stderr, "%s: %s: must be a positive multiple of 4K, at most 1G\n",
					p, opt);
				return 2;
			}
			if (c == 'm')
				o.mem = v;
			else
				o.max = v;
			break;
		}
		case 's':
			if (parse_double(p, "--seconds", optarg, 0.01, 3600, &o.seconds))
				return 2;
			break;
		case 'T':
			if (!strcmp(optarg, "shmem") || !strcmp(optarg, "anon")) {
				o.shmem = !strcmp(optarg, "shmem");
				break;
			}
			fprintf(stderr, "%s: --type: unknown type '%s' (anon or shmem)\n", p, optarg);
			return 2;
		case 'w':
		case 'W':
			if (strcmp(optarg, "vmstat-scan-cost")) {
				fprintf(stderr, "%s: %s: only vmstat-scan-cost applies to usemem\n", p,
					c == 'w' ? "--with" : "--without");
				return 2;
			}
			o.scan_cost = c == 'w';
			break;
		case 'L':
			if (lock_impl_parse(optarg, &o.lock)) {
				fprintf(stderr, "%s: --lock: unknown lock '%s' (qspinlock, ticket, tas, pthread-spin, mutex)\n",
					p, optarg);
				return 2;
			}
			break;
		case 'h':
			usemem_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "%s: unknown or incomplete option '%s'\n", p,
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", p, argv[optind]);
		return 2;
	}
	if ((o.max ? o.max / PAGE_SIZE : 256 * (unsigned long)o.threads) >=
	    o.mem / PAGE_SIZE * (unsigned long)o.threads) {
		fprintf(stderr, "%s: the working set (--mem x --threads) must exceed memory.max (--max, at least 1M per thread by default)\n", p);
		return 2;
	}
	return run_usemem(&o);
}
