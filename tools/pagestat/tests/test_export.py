# SPDX-License-Identifier: GPL-2.0
"""pagestat_export: the series exported as mails that apply to the base."""

import os
import unittest

from harness_util import PATCH, ToyTree
from pagestat_common import read
from pagestat_export import export, part_of, verify_export
from pagestat_tree import Tree


class ExportTest(ToyTree):
    def test_export(self):
        t = Tree(self.repo)
        t.update()
        out = os.path.join(self.tmp.name, 'series')
        files = export(t, out)
        self.assertEqual([os.path.relpath(f, out) for f in files],
                         ['pagestat/0000-cover-letter.patch',
                          'pagestat/0001-mm-change-a-line.patch',
                          'pagestat/0002-mm-add-new.c.patch'])
        self.assertEqual(verify_export(t, files), (True, ''))
        first = [read(f) for f in files]
        files = export(t, out)
        self.assertEqual([read(f) for f in files], first)

    def test_fixes_apart(self):
        """A patch with a Fixes: tag goes to its own series, before the
        feature, which names it as a prerequisite."""
        p = os.path.join(self.repo, 'patches', '0001-a.patch')
        with open(p, 'w') as f:
            f.write(PATCH.replace('Why the line changes.\n', 'Why the line '
                                  'changes.\n\nFixes: 0123456789ab ("mm: '
                                  'a")\n'))
        t = Tree(self.repo)
        t.update()
        out = os.path.join(self.tmp.name, 'series')
        files = export(t, out)
        self.assertEqual([os.path.relpath(f, out) for f in files],
                         ['fixes/0000-cover-letter.patch',
                          'fixes/0001-mm-change-a-line.patch',
                          'pagestat/0000-cover-letter.patch',
                          'pagestat/0001-mm-add-new.c.patch'])
        self.assertIn('prerequisite-patch-id: ', read(files[2]))
        self.assertEqual(verify_export(t, files), (True, ''))

    def test_parts(self):
        self.assertEqual(part_of('x\n\ncommit %s upstream.\n' % ('a' * 40)),
                         'stable')
        self.assertEqual(part_of('x\n\nFixes: 0123456789ab ("y")\n'),
                         'fixes')
        self.assertEqual(part_of('x\n\nSee Fixes: below\n'), 'pagestat')


if __name__ == '__main__':
    unittest.main()
