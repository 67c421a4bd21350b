/* SPDX-License-Identifier: MIT */
/*
 * What mm/memcontrol.c, mm/memcg_charge.c and mm/memcg_stats.c share and
 * nothing outside them may use, as mm/internal.h is to the kernel's mm.
 * The lock order is in mm/memcontrol.c's header.
 */
#ifndef LRULAB_MM_MEMCONTROL_INTERNAL_H
#define LRULAB_MM_MEMCONTROL_INTERNAL_H

#include <pthread.h>
#include <lrulab/memcontrol.h>

/* memcontrol.c */
extern pthread_mutex_t memcg_tree_lock;
void memcg_warn(const char *fmt, const char *name);
void css_put_many(struct mem_cgroup *memcg, long nr);

/* memcg_charge.c */
int memcg_stock_init(void);
void memcg_stock_free(void);
void drain_all_stock_memcg(struct mem_cgroup *root);

/* memcg_stats.c */
extern u64 flush_last_time;
void __mem_cgroup_flush_stats(struct mem_cgroup *memcg, bool force);
void memcg_flush_dying(struct mem_cgroup *memcg);

#endif /* LRULAB_MM_MEMCONTROL_INTERNAL_H */
