/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_PAGESTAT_H
#define _LINUX_PAGESTAT_H

#include <linux/errno.h>

struct mm_struct;

#ifdef CONFIG_NUMA
int pagestat_range(struct mm_struct *mm, unsigned long start,
		   unsigned long nr_pages, int *status);
#else
static inline int pagestat_range(struct mm_struct *mm, unsigned long start,
				 unsigned long nr_pages, int *status)
{
	return -EOPNOTSUPP;
}
#endif /* CONFIG_NUMA */

#endif /* _LINUX_PAGESTAT_H */
