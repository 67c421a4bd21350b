// SPDX-License-Identifier: MIT
/*
 * The invariant checker.  At a quiescent point it walks every lruvec and
 * the whole folio array and cross-checks the two size sources (lists and
 * lru_zone_size), the flushed node/zone/memcg stats, refcounts, charges
 * and the page allocator's free count.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <lrulab/lrulab.h>
#include <lrulab/mglru.h>
#include <lrulab/mm_inline.h>
#include <lrulab/mmdebug.h>
#include <lrulab/swap_state.h>

/* ---- the assertions of <lrulab/mmdebug.h> ---- */

void dump_folio(const struct folio *folio, const char *reason)
{
	fprintf(stderr, "folio: pfn:%#lx order:%u refcount:%d mapcount:%d mapping:%p index:%#lx memcg_data:%#lx\n",
		folio_pfn(folio), folio_order(folio), folio_ref_count(folio),
		atomic_read(&folio->_mapcount), (void *)folio->mapping, folio->index,
		folio->memcg_data);
	fprintf(stderr, "flags: %#lx\nfolio dumped because: %s\n", READ_ONCE(folio->flags), reason);
}

void mm_bug(const char *file, int line, const char *cond)
{
	fprintf(stderr, "BUG: %s:%d: %s\n", file, line, cond);
	fflush(stderr);
	abort();
}

struct check {
	FILE *out;
	int errors;
	unsigned char *on_list;		/* per pfn: seen on an LRU list */
	long *charged;			/* per memcg id: pages charged */
};

static void report(struct check *c, const char *fmt, ...)
{
	va_list ap;

	c->errors++;
	if (!c->out)
		return;
	fputs("invariant: ", c->out);
	va_start(ap, fmt);
	vfprintf(c->out, fmt, ap);
	va_end(ap);
	fputc('\n', c->out);
}

static bool folio_is_tail(const struct folio *folio)
{
	return !folio_test_buddy(folio) && (folio->compound_head & 1);
}

static long walk_lru_list(struct check *c, struct mem_cgroup *memcg, int nid,
			  enum lru_list lru)
{
	struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
	struct list_head *head = &lruvec->lists[lru], *pos;
	unsigned long steps = 0;
	long pages = 0;

	for (pos = head->next; pos != head; pos = pos->next) {
		struct folio *folio = list_entry(pos, struct folio, lru);
		unsigned long pfn = folio_pfn(folio);
		struct mem_cgroup *fm = folio_memcg(folio);

		if (++steps > max_pfn || pfn >= max_pfn) {
			report(c, "memcg %s node %d list %d is corrupt",
			       memcg->name, nid, lru);
			break;
		}
		if (c->on_list[pfn])
			report(c, "pfn %lu is on two LRU lists", pfn);
		c->on_list[pfn] = 1;
		if (!folio_test_lru(folio))
			report(c, "pfn %lu on list %d without PG_lru", pfn, lru);
		if (folio_lru_list(folio) != lru)
			report(c, "pfn %lu on list %d but its flags name list %d",
			       pfn, lru, folio_lru_list(folio));
		if ((fm ? fm : root_mem_cgroup) != memcg || folio_nid(folio) != nid)
			report(c, "pfn %lu on a lruvec it does not belong to", pfn);
		if (folio_ref_count(folio) <= 0)
			report(c, "pfn %lu on list %d with refcount %d", pfn, lru,
			       folio_ref_count(folio));
		pages += folio_nr_pages(folio);
	}
	return pages;
}

static long count_unevictable(struct mem_cgroup *memcg, int nid)
{
	unsigned long pfn;
	long pages = 0;

	for (pfn = 0; pfn < max_pfn; pfn++) {
		struct folio *folio = pfn_folio(pfn);
		struct mem_cgroup *fm;

		if (folio_is_tail(folio) || folio_ref_count(folio) <= 0)
			continue;
		if (!folio_test_lru(folio) || !folio_test_unevictable(folio))
			continue;
		fm = folio_memcg(folio);
		if ((fm ? fm : root_mem_cgroup) == memcg && folio_nid(folio) == nid)
			pages += folio_nr_pages(folio);
	}
	return pages;
}

/*
 * ---------------------------------------------------------------------
 * The multi-gen LRU's lists
 *
 * A folio's gen field, not the list it sits on, says which generation
 * it is in: nr_pages[] goes by the field (lru_gen_del_folio() and
 * folio_update_gen() move the sizes by it) and eviction's sort_folio()
 * moves a folio whose field disagrees with its list when it meets it.
 * The list is only where the folio waits to be sorted, and it may be a
 * younger one than the field's as well as an older one:
 *  - a page-table walker moves the field to max_seq without moving the
 *    folio (an older list);
 *  - aging at swappiness 0 (or file at 201) advances min_seq of the type
 *    it may not evict without moving that generation's folios
 *    (inc_min_seq()'s early exit), and inc_max_seq() hands the same
 *    list to the new youngest generation right after: folios the walker
 *    had promoted stay on it, now a younger list than their field.  The
 *    kernel accepts the inversion (see inc_max_seq()'s note that
 *    max_seq + 1 can overlap min_seq[anon]).
 * Later, try_to_inc_min_seq() steps over a generation whose list is
 * empty even when its folios wait on another list, so a field may also
 * name a generation outside the window until that index is reused.  So
 * every folio counts where its field says, whatever list it is on.
 * ---------------------------------------------------------------------
 */
static bool seq_in_window(const struct lru_gen_folio *lrugen, int type, int gen,
			  unsigned long *seq)
{
	unsigned long s;

	for (s = lrugen->min_seq[type]; s <= lrugen->max_seq; s++) {
		if (lru_gen_from_seq(s) == gen) {
			*seq = s;
			return true;
		}
	}
	return false;
}

static void walk_lrugen_list(struct check *c, struct mem_cgroup *memcg, int nid,
			     int gen, int type, int zone, long counted[MAX_NR_GENS])
{
	struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct list_head *head = &lrugen->folios[gen][type][zone], *pos;
	unsigned long steps = 0, list_seq = 0;
	bool list_live = seq_in_window(lrugen, type, gen, &list_seq);

	for (pos = head->next; pos != head; pos = pos->next) {
		struct folio *folio = list_entry(pos, struct folio, lru);
		unsigned long pfn = folio_pfn(folio);
		struct mem_cgroup *fm = folio_memcg(folio);
		int fgen = folio_lru_gen(folio);

		if (++steps > max_pfn || pfn >= max_pfn) {
			report(c, "memcg %s node %d gen %d type %d is corrupt",
			       memcg->name, nid, gen, type);
			break;
		}
		if (!list_live)
			report(c, "memcg %s node %d: pfn %lu on gen %d, outside the window",
			       memcg->name, nid, pfn, gen);
		if (c->on_list[pfn])
			report(c, "pfn %lu is on two LRU lists", pfn);
		c->on_list[pfn] = 1;
		if (!folio_test_lru(folio))
			report(c, "pfn %lu on gen %d without PG_lru", pfn, gen);
		if (folio_test_active(folio))
			report(c, "pfn %lu on gen %d with PG_active", pfn, gen);
		if (folio_test_unevictable(folio))
			report(c, "pfn %lu on gen %d is unevictable", pfn, gen);
		if (folio_is_file_lru(folio) != type || folio_zonenum(folio) != zone)
			report(c, "pfn %lu on the gen %d list of type %d zone %d is not of them",
			       pfn, gen, type, zone);
		if ((fm ? fm : root_mem_cgroup) != memcg || folio_nid(folio) != nid)
			report(c, "pfn %lu on a lruvec it does not belong to", pfn);
		if (fgen < 0)
			report(c, "pfn %lu on the gen %d list has no gen field", pfn, gen);
		else
			counted[fgen] += folio_nr_pages(folio);
	}
}

static void check_lrugen(struct check *c, struct mem_cgroup *memcg, int nid)
{
	struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int gen, type, zone;

	for (type = 0; type < ANON_AND_FILE; type++) {
		if (lrugen->min_seq[type] > lrugen->max_seq)
			report(c, "memcg %s node %d: min_seq[%d] %lu > max_seq %lu",
			       memcg->name, nid, type, lrugen->min_seq[type], lrugen->max_seq);
		else if (get_nr_gens(lruvec, type) < (int)MIN_NR_GENS ||
			 get_nr_gens(lruvec, type) > (int)MAX_NR_GENS)
			report(c, "memcg %s node %d: %d generations of type %d",
			       memcg->name, nid, get_nr_gens(lruvec, type), type);
	}
	for (type = 0; type < ANON_AND_FILE; type++) {
		for (zone = 0; zone < MAX_NR_ZONES; zone++) {
			long counted[MAX_NR_GENS] = { 0 };

			for (gen = 0; gen < (int)MAX_NR_GENS; gen++)
				walk_lrugen_list(c, memcg, nid, gen, type, zone, counted);
			for (gen = 0; gen < (int)MAX_NR_GENS; gen++)
				if (counted[gen] != lrugen->nr_pages[gen][type][zone])
					report(c, "memcg %s node %d gen %d type %d: %ld pages listed, nr_pages %ld",
					       memcg->name, nid, gen, type, counted[gen],
					       lrugen->nr_pages[gen][type][zone]);
		}
	}
}

/*
 * The memcg LRU of every node: each memcg's lruvec in one bin of the
 * generation it records, nr_memcgs[] the bins' counts, and every memcg
 * that exists (online or a zombie) on it.
 */
static void check_memcg_lru(struct check *c)
{
	int nid;

	for_each_node(nid) {
		struct lru_gen_memcg *memcg_lru = &NODE_DATA(nid)->memcg_lru;
		struct mem_cgroup *memcg = NULL;
		long listed = 0, existing = 0;
		int gen, bin;

		for (gen = 0; gen < MEMCG_NR_GENS; gen++) {
			long n = 0;

			for (bin = 0; bin < MEMCG_NR_BINS; bin++) {
				struct lru_gen_folio *lrugen;

				list_for_each_entry(lrugen, &memcg_lru->fifo[gen][bin], list) {
					if (lrugen->gen != gen)
						report(c, "node %d: a memcg in memcg-LRU gen %d records gen %d",
						       nid, gen, lrugen->gen);
					n++;
				}
			}
			if (n != (long)memcg_lru->nr_memcgs[gen])
				report(c, "node %d: memcg-LRU gen %d holds %ld memcgs, nr_memcgs %lu",
				       nid, gen, n, memcg_lru->nr_memcgs[gen]);
			listed += n;
		}
		while ((memcg = mem_cgroup_iter(NULL, memcg))) {
			existing++;
			if (list_empty(&mem_cgroup_lruvec(memcg, NODE_DATA(nid))->lrugen.list))
				report(c, "node %d: memcg %s is not on the memcg LRU", nid, memcg->name);
		}
		if (listed != existing)
			report(c, "node %d: %ld memcgs on the memcg LRU, %ld exist", nid, listed, existing);
	}
}

/* What the node and memcg counters of @lru hold: the classic list, or gens. */
static long lru_expected(struct lruvec *lruvec, enum lru_list lru)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int type = is_file_lru(lru), gen, zone;
	long pages = 0;

	if (!lru_gen_enabled() || lru == LRU_UNEVICTABLE)
		return (long)lruvec_pn(lruvec)->lru_zone_size[ZONE_NORMAL][lru];
	/* the two youngest generations are the active list */
	for (gen = 0; gen < (int)MAX_NR_GENS; gen++)
		if (lru_gen_is_active(lruvec, gen) == is_active_lru(lru))
			for (zone = 0; zone < MAX_NR_ZONES; zone++)
				pages += lrugen->nr_pages[gen][type][zone];
	return pages;
}

static void check_lruvecs(struct check *c, struct mem_cgroup *memcg)
{
	enum lru_list lru;
	int nid;

	for_each_node(nid) {
		struct mem_cgroup_per_node *pn = memcg->nodeinfo[nid];

		for_each_lru(lru) {
			long pages = lru == LRU_UNEVICTABLE ?
				count_unevictable(memcg, nid) :
				walk_lru_list(c, memcg, nid, lru);

			if (pages != (long)pn->lru_zone_size[ZONE_NORMAL][lru])
				report(c, "memcg %s node %d list %d: %ld pages listed, lru_zone_size %lu",
				       memcg->name, nid, lru, pages,
				       pn->lru_zone_size[ZONE_NORMAL][lru]);
			/* under MGLRU the classic lists stay empty */
			if (lru_gen_enabled() && lru != LRU_UNEVICTABLE && pages)
				report(c, "memcg %s node %d: classic list %d holds %ld pages under MGLRU",
				       memcg->name, nid, lru, pages);
		}
		check_lrugen(c, memcg, nid);
	}
}

/* Flushed stats must equal the exact list sizes once nothing is pending. */
static void check_lru_stats(struct check *c)
{
	long node_sum[MAX_NUMNODES][NR_LRU_LISTS] = { { 0 } };
	struct mem_cgroup *memcg = NULL;
	enum lru_list lru;
	int nid;

	while ((memcg = mem_cgroup_iter(NULL, memcg))) {
		for_each_node(nid) {
			struct mem_cgroup_per_node *pn = memcg->nodeinfo[nid];
			struct lruvec *lruvec = &pn->lruvec;

			for_each_lru(lru) {
				unsigned long size = (unsigned long)lru_expected(lruvec, lru);
				unsigned long stat = lruvec_page_state_local(lruvec,
								NR_LRU_BASE + lru);

				node_sum[nid][lru] += size;
				if (stat != size)
					report(c, "memcg %s node %d: %s %lu, lists hold %lu",
					       memcg->name, nid,
					       node_stat_name(NR_LRU_BASE + lru), stat, size);
			}
		}
	}
	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		for_each_lru(lru) {
			unsigned long ns = node_page_state(pgdat, NR_LRU_BASE + lru);
			unsigned long zs = zone_page_state(&pgdat->node_zones[ZONE_NORMAL],
							   NR_ZONE_LRU_BASE + lru);

			if ((long)ns != node_sum[nid][lru] || (long)zs != node_sum[nid][lru])
				report(c, "node %d: %s %lu, %s %lu, lists hold %ld", nid,
				       node_stat_name(NR_LRU_BASE + lru), ns,
				       zone_stat_name(NR_ZONE_LRU_BASE + lru), zs,
				       node_sum[nid][lru]);
		}
	}
}

/*
 * Swap cache and isolation: every PG_swapcache folio is the one the
 * cache holds for its entry, the cache holds nothing else, NR_SWAPCACHE
 * counts exactly those, and at a quiescent point no folio is locked or
 * isolated by reclaim.
 */
static void check_swap_folio(struct check *c, struct folio *folio, unsigned long *cached)
{
	unsigned long pfn = folio_pfn(folio);

	if (folio_test_locked(folio))
		report(c, "pfn %lu is locked at a quiescent point", pfn);
	if (!folio_test_swapcache(folio))
		return;
	(*cached)++;
	if (__swap_cache_folio(folio_swap_entry(folio)) != folio)
		report(c, "pfn %lu has PG_swapcache but the swap cache at %lu holds another",
		       pfn, folio->private);
}

static void check_swap_counts(struct check *c, unsigned long cached, bool settled)
{
	int nid;

	if (cached != swap_cache_nr())
		report(c, "swap cache holds %lu folios, %lu have PG_swapcache",
		       swap_cache_nr(), cached);
	/* the device's own books: cluster counts and lists against the slots */
	c->errors += swap_cluster_check(NULL, c->out);
	if (!settled)
		return;
	if (global_node_page_state(NR_SWAPCACHE) != cached)
		report(c, "nr_swapcached %lu, swap cache folios %lu",
		       global_node_page_state(NR_SWAPCACHE), cached);
	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (node_page_state(pgdat, NR_ISOLATED_ANON) ||
		    node_page_state(pgdat, NR_ISOLATED_FILE))
			report(c, "node %d: %lu anon and %lu file pages still isolated", nid,
			       node_page_state(pgdat, NR_ISOLATED_ANON),
			       node_page_state(pgdat, NR_ISOLATED_FILE));
	}
}

/* Walk the folio array: LRU membership, charges, page accounting. */
static void check_folios(struct check *c, bool settled)
{
	unsigned long pfn, allocated = 0, free_pages = 0, cached = 0, dirty = 0;
	int nid;

	for (pfn = 0; pfn < max_pfn; pfn++) {
		struct folio *folio = pfn_folio(pfn);
		struct mem_cgroup *memcg;

		if (folio_is_tail(folio) || folio_ref_count(folio) <= 0)
			continue;
		allocated += folio_nr_pages(folio);
		if (folio_test_lru(folio) && !folio_test_unevictable(folio) &&
		    !c->on_list[pfn])
			report(c, "pfn %lu has PG_lru but is on no list", pfn);
		if (settled && !folio_test_lru(folio) && folio->mapping)
			report(c, "pfn %lu is in use but not on the LRU after a drain", pfn);
		memcg = folio_memcg_charged(folio);
		if (memcg)
			c->charged[memcg->id] += folio_nr_pages(folio);
		check_swap_folio(c, folio, &cached);
		if (folio_test_writeback(folio))
			report(c, "pfn %lu is under writeback at a quiescent point", pfn);
		/* a regular file's dirty folio counts in nr_dirty, shmem's does not */
		if (folio_test_dirty(folio) && !folio_test_swapbacked(folio) &&
		    !folio_test_anon(folio))
			dirty += folio_nr_pages(folio);
	}
	if (settled && dirty != global_node_page_state(NR_FILE_DIRTY))
		report(c, "nr_dirty %lu, dirty file folios %lu",
		       global_node_page_state(NR_FILE_DIRTY), dirty);
	check_swap_counts(c, cached, settled);
	for_each_node(nid)
		free_pages += zone_free_pages_exact(&NODE_DATA(nid)->node_zones[ZONE_NORMAL]);
	if (allocated + free_pages != totalram_pages())
		report(c, "pages: %lu allocated + %lu free != %lu total",
		       allocated, free_pages, totalram_pages());
}

static void check_charges(struct check *c)
{
	struct mem_cgroup *memcg = NULL;

	while ((memcg = mem_cgroup_iter(NULL, memcg))) {
		struct mem_cgroup *child;
		long expect;

		if (mem_cgroup_is_root(memcg))
			continue;
		expect = c->charged[memcg->id] + (long)memcg_stock_pages(memcg);
		for_each_mem_cgroup_child(child, memcg)
			expect += (long)mem_cgroup_usage(child);
		if ((long)mem_cgroup_usage(memcg) != expect)
			report(c, "memcg %s: memory.current %lu pages, expected %ld (charged folios + stock + children)",
			       memcg->name, mem_cgroup_usage(memcg), expect);
	}
}

int lrulab_check_invariants(bool settle, FILE *out)
{
	struct check c = { .out = out };
	struct mem_cgroup *memcg = NULL;

	if (settle) {
		lru_add_drain_all();
		vmstat_refresh();
		mem_cgroup_flush_all();
	}
	c.on_list = calloc(max_pfn, 1);
	c.charged = calloc(1 << 16, sizeof(long));
	if (!c.on_list || !c.charged) {
		free(c.on_list);
		free(c.charged);
		report(&c, "out of memory");
		return c.errors;
	}
	while ((memcg = mem_cgroup_iter(NULL, memcg)))
		check_lruvecs(&c, memcg);
	check_folios(&c, settle);
	check_charges(&c);
	check_memcg_lru(&c);
	if (settle)
		check_lru_stats(&c);
	free(c.on_list);
	free(c.charged);
	return c.errors;
}
