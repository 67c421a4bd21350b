// SPDX-License-Identifier: MIT
/*
 * `lrulab host WORKLOAD`: a workload of `lrulab bench` run on this
 * machine's own kernel with real system calls, reported in the same text
 * shape and JSON keys, marked "engine": "host-kernel".  It is the other
 * side of every calibration: the model's per-fault cost (--calibrate),
 * its scaling and its lock tables (--perf-lock) are only as right as
 * their match with a real kernel doing the same thing.
 *
 * fault-free: every thread, pinned to its processor, writes one byte to
 * each 4 KiB page of its region and frees the region again, over and
 * over, as `lrulab bench fault-free` does in the model: private
 * anonymous memory freed by madvise(MADV_DONTNEED), or shmem: a memfd
 * whose hole is punched by fallocate(PUNCH_HOLE).  The kernel's per-size
 * shmem mTHP settings apply only to anonymous shared memory, not to
 * memfd files, so shmem with large folios maps MAP_SHARED|MAP_ANONYMOUS
 * and punches with madvise(MADV_REMOVE), the same shmem_fallocate().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "tools/commands.h"
#include "bench/host.h"
#include "tools/options.h"
#include "tools/parse.h"

/* Regions start on a PMD boundary, so every folio size is aligned. */
#define HOST_REGION_ALIGN	(2UL << 20)

struct host_workload {
	const char *name;
	/* parse @argv (argv[0] is the workload's name), run, report */
	int (*main)(const char *prog, int argc, char **argv);
};

static int fault_free_main(const char *prog, int argc, char **argv);

static const struct host_workload host_workloads[] = {
	{ "fault-free", fault_free_main },
	{ "usemem", host_usemem_main },
	{ "replay", host_replay_main },
};

#define HOST_WORKLOAD_NAMES "fault-free, usemem, replay"

/* ---- one run ---- */

struct host_phase {
	pthread_barrier_t ready;	/* set up and warmed: counters are read */
	pthread_barrier_t go;		/* the clock starts */
	int stop;
};

struct host_worker {
	pthread_t tid;
	int index;
	const struct host_opts *o;
	struct host_phase *ph;
	char *region;
	unsigned long mapped;	/* the region and the slack kept above it */
	int memfd;
	unsigned long pages, warmup_pages;
	u64 start_ns, end_ns;
	int err;
	const char *failed;
};

static u64 host_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int worker_fail(struct host_worker *hw, const char *call)
{
	hw->err = -errno;
	hw->failed = call;
	return hw->err;
}

/*
 * The region at a HOST_REGION_ALIGN boundary: a PROT_NONE reservation
 * with slack, the real mapping MAP_FIXED over its aligned part (so a
 * shared mapping's file offset 0 is aligned too), the slack unmapped.
 */
static int region_map(struct host_worker *hw)
{
	unsigned long len = hw->o->mem, span = len + HOST_REGION_ALIGN;
	int flags = MAP_FIXED, fd = -1;
	char *res, *start;

	res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return worker_fail(hw, "mmap");
	start = (char *)(((unsigned long)res + HOST_REGION_ALIGN - 1) & ~(HOST_REGION_ALIGN - 1));
	if (!hw->o->shmem) {
		flags |= MAP_PRIVATE | MAP_ANONYMOUS;
	} else if (!hw->o->folio_order) {
		hw->memfd = memfd_create("lrulab-host", MFD_CLOEXEC);
		if (hw->memfd < 0 || ftruncate(hw->memfd, (off_t)len)) {
			munmap(res, span);
			return worker_fail(hw, hw->memfd < 0 ? "memfd_create" : "ftruncate");
		}
		flags |= MAP_SHARED;
		fd = hw->memfd;
	} else {
		flags |= MAP_SHARED | MAP_ANONYMOUS;
	}
	if (mmap(start, len, PROT_READ | PROT_WRITE, flags, fd, 0) == MAP_FAILED) {
		munmap(res, span);
		return worker_fail(hw, "mmap");
	}
	if (start > res)
		munmap(res, start - res);
	/*
	 * A region of anon memory with another's right after it would merge
	 * into one VMA: --vma own keeps the PROT_NONE slack above it, which
	 * never merges with a writable mapping.
	 */
	hw->mapped = len;
	if (res + span > start + len) {
		if (hw->o->shmem || !hw->o->vma_own)
			munmap(start + len, res + span - (start + len));
		else
			hw->mapped = res + span - start;
	}
	hw->region = start;
	/* 4K folios whatever the THP settings say; larger ones as prepared */
	if (!hw->o->folio_order && madvise(start, len, MADV_NOHUGEPAGE))
		return worker_fail(hw, "madvise(MADV_NOHUGEPAGE)");
	return 0;
}

/*
 * Anon's regions one after another in one mapping, as lrulab's fault-free
 * lays out its threads': the kernel keeps them one VMA, whose refcount
 * line every thread's every fault takes and drops (a shmem file's mapping
 * is a VMA of its own).  Mapped before the workers start, so no fault
 * comes between two of them.
 */
static int anon_regions_map(struct host_worker *hw, long threads, const struct host_opts *o,
			    const char **failed)
{
	unsigned long len = o->mem * (unsigned long)threads, span = len + HOST_REGION_ALIGN;
	char *res, *start;
	long i;

	res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	*failed = "mmap";
	if (res == MAP_FAILED)
		return -errno;
	start = (char *)(((unsigned long)res + HOST_REGION_ALIGN - 1) & ~(HOST_REGION_ALIGN - 1));
	if (mmap(start, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0) == MAP_FAILED) {
		int err = -errno;

		munmap(res, span);
		return err;
	}
	if (start > res)
		munmap(res, start - res);
	if (res + span > start + len)
		munmap(start + len, res + span - (start + len));
	*failed = "madvise(MADV_NOHUGEPAGE)";
	if (!o->folio_order && madvise(start, len, MADV_NOHUGEPAGE)) {
		int err = -errno;

		munmap(start, len);
		return err;
	}
	for (i = 0; i < threads; i++) {
		hw[i].region = start + i * o->mem;
		hw[i].mapped = o->mem;
	}
	return 0;
}

static void region_unmap(struct host_worker *hw)
{
	if (hw->region)
		munmap(hw->region, hw->mapped);
	if (hw->memfd >= 0)
		close(hw->memfd);
	hw->region = NULL;
	hw->memfd = -1;
}

/* One pass: a write to every 4 KiB page (a fault per folio), then free. */
static int host_pass(struct host_worker *hw)
{
	unsigned long off, len = hw->o->mem;
	volatile char *p = hw->region;

	for (off = 0; off < len; off += PAGE_SIZE)
		p[off] = 0x55;
	if (!hw->o->shmem) {
		if (madvise(hw->region, len, MADV_DONTNEED))
			return worker_fail(hw, "madvise(MADV_DONTNEED)");
	} else if (hw->memfd >= 0) {
		if (fallocate(hw->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)len))
			return worker_fail(hw, "fallocate(FALLOC_FL_PUNCH_HOLE)");
	} else {
		if (madvise(hw->region, len, MADV_REMOVE))
			return worker_fail(hw, "madvise(MADV_REMOVE)");
	}
	return 0;
}

/*
 * Everyone meets both barriers, failed or not, or the others hang.  The
 * warm-up pass takes the first-touch costs (page tables, the memfd's
 * xarray nodes) out of the timed passes, as the model's warm-up does.
 */
static void *host_worker_fn(void *arg)
{
	struct host_worker *hw = arg;
	struct host_phase *ph = hw->ph;
	unsigned long pages = hw->o->mem / PAGE_SIZE;
	int err = host_pin(hw->index);

	if (err) {
		errno = -err;
		worker_fail(hw, "pthread_setaffinity_np");
	}
	if (!hw->err && (hw->region || !region_map(hw)) && !host_pass(hw))
		hw->warmup_pages = pages;
	pthread_barrier_wait(&ph->ready);
	pthread_barrier_wait(&ph->go);
	hw->start_ns = host_now_ns();
	/*
	 * One pass at least: on a busy machine a thread may first run after
	 * a short --seconds is over, and would measure nothing (calibration's
	 * 0.02 s runs did, at a load of 20 on 2 processors).
	 */
	while (!hw->err) {
		if (!host_pass(hw))
			hw->pages += pages;
		if (__atomic_load_n(&ph->stop, __ATOMIC_ACQUIRE))
			break;
	}
	hw->end_ns = host_now_ns();
	return NULL;
}

/*
 * The VMAs the threads' regions lie in, as /proc/self/maps lists them
 * while the threads run: one for anon's shared layout, one a thread
 * with --vma own (a neighbour that merged in, a thread's stack, counts
 * no more); -1 where the file cannot be read.
 */
static int region_vmas(const struct host_worker *hw, long threads)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char line[512];
	int n = 0;
	long i;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		for (i = 0; i < threads; i++) {
			unsigned long s = (unsigned long)hw[i].region, e = s + hw[i].o->mem;

			if (hw[i].region && s < hi && e > lo) {
				n++;
				break;
			}
		}
	}
	fclose(f);
	return n;
}

static double tv_sec(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

static void deltas_since(struct bench_deltas *out, const struct bench_deltas *before,
			 void (*read)(struct bench_deltas *))
{
	struct bench_deltas after;

	read(&after);
	bench_deltas_accumulate(out, before, &after);
	bench_deltas_free(&after);
}

int host_fault_free_run(const struct host_opts *o, long threads, struct host_result *r)
{
	struct host_worker *hw = calloc(threads, sizeof(*hw));
	struct timespec ts = {
		.tv_sec = (time_t)o->seconds,
		.tv_nsec = (long)((o->seconds - (time_t)o->seconds) * 1e9),
	};
	struct bench_deltas vm_before, mthp_before;
	struct host_phase ph = { .stop = 0 };
	u64 start = ~0ULL, end = 0;
	struct rusage ru0, ru1;
	long i;

	memset(r, 0, sizeof(*r));
	if (!hw)
		return -ENOMEM;
	r->threads = threads;
	r->cpus = lrulab_nr_processors();
	r->oversubscribed = threads > r->cpus;
	for (i = 0; i < threads; i++)
		hw[i] = (struct host_worker){ .index = (int)i, .o = o, .ph = &ph, .memfd = -1 };
	if (!o->shmem && !o->vma_own) {
		r->err = anon_regions_map(hw, threads, o, &r->failed);
		if (r->err) {
			free(hw);
			return 0;
		}
	}
	pthread_barrier_init(&ph.ready, NULL, (unsigned int)threads + 1);
	pthread_barrier_init(&ph.go, NULL, (unsigned int)threads + 1);
	for (i = 0; i < threads; i++) {
		if (pthread_create(&hw[i].tid, NULL, host_worker_fn, &hw[i])) {
			fprintf(stderr, "lrulab host: cannot start thread %ld\n", i);
			abort();
		}
	}
	pthread_barrier_wait(&ph.ready);
	r->vmas = region_vmas(hw, threads);
	host_read_vmstat(&vm_before);
	host_read_mthp(&mthp_before);
	getrusage(RUSAGE_SELF, &ru0);
	pthread_barrier_wait(&ph.go);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	__atomic_store_n(&ph.stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < threads; i++)
		pthread_join(hw[i].tid, NULL);
	getrusage(RUSAGE_SELF, &ru1);
	deltas_since(&r->vmstat, &vm_before, host_read_vmstat);
	deltas_since(&r->mthp, &mthp_before, host_read_mthp);
	bench_deltas_free(&vm_before);
	bench_deltas_free(&mthp_before);

	for (i = 0; i < threads; i++) {
		r->pages += hw[i].pages;
		r->warmup_pages += hw[i].warmup_pages;
		if (hw[i].start_ns < start)
			start = hw[i].start_ns;
		if (hw[i].end_ns > end)
			end = hw[i].end_ns;
		if (hw[i].err && !r->err) {
			r->err = hw[i].err;
			r->failed = hw[i].failed;
		}
		region_unmap(&hw[i]);
	}
	r->seconds = end > start ? (end - start) / 1e9 : 0;
	r->pages_per_sec = r->seconds > 0 ? r->pages / r->seconds : 0;
	r->user_s = tv_sec(ru1.ru_utime) - tv_sec(ru0.ru_utime);
	r->sys_s = tv_sec(ru1.ru_stime) - tv_sec(ru0.ru_stime);
	pthread_barrier_destroy(&ph.ready);
	pthread_barrier_destroy(&ph.go);
	free(hw);
	return 0;
}

void host_result_free(struct host_result *r)
{
	bench_deltas_free(&r->vmstat);
	bench_deltas_free(&r->mthp);
}

/* ---- output ---- */

static const char *host_kernel(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	return u.release;
}

static const char *host_backing(const struct host_opts *o)
{
	if (!o->shmem)
		return "private anonymous memory, freed by madvise(MADV_DONTNEED)";
	if (!o->folio_order)
		return "a memfd, mapped shared, hole punched by fallocate(PUNCH_HOLE)";
	return "anonymous shared memory, hole punched by madvise(MADV_REMOVE)";
}

static void host_print_text(FILE *f, const struct host_opts *o, const struct host_result *r)
{
	fprintf(f, "lrulab host fault-free: engine host-kernel (Linux %s), %s, %ld thread%s on %d processor%s, %lu%s each, %luK folios, %.2f s\n",
		host_kernel(), o->shmem ? "shmem" : "anon", r->threads,
		r->threads == 1 ? "" : "s", r->cpus, r->cpus == 1 ? "" : "s",
		o->mem % (1UL << 20) ? o->mem >> 10 : o->mem >> 20,
		o->mem % (1UL << 20) ? "K" : "M", (PAGE_SIZE << o->folio_order) >> 10,
		o->seconds);
	fprintf(f, "each thread pinned to a processor writes every page of %s\n",
		host_backing(o));
	if (r->oversubscribed)
		fprintf(f, "OVERSUBSCRIBED: %ld threads on %d processor%s: threads take turns on a processor, so pages/s per thread means little\n",
			r->threads, r->cpus, r->cpus == 1 ? "" : "s");
	if (r->err)
		fprintf(f, "a worker failed: %s: %s\n", r->failed, strerror(-r->err));
	fprintf(f, "\npages faulted and freed: %lu in %.3f s: %.0f pages/s, %.0f per thread\n",
		r->pages, r->seconds, r->pages_per_sec, r->pages_per_sec / r->threads);
	fprintf(f, "real %.3fs  user %.3fs  sys %.3fs\n", r->seconds, r->user_s, r->sys_s);
	bench_print_deltas(f, "vmstat deltas (the whole machine)", &r->vmstat);
	bench_print_deltas(f, "mTHP counter deltas (the whole machine)", &r->mthp);
}

json_t *host_result_json(const struct host_opts *o, const struct host_result *r)
{
	json_t *j = json_object();

	json_object_set_new(j, "engine", json_string("host-kernel"));
	json_object_set_new(j, "kernel", json_string(host_kernel()));
	json_object_set_new(j, "workload", json_string("fault-free"));
	json_object_set_new(j, "type", json_string(o->shmem ? "shmem" : "anon"));
	if (!o->shmem)
		json_object_set_new(j, "vma", json_string(o->vma_own ? "own" : "shared"));
	json_object_set_new(j, "vmas", json_integer(r->vmas));
	json_object_set_new(j, "backing", json_string(host_backing(o)));
	json_object_set_new(j, "threads", json_integer(r->threads));
	json_object_set_new(j, "cpus", json_integer(r->cpus));
	json_object_set_new(j, "oversubscribed", json_boolean(r->oversubscribed));
	json_object_set_new(j, "folio_size", json_integer(PAGE_SIZE << o->folio_order));
	json_object_set_new(j, "mem_per_thread", json_integer(o->mem));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	json_object_set_new(j, "user_s", json_real(r->user_s));
	json_object_set_new(j, "sys_s", json_real(r->sys_s));
	json_object_set_new(j, "pages", json_integer(r->pages));
	json_object_set_new(j, "warmup_pages", json_integer(r->warmup_pages));
	json_object_set_new(j, "pages_per_sec", json_real(r->pages_per_sec));
	json_object_set_new(j, "pages_per_sec_per_thread",
			    json_real(r->pages_per_sec / r->threads));
	json_object_set_new(j, "vmstat", bench_deltas_json(&r->vmstat));
	json_object_set_new(j, "mthp", bench_deltas_json(&r->mthp));
	if (r->err) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%s: %s", r->failed, strerror(-r->err));
		json_object_set_new(j, "error", json_string(msg));
	}
	return j;
}

/* ---- fault-free: options ---- */

enum {
	OPT_TYPE = 1, OPT_FOLIO_SIZE, OPT_THREADS, OPT_SECONDS, OPT_MEM, OPT_PERF_LOCK,
	OPT_PERF_HOLD, OPT_FAULT_WORK, OPT_JSON, OPT_VMA,
};

static const struct cmd_opt fault_free_opts[] = {
	{ "type", "shmem|anon", OPT_TYPE, "the memory faulted (default shmem)" },
	{ "folio-size", "4K|16K|32K|64K", OPT_FOLIO_SIZE,
	  "over 4K: that mTHP size set to always for the run (root), restored after" },
	{ "threads", "N[,N...]", OPT_THREADS, "thread counts, one run each (default the processors)" },
	{ "seconds", "S", OPT_SECONDS, "per run (default 1)" },
	{ "mem", "SIZE", OPT_MEM, "per thread (default 16M)" },
	{ "vma", "shared|own", OPT_VMA,
	  "anon: the threads' regions one VMA (default, as lrulab's) or a VMA each" },
	{ "json", NULL, OPT_JSON, "one JSON object per thread count" },
	{ "perf-lock", NULL, OPT_PERF_LOCK,
	  "under perf lock record: the kernel's perf lock contention table, then lrulab's" },
	{ "perf-hold", NULL, OPT_PERF_HOLD,
	  "one thread under perf record -e cpu-clock: the kernel's lru_lock hold per page by caller, beside lrulab's" },
	{ "fault-work", "NS", OPT_FAULT_WORK,
	  "with --perf-lock or --perf-hold: lrulab's busy work per fault (e.g. what bench --calibrate chose)" },
	{ NULL },
};

static const struct cmd_spec fault_free_spec = {
	.prog = "lrulab host",
	.name = "lrulab host fault-free",
	.about = "The fault-free workload of `lrulab bench` on this machine's kernel: each thread,\n"
		 "pinned to a processor, writes every 4 KiB page of --mem of its own memory and\n"
		 "frees it, over and over: anon memory by madvise(MADV_DONTNEED) (the threads'\n"
		 "regions one after another, one VMA, as lrulab's), shmem a memfd whose hole\n"
		 "fallocate(PUNCH_HOLE) punches.  pages/s per thread count in bench's\n"
		 "text and JSON shape, \"engine\": \"host-kernel\".\n\n"
		 "Also `lrulab host usemem --type file ...` (usemem's file reads) and\n"
		 "`lrulab host replay TRACE TYPE ...` (a trace through the page cache): see\n"
		 "their --help.",
	.opts = fault_free_opts,
};

static void host_usage(FILE *f)
{
	cmd_usage(f, &fault_free_spec);
}

/*
 * --perf-hold is one thread: with two, a wait for lru_lock (interrupts
 * off as well) would land on the unlock and count as the hold.
 */
static int fault_free_hold_check(const char *prog, struct host_opts *o, bool threads_given)
{
	if (o->perf_lock) {
		fprintf(stderr, "%s: --perf-hold and --perf-lock: one at a time (each runs the host under its own perf)\n",
			prog);
		return -1;
	}
	if (threads_given && (o->nr_threads != 1 || o->threads[0] != 1)) {
		fprintf(stderr, "%s: --perf-hold: one thread only (with more, the wait for lru_lock would count as its hold)\n",
			prog);
		return -1;
	}
	o->threads[0] = 1;
	o->nr_threads = 1;
	return 0;
}

static int fault_free_parse(const char *prog, int argc, char **argv, struct host_opts *o)
{
	struct cmd_parser cp;
	const char *arg;
	unsigned long avail;
	bool work_given = false, threads_given = false, vma_given = false;
	long v, most = 0;
	double d;
	int c, i;

	memset(o, 0, sizeof(*o));
	o->shmem = true;
	o->threads[0] = lrulab_nr_processors();
	o->nr_threads = 1;
	o->mem = 16UL << 20;
	o->seconds = 1.0;
	cmd_parse_init(&cp, &fault_free_spec, argc, argv);
	while ((c = cmd_parse_next(&cp, &arg)) != CMD_OPT_END) {
		switch (c) {
		case CMD_OPT_HELP:
			return 1;
		case CMD_OPT_ERROR:
			return 2;
		case OPT_TYPE:
			if (strcmp(arg, "shmem") && strcmp(arg, "anon")) {
				fprintf(stderr, "%s: --type: unknown type '%s' (shmem or anon)\n",
					prog, arg);
				return 2;
			}
			o->shmem = !strcmp(arg, "shmem");
			break;
		case OPT_FOLIO_SIZE:
			if (bench_parse_folio_size(prog, arg, &o->folio_order))
				return 2;
			break;
		case OPT_THREADS:
			if (bench_parse_threads(prog, arg, o->threads, &o->nr_threads))
				return 2;
			threads_given = true;
			break;
		case OPT_SECONDS:
			if (parse_double(prog, "--seconds", arg, 0.001, 3600, &d))
				return 2;
			o->seconds = d;
			break;
		case OPT_MEM:
			if (parse_size_max(prog, "--mem", arg, BENCH_MAX_MEM, "per thread", &o->mem))
				return 2;
			break;
		case OPT_PERF_LOCK:
			o->perf_lock = true;
			break;
		case OPT_PERF_HOLD:
			o->perf_hold = true;
			break;
		case OPT_FAULT_WORK:
			if (parse_long(prog, "--fault-work", arg, 0, 1000000, &v))
				return 2;
			o->fault_work_ns = (unsigned long)v;
			work_given = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_VMA:
			if (bench_parse_vma(prog, arg, &o->vma_own))
				return 2;
			vma_given = true;
			break;
		}
	}
	if (cmd_parse_end(&cp))
		return 2;
	if (bench_check_vma(prog, o->shmem, vma_given))
		return 2;
	if (o->perf_hold && fault_free_hold_check(prog, o, threads_given))
		return 2;
	if (o->mem % (PAGE_SIZE << o->folio_order)) {
		fprintf(stderr, "%s: --mem: %lu bytes is not a multiple of the %luK folio size\n",
			prog, o->mem, (PAGE_SIZE << o->folio_order) >> 10);
		return 2;
	}
	for (i = 0; i < o->nr_threads; i++)
		most = o->threads[i] > most ? o->threads[i] : most;
	/* the host's memory is real: leave the machine a quarter of what it has */
	avail = host_mem_available();
	if (avail && most * o->mem > avail / 4 * 3) {
		fprintf(stderr, "%s: %ld thread%s x %luM is more than 3/4 of the %luM this machine has available\n",
			prog, most, most == 1 ? "" : "s", o->mem >> 20, avail >> 20);
		return 2;
	}
	if ((o->perf_lock || o->perf_hold) && o->shmem && o->folio_order) {
		fprintf(stderr, "%s: %s: lrulab's shmem has 4K folios only, so it has no table for shmem %luK\n",
			prog, o->perf_lock ? "--perf-lock" : "--perf-hold",
			(PAGE_SIZE << o->folio_order) >> 10);
		return 2;
	}
	if (work_given && !o->perf_lock && !o->perf_hold) {
		fprintf(stderr, "%s: --fault-work: only with --perf-lock or --perf-hold, for lrulab's side of the comparison\n",
			prog);
		return 2;
	}
	return 0;
}

/* ---- fault-free: the command ---- */

static int fault_free_main(const char *prog, int argc, char **argv)
{
	struct host_opts o;
	int i, ret, status = 0;

	ret = fault_free_parse(prog, argc, argv, &o);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (o.perf_lock)
		return host_perf_lock(prog, &o);
	if (o.perf_hold)
		return host_perf_hold(prog, &o);
	if (host_thp_prepare(prog, o.shmem, o.folio_order))
		return 1;
	for (i = 0; i < o.nr_threads; i++) {
		struct host_result r;
		int err = host_fault_free_run(&o, o.threads[i], &r);

		if (err) {
			fprintf(stderr, "%s: cannot run %ld threads: %s\n", prog, o.threads[i],
				strerror(-err));
			status = 1;
			break;
		}
		if (o.json) {
			json_t *j = host_result_json(&o, &r);

			bench_json_line(j);
			json_decref(j);
		} else {
			if (i)
				printf("\n");
			host_print_text(stdout, &o, &r);
		}
		fflush(stdout);
		if (r.err) {
			fprintf(stderr, "%s: a worker failed: %s: %s\n", prog, r.failed,
				strerror(-r.err));
			status = 1;
		}
		host_result_free(&r);
		if (status)
			break;
	}
	host_undo_all();
	return status;
}

int cmd_host(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "lrulab host: no workload given (" HOST_WORKLOAD_NAMES ")\n");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		host_usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(host_workloads); i++) {
		const char *root = getenv("LRULAB_CGROUP_ROOT");

		if (strcmp(argv[1], host_workloads[i].name))
			continue;
		/* a run killed before its undo could run left these: say and clear */
		if (argc < 3 || (strcmp(argv[2], "--help") && strcmp(argv[2], "-h")))
			host_leftovers_clear("lrulab host",
					     root && *root && strlen(root) < 256 ? root : "/sys/fs/cgroup");
		return host_workloads[i].main("lrulab host", argc - 1, argv + 1);
	}
	fprintf(stderr, "lrulab host: unknown workload '%s' (" HOST_WORKLOAD_NAMES ")\n",
		argv[1]);
	return 2;
}
