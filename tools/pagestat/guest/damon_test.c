// SPDX-License-Identifier: GPL-2.0
/*
 * DAMON's node_eligible_mem_bp quota goal on a vaddr target, in the
 * pagestat guest (two nodes), driven through /sys/kernel/mm/damon/admin.
 *
 * "value": 4 KiB pages on both nodes, a THP on node 1 if it can, an
 * untouched mapping and a PROT_NONE reservation; a vaddr kdamond on itself
 * with one stat scheme (every region eligible) and a node_eligible_mem_bp
 * goal for node 0 under the temporal tuner, which makes the effective
 * quota 0 exactly when the value has reached target_value: a binary
 * search of target_value reads the value back.  It must be, within 1 bp,
 * the share on node 0 of the pages with a node (move_pages(2)) of every
 * mapping of the process, which DAMON's vaddr regions cover.  Prints
 * "damon: measured BP", "damon: expected BP BP" (before and after the
 * search) and "damon: ok" or "damon: FAIL ...".
 *
 * "tiering": a hot and a cold set on node 1, a migrate_hot scheme to node
 * 0 whose quota a node_eligible_mem_bp goal of 80% on node 0 tunes; while
 * it writes the hot set in a loop (flushing its TLB after each pass) it
 * prints the shares of the hot and the cold set on node 0 every 200 ms
 * ("tiering: t=MS share=BP cold=BP"), then "tiering: reached BP at MS"
 * once the hot set's is within TIER_SLACK of the goal, or "tiering: FAIL
 * ...".  Some of the cold set moves too, early: DAMON's first regions mix
 * both sets, and regions split from hot ones start hot.
 *
 * A kernel that refuses to turn the kdamond on (stock 7.3 computes the
 * goal only for paddr) gives "damon: on: ENAME" and exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define MIB		(1UL << 20)
#define MPOL_BIND	2
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

#define KDAMONDS	"/sys/kernel/mm/damon/admin/kdamonds"
#define STATE		KDAMONDS "/0/state"
#define CTX		KDAMONDS "/0/contexts/0"
#define SCHEME		CTX "/schemes/0"
#define QUOTAS		SCHEME "/quotas"
#define GOAL		QUOTAS "/goals/0"

#define EXIT_REFUSED	2
/* tiering: the goal, how close the hot set must come, and the time limit */
#define TIER_GOAL	8000
#define TIER_SLACK	100
#define TIER_LIMIT_MS	30000
#define FLUSH_PAGES	64

static const char *errname(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "E?";
}

/* Write @val to the sysfs file @path: 0 or -errno. */
static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* put() a formatted value; exit on failure. */
static void __attribute__((format(printf, 2, 3)))
set(const char *path, const char *fmt, ...)
{
	char val[64];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	err = put(path, val);
	if (err) {
		printf("damon: FAIL write %s to %s: %s\n", val, path,
		       errname(-err));
		exit(1);
	}
}

/* The number in the sysfs file @path; exit on failure. */
static unsigned long get(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (r <= 0) {
		printf("damon: FAIL read %s: %s\n", path, errname(errno));
		exit(1);
	}
	close(fd);
	buf[r] = 0;
	return strtoul(buf, NULL, 0);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * A 2 MiB-aligned anonymous mapping of @len bytes with THP advice
 * @advice, bound to @node, every page written; NULL if it cannot be made.
 */
static char *map_on(size_t len, int advice, int node)
{
	unsigned long mask = 1UL << node;
	char *p = mmap(NULL, len + HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p = (char *)(((unsigned long)p + HPAGE - 1) & ~(HPAGE - 1));
	if (madvise(p, len, advice) ||
	    syscall(SYS_mbind, p, len, MPOL_BIND, &mask, 8 * sizeof(mask), 0) ||
	    madvise(p, len, MADV_POPULATE_WRITE))
		return NULL;
	return p;
}

/* Count the pages of [@start, @end) that have a node, and those on node 0. */
static void count(unsigned long start, unsigned long end, unsigned long *on0,
		  unsigned long *total)
{
	enum { N = 4096 };
	static void *pages[N];
	static int status[N];
	unsigned long a, n, i;

	for (a = start; a < end; a += n * PAGE) {
		n = (end - a) / PAGE < N ? (end - a) / PAGE : N;
		for (i = 0; i < n; i++)
			pages[i] = (void *)(a + i * PAGE);
		if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
			printf("damon: FAIL move_pages: %s\n", errname(errno));
			exit(1);
		}
		for (i = 0; i < n; i++) {
			*total += status[i] >= 0;
			*on0 += status[i] == 0;
		}
	}
}

/* As the kernel's mult_frac(on0, 10000, total), 0 for no pages. */
static unsigned long bp(unsigned long on0, unsigned long total)
{
	return total ? on0 * 10000 / total : 0;
}

/*
 * The share on node 0 of the pages of every mapping of the process
 * (but [vsyscall], no VMA), in bp.  Reads /proc/self/maps without stdio:
 * nothing here may grow the heap once DAMON has its regions.
 */
static unsigned long share_all(void)
{
	static char buf[1 << 16];
	unsigned long s, e, on0 = 0, total = 0;
	size_t len = 0;
	ssize_t r;
	char *ln;
	int fd = open("/proc/self/maps", O_RDONLY);

	while (fd >= 0 && len < sizeof(buf) - 1 &&
	       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += r;
	if (fd < 0 || len == sizeof(buf) - 1) {
		printf("damon: FAIL read /proc/self/maps\n");
		exit(1);
	}
	close(fd);
	buf[len] = 0;
	for (ln = buf; ln; ln = strchr(ln, '\n') ? strchr(ln, '\n') + 1 : NULL)
		if (sscanf(ln, "%lx-%lx", &s, &e) == 2 && e <= (1UL << 47))
			count(s, e, &on0, &total);
	return bp(on0, total);
}

static unsigned long share_of(char *p, size_t len)
{
	unsigned long on0 = 0, total = 0;

	count((unsigned long)p, (unsigned long)p + len, &on0, &total);
	return bp(on0, total);
}

/*
 * One vaddr kdamond on this process, one scheme of @action over the
 * regions with at least @min_acc accesses, its quota @bytes per 100 ms
 * tuned (temporal) by a node_eligible_mem_bp goal of @target on node 0.
 * Exits with EXIT_REFUSED if the kernel refuses to turn it on.
 */
static void damon_on(const char *action, int min_acc, unsigned long bytes,
		     int target)
{
	int err;

	set(KDAMONDS "/nr_kdamonds", "1");
	set(KDAMONDS "/0/contexts/nr_contexts", "1");
	set(CTX "/operations", "vaddr");
	set(CTX "/monitoring_attrs/intervals/sample_us", "5000");
	set(CTX "/monitoring_attrs/intervals/aggr_us", "100000");
	set(CTX "/targets/nr_targets", "1");
	set(CTX "/targets/0/pid_target", "%d", (int)getpid());
	set(CTX "/schemes/nr_schemes", "1");
	set(SCHEME "/action", "%s", action);
	set(SCHEME "/target_nid", "0");		/* for migrate_hot */
	set(SCHEME "/access_pattern/sz/max", "%lu", -1UL);
	set(SCHEME "/access_pattern/sz/min", "0");
	set(SCHEME "/access_pattern/nr_accesses/max", "%u", -1U);
	set(SCHEME "/access_pattern/nr_accesses/min", "%d", min_acc);
	set(SCHEME "/access_pattern/age/max", "%u", -1U);
	set(SCHEME "/access_pattern/age/min", "0");
	set(QUOTAS "/bytes", "%lu", bytes);
	set(QUOTAS "/reset_interval_ms", "100");
	/* 7.3 has it; without it the effective quota means something else */
	if (access(QUOTAS "/goal_tuner", F_OK)) {
		printf("damon: FAIL no %s\n", QUOTAS "/goal_tuner");
		exit(1);
	}
	set(QUOTAS "/goal_tuner", "temporal");
	set(QUOTAS "/goals/nr_goals", "1");
	set(GOAL "/target_metric", "node_eligible_mem_bp");
	set(GOAL "/nid", "0");
	set(GOAL "/target_value", "%d", target);
	err = put(STATE, "on");
	if (err) {
		printf("damon: on: %s\n", errname(-err));
		exit(EXIT_REFUSED);
	}
}

/* Whether the goal's value is at least @target (1..10000). */
static int reaches(unsigned long target)
{
	set(GOAL "/target_value", "%lu", target);
	set(STATE, "commit_schemes_quota_goals");
	sleep_ms(400);
	set(STATE, "update_schemes_effective_quotas");
	return get(QUOTAS "/effective_bytes") == 0;
}

static int mode_value(void)
{
	unsigned long lo = 0, hi = 10001, mid, before, after;
	char *untouched, *thp;

	if (!map_on(32 * MIB, MADV_NOHUGEPAGE, 0) ||
	    !map_on(16 * MIB, MADV_NOHUGEPAGE, 1)) {
		printf("damon: FAIL map the 4 KiB pages\n");
		return 1;
	}
	thp = map_on(2 * HPAGE, MADV_HUGEPAGE, 1);
	untouched = mmap(NULL, 8 * MIB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (untouched == MAP_FAILED ||
	    mmap(NULL, 64 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE, -1, 0) == MAP_FAILED) {
		printf("damon: FAIL map the untouched memory\n");
		return 1;
	}
	printf("damon: layout 32 MiB on node 0, 16 MiB on node 1, %s\n",
	       thp ? "4 MiB of THP on node 1" : "no THP");
	/*
	 * Fault in what the search and share_all() use, its static buffers
	 * and the code and stack of a first round, before counting.
	 */
	share_all();
	damon_on("stat", 0, MIB, 5000);
	reaches(5000);
	before = share_all();
	/* The value is at least lo and less than hi */
	while (hi - lo > 1) {
		mid = (lo + hi) / 2;
		if (reaches(mid))
			lo = mid;
		else
			hi = mid;
	}
	after = share_all();
	set(STATE, "off");
	printf("damon: measured %lu\n", lo);
	printf("damon: expected %lu %lu\n", before, after);
	if ((lo + 1 >= before && lo <= before + 1) ||
	    (lo + 1 >= after && lo <= after + 1)) {
		printf("damon: ok\n");
		return 0;
	}
	printf("damon: FAIL measured %lu, expected %lu (before) or %lu (after)\n",
	       lo, before, after);
	return 1;
}

/*
 * Flush this CPU's TLB.  A CPU sets a PTE's accessed bit, which DAMON
 * clears and reads back, only when it walks the page tables; a real TLB
 * holds a few thousand entries, and a 64 MiB hot set is walked again and
 * again, but qemu's TCG keeps every translation until the guest flushes
 * its TLB: without this DAMON sees no access at all.  Changing the
 * protection of more pages than x86 flushes one by one
 * (tlb_single_page_flush_ceiling, 33) flushes the whole TLB.
 */
static void flush_tlb(char *p)
{
	size_t len = FLUSH_PAGES * PAGE;

	if (mprotect(p, len, PROT_READ) ||
	    mprotect(p, len, PROT_READ | PROT_WRITE)) {
		printf("tiering: FAIL mprotect: %s\n", errname(errno));
		exit(1);
	}
}

static int mode_tiering(void)
{
	size_t hot_len = 64 * MIB, cold_len = 32 * MIB, off;
	char *hot = map_on(hot_len, MADV_NOHUGEPAGE, 1);
	char *cold = map_on(cold_len, MADV_NOHUGEPAGE, 1);
	char *flush = map_on(FLUSH_PAGES * PAGE, MADV_NOHUGEPAGE, 0);
	unsigned long share = 0;
	long t0, t, next;

	if (!hot || !cold || !flush) {
		printf("tiering: FAIL map the hot and cold sets\n");
		return 1;
	}
	printf("tiering: hot %zu MiB, cold %zu MiB, on node 1; goal %d bp\n",
	       hot_len / MIB, cold_len / MIB, TIER_GOAL);
	damon_on("migrate_hot", 1, 8 * MIB, TIER_GOAL);
	t0 = now_ms();
	next = t0;
	for (;;) {
		for (off = 0; off < hot_len; off += PAGE)
			((volatile char *)hot)[off]++;
		flush_tlb(flush);
		t = now_ms();
		if (t < next)
			continue;
		next += 200;
		share = share_of(hot, hot_len);
		printf("tiering: t=%ld share=%lu cold=%lu\n", t - t0, share,
		       share_of(cold, cold_len));
		if (share >= TIER_GOAL - TIER_SLACK) {
			printf("tiering: reached %lu at %ld\n", share, t - t0);
			break;
		}
		if (t - t0 > TIER_LIMIT_MS) {
			printf("tiering: FAIL not reached in %ld\n", t - t0);
			break;
		}
	}
	set(STATE, "off");
	return share >= TIER_GOAL - TIER_SLACK ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (access("/sys/devices/system/node/node1", F_OK)) {
		printf("damon: FAIL needs two NUMA nodes\n");
		return 1;
	}
	if (argc == 2 && !strcmp(argv[1], "value"))
		return mode_value();
	if (argc == 2 && !strcmp(argv[1], "tiering"))
		return mode_tiering();
	fprintf(stderr, "usage: %s value|tiering\n", argv[0]);
	return 1;
}
