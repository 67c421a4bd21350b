// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include <lrulab/switches.h>

bool lrulab_switches[NR_LRULAB_SWITCHES];

static const struct {
	const char *name;
	const char *seed;
} switch_info[NR_LRULAB_SWITCHES] = {
	[SW_LRU_STAT_BATCH] = { "lru-stat-batch", "s0-lru-stat-batch" },
	[SW_MEMCG_DIRECT_STAT] = { "memcg-direct-stat", "s3-memcg-pn-layout" },
	[SW_MTHP_LRU_CACHE] = { "mthp-lru-cache", "s4-mthp-lru-cache" },
	[SW_VMSTAT_SCAN_COST] = { "vmstat-scan-cost", "s1-vmstat-scan-cost" },
};

int lrulab_switch_parse(const char *name, enum lrulab_switch *sw)
{
	int i;

	for (i = 0; i < NR_LRULAB_SWITCHES; i++) {
		if (!strcmp(name, switch_info[i].name)) {
			*sw = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *lrulab_switch_name(enum lrulab_switch sw)
{
	return sw < NR_LRULAB_SWITCHES ? switch_info[sw].name : NULL;
}

const char *lrulab_switch_seed(enum lrulab_switch sw)
{
	return sw < NR_LRULAB_SWITCHES ? switch_info[sw].seed : NULL;
}

void lrulab_switches_clear(void)
{
	memset(lrulab_switches, 0, sizeof(lrulab_switches));
}

const char *lrulab_pn_layout_name(void)
{
#ifdef LRULAB_PN_COLD_PAIRING
	return "pn-cold-pairing";
#else
	return "pn-default";
#endif
}
