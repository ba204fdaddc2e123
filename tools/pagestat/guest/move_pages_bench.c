// SPDX-License-Identifier: GPL-2.0
/*
 * Time move_pages(2) status queries (a NULL node list) over the pages of
 * a buffer laid out in one of several ways, and check every status.
 *
 * Each case maps and populates a buffer, builds the array of 4 KiB page
 * pointers, makes one warm-up call and then times several calls of
 * move_pages(0, n, pages, NULL, status, 0); it prints the median cost
 * per page.  Under qemu -icount shift=0 a guest nanosecond is one guest
 * instruction, so the figures repeat from boot to boot.
 *
 * The call-N cases instead time CALL_ROUNDS calls of N consecutive 4 KiB
 * pages each, walking over the buffer, and print the median cost per call:
 * what a library that asks for the node of a few addresses pays.
 *
 * The move-* cases move a buffer of at most MOVE_SIZE from node 0 to node 1
 * with a node list (MPOL_MF_MOVE), back to node 0 untimed between runs;
 * the placed-* cases ask the same of pages already on node 1.  They print
 * the cost per page, and a "note" line when a status is not node 1 (stock
 * 7.3 gives -EBUSY for the address after the first of a huge page).
 *
 * The vma-K cases query a buffer of at most VMA_SIZE split into VMAs of K
 * pages (every other one mprotect()ed read only), as per-page mbind() or
 * guard pages leave it.
 *
 * Output, one line per case (parsed by tools/pagestat/pagestat bench):
 *   case NAME pages N ns_per_page X runs A,B,C,...
 *   case NAME pages N ns_per_call X runs A,B,C,...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define MPOL_BIND	2
#define MPOL_INTERLEAVE	3
#define MPOL_MF_MOVE	2

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PAGE		4096UL
#define HPAGE		(2UL << 20)

enum expect {
	EXPECT_NODE0,		/* every page on node 0 (--spread: 0 or 1) */
	EXPECT_SPARSE,		/* first page of each 2 MiB on node 0, else -ENOENT */
	EXPECT_ALTERNATE,	/* nodes alternate page by page */
};

struct bench_case {
	const char *name;
	int (*setup)(char *buf, size_t size);
	int hugetlb;
	int shuffle;
	enum expect expect;
	size_t call;		/* pages per call, or 0: one call for all */
	int move;		/* MOVE_*: a node list, to node 1 */
	size_t vma;		/* pages per VMA, or 0: one VMA */
};

enum { MOVE_NONE, MOVE_AWAY, MOVE_PLACED };

/* The buffer of a move case is at most this large */
#define MOVE_SIZE	(256UL << 20)

/* The buffer of a vma-K case is at most this large: 16384 VMAs for K=1 */
#define VMA_SIZE	(64UL << 20)

/* Calls timed per run of a call-N case */
#define CALL_ROUNDS	4096

static int runs = 5;
/* Nodes the buffer of a node 0 case is bound to: 1, or 3 with --spread */
static unsigned long bind_nodes = 1;

static long sys_move_pages(unsigned long n, void **pages, int *status)
{
	return syscall(SYS_move_pages, 0, n, pages, NULL, status, 0);
}

static long sys_mbind(void *addr, size_t len, int mode, unsigned long mask)
{
	return syscall(SYS_mbind, addr, len, mode, &mask, 8 * sizeof(mask), 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Lay the buffer out: THP advice, a memory policy over nodes @nodes, then
 * write every page or (@sparse) the first page of each 2 MiB.
 */
static int setup(char *buf, size_t size, int advice, int mode,
		 unsigned long nodes, int sparse)
{
	size_t off;

	if ((advice >= 0 && madvise(buf, size, advice)) ||
	    sys_mbind(buf, size, mode, nodes)) {
		perror("madvise/mbind");
		return -1;
	}
	if (sparse) {
		for (off = 0; off < size; off += HPAGE)
			buf[off] = 1;
		return 0;
	}
	if (madvise(buf, size, MADV_POPULATE_WRITE)) {
		perror("madvise(MADV_POPULATE_WRITE)");
		return -1;
	}
	return 0;
}

static int setup_4k(char *buf, size_t size)
{
	return setup(buf, size, MADV_NOHUGEPAGE, MPOL_BIND, bind_nodes, 0);
}

static int setup_thp(char *buf, size_t size)
{
	return setup(buf, size, MADV_HUGEPAGE, MPOL_BIND, bind_nodes, 0);
}

static int setup_hugetlb(char *buf, size_t size)
{
	return setup(buf, size, -1, MPOL_BIND, bind_nodes, 0);
}

static int setup_sparse(char *buf, size_t size)
{
	return setup(buf, size, MADV_NOHUGEPAGE, MPOL_BIND, bind_nodes, 1);
}

/* The move cases start on node 0, or (placed) node 1, whatever --spread */
static int setup_4k_node0(char *buf, size_t size)
{
	return setup(buf, size, MADV_NOHUGEPAGE, MPOL_BIND, 1, 0);
}

static int setup_thp_node0(char *buf, size_t size)
{
	return setup(buf, size, MADV_HUGEPAGE, MPOL_BIND, 1, 0);
}

static int setup_hugetlb_node0(char *buf, size_t size)
{
	return setup(buf, size, -1, MPOL_BIND, 1, 0);
}

static int setup_4k_node1(char *buf, size_t size)
{
	return setup(buf, size, MADV_NOHUGEPAGE, MPOL_BIND, 2, 0);
}

static int setup_thp_node1(char *buf, size_t size)
{
	return setup(buf, size, MADV_HUGEPAGE, MPOL_BIND, 2, 0);
}

static int setup_interleave(char *buf, size_t size)
{
	return setup(buf, size, MADV_NOHUGEPAGE, MPOL_INTERLEAVE, 3, 0);
}

static const struct bench_case cases[] = {
	{ "4k",		setup_4k,		0, 0, EXPECT_NODE0 },
	{ "thp",	setup_thp,		0, 0, EXPECT_NODE0 },
	{ "hugetlb-2m",	setup_hugetlb,		1, 0, EXPECT_NODE0 },
	{ "sparse",	setup_sparse,		0, 0, EXPECT_SPARSE },
	{ "random",	setup_4k,		0, 1, EXPECT_NODE0 },
	{ "interleave",	setup_interleave,	0, 0, EXPECT_ALTERNATE },
	{ "call-1",	setup_4k,		0, 0, EXPECT_NODE0, 1 },
	{ "call-16",	setup_4k,		0, 0, EXPECT_NODE0, 16 },
	{ "call-128",	setup_4k,		0, 0, EXPECT_NODE0, 128 },
	{ "move-4k",	setup_4k_node0,		0, 0, EXPECT_NODE0, 0, MOVE_AWAY },
	{ "move-thp",	setup_thp_node0,	0, 0, EXPECT_NODE0, 0, MOVE_AWAY },
	{ "move-hugetlb-2m", setup_hugetlb_node0, 1, 0, EXPECT_NODE0, 0,
	  MOVE_AWAY },
	{ "placed-4k",	setup_4k_node1,		0, 0, EXPECT_NODE0, 0, MOVE_PLACED },
	{ "placed-thp",	setup_thp_node1,	0, 0, EXPECT_NODE0, 0, MOVE_PLACED },
	{ "vma-1",	setup_4k,		0, 0, EXPECT_NODE0, 0, 0, 1 },
	{ "vma-2",	setup_4k,		0, 0, EXPECT_NODE0, 0, 0, 2 },
	{ "vma-4",	setup_4k,		0, 0, EXPECT_NODE0, 0, 0, 4 },
	{ "vma-8",	setup_4k,		0, 0, EXPECT_NODE0, 0, 0, 8 },
};

/*
 * CALL_ROUNDS calls of @c->call pages each, in turn over the @n pages;
 * return the time taken, or 0 after a failed call.
 */
static uint64_t time_calls(const struct bench_case *c, void **pages,
			   int *status, size_t n)
{
	size_t i, off = 0;
	uint64_t t0 = now_ns();

	for (i = 0; i < CALL_ROUNDS; i++) {
		if (off + c->call > n)
			off = 0;
		if (sys_move_pages(c->call, pages + off, status + off)) {
			printf("FAIL %s: move_pages: %s\n", c->name,
			       strerror(errno));
			return 0;
		}
		off += c->call;
	}
	return now_ns() - t0;
}

/* Index of the page a pointer points to, before any shuffle. */
static int check(const struct bench_case *c, void **pages, int *status,
		 size_t n, char *buf)
{
	size_t i, page;
	int want = 0;

	for (i = 0; i < n; i++) {
		page = ((char *)pages[i] - buf) / PAGE;
		switch (c->expect) {
		case EXPECT_NODE0:
			/* Spread: node 0 fills first, then node 1 */
			want = bind_nodes == 3 && status[i] == 1;
			break;
		case EXPECT_SPARSE:
			want = page % (HPAGE / PAGE) ? -ENOENT :
			       bind_nodes == 3 && status[i] == 1;
			break;
		case EXPECT_ALTERNATE:
			want = status[i];
			if ((status[i] != 0 && status[i] != 1) ||
			    (i && status[i] == status[i - 1]))
				want = -1000;
			break;
		}
		if (status[i] != want) {
			printf("FAIL %s: page %zu status %d, want %d\n",
			       c->name, page, status[i], want);
			return -1;
		}
	}
	return 0;
}

static const char *hugetlb_pool =
	"/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages";

/* Set node @nid's pool of 2 MiB pages to @nr pages. */
static void set_hugetlb_pool(int nid, unsigned long nr)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), hugetlb_pool, nid);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "%lu\n", nr);
	fclose(f);
}

/*
 * Grow node @nid's pool of 2 MiB pages by @size; return its size before,
 * to give the memory back to the later cases.
 */
static unsigned long reserve_hugetlb(int nid, size_t size)
{
	unsigned long have = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), hugetlb_pool, nid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &have) != 1)
		have = 0;
	fclose(f);
	set_hugetlb_pool(nid, have + size / HPAGE + 1);
	return have;
}

/* Give the pools back what reserve_hugetlb() added. */
static void put_hugetlb(const unsigned long *pool, int both)
{
	set_hugetlb_pool(0, pool[0]);
	if (both)
		set_hugetlb_pool(1, pool[1]);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static long sys_move_to(unsigned long n, void **pages, const int *nodes,
			int *status)
{
	return syscall(SYS_move_pages, 0, n, pages, nodes, status,
		       MPOL_MF_MOVE);
}

/*
 * A move case: time moving the @n pages of @pages to node 1 with
 * @to1, moving them back to node 0 with @to0 (untimed) before each run
 * of a MOVE_AWAY case; check that every page ends on node 1.
 */
static int time_moves(const struct bench_case *c, void **pages, int *status,
		      const int *to0, const int *to1, size_t n, uint64_t *t)
{
	size_t i, busy = 0;
	int r;

	for (r = -1; r < runs; r++) {
		uint64_t t0;

		if (c->move == MOVE_AWAY && r >= 0 &&
		    sys_move_to(n, pages, to0, status)) {
			printf("FAIL %s: move back: %s\n", c->name,
			       strerror(errno));
			return -1;
		}
		t0 = now_ns();
		if (sys_move_to(n, pages, to1, status)) {
			printf("FAIL %s: move_pages: %s\n", c->name,
			       strerror(errno));
			return -1;
		}
		if (r >= 0)
			t[r] = now_ns() - t0;
		for (i = 0, busy = 0; i < n; i++)
			busy += status[i] != 1;
		if (sys_move_pages(n, pages, status)) {
			printf("FAIL %s: query: %s\n", c->name, strerror(errno));
			return -1;
		}
		for (i = 0; i < n; i++) {
			if (status[i] != 1) {
				printf("FAIL %s: page %zu on %d after the move\n",
				       c->name, i, status[i]);
				return -1;
			}
		}
	}
	if (busy)
		printf("note %s: %zu of %zu statuses not node 1\n", c->name,
		       busy, n);
	return 0;
}

static int run_case(const struct bench_case *c, size_t size)
{
	size_t n = size / PAGE, i;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	unsigned long pool[2] = { 0, 0 };
	/* Node 1's hugetlb pool grows too: spread, or room to move to */
	int both = bind_nodes == 3 || c->move;
	uint64_t t[64];
	size_t per;
	void **pages;
	int *status, *to0 = NULL, *to1 = NULL;
	char *map, *buf;
	int r;

	if (c->move || c->vma) {
		size_t max = c->move ? MOVE_SIZE : VMA_SIZE;

		size = size < max ? size : max;
		n = size / PAGE;
	}
	if (c->hugetlb) {
		/* Spread: half the buffer on each node; a move: all on each */
		pool[0] = reserve_hugetlb(0, c->move || !both ? size : size / 2);
		if (both)
			pool[1] = reserve_hugetlb(1, c->move ? size : size / 2);
		flags |= MAP_HUGETLB;
	}
	/* Over-map by 2 MiB so the buffer can be 2 MiB aligned. */
	map = mmap(NULL, size + HPAGE, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (map == MAP_FAILED) {
		printf("SKIP %s: mmap: %s\n", c->name, strerror(errno));
		if (c->hugetlb)
			put_hugetlb(pool, both);
		return c->hugetlb ? 0 : -1;
	}
	buf = (char *)(((uintptr_t)map + HPAGE - 1) & ~(HPAGE - 1));
	pages = malloc(n * sizeof(*pages));
	status = malloc(n * sizeof(*status));
	if (!pages || !status || c->setup(buf, size)) {
		printf("FAIL %s: setup\n", c->name);
		return -1;
	}
	for (i = 0; i < n; i++)
		pages[i] = buf + i * PAGE;
	/* VMAs of c->vma pages: every other one read only */
	for (i = c->vma; c->vma && i < n; i += 2 * c->vma)
		if (mprotect(buf + i * PAGE, c->vma * PAGE, PROT_READ)) {
			printf("FAIL %s: mprotect: %s\n", c->name,
			       strerror(errno));
			return -1;
		}
	if (c->shuffle) {
		srandom(1);
		for (i = n - 1; i > 0; i--) {
			size_t j = random() % (i + 1);
			void *p = pages[i];

			pages[i] = pages[j];
			pages[j] = p;
		}
	}
	if (c->move) {
		to0 = calloc(n, sizeof(*to0));
		to1 = malloc(n * sizeof(*to1));
		if (!to0 || !to1) {
			printf("FAIL %s: setup\n", c->name);
			return -1;
		}
		for (i = 0; i < n; i++)
			to1[i] = 1;
		if (time_moves(c, pages, status, to0, to1, n, t))
			return -1;
	}
	for (r = c->move ? runs : -1; r < runs; r++) {
		uint64_t t0;

		memset(status, 0x55, n * sizeof(*status));
		if (c->call) {
			t0 = time_calls(c, pages, status, n);
			if (!t0)
				return -1;
			if (r >= 0)
				t[r] = t0;
			/* Only the pages the calls reached were answered */
			if (check(c, pages, status,
				  CALL_ROUNDS * c->call < n ?
				  CALL_ROUNDS * c->call : n, buf))
				return -1;
			continue;
		}
		t0 = now_ns();
		if (sys_move_pages(n, pages, status)) {
			printf("FAIL %s: move_pages: %s\n", c->name,
			       strerror(errno));
			return -1;
		}
		if (r >= 0)
			t[r] = now_ns() - t0;
		if (check(c, pages, status, n, buf))
			return -1;
	}
	qsort(t, runs, sizeof(t[0]), cmp_u64);
	per = c->call ? CALL_ROUNDS : n;
	printf("case %s pages %zu ns_per_%s %.2f runs", c->name,
	       c->call ? c->call : n, c->call ? "call" : "page",
	       (double)t[runs / 2] / per);
	for (r = 0; r < runs; r++)
		printf("%c%.2f", r ? ',' : ' ', (double)t[r] / per);
	printf("\n");
	free(pages);
	free(status);
	free(to0);
	free(to1);
	munmap(map, size + HPAGE);
	if (c->hugetlb)
		put_hugetlb(pool, both);
	return 0;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--size BYTES[K|M|G]] [--runs N] [--spread] [CASE...]\n"
		"--spread: bind the node 0 cases to nodes 0 and 1 (node 0 fills first)\n"
		"cases: 4k thp hugetlb-2m sparse random interleave\n"
		"       call-1 call-16 call-128\n"
		"       move-4k move-thp move-hugetlb-2m placed-4k placed-thp\n"
		"       vma-1 vma-2 vma-4 vma-8\n"
		"       (default: all)\n",
		prog);
	exit(2);
}

static void describe_guest(void)
{
	char line[256], model[128] = "unknown";
	struct utsname u;
	FILE *f;
	int nodes = 0;

	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			snprintf(model, sizeof(model), "%s",
				 strchr(line, ':') + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	for (;;) {
		snprintf(line, sizeof(line),
			 "/sys/devices/system/node/node%d", nodes);
		if (access(line, F_OK))
			break;
		nodes++;
	}
	uname(&u);
	printf("guest kernel %s cpu \"%s\" nodes %d\n", u.release, model, nodes);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'r' },
		{ "spread", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	size_t size = 1UL << 30;
	int opt, i, j, err = 0;
	char *end;

	while ((opt = getopt_long(argc, argv, "s:r:S", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			size = strtoull(optarg, &end, 0);
			if (*end == 'K' || *end == 'k')
				size <<= 10;
			else if (*end == 'M' || *end == 'm')
				size <<= 20;
			else if (*end == 'G' || *end == 'g')
				size <<= 30;
			if (!size || size % HPAGE)
				print_usage(argv[0]);
			break;
		case 'S':
			bind_nodes = 3;
			break;
		case 'r':
			runs = atoi(optarg);
			if (runs < 1 || runs > 64)
				print_usage(argv[0]);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	for (j = optind; j < argc; j++) {
		for (i = 0; i < (int)ARRAY_SIZE(cases); i++)
			if (!strcmp(argv[j], cases[i].name))
				break;
		if (i == (int)ARRAY_SIZE(cases)) {
			fprintf(stderr, "%s: no case %s\n", argv[0], argv[j]);
			print_usage(argv[0]);
		}
	}
	describe_guest();
	for (i = 0; i < (int)ARRAY_SIZE(cases); i++) {
		int want = optind == argc;

		for (j = optind; j < argc; j++)
			want |= !strcmp(argv[j], cases[i].name);
		if (want && run_case(&cases[i], size))
			err = 1;
	}
	return err;
}
