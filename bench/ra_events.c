// SPDX-License-Identifier: MIT
/*
 * The model's readahead as the kernel's readahead tracepoints would have
 * reported it, counted from the readahead_sync, readahead_async and
 * readahead_window trace events (mm/readahead.c) while a run that wants
 * them has the probes on, so that its windows can be set beside a host's
 * traced ones.
 */
#include <lrulab/trace.h>
#include <lrulab/types.h>

#include "bench/bench.h"

static atomic_long_t ra_counts[NR_RA_EVENTS];

static void on_sync(void *data, unsigned long index, unsigned long req_count)
{
	atomic_long_inc(&ra_counts[RA_SYNC_RA]);
}

static void on_async(void *data, unsigned long index)
{
	atomic_long_inc(&ra_counts[RA_ASYNC_RA]);
}

static void on_window(void *data, unsigned long start, unsigned int size,
		      unsigned int async_size)
{
	atomic_long_inc(&ra_counts[RA_WINDOWS]);
	atomic_long_add((long)size, &ra_counts[RA_WINDOW_PAGES]);
}

void readahead_events_start(void)
{
	int i;

	for (i = 0; i < NR_RA_EVENTS; i++)
		atomic_long_set(&ra_counts[i], 0);
	register_trace_readahead_sync(on_sync, NULL);
	register_trace_readahead_async(on_async, NULL);
	register_trace_readahead_window(on_window, NULL);
}

void readahead_events_stop(void)
{
	unregister_trace_readahead_sync(on_sync, NULL);
	unregister_trace_readahead_async(on_async, NULL);
	unregister_trace_readahead_window(on_window, NULL);
}

void readahead_events(unsigned long ev[NR_RA_EVENTS])
{
	int i;

	for (i = 0; i < NR_RA_EVENTS; i++)
		ev[i] = (unsigned long)atomic_long_read(&ra_counts[i]);
}
