/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kind builders: each maps a VMA and fills its entries by the kernel's
 * own paths (faults, madvise(), migrate_vma, a driver's fault handlers), and
 * pagestat_build() claims what the probe must find at each entry, by its
 * character in the segment's pattern (pages written, then moved or replaced,
 * for 'v', 'c' and 'g'):
 */
static const struct pagestat_char {
	char c;
	u8 what, level, type;	/* level 0: the entry's; 0xff: any */
} pagestat_chars[] = {
	{ '.', PAGESTAT_HOLE, 0xff },		/* nothing */
	{ '4', PAGESTAT_HOLE, PAGESTAT_P4D },	/* nothing below an empty P4D */
	{ '3', PAGESTAT_HOLE, PAGESTAT_PUD },	/* ... PUD or PMD entry */
	{ '2', PAGESTAT_HOLE, PAGESTAT_PMD },
	{ 'x', PAGESTAT_HOLE, PAGESTAT_PTE },	/* written, MADV_DONTNEED */
	{ '0', PAGESTAT_FOLIO }, { '1', PAGESTAT_FOLIO },	/* on node nid[0], nid[1] */
	{ 'p', PAGESTAT_FOLIO, PAGESTAT_PTE },	/* a THP, its last page zapped */
	{ 'z', PAGESTAT_ZERO },	/* the zero page, huge zero folio, zero pfn */
	{ 's', PAGESTAT_NOPAGE, 0, PAGESTAT_SPECIAL },	/* PTE, PMD or PUD */
	{ 'v', PAGESTAT_NONPRESENT, 0, PAGESTAT_DEV_PRIVATE },	/* to device-private */
	{ 'c', PAGESTAT_ZONE_DEVICE, PAGESTAT_PTE },	/* to coherent memory */
	{ 'd', PAGESTAT_ZONE_DEVICE },		/* a device folio a driver maps */
	{ 'g', PAGESTAT_NONPRESENT, PAGESTAT_PTE, PAGESTAT_GUARD },	/* MADV_GUARD_INSTALL */
};

#define PAGESTAT_SKIP		1
#define PAGESTAT_MTHP_ORDER	4	/* 64 KiB with 4 KiB pages */
KUNIT_DEFINE_ACTION_WRAPPER(pagestat_folio_put, folio_put, struct folio *);

/* An entry of an anon, THP or hugetlb VMA: a fault, an madvise(), a move to device memory */
static int pagestat_fill_anon(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
			      unsigned long a, unsigned long size, char c)
{
	unsigned long nr = size >> PAGE_SHIFT;
	struct migrate_vma args = { .start = a, .end = a + size,
		.pgmap_owner = ctx, .flags = MIGRATE_VMA_SELECT_SYSTEM |
		MIGRATE_VMA_SELECT_COMPOUND };
	int ret = pagestat_populate(ctx, a, size, c != 'z', ctx->nid[c == '1']);
	struct folio *folio;

	if (ret || strchr("01zp", c))
		return ret;
	if (c == 'x' || c == 'g')
		return do_madvise(ctx->mm, a, size, c == 'x' ? MADV_DONTNEED : MADV_GUARD_INSTALL);
	args.src = kunit_kcalloc(ctx->test, 2 * nr, sizeof(*args.src), GFP_KERNEL);
	if (!args.src)
		return -ENOMEM;
	args.dst = args.src + nr;
	mmap_read_lock(ctx->mm);
	args.vma = vma_lookup(ctx->mm, a);
	ret = migrate_vma_setup(&args);
	if (!ret) {
		/* locked, referenced; the data is not copied: none reads it */
		folio = args.src[0] & MIGRATE_PFN_MIGRATE ?
			pagestat_devmem_folio(ctx, c == 'c', ilog2(nr)) : NULL;
		if (folio)
			args.dst[0] = migrate_pfn(folio_pfn(folio)) |
				      (nr > 1 ? MIGRATE_PFN_COMPOUND : 0);
		migrate_vma_pages(&args);
		migrate_vma_finalize(&args);
	}
	mmap_read_unlock(ctx->mm);
	return ret;
}

/* The previous case's mm may still be giving its pages back */
static bool pagestat_hugetlb_wait(struct hstate *h, int nid, unsigned int nr)
{
	int i;

	for (i = 0; i < 100 && h->free_huge_pages_node[nid] < nr; i++)
		msleep(20);
	return h->free_huge_pages_node[nid] >= nr;
}

/*
 * A driver's fault handlers, which insert what the builder asked for at its
 * order (fault_*), as VFIO's huge_fault and device DAX's insert PUD, PMD and
 * PTE entries; the builder faults the address in with handle_mm_fault().
 */
static vm_fault_t pagestat_huge_fault(struct vm_fault *vmf, unsigned int order)
{
	struct pagestat_ctx *ctx = kunit_get_current_test()->priv;
	struct page *page = ctx->fault_page;
	unsigned long pfn = ctx->fault_pfn;

	if (order != ctx->fault_order)
		return order ? VM_FAULT_FALLBACK : VM_FAULT_SIGBUS;
	if (order == PUD_ORDER)	/* built with PUD_PFNMAP's THPs only */
		return IS_ENABLED(CONFIG_ARCH_SUPPORTS_PUD_PFNMAP) ?
		       vmf_insert_pfn_pud(vmf, pfn, false) : VM_FAULT_SIGBUS;
	if (order)
		return page ? vmf_insert_folio_pmd(vmf, page_folio(page), false) :
		       vmf_insert_pfn_pmd(vmf, pfn, false);
	if (page)
		return vmf_insert_page(vmf->vma, vmf->address, page);
	return vmf->vma->vm_flags & VM_PFNMAP ? vmf_insert_pfn(vmf->vma, vmf->address, pfn) :
	       vmf_insert_mixed(vmf->vma, vmf->address, pfn);
}

static vm_fault_t pagestat_fault(struct vm_fault *vmf)
{
	return pagestat_huge_fault(vmf, 0);
}

static const struct vm_operations_struct pagestat_vm_ops = {
	.fault		= pagestat_fault,
	.huge_fault	= pagestat_huge_fault,
};

/* A VMA as a device driver's mmap() makes it */
static int pagestat_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = &pagestat_vm_ops;
	vm_flags_set(vma, (unsigned long)file->private_data);
	return 0;
}

static const struct file_operations pagestat_fops = {
	.owner		= THIS_MODULE,
	.mmap		= pagestat_file_mmap,
};

/*
 * Map a segment's VMA, for entries of @size. Private anon: of pages; of THPs or
 * mTHPs, which a fault allocates while their order is enabled for MADV_HUGEPAGE
 * VMAs; of hugetlb pages, if both nodes' pools have enough. A driver's: shared
 * VM_PFNMAP; private VM_MIXEDMAP, as zero pfns need COW (vmf_insert_pfn*()
 * refuse COW VM_PFNMAP); shared VM_HUGEPAGE, as device DAX maps its folios.
 */
static int pagestat_map(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
			unsigned long addr, unsigned long size, const char **skip)
{
	unsigned long len = strlen(seg->pattern) * size, got, flags;
	bool hugetlb = seg->kind > PAGESTAT_MTHP && seg->kind < PAGESTAT_PFNMAP;
	struct hstate *h = size_to_hstate(size);
	unsigned int need[2] = { };
	struct file *file;
	const char *p;

	*skip = "no device memory (memremap_pages())";
	if (strpbrk(seg->pattern, "vcd") && !pagestat_devmem(ctx))
		return PAGESTAT_SKIP;
	for (p = seg->pattern; *p; p++)
		need[*p == '1' && ctx->nid[1] != ctx->nid[0]] += *p == '0' || *p == '1';
	*skip = "no free hugetlb pages of this size on a node (hugepages=)";
	if (hugetlb && (!h || !pagestat_hugetlb_wait(h, ctx->nid[0], need[0]) ||
			!pagestat_hugetlb_wait(h, ctx->nid[1], need[1])))
		return PAGESTAT_SKIP;
	if (seg->kind == PAGESTAT_MTHP)
		pagestat_enable_order(ctx->test, PAGESTAT_MTHP_ORDER);
	if (seg->kind >= PAGESTAT_PFNMAP) {
		/* kmalloc() aligns a power of two: 8 pages of the case's */
		ctx->kpages = kunit_kzalloc(ctx->test, 8 * PAGE_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(ctx->test, ctx->kpages);
		flags = (seg->kind == PAGESTAT_MIXEDMAP ? VM_MIXEDMAP :
			 seg->kind == PAGESTAT_DEVICE_PMD ? VM_HUGEPAGE :
			 VM_PFNMAP | VM_IO) | VM_DONTEXPAND | VM_DONTDUMP;
		file = anon_inode_getfile("[pagestat]", &pagestat_fops, (void *)flags, O_RDWR);
		if (IS_ERR(file))
			return PTR_ERR(file);
		got = vm_mmap(file, addr, len, PROT_READ,
			      (flags & VM_MIXEDMAP ? MAP_PRIVATE : MAP_SHARED) |
			      MAP_FIXED_NOREPLACE, 0);
		fput(file);
	} else {
		/* vm_mmap() ignores MAP_HUGETLB: ksys_mmap_pgoff() does not */
		flags = hugetlb ? MAP_HUGETLB | ilog2(size) << MAP_HUGE_SHIFT : 0;
		got = ksys_mmap_pgoff(addr, len, PROT_READ | PROT_WRITE, flags | MAP_PRIVATE |
				      MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1UL, 0);
	}
	if (got != addr)
		return IS_ERR_VALUE(got) ? (int)got : -EADDRINUSE;
	return seg->kind > PAGESTAT_MTHP ? 0 : do_madvise(ctx->mm, addr, len,
			seg->kind == PAGESTAT_ANON ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
}

/*
 * One entry of a PFN, mixed or device map, faulted in: special and zero pfns,
 * pages of the case's, device folios; a PMD or PUD leaf is read-only, special
 * over a hugetlb folio of the case's own, or a device folio's.
 */
static int pagestat_fill_pfn(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
			     unsigned long a, unsigned long size, char c)
{
	struct hstate *h = size_to_hstate(size);
	struct folio *folio = NULL;
	vm_fault_t fault;

	ctx->fault_order = ilog2(size >> PAGE_SHIFT);
	ctx->fault_pfn = c == 'z' ? zero_pfn(a) :
			 PHYS_PFN(__pa(ctx->kpages)) + (a >> PAGE_SHIFT) % 8;
	ctx->fault_page = c == '0' || c == '1' ? alloc_pages_node(ctx->nid[c == '1'],
						GFP_KERNEL | __GFP_THISNODE, 0) : NULL;
	if (c == 'd')
		folio = pagestat_devmem_folio(ctx, true, ctx->fault_order);
	if (folio) {
		folio_unlock(folio);
		ctx->fault_page = &folio->page;
	}
	if (size > PAGE_SIZE && c == 's') {
		if (h && pagestat_hugetlb_wait(h, ctx->nid[0], 1))
			folio = alloc_hugetlb_folio_nodemask(h, ctx->nid[0],
							     NULL, GFP_KERNEL, false);
		if (!folio || kunit_add_action_or_reset(ctx->test, pagestat_folio_put, folio))
			return -ENOMEM;
		ctx->fault_pfn = folio_pfn(folio);
	}
	if (strchr("01d", c) && !ctx->fault_page)
		return -ENOMEM;
	mmap_read_lock(ctx->mm);
	fault = handle_mm_fault(vma_lookup(ctx->mm, a), a, 0, NULL);
	mmap_read_unlock(ctx->mm);
	if (ctx->fault_page)
		put_page(ctx->fault_page);	/* the entry holds it from now on */
	return fault == VM_FAULT_NOPAGE ? 0 : -EIO;
}

/* mprotect(PROT_NONE) of a VMA, as do_mprotect_pkey(), which is static */
static int pagestat_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma, *prev;
	struct mmu_gather tlb;
	int err = -ENOMEM;

	mmap_write_lock(mm);
	vma = vma_find(&vmi, end);
	prev = vma_prev(&vmi);
	if (vma && vma->vm_start == start && vma->vm_end == end && vma_next(&vmi) == vma) {
		tlb_gather_mmu(&tlb, mm);
		err = mprotect_fixup(&vmi, &tlb, vma, &prev, start, end,
				     vma->vm_flags & ~VM_ACCESS_FLAGS);
		tlb_finish_mmu(&tlb);
	}
	mmap_write_unlock(mm);
	return err;
}

#ifdef CONFIG_ARM64
#define PAGESTAT_CONT_PTE	CONT_PTE_SIZE
#define PAGESTAT_CONT_PMD	CONT_PMD_SIZE
#else
#define PAGESTAT_CONT_PTE	0	/* x86 has no contiguous hugetlb */
#define PAGESTAT_CONT_PMD	0
#endif
#define PAGESTAT_IF(l)	(IS_ENABLED(CONFIG_ARCH_SUPPORTS_##l##_PFNMAP) ? l##_SIZE : 0)

static const struct pagestat_builder {
	int (*fill)(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
		    unsigned long a, unsigned long size, char c);
	unsigned long size;	/* of an entry; 0: not on this machine */
} pagestat_builders[] = {
	[PAGESTAT_ANON]		= { pagestat_fill_anon, PAGE_SIZE },
	[PAGESTAT_THP]		= { pagestat_fill_anon, PMD_SIZE },
	[PAGESTAT_MTHP]		= { pagestat_fill_anon, PAGE_SIZE << PAGESTAT_MTHP_ORDER },
	[PAGESTAT_HUGETLB_PMD]	= { pagestat_fill_anon, PMD_SIZE },
	[PAGESTAT_HUGETLB_PUD]	= { pagestat_fill_anon, PUD_SIZE },
	[PAGESTAT_HUGETLB_CONT_PTE] = { pagestat_fill_anon, PAGESTAT_CONT_PTE },
	[PAGESTAT_HUGETLB_CONT_PMD] = { pagestat_fill_anon, PAGESTAT_CONT_PMD },
	[PAGESTAT_PFNMAP]	= { pagestat_fill_pfn, PAGE_SIZE },
	[PAGESTAT_PFNMAP_PMD]	= { pagestat_fill_pfn, PAGESTAT_IF(PMD) },
	[PAGESTAT_PFNMAP_PUD]	= { pagestat_fill_pfn, PAGESTAT_IF(PUD) },
	[PAGESTAT_MIXEDMAP]	= { pagestat_fill_pfn, PAGE_SIZE },
	[PAGESTAT_DEVICE_PMD]	= { pagestat_fill_pfn, PMD_SIZE },
};

/* The bytes a segment covers; 0 if this machine has no such kind */
static unsigned long pagestat_seg_size(const struct pagestat_seg *seg)
{
	return strlen(seg->pattern) * pagestat_builders[seg->kind].size;
}

/*
 * Map a segment at @addr, fill it and claim it. Return: 0, PAGESTAT_SKIP with
 * the reason in @skip, or a negative errno.
 */
static int pagestat_build(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
			  unsigned long addr, const char **skip)
{
	const struct pagestat_builder *b = &pagestat_builders[seg->kind];
	unsigned long a, end, size = b->size, len = pagestat_seg_size(seg);
	struct pagestat_state st, hole = { PAGESTAT_HOLE, PAGESTAT_PTE };
	const struct pagestat_char *pc;
	struct page *page;
	const char *p;
	int ret;
	char c;

	*skip = "no such kind of mapping on this architecture";
	if (!len)
		return PAGESTAT_SKIP;
	ret = pagestat_map(ctx, seg, addr, size, skip);
	for (a = addr; a < addr + len && !ret; a += size) {
		c = seg->pattern[(a - addr) / size];
		for (pc = pagestat_chars; pc->c != c; pc++)
			;
		st = (struct pagestat_state){ pc->what, pc->level, pc->type,
					      .nid = ctx->nid[c == '1'] };
		if (!st.level)
			st.level = size >= PUD_SIZE ? PAGESTAT_PUD : size >=
				   PMD_SIZE ? PAGESTAT_PMD : PAGESTAT_PTE;
		if (st.level == 0xff || (st.level < PAGESTAT_PMD && CONFIG_PGTABLE_LEVELS < 4))
			st.level = 0;
		if (seg->kind <= PAGESTAT_MTHP && st.what == PAGESTAT_FOLIO)
			st.order = ilog2(size >> PAGE_SHIFT);
		if (IS_ENABLED(CONFIG_X86) && seg->protnone && size == PUD_SIZE && c != '.')
			st = (struct pagestat_state){
				PAGESTAT_NONPRESENT, PAGESTAT_PUD, PAGESTAT_SWAP };
		end = a + (c == 'x' || c == 'p' ? size - PAGE_SIZE : size);
		pagestat_claim(ctx, a, end, &st);
		pagestat_claim(ctx, end, a + size, &hole);
		if (!strchr(".432", c))
			ret = b->fill(ctx, seg, a, size, c);
	}
	/* khugepaged must leave the PTE-mapped THPs as they are */
	if (!ret && seg->kind == PAGESTAT_THP)
		ret = do_madvise(ctx->mm, addr, len, MADV_NOHUGEPAGE);
	/*
	 * Only then split 'p', which khugepaged could collapse again. Our
	 * reference keeps the deferred split shrinker, which kswapd may run at
	 * any time, from splitting the partly mapped folio under the checks.
	 */
	for (p = strchr(seg->pattern, 'p'); p && !ret; p = strchr(p + 1, 'p')) {
		a = addr + (p - seg->pattern + 1) * size - PAGE_SIZE;
		ret = get_user_pages_fast(a, 1, 0, &page) != 1 ? -EFAULT :
		      kunit_add_action_or_reset(ctx->test, pagestat_folio_put, page_folio(page)) ?:
		      do_madvise(ctx->mm, a, PAGE_SIZE, MADV_DONTNEED);
	}
	if (!ret && seg->protnone)
		ret = pagestat_mprotect(ctx->mm, addr, addr + len);
	return ret;
}
