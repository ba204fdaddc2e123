// SPDX-License-Identifier: GPL-2.0
/*
 * numa_vamap: which NUMA node holds which address range of a process.
 *
 * Walk /proc/PID/maps, find the present pages of each VMA with the
 * PAGEMAP_SCAN ioctl of /proc/PID/pagemap (Linux 6.7+), which skips holes
 * at the cost of a page table walk and tells which ranges are mapped by
 * huge leaves, then ask move_pages(2) with a NULL node list for the node
 * of each present 4 KiB page and of one page per huge leaf, in large
 * batches.  Adjacent pages of one VMA on one node are merged into one
 * range.
 *
 * Without PAGEMAP_SCAN (and for the VMAs it does not walk, such as
 * VM_PFNMAP ones) every page is asked about: the same answer, slower.
 * The map is printed only if /proc/PID/maps reads the same before and
 * after the scan; otherwise the scan is retried, and then given up.
 *
 * Usage: numa_vamap [--json] [--vma] [--naive] PID [START-END]
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef PAGEMAP_SCAN
/* From include/uapi/linux/fs.h, for C libraries older than Linux 6.7. */
struct page_region {
	unsigned long long start;
	unsigned long long end;
	unsigned long long categories;
};

struct pm_scan_arg {
	unsigned long long size;
	unsigned long long flags;
	unsigned long long start;
	unsigned long long end;
	unsigned long long walk_end;
	unsigned long long vec;
	unsigned long long vec_len;
	unsigned long long max_pages;
	unsigned long long category_inverted;
	unsigned long long category_mask;
	unsigned long long category_anyof_mask;
	unsigned long long return_mask;
};

#define PAGEMAP_SCAN	_IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_PRESENT	0x08
#define PAGE_IS_PFNZERO	0x20
#define PAGE_IS_HUGE	0x40
#endif

#define NEED_PTRACE \
	"needs ptrace read access to the process: run as its owner or with CAP_SYS_PTRACE"

#define MAX_NODES	1024
#define SCAN_REGIONS	4096
#define BATCH		65536
#define TRIES		3

struct vma {
	unsigned long start, end;	/* clipped to the range asked for */
	unsigned long vm_start, vm_end;
	char perms[8];
	char *name;
};

struct range {
	unsigned long start, end;
	int node;
	int vma;
};

struct query {
	unsigned long start, end;
	int vma;
};

static const char *prog = "numa_vamap";
static const char json_vma[] =
	"%s {\"start\": \"%#lx\", \"end\": \"%#lx\", \"perms\": \"%s\", \"name\": ";
static const char json_range[] =
	"%s\n  {\"start\": \"%#lx\", \"end\": \"%#lx\", \"node\": %d, \"pages\": %lu}";
static pid_t pid;
static unsigned long page_size, huge_step;

static struct vma *vmas;
static int nr_vmas;
static struct range *ranges;
static size_t nr_ranges, max_ranges;

static struct query queries[BATCH];
static void *qpages[BATCH];
static int qstatus[BATCH];
static int nr_queries;

static unsigned long nr_calls, nr_scans;

/* Why a scan stopped: 0, or one of these. */
enum {
	SCAN_OK,
	SCAN_GONE,	/* the process exited */
	SCAN_FAILED,	/* an error, already reported */
	SCAN_NO_IOCTL,	/* the kernel has no PAGEMAP_SCAN */
};

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static void help_exit(FILE *f, int status)
{
	fprintf(f,
		"usage: %s [--json] [--vma] [--naive] PID [START-END]\n"
		"\n"
		"Print which NUMA node holds which address range of process PID:\n"
		"one line per range of adjacent pages of one VMA on one node, with\n"
		"the VMA's name as in /proc/PID/maps, then the pages per node.\n"
		"Pages on no node (never touched, swapped out, the shared zero\n"
		"page, device memory) are left out.\n"
		"\n"
		"  START-END  only the addresses in [START, END) (hexadecimal)\n"
		"  --vma      also list every VMA, with its pages per node, even\n"
		"             VMAs with no page on a node\n"
		"  --json     print the map as JSON (one range per line)\n"
		"  --naive    ask move_pages(2) about every page instead of finding\n"
		"             the present ones with PAGEMAP_SCAN first (slow; the\n"
		"             reference the fast method is tested against)\n"
		"  -h, --help print this help\n"
		"\n"
		"Needs ptrace read access to PID (its owner, or CAP_SYS_PTRACE).\n"
		"On kernels without the PAGEMAP_SCAN ioctl (before Linux 6.7) every\n"
		"page is asked about.  If the VMAs of PID change during the scan it\n"
		"is retried; no map is printed unless one scan saw stable VMAs.\n"
		"Exit status: 0 map printed, 1 error, 2 usage.\n",
		prog);
	exit(status);
}

/* Read /proc/PID/FILE whole; NULL with errno set if it cannot be read. */
static char *read_proc(const char *file, size_t *len)
{
	char path[64], *buf = NULL;
	size_t n = 0, size = 0;
	ssize_t r;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (size - n < 4096) {
			size = size ? 2 * size : 65536;
			buf = xrealloc(buf, size + 1);
		}
		r = read(fd, buf + n, size - n);
		if (r < 0) {
			err = errno;
			close(fd);
			free(buf);
			errno = err;
			return NULL;
		}
		if (!r)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

static void cannot_read(const char *file)
{
	if (errno == ENOENT || errno == ESRCH)
		die("no process %d", (int)pid);
	if (errno == EACCES || errno == EPERM)
		die("cannot read /proc/%d/%s: %s (%s)", (int)pid, file,
		    strerror(errno), NEED_PTRACE);
	die("cannot read /proc/%d/%s: %s", (int)pid, file, strerror(errno));
}

/* Parse the maps text into vmas[], clipped to [lo, hi). */
static void parse_maps(char *text, unsigned long lo, unsigned long hi)
{
	char *line, *next;
	int i;

	for (i = 0; i < nr_vmas; i++)
		free(vmas[i].name);
	nr_vmas = 0;
	for (line = text; *line; line = next) {
		unsigned long start, end;
		char perms[8];
		int name_at = 0;
		struct vma *v;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end,
			   perms, &name_at) < 3 || !name_at)
			die("cannot parse a line of /proc/%d/maps: %s", (int)pid,
			    line);
		if (end <= lo || start >= hi)
			continue;
		if (!(nr_vmas & 255))
			vmas = xrealloc(vmas, (nr_vmas + 256) * sizeof(*vmas));
		v = &vmas[nr_vmas++];
		v->vm_start = start;
		v->vm_end = end;
		v->start = start < lo ? lo : start;
		v->end = end > hi ? hi : end;
		snprintf(v->perms, sizeof(v->perms), "%s", perms);
		v->name = strdup(line + name_at);
		if (!v->name)
			die("out of memory");
	}
}

static void add_range(int vma, unsigned long start, unsigned long end,
		      int node)
{
	struct range *r = nr_ranges ? &ranges[nr_ranges - 1] : NULL;

	if (r && r->vma == vma && r->end == start && r->node == node) {
		r->end = end;
		return;
	}
	if (nr_ranges == max_ranges) {
		max_ranges = max_ranges ? 2 * max_ranges : 4096;
		ranges = xrealloc(ranges, max_ranges * sizeof(*ranges));
	}
	r = &ranges[nr_ranges++];
	r->start = start;
	r->end = end;
	r->node = node;
	r->vma = vma;
}

/* Ask move_pages(2) about the queued pages and record their ranges. */
static int flush_queries(void)
{
	int i;

	if (!nr_queries)
		return SCAN_OK;
	nr_calls++;
	if (syscall(SYS_move_pages, pid, (unsigned long)nr_queries, qpages,
		    NULL, qstatus, 0)) {
		if (errno == ESRCH || errno == EINVAL)
			return SCAN_GONE;
		if (errno == EPERM || errno == EACCES) {
			fprintf(stderr, "%s: move_pages(2) on process %d: %s (%s)\n",
				prog, (int)pid, strerror(errno), NEED_PTRACE);
			return SCAN_FAILED;
		}
		fprintf(stderr, "%s: move_pages(2) on process %d: %s\n", prog,
			(int)pid, strerror(errno));
		return SCAN_FAILED;
	}
	for (i = 0; i < nr_queries; i++)
		if (qstatus[i] >= 0 && qstatus[i] < MAX_NODES)
			add_range(queries[i].vma, queries[i].start,
				  queries[i].end, qstatus[i]);
	nr_queries = 0;
	return SCAN_OK;
}

/* Queue one query that answers for [start, end). */
static int query(int vma, unsigned long start, unsigned long end)
{
	struct query *q = &queries[nr_queries];

	q->start = start;
	q->end = end;
	q->vma = vma;
	qpages[nr_queries++] = (void *)start;
	return nr_queries == BATCH ? flush_queries() : SCAN_OK;
}

/* Ask about every page of [start, end) of a VMA. */
static int query_pages(int vma, unsigned long start, unsigned long end)
{
	unsigned long a;
	int ret;

	for (a = start; a < end; a += page_size) {
		ret = query(vma, a, a + page_size);
		if (ret)
			return ret;
	}
	return SCAN_OK;
}

/* Ask about a range mapped by huge leaves: one page per leaf. */
static int query_huge(int vma, unsigned long start, unsigned long end)
{
	unsigned long a, next;
	int ret;

	for (a = start; a < end; a = next) {
		next = (a | (huge_step - 1)) + 1;
		if (next > end || next < a)
			next = end;
		ret = query(vma, a, next);
		if (ret)
			return ret;
	}
	return SCAN_OK;
}

static long pagemap_scan(int fd, struct pm_scan_arg *arg)
{
	nr_scans++;
	return ioctl(fd, PAGEMAP_SCAN, arg);
}

static int scan_error(const char *what)
{
	if (errno == ESRCH)
		return SCAN_GONE;
	if (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP)
		return SCAN_NO_IOCTL;
	fprintf(stderr, "%s: %s on /proc/%d/pagemap: %s\n", prog, what,
		(int)pid, strerror(errno));
	return SCAN_FAILED;
}

/*
 * One VMA with PAGEMAP_SCAN: the present pages that are not the zero page,
 * with whether a huge leaf maps them.  A VMA the ioctl does not walk
 * (VM_PFNMAP) gives no region even for a hole: a probe of its first page
 * tells it apart from an empty VMA, and its pages are asked about one by
 * one.
 */
static int scan_vma(int fd, int vma)
{
	static struct page_region vec[SCAN_REGIONS];
	struct vma *v = &vmas[vma];
	struct pm_scan_arg arg;
	unsigned long start = v->start;
	long n, i;
	int found = 0, ret;

	for (;;) {
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.start = start;
		arg.end = v->end;
		arg.vec = (unsigned long)vec;
		arg.vec_len = SCAN_REGIONS;
		arg.category_mask = PAGE_IS_PRESENT | PAGE_IS_PFNZERO;
		arg.category_inverted = PAGE_IS_PFNZERO;
		arg.return_mask = PAGE_IS_HUGE;
		n = pagemap_scan(fd, &arg);
		/* The [vsyscall] page lies above the user address space. */
		if (n < 0 && errno == EFAULT && !found && start == v->start)
			return query_pages(vma, v->start, v->end);
		if (n < 0)
			return scan_error("PAGEMAP_SCAN");
		for (i = 0; i < n; i++) {
			if (vec[i].categories & PAGE_IS_HUGE)
				ret = query_huge(vma, vec[i].start, vec[i].end);
			else
				ret = query_pages(vma, vec[i].start,
						  vec[i].end);
			if (ret)
				return ret;
		}
		found |= n > 0;
		/*
		 * A vector with room left means the walk reached the end.
		 * Otherwise go on after the last region: walk_end cannot be
		 * trusted, as 6.12 leaves it where the kernel's bounce buffer
		 * first filled up when the walk then runs to the end.
		 */
		if (n < SCAN_REGIONS)
			break;
		if (vec[n - 1].end <= start || vec[n - 1].end > v->end) {
			fprintf(stderr, "%s: PAGEMAP_SCAN returned %#llx-%#llx for %#lx-%#lx\n",
				prog, vec[n - 1].start, vec[n - 1].end, start,
				v->end);
			return SCAN_FAILED;
		}
		start = vec[n - 1].end;
	}
	if (found)
		return SCAN_OK;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.start = v->start;
	arg.end = v->start + page_size;
	arg.vec = (unsigned long)vec;
	arg.vec_len = 1;
	n = pagemap_scan(fd, &arg);
	if (n < 0)
		return scan_error("PAGEMAP_SCAN");
	return n ? SCAN_OK : query_pages(vma, v->start, v->end);
}

static int scan(int naive)
{
	int fd = -1, i, ret = SCAN_OK;

	nr_ranges = 0;
	nr_queries = 0;
	if (!naive) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			if (errno == ENOENT || errno == ESRCH)
				return SCAN_GONE;
			cannot_read("pagemap");
		}
	}
	for (i = 0; i < nr_vmas && !ret; i++)
		ret = naive ? query_pages(i, vmas[i].start, vmas[i].end)
			    : scan_vma(fd, i);
	if (!ret)
		ret = flush_queries();
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The smallest size of a huge leaf: one query answers for that much. */
static unsigned long huge_leaf_size(void)
{
	unsigned long pmd = page_size * (page_size / 8), kb, size = pmd;
	struct dirent *d;
	DIR *dir;

	dir = opendir("/sys/kernel/mm/hugepages");
	while (dir && (d = readdir(dir))) {
		if (sscanf(d->d_name, "hugepages-%lukB", &kb) == 1 &&
		    kb * 1024 >= page_size && kb * 1024 < size)
			size = kb * 1024;
	}
	if (dir)
		closedir(dir);
	return size;
}

static const char *vma_name(const struct vma *v)
{
	return *v->name ? v->name : "[anon]";
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_size(unsigned long bytes)
{
	printf("%8luK", bytes >> 10);
}

static void print_map(int json, int all_vmas, const char *method)
{
	static unsigned long totals[MAX_NODES];
	unsigned long vma_pages[MAX_NODES];
	size_t r = 0, r0;
	int i, n, first = 1, max_node = -1;
	const char *sep;

	memset(totals, 0, sizeof(totals));
	if (json)
		printf("{\"pid\": %d, \"method\": \"%s\", \"page_size\": %lu, \"vmas\": [\n",
		       (int)pid, method, page_size);
	for (i = 0; i < nr_vmas; i++) {
		struct vma *v = &vmas[i];
		int vmax = -1;

		memset(vma_pages, 0, sizeof(vma_pages));
		for (r0 = r; r < nr_ranges && ranges[r].vma == i; r++) {
			n = ranges[r].node;
			vma_pages[n] += (ranges[r].end - ranges[r].start) /
					page_size;
			if (n > vmax)
				vmax = n;
		}
		if (r == r0 && !all_vmas)
			continue;
		for (n = 0; n <= vmax; n++)
			totals[n] += vma_pages[n];
		if (vmax > max_node)
			max_node = vmax;
		if (json) {
			printf(json_vma, first ? "" : ",\n", v->start, v->end,
			       v->perms);
			json_string(v->name);
			printf(", \"nodes\": {");
			for (n = 0, sep = ""; n <= vmax; n++)
				if (vma_pages[n]) {
					printf("%s\"%d\": %lu", sep, n,
					       vma_pages[n]);
					sep = ", ";
				}
			printf("}, \"ranges\": [");
			for (sep = ""; r0 < r; r0++, sep = ",")
				printf(json_range, sep, ranges[r0].start, ranges[r0].end,
				       ranges[r0].node,
				       (ranges[r0].end - ranges[r0].start) /
				       page_size);
			printf("]}");
			first = 0;
			continue;
		}
		if (all_vmas) {
			printf("%016lx-%016lx %-4s ", v->start, v->end,
			       v->perms);
			print_size(v->end - v->start);
			for (n = 0; n <= vmax; n++)
				if (vma_pages[n])
					printf(" N%d=%lu", n, vma_pages[n]);
			printf("  %s\n", vma_name(v));
		}
		for (; r0 < r; r0++) {
			printf("%s%016lx-%016lx ", all_vmas ? "  " : "",
			       ranges[r0].start, ranges[r0].end);
			print_size(ranges[r0].end - ranges[r0].start);
			printf(" N%-3d %s\n", ranges[r0].node, vma_name(v));
		}
	}
	if (json) {
		printf("%s], \"totals\": {", first ? "" : "\n");
		for (n = 0, first = 1; n <= max_node; n++)
			if (totals[n]) {
				printf("%s\"%d\": %lu", first ? "" : ", ", n,
				       totals[n]);
				first = 0;
			}
		printf("}, \"move_pages_calls\": %lu, \"pagemap_scans\": %lu}\n",
		       nr_calls, nr_scans);
		return;
	}
	for (n = 0; n <= max_node; n++)
		if (totals[n]) {
			printf("total N%d %lu pages ", n, totals[n]);
			print_size(totals[n] * page_size);
			printf("\n");
		}
}

static void parse_range(const char *s, unsigned long *lo, unsigned long *hi)
{
	char *end;

	errno = 0;
	*lo = strtoul(s, &end, 16);
	if (errno || *end != '-')
		help_exit(stderr, 2);
	*hi = strtoul(end + 1, &end, 16);
	if (errno || *end || *hi <= *lo)
		help_exit(stderr, 2);
	*lo &= ~(page_size - 1);
	if (*hi & (page_size - 1))
		*hi = (*hi | (page_size - 1)) + 1;
	if (!*hi)
		*hi = -page_size;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "vma", no_argument, NULL, 'v' },
		{ "naive", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, all_vmas = 0, naive = 0, opt, tries, ret = SCAN_OK;
	unsigned long lo = 0, hi = -1UL;
	char *maps, *again, *end;
	size_t len, len2;
	long p;

	while ((opt = getopt_long(argc, argv, "jvnh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'v':
			all_vmas = 1;
			break;
		case 'n':
			naive = 1;
			break;
		case 'h':
			help_exit(stdout, 0);
			break;
		default:
			help_exit(stderr, 2);
		}
	}
	if (optind >= argc || argc - optind > 2)
		help_exit(stderr, 2);
	errno = 0;
	p = strtol(argv[optind], &end, 10);
	if (errno || *end || p <= 0 || p != (pid_t)p)
		help_exit(stderr, 2);
	pid = p;
	page_size = sysconf(_SC_PAGESIZE);
	huge_step = huge_leaf_size();
	if (argc - optind == 2)
		parse_range(argv[optind + 1], &lo, &hi);

	for (tries = 0; tries < TRIES; tries++) {
		maps = read_proc("maps", &len);
		if (!maps)
			cannot_read("maps");
		if (!len)
			die("process %d has no user memory (a kernel thread, or exiting)",
			    (int)pid);
		again = strdup(maps);
		if (!again)
			die("out of memory");
		parse_maps(again, lo, hi);
		free(again);
		ret = scan(naive);
		if (ret == SCAN_NO_IOCTL) {
			fprintf(stderr,
				"%s: this kernel has no PAGEMAP_SCAN ioctl (Linux 6.7+): asking move_pages(2) about every page, which is slow on large mappings\n",
				prog);
			naive = 1;
			ret = scan(naive);
		}
		if (ret == SCAN_GONE)
			die("process %d exited during the scan", (int)pid);
		if (ret)
			exit(1);
		again = read_proc("maps", &len2);
		if (!again) {
			if (errno == ENOENT || errno == ESRCH)
				die("process %d exited during the scan",
				    (int)pid);
			cannot_read("maps");
		}
		if (!len2)
			die("process %d exited during the scan", (int)pid);
		if (len == len2 && !memcmp(maps, again, len)) {
			free(again);
			free(maps);
			break;
		}
		fprintf(stderr, "%s: the VMAs of process %d changed during the scan%s\n",
			prog, (int)pid, tries + 1 < TRIES ? "; scanning again" : "");
		free(again);
		free(maps);
	}
	if (tries == TRIES)
		die("the VMAs of process %d kept changing during %d scans: no map printed",
		    (int)pid, TRIES);
	print_map(json, all_vmas, naive ? "move_pages" : "pagemap_scan");
	return 0;
}
