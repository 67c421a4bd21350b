// SPDX-License-Identifier: MIT
/*
 * vmstat: zone and node state counters, event counters, /proc/vmstat.
 *
 * A state counter lives in three places: a small signed per-CPU diff, the
 * zone's (or node's) atomic, and the global atomic.  Updates stay in the
 * diff until it passes the per-CPU threshold, so the shared cache lines of
 * the atomics are written once every few dozen updates instead of on every
 * one.  Readers of the atomics therefore lag by up to CPUs x threshold and
 * may see transient negatives, which the clamped readers hide.
 *
 * A diff is per-CPU data with one writer, its CPU, as the kernel's
 * this_cpu operations: a plain read-modify-write, no locked instruction.
 * A fold of all CPUs (stat_refresh, an exact snapshot) is work run on
 * each CPU (lib/workqueue.c).  Readers that sum the diffs of other CPUs
 * read them racily, as the kernel's snapshot readers do; the relaxed
 * atomic loads and stores only keep such a read whole.
 *
 * Event counters are never folded: one unsigned long per CPU and event,
 * written only by its CPU, summed by the readers.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <lrulab/trace.h>
#include <lrulab/vmstat.h>
#include <lrulab/workqueue.h>

#ifndef HPAGE_PMD_NR
#define HPAGE_PMD_NR (1UL << HPAGE_PMD_ORDER)
#endif

atomic_long_t vm_zone_stat[NR_VM_ZONE_STAT_ITEMS];
atomic_long_t vm_node_stat[NR_VM_NODE_STAT_ITEMS];
struct vm_event_state *vm_event_states;

/*
 * Events from threads that are not model CPUs (or from before
 * vmstat_init()): several writers, so a real atomic add, but off the hot
 * path of the model CPUs.
 */
static unsigned long vm_events_nocpu[NR_VM_EVENT_ITEMS];

/*
 * The number of CPUs the per-CPU areas were sized for.  nr_cpu_ids may
 * change behind our back (a test reinitialising the CPUs); indexing by it
 * would run off the end of the arrays.
 */
static int vmstat_nr_cpus;

#define __VMSTAT_NAME(e, s) [e] = s,
static const char *const zone_stat_names[NR_VM_ZONE_STAT_ITEMS] = {
	ZONE_STAT_ITEMS(__VMSTAT_NAME)
};
static const char *const node_stat_names[NR_VM_NODE_STAT_ITEMS] = {
	NODE_STAT_ITEMS(__VMSTAT_NAME)
};
static const char *const vm_event_names[NR_VM_EVENT_ITEMS] = {
	VM_EVENT_ITEMS(__VMSTAT_NAME)
};
#undef __VMSTAT_NAME

const char *zone_stat_name(enum zone_stat_item item)
{
	if ((unsigned int)item >= NR_VM_ZONE_STAT_ITEMS)
		return NULL;
	return zone_stat_names[item];
}

const char *node_stat_name(enum node_stat_item item)
{
	if ((unsigned int)item >= NR_VM_NODE_STAT_ITEMS)
		return NULL;
	return node_stat_names[item];
}

const char *vm_event_name(enum vm_event_item item)
{
	if ((unsigned int)item >= NR_VM_EVENT_ITEMS)
		return NULL;
	return vm_event_names[item];
}

/* Bit number of the most significant set bit, counting from 1; 0 for 0. */
static int vmstat_fls(unsigned long x)
{
	return x ? (int)(sizeof(x) * CHAR_BIT) - __builtin_clzl(x) : 0;
}

/* The calling thread's CPU, or -1 when it has no per-CPU vmstat area. */
static int vmstat_cpu(void)
{
	int cpu = smp_processor_id();

	if (cpu < 0 || cpu >= vmstat_nr_cpus)
		return -1;
	return cpu;
}

/*
 * ---------------------------------------------------------------------
 * Thresholds
 * ---------------------------------------------------------------------
 */

/*
 * The allowed drift grows with the number of CPUs (more CPUs hammering
 * the same atomic) and, logarithmically, with the zone size (the same
 * absolute error matters less in a big zone).  125 keeps an overstep of
 * one still inside an s8.
 */
int vmstat_normal_threshold(int cpus, unsigned long managed_pages)
{
	unsigned long mem = managed_pages >> (27 - PAGE_SHIFT);
	int threshold;

	threshold = 2 * vmstat_fls(cpus > 0 ? (unsigned long)cpus : 0) *
		    (1 + vmstat_fls(mem));
	return threshold < 125 ? threshold : 125;
}

int calculate_normal_threshold(struct zone *zone)
{
	return vmstat_normal_threshold(nr_cpu_ids, zone->managed_pages);
}

/*
 * A zone without managed pages keeps threshold 0 on every CPU, as the
 * kernel leaves unpopulated zones: all its updates go straight to the
 * atomics, and it does not raise its node's threshold.
 */
void refresh_zone_stat_thresholds(void)
{
	int nid, cpu, z;

	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		int node_threshold = 0;

		if (!pgdat)
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &pgdat->node_zones[z];
			int threshold = 0;

			if (zone->managed_pages)
				threshold = calculate_normal_threshold(zone);
			if (threshold > node_threshold)
				node_threshold = threshold;
			if (!zone->per_cpu_zonestats)
				continue;
			for (cpu = 0; cpu < vmstat_nr_cpus; cpu++)
				WRITE_ONCE(per_cpu_ptr(zone->per_cpu_zonestats,
						       cpu)->stat_threshold,
					   (s8)threshold);
		}
		if (!pgdat->per_cpu_nodestats)
			continue;
		for (cpu = 0; cpu < vmstat_nr_cpus; cpu++)
			WRITE_ONCE(per_cpu_ptr(pgdat->per_cpu_nodestats,
					       cpu)->stat_threshold,
				   (s8)node_threshold);
	}
}

/*
 * ---------------------------------------------------------------------
 * State updates
 * ---------------------------------------------------------------------
 */

static void zone_page_state_add(long x, struct zone *zone,
				enum zone_stat_item item)
{
	atomic_long_add(x, &zone->vm_stat[item]);
	atomic_long_add(x, &vm_zone_stat[item]);
}

static void node_page_state_add(long x, struct pglist_data *pgdat,
				enum node_stat_item item)
{
	atomic_long_add(x, &pgdat->vm_stat[item]);
	atomic_long_add(x, &vm_node_stat[item]);
}

/*
 * Add @delta to the s8 diff @p under @threshold; return what must go to
 * the atomics (0 if it all stayed in the diff).  Only the owning CPU
 * calls this, so a load and a store suffice.
 *
 * @overstep is 0 for a modification and +1/-1 for an increment/decrement.
 * On a fold an increment pushes the diff to -threshold/2 (and a decrement
 * to +threshold/2) and folds that much more: a counter that keeps moving
 * the same way then stays local for 1.5 thresholds before the next fold,
 * instead of folding on every single step once it sits at the edge.
 */
static long diff_mod(s8 *p, const s8 *threshold, long delta, int overstep)
{
	long t = READ_ONCE(*threshold);
	long n = (long)READ_ONCE(*p) + delta;
	long fold = 0;

	if (n > t || n < -t) {
		long os = overstep * (t >> 1);

		fold = n + os;
		n = -os;
	}
	WRITE_ONCE(*p, (s8)n);
	return fold;
}

/*
 * A fold wrote the zone's (node's) atomic and the global one, lines
 * every CPU's folds write.  How often depends on the threshold, which
 * depends on the CPU count, so the threshold in force, the step and the
 * memory it was computed from go with it.  A ring event: a call from
 * here would lengthen lru_lock's holds.
 */
static inline void trace_fold(const void *line, const void *global, const s8 *threshold,
			      unsigned long managed_pages, long delta, int overstep)
{
	long step = delta < 0 ? -delta : delta;

	trace_vmstat_fold(line, global, (u32)(managed_pages >> (27 - PAGE_SHIFT)),
			  READ_ONCE(*threshold), overstep ? 0 : step);
}

/* A node's threshold is that of its largest zone (refresh_zone_stat_thresholds). */
static unsigned long node_managed_max(struct pglist_data *pgdat)
{
	unsigned long max = 0;
	int z;

	for (z = 0; z < MAX_NR_ZONES; z++)
		if (pgdat->node_zones[z].managed_pages > max)
			max = pgdat->node_zones[z].managed_pages;
	return max;
}

static void mod_zone_state(struct zone *zone, enum zone_stat_item item,
			   long delta, int overstep)
{
	struct per_cpu_zonestat *pzstats;
	int cpu = vmstat_cpu();
	long fold;

	if (cpu < 0 || !zone->per_cpu_zonestats) {
		if (delta)
			zone_page_state_add(delta, zone, item);
		return;
	}
	pzstats = per_cpu_ptr(zone->per_cpu_zonestats, cpu);
	fold = diff_mod(&pzstats->vm_stat_diff[item], &pzstats->stat_threshold,
			delta, overstep);
	if (fold) {
		zone_page_state_add(fold, zone, item);
		if (trace_on(vmstat_fold))
			trace_fold(&zone->vm_stat[item], &vm_zone_stat[item],
				   &pzstats->stat_threshold, zone->managed_pages, delta, overstep);
	}
}

static void mod_node_state(struct pglist_data *pgdat, enum node_stat_item item,
			   long delta, int overstep)
{
	struct per_cpu_nodestat *pnstats;
	int cpu = vmstat_cpu();
	long fold;

	if (cpu < 0 || !pgdat->per_cpu_nodestats) {
		if (delta)
			node_page_state_add(delta, pgdat, item);
		return;
	}
	pnstats = per_cpu_ptr(pgdat->per_cpu_nodestats, cpu);
	fold = diff_mod(&pnstats->vm_node_stat_diff[item],
			&pnstats->stat_threshold, delta, overstep);
	if (fold) {
		node_page_state_add(fold, pgdat, item);
		if (trace_on(vmstat_fold))
			trace_fold(&pgdat->vm_stat[item], &vm_node_stat[item],
				   &pnstats->stat_threshold, node_managed_max(pgdat), delta,
				   overstep);
	}
}

/*
 * The kernel's __ variants are plain read-modify-writes for callers that
 * have interrupts off, the others this_cpu_cmpxchg (unlocked on x86)
 * against an interrupt on the same CPU.  There are no interrupts here, so
 * both are the owner's plain read-modify-write.
 */
void __mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta)
{
	mod_zone_state(zone, item, delta, 0);
}

void mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta)
{
	mod_zone_state(zone, item, delta, 0);
}

void __inc_zone_state(struct zone *zone, enum zone_stat_item item)
{
	mod_zone_state(zone, item, 1, 1);
}

void __dec_zone_state(struct zone *zone, enum zone_stat_item item)
{
	mod_zone_state(zone, item, -1, -1);
}

void __mod_node_page_state(struct pglist_data *pgdat, enum node_stat_item item,
			   long delta)
{
	mod_node_state(pgdat, item, delta, 0);
}

void mod_node_page_state(struct pglist_data *pgdat, enum node_stat_item item,
			 long delta)
{
	mod_node_state(pgdat, item, delta, 0);
}

void __inc_node_state(struct pglist_data *pgdat, enum node_stat_item item)
{
	mod_node_state(pgdat, item, 1, 1);
}

void __dec_node_state(struct pglist_data *pgdat, enum node_stat_item item)
{
	mod_node_state(pgdat, item, -1, -1);
}

/*
 * ---------------------------------------------------------------------
 * Readers
 * ---------------------------------------------------------------------
 */

/*
 * Diffs of different CPUs fold at different times, so a counter whose
 * true value is small can read negative for a while; a negative page
 * count is never what a caller wants to compute with.
 */
static unsigned long clamp_state(long x)
{
	return x < 0 ? 0 : (unsigned long)x;
}

unsigned long global_zone_page_state(enum zone_stat_item item)
{
	return clamp_state(atomic_long_read(&vm_zone_stat[item]));
}

unsigned long global_node_page_state(enum node_stat_item item)
{
	return clamp_state(atomic_long_read(&vm_node_stat[item]));
}

unsigned long zone_page_state(struct zone *zone, enum zone_stat_item item)
{
	return clamp_state(atomic_long_read(&zone->vm_stat[item]));
}

unsigned long node_page_state(struct pglist_data *pgdat, enum node_stat_item item)
{
	return clamp_state(atomic_long_read(&pgdat->vm_stat[item]));
}

unsigned long global_node_page_state_monotonic(enum node_stat_item item)
{
	return (unsigned long)atomic_long_read(&vm_node_stat[item]);
}

unsigned long node_page_state_monotonic(struct pglist_data *pgdat,
					enum node_stat_item item)
{
	return (unsigned long)atomic_long_read(&pgdat->vm_stat[item]);
}

unsigned long zone_page_state_snapshot(struct zone *zone, enum zone_stat_item item)
{
	long x = atomic_long_read(&zone->vm_stat[item]);
	int cpu;

	if (zone->per_cpu_zonestats)
		for (cpu = 0; cpu < vmstat_nr_cpus; cpu++)
			x += READ_ONCE(per_cpu_ptr(zone->per_cpu_zonestats,
						   cpu)->vm_stat_diff[item]);
	return clamp_state(x);
}

unsigned long node_page_state_snapshot(struct pglist_data *pgdat,
				       enum node_stat_item item)
{
	long x = atomic_long_read(&pgdat->vm_stat[item]);
	int cpu;

	if (pgdat->per_cpu_nodestats)
		for (cpu = 0; cpu < vmstat_nr_cpus; cpu++)
			x += READ_ONCE(per_cpu_ptr(pgdat->per_cpu_nodestats,
						   cpu)->vm_node_stat_diff[item]);
	return clamp_state(x);
}

/*
 * ---------------------------------------------------------------------
 * Folding
 * ---------------------------------------------------------------------
 */

/*
 * Fold this CPU's diffs into the zone/node atomics: the kernel's
 * refresh_cpu_vm_stats() run by the vmstat work on its own CPU.  The
 * zone/node atomics are updated per item; the global ones once per item
 * after all nodes, which is what keeps a fold cheap with many nodes.
 */
static void fold_this_cpu_vm_stats(void)
{
	long global_zone_diff[NR_VM_ZONE_STAT_ITEMS] = { 0 };
	long global_node_diff[NR_VM_NODE_STAT_ITEMS] = { 0 };
	int cpu = smp_processor_id();
	int nid, z, i;

	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (!pgdat)
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &pgdat->node_zones[z];
			struct per_cpu_zonestat *pzstats;

			if (!zone->per_cpu_zonestats)
				continue;
			pzstats = per_cpu_ptr(zone->per_cpu_zonestats, cpu);
			for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++) {
				long v = READ_ONCE(pzstats->vm_stat_diff[i]);

				if (!v)
					continue;
				WRITE_ONCE(pzstats->vm_stat_diff[i], (s8)0);
				atomic_long_add(v, &zone->vm_stat[i]);
				global_zone_diff[i] += v;
			}
		}
		if (pgdat->per_cpu_nodestats) {
			struct per_cpu_nodestat *pnstats;

			pnstats = per_cpu_ptr(pgdat->per_cpu_nodestats, cpu);
			for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++) {
				long v = READ_ONCE(pnstats->vm_node_stat_diff[i]);

				if (!v)
					continue;
				WRITE_ONCE(pnstats->vm_node_stat_diff[i], (s8)0);
				atomic_long_add(v, &pgdat->vm_stat[i]);
				global_node_diff[i] += v;
			}
		}
	}

	for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
		if (global_zone_diff[i])
			atomic_long_add(global_zone_diff[i], &vm_zone_stat[i]);
	for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
		if (global_node_diff[i])
			atomic_long_add(global_node_diff[i], &vm_node_stat[i]);
}

static void vmstat_update(struct work_struct *work)
{
	fold_this_cpu_vm_stats();
}

static struct work_struct vmstat_work[LRULAB_MAX_CPUS];

/* @cpu's diffs, folded by @cpu (work queued there and waited for). */
void refresh_cpu_vm_stats(int cpu)
{
	if (cpu < 0 || cpu >= vmstat_nr_cpus)
		return;
	INIT_WORK(&vmstat_work[cpu], vmstat_update);
	queue_work_on(cpu, &vmstat_work[cpu]);
	flush_work(&vmstat_work[cpu]);
}

/* Every CPU folds at once, as schedule_on_each_cpu() runs them. */
void vmstat_refresh(void)
{
	int cpu;

	for (cpu = 0; cpu < vmstat_nr_cpus; cpu++) {
		INIT_WORK(&vmstat_work[cpu], vmstat_update);
		queue_work_on(cpu, &vmstat_work[cpu]);
	}
	for (cpu = 0; cpu < vmstat_nr_cpus; cpu++)
		flush_work(&vmstat_work[cpu]);
}

/*
 * ---------------------------------------------------------------------
 * Events
 * ---------------------------------------------------------------------
 */

/*
 * The owning CPU is the only writer of its counters, so a relaxed load
 * and store is enough (the kernel's this_cpu_add, not a locked add); the
 * atomic load/store only keeps concurrent readers' views whole.
 */
void __count_vm_events(enum vm_event_item item, long delta)
{
	int cpu = vmstat_cpu();
	unsigned long *p;

	if (cpu < 0 || !vm_event_states) {
		__atomic_fetch_add(&vm_events_nocpu[item], (unsigned long)delta,
				   __ATOMIC_RELAXED);
		return;
	}
	p = &per_cpu_ptr(vm_event_states, cpu)->event[item];
	WRITE_ONCE(*p, READ_ONCE(*p) + (unsigned long)delta);
}

void all_vm_events(unsigned long *ret)
{
	int cpu, i;

	for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
		ret[i] = READ_ONCE(vm_events_nocpu[i]);
	if (!vm_event_states)
		return;
	for (cpu = 0; cpu < vmstat_nr_cpus; cpu++) {
		struct vm_event_state *this = per_cpu_ptr(vm_event_states, cpu);

		for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
			ret[i] += READ_ONCE(this->event[i]);
	}
}

unsigned long sum_vm_event(enum vm_event_item item)
{
	unsigned long sum = READ_ONCE(vm_events_nocpu[item]);
	int cpu;

	if (!vm_event_states)
		return sum;
	for (cpu = 0; cpu < vmstat_nr_cpus; cpu++)
		sum += READ_ONCE(per_cpu_ptr(vm_event_states, cpu)->event[item]);
	return sum;
}

/*
 * ---------------------------------------------------------------------
 * /proc/vmstat
 * ---------------------------------------------------------------------
 */

void vmstat_show(FILE *f)
{
	unsigned long events[NR_VM_EVENT_ITEMS];
	int i;

	for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
		fprintf(f, "%s %lu\n", zone_stat_names[i],
			global_zone_page_state(i));

	for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++) {
		unsigned long v = global_node_page_state(i);

		/* counted in base pages so the LRU sums add up; shown in THPs */
		if (i == NR_ANON_THPS)
			v /= HPAGE_PMD_NR;
		fprintf(f, "%s %lu\n", node_stat_names[i], v);
	}

	all_vm_events(events);
	/* block I/O counts 512-byte sectors; the file has always shown KiB */
	events[PGPGIN] /= 2;
	events[PGPGOUT] /= 2;
	for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
		fprintf(f, "%s %lu\n", vm_event_names[i], events[i]);

	/* gone from the kernel, kept in the file for old parsers */
	fputs("nr_unstable 0\n", f);
}

/*
 * ---------------------------------------------------------------------
 * Setup and teardown
 * ---------------------------------------------------------------------
 */

static void vmstat_free_percpu(void)
{
	int nid, z;

	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (!pgdat)
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			free_percpu(pgdat->node_zones[z].per_cpu_zonestats);
			pgdat->node_zones[z].per_cpu_zonestats = NULL;
		}
		free_percpu(pgdat->per_cpu_nodestats);
		pgdat->per_cpu_nodestats = NULL;
	}
	free_percpu(vm_event_states);
	vm_event_states = NULL;
	vmstat_nr_cpus = 0;
}

/*
 * Rebuild the global counters from the zones and nodes that exist now:
 * whatever was added before vmstat_init() (free pages counted while the
 * allocator was built) is kept, and a previous init/exit cycle's nodes
 * leave nothing behind.
 */
static void vmstat_sum_globals(void)
{
	long zsum[NR_VM_ZONE_STAT_ITEMS] = { 0 };
	long nsum[NR_VM_NODE_STAT_ITEMS] = { 0 };
	int nid, z, i;

	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (!pgdat)
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++)
			for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
				zsum[i] += atomic_long_read(
					&pgdat->node_zones[z].vm_stat[i]);
		for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
			nsum[i] += atomic_long_read(&pgdat->vm_stat[i]);
	}
	for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
		atomic_long_set(&vm_zone_stat[i], zsum[i]);
	for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
		atomic_long_set(&vm_node_stat[i], nsum[i]);
}

int vmstat_init(void)
{
	int nid, z;

	if (nr_cpu_ids < 1)
		return -EINVAL;
	if (vm_event_states)
		return -EBUSY;

	vmstat_nr_cpus = nr_cpu_ids;
	vm_event_states = alloc_percpu(struct vm_event_state);
	if (!vm_event_states)
		goto nomem;
	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (!pgdat)
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &pgdat->node_zones[z];

			zone->per_cpu_zonestats = alloc_percpu(struct per_cpu_zonestat);
			if (!zone->per_cpu_zonestats)
				goto nomem;
		}
		pgdat->per_cpu_nodestats = alloc_percpu(struct per_cpu_nodestat);
		if (!pgdat->per_cpu_nodestats)
			goto nomem;
	}
	vmstat_sum_globals();
	refresh_zone_stat_thresholds();
	return 0;

nomem:
	vmstat_free_percpu();
	return -ENOMEM;
}

/*
 * State counters are folded so that the zone/node counters stay exact for
 * whatever tears down after us (and the next vmstat_init() rebuilds the
 * globals from them).  Event counts describe the run that is ending and
 * belong to no node, so they are dropped with it: a later init starts
 * them from zero.
 */
void vmstat_exit(void)
{
	int i;

	vmstat_refresh();
	vmstat_free_percpu();
	for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
		WRITE_ONCE(vm_events_nocpu[i], 0);
}

void vmstat_reset(void)
{
	int nid, z, cpu, i;

	for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
		atomic_long_set(&vm_zone_stat[i], 0);
	for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
		atomic_long_set(&vm_node_stat[i], 0);
	for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
		WRITE_ONCE(vm_events_nocpu[i], 0);

	for_each_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (!pgdat)
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &pgdat->node_zones[z];

			for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
				atomic_long_set(&zone->vm_stat[i], 0);
			if (!zone->per_cpu_zonestats)
				continue;
			for (cpu = 0; cpu < vmstat_nr_cpus; cpu++) {
				struct per_cpu_zonestat *pz =
					per_cpu_ptr(zone->per_cpu_zonestats, cpu);

				for (i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
					WRITE_ONCE(pz->vm_stat_diff[i], 0);
			}
		}
		for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
			atomic_long_set(&pgdat->vm_stat[i], 0);
		if (!pgdat->per_cpu_nodestats)
			continue;
		for (cpu = 0; cpu < vmstat_nr_cpus; cpu++) {
			struct per_cpu_nodestat *pn =
				per_cpu_ptr(pgdat->per_cpu_nodestats, cpu);

			for (i = 0; i < NR_VM_NODE_STAT_ITEMS; i++)
				WRITE_ONCE(pn->vm_node_stat_diff[i], 0);
		}
	}

	if (!vm_event_states)
		return;
	for (cpu = 0; cpu < vmstat_nr_cpus; cpu++) {
		struct vm_event_state *this = per_cpu_ptr(vm_event_states, cpu);

		for (i = 0; i < NR_VM_EVENT_ITEMS; i++)
			WRITE_ONCE(this->event[i], 0);
	}
}
