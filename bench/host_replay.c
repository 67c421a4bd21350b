// SPDX-License-Identifier: MIT
/*
 * `lrulab host replay TRACE TYPE`: the trace that `lrulab replay` runs
 * through the model, run through this machine's kernel page cache, to
 * set the kernel's miss ratio beside the model's at each cache size.
 *
 * Objects are pages of one real file on a real file system (a directory
 * under $TMPDIR or /var/tmp, refused on tmpfs): the object an id maps to
 * is the extent replay/ gives it (one page in object mode, ceil(size /
 * 4096) pages otherwise), so both replays read the same pages in the
 * same order.  Each size and repetition gets a fresh file (written,
 * synced and dropped from the page cache, so no page and no shadow entry
 * of an earlier run is left) and a fresh memory cgroup whose limit is
 * the cache size (v2 memory.max, v1 memory.limit_in_bytes, no swap).
 *
 * The reader is a child that allocates and touches everything it needs
 * before it joins the cgroup, so that what the cgroup holds is the
 * file's pages (and the kernel memory they bring), not the reader's; it
 * leaves the cgroup before it reports.  A request is a miss if any of
 * its pages was not resident before its read: mincore() on a mapping of
 * the file tells, without a fault or an accessed bit, so the kernel sees
 * only the pread() (pwrite() for a write) that follows, as the model
 * sees only filemap_read().  POSIX_FADV_RANDOM by default, as the
 * model's replay reads a page per miss with no readahead.
 *
 * The cgroup, the file and the directory are registered with the undo
 * of bench/host_sys.c before they are made (gone after a normal end, on
 * SIGINT, SIGTERM and SIGHUP, and when the OOM killer ends the reader).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#include "bench/host.h"
#include "replay/replay.h"
#include "tools/options.h"
#include "tools/parse.h"
#include "tools/util.h"

#include "host_usemem.h"

#define TMPFS_MAGIC_NR	0x01021994
#define HOST_REPLAY_MAX_REPS	32
/* run_once(): the reader was OOM-killed */
#define HOST_REPLAY_OOM		(-1)
/*
 * Below this a cgroup is mostly the reader's own kernel memory and the
 * per-CPU LRU batches (31 folios), and the model refuses such sizes too.
 */
#define HOST_REPLAY_MIN_PAGES	(FOLIO_BATCH_SIZE + 1)

struct host_replay_opts {
	const char *trace_path;
	struct replay_load_opts lo;
	const char *sizes_arg;
	int fadvise;
	long reps;
	long rate;		/* --rate: requests a second at most; 0: as fast as it reads */
	bool json;
	char cg_root[256];
};

/* what one reader run gives */
struct host_replay_run {
	uint64_t size, pages_max;
	uint64_t requests, misses, bytes, miss_bytes;
	uint64_t page_accesses, page_misses;
	double seconds;
	long long cache_end;		/* the cgroup's page cache at the end, bytes */
	struct bench_deltas ms;		/* memory.stat, end less start */
	int err;
};

/* ---- the reader, in the cgroup ---- */

static long long stat_of(const struct bench_deltas *d, const char *name)
{
	int i;

	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->d[i].name, name))
			return d->d[i].delta;
	return 0;
}

/*
 * --rate: request @i starts no earlier than @i / @rate seconds after
 * @t0, so that the kernel's 2 s memcg flush falls on a run of a chosen
 * length, as the model's replay at that --rate.
 */
static void pace(const struct timespec *t0, size_t i, long rate)
{
	double at = (double)i / (double)rate;
	struct timespec ts = *t0;

	ts.tv_sec += (time_t)at;
	ts.tv_nsec += (long)((at - (double)(time_t)at) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int replay_pages(const struct replay_trace *t, int fd, const unsigned char *map,
			char *buf, long rate, struct host_replay_run *r)
{
	struct timespec t0;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < t->nr_reqs; i++) {
		const struct replay_req *q = &t->reqs[i];
		const struct replay_obj *o = &t->objs[q->obj];
		uint64_t n = t->objects ? 1 : (q->size + PAGE_SIZE - 1) / PAGE_SIZE, p;
		bool missed = false;

		if (rate)
			pace(&t0, i, rate);
		for (p = 0; p < n; p++) {
			off_t off = (off_t)((o->base + p) * PAGE_SIZE);
			unsigned char vec = 0;
			ssize_t got;

			if (mincore((void *)(map + off), PAGE_SIZE, &vec))
				return errno;
			missed |= !(vec & 1);
			r->page_misses += !(vec & 1);
			got = q->write ? pwrite(fd, buf, PAGE_SIZE, off) : pread(fd, buf, PAGE_SIZE, off);
			if (got != PAGE_SIZE)
				return got < 0 ? errno : EIO;
		}
		r->page_accesses += n;
		r->bytes += q->size;
		if (missed) {
			r->misses++;
			r->miss_bytes += q->size;
		}
		r->requests++;
	}
	return 0;
}

static int cgroup_leave(const struct host_cgroup *cg)
{
	char path[1100], pid[16];

	/* the parent of the run's cgroup is the one cgroup_find() found */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(path, sizeof(path), "%.*s/cgroup.procs",
		 (int)(strrchr(cg->dir, '/') - cg->dir), cg->dir);
	return host_write_file(path, pid);
}

static void reader_report(int out_fd, const struct host_replay_run *r)
{
	json_t *j = json_object();

	json_object_set_new(j, "requests", json_integer((json_int_t)r->requests));
	json_object_set_new(j, "misses", json_integer((json_int_t)r->misses));
	json_object_set_new(j, "bytes", json_integer((json_int_t)r->bytes));
	json_object_set_new(j, "miss_bytes", json_integer((json_int_t)r->miss_bytes));
	json_object_set_new(j, "page_accesses", json_integer((json_int_t)r->page_accesses));
	json_object_set_new(j, "page_misses", json_integer((json_int_t)r->page_misses));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	json_object_set_new(j, "cache_end", json_integer(r->cache_end));
	json_object_set_new(j, "memory_stat", bench_deltas_json(&r->ms));
	if (r->err)
		json_object_set_new(j, "error", json_string(strerror(r->err)));
	host_json_write(out_fd, j);
	json_decref(j);
}

/*
 * The reader's own memory out of the cgroup: the pages a forked child
 * writes are copied at its first write and charged where it is then, so
 * the stack it will use is written before it joins.
 */
static void __attribute__((noinline)) stack_prefault(void)
{
	volatile char pad[256 << 10];
	size_t i;

	for (i = 0; i < sizeof(pad); i += 1024)
		pad[i] = 0;
}

static int reader(const char *prog, const struct replay_trace *t, int fd,
		  const unsigned char *map, const struct host_cgroup *cg, long rate, int out_fd)
{
	struct bench_deltas ms0, ms1;
	struct host_replay_run r = { 0 };
	struct timespec a, b;
	char *buf = aligned_alloc(PAGE_SIZE, PAGE_SIZE);

	if (!buf)
		return 1;
	memset(buf, 0, PAGE_SIZE);
	cgroup_read_stat(cg, &ms0);
	stack_prefault();
	errno = 0;
	if (cgroup_join(prog, cg))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	r.err = replay_pages(t, fd, map, buf, rate, &r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (cgroup_leave(cg)) {
		fprintf(stderr, "%s: cannot leave the memory cgroup %s: %s\n", prog, cg->dir,
			strerror(errno));
		return 1;
	}
	r.seconds = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	cgroup_read_stat(cg, &ms1);
	/* v2 names the page cache "file", v1 "cache" */
	r.cache_end = cg->v2 ? stat_of(&ms1, "file") : stat_of(&ms1, "cache");
	bench_deltas_accumulate(&r.ms, &ms0, &ms1);
	bench_deltas_free(&ms0);
	bench_deltas_free(&ms1);
	reader_report(out_fd, &r);
	bench_deltas_free(&r.ms);
	return r.err ? 1 : 0;
}

/* ---- one run: the file and the cgroup here, the reader in a child ---- */

struct reader_child {
	const char *prog;
	const struct replay_trace *t;
	int fd;
	const unsigned char *map;
	const struct host_cgroup *cg;
	long rate;
};

static int reader_fn(void *arg, int out_fd)
{
	struct reader_child *c = arg;

	return reader(c->prog, c->t, c->fd, c->map, c->cg, c->rate, out_fd);
}

static int run_once(const char *prog, const struct host_replay_opts *ho,
		    const struct replay_trace *t, uint64_t pages, const char *dir,
		    struct host_cgroup *cg, json_t **out)
{
	unsigned char *map = MAP_FAILED;
	int fd, status = 1;
	char path[600];
	siginfo_t si;

	*out = NULL;
	if (cgroup_make(prog, cg, pages * PAGE_SIZE, false))
		return 1;
	snprintf(path, sizeof(path), "%s/objects", dir);
	fd = host_file_make(prog, path, t->total_pages * PAGE_SIZE, ho->fadvise);
	if (fd < 0)
		return 1;
	map = mmap(NULL, t->total_pages * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "%s: cannot map %s: %s\n", prog, path, strerror(errno));
	} else {
		struct reader_child child = { prog, t, fd, map, cg, ho->rate };

		if (!host_child_run(prog, reader_fn, &child, out, &si)) {
			if (si.si_code == CLD_EXITED) {
				status = si.si_status;
			} else if (si.si_status == SIGKILL) {
				/* the cgroup's OOM killer: a result of its own, not a failure */
				status = HOST_REPLAY_OOM;
			} else {
				fprintf(stderr, "%s: the reader was killed by signal %d\n", prog,
					si.si_status);
			}
		}
		munmap(map, t->total_pages * PAGE_SIZE);
	}
	if (status == HOST_REPLAY_OOM || status) {
		json_decref(*out);
		*out = NULL;
	} else if (!*out) {
		fprintf(stderr, "%s: the reader gave no result\n", prog);
		status = 1;
	}
	close(fd);
	return status;
}

/* ---- the report ---- */

static double jnum(json_t *j, const char *key)
{
	return json_number(j, key);
}

static json_t *jstat(json_t *j, const char *name)
{
	json_t *v = json_object_get(json_object_get(j, "memory_stat"), name);

	return json_is_integer(v) ? v : NULL;
}

static const char *const refault_keys[] = {
	"workingset_refault_file", "workingset_activate_file", "workingset_restore_file",
};

/* one run's object, in replay's keys, "engine": "host-kernel" */
static json_t *run_json(const struct host_replay_opts *ho, const struct replay_trace *t,
			uint64_t size, uint64_t pages, long rep, const struct host_cgroup *cg,
			json_t *r)
{
	double req = jnum(r, "requests"), secs = jnum(r, "seconds");
	json_t *j = json_object();
	size_t k;

	json_object_set_new(j, "engine", json_string("host-kernel"));
	json_object_set_new(j, "trace", json_string(ho->trace_path));
	json_object_set_new(j, "type", json_string(replay_type_name(ho->lo.type)));
	json_object_set_new(j, "lru", json_string("host-kernel"));
	json_object_set_new(j, "size", json_integer((json_int_t)size));
	json_object_set_new(j, "rep", json_integer(rep));
	json_object_set_new(j, "cgroup", json_string(cg->v2 ? "v2" : "v1"));
	json_object_set_new(j, "memory_max", json_integer((json_int_t)pages));
	json_object_set_new(j, "fadvise", json_string(ho->fadvise == POSIX_FADV_RANDOM ? "random" :
						      ho->fadvise == POSIX_FADV_SEQUENTIAL ?
						      "sequential" : "normal"));
	json_object_set_new(j, "requests", json_integer((json_int_t)req));
	json_object_set_new(j, "misses", json_integer((json_int_t)jnum(r, "misses")));
	json_object_set_new(j, "miss_ratio", json_real(req ? jnum(r, "misses") / req : 0));
	json_object_set_new(j, "byte_miss_ratio",
			    json_real(jnum(r, "bytes") ? jnum(r, "miss_bytes") / jnum(r, "bytes") : 0));
	json_object_set_new(j, "requests_per_sec", json_real(secs > 0 ? req / secs : 0));
	if (ho->rate)
		json_object_set_new(j, "rate", json_integer(ho->rate));
	json_object_set_new(j, "page_accesses", json_integer((json_int_t)jnum(r, "page_accesses")));
	json_object_set_new(j, "page_misses", json_integer((json_int_t)jnum(r, "page_misses")));
	json_object_set_new(j, "page_cache_share_end",
			    json_real(jnum(r, "cache_end") / ((double)pages * PAGE_SIZE)));
	/* those the cgroup's memory.stat has: v1's has no activate or restore */
	for (k = 0; k < ARRAY_SIZE(refault_keys); k++)
		if (jstat(r, refault_keys[k]))
			json_object_set(j, refault_keys[k], jstat(r, refault_keys[k]));
	json_object_set(j, "memory_stat", json_object_get(r, "memory_stat"));
	if (json_object_get(r, "error"))
		json_object_set(j, "error", json_object_get(r, "error"));
	(void)t;
	return j;
}

static void print_size(const struct host_replay_opts *ho, uint64_t size, json_t **runs, int n)
{
	double mr[HOST_REPLAY_MAX_REPS], rate[HOST_REPLAY_MAX_REPS];
	json_t *m = runs[n / 2];
	int i;

	for (i = 0; i < n; i++) {
		mr[i] = jnum(runs[i], "miss_ratio");
		rate[i] = jnum(runs[i], "requests_per_sec");
	}
	qsort(mr, (size_t)n, sizeof(mr[0]), cmp_double);
	printf("%s host-kernel cache size %llu, %.0f req, miss ratio %.4f", ho->trace_path,
	       (unsigned long long)size, jnum(m, "requests"), median_double(mr, n));
	if (n > 1)
		printf(" (%d runs: %.4f-%.4f)", n, mr[0], mr[n - 1]);
	printf(", %.3f M req/s\n", median_double(rate, n) / 1e6);
	printf("    memory.max %.0f pages, page cache at the end %.1f%% of it",
	       jnum(m, "memory_max"), 100 * jnum(m, "page_cache_share_end"));
	for (i = 0; i < (int)ARRAY_SIZE(refault_keys); i++)
		if (json_object_get(m, refault_keys[i]))
			printf(", %s=%.0f", refault_keys[i], jnum(m, refault_keys[i]));
	printf("\n");
}

/*
 * A cgroup too small for the kernel memory its page cache charges (the
 * xarray nodes that hold the evicted pages' shadows): the charge fails
 * and the OOM killer ends the reader.  Said, in text and JSON, and the
 * next size goes on.
 */
static void oom_report(const struct host_replay_opts *ho, uint64_t size, uint64_t pages,
		       long oom)
{
	json_t *j;

	if (!ho->json) {
		printf("%s host-kernel cache size %llu: the OOM killer ended %ld of %ld runs (memory.max %llu pages: the page cache's own kernel memory does not fit)\n",
		       ho->trace_path, (unsigned long long)size, oom, ho->reps,
		       (unsigned long long)pages);
		return;
	}
	j = json_pack("{s:s, s:s, s:s, s:I, s:I, s:b, s:I}", "engine", "host-kernel",
		      "trace", ho->trace_path, "lru", "host-kernel", "size", (json_int_t)size,
		      "memory_max", (json_int_t)pages, "oom_killed", 1, "runs_oom_killed",
		      (json_int_t)oom);
	bench_json_line(j);
	json_decref(j);
}

/* ---- options and the command ---- */

enum { OPT_SIZES = 1, OPT_PARAMS, OPT_IGNORE, OPT_NUM, OPT_FADVISE, OPT_REPS, OPT_RATE, OPT_JSON };

static const struct cmd_opt host_replay_opts[] = {
	{ "sizes", "LIST", OPT_SIZES, "cache sizes as lrulab replay takes them (default auto)" },
	{ "trace-type-params", "PARAMS", OPT_PARAMS, "the -t keys of lrulab replay (csv columns, ...)" },
	{ "ignore-obj-size", "0|1", OPT_IGNORE, "1: every object one page" },
	{ "num-req", "N", OPT_NUM, "replay the first N requests" },
	{ "fadvise", "random|normal|sequential", OPT_FADVISE,
	  "the file's advice (default random: a page a miss, no readahead, as the model)" },
	{ "reps", "N", OPT_REPS, "runs of each size, a fresh file and cgroup each (default 1)" },
	{ "rate", "REQ_PER_SEC", OPT_RATE,
	  "at most that many requests a second (default: as fast as the reads go)" },
	{ "json", NULL, OPT_JSON, "one JSON object per size and run" },
	{ NULL },
};

static const struct cmd_spec host_replay_spec = {
	.prog = "lrulab host replay",
	.args = "TRACE TYPE",
	.about = "The trace lrulab replay runs through the model, through this machine's page\n"
		 "cache: each object the same pages of a real file under $TMPDIR (not tmpfs),\n"
		 "the cache cold, a memory cgroup whose limit is the cache size, misses told\n"
		 "by mincore() before each read.  Needs root and a memory controller.",
	.opts = host_replay_opts,
};

static int parse(int argc, char **argv, struct host_replay_opts *ho)
{
	const char *p = host_replay_spec.prog, *arg, *params = NULL, *root;
	struct cmd_parser cp;
	char err[512];
	long v;
	int c;

	memset(ho, 0, sizeof(*ho));
	ho->sizes_arg = "auto";
	ho->fadvise = POSIX_FADV_RANDOM;
	ho->reps = 1;
	root = getenv("LRULAB_CGROUP_ROOT");
	snprintf(ho->cg_root, sizeof(ho->cg_root), "%s", root && *root ? root : "/sys/fs/cgroup");
	cmd_parse_init(&cp, &host_replay_spec, argc, argv);
	while ((c = cmd_parse_next(&cp, &arg)) != CMD_OPT_END) {
		switch (c) {
		case CMD_OPT_HELP:
			return 1;
		case CMD_OPT_ERROR:
			return 2;
		case OPT_SIZES:
			ho->sizes_arg = arg;
			break;
		case OPT_PARAMS:
			params = arg;
			break;
		case OPT_IGNORE:
			if (strcmp(arg, "0") && strcmp(arg, "1")) {
				fprintf(stderr, "%s: --ignore-obj-size: '%s' is not 0 or 1\n", p, arg);
				return 2;
			}
			ho->lo.ignore_obj_size = !strcmp(arg, "1");
			break;
		case OPT_NUM:
			if (parse_long(p, "--num-req", arg, 1, 1L << 40, &v))
				return 2;
			ho->lo.max_reqs = (uint64_t)v;
			break;
		case OPT_FADVISE:
			if (!strcmp(arg, "random"))
				ho->fadvise = POSIX_FADV_RANDOM;
			else if (!strcmp(arg, "normal"))
				ho->fadvise = POSIX_FADV_NORMAL;
			else if (!strcmp(arg, "sequential"))
				ho->fadvise = POSIX_FADV_SEQUENTIAL;
			else {
				fprintf(stderr, "%s: --fadvise: '%s' is not random, normal or sequential\n",
					p, arg);
				return 2;
			}
			break;
		case OPT_REPS:
			if (parse_long(p, "--reps", arg, 1, HOST_REPLAY_MAX_REPS, &ho->reps))
				return 2;
			break;
		case OPT_RATE:
			if (parse_long(p, "--rate", arg, 1, 1000000000L, &ho->rate))
				return 2;
			break;
		case OPT_JSON:
			ho->json = true;
			break;
		}
	}
	if (argc - optind != 2) {
		if (argc - optind < 2)
			fprintf(stderr, "%s: needs TRACE and TYPE (try --help)\n", p);
		else
			fprintf(stderr, "%s: unexpected argument '%s'\n", p, argv[optind + 2]);
		return 2;
	}
	ho->trace_path = argv[optind];
	/* every page of every request read through the host's page cache */
	ho->lo.max_page_accesses = REPLAY_MAX_PAGE_ACCESSES;
	replay_params_default(&ho->lo.params);
	if (replay_type_parse(argv[optind + 1], &ho->lo.type, err, sizeof(err)) ||
	    replay_params_parse(params ? params : "", ho->lo.type, &ho->lo.params, err,
				sizeof(err))) {
		fprintf(stderr, "%s: %s\n", p, err);
		return 2;
	}
	if (ho->lo.type == REPLAY_CSV && !params) {
		fprintf(stderr, "%s: csv traces need -t with obj-id-col=N\n", p);
		return 2;
	}
	return 0;
}

/* a directory for the runs' files on a disk's file system; 0, or -1 after one error line */
/*
 * A folder of its own for the trace's file of @pages, on a disk's file
 * system with room for it: checked before the file is written, not
 * found out when the disk is full.
 */
static int run_dir(const char *prog, char *dir, size_t len, uint64_t pages)
{
	const char *tmp = getenv("TMPDIR");
	struct statfs sf;

	if (tmp && strlen(tmp) > 256) {
		fprintf(stderr, "%s: TMPDIR: longer than 256 characters\n", prog);
		return -1;
	}
	/* the PID in the name: a later run clears it if this one is killed */
	snprintf(dir, len, "%s/lrulab-host-%d-XXXXXX", tmp && *tmp ? tmp : "/var/tmp",
		 (int)getpid());
	if (!mkdtemp(dir)) {
		fprintf(stderr, "%s: cannot make a directory for the file: %s\n", prog,
			strerror(errno));
		return -1;
	}
	if (host_undo_rmdir(dir)) {
		rmdir(dir);
		return -1;
	}
	if (statfs(dir, &sf) || sf.f_type == TMPFS_MAGIC_NR) {
		fprintf(stderr, "%s: %s is on tmpfs, whose pages are not the file LRU: set TMPDIR to a disk's file system\n",
			prog, dir);
		return -1;
	}
	if (pages > (uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize / PAGE_SIZE) {
		fprintf(stderr, "%s: %s: the trace's file is %lluM, more than the %lluM free there: set TMPDIR to a larger file system\n",
			prog, dir, (unsigned long long)(pages >> 8),
			(unsigned long long)((uint64_t)sf.f_bavail * (uint64_t)sf.f_bsize >> 20));
		return -1;
	}
	return 0;
}

static int replay_sizes(const char *p, const struct host_replay_opts *ho,
			const struct replay_trace *t, const uint64_t *sizes, int nr,
			const char *dir, struct host_cgroup *cg)
{
	json_t *runs[HOST_REPLAY_MAX_REPS];
	int i, status = 0;
	long k, done, oom;

	for (i = 0; i < nr && !status; i++) {
		uint64_t pages = t->objects ? sizes[i] : sizes[i] / PAGE_SIZE;

		if (pages < HOST_REPLAY_MIN_PAGES) {
			if (!ho->json)
				printf("%s host-kernel cache size %llu: not replayed (under %d pages)\n",
				       ho->trace_path, (unsigned long long)sizes[i],
				       HOST_REPLAY_MIN_PAGES);
			continue;
		}
		for (k = 0, done = 0, oom = 0; k < ho->reps && !status; k++) {
			json_t *r;

			status = run_once(p, ho, t, pages, dir, cg, &r);
			if (status == HOST_REPLAY_OOM) {
				status = 0;
				oom++;
			}
			/* the reader reaped, the file, the cgroup: gone before the next */
			host_undo_all();
			if (mkdir(dir, 0700) || host_undo_rmdir(dir)) {
				fprintf(stderr, "%s: cannot make %s again: %s\n", p, dir, strerror(errno));
				status = 1;
			}
			if (r && !status) {
				runs[done] = run_json(ho, t, sizes[i], pages, k, cg, r);
				if (ho->json)
					bench_json_line(runs[done]);
				done++;
			}
			json_decref(r);
		}
		if (oom)
			oom_report(ho, sizes[i], pages, oom);
		if (!ho->json && done)
			print_size(ho, sizes[i], runs, (int)done);
		while (done)
			json_decref(runs[--done]);
	}
	return status;
}

int host_replay_main(const char *prog, int argc, char **argv)
{
	const char *p = host_replay_spec.prog;
	uint64_t sizes[REPLAY_MAX_SIZES];
	struct host_replay_opts ho;
	struct replay_trace t = { 0 };
	struct host_cgroup cg;
	char err[512], dir[512];
	int ret, nr, status;

	ret = parse(argc, argv, &ho);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (replay_trace_load(ho.trace_path, &ho.lo, &t, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", p, err);
		replay_trace_free(&t);
		return 2;
	}
	nr = replay_sizes_parse(ho.sizes_arg, &t, sizes, err, sizeof(err));
	if (nr < 0) {
		fprintf(stderr, "%s: %s\n", p, err);
		replay_trace_free(&t);
		return 2;
	}
	if (geteuid()) {
		fprintf(stderr, "%s: needs root, to make a memory cgroup\n", p);
		replay_trace_free(&t);
		return 1;
	}
	if (cgroup_find(ho.cg_root, &cg)) {
		fprintf(stderr, "%s: no memory controller under %s (cgroup v2 with memory, or a v1 memory hierarchy)\n",
			p, ho.cg_root);
		replay_trace_free(&t);
		return 1;
	}
	if (run_dir(p, dir, sizeof(dir), t.total_pages)) {
		host_undo_all();
		replay_trace_free(&t);
		return 1;
	}
	if (!ho.json)
		printf("lrulab host replay: engine host-kernel, %s (%s), %zu requests, %llu pages; a fresh file under %s and a %s memory cgroup per run, fadvise %s, %ld run%s a size\n",
		       ho.trace_path, replay_type_name(ho.lo.type), t.nr_reqs,
		       (unsigned long long)t.total_pages, dir, cg.v2 ? "v2" : "v1",
		       ho.fadvise == POSIX_FADV_RANDOM ? "random" :
		       ho.fadvise == POSIX_FADV_SEQUENTIAL ? "sequential" : "normal",
		       ho.reps, ho.reps == 1 ? "" : "s");
	if (!ho.json && ho.rate)
		printf("lrulab host replay: paced at %ld requests a second at most (--rate)\n", ho.rate);
	status = replay_sizes(p, &ho, &t, sizes, nr, dir, &cg);
	host_undo_all();
	replay_trace_free(&t);
	(void)prog;
	return status;
}
