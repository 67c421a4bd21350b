// SPDX-License-Identifier: MIT
/*
 * The lru_gen write path (mm/mglru_debugfs.c) with the invariant checker
 * run after every write.  A fresh model per input: MGLRU with every cap,
 * swap on, memcg "fz" (id 2) with 512 anon pages mapped and 256 pages of
 * a regular file read.  Each line of the input is one write(2) of
 * lru_gen (',' and ';' still separate commands inside it); before each,
 * every anon page is touched again (so the walker has young bits to
 * find) and every file page read.  After each, the model must be
 * consistent: lrulab_check_invariants() finds nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lrulab/lrulab.h>
#include <lrulab/lru_gen_debugfs.h>
#include <lrulab/mglru.h>
#include <lrulab/swap_state.h>

#include "fuzz.h"

#define ANON_PAGES 512UL
#define FILE_PAGES 256UL
#define MAX_WRITES 16

static void touch(struct vm_area_struct *vma, struct address_space *file,
		  struct mem_cgroup *memcg)
{
	unsigned long p;

	for (p = 0; p < ANON_PAGES; p++)
		if (mm_access(vma, vma->vm_start + p * PAGE_SIZE, true))
			fuzz_fail("anon page %lu: fault failed", p);
	for (p = 0; p < FILE_PAGES; p++)
		file_read_page(file, p, memcg, NULL);
	lru_add_drain();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lrulab_config cfg = LRULAB_CONFIG_DEFAULT;
	struct address_space *file;
	struct mem_cgroup *memcg;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	size_t off = 0;
	int writes = 0, bad;

	cfg.nr_cpus = 1;
	cfg.node_pages = 4096;
	cfg.lru_gen = LRU_GEN_CAPS_ALL;
	if (lrulab_init(&cfg) || cpu_enter(0, false))
		fuzz_fail("lrulab_init failed");
	memcg = mem_cgroup_create(root_mem_cgroup, "fz");
	if (!memcg || swapon(4096, SWAP_STORE_COPY))
		fuzz_fail("setup failed");
	mm = mm_alloc(memcg);
	vma = mm ? mmap_anon(mm, ANON_PAGES * PAGE_SIZE, 0) : NULL;
	file = file_setup(FILE_PAGES);
	if (!vma || !file)
		fuzz_fail("setup failed");
	while (off < size && writes++ < MAX_WRITES) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t len = nl ? (size_t)(nl - (data + off)) : size - off;
		ssize_t ret;

		touch(vma, file, memcg);
		ret = lru_gen_seq_write((const char *)data + off, len);
		if (ret >= 0 && (size_t)ret != len)
			fuzz_fail("write of %zu bytes returned %zd", len, ret);
		bad = lrulab_check_invariants(true, stderr);
		if (bad)
			fuzz_fail("write %d ('%.*s'): %d invariant violations", writes,
				  (int)len, (const char *)data + off, bad);
		off += len + (nl != NULL);
	}
	mmput(mm);
	file_free(file);
	swapoff();
	mem_cgroup_offline(memcg);
	cpu_exit();
	lrulab_exit();
	return 0;
}
