// SPDX-License-Identifier: GPL-2.0
/*
 * Suite pagestat_range: one case per kind of mapping, from the table of
 * kinds, and the edge cases of the API.
 */

#include "pagestat_kunit.h"

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

kunit_test_suite(pagestat_range_suite);
