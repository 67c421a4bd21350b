// SPDX-License-Identifier: MIT
/*
 * The page cache (the kernel's mm/filemap.c): index -> folio through an
 * array of slots indexed by page, one per page of the file, which is
 * the xarray of a file whose size is fixed, flattened to one level.  A
 * slot holds a folio, a value (below) or nothing.
 *
 * Lookups take no lock: inside an RCU read section they read the slot,
 * take a speculative reference with folio_try_get() and check the slot
 * still holds that folio (it may have been deleted, and the folio freed
 * and reused, between the two).  Inserts and deletes are serialised by
 * the mapping's i_lock (the xa_lock's role, lock class "i_pages").  A
 * folio is stored only once it is fully set up, so a lookup never sees a
 * folio that is not yet zeroed (the kernel stores it locked instead).
 * Nothing is allocated per page: the slots are the file's, as a fixed
 * file's xarray nodes would be.  The folio lock itself is here too, as
 * the kernel's __folio_lock().
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include <lrulab/rcupdate.h>

#include <lrulab/memcontrol.h>
#include <lrulab/mmdebug.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap.h>
#include <lrulab/swap_state.h>
#include <lrulab/workqueue.h>

/*
 * ThreadSanitizer cannot see liburcu's grace periods: this is the sync
 * point include/lrulab/rcupdate.h releases in every read section and a
 * deferred free acquires (the inodes of files going away, the mm's).
 */
#ifdef __SANITIZE_THREAD__
char page_cache_rcu_sync;
#endif

/*
 * A slot holds NULL, a folio, or a value entry: a word with bit 0 set,
 * which a folio pointer (8-byte aligned) never has.  The callers make
 * them, as the kernel's do for its xarray: a shadow comes tagged from
 * pack_shadow(), a swap slot through swp_to_radix_entry(); the page
 * cache stores and hands back the word as it is.  Folios live in mem_map
 * and are never freed to malloc, so a lookup that read a slot just
 * before the folio left it touches a folio that may be free or someone
 * else's: folio_try_get() fails on a free one, and the slot read again
 * after it tells a reused one.
 */
static inline bool xa_is_value(const void *entry)
{
	return (unsigned long)entry & 1UL;
}

static void **page_cache_slot(struct address_space *mapping, unsigned long index)
{
	return index < mapping->size_pages ? &mapping->i_pages[index] : NULL;
}

/* What the slot at @index holds: NULL, a folio or a value. */
static void *page_cache_load(struct address_space *mapping, unsigned long index)
{
	void **slot = page_cache_slot(mapping, index);

	return slot ? __atomic_load_n(slot, __ATOMIC_ACQUIRE) : NULL;
}

/* The folio in the slot at @index, or NULL (nothing, or a value). */
static struct folio *page_cache_folio(struct address_space *mapping, unsigned long index)
{
	void *entry = page_cache_load(mapping, index);

	return entry && !xa_is_value(entry) ? entry : NULL;
}

/* Under i_lock: what the slot at @index holds from now. */
static void page_cache_store(struct address_space *mapping, unsigned long index, void *entry)
{
	__atomic_store_n(&mapping->i_pages[index], entry, __ATOMIC_RELEASE);
}

/*
 * The slots come zeroed and are touched only where pages are cached, so
 * a sparse file costs the memory of its cached stretches, 8 bytes a page.
 */
int page_cache_init(struct address_space *mapping, unsigned long size_pages)
{
	mapping->i_pages = calloc(size_pages ? size_pages : 1, sizeof(*mapping->i_pages));
	if (!mapping->i_pages)
		return -ENOMEM;
	spin_lock_init(&mapping->i_lock);
	spin_lock_init(&mapping->i_mmap_lock);
	INIT_LIST_HEAD(&mapping->i_mmap);
	mapping->size_pages = size_pages;
	return 0;
}

/*
 * Its entries were deleted on this CPU, most likely: their groups go to
 * call_rcu() now rather than wait for more deletions that may not come.
 */
void page_cache_destroy(struct address_space *mapping)
{
	free(mapping->i_pages);
	mapping->i_pages = NULL;
}

struct folio *filemap_get_folio(struct address_space *mapping, unsigned long index)
{
	struct folio *folio;

repeat:
	rcu_read_lock();
	folio = page_cache_folio(mapping, index);
	if (folio && !folio_try_get(folio)) {
		/* on its way out: the slot changes before the last reference goes */
		rcu_read_unlock();
		goto repeat;
	}
	if (folio && unlikely(page_cache_load(mapping, index) != folio)) {
		rcu_read_unlock();
		folio_put(folio);
		goto repeat;
	}
	rcu_read_unlock();
	return folio;
}

unsigned int filemap_get_folios(struct address_space *mapping, unsigned long *start,
				unsigned long end, struct folio_batch *fbatch)
{
	unsigned long index = *start;
	unsigned int found = 0;

	while (index <= end && folio_batch_space(fbatch)) {
		struct folio *folio = filemap_get_folio(mapping, index);

		if (folio) {
			folio_batch_add(fbatch, folio);
			found++;
			index = folio->index + folio_nr_pages(folio);
		} else {
			index++;
		}
		if (!index)	/* wrapped past ULONG_MAX */
			break;
	}
	*start = index;
	return found;
}

/* A folio (not a shadow, not nothing) at @index: the gaps readahead seeks. */
static bool filemap_has_folio(struct address_space *mapping, unsigned long index)
{
	bool ret;

	rcu_read_lock();
	ret = page_cache_folio(mapping, index);
	rcu_read_unlock();
	return ret;
}

unsigned long page_cache_next_miss(struct address_space *mapping, unsigned long index,
				   unsigned long max_scan)
{
	while (max_scan--) {
		if (!filemap_has_folio(mapping, index))
			break;
		if (++index == 0)
			break;
	}
	return index;
}

unsigned long page_cache_prev_miss(struct address_space *mapping, unsigned long index,
				   unsigned long max_scan)
{
	while (max_scan--) {
		if (!filemap_has_folio(mapping, index))
			break;
		if (index-- == 0)
			break;
	}
	return index;
}

static void filemap_account_folio(struct address_space *mapping, struct folio *folio,
				  int nr)
{
	lruvec_stat_mod_folio(folio, NR_FILE_PAGES, nr);
	if (folio_test_swapbacked(folio))
		lruvec_stat_mod_folio(folio, NR_SHMEM, nr);
	atomic_long_add(nr, &mapping->nrpages);
}

int __filemap_add_folio(struct address_space *mapping, struct folio *folio,
			unsigned long index)
{
	int nr = (int)folio_nr_pages(folio);
	void **slot = page_cache_slot(mapping, index);

	if (!slot)
		return -EINVAL;
	/* the cache's references, as filemap_add_folio takes them */
	folio_ref_add(folio, nr);
	folio->index = index;
	WRITE_ONCE(folio->mapping, mapping);

	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	if (__atomic_load_n(slot, __ATOMIC_RELAXED)) {
		spin_unlock(&mapping->i_lock);
		WRITE_ONCE(folio->mapping, NULL);
		atomic_sub(nr, &folio->_refcount);
		return -EEXIST;
	}
	/* release: a reader that finds the folio sees it set up */
	page_cache_store(mapping, index, folio);
	filemap_account_folio(mapping, folio, nr);
	spin_unlock(&mapping->i_lock);
	return 0;
}

void delete_from_page_cache_batch(struct address_space *mapping,
				  struct folio_batch *fbatch)
{
	unsigned int i, n = folio_batch_count(fbatch);
	u32 deleted = 0;

	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	for (i = 0; i < n; i++) {
		struct folio *folio = fbatch->folios[i];

		/* ->mapping of a cached folio only changes under i_lock */
		if (READ_ONCE(folio->mapping) != mapping)
			continue;
		if (page_cache_load(mapping, folio->index) != folio)
			continue;
		page_cache_store(mapping, folio->index, NULL);
		WRITE_ONCE(folio->mapping, NULL);
		filemap_account_folio(mapping, folio, -(int)folio_nr_pages(folio));
		deleted |= 1U << i;
	}
	spin_unlock(&mapping->i_lock);

	/* filemap_free_folio: the batch's references keep them alive */
	for (i = 0; i < n; i++) {
		struct folio *folio = fbatch->folios[i];

		if (deleted & (1U << i))
			folio_put_refs(folio, (int)folio_nr_pages(folio));
	}
}

/*
 * ---- swap entries (shmem) ----
 *
 * A swapped-out shmem page leaves its swap slot in the page cache's slot
 * as a value, as the kernel keeps a swap value entry in the xarray; a
 * regular file's evicted page leaves its shadow so.  A slot changes
 * between folio and value only under i_lock; a lookup that raced with
 * the change sees the value (and drops any reference it took, as for a
 * deletion).  Value 0 is no value: the slot is left empty.
 */
unsigned long filemap_get_swap(struct address_space *mapping, unsigned long index)
{
	unsigned long swap = 0;
	void *entry;

	rcu_read_lock();
	entry = page_cache_load(mapping, index);
	if (xa_is_value(entry))
		swap = (unsigned long)entry;
	rcu_read_unlock();
	return swap;
}

bool filemap_replace_folio_by_swap(struct address_space *mapping, struct folio *folio,
				   unsigned long swap)
{
	bool done = false;

	VM_BUG_ON(swap && !xa_is_value((void *)swap));
	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	if (READ_ONCE(folio->mapping) == mapping &&
	    page_cache_load(mapping, folio->index) == folio) {
		page_cache_store(mapping, folio->index, (void *)swap);
		WRITE_ONCE(folio->mapping, NULL);
		filemap_account_folio(mapping, folio, -(int)folio_nr_pages(folio));
		if (swap)
			atomic_long_inc(&mapping->nrswapped);
		done = true;
	}
	spin_unlock(&mapping->i_lock);
	return done;
}

bool filemap_replace_swap_by_folio(struct address_space *mapping, unsigned long index,
				   unsigned long swap, struct folio *folio)
{
	int nr = (int)folio_nr_pages(folio);
	bool done = false;

	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	if (swap && page_cache_load(mapping, index) == (void *)swap) {
		folio_ref_add(folio, nr);
		folio->index = index;
		WRITE_ONCE(folio->mapping, mapping);
		filemap_account_folio(mapping, folio, nr);
		/* release: a reader that finds the folio sees it set up */
		page_cache_store(mapping, index, folio);
		atomic_long_add(-1, &mapping->nrswapped);
		done = true;
	}
	spin_unlock(&mapping->i_lock);
	return done;
}

/* Take the value entry at @index out of the cache: the value, or 0. */
static unsigned long filemap_remove_value(struct address_space *mapping, unsigned long index)
{
	unsigned long value = 0;
	void *entry;

	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	entry = page_cache_load(mapping, index);
	if (xa_is_value(entry)) {
		value = (unsigned long)entry;
		page_cache_store(mapping, index, NULL);
		atomic_long_add(-1, &mapping->nrswapped);
	}
	spin_unlock(&mapping->i_lock);
	return value;
}

void filemap_free_swap_range(struct address_space *mapping, unsigned long start,
			     unsigned long end)
{
	unsigned long index, swap;

	for (index = start; index <= end && atomic_long_read(&mapping->nrswapped); index++) {
		swap = filemap_remove_value(mapping, index);
		/* and a swap-cache copy nothing can fault in again goes too */
		if (swap)
			free_swap_and_cache(radix_to_swp_entry(swap));
		if (index == ~0UL)
			break;
	}
}

/*
 * A regular file's value entries are shadows, not swap slots: on
 * truncation they just go.
 */
void filemap_remove_shadows(struct address_space *mapping)
{
	unsigned long index;

	for (index = 0; index < mapping->size_pages && atomic_long_read(&mapping->nrswapped);
	     index++)
		filemap_remove_value(mapping, index);
}

/*
 * PG_locked is held for short stretches (reclaim's writeout, a swap-in's
 * read), so spin, and give the CPU up now and then for an oversubscribed
 * holder, where the kernel would sleep on the folio's wait queue.
 */
void folio_lock(struct folio *folio)
{
	unsigned int spins = 0;

	while (!folio_trylock(folio)) {
		if (++spins % 64 == 0) {
			cpu_sleep_begin();
			sched_yield();
			cpu_sleep_end();
		} else {
			cpu_relax();
		}
	}
}
