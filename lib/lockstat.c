// SPDX-License-Identifier: MIT
/*
 * Lock statistics per call site, in the spirit of `perf lock contention`:
 * how often each site took its lock, how often it had to wait, for how
 * long, and how long it then held the lock.
 *
 * Counting must not itself become the contention being measured, so
 * every thread counts into its own block (one struct lock_stat per site)
 * with plain single-writer updates, and readers sum the blocks.  The
 * stores are relaxed atomics only because readers run concurrently.
 * A thread's block outlives the thread - its acquisitions still happened
 * - and is handed to the next new thread, which keeps adding to it, so
 * the number of blocks is bounded by the most threads alive at once.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/spinlock.h>

bool lockstat_enabled = true;

#define OVERFLOW_ID	LOCKSTAT_MAX_SITES
#define NR_SLOTS	(LOCKSTAT_MAX_SITES + 1)

static struct lock_site overflow_site = {
	.cls = "<overflow>",
	.caller = "<sites beyond the first 128>",
	.id = OVERFLOW_ID,
};

static pthread_mutex_t site_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct lock_site *site_table[NR_SLOTS];
static int nr_sites;		/* registered; readers load it acquire */
static bool overflow_used;

struct lockstat_block {
	struct lock_stat stat[NR_SLOTS];
	struct lockstat_block *next;
	bool dead;		/* its thread exited; free to adopt */
};

static pthread_mutex_t block_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct lockstat_block *blocks;
static pthread_key_t block_key;
static pthread_once_t block_key_once = PTHREAD_ONCE_INIT;
static __thread struct lockstat_block *my_block;

struct held_lock {
	spinlock_t *lock;
	int id;
	u64 t0;
};

static __thread struct held_lock held[LOCKSTAT_HELD_DEPTH];
static __thread int nr_held;

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
	my_block = NULL;
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
	} else {
		if (posix_memalign((void **)&b, L1_CACHE_BYTES, sizeof(*b))) {
			pthread_mutex_unlock(&block_mutex);
			fprintf(stderr, "lrulab: lockstat: out of memory\n");
			abort();
		}
		memset(b, 0, sizeof(*b));
		b->next = blocks;
		blocks = b;
	}
	pthread_mutex_unlock(&block_mutex);
	pthread_setspecific(block_key, b);
	my_block = b;
	return b;
}

/* Only this thread writes its block: load + store, no locked RMW. */
#define STAT_READ(f) __atomic_load_n(&(f), __ATOMIC_RELAXED)
#define STAT_SET(f, v) __atomic_store_n(&(f), (v), __ATOMIC_RELAXED)
#define STAT_ADD(f, v) STAT_SET(f, STAT_READ(f) + (v))

void __lockstat_acquired(spinlock_t *l, struct lock_site *site, u64 t0, u64 t1,
			 bool contended)
{
	struct lockstat_block *b = my_block;
	int id = __atomic_load_n(&site->id, __ATOMIC_RELAXED);
	struct lock_stat *s;

	if (unlikely(id < 0))
		id = site_register(site);
	if (unlikely(!b))
		b = block_get();
	s = &b->stat[id];
	STAT_ADD(s->acquired, 1);
	if (contended) {
		u64 wait = t1 - t0;
		u64 n = STAT_READ(s->contended);

		STAT_SET(s->contended, n + 1);
		STAT_ADD(s->wait_total_ns, wait);
		if (wait > STAT_READ(s->wait_max_ns))
			STAT_SET(s->wait_max_ns, wait);
		if (!n || wait < STAT_READ(s->wait_min_ns))
			STAT_SET(s->wait_min_ns, wait);
	}

	/*
	 * Full stack: drop the oldest entry.  Real nesting never gets this
	 * deep; stale entries (a lock released by another thread, or held
	 * while lockstat was switched off) do, and must not block the rest.
	 */
	if (unlikely(nr_held == LOCKSTAT_HELD_DEPTH)) {
		memmove(&held[0], &held[1], sizeof(held[0]) * (LOCKSTAT_HELD_DEPTH - 1));
		nr_held--;
	}
	held[nr_held].lock = l;
	held[nr_held].id = id;
	held[nr_held].t0 = t1;
	nr_held++;
}

void __lockstat_release(spinlock_t *l)
{
	struct lockstat_block *b = my_block;
	struct lock_stat *s;
	u64 hold;
	int i;

	/* newest first: with stale entries the live one is the latest */
	for (i = nr_held - 1; i >= 0; i--)
		if (held[i].lock == l)
			break;
	if (i < 0 || !b)
		return;		/* taken with lockstat off, or by another thread */
	hold = lrulab_now_ns() - held[i].t0;
	s = &b->stat[held[i].id];
	STAT_ADD(s->hold_total_ns, hold);
	if (hold > STAT_READ(s->hold_max_ns))
		STAT_SET(s->hold_max_ns, hold);
	nr_held--;
	if (i < nr_held)
		memmove(&held[i], &held[i + 1], sizeof(held[0]) * (nr_held - i));
}

/* ---- readers ---- */

static void stat_add(struct lock_stat *sum, const struct lock_stat *s)
{
	u64 contended = STAT_READ(s->contended);
	u64 v;

	sum->acquired += STAT_READ(s->acquired);
	sum->wait_total_ns += STAT_READ(s->wait_total_ns);
	sum->hold_total_ns += STAT_READ(s->hold_total_ns);
	v = STAT_READ(s->wait_max_ns);
	if (v > sum->wait_max_ns)
		sum->wait_max_ns = v;
	v = STAT_READ(s->hold_max_ns);
	if (v > sum->hold_max_ns)
		sum->hold_max_ns = v;
	if (contended) {
		v = STAT_READ(s->wait_min_ns);
		if (!sum->contended || v < sum->wait_min_ns)
			sum->wait_min_ns = v;
		sum->contended += contended;
	}
}

/* Callers hold block_mutex. */
static void read_id(int id, struct lock_stat *out)
{
	struct lockstat_block *b;

	for (b = blocks; b; b = b->next)
		stat_add(out, &b->stat[id]);
}

void lockstat_read(const struct lock_site *site, struct lock_stat *out)
{
	int id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);

	memset(out, 0, sizeof(*out));
	if (id < 0)
		return;
	pthread_mutex_lock(&block_mutex);
	read_id(id, out);
	pthread_mutex_unlock(&block_mutex);
}

static bool caller_listed(const char *caller, const char *const *callers)
{
	for (; *callers; callers++)
		if (!strcmp(caller, *callers))
			return true;
	return false;
}

void lockstat_read_callers(const char *cls, const char *const *callers,
			   struct lock_stat *out)
{
	int id, n = lockstat_nr_sites();

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&block_mutex);
	for (id = 0; id < n; id++)
		if (!strcmp(site_table[id]->cls, cls) &&
		    (!callers || caller_listed(site_table[id]->caller, callers)))
			read_id(id, out);
	pthread_mutex_unlock(&block_mutex);
}

void lockstat_read_class(const char *cls, struct lock_stat *out)
{
	lockstat_read_callers(cls, NULL, out);
}

/*
 * Meant for quiescent points: a thread counting at the same moment may
 * put back a value it read before the reset.
 */
void lockstat_reset(void)
{
	struct lockstat_block *b;
	int id;

	pthread_mutex_lock(&block_mutex);
	for (b = blocks; b; b = b->next) {
		for (id = 0; id < NR_SLOTS; id++) {
			struct lock_stat *s = &b->stat[id];

			STAT_SET(s->acquired, 0);
			STAT_SET(s->contended, 0);
			STAT_SET(s->wait_total_ns, 0);
			STAT_SET(s->wait_max_ns, 0);
			STAT_SET(s->wait_min_ns, 0);
			STAT_SET(s->hold_total_ns, 0);
			STAT_SET(s->hold_max_ns, 0);
		}
	}
	pthread_mutex_unlock(&block_mutex);
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

/* perf's units: whole ns below a microsecond, two decimals above. */
static void fmt_ns(char *buf, size_t len, u64 ns)
{
	if (ns < 1000ULL)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000ULL)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1000000000ULL)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

void lockstat_print(FILE *f, enum lockstat_sort sort)
{
	struct stat_row rows[NR_SLOTS];
	int i, n = lockstat_nr_sites(), nr_rows = 0, cls_w = 5;
	const char *type = lock_impl_name(READ_ONCE(lrulab_lock_impl));

	pthread_mutex_lock(&block_mutex);
	for (i = 0; i < n; i++) {
		struct stat_row *r = &rows[nr_rows];

		r->site = site_table[i];
		memset(&r->st, 0, sizeof(r->st));
		read_id(i, &r->st);
		if (!r->st.acquired)
			continue;
		if ((int)strlen(r->site->cls) > cls_w)
			cls_w = (int)strlen(r->site->cls);
		nr_rows++;
	}
	pthread_mutex_unlock(&block_mutex);

	qsort_r(rows, nr_rows, sizeof(rows[0]), row_cmp, &sort);

	fprintf(f, " %10s %12s %12s %12s %12s %12s %12s %12s   %-*s   %s\n\n",
		"contended", "total wait", "max wait", "avg wait", "type",
		"acquired", "hold total", "avg hold", cls_w, "class", "caller");
	for (i = 0; i < nr_rows; i++) {
		const struct lock_stat *st = &rows[i].st;
		char tw[32], mw[32], aw[32], ht[32], ah[32];

		fmt_ns(tw, sizeof(tw), st->wait_total_ns);
		fmt_ns(mw, sizeof(mw), st->wait_max_ns);
		fmt_ns(aw, sizeof(aw), st->contended ?
		       st->wait_total_ns / st->contended : 0);
		fmt_ns(ht, sizeof(ht), st->hold_total_ns);
		fmt_ns(ah, sizeof(ah), st->hold_total_ns / st->acquired);
		fprintf(f, " %10llu %12s %12s %12s %12s %12llu %12s %12s   %-*s   %s\n",
			(unsigned long long)st->contended, tw, mw, aw, type,
			(unsigned long long)st->acquired, ht, ah,
			cls_w, rows[i].site->cls, rows[i].site->caller);
	}
}
