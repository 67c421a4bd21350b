/* SPDX-License-Identifier: MIT */
/*
 * Trace events: how the model tells whoever is listening what it does,
 * without knowing who listens.  Each event is declared once, in
 * <lrulab/trace_events.h>; the model calls trace_<name>() where the thing
 * happens, and a consumer (the predictor's recorder, the benchmarks'
 * readahead and hold-profile counters, a test) registers a probe.
 *
 * With no probe registered an event costs its caller one relaxed load of
 * its enabled flag and a not-taken branch; the call that follows is out
 * of line and cold.  Events that happen inside short lru_lock holds (the
 * shared-line events) are not calls at all: trace_<name>() appends a
 * struct trace_entry to the calling thread's ring with a few stores, and
 * the entries reach the probes when the ring is drained: by a consumer
 * when it chooses (trace_ring_drain(), the recorder does it once the
 * outermost hold is timed), or by the tracer when the ring is full.
 *
 * Probes are registered and unregistered at quiescent points (no thread
 * in the model), as lockstat_set_mode() is used.  A probe runs on the
 * thread that fired the event.
 */
#ifndef LRULAB_TRACE_H
#define LRULAB_TRACE_H

#include <lrulab/types.h>
#include <lrulab/spinlock.h>

/* The sections of an lru_lock hold that --profile-hold times. */
enum lru_hold_section {
	LRU_HOLD_LIST,		/* list_add / list_del */
	LRU_HOLD_LRU_SIZE,	/* mem_cgroup_update_lru_size */
	LRU_HOLD_STAT,		/* mod_lruvec_state under the lock */
	LRU_HOLD_ZONE_STAT,	/* __mod_zone_page_state */
	NR_LRU_HOLD_SECTIONS
};

#define TRACE_MAX_PROBES	4

typedef void (*trace_probe_fn)(void);

struct trace_probe {
	trace_probe_fn fn;	/* cast back to the event's probe type */
	void *data;
};

struct trace_event {
	bool enabled;		/* a probe is registered: the hot paths read only this */
	bool ring;		/* logged to the thread's ring */
	const char *name;
	const char *what;	/* ring events: what an entry says */
	int nr_probes;
	struct trace_probe probes[TRACE_MAX_PROBES];
};

#define TP_PROTO(...)	__VA_ARGS__
#define TP_ARGS(...)	__VA_ARGS__

enum trace_event_id {
#define TRACE_EVENT(name, proto, args)	TRACE_ID_##name,
#define TRACE_EVENT_NOARGS(name)	TRACE_ID_##name,
#define TRACE_RING_EVENT(name, what)	TRACE_ID_##name,
#include <lrulab/trace_events.h>
#undef TRACE_EVENT
#undef TRACE_EVENT_NOARGS
#undef TRACE_RING_EVENT
	NR_TRACE_EVENTS,
};

/* One event logged to a ring.  What each field holds is the event's. */
struct trace_entry {
	u32 ctx;		/* the thread's context when it was logged (trace_ring_set_context) */
	u8 ctx_in;
	u8 event;		/* enum trace_event_id */
	u8 b0, b1;
	u32 arg;
	uintptr_t p0, p1;
};

#define TRACE_RING_SIZE	64

/*
 * A thread's ring, and the context a consumer that follows lock sections
 * stamps its entries with: an id of its own for where the thread is, a
 * flag (inside a hold or not) and the innermost lock it has seen taken,
 * which the model reads to avoid logging what that consumer would drop.
 */
struct trace_ring {
	u32 ctx;
	u32 ctx_in;
	const spinlock_t *ctx_lock;
	u32 nr;
	struct trace_entry e[TRACE_RING_SIZE];
};

extern struct trace_event trace_events[NR_TRACE_EVENTS];
extern __thread struct trace_ring trace_ring;

/*
 * The calling thread's ring.  Under the sanitizers its address goes
 * through a register first: GCC 12 folds UBSan's null check of a
 * thread-local address into the ASan check before it and tests stale
 * flags, reporting a null ring that is not (test_trace.c under ASan).
 */
static inline struct trace_ring *trace_ring_self(void)
{
	struct trace_ring *r = &trace_ring;

#ifdef LRULAB_SANITIZE
	__asm__("" : "+r"(r));
#endif
	return r;
}

#define trace_on(name)	unlikely(READ_ONCE(trace_events[TRACE_ID_##name].enabled))

/* 0, -ENOSPC (TRACE_MAX_PROBES already), -EEXIST (the same fn and data) or -EINVAL */
int trace_probe_register(enum trace_event_id id, trace_probe_fn fn, void *data);
/* 0, or -ENOENT: not registered */
int trace_probe_unregister(enum trace_event_id id, trace_probe_fn fn, void *data);
/* by name, as the list spells it; NR_TRACE_EVENTS when there is none */
enum trace_event_id trace_event_find(const char *name);
const char *trace_event_name(enum trace_event_id id);

/* Hand the calling thread's ring to the probes, in order, and empty it. */
void trace_ring_drain(void);
/* Empty it without handing anything on: what it holds is stale to its consumer. */
static inline void trace_ring_discard(void)
{
	trace_ring_self()->nr = 0;
}

static inline void trace_ring_set_context(u32 ctx, bool in, const spinlock_t *lock)
{
	struct trace_ring *r = trace_ring_self();

	r->ctx = ctx;
	r->ctx_in = in;
	r->ctx_lock = lock;
}

static inline struct trace_entry *trace_ring_log(enum trace_event_id id)
{
	struct trace_ring *r = trace_ring_self();
	struct trace_entry *e;

	if (unlikely(r->nr == TRACE_RING_SIZE))
		trace_ring_drain();
	e = &r->e[r->nr++];
	e->ctx = r->ctx;
	e->ctx_in = (u8)r->ctx_in;
	e->event = (u8)id;
	return e;
}

/* ---- call events: trace_<name>(), register_trace_<name>() ---- */

#define __TRACE_REGISTER(name)							\
	static inline int register_trace_##name(trace_##name##_probe fn, void *data) \
	{									\
		return trace_probe_register(TRACE_ID_##name, (trace_probe_fn)fn, data); \
	}									\
	static inline int unregister_trace_##name(trace_##name##_probe fn, void *data) \
	{									\
		return trace_probe_unregister(TRACE_ID_##name, (trace_probe_fn)fn, data); \
	}

#define TRACE_EVENT(name, proto, args)						\
	typedef void (*trace_##name##_probe)(void *data, proto);		\
	void __trace_##name(proto) __attribute__((noinline, cold));		\
	static inline void trace_##name(proto)					\
	{									\
		if (trace_on(name))						\
			__trace_##name(args);					\
	}									\
	__TRACE_REGISTER(name)
#define TRACE_EVENT_NOARGS(name)						\
	typedef void (*trace_##name##_probe)(void *data);			\
	void __trace_##name(void) __attribute__((noinline, cold));		\
	static inline void trace_##name(void)					\
	{									\
		if (trace_on(name))						\
			__trace_##name();					\
	}									\
	__TRACE_REGISTER(name)
#define TRACE_RING_EVENT(name, what)						\
	typedef void (*trace_##name##_probe)(void *data, const struct trace_entry *e); \
	__TRACE_REGISTER(name)
#include <lrulab/trace_events.h>
#undef TRACE_EVENT
#undef TRACE_EVENT_NOARGS
#undef TRACE_RING_EVENT

/* ---- ring events: what each logs ---- */

static inline u8 trace_clamp_u8(long v)
{
	return (u8)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/*
 * vmstat_fold: p0 the zone's (node's) atomic, p1 the global one, arg the
 * zone's managed memory in 128 MB units (a node's: its largest zone's),
 * b0 the stat_threshold in force, b1 |delta| of the update (0 for the
 * inc/dec kind, which overstep by half the threshold).
 */
static inline void trace_vmstat_fold(const void *line, const void *global,
				     u32 managed_128m, int threshold, long step)
{
	struct trace_entry *e;

	if (!trace_on(vmstat_fold))
		return;
	e = trace_ring_log(TRACE_ID_vmstat_fold);
	e->p0 = (uintptr_t)line;
	e->p1 = (uintptr_t)global;
	e->arg = managed_128m;
	e->b0 = trace_clamp_u8(threshold);
	e->b1 = trace_clamp_u8(step);
}

/* memcg_batch: p0 the memcg's stats_updates atomic, arg the updates added */
static inline void trace_memcg_batch(const void *line, unsigned int updates)
{
	struct trace_entry *e;

	if (!trace_on(memcg_batch))
		return;
	e = trace_ring_log(TRACE_ID_memcg_batch);
	e->p0 = (uintptr_t)line;
	e->p1 = 0;
	e->arg = updates;
	e->b0 = e->b1 = 0;
}

/* page_counter: p0 the counter's usage */
static inline void trace_page_counter(const void *usage)
{
	struct trace_entry *e;

	if (!trace_on(page_counter))
		return;
	e = trace_ring_log(TRACE_ID_page_counter);
	e->p0 = (uintptr_t)usage;
	e->p1 = 0;
	e->arg = 0;
	e->b0 = e->b1 = 0;
}

/*
 * pair_read: p0 the line read.  A line read again in the same context
 * within the last few entries is not logged again: a stat update reads
 * two lines, and a consumer that costs a context's reads at one instant
 * finds the second read there already.
 */
#define TRACE_PAIR_LOOKBACK	8

static inline void trace_pair_read(const void *line)
{
	const struct trace_ring *r = trace_ring_self();
	struct trace_entry *e;
	u32 i;

	if (!trace_on(pair_read))
		return;
	for (i = r->nr; i > 0 && r->nr - i < TRACE_PAIR_LOOKBACK; i--) {
		const struct trace_entry *p = &r->e[i - 1];

		if (p->ctx != r->ctx || p->ctx_in != r->ctx_in)
			break;
		if (p->event == TRACE_ID_pair_read && p->p0 >> 6 == (uintptr_t)line >> 6)
			return;
	}
	e = trace_ring_log(TRACE_ID_pair_read);
	e->p0 = (uintptr_t)line;
	e->p1 = 0;
	e->arg = 0;
	e->b0 = e->b1 = 0;
}

/*
 * The address-space events (mmap_lock_prefetch, vma_refcnt, rss_counter,
 * tlb_flush_pending, tlb_flush, pte_table): p0 the line written (or
 * prefetched), p1 the mm it belongs to (NULL for a VMA's own line), so
 * that a consumer can tell a line of the mm, which every thread of a
 * process shares, from one of a VMA; arg and b0 as each event says.
 */
static inline void __trace_mm_line(enum trace_event_id id, const void *line,
				   const void *mm, u32 arg, u8 b0)
{
	struct trace_entry *e = trace_ring_log(id);

	e->p0 = (uintptr_t)line;
	e->p1 = (uintptr_t)mm;
	e->arg = arg;
	e->b0 = b0;
	e->b1 = 0;
}

#define trace_mm_line(name, line, mm, arg, b0)					\
	do {									\
		if (trace_on(name))						\
			__trace_mm_line(TRACE_ID_##name, line, mm, arg, b0);	\
	} while (0)

/* clear_page: arg the bytes cleared (a folio's, or a page table's) */
static inline void trace_clear_page(unsigned long bytes)
{
	struct trace_entry *e;

	if (!trace_on(clear_page))
		return;
	e = trace_ring_log(TRACE_ID_clear_page);
	e->p0 = e->p1 = 0;
	e->arg = (u32)(bytes > 0xffffffffUL ? 0xffffffffUL : bytes);
	e->b0 = e->b1 = 0;
}

/*
 * io_wait: arg the device's latency (ns), p0 how long the reader slept
 * for it here, late wake-ups included
 */
static inline void trace_io_wait(u64 latency_ns, u64 slept_ns)
{
	struct trace_entry *e;

	if (!trace_on(io_wait))
		return;
	e = trace_ring_log(TRACE_ID_io_wait);
	e->p0 = (uintptr_t)slept_ns;
	e->p1 = 0;
	e->arg = (u32)(latency_ns > 0xffffffffULL ? 0xffffffffULL : latency_ns);
	e->b0 = e->b1 = 0;
}

/* ---- what a lock class's critical sections write ---- */

/*
 * Cache lines (addresses >> 6, or ids no address can have for lines
 * without one) that every critical section of a lock of class @cls
 * writes besides the lock word: attached by the code that initialises
 * such locks, asked for by consumers that cost line transfers.  The
 * callback fills at most @max and returns how many.
 */
typedef int (*lock_class_lines_fn)(const spinlock_t *lock, uintptr_t *lines, int max);

/* 0, or -ENOSPC when the table is full; attaching a class again replaces its callback */
int lock_class_set_lines(const char *cls, lock_class_lines_fn fn);
/* the lines of @lock, a lock of class @cls; 0 when the class has none attached */
int lock_class_lines(const char *cls, const spinlock_t *lock, uintptr_t *lines, int max);

#endif /* LRULAB_TRACE_H */
