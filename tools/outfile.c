// SPDX-License-Identifier: MIT
/* Result files: checked first, written aside, renamed when whole; gnuplot's PNGs too. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/outfile.h"

static int mkdir_p(const char *dir)
{
	char buf[4096];
	size_t i, n = strlen(dir);

	if (n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, dir, n + 1);
	for (i = 1; i < n; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		buf[i] = '/';
	}
	return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

int out_dir_check(const char *prog, const char *dir, bool create)
{
	char probe[4096];
	struct stat st;
	int fd;

	if (create && mkdir_p(dir)) {
		fprintf(stderr, "%s: %s: cannot create the folder: %s\n", prog, dir,
			strerror(errno));
		return -1;
	}
	if (stat(dir, &st)) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: %s: not a folder\n", prog, dir);
		return -1;
	}
	if ((size_t)snprintf(probe, sizeof(probe), "%s/.lrulab-probe-XXXXXX", dir) >=
	    sizeof(probe)) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(ENAMETOOLONG));
		return -1;
	}
	fd = mkstemp(probe);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: cannot write there: %s\n", prog, dir, strerror(errno));
		return -1;
	}
	close(fd);
	unlink(probe);
	return 0;
}

int out_path_check(const char *prog, const char *opt, const char *path)
{
	char dir[4096];
	const char *slash;
	struct stat st;

	if (!*path) {
		fprintf(stderr, "%s: %s '': an empty file name\n", prog, opt);
		return -1;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: %s %s: a folder, not a file\n", prog, opt, path);
		return -1;
	}
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return out_dir_check(prog, dir, false);
}

FILE *out_open(const char *prog, const char *path, struct out_file *of)
{
	mode_t mask;
	int fd;

	memset(of, 0, sizeof(*of));
	if ((size_t)snprintf(of->path, sizeof(of->path), "%s", path) >= sizeof(of->path) ||
	    (size_t)snprintf(of->tmp, sizeof(of->tmp), "%s.tmp-XXXXXX", path) >=
	    sizeof(of->tmp)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(ENAMETOOLONG));
		return NULL;
	}
	fd = mkstemp(of->tmp);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	/* mkstemp() makes it 0600; a result is as readable as any file */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		close(fd);
		unlink(of->tmp);
		return NULL;
	}
	of->f = fdopen(fd, "w");
	if (!of->f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		close(fd);
		unlink(of->tmp);
		return NULL;
	}
	return of->f;
}

int out_reserve(const char *prog, const char *path, struct out_file *of)
{
	if (!out_open(prog, path, of))
		return -1;
	if (fclose(of->f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		of->f = NULL;
		unlink(of->tmp);
		return -1;
	}
	of->f = NULL;
	of->reserved = true;
	return 0;
}

/* What another program wrote under of->tmp, to the disk */
static int reserved_sync(const struct out_file *of)
{
	int fd = open(of->tmp, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (fsync(fd))
		err = errno;
	close(fd);
	return err;
}

int out_commit(const char *prog, struct out_file *of)
{
	int err = 0;

	if (of->reserved) {
		of->reserved = false;
		err = reserved_sync(of);
	} else if (!of->f) {
		return -1;
	} else {
		if (fflush(of->f) || ferror(of->f) || fsync(fileno(of->f)))
			err = errno ? errno : EIO;
		if (fclose(of->f) && !err)
			err = errno;
		of->f = NULL;
	}
	if (!err && rename(of->tmp, of->path))
		err = errno;
	if (err) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, of->path, strerror(err));
		unlink(of->tmp);
		return -1;
	}
	return 0;
}

void out_discard(struct out_file *of)
{
	if (of->f || of->reserved) {
		if (of->f)
			fclose(of->f);
		of->f = NULL;
		of->reserved = false;
		unlink(of->tmp);
	}
}

/* ---- gnuplot ---- */

void out_gnuplot_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

void out_gnuplot_output(FILE *f, const char *png)
{
	fprintf(f, "if (!exists('lrulab_png')) lrulab_png = ");
	out_gnuplot_string(f, png);
	fprintf(f, "\nset output lrulab_png\n");
}

/* A PNG ends with its IEND chunk: length 0, "IEND", its CRC */
static bool png_whole(const char *path, long long *size)
{
	static const unsigned char iend[12] = {
		0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82,
	};
	unsigned char tail[12];
	struct stat st;
	bool whole = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*size = 0;
	if (fd < 0)
		return false;
	if (!fstat(fd, &st)) {
		*size = (long long)st.st_size;
		whole = st.st_size >= 8 + (off_t)sizeof(tail) &&
			pread(fd, tail, sizeof(tail), st.st_size - (off_t)sizeof(tail)) ==
			(ssize_t)sizeof(tail) && !memcmp(tail, iend, sizeof(tail));
	}
	close(fd);
	return whole;
}

int out_gnuplot(const char *prog, const char *gp, const char *png)
{
	struct out_file of;
	char *set;
	long long size;
	size_t i, n;
	int status = 0;
	pid_t pid;

	if (out_reserve(prog, png, &of))
		return -1;
	/* lrulab_png='TMP', quoted as in the script */
	n = strlen(of.tmp);
	set = malloc(sizeof("lrulab_png=''") + 2 * n);
	if (!set) {
		fprintf(stderr, "%s: %s: %s\n", prog, png, strerror(ENOMEM));
		out_discard(&of);
		return -1;
	}
	n = (size_t)sprintf(set, "lrulab_png='");
	for (i = 0; of.tmp[i]; i++) {
		if (of.tmp[i] == '\'')
			set[n++] = '\'';
		set[n++] = of.tmp[i];
	}
	set[n++] = '\'';
	set[n] = '\0';
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: %s: cannot run gnuplot: %s\n", prog, png, strerror(errno));
		free(set);
		out_discard(&of);
		return -1;
	}
	if (!pid) {
		execlp("gnuplot", "gnuplot", "-e", set, gp, (char *)NULL);
		_exit(OUT_GNUPLOT_MISSING);
	}
	free(set);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		out_discard(&of);
		return WIFEXITED(status) && WEXITSTATUS(status) == OUT_GNUPLOT_MISSING ?
		       OUT_GNUPLOT_MISSING : OUT_GNUPLOT_FAILED;
	}
	if (!png_whole(of.tmp, &size)) {
		fprintf(stderr, "%s: cannot write %s: gnuplot left it cut short (%lld bytes, no IEND chunk): a full disk?\n",
			prog, png, size);
		out_discard(&of);
		return -1;
	}
	return out_commit(prog, &of);
}
