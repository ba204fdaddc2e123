// SPDX-License-Identifier: GPL-2.0
/*
 * The oracle, the per-address loop of stock 6.12.118, and suite
 * pagestat_oracle: random layouts from fixed seeds, compared with it page
 * by page.
 */

#include "pagestat_kunit.h"

/**
 * pagestat_oracle() - the status of one address, as stock 6.12.118 finds it
 * @mm: the address space.
 * @addr: the address.
 *
 * The per-address body of do_pages_stat_array() in 6.12.118 mm/migrate.c,
 * verbatim but for taking @addr where it reads a pointer, so that a
 * difference from it always means that the walker changed behaviour.
 *
 * Context: Caller holds mmap_read_lock(@mm).
 * Return: the node of the folio mapped there, -EFAULT (no VMA, the zero
 * page, the huge zero folio) or -ENOENT.
 */
int pagestat_oracle(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	struct folio_walk fw;
	struct folio *folio;
	int err = -EFAULT;

	addr = untagged_addr_remote(mm, addr);
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

kunit_test_suite(pagestat_oracle_suite);
