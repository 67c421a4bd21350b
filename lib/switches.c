// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include <lrulab/switches.h>

bool lrulab_switches[NR_LRULAB_SWITCHES];

static const struct {
	const char *name;
	const char *seed;
	const char *summary;
} switch_info[NR_LRULAB_SWITCHES] = {
#define LRULAB_SWITCH(id, name, seed, summary) [id] = { name, seed, summary },
#include <lrulab/switch_list.h>
#undef LRULAB_SWITCH
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

const char *lrulab_switch_summary(enum lrulab_switch sw)
{
	return sw < NR_LRULAB_SWITCHES ? switch_info[sw].summary : NULL;
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
