/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture: each case's mm (kunit_attach_mm()), nodes and claims, the mTHP
 * knob and device memory, released by KUnit actions, and the helpers builders
 * and race share. Layouts go in the arena, two P4D entries halfway up TASK_SIZE.
 */
static int pagestat_fixture_init(struct kunit *test)
{
	struct pagestat_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	nodemask_t nodes;	/* with memory and a CPU to fault from */

	nodes_and(nodes, node_states[N_MEMORY], node_states[N_CPU]);
	if (!ctx || kunit_attach_mm() || nodes_empty(nodes))
		return -ENOMEM;
	ctx->test = test;
	ctx->mm = current->mm;
	ctx->base = ALIGN_DOWN(TASK_SIZE / 2, P4D_SIZE);
	ctx->nid[0] = first_node(nodes);
	ctx->nid[1] = next_node_in(ctx->nid[0], nodes);
	test->priv = ctx;
	return 0;
}

/* Fault a range in on node @nid from a CPU of it, where the default policy allocates */
static int pagestat_populate(struct pagestat_ctx *ctx, unsigned long addr,
			     unsigned long len, bool write, int nid)
{
	int ret = set_cpus_allowed_ptr(current, cpumask_of_node(nid));

	if (!ret)
		ret = do_madvise(ctx->mm, addr, len, write ? MADV_POPULATE_WRITE :
				 MADV_POPULATE_READ);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
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
static void pagestat_devmem_folio_free(struct folio *folio) { }

static vm_fault_t pagestat_sigbus(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops pagestat_devmem_ops = {
	.folio_free		= pagestat_devmem_folio_free,
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
 * Four PMDs of device-private and of coherent memory, as lib/test_hmm.c
 * makes them, on first use. Return: false if either failed (logged).
 */
static bool pagestat_devmem(struct pagestat_ctx *ctx)
{
	struct dev_pagemap *pgmap;
	struct resource *res;
	void *addr;
	int i;

	for (i = 0; i < 2 && !ctx->dev[i]; i++) {
		pgmap = kunit_kzalloc(ctx->test, sizeof(*pgmap), GFP_KERNEL);
		res = pgmap ? request_free_mem_region(&iomem_resource, 4 * PMD_SIZE,
						      "pagestat_kunit") : NULL;
		if (IS_ERR_OR_NULL(res))
			return false;
		pgmap->type = i ? MEMORY_DEVICE_COHERENT : MEMORY_DEVICE_PRIVATE;
		pgmap->range = (struct range){ res->start, res->end };
		pgmap->nr_range = 1;
		pgmap->ops = &pagestat_devmem_ops;
		pgmap->owner = ctx;
		addr = memremap_pages(pgmap, NUMA_NO_NODE);
		if (IS_ERR(addr))
			pgmap->nr_range = 0;	/* only the region to release */
		if (kunit_add_action_or_reset(ctx->test, pagestat_devmem_free,
					      pgmap) || IS_ERR(addr)) {
			kunit_info(ctx->test, "memremap_pages(): %pe\n", addr);
			return false;
		}
		ctx->dev[i] = pgmap;
	}
	return ctx->dev[0] && ctx->dev[1];
}

/*
 * The next free folio of 2^@order pages of device memory, aligned, taken as
 * a driver takes it: locked, one reference. Return: it, or NULL if none.
 */
static struct folio *pagestat_devmem_folio(struct pagestat_ctx *ctx,
					   bool coherent, unsigned int order)
{
	struct dev_pagemap *pgmap = ctx->dev[coherent];
	unsigned long i = ALIGN(ctx->dev_used[coherent], 1UL << order);
	struct folio *folio;

	if ((i + (1UL << order)) << PAGE_SHIFT > range_len(&pgmap->range))
		return NULL;
	ctx->dev_used[coherent] = i + (1UL << order);
	folio = pfn_folio(PHYS_PFN(pgmap->range.start) + i);
	zone_device_folio_init(folio, pgmap, order);
	return folio;
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
