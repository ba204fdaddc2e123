/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_PAGESTAT_H
#define _LINUX_PAGESTAT_H

#include <linux/mm.h>
#include <linux/pagewalk.h>

/* A consumer of pagestat_walk(); pagestat_range()'s has no ->run */
struct pagestat_walk {
	void (*run)(struct pagestat_walk *ps, unsigned long addr,
		    unsigned long nr_pages, int status);
	unsigned long start;	/* first page of the range */
	int *status;		/* units: one int per page from start on */
};

/* Built with CONFIG_NUMA_MIGRATION, for move_pages(2) and DAMON */
int pagestat_walk(struct mm_struct *mm, unsigned long start,
		  unsigned long end, struct pagestat_walk *ps);
int pagestat_range(struct mm_struct *mm, unsigned long start,
		   unsigned long nr_pages, int *status);

/**
 * pagestat_page - find the node of one page
 * @vma: the VMA that contains @addr.
 * @addr: the address to look at.
 *
 * Look @addr up from the top of the page tables, as move_pages(2) did for
 * each address before pagestat_range().
 *
 * Context: Caller holds the mmap_lock of @vma's mm.
 * Return: the status pagestat_range() reports for @addr.
 */
static inline int pagestat_page(struct vm_area_struct *vma, unsigned long addr)
{
	/* Written by folio_walk_start() before it is read */
	struct folio_walk fw __uninitialized;
	struct folio *folio;
	int err = -ENOENT;

	folio = folio_walk_start(&fw, vma, addr, FW_ZEROPAGE);
	if (folio) {
		if (is_zero_folio(folio) || is_huge_zero_folio(folio))
			err = -EFAULT;
		else if (folio_is_zone_device(folio))
			err = -ENOENT;
		else
			err = folio_nid(folio);
		folio_walk_end(&fw, vma);
	}
	return err;
}

#if IS_ENABLED(CONFIG_KUNIT)

/* Two steps of the walk, which lib/kunit-tests/ tests on their own */
void pagestat_fill(struct pagestat_walk *ps, unsigned long addr,
		   unsigned long end, int status);
unsigned long pagestat_none_run(pte_t *ptep, unsigned long nr);
#endif

#endif /* _LINUX_PAGESTAT_H */
