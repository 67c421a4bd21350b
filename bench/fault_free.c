// SPDX-License-Identifier: MIT
/*
 * `lrulab bench fault-free`: the workload of the s0 and s3 mails.  Every
 * thread, pinned to its CPU and charged to the run's one memcg, faults in
 * all of its memory and frees it again, over and over: a shmem file per
 * thread whose hole is punched after each pass, or a private anonymous
 * region that is zapped.  All threads share one lruvec, so the adds
 * (folio_batch_move_lru) and the frees (folios_put_refs) of every thread
 * meet on one lru_lock, which is what both mails measure.
 */
#include <errno.h>

#include "bench/bench.h"

static void fault_free_defaults(struct bench_opts *o)
{
	o->shmem = true;
	/* the mails average over 7 freshly created memcgs per run */
	o->memcgs = 7;
}

/*
 * The thread's range in the process's mm: a shmem file's mapping, a VMA
 * of its own (another file's mapping never merges), or an anonymous
 * range, which merges with the other threads' into one VMA as the
 * kernel's would: they are mapped one after another before the start
 * barrier, each PMD-aligned and adjacent to the last.
 */
static int fault_free_setup(struct bench_thread *t)
{
	unsigned long len = t->pages * PAGE_SIZE;

	if (t->o->shmem) {
		t->mapping = shmem_file_setup(t->pages, 0);
		if (!t->mapping)
			return -errno;
		t->vma = mmap_shmem(t->mm, t->mapping, 0, len);
		if (!t->vma)
			return -errno;
		t->start = t->vma->vm_start;
		return 0;
	}
	t->start = do_mmap_anon(t->mm, len, t->o->folio_order);
	if (!t->start)
		return -errno;
	t->vma = find_vma(t->mm, t->start);
	return bench_vma_guard(t);
}

/*
 * A fault that fails is the run's failure: no pass is counted half done.
 * The end of the run is: the pages faulted by then count.
 */
static int fault_every_page(struct bench_thread *t)
{
	unsigned long i, start = t->start;

	for (i = 0; i < t->pages; i++) {
		vm_fault_t ret;

		if (__atomic_load_n(t->stop, __ATOMIC_RELAXED))
			break;
		ret = mm_access(t->vma, start + i * PAGE_SIZE, true);
		if (ret)
			return ret & VM_FAULT_OOM ? -ENOMEM : -EFAULT;
	}
	t->done = i;
	return 0;
}

static int fault_free_pass(struct bench_thread *t)
{
	int err = fault_every_page(t);

	/*
	 * Free even after a failed pass, so the teardown and the invariant
	 * check see what a finished pass leaves.  The hole punch unmaps the
	 * file from the VMA first, as fallocate(PUNCH_HOLE) does.
	 */
	if (t->mapping)
		shmem_punch_hole(t->mapping, 0, t->pages - 1);
	else
		madvise_dontneed_single_vma(t->vma, t->start, t->pages * PAGE_SIZE);
	return err;
}

/* The mm goes with the process's last thread (bench_common.c). */
static void fault_free_teardown(struct bench_thread *t)
{
	if (t->mapping) {
		if (t->vma)
			munmap_vma(t->vma);
		shmem_file_free(t->mapping);
	}
	t->mm = NULL;
	t->vma = NULL;
	t->mapping = NULL;
}

const struct bench_workload fault_free_workload = {
	.name = "fault-free",
	.summary = "Threads pinned to CPUs, all in one fresh memcg, fault in and free their\n"
		   "memory over and over: a shmem file per thread whose hole is punched, or an\n"
		   "anonymous region that is zapped (s0, s3).  --memcgs fresh memcgs run one\n"
		   "after the other and pages/s is their mean, as in the mails.",
	.opts = BENCH_OPT_TYPE | BENCH_OPT_VMA,
	.defaults = fault_free_defaults,
	.setup = fault_free_setup,
	.pass = fault_free_pass,
	.teardown = fault_free_teardown,
};
