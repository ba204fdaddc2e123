# SPDX-License-Identifier: GPL-2.0
"""pagestat_qemu: the guests' settings."""

import unittest

import harness_util  # noqa: F401 (the modules' path)
from pagestat_qemu import (DEBUG_KERNEL_ARGS, KERNEL_ARGS, KUNIT_ARCHES,
                           KUNIT_KERNEL_ARGS, X86_CPU, qemu_numa)


class QemuTest(unittest.TestCase):
    def test_numa(self):
        args = qemu_numa(3072, 2048)
        self.assertEqual(args[args.index('-m') + 1], '5120')
        self.assertIn('memory-backend-ram,id=m0,size=3072M', args)
        self.assertIn('memory-backend-ram,id=m1,size=2048M', args)
        self.assertIn('node,nodeid=1,cpus=1,memdev=m1', args)

    def test_kernel_args(self):
        # The debug kernels have no 1 GiB pages; KUnit reserves two a node
        self.assertNotIn('hugepagesz=1G', DEBUG_KERNEL_ARGS)
        self.assertIn('hugepagesz=2M', DEBUG_KERNEL_ARGS)
        self.assertEqual(KUNIT_KERNEL_ARGS[:2],
                         ['hugepagesz=1G', 'hugepages=0:2,1:2'])
        self.assertEqual(KUNIT_KERNEL_ARGS[2:], KERNEL_ARGS[2:])

    def test_cpu(self):
        # No fast strings: TCG emulates a rep movsb a byte at a time
        self.assertIn('erms=off', X86_CPU.split(','))
        self.assertIn('fsrm=off', X86_CPU.split(','))
        # No 5-level paging: KASAN's false report at boot (pagestat_qemu)
        self.assertIn('la57=off', X86_CPU.split(','))
        self.assertEqual(KUNIT_ARCHES['x86_64']['qemu_args'],
                         ['-cpu', X86_CPU])


if __name__ == '__main__':
    unittest.main()
