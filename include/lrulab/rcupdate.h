/* SPDX-License-Identifier: MIT */
/* RCU, from liburcu's memb flavour, under the kernel's names. */
#ifndef LRULAB_RCUPDATE_H
#define LRULAB_RCUPDATE_H

#include <urcu/urcu-memb.h>

#define rcu_read_lock() urcu_memb_read_lock()
#define rcu_read_unlock() urcu_memb_read_unlock()
#define synchronize_rcu() urcu_memb_synchronize_rcu()
#define call_rcu(head, fn) urcu_memb_call_rcu((head), (fn))
#define rcu_barrier() urcu_memb_barrier()
#define rcu_head rcu_head

/*
 * Registering a thread as an RCU reader, remembering that it is one:
 * liburcu aborts on a second registration, and a thread that runs work
 * for another CPU (lib/workqueue.c) registers only if it is not yet.
 */
#include <stdbool.h>
extern __thread bool rcu_thread_registered;
static inline void rcu_register_thread(void)
{
	urcu_memb_register_thread();
	rcu_thread_registered = true;
}
static inline void rcu_unregister_thread(void)
{
	rcu_thread_registered = false;
	urcu_memb_unregister_thread();
}

/*
 * ThreadSanitizer cannot see liburcu's grace periods: every read section
 * (at its rcu_read_unlock()) and every deleter (at call_rcu()) releases
 * one sync point (defined in mm/filemap.c) which a deferred free
 * acquires, so TSan learns the ordering RCU gives.  In the primitives, so
 * that no read section can leave it out.
 */
#ifdef __SANITIZE_THREAD__
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char page_cache_rcu_sync;
#define rcu_tsan_release() __tsan_release(&page_cache_rcu_sync)
#define rcu_tsan_acquire() __tsan_acquire(&page_cache_rcu_sync)
/* what a read section read comes before any free a grace period later */
#undef rcu_read_unlock
#define rcu_read_unlock() (rcu_tsan_release(), urcu_memb_read_unlock())
/* what was written before call_rcu() is the callback's to read */
#undef call_rcu
#define call_rcu(head, fn) (rcu_tsan_release(), urcu_memb_call_rcu((head), (fn)))
#else
#define rcu_tsan_release() do { } while (0)
#define rcu_tsan_acquire() do { } while (0)
#endif

#endif /* LRULAB_RCUPDATE_H */
