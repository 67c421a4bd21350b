// SPDX-License-Identifier: MIT
/*
 * Recording usemem for the predictor.  usemem runs its own model (a
 * memcg limit, swap, a prefault before its window), so it records itself
 * into a file (bench/usemem_record.c), read back here.  As for the other
 * workloads, a run without recording comes first: its CPU time per
 * access, less the time its threads spun on locks, is what the recorded
 * work is scaled to.  An access is the recording's page.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "predict-internal.h"

/* CPU time per access outside lock waits: 0 when the run says nothing */
static double usemem_plain_ns(json_t *j)
{
	double cpu = json_number(j, "user_s") + json_number(j, "sys_s");
	double accesses = json_number(j, "accesses"), wait = 0;
	json_t *l;
	size_t i;

	json_array_foreach(json_object_get(j, "locks"), i, l)
		wait += json_number(l, "wait_total_ns");
	cpu = cpu * 1e9 - wait;
	return accesses > 0 && cpu > 0 ? cpu / accesses : 0;
}

static int usemem_once(const char *prog, const struct bench_opts *o, long threads,
		       json_t **j)
{
	int ret = bench_usemem_run(o, threads, NULL, j);

	if (ret < 0) {
		fprintf(stderr, "%s: cannot set up usemem's model: %s\n", prog, strerror(-ret));
		return -1;
	}
	if (ret) {
		fprintf(stderr, "%s: usemem failed: %s\n", prog,
			json_object_get(*j, "error") ? "a worker ran out of memory" :
			"invariants violated");
		return -1;
	}
	return 0;
}

int pred_record_usemem(const char *prog, const struct bench_opts *o, long threads,
		       struct pred_recording *rec, double *steal_per_access)
{
	char path[4096];
	struct bench_opts p = *o;
	json_t *j = NULL;
	double plain;
	int fd, err;

	p.record = NULL;
	err = usemem_once(prog, &p, threads, &j);
	plain = err ? 0 : usemem_plain_ns(j);
	json_decref(j);
	if (err)
		return -1;
	fd = tmpfile_create("usemem-record", path, sizeof(path));
	if (fd < 0) {
		fprintf(stderr, "%s: cannot make a file for the recording: %s\n", prog,
			strerror(errno));
		return -1;
	}
	close(fd);
	p.record = path;
	j = NULL;
	err = usemem_once(prog, &p, threads, &j);
	if (!err && steal_per_access)
		*steal_per_access = json_number(j, "pgsteal") /
				    json_number(j, "accesses");
	json_decref(j);
	if (!err)
		err = pred_recording_read(prog, path, rec);
	unlink(path);
	if (err)
		return -1;
	rec->plain_cpu_ns_per_page = plain;
	return 0;
}
