// SPDX-License-Identifier: MIT
/*
 * `lrulab host fault-free --perf-lock`: the host run again, under `perf
 * lock record`, with the kernel's `perf lock contention` table (by
 * caller) printed, then lrulab's lock table for the same workload, and
 * the one figure both give: contended lru_lock acquisitions per 1000
 * pages.  perf only sees contended acquisitions (the contention_begin
 * tracepoint), so that is the figure to compare, not acquisitions.
 *
 * The host run is this binary in a fresh process under perf, so perf
 * records nothing of ours; its files live in a temporary directory that
 * is removed afterwards, also when a signal ends the run: the signals
 * are held while perf runs and passed on to it, and the clean-up waits
 * for perf to finish writing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bench/host.h"

/* ---- perf's table ---- */

static int unit_ns(const char *unit, double *mult)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(unit, units[i].name)) {
			*mult = units[i].ns;
			return 0;
		}
	return -1;
}

/* " 4615  6.51 ms  49.38 us  1.41 us  spinlock  __page_cache_release.part.0+0x58" */
int host_perf_parse_row(const char *line, struct host_perf_row *row)
{
	char u1[8], u2[8], u3[8];
	double m1, m2, m3;

	memset(row, 0, sizeof(*row));
	if (sscanf(line, " %llu %lf %7s %lf %7s %lf %7s %23s %95s", &row->contended,
		   &row->wait_total_ns, u1, &row->wait_max_ns, u2, &row->wait_avg_ns, u3,
		   row->type, row->caller) != 9)
		return -1;
	if (unit_ns(u1, &m1) || unit_ns(u2, &m2) || unit_ns(u3, &m3))
		return -1;
	row->wait_total_ns *= m1;
	row->wait_max_ns *= m2;
	row->wait_avg_ns *= m3;
	return 0;
}

/*
 * The kernel functions (classic LRU, Linux 6.x and the 2026 mm tree)
 * that take an lruvec's lru_lock in their own body or through a helper
 * inlined into it, which is the caller `perf lock contention` names.
 */
static const char *const lru_lock_callers[] = {
	"folio_batch_move_lru", "__page_cache_release", "page_cache_release",
	"folios_put_refs", "release_pages", "__folio_put",
	"folio_lruvec_lock", "folio_lruvec_lock_irq", "folio_lruvec_lock_irqsave",
	"lru_add_drain_cpu", "lru_note_cost", "lru_note_cost_unlock_irq",
	"folio_isolate_lru", "isolate_lru_folios", "shrink_inactive_list",
	"shrink_active_list", "move_folios_to_lru", "shrink_lruvec", "shrink_node",
	"check_move_unevictable_folios", "lru_reparent_memcg", "__munlock_folio",
	"mlock_folio_batch",
};

/* "fn+0x58", "fn.part.0+0x58", "fn.isra.0", "fn.cold" are all fn: its length */
static size_t caller_fn_len(const char *caller)
{
	return strcspn(caller, "+.");
}

bool host_perf_lru_caller(const char *caller)
{
	char name[96];
	size_t i, n;

	n = caller_fn_len(caller);
	if (!n || n >= sizeof(name))
		return false;
	memcpy(name, caller, n);
	name[n] = '\0';
	for (i = 0; i < ARRAY_SIZE(lru_lock_callers); i++)
		if (!strcmp(name, lru_lock_callers[i]))
			return true;
	return false;
}

/* ---- running perf ---- */

struct perf_files {
	char dir[64];
	char data[96];
	char out[96];
	char err[96];
};

static const int held_signals[] = { SIGINT, SIGTERM, SIGHUP };

static bool in_path(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(n ? n : 1), n ? path : ".", cmd);
		if (!access(buf, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int c;

	if (f && m)
		while ((c = getc(f)) != EOF)
			putc(c, m);
	if (f)
		fclose(f);
	if (m)
		fclose(m);
	return buf;
}

/*
 * Run @argv with stdout and stderr into the files, the three signals
 * held here: one that arrives is passed to the child, whose end is
 * awaited, and then returned in *@sig for the caller to die of once it
 * has cleaned up.  The wait status, or -1 when the child did not start.
 */
static int run_held(char *const *argv, const struct perf_files *pf, int *sig)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	sigset_t set, old;
	siginfo_t si;
	int status, out, err;
	size_t i;
	pid_t pid;

	*sig = 0;
	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(held_signals); i++)
		sigaddset(&set, held_signals[i]);
	/* blocked, SIGCHLD stays pending: the wait below wakes when perf ends */
	sigaddset(&set, SIGCHLD);
	out = open(pf->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err = open(pf->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0 || err < 0) {
		if (out >= 0)
			close(out);
		if (err >= 0)
			close(err);
		return -1;
	}
	fflush(NULL);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (!pid) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(out);
	close(err);
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	for (;;) {
		int s = sigtimedwait(&set, &si, &tick);

		if (s > 0 && s != SIGCHLD && !*sig) {
			*sig = s;
			kill(pid, s);
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}

/* The last line of perf's stderr that is not its own progress report. */
static void last_message(const char *text, char *out, size_t len)
{
	const char *line = text;

	snprintf(out, len, "no message");
	while (line && *line) {
		size_t n = strcspn(line, "\n");

		if (n && strncmp(line, "[ perf record:", 14))
			snprintf(out, len, "%.*s", (int)n, line);
		line += n + (line[n] == '\n');
	}
}

static json_t *last_json_object(const char *text)
{
	const char *line = text, *last = NULL;

	while (line && *line) {
		if (*line == '{')
			last = line;
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	return last ? json_loadb(last, strcspn(last, "\n"), 0, NULL) : NULL;
}

/* ---- the comparison ---- */

struct perf_side {
	json_t *host;			/* the child's own JSON object */
	char *table;			/* `perf lock contention -E 10`, as printed */
	unsigned long long lru_contended;
	json_t *rows;
};

/* The signal run_held() passed on: clean up, then die of it. */
static void die_of(int sig)
{
	host_undo_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static bool exited_ok(int status)
{
	return status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status);
}

/* `perf lock contention ARGS...` into *@text (its table is on stderr). */
static int perf_table(const char *prog, char **argv, const struct perf_files *pf,
		      char **text)
{
	char msg[256];
	int sig, status = run_held(argv, pf, &sig);

	if (sig)
		die_of(sig);
	*text = slurp(pf->err);
	if (exited_ok(status) && *text)
		return 0;
	last_message(*text ? *text : "", msg, sizeof(msg));
	fprintf(stderr, "%s: --perf-lock: perf lock contention failed: %s\n", prog, msg);
	free(*text);
	*text = NULL;
	return 1;
}

/*
 * The host run with @threads threads under @perf (a NULL-ended argv of
 * perf and its options, before -o), its JSON object in *@host.  @opt
 * starts error lines.  0, or 1 after one error line.
 */
static int perf_record_host(const char *prog, const char *opt, char *const *perf,
			    const struct host_opts *o, long threads,
			    const struct perf_files *pf, json_t **host)
{
	char mem[32], thr[24], secs[32], folio[24], msg[256];
	char *tail[] = { "-o", (char *)pf->data, "--", (char *)bench_self_exe(), "host",
			 "fault-free", "--type", o->shmem ? "shmem" : "anon", "--folio-size",
			 folio, "--mem", mem, "--threads", thr, "--seconds", secs, "--json" };
	char *argv[ARRAY_SIZE(tail) + 16], *text, tool[64] = "";
	size_t n = 0, i;
	int status, sig;

	while (perf[n] && n < 15) {
		argv[n] = perf[n];
		/* "perf lock record", "perf record": its words before the options */
		if (perf[n][0] != '-' && (!n || perf[n - 1][0] != '-'))
			snprintf(tool + strlen(tool), sizeof(tool) - strlen(tool), "%s%s",
				 n ? " " : "", perf[n]);
		n++;
	}
	for (i = 0; i < ARRAY_SIZE(tail); i++)
		argv[n++] = tail[i];
	argv[n] = NULL;
	snprintf(mem, sizeof(mem), "%lu", o->mem);
	snprintf(thr, sizeof(thr), "%ld", threads);
	snprintf(secs, sizeof(secs), "%.6g", o->seconds);
	snprintf(folio, sizeof(folio), "%luK", (PAGE_SIZE << o->folio_order) >> 10);
	/* perf would keep an old data file as perf.data.old: none is there */
	unlink(pf->data);
	status = run_held(argv, pf, &sig);
	if (sig)
		die_of(sig);
	text = slurp(pf->out);
	*host = last_json_object(text);
	free(text);
	text = slurp(pf->err);
	last_message(text ? text : "", msg, sizeof(msg));
	free(text);
	if (status < 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 127)) {
		fprintf(stderr, "%s: %s: cannot run perf: %s\n", prog, opt, msg);
		return 1;
	}
	if (!exited_ok(status) || !*host) {
		fprintf(stderr, "%s: %s: %s failed (%s %d): %s\n", prog, opt, tool,
			WIFEXITED(status) ? "exit" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), msg);
		return 1;
	}
	return 0;
}

/*
 * `perf lock record` the host run with @threads threads, then read its
 * table twice: the ten worst callers as perf prints them, and every row
 * for the lru_lock sum.  0, or the exit status after one error line.
 */
static int perf_host(const char *prog, const struct host_opts *o, long threads,
		     const struct perf_files *pf, struct perf_side *ps)
{
	char *rec[] = { "perf", "lock", "record", NULL };
	char *top[] = { "perf", "lock", "contention", "-i", (char *)pf->data, "-E", "10", NULL };
	char *all[] = { "perf", "lock", "contention", "-i", (char *)pf->data, NULL };
	char *text, *line;

	if (perf_record_host(prog, "--perf-lock", rec, o, threads, pf, &ps->host))
		return 1;
	if (perf_table(prog, top, pf, &ps->table) || perf_table(prog, all, pf, &text))
		return 1;
	ps->rows = json_array();
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		struct host_perf_row row;
		bool lru;

		if (host_perf_parse_row(line, &row))
			continue;
		lru = !strcmp(row.type, "spinlock") && host_perf_lru_caller(row.caller);
		if (lru)
			ps->lru_contended += row.contended;
		json_array_append_new(ps->rows, json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:b}",
			"caller", row.caller, "type", row.type,
			"contended", (json_int_t)row.contended,
			"wait_total_ns", row.wait_total_ns, "wait_max_ns", row.wait_max_ns,
			"wait_avg_ns", row.wait_avg_ns, "lru_lock", lru));
	}
	free(text);
	unlink(pf->data);
	return 0;
}

/*
 * lrulab's run of the same workload: its own defaults, the host's sizes,
 * its memory too, whose watermarks size the per-CPU page lists.
 */
static int perf_model(const struct host_opts *o, long threads, struct bench_opts *bo,
		      struct bench_result *r)
{
	bench_defaults(&fault_free_workload, bo);
	bo->shmem = o->shmem;
	bo->folio_order = o->folio_order;
	bo->mem = o->mem;
	bo->node_mem = host_mem_total();
	bo->seconds = o->seconds;
	bo->fault_work_ns = o->fault_work_ns;
	return bench_run(&fault_free_workload, bo, threads, r);
}

static double per_1k(double n, double pages)
{
	return pages > 0 ? 1000 * n / pages : 0;
}

/*
 * lru_lock's hold per acquisition, the kernel's over lrulab's, from two
 * threads: an acquisition finds the lock held about as often as the other
 * CPU holds it, so contended per page is a^2 X H (a acquisitions per page,
 * X one thread's pages/s, H the hold per acquisition).  perf lock sees
 * only the kernel's contended acquisitions, so a is lrulab's (the model's
 * batching is the kernel's) and cancels in the ratio, as does the
 * approximation itself where both sides' arrivals are alike:
 * (c_kernel / X_kernel) / (c_lrulab / X_lrulab), c contended per page.
 * NAN unless two threads and both sides contended.
 */
static double hold_ratio(long threads, const struct perf_side *ps, double host_pages,
			 const struct bench_result *r)
{
	double xk = json_number(ps->host, "pages_per_sec"), ck, cl;

	if (threads != 2 || host_pages <= 0 || !r->pages || xk <= 0 || r->pages_per_sec <= 0 ||
	    !ps->lru_contended || !r->lru.contended)
		return NAN;
	ck = ps->lru_contended / host_pages;
	cl = (double)r->lru.contended / r->pages;
	return (ck / xk) / (cl / r->pages_per_sec);
}

/* lrulab's hold per lru_lock acquisition, measured (ns), and what a^2 X H gives (ns) */
static void lrulab_holds(const struct bench_result *r, double *measured, double *implied)
{
	double a = r->pages ? (double)r->lru.acquired / r->pages : 0;
	double x = r->pages_per_sec / (r->threads ? r->threads : 1);

	*measured = r->lru.acquired ? (double)r->lru.hold_total_ns / r->lru.acquired : NAN;
	*implied = a > 0 && x > 0 ? (double)r->lru.contended / r->pages / (a * a * x) * 1e9 : NAN;
}

static void perf_print(const struct host_opts *o, long threads, const struct perf_side *ps,
		       double host_pages, const struct bench_result *r)
{
	double rate = json_number(ps->host, "pages_per_sec");

	printf("== host kernel (Linux %s): %s, %ld thread%s, %luK folios, %.0f pages/s under perf\n",
		json_string_value(json_object_get(ps->host, "kernel")),
		o->shmem ? "shmem" : "anon", threads, threads == 1 ? "" : "s",
		(PAGE_SIZE << o->folio_order) >> 10, rate);
	printf("perf lock contention -E 10 (by caller):\n\n%s\n", ps->table ? ps->table : "");
	printf("== lrulab: the same workload, --fault-work %lu, %.0f pages/s\n",
		o->fault_work_ns, r->pages_per_sec);
	if (r->oversubscribed)
		printf("OVERSUBSCRIBED: %ld threads on %d processor%s\n", threads, r->cpus,
		       r->cpus == 1 ? "" : "s");
	printf("\n");
	bench_print_contention(stdout, r);
	printf("\nlru_lock contended acquisitions per 1000 pages: host %.2f (%llu in %.0f pages, warm-up included), lrulab %.2f (%llu in %lu pages)\n",
	       per_1k(ps->lru_contended, host_pages), ps->lru_contended, host_pages,
	       per_1k(r->lru.contended, r->pages), (unsigned long long)r->lru.contended, r->pages);
	if (!isnan(hold_ratio(threads, ps, host_pages, r))) {
		double m, im;

		lrulab_holds(r, &m, &im);
		printf("lru_lock hold per acquisition, kernel / lrulab, by contention: %.3g (contended per page over one thread's pages/s, each side, as if the threads' arrivals were independent; lrulab's hold %.0f ns measured, %.0f ns by the same estimate; --perf-hold measures the kernel's hold itself)\n",
		       hold_ratio(threads, ps, host_pages, r), m, im);
	}
}

static json_t *perf_json(const struct bench_opts *bo, struct perf_side *ps,
			 double host_pages, const struct bench_result *r)
{
	json_t *j = json_deep_copy(ps->host), *model = bench_result_json(&fault_free_workload, bo, r);

	json_object_set_new(j, "perf_lock", json_pack("{s:O, s:I, s:f, s:f}",
		"contention", ps->rows,
		"lru_lock_contended", (json_int_t)ps->lru_contended,
		"pages_recorded", host_pages,
		"lru_lock_contended_per_1k_pages", per_1k(ps->lru_contended, host_pages)));
	json_object_set_new(model, "lru_lock_contended_per_1k_pages",
			    json_real(per_1k(r->lru.contended, r->pages)));
	if (!isnan(hold_ratio(r->threads, ps, host_pages, r)))
		json_object_set_new(j, "lru_lock_hold_ratio_by_contention",
				    json_real(hold_ratio(r->threads, ps, host_pages, r)));
	json_object_set_new(j, "lrulab", model);
	return j;
}

static int perf_files_make(const char *prog, struct perf_files *pf)
{
	const char *tmp = getenv("TMPDIR");

	/* the PID in the name: a later run clears it if this one is killed */
	snprintf(pf->dir, sizeof(pf->dir), "%s/lrulab-perf-%d-XXXXXX",
		 tmp && *tmp && strlen(tmp) < 40 ? tmp : "/tmp", (int)getpid());
	if (!mkdtemp(pf->dir)) {
		fprintf(stderr, "%s: --perf-lock: cannot make a directory in %s: %s\n", prog,
			tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return -1;
	}
	snprintf(pf->data, sizeof(pf->data), "%s/perf.data", pf->dir);
	snprintf(pf->out, sizeof(pf->out), "%s/out", pf->dir);
	snprintf(pf->err, sizeof(pf->err), "%s/err", pf->dir);
	/* undone last first: the files, then their directory */
	if (host_undo_rmdir(pf->dir) || host_undo_unlink(pf->data) ||
	    host_undo_unlink(pf->out) || host_undo_unlink(pf->err)) {
		rmdir(pf->dir);
		fprintf(stderr, "%s: --perf-lock: too many changes to undo\n", prog);
		return -1;
	}
	return 0;
}

int host_perf_lock(const char *prog, const struct host_opts *o)
{
	struct perf_files pf;
	int i, status = 0;

	if (!in_path("perf")) {
		fprintf(stderr, "%s: --perf-lock: perf is not installed (no perf in PATH)\n", prog);
		return 1;
	}
	if (perf_files_make(prog, &pf))
		return 1;
	for (i = 0; i < o->nr_threads && !status; i++) {
		struct perf_side ps = { NULL };
		struct bench_result r;
		struct bench_opts bo;
		double host_pages;

		status = perf_host(prog, o, o->threads[i], &pf, &ps);
		if (!status && perf_model(o, o->threads[i], &bo, &r)) {
			fprintf(stderr, "%s: --perf-lock: cannot set up lrulab's model\n", prog);
			status = 1;
		}
		if (!status) {
			host_pages = json_number(ps.host, "pages") +
				     json_number(ps.host, "warmup_pages");
			if (o->json) {
				json_t *j = perf_json(&bo, &ps, host_pages, &r);

				bench_json_line(j);
				json_decref(j);
			} else {
				if (i)
					printf("\n");
				perf_print(o, o->threads[i], &ps, host_pages, &r);
			}
			fflush(stdout);
			if (r.err || r.invariant_violations) {
				fprintf(stderr, "%s: --perf-lock: lrulab's run failed\n", prog);
				status = 1;
			}
			bench_result_free(&r);
		}
		json_decref(ps.host);
		json_decref(ps.rows);
		free(ps.table);
	}
	host_undo_all();
	return status;
}

/* ---- --perf-hold: lru_lock's hold, from timer samples ---- */

/*
 * cpu-clock is an hrtimer, so a tick that falls while interrupts are off
 * is taken where they come back on.  lru_lock is held with interrupts
 * off and given back by an unlock that restores them: at one thread
 * (nothing to wait for) the samples whose innermost frame is that unlock,
 * called from a function that takes lru_lock, are the kernel's holds,
 * each worth its period.  A period of 250 us (4 kHz): 1 kHz gave the same
 * share here, and 4 kHz four times the samples.
 */
#define HOLD_PERIOD_NS	250000

static bool irq_unlock(const char *sym)
{
	return !strcmp(sym, "_raw_spin_unlock_irqrestore") || !strcmp(sym, "_raw_spin_unlock_irq");
}

static int hold_count(struct host_hold *h, const char *caller, double period)
{
	size_t n = caller_fn_len(caller);
	int i;

	for (i = 0; i < h->nr_sites; i++)
		if (strlen(h->site[i].caller) == n && !strncmp(h->site[i].caller, caller, n))
			break;
	if (i == h->nr_sites) {
		if (i == HOST_HOLD_MAX_SITES || n >= sizeof(h->site[i].caller))
			return -1;
		memset(&h->site[i], 0, sizeof(h->site[i]));
		memcpy(h->site[i].caller, caller, n);
		h->nr_sites++;
	}
	h->site[i].samples++;
	h->site[i].ns += period;
	return 0;
}

/* " 250000 " heads a sample; "\t ffffffff8226dfcd _raw_spin_unlock_irqrestore" is a frame */
int host_hold_parse(const char *text, struct host_hold *h)
{
	char sym0[96] = "", sym[96];
	const char *line = text;
	double period = 0;
	int frame = -1;

	memset(h, 0, sizeof(*h));
	while (line && *line) {
		size_t n = strcspn(line, "\n");
		char buf[256];
		unsigned long long ip;

		snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), line);
		line += n + (line[n] == '\n');
		if (buf[0] == '\t') {
			if (frame < 0 || sscanf(buf, " %llx %95s", &ip, sym) != 2)
				continue;
			if (!frame)
				snprintf(sym0, sizeof(sym0), "%s", sym);
			else if (frame == 1 && irq_unlock(sym0) && host_perf_lru_caller(sym) &&
				 hold_count(h, sym, period))
				return -1;
			frame++;
		} else if (sscanf(buf, " %lf", &period) == 1 && period > 0) {
			h->samples++;
			h->ns += period;
			frame = 0;
		}
	}
	return h->samples ? 0 : -1;
}

struct hold_side {
	json_t *host;
	struct host_hold h;
	double pages;			/* the host's, warm-up included: perf saw them all */
};

/* One thread of the host under perf record, then its samples read. */
static int perf_hold_host(const char *prog, const struct host_opts *o,
			  const struct perf_files *pf, struct hold_side *hs)
{
	char period[24];
	char *rec[] = { "perf", "record", "-e", "cpu-clock", "-c", period, "-g", NULL };
	char *script[] = { "perf", "script", "-i", (char *)pf->data, "-F", "period,ip,sym",
			   "--max-stack", "2", NULL };
	char msg[256], *text;
	int sig, status;

	snprintf(period, sizeof(period), "%d", HOLD_PERIOD_NS);
	if (perf_record_host(prog, "--perf-hold", rec, o, 1, pf, &hs->host))
		return 1;
	hs->pages = json_number(hs->host, "pages") + json_number(hs->host, "warmup_pages");
	status = run_held(script, pf, &sig);
	if (sig)
		die_of(sig);
	text = slurp(pf->out);
	if (exited_ok(status) && text && !host_hold_parse(text, &hs->h)) {
		free(text);
		return 0;
	}
	free(text);
	text = slurp(pf->err);
	last_message(text ? text : "", msg, sizeof(msg));
	free(text);
	fprintf(stderr, "%s: --perf-hold: perf script gave no samples to read: %s\n", prog, msg);
	return 1;
}

/*
 * lrulab's hold per page at the lru_lock sites of the kernel function
 * @fn (all of them with NULL): a site's caller is where perf lock sees
 * the kernel take it, its fn where lrulab holds it, which is where the
 * kernel's unlock is too (__page_cache_release's lock, folios_put_refs's
 * unlock).
 */
static double lrulab_hold_per_page(const struct bench_result *r, const char *caller)
{
	double ns = 0;
	int i;

	for (i = 0; i < r->nr_sites; i++)
		if (!strcmp(r->sites[i].cls, "lru_lock") &&
		    (!caller || !strcmp(r->sites[i].caller, caller) || !strcmp(r->sites[i].fn, caller)))
			ns += r->sites[i].st.hold_total_ns;
	return r->pages ? ns / r->pages : NAN;
}

static double kernel_hold_per_page(const struct hold_side *hs, const char *caller)
{
	double ns = 0;
	int i;

	for (i = 0; i < hs->h.nr_sites; i++)
		if (!caller || !strcmp(hs->h.site[i].caller, caller))
			ns += hs->h.site[i].ns;
	return hs->pages > 0 ? ns / hs->pages : NAN;
}

/* the kernel's over lrulab's, all of lru_lock: NAN unless both held it */
static double hold_side_ratio(const struct hold_side *hs, const struct bench_result *r)
{
	double k = kernel_hold_per_page(hs, NULL), l = lrulab_hold_per_page(r, NULL);

	return k > 0 && l > 0 ? k / l : NAN;
}

static void hold_row(const char *name, unsigned long long samples, double k, double l)
{
	printf("%-24s %8llu %14.1f %14.1f %14.3g\n", name, samples, k, l, l > 0 ? k / l : NAN);
}

static void hold_print(const struct host_opts *o, const struct hold_side *hs,
		       const struct bench_result *r)
{
	unsigned long long all = 0;
	int i;

	printf("== host kernel (Linux %s): %s, 1 thread, %luK folios, %.0f pages/s under perf record -e cpu-clock -c %d -g\n",
	       json_string_value(json_object_get(hs->host, "kernel")),
	       o->shmem ? "shmem" : "anon", (PAGE_SIZE << o->folio_order) >> 10,
	       json_number(hs->host, "pages_per_sec"), HOLD_PERIOD_NS);
	printf("== lrulab: the same workload, --fault-work %lu, %.0f pages/s\n\n",
	       o->fault_work_ns, r->pages_per_sec);
	printf("lru_lock hold per page (ns) by caller: the kernel's from the timer samples its\n"
	       "interrupts-off hold defers to the unlock (%llu samples, %.0f pages), lrulab's timed\n\n",
	       hs->h.samples, hs->pages);
	printf("%-24s %8s %14s %14s %14s\n", "caller", "samples", "kernel", "lrulab", "kernel/lrulab");
	for (i = 0; i < hs->h.nr_sites; i++) {
		all += hs->h.site[i].samples;
		hold_row(hs->h.site[i].caller, hs->h.site[i].samples,
			 kernel_hold_per_page(hs, hs->h.site[i].caller),
			 lrulab_hold_per_page(r, hs->h.site[i].caller));
	}
	hold_row("all lru_lock", all, kernel_hold_per_page(hs, NULL), lrulab_hold_per_page(r, NULL));
	printf("\nlru_lock hold per page, kernel / lrulab: %.3g (lrulab predict --lru-hold-ratio takes it)\n",
	       hold_side_ratio(hs, r));
}

static json_t *hold_json(const struct bench_opts *bo, const struct hold_side *hs,
			 const struct bench_result *r)
{
	json_t *j = json_deep_copy(hs->host), *sites = json_array();
	json_t *model = bench_result_json(&fault_free_workload, bo, r);
	double ratio = hold_side_ratio(hs, r);
	int i;

	for (i = 0; i < hs->h.nr_sites; i++)
		json_array_append_new(sites, json_pack("{s:s, s:I, s:f, s:f}",
			"caller", hs->h.site[i].caller, "samples", (json_int_t)hs->h.site[i].samples,
			"kernel_ns_per_page", kernel_hold_per_page(hs, hs->h.site[i].caller),
			"lrulab_ns_per_page", lrulab_hold_per_page(r, hs->h.site[i].caller)));
	json_object_set_new(j, "perf_hold", json_pack("{s:I, s:I, s:f, s:o, s:f, s:f}",
		"period_ns", (json_int_t)HOLD_PERIOD_NS, "samples", (json_int_t)hs->h.samples,
		"pages_recorded", hs->pages, "lru_lock", sites,
		"kernel_ns_per_page", kernel_hold_per_page(hs, NULL),
		"lrulab_ns_per_page", lrulab_hold_per_page(r, NULL)));
	if (!isnan(ratio))
		json_object_set_new(j, "lru_lock_hold_ratio_kernel_lrulab", json_real(ratio));
	json_object_set_new(j, "lrulab", model);
	return j;
}

/* Both sides of one --perf-hold run; 0, or 1 after one error line. */
static int perf_hold_sides(const char *prog, const struct host_opts *o, struct hold_side *hs,
			   struct bench_opts *bo, struct bench_result *r)
{
	struct perf_files pf;
	int status;

	if (!in_path("perf")) {
		fprintf(stderr, "%s: --perf-hold: perf is not installed (no perf in PATH)\n", prog);
		return 1;
	}
	if (perf_files_make(prog, &pf))
		return 1;
	status = perf_hold_host(prog, o, &pf, hs);
	host_undo_all();
	if (!status && perf_model(o, 1, bo, r)) {
		fprintf(stderr, "%s: --perf-hold: cannot set up lrulab's model\n", prog);
		status = 1;
	}
	if (!status && (r->err || r->invariant_violations)) {
		fprintf(stderr, "%s: --perf-hold: lrulab's run failed\n", prog);
		bench_result_free(r);
		status = 1;
	}
	if (status) {
		json_decref(hs->host);
		hs->host = NULL;
	}
	return status;
}

int host_perf_hold(const char *prog, const struct host_opts *o)
{
	struct hold_side hs = { NULL };
	struct bench_result r;
	struct bench_opts bo;

	if (perf_hold_sides(prog, o, &hs, &bo, &r))
		return 1;
	if (o->json) {
		json_t *j = hold_json(&bo, &hs, &r);

		bench_json_line(j);
		json_decref(j);
	} else {
		hold_print(o, &hs, &r);
	}
	fflush(stdout);
	bench_result_free(&r);
	json_decref(hs.host);
	return 0;
}

int host_lru_hold_ratio(const char *prog, const struct host_opts *o, double *ratio)
{
	struct hold_side hs = { NULL };
	struct bench_result r;
	struct bench_opts bo;

	*ratio = NAN;
	if (perf_hold_sides(prog, o, &hs, &bo, &r))
		return -1;
	*ratio = hold_side_ratio(&hs, &r);
	bench_result_free(&r);
	json_decref(hs.host);
	return isnan(*ratio) ? -1 : 0;
}
