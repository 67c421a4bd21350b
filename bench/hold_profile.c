// SPDX-License-Identifier: MIT
/*
 * --profile-hold: where lru_lock hold time goes, from the lru_hold_section
 * and lru_stat_deferred trace events (mm_inline.h, mm/swap.c).  Sums per
 * model CPU, so that the probes add no shared line to the holds they
 * time; threads that are no model CPU share the last slot, atomically.
 */
#include <string.h>

#include <lrulab/cpu.h>
#include <lrulab/trace.h>

#include "bench/bench.h"

static struct lru_hold_profile profiles[LRULAB_MAX_CPUS + 1];

static const char *const section_names[NR_LRU_HOLD_SECTIONS] = {
	[LRU_HOLD_LIST] = "list operations",
	[LRU_HOLD_LRU_SIZE] = "lru_zone_size updates",
	[LRU_HOLD_STAT] = "node+memcg stat updates",
	[LRU_HOLD_ZONE_STAT] = "zone stat updates",
};

const char *lru_hold_section_name(enum lru_hold_section sec)
{
	return (unsigned int)sec < NR_LRU_HOLD_SECTIONS ? section_names[sec] : NULL;
}

static struct lru_hold_profile *this_profile(void)
{
	int cpu = lrulab_cpu;

	return &profiles[cpu >= 0 && cpu < LRULAB_MAX_CPUS ? cpu : LRULAB_MAX_CPUS];
}

static void on_section(void *data, enum lru_hold_section sec, u64 ns)
{
	struct lru_hold_profile *p = this_profile();

	if ((unsigned int)sec >= NR_LRU_HOLD_SECTIONS)
		return;
	__atomic_fetch_add(&p->ns[sec], ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->count[sec], 1, __ATOMIC_RELAXED);
}

static void on_deferred(void *data)
{
	__atomic_fetch_add(&this_profile()->deferred_stat_updates, 1, __ATOMIC_RELAXED);
}

void lru_hold_profile_start(void)
{
	memset(profiles, 0, sizeof(profiles));
	register_trace_lru_hold_section(on_section, NULL);
	register_trace_lru_stat_deferred(on_deferred, NULL);
}

void lru_hold_profile_stop(void)
{
	unregister_trace_lru_hold_section(on_section, NULL);
	unregister_trace_lru_stat_deferred(on_deferred, NULL);
}

void lru_hold_profile_reset(void)
{
	memset(profiles, 0, sizeof(profiles));
}

void lru_hold_profile_read(struct lru_hold_profile *out)
{
	int cpu, sec;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu <= LRULAB_MAX_CPUS; cpu++) {
		const struct lru_hold_profile *p = &profiles[cpu];

		for (sec = 0; sec < NR_LRU_HOLD_SECTIONS; sec++) {
			out->ns[sec] += __atomic_load_n(&p->ns[sec], __ATOMIC_RELAXED);
			out->count[sec] += __atomic_load_n(&p->count[sec], __ATOMIC_RELAXED);
		}
		out->deferred_stat_updates +=
			__atomic_load_n(&p->deferred_stat_updates, __ATOMIC_RELAXED);
	}
}
