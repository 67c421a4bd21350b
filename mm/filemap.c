// SPDX-License-Identifier: MIT
/*
 * The page cache (the kernel's mm/filemap.c): index -> folio through an
 * array of slots indexed by page, one per page of the file, which is
 * the xarray of a file whose size is fixed, flattened to one level.  A
 * slot holds an entry (below) or nothing.
 *
 * Lookups take no lock: inside an RCU read section they find the entry,
 * take a speculative reference with folio_try_get() and check the entry
 * still names that folio (it may have been deleted, and the folio freed
 * and reused, between the two).  Inserts and deletes are serialised by
 * the mapping's i_lock (the xa_lock's role, lock class "i_pages"); a
 * deleted entry is reused after a grace period, 64 at a time as the
 * kernel frees xarray nodes (mm/page_cache_entry.c).  An entry is
 * published only once its folio is fully set up, so a lookup never sees a
 * folio that is not yet zeroed and accounted (the kernel publishes it
 * locked instead).  The folio lock itself is here too, as the kernel's
 * __folio_lock().
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include <lrulab/rcupdate.h>

#include <lrulab/memcontrol.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap.h>
#include <lrulab/swap_state.h>
#include <lrulab/workqueue.h>

#include "filemap-internal.h"

/*
 * ThreadSanitizer cannot see the ordering liburcu provides (the library
 * is not instrumented): that an entry is freed and reused only after
 * every reader that could see it has left its read section.  Every read
 * section and every deleter releases one sync point which the deferred
 * free acquires.  An entry reused from a group is published again, so
 * its new set-up is told to it per entry as well.
 */
#ifdef __SANITIZE_THREAD__
char page_cache_rcu_sync;	/* the sync point of rcu_tsan_release() */
#define tsan_publish(e) __tsan_release(e)
#define tsan_consume(e) __tsan_acquire(e)
#else
#define tsan_publish(e) do { } while (0)
#define tsan_consume(e) do { } while (0)
#endif

static struct page_cache_entry **page_cache_slot(struct address_space *mapping,
						  unsigned long index)
{
	return index < mapping->size_pages ? &mapping->i_pages[index] : NULL;
}

/* Caller is in an RCU read section. */
static struct page_cache_entry *page_cache_entry(struct address_space *mapping,
						 unsigned long index)
{
	struct page_cache_entry **slot = page_cache_slot(mapping, index);
	struct page_cache_entry *e = slot ? __atomic_load_n(slot, __ATOMIC_ACQUIRE) : NULL;

	if (e)
		tsan_consume(e);
	return e;
}

static struct folio *entry_folio(struct page_cache_entry *e)
{
	return __atomic_load_n(&e->folio, __ATOMIC_ACQUIRE);
}

/* Under i_lock: take @e out of its slot. */
static void page_cache_entry_unpublish(struct address_space *mapping, unsigned long index)
{
	__atomic_store_n(&mapping->i_pages[index], NULL, __ATOMIC_RELEASE);
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
	page_cache_entry_flush();
}

struct folio *filemap_get_folio(struct address_space *mapping, unsigned long index)
{
	struct page_cache_entry *e;
	struct folio *folio;

repeat:
	rcu_read_lock();
	e = page_cache_entry(mapping, index);
	folio = e ? entry_folio(e) : NULL;
	if (folio && !folio_try_get(folio)) {
		/* on its way out: the entry goes before the last reference */
		rcu_tsan_release();
		rcu_read_unlock();
		goto repeat;
	}
	if (folio && unlikely(entry_folio(e) != folio)) {
		rcu_tsan_release();
		rcu_read_unlock();
		folio_put(folio);
		goto repeat;
	}
	rcu_tsan_release();
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
	struct page_cache_entry *e;
	bool ret;

	rcu_read_lock();
	e = page_cache_entry(mapping, index);
	ret = e && entry_folio(e);
	rcu_tsan_release();
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
	struct page_cache_entry **slot = page_cache_slot(mapping, index);
	struct page_cache_entry *e;

	if (!slot)
		return -EINVAL;
	e = page_cache_entry_alloc();
	if (!e)
		return -ENOMEM;
	__atomic_store_n(&e->swap, 0UL, __ATOMIC_RELAXED);
	/* the cache's references, as filemap_add_folio takes them */
	folio_ref_add(folio, nr);
	folio->index = index;
	WRITE_ONCE(folio->mapping, mapping);
	/* release: a reader that finds the entry sees the folio set up */
	__atomic_store_n(&e->folio, folio, __ATOMIC_RELEASE);
	tsan_publish(e);

	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	if (__atomic_load_n(slot, __ATOMIC_RELAXED)) {
		spin_unlock(&mapping->i_lock);
		WRITE_ONCE(folio->mapping, NULL);
		atomic_sub(nr, &folio->_refcount);
		page_cache_entry_free_unused(e);
		return -EEXIST;
	}
	/* release: a reader that finds the entry sees it set up */
	__atomic_store_n(slot, e, __ATOMIC_RELEASE);
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
	rcu_read_lock();
	for (i = 0; i < n; i++) {
		struct folio *folio = fbatch->folios[i];
		struct page_cache_entry *e;

		/* ->mapping of a cached folio only changes under i_lock */
		if (READ_ONCE(folio->mapping) != mapping)
			continue;
		e = page_cache_entry(mapping, folio->index);
		if (!e || entry_folio(e) != folio)
			continue;
		__atomic_store_n(&e->folio, NULL, __ATOMIC_RELAXED);
		page_cache_entry_unpublish(mapping, folio->index);
		WRITE_ONCE(folio->mapping, NULL);
		filemap_account_folio(mapping, folio, -(int)folio_nr_pages(folio));
		rcu_tsan_release();
		page_cache_entry_free_rcu(e);
		deleted |= 1U << i;
	}
	rcu_read_unlock();
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
 * A swapped-out shmem page keeps its hash entry, with ->folio NULL and
 * ->swap naming the slot, as the kernel keeps a swap value entry in the
 * xarray.  Entries change between the two states only under i_lock; a
 * lookup that raced with the change sees ->folio NULL (and drops any
 * reference it took, as for a deletion) and then reads ->swap.
 */
unsigned long filemap_get_swap(struct address_space *mapping, unsigned long index)
{
	struct page_cache_entry *e;
	unsigned long swap = 0;

	rcu_read_lock();
	e = page_cache_entry(mapping, index);
	if (e && !entry_folio(e))
		swap = __atomic_load_n(&e->swap, __ATOMIC_ACQUIRE);
	rcu_tsan_release();
	rcu_read_unlock();
	return swap;
}

bool filemap_replace_folio_by_swap(struct address_space *mapping, struct folio *folio,
				   unsigned long swap)
{
	struct page_cache_entry *e;
	bool done = false;

	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	rcu_read_lock();
	if (READ_ONCE(folio->mapping) == mapping) {
		e = page_cache_entry(mapping, folio->index);
		if (e && entry_folio(e) == folio) {
			__atomic_store_n(&e->swap, swap, __ATOMIC_RELEASE);
			__atomic_store_n(&e->folio, NULL, __ATOMIC_RELEASE);
			WRITE_ONCE(folio->mapping, NULL);
			filemap_account_folio(mapping, folio, -(int)folio_nr_pages(folio));
			atomic_long_inc(&mapping->nrswapped);
			done = true;
		}
	}
	rcu_tsan_release();
	rcu_read_unlock();
	spin_unlock(&mapping->i_lock);
	return done;
}

bool filemap_replace_swap_by_folio(struct address_space *mapping, unsigned long index,
				   unsigned long swap, struct folio *folio)
{
	int nr = (int)folio_nr_pages(folio);
	struct page_cache_entry *e;
	bool done = false;

	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	rcu_read_lock();
	e = page_cache_entry(mapping, index);
	if (e && !entry_folio(e) && __atomic_load_n(&e->swap, __ATOMIC_RELAXED) == swap) {
		folio_ref_add(folio, nr);
		folio->index = index;
		WRITE_ONCE(folio->mapping, mapping);
		filemap_account_folio(mapping, folio, nr);
		__atomic_store_n(&e->swap, 0UL, __ATOMIC_RELAXED);
		/* release: a reader that finds the folio sees it set up */
		__atomic_store_n(&e->folio, folio, __ATOMIC_RELEASE);
		atomic_long_add(-1, &mapping->nrswapped);
		done = true;
	}
	rcu_tsan_release();
	rcu_read_unlock();
	spin_unlock(&mapping->i_lock);
	return done;
}

/* Take the value entry at @index out of the cache: the value, or 0. */
static unsigned long filemap_remove_value(struct address_space *mapping, unsigned long index)
{
	struct page_cache_entry *e;
	unsigned long value = 0;

	spin_lock_at(&mapping->i_lock, LOCK_SITE("i_pages"));
	rcu_read_lock();
	e = page_cache_entry(mapping, index);
	if (e && !entry_folio(e) && (value = __atomic_load_n(&e->swap, __ATOMIC_RELAXED))) {
		__atomic_store_n(&e->swap, 0UL, __ATOMIC_RELAXED);
		page_cache_entry_unpublish(mapping, index);
		atomic_long_add(-1, &mapping->nrswapped);
		rcu_tsan_release();
		page_cache_entry_free_rcu(e);
	}
	rcu_tsan_release();
	rcu_read_unlock();
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
			free_swap_and_cache((swp_entry_t){ swap });
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
