// SPDX-License-Identifier: MIT
/*
 * `lrulab bench` options: the workloads by name, the usage text, and
 * parsing into struct bench_opts with one error line per bad value
 * (bench_common.c runs what they describe).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include <lrulab/mglru.h>
#include "tools/outfile.h"
#include "tools/parse.h"

static const struct bench_workload *const bench_workloads[] = {
	&fault_free_workload,
	&mmap_madvise_workload,
	&usemem_workload,
	&mglru_age_workload,
};

const struct bench_workload *bench_find_workload(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bench_workloads); i++)
		if (!strcmp(name, bench_workloads[i]->name))
			return bench_workloads[i];
	return NULL;
}

/* ---- options ---- */

static const struct option bench_long_options[] = {
	{ "threads", required_argument, NULL, 't' },
	{ "type", required_argument, NULL, 'T' },
	{ "mem", required_argument, NULL, 'm' },
	{ "node-mem", required_argument, NULL, 'N' },
	{ "max", required_argument, NULL, 'X' },
	{ "folio-size", required_argument, NULL, 'f' },
	{ "seconds", required_argument, NULL, 's' },
	{ "loops", required_argument, NULL, 'l' },
	{ "memcgs", required_argument, NULL, 'M' },
	{ "lock", required_argument, NULL, 'L' },
	{ "with", required_argument, NULL, 'w' },
	{ "without", required_argument, NULL, 'W' },
	{ "fault-work", required_argument, NULL, 'F' },
	{ "calibrate", no_argument, NULL, 'C' },
	{ "flush-ms", required_argument, NULL, 'R' },
	{ "drain-all-us", required_argument, NULL, 'D' },
	{ "swap", required_argument, NULL, 'S' },
	{ "swap-io", required_argument, NULL, 'I' },
	{ "swap-latency", required_argument, NULL, 'Y' },
	{ "pattern", required_argument, NULL, 'A' },
	{ "fadvise", required_argument, NULL, 'V' },
	{ "read-ahead-kb", required_argument, NULL, 'K' },
	{ "lru-gen", optional_argument, NULL, 'G' },
	{ "read-latency", required_argument, NULL, 'Q' },
	{ "profile-hold", no_argument, NULL, 'p' },
	{ "record", required_argument, NULL, 'r' },
	{ "json", no_argument, NULL, 'j' },
	{ "vma", required_argument, NULL, 'v' },
	{ "procs", required_argument, NULL, 'P' },
	{ "passes", required_argument, NULL, 'Z' },
	{ "show", required_argument, NULL, 'O' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void bench_usage(FILE *f, const struct bench_workload *w)
{
	const char *name = w ? w->name : "fault-free|mmap-madvise|usemem|mglru-age";

	fprintf(f, "usage: lrulab bench %s", name);
	if (w && (w->opts & BENCH_OPT_TYPE_FILE))
		fprintf(f, " [--type anon|shmem|file|mixed]");
	else if (!w || (w->opts & BENCH_OPT_TYPE))
		fprintf(f, " [--type shmem|anon]");
	if (!w || (w->opts & BENCH_OPT_MAX))
		fprintf(f, " [--max SIZE]");
	if (!w || (w->opts & BENCH_OPT_VMA))
		fprintf(f, " [--vma shared|own]");
	if (!w || (w->opts & BENCH_OPT_SWAP))
		fprintf(f, " [--swap zstd|copy]\n       [--swap-io sync|async] [--swap-latency US]");
	if (!w || (w->opts & BENCH_OPT_PATTERN))
		fprintf(f, "\n       [--pattern random|zipf:A|seq] [--fadvise normal|random|sequential]\n"
			   "       [--read-ahead-kb KB] [--read-latency US]");
	if (w && (w->opts & BENCH_OPT_PROCS))
		fprintf(f, "\n       [--procs N[,N...]] [--mem SIZE] [--passes N] [--lock IMPL]\n"
			   "       [--with SWITCH]... [--without SWITCH]... [--lru-gen[=MASK]] [--json]\n");
	/* a workload with its own model (usemem) takes the common options only */
	else if (w && w->main)
		fprintf(f, "\n       [--threads N[,N...]] [--mem SIZE] [--seconds S] [--lock IMPL]\n"
			   "       [--with SWITCH]... [--without SWITCH]... [--lru-gen[=MASK]]\n"
			   "       [--flush-ms MS] [--json]\n");
	else
		fprintf(f, "\n       [--threads N[,N...]] [--mem SIZE] [--folio-size 4K|16K|32K|64K]\n"
			   "       [--seconds S | --loops N] [--memcgs N] [--node-mem SIZE] [--lock IMPL]\n"
			   "       [--with SWITCH]... [--without SWITCH]... [--lru-gen[=MASK]]\n"
			   "       [--fault-work NS | --calibrate] [--flush-ms MS] [--drain-all-us US]\n"
			   "       [--profile-hold] [--record FILE] [--json]\n");
	fprintf(f, "       [--show lru_gen|lru_gen_full]\n");
	if (w)
		fprintf(f, "\n%s\n", w->summary);
	fprintf(f, "\nswitches: %s\nlocks: qspinlock ticket tas pthread-spin mutex\n",
		bench_switch_list());
}

int bench_parse_vma(const char *prog, const char *s, bool *own)
{
	if (strcmp(s, "shared") && strcmp(s, "own")) {
		fprintf(stderr, "%s: --vma: unknown layout '%s' (shared or own)\n", prog, s);
		return -1;
	}
	*own = !strcmp(s, "own");
	return 0;
}

int bench_check_vma(const char *prog, bool shmem, bool given)
{
	if (!shmem || !given)
		return 0;
	fprintf(stderr, "%s: --vma: anon only (a shmem file's mapping is a VMA of its own)\n", prog);
	return -1;
}

int bench_parse_folio_size(const char *prog, const char *s, unsigned int *order)
{
	unsigned long size;

	if (parse_size(prog, "--folio-size", s, &size))
		return -1;
	switch (size) {
	case 4096:	*order = 0; return 0;
	case 16384:	*order = 2; return 0;
	case 32768:	*order = 3; return 0;
	case 65536:	*order = 4; return 0;
	}
	fprintf(stderr, "%s: --folio-size: %s is not a folio size here (4K, 16K, 32K or 64K)\n",
		prog, s);
	return -1;
}

int bench_parse_threads(const char *prog, const char *s,
			long threads[BENCH_MAX_THREAD_COUNTS], int *nr)
{
	long v;

	/* "1,,2" is a typo, not the list 1,2 */
	if (s[0] == ',' || strstr(s, ",,")) {
		fprintf(stderr, "%s: --threads: invalid list '%s'\n", prog, s);
		return -1;
	}
	v = parse_long_list(prog, "--threads", s, 1, LRULAB_MAX_CPUS, threads,
			    BENCH_MAX_THREAD_COUNTS);
	if (v < 0)
		return -1;
	*nr = (int)v;
	return 0;
}

const char *bench_switch_list(void)
{
	static char buf[256];
	size_t off = 0;
	int i;

	for (i = 0; i < NR_LRULAB_SWITCHES && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? ", " : "",
				lrulab_switch_name(i));
	return buf;
}

static int parse_switch(const char *prog, const char *opt, const char *s,
			signed char *sw, signed char val)
{
	enum lrulab_switch which;

	if (lrulab_switch_parse(s, &which)) {
		fprintf(stderr, "%s: %s: unknown switch '%s' (%s)\n", prog, opt, s,
			bench_switch_list());
		return -1;
	}
	if (sw[which] >= 0 && sw[which] != val) {
		fprintf(stderr, "%s: both --with and --without %s\n", prog, s);
		return -1;
	}
	sw[which] = val;
	return 0;
}

/* --lru-gen[=MASK]: the bits of /sys/kernel/mm/lru_gen/enabled, C notation */
static int parse_lru_gen(const char *prog, const char *s, struct bench_opts *o)
{
	unsigned long v;
	char *end;

	o->lru_gen_given = true;
	if (!s) {
		o->lru_gen = LRU_GEN_CAPS_ALL;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 0);
	if (!*s || *end || errno || s[0] == '-' || v & ~(unsigned long)LRU_GEN_CAPS_ALL) {
		fprintf(stderr, "%s: --lru-gen: '%s' is not a mask of 0x1 (main), 0x2 (leaf PTE young) and 0x4 (non-leaf PMD young)\n",
			prog, s);
		return -1;
	}
	o->lru_gen = (unsigned int)v;
	return 0;
}

unsigned int bench_lru_gen_caps(const struct bench_opts *o)
{
	if (o->sw[SW_LRU_GEN] != 1)
		return 0;
	return o->lru_gen_given ? o->lru_gen : LRU_GEN_CAPS_ALL;
}

int bench_parse(const struct bench_workload *w, const char *prog, int argc,
		char **argv, struct bench_opts *o)
{
	bool seconds_given = false, loops_given = false, work_given = false, vma_given = false;
	unsigned long folio_bytes;
	double d;
	long v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", bench_long_options, NULL)) != -1) {
		switch (c) {
		case 't':
			if (bench_parse_threads(prog, optarg, o->threads, &o->nr_threads))
				return 2;
			break;
		case 'T':
			if (!(w->opts & BENCH_OPT_TYPE)) {
				fprintf(stderr, "%s: --type: %s always runs anon memory\n",
					prog, w->name);
				return 2;
			}
			if ((!strcmp(optarg, "file") || !strcmp(optarg, "mixed")) &&
			    (w->opts & BENCH_OPT_TYPE_FILE)) {
				o->regular = true;
				o->mixed = !strcmp(optarg, "mixed");
				o->shmem = false;
				break;
			}
			if (strcmp(optarg, "shmem") && strcmp(optarg, "anon")) {
				fprintf(stderr, "%s: --type: unknown type '%s' (shmem%s or anon)\n",
					prog, optarg,
					(w->opts & BENCH_OPT_TYPE_FILE) ? ", file, mixed" : "");
				return 2;
			}
			o->shmem = !strcmp(optarg, "shmem");
			o->regular = o->mixed = false;
			break;
		case 'm':
			if (parse_size_max(prog, "--mem", optarg,
					   (w->opts & BENCH_OPT_PROCS) ? BENCH_MAX_SHARED_MEM :
					   BENCH_MAX_MEM,
					   (w->opts & BENCH_OPT_PROCS) ? NULL : "per thread", &o->mem))
				return 2;
			break;
		case 'N':
			if (w->main) {
				fprintf(stderr, "%s: --node-mem: %s sizes its own node\n",
					prog, w->name);
				return 2;
			}
			if (parse_size_max(prog, "--node-mem", optarg, BENCH_MAX_NODE_MEM, NULL,
					   &o->node_mem))
				return 2;
			if (o->node_mem < BENCH_MIN_NODE_MEM) {
				fprintf(stderr, "%s: --node-mem: '%s' is too small (at least 16M)\n",
					prog, optarg);
				return 2;
			}
			break;
		case 'v':
			if (!(w->opts & BENCH_OPT_VMA)) {
				fprintf(stderr, "%s: --vma: %s maps no anonymous ranges of its threads\n",
					prog, w->name);
				return 2;
			}
			if (bench_parse_vma(prog, optarg, &o->vma_own))
				return 2;
			vma_given = true;
			break;
		case 'P':
		case 'Z':
			if (!(w->opts & BENCH_OPT_PROCS)) {
				fprintf(stderr, "%s: --%s: only mglru-age runs processes and passes\n",
					prog, c == 'P' ? "procs" : "passes");
				return 2;
			}
			if (c == 'Z') {
				if (parse_long(prog, "--passes", optarg, 1, 100000, &o->passes))
					return 2;
				break;
			}
			if (optarg[0] == ',' || strstr(optarg, ",,")) {
				fprintf(stderr, "%s: --procs: invalid list '%s'\n", prog, optarg);
				return 2;
			}
			v = parse_long_list(prog, "--procs", optarg, 1, 1024, o->procs,
					    BENCH_MAX_THREAD_COUNTS);
			if (v < 0)
				return 2;
			o->nr_procs = (int)v;
			break;
		case 'O':
			if (!strcmp(optarg, "lru_gen") || !strcmp(optarg, "lru_gen_full")) {
				o->show = !strcmp(optarg, "lru_gen_full");
				break;
			}
			fprintf(stderr, "%s: --show: unknown file '%s' (lru_gen or lru_gen_full)\n",
				prog, optarg);
			return 2;
		case 'X':
			if (!(w->opts & BENCH_OPT_MAX)) {
				fprintf(stderr, "%s: --max: %s runs without a memory.max\n",
					prog, w->name);
				return 2;
			}
			if (parse_size_max(prog, "--max", optarg, BENCH_MAX_MEM,
					   NULL, &o->max))
				return 2;
			if (o->max % PAGE_SIZE) {
				fprintf(stderr, "%s: --max: must be a multiple of 4K\n",
					prog);
				return 2;
			}
			break;
		case 'f':
			if (bench_parse_folio_size(prog, optarg, &o->folio_order))
				return 2;
			break;
		case 's':
			if (parse_double(prog, "--seconds", optarg, 0.001, 3600, &d))
				return 2;
			o->seconds = d;
			seconds_given = true;
			break;
		case 'l':
			if (parse_long(prog, "--loops", optarg, 1, 1000000, &o->loops))
				return 2;
			loops_given = true;
			break;
		case 'M':
			if (parse_long(prog, "--memcgs", optarg, 1, BENCH_MAX_MEMCGS, &o->memcgs))
				return 2;
			break;
		case 'L':
			if (lock_impl_parse(optarg, &o->lock)) {
				fprintf(stderr, "%s: --lock: unknown lock '%s' (qspinlock, ticket, tas, pthread-spin, mutex)\n",
					prog, optarg);
				return 2;
			}
			break;
		case 'w':
		case 'W':
			if (parse_switch(prog, c == 'w' ? "--with" : "--without", optarg,
					 o->sw, c == 'w'))
				return 2;
			break;
		case 'F':
			if (parse_long(prog, "--fault-work", optarg, 0, 1000000, &v))
				return 2;
			o->fault_work_ns = (unsigned long)v;
			work_given = true;
			break;
		case 'C':
			/* only a workload of fault-free passes has a twin on the host */
			if (w->main) {
				fprintf(stderr, "%s: --calibrate: %s has no host workload to match\n",
					prog, w->name);
				return 2;
			}
			o->calibrate = true;
			break;
		case 'S':
			if (!(w->opts & BENCH_OPT_SWAP)) {
				fprintf(stderr, "%s: --swap: %s runs without swap\n", prog, w->name);
				return 2;
			}
			if (strcmp(optarg, "zstd") && strcmp(optarg, "copy")) {
				fprintf(stderr, "%s: --swap: unknown store '%s' (zstd or copy)\n",
					prog, optarg);
				return 2;
			}
			o->swap_copy = !strcmp(optarg, "copy");
			o->swap_store_given = true;
			break;
		case 'I':
		case 'Y':
			if (!(w->opts & BENCH_OPT_SWAP)) {
				fprintf(stderr, "%s: --%s: %s runs without swap\n", prog,
					c == 'I' ? "swap-io" : "swap-latency", w->name);
				return 2;
			}
			if (c == 'Y') {
				if (parse_long(prog, "--swap-latency", optarg, 0, 1000000,
					       &o->swap_latency_us))
					return 2;
				break;
			}
			if (strcmp(optarg, "sync") && strcmp(optarg, "async")) {
				fprintf(stderr, "%s: --swap-io: unknown device '%s' (sync or async)\n",
					prog, optarg);
				return 2;
			}
			o->swap_async = !strcmp(optarg, "async");
			break;
		case 'K':
			if (!(w->opts & BENCH_OPT_PATTERN)) {
				fprintf(stderr, "%s: --read-ahead-kb: %s reads no file\n",
					prog, w->name);
				return 2;
			}
			if (parse_long(prog, "--read-ahead-kb", optarg, 4, 65536, &v))
				return 2;
			if (v % 4) {
				fprintf(stderr, "%s: --read-ahead-kb: must be a multiple of 4\n", prog);
				return 2;
			}
			o->read_ahead_kb = (unsigned long)v;
			break;
		case 'Q':
			if (!(w->opts & BENCH_OPT_PATTERN)) {
				fprintf(stderr, "%s: --read-latency: %s reads no file\n",
					prog, w->name);
				return 2;
			}
			if (parse_long(prog, "--read-latency", optarg, 0, 1000000, &v))
				return 2;
			o->read_latency_us = v;
			break;
		case 'A':
		case 'V':
			if (!(w->opts & BENCH_OPT_PATTERN)) {
				fprintf(stderr, "%s: --pattern and --fadvise: %s reads no file\n",
					prog, w->name);
				return 2;
			}
			if (c == 'A' ? usemem_pattern_parse(prog, optarg, o) :
				       usemem_fadvise_parse(prog, optarg, o))
				return 2;
			o->pattern_given |= c == 'A';
			break;
		case 'R':
			if (parse_long(prog, "--flush-ms", optarg, 0, 60000, &o->flush_ms))
				return 2;
			break;
		case 'D':
			if (w->main) {
				fprintf(stderr, "%s: --drain-all-us: %s has no drainer thread\n",
					prog, w->name);
				return 2;
			}
			if (parse_long(prog, "--drain-all-us", optarg, 1, 10000000,
				       &o->drain_all_us))
				return 2;
			break;
		case 'G':
			if (parse_lru_gen(prog, optarg, o))
				return 2;
			break;
		case 'p':
			o->profile_hold = true;
			break;
		case 'r':
			if (w->main && strcmp(w->name, "usemem")) {
				fprintf(stderr, "%s: --record: %s runs its own model and cannot be recorded\n",
					prog, w->name);
				return 2;
			}
			/* where the recording goes is checked before the run */
			if (out_path_check(prog, "--record", optarg))
				return 2;
			o->record = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			bench_usage(stdout, w);
			return 1;
		default:
			fprintf(stderr, "%s: unknown or incomplete option '%s'\n", prog,
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		return 2;
	}
	if (seconds_given && loops_given) {
		fprintf(stderr, "%s: --seconds and --loops exclude each other\n", prog);
		return 2;
	}
	if (work_given && o->calibrate) {
		fprintf(stderr, "%s: --calibrate chooses --fault-work itself: give one or the other\n",
			prog);
		return 2;
	}
	/* --lru-gen=MASK turns lru-gen on or off, unless --with/--without says */
	if (o->lru_gen_given) {
		bool core = o->lru_gen & BIT(LRU_GEN_CORE);

		if (o->sw[SW_LRU_GEN] == 1 && !core) {
			fprintf(stderr, "%s: --with lru-gen and --lru-gen=0x%x: the mask lacks the main switch 0x1\n",
				prog, o->lru_gen);
			return 2;
		}
		if (o->sw[SW_LRU_GEN] < 0)
			o->sw[SW_LRU_GEN] = core;
	}
	if (seconds_given)
		o->loops = 0;
	if (o->record && o->nr_threads > 1) {
		fprintf(stderr, "%s: --record: one thread count per recording\n", prog);
		return 2;
	}
	if (o->shmem && o->folio_order) {
		fprintf(stderr, "%s: --folio-size: shmem files use 4K folios only\n", prog);
		return 2;
	}
	if (bench_check_vma(prog, o->shmem, vma_given))
		return 2;
	folio_bytes = PAGE_SIZE << o->folio_order;
	if (o->mem % folio_bytes) {
		fprintf(stderr, "%s: --mem: %lu bytes is not a multiple of the %luK folio size\n",
			prog, o->mem, folio_bytes >> 10);
		return 2;
	}
	if (bench_check_memory(prog, o))
		return 2;
	return 0;
}

void bench_defaults(const struct bench_workload *w, struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->workload = w->name;
	o->threads[0] = lrulab_nr_processors();
	o->nr_threads = 1;
	o->mem = 16UL << 20;
	o->seconds = 1.0;
	o->memcgs = 1;
	o->lock = LOCK_QSPINLOCK;
	o->flush_ms = -1;
	o->fadvise = -1;
	o->swap_latency_us = -1;
	o->read_latency_us = -1;
	o->show = -1;
	memset(o->sw, -1, sizeof(o->sw));
	w->defaults(o);
}
