/* SPDX-License-Identifier: MIT */
/* What mm/mglru_evict.c and mm/mglru_memcg.c share.  Not a public interface. */
#ifndef LRULAB_MM_MGLRU_INTERNAL_H
#define LRULAB_MM_MGLRU_INTERNAL_H

#include <lrulab/mglru.h>
#include <lrulab/vmscan.h>

/* enough reclaimed, or (kswapd) the node is safe again */
bool should_abort_scan(struct lruvec *lruvec, struct scan_control *sc);

#endif /* LRULAB_MM_MGLRU_INTERNAL_H */
