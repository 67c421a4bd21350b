// SPDX-License-Identifier: MIT
/*
 * `usemem --record FILE`: usemem runs its own model, so it records
 * itself.  The recording starts before its threads do and keeps what
 * follows the window's lockstat_reset() (the prefault is dropped with the
 * statistics); it stops when the window's threads are joined, before the
 * teardown takes the locks again, and is written once the run's
 * invariants were checked.  The unit of a usemem recording is an access.
 */
#include <stdio.h>
#include <string.h>

#include "predict/predict.h"
#include <lrulab/switches.h>

#include "usemem.h"

#define PROG "lrulab bench usemem"

static struct pred_recording usemem_rec;
static bool usemem_rec_stopped;

int usemem_record_begin(const struct bench_opts *o)
{
	if (!o->record)
		return 0;
	usemem_rec_stopped = false;
	if (pred_record_start()) {
		fprintf(stderr, "%s: cannot start recording: out of memory\n", PROG);
		return -1;
	}
	return 0;
}

void usemem_record_stop(const struct bench_opts *o)
{
	if (!o->record)
		return;
	memset(&usemem_rec, 0, sizeof(usemem_rec));
	usemem_rec_stopped = !pred_record_stop(&usemem_rec);
}

int usemem_record_write(const struct bench_opts *o, const char *type, long threads,
			unsigned long accesses, double secs, const char *failed)
{
	struct pred_run_desc d = {
		.workload = "usemem", .type = type, .threads = threads,
		.pages = accesses, .seconds = secs, .switches = lrulab_switches,
		.failed = failed,
	};
	int err;

	if (!o->record)
		return 0;
	if (!usemem_rec_stopped) {
		fprintf(stderr, "%s: recording: out of memory\n", PROG);
		return -1;
	}
	if (pred_record_describe(PROG, &d, &usemem_rec))
		return -1;
	err = pred_recording_write(PROG, o->record, &usemem_rec);
	pred_recording_free(&usemem_rec);
	return err;
}
