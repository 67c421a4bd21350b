/* SPDX-License-Identifier: MIT */
/*
 * Result files (tools/outfile.c): checked before a run starts, written
 * under a temporary name in the same folder and renamed when complete,
 * so that a run that fails (a full disk, a signal) never leaves a
 * partial result under the final name.  Every error is one line
 * "PROG: PATH: why" on stderr.
 */
#ifndef LRULAB_TOOLS_OUTFILE_H
#define LRULAB_TOOLS_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * @dir exists (or can be made, with its parents, when @create) and a
 * file can be created in it (a probe file is made and removed, so a
 * read-only mount or a folder without write permission fails even for
 * root).  0, or -1 after one error line.
 */
int out_dir_check(const char *prog, const char *dir, bool create);
/*
 * @path (the value of option @opt) is not empty, is not a folder, and
 * its folder passes out_dir_check().  0, or -1 after one error line.
 */
int out_path_check(const char *prog, const char *opt, const char *path);

struct out_file {
	FILE *f;
	bool reserved;		/* tmp is another program's to write (out_reserve()) */
	char path[4096];	/* the final name */
	char tmp[4096];		/* PATH.tmp-XXXXXX until out_commit() */
};

/* Open @path's temporary file: the stream, or NULL after one error line. */
FILE *out_open(const char *prog, const char *path, struct out_file *of);
/*
 * @path's temporary file, made empty and closed, for another program to
 * write by the name of->tmp (gnuplot's PNG): 0, or -1 after one error
 * line.  out_commit() renames it, out_discard() removes it.
 */
int out_reserve(const char *prog, const char *path, struct out_file *of);
/*
 * Flush and close the temporary file and rename it to the final name:
 * 0, or -1 after one error line with the temporary file removed.
 */
int out_commit(const char *prog, struct out_file *of);
/* Close and remove the temporary file (a run that failed). */
void out_discard(struct out_file *of);

/*
 * gnuplot's PNGs.  A script names its output by the variable lrulab_png
 * (out_gnuplot_output()): run as `gnuplot FILE.gp` it writes FILE.png,
 * run by out_gnuplot() it writes FILE.png's temporary name, renamed
 * when gnuplot is done and the PNG is whole (gnuplot exits 0 on a full
 * disk, leaving a PNG cut short).
 */
/* @s as a gnuplot single-quoted string ('' for a quote). */
void out_gnuplot_string(FILE *f, const char *s);
/* The script's "set output" lines, @png by default. */
void out_gnuplot_output(FILE *f, const char *png);
#define OUT_GNUPLOT_MISSING	127	/* no gnuplot to run */
#define OUT_GNUPLOT_FAILED	1	/* it failed: what it said is on stderr */
/*
 * gnuplot on @gp, writing @png whole or not at all: 0, OUT_GNUPLOT_MISSING
 * or OUT_GNUPLOT_FAILED (no PNG, nothing printed: the caller says), or -1
 * after one error line (the PNG could not be made, was cut short or
 * could not be renamed).
 */
int out_gnuplot(const char *prog, const char *gp, const char *png);

#endif /* LRULAB_TOOLS_OUTFILE_H */
