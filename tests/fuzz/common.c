// SPDX-License-Identifier: MIT
/* The scratch files of tests/fuzz/fuzz.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define NR_SUFFIXES 8

static char names[NR_SUFFIXES][4096];
static const char *suffixes[NR_SUFFIXES];
static int nr_names;

static void remove_files(void)
{
	int i;

	for (i = 0; i < nr_names; i++)
		unlink(names[i]);
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	FILE *f;
	int i;

	for (i = 0; i < nr_names; i++)
		if (!strcmp(suffixes[i], suffix))
			break;
	if (i == nr_names) {
		if (nr_names == NR_SUFFIXES)
			fuzz_fail("more than %d scratch file suffixes", NR_SUFFIXES);
		if (!nr_names)
			atexit(remove_files);
		snprintf(names[i], sizeof(names[i]), "%s/lrulab-fuzz-%d%s",
			 dir && *dir ? dir : "/tmp", (int)getpid(), suffix);
		suffixes[i] = suffix;
		nr_names++;
	}
	f = fopen(names[i], "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		fuzz_fail("%s: %s", names[i], strerror(errno));
	return names[i];
}
