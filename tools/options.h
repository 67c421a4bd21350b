/* SPDX-License-Identifier: MIT */
/*
 * A command's options described once: the table gives getopt_long its
 * struct option array, --help its usage line and option list, and the
 * man page check (tests/install.sh) the options --help names.  Errors
 * are worded alike for every command: one line, "PROG: unknown or
 * incomplete option '--x'" or "PROG: unexpected argument 'x'".
 */
#ifndef LRULAB_TOOLS_OPTIONS_H
#define LRULAB_TOOLS_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

struct cmd_opt {
	const char *name;	/* "threads" for --threads */
	const char *arg;	/* the value as the usage names it ("N", "shmem|anon"); NULL: a flag */
	int val;		/* what cmd_parse_next() returns for it; not 'h' */
	const char *help;	/* a line for the option list; NULL: in the usage line only */
};

struct cmd_spec {
	const char *prog;		/* "lrulab demo": what error lines begin with */
	const char *name;		/* what the usage line names, when not @prog */
	const char *args;		/* positional arguments after the options, or NULL */
	const char *about;		/* a paragraph after the usage line, or NULL */
	const struct cmd_opt *opts;	/* ends with an entry whose name is NULL */
};

#define CMD_MAX_OPTS	64
#define CMD_OPT_END	(-1)
#define CMD_OPT_HELP	(-2)	/* --help was printed on stdout: exit 0 */
#define CMD_OPT_ERROR	(-3)	/* one error line was printed: exit 2 */

struct cmd_parser {
	const struct cmd_spec *spec;
	int argc;
	char **argv;
	struct option lo[CMD_MAX_OPTS + 2];
};

void cmd_parse_init(struct cmd_parser *p, const struct cmd_spec *s, int argc, char **argv);
/* the next option's val and its value in *@arg, or CMD_OPT_END, _HELP or _ERROR */
int cmd_parse_next(struct cmd_parser *p, const char **arg);
/* for a command that takes no argument: 0, or -1 after one error line if one is left */
int cmd_parse_end(struct cmd_parser *p);
void cmd_usage(FILE *f, const struct cmd_spec *s);

#endif /* LRULAB_TOOLS_OPTIONS_H */
