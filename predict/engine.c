// SPDX-License-Identifier: MIT
/*
 * The discrete-event simulation behind `lrulab predict`: N virtual CPUs,
 * each replaying a sequence of lock acquisitions (work outside the
 * locks, then a request, a grant, a hold, a release), on locks that
 * queue and hand over as each implementation does, with critical
 * sections that grow by the cache lines they must fetch from the CPU
 * that wrote them last.
 *
 * Besides the locks' lines, a recorded thread writes shared lines the
 * kernel makes rarer with thresholds that grow with the CPU count
 * (recorded events, predict/record.c): a vmstat fold happens when a
 * CPU's diff passes stat_threshold, which calculate_normal_threshold()
 * makes grow with the CPUs online; a memcg's stats_updates atomic takes
 * batches until it holds more than MEMCG_CHARGE_BATCH per CPU, then
 * waits for the flush.  Each is recomputed for the target's CPUs
 * online, which are the machine's whatever N runs (online: 20 threads
 * on an 80-CPU machine fold as 80 online CPUs make them): a fold
 * recorded under threshold t stands for the updates between two folds
 * under t, so a CPU folds I(t)/I(t_N) times per recorded fold
 * (I: pred_fold_interval()), kept by a per-CPU credit counted in whole
 * updates, exact and deterministic; a recorded memcg batch writes its
 * atomic only while the atomic is at most 64 per CPU online, and the atomic empties
 * every flush period of simulated time (batches the recording's own
 * pending flush held back are not recorded: with more CPUs than recorded
 * the atomic would take up to N + 1 batches a period instead of the
 * recording's few, a handful of transfers a second).  A kept event fetches its lines from their
 * last writer, through the same owner table as the locks' lines: inside
 * a hold it stretches the hold, outside it lengthens the work.
 *
 * Reads share a line instead of taking it.  A memcg stat update reads a
 * line of mem_cgroup_per_node; a CPU that prefetches 128-byte pairs (the
 * profile's adjacent_line_prefetch) fetches its partner too when that
 * read misses, and the partner may be a line lru_lock's holders write.
 * The read-mostly line itself no CPU writes, so a reader holds it from
 * its first read on, unless a store's miss on its partner takes the pair
 * whole (the profile's pair_rfo: the s3 mail's c2c found the line no CPU
 * writes taking a third of all HITMs), which drops every other copy of
 * it.  Each line keeps the set of CPUs
 * holding a copy since its last write.  A read of a line another CPU
 * wrote last costs the reader a transfer, unless it holds a copy, and
 * adds it to the set; the first such read waits its turn at the line
 * (the owner forwards it), the ones after it find the line clean and
 * are served side by side.  The next write of a shared line drops every
 * copy at once and waits for the farthest ack (one invalidation, a
 * transfer between the writer and its farthest sharer), even when the
 * writer owned the line: a lock's section pays it when it is granted,
 * once per line and hold, as it pays the line's transfer.  A holder
 * writes its section's lines all through the section (a list head per
 * folio), so a read of one while its section runs is a steal: the
 * holder's next store must take the line back and drop the copy, and as
 * each folio's flag bit is a locked op that waits for the store buffer
 * to drain, the section waits for it.  That is the line's next transfer
 * after the reader's; the release comes that much later.  Readers that
 * come before the holder has it back share the first one's copy, and
 * the holder's store drops them all, so a section pays one steal per
 * such window, and the line serving one transfer at a time bounds them
 * (charging one per reader, before the line kept its sharers, made the
 * holds run away at 20 CPUs).
 *
 * The address space's events (mm/memory.c) are costed where the kernel
 * pays them when the CPUs are threads of one process (one_process): the
 * mm's lines are one line for every CPU, written through the owner
 * table (tlb_flush_pending, the flush generation, pgtables_bytes; an mm
 * counter's shared count when the CPU's per-CPU delta passes the
 * percpu_counter batch for the CPUs online, max(32, 2 online)); a fault's
 * prefetch of mmap_lock's line takes the line without stalling the
 * fault, so it costs the next writer a transfer and the line's time, not
 * the prefetcher; a VMA's refcount line is the thread's own unless the
 * recording says the threads fault one VMA (the mm merges adjacent
 * anonymous ranges: the event's flag), or shared_vma asks as a what-if.
 * Taking the VMA's read lock reads the count and then cmpxchgs it, two
 * fetches of the line; dropping it is one atomic (the cmpxchg's retries,
 * when another CPU wrote the line between the two, are not modelled: one
 * event's fetches are costed together).  The events of an op's work are
 * costed when the CPU reaches them, spread evenly through the work (the
 * recording keeps their order, not their times), so a fault's drop and
 * the next fault's take are two visits to the line, with the other
 * CPUs' in between, as in the kernel.  A TLB flush is an IPI
 * round to every other CPU, which all run the mm: the flusher writes
 * each target's call queue line (a transfer from the target, one after
 * another), each target fetches it back and acks on the flusher's line
 * (two transfers and the profile's handler time, if it gives one,
 * charged to the target's next work: interrupts wait for a hold's end),
 * and the flusher waits for the slowest ack to come back (one more).
 * Clearing a page is memory traffic: each socket's DRAM serves one
 * clear at a time at the profile's bandwidth, and a clear that finds it
 * busy waits (the clearing itself is in the recorded work); a profile
 * without a bandwidth leaves it out.
 *
 * The kernel keeps a memcg's lruvec and mem_cgroup_per_node, a zone and
 * a pgdat per NUMA node; a socket of the topology is a node.  Where the
 * options mark a lock or a line per node (the model marks lru_lock's,
 * cost_lock's, zone->lock's and the lines of their sections and of the
 * objects' stat updates), each node has its own instance and its own
 * copy of the line, and a CPU takes its node's: a thread pinned to a
 * socket faults and frees its node's memory.  So two sockets make two
 * lru_locks, each with its socket's CPUs waiting and in-socket
 * transfers; the memcg's page_counter, its stats_updates and the mm's
 * lines stay one for the machine.
 *
 * A CPU has at most one pending event (its work or its hold ending); a
 * CPU that waits for a lock has none and is woken by the releaser, so
 * the heap never holds more than N entries and an acquisition costs two
 * heap operations.  Ties are broken by the order events were scheduled,
 * so a seed gives the same result on every machine.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/memcontrol.h>
#include "predict/predict.h"
#include <lrulab/vmstat.h>

enum { EV_REQUEST, EV_RELEASE, EV_STEP };

struct event {
	double t;
	u64 seq;
	int cpu, type;
};

struct vcpu {
	struct pred_op op;
	const struct pred_event *ev;	/* op's events */
	u32 nr_ev;
	int inst;		/* lock instance of op */
	double t_req;		/* when op's request was made */
	double hold;		/* op's hold, once granted */
	int sibling;		/* the SMT sibling's index among the CPUs, -1: none */
	bool spinning;		/* queued for a lock: waiting, not running code */
	double irq_debt;	/* IPI handler time owed, taken at its next work */
	double asleep_until;	/* a read's wait for its device: lazy for TLB flushes */
	double hold_extra;	/* its section's stalls on lines others took meanwhile */
	u32 ev_at;		/* the next of op's events to look at in its work */
	u32 steps_left;		/* events of op's work not yet reached */
	double step;		/* the work between two of them */
	u64 releases;		/* counted ones */
	double first_rel, last_rel;
};

struct lock_inst {
	int holder;		/* -1: free */
	int word_owner;		/* the CPU that last wrote the lock word, -1: none */
	int nr_wait;
	int head;		/* FIFO ring of waiters (qspinlock, ticket) */
	int *wait;		/* cpus entries */
	int in_sys;		/* holder and waiters, for the time average */
	double t_last;
	int lock;		/* recording's lock index */
	int cpu;		/* the owning CPU of a private instance, else -1 */
};

struct sim {
	const struct pred_sim_opts *o;
	struct event *heap;
	int nr_ev;
	u64 seq;
	struct vcpu *v;
	struct lock_inst *li;
	int nr_inst;
	/*
	 * Per line slot: a per-node line has a slot per node (node k's at
	 * k (nr_lines + 1) + line), any other line the one of node 0.
	 */
	int nr_nodes;
	u32 nr_slots;
	int *line_owner;
	/* per line, a bit per CPU: the CPUs holding a copy read since its last write */
	u64 *line_sharers;
	int sharer_words;
	double *line_busy;	/* the end of the line's last transfer: it serves one at a time */
	int *line_held;		/* the CPU whose section writes the line now, -1: none */
	double *line_rfo;	/* when its holder's store gets it back from a reader, 0: none */
	u32 *credit;		/* per CPU and counter: updates towards the next fold */
	u32 *memcg_pending;	/* per line: a memcg's stats_updates since its flush */
	int *rss_local;		/* per CPU and counter: the percpu_counter delta */
	double *mem_busy;	/* per socket: when its memory ends the last clear */
	u64 *tlb_pending;	/* per CPU, a bit per CPU: its reclaim's deferred flush */
	int nr_sockets;
	double next_flush;
	u64 rnd;
	bool counting;
	double t0;
	u64 counted, done;
	struct pred_result *r;
};

/* ---- heap ---- */

static bool ev_before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void heap_push(struct sim *s, double t, int cpu, int type)
{
	int i = s->nr_ev++;
	struct event e = { t, s->seq++, cpu, type };

	while (i) {
		int p = (i - 1) / 2;

		if (!ev_before(&e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

static struct event heap_pop(struct sim *s)
{
	struct event top = s->heap[0], last = s->heap[--s->nr_ev];
	int i = 0, n = s->nr_ev;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ev_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
	return top;
}

static u64 sim_rand(struct sim *s)
{
	u64 x = s->rnd;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->rnd = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* ---- costs ---- */

static double xfer(const struct sim *s, int from, int to)
{
	const struct pred_costs *c = s->o->costs;
	const struct pred_cpu *a, *b;

	if (from < 0 || from == to)
		return 0;
	if (!s->o->topo)
		return c->xfer_socket;
	a = &s->o->topo[from];
	b = &s->o->topo[to];
	if (a->socket != b->socket)
		return c->xfer_remote;
	if (a->core == b->core)
		return c->xfer_smt;
	return c->xfer_socket;
}

static const struct pred_lock *lock_of(const struct sim *s, int lock)
{
	return s->o->locks && lock < s->o->nr_locks ? &s->o->locks[lock] : NULL;
}

/* A CPU's NUMA node: its socket, where the kernel's objects are per node. */
static int cpu_node(const struct sim *s, int cpu)
{
	return s->nr_nodes > 1 ? s->o->topo[cpu].socket : 0;
}

/* The slot of recorded @line that @cpu touches: its node's copy of a per-node line. */
static u32 line_slot(const struct sim *s, int cpu, u32 line)
{
	if (s->nr_nodes < 2 || !s->o->line_node || !s->o->line_node[line])
		return line;
	return (u32)cpu_node(s, cpu) * (s->o->nr_lines + 1) + line;
}

static int instance(const struct sim *s, int cpu, int lock)
{
	const struct pred_lock *l = lock_of(s, lock);
	int node;

	if (l && l->scope == PRED_PRIVATE)
		return s->o->nr_locks + lock * s->o->cpus + cpu;
	node = s->o->lock_node && s->o->lock_node[lock] ? cpu_node(s, cpu) : 0;
	if (node)
		return s->o->nr_locks * (1 + s->o->cpus) + lock * (s->nr_nodes - 1) + node - 1;
	return lock;
}

static double write_cost(struct sim *s, int cpu, u32 line, double t);

/*
 * The time multiplier of a stretch of work or a hold @cpu starts now: a
 * core's two threads share its pipeline, so each runs at smt_speed while
 * the other runs code, but a sibling queued for a lock spins on PAUSE,
 * which hands the core's resources to the other thread (Intel's
 * optimization manual, "spin-wait loops"), so the thread then runs at
 * full speed.  The sibling's state is taken as the stretch starts.
 */
static double speed_now(const struct sim *s, int cpu)
{
	int sib = s->v[cpu].sibling;

	if (sib < 0 || s->o->costs->smt_speed <= 0 || s->v[sib].spinning)
		return 1;
	return 1 / s->o->costs->smt_speed;
}

/*
 * The hold as this CPU runs it from @t: the recorded hold at this CPU's
 * speed, plus a transfer for every line of the section another CPU wrote
 * last (and an invalidation for every one another CPU read since), one
 * after another.  A private lock's lines are the CPU's own.
 */
static double hold_time(struct sim *s, int cpu, struct lock_inst *L, double t, double *lines)
{
	const struct pred_lock *l = lock_of(s, L->lock);
	const struct pred_costs *c = s->o->costs;
	struct vcpu *v = &s->v[cpu];
	double h = v->op.hold_ns * c->hold_scale * speed_now(s, cpu);
	int i;

	*lines = 0;
	if (c->lock_hold_scale && L->lock < s->o->nr_locks)
		h *= c->lock_hold_scale[L->lock];
	if (!l || l->scope == PRED_PRIVATE)
		return h;
	for (i = 0; i < l->nr_lines; i++) {
		u32 slot;

		if (l->lines[i] > s->o->nr_lines)
			continue;
		slot = line_slot(s, cpu, l->lines[i]);
		*lines += write_cost(s, cpu, slot, t + *lines);
		s->line_held[slot] = cpu;
	}
	return h + *lines;
}

static double section_events_cost(struct sim *s, int cpu, double t);

/* A private lock's hold has only its events' lines to fetch. */
static double hold_with_events(struct sim *s, int cpu, struct lock_inst *L, double t)
{
	double lines, h = hold_time(s, cpu, L, t, &lines);

	/* the section's events after its lines */
	if (s->v[cpu].nr_ev)
		h += section_events_cost(s, cpu, t + lines);
	return h;
}

double pred_handoff(enum lock_impl impl, const struct pred_costs *c, double x, double k)
{
	switch (impl) {
	case LOCK_TICKET:
		return x + c->ticket_slope * k;
	case LOCK_TAS:
	case LOCK_PTHREAD_SPIN:
		return x * (1 + c->tas_beta * k);
	default:
		return x + c->handoff_qspin;
	}
}

/* The time from a release to the next holder's grant, @k waiters queued. */
static double handoff(struct sim *s, int from, int to, int k)
{
	return pred_handoff(s->o->impl, s->o->costs, xfer(s, from, to), k);
}

/* ---- shared lines outside the locks' ---- */

#define CREDIT_UNSET	0xffffffffU

u32 pred_fold_interval(int threshold, int step)
{
	if (threshold < 0)
		threshold = 0;
	if (!step)
		return (u32)(threshold + (threshold >> 1) + 1);
	return (u32)(threshold / step + 1);
}

/* num_online_cpus() on the target, which the kernel's thresholds read */
static int online_cpus(const struct sim *s)
{
	return s->o->online > s->o->cpus ? s->o->online : s->o->cpus;
}

/*
 * How many folds a CPU makes at N where the recording made this one:
 * the recorded fold stands for I(t) updates, a fold at N takes I(t_N).
 * A zone the recording gave threshold 0 (no managed pages) keeps it.
 */
static u32 folds_at_n(struct sim *s, int cpu, const struct pred_event *e)
{
	u32 *c = &s->credit[(size_t)cpu * (s->o->nr_counters + 1) +
			    (e->counter < s->o->nr_counters ? e->counter : s->o->nr_counters)];
	u32 rec = pred_fold_interval(e->threshold, e->step), at_n, n;
	int t = e->threshold;

	if (t)
		t = vmstat_normal_threshold(online_cpus(s), (unsigned long)e->arg << (27 - PAGE_SHIFT));
	at_n = pred_fold_interval(t, e->step);
	/* with a seed, each CPU's diff starts at its own place of the cycle */
	if (*c == CREDIT_UNSET)
		*c = (u32)(sim_rand(s) % at_n);
	*c += rec;
	n = *c / at_n;
	*c -= n * at_n;
	return n;
}

/* Whether a batch reaches the memcg's atomic: not once it is over 64 per CPU online. */
static bool memcg_batch_at_n(struct sim *s, double t, const struct pred_event *e)
{
	double period = s->o->flush_period_ns ? (double)s->o->flush_period_ns : FLUSH_TIME_NS;
	u32 *v = &s->memcg_pending[e->line];

	if (t >= s->next_flush) {
		memset(s->memcg_pending, 0, (s->o->nr_lines + 1) * sizeof(*s->memcg_pending));
		s->next_flush = (floor(t / period) + 1) * period;
	}
	if (*v > MEMCG_CHARGE_BATCH * (u32)online_cpus(s))
		return false;
	*v += e->arg;
	return true;
}

/*
 * A transfer of @x to a CPU asking at @t: a line serves one requester at
 * a time, so it starts when the line's previous transfer has ended; the
 * wait and the transfer together.  Without @serve the transfer does not
 * hold the line up for the next one: a read of a line already shared is
 * served from its clean copy beside the others, and waits only for a
 * transfer in flight (a write's).
 */
static double line_take(struct sim *s, u32 line, double t, double x, bool serve)
{
	double start = s->line_busy[line] > t ? s->line_busy[line] : t;

	if (x <= 0)
		return 0;
	if (serve)
		s->line_busy[line] = start + x;
	return start + x - t;
}

/* line_take() for a CPU that waits for the line: its wait counted */
static double line_fetch(struct sim *s, u32 line, double t, double x, bool serve)
{
	double y = line_take(s, line, t, x, serve);

	if (y > 0 && s->counting)
		s->r->line_wait_ns += y - x;
	return y;
}

static u64 *sharers(struct sim *s, u32 line)
{
	return &s->line_sharers[(size_t)line * s->sharer_words];
}

static bool is_sharer(struct sim *s, u32 line, int cpu)
{
	return sharers(s, line)[cpu / 64] >> (cpu % 64) & 1;
}

static bool has_sharers(struct sim *s, u32 line)
{
	const u64 *w = sharers(s, line);
	int i;

	for (i = 0; i < s->sharer_words; i++)
		if (w[i])
			return true;
	return false;
}

/*
 * The copies of @line other than @cpu's dropped: the invalidations go out
 * together and the writer waits for the slowest ack, one transfer from
 * the farthest sharer.
 */
static double invalidate(struct sim *s, int cpu, u32 line)
{
	u64 *w = sharers(s, line);
	double inv = 0;
	int i, b;

	for (i = 0; i < s->sharer_words; i++) {
		u64 m = w[i];

		for (; m; m &= m - 1) {
			double x;

			b = i * 64 + __builtin_ctzll(m);
			x = b != cpu ? xfer(s, b, cpu) : 0;
			if (x > inv)
				inv = x;
		}
		w[i] = 0;
	}
	if (inv > 0 && s->counting) {
		s->r->invalidations++;
		s->r->inval_ns += inv;
	}
	return inv;
}

static void rfo_done(struct sim *s, u32 line, double t);

/*
 * On a pair_rfo machine a store's miss on slot @line takes its pair
 * partner too, as the prefetcher completes the pair: the partner becomes
 * @cpu's and the other copies are dropped, at no wait of @cpu's.
 */
static void pair_take(struct sim *s, int cpu, u32 line)
{
	u32 id, p;

	if (!s->o->costs->pair_rfo || !s->o->line_partner)
		return;
	id = line % (s->o->nr_lines + 1);
	p = s->o->line_partner[id];
	if (p == PRED_NO_LINE || p > s->o->nr_lines)
		return;
	p = line_slot(s, cpu, p);
	if (s->line_held[p] >= 0 && s->line_held[p] != cpu)
		return;
	memset(sharers(s, p), 0, s->sharer_words * sizeof(u64));
	s->line_rfo[p] = 0;
	s->line_owner[p] = cpu;
}

/* A write at @t: the line from its last writer, and its readers' copies invalidated. */
static double write_cost(struct sim *s, int cpu, u32 line, double t)
{
	double x;
	bool missed;

	rfo_done(s, line, t);
	missed = s->line_owner[line] != cpu || has_sharers(s, line);
	x = line_fetch(s, line, t, xfer(s, s->line_owner[line], cpu), true);

	x += invalidate(s, cpu, line);
	s->line_owner[line] = cpu;
	if (missed)
		pair_take(s, cpu, line);
	return x;
}

static double write_line(struct sim *s, int cpu, u32 line, double t)
{
	double x;

	if (line == PRED_NO_LINE || line > s->o->nr_lines)
		return 0;
	x = write_cost(s, cpu, line_slot(s, cpu, line), t);
	if (x > 0 && s->counting)
		s->r->ev_xfers++;
	return x;
}

/*
 * @cpu took a copy of @line, which @holder's section writes, at @t: the
 * holder's next store to it must get it back, its copies dropped, before
 * the section goes on (a locked op, the next folio's flag bit, waits for
 * the store buffer to drain).  That is the line's next transfer, after
 * the reader's, and the holder's release comes that much later.  Readers
 * that come before it ends share the copy; it drops them all.
 */
static void steal(struct sim *s, int cpu, int holder, u32 line, double t)
{
	double y = line_take(s, line, t, xfer(s, cpu, holder), true);

	pair_take(s, holder, line);
	s->line_rfo[line] = t + y;
	s->v[holder].hold_extra += y;
	if (s->counting) {
		s->r->steals++;
		s->r->steal_ns += y;
	}
}

/* A holder's pending store to @line got it back by @t: the copies are gone. */
static void rfo_done(struct sim *s, u32 line, double t)
{
	if (s->line_rfo[line] > 0 && t >= s->line_rfo[line]) {
		memset(sharers(s, line), 0, s->sharer_words * sizeof(u64));
		s->line_rfo[line] = 0;
	}
}

/* A read by @cpu at @t: free when the line is its own or it holds a copy. */
static double read_line_miss(struct sim *s, int cpu, u32 line, double t, bool *miss)
{
	int owner;
	double x;

	*miss = false;
	if (line == PRED_NO_LINE || line > s->o->nr_lines)
		return 0;
	line = line_slot(s, cpu, line);
	rfo_done(s, line, t);
	owner = s->line_owner[line];
	if (owner < 0 || owner == cpu || is_sharer(s, line, cpu))
		return 0;
	*miss = true;
	if (s->line_rfo[line] > 0) {
		/* a copy another reader took from the holder, before the holder takes it back */
		x = xfer(s, owner, cpu);
	} else {
		/* the first read since the write waits its turn; the others share its copy */
		x = line_fetch(s, line, t, xfer(s, owner, cpu), !has_sharers(s, line));
		if (s->line_held[line] == owner)
			steal(s, cpu, owner, line, t + x);
	}
	sharers(s, line)[cpu / 64] |= 1ULL << (cpu % 64);
	if (x > 0 && s->counting)
		s->r->ev_xfers++;
	return x;
}

static double read_line(struct sim *s, int cpu, u32 line, double t)
{
	bool miss;

	return read_line_miss(s, cpu, line, t, &miss);
}

/*
 * A pair read: the line, and with pair prefetch its partner in this
 * placement, which the prefetcher fetches only when the line itself
 * missed: a reader that holds the line never asks for it.  A line no
 * CPU writes is held from the first read on, unless a write of its
 * partner takes it (pair_rfo).
 */
static double pair_read(struct sim *s, int cpu, const struct pred_event *e, double t)
{
	bool miss;
	double x = read_line_miss(s, cpu, e->line, t, &miss);

	if (s->o->costs->pair_prefetch && miss)
		x += read_line(s, cpu, s->o->other_placement ? e->arg : e->line2, t + x);
	return x;
}

/* ---- the address space's events ---- */

/* The kernel's percpu_counter_batch for @cpus online: max(32, 2 @cpus). */
static int rss_batch(int cpus)
{
	return 2 * cpus > 32 ? 2 * cpus : 32;
}

/*
 * An mm counter's change on @cpu: its per-CPU delta takes it, and folds
 * into the shared count (a write of the counter's line) once it reaches
 * the batch, as percpu_counter_add_batch() does.
 */
static bool rss_folds(struct sim *s, int cpu, const struct pred_event *e)
{
	int *d = &s->rss_local[(size_t)cpu * (s->o->nr_counters + 1) +
			       (e->counter < s->o->nr_counters ? e->counter : s->o->nr_counters)];
	int v = *d + (int)e->arg, batch = rss_batch(online_cpus(s));

	if (v >= batch || -v >= batch) {
		*d = 0;
		return true;
	}
	*d = v;
	return false;
}

/* A prefetch for write: the line becomes @cpu's, in its turn, at no cost to @cpu. */
static void prefetch_line(struct sim *s, int cpu, u32 line, double t)
{
	if (line == PRED_NO_LINE || line > s->o->nr_lines)
		return;
	line = line_slot(s, cpu, line);
	/* the line's turn, not the prefetcher's wait: it runs on */
	line_take(s, line, t, xfer(s, s->line_owner[line], cpu), true);
	memset(sharers(s, line), 0, s->sharer_words * sizeof(u64));
	s->line_rfo[line] = 0;
	s->line_owner[line] = cpu;
}

/*
 * One target's part of a flusher's IPI round: its send after those
 * before it (*send), the handler it owes, and when its ack is back.
 */
static double ipi_to(struct sim *s, int cpu, int j, double *send, enum pred_event_kind kind)
{
	double h = s->o->costs->ipi_target_ns;

	*send += xfer(s, j, cpu) + s->o->costs->ipi_send_ns;
	s->v[j].irq_debt += 2 * xfer(s, cpu, j) + h;
	if (s->counting) {
		s->r->ipis++;
		s->r->ipi_target_ns += 2 * xfer(s, cpu, j) + h;
		s->r->ev_ns[kind] += 2 * xfer(s, cpu, j) + h;
	}
	return *send + 2 * xfer(s, cpu, j) + h + xfer(s, j, cpu);
}

/* The flusher's IPI round to every other CPU (all of them run the mm). */
static double ipi_round(struct sim *s, int cpu)
{
	double send = 0, slowest = 0;
	int j;

	for (j = 0; j < s->o->cpus; j++) {
		double ack;

		if (j == cpu)
			continue;
		ack = ipi_to(s, cpu, j, &send, PRED_EV_TLB_FLUSH);
		if (ack > slowest)
			slowest = ack;
	}
	return slowest;
}

/* ---- reclaim's deferred TLB flushes ---- */

static u64 *tlb_pending(struct sim *s, int cpu)
{
	return &s->tlb_pending[(size_t)cpu * s->sharer_words];
}

/*
 * A page @cpu's reclaim unmapped: the CPUs that may hold its PTE join
 * its batch.  The threads of one process all ran its mm; a process of
 * its own is one of N sharing the memcg's LRU, so the page is any of
 * theirs alike, the reclaimer's own one time in N (no IPI then).
 */
static bool tlb_defer(struct sim *s, int cpu)
{
	u64 *w = tlb_pending(s, cpu);
	int j;

	if (s->o->cpus < 2)
		return false;
	if (s->o->one_process) {
		for (j = 0; j < s->o->cpus; j++)
			if (j != cpu)
				w[j / 64] |= 1ULL << (j % 64);
		return true;
	}
	j = (int)(sim_rand(s) % (u64)s->o->cpus);
	if (j == cpu)
		return false;
	w[j / 64] |= 1ULL << (j % 64);
	return true;
}

/*
 * The batch's flush at @t: an IPI to each CPU in it that runs then; one
 * asleep for its device is lazy, and the kernel skips it.
 */
static double tlb_batch_flush(struct sim *s, int cpu, double t)
{
	u64 *w = tlb_pending(s, cpu);
	double send = 0, slowest = 0;
	int j;

	for (j = 0; j < s->o->cpus; j++) {
		double ack;

		if (!(w[j / 64] >> (j % 64) & 1))
			continue;
		w[j / 64] &= ~(1ULL << (j % 64));
		if (s->v[j].asleep_until > t)
			continue;
		ack = ipi_to(s, cpu, j, &send, PRED_EV_TLB_BATCH);
		if (ack > slowest)
			slowest = ack;
	}
	return slowest;
}

/* A clear of @bytes at @t: its socket's memory serves one at a time. */
static double clear_wait(struct sim *s, int cpu, double t, u32 bytes)
{
	double bw = s->o->costs->mem_bw, start, *busy;
	int sock = s->o->topo ? s->o->topo[cpu].socket : 0;

	if (bw <= 0 || !bytes)
		return 0;
	busy = &s->mem_busy[sock < s->nr_sockets ? sock : 0];
	start = *busy > t ? *busy : t;
	*busy = start + bytes / bw;
	if (s->counting)
		s->r->bw_wait_ns += start - t;
	return start - t;
}

/* What an address-space event adds to @cpu at @t. */
static double mm_event_cost(struct sim *s, int cpu, const struct pred_event *e, double t,
			    u64 *kept)
{
	bool shared = s->o->one_process;

	*kept = 1;
	switch (e->kind) {
	case PRED_EV_MMAP_PREFETCH:
		if (shared)
			prefetch_line(s, cpu, e->line, t);
		return 0;
	case PRED_EV_VMA_REFCNT:
		if (!shared || (!e->threshold && !s->o->shared_vma))
			return 0;
		/* taken: the count read, then the cmpxchg (the line owned) */
		if (e->arg) {
			double x = read_line(s, cpu, e->line, t);

			return x + write_line(s, cpu, e->line, t + x);
		}
		return write_line(s, cpu, e->line, t);
	case PRED_EV_RSS:
		*kept = rss_folds(s, cpu, e);
		return *kept && shared ? write_line(s, cpu, e->line, t) : 0;
	case PRED_EV_TLB_PENDING:
	case PRED_EV_PTE_TABLE:
		return shared ? write_line(s, cpu, e->line, t) : 0;
	case PRED_EV_TLB_FLUSH:
		if (!shared)
			return 0;
		{
			double x = write_line(s, cpu, e->line, t);

			return x + ipi_round(s, cpu);
		}
	case PRED_EV_CLEAR:
		return clear_wait(s, cpu, t, e->arg);
	case PRED_EV_IO_WAIT:
		/* each CPU's reads in flight at once: a device with the queues for it */
		s->v[cpu].asleep_until = t + e->arg;
		return e->arg;
	case PRED_EV_RMAP_UNMAP:
		/* a dirty page's flush comes before its write: now */
		return tlb_defer(s, cpu) && e->arg ? tlb_batch_flush(s, cpu, t) : 0;
	case PRED_EV_TLB_BATCH:
		return tlb_batch_flush(s, cpu, t);
	}
	return 0;
}

/* The time event @e adds on @cpu at @t. */
static double event_cost(struct sim *s, int cpu, const struct pred_event *e, double t)
{
	u64 kept = 1;
	double y;

	if (e->kind >= PRED_EV_MMAP_PREFETCH) {
		y = mm_event_cost(s, cpu, e, t, &kept);
	} else if (e->kind == PRED_EV_PAIR_READ) {
		y = pair_read(s, cpu, e, t);
	} else {
		if (e->kind == PRED_EV_VMSTAT_FOLD)
			kept = folds_at_n(s, cpu, e);
		else if (e->kind != PRED_EV_PAGE_COUNTER)
			kept = memcg_batch_at_n(s, t, e);
		/* folds after the first find the lines here already */
		y = 0;
		if (kept) {
			y = write_line(s, cpu, e->line, t);
			y += write_line(s, cpu, e->line2, t + y);
		}
	}
	if (s->counting) {
		s->r->ev_seen[e->kind]++;
		s->r->ev_kept[e->kind] += kept;
		s->r->ev_ns[e->kind] += y;
		/* a device's wait moves no line */
		if (e->kind != PRED_EV_IO_WAIT)
			s->r->ev_xfer_ns += y;
	}
	return y;
}

/* The time op's events in its hold add on @cpu at @t, one after another. */
static double section_events_cost(struct sim *s, int cpu, double t)
{
	const struct vcpu *v = &s->v[cpu];
	double x = 0;
	u32 i;

	for (i = 0; i < v->nr_ev; i++) {
		const struct pred_event *e = &v->ev[i];

		if (!e->inside || e->kind >= NR_PRED_EVENTS)
			continue;
		x += event_cost(s, cpu, e, t + x);
	}
	return x;
}

/* ---- accounting ---- */

static void lock_area(struct sim *s, struct lock_inst *L, double t, int delta)
{
	if (s->counting) {
		double from = L->t_last > s->t0 ? L->t_last : s->t0;

		s->r->locks[L - s->li].area += L->in_sys * (t - from);
	}
	L->t_last = t;
	L->in_sys += delta;
}

static void count_grant(struct sim *s, int cpu, double t_grant, bool contended)
{
	struct pred_site_stat *st;
	double w;

	if (!s->counting || s->v[cpu].op.site >= s->o->nr_sites)
		return;
	st = &s->r->sites[s->v[cpu].op.site];
	w = t_grant - s->v[cpu].t_req;
	st->acquired++;
	st->hold_total += s->v[cpu].hold;
	if (contended) {
		if (!st->contended || w < st->wait_min)
			st->wait_min = w;
		if (w > st->wait_max)
			st->wait_max = w;
		st->contended++;
		st->wait_total += w;
	}
	s->r->wait_total += w;
}

/* ---- the state machine ---- */

static u32 work_events(const struct vcpu *v)
{
	u32 i, n = 0;

	for (i = 0; i < v->nr_ev; i++)
		n += !v->ev[i].inside && v->ev[i].kind < NR_PRED_EVENTS;
	return n;
}

/*
 * The next event of op's work, costed when the CPU reaches it: the work's
 * events fall evenly through it, the first at its start, so that another
 * CPU can take a line between two of them (a fault's VMA read lock is
 * dropped at its end and taken again by the next fault).
 */
static void work_step(struct sim *s, int cpu, double t)
{
	struct vcpu *v = &s->v[cpu];
	const struct pred_event *e;
	double x;

	while (v->ev[v->ev_at].inside || v->ev[v->ev_at].kind >= NR_PRED_EVENTS)
		v->ev_at++;
	e = &v->ev[v->ev_at++];
	x = event_cost(s, cpu, e, t);
	heap_push(s, t + x + v->step, cpu, --v->steps_left ? EV_STEP : EV_REQUEST);
}

static void next_op(struct sim *s, int cpu, double t)
{
	struct vcpu *v = &s->v[cpu];

	double work;

	s->o->src->next(s->o->src, cpu, &v->op);
	v->nr_ev = s->o->src->events ? s->o->src->events(s->o->src, cpu, &v->ev) : 0;
	if (v->op.lock >= (s->o->nr_locks ? s->o->nr_locks : 1))
		v->op.lock = 0;
	v->inst = instance(s, cpu, v->op.lock);
	work = v->op.work_ns * s->o->costs->work_scale * speed_now(s, cpu);
	/* IPIs that came during the hold (interrupts off) or the wait */
	work += v->irq_debt;
	v->irq_debt = 0;
	v->ev_at = 0;
	v->steps_left = work_events(v);
	if (!v->steps_left) {
		heap_push(s, t + work, cpu, EV_REQUEST);
		return;
	}
	v->step = work / v->steps_left;
	work_step(s, cpu, t);
}

static void grant(struct sim *s, int cpu, struct lock_inst *L, double t, bool contended)
{
	struct vcpu *v = &s->v[cpu];

	L->holder = cpu;
	L->word_owner = cpu;
	v->spinning = false;
	v->hold_extra = 0;
	v->hold = hold_with_events(s, cpu, L, t);
	count_grant(s, cpu, t, contended);
	heap_push(s, t + v->hold, cpu, EV_RELEASE);
}

static void request(struct sim *s, int cpu, double t)
{
	struct vcpu *v = &s->v[cpu];
	struct lock_inst *L = &s->li[v->inst];

	v->t_req = t;
	lock_area(s, L, t, +1);
	if (L->holder < 0 && !L->nr_wait) {
		/*
		 * The word comes over from its last writer; the cmpxchg itself
		 * is in the recorded work, as this machine ran it.
		 */
		double get = xfer(s, L->word_owner, cpu);

		grant(s, cpu, L, t + get, false);
		return;
	}
	L->wait[(L->head + L->nr_wait) % s->o->cpus] = cpu;
	L->nr_wait++;
	v->spinning = true;
}

/*
 * Test-and-set has no queue: the spinner that sees the word free first
 * wins, and that is one on the releaser's socket when there is one.
 */
static int tas_pick(struct sim *s, struct lock_inst *L, int from)
{
	int i, n = 0, pick, cpus = s->o->cpus;
	int near[L->nr_wait];

	for (i = 0; i < L->nr_wait; i++) {
		int c = L->wait[(L->head + i) % cpus];

		if (!s->o->topo || s->o->topo[c].socket == s->o->topo[from].socket)
			near[n++] = i;
	}
	pick = n ? near[sim_rand(s) % n] : (int)(sim_rand(s) % L->nr_wait);
	return pick;
}

static int dequeue(struct sim *s, struct lock_inst *L, int from)
{
	int cpus = s->o->cpus, idx = 0, c;

	if (s->o->impl == LOCK_TAS || s->o->impl == LOCK_PTHREAD_SPIN)
		idx = tas_pick(s, L, from);
	c = L->wait[(L->head + idx) % cpus];
	/* the chosen one leaves; the head's slot fills its place */
	L->wait[(L->head + idx) % cpus] = L->wait[L->head];
	L->head = (L->head + 1) % cpus;
	L->nr_wait--;
	return c;
}

/* The section's lines are no longer in its hands. */
static void lines_released(struct sim *s, int cpu, const struct lock_inst *L)
{
	const struct pred_lock *l = lock_of(s, L->lock);
	int i;

	if (!l || l->scope == PRED_PRIVATE)
		return;
	for (i = 0; i < l->nr_lines; i++) {
		u32 slot;

		if (l->lines[i] > s->o->nr_lines)
			continue;
		slot = line_slot(s, cpu, l->lines[i]);
		if (s->line_held[slot] == cpu)
			s->line_held[slot] = -1;
		/* the section's stores got it back before its end */
		rfo_done(s, slot, INFINITY);
	}
}

static void release(struct sim *s, int cpu, double t)
{
	struct vcpu *v = &s->v[cpu];
	struct lock_inst *L = &s->li[v->inst];

	/* stalls on lines taken during the section put the release off */
	if (v->hold_extra > 0) {
		double x = v->hold_extra;

		v->hold_extra = 0;
		v->hold += x;
		if (s->counting && v->op.site < s->o->nr_sites)
			s->r->sites[v->op.site].hold_total += x;
		heap_push(s, t + x, cpu, EV_RELEASE);
		return;
	}
	lines_released(s, cpu, L);
	lock_area(s, L, t, -1);
	if (s->counting) {
		struct pred_lock_stat *ls = &s->r->locks[v->inst];

		ls->acquired++;
		ls->busy += v->hold;
		ls->resp_total += t - v->t_req;
		if (!v->releases)
			v->first_rel = t;
		v->releases++;
		v->last_rel = t;
		s->counted++;
	}
	L->holder = -1;
	L->word_owner = cpu;
	if (L->nr_wait) {
		int k = L->nr_wait, next = dequeue(s, L, cpu);

		L->holder = next;	/* in transit: nobody else takes it */
		grant(s, next, L, t + handoff(s, cpu, next, k), true);
	}
	s->done++;
	if (!s->counting && s->done >= s->o->warmup) {
		s->counting = true;
		s->t0 = t;
	}
	next_op(s, cpu, t);
}

static int sim_alloc(struct sim *s, const struct pred_sim_opts *o, struct pred_result *r)
{
	int i, nr_locks = o->nr_locks ? o->nr_locks : 1, shared;

	s->nr_sockets = 1;
	for (i = 0; o->topo && i < o->cpus; i++)
		if (o->topo[i].socket + 1 > s->nr_sockets)
			s->nr_sockets = o->topo[i].socket + 1;
	s->nr_nodes = o->lock_node || o->line_node ? s->nr_sockets : 1;
	s->nr_slots = (o->nr_lines + 1) * (u32)s->nr_nodes;
	/* the shared instances (node 0's), the private ones, the other nodes' */
	shared = nr_locks * (1 + o->cpus);
	s->nr_inst = shared + nr_locks * (s->nr_nodes - 1);
	s->heap = calloc(o->cpus, sizeof(*s->heap));
	s->v = calloc(o->cpus, sizeof(*s->v));
	s->li = calloc(s->nr_inst, sizeof(*s->li));
	s->line_owner = malloc(s->nr_slots * sizeof(int));
	s->sharer_words = (o->cpus + 63) / 64;
	s->line_sharers = calloc((size_t)s->nr_slots * s->sharer_words, sizeof(u64));
	s->line_busy = calloc(s->nr_slots, sizeof(double));
	s->line_held = malloc(s->nr_slots * sizeof(int));
	s->line_rfo = calloc(s->nr_slots, sizeof(double));
	s->credit = calloc((size_t)o->cpus * (o->nr_counters + 1), sizeof(*s->credit));
	s->memcg_pending = calloc(o->nr_lines + 1, sizeof(*s->memcg_pending));
	s->rss_local = calloc((size_t)o->cpus * (o->nr_counters + 1), sizeof(*s->rss_local));
	s->mem_busy = calloc(s->nr_sockets, sizeof(*s->mem_busy));
	s->tlb_pending = calloc((size_t)o->cpus * s->sharer_words, sizeof(u64));
	r->sites = calloc(o->nr_sites + 1, sizeof(*r->sites));
	r->locks = calloc(s->nr_inst, sizeof(*r->locks));
	if (!s->heap || !s->v || !s->li || !s->line_owner || !s->line_sharers || !s->line_busy ||
	    !s->line_held || !s->line_rfo ||
	    !s->credit || !s->memcg_pending || !s->rss_local || !s->mem_busy || !s->tlb_pending ||
	    !r->sites ||
	    !r->locks)
		return -ENOMEM;
	for (i = 0; i < (int)s->nr_slots; i++)
		s->line_owner[i] = s->line_held[i] = -1;
	for (i = 0; i < s->nr_inst; i++) {
		struct lock_inst *L = &s->li[i];
		bool queued = i < nr_locks || i >= shared;

		L->holder = -1;
		L->word_owner = -1;
		if (i >= shared)
			L->lock = (i - shared) / (s->nr_nodes - 1);
		else
			L->lock = i < nr_locks ? i : (i - nr_locks) / o->cpus;
		L->cpu = queued ? -1 : (i - nr_locks) % o->cpus;
		/* a private instance needs no queue: only its CPU takes it */
		if (queued) {
			L->wait = calloc(o->cpus, sizeof(int));
			if (!L->wait)
				return -ENOMEM;
		}
	}
	r->nr_locks = s->nr_inst;
	return 0;
}

static void sim_free(struct sim *s)
{
	int i;

	for (i = 0; s->li && i < s->nr_inst; i++)
		free(s->li[i].wait);
	free(s->li);
	free(s->heap);
	free(s->v);
	free(s->line_owner);
	free(s->line_sharers);
	free(s->line_busy);
	free(s->line_held);
	free(s->line_rfo);
	free(s->credit);
	free(s->memcg_pending);
	free(s->rss_local);
	free(s->tlb_pending);
	free(s->mem_busy);
}

/* The other hardware thread of @cpu's core among the simulated CPUs, or -1. */
static int smt_sibling(const struct pred_sim_opts *o, int cpu)
{
	int i;

	if (!o->topo)
		return -1;
	for (i = 0; i < o->cpus; i++)
		if (i != cpu && o->topo[i].socket == o->topo[cpu].socket &&
		    o->topo[i].core == o->topo[cpu].core)
			return i;
	return -1;
}

int pred_simulate(const struct pred_sim_opts *o, struct pred_result *r)
{
	struct sim s = { .o = o, .r = r };
	double t = 0;
	int i, err;

	memset(r, 0, sizeof(*r));
	if (o->cpus < 1 || !o->acquisitions || !o->src || !o->costs)
		return -EINVAL;
	err = sim_alloc(&s, o, r);
	if (err)
		goto out;
	s.rnd = (o->seed ^ 0x9e3779b97f4a7c15ULL) | 1;
	s.counting = !o->warmup;
	if (o->seed) {
		size_t n = (size_t)o->cpus * (o->nr_counters + 1), k;

		for (k = 0; k < n; k++)
			s.credit[k] = CREDIT_UNSET;
		/* the flusher's phase against the simulated start */
		s.next_flush = (double)(sim_rand(&s) % 1000) / 1000 *
			       (o->flush_period_ns ? (double)o->flush_period_ns : FLUSH_TIME_NS);
	}
	for (i = 0; i < o->cpus; i++)
		s.v[i].sibling = smt_sibling(o, i);
	for (i = 0; i < o->cpus; i++)
		next_op(&s, i, 0);
	while (s.counted < o->acquisitions && s.nr_ev) {
		struct event e = heap_pop(&s);

		t = e.t;
		r->events++;
		if (e.type == EV_REQUEST)
			request(&s, e.cpu, t);
		else if (e.type == EV_STEP)
			work_step(&s, e.cpu, t);
		else
			release(&s, e.cpu, t);
	}
	for (i = 0; i < s.nr_inst; i++)
		lock_area(&s, &s.li[i], t, 0);
	r->elapsed_ns = t - s.t0;
	r->acquisitions = s.counted;
	r->acq_per_sec = r->elapsed_ns > 0 ? s.counted * 1e9 / r->elapsed_ns : 0;
	for (i = 0; i < o->cpus; i++) {
		struct vcpu *v = &s.v[i];

		if (v->releases > 1 && v->last_rel > v->first_rel)
			r->x_steady += (v->releases - 1) / (v->last_rel - v->first_rel);
	}
out:
	sim_free(&s);
	if (err)
		pred_result_free(r);
	return err;
}

void pred_result_free(struct pred_result *r)
{
	free(r->sites);
	free(r->locks);
	r->sites = NULL;
	r->locks = NULL;
}

void pred_topology(const struct pred_profile *pf, int cpus, struct pred_cpu *out)
{
	int cores = pf->sockets * pf->cores_per_socket, i;

	for (i = 0; i < cpus; i++) {
		int c = i;

		if (pf->order == PRED_ORDER_SMT_ADJACENT) {
			out[i].thread = c % pf->threads_per_core;
			c /= pf->threads_per_core;
			out[i].socket = c / pf->cores_per_socket % pf->sockets;
			out[i].core = c % pf->cores_per_socket;
		} else if (pf->order == PRED_ORDER_SOCKET_RR) {
			out[i].socket = c % pf->sockets;
			c /= pf->sockets;
			out[i].core = c % pf->cores_per_socket;
			out[i].thread = c / pf->cores_per_socket % pf->threads_per_core;
		} else {
			out[i].thread = c / cores;
			c %= cores;
			out[i].socket = c / pf->cores_per_socket;
			out[i].core = c % pf->cores_per_socket;
		}
	}
}
