// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of tools/numa_vamap/numa_vamap in the pagestat guest: the time of
 * `numa_vamap PID` on this process against `numa_vamap --naive PID`, one
 * move_pages(2) query for every page of every VMA (in batches of 64K
 * pages), each run as its own process from vfork() to exit, with its
 * output written to a file in /tmp.  Both maps must be identical.
 *
 * Cases: sparse mappings (MAP_NORESERVE, 4 KiB pages) with the same
 * 16384 pages touched, 0.1% of 64 GiB, in runs of 16 pages over 64 and
 * 128 GiB, and one page every 4 MiB over 64 GiB (each touched page in a
 * page table of its own, the worst case of PAGEMAP_SCAN); a 1 GiB buffer
 * of THPs.
 *
 * Output, one line per case (parsed by tools/pagestat/pagestat bench):
 *   vamap NAME size BYTES touched PAGES vamap_ns X naive_ns Y identical 0|1
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define PAGE	4096UL
#define HPAGE	(2UL << 20)
#define GIB	(1UL << 30)
#define RUNS	3

struct vcase {
	const char *name;
	unsigned long size;
	unsigned long touched;	/* pages */
	unsigned long run;	/* touched pages per run */
	int thp;
};

static const struct vcase cases[] = {
	{ "sparse-64g", 64 * GIB, 16384, 16, 0 },
	{ "sparse-128g", 128 * GIB, 16384, 16, 0 },
	{ "sparse-64g-scattered", 64 * GIB, 16384, 1, 0 },
	{ "thp-1g", GIB, GIB / PAGE, GIB / PAGE, 1 },
};

static const char *tool = "/bin/numa_vamap";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Run the tool on this process, output to path; return its time in ns.
 * vfork(), as fork() would copy the page tables of the buffer first.
 */
static int64_t run_tool(const char *opt, const char *path)
{
	char spid[32];
	uint64_t t0;
	int st, fd;
	pid_t p;

	snprintf(spid, sizeof(spid), "%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	t0 = now_ns();
	p = vfork();
	if (!p) {
		dup2(fd, 1);
		if (opt)
			execl(tool, tool, opt, spid, (char *)NULL);
		else
			execl(tool, tool, spid, (char *)NULL);
		_exit(127);
	}
	close(fd);
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return -1;
	return now_ns() - t0;
}

static int same_file(const char *a, const char *b)
{
	FILE *f = fopen(a, "r"), *g = fopen(b, "r");
	int x, y, same = f && g;

	while (same) {
		x = getc(f);
		y = getc(g);
		if (x != y)
			same = 0;
		if (x == EOF)
			break;
	}
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return same;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int run_case(const struct vcase *c)
{
	char *map, *buf;
	unsigned long stride, i, j;
	int64_t t[RUNS], naive;
	int r;

	map = mmap(NULL, c->size + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED) {
		printf("FAIL %s: mmap: %s\n", c->name, strerror(errno));
		return -1;
	}
	buf = (char *)(((unsigned long)map + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(buf, c->size, c->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE)) {
		printf("FAIL %s: madvise: %s\n", c->name, strerror(errno));
		return -1;
	}
	if (c->thp) {
		if (madvise(buf, c->size, MADV_POPULATE_WRITE)) {
			printf("FAIL %s: populate: %s\n", c->name,
			       strerror(errno));
			return -1;
		}
	} else {
		stride = c->size / (c->touched / c->run);
		for (i = 0; i < c->size; i += stride)
			for (j = 0; j < c->run; j++)
				buf[i + j * PAGE] = 1;
	}
	for (r = 0; r < RUNS; r++) {
		t[r] = run_tool(NULL, "/tmp/vamap-fast.txt");
		if (t[r] < 0) {
			printf("FAIL %s: numa_vamap failed\n", c->name);
			return -1;
		}
	}
	naive = run_tool("--naive", "/tmp/vamap-naive.txt");
	if (naive < 0) {
		printf("FAIL %s: numa_vamap --naive failed\n", c->name);
		return -1;
	}
	qsort(t, RUNS, sizeof(t[0]), cmp64);
	printf("vamap %s size %lu touched %lu vamap_ns %lld naive_ns %lld identical %d\n",
	       c->name, c->size, c->touched, (long long)t[RUNS / 2],
	       (long long)naive,
	       same_file("/tmp/vamap-fast.txt", "/tmp/vamap-naive.txt"));
	munmap(map, c->size + HPAGE);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int i;
	int j, err = 0, want;

	if (getenv("NUMA_VAMAP"))
		tool = getenv("NUMA_VAMAP");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		want = argc < 2;
		for (j = 1; j < argc; j++)
			want |= !strcmp(argv[j], cases[i].name);
		if (want && run_case(&cases[i]))
			err = 1;
	}
	return err;
}
