/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture: each case's mm, nodes and claims, the mTHP knob and device
 * memory, released by KUnit actions, and the helpers builders and race share.
 * Every case's init: kunit_vm_mmap() attaches a fresh mm to the case's
 * kthread; layouts go in the arena, two P4D entries halfway up TASK_SIZE.
 */
static int pagestat_fixture_init(struct kunit *test)
{
	struct pagestat_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	unsigned long addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ,
					   MAP_PRIVATE | MAP_ANONYMOUS, 0);

	if (!ctx || IS_ERR_VALUE(addr) || !current->mm)
		return -ENOMEM;
	ctx->test = test;
	ctx->mm = current->mm;
	ctx->base = ALIGN_DOWN(TASK_SIZE / 2, P4D_SIZE);
	ctx->nid[0] = first_node(node_states[N_MEMORY]);
	ctx->nid[1] = next_node_in(ctx->nid[0], node_states[N_MEMORY]);
	test->priv = ctx;
	return 0;
}

/* Fault a range in on node @nid; takes mmap_read_lock(@ctx->mm) */
static int pagestat_populate(struct pagestat_ctx *ctx, unsigned long addr,
			     unsigned long len, bool write, int nid)
{
	struct mempolicy *pol;
	char buf[16];
	int ret;

	/* mpol_new() is static, the tmpfs option parser is not */
	snprintf(buf, sizeof(buf), "bind:%d", nid);
	if (mpol_parse_str(buf, &pol))
		return -EINVAL;
	/* as do_set_mempolicy() does for the current task, and back */
	task_lock(current);
	swap(current->mempolicy, pol);
	task_unlock(current);
	ret = do_madvise(ctx->mm, addr, len, write ? MADV_POPULATE_WRITE :
			 MADV_POPULATE_READ);
	task_lock(current);
	swap(current->mempolicy, pol);
	task_unlock(current);
	mpol_put(pol);
	return ret;
}

static void pagestat_disable_order(void *order)
{
	clear_bit((unsigned long)order, &huge_anon_orders_madvise);
}

/*
 * Enable an mTHP order for MADV_HUGEPAGE VMAs until the case ends. As the
 * sysfs writers do under huge_anon_orders_lock (static to mm/huge_memory.c),
 * change one bit atomically; clear it again only if it was clear.
 */
static void pagestat_enable_order(struct kunit *test, unsigned long order)
{
	if (test_and_set_bit(order, &huge_anon_orders_madvise))
		return;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, pagestat_disable_order,
							(void *)order), 0);
}

/* Device pages are used once per pgmap; no page is faulted by the CPU */
static void pagestat_devmem_page_free(struct page *page) { }

static vm_fault_t pagestat_sigbus(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops pagestat_devmem_ops = {
	.page_free		= pagestat_devmem_page_free,
	.migrate_to_ram		= pagestat_sigbus,
};

static void pagestat_devmem_free(void *data)
{
	struct dev_pagemap *pgmap = data;

	/* waits until the case's mm has put every page */
	if (pgmap->nr_range)
		memunmap_pages(pgmap);
	release_mem_region(pgmap->range.start, range_len(&pgmap->range));
}

/*
 * A PMD's worth of device memory, as lib/test_hmm.c, made on first use.
 * Return: the pgmap, PMD aligned, or NULL (the reason is logged).
 */
static struct dev_pagemap *pagestat_devmem(struct pagestat_ctx *ctx, bool coherent)
{
	struct dev_pagemap *pgmap = ctx->dev[coherent];
	struct resource *res = NULL;
	void *addr;

	if (pgmap)
		return pgmap;
	pgmap = kunit_kzalloc(ctx->test, sizeof(*pgmap), GFP_KERNEL);
	if (pgmap)
		res = request_free_mem_region(&iomem_resource, PMD_SIZE,
					      "pagestat_kunit");
	if (IS_ERR_OR_NULL(res))
		return NULL;
	pgmap->type = coherent ? MEMORY_DEVICE_COHERENT : MEMORY_DEVICE_PRIVATE;
	pgmap->range = (struct range){ res->start, res->end };
	pgmap->nr_range = 1;
	pgmap->ops = &pagestat_devmem_ops;
	pgmap->owner = ctx;
	addr = memremap_pages(pgmap, NUMA_NO_NODE);
	if (IS_ERR(addr))
		pgmap->nr_range = 0;	/* only the region to release */
	if (kunit_add_action_or_reset(ctx->test, pagestat_devmem_free, pgmap) ||
	    IS_ERR(addr)) {
		kunit_info(ctx->test, "memremap_pages(): %ld\n", PTR_ERR(addr));
		return NULL;
	}
	ctx->dev[coherent] = pgmap;
	return pgmap;
}

/* Record what the pages of a range must hold. */
static void pagestat_claim(struct pagestat_ctx *ctx, unsigned long start,
			   unsigned long end, const struct pagestat_state *st)
{
	struct pagestat_run *r = &ctx->runs[ctx->nr_runs - 1];

	if (start >= end)
		return;
	/* one run for neighbours that claim the same */
	if (ctx->nr_runs && r->end == start && !memcmp(&r->st, st, sizeof(*st)))
		r->end = end;
	else if (ctx->nr_runs < PAGESTAT_MAX_RUNS)
		ctx->runs[ctx->nr_runs++] = (struct pagestat_run){ start, end, *st };
	else
		KUNIT_FAIL(ctx->test, "more than %d runs", PAGESTAT_MAX_RUNS);
}
