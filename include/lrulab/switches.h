/* SPDX-License-Identifier: MIT */
/*
 * The seed patches as switches: off = the kernel before the patch, on =
 * after.  Run-time switches are set before the model starts and only read
 * afterwards.  A struct layout change is a build variant instead (two
 * binaries, as the mail compares two kernels): see LRULAB_PN_COLD_PAIRING.
 */
#ifndef LRULAB_SWITCHES_H
#define LRULAB_SWITCHES_H

#include <lrulab/types.h>

enum lrulab_switch {
	SW_LRU_STAT_BATCH,	/* s0: LRU size stats applied after unlock */
	SW_MEMCG_DIRECT_STAT,	/* s3: folio stats go to memcg + node directly */
	SW_MTHP_LRU_CACHE,	/* s4: small mTHP folios use the per-CPU cache */
	SW_VMSTAT_SCAN_COST,	/* s1: scan cost from vmstat, under cost_lock */
	NR_LRULAB_SWITCHES,
};

extern bool lrulab_switches[NR_LRULAB_SWITCHES];

static inline bool lrulab_switch_on(enum lrulab_switch sw)
{
	return lrulab_switches[sw];
}

/* "lru-stat-batch" etc.; 0 or -EINVAL. */
int lrulab_switch_parse(const char *name, enum lrulab_switch *sw);
const char *lrulab_switch_name(enum lrulab_switch sw);
const char *lrulab_switch_seed(enum lrulab_switch sw);
void lrulab_switches_clear(void);

/* The layout this binary was built with: "pn-cold-pairing" or "pn-default". */
const char *lrulab_pn_layout_name(void);

#endif /* LRULAB_SWITCHES_H */
