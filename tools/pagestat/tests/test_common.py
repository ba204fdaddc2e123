# SPDX-License-Identifier: GPL-2.0
"""pagestat_common: every program the harness runs is installed, and
missing packages are named."""

import os
import re
import unittest

from harness_util import HERE, TOOLDIR
import pagestat_common as ps_common
from pagestat_common import ESSENTIAL_CMDS, Failure, PACKAGES, ensure_packages
from pagestat_qemu import KUNIT_ARCHES


class PackagesTest(unittest.TestCase):
    """Every program the harness and its tests run is on the install list."""

    # A command list written out in the source: ['prog', ... or ('prog', ...
    CMD_RE = re.compile(r"(?:run|Popen|cmd\s*=\s*\(?)\s*\(?\[\s*'([\w.+-]+)'")

    def programs(self):
        found = set()
        paths = [os.path.join(TOOLDIR, 'pagestat')]
        for d in (TOOLDIR, HERE):
            paths += [os.path.join(d, f) for f in os.listdir(d)
                      if f.endswith('.py')]
        for path in paths:
            with open(path) as f:
                found.update(self.CMD_RE.findall(f.read()))
        return found

    def test_scan_finds_programs(self):
        # The scan must see the calls it is meant to judge.
        progs = self.programs()
        for p in ('git', 'make', 'qemu-system-x86_64', 'gcc', 'perl'):
            self.assertIn(p, progs)

    def test_kunit_programs_are_installed(self):
        # kunit.py runs qemu and make runs the cross compiler, unseen above
        listed = {c.split(':', 1)[1] for _, c in PACKAGES
                  if c.startswith('cmd:')}
        for arch, a in KUNIT_ARCHES.items():
            self.assertIn(a['qemu'], listed, arch)
            if a['cross']:
                self.assertIn(a['cross'] + 'gcc', listed, arch)

    def test_every_program_is_installed(self):
        listed = {c.split(':', 1)[1] for _, c in PACKAGES
                  if c.startswith('cmd:')}
        missing = self.programs() - listed - ESSENTIAL_CMDS - {'apt-get'}
        self.assertEqual(missing, set(),
                         'programs run but not in PACKAGES: %s' %
                         ' '.join(sorted(missing)))


class SetupTest(unittest.TestCase):
    def test_missing_packages_named(self):
        have, euid = ps_common.have, os.geteuid
        ps_common.have = (lambda check: 'ccache' not in check and
                          'qboot' not in check)
        os.geteuid = lambda: 1000
        try:
            with self.assertRaisesRegex(
                    Failure, 'missing packages: ccache qemu-system-data\n'
                    '(.|\n)*apt-get install ccache qemu-system-data'):
                ensure_packages()
        finally:
            ps_common.have, os.geteuid = have, euid

    def test_nothing_missing(self):
        have = ps_common.have
        ps_common.have = lambda check: True
        try:
            ensure_packages()
        finally:
            ps_common.have = have


class ModulesTest(unittest.TestCase):
    # The README's table of modules, in order: each imports only from the
    # ones before it, and the command line from any.
    ORDER = ['common', 'qemu', 'tree', 'build', 'parse', 'guest', 'kunit',
             'check', 'export', 'bench', 'test']

    def imports(self, path):
        with open(path) as f:
            return re.findall(r'^(?:from|import) pagestat_(\w+)', f.read(),
                              re.M)

    def test_layering(self):
        mods = sorted(f[len('pagestat_'):-3] for f in os.listdir(TOOLDIR)
                      if f.startswith('pagestat_') and f.endswith('.py'))
        self.assertEqual(mods, sorted(self.ORDER))
        for i, m in enumerate(self.ORDER):
            path = os.path.join(TOOLDIR, 'pagestat_%s.py' % m)
            for dep in self.imports(path):
                self.assertIn(dep, self.ORDER[:i], m)
        self.assertTrue(set(self.imports(os.path.join(TOOLDIR, 'pagestat')))
                        <= set(self.ORDER))


if __name__ == '__main__':
    unittest.main()
