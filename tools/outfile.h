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
	char path[4096];	/* the final name */
	char tmp[4096];		/* PATH.tmp-XXXXXX until out_commit() */
};

/* Open @path's temporary file: the stream, or NULL after one error line. */
FILE *out_open(const char *prog, const char *path, struct out_file *of);
/*
 * Flush and close the temporary file and rename it to the final name:
 * 0, or -1 after one error line with the temporary file removed.
 */
int out_commit(const char *prog, struct out_file *of);
/* Close and remove the temporary file (a run that failed). */
void out_discard(struct out_file *of);

#endif /* LRULAB_OUTFILE_H */
