// SPDX-License-Identifier: MIT
/*
 * The machine profile parser (predict/profile.c): the input is a profile
 * file.  One that loads must be one predict can use (every value finite,
 * the CPU count positive) and must read back the same after
 * pred_profile_write().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pred_profile pf, again;
	const char *path = fuzz_file(data, size, ".profile");
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	if (pred_profile_read("fuzz", path, &pf))
		return 0;
	if (pred_profile_cpus(&pf) <= 0)
		fuzz_fail("a loaded profile with %d CPUs", pred_profile_cpus(&pf));
	for (i = 0; i < NR_PRED_PARAMS; i++)
		if (!isfinite(pf.p[i].v) || !isfinite(pf.p[i].lo) || !isfinite(pf.p[i].hi))
			fuzz_fail("value %d loaded as %g [%g %g]", i, pf.p[i].v, pf.p[i].lo,
				  pf.p[i].hi);
	f = open_memstream(&text, &len);
	if (!f)
		return 0;
	pred_profile_write(f, &pf);
	fclose(f);
	path = fuzz_file((const uint8_t *)text, len, ".profile");
	free(text);
	if (pred_profile_read("fuzz", path, &again))
		fuzz_fail("a loaded profile, written, does not load again");
	if (strcmp(pf.name, again.name) || pred_profile_cpus(&pf) != pred_profile_cpus(&again))
		fuzz_fail("a loaded profile, written and read, is another");
	return 0;
}
