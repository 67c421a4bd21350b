// SPDX-License-Identifier: MIT
/*
 * Reverse-map bookkeeping of PTE mappings (the kernel's mm/rmap.c), in
 * the model's simplified form:
 *
 * - mapcount lives on the head entry only: folio_mapcount() is the
 *   number of PTEs that map any page of the folio.  The kernel keeps a
 *   mapcount per page plus a folio-wide one; here an anon folio belongs
 *   to one mm (there is no fork), so each of its pages is mapped at most
 *   once and the two agree.  For large folios the second entry's
 *   _nr_pages_mapped tracks the same number, as the kernel's does.
 * - shmem folios are order 0, so "this PTE made the folio mapped" is the
 *   head mapcount going from -1 to 0, exactly the kernel's per-page rule
 *   for NR_FILE_MAPPED.
 * - there is no anon_vma: ->mapping holds the mm itself with
 *   PAGE_MAPPING_ANON, and ->index the virtual page number of the
 *   folio's first page, which is enough to find the PTEs from the folio.
 * - a large anon folio that loses some but not all of its PTEs is
 *   queued for deferred split (mm/huge_memory.c), once: the queue's
 *   PG_partially_mapped says it is there already.
 */
#include <stdio.h>
#include <stdlib.h>

#include <lrulab/mmdebug.h>
#include <lrulab/huge_mm.h>
#include <lrulab/memcontrol.h>
#include <lrulab/mm.h>

static atomic_t *folio_nr_pages_mapped(struct folio *folio)
{
	return &((struct folio_tail1 *)(folio + 1))->_nr_pages_mapped;
}

void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address)
{
	long nr = folio_nr_pages(folio);
	unsigned long anon = (unsigned long)vma->vm_mm | PAGE_MAPPING_ANON;

	/* nobody else can see the folio yet: plain flag updates will do */
	if (!folio_test_swapbacked(folio))
		__folio_set_swapbacked(folio);
	folio->index = vma->vm_pgoff + ((address - vma->vm_start) >> PAGE_SHIFT);
	WRITE_ONCE(folio->mapping, (struct address_space *)anon);
	atomic_set(&folio->_mapcount, (int)nr - 1);
	if (folio_test_large(folio))
		atomic_set(folio_nr_pages_mapped(folio), (int)nr);
	lruvec_stat_mod_folio(folio, NR_ANON_MAPPED, (int)nr);
}

void folio_add_file_rmap_ptes(struct folio *folio, struct folio *page,
			      int nr_pages, struct vm_area_struct *vma)
{
	/* without per-page mapcounts NR_FILE_MAPPED is only exact for small folios */
	VM_BUG_ON_FOLIO(folio_test_large(folio), folio);
	if (atomic_add_return(nr_pages, &folio->_mapcount) == nr_pages - 1)
		lruvec_stat_mod_folio(folio, NR_FILE_MAPPED, 1);
}

void folio_remove_rmap_ptes(struct folio *folio, struct folio *page,
			    int nr_pages, struct vm_area_struct *vma)
{
	int left = atomic_sub_return(nr_pages, &folio->_mapcount);

	VM_BUG_ON_FOLIO(left < -1, folio);
	if (folio_test_anon(folio)) {
		if (folio_test_large(folio) &&
		    atomic_sub_return(nr_pages, folio_nr_pages_mapped(folio)) > 0 &&
		    !folio_test_partially_mapped(folio))
			deferred_split_folio(folio, true);
		lruvec_stat_mod_folio(folio, NR_ANON_MAPPED, -nr_pages);
	} else if (left == -1) {
		lruvec_stat_mod_folio(folio, NR_FILE_MAPPED, -1);
	}
}
