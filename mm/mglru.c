// SPDX-License-Identifier: MIT
/*
 * The multi-gen LRU's core: its configuration, new generations
 * (lru_gen_init_lruvec, v7.2 vmscan.c:5769), and the lists folios are
 * placed on (include/linux/mm_inline.h: lru_gen_folio_seq,
 * lru_gen_add_folio, lru_gen_del_folio, lru_gen_update_size).
 */
#include <errno.h>

#include <lrulab/mglru.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mm_inline.h>
#include <lrulab/spinlock.h>
#include <lrulab/swap.h>

unsigned int lru_gen_caps;
unsigned long lru_gen_min_ttl;

static bool clock_frozen;
static unsigned long clock_frozen_at;

unsigned long lru_gen_jiffies(void)
{
	if (READ_ONCE(clock_frozen))
		return READ_ONCE(clock_frozen_at);
	return (unsigned long)(lrulab_now_ns() / 1000000);
}

void lru_gen_clock_freeze(bool frozen, unsigned long now)
{
	WRITE_ONCE(clock_frozen_at, now);
	WRITE_ONCE(clock_frozen, frozen);
}

int lru_gen_set_config(unsigned int caps, unsigned int min_ttl_ms)
{
	if (caps & ~LRU_GEN_CAPS_ALL)
		return -EINVAL;
	WRITE_ONCE(lru_gen_caps, caps);
	/* jiffies are ms here: HZ = 1000 */
	WRITE_ONCE(lru_gen_min_ttl, (unsigned long)min_ttl_ms);
	return 0;
}

/*
 * A new lruvec: the window full (max_seq 3, min_seq 0), every
 * generation born now, the mm walk one step behind max_seq.
 */
void lru_gen_init_lruvec(struct lruvec *lruvec)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long now = lru_gen_jiffies();
	int gen, type, zone;

	lrugen->max_seq = MIN_NR_GENS + 1;
	lrugen->enabled = lru_gen_enabled();
	for (gen = 0; gen < (int)MAX_NR_GENS; gen++)
		lrugen->timestamps[gen] = now;
	for_each_gen_type_zone(gen, type, zone)
		INIT_LIST_HEAD(&lrugen->folios[gen][type][zone]);
	INIT_LIST_HEAD(&lrugen->list);
	lruvec->mm_state.seq = MIN_NR_GENS;
}

void lru_gen_init_pgdat(struct pglist_data *pgdat)
{
	struct lru_gen_memcg *memcg_lru = &pgdat->memcg_lru;
	int gen, bin;

	spin_lock_init(&memcg_lru->lock);
	for (gen = 0; gen < MEMCG_NR_GENS; gen++)
		for (bin = 0; bin < MEMCG_NR_BINS; bin++)
			INIT_LIST_HEAD(&memcg_lru->fifo[gen][bin]);
}

struct lruvec *get_lruvec(struct mem_cgroup *memcg, int nid)
{
	return mem_cgroup_lruvec(memcg, NODE_DATA(nid));
}
