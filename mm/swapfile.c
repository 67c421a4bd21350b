// SPDX-License-Identifier: MIT
/*
 * The swap device, its slots and the swap cache (the kernel's
 * mm/swapfile.c, mm/swap_state.c and the zram side of mm/page_io.c), and
 * the anonymous swap fault (do_swap_page, from mm/memory.c).
 *
 * One device, a flat array of slots under one spin lock.  Slot 0 is
 * never handed out so that a zero swap entry means "none".  A slot is
 * in use while its count (PTEs and shmem page-cache entries naming it)
 * is non-zero or the swap cache holds a folio for it; a shadow entry
 * lives in a slot only while its count is non-zero and no folio is
 * cached, i.e. while the page is out.
 *
 * Storing a page costs what zram's does: a same-filled page (the common
 * zero page) is kept as its fill value, anything else is compressed with
 * zstd (or copied, in SWAP_STORE_COPY mode) into a buffer of its own.
 * The work runs outside every lock, on the reclaiming CPU.
 *
 * Lock order: i_lock (shmem) -> si.lock; the PTE lock -> si.lock.
 * Nothing is taken under si.lock.
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

struct swap_slot {
	unsigned int count;
	struct folio *cache;
	void *shadow;
	void *data;		/* compressed bytes; NULL: same-filled */
	unsigned int len;
	unsigned long fill;	/* the repeated word of a same-filled page */
};

static struct swap_info_struct {
	spinlock_t lock;
	bool on;
	enum swap_store_mode mode;
	unsigned long max;		/* slots, including the unused slot 0 */
	unsigned long cursor;		/* next-fit allocation */
	unsigned long inuse;
	unsigned long cached;
	struct swap_slot *slots;
} si;


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

int swapon(unsigned long nr_slots, enum swap_store_mode mode)
{
	if (!nr_slots || nr_slots > (1UL << 40) ||
	    (mode != SWAP_STORE_ZSTD && mode != SWAP_STORE_COPY))
		return -EINVAL;
	if (si.on)
		return -EBUSY;
	si.slots = calloc(nr_slots + 1, sizeof(*si.slots));
	if (!si.slots)
		return -ENOMEM;
	spin_lock_init(&si.lock);
	si.mode = mode;
	si.max = nr_slots + 1;
	si.cursor = 1;
	si.inuse = 0;
	si.cached = 0;
	smp_store_release(&si.on, true);
	return 0;
}

void swapoff(void)
{
	unsigned long i;

	if (!si.on)
		return;
	for (i = 1; i < si.max; i++)
		free(si.slots[i].data);
	free(si.slots);
	si.slots = NULL;
	swap_free_contexts();
	si.max = 0;
	WRITE_ONCE(si.on, false);
}

long get_nr_swap_pages(void)
{
	if (!smp_load_acquire(&si.on))
		return 0;
	return (long)(si.max - 1) - (long)READ_ONCE(si.inuse);
}

unsigned long total_swap_pages(void)
{
	return smp_load_acquire(&si.on) ? si.max - 1 : 0;
}

unsigned long swap_slots_used(void)
{
	return smp_load_acquire(&si.on) ? READ_ONCE(si.inuse) : 0;
}

unsigned long swap_cache_nr(void)
{
	return smp_load_acquire(&si.on) ? READ_ONCE(si.cached) : 0;
}

static struct swap_slot *slot_of(swp_entry_t entry)
{
	if (!entry.val || entry.val >= si.max)
		return NULL;
	return &si.slots[entry.val];
}

/* Under si.lock: a slot nobody names or caches goes back to the pool. */
static void *slot_maybe_free(struct swap_slot *s)
{
	void *data;

	if (s->count || s->cache)
		return NULL;
	data = s->data;
	s->data = NULL;
	s->shadow = NULL;
	s->len = 0;
	WRITE_ONCE(si.inuse, si.inuse - 1);
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
	unsigned long i, off = 0;

	if (folio_test_large(folio))
		return -EINVAL;
	if (!smp_load_acquire(&si.on))
		return -ENOMEM;
	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	for (i = 0; i < si.max - 1; i++) {
		unsigned long o = si.cursor + i;
		struct swap_slot *s;

		if (o >= si.max)
			o -= si.max - 1;
		s = &si.slots[o];
		if (!s->count && !s->cache) {
			off = o;
			break;
		}
	}
	if (!off) {
		spin_unlock(&si.lock);
		return -ENOMEM;
	}
	si.cursor = off + 1 < si.max ? off + 1 : 1;
	si.slots[off].cache = folio;
	WRITE_ONCE(si.inuse, si.inuse + 1);
	WRITE_ONCE(si.cached, si.cached + 1);
	/* the swap cache's reference, as the page cache's */
	folio_ref_add(folio, 1);
	folio->private = off;
	folio_set_swapcache(folio);
	spin_unlock(&si.lock);
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
	struct swap_slot *s = slot_of(folio_swap_entry(folio));
	unsigned long page[PAGE_SIZE / sizeof(long)];
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
	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	old = s->data;
	s->data = data;
	s->len = (unsigned int)len;
	s->fill = fill;
	spin_unlock(&si.lock);
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
	unsigned int len;
	void *data;
	size_t i;

	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	data = s->data;
	len = s->len;
	fill = s->fill;
	spin_unlock(&si.lock);
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
	struct swap_slot *s = slot_of(folio_swap_entry(folio));
	void *data;

	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	s->cache = NULL;
	WRITE_ONCE(si.cached, si.cached - 1);
	/* a shadow is worth keeping only while something names the slot */
	s->shadow = s->count ? shadow : NULL;
	data = slot_maybe_free(s);
	folio_clear_swapcache(folio);
	folio->private = 0;
	spin_unlock(&si.lock);
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

	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	s->count++;
	spin_unlock(&si.lock);
}

void swap_free(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	void *data;

	if (!s)
		return;
	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	if (!s->count) {
		spin_unlock(&si.lock);
		fprintf(stderr, "BUG: swap_free: slot %lu has no count\n", entry.val);
		abort();
	}
	s->count--;
	data = slot_maybe_free(s);
	spin_unlock(&si.lock);
	free(data);
}

int __swap_count(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	int n;

	if (!s)
		return 0;
	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	n = (int)s->count;
	spin_unlock(&si.lock);
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
	void *shadow;

	if (!s)
		return NULL;
	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	shadow = s->shadow;
	spin_unlock(&si.lock);
	return shadow;
}

/*
 * A folio leaves the swap cache only under si.lock, and with its
 * refcount frozen when reclaim removes it, so a reference taken under
 * the lock is safe; a frozen folio is on its way out and reads as absent.
 */
struct folio *swap_cache_get_folio(swp_entry_t entry)
{
	struct swap_slot *s = slot_of(entry);
	struct folio *folio;

	if (!s)
		return NULL;
	spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
	folio = s->cache;
	if (folio && !folio_try_get(folio))
		folio = NULL;
	spin_unlock(&si.lock);
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
		spin_lock_at(&si.lock, LOCK_SITE("swap_lock"));
		if (!s->count) {
			spin_unlock(&si.lock);
			__folio_clear_locked(new);
			__folio_clear_swapbacked(new);
			folio_put(new);
			*err = -ENOENT;
			return NULL;
		}
		if (s->cache) {
			spin_unlock(&si.lock);
			continue;
		}
		s->cache = new;
		shadow = s->shadow;
		s->shadow = NULL;
		WRITE_ONCE(si.cached, si.cached + 1);
		folio_ref_add(new, 1);
		new->private = entry.val;
		folio_set_swapcache(new);
		spin_unlock(&si.lock);
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
