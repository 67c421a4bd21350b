// SPDX-License-Identifier: MIT
/*
 * `lrulab host usemem --type file`: usemem's file workload on this
 * machine's kernel, to set its reclaim and readahead figures beside the
 * model's (`lrulab bench usemem --type file` with the same options).
 *
 * Each thread has a real file of --mem bytes on a real file system (a
 * directory made under $TMPDIR or /var/tmp, which must not be tmpfs:
 * shmem is not the file LRU and has no readahead), written, synced and
 * dropped from the page cache (POSIX_FADV_DONTNEED) before the run, so
 * that the run's reads are the first to charge its pages.  The process
 * then joins a memory cgroup made for the run with --max as its limit
 * (cgroup v2's memory.max, or v1's memory.limit_in_bytes) and no swap,
 * and its threads, each pinned to a processor, read their file once from
 * start to end (the model's prefault), then read 4 KiB pages with
 * pread() in --pattern's order for --seconds, the file advised as
 * --fadvise says.  The deltas of /proc/vmstat (the whole machine) and of
 * the cgroup's memory.stat over the timed window are reported under the
 * kernel's own names.
 *
 * The cgroup, the files and the directory are registered with the undo
 * of bench/host_sys.c before they are made, so that neither a normal end
 * nor SIGINT, SIGTERM or SIGHUP leaves them behind; the process leaves
 * the cgroup (back to the one it came from) before the cgroup goes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "bench/host.h"
#include <lrulab/memcontrol.h>
#include "tools/options.h"
#include "tools/parse.h"
#include "tools/util.h"

#include "host_usemem.h"

#define TMPFS_MAGIC_NR	0x01021994

/*
 * A pread() this long waited for the device: a page cache hit takes a
 * microsecond or two, a disk read tens.
 */
#define HOST_WAIT_NS	20000L

/* ---- the files ---- */

/* read_ahead_kb of the disk under @fd's file; -1 if unknown */
static long file_read_ahead_kb(int fd)
{
	char path[128], buf[32];
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/read_ahead_kb",
		 major(st.st_dev), minor(st.st_dev));
	if (host_read_file(path, buf, sizeof(buf))) {
		/* a partition: its disk's queue */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/read_ahead_kb",
			 major(st.st_dev), minor(st.st_dev));
		if (host_read_file(path, buf, sizeof(buf)))
			return -1;
	}
	return atol(buf);
}

/* What the disk under @fd's file completed; -1 if unknown. */
static int file_disk_reads(int fd, struct host_disk_stat *d)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : host_disk_stat(st.st_dev, d);
}

/* ---- the run ---- */

struct host_reader {
	pthread_t tid;
	int index, fd;
	const struct bench_opts *o;
	struct usemem_stream stream;
	pthread_barrier_t *ready, *go;
	int *stop;
	unsigned long reads;
	unsigned long waited;		/* reads that took HOST_WAIT_NS or more */
	unsigned long long wait_ns;	/* their time */
	int err;
};

static long long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

static void *host_reader_fn(void *arg)
{
	struct host_reader *hr = arg;
	unsigned long pages = hr->o->mem / PAGE_SIZE, i;
	char buf[PAGE_SIZE];

	if (host_pin(hr->index))
		hr->err = EINVAL;
	/*
	 * The model's prefault: every page read once, in order, a page per
	 * read.  With readahead, a file system with large folios (ext4, XFS)
	 * would read the file in folios of up to 2 MiB, which random reads
	 * then keep active as a unit (any of their 512 pages is a second
	 * access): the cgroup's memory would be one resident run of them
	 * and the timed reads would share what is left.  The model's page
	 * cache has order-0 folios only, so both start from pages.
	 */
	posix_fadvise(hr->fd, 0, 0, POSIX_FADV_RANDOM);
	for (i = 0; i < pages && !hr->err; i++)
		if (pread(hr->fd, buf, PAGE_SIZE, (off_t)(i * PAGE_SIZE)) != PAGE_SIZE)
			hr->err = errno ? errno : EIO;
	posix_fadvise(hr->fd, 0, 0, hr->o->fadvise >= 0 ? hr->o->fadvise : POSIX_FADV_NORMAL);
	pthread_barrier_wait(hr->ready);
	pthread_barrier_wait(hr->go);
	while (!hr->err && !__atomic_load_n(hr->stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < 64; i++) {
			off_t off = (off_t)(usemem_stream_next(&hr->stream) * PAGE_SIZE);
			struct timespec t0, t1;
			long long ns;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			if (pread(hr->fd, buf, PAGE_SIZE, off) != PAGE_SIZE) {
				hr->err = errno ? errno : EIO;
				break;
			}
			clock_gettime(CLOCK_MONOTONIC, &t1);
			ns = ns_between(&t0, &t1);
			if (ns >= HOST_WAIT_NS) {
				hr->waited++;
				hr->wait_ns += (unsigned long long)ns;
			}
		}
		hr->reads += i;
	}
	return NULL;
}

void host_deltas_diff(struct bench_deltas *out, struct bench_deltas *before,
			const struct bench_deltas *after)
{
	memset(out, 0, sizeof(*out));
	bench_deltas_accumulate(out, before, after);
	bench_deltas_free(before);
}

const char *host_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	return u.release;
}

long long host_delta_of(const struct bench_deltas *d, const char *name)
{
	int i;

	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->d[i].name, name))
			return d->d[i].delta;
	return 0;
}

/* The window's traced readahead into @j, and in text unless @quiet. */
static void host_report_readahead(json_t *j, const unsigned long *ev, bool complete, bool quiet)
{
	json_t *ra;

	if (!ev) {
		json_object_set_new(j, "readahead", json_null());
		json_object_set_new(j, "readahead_trace", json_string("unavailable"));
		if (!quiet)
			printf("readahead: not traced (no writable tracefs with the readahead events)\n");
		return;
	}
	ra = json_object();
	json_object_set_new(ra, "page_cache_sync_ra", json_integer((json_int_t)ev[RA_SYNC_RA]));
	json_object_set_new(ra, "page_cache_async_ra", json_integer((json_int_t)ev[RA_ASYNC_RA]));
	json_object_set_new(ra, "windows", json_integer((json_int_t)ev[RA_WINDOWS]));
	json_object_set_new(ra, "window_pages", json_integer((json_int_t)ev[RA_WINDOW_PAGES]));
	json_object_set_new(j, "readahead", ra);
	json_object_set_new(j, "readahead_trace", json_string(complete ? "complete" : "events lost"));
	if (!quiet)
		printf("readahead (traced): %lu page_cache_sync_ra, %lu page_cache_async_ra, %lu windows of %.1f pages on average%s\n",
		       ev[RA_SYNC_RA], ev[RA_ASYNC_RA], ev[RA_WINDOWS],
		       ev[RA_WINDOWS] ? (double)ev[RA_WINDOW_PAGES] / ev[RA_WINDOWS] : 0,
		       complete ? "" : " (EVENTS LOST: the trace buffer filled)");
}

/*
 * The child's part of a run: in the cgroup, the readers, the counters,
 * the report.  Its exit status.
 */
static int host_usemem_child(const char *prog, const struct host_usemem_opts *ho,
			     long threads, struct host_reader *hr,
			     const struct host_cgroup *cg, long ra_kb, int out_fd,
			     struct host_ra_trace *tr)
{
	unsigned long ra[NR_RA_EVENTS], *ino = calloc((size_t)threads, sizeof(*ino));
	bool traced = false, complete = false;
	const struct bench_opts *o = &ho->b;
	struct timespec ts = {
		.tv_sec = (time_t)o->seconds,
		.tv_nsec = (long)((o->seconds - (time_t)o->seconds) * 1e9),
	}, a, b;
	struct bench_deltas vm0, mc0, vm1, mc1, vm, mc;
	pthread_barrier_t ready, go;
	unsigned long reads = 0, waited = 0;
	unsigned long long wait_ns = 0;
	struct host_disk_stat d0 = { 0 }, d1 = { 0 };
	int stop = 0, err = 0, status = 0, disk;
	long long active, inactive, steal;
	double turnovers;
	char pat[32];
	double secs;
	json_t *j;
	long i;

	if (cgroup_join(prog, cg))
		return 1;
	pthread_barrier_init(&ready, NULL, (unsigned int)threads + 1);
	pthread_barrier_init(&go, NULL, (unsigned int)threads + 1);
	for (i = 0; i < threads; i++) {
		hr[i].index = (int)i;
		hr[i].o = o;
		hr[i].ready = &ready;
		hr[i].go = &go;
		hr[i].stop = &stop;
		if (pthread_create(&hr[i].tid, NULL, host_reader_fn, &hr[i])) {
			fprintf(stderr, "%s: cannot start thread %ld\n", prog, i);
			abort();
		}
	}
	pthread_barrier_wait(&ready);
	/* the files' readahead from the window on */
	for (i = 0; ino && i < threads; i++) {
		struct stat st;

		ino[i] = fstat(hr[i].fd, &st) ? 0 : (unsigned long)st.st_ino;
	}
	traced = ino && !host_ra_trace_start(tr, ino, (int)threads);
	free(ino);
	host_counters_read(cg, &vm0, &mc0);
	disk = file_disk_reads(hr[0].fd, &d0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	pthread_barrier_wait(&go);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < threads; i++)
		pthread_join(hr[i].tid, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (traced)
		traced = !host_ra_trace_stop(tr, ra, &complete);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	if (!disk)
		disk = file_disk_reads(hr[0].fd, &d1);
	host_counters_read(cg, &vm1, &mc1);
	/* the file LRU's split at the end, as the model reports it */
	active = host_delta_of(&mc1, "active_file");
	inactive = host_delta_of(&mc1, "inactive_file");
	host_deltas_diff(&vm, &vm0, &vm1);
	host_deltas_diff(&mc, &mc0, &mc1);
	bench_deltas_free(&vm1);
	bench_deltas_free(&mc1);
	for (i = 0; i < threads; i++) {
		reads += hr[i].reads;
		waited += hr[i].waited;
		wait_ns += hr[i].wait_ns;
		if (hr[i].err && !err)
			err = hr[i].err;
	}
	/* v2 counts the cgroup's reclaim; v1 has only the machine's */
	steal = cg->v2 ? host_delta_of(&mc, "pgsteal") :
		host_delta_of(&vm, "pgsteal_file") + host_delta_of(&vm, "pgsteal_anon");
	turnovers = steal / secs * (FLUSH_TIME_MS / 1000.0) / (double)(o->max / PAGE_SIZE);

	j = json_object();
	json_object_set_new(j, "engine", json_string("host-kernel"));
	json_object_set_new(j, "kernel", json_string(host_kernel_release()));
	json_object_set_new(j, "workload", json_string("usemem"));
	json_object_set_new(j, "type", json_string("file"));
	json_object_set_new(j, "cgroup", json_string(cg->v2 ? "v2" : "v1"));
	json_object_set_new(j, "threads", json_integer(threads));
	json_object_set_new(j, "mem_per_thread", json_integer(o->mem));
	json_object_set_new(j, "memory_max", json_integer(o->max));
	json_object_set_new(j, "pattern", json_string(usemem_pattern_name(o, pat, sizeof(pat))));
	json_object_set_new(j, "fadvise", json_string(usemem_fadvise_name(o)));
	json_object_set_new(j, "read_ahead_kb", json_integer(ra_kb));
	json_object_set_new(j, "seconds", json_real(secs));
	json_object_set_new(j, "accesses", json_integer(reads));
	json_object_set_new(j, "pages_per_sec", json_real(reads / secs));
	json_object_set_new(j, "vmstat", bench_deltas_json(&vm));
	json_object_set_new(j, "memory_stat", bench_deltas_json(&mc));
	json_object_set_new(j, "active_file_share_end",
			    json_real(active + inactive ? (double)active / (double)(active + inactive) : 0));
	/* the kernel's flush timing, as the model's default */
	json_object_set_new(j, "memcg_flush_ms", json_integer(FLUSH_TIME_MS));
	json_object_set_new(j, "memcg_flush", json_string("kernel"));
	json_object_set_new(j, "leaf_turnovers_per_flush_period", json_real(turnovers));
	json_object_set_new(j, "reads_waited", json_integer((json_int_t)waited));
	json_object_set_new(j, "read_wait_us", json_real(waited ? wait_ns / 1e3 / waited : 0));
	host_report_readahead(j, traced ? ra : NULL, complete, o->json || out_fd >= 0);
	if (!disk) {
		json_object_set_new(j, "disk_read_requests",
				    json_integer((json_int_t)(d1.reads - d0.reads)));
		json_object_set_new(j, "disk_read_kb_per_request",
				    json_real(d1.reads > d0.reads ? (d1.read_sectors - d0.read_sectors) /
					      2.0 / (d1.reads - d0.reads) : 0));
	}
	if (err)
		json_object_set_new(j, "error", json_string(strerror(err)));
	if (out_fd >= 0) {
		host_json_write(out_fd, j);
	} else if (o->json) {
		bench_json_line(j);
	} else {
		printf("lrulab host usemem: engine host-kernel (Linux %s), %ld thread%s x %lu KiB file, cgroup %s memory limit %lu KiB, pattern %s, fadvise %s, read_ahead_kb %ld, %.2f s\n",
		       host_kernel_release(), threads, threads == 1 ? "" : "s", o->mem >> 10,
		       cg->v2 ? "v2" : "v1", o->max >> 10, usemem_pattern_name(o, pat, sizeof(pat)),
		       usemem_fadvise_name(o), ra_kb, secs);
		/* pgpgin is in KiB */
		printf("\nreads: %lu, %.0f per second; pgpgin pages per read %.3f\n", reads,
		       reads / secs, reads ? host_delta_of(&vm, "pgpgin") / 4.0 / reads : 0);
		printf("active share of the cgroup's file LRU at the end: %.3f\n",
		       active + inactive ? (double)active / (double)(active + inactive) : 0);
		printf("reads that waited %.0f us or more: %lu (%.3f per read), %.1f us each on average\n",
		       HOST_WAIT_NS / 1e3, waited, reads ? (double)waited / reads : 0,
		       waited ? wait_ns / 1e3 / waited : 0);
		if (!disk)
			printf("disk under the file: %llu read requests, %.1f KiB each (the whole machine's)\n",
			       d1.reads - d0.reads, d1.reads > d0.reads ?
			       (d1.read_sectors - d0.read_sectors) / 2.0 / (d1.reads - d0.reads) : 0);
		printf("memcg stats flush: the kernel's; cgroup turnovers per flush period (%u ms): %.2f\n",
		       FLUSH_TIME_MS, turnovers);
		bench_print_deltas(stdout, "vmstat deltas (the whole machine)", &vm);
		bench_print_deltas(stdout, "memory.stat deltas (the run's cgroup)", &mc);
	}
	if (err) {
		fprintf(stderr, "%s: a reader failed: %s\n", prog, strerror(err));
		status = 1;
	}
	json_decref(j);
	bench_deltas_free(&vm);
	bench_deltas_free(&mc);
	return status;
}

/*
 * One run of @threads readers: the files here, the rest in a child that
 * joins the cgroup, so that whatever ends the child (the cgroup's OOM
 * killer included) this process is left to remove the cgroup and files.
 * With @out, the child's JSON object comes back there instead of being
 * printed.  The exit status.
 */
struct usemem_child {
	const char *prog;
	const struct host_usemem_opts *ho;
	long threads;
	struct host_reader *hr;
	const struct host_cgroup *cg;
	long ra_kb;
	struct host_ra_trace *tr;
};

static int usemem_child_fn(void *arg, int out_fd)
{
	struct usemem_child *c = arg;

	return host_usemem_child(c->prog, c->ho, c->threads, c->hr, c->cg, c->ra_kb, out_fd,
				 c->tr);
}

static int host_usemem_run(const char *prog, const struct host_usemem_opts *ho,
			   long threads, const char *dir, const struct host_cgroup *cg, json_t **out)
{
	struct host_reader *hr = calloc((size_t)threads, sizeof(*hr));
	struct usemem_child child = { prog, ho, threads, hr, cg, -1, NULL };
	int status = 1, made = 0;
	struct host_ra_trace tr;
	siginfo_t si;
	long i;

	if (!hr)
		return 1;
	for (i = 0; i < threads; i++) {
		char path[600];

		snprintf(path, sizeof(path), "%s/file%ld", dir, i);
		hr[i].fd = host_file_make(prog, path, ho->b.mem, POSIX_FADV_NORMAL);
		if (hr[i].fd < 0 || usemem_stream_init(&hr[i].stream, &ho->b,
						       ho->b.mem / PAGE_SIZE, (unsigned long)i))
			goto out;
		made++;
		child.ra_kb = file_read_ahead_kb(hr[i].fd);
	}
	/* none when tracefs cannot have it: the run then says so */
	host_ra_trace_make(&tr);
	child.tr = &tr;
	if (host_child_run(prog, usemem_child_fn, &child, out, &si))
		goto out;
	if (si.si_code == CLD_EXITED) {
		status = si.si_status;
	} else {
		fprintf(stderr, "%s: the run was killed by signal %d%s\n", prog, si.si_status,
			si.si_status == SIGKILL ?
			" (the cgroup's OOM killer? --max must leave room for the process itself)" : "");
		status = 1;
	}
out:
	for (i = 0; i < made; i++) {
		close(hr[i].fd);
		usemem_stream_free(&hr[i].stream);
	}
	if (made < threads && hr[made].fd >= 0)
		close(hr[made].fd);
	free(hr);
	return status;
}

int host_usemem_once(const char *prog, const struct host_usemem_opts *ho, long threads,
		     const char *dir, struct host_cgroup *cg, json_t **out)
{
	int status;

	if (out)
		*out = NULL;
	if (cgroup_make(prog, cg, ho->b.max, ho->anon))
		return 1;
	status = ho->anon ? host_usemem_anon_run(prog, ho, threads, dir, cg, out) :
		 host_usemem_run(prog, ho, threads, dir, cg, out);
	/* the child reaped, the files, the cgroup, the directory: in that order */
	host_undo_all();
	if (mkdir(dir, 0700) || host_undo_rmdir(dir))
		return 1;
	return status;
}

/* ---- options and the command ---- */

enum {
	OPT_TYPE = 1, OPT_THREADS, OPT_SECONDS, OPT_MEM, OPT_MAX, OPT_PATTERN, OPT_FADVISE,
	OPT_COMPARE, OPT_REPS, OPT_JSON,
};

static const struct cmd_opt host_usemem_opts[] = {
	{ "type", "file|anon", OPT_TYPE, "file reads, or anon writes swapped to a disk (required)" },
	{ "mem", "SIZE", OPT_MEM, "each thread's file, or each process's memory (default 8M)" },
	{ "max", "SIZE", OPT_MAX, "the cgroup's limit (default an eighth of the working set, at least 1M a thread)" },
	{ "threads", "N[,N...]", OPT_THREADS, "thread counts, one run each (default 1)" },
	{ "seconds", "S", OPT_SECONDS, "the timed reads (default 2)" },
	{ "pattern", "random|zipf:A|seq", OPT_PATTERN, "the reads' order (default random)" },
	{ "fadvise", "normal|random|sequential", OPT_FADVISE, "the files' advice" },
	{ "compare", NULL, OPT_COMPARE, "the model by turns, both side by side" },
	{ "reps", "N", OPT_REPS, "with --compare: runs of each (default 3)" },
	{ "json", NULL, OPT_JSON, "JSON objects instead of text" },
	{ NULL },
};

static const struct cmd_spec host_usemem_spec = {
	.prog = "lrulab host usemem",
	.about = "usemem's file workload on this machine's kernel, for `lrulab bench usemem --type\n"
		 "file` with the same options: each thread reads its own real file of --mem bytes\n"
		 "(made under $TMPDIR or /var/tmp, not tmpfs) once in order, then 4 KiB pread()s in\n"
		 "--pattern's order for --seconds, inside a memory cgroup limited to --max with no\n"
		 "swap.  The page cache of the files is dropped first.  Reports the deltas of\n"
		 "/proc/vmstat and the cgroup's memory.stat under the kernel's names, \"engine\":\n"
		 "\"host-kernel\".  Needs root and a memory controller (cgroup v2, or a v1 memory\n"
		 "hierarchy, under $LRULAB_CGROUP_ROOT, default /sys/fs/cgroup).  Leaves no cgroup\n"
		 "or file behind, also when interrupted.\n\n"
		 "--type anon is usemem's anon workload, for `lrulab bench usemem --swap-io async`:\n"
		 "each of --threads processes, pinned, writes every page of --mem private memory\n"
		 "once, then 8 bytes to pages in --pattern's order, in the cgroup, swapping to a\n"
		 "swap file the run makes there (twice the working set, at the top priority) with\n"
		 "vm.page-cluster 0 (the model reads no swap ahead); both are undone after.  It\n"
		 "reports the disk's mean read time as disk_read_us, bench usemem's --swap-latency.\n\n"
		 "--compare runs `lrulab bench usemem` with the same options after each host run,\n"
		 "--reps times each, the model's files given the host disk's read_ahead_kb and, as\n"
		 "--read-latency, the mean time of the host's reads that waited for the disk, so\n"
		 "that both turn their memory over at the same pace under the kernel's flush\n"
		 "timing; then prints both side by side: pgpgin pages per read,\n"
		 "workingset_activate_file, workingset_restore_file, pgactivate and pgdeactivate\n"
		 "per workingset refault, and the active share of the file LRU, as medians, their\n"
		 "ratio (lrulab / host) and difference.",
	.opts = host_usemem_opts,
};

static int host_usemem_parse(const char *prog, int argc, char **argv,
			     struct host_usemem_opts *ho)
{
	struct bench_opts *o = &ho->b;
	const char *root = getenv("LRULAB_CGROUP_ROOT"), *arg;
	struct cmd_parser cp;
	unsigned long avail;
	bool typed = false, reps_given = false;
	long most = 0;
	double d;
	int c, i;

	memset(ho, 0, sizeof(*ho));
	if (root && strlen(root) >= sizeof(ho->cg_root)) {
		fprintf(stderr, "%s: LRULAB_CGROUP_ROOT: longer than 255 characters\n", prog);
		return 2;
	}
	snprintf(ho->cg_root, sizeof(ho->cg_root), "%s", root && *root ? root : "/sys/fs/cgroup");
	o->threads[0] = 1;
	o->nr_threads = 1;
	o->mem = 8UL << 20;
	o->seconds = 2.0;
	o->fadvise = -1;
	o->regular = true;
	ho->reps = 3;
	cmd_parse_init(&cp, &host_usemem_spec, argc, argv);
	while ((c = cmd_parse_next(&cp, &arg)) != CMD_OPT_END) {
		switch (c) {
		case CMD_OPT_HELP:
			return 1;
		case CMD_OPT_ERROR:
			return 2;
		case OPT_TYPE:
			if (strcmp(arg, "file") && strcmp(arg, "anon")) {
				fprintf(stderr, "%s: --type: file or anon, not '%s'\n", prog, arg);
				return 2;
			}
			ho->anon = !strcmp(arg, "anon");
			o->regular = !ho->anon;
			typed = true;
			break;
		case OPT_THREADS:
			if (bench_parse_threads(prog, arg, o->threads, &o->nr_threads))
				return 2;
			break;
		case OPT_SECONDS:
			if (parse_double(prog, "--seconds", arg, 0.001, 3600, &d))
				return 2;
			o->seconds = d;
			break;
		case OPT_MEM:
		case OPT_MAX:
			if (parse_size(prog, c == OPT_MEM ? "--mem" : "--max", arg,
				       c == OPT_MEM ? &o->mem : &o->max))
				return 2;
			if (c == OPT_MAX && (!o->max || o->max % PAGE_SIZE)) {
				fprintf(stderr, "%s: --max: must be a positive multiple of 4K\n", prog);
				return 2;
			}
			break;
		case OPT_PATTERN:
			if (usemem_pattern_parse(prog, arg, o))
				return 2;
			break;
		case OPT_FADVISE:
			if (usemem_fadvise_parse(prog, arg, o))
				return 2;
			break;
		case OPT_COMPARE:
			ho->compare = true;
			break;
		case OPT_REPS:
			if (parse_long(prog, "--reps", arg, 1, 100, &ho->reps))
				return 2;
			reps_given = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		}
	}
	if (cmd_parse_end(&cp))
		return 2;
	if (!typed) {
		fprintf(stderr, "%s: --type file|anon is required\n", prog);
		return 2;
	}
	if (ho->anon && (ho->compare || o->fadvise >= 0)) {
		fprintf(stderr, "%s: --%s: the file workload's only\n", prog,
			ho->compare ? "compare" : "fadvise");
		return 2;
	}
	if (reps_given && !ho->compare) {
		fprintf(stderr, "%s: --reps: only with --compare\n", prog);
		return 2;
	}
	if (!o->mem || o->mem % PAGE_SIZE || o->mem > BENCH_MAX_MEM) {
		fprintf(stderr, "%s: --mem: must be a positive multiple of 4K, at most 1G\n", prog);
		return 2;
	}
	for (i = 0; i < o->nr_threads; i++)
		most = o->threads[i] > most ? o->threads[i] : most;
	avail = host_mem_available();
	if (avail && (unsigned long)most * o->mem > avail / 4 * 3) {
		fprintf(stderr, "%s: %ld thread%s x %luM is more than 3/4 of the %luM this machine has available\n",
			prog, most, most == 1 ? "" : "s", o->mem >> 20, avail >> 20);
		return 2;
	}
	if (o->max && o->max >= o->mem * (unsigned long)most) {
		fprintf(stderr, "%s: the working set (--mem x --threads) must exceed --max\n", prog);
		return 2;
	}
	return 0;
}

int host_usemem_main(const char *prog, int argc, char **argv)
{
	char dir[512], sprog[64];
	const char *tmp = getenv("TMPDIR");
	struct host_usemem_opts ho;
	struct host_cgroup cg;
	unsigned long given_max;
	struct statfs sf;
	int i, ret, status = 0;

	snprintf(sprog, sizeof(sprog), "%s usemem", prog);
	ret = host_usemem_parse(sprog, argc, argv, &ho);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (geteuid()) {
		fprintf(stderr, "%s: needs root, to make a memory cgroup\n", sprog);
		return 1;
	}
	if (cgroup_find(ho.cg_root, &cg)) {
		fprintf(stderr, "%s: no memory controller under %s (cgroup v2 with memory, or a v1 memory hierarchy)\n",
			sprog, ho.cg_root);
		return 1;
	}
	if (tmp && strlen(tmp) > 256) {
		fprintf(stderr, "%s: TMPDIR: longer than 256 characters\n", sprog);
		return 2;
	}
	/* the PID in the name: a later run clears it if this one is killed */
	snprintf(dir, sizeof(dir), "%s/lrulab-host-%d-XXXXXX", tmp && *tmp ? tmp : "/var/tmp",
		 (int)getpid());
	if (!mkdtemp(dir)) {
		fprintf(stderr, "%s: cannot make a directory for the files: %s\n", sprog,
			strerror(errno));
		return 1;
	}
	if (host_undo_rmdir(dir)) {
		rmdir(dir);
		return 1;
	}
	if (statfs(dir, &sf) || sf.f_type == TMPFS_MAGIC_NR) {
		fprintf(stderr, "%s: %s is on tmpfs, %s: set TMPDIR to a disk's file system\n",
			sprog, dir, ho.anon ? "which cannot hold a swap file" :
			"whose pages are not the file LRU");
		host_undo_all();
		return 1;
	}
	given_max = ho.b.max;
	for (i = 0; i < ho.b.nr_threads && !status; i++) {
		long threads = ho.b.threads[i];
		struct bench_opts *o = &ho.b;
		unsigned long max = given_max;

		if (!max)
			max = (o->mem * (unsigned long)threads / 8 > (1UL << 20) * (unsigned long)threads) ?
			      o->mem * (unsigned long)threads / 8 : (1UL << 20) * (unsigned long)threads;
		o->max = max;
		if (i && !o->json)
			printf("\n");
		if (ho.compare)
			status = host_usemem_compare(sprog, &ho, threads, dir, &cg);
		else
			status = host_usemem_once(sprog, &ho, threads, dir, &cg, NULL);
	}
	host_undo_all();
	return status;
}
