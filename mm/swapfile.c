// SPDX-License-Identifier: MIT
/*
 * The swap device (the kernel's mm/swapfile.c): its slots and their
 * counts, the clusters and their lists, slot allocation and freeing,
 * swapon and swapoff, and the cluster check.  The swap cache, swap-in
 * and the swap fault are in mm/swap_state.c, storing and loading a
 * slot's page in mm/page_io.c; what the three share is in
 * mm/swap-internal.h.
 *
 * One device of slots in clusters of SWAPFILE_CLUSTER, as the kernel has
 * had them since its swap allocator rework.  All there is to a slot (its
 * count, the swap cache's folio, the shadow, the stored data) belongs to
 * the slot's cluster and is read or changed under that cluster's lock
 * alone, so reclaim and faults that touch different clusters never meet.
 * Slot 0 is never handed out so that a zero swap entry means "none".  A
 * slot is in use while its count (PTEs and shmem page-cache entries
 * naming it) is non-zero or the swap cache holds a folio for it; a
 * shadow entry lives in a slot only while its count is non-zero and no
 * folio is cached, i.e. while the page is out.
 *
 * A cluster's count is its slots in use plus those that never can be
 * (slot 0, and the part of the last cluster past the device's end), so
 * that full and empty mean the same for every cluster.  Each cluster is
 * on one of three lists under swap_info.lock: free (empty), nonfull, full; or
 * on none while a model CPU holds it as its current cluster.  A CPU
 * allocates from its own cluster, onwards from its last slot, with no
 * lock but that cluster's; it goes to the lists for another only once it
 * reaches the end.  Frees move clusters back: full -> nonfull at the
 * first, nonfull -> free at the last, while a CPU's current cluster
 * stays where it is.  Once the lists run dry, what free slots are left
 * may be in clusters that CPUs hold, and the allocator takes one from
 * there without taking the cluster.
 *
 * Lock order: i_lock (shmem) -> ci->lock; the PTE lock -> ci->lock;
 * ci->lock -> swap_info.lock.  No two cluster locks are held at once.  swap_info.lock
 * guards only the cluster lists; the one lock taken under it is a
 * cluster's, by trylock (to take the cluster off a list, against the
 * order).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/mmdebug.h>
#include <lrulab/memcontrol.h>

#include "swap-internal.h"

struct swap_info_struct swap_info;

/*
 * A model CPU's current cluster, as the offset its next allocation
 * starts from; 0 while it holds none.  The kernel's per-CPU cluster
 * needs a local lock; a model CPU is one thread at a time, so this needs
 * none.  Unlike the kernel's, which sits on its frag list where others
 * may pick it up, the cluster is off every list while a CPU holds it:
 * nobody else allocates from it unless nothing else is left.
 */
static struct percpu_swap_cluster {
	unsigned long next;
} ____cacheline_aligned percpu_swap_cluster[LRULAB_MAX_CPUS];

/* ---- clusters ---- */

static inline unsigned long cluster_offset(const struct swap_cluster_info *ci)
{
	return (unsigned long)(ci - swap_info.cluster_info) * SWAPFILE_CLUSTER;
}

static inline unsigned long cluster_end(const struct swap_cluster_info *ci)
{
	unsigned long end = cluster_offset(ci) + SWAPFILE_CLUSTER;

	return end < swap_info.max ? end : swap_info.max;
}

static bool cluster_on_list(const struct swap_cluster_info *ci)
{
	return ci->flags == CLUSTER_FLAG_FREE || ci->flags == CLUSTER_FLAG_NONFULL ||
	       ci->flags == CLUSTER_FLAG_FULL;
}

/* Under ci->lock: onto the tail of @list, off the one it was on. */
static void move_cluster(struct swap_cluster_info *ci, struct list_head *list,
			 enum cluster_flags flags)
{
	spin_lock_at(&swap_info.lock, LOCK_SITE("swap_info"));
	if (cluster_on_list(ci))
		list_del(&ci->list);
	list_add_tail(&ci->list, list);
	ci->flags = (u8)flags;
	spin_unlock(&swap_info.lock);
}

/*
 * Under ci->lock, for a cluster no CPU holds: onto the list its count
 * calls for.  A free leaves most clusters where they are, and then
 * swap_info.lock is not touched.
 */
static void relocate_cluster(struct swap_cluster_info *ci)
{
	if (!ci->count) {
		if (ci->flags != CLUSTER_FLAG_FREE)
			move_cluster(ci, &swap_info.free_clusters, CLUSTER_FLAG_FREE);
	} else if (ci->count < SWAPFILE_CLUSTER) {
		if (ci->flags != CLUSTER_FLAG_NONFULL)
			move_cluster(ci, &swap_info.nonfull_clusters, CLUSTER_FLAG_NONFULL);
	} else if (ci->flags != CLUSTER_FLAG_FULL) {
		move_cluster(ci, &swap_info.full_clusters, CLUSTER_FLAG_FULL);
	}
}

/*
 * The first cluster on @list whose lock is free right now, taken off the
 * list and returned locked; NULL if there is none.  The trylock is what
 * lets this take a cluster lock under swap_info.lock: one that is busy is
 * passed over, never waited for.
 */
static struct swap_cluster_info *isolate_lock_cluster(struct list_head *list)
{
	struct swap_cluster_info *ci, *found = NULL;

	spin_lock_at(&swap_info.lock, LOCK_SITE("swap_info"));
	list_for_each_entry(ci, list, list) {
		if (!spin_trylock_at(&ci->lock, LOCK_SITE("swap_cluster")))
			continue;
		list_del(&ci->list);
		ci->flags = CLUSTER_FLAG_NONE;
		found = ci;
		break;
	}
	spin_unlock(&swap_info.lock);
	return found;
}

/*
 * Under ci->lock: the first free slot of the cluster from @offset on
 * goes to @folio, which enters the swap cache.  0 when there is none.
 */
static unsigned long cluster_alloc_slot(struct swap_cluster_info *ci, unsigned long offset,
					struct folio *folio)
{
	unsigned long end = cluster_end(ci);

	if (ci->count == SWAPFILE_CLUSTER)
		return 0;
	for (; offset < end; offset++) {
		struct swap_slot *s = &swap_info.slots[offset];

		if (s->count || s->cache)
			continue;
		s->cache = folio;
		WRITE_ONCE(ci->count, ci->count + 1);
		atomic_long_inc(&swap_info.inuse);
		atomic_long_inc(&swap_info.cached);
		/* the swap cache's reference, as the page cache's */
		folio_ref_add(folio, 1);
		folio->private = offset;
		folio_set_swapcache(folio);
		return offset;
	}
	return 0;
}

/*
 * Under ci->lock, which it drops: a slot from @ci, this CPU's current
 * cluster or one just taken off a list, from @offset on.  The CPU (when
 * there is one, @pcp) keeps the cluster while there is room past the
 * slot it got; otherwise the cluster goes onto the list its count says.
 */
static unsigned long alloc_swap_scan_cluster(struct swap_cluster_info *ci, unsigned long offset,
					     struct folio *folio, struct percpu_swap_cluster *pcp)
{
	unsigned long found, next = 0;

	found = cluster_alloc_slot(ci, offset, folio);
	if (found && found + 1 < cluster_end(ci) && ci->count < SWAPFILE_CLUSTER)
		next = found + 1;
	if (pcp && next)
		ci->flags = CLUSTER_FLAG_PERCPU;
	else
		relocate_cluster(ci);
	unlock_cluster(ci);
	if (pcp)
		pcp->next = next;
	return found;
}

/*
 * Nothing on the lists would do (or all of it was busy): the slots left
 * are in clusters CPUs hold, or were freed a moment ago.  Take one from
 * wherever it is; a CPU's cluster stays that CPU's.
 */
static unsigned long alloc_swap_scan_all(struct folio *folio)
{
	unsigned long i, found;

	for (i = 0; i < swap_info.nr_clusters; i++) {
		struct swap_cluster_info *ci = &swap_info.cluster_info[i];

		if (READ_ONCE(ci->count) == SWAPFILE_CLUSTER)
			continue;
		spin_lock_at(&ci->lock, LOCK_SITE("swap_cluster"));
		found = cluster_alloc_slot(ci, cluster_offset(ci), folio);
		if (found && ci->flags != CLUSTER_FLAG_PERCPU)
			relocate_cluster(ci);
		unlock_cluster(ci);
		if (found)
			return found;
	}
	return 0;
}

static unsigned long cluster_alloc_swap_entry(struct folio *folio)
{
	int cpu = smp_processor_id();
	struct percpu_swap_cluster *pcp = cpu >= 0 ? &percpu_swap_cluster[cpu] : NULL;
	struct swap_cluster_info *ci;
	unsigned long found;

	/* the fast path: on in this CPU's cluster, swap_info.lock untouched */
	if (pcp && pcp->next) {
		ci = lock_cluster(pcp->next);
		found = alloc_swap_scan_cluster(ci, pcp->next, folio, pcp);
		if (found)
			return found;
	}
	/*
	 * A new cluster: a part-used one before an empty one, as the
	 * kernel does, so that empty clusters stay whole.  Either has a
	 * free slot from its start.
	 */
	ci = isolate_lock_cluster(&swap_info.nonfull_clusters);
	if (!ci)
		ci = isolate_lock_cluster(&swap_info.free_clusters);
	if (ci) {
		found = alloc_swap_scan_cluster(ci, cluster_offset(ci), folio, pcp);
		if (found)
			return found;
	}
	return alloc_swap_scan_all(folio);
}

/* ---- the device ---- */

int swapon(unsigned long nr_slots, enum swap_store_mode mode)
{
	unsigned long max, nr, i;
	void *clusters;

	if (!nr_slots || nr_slots > (1UL << 40) ||
	    (mode != SWAP_STORE_ZSTD && mode != SWAP_STORE_COPY))
		return -EINVAL;
	if (swap_info.on)
		return -EBUSY;
	max = nr_slots + 1;
	nr = (max + SWAPFILE_CLUSTER - 1) / SWAPFILE_CLUSTER;
	swap_info.slots = calloc(max, sizeof(*swap_info.slots));
	if (!swap_info.slots)
		return -ENOMEM;
	if (posix_memalign(&clusters, L1_CACHE_BYTES, nr * sizeof(*swap_info.cluster_info))) {
		free(swap_info.slots);
		swap_info.slots = NULL;
		return -ENOMEM;
	}
	memset(clusters, 0, nr * sizeof(*swap_info.cluster_info));
	swap_info.cluster_info = clusters;
	swap_info.nr_clusters = nr;
	swap_info.mode = mode;
	swap_info.max = max;
	spin_lock_init(&swap_info.lock);
	INIT_LIST_HEAD(&swap_info.free_clusters);
	INIT_LIST_HEAD(&swap_info.nonfull_clusters);
	INIT_LIST_HEAD(&swap_info.full_clusters);
	/* where the kernel keeps the swap header: never free */
	swap_info.slots[0].count = 1;
	for (i = 0; i < nr; i++) {
		struct swap_cluster_info *ci = &swap_info.cluster_info[i];

		spin_lock_init(&ci->lock);
		ci->count = (u16)(SWAPFILE_CLUSTER - (cluster_end(ci) - cluster_offset(ci)));
		if (!i)
			ci->count++;
		if (ci->count) {
			ci->flags = CLUSTER_FLAG_NONFULL;
			list_add_tail(&ci->list, &swap_info.nonfull_clusters);
		} else {
			ci->flags = CLUSTER_FLAG_FREE;
			list_add_tail(&ci->list, &swap_info.free_clusters);
		}
	}
	memset(percpu_swap_cluster, 0, sizeof(percpu_swap_cluster));
	atomic_long_set(&swap_info.inuse, 0);
	atomic_long_set(&swap_info.cached, 0);
	smp_store_release(&swap_info.on, true);
	return 0;
}

void swapoff(void)
{
	unsigned long i;

	if (!swap_info.on)
		return;
	/* the writes in flight end first: they store into the slots */
	swap_io_stop();
	WRITE_ONCE(swap_info.on, false);
	for (i = 1; i < swap_info.max; i++)
		free(swap_info.slots[i].data);
	free(swap_info.slots);
	free(swap_info.cluster_info);
	swap_info.slots = NULL;
	swap_info.cluster_info = NULL;
	/* the CPUs' current clusters went with the device */
	memset(percpu_swap_cluster, 0, sizeof(percpu_swap_cluster));
	swap_free_contexts();
	swap_info.nr_clusters = 0;
	swap_info.max = 0;
}

long get_nr_swap_pages(void)
{
	if (!smp_load_acquire(&swap_info.on))
		return 0;
	return (long)(swap_info.max - 1) - atomic_long_read(&swap_info.inuse);
}

unsigned long total_swap_pages(void)
{
	return smp_load_acquire(&swap_info.on) ? swap_info.max - 1 : 0;
}

unsigned long swap_slots_used(void)
{
	if (!smp_load_acquire(&swap_info.on))
		return 0;
	return (unsigned long)atomic_long_read(&swap_info.inuse);
}

unsigned long swap_cache_nr(void)
{
	if (!smp_load_acquire(&swap_info.on))
		return 0;
	return (unsigned long)atomic_long_read(&swap_info.cached);
}

int swap_cluster_check(struct swap_cluster_stat *st, FILE *out)
{
	static const char *const names[] = { "none", "free", "nonfull", "full", "percpu" };
	unsigned long i, used = 0, cached = 0, held = 0;
	struct swap_cluster_stat local;
	struct swap_cluster_info *ci;
	int cpu, bad = 0;

#define REPORT(...) do { bad++; if (out) fprintf(out, "swap: " __VA_ARGS__); } while (0)
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (!smp_load_acquire(&swap_info.on))
		return 0;
	st->nr_clusters = swap_info.nr_clusters;

	/* quiescent, so the flags can be read here without the cluster locks */
	spin_lock_at(&swap_info.lock, LOCK_SITE("swap_info"));
	list_for_each_entry(ci, &swap_info.free_clusters, list) {
		st->nr_free++;
		if (ci->flags != CLUSTER_FLAG_FREE)
			REPORT("cluster %td on the free list is %s\n", ci - swap_info.cluster_info,
			       names[ci->flags]);
	}
	list_for_each_entry(ci, &swap_info.nonfull_clusters, list) {
		st->nr_nonfull++;
		if (ci->flags != CLUSTER_FLAG_NONFULL)
			REPORT("cluster %td on the nonfull list is %s\n",
			       ci - swap_info.cluster_info, names[ci->flags]);
	}
	list_for_each_entry(ci, &swap_info.full_clusters, list) {
		st->nr_full++;
		if (ci->flags != CLUSTER_FLAG_FULL)
			REPORT("cluster %td on the full list is %s\n", ci - swap_info.cluster_info,
			       names[ci->flags]);
	}
	spin_unlock(&swap_info.lock);

	for (i = 0; i < swap_info.nr_clusters; i++) {
		unsigned long off, n = 0, end;
		bool count_ok;

		ci = &swap_info.cluster_info[i];
		spin_lock_at(&ci->lock, LOCK_SITE("swap_cluster"));
		end = cluster_end(ci);
		for (off = cluster_offset(ci); off < end; off++) {
			struct swap_slot *s = &swap_info.slots[off];

			if (s->count || s->cache)
				n++;
			if (s->cache)
				cached++;
			if (s->shadow && (!s->count || s->cache))
				REPORT("slot %lu keeps a shadow but is not out\n", off);
		}
		used += n;
		n += SWAPFILE_CLUSTER - (end - cluster_offset(ci));
		if (ci->count != n)
			REPORT("cluster %lu counts %u slots, %lu are in use\n", i, ci->count, n);
		switch (ci->flags) {
		case CLUSTER_FLAG_FREE:
			count_ok = !ci->count;
			break;
		case CLUSTER_FLAG_NONFULL:
			count_ok = ci->count && ci->count < SWAPFILE_CLUSTER;
			break;
		case CLUSTER_FLAG_FULL:
			count_ok = ci->count == SWAPFILE_CLUSTER;
			break;
		case CLUSTER_FLAG_PERCPU:
			st->nr_percpu++;
			count_ok = true;
			break;
		default:
			REPORT("cluster %lu is on no list and no CPU's\n", i);
			count_ok = true;
		}
		if (!count_ok)
			REPORT("cluster %lu is %s with count %u\n", i, names[ci->flags], ci->count);
		unlock_cluster(ci);
	}
	/* slot 0 */
	used--;
	if (used != (unsigned long)atomic_long_read(&swap_info.inuse))
		REPORT("%lu slots in use, inuse says %ld\n", used,
		       atomic_long_read(&swap_info.inuse));
	if (cached != (unsigned long)atomic_long_read(&swap_info.cached))
		REPORT("%lu slots cached, cached says %ld\n", cached,
		       atomic_long_read(&swap_info.cached));
	if (st->nr_free + st->nr_nonfull + st->nr_full + st->nr_percpu != swap_info.nr_clusters)
		REPORT("%lu free + %lu nonfull + %lu full + %lu held != %lu clusters\n",
		       st->nr_free, st->nr_nonfull, st->nr_full, st->nr_percpu,
		       swap_info.nr_clusters);
	for (cpu = 0; cpu < LRULAB_MAX_CPUS; cpu++) {
		unsigned long next = percpu_swap_cluster[cpu].next;

		if (!next)
			continue;
		held++;
		if (next >= swap_info.max || cluster_of(next)->flags != CLUSTER_FLAG_PERCPU)
			REPORT("CPU %d goes on at slot %lu, in a cluster it does not hold\n",
			       cpu, next);
	}
	if (held != st->nr_percpu)
		REPORT("%lu CPUs hold a cluster, %lu clusters are held\n", held, st->nr_percpu);
#undef REPORT
	return bad;
}

/* Under ci->lock: a slot nobody names or caches goes back to its cluster. */
void *slot_maybe_free(struct swap_cluster_info *ci, struct swap_slot *s)
{
	void *data;

	if (s->count || s->cache)
		return NULL;
	data = s->data;
	s->data = NULL;
	s->shadow = NULL;
	s->len = 0;
	WRITE_ONCE(ci->count, ci->count - 1);
	atomic_long_sub(1, &swap_info.inuse);
	/* a CPU's current cluster stays with it, however empty */
	if (ci->flags != CLUSTER_FLAG_PERCPU)
		relocate_cluster(ci);
	/* freed by the caller, after the unlock */
	return data;
}

int folio_alloc_swap(struct folio *folio)
{
	if (folio_test_large(folio))
		return -EINVAL;
	if (!smp_load_acquire(&swap_info.on))
		return -ENOMEM;
	/* a full device fails here, without a lock */
	if (get_nr_swap_pages() <= 0)
		return -ENOMEM;
	if (!cluster_alloc_swap_entry(folio))
		return -ENOMEM;
	lruvec_stat_mod_folio(folio, NR_SWAPCACHE, 1);
	return 0;
}

void swap_duplicate(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;

	ci = lock_cluster(entry.val);
	s->count++;
	unlock_cluster(ci);
}

void swap_free(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	void *data;

	if (!s)
		return;
	ci = lock_cluster(entry.val);
	VM_BUG_ON(!s->count);
	s->count--;
	data = slot_maybe_free(ci, s);
	unlock_cluster(ci);
	free(data);
}

int __swap_count(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	int n;

	if (!s)
		return 0;
	ci = lock_cluster(entry.val);
	n = (int)s->count;
	unlock_cluster(ci);
	return n;
}
