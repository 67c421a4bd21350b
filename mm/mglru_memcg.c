// SPDX-License-Identifier: MIT
/*
 * The multi-gen LRU's root reclaim (v7.2 mm/vmscan.c): the memcg LRU of
 * each node (lru_gen_rotate_memcg 4301, lru_gen_online/offline/release
 * _memcg), shrink_one 4995, shrink_many 5036, lru_gen_shrink_node 5127,
 * and kswapd's min_ttl_ms check (set_initial_priority 4047,
 * lruvec_is_reclaimable 4104, lru_gen_age_node 4128).
 *
 * Global reclaim goes through memcgs by generations: a memcg that was
 * aged, or is below its protection, waits in the young generation while
 * the old one is reclaimed from; once the old generation is empty the
 * young one becomes old.  Bins spread memcgs so that concurrent
 * reclaimers start in different places.
 */
#include <stdlib.h>

#include <lrulab/mglru.h>
#include <lrulab/mm_inline.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#include "mglru-internal.h"
#include "vmscan-internal.h"

#define get_memcg_gen(seq) ((int)((seq) % MEMCG_NR_GENS))
#define get_memcg_bin(bin) ((bin) % MEMCG_NR_BINS)

static __thread unsigned int rnd_state;

/* get_random_u32_below(): a per-thread xorshift is random enough here */
static int random_bin(void)
{
	unsigned int x = rnd_state;

	if (!x)
		x = (unsigned int)(uintptr_t)&rnd_state | 1;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rnd_state = x;
	return (int)(x % MEMCG_NR_BINS);
}

/* Under the memcg LRU lock. */
static void memcg_lru_unlink(struct pglist_data *pgdat, struct lruvec *lruvec)
{
	struct lru_gen_memcg *memcg_lru = &pgdat->memcg_lru;
	int gen = lruvec->lrugen.gen;

	list_del_init(&lruvec->lrugen.list);
	memcg_lru->nr_memcgs[gen]--;
	/* the old generation emptied: the young one is old now */
	if (!memcg_lru->nr_memcgs[gen] && gen == get_memcg_gen(memcg_lru->seq))
		WRITE_ONCE(memcg_lru->seq, memcg_lru->seq + 1);
}

/*
 * HEAD: to the head of a bin of its generation (soft limit; not in the
 * model); TAIL: to the tail of one (below memory.low, or a first try on
 * a memcg too small or offline); OLD: to the old generation (offline);
 * YOUNG: to the young generation (aged, or below memory.min).
 */
void lru_gen_rotate_memcg(struct lruvec *lruvec, int op)
{
	struct pglist_data *pgdat = lruvec_pgdat(lruvec);
	struct lru_gen_memcg *memcg_lru = &pgdat->memcg_lru;
	int bin = random_bin();
	int old, new_, seg = 0;

	spin_lock(&memcg_lru->lock);
	if (list_empty(&lruvec->lrugen.list)) {
		/* released meanwhile */
		spin_unlock(&memcg_lru->lock);
		return;
	}
	old = new_ = lruvec->lrugen.gen;
	if (op == MEMCG_LRU_HEAD)
		seg = MEMCG_LRU_HEAD;
	else if (op == MEMCG_LRU_TAIL)
		seg = MEMCG_LRU_TAIL;
	else if (op == MEMCG_LRU_OLD)
		new_ = get_memcg_gen(memcg_lru->seq);
	else if (op == MEMCG_LRU_YOUNG)
		new_ = get_memcg_gen(memcg_lru->seq + 1);
	WRITE_ONCE(lruvec->lrugen.seg, (u8)seg);
	WRITE_ONCE(lruvec->lrugen.gen, (u8)new_);
	list_del(&lruvec->lrugen.list);
	if (op == MEMCG_LRU_HEAD || op == MEMCG_LRU_OLD)
		list_add(&lruvec->lrugen.list, &memcg_lru->fifo[new_][bin]);
	else
		list_add_tail(&lruvec->lrugen.list, &memcg_lru->fifo[new_][bin]);
	memcg_lru->nr_memcgs[old]--;
	memcg_lru->nr_memcgs[new_]++;
	if (!memcg_lru->nr_memcgs[old] && old == get_memcg_gen(memcg_lru->seq))
		WRITE_ONCE(memcg_lru->seq, memcg_lru->seq + 1);
	spin_unlock(&memcg_lru->lock);
}

/* A new memcg joins the old generation, at the tail of a random bin. */
void lru_gen_online_memcg(struct mem_cgroup *memcg)
{
	int bin = random_bin();
	int nid;

	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		struct lruvec *lruvec = get_lruvec(memcg, nid);
		int gen;

		spin_lock(&pgdat->memcg_lru.lock);
		gen = get_memcg_gen(pgdat->memcg_lru.seq);
		lruvec->lrugen.gen = (u8)gen;
		list_add_tail(&lruvec->lrugen.list, &pgdat->memcg_lru.fifo[gen][bin]);
		pgdat->memcg_lru.nr_memcgs[gen]++;
		spin_unlock(&pgdat->memcg_lru.lock);
	}
}

/* An offline memcg is reclaimed from first: its folios are unreachable. */
void lru_gen_offline_memcg(struct mem_cgroup *memcg)
{
	int nid;

	for_each_node(nid)
		lru_gen_rotate_memcg(get_lruvec(memcg, nid), MEMCG_LRU_OLD);
}

/* get_nr_gens() without lru_lock: seqs that aging and eviction move */
static int nr_gens_lockless(struct lruvec *lruvec, int type)
{
	return (int)(READ_ONCE(lruvec->lrugen.max_seq) -
		     READ_ONCE(lruvec->lrugen.min_seq[type]) + 1);
}

void max_lru_gen_memcg(struct mem_cgroup *memcg, int nid)
{
	struct lruvec *lruvec = get_lruvec(memcg, nid);
	int type;

	for (type = 0; type < ANON_AND_FILE; type++) {
		while (nr_gens_lockless(lruvec, type) < (int)MAX_NR_GENS) {
			try_to_inc_max_seq_nowalk(lruvec);
			cond_resched();
		}
	}
}

bool recheck_lru_gen_max_memcg(struct mem_cgroup *memcg, int nid)
{
	struct lruvec *lruvec = get_lruvec(memcg, nid);
	int type;

	for (type = 0; type < ANON_AND_FILE; type++)
		if (get_nr_gens(lruvec, type) != (int)MAX_NR_GENS)
			return false;
	return true;
}

/*
 * Both lru_locks held.  A generation means something else in the parent,
 * so the child's folios, assumed colder, go to the tail of the list of
 * the same index (a cold/hot inversion that aging and eviction sort
 * out), and its pages move with them: nr_pages, and the active/inactive
 * counters by what the index is on each side.  Every index is spliced,
 * not only the child's window: a type that was not evictable when its
 * min_seq moved left its folios behind it.
 */
void lru_gen_reparent_memcg(struct mem_cgroup *memcg, struct mem_cgroup *parent, int nid)
{
	struct lruvec *child = get_lruvec(memcg, nid);
	struct lruvec *lruvec = get_lruvec(parent, nid);
	struct lru_gen_folio *from = &child->lrugen, *to = &lruvec->lrugen;
	int gen, type, zone;

	for_each_gen_type_zone(gen, type, zone) {
		enum lru_list lru = type * LRU_INACTIVE_FILE;
		long nr = from->nr_pages[gen][type][zone];

		list_splice_tail_init(&from->folios[gen][type][zone], &to->folios[gen][type][zone]);
		if (!nr)
			continue;
		WRITE_ONCE(from->nr_pages[gen][type][zone], 0);
		WRITE_ONCE(to->nr_pages[gen][type][zone], to->nr_pages[gen][type][zone] + nr);
		__update_lru_size(child, lru + (lru_gen_is_active(child, gen) ? LRU_ACTIVE : 0),
				  zone, -nr);
		__update_lru_size(lruvec, lru + (lru_gen_is_active(lruvec, gen) ? LRU_ACTIVE : 0),
				  zone, nr);
	}
}

/* The refcount reached 0: off the memcg LRU before the memcg is freed. */
void lru_gen_release_memcg(struct mem_cgroup *memcg)
{
	int nid;

	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		struct lruvec *lruvec = get_lruvec(memcg, nid);

		spin_lock(&pgdat->memcg_lru.lock);
		if (!list_empty(&lruvec->lrugen.list))
			memcg_lru_unlink(pgdat, lruvec);
		spin_unlock(&pgdat->memcg_lru.lock);
	}
}

/*
 * ---------------------------------------------------------------------
 * Root reclaim
 * ---------------------------------------------------------------------
 */

/*
 * At DEF_PRIORITY, start where (inactive >> priority) is about what is
 * to be reclaimed, clamped to [DEF_PRIORITY / 2, DEF_PRIORITY].
 */
static void set_initial_priority(struct pglist_data *pgdat, struct scan_control *sc)
{
	unsigned long reclaimable;
	int priority;

	if (sc->priority != DEF_PRIORITY || sc->nr_to_reclaim < MIN_LRU_BATCH)
		return;
	reclaimable = node_page_state(pgdat, NR_INACTIVE_FILE);
	if (can_reclaim_anon_pages(sc))
		reclaimable += node_page_state(pgdat, NR_INACTIVE_ANON);
	/* fls_long(x) - 1 is the index of the highest bit set */
	priority = (reclaimable ? 63 - __builtin_clzl(reclaimable) : -1) -
		   (sc->nr_to_reclaim > 1 ? 64 - __builtin_clzl(sc->nr_to_reclaim - 1) : 0);
	if (priority < DEF_PRIORITY / 2)
		priority = DEF_PRIORITY / 2;
	if (priority > DEF_PRIORITY)
		priority = DEF_PRIORITY;
	sc->priority = (s8)priority;
}

static bool lruvec_is_sizable(struct lruvec *lruvec, struct scan_control *sc)
{
	int swappiness = get_swappiness(lruvec, sc);
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long max_seq = READ_ONCE(lrugen->max_seq), total = 0;
	int type, zone;

	for_each_evictable_type(type, swappiness) {
		unsigned long seq;

		for (seq = READ_ONCE(lrugen->min_seq[type]); seq <= max_seq; seq++) {
			for (zone = 0; zone < MAX_NR_ZONES; zone++) {
				long n = READ_ONCE(lrugen->nr_pages[lru_gen_from_seq(seq)][type][zone]);

				total += n > 0 ? (unsigned long)n : 0;
			}
		}
	}
	/* big enough to be worth it: an offline memcg always is */
	return mem_cgroup_online(lruvec_memcg(lruvec)) ? (total >> sc->priority) : total;
}

/* The op for the memcg LRU after reclaiming from @lruvec. */
static int shrink_one(struct lruvec *lruvec, struct scan_control *sc)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	bool success = try_to_shrink_lruvec(lruvec, sc);

	if (success && mem_cgroup_online(memcg))
		return MEMCG_LRU_YOUNG;
	if (!success && lruvec_is_sizable(lruvec, sc))
		return 0;
	/* one retry if offline or too small */
	return READ_ONCE(lruvec->lrugen.seg) != MEMCG_LRU_TAIL ? MEMCG_LRU_TAIL :
								   MEMCG_LRU_YOUNG;
}

/*
 * The lruvecs of one bin, referenced, as they stand: the kernel walks
 * the bin under RCU and drops it around each memcg; here the walk is a
 * snapshot taken under the lock, each entry checked again before use.
 */
static int snapshot_bin(struct pglist_data *pgdat, int gen, int bin, struct lruvec ***out)
{
	struct lru_gen_memcg *memcg_lru = &pgdat->memcg_lru;
	struct lru_gen_folio *lrugen;
	struct lruvec **v;
	int n = 0, cap = 0;

	spin_lock(&memcg_lru->lock);
	list_for_each_entry(lrugen, &memcg_lru->fifo[gen][bin], list)
		cap++;
	v = cap ? malloc(sizeof(*v) * (size_t)cap) : NULL;
	if (v) {
		list_for_each_entry(lrugen, &memcg_lru->fifo[gen][bin], list) {
			struct lruvec *lruvec = container_of(lrugen, struct lruvec, lrugen);

			if (css_tryget(lruvec_memcg(lruvec)))
				v[n++] = lruvec;
		}
	}
	spin_unlock(&memcg_lru->lock);
	*out = v;
	return n;
}

/* From a random bin of the old generation, every bin once. */
static void shrink_many(struct pglist_data *pgdat, struct scan_control *sc)
{
	int gen = get_memcg_gen(READ_ONCE(pgdat->memcg_lru.seq));
	int first_bin = random_bin(), bin = first_bin;
	bool abort = false;

	do {
		struct lruvec **v;
		int i, n = snapshot_bin(pgdat, gen, bin, &v);

		for (i = 0; i < n; i++) {
			struct lruvec *lruvec = v[i];
			struct mem_cgroup *memcg = lruvec_memcg(lruvec);

			/* rotated to another generation meanwhile */
			if (!abort && READ_ONCE(lruvec->lrugen.gen) == gen) {
				int op = shrink_one(lruvec, sc);

				if (op)
					lru_gen_rotate_memcg(lruvec, op);
				abort = should_abort_scan(lruvec, sc);
			}
			css_put(memcg);
		}
		free(v);
		bin = get_memcg_bin(bin + 1);
	} while (!abort && bin != first_bin);
}

/*
 * Root reclaim (global direct reclaim, kswapd): only when it may write
 * and unmap, as unmapped clean folios are already first in line.
 */
void lru_gen_shrink_node(struct pglist_data *pgdat, struct scan_control *sc)
{
	unsigned long reclaimed = sc->nr_reclaimed;

	if (!sc->may_writepage || !sc->may_unmap)
		return;
	lru_add_drain();
	/* kswapd walks with its node's context, proactive reclaim its own */
	set_mm_walk(pgdat, sc->proactive);
	set_initial_priority(pgdat, sc);
	/* kswapd's target is for this pass */
	if (current_is_kswapd())
		sc->nr_reclaimed = 0;
	shrink_many(pgdat, sc);
	if (current_is_kswapd())
		sc->nr_reclaimed += reclaimed;
	clear_mm_walk();
}

/*
 * ---------------------------------------------------------------------
 * min_ttl_ms: kswapd's working-set protection
 * ---------------------------------------------------------------------
 */

static atomic_long_t min_ttl_ooms;

unsigned long lru_gen_min_ttl_ooms(void)
{
	return (unsigned long)atomic_long_read(&min_ttl_ooms);
}

/* Big enough, and its oldest evictable generation older than @min_ttl. */
static bool lruvec_is_reclaimable(struct lruvec *lruvec, struct scan_control *sc,
				  unsigned long min_ttl)
{
	int swappiness = get_swappiness(lruvec, sc);
	unsigned long min_seq[ANON_AND_FILE] = {
		READ_ONCE(lruvec->lrugen.min_seq[LRU_GEN_ANON]),
		READ_ONCE(lruvec->lrugen.min_seq[LRU_GEN_FILE]),
	};
	int gen = lru_gen_from_seq(evictable_min_seq(min_seq, swappiness));
	unsigned long birth = READ_ONCE(lruvec->lrugen.timestamps[gen]);

	if (!lruvec_is_sizable(lruvec, sc))
		return false;
	return (long)(lru_gen_jiffies() - (birth + min_ttl)) > 0;
}

/*
 * When every memcg's oldest generation is younger than min_ttl (or all
 * are too small), the kernel calls the OOM killer rather than thrash.
 * The model has no OOM killer: the calls are counted instead
 * (lru_gen_min_ttl_ooms()).
 */
void lru_gen_age_node(struct pglist_data *pgdat, struct scan_control *sc)
{
	unsigned long min_ttl = READ_ONCE(lru_gen_min_ttl);
	bool reclaimable = !min_ttl;
	struct mem_cgroup *memcg;

	set_initial_priority(pgdat, sc);
	memcg = mem_cgroup_iter(NULL, NULL);
	do {
		if (!reclaimable)
			reclaimable = lruvec_is_reclaimable(mem_cgroup_lruvec(memcg, pgdat),
							    sc, min_ttl);
	} while ((memcg = mem_cgroup_iter(NULL, memcg)));
	if (!reclaimable)
		atomic_long_inc(&min_ttl_ooms);
}
