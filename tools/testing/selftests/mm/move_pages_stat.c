// SPDX-License-Identifier: GPL-2.0
/*
 * move_pages(2), queries (NULL nodes) and moves, over a layout of every kind
 * of page.  MOVE_PAGES_STAT_DUMP=1 prints the statuses too ("# dump" lines).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <lib/test_hmm_uapi.h>

#include "../kselftest_harness.h"

#define MADV_POPULATE_WRITE_	23
#define MADV_COLLAPSE_		25
#define MAP_HUGE_SHIFT_		26
#define MPOL_BIND		2
#define MPOL_MF_MOVE		2
#define MPOL_MF_MOVE_ALL	4
#define UNSET			(-1000)
#define RW			(PROT_READ | PROT_WRITE)
#define ANON			(MAP_PRIVATE | MAP_ANONYMOUS)
#define DUMP			getenv("MOVE_PAGES_STAT_DUMP")
#define FAIL_PAGE_ALLOC		"/sys/kernel/debug/fail_page_alloc/"
#define CGROUP			"/sys/fs/cgroup/move_pages_stat"

/* Page, PMD and PUD sizes; the first two nodes with memory, one without */
static unsigned long psz, hpsz, gpsz;
static int n0, n1, no_node;

static long move_pages(int pid, unsigned long n, void **pages,
		       const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, pid, n, pages, nodes, status, flags);
}

static int bind_node(void *p, size_t len, int node)
{
	unsigned long m[2] = { 0 };

	m[node / (8 * sizeof(long))] = 1UL << node % (8 * sizeof(long));
	if (!p)
		return syscall(SYS_set_mempolicy, len ? MPOL_BIND : 0,
			       len ? m : NULL, 8 * sizeof(m));
	return syscall(SYS_mbind, p, len, MPOL_BIND, m, 8 * sizeof(m), 0);
}

static int read_str(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n < 0 ? -1 : 0;
}

static unsigned long read_ulong(const char *path)
{
	char buf[32];

	return read_str(path, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 10);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* @len of hugetlb pages of @size on @node (populated if one), or NULL */
static char *map_hugetlb(size_t len, size_t size, int node)
{
	char *p;

	/* Reserved under the task's policy, placed by the VMA's */
	bind_node(NULL, 0, 0);
	p = mmap(NULL, len, RW, ANON | MAP_HUGETLB |
		 __builtin_ctzl(size) << MAP_HUGE_SHIFT_, -1, 0);
	if (p == MAP_FAILED || bind_node(p, len, node) ||
	    (len == size && madvise(p, len, MADV_POPULATE_WRITE_)))
		p = NULL;
	bind_node(NULL, 1, n0);
	return p;
}

static char *map_aligned(void *at, size_t len, size_t align, int thp)
{
	char *p = mmap(at, len + align, RW, ANON, -1, 0), *a;

	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (p == MAP_FAILED || (a > p && munmap(p, a - p)) || munmap(a + len, p + align - a) ||
	    madvise(a, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) || bind_node(a, len, n0))
		return NULL;
	return a;
}

/* The statuses as a "# dump" line, run-length encoded: "0x3 -2 1" */
static void print_statuses(const char *kind, const char *name, const int *st, unsigned long n)
{
	unsigned long i, j;

	if (!DUMP)
		return;
	printf("# dump %s %s:", kind, name);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && st[j] == st[i]; j++)
			;
		printf(j - i > 1 ? " %dx%lu" : " %d", st[i], j - i);
	}
	printf("\n");
	fflush(stdout);
}

static int *filled(unsigned long n, int v)
{
	int *a = malloc(n * sizeof(*a));
	unsigned long i;

	for (i = 0; a && i < n; i++)
		a[i] = v;
	return a;
}

static void **page_array(char *base, unsigned long n, unsigned long step)
{
	void **pages = malloc(n * sizeof(*pages));
	unsigned long i;

	for (i = 0; pages && i < n; i++)
		pages[i] = base + i * step;
	return pages;
}

/* @k entries of @size bytes of @src, ending where a PROT_NONE page starts */
static void *array_to_hole(const void *src, size_t size, unsigned long k)
{
	size_t len = (k * size + psz) & ~(psz - 1);
	char *p = mmap(NULL, len + psz, RW, ANON, -1, 0);

	if (p == MAP_FAILED || mprotect(p + len, psz, PROT_NONE))
		return NULL;
	return memcpy(p + len - k * size, src, k * size);
}

/* @st as @want has it up to @until (but for UNSET there), UNSET on to @n */
static void check_stat(struct __test_metadata *_metadata, const int *want,
		       const int *st, unsigned long n, unsigned long until)
{
	unsigned long i, bad = 0, first = 0;

	for (i = 0; i < n; i++)
		if ((i >= until || want[i] != UNSET) && st[i] != (i < until ? want[i] : UNSET))
			first = bad++ ? first : i;
	EXPECT_EQ(0, bad) TH_LOG("%lu wrong, the first: entry %lu, %d for %d", bad, first,
				 st[first], first < until ? want[first] : UNSET);
}

/* The fail_page_alloc knobs a case sets, and their values */
static const char *const knobs[][2] = {
	{ FAIL_PAGE_ALLOC "task-filter", "Y" }, { FAIL_PAGE_ALLOC "ignore-gfp-wait", "N" },
	{ FAIL_PAGE_ALLOC "min-order", "0" }, { FAIL_PAGE_ALLOC "probability", "100" },
	{ FAIL_PAGE_ALLOC "verbose", "0" }, { FAIL_PAGE_ALLOC "times", "1" },
};

enum { UNDO_CPUSET = 1, UNDO_CGROUP = 2 };

/* A layout: each page's status queried, and moved to n1 (UNSET: unknown) */
struct layout {
	void **pages;
	int *stat, *move;
	unsigned long n, small;	/* units: pages; small: the 4 KiB ones */
	/* What a case changed, undone by the parent whatever the case's end */
	char knob[ARRAY_SIZE(knobs)][24];
	int undo;
};

static void undo(struct layout *l)
{
	int k;

	/* Saved in order, up to the first that could not be read */
	for (k = 0; k < ARRAY_SIZE(knobs) && l->knob[k][0]; k++)
		write_file(knobs[k][0], l->knob[k]);
	if (l->undo & UNDO_CGROUP)
		rmdir(CGROUP);
	if (l->undo & UNDO_CPUSET)
		write_file("/sys/fs/cgroup/cgroup.subtree_control", "-cpuset");
}

static void add(struct layout *l, char *p, unsigned long nr, int stat, int move)
{
	for (; nr--; p += psz, l->n++) {
		l->pages[l->n] = p;
		l->stat[l->n] = stat;
		l->move[l->n] = move;
	}
}

/*
 * Sizes, nodes ("0-1", "0,2-3": both ends have memory) and a layout on n0 but
 * where said: 4 KiB pages of each kind, THPs (on n1, PTE-mapped, huge zero,
 * partly zapped), hugetlb on n0 and n1, shared and file pages, no VMA.
 */
static void setup(struct __test_metadata *_metadata, struct layout *l)
{
	FILE *f = fopen("/sys/devices/system/node/has_memory", "r");
	char *p, *t, *shm, *mfd, *h, sep;
	unsigned long hp;
	int nr, a, fd;

	psz = sysconf(_SC_PAGESIZE);
	hpsz = read_ulong("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	gpsz = hpsz * (hpsz / psz);
	for (nr = 0; f && fscanf(f, "%d%c", &a, &sep) == 2; nr++, no_node = a + 1)
		if (nr < 2)
			*(nr ? &n1 : &n0) = a;
	if (nr < 2 || !hpsz)
		SKIP(return, "needs THP and two nodes with memory");
	ASSERT_EQ(0, bind_node(NULL, 1, n0));
	/* Low, where no later mmap() fills its holes */
	p = map_aligned((void *)(16UL << 24), 24 * psz, psz, 0);
	t = map_aligned(NULL, 5 * hpsz, hpsz, 1);
	shm = mmap(NULL, 4 * psz, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = memfd_create("move_pages_stat", 0);
	mfd = mmap(NULL, 4 * psz, RW, MAP_SHARED, fd, 0);
	hp = hpsz / psz;
	l->pages = malloc((40 + 7 * hp) * sizeof(*l->pages));
	l->stat = filled(2 * (40 + 7 * hp), 0);
	l->move = l->stat + 40 + 7 * hp;
	ASSERT_TRUE(l->pages && l->stat && l->move && p && t);
	ASSERT_TRUE(shm != MAP_FAILED && mfd != MAP_FAILED && !ftruncate(fd, 4 * psz));
	ASSERT_EQ(0, bind_node(p + 8 * psz, 4 * psz, n1));
	memset(p, 1, 12 * psz);
	ASSERT_EQ(0, memcmp(p + 14 * psz, p + 15 * psz, psz));
	memset(p + 18 * psz, 1, 6 * psz);
	ASSERT_FALSE(munmap(p + 16 * psz, 2 * psz) || mprotect(p + 18 * psz, 2 * psz, PROT_NONE) ||
		     mlock(p + 20 * psz, 2 * psz) || madvise(p + 22 * psz, psz, MADV_DONTNEED) ||
		     mprotect(p + 23 * psz, psz, PROT_READ));
	add(l, p, 8, n0, n1);
	add(l, p + 8 * psz, 4, n1, n1);
	add(l, p + 12 * psz, 2, -ENOENT, -ENOENT);
	add(l, p + 14 * psz, 4, -EFAULT, -EFAULT);
	add(l, p + 18 * psz, 2, n0, UNSET);
	add(l, p + 20 * psz, 2, n0, n1);
	add(l, p + 22 * psz, 1, -ENOENT, -ENOENT);
	add(l, p + 23 * psz, 1, n0, n1);
	l->small = l->n;
	ASSERT_EQ(0, bind_node(t + hpsz, hpsz, n1));
	/* No zero-filled page, which a split would map to the zero page */
	memset(t, 1, 3 * hpsz);
	memset(t + 4 * hpsz, 1, hpsz);
	(void)__atomic_load_n(&t[3 * hpsz], __ATOMIC_RELAXED);
	ASSERT_EQ(0, mprotect(t + 2 * hpsz + 100 * psz, psz, PROT_READ));
	/* Kept from khugepaged, which would collapse it again */
	ASSERT_EQ(0, madvise(t + 4 * hpsz, hpsz, MADV_NOHUGEPAGE));
	ASSERT_EQ(0, madvise(t + 5 * hpsz - psz, psz, MADV_DONTNEED));
	add(l, t, hp, n0, n1);
	add(l, t + hpsz, hp, n1, n1);
	add(l, t + 2 * hpsz, hp, n0, n1);
	add(l, t + 3 * hpsz, hp, -EFAULT, -EFAULT);
	add(l, t + 4 * hpsz, hp - 1, n0, n1);
	add(l, t + 5 * hpsz - psz, 1, -ENOENT, -ENOENT);
	h = map_hugetlb(2 * hpsz, hpsz, n0);
	if (h && !bind_node(h + hpsz, hpsz, n1) && !madvise(h, 2 * hpsz, MADV_POPULATE_WRITE_)) {
		add(l, h, hp, n0, n1);
		add(l, h + hpsz, hp, n1, n1);
	}
	memset(mfd, 1, 4 * psz);
	add(l, mfd, 4, n0, n1);
	/* A second mapping of the same pages: shared, not moved */
	h = mremap(shm, 0, 4 * psz, MREMAP_MAYMOVE);
	ASSERT_TRUE(h != MAP_FAILED && memset(shm, 1, 4 * psz));
	ASSERT_EQ(0, memcmp(h, shm, 4 * psz));
	add(l, shm, 4, n0, -EACCES);
	close(fd);
	fd = open("/tmp/move_pages_stat.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_TRUE(fd >= 0 && !unlink("/tmp/move_pages_stat.file"));
	ASSERT_EQ((ssize_t)(2 * psz), write(fd, p, 2 * psz));
	h = mmap(NULL, 4 * psz, RW, MAP_PRIVATE, fd, 0);
	ASSERT_TRUE(h != MAP_FAILED);
	h[psz] = __atomic_load_n(h, __ATOMIC_RELAXED);
	add(l, h, 2, n0, n1);
	add(l, h + 2 * psz, 2, -ENOENT, -ENOENT);
	/*
	 * NULL, then past TASK_SIZE: the top page, a kernel and a non-canonical
	 * address.  A 32-bit task can name neither of the last two: it gets the
	 * last page and byte of its 4 GiB instead, past its TASK_SIZE too.
	 */
	add(l, NULL, 1, -EFAULT, -EFAULT);
	add(l, (char *)(-2 * psz), 1, -EFAULT, -EFAULT);
	add(l, (char *)(uintptr_t)(sizeof(long) == 8 ? 0xffffffff81000000ULL : -psz), 1,
	    -EFAULT, -EFAULT);
	add(l, (char *)(uintptr_t)(sizeof(long) == 8 ? 1ULL << 63 : -1), 1, -EFAULT, -EFAULT);
}

/* Queries and moves of the layout; the parent undoes what a case changed */
FIXTURE(stat) {
	struct layout l;
};

FIXTURE(move) {
	struct layout l;
};

FIXTURE_SETUP(stat) { setup(_metadata, &self->l); }
FIXTURE_SETUP(move) { setup(_metadata, &self->l); }
FIXTURE_TEARDOWN_PARENT(stat) { undo(&self->l); }
FIXTURE_TEARDOWN_PARENT(move) { undo(&self->l); }

TEST_F(stat, layout)
{
	int *st = filled(self->l.n + 1, UNSET);

	ASSERT_EQ(0, move_pages(0, self->l.n, self->l.pages, NULL, st, 0));
	print_statuses("N", "layout", st, self->l.n + 1);
	check_stat(_metadata, self->l.stat, st, self->l.n + 1, self->l.n);
}

/*
 * Arrays of every shape and of lengths around do_pages_stat()'s batches (16, a
 * page of 64- or 32-bit pointers) ending at a hole; one more: -EFAULT.
 */
TEST_F_TIMEOUT(stat, arrays, 600)
{
	const unsigned long lens[] = { 1, 15, 16, 17, psz / 8 - 1, psz / 8, psz / 8 + 1,
				       psz / 4 - 1, psz / 4, psz / 4 + 1, psz / 2 + 17 };
	unsigned long n, i, k, s, pg, nr = self->l.n;
	uint64_t seed = 1;
	int *st, *want;
	void **pages;
	char name[64];

	for (k = 0; k < ARRAY_SIZE(lens) * 5; k++) {
		n = lens[k / 5];
		s = k % 5;
		want = filled(n, 0);
		pages = malloc(n * sizeof(*pages));
		ASSERT_TRUE(want && pages);
		/* Consecutive, unaligned, duplicated, reversed, shuffled */
		for (i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			pg = s == 2 ? i / 2 % nr : s == 3 ? nr - 1 - i % nr :
			     s == 4 ? (seed >> 33) % nr : i % nr;
			pages[i] = (char *)self->l.pages[pg] + (s == 1 ? 123 + i % 7 : 0);
			want[i] = self->l.stat[pg];
		}
		pages = array_to_hole(pages, sizeof(*pages), n);
		st = filled(n + 2, UNSET);
		ASSERT_TRUE(pages && st);
		ASSERT_EQ(0, move_pages(0, n, pages, NULL, st, 0));
		snprintf(name, sizeof(name), "shape%lu_%lu", s, n);
		print_statuses("P", name, st, n + 1);
		check_stat(_metadata, want, st, n + 2, n);
		memcpy(st, filled(n + 2, UNSET), (n + 2) * sizeof(*st));
		EXPECT_EQ(-1, move_pages(0, n + 1, pages, NULL, st, 0));
		EXPECT_EQ(EFAULT, errno);
		strcat(name, "_fault");
		print_statuses("P", name, st, n + 2);
		check_stat(_metadata, want, st, n + 2, n & ~15UL);
	}
}

/* A PUD-size hugetlb page on n0 moved to n1: each status n1, then there */
TEST_F_TIMEOUT(stat, hugetlb_1g, 600)
{
	char *p = sizeof(void *) == 8 ? map_hugetlb(gpsz, gpsz, n0) : NULL;
	unsigned long n = gpsz / psz;
	void **pages = page_array(p, n, psz);
	int *want = filled(n, n1), *st = filled(n + 1, UNSET);

	if (!p)
		SKIP(return, "no PUD-size hugetlb page (or 32-bit)");
	ASSERT_EQ(0, move_pages(0, n, pages, want, st, MPOL_MF_MOVE));
	check_stat(_metadata, want, st, n + 1, n);
	ASSERT_EQ(0, move_pages(0, n, pages, NULL, st, 0));
	check_stat(_metadata, want, st, n + 1, n);
}

static unsigned long race_changes, race_stop;

/* Map over, PROT_NONE and back, fault, collapse or zap */
static void *race_mutate(void *p)
{
	unsigned long i;
	char *q;

	for (i = 0; !__atomic_load_n(&race_stop, __ATOMIC_RELAXED); i++) {
		q = (char *)p + (i / 5 % 4) * hpsz;
		if (i % 5 == 0)
			mmap(q, hpsz, RW, ANON | MAP_FIXED, -1, 0);
		else if (i % 5 < 3)
			mprotect(q, hpsz, i % 5 == 1 ? PROT_NONE : RW);
		else if (i % 5 == 3)
			memset(q, 1, hpsz);
		else
			madvise(q, hpsz, i % 10 < 5 ? MADV_COLLAPSE_ : MADV_DONTNEED);
		__atomic_store_n(&race_changes, i + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* While the range changes, each status one it had: n0, -ENOENT, -EFAULT */
TEST_F_TIMEOUT(stat, concurrent, 600)
{
	unsigned long n = 4 * hpsz / psz, i, changes, bad = 0;
	char *p = map_aligned(NULL, 4 * hpsz, hpsz, 1);
	int *st = filled(n, UNSET), q;
	void **pages = page_array(p, n, psz);
	pthread_t t;

	ASSERT_TRUE(p && pages && st && memset(p, 1, 4 * hpsz));
	ASSERT_EQ(0, pthread_create(&t, NULL, race_mutate, p));
	while (!__atomic_load_n(&race_changes, __ATOMIC_RELAXED))
		usleep(1000);
	/* Until every change was made to each extent twice, at most 100000 */
	changes = __atomic_load_n(&race_changes, __ATOMIC_RELAXED) + 40;
	for (q = 0; q < 100000 && !bad && race_changes < changes; q++) {
		ASSERT_EQ(0, move_pages(0, n, pages, NULL, st, 0));
		for (i = 0; i < n; i++)
			if (st[i] != n0 && st[i] != -ENOENT && st[i] != -EFAULT && !bad++)
				TH_LOG("query %d, page %lu: %d", q, i, st[i]);
	}
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	EXPECT_EQ(0, bad);
	EXPECT_LE(changes, race_changes) TH_LOG("%d queries, %lu changes", q, race_changes);
}

/* The page for a batch failed (fail_page_alloc): the same statuses */
TEST_F(stat, page_alloc_fails)
{
	struct layout *l = &self->l;
	int fd = open("/proc/thread-self/make-it-fail", O_WRONLY), k;
	int *st = filled(l->n + 1, UNSET);
	long ret = -1;

	if (access(FAIL_PAGE_ALLOC, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	for (k = 0; k < ARRAY_SIZE(knobs); k++)
		if (fd < 0 || read_str(knobs[k][0], l->knob[k], sizeof(l->knob[k])) ||
		    write_file(knobs[k][0], knobs[k][1]))
			SKIP(return, "no fail_page_alloc in this kernel");
	/* Nothing between the two writes but the call allocates */
	if (write(fd, "1", 1) == 1)
		ret = move_pages(0, l->n, l->pages, NULL, st, 0);
	ASSERT_TRUE(write(fd, "0", 1) == 1 && !access(FAIL_PAGE_ALLOC "times", R_OK));
	if (read_ulong(FAIL_PAGE_ALLOC "times"))
		SKIP(return, "the call allocates no page");
	EXPECT_EQ(0, ret);
	check_stat(_metadata, l->stat, st, l->n + 1, l->n);
}

/* Bad arguments: the return value and errno */
TEST_F(stat, bad_input)
{
	void **pages = self->l.pages, **end4 = array_to_hole(pages, sizeof(*pages), 4);
	int st[4] = { UNSET, UNSET, UNSET, UNSET };

	EXPECT_EQ(0, move_pages(0, 0, pages, NULL, st, 0));
	EXPECT_EQ(0, move_pages(0, 4, pages, NULL, st, MPOL_MF_MOVE));
	EXPECT_EQ(-1, move_pages(0, 4, pages, NULL, st, 0x100));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, move_pages(0x3fffffff, 4, pages, NULL, st, 0));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, move_pages(0, 4, (void **)16, NULL, st, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, move_pages(0, 4, pages, NULL, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	/* A huge count over 4 pointers before a hole: nothing written */
	memcpy(st, filled(4, UNSET), sizeof(st));
	EXPECT_EQ(-1, move_pages(0, ~0UL >> 1, end4, NULL, st, 0));
	EXPECT_EQ(EFAULT, errno);
	check_stat(_metadata, st, st, 4, 0);
}

/* A status array read-only after a page of it: -EFAULT, that page written */
TEST_F(stat, bad_status_halfway)
{
	char *p = mmap(NULL, 3 * psz, RW, ANON, -1, 0);
	unsigned long n = 2 * psz / sizeof(int);
	void **pages = page_array(p, n, 0);
	int *sb = (int *)(p + psz);

	ASSERT_TRUE(p != MAP_FAILED && pages);
	p[0] = 1;
	memcpy(sb, filled(n / 2, UNSET), psz);
	ASSERT_EQ(0, mprotect(p + 2 * psz, psz, PROT_READ));
	EXPECT_EQ(-1, move_pages(0, n, pages, NULL, sb, 0));
	EXPECT_EQ(EFAULT, errno);
	check_stat(_metadata, filled(n / 2, n0), sb, n / 2, n / 2);
}

static int *mst, *mafter;

/* Move @n @pages (the nodes after: @all's): 0 or -errno; dumps */
static long move_of(struct __test_metadata *_metadata, const char *name, void **pages,
		    void **all, const int *nodes, unsigned long n, int flags)
{
	long ret;

	mst = filled(n + 1, UNSET);
	mafter = filled(n, 0);
	errno = 0;
	ret = move_pages(0, n, pages, nodes, mst, flags) ? -errno : 0;
	print_statuses("M", name, mst, n);
	EXPECT_EQ(UNSET, mst[n]) TH_LOG("%s: status past the end", name);
	EXPECT_EQ(0, move_pages(0, n, all, NULL, mafter, 0));
	print_statuses("F", name, mafter, n);
	return ret;
}

/* Entries @from to @to of the layout moved to @nodes: as predicted */
static void check_move(struct __test_metadata *_metadata, struct layout *l,
		       const int *nodes, unsigned long from, unsigned long to, int all)
{
	int *want = filled(to - from, UNSET), *where = filled(to - from, UNSET), *w;
	unsigned long i;

	for (i = from; i < to; i++) {
		w = &want[i - from];
		*w = l->move[i] == -EACCES && all ? n1 : l->move[i];
		*w = *w == n1 ? nodes[i - from] : *w;
		where[i - from] = *w >= 0 ? *w : UNSET;
	}
	check_stat(_metadata, want, mst, to - from, to - from);
	check_stat(_metadata, where, mafter, to - from, to - from);
}

static void move_layout(struct __test_metadata *_metadata, struct layout *l,
			const char *name, int flags)
{
	int *nodes = filled(l->n, n1);

	EXPECT_EQ(0, move_of(_metadata, name, l->pages, l->pages, nodes, l->n, flags));
	check_move(_metadata, l, nodes, 0, l->n, flags & MPOL_MF_MOVE_ALL);
}

TEST_F(move, to_node_1)
{
	move_layout(_metadata, &self->l, "to_node_1", MPOL_MF_MOVE);
}

TEST_F(move, move_all)
{
	move_layout(_metadata, &self->l, "move_all", MPOL_MF_MOVE_ALL);
}

/* The layout backwards, every address twice: both get the same status */
TEST_F_TIMEOUT(move, reversed_twice, 600)
{
	struct layout *l = &self->l;
	unsigned long n = 2 * l->n, i;
	void **pages = malloc(n * sizeof(*pages));
	int *want = filled(n, 0);

	ASSERT_TRUE(pages && want);
	for (i = 0; i < n; i++) {
		pages[i] = l->pages[l->n - 1 - i / 2];
		want[i] = l->move[l->n - 1 - i / 2];
	}
	EXPECT_EQ(0, move_of(_metadata, "reversed_twice", pages, pages, filled(n, n1), n,
			     MPOL_MF_MOVE));
	check_stat(_metadata, want, mst, n + 1, n);
}

/* Calls of several lengths, each from where the last ended, in huge pages */
TEST_F_TIMEOUT(move, small_calls, 600)
{
	const unsigned long lens[] = { 1, 3, 4, 5, psz / 16 - 1, psz / 16, psz / 16 + 1 };
	int *nodes = filled(self->l.n, n1);
	unsigned long k, at = 0;
	char name[32];

	for (k = 0; k < ARRAY_SIZE(lens); at += lens[k++]) {
		snprintf(name, sizeof(name), "small_%lu", lens[k]);
		ASSERT_LE(at + lens[k], self->l.n);
		EXPECT_EQ(0, move_of(_metadata, name, self->l.pages + at, self->l.pages + at,
				     nodes, lens[k], MPOL_MF_MOVE));
		check_move(_metadata, &self->l, nodes, at, at + lens[k], 0);
	}
}

/* A node outside the cpuset: -EACCES there, statuses before, no move */
TEST_F(move, outside_cpuset)
{
	struct layout *l = &self->l;
	int *nodes = filled(l->n, n0), *before = filled(l->n, 0);
	unsigned long at = l->small / 2;
	char buf[256];

	if (access("/sys/fs/cgroup/cgroup.subtree_control", F_OK))
		mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	if (read_str("/sys/fs/cgroup/cgroup.subtree_control", buf, sizeof(buf)))
		SKIP(return, "no cgroup v2");
	l->undo = strstr(buf, "cpuset") ? UNDO_CGROUP : UNDO_CGROUP | UNDO_CPUSET;
	if (l->undo & UNDO_CPUSET && write_file("/sys/fs/cgroup/cgroup.subtree_control", "+cpuset"))
		SKIP(return, "no cgroup v2 cpuset controller");
	ASSERT_TRUE(!mkdir(CGROUP, 0755) || errno == EEXIST);
	snprintf(buf, sizeof(buf), "%d", n0);
	ASSERT_EQ(0, write_file(CGROUP "/cpuset.mems", buf));
	snprintf(buf, sizeof(buf), "%d", getpid());
	ASSERT_EQ(0, write_file(CGROUP "/cgroup.procs", buf));
	ASSERT_EQ(0, move_pages(0, l->n, l->pages, NULL, before, 0));
	nodes[at] = n1;
	EXPECT_EQ(-EACCES, move_of(_metadata, "outside_cpuset", l->pages, l->pages, nodes,
				   l->n, MPOL_MF_MOVE));
	check_move(_metadata, l, nodes, 0, at, 0);
	check_stat(_metadata, mst, mst, l->n, at);
	check_stat(_metadata, before, mafter, l->n, l->n);
}

/*
 * Arrays that end halfway (in the small pages, in the first THP's entries,
 * in a hole, in a PTE-mapped THP's), bad nodes: the entries before moved only
 */
TEST_F_TIMEOUT(move, halfway, 600)
{
	struct layout *l = &self->l;
	const unsigned long ks[] = { 5, l->n / 3, l->n / 2, 2 * l->n / 3,
				     l->small + hpsz / psz / 2 + 3 };
	const unsigned long nk = ARRAY_SIZE(ks);
	const int bad[] = { -1, no_node, 1 << 20 };
	int *nodes = filled(l->n, n1), *cut;
	unsigned long k, i, a;
	char name[48];
	void **pages;

	for (a = 0; a < 2 * nk + ARRAY_SIZE(bad); a++) {
		k = ks[a < 2 * nk ? a % nk : 2];
		for (i = 0; i < l->n; i++)
			nodes[i] = a < nk || a >= 2 * nk || (i / 100) & 1 ? n1 : n0;
		if (a >= 2 * nk)
			nodes[k] = bad[a - 2 * nk];
		pages = a < nk ? array_to_hole(l->pages, sizeof(void *), k) : l->pages;
		cut = a < nk || a >= 2 * nk ? nodes : array_to_hole(nodes, sizeof(int), k);
		ASSERT_TRUE(pages && cut);
		snprintf(name, sizeof(name), "%s_%lu", a < nk ? "pages_end" :
			 a < 2 * nk ? "nodes_end" : "bad_node", a < 2 * nk ? k : a - 2 * nk);
		EXPECT_EQ(a < 2 * nk ? -EFAULT : -ENODEV,
			  move_of(_metadata, name, pages, l->pages, cut, l->n, MPOL_MF_MOVE));
		check_move(_metadata, l, nodes, 0, k < l->small ? k : l->small, 0);
		check_stat(_metadata, mst, mst, l->n, k);
	}
}

/* Pages 4-11 of 16 on the dmirror device (CONFIG_TEST_HMM): -ENOENT */
TEST_F(move, device_private)
{
	char *p = map_aligned(NULL, 16 * psz, psz, 0);
	struct hmm_dmirror_cmd cmd = { .addr = (uintptr_t)(p + 4 * psz), .npages = 8,
				       .ptr = (uintptr_t)malloc(8 * psz) };
	int fd = open("/dev/hmm_dmirror0", O_RDWR), i, *st = filled(16, 0);
	void **pages = page_array(p, 16, psz);

	if (fd < 0)
		SKIP(return, "no /dev/hmm_dmirror0 (CONFIG_TEST_HMM)");
	ASSERT_TRUE(p && pages && st && memset(p, 1, 16 * psz));
	if (ioctl(fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd))
		SKIP(return, "cannot migrate to the device: %s", strerror(errno));
	ASSERT_EQ(8, cmd.cpages);
	ASSERT_EQ(0, move_pages(0, 16, pages, NULL, st, 0));
	EXPECT_EQ(0, move_of(_metadata, "device_private", pages, pages, filled(16, n1), 16,
			     MPOL_MF_MOVE));
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(i >= 4 && i < 12 ? -ENOENT : n0, st[i]);
		EXPECT_EQ(i >= 4 && i < 12 ? -ENOENT : n1, mst[i]);
	}
}

TEST_HARNESS_MAIN
