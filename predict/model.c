// SPDX-License-Identifier: MIT
/*
 * From a recording and a machine profile to a predicted point: the
 * recorded threads replayed on N CPUs of the profile's machine (the
 * simulation), Monte-Carlo draws of the profile's ranges and of the
 * replay's phases for the band, and the analytic twin beside them.
 *
 * Work outside the locks and the recorded holds run at the target's
 * speed: its single-core speed over this machine's (core_speed, or what
 * --single-thread-rate implies), the frequency it keeps with the CPUs in
 * use busy, and SMT sharing while both siblings run code (in the
 * simulation a sibling spinning for a lock leaves the core to the other;
 * the twin, which has no such state, shares it whenever the CPUs are
 * more than the cores).  Uncontended lock
 * costs are in the recording already; what the simulation adds is the
 * waiting, the handoffs and the cache lines that move between CPUs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/vmstat.h>

#include "predict-internal.h"

/* ---- recording a run ---- */

int pred_record_describe(const char *prog, const struct pred_run_desc *d,
			 struct pred_recording *rec)
{
	size_t off = 0;
	int i;

	if (d->failed || !d->pages || !rec->nr_traces) {
		fprintf(stderr, "%s: the recorded run failed: %s\n", prog,
			d->failed ? d->failed : "no pages");
		pred_recording_free(rec);
		return -1;
	}
	snprintf(rec->workload, sizeof(rec->workload), "%s", d->workload);
	snprintf(rec->type, sizeof(rec->type), "%s", d->type);
	for (i = 0; i < NR_LRULAB_SWITCHES; i++)
		if (d->switches[i])
			off += snprintf(rec->switches + off, sizeof(rec->switches) - off,
					"%s%s", off ? "," : "", lrulab_switch_name(i));
	bench_machine_describe(rec->machine, sizeof(rec->machine));
	rec->folio_size = (u32)(PAGE_SIZE << d->folio_order);
	rec->threads = (u32)d->threads;
	rec->pages = d->pages;
	rec->seconds = d->seconds;
	rec->pages_per_sec = d->seconds > 0 ? d->pages / d->seconds : 0;
	rec->lock_impl = (u8)d->lock;
	/*
	 * The mails' fault/free benchmarks and lrulab host run their threads
	 * in one process; usemem forks a process per worker.
	 */
	rec->one_process = strcmp(d->workload, "usemem") != 0;
	return 0;
}

int pred_record_finish(const char *prog, const struct bench_workload *w,
		       const struct bench_opts *o, const struct bench_result *r,
		       struct pred_recording *rec)
{
	struct pred_run_desc d = {
		.workload = w->name, .type = o->shmem ? "shmem" : "anon",
		.folio_order = o->folio_order, .threads = r->threads,
		.pages = r->pages, .seconds = r->seconds, .switches = r->switches,
		.lock = o->lock,
		.failed = r->err ? strerror(-r->err) :
			  r->invariant_violations ? "invariants violated" : NULL,
	};

	if (pred_record_stop(rec)) {
		fprintf(stderr, "%s: recording: out of memory\n", prog);
		return -1;
	}
	if (pred_record_describe(prog, &d, rec))
		return -1;
	/* the bench's own figure: the harness's clock, not pages / seconds */
	rec->pages_per_sec = r->pages_per_sec;
	return 0;
}

/*
 * The same run without recording first: its CPU time per page is what
 * the recording's work is scaled to, so that what recording costs
 * beyond what pred_record_overhead_ns() measures on an empty section
 * (its buffers in the caches, the lock table) and the short stretches a
 * busy machine takes the processor away do not count as work.
 */
static int plain_run(const char *prog, const struct bench_workload *w,
		     const struct bench_opts *o, long threads, double *ns_per_page)
{
	struct bench_result r;
	int err = bench_run(w, o, threads, &r), i;
	double wait = 0, cpu;

	if (err) {
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, w->name, strerror(-err));
		return -1;
	}
	/* a waiter spins on its processor: with two threads or more, that is no work */
	for (i = 0; i < r.nr_sites; i++)
		wait += (double)r.sites[i].st.wait_total_ns;
	cpu = (r.user_s + r.sys_s) * 1e9 - wait;
	*ns_per_page = r.pages && cpu > 0 ? cpu / r.pages : 0;
	bench_result_free(&r);
	return 0;
}

int pred_record_workload(const char *prog, const struct bench_workload *w,
			 const struct bench_opts *o, long threads,
			 struct pred_recording *rec)
{
	struct bench_result r;
	double plain = 0;
	int err;

	if (w == &usemem_workload)
		return pred_record_usemem(prog, o, threads, rec, NULL);
	if (w->main) {
		fprintf(stderr, "%s: %s runs its own model and cannot be recorded "
			"(fault-free, mmap-madvise or usemem)\n", prog, w->name);
		return -1;
	}
	if (plain_run(prog, w, o, threads, &plain))
		return -1;
	if (pred_record_start()) {
		fprintf(stderr, "%s: cannot start recording: out of memory\n", prog);
		return -1;
	}
	err = bench_run(w, o, threads, &r);
	if (err) {
		pred_record_stop(rec);
		pred_recording_free(rec);
		fprintf(stderr, "%s: cannot record %s: %s\n", prog, w->name, strerror(-err));
		return -1;
	}
	err = pred_record_finish(prog, w, o, &r, rec);
	bench_result_free(&r);
	if (!err)
		rec->plain_cpu_ns_per_page = plain;
	return err;
}

int pred_record_alternately(const char *prog, const struct bench_workload *w,
			    const struct bench_opts o[2], int want,
			    struct pred_recording *rec[2], int *nr[2])
{
	int k;

	*nr[0] = *nr[1] = 0;
	while (*nr[1] < want)
		for (k = 0; k < 2; k++) {
			if (pred_record_workload(prog, w, &o[k], o[k].threads[0], &rec[k][*nr[k]]))
				return -1;
			(*nr[k])++;
		}
	return 0;
}

/* ---- replaying it ---- */

struct replay {
	const struct pred_recording *rec;
	u32 *pos;
	int *trace;
	u32 *ev_pos;		/* the first event of the op at pos */
	u32 *ev_first, *ev_nr;	/* the events of the op given last */
};

/* The first event of @t at or after op @op. */
static u32 first_event(const struct pred_trace *t, u32 op)
{
	u32 lo = 0, hi = t->nr_events;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (t->events[mid].op < op)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void replay_next(struct pred_source *s, int cpu, struct pred_op *op)
{
	struct replay *r = s->arg;
	const struct pred_trace *t = &r->rec->traces[r->trace[cpu]];
	u32 pos = r->pos[cpu], e = r->ev_pos[cpu];

	*op = t->ops[pos];
	r->ev_first[cpu] = e;
	while (e < t->nr_events && t->events[e].op == pos)
		e++;
	r->ev_nr[cpu] = e - r->ev_first[cpu];
	r->ev_pos[cpu] = e;
	if (++r->pos[cpu] >= t->nr) {
		r->pos[cpu] = 0;
		r->ev_pos[cpu] = 0;
	}
}

static u32 replay_events(struct pred_source *s, int cpu, const struct pred_event **ev)
{
	struct replay *r = s->arg;
	const struct pred_trace *t = &r->rec->traces[r->trace[cpu]];

	*ev = t->events ? &t->events[r->ev_first[cpu]] : NULL;
	return t->events ? r->ev_nr[cpu] : 0;
}

/* Each op's end, in the recorded time of its trace (work and hold summed) */
static u64 *trace_clock(const struct pred_trace *t)
{
	u64 *end = malloc((t->nr ? t->nr : 1) * sizeof(*end)), sum = 0;
	u32 k;

	if (!end)
		return NULL;
	for (k = 0; k < t->nr; k++) {
		sum += (u64)t->ops[k].work_ns + t->ops[k].hold_ns;
		end[k] = sum;
	}
	return end;
}

/* The op under way at @frac of @t's recorded time (@end from trace_clock()) */
static u32 op_at(const struct pred_trace *t, const u64 *end, double frac)
{
	u64 at = (u64)(frac * (double)(t->nr ? end[t->nr - 1] : 0));
	u32 lo = 0, hi = t->nr ? t->nr - 1 : 0;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (end[mid] <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * CPUs beyond the recorded threads replay them from a random place; every
 * start moves on by @shift of its trace (a window, run_sim()).  A place
 * is drawn uniform in the trace's recorded time, not in its ops: a pass
 * that faults pages makes thousands of short acquisitions and its free
 * a few hundred long ones, so places drawn by op put nearly every CPU in
 * a fault, and a window shorter than a pass then saw few frees (80 CPUs
 * of a shmem trace replayed 9 adds to 1 free, and made 5.2M pages/s where
 * the same trace long enough made 4.2M).
 */
static int replay_init(struct replay *r, const struct pred_recording *rec, int cpus,
		       u64 seed, double shift)
{
	struct bench_rng rng = { seed };
	u64 **clock = calloc(rec->nr_traces, sizeof(*clock));
	int i, err = 0;

	r->rec = rec;
	r->pos = calloc(cpus, sizeof(*r->pos));
	r->trace = calloc(cpus, sizeof(*r->trace));
	r->ev_pos = calloc(cpus, sizeof(*r->ev_pos));
	r->ev_first = calloc(cpus, sizeof(*r->ev_first));
	r->ev_nr = calloc(cpus, sizeof(*r->ev_nr));
	if (!clock || !r->pos || !r->trace || !r->ev_pos || !r->ev_first || !r->ev_nr) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < rec->nr_traces; i++)
		if (!(clock[i] = trace_clock(&rec->traces[i]))) {
			err = -ENOMEM;
			goto out;
		}
	for (i = 0; i < cpus; i++) {
		const struct pred_trace *t;
		double at = 0;

		r->trace[i] = i % rec->nr_traces;
		t = &rec->traces[r->trace[i]];
		if (i >= rec->nr_traces || seed)
			at = (double)(bench_rng_next(&rng) >> 11) / (double)(1ULL << 53);
		at += shift;
		r->pos[i] = op_at(t, clock[r->trace[i]], at - (u64)at);
		r->ev_pos[i] = t->events ? first_event(t, r->pos[i]) : 0;
	}
out:
	if (clock)
		for (i = 0; i < rec->nr_traces; i++)
			free(clock[i]);
	free(clock);
	return err;
}

static void replay_free(struct replay *r)
{
	free(r->pos);
	free(r->trace);
	free(r->ev_pos);
	free(r->ev_first);
	free(r->ev_nr);
}

/* ---- costs ---- */

struct totals {
	double work, hold, ops;
};

/* the holds each multiplied by its lock's @scale (NULL: 1) */
static void rec_totals(const struct pred_recording *rec, const double *scale, struct totals *t)
{
	int i;
	u32 k;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr; k++) {
			const struct pred_op *op = &rec->traces[i].ops[k];

			t->work += op->work_ns;
			t->hold += op->hold_ns * (scale ? scale[op->lock] : 1);
			t->ops++;
		}
}

/*
 * Each lock's hold multiplier: lru_lock's the kernel/lrulab ratio, the
 * others 1; NULL (all 1) without a ratio.  Freed by the caller.
 */
static double *lock_scales(const struct pred_recording *rec, const struct pred_model_opts *mo)
{
	double *sc;
	int i;

	if (mo->lru_hold_ratio <= 0)
		return NULL;
	sc = calloc(rec->nr_locks + 1, sizeof(*sc));
	for (i = 0; sc && i < rec->nr_locks; i++)
		sc[i] = strcmp(rec->sites[rec->locks[i].cls_site].cls, "lru_lock") ? 1 :
			mo->lru_hold_ratio;
	return sc;
}

double pred_value_draw(const struct pred_value *v, struct bench_rng *rng, bool central)
{
	double u;

	if (central || v->hi <= v->lo)
		return v->v;
	u = (bench_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
	return v->lo + u * (v->hi - v->lo);
}

/*
 * What multiplies the recorded work so that one CPU of this machine
 * replays at the unrecorded run's CPU time per page; 1 when there was
 * none (a recording from bench --record).
 */
static double plain_factor(const struct pred_recording *rec)
{
	struct totals t;
	double want;

	if (rec->plain_cpu_ns_per_page <= 0)
		return 1;
	rec_totals(rec, NULL, &t);
	want = rec->plain_cpu_ns_per_page * rec->pages;
	if (t.work <= 0 || want <= t.hold)
		return 1;
	return (want - t.hold) / t.work;
}

static int busy_cores(const struct pred_cpu *topo, int cpus)
{
	int i, j, n = 0;

	for (i = 0; i < cpus; i++) {
		for (j = 0; j < i; j++)
			if (topo[j].socket == topo[i].socket && topo[j].core == topo[i].core)
				break;
		n += j == i;
	}
	return n;
}

/*
 * One draw of the machine for @cpus: every cost in its range (or at its
 * value when @central), speeds from the frequency with that many cores
 * busy.  With a single-thread rate the work is set so that one CPU of
 * the draw makes that rate.
 */
static void make_costs(const struct pred_recording *rec, const struct pred_profile *pf,
		       const struct pred_cpu *topo, int cpus, const struct pred_model_opts *mo,
		       const double *scales, struct bench_rng *rng, bool central,
		       struct pred_costs *c)
{
	const struct pred_value *p = pf->p;
	int cores = pf->sockets * pf->cores_per_socket;
	double f1 = pred_value_draw(&p[PP_FREQ_ONE], rng, central);
	double fall = pred_value_draw(&p[PP_FREQ_ALL], rng, central);
	double speed = pred_value_draw(&p[PP_CORE_SPEED], rng, central), fn = f1;
	int busy = busy_cores(topo, cpus);

	/* drawn all the same, so that every other value keeps its draw */
	if (mo->core_speed > 0)
		speed = mo->core_speed;

	if (cores > 1)
		fn = f1 - (f1 - fall) * (busy - 1) / (cores - 1);
	memset(c, 0, sizeof(*c));
	c->lock_hold_scale = scales;
	c->xfer_smt = pred_value_draw(&p[PP_XFER_SMT], rng, central);
	c->xfer_socket = pred_value_draw(&p[PP_XFER_SOCKET], rng, central);
	c->xfer_remote = pred_value_draw(&p[PP_XFER_REMOTE], rng, central);
	c->handoff_qspin = pred_value_draw(&p[PP_HANDOFF_QSPIN], rng, central);
	c->ticket_slope = pred_value_draw(&p[PP_TICKET_SLOPE], rng, central);
	c->tas_beta = pred_value_draw(&p[PP_TAS_BETA], rng, central);
	c->smt_speed = pred_value_draw(&p[PP_SMT_SPEED], rng, central);
	c->pair_prefetch = pred_value_draw(&p[PP_PAIR_PREFETCH], rng, central) >= 0.5;
	c->pair_rfo = c->pair_prefetch && p[PP_PAIR_RFO].given &&
		      pred_value_draw(&p[PP_PAIR_RFO], rng, central) >= 0.5;
	/* GB/s is bytes per ns */
	c->mem_bw = p[PP_MEM_BW_SOCKET].given ? pred_value_draw(&p[PP_MEM_BW_SOCKET], rng, central) : 0;
	c->ipi_target_ns = p[PP_IPI_TARGET].given ? pred_value_draw(&p[PP_IPI_TARGET], rng, central) : 0;
	c->ipi_send_ns = p[PP_IPI_SEND].given ? pred_value_draw(&p[PP_IPI_SEND], rng, central) : 0;
	c->hold_scale = f1 / fn / speed;
	c->work_scale = c->hold_scale * plain_factor(rec);
	if (mo->single_thread_rate > 0) {
		struct totals t;
		double want, hold;

		/* the holds as simulated: the kernel's, where a ratio says so */
		rec_totals(rec, c->lock_hold_scale, &t);
		/* the time one trace's pages take at that rate, at one CPU */
		want = rec->pages / mo->single_thread_rate * 1e9 / rec->nr_traces;
		hold = t.hold / rec->nr_traces / speed;
		c->work_scale = t.work > 0 && want > hold ?
				(want - hold) / (t.work / rec->nr_traces) * f1 / fn : c->hold_scale;
	}
}

/*
 * The mean transfer between two of the @cpus, for the twin; @node: two
 * of one socket's.
 */
static double mean_xfer(const struct pred_cpu *topo, int cpus, const struct pred_costs *c,
			bool node)
{
	double sum = 0;
	long n = 0;
	int i, j;

	for (i = 0; i < cpus; i++)
		for (j = 0; j < cpus; j++) {
			if (i == j || (node && topo[i].socket != topo[j].socket))
				continue;
			sum += topo[i].socket != topo[j].socket ? c->xfer_remote :
			       topo[i].core == topo[j].core ? c->xfer_smt : c->xfer_socket;
			n++;
		}
	return n ? sum / n : 0;
}

/*
 * Each pair read's line and its partner in the placement simulated, both
 * ways, into @partner (nr_lines + 1 entries): the pairs a store's miss
 * takes whole on a pair_rfo machine.
 */
static void pair_partners(const struct pred_recording *rec, bool other, u32 *partner)
{
	int i;
	u32 k;

	for (k = 0; k <= rec->nr_lines; k++)
		partner[k] = PRED_NO_LINE;
	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr_events; k++) {
			const struct pred_event *e = &rec->traces[i].events[k];
			u32 p = other ? e->arg : e->line2;

			if (e->kind != PRED_EV_PAIR_READ || e->line > rec->nr_lines ||
			    p > rec->nr_lines)
				continue;
			partner[e->line] = p;
			partner[p] = e->line;
		}
}

/*
 * The kernel's per-node objects among a recording's locks and lines:
 * a memcg has a lruvec (its lru_lock, cost_lock, list heads) and a
 * mem_cgroup_per_node (lru_zone_size[], the lines its stat updates read)
 * per NUMA node, and a zone's lock and counters, like a pgdat's, are its
 * node's.  The page_counter, the memcg's stats_updates, the global
 * vmstat atomics and the mm's lines are one for the machine.  The
 * recording ran on one node; on a target of several, a thread pinned to
 * a node faults and frees memory of its own node (the default local
 * policy), so it takes its node's lock and lines.  Into @lock_node and
 * @line_node, 1 for each per-node one.
 */
static const char *const node_classes[] = { "lru_lock", "cost_lock", "zone->lock" };

static bool node_class(const char *cls)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(node_classes); i++)
		if (!strcmp(cls, node_classes[i]))
			return true;
	return false;
}

static void mark_line(u8 *line_node, const struct pred_recording *rec, u32 line)
{
	if (line != PRED_NO_LINE && line <= rec->nr_lines)
		line_node[line] = 1;
}

static void node_flags(const struct pred_recording *rec, u8 *lock_node, u8 *line_node)
{
	int i, j;
	u32 k;

	for (i = 0; i < rec->nr_locks; i++) {
		const struct pred_lock *l = &rec->locks[i];

		if (l->scope != PRED_SHARED || !node_class(rec->sites[l->cls_site].cls))
			continue;
		lock_node[i] = 1;
		for (j = 0; j < l->nr_lines; j++)
			mark_line(line_node, rec, l->lines[j]);
	}
	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr_events; k++) {
			const struct pred_event *e = &rec->traces[i].events[k];

			/* a fold's zone or node atomic (line2 is the global one) */
			if (e->kind == PRED_EV_VMSTAT_FOLD)
				mark_line(line_node, rec, e->line);
			if (e->kind == PRED_EV_PAIR_READ) {
				mark_line(line_node, rec, e->line);
				mark_line(line_node, rec, e->line2);
				mark_line(line_node, rec, e->arg);
			}
		}
}

/*
 * The events' expected transfers: a fold at N for I(t)/I(t_N) of the
 * recorded ones (at most one fetch each), every page_counter write; a
 * memcg batch reaches its atomic at most N + 1 times a flush period,
 * nothing at the twin's resolution.  A VMA's refcount line that the
 * threads of one process share is a queue of its own (*@vma: the take
 * fetches it twice, the drop once).  A read's wait for its device is
 * delay, the device's latency.
 */
static void twin_events(const struct pred_recording *rec, int online, double xf, double *d,
			double *z, double *vma)
{
	int i;
	u32 k;

	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr_events; k++) {
			const struct pred_event *e = &rec->traces[i].events[k];
			const struct pred_op *op = &rec->traces[i].ops[e->op];
			double w = 1, x;

			if (e->kind == PRED_EV_VMA_REFCNT) {
				if (rec->one_process && e->threshold)
					*vma += xf * (e->arg ? 2 : 1);
				continue;
			}
			/* the device's time, at any core speed */
			if (e->kind == PRED_EV_IO_WAIT) {
				*z += e->arg;
				continue;
			}
			if (e->kind == PRED_EV_VMSTAT_FOLD) {
				int t = e->threshold ? vmstat_normal_threshold(online,
						(unsigned long)e->arg << (27 - PAGE_SHIFT)) : 0;

				w = (double)pred_fold_interval(e->threshold, e->step) /
				    pred_fold_interval(t, e->step);
				w = w > 1 ? 1 : w;
			} else if (e->kind != PRED_EV_PAGE_COUNTER) {
				w = 0;
			}
			x = w * xf * (e->line2 == PRED_NO_LINE ? 1 : 2);
			if (e->inside && rec->locks[op->lock].scope == PRED_SHARED)
				d[op->lock] += x;
			else
				*z += x;
		}
}

/*
 * The twin: one op is a cycle; shared locks are queues whose demand is
 * their share of the ops times their hold, stretched by the lines a
 * section fetches (each from another CPU with probability 1 - 1/N) and
 * the handoff of the lock's implementation (pred_handoff()); a VMA's
 * refcount line the threads share is a queue too; the rest is delay.  A
 * ticket or test-and-set handoff grows with the waiters at the release,
 * which the MVA's queue length at the lock gives: a fixed point of the
 * two, where a qspinlock's constant handoff needs none.  A per-node lock
 * (node_flags()) is one queue per socket, each its socket's CPUs' with
 * transfers between two of them: as one queue, its demand over the
 * sockets, which is exact where it saturates.
 */
#define TWIN_ITERATIONS 50

static int nr_nodes(const struct pred_cpu *topo, int cpus)
{
	int i, n = 1;

	for (i = 0; i < cpus; i++)
		if (topo[i].socket + 1 > n)
			n = topo[i].socket + 1;
	return n;
}

static double twin_pages(const struct pred_recording *rec, const struct pred_cpu *topo,
			 int cpus, int online, const struct pred_costs *c, enum lock_impl impl,
			 double speed_smt)
{
	int nl = rec->nr_locks;
	double *d = calloc(nl + 1, sizeof(*d)), *base = calloc(nl + 1, sizeof(*base));
	double *visits = calloc(nl + 1, sizeof(*visits)), *waiters = calloc(nl + 1, sizeof(*waiters));
	double *resp = calloc(nl + 1, sizeof(*resp));
	double xf = mean_xfer(topo, cpus, c, false), remote = cpus > 1 ? 1 - 1.0 / cpus : 0;
	double z = 0, x = NAN, ops = 0, vma = 0;
	int nodes = nr_nodes(topo, cpus), i, it;
	double xfn = nodes > 1 ? mean_xfer(topo, cpus, c, true) : xf;
	double remote_n = cpus > nodes ? 1 - (double)nodes / cpus : 0;
	u8 *lock_node = calloc(nl + 1, 1), *line_node = calloc(rec->nr_lines + 1, 1);
	u32 k;

	if (!d || !base || !visits || !waiters || !resp || !lock_node || !line_node)
		goto out;
	if (nodes > 1)
		node_flags(rec, lock_node, line_node);
	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr; k++) {
			const struct pred_op *op = &rec->traces[i].ops[k];
			const struct pred_lock *l = &rec->locks[op->lock];
			double h = op->hold_ns * c->hold_scale * speed_smt *
				   (c->lock_hold_scale ? c->lock_hold_scale[op->lock] : 1);

			z += op->work_ns * c->work_scale * speed_smt;
			ops++;
			if (l->scope == PRED_PRIVATE) {
				z += h;
				continue;
			}
			if (lock_node[op->lock])
				base[op->lock] += h + remote_n * (l->nr_lines * xfn + xfn);
			else
				base[op->lock] += h + remote * (l->nr_lines * xf + xf);
			visits[op->lock]++;
		}
	twin_events(rec, online, remote * xf, base, &z, &vma);
	d[nl] = vma / (ops ? ops : 1);
	for (it = 0; it < TWIN_ITERATIONS; it++) {
		for (i = 0; i < nl; i++) {
			double r = lock_node[i] ? remote_n : remote, y = lock_node[i] ? xfn : xf;

			d[i] = (base[i] + visits[i] * r * (pred_handoff(impl, c, y, waiters[i]) - y)) /
			       ops / (lock_node[i] ? nodes : 1);
		}
		x = pred_mva(cpus, z / ops, nl + 1, d, resp);
		if (impl == LOCK_QSPINLOCK || impl == LOCK_MUTEX)
			break;
		/* those queued at a lock less its holder, damped */
		for (i = 0; i < nl; i++) {
			double q = x * resp[i] - (visits[i] > 0 ? x * d[i] : 0);

			waiters[i] = (waiters[i] + (q > 0 ? q : 0)) / 2;
		}
	}
out:
	free(lock_node);
	free(line_node);
	free(d);
	free(base);
	free(visits);
	free(waiters);
	free(resp);
	/* x is ops per ns */
	return x * 1e9 * rec->pages / ops;
}

/*
 * A trace's period in ops: a pass of the workload (fault a region, free
 * it) repeats, and its rarest repeating site comes once a pass (the lru
 * drain before a free), so the trace's ops over that site's count.
 * Sites seen fewer than PERIOD_MIN_SEEN times are set-up (a VMA made, a
 * page table allocated now and then), not a pass's; a trace without a
 * site seen that often has no period found: 0.
 */
#define PERIOD_MIN_SEEN 16

static u64 trace_period(const struct pred_recording *rec)
{
	const struct pred_trace *t = &rec->traces[0];
	u32 *count = calloc(rec->nr_sites ? rec->nr_sites : 1, sizeof(*count)), k, least = 0;
	int i;

	if (!count || !rec->nr_traces)
		goto out;
	for (k = 0; k < t->nr; k++)
		if (t->ops[k].site < rec->nr_sites)
			count[t->ops[k].site]++;
	for (i = 0; i < rec->nr_sites; i++)
		if (count[i] >= PERIOD_MIN_SEEN && (!least || count[i] < least))
			least = count[i];
out:
	free(count);
	return least ? t->nr / least : 0;
}

/*
 * Enough acquisitions that every CPU goes once through a whole trace
 * (a trace is not the same from end to end: the first passes in a fresh
 * memcg are slower), and through two of its periods, within bounds that
 * keep a sweep to seconds.
 */
#define MAX_ACQUISITIONS (16ULL << 20)

static u64 default_acquisitions(const struct pred_recording *rec, int cpus, u64 period)
{
	u64 ops = 0, acq, lo = 100000 + 10000ULL * cpus, hi = 1500000;
	int i;

	for (i = 0; i < rec->nr_traces; i++)
		ops += rec->traces[i].nr;
	if (2 * period * cpus > lo)
		lo = 2 * period * cpus < MAX_ACQUISITIONS ? 2 * period * cpus : MAX_ACQUISITIONS;
	acq = ops / rec->nr_traces * cpus;
	return acq < lo ? lo : acq > hi ? (lo > hi ? lo : hi) : acq;
}

/* @w's counts added to @r's (a window after another) */
static void merge_result(struct pred_result *r, const struct pred_result *w, int nr_sites)
{
	int i;

	r->elapsed_ns += w->elapsed_ns;
	r->acquisitions += w->acquisitions;
	r->x_steady += w->x_steady;
	r->wait_total += w->wait_total;
	r->events += w->events;
	for (i = 0; i < NR_PRED_EVENTS; i++) {
		r->ev_seen[i] += w->ev_seen[i];
		r->ev_kept[i] += w->ev_kept[i];
	}
	r->ev_xfers += w->ev_xfers;
	r->ev_xfer_ns += w->ev_xfer_ns;
	r->invalidations += w->invalidations;
	r->steals += w->steals;
	r->steal_ns += w->steal_ns;
	r->inval_ns += w->inval_ns;
	r->line_wait_ns += w->line_wait_ns;
	for (i = 0; i < NR_PRED_EVENTS; i++)
		r->ev_ns[i] += w->ev_ns[i];
	r->ipis += w->ipis;
	r->ipi_target_ns += w->ipi_target_ns;
	r->bw_wait_ns += w->bw_wait_ns;
	for (i = 0; i < nr_sites; i++) {
		struct pred_site_stat *a = &r->sites[i];
		const struct pred_site_stat *b = &w->sites[i];

		if (b->contended && (!a->contended || b->wait_min < a->wait_min))
			a->wait_min = b->wait_min;
		if (b->wait_max > a->wait_max)
			a->wait_max = b->wait_max;
		a->acquired += b->acquired;
		a->contended += b->contended;
		a->wait_total += b->wait_total;
		a->hold_total += b->hold_total;
	}
	for (i = 0; i < r->nr_locks && i < w->nr_locks; i++) {
		r->locks[i].acquired += w->locks[i].acquired;
		r->locks[i].busy += w->locks[i].busy;
		r->locks[i].area += w->locks[i].area;
		r->locks[i].resp_total += w->locks[i].resp_total;
	}
}

/*
 * A simulation of @acq acquisitions covers acq / N of each CPU's trace;
 * when that is less than a trace (the cap of default_acquisitions(), or
 * a caller's count), one simulation replays only where the CPUs start,
 * which for the recorded threads is a trace's start (one CPU asked for
 * 430K pages/s replayed the first 1.5M acquisitions of a longer
 * recording at 466K).  So the acquisitions go to up to REPLAY_WINDOWS
 * windows, each with every start moved on by its share of the trace,
 * their counts summed, and each at least a period of the trace a CPU;
 * REPLAY_WINDOWS CPUs or more start at random places all over the trace
 * and need one window.
 *
 * Each window warms up for a period a CPU (at least 200 acquisitions):
 * the CPUs start where one CPU would be at a random instant, but at N
 * CPUs a pass's phases take other shares of its time (the frees wait
 * longest for lru_lock), and the CPUs need about a pass to settle into
 * them.  Counted from the start, 20 CPUs of a shmem trace made 7.7M
 * pages/s in 400K acquisitions where the settled rate is 5.9M.
 */
#define REPLAY_WINDOWS 8

static int run_sim(const struct pred_recording *rec, const struct pred_cpu *topo, int cpus,
		   int online, const struct pred_costs *c, const struct pred_model_opts *mo,
		   u64 seed, struct pred_result *res)
{
	u64 period = trace_period(rec);
	u64 acq = mo->acquisitions ? mo->acquisitions : default_acquisitions(rec, cpus, period);
	u64 ops = 0, per_cpu = acq / cpus, warm;
	int i, nwin = 1, w, err = 0;
	u8 *lock_node = calloc(rec->nr_locks + 1, 1), *line_node = calloc(rec->nr_lines + 1, 1);
	u32 *partner = malloc((rec->nr_lines + 1) * sizeof(*partner));

	if (!lock_node || !line_node || !partner) {
		free(lock_node);
		free(line_node);
		free(partner);
		return -ENOMEM;
	}
	node_flags(rec, lock_node, line_node);
	pair_partners(rec, mo->other_placement, partner);

	for (i = 0; i < rec->nr_traces; i++)
		ops = rec->traces[i].nr > ops ? rec->traces[i].nr : ops;
	if (per_cpu < ops)
		nwin = per_cpu ? (int)((ops + per_cpu - 1) / per_cpu) : REPLAY_WINDOWS;
	/* as many CPUs as windows start all over the trace by themselves */
	if (nwin > REPLAY_WINDOWS)
		nwin = REPLAY_WINDOWS;
	if (cpus >= REPLAY_WINDOWS)
		nwin = 1;
	if (period && (u64)nwin * period > per_cpu)
		nwin = per_cpu / period > 1 ? (int)(per_cpu / period) : 1;
	warm = nwin > 1 ? 2000ULL / nwin : 2000ULL;
	if (warm < 200)
		warm = 200;
	if (warm < period)
		warm = period;
	warm *= cpus;
	for (w = 0; w < nwin && !err; w++) {
		struct replay rp;
		struct pred_source src = { .next = replay_next, .events = replay_events, .arg = &rp };
		struct pred_sim_opts so = {
			.cpus = cpus, .online = online, .impl = mo->impl, .costs = c, .topo = topo,
			.nr_locks = rec->nr_locks, .locks = rec->locks,
			.nr_sites = rec->nr_sites, .nr_lines = rec->nr_lines,
			.nr_counters = rec->nr_counters,
			.acquisitions = acq / nwin + (w < (int)(acq % nwin)), .warmup = warm,
			.seed = seed ? seed + w : 0, .src = &src,
			.flush_period_ns = rec->flush_period_ns,
			.other_placement = mo->other_placement,
			.one_process = rec->one_process, .shared_vma = mo->shared_vma,
			.lock_node = lock_node, .line_node = line_node, .line_partner = partner,
		};
		struct pred_result one;

		err = replay_init(&rp, rec, cpus, seed, (double)w / nwin);
		if (!err)
			err = pred_simulate(&so, w ? &one : res);
		replay_free(&rp);
		if (!err && w) {
			merge_result(res, &one, rec->nr_sites);
			pred_result_free(&one);
		}
	}
	if (err && nwin > 1 && res->sites)
		pred_result_free(res);
	if (!err && nwin > 1) {
		res->acq_per_sec = res->elapsed_ns > 0 ? res->acquisitions * 1e9 / res->elapsed_ns : 0;
		res->x_steady /= nwin;
	}
	free(lock_node);
	free(line_node);
	free(partner);
	return err;
}

/* The site with the most wait (then hold) among those of @cls */
static void name_bottleneck(const struct pred_recording *rec, const struct pred_result *res,
			    int lock, struct pred_point *pt)
{
	const char *cls = rec->sites[rec->locks[lock].cls_site].cls;
	int i, best = -1;
	char name[100];

	for (i = 0; i < rec->nr_sites; i++) {
		if (strcmp(rec->sites[i].cls, cls) || !res->sites[i].acquired)
			continue;
		if (best < 0 || res->sites[i].wait_total + res->sites[i].hold_total >
				res->sites[best].wait_total + res->sites[best].hold_total)
			best = i;
	}
	if (best < 0)
		best = rec->locks[lock].cls_site;
	lock_site_name(rec->sites[best].caller, rec->sites[best].fn, name, sizeof(name));
	snprintf(pt->bottleneck, sizeof(pt->bottleneck), "%s %s", cls, name);
}

/* The per-site figures as a bench result, scaled to one simulated second. */
static int fill_table(const struct pred_recording *rec, const struct pred_result *res,
		      struct pred_point *pt, double pages)
{
	struct bench_result *r = &pt->table;
	double scale = res->elapsed_ns > 0 ? 1e9 / res->elapsed_ns : 0;
	int i;

	memset(r, 0, sizeof(*r));
	r->sites = calloc(rec->nr_sites + 1, sizeof(*r->sites));
	if (!r->sites)
		return -ENOMEM;
	r->threads = pt->cpus;
	r->pages = (unsigned long)(pages * scale);
	r->seconds = 1;
	for (i = 0; i < rec->nr_sites; i++) {
		const struct pred_site_stat *st = &res->sites[i];
		struct bench_site_result *s = &r->sites[r->nr_sites];

		if (!st->acquired)
			continue;
		snprintf(s->cls, sizeof(s->cls), "%s", rec->sites[i].cls);
		snprintf(s->caller, sizeof(s->caller), "%s", rec->sites[i].caller);
		snprintf(s->fn, sizeof(s->fn), "%s", rec->sites[i].fn);
		lock_site_name(s->caller, s->fn, s->name, sizeof(s->name));
		s->st.acquired = (u64)(st->acquired * scale + 0.5);
		s->st.contended = (u64)(st->contended * scale + 0.5);
		s->st.wait_total_ns = (u64)(st->wait_total * scale);
		s->st.wait_max_ns = (u64)st->wait_max;
		s->st.wait_min_ns = (u64)st->wait_min;
		s->st.hold_total_ns = (u64)(st->hold_total * scale);
		s->st.hold_timed = s->st.acquired;
		s->st.hold_sampled = 1;
		if (!strcmp(s->cls, "lru_lock")) {
			r->lru.acquired += s->st.acquired;
			r->lru.contended += s->st.contended;
			r->lru.wait_total_ns += s->st.wait_total_ns;
			r->lru.hold_total_ns += s->st.hold_total_ns;
		}
		r->nr_sites++;
	}
	r->lru.hold_sampled = 1;
	qsort(r->sites, r->nr_sites, sizeof(*r->sites), bench_site_cmp);
	return 0;
}

static void point_figures(const struct pred_recording *rec, const struct pred_result *res,
			  struct pred_point *pt)
{
	double pages_per_op = (double)rec->pages, ops = 0, wait = 0, cont = 0, acq = 0, best = -1;
	int i;

	for (i = 0; i < rec->nr_traces; i++)
		ops += rec->traces[i].nr;
	pages_per_op /= ops;
	pt->pages_per_sec = res->acq_per_sec * pages_per_op;
	for (i = 0; i < rec->nr_sites; i++) {
		if (strcmp(rec->sites[i].cls, "lru_lock"))
			continue;
		wait += res->sites[i].wait_total;
		cont += res->sites[i].contended;
		acq += res->sites[i].acquired;
	}
	pt->lru_wait_ns_per_page = res->acquisitions ? wait / (res->acquisitions * pages_per_op) : 0;
	pt->lru_contended_per_page = res->acquisitions ? cont / (res->acquisitions * pages_per_op) : 0;
	pt->lru_acquired_per_page = res->acquisitions ? acq / (res->acquisitions * pages_per_op) : 0;
	pt->sim_seconds = res->elapsed_ns / 1e9;
	for (i = 0; i < NR_PRED_EVENTS; i++)
		pt->ev_per_page[i] = res->acquisitions ?
				     res->ev_kept[i] * ops / (rec->pages * (double)res->acquisitions) : 0;
	pt->ev_xfer_ns_per_page = res->acquisitions ?
				  res->ev_xfer_ns * ops / (rec->pages * (double)res->acquisitions) : 0;
	pt->inval_ns_per_page = res->acquisitions ?
				res->inval_ns * ops / (rec->pages * (double)res->acquisitions) : 0;
	pt->steals_per_page = res->acquisitions ?
			      res->steals * ops / (rec->pages * (double)res->acquisitions) : 0;
	pt->steal_ns_per_page = res->acquisitions ?
				res->steal_ns * ops / (rec->pages * (double)res->acquisitions) : 0;
	pt->line_wait_ns_per_page = res->acquisitions ?
				    res->line_wait_ns * ops / (rec->pages * (double)res->acquisitions) : 0;
	/* each kind's time as a share of every CPU's: of the simulated CPU-time */
	for (i = 0; i < NR_PRED_EVENTS; i++)
		pt->ev_share[i] = res->elapsed_ns > 0 ?
				  res->ev_ns[i] / (res->elapsed_ns * pt->cpus) : 0;
	pt->ipis_per_page = res->acquisitions ?
			    res->ipis * ops / (rec->pages * (double)res->acquisitions) : 0;
	pt->bw_wait_share = res->elapsed_ns > 0 ? res->bw_wait_ns / (res->elapsed_ns * pt->cpus) : 0;
	/* the busiest shared lock: its load is the share of time it is held */
	for (i = 0; i < rec->nr_locks; i++) {
		double load = res->elapsed_ns > 0 ? res->locks[i].busy / res->elapsed_ns : 0;

		if (rec->locks[i].scope == PRED_SHARED && load > best) {
			best = load;
			pt->load = load;
			name_bottleneck(rec, res, i, pt);
		}
	}
	fill_table(rec, res, pt, res->acquisitions * pages_per_op);
}

static const struct pred_event *first_fold(const struct pred_recording *rec)
{
	int i;
	u32 k;

	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr_events; k++)
			if (rec->traces[i].events[k].kind == PRED_EV_VMSTAT_FOLD)
				return &rec->traces[i].events[k];
	return NULL;
}

int pred_model_point(const struct pred_recording *rec, const struct pred_profile *pf,
		     int cpus, const struct pred_model_opts *mo, struct pred_point *pt)
{
	struct pred_cpu *topo = calloc(cpus, sizeof(*topo));
	struct bench_rng rng = { mo->seed ^ (u64)cpus * 0x9e3779b97f4a7c15ULL };
	double *band = calloc(mo->draws + 1, sizeof(*band)), *scales = lock_scales(rec, mo);
	struct pred_result res;
	struct pred_costs c;
	int d, err = -ENOMEM;

	memset(pt, 0, sizeof(*pt));
	pt->cpus = cpus;
	/* a run with more CPUs than the machine's has them all online */
	pt->online = cpus > pred_profile_cpus(pf) ? cpus : pred_profile_cpus(pf);
	pt->nr_recordings = 1;
	if (!topo || !band || (mo->lru_hold_ratio > 0 && !scales))
		goto out;
	pred_topology(pf, cpus, topo);
	pt->bw_costed = pf->p[PP_MEM_BW_SOCKET].given;
	pt->ipi_costed = pf->p[PP_IPI_TARGET].given || pf->p[PP_IPI_SEND].given;
	make_costs(rec, pf, topo, cpus, mo, scales, &rng, true, &c);
	err = run_sim(rec, topo, cpus, pt->online, &c, mo, 0, &res);
	if (err)
		goto out;
	point_figures(rec, &res, pt);
	pred_result_free(&res);
	{
		const struct pred_event *f = first_fold(rec);

		pt->vmstat_threshold = !f ? 0 : !f->threshold ? 0 :
				vmstat_normal_threshold(pt->online,
							(unsigned long)f->arg << (27 - PAGE_SHIFT));
	}
	pt->twin_pages_per_sec = twin_pages(rec, topo, cpus, pt->online, &c, mo->impl,
					    cpus > pf->sockets * pf->cores_per_socket ?
					    1 / c.smt_speed : 1);
	for (d = 0; d < mo->draws; d++) {
		struct pred_point tmp = { .cpus = cpus };

		make_costs(rec, pf, topo, cpus, mo, scales, &rng, false, &c);
		err = run_sim(rec, topo, cpus, pt->online, &c, mo, bench_rng_next(&rng) | 1, &res);
		if (err)
			goto out;
		point_figures(rec, &res, &tmp);
		band[d] = tmp.pages_per_sec;
		if (d < PRED_MAX_DRAWS) {
			pt->draws_contended[pt->nr_draws] = tmp.lru_contended_per_page;
			pt->draws_lru_wait[pt->nr_draws] = tmp.lru_wait_ns_per_page;
			pt->draws[pt->nr_draws++] = tmp.pages_per_sec;
		}
		pred_point_free(&tmp);
		pred_result_free(&res);
	}
	band[mo->draws] = pt->pages_per_sec;
	qsort(band, mo->draws + 1, sizeof(*band), cmp_double);
	pt->band_low = quantile_sorted(band, mo->draws + 1, 0.1);
	pt->band_high = quantile_sorted(band, mo->draws + 1, 0.9);
out:
	free(topo);
	free(band);
	free(scales);
	return err;
}

double pred_event_arg_sum(const struct pred_recording *rec, enum pred_event_kind kind, u64 *n)
{
	double sum = 0;
	int i;
	u32 k;

	*n = 0;
	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr_events; k++)
			if (rec->traces[i].events[k].kind == kind) {
				sum += rec->traces[i].events[k].arg;
				(*n)++;
			}
	return sum;
}

/* KiB cleared */
static double clear_bytes(const struct pred_recording *rec)
{
	u64 n;

	return pred_event_arg_sum(rec, PRED_EV_CLEAR, &n) / 1024;
}

void pred_events_describe(const struct pred_recording *rec, char *buf, size_t len)
{
	double n[NR_PRED_EVENTS] = { 0 }, inside = 0;
	const struct pred_event *f = first_fold(rec);
	int i;
	u32 k;

	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr_events; k++) {
			n[rec->traces[i].events[k].kind]++;
			inside += rec->traces[i].events[k].inside &&
				  rec->traces[i].events[k].kind == PRED_EV_VMSTAT_FOLD;
		}
	for (i = 0; i < NR_PRED_EVENTS; i++)
		n[i] *= 1000.0 / rec->pages;
	snprintf(buf, len, "shared lines besides the locks', per 1000 pages: %.1f vmstat folds "
		 "(%.1f in a hold; stat_threshold %d), %.1f memcg stats_updates batches, %.1f "
		 "page_counter writes, %.1f memcg stat reads of a line pair",
		 n[PRED_EV_VMSTAT_FOLD], inside * 1000.0 / rec->pages, f ? f->threshold : 0,
		 n[PRED_EV_MEMCG_SPILL], n[PRED_EV_PAGE_COUNTER], n[PRED_EV_PAIR_READ]);
	snprintf(buf + strlen(buf), len - strlen(buf) < len ? len - strlen(buf) : 0,
		 "; the address space's (%s): %.1f mmap_lock prefetches, %.1f VMA refcount "
		 "RMWs, %.1f mm counter updates, %.1f tlb_flush_pending writes, %.1f TLB "
		 "flushes, %.1f PTE table allocations and frees, %.0f KiB cleared; %.1f reads "
		 "that waited for their device; %.1f PTEs reclaim cleared, %.1f points where "
		 "it flushed its deferred TLB batch",
		 rec->one_process ? "threads of one process" : "a process each",
		 n[PRED_EV_MMAP_PREFETCH], n[PRED_EV_VMA_REFCNT], n[PRED_EV_RSS],
		 n[PRED_EV_TLB_PENDING], n[PRED_EV_TLB_FLUSH], n[PRED_EV_PTE_TABLE],
		 clear_bytes(rec) / rec->pages, n[PRED_EV_IO_WAIT], n[PRED_EV_RMAP_UNMAP],
		 n[PRED_EV_TLB_BATCH]);
}

void pred_point_mm_describe(const struct pred_point *pt, char *buf, size_t len)
{
	const double *f = pt->ev_share;
	char clear[64];

	if (pt->bw_costed)
		snprintf(clear, sizeof(clear), "%.2f%%", 100 * f[PRED_EV_CLEAR]);
	else
		snprintf(clear, sizeof(clear), "not costed (no bandwidth in the profile)");
	snprintf(buf, len, "the address space's share of the CPUs' time at %d CPUs: mm counter "
		 "folds %.2f%%, tlb_flush_pending %.2f%%, TLB flushes %.2f%% (%.2f IPIs per 1000 "
		 "pages%s), reclaim's TLB flushes %.2f%%, PTE tables' pgtables_bytes %.2f%%, VMA refcount %.2f%%, "
		 "clearing's wait for memory %s; reads' waits for their device %.2f%%; lru_lock spin %.1f%%",
		 pt->cpus, 100 * f[PRED_EV_RSS], 100 * f[PRED_EV_TLB_PENDING],
		 100 * f[PRED_EV_TLB_FLUSH], 1000 * pt->ipis_per_page,
		 pt->ipi_costed ? "" : ", their line transfers only: no IPI time in the profile",
		 100 * (f[PRED_EV_RMAP_UNMAP] + f[PRED_EV_TLB_BATCH]),
		 100 * f[PRED_EV_PTE_TABLE], 100 * f[PRED_EV_VMA_REFCNT], clear,
		 100 * f[PRED_EV_IO_WAIT], 100 * pt->lru_wait_ns_per_page * pt->pages_per_sec / 1e9 / pt->cpus);
}

void pred_point_events_describe(const struct pred_point *pt, char *buf, size_t len)
{
	snprintf(buf, len, "shared lines besides the locks', per 1000 pages: %.1f vmstat folds "
		 "(stat_threshold %d for %d CPUs online), %.1f memcg batches to the atomic (flush "
		 "threshold %u), %.1f page_counter writes, %.1f stat reads of a line pair; their "
		 "transfers %.1f ns per page, writers' invalidations of lines read %.1f ns per page, "
		 "waits for a line another CPU's transfer held %.1f ns per page, holders' stalls "
		 "on section lines read in the section %.2f per page, %.1f ns per page",
		 pt->ev_per_page[PRED_EV_VMSTAT_FOLD] * 1000, pt->vmstat_threshold, pt->online,
		 pt->ev_per_page[PRED_EV_MEMCG_SPILL] * 1000,
		 MEMCG_CHARGE_BATCH * (unsigned int)pt->online,
		 pt->ev_per_page[PRED_EV_PAGE_COUNTER] * 1000, pt->ev_per_page[PRED_EV_PAIR_READ] * 1000,
		 pt->ev_xfer_ns_per_page, pt->inval_ns_per_page, pt->line_wait_ns_per_page,
		 pt->steals_per_page, pt->steal_ns_per_page);
}

void pred_point_free(struct pred_point *pt)
{
	free(pt->table.sites);
	pt->table.sites = NULL;
}

json_t *pred_point_json(const struct pred_recording *rec, const struct pred_profile *pf,
			const struct pred_point *pt)
{
	json_t *j = json_object(), *sw = json_array();
	char buf[128], *s, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", rec->switches);
	for (s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
		json_array_append_new(sw, json_string(s));
	json_object_set_new(j, "workload", json_string(rec->workload));
	json_object_set_new(j, "type", json_string(rec->type));
	json_object_set_new(j, "folio_size", json_integer(rec->folio_size));
	json_object_set_new(j, "machine", json_string(pf->name));
	json_object_set_new(j, "cpus", json_integer(pt->cpus));
	json_object_set_new(j, "online_cpus", json_integer(pt->online));
	/* the recorded run's spinlocks, which the simulation hands over as */
	json_object_set_new(j, "lock", json_string(lock_impl_name(rec->lock_impl)));
	json_object_set_new(j, "switches", sw);
	json_object_set_new(j, "predicted_pages_per_sec", json_real(pt->pages_per_sec));
	json_object_set_new(j, "band_low", json_real(pt->band_low));
	json_object_set_new(j, "band_high", json_real(pt->band_high));
	json_object_set_new(j, "lru_lock_wait_ns_per_page", json_real(pt->lru_wait_ns_per_page));
	json_object_set_new(j, "lru_lock_contended_per_page",
			    json_real(pt->lru_contended_per_page));
	json_object_set_new(j, "lru_lock_acquired_per_page", json_real(pt->lru_acquired_per_page));
	json_object_set_new(j, "twin_pages_per_sec", json_real(pt->twin_pages_per_sec));
	json_object_set_new(j, "bottleneck", json_string(pt->bottleneck));
	json_object_set_new(j, "bottleneck_load", json_real(pt->load));
	json_object_set_new(j, "recorded_threads", json_integer(rec->threads));
	json_object_set_new(j, "recordings", json_integer(pt->nr_recordings));
	{
		json_t *d = json_array();
		int i;

		for (i = 0; i < pt->nr_draws; i++)
			json_array_append_new(d, json_real(pt->draws[i]));
		json_object_set_new(j, "draws_pages_per_sec", d);
	}
	json_object_set_new(j, "recorded_pages_per_sec", json_real(rec->pages_per_sec));
	{
		json_t *e = json_object();

		json_object_set_new(e, "vmstat_folds", json_real(pt->ev_per_page[PRED_EV_VMSTAT_FOLD]));
		json_object_set_new(e, "memcg_batches",
				    json_real(pt->ev_per_page[PRED_EV_MEMCG_SPILL]));
		json_object_set_new(e, "page_counter_writes",
				    json_real(pt->ev_per_page[PRED_EV_PAGE_COUNTER]));
		json_object_set_new(e, "pair_reads", json_real(pt->ev_per_page[PRED_EV_PAIR_READ]));
		json_object_set_new(e, "transfer_ns", json_real(pt->ev_xfer_ns_per_page));
		json_object_set_new(e, "invalidation_ns", json_real(pt->inval_ns_per_page));
		json_object_set_new(e, "line_wait_ns", json_real(pt->line_wait_ns_per_page));
		json_object_set_new(e, "section_steals", json_real(pt->steals_per_page));
		json_object_set_new(e, "section_steal_ns", json_real(pt->steal_ns_per_page));
		json_object_set_new(j, "shared_line_events_per_page", e);
		e = json_object();
		json_object_set_new(e, "mm_counter_folds", json_real(pt->ev_share[PRED_EV_RSS]));
		json_object_set_new(e, "tlb_flush_pending", json_real(pt->ev_share[PRED_EV_TLB_PENDING]));
		json_object_set_new(e, "tlb_flushes", json_real(pt->ev_share[PRED_EV_TLB_FLUSH]));
		json_object_set_new(e, "reclaim_tlb_flushes",
				    json_real(pt->ev_share[PRED_EV_RMAP_UNMAP] +
					      pt->ev_share[PRED_EV_TLB_BATCH]));
		json_object_set_new(e, "pte_tables", json_real(pt->ev_share[PRED_EV_PTE_TABLE]));
		json_object_set_new(e, "vma_refcount", json_real(pt->ev_share[PRED_EV_VMA_REFCNT]));
		json_object_set_new(e, "clear_memory_wait",
				    pt->bw_costed ? json_real(pt->ev_share[PRED_EV_CLEAR]) : json_null());
		json_object_set_new(e, "ipis_per_page", json_real(pt->ipis_per_page));
		json_object_set_new(e, "device_read_wait", json_real(pt->ev_share[PRED_EV_IO_WAIT]));
		json_object_set_new(j, "mm_share_of_cpu_time", e);
		json_object_set_new(j, "vmstat_threshold", json_integer(pt->vmstat_threshold));
	}
	/* as a bench run's "locks", per simulated second */
	json_object_set_new(j, "locks", bench_sites_json(&pt->table));
	return j;
}
