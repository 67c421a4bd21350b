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

#endif /* LRULAB_RCUPDATE_H */
