# SPDX-License-Identifier: GPL-2.0
"""pagestat_guest: the guest initramfs, and the console check that fails a
run."""

import os
import tempfile
import unittest
from unittest import mock

from harness_util import write
from pagestat_common import REPO, Failure
import pagestat_guest
from pagestat_guest import (
    GUEST_PROGS, KERNEL_SELFTESTS, MM_TESTS, build_guest_progs,
    check_console, initramfs_spec, prog_sources, selftest_link_problems)

# What 7.3's tools/testing/selftests/mm/Makefile says of the two kernel
# selftests the harness builds, trimmed.
MM_MAKEFILE_73 = """CFLAGS = -Wall -O2 -I $(top_srcdir) $(EXTRA_CFLAGS) $(KHDR_INCLUDES)
LDLIBS = -lrt -lpthread -lm
TEST_GEN_FILES += migration
TEST_GEN_FILES += pagemap_ioctl
include ../lib.mk

$(TEST_GEN_PROGS): vm_util.c hugepage_settings.c
$(TEST_GEN_FILES): vm_util.c hugepage_settings.c

$(OUTPUT)/uffd-stress: uffd-common.c
$(OUTPUT)/ksm_tests: LDLIBS += -lnuma

$(OUTPUT)/migration: LDLIBS += -lnuma
"""


def toy_tree(d, makefile=MM_MAKEFILE_73, skip=()):
    """A tree with the sources of GUEST_PROGS that are the tree's, but
    those in @skip."""
    tree = os.path.join(d, 'tree')
    write(os.path.join(tree, MM_TESTS, 'Makefile'), makefile)
    for name, (srcs, _) in GUEST_PROGS.items():
        for src in (srcs,) if isinstance(srcs, str) else srcs:
            if src not in skip and not src.startswith(('tools/pagestat/',
                                                       'tools/numa_vamap/')):
                write(os.path.join(tree, src), 'int x;\n')
    return tree

# The report of the KUnit boot that failed at random (5-level paging),
# trimmed, as the reproduction gave it; its frames are none of the series'.
KASAN_AT_BOOT = """[    0.412000] ======================================================
[    0.412000] BUG: KASAN: wild-memory-access in do_raw_spin_lock+0x11d/0x270
[    0.412000] Write of size 4 at addr ff110001800628a8 by task swapper/0/0
[    0.412000] Call Trace:
[    0.412000]  <IRQ>
[    0.412000]  dump_stack_lvl+0x66/0xa0
[    0.412000]  kasan_report+0xfe/0x130
[    0.412000]  ? do_raw_spin_lock+0x11d/0x270
[    0.412000]  kasan_check_range+0x100/0x1b0
[    0.412000]  do_raw_spin_lock+0x11d/0x270
[    0.412000]  ? __pfx_do_raw_spin_lock+0x10/0x10
[    0.412000]  handle_edge_irq+0x2c/0xba0
[    0.412000]  __common_interrupt+0x68/0x170
[    0.412000]  common_interrupt+0x79/0xa0
[    0.412000]  </IRQ>
[    0.412000] RIP: 0010:identify_cpu+0x2ad/0x1890
[    0.412000]  arch_cpu_finalize_init+0x25/0x410
[    0.412000]  start_kernel+0x295/0x330
[    0.412000] ======================================================
[    1.000000] Run /init as init process
"""

# A warning in the walker, as lockdep or DEBUG_VM would give it.
WARN_IN_WALKER = """[    9.000000] ------------[ cut here ]------------
[    9.000000] WARNING: CPU: 1 PID: 77 at mm/pagestat.c:120 pagestat_pmd_entry+0x1c/0x90
[    9.000000] RIP: 0010:pagestat_pmd_entry+0x1c/0x90
[    9.000000] Call Trace:
[    9.000000]  <TASK>
[    9.000000]  ? __warn+0x80/0x120
[    9.000000]  walk_pmd_range+0x1a0/0x2e0
[    9.000000]  walk_page_range+0x11/0x40
[    9.000000]  pagestat_range+0x40/0x80
[    9.000000]  do_pages_stat+0x300/0x400
[    9.000000]  </TASK>
[    9.000000] ---[ end trace 0000000000000000 ]---
"""


class InitramfsTest(unittest.TestCase):
    def test_initramfs_spec(self):
        spec = initramfs_spec({'init': '/g/init', 'smoke': '/g/smoke'})
        lines = spec.splitlines()
        self.assertIn('nod /dev/console 0600 0 0 c 5 1', lines)
        self.assertIn('file /init /g/init 0755 0 0', lines)
        self.assertIn('file /bin/smoke /g/smoke 0755 0 0', lines)
        # Directories before the files in them
        self.assertLess(lines.index('dir /bin 0755 0 0'),
                        lines.index('file /bin/smoke /g/smoke 0755 0 0'))
        self.assertTrue(spec.endswith('\n'))

    def test_initramfs_libs(self):
        lib = '/lib64/ld-linux-x86-64.so.2'
        lines = initramfs_spec({'init': '/g/init'}, [lib]).splitlines()
        self.assertIn('file %s %s 0755 0 0' % (lib, os.path.realpath(lib)),
                      lines)
        self.assertLess(lines.index('dir /lib64 0755 0 0'),
                        lines.index('nod /dev/console 0600 0 0 c 5 1'))


class GuestProgsTest(unittest.TestCase):
    def test_harness_sources_from_the_repository(self):
        """The harness's own programs come from the repository, where
        each of them is; the rest from the tree."""
        t = mock.Mock(tree='/tree')
        for name, (srcs, _) in GUEST_PROGS.items():
            srcs = (srcs,) if isinstance(srcs, str) else srcs
            for path in prog_sources(t, srcs):
                if path.startswith(REPO):
                    self.assertTrue(os.path.exists(path), (name, path))
                else:
                    self.assertTrue(path.startswith('/tree/'), (name, path))
        self.assertEqual(prog_sources(t, ['tools/numa_vamap/numa_vamap.c']),
                         [os.path.join(REPO, 'tools/numa_vamap/numa_vamap.c')])
        self.assertEqual(prog_sources(
            t, ['tools/pagestat/guest/move_pages_bench.c']),
            [os.path.join(REPO, 'tools/pagestat/guest/move_pages_bench.c')])

    def test_selftests_linked_as_the_makefile_says(self):
        with tempfile.TemporaryDirectory() as d:
            tree = toy_tree(d)
            self.assertEqual(selftest_link_problems(tree), [])
            # 6.12's helper, or a library the Makefile dropped
            old = MM_MAKEFILE_73.replace('hugepage_settings.c',
                                         'thp_settings.c')
            write(os.path.join(tree, MM_TESTS, 'Makefile'), old)
            got = selftest_link_problems(tree)
            self.assertEqual(len(got), len(KERNEL_SELFTESTS))
            self.assertIn('thp_settings.c', got[0])
            write(os.path.join(tree, MM_TESTS, 'Makefile'),
                  MM_MAKEFILE_73.replace('-lpthread ', ''))
            self.assertEqual(len(selftest_link_problems(tree)),
                             len(KERNEL_SELFTESTS))

    def build(self, tree):
        t = mock.Mock(tree=tree, build=os.path.dirname(tree))
        with mock.patch.object(pagestat_guest, 'make'), \
                mock.patch.object(pagestat_guest, 'run') as run:
            try:
                return build_guest_progs(t)
            finally:
                self.ran = run.call_args_list

    def test_missing_source_fails(self):
        """A guest program whose sources are missing fails the build of
        the guest programs (it was skipped on 6.12's harness)."""
        gone = MM_TESTS + 'hugepage_settings.c'
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(Failure) as cm:
                self.build(toy_tree(d, skip=(gone,)))
            msg = str(cm.exception)
            self.assertIn('migration: %s' % os.path.join(d, 'tree', gone),
                          msg)
            self.assertIn('pagemap_ioctl: ', msg)
            self.assertEqual(self.ran, [])
            # All there: every program is built, none left out
            progs = self.build(toy_tree(d))
            self.assertEqual(sorted(progs), sorted(GUEST_PROGS))
            cmd = [c[0][0] for c in self.ran
                   if any(a.endswith('/migration.c') for a in c[0][0])][0]
            self.assertIn(os.path.join(d, 'tree', gone), cmd)
            self.assertIn('-D_GNU_SOURCE=', cmd)
            self.assertIn('-lnuma', cmd)

    def test_makefile_disagrees_fails(self):
        with tempfile.TemporaryDirectory() as d:
            tree = toy_tree(d, makefile=MM_MAKEFILE_73.replace(
                'vm_util.c hugepage_settings.c',
                'vm_util.c hugepage_settings.c thp_helpers.c'))
            with self.assertRaisesRegex(Failure, 'thp_helpers.c'):
                self.build(tree)


class ConsoleTest(unittest.TestCase):
    def check(self, text):
        with tempfile.TemporaryDirectory() as d:
            con = os.path.join(d, 'console.log')
            with open(con, 'w') as f:
                f.write(text)
            check_console('patched-debug', con)

    def failure(self, text):
        with self.assertRaises(Failure) as cm:
            self.check(text)
        return str(cm.exception)

    def test_clean(self):
        self.check('[    1.0] Run /init as init process\n')

    def test_splat_outside_the_series(self):
        msg = self.failure(KASAN_AT_BOOT)
        self.assertIn('patched-debug kernel warned', msg)
        self.assertIn('BUG: KASAN: wild-memory-access in do_raw_spin_lock',
                      msg)
        # The first frames past KASAN's own, in order, none unreliable
        self.assertIn('first frames: do_raw_spin_lock, handle_edge_irq, '
                      '__common_interrupt, common_interrupt, identify_cpu',
                      msg)
        self.assertIn("in the series' code: none", msg)

    def test_splat_in_the_series(self):
        msg = self.failure(WARN_IN_WALKER + KASAN_AT_BOOT)
        self.assertIn('first frames: pagestat_pmd_entry, walk_pmd_range, '
                      'walk_page_range, pagestat_range, do_pages_stat', msg)
        self.assertIn("in the series' code: do_pages_stat, "
                      "pagestat_pmd_entry, pagestat_range", msg)
        # Both splats, each with its own verdict
        self.assertEqual(msg.count("in the series' code:"), 2)


if __name__ == '__main__':
    unittest.main()
