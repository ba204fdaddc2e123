/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for pagestat_range(): the types its layers share. The layers
 * are headers that pagestat_kunit.c includes in order: none calls a later one.
 */
#include <kunit/test.h>
#include <kunit/test-bug.h>
#include <linux/anon_inodes.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/kthread.h>
#include <linux/leafops.h>
#include <linux/migrate.h>	/* mm.h, mempolicy.h, hugetlb.h */
#include <linux/mman.h>
#include <linux/pagestat.h>
#include <linux/pagewalk.h>
#include <linux/prandom.h>
#include <linux/sched/task.h>
#include <linux/syscalls.h>
#include <asm/tlb.h>

/* What an address holds, as the probe finds it and a builder claims it */
enum pagestat_what {
	PAGESTAT_NOVMA = 1,	/* -EFAULT */
	PAGESTAT_HOLE,		/* an empty entry at .level: -ENOENT */
	PAGESTAT_FOLIO,		/* a normal folio: .nid */
	PAGESTAT_ZERO,		/* the zero page or huge zero folio: -EFAULT */
	PAGESTAT_ZONE_DEVICE,	/* a present ZONE_DEVICE folio: -ENOENT */
	PAGESTAT_NOPAGE,	/* present, no normal page (.type): -ENOENT */
	PAGESTAT_NONPRESENT,	/* a non-present entry (.type): -ENOENT */
};

enum { PAGESTAT_P4D = 1, PAGESTAT_PUD, PAGESTAT_PMD, PAGESTAT_PTE };

enum {	/* PAGESTAT_SWAP: a swap entry, or x86's PROT_NONE PUD */
	PAGESTAT_SPECIAL = 1, PAGESTAT_MIGRATION, PAGESTAT_DEV_PRIVATE,
	PAGESTAT_GUARD, PAGESTAT_SWAP,
};

struct pagestat_state {
	u8 what;
	u8 level;	/* of the entry, or of a hole's empty one; 0: any */
	u8 type;	/* of a NOPAGE or NONPRESENT entry; 0: any */
	u8 order;	/* of a folio; 0: any */
	s16 nid;	/* of a folio */
};

#define PAGESTAT_MAX_RUNS	64
/* No status is this: a slot the walker did not write shows. */
#define PAGESTAT_UNSET		INT_MIN

struct pagestat_ctx {
	struct kunit *test;
	struct mm_struct *mm;
	int nid[2];		/* of '0' and '1'; nid[1] may be nid[0] */
	unsigned long base;	/* of the arena: 2 * P4D_SIZE, aligned */
	struct pagestat_run {	/* [start, end) holds st */
		unsigned long start, end;
		struct pagestat_state st;
	} runs[PAGESTAT_MAX_RUNS];
	unsigned int nr_runs;
	unsigned long nodes[2];	/* statuses of nid[0] and nid[1] seen */
	void *kpages;		/* behind special pfns */
	struct page *fault_page;	/* what the next fault inserts ... */
	unsigned long fault_pfn;	/* ... or this pfn, */
	unsigned int fault_order;	/* at this order */
	struct dev_pagemap *dev[2];	/* private and coherent */
	unsigned long dev_used[2];	/* pages of each taken */
	atomic_t race_rounds;	/* changes the race kthread made */
	int race_err;		/* of the first that failed */
};

enum pagestat_kind {
	PAGESTAT_ANON, PAGESTAT_THP, PAGESTAT_MTHP, PAGESTAT_HUGETLB_PMD, PAGESTAT_HUGETLB_PUD,
	PAGESTAT_HUGETLB_CONT_PTE, PAGESTAT_HUGETLB_CONT_PMD,	/* arm64 */
	PAGESTAT_PFNMAP, PAGESTAT_PFNMAP_PMD, PAGESTAT_PFNMAP_PUD, PAGESTAT_MIXEDMAP,
	PAGESTAT_DEVICE_PMD,	/* a shared mapping, as device DAX makes it */
};

/* One VMA of a layout: @pattern has a character per entry (kinds.h) */
struct pagestat_seg {
	enum pagestat_kind kind;
	unsigned long off;	/* from the arena's base */
	const char *pattern;
	bool protnone;		/* mprotect(PROT_NONE) once populated */
};
