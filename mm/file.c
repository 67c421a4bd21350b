// SPDX-License-Identifier: MIT
/*
 * Regular files: the read and write paths of the kernel's mm/filemap.c
 * (filemap_read, generic_perform_write) over a ramdisk-like store, so
 * that the model has file LRU folios: clean ones reclaim can simply
 * drop, dirty ones that must be written back first, and refaults of
 * evicted pages through the shadow entries they leave in the page cache.
 *
 * The store is real memory, one page per file page, zero-filled.  It is
 * read when a folio is created for a page (a cache miss) and written
 * when a dirty folio is written back; both copy word by word with atomic
 * accesses, since a page can be written back while it is being read
 * again after an eviction raced with it, as a block device would see two
 * overlapping requests.
 *
 * Files are on one list under regular_files_lock (a mutex: the flusher
 * sleeps nowhere under it, but walks a whole file) for the flusher.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lrulab/rcupdate.h>

#include <lrulab/fs.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mm.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap.h>
#include <lrulab/vmscan.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "file-internal.h"

pthread_mutex_t regular_files_lock = PTHREAD_MUTEX_INITIALIZER;
LIST_HEAD(regular_files);

static void file_inode_free(struct rcu_head *head)
{
	struct file_inode *inode = container_of(head, struct file_inode, rcu);

	rcu_tsan_acquire();
	free(inode->store);
	free(inode);
}

static struct address_space *file_create(unsigned long size_pages, bool nodata)
{
	struct address_space *mapping;
	struct file_inode *inode;

	inode = calloc(1, sizeof(*inode));
	if (!inode || !size_pages ||
	    (!nodata && !(inode->store = calloc(size_pages, PAGE_SIZE)))) {
		free(inode);
		errno = size_pages ? ENOMEM : EINVAL;
		return NULL;
	}
	mapping = &inode->mapping;
	if (page_cache_init(mapping, size_pages)) {
		free(inode->store);
		free(inode);
		errno = ENOMEM;
		return NULL;
	}
	__set_bit(AS_REGULAR, &mapping->flags);
	if (nodata)
		__set_bit(AS_NODATA, &mapping->flags);
	mapping->ra_pages = (unsigned int)VM_READAHEAD_PAGES;
	mutex_lock_sleep(&regular_files_lock);
	list_add_tail(&inode->list, &regular_files);
	pthread_mutex_unlock(&regular_files_lock);
	return mapping;
}

struct address_space *file_setup(unsigned long size_pages)
{
	return file_create(size_pages, false);
}

struct address_space *file_setup_nodata(unsigned long size_pages)
{
	return file_create(size_pages, true);
}

static void copy_words(unsigned long *dst, const unsigned long *src)
{
	size_t i;

	for (i = 0; i < PAGE_SIZE / sizeof(long); i++)
		__atomic_store_n(&dst[i], __atomic_load_n(&src[i], __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
}

void file_store_read(struct address_space *mapping, unsigned long index, void *buf)
{
	if (test_bit(AS_NODATA, &mapping->flags))
		memset(buf, 0, PAGE_SIZE);
	else
		copy_words(buf, file_store_page(mapping, index));
}

void file_store_write(struct address_space *mapping, unsigned long index, const void *buf)
{
	if (!test_bit(AS_NODATA, &mapping->flags))
		copy_words(file_store_page(mapping, index), buf);
}

/*
 * A miss, or a readahead page: a new folio charged to @memcg, filled
 * from the store, put in place of the page's shadow (or of nothing) and
 * on the LRU after workingset_refault() has seen the shadow.  Readahead
 * sets PG_readahead on it before anyone can find it.  A folio added for
 * a write (@write, the kernel's __GFP_WRITE from write_begin) drops the
 * shadow without refault accounting, as filemap_add_folio() does: a
 * write is no proof that the page was wanted back.  -EAGAIN when
 * another thread's folio got there first.  @foliop NULL: no reference
 * is kept.
 */
int file_read_folio(struct address_space *mapping, unsigned long index,
		    struct mem_cgroup *memcg, bool readahead, bool write,
		    struct folio **foliop)
{
	unsigned long shadow = filemap_get_swap(mapping, index);
	struct folio *folio;
	int err;

	folio = folio_alloc(0, -1);
	if (!folio)
		return -ENOMEM;
	if (mem_cgroup_charge(folio, memcg)) {
		folio_put(folio);
		return -ENOMEM;
	}
	__folio_set_locked(folio);
	if (readahead)
		__folio_set_readahead(folio);
	/* a store without data leaves the folio's memory untouched */
	if (!test_bit(AS_NODATA, &mapping->flags))
		file_store_read(mapping, index, folio_address(folio));
	__folio_set_uptodate(folio);
	/* submit_bio() counts 512-byte sectors */
	count_vm_events(PGPGIN, PAGE_SIZE >> 9);
	if (shadow) {
		err = filemap_replace_swap_by_folio(mapping, index, shadow, folio) ? 0 : -EAGAIN;
		if (!err && !write)
			workingset_refault(folio, (void *)shadow);
	} else {
		err = __filemap_add_folio(mapping, folio, index);
		if (err == -EEXIST)
			err = -EAGAIN;
	}
	if (err) {
		__folio_clear_locked(folio);
		__folio_clear_readahead(folio);
		__folio_clear_uptodate(folio);
		folio_put(folio);
		return err;
	}
	folio_add_lru(folio);
	folio_unlock(folio);
	if (foliop)
		*foliop = folio;
	else
		folio_put(folio);
	return 0;
}

/*
 * The referenced, up-to-date folio of page @index, read in on a miss
 * (for a @write: without refault accounting).
 */
static int file_get_folio(struct address_space *mapping, unsigned long index,
			  struct mem_cgroup *memcg, bool write, struct folio **foliop)
{
	struct folio *folio;
	int err;

	if (!mapping_regular(mapping) || index >= mapping->size_pages)
		return -EINVAL;
	for (;;) {
		folio = filemap_get_folio(mapping, index);
		if (folio) {
			*foliop = folio;
			return 0;
		}
		err = file_read_folio(mapping, index, memcg, false, write, foliop);
		if (err != -EAGAIN)
			return err;
	}
}

int file_read_page(struct address_space *mapping, unsigned long index,
		   struct mem_cgroup *memcg, void *buf)
{
	struct folio *folio;
	int err = file_get_folio(mapping, index, memcg, false, &folio);

	if (err)
		return err;
	if (buf && test_bit(AS_NODATA, &mapping->flags))
		memset(buf, 0, PAGE_SIZE);
	else if (buf)
		copy_words(buf, folio_address(folio));
	folio_mark_accessed(folio);
	folio_put(folio);
	return 0;
}

/*
 * The reader sleeps until the device has read the page it missed, as
 * the kernel's reader sleeps on the locked folio until the completion
 * wakes it: time in which reclaim and the memcg stats flusher go on
 * without it.  Other CPUs may run this CPU's work meanwhile.  A sleep
 * that overran (a busy machine wakes the thread late) shortens the
 * thread's next ones, so that its reads wait the latency on average, as
 * a host's reads measured on the same machine do, late wake-ups
 * included.
 */
static __thread long long file_wait_overrun_ns;

static long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void io_wait_read(u64 latency_ns)
{
	long long wait = (long long)latency_ns, start, until, slept;
	struct timespec ts;

	if (!wait)
		return;
	start = monotonic_ns();
	until = start + wait - min_t(long long, file_wait_overrun_ns, wait);
	ts.tv_sec = (time_t)(until / 1000000000LL);
	ts.tv_nsec = (long)(until % 1000000000LL);
	cpu_sleep_begin();
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	cpu_sleep_end();
	slept = monotonic_ns() - start;
	trace_io_wait(latency_ns, (u64)slept);
	file_wait_overrun_ns += slept - wait;
	if (file_wait_overrun_ns < 0)
		file_wait_overrun_ns = 0;
}

ssize_t filemap_read(struct file *file, long long pos, size_t count,
		     struct mem_cgroup *memcg, void *buf)
{
	struct address_space *mapping = file->f_mapping;
	struct file_ra_state *ra = &file->f_ra;
	unsigned long page[PAGE_SIZE / sizeof(long)];
	long long isize, last_pos = ra->prev_pos;
	unsigned long last_index;
	size_t copied = 0;
	int err = 0;

	if (!mapping_regular(mapping) || pos < 0)
		return -EINVAL;
	isize = (long long)mapping->size_pages << PAGE_SHIFT;
	if (pos >= isize || !count)
		return 0;
	if ((unsigned long long)count > (unsigned long long)(isize - pos))
		count = (size_t)(isize - pos);
	last_index = (unsigned long)((pos + (long long)count + PAGE_SIZE - 1) >> PAGE_SHIFT);

	while (copied < count) {
		unsigned long index = (unsigned long)(pos >> PAGE_SHIFT);
		size_t offset = (size_t)(pos & (PAGE_SIZE - 1));
		size_t n = min_t(size_t, PAGE_SIZE - offset, count - copied);
		struct folio *folio = filemap_get_folio(mapping, index);

		if (!folio) {
			page_cache_sync_ra(file, index, last_index - index, memcg);
			folio = filemap_get_folio(mapping, index);
			/* readahead gave up (or lost the page again): read it alone */
			while (!folio) {
				err = file_read_folio(mapping, index, memcg, false, false, &folio);
				if (err == -EAGAIN) {
					folio = filemap_get_folio(mapping, index);
					continue;
				}
				if (err)
					goto out;
			}
			io_wait_read(READ_ONCE(mapping->read_latency_us) * 1000ULL);
		}
		if (folio_test_readahead(folio))
			page_cache_async_ra(file, folio, last_index - index, memcg);
		if (buf && test_bit(AS_NODATA, &mapping->flags)) {
			memset((char *)buf + copied, 0, n);
		} else if (buf) {
			copy_words(page, folio_address(folio));
			memcpy((char *)buf + copied, (char *)page + offset, n);
		}
		/*
		 * Once per run of reads within a folio: not again for a read
		 * that starts in the folio where the previous one ended.
		 */
		if (copied || (pos >> PAGE_SHIFT) != ((last_pos - 1) >> PAGE_SHIFT))
			folio_mark_accessed(folio);
		folio_put(folio);
		pos += (long long)n;
		copied += n;
		last_pos = pos;
	}
out:
	ra->prev_pos = last_pos;
	return copied ? (ssize_t)copied : err;
}

int file_write_page(struct address_space *mapping, unsigned long index,
		    struct mem_cgroup *memcg, const void *buf)
{
	struct folio *folio;
	int err;

again:
	err = file_get_folio(mapping, index, memcg, true, &folio);
	if (err)
		return err;
	/* write_begin: the folio locked, and still this file's page */
	folio_lock(folio);
	if (READ_ONCE(folio->mapping) != mapping) {
		folio_unlock(folio);
		folio_put(folio);
		goto again;
	}
	if (buf && !test_bit(AS_NODATA, &mapping->flags))
		copy_words(folio_address(folio), buf);
	folio_mark_dirty(folio);
	folio_unlock(folio);
	folio_mark_accessed(folio);
	folio_put(folio);
	return 0;
}

/*
 * truncate_inode_pages: delete the folios in batches, dropping dirty data
 * with its accounting (folio_cancel_dirty), then the shadows.
 */
static void file_truncate(struct address_space *mapping)
{
	struct folio_batch fbatch;
	unsigned long index = 0;
	unsigned int i;

	folio_batch_init(&fbatch);
	if (smp_processor_id() < 0)
		fbatch.percpu_pvec_drained = true;
	while (filemap_get_folios(mapping, &index, mapping->size_pages - 1, &fbatch)) {
		for (i = 0; i < folio_batch_count(&fbatch); i++) {
			struct folio *folio = fbatch.folios[i];

			folio_lock(folio);
			if (folio_test_clear_dirty(folio))
				folio_account_cleaned(folio);
			folio_unlock(folio);
		}
		delete_from_page_cache_batch(mapping, &fbatch);
		folio_batch_release(&fbatch);
		folio_batch_reinit(&fbatch);
	}
	filemap_remove_shadows(mapping);
}

void file_free(struct address_space *mapping)
{
	struct file_inode *inode;

	if (!mapping)
		return;
	inode = container_of(mapping, struct file_inode, mapping);
	/* off the flusher's list first: it never sees a file being torn down */
	mutex_lock_sleep(&regular_files_lock);
	list_del(&inode->list);
	pthread_mutex_unlock(&regular_files_lock);
	file_truncate(mapping);
	page_cache_destroy(mapping);
	call_rcu(&inode->rcu, file_inode_free);
}
