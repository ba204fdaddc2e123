# SPDX-License-Identifier: GPL-2.0
"""pagestat_tree: the series file, and the tree and update steps on a toy
kernel and overlay."""

import os
import time
import unittest

from harness_util import PATCH, ToyTree, write
from pagestat_common import Failure, git
from pagestat_tree import (
    Tree, assign_files, c_functions, has_diff, parse_series, series_functions)


class SeriesTest(unittest.TestCase):
    def test_parse(self):
        text = ('# comment\n0001-a.patch\n\tmm/x.c\n  include/y.h # c\n'
                '\n0002-b.patch\n')
        self.assertEqual(parse_series(text),
                         [('0001-a.patch', ['mm/x.c', 'include/y.h']),
                          ('0002-b.patch', [])])

    def test_file_before_patch(self):
        with self.assertRaisesRegex(Failure, 'series:1: file'):
            parse_series('\tmm/x.c\n')

    def test_duplicate_patch(self):
        with self.assertRaisesRegex(Failure, 'listed twice'):
            parse_series('a.patch\na.patch\n')

    def test_bad_paths(self):
        for bad in ('\t../x', '\t/abs', 'dir/p.patch', 'a b.patch'):
            with self.assertRaises(Failure, msg=bad):
                parse_series('p.patch\n' + bad + '\n')

    def test_assign(self):
        files = ['lib/t/Kconfig', 'lib/t/a.c', 'mm/p.c']
        got = assign_files([('1.patch', ['mm/p.c']),
                               ('2.patch', ['lib/t/'])], files)
        self.assertEqual(got, [('1.patch', ['mm/p.c']),
                               ('2.patch', ['lib/t/Kconfig', 'lib/t/a.c'])])

    def test_assign_unlisted(self):
        with self.assertRaisesRegex(Failure, 'not listed.*\n  mm/q.c'):
            assign_files([('1.patch', ['mm/p.c'])], ['mm/p.c', 'mm/q.c'])

    def test_assign_twice(self):
        with self.assertRaisesRegex(Failure, 'both 1.patch and 2.patch'):
            assign_files([('1.patch', ['mm/']), ('2.patch', ['mm/p.c'])],
                            ['mm/p.c'])

    def test_assign_missing(self):
        with self.assertRaisesRegex(Failure, 'lists mm/none.c'):
            assign_files([('1.patch', ['mm/none.c'])], [])

    def test_has_diff(self):
        self.assertTrue(has_diff(PATCH))
        self.assertFalse(has_diff('Subject: x\n\nbody only\n'))


class FunctionsTest(unittest.TestCase):
    def test_c_functions(self):
        src = ['static int pagestat_pte_entry(pte_t *pte, unsigned long a,',
               'int pagestat_range(struct mm_struct *mm, unsigned long s)',
               'static unsigned long', 'get_pages_array(unsigned long *p)',
               'int pagestat_range(struct mm_struct *mm);',
               '\tif (x(y))', '#define FOO(x) (x)',
               'EXPORT_SYMBOL_IF_KUNIT(pagestat_fill);',
               'static __printf(2, 3) void pagestat_report(int x, ...)']
        self.assertEqual(c_functions(src), {
            'pagestat_pte_entry', 'pagestat_range', 'get_pages_array',
            'pagestat_report'})

    def test_series_functions(self):
        names = series_functions()
        # The walker, the functions the move_pages() patches change, the
        # KUnit oracle; not what they call
        for f in ('pagestat_range', 'pagestat_pmd_entry', 'do_pages_stat',
                  'do_pages_move', 'pagestat_oracle'):
            self.assertIn(f, names)
        for f in ('walk_page_range', 'folio_walk_start', 'if'):
            self.assertNotIn(f, names)


class TreeTest(ToyTree):
    """The tree and update steps."""

    def test_update(self):
        t = Tree(self.repo)
        tip = t.update()
        self.assertEqual(self.log(t), ['B|mm: add new.c',
                                       'A Developer|mm: change a line'])
        with open(os.path.join(t.tree, 'mm', 'a.c')) as f:
            self.assertEqual(f.read(), 'one\nTWO\nthree\n')
        self.assertFalse(os.path.exists(os.path.join(t.tree, 'README.md')))
        with open(os.path.join(t.base, 'mm', 'a.c')) as f:
            self.assertEqual(f.read(), 'one\ntwo\nthree\n')
        # No change: same commit, nothing touched.
        b = os.path.join(t.tree, 'mm', 'b.c')
        a = os.path.join(t.tree, 'mm', 'a.c')
        os.utime(b, (1000, 1000))
        os.utime(a, (1000, 1000))
        self.assertEqual(Tree(self.repo).update(), tip)
        # An edit rewrites the edited file only.
        time.sleep(0.01)
        write(os.path.join(self.repo, 'mm', 'new.c'), 'newer\n')
        self.assertNotEqual(Tree(self.repo).update(), tip)
        self.assertEqual(os.stat(b).st_mtime, 1000)
        self.assertEqual(os.stat(a).st_mtime, 1000)
        with open(os.path.join(t.tree, 'mm', 'new.c')) as f:
            self.assertEqual(f.read(), 'newer\n')

    def test_deterministic(self):
        tip = Tree(self.repo).update()
        os.environ['PAGESTAT_CACHE'] = os.path.join(self.tmp.name, 'c2')
        self.assertEqual(Tree(self.repo).update(), tip)

    def test_bad_patch(self):
        write(os.path.join(self.src, 'mm', 'a.c'), 'other\n')
        with self.assertRaisesRegex(Failure,
                                    '0001-a.patch does not apply:'
                                    '(.|\n)*mm/a.c:1'):
            Tree(self.repo).update()

    def test_local_edit_refused(self):
        t = Tree(self.repo)
        t.update()
        write(os.path.join(t.tree, 'mm', 'b.c'), 'edited\n')
        with self.assertRaisesRegex(Failure, 'local edits'):
            Tree(self.repo).update()

    def test_interrupted_lock(self):
        t = Tree(self.repo)
        t.update()
        lock = os.path.join(git(['rev-parse', '--absolute-git-dir'],
                                cwd=t.tree).strip(), 'index.lock')
        open(lock, 'w').close()
        write(os.path.join(self.repo, 'mm', 'new.c'), 'again\n')
        Tree(self.repo).update()
        with open(os.path.join(t.tree, 'mm', 'new.c')) as f:
            self.assertEqual(f.read(), 'again\n')

    def test_stock_tree(self):
        """The stock tree: a worktree of base, kept at base's commit."""
        t = Tree(self.repo)
        t.update()
        a = os.path.join(t.stock_tree, 'mm', 'a.c')
        with open(a) as f:
            self.assertEqual(f.read(), 'one\ntwo\nthree\n')
        self.assertFalse(os.path.exists(os.path.join(t.stock_tree, 'mm',
                                                     'new.c')))
        base = git(['rev-parse', 'base'], cwd=t.base).strip()
        # moved off base, edited and locked: put back
        git(['checkout', '-q', '--detach', 'pagestat'], cwd=t.stock_tree)
        write(os.path.join(t.stock_tree, 'mm', 'b.c'), 'edited\n')
        lock = os.path.join(git(['rev-parse', '--absolute-git-dir'],
                                cwd=t.stock_tree).strip(), 'index.lock')
        open(lock, 'w').close()
        Tree(self.repo).update()
        self.assertEqual(git(['rev-parse', 'HEAD'], cwd=t.stock_tree).strip(),
                         base)
        with open(a) as f:
            self.assertEqual(f.read(), 'one\ntwo\nthree\n')
        with open(os.path.join(t.stock_tree, 'mm', 'b.c')) as f:
            self.assertEqual(f.read(), 'b\n')
        self.assertFalse(os.path.exists(lock))

    def test_missing_base(self):
        os.environ['KERNEL_SRC'] = os.path.join(self.tmp.name, 'nope.tar')
        with self.assertRaisesRegex(Failure, 'does not exist'):
            Tree(self.repo)


if __name__ == '__main__':
    unittest.main()
