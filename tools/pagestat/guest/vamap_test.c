// SPDX-License-Identifier: GPL-2.0
/*
 * Test of tools/mm/numa_vamap in the pagestat guest (two nodes, 2 MiB
 * hugetlb pages on each, THP on madvise).  Builds a known layout: 4 KiB
 * pages on node 0 and node 1 with holes, a shared zero page and a VMA gap,
 * THPs on each node, 2 MiB hugetlb pages on each node, and a 64 GiB
 * MAP_NORESERVE mapping with a few pages touched.  Runs
 * `numa_vamap --json` on itself and on a fork()ed child that changes the
 * layout a little, and checks:
 *  - every range it built is one range of the map, on its node, every hole
 *    is in no range, and the built VMAs hold no other range;
 *  - the map is, range by range, what a naive move_pages(2) pass over every
 *    page implies (the built VMAs for itself, every VMA for the child);
 *  - the totals per node are the sums of the ranges;
 *  - `numa_vamap --naive` gives the same map, START-END clips it, and a
 *    vanished or exited process gets an error, not a map.
 * Prints "ok - NAME" or "not ok - NAME" per check; exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define GIB		(1UL << 30)
#define MPOL_DEFAULT	0
#define MPOL_BIND	2
#define MAX_RANGES	(1 << 16)
#define MAX_NODES	64

struct range {
	unsigned long start, end;
	int node;
};

struct map {
	struct range r[MAX_RANGES];
	int n;
	unsigned long totals[MAX_NODES];
	int status;
	char err[4096];
};

/* What the test built: ranges on a node (node >= 0) and holes (node -1). */
static struct range built[2048];
static int nr_built;
/* The VMAs it built: no other range may be in them. */
static struct range built_vmas[16];
static int nr_built_vmas;

static const char *tool = "/bin/numa_vamap";
static int failures;

static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures += !ok;
}

static long set_node(int node)
{
	unsigned long mask = 1UL << node;

	if (node < 0)
		return syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
	return syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 8 * sizeof(mask));
}

/* Write-fault [p, p + len) on node; record it as built. */
static void place(char *p, unsigned long len, int node)
{
	unsigned long off;

	if (set_node(node)) {
		perror("set_mempolicy");
		exit(1);
	}
	for (off = 0; off < len; off += PAGE)
		p[off] = 1;
	set_node(-1);
	built[nr_built++] = (struct range){ (unsigned long)p,
					    (unsigned long)p + len, node };
}

static void hole(char *p, unsigned long len)
{
	built[nr_built++] = (struct range){ (unsigned long)p,
					    (unsigned long)p + len, -1 };
}

static void add_vma(char *p, unsigned long len)
{
	built_vmas[nr_built_vmas++] = (struct range){ (unsigned long)p,
						      (unsigned long)p + len, 0 };
}

static char *map_aligned(unsigned long len, int flags)
{
	char *p = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	return (char *)(((unsigned long)p + HPAGE - 1) & ~(HPAGE - 1));
}

static int build_layout(void)
{
	char *a, *b, *c, *d;
	volatile char sink;
	int i;

	/* 4 KiB pages on both nodes, holes, a zero page, a VMA gap. */
	a = map_aligned(96 * PAGE, 0);
	if (!a || madvise(a, 96 * PAGE, MADV_NOHUGEPAGE))
		return -1;
	place(a, 16 * PAGE, 0);
	place(a + 16 * PAGE, 16 * PAGE, 1);
	hole(a + 32 * PAGE, 16 * PAGE);
	place(a + 48 * PAGE, 8 * PAGE, 1);
	place(a + 56 * PAGE, 8 * PAGE, 0);
	sink = a[64 * PAGE];		/* the shared zero page: on no node */
	(void)sink;
	hole(a + 64 * PAGE, 16 * PAGE);
	munmap(a + 80 * PAGE, 8 * PAGE);
	hole(a + 88 * PAGE, 2 * PAGE);
	place(a + 90 * PAGE, PAGE, 1);
	hole(a + 91 * PAGE, 5 * PAGE);
	add_vma(a, 80 * PAGE);
	add_vma(a + 88 * PAGE, 8 * PAGE);

	/* THPs: node 0, node 1, a hole, node 0. */
	b = map_aligned(4 * HPAGE, 0);
	if (!b || madvise(b, 4 * HPAGE, MADV_HUGEPAGE))
		return -1;
	place(b, HPAGE, 0);
	place(b + HPAGE, HPAGE, 1);
	hole(b + 2 * HPAGE, HPAGE);
	place(b + 3 * HPAGE, HPAGE, 0);
	add_vma(b, 4 * HPAGE);

	/* 2 MiB hugetlb pages: node 0, node 1, a hole, node 1. */
	c = mmap(NULL, 4 * HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (c == MAP_FAILED) {
		perror("mmap(MAP_HUGETLB)");
		return -1;
	}
	place(c, HPAGE, 0);
	place(c + HPAGE, HPAGE, 1);
	hole(c + 2 * HPAGE, HPAGE);
	place(c + 3 * HPAGE, HPAGE, 1);
	add_vma(c, 4 * HPAGE);

	/* 64 GiB, sparse: a few pages touched. */
	d = mmap(NULL, 64 * GIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (d == MAP_FAILED || madvise(d, 64 * GIB, MADV_NOHUGEPAGE)) {
		perror("mmap 64 GiB");
		return -1;
	}
	place(d, PAGE, 0);
	hole(d + PAGE, GIB);
	place(d + GIB + 5 * PAGE, PAGE, 1);
	place(d + 17 * GIB, 3 * PAGE, 1);
	place(d + 17 * GIB + 3 * PAGE, 2 * PAGE, 0);
	hole(d + 17 * GIB + 5 * PAGE, 15 * GIB);
	/* More regions than one PAGEMAP_SCAN call returns. */
	for (i = 0; i < 1200; i++)
		place(d + 40 * GIB + 2 * i * PAGE, PAGE, i % 2);
	place(d + 64 * GIB - PAGE, PAGE, 0);
	add_vma(d, 64 * GIB);
	return 0;
}

/* Run the tool; parse its JSON (one range per line) into m. */
static void run_tool(struct map *m, const char *const *argv)
{
	char *buf = NULL, *line, *next, *t;
	size_t size = 0, len = 0;
	int out[2], err[2], st;
	ssize_t r;
	pid_t p;

	memset(m->totals, 0, sizeof(m->totals));
	m->n = 0;
	m->err[0] = 0;
	if (pipe(out) || pipe(err)) {
		perror("pipe");
		exit(1);
	}
	p = fork();
	if (!p) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], (char *const *)argv);
		perror(argv[0]);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	for (;;) {
		if (size - len < 65536) {
			size = size ? 2 * size : 1 << 20;
			buf = realloc(buf, size + 1);
			if (!buf)
				exit(1);
		}
		r = read(out[0], buf + len, size - len);
		if (r <= 0)
			break;
		len += r;
	}
	buf[len] = 0;
	r = read(err[0], m->err, sizeof(m->err) - 1);
	m->err[r > 0 ? r : 0] = 0;
	close(out[0]);
	close(err[0]);
	waitpid(p, &st, 0);
	m->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	for (line = buf; *line; line = next) {
		struct range *x = &m->r[m->n];
		unsigned long pages;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (sscanf(line, "  {\"start\": \"%lx\", \"end\": \"%lx\", \"node\": %d, \"pages\": %lu}",
			   &x->start, &x->end, &x->node, &pages) == 4) {
			if (m->n + 1 < MAX_RANGES)
				m->n++;
		}
		t = strstr(line, "\"totals\": {");
		if (t) {
			int node, k;
			unsigned long n;

			for (t += 11; sscanf(t, " \"%d\": %lu%n", &node, &n,
					     &k) == 2; t += k) {
				if (node >= 0 && node < MAX_NODES)
					m->totals[node] = n;
				if (t[k] == ',')
					t++;
			}
		}
	}
	free(buf);
}

static void vamap(struct map *m, pid_t pid, const char *opt, const char *rng)
{
	char spid[32];
	const char *argv[6] = { tool, "--json" };
	int n = 2;

	snprintf(spid, sizeof(spid), "%d", (int)pid);
	if (opt)
		argv[n++] = opt;
	argv[n++] = spid;
	if (rng)
		argv[n++] = rng;
	argv[n] = NULL;
	run_tool(m, argv);
}

/* A naive pass: move_pages(2) about every page of [start, end). */
static void naive(struct map *m, pid_t pid, unsigned long start,
		  unsigned long end)
{
	enum { N = 1 << 16 };
	static void *pages[N];
	static int status[N];
	unsigned long a, n, i;

	for (a = start; a < end; a += n * PAGE) {
		n = (end - a) / PAGE < N ? (end - a) / PAGE : N;
		for (i = 0; i < n; i++)
			pages[i] = (void *)(a + i * PAGE);
		if (syscall(SYS_move_pages, pid, n, pages, NULL, status, 0)) {
			perror("move_pages");
			exit(1);
		}
		for (i = 0; i < n; i++) {
			struct range *x = m->n ? &m->r[m->n - 1] : NULL;
			unsigned long p = a + i * PAGE;

			if (status[i] < 0)
				continue;
			if (x && x->end == p && x->node == status[i] &&
			    p != start) {
				x->end = p + PAGE;
			} else if (m->n < MAX_RANGES) {
				m->r[m->n++] = (struct range){ p, p + PAGE,
							       status[i] };
			}
			if (status[i] < MAX_NODES)
				m->totals[status[i]]++;
		}
	}
}

/* The naive map of every VMA of pid, as /proc/pid/maps lists them. */
static void naive_all(struct map *m, pid_t pid)
{
	unsigned long s, e;
	char path[64], line[512];
	FILE *f;

	m->n = 0;
	memset(m->totals, 0, sizeof(m->totals));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s < (1UL << 47))
			naive(m, pid, s, e);
	if (f)
		fclose(f);
}

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int in(const struct range *r, const struct range *v)
{
	return r->start >= v->start && r->end <= v->end;
}

/* The ranges of m that lie in the built VMAs, into out. */
static void built_part(const struct map *m, struct map *out)
{
	int i, j;

	out->n = 0;
	for (i = 0; i < m->n; i++)
		for (j = 0; j < nr_built_vmas; j++)
			if (in(&m->r[i], &built_vmas[j]))
				out->r[out->n++] = m->r[i];
}

static int same_ranges(const struct map *a, const struct map *b,
		       const char *what)
{
	int i;

	for (i = 0; i < a->n && i < b->n; i++)
		if (a->r[i].start != b->r[i].start ||
		    a->r[i].end != b->r[i].end || a->r[i].node != b->r[i].node)
			break;
	if (i == a->n && i == b->n)
		return 1;
	printf("# %s: first difference at range %d of %d/%d:", what, i, a->n,
	       b->n);
	if (i < a->n)
		printf(" %lx-%lx N%d", a->r[i].start, a->r[i].end,
		       a->r[i].node);
	else
		printf(" (none)");
	if (i < b->n)
		printf(" against %lx-%lx N%d", b->r[i].start, b->r[i].end,
		       b->r[i].node);
	else
		printf(" against (none)");
	printf("\n");
	return 0;
}

/* Every built range is a range of the map; holes are in none. */
static void check_layout(const struct map *m, const char *who)
{
	int i, j, bad = 0, inside;

	for (i = 0; i < nr_built; i++) {
		const struct range *b = &built[i];
		int found = 0;

		for (j = 0; j < m->n; j++) {
			const struct range *r = &m->r[j];

			if (b->node >= 0 && r->start == b->start &&
			    r->end == b->end && r->node == b->node)
				found = 1;
			if (b->node < 0 && r->start < b->end &&
			    r->end > b->start) {
				printf("# %s: hole %lx-%lx overlaps range %lx-%lx N%d\n",
				       who, b->start, b->end, r->start, r->end,
				       r->node);
				bad++;
			}
		}
		if (b->node >= 0 && !found) {
			printf("# %s: no range %lx-%lx N%d in the map\n", who,
			       b->start, b->end, b->node);
			bad++;
		}
	}
	for (j = 0; j < m->n; j++) {
		const struct range *r = &m->r[j];

		inside = 0;
		for (i = 0; i < nr_built_vmas; i++)
			inside |= r->start < built_vmas[i].end &&
				  r->end > built_vmas[i].start;
		if (!inside)
			continue;
		for (i = 0; i < nr_built; i++)
			if (built[i].node >= 0 && r->start == built[i].start &&
			    r->end == built[i].end)
				break;
		if (i == nr_built) {
			printf("# %s: range %lx-%lx N%d was not built\n", who,
			       r->start, r->end, r->node);
			bad++;
		}
	}
	check(!bad, "%s: every built range and hole is in the map", who);
}

static void check_totals(const struct map *m, const char *who)
{
	unsigned long sum[MAX_NODES] = { 0 }, built_sum[MAX_NODES] = { 0 };
	int i, ok = 1;

	for (i = 0; i < m->n; i++)
		if (m->r[i].node < MAX_NODES)
			sum[m->r[i].node] += (m->r[i].end - m->r[i].start) /
					     PAGE;
	for (i = 0; i < nr_built; i++)
		if (built[i].node >= 0)
			built_sum[built[i].node] +=
				(built[i].end - built[i].start) / PAGE;
	for (i = 0; i < MAX_NODES; i++) {
		if (sum[i] != m->totals[i] || built_sum[i] > m->totals[i]) {
			printf("# %s: node %d: total %lu, ranges %lu, built %lu\n",
			       who, i, m->totals[i], sum[i], built_sum[i]);
			ok = 0;
		}
	}
	check(ok, "%s: totals per node are the sums of the ranges", who);
}

static int nodes_online(void)
{
	return !access("/sys/devices/system/node/node1", F_OK);
}

int main(int argc, char **argv)
{
	static struct map m, n, part, npart;
	char rng[64], *a;
	int ready[2], i;
	pid_t child, zombie, churn;

	if (argc > 1)
		tool = argv[1];
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!nodes_online()) {
		printf("SKIP: needs two NUMA nodes\n");
		return 0;
	}
	if (access(tool, X_OK)) {
		check(0, "%s is in the guest", tool);
		return 1;
	}
	if (build_layout()) {
		check(0, "build the layout");
		return 1;
	}

	/* Itself. */
	vamap(&m, getpid(), NULL, NULL);
	printf("# self: exit %d: %s\n", m.status, m.err);
	check(m.status == 0, "self: numa_vamap exits 0");
	check_layout(&m, "self");
	check_totals(&m, "self");
	n.n = 0;
	for (i = 0; i < nr_built_vmas; i++)
		naive(&n, getpid(), built_vmas[i].start, built_vmas[i].end);
	qsort(n.r, n.n, sizeof(n.r[0]), cmp_range);
	built_part(&m, &part);
	check(same_ranges(&part, &n, "self"),
	      "self: the map of the built VMAs is what a naive move_pages() pass implies");

	/* A part of it: START-END clips the ranges. */
	a = (char *)built[0].start;
	snprintf(rng, sizeof(rng), "%lx-%lx", (unsigned long)a + 8 * PAGE,
		 (unsigned long)a + 20 * PAGE);
	vamap(&n, getpid(), NULL, rng);
	printf("# self %s: exit %d, %d ranges\n", rng, n.status, n.n);
	check(n.status == 0 && n.n == 2 &&
	      n.r[0].start == (unsigned long)a + 8 * PAGE &&
	      n.r[0].end == (unsigned long)a + 16 * PAGE && n.r[0].node == 0 &&
	      n.r[1].end == (unsigned long)a + 20 * PAGE && n.r[1].node == 1,
	      "self: START-END clips the map");

	/* A child: it copies a page on node 1 and touches one more. */
	if (pipe(ready))
		return 1;
	child = fork();
	if (!child) {
		char *d = (char *)built_vmas[nr_built_vmas - 1].start;

		set_node(1);
		a[3 * PAGE] = 2;		/* a COW copy on node 1 */
		d[48 * GIB] = 2;
		set_node(-1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(ready[0], rng, 1) != 1)
		return 1;
	/* Its layout: page 3 of a on node 1, one more page of d on node 1. */
	memmove(&built[2], &built[0], nr_built * sizeof(built[0]));
	nr_built += 2;
	built[0] = (struct range){ (unsigned long)a,
				   (unsigned long)a + 3 * PAGE, 0 };
	built[1] = (struct range){ (unsigned long)a + 3 * PAGE,
				   (unsigned long)a + 4 * PAGE, 1 };
	built[2].start = (unsigned long)a + 4 * PAGE;
	built[nr_built++] = (struct range){
		built_vmas[nr_built_vmas - 1].start + 48 * GIB,
		built_vmas[nr_built_vmas - 1].start + 48 * GIB + PAGE, 1 };

	vamap(&m, child, NULL, NULL);
	printf("# child: exit %d: %s\n", m.status, m.err);
	check(m.status == 0, "child: numa_vamap exits 0");
	check_layout(&m, "child");
	check_totals(&m, "child");
	naive_all(&n, child);
	check(same_ranges(&m, &n, "child"),
	      "child: the map is what a naive move_pages() pass implies");
	for (i = 0, part.n = 0; i < MAX_NODES; i++)
		part.n += m.totals[i] != n.totals[i];
	check(!part.n, "child: the totals are what the naive pass implies");
	vamap(&npart, child, "--naive", NULL);
	check(npart.status == 0 && same_ranges(&m, &npart, "child --naive"),
	      "child: numa_vamap --naive gives the same map");

	/* VMAs that change all the time: an error, or a map of the rest. */
	churn = fork();
	if (!churn) {
		for (;;) {
			char *x = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (x != MAP_FAILED) {
				x[0] = 1;
				munmap(x, PAGE);
			}
		}
	}
	vamap(&m, churn, NULL, NULL);
	kill(churn, SIGKILL);
	waitpid(churn, NULL, 0);
	printf("# changing VMAs: exit %d, %d ranges: %s\n", m.status, m.n,
	       m.err);
	check(m.status == 0 || (m.status == 1 && m.n == 0 &&
				strstr(m.err, "kept changing")),
	      "changing VMAs: a map, or an error and no map");

	/* An exited process, and one that is gone. */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	vamap(&m, child, NULL, NULL);
	printf("# vanished pid: exit %d: %s", m.status, m.err);
	check(m.status == 1 && m.n == 0 && strstr(m.err, "no process"),
	      "a vanished pid: an error, no map");
	zombie = fork();
	if (!zombie)
		_exit(0);
	usleep(100000);
	vamap(&m, zombie, NULL, NULL);
	printf("# exited process: exit %d: %s", m.status, m.err);
	check(m.status == 1 && m.n == 0 && strstr(m.err, "no user memory"),
	      "an exited process: an error, no map");
	waitpid(zombie, NULL, 0);
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
