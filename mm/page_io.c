// SPDX-License-Identifier: MIT
/*
 * Storing and loading a slot's page (the kernel's mm/page_io.c):
 * swap_writeout() for reclaim, swap_read_folio() for swap-in, and the
 * two devices a write can go to.  The device and its slots are in
 * mm/swapfile.c.
 *
 * Storing a page costs what zram's does: a same-filled page (the common
 * zero page) is kept as its fill value, anything else is compressed with
 * zstd (or copied, in SWAP_STORE_COPY mode) into a buffer of its own.
 *
 * The synchronous device (zram's way, the default) stores the page on
 * the reclaiming CPU before swap_writeout() returns, so reclaim frees
 * the folio in the same pass.  The asynchronous one (a disk's, such as
 * the swap file of the s1 mail; swap_io_start()) stores the page as the
 * write is submitted, as DMA would read it, but only starts the write:
 * the folio is put under writeback and unlocked, and reclaim keeps it.
 * A swap-in from it sleeps as long for its read, as the faulting task
 * sleeps on the locked folio until the read's bio completes.
 * The write ends latency_us later with a completion interrupt on the
 * CPU that submitted it (blk-mq completes a request where it was
 * issued).  A model CPU has no interrupts, so it takes the completions
 * that are due when it enters a list shrinker (swap_complete_writes()),
 * just before the lru_add_drain() there: each ends the folio's
 * writeback and rotates it, PG_reclaim since pageout(), into this CPU's
 * lru_move_tail batch; the drain puts the batch on the inactive tail
 * under lru_lock (lru_add_drain_cpu, the s1 mail's top lru_lock site,
 * pgrotated), and the scan frees the clean folio.  Completions due on a
 * CPU that no longer reclaims wait for swap_io_wait_idle().  A
 * zero-filled page needs no I/O on a disk either (the kernel's zeromap):
 * it completes at once.
 *
 * Each model CPU's writes in flight queue on the CPU, SWAP_IO_DEPTH
 * deep; a submitter that finds its queue full waits for the oldest
 * write's end, as one waits for a tag.  A CPU that waits for a write
 * (folio_wait_writeback) ends every due write itself, whoever submitted
 * it: the submitter may be the one holding what the waiter needs.
 *
 * Lock order: as in mm/swapfile.c's header.  Here a cluster's lock is
 * taken alone, only to set or read the slot's data.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <lrulab/memcontrol.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "file-internal.h"
#include "swap-internal.h"

/*
 * zstd contexts per model CPU, as zram keeps a compression stream per
 * CPU: creating one per page would cost more than compressing it.  A
 * model CPU is one thread at a time, so its contexts need no lock.
 */
static ZSTD_CCtx *swap_cctx[LRULAB_MAX_CPUS];
static ZSTD_DCtx *swap_dctx[LRULAB_MAX_CPUS];

void swap_free_contexts(void)
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
 * shootdown waits for in the kernel) may still be storing to it, and
 * the copy, not the page, is what gets stored.
 */
static void swap_store_page(struct folio *folio)
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
		if (swap_info.mode == SWAP_STORE_ZSTD) {
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
}

static void count_swpout(struct folio *folio)
{
	count_vm_event(PSWPOUT);
	count_memcg_folio_events(folio, PSWPOUT, 1);
}

static bool folio_zero_filled(struct folio *folio)
{
	const unsigned long *p = folio_address(folio);
	size_t i;

	for (i = 0; i < PAGE_SIZE / sizeof(long); i++)
		if (__atomic_load_n(&p[i], __ATOMIC_RELAXED))
			return false;
	return true;
}

/* ---- the asynchronous device ---- */

#define SWAP_IO_DEPTH 1024	/* an NVMe queue's 1023 tags, rounded */

struct swap_io_req {
	struct folio *folio;
	u64 due;			/* CLOCK_MONOTONIC ns */
};

/*
 * A model CPU's writes in flight, oldest first.  The CPU adds and ends
 * its own; a CPU that must wait for a write ends what is due anywhere
 * (an interrupt does not wait for its CPU to come round), so each queue
 * has a lock, which only such a waiter ever contends.
 */
struct swap_io_queue {
	pthread_spinlock_t lock;
	unsigned long head, tail;
	struct swap_io_req reqs[SWAP_IO_DEPTH];
};

static struct swap_io {
	bool on;			/* set-up thread only; read by submitters */
	bool quiesced;			/* completions held back */
	u64 latency_ns;
	struct swap_io_queue *queues;	/* per CPU */
	atomic_long_t in_flight, nr_async, nr_irqs, nr_reads;
} swap_io;

static void swap_io_submit(struct folio *folio);

bool swap_writeout(struct folio *folio)
{
	swap_store_page(folio);
	if (!smp_load_acquire(&swap_io.on)) {
		count_swpout(folio);
		return false;
	}
	/* no I/O for a zero page: the slot records it */
	if (folio_zero_filled(folio))
		return false;
	count_swpout(folio);
	folio_start_writeback(folio);
	folio_unlock(folio);
	swap_io_submit(folio);
	return true;
}

/*
 * Fill a new, locked folio, cached for @entry, from its slot.  The data
 * is read outside the lock: while the folio is cached and locked the
 * slot is neither freed nor rewritten (both need the folio or an empty
 * cache).
 */
void swap_read_folio(struct folio *folio, swp_entry_t entry)
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
	/*
	 * From a disk the faulting task sleeps until the read completes;
	 * a zero-filled slot is read from the zeromap, with no I/O.  zram's
	 * synchronous device reads on this CPU, no wait beyond the copy.
	 */
	if (smp_load_acquire(&swap_io.on) && (data || fill)) {
		atomic_long_inc(&swap_io.nr_reads);
		io_wait_read(swap_io.latency_ns);
	}
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

static u64 swap_io_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/*
 * end_swap_bio_write: the write is on the device.  The queue held a
 * reference, since the folio may be freed as soon as the bit clears.
 * Off every model CPU (stopping the device at teardown) there is no
 * batch to rotate through: the folio is left where it is.
 */
static void swap_io_end_write(struct folio *folio)
{
	if (smp_processor_id() < 0)
		folio_clear_reclaim(folio);
	folio_end_writeback(folio);
	folio_put(folio);
	atomic_long_sub(1, &swap_io.in_flight);
}

/*
 * End the writes of @q due by @now (all of them: ~0), oldest first, a
 * batch at a time, with the queue's lock dropped: the ends take the
 * LRU's locks.  How many.
 */
static unsigned long swap_io_complete(struct swap_io_queue *q, u64 now)
{
	struct folio *done[32];
	unsigned long n, total = 0, i;

	do {
		n = 0;
		pthread_spin_lock(&q->lock);
		while (n < ARRAY_SIZE(done) && q->head != q->tail &&
		       q->reqs[q->head % SWAP_IO_DEPTH].due <= now)
			done[n++] = q->reqs[q->head++ % SWAP_IO_DEPTH].folio;
		pthread_spin_unlock(&q->lock);
		for (i = 0; i < n; i++)
			swap_io_end_write(done[i]);
		total += n;
	} while (n == ARRAY_SIZE(done));
	return total;
}

/* The completion interrupts due on this CPU. */
void swap_complete_writes(void)
{
	int cpu = smp_processor_id();

	if (!smp_load_acquire(&swap_io.on) || cpu < 0 || READ_ONCE(swap_io.quiesced))
		return;
	if (swap_io_complete(per_cpu_ptr(swap_io.queues, cpu), swap_io_now()))
		atomic_long_inc(&swap_io.nr_irqs);
}

/*
 * For a CPU that waits for a write: end what is due on any CPU (an
 * interrupt does not wait for its CPU to come round), the rotations
 * going to the waiter's batch.
 */
void swap_complete_due_writes(void)
{
	int cpu;

	if (!smp_load_acquire(&swap_io.on) || smp_processor_id() < 0 ||
	    READ_ONCE(swap_io.quiesced))
		return;
	for_each_possible_cpu(cpu)
		swap_io_complete(per_cpu_ptr(swap_io.queues, cpu), swap_io_now());
}

/* Sleep until @due: the device takes its time. */
static void swap_io_wait(u64 due)
{
	u64 now = swap_io_now();

	if (due <= now)
		return;
	cpu_sleep_begin();
	usleep((useconds_t)((due - now + 999) / 1000));
	cpu_sleep_end();
}

static void swap_io_submit(struct folio *folio)
{
	struct swap_io_queue *q = this_cpu_ptr(swap_io.queues);
	u64 oldest;

	folio_get(folio);
	pthread_spin_lock(&q->lock);
	/* no tag free: wait for the oldest write's end */
	while (q->tail - q->head == SWAP_IO_DEPTH) {
		oldest = q->reqs[q->head % SWAP_IO_DEPTH].due;
		pthread_spin_unlock(&q->lock);
		swap_io_wait(oldest);
		swap_io_complete(q, swap_io_now());
		pthread_spin_lock(&q->lock);
	}
	q->reqs[q->tail++ % SWAP_IO_DEPTH] = (struct swap_io_req){
		.folio = folio, .due = swap_io_now() + swap_io.latency_ns,
	};
	pthread_spin_unlock(&q->lock);
	atomic_long_inc(&swap_io.in_flight);
	atomic_long_inc(&swap_io.nr_async);
}

int swap_io_start(unsigned int latency_us)
{
	int cpu;

	if (swap_io.on)
		return -EBUSY;
	swap_io.queues = alloc_percpu(struct swap_io_queue);
	if (!swap_io.queues)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		pthread_spin_init(&per_cpu_ptr(swap_io.queues, cpu)->lock, PTHREAD_PROCESS_PRIVATE);
	swap_io.latency_ns = latency_us * 1000ULL;
	swap_io.quiesced = false;
	atomic_long_set(&swap_io.in_flight, 0);
	atomic_long_set(&swap_io.nr_async, 0);
	atomic_long_set(&swap_io.nr_irqs, 0);
	atomic_long_set(&swap_io.nr_reads, 0);
	smp_store_release(&swap_io.on, true);
	return 0;
}

bool swap_io_async(void)
{
	return smp_load_acquire(&swap_io.on);
}

void swap_io_wait_idle(void)
{
	int cpu;

	if (!swap_io.on)
		return;
	for_each_possible_cpu(cpu) {
		struct swap_io_queue *q = per_cpu_ptr(swap_io.queues, cpu);
		u64 last = 0;

		pthread_spin_lock(&q->lock);
		if (q->head != q->tail)
			last = q->reqs[(q->tail - 1) % SWAP_IO_DEPTH].due;
		pthread_spin_unlock(&q->lock);
		swap_io_wait(last);
		swap_io_complete(q, ~0ULL);
	}
	/* the rotations reach the lists */
	if (smp_processor_id() >= 0)
		lru_add_drain();
}

void swap_io_stop(void)
{
	int cpu;

	if (!swap_io.on)
		return;
	swap_io_wait_idle();
	smp_store_release(&swap_io.on, false);
	for_each_possible_cpu(cpu)
		pthread_spin_destroy(&per_cpu_ptr(swap_io.queues, cpu)->lock);
	free_percpu(swap_io.queues);
	swap_io.queues = NULL;
}

/* blk_mq_quiesce_queue: writes still queue, none completes. */
void swap_io_quiesce(bool quiesce)
{
	WRITE_ONCE(swap_io.quiesced, quiesce);
}

void swap_io_stats(struct swap_io_stat *st)
{
	st->async_writes = (unsigned long)atomic_long_read(&swap_io.nr_async);
	st->in_flight = (unsigned long)atomic_long_read(&swap_io.in_flight);
	st->irqs = (unsigned long)atomic_long_read(&swap_io.nr_irqs);
	st->reads = (unsigned long)atomic_long_read(&swap_io.nr_reads);
}
