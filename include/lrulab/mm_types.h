/* SPDX-License-Identifier: MIT */
/*
 * struct folio: one 64-byte entry per 4 KiB page of the arena, like
 * struct page.  A large folio is its head entry; the entries of its tail
 * pages carry extra fields (deferred split list) as in the kernel.
 */
#ifndef LRULAB_MM_TYPES_H
#define LRULAB_MM_TYPES_H

#include <lrulab/types.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define MAX_PAGE_ORDER 9
#define NR_PAGE_ORDERS (MAX_PAGE_ORDER + 1)
#define HPAGE_PMD_ORDER 9
#define PAGE_ALLOC_COSTLY_ORDER 3

enum pageflags {
	PG_locked,
	PG_writeback,
	PG_referenced,
	PG_uptodate,
	PG_dirty,
	PG_lru,
	PG_head,		/* first page of a large folio */
	PG_waiters,
	PG_active,
	PG_workingset,
	PG_owner_priv_1,
	PG_owner_2,
	PG_arch_1,
	PG_reserved,
	PG_private,
	PG_private_2,
	PG_reclaim,
	PG_swapbacked,
	PG_unevictable,
	PG_dropbehind,
	PG_mlocked,
	PG_buddy,		/* a page type in the kernel; here a flag */
	__NR_PAGEFLAGS,
	PG_swapcache = PG_owner_priv_1,
	PG_readahead = PG_reclaim,
};

/*
 * Non-flag fields packed from bit 63 down, at the places the reference
 * (mglru-mthp-layout.md 2.1) gives for x86-64: node 54-63, zone 51-53,
 * (cpupid 30-50, unused), MGLRU gen 27-29, MGLRU refs 25-26.
 */
#define NODES_SHIFT 10
#define NODES_PGOFF 54
#define ZONES_PGOFF 51
#define ZONES_WIDTH 3
#define LRU_GEN_WIDTH 3
#define LRU_GEN_PGOFF 27
#define LRU_REFS_WIDTH 2
#define LRU_REFS_PGOFF 25
#define LRU_GEN_MASK (((1UL << LRU_GEN_WIDTH) - 1) << LRU_GEN_PGOFF)
#define LRU_REFS_MASK (((1UL << LRU_REFS_WIDTH) - 1) << LRU_REFS_PGOFF)
#define NODES_MASK (((1UL << NODES_SHIFT) - 1) << NODES_PGOFF)
#define ZONES_MASK (((1UL << ZONES_WIDTH) - 1) << ZONES_PGOFF)

struct address_space;
struct mem_cgroup;

struct folio {
	unsigned long flags;		/* 0: pageflags + packed fields */
	union {
		struct list_head lru;	/* 8: LRU list, buddy free list */
		struct {		/* tail pages: link to the head */
			unsigned long compound_head;
			unsigned long _tail_pad;
		};
	};
	struct address_space *mapping;	/* 24 */
	unsigned long index;		/* 32: page offset in mapping */
	unsigned long memcg_data;	/* 40: struct mem_cgroup * */
	atomic_t _refcount;		/* 48 */
	atomic_t _mapcount;		/* 52: -1 = not mapped */
	unsigned long private;		/* 56: swap entry, buddy order */
};
_Static_assert(sizeof(struct folio) == 64, "struct folio must be 64 bytes");

/* The entry of the folio's second page: fields of large folios only. */
struct folio_tail1 {
	unsigned long flags;
	unsigned long compound_head;
	unsigned char _folio_order;
	unsigned char _pad[7];
	struct list_head _deferred_list;	/* 24 */
	atomic_t _entire_mapcount;		/* 40 */
	atomic_t _nr_pages_mapped;		/* 44 */
	atomic_t _refcount;			/* 48: a tail page's, always 0 */
	atomic_t _mapcount;			/* 52 */
	unsigned long _pad3;
};
_Static_assert(offsetof(struct folio_tail1, _refcount) ==
	       offsetof(struct folio, _refcount), "tail refcount overlays");
_Static_assert(sizeof(struct folio_tail1) == 64, "tail entry must be 64 bytes");

#define FOLIO_FLAG_FUNCS(name, bit)					\
static inline bool folio_test_##name(const struct folio *f)		\
{ return test_bit(bit, &f->flags); }					\
static inline void folio_set_##name(struct folio *f)			\
{ set_bit(bit, &f->flags); }						\
static inline void folio_clear_##name(struct folio *f)			\
{ clear_bit(bit, &f->flags); }						\
static inline void __folio_set_##name(struct folio *f)			\
{ __set_bit(bit, &f->flags); }						\
static inline void __folio_clear_##name(struct folio *f)		\
{ __clear_bit(bit, &f->flags); }					\
static inline bool folio_test_set_##name(struct folio *f)		\
{ return test_and_set_bit(bit, &f->flags); }				\
static inline bool folio_test_clear_##name(struct folio *f)		\
{ return test_and_clear_bit(bit, &f->flags); }

FOLIO_FLAG_FUNCS(locked, PG_locked)
FOLIO_FLAG_FUNCS(writeback, PG_writeback)
FOLIO_FLAG_FUNCS(referenced, PG_referenced)
FOLIO_FLAG_FUNCS(uptodate, PG_uptodate)
FOLIO_FLAG_FUNCS(dirty, PG_dirty)
FOLIO_FLAG_FUNCS(lru, PG_lru)
FOLIO_FLAG_FUNCS(head, PG_head)
FOLIO_FLAG_FUNCS(active, PG_active)
FOLIO_FLAG_FUNCS(workingset, PG_workingset)
FOLIO_FLAG_FUNCS(swapcache, PG_swapcache)
FOLIO_FLAG_FUNCS(reclaim, PG_reclaim)
FOLIO_FLAG_FUNCS(readahead, PG_readahead)
FOLIO_FLAG_FUNCS(swapbacked, PG_swapbacked)
FOLIO_FLAG_FUNCS(unevictable, PG_unevictable)
FOLIO_FLAG_FUNCS(mlocked, PG_mlocked)
FOLIO_FLAG_FUNCS(buddy, PG_buddy)
FOLIO_FLAG_FUNCS(dropbehind, PG_dropbehind)
#undef FOLIO_FLAG_FUNCS

static inline bool folio_test_large(const struct folio *f)
{
	return folio_test_head(f);
}
static inline unsigned int folio_order(const struct folio *f)
{
	if (!folio_test_large(f))
		return 0;
	return ((const struct folio_tail1 *)(f + 1))->_folio_order;
}
static inline long folio_nr_pages(const struct folio *f)
{
	return 1L << folio_order(f);
}
static inline struct list_head *folio_deferred_list(struct folio *f)
{
	return &((struct folio_tail1 *)(f + 1))->_deferred_list;
}
static inline int folio_nid(const struct folio *f)
{
	return (READ_ONCE(f->flags) & NODES_MASK) >> NODES_PGOFF;
}
static inline int folio_zonenum(const struct folio *f)
{
	return (READ_ONCE(f->flags) & ZONES_MASK) >> ZONES_PGOFF;
}

/* Anonymous folios have PAGE_MAPPING_ANON set in ->mapping, as in 6.x. */
#define PAGE_MAPPING_ANON 0x1UL
static inline bool folio_test_anon(const struct folio *f)
{
	return ((unsigned long)READ_ONCE(f->mapping) & PAGE_MAPPING_ANON) != 0;
}
static inline bool folio_is_file_lru(const struct folio *f)
{
	return !folio_test_swapbacked(f);
}

/* ---- reference and map counts ---- */
static inline int folio_ref_count(const struct folio *f)
{
	return atomic_read(&f->_refcount);
}
static inline void folio_get(struct folio *f)
{
	atomic_inc(&((struct folio *)f)->_refcount);
}
static inline void folio_ref_add(struct folio *f, int nr)
{
	atomic_add(nr, &f->_refcount);
}
/* Returns true when this dropped the last reference. */
static inline bool folio_ref_sub_and_test(struct folio *f, int nr)
{
	return atomic_sub_return(nr, &f->_refcount) == 0;
}
static inline bool folio_put_testzero(struct folio *f)
{
	return folio_ref_sub_and_test(f, 1);
}
static inline bool folio_try_get(struct folio *f)
{
	int old = atomic_read(&f->_refcount);

	do {
		if (old == 0)
			return false;
	} while (!atomic_try_cmpxchg(&f->_refcount, &old, old + 1));
	return true;
}
static inline bool folio_ref_freeze(struct folio *f, int count)
{
	int old = count;

	return atomic_try_cmpxchg(&f->_refcount, &old, 0);
}
static inline void folio_ref_unfreeze(struct folio *f, int count)
{
	atomic_set(&f->_refcount, count);
}
static inline int folio_mapcount(const struct folio *f)
{
	return atomic_read(&f->_mapcount) + 1;
}
static inline bool folio_mapped(const struct folio *f)
{
	return folio_mapcount(f) > 0;
}

#endif /* LRULAB_MM_TYPES_H */
