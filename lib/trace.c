// SPDX-License-Identifier: MIT
/*
 * The trace events' table, their probes and the threads' rings
 * (<lrulab/trace.h>).  Everything here runs off the hot paths: at
 * registration, in a probe call the caller found enabled, or when a ring
 * is drained.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <lrulab/trace.h>

struct trace_event trace_events[NR_TRACE_EVENTS] = {
#define TRACE_EVENT(ev, proto, args)	[TRACE_ID_##ev] = { .name = #ev },
#define TRACE_EVENT_NOARGS(ev)		[TRACE_ID_##ev] = { .name = #ev },
#define TRACE_RING_EVENT(ev, what_)	\
	[TRACE_ID_##ev] = { .name = #ev, .ring = true, .what = what_ },
#include <lrulab/trace_events.h>
#undef TRACE_EVENT
#undef TRACE_EVENT_NOARGS
#undef TRACE_RING_EVENT
};

__thread struct trace_ring trace_ring;

static pthread_mutex_t probe_mutex = PTHREAD_MUTEX_INITIALIZER;

int trace_probe_register(enum trace_event_id id, trace_probe_fn fn, void *data)
{
	struct trace_event *ev;
	int i, ret = 0;

	if ((unsigned int)id >= NR_TRACE_EVENTS || !fn)
		return -EINVAL;
	ev = &trace_events[id];
	pthread_mutex_lock(&probe_mutex);
	for (i = 0; i < ev->nr_probes; i++)
		if (ev->probes[i].fn == fn && ev->probes[i].data == data)
			ret = -EEXIST;
	if (!ret && ev->nr_probes == TRACE_MAX_PROBES)
		ret = -ENOSPC;
	if (!ret) {
		ev->probes[ev->nr_probes].fn = fn;
		ev->probes[ev->nr_probes].data = data;
		__atomic_store_n(&ev->nr_probes, ev->nr_probes + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&ev->enabled, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&probe_mutex);
	return ret;
}

int trace_probe_unregister(enum trace_event_id id, trace_probe_fn fn, void *data)
{
	struct trace_event *ev;
	int i, ret = -ENOENT;

	if ((unsigned int)id >= NR_TRACE_EVENTS)
		return -EINVAL;
	ev = &trace_events[id];
	pthread_mutex_lock(&probe_mutex);
	for (i = 0; i < ev->nr_probes; i++) {
		if (ev->probes[i].fn != fn || ev->probes[i].data != data)
			continue;
		memmove(&ev->probes[i], &ev->probes[i + 1],
			(ev->nr_probes - i - 1) * sizeof(ev->probes[0]));
		__atomic_store_n(&ev->nr_probes, ev->nr_probes - 1, __ATOMIC_RELEASE);
		if (!ev->nr_probes)
			__atomic_store_n(&ev->enabled, false, __ATOMIC_RELEASE);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&probe_mutex);
	return ret;
}

enum trace_event_id trace_event_find(const char *name)
{
	int i;

	for (i = 0; i < NR_TRACE_EVENTS; i++)
		if (!strcmp(trace_events[i].name, name))
			return (enum trace_event_id)i;
	return NR_TRACE_EVENTS;
}

const char *trace_event_name(enum trace_event_id id)
{
	return (unsigned int)id < NR_TRACE_EVENTS ? trace_events[id].name : NULL;
}

#define for_each_probe(ev, p) \
	for (p = (ev)->probes; p < (ev)->probes + __atomic_load_n(&(ev)->nr_probes, \
								 __ATOMIC_ACQUIRE); p++)

#define TRACE_EVENT(name, proto, args)						\
	void __trace_##name(proto)						\
	{									\
		const struct trace_probe *p;					\
										\
		for_each_probe(&trace_events[TRACE_ID_##name], p)		\
			((trace_##name##_probe)p->fn)(p->data, args);		\
	}
#define TRACE_EVENT_NOARGS(name)						\
	void __trace_##name(void)						\
	{									\
		const struct trace_probe *p;					\
										\
		for_each_probe(&trace_events[TRACE_ID_##name], p)		\
			((trace_##name##_probe)p->fn)(p->data);			\
	}
#define TRACE_RING_EVENT(name, what)
#include <lrulab/trace_events.h>
#undef TRACE_EVENT
#undef TRACE_EVENT_NOARGS
#undef TRACE_RING_EVENT

typedef void (*ring_probe)(void *data, const struct trace_entry *e);

/*
 * The ring is emptied before the probes run, so that an entry a probe
 * logs goes into a fresh ring rather than into the one being handed on.
 */
void trace_ring_drain(void)
{
	struct trace_ring *r = trace_ring_self();
	struct trace_entry batch[TRACE_RING_SIZE];
	u32 n = r->nr, i;

	memcpy(batch, r->e, n * sizeof(batch[0]));
	r->nr = 0;
	for (i = 0; i < n; i++) {
		const struct trace_event *ev = &trace_events[batch[i].event];
		const struct trace_probe *p;

		for_each_probe(ev, p)
			((ring_probe)p->fn)(p->data, &batch[i]);
	}
}

/* ---- lock classes' lines ---- */

#define MAX_LINE_CLASSES	8

static struct {
	const char *cls;
	lock_class_lines_fn fn;
} line_classes[MAX_LINE_CLASSES];
static int nr_line_classes;

int lock_class_set_lines(const char *cls, lock_class_lines_fn fn)
{
	int i, ret = 0;

	pthread_mutex_lock(&probe_mutex);
	for (i = 0; i < nr_line_classes; i++)
		if (!strcmp(line_classes[i].cls, cls))
			break;
	if (i == MAX_LINE_CLASSES) {
		ret = -ENOSPC;
	} else {
		line_classes[i].cls = cls;
		__atomic_store_n(&line_classes[i].fn, fn, __ATOMIC_RELEASE);
		if (i == nr_line_classes)
			__atomic_store_n(&nr_line_classes, i + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&probe_mutex);
	return ret;
}

int lock_class_lines(const char *cls, const spinlock_t *lock, uintptr_t *lines, int max)
{
	int n = __atomic_load_n(&nr_line_classes, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < n; i++) {
		lock_class_lines_fn fn = __atomic_load_n(&line_classes[i].fn, __ATOMIC_ACQUIRE);

		if (!strcmp(line_classes[i].cls, cls))
			return fn(lock, lines, max);
	}
	return 0;
}
