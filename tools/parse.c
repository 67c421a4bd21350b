// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/parse.h"

/* "1G" for a power-of-1024 size, "1536K" otherwise: how a limit is quoted */
static void fmt_size(char *buf, size_t len, unsigned long long v)
{
	static const char units[] = "KMGT";
	int i = -1;

	while (i < 3 && v >= 1024 && !(v % 1024)) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu bytes", v);
	else
		snprintf(buf, len, "%llu%c", v, units[i]);
}

int parse_size_max(const char *prog, const char *opt, const char *s,
		   unsigned long max, const char *per, unsigned long *out)
{
	unsigned long long v, mult = 1;
	char *end, lim[32];

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+')
		goto bad;
	v = strtoull(s, &end, 10);
	if (end == s || (errno && errno != ERANGE))
		goto bad;
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	case '\0': break;
	default: goto bad;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (!errno && v == 0))
		goto bad;
	/* well formed: anything past the limit, overflow included, is too big */
	if (errno == ERANGE || v > max / mult || v * mult > max) {
		fmt_size(lim, sizeof(lim), max);
		fprintf(stderr, "%s: %s: %s is too big (at most %s%s%s)\n", prog,
			opt, s, lim, per ? " " : "", per ? per : "");
		return -1;
	}
	*out = (unsigned long)(v * mult);
	return 0;
bad:
	fprintf(stderr, "%s: %s: invalid size '%s' (expected e.g. 4K, 16M, 1G)\n",
		prog, opt, s ? s : "");
	return -1;
}

int parse_size(const char *prog, const char *opt, const char *s, unsigned long *out)
{
	return parse_size_max(prog, opt, s, ~0UL >> 2, NULL, out);
}

int parse_long(const char *prog, const char *opt, const char *s, long lo, long hi,
	       long *out)
{
	char *end;
	long v;

	errno = 0;
	v = s ? strtol(s, &end, 10) : 0;
	if (!s || !*s || errno || *end) {
		fprintf(stderr, "%s: %s: '%s' is not a number\n", prog, opt, s ? s : "");
		return -1;
	}
	if (v < lo || v > hi) {
		fprintf(stderr, "%s: %s: %ld is out of range [%ld, %ld]\n", prog, opt,
			v, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int parse_double(const char *prog, const char *opt, const char *s, double lo,
		 double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = s ? strtod(s, &end) : 0;
	if (!s || !*s || errno || *end || !isfinite(v)) {
		fprintf(stderr, "%s: %s: '%s' is not a number\n", prog, opt, s ? s : "");
		return -1;
	}
	if (v < lo || v > hi) {
		fprintf(stderr, "%s: %s: %g is out of range [%g, %g]\n", prog, opt,
			v, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int parse_long_list(const char *prog, const char *opt, const char *s, long lo,
		    long hi, long *out, int max)
{
	char buf[256], *tok, *save = NULL;
	int n = 0;

	if (!s || !*s || strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "%s: %s: invalid list '%s'\n", prog, opt, s ? s : "");
		return -1;
	}
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max) {
			fprintf(stderr, "%s: %s: more than %d values\n", prog, opt, max);
			return -1;
		}
		if (parse_long(prog, opt, tok, lo, hi, &out[n]))
			return -1;
		n++;
	}
	if (!n || s[strlen(s) - 1] == ',') {
		fprintf(stderr, "%s: %s: invalid list '%s'\n", prog, opt, s);
		return -1;
	}
	return n;
}

int parse_program(const char *prog, const char *opt, const char *path)
{
	struct stat st;
	const char *why = NULL;

	if (!*path)
		why = "an empty path";
	else if (stat(path, &st))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (access(path, X_OK))
		why = "not executable";
	if (!why)
		return 0;
	fprintf(stderr, "%s: %s %s: %s\n", prog, opt, path, why);
	return -1;
}
