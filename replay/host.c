// SPDX-License-Identifier: MIT
/*
 * `lrulab replay ... --lru classic,host`: this machine's kernel beside
 * the model, one table and one plot.
 *
 * The host's runs are `lrulab host replay` in a child of this binary,
 * which makes and removes its own files and cgroups (also on a signal),
 * read back as its JSON lines.  Per size the table gives the median
 * miss ratio of its --reps runs and their range, and the median request
 * rate, which the model's replays at that size then run at, as --rate
 * would: the kernel's 2 s memcg flush is then the same share of both
 * runs, as `host usemem --compare` hands the model the disk's wait.
 * With --rate the host's reader is paced at that rate (at most), and
 * the model again takes the rate the host kept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "replay-cmd.h"
#include "tools/util.h"

/* as host replay's own bound */
#define HOST_MAX_REPS	32

/* argv of `lrulab host replay` for the sizes of @c the model can take */
static int host_argv(const struct replay_cmd *c, char **argv, int max, char *sizes,
		     size_t sizes_len, char *reps, char *num, char *rate)
{
	static char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t used = 0;
	int a = 0, i;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	sizes[0] = '\0';
	for (i = 0; i < c->nr_sizes; i++)
		used += (size_t)snprintf(sizes + used, used < sizes_len ? sizes_len - used : 0,
					 "%s%llu", i ? "," : "",
					 (unsigned long long)c->sizes[i]);
	if (used >= sizes_len)
		return -1;
	argv[a++] = self;
	argv[a++] = "host";
	argv[a++] = "replay";
	argv[a++] = (char *)c->trace_path;
	argv[a++] = (char *)c->type_name;
	argv[a++] = "--sizes";
	argv[a++] = sizes;
	argv[a++] = "--reps";
	snprintf(reps, 16, "%ld", c->host_reps);
	argv[a++] = reps;
	argv[a++] = "--json";
	if (c->params_arg) {
		argv[a++] = "--trace-type-params";
		argv[a++] = (char *)c->params_arg;
	}
	argv[a++] = "--ignore-obj-size";
	argv[a++] = c->lo.ignore_obj_size ? "1" : "0";
	if (c->rate) {
		snprintf(rate, 24, "%ld", c->rate);
		argv[a++] = "--rate";
		argv[a++] = rate;
	}
	if (c->max_reqs_arg) {
		snprintf(num, 24, "%ld", c->max_reqs_arg);
		argv[a++] = "--num-req";
		argv[a++] = num;
	}
	argv[a] = NULL;
	return a < max ? 0 : -1;
}

/*
 * Run the host's replays, its stdout collected in *@out; its stderr is
 * the user's.  SIGINT and SIGTERM go on to it, as to replay's own
 * workers.  The child's exit status (0 when all went well), or -1.
 */
static int host_child(const struct replay_cmd *c, char **out, size_t *out_len)
{
	char *argv[24], sizes[REPLAY_MAX_SIZES * 24], reps[16], num[24], rate[24];
	size_t cap = 0, len = 0;
	sigset_t orig;
	int fds[2], status = 0;
	char *buf = NULL;
	pid_t pid;

	if (host_argv(c, argv, (int)ARRAY_SIZE(argv), sizes, sizeof(sizes), reps, num, rate) ||
	    pipe(fds))
		return -1;
	replay_signals_catch(&orig);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		replay_signals_default(&orig);
		return -1;
	}
	if (!pid) {
		replay_signals_default(&orig);
		setpgid(0, 0);
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(fds[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(fds[1]);
	for (;;) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		ssize_t n;

		if (replay_signal) {
			int sig = replay_signal;

			kill(pid, sig);
			waitpid(pid, NULL, 0);
			fprintf(stderr, REPLAY_PROG ": stopped by %s: the host's replay stopped\n",
				sig == SIGINT ? "SIGINT" : "SIGTERM");
			exit(128 + sig);
		}
		if (ppoll(&p, 1, NULL, &orig) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (len + 65536 > cap) {
			char *b = realloc(buf, cap = cap ? cap * 2 : 1 << 20);

			if (!b)
				break;
			buf = b;
		}
		n = read(fds[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	replay_signals_default(&orig);
	if (buf)
		buf[len] = '\0';
	*out = buf;
	*out_len = len;
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Size @i's figures from the runs' JSON lines */
static void host_size(const struct replay_cmd *c, json_t *lines, uint64_t size,
		      struct replay_run *r)
{
	double mr[HOST_MAX_REPS], rate[HOST_MAX_REPS];
	json_t *j, *by_mr[HOST_MAX_REPS];
	size_t k;
	int n = 0, a, b;

	*r = (struct replay_run){ .lru = REPLAY_HOST, .c.size = size };
	json_array_foreach(lines, k, j) {
		json_t *v = json_object_get(j, "size");

		if (!json_is_integer(v) || (uint64_t)json_integer_value(v) != size)
			continue;
		if (json_object_get(j, "oom_killed")) {
			r->host.oom = (int)json_integer_value(json_object_get(j, "runs_oom_killed"));
			continue;
		}
		if (n < HOST_MAX_REPS && json_is_number(json_object_get(j, "miss_ratio")))
			by_mr[n++] = j;
	}
	r->host.runs = n;
	if (!n) {
		r->skipped = true;
		return;
	}
	/* by miss ratio: the median run's counts are the row's */
	for (a = 1; a < n; a++)
		for (b = a; b > 0 && json_number(by_mr[b], "miss_ratio") <
				      json_number(by_mr[b - 1], "miss_ratio"); b--) {
			json_t *t = by_mr[b];

			by_mr[b] = by_mr[b - 1];
			by_mr[b - 1] = t;
		}
	for (a = 0; a < n; a++) {
		mr[a] = json_number(by_mr[a], "miss_ratio");
		rate[a] = json_number(by_mr[a], "requests_per_sec");
	}
	qsort(rate, (size_t)n, sizeof(rate[0]), cmp_double);
	r->host.mr = median_double(mr, n);
	r->host.mr_lo = mr[0];
	r->host.mr_hi = mr[n - 1];
	r->host.rate = median_double(rate, n);
	r->c.requests = (uint64_t)json_number(by_mr[n / 2], "requests");
	r->c.misses = (uint64_t)json_number(by_mr[n / 2], "misses");
	r->k.page_accesses = (uint64_t)json_number(by_mr[n / 2], "page_accesses");
	r->k.page_misses = (uint64_t)json_number(by_mr[n / 2], "page_misses");
	r->seconds = r->host.rate > 0 ? (double)r->c.requests / r->host.rate : 0;
	(void)c;
}

int replay_host_run(const struct replay_cmd *c, struct replay_run *runs)
{
	json_t *lines = json_array();
	size_t len = 0;
	char *out = NULL, *line, *save = NULL;
	int status, i;

	status = host_child(c, &out, &len);
	if (status) {
		if (status < 0)
			fprintf(stderr, REPLAY_PROG ": cannot run lrulab host replay: %s\n",
				strerror(errno));
		free(out);
		json_decref(lines);
		return status < 0 ? 1 : status;
	}
	for (line = out ? strtok_r(out, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL);

		if (json_is_object(j))
			json_array_append_new(lines, j);
		else
			json_decref(j);
	}
	for (i = 0; i < c->nr_sizes; i++)
		host_size(c, lines, c->sizes[i], &runs[i]);
	free(out);
	json_decref(lines);
	return 0;
}
