/* SPDX-License-Identifier: MIT */
/*
 * The kernel's mm assertions (include/linux/mmdebug.h): VM_BUG_ON() and
 * VM_BUG_ON_FOLIO() stop the program where an mm invariant is broken,
 * the latter after dumping the folio.  In the kernel they are compiled
 * in with CONFIG_DEBUG_VM only; the model is a debugging tool, so here
 * they always are.
 */
#ifndef LRULAB_MMDEBUG_H
#define LRULAB_MMDEBUG_H

#include <lrulab/types.h>

struct folio;

/* "folio: pfn:... refcount:... mapcount:... mapping:... memcg_data:... flags:..." and why */
void dump_folio(const struct folio *folio, const char *reason);
void __attribute__((noreturn, cold)) mm_bug(const char *file, int line, const char *cond);

#define VM_BUG_ON(cond) do {						\
	if (unlikely(cond))						\
		mm_bug(__FILE__, __LINE__, "VM_BUG_ON(" #cond ")");	\
} while (0)

#define VM_BUG_ON_FOLIO(cond, folio) do {					\
	if (unlikely(cond)) {							\
		dump_folio((folio), "VM_BUG_ON_FOLIO(" #cond ")");		\
		mm_bug(__FILE__, __LINE__, "VM_BUG_ON_FOLIO(" #cond ")");	\
	}									\
} while (0)

#endif /* LRULAB_MMDEBUG_H */
