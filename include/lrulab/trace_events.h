/* SPDX-License-Identifier: MIT */
/*
 * Every trace event, one line each: the only place an event is declared.
 * Its enabled flag, its probe type, its register and unregister calls and
 * its name in trace_event_find() are generated from this list
 * (<lrulab/trace.h>, lib/trace.c).
 *
 * TRACE_EVENT(name, TP_PROTO(...), TP_ARGS(...))
 *	a call event: trace_<name>(args) calls each registered probe,
 *	void probe(void *data, args), from the place it happens.
 * TRACE_EVENT_NOARGS(name)
 *	the same with no arguments: void probe(void *data).
 * TRACE_RING_EVENT(name, what it logs)
 *	an event too frequent, or in too short a hold, for a call: logged
 *	inline to the thread's ring (struct trace_entry; its fields' meaning
 *	is given beside each trace_<name>() in <lrulab/trace.h>) and handed
 *	to void probe(void *data, const struct trace_entry *e) when the
 *	ring is drained.
 *
 * No include guard: the includer defines the three macros and includes it.
 */

/*
 * lib/lockstat.c, while lock statistics are on: every acquisition and
 * release once a probe is registered on either and lockstat_set_mode()
 * has restarted the threads' sampling (they time every hold then); a
 * contended acquisition with its wait; lockstat_reset().
 */
TRACE_EVENT(lock_acquired,
	    TP_PROTO(spinlock_t *lock, struct lock_site *site),
	    TP_ARGS(lock, site))
TRACE_EVENT(lock_contended,
	    TP_PROTO(spinlock_t *lock, struct lock_site *site, u64 wait_ns),
	    TP_ARGS(lock, site, wait_ns))
TRACE_EVENT(lock_released,
	    TP_PROTO(spinlock_t *lock, u64 t_req, u64 hold_ns, u64 now),
	    TP_ARGS(lock, t_req, hold_ns, now))
TRACE_EVENT_NOARGS(lockstat_reset)

/* the shared lines a fault and a free write outside the locks' words */
TRACE_RING_EVENT(vmstat_fold, "a per-CPU vmstat diff folded into its zone's or node's atomic")
TRACE_RING_EVENT(memcg_batch, "a CPU's stats_updates batch reached the memcg's atomic")
TRACE_RING_EVENT(page_counter, "a page_counter's usage charged or uncharged")
TRACE_RING_EVENT(pair_read, "a memcg stat update read a line of mem_cgroup_per_node")

/*
 * mm/memory.c: what a fault and a zap touch of the address space that
 * the threads of one process share, where the kernel touches it
 */
TRACE_RING_EVENT(mmap_lock_prefetch, "a fault's write-intent prefetch of the mm's mmap_lock line")
TRACE_RING_EVENT(vma_refcnt, "the per-VMA read lock taken (arg 1) or dropped (arg 0) on vm_refcnt")
TRACE_RING_EVENT(rss_counter, "an mm counter (rss_stat) changed by arg pages, signed")
TRACE_RING_EVENT(tlb_flush_pending, "a gather began or ended: the mm's tlb_flush_pending")
TRACE_RING_EVENT(tlb_flush, "a TLB flush of arg pages of the mm, b0 1 when page tables were freed")
/*
 * mm/rmap_walk.c: reclaim's TLB flushes, at the places the kernel's
 * would be whoever ran the mm (a consumer decides that at its CPU count)
 */
TRACE_RING_EVENT(rmap_unmap, "reclaim cleared a PTE (try_to_unmap_one): arg 1 when it was dirty, flushed before the page's write")
TRACE_RING_EVENT(tlb_batch_flush, "reclaim flushed its deferred batch (try_to_unmap_flush), whatever it held: arg the other CPUs its IPIs interrupted here")
TRACE_RING_EVENT(pte_table, "a PTE table allocated (arg 1) or freed (arg 0): the mm's pgtables_bytes")
TRACE_RING_EVENT(clear_page, "arg bytes of a new page cleared")
/* mm/file.c: a reader asleep until its device has read the page */
TRACE_RING_EVENT(io_wait, "a read waited for its device: arg the device's latency in ns, p0 the ns slept")

/* mm/readahead.c, where the kernel's readahead tracepoints sit */
TRACE_EVENT(readahead_sync,
	    TP_PROTO(unsigned long index, unsigned long req_count),
	    TP_ARGS(index, req_count))
TRACE_EVENT(readahead_async,
	    TP_PROTO(unsigned long index),
	    TP_ARGS(index))
TRACE_EVENT(readahead_window,
	    TP_PROTO(unsigned long start, unsigned int size, unsigned int async_size),
	    TP_ARGS(start, size, async_size))

/* the sections of an lru_lock hold (--profile-hold), mm_inline.h */
TRACE_EVENT(lru_hold_section,
	    TP_PROTO(enum lru_hold_section sec, u64 ns),
	    TP_ARGS(sec, ns))
TRACE_EVENT_NOARGS(lru_stat_deferred)
