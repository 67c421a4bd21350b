// SPDX-License-Identifier: MIT
/*
 * What `lrulab host` touches on the machine besides its own memory: the
 * mTHP size settings in sysfs (set for a run, restored after it), the
 * processors its threads are pinned to, and the counters it reads
 * (/proc/vmstat, the per-size mTHP stats).  Every change is registered
 * with an undo that runs at exit and from the handler of SIGINT, SIGTERM
 * and SIGHUP, so an interrupted run leaves the machine as it found it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "bench/host.h"

#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"
#define HOST_MAX_UNDO	64

/* ---- undo, at exit and on signals ---- */

enum host_undo_kind { UNDO_WRITE, UNDO_UNLINK, UNDO_RMDIR, UNDO_KILL, UNDO_SWAPOFF };

/*
 * @idle is 1 while a slot is free, being filled or already undone, and
 * 0 while it is armed: whoever swaps it from 0 to 1 (the normal path or
 * a signal handler, in any thread) runs the undo, so it runs once.
 */
struct host_undo {
	int idle;
	enum host_undo_kind kind;
	char path[256];
	char value[64];
	pid_t pid;		/* UNDO_KILL */
};

static struct host_undo undos[HOST_MAX_UNDO];
static int nr_undos;
static bool undo_handlers_set;

/* Only async-signal-safe calls: this also runs in a signal handler. */
/*
 * The kernel's swapoff (the model's own swapoff() has the name).  After
 * a signal the run's processes may still be dying, their pages in the
 * file, which swapoff would bring back into their cgroup: it fails
 * until they are gone, so it is tried again for up to 3 s (EINVAL: the
 * file is not on).
 */
static void swapoff_retry(const char *path)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int tries;

	for (tries = 0; tries < 300; tries++) {
		if (!syscall(SYS_swapoff, path) || errno == EINVAL)
			return;
		nanosleep(&ts, NULL);
	}
}

static void undo_run(struct host_undo *u)
{
	int fd;

	if (__atomic_exchange_n(&u->idle, 1, __ATOMIC_ACQ_REL))
		return;
	switch (u->kind) {
	case UNDO_WRITE:
		fd = open(u->path, O_WRONLY | O_TRUNC);
		if (fd >= 0) {
			if (write(fd, u->value, strlen(u->value)) < 0) {
				/* nothing better to do from here */
			}
			close(fd);
		}
		break;
	case UNDO_UNLINK:
		unlink(u->path);
		break;
	case UNDO_RMDIR:
		rmdir(u->path);
		break;
	case UNDO_SWAPOFF:
		swapoff_retry(u->path);
		break;
	case UNDO_KILL:
		/* a child that still runs in a cgroup about to be removed */
		kill(u->pid, SIGKILL);
		while (waitpid(u->pid, NULL, 0) < 0 && errno == EINTR)
			;
		break;
	}
}

static void undo_all_armed(void)
{
	int i = __atomic_load_n(&nr_undos, __ATOMIC_ACQUIRE);

	while (i-- > 0)
		undo_run(&undos[i]);
}

void host_undo_all(void)
{
	undo_all_armed();
	/* every slot is idle now: reuse the table from the start */
	__atomic_store_n(&nr_undos, 0, __ATOMIC_RELEASE);
}

static void undo_signal(int sig)
{
	static const char intr[] = "lrulab host: stopped by SIGINT; what it set up is undone\n";
	static const char term[] = "lrulab host: stopped by SIGTERM; what it set up is undone\n";
	static const char hup[] = "lrulab host: stopped by SIGHUP; what it set up is undone\n";
	const char *msg = sig == SIGINT ? intr : sig == SIGTERM ? term : hup;
	int saved = errno;

	undo_all_armed();
	/* one line, so that a stopped run is not a silent one */
	if (write(2, msg, strlen(msg)) < 0) {
		/* nothing better to do from here */
	}
	errno = saved;
	/* SA_RESETHAND made the default action current: die of the signal */
	raise(sig);
}

static void undo_handlers_install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	if (undo_handlers_set)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = undo_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct sigaction old;

		/* a signal ignored since the start (nohup, a background job) stays so */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	atexit(host_undo_all);
	undo_handlers_set = true;
}

/* Registration is the main thread's: only the handlers run concurrently. */
static int undo_add_pid(enum host_undo_kind kind, const char *path, const char *value,
			pid_t pid)
{
	int n = __atomic_load_n(&nr_undos, __ATOMIC_RELAXED);
	struct host_undo *u;

	if (n == HOST_MAX_UNDO || strlen(path) >= sizeof(u->path) ||
	    (value && strlen(value) >= sizeof(u->value)))
		return -1;
	undo_handlers_install();
	u = &undos[n];
	__atomic_store_n(&u->idle, 1, __ATOMIC_RELAXED);
	u->kind = kind;
	snprintf(u->path, sizeof(u->path), "%s", path);
	snprintf(u->value, sizeof(u->value), "%s", value ? value : "");
	u->pid = pid;
	__atomic_store_n(&nr_undos, n + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&u->idle, 0, __ATOMIC_RELEASE);
	return 0;
}

static int undo_add(enum host_undo_kind kind, const char *path, const char *value)
{
	return undo_add_pid(kind, path, value, 0);
}

int host_undo_write(const char *path, const char *value)
{
	return undo_add(UNDO_WRITE, path, value);
}

int host_undo_unlink(const char *path)
{
	return undo_add(UNDO_UNLINK, path, NULL);
}

int host_undo_rmdir(const char *path)
{
	return undo_add(UNDO_RMDIR, path, NULL);
}

int host_undo_swapoff(const char *path)
{
	return undo_add(UNDO_SWAPOFF, path, NULL);
}

int host_undo_kill(pid_t pid)
{
	return pid > 0 ? undo_add_pid(UNDO_KILL, "-", NULL, pid) : -1;
}

/* ---- what killed runs left ---- */

/*
 * No process has @pid any more.  A PID in use by anything (even another
 * program that reused it) keeps its leftovers until it is free: what is
 * removed is never a live process's.
 */
static bool lrulab_pid_gone(pid_t pid)
{
	if (pid <= 0 || pid == getpid())
		return false;
	return kill(pid, 0) && errno == ESRCH;
}

/* "PREFIX<pid>" or "PREFIX<pid>-...": the PID, or 0 */
static pid_t leftover_pid(const char *name, const char *prefix, bool suffixed)
{
	size_t n = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, n) || name[n] < '1' || name[n] > '9')
		return 0;
	v = strtol(name + n, &end, 10);
	if (v <= 0 || v > INT_MAX || (suffixed ? *end != '-' : *end != '\0'))
		return 0;
	return (pid_t)v;
}

/* Every process left in cgroup @dir (and below) killed: they are the dead run's. */
static void cgroup_empty(const char *dir)
{
	char path[4200], buf[4096];
	int tries;

	for (tries = 0; tries < 100; tries++) {
		char *p, *end;
		bool any = false;
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = '\0';
		for (p = buf; *p; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			if (v > 0 && v != getpid() && !kill((pid_t)v, SIGKILL))
				any = true;
		}
		if (!any)
			return;
		usleep(10000);
	}
}

/* rmdir @dir's sub-cgroups, deepest first, then @dir (a cgroup's files go with it) */
static int cgroup_remove(const char *dir, int depth)
{
	char path[4200];
	struct dirent *e;
	DIR *d;

	cgroup_empty(dir);
	d = depth < 8 ? opendir(dir) : NULL;
	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		cgroup_remove(path, depth + 1);
	}
	if (d)
		closedir(d);
	return rmdir(dir);
}

static unsigned long long tree_bytes;

static int tree_unlink(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	if (flag == FTW_F || flag == FTW_SL || flag == FTW_SLN)
		tree_bytes += (unsigned long long)st->st_size;
	/* a killed host usemem --type anon's swap file may still be on */
	if (flag == FTW_F)
		syscall(SYS_swapoff, path);
	return remove(path) ? -1 : 0;
}

static void say_removed(const char *prog, const char *what, const char *path, pid_t pid)
{
	fprintf(stderr, "%s: removed %s %s, left by lrulab process %d, which is gone\n",
		prog, what, path, (int)pid);
}

/* In @dir: entries named PREFIX<pid>[-...] of gone PIDs, removed by @kind */
static int clear_in(const char *prog, const char *dir, const char *prefix, bool suffixed,
		    int kind)
{
	char path[4200], what[64];
	struct dirent *e;
	int n = 0;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		pid_t pid = leftover_pid(e->d_name, prefix, suffixed);
		int ret;

		if (!pid || !lrulab_pid_gone(pid))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (kind == 0) {
			ret = cgroup_remove(path, 0);
			snprintf(what, sizeof(what), "the memory cgroup");
		} else if (kind == 1) {
			ret = rmdir(path);
			snprintf(what, sizeof(what), "the tracefs instance");
		} else {
			tree_bytes = 0;
			ret = nftw(path, tree_unlink, 16, FTW_DEPTH | FTW_PHYS);
			snprintf(what, sizeof(what), "the folder (%llu KiB)", tree_bytes >> 10);
		}
		if (!ret) {
			say_removed(prog, what, path, pid);
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

int host_leftovers_clear(const char *prog, const char *cgroup_root)
{
	const char *tmp = getenv("TMPDIR");
	const char *dirs[3] = { tmp && *tmp ? tmp : NULL, "/var/tmp", "/tmp" };
	char path[4200];
	int n = 0, i, j;

	n += clear_in(prog, cgroup_root, "lrulab-", false, 0);
	snprintf(path, sizeof(path), "%s/memory", cgroup_root);
	n += clear_in(prog, path, "lrulab-", false, 0);
	n += clear_in(prog, "/sys/kernel/tracing/instances", "lrulab-", false, 1);
	for (i = 0; i < 3; i++) {
		if (!dirs[i])
			continue;
		for (j = 0; j < i; j++)
			if (dirs[j] && !strcmp(dirs[j], dirs[i]))
				break;
		if (j < i)
			continue;
		n += clear_in(prog, dirs[i], "lrulab-host-", true, 2);
		n += clear_in(prog, dirs[i], "lrulab-perf-", true, 2);
	}
	return n;
}

/* ---- files ---- */

/* The whole (small) file, NUL-terminated; bytes read or -errno. */
static ssize_t read_text(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	buf[got] = '\0';
	close(fd);
	return got;
}

static int write_text(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* ---- mTHP sizes ---- */

int host_sysfs_choice(const char *text, char *out, size_t len)
{
	const char *open_br = strchr(text, '['), *close_br;

	if (!open_br)
		return -1;
	close_br = strchr(open_br, ']');
	if (!close_br || close_br == open_br + 1 || (size_t)(close_br - open_br) > len)
		return -1;
	snprintf(out, len, "%.*s", (int)(close_br - open_br - 1), open_br + 1);
	return 0;
}

bool host_thp_size_active(bool shmem, const char *size_val, const char *top_val)
{
	if (!shmem)
		return !strcmp(size_val, "always") ||
		       (!strcmp(size_val, "inherit") && !strcmp(top_val, "always"));
	/* "deny" turns every size off, "force" leaves only the inheriting ones */
	if (!strcmp(top_val, "deny"))
		return false;
	if (!strcmp(top_val, "force"))
		return !strcmp(size_val, "inherit");
	/* a run's region lies inside i_size, so within_size is always */
	if (!strcmp(size_val, "always") || !strcmp(size_val, "within_size"))
		return true;
	return !strcmp(size_val, "inherit") &&
	       (!strcmp(top_val, "always") || !strcmp(top_val, "within_size"));
}

/* The setting of @file (enabled or shmem_enabled) in @dir under THP_DIR. */
static int thp_setting(const char *dir, const char *file, char *out, size_t len)
{
	char path[512], text[256];
	ssize_t n;

	snprintf(path, sizeof(path), THP_DIR "/%s%s%s", dir, *dir ? "/" : "", file);
	n = read_text(path, text, sizeof(text));
	if (n < 0)
		return (int)n;
	return host_sysfs_choice(text, out, len) ? -EINVAL : 0;
}

/* A size larger than @kb that the run's regions would fault instead. */
static int thp_larger_active(bool shmem, unsigned int kb, const char *top,
			     char *which, size_t len, char *val, size_t vlen)
{
	const char *file = shmem ? "shmem_enabled" : "enabled";
	struct dirent *de;
	DIR *d = opendir(THP_DIR);
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		unsigned int size;

		if (sscanf(de->d_name, "hugepages-%ukB", &size) != 1 || size <= kb)
			continue;
		if (thp_setting(de->d_name, file, val, vlen))
			continue;
		if (host_thp_size_active(shmem, val, top)) {
			snprintf(which, len, "%s/%s", de->d_name, file);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

int host_thp_prepare(const char *prog, bool shmem, unsigned int order)
{
	const char *file = shmem ? "shmem_enabled" : "enabled";
	unsigned int kb = 4U << order;
	char dir[32], path[256], old[32], top[32], which[320], val[32];
	int err;

	/* 4K: the regions are MADV_NOHUGEPAGE, whatever the settings */
	if (!order)
		return 0;
	if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) > 0) {
		fprintf(stderr, "%s: --folio-size %uK: THP is disabled for this process (PR_SET_THP_DISABLE)\n",
			prog, kb);
		return -1;
	}
	snprintf(dir, sizeof(dir), "hugepages-%ukB", kb);
	snprintf(path, sizeof(path), THP_DIR "/%s/%s", dir, file);
	err = thp_setting(dir, file, old, sizeof(old));
	if (err) {
		fprintf(stderr, "%s: --folio-size %uK: cannot read %s: %s (mTHP sizes need Linux 6.8, shmem ones 6.11)\n",
			prog, kb, path, strerror(-err));
		return -1;
	}
	if (thp_setting("", file, top, sizeof(top)))
		snprintf(top, sizeof(top), "never");
	if (shmem && (!strcmp(top, "deny") || !strcmp(top, "force"))) {
		fprintf(stderr, "%s: --folio-size %uK: " THP_DIR "/shmem_enabled is '%s', which overrides every size\n",
			prog, kb, top);
		return -1;
	}
	if (thp_larger_active(shmem, kb, top, which, sizeof(which), val, sizeof(val))) {
		fprintf(stderr, "%s: --folio-size %uK: %s is '%s', so faults would take larger folios; set it to never first\n",
			prog, kb, which, val);
		return -1;
	}
	if (!strcmp(old, "always"))
		return 0;
	err = write_text(path, "always");
	if (err) {
		fprintf(stderr, "%s: --folio-size %uK: cannot set %s: %s%s\n", prog, kb, path,
			strerror(-err), err == -EACCES || err == -EPERM ? " (needs root)" : "");
		return -1;
	}
	if (host_undo_write(path, old)) {
		write_text(path, old);
		fprintf(stderr, "%s: --folio-size %uK: too many changes to undo\n", prog, kb);
		return -1;
	}
	return 0;
}

/* ---- processors and counters ---- */

int host_pin(int n)
{
	cpu_set_t set;
	int i, seen = 0, count;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	count = CPU_COUNT(&set);
	if (!count)
		return -EINVAL;
	n %= count;
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &set) || seen++ != n)
			continue;
		CPU_ZERO(&set);
		CPU_SET(i, &set);
		return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	return -EINVAL;
}

static void deltas_add(struct bench_deltas *d, const char *name, long long v)
{
	size_t len = strlen(name);
	struct bench_delta *nd;

	/* every counter the kernel has fits; a longer one would not be it */
	if (len >= sizeof(nd->name))
		return;
	nd = realloc(d->d, (d->nr + 1) * sizeof(*nd));
	if (!nd)
		return;
	d->d = nd;
	memcpy(d->d[d->nr].name, name, len + 1);
	d->d[d->nr++].delta = v;
}

static int delta_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct bench_delta *)a)->name,
		      ((const struct bench_delta *)b)->name);
}

/* readdir() order is the file system's: sorted, runs print alike */
void host_read_mthp(struct bench_deltas *d)
{
	struct dirent *de, *se;
	DIR *top = opendir(THP_DIR), *stats;
	char path[600], name[600], text[64];

	d->nr = 0;
	d->d = NULL;
	if (!top)
		return;
	while ((de = readdir(top))) {
		if (strncmp(de->d_name, "hugepages-", 10))
			continue;
		snprintf(path, sizeof(path), THP_DIR "/%s/stats", de->d_name);
		stats = opendir(path);
		if (!stats)
			continue;
		while ((se = readdir(stats))) {
			if (se->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), THP_DIR "/%s/stats/%s", de->d_name,
				 se->d_name);
			if (read_text(path, text, sizeof(text)) <= 0)
				continue;
			snprintf(name, sizeof(name), "%s/%s", de->d_name, se->d_name);
			deltas_add(d, name, strtoll(text, NULL, 10));
		}
		closedir(stats);
	}
	closedir(top);
	if (d->nr)
		qsort(d->d, d->nr, sizeof(*d->d), delta_name_cmp);
}

void host_read_vmstat(struct bench_deltas *d)
{
	static char text[65536];

	d->nr = 0;
	d->d = NULL;
	if (read_text("/proc/vmstat", text, sizeof(text)) > 0)
		bench_deltas_parse(d, text);
}

int host_disk_stat(dev_t dev, struct host_disk_stat *d)
{
	char path[128], buf[256];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat", major(dev), minor(dev));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%llu %*u %llu %llu %llu %*u %*u %llu", &d->reads, &d->read_sectors,
		      &d->read_ms, &d->writes, &d->write_ms) == 5 ? 0 : -1;
}
