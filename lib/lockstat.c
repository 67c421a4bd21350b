// SPDX-License-Identifier: MIT
/*
 * Lock statistics per call site, in the spirit of `perf lock contention`:
 * how often each site took its lock, how often it had to wait, for how
 * long, and how long it then held the lock.
 *
 * Counting must not itself become the cost being measured.  Every thread
 * counts into its own block with plain single-writer updates, and readers
 * sum the blocks.  By default an uncontended acquisition is one counter
 * and a countdown (lib/lockstat-internal.h); the clock is read only for a
 * wait, whose first try failed, and for the sampled holds, and what those
 * record is written after the lock is free.  A thread's block outlives
 * the thread - its acquisitions still happened - and is handed to the
 * next new thread, which keeps adding to it, so the number of blocks is
 * bounded by the most threads alive at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/spinlock.h>
#include <lrulab/trace.h>

#include "lockstat-internal.h"

enum lockstat_mode lockstat_mode = LOCKSTAT_SAMPLED;

#define OVERFLOW_ID	LOCKSTAT_OVERFLOW_ID
#define NR_SLOTS	LOCKSTAT_NR_SLOTS

static struct lock_site overflow_site = {
	.cls = "<overflow>",
	.caller = "<sites beyond the first 128>",
	.fn = "<sites beyond the first 128>",
	.id = OVERFLOW_ID,
};

static pthread_mutex_t site_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct lock_site *site_table[NR_SLOTS];
static int nr_sites;		/* registered; readers load it acquire */
static bool overflow_used;

static pthread_mutex_t block_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct lockstat_block *blocks;
static u64 nr_blocks;		/* ever allocated */
static pthread_key_t block_key;
static pthread_once_t block_key_once = PTHREAD_ONCE_INIT;
/* every thread's block until it counts its first acquisition: never written */
static struct lockstat_block no_block;
__thread struct lockstat_block *lockstat_self = &no_block;

static const char *const mode_names[] = {
	[LOCKSTAT_OFF] = "off",
	[LOCKSTAT_SAMPLED] = "sampled",
	[LOCKSTAT_FULL] = "full",
};

/* ---- sites ---- */

static int site_register(struct lock_site *site)
{
	int id;

	pthread_mutex_lock(&site_mutex);
	id = site->id;
	if (id >= 0)
		goto out;		/* another thread got here first */
	if (nr_sites < LOCKSTAT_MAX_SITES) {
		id = nr_sites;
		site_table[id] = site;
		__atomic_store_n(&nr_sites, id + 1, __ATOMIC_RELEASE);
	} else {
		id = OVERFLOW_ID;
		if (!overflow_used) {
			fprintf(stderr, "lrulab: lockstat: more than %d lock sites; "
				"%s from %s and later sites are counted as %s\n",
				LOCKSTAT_MAX_SITES, site->cls, site->caller,
				overflow_site.cls);
			site_table[OVERFLOW_ID] = &overflow_site;
			__atomic_store_n(&overflow_used, true, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&site->id, id, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&site_mutex);
	return id;
}

int lockstat_nr_sites(void)
{
	return __atomic_load_n(&nr_sites, __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&overflow_used, __ATOMIC_ACQUIRE);
}

struct lock_site *lockstat_site(int id)
{
	if (id < 0 || id >= lockstat_nr_sites())
		return NULL;
	return site_table[id];
}

/* ---- per-thread blocks ---- */

static void block_thread_exit(void *arg)
{
	struct lockstat_block *b = arg;

	pthread_mutex_lock(&block_mutex);
	b->dead = true;
	pthread_mutex_unlock(&block_mutex);
	/* a later destructor that takes a lock must not write a block
	 * another thread may adopt */
	lockstat_self = &no_block;
}

static void block_key_create(void)
{
	if (pthread_key_create(&block_key, block_thread_exit)) {
		fprintf(stderr, "lrulab: lockstat: pthread_key_create failed\n");
		abort();
	}
}

static __attribute__((noinline)) struct lockstat_block *block_get(void)
{
	struct lockstat_block *b;

	pthread_once(&block_key_once, block_key_create);
	pthread_mutex_lock(&block_mutex);
	for (b = blocks; b; b = b->next)
		if (b->dead)
			break;
	if (b) {
		b->dead = false;
		/* the last owner's open holds, if it died holding a lock */
		STAT_SET(b->nr_held, 0);
	} else {
		if (posix_memalign((void **)&b, L1_CACHE_BYTES, sizeof(*b))) {
			pthread_mutex_unlock(&block_mutex);
			fprintf(stderr, "lrulab: lockstat: out of memory\n");
			abort();
		}
		memset(b, 0, sizeof(*b));
		/*
		 * Blocks need only differ; no clock read, so that a test can
		 * count a new thread's reads.
		 */
		b->rnd = (((u64)(uintptr_t)b ^ ++nr_blocks) * 0x9e3779b97f4a7c15ULL) | 1;
		b->next = blocks;
		blocks = b;
	}
	pthread_mutex_unlock(&block_mutex);
	pthread_setspecific(block_key, b);
	lockstat_self = b;
	return b;
}

_Static_assert(!(LOCKSTAT_HOLD_SAMPLE & (LOCKSTAT_HOLD_SAMPLE - 1)),
	       "LOCKSTAT_HOLD_SAMPLE must be a power of two");

/* Uniform in [0, @n) for a power of two @n; 0 without a draw for 1. */
static unsigned int block_random(struct lockstat_block *b, unsigned int n)
{
	u64 x = b->rnd;

	if (n == 1)
		return 0;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	b->rnd = x;
	return (unsigned int)(x >> 32) & (n - 1);
}

unsigned int lockstat_hold_sampled(enum lockstat_mode mode)
{
	switch (mode) {
	case LOCKSTAT_SAMPLED:	return LOCKSTAT_HOLD_SAMPLE;
	case LOCKSTAT_FULL:	return 1;
	default:		return 0;
	}
}

/*
 * Whatever was not the inline case: the thread's or the site's first
 * acquisition, a wait to record, or the one acquisition of a window
 * whose hold is timed.  The clock is read last, so that what is done
 * here stays out of the hold.
 */
void __lockstat_acquired(spinlock_t *l, struct lock_site *site, u64 wait_t0,
			 u64 wait_t1)
{
	struct lockstat_block *b = lockstat_self;
	int id = __atomic_load_n(&site->id, __ATOMIC_RELAXED);
	unsigned int period;
	struct lockstat_slow *s;
	int left, next;

	if (unlikely(id < 0))
		id = site_register(site);
	if (unlikely(b == &no_block))
		b = block_get();
	period = lockstat_hold_sampled(READ_ONCE(lockstat_mode));
	if (unlikely(!period))
		return;			/* switched off while we waited */
	/* a consumer of every acquisition and release wants every hold timed */
	if (trace_on(lock_acquired) || trace_on(lock_released))
		period = 1;
	s = &b->slow[id];
	STAT_ADD(b->acquired[id], 1);
	if (wait_t1) {
		u64 wait = wait_t1 - wait_t0;
		u64 n = STAT_READ(s->contended);

		STAT_SET(s->contended, n + 1);
		STAT_ADD(s->wait_total_ns, wait);
		if (wait > STAT_READ(s->wait_max_ns))
			STAT_SET(s->wait_max_ns, wait);
		if (!n || wait < STAT_READ(s->wait_min_ns))
			STAT_SET(s->wait_min_ns, wait);
		trace_lock_contended(l, site, wait);
	}

	left = STAT_READ(b->countdown);
	if (left <= 0) {
		b->offset = (int)block_random(b, period);
		left = b->offset + 1;
	}
	if (--left) {
		STAT_SET(b->countdown, left);
		return;
	}
	/* this one is timed; the next at a random place of the next window */
	next = (int)block_random(b, period);
	STAT_SET(b->countdown, (int)period - b->offset + next);
	b->offset = next;

	/*
	 * Full stack: drop the oldest entry.  Real nesting never gets this
	 * deep; stale entries (a lock released by another thread) do, and
	 * must not block the rest.
	 */
	left = STAT_READ(b->nr_held);
	if (unlikely(left >= LOCKSTAT_HELD_DEPTH)) {
		memmove(&b->held[0], &b->held[1],
			sizeof(b->held[0]) * (LOCKSTAT_HELD_DEPTH - 1));
		left = LOCKSTAT_HELD_DEPTH - 1;
	}
	b->held[left].lock = l;
	b->held[left].id = id;
	STAT_SET(b->nr_held, left + 1);
	trace_lock_acquired(l, site);
	b->held[left].t0 = lrulab_now_ns();
	b->held[left].treq = wait_t1 ? wait_t0 : b->held[left].t0;
}

void __lockstat_released(struct lockstat_block *b, struct held_lock *h, u64 now)
{
	u64 hold = now - h->t0, cost = lrulab_clock_cost_ns();
	int i = (int)(h - b->held), n = STAT_READ(b->nr_held);
	struct lockstat_slow *s = &b->slow[h->id];

	/* a reset since the acquisition dropped it */
	if (i >= n)
		return;
	hold = hold > cost ? hold - cost : 0;
	trace_lock_released(h->lock, h->treq, hold, now);
	STAT_ADD(s->hold_timed, 1);
	STAT_ADD(s->hold_timed_ns, hold);
	if (hold > STAT_READ(s->hold_max_ns))
		STAT_SET(s->hold_max_ns, hold);
	if (i < n - 1)
		memmove(&b->held[i], &b->held[i + 1], sizeof(b->held[0]) * (n - 1 - i));
	STAT_SET(b->nr_held, n - 1);
}

/* Callers hold block_mutex: a fresh start for every thread's sampling. */
static void blocks_restart(void)
{
	struct lockstat_block *b;

	for (b = blocks; b; b = b->next) {
		STAT_SET(b->countdown, 0);
		STAT_SET(b->nr_held, 0);
	}
}

void lockstat_set_mode(enum lockstat_mode mode)
{
	if ((unsigned int)mode > LOCKSTAT_FULL) {
		fprintf(stderr, "lrulab: lockstat_set_mode: no mode %d\n", (int)mode);
		abort();
	}
	/* the clock's cost is measured once, before anything is timed */
	lrulab_clock_init();
	pthread_mutex_lock(&block_mutex);
	WRITE_ONCE(lockstat_mode, mode);
	blocks_restart();
	pthread_mutex_unlock(&block_mutex);
}

const char *lockstat_mode_name(enum lockstat_mode mode)
{
	if ((unsigned int)mode > LOCKSTAT_FULL)
		return "unknown";
	return mode_names[mode];
}

int lockstat_mode_parse(const char *name, enum lockstat_mode *mode)
{
	int i;

	for (i = 0; name && i <= LOCKSTAT_FULL; i++) {
		if (!strcmp(name, mode_names[i])) {
			*mode = (enum lockstat_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- readers ---- */

/*
 * Add one site's counts over every thread's block to @out, and the sum
 * of its timed holds to *@timed_ns; callers hold block_mutex.
 */
static void read_id(int id, struct lock_stat *out, u64 *timed_ns)
{
	struct lockstat_block *b;
	u64 v;

	for (b = blocks; b; b = b->next) {
		const struct lockstat_slow *s = &b->slow[id];
		u64 contended = STAT_READ(s->contended);

		out->acquired += STAT_READ(b->acquired[id]);
		out->wait_total_ns += STAT_READ(s->wait_total_ns);
		out->hold_timed += STAT_READ(s->hold_timed);
		*timed_ns += STAT_READ(s->hold_timed_ns);
		v = STAT_READ(s->wait_max_ns);
		if (v > out->wait_max_ns)
			out->wait_max_ns = v;
		v = STAT_READ(s->hold_max_ns);
		if (v > out->hold_max_ns)
			out->hold_max_ns = v;
		if (contended) {
			v = STAT_READ(s->wait_min_ns);
			if (!out->contended || v < out->wait_min_ns)
				out->wait_min_ns = v;
			out->contended += contended;
		}
	}
}

/*
 * Every acquisition was as likely to be timed as any other, so the timed
 * holds' mean stands for all of them, at one site or over a class (where
 * a site too quiet to have been sampled still counts).
 */
static void stat_estimate(struct lock_stat *out, u64 timed_ns)
{
	/* a read racing an unlock may see a timed hold before its acquisition */
	if (out->hold_timed && out->acquired >= out->hold_timed)
		out->hold_total_ns = (u64)((unsigned __int128)timed_ns * out->acquired /
					   out->hold_timed);
	else
		out->hold_total_ns = timed_ns;
	out->hold_sampled = lockstat_hold_sampled(READ_ONCE(lockstat_mode));
}

static void read_one(int id, struct lock_stat *out)
{
	u64 timed_ns = 0;

	memset(out, 0, sizeof(*out));
	read_id(id, out, &timed_ns);
	stat_estimate(out, timed_ns);
}

void lockstat_read(const struct lock_site *site, struct lock_stat *out)
{
	int id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);

	memset(out, 0, sizeof(*out));
	out->hold_sampled = lockstat_hold_sampled(READ_ONCE(lockstat_mode));
	if (id < 0)
		return;
	pthread_mutex_lock(&block_mutex);
	read_one(id, out);
	pthread_mutex_unlock(&block_mutex);
}

void lock_site_name(const char *caller, const char *fn, char *buf, size_t len)
{
	if (!fn || !strcmp(caller, fn))
		snprintf(buf, len, "%s", caller);
	else
		snprintf(buf, len, "%s (%s)", caller, fn);
}

static bool fn_listed(const char *fn, const char *const *fns)
{
	for (; *fns; fns++)
		if (!strcmp(fn, *fns))
			return true;
	return false;
}

void lockstat_read_fns(const char *cls, const char *const *fns, struct lock_stat *out)
{
	int id, n = lockstat_nr_sites();
	u64 timed_ns = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&block_mutex);
	for (id = 0; id < n; id++)
		if (!strcmp(site_table[id]->cls, cls) &&
		    (!fns || fn_listed(site_table[id]->fn, fns)))
			read_id(id, out, &timed_ns);
	pthread_mutex_unlock(&block_mutex);
	stat_estimate(out, timed_ns);
}

void lockstat_read_class(const char *cls, struct lock_stat *out)
{
	lockstat_read_fns(cls, NULL, out);
}

/*
 * Meant for quiescent points: a thread counting at the same moment may
 * put back a value it read before the reset.  Sampling starts afresh.
 */
void lockstat_reset(void)
{
	struct lockstat_block *b;

	pthread_mutex_lock(&block_mutex);
	for (b = blocks; b; b = b->next) {
		int id;

		for (id = 0; id < NR_SLOTS; id++) {
			struct lockstat_slow *s = &b->slow[id];

			STAT_SET(b->acquired[id], 0);
			STAT_SET(s->contended, 0);
			STAT_SET(s->wait_total_ns, 0);
			STAT_SET(s->wait_max_ns, 0);
			STAT_SET(s->wait_min_ns, 0);
			STAT_SET(s->hold_timed, 0);
			STAT_SET(s->hold_timed_ns, 0);
			STAT_SET(s->hold_max_ns, 0);
		}
	}
	blocks_restart();
	pthread_mutex_unlock(&block_mutex);
	trace_lockstat_reset();
}

/* ---- the table ---- */

struct stat_row {
	struct lock_site *site;
	struct lock_stat st;
};

static u64 row_key(const struct stat_row *r, enum lockstat_sort sort)
{
	switch (sort) {
	case LOCKSTAT_SORT_CONTENDED:	return r->st.contended;
	case LOCKSTAT_SORT_ACQUIRED:	return r->st.acquired;
	case LOCKSTAT_SORT_HOLD_TOTAL:	return r->st.hold_total_ns;
	case LOCKSTAT_SORT_WAIT_TOTAL:
	default:			return r->st.wait_total_ns;
	}
}

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct stat_row *ra = a, *rb = b;
	enum lockstat_sort sort = *(enum lockstat_sort *)arg;
	u64 ka = row_key(ra, sort), kb = row_key(rb, sort);

	if (ka != kb)
		return ka > kb ? -1 : 1;
	/* ties: busiest first, then registration order, so output is stable */
	if (ra->st.acquired != rb->st.acquired)
		return ra->st.acquired > rb->st.acquired ? -1 : 1;
	return ra->site->id - rb->site->id;
}

/*
 * A column of times reads in one unit, the one its largest value reads
 * best in: a column never mixes ns and minutes.
 */
static double pow10i(int n)
{
	double p = 1;

	while (n-- > 0)
		p *= 10;
	return p;
}

struct lockstat_unit lockstat_unit_for(double max_ns)
{
	if (max_ns >= 1e9)
		return (struct lockstat_unit){ 1e9, "s" };
	if (max_ns >= 1e6)
		return (struct lockstat_unit){ 1e6, "ms" };
	if (max_ns >= 1e3)
		return (struct lockstat_unit){ 1e3, "us" };
	return (struct lockstat_unit){ 1, "ns" };
}

/* two decimals, more below 1 so that a small value keeps two digits */
void lockstat_fmt_in(char *buf, size_t len, double ns, struct lockstat_unit u)
{
	double v = ns / u.ns;
	int decimals = 2;

	if (u.ns == 1 || v == 0) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (; v < 1 && decimals < 6 && v * pow10i(decimals) < 10; decimals++)
		;
	snprintf(buf, len, "%.*f", decimals, v);
}

enum { COL_WAIT_TOTAL, COL_WAIT_MAX, COL_WAIT_AVG, COL_HOLD_TOTAL, COL_HOLD_AVG, NR_COLS };

static void row_times(const struct lock_stat *st, double t[NR_COLS])
{
	t[COL_WAIT_TOTAL] = (double)st->wait_total_ns;
	t[COL_WAIT_MAX] = (double)st->wait_max_ns;
	t[COL_WAIT_AVG] = st->contended ? (double)st->wait_total_ns / st->contended : 0;
	t[COL_HOLD_TOTAL] = (double)st->hold_total_ns;
	t[COL_HOLD_AVG] = st->acquired ? (double)st->hold_total_ns / st->acquired : 0;
}

void lockstat_print_rows(FILE *f, const struct lockstat_row *rows, int n, const char *type)
{
	static const char *const heads[NR_COLS] = {
		"total wait", "max wait", "avg wait", "hold total*", "avg hold*",
	};
	struct lockstat_unit u[NR_COLS];
	double t[NR_COLS], most[NR_COLS] = { 0 };
	char cell[NR_COLS][32];
	int i, c, cls_w = 5;

	for (i = 0; i < n; i++) {
		row_times(&rows[i].st, t);
		for (c = 0; c < NR_COLS; c++)
			if (t[c] > most[c] && (c < COL_HOLD_TOTAL || rows[i].st.hold_timed))
				most[c] = t[c];
		if ((int)strlen(rows[i].cls) > cls_w)
			cls_w = (int)strlen(rows[i].cls);
	}
	for (c = 0; c < NR_COLS; c++)
		u[c] = lockstat_unit_for(most[c]);
	/* the unit of each time column on the line under its name */
	fprintf(f, " %10s %12s %12s %12s", "contended", heads[0], heads[1], heads[2]);
	if (type)
		fprintf(f, " %12s", "type");
	fprintf(f, " %12s %12s %12s   %-*s   %s\n", "acquired", heads[3], heads[4],
		cls_w, "class", "caller");
	fprintf(f, " %10s %12s %12s %12s", "", u[0].name, u[1].name, u[2].name);
	if (type)
		fprintf(f, " %12s", "");
	fprintf(f, " %12s %12s %12s\n\n", "", u[3].name, u[4].name);
	for (i = 0; i < n; i++) {
		const struct lock_stat *st = &rows[i].st;

		row_times(st, t);
		for (c = 0; c < NR_COLS; c++)
			lockstat_fmt_in(cell[c], sizeof(cell[c]), t[c], u[c]);
		if (!st->hold_timed) {
			/* no acquisition of this site was timed */
			snprintf(cell[COL_HOLD_TOTAL], sizeof(cell[0]), "-");
			snprintf(cell[COL_HOLD_AVG], sizeof(cell[0]), "-");
		}
		fprintf(f, " %10llu %12s %12s %12s", (unsigned long long)st->contended,
			cell[0], cell[1], cell[2]);
		if (type)
			fprintf(f, " %12s", type);
		fprintf(f, " %12llu %12s %12s   %-*s   %s\n", (unsigned long long)st->acquired,
			cell[3], cell[4], cls_w, rows[i].cls, rows[i].name);
	}
}

void lockstat_print_notes(FILE *f, const char *indent, unsigned int hold_sampled,
			  bool spin_yield)
{
	if (hold_sampled > 1)
		fprintf(f, "%s* hold times sampled 1/%u: one acquisition in %u per thread "
			"timed, totals estimated as mean x acquired, the clock's cost "
			"(%llu ns) taken off each\n", indent, hold_sampled, hold_sampled,
			(unsigned long long)lrulab_clock_cost_ns());
	else if (hold_sampled == 1)
		fprintf(f, "%s* hold times from every acquisition, the clock's cost "
			"(%llu ns) taken off each: full lock statistics are expensive, "
			"their clock reads and bookkeeping lengthen every critical section\n",
			indent, (unsigned long long)lrulab_clock_cost_ns());
	if (spin_yield)
		fprintf(f, "%swaiters yield the processor after %u spins (more threads "
			"than processors), and qspinlock is the paravirt one: a free "
			"lock may be taken out of turn (%llu times)\n", indent,
			READ_ONCE(lrulab_spin_yield_loops),
			(unsigned long long)lrulab_pv_steals());
	else
		fprintf(f, "%swaiters spin until served, never yield\n", indent);
}

void lockstat_print(FILE *f, enum lockstat_sort sort)
{
	struct stat_row rows[NR_SLOTS];
	struct lockstat_row out[NR_SLOTS];
	char names[NR_SLOTS][128];
	int i, n = lockstat_nr_sites(), nr_rows = 0;
	const char *type = lock_impl_name(READ_ONCE(lrulab_lock_impl));
	unsigned int sampled = lockstat_hold_sampled(READ_ONCE(lockstat_mode));

	pthread_mutex_lock(&block_mutex);
	for (i = 0; i < n; i++) {
		struct stat_row *r = &rows[nr_rows];

		r->site = site_table[i];
		read_one(i, &r->st);
		if (r->st.acquired)
			nr_rows++;
	}
	pthread_mutex_unlock(&block_mutex);

	qsort_r(rows, nr_rows, sizeof(rows[0]), row_cmp, &sort);
	for (i = 0; i < nr_rows; i++) {
		lock_site_name(rows[i].site->caller, rows[i].site->fn, names[i], sizeof(names[i]));
		out[i] = (struct lockstat_row){ rows[i].site->cls, names[i], rows[i].st };
	}
	lockstat_print_rows(f, out, nr_rows, type);
	fprintf(f, "\n");
	lockstat_print_notes(f, "", sampled, READ_ONCE(lrulab_spin_yield));
}
