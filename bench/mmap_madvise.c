// SPDX-License-Identifier: MIT
/*
 * `lrulab bench mmap-madvise`: the microbenchmark of the s4 mail.  Each
 * thread maps a private anonymous region (16 MiB), writes one byte to
 * every 4 KiB page, throws the memory away with MADV_DONTNEED and starts
 * again, LOOP_COUNT times, then unmaps.  With mTHP each write to a fresh
 * folio faults in --folio-size at once, which is what makes the
 * per-folio lru_lock acquisition (no per-CPU LRU cache for large folios)
 * the bottleneck that the s4 patch removes.  Reported like the mail:
 * `time` (real, user, sys) and `perf lock report`.
 */
#include <errno.h>

#include "bench/bench.h"

static void mmap_madvise_defaults(struct bench_opts *o)
{
	o->shmem = false;
	/*
	 * The mail does not name its mTHP size; its 21.4M lru_lock
	 * acquisitions for 20 threads x 1000 loops x 4096 pages, one per
	 * four pages, say 16K.
	 */
	o->folio_order = 2;
	/* the mail's LOOP_COUNT is 1000; a tenth keeps a run in seconds */
	o->loops = 100;
	o->memcgs = 1;
}

/*
 * mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS)
 * in the process's mm: the threads' ranges are adjacent and merge into
 * one VMA, as on the kernel (each is a multiple of PMD_SIZE, which
 * thp_get_unmapped_area() places next to the last one top-down).
 */
static int mmap_madvise_setup(struct bench_thread *t)
{
	t->start = do_mmap_anon(t->mm, t->pages * PAGE_SIZE, t->o->folio_order);
	if (!t->start)
		return -errno;
	t->vma = find_vma(t->mm, t->start);
	return bench_vma_guard(t);
}

static int mmap_madvise_pass(struct bench_thread *t)
{
	unsigned long j, addr = t->start, size = t->pages * PAGE_SIZE;
	int err = 0;

	/* *(unsigned char *)(addr + j) = 0x55 for every page, until the run ends */
	for (j = 0; j < size; j += PAGE_SIZE) {
		vm_fault_t ret;

		if (__atomic_load_n(t->stop, __ATOMIC_RELAXED))
			break;
		ret = mm_access(t->vma, addr + j, true);
		if (ret) {
			err = ret & VM_FAULT_OOM ? -ENOMEM : -EFAULT;
			break;
		}
	}
	t->done = j / PAGE_SIZE;
	/* madvise(addr, MEM_SIZE, MADV_DONTNEED) */
	madvise_dontneed_single_vma(t->vma, addr, size);
	return err;
}

/*
 * munmap(addr, MEM_SIZE): the range's zap (the kernel would split the
 * VMA around it; nothing faults there again); the VMA goes with the
 * process's exit, by its last thread (bench_common.c).
 */
static void mmap_madvise_teardown(struct bench_thread *t)
{
	if (t->vma)
		zap_page_range_single(t->vma, t->start, t->pages * PAGE_SIZE);
	t->vma = NULL;
	t->mm = NULL;
}

const struct bench_workload mmap_madvise_workload = {
	.name = "mmap-madvise",
	.summary = "The s4 mail's microbenchmark: each thread maps 16 MiB of anonymous memory,\n"
		   "writes every page, drops it with MADV_DONTNEED, --loops times (the mail's\n"
		   "LOOP_COUNT), with --folio-size mTHP folios (16K by default).",
	.report_time = true,
	.opts = BENCH_OPT_VMA,
	.defaults = mmap_madvise_defaults,
	.setup = mmap_madvise_setup,
	.pass = mmap_madvise_pass,
	.teardown = mmap_madvise_teardown,
};
