// SPDX-License-Identifier: MIT
/*
 * `lrulab host usemem --type anon`: usemem's anon workload on this
 * machine's kernel, swapping to a disk, beside `lrulab bench usemem
 * --swap-io async` (the s1 mail's setup: a swap file on a disk).
 *
 * The run makes its own swap file under the run's directory: at least
 * twice the working set, allocated, headed as mkswap heads one and
 * turned on at the highest priority, so that the run's pages go there
 * first.  vm.page-cluster is set to 0 for the run: the model has no
 * swap readahead, so both read one page a fault.  Each process (the
 * mail's usemem -n forks them) pinned to a processor maps --mem of
 * private memory, no THP, writes every page once (the prefault), then
 * writes 8 bytes to pages in --pattern's order for --seconds, all inside
 * the run's memory cgroup limited to --max.
 *
 * Reported: the accesses, the deltas of /proc/vmstat and memory.stat
 * under the kernel's names, and the disk's mean read and write time
 * from its stat file (the whole disk's requests, not only the swap
 * file's): the read's is what `bench usemem --swap-latency` takes.  The
 * swap file is swapped off and removed, page-cluster restored, at the
 * end or on a signal (bench/host_sys.c's undo); a killed run's file is
 * swapped off by the next run's cleanup of leftovers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bench/host.h"
#include "host_usemem.h"

#define PAGE_CLUSTER	"/proc/sys/vm/page-cluster"
/* the swap header's magic, in the last 10 bytes of its first page */
#define SWAP_MAGIC	"SWAPSPACE2"

/* What each process leaves in the page they share with the coordinator. */
struct anon_slot {
	int ready, err;
	unsigned long accesses;
};

struct anon_run {
	const char *prog;
	const struct host_usemem_opts *ho;
	const struct host_cgroup *cg;
	const char *swap;
	long threads;
	struct anon_slot *slots;	/* MAP_SHARED: the processes' and ours */
	int *go, *stop;
};

/* mkswap's header: version 1, the last usable page, no bad pages */
static int swap_header(int fd, unsigned long pages)
{
	unsigned char page[PAGE_SIZE];
	unsigned int v[2] = { 1, (unsigned int)(pages - 1) };

	memset(page, 0, sizeof(page));
	memcpy(page + 1024, v, sizeof(v));
	memcpy(page + PAGE_SIZE - 10, SWAP_MAGIC, 10);
	return pwrite(fd, page, PAGE_SIZE, 0) == PAGE_SIZE ? 0 : -1;
}

/* The swap file at @path, on; registered to be undone.  0, or -1 after one error line. */
static int swap_file_on(const char *prog, const char *path, unsigned long bytes)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600), err;

	if (fd < 0 || host_undo_unlink(path)) {
		fprintf(stderr, "%s: cannot make the swap file %s: %s\n", prog, path,
			fd < 0 ? strerror(errno) : "too many things to undo");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	err = posix_fallocate(fd, 0, (off_t)bytes);
	if (err || swap_header(fd, bytes / PAGE_SIZE) || fsync(fd)) {
		fprintf(stderr, "%s: cannot make the swap file %s: %s\n", prog, path,
			strerror(err ? err : errno));
		close(fd);
		return -1;
	}
	close(fd);
	/* the kernel's swapon(2): the model's swapon() has the name */
	if (host_undo_swapoff(path) ||
	    syscall(SYS_swapon, path, SWAP_FLAG_PREFER | (32767 & SWAP_FLAG_PRIO_MASK))) {
		fprintf(stderr, "%s: swapon %s: %s\n", prog, path,
			errno ? strerror(errno) : "too many things to undo");
		return -1;
	}
	return 0;
}

/* vm.page-cluster 0 for the run, the old value written back after it */
static int page_cluster_off(const char *prog)
{
	char old[32];

	if (host_read_file(PAGE_CLUSTER, old, sizeof(old)) || host_undo_write(PAGE_CLUSTER, old) ||
	    host_write_file(PAGE_CLUSTER, "0")) {
		fprintf(stderr, "%s: cannot set %s to 0\n", prog, PAGE_CLUSTER);
		return -1;
	}
	return 0;
}

/* What the disk under @path completed, as host_disk_stat() */
static int disk_stat(const char *path, struct host_disk_stat *d)
{
	struct stat st;

	return stat(path, &st) ? -1 : host_disk_stat(st.st_dev, d);
}

/* One process's life: map, prefault, and write in --pattern's order until told to stop. */
static void anon_worker(struct anon_run *r, long i)
{
	const struct bench_opts *o = &r->ho->b;
	unsigned long pages = o->mem / PAGE_SIZE, k, n = 0;
	struct anon_slot *s = &r->slots[i];
	struct usemem_stream stream;
	char *m;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	m = mmap(NULL, o->mem, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || madvise(m, o->mem, MADV_NOHUGEPAGE) || host_pin((int)i) ||
	    usemem_stream_init(&stream, o, pages, (unsigned long)i)) {
		__atomic_store_n(&s->err, errno ? errno : EINVAL, __ATOMIC_RELEASE);
		_exit(1);
	}
	for (k = 0; k < pages; k++)
		m[k * PAGE_SIZE] = 1;
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(r->go, __ATOMIC_ACQUIRE))
		usleep(1000);
	while (!__atomic_load_n(r->stop, __ATOMIC_ACQUIRE)) {
		for (k = 0; k < 64; k++) {
			unsigned long p = usemem_stream_next(&stream);

			*(volatile unsigned long *)(m + p * PAGE_SIZE + 8) = n + k;
		}
		n += 64;
		__atomic_store_n(&s->accesses, n, __ATOMIC_RELAXED);
	}
	_exit(0);
}

/* The first error a process left in its slot, 0: none */
static int anon_setup_error(const struct anon_run *r)
{
	long i;

	for (i = 0; i < r->threads; i++) {
		int err = __atomic_load_n(&r->slots[i].err, __ATOMIC_ACQUIRE);

		if (err)
			return err;
	}
	return 0;
}

/* The processes started and prefaulted: 0, or -1 with those started killed */
static int anon_start(const char *prog, struct anon_run *r, pid_t *pids)
{
	long i, ready;

	for (i = 0; i < r->threads; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			anon_worker(r, i);
		if (pids[i] < 0) {
			fprintf(stderr, "%s: cannot start process %ld: %s\n", prog, i, strerror(errno));
			break;
		}
	}
	for (ready = 0; i == r->threads && ready < r->threads;) {
		int status;

		for (ready = 0; ready < r->threads; ready++)
			if (!__atomic_load_n(&r->slots[ready].ready, __ATOMIC_ACQUIRE))
				break;
		if (ready < r->threads && waitpid(-1, &status, WNOHANG) > 0) {
			int err = anon_setup_error(r);

			if (err)
				fprintf(stderr, "%s: a process could not map, pin or order its memory: %s\n",
					prog, strerror(err));
			else
				fprintf(stderr, "%s: a process died before its prefault ended (the cgroup's OOM killer?)\n",
					prog);
			break;
		}
		usleep(10000);
	}
	if (ready == r->threads)
		return 0;
	for (ready = 0; ready < i; ready++)
		kill(pids[ready], SIGKILL);
	return -1;
}

static double mean_ms(unsigned long long ios, unsigned long long ms)
{
	return ios ? (double)ms * 1000.0 / (double)ios : 0;
}

static void anon_report(const struct anon_run *r, json_t *j, unsigned long accesses, double secs,
			const struct bench_deltas *vm, const struct bench_deltas *mc,
			const struct host_disk_stat *d, bool disk, bool text)
{
	const struct bench_opts *o = &r->ho->b;
	long long in = host_delta_of(vm, "pswpin");
	char buf[32];
	const char *pat = usemem_pattern_name(o, buf, sizeof(buf));

	json_object_set_new(j, "engine", json_string("host-kernel"));
	json_object_set_new(j, "kernel", json_string(host_kernel_release()));
	json_object_set_new(j, "workload", json_string("usemem"));
	json_object_set_new(j, "type", json_string("anon"));
	json_object_set_new(j, "cgroup", json_string(r->cg->v2 ? "v2" : "v1"));
	json_object_set_new(j, "threads", json_integer(r->threads));
	json_object_set_new(j, "mem_per_thread", json_integer(o->mem));
	json_object_set_new(j, "memory_max", json_integer(o->max));
	json_object_set_new(j, "pattern", json_string(pat));
	json_object_set_new(j, "swap_io", json_string("disk"));
	json_object_set_new(j, "page_cluster", json_integer(0));
	json_object_set_new(j, "seconds", json_real(secs));
	json_object_set_new(j, "accesses", json_integer((json_int_t)accesses));
	json_object_set_new(j, "pages_per_sec", json_real(accesses / secs));
	json_object_set_new(j, "pswpin_per_access", json_real(accesses ? (double)in / accesses : 0));
	json_object_set_new(j, "vmstat", bench_deltas_json(vm));
	json_object_set_new(j, "memory_stat", bench_deltas_json(mc));
	if (disk) {
		json_object_set_new(j, "disk_reads", json_integer((json_int_t)d->reads));
		json_object_set_new(j, "disk_read_us", json_real(mean_ms(d->reads, d->read_ms)));
		json_object_set_new(j, "disk_writes", json_integer((json_int_t)d->writes));
		json_object_set_new(j, "disk_write_us", json_real(mean_ms(d->writes, d->write_ms)));
	}
	if (!text)
		return;
	printf("lrulab host usemem: engine host-kernel (Linux %s), %ld process%s x %lu KiB anon, cgroup %s memory limit %lu KiB, pattern %s, swap to a file on disk, page-cluster 0, %.2f s\n",
	       host_kernel_release(), r->threads, r->threads == 1 ? "" : "es", o->mem >> 10,
	       r->cg->v2 ? "v2" : "v1", o->max >> 10, pat, secs);
	printf("\naccesses: %lu, %.0f per second; pswpin per access %.3f\n", accesses,
	       accesses / secs, accesses ? (double)in / accesses : 0);
	if (disk)
		printf("disk under the swap file: %llu reads, %.1f us each; %llu writes, %.1f us each (the whole disk's)\n",
		       d->reads, mean_ms(d->reads, d->read_ms), d->writes,
		       mean_ms(d->writes, d->write_ms));
	bench_print_deltas(stdout, "vmstat deltas (the whole machine)", vm);
	bench_print_deltas(stdout, "memory.stat deltas (the run's cgroup)", mc);
}

/* The window: in the child, which joined the cgroup; the exit status. */
static int anon_child(void *arg, int out_fd)
{
	struct anon_run *r = arg;
	const struct bench_opts *o = &r->ho->b;
	struct timespec ts = {
		.tv_sec = (time_t)o->seconds,
		.tv_nsec = (long)((o->seconds - (time_t)o->seconds) * 1e9),
	}, a, b;
	struct host_disk_stat d0, d1, d = { 0 };
	struct bench_deltas vm0, mc0, vm1, mc1, vm, mc;
	pid_t *pids = calloc((size_t)r->threads, sizeof(*pids));
	unsigned long accesses = 0;
	int status = 0, i, disk;
	double secs;
	json_t *j;

	if (!pids || cgroup_join(r->prog, r->cg) || anon_start(r->prog, r, pids))
		return 1;
	host_counters_read(r->cg, &vm0, &mc0);
	disk = disk_stat(r->swap, &d0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	__atomic_store_n(r->go, 1, __ATOMIC_RELEASE);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	__atomic_store_n(r->stop, 1, __ATOMIC_RELEASE);
	clock_gettime(CLOCK_MONOTONIC, &b);
	for (i = 0; i < r->threads; i++) {
		int ws;

		if (waitpid(pids[i], &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws))
			status = 1;
		accesses += __atomic_load_n(&r->slots[i].accesses, __ATOMIC_RELAXED);
	}
	free(pids);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	if (!disk)
		disk = disk_stat(r->swap, &d1);
	if (!disk)
		d = (struct host_disk_stat){
			.reads = d1.reads - d0.reads, .read_ms = d1.read_ms - d0.read_ms,
			.writes = d1.writes - d0.writes, .write_ms = d1.write_ms - d0.write_ms,
		};
	host_counters_read(r->cg, &vm1, &mc1);
	host_deltas_diff(&vm, &vm0, &vm1);
	host_deltas_diff(&mc, &mc0, &mc1);
	bench_deltas_free(&vm1);
	bench_deltas_free(&mc1);
	j = json_object();
	anon_report(r, j, accesses, secs, &vm, &mc, &d, !disk, out_fd < 0 && !o->json);
	if (status)
		json_object_set_new(j, "error", json_string("a process failed (the cgroup's OOM killer?)"));
	if (out_fd >= 0)
		host_json_write(out_fd, j);
	else if (o->json)
		bench_json_line(j);
	if (status)
		fprintf(stderr, "%s: a process failed (the cgroup's OOM killer? --max must leave room)\n",
			r->prog);
	json_decref(j);
	bench_deltas_free(&vm);
	bench_deltas_free(&mc);
	return status;
}

int host_usemem_anon_run(const char *prog, const struct host_usemem_opts *ho, long threads,
			 const char *dir, const struct host_cgroup *cg, json_t **out)
{
	size_t shared = PAGE_SIZE + (size_t)threads * sizeof(struct anon_slot);
	struct anon_run r = { .prog = prog, .ho = ho, .cg = cg, .threads = threads };
	unsigned long bytes = 2 * ho->b.mem * (unsigned long)threads + (1UL << 20);
	char swap[600];
	void *m;
	siginfo_t si;
	int status;

	snprintf(swap, sizeof(swap), "%s/swap", dir);
	r.swap = swap;
	m = mmap(NULL, shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "%s: cannot map the processes' shared page: %s\n", prog,
			strerror(errno));
		return 1;
	}
	memset(m, 0, shared);
	r.go = m;
	r.stop = (int *)m + 1;
	r.slots = (struct anon_slot *)((char *)m + PAGE_SIZE);
	if (swap_file_on(prog, swap, bytes) || page_cluster_off(prog) ||
	    host_child_run(prog, anon_child, &r, out, &si)) {
		munmap(m, shared);
		return 1;
	}
	status = si.si_code == CLD_EXITED ? si.si_status : 1;
	if (si.si_code != CLD_EXITED)
		fprintf(stderr, "%s: the run was killed by signal %d\n", prog, si.si_status);
	munmap(m, shared);
	return status;
}
