// SPDX-License-Identifier: MIT
/*
 * A recording gathered: the per-CPU buffers of predict/record.c turned
 * into traces with dense site, lock and line indices, each lock's scope,
 * and the stretches a busy machine took the processor away replaced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/cpu.h>
#include <lrulab/memcontrol.h>
#include "predict/predict.h"

#include "record-internal.h"

static void drop_preemptions(struct pred_recording *rec);
/* ---- gathering ---- */

void pred_recording_free(struct pred_recording *rec)
{
	int i;

	for (i = 0; rec->traces && i < rec->nr_traces; i++) {
		free(rec->traces[i].ops);
		free(rec->traces[i].events);
	}
	free(rec->traces);
	free(rec->sites);
	free(rec->locks);
	memset(rec, 0, sizeof(*rec));
}

/*
 * The class rule for a recording of one thread, which cannot show
 * sharing: per-CPU page lists, and what each thread of the recordable
 * workloads (fault-free, mmap-madvise, usemem) has of its own: its page
 * tables, its shmem file's page cache and mapping tree, and the swap
 * clusters it allocates slots from (a CPU takes a cluster of its own,
 * as swap_alloc_fast() does).  A recording of two or more threads shows
 * which locks they shared instead.
 */
static enum pred_scope class_scope(const char *cls)
{
	static const char *const private_cls[] = { "pcp->lock", "ptl", "page_table_lock",
						   "i_pages", "i_mmap_lock", "swap_cluster" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(private_cls); i++)
		if (!strcmp(cls, private_cls[i]))
			return PRED_PRIVATE;
	return PRED_SHARED;
}

static int add_line(uintptr_t *tab, u32 *n, uintptr_t line)
{
	u32 i;

	for (i = 0; i < *n; i++)
		if (tab[i] == line)
			return (int)i;
	tab[*n] = line;
	return (int)(*n)++;
}

static int gather_locks(struct pred_recording *rec, const u32 *users, int *map,
			uintptr_t *lines, u32 *nr_lines)
{
	u32 i, nl = 0;
	int n = 0, j;

	rec->locks = calloc(rec_nr_locks + 2, sizeof(*rec->locks));
	if (!rec->locks)
		return -ENOMEM;
	for (i = 0; i <= rec_nr_locks; i++) {
		const struct rec_lock *rl = &rec_locks[i];
		struct pred_lock *pl;

		if (!users[i])
			continue;
		map[i] = n;
		pl = &rec->locks[n++];
		pl->cls_site = (u16)(rl->site >= 0 ? rl->site : 0);
		if (i == rec_nr_locks)	/* the overflow lock */
			pl->scope = PRED_SHARED;
		else if (rec->nr_traces >= 2)
			pl->scope = users[i] >= 2 ? PRED_SHARED : PRED_PRIVATE;
		else
			pl->scope = class_scope(rec->sites[pl->cls_site].cls);
		for (j = 0; i < rec_nr_locks && j < rl->nr_lines; j++)
			pl->lines[pl->nr_lines++] = (u32)add_line(lines, &nl, rl->lines[j]);
	}
	rec->nr_locks = n;
	*nr_lines = nl;
	return 0;
}

/*
 * An event in an outer section after an inner one closed goes with the
 * outer acquisition, which is earlier: the replay and the file want them
 * by acquisition.  Stable, and nearly sorted already: an insertion sort.
 */
static void sort_events(struct pred_trace *tr)
{
	u32 i, j;

	for (i = 1; i < tr->nr_events; i++) {
		struct pred_event e = tr->events[i];

		for (j = i; j > 0 && tr->events[j - 1].op > e.op; j--)
			tr->events[j] = tr->events[j - 1];
		tr->events[j] = e;
	}
}

/*
 * An address-space event.  The model's threads each have an mm of their
 * own, the predicted runs' threads share one (pred_recording.one_process
 * says which): a line of the mm is named by its place in the mm (line
 * ids no address can have, the top bit set), so every thread's is the
 * same line; a VMA's refcount line (no mm) keeps its address, and the
 * event says whether the process's threads fault that one VMA (the mm
 * merged their ranges, or would merge the next thread's into it).  The mm counters fold per counter, so each is a
 * counter too.  A clear and a device's wait write no line: a fixed id stands in.
 */
#define MM_LINE_TAG	((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1))

static void gather_mm_event(const struct rec_event *e, struct pred_event *pe, uintptr_t *lines,
			    u32 *nl, uintptr_t *counters, u32 *nc)
{
	uintptr_t key = e->addr >> 6;

	if (e->addr2)
		key = MM_LINE_TAG | ((e->addr >> 6) - (e->addr2 >> 6));
	if (e->kind == PRED_EV_CLEAR || e->kind == PRED_EV_IO_WAIT || e->kind == PRED_EV_TLB_BATCH ||
	    e->kind == PRED_EV_RMAP_UNMAP)
		key = MM_LINE_TAG - 1;
	pe->line = (u32)add_line(lines, nl, key);
	pe->line2 = PRED_NO_LINE;
	pe->counter = e->kind == PRED_EV_RSS ? (u32)add_line(counters, nc, key) : 0;
	pe->arg = e->arg;
	/* a flush's freed tables; a VMA line's: the process's threads share it */
	pe->threshold = e->kind == PRED_EV_TLB_FLUSH || e->kind == PRED_EV_VMA_REFCNT ?
			(e->threshold ? 1 : 0) : 0;
	pe->step = 0;
}

/*
 * The events of model CPU @cpu into @tr, lines made dense in @lines; an
 * event after the trace's last acquisition goes with none and is left
 * out.
 */
static int gather_events(int cpu, struct pred_trace *tr, uintptr_t *lines, u32 *nl,
			 uintptr_t *counters, u32 *nc)
{
	u32 n = pred_record_events_len(cpu), i;

	tr->events = malloc((n + 1) * sizeof(*tr->events));
	if (!tr->events)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct rec_event *e = pred_record_event_at(cpu, i);
		struct pred_event *pe = &tr->events[tr->nr_events];

		if (e->op >= tr->nr)
			continue;
		pe->op = e->op;
		pe->kind = e->kind;
		pe->inside = e->inside;
		pe->threshold = e->threshold;
		pe->step = e->step;
		pe->arg = e->arg;
		if (e->kind >= PRED_EV_MMAP_PREFETCH) {
			gather_mm_event(e, pe, lines, nl, counters, nc);
			tr->nr_events++;
			continue;
		}
		pe->line = (u32)add_line(lines, nl, e->addr >> 6);
		pe->line2 = e->addr2 ? (u32)add_line(lines, nl, e->addr2 >> 6) : PRED_NO_LINE;
		if (e->kind == PRED_EV_PAIR_READ) {
			uintptr_t l = e->addr >> 6;

			/*
			 * The pair partner as placed, and the other neighbour:
			 * the partner had the object sat 64 bytes the other way.
			 * Addresses make the ids, so a lock's line is the same id.
			 */
			pe->line2 = (u32)add_line(lines, nl, l ^ 1);
			pe->arg = (u32)add_line(lines, nl, l & 1 ? l + 1 : l - 1);
		}
		/* one diff per counter: counters that share a line fold apart */
		pe->counter = e->kind == PRED_EV_VMSTAT_FOLD ? (u32)add_line(counters, nc, e->addr) : 0;
		tr->nr_events++;
	}
	sort_events(tr);
	return 0;
}

static uintptr_t *line_table(void)
{
	u64 n = (u64)rec_nr_locks * PRED_MAX_LINES + 1;
	int c;

	for (c = 0; c < LRULAB_MAX_CPUS - 1; c++)
		n += 3ULL * pred_record_events_len(c);
	return malloc(n * sizeof(uintptr_t));
}

int pred_record_stop(struct pred_recording *rec)
{
	u32 *users = calloc(rec_nr_locks + 1, sizeof(*users));
	int *map = calloc(rec_nr_locks + 1, sizeof(*map));
	int c, t = 0, nsites = lockstat_nr_sites(), i, err = -ENOMEM;
	uintptr_t *lines = line_table(), *counters = line_table();
	int cpu_of[LRULAB_MAX_CPUS];

	pred_record_probes(false);
	memset(rec, 0, sizeof(*rec));
	rec->traces = calloc(LRULAB_MAX_CPUS, sizeof(*rec->traces));
	rec->sites = calloc(nsites + 1, sizeof(*rec->sites));
	if (!users || !map || !lines || !counters || !rec->traces || !rec->sites)
		goto out;
	rec->nr_sites = nsites;
	for (i = 0; i < nsites; i++) {
		const struct lock_site *s = lockstat_site(i);

		snprintf(rec->sites[i].cls, sizeof(rec->sites[i].cls), "%s", s->cls);
		snprintf(rec->sites[i].caller, sizeof(rec->sites[i].caller), "%s", s->caller);
		snprintf(rec->sites[i].fn, sizeof(rec->sites[i].fn), "%s", s->fn);
	}
	/* the overhead thread's slot is not a model CPU */
	for (c = 0; c < LRULAB_MAX_CPUS - 1; c++) {
		u32 n = pred_record_trace_len(c), k;
		struct pred_trace *tr = &rec->traces[t];
		bool *seen;

		if (!n)
			continue;
		tr->ops = malloc(n * sizeof(*tr->ops));
		seen = calloc(rec_nr_locks + 1, 1);
		if (!tr->ops || !seen) {
			free(seen);
			goto out;
		}
		pred_record_trace_copy(c, tr->ops);
		tr->nr = n;
		for (k = 0; k < n; k++) {
			if (!seen[tr->ops[k].lock]) {
				seen[tr->ops[k].lock] = true;
				users[tr->ops[k].lock]++;
			}
		}
		free(seen);
		cpu_of[t++] = c;
	}
	rec->nr_traces = t;
	err = gather_locks(rec, users, map, lines, &rec->nr_lines);
	for (c = 0; !err && c < t; c++)
		err = gather_events(cpu_of[c], &rec->traces[c], lines, &rec->nr_lines,
				    counters, &rec->nr_counters);
	if (err)
		goto out;
	rec->flush_period_ns = mem_cgroup_flush_period_ns();
	for (c = 0; c < t; c++) {
		u32 k;

		for (k = 0; k < rec->traces[c].nr; k++)
			rec->traces[c].ops[k].lock = (u16)map[rec->traces[c].ops[k].lock];
	}
	rec->clock_cost_ns = (u32)lrulab_clock_cost_ns();
	rec->overhead_ns = rec_overhead_ns;
	drop_preemptions(rec);
	err = 0;
out:
	free(users);
	free(map);
	free(lines);
	free(counters);
	pred_record_reset();
	if (err)
		pred_recording_free(rec);
	return err;
}

/*
 * No stretch of these workloads between two lock operations takes half
 * a millisecond: one that does is the thread losing its processor (a
 * timer tick handing it to another task on a shared machine), not the
 * workload.  A kernel spinlock's holder cannot lose its processor
 * (preemption is off), so a hold over twenty times its site's mean (and
 * over 20 us) is the same accident.  Either becomes its site's mean of
 * the others, and the count is kept with the recording.
 */
#define PREEMPT_NS	500000U
#define HOLD_FACTOR	20
#define HOLD_FLOOR_NS	20000U

struct site_sums {
	double work, works, hold, holds;
};

static void site_means(const struct pred_recording *rec, struct site_sums *m, double *limit)
{
	int i;
	u32 k;

	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr; k++) {
			const struct pred_op *op = &rec->traces[i].ops[k];
			struct site_sums *s = &m[op->site];

			if (op->work_ns < PREEMPT_NS)
				s->work += op->work_ns, s->works++;
			if (op->hold_ns < limit[op->site])
				s->hold += op->hold_ns, s->holds++;
		}
}

static void drop_preemptions(struct pred_recording *rec)
{
	struct site_sums *m = calloc(rec->nr_sites + 1, sizeof(*m));
	double *limit = calloc(rec->nr_sites + 1, sizeof(*limit));
	int i;
	u32 k;

	if (!m || !limit)
		goto out;
	for (i = 0; i <= rec->nr_sites; i++)
		limit[i] = PREEMPT_NS;
	site_means(rec, m, limit);
	/* the means without what the first bound caught, then the tighter bound */
	for (i = 0; i < rec->nr_sites; i++) {
		double mean = m[i].holds ? m[i].hold / m[i].holds : 0;

		limit[i] = HOLD_FACTOR * mean > HOLD_FLOOR_NS ? HOLD_FACTOR * mean : HOLD_FLOOR_NS;
		if (limit[i] > PREEMPT_NS)
			limit[i] = PREEMPT_NS;
	}
	memset(m, 0, (rec->nr_sites + 1) * sizeof(*m));
	site_means(rec, m, limit);
	for (i = 0; i < rec->nr_traces; i++)
		for (k = 0; k < rec->traces[i].nr; k++) {
			struct pred_op *op = &rec->traces[i].ops[k];
			const struct site_sums *s = &m[op->site];

			if (op->work_ns >= PREEMPT_NS) {
				op->work_ns = s->works ? (u32)(s->work / s->works) : 0;
				rec->preemptions++;
			}
			if (op->hold_ns >= limit[op->site]) {
				op->hold_ns = s->holds ? (u32)(s->hold / s->holds) : 0;
				rec->preemptions++;
			}
		}
out:
	free(m);
	free(limit);
}
