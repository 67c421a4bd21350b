/* SPDX-License-Identifier: MIT */
/* lrulab: the whole model, set up and torn down as one system. */
#ifndef LRULAB_H
#define LRULAB_H

#include <lrulab/types.h>
#include <lrulab/cpu.h>
#include <lrulab/spinlock.h>
#include <lrulab/mm_types.h>
#include <lrulab/mmzone.h>
#include <lrulab/gfp.h>
#include <lrulab/vmstat.h>
#include <lrulab/memcontrol.h>
#include <lrulab/swap.h>
#include <lrulab/mm.h>
#include <lrulab/pagemap.h>

struct lrulab_config {
	int nr_cpus;			/* model CPUs */
	int nr_nodes;
	unsigned long node_pages;	/* arena pages per node */
	enum lock_impl lock;
	enum lockstat_mode lockstat;
	/*
	 * Period of the memcg stats flusher in ms (the kernel's FLUSH_TIME
	 * is FLUSH_TIME_MS); 0: no flusher.  Off by default: unit tests
	 * assert what is and is not flushed yet, and a flush landing at a
	 * time of the scheduler's choosing would make them flaky.  Runs
	 * that model the kernel's staleness (benchmarks, reclaim
	 * workloads) set it to FLUSH_TIME_MS.
	 */
	unsigned int memcg_flush_ms;
	/*
	 * The multi-gen LRU: the bits of /sys/kernel/mm/lru_gen/enabled
	 * (0x1 main switch: MGLRU instead of the classic lists; 0x2 walk
	 * leaf PTE young bits; 0x4 non-leaf PMD young bits), 0 = classic,
	 * the default; LRU_GEN_CAPS_ALL (0x7) is what the kernel turns on.
	 * And min_ttl_ms (0 = off).
	 */
	unsigned int lru_gen;
	unsigned int lru_gen_min_ttl_ms;
};

#define LRULAB_CONFIG_DEFAULT {				\
	.nr_cpus = 4, .nr_nodes = 1, .node_pages = 16384,	\
	.lock = LOCK_QSPINLOCK, .lockstat = LOCKSTAT_SAMPLED, .memcg_flush_ms = 0 }

/*
 * 0 or -errno; one system per process at a time.  lrulab_exit() also
 * stops any kswapd and turns swap off.
 */
int lrulab_init(const struct lrulab_config *cfg);
void lrulab_exit(void);

/*
 * Invariant checker (mm/debug.c).  Call at a quiescent point: no thread
 * is inside the model.  With @settle it first drains every CPU's batches
 * and flushes vmstat and memcg stats, so that stats must equal list
 * lengths exactly.  Returns the number of violations, each printed to
 * @out (may be NULL).
 */
int lrulab_check_invariants(bool settle, FILE *out);

#endif /* LRULAB_H */
