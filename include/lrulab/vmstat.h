/* SPDX-License-Identifier: MIT */
/*
 * vmstat: zone and node state counters with per-CPU s8 diffs folded at
 * the kernel's threshold, global counters, per-CPU event counters, and
 * the /proc/vmstat dump (mm/vmstat.c, include/linux/vmstat.h).
 */
#ifndef LRULAB_VMSTAT_H
#define LRULAB_VMSTAT_H

#include <stdio.h>
#include <lrulab/mmzone.h>
#include <lrulab/cpu.h>

extern atomic_long_t vm_zone_stat[NR_VM_ZONE_STAT_ITEMS];
extern atomic_long_t vm_node_stat[NR_VM_NODE_STAT_ITEMS];

struct vm_event_state {
	unsigned long event[NR_VM_EVENT_ITEMS];
};
extern struct vm_event_state *vm_event_states;	/* alloc_percpu */

const char *zone_stat_name(enum zone_stat_item item);
const char *node_stat_name(enum node_stat_item item);
const char *vm_event_name(enum vm_event_item item);

/*
 * Global state; call after the nodes and CPUs exist (after
 * lrulab_cpus_init() and page_alloc_init()).  vmstat_init() allocates the
 * per-CPU diffs of every zone and node and the per-CPU event counters,
 * sets the thresholds, and recomputes the global counters as the sum of
 * the node/zone counters, so updates made before it (which go straight to
 * the atomics, see below) are kept.  vmstat_exit() folds every CPU first,
 * so the zone/node counters stay exact for a teardown that follows it, then
 * frees the per-CPU areas and drops every event count.
 *
 * Updates from a thread that is not a model CPU (smp_processor_id() < 0),
 * or made before vmstat_init(), skip the per-CPU diff and go straight to
 * the zone/node and global atomics (events: to a shared atomic array that
 * the readers add in).  That is exact, only slower.
 */
int vmstat_init(void);
void vmstat_exit(void);
/* Zero every counter (global, node, zone, per-CPU). Quiescent only. */
void vmstat_reset(void);

/*
 * The per-CPU stat_threshold of a zone of @managed_pages with @cpus CPUs
 * online: calculate_normal_threshold() for any CPU count (the predictor
 * recomputes it for the CPUs it simulates).
 */
int vmstat_normal_threshold(int cpus, unsigned long managed_pages);
int calculate_normal_threshold(struct zone *zone);
void refresh_zone_stat_thresholds(void);

/* Events: per-CPU, never folded; readers sum the CPUs. */
void __count_vm_events(enum vm_event_item item, long delta);
static inline void count_vm_events(enum vm_event_item item, long delta)
{
	__count_vm_events(item, delta);
}
static inline void count_vm_event(enum vm_event_item item)
{
	__count_vm_events(item, 1);
}
static inline void __count_vm_event(enum vm_event_item item)
{
	__count_vm_events(item, 1);
}
void all_vm_events(unsigned long *ret);
unsigned long sum_vm_event(enum vm_event_item item);

/* State updates (the __ forms assume the caller cannot be interrupted;
 * in the model both are the same cmpxchg-on-the-diff algorithm). */
void __mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta);
void mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta);
void __inc_zone_state(struct zone *zone, enum zone_stat_item item);
void __dec_zone_state(struct zone *zone, enum zone_stat_item item);
void __mod_node_page_state(struct pglist_data *pgdat, enum node_stat_item item, long delta);
void mod_node_page_state(struct pglist_data *pgdat, enum node_stat_item item, long delta);
void __inc_node_state(struct pglist_data *pgdat, enum node_stat_item item);
void __dec_node_state(struct pglist_data *pgdat, enum node_stat_item item);

static inline void node_stat_mod_folio(struct folio *folio,
				       enum node_stat_item item, long nr)
{
	mod_node_page_state(folio_pgdat(folio), item, nr);
}
static inline void zone_stat_mod_folio(struct folio *folio,
				       enum zone_stat_item item, long nr)
{
	mod_zone_page_state(folio_zone(folio), item, nr);
}

/* Readers: negative values read as 0, as on SMP kernels. */
unsigned long global_zone_page_state(enum zone_stat_item item);
unsigned long global_node_page_state(enum node_stat_item item);
unsigned long zone_page_state(struct zone *zone, enum zone_stat_item item);
unsigned long node_page_state(struct pglist_data *pgdat, enum node_stat_item item);
/*
 * Non-clamping readers for monotonically incremented counters: the raw
 * signed value reinterpreted as unsigned long, so that two samples
 * subtracted in unsigned arithmetic give the true growth even across a
 * wrap of the signed value (which the clamp above would turn into a huge
 * bogus delta).  Never use them for page counts that can transiently go
 * negative.
 */
unsigned long global_node_page_state_monotonic(enum node_stat_item item);
unsigned long node_page_state_monotonic(struct pglist_data *pgdat, enum node_stat_item item);
/* Including every CPU's unfolded diff. */
unsigned long zone_page_state_snapshot(struct zone *zone, enum zone_stat_item item);
unsigned long node_page_state_snapshot(struct pglist_data *pgdat, enum node_stat_item item);

/* Fold one CPU's diffs into the zone/node and global counters.  Safe to
 * call for a remote CPU: diffs are exchanged atomically. */
void refresh_cpu_vm_stats(int cpu);
/* Fold every CPU (/proc/sys/vm/stat_refresh). */
void vmstat_refresh(void);

/*
 * /proc/vmstat format: "name value" lines, zone items, node items, events,
 * then the legacy "nr_unstable 0".  As in the kernel, NR_ANON_THPS is
 * counted in pages and shown in THPs (divided by HPAGE_PMD_NR), and
 * PGPGIN/PGPGOUT are counted in 512-byte sectors and shown in KiB (halved).
 */
void vmstat_show(FILE *f);

#endif /* LRULAB_VMSTAT_H */
