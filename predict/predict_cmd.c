// SPDX-License-Identifier: MIT
/*
 * `lrulab predict`: record a workload here (or read a recording), then
 * predict its pages/s and lock table at each CPU count of --cpus on the
 * machine a profile describes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/commands.h"
#include "bench/host.h"
#include "tools/outfile.h"
#include "tools/parse.h"

#include "predict-internal.h"

#define PROG "lrulab predict"
#define MAX_CPU_COUNTS 16

struct predict_args {
	long cpus[MAX_CPU_COUNTS];
	int nr_cpus;
	const char *machine, *save;
	const char *files[PRED_MAX_RECORDINGS];	/* --recording, in order */
	int nr_files;
	long recordings;			/* --recordings: made here */
	bool recordings_given;
	double single_thread_rate, lru_hold_ratio, core_speed;
	long draws, seed, acquisitions;
	bool json, threads_given, seconds_given, memcgs_given, other_placement;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: lrulab predict WORKLOAD [bench options] --cpus N[,N...] --machine PROFILE\n"
"                      [--single-thread-rate PAGES_PER_SEC] [--lru-hold-ratio R]\n"
"                      [--core-speed S] [--draws N] [--seed N]\n"
"                      [--acquisitions N] [--recordings K] [--placement recorded|other]\n"
"                      [--save FILE] [--json]\n"
"       lrulab predict --recording FILE [--recording FILE...] --cpus N[,N...]\n"
"                      --machine PROFILE [...]\n"
"\n"
"Records WORKLOAD here K times (--recordings, default 3; fault-free, mmap-madvise or\n"
"usemem, with `lrulab bench`'s options: --type, --folio-size, --with/--without\n"
"SWITCH, --lock ...; by default one thread, one memcg, 0.5 s), or reads recordings\n"
"made by `lrulab bench ... --record FILE` (up to 8), and simulates each CPU count\n"
"on the machine of PROFILE (a file, or a name under profiles/): predicted pages/s\n"
"(the median recording's) with the P10-P90 band of --draws draws of the profile's\n"
"ranges and replay phases (default 8) for every recording together, the analytic\n"
"twin's estimate, the busiest shared lock and its load, and the lock table at each\n"
"count, per simulated second.  --single-thread-rate sets the work outside the\n"
"locks so that one CPU makes that many pages/s (e.g. the target kernel's own).\n"
"--lru-hold-ratio R multiplies lru_lock's recorded holds by R, the kernel's hold\n"
"per page over lrulab's that `lrulab host fault-free --perf-hold` measures on this\n"
"machine (default: lrulab's own holds).  --core-speed S: the target's core S times\n"
"this machine's, holds and work alike, in place of the profile's core_speed (what\n"
"repro --fit --calibrate fits).\n"
"--save FILE keeps the recordings (FILE, FILE.2, FILE.3, ...).  --placement other:\n"
"the memcg stat reads of mem_cgroup_per_node lines take the 128-byte pair partners\n"
"the object would have had 64 bytes the other way (on a profile with\n"
"adjacent_line_prefetch 1).  --json prints one object per CPU count.\n");
}

static bool takes_value(const char *opt)
{
	static const char *const v[] = { "--cpus", "--machine", "--single-thread-rate",
		"--lru-hold-ratio", "--core-speed",
		"--draws", "--seed", "--acquisitions", "--recording", "--recordings", "--save",
		"--placement" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (!strcmp(opt, v[i]))
			return true;
	return false;
}

static int own_option(struct predict_args *a, const char *opt, const char *val)
{
	if (!strcmp(opt, "--cpus")) {
		int i, j, n = parse_long_list(PROG, "--cpus", val, 1, LRULAB_MAX_CPUS * 4, a->cpus,
					MAX_CPU_COUNTS);

		if (n < 0)
			return -1;
		for (i = 0; i < n; i++)
			for (j = 0; j < i; j++)
				if (a->cpus[i] == a->cpus[j]) {
					fprintf(stderr, "%s: --cpus: %ld given twice\n", PROG,
						a->cpus[i]);
					return -1;
				}
		a->nr_cpus = n;
	} else if (!strcmp(opt, "--machine")) {
		a->machine = val;
	} else if (!strcmp(opt, "--recording")) {
		if (a->nr_files == PRED_MAX_RECORDINGS) {
			fprintf(stderr, "%s: --recording: at most %d\n", PROG, PRED_MAX_RECORDINGS);
			return -1;
		}
		a->files[a->nr_files++] = val;
	} else if (!strcmp(opt, "--recordings")) {
		a->recordings_given = true;
		return parse_long(PROG, opt, val, 1, PRED_MAX_RECORDINGS, &a->recordings);
	} else if (!strcmp(opt, "--save")) {
		/* checked now, not after the recording runs */
		if (out_path_check(PROG, "--save", val))
			return -1;
		a->save = val;
	} else if (!strcmp(opt, "--placement")) {
		if (strcmp(val, "recorded") && strcmp(val, "other")) {
			fprintf(stderr, "%s: --placement: 'recorded' or 'other', not '%s'\n", PROG, val);
			return -1;
		}
		a->other_placement = !strcmp(val, "other");
	} else if (!strcmp(opt, "--single-thread-rate")) {
		return parse_double(PROG, opt, val, 1, 1e12, &a->single_thread_rate);
	} else if (!strcmp(opt, "--lru-hold-ratio")) {
		return parse_double(PROG, opt, val, 0.01, 100, &a->lru_hold_ratio);
	} else if (!strcmp(opt, "--core-speed")) {
		return parse_double(PROG, opt, val, 0.01, 100, &a->core_speed);
	} else if (!strcmp(opt, "--draws")) {
		return parse_long(PROG, opt, val, 0, PRED_MAX_DRAWS, &a->draws);
	} else if (!strcmp(opt, "--seed")) {
		return parse_long(PROG, opt, val, 0, 1L << 40, &a->seed);
	} else if (!strcmp(opt, "--acquisitions")) {
		return parse_long(PROG, opt, val, 1000, 1L << 32, &a->acquisitions);
	}
	return 0;
}

/*
 * Take predict's own options out of @argv, leaving the workload's (for
 * bench_parse) in @rest; 0, or -1 after one error line.
 */
static int split_args(int argc, char **argv, struct predict_args *a, char **rest, int *nrest)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *arg = argv[i], *eq = strchr(arg, '='), opt[64];
		const char *val = NULL;

		snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
		if (!strcmp(opt, "--json")) {
			a->json = true;
			continue;
		}
		if (!takes_value(opt)) {
			a->threads_given |= !strcmp(opt, "--threads");
			a->seconds_given |= !strcmp(opt, "--seconds") || !strcmp(opt, "--loops");
			a->memcgs_given |= !strcmp(opt, "--memcgs");
			rest[(*nrest)++] = arg;
			continue;
		}
		if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			fprintf(stderr, "%s: %s needs a value\n", PROG, opt);
			return -1;
		}
		if (own_option(a, opt, val))
			return -1;
	}
	return 0;
}

static void print_header(const struct pred_recording *rec, int nr_recs,
			 const struct pred_profile *pf, const char *profile_path,
			 const struct predict_args *a)
{
	char line[1024];

	printf("lrulab predict %s: %s, %uK folios, switches: %s\n", rec->workload, rec->type,
	       rec->folio_size >> 10, rec->switches[0] ? rec->switches : "none");
	printf("machine: %s (%s): %d socket%s x %d cores x %d thread%s\n", pf->name, profile_path,
	       pf->sockets, pf->sockets == 1 ? "" : "s", pf->cores_per_socket, pf->threads_per_core,
	       pf->threads_per_core == 1 ? "" : "s");
	if (pf->sockets > 1)
		printf("one NUMA node a socket: lru_lock, cost_lock, zone->lock and the lines of "
		       "their objects (lruvec, mem_cgroup_per_node, zone, pgdat) one per node, each "
		       "CPU its own node's; the memcg's counters and the mm's lines one for all\n");
	printf("recorded on %s: %u thread%s, %llu pages in %.3f s (%.0f pages/s); clock cost %u ns "
	       "off each hold, recording's own %u ns off each work\n", rec->machine, rec->threads,
	       rec->threads == 1 ? "" : "s", (unsigned long long)rec->pages, rec->seconds,
	       rec->pages_per_sec, rec->clock_cost_ns, rec->overhead_ns);
	if (rec->plain_cpu_ns_per_page > 0)
		printf("work outside the locks scaled to the same run without recording: %.0f ns of "
		       "CPU per page (%.0f pages/s per CPU)\n", rec->plain_cpu_ns_per_page,
		       1e9 / rec->plain_cpu_ns_per_page);
	if (rec->preemptions)
		printf("%llu works over 0.5 ms or holds over 20 times their site's mean (the thread "
		       "lost its processor) replaced by their site's mean\n",
		       (unsigned long long)rec->preemptions);
	if (a->single_thread_rate > 0)
		printf("work outside the locks set for %.0f pages/s at one CPU (--single-thread-rate)\n",
		       a->single_thread_rate);
	if (a->lru_hold_ratio > 0)
		printf("lru_lock's holds x %.3g: the kernel's hold per page over lrulab's (--lru-hold-ratio)\n",
		       a->lru_hold_ratio);
	if (a->core_speed > 0)
		printf("the core %.3g x this machine's, holds and work alike, in place of the profile's core_speed (--core-speed)\n",
		       a->core_speed);
	if (nr_recs > 1)
		printf("%d recordings (the first described above): figures of the median one, the "
		       "band over every recording's draws\n", nr_recs);
	pred_events_describe(rec, line, sizeof(line));
	printf("%s\n", line);
	printf("\n %6s %12s %27s %12s %12s %14s   %s\n", "cpus", "pages/s", "band (P10-P90)",
	       "per cpu", "twin (MVA)", "lru wait/page", "busiest shared lock (load)");
}

static void print_point(const struct pred_point *pt, int machine_cpus)
{
	char band[64];

	snprintf(band, sizeof(band), "%.0f - %.0f", pt->band_low, pt->band_high);
	printf(" %6d %12.0f %27s %12.0f %12.0f %11.1f ns   %s (%.2f)%s\n", pt->cpus,
	       pt->pages_per_sec, band, pt->pages_per_sec / pt->cpus, pt->twin_pages_per_sec,
	       pt->lru_wait_ns_per_page, pt->bottleneck, pt->load,
	       pt->cpus > machine_cpus ? "  MORE CPUS THAN THE MACHINE HAS" : "");
}

static void free_recordings(struct pred_recording *recs, int n)
{
	while (n--)
		pred_recording_free(&recs[n]);
}

static int read_recordings(const struct predict_args *a, int nrest, char **rest,
			   struct pred_recording *recs, int *nr)
{
	if (nrest) {
		fprintf(stderr, "%s: --recording takes no workload or bench options ('%s')\n",
			PROG, rest[0]);
		return 2;
	}
	if (a->recordings_given) {
		fprintf(stderr, "%s: --recordings: the recordings are the --recording files\n", PROG);
		return 2;
	}
	for (*nr = 0; *nr < a->nr_files; (*nr)++) {
		if (pred_recording_read(PROG, a->files[*nr], &recs[*nr])) {
			free_recordings(recs, *nr);
			return 2;
		}
		if (recs[*nr].lock_impl != recs[0].lock_impl) {
			fprintf(stderr, "%s: %s: recorded with %s spinlocks, %s with %s: one run's recordings, one lock\n",
				PROG, a->files[*nr], lock_impl_name(recs[*nr].lock_impl),
				a->files[0], lock_impl_name(recs[0].lock_impl));
			free_recordings(recs, *nr + 1);
			return 1;
		}
	}
	return 0;
}

/* The recordings to predict from, *@nr of them: read, or made here. */
static int get_recordings(const struct predict_args *a, int argc, char **rest, int nrest,
			  struct pred_recording *recs, int *nr, enum lock_impl *impl)
{
	const struct bench_workload *w;
	struct bench_opts o;
	json_t *calib = NULL;
	int ret;

	*impl = LOCK_QSPINLOCK;
	*nr = 0;
	if (a->nr_files) {
		/* simulated as the recorded run's locks were */
		ret = read_recordings(a, nrest, rest, recs, nr);
		if (!ret)
			*impl = recs[0].lock_impl;
		return ret;
	}
	if (!nrest || rest[0][0] == '-') {
		fprintf(stderr, "%s: no workload given (" BENCH_WORKLOAD_NAMES ", or --recording FILE)\n",
			PROG);
		return 2;
	}
	w = bench_find_workload(rest[0]);
	if (!w) {
		fprintf(stderr, "%s: unknown workload '%s' (" BENCH_WORKLOAD_NAMES ")\n", PROG, rest[0]);
		return 2;
	}
	if (w->main && w != &usemem_workload) {
		fprintf(stderr, "%s: %s runs its own model and cannot be recorded "
			"(fault-free, mmap-madvise or usemem)\n", PROG, w->name);
		return 2;
	}
	bench_defaults(w, &o);
	o.threads[0] = 1;
	o.seconds = 0.5;
	o.memcgs = 1;
	ret = bench_parse(w, PROG, nrest, rest, &o);
	if (ret)
		return 2;
	if (o.nr_threads > 1) {
		fprintf(stderr, "%s: --threads: one thread count to record at, not a list\n", PROG);
		return 2;
	}
	if (o.json) {
		fprintf(stderr, "%s: --json goes after the workload's options only once\n", PROG);
		return 2;
	}
	if (w == &usemem_workload && bench_usemem_check(PROG, &o))
		return 2;
	*impl = o.lock;
	if (o.calibrate && bench_calibrate(w, PROG, &o, a->json ? NULL : stdout, &calib))
		return 1;
	json_decref(calib);
	(void)argc;
	for (*nr = 0; *nr < a->recordings; (*nr)++)
		if (pred_record_workload(PROG, w, &o, o.threads[0], &recs[*nr])) {
			free_recordings(recs, *nr);
			return 1;
		}
	return 0;
}

/* --save FILE: FILE, FILE.2, FILE.3, ... */
static int save_recordings(const char *path, const struct pred_recording *recs, int nr)
{
	char name[4096];
	int i;

	for (i = 0; i < nr; i++) {
		if (i)
			snprintf(name, sizeof(name), "%s.%d", path, i + 1);
		else
			snprintf(name, sizeof(name), "%s", path);
		if (pred_recording_write(PROG, name, &recs[i]))
			return -1;
	}
	return 0;
}

int cmd_predict(int argc, char **argv)
{
	struct predict_args a = { .draws = 8, .seed = 1, .recordings = 3 };
	struct pred_model_opts mo;
	struct pred_recording recs[PRED_MAX_RECORDINGS];
	struct pred_profile pf;
	char path[4096], line[640], **rest;
	int nrest = 0, i, ret, status = 0, nr_pts = 0, nr_recs = 0;
	struct pred_point pts[MAX_CPU_COUNTS];
	enum lock_impl impl;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
	rest = calloc(argc + 1, sizeof(*rest));
	if (!rest)
		return 1;
	rest[nrest++] = argv[0];
	if (split_args(argc - 1, argv + 1, &a, rest, &nrest)) {
		free(rest);
		return 2;
	}
	if (!a.nr_cpus || !a.machine) {
		fprintf(stderr, "%s: %s is required\n", PROG, a.nr_cpus ? "--machine" : "--cpus");
		free(rest);
		return 2;
	}
	if (pred_profile_find(a.machine, path, sizeof(path)))
		snprintf(path, sizeof(path), "%s", a.machine);
	if (pred_profile_read(PROG, path, &pf)) {
		free(rest);
		return 2;
	}
	/* bench_parse wants the workload as argv[0] */
	ret = get_recordings(&a, argc, rest + 1, nrest - 1, recs, &nr_recs, &impl);
	free(rest);
	if (ret)
		return ret;
	if (a.save && save_recordings(a.save, recs, nr_recs)) {
		free_recordings(recs, nr_recs);
		return 1;
	}
	mo = (struct pred_model_opts){
		.impl = impl, .single_thread_rate = a.single_thread_rate,
		.lru_hold_ratio = a.lru_hold_ratio, .core_speed = a.core_speed,
		.draws = (int)a.draws, .seed = (u64)a.seed, .acquisitions = (u64)a.acquisitions,
		.other_placement = a.other_placement,
	};
	if (!a.json)
		print_header(&recs[0], nr_recs, &pf, path, &a);
	for (i = 0; i < a.nr_cpus; i++) {
		struct pred_point *pt = &pts[i];

		if (pred_model_pooled(recs, nr_recs, &pf, (int)a.cpus[i], &mo, pt)) {
			fprintf(stderr, "%s: simulation of %ld CPUs failed: out of memory\n", PROG,
				a.cpus[i]);
			status = 1;
			break;
		}
		nr_pts++;
		if (a.json) {
			json_t *j = pred_point_json(&recs[0], &pf, pt);

			bench_json_line(j);
			json_decref(j);
		} else {
			print_point(pt, pred_profile_cpus(&pf));
		}
		fflush(stdout);
	}
	for (i = 0; !a.json && i < nr_pts; i++) {
		pts[i].table.lru.hold_sampled = 0;
		printf("\n%d CPUs on %s, lock %s: per simulated second (%.3f s simulated)\n\n",
		       pts[i].cpus, pf.name, lock_impl_name(impl), pts[i].sim_seconds);
		bench_print_contention(stdout, &pts[i].table);
		pred_point_events_describe(&pts[i], line, sizeof(line));
		printf("%s\n", line);
		pred_point_mm_describe(&pts[i], line, sizeof(line));
		printf("%s\n", line);
	}
	for (i = 0; i < nr_pts; i++)
		pred_point_free(&pts[i]);
	free_recordings(recs, nr_recs);
	return status;
}
