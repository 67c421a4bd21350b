// SPDX-License-Identifier: MIT
/*
 * The memory cgroup of a `lrulab host usemem` run: found under cgroup v2
 * (memory.max) or a v1 memory hierarchy (memory.limit_in_bytes), made
 * with its limit and no swap (but for --type anon's, which swaps to a
 * file of its own), its undo registered first (bench/host_sys.c),
 * joined by the run's child, and its memory.stat read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <signal.h>
#include <sys/stat.h>

#include "host_usemem.h"
#include "tools/util.h"

int host_read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return 0;
}

int host_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, value, strlen(value)) < 0)
		ret = -1;
	close(fd);
	return ret;
}

/*
 * v2 when the unified hierarchy at @root has the memory controller, else
 * a v1 memory hierarchy mounted at @root/memory.  0, or -1.
 */
int cgroup_find(const char *root, struct host_cgroup *cg)
{
	char path[1024], buf[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (!host_read_file(path, buf, sizeof(buf)) && strstr(buf, "memory")) {
		cg->v2 = true;
		/* a child of the root: its subtree must hand out memory */
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
		if (host_write_file(path, "+memory"))
			return -1;
		snprintf(cg->dir, sizeof(cg->dir), "%s/lrulab-%d", root, (int)getpid());
		return 0;
	}
	snprintf(path, sizeof(path), "%s/memory/memory.limit_in_bytes", root);
	if (stat(path, &st))
		return -1;
	cg->v2 = false;
	snprintf(cg->dir, sizeof(cg->dir), "%s/memory/lrulab-%d", root, (int)getpid());
	return 0;
}

static int cgroup_set(const struct host_cgroup *cg, const char *file, unsigned long v)
{
	char path[1100], val[32];

	snprintf(path, sizeof(path), "%s/%s", cg->dir, file);
	snprintf(val, sizeof(val), "%lu", v);
	return host_write_file(path, val);
}

/*
 * Make the cgroup with its limit and, unless @swap, no swap; undo
 * registered first.  0, or -1 after one error line.
 */
int cgroup_make(const char *prog, struct host_cgroup *cg, unsigned long max, bool swap)
{
	char path[1100];

	if (host_undo_rmdir(cg->dir) || mkdir(cg->dir, 0755)) {
		fprintf(stderr, "%s: cannot create the memory cgroup %s: %s\n", prog, cg->dir,
			strerror(errno));
		return -1;
	}
	if (cgroup_set(cg, cg->v2 ? "memory.max" : "memory.limit_in_bytes", max)) {
		fprintf(stderr, "%s: cannot set the limit of %s: %s\n", prog, cg->dir,
			strerror(errno));
		return -1;
	}
	/* swap: v2 swap alone, v1 memory+swap (present with swap accounting only) */
	snprintf(path, sizeof(path), "%s/%s", cg->dir,
		 cg->v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes");
	if (!swap && !access(path, F_OK))
		cgroup_set(cg, cg->v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes",
			   cg->v2 ? 0 : max);
	return 0;
}

/* The calling process (the run's child) joins the cgroup. */
int cgroup_join(const char *prog, const struct host_cgroup *cg)
{
	char path[1100], pid[16];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
	if (host_write_file(path, pid)) {
		fprintf(stderr, "%s: cannot join the memory cgroup %s: %s\n", prog, cg->dir,
			strerror(errno));
		return -1;
	}
	return 0;
}

void cgroup_read_stat(const struct host_cgroup *cg, struct bench_deltas *d)
{
	static char text[65536];
	char path[1100];

	d->nr = 0;
	d->d = NULL;
	snprintf(path, sizeof(path), "%s/memory.stat", cg->dir);
	if (!host_read_file(path, text, sizeof(text)))
		bench_deltas_parse(d, text);
}


/*
 * A file of @size bytes under the undo, written, synced, out of the page
 * cache and advised @advice; fd, or -1 after one error line.  Its first
 * read is the first to charge a page.
 */
int host_file_make(const char *prog, const char *path, unsigned long size, int advice)
{
	static char chunk[1 << 20];
	unsigned long off;
	int fd;

	if (host_undo_unlink(path)) {
		fprintf(stderr, "%s: too many things to undo\n", prog);
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	memset(chunk, 0x5a, sizeof(chunk));
	for (off = 0; off < size; off += sizeof(chunk)) {
		size_t n = size - off < sizeof(chunk) ? size - off : sizeof(chunk);

		if (pwrite(fd, chunk, n, (off_t)off) != (ssize_t)n)
			goto fail;
	}
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) ||
	    posix_fadvise(fd, 0, 0, advice))
		goto fail;
	return fd;
fail:
	fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * The run's child: @fn(@arg, @out_fd) in a fork, its exit status its
 * result.  No signal comes between the fork and the child's pid in the
 * undo, the child does not run the parent's undo, and it is left a
 * zombie while the parent looks at how it ended, so that the undo's
 * kill cannot reach a reused pid.  With @out, what the child writes to
 * @out_fd is read back as one JSON value (NULL if none).  0 with *@si
 * how it ended, or -1 after one error line.
 */
int host_child_run(const char *prog, int (*fn)(void *arg, int out_fd), void *arg,
		   json_t **out, siginfo_t *si)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	int pfd[2] = { -1, -1 };
	sigset_t block, old;
	size_t i;
	pid_t pid;

	if (out && pipe2(pfd, O_CLOEXEC)) {
		fprintf(stderr, "%s: cannot make a pipe: %s\n", prog, strerror(errno));
		return -1;
	}
	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&block, sigs[i]);
	fflush(stdout);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid == 0) {
		int status;

		for (i = 0; i < ARRAY_SIZE(sigs); i++)
			signal(sigs[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (pfd[0] >= 0)
			close(pfd[0]);
		status = fn(arg, pfd[1]);
		fflush(stdout);
		_exit(status);
	}
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (pid < 0 || host_undo_kill(pid)) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		fprintf(stderr, "%s: cannot start the run: %s\n", prog,
			pid < 0 ? strerror(errno) : "too many things to undo");
		if (pfd[0] >= 0)
			close(pfd[0]);
		return -1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (out) {
		*out = read_fd_json(pfd[0]);
		close(pfd[0]);
	}
	while (waitid(P_PID, (id_t)pid, si, WEXITED | WNOWAIT) && errno == EINTR)
		;
	return 0;
}

/* @j as one line down @fd, the run's pipe to its parent (a short write stops it) */
void host_json_write(int fd, json_t *j)
{
	char *line = json_dumps(j, JSON_COMPACT);
	size_t len = line ? strlen(line) : 0, off = 0;

	while (off < len) {
		ssize_t n = write(fd, line + off, len - off);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	free(line);
}

/* The machine's vmstat, its per-CPU diffs folded first (root), and @cg's memory.stat */
void host_counters_read(const struct host_cgroup *cg, struct bench_deltas *vm,
			struct bench_deltas *mc)
{
	host_write_file("/proc/sys/vm/stat_refresh", "1");
	host_read_vmstat(vm);
	cgroup_read_stat(cg, mc);
}
