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

#include <lrulab/host.h>
#include <lrulab/parse.h>

#define TMPFS_MAGIC_NR	0x01021994

struct host_usemem_opts {
	struct bench_opts b;		/* --mem, --max, --threads, --seconds, --pattern, ... */
	char cg_root[256];		/* where cgroup file systems are mounted */
};

/* ---- the memory cgroup ---- */

struct host_cgroup {
	bool v2;
	char dir[1024];			/* the run's cgroup */
};

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, value, strlen(value)) < 0)
		ret = -1;
	close(fd);
	return ret;
}

/*
 * v2 when the unified hierarchy at @root has the memory controller, else
 * a v1 memory hierarchy mounted at @root/memory.  0, or -1.
 */
static int cgroup_find(const char *root, struct host_cgroup *cg)
{
	char path[1024], buf[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (!read_file(path, buf, sizeof(buf)) && strstr(buf, "memory")) {
		cg->v2 = true;
		/* a child of the root: its subtree must hand out memory */
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
		if (write_file(path, "+memory"))
			return -1;
		snprintf(cg->dir, sizeof(cg->dir), "%s/lrulab-%d", root, (int)getpid());
		return 0;
	}
	snprintf(path, sizeof(path), "%s/memory/memory.limit_in_bytes", root);
	if (stat(path, &st))
		return -1;
	cg->v2 = false;
	snprintf(cg->dir, sizeof(cg->dir), "%s/memory/lrulab-%d", root, (int)getpid());
	return 0;
}

static int cgroup_set(const struct host_cgroup *cg, const char *file, unsigned long v)
{
	char path[1100], val[32];

	snprintf(path, sizeof(path), "%s/%s", cg->dir, file);
	snprintf(val, sizeof(val), "%lu", v);
	return write_file(path, val);
}

/* Make the cgroup with its limit and no swap, undo registered first.  0, or -1 after one error line. */
static int cgroup_make(const char *prog, struct host_cgroup *cg, unsigned long max)
{
	char path[1100];

	if (host_undo_rmdir(cg->dir) || mkdir(cg->dir, 0755)) {
		fprintf(stderr, "%s: cannot create the memory cgroup %s: %s\n", prog, cg->dir,
			strerror(errno));
		return -1;
	}
	if (cgroup_set(cg, cg->v2 ? "memory.max" : "memory.limit_in_bytes", max)) {
		fprintf(stderr, "%s: cannot set the limit of %s: %s\n", prog, cg->dir,
			strerror(errno));
		return -1;
	}
	/* swap: v2 swap alone, v1 memory+swap (present with swap accounting only) */
	snprintf(path, sizeof(path), "%s/%s", cg->dir,
		 cg->v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes");
	if (!access(path, F_OK))
		cgroup_set(cg, cg->v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes",
			   cg->v2 ? 0 : max);
	return 0;
}

/* The calling process (the run's child) joins the cgroup. */
static int cgroup_join(const char *prog, const struct host_cgroup *cg)
{
	char path[1100], pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	if (write_file(path, pid)) {
		fprintf(stderr, "%s: cannot join the memory cgroup %s: %s\n", prog, cg->dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

static void cgroup_read_stat(const struct host_cgroup *cg, struct bench_deltas *d)
{
	static char text[65536];
	char path[1100];

	d->nr = 0;
	d->d = NULL;
	snprintf(path, sizeof(path), "%s/memory.stat", cg->dir);
	if (!read_file(path, text, sizeof(text)))
		bench_deltas_parse(d, text);
}

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
	if (read_file(path, buf, sizeof(buf))) {
		/* a partition: its disk's queue */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/read_ahead_kb",
			 major(st.st_dev), minor(st.st_dev));
		if (read_file(path, buf, sizeof(buf)))
			return -1;
	}
	return atol(buf);
}

/* A file of @size bytes, synced and out of the page cache; fd, or -1 after one error line. */
static int file_make(const char *prog, const char *path, unsigned long size)
{
	static char chunk[1 << 20];
	unsigned long off;
	int fd;

	if (host_undo_unlink(path)) {
		fprintf(stderr, "%s: too many things to undo\n", prog);
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	memset(chunk, 0x5a, sizeof(chunk));
	for (off = 0; off < size; off += sizeof(chunk)) {
		size_t n = size - off < sizeof(chunk) ? size - off : sizeof(chunk);

		if (pwrite(fd, chunk, n, (off_t)off) != (ssize_t)n)
			goto fail;
	}
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		goto fail;
	return fd;
fail:
	fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
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
	int err;
};

static void *host_reader_fn(void *arg)
{
	struct host_reader *hr = arg;
	unsigned long pages = hr->o->mem / PAGE_SIZE, i;
	char buf[PAGE_SIZE];

	if (host_pin(hr->index))
		hr->err = EINVAL;
	/* the model's prefault: every page read once, in order */
	for (i = 0; i < pages && !hr->err; i++)
		if (pread(hr->fd, buf, PAGE_SIZE, (off_t)(i * PAGE_SIZE)) != PAGE_SIZE)
			hr->err = errno ? errno : EIO;
	pthread_barrier_wait(hr->ready);
	pthread_barrier_wait(hr->go);
	while (!hr->err && !__atomic_load_n(hr->stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < 64; i++) {
			off_t off = (off_t)(usemem_stream_next(&hr->stream) * PAGE_SIZE);

			if (pread(hr->fd, buf, PAGE_SIZE, off) != PAGE_SIZE) {
				hr->err = errno ? errno : EIO;
				break;
			}
		}
		hr->reads += i;
	}
	return NULL;
}

static void deltas_diff(struct bench_deltas *out, struct bench_deltas *before,
			const struct bench_deltas *after)
{
	memset(out, 0, sizeof(*out));
	bench_deltas_accumulate(out, before, after);
	bench_deltas_free(before);
}

static const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	return u.release;
}

static long long delta_of(const struct bench_deltas *d, const char *name)
{
	int i;

	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->d[i].name, name))
			return d->d[i].delta;
	return 0;
}

/*
 * The child's part of a run: in the cgroup, the readers, the counters,
 * the report.  Its exit status.
 */
static int host_usemem_child(const char *prog, const struct host_usemem_opts *ho,
			     long threads, struct host_reader *hr,
			     const struct host_cgroup *cg, long ra_kb)
{
	const struct bench_opts *o = &ho->b;
	struct timespec ts = {
		.tv_sec = (time_t)o->seconds,
		.tv_nsec = (long)((o->seconds - (time_t)o->seconds) * 1e9),
	}, a, b;
	struct bench_deltas vm0, mc0, vm1, mc1, vm, mc;
	pthread_barrier_t ready, go;
	unsigned long reads = 0;
	int stop = 0, err = 0, status = 0;
	long long active, inactive;
	char pat[32];
	double secs;
	json_t *j;
	long i;

	if (cgroup_join(prog, cg))
		return 1;
	pthread_barrier_init(&ready, NULL, (unsigned int)threads + 1);
	pthread_barrier_init(&go, NULL, (unsigned int)threads + 1);
	for (i = 0; i < threads; i++) {
		if (o->fadvise >= 0)
			posix_fadvise(hr[i].fd, 0, 0, o->fadvise);
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
	/* node counters fold per-CPU diffs lazily: fold them (root) */
	write_file("/proc/sys/vm/stat_refresh", "1");
	host_read_vmstat(&vm0);
	cgroup_read_stat(cg, &mc0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	pthread_barrier_wait(&go);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < threads; i++)
		pthread_join(hr[i].tid, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	write_file("/proc/sys/vm/stat_refresh", "1");
	host_read_vmstat(&vm1);
	cgroup_read_stat(cg, &mc1);
	/* the file LRU's split at the end, as the model reports it */
	active = delta_of(&mc1, "active_file");
	inactive = delta_of(&mc1, "inactive_file");
	deltas_diff(&vm, &vm0, &vm1);
	deltas_diff(&mc, &mc0, &mc1);
	bench_deltas_free(&vm1);
	bench_deltas_free(&mc1);
	for (i = 0; i < threads; i++) {
		reads += hr[i].reads;
		if (hr[i].err && !err)
			err = hr[i].err;
	}

	j = json_object();
	json_object_set_new(j, "engine", json_string("host-kernel"));
	json_object_set_new(j, "kernel", json_string(kernel_release()));
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
	if (err)
		json_object_set_new(j, "error", json_string(strerror(err)));
	if (o->json) {
		bench_json_line(j);
	} else {
		printf("lrulab host usemem: engine host-kernel (Linux %s), %ld thread%s x %lu KiB file, cgroup %s memory limit %lu KiB, pattern %s, fadvise %s, read_ahead_kb %ld, %.2f s\n",
		       kernel_release(), threads, threads == 1 ? "" : "s", o->mem >> 10,
		       cg->v2 ? "v2" : "v1", o->max >> 10, usemem_pattern_name(o, pat, sizeof(pat)),
		       usemem_fadvise_name(o), ra_kb, secs);
		/* pgpgin is in KiB */
		printf("\nreads: %lu, %.0f per second; pgpgin pages per read %.3f\n", reads,
		       reads / secs, reads ? delta_of(&vm, "pgpgin") / 4.0 / reads : 0);
		printf("active share of the cgroup's file LRU at the end: %.3f\n",
		       active + inactive ? (double)active / (double)(active + inactive) : 0);
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
 * The exit status.
 */
static int host_usemem_run(const char *prog, const struct host_usemem_opts *ho,
			   long threads, const char *dir, const struct host_cgroup *cg)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct host_reader *hr = calloc((size_t)threads, sizeof(*hr));
	int status = 1, made = 0;
	sigset_t block, old;
	long ra_kb = -1, i;
	siginfo_t si;
	pid_t pid;

	if (!hr)
		return 1;
	for (i = 0; i < threads; i++) {
		char path[600];

		snprintf(path, sizeof(path), "%s/file%ld", dir, i);
		hr[i].fd = file_make(prog, path, ho->b.mem);
		if (hr[i].fd < 0 || usemem_stream_init(&hr[i].stream, &ho->b,
						       ho->b.mem / PAGE_SIZE, (unsigned long)i))
			goto out;
		made++;
		ra_kb = file_read_ahead_kb(hr[i].fd);
	}
	/* no signal between the fork and the child's undo */
	sigemptyset(&block);
	for (i = 0; i < (long)ARRAY_SIZE(sigs); i++)
		sigaddset(&block, sigs[i]);
	fflush(stdout);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid == 0) {
		/* the parent's undo is the parent's: not at the child's exit or signal */
		for (i = 0; i < (long)ARRAY_SIZE(sigs); i++)
			signal(sigs[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		status = host_usemem_child(prog, ho, threads, hr, cg, ra_kb);
		fflush(stdout);
		_exit(status);
	}
	if (pid < 0 || host_undo_kill(pid)) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		fprintf(stderr, "%s: cannot start the run: %s\n", prog,
			pid < 0 ? strerror(errno) : "too many things to undo");
		goto out;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* left a zombie, so that the undo's kill cannot reach a reused pid */
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) && errno == EINTR)
		;
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

/* ---- options and the command ---- */

static const struct option host_usemem_options[] = {
	{ "type", required_argument, NULL, 'T' },
	{ "threads", required_argument, NULL, 't' },
	{ "seconds", required_argument, NULL, 's' },
	{ "mem", required_argument, NULL, 'm' },
	{ "max", required_argument, NULL, 'X' },
	{ "pattern", required_argument, NULL, 'A' },
	{ "fadvise", required_argument, NULL, 'V' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void host_usemem_usage(FILE *f)
{
	fprintf(f, "usage: lrulab host usemem --type file [--mem SIZE] [--max SIZE] [--threads N[,N...]]\n"
		   "       [--seconds S] [--pattern random|zipf:A|seq] [--fadvise normal|random|sequential]\n"
		   "       [--json]\n\n"
		   "usemem's file workload on this machine's kernel, for `lrulab bench usemem --type\n"
		   "file` with the same options: each thread reads its own real file of --mem bytes\n"
		   "(default 8M; made under $TMPDIR or /var/tmp, not tmpfs) once in order, then 4 KiB\n"
		   "pread()s in --pattern's order (default random) for --seconds (default 2), inside\n"
		   "a memory cgroup limited to --max (default an eighth of the working set, at least\n"
		   "1M per thread) with no swap.  The page cache of the files is dropped first.\n"
		   "Reports the deltas of /proc/vmstat and the cgroup's memory.stat under the kernel's\n"
		   "names, \"engine\": \"host-kernel\".  Needs root and a memory controller (cgroup v2, or a\n"
		   "v1 memory hierarchy, under $LRULAB_CGROUP_ROOT, default /sys/fs/cgroup).  Leaves no\n"
		   "cgroup or file behind, also when interrupted.\n");
}

static int host_usemem_parse(const char *prog, int argc, char **argv,
			     struct host_usemem_opts *ho)
{
	struct bench_opts *o = &ho->b;
	const char *root = getenv("LRULAB_CGROUP_ROOT");
	unsigned long avail;
	bool typed = false;
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
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", host_usemem_options, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (strcmp(optarg, "file")) {
				fprintf(stderr, "%s: --type: only file runs on the host so far, not '%s'\n",
					prog, optarg);
				return 2;
			}
			typed = true;
			break;
		case 't':
			if (bench_parse_threads(prog, optarg, o->threads, &o->nr_threads))
				return 2;
			break;
		case 's':
			if (parse_double(prog, "--seconds", optarg, 0.001, 3600, &d))
				return 2;
			o->seconds = d;
			break;
		case 'm':
		case 'X':
			if (parse_size(prog, c == 'm' ? "--mem" : "--max", optarg,
				       c == 'm' ? &o->mem : &o->max))
				return 2;
			if (c == 'X' && (!o->max || o->max % PAGE_SIZE)) {
				fprintf(stderr, "%s: --max: must be a positive multiple of 4K\n", prog);
				return 2;
			}
			break;
		case 'A':
			if (usemem_pattern_parse(prog, optarg, o))
				return 2;
			break;
		case 'V':
			if (usemem_fadvise_parse(prog, optarg, o))
				return 2;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			host_usemem_usage(stdout);
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
	if (!typed) {
		fprintf(stderr, "%s: --type file: the host runs the file workload only\n", prog);
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
		fprintf(stderr, "%s: %ld threads x %luM is more than 3/4 of the %luM this machine has available\n",
			prog, most, o->mem >> 20, avail >> 20);
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
	snprintf(dir, sizeof(dir), "%s/lrulab-host-XXXXXX", tmp && *tmp ? tmp : "/var/tmp");
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
		fprintf(stderr, "%s: %s is on tmpfs, whose pages are not the file LRU: set TMPDIR to a disk's file system\n",
			sprog, dir);
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
		if (cgroup_make(sprog, &cg, max)) {
			status = 1;
			break;
		}
		if (i && !o->json)
			printf("\n");
		status = host_usemem_run(sprog, &ho, threads, dir, &cg);
		/* the child reaped, the files, the cgroup: undone in that order */
		host_undo_all();
		if (i + 1 < o->nr_threads && (mkdir(dir, 0700) || host_undo_rmdir(dir)))
			status = 1;
	}
	host_undo_all();
	return status;
}
