// SPDX-License-Identifier: MIT
/*
 * Every trace reader and the stream layer (replay/readers.c,
 * replay/stream.c), then the exact LRU over what loaded.
 *
 * Input: byte 0 picks the type (mod 6: oracleGeneral, lcs, csv, txt,
 * lackey, pagetrace) and the file's compression ((b / 6) mod 3: none,
 * .zst, .gz); byte 1 is -n (0: all); byte 2's low bit is
 * --ignore-obj-size, its next bit a bound of 64 page accesses (the
 * kernel model's REPLAY_MAX_PAGE_ACCESSES, made small enough to reach).
 * For csv the next line is the -t text.  The rest is the file.  A load either succeeds or gives one error line naming the
 * file; either way it must not take more than the input bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/replay.h"

#include "fuzz.h"

static const char *const suffix[3] = { "", ".zst", ".gz" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_load_opts o = { 0 };
	struct replay_trace t;
	struct replay_counts *counts;
	uint64_t sizes[REPLAY_MAX_SIZES];
	char err[512], params[256];
	const char *path;
	int nr;

	if (size < 3)
		return 0;
	o.type = (enum replay_type)(data[0] % NR_REPLAY_TYPES);
	o.max_reqs = data[1];
	o.ignore_obj_size = data[2] & 1;
	o.max_page_accesses = data[2] & 2 ? 64 : 0;
	path = suffix[data[0] / NR_REPLAY_TYPES % 3];
	data += 3;
	size -= 3;
	replay_params_default(&o.params);
	if (o.type == REPLAY_CSV) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t n = nl ? (size_t)(nl - data) : size;

		if (n >= sizeof(params))
			return 0;
		memcpy(params, data, n);
		params[n] = '\0';
		if (replay_params_parse(params, o.type, &o.params, err, sizeof(err)))
			return 0;
		data += nl ? n + 1 : n;
		size -= nl ? n + 1 : n;
	}
	path = fuzz_file(data, size, path);
	memset(&t, 0, sizeof(t));
	err[0] = '\0';
	if (replay_trace_load(path, &o, &t, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			fuzz_fail("load failed without one error line: '%s'", err);
		if (strncmp(err, path, strlen(path)))
			fuzz_fail("error line does not name the file: '%s'", err);
		replay_trace_free(&t);
		return 0;
	}
	if (o.max_reqs && t.nr_reqs > o.max_reqs)
		fuzz_fail("-n %llu, %zu requests loaded", (unsigned long long)o.max_reqs,
			  t.nr_reqs);
	if (o.max_page_accesses && t.page_accesses > o.max_page_accesses)
		fuzz_fail("%llu page accesses past the bound of %llu",
			  (unsigned long long)t.page_accesses,
			  (unsigned long long)o.max_page_accesses);
	nr = replay_sizes_parse("auto", &t, sizes, err, sizeof(err));
	if (nr > 0 && t.nr_reqs <= 4096) {
		counts = calloc((size_t)nr, sizeof(*counts));
		if (counts && lru_exact_run(&t, sizes, nr, counts) == 0) {
			int i;

			for (i = 0; i < nr; i++)
				if (counts[i].requests != t.nr_reqs)
					fuzz_fail("exact LRU at size %llu: %llu requests of %zu",
						  (unsigned long long)sizes[i],
						  (unsigned long long)counts[i].requests, t.nr_reqs);
		}
		free(counts);
	}
	replay_trace_free(&t);
	return 0;
}
