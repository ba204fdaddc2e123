# SPDX-License-Identifier: GPL-2.0
"""pagestat_export: the series exported as mails that apply to the base."""

import os
import unittest

from harness_util import ToyTree
from pagestat_common import read
from pagestat_export import export, verify_export
from pagestat_tree import Tree


class ExportTest(ToyTree):
    def test_export(self):
        t = Tree(self.repo)
        t.update()
        out = os.path.join(self.tmp.name, 'series')
        files = export(t, out)
        self.assertEqual([os.path.basename(f) for f in files],
                         ['0000-cover-letter.patch',
                          '0001-mm-change-a-line.patch',
                          '0002-mm-add-new.c.patch'])
        self.assertEqual(verify_export(t, files), (True, ''))
        first = [read(f) for f in files]
        files = export(t, out)
        self.assertEqual([read(f) for f in files], first)


if __name__ == '__main__':
    unittest.main()
