// SPDX-License-Identifier: MIT
/*
 * `lrulab repro --calibrate`: the seed tables with the work outside the
 * locks matched to this machine's kernel.  Each workload shape a table
 * runs (fault-free anon or shmem, mmap-madvise at a folio size) is
 * calibrated once, as `lrulab bench ... --calibrate` does it, and every
 * run of that shape gets the --fault-work found.  Uncalibrated, the
 * model's fault path runs two to three times as fast as the kernel's,
 * which shrinks the share of time under lru_lock that decides contention.
 */
#include <stdio.h>
#include <string.h>

#include "bench/host.h"

#include "repro.h"

#define REPRO_CALIB_SHAPES 8

static struct {
	const char *workload;
	bool shmem;
	unsigned int order;
	unsigned long work_ns;
	char arg[24];
} calib_cache[REPRO_CALIB_SHAPES];
static int nr_calib;

/*
 * The --fault-work argument for @workload's runs of @type at folio order
 * @order: NULL without --calibrate, or when calibration failed (the
 * reason is on stderr and the table runs without).
 */
const char *repro_fault_work(const struct repro_opts *ro, const char *workload,
			     const char *type, unsigned int order)
{
	const struct bench_workload *w = bench_find_workload(workload);
	bool shmem = type && !strcmp(type, "shmem");
	struct bench_opts o;
	int i;

	if (!ro->calibrate || !w)
		return NULL;
	for (i = 0; i < nr_calib; i++)
		if (!strcmp(calib_cache[i].workload, workload) &&
		    calib_cache[i].shmem == shmem && calib_cache[i].order == order)
			return calib_cache[i].arg;
	if (nr_calib == REPRO_CALIB_SHAPES)
		return NULL;
	bench_defaults(w, &o);
	o.shmem = shmem;
	o.folio_order = order;
	o.mem = ro->mem_bytes;
	if (ro->progress)
		fprintf(ro->progress, "  calibrating %s %s %luK against the host kernel...\n",
			workload, shmem ? "shmem" : "anon", (PAGE_SIZE << order) >> 10);
	if (bench_calibrate(w, REPRO_PROG, &o, ro->progress, NULL))
		return NULL;
	i = nr_calib++;
	calib_cache[i].workload = w->name;
	calib_cache[i].shmem = shmem;
	calib_cache[i].order = order;
	calib_cache[i].work_ns = o.fault_work_ns;
	snprintf(calib_cache[i].arg, sizeof(calib_cache[i].arg), "%lu", o.fault_work_ns);
	return calib_cache[i].arg;
}

/* Every cell of a shape gets the same work: "--fault-work N" after its args. */
void repro_cell_calibrate(const struct repro_opts *ro, struct repro_cell *c,
			  const char *workload, const char *type, unsigned int order)
{
	const char *work = repro_fault_work(ro, workload, type, order);

	if (!work)
		return;
	repro_cell_arg(c, "--fault-work");
	repro_cell_arg(c, work);
}

/* "fault work: fault-free anon 4K 651 ns, ..." for a table's notes */
void repro_calib_note(const struct repro_opts *ro, struct repro_table *t,
		      const char *workload)
{
	char buf[200];
	size_t n = 0;
	int i;

	if (!ro->calibrate)
		return;
	buf[0] = 0;
	for (i = 0; i < nr_calib && n < sizeof(buf); i++) {
		if (strcmp(calib_cache[i].workload, workload))
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s %luK %lu ns",
				      n ? ", " : "", calib_cache[i].shmem ? "shmem" : "anon",
				      (PAGE_SIZE << calib_cache[i].order) >> 10,
				      calib_cache[i].work_ns);
	}
	repro_table_note(t, "--calibrate: fault work matched to this machine's kernel: %s",
			 n ? buf : "calibration failed, runs without");
}
