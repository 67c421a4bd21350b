/* SPDX-License-Identifier: MIT */
/*
 * `lrulab host usemem` inside: the options, the run's memory cgroup, one
 * host run (bench/host_usemem.c) and --compare (bench/host_compare.c).
 */
#ifndef LRULAB_BENCH_HOST_USEMEM_H
#define LRULAB_BENCH_HOST_USEMEM_H

#include <signal.h>
#include <lrulab/fs.h>
#include "bench/host.h"

struct host_usemem_opts {
	struct bench_opts b;		/* --mem, --max, --threads, --seconds, --pattern, ... */
	bool anon;			/* --type anon: private memory, swapped to a file */
	char cg_root[256];		/* where cgroup file systems are mounted */
	bool compare;			/* --compare: the model too, alternating */
	long reps;			/* --reps: runs of each with --compare */
};

struct host_cgroup {
	bool v2;
	char dir[1024];			/* the run's cgroup */
};

/* bench/host_cgroup.c: 0 or -1 (cgroup_make, cgroup_join, host_file_make after one error line) */
int host_read_file(const char *path, char *buf, size_t len);
int host_write_file(const char *path, const char *value);
int cgroup_find(const char *root, struct host_cgroup *cg);
int cgroup_make(const char *prog, struct host_cgroup *cg, unsigned long max, bool swap);
int cgroup_join(const char *prog, const struct host_cgroup *cg);
void cgroup_read_stat(const struct host_cgroup *cg, struct bench_deltas *d);
int host_file_make(const char *prog, const char *path, unsigned long size, int advice);
int host_child_run(const char *prog, int (*fn)(void *arg, int out_fd), void *arg,
		   json_t **out, siginfo_t *si);
void host_json_write(int fd, json_t *j);
void host_counters_read(const struct host_cgroup *cg, struct bench_deltas *vm,
			struct bench_deltas *mc);

/* bench/host_trace.c: the readahead tracepoints of the run's files */
struct host_ra_trace {
	char dir[256];			/* the run's tracefs instance */
	bool made, on;
};

int host_ra_trace_make(struct host_ra_trace *t);
int host_ra_trace_start(struct host_ra_trace *t, const unsigned long *ino, int n);
int host_ra_trace_stop(struct host_ra_trace *t, unsigned long ev[NR_RA_EVENTS], bool *complete);

/*
 * One run of @threads readers on the host in a fresh cgroup limited to
 * ho->b.max, everything it made undone but @dir, which is made again.
 * With @out, its JSON object comes back there instead of being printed.
 * The exit status.
 */
int host_usemem_once(const char *prog, const struct host_usemem_opts *ho, long threads,
		     const char *dir, struct host_cgroup *cg, json_t **out);

/* @after less @before into @out (@before freed) */
void host_deltas_diff(struct bench_deltas *out, struct bench_deltas *before,
		      const struct bench_deltas *after);
const char *host_kernel_release(void);
/* @name's delta in @d, 0 if it has none */
long long host_delta_of(const struct bench_deltas *d, const char *name);

/*
 * bench/host_usemem_anon.c: --type anon's run of @threads processes in
 * cgroup @cg (made, limited to ho->b.max), swapping to a file of their
 * own under @dir; the exit status, @out as host_usemem_once()'s.
 */
int host_usemem_anon_run(const char *prog, const struct host_usemem_opts *ho, long threads,
			 const char *dir, const struct host_cgroup *cg, json_t **out);

/* --compare for @threads threads: host and model alternating; the exit status. */
int host_usemem_compare(const char *prog, const struct host_usemem_opts *ho, long threads,
			const char *dir, struct host_cgroup *cg);

#endif /* LRULAB_BENCH_HOST_USEMEM_H */
