// SPDX-License-Identifier: MIT
/*
 * Dirty file folios and their writeback: the accounting of the kernel's
 * mm/page-writeback.c and one flusher thread standing in for the
 * per-bdi writeback workers of fs/fs-writeback.c.
 *
 * A write is synchronous, as to a ramdisk: the folio is unlocked once it
 * is marked under writeback, as the kernel unlocks it once the I/O is
 * submitted, the page is copied to the store, and the writeback ends at
 * once.  A folio reclaim found dirty carries PG_reclaim; when its
 * writeback ends it goes to the tail of the inactive list
 * (folio_rotate_reclaimable, pgrotated), where the next scan frees it.
 * The asynchronous swap device (mm/page_io.c) starts and ends its
 * writes with the same two functions.
 *
 * Locks: the flusher holds regular_files_lock (a mutex) across its walk
 * and takes folio locks under it; nothing else is held while a folio is
 * written.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#include <lrulab/kthread.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mm.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap.h>
#include <lrulab/swap_state.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "file-internal.h"

/* folio_account_dirtied: the page counts as dirty, on node, zone, memcg */
bool folio_mark_dirty(struct folio *folio)
{
	long nr = folio_nr_pages(folio);

	if (folio_test_set_dirty(folio))
		return false;
	lruvec_stat_mod_folio(folio, NR_FILE_DIRTY, (int)nr);
	zone_stat_mod_folio(folio, NR_ZONE_WRITE_PENDING, nr);
	return true;
}

/* The reverse: the dirty bit cleared by truncation, or for a write. */
void folio_account_cleaned(struct folio *folio)
{
	long nr = folio_nr_pages(folio);

	lruvec_stat_mod_folio(folio, NR_FILE_DIRTY, -(int)nr);
	zone_stat_mod_folio(folio, NR_ZONE_WRITE_PENDING, -nr);
}

/*
 * Under writeback the pages count in nr_writeback and as write pending
 * until the write ends.  A dirty file folio's write pending is its dirty
 * pages' (folio_clear_dirty_for_io hands them over), a swap cache
 * folio's starts here: its dirty bit was never accounted.
 */
void folio_start_writeback(struct folio *folio)
{
	long nr = folio_nr_pages(folio);

	folio_set_writeback(folio);
	lruvec_stat_mod_folio(folio, NR_WRITEBACK, (int)nr);
	zone_stat_mod_folio(folio, NR_ZONE_WRITE_PENDING, nr);
}

/*
 * A folio reclaim wanted gone goes to the inactive tail, unless it was
 * dirtied or locked meanwhile; the rotation is queued before the
 * writeback bit clears, as the kernel orders it, so a reclaimer that
 * finds the folio clean finds it rotated too.  The caller holds a
 * reference: once the bit is clear reclaim may free the folio.
 */
void folio_end_writeback(struct folio *folio)
{
	long nr = folio_nr_pages(folio);

	if (folio_test_clear_reclaim(folio))
		folio_rotate_reclaimable(folio);
	folio_clear_writeback(folio);
	lruvec_stat_mod_folio(folio, NR_WRITEBACK, -(int)nr);
	zone_stat_mod_folio(folio, NR_ZONE_WRITE_PENDING, -nr);
}

/*
 * The kernel sleeps on the folio's PG_writeback wait queue until the
 * completion interrupt ends the write.  The model has neither: the
 * waiter ends the swap writes that are due itself, and gives the CPU up
 * until this one's is (it needs no folio lock, which the waiter may
 * hold).  File writes here are synchronous and never waited for.
 */
void folio_wait_writeback(struct folio *folio)
{
	while (folio_test_writeback(folio)) {
		swap_complete_due_writes();
		if (!folio_test_writeback(folio))
			break;
		cpu_sleep_begin();
		sched_yield();
		cpu_sleep_end();
	}
}

void folio_write_one(struct folio *folio)
{
	struct address_space *mapping = READ_ONCE(folio->mapping);
	long nr = folio_nr_pages(folio);

	/* folio_clear_dirty_for_io, then the page is under writeback */
	if (!mapping_regular(mapping) || !folio_test_clear_dirty(folio)) {
		folio_unlock(folio);
		return;
	}
	folio_account_cleaned(folio);
	folio_start_writeback(folio);
	folio_unlock(folio);

	file_store_write(mapping, folio->index, folio_address(folio));
	/* submit_bio() counts 512-byte sectors */
	count_vm_events(PGPGOUT, (unsigned long)nr << (PAGE_SHIFT - 9));
	folio_end_writeback(folio);
}

/*
 * Writeback of one file's dirty folios (write_cache_pages without the
 * dirty tag: every page is looked up).  The caller is a model CPU.
 */
unsigned long filemap_write_and_wait(struct address_space *mapping)
{
	unsigned long index, written = 0;

	for (index = 0; index < mapping->size_pages; index++) {
		struct folio *folio = filemap_get_folio(mapping, index);

		if (!folio)
			continue;
		if (folio_test_dirty(folio)) {
			folio_lock(folio);
			/* truncated or cleaned meanwhile: nothing to write */
			if (READ_ONCE(folio->mapping) == mapping && folio_test_dirty(folio)) {
				folio_write_one(folio);
				written++;
			} else {
				folio_unlock(folio);
			}
		}
		folio_put(folio);
	}
	return written;
}

/* ---- the flusher ---- */

static void wb_workfn(struct lrulab_kthread *kt)
{
	struct file_inode *inode;

	mutex_lock_sleep(&regular_files_lock);
	list_for_each_entry(inode, &regular_files, list)
		filemap_write_and_wait(&inode->mapping);
	pthread_mutex_unlock(&regular_files_lock);
	/* the rotations of PG_reclaim folios reach the lists now */
	lru_add_drain();
}

static struct lrulab_kthread wb_flusher = LRULAB_KTHREAD_INIT("flusher", wb_workfn, NULL, NULL);

int wb_flusher_run(int cpu)
{
	if (cpu < 0 || cpu >= nr_cpu_ids)
		return -EINVAL;
	return kthread_run_on(&wb_flusher, cpu);
}

void wb_flusher_stop(void)
{
	kthread_stop(&wb_flusher);
}

void wakeup_flusher_threads(void)
{
	kthread_wake(&wb_flusher);
}

void wb_flusher_wait_idle(void)
{
	kthread_wait_idle(&wb_flusher);
}

unsigned long wb_flusher_nr_wakeups(void)
{
	return kthread_nr_wakeups(&wb_flusher);
}
