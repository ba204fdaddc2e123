/* SPDX-License-Identifier: GPL-2.0 */
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
 *  - pagestat_race: a kthread splits, collapses, zaps, mprotects and
 *    remaps THPs while the range is walked in a loop.
 *
 * Files: pagestat_layout.c builds layouts, probes them and compares the
 * walker with them and with the oracle; pagestat_device.c holds the device
 * memory; pagestat_oracle.c the oracle and the random layouts; each suite
 * but pagestat_oracle has a file of its own (pagestat_kinds.c holds the
 * table of kinds of mapping).
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

#ifndef _PAGESTAT_KUNIT_H
#define _PAGESTAT_KUNIT_H

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
	/* statistics for kunit_info() */
	unsigned long queries;
	unsigned long pages;
	unsigned long oracle_pages;
	unsigned long retries;
	unsigned long unverified;
};

#define PAGESTAT_P(n)	((n) * PAGE_SIZE)
#define PAGESTAT_PMDS(n)	((n) * PMD_SIZE)
#define PAGESTAT_NR(len)	((len) >> PAGE_SHIFT)

/* A file whose VMAs are VM_PFNMAP or VM_MIXEDMAP, like a device's. */
struct pagestat_fmode {
	unsigned long vm_flags;
	unsigned long pgoff;	/* if set: the VMA's vm_pgoff, a linear pfn */
	bool remap;		/* remap_pfn_range() the kernel pages */
};

/* pagestat_layout.c */
extern struct pagestat_fmode pagestat_fmode_mixedmap;
__printf(3, 4) enum pagestat_verdict
pagestat_verdict(struct pagestat_ctx *ctx, enum pagestat_verdict v,
		 const char *fmt, ...);
void __pagestat_raw(struct mm_struct *mm, unsigned long addr,
		    struct pagestat_raw *r);
void __pagestat_fw(struct mm_struct *mm, unsigned long addr,
		   struct pagestat_fw *r);
int pagestat_node(const struct pagestat_ctx *ctx, char c);
int pagestat_bind(int nid);
int pagestat_populate(struct pagestat_ctx *ctx, unsigned long addr,
		      unsigned long len, bool write, int nid);
int pagestat_mmap(struct file *file, unsigned long addr,
		  unsigned long len, unsigned long flags);
int pagestat_mprotect(struct mm_struct *mm, unsigned long start,
		      unsigned long end, unsigned long access);
int pagestat_mmap_file(struct pagestat_fmode *mode, unsigned long addr,
		       unsigned long len, unsigned long flags);
int pagestat_fill_pfn(struct pagestat_ctx *ctx,
		      const struct pagestat_seg *seg,
		      struct vm_area_struct *vma, unsigned long addr,
		      char c);
void pagestat_place(struct pagestat_seg *seg, unsigned long base);
void pagestat_load(struct pagestat_ctx *ctx,
		   const struct pagestat_seg *segs, unsigned long base);
void pagestat_dump(struct pagestat_ctx *ctx);
enum pagestat_verdict pagestat_build(struct pagestat_ctx *ctx);
enum pagestat_verdict pagestat_reprobe(struct pagestat_ctx *ctx);
void pagestat_settle(struct kunit *test, struct pagestat_ctx *ctx,
		     enum pagestat_verdict v);
void pagestat_teardown(struct pagestat_ctx *ctx);
int pagestat_reserve(struct pagestat_ctx *ctx, unsigned long nr);
int pagestat_query(struct pagestat_ctx *ctx, unsigned long start,
		   unsigned long nr, unsigned long m);
unsigned long pagestat_compare(struct pagestat_ctx *ctx, unsigned long start,
			       unsigned long nr, unsigned long m, int *ret);
void pagestat_report(struct pagestat_ctx *ctx, unsigned long start,
		     unsigned long nr);
unsigned long pagestat_check_range(struct pagestat_ctx *ctx,
				   unsigned long start,
				   unsigned long nr);
void pagestat_span(const struct pagestat_ctx *ctx, unsigned long *start,
		   unsigned long *end);
unsigned long pagestat_check_layout(struct pagestat_ctx *ctx);
int pagestat_case_init(struct kunit *test);
int pagestat_suite_init(struct kunit_suite *suite);
void pagestat_suite_exit(struct kunit_suite *suite);

/* pagestat_device.c */
void pagestat_devmem_init(void);
void pagestat_devmem_exit(void);
bool pagestat_devmem_ready(void);
struct page *pagestat_devmem_alloc(void);

enum pagestat_verdict pagestat_build_device(struct pagestat_ctx *ctx,
					    struct pagestat_seg *seg);

/* pagestat_oracle.c */
int pagestat_oracle(struct mm_struct *mm, unsigned long addr);

#endif /* _PAGESTAT_KUNIT_H */
