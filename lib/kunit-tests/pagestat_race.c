// SPDX-License-Identifier: GPL-2.0
/*
 * Suite pagestat_race: a kthread splits, collapses, zaps, mprotects and
 * remaps THPs while the range is walked in a loop.
 */

#include "pagestat_kunit.h"

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
	int ret = 0;

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
	diff = pagestat_compare(ctx, start, nr, nr, &ret);
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

kunit_test_suite(pagestat_race_suite);
