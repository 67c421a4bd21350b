// SPDX-License-Identifier: MIT
/*
 * The discrete-event simulation behind `lrulab predict`: N virtual CPUs,
 * each replaying a sequence of lock acquisitions (work outside the
 * locks, then a request, a grant, a hold, a release), on locks that
 * queue and hand over as each implementation does, with critical
 * sections that grow by the cache lines they must fetch from the CPU
 * that wrote them last.
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

#include <lrulab/predict.h>

enum { EV_REQUEST, EV_RELEASE };

struct event {
	double t;
	u64 seq;
	int cpu, type;
};

struct vcpu {
	struct pred_op op;
	int inst;		/* lock instance of op */
	double t_req;		/* when op's request was made */
	double hold;		/* op's hold, once granted */
	double speed;		/* time multiplier for work and holds */
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
	int *line_owner;
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

static int instance(const struct sim *s, int cpu, int lock)
{
	const struct pred_lock *l = lock_of(s, lock);

	if (l && l->scope == PRED_PRIVATE)
		return s->o->nr_locks + lock * s->o->cpus + cpu;
	return lock;
}

/*
 * The hold as this CPU runs it: the recorded hold at this CPU's speed,
 * plus a transfer for every line of the section another CPU wrote last.
 * A private lock's lines are the CPU's own.
 */
static double hold_time(struct sim *s, int cpu, struct lock_inst *L)
{
	const struct pred_lock *l = lock_of(s, L->lock);
	struct vcpu *v = &s->v[cpu];
	double h = v->op.hold_ns * s->o->costs->hold_scale * v->speed;
	int i;

	if (!l || l->scope == PRED_PRIVATE)
		return h;
	for (i = 0; i < l->nr_lines; i++) {
		int *owner = &s->line_owner[l->lines[i]];

		h += xfer(s, *owner, cpu);
		*owner = cpu;
	}
	return h;
}

/* The time from a release to the next holder's grant, @k waiters queued. */
static double handoff(struct sim *s, int from, int to, int k)
{
	const struct pred_costs *c = s->o->costs;
	double x = xfer(s, from, to);

	switch (s->o->impl) {
	case LOCK_TICKET:
		return x + c->ticket_slope * k;
	case LOCK_TAS:
	case LOCK_PTHREAD_SPIN:
		return x * (1 + c->tas_beta * k);
	default:
		return x + c->handoff_qspin;
	}
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

static void next_op(struct sim *s, int cpu, double t)
{
	struct vcpu *v = &s->v[cpu];

	s->o->src->next(s->o->src, cpu, &v->op);
	if (v->op.lock >= (s->o->nr_locks ? s->o->nr_locks : 1))
		v->op.lock = 0;
	v->inst = instance(s, cpu, v->op.lock);
	heap_push(s, t + v->op.work_ns * s->o->costs->work_scale * v->speed, cpu, EV_REQUEST);
}

static void grant(struct sim *s, int cpu, struct lock_inst *L, double t, bool contended)
{
	struct vcpu *v = &s->v[cpu];

	L->holder = cpu;
	L->word_owner = cpu;
	v->hold = hold_time(s, cpu, L);
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
		/* the word comes over from its last writer, then the cmpxchg */
		double get = s->o->costs->lock_local + xfer(s, L->word_owner, cpu);

		grant(s, cpu, L, t + get, false);
		return;
	}
	L->wait[(L->head + L->nr_wait) % s->o->cpus] = cpu;
	L->nr_wait++;
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

static void release(struct sim *s, int cpu, double t)
{
	struct vcpu *v = &s->v[cpu];
	struct lock_inst *L = &s->li[v->inst];

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
	int i, nr_locks = o->nr_locks ? o->nr_locks : 1;

	s->nr_inst = nr_locks * (1 + o->cpus);
	s->heap = calloc(o->cpus, sizeof(*s->heap));
	s->v = calloc(o->cpus, sizeof(*s->v));
	s->li = calloc(s->nr_inst, sizeof(*s->li));
	s->line_owner = malloc((o->nr_lines + 1) * sizeof(int));
	r->sites = calloc(o->nr_sites + 1, sizeof(*r->sites));
	r->locks = calloc(s->nr_inst, sizeof(*r->locks));
	if (!s->heap || !s->v || !s->li || !s->line_owner || !r->sites || !r->locks)
		return -ENOMEM;
	for (i = 0; i <= (int)o->nr_lines; i++)
		s->line_owner[i] = -1;
	for (i = 0; i < s->nr_inst; i++) {
		struct lock_inst *L = &s->li[i];

		L->holder = -1;
		L->word_owner = -1;
		L->lock = i < nr_locks ? i : (i - nr_locks) / o->cpus;
		L->cpu = i < nr_locks ? -1 : (i - nr_locks) % o->cpus;
		/* a private instance needs no queue: only its CPU takes it */
		if (i < nr_locks) {
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
}

/* A thread whose SMT sibling also runs goes at smt_speed. */
static double cpu_speed(const struct pred_sim_opts *o, int cpu)
{
	int i;

	if (!o->topo || o->costs->smt_speed <= 0)
		return 1;
	for (i = 0; i < o->cpus; i++)
		if (i != cpu && o->topo[i].socket == o->topo[cpu].socket &&
		    o->topo[i].core == o->topo[cpu].core)
			return 1 / o->costs->smt_speed;
	return 1;
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
	for (i = 0; i < o->cpus; i++) {
		s.v[i].speed = cpu_speed(o, i);
		next_op(&s, i, 0);
	}
	while (s.counted < o->acquisitions && s.nr_ev) {
		struct event e = heap_pop(&s);

		t = e.t;
		r->events++;
		if (e.type == EV_REQUEST)
			request(&s, e.cpu, t);
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
		} else {
			out[i].thread = c / cores;
			c %= cores;
			out[i].socket = c / pf->cores_per_socket;
			out[i].core = c % pf->cores_per_socket;
		}
	}
}
