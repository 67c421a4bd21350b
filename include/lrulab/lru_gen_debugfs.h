/* SPDX-License-Identifier: MIT */
/*
 * /sys/kernel/debug/lru_gen and lru_gen_full as library functions
 * (mm/mglru_debugfs.c), in the v7.2 formats: reading prints every memcg
 * (mem_cgroup_iter order) and node with its generations, the full file
 * also the tiers and the walk statistics; writing runs "+" (age) and
 * "-" (evict) commands.  lrulab has one memcg id namespace, so the
 * "memcg" lines print, and the commands take, memcg->id where v7.2 has
 * the cgroup id.
 */
#ifndef LRULAB_LRU_GEN_DEBUGFS_H
#define LRULAB_LRU_GEN_DEBUGFS_H

#include <stdio.h>
#include <sys/types.h>
#include <lrulab/types.h>

/* cat lru_gen (@full false) or lru_gen_full (@full true) into @f. */
void lru_gen_seq_show(FILE *f, bool full);
/* The same with ages computed against @now (lru_gen's clock), for exact tests. */
void lru_gen_seq_show_at(FILE *f, bool full, unsigned long now);

/*
 * echo @buf >lru_gen: @len bytes of commands separated by ',', ';' or
 * newlines, each "+ MEMCG_ID NODE_ID MAX_GEN [SWAPPINESS [FORCE_SCAN]]"
 * or "- MEMCG_ID NODE_ID MIN_GEN [SWAPPINESS [NR_TO_RECLAIM]]", run in
 * order.  Returns @len, or the first command's error as the kernel's
 * write(2) would (-EINVAL, -EEXIST, -EINTR, -ERANGE, -ENOMEM); commands
 * before it keep their effect, the failing one changes nothing.  Runs
 * as a model CPU's thread (the aging takes RCU read sections).
 */
ssize_t lru_gen_seq_write(const char *buf, size_t len);

/*
 * --show lru_gen|lru_gen_full of every bench: 0 and *@full set, or
 * -EINVAL for another name.
 */
int lru_gen_show_parse(const char *name, bool *full);

#endif /* LRULAB_LRU_GEN_DEBUGFS_H */
