// SPDX-License-Identifier: MIT
/*
 * What a bench run prints: the text report (lock table of every site,
 * vmstat / memory.stat / mTHP deltas, the machine-independent figures,
 * the hold-time profile) and its JSON object, and `lrulab bench` itself,
 * which parses, runs and reports each thread count in turn.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "tools/commands.h"
#include "bench/host.h"

/* ---- output ---- */

static void fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns < 60e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else
		snprintf(buf, len, "%.1f min", ns / 60e9);
}

static void switches_text(const struct bench_result *r, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < NR_LRULAB_SWITCHES && off < len; i++)
		if (r->switches[i])
			off += snprintf(buf + off, len - off, "%s%s", off ? "," : "",
					lrulab_switch_name(i));
	if (!off)
		snprintf(buf, len, "none");
}

json_t *bench_switches_json(const struct bench_result *r)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < NR_LRULAB_SWITCHES; i++)
		if (r->switches[i])
			json_array_append_new(a, json_string(lrulab_switch_name(i)));
	return a;
}

/* A hold time, or "-" for a site none of whose holds was timed. */
static void fmt_hold(char *buf, size_t len, const struct lock_stat *st, double ns)
{
	if (st->hold_timed)
		fmt_ns(buf, len, ns);
	else
		snprintf(buf, len, "-");
}

/* The `perf lock contention` table, with acquisitions and hold times. */
void bench_print_contention(FILE *f, const struct bench_result *r)
{
	struct lockstat_row *rows = calloc((size_t)r->nr_sites + 1, sizeof(*rows));
	int i;

	if (!rows)
		return;
	for (i = 0; i < r->nr_sites; i++)
		rows[i] = (struct lockstat_row){ r->sites[i].cls, r->sites[i].name, r->sites[i].st };
	lockstat_print_rows(f, rows, r->nr_sites, NULL);
	free(rows);
	fprintf(f, "\n");
	lockstat_print_notes(f, "", r->lru.hold_sampled, r->spin_yield);
}

static int site_acquired_cmp(const void *a, const void *b)
{
	const struct bench_site_result *sa = a, *sb = b;

	if (sa->st.acquired != sb->st.acquired)
		return sa->st.acquired > sb->st.acquired ? -1 : 1;
	return bench_site_cmp(a, b);
}

/* `perf lock report`, the table the s4 mail quotes, busiest first. */
static void print_report(FILE *f, const struct bench_result *r)
{
	struct bench_site_result *s = malloc(r->nr_sites * sizeof(*s) + 1);
	struct lockstat_unit u[4];
	double most[4] = { 0 };
	char v[4][32], name[136];
	int i, c;

	if (!s)
		return;
	memcpy(s, r->sites, r->nr_sites * sizeof(*s));
	qsort(s, r->nr_sites, sizeof(*s), site_acquired_cmp);
	for (i = 0; i < r->nr_sites; i++) {
		const struct lock_stat *st = &s[i].st;
		double t[4] = { st->contended ? (double)st->wait_total_ns / st->contended : 0,
				st->wait_total_ns, st->wait_max_ns, st->wait_min_ns };

		for (c = 0; c < 4; c++)
			most[c] = t[c] > most[c] ? t[c] : most[c];
	}
	/* one unit per column, on the line under the names */
	for (c = 0; c < 4; c++)
		u[c] = lockstat_unit_for(most[c]);
	fprintf(f, "%56s %10s %10s %12s %12s %12s %12s\n", "Name", "acquired",
		"contended", "avg wait", "total wait", "max wait", "min wait");
	fprintf(f, "%56s %10s %10s %12s %12s %12s %12s\n\n", "", "", "", u[0].name,
		u[1].name, u[2].name, u[3].name);
	for (i = 0; i < r->nr_sites; i++) {
		const struct lock_stat *st = &s[i].st;
		double t[4] = { st->contended ? (double)st->wait_total_ns / st->contended : 0,
				st->wait_total_ns, st->wait_max_ns, st->wait_min_ns };

		snprintf(name, sizeof(name), "%s:%s", s[i].cls, s[i].name);
		for (c = 0; c < 4; c++)
			lockstat_fmt_in(v[c], sizeof(v[c]), t[c], u[c]);
		fprintf(f, "%56s %10llu %10llu %12s %12s %12s %12s\n", name,
			(unsigned long long)st->acquired, (unsigned long long)st->contended,
			v[0], v[1], v[2], v[3]);
	}
	free(s);
}

static double per_1k(u64 n, unsigned long pages)
{
	return pages ? 1000.0 * n / pages : 0;
}

static u64 profile_stat_ns(const struct lru_hold_profile *p)
{
	return p->ns[LRU_HOLD_STAT] + p->ns[LRU_HOLD_ZONE_STAT];
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/*
 * The drains of every CPU's batches (s4's cost): how often, how many CPUs
 * had to run a drain, and how long the callers waited for them.
 */
static void print_drains(FILE *f, const struct bench_result *r)
{
	const struct lru_drain_stats *d = &r->drains;
	char total[32], avg[32];

	fmt_ns(total, sizeof(total), (double)d->all_ns);
	fmt_ns(avg, sizeof(avg), d->all ? (double)d->all_ns / d->all : 0);
	fprintf(f, "\nlru_add_drain: %lu   lru_add_drain_all: %lu (%lu CPUs drained by work, "
		"%s waited in all, %s each)\n", d->local, d->all, d->all_works, total, avg);
}

void bench_print_deltas(FILE *f, const char *title, const struct bench_deltas *d)
{
	int i, shown = 0;

	for (i = 0; i < d->nr; i++) {
		if (!d->d[i].delta)
			continue;
		if (!shown++)
			fprintf(f, "\n%s:\n", title);
		fprintf(f, "  %s %lld\n", d->d[i].name, d->d[i].delta);
	}
}

void bench_print_text(FILE *f, const struct bench_workload *w,
		      const struct bench_opts *o, const struct bench_result *r)
{
	char sw[128], buf[32];
	int i;

	switches_text(r, sw, sizeof(sw));
	fprintf(f, "lrulab bench %s: %s, %ld thread%s on %d processor%s, %lu%s each, %luK folios, ",
		w->name, o->shmem ? "shmem" : "anon", r->threads, r->threads == 1 ? "" : "s", r->cpus,
		r->cpus == 1 ? "" : "s",
		o->mem % (1UL << 20) ? o->mem >> 10 : o->mem >> 20,
		o->mem % (1UL << 20) ? "K" : "M", (PAGE_SIZE << o->folio_order) >> 10);
	if (o->loops)
		fprintf(f, "%ld loop%s", o->loops, o->loops == 1 ? "" : "s");
	else
		fprintf(f, "%.2f s", o->seconds);
	fprintf(f, ", %d memcg%s, lock %s, layout %s, switches: %s", r->nr_memcgs,
		r->nr_memcgs == 1 ? "" : "s", lock_impl_name(o->lock),
		lrulab_pn_layout_name(), sw);
	if (o->node_mem)
		fprintf(f, ", node %lu MiB", (r->node_pages * PAGE_SIZE) >> 20);
	fprintf(f, "\n");
	if (r->oversubscribed)
		fprintf(f, "OVERSUBSCRIBED: %ld threads on %d processor%s: lock holders can be preempted, so wait times mean little\n",
			r->threads, r->cpus, r->cpus == 1 ? "" : "s");
	if (r->err)
		fprintf(f, "a worker failed: %s\n", strerror(-r->err));
	if (r->interrupted)
		fprintf(f, "INTERRUPTED by %s: the figures are those of the passes before it\n",
			bench_signal_name(r->interrupted));

	fprintf(f, "\n  memcg          pn offset %% 128        pages/s\n");
	for (i = 0; i < r->nr_memcgs; i++)
		fprintf(f, "  %-14s %15lu %14.0f\n", r->memcg[i].name,
			r->memcg[i].pn_offset128, r->memcg[i].pages_per_sec);
	fprintf(f, "\npages faulted and freed: %lu in %.3f s: %.0f pages/s, %.0f per thread\n",
		r->pages, r->seconds, r->pages_per_sec, r->pages_per_sec / r->threads);
	if (w->report_time)
		fprintf(f, "real %.3fs  user %.3fs  sys %.3fs\n", r->seconds, r->user_s,
			r->sys_s);

	fprintf(f, "\n");
	if (w->report_time) {
		print_report(f, r);
		fprintf(f, "\n");
		lockstat_print_notes(f, "", r->lru.hold_sampled, r->spin_yield);
	} else {
		bench_print_contention(f, r);
	}

	fprintf(f, "\nfigures that hold on any machine:\n");
	fprintf(f, "  lru_lock acquisitions per 1000 pages: %.1f\n", per_1k(r->lru.acquired, r->pages));
	fmt_hold(buf, sizeof(buf), &r->lru,
		 r->lru.acquired ? (double)r->lru.hold_total_ns / r->lru.acquired : 0);
	fprintf(f, "  lru_lock hold* per acquisition: %s, per page: %.1f ns\n", buf,
		r->pages ? (double)r->lru.hold_total_ns / r->pages : 0);
	for (i = 0; i < r->nr_sites; i++) {
		const struct bench_site_result *s = &r->sites[i];

		if (strcmp(s->cls, "lru_lock"))
			continue;
		fmt_hold(buf, sizeof(buf), &s->st, (double)s->st.hold_total_ns / s->st.acquired);
		fprintf(f, "    %-46s %8.1f per 1000 pages, %10s hold* each\n", s->name,
			per_1k(s->st.acquired, r->pages), buf);
	}
	if (r->have_profile) {
		const struct lru_hold_profile *p = &r->profile;
		double hold = (double)r->lru.hold_total_ns;

		fprintf(f, "  lru_lock hold time by section (--profile-hold: every hold and section timed, expensive):\n");
		for (i = 0; i < NR_LRU_HOLD_SECTIONS; i++)
			fprintf(f, "    %-26s %5.1f%%  (%llu updates)\n", lru_hold_section_name(i),
				pct(p->ns[i], hold), (unsigned long long)p->count[i]);
		fprintf(f, "    %-26s %5.1f%%\n", "all stat updates", pct(profile_stat_ns(p), hold));
		fprintf(f, "    stat updates deferred past the unlock: %llu\n",
			(unsigned long long)p->deferred_stat_updates);
	}

	print_drains(f, r);
	bench_print_deltas(f, "vmstat deltas", &r->vmstat);
	bench_print_deltas(f, "mTHP counter deltas", &r->mthp);
	bench_print_deltas(f, "memory.stat deltas (all memcgs of the run)", &r->memory_stat);
	fprintf(f, "\ninvariants: %s\n", r->invariant_violations ? "VIOLATED" : "ok");
}

json_t *bench_deltas_json(const struct bench_deltas *d)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < d->nr; i++)
		if (d->d[i].delta)
			json_object_set_new(o, d->d[i].name, json_integer(d->d[i].delta));
	return o;
}

json_t *bench_sites_json(const struct bench_result *r)
{
	json_t *a = json_array();
	char site[96];	/* class and fn: unique per site */
	int i;

	for (i = 0; i < r->nr_sites; i++) {
		const struct bench_site_result *s = &r->sites[i];

		snprintf(site, sizeof(site), "%s:%s", s->cls, s->fn);
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			"site", site, "class", s->cls, "caller", s->caller, "fn", s->fn,
			"acquired", (json_int_t)s->st.acquired,
			"contended", (json_int_t)s->st.contended,
			"wait_total_ns", (json_int_t)s->st.wait_total_ns,
			"wait_max_ns", (json_int_t)s->st.wait_max_ns,
			"wait_min_ns", (json_int_t)s->st.wait_min_ns,
			"hold_total_ns", (json_int_t)s->st.hold_total_ns,
			"hold_timed", (json_int_t)s->st.hold_timed,
			"hold_sampled", (json_int_t)s->st.hold_sampled));
	}
	return a;
}

/*
 * How the lock figures were taken: the statistics' mode, one hold in
 * "hold_sampled" timed (1: every one, the expensive full mode), and
 * whether waiters yielded the processor.
 */
void bench_lockstat_json(json_t *j, unsigned int hold_sampled, bool spin_yield)
{
	json_object_set_new(j, "lockstat", json_string(hold_sampled == 1 ? "full" :
							 hold_sampled ? "sampled" : "off"));
	json_object_set_new(j, "hold_sampled", json_integer(hold_sampled));
	json_object_set_new(j, "clock_cost_ns", json_integer((json_int_t)lrulab_clock_cost_ns()));
	json_object_set_new(j, "spin_yield", json_boolean(spin_yield));
}

json_t *bench_locks_json(void)
{
	struct bench_result r;
	json_t *a;

	memset(&r, 0, sizeof(r));
	bench_collect_sites(&r);
	a = bench_sites_json(&r);
	free(r.sites);
	return a;
}

json_t *bench_result_json(const struct bench_workload *w,
			  const struct bench_opts *o, const struct bench_result *r)
{
	json_t *j = json_object(), *a;
	int i;

	json_object_set_new(j, "engine", json_string("lrulab"));
	json_object_set_new(j, "workload", json_string(w->name));
	json_object_set_new(j, "type", json_string(o->shmem ? "shmem" : "anon"));
	json_object_set_new(j, "threads", json_integer(r->threads));
	json_object_set_new(j, "cpus", json_integer(r->cpus));
	json_object_set_new(j, "oversubscribed", json_boolean(r->oversubscribed));
	json_object_set_new(j, "folio_size", json_integer(PAGE_SIZE << o->folio_order));
	json_object_set_new(j, "mem_per_thread", json_integer(o->mem));
	json_object_set_new(j, "node_mem", json_integer((json_int_t)(r->node_pages * PAGE_SIZE)));
	json_object_set_new(j, "switches", bench_switches_json(r));
	json_object_set_new(j, "pn_layout", json_string(lrulab_pn_layout_name()));
	json_object_set_new(j, "lock", json_string(lock_impl_name(o->lock)));
	bench_lockstat_json(j, r->lru.hold_sampled, r->spin_yield);
	json_object_set_new(j, "fault_work_ns", json_integer(o->fault_work_ns));
	json_object_set_new(j, "loops", json_integer(o->loops));
	json_object_set_new(j, "seconds", json_real(r->seconds));
	json_object_set_new(j, "user_s", json_real(r->user_s));
	json_object_set_new(j, "sys_s", json_real(r->sys_s));
	json_object_set_new(j, "pages", json_integer(r->pages));
	json_object_set_new(j, "pages_per_sec", json_real(r->pages_per_sec));
	json_object_set_new(j, "pages_per_sec_per_thread",
			    json_real(r->pages_per_sec / r->threads));

	a = json_array();
	for (i = 0; i < r->nr_memcgs; i++)
		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:f, s:f}",
			"name", r->memcg[i].name,
			"pn_offset128", (json_int_t)r->memcg[i].pn_offset128,
			"pages", (json_int_t)r->memcg[i].pages,
			"seconds", r->memcg[i].seconds,
			"pages_per_sec", r->memcg[i].pages_per_sec));
	json_object_set_new(j, "memcgs", a);

	json_object_set_new(j, "lru_lock_acquisitions_per_1k_pages",
			    json_real(per_1k(r->lru.acquired, r->pages)));
	json_object_set_new(j, "lru_lock_hold_ns_per_page",
			    json_real(r->pages ? (double)r->lru.hold_total_ns / r->pages : 0));
	json_object_set_new(j, "lru_lock_hold_ns_per_acquisition",
			    json_real(r->lru.acquired ?
				      (double)r->lru.hold_total_ns / r->lru.acquired : 0));
	json_object_set_new(j, "lru_lock_acquired", json_integer(r->lru.acquired));
	json_object_set_new(j, "lru_lock_contended", json_integer(r->lru.contended));
	json_object_set_new(j, "lru_lock_wait_total_ns", json_integer(r->lru.wait_total_ns));

	json_object_set_new(j, "locks", bench_sites_json(r));

	if (r->have_profile) {
		const struct lru_hold_profile *p = &r->profile;
		double hold = (double)r->lru.hold_total_ns;

		json_object_set_new(j, "hold_profile", json_pack("{s:f, s:f, s:f, s:f, s:f, s:I}",
			"list_pct", pct(p->ns[LRU_HOLD_LIST], hold),
			"lru_zone_size_pct", pct(p->ns[LRU_HOLD_LRU_SIZE], hold),
			"node_memcg_stat_pct", pct(p->ns[LRU_HOLD_STAT], hold),
			"zone_stat_pct", pct(p->ns[LRU_HOLD_ZONE_STAT], hold),
			"stat_pct", pct(profile_stat_ns(p), hold),
			"deferred_stat_updates", (json_int_t)p->deferred_stat_updates));
		json_object_set_new(j, "lru_lock_stat_hold_pct",
				    json_real(pct(profile_stat_ns(p), hold)));
	}
	json_object_set_new(j, "lru_drains", json_pack("{s:I, s:I, s:I, s:I}",
		"lru_add_drain", (json_int_t)r->drains.local,
		"lru_add_drain_all", (json_int_t)r->drains.all,
		"lru_add_drain_all_works", (json_int_t)r->drains.all_works,
		"lru_add_drain_all_ns", (json_int_t)r->drains.all_ns));
	/* top level, for `lrulab ab --metric` */
	json_object_set_new(j, "lru_add_drain_all_calls", json_integer(r->drains.all));
	json_object_set_new(j, "lru_add_drain_all_works", json_integer(r->drains.all_works));
	json_object_set_new(j, "lru_add_drain_all_ns_per_call",
			    json_real(r->drains.all ? (double)r->drains.all_ns / r->drains.all : 0));
	json_object_set_new(j, "vmstat", bench_deltas_json(&r->vmstat));
	json_object_set_new(j, "mthp", bench_deltas_json(&r->mthp));
	json_object_set_new(j, "memory_stat", bench_deltas_json(&r->memory_stat));
	json_object_set_new(j, "invariant_violations", json_integer(r->invariant_violations));
	json_object_set_new(j, "invariants_ok", json_boolean(!r->invariant_violations));
	if (r->err)
		json_object_set_new(j, "error", json_string(strerror(-r->err)));
	json_object_set_new(j, "interrupted", json_boolean(r->interrupted));
	if (r->interrupted)
		json_object_set_new(j, "signal", json_string(bench_signal_name(r->interrupted)));
	return j;
}

bool bench_has_metric(const struct bench_workload *w, const struct bench_opts *o,
		      const char *key)
{
	/* one thread, so that the per-thread rate is a number (0), not NaN */
	struct bench_result r = { .threads = 1, .have_profile = o->profile_hold };
	json_t *j = w == &usemem_workload ? bench_usemem_json_shape(o) :
		    bench_result_json(w, o, &r);
	bool ok = json_is_number(json_object_get(j, key));

	json_decref(j);
	return ok;
}

/* `lrulab bench WORKLOAD [options]` */
int cmd_bench(int argc, char **argv)
{
	const struct bench_recorder *rc = NULL;
	const struct bench_workload *w;
	json_t *calib = NULL;
	struct bench_opts o;
	int i, ret, status = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc < 2) {
			fprintf(stderr, "lrulab bench: no workload given (" BENCH_WORKLOAD_NAMES ")\n");
			return 2;
		}
		bench_usage(stdout, NULL);
		return 0;
	}
	w = bench_find_workload(argv[1]);
	if (!w) {
		fprintf(stderr, "lrulab bench: unknown workload '%s' (" BENCH_WORKLOAD_NAMES ")\n",
			argv[1]);
		return 2;
	}
	bench_defaults(w, &o);
	ret = bench_parse(w, "lrulab bench", argc - 1, argv + 1, &o);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (bench_signals_catch()) {
		fprintf(stderr, "lrulab bench: cannot catch SIGINT and SIGTERM\n");
		return 1;
	}
	if (w->main)
		return w->main(w, "lrulab bench", &o);
	if (o.calibrate &&
	    bench_calibrate(w, "lrulab bench", &o, o.json ? NULL : stdout, &calib))
		return bench_exit_status(1);

	if (o.record && !(rc = bench_recorder_get("lrulab bench")))
		return bench_exit_status(1);
	for (i = 0; i < o.nr_threads; i++) {
		struct bench_result r;
		int err = o.record ? rc->start("lrulab bench") : 0;

		if (err) {
			json_decref(calib);
			return bench_exit_status(1);
		}
		err = bench_run(w, &o, o.threads[i], &r);
		if (o.record && !err &&
		    rc->write_run("lrulab bench", o.record, w, &o, &r))
			status = 1;
		if (err) {
			fprintf(stderr, "lrulab bench: cannot set up the model for %ld threads: %s\n",
				o.threads[i], strerror(-err));
			json_decref(calib);
			return bench_exit_status(1);
		}
		if (o.json) {
			json_t *j = bench_result_json(w, &o, &r);

			if (calib)
				json_object_set(j, "calibration", calib);
			bench_json_line(j);
			json_decref(j);
		} else {
			if (i)
				printf("\n");
			bench_print_text(stdout, w, &o, &r);
		}
		fflush(stdout);
		bench_show_print(&o, r.lru_gen_show);
		r.lru_gen_show = NULL;
		if (r.err) {
			fprintf(stderr, "lrulab bench: a worker failed: %s\n", strerror(-r.err));
			status = 1;
		}
		if (r.invariant_violations)
			status = 1;
		bench_result_free(&r);
		/* the thread counts after an interrupted one do not run */
		if (bench_interrupted)
			break;
	}
	json_decref(calib);
	return bench_exit_status(status);
}
