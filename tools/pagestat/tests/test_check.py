# SPDX-License-Identifier: GPL-2.0
"""pagestat_check: stable backports and the robot builds."""

import contextlib
import io
import os
import tempfile
import unittest
from unittest import mock

from harness_util import write
import pagestat_check
from pagestat_check import (
    FEATURE_OBJECT, NO_MIGRATION, ROBOT_BUILDS, ROBOT_CONFIG, ROBOT_LINKED,
    ROBOT_OBJECTS, added_lines, backport_of, checkpatch_ran, cocci_ran,
    compiled, kernel_doc_cmd, kernel_doc_warnings, new_warnings,
    robot_fragment, robot_label, robot_not_built, robot_objects_hold,
    sparse_valid)
from pagestat_common import PACKAGES, Results, read


class BackportTest(unittest.TestCase):
    def test_backport(self):
        sha = '10d04c26ab2b7da31dd66973f5a09d6fd8ff2a46'
        self.assertEqual(backport_of('commit %s upstream.\n\nWhy.\n'
                                        % sha), '10d04c26ab2b')
        self.assertEqual(backport_of('\ncommit %s upstream.\n' % sha),
                         '10d04c26ab2b')
        # Only as the first line, and only the kernel's form
        self.assertIsNone(backport_of('Why.\n\ncommit %s upstream.\n'
                                         % sha))
        self.assertIsNone(backport_of('commit %s\n' % sha))
        self.assertIsNone(backport_of('Upstream commit %s.\n' % sha))


class RobotTest(unittest.TestCase):
    DIFF = """diff --git a/mm/x.c b/mm/x.c
--- a/mm/x.c
+++ b/mm/x.c
@@ -10,0 +11,2 @@ f
+a
+b
@@ -20 +22 @@ g
-c
+d
"""

    def test_added_lines(self):
        self.assertEqual(added_lines(self.DIFF), {'mm/x.c': {11, 12, 22}})

    def test_new_warnings(self):
        added = added_lines(self.DIFF)
        log = ('/t/mm/x.c:11:5: warning: unused variable \'v\'\n'
               '/t/mm/x.c:13:1: warning: unused variable \'w\'\n'
               '/t/mm/x.c:22:9: warning: context imbalance in \'f\' - '
               'unexpected unlock\n')
        base = ('/b/mm/y.c:7:2: warning: context imbalance in \'g\' - '
                'unexpected unlock\n')
        # Line 13 is not the series'; line 22's kind is the base's too
        self.assertEqual(new_warnings(log, added, base),
                         [log.splitlines()[0]])
        self.assertEqual(len(new_warnings(log, added)), 2)

    def test_fragment(self):
        frag = robot_fragment(['# CONFIG_NUMA is not set', 'CONFIG_X=y'])
        self.assertIn('# CONFIG_NUMA is not set\n', frag)
        self.assertNotIn('CONFIG_NUMA=y', frag)
        self.assertIn('CONFIG_X=y\n', frag)
        names = [b[0] for b in ROBOT_BUILDS]
        self.assertEqual(len(names), len(set(names)))
        self.assertTrue(set(ROBOT_LINKED) <= set(names))


class Robot73Test(unittest.TestCase):
    """The robot's matrix on 7.3."""

    def frag(self, name):
        return robot_fragment([b for b in ROBOT_BUILDS if b[0] == name][0][3])

    def test_numa_migration(self):
        # MIGRATION has no prompt on 7.3: NUMA_MIGRATION selects it, and
        # builds move_pages() and mm/pagestat.o
        self.assertIn('CONFIG_NUMA_MIGRATION=y', ROBOT_CONFIG)
        self.assertEqual(ROBOT_OBJECTS[FEATURE_OBJECT],
                         'CONFIG_NUMA_MIGRATION')
        for name, _, _, lines in ROBOT_BUILDS:
            frag = robot_fragment(lines).splitlines()
            # a build without NUMA says it has no NUMA_MIGRATION either
            if '# CONFIG_NUMA is not set' in frag:
                self.assertIn('# CONFIG_NUMA_MIGRATION is not set', frag,
                              name)

    def test_without_migration(self):
        # every "select MIGRATION" of 7.3's mm/Kconfig, and THP (which
        # selects COMPACTION), turned off
        frag = self.frag('x86_64 without MIGRATION').splitlines()
        for opt in ('NUMA_MIGRATION', 'COMPACTION', 'MEMORY_HOTREMOVE',
                    'MEMORY_FAILURE', 'CMA', 'TRANSPARENT_HUGEPAGE',
                    'MIGRATION'):
            self.assertIn('# CONFIG_%s is not set' % opt, frag)
        self.assertIn('CONFIG_NUMA=y', frag)
        self.assertTrue(set(NO_MIGRATION) <= set(frag))

    def test_i386_says_no_feature(self):
        frag = self.frag('i386 PAE')
        self.assertIn('# CONFIG_NUMA is not set', frag.splitlines())
        label = robot_label('i386 PAE', frag, ['fs/proc/task_mmu.o',
                                               'mm/migrate.o'])
        self.assertIn('(fs/proc/task_mmu.o mm/migrate.o)', label)
        self.assertIn('the feature (mm/pagestat.o) is not built here: '
                      '32-bit x86 has no NUMA', label)
        # a cached pass says it too; a build with the feature does not
        self.assertIn('not built', robot_label('i386 PAE', frag))
        self.assertNotIn('not built', robot_label('arm64',
                                                  self.frag('arm64')))

    def test_clang_19(self):
        name, _, margs, lines = [b for b in ROBOT_BUILDS
                                 if 'clang' in b[0]][0]
        self.assertIn('LLVM=-19', margs)
        self.assertIn('CC=ccache clang-19', margs)
        # the config shows that kbuild took clang and lld
        self.assertIn('CONFIG_CC_IS_CLANG=y', lines)
        self.assertIn('CONFIG_LD_IS_LLD=y', lines)

    def test_compilers_are_installed(self):
        """Every tool a robot build's make arguments name is on the
        install list."""
        listed = {c.split(':', 1)[1] for _, c in PACKAGES
                  if c.startswith('cmd:')}
        for name, _, margs, _ in ROBOT_BUILDS:
            for a in margs:
                var, _, val = a.partition('=')
                if var == 'CC':
                    self.assertIn(val.split()[-1], listed, name)
                elif var == 'CROSS_COMPILE':
                    self.assertIn(val + 'gcc', listed, name)
                elif var == 'LLVM':
                    suffix = val if val.startswith('-') else ''
                    for tool in ('clang', 'ld.lld', 'llvm-ar'):
                        self.assertIn(tool + suffix, listed, name)
                elif var == 'C':
                    self.assertIn('sparse', listed, name)

    def test_objects_match_makefiles(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, 'mm', 'Makefile'),
                  'obj-$(CONFIG_MIGRATION) += migrate.o\n'
                  'obj-$(CONFIG_NUMA_MIGRATION) += pagestat.o\n')
            self.assertEqual(robot_objects_hold(d), '')
            # 6.12's line: the option moved
            write(os.path.join(d, 'mm', 'Makefile'),
                  'obj-$(CONFIG_MIGRATION) += migrate.o pagestat.o\n')
            self.assertIn('mm/pagestat.o is built under CONFIG_MIGRATION',
                          robot_objects_hold(d))


class LoudTest(unittest.TestCase):
    """A check that did not run is not a pass."""

    def test_sparse_too_old(self):
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, 'scripts', 'checker-valid.sh')
            write(script, 'echo 0\n')
            which = mock.patch.object(pagestat_check.shutil, 'which',
                                      return_value='/usr/bin/sparse')
            with which, mock.patch.object(pagestat_check, 'run', side_effect=[
                    (0, '0\n'), (0, 'v0.6.4\n')]):
                why = sparse_valid(d)
            self.assertIn('sparse v0.6.4 fails', why)
            self.assertIn('C=2 would check nothing', why)
            with which, mock.patch.object(pagestat_check, 'run',
                                          return_value=(0, '1\n')):
                self.assertEqual(sparse_valid(d), '')
            with mock.patch.object(pagestat_check.shutil, 'which',
                                   return_value=None):
                self.assertEqual(sparse_valid(d), 'sparse is not installed')

    def test_sparse_build_not_run_is_a_skip(self):
        """robot() counts the sparse build as skipped, with the reason,
        when sparse fails checker-valid.sh; it records no pass for it."""
        r = Results()
        t = mock.Mock(build=tempfile.mkdtemp(), tree='/t', base='/b')
        self.addCleanup(lambda: __import__('shutil').rmtree(t.build))
        builds = [b for b in ROBOT_BUILDS if b[0] == 'x86_64 sparse']
        out = io.StringIO()
        with mock.patch.object(pagestat_check, 'ROBOT_BUILDS', builds), \
                mock.patch.object(pagestat_check, 'git', return_value=''), \
                mock.patch.object(pagestat_check, 'robot_objects_hold',
                                  return_value=''), \
                mock.patch.object(pagestat_check, 'sparse_valid',
                                  return_value='sparse 0.6.4 is too old'), \
                mock.patch.object(pagestat_check, 'coccicheck'), \
                mock.patch.object(pagestat_check, 'make') as make, \
                contextlib.redirect_stdout(out):
            pagestat_check.robot(t, r, 'base', 'tip')
        make.assert_not_called()
        # only the Makefile check passed; the build is a skip
        self.assertEqual((r.passed, r.failed, r.skipped), (1, 0, 1))
        self.assertIn('NOT RUN robot: x86_64 sparse: sparse 0.6.4 is too '
                      'old', out.getvalue())

    def robot_run(self, name, compiled_objs):
        """robot() over the build @name alone, its make logging a CC line
        for each object of @compiled_objs; (results, make's targets)."""
        r = Results()
        t = mock.Mock(build=tempfile.mkdtemp(), tree='/t', base='/b')
        self.addCleanup(lambda: __import__('shutil').rmtree(t.build))
        builds = [b for b in ROBOT_BUILDS if b[0] == name]
        targets = []

        def config(t, name, src, bdir, frag, args):
            write(os.path.join(bdir, '.config'), read(frag))

        def make(t, name, src, bdir, objs, args):
            targets.append(list(objs))
            log = os.path.join(bdir, name + '.log')
            write(log, ''.join('  CC      %s\n' % o for o in objs
                               if o in compiled_objs or
                               name.startswith('robot-base-')))
            return log
        with mock.patch.object(pagestat_check, 'ROBOT_BUILDS', builds), \
                mock.patch.object(pagestat_check, 'git', return_value=''), \
                mock.patch.object(pagestat_check, 'robot_objects_hold',
                                  return_value=''), \
                mock.patch.object(pagestat_check, 'config_from_fragment',
                                  config), \
                mock.patch.object(pagestat_check, 'coccicheck'), \
                mock.patch.object(pagestat_check, 'make', make), \
                contextlib.redirect_stdout(io.StringIO()):
            pagestat_check.robot(t, r, 'base', 'tip')
        return r, targets

    def test_robot_build_passes_only_what_it_compiled(self):
        objs = ['fs/proc/task_mmu.o', 'mm/migrate.o', 'mm/pagestat.o']
        r, targets = self.robot_run('arm64', objs)
        self.assertEqual((r.passed, r.failed), (3, 0))
        self.assertEqual(targets, [objs, objs[:2] + ['mm/mincore.o'],
                                   ['vmlinux']])
        # mm/pagestat.o not compiled: the build fails, and does not link
        r, targets = self.robot_run('arm64', objs[:2])
        self.assertEqual((r.passed, r.failed), (1, 1))
        self.assertIn('mm/pagestat.o was not compiled', r.failures[0][1])
        self.assertNotIn(['vmlinux'], targets)

    def test_robot_objects_built(self):
        want = robot_fragment([])
        log = ('  CC      mm/migrate.o\n  CC      mm/pagestat.o\n'
               '  CC      fs/proc/task_mmu.o\n')
        objs = ['fs/proc/task_mmu.o', 'mm/migrate.o', 'mm/pagestat.o']
        self.assertEqual(robot_not_built('x', want, log, objs, 'CC'), [])
        # make found one up to date, or had no rule for it
        self.assertEqual(robot_not_built('x', want, log.replace(
            'mm/pagestat.o', 'mm/other.o'), objs, 'CC'),
            ['mm/pagestat.o was not compiled'])
        # no object at all: make would build the whole kernel
        self.assertTrue(robot_not_built('x', want, '', [], 'CC'))
        # the feature missing from a config that has it
        self.assertIn('its config does not build mm/pagestat.o',
                      robot_not_built('x', want, log, objs[:2], 'CC'))
        # sparse: CHECK lines, and kbuild's own warning that it is off
        chk = ('  CHECK   mm/migrate.c\n  CC      mm/migrate.o\n')
        self.assertEqual(robot_not_built('x', want + '# CONFIG_NUMA_'
                                         'MIGRATION is not set\n', chk,
                                         ['mm/migrate.o'], 'CHECK'), [])
        off = ('Makefile:1311: C=2 specified, but sparse is not available '
               'or not up to date\n  CC      mm/migrate.o\n')
        got = robot_not_built('x', want + '# CONFIG_NUMA_MIGRATION is not '
                              'set\n', off, ['mm/migrate.o'], 'CHECK')
        self.assertIn('mm/migrate.o was not checked by sparse', got)
        self.assertTrue([g for g in got if 'turned the checker off' in g])

    def test_compiled(self):
        self.assertTrue(compiled('  CC      mm/pagestat.o\n',
                                 'mm/pagestat.o'))
        self.assertFalse(compiled('  CC      mm/pagestat.o\n',
                                  'mm/migrate.o'))
        self.assertTrue(compiled('  CHECK   ../tree/mm/migrate.c\n',
                                 'mm/migrate.o', 'CHECK'))
        # a module's object
        self.assertTrue(compiled('  CC [M]  lib/kunit-tests/x.o\n',
                                 'lib/kunit-tests/x.o'))

    def test_checkpatch_ran(self):
        self.assertTrue(checkpatch_ran(
            'total: 0 errors, 0 warnings, 0 checks, 31 lines checked\n'))
        self.assertTrue(checkpatch_ran(
            'total: 0 errors, 0 warnings, 12 lines checked\n'))
        self.assertFalse(checkpatch_ran(
            'total: 0 errors, 0 warnings, 0 checks, 0 lines checked\n'))
        self.assertFalse(checkpatch_ran('Must be run from the top-level '
                                        'dir. of a kernel tree\n'))

    def test_kernel_doc(self):
        # 7.3's Python kernel-doc says "Warning:" and "Error:"
        out = ("Warning: mm/x.c:7 function parameter 'b' not described in "
               "'foo'\nError: Cannot find file mm/y.c\nmm/z.c:1: warning: "
               "old style\n.. c:function:: int foo (int a, int b)\n")
        self.assertEqual(len(kernel_doc_warnings(out)), 3)
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, 'scripts', 'kernel-doc'),
                  '#!/usr/bin/env python3\n')
            self.assertEqual(kernel_doc_cmd(d)[0], 'python3')
            write(os.path.join(d, 'scripts', 'kernel-doc'),
                  '#!/usr/bin/env perl\n')
            self.assertEqual(kernel_doc_cmd(d)[0], 'perl')

    def test_coccicheck_ran(self):
        reports = ['scripts/coccinelle/free/ifnullfree.cocci',
                   'scripts/coccinelle/api/kstrdup.cocci']
        line = ('/usr/bin/spatch -D report --no-show-diff --very-quiet '
                '--cocci-file /t/%s --patch /t --dir /t/mm/pagestat.c -I '
                '/t/include --jobs 2 --chunksize 1\n')
        log = ''.join(line % r for r in reports)
        self.assertEqual(cocci_ran(log, '/t/mm/pagestat.c', reports), '')
        self.assertIn('never ran', cocci_ran(log, '/t/mm/other.c', reports))
        # M=FILE without MO= on 7.3: no spatch line at all
        self.assertIn('never ran', cocci_ran(
            "mkdir: cannot create directory '/t/mm/pagestat.c': File "
            "exists\n", '/t/mm/pagestat.c', reports))
        self.assertIn('ran 1 of the 2', cocci_ran(
            line % reports[0], '/t/mm/pagestat.c', reports))
        # the directory is the file, not one under it
        self.assertIn('never ran', cocci_ran(
            log.replace('pagestat.c ', 'pagestat.cx '), '/t/mm/pagestat.c',
            reports))


if __name__ == '__main__':
    unittest.main()
