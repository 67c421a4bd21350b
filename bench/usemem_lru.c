// SPDX-License-Identifier: MIT
/*
 * usemem's aging and eviction counters, the same for either LRU: the
 * classic lists' moves (pgrefill, pgactivate, pgdeactivate), workingset
 * activations and restores, and the leaf's generations made (max_seq)
 * and retired (min_seq), which stay put under the classic LRU.  They
 * are /proc/vmstat's, as the kernel counts them: pgscan, pgsteal and
 * pgrefill are node stats in v7.2, counted for every reclaim, usemem's
 * cgroup reclaim included (6.12's vm events left it out of pgrefill).
 */
#include "bench/bench.h"
#include <lrulab/mglru.h>
#include <lrulab/vmstat.h>

void usemem_lru_take(struct usemem_lru *s, struct mem_cgroup *leaf)
{
	struct pglist_data *pgdat = NODE_DATA(0);
	struct lruvec *lruvec = mem_cgroup_lruvec(leaf, pgdat);
	int type;

	for (type = 0; type < ANON_AND_FILE; type++) {
		s->activate[type] = node_page_state_snapshot(pgdat, WORKINGSET_ACTIVATE_BASE + type);
		s->restore[type] = node_page_state_snapshot(pgdat, WORKINGSET_RESTORE_BASE + type);
		s->scan[type] = node_page_state_snapshot(pgdat, PGSCAN_ANON + type);
		s->steal[type] = node_page_state_snapshot(pgdat, PGSTEAL_ANON + type);
		s->min_seq[type] = READ_ONCE(lruvec->lrugen.min_seq[type]);
	}
	s->refill = node_page_state_snapshot(pgdat, PGREFILL);
	s->max_seq = READ_ONCE(lruvec->lrugen.max_seq);
}

void usemem_lru_delta(struct usemem_lru *end, const struct usemem_lru *start)
{
	int type;

	for (type = 0; type < ANON_AND_FILE; type++) {
		end->activate[type] -= start->activate[type];
		end->restore[type] -= start->restore[type];
		end->scan[type] -= start->scan[type];
		end->steal[type] -= start->steal[type];
		end->min_seq[type] -= start->min_seq[type];
	}
	end->refill -= start->refill;
	end->max_seq -= start->max_seq;
}

void usemem_lru_print(FILE *text, const struct usemem_lru *d, const unsigned long *ev0,
		      const unsigned long *ev1, unsigned int caps, double secs)
{
	fprintf(text, "%-32s %14.0f\n", "pgrefill", d->refill / secs);
	fprintf(text, "%-32s %14.0f\n", "pgactivate", (ev1[PGACTIVATE] - ev0[PGACTIVATE]) / secs);
	fprintf(text, "%-32s %14.0f\n", "pgdeactivate",
		(ev1[PGDEACTIVATE] - ev0[PGDEACTIVATE]) / secs);
	fprintf(text, "%-32s %14.0f\n", "workingset_activate_anon", d->activate[0] / secs);
	fprintf(text, "%-32s %14.0f\n", "workingset_restore_anon", d->restore[0] / secs);
	if (caps & BIT(LRU_GEN_CORE))
		fprintf(text, "%-32s %14.1f   (min_seq anon +%lu, file +%lu in the window)\n",
			"lru_gen max_seq advances", d->max_seq / secs, d->min_seq[0], d->min_seq[1]);
}

void usemem_lru_json(json_t *j, const struct usemem_lru *d, const unsigned long *ev,
		     unsigned int caps)
{
	json_object_set_new(j, "lru", json_string(caps & BIT(LRU_GEN_CORE) ? "mglru" : "classic"));
	json_object_set_new(j, "lru_gen_enabled", json_integer(caps));
	/* aging and eviction, under the kernel's names where it has them */
	json_object_set_new(j, "pgrefill", json_integer((json_int_t)d->refill));
	json_object_set_new(j, "pgactivate", json_integer((json_int_t)ev[PGACTIVATE]));
	json_object_set_new(j, "pgdeactivate", json_integer((json_int_t)ev[PGDEACTIVATE]));
	json_object_set_new(j, "workingset_activate_anon", json_integer((json_int_t)d->activate[0]));
	json_object_set_new(j, "workingset_activate_file", json_integer((json_int_t)d->activate[1]));
	json_object_set_new(j, "workingset_restore_anon", json_integer((json_int_t)d->restore[0]));
	json_object_set_new(j, "workingset_restore_file", json_integer((json_int_t)d->restore[1]));
	json_object_set_new(j, "lru_gen_max_seq_advances", json_integer((json_int_t)d->max_seq));
	json_object_set_new(j, "lru_gen_min_seq_advances_anon", json_integer((json_int_t)d->min_seq[0]));
	json_object_set_new(j, "lru_gen_min_seq_advances_file", json_integer((json_int_t)d->min_seq[1]));
}
