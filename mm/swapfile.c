// SPDX-License-Identifier: MIT
/*
 * The swap device, its slots and the swap cache (the kernel's
 * mm/swapfile.c, mm/swap_state.c and the zram side of mm/page_io.c), and
 * the anonymous swap fault (do_swap_page, from mm/memory.c).
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
 * on one of three lists under si.lock: free (empty), nonfull, full; or
 * on none while a model CPU holds it as its current cluster.  A CPU
 * allocates from its own cluster, onwards from its last slot, with no
 * lock but that cluster's; it goes to the lists for another only once it
 * reaches the end.  Frees move clusters back: full -> nonfull at the
 * first, nonfull -> free at the last, while a CPU's current cluster
 * stays where it is.  Once the lists run dry, what free slots are left
 * may be in clusters that CPUs hold, and the allocator takes one from
 * there without taking the cluster.
 *
 * Storing a page costs what zram's does: a same-filled page (the common
 * zero page) is kept as its fill value, anything else is compressed with
 * zstd (or copied, in SWAP_STORE_COPY mode) into a buffer of its own.
 * The work runs outside every lock, on the reclaiming CPU.
 *
 * Lock order: i_lock (shmem) -> ci->lock; the PTE lock -> ci->lock;
 * ci->lock -> si.lock.  No two cluster locks are held at once.  si.lock
 * guards only the cluster lists; the one lock taken under it is a
 * cluster's, by trylock (to take the cluster off a list, against the
 * order).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <lrulab/memcontrol.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap_state.h>
#include <lrulab/vmscan.h>
#include <lrulab/vmstat.h>

/* Every field under the lock of the slot's cluster. */
struct swap_slot {
	unsigned int count;
	struct folio *cache;
	void *shadow;
	void *data;		/* compressed bytes; NULL: same-filled */
	unsigned int len;
	unsigned long fill;	/* the repeated word of a same-filled page */
};

/* Which list a cluster is on; changed under its lock and, for a list, si.lock. */
enum cluster_flags {
	CLUSTER_FLAG_NONE,	/* on none: taken off to allocate from, still locked */
	CLUSTER_FLAG_FREE,	/* si.free_clusters, count 0 */
	CLUSTER_FLAG_NONFULL,	/* si.nonfull_clusters */
	CLUSTER_FLAG_FULL,	/* si.full_clusters, count SWAPFILE_CLUSTER */
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
	struct list_head list;	/* under si.lock */
	char pad[L1_CACHE_BYTES - 8 - sizeof(struct list_head)];
};
_Static_assert(sizeof(struct swap_cluster_info) == L1_CACHE_BYTES,
	       "a swap cluster is one cache line");

static struct swap_info_struct {
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
} si;

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

/*
 * zstd contexts per model CPU, as zram keeps a compression stream per
 * CPU: creating one per page would cost more than compressing it.  A
 * model CPU is one thread at a time, so its contexts need no lock.
 */
static ZSTD_CCtx *swap_cctx[LRULAB_MAX_CPUS];
static ZSTD_DCtx *swap_dctx[LRULAB_MAX_CPUS];

static void swap_free_contexts(void)
{
	int cpu;

	for (cpu = 0; cpu < LRULAB_MAX_CPUS; cpu++) {
		ZSTD_freeCCtx(swap_cctx[cpu]);
		ZSTD_freeDCtx(swap_dctx[cpu]);
		swap_cctx[cpu] = NULL;
		swap_dctx[cpu] = NULL;
	}
}

static size_t swap_compress(void *dst, size_t cap, const void *src)
{
	int cpu = smp_processor_id();

	if (cpu < 0)
		return ZSTD_compress(dst, cap, src, PAGE_SIZE, 1);
	if (!swap_cctx[cpu])
		swap_cctx[cpu] = ZSTD_createCCtx();
	if (!swap_cctx[cpu])
		return ZSTD_compress(dst, cap, src, PAGE_SIZE, 1);
	return ZSTD_compressCCtx(swap_cctx[cpu], dst, cap, src, PAGE_SIZE, 1);
}

static size_t swap_decompress(void *dst, const void *src, size_t len)
{
	int cpu = smp_processor_id();

	if (cpu < 0)
		return ZSTD_decompress(dst, PAGE_SIZE, src, len);
	if (!swap_dctx[cpu])
		swap_dctx[cpu] = ZSTD_createDCtx();
	if (!swap_dctx[cpu])
		return ZSTD_decompress(dst, PAGE_SIZE, src, len);
	return ZSTD_decompressDCtx(swap_dctx[cpu], dst, PAGE_SIZE, src, len);
}

/* ---- clusters ---- */

static inline struct swap_cluster_info *cluster_of(unsigned long offset)
{
	return &si.cluster_info[offset / SWAPFILE_CLUSTER];
}

static inline unsigned long cluster_offset(const struct swap_cluster_info *ci)
{
	return (unsigned long)(ci - si.cluster_info) * SWAPFILE_CLUSTER;
}

static inline unsigned long cluster_end(const struct swap_cluster_info *ci)
{
	unsigned long end = cluster_offset(ci) + SWAPFILE_CLUSTER;

	return end < si.max ? end : si.max;
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

static bool cluster_on_list(const struct swap_cluster_info *ci)
{
	return ci->flags == CLUSTER_FLAG_FREE || ci->flags == CLUSTER_FLAG_NONFULL ||
	       ci->flags == CLUSTER_FLAG_FULL;
}

/* Under ci->lock: onto the tail of @list, off the one it was on. */
static void move_cluster(struct swap_cluster_info *ci, struct list_head *list,
			 enum cluster_flags flags)
{
	spin_lock_at(&si.lock, LOCK_SITE("swap_info"));
	if (cluster_on_list(ci))
		list_del(&ci->list);
	list_add_tail(&ci->list, list);
	ci->flags = (u8)flags;
	spin_unlock(&si.lock);
}

/*
 * Under ci->lock, for a cluster no CPU holds: onto the list its count
 * calls for.  A free leaves most clusters where they are, and then
 * si.lock is not touched.
 */
static void relocate_cluster(struct swap_cluster_info *ci)
{
	if (!ci->count) {
		if (ci->flags != CLUSTER_FLAG_FREE)
			move_cluster(ci, &si.free_clusters, CLUSTER_FLAG_FREE);
	} else if (ci->count < SWAPFILE_CLUSTER) {
		if (ci->flags != CLUSTER_FLAG_NONFULL)
			move_cluster(ci, &si.nonfull_clusters, CLUSTER_FLAG_NONFULL);
	} else if (ci->flags != CLUSTER_FLAG_FULL) {
		move_cluster(ci, &si.full_clusters, CLUSTER_FLAG_FULL);
	}
}

/*
 * The first cluster on @list whose lock is free right now, taken off the
 * list and returned locked; NULL if there is none.  The trylock is what
 * lets this take a cluster lock under si.lock: one that is busy is
 * passed over, never waited for.
 */
static struct swap_cluster_info *isolate_lock_cluster(struct list_head *list)
{
	struct swap_cluster_info *ci, *found = NULL;

	spin_lock_at(&si.lock, LOCK_SITE("swap_info"));
	list_for_each_entry(ci, list, list) {
		if (!spin_trylock_at(&ci->lock, LOCK_SITE("swap_cluster")))
			continue;
		list_del(&ci->list);
		ci->flags = CLUSTER_FLAG_NONE;
		found = ci;
		break;
	}
	spin_unlock(&si.lock);
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
		struct swap_slot *s = &si.slots[offset];

		if (s->count || s->cache)
			continue;
		s->cache = folio;
		WRITE_ONCE(ci->count, ci->count + 1);
		atomic_long_inc(&si.inuse);
		atomic_long_inc(&si.cached);
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

	for (i = 0; i < si.nr_clusters; i++) {
		struct swap_cluster_info *ci = &si.cluster_info[i];

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

	/* the fast path: on in this CPU's cluster, si.lock untouched */
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
	ci = isolate_lock_cluster(&si.nonfull_clusters);
	if (!ci)
		ci = isolate_lock_cluster(&si.free_clusters);
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
	if (si.on)
		return -EBUSY;
	max = nr_slots + 1;
	nr = (max + SWAPFILE_CLUSTER - 1) / SWAPFILE_CLUSTER;
	si.slots = calloc(max, sizeof(*si.slots));
	if (!si.slots)
		return -ENOMEM;
	if (posix_memalign(&clusters, L1_CACHE_BYTES, nr * sizeof(*si.cluster_info))) {
		free(si.slots);
		si.slots = NULL;
		return -ENOMEM;
	}
	memset(clusters, 0, nr * sizeof(*si.cluster_info));
	si.cluster_info = clusters;
	si.nr_clusters = nr;
	si.mode = mode;
	si.max = max;
	spin_lock_init(&si.lock);
	INIT_LIST_HEAD(&si.free_clusters);
	INIT_LIST_HEAD(&si.nonfull_clusters);
	INIT_LIST_HEAD(&si.full_clusters);
	/* where the kernel keeps the swap header: never free */
	si.slots[0].count = 1;
	for (i = 0; i < nr; i++) {
		struct swap_cluster_info *ci = &si.cluster_info[i];

		spin_lock_init(&ci->lock);
		ci->count = (u16)(SWAPFILE_CLUSTER - (cluster_end(ci) - cluster_offset(ci)));
		if (!i)
			ci->count++;
		if (ci->count) {
			ci->flags = CLUSTER_FLAG_NONFULL;
			list_add_tail(&ci->list, &si.nonfull_clusters);
		} else {
			ci->flags = CLUSTER_FLAG_FREE;
			list_add_tail(&ci->list, &si.free_clusters);
		}
	}
	memset(percpu_swap_cluster, 0, sizeof(percpu_swap_cluster));
	atomic_long_set(&si.inuse, 0);
	atomic_long_set(&si.cached, 0);
	smp_store_release(&si.on, true);
	return 0;
}

void swapoff(void)
{
	unsigned long i;

	if (!si.on)
		return;
	WRITE_ONCE(si.on, false);
	for (i = 1; i < si.max; i++)
		free(si.slots[i].data);
	free(si.slots);
	free(si.cluster_info);
	si.slots = NULL;
	si.cluster_info = NULL;
	/* the CPUs' current clusters went with the device */
	memset(percpu_swap_cluster, 0, sizeof(percpu_swap_cluster));
	swap_free_contexts();
	si.nr_clusters = 0;
	si.max = 0;
}

long get_nr_swap_pages(void)
{
	if (!smp_load_acquire(&si.on))
		return 0;
	return (long)(si.max - 1) - atomic_long_read(&si.inuse);
}

unsigned long total_swap_pages(void)
{
	return smp_load_acquire(&si.on) ? si.max - 1 : 0;
}

unsigned long swap_slots_used(void)
{
	return smp_load_acquire(&si.on) ? (unsigned long)atomic_long_read(&si.inuse) : 0;
}

unsigned long swap_cache_nr(void)
{
	return smp_load_acquire(&si.on) ? (unsigned long)atomic_long_read(&si.cached) : 0;
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
	if (!smp_load_acquire(&si.on))
		return 0;
	st->nr_clusters = si.nr_clusters;

	/* quiescent, so the flags can be read here without the cluster locks */
	spin_lock_at(&si.lock, LOCK_SITE("swap_info"));
	list_for_each_entry(ci, &si.free_clusters, list) {
		st->nr_free++;
		if (ci->flags != CLUSTER_FLAG_FREE)
			REPORT("cluster %td on the free list is %s\n", ci - si.cluster_info,
			       names[ci->flags]);
	}
	list_for_each_entry(ci, &si.nonfull_clusters, list) {
		st->nr_nonfull++;
		if (ci->flags != CLUSTER_FLAG_NONFULL)
			REPORT("cluster %td on the nonfull list is %s\n", ci - si.cluster_info,
			       names[ci->flags]);
	}
	list_for_each_entry(ci, &si.full_clusters, list) {
		st->nr_full++;
		if (ci->flags != CLUSTER_FLAG_FULL)
			REPORT("cluster %td on the full list is %s\n", ci - si.cluster_info,
			       names[ci->flags]);
	}
	spin_unlock(&si.lock);

	for (i = 0; i < si.nr_clusters; i++) {
		unsigned long off, n = 0, end;
		bool count_ok;

		ci = &si.cluster_info[i];
		spin_lock_at(&ci->lock, LOCK_SITE("swap_cluster"));
		end = cluster_end(ci);
		for (off = cluster_offset(ci); off < end; off++) {
			struct swap_slot *s = &si.slots[off];

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
	if (used != (unsigned long)atomic_long_read(&si.inuse))
		REPORT("%lu slots in use, inuse says %ld\n", used, atomic_long_read(&si.inuse));
	if (cached != (unsigned long)atomic_long_read(&si.cached))
		REPORT("%lu slots cached, cached says %ld\n", cached, atomic_long_read(&si.cached));
	if (st->nr_free + st->nr_nonfull + st->nr_full + st->nr_percpu != si.nr_clusters)
		REPORT("%lu free + %lu nonfull + %lu full + %lu held != %lu clusters\n",
		       st->nr_free, st->nr_nonfull, st->nr_full, st->nr_percpu, si.nr_clusters);
	for (cpu = 0; cpu < LRULAB_MAX_CPUS; cpu++) {
		unsigned long next = percpu_swap_cluster[cpu].next;

		if (!next)
			continue;
		held++;
		if (next >= si.max || cluster_of(next)->flags != CLUSTER_FLAG_PERCPU)
			REPORT("CPU %d goes on at slot %lu, in a cluster it does not hold\n",
			       cpu, next);
	}
	if (held != st->nr_percpu)
		REPORT("%lu CPUs hold a cluster, %lu clusters are held\n", held, st->nr_percpu);
#undef REPORT
	return bad;
}

static struct swap_slot *slot_of(swp_entry_t entry)
{
	if (!entry.val || entry.val >= si.max)
		return NULL;
	return &si.slots[entry.val];
}

/* Under ci->lock: a slot nobody names or caches goes back to its cluster. */
static void *slot_maybe_free(struct swap_cluster_info *ci, struct swap_slot *s)
{
	void *data;

	if (s->count || s->cache)
		return NULL;
	data = s->data;
	s->data = NULL;
	s->shadow = NULL;
	s->len = 0;
	WRITE_ONCE(ci->count, ci->count - 1);
	atomic_long_sub(1, &si.inuse);
	/* a CPU's current cluster stays with it, however empty */
	if (ci->flags != CLUSTER_FLAG_PERCPU)
		relocate_cluster(ci);
	/* freed by the caller, after the unlock */
	return data;
}

void folio_lock(struct folio *folio)
{
	unsigned int spins = 0;

	while (!folio_trylock(folio)) {
		if (++spins % 64 == 0)
			sched_yield();
		else
			cpu_relax();
	}
}

int folio_alloc_swap(struct folio *folio)
{
	if (folio_test_large(folio))
		return -EINVAL;
	if (!smp_load_acquire(&si.on))
		return -ENOMEM;
	/* a full device fails here, without a lock */
	if (get_nr_swap_pages() <= 0)
		return -ENOMEM;
	if (!cluster_alloc_swap_entry(folio))
		return -ENOMEM;
	lruvec_stat_mod_folio(folio, NR_SWAPCACHE, 1);
	return 0;
}

static bool page_same_filled(const unsigned long *p, unsigned long *fill)
{
	size_t i;

	for (i = 1; i < PAGE_SIZE / sizeof(long); i++)
		if (p[i] != p[0])
			return false;
	*fill = p[0];
	return true;
}

/*
 * The folio is locked, unmapped and in the swap cache.  Its memory is
 * first copied word by word with atomic loads: an access that went
 * through a PTE just before try_to_unmap() cleared it (what a TLB
 * shootdown waits for in the kernel) may still be storing to it, and the
 * copy, not the page, is what gets stored.
 */
void swap_writeout(struct folio *folio)
{
	const unsigned long *src = folio_address(folio);
	swp_entry_t entry = folio_swap_entry(folio);
	struct swap_slot *s = slot_of(entry);
	unsigned long page[PAGE_SIZE / sizeof(long)];
	struct swap_cluster_info *ci;
	void *data = NULL, *old;
	unsigned long fill = 0;
	size_t len = 0, i;

	for (i = 0; i < PAGE_SIZE / sizeof(long); i++)
		page[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	if (!page_same_filled(page, &fill)) {
		if (si.mode == SWAP_STORE_ZSTD) {
			char buf[ZSTD_COMPRESSBOUND(PAGE_SIZE)];

			len = swap_compress(buf, sizeof(buf), page);
			if (ZSTD_isError(len) || len >= PAGE_SIZE) {
				len = PAGE_SIZE;	/* incompressible: stored as is */
				data = malloc(len);
				if (data)
					memcpy(data, page, len);
			} else {
				data = malloc(len);
				if (data)
					memcpy(data, buf, len);
			}
		} else {
			len = PAGE_SIZE;
			data = malloc(len);
			if (data)
				memcpy(data, page, len);
		}
		if (!data) {
			fprintf(stderr, "lrulab: swap_writeout: out of memory\n");
			abort();
		}
	}
	ci = lock_cluster(entry.val);
	old = s->data;
	s->data = data;
	s->len = (unsigned int)len;
	s->fill = fill;
	unlock_cluster(ci);
	free(old);
	count_vm_event(PSWPOUT);
	count_memcg_folio_events(folio, PSWPOUT, 1);
}

/*
 * Fill a new, locked folio, cached for @entry, from its slot.  The data
 * is read outside the lock: while the folio is cached and locked the
 * slot is neither freed nor rewritten (both need the folio or an empty
 * cache).
 */
static void swap_read_folio(struct folio *folio, swp_entry_t entry)
{
	unsigned long *dst = folio_address(folio), fill;
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	unsigned int len;
	void *data;
	size_t i;

	ci = lock_cluster(entry.val);
	data = s->data;
	len = s->len;
	fill = s->fill;
	unlock_cluster(ci);
	if (!data) {
		for (i = 0; i < PAGE_SIZE / sizeof(long); i++)
			dst[i] = fill;
	} else if (len == PAGE_SIZE) {
		memcpy(dst, data, PAGE_SIZE);
	} else if (ZSTD_isError(swap_decompress(dst, data, len))) {
		fprintf(stderr, "lrulab: swap slot %lu does not decompress\n", entry.val);
		abort();
	}
	count_vm_event(PSWPIN);
	count_memcg_folio_events(folio, PSWPIN, 1);
}

void __delete_from_swap_cache(struct folio *folio, void *shadow)
{
	swp_entry_t entry = folio_swap_entry(folio);
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	void *data;

	ci = lock_cluster(entry.val);
	s->cache = NULL;
	atomic_long_sub(1, &si.cached);
	/* a shadow is worth keeping only while something names the slot */
	s->shadow = s->count ? shadow : NULL;
	data = slot_maybe_free(ci, s);
	folio_clear_swapcache(folio);
	folio->private = 0;
	unlock_cluster(ci);
	free(data);
	lruvec_stat_mod_folio(folio, NR_SWAPCACHE, -1);
}

void delete_from_swap_cache(struct folio *folio)
{
	__delete_from_swap_cache(folio, NULL);
	folio_put_refs(folio, 1);
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
	if (!s->count) {
		unlock_cluster(ci);
		fprintf(stderr, "BUG: swap_free: slot %lu has no count\n", entry.val);
		abort();
	}
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

struct folio *__swap_cache_folio(swp_entry_t entry)
{
	struct swap_slot *s = smp_load_acquire(&si.on) ? slot_of(entry) : NULL;

	return s ? s->cache : NULL;
}

void *swap_shadow(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	void *shadow;

	if (!s)
		return NULL;
	ci = lock_cluster(entry.val);
	shadow = s->shadow;
	unlock_cluster(ci);
	return shadow;
}

/*
 * A folio leaves the swap cache only under its cluster's lock, and with
 * its refcount frozen when reclaim removes it, so a reference taken
 * under the lock is safe; a frozen folio is on its way out and reads as
 * absent.
 */
struct folio *swap_cache_get_folio(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	struct folio *folio;

	if (!s)
		return NULL;
	ci = lock_cluster(entry.val);
	folio = s->cache;
	if (folio && !folio_try_get(folio))
		folio = NULL;
	unlock_cluster(ci);
	return folio;
}

/* Locked, still cached for @entry: the folio may be used. */
static bool folio_swapcache_is(struct folio *folio, swp_entry_t entry)
{
	return folio_test_swapcache(folio) && folio->private == entry.val;
}

struct folio *swapin_folio(swp_entry_t entry, struct mem_cgroup *memcg, int *err)
{
	struct swap_slot *s = slot_of(entry);
	struct folio *folio, *new = NULL;
	struct swap_cluster_info *ci;
	void *shadow;

	if (!s) {
		*err = -ENOENT;
		return NULL;
	}
	for (;;) {
		folio = swap_cache_get_folio(entry);
		if (folio) {
			folio_lock(folio);
			if (folio_swapcache_is(folio, entry))
				break;
			/* reclaim or another fault finished with it meanwhile */
			folio_unlock(folio);
			folio_put(folio);
		}
		if (!new) {
			new = folio_alloc(0, -1);
			if (!new || mem_cgroup_charge(new, memcg)) {
				if (new)
					folio_put(new);
				*err = -ENOMEM;
				return NULL;
			}
			__folio_set_swapbacked(new);
			__folio_set_locked(new);
		}
		/* install the new folio if the slot is still out and uncached */
		ci = lock_cluster(entry.val);
		if (!s->count) {
			unlock_cluster(ci);
			__folio_clear_locked(new);
			__folio_clear_swapbacked(new);
			folio_put(new);
			*err = -ENOENT;
			return NULL;
		}
		if (s->cache) {
			unlock_cluster(ci);
			/*
			 * Cached, yet swap_cache_get_folio() found it frozen:
			 * reclaim is taking it out.  Give the CPU up until it
			 * is gone, as the kernel sleeps a jiffy here, rather
			 * than spin on the cluster lock the remover needs.
			 */
			sched_yield();
			continue;
		}
		s->cache = new;
		shadow = s->shadow;
		s->shadow = NULL;
		atomic_long_inc(&si.cached);
		folio_ref_add(new, 1);
		new->private = entry.val;
		folio_set_swapcache(new);
		unlock_cluster(ci);
		lruvec_stat_mod_folio(new, NR_SWAPCACHE, 1);

		swap_read_folio(new, entry);
		__folio_set_uptodate(new);
		count_vm_event(PGMAJFAULT);
		count_memcg_folio_events(new, PGMAJFAULT, 1);
		if (shadow)
			workingset_refault(new, shadow);
		folio_add_lru(new);
		return new;
	}
	if (new) {
		__folio_clear_locked(new);
		__folio_clear_swapbacked(new);
		folio_put(new);
	}
	return folio;
}

vm_fault_t do_swap_page(struct vm_area_struct *vma, unsigned long addr, bool write)
{
	pte_t *ptep = vma_pte(vma, addr);
	pte_t orig = ptep_get(ptep), prot;
	struct mm_struct *mm = vma->vm_mm;
	swp_entry_t entry;
	struct folio *folio;
	spinlock_t *ptl;
	int err;

	if (!is_swap_pte(orig))
		return 0;
	entry = pte_to_swp_entry(orig);
	folio = swapin_folio(entry, mm->memcg, &err);
	if (!folio)
		return err == -ENOENT ? 0 : VM_FAULT_OOM;

	ptl = pte_lockptr(vma, addr);
	spin_lock_at(ptl, LOCK_SITE("ptl"));
	if (ptep_get(ptep) != orig) {
		/* a racing fault of this mm mapped it already */
		spin_unlock(ptl);
		folio_unlock(folio);
		folio_put(folio);
		return 0;
	}
	/* exclusive to this mm (no fork): map it writable at once */
	prot = _PAGE_PRESENT | _PAGE_ACCESSED | _PAGE_RW | (write ? _PAGE_DIRTY : 0);
	/* the swap-in's reference becomes the PTE's */
	folio_add_new_anon_rmap(folio, vma, addr);
	add_mm_counter(mm, MM_ANONPAGES, 1);
	__atomic_store_n(ptep, mk_pte(folio_pfn(folio), 0, prot), __ATOMIC_RELAXED);
	spin_unlock(ptl);

	swap_free(entry);
	/* nothing names the slot any more: the copy in swap is stale */
	if (!__swap_count(entry) && folio_swapcache_is(folio, entry))
		delete_from_swap_cache(folio);
	folio_unlock(folio);
	return 0;
}

void free_swap_and_cache(swp_entry_t entry)
{
	struct folio *folio;

	swap_free(entry);
	if (__swap_count(entry))
		return;
	/* a cached folio nobody can fault in again is dead weight */
	folio = swap_cache_get_folio(entry);
	if (!folio)
		return;
	if (folio_trylock(folio)) {
		if (folio_swapcache_is(folio, entry) && !__swap_count(entry) &&
		    !folio_mapped(folio))
			delete_from_swap_cache(folio);
		folio_unlock(folio);
	}
	folio_put(folio);
}
