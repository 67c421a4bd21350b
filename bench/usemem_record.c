// SPDX-License-Identifier: MIT
/*
 * `usemem --record FILE`: usemem runs its own model, so it records
 * itself, through the registered recorder (bench_recorder_get()).  The
 * recording starts before its threads do and keeps what follows the
 * window's lockstat_reset() (the prefault is dropped with the
 * statistics); it stops when the window's threads are joined, before the
 * teardown takes the locks again, and is written once the run's
 * invariants were checked.  The unit of a usemem recording is an access.
 */
#include <stdio.h>

#include "usemem.h"

#define PROG "lrulab bench usemem"

static const struct bench_recorder *rc;

int usemem_record_begin(const struct bench_opts *o)
{
	if (!o->record)
		return 0;
	rc = bench_recorder_get(PROG);
	return rc ? rc->start(PROG) : -1;
}

void usemem_record_stop(const struct bench_opts *o)
{
	if (o->record && rc)
		rc->stop();
}

int usemem_record_write(const struct bench_opts *o, const char *type, long threads,
			unsigned long accesses, double secs, const char *failed)
{
	if (!o->record)
		return 0;
	if (!rc)
		return -1;
	return rc->write_usemem(PROG, o->record, type, threads, accesses, secs, failed);
}
