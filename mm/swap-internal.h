/* SPDX-License-Identifier: MIT */
/*
 * What mm/swapfile.c, mm/swap_state.c and mm/page_io.c share and nothing
 * outside them may use, as mm/swap.h is to the kernel's: the device, its
 * slots and clusters, and the cluster lock.  The lock order is in
 * mm/swapfile.c's header.
 */
#ifndef LRULAB_MM_SWAP_INTERNAL_H
#define LRULAB_MM_SWAP_INTERNAL_H

#include <lrulab/swap_state.h>

/* Every field under the lock of the slot's cluster. */
struct swap_slot {
	unsigned int count;
	struct folio *cache;
	void *shadow;
	void *data;		/* compressed bytes; NULL: same-filled */
	unsigned int len;
	unsigned long fill;	/* the repeated word of a same-filled page */
};

/* Which list a cluster is on: changed under its lock, and swap_info.lock for a list. */
enum cluster_flags {
	CLUSTER_FLAG_NONE,	/* on none: taken off to allocate from, still locked */
	CLUSTER_FLAG_FREE,	/* swap_info.free_clusters, count 0 */
	CLUSTER_FLAG_NONFULL,	/* swap_info.nonfull_clusters */
	CLUSTER_FLAG_FULL,	/* swap_info.full_clusters, count SWAPFILE_CLUSTER */
	CLUSTER_FLAG_PERCPU,	/* on none: a model CPU's current cluster */
};

/*
 * One cache line each (padded, and the array line-aligned), where the
 * kernel packs them: two CPUs usually allocate from neighbouring
 * clusters, and their lock words sharing a line would cost every slot
 * operation a line transfer.  Padding rather than an aligned type: a
 * list head outside the array must not look misaligned to
 * list_for_each_entry().
 */
struct swap_cluster_info {
	spinlock_t lock;	/* the fields below and the cluster's slots */
	u16 count;		/* slots in use, and those that never can be */
	u8 flags;		/* enum cluster_flags */
	struct list_head list;	/* under swap_info.lock */
	char pad[L1_CACHE_BYTES - 8 - sizeof(struct list_head)];
};
_Static_assert(sizeof(struct swap_cluster_info) == L1_CACHE_BYTES,
	       "a swap cluster is one cache line");

struct swap_info_struct {
	bool on;
	enum swap_store_mode mode;
	unsigned long max;		/* slots, including the unused slot 0 */
	unsigned long nr_clusters;
	struct swap_cluster_info *cluster_info;
	struct swap_slot *slots;

	/* written only when a cluster changes lists */
	CACHELINE_PADDING(_pad1_);
	spinlock_t lock;
	struct list_head free_clusters;
	struct list_head nonfull_clusters;
	struct list_head full_clusters;

	/* written by every allocation and free, read without a lock */
	CACHELINE_PADDING(_pad2_);
	atomic_long_t inuse;
	atomic_long_t cached;
};

/* The one device (the kernel keeps an array of them). */
extern struct swap_info_struct swap_info;

static inline struct swap_cluster_info *cluster_of(unsigned long offset)
{
	return &swap_info.cluster_info[offset / SWAPFILE_CLUSTER];
}

/* A macro, so that the lock statistics name each caller. */
#define lock_cluster(offset) ({						\
	struct swap_cluster_info *__ci = cluster_of(offset);		\
	spin_lock_at(&__ci->lock, LOCK_SITE("swap_cluster"));		\
	__ci; })

static inline void unlock_cluster(struct swap_cluster_info *ci)
{
	spin_unlock(&ci->lock);
}

static inline struct swap_slot *slot_of(swp_entry_t entry)
{
	if (!entry.val || entry.val >= swap_info.max)
		return NULL;
	return &swap_info.slots[entry.val];
}

/* swapfile.c */
void *slot_maybe_free(struct swap_cluster_info *ci, struct swap_slot *s);

/* page_io.c */
void swap_read_folio(struct folio *folio, swp_entry_t entry);
void swap_free_contexts(void);

#endif /* LRULAB_MM_SWAP_INTERNAL_H */
