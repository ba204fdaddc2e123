// SPDX-License-Identifier: GPL-2.0
/*
 * move_pages(2) over a layout of every kind of page and hole: the status
 * query (a NULL node list) through pointer arrays of every shape and of
 * lengths around the kernel's batches, moves checked by a query of the
 * pages afterwards, bad input, and a batch whose allocation fails.
 *
 * With MOVE_PAGES_STAT_DUMP set, statuses are printed as "# dump" lines
 * too, to compare two kernels.
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
#include <sys/wait.h>
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

/* Page, PMD and PUD sizes; the first two nodes with memory, one without */
static unsigned long psz, hpsz, gpsz;
static int n0, n1, no_node;

static long move_pages(int pid, unsigned long n, void **pages,
		       const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, pid, n, pages, nodes, status, flags);
}

/* A query 16 entries a call: stock 6.12 misreads longer compat ones */
static long query_16(int pid, unsigned long n, void **pages, int *status)
{
	unsigned long i;
	long ret = 0;

	for (i = 0; i < n && !ret; i += 16)
		ret = move_pages(pid, n - i < 16 ? n - i : 16, pages + i, NULL,
				 status + i, 0);
	return ret;
}

/* MPOL_BIND to @node for a range, or (@p NULL) the task's policy */
static int bind_node(void *p, size_t len, int node)
{
	unsigned long m[2] = { 0 };

	m[node / (8 * sizeof(long))] = 1UL << node % (8 * sizeof(long));
	if (!p)
		return syscall(SYS_set_mempolicy, len ? MPOL_BIND : 0,
			       len ? m : NULL, 8 * sizeof(m));
	return syscall(SYS_mbind, p, len, MPOL_BIND, m, 8 * sizeof(m), 0);
}

static unsigned long read_ulong(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long v = 0;

	if (f && fscanf(f, "%lu", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	ok = fd >= 0 && write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* @len of hugetlb pages of @size bound to @node, populated, or NULL */
static char *map_hugetlb(size_t len, size_t size, int node)
{
	char path[80], *p;

	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%zukB",
		 size >> 10);
	if (access(path, F_OK))
		return NULL;
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

/* @len aligned to @align on n0, for THPs if @thp, at @at if free */
static char *map_aligned(void *at, size_t len, size_t align, int thp)
{
	char *p = mmap(at, len + align, RW, ANON, -1, 0), *a;

	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (p == MAP_FAILED || (a > p && munmap(p, a - p)) ||
	    munmap(a + len, p + align - a) ||
	    madvise(a, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) ||
	    bind_node(a, len, n0))
		return NULL;
	return a;
}

/* The statuses as a "# dump" line, run-length encoded: "0x3 -2 1" */
static void print_statuses(const char *kind, const char *name,
			   const int *st, unsigned long n)
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

static void **page_array(char *base, unsigned long n)
{
	void **pages = malloc(n * sizeof(*pages));
	unsigned long i;

	for (i = 0; pages && i < n; i++)
		pages[i] = base + i * psz;
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

/*
 * move_pages() with this thread's next page allocation failed by
 * fail_page_alloc, its return value in *@ret: 1 if one failed, 0 if the
 * call allocated none, -ENODEV if the kernel cannot fail one, -1 if the
 * count cannot be read back.
 */
static int move_pages_failing_alloc(unsigned long n, void **pages,
				    const int *nodes, int *st, long *ret)
{
	static const char *const knob[] = {
		"task-filter Y", "ignore-gfp-wait N", "ignore-gfp-highmem N",
		"min-order 0", "probability 100", "interval 1", "space 0",
		"verbose 0", "times 1",
	};
	char path[128];
	unsigned int i;
	int fd, ok;

	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	for (i = 0; i < ARRAY_SIZE(knob); i++) {
		snprintf(path, sizeof(path), FAIL_PAGE_ALLOC "%.*s",
			 (int)strcspn(knob[i], " "), knob[i]);
		if (write_file(path, strchr(knob[i], ' ') + 1))
			return -ENODEV;
	}
	fd = open("/proc/thread-self/make-it-fail", O_WRONLY);
	if (fd < 0)
		return -ENODEV;
	/* Nothing between the two writes but the call allocates */
	ok = write(fd, "1", 1) == 1;
	if (ok)
		*ret = move_pages(0, n, pages, nodes, st, nodes ? MPOL_MF_MOVE : 0);
	ok = write(fd, "0", 1) == 1 && ok;
	close(fd);
	if (!ok || access(FAIL_PAGE_ALLOC "times", R_OK))
		return -1;
	return !read_ulong(FAIL_PAGE_ALLOC "times");
}

/* A layout: each page's status queried, and moved to n1 (UNSET: unknown) */
struct layout {
	void **pages;
	int *stat, *move;
	unsigned long n, small;	/* units: pages; small: the 4 KiB ones */
	pid_t sharer;	/* a child mapping the shared anonymous pages */
};

static void add(struct layout *l, char *p, unsigned long nr, int stat,
		int move)
{
	for (; nr--; p += psz, l->n++) {
		l->pages[l->n] = p;
		l->stat[l->n] = stat;
		l->move[l->n] = move;
	}
}

/*
 * On n0 unless said otherwise.  4 KiB pages: 8 written, 4 on n1, 2
 * untouched, 2 zero pages, 2 unmapped, 2 PROT_NONE, 2 mlocked, 1 zapped,
 * 1 read-only.  THPs: one, one on n1, one mapped by PTEs, the huge zero
 * page, one with its last page zapped.  Hugetlb: one page on each node.
 * memfd pages; shared anonymous pages a child maps too; a private file
 * mapping: page cache, COW, 2 past the end; the [vvar] page; NULL, the
 * top page, and on 64-bit a kernel and a non-canonical address.
 */
static void build_layout(struct __test_metadata *_metadata, struct layout *l)
{
	/* Low, where no later mmap() fills its holes */
	char *p = map_aligned((void *)(16UL << 24), 24 * psz, psz, 0);
	char *t = map_aligned(NULL, 5 * hpsz, hpsz, 1);
	char *shm = mmap(NULL, 4 * psz, RW, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fd = memfd_create("move_pages_stat", 0), i, pipefd[2];
	char *mfd = mmap(NULL, 4 * psz, RW, MAP_SHARED, fd, 0), *h, line[256];
	unsigned long hp = hpsz / psz, vvar = 0;
	FILE *maps;

	l->pages = malloc((40 + 7 * hp) * sizeof(*l->pages));
	l->stat = malloc((40 + 7 * hp) * sizeof(int));
	l->move = malloc((40 + 7 * hp) * sizeof(int));
	ASSERT_TRUE(l->pages && l->stat && l->move && p && t && !pipe(pipefd));
	ASSERT_TRUE(shm != MAP_FAILED && mfd != MAP_FAILED && !ftruncate(fd, 4 * psz));
	memset(shm, 1, 4 * psz);
	l->sharer = fork();
	if (!l->sharer) {
		for (i = 0; i < 4; i++)
			(void)*(volatile char *)&shm[i * psz];
		if (write(pipefd[1], "x", 1) == 1)
			pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(pipefd[0], &i, 1));
	ASSERT_EQ(0, bind_node(p + 8 * psz, 4 * psz, n1));
	memset(p, 1, 12 * psz);
	(void)*(volatile char *)&p[14 * psz];
	(void)*(volatile char *)&p[15 * psz];
	memset(p + 18 * psz, 1, 6 * psz);
	ASSERT_EQ(0, munmap(p + 16 * psz, 2 * psz));
	ASSERT_EQ(0, mprotect(p + 18 * psz, 2 * psz, PROT_NONE));
	ASSERT_EQ(0, mlock(p + 20 * psz, 2 * psz));
	ASSERT_EQ(0, madvise(p + 22 * psz, psz, MADV_DONTNEED));
	ASSERT_EQ(0, mprotect(p + 23 * psz, psz, PROT_READ));
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
	(void)*(volatile char *)&t[3 * hpsz];
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
	if (h && !bind_node(h + hpsz, hpsz, n1) &&
	    !madvise(h, 2 * hpsz, MADV_POPULATE_WRITE_)) {
		add(l, h, hp, n0, n1);
		add(l, h + hpsz, hp, n1, n1);
	}
	memset(mfd, 1, 4 * psz);
	add(l, mfd, 4, n0, n1);
	add(l, shm, 4, n0, -EACCES);
	close(fd);
	fd = open("/tmp/move_pages_stat.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_EQ((ssize_t)(2 * psz), write(fd, p, 2 * psz));
	h = mmap(NULL, 4 * psz, RW, MAP_PRIVATE, fd, 0);
	ASSERT_TRUE(h != MAP_FAILED && !unlink("/tmp/move_pages_stat.file"));
	(void)*(volatile char *)h;
	h[psz] = 1;
	add(l, h, 2, n0, n1);
	add(l, h + 2 * psz, 2, -ENOENT, -ENOENT);
	maps = fopen("/proc/self/maps", "r");
	while (maps && !vvar && fgets(line, sizeof(line), maps))
		if (strstr(line, "[vvar]"))
			vvar = strtoul(line, NULL, 16);
	/* VM_PFNMAP | VM_IO: not migratable */
	if (vvar)
		add(l, (char *)vvar, 1, UNSET, -EFAULT);
	add(l, NULL, 1, -EFAULT, -EFAULT);
	add(l, (char *)(-2 * psz), 1, -EFAULT, -EFAULT);
	/* As many entries in a 32-bit build */
	add(l, (char *)(uintptr_t)(sizeof(void *) == 8 ? 0xffffffff81000000ULL :
				   psz), 1, -EFAULT, -EFAULT);
	add(l, (char *)(uintptr_t)(sizeof(void *) == 8 ? 0x8000000000000000ULL :
				   psz), 1, -EFAULT, -EFAULT);
}

/* The sizes and nodes; page cache and memfd pages on n0; the layout */
static void setup(struct __test_metadata *_metadata, struct layout *l)
{
	FILE *f = fopen("/sys/devices/system/node/has_memory", "r");
	char has[1024] = { 0 }, sep = ',', prev;
	int a, b = 0, nr = 0;

	psz = sysconf(_SC_PAGESIZE);
	hpsz = read_ulong("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
	/* A PUD maps as many PMDs as a PMD maps pages */
	gpsz = hpsz * (hpsz / psz);
	/* A node list: "0-1", "0,2-3" */
	while (f && (sep == ',' || sep == '-')) {
		prev = sep;
		if (fscanf(f, "%d%c", &a, &sep) != 2)
			break;
		for (b = prev == '-' ? b + 1 : a; b <= a && b < 1024; b++)
			has[b] = 1;
		b = a;
	}
	if (f)
		fclose(f);
	for (a = 0; a < 1024; a++)
		if (has[a] && nr++ < 2)
			*(nr == 1 ? &n0 : &n1) = a;
	for (no_node = 0; has[no_node]; no_node++)
		;
	if (nr < 2 || !hpsz)
		SKIP(return, "needs THP and two nodes with memory (has %d)", nr);
	ASSERT_EQ(0, bind_node(NULL, 1, n0));
	build_layout(_metadata, l);
}

FIXTURE(stat) {
	struct layout l;
};

FIXTURE_SETUP(stat)
{
	setup(_metadata, &self->l);
}

FIXTURE_TEARDOWN(stat)
{
	if (self->l.sharer > 0)
		kill(self->l.sharer, SIGKILL);
}

/* Entries up to @n of @st as @want says, and nothing written past them */
static void check_stat(struct __test_metadata *_metadata, const int *want,
		       const int *st, unsigned long n, unsigned long upto)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (i >= upto || want[i] != UNSET)
			ASSERT_EQ(i < upto ? want[i] : UNSET, st[i])
				TH_LOG("entry %lu", i);
}

/* Every page of the layout gets its status */
TEST_F(stat, layout)
{
	int *st = filled(self->l.n + 1, UNSET);

	ASSERT_EQ(0, move_pages(0, self->l.n, self->l.pages, NULL, st, 0));
	print_statuses("N", "layout", st, self->l.n + 1);
	check_stat(_metadata, self->l.stat, st, self->l.n + 1, self->l.n);
}

/*
 * Lengths around do_pages_stat()'s batches: 16 pointers on the stack, or
 * a page of 64-bit or of 32-bit kernel pointers.
 */
#define STAT_LENGTHS(b)	{ 1, 15, 16, 17, (b) / 8 - 1, (b) / 8, (b) / 8 + 1, \
			  (b) / 4 - 1, (b) / 4, (b) / 4 + 1, (b) / 2 + 17 }

/*
 * Pointer arrays of every shape over the layout, ending where an unmapped
 * page starts: each entry gets its page's status; one entry more gives
 * -EFAULT, the statuses of the 16-entry chunks before the unreadable
 * entry's, and nothing else.
 */
TEST_F_TIMEOUT(stat, arrays, 600)
{
	static const char *const shapes[] = {
		"consecutive", "unaligned", "duplicated", "reversed", "shuffled",
	};
	const unsigned long lens[] = STAT_LENGTHS(psz);
	unsigned long n, i, k, s, pg, nr = self->l.n;
	int *st, *want;
	uint64_t seed = 1;
	void **pages;
	char name[64];

	for (k = 0; k < ARRAY_SIZE(lens) * ARRAY_SIZE(shapes); k++) {
		n = lens[k / ARRAY_SIZE(shapes)];
		s = k % ARRAY_SIZE(shapes);
		want = filled(n, 0);
		pages = malloc(n * sizeof(*pages));
		ASSERT_TRUE(want && pages);
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
		snprintf(name, sizeof(name), "%s_%lu", shapes[s], n);
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

/*
 * @nr huge pages of @size on n0 moved to n1: every status n1 (stock 6.12:
 * -EBUSY for the address after the first of each) but in a PUD page, and
 * every page on n1 afterwards.
 */
static void move_huge(struct __test_metadata *_metadata, char *p, int nr,
		      size_t size)
{
	unsigned long n = nr * size / psz, i, bad = 0;
	void **pages = page_array(p, n);
	int *nodes = filled(n, n1), *st = filled(n, UNSET);

	if (!p || madvise(p, nr * size, MADV_POPULATE_WRITE_))
		SKIP(return, "no %d huge pages on node %d", nr, n0);
	ASSERT_TRUE(pages && nodes && st);
	ASSERT_EQ(0, query_16(0, n, pages, st));
	for (i = 0; i < n; i++)
		if (st[i] != n0)
			SKIP(return, "page %lu: %d, not on node %d", i, st[i], n0);
	ASSERT_EQ(0, move_pages(0, n, pages, nodes, st, MPOL_MF_MOVE));
	for (i = 0; size < gpsz && i < n; i++)
		if (st[i] != n1 && !bad++)
			TH_LOG("page %lu: status %d", i, st[i]);
	ASSERT_EQ(0, query_16(0, n, pages, nodes));
	for (i = 0; i < n; i++)
		bad += nodes[i] != n1;
	EXPECT_EQ(0, bad) TH_LOG("%lu statuses or pages not node %d", bad, n1);
}

TEST_F(stat, move_thp)
{
	move_huge(_metadata, map_aligned(NULL, 4 * hpsz, hpsz, 1), 4, hpsz);
}

TEST_F(stat, move_hugetlb_2m)
{
	move_huge(_metadata, map_hugetlb(4 * hpsz, hpsz, n0), 4, hpsz);
}

/* And a PUD page, then another made PROT_NONE: not pud_present() on x86 */
TEST_F_TIMEOUT(stat, hugetlb_1g, 600)
{
	char *p = sizeof(void *) == 8 ? map_hugetlb(gpsz, gpsz, n0) : NULL;
	void *pages[2] = { p, p + gpsz - psz };
	int st[2];

	if (!p)
		SKIP(return, "no PUD-size hugetlb page (or 32-bit)");
	ASSERT_EQ(0, munmap(p, gpsz));
	move_huge(_metadata, map_hugetlb(gpsz, gpsz, n0), 1, gpsz);
	if (_metadata->exit_code)
		return;
	p = map_hugetlb(gpsz, gpsz, n0);
	ASSERT_TRUE(p && !mprotect(p, gpsz, PROT_NONE));
	pages[0] = p;
	pages[1] = p + gpsz - psz;
	ASSERT_EQ(0, move_pages(0, 2, pages, NULL, st, 0));
	EXPECT_EQ(-ENOENT, st[0]);
	EXPECT_EQ(-ENOENT, st[1]);
}

struct race {
	char *p;
	int stop;
	unsigned long changes;
};

/* Map over, PROT_NONE and back, fault, collapse or zap, read a zero page */
static void *race_mutate(void *arg)
{
	struct race *r = arg;
	unsigned long i;
	char *q;

	for (i = 0; !__atomic_load_n(&r->stop, __ATOMIC_RELAXED); i++) {
		q = r->p + (i / 6 % 4) * hpsz;
		if (i % 6 == 0)
			mmap(q, hpsz, RW, ANON | MAP_FIXED, -1, 0);
		else if (i % 6 < 3)
			mprotect(q, hpsz, i % 6 == 1 ? PROT_NONE : RW);
		else if (i % 6 == 3)
			memset(q, 1, hpsz);
		else if (i % 6 == 4)
			madvise(q, hpsz, i % 12 < 6 ? MADV_COLLAPSE_ : MADV_DONTNEED);
		else
			(void)*(volatile char *)(q + hpsz - psz);
		__atomic_store_n(&r->changes, i + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * Queries while another thread changes the range: each status one some
 * state of its page gives (n0, -ENOENT, or -EFAULT for a zero page), the
 * range changed during the queries and they saw it change.
 */
TEST_F_TIMEOUT(stat, concurrent, 600)
{
	unsigned long n = 4 * hpsz / psz, i, changes, bad = 0, seen = 0;
	struct race r = { .p = map_aligned(NULL, 4 * hpsz, hpsz, 1) };
	int *st = filled(n, UNSET), *prev = filled(n, n0), q;
	void **pages = page_array(r.p, n);
	pthread_t t;

	ASSERT_TRUE(r.p && pages && st && prev);
	memset(r.p, 1, 4 * hpsz);
	ASSERT_EQ(0, pthread_create(&t, NULL, race_mutate, &r));
	while (!__atomic_load_n(&r.changes, __ATOMIC_RELAXED))
		usleep(1000);
	changes = __atomic_load_n(&r.changes, __ATOMIC_RELAXED);
	for (q = 0; q < 300 && !bad; q++) {
		ASSERT_EQ(0, move_pages(0, n, pages, NULL, st, 0));
		for (i = 0; i < n; i++)
			if (st[i] != n0 && st[i] != -ENOENT && st[i] != -EFAULT &&
			    !bad++)
				TH_LOG("query %d, page %lu: %d", q, i, st[i]);
		seen += !!memcmp(st, prev, n * sizeof(*st));
		memcpy(prev, st, n * sizeof(*st));
	}
	changes = __atomic_load_n(&r.changes, __ATOMIC_RELAXED) - changes;
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	EXPECT_EQ(0, bad);
	EXPECT_LE(6, changes) TH_LOG("%lu changes during the queries", changes);
	EXPECT_LE(2, seen) TH_LOG("%lu queries saw a change", seen);
}

/* Over 16 pages take a page for the pointers; failed, the stack will do */
TEST_F(stat, page_alloc_fails)
{
	int *st = filled(self->l.n + 1, UNSET), failed;
	long ret;

	failed = move_pages_failing_alloc(self->l.n, self->l.pages, NULL, st,
					  &ret);
	if (failed == -ENODEV)
		SKIP(return, "no fail_page_alloc in this kernel");
	ASSERT_LE(0, failed) TH_LOG("fail_page_alloc's count unreadable");
	if (!failed)
		SKIP(return, "the query allocates no page");
	EXPECT_EQ(0, ret);
	check_stat(_metadata, self->l.stat, st, self->l.n + 1, self->l.n);
}

/* Bad arguments: the return value and errno */
TEST_F(stat, bad_input)
{
	void **pages = self->l.pages, **end4 = array_to_hole(pages, sizeof(*pages), 4);
	char *ro = mmap(NULL, psz, PROT_READ, ANON, -1, 0);
	int st[4] = { UNSET, UNSET, UNSET, UNSET };

	EXPECT_EQ(0, move_pages(0, 0, pages, NULL, st, 0));
	/* MPOL_MF_MOVE is accepted without nodes, no other flag is */
	EXPECT_EQ(0, move_pages(0, 4, pages, NULL, st, MPOL_MF_MOVE));
	EXPECT_EQ(-1, move_pages(0, 4, pages, NULL, st, 0x100));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, move_pages(0x3fffffff, 4, pages, NULL, st, 0));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, move_pages(0, 4, (void **)16, NULL, st, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, move_pages(0, 4, pages, NULL, (int *)ro, 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, move_pages(0, 4, pages, NULL, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	/* A huge count over 4 pointers before a hole: nothing written */
	memcpy(st, filled(4, UNSET), sizeof(st));
	EXPECT_EQ(-1, move_pages(0, ~0UL >> 1, end4, NULL, st, 0));
	EXPECT_EQ(EFAULT, errno);
	check_stat(_metadata, st, st, 4, 0);
	/* Unprivileged: MPOL_MF_MOVE_ALL */
	if (!fork())
		_exit(setuid(65534) || move_pages(0, 4, pages, NULL, st,
						  MPOL_MF_MOVE_ALL) != -1 ||
		      errno != EPERM);
	wait(st);
	EXPECT_EQ(0, WEXITSTATUS(st[0]));
}

/* A status array read-only after a page of it: -EFAULT, that page written */
TEST_F(stat, bad_status_halfway)
{
	char *p = mmap(NULL, 3 * psz, RW, ANON, -1, 0);
	unsigned long n = 2 * psz / sizeof(int), i;
	/* Twice as long: stock's 32-bit misread stays on these pointers */
	void **pages = malloc(2 * n * sizeof(*pages));
	int *sb = (int *)(p + psz);

	ASSERT_TRUE(p != MAP_FAILED && pages);
	for (i = 0; i < 2 * n; i++)
		pages[i] = p;
	p[0] = 1;
	memcpy(sb, filled(n / 2, UNSET), psz);
	ASSERT_EQ(0, mprotect(p + 2 * psz, psz, PROT_READ));
	EXPECT_EQ(-1, move_pages(0, n, pages, NULL, sb, 0));
	EXPECT_EQ(EFAULT, errno);
	for (i = 0; i < n / 2; i++)
		ASSERT_EQ(n0, sb[i]) TH_LOG("status %lu", i);
}

struct move {
	long ret;	/* what move_pages() returned, or -errno */
	int *st;	/* the statuses */
	int *after;	/* the node of each page afterwards */
};

/*
 * Move @n pages of @pid to @nodes; @pages may end halfway, the nodes
 * after are @all's.  Dumps: the return value or -errno (R), the
 * statuses (M), the nodes after (F).
 */
static struct move move_of(struct __test_metadata *_metadata,
			   const char *name, pid_t pid, void **pages,
			   void **all, const int *nodes, unsigned long n,
			   int flags)
{
	struct move m = { .st = filled(n + 1, UNSET), .after = filled(n, 0) };

	ASSERT_TRUE(m.st && m.after);
	errno = 0;
	m.ret = move_pages(pid, n, pages, nodes, m.st, flags);
	if (m.ret < 0)
		m.ret = -errno;
	if (DUMP)
		printf("# dump R %s: %ld\n", name, m.ret);
	print_statuses("M", name, m.st, n);
	ASSERT_EQ(UNSET, m.st[n]) TH_LOG("%s: status past the end", name);
	ASSERT_EQ(0, query_16(pid, n, all, m.after));
	print_statuses("F", name, m.after, n);
	return m;
}

FIXTURE(move) {
	struct layout l;
};

FIXTURE_SETUP(move)
{
	setup(_metadata, &self->l);
}

FIXTURE_TEARDOWN(move)
{
	if (self->l.sharer > 0)
		kill(self->l.sharer, SIGKILL);
}

/*
 * Entries @from to @to of the layout moved to @nodes: each status as
 * predicted, or its target node for a page that moves, and there after.
 */
static void check_move(struct __test_metadata *_metadata, struct layout *l,
		       struct move *m, const int *nodes, unsigned long from,
		       unsigned long to, int all)
{
	unsigned long i;
	int want;

	for (i = from; i < to; i++) {
		want = l->move[i] == -EACCES && all ? n1 : l->move[i];
		want = want == n1 ? nodes[i - from] : want;
		if (want != UNSET)
			EXPECT_EQ(want, m->st[i - from]) TH_LOG("entry %lu", i);
		if (want >= 0)
			EXPECT_EQ(want, m->after[i - from]) TH_LOG("page %lu", i);
	}
}

static void move_layout(struct __test_metadata *_metadata, struct layout *l,
			const char *name, int flags, int blocks)
{
	int *nodes = filled(l->n, n1);
	unsigned long i;
	struct move m;

	/* Target nodes changing page by page, then every 100 pages */
	for (i = 0; blocks && i < l->n; i++)
		nodes[i] = (i < l->small ? i : i / 100) & 1 ? n1 : n0;
	m = move_of(_metadata, name, 0, l->pages, l->pages, nodes, l->n, flags);
	EXPECT_EQ(0, m.ret);
	check_move(_metadata, l, &m, nodes, 0, blocks ? l->small : l->n,
		   flags & MPOL_MF_MOVE_ALL);
}

TEST_F(move, to_node_1)
{
	move_layout(_metadata, &self->l, "to_node_1", MPOL_MF_MOVE, 0);
}

TEST_F(move, move_all)
{
	move_layout(_metadata, &self->l, "move_all", MPOL_MF_MOVE_ALL, 0);
}

TEST_F(move, blocks)
{
	move_layout(_metadata, &self->l, "blocks", MPOL_MF_MOVE, 1);
}

/* The layout backwards, every address twice: both get the same status */
TEST_F(move, reversed_twice)
{
	struct layout *l = &self->l;
	unsigned long n = 2 * l->n, i;
	void **pages = malloc(n * sizeof(*pages));
	int *nodes = filled(n, n1), *want = filled(n, 0);
	struct move m;

	ASSERT_TRUE(pages && nodes && want);
	for (i = 0; i < n; i++) {
		pages[i] = l->pages[l->n - 1 - i / 2];
		want[i] = l->move[l->n - 1 - i / 2];
	}
	m = move_of(_metadata, "reversed_twice", 0, pages, pages, nodes, n,
		    MPOL_MF_MOVE);
	EXPECT_EQ(0, m.ret);
	check_stat(_metadata, want, m.st, n + 1, n);
}

/*
 * Consecutive calls of lengths around do_pages_move()'s batches: 4
 * entries on the stack, or a page of them (a pointer, a node, a status).
 */
TEST_F(move, small_calls)
{
	const unsigned long lens[] = {
		1, 3, 4, 5, psz / 16 - 1, psz / 16, psz / 16 + 1,
	};
	int *nodes = filled(self->l.n, n1);
	unsigned long k, at = 0;
	char name[32];
	struct move m;

	for (k = 0; k < ARRAY_SIZE(lens); at += lens[k++]) {
		snprintf(name, sizeof(name), "small_%lu", lens[k]);
		ASSERT_LE(at + lens[k], self->l.n);
		m = move_of(_metadata, name, 0, self->l.pages + at,
			    self->l.pages + at, nodes, lens[k], MPOL_MF_MOVE);
		EXPECT_EQ(0, m.ret);
		check_move(_metadata, &self->l, &m, nodes, at, at + lens[k], 0);
	}
}

/*
 * Over 4 entries take a page for the arrays; failed, the stack will do.
 * The 4 KiB pages are on n1 already: no migration allocates.
 */
TEST_F(move, page_alloc_fails)
{
	struct layout *l = &self->l;
	int *nodes = filled(l->small, n1), *st = filled(l->small + 1, UNSET);
	int failed;
	long ret;

	ASSERT_EQ(0, move_pages(0, l->small, l->pages, nodes, st, MPOL_MF_MOVE));
	failed = move_pages_failing_alloc(l->small, l->pages, nodes, st, &ret);
	if (failed == -ENODEV)
		SKIP(return, "no fail_page_alloc in this kernel");
	ASSERT_LE(0, failed) TH_LOG("fail_page_alloc's count unreadable");
	if (!failed)
		SKIP(return, "the move allocates no page");
	EXPECT_EQ(0, ret);
	check_stat(_metadata, l->move, st, l->small + 1, l->small);
}

/*
 * To a node outside the task's cpuset (mems n0): -EACCES at the first
 * such entry, the statuses before it, none after, and no page moved.
 */
TEST_F(move, outside_cpuset)
{
	const char *cg = "/sys/fs/cgroup/move_pages_stat";
	struct layout *l = &self->l;
	int *nodes = filled(l->n, n1), *before = filled(l->n, 0);
	unsigned long i, at = l->small / 2;
	char path[64], pid[16];
	struct move m;

	mkdir("/sys/fs/cgroup", 0755);
	mount("none", "/sys/fs/cgroup", "cgroup2", 0, NULL);
	if (write_file("/sys/fs/cgroup/cgroup.subtree_control", "+cpuset"))
		SKIP(return, "no cgroup v2 cpuset controller");
	mkdir(cg, 0755);
	snprintf(path, sizeof(path), "%s/cpuset.mems", cg);
	snprintf(pid, sizeof(pid), "%d", n0);
	ASSERT_EQ(0, write_file(path, pid));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(0, write_file(path, pid));
	ASSERT_EQ(0, query_16(0, l->n, l->pages, before));
	for (i = 0; i < at; i++)
		nodes[i] = n0;
	m = move_of(_metadata, "outside_cpuset", 0, l->pages, l->pages, nodes,
		    l->n, MPOL_MF_MOVE);
	write_file("/sys/fs/cgroup/cgroup.procs", pid);
	rmdir(cg);
	EXPECT_EQ(-EACCES, m.ret);
	check_move(_metadata, l, &m, nodes, 0, at, 0);
	check_stat(_metadata, m.st, m.st, l->n, at);
	check_stat(_metadata, before, m.after, l->n, l->n);
}

/*
 * A bad node, pointer or node array that ends halfway: -ENODEV or
 * -EFAULT, the entries before it moved, none from it on.  A status array
 * that ends: -EFAULT.
 */
TEST_F(move, halfway)
{
	struct layout *l = &self->l;
	const unsigned long ks[] = { 5, l->n / 3, l->n / 2, 2 * l->n / 3 };
	const int bad[] = { -1, no_node, 1 << 20 };
	int *nodes = filled(l->n, n1), *cut;
	unsigned long k, i, a;
	char name[48];
	void **pages;
	struct move m;

	for (a = 0; a < 2 * ARRAY_SIZE(ks) + ARRAY_SIZE(bad); a++) {
		k = ks[a < 8 ? a % 4 : 2];
		for (i = 0; i < l->n; i++)
			nodes[i] = a < 4 || a >= 8 ? n1 : (i / 100) & 1 ? n1 : n0;
		if (a >= 8)
			nodes[k] = bad[a - 8];
		pages = a < 4 ? array_to_hole(l->pages, sizeof(void *), k) : l->pages;
		cut = a < 4 || a >= 8 ? nodes : array_to_hole(nodes, sizeof(int), k);
		ASSERT_TRUE(pages && cut);
		if (a < 8)
			snprintf(name, sizeof(name), "%s_end_%lu",
				 a < 4 ? "pages" : "nodes", k);
		else
			snprintf(name, sizeof(name), "bad_node_%d", bad[a - 8]);
		m = move_of(_metadata, name, 0, pages, l->pages, cut, l->n,
			    MPOL_MF_MOVE);
		EXPECT_EQ(a < 8 ? -EFAULT : -ENODEV, m.ret);
		check_move(_metadata, l, &m, nodes, 0, k < l->small ? k : l->small, 0);
		check_stat(_metadata, m.st, m.st, l->n, k);
	}
	for (k = 5; k < l->small; k += 8) {
		cut = array_to_hole(nodes, sizeof(int), k);
		ASSERT_TRUE(!!cut);
		EXPECT_EQ(-1, move_pages(0, l->small, l->pages, nodes, cut,
					 MPOL_MF_MOVE));
		EXPECT_EQ(EFAULT, errno);
	}
}

/* Another process's THP and 64 pages, by pid */
TEST_F(move, by_pid)
{
	unsigned long n = 64 + hpsz / psz, i;
	char *p = map_aligned(NULL, 2 * hpsz, hpsz, 1);
	void **pages = page_array(p, n);
	int *nodes = filled(n, n1), pipefd[2];
	struct move m;
	pid_t pid;

	ASSERT_TRUE(p && pages && nodes && !pipe(pipefd));
	ASSERT_EQ(0, madvise(p + hpsz, hpsz, MADV_NOHUGEPAGE));
	pid = fork();
	if (!pid) {
		memset(p, 2, n * psz);
		if (write(pipefd[1], "x", 1) == 1)
			pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(pipefd[0], &pipefd[0], 1));
	m = move_of(_metadata, "by_pid", pid, pages, pages, nodes, n,
		    MPOL_MF_MOVE);
	kill(pid, SIGKILL);
	EXPECT_EQ(0, m.ret);
	for (i = 0; i < n; i++) {
		if (i >= hpsz / psz)
			EXPECT_EQ(n1, m.st[i]) TH_LOG("page %lu", i);
		EXPECT_EQ(n1, m.after[i]) TH_LOG("page %lu", i);
	}
}

/*
 * 16 pages on n0, 4-11 migrated to the dmirror device (CONFIG_TEST_HMM):
 * those are -ENOENT to a query, and stay when moved; the others move.
 */
TEST_F(move, device_private)
{
	struct hmm_dmirror_cmd cmd = { .npages = 8 };
	int fd = open("/dev/hmm_dmirror0", O_RDWR), i, *st = filled(16, 0);
	char *p = map_aligned(NULL, 16 * psz, psz, 0);
	void **pages = page_array(p, 16);
	struct move m;

	if (fd < 0)
		SKIP(return, "no /dev/hmm_dmirror0 (CONFIG_TEST_HMM)");
	ASSERT_TRUE(p && pages && st);
	memset(p, 1, 16 * psz);
	cmd.addr = (uintptr_t)(p + 4 * psz);
	cmd.ptr = (uintptr_t)malloc(8 * psz);
	if (ioctl(fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd))
		SKIP(return, "cannot migrate to the device: %s", strerror(errno));
	ASSERT_EQ(8, cmd.cpages);
	ASSERT_EQ(0, move_pages(0, 16, pages, NULL, st, 0));
	print_statuses("N", "device_private", st, 16);
	m = move_of(_metadata, "device_private", 0, pages, pages,
		    filled(16, n1), 16, MPOL_MF_MOVE);
	EXPECT_EQ(0, m.ret);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(i >= 4 && i < 12 ? -ENOENT : n0, st[i]);
		EXPECT_EQ(i >= 4 && i < 12 ? -ENOENT : n1, m.st[i]);
	}
}

TEST_HARNESS_MAIN
