// SPDX-License-Identifier: MIT
/*
 * shmem files (the kernel's mm/shmem.c and the truncate path of
 * mm/truncate.c): folios created on first touch, zeroed, charged to the
 * faulting mm's memcg, swap backed (so on the anon LRU), inserted in the
 * page cache and added to the LRU; hole punch removes a batch of them
 * from the cache under one i_lock hold and frees them through
 * folio_batch_release().
 *
 * Only order-0 folios: large shmem folios would need per-page mapcounts
 * for NR_FILE_MAPPED, which the model's struct folio does not have.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/rcupdate.h>

#include <lrulab/memcontrol.h>
#include <lrulab/mm.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap.h>
#include <lrulab/swap_state.h>

/*
 * The inode outlives the file by a grace period, as the kernel's does: a
 * CPU that loaded a folio's ->mapping just before truncation cleared it
 * (folio_evictable() in the LRU add path) may still test its flags.
 */
struct shmem_inode {
	struct address_space mapping;
	struct rcu_head rcu;
};

static void shmem_inode_free(struct rcu_head *head)
{
	rcu_tsan_acquire();
	free(container_of(head, struct shmem_inode, rcu));
}

struct address_space *shmem_file_setup(unsigned long size_pages, unsigned int order)
{
	struct address_space *mapping;
	struct shmem_inode *inode;

	if (order) {
		errno = EINVAL;
		return NULL;
	}
	inode = calloc(1, sizeof(*inode));
	if (!inode) {
		errno = ENOMEM;
		return NULL;
	}
	mapping = &inode->mapping;
	if (page_cache_init(mapping, size_pages)) {
		free(inode);
		errno = ENOMEM;
		return NULL;
	}
	mapping->order = order;
	return mapping;
}

void shmem_file_free(struct address_space *mapping)
{
	if (!mapping)
		return;
	shmem_truncate_range(mapping, 0, ~0UL);
	page_cache_destroy(mapping);
	call_rcu(&container_of(mapping, struct shmem_inode, mapping)->rcu,
		 shmem_inode_free);
}

/*
 * A swapped-out page: bring it in through the swap cache and put it back
 * in the page cache in place of its swap entry.  -EAGAIN when the entry
 * changed meanwhile (another fault swapped it in, or it was truncated).
 */
static int shmem_swapin_folio(struct address_space *mapping, unsigned long index,
			      unsigned long swap, struct mem_cgroup *memcg,
			      struct folio **foliop)
{
	swp_entry_t entry = radix_to_swp_entry(swap);
	struct folio *folio;
	int err;

	folio = swapin_folio(entry, memcg, &err);
	if (!folio)
		return err == -ENOENT ? -EAGAIN : err;
	/* the page cache takes it back whole: not while its write is out */
	folio_wait_writeback(folio);
	if (!filemap_replace_swap_by_folio(mapping, index, swap, folio)) {
		folio_unlock(folio);
		folio_put(folio);
		return -EAGAIN;
	}
	/* the page cache no longer names the slot: it can go */
	swap_free(entry);
	if (folio_test_swapcache(folio) && folio->private == entry.val && !__swap_count(entry))
		delete_from_swap_cache(folio);
	folio_unlock(folio);
	*foliop = folio;
	return 0;
}

int shmem_get_folio(struct address_space *mapping, unsigned long index,
		    struct mem_cgroup *memcg, struct folio **foliop)
{
	struct folio *folio, *found;
	unsigned long swap;
	int err;

	if (index >= mapping->size_pages)
		return -EINVAL;
repeat:
	folio = filemap_get_folio(mapping, index);
	if (folio) {
		/*
		 * Reclaim holds the folio lock while it unmaps and writes a
		 * folio out: wait for it, and look again if it left the cache.
		 */
		if (unlikely(folio_test_locked(folio))) {
			folio_lock(folio);
			folio_unlock(folio);
			if (READ_ONCE(folio->mapping) != mapping) {
				folio_put(folio);
				goto repeat;
			}
		}
		goto out;
	}
	swap = filemap_get_swap(mapping, index);
	if (swap) {
		err = shmem_swapin_folio(mapping, index, swap, memcg, &folio);
		if (err == -EAGAIN)
			goto repeat;
		if (err)
			return err;
		goto out;
	}

	folio = folio_alloc(mapping->order, -1);
	if (!folio)
		return -ENOMEM;
	if (mem_cgroup_charge(folio, memcg)) {
		folio_put(folio);
		return -ENOMEM;
	}
	/* zeroed before anyone can find it: the real work, outside locks */
	memset(folio_address(folio), 0, PAGE_SIZE << mapping->order);
	trace_clear_page(PAGE_SIZE << mapping->order);
	__folio_set_swapbacked(folio);
	__folio_set_uptodate(folio);
	fault_extra_work();

	for (;;) {
		err = __filemap_add_folio(mapping, folio, index);
		if (!err) {
			folio_add_lru(folio);
			goto out;
		}
		if (err != -EEXIST)
			break;
		/* lost the race: use the winner's, unless it is gone again */
		found = filemap_get_folio(mapping, index);
		if (!found && filemap_get_swap(mapping, index)) {
			/* the winner's is swapped out already: start over */
			__folio_clear_swapbacked(folio);
			__folio_clear_uptodate(folio);
			folio_put(folio);
			goto repeat;
		}
		if (found) {
			__folio_clear_swapbacked(folio);
			__folio_clear_uptodate(folio);
			folio_put(folio);
			folio = found;
			goto out;
		}
	}
	folio_put(folio);
	return err;
out:
	*foliop = folio;
	return 0;
}

/*
 * The kernel's truncate_inode_pages_range for shmem: look up a batch of
 * folios (taking a reference on each), delete them from the page cache
 * as a batch, then folio_batch_release(), which drains this CPU's LRU
 * batches once per truncation and puts the whole batch, freeing under
 * one lru_lock hold per lruvec run.
 */
void shmem_truncate_range(struct address_space *mapping, unsigned long start,
			  unsigned long end)
{
	struct folio_batch fbatch;
	unsigned long index = start;
	unsigned int i;

	if (!mapping->size_pages)
		return;
	if (end >= mapping->size_pages)
		end = mapping->size_pages - 1;
	folio_batch_init(&fbatch);
	/*
	 * A thread that is not a model CPU (a test's main thread tearing a
	 * file down at a quiescent point) has no LRU batches to drain.
	 */
	if (smp_processor_id() < 0)
		fbatch.percpu_pvec_drained = true;
	while (index <= end && filemap_get_folios(mapping, &index, end, &fbatch)) {
		/*
		 * Each folio locked, waiting for reclaim's writeout as
		 * shmem_undo_range() does: pageout holds the folio lock while
		 * it uses folio->mapping, and the file may be freed next.
		 * shmem's dirty bit carries no accounting: just cancel it.
		 */
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			folio_lock(fbatch.folios[i]);
			folio_clear_dirty(fbatch.folios[i]);
		}
		delete_from_page_cache_batch(mapping, &fbatch);
		for (i = 0; i < folio_batch_count(&fbatch); i++)
			folio_unlock(fbatch.folios[i]);
		folio_batch_release(&fbatch);
		folio_batch_reinit(&fbatch);
	}
	filemap_free_swap_range(mapping, start, end);
}

void shmem_punch_hole(struct address_space *mapping, unsigned long start,
		      unsigned long end)
{
	if (end < start)
		return;
	unmap_mapping_pages(mapping, start, end - start + 1, false);
	shmem_truncate_range(mapping, start, end);
}
