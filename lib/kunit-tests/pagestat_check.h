/* SPDX-License-Identifier: GPL-2.0 */
/* The check helper: pagestat_range() held to the claims and to the oracle */
#define PAGESTAT_CHANGED	(~0UL)
#define PAGESTAT_FULL		4096	/* above it, probe and oracle sample */

static struct pagestat_state pagestat_claim_at(const struct pagestat_ctx *ctx, unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < ctx->nr_runs; i++)
		if (addr >= ctx->runs[i].start && addr < ctx->runs[i].end)
			return ctx->runs[i].st;
	return (struct pagestat_state){ PAGESTAT_NOVMA };
}

/* Every page of a small range; of a large one, the edges of its runs */
static bool pagestat_sampled(const struct pagestat_ctx *ctx, unsigned long nr,
			     unsigned long i, unsigned long addr)
{
	unsigned int r;

	if (nr <= PAGESTAT_FULL || i < 64 || nr - i <= 64 || !(i % 61))
		return true;
	for (r = 0; r < ctx->nr_runs; r++)
		if (addr - ctx->runs[r].start < 2 * PAGE_SIZE ||
		    ctx->runs[r].end - addr <= 2 * PAGE_SIZE)
			return true;
	return false;
}

/* The first page of the sample that does not hold its claim, or @nr */
static unsigned long pagestat_reprobe(struct pagestat_ctx *ctx, unsigned long start,
				      unsigned long nr, bool report)
{
	unsigned long i, addr = start;
	struct pagestat_state s = { }, c = { };

	for (i = 0; i < nr; i++, addr += PAGE_SIZE) {
		if (!pagestat_sampled(ctx, nr, i, addr))
			continue;
		c = pagestat_claim_at(ctx, addr);
		pagestat_probe(ctx->mm, addr, &s);
		if (c.what != s.what || (c.level && c.level != s.level) ||
		    (c.type && c.type != s.type) || (c.order && c.order != s.order) ||
		    (c.what == PAGESTAT_FOLIO && c.nid != s.nid))
			break;
	}
	if (report)
		KUNIT_FAIL(ctx->test,
			   "the layout changed at %#lx: %u/%u/%u/%u/%d, not %u/%u/%u/%u/%d",
			   addr, s.what, s.level, s.type, s.order, s.nid,
			   c.what, c.level, c.type, c.order, c.nid);
	return i;
}

/* pagestat_walk()'s runs held to the array; under page table locks: counts only */
struct pagestat_runs { struct pagestat_walk ps; unsigned long next, bad; const int *st; };

static void pagestat_runs_check(struct pagestat_walk *ps, unsigned long addr, unsigned long nr,
				int status)
{
	struct pagestat_runs *r = container_of(ps, struct pagestat_runs, ps);

	r->bad += addr != r->next || !nr;
	for (r->next = addr + nr * PAGE_SIZE; nr--; r->st++)
		r->bad += *r->st != status;
}

/*
 * Probe a range, query it with pagestat_range() and page by page with the
 * oracle, and probe it again. If both probes found every claim held, a
 * status that is not the oracle's or not the one move_pages(2) documents
 * fails the case. Context: Caller holds mmap_read_lock(). Return: the
 * number of pages that failed, or PAGESTAT_CHANGED.
 */
static unsigned long __pagestat_check(struct pagestat_ctx *ctx, unsigned long start,
				      unsigned long nr, int *st)
{
	struct pagestat_runs runs = { { pagestat_runs_check }, start & PAGE_MASK, 0, st };
	struct { unsigned long addr; int doc, orc; } fail[8];
	unsigned long i, addr, bad = 0;
	struct pagestat_state s;
	int ret, orc, doc;

	if (pagestat_reprobe(ctx, start, nr, false) < nr)
		return PAGESTAT_CHANGED;
	memset32(st, PAGESTAT_UNSET, nr + 1);
	ret = pagestat_range(ctx->mm, start, nr, st);
	for (i = 0, addr = start; i < nr; i++, addr += PAGE_SIZE) {
		s = pagestat_claim_at(ctx, addr);
		doc = s.what == PAGESTAT_FOLIO ? s.nid : s.what == PAGESTAT_NOVMA ||
		      s.what == PAGESTAT_ZERO ? -EFAULT : -ENOENT;
		orc = pagestat_sampled(ctx, nr, i, addr) ? pagestat_oracle(ctx->mm, addr) : st[i];
		ctx->nodes[0] += st[i] == ctx->nid[0];
		ctx->nodes[1] += st[i] == ctx->nid[1];
		if ((st[i] != doc || st[i] != orc) && bad++ < ARRAY_SIZE(fail))
			fail[bad - 1] = (typeof(fail[0])){ addr, doc, orc };
		if (!(i % 1024))
			cond_resched();
	}
	if (pagestat_reprobe(ctx, start, nr, false) < nr)
		return PAGESTAT_CHANGED;
	for (i = 0; i < min(bad, ARRAY_SIZE(fail)); i++) {
		s = pagestat_claim_at(ctx, fail[i].addr);
		KUNIT_FAIL(ctx->test,
			   "%#lx (%u/%u/%u): pagestat_range() %d, documented %d, stock %d",
			   fail[i].addr, s.what, s.level, s.type,
			   st[(fail[i].addr - start) >> PAGE_SHIFT], fail[i].doc, fail[i].orc);
	}
	KUNIT_EXPECT_EQ_MSG(ctx->test, ret, 0, "pagestat_range(%#lx, %lu)", start, nr);
	/* One walk's runs cover the range in order, with the array's statuses */
	runs.bad += !!pagestat_walk(ctx->mm, runs.next, runs.next + nr * PAGE_SIZE, &runs.ps);
	KUNIT_EXPECT_EQ_MSG(ctx->test, runs.bad + (runs.st != st + nr), 0,
			    "pagestat_walk() over [%#lx, +%lu pages)", start, nr);
	KUNIT_EXPECT_EQ_MSG(ctx->test, st[nr], PAGESTAT_UNSET,
			    "written past [%#lx, +%lu pages)", start, nr);
	return bad + !!ret;
}

/*
 * Check pagestat_range() over @nr pages from @start, which need not be
 * aligned; if the layout changed, once more, and then a page that does not
 * hold its claim fails the case. Return: the pages that failed.
 */
static unsigned long pagestat_check(struct pagestat_ctx *ctx, unsigned long start, unsigned long nr)
{
	int *st = kvcalloc(nr + 1, sizeof(*st), GFP_KERNEL);
	unsigned long bad = PAGESTAT_CHANGED;
	int try;

	KUNIT_ASSERT_NOT_NULL(ctx->test, st);
	for (try = 0; try < 2 && bad == PAGESTAT_CHANGED; try++) {
		mmap_read_lock(ctx->mm);
		bad = __pagestat_check(ctx, start, nr, st);
		if (bad == PAGESTAT_CHANGED && try) {
			pagestat_reprobe(ctx, start, nr, true);
			bad = 1;
		}
		mmap_read_unlock(ctx->mm);
	}
	kvfree(st);
	return bad;
}
