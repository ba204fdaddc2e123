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
 * "cost CASE OPS...": what one evaluation of the goal costs, in guest
 * instructions (qemu -icount shift=0: 1 ns of guest time is one
 * instruction) per page of the eligible region.  CASE is 4k (1 GiB of 4 KiB
 * pages on node 0), thp (1 GiB of THP on node 0) or sparse (64 GiB of
 * untouched MAP_NORESERVE memory whose first 64 MiB are 4 KiB pages on node
 * 0); OPS vaddr (a kdamond on this process), fvaddr (the same, with one
 * region over the buffer, or the reservation for sparse: the memory paddr
 * measures) or paddr (one region over the buffer's physical span, from
 * /proc/self/pagemap; not for sparse).  A stat
 * scheme with every region eligible, 10 regions, one sample per 100 ms
 * aggregation and quota window, and a quota of 1 byte, full in every window:
 * qt_exceeds counts the windows, each of which evaluates the goal once.
 * The kdamond's CPU time (/proc/PID/sched, read while it sleeps) per window
 * with a node_eligible_mem_bp goal, less the same with a user_input goal,
 * is one evaluation; COST_REPS pairs of runs, the median.  Prints
 * "damon-cost: case=C ops=O pages=N evals=E insns_per_eval=X per_page=Y
 * runs=Y1,Y2,Y3 base_per_eval=B" (E: windows with the goal, all runs; B:
 * the kdamond's instructions per window without it; sparse adds
 * "reserved_pages=R"), or "damon-cost: case=C ops=O refused=ENAME" and exit
 * status 2.
 *
 * "placed": whether a vaddr migrate_hot scheme with a target_nid (no
 * dests) isolates, and puts back, folios that are already on target_nid.
 * The process is bound to node 0 and holds 64 MiB of 4 KiB pages there;
 * a vaddr kdamond on it, every region eligible (nr_accesses and age from
 * 0: no access is needed, so nothing else runs while it is measured), no
 * quota, one sample per 100 ms aggregation, which applies the scheme.
 * Three cases: "stat" (action stat, no filter: no page walk at all),
 * "dests" (migrate_hot with one destination, node 0 weight 1: the page walk
 * and damos_va_migrate_dests_add()'s check of the folio's node, which keeps
 * every folio where it is) and "target" (migrate_hot with target_nid 0 and
 * no dests).  Per case, PLACED_REPS runs (one: the verdict's margin is
 * some 470 instructions a folio, the figures repeat to 0.01%) of PLACED_MS
 * after PLACED_WARM_MS:
 * the kdamond's CPU time per apply (as cost), the applies (sz_tried over the
 * bytes of the regions: every region is tried once per apply), the DAMOS
 * stats, /proc/vmstat's pgmigrate_success and pgmigrate_fail, and the
 * biggest nr_isolated_anon + nr_isolated_file seen while it polls
 * /proc/vmstat for PLACED_POLL_MS after the measurement.  Prints a
 * "placed: run ..." line per run, "placed: case=C action=A ... applies=N
 * insns_per_apply=X nr_applied=N sz_applied=N migrated=N migrate_fail=N
 * max_isolated=N" per case (the median of X, the sums, the maximum),
 * "placed: folios=N extra_per_folio=X walk_per_folio=Y" (target less
 * dests, and dests less stat, per present page of the process) and
 * "placed: verdict=isolates" (the target case costs at least
 * PLACED_ISOLATES instructions a folio more than dests, or isolated folios
 * were seen) or "placed: verdict=skips" (neither), or "placed: FAIL ...".
 * Nothing may migrate: every page is already on node 0.
 *
 * A kernel that refuses to turn the kdamond on (stock 7.3 computes the
 * goal only for paddr) gives "damon: on: ENAME" and exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
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
/* cost: pairs of runs, and the guest ms each runs before and while measured */
#define COST_REPS	3
#define COST_WARM_MS	1000
#define COST_MS		3000
#define GIB		(1UL << 30)
/* placed: runs per case, guest ms before, while measured and polled after */
#define PLACED_REPS	1
#define PLACED_WARM_MS	1000
#define PLACED_MS	3000
#define PLACED_POLL_MS	1000
#define PLACED_BUF	(64 * MIB)
/* placed: instructions a folio beyond the walk that mean an isolation */
#define PLACED_ISOLATES	100

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

/* The first @size - 1 bytes of the file @path, NUL-terminated; exit if none */
static size_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t r;

	while (fd >= 0 && len < size - 1 &&
	       (r = read(fd, buf + len, size - 1 - len)) > 0)
		len += r;
	if (fd < 0 || !len) {
		printf("damon: FAIL read %s: %s\n", path, errname(errno));
		exit(1);
	}
	close(fd);
	buf[len] = 0;
	return len;
}

/* The number in the sysfs file @path; exit on failure. */
static unsigned long get(const char *path)
{
	char buf[64];

	slurp(path, buf, sizeof(buf));
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
 * @buf, /proc/self/maps read into it without stdio: nothing here may grow
 * the heap once DAMON has its regions.  Exit if it does not fit.
 */
static char *maps(char *buf, size_t size)
{
	if (slurp("/proc/self/maps", buf, size) == size - 1) {
		printf("damon: FAIL read /proc/self/maps\n");
		exit(1);
	}
	return buf;
}

/* [*@s, *@e): the next mapping of maps() from line *@ln on, 0 if none */
static int next_map(char **ln, unsigned long *s, unsigned long *e)
{
	char *p;

	while ((p = *ln)) {
		*ln = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
		/* but [vsyscall], no VMA */
		if (sscanf(p, "%lx-%lx", s, e) == 2 && *e <= (1UL << 47))
			return 1;
	}
	return 0;
}

/* count() the pages of every mapping of the process. */
static void count_all(unsigned long *on0, unsigned long *total)
{
	static char buf[1 << 16];
	unsigned long s, e;
	char *ln = maps(buf, sizeof(buf));

	*on0 = *total = 0;
	while (next_map(&ln, &s, &e))
		count(s, e, on0, total);
}

static unsigned long share_all(void)
{
	unsigned long on0, total;

	count_all(&on0, &total);
	return bp(on0, total);
}

static unsigned long share_of(char *p, size_t len)
{
	unsigned long on0 = 0, total = 0;

	count((unsigned long)p, (unsigned long)p + len, &on0, &total);
	return bp(on0, total);
}

/*
 * One kdamond, one context of @ops: a sample every @sample_us and an
 * aggregation every 100 ms of this process (vaddr), of [@start, @end) of
 * this process (fvaddr) or of physical memory (paddr), in @nr_regions
 * regions (0: DAMON's defaults, vaddr only).
 */
static void context(const char *ops, unsigned long sample_us, int nr_regions,
		    unsigned long start, unsigned long end)
{
	int vaddr = !strcmp(ops, "vaddr"), paddr = !strcmp(ops, "paddr");

	set(KDAMONDS "/nr_kdamonds", "1");
	set(KDAMONDS "/0/contexts/nr_contexts", "1");
	set(CTX "/operations", "%s", ops);
	set(CTX "/monitoring_attrs/intervals/sample_us", "%lu", sample_us);
	set(CTX "/monitoring_attrs/intervals/aggr_us", "100000");
	if (nr_regions) {
		set(CTX "/monitoring_attrs/nr_regions/min", "%d", nr_regions);
		set(CTX "/monitoring_attrs/nr_regions/max", "%d", nr_regions);
	}
	set(CTX "/targets/nr_targets", "1");
	set(CTX "/targets/0/pid_target", "%d", paddr ? 0 : (int)getpid());
	if (!nr_regions)
		return;
	set(CTX "/targets/0/regions/nr_regions", "%d", !vaddr);
	if (!vaddr) {
		set(CTX "/targets/0/regions/0/start", "%lu", start);
		set(CTX "/targets/0/regions/0/end", "%lu", end);
	}
}

/*
 * The context's one scheme: @action (with target_nid 0, for migrate_hot)
 * over the regions of any size and age with at least @min_acc accesses.
 */
static void scheme(const char *action, int min_acc)
{
	set(CTX "/schemes/nr_schemes", "1");
	set(SCHEME "/action", "%s", action);
	set(SCHEME "/target_nid", "0");
	set(SCHEME "/access_pattern/sz/max", "%lu", -1UL);
	set(SCHEME "/access_pattern/sz/min", "0");
	set(SCHEME "/access_pattern/nr_accesses/max", "%u", -1U);
	set(SCHEME "/access_pattern/nr_accesses/min", "%d", min_acc);
	set(SCHEME "/access_pattern/age/max", "%u", -1U);
	set(SCHEME "/access_pattern/age/min", "0");
}

/*
 * The scheme's quota: @bytes per 100 ms, tuned (temporal) by a goal of
 * @metric on node 0 with target value @target (a user_input goal's
 * current value is 0).
 */
static void goal(unsigned long bytes, const char *metric, int target)
{
	set(QUOTAS "/bytes", "%lu", bytes);
	set(QUOTAS "/reset_interval_ms", "100");
	/* 7.3 has it; without it the effective quota means something else */
	if (access(QUOTAS "/goal_tuner", F_OK)) {
		printf("damon: FAIL no %s\n", QUOTAS "/goal_tuner");
		exit(1);
	}
	set(QUOTAS "/goal_tuner", "temporal");
	set(QUOTAS "/goals/nr_goals", "1");
	set(GOAL "/target_metric", "%s", metric);
	set(GOAL "/nid", "0");
	set(GOAL "/target_value", "%d", target);
	set(GOAL "/current_value", "0");
}

/* Turn the kdamond on; exit with EXIT_REFUSED if the kernel refuses. */
static void on(void)
{
	int err = put(STATE, "on");

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
	context("vaddr", 5000, 0, 0, 0);
	scheme("stat", 0);
	goal(MIB, "node_eligible_mem_bp", 5000);
	on();
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
	context("vaddr", 5000, 0, 0, 0);
	scheme("migrate_hot", 1);
	goal(8 * MIB, "node_eligible_mem_bp", TIER_GOAL);
	on();
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

/* The state letter of task @pid ('I': sleeping idle, as kdamond_usleep()) */
static char task_state(int pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	slurp(path, buf, sizeof(buf));
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

/* se.sum_exec_runtime of task @pid in ns ("MS.NNNNNN" in /proc/PID/sched) */
static unsigned long long runtime_ns(int pid)
{
	char path[64], buf[8192], *p;
	unsigned long long ms, ns;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	slurp(path, buf, sizeof(buf));
	p = strstr(buf, "se.sum_exec_runtime");
	p = p ? strchr(p, ':') : NULL;
	if (!p || sscanf(p + 1, " %llu.%6llu", &ms, &ns) != 2) {
		printf("damon: FAIL no se.sum_exec_runtime in %s\n", path);
		exit(1);
	}
	return ms * 1000000 + ns;
}

struct snap {
	unsigned long windows;	/* quota windows ended (qt_exceeds) */
	unsigned long long ns;	/* the kdamond's CPU time */
};

/*
 * The kdamond's CPU time and windows at one point of its loop.  Its
 * kdamond_call() updates the stats just before it applies the scheme,
 * which ends a window and evaluates the goal; its CPU time is read in the
 * sleep of its next sample, where it is exact (polled every 10 ms: the
 * sleep is 100 ms).  So the time holds one evaluation more than the
 * windows count, at both ends of a measurement.
 */
static struct snap snapshot(int pid)
{
	struct snap sn;
	int tries, polls = 0;

	for (tries = 0; tries < 20 && polls < 6000; tries++) {
		set(STATE, "update_schemes_stats");
		do
			sleep_ms(10);
		while (task_state(pid) != 'I' && ++polls < 6000);
		sn.ns = runtime_ns(pid);
		if (task_state(pid) != 'I')
			continue;
		sn.windows = get(SCHEME "/stats/qt_exceeds");
		return sn;
	}
	printf("damon: FAIL the kdamond never sleeps\n");
	exit(1);
}

/*
 * The bytes of DAMON's initial vaddr regions of this process: its
 * mappings (but [vsyscall]) from the first to the last, less the two
 * biggest gaps between them.
 */
static unsigned long three_regions_bytes(void)
{
	static char buf[1 << 16];
	unsigned long s, e, first = 0, last = 0, g1 = 0, g2 = 0, gap;
	char *ln = maps(buf, sizeof(buf));

	while (next_map(&ln, &s, &e)) {
		if (!last)
			first = s;
		gap = last ? s - last : 0;
		if (gap > g1) {
			g2 = g1;
			g1 = gap;
		} else if (gap > g2) {
			g2 = gap;
		}
		last = e;
	}
	return last - first - g1 - g2;
}

/*
 * The physical span [*@lo, *@hi) of the pages of [@p, @p + @len), all
 * present (/proc/self/pagemap, root: PFNs shown); exit otherwise.
 */
static void phys_span(char *p, size_t len, unsigned long *lo,
		      unsigned long *hi)
{
	enum { N = 4096 };
	static unsigned long long ent[N];
	int fd = open("/proc/self/pagemap", O_RDONLY);
	unsigned long pfn, i, n, off, first = (unsigned long)p / PAGE;

	*lo = -1UL;
	*hi = 0;
	for (off = 0; off < len / PAGE; off += n) {
		n = len / PAGE - off < N ? len / PAGE - off : N;
		if (pread(fd, ent, n * 8, (first + off) * 8) !=
		    (ssize_t)(n * 8)) {
			printf("damon: FAIL read /proc/self/pagemap\n");
			exit(1);
		}
		for (i = 0; i < n; i++) {
			pfn = ent[i] & ((1ULL << 55) - 1);
			if (!(ent[i] >> 63) || !pfn) {
				printf("damon: FAIL a page without a PFN\n");
				exit(1);
			}
			*lo = pfn < *lo ? pfn : *lo;
			*hi = pfn + 1 > *hi ? pfn + 1 : *hi;
		}
	}
	close(fd);
	*lo *= PAGE;
	*hi *= PAGE;
}

/*
 * One measurement of the cost mode: a kdamond of @ops over this process
 * (vaddr) or [@start, @end) (paddr) with a goal of @metric, measured for
 * COST_MS after COST_WARM_MS; *@bytes the bytes of its regions.  0, or
 * -errno if the kernel refuses to turn it on.
 */
static int cost_run(const char *ops, const char *metric, unsigned long start,
		    unsigned long end, struct snap *d, unsigned long *bytes)
{
	int vaddr = !strcmp(ops, "vaddr"), pid, err;
	struct snap a, b;

	context(ops, 100000, 10, start, end);
	scheme("stat", 0);
	/* A quota of 1 byte: full in every window, which qt_exceeds counts */
	goal(1, metric, 10000);
	err = put(STATE, "on");
	if (err)
		return err;
	pid = get(KDAMONDS "/0/pid");
	sleep_ms(COST_WARM_MS);
	a = snapshot(pid);
	sleep_ms(COST_MS);
	b = snapshot(pid);
	*bytes = vaddr ? three_regions_bytes() : end - start;
	set(STATE, "off");
	d->windows = b.windows - a.windows;
	d->ns = b.ns - a.ns;
	if (!d->windows) {
		printf("damon: FAIL no quota window ended in %d ms\n", COST_MS);
		exit(1);
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double s[COST_REPS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * Measure @ops on the buffer [@p, @p + @len), in a reservation of
 * @reserved bytes (sparse) or none (0): one "damon-cost:" line.
 */
static int cost_ops(const char *name, const char *ops, char *p, size_t len,
		    unsigned long reserved)
{
	unsigned long start = 0, end = 0, bytes = 0, evals = 0;
	double per_eval[COST_REPS], base[COST_REPS], per_page[COST_REPS], x;
	struct snap g, u;
	char runs[256], extra[64] = "";
	int i, err, n = 0;

	if (!strcmp(ops, "paddr")) {
		phys_span(p, len, &start, &end);
		printf("cost: %s paddr region [%#lx, %#lx): %lu MiB, %lu%% of "
		       "it the buffer\n", name, start, end, (end - start) / MIB,
		       100 * len / (end - start));
	} else if (!strcmp(ops, "fvaddr")) {
		/* The same memory: the buffer, or the whole reservation */
		start = (unsigned long)p;
		end = start + (reserved ? reserved : len);
	} else if (strcmp(ops, "vaddr")) {
		printf("damon: FAIL ops %s: vaddr, fvaddr or paddr\n", ops);
		return 1;
	}
	for (i = 0; i < COST_REPS; i++) {
		err = cost_run(ops, "user_input", start, end, &u, &bytes);
		if (!err)
			err = cost_run(ops, "node_eligible_mem_bp", start, end,
				       &g, &bytes);
		if (err) {
			printf("damon-cost: case=%s ops=%s refused=%s\n", name,
			       ops, errname(-err));
			return EXIT_REFUSED;
		}
		base[i] = (double)u.ns / u.windows;
		per_eval[i] = (double)g.ns / g.windows - base[i];
		per_page[i] = per_eval[i] / (bytes / PAGE);
		evals += g.windows;
		printf("cost: %s %s run %d: %lu windows %llu ns with the goal, "
		       "%lu windows %llu ns without, %lu pages\n", name, ops,
		       i + 1, g.windows, g.ns, u.windows, u.ns, bytes / PAGE);
		n += snprintf(runs + n, sizeof(runs) - n, "%s%.5g",
			      i ? "," : "", per_page[i]);
	}
	x = median(per_eval, COST_REPS);
	if (reserved)
		snprintf(extra, sizeof(extra), " reserved_pages=%lu",
			 reserved / PAGE);
	printf("damon-cost: case=%s ops=%s pages=%lu evals=%lu insns_per_eval"
	       "=%.0f per_page=%.5g runs=%s base_per_eval=%.0f%s\n",
	       name, ops, bytes / PAGE, evals, x, x / (bytes / PAGE), runs,
	       median(base, COST_REPS), extra);
	return 0;
}

/* The AnonHugePages of this process, in kB */
static unsigned long anon_huge_kb(void)
{
	static char buf[4096];
	char *p;

	slurp("/proc/self/smaps_rollup", buf, sizeof(buf));
	p = strstr(buf, "AnonHugePages:");
	return p ? strtoul(p + 14, NULL, 10) : 0;
}

static int mode_cost(int argc, char **argv)
{
	const char *name = argv[0];
	size_t len = GIB, reserved = 0;
	int i, ret = 0, r;
	char *p;

	if (!strcmp(name, "4k")) {
		p = map_on(GIB, MADV_NOHUGEPAGE, 0);
	} else if (!strcmp(name, "thp")) {
		p = map_on(GIB, MADV_HUGEPAGE, 0);
	} else if (!strcmp(name, "sparse")) {
		/* 64 GiB, its first 0.1% (64 MiB) populated, the rest not */
		len = 64 * MIB;
		reserved = 64 * GIB;
		p = mmap(NULL, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE |
			 MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED || madvise(p, reserved, MADV_NOHUGEPAGE) ||
		    madvise(p, len, MADV_POPULATE_WRITE))
			p = NULL;
	} else {
		printf("damon: FAIL case %s: 4k, thp or sparse\n", name);
		return 1;
	}
	if (!p) {
		printf("damon: FAIL map the %s buffer: %s\n", name,
		       errname(errno));
		return 1;
	}
	printf("cost: %s buffer %zu MiB populated, AnonHugePages %lu kB\n",
	       name, len / MIB, anon_huge_kb());
	for (i = 1; i < argc; i++) {
		if (reserved && !strcmp(argv[i], "paddr")) {
			printf("damon: FAIL sparse has no paddr case\n");
			return 1;
		}
		r = cost_ops(name, argv[i], p, len, reserved);
		ret = r > ret ? r : ret;
	}
	return ret;
}

/* The value of @name in /proc/vmstat; exit if it has none. */
static unsigned long vmstat(const char *name)
{
	static char buf[1 << 14];
	size_t n = strlen(name);
	char *p;

	slurp("/proc/vmstat", buf, sizeof(buf));
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ')
			return strtoul(p + n + 1, NULL, 10);
	printf("placed: FAIL no %s in /proc/vmstat\n", name);
	exit(1);
}

/* Pin task @pid (0: this one) to CPU @cpu; say so if it cannot. */
static void pin(int pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set))
		printf("placed: cannot pin %d to CPU %d: %s\n", pid, cpu,
		       errname(errno));
}

/* What a placed run saw, and its sums over the runs of a case. */
struct placed {
	unsigned long applies, nr_tried, sz_tried, nr_applied, sz_applied;
	unsigned long migrated, migrate_fail, max_isolated;
	unsigned long long ns;
};

/*
 * Add (@sign 1) or take (-1) the scheme's stats and the migrations so far:
 * taken at the start of a run and added at its end, they leave what it did.
 */
static void placed_count(struct placed *p, int sign)
{
	p->nr_tried += sign * get(SCHEME "/stats/nr_tried");
	p->sz_tried += sign * get(SCHEME "/stats/sz_tried");
	p->nr_applied += sign * get(SCHEME "/stats/nr_applied");
	p->sz_applied += sign * get(SCHEME "/stats/sz_applied");
	p->migrated += sign * vmstat("pgmigrate_success");
	p->migrate_fail += sign * vmstat("pgmigrate_fail");
}

/* The end of a "placed: run" or a "placed: case=" line. */
static void placed_print(const struct placed *p, double insns_per_apply)
{
	printf("insns_per_apply=%.0f nr_applied=%lu sz_applied=%lu "
	       "migrated=%lu migrate_fail=%lu max_isolated=%lu\n",
	       insns_per_apply, p->nr_applied, p->sz_applied, p->migrated,
	       p->migrate_fail, p->max_isolated);
}

/*
 * One run of the placed case @name: a vaddr kdamond on this process with
 * one scheme, @action with target_nid 0, and one destination, node 0, if
 * @dests.  *@d what it did while measured.
 */
static void placed_run(const char *name, const char *action, int dests,
		       struct placed *d)
{
	unsigned long bytes, isolated;
	struct snap a, b;
	long t0;
	int pid;

	memset(d, 0, sizeof(*d));
	context("vaddr", 100000, 10, 0, 0);
	scheme(action, 0);
	set(SCHEME "/apply_interval_us", "0");		/* each aggregation */
	/* No quota: every region, every apply */
	set(QUOTAS "/bytes", "0");
	set(QUOTAS "/ms", "0");
	set(QUOTAS "/goals/nr_goals", "0");
	set(SCHEME "/filters/nr_filters", "0");
	set(SCHEME "/dests/nr_dests", "%d", dests);
	if (dests) {
		set(SCHEME "/dests/0/id", "0");
		set(SCHEME "/dests/0/weight", "1");
	}
	on();
	pid = get(KDAMONDS "/0/pid");
	/* The kdamond on node 0's CPU, the poller on the other */
	pin(pid, 0);
	sleep_ms(PLACED_WARM_MS);
	a = snapshot(pid);
	placed_count(d, -1);
	sleep_ms(PLACED_MS);
	b = snapshot(pid);
	placed_count(d, 1);
	bytes = three_regions_bytes();
	d->ns = b.ns - a.ns;
	d->applies = (d->sz_tried + bytes / 2) / bytes;
	if (d->sz_tried % bytes)
		printf("placed: %s: sz_tried grew by %lu, not a multiple of the "
		       "%lu bytes of the regions\n", name, d->sz_tried, bytes);
	for (t0 = now_ms(); now_ms() - t0 < PLACED_POLL_MS; ) {
		isolated = vmstat("nr_isolated_anon") +
			   vmstat("nr_isolated_file");
		if (isolated > d->max_isolated)
			d->max_isolated = isolated;
	}
	set(STATE, "off");
	if (!d->applies) {
		printf("placed: FAIL %s: no apply in %d ms\n", name, PLACED_MS);
		exit(1);
	}
}

static int mode_placed(void)
{
	static const struct {
		const char *name, *action, *desc;
		int dests;
	} cases[] = {
		{ "stat", "stat", "", 0 },
		{ "dests", "migrate_hot", " dests=0:1", 1 },
		{ "target", "migrate_hot", " target_nid=0", 0 },
	};
	enum { NC = sizeof(cases) / sizeof(cases[0]) };
	double per[NC][PLACED_REPS], med[NC], extra, walk;
	struct placed sum[NC], d;
	unsigned long mask = 1, other = ~1UL, on0, total, on0_end, total_end;
	int c, i, ret = 0;
	char *p;

	/*
	 * Everything of the process on node 0, and it on the other CPU: what
	 * was faulted in before, such as the binary's page cache pages from
	 * the initramfs, can be on node 1, so move it first.
	 */
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &mask, 8 * sizeof(mask)) ||
	    syscall(SYS_migrate_pages, 0, 8 * sizeof(mask), &other, &mask) < 0) {
		printf("placed: FAIL set_mempolicy or migrate_pages: %s\n",
		       errname(errno));
		return 1;
	}
	pin(0, 1);
	p = map_on(PLACED_BUF, MADV_NOHUGEPAGE, 0);
	if (!p) {
		printf("placed: FAIL map the buffer: %s\n", errname(errno));
		return 1;
	}
	/* Fault in what the runs use, count_all()'s buffer too, then count */
	three_regions_bytes();
	vmstat("nr_isolated_anon");
	count_all(&on0, &total);
	count_all(&on0, &total);
	printf("placed: buffer %lu MiB of 4 KiB pages on node 0; the process "
	       "has %lu pages, %lu on node 0\n", PLACED_BUF / MIB, total, on0);
	memset(sum, 0, sizeof(sum));
	for (i = 0; i < PLACED_REPS; i++) {
		for (c = 0; c < NC; c++) {
			placed_run(cases[c].name, cases[c].action,
				   cases[c].dests, &d);
			per[c][i] = (double)d.ns / d.applies;
			printf("placed: run %d case=%s applies=%lu nr_tried=%lu "
			       "ns=%llu ", i + 1, cases[c].name, d.applies,
			       d.nr_tried, d.ns);
			placed_print(&d, per[c][i]);
			sum[c].applies += d.applies;
			sum[c].nr_applied += d.nr_applied;
			sum[c].sz_applied += d.sz_applied;
			sum[c].migrated += d.migrated;
			sum[c].migrate_fail += d.migrate_fail;
			if (d.max_isolated > sum[c].max_isolated)
				sum[c].max_isolated = d.max_isolated;
		}
	}
	count_all(&on0_end, &total_end);
	for (c = 0; c < NC; c++) {
		med[c] = median(per[c], PLACED_REPS);
		printf("placed: case=%s action=%s%s applies=%lu ",
		       cases[c].name, cases[c].action, cases[c].desc,
		       sum[c].applies);
		placed_print(&sum[c], med[c]);
		if (sum[c].migrated || sum[c].nr_applied) {
			printf("placed: FAIL %s migrated %lu pages (nr_applied "
			       "%lu): all were on node 0\n", cases[c].name,
			       sum[c].migrated, sum[c].nr_applied);
			ret = 1;
		}
	}
	/* It grows a little (stack, static buffers), on node 0 too */
	printf("placed: after the runs the process has %lu pages, %lu on node "
	       "0\n", total_end, on0_end);
	if (on0 != total || on0_end != total_end) {
		printf("placed: FAIL pages off node 0\n");
		ret = 1;
	}
	extra = (med[2] - med[1]) / total;
	walk = (med[1] - med[0]) / total;
	printf("placed: folios=%lu extra_per_folio=%.1f walk_per_folio=%.1f\n",
	       total, extra, walk);
	printf("placed: verdict=%s\n", extra >= PLACED_ISOLATES ||
	       sum[2].max_isolated ? "isolates" : "skips");
	return ret;
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
	if ((argc >= 4 && !strcmp(argv[1], "cost")) ||
	    (argc == 2 && !strcmp(argv[1], "placed"))) {
		/*
		 * Without address randomization: a static binary's heap lands
		 * up to 1 GiB above it, and DAMON's first region takes the gap
		 */
		if (!(personality(0xffffffff) & ADDR_NO_RANDOMIZE) &&
		    personality(ADDR_NO_RANDOMIZE) != -1)
			execv("/proc/self/exe", argv);
		if (argc == 2)
			return mode_placed();
		return mode_cost(argc - 2, argv + 2);
	}
	fprintf(stderr, "usage: %s value|tiering|placed|cost 4k|thp|sparse "
		"vaddr|paddr...\n", argv[0]);
	return 1;
}
