// SPDX-License-Identifier: MIT
/*
 * The harness every workload runs in: option parsing, N threads pinned
 * as model CPUs in fresh memcgs, the lock table, vmstat and memory.stat
 * deltas and the machine-independent figures of a run, its JSON form,
 * medians and bootstrap intervals, and runs in fresh processes for the
 * A/B harness.  `lrulab bench` itself is here; the workloads' passes are
 * in fault_free.c and mmap_madvise.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <lrulab/bench.h>

#define BENCH_MIN_NODE_PAGES (1UL << 20)	/* 4 GiB of 4 KiB pages */
#include <lrulab/commands.h>
#include <lrulab/mm_inline.h>
#include <lrulab/parse.h>

static const struct bench_workload *const bench_workloads[] = {
	&fault_free_workload,
	&mmap_madvise_workload,
	&usemem_workload,
};

#define BENCH_WORKLOAD_NAMES "fault-free, mmap-madvise or usemem"

const struct bench_workload *bench_find_workload(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bench_workloads); i++)
		if (!strcmp(name, bench_workloads[i]->name))
			return bench_workloads[i];
	return NULL;
}

/* ---- options ---- */

static const struct option bench_long_options[] = {
	{ "threads", required_argument, NULL, 't' },
	{ "type", required_argument, NULL, 'T' },
	{ "mem", required_argument, NULL, 'm' },
	{ "max", required_argument, NULL, 'X' },
	{ "folio-size", required_argument, NULL, 'f' },
	{ "seconds", required_argument, NULL, 's' },
	{ "loops", required_argument, NULL, 'l' },
	{ "memcgs", required_argument, NULL, 'M' },
	{ "lock", required_argument, NULL, 'L' },
	{ "with", required_argument, NULL, 'w' },
	{ "without", required_argument, NULL, 'W' },
	{ "fault-work", required_argument, NULL, 'F' },
	{ "flush-ms", required_argument, NULL, 'R' },
	{ "profile-hold", no_argument, NULL, 'p' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void bench_usage(FILE *f, const struct bench_workload *w)
{
	const char *name = w ? w->name : "fault-free|mmap-madvise|usemem";

	fprintf(f, "usage: lrulab bench %s", name);
	if (!w || (w->opts & BENCH_OPT_TYPE))
		fprintf(f, " [--type shmem|anon]");
	if (!w || (w->opts & BENCH_OPT_MAX))
		fprintf(f, " [--max SIZE]");
	fprintf(f, "\n       [--threads N[,N...]] [--mem SIZE] [--folio-size 4K|16K|32K|64K]\n"
		   "       [--seconds S | --loops N] [--memcgs N] [--lock IMPL]\n"
		   "       [--with SWITCH]... [--without SWITCH]... [--fault-work NS]\n"
		   "       [--flush-ms MS] [--profile-hold] [--json]\n");
	if (w)
		fprintf(f, "\n%s\n", w->summary);
	fprintf(f, "\nswitches: %s\nlocks: qspinlock ticket tas pthread-spin mutex\n",
		bench_switch_list());
}

static int parse_folio_size(const char *prog, const char *s, unsigned int *order)
{
	unsigned long size;

	if (parse_size(prog, "--folio-size", s, &size))
		return -1;
	switch (size) {
	case 4096:	*order = 0; return 0;
	case 16384:	*order = 2; return 0;
	case 32768:	*order = 3; return 0;
	case 65536:	*order = 4; return 0;
	}
	fprintf(stderr, "%s: --folio-size: %s is not a folio size here (4K, 16K, 32K or 64K)\n",
		prog, s);
	return -1;
}

const char *bench_switch_list(void)
{
	static char buf[256];
	size_t off = 0;
	int i;

	for (i = 0; i < NR_LRULAB_SWITCHES && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
				lrulab_switch_name(i));
	return buf;
}

static int parse_switch(const char *prog, const char *opt, const char *s,
			signed char *sw, signed char val)
{
	enum lrulab_switch which;

	if (lrulab_switch_parse(s, &which)) {
		fprintf(stderr, "%s: %s: unknown switch '%s' (%s)\n", prog, opt, s,
			bench_switch_list());
		return -1;
	}
	if (sw[which] >= 0 && sw[which] != val) {
		fprintf(stderr, "%s: both --with and --without %s\n", prog, s);
		return -1;
	}
	sw[which] = val;
	return 0;
}

int bench_parse(const struct bench_workload *w, const char *prog, int argc,
		char **argv, struct bench_opts *o)
{
	bool seconds_given = false, loops_given = false;
	unsigned long folio_bytes;
	double d;
	long v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", bench_long_options, NULL)) != -1) {
		switch (c) {
		case 't':
			/* "1,,2" is a typo, not the list 1,2 */
			if (optarg[0] == ',' || strstr(optarg, ",,")) {
				fprintf(stderr, "%s: --threads: invalid list '%s'\n", prog, optarg);
				return 2;
			}
			v = parse_long_list(prog, "--threads", optarg, 1, LRULAB_MAX_CPUS,
					    o->threads, BENCH_MAX_THREAD_COUNTS);
			if (v < 0)
				return 2;
			o->nr_threads = (int)v;
			break;
		case 'T':
			if (!(w->opts & BENCH_OPT_TYPE)) {
				fprintf(stderr, "%s: --type: %s always runs anon memory\n",
					prog, w->name);
				return 2;
			}
			if (strcmp(optarg, "shmem") && strcmp(optarg, "anon")) {
				fprintf(stderr, "%s: --type: unknown type '%s' (shmem or anon)\n",
					prog, optarg);
				return 2;
			}
			o->shmem = !strcmp(optarg, "shmem");
			break;
		case 'm':
			if (parse_size(prog, "--mem", optarg, &o->mem))
				return 2;
			if (o->mem > BENCH_MAX_MEM) {
				fprintf(stderr, "%s: --mem: %s is more than 1G per thread\n",
					prog, optarg);
				return 2;
			}
			break;
		case 'X':
			if (!(w->opts & BENCH_OPT_MAX)) {
				fprintf(stderr, "%s: --max: %s runs without a memory.max\n",
					prog, w->name);
				return 2;
			}
			if (parse_size(prog, "--max", optarg, &o->max))
				return 2;
			if (!o->max || o->max % PAGE_SIZE || o->max > BENCH_MAX_MEM) {
				fprintf(stderr, "%s: --max: must be a positive multiple of 4K, at most 1G\n",
					prog);
				return 2;
			}
			break;
		case 'f':
			if (parse_folio_size(prog, optarg, &o->folio_order))
				return 2;
			break;
		case 's':
			if (parse_double(prog, "--seconds", optarg, 0.001, 3600, &d))
				return 2;
			o->seconds = d;
			seconds_given = true;
			break;
		case 'l':
			if (parse_long(prog, "--loops", optarg, 1, 1000000, &o->loops))
				return 2;
			loops_given = true;
			break;
		case 'M':
			if (parse_long(prog, "--memcgs", optarg, 1, BENCH_MAX_MEMCGS, &o->memcgs))
				return 2;
			break;
		case 'L':
			if (lock_impl_parse(optarg, &o->lock)) {
				fprintf(stderr, "%s: --lock: unknown lock '%s' (qspinlock, ticket, tas, pthread-spin, mutex)\n",
					prog, optarg);
				return 2;
			}
			break;
		case 'w':
		case 'W':
			if (parse_switch(prog, c == 'w' ? "--with" : "--without", optarg,
					 o->sw, c == 'w'))
				return 2;
			break;
		case 'F':
			if (parse_long(prog, "--fault-work", optarg, 0, 1000000, &v))
				return 2;
			o->fault_work_ns = (unsigned long)v;
			break;
		case 'R':
			if (parse_long(prog, "--flush-ms", optarg, 0, 60000, &o->flush_ms))
				return 2;
			break;
		case 'p':
			o->profile_hold = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			bench_usage(stdout, w);
			return 1;
		default:
			fprintf(stderr, "%s: unknown or incomplete option '%s'\n", prog,
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		return 2;
	}
	if (seconds_given && loops_given) {
		fprintf(stderr, "%s: --seconds and --loops exclude each other\n", prog);
		return 2;
	}
	if (seconds_given)
		o->loops = 0;
	if (o->shmem && o->folio_order) {
		fprintf(stderr, "%s: --folio-size: shmem files use 4K folios only\n", prog);
		return 2;
	}
	folio_bytes = PAGE_SIZE << o->folio_order;
	if (o->mem % folio_bytes) {
		fprintf(stderr, "%s: --mem: %lu bytes is not a multiple of the %luK folio size\n",
			prog, o->mem, folio_bytes >> 10);
		return 2;
	}
	return 0;
}

void bench_defaults(const struct bench_workload *w, struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->workload = w->name;
	o->threads[0] = lrulab_nr_processors();
	o->nr_threads = 1;
	o->mem = 16UL << 20;
	o->seconds = 1.0;
	o->memcgs = 1;
	o->lock = LOCK_QSPINLOCK;
	o->flush_ms = -1;
	memset(o->sw, -1, sizeof(o->sw));
	w->defaults(o);
}

/* ---- one run ---- */

struct bench_phase {
	pthread_barrier_t start;
	int stop;
	long loops;		/* > 0: passes per thread; 0: until stop */
};

struct bench_worker {
	pthread_t tid;
	struct bench_thread t;
	const struct bench_workload *w;
	struct bench_phase *ph;
	unsigned long pages_done;
	u64 start_ns, end_ns;
	int err;
};

static void *bench_worker_fn(void *arg)
{
	struct bench_worker *bw = arg;
	struct bench_phase *ph = bw->ph;
	bool entered;
	long n;

	bw->err = cpu_enter(bw->t.cpu, true);
	entered = !bw->err;
	if (entered)
		bw->err = bw->w->setup(&bw->t);
	/* everyone meets the barrier, failed or not, or the others hang */
	pthread_barrier_wait(&ph->start);
	bw->start_ns = lrulab_now_ns();
	for (n = 0; !bw->err; n++) {
		if (ph->loops ? n >= ph->loops : __atomic_load_n(&ph->stop, __ATOMIC_ACQUIRE))
			break;
		bw->err = bw->w->pass(&bw->t);
		if (!bw->err)
			bw->pages_done += bw->t.pages;
	}
	bw->end_ns = lrulab_now_ns();
	if (entered) {
		bw->w->teardown(&bw->t);
		lru_add_drain();
		cpu_exit();
	}
	return NULL;
}

/*
 * One memcg's share of a run: every thread sets up, meets the others,
 * runs its passes and tears down.  The clock runs from the first thread
 * past the barrier to the last thread's last pass, both as the workers
 * saw them: a short run can be over before this thread is scheduled
 * again.  Returns the first worker error.
 */
static int bench_phase(const struct bench_workload *w, const struct bench_opts *o,
		       long threads, struct mem_cgroup *memcg, long loops,
		       double seconds, unsigned long *pages, double *secs)
{
	struct bench_worker *bw = calloc(threads, sizeof(*bw));
	struct bench_phase ph = { .loops = loops };
	u64 start = ~0ULL, end = 0;
	int i, err = 0;

	if (!bw)
		return -ENOMEM;
	pthread_barrier_init(&ph.start, NULL, (unsigned int)threads + 1);
	for (i = 0; i < threads; i++) {
		bw[i].w = w;
		bw[i].ph = &ph;
		bw[i].t = (struct bench_thread){
			.cpu = i, .o = o, .memcg = memcg,
			.pages = o->mem / PAGE_SIZE,
		};
		if (pthread_create(&bw[i].tid, NULL, bench_worker_fn, &bw[i])) {
			fprintf(stderr, "lrulab bench: cannot start thread %d\n", i);
			abort();
		}
	}
	pthread_barrier_wait(&ph.start);
	if (!loops) {
		struct timespec ts = {
			.tv_sec = (time_t)seconds,
			.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
		};

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		__atomic_store_n(&ph.stop, 1, __ATOMIC_RELEASE);
	}
	*pages = 0;
	for (i = 0; i < threads; i++) {
		pthread_join(bw[i].tid, NULL);
		*pages += bw[i].pages_done;
		if (bw[i].start_ns < start)
			start = bw[i].start_ns;
		if (bw[i].end_ns > end)
			end = bw[i].end_ns;
		if (bw[i].err && !err)
			err = bw[i].err;
	}
	*secs = end > start ? (end - start) / 1e9 : 0;
	pthread_barrier_destroy(&ph.start);
	free(bw);
	return err;
}

/* "name value" lines (vmstat, memory.stat) into @d, in file order. */
static void deltas_parse(struct bench_deltas *d, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[48];
		long long v;
		struct bench_delta *nd;

		if (sscanf(line, "%47s %lld", name, &v) != 2)
			continue;
		nd = realloc(d->d, (d->nr + 1) * sizeof(*nd));
		if (!nd)
			return;
		d->d = nd;
		snprintf(d->d[d->nr].name, sizeof(d->d[d->nr].name), "%s", name);
		d->d[d->nr++].delta = v;
	}
}

static void deltas_capture(struct bench_deltas *d, void (*show)(void *, FILE *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	d->nr = 0;
	d->d = NULL;
	if (!f)
		return;
	show(arg, f);
	fclose(f);
	deltas_parse(d, buf);
	free(buf);
}

/* @acc += @after - @before, by name; @acc may start empty. */
static void deltas_accumulate(struct bench_deltas *acc, const struct bench_deltas *before,
			      const struct bench_deltas *after)
{
	int i, j;

	for (i = 0; i < after->nr; i++) {
		long long b = 0;

		for (j = 0; j < before->nr; j++)
			if (!strcmp(before->d[j].name, after->d[i].name)) {
				b = before->d[j].delta;
				break;
			}
		for (j = 0; j < acc->nr; j++)
			if (!strcmp(acc->d[j].name, after->d[i].name))
				break;
		if (j == acc->nr) {
			struct bench_delta *nd = realloc(acc->d, (acc->nr + 1) * sizeof(*nd));

			if (!nd)
				return;
			acc->d = nd;
			acc->d[j] = after->d[i];
			acc->d[j].delta = 0;
			acc->nr++;
		}
		acc->d[j].delta += after->d[i].delta - b;
	}
}

static void deltas_free(struct bench_deltas *d)
{
	free(d->d);
	d->d = NULL;
	d->nr = 0;
}

static void show_vmstat(void *arg, FILE *f)
{
	vmstat_refresh();
	vmstat_show(f);
}

/* memory.stat after a full flush: the kernel's reader may lag a batch */
static void show_memory_stat(void *arg, FILE *f)
{
	mem_cgroup_flush_all();
	memory_stat_show(arg, f);
}

static void show_mthp(void *arg, FILE *f)
{
	unsigned int order;
	int item;

	for (order = 1; order <= HPAGE_PMD_ORDER; order++)
		for (item = 0; item < __MTHP_STAT_COUNT; item++)
			fprintf(f, "hugepages-%lukB/%s %lu\n", (PAGE_SIZE << order) >> 10,
				mthp_stat_name(item), mthp_stat_read(order, item));
}

static double tv_sec(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static int site_cmp(const void *a, const void *b)
{
	const struct bench_site_result *sa = a, *sb = b;

	if (sa->st.wait_total_ns != sb->st.wait_total_ns)
		return sa->st.wait_total_ns > sb->st.wait_total_ns ? -1 : 1;
	if (sa->st.acquired != sb->st.acquired)
		return sa->st.acquired > sb->st.acquired ? -1 : 1;
	return strcmp(sa->caller, sb->caller);
}

static void collect_sites(struct bench_result *r)
{
	int i, n = lockstat_nr_sites();

	r->sites = calloc(n ? n : 1, sizeof(*r->sites));
	r->nr_sites = 0;
	if (!r->sites)
		return;
	for (i = 0; i < n; i++) {
		struct lock_site *site = lockstat_site(i);
		struct bench_site_result *s = &r->sites[r->nr_sites];

		if (!site)
			continue;
		lockstat_read(site, &s->st);
		if (!s->st.acquired)
			continue;
		snprintf(s->cls, sizeof(s->cls), "%s", site->cls);
		snprintf(s->caller, sizeof(s->caller), "%s", site->caller);
		r->nr_sites++;
	}
	qsort(r->sites, r->nr_sites, sizeof(*r->sites), site_cmp);
	lockstat_read_class("lru_lock", &r->lru);
}

static void apply_switches(const struct bench_opts *o)
{
	int i;

	lrulab_switches_clear();
	for (i = 0; i < NR_LRULAB_SWITCHES; i++)
		lrulab_switches[i] = o->sw[i] == 1;
}

int bench_run(const struct bench_workload *w, const struct bench_opts *o,
	      long threads, struct bench_result *r)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	unsigned long pages = o->mem / PAGE_SIZE, span = 1UL << MAX_PAGE_ORDER;
	struct bench_deltas vm_before, mthp_before, tmp;
	struct mem_cgroup *memcg;
	struct rusage ru0, ru1;
	double rate_sum = 0;
	int m, err;

	memset(r, 0, sizeof(*r));
	r->threads = threads;
	r->cpus = lrulab_nr_processors();

	apply_switches(o);
	lru_hold_profile_enabled = o->profile_hold;
	cfg.nr_cpus = (int)threads;
	/*
	 * Room for every thread's region plus what per-CPU page lists and
	 * LRU batches may hold, with slack so mTHP faults do not fall back
	 * for want of free blocks.
	 */
	cfg.node_pages = (pages * threads + 4096 + 1024 * threads + span - 1) / span * span;
	/*
	 * The per-CPU page list batch grows with the zone (zone_batchsize);
	 * a zone sized to the workload would get a batch of 1-3 and take
	 * zone->lock almost once per page, which no machine the mails ran on
	 * does.  4 GiB gives the kernel's full batch of 63; the arena is
	 * reserved lazily, so the untouched part costs only its folio array.
	 */
	if (cfg.node_pages < BENCH_MIN_NODE_PAGES)
		cfg.node_pages = BENCH_MIN_NODE_PAGES;
	cfg.lock = o->lock;
	cfg.lockstat = true;
	/* the kernel's periodic rstat flush, which reclaim's ratelimited flush relies on */
	cfg.memcg_flush_ms = o->flush_ms >= 0 ? (unsigned int)o->flush_ms : FLUSH_TIME_MS;
	err = lrulab_init(&cfg);
	if (err) {
		lru_hold_profile_enabled = false;
		lrulab_switches_clear();
		return err;
	}
	fault_extra_ns = o->fault_work_ns;
	r->oversubscribed = lrulab_oversubscribed();
	memcpy(r->switches, lrulab_switches, sizeof(r->switches));

	/*
	 * A pass the clock does not see: the arena's first touch is the host
	 * kernel's page faults, not the model's, and would land on the first
	 * memcg only.
	 */
	memcg = mem_cgroup_create(root_mem_cgroup, "bench-warmup");
	if (!memcg) {
		err = -errno;
		goto out;
	}
	err = bench_phase(w, o, threads, memcg, 1, 0, &r->pages, &r->seconds);
	mem_cgroup_offline(memcg);
	if (err)
		goto out;
	r->pages = 0;
	r->seconds = 0;

	deltas_capture(&vm_before, show_vmstat, NULL);
	deltas_capture(&mthp_before, show_mthp, NULL);
	lockstat_reset();
	lru_hold_profile_reset();
	getrusage(RUSAGE_SELF, &ru0);
	for (m = 0; m < o->memcgs; m++) {
		struct bench_memcg_result *mr = &r->memcg[m];
		struct bench_deltas ms_before, ms_after;

		snprintf(mr->name, sizeof(mr->name), "bench-%d", m);
		memcg = mem_cgroup_create(root_mem_cgroup, mr->name);
		if (!memcg) {
			err = -errno;
			break;
		}
		mr->pn_offset128 = mem_cgroup_pn_offset128(memcg, 0);
		deltas_capture(&ms_before, show_memory_stat, memcg);
		err = bench_phase(w, o, threads, memcg, o->loops, o->seconds / o->memcgs,
				  &mr->pages, &mr->seconds);
		deltas_capture(&ms_after, show_memory_stat, memcg);
		deltas_accumulate(&r->memory_stat, &ms_before, &ms_after);
		deltas_free(&ms_before);
		deltas_free(&ms_after);
		mem_cgroup_offline(memcg);
		mr->pages_per_sec = mr->seconds > 0 ? mr->pages / mr->seconds : 0;
		r->pages += mr->pages;
		r->seconds += mr->seconds;
		rate_sum += mr->pages_per_sec;
		r->nr_memcgs++;
		if (err)
			break;
	}
	getrusage(RUSAGE_SELF, &ru1);
	r->user_s = tv_sec(ru1.ru_utime) - tv_sec(ru0.ru_utime);
	r->sys_s = tv_sec(ru1.ru_stime) - tv_sec(ru0.ru_stime);
	r->pages_per_sec = r->nr_memcgs ? rate_sum / r->nr_memcgs : 0;

	/* stats must equal list lengths once every batch is drained */
	r->invariant_violations = lrulab_check_invariants(true, stderr);
	collect_sites(r);
	if (o->profile_hold) {
		lru_hold_profile_read(&r->profile);
		r->have_profile = true;
	}
	deltas_capture(&tmp, show_vmstat, NULL);
	deltas_accumulate(&r->vmstat, &vm_before, &tmp);
	deltas_free(&tmp);
	deltas_capture(&tmp, show_mthp, NULL);
	deltas_accumulate(&r->mthp, &mthp_before, &tmp);
	deltas_free(&tmp);
	deltas_free(&vm_before);
	deltas_free(&mthp_before);
out:
	r->err = err;
	lrulab_exit();
	/* a later run, or a test, starts from the kernel before every patch */
	lru_hold_profile_enabled = false;
	lrulab_switches_clear();
	fault_extra_ns = 0;
	return 0;
}

void bench_result_free(struct bench_result *r)
{
	free(r->sites);
	r->sites = NULL;
	deltas_free(&r->vmstat);
	deltas_free(&r->memory_stat);
	deltas_free(&r->mthp);
}

/* ---- output ---- */

static void fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns < 60e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else
		snprintf(buf, len, "%.2f m", ns / 60e9);
}

static void switches_text(const struct bench_result *r, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < NR_LRULAB_SWITCHES && off < len; i++)
		if (r->switches[i])
			off += snprintf(buf + off, len - off, "%s%s", off ? "," : "",
					lrulab_switch_name(i));
	if (!off)
		snprintf(buf, len, "none");
}

json_t *bench_switches_json(const struct bench_result *r)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < NR_LRULAB_SWITCHES; i++)
		if (r->switches[i])
			json_array_append_new(a, json_string(lrulab_switch_name(i)));
	return a;
}

/* The `perf lock contention` table, with acquisitions and hold times. */
static void print_contention(FILE *f, const struct bench_result *r)
{
	char tw[32], mw[32], aw[32], ht[32], ah[32];
	int i;

	fprintf(f, "  contended   total wait     max wait     avg wait     acquired   hold total     avg hold   class             caller\n\n");
	for (i = 0; i < r->nr_sites; i++) {
		const struct bench_site_result *s = &r->sites[i];

		fmt_ns(tw, sizeof(tw), s->st.wait_total_ns);
		fmt_ns(mw, sizeof(mw), s->st.wait_max_ns);
		fmt_ns(aw, sizeof(aw), s->st.contended ?
		       (double)s->st.wait_total_ns / s->st.contended : 0);
		fmt_ns(ht, sizeof(ht), s->st.hold_total_ns);
		fmt_ns(ah, sizeof(ah), (double)s->st.hold_total_ns / s->st.acquired);
		fprintf(f, "%11llu %12s %12s %12s %12llu %12s %12s   %-17s %s\n",
			(unsigned long long)s->st.contended, tw, mw, aw,
			(unsigned long long)s->st.acquired, ht, ah, s->cls, s->caller);
	}
}

static int site_acquired_cmp(const void *a, const void *b)
{
	const struct bench_site_result *sa = a, *sb = b;

	if (sa->st.acquired != sb->st.acquired)
		return sa->st.acquired > sb->st.acquired ? -1 : 1;
	return site_cmp(a, b);
}

/* `perf lock report`, the table the s4 mail quotes, busiest first. */
static void print_report(FILE *f, const struct bench_result *r)
{
	struct bench_site_result *s = malloc(r->nr_sites * sizeof(*s) + 1);
	char aw[32], tw[32], mw[32], nw[32], name[80];
	int i;

	if (!s)
		return;
	memcpy(s, r->sites, r->nr_sites * sizeof(*s));
	qsort(s, r->nr_sites, sizeof(*s), site_acquired_cmp);
	fprintf(f, "%40s %10s %10s %12s %12s %12s %12s\n\n", "Name", "acquired",
		"contended", "avg wait", "total wait", "max wait", "min wait");
	for (i = 0; i < r->nr_sites; i++) {
		snprintf(name, sizeof(name), "%s:%s", s[i].cls, s[i].caller);
		fmt_ns(aw, sizeof(aw), s[i].st.contended ?
		       (double)s[i].st.wait_total_ns / s[i].st.contended : 0);
		fmt_ns(tw, sizeof(tw), s[i].st.wait_total_ns);
		fmt_ns(mw, sizeof(mw), s[i].st.wait_max_ns);
		fmt_ns(nw, sizeof(nw), s[i].st.wait_min_ns);
		fprintf(f, "%40s %10llu %10llu %12s %12s %12s %12s\n", name,
			(unsigned long long)s[i].st.acquired,
			(unsigned long long)s[i].st.contended, aw, tw, mw, nw);
	}
	free(s);
}

static double per_1k(u64 n, unsigned long pages)
{
	return pages ? 1000.0 * n / pages : 0;
}

static u64 profile_stat_ns(const struct lru_hold_profile *p)
{
	return p->ns[LRU_HOLD_STAT] + p->ns[LRU_HOLD_ZONE_STAT];
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static void print_deltas(FILE *f, const char *title, const struct bench_deltas *d)
{
	int i, shown = 0;

	for (i = 0; i < d->nr; i++) {
		if (!d->d[i].delta)
			continue;
		if (!shown++)
			fprintf(f, "\n%s:\n", title);
		fprintf(f, "  %s %lld\n", d->d[i].name, d->d[i].delta);
	}
}

void bench_print_text(FILE *f, const struct bench_workload *w,
		      const struct bench_opts *o, const struct bench_result *r)
{
	char sw[128], buf[32];
	int i;

	switches_text(r, sw, sizeof(sw));
	fprintf(f, "lrulab bench %s: %s, %ld thread%s on %d processors, %lu%s each, %luK folios, ",
		w->name, o->shmem ? "shmem" : "anon", r->threads, r->threads == 1 ? "" : "s", r->cpus,
		o->mem % (1UL << 20) ? o->mem >> 10 : o->mem >> 20,
		o->mem % (1UL << 20) ? "K" : "M", (PAGE_SIZE << o->folio_order) >> 10);
	if (o->loops)
		fprintf(f, "%ld loops", o->loops);
	else
		fprintf(f, "%.2f s", o->seconds);
	fprintf(f, ", %d memcg%s, lock %s, layout %s, switches: %s\n", r->nr_memcgs,
		r->nr_memcgs == 1 ? "" : "s", lock_impl_name(o->lock),
		lrulab_pn_layout_name(), sw);
	if (r->oversubscribed)
		fprintf(f, "OVERSUBSCRIBED: %ld threads on %d processors: lock holders can be preempted, so wait times mean little\n",
			r->threads, r->cpus);
	if (r->err)
		fprintf(f, "a worker failed: %s\n", strerror(-r->err));

	fprintf(f, "\n  memcg          pn offset %% 128        pages/s\n");
	for (i = 0; i < r->nr_memcgs; i++)
		fprintf(f, "  %-14s %15lu %14.0f\n", r->memcg[i].name,
			r->memcg[i].pn_offset128, r->memcg[i].pages_per_sec);
	fprintf(f, "\npages faulted and freed: %lu in %.3f s: %.0f pages/s, %.0f per thread\n",
		r->pages, r->seconds, r->pages_per_sec, r->pages_per_sec / r->threads);
	if (w->report_time)
		fprintf(f, "real %.3fs  user %.3fs  sys %.3fs\n", r->seconds, r->user_s,
			r->sys_s);

	fprintf(f, "\n");
	if (w->report_time)
		print_report(f, r);
	else
		print_contention(f, r);

	fprintf(f, "\nfigures that hold on any machine:\n");
	fprintf(f, "  lru_lock acquisitions per 1000 pages: %.1f\n", per_1k(r->lru.acquired, r->pages));
	fmt_ns(buf, sizeof(buf), r->lru.acquired ? (double)r->lru.hold_total_ns / r->lru.acquired : 0);
	fprintf(f, "  lru_lock hold per acquisition: %s, per page: %.1f ns\n", buf,
		r->pages ? (double)r->lru.hold_total_ns / r->pages : 0);
	for (i = 0; i < r->nr_sites; i++) {
		const struct bench_site_result *s = &r->sites[i];

		if (strcmp(s->cls, "lru_lock"))
			continue;
		fmt_ns(buf, sizeof(buf), (double)s->st.hold_total_ns / s->st.acquired);
		fprintf(f, "    %-26s %8.1f per 1000 pages, %10s hold each\n", s->caller,
			per_1k(s->st.acquired, r->pages), buf);
	}
	if (r->have_profile) {
		const struct lru_hold_profile *p = &r->profile;
		double hold = (double)r->lru.hold_total_ns;

		fprintf(f, "  lru_lock hold time by section (--profile-hold):\n");
		for (i = 0; i < NR_LRU_HOLD_SECTIONS; i++)
			fprintf(f, "    %-26s %5.1f%%  (%llu updates)\n", lru_hold_section_name(i),
				pct(p->ns[i], hold), (unsigned long long)p->count[i]);
		fprintf(f, "    %-26s %5.1f%%\n", "all stat updates", pct(profile_stat_ns(p), hold));
		fprintf(f, "    stat updates deferred past the unlock: %llu\n",
			(unsigned long long)p->deferred_stat_updates);
	}

	print_deltas(f, "vmstat deltas", &r->vmstat);
	print_deltas(f, "mTHP counter deltas", &r->mthp);
	print_deltas(f, "memory.stat deltas (all memcgs of the run)", &r->memory_stat);
	fprintf(f, "\ninvariants: %s\n", r->invariant_violations ? "VIOLATED" : "ok");
}

static json_t *deltas_json(const struct bench_deltas *d)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < d->nr; i++)
		if (d->d[i].delta)
			json_object_set_new(o, d->d[i].name, json_integer(d->d[i].delta));
	return o;
}

static json_t *sites_json(const struct bench_result *r)
{
	json_t *a = json_array();
	char site[96];
	int i;

	for (i = 0; i < r->nr_sites; i++) {
		const struct bench_site_result *s = &r->sites[i];

		snprintf(site, sizeof(site), "%s:%s", s->cls, s->caller);
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
			"site", site, "class", s->cls, "caller", s->caller,
			"acquired", (json_int_t)s->st.acquired,
			"contended", (json_int_t)s->st.contended,
			"wait_total_ns", (json_int_t)s->st.wait_total_ns,
			"wait_max_ns", (json_int_t)s->st.wait_max_ns,
			"wait_min_ns", (json_int_t)s->st.wait_min_ns,
			"hold_total_ns", (json_int_t)s->st.hold_total_ns));
	}
	return a;
}

json_t *bench_locks_json(void)
{
	struct bench_result r;
	json_t *a;

	memset(&r, 0, sizeof(r));
	collect_sites(&r);
	a = sites_json(&r);
	free(r.sites);
	return a;
}

json_t *bench_result_json(const struct bench_workload *w,
			  const struct bench_opts *o, const struct bench_result *r)
{
	json_t *j = json_object(), *a;
	int i;

	json_object_set_new(j, "workload", json_string(w->name));
	json_object_set_new(j, "type", json_string(o->shmem ? "shmem" : "anon"));
	json_object_set_new(j, "threads", json_integer(r->threads));
	json_object_set_new(j, "cpus", json_integer(r->cpus));
	json_object_set_new(j, "oversubscribed", json_boolean(r->oversubscribed));
	json_object_set_new(j, "folio_size", json_integer(PAGE_SIZE << o->folio_order));
	json_object_set_new(j, "mem_per_thread", json_integer(o->mem));
	json_object_set_new(j, "switches", bench_switches_json(r));
	json_object_set_new(j, "pn_layout", json_string(lrulab_pn_layout_name()));
	json_object_set_new(j, "lock", json_string(lock_impl_name(o->lock)));
	json_object_set_new(j, "fault_work_ns", json_integer(o->fault_work_ns));
	json_object_set_new(j, "loops", json_integer(o->loops));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	json_object_set_new(j, "user_s", json_real(r->user_s));
	json_object_set_new(j, "sys_s", json_real(r->sys_s));
	json_object_set_new(j, "pages", json_integer(r->pages));
	json_object_set_new(j, "pages_per_sec", json_real(r->pages_per_sec));
	json_object_set_new(j, "pages_per_sec_per_thread",
			    json_real(r->pages_per_sec / r->threads));

	a = json_array();
	for (i = 0; i < r->nr_memcgs; i++)
		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:f, s:f}",
			"name", r->memcg[i].name,
			"pn_offset128", (json_int_t)r->memcg[i].pn_offset128,
			"pages", (json_int_t)r->memcg[i].pages,
			"seconds", r->memcg[i].seconds,
			"pages_per_sec", r->memcg[i].pages_per_sec));
	json_object_set_new(j, "memcgs", a);

	json_object_set_new(j, "lru_lock_acquisitions_per_1k_pages",
			    json_real(per_1k(r->lru.acquired, r->pages)));
	json_object_set_new(j, "lru_lock_hold_ns_per_page",
			    json_real(r->pages ? (double)r->lru.hold_total_ns / r->pages : 0));
	json_object_set_new(j, "lru_lock_hold_ns_per_acquisition",
			    json_real(r->lru.acquired ?
				      (double)r->lru.hold_total_ns / r->lru.acquired : 0));
	json_object_set_new(j, "lru_lock_acquired", json_integer(r->lru.acquired));
	json_object_set_new(j, "lru_lock_contended", json_integer(r->lru.contended));
	json_object_set_new(j, "lru_lock_wait_total_ns", json_integer(r->lru.wait_total_ns));

	json_object_set_new(j, "locks", sites_json(r));

	if (r->have_profile) {
		const struct lru_hold_profile *p = &r->profile;
		double hold = (double)r->lru.hold_total_ns;

		json_object_set_new(j, "hold_profile", json_pack("{s:f, s:f, s:f, s:f, s:f, s:I}",
			"list_pct", pct(p->ns[LRU_HOLD_LIST], hold),
			"lru_zone_size_pct", pct(p->ns[LRU_HOLD_LRU_SIZE], hold),
			"node_memcg_stat_pct", pct(p->ns[LRU_HOLD_STAT], hold),
			"zone_stat_pct", pct(p->ns[LRU_HOLD_ZONE_STAT], hold),
			"stat_pct", pct(profile_stat_ns(p), hold),
			"deferred_stat_updates", (json_int_t)p->deferred_stat_updates));
		json_object_set_new(j, "lru_lock_stat_hold_pct",
				    json_real(pct(profile_stat_ns(p), hold)));
	}
	json_object_set_new(j, "vmstat", deltas_json(&r->vmstat));
	json_object_set_new(j, "mthp", deltas_json(&r->mthp));
	json_object_set_new(j, "memory_stat", deltas_json(&r->memory_stat));
	json_object_set_new(j, "invariant_violations", json_integer(r->invariant_violations));
	json_object_set_new(j, "invariants_ok", json_boolean(!r->invariant_violations));
	if (r->err)
		json_object_set_new(j, "error", json_string(strerror(-r->err)));
	return j;
}

/* `lrulab bench WORKLOAD [options]` */
int cmd_bench(int argc, char **argv)
{
	const struct bench_workload *w;
	struct bench_opts o;
	int i, ret, status = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc < 2) {
			fprintf(stderr, "lrulab bench: no workload given (" BENCH_WORKLOAD_NAMES ")\n");
			return 2;
		}
		bench_usage(stdout, NULL);
		return 0;
	}
	w = bench_find_workload(argv[1]);
	if (!w) {
		fprintf(stderr, "lrulab bench: unknown workload '%s' (" BENCH_WORKLOAD_NAMES ")\n",
			argv[1]);
		return 2;
	}
	bench_defaults(w, &o);
	ret = bench_parse(w, "lrulab bench", argc - 1, argv + 1, &o);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (w->main)
		return w->main(w, "lrulab bench", &o);

	for (i = 0; i < o.nr_threads; i++) {
		struct bench_result r;
		int err = bench_run(w, &o, o.threads[i], &r);

		if (err) {
			fprintf(stderr, "lrulab bench: cannot set up the model for %ld threads: %s\n",
				o.threads[i], strerror(-err));
			return 1;
		}
		if (o.json) {
			json_t *j = bench_result_json(w, &o, &r);
			char *s = json_dumps(j, JSON_COMPACT);

			printf("%s\n", s);
			free(s);
			json_decref(j);
		} else {
			if (i)
				printf("\n");
			bench_print_text(stdout, w, &o, &r);
		}
		fflush(stdout);
		if (r.err) {
			fprintf(stderr, "lrulab bench: a worker failed: %s\n", strerror(-r.err));
			status = 1;
		}
		if (r.invariant_violations)
			status = 1;
		bench_result_free(&r);
	}
	return status;
}

/* ---- statistics ---- */

u64 bench_rng_next(struct bench_rng *r)
{
	u64 z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_sorted(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_median(const double *v, int n)
{
	double *s, m;

	if (n <= 0)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), double_cmp);
	m = median_sorted(s, n);
	free(s);
	return m;
}

static double resampled_median(const double *v, int n, double *scratch,
			       struct bench_rng *rng)
{
	int i;

	for (i = 0; i < n; i++)
		scratch[i] = v[bench_rng_next(rng) % n];
	qsort(scratch, n, sizeof(*scratch), double_cmp);
	return median_sorted(scratch, n);
}

/* Linear interpolation between order statistics of a sorted sample. */
static double quantile_sorted(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

int bench_ratio_ci(const double *a, int na, const double *b, int nb,
		   int iters, u64 seed, double *lo, double *hi)
{
	struct bench_rng rng = { seed };
	double *ratios, *scratch;
	int i, err = 0;

	if (na <= 0 || nb <= 0 || iters <= 0)
		return -EINVAL;
	ratios = malloc(iters * sizeof(*ratios));
	scratch = malloc((na > nb ? na : nb) * sizeof(*scratch));
	if (!ratios || !scratch) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < iters; i++) {
		double ma = resampled_median(a, na, scratch, &rng);
		double mb = resampled_median(b, nb, scratch, &rng);

		if (ma == 0) {
			err = -EINVAL;
			goto out;
		}
		ratios[i] = mb / ma;
	}
	qsort(ratios, iters, sizeof(*ratios), double_cmp);
	*lo = quantile_sorted(ratios, iters, 0.025);
	*hi = quantile_sorted(ratios, iters, 0.975);
out:
	free(ratios);
	free(scratch);
	return err;
}

/* ---- runs in fresh processes ---- */

const char *bench_self_exe(void)
{
	static char path[4096];
	ssize_t n;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		snprintf(path, sizeof(path), "lrulab");
	else
		path[n] = '\0';
	return path;
}

double bench_json_number(json_t *run, const char *key)
{
	json_t *v = json_object_get(run, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * fork + exec @argv with stdout into a pipe; the child's stderr stays
 * ours, so its own error lines reach the user.  Returns the wait status
 * or -1, and the whole stdout in *@out (to free).
 */
static int run_capture(char *const *argv, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int pfd[2], status;
	pid_t pid;
	ssize_t n;

	*out = NULL;
	if (!buf || pipe(pfd)) {
		free(buf);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		free(buf);
		return -1;
	}
	if (!pid) {
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(pfd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			free(buf);
			return -1;
		}
	*out = buf;
	return status;
}

/* The last line of @text that is a JSON object. */
static json_t *last_json_object(char *text)
{
	char *line, *save = NULL;
	json_t *last = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *j;

		if (line[0] != '{')
			continue;
		j = json_loads(line, 0, NULL);
		if (json_is_object(j)) {
			json_decref(last);
			last = j;
		} else {
			json_decref(j);
		}
	}
	return last;
}

static void config_text(const struct bench_config *c, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < c->nargs && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "", c->args[i]);
}

int bench_collect(const char *prog, const struct bench_config *cfg, int ncfg,
		  int argc, char *const *argv, int reps, json_t ***out,
		  FILE *progress)
{
	int c, r, i, n;
	char **cmd;

	for (c = 0; c < ncfg; c++) {
		if (access(cfg[c].bin, X_OK)) {
			fprintf(stderr, "%s: cannot run %s: %s\n", prog, cfg[c].bin,
				strerror(errno));
			return -1;
		}
		out[c] = calloc(reps, sizeof(json_t *));
		if (!out[c]) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return -1;
		}
	}
	cmd = calloc(argc + BENCH_MAX_CONFIG_ARGS + 4, sizeof(char *));
	if (!cmd) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	for (r = 0; r < reps; r++) {
		for (c = 0; c < ncfg; c++) {
			char *text, args[256];
			int status;

			n = 0;
			cmd[n++] = (char *)cfg[c].bin;
			cmd[n++] = "bench";
			for (i = 0; i < argc; i++)
				cmd[n++] = argv[i];
			for (i = 0; i < cfg[c].nargs; i++)
				cmd[n++] = (char *)cfg[c].args[i];
			cmd[n++] = "--json";
			cmd[n] = NULL;
			status = run_capture(cmd, &text);
			if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
				config_text(&cfg[c], args, sizeof(args));
				fprintf(stderr, "%s: run %d of %s (%s %s) failed: %s %d\n", prog,
					r + 1, cfg[c].label, cfg[c].bin, args,
					status >= 0 && WIFSIGNALED(status) ? "signal" : "exit",
					status < 0 ? -1 : WIFSIGNALED(status) ? WTERMSIG(status) :
					WEXITSTATUS(status));
				free(text);
				free(cmd);
				return -1;
			}
			out[c][r] = last_json_object(text);
			free(text);
			if (!out[c][r]) {
				fprintf(stderr, "%s: run %d of %s printed no JSON object\n", prog,
					r + 1, cfg[c].label);
				free(cmd);
				return -1;
			}
			if (progress) {
				fputc('.', progress);
				fflush(progress);
			}
		}
	}
	if (progress)
		fprintf(progress, "\n");
	free(cmd);
	return 0;
}

void bench_machine_describe(char *buf, size_t len)
{
	char model[128] = "unknown processor", line[256];
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (strncmp(line, "model name", 10) || !colon)
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(model, sizeof(model), "%s", colon);
			break;
		}
		fclose(f);
	}
	lrulab_clock_init();
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	snprintf(buf, len, "%s, %d processors, Linux %s, clock %s", model,
		 lrulab_nr_processors(), u.release, lrulab_clock_source());
}
