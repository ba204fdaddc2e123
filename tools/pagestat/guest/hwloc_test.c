// SPDX-License-Identifier: GPL-2.0
/*
 * hwloc's memory location query in the guest, a real client of
 * move_pages(2) status queries: hwloc_get_area_memlocation() asks for the
 * node of every page of an area in one move_pages(0, n, pages, NULL, ...)
 * call (hwloc/topology-linux.c) and returns the set of nodes it found.
 *
 * For buffers of each kind it prints, as one "layout" line, the nodeset
 * hwloc returns and the statuses move_pages(2) gives for the same pages,
 * which the harness compares between the stock and the patched kernel.
 * With --bench it times one hwloc_get_area_memlocation() call over
 * --size bytes of 4 KiB pages and of THP instead, as move_pages_bench
 * prints its cases (under qemu -icount shift=0, guest ns are guest
 * instructions).
 *
 * Built against Debian's shared libhwloc (its static archive needs a
 * static libudev, which Debian does not ship); the harness copies the
 * libraries into the initramfs.
 */
#define _GNU_SOURCE
#include <hwloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define MPOL_BIND	2
#define MPOL_INTERLEAVE	3
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB	(21 << 26)
#endif

static hwloc_topology_t topo;

static int bind(char *p, size_t len, int mode, unsigned long nodes)
{
	return syscall(SYS_mbind, p, len, mode, &nodes, 8 * sizeof(nodes), 0);
}

/* A 2 MiB-aligned anonymous buffer of @len bytes (hugetlb: MAP_HUGETLB) */
static char *map_buf(size_t len, int hugetlb)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char *p;

	if (hugetlb)
		flags |= MAP_HUGETLB | MAP_HUGE_2MB;
	p = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	return (char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
}

/* The nodeset hwloc gives for [@p, @p + @len), as a list, or the error */
static char *memlocation(char *p, size_t len)
{
	hwloc_nodeset_t set = hwloc_bitmap_alloc();
	char *s = NULL;

	if (hwloc_get_area_memlocation(topo, p, len, set,
				       HWLOC_MEMBIND_BYNODESET))
		s = strdup("error");
	else if (hwloc_bitmap_list_asprintf(&s, set) < 0)
		s = NULL;
	hwloc_bitmap_free(set);
	return s;
}

/* One line: the layout's nodeset and its statuses, run-length encoded */
static int report(const char *name, char *p, size_t len)
{
	unsigned long n = len / PAGE, i, j;
	void **pages = malloc(n * sizeof(*pages));
	int *st = malloc(n * sizeof(*st));
	char *set = memlocation(p, len);

	if (!pages || !st || !set) {
		printf("FAIL %s: no memory\n", name);
		return -1;
	}
	for (i = 0; i < n; i++)
		pages[i] = p + i * PAGE;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, st, 0)) {
		printf("FAIL %s: move_pages\n", name);
		return -1;
	}
	printf("layout %s nodeset %s statuses", name, set);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && st[j] == st[i]; j++)
			;
		/* Alternating pairs as one: "[0 1]x2048" */
		if (j == i + 1 && i + 3 < n && st[i + 2] == st[i] &&
		    st[i + 3] == st[i + 1]) {
			for (j = i + 2; j + 1 < n && st[j] == st[i] &&
			     st[j + 1] == st[i + 1]; j += 2)
				;
			printf(" [%d %d]x%lu", st[i], st[i + 1], (j - i) / 2);
			continue;
		}
		printf(" %dx%lu", st[i], j - i);
	}
	printf("\n");
	free(set);
	free(pages);
	free(st);
	return 0;
}

/*
 * A buffer of @len bytes under memory policy @mode over @nodes, with THP
 * advice @advice or, for -1, of 2 MiB hugetlb pages; every page written
 * if @populate.  NULL if the guest cannot make it.
 */
static char *layout_buf(size_t len, int advice, int mode, unsigned long nodes,
			int populate)
{
	char *p = map_buf(len, advice < 0);

	if (!p || (advice >= 0 && madvise(p, len, advice)) ||
	    bind(p, len, mode, nodes) ||
	    (populate && madvise(p, len, MADV_POPULATE_WRITE)))
		return NULL;
	return p;
}

/* Each kind of buffer; a layout the guest cannot build is skipped */
static int layouts(void)
{
	size_t len = 8 * HPAGE, off;
	int bad = 0;
	char *p;

	p = layout_buf(len, MADV_NOHUGEPAGE, MPOL_BIND, 1, 1);
	if (!p)
		return printf("FAIL 4k: setup\n"), 1;
	bad |= report("4k", p, len);

	p = layout_buf(len, MADV_HUGEPAGE, MPOL_BIND, 2, 1);
	if (!p)
		return printf("FAIL thp: setup\n"), 1;
	bad |= report("thp", p, len);

	p = layout_buf(2 * HPAGE, -1, MPOL_BIND, 1, 1);
	if (p)
		bad |= report("hugetlb-2m", p, 2 * HPAGE);
	else
		printf("skip hugetlb-2m: no 2 MiB hugetlb pages\n");

	p = layout_buf(len, MADV_NOHUGEPAGE, MPOL_INTERLEAVE, 3, 1);
	if (!p)
		return printf("FAIL interleave: setup\n"), 1;
	bad |= report("interleave", p, len);

	/* One page of each 2 MiB written, on node 1 */
	p = layout_buf(len, MADV_NOHUGEPAGE, MPOL_BIND, 2, 0);
	if (!p)
		return printf("FAIL sparse: setup\n"), 1;
	for (off = 0; off < len; off += HPAGE)
		p[off] = 1;
	bad |= report("sparse", p, len);

	/* 4 KiB pages on node 0 with 1 MiB unmapped in the middle */
	p = layout_buf(len, MADV_NOHUGEPAGE, MPOL_BIND, 1, 1);
	if (!p || munmap(p + len / 2, HPAGE / 2))
		return printf("FAIL hole: setup\n"), 1;
	bad |= report("hole", p, len);
	return bad ? 1 : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One timed hwloc_get_area_memlocation() per run over @len bytes */
static int bench(const char *name, size_t len, int advice, int runs)
{
	hwloc_nodeset_t set = hwloc_bitmap_alloc();
	char *p = layout_buf(len, advice, MPOL_BIND, 1, 1);
	uint64_t t[64];
	int r;

	if (!p) {
		printf("FAIL %s: setup\n", name);
		return 1;
	}
	for (r = -1; r < runs; r++) {
		uint64_t t0 = now_ns();

		if (hwloc_get_area_memlocation(topo, p, len, set,
					       HWLOC_MEMBIND_BYNODESET) ||
		    !hwloc_bitmap_isset(set, 0) ||
		    hwloc_bitmap_weight(set) != 1) {
			printf("FAIL %s: nodeset is not node 0\n", name);
			return 1;
		}
		if (r >= 0)
			t[r] = now_ns() - t0;
	}
	qsort(t, runs, sizeof(t[0]), cmp_u64);
	printf("case %s pages %zu ns_per_page %.2f runs", name, len / PAGE,
	       (double)t[runs / 2] / (len / PAGE));
	for (r = 0; r < runs; r++)
		printf("%c%.2f", r ? ',' : ' ', (double)t[r] / (len / PAGE));
	printf("\n");
	hwloc_bitmap_free(set);
	munmap(p, len);
	return 0;
}

int main(int argc, char **argv)
{
	size_t size = 1UL << 30;
	int runs = 5, do_bench = 0, i, bad;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = strtoull(argv[++i], NULL, 0) << 20;
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--bench"))
			do_bench = 1;
		else
			return fprintf(stderr,
				       "usage: %s [--bench [--size MiB] [--runs N]]\n",
				       argv[0]), 2;
	}
	if (runs < 1 || runs > 64 || !size)
		return fprintf(stderr, "bad --runs or --size\n"), 2;
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
		printf("FAIL hwloc: no topology\n");
		return 1;
	}
	printf("hwloc %s, %d NUMA nodes\n", HWLOC_VERSION,
	       hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
	if (do_bench)
		bad = bench("hwloc-4k", size, MADV_NOHUGEPAGE, runs) |
		      bench("hwloc-thp", size, MADV_HUGEPAGE, runs);
	else
		bad = layouts();
	hwloc_topology_destroy(topo);
	return bad;
}
