// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test run in the guest by `pagestat test` on the stock and the
 * patched kernel: the guest has two nodes, and move_pages(2) with a NULL
 * node list answers a small fixed layout.  Prints one line per layout so
 * the harness can compare the two kernels byte for byte.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define NPAGES 8
#define MPOL_BIND 2

static long move_pages(int pid, unsigned long n, void **pages, int *status)
{
	return syscall(SYS_move_pages, pid, n, pages, NULL, status, 0);
}

static int print_layout(const char *name, char *buf, long psize)
{
	void *pages[NPAGES];
	int status[NPAGES], i;

	for (i = 0; i < NPAGES; i++) {
		pages[i] = buf + i * psize;
		status[i] = -1000;
	}
	if (move_pages(0, NPAGES, pages, status)) {
		printf("%s: move_pages: %s\n", name, strerror(errno));
		return 1;
	}
	printf("layout %s:", name);
	for (i = 0; i < NPAGES; i++)
		printf(" %d", status[i]);
	printf("\n");
	return 0;
}

int main(void)
{
	long psize = sysconf(_SC_PAGESIZE);
	unsigned long node0 = 1;
	int nodes = 0, err = 0;
	struct utsname u;
	volatile char c;
	char path[64];
	char *buf;
	int i;

	uname(&u);
	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", i);
		if (!access(path, F_OK))
			nodes++;
	}
	printf("kernel %s, %d nodes\n", u.release, nodes);
	if (nodes < 2) {
		printf("FAIL: expected two NUMA nodes\n");
		err = 1;
	}

	/* Allocate on node 0 whichever CPU this runs on. */
	if (syscall(SYS_set_mempolicy, MPOL_BIND, &node0, 8 * sizeof(node0))) {
		perror("set_mempolicy");
		return 1;
	}
	buf = mmap(NULL, NPAGES * psize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* Even pages written (node), page 1 read (zero page), rest untouched. */
	for (i = 0; i < NPAGES; i += 2)
		buf[i * psize] = 1;
	c = buf[psize];
	(void)c;
	/* A hole in the middle: -EFAULT. */
	munmap(buf + 5 * psize, psize);
	err |= print_layout("mixed", buf, psize);
	return err;
}
