// SPDX-License-Identifier: GPL-2.0
/*
 * Which NUMA node holds each page of a range, found with one page table walk:
 * each status is the one move_pages(2) with a NULL node list reports.
 */
#include <kunit/visibility.h>
#include <linux/hugetlb.h>
#include <linux/huge_mm.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pagestat.h>
#include <linux/pagewalk.h>
#include <linux/pgtable.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "internal.h"

/* Pages [@addr, @end) have @status: to the consumer, or into the array */
VISIBLE_IF_KUNIT void pagestat_fill(struct pagestat_walk *ps,
				    unsigned long addr, unsigned long end,
				    int status)
{
	unsigned long nr = (end - addr) >> PAGE_SHIFT;
	int *p;

	if (ps->run) {
		ps->run(ps, addr, nr, status);
		return;
	}
	p = ps->status + ((addr - ps->start) >> PAGE_SHIFT);
	if (nr > 1 && !IS_ALIGNED((unsigned long)p, sizeof(u64))) {
		*p++ = status;
		nr--;
	}
	memset64((u64 *)p, (u32)status * 0x100000001ULL, nr / 2);
	if (nr & 1)
		p[nr - 1] = status;
}

/*
 * The status of a page that vm_normal_page*() returned, or of a hugetlb
 * folio: its node, or -ENOENT for a zone device page. Neither is the zero
 * page or part of the huge zero folio: their mappings are special where the
 * level has a special bit, and vm_normal_page*() test their pfns where not.
 * Each page of a folio has the folio's zone and node.
 */
static int pagestat_page_status(struct page *page)
{
	return is_zone_device_page(page) ? -ENOENT : page_to_nid(page);
}

/*
 * The status of the page that the present @pte maps at @addr; the caller
 * holds the PTE table lock. As folio_walk_start(FW_ZEROPAGE):
 * vm_normal_page() decides, then the zero pfn.
 */
static __always_inline int pagestat_pte_status(struct vm_area_struct *vma,
					       unsigned long addr, pte_t pte)
{
	unsigned long pfn = pte_pfn(pte);
	struct page *page;

	/* Not special, not the zero pfn: vm_normal_page() returns the page */
	if (likely(IS_ENABLED(CONFIG_ARCH_HAS_PTE_SPECIAL) && !pte_special(pte) &&
		   pfn <= highest_memmap_pfn && !is_zero_pfn(pfn)))
		return pagestat_page_status(pfn_to_page(pfn));
	page = vm_normal_page(vma, addr, pte);
	if (page)
		return pagestat_page_status(page);
	if (is_zero_pfn(pfn))
		return -EFAULT;
	return -ENOENT;
}

/*
 * The status of a PMD entry that is not present or a leaf; the caller holds
 * the PMD lock. As folio_walk_start(): vm_normal_page_pmd() decides, then
 * the huge zero folio; a migration entry is not looked through.
 */
static int pagestat_pmd_status(struct vm_area_struct *vma, unsigned long addr,
			       pmd_t pmd)
{
	struct page *page;

	if (!pmd_present(pmd))
		return -ENOENT;
	if (WARN_ON_ONCE(!pmd_leaf(pmd)))
		return -ENOENT;
	page = vm_normal_page_pmd(vma, addr, pmd);
	if (page)
		return pagestat_page_status(page);
	if (is_huge_zero_pmd(pmd))
		return -EFAULT;
	return -ENOENT;
}

/* The same for a PUD entry; the caller holds the PUD lock. */
static int pagestat_pud_status(struct vm_area_struct *vma, unsigned long addr,
			       pud_t pud)
{
	struct page *page;

	if (!pud_present(pud))
		return -ENOENT;
	if (WARN_ON_ONCE(!pud_leaf(pud)))
		return -ENOENT;
	page = vm_normal_page_pud(vma, addr, pud);
	return page ? pagestat_page_status(page) : -ENOENT;
}

/*
 * Answer [@addr, @end) under a PMD leaf or a non-present entry, with the PMD
 * lock held. In a VM_PFNMAP VMA, vm_normal_page_pmd() compares a normal
 * leaf's pfn with each address's linear pfn: answer it page by page.
 */
static void pagestat_pmd_leaf(struct pagestat_walk *ps,
			      struct vm_area_struct *vma, unsigned long addr,
			      unsigned long end, pmd_t pmd)
{
	if (unlikely(vma->vm_flags & VM_PFNMAP) && pmd_present(pmd) &&
	    !pmd_special(pmd)) {
		for (; addr < end; addr += PAGE_SIZE)
			pagestat_fill(ps, addr, addr + PAGE_SIZE,
				      pagestat_pmd_status(vma, addr, pmd));
		return;
	}
	pagestat_fill(ps, addr, end, pagestat_pmd_status(vma, addr, pmd));
}

/*
 * For a run consumer, answer the PMD table under @pudp in one go if its
 * entries in [@addr, @end) are all leaves, empty or not present: they share
 * one PMD lock, which is taken once instead of once per entry. Return false,
 * having answered nothing, if one maps a PTE table, or in a VM_PFNMAP VMA,
 * whose normal leaves are answered page by page: walk_pmd_range() then
 * walks the table entry by entry.
 */
static bool pagestat_pmd_table(struct mm_walk *walk, pud_t *pudp,
			       unsigned long addr, unsigned long end)
{
	unsigned long i, n = pmd_index(end - 1) - pmd_index(addr) + 1;
	pmd_t *pmdp = pmd_offset(pudp, addr);
	unsigned long a, run = addr;
	int st, run_st = -ENOENT;
	spinlock_t *ptl;	/* the PMD lock of the whole table */

	if (!IS_ENABLED(CONFIG_PGTABLE_HAS_HUGE_LEAVES) ||
	    (walk->vma->vm_flags & VM_PFNMAP))
		return false;
	ptl = pmd_lock(walk->mm, pmdp);
	for (i = 0; i < n; i++) {
		pmd_t pmd = pmdp_get(pmdp + i);

		if (pmd_present(pmd) && !pmd_leaf(pmd)) {
			spin_unlock(ptl);
			return false;
		}
	}
	for (i = 0, a = addr; i < n; i++, a = (a & PMD_MASK) + PMD_SIZE) {
		st = pagestat_pmd_status(walk->vma, a, pmdp_get(pmdp + i));
		if (st == run_st)
			continue;
		if (a != run)
			pagestat_fill(walk->private, run, a, run_st);
		run = a;
		run_st = st;
	}
	pagestat_fill(walk->private, run, end, run_st);
	spin_unlock(ptl);
	return true;
}

static int pagestat_pud_entry(pud_t *pudp, unsigned long addr,
			      unsigned long end, struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct pagestat_walk *ps = walk->private;
	spinlock_t *ptl;	/* the PUD lock */
	pud_t pud;

	pud = pudp_get(pudp);
	if (pud_present(pud) && !pud_leaf(pud)) {
		if (ps->run && pagestat_pmd_table(walk, pudp, addr, end))
			walk->action = ACTION_CONTINUE;
		return 0;
	}
	if (!IS_ENABLED(CONFIG_PGTABLE_HAS_HUGE_LEAVES))
		return 0;

	ptl = pud_lock(walk->mm, pudp);
	pud = pudp_get(pudp);
	if (pud_present(pud) && !pud_leaf(pud)) {
		/* Became a PMD table: walk it */
		spin_unlock(ptl);
		return 0;
	}
	/* As for a PMD leaf below: a PFN map's normal pages are per address */
	if (unlikely(vma->vm_flags & VM_PFNMAP) && pud_present(pud) &&
	    !pud_special(pud)) {
		for (; addr < end; addr += PAGE_SIZE)
			pagestat_fill(ps, addr, addr + PAGE_SIZE,
				      pagestat_pud_status(vma, addr, pud));
	} else {
		pagestat_fill(ps, addr, end,
			      pagestat_pud_status(vma, addr, pud));
	}
	spin_unlock(ptl);

	/* Answered: never let walk_pud_range() split (clear) the leaf */
	walk->action = ACTION_CONTINUE;
	return 0;
}

/* How many entries from @ptep[0], which is empty, up to @nr, are empty */
VISIBLE_IF_KUNIT unsigned long pagestat_none_run(pte_t *ptep, unsigned long nr)
{
	const char *p;

	if (!pte_none(__pte(0)))
		return 1;
	p = memchr_inv(ptep, 0, nr * sizeof(*ptep));
	if (!p)
		return nr;
	return max_t(unsigned long, (p - (char *)ptep) / sizeof(*ptep), 1);
}

/* The PTEs of [@addr, @end) as runs of one status, under their table lock */
static void pagestat_pte_runs(struct pagestat_walk *ps,
			      struct vm_area_struct *vma, pte_t *ptep,
			      unsigned long addr, unsigned long end)
{
	unsigned long run = addr;
	int run_st = -ENOENT;

	for (; addr < end; addr += PAGE_SIZE, ptep++) {
		pte_t pte = ptep_get(ptep);
		/* Not present: empty, swap, migration, device, marker */
		int st = -ENOENT;

		if (pte_present(pte))
			st = pagestat_pte_status(vma, addr, pte);
		if (st == run_st)
			continue;
		if (addr != run)
			pagestat_fill(ps, run, addr, run_st);
		run = addr;
		run_st = st;
	}
	pagestat_fill(ps, run, end, run_st);
}

static int pagestat_pmd_entry(pmd_t *pmdp, unsigned long addr,
			      unsigned long end, struct mm_walk *walk)
{
	struct pagestat_walk *ps = walk->private;
	struct vm_area_struct *vma = walk->vma;
	spinlock_t *ptl;	/* the PMD lock, then the PTE table lock */
	pte_t *start, *ptep;
	int *status;
	pmd_t pmd;

	/* THP, huge zero, PFN map, device-private or migration entry */
	pmd = pmdp_get_lockless(pmdp);
	if (IS_ENABLED(CONFIG_PGTABLE_HAS_HUGE_LEAVES) &&
	    (!pmd_present(pmd) || pmd_leaf(pmd))) {
		ptl = pmd_lock(walk->mm, pmdp);
		pmd = pmdp_get(pmdp);
		if (!pmd_present(pmd) || pmd_leaf(pmd)) {
			pagestat_pmd_leaf(ps, vma, addr, end, pmd);
			spin_unlock(ptl);
			/* Answered: nothing below this entry to walk */
			walk->action = ACTION_CONTINUE;
			return 0;
		}
		spin_unlock(ptl);
	}

	ptep = pte_offset_map_lock(walk->mm, pmdp, addr, &ptl);
	if (!ptep) {
		/* The table went away under us: look at the entry again */
		walk->action = ACTION_AGAIN;
		return 0;
	}
	start = ptep;
	if (ps->run) {
		pagestat_pte_runs(ps, vma, ptep, addr, end);
		goto unlock;
	}
	status = ps->status + ((addr - ps->start) >> PAGE_SHIFT);
	for (; addr < end; addr += PAGE_SIZE, ptep++, status++) {
		pte_t pte = ptep_get(ptep);
		unsigned long n;

		if (likely(pte_present(pte))) {
			*status = pagestat_pte_status(vma, addr, pte);
		} else if (pte_none(pte)) {
			n = pagestat_none_run(ptep, (end - addr) >> PAGE_SHIFT);
			pagestat_fill(ps, addr, addr + n * PAGE_SIZE, -ENOENT);
			/* The loop steps over the last of them */
			addr += (n - 1) * PAGE_SIZE;
			ptep += n - 1;
			status += n - 1;
		} else {
			/* Swap, migration, device and marker entries */
			*status = -ENOENT;
		}
	}
unlock:
	pte_unmap_unlock(start, ptl);
	cond_resched();
	return 0;
}

static int pagestat_pte_hole(unsigned long addr, unsigned long end,
			     __always_unused int depth, struct mm_walk *walk)
{
	pagestat_fill(walk->private, addr, end, -ENOENT);
	return 0;
}

#ifdef CONFIG_HUGETLB_PAGE
/* A PMD or PUD hugetlb entry gets the checks of a PMD or PUD leaf */
static int pagestat_hugetlb_entry(pte_t *ptep, unsigned long hmask,
				  unsigned long addr, unsigned long end,
				  struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct hstate *h = hstate_vma(vma);
	unsigned long size = huge_page_size(h);
	spinlock_t *ptl;	/* the lock of the hugetlb entry */
	int st = -ENOENT;
	pte_t pte;

	ptl = huge_pte_lock(h, walk->mm, ptep);
	if (size == PMD_SIZE) {
		st = pagestat_pmd_status(vma, addr, pmdp_get((pmd_t *)ptep));
	} else if (size == PUD_SIZE) {
		st = pagestat_pud_status(vma, addr, pudp_get((pud_t *)ptep));
	} else {
		/* Contiguous PTEs or PMDs: a leaf of the folio's first page */
		pte = huge_ptep_get(walk->mm, addr, ptep);
		if (pte_present(pte))
			st = pagestat_page_status(pte_page(pte));
	}
	spin_unlock(ptl);
	pagestat_fill(walk->private, addr, end, st);
	return 0;
}
#else
#define pagestat_hugetlb_entry	NULL
#endif /* CONFIG_HUGETLB_PAGE */

/*
 * No .test_walk: walk_page_range_vma() walks VM_PFNMAP VMAs too, where a
 * zero pfn is -EFAULT and a COW'd page has a node.
 */
static const struct mm_walk_ops pagestat_walk_ops = {
	.pud_entry		= pagestat_pud_entry,
	.pmd_entry		= pagestat_pmd_entry,
	.pte_hole		= pagestat_pte_hole,
	.hugetlb_entry		= pagestat_hugetlb_entry,
	.walk_lock		= PGWALK_RDLOCK,
};

/**
 * pagestat_walk - report the status of each page of a range, in runs
 * @mm: the address space to look at.
 * @start: first address of the range, page aligned.
 * @end: end of the range, page aligned, above @start.
 * @ps: @ps->run(@ps, addr, nr_pages, status) is called for runs of pages
 *	with one status, pagestat_range()'s, that cover the range in order;
 *	two runs in a row may have the same status. It must not sleep.
 *
 * The page tables of each VMA in the range are walked once, except where
 * the range holds a single page of the VMA, which pagestat_page() looks up.
 *
 * Context: Process context; may sleep. Caller holds mmap_read_lock(@mm).
 * Return: 0, or -EINVAL if @end is not above @start.
 */
int pagestat_walk(struct mm_struct *mm, unsigned long start,
		  unsigned long end, struct pagestat_walk *ps)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma;
	unsigned long next;

	mmap_assert_locked(mm);
	if (start >= end)
		return -EINVAL;
	for_each_vma_range(vmi, vma, end) {
		/* Outside any VMA: vma_lookup() fails, move_pages() says -EFAULT */
		if (start < vma->vm_start)
			pagestat_fill(ps, start, vma->vm_start, -EFAULT);
		start = max(start, vma->vm_start);
		next = min(end, vma->vm_end);
		/* A lookup costs less than a walk of one page */
		if (next - start == PAGE_SIZE) {
			pagestat_fill(ps, start, next, pagestat_page(vma, start));
			/* As the walk does per table: VMAs can be many */
			cond_resched();
		} else {
			walk_page_range_vma(vma, start, next,
					    &pagestat_walk_ops, ps);
		}
		start = next;
	}
	if (start < end)
		pagestat_fill(ps, start, end, -EFAULT);
	return 0;
}

/**
 * pagestat_range - find the node of each page of a range
 * @mm: the address space to look at.
 * @start: an address in the first page; need not be page aligned.
 * @nr_pages: number of pages.
 * @status: array of @nr_pages ints, filled by the call.
 *
 * Fill @status[i] with the status of the page that contains
 * @start + i * PAGE_SIZE, as move_pages(2) with a NULL node list reports
 * it:
 *
 * - the node id of the folio mapped there: a small page, a PTE-mapped part
 *   of a large folio, a PMD-mapped THP, a hugetlb page; for a PMD or PUD
 *   leaf, the folio of the entry's first page;
 * - -EFAULT if no VMA contains the address (this includes addresses at or
 *   above TASK_SIZE), or if the shared zero page or the huge zero folio is
 *   mapped there;
 * - -ENOENT otherwise: nothing mapped, swap, migration, device-private and
 *   marker entries, zone device folios, special entries and PFN mappings
 *   without a normal page.
 *
 * @start is used as it is, tagged or not. Huge pages are answered per leaf
 * and never split.
 *
 * Context: Process context; may sleep. Caller holds mmap_read_lock(@mm).
 * Return: 0, or -EINVAL if the range wraps around the end of the address
 * space (@status is then unchanged).
 */
int pagestat_range(struct mm_struct *mm, unsigned long start,
		   unsigned long nr_pages, int *status)
{
	/* No ->run: the walk fills @status itself */
	struct pagestat_walk ps = { .status = status };
	unsigned long last;

	mmap_assert_locked(mm);
	if (!nr_pages)
		return 0;

	start &= PAGE_MASK;
	if (check_mul_overflow(nr_pages - 1, PAGE_SIZE, &last) ||
	    check_add_overflow(start, last, &last))
		return -EINVAL;
	/* No VMA holds the last page of the address space */
	if (!(last + PAGE_SIZE)) {
		status[nr_pages - 1] = -EFAULT;
		if (last == start)
			return 0;
		last -= PAGE_SIZE;
	}

	ps.start = start;
	return pagestat_walk(mm, start, last + PAGE_SIZE, &ps);
}
