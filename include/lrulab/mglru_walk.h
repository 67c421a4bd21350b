/* SPDX-License-Identifier: MIT */
/*
 * The multi-gen LRU's aging (the kernel keeps it in mm/vmscan.c; here
 * mm/mglru_aging.c and mm/mglru_walk.c): the per-memcg list of
 * mm_structs and its per-lruvec iteration state, the two Bloom filters
 * of PTE tables worth scanning, the page-table walk that promotes folios
 * whose PTEs were young, look-around from the rmap walk, and the
 * max_seq/min_seq increments.
 *
 * The model's page tables are flat PTE arrays with one struct pte_table
 * per PMD_SIZE of a VMA (include/lrulab/mm.h); a table's ->young is the
 * accessed bit of the PMD entry that points to it, which the 0x0004
 * capability (LRU_GEN_NONLEAF_YOUNG) relies on.  The Bloom filters key
 * on the address of that struct, as the kernel keys on the PMD entry's.
 */
#ifndef LRULAB_MGLRU_WALK_H
#define LRULAB_MGLRU_WALK_H

#include <lrulab/types.h>
#include <lrulab/spinlock.h>

#define BLOOM_FILTER_SHIFT	15

/* Per memcg (the kernel's memcg->mm_list): every mm charged to it. */
struct lru_gen_mm_list {
	struct list_head fifo;
	spinlock_t lock;
};

/* mm->lru_gen */
struct lru_gen_mm {
	struct list_head list;		/* on memcg->mm_list.fifo */
	struct mem_cgroup *memcg;	/* whose list, a css reference */
	unsigned long bitmap;		/* one bit per node: used since the last walk */
};

/*
 * Locked cmpxchgs on folio->flags by the MGLRU updaters, and those the
 * mglru-skip-noop-cmpxchg switch (s2) skipped because the word would not
 * change.  Each thread counts in its own variables and folds them into
 * the totals at the end of an aging pass, and every 4096 counts of
 * folio_flags_set_mask() (eviction's refs resets, lru_gen_clear_refs(),
 * lru_gen_set_refs(), lru_gen_refault()), so no shared line is written
 * per folio.
 */
struct lru_gen_cas_stat {
	unsigned long done;		/* locked cmpxchg instructions executed */
	unsigned long skipped;		/* loops left because new == old */
};
extern __thread struct lru_gen_cas_stat lru_gen_cas_local;
void lru_gen_cas_fold(void);
void lru_gen_cas_read(struct lru_gen_cas_stat *out);

struct folio;
struct lruvec;
struct mem_cgroup;

/*
 * The kernel's set_mask_bits() on folio->flags as the MGLRU updaters use
 * it: clear @mask, set @bits, return the old word.  With
 * mglru-skip-noop-cmpxchg on, an unchanged word skips the cmpxchg.
 */
unsigned long folio_flags_set_mask(struct folio *folio, unsigned long mask,
				   unsigned long bits);

/*
 * The mm list (lru_gen_add_mm/del_mm/use_mm in <lrulab/mglru.h>:
 * mm_alloc() adds, mmput() deletes, an access from another mm than the
 * thread's last one is a context switch); a memcg's list is set up with
 * it and its lruvecs' Bloom filters are freed with it.
 */
void lru_gen_init_memcg(struct mem_cgroup *memcg);
void lru_gen_exit_memcg(struct mem_cgroup *memcg);

/* The walk statistics of @lruvec (lru_gen_full), in @stats[NR_MM_STATS]. */
void lru_gen_read_mm_stats(struct lruvec *lruvec, unsigned long *stats);

#endif /* LRULAB_MGLRU_WALK_H */
