/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_PAGESTAT_H
#define _LINUX_PAGESTAT_H

struct mm_struct;

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

#if IS_ENABLED(CONFIG_KUNIT)
#include <linux/mm_types.h>

/* Two steps of the walk, which lib/kunit-tests/ tests on their own */
void pagestat_fill(struct pagestat_walk *ps, unsigned long addr,
		   unsigned long end, int status);
unsigned long pagestat_none_run(pte_t *ptep, unsigned long nr);
#endif

#endif /* _LINUX_PAGESTAT_H */
