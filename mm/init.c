// SPDX-License-Identifier: MIT
/*
 * System set-up and teardown, in the order the kernel brings the pieces
 * up: clock and locks, CPUs, memory (nodes, zones, arena), vmstat, the
 * root memcg, then the per-CPU LRU batches, and last the periodic memcg
 * stats flusher when the config asks for one.  Teardown stops the
 * threads a run may have started (kswapd, the writeback flusher, the
 * swap device, the memcg stats flusher) before it frees what they read,
 * and turns swap off last.
 */
#include <errno.h>
#include <stdio.h>

#include <lrulab/fs.h>
#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include <lrulab/swap_state.h>
#include <lrulab/vmscan.h>

static bool lrulab_up;

int lrulab_init(const struct lrulab_config *cfg)
{
	int err;

	if (lrulab_up)
		return -EBUSY;
	if (cfg->lock < 0 || cfg->lock >= NR_LOCK_IMPLS ||
	    (unsigned int)cfg->lockstat > LOCKSTAT_FULL)
		return -EINVAL;
	/* the LRU is chosen before any folio can be on one */
	err = lru_gen_set_config(cfg->lru_gen, cfg->lru_gen_min_ttl_ms);
	if (err)
		return err;
	lrulab_clock_init();
	lock_impl_set(cfg->lock);
	lockstat_set_mode(cfg->lockstat);
	lockstat_reset();

	err = lrulab_cpus_init(cfg->nr_cpus);
	if (err)
		return err;
	/* waiters yield only when threads outnumber processors */
	lrulab_spin_yield = lrulab_oversubscribed();
	err = page_alloc_init(cfg->nr_nodes, cfg->node_pages);
	if (err)
		goto out_cpus;
	err = vmstat_init();
	if (err)
		goto out_pages;
	page_alloc_init_stats();
	err = mem_cgroup_init();
	if (err)
		goto out_vmstat;
	err = lru_batches_init();
	if (err)
		goto out_memcg;
	/* last: it flushes a tree that must be whole from its first tick */
	if (cfg->memcg_flush_ms) {
		err = mem_cgroup_flusher_start(cfg->memcg_flush_ms);
		if (err)
			goto out_batches;
	}
	mthp_stats_reset();
	reclaim_throttle_reset();
	lrulab_up = true;
	return 0;

out_batches:
	lru_batches_exit();
out_memcg:
	mem_cgroup_exit();
out_vmstat:
	vmstat_exit();
out_pages:
	page_alloc_exit();
out_cpus:
	lrulab_cpus_exit();
	return err;
}

void lrulab_exit(void)
{
	int nid;

	if (!lrulab_up)
		return;
	/* the threads first, before anything they read goes away */
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		kswapd_stop(nid);
	wb_flusher_stop();
	swap_io_stop();
	mem_cgroup_flusher_stop();
	lru_batches_exit();
	mem_cgroup_exit();
	vmstat_exit();
	page_alloc_exit();
	/* slots that outlived their page tables go with the device */
	swapoff();
	lrulab_cpus_exit();
	lrulab_up = false;
}
