// SPDX-License-Identifier: GPL-2.0
/*
 * PAGEMAP_SCAN's walk_end after a walk that filled the kernel's bounce
 * buffer of regions and then ran to the end of the range: it must be the
 * end of the range, so that a caller resuming at walk_end is done, and
 * not where the buffer first filled, which would give it regions twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/fs.h>

#include "../kselftest_harness.h"

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
#endif

#define PSZ		4096UL

static long scan(int fd, char *start, char *end, struct page_region *vec,
		 unsigned long vec_len, unsigned long *walk_end)
{
	struct pm_scan_arg arg = {
		.size = sizeof(arg),
		.start = (uintptr_t)start,
		.end = (uintptr_t)end,
		.vec = (uintptr_t)vec,
		.vec_len = vec_len,
		.category_mask = PAGE_IS_PRESENT,
		.return_mask = PAGE_IS_PRESENT,
	};
	long ret = ioctl(fd, PAGEMAP_SCAN, &arg);

	*walk_end = arg.walk_end;
	return ret;
}

FIXTURE(walk_end) {
	int fd;
	char *mem;
	unsigned long nr;	/* pages mapped; every other one touched */
};

FIXTURE_SETUP(walk_end)
{
	unsigned long i;

	self->fd = open("/proc/self/pagemap", O_RDONLY);
	if (self->fd < 0)
		SKIP(return, "/proc/self/pagemap: %s", strerror(errno));
	/* 1500 regions of one page: more than the kernel buffers (512) */
	self->nr = 3000;
	self->mem = mmap(NULL, self->nr * PSZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(self->mem != MAP_FAILED);
	ASSERT_EQ(0, madvise(self->mem, self->nr * PSZ, MADV_NOHUGEPAGE));
	for (i = 0; i < self->nr; i += 2)
		self->mem[i * PSZ] = 1;
}

FIXTURE_TEARDOWN(walk_end)
{
	if (self->fd >= 0) {
		munmap(self->mem, self->nr * PSZ);
		close(self->fd);
	}
}

/* Room for every region: one call finds them all and walks to the end. */
TEST_F(walk_end, all_regions)
{
	char *end = self->mem + self->nr * PSZ;
	struct page_region *vec;
	unsigned long walk_end, i;
	long ret;

	vec = calloc(self->nr, sizeof(*vec));
	ASSERT_TRUE(!!vec);
	ret = scan(self->fd, self->mem, end, vec, self->nr, &walk_end);
	ASSERT_EQ((long)self->nr / 2, ret) TH_LOG("regions: %ld", ret);
	/* The layout: page 2i present, page 2i + 1 not */
	for (i = 0; i < self->nr / 2; i++) {
		ASSERT_EQ((uintptr_t)self->mem + 2 * i * PSZ, vec[i].start);
		ASSERT_EQ(vec[i].start + PSZ, vec[i].end);
	}
	EXPECT_EQ((uintptr_t)end, walk_end)
		TH_LOG("walk_end %#lx is %ld pages before the end", walk_end,
		       (long)(((uintptr_t)end - walk_end) / PSZ));
	free(vec);
}

/*
 * A caller that resumes at walk_end with a vector of 800: the second call
 * fills the kernel's buffer once and then finds the last 188 regions. The
 * regions it gets in all are the 1500, each once, and it ends at the end.
 */
TEST_F(walk_end, resume)
{
	char *end = self->mem + self->nr * PSZ, *at = self->mem;
	unsigned long walk_end, got = 0, calls = 0;
	struct page_region vec[800];
	unsigned long long last = 0;
	long ret, i;

	while (at < end && calls++ < 10) {
		ret = scan(self->fd, at, end, vec, 800, &walk_end);
		ASSERT_LE(0, ret);
		for (i = 0; i < ret; i++) {
			ASSERT_LT(last, vec[i].start)
				TH_LOG("region %#llx given twice", vec[i].start);
			last = vec[i].start;
		}
		got += ret;
		ASSERT_LT((uintptr_t)at, walk_end);
		at = (char *)walk_end;
	}
	EXPECT_EQ(self->nr / 2, got);
	EXPECT_EQ((uintptr_t)end, (uintptr_t)at);
}

TEST_HARNESS_MAIN
