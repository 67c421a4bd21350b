// SPDX-License-Identifier: MIT
/*
 * The command-line parsers that are functions: `lrulab bench WORKLOAD`'s
 * options (bench_parse, every workload), the shared number and size
 * parsers (lib/parse.c), replay's -t, --sizes and trace type, and
 * --show's file name.  Input byte 0 picks the parser; the rest is its
 * arguments, separated by NUL bytes.  A parser returns 0, 1 (--help) or
 * an error; it never crashes, and bench_parse gives 2 only after an
 * error line.  Their error lines go to stderr (make fuzz closes it:
 * -close_fd_mask=3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include <lrulab/lru_gen_debugfs.h>
#include "tools/parse.h"
#include "replay/replay.h"

#include "fuzz.h"

#define MAX_ARGS 32

static const char *const workloads[] = { "fault-free", "usemem", "mglru-age", "mmap-madvise" };
#define NR_WORKLOADS (int)(sizeof(workloads) / sizeof(workloads[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *args[MAX_ARGS + 2], err[512];
	int argc = 1, which, ret;
	size_t i, start = 1;

	if (!size)
		return 0;
	which = data[0] % (NR_WORKLOADS + 6);
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	args[0] = "fuzz";
	for (i = 1; i <= size && argc <= MAX_ARGS; i++) {
		if (i < size && buf[i])
			continue;
		buf[i] = '\0';
		args[argc++] = buf + start;
		start = i + 1;
	}
	args[argc] = NULL;
	if (which < NR_WORKLOADS) {
		const struct bench_workload *w = bench_find_workload(workloads[which]);
		struct bench_opts o;

		if (!w)
			fuzz_fail("no workload %s", workloads[which]);
		bench_defaults(w, &o);
		ret = bench_parse(w, "fuzz", argc, args, &o);
		if (ret < 0 || ret > 2)
			fuzz_fail("bench_parse returned %d", ret);
	} else if (which == NR_WORKLOADS) {
		unsigned long v;
		long l, list[64];
		double d;
		int n;

		parse_size("fuzz", "--size", args[1], &v);
		parse_size_max("fuzz", "--size", args[1], 1UL << 30, "per thread", &v);
		parse_long("fuzz", "--n", args[1], -5, 1000, &l);
		parse_double("fuzz", "--d", args[1], 0, 1e9, &d);
		n = parse_long_list("fuzz", "--list", args[1], 1, 4096, list, 64);
		if (n > 64)
			fuzz_fail("parse_long_list: %d values of at most 64", n);
	} else if (which == NR_WORKLOADS + 1) {
		struct replay_params p;
		enum replay_type t;

		for (t = 0; t < NR_REPLAY_TYPES; t++)
			replay_params_parse(args[1], t, &p, err, sizeof(err));
	} else if (which == NR_WORKLOADS + 2) {
		struct replay_trace t = { .wss = 1000, .objects = data[0] & 0x80 };
		uint64_t sizes[REPLAY_MAX_SIZES];
		int n = replay_sizes_parse(args[1], &t, sizes, err, sizeof(err));

		if (n > REPLAY_MAX_SIZES)
			fuzz_fail("%d sizes", n);
		for (i = 1; n > 0 && i < (size_t)n; i++)
			if (sizes[i] <= sizes[i - 1])
				fuzz_fail("sizes not sorted and unique");
	} else if (which == NR_WORKLOADS + 3) {
		enum replay_type t;

		replay_type_parse(args[1], &t, err, sizeof(err));
	} else if (which == NR_WORKLOADS + 4) {
		bool full;

		lru_gen_show_parse(args[1], &full);
	} else {
		long threads[BENCH_MAX_THREAD_COUNTS];
		unsigned int order;
		int nr;

		bench_parse_threads("fuzz", args[1], threads, &nr);
		bench_parse_folio_size("fuzz", args[1], &order);
	}
	free(buf);
	return 0;
}
