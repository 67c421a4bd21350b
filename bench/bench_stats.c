// SPDX-License-Identifier: MIT
/*
 * The A/B side of the harness: medians and bootstrap intervals of a
 * ratio, and runs in fresh processes (fork + exec of this binary, its
 * JSON read back) so that every run starts from a cold model, as the
 * mails' runs start from a fresh boot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "bench/bench.h"

/* ---- statistics ---- */

u64 bench_rng_next(struct bench_rng *r)
{
	u64 z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double median_sorted(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double resampled_median(const double *v, int n, double *scratch,
			       struct bench_rng *rng)
{
	int i;

	for (i = 0; i < n; i++)
		scratch[i] = v[bench_rng_next(rng) % n];
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return median_sorted(scratch, n);
}

int bench_ratio_ci(const double *a, int na, const double *b, int nb,
		   int iters, u64 seed, double *lo, double *hi)
{
	struct bench_rng rng = { seed };
	double *ratios, *scratch;
	int i, err = 0;

	if (na <= 0 || nb <= 0 || iters <= 0)
		return -EINVAL;
	ratios = malloc(iters * sizeof(*ratios));
	scratch = malloc((na > nb ? na : nb) * sizeof(*scratch));
	if (!ratios || !scratch) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < iters; i++) {
		double ma = resampled_median(a, na, scratch, &rng);
		double mb = resampled_median(b, nb, scratch, &rng);

		if (ma == 0) {
			err = -EINVAL;
			goto out;
		}
		ratios[i] = mb / ma;
	}
	qsort(ratios, iters, sizeof(*ratios), cmp_double);
	*lo = quantile_sorted(ratios, iters, 0.025);
	*hi = quantile_sorted(ratios, iters, 0.975);
out:
	free(ratios);
	free(scratch);
	return err;
}

/* ---- runs in fresh processes ---- */

const char *bench_self_exe(void)
{
	static char path[4096];
	ssize_t n;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		snprintf(path, sizeof(path), "lrulab");
	else
		path[n] = '\0';
	return path;
}

/*
 * fork + exec @argv with stdout into a pipe; the child's stderr stays
 * ours, so its own error lines reach the user.  Returns the wait status
 * or -1, and the whole stdout in *@out (to free).
 */
static int run_capture(char *const *argv, char **out)
{
	int pfd[2], status;
	char *buf;
	pid_t pid;

	*out = NULL;
	if (pipe(pfd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		sigset_t none;

		/*
		 * A group of its own, so that a terminal's ^C reaches only
		 * the parent, which passes it on once (bench_signal.c); and
		 * the signals the parent blocks for its sigwait() unblocked.
		 */
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	bench_signals_child(pid);
	close(pfd[1]);
	buf = read_fd_all(pfd[0], NULL);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			bench_signals_child(0);
			free(buf);
			return -1;
		}
	bench_signals_child(0);
	*out = buf;
	return buf ? status : -1;
}

/* The last line of @text that is a JSON object. */
static json_t *last_json_object(char *text)
{
	char *line, *save = NULL;
	json_t *last = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *j;

		if (line[0] != '{')
			continue;
		j = json_loads(line, 0, NULL);
		if (json_is_object(j)) {
			json_decref(last);
			last = j;
		} else {
			json_decref(j);
		}
	}
	return last;
}

static void config_text(const struct bench_config *c, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < c->nargs && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "", c->args[i]);
}

int bench_collect(const char *prog, const struct bench_config *cfg, int ncfg,
		  int argc, char *const *argv, int reps, json_t ***out,
		  FILE *progress)
{
	int c, r, i, n;
	char **cmd;

	for (c = 0; c < ncfg; c++) {
		if (access(cfg[c].bin, X_OK)) {
			fprintf(stderr, "%s: cannot run %s: %s\n", prog, cfg[c].bin,
				strerror(errno));
			return -1;
		}
		out[c] = calloc(reps, sizeof(json_t *));
		if (!out[c]) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return -1;
		}
	}
	cmd = calloc(argc + BENCH_MAX_CONFIG_ARGS + 4, sizeof(char *));
	if (!cmd) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	for (r = 0; r < reps; r++) {
		for (c = 0; c < ncfg; c++) {
			char *text, args[256];
			int status;

			n = 0;
			cmd[n++] = (char *)cfg[c].bin;
			cmd[n++] = "bench";
			for (i = 0; i < argc; i++)
				cmd[n++] = argv[i];
			for (i = 0; i < cfg[c].nargs; i++)
				cmd[n++] = (char *)cfg[c].args[i];
			cmd[n++] = "--json";
			cmd[n] = NULL;
			status = run_capture(cmd, &text);
			if (bench_interrupted) {
				/* the child has ended: one line for the user's signal */
				fprintf(stderr, "%s: interrupted by %s during run %d of %s\n",
					prog, bench_signal_name(bench_interrupted), r + 1,
					cfg[c].label);
				free(text);
				free(cmd);
				return -1;
			}
			if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
				config_text(&cfg[c], args, sizeof(args));
				fprintf(stderr, "%s: run %d of %s (%s %s) failed: %s %d\n", prog,
					r + 1, cfg[c].label, cfg[c].bin, args,
					status >= 0 && WIFSIGNALED(status) ? "signal" : "exit",
					status < 0 ? -1 : WIFSIGNALED(status) ? WTERMSIG(status) :
					WEXITSTATUS(status));
				free(text);
				free(cmd);
				return -1;
			}
			out[c][r] = last_json_object(text);
			free(text);
			if (!out[c][r]) {
				fprintf(stderr, "%s: run %d of %s printed no JSON object\n", prog,
					r + 1, cfg[c].label);
				free(cmd);
				return -1;
			}
			if (progress) {
				fputc('.', progress);
				fflush(progress);
			}
		}
	}
	if (progress)
		fprintf(progress, "\n");
	free(cmd);
	return 0;
}

void bench_machine_describe(char *buf, size_t len)
{
	char model[128] = "unknown processor", line[256];
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');

			if (strncmp(line, "model name", 10) || !colon)
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(model, sizeof(model), "%s", colon);
			break;
		}
		fclose(f);
	}
	lrulab_clock_init();
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	snprintf(buf, len, "%s, %d processor%s, Linux %s, clock %s", model,
		 lrulab_nr_processors(), lrulab_nr_processors() == 1 ? "" : "s", u.release,
		 lrulab_clock_source());
}
