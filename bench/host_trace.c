// SPDX-License-Identifier: MIT
/*
 * The host kernel's readahead windows for `lrulab host usemem`: the
 * readahead tracepoints (page_cache_sync_ra, page_cache_async_ra,
 * page_cache_ra_order) recorded in a tracefs instance of the run's own,
 * filtered to the run's files, over the timed window, and counted as the
 * model counts them (bench/ra_events.c, from mm/readahead.c's trace events).  The kernel
 * has no counter for readahead: tracing is the only account of it.
 *
 * The instance is made by the run's parent with its undo registered, so
 * that it goes with the cgroup and files, however the run ends; the
 * child turns the events on and off around its window and reads them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "host_usemem.h"

#define TRACEFS		"/sys/kernel/tracing"
/* per CPU: an 8 s random run traces some 70K misses of ~100 bytes */
#define TRACE_BUFFER_KB	"16384"

static const char *const ra_tracepoints[] = {
	"page_cache_sync_ra", "page_cache_async_ra", "page_cache_ra_order",
};

static int trace_write(const struct host_ra_trace *t, const char *file, const char *value)
{
	char path[600];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", t->dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		ret = -1;
	close(fd);
	return ret;
}

int host_ra_trace_make(struct host_ra_trace *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%s/instances/lrulab-%d", TRACEFS, (int)getpid());
	if (access(TRACEFS "/instances", W_OK) ||
	    access(TRACEFS "/events/readahead/page_cache_ra_order", F_OK))
		return -1;
	if (host_undo_rmdir(t->dir) || mkdir(t->dir, 0700))
		return -1;
	if (trace_write(t, "buffer_size_kb", TRACE_BUFFER_KB))
		return -1;
	t->made = true;
	return 0;
}

/* The events on, for the inodes @ino[0..@n); 0, or -1 (then nothing is traced). */
int host_ra_trace_start(struct host_ra_trace *t, const unsigned long *ino, int n)
{
	char filter[1024], file[256];
	size_t len = 0;
	int i;

	if (!t->made)
		return -1;
	for (i = 0; i < n && len < sizeof(filter) - 64; i++)
		len += (size_t)snprintf(filter + len, sizeof(filter) - len, "%si_ino == %lu",
					i ? " || " : "", ino[i]);
	for (i = 0; i < (int)ARRAY_SIZE(ra_tracepoints); i++) {
		snprintf(file, sizeof(file), "events/readahead/%s/filter", ra_tracepoints[i]);
		if (trace_write(t, file, filter))
			return -1;
	}
	if (trace_write(t, "trace", "") || trace_write(t, "tracing_on", "1"))
		return -1;
	for (i = 0; i < (int)ARRAY_SIZE(ra_tracepoints); i++) {
		snprintf(file, sizeof(file), "events/readahead/%s/enable", ra_tracepoints[i]);
		if (trace_write(t, file, "1"))
			return -1;
	}
	t->on = true;
	return 0;
}

/*
 * The events off and counted into @ev (indexed as enum ra_event);
 * whether none were lost.  0, or -1 when nothing was traced.
 */
int host_ra_trace_stop(struct host_ra_trace *t, unsigned long ev[NR_RA_EVENTS], bool *complete)
{
	char path[600], line[512];
	unsigned long in_buffer = 0, written = 0, size;
	FILE *f;
	int i;

	memset(ev, 0, sizeof(unsigned long) * NR_RA_EVENTS);
	*complete = false;
	if (!t->on)
		return -1;
	trace_write(t, "tracing_on", "0");
	for (i = 0; i < (int)ARRAY_SIZE(ra_tracepoints); i++) {
		snprintf(path, sizeof(path), "events/readahead/%s/enable", ra_tracepoints[i]);
		trace_write(t, path, "0");
	}
	t->on = false;
	snprintf(path, sizeof(path), "%s/trace", t->dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *s;

		if (line[0] == '#') {
			s = strstr(line, "entries-in-buffer/entries-written:");
			if (s)
				sscanf(s, "entries-in-buffer/entries-written: %lu/%lu", &in_buffer,
				       &written);
			continue;
		}
		if (strstr(line, " page_cache_sync_ra: "))
			ev[RA_SYNC_RA]++;
		else if (strstr(line, " page_cache_async_ra: "))
			ev[RA_ASYNC_RA]++;
		else if ((s = strstr(line, " page_cache_ra_order: ")) &&
			 (s = strstr(s, " size=")) && sscanf(s, " size=%lu", &size) == 1) {
			ev[RA_WINDOWS]++;
			ev[RA_WINDOW_PAGES] += size;
		}
	}
	fclose(f);
	*complete = in_buffer == written;
	return 0;
}
