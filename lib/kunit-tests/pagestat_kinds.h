/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of kind builders. Each maps a VMA and fills its entries by the
 * kernel's own paths (faults, madvise(), migrate_vma, a driver's
 * vmf_insert_*()), and pagestat_build() claims what the probe must find at
 * each entry, by its pattern character:
 *
 *   '.'  nothing; '4', '3', '2': nothing below an empty P4D, PUD or PMD
 *        entry; 'x': an empty PTE (written, then MADV_DONTNEED)
 *   '0'  a folio on the first node ('1': the second): a page, THP, mTHP,
 *        hugetlb page or kernel page, by kind; 'z': the zero page, the
 *        huge zero folio or the zero pfn
 *   'p'  a THP on the first node, PTE-mapped: its last page zapped
 *   's'  a special pfn (PTE, PMD or PUD); 'd': a devmap pfn of ZONE_DEVICE
 *   'v'  a device-private entry, 'c' a coherent device folio, each made
 *        from a written page
 */
#define PAGESTAT_SKIP		1
#define PAGESTAT_MTHP_ORDER	4	/* 64 KiB with 4 KiB pages */

static const struct pagestat_char {
	char c;
	u8 what, level, type;	/* level 0: the entry's; 0xff: any */
} pagestat_chars[] = {
	{ '.', PAGESTAT_HOLE, 0xff }, { '4', PAGESTAT_HOLE, PAGESTAT_P4D },
	{ '3', PAGESTAT_HOLE, PAGESTAT_PUD }, { '2', PAGESTAT_HOLE, PAGESTAT_PMD },
	{ 'x', PAGESTAT_HOLE, PAGESTAT_PTE }, { '0', PAGESTAT_FOLIO },
	{ '1', PAGESTAT_FOLIO }, { 'p', PAGESTAT_FOLIO, PAGESTAT_PTE },
	{ 'z', PAGESTAT_ZERO }, { 's', PAGESTAT_NOPAGE, 0, PAGESTAT_SPECIAL },
	{ 'd', PAGESTAT_NOPAGE, 0, PAGESTAT_DEVMAP },
	{ 'v', PAGESTAT_NONPRESENT, PAGESTAT_PTE, PAGESTAT_DEV_PRIVATE },
	{ 'c', PAGESTAT_ZONE_DEVICE, PAGESTAT_PTE },
};

static int pagestat_node(const struct pagestat_ctx *ctx, char c)
{
	return ctx->nid[c == '1'];
}

/* Migrate the written page at @a to device memory, as an HMM driver does */
static int pagestat_to_device(struct pagestat_ctx *ctx, unsigned long a,
			      bool coherent)
{
	unsigned long src = 0, dst = 0;
	struct migrate_vma args = { .start = a, .end = a + PAGE_SIZE,
		.src = &src, .dst = &dst, .pgmap_owner = ctx,
		.flags = MIGRATE_VMA_SELECT_SYSTEM };
	struct dev_pagemap *pgmap;
	int ret;

	if (!ctx->dev[coherent])
		ctx->dev[coherent] = pagestat_devmem(ctx->test, coherent);
	pgmap = ctx->dev[coherent];
	if (!pgmap)
		return PAGESTAT_SKIP;
	mmap_read_lock(ctx->mm);
	args.vma = vma_lookup(ctx->mm, a);
	ret = migrate_vma_setup(&args);
	if (!ret && (src & MIGRATE_PFN_MIGRATE)) {
		dst = PHYS_PFN(pgmap->range.start) + ctx->dev_used[coherent]++;
		/* locked, referenced; the data is not copied: none reads it */
		zone_device_page_init(pfn_to_page(dst));
		dst = migrate_pfn(dst);
	}
	if (!ret) {
		migrate_vma_pages(&args);
		migrate_vma_finalize(&args);
	}
	mmap_read_unlock(ctx->mm);
	return ret;
}

/* An entry of an anon, THP or hugetlb VMA: a fault, and what follows it */
static int pagestat_fill_anon(struct pagestat_ctx *ctx,
			      const struct pagestat_seg *seg, unsigned long a,
			      unsigned long size, char c)
{
	int ret = pagestat_populate(ctx, a, size, c != 'z',
				    pagestat_node(ctx, c));

	if (ret || strchr("01z", c))
		return ret;
	if (c == 'x' || c == 'p')
		return do_madvise(ctx->mm, a + size - PAGE_SIZE, PAGE_SIZE,
				  MADV_DONTNEED);
	return pagestat_to_device(ctx, a, c == 'c');
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
 * Private anon VMAs: of 4 KiB pages; of THPs or mTHPs, which a fault
 * allocates while their order is enabled for MADV_HUGEPAGE VMAs; of
 * hugetlb pages, if the pools of both nodes have enough.
 */
static int pagestat_map_anon(struct pagestat_ctx *ctx,
			     const struct pagestat_seg *seg, unsigned long addr,
			     unsigned long size, const char **skip)
{
	unsigned long len = strlen(seg->pattern) * size, got;
	struct hstate *h = size_to_hstate(size);
	unsigned int need[2] = { };
	const char *p;

	if (seg->kind == PAGESTAT_MTHP) {
		pagestat_save_orders(ctx->test);
		set_bit(PAGESTAT_MTHP_ORDER, &huge_anon_orders_madvise);
	}
	if (seg->kind <= PAGESTAT_MTHP)
		return pagestat_mmap(NULL, addr, len, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS) ?:
		       do_madvise(ctx->mm, addr, len, seg->kind == PAGESTAT_ANON ?
				  MADV_NOHUGEPAGE : MADV_HUGEPAGE);
	for (p = seg->pattern; *p; p++)
		need[*p == '1' && ctx->two_nodes] += *p == '0' || *p == '1';
	*skip = "no free hugetlb pages of this size on a node (hugepages=)";
	if (!h || !pagestat_hugetlb_wait(h, ctx->nid[0], need[0]) ||
	    !pagestat_hugetlb_wait(h, ctx->nid[1], need[1]))
		return PAGESTAT_SKIP;
	/* vm_mmap() ignores MAP_HUGETLB: ksys_mmap_pgoff() does not */
	got = ksys_mmap_pgoff(addr, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			      MAP_FIXED_NOREPLACE |
			      (ilog2(size) << MAP_HUGE_SHIFT), -1UL, 0);
	return got == addr ? 0 : -EADDRINUSE;
}

static vm_fault_t pagestat_vm_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;	/* only the builders put entries here */
}

static const struct vm_operations_struct pagestat_vm_ops = {
	.fault		= pagestat_vm_fault,
};

/* A VMA as a device driver's mmap() makes it */
static int pagestat_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	vma->vm_ops = &pagestat_vm_ops;
	vm_flags_set(vma, (unsigned long)file->private_data | VM_DONTEXPAND |
		     VM_DONTDUMP);
	return 0;
}

static const struct file_operations pagestat_fops = {
	.owner		= THIS_MODULE,
	.mmap		= pagestat_file_mmap,
};

/*
 * PFN maps: shared VM_PFNMAP of special and zero pfns, of special PMDs and
 * PUDs (read-only, over memory of the case's own) and devmap PMDs (over
 * ZONE_DEVICE pages, as device DAX maps them); private VM_MIXEDMAP, where
 * zero pfns need a COW mapping (vmf_insert_pfn*() refuse COW VM_PFNMAP).
 */
static int pagestat_map_pfn(struct pagestat_ctx *ctx,
			    const struct pagestat_seg *seg, unsigned long addr,
			    unsigned long size, const char **skip)
{
	bool mixed = seg->kind == PAGESTAT_MIXEDMAP;
	unsigned long flags = mixed ? VM_MIXEDMAP : VM_PFNMAP | VM_IO;
	struct file *file;
	int ret;

	/* kmalloc() aligns a power of two: eight pages, of the case's own */
	ctx->kpages = kunit_kzalloc(ctx->test, 8 * PAGE_SIZE, GFP_KERNEL);
	if (strchr(seg->pattern, 'd') && !ctx->dev[1])
		ctx->dev[1] = pagestat_devmem(ctx->test, true);
	*skip = "no device memory (memremap_pages())";
	if (!ctx->kpages || (strchr(seg->pattern, 'd') && !ctx->dev[1]))
		return ctx->kpages ? PAGESTAT_SKIP : -ENOMEM;
	file = anon_inode_getfile("[pagestat]", &pagestat_fops, (void *)flags,
				  O_RDWR);
	if (IS_ERR(file))
		return PTR_ERR(file);
	ret = pagestat_mmap(file, addr, strlen(seg->pattern) * size, PROT_READ,
			    mixed ? MAP_PRIVATE : MAP_SHARED);
	fput(file);
	return ret;
}

KUNIT_DEFINE_ACTION_WRAPPER(pagestat_folio_put, folio_put, struct folio *);

/* A read-only PMD or PUD leaf, as a huge_fault handler inserts it */
static int pagestat_insert_huge(struct pagestat_ctx *ctx,
				struct vm_area_struct *vma, unsigned long a,
				unsigned long size, pfn_t pfn)
{
	struct vm_fault vmf = { .vma = vma, .address = a };
	struct hstate *h = size_to_hstate(size);
	struct folio *folio = NULL;
	p4d_t *p4d;

	/* a special leaf over a hugetlb folio of the case's own */
	if (!pfn_t_devmap(pfn) && h && pagestat_hugetlb_wait(h, ctx->nid[0], 1))
		folio = alloc_hugetlb_folio_nodemask(h, ctx->nid[0], NULL,
						     GFP_KERNEL, false);
	if (!pfn_t_devmap(pfn) && (!folio ||
				   kunit_add_action_or_reset(ctx->test,
							     pagestat_folio_put,
							     folio)))
		return -ENOMEM;
	if (folio)
		pfn = pfn_to_pfn_t(folio_pfn(folio));
	p4d = p4d_alloc(ctx->mm, pgd_offset(ctx->mm, a), a);
	vmf.pud = p4d ? pud_alloc(ctx->mm, p4d, a) : NULL;
	vmf.pmd = vmf.pud && size == PMD_SIZE ? pmd_alloc(ctx->mm, vmf.pud, a) :
		  NULL;
	/* vmf_insert_pfn_pud() is built with PUD_PFNMAP's THP PUDs only */
	if (IS_ENABLED(CONFIG_ARCH_SUPPORTS_PUD_PFNMAP) && size == PUD_SIZE &&
	    vmf.pud)
		return vmf_insert_pfn_pud(&vmf, pfn, false) == VM_FAULT_NOPAGE ?
		       0 : -EIO;
	return vmf.pmd && vmf_insert_pfn_pmd(&vmf, pfn, false) ==
	       VM_FAULT_NOPAGE ? 0 : -EIO;
}

/* One entry of a PFN or mixed map */
static int pagestat_fill_pfn(struct pagestat_ctx *ctx,
			     const struct pagestat_seg *seg, unsigned long a,
			     unsigned long size, char c)
{
	unsigned long pfn = c == 'z' ? my_zero_pfn(a) :
			    PHYS_PFN(__pa(ctx->kpages)) + (a >> PAGE_SHIFT) % 8;
	pfn_t dpfn = pfn_to_pfn_t(pfn);
	struct vm_area_struct *vma;
	struct page *page = NULL;
	vm_fault_t fault;
	int ret = 0;

	if (c == 'd')
		dpfn = __pfn_to_pfn_t(PHYS_PFN(ctx->dev[1]->range.start) +
				      (size > PAGE_SIZE ? 0 : ctx->dev_used[1]++),
				      PFN_DEV | PFN_MAP);
	if (c == '0' || c == '1')
		page = alloc_pages_node(pagestat_node(ctx, c), GFP_KERNEL |
					__GFP_THISNODE, 0);
	mmap_read_lock(ctx->mm);
	vma = vma_lookup(ctx->mm, a);
	if (size > PAGE_SIZE) {
		ret = pagestat_insert_huge(ctx, vma, a, size, dpfn);
	} else if (page) {
		ret = vm_insert_page(vma, a, page);
		put_page(page);	/* the PTE holds it from now on */
	} else {
		fault = seg->kind == PAGESTAT_PFNMAP ? vmf_insert_pfn(vma, a, pfn) :
			vmf_insert_mixed(vma, a, dpfn);
		ret = fault == VM_FAULT_NOPAGE ? 0 : -EIO;
	}
	mmap_read_unlock(ctx->mm);
	return ret;
}

/* mprotect() of a VMA, as do_mprotect_pkey(), which is static, does it */
static int pagestat_mprotect(struct mm_struct *mm, unsigned long start,
			     unsigned long end, unsigned long access)
{
	VMA_ITERATOR(vmi, mm, start);
	struct vm_area_struct *vma, *prev;
	struct mmu_gather tlb;
	int err = -ENOMEM;

	mmap_write_lock(mm);
	vma = vma_find(&vmi, end);
	if (vma && vma->vm_start == start && vma->vm_end == end) {
		prev = vma_prev(&vmi);
		vma = vma_find(&vmi, end);
		tlb_gather_mmu(&tlb, mm);
		err = mprotect_fixup(&vmi, &tlb, vma, &prev, start, end,
				     (vma->vm_flags & ~VM_ACCESS_FLAGS) | access);
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
#define PAGESTAT_IF(l, size)	\
	(IS_ENABLED(CONFIG_ARCH_SUPPORTS_##l##_PFNMAP) ? (size) : 0)
#define PAGESTAT_ANON_KIND(size) { pagestat_map_anon, pagestat_fill_anon, size }
#define PAGESTAT_PFN_KIND(size)	{ pagestat_map_pfn, pagestat_fill_pfn, size }

static const struct pagestat_builder {
	int (*map)(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
		   unsigned long addr, unsigned long size, const char **skip);
	int (*fill)(struct pagestat_ctx *ctx, const struct pagestat_seg *seg,
		    unsigned long a, unsigned long size, char c);
	unsigned long size;	/* of an entry; 0: not on this machine */
} pagestat_builders[] = {
	[PAGESTAT_ANON]		= PAGESTAT_ANON_KIND(PAGE_SIZE),
	[PAGESTAT_THP]		= PAGESTAT_ANON_KIND(PMD_SIZE),
	[PAGESTAT_MTHP]		= PAGESTAT_ANON_KIND(PAGE_SIZE <<
						     PAGESTAT_MTHP_ORDER),
	[PAGESTAT_HUGETLB_PMD]	= PAGESTAT_ANON_KIND(PMD_SIZE),
	[PAGESTAT_HUGETLB_PUD]	= PAGESTAT_ANON_KIND(PUD_SIZE),
	[PAGESTAT_HUGETLB_CONT_PTE] = PAGESTAT_ANON_KIND(PAGESTAT_CONT_PTE),
	[PAGESTAT_HUGETLB_CONT_PMD] = PAGESTAT_ANON_KIND(PAGESTAT_CONT_PMD),
	[PAGESTAT_PFNMAP]	= PAGESTAT_PFN_KIND(PAGE_SIZE),
	[PAGESTAT_PFNMAP_PMD]	= PAGESTAT_PFN_KIND(PAGESTAT_IF(PMD, PMD_SIZE)),
	[PAGESTAT_PFNMAP_PUD]	= PAGESTAT_PFN_KIND(PAGESTAT_IF(PUD, PUD_SIZE)),
	[PAGESTAT_MIXEDMAP]	= PAGESTAT_PFN_KIND(PAGE_SIZE),
};

/* The bytes a segment covers; 0 if this machine has no such kind */
static unsigned long pagestat_seg_size(const struct pagestat_seg *seg)
{
	return strlen(seg->pattern) * pagestat_builders[seg->kind].size;
}

/* Claim what the probe must find at entry @c of @size at @a */
static void pagestat_claim_entry(struct pagestat_ctx *ctx,
				 const struct pagestat_seg *seg,
				 unsigned long a, unsigned long size, char c)
{
	const struct pagestat_char *pc = pagestat_chars;
	struct pagestat_state st, hole = { PAGESTAT_HOLE, PAGESTAT_PTE };
	unsigned long end = a + (c == 'x' || c == 'p' ? size - PAGE_SIZE : size);

	while (pc->c != c)
		pc++;
	st = (struct pagestat_state){ pc->what, pc->level, pc->type,
				      .nid = pagestat_node(ctx, c) };
	if (!st.level)
		st.level = size >= PUD_SIZE ? PAGESTAT_PUD :
			   size >= PMD_SIZE ? PAGESTAT_PMD : PAGESTAT_PTE;
	if (st.level == 0xff || (st.level < PAGESTAT_PMD &&
				 CONFIG_PGTABLE_LEVELS < 4))
		st.level = 0;
	if (seg->kind <= PAGESTAT_MTHP && st.what == PAGESTAT_FOLIO)
		st.order = seg->kind == PAGESTAT_ANON ? 0 : ilog2(size >> PAGE_SHIFT);
	/* x86's pud_present() is false for PROT_NONE */
	if (IS_ENABLED(CONFIG_X86) && seg->protnone && size == PUD_SIZE &&
	    c != '.')
		st = (struct pagestat_state){ PAGESTAT_NONPRESENT,
					      PAGESTAT_PUD, PAGESTAT_SWAP };
	pagestat_claim(ctx, a, end, &st);
	pagestat_claim(ctx, end, a + size, &hole);
}

/*
 * Map a segment at @addr and claim what it holds. Return: 0, PAGESTAT_SKIP
 * with the reason in @skip, or a negative errno.
 */
static int pagestat_build(struct pagestat_ctx *ctx,
			  const struct pagestat_seg *seg, unsigned long addr,
			  const char **skip)
{
	const struct pagestat_builder *b = &pagestat_builders[seg->kind];
	unsigned long a, len = pagestat_seg_size(seg);
	int ret;

	*skip = "no such kind of mapping on this architecture";
	if (!len)
		return PAGESTAT_SKIP;
	ret = b->map(ctx, seg, addr, b->size, skip);
	for (a = addr; a < addr + len && !ret; a += b->size) {
		char c = seg->pattern[(a - addr) / b->size];

		pagestat_claim_entry(ctx, seg, a, b->size, c);
		if (!strchr(".432", c))
			ret = b->fill(ctx, seg, a, b->size, c);
	}
	/* khugepaged must leave the PTE-mapped THPs as they are */
	if (!ret && seg->kind == PAGESTAT_THP)
		ret = do_madvise(ctx->mm, addr, len, MADV_NOHUGEPAGE);
	if (!ret && seg->protnone)
		ret = pagestat_mprotect(ctx->mm, addr, addr + len, 0);
	return ret;
}
