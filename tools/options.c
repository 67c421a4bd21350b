// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "tools/options.h"

#define USAGE_WIDTH	80

void cmd_parse_init(struct cmd_parser *p, const struct cmd_spec *s, int argc, char **argv)
{
	int n = 0;

	p->spec = s;
	p->argc = argc;
	p->argv = argv;
	for (; s->opts[n].name && n < CMD_MAX_OPTS; n++) {
		p->lo[n].name = s->opts[n].name;
		p->lo[n].has_arg = s->opts[n].arg ? required_argument : no_argument;
		p->lo[n].flag = NULL;
		p->lo[n].val = s->opts[n].val;
	}
	p->lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	p->lo[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
}

int cmd_parse_next(struct cmd_parser *p, const char **arg)
{
	int c = getopt_long(p->argc, p->argv, "", p->lo, NULL);

	*arg = optarg;
	if (c == -1)
		return CMD_OPT_END;
	if (c == 'h') {
		cmd_usage(stdout, p->spec);
		return CMD_OPT_HELP;
	}
	if (c == '?' || c == ':') {
		fprintf(stderr, "%s: unknown or incomplete option '%s'\n", p->spec->prog,
			p->argv[optind - 1]);
		return CMD_OPT_ERROR;
	}
	return c;
}

int cmd_parse_end(struct cmd_parser *p)
{
	if (optind < p->argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", p->spec->prog, p->argv[optind]);
		return -1;
	}
	return 0;
}

/* "usage: PROG [--a N] [--b]", wrapped under the first option */
static void usage_line(FILE *f, const struct cmd_spec *s)
{
	const char *name = s->name ? s->name : s->prog;
	int indent = (int)strlen("usage: ") + (int)strlen(name) + 1, col, i;

	col = fprintf(f, "usage: %s", name);
	for (i = 0; s->opts[i].name; i++) {
		char item[128];
		int len;

		if (s->opts[i].arg)
			len = snprintf(item, sizeof(item), "[--%s %s]", s->opts[i].name, s->opts[i].arg);
		else
			len = snprintf(item, sizeof(item), "[--%s]", s->opts[i].name);
		if (col + 1 + len > USAGE_WIDTH && col > indent) {
			fprintf(f, "\n%*s", indent - 1, "");
			col = indent - 1;
		}
		col += fprintf(f, " %s", item);
	}
	if (s->args)
		fprintf(f, " %s", s->args);
	fputc('\n', f);
}

void cmd_usage(FILE *f, const struct cmd_spec *s)
{
	int i, w = 0;

	usage_line(f, s);
	if (s->about)
		fprintf(f, "\n%s\n", s->about);
	for (i = 0; s->opts[i].name; i++) {
		int len = (int)strlen(s->opts[i].name) + 2 +
			  (s->opts[i].arg ? (int)strlen(s->opts[i].arg) + 1 : 0);

		if (s->opts[i].help && len > w)
			w = len;
	}
	if (!w)
		return;
	fprintf(f, "\noptions:\n");
	for (i = 0; s->opts[i].name; i++) {
		char name[128];

		if (!s->opts[i].help)
			continue;
		snprintf(name, sizeof(name), "--%s%s%s", s->opts[i].name,
			 s->opts[i].arg ? " " : "", s->opts[i].arg ? s->opts[i].arg : "");
		fprintf(f, "  %-*s  %s\n", w, name, s->opts[i].help);
	}
}
