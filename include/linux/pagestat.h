/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_PAGESTAT_H
#define _LINUX_PAGESTAT_H

#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/types.h>

struct mm_struct;

/* pagestat_span.status of a span whose statuses are in the status array */
#define PAGESTAT_SPAN_ARRAY	(INT_MIN + 1)

/**
 * struct pagestat_span - consecutive pages of a struct pagestat_buf
 * @nr: number of pages.
 * @status: the status of every one of them, or PAGESTAT_SPAN_ARRAY: the
 *	next @nr entries of the buffer's status array hold one status each.
 */
struct pagestat_span {
	unsigned int nr;
	int status;
};

/**
 * struct pagestat_buf - the statuses of consecutive pages, in bounded memory
 * @span: array of @max_spans spans, in address order.
 * @status: array of @max_status statuses, for the PAGESTAT_SPAN_ARRAY spans
 *	in their order.
 * @nr_spans: entries of @span in use.
 * @nr_status: entries of @status in use.
 * @max_spans: size of @span.
 * @max_status: size of @status.
 *
 * A huge leaf, a hole or a run of pages on one node takes one span; only
 * pages whose statuses vary take a status each. The caller empties the
 * buffer by setting @nr_spans and @nr_status to 0.
 */
struct pagestat_buf {
	struct pagestat_span *span;
	int *status;
	unsigned int nr_spans;
	unsigned int nr_status;
	unsigned int max_spans;
	unsigned int max_status;
};

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
 * Context: Caller of pagestat_extents() holds mmap_read_lock(); a page
 * table lock (of the current PTE table, or of the PMD table of a huge leaf)
 * or the hugetlb VMA lock may be held too, so the function must not sleep.
 * Return: 0 to continue the walk, any other value to stop it;
 * pagestat_extents() then returns that value.
 */
typedef int (*pagestat_extent_fn)(unsigned long start, unsigned long end,
				  int status, void *arg);

/**
 * pagestat_buf_add - append pages of one status to a struct pagestat_buf
 * @buf: the buffer.
 * @nr: number of pages, at most UINT_MAX.
 * @status: their status, or PAGESTAT_SPAN_ARRAY for the next @nr entries of
 *	@buf's status array, which the caller has filled.
 *
 * Extend the last span of @buf if it has the same status, else start a new
 * one. The caller accounts for the statuses of a PAGESTAT_SPAN_ARRAY span in
 * @buf->nr_status.
 *
 * Return: true, or false if that needs a span and @buf has none left.
 */
static inline bool pagestat_buf_add(struct pagestat_buf *buf,
				    unsigned long nr, int status)
{
	struct pagestat_span *span = buf->span + buf->nr_spans;

	if (buf->nr_spans && span[-1].status == status &&
	    span[-1].nr <= UINT_MAX - nr) {
		span[-1].nr += nr;
		return true;
	}
	if (buf->nr_spans == buf->max_spans)
		return false;
	span->nr = nr;
	span->status = status;
	buf->nr_spans++;
	return true;
}

#ifdef CONFIG_NUMA
int pagestat_range(struct mm_struct *mm, unsigned long start,
		   unsigned long nr_pages, int *status);
int pagestat_extents(struct mm_struct *mm, unsigned long start,
		     unsigned long end, pagestat_extent_fn fn, void *arg);
unsigned long pagestat_spans(struct mm_struct *mm, unsigned long start,
			     unsigned long nr_pages, struct pagestat_buf *buf);
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

static inline unsigned long pagestat_spans(struct mm_struct *mm,
					   unsigned long start,
					   unsigned long nr_pages,
					   struct pagestat_buf *buf)
{
	return 0;
}
#endif /* CONFIG_NUMA */

#endif /* _LINUX_PAGESTAT_H */
