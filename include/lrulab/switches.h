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

/* registered in <lrulab/switch_list.h>, and only there */
enum lrulab_switch {
#define LRULAB_SWITCH(id, name, seed, summary) id,
#include <lrulab/switch_list.h>
#undef LRULAB_SWITCH
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
const char *lrulab_switch_summary(enum lrulab_switch sw);
void lrulab_switches_clear(void);

/* The layout this binary was built with: "pn-cold-pairing" or "pn-default". */
const char *lrulab_pn_layout_name(void);

#endif /* LRULAB_SWITCHES_H */
