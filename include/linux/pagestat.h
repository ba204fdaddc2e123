/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_PAGESTAT_H
#define _LINUX_PAGESTAT_H

#include <linux/errno.h>

struct mm_struct;

/**
 * typedef pagestat_extent_fn - report one extent of pagestat_extents()
 * @start: first address of the extent, page aligned.
 * @end: end of the extent (exclusive), page aligned.
 * @status: status of every page in [@start, @end), as for pagestat_range().
 * @arg: the argument passed to pagestat_extents().
 *
 * Called once per maximal extent of pages with equal status, in address
 * order; consecutive calls cover the walked range without gaps, and two
 * consecutive extents never have the same status.
 *
 * Context: Caller of pagestat_extents() holds mmap_read_lock(); the page
 * table lock of the current table or the hugetlb VMA lock may be held too,
 * so the function must not sleep.
 * Return: 0 to continue the walk, any other value to stop it;
 * pagestat_extents() then returns that value.
 */
typedef int (*pagestat_extent_fn)(unsigned long start, unsigned long end,
				  int status, void *arg);

#ifdef CONFIG_NUMA
int pagestat_range(struct mm_struct *mm, unsigned long start,
		   unsigned long nr_pages, int *status);
int pagestat_extents(struct mm_struct *mm, unsigned long start,
		     unsigned long end, pagestat_extent_fn fn, void *arg);
#else
static inline int pagestat_range(struct mm_struct *mm, unsigned long start,
				 unsigned long nr_pages, int *status)
{
	return -EOPNOTSUPP;
}

static inline int pagestat_extents(struct mm_struct *mm, unsigned long start,
				   unsigned long end, pagestat_extent_fn fn,
				   void *arg)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_NUMA */

#endif /* _LINUX_PAGESTAT_H */
