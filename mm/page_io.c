// SPDX-License-Identifier: MIT
/*
 * Storing and loading a slot's page (the zram side of the kernel's
 * mm/page_io.c): swap_writeout() for reclaim, swap_read_folio() for
 * swap-in.  The device and its slots are in mm/swapfile.c.
 *
 * Storing a page costs what zram's does: a same-filled page (the common
 * zero page) is kept as its fill value, anything else is compressed with
 * zstd (or copied, in SWAP_STORE_COPY mode) into a buffer of its own.
 * The work runs outside every lock, on the reclaiming CPU.
 *
 * Lock order: as in mm/swapfile.c's header.  Here a cluster's lock is
 * taken alone, only to set or read the slot's data.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include <lrulab/memcontrol.h>
#include <lrulab/vmstat.h>

#include "swap-internal.h"

/*
 * zstd contexts per model CPU, as zram keeps a compression stream per
 * CPU: creating one per page would cost more than compressing it.  A
 * model CPU is one thread at a time, so its contexts need no lock.
 */
static ZSTD_CCtx *swap_cctx[LRULAB_MAX_CPUS];
static ZSTD_DCtx *swap_dctx[LRULAB_MAX_CPUS];

void swap_free_contexts(void)
{
	int cpu;

	for (cpu = 0; cpu < LRULAB_MAX_CPUS; cpu++) {
		ZSTD_freeCCtx(swap_cctx[cpu]);
		ZSTD_freeDCtx(swap_dctx[cpu]);
		swap_cctx[cpu] = NULL;
		swap_dctx[cpu] = NULL;
	}
}

static size_t swap_compress(void *dst, size_t cap, const void *src)
{
	int cpu = smp_processor_id();

	if (cpu < 0)
		return ZSTD_compress(dst, cap, src, PAGE_SIZE, 1);
	if (!swap_cctx[cpu])
		swap_cctx[cpu] = ZSTD_createCCtx();
	if (!swap_cctx[cpu])
		return ZSTD_compress(dst, cap, src, PAGE_SIZE, 1);
	return ZSTD_compressCCtx(swap_cctx[cpu], dst, cap, src, PAGE_SIZE, 1);
}

static size_t swap_decompress(void *dst, const void *src, size_t len)
{
	int cpu = smp_processor_id();

	if (cpu < 0)
		return ZSTD_decompress(dst, PAGE_SIZE, src, len);
	if (!swap_dctx[cpu])
		swap_dctx[cpu] = ZSTD_createDCtx();
	if (!swap_dctx[cpu])
		return ZSTD_decompress(dst, PAGE_SIZE, src, len);
	return ZSTD_decompressDCtx(swap_dctx[cpu], dst, PAGE_SIZE, src, len);
}

static bool page_same_filled(const unsigned long *p, unsigned long *fill)
{
	size_t i;

	for (i = 1; i < PAGE_SIZE / sizeof(long); i++)
		if (p[i] != p[0])
			return false;
	*fill = p[0];
	return true;
}

/*
 * The folio is locked, unmapped and in the swap cache.  Its memory is
 * first copied word by word with atomic loads: an access that went
 * through a PTE just before try_to_unmap() cleared it (what a TLB
 * shootdown waits for in the kernel) may still be storing to it, and the
 * copy, not the page, is what gets stored.
 */
void swap_writeout(struct folio *folio)
{
	const unsigned long *src = folio_address(folio);
	swp_entry_t entry = folio_swap_entry(folio);
	struct swap_slot *s = slot_of(entry);
	unsigned long page[PAGE_SIZE / sizeof(long)];
	struct swap_cluster_info *ci;
	void *data = NULL, *old;
	unsigned long fill = 0;
	size_t len = 0, i;

	for (i = 0; i < PAGE_SIZE / sizeof(long); i++)
		page[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	if (!page_same_filled(page, &fill)) {
		if (swap_info.mode == SWAP_STORE_ZSTD) {
			char buf[ZSTD_COMPRESSBOUND(PAGE_SIZE)];

			len = swap_compress(buf, sizeof(buf), page);
			if (ZSTD_isError(len) || len >= PAGE_SIZE) {
				len = PAGE_SIZE;	/* incompressible: stored as is */
				data = malloc(len);
				if (data)
					memcpy(data, page, len);
			} else {
				data = malloc(len);
				if (data)
					memcpy(data, buf, len);
			}
		} else {
			len = PAGE_SIZE;
			data = malloc(len);
			if (data)
				memcpy(data, page, len);
		}
		if (!data) {
			fprintf(stderr, "lrulab: swap_writeout: out of memory\n");
			abort();
		}
	}
	ci = lock_cluster(entry.val);
	old = s->data;
	s->data = data;
	s->len = (unsigned int)len;
	s->fill = fill;
	unlock_cluster(ci);
	free(old);
	count_vm_event(PSWPOUT);
	count_memcg_folio_events(folio, PSWPOUT, 1);
}

/*
 * Fill a new, locked folio, cached for @entry, from its slot.  The data
 * is read outside the lock: while the folio is cached and locked the
 * slot is neither freed nor rewritten (both need the folio or an empty
 * cache).
 */
void swap_read_folio(struct folio *folio, swp_entry_t entry)
{
	unsigned long *dst = folio_address(folio), fill;
	struct swap_slot *s = slot_of(entry);
	struct swap_cluster_info *ci;
	unsigned int len;
	void *data;
	size_t i;

	ci = lock_cluster(entry.val);
	data = s->data;
	len = s->len;
	fill = s->fill;
	unlock_cluster(ci);
	if (!data) {
		for (i = 0; i < PAGE_SIZE / sizeof(long); i++)
			dst[i] = fill;
	} else if (len == PAGE_SIZE) {
		memcpy(dst, data, PAGE_SIZE);
	} else if (ZSTD_isError(swap_decompress(dst, data, len))) {
		fprintf(stderr, "lrulab: swap slot %lu does not decompress\n", entry.val);
		abort();
	}
	count_vm_event(PSWPIN);
	count_memcg_folio_events(folio, PSWPIN, 1);
}
