// SPDX-License-Identifier: GPL-2.0
/*
 * Building layouts in the test's own mm and checking them: page table
 * probes, a builder for each kind of mapping, the comparison of
 * pagestat_range() with the layout and with the oracle, and the init and
 * exit of every suite.
 */

#include "pagestat_kunit.h"

static const char * const pagestat_kind_name[] = {
	[PAGESTAT_ANON]		= "anon",
	[PAGESTAT_THP]		= "thp",
	[PAGESTAT_HUGETLB]	= "hugetlb",
	[PAGESTAT_SHMEM]	= "shmem",
	[PAGESTAT_PFNMAP]	= "pfnmap",
	[PAGESTAT_PFNMAP_HUGE]	= "pfnmap-huge",
	[PAGESTAT_PFNMAP_COW]	= "pfnmap-cow",
	[PAGESTAT_MIXEDMAP]	= "mixedmap",
	[PAGESTAT_LEAF]		= "leaf",
	[PAGESTAT_LEAF_COW]	= "leaf-cow",
	[PAGESTAT_GAP]		= "gap",
};

static const char * const pagestat_raw_name[] = {
	[PAGESTAT_RAW_ANY]	= "any",
	[PAGESTAT_RAW_NOVMA]	= "no-vma",
	[PAGESTAT_RAW_TOP_NONE]	= "p4d-none",
	[PAGESTAT_RAW_PUD_NONE]	= "pud-none",
	[PAGESTAT_RAW_PMD_NONE]	= "pmd-none",
	[PAGESTAT_RAW_PTE_NONE]	= "pte-none",
	[PAGESTAT_RAW_PUD]	= "pud",
	[PAGESTAT_RAW_PMD]	= "pmd",
	[PAGESTAT_RAW_PTE]	= "pte",
};

/* Kernel pages behind 's', 'd' and the private remap; set by suite_init. */
static struct page *pagestat_kpages;

static unsigned long pagestat_kpfn(unsigned int i)
{
	return page_to_pfn(pagestat_kpages) + i;
}

static bool pagestat_raw_hole(u8 level)
{
	return level >= PAGESTAT_RAW_TOP_NONE && level <= PAGESTAT_RAW_PTE_NONE;
}

/**
 * __pagestat_raw() - what the page tables hold at an address
 * @mm: the address space.
 * @addr: the address.
 * @r: filled with the level at which the walk stopped, the entry's flags
 *	(PAGESTAT_RAW_*) and its pfn.
 *
 * Reads the entries from the PGD down with the page table helpers, without
 * allocating a table or taking a page table lock, so that a probe cannot
 * change what it probes.
 *
 * Context: Caller holds mmap_read_lock(@mm).
 */
void __pagestat_raw(struct mm_struct *mm, unsigned long addr,
		    struct pagestat_raw *r)
{
	struct vm_area_struct *vma;
	pmd_t *pmdp, pmd;
	pud_t *pudp, pud;
	spinlock_t *ptl;	/* of the PTE table, held for one read */
	pte_t *ptep, pte;
	p4d_t *p4dp;
	pgd_t *pgdp;

	memset(r, 0, sizeof(*r));
	vma = vma_lookup(mm, addr);
	if (!vma) {
		r->level = PAGESTAT_RAW_NOVMA;
		return;
	}
	vma_pgtable_walk_begin(vma);

	pgdp = pgd_offset(mm, addr);
	p4dp = pgd_none(*pgdp) ? NULL : p4d_offset(pgdp, addr);
	if (!p4dp || p4d_none(*p4dp)) {
		r->level = PAGESTAT_RAW_TOP_NONE;
		goto out;
	}
	pudp = pud_offset(p4dp, addr);
	pud = pudp_get(pudp);
	if (pud_none(pud)) {
		r->level = PAGESTAT_RAW_PUD_NONE;
		goto out;
	}
	if (!pud_present(pud) || pud_leaf(pud)) {
		r->level = PAGESTAT_RAW_PUD;
		r->flags |= pud_present(pud) ? PAGESTAT_RAW_PRESENT : 0;
		r->flags |= pud_leaf(pud) ? PAGESTAT_RAW_LEAF : 0;
		r->flags |= pud_special(pud) ? PAGESTAT_RAW_SPECIAL : 0;
		r->flags |= pud_devmap(pud) ? PAGESTAT_RAW_DEVMAP : 0;
		r->pfn = pud_pfn(pud);
		goto out;
	}
	pmdp = pmd_offset(pudp, addr);
again:
	pmd = pmdp_get_lockless(pmdp);
	if (pmd_none(pmd)) {
		r->level = PAGESTAT_RAW_PMD_NONE;
		goto out;
	}
	if (!pmd_present(pmd) || pmd_leaf(pmd)) {
		r->level = PAGESTAT_RAW_PMD;
		if (pmd_present(pmd)) {
			r->flags |= PAGESTAT_RAW_PRESENT;
			r->flags |= pmd_leaf(pmd) ? PAGESTAT_RAW_LEAF : 0;
			r->flags |= pmd_special(pmd) ? PAGESTAT_RAW_SPECIAL : 0;
			r->flags |= pmd_devmap(pmd) ? PAGESTAT_RAW_DEVMAP : 0;
			r->flags |= is_huge_zero_pmd(pmd) ?
				    PAGESTAT_RAW_HUGE_ZERO : 0;
			r->pfn = pmd_pfn(pmd);
		} else if (is_pmd_migration_entry(pmd)) {
			r->flags |= PAGESTAT_RAW_MIGRATION;
		}
		goto out;
	}
	ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);
	if (!ptep)
		goto again;	/* the PMD changed under us: look again */
	pte = ptep_get(ptep);
	pte_unmap_unlock(ptep, ptl);
	if (pte_none(pte)) {
		r->level = PAGESTAT_RAW_PTE_NONE;
		goto out;
	}
	r->level = PAGESTAT_RAW_PTE;
	if (pte_present(pte)) {
		r->flags |= PAGESTAT_RAW_PRESENT;
		r->flags |= pte_special(pte) ? PAGESTAT_RAW_SPECIAL : 0;
		r->flags |= pte_devmap(pte) ? PAGESTAT_RAW_DEVMAP : 0;
#ifdef CONFIG_ARM64_CONTPTE
		r->flags |= pte_cont(pte) ? PAGESTAT_RAW_CONT : 0;
#endif
		r->pfn = pte_pfn(pte);
	} else {
		swp_entry_t entry = pte_to_swp_entry(pte);

		if (is_migration_entry(entry))
			r->flags |= PAGESTAT_RAW_MIGRATION;
		else if (is_device_private_entry(entry))
			r->flags |= PAGESTAT_RAW_DEV_PRIV;
		else if (is_device_exclusive_entry(entry))
			r->flags |= PAGESTAT_RAW_DEV_EXCL;
		r->pfn = swp_offset(entry);
	}
out:
	vma_pgtable_walk_end(vma);
}

/**
 * __pagestat_fw() - what folio_walk_start(FW_ZEROPAGE) finds at an address
 * @mm: the address space.
 * @addr: the address.
 * @r: filled with whether a folio was found, the level of its entry, and
 *	the folio's kind, order and node.
 *
 * Context: Caller holds mmap_read_lock(@mm).
 */
void __pagestat_fw(struct mm_struct *mm, unsigned long addr,
		   struct pagestat_fw *r)
{
	struct vm_area_struct *vma;
	struct folio_walk fw;
	struct folio *folio;

	memset(r, 0, sizeof(*r));
	vma = vma_lookup(mm, addr);
	if (!vma)
		return;
	folio = folio_walk_start(&fw, vma, addr, FW_ZEROPAGE);
	if (!folio)
		return;
	r->found = true;
	r->level = fw.level;
	r->zero = is_zero_folio(folio);
	r->huge_zero = is_huge_zero_folio(folio);
	r->zone_device = folio_is_zone_device(folio);
	r->device_private = folio_is_device_private(folio);
	r->hugetlb = folio_test_hugetlb(folio);
	r->large = folio_test_large(folio);
	r->order = folio_order(folio);
	r->anon = folio_test_anon(folio);
	r->nid = folio_nid(folio);
	folio_walk_end(&fw, vma);
}

static void pagestat_fw(struct pagestat_ctx *ctx, unsigned long addr,
			struct pagestat_fw *r)
{
	mmap_read_lock(ctx->mm);
	__pagestat_fw(ctx->mm, addr, r);
	mmap_read_unlock(ctx->mm);
}

/**
 * pagestat_verdict() - a builder's or probe's verdict, with its reason
 * @ctx: the case's context; @ctx->msg gets the reason.
 * @v: the verdict.
 * @fmt: printf() format of the reason, then its arguments.
 *
 * Return: @v.
 */
__printf(3, 4) enum pagestat_verdict
pagestat_verdict(struct pagestat_ctx *ctx, enum pagestat_verdict v,
		 const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, args);
	va_end(args);
	return v;
}

/* The pattern entry that covers @addr. */
static char pagestat_char(const struct pagestat_seg *seg, unsigned long addr)
{
	return seg->pattern[(addr - seg->start) >> seg->shift];
}

/**
 * pagestat_node() - the node a pattern character asks for
 * @ctx: the case's context.
 * @c: a pattern character; '1', 'K' and 'b' ask for the second node.
 *
 * Return: the first or the second memory node of the machine.
 */
int pagestat_node(const struct pagestat_ctx *ctx, char c)
{
	return ctx->nid[c == '1' || c == 'K' || c == 'b'];
}

/*
 * x86 pud_present() ignores _PAGE_PROTNONE (arch/x86/include/asm/pgtable.h);
 * arm64's sees a PROT_NONE entry as present, like its pte_present().
 */
static bool pagestat_protnone_1g(const struct pagestat_seg *seg)
{
	return IS_ENABLED(CONFIG_X86) && seg->protnone &&
	       seg->kind == PAGESTAT_HUGETLB && seg->shift == PUD_SHIFT;
}

/* The zapped page of a PTE-mapped THP, the linear page of a leaf-cow PMD */
static bool pagestat_zapped(const struct pagestat_seg *seg,
			    unsigned long addr, char c)
{
	return (c == 'a' || c == 'b' || seg->kind == PAGESTAT_LEAF_COW) &&
	       ((addr & ~PMD_MASK) >> PAGE_SHIFT) == seg->zap;
}

static enum pagestat_verdict
pagestat_probe_miss(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
		    unsigned long addr, char c, const char *want,
		    const struct pagestat_fw *f, const struct pagestat_raw *r)
{
	return pagestat_verdict(ctx, PAGESTAT_FAIL,
				"%s segment at %#lx, '%c' at %#lx: expected %s; folio_walk: found %d level %u zero %d/%d zone_device %d hugetlb %d large %d anon %d nid %d; raw: %s flags %#x",
				pagestat_kind_name[seg->kind], seg->start, c,
				addr, want, f->found, f->level, f->zero,
				f->huge_zero, f->zone_device, f->hugetlb,
				f->large, f->anon, f->nid,
				pagestat_raw_name[r->level], r->flags);
}

/* '0', '1', 'r', 'k', 'K', 'a', 'b': a normal folio on the right node. */
static enum pagestat_verdict
pagestat_probe_folio(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
		     unsigned long addr, char c, const struct pagestat_fw *f,
		     const struct pagestat_raw *r)
{
	bool hugetlb = seg->kind == PAGESTAT_HUGETLB, large = false;
	int level = FW_LEVEL_PTE, anon = 1;

	if (pagestat_protnone_1g(seg)) {
		if (f->found || r->level != PAGESTAT_RAW_PUD ||
		    (r->flags & PAGESTAT_RAW_PRESENT) ||
		    !(r->flags & PAGESTAT_RAW_LEAF))
			return pagestat_probe_miss(ctx, seg, addr, c,
						   "a PROT_NONE 1 GiB leaf",
						   f, r);
		return PAGESTAT_OK;
	}

	switch (seg->kind) {
	case PAGESTAT_THP:
		large = true;
		if ((c == '0' || c == '1') && seg->shift >= PMD_SHIFT)
			level = FW_LEVEL_PMD;
		break;
	case PAGESTAT_HUGETLB:
		/* arm64's contiguous PTEs and PMDs map at the lower level */
		level = seg->shift >= PUD_SHIFT ? FW_LEVEL_PUD :
			seg->shift >= PMD_SHIFT ? FW_LEVEL_PMD : FW_LEVEL_PTE;
		anon = -1;
		break;
	case PAGESTAT_LEAF:
	case PAGESTAT_LEAF_COW:
		level = seg->shift == PUD_SHIFT ? FW_LEVEL_PUD : FW_LEVEL_PMD;
		/* a 1 GiB folio comes from the hugetlb pool */
		hugetlb = seg->shift == PUD_SHIFT;
		large = true;
		anon = 0;
		break;
	case PAGESTAT_SHMEM:
		level = -1;	/* shmem THP may be enabled */
		anon = 0;
		break;
	case PAGESTAT_MIXEDMAP:
		anon = 0;
		break;
	default:
		break;
	}

	if (!f->found || f->zero || f->huge_zero || f->zone_device ||
	    (level >= 0 && f->level != level) ||
	    (anon >= 0 && f->anon != anon) || (large && !f->large) ||
	    f->hugetlb != hugetlb ||
	    f->nid != pagestat_node(ctx, c))
		return pagestat_probe_miss(ctx, seg, addr, c,
					   "a folio on the node of its pattern",
					   f, r);
	/* an mTHP: a folio of the segment's size, PTE-mapped */
	if (seg->kind == PAGESTAT_THP && seg->shift < PMD_SHIFT &&
	    (c == '0' || c == '1') && f->order != seg->shift - PAGE_SHIFT)
		return pagestat_probe_miss(ctx, seg, addr, c,
					   "a folio of the segment's order",
					   f, r);
#ifdef CONFIG_ARM64_CONTPTE
	/* which arm64 maps with contiguous PTEs when it is 64 KiB */
	if (seg->kind == PAGESTAT_THP && seg->shift == CONT_PTE_SHIFT &&
	    !(r->flags & PAGESTAT_RAW_CONT))
		return pagestat_probe_miss(ctx, seg, addr, c,
					   "contiguous PTEs", f, r);
#endif
	return PAGESTAT_OK;
}

/* Caller holds mmap_read_lock(). Must not assert. */
static enum pagestat_verdict
pagestat_probe_entry(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
		     unsigned long addr)
{
	char c = pagestat_char(seg, addr);
	u8 level = PAGESTAT_RAW_PTE;
	struct pagestat_raw r;
	struct pagestat_fw f;

	__pagestat_fw(ctx->mm, addr, &f);
	__pagestat_raw(ctx->mm, addr, &r);

	if (seg->kind == PAGESTAT_GAP) {
		if (r.level != PAGESTAT_RAW_NOVMA)
			return pagestat_probe_miss(ctx, seg, addr, c, "no VMA",
						   &f, &r);
		return PAGESTAT_OK;
	}
	if (seg->shift >= PUD_SHIFT)
		level = PAGESTAT_RAW_PUD;
	else if (seg->shift >= PMD_SHIFT)
		level = PAGESTAT_RAW_PMD;

	switch (c) {
	case '.':
		if (!pagestat_raw_hole(r.level) || f.found ||
		    (seg->hole && r.level != seg->hole))
			return pagestat_probe_miss(ctx, seg, addr, c,
						   pagestat_raw_name[seg->hole],
						   &f, &r);
		return PAGESTAT_OK;
	case 'x':
		if (r.level != PAGESTAT_RAW_PTE_NONE)
			return pagestat_probe_miss(ctx, seg, addr, c,
						   "an empty PTE", &f, &r);
		return PAGESTAT_OK;
	case 'a':
	case 'b':
		if (pagestat_zapped(seg, addr, c)) {
			if (r.level != PAGESTAT_RAW_PTE_NONE)
				return pagestat_probe_miss(ctx, seg, addr, c,
							   "the zapped PTE",
							   &f, &r);
			return PAGESTAT_OK;
		}
		fallthrough;
	case '0':
	case '1':
		/* vm_normal_page_pmd(): the linear pfn of a VM_PFNMAP */
		if (pagestat_zapped(seg, addr, c)) {
			if (f.found || r.level != PAGESTAT_RAW_PMD ||
			    (r.flags & PAGESTAT_RAW_SPECIAL))
				return pagestat_probe_miss(ctx, seg, addr, c,
							   "a leaf, no folio",
							   &f, &r);
			return PAGESTAT_OK;
		}
		fallthrough;
	case 'r':
	case 'k':
	case 'K':
		return pagestat_probe_folio(ctx, seg, addr, c, &f, &r);
	case 'z':
		if (!f.found ||
		    (seg->kind == PAGESTAT_THP ?
		     !f.huge_zero || f.level != FW_LEVEL_PMD :
		     !f.zero || f.level != FW_LEVEL_PTE))
			return pagestat_probe_miss(ctx, seg, addr, c,
						   "a zero folio", &f, &r);
		return PAGESTAT_OK;
	case 's':
	case 'd':
		if (f.found || r.level != level ||
		    !(r.flags & PAGESTAT_RAW_PRESENT) ||
		    !(r.flags & (c == 's' ? PAGESTAT_RAW_SPECIAL :
				 PAGESTAT_RAW_DEVMAP)))
			return pagestat_probe_miss(ctx, seg, addr, c,
						   c == 's' ? "special" :
						   "devmap", &f, &r);
		return PAGESTAT_OK;
	case 'e':
	case 'v':
		if (r.level != PAGESTAT_RAW_PTE ||
		    !(r.flags & (c == 'e' ? PAGESTAT_RAW_DEV_EXCL :
				 PAGESTAT_RAW_DEV_PRIV)))
			return pagestat_probe_miss(ctx, seg, addr, c,
						   c == 'e' ? "dev-exclusive" :
						   "dev-private", &f, &r);
		return PAGESTAT_OK;
	case 'D':
		if (!f.found || !f.device_private || f.level != FW_LEVEL_PTE)
			return pagestat_probe_miss(ctx, seg, addr, c,
						   "a device-private page",
						   &f, &r);
		return PAGESTAT_OK;
	default:
		return pagestat_probe_miss(ctx, seg, addr, c,
					   "a known pattern character", &f, &r);
	}
}

/* Every small entry, and the first, middle and last page of a huge one. */
static enum pagestat_verdict pagestat_probe_seg(struct pagestat_ctx *ctx,
						const struct pagestat_seg *seg)
{
	unsigned long size = 1UL << seg->shift, e, off[6];
	enum pagestat_verdict v = PAGESTAT_OK;
	unsigned int j, n;

	mmap_read_lock(ctx->mm);
	for (e = seg->start; e < seg->end && v == PAGESTAT_OK; e += size) {
		char c = pagestat_char(seg, e);

		n = 0;
		off[n++] = 0;
		if (size > PAGE_SIZE) {
			off[n++] = size / 2;
			off[n++] = size - PAGE_SIZE;
		}
		if (c == 'a' || c == 'b' || seg->kind == PAGESTAT_LEAF_COW) {
			off[n++] = (unsigned long)seg->zap << PAGE_SHIFT;
			if (seg->zap)
				off[n++] = (seg->zap - 1UL) << PAGE_SHIFT;
			if (seg->zap + 1 < PMD_SIZE / PAGE_SIZE)
				off[n++] = (seg->zap + 1UL) << PAGE_SHIFT;
		}
		for (j = 0; j < n && v == PAGESTAT_OK; j++)
			v = pagestat_probe_entry(ctx, seg, e + off[j]);
		if (!((e - seg->start) % (64 * size)))
			cond_resched();
	}
	mmap_read_unlock(ctx->mm);
	return v;
}

/**
 * pagestat_bind() - bind the task's memory policy to a node
 * @nid: the node, or NUMA_NO_NODE for the default policy.
 *
 * Context: Process context; the test's own task.
 * Return: 0, or -EINVAL if the policy cannot be made.
 */
int pagestat_bind(int nid)
{
	struct mempolicy *pol = NULL, *old;
	char buf[16];

	if (nid != NUMA_NO_NODE) {
		snprintf(buf, sizeof(buf), "bind:%d", nid);
		/* mpol_new() is static: the tmpfs mount option parser is not */
		if (mpol_parse_str(buf, &pol))
			return -EINVAL;
	}
	/* as do_set_mempolicy() does for the current task */
	task_lock(current);
	old = current->mempolicy;
	current->mempolicy = pol;
	task_unlock(current);
	mpol_put(old);
	return 0;
}

/**
 * pagestat_populate() - fault a range in on a node
 * @ctx: the case's context.
 * @addr: start of the range.
 * @len: length of the range in bytes.
 * @write: fault for write; for read otherwise.
 * @nid: the node the task is bound to while the range faults in.
 *
 * Context: Process context, may sleep; takes mmap_read_lock(@ctx->mm).
 * Return: 0, or a negative errno.
 */
int pagestat_populate(struct pagestat_ctx *ctx, unsigned long addr,
		      unsigned long len, bool write, int nid)
{
	int ret = pagestat_bind(nid);

	if (!ret)
		ret = do_madvise(ctx->mm, addr, len,
				 write ? MADV_POPULATE_WRITE :
				 MADV_POPULATE_READ);
	pagestat_bind(NUMA_NO_NODE);
	return ret;
}

/**
 * pagestat_mmap() - map a range at a fixed address, read and write
 * @file: the file to map, or NULL for anonymous memory.
 * @addr: the address; nothing may be mapped there (MAP_FIXED_NOREPLACE).
 * @len: length in bytes.
 * @flags: MAP_* flags.
 *
 * Context: Process context, may sleep; the mmap lock is not held.
 * Return: 0, -EADDRINUSE if the mapping landed elsewhere, or a negative
 * errno from vm_mmap().
 */
int pagestat_mmap(struct file *file, unsigned long addr,
		  unsigned long len, unsigned long flags)
{
	unsigned long ret;

	ret = vm_mmap(file, addr, len, PROT_READ | PROT_WRITE,
		      flags | MAP_FIXED_NOREPLACE, 0);
	if (IS_ERR_VALUE(ret))
		return (int)ret;
	return ret == addr ? 0 : -EADDRINUSE;
}

/**
 * pagestat_mprotect() - mprotect() without a system call
 * @mm: the address space.
 * @start: start of the range, page aligned.
 * @end: end of the range, page aligned.
 * @access: the VM_READ, VM_WRITE and VM_EXEC bits to set; others are kept.
 *
 * The loop of do_mprotect_pkey() (mm/mprotect.c), which is static: each
 * VMA of the range gets the new protection with mprotect_fixup().
 *
 * Context: Process context, may sleep; takes mmap_write_lock(@mm).
 * Return: 0, or a negative errno.
 */
int pagestat_mprotect(struct mm_struct *mm, unsigned long start,
		      unsigned long end, unsigned long access)
{
	struct vm_area_struct *vma, *prev;
	struct mmu_gather tlb;
	unsigned long addr, next;
	int err = 0;

	mmap_write_lock(mm);
	tlb_gather_mmu(&tlb, mm);
	for (addr = start; addr < end && !err; addr = next) {
		VMA_ITERATOR(vmi, mm, addr);

		vma = vma_find(&vmi, end);
		if (!vma || vma->vm_start > addr) {
			err = -ENOMEM;
			break;
		}
		prev = vma_prev(&vmi);
		if (addr > vma->vm_start)
			prev = vma;
		vma = vma_find(&vmi, end);
		next = min(vma->vm_end, end);
		err = mprotect_fixup(&vmi, &tlb, vma, &prev, addr, next,
				     (vma->vm_flags & ~VM_ACCESS_FLAGS) |
				     access);
	}
	tlb_finish_mmu(&tlb);
	mmap_write_unlock(mm);
	return err;
}

static struct pagestat_fmode pagestat_fmode_pfnmap = {
	.vm_flags = VM_PFNMAP | VM_IO,
};

struct pagestat_fmode pagestat_fmode_mixedmap = {
	.vm_flags = VM_MIXEDMAP,
};

static struct pagestat_fmode pagestat_fmode_remap = {
	.remap = true,
};

/* COW VM_PFNMAP without remap_pfn_range(); .pgoff set by the builder */
static struct pagestat_fmode pagestat_fmode_linear = {
	.vm_flags = VM_PFNMAP | VM_IO,
};

static vm_fault_t pagestat_vm_fault(struct vm_fault *vmf)
{
	/* Only the builders put entries here. */
	return VM_FAULT_SIGBUS;
}

/* Without vm_ops a VMA counts as anonymous (vma_is_anonymous()). */
static const struct vm_operations_struct pagestat_vm_ops = {
	.fault		= pagestat_vm_fault,
};

static int pagestat_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	const struct pagestat_fmode *mode = file->private_data;

	vma->vm_ops = &pagestat_vm_ops;
	if (mode->remap) {
		/* a COW mapping must be remapped whole (remap_pfn_range()) */
		if (vma_pages(vma) > PAGESTAT_KPAGES)
			return -EINVAL;
		return remap_pfn_range(vma, vma->vm_start, pagestat_kpfn(0),
				       vma->vm_end - vma->vm_start,
				       vma->vm_page_prot);
	}
	vm_flags_set(vma, mode->vm_flags | VM_DONTEXPAND | VM_DONTDUMP);
	if (mode->pgoff)
		vma->vm_pgoff = mode->pgoff;
	return 0;
}

static const struct file_operations pagestat_fops = {
	.owner		= THIS_MODULE,
	.mmap		= pagestat_file_mmap,
};

/**
 * pagestat_mmap_file() - map a synthetic device file
 * @mode: what the file's mmap() makes of its VMAs (VM_PFNMAP, VM_MIXEDMAP,
 *	a remap_pfn_range() of the kernel pages, a linear pgoff).
 * @addr: the address; nothing may be mapped there.
 * @len: length in bytes.
 * @flags: MAP_SHARED or MAP_PRIVATE, and other MAP_* flags.
 *
 * Context: Process context, may sleep.
 * Return: 0, or a negative errno.
 */
int pagestat_mmap_file(struct pagestat_fmode *mode, unsigned long addr,
		       unsigned long len, unsigned long flags)
{
	struct file *file;
	int ret;

	file = anon_inode_getfile("[pagestat_kunit]", &pagestat_fops, mode,
				  O_RDWR);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = pagestat_mmap(file, addr, len, flags);
	fput(file);
	return ret;
}

/* A private anon VMA over @seg (@what, for the reason), madvise(@advice)d. */
static enum pagestat_verdict pagestat_mmap_anon(struct pagestat_ctx *ctx,
						const struct pagestat_seg *seg,
						int advice, const char *what)
{
	unsigned long len = seg->end - seg->start;
	int ret;

	ret = pagestat_mmap(NULL, seg->start, len,
			    MAP_PRIVATE | MAP_ANONYMOUS);
	if (!ret)
		ret = do_madvise(ctx->mm, seg->start, len, advice);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL, "%s mmap at %#lx: %d",
					what, seg->start, ret);
	return PAGESTAT_OK;
}

static enum pagestat_verdict pagestat_build_anon(struct pagestat_ctx *ctx,
						 struct pagestat_seg *seg)
{
	enum pagestat_verdict v;
	unsigned long addr;
	int ret = 0;

	/* 4 KiB pages, whatever the THP mode */
	v = pagestat_mmap_anon(ctx, seg, MADV_NOHUGEPAGE, "anon");
	if (v != PAGESTAT_OK)
		return v;
	for (addr = seg->start; addr < seg->end; addr += PAGE_SIZE) {
		char c = seg->pattern[(addr - seg->start) >> PAGE_SHIFT];

		if (c == '0' || c == '1' || c == 'x' || c == 'e')
			ret = pagestat_populate(ctx, addr, PAGE_SIZE, true,
						pagestat_node(ctx, c));
		else if (c == 'z')
			ret = pagestat_populate(ctx, addr, PAGE_SIZE, false,
						NUMA_NO_NODE);
		if (ret)
			return pagestat_verdict(ctx, PAGESTAT_FAIL,
						"populating '%c' at %#lx: %d",
						c, addr, ret);
	}
	return PAGESTAT_OK;
}

/*
 * THPs, one per entry of the pattern: PMD-sized, or of the segment's
 * smaller size (an mTHP), which the fault allocates while its order is
 * enabled for MADV_HUGEPAGE VMAs (as in sysfs' hugepages-<size>/enabled).
 */
static enum pagestat_verdict pagestat_build_thp(struct pagestat_ctx *ctx,
						struct pagestat_seg *seg)
{
	unsigned long addr;
	unsigned long size = 1UL << seg->shift;
	unsigned int order = seg->shift - PAGE_SHIFT;
	bool mthp = seg->shift < PMD_SHIFT, was_set = false;
	enum pagestat_verdict v = PAGESTAT_OK;
	struct pagestat_fw f;
	int ret;

	/* transparent_hugepage=madvise needs it */
	v = pagestat_mmap_anon(ctx, seg, MADV_HUGEPAGE, "THP");
	if (v != PAGESTAT_OK)
		return v;
	/*
	 * As writing "madvise" to hugepages-<size>/enabled would, but the
	 * sysfs lock is static to mm/huge_memory.c: the bit is set with an
	 * atomic op and put back as it was, nothing else in a KUnit kernel
	 * writing it meanwhile.
	 */
	if (mthp)
		was_set = test_and_set_bit(order, &huge_anon_orders_madvise);
	for (addr = seg->start; addr < seg->end && v == PAGESTAT_OK;
	     addr += size) {
		char c = pagestat_char(seg, addr);

		if (c == '.')
			continue;
		ret = pagestat_populate(ctx, addr, size, c != 'z',
					c == 'z' ? NUMA_NO_NODE :
					pagestat_node(ctx, c));
		if (ret) {
			v = pagestat_verdict(ctx, PAGESTAT_FAIL,
					     "populating '%c' at %#lx: %d",
					     c, addr, ret);
			break;
		}
		/* A failed THP allocation silently falls back to 4 KiB. */
		pagestat_fw(ctx, addr, &f);
		if (c == 'z' && (!f.found || !f.huge_zero ||
				 f.level != FW_LEVEL_PMD))
			v = pagestat_verdict(ctx, PAGESTAT_SKIP,
					     "no huge zero PMD at %#lx (THP disabled or no huge zero folio?)",
					     addr);
		else if (c != 'z' && (!f.found || f.order != order ||
				      (!mthp && f.level != FW_LEVEL_PMD)))
			v = pagestat_verdict(ctx, PAGESTAT_SKIP,
					     "THP allocation on node %d fell back to small pages at %#lx",
					     pagestat_node(ctx, c), addr);
	}
	if (mthp && !was_set)
		clear_bit(order, &huge_anon_orders_madvise);
	return v;
}

/* The previous case's mm may still be returning its pages (exit_mm()). */
static bool pagestat_hugetlb_wait(struct hstate *h, int nid, unsigned int nr)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (READ_ONCE(h->free_huge_pages_node[nid]) >= nr)
			return true;
		msleep(20);
	}
	return false;
}

static enum pagestat_verdict pagestat_build_hugetlb(struct pagestat_ctx *ctx,
						    struct pagestat_seg *seg)
{
	unsigned long addr, size = 1UL << seg->shift;
	unsigned long len = seg->end - seg->start;
	unsigned int idx, need[2] = { };
	struct hstate *h;
	int ret;

	h = size_to_hstate(size);
	if (!h)
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"no %lu KiB hugetlb hstate (hugepagesz=)",
					size >> 10);
	for (idx = 0; seg->pattern[idx]; idx++)
		if (seg->pattern[idx] != '.')
			need[seg->pattern[idx] == '1']++;
	for (idx = 0; idx < 2; idx++)
		if (need[idx] && !pagestat_hugetlb_wait(h, ctx->nid[idx],
							need[idx]))
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"needs %u free %lu KiB hugetlb pages on node %d (hugepages=)",
						need[idx], size >> 10,
						ctx->nid[idx]);

	/*
	 * vm_mmap() ignores MAP_HUGETLB (only ksys_mmap_pgoff() makes the
	 * hugetlbfs file); the default policy keeps the reservation global.
	 */
	addr = ksys_mmap_pgoff(seg->start, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			       MAP_FIXED_NOREPLACE |
			       ((unsigned long)seg->shift << MAP_HUGE_SHIFT),
			       -1UL, 0);
	if (addr == (unsigned long)-ENOMEM)
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"no %lu KiB hugetlb pages to reserve",
					size >> 10);
	if (addr != seg->start)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"hugetlb mmap at %#lx: %ld", seg->start,
					(long)addr);
	for (addr = seg->start; addr < seg->end; addr += size) {
		char c = pagestat_char(seg, addr);

		if (c == '.')
			continue;
		ret = pagestat_populate(ctx, addr, size, true,
					pagestat_node(ctx, c));
		if (ret)
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"no %lu KiB hugetlb page on node %d: %d",
						size >> 10,
						pagestat_node(ctx, c), ret);
	}
	return PAGESTAT_OK;
}

static enum pagestat_verdict pagestat_build_shmem(struct pagestat_ctx *ctx,
						  struct pagestat_seg *seg)
{
	unsigned long addr;
	int ret;

	ret = pagestat_mmap(NULL, seg->start, seg->end - seg->start,
			    MAP_SHARED | MAP_ANONYMOUS);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"shmem mmap at %#lx: %d", seg->start,
					ret);
	for (addr = seg->start; addr < seg->end; addr += PAGE_SIZE) {
		char c = seg->pattern[(addr - seg->start) >> PAGE_SHIFT];

		if (c == '.')
			continue;
		/* shmem allocates on read faults too: no zero page */
		ret = pagestat_populate(ctx, addr, PAGE_SIZE, c != 'r',
					pagestat_node(ctx, c));
		if (ret)
			return pagestat_verdict(ctx, PAGESTAT_FAIL,
						"populating '%c' at %#lx: %d",
						c, addr, ret);
	}
	return PAGESTAT_OK;
}

/* Inserts a special or devmap PMD or PUD, as a huge pfnmap fault would. */
static vm_fault_t pagestat_insert_huge(struct mm_struct *mm,
				       struct vm_area_struct *vma,
				       unsigned long addr, unsigned int shift,
				       pfn_t pfn)
{
	struct vm_fault vmf = { .vma = vma, .address = addr };
	p4d_t *p4d;

	p4d = p4d_alloc(mm, pgd_offset(mm, addr), addr);
	if (!p4d)
		return VM_FAULT_OOM;
	vmf.pud = pud_alloc(mm, p4d, addr);
	if (!vmf.pud)
		return VM_FAULT_OOM;
	/* built without PUD THP support: pagestat_build_pfns() skips first */
	if (shift == PUD_SHIFT)
		return IS_ENABLED(CONFIG_HAVE_ARCH_TRANSPARENT_HUGEPAGE_PUD) ?
		       vmf_insert_pfn_pud(&vmf, pfn, false) : VM_FAULT_FALLBACK;
	vmf.pmd = pmd_alloc(mm, vmf.pud, addr);
	if (!vmf.pmd)
		return VM_FAULT_OOM;
	return vmf_insert_pfn_pmd(&vmf, pfn, false);
}

/**
 * pagestat_fill_pfn() - install one entry of a PFN or mixed map segment
 * @ctx: the case's context.
 * @seg: the segment.
 * @vma: the segment's VMA.
 * @addr: the entry's address.
 * @c: the entry's pattern character ('0', '1', 'k', 'K', 'z', 's', 'd').
 *
 * Context: Caller holds mmap_read_lock(@ctx->mm).
 * Return: 0, or a negative errno from the insert.
 */
int pagestat_fill_pfn(struct pagestat_ctx *ctx,
		      const struct pagestat_seg *seg,
		      struct vm_area_struct *vma, unsigned long addr,
		      char c)
{
	pfn_t huge = pfn_to_pfn_t(PAGESTAT_HUGE_PFN);
	pfn_t pfn = pfn_to_pfn_t(pagestat_kpfn(1));
	vm_fault_t fault = VM_FAULT_NOPAGE;
	struct page *page;
	int err;

	if (c == 'd') {
		huge = __pfn_to_pfn_t(PAGESTAT_HUGE_PFN, PFN_DEV | PFN_MAP);
		pfn = __pfn_to_pfn_t(pagestat_kpfn(2), PFN_DEV | PFN_MAP);
	} else if (c == 'z') {
		pfn = pfn_to_pfn_t(my_zero_pfn(addr));
	}

	switch (c) {
	case 's':
	case 'd':
	case 'z':
		if (seg->kind == PAGESTAT_PFNMAP_HUGE)
			fault = pagestat_insert_huge(ctx->mm, vma, addr,
						     seg->shift, huge);
		else if (seg->kind == PAGESTAT_PFNMAP)
			fault = vmf_insert_pfn(vma, addr, pfn_t_to_pfn(pfn));
		else
			/* zero pfns in a VM_MIXEDMAP need a COW mapping */
			fault = vmf_insert_mixed(vma, addr, pfn);
		return fault == VM_FAULT_NOPAGE ? 0 : -EIO;
	case 'k':
	case 'K':
		page = alloc_pages_node(pagestat_node(ctx, c),
					GFP_KERNEL | __GFP_THISNODE |
					__GFP_NOWARN, 0);
		if (!page)
			return -ENOMEM;
		err = vm_insert_page(vma, addr, page);
		/* the PTE holds the only reference from now on */
		put_page(page);
		return err;
#ifdef CONFIG_DEVICE_PRIVATE
	case 'D':
		page = pagestat_devmem_alloc();
		if (!page)
			return -ENOSPC;
		unlock_page(page);
		err = vm_insert_page(vma, addr, page);
		put_page(page);
		return err;
#endif
	default:
		return 0;
	}
}

/* Installs the entries of a VM_PFNMAP or VM_MIXEDMAP segment. */
static enum pagestat_verdict pagestat_fill_pfns(struct pagestat_ctx *ctx,
						struct pagestat_seg *seg)
{
	unsigned long addr, size = 1UL << seg->shift;
	struct vm_area_struct *vma;
	int err = 0;
	char c = 0;

	mmap_read_lock(ctx->mm);
	vma = vma_lookup(ctx->mm, seg->start);
	for (addr = seg->start; vma && addr < seg->end; addr += size) {
		c = pagestat_char(seg, addr);
		err = pagestat_fill_pfn(ctx, seg, vma, addr, c);
		if (err)
			break;
	}
	mmap_read_unlock(ctx->mm);

	if (!vma)
		return pagestat_verdict(ctx, PAGESTAT_FAIL, "no VMA at %#lx",
					seg->start);
	if (err == -ENOSPC)
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"out of device pages");
	if (err)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"inserting '%c' at %#lx: %d", c, addr,
					err);
	return PAGESTAT_OK;
}

static enum pagestat_verdict pagestat_build_pfns(struct pagestat_ctx *ctx,
						 struct pagestat_seg *seg)
{
	unsigned long len = seg->end - seg->start;
	int ret;

	/* without them pmd_special() and pud_special() are always false */
	if (seg->kind == PAGESTAT_PFNMAP_HUGE && seg->shift == PUD_SHIFT &&
	    !IS_ENABLED(CONFIG_ARCH_SUPPORTS_PUD_PFNMAP))
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"needs CONFIG_ARCH_SUPPORTS_PUD_PFNMAP");
	if (seg->kind == PAGESTAT_PFNMAP_HUGE && seg->shift == PMD_SHIFT &&
	    !IS_ENABLED(CONFIG_ARCH_SUPPORTS_PMD_PFNMAP))
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"needs CONFIG_ARCH_SUPPORTS_PMD_PFNMAP");
	/* vmf_insert_pfn*() BUG() on a COW VM_PFNMAP mapping */
	if (seg->kind == PAGESTAT_MIXEDMAP)
		ret = pagestat_mmap_file(&pagestat_fmode_mixedmap, seg->start,
					 len, MAP_PRIVATE);
	else
		ret = pagestat_mmap_file(&pagestat_fmode_pfnmap, seg->start,
					 len, MAP_SHARED);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"%s mmap at %#lx: %d",
					pagestat_kind_name[seg->kind],
					seg->start, ret);
	return pagestat_fill_pfns(ctx, seg);
}

static enum pagestat_verdict pagestat_build_cow(struct pagestat_ctx *ctx,
						struct pagestat_seg *seg)
{
	unsigned long addr;
	int ret;

	ret = pagestat_mmap_file(&pagestat_fmode_remap, seg->start,
				 seg->end - seg->start, MAP_PRIVATE);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"remap mmap at %#lx: %d", seg->start,
					ret);
	for (addr = seg->start; addr < seg->end; addr += PAGE_SIZE) {
		char c = seg->pattern[(addr - seg->start) >> PAGE_SHIFT];

		if (c != '0' && c != '1')
			continue;
		/* GUP refuses VM_IO | VM_PFNMAP: take a real write fault */
		ret = pagestat_bind(pagestat_node(ctx, c));
		if (!ret)
			ret = put_user((u8)1, (u8 __user *)addr);
		pagestat_bind(NUMA_NO_NODE);
		if (ret)
			return pagestat_verdict(ctx, PAGESTAT_FAIL,
						"COW write at %#lx: %d", addr,
						ret);
	}
	return PAGESTAT_OK;
}

KUNIT_DEFINE_ACTION_WRAPPER(pagestat_folio_put, folio_put, struct folio *);

/*
 * A folio for a synthetic leaf: 2 MiB from buddy; 1 GiB from the node's
 * hugetlb pool, reserved at boot (hugepages=), where it is there on every
 * boot, while a free aligned GiB for alloc_contig_range() is not.
 */
static struct folio *pagestat_leaf_folio(struct pagestat_ctx *ctx,
					 unsigned int shift, int nid)
{
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN;
	struct folio *folio;
	struct hstate *h;

	if (ctx->nr_folios == ARRAY_SIZE(ctx->folios))
		return NULL;
	if (shift == PUD_SHIFT) {
		h = size_to_hstate(PUD_SIZE);
		folio = h && pagestat_hugetlb_wait(h, nid, 1) ?
			alloc_hugetlb_folio_nodemask(h, nid, NULL, gfp, false) :
			NULL;
	} else {
		folio = __folio_alloc_node(gfp, PMD_ORDER, nid);
	}
	if (!folio)
		return NULL;
	/* a backstop if the case stops early; runs after exit_mm() */
	if (kunit_add_action_or_reset(ctx->test, pagestat_folio_put, folio))
		return NULL;
	ctx->folios[ctx->nr_folios++] = folio;
	return folio;
}

/* Installs a PMD or PUD leaf of @folio; mmap_read_lock held. */
static int pagestat_set_leaf(struct mm_struct *mm, struct vm_area_struct *vma,
			     unsigned long addr, unsigned int shift,
			     struct folio *folio)
{
	spinlock_t *ptl;	/* pud_lock() or pmd_lock() */
	int ret = 0;
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;

	p4d = p4d_alloc(mm, pgd_offset(mm, addr), addr);
	pud = p4d ? pud_alloc(mm, p4d, addr) : NULL;
	if (!pud)
		return -ENOMEM;
	if (shift == PUD_SHIFT) {
		ptl = pud_lock(mm, pud);
		if (pud_none(*pud))
			set_pud_at(mm, addr, pud,
				   pud_mkhuge(pfn_pud(folio_pfn(folio),
						      vma->vm_page_prot)));
		else
			ret = -EBUSY;
		spin_unlock(ptl);
		return ret;
	}
	pmd = pmd_alloc(mm, pud, addr);
	if (!pmd)
		return -ENOMEM;
	ptl = pmd_lock(mm, pmd);
	if (pmd_none(*pmd))
		set_pmd_at(mm, addr, pmd,
			   pmd_mkhuge(pfn_pmd(folio_pfn(folio),
					      vma->vm_page_prot)));
	else
		ret = -EBUSY;
	spin_unlock(ptl);
	return ret;
}

/*
 * PMD and PUD leaves outside hugetlb and THP that are neither special nor
 * devmap: stock reads a PUD with pud_page() (there is no
 * vm_normal_page_pud() in 6.12), a PMD with vm_normal_page_pmd(), which in
 * a COW VM_PFNMAP VMA hides the one page whose linear pfn (vm_pgoff +
 * index) is the PMD's pfn. zap_huge_pud() BUG()s unless the VMA is
 * vma_is_special_huge(), hence file VMAs; zapping there only clears the
 * entry, so the folios are put after the unmap (pagestat_teardown()).
 */
static enum pagestat_verdict pagestat_build_leaf(struct pagestat_ctx *ctx,
						 struct pagestat_seg *seg)
{
	unsigned long addr, size = 1UL << seg->shift;
	unsigned int first = ctx->nr_folios, i;
	struct vm_area_struct *vma;
	int ret = 0;

	/* all folios first: without one, the case skips before any mmap */
	for (addr = seg->start; addr < seg->end; addr += size) {
		char c = pagestat_char(seg, addr);

		if (c == '.')
			continue;
		if (!pagestat_leaf_folio(ctx, seg->shift,
					 pagestat_node(ctx, c)))
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"no free %lu MiB folio on node %d (of 1 GiB: hugepages=)",
						size >> 20,
						pagestat_node(ctx, c));
	}
	if (seg->kind == PAGESTAT_LEAF_COW) {
		if (seg->shift != PMD_SHIFT || seg->end - seg->start != size ||
		    first == ctx->nr_folios)
			return pagestat_verdict(ctx, PAGESTAT_FAIL,
						"leaf-cow: one populated PMD");
		pagestat_fmode_linear.pgoff = folio_pfn(ctx->folios[first]) -
					      seg->zap;
		ret = pagestat_mmap_file(&pagestat_fmode_linear, seg->start,
					 size, MAP_PRIVATE);
	} else {
		ret = pagestat_mmap_file(&pagestat_fmode_mixedmap, seg->start,
					 seg->end - seg->start, MAP_SHARED);
	}
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"%s mmap at %#lx: %d",
					pagestat_kind_name[seg->kind],
					seg->start, ret);

	mmap_read_lock(ctx->mm);
	vma = vma_lookup(ctx->mm, seg->start);
	i = first;
	for (addr = seg->start; vma && addr < seg->end && !ret; addr += size)
		if (pagestat_char(seg, addr) != '.')
			ret = pagestat_set_leaf(ctx->mm, vma, addr, seg->shift,
						ctx->folios[i++]);
	mmap_read_unlock(ctx->mm);
	if (!vma || ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"installing a leaf at %#lx: %d",
					seg->start, ret);
	return PAGESTAT_OK;
}

/*
 * Phase 1 maps and populates; phase 2, once khugepaged is kept away,
 * zaps, makes device entries and applies PROT_NONE.
 */
static enum pagestat_verdict pagestat_build_seg(struct pagestat_ctx *ctx,
						struct pagestat_seg *seg,
						int phase)
{
	enum pagestat_verdict v = PAGESTAT_OK;
	unsigned long addr;
	int ret = 0;

	if (phase == 1) {
		if (strpbrk(seg->pattern, "1Kb") &&
		    ctx->nid[1] == NUMA_NO_NODE)
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"needs a second NUMA node with memory");
		if (strpbrk(seg->pattern, "evD") && !pagestat_devmem_ready())
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"needs device-private memory (CONFIG_DEVICE_PRIVATE)");
		switch (seg->kind) {
		case PAGESTAT_ANON:
			return pagestat_build_anon(ctx, seg);
		case PAGESTAT_THP:
			return pagestat_build_thp(ctx, seg);
		case PAGESTAT_HUGETLB:
			return pagestat_build_hugetlb(ctx, seg);
		case PAGESTAT_SHMEM:
			return pagestat_build_shmem(ctx, seg);
		case PAGESTAT_PFNMAP:
		case PAGESTAT_PFNMAP_HUGE:
		case PAGESTAT_MIXEDMAP:
			return pagestat_build_pfns(ctx, seg);
		case PAGESTAT_PFNMAP_COW:
			return pagestat_build_cow(ctx, seg);
		case PAGESTAT_LEAF:
		case PAGESTAT_LEAF_COW:
			return pagestat_build_leaf(ctx, seg);
		case PAGESTAT_GAP:
			return PAGESTAT_OK;
		}
		return pagestat_verdict(ctx, PAGESTAT_FAIL, "unknown kind %d",
					seg->kind);
	}

	/*
	 * khugepaged could collapse a THP with one zapped page again (its
	 * PTEs stay within max_ptes_none) while the case runs: keep it off.
	 */
	if (seg->kind == PAGESTAT_THP && strpbrk(seg->pattern, "ab"))
		ret = do_madvise(ctx->mm, seg->start, seg->end - seg->start,
				 MADV_NOHUGEPAGE);

	/* zap_pmd_range() splits a THP's PMD; the folio stays large */
	for (addr = seg->start; addr < seg->end && !ret; addr += PAGE_SIZE) {
		char c = pagestat_char(seg, addr);

		if (seg->kind != PAGESTAT_ANON && seg->kind != PAGESTAT_THP)
			break;
		if ((seg->kind == PAGESTAT_ANON && c == 'x') ||
		    (seg->kind == PAGESTAT_THP &&
		     pagestat_zapped(seg, addr, c)))
			ret = do_madvise(ctx->mm, addr, PAGE_SIZE,
					 MADV_DONTNEED);
	}
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"MADV_DONTNEED in %#lx: %d",
					seg->start, ret);
	if (seg->kind == PAGESTAT_ANON && strpbrk(seg->pattern, "ev"))
		v = pagestat_build_device(ctx, seg);
	if (v == PAGESTAT_OK && seg->protnone) {
		ret = pagestat_mprotect(ctx->mm, seg->start, seg->end, 0);
		if (ret)
			v = pagestat_verdict(ctx, PAGESTAT_FAIL,
					     "mprotect(PROT_NONE) at %#lx: %d",
					     seg->start, ret);
	}
	return v;
}

/**
 * pagestat_place() - set a segment's addresses
 * @seg: the segment; @seg->start and @seg->end are set.
 * @base: the layout's base address; the segment starts @seg->off above it.
 */
void pagestat_place(struct pagestat_seg *seg, unsigned long base)
{
	unsigned long n = strlen(seg->pattern);

	seg->start = base + seg->off;
	seg->end = seg->start + (n << seg->shift);
}

/**
 * pagestat_load() - load a layout into the case's context
 * @ctx: the case's context.
 * @segs: the segments, ended by one with an empty pattern.
 * @base: the layout's base address.
 */
void pagestat_load(struct pagestat_ctx *ctx,
		   const struct pagestat_seg *segs, unsigned long base)
{
	unsigned int i;

	for (i = 0; i < PAGESTAT_MAX_SEGS && segs[i].pattern[0]; i++) {
		struct pagestat_seg *seg = &ctx->segs[i];

		*seg = segs[i];
		if (!seg->shift && seg->kind == PAGESTAT_THP)
			seg->shift = PMD_SHIFT;
		else if (!seg->shift && seg->kind == PAGESTAT_LEAF_COW)
			seg->shift = PMD_SHIFT;
		else if (!seg->shift)
			seg->shift = PAGE_SHIFT;
		pagestat_place(seg, base);
		seg->verified = false;
	}
	ctx->nr_segs = i;
}

/**
 * pagestat_dump() - log the loaded layout, one line a segment
 * @ctx: the case's context.
 */
void pagestat_dump(struct pagestat_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ctx->nr_segs; i++) {
		const struct pagestat_seg *seg = &ctx->segs[i];

		kunit_info(ctx->test,
			   "  seg %u: %s [%#lx, %#lx) shift %u \"%s\" zap %u%s%s\n",
			   i, pagestat_kind_name[seg->kind], seg->start,
			   seg->end, seg->shift, seg->pattern, seg->zap,
			   seg->protnone ? " PROT_NONE" : "",
			   seg->verified ? "" : " (unverified)");
	}
}

/* A miss in a random layout: count it, fail only if it is not a resource. */
static void pagestat_soft_miss(struct pagestat_ctx *ctx, unsigned int i,
			       enum pagestat_verdict v)
{
	ctx->unverified++;
	ctx->segs[i].verified = false;
	KUNIT_EXPECT_NE_MSG(ctx->test, v, PAGESTAT_FAIL, "segment %u: %s", i,
			    ctx->msg);
}

/* A page in migration looks away for a moment: look twice. */
static enum pagestat_verdict
pagestat_probe_twice(struct pagestat_ctx *ctx, const struct pagestat_seg *seg)
{
	enum pagestat_verdict v = pagestat_probe_seg(ctx, seg);

	if (v != PAGESTAT_FAIL)
		return v;
	msleep(20);
	return pagestat_probe_seg(ctx, seg);
}

/**
 * pagestat_build() - build and probe the loaded layout
 * @ctx: the case's context, with a layout loaded.
 *
 * Maps and populates every segment, then probes that each entry holds what
 * its pattern claims.
 *
 * Context: Process context, may sleep.
 * Return: PAGESTAT_OK, PAGESTAT_SKIP when a resource is missing (a node, a
 * THP, a hugetlb page), or PAGESTAT_FAIL; @ctx->msg says why.
 */
enum pagestat_verdict pagestat_build(struct pagestat_ctx *ctx)
{
	enum pagestat_verdict v;
	unsigned int i;
	int phase;

	for (i = 0; i < ctx->nr_segs; i++)
		ctx->segs[i].verified = true;
	for (phase = 1; phase <= 2; phase++) {
		for (i = 0; i < ctx->nr_segs; i++) {
			if (!ctx->segs[i].verified)
				continue;
			v = pagestat_build_seg(ctx, &ctx->segs[i], phase);
			if (v == PAGESTAT_OK)
				continue;
			if (!ctx->soft)
				return v;
			pagestat_soft_miss(ctx, i, v);
		}
		/* khugepaged must not collapse what phase 2 splits */
		if (phase == 1)
			set_bit(MMF_DISABLE_THP, &ctx->mm->flags);
	}
	for (i = 0; i < ctx->nr_segs; i++) {
		if (!ctx->segs[i].verified)
			continue;
		v = pagestat_probe_twice(ctx, &ctx->segs[i]);
		if (v == PAGESTAT_OK)
			continue;
		if (!ctx->soft)
			return v;
		pagestat_soft_miss(ctx, i, v);
	}
	return PAGESTAT_OK;
}

/**
 * pagestat_reprobe() - probe the built layout again
 * @ctx: the case's context, with a layout built.
 *
 * A query must not split or change the layout it reads.
 *
 * Context: Process context, may sleep.
 * Return: PAGESTAT_OK, or PAGESTAT_FAIL with the reason in @ctx->msg.
 */
enum pagestat_verdict pagestat_reprobe(struct pagestat_ctx *ctx)
{
	enum pagestat_verdict v;
	unsigned int i;

	for (i = 0; i < ctx->nr_segs; i++) {
		if (!ctx->segs[i].verified)
			continue;
		v = pagestat_probe_twice(ctx, &ctx->segs[i]);
		if (v != PAGESTAT_OK)
			return v;
	}
	return PAGESTAT_OK;
}

/**
 * pagestat_settle() - skip or fail the case on a build's verdict
 * @test: the case.
 * @ctx: the case's context, whose @ctx->msg gives the reason.
 * @v: the verdict of pagestat_build() or pagestat_reprobe().
 */
void pagestat_settle(struct kunit *test, struct pagestat_ctx *ctx,
		     enum pagestat_verdict v)
{
	if (v == PAGESTAT_SKIP)
		kunit_skip(test, "%s", ctx->msg);
	KUNIT_ASSERT_EQ_MSG(test, v, PAGESTAT_OK, "%s", ctx->msg);
}

/**
 * pagestat_teardown() - unmap the layout now
 * @ctx: the case's context.
 *
 * The hugetlb pools and the device pages are back for the next layout.
 *
 * Context: Process context, may sleep.
 */
void pagestat_teardown(struct pagestat_ctx *ctx)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(ctx->test, vm_munmap(PAGESTAT_BASE, PAGESTAT_ARENA), 0);
	for (i = 0; i < ctx->nr_segs; i++) {
		const struct pagestat_seg *seg = &ctx->segs[i];

		if (seg->start < PAGESTAT_BASE ||
		    seg->end > PAGESTAT_BASE + PAGESTAT_ARENA)
			KUNIT_EXPECT_EQ(ctx->test,
					vm_munmap(seg->start,
						  seg->end - seg->start), 0);
	}
	/* the synthetic leaves are gone: their folios can go */
	while (ctx->nr_folios)
		kunit_release_action(ctx->test, pagestat_folio_put,
				     ctx->folios[--ctx->nr_folios]);
	clear_bit(MMF_DISABLE_THP, &ctx->mm->flags);
	ctx->nr_segs = 0;
}

static int pagestat_expect(const struct pagestat_ctx *ctx, unsigned long addr)
{
	const struct pagestat_seg *seg = NULL;
	unsigned int i;
	char c;

	for (i = 0; i < ctx->nr_segs; i++) {
		if (addr >= ctx->segs[i].start && addr < ctx->segs[i].end) {
			seg = &ctx->segs[i];
			break;
		}
	}
	if (!seg || seg->kind == PAGESTAT_GAP)
		return -EFAULT;
	if (!seg->verified)
		return PAGESTAT_UNSET;

	c = pagestat_char(seg, addr);
	switch (c) {
	case '0':
	case '1':
	case 'r':
	case 'k':
	case 'K':
	case 'a':
	case 'b':
		if (pagestat_protnone_1g(seg) || pagestat_zapped(seg, addr, c))
			return -ENOENT;
		return pagestat_node(ctx, c);
	case 'z':
		return -EFAULT;
	default:
		/* holes, special and devmap pfns, swap-like entries, devices */
		return -ENOENT;
	}
}

static const char *pagestat_describe(const struct pagestat_ctx *ctx,
				     unsigned long addr, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < ctx->nr_segs; i++) {
		const struct pagestat_seg *seg = &ctx->segs[i];

		if (addr >= seg->start && addr < seg->end) {
			snprintf(buf, len, "'%c' of %s segment %u",
				 pagestat_char(seg, addr),
				 pagestat_kind_name[seg->kind], i);
			return buf;
		}
	}
	return "no segment";
}

static bool pagestat_sampled(unsigned long i, unsigned long nr,
			     unsigned long addr)
{
	unsigned long in_pmd = (addr & ~PMD_MASK) >> PAGE_SHIFT;

	if (nr <= PAGESTAT_FULL_CHECK || i < 1024 || nr - i <= 1024)
		return true;
	/* both sides of every PMD boundary, and a stride in between */
	if (in_pmd < 2 || in_pmd >= PMD_SIZE / PAGE_SIZE - 2)
		return true;
	return !(i % 61);
}

/**
 * pagestat_reserve() - make the context's query buffers large enough
 * @ctx: the case's context.
 * @nr: the number of pages the buffers must hold.
 *
 * Context: Process context, may sleep.
 * Return: 0, or -ENOMEM.
 */
int pagestat_reserve(struct pagestat_ctx *ctx, unsigned long nr)
{
	if (nr <= ctx->cap)
		return 0;
	kvfree(ctx->st);
	kvfree(ctx->orc);
	kvfree(ctx->exp);
	kvfree(ctx->idx);
	kvfree(ctx->fp0);
	kvfree(ctx->fp1);
	ctx->st = kvcalloc(nr, sizeof(*ctx->st), GFP_KERNEL);
	ctx->orc = kvcalloc(nr, sizeof(*ctx->orc), GFP_KERNEL);
	ctx->exp = kvcalloc(nr, sizeof(*ctx->exp), GFP_KERNEL);
	ctx->idx = kvcalloc(nr, sizeof(*ctx->idx), GFP_KERNEL);
	ctx->fp0 = kvcalloc(nr, sizeof(*ctx->fp0), GFP_KERNEL);
	ctx->fp1 = kvcalloc(nr, sizeof(*ctx->fp1), GFP_KERNEL);
	ctx->cap = 0;
	if (!ctx->st || !ctx->orc || !ctx->exp || !ctx->idx || !ctx->fp0 ||
	    !ctx->fp1)
		return -ENOMEM;
	ctx->cap = nr;
	return 0;
}

static void pagestat_ctx_release(void *data)
{
	struct pagestat_ctx *ctx = data;

	kvfree(ctx->st);
	kvfree(ctx->orc);
	kvfree(ctx->exp);
	kvfree(ctx->idx);
	kvfree(ctx->fp0);
	kvfree(ctx->fp1);
}

static void pagestat_fingerprint(struct pagestat_ctx *ctx, unsigned long start,
				 unsigned long m, struct pagestat_raw *fp)
{
	unsigned long i;

	mmap_read_lock(ctx->mm);
	for (i = 0; i < m; i++) {
		__pagestat_raw(ctx->mm, start + ctx->idx[i] * PAGE_SIZE,
			       &fp[i]);
		if (!(i % 1024))
			cond_resched();
	}
	mmap_read_unlock(ctx->mm);
}

/* Small pages may migrate meanwhile; leaves, special and devmap may not. */
static bool pagestat_raw_same(const struct pagestat_raw *a,
			      const struct pagestat_raw *b)
{
	if (a->level != b->level || a->flags != b->flags)
		return false;
	if (a->level == PAGESTAT_RAW_PTE &&
	    !(a->flags & (PAGESTAT_RAW_SPECIAL | PAGESTAT_RAW_DEVMAP)))
		return true;
	return a->pfn == b->pfn;
}

static unsigned long pagestat_fp_changes(struct pagestat_ctx *ctx,
					 unsigned long m, unsigned long *first)
{
	unsigned long i, n = 0;

	for (i = 0; i < m; i++) {
		if (pagestat_raw_same(&ctx->fp0[i], &ctx->fp1[i]))
			continue;
		if (!n++)
			*first = i;
	}
	return n;
}

/**
 * pagestat_query() - pagestat_range() and the oracle over the same range
 * @ctx: the case's context; @ctx->st gets the walker's statuses and
 *	@ctx->orc the oracle's.
 * @start: the first address; need not be page aligned.
 * @nr: number of pages.
 * @m: how many pages of @ctx->idx[] the oracle answers.
 *
 * Both look under one mmap_read_lock() hold, so that they see the same
 * VMAs. The status slot after the last page is a guard, left unset.
 *
 * Context: Process context, may sleep; takes mmap_read_lock(@ctx->mm).
 * Return: what pagestat_range() returned.
 */
int pagestat_query(struct pagestat_ctx *ctx, unsigned long start,
		   unsigned long nr, unsigned long m)
{
	unsigned long i;
	int ret;

	for (i = 0; i < nr; i++) {
		ctx->st[i] = PAGESTAT_UNSET;
		ctx->orc[i] = PAGESTAT_UNSET;
	}
	/* a guard: the walker must not write past the last page */
	ctx->st[nr] = PAGESTAT_UNSET;
	mmap_read_lock(ctx->mm);
	ret = pagestat_range(ctx->mm, start, nr, ctx->st);
	for (i = 0; i < m; i++) {
		unsigned long p = ctx->idx[i];

		ctx->orc[p] = pagestat_oracle(ctx->mm, start + p * PAGE_SIZE);
		if (!(i % 1024))
			cond_resched();
	}
	mmap_read_unlock(ctx->mm);
	return ret;
}

static unsigned long pagestat_count_bad(struct pagestat_ctx *ctx,
					unsigned long start,
					unsigned long nr)
{
	unsigned long i, bad = ctx->st[nr] != PAGESTAT_UNSET;

	if (bad)
		ctx->first_bad = start + nr * PAGE_SIZE;
	for (i = 0; i < nr; i++) {
		int st = ctx->st[i];

		if ((ctx->exp[i] != PAGESTAT_UNSET && st != ctx->exp[i]) ||
		    (ctx->orc[i] != PAGESTAT_UNSET && st != ctx->orc[i])) {
			if (!bad++)
				ctx->first_bad = start + i * PAGE_SIZE;
		}
	}
	return bad;
}

/**
 * pagestat_compare() - query a range and compare it, trying again
 * @ctx: the case's context; its buffers hold the expected statuses and the
 *	page indexes for the oracle.
 * @start: the first address queried; need not be page aligned.
 * @nr: number of pages.
 * @m: how many pages of @ctx->idx[] the oracle answers.
 * @ret: set to what pagestat_range() returned the last time.
 *
 * Queries with pagestat_query() and compares with pagestat_count_bad(), up
 * to PAGESTAT_TRIES times while a status differs or the query fails:
 * compaction or khugepaged may move a page between the walker's look and
 * the oracle's, and the next try sees it settled.
 *
 * Context: Process context, may sleep; takes mmap_read_lock(@ctx->mm).
 * Return: the number of pages that differ in the last try.
 */
unsigned long pagestat_compare(struct pagestat_ctx *ctx, unsigned long start,
			       unsigned long nr, unsigned long m, int *ret)
{
	unsigned long bad = 0;
	int try;

	for (try = 0; try < PAGESTAT_TRIES; try++) {
		if (try) {
			ctx->retries++;
			msleep(20);
		}
		*ret = pagestat_query(ctx, start, nr, m);
		bad = pagestat_count_bad(ctx, start, nr);
		if (!*ret && !bad)
			break;
	}
	return bad;
}

/**
 * pagestat_report() - fail the case on the pages that differ
 * @ctx: the case's context, after a query.
 * @start: the first address queried.
 * @nr: number of pages.
 *
 * One expectation for each of the first PAGESTAT_REPORT pages whose status
 * differs from the layout's or the oracle's, with what the page holds.
 */
void pagestat_report(struct pagestat_ctx *ctx, unsigned long start,
		     unsigned long nr)
{
	struct kunit *test = ctx->test;
	unsigned long i, shown = 0;
	char buf[64];

	for (i = 0; i < nr && shown < PAGESTAT_REPORT; i++) {
		unsigned long addr = start + i * PAGE_SIZE;
		const char *what = pagestat_describe(ctx, addr, buf,
						     sizeof(buf));
		int st = ctx->st[i];

		if ((ctx->exp[i] == PAGESTAT_UNSET || st == ctx->exp[i]) &&
		    (ctx->orc[i] == PAGESTAT_UNSET || st == ctx->orc[i]))
			continue;
		shown++;
		if (ctx->exp[i] != PAGESTAT_UNSET)
			KUNIT_EXPECT_EQ_MSG(test, st, ctx->exp[i],
					    "page %lu at %#lx (%s): pagestat_range() vs the layout",
					    i, addr, what);
		if (ctx->orc[i] != PAGESTAT_UNSET)
			KUNIT_EXPECT_EQ_MSG(test, st, ctx->orc[i],
					    "page %lu at %#lx (%s): pagestat_range() vs the stock loop",
					    i, addr, what);
	}
}

/**
 * pagestat_check_range() - check pagestat_range() over a range
 * @ctx: the case's context, with a layout built.
 * @start: the first address; need not be page aligned.
 * @nr: number of pages.
 *
 * Holds every status to the layout (where its segment was verified) and
 * to the oracle (on every page, or on a sample of a range of more than
 * PAGESTAT_FULL_CHECK pages), trying again as pagestat_compare() does; the
 * page tables must look the same before and after the query.
 *
 * Context: Process context, may sleep; takes mmap_read_lock(@ctx->mm).
 * Return: the number of faults found; 0 if the range checked out.
 */
unsigned long pagestat_check_range(struct pagestat_ctx *ctx,
				   unsigned long start,
				   unsigned long nr)
{
	unsigned long i, m = 0, bad = 0, changed, first = 0;
	struct kunit *test = ctx->test;
	int ret = 0;
	char buf[64];

	KUNIT_ASSERT_EQ(test, pagestat_reserve(ctx, nr + 1), 0);
	for (i = 0; i < nr; i++) {
		unsigned long addr = start + i * PAGE_SIZE;

		ctx->exp[i] = pagestat_expect(ctx, addr);
		if (pagestat_sampled(i, nr, addr))
			ctx->idx[m++] = i;
	}
	pagestat_fingerprint(ctx, start, m, ctx->fp0);
	bad = pagestat_compare(ctx, start, nr, m, &ret);
	pagestat_fingerprint(ctx, start, m, ctx->fp1);
	changed = pagestat_fp_changes(ctx, m, &first);
	if (changed) {
		/* a migration in flight settles; a split does not */
		msleep(50);
		pagestat_fingerprint(ctx, start, m, ctx->fp1);
		changed = pagestat_fp_changes(ctx, m, &first);
	}

	ctx->queries++;
	ctx->pages += nr;
	ctx->oracle_pages += m;
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "pagestat_range(%#lx, %lu)", start,
			    nr);
	if (bad)
		pagestat_report(ctx, start, nr);
	KUNIT_EXPECT_EQ_MSG(test, ctx->st[nr], PAGESTAT_UNSET,
			    "pagestat_range(%#lx, %lu) wrote past its last page",
			    start, nr);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0,
			    "pages of [%#lx, +%lu pages) that differ; first at %#lx",
			    start, nr, ctx->first_bad);
	if (changed) {
		unsigned long addr = start + ctx->idx[first] * PAGE_SIZE;

		KUNIT_EXPECT_EQ_MSG(test, changed, 0,
				    "the query changed the page tables: first at %#lx (%s): %s flags %#x pfn %#lx became %s flags %#x pfn %#lx",
				    addr, pagestat_describe(ctx, addr, buf,
							    sizeof(buf)),
				    pagestat_raw_name[ctx->fp0[first].level],
				    ctx->fp0[first].flags, ctx->fp0[first].pfn,
				    pagestat_raw_name[ctx->fp1[first].level],
				    ctx->fp1[first].flags, ctx->fp1[first].pfn);
	}
	return bad + changed + !!ret;
}

/**
 * pagestat_span() - the addresses the loaded layout covers
 * @ctx: the case's context.
 * @start: set to the start of the first segment.
 * @end: set to the end of the last segment.
 */
void pagestat_span(const struct pagestat_ctx *ctx, unsigned long *start,
		   unsigned long *end)
{
	unsigned int i;

	*start = ULONG_MAX;
	*end = 0;
	for (i = 0; i < ctx->nr_segs; i++) {
		*start = min(*start, ctx->segs[i].start);
		*end = max(*end, ctx->segs[i].end);
	}
}

/**
 * pagestat_check_layout() - check the whole layout and two pages around it
 * @ctx: the case's context, with a layout built.
 *
 * Context: Process context, may sleep.
 * Return: as pagestat_check_range().
 */
unsigned long pagestat_check_layout(struct pagestat_ctx *ctx)
{
	unsigned long start, end;

	pagestat_span(ctx, &start, &end);
	return pagestat_check_range(ctx, start - 2 * PAGE_SIZE,
				    ((end - start) >> PAGE_SHIFT) + 4);
}

/**
 * pagestat_case_init() - the init of every case: its context and its mm
 * @test: the case.
 *
 * Attaches a fresh mm to the test's kthread with kunit_vm_mmap(), and
 * finds the two memory nodes the patterns' '0' and '1' stand for.
 *
 * Context: Process context, may sleep.
 * Return: 0, or -ENOMEM.
 */
int pagestat_case_init(struct kunit *test)
{
	struct pagestat_ctx *ctx;
	unsigned long addr;
	int nid;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	/*
	 * kunit_vm_mmap() attaches a fresh mm to this kthread the first
	 * time (lib/kunit/user_alloc.c); this page lands near mmap_base,
	 * far from the arena. A failed vm_mmap() comes back as -errno.
	 */
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (!addr || IS_ERR_VALUE(addr) || !current->mm)
		return -ENOMEM;
	ctx->test = test;
	ctx->mm = current->mm;
	nid = first_node(node_states[N_MEMORY]);
	ctx->nid[0] = nid;
	nid = next_node(nid, node_states[N_MEMORY]);
	ctx->nid[1] = nid < MAX_NUMNODES ? nid : NUMA_NO_NODE;
	if (kunit_add_action_or_reset(test, pagestat_ctx_release, ctx))
		return -ENOMEM;
	test->priv = ctx;
	return 0;
}

/**
 * pagestat_suite_init() - the init of every suite
 * @suite: the suite.
 *
 * Allocates the kernel pages behind special, devmap and remapped entries,
 * and the device-private pgmap where the kernel has DEVICE_PRIVATE.
 *
 * Context: Process context, may sleep.
 * Return: 0, or -ENOMEM.
 */
int pagestat_suite_init(struct kunit_suite *suite)
{
	pagestat_kpages = alloc_pages(GFP_KERNEL | __GFP_ZERO,
				      PAGESTAT_KPAGES_ORDER);
	if (!pagestat_kpages)
		return -ENOMEM;
	pagestat_devmem_init();
	return 0;
}

/**
 * pagestat_suite_exit() - the exit of every suite
 * @suite: the suite.
 *
 * Context: Process context, may sleep.
 */
void pagestat_suite_exit(struct kunit_suite *suite)
{
	pagestat_devmem_exit();
	/* a dying mm may still map them as special PTEs: never read */
	if (pagestat_kpages)
		__free_pages(pagestat_kpages, PAGESTAT_KPAGES_ORDER);
	pagestat_kpages = NULL;
}

MODULE_DESCRIPTION("KUnit tests for pagestat_range()");
MODULE_LICENSE("GPL");
