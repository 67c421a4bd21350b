// SPDX-License-Identifier: MIT
/* The `lrulab` command: dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>

#include <lrulab/commands.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "demo", cmd_demo, "short fault/free run: lock table, figures, stats, invariants" },
	{ "pathbench", cmd_pathbench, "single-CPU cost of folio_add_lru, folios_put_refs, lru_lock hold per batch" },
	{ "bench", cmd_bench, "workloads: fault-free (s0, s3), mmap-madvise (s4), usemem (s1); lock tables, figures, JSON" },
	{ "ab", cmd_ab, "two configurations alternated in fresh processes: medians, B/A with 95% CI" },
	{ "repro", cmd_repro, "the seed mails' tables (s0, s1, s3, s4) at this machine's scale, published beside ours" },
	{ "usemem", cmd_usemem, "the s1 workload (as bench usemem): random writes over 8x memory.max, swap and refaults" },
	{ "replay", cmd_replay, "a cache or memory trace through the exact LRU and the kernel's classic LRU: miss ratios" },
	{ "lockbench", cmd_lockbench, "uncontended lock cost per implementation, lock statistics overhead" },
	{ "host", cmd_host, "fault-free on this machine's kernel: pages/s, perf lock table, for --calibrate" },
	{ "layout", cmd_layout, "struct lruvec and mem_cgroup_per_node: lines, 128-byte pairs, who writes and reads them" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: lrulab COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "  %-10s %s\n", "help", "this text");
	fprintf(f, "\n'lrulab COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "lrulab: no command given (try 'lrulab help')\n");
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "lrulab: unknown command '%s' (try 'lrulab help')\n", argv[1]);
	return 2;
}
