// SPDX-License-Identifier: GPL-2.0
/*
 * Suite pagestat_range: the arithmetic, a layout per kind of mapping, the top
 * of the address space, random layouts against the oracle, a race with THP changes.
 */
#include "pagestat_kunit.h"
#include "pagestat_oracle.h"
#include "pagestat_probe.h"
#include "pagestat_fixture.h"
#include "pagestat_kinds.h"
#include "pagestat_check.h"

#define P(n)	((n) * PAGE_SIZE)

/* pagestat_fill() from every alignment, of every length */
static void pagestat_fill_test(struct kunit *test)
{
	int buf[16] __aligned(sizeof(u64));
	struct pagestat_walk ps = { .start = PAGE_SIZE, .status = buf };
	unsigned int off, n, i;

	for (off = 0; off < 4; off++)
		for (n = 0; n + off < ARRAY_SIZE(buf); n++) {
			memset32(buf, PAGESTAT_UNSET, ARRAY_SIZE(buf));
			pagestat_fill(&ps, P(1 + off), P(1 + off + n), -ENOENT);
			for (i = 0; i < ARRAY_SIZE(buf); i++)
				KUNIT_EXPECT_EQ_MSG(test, buf[i], i - off < n ?
						    -ENOENT : PAGESTAT_UNSET,
						    "%u from %u: slot %u", n, off, i);
		}
}

/* pagestat_none_run() stops at the first entry that is not empty */
static void pagestat_none_run_test(struct kunit *test)
{
	static const char used[] = "...xx....x.....x";
	unsigned long i, nr;
	pte_t ptes[16];

	for (i = 0; i < ARRAY_SIZE(ptes); i++)
		ptes[i] = used[i] == 'x' ? pfn_pte(1, PAGE_KERNEL) : __pte(0);
	for (i = 0; i < ARRAY_SIZE(ptes); i++)
		for (nr = 1; used[i] == '.' && i + nr <= ARRAY_SIZE(ptes); nr++)
			KUNIT_EXPECT_EQ_MSG(test, pagestat_none_run(&ptes[i], nr),
					    min(strspn(used + i, "."), nr),
					    "from %lu, of %lu", i, nr);
}

/*
 * Nothing asked, nothing written; a range that wraps is refused before anything
 * is written; one that ends at the last page, which no VMA holds, is answered.
 */
static void pagestat_range_args_test(struct kunit *test)
{
	static const struct { unsigned long start, nr; int ret; } args[] = {
		{ 0, 0, 0 }, { -P(2), 3, -EINVAL }, { -P(1), 2, -EINVAL },
		{ ULONG_MAX, 2, -EINVAL }, { P(1), ULONG_MAX, -EINVAL },
		{ P(1), ULONG_MAX / PAGE_SIZE + 2, -EINVAL }, { -P(1), 1, 0 },
		{ ULONG_MAX, 1, 0 }, { -P(2), 2, 0 }, { -P(3) + 1, 3, 0 },
	};
	struct pagestat_ctx *ctx = test->priv;
	int st[4], ret;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(args); i++) {
		memset32(st, PAGESTAT_UNSET, ARRAY_SIZE(st));
		mmap_read_lock(ctx->mm);
		ret = pagestat_range(ctx->mm, args[i].start, args[i].nr, st);
		mmap_read_unlock(ctx->mm);
		KUNIT_EXPECT_EQ_MSG(test, ret, args[i].ret, "row %u", i);
		for (j = 0; j < ARRAY_SIZE(st); j++)
			KUNIT_EXPECT_EQ_MSG(test, st[j], !ret && j < args[i].nr ?
					    -EFAULT : PAGESTAT_UNSET, "row %u, page %u", i, j);
	}
}

struct pagestat_layout {
	const char *name;
	struct pagestat_seg segs[6];	/* by address; at least one empty */
};

/* A layout of one segment at the arena's base */
#define ONE(name, kind, pattern) { name, { { PAGESTAT_##kind, 0, pattern } } }
static const struct pagestat_layout pagestat_layouts[] = {
	ONE("anon: both nodes, zero page, holes", ANON, "0z1.x0z1"),
	ONE("THP on each node, huge zero PMD, empty PMD", THP, "0z.1"),
	ONE("PTE-mapped THP between THPs", THP, "0p1"),
	ONE("mTHP on both nodes", MTHP, "01.1"),
	ONE("hugetlb PMD on each node", HUGETLB_PMD, "0.1"),
	ONE("hugetlb PUD on each node", HUGETLB_PUD, "01"),
	ONE("hugetlb contiguous PTEs", HUGETLB_CONT_PTE, "01.0"),
	ONE("hugetlb contiguous PMDs", HUGETLB_CONT_PMD, "01"),
	{ "PROT_NONE anon, THP, huge zero PMD",
	  { { PAGESTAT_ANON, 0, "0z.1", true }, { PAGESTAT_THP, PMD_SIZE, "0z", true } } },
	{ "PROT_NONE hugetlb PMD and PUD",
	  { { PAGESTAT_HUGETLB_PMD, 0, "01", true },
	    { PAGESTAT_HUGETLB_PUD, PUD_SIZE, "0", true } } },
	ONE("PFN map: special and zero pfns", PFNMAP, "sz.s"),
	ONE("PFN map: special PMDs", PFNMAP_PMD, "s.s"),
	ONE("PFN map: special PUD", PFNMAP_PUD, "s"),
	ONE("mixed map: pages, special and zero pfns, device page", MIXEDMAP, "01szd."),
	ONE("device folios mapped by PMDs, as device DAX does", DEVICE_PMD, "d.d"),
	ONE("device-private entries, coherent device folios", ANON, "v0c1."),
	ONE("device-private THP: a PMD entry between THPs", THP, "0v1"),
	ONE("guard regions (MADV_GUARD_INSTALL) among pages", ANON, "0gg1.g"),
	{ "holes under empty PMD, PUD and P4D entries",
	  { { PAGESTAT_ANON, PMD_SIZE - P(2), "0z22" }, { PAGESTAT_ANON, PUD_SIZE - P(2), "1z33" },
	    { PAGESTAT_ANON, P4D_SIZE - P(2), "0x44" } } },
	{ "VMA edges: four kinds side by side, a gap",
	  { { PAGESTAT_ANON, 0, "0z" }, { PAGESTAT_PFNMAP, P(2), "sz" },
	    { PAGESTAT_MIXEDMAP, P(4), "0." }, { PAGESTAT_ANON, P(7), "1." },
	    { PAGESTAT_ANON, P(9), "x1" } } },
	{ "THPs across a PUD boundary", { { PAGESTAT_THP, PUD_SIZE - 2 * PMD_SIZE, "0z1p0" } } },
	{ "hugetlb PMDs across a PUD boundary",
	  { { PAGESTAT_HUGETLB_PMD, PUD_SIZE - 2 * PMD_SIZE, "0.10" } } },
	{ "runs of empty PTEs",
	  { { PAGESTAT_ANON, 0, "0..............................1...............0" },
	    { PAGESTAT_ANON, P(48), "1xxxxxxxxxxxxxxxxxxxxxxxx0................1" } } },
};

KUNIT_ARRAY_PARAM_DESC(pagestat_layout, pagestat_layouts, name);

/* Builds @segs from @base, or skips the case with the reason. */
static void pagestat_build_all(struct pagestat_ctx *ctx, const struct pagestat_seg *segs,
			       unsigned int n, unsigned long base)
{
	const char *skip = NULL;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n && segs[i].pattern && !ret; i++)
		ret = pagestat_build(ctx, &segs[i], base + segs[i].off, &skip);
	if (ret > 0)
		kunit_skip(ctx->test, "%s", skip);
	KUNIT_ASSERT_EQ_MSG(ctx->test, ret, 0, "building segment %u", i - 1);
}

/*
 * Each segment with two pages on either side (its neighbours, a gap or an
 * empty entry), from an aligned, an unaligned and a later start.
 */
static void pagestat_kind_test(struct kunit *test)
{
	const struct pagestat_layout *l = test->param_value;
	struct pagestat_ctx *ctx = test->priv;
	const struct pagestat_seg *seg;
	unsigned long start, nr;

	pagestat_build_all(ctx, l->segs, ARRAY_SIZE(l->segs), ctx->base);
	for (seg = l->segs; seg->pattern; seg++) {
		start = ctx->base + seg->off - P(2);
		nr = pagestat_seg_size(seg) / PAGE_SIZE + 4;
		pagestat_check(ctx, start, nr);
		pagestat_check(ctx, start + P(2) + 1, nr - 2);
		pagestat_check(ctx, start + P(3) - 1, nr - 3);
	}
	KUNIT_EXPECT_EQ(test, vm_munmap(ctx->base, 2 * P4D_SIZE), 0);
}

/* The last pages below TASK_SIZE, and the addresses at and above it */
static void pagestat_task_size_test(struct kunit *test)
{
	static const struct pagestat_seg top = { PAGESTAT_ANON, 0, "z0" };
	struct pagestat_ctx *ctx = test->priv;

	pagestat_build_all(ctx, &top, 1, TASK_SIZE - P(2));
	pagestat_check(ctx, TASK_SIZE - P(4), 8);
	pagestat_check(ctx, TASK_SIZE - P(1), 1);
	pagestat_check(ctx, TASK_SIZE, 4);
	KUNIT_EXPECT_EQ(test, vm_munmap(TASK_SIZE - P(2), P(2)), 0);
}

/*
 * Migration entries, left by migrate_vma_setup() until migrate_vma_finalize()
 * puts the pages back: -ENOENT, as folio_walk_start() does not look through.
 */
static void pagestat_migration_test(struct kunit *test)
{
	static const struct pagestat_seg seg = { PAGESTAT_ANON, 0, "00000000" };
	struct pagestat_ctx *ctx = test->priv;
	struct pagestat_state st = { PAGESTAT_NONPRESENT, PAGESTAT_PTE, PAGESTAT_MIGRATION };
	unsigned long src[8], dst[8] = { }, bad = 0;
	struct migrate_vma args = { .start = ctx->base, .end = ctx->base + P(8),
		.src = src, .dst = dst, .pgmap_owner = ctx, .flags = MIGRATE_VMA_SELECT_SYSTEM };
	int statuses[11], ret;

	pagestat_build_all(ctx, &seg, 1, ctx->base);
	ctx->nr_runs = 0;
	pagestat_claim(ctx, ctx->base, ctx->base + P(8), &st);
	mmap_read_lock(ctx->mm);
	args.vma = vma_lookup(ctx->mm, ctx->base);
	ret = migrate_vma_setup(&args);
	if (!ret) {
		bad = __pagestat_check(ctx, ctx->base - P(1), 10, statuses);
		/* no destination pages: every page goes back */
		migrate_vma_pages(&args);
		migrate_vma_finalize(&args);
	}
	mmap_read_unlock(ctx->mm);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "~0: the layout changed");
}

/* The cheap kinds, and what their entries may be */
static const char * const pagestat_cheap[] = {
	[PAGESTAT_ANON] = "..01zx", [PAGESTAT_THP] = ".01zp",
	[PAGESTAT_PFNMAP] = ".sz", [PAGESTAT_MIXEDMAP] = ".01sz",
};

static const u64 pagestat_seeds[] = { 0x70616765, 0x73746174, 0x0badc0de };

static void pagestat_seed_desc(const u64 *seed, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %#llx", *seed);
}

KUNIT_ARRAY_PARAM(pagestat_seed, pagestat_seeds, pagestat_seed_desc);

/*
 * Random layouts of the cheap kinds on both nodes, after gaps of nothing,
 * a few pages, a PMD or a PUD; each checked whole and in random ranges,
 * some unaligned. With two nodes, both must have been seen.
 */
static void pagestat_random_test(struct kunit *test)
{
	struct pagestat_ctx *ctx = test->priv;
	unsigned long cur, start, nr;
	struct pagestat_seg segs[5];
	unsigned int l, i, j, n, k;
	const char *e;
	struct rnd_state rs;
	char pat[5][9];

	prandom_seed_state(&rs, *(const u64 *)test->param_value);
	for (l = 0; l < 16; l++) {
		cur = prandom_u32_state(&rs) % 512 * PAGE_SIZE;
		n = 2 + prandom_u32_state(&rs) % 4;
		for (i = 0; i < n; i++) {
			for (e = NULL; !e; e = pagestat_cheap[k])
				k = prandom_u32_state(&rs) % ARRAY_SIZE(pagestat_cheap);
			j = 1 + prandom_u32_state(&rs) % (k == PAGESTAT_THP ? 2 : 8);
			for (pat[i][j] = '\0'; j--; )
				pat[i][j] = e[prandom_u32_state(&rs) % strlen(e)];
			j = prandom_u32_state(&rs) % 8;
			cur += j < 3 ? 0 : j < 6 ? j * PAGE_SIZE : j < 7 ? PMD_SIZE : PUD_SIZE;
			cur = ALIGN(cur, pagestat_builders[k].size);
			segs[i] = (struct pagestat_seg){ k, cur, pat[i] };
			cur += pagestat_seg_size(&segs[i]);
		}
		pagestat_build_all(ctx, segs, n, ctx->base);
		start = ctx->base + segs[0].off - PAGE_SIZE;
		nr = (ctx->base + cur - start) / PAGE_SIZE + 1;
		pagestat_check(ctx, start, nr);
		for (i = 0; i < 4; i++)
			pagestat_check(ctx, start + prandom_u32_state(&rs) % (nr * PAGE_SIZE),
				       1 + prandom_u32_state(&rs) % 64);
		KUNIT_EXPECT_EQ(test, vm_munmap(ctx->base, 2 * P4D_SIZE), 0);
		ctx->nr_runs = 0;
	}
	KUNIT_EXPECT_GT(test, ctx->nodes[0], 0);
	if (ctx->nid[1] != ctx->nid[0])
		KUNIT_EXPECT_GT(test, ctx->nodes[1], 0);
}

/*
 * The race: a kthread on the case's mm splits THPs (zaps a page),
 * zaps them whole and faults them back while the case walks the range: the
 * changes that can overlap a walk under mmap_read_lock(). An anon collapse
 * takes mmap_write_lock(); a file THP's page table retraction, which sends the
 * walker to ACTION_AGAIN, needs shmem THPs that khugepaged collapses: untested.
 */
#define PAGESTAT_RACE_PMDS	4	/* THPs on alternate nodes: "0101" */
#define PAGESTAT_RACE_ROUNDS	400
#define PAGESTAT_RACE_WALKS	100000

static int pagestat_race_fn(void *data)
{
	struct pagestat_ctx *ctx = data;
	unsigned long n, addr, len;

	kthread_use_mm(ctx->mm);
	for (n = 0; n < PAGESTAT_RACE_ROUNDS && !ctx->race_err; n++) {
		/* PMD n % 4, whose THP is on node nid[n & 1] */
		addr = ctx->base + (n % PAGESTAT_RACE_PMDS) * PMD_SIZE;
		len = n & 1 ? PAGE_SIZE : PMD_SIZE;
		if (n & 1)	/* the PMD splits */
			addr += (n * 37 % PTRS_PER_PMD) * PAGE_SIZE;
		ctx->race_err = do_madvise(ctx->mm, addr, len, MADV_DONTNEED) ?:
			pagestat_populate(ctx, addr, len, true, ctx->nid[n & 1]);
		atomic_inc(&ctx->race_rounds);
	}
	kthread_unuse_mm(ctx->mm);
	return 0;
}

/*
 * While the kthread makes its changes, every walk must answer each page of
 * a THP with its node or, zapped, -ENOENT, and the pages on either side of
 * the range -EFAULT; the changes must overlap walks.
 */
static void pagestat_race_test(struct kunit *test)
{
	static const struct pagestat_seg thps = { PAGESTAT_THP, 0, "0101" };
	unsigned long nr = PAGESTAT_RACE_PMDS * PTRS_PER_PMD + 2, i;
	unsigned long walks = 0, overlaps = 0, zapped = 0, bad = 0;
	struct pagestat_ctx *ctx = test->priv;
	unsigned long start = ctx->base - PAGE_SIZE;
	struct task_struct *task;
	int *st, before, want;

	st = kunit_kcalloc(test, nr, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	pagestat_build_all(ctx, &thps, 1, ctx->base);
	/* the zapped THPs fault back as THPs */
	KUNIT_ASSERT_EQ(test, do_madvise(ctx->mm, ctx->base, pagestat_seg_size(&thps),
					 MADV_HUGEPAGE), 0);
	KUNIT_ASSERT_EQ(test, pagestat_check(ctx, start, nr), 0);
	task = kthread_run(pagestat_race_fn, ctx, "pagestat_race");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	get_task_struct(task);
	while (atomic_read(&ctx->race_rounds) < PAGESTAT_RACE_ROUNDS && !ctx->race_err &&
	       walks++ < PAGESTAT_RACE_WALKS && !bad) {
		before = atomic_read(&ctx->race_rounds);
		mmap_read_lock(ctx->mm);
		bad = pagestat_range(ctx->mm, start, nr, st);
		mmap_read_unlock(ctx->mm);
		KUNIT_EXPECT_EQ(test, bad, 0);
		overlaps += atomic_read(&ctx->race_rounds) != before;
		for (i = 0; i < nr; i++) {
			want = i && i < nr - 1 ? ctx->nid[((i - 1) / PTRS_PER_PMD) & 1] : -EFAULT;
			zapped += st[i] == -ENOENT;
			if (st[i] != want && (st[i] != -ENOENT || want < 0) && !bad++)
				KUNIT_FAIL(test, "walk %lu, page %lu: %d, not %d or -ENOENT",
					   walks, i, st[i], want);
		}
		cond_resched();
	}
	kthread_stop_put(task);
	KUNIT_EXPECT_EQ(test, ctx->race_err, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->race_rounds), PAGESTAT_RACE_ROUNDS);
	KUNIT_EXPECT_GT(test, overlaps, 0);
	kunit_info(test, "%lu walks, %lu during a change, %lu -ENOENT statuses\n",
		   walks, overlaps, zapped);
	KUNIT_EXPECT_EQ(test, vm_munmap(ctx->base, 2 * P4D_SIZE), 0);
}

static struct kunit_case pagestat_range_cases[] = {
	KUNIT_CASE(pagestat_fill_test),
	KUNIT_CASE(pagestat_none_run_test),
	KUNIT_CASE(pagestat_range_args_test),
	KUNIT_CASE_PARAM(pagestat_kind_test, pagestat_layout_gen_params),
	KUNIT_CASE(pagestat_task_size_test),
	KUNIT_CASE(pagestat_migration_test),
	KUNIT_CASE_PARAM(pagestat_random_test, pagestat_seed_gen_params),
	KUNIT_CASE(pagestat_race_test),
	{}
};

static struct kunit_suite pagestat_range_suite = {
	.name		= "pagestat_range",
	.init		= pagestat_fixture_init,
	.test_cases	= pagestat_range_cases,
};

kunit_test_suite(pagestat_range_suite);

MODULE_DESCRIPTION("KUnit tests for pagestat_range()");
MODULE_LICENSE("GPL");
