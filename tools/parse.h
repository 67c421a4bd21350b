/* SPDX-License-Identifier: MIT */
/* Command-line value parsing with one clear error line per bad value. */
#ifndef LRULAB_PARSE_H
#define LRULAB_PARSE_H

#include <lrulab/types.h>

/*
 * Each returns 0, or -1 after printing "PROG: OPT: why" to stderr.
 * Sizes take a K/M/G/T suffix (powers of 1024); plain numbers are bytes.
 */
int parse_size(const char *prog, const char *opt, const char *s, unsigned long *out);
/*
 * As parse_size, and a size above @max is "too big (at most MAX PER)", so
 * that every size option words its limit alike (@per: e.g. "per thread").
 */
int parse_size_max(const char *prog, const char *opt, const char *s,
		   unsigned long max, const char *per, unsigned long *out);
int parse_long(const char *prog, const char *opt, const char *s, long lo, long hi,
	       long *out);
int parse_double(const char *prog, const char *opt, const char *s, double lo,
		 double hi, double *out);
/* "1,2,4": up to @max values each in [lo, hi]; returns the count or -1. */
int parse_long_list(const char *prog, const char *opt, const char *s, long lo,
		    long hi, long *out, int max);
/*
 * A program to run (--a-bin, --before-bin): @path names an executable
 * regular file.  0, or -1 after one error line "PROG: OPT PATH: why".
 */
int parse_program(const char *prog, const char *opt, const char *path);

#endif /* LRULAB_PARSE_H */
