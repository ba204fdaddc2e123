/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_PAGESTAT_H
#define _LINUX_PAGESTAT_H

struct mm_struct;

/* Built with CONFIG_NUMA and CONFIG_MIGRATION, for move_pages(2) */
int pagestat_range(struct mm_struct *mm, unsigned long start,
		   unsigned long nr_pages, int *status);

#endif /* _LINUX_PAGESTAT_H */
