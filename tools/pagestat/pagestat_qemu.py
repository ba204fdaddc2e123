# SPDX-License-Identifier: GPL-2.0
"""The guests as data: the NUMA nodes, CPU and kernel command lines of each
kind of guest, and the KUnit architectures.
"""

import os

from pagestat_common import Failure


# One CPU per socket: two cores of one socket on different nodes make
# the guest warn that its LLC siblings are on different nodes.
# Node 0 holds the 3 GiB below the PCI hole and 2 GiB above 4 GiB: with
# less, early allocations at its top leave no free aligned GiB and its
# 1 GiB hugetlb page silently goes to node 1.
NODE_MB = 5120


def qemu_numa(node0_mb=NODE_MB, node1_mb=NODE_MB, cpus=2):
    """Two NUMA nodes of the given sizes: CPU 0 on node 0, the other
    @cpus - 1 on node 1."""
    return ['-m', str(node0_mb + node1_mb),
            '-smp', '%d,sockets=%d,cores=1,threads=1' % (cpus, cpus),
            '-object', 'memory-backend-ram,id=m0,size=%dM' % node0_mb,
            '-object', 'memory-backend-ram,id=m1,size=%dM' % node1_mb,
            '-numa', 'node,nodeid=0,cpus=0,memdev=m0',
            '-numa', 'node,nodeid=1,cpus=%s,memdev=m1' % (
                '1' if cpus == 2 else '1-%d' % (cpus - 1))]


QEMU_NUMA = qemu_numa()

# The kernel's migration selftest moves pages under numa_num_task_cpus() - 1
# threads that touch them, at least two: three CPUs, over both nodes.
SELFTEST_NUMA = qemu_numa(cpus=3)

KERNEL_ARGS = ['hugepagesz=1G', 'hugepages=0:1,1:1',
               'hugepagesz=2M', 'hugepages=0:8,1:8',
               'transparent_hugepage=madvise']

# KUnit's PUD leaves of a gigantic folio take a second 1 GiB hugetlb page
# of each node, reserved at boot like the first.
KUNIT_KERNEL_ARGS = ['hugepagesz=1G', 'hugepages=0:2,1:2'] + KERNEL_ARGS[2:]

# Node 0 gets 2 GiB more: room for its two 1 GiB pages besides what the
# boot allocates at its top.
KUNIT_NUMA = qemu_numa(node0_mb=NODE_MB + 2048)

# A debug kernel's boot time grows with memory (KASAN poisons and
# DEBUG_PAGEALLOC unmaps every page it frees) and its 1 GiB hugetlb pages:
# with two nodes of 3 GiB and a 1 GiB page each it booted in 19 s, with
# 2 GiB and no 1 GiB pages in 6 s.  The 1 GiB tests skip there.
DEBUG_NUMA = qemu_numa(2048, 2048, cpus=3)

DEBUG_KERNEL_ARGS = [a for a in KERNEL_ARGS
                     if a not in ('hugepagesz=1G', 'hugepages=0:1,1:1')]


def qemu_accel():
    accel = os.environ.get('PAGESTAT_ACCEL', 'tcg')
    if accel not in ('tcg', 'kvm'):
        raise Failure('PAGESTAT_ACCEL must be tcg or kvm, not %r' % accel)
    return accel


# The x86-64 guests' CPU but for the bench's: qemu's "max" without the
# fast string features and without 5-level paging.
#
# TCG emulates each step of a rep movsb or stosb one at a time, and with
# ERMS the kernel copies and clears pages that way (migrating a 1 GiB
# page, in copy_mc_enhanced_fast_string(), took over a minute); without
# it, with 8 bytes a step.
#
# LA57 is off for a kernel bug, not for qemu: identify_cpu() clears
# boot_cpu_data.x86_capability and reads CPUID again, and until it has,
# pgtable_l5_enabled() in code built without USE_EARLY_PGTABLE_L5 says
# 4-level.  KASAN's shadow start follows it, so an interrupt that comes in
# that window (arch_cpu_finalize_init() runs with interrupts on) and
# touches the 5-level direct map (0xff11...) is reported as a
# wild-memory-access.  Of the x86-64 guest kernels only the KUnit one has
# X86_5LEVEL (kunit.py's defaults; the boot and debug kernels start from
# allnoconfig), and about one of its boots in five was hit.  On a CPU
# without LA57 the kernel runs 4-level from the start and the bit never
# changes.  Upstream's rework that sets LA57 on the boot CPU before the
# page tables, with one source of truth for pgtable_l5_enabled() (Ard
# Biesheuvel, "x86/boot: Set LA57 boot CPU capability very early during
# boot"), was not in 6.12; 7.3 is not re-measured.
X86_CPU = 'max,erms=off,fsrm=off,la57=off'

# What differs between the KUnit kernels (the key is kunit.py's --arch and
# make's ARCH=): its build directory, the cross compiler's prefix, the
# qemu that kunit.py boots and the image (its qemu_configs/ add the
# machine and the console), and what the harness adds to qemu's and the
# kernel's command lines.  Both have the nodes of KUNIT_NUMA and 4 KiB
# pages.
KUNIT_ARCHES = {
    'x86_64': {'build': 'kunit', 'cross': None, 'qemu': 'qemu-system-x86_64',
               'image': 'arch/x86/boot/bzImage',
               'qemu_args': ['-cpu', X86_CPU],
               # Neither the i8042 keyboard nor its mouse port: their late
               # "input:" lines can land inside the KTAP output, which
               # kunit.py then fails to parse.
               'kargs': ['i8042.nokbd', 'i8042.noaux']},
    'arm64': {'build': 'kunit-arm64', 'cross': 'aarch64-linux-gnu-',
              'qemu': 'qemu-system-aarch64',
              'image': 'arch/arm64/boot/Image.gz', 'qemu_args': [],
              # contiguous-PTE and contiguous-PMD hugetlb pages
              'kargs': ['hugepagesz=64K', 'hugepages=0:16,1:16',
                        'hugepagesz=32M', 'hugepages=0:2,1:2']},
}

BENCH_KERNEL_ARGS = ['hugepagesz=2M', 'hugepages=0:8,1:8',
                     'transparent_hugepage=madvise']

# Under -icount the idle vCPU's timers wait while the other runs a long
# stretch (populating a 16 GiB buffer takes over 20 s of guest time), and
# RCU then reports its kthread as starved; give it the longest timeout.
BENCH_STALL_ARGS = ['rcupdate.rcu_cpu_stall_timeout=300']
