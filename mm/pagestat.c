// SPDX-License-Identifier: GPL-2.0
/*
 * Which NUMA node holds each page of a range: the per-page answer of
 * move_pages(2) with a NULL node list, computed with one page table walk
 * instead of one lookup per address.
 *
 * Every answer is the one the per-address loop of stock 6.12's
 * do_pages_stat_array()
 * (vma_lookup() + folio_walk_start(FW_ZEROPAGE)) gives for the same page.
 */
#include <linux/hugetlb.h>
#include <linux/huge_mm.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pagestat.h>
#include <linux/pagewalk.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "internal.h"

/* Statuses computed per batch when reporting a PTE table as extents */
#define PAGESTAT_BATCH		64UL
/* PTEs between two looks for a chain of physically consecutive pages */
#define PAGESTAT_CHAIN_TRY	8
/* Empty PTEs that take a span of their own in pagestat_spans() */
#define PAGESTAT_SPAN_HOLE	16
/* Statuses of a PTE table that pagestat_spans() checks for one value */
#define PAGESTAT_SPAN_SAME	16
/* A walk callback's return value: pagestat_spans()'s buffer is full */
#define PAGESTAT_FULL		1
/* Another: pagestat_pmd_leaf() answered ahead, walk on from ps->ahead */
#define PAGESTAT_SKIP		2
/* PMD entries answered ahead for which walking on from there is cheaper */
#define PAGESTAT_SKIP_MIN	8

#ifndef NODE_NOT_IN_PAGE_FLAGS
/* The bits of page->flags a status depends on: the zone and the node */
#define PAGESTAT_FLAGS_MASK	((ZONES_MASK << ZONES_PGSHIFT) | \
				 (NODES_MASK << NODES_PGSHIFT))
#endif

/*
 * The walker emits spans [addr, end) of equal status. The span form (@buf
 * set) appends them to @buf; the array form (@status set) stores them; the
 * extent form merges them into maximal extents and reports each one to @fn.
 */
struct pagestat_walk {
	unsigned long start;		/* first page of the walk */
	unsigned long end;		/* end of the walk */
	unsigned long ahead;		/* end of what PMD look-ahead answered */
	bool skip;			/* the walk stopped to go on at ahead */
	struct pagestat_buf *buf;	/* span form: the buffer */
	unsigned long next;		/* span form: first page not answered */
	int *status;			/* array form: one int per page */
	pagestat_extent_fn fn;		/* extent form: callback */
	void *arg;			/* extent form: its argument */
	unsigned long ext_start;	/* extent form: pending extent */
	unsigned long ext_end;
	int ext_status;
};

static inline unsigned long pagestat_index(struct pagestat_walk *ps,
					   unsigned long addr)
{
	return (addr - ps->start) >> PAGE_SHIFT;
}

/* Store @status in @nr consecutive ints, two per store where possible. */
static void pagestat_fill(int *p, unsigned long nr, int status)
{
	if (nr > 1 && !IS_ALIGNED((unsigned long)p, sizeof(u64))) {
		*p++ = status;
		nr--;
	}
	if (nr > 1) {
		memset64((u64 *)p, (u32)status * 0x100000001ULL, nr / 2);
		p += nr & ~1UL;
	}
	if (nr & 1)
		*p = status;
}

static int pagestat_extent_flush(struct pagestat_walk *ps)
{
	if (ps->ext_start == ps->ext_end)
		return 0;
	return ps->fn(ps->ext_start, ps->ext_end, ps->ext_status, ps->arg);
}

static inline int pagestat_extent_add(struct pagestat_walk *ps,
				      unsigned long addr, unsigned long end,
				      int status)
{
	int ret;

	if (status == ps->ext_status && addr == ps->ext_end) {
		ps->ext_end = end;
		return 0;
	}
	ret = pagestat_extent_flush(ps);
	ps->ext_start = addr;
	ps->ext_end = end;
	ps->ext_status = status;
	return ret;
}

static int __pagestat_emit(struct pagestat_walk *ps, unsigned long addr,
			   unsigned long end, int status)
{
	if (ps->buf) {
		/* pagestat_emit() found the buffer full */
		ps->next = addr;
		return PAGESTAT_FULL;
	}
	if (ps->status) {
		pagestat_fill(ps->status + pagestat_index(ps, addr),
			      (end - addr) >> PAGE_SHIFT, status);
		return 0;
	}
	return pagestat_extent_add(ps, addr, end, status);
}

/* Answer every page of [@addr, @end) with @status. */
static __always_inline int pagestat_emit(struct pagestat_walk *ps,
					 unsigned long addr, unsigned long end,
					 int status)
{
	if (ps->buf && pagestat_buf_add(ps->buf, (end - addr) >> PAGE_SHIFT,
					status))
		return 0;
	return __pagestat_emit(ps, addr, end, status);
}

/* The status of a mapped folio, as move_pages() decides it. */
static int pagestat_folio_status(struct folio *folio)
{
	/* The shared zero pages: move_pages() reports -EFAULT */
	if (is_zero_folio(folio) || is_huge_zero_folio(folio))
		return -EFAULT;
	if (folio_is_zone_device(folio))
		return -ENOENT;
	return folio_nid(folio);
}

/*
 * The status of the page of a present, non-special PTE. vm_normal_page()
 * returns that page itself, and it is never a zero page: those are only
 * mapped by special entries (a non-special one is a bug vm_normal_page()
 * warns about). A folio lies in one zone of one node, so the page's own
 * zone and node are the folio's and page_folio() is not needed.
 */
static inline int pagestat_page_status(const struct page *page)
{
	if (is_zone_device_page(page))
		return -ENOENT;
	return page_to_nid(page);
}

/* Whether a page whose ->flags are @flags has the status of @page. */
static inline bool pagestat_flags_match(const struct page *page,
					unsigned long flags)
{
#ifdef PAGESTAT_FLAGS_MASK
	return !((page->flags ^ flags) & PAGESTAT_FLAGS_MASK);
#else
	return false;
#endif
}

/*
 * The status of present PTE @i of a table mapping @addr that the fast loop
 * does not decide: special entries (zero page, PFN mappings, devmap) and
 * pfns beyond the memmap. This is the
 * PTE case of folio_walk_start(FW_ZEROPAGE) followed by the checks of
 * do_pages_stat_array().
 */
static noinline int pagestat_pte_slow(struct vm_area_struct *vma,
				      unsigned long addr, unsigned long i,
				      pte_t pte)
{
	struct page *page = vm_normal_page(vma, addr + (i << PAGE_SHIFT), pte);

	if (page)
		return pagestat_folio_status(page_folio(page));
	/* FW_ZEROPAGE: a special zero page entry is the zero folio */
	if (is_zero_pfn(pte_pfn(pte)))
		return -EFAULT;
	return -ENOENT;
}

/* pagestat_pte_status() of an entry that pagestat_pte_slow() must answer */
#define PAGESTAT_SLOW		INT_MIN

/*
 * The status of @pte when it is not present, or present and not special
 * with a pfn within the memmap (*@pagep is then its page); PAGESTAT_SLOW
 * for the rest.
 *
 * A present PTE that is not special maps a normal page: vm_normal_page()
 * returns pfn_to_page() for it once the pfn is within the memmap. The zero
 * pfn without the special bit is a bug, which vm_normal_page() warns about;
 * stock then says -EFAULT, as pagestat_pte_slow() does.
 */
static __always_inline int pagestat_pte_status(pte_t pte, unsigned long highest,
					       struct page **pagep)
{
	unsigned long pfn;

	if (!pte_present(pte))
		return -ENOENT;	/* Empty, swap, migration, device, marker */
	if (!IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL) || pte_special(pte))
		return PAGESTAT_SLOW;
	pfn = pte_pfn(pte);
	if (unlikely(pfn > highest || is_zero_pfn(pfn)))
		return PAGESTAT_SLOW;
	*pagep = pfn_to_page(pfn);
	return pagestat_page_status(*pagep);
}

/*
 * Follow a chain of PTEs: @pte maps @page, whose status is @st, and
 * @ptep[0..@n) are the entries after it. While an entry is
 * pte_advance_pfn() of the previous one by @dir (1 or -1: pages faulted in
 * address order come in ascending or descending pfn order), it differs
 * from it only in the pfn, so it is present, not special and maps the
 * next (or previous) page: only that page's ->flags need reading. The
 * caller makes sure that the pfns stay within the memmap.
 * Return the number of entries answered into @status[0..@n).
 *
 * The loop compares each entry with @pte advanced by a fixed step, which
 * pte_advance_pfn() is across the chain when it is at both ends: the pfn
 * field is linear in the pfn on every architecture but arm64 with 52-bit
 * physical addresses, where a carry into the pfn's top bits (stored below
 * the others) shifts the field by a non-zero amount at most once over @n
 * pages, so the check at @n catches it.
 */
static noinline unsigned long pagestat_pte_chain(pte_t *ptep, unsigned long n,
						 long dir, pte_t pte,
						 struct page *page, int st,
						 int *__restrict status)
{
	const pteval_t step = pte_val(pte_advance_pfn(pte, dir)) - pte_val(pte);
	pteval_t next = pte_val(pte) + step;
	unsigned long flags = page->flags;
	long i;

	if (pte_val(pte_advance_pfn(pte, n * dir)) != pte_val(pte) + n * step)
		return 0;

	/* Count up from -@n to 0: one index for both arrays, no bound */
	ptep += n;
	status += n;
	for (i = -(long)n; i; i++) {
		if (pte_val(ptep_get(ptep + i)) != next)
			break;
		page = nth_page(page, dir);
		if (!pagestat_flags_match(page, flags)) {
			flags = page->flags;
			st = pagestat_page_status(page);
		}
		status[i] = st;
		next += step;
	}
	return n + i;
}

/*
 * Follow two interleaved chains, as faulting a range interleaved page by
 * page over two nodes maps: entry 2k continues the chain of @pte0 (mapping
 * @page0 with status @st0, in direction @dir0), entry 2k + 1 that of @pte1,
 * over @ptep[0..2 * @n). As pagestat_pte_chain(), with both chains in the
 * memmap for @n more pages. Return the number of entries answered into
 * @status.
 */
static noinline unsigned long pagestat_pte_chain2(pte_t *ptep, unsigned long n,
						  long dir0, pte_t pte0,
						  struct page *page0, int st0,
						  long dir1, pte_t pte1,
						  struct page *page1, int st1,
						  int *__restrict status)
{
	const pteval_t step0 = pte_val(pte_advance_pfn(pte0, dir0)) -
			       pte_val(pte0);
	const pteval_t step1 = pte_val(pte_advance_pfn(pte1, dir1)) -
			       pte_val(pte1);
	pteval_t next0 = pte_val(pte0) + step0;
	pteval_t next1 = pte_val(pte1) + step1;
	unsigned long flags0 = page0->flags, flags1 = page1->flags;
	long i;

	if (pte_val(pte_advance_pfn(pte0, n * dir0)) !=
	    pte_val(pte0) + n * step0 ||
	    pte_val(pte_advance_pfn(pte1, n * dir1)) !=
	    pte_val(pte1) + n * step1)
		return 0;

	ptep += 2 * n;
	status += 2 * n;
	for (i = -2 * (long)n; i; i += 2) {
		if (pte_val(ptep_get(ptep + i)) != next0)
			break;
		page0 = nth_page(page0, dir0);
		if (!pagestat_flags_match(page0, flags0)) {
			flags0 = page0->flags;
			st0 = pagestat_page_status(page0);
		}
		status[i] = st0;
		next0 += step0;

		if (pte_val(ptep_get(ptep + i + 1)) != next1) {
			i++;
			break;
		}
		page1 = nth_page(page1, dir1);
		if (!pagestat_flags_match(page1, flags1)) {
			flags1 = page1->flags;
			st1 = pagestat_page_status(page1);
		}
		status[i + 1] = st1;
		next1 += step1;
	}
	return 2 * n + i;
}

/*
 * The direction, 1 or -1, in which @next continues a chain from @pte, which
 * maps @pfn, or 0; *@max is then how many more pages the memmap holds that
 * way.
 */
static inline long pagestat_chain_dir(pte_t pte, pte_t next, unsigned long pfn,
				      unsigned long highest, unsigned long *max)
{
	if (pte_same(next, pte_next_pfn(pte))) {
		*max = highest - pfn;
		return 1;
	}
	if (pte_same(next, pte_advance_pfn(pte, -1UL))) {
		*max = pfn;
		return -1;
	}
	return 0;
}

/*
 * Look for a chain at entry @i of @nr, a present PTE @pte mapping @page with
 * status @st; return the number of entries answered after it, 0 if no chain
 * starts here.
 */
static unsigned long pagestat_pte_chains(pte_t *ptep, unsigned long i,
					 unsigned long nr, unsigned long highest,
					 pte_t pte, struct page *page, int st,
					 int *__restrict status)
{
	unsigned long pfn0 = pte_pfn(pte), max0, max1;
	struct page *page1;
	long dir0, dir1;
	pte_t pte1;
	int st1;

	if (i + 1 >= nr)
		return 0;
	pte1 = ptep_get(ptep + i + 1);
	/* A chain stays within the table and the memmap */
	dir0 = pagestat_chain_dir(pte, pte1, pfn0, highest, &max0);
	if (dir0)
		return pagestat_pte_chain(ptep + i + 1, min(nr - i - 1, max0),
					  dir0, pte, page, st, status + i + 1);

	if (i + 3 >= nr)
		return 0;
	dir0 = pagestat_chain_dir(pte, ptep_get(ptep + i + 2), pfn0, highest,
				  &max0);
	if (!dir0)
		return 0;
	/* Entry i + 1 must start the second chain */
	st1 = pagestat_pte_status(pte1, highest, &page1);
	if (st1 == PAGESTAT_SLOW || st1 == -ENOENT)
		return 0;
	dir1 = pagestat_chain_dir(pte1, ptep_get(ptep + i + 3), pte_pfn(pte1),
				  highest, &max1);
	if (!dir1)
		return 0;
	status[i + 1] = st1;
	return 1 + pagestat_pte_chain2(ptep + i + 2,
				       min3((nr - i - 2) / 2, max0, max1),
				       dir0, pte, page, st, dir1, pte1, page1,
				       st1, status + i + 2);
}

/*
 * The end of the run of empty entries from @i on, at most @nr; @none is an
 * empty entry. An entry equal to it is empty too: when it is 0, as empty
 * entries usually are, 32 entries are tested with one compare. They
 * are read as plain words, which lets the compiler OR them straight from
 * memory: under the page table lock an empty entry does not change, and
 * any other value, torn or not, stops the fast loop.
 */
static __always_inline unsigned long pagestat_pte_none_end(pte_t *ptep,
							   unsigned long i,
							   unsigned long nr,
							   pte_t none)
{
	const pte_t *p = ptep + i;

	if (!pte_val(none)) {
		while (i + 32 <= nr &&
		       !(pte_val(p[0]) | pte_val(p[1]) | pte_val(p[2]) |
			 pte_val(p[3]) | pte_val(p[4]) | pte_val(p[5]) |
			 pte_val(p[6]) | pte_val(p[7]) | pte_val(p[8]) |
			 pte_val(p[9]) | pte_val(p[10]) | pte_val(p[11]) |
			 pte_val(p[12]) | pte_val(p[13]) | pte_val(p[14]) |
			 pte_val(p[15]) | pte_val(p[16]) | pte_val(p[17]) |
			 pte_val(p[18]) | pte_val(p[19]) | pte_val(p[20]) |
			 pte_val(p[21]) | pte_val(p[22]) | pte_val(p[23]) |
			 pte_val(p[24]) | pte_val(p[25]) | pte_val(p[26]) |
			 pte_val(p[27]) | pte_val(p[28]) | pte_val(p[29]) |
			 pte_val(p[30]) | pte_val(p[31]))) {
			i += 32;
			p += 32;
		}
		while (i + 4 <= nr && !(pte_val(p[0]) | pte_val(p[1]) |
					pte_val(p[2]) | pte_val(p[3]))) {
			i += 4;
			p += 4;
		}
	}
	while (i < nr && pte_none(ptep_get(ptep + i)))
		i++;
	return i;
}

/*
 * Answer @nr PTEs from @ptep (mapping @addr) into @status. The caller holds
 * the page table lock. With @hole_end, stop at a run of at least
 * PAGESTAT_SPAN_HOLE empty entries, followed up to entry @hole_max (at
 * least @nr), and set *@hole_end to its end. Return the number of entries
 * answered.
 *
 * Faulting a range in address order usually maps physically consecutive
 * pages, which pagestat_pte_chain() answers at less cost. Looking for a
 * chain costs a PTE load and compare, so it is done at the first entry of
 * each block of PAGESTAT_CHAIN_TRY entries only (and where a chain ended):
 * scattered memory pays little for it. The other entries of a block go
 * through a loop without those checks, and runs of empty entries through a
 * loop of their own. The loops call a function only for the rare entries
 * pagestat_pte_slow() answers; @status is restrict so that the compiler
 * keeps the loop-invariant values (the memmap base, pte masks) in registers
 * across the stores.
 */
static __always_inline unsigned long
__pagestat_ptes(struct vm_area_struct *vma, pte_t *ptep, unsigned long addr,
		unsigned long nr, int *__restrict status,
		unsigned long hole_max, unsigned long *hole_end)
{
	const unsigned long highest = highest_memmap_pfn;
	unsigned long i = 0;

	while (i < nr) {
		unsigned long stop = min(nr, i + PAGESTAT_CHAIN_TRY);
		struct page *page;
		pte_t pte;
		int st;

		/* The first entry of a block: a chain may start here */
		pte = ptep_get(ptep + i);
		if (pte_none(pte)) {
			unsigned long first = i;

			i = pagestat_pte_none_end(ptep, i + 1,
						  hole_end ? hole_max : nr, pte);
			if (hole_end && i - first >= PAGESTAT_SPAN_HOLE) {
				*hole_end = i;
				return first;
			}
			i = min(i, nr);
			pagestat_fill(status + first, i - first, -ENOENT);
			continue;
		}
		st = pagestat_pte_status(pte, highest, &page);
		if (unlikely(st == PAGESTAT_SLOW)) {
			st = pagestat_pte_slow(vma, addr, i, pte);
		} else if (st != -ENOENT) {
			unsigned long done;

			done = pagestat_pte_chains(ptep, i, nr, highest, pte,
						   page, st, status);
			if (done) {
				status[i] = st;
				i += 1 + done;
				continue;
			}
		}
		status[i++] = st;

		for (; i < stop; i++) {
			pte = ptep_get(ptep + i);
			st = pagestat_pte_status(pte, highest, &page);
			if (unlikely(st == PAGESTAT_SLOW))
				st = pagestat_pte_slow(vma, addr, i, pte);
			status[i] = st;
		}
	}
	return nr;
}

static void pagestat_ptes(struct vm_area_struct *vma, pte_t *ptep,
			  unsigned long addr, unsigned long nr,
			  int *__restrict status)
{
	__pagestat_ptes(vma, ptep, addr, nr, status, nr, NULL);
}

/* Whether the @nr statuses from @st on, @nr > 1, are all the same. */
static bool pagestat_same(const int *st, unsigned long nr)
{
	const int *end = st + nr - 1;
	u64 two = (u32)st[0] * 0x100000001ULL;

	if (*end != *st)
		return false;
	/* Two at a time, from an aligned pair on */
	st += IS_ALIGNED((unsigned long)st, sizeof(u64)) ? 0 : 1;
	for (; st + 8 <= end; st += 8)
		if (*(u64 *)st != two || *(u64 *)(st + 2) != two ||
		    *(u64 *)(st + 4) != two || *(u64 *)(st + 6) != two)
			return false;
	for (; st < end; st++)
		if (*st != *end)
			return false;
	return true;
}

/*
 * The span form of a PTE table: statuses go into the buffer's status array
 * a segment at a time. A segment of one status (pages of one node) and a run
 * of PAGESTAT_SPAN_HOLE or more empty entries take a span instead, so they
 * use none of the array.
 */
static noinline int pagestat_pte_spans(struct pagestat_walk *ps,
				       struct vm_area_struct *vma,
				       pte_t *ptep, unsigned long addr,
				       unsigned long end)
{
	struct pagestat_buf *buf = ps->buf;
	unsigned long nr = (end - addr) >> PAGE_SHIFT;
	unsigned long i = 0;

	while (i < nr) {
		unsigned long n = min_t(unsigned long, nr - i,
					buf->max_status - buf->nr_status);
		int *st = buf->status + buf->nr_status;
		unsigned long done, hole = 0;

		if (!n)
			break;
		done = __pagestat_ptes(vma, ptep + i, addr + (i << PAGE_SHIFT),
				       n, st, nr - i, &hole);
		if (done) {
			if (done >= PAGESTAT_SPAN_SAME && pagestat_same(st, done) &&
			    pagestat_buf_add(buf, done, st[0])) {
				/* One span: the statuses are not kept */
			} else if (pagestat_buf_add(buf, done, PAGESTAT_SPAN_ARRAY)) {
				buf->nr_status += done;
			} else {
				break;
			}
			i += done;
		}
		if (done < n) {
			/* Entries [done, hole) from ptep + i on are empty */
			if (!pagestat_buf_add(buf, hole - done, -ENOENT))
				break;
			i += hole - done;
		}
	}
	if (i == nr)
		return 0;
	ps->next = addr + (i << PAGE_SHIFT);
	return PAGESTAT_FULL;
}

/*
 * The extent form of a PTE table: compute statuses in batches on the stack,
 * then merge them. Kept out of line so that the array form does not carry
 * the batch in its stack frame.
 */
static noinline int pagestat_pte_extents(struct pagestat_walk *ps,
					 struct vm_area_struct *vma,
					 pte_t *ptep, unsigned long addr,
					 unsigned long end)
{
	int batch[PAGESTAT_BATCH];

	while (addr < end) {
		unsigned long nr = min((end - addr) >> PAGE_SHIFT,
				       PAGESTAT_BATCH);
		unsigned long i;
		int ret;

		pagestat_ptes(vma, ptep, addr, nr, batch);
		for (i = 0; i < nr; i++, addr += PAGE_SIZE) {
			ret = pagestat_extent_add(ps, addr, addr + PAGE_SIZE,
						  batch[i]);
			if (ret)
				return ret;
		}
		ptep += nr;
	}
	return 0;
}

/*
 * The status of a PMD entry that is none, not present or a leaf; the caller
 * holds the PMD lock. As folio_walk_start(): vm_normal_page_pmd() decides,
 * then the huge zero folio; a migration entry is not looked through.
 */
static int pagestat_pmd_status(struct vm_area_struct *vma, unsigned long addr,
			       pmd_t pmd)
{
	struct page *page;

	if (!pmd_present(pmd))
		return -ENOENT;
	/* A table where hugetlb expects a leaf: no folio to report */
	if (WARN_ON_ONCE(!pmd_leaf(pmd)))
		return -ENOENT;
	page = vm_normal_page_pmd(vma, addr, pmd);
	if (page)
		return pagestat_folio_status(page_folio(page));
	if (is_huge_zero_pmd(pmd))
		return -EFAULT;
	return -ENOENT;
}

/* The same for a PUD entry; the caller holds the PUD lock. */
static int pagestat_pud_status(pud_t pud)
{
	/*
	 * Not present includes PROT_NONE on x86 (pud_present() tests only
	 * _PAGE_PRESENT), as in folio_walk_start().
	 */
	if (!pud_present(pud) || pud_devmap(pud) || pud_special(pud))
		return -ENOENT;
	if (WARN_ON_ONCE(!pud_leaf(pud)))
		return -ENOENT;
	/* No vm_normal_page_pud() in this kernel: the entry's first page */
	return pagestat_folio_status(page_folio(pud_page(pud)));
}

static int pagestat_pud_entry(pud_t *pudp, unsigned long addr,
			      unsigned long end, struct mm_walk *walk)
{
	struct pagestat_walk *ps = walk->private;
	spinlock_t *ptl;	/* the PUD lock */
	pud_t pud;
	int st;

	pud = pudp_get(pudp);
	if (!IS_ENABLED(CONFIG_PGTABLE_HAS_HUGE_LEAVES) ||
	    (pud_present(pud) && !pud_leaf(pud)))
		return 0;

	ptl = pud_lock(walk->mm, pudp);
	pud = pudp_get(pudp);
	if (pud_present(pud) && !pud_leaf(pud) &&
	    !pud_devmap(pud) && !pud_special(pud)) {
		/* Became a PMD table: walk it */
		spin_unlock(ptl);
		return 0;
	}
	st = pagestat_pud_status(pud);
	spin_unlock(ptl);

	/* Answered: never let walk_pud_range() split (clear) the leaf */
	walk->action = ACTION_CONTINUE;
	return pagestat_emit(ps, addr, end, st);
}

/*
 * A non-special PMD leaf in a VM_PFNMAP VMA: vm_normal_page_pmd() compares
 * the pfn with the address's linear pfn, so answer page by page.
 */
static int pagestat_pmd_pfnmap(struct pagestat_walk *ps,
			       struct vm_area_struct *vma, unsigned long addr,
			       unsigned long end, pmd_t pmd)
{
	int ret = 0;

	for (; addr < end && !ret; addr += PAGE_SIZE)
		ret = pagestat_emit(ps, addr, addr + PAGE_SIZE,
				    pagestat_pmd_status(vma, addr, pmd));
	return ret;
}

/*
 * Answer [@addr, @end) with @status, that of the PMD leaf (THP or hugetlb)
 * at @pmdp, with its PMD table's lock held. Then answer the entries that
 * follow it in the table too, while they are empty or leaves: the walk then
 * passes over each of them with a compare instead of taking the lock again,
 * or, past PAGESTAT_SKIP_MIN of them, stops and goes on after them.
 * Stop at a PTE table, which the walk reads, and at the end of the table,
 * of the VMA and of the walk.
 */
static int pagestat_pmd_leaf(struct pagestat_walk *ps,
			     struct vm_area_struct *vma, pmd_t *pmdp,
			     unsigned long addr, unsigned long end, int status)
{
	unsigned long limit;
	int ret;

	ret = pagestat_emit(ps, addr, end, status);
	/*
	 * @end is PMD aligned unless the walk or the VMA ends there. At a
	 * table boundary (always, when the PMD level is folded) ALIGN() gives
	 * @end itself: the next entry is in another table. Not the
	 * *_addr_end() helpers: with a folded level they return the end they
	 * are given.
	 */
	limit = min3(ps->end, vma->vm_end, ALIGN(end, PMD_SIZE * PTRS_PER_PMD));
	/* A non-special leaf of a VM_PFNMAP VMA is answered page by page */
	if (ret || end >= limit || (vma->vm_flags & VM_PFNMAP))
		return ret;
	addr = end;
	do {
		unsigned long next = min(addr + PMD_SIZE, limit);
		pmd_t pmd = pmdp_get(++pmdp);

		if (pmd_present(pmd) && !pmd_leaf(pmd))
			break;
		ret = pagestat_emit(ps, addr, next,
				    pmd_none(pmd) ? -ENOENT :
				    pagestat_pmd_status(vma, addr, pmd));
		if (ret)
			break;
		ps->ahead = next;
		addr = next;
	} while (addr < limit);
	if (!ret && addr - end >= PAGESTAT_SKIP_MIN * PMD_SIZE) {
		ps->skip = true;
		ret = PAGESTAT_SKIP;
	}
	return ret;
}

static int pagestat_pmd_entry(pmd_t *pmdp, unsigned long addr,
			      unsigned long end, struct mm_walk *walk)
{
	struct pagestat_walk *ps = walk->private;
	struct vm_area_struct *vma = walk->vma;
	spinlock_t *ptl;	/* the PMD lock, then the PTE table lock */
	pte_t *ptep;
	pmd_t pmd;
	int ret;

	/* Answered by pagestat_pmd_leaf() */
	if (end <= ps->ahead) {
		walk->action = ACTION_CONTINUE;
		return 0;
	}

	pmd = pmdp_get_lockless(pmdp);
	if (pmd_none(pmd)) {
		walk->action = ACTION_CONTINUE;
		return pagestat_emit(ps, addr, end, -ENOENT);
	}

	/* THP, huge zero, PFN map, devmap, migration entry */
	if (IS_ENABLED(CONFIG_PGTABLE_HAS_HUGE_LEAVES) &&
	    (!pmd_present(pmd) || pmd_leaf(pmd))) {
		ptl = pmd_lock(walk->mm, pmdp);
		pmd = pmdp_get(pmdp);
		if (!pmd_present(pmd) || pmd_leaf(pmd)) {
			int st;

			if (unlikely(vma->vm_flags & VM_PFNMAP) &&
			    pmd_present(pmd) && !pmd_special(pmd)) {
				ret = pagestat_pmd_pfnmap(ps, vma, addr, end,
							  pmd);
				spin_unlock(ptl);
				walk->action = ACTION_CONTINUE;
				return ret;
			}
			st = pagestat_pmd_status(vma, addr, pmd);
			ret = pagestat_pmd_leaf(ps, vma, pmdp, addr, end, st);
			spin_unlock(ptl);
			/* Answered: nothing below this entry to walk */
			walk->action = ACTION_CONTINUE;
			cond_resched();
			return ret;
		}
		spin_unlock(ptl);
	}

	ptep = pte_offset_map_lock(walk->mm, pmdp, addr, &ptl);
	if (!ptep) {
		/* The table went away under us: look at the entry again */
		walk->action = ACTION_AGAIN;
		return 0;
	}
	if (ps->buf) {
		ret = pagestat_pte_spans(ps, vma, ptep, addr, end);
	} else if (ps->status) {
		pagestat_ptes(vma, ptep, addr, (end - addr) >> PAGE_SHIFT,
			      ps->status + pagestat_index(ps, addr));
		ret = 0;
	} else {
		ret = pagestat_pte_extents(ps, vma, ptep, addr, end);
	}
	pte_unmap_unlock(ptep, ptl);
	cond_resched();
	return ret;
}

static int pagestat_pte_hole(unsigned long addr, unsigned long end,
			     __always_unused int depth, struct mm_walk *walk)
{
	struct pagestat_walk *ps = walk->private;

	/* An empty PMD answered by pagestat_pmd_leaf() */
	if (end <= ps->ahead)
		return 0;
	/* Outside any VMA: vma_lookup() fails, move_pages() says -EFAULT */
	return pagestat_emit(ps, addr, end, walk->vma ? -ENOENT : -EFAULT);
}

#ifdef CONFIG_HUGETLB_PAGE
/*
 * folio_walk_start() walks hugetlb VMAs like any other: a PMD-sized folio
 * is a PMD leaf, a PUD-sized one a PUD leaf. Apply the same checks to the
 * entry, so that, e.g., a PROT_NONE 1 GiB page is -ENOENT on x86 like there.
 */
static int pagestat_hugetlb_entry(pte_t *ptep, unsigned long hmask,
				  unsigned long addr, unsigned long end,
				  struct mm_walk *walk)
{
	struct pagestat_walk *ps = walk->private;
	struct vm_area_struct *vma = walk->vma;
	struct hstate *h;
	unsigned long size;
	spinlock_t *ptl;	/* the lock of the hugetlb entry */
	int st, ret;

	/* Answered by pagestat_pmd_leaf() */
	if (end <= ps->ahead)
		return 0;

	h = hstate_vma(vma);
	size = huge_page_size(h);
	ptl = huge_pte_lock(h, walk->mm, ptep);
	if (size == PMD_SIZE) {
		/* The PMD table's lock, as for a THP */
		st = pagestat_pmd_status(vma, addr, pmdp_get((pmd_t *)ptep));
		ret = pagestat_pmd_leaf(ps, vma, (pmd_t *)ptep, addr, end, st);
		spin_unlock(ptl);
		return ret;
	} else if (size == PUD_SIZE) {
		st = pagestat_pud_status(pudp_get((pud_t *)ptep));
	} else {
		/* Contiguous PTEs or PMDs: a leaf of the folio's first page */
		pte_t pte = huge_ptep_get(walk->mm, addr, ptep);

		st = -ENOENT;
		if (pte_present(pte))
			st = pagestat_folio_status(page_folio(pte_page(pte)));
	}
	spin_unlock(ptl);
	return pagestat_emit(ps, addr, end, st);
}
#else
#define pagestat_hugetlb_entry	NULL
#endif /* CONFIG_HUGETLB_PAGE */

/*
 * Walk every VMA, VM_PFNMAP included: the default walk_page_test() turns a
 * VM_PFNMAP VMA into one hole, but there a zero pfn is -EFAULT and a COW'd
 * page has a node. pmd_entry and pte handling answer those like
 * folio_walk_start() does.
 */
static int pagestat_test_walk(unsigned long start, unsigned long end,
			      struct mm_walk *walk)
{
	return 0;
}

static const struct mm_walk_ops pagestat_walk_ops = {
	.pud_entry		= pagestat_pud_entry,
	.pmd_entry		= pagestat_pmd_entry,
	.pte_hole		= pagestat_pte_hole,
	.hugetlb_entry		= pagestat_hugetlb_entry,
	.test_walk		= pagestat_test_walk,
	.walk_lock		= PGWALK_RDLOCK,
};

/*
 * walk_page_range() over [@start, @end) with the pagestat callbacks, going
 * on from ps->ahead when pagestat_pmd_leaf() stopped it there.
 */
static int pagestat_walk_range(struct mm_struct *mm, unsigned long start,
			       unsigned long end, struct pagestat_walk *ps)
{
	int ret;

	ps->end = end;
	do {
		ps->skip = false;
		ret = walk_page_range(mm, start, end, &pagestat_walk_ops, ps);
		start = ps->ahead;
	} while (ps->skip && start < end);
	return ps->skip ? 0 : ret;
}

/*
 * The end of the walk over the @nr_pages pages from @start, page aligned,
 * @nr_pages > 0; 0 if the range wraps around the end of the address space.
 * No VMA contains the last page of the address space (its vm_end would
 * wrap to 0): a range that reaches it ends the walk before it, so that the
 * walk ends above start, and sets *@top for the caller to answer it.
 */
static unsigned long pagestat_walk_end(unsigned long start,
				       unsigned long nr_pages, bool *top)
{
	unsigned long last;

	if (check_mul_overflow(nr_pages - 1, PAGE_SIZE, &last) ||
	    check_add_overflow(start, last, &last))
		return 0;
	*top = !(last + PAGE_SIZE);
	return *top ? last : last + PAGE_SIZE;
}

/**
 * pagestat_range - find the node of each page of a range
 * @mm: the address space to look at.
 * @start: an address in the first page; need not be page aligned.
 * @nr_pages: number of pages.
 * @status: array of @nr_pages ints, filled by the call.
 *
 * Fill @status[i] with the status of the page that contains
 * @start + i * PAGE_SIZE, exactly as move_pages(2) with a NULL node list
 * reports it (the per-address loop of stock 6.12's do_pages_stat_array()):
 *
 * - the node id of the folio mapped there: a normal page, a PMD-mapped THP,
 *   a PTE-mapped part of a large folio, a hugetlb page; for a PMD or PUD
 *   leaf, the folio of the entry's first page;
 * - -EFAULT if no VMA contains the address (this includes addresses at or
 *   above TASK_SIZE and the last page of the address space), or if the
 *   shared zero page or the huge zero folio is mapped there;
 * - -ENOENT otherwise: nothing mapped, swap, migration and device entries,
 *   zone device folios, special and devmap entries and PFN mappings without
 *   a normal page, a PROT_NONE PUD on x86.
 *
 * Addresses are not untagged, as in move_pages(2). The range is walked with
 * walk_page_range(): one VMA lookup per VMA, one page table lock per PTE
 * table, one answer per huge leaf and per empty page table level; huge
 * pages are never split. On x86-64 (measured with move_pages_bench under
 * qemu -icount) a page mapped by a PTE costs about 14 instructions when its
 * PTE continues a chain of physically consecutive pages (or two interleaved
 * chains), about 28 otherwise (a PTE load, a struct page load and a store);
 * an empty PTE in a run of them about 1.2 (32 are tested per compare), and
 * a page of a huge leaf or of a hole half a store; a 2 MiB leaf after the
 * first of its PMD table about 150 in all. Setting up the walk costs a few
 * hundred instructions, so a single page is answered faster by
 * vma_lookup() and folio_walk_start().
 *
 * Context: Process context; may sleep. Caller holds mmap_read_lock(@mm).
 * Return: 0 on success, or -EINVAL if the range wraps around the end of
 * the address space (@status is then unchanged).
 */
int pagestat_range(struct mm_struct *mm, unsigned long start,
		   unsigned long nr_pages, int *status)
{
	struct pagestat_walk ps = { .status = status };
	unsigned long end;
	bool top;

	mmap_assert_locked(mm);
	if (!nr_pages)
		return 0;

	/* VMAs are page aligned: any address answers for its page */
	start &= PAGE_MASK;
	end = pagestat_walk_end(start, nr_pages, &top);
	if (!end)
		return -EINVAL;
	if (top)
		status[nr_pages - 1] = -EFAULT;
	if (end == start)
		return 0;

	ps.start = start;
	return pagestat_walk_range(mm, start, end, &ps);
}

/**
 * pagestat_extents - report a range as extents of pages with equal status
 * @mm: the address space to look at.
 * @start: start of the range, page aligned.
 * @end: end of the range (exclusive), page aligned.
 * @fn: called once per maximal extent of pages with equal status.
 * @arg: passed to @fn.
 *
 * Walk [@start, @end) like pagestat_range(), with the same status per page,
 * but report maximal extents [s, e) of equal status to @fn, in address
 * order, instead of filling an array: one call for a huge leaf, a hole or a
 * run of pages on one node, whatever the number of pages.
 *
 * Context: Process context; may sleep between calls of @fn. Caller holds
 * mmap_read_lock(@mm). @fn may be called with a page table lock held and
 * must not sleep.
 * Return: 0 after the whole range was reported, the first non-zero value
 * returned by @fn (which stops the walk), or -EINVAL if @start or @end is
 * not page aligned or @end is below @start.
 */
int pagestat_extents(struct mm_struct *mm, unsigned long start,
		     unsigned long end, pagestat_extent_fn fn, void *arg)
{
	struct pagestat_walk ps = {
		.start		= start,
		.fn		= fn,
		.arg		= arg,
		.ext_start	= start,
		.ext_end	= start,
	};
	int ret;

	mmap_assert_locked(mm);
	if (!PAGE_ALIGNED(start) || !PAGE_ALIGNED(end) || end < start)
		return -EINVAL;
	if (start == end)
		return 0;

	ret = pagestat_walk_range(mm, start, end, &ps);
	if (!ret)
		ret = pagestat_extent_flush(&ps);
	return ret;
}

/**
 * pagestat_spans - find the node of each page of a range, into a buffer
 * @mm: the address space to look at.
 * @start: an address in the first page; need not be page aligned.
 * @nr_pages: number of pages.
 * @buf: the buffer to append their statuses to.
 *
 * Find the status of each of the @nr_pages pages from @start on, as
 * pagestat_range() does, and append them to @buf as spans, extending its
 * last span where that has the same status. A huge leaf, a hole, or pages
 * of one node that fill a PTE table or a segment of one take a single span;
 * only pages whose statuses vary take a status each. When @buf is full the
 * walk stops: the caller consumes and empties @buf, then asks again for the
 * rest, so the memory used is bounded whatever @nr_pages is.
 *
 * This is the form for large queries: move_pages(2) uses it with a buffer
 * of under 1 KiB on the stack. Answering a page costs what it costs in
 * pagestat_range(), less the store when it joins a span.
 *
 * Context: Process context; may sleep. Caller holds mmap_read_lock(@mm).
 * Return: the number of pages answered, from @start on: @nr_pages, or
 * fewer if @buf became full or @nr_pages is above UINT_MAX (the most one
 * call answers); at least one if @buf had a free span and a free status.
 * 0 if the range wraps around the end of the address space.
 */
unsigned long pagestat_spans(struct mm_struct *mm, unsigned long start,
			     unsigned long nr_pages, struct pagestat_buf *buf)
{
	struct pagestat_walk ps = { .buf = buf };
	unsigned long end;
	bool top;
	int ret;

	mmap_assert_locked(mm);
	/* A span counts at most UINT_MAX pages */
	nr_pages = min_t(unsigned long, nr_pages, UINT_MAX);
	if (!nr_pages)
		return 0;

	start &= PAGE_MASK;
	end = pagestat_walk_end(start, nr_pages, &top);
	if (!end)
		return 0;

	if (end != start) {
		ps.start = start;
		ret = pagestat_walk_range(mm, start, end, &ps);
		if (ret == PAGESTAT_FULL)
			return (ps.next - start) >> PAGE_SHIFT;
		if (WARN_ON_ONCE(ret))
			return 0;
	}
	if (top && !pagestat_buf_add(buf, 1, -EFAULT))
		return nr_pages - 1;
	return nr_pages;
}
