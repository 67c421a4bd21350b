/* SPDX-License-Identifier: MIT */
/*
 * Every switch, one line each: this is the only place a switch is
 * registered.  The enum, the names the command takes (--with, --without,
 * ab --ab), the seed each comes from and the summary the usage text and
 * man page show are all generated from this list.
 *
 * LRULAB_SWITCH(enum id, command-line name, seed, what "on" means)
 *
 * No include guard: the includer defines LRULAB_SWITCH and includes it.
 */
LRULAB_SWITCH(SW_LRU_STAT_BATCH, "lru-stat-batch", "s0-lru-stat-batch",
	      "LRU size stats applied after lru_lock is dropped")
LRULAB_SWITCH(SW_MEMCG_DIRECT_STAT, "memcg-direct-stat", "s3-memcg-pn-layout",
	      "folio stats go to the memcg and node counters directly")
LRULAB_SWITCH(SW_MTHP_LRU_CACHE, "mthp-lru-cache", "s4-mthp-lru-cache",
	      "small mTHP folios go through the per-CPU folio batch")
LRULAB_SWITCH(SW_VMSTAT_SCAN_COST, "vmstat-scan-cost", "s1-vmstat-scan-cost",
	      "scan cost kept in vmstat, under cost_lock")
LRULAB_SWITCH(SW_MGLRU_SKIP_NOOP_CMPXCHG, "mglru-skip-noop-cmpxchg", "s2-mglru-cmpxchg-skip",
	      "MGLRU flags updaters skip the cmpxchg when the word would not change")
LRULAB_SWITCH(SW_LRU_GEN, "lru-gen", "issue-9-mglru",
	      "the multi-gen LRU (lru_gen enabled 0x0007 unless --lru-gen=MASK) instead of the two lists")
