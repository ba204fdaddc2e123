# SPDX-License-Identifier: GPL-2.0
"""pagestat_tree: the series file, and the tree and update steps on a toy
kernel and overlay."""

import os
import time
import unittest

from harness_util import PATCH, ToyTree, write
from pagestat_common import Failure, git
from pagestat_tree import (
    Tree, assign_files, c_functions, has_diff, mail_files, parse_series,
    series_functions)


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


class PatchFunctionsTest(ToyTree):
    def test_function_defined_in_the_context(self):
        """A changed body whose function's definition is a context line of
        the hunk (its header names an earlier function) counts; a function
        whose body the hunk only shows does not."""
        write(os.path.join(self.repo, 'patches', '0003-c.patch'),
              'From: C <c@example.org>\nSubject: [PATCH] mm: c\n\nC.\n'
              '---\ndiff --git a/mm/c.c b/mm/c.c\n--- a/mm/c.c\n'
              '+++ b/mm/c.c\n@@ -10,12 +10,12 @@ static int before(void)\n'
              ' \treturn 0;\n }\n \n static int untouched(int a)\n'
              ' {\n \treturn a;\n }\n \n'
              ' static int changed(struct mm_struct *mm, unsigned long n,\n'
              ' \t\t   int *status)\n {\n-\treturn 1;\n+\treturn 2;\n }\n')
        write(os.path.join(self.repo, 'patches', 'series'),
              '0001-a.patch\n0002-new.patch\n\tmm/new.c\n0003-c.patch\n')
        names = series_functions(self.repo)
        self.assertIn('changed', names)
        self.assertIn('before', names)
        self.assertNotIn('untouched', names)


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

    def test_v2_tree(self):
        """v2's tree: base with the mails of its files committed in order,
        a worktree of base of its own, rewritten only where it changes."""
        mbox = os.path.join(self.tmp.name, 'v2', 'v2.mbox')
        second = PATCH.replace('Subject: [PATCH] mm: change a line',
                               'Subject: [PATCH] mm: change another') \
            .replace(' three\n', '-three\n+THREE\n').replace(
                '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n',
                '@@ -1,3 +1,3 @@\n one\n TWO\n')
        write(mbox, PATCH + '\n' + second)
        t = Tree(self.repo)
        t.update()
        tip = t.make_v2([mbox])
        self.assertEqual(git(['log', '--format=%an|%s', 'base..v2'],
                             cwd=t.base).splitlines(),
                         ['A Developer|mm: change another',
                          'A Developer|mm: change a line'])
        self.assertEqual(git(['rev-parse', 'HEAD'], cwd=t.v2_tree).strip(),
                         tip)
        a = os.path.join(t.v2_tree, 'mm', 'a.c')
        b = os.path.join(t.v2_tree, 'mm', 'b.c')
        with open(a) as f:
            self.assertEqual(f.read(), 'one\nTWO\nTHREE\n')
        self.assertEqual(os.path.relpath(t.v2_tree, t.v2_build),
                         os.path.relpath(t.stock_tree, t.stock_build))
        # The same mails: the same commit, nothing rewritten
        os.utime(a, (1000, 1000))
        os.utime(b, (1000, 1000))
        self.assertEqual(Tree(self.repo).make_v2([mbox]), tip)
        self.assertEqual(os.stat(a).st_mtime, 1000)
        # Only the first patch, from a directory: a.c goes back, b.c stays
        one = os.path.join(self.tmp.name, 'one')
        write(os.path.join(one, '0001-a.patch'), PATCH)
        write(os.path.join(one, 'README.md'), 'not a patch\n')
        self.assertNotEqual(Tree(self.repo).make_v2(mail_files([one])), tip)
        with open(a) as f:
            self.assertEqual(f.read(), 'one\nTWO\nthree\n')
        self.assertEqual(os.stat(b).st_mtime, 1000)
        # An edit in the v2 tree is put back (past the lock an interrupted
        # git left); the other trees untouched
        write(b, 'edited\n')
        lock = os.path.join(git(['rev-parse', '--absolute-git-dir'],
                                cwd=t.v2_tree).strip(), 'index.lock')
        open(lock, 'w').close()
        Tree(self.repo).make_v2(mail_files([one]))
        self.assertFalse(os.path.exists(lock))
        with open(b) as f:
            self.assertEqual(f.read(), 'b\n')
        with open(os.path.join(t.stock_tree, 'mm', 'a.c')) as f:
            self.assertEqual(f.read(), 'one\ntwo\nthree\n')
        self.assertEqual(self.log(t), ['B|mm: add new.c',
                                       'A Developer|mm: change a line'])

    def test_v2_bad_patch(self):
        bad = os.path.join(self.tmp.name, 'bad.patch')
        write(bad, PATCH.replace('-two', '-zwei'))
        with self.assertRaisesRegex(Failure, 'bad.patch does not apply to '
                                    'the base'):
            Tree(self.repo).make_v2([bad])
        nodiff = os.path.join(self.tmp.name, 'nodiff.patch')
        write(nodiff, 'From: B <b@example.org>\nSubject: x\n\nno diff\n')
        with self.assertRaisesRegex(Failure, 'no patch in .*nodiff.patch: '
                                    'no mail with a diff'):
            Tree(self.repo).make_v2([nodiff])

    def test_v2_thread_mbox(self):
        """A thread's mbox: the cover letter and a reply are left out, and
        said to be."""
        head = 'From 1 Mon Sep 17 00:00:00 2001\nFrom: C <c@example.org>\n'
        mbox = os.path.join(self.tmp.name, 'thread.mbox')
        write(mbox, head + 'Subject: [PATCH v2 0/1] cover\n\nWhy.\n\n' +
              PATCH + '\n' + head + 'Subject: Re: [PATCH v2 1/1] x\n\n'
              '> -two\n> +TWO\nLooks fine.\n')
        t = Tree(self.repo)
        t.make_v2([mbox])
        self.assertEqual(git(['log', '--format=%s', 'base..v2'],
                             cwd=t.base).splitlines(),
                         ['mm: change a line'])
        self.assertIn('v2: 2 mails without a diff left out',
                      self.out.getvalue())

    def test_mail_files(self):
        d = os.path.join(self.tmp.name, 'm')
        for n in ('b.patch', 'a.mbox', 'c.txt'):
            write(os.path.join(d, n), PATCH)
        self.assertEqual([os.path.basename(f) for f in mail_files([d])],
                         ['a.mbox', 'b.patch'])
        with self.assertRaisesRegex(Failure, 'holds no patch'):
            mail_files([os.path.join(self.src, 'mm')])
        with self.assertRaisesRegex(Failure, 'does not exist'):
            mail_files([os.path.join(d, 'none')])

    def test_missing_base(self):
        os.environ['KERNEL_SRC'] = os.path.join(self.tmp.name, 'nope.tar')
        with self.assertRaisesRegex(Failure, 'does not exist'):
            Tree(self.repo)


if __name__ == '__main__':
    unittest.main()
