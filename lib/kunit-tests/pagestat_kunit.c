// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for pagestat_range().
 *
 * Each case builds real mappings in the test kthread's own mm (attached by
 * kunit_vm_mmap()) at fixed addresses, checks with folio_walk_start() or a
 * raw page table probe that every mapping holds what it claims, and then
 * holds pagestat_range() to two references: the status the layout should
 * give, and pagestat_oracle(), the per-address body of the stock 6.12
 * do_pages_stat_array() (mm/migrate.c), kept verbatim, so that a difference
 * always means that the walker changed behaviour.
 *
 * Suites:
 *  - pagestat_range: one case per kind of mapping, and edge cases;
 *  - pagestat_oracle: random layouts from fixed seeds, compared with the
 *    oracle page by page;
 *  - pagestat_chain: PTEs mapping physically consecutive pages, ascending,
 *    descending, PROT_NONE, in two interleaved lanes, broken, or between
 *    runs of empty entries;
 *  - pagestat_race: a kthread splits, collapses, zaps, mprotects and
 *    remaps THPs while the range is walked in a loop.
 *
 * Not built, and why:
 *  - swap entries: the test kernel has no swap device;
 *  - PMD migration entries: a THP migration cannot be held half done;
 *  - hwpoison entries and PTE markers: need memory_failure() or userfaultfd;
 *  - a present PTE to a MEMORY_DEVICE_COHERENT folio: a coherent pgmap needs
 *    arch_add_memory() over reserved RAM; the same folio_is_zone_device()
 *    branch is taken by a device-private page mapped with vm_insert_page();
 *  - DAX entries: need a pmem device.
 */

#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/mm.h>
#include <linux/anon_inodes.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/huge_mm.h>
#include <linux/hugetlb.h>
#include <linux/ioport.h>
#include <linux/kthread.h>
#include <linux/memremap.h>
#include <linux/mempolicy.h>
#include <linux/migrate.h>
#include <linux/mman.h>
#include <linux/nodemask.h>
#include <linux/pagestat.h>
#include <linux/pagewalk.h>
#include <linux/pfn_t.h>
#include <linux/prandom.h>
#include <linux/rmap.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swapops.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>
#include <asm/tlb.h>

/* 16 TiB: aligned to every page table level; the cases own what is above. */
#define PAGESTAT_BASE		BIT(44)
#define PAGESTAT_ARENA		BIT(42)
#define PAGESTAT_MAX_SEGS	6
#define PAGESTAT_MAX_ENTRIES	48
#define PAGESTAT_MAX_RANGES	6
/* No walker writes this: an unwritten status slot shows. */
#define PAGESTAT_UNSET		INT_MIN
/* Above this many pages the oracle and the fingerprints are sampled. */
#define PAGESTAT_FULL_CHECK	16384
/* Compaction may migrate a page between two looks: retry before failing. */
#define PAGESTAT_TRIES		3
#define PAGESTAT_REPORT		8
#define PAGESTAT_KPAGES_ORDER	3
#define PAGESTAT_KPAGES		BIT(PAGESTAT_KPAGES_ORDER)
/* A PUD-aligned pfn for special and devmap PMDs and PUDs; never touched. */
#define PAGESTAT_HUGE_PFN	PHYS_PFN(SZ_1G)
#define PAGESTAT_LAYOUTS	64

enum pagestat_kind {
	PAGESTAT_ANON,		/* private anon, 4 KiB pages */
	PAGESTAT_THP,		/* private anon, MADV_HUGEPAGE, per PMD */
	PAGESTAT_HUGETLB,	/* MAP_HUGETLB, one entry per huge page */
	PAGESTAT_SHMEM,		/* MAP_SHARED | MAP_ANONYMOUS */
	PAGESTAT_PFNMAP,	/* shared VM_PFNMAP file VMA, PTEs */
	PAGESTAT_PFNMAP_HUGE,	/* shared VM_PFNMAP file VMA, PMDs or PUDs */
	PAGESTAT_PFNMAP_COW,	/* private remap_pfn_range() of kernel pages */
	PAGESTAT_MIXEDMAP,	/* private VM_MIXEDMAP file VMA */
	PAGESTAT_LEAF,		/* shared VM_MIXEDMAP, PMD or PUD of a folio */
	PAGESTAT_LEAF_COW,	/* private VM_PFNMAP, PMD of a folio */
	PAGESTAT_GAP,		/* no VMA at all */
};

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

/* What a non-allocating walk of the page tables found at one address. */
enum pagestat_raw_level {
	PAGESTAT_RAW_ANY,	/* only as pagestat_seg.hole: any hole */
	PAGESTAT_RAW_NOVMA,
	PAGESTAT_RAW_TOP_NONE,	/* PGD or P4D entry none: no PUD table */
	PAGESTAT_RAW_PUD_NONE,	/* no PMD table */
	PAGESTAT_RAW_PMD_NONE,	/* no PTE table */
	PAGESTAT_RAW_PTE_NONE,
	PAGESTAT_RAW_PUD,	/* PUD leaf or non-present PUD */
	PAGESTAT_RAW_PMD,	/* PMD leaf or non-present PMD */
	PAGESTAT_RAW_PTE,	/* present or non-present PTE */
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

#define PAGESTAT_RAW_PRESENT	BIT(0)
#define PAGESTAT_RAW_LEAF	BIT(1)	/* _PAGE_PSE on a PMD or PUD */
#define PAGESTAT_RAW_SPECIAL	BIT(2)
#define PAGESTAT_RAW_DEVMAP	BIT(3)
#define PAGESTAT_RAW_HUGE_ZERO	BIT(4)
#define PAGESTAT_RAW_MIGRATION	BIT(5)
#define PAGESTAT_RAW_DEV_PRIV	BIT(6)
#define PAGESTAT_RAW_DEV_EXCL	BIT(7)
#define PAGESTAT_RAW_CONT	BIT(8)	/* arm64: part of a contiguous range */

struct pagestat_raw {
	u8 level;
	u16 flags;
	unsigned long pfn;
};

/* What folio_walk_start(FW_ZEROPAGE) found at one address. */
struct pagestat_fw {
	bool found;
	u8 level;		/* enum folio_walk_level */
	bool zero;
	bool huge_zero;
	bool zone_device;
	bool device_private;
	bool hugetlb;
	bool large;
	bool anon;
	u8 order;
	int nid;
};

/*
 * One VMA (or gap) of a layout. @pattern has one character per entry of
 * 1 << @shift bytes:
 *   '.'  nothing mapped
 *   '0'  a folio on the first node ('1': on the second): an anon page, a
 *        PMD THP, a hugetlb page, a shmem page, a COW copy or a folio
 *        mapped by a synthetic leaf, by @kind
 *   'r'  shmem page allocated by a read fault, first node
 *   'k'  kernel page mapped by vm_insert_page(), first node ('K': second)
 *   'z'  shared zero page, huge zero PMD or zero pfn
 *   's'  special pfn (PTE, PMD or PUD)
 *   'd'  devmap pfn (PTE, PMD or PUD)
 *   'x'  anon page written, then zapped by MADV_DONTNEED
 *   'a'  THP on the first node ('b': second), PTE-mapped by zapping @zap
 *   'e'  anon page made device-exclusive
 *   'v'  device-private entry (migrate_vma_*() of an empty PTE)
 *   'D'  device-private page mapped by a present PTE
 */
struct pagestat_seg {
	enum pagestat_kind kind;
	unsigned long off;	/* bytes from the layout base */
	unsigned int shift;	/* 0: the kind's natural entry size */
	char pattern[PAGESTAT_MAX_ENTRIES + 1];
	unsigned int zap;	/* page in the PMD, see pagestat_zapped() */
	bool protnone;		/* mprotect(PROT_NONE) once populated */
	u8 hole;		/* '.': enum pagestat_raw_level expected */
	/* set when the layout is loaded and built */
	unsigned long start;
	unsigned long end;
	bool verified;
};

/* @nr pages from PAGESTAT_BASE + @off, page aligned */
struct pagestat_sub {
	unsigned long off;
	unsigned long nr;
};

struct pagestat_case {
	const char *name;
	struct pagestat_seg segs[PAGESTAT_MAX_SEGS];
	/* checked after the whole layout; the first with @nr 0 ends them */
	struct pagestat_sub subs[PAGESTAT_MAX_RANGES];
};

enum pagestat_verdict {
	PAGESTAT_OK,
	PAGESTAT_SKIP,		/* a resource is missing: node, THP, pool */
	PAGESTAT_FAIL,		/* the layout is not what it claims */
};

struct pagestat_ctx {
	struct kunit *test;
	struct mm_struct *mm;
	int nid[2];		/* nodes of '0' and '1' */
	bool soft;		/* random layouts: count probe misses */
	char msg[256];		/* why the last build, probe or check failed */
	struct pagestat_seg segs[PAGESTAT_MAX_SEGS];
	unsigned int nr_segs;
	struct folio *folios[PAGESTAT_MAX_SEGS * 2];	/* under leaves */
	unsigned int nr_folios;
	/* query buffers, grown on demand; units: pages */
	unsigned long cap;
	int *st;
	int *orc;
	int *exp;
	unsigned long *idx;	/* sampled page indexes */
	struct pagestat_raw *fp0;
	struct pagestat_raw *fp1;
	unsigned long first_bad;
	/* pagestat_chain: one status and one character per entry */
	const int *chain_exp;
	const char *chain_pat;
	unsigned long chain_start;
	unsigned long chain_nr;
	/* statistics for kunit_info() */
	unsigned long queries;
	unsigned long pages;
	unsigned long oracle_pages;
	unsigned long retries;
	unsigned long unverified;
};

/*
 * The oracle: the per-address body of do_pages_stat_array() in 6.12
 * mm/migrate.c, verbatim. Caller holds mmap_read_lock(mm).
 */
static int pagestat_oracle(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	struct folio_walk fw;
	struct folio *folio;
	int err = -EFAULT;

	vma = vma_lookup(mm, addr);
	if (!vma)
		goto set_status;

	folio = folio_walk_start(&fw, vma, addr, FW_ZEROPAGE);
	if (folio) {
		if (is_zero_folio(folio) || is_huge_zero_folio(folio))
			err = -EFAULT;
		else if (folio_is_zone_device(folio))
			err = -ENOENT;
		else
			err = folio_nid(folio);
		folio_walk_end(&fw, vma);
	} else {
		err = -ENOENT;
	}
set_status:
	return err;
}

/* Kernel pages behind 's', 'd' and the private remap; set by suite_init. */
static struct page *pagestat_kpages;

static unsigned long pagestat_kpfn(unsigned int i)
{
	return page_to_pfn(pagestat_kpages) + i;
}

/* ---------------------------------------------------------------- device */

#ifdef CONFIG_DEVICE_PRIVATE
/* One small MEMORY_DEVICE_PRIVATE pgmap, built as lib/test_hmm.c does. */
static struct pagestat_devmem {
	spinlock_t lock;	/* protects free and used */
	struct page *free;
	unsigned long used;
	bool ready;
	bool leaked;
	struct dev_pagemap pgmap;	/* last: ends in a flexible array */
} pagestat_devmem;

static void pagestat_devmem_page_free(struct page *page)
{
	struct pagestat_devmem *dm = &pagestat_devmem;
	unsigned long flags;

	spin_lock_irqsave(&dm->lock, flags);
	page->zone_device_data = dm->free;
	dm->free = page;
	dm->used--;
	spin_unlock_irqrestore(&dm->lock, flags);
}

static vm_fault_t pagestat_devmem_migrate_to_ram(struct vm_fault *vmf)
{
	/* The cases never touch a device-private address. */
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops pagestat_devmem_ops = {
	.page_free		= pagestat_devmem_page_free,
	.migrate_to_ram		= pagestat_devmem_migrate_to_ram,
};

static void pagestat_devmem_init(void)
{
	struct pagestat_devmem *dm = &pagestat_devmem;
	unsigned long pfn, end;
	struct resource *res;
	void *addr;

	/* A pgmap that may still be mapped must stay as it is. */
	if (dm->leaked)
		return;
	spin_lock_init(&dm->lock);
	dm->free = NULL;
	dm->used = 0;
	res = request_free_mem_region(&iomem_resource, SZ_2M,
				      "pagestat_kunit");
	if (IS_ERR_OR_NULL(res)) {
		pr_warn("pagestat_kunit: no free region for device memory\n");
		return;
	}
	memset(&dm->pgmap, 0, sizeof(dm->pgmap));
	dm->pgmap.type = MEMORY_DEVICE_PRIVATE;
	dm->pgmap.range.start = res->start;
	dm->pgmap.range.end = res->end;
	dm->pgmap.nr_range = 1;
	dm->pgmap.ops = &pagestat_devmem_ops;
	dm->pgmap.owner = dm;
	addr = memremap_pages(&dm->pgmap, NUMA_NO_NODE);
	if (IS_ERR(addr)) {
		pr_warn("pagestat_kunit: memremap_pages: %ld\n", PTR_ERR(addr));
		release_mem_region(res->start, resource_size(res));
		return;
	}
	end = PHYS_PFN(res->end + 1);
	for (pfn = PHYS_PFN(res->start); pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		page->zone_device_data = dm->free;
		dm->free = page;
	}
	dm->ready = true;
}

static void pagestat_devmem_exit(void)
{
	struct pagestat_devmem *dm = &pagestat_devmem;
	int i;

	if (!dm->ready)
		return;
	dm->ready = false;
	/* The last case's mm may still be on its way out (exit_mm()). */
	for (i = 0; i < 250 && READ_ONCE(dm->used); i++)
		msleep(20);
	if (READ_ONCE(dm->used)) {
		/* memunmap_pages() would wait for them forever */
		pr_warn("pagestat_kunit: %lu device pages still mapped, leaking the pgmap\n",
			READ_ONCE(dm->used));
		dm->leaked = true;
		return;
	}
	memunmap_pages(&dm->pgmap);
	release_mem_region(dm->pgmap.range.start, range_len(&dm->pgmap.range));
}

static bool pagestat_devmem_ready(void)
{
	return pagestat_devmem.ready;
}

/* Returns a device page with one reference, locked, or NULL. */
static struct page *pagestat_devmem_alloc(void)
{
	struct pagestat_devmem *dm = &pagestat_devmem;
	unsigned long flags;
	struct page *page;

	if (!dm->ready)
		return NULL;
	spin_lock_irqsave(&dm->lock, flags);
	page = dm->free;
	if (page) {
		dm->free = page->zone_device_data;
		dm->used++;
	}
	spin_unlock_irqrestore(&dm->lock, flags);
	if (page)
		zone_device_page_init(page);
	return page;
}
#else
static void pagestat_devmem_init(void)
{
}

static void pagestat_devmem_exit(void)
{
}

static bool pagestat_devmem_ready(void)
{
	return false;
}
#endif

/* ---------------------------------------------------------------- probes */

static bool pagestat_raw_hole(u8 level)
{
	return level >= PAGESTAT_RAW_TOP_NONE && level <= PAGESTAT_RAW_PTE_NONE;
}

/* Caller holds mmap_read_lock(mm). Never allocates a page table. */
static void __pagestat_raw(struct mm_struct *mm, unsigned long addr,
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

/* Caller holds mmap_read_lock(mm). */
static void __pagestat_fw(struct mm_struct *mm, unsigned long addr,
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

static __printf(3, 4) enum pagestat_verdict
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

static int pagestat_node(const struct pagestat_ctx *ctx, char c)
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

/* ---------------------------------------------------------------- builders */

/* Sets the task mempolicy to bind:@nid, or back to default. */
static int pagestat_bind(int nid)
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

/* Faults [addr, addr + len) in, with the task bound to @nid. */
static int pagestat_populate(struct pagestat_ctx *ctx, unsigned long addr,
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

static int pagestat_mmap(struct file *file, unsigned long addr,
			 unsigned long len, unsigned long flags)
{
	unsigned long ret;

	ret = vm_mmap(file, addr, len, PROT_READ | PROT_WRITE,
		      flags | MAP_FIXED_NOREPLACE, 0);
	if (IS_ERR_VALUE(ret))
		return (int)ret;
	return ret == addr ? 0 : -EADDRINUSE;
}

/*
 * mprotect() without a syscall, to the VM_READ, VM_WRITE and VM_EXEC bits
 * in @access: the loop of do_mprotect_pkey() (mm/mprotect.c), which is
 * static.
 */
static int pagestat_mprotect(struct mm_struct *mm, unsigned long start,
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

/* A file whose VMAs are VM_PFNMAP or VM_MIXEDMAP, like a device's. */
struct pagestat_fmode {
	unsigned long vm_flags;
	unsigned long pgoff;	/* if set: the VMA's vm_pgoff, a linear pfn */
	bool remap;		/* remap_pfn_range() the kernel pages */
};

static struct pagestat_fmode pagestat_fmode_pfnmap = {
	.vm_flags = VM_PFNMAP | VM_IO,
};

static struct pagestat_fmode pagestat_fmode_mixedmap = {
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

static int pagestat_mmap_file(struct pagestat_fmode *mode, unsigned long addr,
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

static enum pagestat_verdict pagestat_build_anon(struct pagestat_ctx *ctx,
						 struct pagestat_seg *seg)
{
	unsigned long addr, len = seg->end - seg->start;
	int ret;

	ret = pagestat_mmap(NULL, seg->start, len,
			    MAP_PRIVATE | MAP_ANONYMOUS);
	if (!ret)
		/* 4 KiB pages, whatever the THP mode */
		ret = do_madvise(ctx->mm, seg->start, len, MADV_NOHUGEPAGE);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"anon mmap at %#lx: %d", seg->start,
					ret);
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
	unsigned long addr, len = seg->end - seg->start;
	unsigned long size = 1UL << seg->shift;
	unsigned int order = seg->shift - PAGE_SHIFT;
	bool mthp = seg->shift < PMD_SHIFT;
	enum pagestat_verdict v = PAGESTAT_OK;
	struct pagestat_fw f;
	int ret;

	ret = pagestat_mmap(NULL, seg->start, len,
			    MAP_PRIVATE | MAP_ANONYMOUS);
	if (!ret)
		/* transparent_hugepage=madvise needs it */
		ret = do_madvise(ctx->mm, seg->start, len, MADV_HUGEPAGE);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"THP mmap at %#lx: %d", seg->start,
					ret);
	if (mthp)
		set_bit(order, &huge_anon_orders_madvise);
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
	if (mthp)
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

/* One entry of a VM_PFNMAP or VM_MIXEDMAP segment; mmap_read_lock held. */
static int pagestat_fill_pfn(struct pagestat_ctx *ctx,
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

#ifdef CONFIG_DEVICE_PRIVATE
/* 'e' and 'v' entries of an anon segment. */
static enum pagestat_verdict pagestat_build_device(struct pagestat_ctx *ctx,
						   struct pagestat_seg *seg)
{
	unsigned long addr, src, dst;
	struct vm_area_struct *vma;
	struct page *page;
	int ret = 0;
	char c = 0;

	mmap_read_lock(ctx->mm);
	for (addr = seg->start; addr < seg->end && !ret; addr += PAGE_SIZE) {
		c = seg->pattern[(addr - seg->start) >> PAGE_SHIFT];
		vma = vma_lookup(ctx->mm, addr);
		if (c == 'e') {
			page = NULL;
			ret = make_device_exclusive_range(ctx->mm, addr,
							  addr + PAGE_SIZE,
							  &page,
							  &pagestat_devmem);
			if (ret == 1 && page) {
				unlock_page(page);
				put_page(page);
				ret = 0;
			} else {
				ret = ret < 0 ? ret : -EBUSY;
			}
		} else if (c == 'v' && vma) {
			struct migrate_vma args = {
				.vma		= vma,
				.start		= addr,
				.end		= addr + PAGE_SIZE,
				.src		= &src,
				.dst		= &dst,
				.pgmap_owner	= &pagestat_devmem,
				.flags		= MIGRATE_VMA_SELECT_SYSTEM,
			};

			ret = migrate_vma_setup(&args);
			if (ret)
				break;
			dst = 0;
			/* an empty PTE: nothing to copy (lib/test_hmm.c) */
			if ((src & MIGRATE_PFN_MIGRATE) &&
			    !migrate_pfn_to_page(src)) {
				page = pagestat_devmem_alloc();
				if (page)
					dst = migrate_pfn(page_to_pfn(page));
			}
			migrate_vma_pages(&args);
			migrate_vma_finalize(&args);
			if (!dst)
				ret = -EBUSY;
		}
	}
	mmap_read_unlock(ctx->mm);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"making '%c' at %#lx: %d", c,
					addr - PAGE_SIZE, ret);
	return PAGESTAT_OK;
}
#else
static enum pagestat_verdict pagestat_build_device(struct pagestat_ctx *ctx,
						   struct pagestat_seg *seg)
{
	return pagestat_verdict(ctx, PAGESTAT_SKIP,
				"needs CONFIG_DEVICE_PRIVATE");
}
#endif

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

static void pagestat_place(struct pagestat_seg *seg, unsigned long base)
{
	unsigned long n = strlen(seg->pattern);

	seg->start = base + seg->off;
	seg->end = seg->start + (n << seg->shift);
}

/* Copies @segs (ended by an empty pattern) to @ctx, placed at @base. */
static void pagestat_load(struct pagestat_ctx *ctx,
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

static void pagestat_dump(struct pagestat_ctx *ctx)
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

/* Builds and probes the loaded layout. */
static enum pagestat_verdict pagestat_build(struct pagestat_ctx *ctx)
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

/* Re-probes the layout: a query must not have split or changed it. */
static enum pagestat_verdict pagestat_reprobe(struct pagestat_ctx *ctx)
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

static void pagestat_settle(struct kunit *test, struct pagestat_ctx *ctx,
			    enum pagestat_verdict v)
{
	if (v == PAGESTAT_SKIP)
		kunit_skip(test, "%s", ctx->msg);
	KUNIT_ASSERT_EQ_MSG(test, v, PAGESTAT_OK, "%s", ctx->msg);
}

/* Unmaps everything now: pools and device pages are back for the next case. */
static void pagestat_teardown(struct pagestat_ctx *ctx)
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

/* ---------------------------------------------------------------- checks */

static int pagestat_expect(const struct pagestat_ctx *ctx, unsigned long addr)
{
	const struct pagestat_seg *seg = NULL;
	unsigned int i;
	char c;

	if (ctx->chain_exp && addr >= ctx->chain_start &&
	    (addr - ctx->chain_start) >> PAGE_SHIFT < ctx->chain_nr)
		return ctx->chain_exp[(addr - ctx->chain_start) >> PAGE_SHIFT];
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
	unsigned long j = (addr - ctx->chain_start) >> PAGE_SHIFT;
	unsigned int i;

	if (ctx->chain_pat && addr >= ctx->chain_start && j < ctx->chain_nr) {
		snprintf(buf, len, "'%c' of chain entry %lu", ctx->chain_pat[j],
			 j);
		return buf;
	}
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

static int pagestat_reserve(struct pagestat_ctx *ctx, unsigned long nr)
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

/* pagestat_range() and the oracle over the same range, under one lock. */
static int pagestat_query(struct pagestat_ctx *ctx, unsigned long start,
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
					unsigned long start, unsigned long nr)
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

static void pagestat_report(struct pagestat_ctx *ctx, unsigned long start,
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

/*
 * Queries the @nr pages from @start (which need not be aligned) and holds
 * every status to the layout (where verified) and to the oracle (on every
 * page, or on a sample of large ranges); the page tables must look the
 * same before and after. Returns the number of faults found.
 */
static unsigned long pagestat_check_range(struct pagestat_ctx *ctx,
					  unsigned long start,
					  unsigned long nr)
{
	unsigned long i, m = 0, bad = 0, changed, first = 0;
	struct kunit *test = ctx->test;
	int ret = 0, try;
	char buf[64];

	KUNIT_ASSERT_EQ(test, pagestat_reserve(ctx, nr + 1), 0);
	for (i = 0; i < nr; i++) {
		unsigned long addr = start + i * PAGE_SIZE;

		ctx->exp[i] = pagestat_expect(ctx, addr);
		if (pagestat_sampled(i, nr, addr))
			ctx->idx[m++] = i;
	}
	pagestat_fingerprint(ctx, start, m, ctx->fp0);
	for (try = 0; try < PAGESTAT_TRIES; try++) {
		if (try) {
			ctx->retries++;
			msleep(20);
		}
		ret = pagestat_query(ctx, start, nr, m);
		bad = pagestat_count_bad(ctx, start, nr);
		if (!ret && !bad)
			break;
	}
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

static void pagestat_span(const struct pagestat_ctx *ctx, unsigned long *start,
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

/* The layout and two pages on either side. */
static unsigned long pagestat_check_layout(struct pagestat_ctx *ctx)
{
	unsigned long start, end;

	pagestat_span(ctx, &start, &end);
	return pagestat_check_range(ctx, start - 2 * PAGE_SIZE,
				    ((end - start) >> PAGE_SHIFT) + 4);
}

/* ---------------------------------------------------------------- cases */

static int pagestat_case_init(struct kunit *test)
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

static int pagestat_suite_init(struct kunit_suite *suite)
{
	pagestat_kpages = alloc_pages(GFP_KERNEL | __GFP_ZERO,
				      PAGESTAT_KPAGES_ORDER);
	if (!pagestat_kpages)
		return -ENOMEM;
	pagestat_devmem_init();
	return 0;
}

static void pagestat_suite_exit(struct kunit_suite *suite)
{
	pagestat_devmem_exit();
	/* a dying mm may still map them as special PTEs: never read */
	if (pagestat_kpages)
		__free_pages(pagestat_kpages, PAGESTAT_KPAGES_ORDER);
	pagestat_kpages = NULL;
}

#define PAGESTAT_P(n)	((n) * PAGE_SIZE)
#define PAGESTAT_PMDS(n)	((n) * PMD_SIZE)
#define PAGESTAT_NR(len)	((len) >> PAGE_SHIFT)

/*
 * One row per kind of mapping. Unless a row says otherwise a segment is
 * placed at PAGESTAT_BASE + .off, and the query covers the whole layout
 * and two pages on either side.
 */
static const struct pagestat_case pagestat_cases[] = {
	{
		.name = "anon 4K on node 0",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "00000000" } },
	}, {
		.name = "anon 4K on node 1",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "11111111" } },
	}, {
		.name = "anon 4K, both nodes, zero page, holes",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "0z1.x0z1" } },
	}, {
		.name = "shared zero page",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "zzzz" } },
	}, {
		.name = "empty PTEs after MADV_DONTNEED",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "0xx0xx" } },
	}, {
		.name = "no VMA between two VMAs",
		.segs = {
			{ .kind = PAGESTAT_ANON, .pattern = "01" },
			{ .kind = PAGESTAT_GAP, .off = PAGESTAT_P(2),
			  .pattern = "...." },
			{ .kind = PAGESTAT_ANON, .off = PAGESTAT_P(6),
			  .pattern = "z0" },
		},
	}, {
		.name = "untouched VMA, no PTE table (PMD entry none)",
		.segs = {
			{ .kind = PAGESTAT_ANON,
			  .off = SZ_2M - PAGESTAT_P(2), .pattern = "0z" },
			{ .kind = PAGESTAT_ANON, .off = SZ_2M,
			  .pattern = "....", .hole = PAGESTAT_RAW_PMD_NONE },
		},
	}, {
		.name = "untouched VMA, no PMD table (PUD entry none)",
		.segs = {
			{ .kind = PAGESTAT_ANON,
			  .off = SZ_1G - PAGESTAT_P(2), .pattern = "0z" },
			{ .kind = PAGESTAT_ANON, .off = SZ_1G,
			  .pattern = "....", .hole = PAGESTAT_RAW_PUD_NONE },
		},
	}, {
		.name = "untouched VMA, no PUD table (P4D entry none)",
		.segs = {
			{ .kind = PAGESTAT_ANON,
			  .off = P4D_SIZE - PAGESTAT_P(2), .pattern = "0z" },
			{ .kind = PAGESTAT_ANON, .off = P4D_SIZE,
			  .pattern = "....", .hole = PAGESTAT_RAW_TOP_NONE },
		},
	}, {
		.name = "untouched VMA alone",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "........",
			    .hole = PAGESTAT_RAW_TOP_NONE } },
	}, {
		.name = "huge zero PMD",
		.segs = { { .kind = PAGESTAT_THP, .pattern = "z" } },
	}, {
		.name = "THP on node 0",
		.segs = { { .kind = PAGESTAT_THP, .pattern = "0" } },
	}, {
		.name = "THP on node 1",
		.segs = { { .kind = PAGESTAT_THP, .pattern = "1" } },
	}, {
		.name = "PTE-mapped THP on node 0",
		.segs = { { .kind = PAGESTAT_THP, .pattern = "a",
			    .zap = 100 } },
	}, {
		.name = "PTE-mapped THP on node 1",
		.segs = { { .kind = PAGESTAT_THP, .pattern = "b",
			    .zap = 511 } },
	}, {
		.name = "THPs, huge zero PMD and an empty PMD",
		.segs = { { .kind = PAGESTAT_THP, .pattern = "0z.1" } },
	}, {
		.name = "PROT_NONE anon 4K",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "0z.1",
			    .protnone = true } },
	}, {
		.name = "PROT_NONE THP and huge zero PMD",
		.segs = { { .kind = PAGESTAT_THP, .pattern = "0z",
			    .protnone = true } },
	}, {
		.name = "hugetlb 2M on node 0",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PMD_SHIFT,
			    .pattern = "0." } },
	}, {
		.name = "hugetlb 2M on node 1",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PMD_SHIFT,
			    .pattern = "1." } },
	}, {
		.name = "PROT_NONE hugetlb 2M",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PMD_SHIFT,
			    .pattern = "01", .protnone = true } },
	}, {
		.name = "mTHP 64K on both nodes (contiguous PTEs on arm64)",
		.segs = { { .kind = PAGESTAT_THP, .shift = 16,
			    .pattern = "01.1" } },
	}, {
		/* arm64 with 4 KiB pages; x86 has no such hugetlb sizes */
		.name = "hugetlb 64K, contiguous PTEs",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = 16,
			    .pattern = "01.0" } },
	}, {
		.name = "hugetlb 32M, contiguous PMDs",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = 25,
			    .pattern = "01" } },
	}, {
		.name = "hugetlb 1G on node 0",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PUD_SHIFT,
			    .pattern = "0" } },
	}, {
		.name = "hugetlb 1G on node 1",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PUD_SHIFT,
			    .pattern = "1" } },
	}, {
		.name = "hugetlb 1G not faulted",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PUD_SHIFT,
			    .pattern = "." } },
	}, {
		.name = "PROT_NONE hugetlb 1G",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PUD_SHIFT,
			    .pattern = "0", .protnone = true } },
	}, {
		.name = "shmem, MAP_SHARED anon",
		.segs = { { .kind = PAGESTAT_SHMEM, .pattern = "01r.0" } },
	}, {
		.name = "PFNMAP special and zero pfns",
		.segs = { { .kind = PAGESTAT_PFNMAP, .pattern = "sz.s" } },
	}, {
		.name = "private PFNMAP with COW'd pages",
		.segs = { { .kind = PAGESTAT_PFNMAP_COW, .pattern = "0s1s" } },
	}, {
		.name = "MIXEDMAP pages, special, zero and devmap pfns",
		.segs = { { .kind = PAGESTAT_MIXEDMAP, .pattern = "kKszd." } },
	}, {
		.name = "PFNMAP special and devmap PMDs",
		.segs = { { .kind = PAGESTAT_PFNMAP_HUGE, .shift = PMD_SHIFT,
			    .pattern = "s.d" } },
	}, {
		.name = "PFNMAP special PUD",
		.segs = { { .kind = PAGESTAT_PFNMAP_HUGE, .shift = PUD_SHIFT,
			    .pattern = "s" } },
	}, {
		.name = "PFNMAP devmap PUD",
		.segs = { { .kind = PAGESTAT_PFNMAP_HUGE, .shift = PUD_SHIFT,
			    .pattern = "d" } },
	}, {
		.name = "PUD leaf of a gigantic folio on node 0",
		.segs = { { .kind = PAGESTAT_LEAF, .shift = PUD_SHIFT,
			    .pattern = "0" } },
	}, {
		.name = "PUD leaf of a gigantic folio on node 1",
		.segs = { { .kind = PAGESTAT_LEAF, .shift = PUD_SHIFT,
			    .pattern = "1" } },
	}, {
		.name = "MIXEDMAP PMD leaves of 2M folios",
		.segs = { { .kind = PAGESTAT_LEAF, .shift = PMD_SHIFT,
			    .pattern = "0.1" } },
	}, {
		.name = "COW PFNMAP PMD leaf, page 5 at its linear pfn",
		.segs = { { .kind = PAGESTAT_LEAF_COW, .pattern = "1",
			    .zap = 5 } },
	}, {
		.name = "device-private entries",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "v0v." } },
	}, {
		.name = "device-exclusive entries",
		.segs = { { .kind = PAGESTAT_ANON, .pattern = "e0e1" } },
	}, {
		.name = "device-private pages, present PTEs",
		.segs = { { .kind = PAGESTAT_MIXEDMAP, .pattern = "D.Dk" } },
	}, {
		.name = "range across a PMD boundary",
		.segs = { { .kind = PAGESTAT_ANON,
			    .off = SZ_2M - PAGESTAT_P(4),
			    .pattern = "0z1.0x10" } },
	}, {
		.name = "range across a PUD boundary",
		.segs = {
			{ .kind = PAGESTAT_THP, .off = SZ_1G - SZ_2M,
			  .pattern = "0" },
			{ .kind = PAGESTAT_ANON, .off = SZ_1G,
			  .pattern = "1z0" },
		},
	}, {
		.name = "range across a P4D boundary",
		.segs = {
			{ .kind = PAGESTAT_ANON,
			  .off = P4D_SIZE - PAGESTAT_P(2), .pattern = "01" },
			{ .kind = PAGESTAT_SHMEM, .off = P4D_SIZE,
			  .pattern = "0." },
		},
	}, {
		.name = "adjacent VMAs of six kinds",
		.segs = {
			{ .kind = PAGESTAT_SHMEM, .pattern = "0." },
			{ .kind = PAGESTAT_ANON, .off = PAGESTAT_P(2),
			  .pattern = "z1" },
			{ .kind = PAGESTAT_PFNMAP, .off = PAGESTAT_P(4),
			  .pattern = "sz" },
			{ .kind = PAGESTAT_MIXEDMAP, .off = PAGESTAT_P(6),
			  .pattern = "k." },
			{ .kind = PAGESTAT_PFNMAP_COW, .off = PAGESTAT_P(8),
			  .pattern = "0s" },
			{ .kind = PAGESTAT_ANON, .off = PAGESTAT_P(10),
			  .pattern = "x0" },
		},
	}, {
		/*
		 * Runs of PMD leaves (THPs, huge zero PMDs, hugetlb 2M pages)
		 * that end where one PMD table ends and the next begins (a
		 * PUD boundary), at an empty PMD entry, at a PTE table, at
		 * the end of the VMA or of the query. The subranges start
		 * and end inside the runs of leaves.
		 */
		.name = "THPs across a PUD boundary, 10 a side",
		.segs = { { .kind = PAGESTAT_THP,
			    .off = PUD_SIZE - PAGESTAT_PMDS(10),
			    .pattern = "00z0.0000011111.z111",
			    .hole = PAGESTAT_RAW_PMD_NONE } },
		.subs = {
			{ PUD_SIZE - PAGESTAT_PMDS(10),
			  PAGESTAT_NR(PAGESTAT_PMDS(5)) + 100 },
			{ PUD_SIZE - PAGESTAT_PMDS(3) + PAGESTAT_P(7),
			  PAGESTAT_NR(PAGESTAT_PMDS(3)) - 6 },
			{ PUD_SIZE - PAGESTAT_P(1),
			  PAGESTAT_NR(PAGESTAT_PMDS(6)) + 301 },
			{ PUD_SIZE - PAGESTAT_PMDS(9),
			  PAGESTAT_NR(PAGESTAT_PMDS(9)) },
			{ PUD_SIZE + PAGESTAT_PMDS(1),
			  PAGESTAT_NR(PAGESTAT_PMDS(8)) },
		},
	}, {
		.name = "THPs across a PUD boundary, 4 a side",
		.segs = { { .kind = PAGESTAT_THP,
			    .off = PUD_SIZE - PAGESTAT_PMDS(4),
			    .pattern = "0z0011.1",
			    .hole = PAGESTAT_RAW_PMD_NONE } },
		.subs = {
			{ PUD_SIZE - PAGESTAT_PMDS(4) + PAGESTAT_P(1),
			  PAGESTAT_NR(PAGESTAT_PMDS(4)) },
			{ PUD_SIZE - PAGESTAT_PMDS(2),
			  PAGESTAT_NR(PAGESTAT_PMDS(3)) + 1 },
		},
	}, {
		/* 'a' and 'b': a PTE table between runs of leaves */
		.name = "THPs around PTE-mapped THPs",
		.segs = {
			{ .kind = PAGESTAT_THP,
			  .pattern = "00b111000000000a1111", .zap = 0 },
			{ .kind = PAGESTAT_THP, .off = PAGESTAT_PMDS(24),
			  .pattern = "1a0", .zap = 511 },
		},
		.subs = {
			{ PAGESTAT_PMDS(3),
			  PAGESTAT_NR(PAGESTAT_PMDS(12)) + 5 },
			{ PAGESTAT_PMDS(1) + PAGESTAT_P(3),
			  PAGESTAT_NR(PAGESTAT_PMDS(2)) },
			{ PAGESTAT_PMDS(14) + PAGESTAT_P(511),
			  PAGESTAT_NR(PAGESTAT_PMDS(2)) },
		},
	}, {
		.name = "three THP VMAs of 8, 9 and 10 PMDs, a PMD apart",
		.segs = {
			{ .kind = PAGESTAT_THP, .pattern = "00000000" },
			{ .kind = PAGESTAT_THP, .off = PAGESTAT_PMDS(9),
			  .pattern = "111111111" },
			{ .kind = PAGESTAT_THP, .off = PAGESTAT_PMDS(19),
			  .pattern = "0z.0000000",
			  .hole = PAGESTAT_RAW_PMD_NONE },
		},
		.subs = {
			{ PAGESTAT_PMDS(9), PAGESTAT_NR(PAGESTAT_PMDS(4)) + 1 },
			{ PAGESTAT_PMDS(2) + PAGESTAT_P(511),
			  PAGESTAT_NR(PAGESTAT_PMDS(13)) },
			{ PAGESTAT_PMDS(19), PAGESTAT_NR(PAGESTAT_PMDS(9)) },
			{ PAGESTAT_PMDS(20) - PAGESTAT_P(1),
			  PAGESTAT_NR(PAGESTAT_PMDS(8)) + 2 },
		},
	}, {
		.name = "hugetlb 2M across a PUD boundary, 9 below it",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PMD_SHIFT,
			    .off = PUD_SIZE - PAGESTAT_PMDS(9),
			    .pattern = "0.0.0.0.01.1",
			    .hole = PAGESTAT_RAW_PMD_NONE } },
		.subs = {
			{ PUD_SIZE - PAGESTAT_PMDS(9),
			  PAGESTAT_NR(PAGESTAT_PMDS(4)) + 10 },
			{ PUD_SIZE - PAGESTAT_PMDS(1) + PAGESTAT_P(5),
			  PAGESTAT_NR(PAGESTAT_PMDS(1)) + 10 },
		},
	}, {
		.name = "hugetlb 2M across a PUD boundary, 9 above it",
		.segs = { { .kind = PAGESTAT_HUGETLB, .shift = PMD_SHIFT,
			    .off = PUD_SIZE - PAGESTAT_PMDS(2),
			    .pattern = "001.1.1.1.1",
			    .hole = PAGESTAT_RAW_PMD_NONE } },
		.subs = {
			{ PUD_SIZE, PAGESTAT_NR(PAGESTAT_PMDS(6)) + 3 },
			{ PUD_SIZE - PAGESTAT_P(3),
			  PAGESTAT_NR(PAGESTAT_PMDS(9)) + 3 },
		},
	},
};

KUNIT_ARRAY_PARAM_DESC(pagestat_range, pagestat_cases, name);

/* Each kind alone: expected status and oracle on every page, no change. */
static void pagestat_range_kind(struct kunit *test)
{
	const struct pagestat_case *tc = test->param_value;
	struct pagestat_ctx *ctx = test->priv;
	unsigned int i;

	pagestat_load(ctx, tc->segs, PAGESTAT_BASE);
	pagestat_settle(test, ctx, pagestat_build(ctx));
	pagestat_check_layout(ctx);
	for (i = 0; i < PAGESTAT_MAX_RANGES && tc->subs[i].nr; i++)
		pagestat_check_range(ctx, PAGESTAT_BASE + tc->subs[i].off,
				     tc->subs[i].nr);
	pagestat_settle(test, ctx, pagestat_reprobe(ctx));
	pagestat_teardown(ctx);
}

static const struct pagestat_seg pagestat_small_layout[] = {
	{ .kind = PAGESTAT_ANON, .off = PAGESTAT_P(1), .pattern = "0z.x0" },
	{ .kind = PAGESTAT_SHMEM, .off = PAGESTAT_P(7), .pattern = "0." },
	{ }
};

/* nr_pages == 0 writes nothing and succeeds. */
static void pagestat_range_empty(struct kunit *test)
{
	struct pagestat_ctx *ctx = test->priv;
	int st[4] = { PAGESTAT_UNSET, PAGESTAT_UNSET, PAGESTAT_UNSET,
		      PAGESTAT_UNSET };
	int ret0, ret1;

	pagestat_load(ctx, pagestat_small_layout, PAGESTAT_BASE);
	pagestat_settle(test, ctx, pagestat_build(ctx));
	mmap_read_lock(ctx->mm);
	ret0 = pagestat_range(ctx->mm, ctx->segs[0].start, 0, st);
	ret1 = pagestat_range(ctx->mm, 0, 0, st);
	mmap_read_unlock(ctx->mm);
	KUNIT_EXPECT_EQ(test, ret0, 0);
	KUNIT_EXPECT_EQ(test, ret1, 0);
	KUNIT_EXPECT_EQ(test, st[0], PAGESTAT_UNSET);
	KUNIT_EXPECT_EQ(test, st[1], PAGESTAT_UNSET);
	pagestat_teardown(ctx);
}

/*
 * A range that wraps past the top of the address space, or whose length in
 * bytes overflows, is refused before anything is written.
 */
static void pagestat_range_overflow(struct kunit *test)
{
	struct pagestat_ctx *ctx = test->priv;
	int st[4] = { PAGESTAT_UNSET, PAGESTAT_UNSET, PAGESTAT_UNSET,
		      PAGESTAT_UNSET };
	int ret[6], i;

	pagestat_load(ctx, pagestat_small_layout, PAGESTAT_BASE);
	pagestat_settle(test, ctx, pagestat_build(ctx));
	KUNIT_ASSERT_EQ(test, pagestat_reserve(ctx, 601), 0);
	mmap_read_lock(ctx->mm);
	ret[0] = pagestat_range(ctx->mm, -PAGESTAT_P(2UL), 4, st);
	ret[1] = pagestat_range(ctx->mm, PAGESTAT_BASE,
				(ULONG_MAX >> PAGE_SHIFT) + 2, st);
	ret[2] = pagestat_range(ctx->mm, PAGESTAT_BASE, ULONG_MAX, st);
	ret[3] = pagestat_range(ctx->mm, -PAGESTAT_P(1UL), 2, st);
	ret[4] = pagestat_range(ctx->mm, ULONG_MAX, 2, st);
	ret[5] = pagestat_range(ctx->mm, -PAGESTAT_P(600UL), 601, ctx->st);
	mmap_read_unlock(ctx->mm);
	for (i = 0; i < ARRAY_SIZE(ret); i++)
		KUNIT_EXPECT_EQ_MSG(test, ret[i], -EINVAL, "overflow %d", i);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ_MSG(test, st[i], PAGESTAT_UNSET,
				    "page %d written", i);
	pagestat_teardown(ctx);
}

/*
 * Ranges that end at the last page of the address space, which no VMA
 * holds: answered, every page -EFAULT, nothing written past the range.
 */
static void pagestat_range_top(struct kunit *test)
{
	static const unsigned long nrs[] = { 1, 2, 3, 17, 600 };
	struct pagestat_ctx *ctx = test->priv;
	unsigned long i, nr, bad;
	unsigned int k;
	int ret;

	pagestat_load(ctx, pagestat_small_layout, PAGESTAT_BASE);
	pagestat_settle(test, ctx, pagestat_build(ctx));
	KUNIT_ASSERT_EQ(test, pagestat_reserve(ctx, 601), 0);
	for (k = 0; k < ARRAY_SIZE(nrs); k++) {
		nr = nrs[k];
		for (i = 0; i <= nr; i++)
			ctx->st[i] = PAGESTAT_UNSET;
		mmap_read_lock(ctx->mm);
		ret = pagestat_range(ctx->mm, -PAGESTAT_P(nr), nr, ctx->st);
		mmap_read_unlock(ctx->mm);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "[%#lx, +%lu pages)",
				    -PAGESTAT_P(nr), nr);
		for (i = 0, bad = 0; i < nr; i++)
			bad += ctx->st[i] != -EFAULT;
		KUNIT_EXPECT_EQ_MSG(test, bad, 0,
				    "pages of [%#lx, +%lu pages) not -EFAULT",
				    -PAGESTAT_P(nr), nr);
		KUNIT_EXPECT_EQ_MSG(test, ctx->st[nr], PAGESTAT_UNSET,
				    "written past [%#lx, +%lu pages)",
				    -PAGESTAT_P(nr), nr);
	}
	pagestat_teardown(ctx);
}

/* Runs of empty PTEs of several lengths between pages on different nodes */
static void pagestat_range_empty_ptes(struct kunit *test)
{
	static const struct pagestat_seg segs[] = {
		{ .kind = PAGESTAT_ANON,
		  .pattern = "0..............................1...............0" },
		{ .kind = PAGESTAT_ANON, .off = PAGESTAT_P(50),
		  .pattern = "1xxxxxxxxxxxxxxxxxxxxxxxx0................1" },
		{ }
	};
	struct pagestat_ctx *ctx = test->priv;

	pagestat_load(ctx, segs, PAGESTAT_BASE);
	pagestat_settle(test, ctx, pagestat_build(ctx));
	KUNIT_EXPECT_EQ(test, pagestat_check_layout(ctx), 0);
	pagestat_teardown(ctx);
}

/* Stock takes any address: page i is the page of start + i * PAGE_SIZE. */
static void pagestat_range_unaligned(struct kunit *test)
{
	static const unsigned long offs[] = { 1, 0x800, PAGE_SIZE - 1 };
	struct pagestat_ctx *ctx = test->priv;
	unsigned int i;

	pagestat_load(ctx, pagestat_small_layout, PAGESTAT_BASE);
	pagestat_settle(test, ctx, pagestat_build(ctx));
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		pagestat_check_range(ctx, PAGESTAT_BASE + offs[i], 10);
		pagestat_check_range(ctx, PAGESTAT_BASE - PAGE_SIZE + offs[i],
				     1);
	}
	pagestat_teardown(ctx);
}

/* The last page below TASK_SIZE, and addresses at and above it. */
static void pagestat_range_task_size(struct kunit *test)
{
	static const struct pagestat_seg top[] = {
		{ .kind = PAGESTAT_ANON, .pattern = "z0" },
		{ }
	};
	struct pagestat_ctx *ctx = test->priv;
	unsigned long end = TASK_SIZE;

	pagestat_load(ctx, top, end - PAGESTAT_P(2));
	pagestat_settle(test, ctx, pagestat_build(ctx));
	pagestat_check_range(ctx, end - PAGESTAT_P(4), 8);
	pagestat_check_range(ctx, end - PAGESTAT_P(2), 2);
	pagestat_check_range(ctx, end - PAGE_SIZE, 1);
	pagestat_check_range(ctx, end, 4);
	pagestat_teardown(ctx);
}

#ifdef CONFIG_DEVICE_MIGRATION
/*
 * Migration entries, held by migrate_vma_setup() until
 * migrate_vma_finalize() puts the pages back: stock does not pass
 * FW_MIGRATION, so they read -ENOENT.
 */
static void pagestat_range_migration(struct kunit *test)
{
	static const struct pagestat_seg segs[] = {
		{ .kind = PAGESTAT_ANON, .pattern = "00000000" },
		{ }
	};
	struct pagestat_ctx *ctx = test->priv;
	unsigned long src[8], dst[8], start, i, n = 0;
	struct migrate_vma args = { };
	struct pagestat_raw raw[8];
	int st[8], orc[8], ret;

	pagestat_load(ctx, segs, PAGESTAT_BASE);
	pagestat_settle(test, ctx, pagestat_build(ctx));
	start = ctx->segs[0].start;

	mmap_read_lock(ctx->mm);
	args.vma = vma_lookup(ctx->mm, start);
	args.start = start;
	args.end = start + PAGESTAT_P(8);
	args.src = src;
	args.dst = dst;
	args.pgmap_owner = ctx;
	args.flags = MIGRATE_VMA_SELECT_SYSTEM;
	ret = migrate_vma_setup(&args);
	if (!ret) {
		/* the pages are locked and unmapped: look now */
		for (i = 0; i < 8; i++) {
			st[i] = PAGESTAT_UNSET;
			__pagestat_raw(ctx->mm, start + PAGESTAT_P(i), &raw[i]);
			orc[i] = pagestat_oracle(ctx->mm,
						 start + PAGESTAT_P(i));
		}
		ret = pagestat_range(ctx->mm, start, 8, st);
		/* no destination pages: everything goes back */
		memset(dst, 0, sizeof(dst));
		migrate_vma_pages(&args);
		migrate_vma_finalize(&args);
	}
	mmap_read_unlock(ctx->mm);

	KUNIT_ASSERT_EQ(test, ret, 0);
	for (i = 0; i < 8; i++) {
		if (!(raw[i].flags & PAGESTAT_RAW_MIGRATION))
			continue;
		n++;
		KUNIT_EXPECT_EQ_MSG(test, st[i], -ENOENT, "page %lu", i);
	}
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, st[i], orc[i],
				    "page %lu: pagestat_range() vs the stock loop",
				    i);
	if (!n)
		kunit_skip(test, "migrate_vma_setup() unmapped no page");
	kunit_info(test, "%lu of 8 pages held as migration entries\n", n);

	/* and all is back in place */
	pagestat_settle(test, ctx, pagestat_reprobe(ctx));
	pagestat_check_layout(ctx);
	pagestat_teardown(ctx);
}
#else
static void pagestat_range_migration(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_DEVICE_MIGRATION for migrate_vma_*()");
}
#endif

static struct kunit_case pagestat_range_cases[] = {
	KUNIT_CASE_PARAM(pagestat_range_kind, pagestat_range_gen_params),
	KUNIT_CASE(pagestat_range_empty),
	KUNIT_CASE(pagestat_range_overflow),
	KUNIT_CASE(pagestat_range_top),
	KUNIT_CASE(pagestat_range_empty_ptes),
	KUNIT_CASE(pagestat_range_unaligned),
	KUNIT_CASE(pagestat_range_task_size),
	KUNIT_CASE(pagestat_range_migration),
	{}
};

static struct kunit_suite pagestat_range_suite = {
	.name		= "pagestat_range",
	.suite_init	= pagestat_suite_init,
	.suite_exit	= pagestat_suite_exit,
	.init		= pagestat_case_init,
	.test_cases	= pagestat_range_cases,
};

/* ---------------------------------------------------------------- random */

static u32 pagestat_rand(struct rnd_state *rs, u32 n)
{
	return prandom_u32_state(rs) % n;
}

/* @n random entries drawn from @alphabet. */
static void pagestat_gen_pattern(struct rnd_state *rs, struct pagestat_seg *seg,
				 const char *alphabet, unsigned int n)
{
	unsigned int i, len = strlen(alphabet);

	for (i = 0; i < n; i++)
		seg->pattern[i] = alphabet[pagestat_rand(rs, len)];
	seg->pattern[n] = '\0';
}

/* Keeps what this machine can build: one node, no device memory. */
static void pagestat_fit_pattern(const struct pagestat_ctx *ctx,
				 struct pagestat_seg *seg)
{
	char *p;

	for (p = seg->pattern; *p; p++) {
		if (ctx->nid[1] == NUMA_NO_NODE) {
			if (*p == '1')
				*p = '0';
			else if (*p == 'K')
				*p = 'k';
			else if (*p == 'b')
				*p = 'a';
		}
		if (!pagestat_devmem_ready() && strchr("evD", *p))
			*p = seg->kind == PAGESTAT_ANON ? '0' : 'k';
	}
}

static void pagestat_gen_seg(struct pagestat_ctx *ctx, struct rnd_state *rs,
			     struct pagestat_seg *seg, unsigned int *hugetlb)
{
	u32 r = pagestat_rand(rs, 100), n;
	char *p;

	memset(seg, 0, sizeof(*seg));
	seg->shift = PAGE_SHIFT;
	if (r < 27) {
		seg->kind = PAGESTAT_ANON;
		n = 1 + pagestat_rand(rs, PAGESTAT_MAX_ENTRIES);
		pagestat_gen_pattern(rs, seg, "..001zzxev", n);
		seg->protnone = !strpbrk(seg->pattern, "ev") &&
				!pagestat_rand(rs, 8);
	} else if (r < 38) {
		/* 2 MiB faults are slow under TCG: mostly holes and zero */
		seg->kind = PAGESTAT_THP;
		seg->shift = PMD_SHIFT;
		n = 1 + pagestat_rand(rs, 3);
		pagestat_gen_pattern(rs, seg, "...zzz01ab", n);
		seg->zap = pagestat_rand(rs, PMD_SIZE / PAGE_SIZE);
		seg->protnone = !pagestat_rand(rs, 8);
	} else if (r < 44) {
		seg->kind = PAGESTAT_HUGETLB;
		seg->shift = PMD_SHIFT;
		pagestat_gen_pattern(rs, seg, "..01", 1 + pagestat_rand(rs, 2));
		/* at most 4 pages of each pool per layout */
		for (p = seg->pattern; *p; p++)
			if (*p != '.' && ++hugetlb[*p == '1'] > 4)
				*p = '.';
		seg->protnone = !pagestat_rand(rs, 8);
	} else if (r < 54) {
		seg->kind = PAGESTAT_SHMEM;
		n = 1 + pagestat_rand(rs, 16);
		pagestat_gen_pattern(rs, seg, ".01r", n);
	} else if (r < 63) {
		seg->kind = PAGESTAT_PFNMAP;
		pagestat_gen_pattern(rs, seg, ".sz", 1 + pagestat_rand(rs, 16));
	} else if (r < 69) {
		seg->kind = PAGESTAT_PFNMAP_HUGE;
		seg->shift = PMD_SHIFT;
		pagestat_gen_pattern(rs, seg, ".sd", 1 + pagestat_rand(rs, 3));
	} else if (r < 71) {
		seg->kind = PAGESTAT_PFNMAP_HUGE;
		seg->shift = PUD_SHIFT;
		pagestat_gen_pattern(rs, seg, ".sd", 1);
	} else if (r < 79) {
		seg->kind = PAGESTAT_PFNMAP_COW;
		n = 1 + pagestat_rand(rs, PAGESTAT_KPAGES);
		pagestat_gen_pattern(rs, seg, "s01", n);
	} else if (r < 91) {
		seg->kind = PAGESTAT_MIXEDMAP;
		n = 1 + pagestat_rand(rs, 16);
		pagestat_gen_pattern(rs, seg, ".kKszdD", n);
	} else if (r < 96) {
		seg->kind = PAGESTAT_LEAF;
		seg->shift = PMD_SHIFT;
		pagestat_gen_pattern(rs, seg, ".01", 1 + pagestat_rand(rs, 2));
	} else {
		seg->kind = PAGESTAT_LEAF_COW;
		seg->shift = PMD_SHIFT;
		pagestat_gen_pattern(rs, seg, "01", 1);
		seg->zap = pagestat_rand(rs, PMD_SIZE / PAGE_SIZE);
	}
	pagestat_fit_pattern(ctx, seg);
}

/*
 * A random layout: 2 to PAGESTAT_MAX_SEGS segments, each after a gap of
 * nothing, a few pages, or up to the next PMD, PUD or (once) P4D boundary.
 */
static void pagestat_gen_layout(struct pagestat_ctx *ctx, struct rnd_state *rs)
{
	unsigned long cur = PAGESTAT_BASE + pagestat_rand(rs, 16) * PMD_SIZE +
			    pagestat_rand(rs, 512) * PAGE_SIZE;
	unsigned int i, nr, hugetlb[2] = { }, p4d = 0;
	struct pagestat_seg seg;

	nr = 2 + pagestat_rand(rs, PAGESTAT_MAX_SEGS - 1);
	for (i = 0; i < nr; i++) {
		u32 g = pagestat_rand(rs, 32);

		pagestat_gen_seg(ctx, rs, &seg, hugetlb);
		if (g >= 10 && g < 22)
			cur += (1 + pagestat_rand(rs, 8)) * PAGE_SIZE;
		else if (g >= 22 && g < 28)
			cur = ALIGN(cur + 1, PMD_SIZE) +
			      pagestat_rand(rs, 4) * PAGE_SIZE;
		else if (g >= 28 && g < 31)
			cur = ALIGN(cur + 1, PUD_SIZE) +
			      pagestat_rand(rs, 4) * PAGE_SIZE;
		else if (g == 31 && !p4d++)
			cur = ALIGN(cur + 1, P4D_SIZE);
		cur = ALIGN(cur, 1UL << seg.shift);
		seg.off = cur;
		cur += (unsigned long)strlen(seg.pattern) << seg.shift;
		ctx->segs[i] = seg;
	}
	/* base 0: the offsets are addresses */
	for (i = 0; i < nr; i++)
		pagestat_place(&ctx->segs[i], 0);
	ctx->nr_segs = nr;
}

/* A query near a segment boundary, so that most cross one. */
static void pagestat_gen_query(struct pagestat_ctx *ctx, struct rnd_state *rs,
			       unsigned long *start, unsigned long *nr)
{
	const struct pagestat_seg *seg;

	seg = &ctx->segs[pagestat_rand(rs, ctx->nr_segs)];
	*start = pagestat_rand(rs, 2) ? seg->end : seg->start;
	*start -= pagestat_rand(rs, 64) * PAGE_SIZE;
	if (!pagestat_rand(rs, 4))
		*start += pagestat_rand(rs, PAGE_SIZE);
	*nr = 1 + pagestat_rand(rs, 256);
}

static const u64 pagestat_seeds[] = {
	0x70616765, 0x73746174, 0x0badc0de, 0x5eed0004,
	0x5eed0005, 0x5eed0006, 0x5eed0007, 0x5eed0008,
};

static void pagestat_seed_desc(const u64 *seed, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %#llx", *seed);
}

KUNIT_ARRAY_PARAM(pagestat_seed, pagestat_seeds, pagestat_seed_desc);

/*
 * Random layouts of every cheap kind, on both nodes, with gaps; random
 * queries, most across segments, some unaligned. Replay a failure by
 * putting its seed first in pagestat_seeds[].
 */
static void pagestat_oracle_random(struct kunit *test)
{
	struct pagestat_ctx *ctx = test->priv;
	const u64 *seed = test->param_value;
	unsigned long start, nr, span, bad;
	struct rnd_state rs;
	unsigned int l, q;

	ctx->soft = true;
	prandom_seed_state(&rs, *seed);
	for (l = 0; l < PAGESTAT_LAYOUTS; l++) {
		pagestat_gen_layout(ctx, &rs);
		pagestat_build(ctx);
		bad = 0;
		for (q = 0; q < 4 && !bad; q++) {
			pagestat_gen_query(ctx, &rs, &start, &nr);
			bad = pagestat_check_range(ctx, start, nr);
		}
		pagestat_span(ctx, &start, &span);
		span = (span - start) >> PAGE_SHIFT;
		if (!bad && span <= 4096)
			bad = pagestat_check_range(ctx, start - PAGE_SIZE,
						   span + 2);
		if (bad) {
			kunit_info(test,
				   "seed %#llx layout %u differs, first at %#lx; layout:\n",
				   *seed, l, ctx->first_bad);
			pagestat_dump(ctx);
		}
		pagestat_teardown(ctx);
		if (bad)
			break;
		cond_resched();
	}
	kunit_info(test,
		   "seed %#llx: %u layouts, %lu queries, %lu pages, %lu against the oracle, %lu retries, %lu segments unverified\n",
		   *seed, l, ctx->queries, ctx->pages, ctx->oracle_pages,
		   ctx->retries, ctx->unverified);
}

static struct kunit_case pagestat_oracle_cases[] = {
	KUNIT_CASE_PARAM_ATTR(pagestat_oracle_random,
			      pagestat_seed_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite pagestat_oracle_suite = {
	.name		= "pagestat_oracle",
	.suite_init	= pagestat_suite_init,
	.suite_exit	= pagestat_suite_exit,
	.init		= pagestat_case_init,
	.test_cases	= pagestat_oracle_cases,
};

/* ---------------------------------------------------------------- chains */

/*
 * pagestat_chain: PTEs whose pfns the case picks. Pages allocated here are
 * inserted with vm_insert_page() into a private VM_MIXEDMAP VMA in the
 * order a row asks for: chains, runs of physically consecutive pages,
 * ascending or descending, or two of them interleaved entry by entry,
 * broken where the row says.
 *
 * A row has one or two lanes of pages and a pattern of one character per
 * PTE, each optionally followed by a repeat count; "(...)n" repeats a group:
 *   'w'  a lane's page: entry j maps page j / nr_lanes of lane
 *        j % nr_lanes, so that breaking an entry does not shift its lane
 *   '.'  an empty PTE
 *   'z'  the shared zero page, by vm_insert_page(ZERO_PAGE())
 *   's', 'd', 'k', 'K', 'D'  as in struct pagestat_seg
 */

#define PAGESTAT_CHAIN_MAX	1536	/* entries: three PTE tables */

enum pagestat_lane_src {
	PAGESTAT_LANE_NODE0,		/* a free block on the first node */
	PAGESTAT_LANE_NODE1,		/* on the second node */
	PAGESTAT_LANE_NODE_EDGE,	/* across the edge of two nodes */
	PAGESTAT_LANE_ZONE_EDGE,	/* of two zones of one node */
};

struct pagestat_lane {
	u8 src;			/* enum pagestat_lane_src */
	s8 dir;			/* 1: ascending pfns, -1: descending */
};

#define PAGESTAT_UP(s)		{ .src = PAGESTAT_LANE_##s, .dir = 1 }
#define PAGESTAT_DOWN(s)	{ .src = PAGESTAT_LANE_##s, .dir = -1 }

enum pagestat_chain_prot {
	PAGESTAT_PROT_RW,
	PAGESTAT_PROT_NONE,	/* mprotect(PROT_NONE) of the whole VMA */
	PAGESTAT_PROT_ODD,	/* the 'w' entries at odd j: NUMA hints */
};

struct pagestat_chain_case {
	const char *name;
	unsigned int off;	/* index of entry 0 in its PTE table */
	unsigned int nr_lanes;
	struct pagestat_lane lane[2];
	u8 prot;		/* enum pagestat_chain_prot */
	const char *pattern;
};

/* Pages held by a lane, one reference each: [pfn, pfn + nr). */
struct pagestat_held {
	unsigned long pfn;
	unsigned long nr;
};

struct pagestat_chain {
	struct pagestat_ctx *ctx;
	const struct pagestat_chain_case *tc;
	char *pat;		/* the pattern, expanded */
	unsigned long nr;	/* entries */
	unsigned long start;	/* address of entry 0 */
	unsigned long *pfn;	/* the page a 'w' entry maps */
	int *exp;		/* the status of each entry */
	struct pagestat_held held[2];
};

static void pagestat_held_put(void *data)
{
	struct pagestat_held *h = data;
	unsigned long i;

	/* not free_contig_range(): a page still mapped is not a bug here */
	for (i = 0; i < h->nr; i++)
		put_page(pfn_to_page(h->pfn + i));
	h->nr = 0;
}

/* Expands @src into @dst; the number of entries, or -EINVAL. */
static long pagestat_chain_expand(const char *src, char *dst,
				  unsigned long cap)
{
	unsigned long n = 0, count;
	const char *g, *end;
	size_t len;

	while (*src) {
		g = src;
		len = 1;
		if (*src == '(') {
			end = strchr(src, ')');
			if (!end)
				return -EINVAL;
			g = src + 1;
			len = end - g;
			src = end;
		}
		src++;
		count = isdigit(*src) ? 0 : 1;
		while (isdigit(*src))
			count = count * 10 + *src++ - '0';
		for (; count; count--) {
			if (n + len > cap)
				return -EINVAL;
			memcpy(dst + n, g, len);
			n += len;
		}
	}
	dst[n] = '\0';
	return n;
}

/* A free block of @nr pages on node @nid, split into single pages. */
static struct page *pagestat_lane_block(int nid, unsigned long nr)
{
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN;
	unsigned int order = order_base_2(nr);
	struct page *page;
	unsigned long i;

	if (order > MAX_PAGE_ORDER) {
#ifdef CONFIG_CONTIG_ALLOC
		return alloc_contig_pages(nr, gfp, nid, NULL);
#else
		return NULL;
#endif
	}
	page = alloc_pages_node(nid, gfp, order);
	if (!page)
		return NULL;
	split_page(page, order);
	for (i = nr; i < 1UL << order; i++)
		__free_page(nth_page(page, i));
	return page;
}

#ifdef CONFIG_CONTIG_ALLOC
/* The populated zone that starts at @pfn, if any. */
static struct zone *pagestat_zone_at(unsigned long pfn)
{
	struct zone *zone;

	for_each_populated_zone(zone)
		if (zone->zone_start_pfn == pfn)
			return zone;
	return NULL;
}

static bool pagestat_pfns_valid(unsigned long start, unsigned long end)
{
	unsigned long pfn;

	/* alloc_contig_range() isolates whole pageblocks */
	for (pfn = pageblock_start_pfn(start); pfn < pageblock_align(end);
	     pfn++)
		if (!pfn_valid(pfn))
			return false;
	return true;
}

/*
 * @nr pages around a pfn where one zone ends and the next one starts, the
 * next one on another node if @node, else on the same node: half of them
 * below the edge. Returns the first pfn, 0 if no edge has the pages free;
 * *@edge is the last edge looked at, 0 if none.
 */
static unsigned long pagestat_edge_alloc(bool node, unsigned long nr,
					 unsigned long *edge)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	unsigned long below = nr / 2, b;
	struct zone *zone, *next;

	for_each_populated_zone(zone) {
		b = zone_end_pfn(zone);
		next = pagestat_zone_at(b);
		if (!next || (zone_to_nid(next) != zone_to_nid(zone)) != node ||
		    !IS_ALIGNED(b, pageblock_nr_pages) ||
		    b - zone->zone_start_pfn < below ||
		    zone_end_pfn(next) - b < nr - below ||
		    !pagestat_pfns_valid(b - below, b + nr - below))
			continue;
		*edge = b;
		/* one zone per call */
		if (alloc_contig_range(b - below, b, MIGRATE_MOVABLE, gfp))
			continue;
		if (!alloc_contig_range(b, b + nr - below, MIGRATE_MOVABLE,
					gfp))
			return b - below;
		free_contig_range(b - below, below);
	}
	return 0;
}
#else
static unsigned long pagestat_edge_alloc(bool node, unsigned long nr,
					 unsigned long *edge)
{
	return 0;
}
#endif

/* Takes @nr pages for lane @l; they are put when the case ends. */
static enum pagestat_verdict pagestat_lane_alloc(struct pagestat_chain *ch,
						 unsigned int l,
						 unsigned long nr)
{
	const struct pagestat_lane *lane = &ch->tc->lane[l];
	struct pagestat_held *h = &ch->held[l];
	struct pagestat_ctx *ctx = ch->ctx;
	bool node = lane->src == PAGESTAT_LANE_NODE_EDGE;
	unsigned long i, edge = 0;
	int nid = NUMA_NO_NODE;
	struct page *page, *last;

	if (lane->src == PAGESTAT_LANE_NODE0 ||
	    lane->src == PAGESTAT_LANE_NODE1) {
		nid = ctx->nid[lane->src == PAGESTAT_LANE_NODE1];
		if (nid == NUMA_NO_NODE)
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"needs a second NUMA node with memory");
		page = pagestat_lane_block(nid, nr);
		if (!page)
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"no %lu free contiguous pages on node %d",
						nr, nid);
		h->pfn = page_to_pfn(page);
	} else {
		h->pfn = pagestat_edge_alloc(node, nr, &edge);
		if (!h->pfn && !edge)
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"no pfn where two %s meet with memory on both sides",
						node ? "nodes" : "zones of a node");
		if (!h->pfn) {
			unsigned long pfn = edge - nr / 2, resv = 0;

			/* memblock allocates a node's own data at its top */
			for (i = 0; i < nr; i++)
				resv += PageReserved(pfn_to_page(pfn + i));
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"the %lu pages around pfn %#lx, where two %s meet, are not free: %lu reserved at boot",
						nr, edge,
						node ? "nodes" : "zones of a node",
						resv);
		}
	}
	h->nr = nr;
	if (kunit_add_action_or_reset(ctx->test, pagestat_held_put, h))
		return pagestat_verdict(ctx, PAGESTAT_FAIL, "no kunit action");

	/* the lane is where it claims to be */
	page = pfn_to_page(h->pfn);
	last = pfn_to_page(h->pfn + nr - 1);
	for (i = 0; i < nr; i++) {
		struct page *p = pfn_to_page(h->pfn + i);
		bool low = i < nr / 2;

		if (lane->src <= PAGESTAT_LANE_NODE1 ?
		    page_to_nid(p) == nid :
		    (page_zone(p) == page_zone(low ? page : last) &&
		     (page_to_nid(p) == page_to_nid(low ? page : last))))
			continue;
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"lane %u: pfn %#lx on node %d zone %s",
					l, h->pfn + i, page_to_nid(p),
					page_zone(p)->name);
	}
	if (lane->src > PAGESTAT_LANE_NODE1 &&
	    (page_zone(page) == page_zone(last) ||
	     (page_to_nid(page) != page_to_nid(last)) != node))
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"lane %u: pfns %#lx-%#lx do not cross an edge of two %s",
					l, h->pfn, h->pfn + nr - 1,
					node ? "nodes" : "zones");
	return PAGESTAT_OK;
}

/* The pfn of page @k of lane @l: counted from the lane's end if it descends */
static unsigned long pagestat_lane_pfn(const struct pagestat_chain *ch,
				       unsigned int l, unsigned long k)
{
	const struct pagestat_held *h = &ch->held[l];

	return ch->tc->lane[l].dir > 0 ? h->pfn + k : h->pfn + h->nr - 1 - k;
}

static bool pagestat_chain_protnone(const struct pagestat_chain *ch,
				    unsigned long j)
{
	char c = ch->pat[j];

	if (ch->tc->prot == PAGESTAT_PROT_NONE)
		return c != '.';
	return ch->tc->prot == PAGESTAT_PROT_ODD && c == 'w' && (j & 1);
}

/*
 * How the architecture stores a PROT_NONE entry: on x86 not present, pfn
 * bits inverted; on arm64 invalid, with PTE_PRESENT_INVALID set.
 */
static bool pagestat_pte_protnone(pte_t pte)
{
#if defined(CONFIG_X86)
	pteval_t pfn = (pteval_t)pte_pfn(pte) << PAGE_SHIFT;

	return (pte_flags(pte) & (_PAGE_PROTNONE | _PAGE_PRESENT)) ==
	       _PAGE_PROTNONE &&
	       ((pte_val(pte) ^ pfn) & PTE_PFN_MASK) == PTE_PFN_MASK;
#elif defined(CONFIG_ARM64)
	return pte_present_invalid(pte);
#else
	return false;
#endif
}

/* The PTE of @addr, if there is a PTE table; mmap_read_lock held. */
static bool pagestat_read_pte(struct mm_struct *mm, unsigned long addr,
			      pte_t *pte)
{
	spinlock_t *ptl;	/* of the PTE table, held for one read */
	pgd_t *pgdp = pgd_offset(mm, addr);
	pte_t *ptep;
	p4d_t *p4dp;
	pud_t *pudp;
	pmd_t *pmdp;

	if (pgd_none(*pgdp))
		return false;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(*p4dp))
		return false;
	pudp = pud_offset(p4dp, addr);
	if (pud_none(*pudp) || pud_leaf(*pudp))
		return false;
	pmdp = pmd_offset(pudp, addr);
	ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);
	if (!ptep)
		return false;
	*pte = ptep_get(ptep);
	pte_unmap_unlock(ptep, ptl);
	return true;
}

/*
 * Every entry holds what the pattern says, with the pfn the lane gives it
 * and the protection the row asks for; mmap_read_lock held, so no assert.
 */
static enum pagestat_verdict pagestat_chain_probe_entry(struct pagestat_chain *ch,
							unsigned long j)
{
	unsigned long addr = ch->start + j * PAGE_SIZE;
	struct pagestat_ctx *ctx = ch->ctx;
	bool ok, present, special;
	char c = ch->pat[j];
	struct pagestat_fw f;
	pte_t pte = __pte(0);

	__pagestat_fw(ctx->mm, addr, &f);
	if (!pagestat_read_pte(ctx->mm, addr, &pte))
		pte = __pte(0);
	present = pte_present(pte);
	special = present && pte_special(pte);

	switch (c) {
	case '.':
		ok = pte_none(pte) && !f.found;
		break;
	case 'w':
		ok = present && !special && pte_pfn(pte) == ch->pfn[j] &&
		     f.found && !f.zone_device && f.nid == ch->exp[j];
		break;
	case 'z':
		ok = special && is_zero_pfn(pte_pfn(pte)) && f.zero;
		break;
	case 's':
		ok = special && !pte_devmap(pte) && !f.found;
		break;
	case 'd':
		ok = present && pte_devmap(pte) && !f.found;
		break;
	case 'D':
		ok = present && !special && f.found && f.device_private;
		break;
	case 'k':
	case 'K':
		ok = present && !special && f.found && !f.zone_device &&
		     f.nid == pagestat_node(ctx, c);
		break;
	default:
		ok = false;
		break;
	}
	if (ok && c != '.' &&
	    pagestat_pte_protnone(pte) != pagestat_chain_protnone(ch, j))
		ok = false;
	if (ok)
		return PAGESTAT_OK;
	return pagestat_verdict(ctx, PAGESTAT_FAIL,
				"entry %lu '%c' at %#lx: pte %#llx (pfn %#lx%s), want pfn %#lx%s; folio_walk: found %d zero %d zone_device %d device_private %d nid %d, want status %d",
				j, c, addr, (u64)pte_val(pte),
				(unsigned long)pte_pfn(pte),
				pagestat_pte_protnone(pte) ? " PROT_NONE" : "",
				c == 'w' ? ch->pfn[j] : 0,
				pagestat_chain_protnone(ch, j) ?
				" PROT_NONE" : "",
				f.found, f.zero, f.zone_device,
				f.device_private, f.nid, ch->exp[j]);
}

static enum pagestat_verdict pagestat_chain_probe(struct pagestat_chain *ch)
{
	enum pagestat_verdict v = PAGESTAT_OK;
	unsigned long j;

	mmap_read_lock(ch->ctx->mm);
	for (j = 0; j < ch->nr && v == PAGESTAT_OK; j++)
		v = pagestat_chain_probe_entry(ch, j);
	mmap_read_unlock(ch->ctx->mm);
	return v;
}

/* Makes the 'w' entry at @addr PROT_NONE as change_prot_numa() would. */
static void pagestat_numa_hint(struct vm_area_struct *vma, unsigned long addr)
{
	spinlock_t *ptl;	/* of the PTE table */
	pte_t *ptep, old;

	ptep = get_locked_pte(vma->vm_mm, addr, &ptl);
	if (!ptep)
		return;		/* the probe says what is missing */
	old = ptep_modify_prot_start(vma, addr, ptep);
	ptep_modify_prot_commit(vma, addr, ptep, old,
				pte_modify(old, PAGE_NONE));
	pte_unmap_unlock(ptep, ptl);
	flush_tlb_range(vma, addr, addr + PAGE_SIZE);
}

/* Maps entry @j; mmap_read_lock held. */
static int pagestat_chain_insert(struct pagestat_chain *ch,
				 struct vm_area_struct *vma, unsigned long j)
{
	static const struct pagestat_seg mixed = {
		.kind = PAGESTAT_MIXEDMAP,
	};
	unsigned long addr = ch->start + j * PAGE_SIZE;

	switch (ch->pat[j]) {
	case '.':
		return 0;
	case 'w':
		return vm_insert_page(vma, addr, pfn_to_page(ch->pfn[j]));
	case 'z':
		/* a COW VM_MIXEDMAP: vm_mixed_zeropage_allowed() */
		return vm_insert_page(vma, addr, ZERO_PAGE(addr));
	default:
		return pagestat_fill_pfn(ch->ctx, &mixed, vma, addr,
					 ch->pat[j]);
	}
}

/* Allocates the lanes, maps the pattern and probes it. */
static enum pagestat_verdict pagestat_chain_build(struct pagestat_chain *ch)
{
	const struct pagestat_chain_case *tc = ch->tc;
	struct pagestat_ctx *ctx = ch->ctx;
	unsigned long i, j, need[2] = { };
	struct vm_area_struct *vma;
	unsigned int l, lanes = tc->nr_lanes;
	enum pagestat_verdict v;
	int ret = 0;
	long n;

	n = pagestat_chain_expand(tc->pattern, ch->pat, PAGESTAT_CHAIN_MAX);
	if (n <= 0 || !lanes || lanes > 2)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"bad row: pattern \"%s\", %u lanes",
					tc->pattern, lanes);
	ch->nr = n;
	ch->start = PAGESTAT_BASE + (unsigned long)tc->off * PAGE_SIZE;
	if (strchr(ch->pat, 'K') && ctx->nid[1] == NUMA_NO_NODE)
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"needs a second NUMA node with memory");
	if (strchr(ch->pat, 'D') && !pagestat_devmem_ready())
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"needs device-private memory (CONFIG_DEVICE_PRIVATE)");
	if (tc->prot && !IS_ENABLED(CONFIG_X86) && !IS_ENABLED(CONFIG_ARM64))
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"PROT_NONE entries are probed as x86 and arm64 store them");

	for (j = 0; j < ch->nr; j++)
		if (ch->pat[j] == 'w')
			need[j % lanes] = j / lanes + 1;
	for (l = 0; l < lanes; l++) {
		if (!need[l])
			continue;
		v = pagestat_lane_alloc(ch, l, need[l]);
		if (v != PAGESTAT_OK)
			return v;
	}
	for (j = 0; j < ch->nr; j++) {
		switch (ch->pat[j]) {
		case 'w':
			ch->pfn[j] = pagestat_lane_pfn(ch, j % lanes,
						       j / lanes);
			ch->exp[j] = page_to_nid(pfn_to_page(ch->pfn[j]));
			break;
		case 'z':
			ch->exp[j] = -EFAULT;
			break;
		case 'k':
		case 'K':
			ch->exp[j] = pagestat_node(ctx, ch->pat[j]);
			break;
		default:
			ch->exp[j] = -ENOENT;
			break;
		}
	}

	/* vmf_insert_mixed() and vm_insert_page() of the zero page want COW */
	ret = pagestat_mmap_file(&pagestat_fmode_mixedmap, ch->start,
				 ch->nr * PAGE_SIZE, MAP_PRIVATE);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"mixedmap mmap at %#lx: %d", ch->start,
					ret);
	mmap_read_lock(ctx->mm);
	vma = vma_lookup(ctx->mm, ch->start);
	for (j = 0; vma && j < ch->nr && !ret; j++)
		ret = pagestat_chain_insert(ch, vma, j);
	for (i = 0; vma && !ret && tc->prot == PAGESTAT_PROT_ODD &&
	     i < ch->nr; i++)
		if (pagestat_chain_protnone(ch, i))
			pagestat_numa_hint(vma, ch->start + i * PAGE_SIZE);
	mmap_read_unlock(ctx->mm);
	if (!vma)
		return pagestat_verdict(ctx, PAGESTAT_FAIL, "no VMA at %#lx",
					ch->start);
	if (ret == -ENOSPC || ret == -ENOMEM)
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"no page for entry %lu '%c': %d",
					j - 1, ch->pat[j - 1], ret);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"inserting entry %lu '%c': %d", j - 1,
					ch->pat[j - 1], ret);
	if (tc->prot == PAGESTAT_PROT_NONE) {
		ret = pagestat_mprotect(ctx->mm, ch->start,
					ch->start + ch->nr * PAGE_SIZE, 0);
		if (ret)
			return pagestat_verdict(ctx, PAGESTAT_FAIL,
						"mprotect(PROT_NONE) at %#lx: %d",
						ch->start, ret);
	}
	return pagestat_chain_probe(ch);
}

static const struct pagestat_chain_case pagestat_chain_rows[] = {
	/* ascending */
	{ .name = "ascending, a whole PTE table",
	  .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) }, .pattern = "w512" },
	{ .name = "ascending on node 1, a whole PTE table",
	  .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE1) }, .pattern = "w512" },
	{ .name = "ascending from mid-table to the table's end",
	  .off = 300, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w212" },
	{ .name = "ascending within a table",
	  .off = 37, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE1) },
	  .pattern = "w100" },
	{ .name = "ascending across a table boundary",
	  .off = 256, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w512" },
	{ .name = "ascending over three tables (alloc_contig_pages)",
	  .off = 500, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE1) },
	  .pattern = "w1030" },
	/* descending */
	{ .name = "descending, a whole PTE table",
	  .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE0) }, .pattern = "w512" },
	{ .name = "descending, ending at a table boundary",
	  .off = 412, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100" },
	{ .name = "descending across a table boundary",
	  .off = 300, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE0) },
	  .pattern = "w400" },
	{ .name = "descending to a table boundary, then holes",
	  .off = 400, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w112.4w8" },
	/* PROT_NONE */
	{ .name = "PROT_NONE ascending, a whole PTE table",
	  .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .prot = PAGESTAT_PROT_NONE, .pattern = "w512" },
	{ .name = "PROT_NONE descending across a table boundary",
	  .off = 256, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .prot = PAGESTAT_PROT_NONE, .pattern = "w512" },
	{ .name = "PROT_NONE chain with zero, special, devmap, empty entries",
	  .off = 5, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE0) },
	  .prot = PAGESTAT_PROT_NONE,
	  .pattern = "w100zw100sw100.w100dw100" },
	{ .name = "PROT_NONE and normal entries alternate, one lane",
	  .off = 1, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .prot = PAGESTAT_PROT_ODD, .pattern = "w200" },
	{ .name = "PROT_NONE and normal entries alternate, descending",
	  .off = 2, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .prot = PAGESTAT_PROT_ODD, .pattern = "w200" },
	{ .name = "a PROT_NONE lane interleaved with a normal lane",
	  .off = 0, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .prot = PAGESTAT_PROT_ODD, .pattern = "w512" },
	/* two lanes */
	{ .name = "two lanes: node 0 ascending, node 1 descending",
	  .nr_lanes = 2, .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w512" },
	{ .name = "two lanes: node 1 descending, node 0 ascending, across a table",
	  .off = 301, .nr_lanes = 2,
	  .lane = { PAGESTAT_DOWN(NODE1), PAGESTAT_UP(NODE0) },
	  .pattern = "w420" },
	{ .name = "two lanes, both ascending",
	  .off = 64, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_UP(NODE1) },
	  .pattern = "w200" },
	{ .name = "two lanes, both descending on one node",
	  .off = 9, .nr_lanes = 2,
	  .lane = { PAGESTAT_DOWN(NODE1), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w200" },
	{ .name = "two lanes, broken at the second and the last entry",
	  .off = 16, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w.w300z" },
	{ .name = "two lanes, one of device-private pages",
	  .off = 8, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_UP(NODE1) },
	  .pattern = "(wD)32" },
	{ .name = "two lanes, one across the edge of two nodes",
	  .off = 40, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE_EDGE), PAGESTAT_DOWN(NODE0) },
	  .pattern = "w128" },
	/* broken chains and lanes */
	{ .name = "a chain with a hole in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255.w256" },
	{ .name = "a descending chain with a hole in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100.w100" },
	{ .name = "two lanes, each broken by a hole",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100.w100.w200" },
	{ .name = "a chain with the zero page in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255zw256" },
	{ .name = "a descending chain with the zero page in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100zw100" },
	{ .name = "two lanes, each broken by the zero page",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100zw100zw200" },
	{ .name = "a chain with a special pfn in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255sw256" },
	{ .name = "a descending chain with a special pfn in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100sw100" },
	{ .name = "two lanes, each broken by a special pfn",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100sw100sw200" },
	{ .name = "a chain with a devmap pfn in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255dw256" },
	{ .name = "a descending chain with a devmap pfn in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100dw100" },
	{ .name = "two lanes, each broken by a devmap pfn",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100dw100dw200" },
	{ .name = "a chain with a device-private page in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255Dw256" },
	{ .name = "a descending chain with a device-private page in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100Dw100" },
	{ .name = "two lanes, each broken by a device-private page",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100Dw100Dw200" },
	{ .name = "a chain with a node 0 page in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255kw256" },
	{ .name = "a descending chain with a node 0 page in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100kw100" },
	{ .name = "two lanes, each broken by a node 0 page",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100kw100kw200" },
	{ .name = "a chain with a node 1 page in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255Kw256" },
	{ .name = "a descending chain with a node 1 page in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100Kw100" },
	{ .name = "two lanes, each broken by a node 1 page",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100Kw100Kw200" },
	/* the next pfn, on another node or in another zone */
	{ .name = "ascending across the edge of two nodes",
	  .off = 50, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE_EDGE) },
	  .pattern = "w64" },
	{ .name = "descending across the edge of two nodes",
	  .off = 50, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE_EDGE) },
	  .pattern = "w64" },
	{ .name = "ascending across the edge of two zones",
	  .off = 50, .nr_lanes = 1, .lane = { PAGESTAT_UP(ZONE_EDGE) },
	  .pattern = "w64" },
	{ .name = "descending across the edge of two zones",
	  .off = 50, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(ZONE_EDGE) },
	  .pattern = "w64" },
	/* runs of empty entries */
	{ .name = "empty runs of 1 to 9 between pages",
	  .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w.1w.2w.3w.4w.5w.6w.7w.8w.9w" },
	{ .name = "empty runs of 1 to 9 between pages, shifted by 5",
	  .off = 5, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w.1w.2w.3w.4w.5w.6w.7w.8w.9w" },
	{ .name = "empty runs of 1 to 9 between chains",
	  .off = 3, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE1) },
	  .pattern = "w8.1w8.2w8.3w8.4w8.5w8.6w8.7w8.8w8.9w8" },
	{ .name = "empty runs of 1 to 9 between chains of two lanes",
	  .off = 11, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w16.1w16.2w16.3w16.4w16.5w16.6w16.7w16.8w16.9w16" },
	{ .name = "empty runs to a table's end and to the VMA's end",
	  .off = 490, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE0) },
	  .pattern = "w4.18w50.9" },
};

KUNIT_ARRAY_PARAM_DESC(pagestat_chain, pagestat_chain_rows, name);

/*
 * Each row: the layout is probed, then the whole of it and sub-ranges that
 * start and end inside chains are held to the layout and to the stock loop
 * on every page, and the layout is probed again.
 */
static void pagestat_chain_layout(struct kunit *test)
{
	static const unsigned long skip[] = { 1, 2, 7, 8, 9, 63, 257 };
	struct pagestat_ctx *ctx = test->priv;
	struct pagestat_chain *ch;
	unsigned long i, s;

	ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	ch->ctx = ctx;
	ch->tc = test->param_value;
	ch->pat = kunit_kzalloc(test, PAGESTAT_CHAIN_MAX + 1, GFP_KERNEL);
	ch->pfn = kunit_kcalloc(test, PAGESTAT_CHAIN_MAX, sizeof(*ch->pfn),
				GFP_KERNEL);
	ch->exp = kunit_kcalloc(test, PAGESTAT_CHAIN_MAX, sizeof(*ch->exp),
				GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, ch->pat && ch->pfn && ch->exp);

	pagestat_settle(test, ctx, pagestat_chain_build(ch));
	ctx->chain_exp = ch->exp;
	ctx->chain_pat = ch->pat;
	ctx->chain_start = ch->start;
	ctx->chain_nr = ch->nr;

	pagestat_check_range(ctx, ch->start - 2 * PAGE_SIZE, ch->nr + 4);
	for (i = 0; i < ARRAY_SIZE(skip); i++) {
		s = skip[i];
		if (s >= ch->nr)
			break;
		pagestat_check_range(ctx, ch->start + s * PAGE_SIZE,
				     ch->nr - s);
		pagestat_check_range(ctx, ch->start, ch->nr - s);
		pagestat_check_range(ctx, ch->start + s * PAGE_SIZE,
				     min(ch->nr - s, 13UL));
	}
	pagestat_settle(test, ctx, pagestat_chain_probe(ch));

	ctx->chain_exp = NULL;
	ctx->chain_pat = NULL;
	pagestat_teardown(ctx);
	/* unmapped: the pages are ours alone again */
	for (i = 0; i < ARRAY_SIZE(ch->held); i++)
		if (ch->held[i].nr)
			kunit_release_action(test, pagestat_held_put,
					     &ch->held[i]);
}

static struct kunit_case pagestat_chain_cases[] = {
	KUNIT_CASE_PARAM(pagestat_chain_layout, pagestat_chain_gen_params),
	{}
};

static struct kunit_suite pagestat_chain_suite = {
	.name		= "pagestat_chain",
	.suite_init	= pagestat_suite_init,
	.suite_exit	= pagestat_suite_exit,
	.init		= pagestat_case_init,
	.test_cases	= pagestat_chain_cases,
};

/* ---------------------------------------------------------------- races */

/*
 * pagestat_race: a kthread on the test's mm changes a range of THPs while
 * the test walks it in a loop, for a bounded time. Each walk must answer
 * every page with a status that some state of the range gives, the
 * kthread's changes must really overlap the walks, and once the kthread
 * has stopped the walker must agree with the oracle on what it left.
 * KASAN, lockdep and DEBUG_VM of the KUnit kernel watch the locking.
 */
#define PAGESTAT_RACE_PMDS	4
#define PAGESTAT_RACE_LEN	(PAGESTAT_RACE_PMDS * PMD_SIZE)
#define PAGESTAT_RACE_MS	1000
#define PAGESTAT_RACE_WALKS	5000

enum pagestat_race_op {
	PAGESTAT_RACE_SPLIT,	/* zap one page of a PMD: the PMD splits */
	PAGESTAT_RACE_COLLAPSE,	/* split a PMD, then MADV_COLLAPSE it */
	PAGESTAT_RACE_ZAP,	/* MADV_DONTNEED a PMD, fault it back */
	PAGESTAT_RACE_MPROTECT,	/* PROT_NONE half a PMD and back: VMA split */
	PAGESTAT_RACE_REMAP,	/* munmap and mmap, or MAP_FIXED over it */
	PAGESTAT_RACE_NR_OPS,
};

struct pagestat_race_param {
	const char *name;
	unsigned long ops;	/* bits of enum pagestat_race_op */
};

static const struct pagestat_race_param pagestat_race_params[] = {
	{ "split", BIT(PAGESTAT_RACE_SPLIT) },
	{ "collapse", BIT(PAGESTAT_RACE_COLLAPSE) },
	{ "zap", BIT(PAGESTAT_RACE_ZAP) },
	{ "mprotect", BIT(PAGESTAT_RACE_MPROTECT) },
	{ "remap", BIT(PAGESTAT_RACE_REMAP) },
	{ "all of them in turn", BIT(PAGESTAT_RACE_NR_OPS) - 1 },
};

static void pagestat_race_desc(const struct pagestat_race_param *p,
			       char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pagestat_race, pagestat_race_params, pagestat_race_desc);

struct pagestat_race {
	struct pagestat_ctx *ctx;
	unsigned long ops;
	atomic_long_t rounds;	/* operations completed */
	int err;		/* of the first operation that failed */
	const char *what;	/* and its name */
};

/* A new THP range at @addr, faulted in on @nid; as the mutator, no asserts */
static int pagestat_race_fault(struct pagestat_race *r, unsigned long addr,
			       unsigned long len, int nid)
{
	int ret = do_madvise(r->ctx->mm, addr, len, MADV_HUGEPAGE);

	return ret ?: pagestat_populate(r->ctx, addr, len, true, nid);
}

/* One change to one PMD of the range; returns 0 or an error. */
static int pagestat_race_step(struct pagestat_race *r, unsigned long n)
{
	struct pagestat_ctx *ctx = r->ctx;
	unsigned long addr = PAGESTAT_BASE + (n % PAGESTAT_RACE_PMDS) * PMD_SIZE;
	unsigned long page = addr + (n * 37 % PTRS_PER_PMD) * PAGE_SIZE;
	int nid = ctx->nid[(n / PAGESTAT_RACE_PMDS) & 1], op, ret;
	unsigned long got;

	if (nid == NUMA_NO_NODE)
		nid = ctx->nid[0];
	do {
		op = n++ % PAGESTAT_RACE_NR_OPS;
	} while (!(r->ops & BIT(op)));

	switch (op) {
	case PAGESTAT_RACE_COLLAPSE:
		r->what = "MADV_DONTNEED of one page";
		ret = do_madvise(ctx->mm, page, PAGE_SIZE, MADV_DONTNEED);
		if (ret)
			return ret;
		/* may fail for want of a folio or because of a fault */
		do_madvise(ctx->mm, addr, PMD_SIZE, MADV_COLLAPSE);
		return 0;
	case PAGESTAT_RACE_SPLIT:
		r->what = "MADV_DONTNEED of one page";
		ret = do_madvise(ctx->mm, page, PAGE_SIZE, MADV_DONTNEED);
		r->what = "refault of one page";
		return ret ?: pagestat_populate(ctx, page, PAGE_SIZE, true,
						nid);
	case PAGESTAT_RACE_ZAP:
		r->what = "MADV_DONTNEED of a PMD";
		ret = do_madvise(ctx->mm, addr, PMD_SIZE, MADV_DONTNEED);
		r->what = "refault of a PMD";
		return ret ?: pagestat_race_fault(r, addr, PMD_SIZE, nid);
	case PAGESTAT_RACE_MPROTECT:
		r->what = "mprotect(PROT_NONE) of half a PMD";
		ret = pagestat_mprotect(ctx->mm, addr, addr + PMD_SIZE / 2, 0);
		r->what = "mprotect(PROT_READ | PROT_WRITE)";
		return ret ?: pagestat_mprotect(ctx->mm, addr,
						addr + PMD_SIZE / 2,
						VM_READ | VM_WRITE);
	default:
		r->what = "munmap()";
		if (n & 1) {
			ret = vm_munmap(addr, PMD_SIZE);
			if (ret)
				return ret;
		}
		r->what = "mmap()";
		got = vm_mmap(NULL, addr, PMD_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0);
		if (got != addr)
			return IS_ERR_VALUE(got) ? (int)got : -EADDRINUSE;
		r->what = "fault of a new PMD";
		return pagestat_race_fault(r, addr, PMD_SIZE, nid);
	}
}

static int pagestat_race_fn(void *data)
{
	struct pagestat_race *r = data;
	unsigned long n = 0;

	kthread_use_mm(r->ctx->mm);
	while (!kthread_should_stop() && !r->err) {
		r->err = pagestat_race_step(r, n++);
		atomic_long_inc(&r->rounds);
		cond_resched();
	}
	pagestat_bind(NUMA_NO_NODE);
	kthread_unuse_mm(r->ctx->mm);
	/* after a failure: live on until kthread_stop(), which needs us */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * The index of the first status in @st that no state of the range gives,
 * or -1: the pages on either side have no VMA; in the range, a node with
 * memory, -ENOENT for a page zapped or not yet faulted back (or under
 * migration by compaction), -EFAULT only while a remap has no VMA there;
 * the guard entry after them (pagestat_query()) unwritten.
 */
static long pagestat_race_bad(const struct pagestat_race *r, const int *st,
			      unsigned long nr)
{
	unsigned long i;
	int s;

	for (i = 0; i < nr; i++) {
		s = st[i];
		if (i == 0 || i == nr - 1) {
			if (s != -EFAULT)
				return i;
		} else if (!(s == -ENOENT ||
			     (s == -EFAULT &&
			      (r->ops & BIT(PAGESTAT_RACE_REMAP))) ||
			     (s >= 0 && s < MAX_NUMNODES &&
			      node_state(s, N_MEMORY)))) {
			return i;
		}
	}
	return st[nr] == PAGESTAT_UNSET ? -1 : nr;
}

static void pagestat_race_walk(struct kunit *test)
{
	const struct pagestat_race_param *p = test->param_value;
	unsigned long nr = PAGESTAT_NR(PAGESTAT_RACE_LEN) + 2;
	unsigned long start = PAGESTAT_BASE - PAGE_SIZE, i;
	unsigned long walks = 0, overlaps = 0, enoent = 0, efault = 0, diff;
	struct pagestat_ctx *ctx = test->priv;
	struct pagestat_race r = { .ctx = ctx, .ops = p->ops };
	struct task_struct *task;
	unsigned long deadline;
	long rounds, bad = -1;
	struct pagestat_fw f;
	int ret = 0, tries;

	/* and a guard entry, for pagestat_query() */
	KUNIT_ASSERT_EQ(test, pagestat_reserve(ctx, nr + 1), 0);
	KUNIT_ASSERT_EQ(test, pagestat_mmap(NULL, PAGESTAT_BASE,
					    PAGESTAT_RACE_LEN,
					    MAP_PRIVATE | MAP_ANONYMOUS), 0);
	KUNIT_ASSERT_EQ(test, pagestat_race_fault(&r, PAGESTAT_BASE,
						  PAGESTAT_RACE_LEN,
						  ctx->nid[0]), 0);
	/* the range holds what it claims: a THP per PMD */
	mmap_read_lock(ctx->mm);
	for (i = 0; i < PAGESTAT_RACE_PMDS; i++) {
		__pagestat_fw(ctx->mm, PAGESTAT_BASE + i * PMD_SIZE, &f);
		if (!f.found || f.level != FW_LEVEL_PMD || !f.anon)
			break;
	}
	mmap_read_unlock(ctx->mm);
	if (i < PAGESTAT_RACE_PMDS) {
		vm_munmap(PAGESTAT_BASE, PAGESTAT_RACE_LEN);
		kunit_skip(test, "PMD %lu is not a THP (found %d level %u)", i,
			   f.found, f.level);
	}

	task = kthread_run(pagestat_race_fn, &r, "pagestat_race");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	deadline = jiffies + msecs_to_jiffies(PAGESTAT_RACE_MS);
	while (walks < PAGESTAT_RACE_WALKS && time_before(jiffies, deadline)) {
		rounds = atomic_long_read(&r.rounds);
		ret = pagestat_query(ctx, start, nr, 0);
		walks++;
		overlaps += atomic_long_read(&r.rounds) != rounds;
		bad = pagestat_race_bad(&r, ctx->st, nr);
		if (ret || bad >= 0)
			break;
		for (i = 1; i < nr - 1; i++) {
			enoent += ctx->st[i] == -ENOENT;
			efault += ctx->st[i] == -EFAULT;
		}
		cond_resched();
	}
	kthread_stop(task);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, bad, -1, "walk %lu: status %d at page %ld",
			    walks, bad >= 0 ? ctx->st[bad] : 0, bad);
	KUNIT_EXPECT_EQ_MSG(test, r.err, 0, "%s failed", r.what);
	/* a race needs both sides: changes made while walks ran */
	KUNIT_EXPECT_GT(test, overlaps, 0);

	/*
	 * What the race left: the walker agrees with the oracle on every
	 * page, there being no layout to expect (compaction may migrate a
	 * page between the two looks: try again).
	 */
	for (i = 0; i < nr; i++) {
		ctx->exp[i] = PAGESTAT_UNSET;
		ctx->idx[i] = i;
	}
	for (tries = 0; tries < PAGESTAT_TRIES; tries++) {
		ret = pagestat_query(ctx, start, nr, nr);
		diff = pagestat_count_bad(ctx, start, nr);
		if (!ret && !diff)
			break;
		msleep(20);
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (diff)
		pagestat_report(ctx, start, nr);
	KUNIT_EXPECT_EQ_MSG(test, diff, 0,
			    "pages that differ from the oracle; first at %#lx",
			    ctx->first_bad);

	kunit_info(test,
		   "%lu walks, %lu of them during a change, %ld changes, %lu -ENOENT and %lu -EFAULT statuses\n",
		   walks, overlaps, atomic_long_read(&r.rounds), enoent,
		   efault);
	KUNIT_EXPECT_EQ(test, vm_munmap(PAGESTAT_BASE, PAGESTAT_ARENA), 0);
}

static struct kunit_case pagestat_race_cases[] = {
	KUNIT_CASE_PARAM(pagestat_race_walk, pagestat_race_gen_params),
	{}
};

static struct kunit_suite pagestat_race_suite = {
	.name		= "pagestat_race",
	.suite_init	= pagestat_suite_init,
	.suite_exit	= pagestat_suite_exit,
	.init		= pagestat_case_init,
	.test_cases	= pagestat_race_cases,
};

kunit_test_suites(&pagestat_range_suite, &pagestat_oracle_suite,
		  &pagestat_chain_suite, &pagestat_race_suite);

MODULE_DESCRIPTION("KUnit tests for pagestat_range()");
MODULE_LICENSE("GPL");
