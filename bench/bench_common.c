// SPDX-License-Identifier: MIT
/*
 * The harness every workload runs in: one run, N threads pinned as model
 * CPUs in fresh memcgs, the lock statistics and the vmstat, memory.stat
 * and mTHP deltas it collects.  Its options are parsed in
 * bench_options.c, what a run prints is in bench_report.c, medians and
 * runs in fresh processes for the A/B harness in bench_stats.c; the
 * workloads' passes are in fault_free.c, mmap_madvise.c and usemem.c.
 */
/* sem_clockwait(), which waits on CLOCK_MONOTONIC as the rest of the run */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/host.h"
#include <lrulab/lru_gen_debugfs.h>
#include <lrulab/workqueue.h>

#define BENCH_MIN_NODE_PAGES (1UL << 20)	/* 4 GiB of 4 KiB pages */

/*
 * The least the node has: 4 GiB, or --node-mem.  Its size sets the
 * watermarks, and with them how much the per-CPU page lists keep
 * (pcp->high_min) before high-order frees go back to the buddy, so a
 * run compared with a machine is given that machine's memory.
 */
static unsigned long bench_node_floor(const struct bench_opts *o)
{
	return o->node_mem ? o->node_mem / PAGE_SIZE : BENCH_MIN_NODE_PAGES;
}

/* ---- the machine's memory ---- */

static void fmt_gib(char *buf, size_t len, unsigned long long bytes)
{
	if (bytes >= 1ULL << 30 && !(bytes & ((1ULL << 30) - 1)))
		snprintf(buf, len, "%lluG", bytes >> 30);
	else if (bytes >= 1ULL << 30)
		snprintf(buf, len, "%.1fG", bytes / (double)(1ULL << 30));
	else
		snprintf(buf, len, "%lluM", bytes >> 20);
}

/*
 * --vma own: a PROT_NONE page after the thread's anonymous range, as a
 * program that keeps its threads' ranges apart maps, so that each is a
 * VMA of its own and its refcount line the thread's.
 */
int bench_vma_guard(struct bench_thread *t)
{
	if (t->o->vma_own && !do_mmap_guard(t->mm, PAGE_SIZE))
		return -errno;
	return 0;
}

/*
 * The model's memory is real: every page of the working set a thread
 * touches is a page of the arena (or, with usemem, of the swap store,
 * counted uncompressed), and every page of the node has a 64-byte entry
 * in the folio array; a node is never under 4 GiB (or --node-mem).  A run that needs
 * more than the machine has available would swap or be OOM-killed
 * half-way, so it is refused before anything is allocated.
 */
int bench_check_memory(const char *prog, const struct bench_opts *o)
{
	unsigned long long need, ws, node, avail = host_mem_available();
	const char *src = "MemAvailable in /proc/meminfo";
	char n[24], a[24], m[24];
	long most = 0;
	int i;

	for (i = 0; i < o->nr_threads; i++)
		most = o->threads[i] > most ? o->threads[i] : most;
	if (!avail) {
		avail = (unsigned long long)sysconf(_SC_AVPHYS_PAGES) *
			(unsigned long long)sysconf(_SC_PAGESIZE);
		src = "free memory, sysconf(_SC_AVPHYS_PAGES)";
	}
	/* mglru-age's processes (--procs) all map one file of --mem */
	ws = o->nr_procs ? o->mem : (unsigned long long)most * o->mem;
	node = bench_node_floor(o) * PAGE_SIZE;
	node = ws > node ? ws : node;
	need = ws + node / PAGE_SIZE * 64;
	if (!avail || need <= avail)
		return 0;
	fmt_gib(n, sizeof(n), need);
	fmt_gib(a, sizeof(a), avail);
	fmt_gib(m, sizeof(m), o->mem);
	if (o->nr_procs)
		fprintf(stderr, "%s: --mem %s needs %s (the file and the model's page entries), more than the %s this machine has available (%s)\n",
			prog, m, n, a, src);
	else
		fprintf(stderr, "%s: --threads %ld x --mem %s needs %s (the working set and the model's page entries), more than the %s this machine has available (%s)\n",
			prog, most, m, n, a, src);
	return -1;
}

/* ---- one run ---- */

struct bench_phase {
	pthread_barrier_t start;
	int stop;
	int done;		/* workers past their last pass */
	long loops;		/* > 0: passes per thread; 0: until stop */
	/* a post per worker out of its passes, and one for a signal */
	sem_t wake;
};

struct bench_worker {
	pthread_t tid;
	struct bench_thread t;
	const struct bench_workload *w;
	struct bench_phase *ph;
	unsigned long pages_done;
	u64 start_ns, end_ns;
	int err;
	bool entered;
};

static void *bench_worker_fn(void *arg)
{
	struct bench_worker *bw = arg;
	struct bench_phase *ph = bw->ph;
	bool entered;
	long n;

	bw->err = cpu_enter(bw->t.cpu, true);
	entered = !bw->err;
	bw->entered = entered;
	if (entered) {
		/* every thread's count is in before any thread leaves: the barrier */
		__atomic_fetch_add(&bw->t.proc->users, 1, __ATOMIC_RELAXED);
		bw->t.mm = bw->t.proc->mm;
		bw->err = bw->w->setup(&bw->t);
	}
	/* everyone meets the barrier, failed or not, or the others hang */
	barrier_wait_sleep(&ph->start);
	bw->start_ns = lrulab_now_ns();
	for (n = 0; !bw->err; n++) {
		if ((ph->loops && n >= ph->loops) ||
		    __atomic_load_n(&ph->stop, __ATOMIC_ACQUIRE))
			break;
		bw->t.done = 0;
		bw->err = bw->w->pass(&bw->t);
		if (!bw->err)
			bw->pages_done += bw->t.done;
	}
	bw->end_ns = lrulab_now_ns();
	__atomic_fetch_add(&ph->done, 1, __ATOMIC_RELEASE);
	sem_post(&ph->wake);
	if (entered) {
		bw->w->teardown(&bw->t);
		/* exit_mmap(), by the process's last thread, on its model CPU */
		if (!__atomic_sub_fetch(&bw->t.proc->users, 1, __ATOMIC_ACQ_REL))
			mmput(bw->t.proc->mm);
		lru_add_drain();
		cpu_exit();
	}
	return NULL;
}

/*
 * --drain-all-us: this thread, no model CPU, drains every CPU's batches
 * that often while the workers run, as the kernel's split, long-term pin
 * and reuse paths do with s4 (the cost its review argued about), until
 * @seconds are up or every worker is done.
 */
static void drain_all_until(struct bench_phase *ph, long threads, double seconds,
			    long every_us)
{
	struct timespec ts = { every_us / 1000000, (every_us % 1000000) * 1000 };
	u64 end = lrulab_now_ns() + (u64)(seconds * 1e9);

	for (;;) {
		/* the warm-up has both: a pass each, within its share of the run */
		if (__atomic_load_n(&ph->done, __ATOMIC_ACQUIRE) >= threads ||
		    (seconds > 0 && lrulab_now_ns() >= end) ||
		    __atomic_load_n(&ph->stop, __ATOMIC_ACQUIRE))
			break;
		lru_add_drain_all();
		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&ph->stop, 1, __ATOMIC_RELEASE);
}

/*
 * One memcg's share of a run: every thread sets up, meets the others,
 * runs its passes and tears down.  @loops passes each, or as many as fit
 * in @seconds; with both, whichever ends first (the warm-up's whole pass
 * may not outlast the run).  The clock runs from the first thread past
 * the barrier to the last thread's last pass, both as the workers saw
 * them: a short run can be over before this thread is scheduled again.
 * SIGINT and SIGTERM end it as the end of @seconds does (bench_signal.c).
 * Returns the first worker error.
 */
static int bench_phase(const struct bench_workload *w, const struct bench_opts *o,
		       long threads, struct mem_cgroup *memcg, long loops,
		       double seconds, unsigned long *pages, double *secs)
{
	struct bench_worker *bw = calloc(threads, sizeof(*bw));
	struct bench_phase ph = { .loops = loops };
	struct bench_process proc = { .mm = mm_alloc(memcg) };
	u64 start = ~0ULL, end = 0;
	int i, err = 0;
	long left;

	if (!bw || !proc.mm) {
		free(bw);
		if (proc.mm)
			mmput(proc.mm);
		return -ENOMEM;
	}
	pthread_barrier_init(&ph.start, NULL, (unsigned int)threads + 1);
	sem_init(&ph.wake, 0, 0);
	bench_signals_phase(&ph.stop, &ph.wake);
	for (i = 0; i < threads; i++) {
		bw[i].w = w;
		bw[i].ph = &ph;
		bw[i].t = (struct bench_thread){
			.cpu = i, .o = o, .memcg = memcg, .proc = &proc,
			.pages = o->mem / PAGE_SIZE, .stop = &ph.stop,
		};
		if (pthread_create(&bw[i].tid, NULL, bench_worker_fn, &bw[i])) {
			fprintf(stderr, "lrulab bench: cannot start thread %d\n", i);
			abort();
		}
	}
	barrier_wait_sleep(&ph.start);
	if (o->drain_all_us) {
		drain_all_until(&ph, threads, seconds, o->drain_all_us);
	} else if (seconds > 0) {
		struct timespec ts;
		u64 ns = (u64)(seconds * 1e9);

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ns += (u64)ts.tv_nsec;
		ts.tv_sec += (time_t)(ns / 1000000000);
		ts.tv_nsec = (long)(ns % 1000000000);
		for (left = threads; left > 0 && !bench_interrupted; ) {
			if (!sem_clockwait(&ph.wake, CLOCK_MONOTONIC, &ts))
				left--;
			else if (errno != EINTR)
				break;
		}
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
	/* no thread got as far as a model CPU: nothing was mapped */
	for (i = 0; i < threads && !bw[i].entered; i++)
		;
	if (i == threads)
		mmput(proc.mm);
	*secs = end > start ? (end - start) / 1e9 : 0;
	bench_signals_phase(NULL, NULL);
	pthread_barrier_destroy(&ph.start);
	sem_destroy(&ph.wake);
	free(bw);
	return err;
}

/* "name value" lines (vmstat, memory.stat) into @d, in file order. */
void bench_deltas_parse(struct bench_deltas *d, char *text)
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

void bench_deltas_capture(struct bench_deltas *d, void (*show)(void *, FILE *), void *arg)
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
	bench_deltas_parse(d, buf);
	free(buf);
}

/* @acc += @after - @before, by name; @acc may start empty. */
void bench_deltas_accumulate(struct bench_deltas *acc,
			     const struct bench_deltas *before,
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

void bench_json_line(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);

	printf("%s\n", s ? s : "{}");
	free(s);
}

void bench_deltas_free(struct bench_deltas *d)
{
	free(d->d);
	d->d = NULL;
	d->nr = 0;
}

void bench_show_vmstat(void *arg, FILE *f)
{
	vmstat_refresh();
	vmstat_show(f);
}

/* memory.stat after a full flush: the kernel's reader may lag a batch */
void bench_show_memory_stat(void *arg, FILE *f)
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

int bench_site_cmp(const void *a, const void *b)
{
	const struct bench_site_result *sa = a, *sb = b;

	if (sa->st.wait_total_ns != sb->st.wait_total_ns)
		return sa->st.wait_total_ns > sb->st.wait_total_ns ? -1 : 1;
	if (sa->st.acquired != sb->st.acquired)
		return sa->st.acquired > sb->st.acquired ? -1 : 1;
	return strcmp(sa->name, sb->name);
}

void bench_collect_sites(struct bench_result *r)
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
		snprintf(s->fn, sizeof(s->fn), "%s", site->fn);
		lock_site_name(site->caller, site->fn, s->name, sizeof(s->name));
		r->nr_sites++;
	}
	qsort(r->sites, r->nr_sites, sizeof(*r->sites), bench_site_cmp);
	lockstat_read_class("lru_lock", &r->lru);
	r->spin_yield = READ_ONCE(lrulab_spin_yield);
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
	struct lru_drain_stats drains0;
	struct mem_cgroup *memcg;
	struct rusage ru0, ru1;
	double rate_sum = 0;
	int m, err;

	memset(r, 0, sizeof(*r));
	r->threads = threads;
	r->cpus = lrulab_nr_processors();

	apply_switches(o);
	if (o->profile_hold)
		lru_hold_profile_start();
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
	if (cfg.node_pages < bench_node_floor(o))
		cfg.node_pages = (bench_node_floor(o) + span - 1) / span * span;
	r->node_pages = cfg.node_pages;
	cfg.lock = o->lock;
	/* the hold profile divides by every hold, so every hold is timed */
	cfg.lockstat = o->profile_hold ? LOCKSTAT_FULL : LOCKSTAT_SAMPLED;
	/* the kernel's periodic rstat flush, which reclaim's ratelimited flush relies on */
	cfg.memcg_flush_ms = o->flush_ms >= 0 ? (unsigned int)o->flush_ms : FLUSH_TIME_MS;
	cfg.lru_gen = bench_lru_gen_caps(o);
	err = lrulab_init(&cfg);
	if (err) {
		lru_hold_profile_stop();
		lrulab_switches_clear();
		return err;
	}
	fault_extra_ns = o->fault_work_ns;
	r->oversubscribed = lrulab_oversubscribed();
	memcpy(r->switches, lrulab_switches, sizeof(r->switches));

	/*
	 * A pass the clock does not see: the arena's first touch is the host
	 * kernel's page faults, not the model's, and would land on the first
	 * memcg only.  At most one memcg's share of --seconds: with many more
	 * threads than processors one pass each takes longer than the whole
	 * run, and the rest of the first touch falls in the measured passes.
	 */
	memcg = mem_cgroup_create(root_mem_cgroup, "bench-warmup");
	if (!memcg) {
		err = -errno;
		goto out;
	}
	err = bench_phase(w, o, threads, memcg, 1, o->loops ? 0 : o->seconds / o->memcgs,
			  &r->pages, &r->seconds);
	mem_cgroup_offline(memcg);
	if (err)
		goto out;
	r->pages = 0;
	r->seconds = 0;

	bench_deltas_capture(&vm_before, bench_show_vmstat, NULL);
	bench_deltas_capture(&mthp_before, show_mthp, NULL);
	lockstat_reset();
	lru_hold_profile_reset();
	lru_drain_stats_read(&drains0);
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
		bench_deltas_capture(&ms_before, bench_show_memory_stat, memcg);
		err = bench_phase(w, o, threads, memcg, o->loops,
				  o->loops ? 0 : o->seconds / o->memcgs,
				  &mr->pages, &mr->seconds);
		bench_deltas_capture(&ms_after, bench_show_memory_stat, memcg);
		bench_deltas_accumulate(&r->memory_stat, &ms_before, &ms_after);
		bench_deltas_free(&ms_before);
		bench_deltas_free(&ms_after);
		mem_cgroup_offline(memcg);
		mr->pages_per_sec = mr->seconds > 0 ? mr->pages / mr->seconds : 0;
		r->pages += mr->pages;
		r->seconds += mr->seconds;
		rate_sum += mr->pages_per_sec;
		r->nr_memcgs++;
		if (err || bench_interrupted)
			break;
	}
	r->interrupted = bench_interrupted;
	getrusage(RUSAGE_SELF, &ru1);
	lru_drain_stats_read(&r->drains);
	r->drains.local -= drains0.local;
	r->drains.all -= drains0.all;
	r->drains.all_ns -= drains0.all_ns;
	r->drains.all_works -= drains0.all_works;
	r->user_s = tv_sec(ru1.ru_utime) - tv_sec(ru0.ru_utime);
	r->sys_s = tv_sec(ru1.ru_stime) - tv_sec(ru0.ru_stime);
	r->pages_per_sec = r->nr_memcgs ? rate_sum / r->nr_memcgs : 0;

	/* stats must equal list lengths once every batch is drained */
	r->invariant_violations = lrulab_check_invariants(true, stderr);
	bench_collect_sites(r);
	if (o->profile_hold) {
		lru_hold_profile_read(&r->profile);
		r->have_profile = true;
	}
	bench_deltas_capture(&tmp, bench_show_vmstat, NULL);
	bench_deltas_accumulate(&r->vmstat, &vm_before, &tmp);
	bench_deltas_free(&tmp);
	bench_deltas_capture(&tmp, show_mthp, NULL);
	bench_deltas_accumulate(&r->mthp, &mthp_before, &tmp);
	bench_deltas_free(&tmp);
	bench_deltas_free(&vm_before);
	bench_deltas_free(&mthp_before);
out:
	r->err = err;
	r->lru_gen_show = bench_show_capture(o);
	lrulab_exit();
	/* a later run, or a test, starts from the kernel before every patch */
	lru_hold_profile_stop();
	lrulab_switches_clear();
	fault_extra_ns = 0;
	return 0;
}

char *bench_show_capture(const struct bench_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (o->show < 0)
		return NULL;
	f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	lru_gen_seq_show(f, o->show == 1);
	fclose(f);
	return text;
}

void bench_show_print(const struct bench_opts *o, char *text)
{
	FILE *f = o->json ? stderr : stdout;

	if (o->show < 0)
		return;
	fprintf(f, "\n%s:\n%s", o->show ? "lru_gen_full" : "lru_gen", text ? text : "");
	fflush(f);
	free(text);
}

void bench_result_free(struct bench_result *r)
{
	free(r->lru_gen_show);
	r->lru_gen_show = NULL;
	free(r->sites);
	r->sites = NULL;
	bench_deltas_free(&r->vmstat);
	bench_deltas_free(&r->memory_stat);
	bench_deltas_free(&r->mthp);
}

/* ---- the recorder --record goes through ---- */

static const struct bench_recorder *recorder;

void bench_recorder_register(const struct bench_recorder *r)
{
	recorder = r;
}

const struct bench_recorder *bench_recorder_get(const char *prog)
{
	if (!recorder)
		fprintf(stderr, "%s: --record: this build has no recorder\n", prog);
	return recorder;
}
