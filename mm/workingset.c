// SPDX-License-Identifier: MIT
/*
 * Workingset refault detection (the kernel's mm/workingset.c).
 *
 * Each lruvec keeps a clock, nonresident_age, that advances by every
 * eviction and activation in it or below it.  An evicted page leaves a
 * shadow entry recording the clock of the reclaim target's lruvec; when
 * the page faults back in, the clock's advance since then (the refault
 * distance) is how much the lists moved while the page was out.  If that
 * is no more than the memory the workingset could have taken from the
 * other lists, the page would have stayed resident with that memory: it
 * is activated at once.  A page that was active before its eviction
 * (PG_workingset in the shadow) is a restore: thrashing of an
 * established workingset, which also counts as reclaim cost of its type.
 *
 * Shadow entries live in swap slots (anon and shmem pages both go to
 * swap in this model, which has no disk-backed page cache).
 */
#include <lrulab/memcontrol.h>
#include <lrulab/mglru.h>
#include <lrulab/mglru_walk.h>
#include <lrulab/rcupdate.h>
#include <lrulab/swap_state.h>
#include <lrulab/switches.h>
#include <lrulab/vmscan.h>
#include <lrulab/vmstat.h>

#define WORKINGSET_SHIFT 1
#define MEM_CGROUP_ID_SHIFT 16

/* Low bits of the timestamp dropped when memory outgrows the field. */
unsigned int bucket_order;

void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr_pages)
{
	/* every ancestor's virtual LRU is the merge of its children's */
	do {
		atomic_long_add((long)nr_pages, &lruvec->nonresident_age);
	} while ((lruvec = parent_lruvec(lruvec)));
}

/*
 * Bit 0 marks a value (as an xarray value entry does), then the
 * workingset bit, the node, the memcg id, and the timestamp above them.
 */
void *pack_shadow(int memcgid, int nid, unsigned long eviction, bool workingset)
{
	unsigned long v = eviction & EVICTION_MASK;

	v = (v << MEM_CGROUP_ID_SHIFT) | (unsigned long)memcgid;
	v = (v << NODES_SHIFT) | (unsigned long)nid;
	v = (v << WORKINGSET_SHIFT) | (workingset ? 1UL : 0UL);
	return (void *)((v << 1) | 1UL);
}

void unpack_shadow(void *shadow, int *memcgidp, int *nidp, unsigned long *evictionp,
		   bool *workingsetp)
{
	unsigned long v = (unsigned long)shadow >> 1;

	*workingsetp = v & ((1UL << WORKINGSET_SHIFT) - 1);
	v >>= WORKINGSET_SHIFT;
	*nidp = (int)(v & ((1UL << NODES_SHIFT) - 1));
	v >>= NODES_SHIFT;
	*memcgidp = (int)(v & ((1UL << MEM_CGROUP_ID_SHIFT) - 1));
	v >>= MEM_CGROUP_ID_SHIFT;
	*evictionp = v;
}

/*
 * ---------------------------------------------------------------------
 * The multi-gen LRU's shadows: the same packing, with a generation
 * token for the clock.  The model's anon shadows have the file ones'
 * width (the kernel's lose SWAP_COUNT_SHIFT bits), so one mask serves.
 * ---------------------------------------------------------------------
 */
void *lru_gen_eviction(struct folio *folio)
{
	int type = folio_is_file_lru(folio);
	long delta = folio_nr_pages(folio);
	int refs = folio_lru_refs(folio);
	bool workingset = folio_test_workingset(folio);
	int tier = lru_tier_from_refs(refs, workingset);
	struct pglist_data *pgdat = folio_pgdat(folio);
	struct lruvec *lruvec;
	unsigned long min_seq, token;
	int memcgid;

	rcu_read_lock();
	lruvec = folio_lruvec(folio);
	min_seq = READ_ONCE(lruvec->lrugen.min_seq[type]);
	token = (min_seq << LRU_REFS_WIDTH) | (unsigned long)(refs > 1 ? refs - 1 : 0);
	atomic_long_add(delta, &lruvec->lrugen.evicted[lru_hist_from_seq(min_seq)][type][tier]);
	memcgid = lruvec_memcg(lruvec)->id;
	rcu_read_unlock();
	return pack_shadow(memcgid, pgdat->node_id, token, workingset);
}

bool lru_gen_test_recent(void *shadow, struct lruvec **lruvec, unsigned long *token,
			 bool *workingset, bool file)
{
	unsigned long max_seq, seq;
	struct mem_cgroup *memcg;
	int memcgid, nid;

	unpack_shadow(shadow, &memcgid, &nid, token, workingset);
	/* a memcg gone since: its generations went with it (root's then) */
	memcg = mem_cgroup_from_id((unsigned short)memcgid);
	*lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
	max_seq = READ_ONCE((*lruvec)->lrugen.max_seq) & (EVICTION_MASK >> LRU_REFS_WIDTH);
	seq = *token >> LRU_REFS_WIDTH;
	return (max_seq > seq ? max_seq - seq : seq - max_seq) < MAX_NR_GENS;
}

/*
 * Only a refault into the lruvec it was evicted from counts.  A recent
 * one adds to refaulted[] of its tier (the PID controller's input); it
 * gets PG_workingset back if it had it (then also counted as restored,
 * and, in a fault, as activated: folio_add_lru() makes it young), or
 * else its refs.
 */
void lru_gen_refault(struct folio *folio, void *shadow)
{
	int type = folio_is_file_lru(folio);
	long delta = folio_nr_pages(folio);
	struct lruvec *lruvec;
	unsigned long token;
	bool workingset, recent;
	int hist, refs, tier;

	rcu_read_lock();
	recent = lru_gen_test_recent(shadow, &lruvec, &token, &workingset, type);
	if (lruvec != folio_lruvec(folio))
		goto unlock;
	mod_lruvec_state(lruvec, WORKINGSET_REFAULT_BASE + type, (int)delta);
	if (!recent)
		goto unlock;
	hist = lru_hist_from_seq(READ_ONCE(lruvec->lrugen.min_seq[type]));
	refs = (int)(token & ((1UL << LRU_REFS_WIDTH) - 1)) + 1;
	tier = lru_tier_from_refs(refs, workingset);
	atomic_long_add(delta, &lruvec->lrugen.refaulted[hist][type][tier]);
	if (workingset) {
		if (lru_gen_in_fault())
			mod_lruvec_state(lruvec, WORKINGSET_ACTIVATE_BASE + type, (int)delta);
		folio_set_workingset(folio);
		mod_lruvec_state(lruvec, WORKINGSET_RESTORE_BASE + type, (int)delta);
	} else {
		folio_flags_set_mask(folio, LRU_REFS_MASK, (refs - 1UL) << LRU_REFS_PGOFF);
	}
unlock:
	rcu_read_unlock();
}

/*
 * The folio is isolated, locked and its refcount frozen.  The clock read
 * is the reclaim target's: that is the LRU whose pressure evicted it.
 */
void *workingset_eviction(struct folio *folio, struct mem_cgroup *target_memcg)
{
	struct pglist_data *pgdat = folio_pgdat(folio);
	struct mem_cgroup *memcg = target_memcg ? target_memcg : root_mem_cgroup;
	struct lruvec *lruvec = mem_cgroup_lruvec(memcg, pgdat);
	unsigned long eviction;

	if (lru_gen_enabled())
		return lru_gen_eviction(folio);
	eviction = (unsigned long)atomic_long_read(&lruvec->nonresident_age) >> bucket_order;
	workingset_age_nonresident(lruvec, (unsigned long)folio_nr_pages(folio));
	return pack_shadow(memcg->id, pgdat->node_id, eviction,
			   folio_test_workingset(folio));
}

/*
 * Modular distance: the clock field wraps, and a distance computed
 * across the wrap is still the true one as long as it fits the field.
 */
bool workingset_distance_recent(unsigned long refault, unsigned long eviction,
				unsigned long workingset_size)
{
	unsigned long distance = (refault - eviction) & EVICTION_MASK;

	return distance <= workingset_size;
}

static bool mem_cgroup_get_nr_swap_pages_positive(void)
{
	return get_nr_swap_pages() > 0;
}

bool workingset_test_recent(void *shadow, bool file, bool *workingset)
{
	struct mem_cgroup *eviction_memcg;
	struct lruvec *eviction_lruvec;
	unsigned long refault, eviction, workingset_size;
	int memcgid, nid;
	bool recent;

	if (lru_gen_enabled()) {
		rcu_read_lock();
		recent = lru_gen_test_recent(shadow, &eviction_lruvec, &eviction,
					     workingset, file);
		rcu_read_unlock();
		return recent;
	}
	unpack_shadow(shadow, &memcgid, &nid, &eviction, workingset);
	eviction <<= bucket_order;

	rcu_read_lock();
	eviction_memcg = mem_cgroup_from_id((unsigned short)memcgid);
	if (!eviction_memcg || !css_tryget(eviction_memcg)) {
		/* the memcg that evicted it is gone: its clock with it */
		rcu_read_unlock();
		return false;
	}
	rcu_read_unlock();

	mem_cgroup_flush_stats_ratelimited(eviction_memcg);
	eviction_lruvec = mem_cgroup_lruvec(eviction_memcg, NODE_DATA(nid));
	refault = (unsigned long)atomic_long_read(&eviction_lruvec->nonresident_age);

	/*
	 * What the refaulting page could have displaced to stay resident:
	 * the active file list always, the inactive file list for anon, and
	 * the anon lists when there is swap to move anon to.
	 */
	workingset_size = lruvec_page_state(eviction_lruvec, NR_ACTIVE_FILE);
	if (!file)
		workingset_size += lruvec_page_state(eviction_lruvec, NR_INACTIVE_FILE);
	if (mem_cgroup_get_nr_swap_pages_positive()) {
		workingset_size += lruvec_page_state(eviction_lruvec, NR_ACTIVE_ANON);
		if (file)
			workingset_size += lruvec_page_state(eviction_lruvec,
							     NR_INACTIVE_ANON);
	}
	recent = workingset_distance_recent(refault, eviction, workingset_size);
	css_put(eviction_memcg);
	return recent;
}

/*
 * @folio is new, locked and not yet on the LRU.  The counters go to the
 * lruvec it is charged to.
 */
void workingset_refault(struct folio *folio, void *shadow)
{
	bool file = folio_is_file_lru(folio);
	long nr = folio_nr_pages(folio);
	struct lruvec *lruvec;
	bool workingset;

	if (lru_gen_enabled()) {
		lru_gen_refault(folio, shadow);
		return;
	}
	rcu_read_lock();
	lruvec = folio_lruvec(folio);
	mod_lruvec_state(lruvec, WORKINGSET_REFAULT_BASE + file, (int)nr);
	rcu_read_unlock();

	if (!workingset_test_recent(shadow, file, &workingset))
		return;

	folio_set_active(folio);
	rcu_read_lock();
	lruvec = folio_lruvec(folio);
	workingset_age_nonresident(lruvec, (unsigned long)nr);
	mod_lruvec_state(lruvec, WORKINGSET_ACTIVATE_BASE + file, (int)nr);
	rcu_read_unlock();

	if (workingset) {
		folio_set_workingset(folio);
		/*
		 * Today's kernel records the I/O cost here, under the
		 * folio's lru_lock; with vmstat-scan-cost the restore
		 * counter below is the cost signal, read by reclaim.
		 */
		if (!lrulab_switch_on(SW_VMSTAT_SCAN_COST))
			lru_note_cost_refault(folio);
		rcu_read_lock();
		mod_lruvec_state(folio_lruvec(folio), WORKINGSET_RESTORE_BASE + file, (int)nr);
		rcu_read_unlock();
	}
}
