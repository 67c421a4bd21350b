/* SPDX-License-Identifier: MIT */
/*
 * The contention predictor (predict/): what a run on this machine
 * records of its locks, a machine's coherence and lock handoff costs (a
 * profile), and a discrete-event simulation of N CPUs of that machine
 * replaying the recording, with an analytic twin (mean-value analysis)
 * beside it.  See docs and `lrulab predict --help`.
 *
 * Two layers.  This header is the lower one, which needs neither bench/
 * nor the command: the recorder, a consumer of the library's trace
 * events (record.c, record_gather.c, record_file.c), the machine
 * profiles (profile.c), the simulation (engine.c) and the twin (twin.c).
 * Above bench/ sits the command layer (predict-internal.h): from a
 * workload to predicted points and their tables (model.c, pool.c), the
 * commands (predict_cmd.c, machine_calib.c), repro --predict's rows
 * (repro_predict.c) and ab --predict-cpus's (ab_predict.c), usemem's
 * recordings (record_usemem.c) and the hooks
 * that let bench and repro reach it without naming it (record_hooks.c).
 */
#ifndef LRULAB_PREDICT_H
#define LRULAB_PREDICT_H

#include <stdio.h>
#include <lrulab/types.h>
#include <lrulab/spinlock.h>

/* ---- recordings (predict/record.c, predict/record_file.c) ---- */

/* One lock acquisition of one thread, in the order it made them. */
struct pred_op {
	u32 work_ns;		/* since the thread's previous release, to the request */
	u32 hold_ns;		/* request granted to release, clock cost taken off */
	u16 site;		/* index into the recording's sites */
	u16 lock;		/* index into the recording's locks */
};

#define PRED_MAX_LINES	4

/* Who shares a lock when the recorded threads become N CPUs. */
enum pred_scope {
	PRED_SHARED,		/* one lock for every CPU (lru_lock, zone->lock) */
	PRED_PRIVATE,		/* one per CPU or per thread (pcp->lock, a thread's ptl) */
};

struct pred_site {
	char cls[32], caller[48], fn[48];
};

struct pred_lock {
	u8 scope;		/* enum pred_scope */
	u8 nr_lines;
	u16 cls_site;		/* a site that takes it: its class names the lock */
	/*
	 * Shared cache lines a critical section of this lock writes besides
	 * the lock word's own, as dense line ids of the recording.
	 */
	u32 lines[PRED_MAX_LINES];
};

/*
 * Shared cache lines a thread writes outside its locks' lines, where
 * the kernel shares them between CPUs (predict/record.c says why each).
 * How often some happen depends on the CPU count: the engine recomputes
 * their thresholds for N.
 */
enum pred_event_kind {
	PRED_EV_VMSTAT_FOLD,	/* a per-CPU vmstat diff passed stat_threshold */
	PRED_EV_MEMCG_SPILL,	/* a CPU's stats_updates batch added to the memcg's atomic */
	PRED_EV_PAGE_COUNTER,	/* a memcg page_counter's usage charged or uncharged */
	/*
	 * A memcg lruvec stat update read a line of mem_cgroup_per_node (its
	 * read-mostly line, or lruvec->pgdat's): line is the line read, line2
	 * its 128-byte pair partner as the object was placed, arg the partner
	 * it would have had placed 64 bytes the other way (its other
	 * neighbour).  Read, not written: costed only on a machine that
	 * prefetches line pairs.
	 */
	PRED_EV_PAIR_READ,
	/*
	 * The address space's (mm/memory.c's events).  line is the mm's line
	 * as an offset in the mm (every thread of a process shares its mm),
	 * or the VMA's own line for VMA_REFCNT.
	 */
	PRED_EV_MMAP_PREFETCH,	/* a fault's write-intent prefetch of mmap_lock's line */
	PRED_EV_VMA_REFCNT,	/* the per-VMA read lock taken or dropped (one RMW) */
	/* an mm counter changed: arg the pages (signed), counter which one */
	PRED_EV_RSS,
	PRED_EV_TLB_PENDING,	/* a gather began or ended: tlb_flush_pending */
	/* a TLB flush: arg the pages, threshold 1 when tables were freed */
	PRED_EV_TLB_FLUSH,
	PRED_EV_PTE_TABLE,	/* a PTE table allocated or freed: pgtables_bytes */
	PRED_EV_CLEAR,		/* arg bytes of a new page cleared (no line) */
	/*
	 * A read's wait for its device (a swap-in from a disk, a file's
	 * miss): arg the device's latency in ns, which is the device's, not
	 * this machine's CPU time (no line; the recorded work leaves it out)
	 */
	PRED_EV_IO_WAIT,
	/*
	 * Reclaim's TLB flushes (no line).  RMAP_UNMAP: a page's PTE
	 * cleared, arg 1 when dirty (its flush comes before its write, at
	 * once).  TLB_BATCH: the point where the deferred batch is flushed,
	 * whatever it holds.  Whose mm the page is, and so which CPUs the
	 * IPIs interrupt, the engine decides at N.
	 */
	PRED_EV_RMAP_UNMAP,
	PRED_EV_TLB_BATCH,
	NR_PRED_EVENTS,
};

#define PRED_NO_LINE	0xffffffffU

struct pred_event {
	u32 op;			/* the acquisition it sits in (inside) or precedes */
	u32 line;		/* dense line id */
	u32 line2;		/* a second line written with it, or PRED_NO_LINE */
	u32 counter;		/* vmstat: which per-CPU diff folded (dense id), else 0 */
	/*
	 * vmstat: the zone's managed memory in 128 MB units (the node's
	 * largest zone for a node counter); memcg: the updates the batch adds;
	 * pair read: the other placement's partner (dense line id).
	 */
	u32 arg;
	u8 kind;		/* enum pred_event_kind */
	u8 inside;		/* in op's hold, else in the work before op's request */
	u8 threshold;		/* vmstat: the stat_threshold in force */
	u8 step;		/* vmstat: |delta| of each update, 0 for inc/dec (overstep) */
};

struct pred_trace {
	u32 nr;
	struct pred_op *ops;
	u32 nr_events;
	struct pred_event *events;	/* by op, in the order they happened */
};

struct pred_recording {
	char workload[32], type[16], switches[128], machine[160];
	u32 folio_size;
	u32 threads;		/* threads the workload ran with */
	u64 pages;		/* pages the recorded passes faulted and freed */
	double seconds;		/* their wall time */
	double pages_per_sec;	/* the run's own rate */
	u32 clock_cost_ns;	/* taken off each hold */
	u32 overhead_ns;	/* recording's own cost, taken off each work */
	u64 preemptions;	/* works and holds replaced: the thread lost its processor */
	/*
	 * CPU time per page of the same workload run without
	 * recording, just before (0: not measured): the work outside the
	 * locks is scaled so that one CPU replays at that rate.
	 */
	double plain_cpu_ns_per_page;
	u64 flush_period_ns;	/* the memcg stats flusher's period in the run */
	/*
	 * enum lock_impl the run's spinlocks were: what the simulation hands
	 * over as unless told otherwise (format version 2 did not keep it:
	 * qspinlock, every run's default).
	 */
	u8 lock_impl;
	/*
	 * 1: the workload's threads are threads of one process in the runs
	 * predicted (fault-free and mmap-madvise, as the mails' benchmarks
	 * and lrulab host run them), which share the mm: its lines, and a
	 * TLB flush reaches every other CPU; 0: a process each (usemem).
	 */
	u8 one_process;
	u32 nr_lines;
	u32 nr_counters;	/* vmstat counters that folded */
	int nr_sites, nr_locks, nr_traces;
	struct pred_site *sites;
	struct pred_lock *locks;
	struct pred_trace *traces;
};

/*
 * Recording in the lock statistics: while on, every acquisition of every
 * thread is timed (as full statistics) and appended to its thread's
 * trace.  pred_record_start() at a quiescent point, before the run;
 * lockstat_reset() drops what was recorded so far (the warm-up);
 * pred_record_stop() gathers the traces of the threads that ran as model
 * CPUs into @rec, which the caller frees with pred_recording_free().
 * Returns 0 or -ENOMEM.
 */
int pred_record_start(void);
int pred_record_stop(struct pred_recording *rec);
bool pred_recording_active(void);
void pred_recording_free(struct pred_recording *rec);
/*
 * What recording costs per acquisition, outside the critical section,
 * measured on one lock (ns): taken off the recorded work.
 */
u32 pred_record_overhead_ns(void);


/*
 * A workload that runs its own model (usemem) stops the recording itself
 * (pred_record_stop()) once its window ends, and describes the run here:
 * 0, or -1 after one error line (and @rec freed) when it failed or
 * recorded nothing.  @failed: what went wrong, or NULL.
 */
struct pred_run_desc {
	const char *workload, *type;
	unsigned int folio_order;
	long threads;
	unsigned long pages;	/* the workload's unit: pages, or accesses */
	double seconds;
	const bool *switches;	/* NR_LRULAB_SWITCHES, as the run had them */
	enum lock_impl lock;	/* its spinlocks */
	const char *failed;
};
int pred_record_describe(const char *prog, const struct pred_run_desc *d,
			 struct pred_recording *rec);

/* Write @rec to @path (zstd-compressed, versioned); 0 or -1 after one error line. */
int pred_recording_write(const char *prog, const char *path, const struct pred_recording *rec);
/* Read it back; 0 or -1 after one error line naming @path and what is wrong. */
int pred_recording_read(const char *prog, const char *path, struct pred_recording *rec);

/* ---- machine profiles (predict/profile.c) ---- */

enum pred_param {
	PP_XFER_SMT,		/* one-way line transfer between SMT siblings, ns */
	PP_XFER_SOCKET,		/* between cores of one socket */
	PP_XFER_REMOTE,		/* between sockets */
	PP_HANDOFF_QSPIN,	/* qspinlock handoff beyond the line transfer */
	PP_TICKET_SLOPE,	/* ticket: extra handoff per waiter */
	PP_TAS_BETA,		/* test-and-set: handoff x (1 + beta x waiters) */
	PP_FREQ_ONE,		/* MHz with one core busy */
	PP_FREQ_ALL,		/* MHz with every core busy */
	PP_SMT_SPEED,		/* a thread's speed when its sibling is busy */
	PP_CORE_SPEED,		/* one core's speed over the recording machine's */
	PP_PAIR_PREFETCH,	/* 1: a miss also fetches the other line of its 128-byte pair */
	/*
	 * Optional (a profile without them leaves the mechanism out and the
	 * output says so): a socket's DRAM bandwidth, GB/s, which page
	 * clearing draws on; a TLB flush IPI's time on its target (entry,
	 * flush, exit), ns, besides the line transfers of the IPI round; a
	 * locked read-modify-write (lock cmpxchg) on a line the core already
	 * holds, ns, which an aging pass pays per young PTE and folio.
	 */
	PP_MEM_BW_SOCKET,
	PP_IPI_TARGET,
	PP_LOCKED_RMW,
	/*
	 * 1: a store's miss takes the other line of its 128-byte pair as its
	 * own too (the pair prefetcher completing an RFO), dropping the other
	 * CPUs' copies of it; absent: 0
	 */
	PP_PAIR_RFO,
	/*
	 * Optional: the flusher's time to send a TLB flush IPI to one target
	 * (the APIC write; in a guest without IPI virtualisation, a VM exit),
	 * ns, besides the round's line transfers
	 */
	PP_IPI_SEND,
	NR_PRED_PARAMS,
};

/* the first optional one */
#define PP_FIRST_OPTIONAL PP_MEM_BW_SOCKET

struct pred_value {
	double v, lo, hi;
	bool given;
	char source[400];	/* fits a profile line (at most 510 bytes) with its key and values */
};

enum pred_cpu_order {
	PRED_ORDER_SMT_LAST,	/* Intel servers: every core once, then the siblings */
	PRED_ORDER_SMT_ADJACENT,/* siblings numbered next to each other */
	PRED_ORDER_SOCKET_RR,	/* sockets take turns (round-robin MADT), siblings last */
};

struct pred_profile {
	char name[64], description[200];
	int sockets, cores_per_socket, threads_per_core;
	enum pred_cpu_order order;
	struct pred_value p[NR_PRED_PARAMS];
};

const char *pred_param_name(enum pred_param p);
const char *pred_cpu_order_name(enum pred_cpu_order o);
/* 0, or -1 after one error line naming @path, the line and what is wrong. */
int pred_profile_read(const char *prog, const char *path, struct pred_profile *pf);
/* @pf as the text format pred_profile_read() reads */
void pred_profile_write(FILE *f, const struct pred_profile *pf);
int pred_profile_cpus(const struct pred_profile *pf);
/*
 * @path as given when it names a file, else profiles/@path(.profile) in
 * the working directory or beside the source tree the binary was built
 * in: into @buf; 0, or -1 when none exists.
 */
int pred_profile_find(const char *path, char *buf, size_t len);

/* ---- the engine (predict/engine.c) ---- */

/* Where each of N CPUs sits (from a profile's topology). */
struct pred_cpu {
	int socket, core, thread;
};

/* Costs the simulation uses: one draw of a profile's values. */
struct pred_costs {
	double xfer_smt, xfer_socket, xfer_remote;
	double handoff_qspin, ticket_slope, tas_beta;
	double work_scale;	/* multiplies work outside locks */
	double hold_scale;	/* multiplies recorded holds */
	/*
	 * Per lock of the recording (NULL: 1 each): multiplies its recorded
	 * holds besides hold_scale, where the kernel's hold is not lrulab's
	 * (the kernel/lrulab ratio lrulab host fault-free --perf-hold
	 * measures at one thread).
	 */
	const double *lock_hold_scale;
	double smt_speed;	/* work and holds of a CPU whose sibling is busy */
	bool pair_prefetch;	/* a read's miss also fetches its line's 128-byte partner */
	bool pair_rfo;		/* a write's miss also takes the partner, other copies dropped */
	double mem_bw;		/* a socket's DRAM bandwidth, bytes per ns; 0: not costed */
	double ipi_target_ns;	/* a TLB flush IPI's handler time on its target */
	double ipi_send_ns;	/* the flusher's time to send it to one target */
};

/* An acquisition's source: the recording, or a generator (tests). */
struct pred_source {
	/* fill *@op with CPU @cpu's next acquisition */
	void (*next)(struct pred_source *s, int cpu, struct pred_op *op);
	/* the events of the op next() gave @cpu last, in *@ev; NULL: none */
	u32 (*events)(struct pred_source *s, int cpu, const struct pred_event **ev);
	void *arg;
};

struct pred_sim_opts {
	int cpus;
	/*
	 * The CPUs the target has online (0: cpus), which set the kernel's
	 * batch thresholds whatever runs: 20 threads on an 80-CPU machine
	 * fold as 80 online CPUs make them.
	 */
	int online;
	enum lock_impl impl;
	const struct pred_costs *costs;
	const struct pred_cpu *topo;	/* cpus entries; NULL: one socket, no SMT */
	int nr_locks;
	const struct pred_lock *locks;	/* scope and lines; NULL: all shared, no lines */
	int nr_sites;
	u32 nr_lines;
	u32 nr_counters;		/* events' vmstat counters */
	u64 acquisitions;		/* simulated in all, after the warm-up */
	u64 warmup;			/* simulated first and not counted */
	u64 seed;
	u64 flush_period_ns;		/* memcg stats flushes; 0: FLUSH_TIME */
	/*
	 * Pair reads take the partner the other placement of their object
	 * would have had (arg), not the recorded one (line2).
	 */
	bool other_placement;
	/* the CPUs are threads of one process (pred_recording.one_process) */
	bool one_process;
	/* what-if: every thread faults one VMA, whose refcount line they share */
	bool shared_vma;
	/*
	 * The kernel keeps one per NUMA node (a socket of topo is a node):
	 * per lock (nr_locks entries) and per line (nr_lines + 1), 1 for a
	 * lock or line of a per-node object (a memcg's lruvec and its
	 * mem_cgroup_per_node, a zone, a pgdat); NULL: none.  A CPU takes
	 * its own node's, as a thread pinned there faults and frees memory
	 * of its node.
	 */
	const u8 *lock_node, *line_node;
	/*
	 * Per line (nr_lines + 1), the line a pair read reads beside it in
	 * this placement, where a read's partner is that line, else
	 * PRED_NO_LINE; NULL: none.  A write that takes a line takes this
	 * one too on a pair_rfo profile.
	 */
	const u32 *line_partner;
	struct pred_source *src;
};

struct pred_site_stat {
	u64 acquired, contended;
	double wait_total, wait_max, wait_min, hold_total;
};

struct pred_lock_stat {
	u64 acquired;
	double busy;		/* time held */
	double area;		/* integral of (holder + waiters) over time */
	double resp_total;	/* sum of wait + hold */
};

struct pred_result {
	double elapsed_ns;		/* of the counted part */
	u64 acquisitions;
	double acq_per_sec;
	/* per CPU: counted acquisitions and the span from its first to its last release */
	double x_steady;		/* sum over CPUs of (releases - 1) / span */
	double wait_total;
	struct pred_site_stat *sites;	/* nr_sites */
	int nr_locks;			/* instances: shared locks once, private ones per CPU */
	struct pred_lock_stat *locks;
	u64 events;
	/* recorded events met, and those that wrote their line at this N */
	u64 ev_seen[NR_PRED_EVENTS], ev_kept[NR_PRED_EVENTS];
	u64 ev_xfers;			/* of those, the writes and reads that fetched a line */
	double ev_xfer_ns;		/* their transfers, holds and works together */
	/* writes of a line another CPU had read: the invalidations, and their time */
	u64 invalidations;
	double inval_ns;
	/* reads of a line a holder's section writes, in the section: its stalls getting it back */
	u64 steals;
	double steal_ns;
	/* transfers that waited for a line busy with another's: the waits */
	double line_wait_ns;
	/*
	 * The time each event kind added to the CPUs at this N (transfers,
	 * line waits, IPI rounds on the flusher and on their targets,
	 * bandwidth waits), and of it the targets' IPI time and the
	 * clearing's waits for its socket's memory.
	 */
	double ev_ns[NR_PRED_EVENTS];
	u64 ipis;
	double ipi_target_ns, bw_wait_ns;
};

/*
 * A lock's handoff by implementation, from a release to the next grant
 * with @k waiters queued at the release and a line transfer of @x between
 * the releaser and the next holder: qspinlock x + handoff_qspin, ticket
 * x + ticket_slope k, test-and-set (and pthread spin) x (1 + tas_beta k).
 */
double pred_handoff(enum lock_impl impl, const struct pred_costs *c, double x, double k);
/* 0, or -EINVAL/-ENOMEM; free @r with pred_result_free(). */
int pred_simulate(const struct pred_sim_opts *o, struct pred_result *r);
void pred_result_free(struct pred_result *r);
/*
 * Updates between two folds of a per-CPU vmstat diff under @threshold
 * that moves one way by @step (0: inc/dec, which overstep by half).
 */
u32 pred_fold_interval(int threshold, int step);
/* CPU @i of @pf's numbering */
void pred_topology(const struct pred_profile *pf, int cpus, struct pred_cpu *out);

/* ---- the analytic twin (predict/twin.c) ---- */

/*
 * Exact mean-value analysis of a closed network: @n customers, a delay
 * station of mean @z, and @k queueing stations of demand d[i] (visits x
 * service) per cycle.  Returns the throughput in cycles per unit time;
 * @resp, when not NULL, gets each station's residence time per cycle.
 */
double pred_mva(int n, double z, int k, const double *d, double *resp);
/*
 * The machine-repairman closed form (M/M/1//N): throughput and the mean
 * wait in queue for N sources of mean think @z and mean service @s.
 */
void pred_repairman(int n, double z, double s, double *x, double *wait);
/*
 * One lock of implementation @impl as Boyd-Wickizer et al.'s birth-death
 * chain ("Non-scalable locks are dangerous", 2012) over k, the CPUs
 * holding or waiting: arrivals (n - k)/@z, and in state k a grant every
 * @s plus the handoff pred_handoff() gives with the k - 1 waiters left at
 * the release and a transfer of @x (none in state 1: nobody waits).
 * Throughput in acquisitions per unit time, and the mean wait in queue
 * (Little: N/X - Z - S), into *@x_out and *@wait.  Zero handoff costs
 * make it the machine-repairman closed form; @z = 0 the saturated lock,
 * 1/(s + handoff(n - 1)), as the simulation gives it.
 */
void pred_lock_chain(int n, double z, double s, enum lock_impl impl,
		     const struct pred_costs *c, double x, double *x_out, double *wait);

#endif /* LRULAB_PREDICT_H */
