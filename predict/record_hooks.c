// SPDX-License-Identifier: MIT
/*
 * The predictor's part in the commands below it: the recorder that bench
 * --record goes through, repro --predict's rows and ab --predict-cpus.  bench and repro
 * call these through what is registered here, so that they never name
 * the predictor (predict's commands sit above bench, not beside it).
 */
#include <stdio.h>
#include <string.h>

#include <lrulab/switches.h>

#include "bench/repro.h"
#include "predict-internal.h"
#include "tools/commands.h"

static int rec_start(const char *prog)
{
	if (pred_record_start()) {
		fprintf(stderr, "%s: cannot start recording: out of memory\n", prog);
		return -1;
	}
	return 0;
}

static int rec_write_run(const char *prog, const char *path, const struct bench_workload *w,
			 const struct bench_opts *o, const struct bench_result *r)
{
	struct pred_recording rec;
	int err;

	if (pred_record_finish(prog, w, o, r, &rec))
		return -1;
	err = pred_recording_write(prog, path, &rec);
	pred_recording_free(&rec);
	return err;
}

/* usemem's recording between its stop() and its write */
static struct pred_recording usemem_rec;
static bool usemem_rec_stopped;

static void rec_stop(void)
{
	memset(&usemem_rec, 0, sizeof(usemem_rec));
	usemem_rec_stopped = !pred_record_stop(&usemem_rec);
}

static int rec_write_usemem(const char *prog, const char *path, const char *type,
			    long threads, unsigned long accesses, double secs,
			    const char *failed)
{
	struct pred_run_desc d = {
		.workload = "usemem", .type = type, .threads = threads,
		.pages = accesses, .seconds = secs, .switches = lrulab_switches,
		.failed = failed, .lock = READ_ONCE(lrulab_lock_impl),
	};
	int err;

	if (!usemem_rec_stopped) {
		fprintf(stderr, "%s: recording: out of memory\n", prog);
		return -1;
	}
	usemem_rec_stopped = false;
	if (pred_record_describe(prog, &d, &usemem_rec))
		return -1;
	err = pred_recording_write(prog, path, &usemem_rec);
	pred_recording_free(&usemem_rec);
	return err;
}

static const struct bench_recorder pred_recorder = {
	.start = rec_start,
	.write_run = rec_write_run,
	.stop = rec_stop,
	.write_usemem = rec_write_usemem,
};

void predict_hooks_register(void)
{
	bench_recorder_register(&pred_recorder);
	repro_predict_hook();
	ab_predict_hook();
}
