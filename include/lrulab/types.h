/* SPDX-License-Identifier: MIT */
/*
 * Kernel-flavoured basic types for lrulab: list heads, atomics on plain
 * integers (GCC __atomic builtins, so structs keep the kernel's sizes),
 * READ_ONCE/WRITE_ONCE, container_of and cacheline helpers.
 */
#ifndef LRULAB_TYPES_H
#define LRULAB_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int8_t s8;
typedef uint8_t u8;
typedef int16_t s16;
typedef uint16_t u16;
typedef int32_t s32;
typedef uint32_t u32;
typedef int64_t s64;
typedef uint64_t u64;

#define L1_CACHE_BYTES 64
#define ____cacheline_aligned __attribute__((aligned(L1_CACHE_BYTES)))
/* A zero-size member that starts a new 64-byte line, as in the kernel. */
#define CACHELINE_PADDING(name) \
	struct { } name ____cacheline_aligned

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIT(n) (1UL << (n))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#ifdef __SANITIZE_THREAD__
/*
 * ThreadSanitizer models no stand-alone fence; a sequentially consistent
 * read-modify-write is the same full barrier on x86 and one it accepts.
 */
static inline void smp_mb(void)
{
	static int mb_dummy;

	__atomic_fetch_add(&mb_dummy, 0, __ATOMIC_SEQ_CST);
}
#else
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* atomic_t / atomic_long_t: plain integers in a struct, as in the kernel. */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;

#define ATOMIC_OPS(pfx, T, ty)						\
static inline ty pfx##_read(const T *v)					\
{ return __atomic_load_n(&v->counter, __ATOMIC_RELAXED); }		\
static inline void pfx##_set(T *v, ty i)				\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELAXED); }			\
static inline void pfx##_add(ty i, T *v)				\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_sub(ty i, T *v)				\
{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline ty pfx##_add_return(ty i, T *v)				\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline ty pfx##_sub_return(ty i, T *v)				\
{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline ty pfx##_xchg(T *v, ty i)					\
{ return __atomic_exchange_n(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline bool pfx##_try_cmpxchg(T *v, ty *old, ty new_)		\
{ return __atomic_compare_exchange_n(&v->counter, old, new_, false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); }

ATOMIC_OPS(atomic, atomic_t, int)
ATOMIC_OPS(atomic_long, atomic_long_t, long)
#undef ATOMIC_OPS

static inline void atomic_inc(atomic_t *v) { atomic_add(1, v); }
static inline void atomic_dec(atomic_t *v) { atomic_sub(1, v); }
static inline void atomic_long_inc(atomic_long_t *v) { atomic_long_add(1, v); }

/* Fully ordered bit operations on an unsigned long word. */
static inline bool test_bit(int nr, const unsigned long *w)
{
	return (__atomic_load_n(w, __ATOMIC_RELAXED) >> nr) & 1;
}
static inline void set_bit(int nr, unsigned long *w)
{
	__atomic_fetch_or(w, BIT(nr), __ATOMIC_SEQ_CST);
}
static inline void clear_bit(int nr, unsigned long *w)
{
	__atomic_fetch_and(w, ~BIT(nr), __ATOMIC_SEQ_CST);
}
static inline bool test_and_set_bit(int nr, unsigned long *w)
{
	return (__atomic_fetch_or(w, BIT(nr), __ATOMIC_SEQ_CST) >> nr) & 1;
}
static inline bool test_and_clear_bit(int nr, unsigned long *w)
{
	return (__atomic_fetch_and(w, ~BIT(nr), __ATOMIC_SEQ_CST) >> nr) & 1;
}
/* Non-atomic variants: only when nobody else can see the word. */
static inline void __set_bit(int nr, unsigned long *w)
{
	WRITE_ONCE(*w, READ_ONCE(*w) | BIT(nr));
}
static inline void __clear_bit(int nr, unsigned long *w)
{
	WRITE_ONCE(*w, READ_ONCE(*w) & ~BIT(nr));
}

/* Doubly linked list, same semantics as the kernel's <linux/list.h>. */
struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}
static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}
static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = NULL;
	e->prev = NULL;
}
static inline void list_del_init(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	INIT_LIST_HEAD(e);
}
static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}
static inline void list_move(struct list_head *e, struct list_head *head)
{
	list_del(e);
	list_add(e, head);
}
static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	list_del(e);
	list_add_tail(e, head);
}
static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (list_empty(list))
		return;
	list->next->prev = head->prev;
	head->prev->next = list->next;
	list->prev->next = head;
	head->prev = list->prev;
	INIT_LIST_HEAD(list);
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_last_entry(h, type, member) list_entry((h)->prev, type, member)
#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),	\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

#endif /* LRULAB_TYPES_H */
