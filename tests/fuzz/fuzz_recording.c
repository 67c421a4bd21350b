// SPDX-License-Identifier: MIT
/*
 * The recording reader (predict/record_file.c).  Input byte 0: 0 stores
 * the rest as it is (a zstd frame or not: the frame layer), anything
 * else compresses the rest first, so that the fuzzer reaches the body
 * parser (magic, version, tables, traces, events) behind a valid frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "predict/predict.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pred_recording rec;
	const char *path;
	void *z = NULL;

	if (!size)
		return 0;
	if (data[0]) {
		size_t bound = ZSTD_compressBound(size - 1), n;

		z = malloc(bound);
		if (!z)
			return 0;
		n = ZSTD_compress(z, bound, data + 1, size - 1, 1);
		if (ZSTD_isError(n))
			fuzz_fail("zstd: %s", ZSTD_getErrorName(n));
		path = fuzz_file(z, n, ".rec");
		free(z);
	} else {
		path = fuzz_file(data + 1, size - 1, ".rec");
	}
	if (!pred_recording_read("fuzz", path, &rec))
		pred_recording_free(&rec);
	return 0;
}
