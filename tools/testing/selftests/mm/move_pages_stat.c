// SPDX-License-Identifier: GPL-2.0
/*
 * move_pages(2) status queries (a NULL node list): the status of every
 * kind of mapping, of holes and of bad input, and the same answers for
 * pointer arrays of every shape and length.
 *
 * Each test asserts the statuses it can predict and prints the statuses
 * of its layouts as "# dump" lines, which the pagestat harness compares
 * between the stock and the patched kernel ("# dump P" lines also between
 * the 64-bit and the 32-bit build of this test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pthread.h>
#include <sys/ioctl.h>
#include <lib/test_hmm_uapi.h>

#include "../kselftest_harness.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB		(30 << 26)
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB		(21 << 26)
#endif
#define MPOL_DEFAULT		0
#define MPOL_BIND		2
#define MPOL_MF_MOVE		2
#define MPOL_MF_MOVE_ALL	4

#define PSZ		4096UL
#define HPSZ		(2UL << 20)
#define GPSZ		0x40000000UL
#define UNSET		(-1000)

/* Read fault a page. */
static void touch_read(const char *p)
{
	(void)__atomic_load_n(p, __ATOMIC_RELAXED);
}

static long move_pages(int pid, unsigned long n, void **pages, int *status,
		       int flags)
{
	return syscall(SYS_move_pages, pid, n, pages, NULL, status, flags);
}

/*
 * The statuses of @n pages of process @pid, 16 at a time: stock 6.12
 * misreads a compat caller's longer queries.
 */
static long query_16(int pid, unsigned long n, void **pages, int *status)
{
	unsigned long i;
	long ret = 0;

	for (i = 0; i < n && !ret; i += 16)
		ret = move_pages(pid, n - i < 16 ? n - i : 16, pages + i,
				 status + i, 0);
	return ret;
}

static int bind_node(void *p, size_t len, int node)
{
	unsigned long mask = 1UL << node;

	return syscall(SYS_mbind, p, len, MPOL_BIND, &mask, 8 * sizeof(mask),
		       0);
}

static int nr_nodes(void)
{
	char path[64];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d",
			 n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

/* Map @len bytes aligned to @align (a power of two). */
static char *map_aligned(size_t len, size_t align, int prot, int flags)
{
	char *p = mmap(NULL, len + align, prot, flags, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + align - a);
	return a;
}

/* @n 2 MiB-aligned extents for THPs (MADV_HUGEPAGE), bound to node 0 */
static char *thp_region(unsigned long n)
{
	char *p = map_aligned(n * HPSZ, HPSZ, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS);

	if (!p || madvise(p, n * HPSZ, MADV_HUGEPAGE) ||
	    bind_node(p, n * HPSZ, 0))
		return NULL;
	return p;
}

/*
 * Print statuses as a "# dump" line, run-length encoded, alternating
 * pairs too: "0x3 [0 -2]x500 1".
 */
static void print_statuses(const char *kind, const char *name,
			   const int *st, unsigned long n)
{
	unsigned long i = 0, j;

	printf("# dump %s %s:", kind, name);
	while (i < n) {
		for (j = i + 1; j < n && st[j] == st[i]; j++)
			;
		if (j - i == 1 && i + 3 < n && st[i + 2] == st[i] &&
		    st[i + 3] == st[i + 1]) {
			for (j = i + 2; j + 1 < n && st[j] == st[i] &&
			     st[j + 1] == st[i + 1]; j += 2)
				;
			printf(" [%d %d]x%lu", st[i], st[i + 1], (j - i) / 2);
		} else if (j - i > 1) {
			printf(" %dx%lu", st[i], j - i);
		} else {
			printf(" %d", st[i]);
		}
		i = j;
	}
	printf("\n");
	fflush(stdout);
}

/* Query @n pages, assert success, and return the statuses. */
static int *query(struct __test_metadata *_metadata, void **pages,
		  unsigned long n)
{
	int *st = malloc((n + 1) * sizeof(*st));
	unsigned long i;

	ASSERT_TRUE(!!st);
	for (i = 0; i <= n; i++)
		st[i] = UNSET;
	ASSERT_EQ(0, move_pages(0, n, pages, st, 0));
	/* Nothing is written past the end */
	ASSERT_EQ(UNSET, st[n]);
	return st;
}

static void **page_array(char *base, unsigned long n, unsigned long step)
{
	void **pages = malloc(n * sizeof(*pages));
	unsigned long i;

	for (i = 0; i < n; i++)
		pages[i] = base + i * step;
	return pages;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

#define FAIL_PAGE_ALLOC	"/sys/kernel/debug/fail_page_alloc/"

/*
 * move_pages(0, @n, @pages, @nodes, @st, @flags) with this thread's next
 * page allocation made to fail by fail_page_alloc (the debug kernels have
 * it), the call's return value in *@ret.  Returns 1 if an allocation was
 * made to fail, 0 if the call made none, -ENODEV if this kernel cannot
 * fail one, -1 if the knobs cannot be read back.
 */
static int move_pages_failing_alloc(unsigned long n, void **pages,
				    const int *nodes, int *st, int flags,
				    long *ret)
{
	static const char *const knob[][2] = {
		{ "task-filter", "Y" }, { "ignore-gfp-wait", "N" },
		{ "ignore-gfp-highmem", "N" }, { "min-order", "0" },
		{ "probability", "100" }, { "interval", "1" },
		{ "space", "0" }, { "verbose", "0" }, { "times", "1" },
	};
	char path[128];
	unsigned int i;
	int fd, times = -1;
	ssize_t off;
	FILE *f;

	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	for (i = 0; i < ARRAY_SIZE(knob); i++) {
		snprintf(path, sizeof(path), FAIL_PAGE_ALLOC "%s", knob[i][0]);
		if (write_file(path, knob[i][1]))
			return -ENODEV;
	}
	fd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	if (fd < 0)
		return -ENODEV;
	/* Nothing between the two writes but the call may allocate */
	if (write(fd, "1", 1) != 1) {
		close(fd);
		return -1;
	}
	*ret = syscall(SYS_move_pages, 0, n, pages, nodes, st, flags);
	off = write(fd, "0", 1);
	close(fd);
	f = fopen(FAIL_PAGE_ALLOC "times", "r");
	if (off != 1 || !f || fscanf(f, "%d", &times) != 1)
		times = -1;
	if (f)
		fclose(f);
	return times < 0 ? -1 : times == 0;
}

FIXTURE(stat) {
	int nodes;
};

FIXTURE_SETUP(stat)
{
	unsigned long node0 = 1;

	self->nodes = nr_nodes();
	if (self->nodes < 2)
		SKIP(return, "needs two NUMA nodes, the system has %d",
		     self->nodes);
	/*
	 * Memory without a VMA policy (page cache, memfd) goes to node 0
	 * whichever CPU the test runs on, so that runs compare.
	 */
	ASSERT_EQ(0, syscall(SYS_set_mempolicy, MPOL_BIND, &node0,
			     8 * sizeof(node0)));
}

FIXTURE_TEARDOWN(stat)
{
}

/*
 * Anonymous 4 KiB pages of every kind, one page each, THP disabled:
 *  0,1  written, bound to node 0          -> 0
 *  2,3  written, bound to node 1          -> 1
 *  4    untouched                         -> -ENOENT
 *  5    read, never written (zero page)   -> -EFAULT
 *  6    written, then MADV_DONTNEED       -> -ENOENT
 *  7    written and mlocked               -> 0
 *  8    written, then PROT_NONE           -> 0 (present, protnone)
 *  9    written, then PROT_READ           -> 0
 * 10,11 unmapped                          -> -EFAULT
 * 12-15 untouched                         -> -ENOENT
 */
TEST_F(stat, anon_kinds)
{
	static const int want[16] = {
		0, 0, 1, 1, -ENOENT, -EFAULT, -ENOENT, 0, 0, 0,
		-EFAULT, -EFAULT, -ENOENT, -ENOENT, -ENOENT, -ENOENT,
	};
	char *p = map_aligned(16 * PSZ, HPSZ, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS);
	void **pages;
	int *st, i;

	ASSERT_TRUE(!!p);
	ASSERT_EQ(0, madvise(p, 16 * PSZ, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, bind_node(p, 2 * PSZ, 0));
	ASSERT_EQ(0, bind_node(p + 2 * PSZ, 2 * PSZ, 1));
	ASSERT_EQ(0, bind_node(p + 6 * PSZ, 4 * PSZ, 0));
	for (i = 0; i < 4; i++)
		p[i * PSZ] = 1;
	touch_read(&p[5 * PSZ]);
	p[6 * PSZ] = 1;
	ASSERT_EQ(0, madvise(p + 6 * PSZ, PSZ, MADV_DONTNEED));
	ASSERT_EQ(0, mlock(p + 7 * PSZ, PSZ));
	p[8 * PSZ] = 1;
	p[9 * PSZ] = 1;
	ASSERT_EQ(0, mprotect(p + 8 * PSZ, PSZ, PROT_NONE));
	ASSERT_EQ(0, mprotect(p + 9 * PSZ, PSZ, PROT_READ));
	ASSERT_EQ(0, munmap(p + 10 * PSZ, 2 * PSZ));

	pages = page_array(p, 16, PSZ);
	st = query(_metadata, pages, 16);
	print_statuses("N", "anon_kinds", st, 16);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(want[i], st[i]) TH_LOG("page %d", i);
}

/*
 * Transparent huge pages, three 2 MiB-aligned extents with MADV_HUGEPAGE:
 *  [0, 2M)   written on node 0: a THP          -> 0
 *  [2M, 4M)  read only: the huge zero page     -> -EFAULT
 *  [4M, 6M)  written, then its last page zapped -> 0 x511, -ENOENT
 */
TEST_F(stat, thp)
{
	unsigned long n = 3 * HPSZ / PSZ, i;
	char *p = thp_region(3);
	void **pages;
	int *st;

	ASSERT_TRUE(!!p);
	p[0] = 1;
	touch_read(&p[HPSZ]);
	p[2 * HPSZ] = 1;
	/*
	 * Keep khugepaged from collapsing the zapped THP again (511 present
	 * PTEs are within max_ptes_none), which made page 1535 present by
	 * chance.
	 */
	ASSERT_EQ(0, madvise(p + 2 * HPSZ, HPSZ, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, madvise(p + 3 * HPSZ - PSZ, PSZ, MADV_DONTNEED));

	pages = page_array(p, n, PSZ);
	st = query(_metadata, pages, n);
	print_statuses("N", "thp", st, n);
	for (i = 0; i < n; i++) {
		int want = 0;

		if (i >= 512 && i < 1024)
			want = -EFAULT;
		else if (i == n - 1)
			want = -ENOENT;
		/* A THP that fell back to 4 KiB pages leaves holes */
		if (i < 512 && st[i] == -ENOENT)
			SKIP(return, "no THP available");
		EXPECT_EQ(want, st[i]) TH_LOG("page %lu", i);
	}
}

static void hugetlb_case(struct __test_metadata *_metadata, size_t size,
			 int sizeflag, const char *name)
{
	unsigned long n = 2 * size / PSZ, i;
	void **pages;
	char *p;
	int *st;

	/*
	 * The task's node 0 binding would make mmap() reserve both pages
	 * from node 0's pool: drop it, the VMA policies place the pages.
	 */
	ASSERT_EQ(0, syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0));
	p = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | sizeflag, -1, 0);
	if (p == MAP_FAILED)
		SKIP(return, "no %s hugetlb pages: %s", name, strerror(errno));
	ASSERT_EQ(0, bind_node(p, size, 0));
	ASSERT_EQ(0, bind_node(p + size, size, 1));
	if (madvise(p, 2 * size, MADV_POPULATE_WRITE))
		SKIP(return, "cannot fault %s hugetlb pages on both nodes: %s",
		     name, strerror(errno));

	pages = page_array(p, n, PSZ);
	st = query(_metadata, pages, n);
	print_statuses("N", name, st, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(i < n / 2 ? 0 : 1, st[i]) TH_LOG("page %lu", i);

	/* PROT_NONE: on x86 a PROT_NONE PUD is not pud_present() */
	ASSERT_EQ(0, mprotect(p, size, PROT_NONE));
	free(st);
	st = query(_metadata, pages, n);
	print_statuses("N", size == GPSZ ? "hugetlb_1g_protnone" :
		       "hugetlb_2m_protnone", st, n);
	EXPECT_EQ(size == GPSZ ? -ENOENT : 0, st[0]);
	EXPECT_EQ(1, st[n - 1]);
	munmap(p, 2 * size);
}

/* Two hugetlb pages, the first on node 0, the second on node 1. */
TEST_F(stat, hugetlb_2m)
{
	hugetlb_case(_metadata, HPSZ, MAP_HUGE_2MB, "hugetlb_2m");
}

TEST_F_TIMEOUT(stat, hugetlb_1g, 600)
{
	if (sizeof(void *) < 8)
		SKIP(return, "1 GiB pages need a 64-bit address space");
	hugetlb_case(_metadata, GPSZ, MAP_HUGE_1GB, "hugetlb_1g");
}

/*
 * Move @n pages from @p on to node 1, every one of them on node 0 and
 * mapped by huge pages of @hsize: every status must be node 1, the pages
 * of a huge page that an earlier address already isolated included, and
 * every page must be on node 1 afterwards.
 */
static void move_huge(struct __test_metadata *_metadata, char *p,
		      unsigned long n, size_t hsize, const char *name)
{
	void **pages = page_array(p, n, PSZ);
	int *nodes = malloc(n * sizeof(*nodes));
	int *st = malloc(n * sizeof(*st));
	unsigned long i, bad = 0;

	ASSERT_TRUE(pages && nodes && st);
	for (i = 0; i < n; i++) {
		nodes[i] = 1;
		st[i] = UNSET;
	}
	ASSERT_EQ(0, syscall(SYS_move_pages, 0, n, pages, nodes, st,
			     MPOL_MF_MOVE));
	for (i = 0; i < n; i++)
		if (st[i] != 1 && !bad++)
			TH_LOG("%s: page %lu (%lu of its huge page): status %d",
			       name, i, i % (hsize / PSZ), st[i]);
	EXPECT_EQ(0, bad) TH_LOG("%s: %lu statuses not node 1", name, bad);
	free(st);
	st = query(_metadata, pages, n);
	for (i = 0, bad = 0; i < n; i++)
		bad += st[i] != 1;
	EXPECT_EQ(0, bad) TH_LOG("%s: %lu pages not on node 1", name, bad);
	free(st);
	free(nodes);
	free(pages);
}

/*
 * Four THPs on node 0 moved to node 1.  Stock 6.12 reports -EBUSY for
 * the address after the first of each THP, which the first one isolated,
 * though the THP moves (the harness names this the expected difference).
 */
TEST_F(stat, move_thp)
{
	unsigned long n = 4 * HPSZ / PSZ, i;
	char *p = thp_region(4);
	void **pages;
	int *st;

	ASSERT_TRUE(!!p);
	for (i = 0; i < 4; i++)
		p[i * HPSZ] = 1;
	/* One byte written per 2 MiB: all of them present only as THPs */
	pages = page_array(p, n, PSZ);
	st = query(_metadata, pages, n);
	free(pages);
	for (i = 0; i < n; i++)
		if (st[i] != 0)
			SKIP(return, "page %lu: %d, not a THP on node 0", i,
			     st[i]);
	free(st);
	move_huge(_metadata, p, n, HPSZ, "move_thp");
	munmap(p, 4 * HPSZ);
}

/* The same with four 2 MiB hugetlb pages. */
TEST_F(stat, move_hugetlb_2m)
{
	unsigned long n = 4 * HPSZ / PSZ, i;
	void **pages;
	char *p;
	int *st;

	/* As in hugetlb_case(): the VMA policy places the pages */
	ASSERT_EQ(0, syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0));
	p = mmap(NULL, 4 * HPSZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1,
		 0);
	if (p == MAP_FAILED)
		SKIP(return, "no 2 MiB hugetlb pages: %s", strerror(errno));
	ASSERT_EQ(0, bind_node(p, 4 * HPSZ, 0));
	if (madvise(p, 4 * HPSZ, MADV_POPULATE_WRITE))
		SKIP(return, "cannot fault 2 MiB hugetlb pages on node 0: %s",
		     strerror(errno));
	pages = page_array(p, n, PSZ);
	st = query(_metadata, pages, n);
	free(pages);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, st[i]) TH_LOG("page %lu", i);
	free(st);
	move_huge(_metadata, p, n, HPSZ, "move_hugetlb_2m");
	munmap(p, 4 * HPSZ);
}

/*
 * Shared and file-backed pages, four pages of each, all written on
 * node 0 unless said otherwise:
 *  memfd MAP_SHARED; MAP_SHARED|MAP_ANONYMOUS; a private mapping of a
 *  two-page tmpfs file with page 0 read (page cache) and page 1 written
 *  (COW), pages 2-3 past the end of the file (-ENOENT); an mremap()ed range and the range it
 *  left (-EFAULT); a fork()ed child's view of the parent's pages.
 */
TEST_F(stat, shared)
{
	char *mfd, *shm, *priv, *old, *moved;
	void *pages[20];
	int fd, i, *st, status;
	char buf[2 * 4096];
	pid_t pid;

	fd = memfd_create("move_pages_stat", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4 * PSZ));
	mfd = mmap(NULL, 4 * PSZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(mfd != MAP_FAILED);
	shm = mmap(NULL, 4 * PSZ, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(shm != MAP_FAILED);
	ASSERT_EQ(0, bind_node(mfd, 4 * PSZ, 0));
	ASSERT_EQ(0, bind_node(shm, 4 * PSZ, 0));
	memset(mfd, 1, 4 * PSZ);
	memset(shm, 1, 4 * PSZ);

	close(fd);
	fd = open("/tmp/move_pages_stat.file", O_RDWR | O_CREAT | O_TRUNC,
		  0600);
	ASSERT_LE(0, fd);
	memset(buf, 2, sizeof(buf));
	ASSERT_EQ((ssize_t)sizeof(buf), write(fd, buf, sizeof(buf)));
	priv = mmap(NULL, 4 * PSZ, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_TRUE(priv != MAP_FAILED);
	touch_read(&priv[0]);
	priv[PSZ] = 3;
	close(fd);
	unlink("/tmp/move_pages_stat.file");

	old = mmap(NULL, 4 * PSZ, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(old != MAP_FAILED);
	ASSERT_EQ(0, bind_node(old, 4 * PSZ, 0));
	memset(old, 1, 4 * PSZ);
	moved = mremap(old, 4 * PSZ, 4 * PSZ, MREMAP_MAYMOVE | MREMAP_FIXED,
		       shm + 64 * PSZ);
	ASSERT_TRUE(moved != MAP_FAILED);

	for (i = 0; i < 4; i++) {
		pages[i] = mfd + i * PSZ;
		pages[4 + i] = shm + i * PSZ;
		pages[8 + i] = priv + i * PSZ;
		pages[12 + i] = moved + i * PSZ;
		pages[16 + i] = old + i * PSZ;
	}
	st = query(_metadata, pages, 20);
	print_statuses("N", "shared", st, 20);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, st[i]) TH_LOG("page %d", i);
	/*
	 * Page 0 is the page cache's, page 1 the COW copy; the file ends
	 * before pages 2-3, so no fault-around can map them.
	 */
	EXPECT_EQ(0, st[8]);
	EXPECT_EQ(0, st[9]);
	EXPECT_EQ(-ENOENT, st[10]);
	EXPECT_EQ(-ENOENT, st[11]);
	for (i = 12; i < 16; i++)
		EXPECT_EQ(0, st[i]) TH_LOG("page %d", i);
	for (i = 16; i < 20; i++)
		EXPECT_EQ(-EFAULT, st[i]) TH_LOG("page %d", i);

	/*
	 * A fork()ed child shares the parent's private anonymous pages, so
	 * it sees them where the parent does; fork() copies no PTEs of
	 * shared mappings, so those are -ENOENT until the child faults.
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int cst[20];

		if (move_pages(0, 20, pages, cst, 0))
			_exit(2);
		print_statuses("N", "shared_child", cst, 20);
		_exit(memcmp(cst + 12, st + 12, 8 * sizeof(int)) ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * Addresses with no VMA: NULL, a gap, the last page below the top of the
 * address space, and (64-bit) a kernel address and a non-canonical one.
 */
TEST_F(stat, holes)
{
	char *p = mmap(NULL, 3 * PSZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *pages[6];
	int *st, i, n = 3;

	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_EQ(0, munmap(p + PSZ, PSZ));
	pages[0] = NULL;
	pages[1] = p + PSZ;
	pages[2] = (void *)(-2 * PSZ);
	if (sizeof(void *) == 8) {
		pages[3] = (void *)0x00007ffffffff000UL;
		pages[4] = (void *)0xffffffff81000000UL;
		pages[5] = (void *)0x8000000000000000UL;
		n = 6;
	}
	st = query(_metadata, pages, n);
	print_statuses("N", "holes", st, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(-EFAULT, st[i]) TH_LOG("address %d", i);
}

/*
 * Pages 0-55 written, on node 0 and 1 alternately in pairs, 40-47 then
 * unmapped; 56-63 untouched.
 */
static char *mixed_region(void)
{
	char *p = map_aligned(64 * PSZ, HPSZ, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS);
	int i;

	if (!p)
		return NULL;
	if (madvise(p, 64 * PSZ, MADV_NOHUGEPAGE))
		return NULL;
	for (i = 0; i < 56; i += 2)
		if (bind_node(p + i * PSZ, 2 * PSZ, (i / 2) % 2))
			return NULL;
	for (i = 0; i < 56; i++)
		p[i * PSZ] = 1;
	munmap(p + 40 * PSZ, 8 * PSZ);
	return p;
}

/*
 * The same pages through pointer arrays of every shape: each entry must
 * get the status of its page in the consecutive query.
 */
TEST_F_TIMEOUT(stat, arrays, 600)
{
	static const unsigned long lens[] = {
		1, 2, 15, 16, 17, 63, 64, 65, 255, 256, 257, 511, 512, 513,
		1023, 1024, 1025, 3000,
	};
	char *p = mixed_region();
	unsigned long n, i, k;
	uint64_t seed = 1;
	int *base, *st;
	void **pages;
	char name[64];

	ASSERT_TRUE(!!p);
	pages = page_array(p, 64, PSZ);
	base = query(_metadata, pages, 64);
	print_statuses("P", "mixed", base, 64);
	for (i = 0; i < 56; i++)
		EXPECT_EQ(i >= 40 && i < 48 ? -EFAULT : (int)(i / 2) % 2,
			  base[i]) TH_LOG("page %lu", i);
	free(pages);

	for (k = 0; k < ARRAY_SIZE(lens); k++) {
		static const char *const shapes[] = {
			"consecutive", "unaligned", "duplicated", "reversed",
			"shuffled",
		};
		unsigned long s;

		n = lens[k];
		for (s = 0; s < 5; s++) {
			pages = malloc(n * sizeof(*pages));
			ASSERT_TRUE(!!pages);
			for (i = 0; i < n; i++) {
				unsigned long pg = i % 64;

				switch (s) {
				case 1:	/* into the middle of the page */
					pages[i] = p + pg * PSZ + 123 + i % 7;
					break;
				case 2:
					pages[i] = p + (i / 2 % 64) * PSZ;
					break;
				case 3:
					pages[i] = p + (63 - pg) * PSZ;
					break;
				case 4:
					seed = seed * 6364136223846793005ULL +
					       1442695040888963407ULL;
					pages[i] = p + (seed >> 33) % 64 * PSZ;
					break;
				default:
					pages[i] = p + pg * PSZ;
				}
			}
			st = query(_metadata, pages, n);
			snprintf(name, sizeof(name), "%s_%lu", shapes[s], n);
			print_statuses("P", name, st, n);
			for (i = 0; i < n; i++) {
				unsigned long pg = ((char *)pages[i] - p) / PSZ;

				ASSERT_EQ(base[pg], st[i])
					TH_LOG("%s: entry %lu, page %lu",
					       name, i, pg);
			}
			free(st);
			free(pages);
		}
	}
}

/*
 * Arrays of many lengths over pages whose even pages are written on
 * node 0 and odd pages untouched: the shape that a compat caller's
 * array was misread for past its 16th entry.  Also arrays that end
 * exactly at an unmapped page: the exact length succeeds, one more
 * entry fails with -EFAULT after the statuses of the 16-entry chunks
 * before the unreadable entry's, and nothing else is written.
 */
TEST_F_TIMEOUT(stat, lengths, 600)
{
	static const unsigned long lens[] = {
		1, 15, 16, 17, 511, 512, 513, 1000, 100000,
	};
	unsigned long k, i, n;

	for (k = 0; k < ARRAY_SIZE(lens); k++) {
		size_t asz, len;
		char *p, *arr;
		void **pages;
		int *st, *st2;
		char name[32];

		n = lens[k];
		len = n * PSZ;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(p != MAP_FAILED);
		ASSERT_EQ(0, madvise(p, len, MADV_NOHUGEPAGE));
		ASSERT_EQ(0, bind_node(p, len, 0));
		for (i = 0; i < n; i += 2)
			p[i * PSZ] = 1;

		/* The array ends where an unmapped page begins */
		asz = (n * sizeof(void *) + PSZ - 1) & ~(PSZ - 1);
		arr = mmap(NULL, asz + PSZ, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(arr != MAP_FAILED);
		ASSERT_EQ(0, munmap(arr + asz, PSZ));
		pages = (void **)(arr + asz - n * sizeof(void *));
		for (i = 0; i < n; i++)
			pages[i] = p + i * PSZ;

		st = query(_metadata, pages, n);
		snprintf(name, sizeof(name), "length_%lu", n);
		print_statuses("P", name, st, n);
		for (i = 0; i < n; i++)
			ASSERT_EQ(i % 2 ? -ENOENT : 0, st[i])
				TH_LOG("%s: entry %lu", name, i);

		st2 = malloc((n + 2) * sizeof(*st2));
		ASSERT_TRUE(!!st2);
		for (i = 0; i < n + 2; i++)
			st2[i] = UNSET;
		errno = 0;
		EXPECT_EQ(-1, move_pages(0, n + 1, pages, st2, 0));
		EXPECT_EQ(EFAULT, errno);
		/*
		 * The kernel reads the array 16 entries at a time: the
		 * chunks before the one with the unreadable entry n are
		 * answered, nothing from that chunk on.
		 */
		snprintf(name, sizeof(name), "length_%lu_fault", n);
		print_statuses("P", name, st2, n + 2);
		for (i = 0; i < n + 2; i++)
			ASSERT_EQ(i < (n & ~15UL) ? (i % 2 ? -ENOENT : 0) : UNSET,
				  st2[i])
				TH_LOG("%s: entry %lu", name, i);

		free(st);
		free(st2);
		munmap(arr, asz);
		munmap(p, len);
	}
}

/*
 * Device-private pages (lib/test_hmm.c, CONFIG_TEST_HMM): pages 4-11 of
 * 16 written pages are migrated to the dmirror device.  Their PTEs then
 * hold device-private entries, which stock answers -ENOENT; the others
 * stay on node 0.
 */
/*
 * 16 pages written on node 0, of which pages 4-11 are then migrated to the
 * dmirror device (device-private entries); NULL, the test skipped, when
 * there is no such device.
 */
static char *device_private_pages(struct __test_metadata *_metadata,
				  int *fd)
{
	struct hmm_dmirror_cmd cmd = { 0 };
	char *p;

	*fd = open("/dev/hmm_dmirror0", O_RDWR);
	if (*fd < 0)
		SKIP(return NULL, "no /dev/hmm_dmirror0 (CONFIG_TEST_HMM): %s",
		     strerror(errno));
	p = mmap(NULL, 16 * PSZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_EQ(0, madvise(p, 16 * PSZ, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, bind_node(p, 16 * PSZ, 0));
	memset(p, 1, 16 * PSZ);
	cmd.addr = (uintptr_t)(p + 4 * PSZ);
	cmd.ptr = (uintptr_t)malloc(8 * PSZ);
	cmd.npages = 8;
	if (ioctl(*fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd))
		SKIP(return NULL, "cannot migrate to the dmirror device: %s",
		     strerror(errno));
	ASSERT_EQ(8, cmd.cpages);
	return p;
}

TEST_F(stat, device_private)
{
	void **pages;
	int fd, i, *st;
	char *p = device_private_pages(_metadata, &fd);

	if (!p)
		return;
	pages = page_array(p, 16, PSZ);
	st = query(_metadata, pages, 16);
	print_statuses("N", "device_private", st, 16);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(i >= 4 && i < 12 ? -ENOENT : 0, st[i])
			TH_LOG("page %d", i);
	close(fd);
}

#define RACE_PAGES	(4 * HPSZ / PSZ)
#define RACE_QUERIES	300

struct race {
	char *p;
	int stop;
	int bad;	/* units: statuses no state could give */
};

/*
 * Change the mapping under the queries: unmap and map again, change
 * protections, zap, make THPs and collapse them, fault pages back in.
 */
static void *race_mutate(void *arg)
{
	struct race *r = arg;
	unsigned int i = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		char *q = r->p + (i % 4) * HPSZ;

		switch (i++ % 6) {
		case 0:
			munmap(q, HPSZ);
			mmap(q, HPSZ, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			break;
		case 1:
			mprotect(q, HPSZ, PROT_NONE);
			mprotect(q, HPSZ, PROT_READ | PROT_WRITE);
			break;
		case 2:
			madvise(q, HPSZ, MADV_DONTNEED);
			break;
		case 3:
			madvise(q, HPSZ, MADV_HUGEPAGE);
			memset(q, 1, HPSZ);
			break;
		case 4:
			madvise(q, HPSZ, 25 /* MADV_COLLAPSE */);
			break;
		default:
			memset(q, 2, HPSZ / 2);
			touch_read(q + HPSZ - PSZ);
			break;
		}
	}
	return NULL;
}

/*
 * Query a range in a loop while another thread changes it: each status
 * must be one that some state of the range gives (a node, -ENOENT for
 * nothing mapped, -EFAULT for no VMA or the zero pages), and the kernel
 * must not warn (the harness reads the console).
 */
TEST_F_TIMEOUT(stat, concurrent, 600)
{
	struct race r = { 0 };
	void **pages;
	pthread_t t;
	int *st, q;
	unsigned long i;

	r.p = map_aligned(4 * HPSZ, HPSZ, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS);
	ASSERT_TRUE(!!r.p);
	memset(r.p, 1, 4 * HPSZ);
	pages = page_array(r.p, RACE_PAGES, PSZ);
	st = malloc(RACE_PAGES * sizeof(*st));
	ASSERT_TRUE(!!st);
	ASSERT_EQ(0, pthread_create(&t, NULL, race_mutate, &r));
	for (q = 0; q < RACE_QUERIES; q++) {
		if (move_pages(0, RACE_PAGES, pages, st, 0)) {
			r.bad++;
			break;
		}
		for (i = 0; i < RACE_PAGES; i++)
			if (st[i] != -ENOENT && st[i] != -EFAULT &&
			    (st[i] < 0 || st[i] >= self->nodes))
				r.bad++;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.bad);
}

/*
 * A query of more than a chunk allocates a page for its pointers; made to
 * fail, the chunk on the stack gives the same statuses.
 */
TEST_F(stat, page_alloc_fails)
{
	char *p = mixed_region();
	void **pages = page_array(p, 64, PSZ);
	int *want, *st = malloc(65 * sizeof(*st));
	int failed, i;
	long ret;

	ASSERT_TRUE(p && pages && st);
	want = query(_metadata, pages, 64);
	for (i = 0; i <= 64; i++)
		st[i] = UNSET;
	failed = move_pages_failing_alloc(64, pages, NULL, st, 0, &ret);
	if (failed == -ENODEV)
		SKIP(return, "no fail_page_alloc in this kernel");
	ASSERT_LE(0, failed);
	if (!failed)
		SKIP(return, "the query allocates no page");
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, memcmp(want, st, 65 * sizeof(*st)));
}

static char *ro_page(void)
{
	char *p = mmap(NULL, PSZ, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);

	return p == MAP_FAILED ? NULL : p;
}

/* Bad arguments: the return value and errno stock gives. */
TEST_F(stat, bad_input)
{
	char *p = mmap(NULL, 2 * PSZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = ro_page();
	void *pages[4] = { p, p, p, p };
	int st[4], status;
	pid_t pid;

	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_TRUE(!!ro);
	p[0] = 1;

	/* nr_pages == 0 does nothing */
	EXPECT_EQ(0, move_pages(0, 0, pages, st, 0));
	/* pages unmapped */
	errno = 0;
	EXPECT_EQ(-1, move_pages(0, 4, (void **)(p + PSZ * 64), st, 0));
	EXPECT_EQ(EFAULT, errno);
	/* status read-only */
	errno = 0;
	EXPECT_EQ(-1, move_pages(0, 4, pages, (int *)ro, 0));
	EXPECT_EQ(EFAULT, errno);
	/* status NULL */
	errno = 0;
	EXPECT_EQ(-1, move_pages(0, 4, pages, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	/* invalid flags */
	errno = 0;
	EXPECT_EQ(-1, move_pages(0, 4, pages, st, 0x100));
	EXPECT_EQ(EINVAL, errno);
	/* a pid that does not exist */
	errno = 0;
	EXPECT_EQ(-1, move_pages(0x3fffffff, 4, pages, st, 0));
	EXPECT_EQ(ESRCH, errno);
	/* MPOL_MF_MOVE is accepted with a NULL node list */
	EXPECT_EQ(0, move_pages(0, 4, pages, st, MPOL_MF_MOVE));

	/* Unprivileged: MPOL_MF_MOVE_ALL and another user's process */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		errno = 0;
		if (move_pages(0, 4, pages, st, MPOL_MF_MOVE_ALL) != -1 ||
		    errno != EPERM)
			_exit(1);
		errno = 0;
		if (move_pages(getppid(), 4, pages, st, 0) != -1 ||
		    errno != EPERM)
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (WEXITSTATUS(status) == 3)
		SKIP(return, "cannot drop privileges");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A huge nr_pages over a 4-entry array that ends where a hole starts:
 * -EFAULT, and no status is written.
 */
TEST_F(stat, bad_huge_nr)
{
	char *arr = mmap(NULL, 2 * PSZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i, st[4] = { UNSET, UNSET, UNSET, UNSET };
	void **end4;

	ASSERT_TRUE(arr != MAP_FAILED);
	ASSERT_EQ(0, munmap(arr + PSZ, PSZ));
	arr[0] = 1;
	end4 = (void **)(arr + PSZ) - 4;
	for (i = 0; i < 4; i++)
		end4[i] = arr;
	errno = 0;
	EXPECT_EQ(-1, move_pages(0, ~0UL >> 1, end4, st, 0));
	EXPECT_EQ(EFAULT, errno);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(UNSET, st[i]) TH_LOG("status %d written", i);
}

/*
 * A status array that turns read-only halfway: -EFAULT, and what was
 * written before the fault is right.
 */
TEST_F(stat, bad_status_halfway)
{
	char *p = mmap(NULL, 3 * PSZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long n = 2 * PSZ / sizeof(int), i;
	void **pages;
	int *sb;

	ASSERT_TRUE(p != MAP_FAILED);
	ASSERT_EQ(0, bind_node(p, PSZ, 0));
	p[0] = 1;
	pages = page_array(p, n, 0);
	sb = (int *)(p + PSZ);
	for (i = 0; i < n; i++)
		sb[i] = UNSET;
	ASSERT_EQ(0, mprotect(p + 2 * PSZ, PSZ, PROT_READ));
	errno = 0;
	EXPECT_EQ(-1, move_pages(0, n, pages, sb, 0));
	EXPECT_EQ(EFAULT, errno);
	for (i = 0; i < n / 2; i++)
		if (sb[i] != 0 && sb[i] != UNSET)
			break;
	EXPECT_EQ(n / 2, i) TH_LOG("a wrong status was written");
	free(pages);
}

/*
 * move_pages(2) with a node list.  Each move prints "# dump" lines that
 * the harness compares between the stock and the patched kernel: the
 * return value or -errno (R), the statuses (M), the node of every page
 * afterwards (F), and the pgmigrate_success and pgmigrate_fail deltas of
 * /proc/vmstat (V).  The one difference the harness allows is in M lines:
 * stock 6.12's -EBUSY for an address of a folio that an earlier address
 * queued, where the patched kernel reports the folio's node.
 */
static long read_vmstat(const char *name)
{
	size_t len = strlen(name);
	FILE *f = fopen("/proc/vmstat", "r");
	char line[128];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ')
			v = atol(line + len + 1);
	fclose(f);
	return v;
}

struct move {
	long ret;	/* what move_pages() returned, or -errno */
	int *st;	/* the statuses; st[n] must stay UNSET */
	int *after;	/* the node of each page afterwards */
};

/*
 * Move @n pages of process @pid (0: this one) to @nodes with @flags, print
 * the dumps of @name and return what happened.  @pages may become
 * unreadable halfway: the nodes afterwards are those of @all's pages.
 */
static struct move move_pages_of(struct __test_metadata *_metadata,
				 const char *name, pid_t pid, void **pages,
				 void **all, const int *nodes, unsigned long n,
				 int flags)
{
	long succ = read_vmstat("pgmigrate_success");
	long fail = read_vmstat("pgmigrate_fail");
	struct move m;
	unsigned long i;

	m.st = malloc((n + 1) * sizeof(int));
	m.after = malloc(n * sizeof(int));
	ASSERT_TRUE(m.st && m.after);
	for (i = 0; i <= n; i++)
		m.st[i] = UNSET;
	errno = 0;
	m.ret = syscall(SYS_move_pages, pid, n, pages, nodes, m.st, flags);
	if (m.ret < 0)
		m.ret = -errno;
	succ = read_vmstat("pgmigrate_success") - succ;
	fail = read_vmstat("pgmigrate_fail") - fail;
	printf("# dump R %s: %ld\n", name, m.ret);
	print_statuses("M", name, m.st, n);
	printf("# dump V %s: %ld %ld\n", name, succ, fail);
	ASSERT_EQ(UNSET, m.st[n]) TH_LOG("%s: status written past the end",
					 name);
	ASSERT_EQ(0, query_16(pid, n, all, m.after));
	print_statuses("F", name, m.after, n);
	return m;
}

static struct move do_move(struct __test_metadata *_metadata,
			   const char *name, pid_t pid, void **pages,
			   const int *nodes, unsigned long n, int flags)
{
	return move_pages_of(_metadata, name, pid, pages, pages, nodes, n,
			     flags);
}

/* The pages of a layout, with the status of each moved to node 1 */
struct layout {
	void **pages;
	int *want;	/* UNSET: not predicted */
	unsigned long n;
	pid_t sharer;	/* a child mapping the shared anonymous pages */
};

static void add_pages(struct layout *l, char *p, unsigned long nr, int want)
{
	unsigned long i;

	for (i = 0; i < nr; i++) {
		l->pages[l->n] = p + i * PSZ;
		l->want[l->n++] = want;
	}
}

/* The [vvar] mapping: VM_PFNMAP | VM_IO, so not migratable */
static char *vvar_page(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long start = 0;
	char line[256];

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vvar]")) {
			start = strtoul(line, NULL, 16);
			break;
		}
	fclose(f);
	return (char *)start;
}

/*
 * Every kind of page move_pages() meets, 2079 pages, all of them on node
 * 0 unless said otherwise:
 *  4 KiB pages: 8 written; 4 written on node 1; 2 untouched; 2 read only
 *  (the zero page); 2 unmapped; 2 written, then PROT_NONE; 2 mlocked;
 *  THPs: one, one on node 1, one mapped by PTEs after an mprotect() of
 *  one of its pages; 4 memfd pages; 4 shared anonymous pages that a child
 *  maps too; the [vvar] page; a 2 MiB hugetlb page.
 */
static struct layout build_layout(struct __test_metadata *_metadata)
{
	struct layout l = { .n = 0 };
	char *p, *t, *mfd, *shm, *vv, *h;
	int fd, pipefd[2];
	char c;

	l.pages = malloc(2100 * sizeof(*l.pages));
	l.want = malloc(2100 * sizeof(*l.want));
	ASSERT_TRUE(l.pages && l.want);

	/* The child shares these, and no page mapped after it forks */
	shm = mmap(NULL, 4 * PSZ, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(shm != MAP_FAILED);
	ASSERT_EQ(0, bind_node(shm, 4 * PSZ, 0));
	memset(shm, 1, 4 * PSZ);
	ASSERT_EQ(0, pipe(pipefd));
	l.sharer = fork();
	ASSERT_LE(0, l.sharer);
	if (!l.sharer) {
		int i;

		for (i = 0; i < 4; i++)
			touch_read(&shm[i * PSZ]);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	close(pipefd[0]);
	close(pipefd[1]);

	p = map_aligned(22 * PSZ, HPSZ, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS);
	ASSERT_TRUE(!!p);
	ASSERT_EQ(0, madvise(p, 22 * PSZ, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, bind_node(p, 22 * PSZ, 0));
	ASSERT_EQ(0, bind_node(p + 8 * PSZ, 4 * PSZ, 1));
	memset(p, 1, 12 * PSZ);
	touch_read(&p[14 * PSZ]);
	touch_read(&p[15 * PSZ]);
	ASSERT_EQ(0, munmap(p + 16 * PSZ, 2 * PSZ));
	memset(p + 18 * PSZ, 1, 4 * PSZ);
	ASSERT_EQ(0, mprotect(p + 18 * PSZ, 2 * PSZ, PROT_NONE));
	ASSERT_EQ(0, mlock(p + 20 * PSZ, 2 * PSZ));
	add_pages(&l, p, 12, 1);
	add_pages(&l, p + 12 * PSZ, 2, -ENOENT);
	add_pages(&l, p + 14 * PSZ, 4, -EFAULT);
	add_pages(&l, p + 18 * PSZ, 2, UNSET);
	add_pages(&l, p + 20 * PSZ, 2, 1);

	t = thp_region(3);
	ASSERT_TRUE(!!t);
	ASSERT_EQ(0, bind_node(t + HPSZ, HPSZ, 1));
	memset(t, 1, 3 * HPSZ);
	ASSERT_EQ(0, mprotect(t + 2 * HPSZ + 100 * PSZ, PSZ, PROT_READ));
	add_pages(&l, t, 3 * HPSZ / PSZ, 1);

	fd = memfd_create("move_pages_move", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 4 * PSZ));
	mfd = mmap(NULL, 4 * PSZ, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_TRUE(mfd != MAP_FAILED);
	close(fd);
	ASSERT_EQ(0, bind_node(mfd, 4 * PSZ, 0));
	memset(mfd, 1, 4 * PSZ);
	add_pages(&l, mfd, 4, 1);

	add_pages(&l, shm, 4, -EACCES);

	vv = vvar_page();
	if (vv)
		add_pages(&l, vv, 1, -EFAULT);

	h = mmap(NULL, HPSZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
	if (h != MAP_FAILED && !bind_node(h, HPSZ, 0) &&
	    !madvise(h, HPSZ, MADV_POPULATE_WRITE))
		add_pages(&l, h, HPSZ / PSZ, 1);
	return l;
}

static void end_layout(struct layout *l)
{
	kill(l->sharer, SIGKILL);
	waitpid(l->sharer, NULL, 0);
}

static int *nodes_of(unsigned long n, int (*node)(unsigned long i))
{
	int *nodes = malloc(n * sizeof(*nodes));
	unsigned long i;

	for (i = 0; i < n; i++)
		nodes[i] = node(i);
	return nodes;
}

static int node_1(unsigned long i)
{
	return 1;
}

FIXTURE(move) {
	struct layout l;
};

FIXTURE_SETUP(move)
{
	unsigned long node0 = 1;

	if (nr_nodes() < 2)
		SKIP(return, "needs two NUMA nodes, the system has %d",
		     nr_nodes());
	/* As in the stat tests: page cache and memfd pages on node 0 */
	ASSERT_EQ(0, syscall(SYS_set_mempolicy, MPOL_BIND, &node0,
			     8 * sizeof(node0)));
	self->l = build_layout(_metadata);
}

FIXTURE_TEARDOWN(move)
{
	if (self->l.sharer > 0)
		end_layout(&self->l);
}

/*
 * Every page of the layout to node 1 with @flags: each status as predicted
 * (with MPOL_MF_MOVE_ALL the shared pages move too), and every page that
 * moved on node 1 afterwards.
 */
static void all_to_node_1(struct __test_metadata *_metadata,
			  struct layout *l, const char *name, int flags)
{
	int *nodes = nodes_of(l->n, node_1);
	struct move m = do_move(_metadata, name, 0, l->pages, nodes, l->n,
				flags);
	unsigned long i;
	int want;

	EXPECT_EQ(0, m.ret);
	for (i = 0; i < l->n; i++) {
		want = l->want[i];
		if (want == -EACCES && (flags & MPOL_MF_MOVE_ALL))
			want = 1;
		if (want == UNSET)
			continue;
		EXPECT_EQ(want, m.st[i]) TH_LOG("page %lu", i);
		if (want == 1)
			EXPECT_EQ(1, m.after[i]) TH_LOG("page %lu", i);
	}
}

TEST_F(move, to_node_1)
{
	all_to_node_1(_metadata, &self->l, "to_node_1", MPOL_MF_MOVE);
}

TEST_F(move, move_all)
{
	all_to_node_1(_metadata, &self->l, "move_all", MPOL_MF_MOVE_ALL);
}

static int node_alternate(unsigned long i)
{
	return i & 1;
}

static int node_blocks(unsigned long i)
{
	return i / 100 & 1;
}

/*
 * Target nodes that change: page by page over the 4 KiB pages, in blocks
 * of 100 over the whole layout.  A 4 KiB page that moves or was already
 * there gets its own target node.
 */
static void mixed_nodes(struct __test_metadata *_metadata, struct layout *l,
			const char *name, unsigned long n,
			int (*node)(unsigned long i))
{
	int *nodes = nodes_of(n, node);
	struct move m = do_move(_metadata, name, 0, l->pages, nodes, n,
				MPOL_MF_MOVE);
	unsigned long i;

	EXPECT_EQ(0, m.ret);
	for (i = 0; i < 22; i++)
		if (l->want[i] == 1) {
			EXPECT_EQ(nodes[i], m.st[i]) TH_LOG("page %lu", i);
			EXPECT_EQ(nodes[i], m.after[i]) TH_LOG("page %lu", i);
		}
}

TEST_F(move, alternate)
{
	mixed_nodes(_metadata, &self->l, "alternate", 22, node_alternate);
}

TEST_F(move, blocks)
{
	mixed_nodes(_metadata, &self->l, "blocks", self->l.n, node_blocks);
}

/*
 * The layout backwards, every address twice: the second of each pair
 * gets what the first got (on stock 6.12: -EBUSY when the first queued
 * the folio).
 */
TEST_F(move, reversed_twice)
{
	struct layout *l = &self->l;
	unsigned long n = 2 * l->n, i;
	void **pages = malloc(n * sizeof(*pages));
	int *nodes = nodes_of(n, node_1);
	struct move m;

	ASSERT_TRUE(!!pages);
	for (i = 0; i < n; i++)
		pages[i] = l->pages[l->n - 1 - i / 2];
	m = do_move(_metadata, "reversed_twice", 0, pages, nodes, n,
		    MPOL_MF_MOVE);
	EXPECT_EQ(0, m.ret);
	for (i = 0; i < n; i++) {
		int want = l->want[l->n - 1 - i / 2];

		if (want != UNSET)
			EXPECT_EQ(want, m.st[i]) TH_LOG("entry %lu", i);
	}
}

/* Calls of 1, 2, 16 and 17 pages, and one of every page but the first */
TEST_F(move, small_calls)
{
	static const unsigned long lens[] = { 1, 2, 16, 17 };
	struct layout *l = &self->l;
	int *nodes = nodes_of(l->n, node_1);
	unsigned long k, i, at = 0;
	char name[32];
	struct move m;

	for (k = 0; k < 4; k++) {
		snprintf(name, sizeof(name), "small_%lu", lens[k]);
		m = do_move(_metadata, name, 0, l->pages + at, nodes, lens[k],
			    MPOL_MF_MOVE);
		EXPECT_EQ(0, m.ret);
		for (i = 0; i < lens[k]; i++)
			if (l->want[at + i] != UNSET)
				EXPECT_EQ(l->want[at + i], m.st[i])
					TH_LOG("%s: entry %lu", name, i);
		at += lens[k];
	}
}

/*
 * A move of more than a chunk allocates a page for its arrays; made to
 * fail, the chunk on the stack gives the same statuses.  The pages are on
 * node 1 already, so that no migration allocates a page.
 */
TEST_F(move, page_alloc_fails)
{
	char *p = mixed_region();
	void **pages = page_array(p, 64, PSZ);
	int *nodes = nodes_of(64, node_1), *want = malloc(65 * sizeof(int));
	int *st = malloc(65 * sizeof(int));
	int failed, i;
	long ret;

	ASSERT_TRUE(p && pages && want && st);
	for (i = 0; i < 64; i += 2)
		if (i < 40 || i >= 48)
			ASSERT_EQ(0, bind_node(p + i * PSZ, 2 * PSZ, 1));
	for (i = 0; i <= 64; i++) {
		want[i] = UNSET;
		st[i] = UNSET;
	}
	/* Twice: the first moves the node 0 pages, the second moves none */
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, syscall(SYS_move_pages, 0, 64, pages, nodes, want,
				     MPOL_MF_MOVE));
	failed = move_pages_failing_alloc(64, pages, nodes, st, MPOL_MF_MOVE,
					  &ret);
	if (failed == -ENODEV)
		SKIP(return, "no fail_page_alloc in this kernel");
	ASSERT_LE(0, failed);
	if (!failed)
		SKIP(return, "the move allocates no page");
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, memcmp(want, st, 65 * sizeof(*st)));
	for (i = 0; i < 56; i++)
		if (i < 40 || i >= 48)
			EXPECT_EQ(1, st[i]) TH_LOG("entry %d", i);
}

/*
 * A target node outside the task's cpuset: -EACCES at its entry, the
 * statuses before it written, none after, and no page moved.
 */
TEST_F(move, outside_cpuset)
{
	const char *cg = "/sys/fs/cgroup/move_pages_stat";
	char *p = mixed_region(), path[64], pid[16];
	void **pages = page_array(p, 56, PSZ);
	int *nodes = nodes_of(56, node_1), *before;
	struct move m;
	int i;

	ASSERT_TRUE(p && pages && nodes);
	mkdir("/sys/fs/cgroup", 0755);
	mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	if (write_file("/sys/fs/cgroup/cgroup.subtree_control", "+cpuset"))
		SKIP(return, "no cgroup v2 cpuset controller");
	mkdir(cg, 0755);
	snprintf(path, sizeof(path), "%s/cpuset.mems", cg);
	ASSERT_EQ(0, write_file(path, "0"));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(0, write_file(path, pid));
	before = malloc(56 * sizeof(*before));
	ASSERT_TRUE(!!before);
	ASSERT_EQ(0, query_16(0, 56, pages, before));
	/* Node 0 for the first 20, then node 1, which the cpuset denies */
	for (i = 0; i < 20; i++)
		nodes[i] = 0;
	m = do_move(_metadata, "outside_cpuset", 0, pages, nodes, 56,
		    MPOL_MF_MOVE);
	write_file("/sys/fs/cgroup/cgroup.procs", pid);
	rmdir(cg);
	EXPECT_EQ(-EACCES, m.ret);
	for (i = 0; i < 56; i++) {
		EXPECT_EQ(i < 20 ? 0 : UNSET, m.st[i]) TH_LOG("entry %d", i);
		EXPECT_EQ(before[i], m.after[i]) TH_LOG("page %d", i);
	}
}

/*
 * A bad node at entry 1000: every kind of bad node gives its error, with
 * the statuses of the entries before it written and none after.
 */
TEST_F(move, bad_node)
{
	static const int bad[] = { -1, 2, 1 << 20 };
	struct layout *l = &self->l;
	int *nodes = nodes_of(l->n, node_1);
	unsigned long i, k;
	char name[32];
	struct move m;

	for (k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "bad_node_%d", bad[k]);
		nodes[1000] = bad[k];
		m = do_move(_metadata, name, 0, l->pages, nodes, l->n,
			    MPOL_MF_MOVE);
		EXPECT_EQ(-ENODEV, m.ret);
		for (i = 1000; i < l->n; i++)
			EXPECT_EQ(UNSET, m.st[i]) TH_LOG("entry %lu", i);
		for (i = 0; i < 1000; i++)
			if (l->want[i] != UNSET && l->want[i] != 1)
				EXPECT_EQ(l->want[i], m.st[i])
					TH_LOG("entry %lu", i);
	}
}

/*
 * Copy @n entries of @size bytes to an array that ends @k entries into a
 * PROT_NONE page, so that entries @k on cannot be read or written.
 */
static void *array_to_hole(const void *src, unsigned long n, size_t size,
			   unsigned long k)
{
	size_t len = (n * size + 2 * PSZ) & ~(PSZ - 1);
	char *p = mmap(NULL, len + PSZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED || mprotect(p + len, PSZ, PROT_NONE))
		return NULL;
	a = p + len - k * size;
	memcpy(a, src, k * size);
	return a;
}

/*
 * Arrays of pointers, of nodes and of statuses that end halfway: the
 * move fails with -EFAULT once it reaches the entry that cannot be read
 * (or written), and the statuses before it are those of the moves made.
 */
TEST_F(move, arrays_end_halfway)
{
	static const unsigned long ks[] = { 5, 700, 1500 };
	static const unsigned long small_ks[] = { 5, 13, 25 };
	struct layout *l = &self->l;
	int *nodes = nodes_of(l->n, node_1);
	void **pages, **small;
	unsigned long k, i, n;
	char name[48];
	struct move m;
	int *cut;

	for (k = 0; k < 3; k++) {
		pages = array_to_hole(l->pages, l->n, sizeof(void *), ks[k]);
		ASSERT_TRUE(!!pages);
		snprintf(name, sizeof(name), "pages_end_%lu", ks[k]);
		m = move_pages_of(_metadata, name, 0, pages, l->pages, nodes,
				  l->n, MPOL_MF_MOVE);
		EXPECT_EQ(-EFAULT, m.ret);
		for (i = ks[k]; i < l->n; i++)
			EXPECT_EQ(UNSET, m.st[i]) TH_LOG("entry %lu", i);
	}
	for (k = 0; k < 3; k++) {
		cut = array_to_hole(nodes, l->n, sizeof(int), ks[k]);
		ASSERT_TRUE(!!cut);
		for (i = 0; i < ks[k]; i++)
			cut[i] = node_blocks(i);
		snprintf(name, sizeof(name), "nodes_end_%lu", ks[k]);
		m = do_move(_metadata, name, 0, l->pages, cut, l->n,
			    MPOL_MF_MOVE);
		EXPECT_EQ(-EFAULT, m.ret);
		for (i = ks[k]; i < l->n; i++)
			EXPECT_EQ(UNSET, m.st[i]) TH_LOG("entry %lu", i);
	}
	/*
	 * The status array: over the layout without its huge pages, whose
	 * -EBUSY on stock 6.12 moves the point where a status write fails.
	 */
	small = malloc(l->n * sizeof(*small));
	ASSERT_TRUE(!!small);
	for (i = 0, n = 0; i < l->n; i++)
		if (i < 22 || (i >= 22 + 3 * HPSZ / PSZ &&
			       i < 31 + 3 * HPSZ / PSZ))
			small[n++] = l->pages[i];
	for (k = 0; k < 3; k++) {
		long succ = read_vmstat("pgmigrate_success"), ret;

		cut = array_to_hole(nodes, n, sizeof(int), small_ks[k]);
		ASSERT_TRUE(!!cut);
		for (i = 0; i < small_ks[k]; i++)
			cut[i] = UNSET;
		errno = 0;
		ret = syscall(SYS_move_pages, 0, n, small, nodes, cut,
			      MPOL_MF_MOVE);
		snprintf(name, sizeof(name), "status_end_%lu", small_ks[k]);
		printf("# dump R %s: %ld\n", name, ret < 0 ? -errno : ret);
		printf("# dump V %s: %ld\n", name,
		       read_vmstat("pgmigrate_success") - succ);
		print_statuses("M", name, cut, small_ks[k]);
		EXPECT_EQ(-1, ret);
		EXPECT_EQ(EFAULT, errno);
		/* Every page back to node 0 for the next round */
		for (i = 0; i < l->n; i++)
			nodes[i] = 0;
		snprintf(name, sizeof(name), "back_%lu", small_ks[k]);
		do_move(_metadata, name, 0, l->pages, nodes, l->n,
			MPOL_MF_MOVE_ALL);
		for (i = 0; i < l->n; i++)
			nodes[i] = 1;
	}
}

/*
 * Another process's pages, by pid: a child writes 64 pages and a THP on
 * node 0 and waits while the parent moves them.
 */
TEST_F(move, by_pid)
{
	unsigned long n = 64 + HPSZ / PSZ, i;
	void **pages = malloc(n * sizeof(*pages));
	int *nodes = nodes_of(n, node_1);
	int pipefd[2];
	struct move m;
	pid_t pid;
	char *p;

	ASSERT_TRUE(!!pages);
	p = map_aligned(HPSZ + 64 * PSZ, HPSZ, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS);
	ASSERT_TRUE(!!p);
	ASSERT_EQ(0, madvise(p, HPSZ, MADV_HUGEPAGE));
	ASSERT_EQ(0, madvise(p + HPSZ, 64 * PSZ, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, bind_node(p, HPSZ + 64 * PSZ, 0));
	for (i = 0; i < 64; i++)
		pages[i] = p + HPSZ + i * PSZ;
	for (i = 64; i < n; i++)
		pages[i] = p + (i - 64) * PSZ;
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The child's own copies of the pages */
		memset(p, 2, HPSZ + 64 * PSZ);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(pipefd[0], &pipefd[0], 1));
	m = do_move(_metadata, "by_pid", pid, pages, nodes, n, MPOL_MF_MOVE);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	EXPECT_EQ(0, m.ret);
	for (i = 0; i < 64; i++) {
		EXPECT_EQ(1, m.st[i]) TH_LOG("page %lu", i);
		EXPECT_EQ(1, m.after[i]) TH_LOG("page %lu", i);
	}
}

/*
 * Pages 4-11 of 16 migrated to a device-private dmirror device: they stay
 * where they are (-ENOENT), the pages around them move.
 */
TEST_F(move, device_private)
{
	int *nodes = nodes_of(16, node_1);
	struct move m;
	void **pages;
	int fd, i;
	char *p = device_private_pages(_metadata, &fd);

	if (!p)
		return;
	pages = page_array(p, 16, PSZ);
	m = do_move(_metadata, "device_private", 0, pages, nodes, 16,
		    MPOL_MF_MOVE);
	EXPECT_EQ(0, m.ret);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(i >= 4 && i < 12 ? -ENOENT : 1, m.st[i])
			TH_LOG("page %d", i);
	close(fd);
}

/* A 1 GiB hugetlb page on node 0 moved to node 1 */
TEST_F_TIMEOUT(move, hugetlb_1g, 600)
{
	unsigned long n = GPSZ / PSZ, i, bad = 0;
	int *nodes;
	struct move m;
	void **pages;
	char *p;

	if (sizeof(void *) < 8)
		SKIP(return, "1 GiB pages need a 64-bit address space");
	ASSERT_EQ(0, syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0));
	p = mmap(NULL, GPSZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_1GB, -1, 0);
	if (p == MAP_FAILED)
		SKIP(return, "no 1 GiB hugetlb page: %s", strerror(errno));
	ASSERT_EQ(0, bind_node(p, GPSZ, 0));
	if (madvise(p, GPSZ, MADV_POPULATE_WRITE))
		SKIP(return, "cannot fault a 1 GiB page on node 0: %s",
		     strerror(errno));
	pages = page_array(p, n, PSZ);
	nodes = nodes_of(n, node_1);
	m = do_move(_metadata, "hugetlb_1g", 0, pages, nodes, n, MPOL_MF_MOVE);
	EXPECT_EQ(0, m.ret);
	for (i = 0; i < n; i++)
		bad += m.after[i] != 1;
	EXPECT_EQ(0, bad) TH_LOG("%lu pages not on node 1", bad);
	munmap(p, GPSZ);
}

TEST_HARNESS_MAIN
