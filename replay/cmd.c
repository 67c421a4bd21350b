// SPDX-License-Identifier: MIT
/*
 * `lrulab replay TRACE TYPE [options]`: a trace's miss ratios under the
 * exact LRU and under the kernel's classic LRU, shaped like libCacheSim's
 * cachesim (its type names, -t keys, size syntax and output lines).
 *
 * The trace is loaded once.  The exact LRU runs here; every size of the
 * kernel model runs in a process of its own (the model is one system per
 * process), forked so that it shares the loaded trace, --jobs at a time.
 * A child sends its result back through a pipe as the struct itself
 * (the same binary on both ends), then its lock table as text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lrulab/cpu.h>
#include "tools/outfile.h"
#include "tools/parse.h"
#include "tools/util.h"

#include "replay-cmd.h"

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lrulab replay TRACE TYPE [--sizes LIST] [-t PARAMS] [--ignore-obj-size 0|1]\n"
		"                     [--lru classic|mglru|host,...] [--reps N] [--policy lru]\n"
		"                     [--mode fd|mmap] [-n N] [--jobs N] [--locks] [--json]\n"
		"                     [--plot FILE.png]\n"
		"\n"
		"Replays a cache or memory trace through the exact LRU (--policy lru) and the\n"
		"kernel's classic active/inactive LRU (--lru classic) or its multi-gen LRU\n"
		"(--lru mglru): one memcg whose memory.max is the cache size, memcg reclaim,\n"
		"workingset refault detection.  The exact and the classic LRU run unless one is\n"
		"named.  Output lines are libCacheSim cachesim's, then lrulab's counters.\n"
		"\n"
		"TYPE: oracleGeneral, lcs, csv, txt (libCacheSim's formats), lackey (valgrind\n"
		"  --tool=lackey --trace-mem=yes output), pagetrace (lrulab's vtime,page,op).\n"
		"  A TRACE ending in .zst or .gz is decompressed as it is read.\n"
		"-t PARAMS: csv: \"obj-id-col=N, obj-size-col=N, time-col=N, op-col=N,\n"
		"  delimiter=C, has-header=true, obj-id-is-num=false\" (columns 1-based;\n"
		"  delimiter=,, is a comma, \\t a tab); txt: obj-id-is-num.\n"
		"--sizes LIST: counts (objects, or bytes when the trace has sizes), byte sizes\n"
		"  (32mb, 1GiB: binary units), fractions of the working set (0.1), or auto\n"
		"  (0.001 ... 0.8 of it, as cachesim).  Default auto.\n"
		"--ignore-obj-size 1: every object is one unit (one page in the kernel model).\n"
		"--mode fd (default): each object's pages are read through the page cache;\n"
		"  mmap: touched through an anonymous mapping (faults, PTE accessed bits, swap).\n"
		"--lru mglru: the multi-gen LRU (lru_gen 0x0007), also with classic: --lru\n"
		"  classic,mglru.  -n N: the first N requests.  --jobs N: sizes of\n"
		"  the kernel model replayed in parallel (default: the processors).\n"
		"--lru host: this machine's kernel (lrulab host replay, as root; --reps N runs\n"
		"  a size, default 1: the median and the range), run first, its request rate\n"
		"  at each size the clock of the model's replays there: --lru classic,host;\n"
		"  --rate paces the host's reads (and the model takes the rate it kept).\n"
		"--trace-time: the kernel replays' clock is the trace's own time stamps\n"
		"  (seconds: oracleGeneral and lcs records, a csv's time-col).\n"
		"--locks: the lock table of each kernel replay.  --plot FILE.png: the miss-ratio\n"
		"  curves (gnuplot; FILE.dat and FILE.gp beside it).\n"
		"--read-latency US: the kernel replays' clock: a hit takes 1 us, a page read\n"
		"  from the device US (default 100, an SSD's); --rate REQ_PER_SEC: every request\n"
		"  that long instead.  The memcg stats flush every 2 s of that clock.\n"
		"--print-jobs: instead of running, one command per size and LRU, each printing\n"
		"  its JSON line (for GNU parallel, here or over --sshloginfile).  --merge FILE\n"
		"  (again for more): with the same TRACE TYPE and options, the table and plot\n"
		"  from those JSON lines instead of running.\n");
}

/* One error line; the exit status of bad input. */
static int __attribute__((format(printf, 1, 2))) bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, REPLAY_PROG ": ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return 2;
}

static int parse_list(const char *opt, const char *arg, bool *exact, bool *classic,
		      bool *mglru, bool *host)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	if (!*arg)
		return bad("%s: empty", opt);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(opt, "--lru")) {
			if (!strcasecmp(tok, "classic")) {
				*classic = true;
				continue;
			}
			if (!strcasecmp(tok, "mglru")) {
				*mglru = true;
				continue;
			}
			if (!strcasecmp(tok, "host")) {
				*host = true;
				continue;
			}
			return bad("--lru: unknown LRU '%s' (classic, mglru, host)", tok);
		}
		if (!strcasecmp(tok, "lru")) {
			*exact = true;
			continue;
		}
		return bad("--policy: '%s' is not built (only lru, the exact LRU)", tok);
	}
	return 0;
}

static uint64_t ju_size(json_t *j)
{
	json_t *v = json_object_get(j, "size");

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : UINT64_MAX;
}

static int parse_args(int argc, char **argv, struct replay_cmd *c)
{
	static const struct option opts[] = {
		{ "sizes", required_argument, NULL, 'S' },
		{ "trace-type-params", required_argument, NULL, 't' },
		{ "ignore-obj-size", required_argument, NULL, 'I' },
		{ "lru", required_argument, NULL, 'L' },
		{ "policy", required_argument, NULL, 'P' },
		{ "mode", required_argument, NULL, 'M' },
		{ "num-req", required_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "locks", no_argument, NULL, 'k' },
		{ "plot", required_argument, NULL, 'p' },
		{ "print-jobs", no_argument, NULL, 'J' + 256 },
		{ "read-latency", required_argument, NULL, 'Q' + 256 },
		{ "rate", required_argument, NULL, 'R' + 256 },
		{ "merge", required_argument, NULL, 'm' + 256 },
		{ "reps", required_argument, NULL, 'r' + 256 },
		{ "trace-time", no_argument, NULL, 'T' + 256 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *params = NULL, *sizes = "auto";
	bool latency_given = false;
	char err[512];
	long v;
	int opt;

	c->mode = REPLAY_MODE_FD;
	c->jobs = lrulab_nr_processors();
	c->read_latency_us = REPLAY_READ_LATENCY_US;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":t:n:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'S':
			sizes = optarg;
			break;
		case 't':
			params = optarg;
			c->params_arg = optarg;
			break;
		case 'I':
			if (!strcmp(optarg, "1") || !strcasecmp(optarg, "true"))
				c->lo.ignore_obj_size = true;
			else if (!strcmp(optarg, "0") || !strcasecmp(optarg, "false"))
				c->lo.ignore_obj_size = false;
			else
				return bad("--ignore-obj-size: '%s' is not 0 or 1", optarg);
			break;
		case 'L':
		case 'P':
			if (parse_list(opt == 'L' ? "--lru" : "--policy", optarg, &c->exact,
				       &c->classic, &c->mglru, &c->host))
				return 2;
			break;
		case 'M':
			if (!strcmp(optarg, "fd"))
				c->mode = REPLAY_MODE_FD;
			else if (!strcmp(optarg, "mmap"))
				c->mode = REPLAY_MODE_MMAP;
			else
				return bad("--mode: '%s' is not fd or mmap", optarg);
			break;
		case 'n':
			if (parse_long(REPLAY_PROG, "--num-req", optarg, 1, LONG_MAX, &v))
				return 2;
			c->lo.max_reqs = (uint64_t)v;
			c->max_reqs_arg = v;
			break;
		case 'j':
			if (parse_long(REPLAY_PROG, "--jobs", optarg, 1, 64, &v))
				return 2;
			c->jobs = (int)v;
			break;
		case 'J':
			c->json = true;
			break;
		case 'k':
			c->locks = true;
			break;
		case 'p':
			if (!*optarg)
				return bad("--plot: no file name");
			c->plot = optarg;
			break;
		case 'J' + 256:
			c->print_jobs = true;
			break;
		case 'Q' + 256:
			if (parse_long(REPLAY_PROG, "--read-latency", optarg, 0, 1000000, &v))
				return 2;
			c->read_latency_us = v;
			latency_given = true;
			break;
		case 'R' + 256:
			if (parse_long(REPLAY_PROG, "--rate", optarg, 1, 1000000000L, &v))
				return 2;
			c->rate = v;
			break;
		case 'T' + 256:
			c->trace_time = true;
			break;
		case 'r' + 256:
			if (parse_long(REPLAY_PROG, "--reps", optarg, 1, 32, &v))
				return 2;
			c->host_reps = v;
			break;
		case 'm' + 256:
			if (!*optarg)
				return bad("--merge: no file name");
			if (c->nr_merge == REPLAY_MAX_SIZES)
				return bad("--merge: more than %d files", REPLAY_MAX_SIZES);
			c->merge[c->nr_merge++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			return bad("%s needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s' (try --help)", argv[optind - 1]);
		}
	}
	if (c->print_jobs && c->nr_merge)
		return bad("--print-jobs and --merge: one or the other");
	if (c->host_reps && !c->host)
		return bad("--reps: the host's runs a size; only with --lru host");
	if (c->host && (c->print_jobs || c->nr_merge))
		return bad("--lru host: runs here, as root, not as --print-jobs or --merge jobs");
	if (c->host && c->mode == REPLAY_MODE_MMAP)
		return bad("--lru host: the host replays files only (--mode fd)");
	if (c->host && latency_given)
		return bad("--lru host: the model runs at the host's request rate at each size; --read-latency does not apply (--rate paces the host)");
	if (c->host && !c->host_reps)
		c->host_reps = 1;
	if (c->trace_time && (c->rate || latency_given || c->host))
		return bad("--trace-time: the trace's own clock; not with --rate, --read-latency or --lru host");
	c->clock = (struct replay_clock){
		.req_ns = c->rate ? 1e9 / (double)c->rate : 0,
		.hit_ns = REPLAY_HIT_NS, .miss_ns = (double)c->read_latency_us * 1000.0,
	};
	if (c->print_jobs && c->plot)
		return bad("--print-jobs: the plot is --merge's (give --plot there)");
	if (argc - optind < 2)
		return bad("needs TRACE and TYPE (try --help)");
	if (argc - optind > 2)
		return bad("unexpected argument '%s'", argv[optind + 2]);
	c->trace_path = argv[optind];
	c->type_name = argv[optind + 1];
	if (!c->exact && !c->classic && !c->mglru && !c->host)
		c->exact = c->classic = true;
	/*
	 * the kernel model reads every page of every request, and so does
	 * the host's replay (which bounds it too): bounded before any run
	 */
	if (c->classic || c->mglru || c->host)
		c->lo.max_page_accesses = REPLAY_MAX_PAGE_ACCESSES;
	replay_params_default(&c->lo.params);
	if (replay_type_parse(c->type_name, &c->lo.type, err, sizeof(err)) ||
	    replay_params_parse(params ? params : "", c->lo.type, &c->lo.params, err,
				sizeof(err)))
		return bad("%s", err);
	if (c->lo.type == REPLAY_CSV && !params)
		return bad("csv traces need -t with obj-id-col=N");
	c->type_name = replay_type_name(c->lo.type);
	/* the plot's folder can be written to, before any run starts */
	if (c->plot && out_path_check(REPLAY_PROG, "--plot", c->plot))
		return 2;
	/* sizes need the trace's working set: parsed after the load */
	c->sizes_arg = sizes;
	return 0;
}

/* ---- the kernel model, one size per child process ---- */

struct child {
	pid_t pid;
	int fd;
	int run;
	char *buf;
	size_t len, cap;
};

/*
 * SIGINT and SIGTERM while the per-size processes run: each child is in
 * a process group of its own (a terminal's ^C reaches the parent
 * alone), and the parent passes the signal on to every child, waits for
 * them all and exits 128 + the signal, as ab and repro do.  The signals
 * are blocked but while the parent waits in ppoll(), so none comes
 * between a check and a fork.
 */
volatile sig_atomic_t replay_signal;

static void replay_on_signal(int sig)
{
	replay_signal = sig;
}

void replay_signals_catch(sigset_t *orig)
{
	struct sigaction sa = { .sa_handler = replay_on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void replay_signals_default(const sigset_t *mask)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
}

static void child_main(struct replay_cmd *c, struct replay_run *r, int fd)
{
	char *locks = NULL;
	size_t locks_len = 0;
	FILE *lf = c->locks ? open_memstream(&locks, &locks_len) : NULL;
	const char *p;
	size_t left;

	replay_linux_run_lru(&c->t, c->mode, r->lru == REPLAY_MGLRU, &r->clock, r->k.memory_max,
			     &r->k, lf);
	if (lf)
		fclose(lf);
	/* the result, then the lock table */
	p = (const char *)&r->k;
	left = sizeof(r->k);
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n <= 0)
			_exit(3);
		p += n;
		left -= (size_t)n;
	}
	for (p = locks, left = locks ? locks_len : 0; left;) {
		ssize_t n = write(fd, p, left);

		if (n <= 0)
			_exit(3);
		p += n;
		left -= (size_t)n;
	}
	_exit(0);
}

static int child_start(struct replay_cmd *c, int run, struct child *ch)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	fflush(NULL);
	ch->pid = fork();
	if (ch->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!ch->pid) {
		sigset_t none;

		setpgid(0, 0);
		sigemptyset(&none);
		replay_signals_default(&none);
		close(fds[0]);
		child_main(c, &c->runs[run], fds[1]);
	}
	/* set from both sides, so that a signal right after fork() finds it */
	setpgid(ch->pid, ch->pid);
	close(fds[1]);
	ch->fd = fds[0];
	ch->run = run;
	ch->len = 0;
	return 0;
}

/* Read what is there; 1 once the child closed its end. */
static int child_read(struct child *ch)
{
	ssize_t n;

	if (ch->len == ch->cap) {
		size_t cap = ch->cap ? ch->cap * 2 : 65536;
		char *b = realloc(ch->buf, cap);

		if (!b)
			return -1;
		ch->buf = b;
		ch->cap = cap;
	}
	n = read(ch->fd, ch->buf + ch->len, ch->cap - ch->len);
	if (n < 0)
		return errno == EINTR ? 0 : -1;
	ch->len += (size_t)n;
	return n == 0;
}

static void child_finish(struct replay_cmd *c, struct child *ch)
{
	struct replay_run *r = &c->runs[ch->run];
	int status = 0;

	close(ch->fd);
	waitpid(ch->pid, &status, 0);
	ch->pid = 0;
	if (ch->len < sizeof(r->k) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		r->failed = true;
		snprintf(r->k.error, sizeof(r->k.error), "the replay process %s",
			 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "failed");
		return;
	}
	memcpy(&r->k, ch->buf, sizeof(r->k));
	if (ch->len > sizeof(r->k))
		r->locks = strndup(ch->buf + sizeof(r->k), ch->len - sizeof(r->k));
	r->failed = r->k.error[0] != '\0';
	r->c = r->k.c;
	r->seconds = r->k.seconds;
}

/* Stop every running child with @sig and wait for each: how many there were. */
static int children_stop(struct replay_cmd *c, struct child *ch, int sig)
{
	int i, n = 0;

	for (i = 0; i < c->jobs; i++)
		if (ch[i].pid && !kill(ch[i].pid, sig))
			n++;
	for (i = 0; i < c->jobs; i++) {
		if (!ch[i].pid)
			continue;
		close(ch[i].fd);
		waitpid(ch[i].pid, NULL, 0);
		ch[i].pid = 0;
	}
	return n;
}

static int run_classic(struct replay_cmd *c, int first)
{
	struct child *ch = calloc((size_t)c->jobs, sizeof(*ch));
	struct pollfd *pfd = calloc((size_t)c->jobs, sizeof(*pfd));
	sigset_t orig;
	int next = first, active = 0, i;

	if (!ch || !pfd) {
		free(ch);
		free(pfd);
		return -1;
	}
	replay_signals_catch(&orig);
	for (;;) {
		if (replay_signal) {
			int sig = replay_signal, n = children_stop(c, ch, sig);

			fprintf(stderr, REPLAY_PROG ": stopped by %s: %d replay process%s stopped\n",
				sig == SIGINT ? "SIGINT" : "SIGTERM", n, n == 1 ? "" : "es");
			exit(128 + sig);
		}
		for (i = 0; i < c->jobs; i++) {
			while (next < c->nr_runs && c->runs[next].skipped)
				next++;
			if (ch[i].pid || next == c->nr_runs)
				continue;
			if (child_start(c, next, &ch[i])) {
				fprintf(stderr, REPLAY_PROG ": cannot start a replay process: %s\n",
					strerror(errno));
				exit(1);
			}
			next++;
			active++;
		}
		if (!active)
			break;
		for (i = 0; i < c->jobs; i++) {
			pfd[i].fd = ch[i].pid ? ch[i].fd : -1;
			pfd[i].events = POLLIN;
		}
		if (ppoll(pfd, (nfds_t)c->jobs, NULL, &orig) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, REPLAY_PROG ": poll: %s\n", strerror(errno));
			exit(1);
		}
		for (i = 0; i < c->jobs; i++) {
			int ret;

			if (!ch[i].pid || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ret = child_read(&ch[i]);
			if (ret) {
				child_finish(c, &ch[i]);
				active--;
			}
		}
	}
	replay_signals_default(&orig);
	for (i = 0; i < c->jobs; i++)
		free(ch[i].buf);
	free(ch);
	free(pfd);
	return 0;
}

/*
 * In object mode one pass gives every size, and each size's rate is that
 * pass's; in bytes mode each size is its own simulation and timed alone.
 */
static int run_exact(struct replay_cmd *c, int *n)
{
	struct replay_counts *out = calloc((size_t)c->nr_sizes, sizeof(*out));
	double t0 = now_sec(), secs;
	int i;

	if (!out)
		return -1;
	if (c->t.objects) {
		if (lru_exact_stack(&c->t, c->sizes, c->nr_sizes, out)) {
			free(out);
			return -1;
		}
		secs = now_sec() - t0;
		for (i = 0; i < c->nr_sizes; i++)
			c->runs[(*n)++] = (struct replay_run){ .lru = REPLAY_EXACT, .c = out[i],
							       .seconds = secs };
		free(out);
		return 0;
	}
	for (i = 0; i < c->nr_sizes; i++) {
		t0 = now_sec();
		if (lru_exact_sim(&c->t, c->sizes[i], &out[i])) {
			free(out);
			return -1;
		}
		c->runs[(*n)++] = (struct replay_run){ .lru = REPLAY_EXACT, .c = out[i],
						       .seconds = now_sec() - t0 };
	}
	free(out);
	return 0;
}

/* memory.max for size @s: objects are pages; bytes are rounded down to pages. */
static int classic_pages(const struct replay_cmd *c, uint64_t s, uint64_t *pages)
{
	*pages = c->t.objects ? s : s / 4096;
	if (!*pages) {
		fprintf(stderr, REPLAY_PROG ": --sizes: %llu bytes is less than a page, the kernel model's unit\n",
			(unsigned long long)s);
		return -1;
	}
	return 0;
}

/* @s in single quotes for a POSIX shell */
static void shell_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static const char *const lru_arg[NR_REPLAY_LRUS] = {
	[REPLAY_EXACT] = "--policy lru", [REPLAY_CLASSIC] = "--lru classic",
	[REPLAY_MGLRU] = "--lru mglru",
};

/* One self-contained command a run: this binary, the trace, one size, one LRU. */
static void print_jobs(const struct replay_cmd *c)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int i;

	self[n > 0 ? n : 0] = '\0';
	for (i = 0; i < c->nr_runs; i++) {
		const struct replay_run *r = &c->runs[i];

		if (r->skipped)
			continue;
		shell_word(stdout, n > 0 ? self : "lrulab");
		printf(" replay ");
		shell_word(stdout, c->trace_path);
		printf(" %s", c->type_name);
		if (c->params_arg) {
			printf(" -t ");
			shell_word(stdout, c->params_arg);
		}
		if (c->lo.ignore_obj_size)
			printf(" --ignore-obj-size 1");
		if (c->max_reqs_arg)
			printf(" -n %ld", c->max_reqs_arg);
		if (c->trace_time)
			printf(" --trace-time");
		else if (c->rate)
			printf(" --rate %ld", c->rate);
		else
			printf(" --read-latency %ld", c->read_latency_us);
		printf(" --mode %s --sizes %llu %s --jobs 1 --json%s\n",
		       c->mode == REPLAY_MODE_FD ? "fd" : "mmap", (unsigned long long)r->c.size,
		       lru_arg[r->lru], c->locks ? " --locks" : "");
	}
}

static const char *const lru_json[NR_REPLAY_LRUS] = {
	[REPLAY_EXACT] = "exact", [REPLAY_CLASSIC] = "classic", [REPLAY_MGLRU] = "mglru",
};

/* Each run's figures from the --merge files' JSON lines; 0 or the exit status. */
static int merge_runs(struct replay_cmd *c)
{
	json_t *lines = json_array();
	int f, i, status = 0;

	for (f = 0; f < c->nr_merge && !status; f++) {
		FILE *in = fopen(c->merge[f], "r");
		char *line = NULL;
		size_t cap = 0;
		long no = 0;

		if (!in) {
			status = bad("--merge: %s: %s", c->merge[f], strerror(errno));
			break;
		}
		while (getline(&line, &cap, in) > 0) {
			json_t *j;

			no++;
			if (line[0] == '\n')
				continue;
			j = json_loads(line, 0, NULL);
			if (!json_is_object(j)) {
				status = bad("--merge: %s: line %ld: not a JSON object", c->merge[f], no);
				json_decref(j);
				break;
			}
			json_array_append_new(lines, j);
		}
		free(line);
		fclose(in);
	}
	for (i = 0; i < c->nr_runs && !status; i++) {
		struct replay_run *r = &c->runs[i];
		json_t *j, *found = NULL;
		size_t k;

		if (r->skipped)
			continue;
		json_array_foreach(lines, k, j) {
			const char *mode = json_string_value(json_object_get(j, "mode"));

			if (ju_size(j) != r->c.size ||
			    strcmp(json_string_value(json_object_get(j, "lru")) ?: "", lru_json[r->lru]) ||
			    (r->lru != REPLAY_EXACT &&
			     strcmp(mode ?: "", c->mode == REPLAY_MODE_FD ? "fd" : "mmap")))
				continue;
			found = j;
		}
		if (!found) {
			status = bad("--merge: no result for %s at size %llu", replay_cache_name(r->lru),
				     (unsigned long long)r->c.size);
			break;
		}
		if (json_object_get(found, "skipped"))
			continue;
		if (replay_run_from_json(found, r))
			status = bad("--merge: the result for %s at size %llu has no figures",
				     replay_cache_name(r->lru), (unsigned long long)r->c.size);
	}
	json_decref(lines);
	return status;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_cmd c = { 0 };
	struct replay_run *host_runs = NULL;
	char err[512];
	double t0;
	int i, ret, n = 0, status = 0;

	ret = parse_args(argc, argv, &c);
	if (ret)
		return ret == 1 ? 0 : ret;
	t0 = now_sec();
	if (replay_trace_load(c.trace_path, &c.lo, &c.t, err, sizeof(err))) {
		replay_trace_free(&c.t);
		return bad("%s", err);
	}
	c.load_seconds = now_sec() - t0;
	if (c.trace_time && !c.t.times) {
		replay_trace_free(&c.t);
		return bad("--trace-time: a %s trace has no time stamps (oracleGeneral, lcs and a csv's time-col have)",
			   c.type_name);
	}
	if (c.trace_time)
		c.clock = (struct replay_clock){ .times = c.t.times };
	c.nr_sizes = replay_sizes_parse(c.sizes_arg, &c.t, c.sizes, err, sizeof(err));
	if (c.nr_sizes < 0) {
		replay_trace_free(&c.t);
		return bad("%s", err);
	}
	c.runs = calloc((size_t)c.nr_sizes * NR_REPLAY_LRUS, sizeof(*c.runs));
	if (!c.runs)
		return bad("out of memory");
	/*
	 * The kernel model's memory is real: a size's node is its memory.max
	 * (or the trace's pages, if fewer) of arena plus a 64-byte entry a
	 * page.  One that does not fit in 3/4 of what the machine has
	 * available is refused before anything runs, not swapped half-way.
	 */
	for (i = 0; (c.classic || c.mglru) && i < c.nr_sizes; i++) {
		unsigned long long pages, need, avail = host_mem_available();
		uint64_t max;

		if (classic_pages(&c, c.sizes[i], &max))
			return 2;
		pages = max < c.t.total_pages ? max : c.t.total_pages;
		need = (pages + 4096) * (PAGE_SIZE + 64);
		if (max >= REPLAY_MIN_PAGES && avail && need > avail / 4 * 3) {
			replay_trace_free(&c.t);
			return bad("cache size %llu: the kernel model needs %lluM for it, more than 3/4 of the %lluM this machine has available",
				   (unsigned long long)c.sizes[i], need >> 20,
				   (unsigned long long)avail >> 20);
		}
	}
	if (c.exact && (c.print_jobs || c.nr_merge)) {
		/* slots only: the jobs run them, or --merge fills them */
		for (i = 0; i < c.nr_sizes; i++)
			c.runs[n++] = (struct replay_run){ .lru = REPLAY_EXACT, .c.size = c.sizes[i] };
	} else if (c.exact && run_exact(&c, &n)) {
		return bad("out of memory");
	}
	if (c.host) {
		/* first, alone on the machine, and its rates are the model's clocks */
		host_runs = calloc((size_t)c.nr_sizes, sizeof(*host_runs));
		if (!host_runs)
			return bad("out of memory");
		status = replay_host_run(&c, host_runs);
		if (status) {
			free(host_runs);
			free(c.runs);
			replay_trace_free(&c.t);
			return status;
		}
	}
	if (c.classic || c.mglru) {
		int first = n, k, nsizes = c.nr_sizes;

		/* the kernel's LRUs: classic sizes, then mglru's, one process each */
		for (k = REPLAY_CLASSIC; k < REPLAY_HOST; k++) {
			if ((k == REPLAY_CLASSIC && !c.classic) || (k == REPLAY_MGLRU && !c.mglru))
				continue;
			for (i = 0; i < nsizes; i++) {
				struct replay_run *r = &c.runs[n++];

				r->lru = (enum replay_lru)k;
				if (classic_pages(&c, c.sizes[i], &r->k.memory_max))
					return 2;
				r->c.size = c.sizes[i];
				r->skipped = r->k.memory_max < REPLAY_MIN_PAGES;
				r->clock = c.clock;
				if (host_runs && host_runs[i].host.rate > 0)
					r->clock = (struct replay_clock){
						.req_ns = 1e9 / host_runs[i].host.rate };
			}
		}
		c.nr_runs = n;
		if (!c.print_jobs && !c.nr_merge && run_classic(&c, first))
			return bad("cannot run the kernel model: %s", strerror(errno));
		/* the child reports memory.max as the size: give back the asked one */
		for (i = first; i < n; i++)
			c.runs[i].c.size = c.sizes[(i - first) % nsizes];
	}
	for (i = 0; host_runs && i < c.nr_sizes; i++)
		c.runs[n++] = host_runs[i];
	free(host_runs);
	c.nr_runs = n;
	if (c.print_jobs || c.nr_merge) {
		status = c.print_jobs ? (print_jobs(&c), 0) : merge_runs(&c);
		if (c.print_jobs || status) {
			for (i = 0; i < c.nr_runs; i++)
				free(c.runs[i].locks);
			free(c.runs);
			replay_trace_free(&c.t);
			return status;
		}
	}

	if (!c.json)
		replay_print_header(&c, stdout);
	for (i = 0; i < c.nr_runs; i++) {
		struct replay_run *r = &c.runs[i];

		if (c.json) {
			json_t *j = replay_run_json(&c, r);
			char *s = json_dumps(j, JSON_COMPACT);

			printf("%s\n", s);
			free(s);
			json_decref(j);
		} else {
			replay_print_run(&c, r, stdout);
		}
		if (r->failed) {
			fprintf(stderr, REPLAY_PROG ": %s at %llu: %s\n",
				replay_cache_name(r->lru), (unsigned long long)r->c.size,
				r->k.error);
			status = 1;
		}
	}
	fflush(stdout);
	if (c.plot && replay_plot(&c))
		status = 1;
	for (i = 0; i < c.nr_runs; i++)
		free(c.runs[i].locks);
	free(c.runs);
	replay_trace_free(&c.t);
	return status;
}
