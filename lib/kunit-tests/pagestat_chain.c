// SPDX-License-Identifier: GPL-2.0
/*
 * Suite pagestat_chain: PTEs that map physically consecutive pages.
 */

#include "pagestat_kunit.h"

/*
 * pagestat_chain: PTEs whose pfns the case picks. Pages allocated here are
 * inserted with vm_insert_page() into a private VM_MIXEDMAP VMA in the
 * order a row asks for: chains, runs of physically consecutive pages,
 * ascending or descending, or two of them interleaved entry by entry,
 * broken where the row says.
 *
 * A row has one or two lanes of pages and a pattern of one character per
 * PTE, each optionally followed by a repeat count; "(...)n" repeats a group:
 *   'w'  a lane's page: entry j maps page j / nr_lanes of lane
 *        j % nr_lanes, so that breaking an entry does not shift its lane
 *   '.'  an empty PTE
 *   'z'  the shared zero page, by vm_insert_page(ZERO_PAGE())
 *   's', 'd', 'k', 'K', 'D'  as in struct pagestat_seg
 */

#define PAGESTAT_CHAIN_MAX	1536	/* entries: three PTE tables */

enum pagestat_lane_src {
	PAGESTAT_LANE_NODE0,		/* a free block on the first node */
	PAGESTAT_LANE_NODE1,		/* on the second node */
	PAGESTAT_LANE_NODE_EDGE,	/* across the edge of two nodes */
	PAGESTAT_LANE_ZONE_EDGE,	/* of two zones of one node */
};

struct pagestat_lane {
	u8 src;			/* enum pagestat_lane_src */
	s8 dir;			/* 1: ascending pfns, -1: descending */
};

#define PAGESTAT_UP(s)		{ .src = PAGESTAT_LANE_##s, .dir = 1 }
#define PAGESTAT_DOWN(s)	{ .src = PAGESTAT_LANE_##s, .dir = -1 }

enum pagestat_chain_prot {
	PAGESTAT_PROT_RW,
	PAGESTAT_PROT_NONE,	/* mprotect(PROT_NONE) of the whole VMA */
	PAGESTAT_PROT_ODD,	/* the 'w' entries at odd j: NUMA hints */
};

struct pagestat_chain_case {
	const char *name;
	unsigned int off;	/* index of entry 0 in its PTE table */
	unsigned int nr_lanes;
	struct pagestat_lane lane[2];
	u8 prot;		/* enum pagestat_chain_prot */
	const char *pattern;
};

/* Pages held by a lane, one reference each: [pfn, pfn + nr). */
struct pagestat_held {
	unsigned long pfn;
	unsigned long nr;
};

struct pagestat_chain {
	struct pagestat_ctx *ctx;
	const struct pagestat_chain_case *tc;
	char *pat;		/* the pattern, expanded */
	unsigned long nr;	/* entries */
	unsigned long start;	/* address of entry 0 */
	unsigned long *pfn;	/* the page a 'w' entry maps */
	int *exp;		/* the status of each entry */
	struct pagestat_held held[2];
};

static void pagestat_held_put(void *data)
{
	struct pagestat_held *h = data;
	unsigned long i;

	/* not free_contig_range(): a page still mapped is not a bug here */
	for (i = 0; i < h->nr; i++)
		put_page(pfn_to_page(h->pfn + i));
	h->nr = 0;
}

/* Expands @src into @dst; the number of entries, or -EINVAL. */
static long pagestat_chain_expand(const char *src, char *dst,
				  unsigned long cap)
{
	unsigned long n = 0, count;
	const char *g, *end;
	size_t len;

	while (*src) {
		g = src;
		len = 1;
		if (*src == '(') {
			end = strchr(src, ')');
			if (!end)
				return -EINVAL;
			g = src + 1;
			len = end - g;
			src = end;
		}
		src++;
		count = isdigit(*src) ? 0 : 1;
		while (isdigit(*src))
			count = count * 10 + *src++ - '0';
		for (; count; count--) {
			if (n + len > cap)
				return -EINVAL;
			memcpy(dst + n, g, len);
			n += len;
		}
	}
	dst[n] = '\0';
	return n;
}

/* A free block of @nr pages on node @nid, split into single pages. */
static struct page *pagestat_lane_block(int nid, unsigned long nr)
{
	gfp_t gfp = GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN;
	unsigned int order = order_base_2(nr);
	struct page *page;
	unsigned long i;

	if (order > MAX_PAGE_ORDER) {
#ifdef CONFIG_CONTIG_ALLOC
		return alloc_contig_pages(nr, gfp, nid, NULL);
#else
		return NULL;
#endif
	}
	page = alloc_pages_node(nid, gfp, order);
	if (!page)
		return NULL;
	split_page(page, order);
	for (i = nr; i < 1UL << order; i++)
		__free_page(nth_page(page, i));
	return page;
}

#ifdef CONFIG_CONTIG_ALLOC
/* The populated zone that starts at @pfn, if any. */
static struct zone *pagestat_zone_at(unsigned long pfn)
{
	struct zone *zone;

	for_each_populated_zone(zone)
		if (zone->zone_start_pfn == pfn)
			return zone;
	return NULL;
}

static bool pagestat_pfns_valid(unsigned long start, unsigned long end)
{
	unsigned long pfn;

	/* alloc_contig_range() isolates whole pageblocks */
	for (pfn = pageblock_start_pfn(start); pfn < pageblock_align(end);
	     pfn++)
		if (!pfn_valid(pfn))
			return false;
	return true;
}

/*
 * @nr pages around a pfn where one zone ends and the next one starts, the
 * next one on another node if @node, else on the same node: half of them
 * below the edge. Returns the first pfn, 0 if no edge has the pages free;
 * *@edge is the last edge looked at, 0 if none.
 */
static unsigned long pagestat_edge_alloc(bool node, unsigned long nr,
					 unsigned long *edge)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	unsigned long below = nr / 2, b;
	struct zone *zone, *next;

	for_each_populated_zone(zone) {
		b = zone_end_pfn(zone);
		next = pagestat_zone_at(b);
		if (!next || (zone_to_nid(next) != zone_to_nid(zone)) != node ||
		    !IS_ALIGNED(b, pageblock_nr_pages) ||
		    b - zone->zone_start_pfn < below ||
		    zone_end_pfn(next) - b < nr - below ||
		    !pagestat_pfns_valid(b - below, b + nr - below))
			continue;
		*edge = b;
		/* one zone per call */
		if (alloc_contig_range(b - below, b, MIGRATE_MOVABLE, gfp))
			continue;
		if (!alloc_contig_range(b, b + nr - below, MIGRATE_MOVABLE,
					gfp))
			return b - below;
		free_contig_range(b - below, below);
	}
	return 0;
}
#else
static unsigned long pagestat_edge_alloc(bool node, unsigned long nr,
					 unsigned long *edge)
{
	return 0;
}
#endif

/* Takes @nr pages for lane @l; they are put when the case ends. */
static enum pagestat_verdict pagestat_lane_alloc(struct pagestat_chain *ch,
						 unsigned int l,
						 unsigned long nr)
{
	const struct pagestat_lane *lane = &ch->tc->lane[l];
	struct pagestat_held *h = &ch->held[l];
	struct pagestat_ctx *ctx = ch->ctx;
	bool node = lane->src == PAGESTAT_LANE_NODE_EDGE;
	unsigned long i, edge = 0;
	int nid = NUMA_NO_NODE;
	struct page *page, *last;

	if (lane->src == PAGESTAT_LANE_NODE0 ||
	    lane->src == PAGESTAT_LANE_NODE1) {
		nid = ctx->nid[lane->src == PAGESTAT_LANE_NODE1];
		if (nid == NUMA_NO_NODE)
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"needs a second NUMA node with memory");
		page = pagestat_lane_block(nid, nr);
		if (!page)
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"no %lu free contiguous pages on node %d",
						nr, nid);
		h->pfn = page_to_pfn(page);
	} else {
		h->pfn = pagestat_edge_alloc(node, nr, &edge);
		if (!h->pfn && !edge)
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"no pfn where two %s meet with memory on both sides",
						node ? "nodes" : "zones of a node");
		if (!h->pfn) {
			unsigned long pfn = edge - nr / 2, resv = 0;

			/* memblock allocates a node's own data at its top */
			for (i = 0; i < nr; i++)
				resv += PageReserved(pfn_to_page(pfn + i));
			return pagestat_verdict(ctx, PAGESTAT_SKIP,
						"the %lu pages around pfn %#lx, where two %s meet, are not free: %lu reserved at boot",
						nr, edge,
						node ? "nodes" : "zones of a node",
						resv);
		}
	}
	h->nr = nr;
	if (kunit_add_action_or_reset(ctx->test, pagestat_held_put, h))
		return pagestat_verdict(ctx, PAGESTAT_FAIL, "no kunit action");

	/* the lane is where it claims to be */
	page = pfn_to_page(h->pfn);
	last = pfn_to_page(h->pfn + nr - 1);
	for (i = 0; i < nr; i++) {
		struct page *p = pfn_to_page(h->pfn + i);
		bool low = i < nr / 2;

		if (lane->src <= PAGESTAT_LANE_NODE1 ?
		    page_to_nid(p) == nid :
		    (page_zone(p) == page_zone(low ? page : last) &&
		     (page_to_nid(p) == page_to_nid(low ? page : last))))
			continue;
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"lane %u: pfn %#lx on node %d zone %s",
					l, h->pfn + i, page_to_nid(p),
					page_zone(p)->name);
	}
	if (lane->src > PAGESTAT_LANE_NODE1 &&
	    (page_zone(page) == page_zone(last) ||
	     (page_to_nid(page) != page_to_nid(last)) != node))
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"lane %u: pfns %#lx-%#lx do not cross an edge of two %s",
					l, h->pfn, h->pfn + nr - 1,
					node ? "nodes" : "zones");
	return PAGESTAT_OK;
}

/* The pfn of page @k of lane @l: counted from the lane's end if it descends */
static unsigned long pagestat_lane_pfn(const struct pagestat_chain *ch,
				       unsigned int l, unsigned long k)
{
	const struct pagestat_held *h = &ch->held[l];

	return ch->tc->lane[l].dir > 0 ? h->pfn + k : h->pfn + h->nr - 1 - k;
}

static bool pagestat_chain_protnone(const struct pagestat_chain *ch,
				    unsigned long j)
{
	char c = ch->pat[j];

	if (ch->tc->prot == PAGESTAT_PROT_NONE)
		return c != '.';
	return ch->tc->prot == PAGESTAT_PROT_ODD && c == 'w' && (j & 1);
}

/*
 * How the architecture stores a PROT_NONE entry: on x86 not present, pfn
 * bits inverted; on arm64 invalid, with PTE_PRESENT_INVALID set.
 */
static bool pagestat_pte_protnone(pte_t pte)
{
#if defined(CONFIG_X86)
	pteval_t pfn = (pteval_t)pte_pfn(pte) << PAGE_SHIFT;

	return (pte_flags(pte) & (_PAGE_PROTNONE | _PAGE_PRESENT)) ==
	       _PAGE_PROTNONE &&
	       ((pte_val(pte) ^ pfn) & PTE_PFN_MASK) == PTE_PFN_MASK;
#elif defined(CONFIG_ARM64)
	return pte_present_invalid(pte);
#else
	return false;
#endif
}

/* The PTE of @addr, if there is a PTE table; mmap_read_lock held. */
static bool pagestat_read_pte(struct mm_struct *mm, unsigned long addr,
			      pte_t *pte)
{
	spinlock_t *ptl;	/* of the PTE table, held for one read */
	pgd_t *pgdp = pgd_offset(mm, addr);
	pte_t *ptep;
	p4d_t *p4dp;
	pud_t *pudp;
	pmd_t *pmdp;

	if (pgd_none(*pgdp))
		return false;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(*p4dp))
		return false;
	pudp = pud_offset(p4dp, addr);
	if (pud_none(*pudp) || pud_leaf(*pudp))
		return false;
	pmdp = pmd_offset(pudp, addr);
	ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);
	if (!ptep)
		return false;
	*pte = ptep_get(ptep);
	pte_unmap_unlock(ptep, ptl);
	return true;
}

/*
 * Every entry holds what the pattern says, with the pfn the lane gives it
 * and the protection the row asks for; mmap_read_lock held, so no assert.
 */
static enum pagestat_verdict pagestat_chain_probe_entry(struct pagestat_chain *ch,
							unsigned long j)
{
	unsigned long addr = ch->start + j * PAGE_SIZE;
	struct pagestat_ctx *ctx = ch->ctx;
	bool ok, present, special;
	char c = ch->pat[j];
	struct pagestat_fw f;
	pte_t pte = __pte(0);

	__pagestat_fw(ctx->mm, addr, &f);
	if (!pagestat_read_pte(ctx->mm, addr, &pte))
		pte = __pte(0);
	present = pte_present(pte);
	special = present && pte_special(pte);

	switch (c) {
	case '.':
		ok = pte_none(pte) && !f.found;
		break;
	case 'w':
		ok = present && !special && pte_pfn(pte) == ch->pfn[j] &&
		     f.found && !f.zone_device && f.nid == ch->exp[j];
		break;
	case 'z':
		ok = special && is_zero_pfn(pte_pfn(pte)) && f.zero;
		break;
	case 's':
		ok = special && !pte_devmap(pte) && !f.found;
		break;
	case 'd':
		ok = present && pte_devmap(pte) && !f.found;
		break;
	case 'D':
		ok = present && !special && f.found && f.device_private;
		break;
	case 'k':
	case 'K':
		ok = present && !special && f.found && !f.zone_device &&
		     f.nid == pagestat_node(ctx, c);
		break;
	default:
		ok = false;
		break;
	}
	if (ok && c != '.' &&
	    pagestat_pte_protnone(pte) != pagestat_chain_protnone(ch, j))
		ok = false;
	if (ok)
		return PAGESTAT_OK;
	return pagestat_verdict(ctx, PAGESTAT_FAIL,
				"entry %lu '%c' at %#lx: pte %#llx (pfn %#lx%s), want pfn %#lx%s; folio_walk: found %d zero %d zone_device %d device_private %d nid %d, want status %d",
				j, c, addr, (u64)pte_val(pte),
				(unsigned long)pte_pfn(pte),
				pagestat_pte_protnone(pte) ? " PROT_NONE" : "",
				c == 'w' ? ch->pfn[j] : 0,
				pagestat_chain_protnone(ch, j) ?
				" PROT_NONE" : "",
				f.found, f.zero, f.zone_device,
				f.device_private, f.nid, ch->exp[j]);
}

static enum pagestat_verdict pagestat_chain_probe(struct pagestat_chain *ch)
{
	enum pagestat_verdict v = PAGESTAT_OK;
	unsigned long j;

	mmap_read_lock(ch->ctx->mm);
	for (j = 0; j < ch->nr && v == PAGESTAT_OK; j++)
		v = pagestat_chain_probe_entry(ch, j);
	mmap_read_unlock(ch->ctx->mm);
	return v;
}

/* Makes the 'w' entry at @addr PROT_NONE as change_prot_numa() would. */
static void pagestat_numa_hint(struct vm_area_struct *vma, unsigned long addr)
{
	spinlock_t *ptl;	/* of the PTE table */
	pte_t *ptep, old;

	ptep = get_locked_pte(vma->vm_mm, addr, &ptl);
	if (!ptep)
		return;		/* the probe says what is missing */
	old = ptep_modify_prot_start(vma, addr, ptep);
	ptep_modify_prot_commit(vma, addr, ptep, old,
				pte_modify(old, PAGE_NONE));
	pte_unmap_unlock(ptep, ptl);
	flush_tlb_range(vma, addr, addr + PAGE_SIZE);
}

/* Maps entry @j; mmap_read_lock held. */
static int pagestat_chain_insert(struct pagestat_chain *ch,
				 struct vm_area_struct *vma, unsigned long j)
{
	static const struct pagestat_seg mixed = {
		.kind = PAGESTAT_MIXEDMAP,
	};
	unsigned long addr = ch->start + j * PAGE_SIZE;

	switch (ch->pat[j]) {
	case '.':
		return 0;
	case 'w':
		return vm_insert_page(vma, addr, pfn_to_page(ch->pfn[j]));
	case 'z':
		/* a COW VM_MIXEDMAP: vm_mixed_zeropage_allowed() */
		return vm_insert_page(vma, addr, ZERO_PAGE(addr));
	default:
		return pagestat_fill_pfn(ch->ctx, &mixed, vma, addr,
					 ch->pat[j]);
	}
}

/* Allocates the lanes, maps the pattern and probes it. */
static enum pagestat_verdict pagestat_chain_build(struct pagestat_chain *ch)
{
	const struct pagestat_chain_case *tc = ch->tc;
	struct pagestat_ctx *ctx = ch->ctx;
	unsigned long i, j, need[2] = { };
	struct vm_area_struct *vma;
	unsigned int l, lanes = tc->nr_lanes;
	enum pagestat_verdict v;
	int ret = 0;
	long n;

	n = pagestat_chain_expand(tc->pattern, ch->pat, PAGESTAT_CHAIN_MAX);
	if (n <= 0 || !lanes || lanes > 2)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"bad row: pattern \"%s\", %u lanes",
					tc->pattern, lanes);
	ch->nr = n;
	ch->start = PAGESTAT_BASE + (unsigned long)tc->off * PAGE_SIZE;
	if (strchr(ch->pat, 'K') && ctx->nid[1] == NUMA_NO_NODE)
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"needs a second NUMA node with memory");
	if (strchr(ch->pat, 'D') && !pagestat_devmem_ready())
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"needs device-private memory (CONFIG_DEVICE_PRIVATE)");
	if (tc->prot && !IS_ENABLED(CONFIG_X86) && !IS_ENABLED(CONFIG_ARM64))
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"PROT_NONE entries are probed as x86 and arm64 store them");

	for (j = 0; j < ch->nr; j++)
		if (ch->pat[j] == 'w')
			need[j % lanes] = j / lanes + 1;
	for (l = 0; l < lanes; l++) {
		if (!need[l])
			continue;
		v = pagestat_lane_alloc(ch, l, need[l]);
		if (v != PAGESTAT_OK)
			return v;
	}
	for (j = 0; j < ch->nr; j++) {
		switch (ch->pat[j]) {
		case 'w':
			ch->pfn[j] = pagestat_lane_pfn(ch, j % lanes,
						       j / lanes);
			ch->exp[j] = page_to_nid(pfn_to_page(ch->pfn[j]));
			break;
		case 'z':
			ch->exp[j] = -EFAULT;
			break;
		case 'k':
		case 'K':
			ch->exp[j] = pagestat_node(ctx, ch->pat[j]);
			break;
		default:
			ch->exp[j] = -ENOENT;
			break;
		}
	}

	/* vmf_insert_mixed() and vm_insert_page() of the zero page want COW */
	ret = pagestat_mmap_file(&pagestat_fmode_mixedmap, ch->start,
				 ch->nr * PAGE_SIZE, MAP_PRIVATE);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"mixedmap mmap at %#lx: %d", ch->start,
					ret);
	mmap_read_lock(ctx->mm);
	vma = vma_lookup(ctx->mm, ch->start);
	for (j = 0; vma && j < ch->nr && !ret; j++)
		ret = pagestat_chain_insert(ch, vma, j);
	for (i = 0; vma && !ret && tc->prot == PAGESTAT_PROT_ODD &&
	     i < ch->nr; i++)
		if (pagestat_chain_protnone(ch, i))
			pagestat_numa_hint(vma, ch->start + i * PAGE_SIZE);
	mmap_read_unlock(ctx->mm);
	if (!vma)
		return pagestat_verdict(ctx, PAGESTAT_FAIL, "no VMA at %#lx",
					ch->start);
	if (ret == -ENOSPC || ret == -ENOMEM)
		return pagestat_verdict(ctx, PAGESTAT_SKIP,
					"no page for entry %lu '%c': %d",
					j - 1, ch->pat[j - 1], ret);
	if (ret)
		return pagestat_verdict(ctx, PAGESTAT_FAIL,
					"inserting entry %lu '%c': %d", j - 1,
					ch->pat[j - 1], ret);
	if (tc->prot == PAGESTAT_PROT_NONE) {
		ret = pagestat_mprotect(ctx->mm, ch->start,
					ch->start + ch->nr * PAGE_SIZE, 0);
		if (ret)
			return pagestat_verdict(ctx, PAGESTAT_FAIL,
						"mprotect(PROT_NONE) at %#lx: %d",
						ch->start, ret);
	}
	return pagestat_chain_probe(ch);
}

static const struct pagestat_chain_case pagestat_chain_rows[] = {
	/* ascending */
	{ .name = "ascending, a whole PTE table",
	  .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) }, .pattern = "w512" },
	{ .name = "ascending on node 1, a whole PTE table",
	  .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE1) }, .pattern = "w512" },
	{ .name = "ascending from mid-table to the table's end",
	  .off = 300, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w212" },
	{ .name = "ascending within a table",
	  .off = 37, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE1) },
	  .pattern = "w100" },
	{ .name = "ascending across a table boundary",
	  .off = 256, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w512" },
	{ .name = "ascending over three tables (alloc_contig_pages)",
	  .off = 500, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE1) },
	  .pattern = "w1030" },
	/* descending */
	{ .name = "descending, a whole PTE table",
	  .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE0) }, .pattern = "w512" },
	{ .name = "descending, ending at a table boundary",
	  .off = 412, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100" },
	{ .name = "descending across a table boundary",
	  .off = 300, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE0) },
	  .pattern = "w400" },
	{ .name = "descending to a table boundary, then holes",
	  .off = 400, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w112.4w8" },
	/* PROT_NONE */
	{ .name = "PROT_NONE ascending, a whole PTE table",
	  .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .prot = PAGESTAT_PROT_NONE, .pattern = "w512" },
	{ .name = "PROT_NONE descending across a table boundary",
	  .off = 256, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .prot = PAGESTAT_PROT_NONE, .pattern = "w512" },
	{ .name = "PROT_NONE chain with zero, special, devmap, empty entries",
	  .off = 5, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE0) },
	  .prot = PAGESTAT_PROT_NONE,
	  .pattern = "w100zw100sw100.w100dw100" },
	{ .name = "PROT_NONE and normal entries alternate, one lane",
	  .off = 1, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .prot = PAGESTAT_PROT_ODD, .pattern = "w200" },
	{ .name = "PROT_NONE and normal entries alternate, descending",
	  .off = 2, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .prot = PAGESTAT_PROT_ODD, .pattern = "w200" },
	{ .name = "a PROT_NONE lane interleaved with a normal lane",
	  .off = 0, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .prot = PAGESTAT_PROT_ODD, .pattern = "w512" },
	/* two lanes */
	{ .name = "two lanes: node 0 ascending, node 1 descending",
	  .nr_lanes = 2, .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w512" },
	{ .name = "two lanes: node 1 descending, node 0 ascending, across a table",
	  .off = 301, .nr_lanes = 2,
	  .lane = { PAGESTAT_DOWN(NODE1), PAGESTAT_UP(NODE0) },
	  .pattern = "w420" },
	{ .name = "two lanes, both ascending",
	  .off = 64, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_UP(NODE1) },
	  .pattern = "w200" },
	{ .name = "two lanes, both descending on one node",
	  .off = 9, .nr_lanes = 2,
	  .lane = { PAGESTAT_DOWN(NODE1), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w200" },
	{ .name = "two lanes, broken at the second and the last entry",
	  .off = 16, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w.w300z" },
	{ .name = "two lanes, one of device-private pages",
	  .off = 8, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_UP(NODE1) },
	  .pattern = "(wD)32" },
	{ .name = "two lanes, one across the edge of two nodes",
	  .off = 40, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE_EDGE), PAGESTAT_DOWN(NODE0) },
	  .pattern = "w128" },
	/* broken chains and lanes */
	{ .name = "a chain with a hole in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255.w256" },
	{ .name = "a descending chain with a hole in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100.w100" },
	{ .name = "two lanes, each broken by a hole",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100.w100.w200" },
	{ .name = "a chain with the zero page in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255zw256" },
	{ .name = "a descending chain with the zero page in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100zw100" },
	{ .name = "two lanes, each broken by the zero page",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100zw100zw200" },
	{ .name = "a chain with a special pfn in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255sw256" },
	{ .name = "a descending chain with a special pfn in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100sw100" },
	{ .name = "two lanes, each broken by a special pfn",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100sw100sw200" },
	{ .name = "a chain with a devmap pfn in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255dw256" },
	{ .name = "a descending chain with a devmap pfn in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100dw100" },
	{ .name = "two lanes, each broken by a devmap pfn",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100dw100dw200" },
	{ .name = "a chain with a device-private page in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255Dw256" },
	{ .name = "a descending chain with a device-private page in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100Dw100" },
	{ .name = "two lanes, each broken by a device-private page",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100Dw100Dw200" },
	{ .name = "a chain with a node 0 page in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255kw256" },
	{ .name = "a descending chain with a node 0 page in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100kw100" },
	{ .name = "two lanes, each broken by a node 0 page",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100kw100kw200" },
	{ .name = "a chain with a node 1 page in the middle",
	  .off = 100, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w255Kw256" },
	{ .name = "a descending chain with a node 1 page in the middle",
	  .off = 7, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100Kw100" },
	{ .name = "two lanes, each broken by a node 1 page",
	  .off = 3, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w100Kw100Kw200" },
	/* the next pfn, on another node or in another zone */
	{ .name = "ascending across the edge of two nodes",
	  .off = 50, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE_EDGE) },
	  .pattern = "w64" },
	{ .name = "descending across the edge of two nodes",
	  .off = 50, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE_EDGE) },
	  .pattern = "w64" },
	{ .name = "ascending across the edge of two zones",
	  .off = 50, .nr_lanes = 1, .lane = { PAGESTAT_UP(ZONE_EDGE) },
	  .pattern = "w64" },
	{ .name = "descending across the edge of two zones",
	  .off = 50, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(ZONE_EDGE) },
	  .pattern = "w64" },
	/* runs of empty entries */
	{ .name = "empty runs of 1 to 9 between pages",
	  .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE0) },
	  .pattern = "w.1w.2w.3w.4w.5w.6w.7w.8w.9w" },
	{ .name = "empty runs of 1 to 9 between pages, shifted by 5",
	  .off = 5, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE1) },
	  .pattern = "w.1w.2w.3w.4w.5w.6w.7w.8w.9w" },
	{ .name = "empty runs of 1 to 9 between chains",
	  .off = 3, .nr_lanes = 1, .lane = { PAGESTAT_UP(NODE1) },
	  .pattern = "w8.1w8.2w8.3w8.4w8.5w8.6w8.7w8.8w8.9w8" },
	{ .name = "empty runs of 1 to 9 between chains of two lanes",
	  .off = 11, .nr_lanes = 2,
	  .lane = { PAGESTAT_UP(NODE0), PAGESTAT_DOWN(NODE1) },
	  .pattern = "w16.1w16.2w16.3w16.4w16.5w16.6w16.7w16.8w16.9w16" },
	{ .name = "empty runs to a table's end and to the VMA's end",
	  .off = 490, .nr_lanes = 1, .lane = { PAGESTAT_DOWN(NODE0) },
	  .pattern = "w4.18w50.9" },
};

KUNIT_ARRAY_PARAM_DESC(pagestat_chain, pagestat_chain_rows, name);

/*
 * Each row: the layout is probed, then the whole of it and sub-ranges that
 * start and end inside chains are held to the layout and to the stock loop
 * on every page, and the layout is probed again.
 */
static void pagestat_chain_layout(struct kunit *test)
{
	static const unsigned long skip[] = { 1, 2, 7, 8, 9, 63, 257 };
	struct pagestat_ctx *ctx = test->priv;
	struct pagestat_chain *ch;
	unsigned long i, s;

	ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	ch->ctx = ctx;
	ch->tc = test->param_value;
	ch->pat = kunit_kzalloc(test, PAGESTAT_CHAIN_MAX + 1, GFP_KERNEL);
	ch->pfn = kunit_kcalloc(test, PAGESTAT_CHAIN_MAX, sizeof(*ch->pfn),
				GFP_KERNEL);
	ch->exp = kunit_kcalloc(test, PAGESTAT_CHAIN_MAX, sizeof(*ch->exp),
				GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, ch->pat && ch->pfn && ch->exp);

	pagestat_settle(test, ctx, pagestat_chain_build(ch));
	ctx->chain_exp = ch->exp;
	ctx->chain_pat = ch->pat;
	ctx->chain_start = ch->start;
	ctx->chain_nr = ch->nr;

	pagestat_check_range(ctx, ch->start - 2 * PAGE_SIZE, ch->nr + 4);
	for (i = 0; i < ARRAY_SIZE(skip); i++) {
		s = skip[i];
		if (s >= ch->nr)
			break;
		pagestat_check_range(ctx, ch->start + s * PAGE_SIZE,
				     ch->nr - s);
		pagestat_check_range(ctx, ch->start, ch->nr - s);
		pagestat_check_range(ctx, ch->start + s * PAGE_SIZE,
				     min(ch->nr - s, 13UL));
	}
	pagestat_settle(test, ctx, pagestat_chain_probe(ch));

	ctx->chain_exp = NULL;
	ctx->chain_pat = NULL;
	pagestat_teardown(ctx);
	/* unmapped: the pages are ours alone again */
	for (i = 0; i < ARRAY_SIZE(ch->held); i++)
		if (ch->held[i].nr)
			kunit_release_action(test, pagestat_held_put,
					     &ch->held[i]);
}

static struct kunit_case pagestat_chain_cases[] = {
	KUNIT_CASE_PARAM(pagestat_chain_layout, pagestat_chain_gen_params),
	{}
};

static struct kunit_suite pagestat_chain_suite = {
	.name		= "pagestat_chain",
	.suite_init	= pagestat_suite_init,
	.suite_exit	= pagestat_suite_exit,
	.init		= pagestat_case_init,
	.test_cases	= pagestat_chain_cases,
};

kunit_test_suite(pagestat_chain_suite);
