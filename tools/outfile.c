// SPDX-License-Identifier: MIT
/* Result files: checked first, written aside, renamed when whole. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int out_commit(const char *prog, struct out_file *of)
{
	int err = 0;

	if (!of->f)
		return -1;
	if (fflush(of->f) || ferror(of->f) || fsync(fileno(of->f)))
		err = errno ? errno : EIO;
	if (fclose(of->f) && !err)
		err = errno;
	of->f = NULL;
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
	if (of->f) {
		fclose(of->f);
		of->f = NULL;
		unlink(of->tmp);
	}
}
