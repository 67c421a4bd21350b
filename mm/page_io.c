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
 * the swap file of the s1 mail; swap_io_start()) only starts the write:
 * the folio is put under writeback and unlocked, reclaim keeps it, and
 * a device thread, a model CPU of its own, stores it latency_us later
 * and ends the writeback there.  The end rotates the folio, PG_reclaim
 * since pageout(), through the device CPU's lru_move_tail batch to the
 * inactive tail (pgrotated); the device drains that batch after each
 * round of completions (lru_add_drain_cpu, the s1 mail's top lru_lock
 * site), and the next scan frees the clean folio.  In the kernel the
 * completion interrupt usually lands on the CPU that submitted the
 * write, whose own reclaim then drains the batch; here one CPU takes
 * all of them.  A zero-filled page needs no I/O on a disk either (the
 * kernel's zeromap): it completes at once.
 *
 * Each model CPU submits to a queue of its own (blk-mq's software
 * queues), SWAP_IO_DEPTH deep; a submitter that finds its queue full
 * waits for the device, as one waits for a tag.
 *
 * Lock order: as in mm/swapfile.c's header.  Here a cluster's lock is
 * taken alone, only to set or read the slot's data; the device's mutex
 * is never held across a completion.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <zstd.h>

#include <lrulab/memcontrol.h>
#include <lrulab/pagemap.h>
#include <lrulab/swap.h>
#include <lrulab/vmstat.h>

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
 * The folio is in the swap cache and unmapped, and no write of it runs
 * (it is locked, or under writeback, which nobody else starts).  Its
 * memory is copied word by word with atomic loads: an access through a
 * PTE that try_to_unmap() cleared just before (what a TLB shootdown
 * waits for in the kernel), or through one a swap-in set up while the
 * asynchronous write waited, may still be storing to it, and the copy,
 * not the page, is what gets stored.
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

/* A model CPU's submissions: it fills at tail, the device takes at head. */
struct swap_io_queue {
	unsigned long tail;		/* written by the queue's CPU */
	CACHELINE_PADDING(_pad1_);
	unsigned long head;		/* written by the device */
	CACHELINE_PADDING(_pad2_);
	struct swap_io_req reqs[SWAP_IO_DEPTH];
};

static void swap_io_submit(struct folio *folio);

static struct swap_io {
	bool running;			/* set-up thread only; read by submitters */
	int cpu;
	u64 latency_ns;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wait;		/* the device: work, or a state change */
	pthread_cond_t done;		/* wait_idle: nothing in flight */
	bool stop, quiesced;		/* under lock */
	int sleeping;			/* with nothing queued: submitters wake it */
	atomic_long_t in_flight;	/* submitted, not yet ended and drained */
	atomic_long_t nr_async, nr_rounds;
	struct swap_io_queue *queues;	/* one per model CPU */
} swap_io = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

bool swap_writeout(struct folio *folio)
{
	if (!smp_load_acquire(&swap_io.running)) {
		swap_store_page(folio);
		count_swpout(folio);
		return false;
	}
	if (folio_zero_filled(folio)) {
		/* no I/O: the slot records the zero page */
		swap_store_page(folio);
		return false;
	}
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
 * The folio holds a reference for the device until its write ends; the
 * swap cache holds one too, and nothing takes a folio under writeback
 * out of the cache, so the slot stays the folio's.
 */
static void swap_io_submit(struct folio *folio)
{
	struct swap_io_queue *q = &swap_io.queues[smp_processor_id()];
	unsigned long tail = q->tail;

	while (tail - smp_load_acquire(&q->head) >= SWAP_IO_DEPTH)
		sched_yield();
	folio_get(folio);
	q->reqs[tail % SWAP_IO_DEPTH] = (struct swap_io_req){
		.folio = folio, .due = swap_io_now() + swap_io.latency_ns,
	};
	atomic_long_inc(&swap_io.in_flight);
	atomic_long_inc(&swap_io.nr_async);
	/* publish, then look whether the device went to sleep on an empty queue */
	__atomic_store_n(&q->tail, tail + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&swap_io.sleeping, __ATOMIC_SEQ_CST)) {
		pthread_mutex_lock(&swap_io.lock);
		pthread_cond_broadcast(&swap_io.wait);
		pthread_mutex_unlock(&swap_io.lock);
	}
}

/* The earliest due time among the queues' heads; false if all are empty. */
static bool swap_io_next_due(u64 *due)
{
	bool found = false;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct swap_io_queue *q = &swap_io.queues[cpu];
		unsigned long head = q->head;

		if (head == __atomic_load_n(&q->tail, __ATOMIC_SEQ_CST))
			continue;
		if (!found || q->reqs[head % SWAP_IO_DEPTH].due < *due)
			*due = q->reqs[head % SWAP_IO_DEPTH].due;
		found = true;
	}
	return found;
}

/* end_swap_bio_write: the page is on the device, the writeback ends. */
static void swap_io_end_write(struct folio *folio)
{
	swap_store_page(folio);
	folio_end_writeback(folio);
	folio_put(folio);
}

/* Every write due by @now, queue by queue; how many. */
static long swap_io_complete(u64 now)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct swap_io_queue *q = &swap_io.queues[cpu];
		unsigned long head = q->head;

		while (head != smp_load_acquire(&q->tail) &&
		       q->reqs[head % SWAP_IO_DEPTH].due <= now) {
			swap_io_end_write(q->reqs[head % SWAP_IO_DEPTH].folio);
			smp_store_release(&q->head, ++head);
			n++;
		}
	}
	return n;
}

static void swap_io_timedwait(u64 due)
{
	struct timespec ts = {
		.tv_sec = (time_t)(due / 1000000000ULL),
		.tv_nsec = (long)(due % 1000000000ULL),
	};

	pthread_cond_timedwait(&swap_io.wait, &swap_io.lock, &ts);
}

/*
 * The device: sleep until the earliest write is due, end every write
 * that is, then drain this CPU's batches so that the rotations reach the
 * lists.  Stopping ends what is queued first, at its due time.
 */
static void *swap_io_thread(void *arg)
{
	(void)arg;
	if (cpu_enter(swap_io.cpu, false)) {
		fprintf(stderr, "lrulab: swap device: model CPU %d is not free\n", swap_io.cpu);
		abort();
	}
	/* a wakeup 50 us late (the default slack) would be half a latency */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	pthread_mutex_lock(&swap_io.lock);
	for (;;) {
		long n;
		u64 due;

		if (swap_io.quiesced && !swap_io.stop) {
			pthread_cond_wait(&swap_io.wait, &swap_io.lock);
			continue;
		}
		if (!swap_io_next_due(&due)) {
			if (swap_io.stop)
				break;
			__atomic_store_n(&swap_io.sleeping, 1, __ATOMIC_SEQ_CST);
			if (!swap_io_next_due(&due))
				pthread_cond_wait(&swap_io.wait, &swap_io.lock);
			__atomic_store_n(&swap_io.sleeping, 0, __ATOMIC_SEQ_CST);
			continue;
		}
		if (due > swap_io_now()) {
			swap_io_timedwait(due);
			continue;
		}
		pthread_mutex_unlock(&swap_io.lock);
		n = swap_io_complete(swap_io_now());
		lru_add_drain();
		atomic_long_inc(&swap_io.nr_rounds);
		pthread_mutex_lock(&swap_io.lock);
		if (!atomic_long_sub_return(n, &swap_io.in_flight))
			pthread_cond_broadcast(&swap_io.done);
	}
	pthread_mutex_unlock(&swap_io.lock);
	cpu_exit();
	return NULL;
}

int swap_io_start(int cpu, unsigned int latency_us)
{
	pthread_condattr_t attr;

	if (cpu < 0 || cpu >= nr_cpu_ids)
		return -EINVAL;
	if (swap_io.running)
		return -EBUSY;
	if (posix_memalign((void **)&swap_io.queues, L1_CACHE_BYTES,
			   (size_t)nr_cpu_ids * sizeof(*swap_io.queues)))
		return -ENOMEM;
	memset(swap_io.queues, 0, (size_t)nr_cpu_ids * sizeof(*swap_io.queues));
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&swap_io.wait, &attr);
	pthread_condattr_destroy(&attr);
	swap_io.cpu = cpu;
	swap_io.latency_ns = latency_us * 1000ULL;
	swap_io.stop = swap_io.quiesced = false;
	swap_io.sleeping = 0;
	atomic_long_set(&swap_io.in_flight, 0);
	atomic_long_set(&swap_io.nr_async, 0);
	atomic_long_set(&swap_io.nr_rounds, 0);
	if (pthread_create(&swap_io.thread, NULL, swap_io_thread, NULL)) {
		pthread_cond_destroy(&swap_io.wait);
		free(swap_io.queues);
		swap_io.queues = NULL;
		return -EAGAIN;
	}
	smp_store_release(&swap_io.running, true);
	return 0;
}

void swap_io_stop(void)
{
	if (!swap_io.running)
		return;
	pthread_mutex_lock(&swap_io.lock);
	swap_io.stop = true;
	pthread_cond_broadcast(&swap_io.wait);
	pthread_mutex_unlock(&swap_io.lock);
	pthread_join(swap_io.thread, NULL);
	smp_store_release(&swap_io.running, false);
	pthread_cond_destroy(&swap_io.wait);
	free(swap_io.queues);
	swap_io.queues = NULL;
}

bool swap_io_async(void)
{
	return smp_load_acquire(&swap_io.running);
}

void swap_io_wait_idle(void)
{
	if (!swap_io.running)
		return;
	pthread_mutex_lock(&swap_io.lock);
	while (atomic_long_read(&swap_io.in_flight))
		pthread_cond_wait(&swap_io.done, &swap_io.lock);
	pthread_mutex_unlock(&swap_io.lock);
}

/* blk_mq_quiesce_queue: writes still queue, none completes. */
void swap_io_quiesce(bool quiesce)
{
	if (!swap_io.running)
		return;
	pthread_mutex_lock(&swap_io.lock);
	swap_io.quiesced = quiesce;
	pthread_cond_broadcast(&swap_io.wait);
	pthread_mutex_unlock(&swap_io.lock);
}

void swap_io_stats(struct swap_io_stat *st)
{
	st->async_writes = (unsigned long)atomic_long_read(&swap_io.nr_async);
	st->in_flight = (unsigned long)atomic_long_read(&swap_io.in_flight);
	st->rounds = (unsigned long)atomic_long_read(&swap_io.nr_rounds);
}
