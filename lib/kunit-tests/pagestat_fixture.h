/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture: each case's mm, nodes and claims, the global THP knob and
 * device memory, each released by a KUnit action, and the mm helpers the
 * builders and the race share.
 */
/*
 * The init of every case: its mm and nodes. kunit_vm_mmap() attaches a
 * fresh mm to the case's kthread. The layouts go into the arena, two P4D
 * entries' worth of address space halfway up TASK_SIZE, where every level
 * above them is empty. Return: 0, or -ENOMEM.
 */
static int pagestat_fixture_init(struct kunit *test)
{
	struct pagestat_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx),
						 GFP_KERNEL);
	unsigned long addr;
	int nid;

	if (!ctx)
		return -ENOMEM;
	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ,
			     MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr) || !current->mm)
		return -ENOMEM;
	ctx->test = test;
	ctx->mm = current->mm;
	ctx->arena = 2 * P4D_SIZE;
	ctx->base = ALIGN_DOWN(TASK_SIZE / 2, P4D_SIZE);
	nid = first_node(node_states[N_MEMORY]);
	ctx->nid[0] = nid;
	nid = next_node(nid, node_states[N_MEMORY]);
	ctx->two_nodes = nid < MAX_NUMNODES;
	ctx->nid[1] = ctx->two_nodes ? nid : ctx->nid[0];
	test->priv = ctx;
	return 0;
}

/* Bind the calling task's memory policy to @nid (NUMA_NO_NODE: default) */
static int pagestat_bind(int nid)
{
	struct mempolicy *pol = NULL, *old;
	char buf[16];

	/* mpol_new() is static: the tmpfs mount option parser is not */
	snprintf(buf, sizeof(buf), "bind:%d", nid);
	if (nid != NUMA_NO_NODE && mpol_parse_str(buf, &pol))
		return -EINVAL;
	/* as do_set_mempolicy() does for the current task */
	task_lock(current);
	old = current->mempolicy;
	current->mempolicy = pol;
	task_unlock(current);
	mpol_put(old);
	return 0;
}

/* Fault a range in on a node; takes mmap_read_lock(@ctx->mm) */
static int pagestat_populate(struct pagestat_ctx *ctx, unsigned long addr,
			     unsigned long len, bool write, int nid)
{
	int ret = pagestat_bind(nid) ?:
		  do_madvise(ctx->mm, addr, len, write ? MADV_POPULATE_WRITE :
			     MADV_POPULATE_READ);

	pagestat_bind(NUMA_NO_NODE);
	return ret;
}

/* Map a range where nothing is mapped yet */
static int pagestat_mmap(struct file *file, unsigned long addr,
			 unsigned long len, unsigned long prot,
			 unsigned long flags)
{
	unsigned long ret;

	ret = vm_mmap(file, addr, len, prot, flags | MAP_FIXED_NOREPLACE, 0);
	if (IS_ERR_VALUE(ret))
		return (int)ret;
	return ret == addr ? 0 : -EADDRINUSE;
}

static unsigned long pagestat_saved_orders;

static void pagestat_restore_orders(void *unused)
{
	WRITE_ONCE(huge_anon_orders_madvise, pagestat_saved_orders);
}

/*
 * Put huge_anon_orders_madvise back when the case ends. Its sysfs writers
 * serialise on huge_anon_orders_lock, which is static to mm/huge_memory.c:
 * unreachable here, and nothing else writes the knob while a KUnit case
 * runs.
 */
static void pagestat_save_orders(struct kunit *test)
{
	pagestat_saved_orders = READ_ONCE(huge_anon_orders_madvise);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							pagestat_restore_orders,
							NULL), 0);
}

struct pagestat_devmem {
	struct resource *res;
	struct dev_pagemap pgmap;	/* last: ends in a flexible array */
};

/* Each page is used once per pgmap; none is touched by the CPU */
static void pagestat_devmem_page_free(struct page *page)
{
}

static vm_fault_t pagestat_devmem_migrate_to_ram(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops pagestat_devmem_ops = {
	.page_free		= pagestat_devmem_page_free,
	.migrate_to_ram		= pagestat_devmem_migrate_to_ram,
};

static void pagestat_devmem_free(void *data)
{
	struct pagestat_devmem *dm = data;

	/* waits until the case's mm has put every page */
	if (dm->pgmap.nr_range)
		memunmap_pages(&dm->pgmap);
	release_mem_region(dm->res->start, resource_size(dm->res));
}

/*
 * A PMD's worth of device memory, as lib/test_hmm.c. Return: the pgmap, PMD
 * aligned, or NULL (the reason is logged).
 */
static struct dev_pagemap *pagestat_devmem(struct kunit *test, bool coherent)
{
	struct pagestat_devmem *dm = kunit_kzalloc(test, sizeof(*dm),
						   GFP_KERNEL);
	void *addr;

	if (dm)
		dm->res = request_free_mem_region(&iomem_resource, PMD_SIZE,
						  "pagestat_kunit");
	if (!dm || IS_ERR_OR_NULL(dm->res))
		return NULL;
	dm->pgmap.type = coherent ? MEMORY_DEVICE_COHERENT :
		MEMORY_DEVICE_PRIVATE;
	dm->pgmap.range.start = dm->res->start;
	dm->pgmap.range.end = dm->res->start + PMD_SIZE - 1;
	dm->pgmap.nr_range = 1;
	dm->pgmap.ops = &pagestat_devmem_ops;
	dm->pgmap.owner = test;
	addr = memremap_pages(&dm->pgmap, NUMA_NO_NODE);
	if (IS_ERR(addr))
		dm->pgmap.nr_range = 0;
	if (kunit_add_action_or_reset(test, pagestat_devmem_free, dm) ||
	    IS_ERR(addr)) {
		kunit_info(test, "memremap_pages(): %ld\n", PTR_ERR(addr));
		return NULL;
	}
	return &dm->pgmap;
}

/* Unmap the arena and forget the claims. */
static void pagestat_unmap_all(struct pagestat_ctx *ctx)
{
	KUNIT_EXPECT_EQ(ctx->test, vm_munmap(ctx->base, ctx->arena), 0);
	ctx->nr_runs = 0;
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
		ctx->runs[ctx->nr_runs++] = (struct pagestat_run){ start, end,
								   *st };
	else
		KUNIT_FAIL(ctx->test, "more than %d runs", PAGESTAT_MAX_RUNS);
}
