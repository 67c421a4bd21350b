/* SPDX-License-Identifier: MIT */
/* lrulab: the whole model, set up and torn down as one system. */
#ifndef LRULAB_H
#define LRULAB_H

#include <lrulab/types.h>
#include <lrulab/cpu.h>
#include <lrulab/spinlock.h>
#include <lrulab/mm_types.h>
#include <lrulab/mmzone.h>
#include <lrulab/gfp.h>
#include <lrulab/vmstat.h>
#include <lrulab/memcontrol.h>
#include <lrulab/swap.h>
#include <lrulab/mm.h>
#include <lrulab/pagemap.h>

struct lrulab_config {
	int nr_cpus;			/* model CPUs */
	int nr_nodes;
	unsigned long node_pages;	/* arena pages per node */
	enum lock_impl lock;
	bool lockstat;
};

#define LRULAB_CONFIG_DEFAULT {				\
	.nr_cpus = 4, .nr_nodes = 1, .node_pages = 16384,	\
	.lock = LOCK_QSPINLOCK, .lockstat = true }

/* 0 or -errno; one system per process at a time. */
int lrulab_init(const struct lrulab_config *cfg);
void lrulab_exit(void);

/*
 * Invariant checker (mm/debug.c).  Call at a quiescent point: no thread
 * is inside the model.  With @settle it first drains every CPU's batches
 * and flushes vmstat and memcg stats, so that stats must equal list
 * lengths exactly.  Returns the number of violations, each printed to
 * @out (may be NULL).
 */
int lrulab_check_invariants(bool settle, FILE *out);

#endif /* LRULAB_H */
