// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory for the layouts: one small MEMORY_DEVICE_PRIVATE pgmap,
 * built as lib/test_hmm.c does.
 */

#include "pagestat_kunit.h"

#ifdef CONFIG_DEVICE_PRIVATE
/* One small MEMORY_DEVICE_PRIVATE pgmap, built as lib/test_hmm.c does. */
static struct pagestat_devmem {
	spinlock_t lock;	/* protects free and used */
	struct page *free;
	unsigned long used;
	bool ready;
	bool leaked;
	struct dev_pagemap pgmap;	/* last: ends in a flexible array */
} pagestat_devmem;

static void pagestat_devmem_page_free(struct page *page)
{
	struct pagestat_devmem *dm = &pagestat_devmem;
	unsigned long flags;

	spin_lock_irqsave(&dm->lock, flags);
	page->zone_device_data = dm->free;
	dm->free = page;
	dm->used--;
	spin_unlock_irqrestore(&dm->lock, flags);
}

static vm_fault_t pagestat_devmem_migrate_to_ram(struct vm_fault *vmf)
{
	/* The cases never touch a device-private address. */
	return VM_FAULT_SIGBUS;
}

static const struct dev_pagemap_ops pagestat_devmem_ops = {
	.page_free		= pagestat_devmem_page_free,
	.migrate_to_ram		= pagestat_devmem_migrate_to_ram,
};

/**
 * pagestat_devmem_init() - set up the device-private pgmap
 *
 * Requests a free 2 MiB physical range, memremap_pages() it as
 * MEMORY_DEVICE_PRIVATE and puts its pages on a free list. Without it,
 * the device cases skip (pagestat_devmem_ready()).
 *
 * Context: Process context, may sleep.
 */
void pagestat_devmem_init(void)
{
	struct pagestat_devmem *dm = &pagestat_devmem;
	unsigned long pfn, end;
	struct resource *res;
	void *addr;

	/* A pgmap that may still be mapped must stay as it is. */
	if (dm->leaked)
		return;
	spin_lock_init(&dm->lock);
	dm->free = NULL;
	dm->used = 0;
	res = request_free_mem_region(&iomem_resource, SZ_2M,
				      "pagestat_kunit");
	if (IS_ERR_OR_NULL(res)) {
		pr_warn("pagestat_kunit: no free region for device memory\n");
		return;
	}
	memset(&dm->pgmap, 0, sizeof(dm->pgmap));
	dm->pgmap.type = MEMORY_DEVICE_PRIVATE;
	dm->pgmap.range.start = res->start;
	dm->pgmap.range.end = res->end;
	dm->pgmap.nr_range = 1;
	dm->pgmap.ops = &pagestat_devmem_ops;
	dm->pgmap.owner = dm;
	addr = memremap_pages(&dm->pgmap, NUMA_NO_NODE);
	if (IS_ERR(addr)) {
		pr_warn("pagestat_kunit: memremap_pages: %ld\n", PTR_ERR(addr));
		release_mem_region(res->start, resource_size(res));
		return;
	}
	end = PHYS_PFN(res->end + 1);
	for (pfn = PHYS_PFN(res->start); pfn < end; pfn++) {
		struct page *page = pfn_to_page(pfn);

		page->zone_device_data = dm->free;
		dm->free = page;
	}
	dm->ready = true;
}

/**
 * pagestat_devmem_exit() - tear down the device-private pgmap
 *
 * Waits up to 5 seconds for the last case's mm to give its device pages
 * back, and leaks the pgmap, with a warning, if some are still mapped:
 * memunmap_pages() would wait for them forever.
 *
 * Context: Process context, may sleep.
 */
void pagestat_devmem_exit(void)
{
	struct pagestat_devmem *dm = &pagestat_devmem;
	int i;

	if (!dm->ready)
		return;
	dm->ready = false;
	/* The last case's mm may still be on its way out (exit_mm()). */
	for (i = 0; i < 250 && READ_ONCE(dm->used); i++)
		msleep(20);
	if (READ_ONCE(dm->used)) {
		/* memunmap_pages() would wait for them forever */
		pr_warn("pagestat_kunit: %lu device pages still mapped, leaking the pgmap\n",
			READ_ONCE(dm->used));
		dm->leaked = true;
		return;
	}
	memunmap_pages(&dm->pgmap);
	release_mem_region(dm->pgmap.range.start, range_len(&dm->pgmap.range));
}

/**
 * pagestat_devmem_ready() - whether device-private pages can be had
 *
 * Return: true once pagestat_devmem_init() has set up the pgmap.
 */
bool pagestat_devmem_ready(void)
{
	return pagestat_devmem.ready;
}

/**
 * pagestat_devmem_alloc() - take a device-private page
 *
 * Context: Process context; takes the pgmap's spinlock.
 * Return: a device page with one reference, locked, or NULL.
 */
struct page *pagestat_devmem_alloc(void)
{
	struct pagestat_devmem *dm = &pagestat_devmem;
	unsigned long flags;
	struct page *page;

	if (!dm->ready)
		return NULL;
	spin_lock_irqsave(&dm->lock, flags);
	page = dm->free;
	if (page) {
		dm->free = page->zone_device_data;
		dm->used++;
	}
	spin_unlock_irqrestore(&dm->lock, flags);
	if (page)
		zone_device_page_init(page);
	return page;
}
#else
void pagestat_devmem_init(void)
{
}

void pagestat_devmem_exit(void)
{
}

bool pagestat_devmem_ready(void)
{
	return false;
}
#endif

#ifdef CONFIG_DEVICE_PRIVATE
/**
 * pagestat_build_device() - make the device entries of an anon segment
 * @ctx: the case's context.
 * @seg: the segment, populated; its 'e' entries become device-exclusive
 *	and its 'v' entries device-private, with migrate_vma_*().
 *
 * Context: Process context, may sleep; takes mmap_read_lock(@ctx->mm).
 * Return: PAGESTAT_OK, PAGESTAT_FAIL with the reason in @ctx->msg, or,
 * without DEVICE_PRIVATE, PAGESTAT_SKIP.
 */
enum pagestat_verdict pagestat_build_device(struct pagestat_ctx *ctx,
					    struct pagestat_seg *seg)
{
	unsigned long addr, src, dst;
	struct vm_area_struct *vma;
	struct page *page;
	int ret = 0;
	char c = 0;

	mmap_read_lock(ctx->mm);
	for (addr = seg->start; addr < seg->end && !ret; addr += PAGE_SIZE) {
		c = seg->pattern[(addr - seg->start) >> PAGE_SHIFT];
		vma = vma_lookup(ctx->mm, addr);
		if (c == 'e') {
			page = NULL;
			ret = make_device_exclusive_range(ctx->mm, addr,
							  addr + PAGE_SIZE,
							  &page,
							  &pagestat_devmem);
			if (ret == 1 && page) {
				unlock_page(page);
				put_page(page);
				ret = 0;
			} else {
				ret = ret < 0 ? ret : -EBUSY;
			}
		} else if (c == 'v' && vma) {
			struct migrate_vma args = {
				.vma		= vma,
				.start		= addr,
				.end		= addr + PAGE_SIZE,
				.src		= &src,
				.dst		= &dst,
				.pgmap_owner	= &pagestat_devmem,
				.flags		= MIGRATE_VMA_SELECT_SYSTEM,
			};

			ret = migrate_vma_setup(&args);
			if (ret)
				break;
			dst = 0;
			/* an empty PTE: nothing to copy (lib/test_hmm.c) */
			if ((src & MIGRATE_PFN_MIGRATE) &&
			    !migrate_pfn_to_page(src)) {
				page = pagestat_devmem_alloc();
				if (page)
					dst = migrate_pfn(page_to_pfn(page));
			}
			migrate_vma_pages(&args);
			migrate_vma_finalize(&args);
			if (!dst)
				ret = -EBUSY;
		}
	}
	mmap_read_unlock(ctx->mm);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"making '%c' at %#lx: %d", c,
					addr - PAGE_SIZE, ret);
	return PAGESTAT_OK;
}
#else
enum pagestat_verdict pagestat_build_device(struct pagestat_ctx *ctx,
					    struct pagestat_seg *seg)
{
	return pagestat_verdict(ctx, PAGESTAT_SKIP,
				"needs CONFIG_DEVICE_PRIVATE");
}
#endif
