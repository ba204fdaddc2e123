# SPDX-License-Identifier: GPL-2.0
"""pagestat_test: the expected differences and the shared guest runs."""

import contextlib
import io
import os
import re
import tempfile
import threading
import time
import unittest
from unittest import mock

import harness_util  # noqa: F401 (the modules' path)
from pagestat_common import REPO, Failure, Results
from pagestat_test import (
    STOCK_MIGRATION_EBUSY, STOCK_MOVE_EBUSY, STOCK_WALK_END, Pairs,
    compare_cases, expected_on, guest_jobs, have_prog, kernel_test_argv,
    kernel_test_results, rerun_failed, run_estimate, run_jobs, tier_says)
import pagestat_test


class ExpectedTest(unittest.TestCase):
    def test_expected(self):
        self.assertEqual(expected_on('patched 64-bit'), {})
        self.assertEqual(expected_on('patched 32-bit'), {})
        self.assertEqual(sorted(expected_on('stock 64-bit')),
                         sorted(STOCK_MOVE_EBUSY + STOCK_MIGRATION_EBUSY +
                                STOCK_WALK_END))
        # 6.12's compat bug is fixed in 7.3: a 32-bit caller meets only
        # what a 64-bit one meets
        both = expected_on('stock 32-bit')
        self.assertEqual(both, expected_on('stock 64-bit'))
        for t in ('stat.layout', 'stat.arrays'):
            self.assertNotIn(t, both)
        self.assertIn('-EBUSY', both['move.to_node_1'])
        self.assertIn('walk_end', both[STOCK_WALK_END[1]])
        self.assertNotIn(STOCK_WALK_END[1], expected_on('patched 64-bit'))
        # Named for the base they are of
        for why in both.values():
            self.assertIn('stock 7.3', why)
            self.assertNotIn('6.12', why)

    def test_no_6_12_in_messages(self):
        # what the guest runs print is about stock 7.3 now
        import pagestat_test as mod
        with open(mod.__file__) as f:
            code = f.read()
        strings = re.findall(r"'[^'\n]*'|\"[^\"\n]*\"", code)
        self.assertEqual([x for x in strings if '6.12' in x], [])

    def test_debug_kernels(self):
        # the debug kernels' runs meet the same known bugs
        self.assertEqual(expected_on('stock-debug 32-bit'),
                         expected_on('stock 32-bit'))
        self.assertEqual(expected_on('patched-debug 64-bit'), {})


class SelftestRunTest(unittest.TestCase):
    def test_dumps_asked_for(self):
        # The selftest prints its dumps only with MOVE_PAGES_STAT_DUMP set,
        # which the kernel command line passes to it
        got = {}

        def fake_run(t, results, label, flavor, kernel, initrd, argv, **kw):
            got.update(kw, argv=argv)
        with mock.patch.object(pagestat_test, 'guest_run', fake_run):
            pagestat_test.selftest_run(None, Results(), {'stock': 'k'}, 'i',
                                       'stock', 'move_pages_stat', 'x')
        self.assertEqual(got['argv'], ['/bin/move_pages_stat'])
        self.assertIn(pagestat_test.DUMP_ENV, got['kargs'])
        self.assertTrue(got['kargs'][:-1])


class JobsTest(unittest.TestCase):
    def test_two_threads_share_the_jobs(self):
        done, results = [], Results()

        def job(i):
            time.sleep(0.01)
            if i == 2:
                raise Failure('job 2 failed')
            done.append(i)
        jobs = [('job %d' % i, lambda i=i: job(i)) for i in range(6)]
        other = threading.Thread(target=run_jobs, args=(jobs, results))
        # The failure's report goes to stdout: keep it out of test's log
        with contextlib.redirect_stdout(io.StringIO()):
            other.start()
            run_jobs(jobs, results)
            other.join()
        # Every job ran once; the failure is its own and the rest went on
        self.assertEqual(sorted(done), [0, 1, 3, 4, 5])
        self.assertEqual([n for n, _ in results.failures], ['job 2'])
        self.assertEqual(jobs, [])


class CompareCasesTest(unittest.TestCase):
    def test_known_difference(self):
        r = Results()
        with contextlib.redirect_stdout(io.StringIO()):
            compare_cases(r, 'x', {'1 a': 'pass', '116 %s' % STOCK_WALK_END[0]:
                                   'fail'},
                          {'1 a': 'pass', '116 %s' % STOCK_WALK_END[0]:
                           'pass'})
            compare_cases(r, 'y', {'1 a': 'pass'}, {'1 a': 'fail'})
            # The figures a case measured are not part of its name
            compare_cases(r, 'z', {'100 Extra pages 167 (0.3%)': 'pass'},
                          {'100 Extra pages 18 (0.0%)': 'pass'})
            compare_cases(r, 'w', {'100 Extra pages 167 (0.3%)': 'pass'},
                          {'101 Extra pages 18 (0.0%)': 'pass'})
        self.assertEqual((r.passed, r.failed), (2, 2))


class RerunTest(unittest.TestCase):
    def test_best_effort_rerun(self):
        runs = []

        def rerun(argv):
            runs.append(argv)
            return ['ok 1 migration.b', 'not ok 2 migration.c']
        res = {'1 migration.a': 'pass', '2 migration.b': 'fail',
               '3 migration.c': 'fail', '4 migration.d': 'fail'}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            got = rerun_failed('migration', 'stock', res, rerun)
        # Only the failed cases run again, all in one boot; a case passes
        # only if it passes again, and each first failure is printed
        self.assertEqual(runs, [['/bin/migration', '-r', 'migration.b', '-r',
                                 'migration.c', '-r', 'migration.d']])
        self.assertEqual(got, {'1 migration.a': 'pass', '2 migration.b':
                               'pass', '3 migration.c': 'fail',
                               '4 migration.d': 'fail'})
        self.assertEqual(out.getvalue().count('failed; run again'), 3)
        # Nothing else runs again
        self.assertIs(rerun_failed('pagemap_ioctl', 'stock', res, rerun),
                      res)
        ok = {'1 migration.a': 'pass'}
        self.assertIs(rerun_failed('migration', 'stock', ok, rerun), ok)
        self.assertEqual(len(runs), 1)


class TierTest(unittest.TestCase):
    def jobs(self, full):
        seen = []

        def setup(t, flavors):
            seen.extend(flavors)
            return {}, {}, ''
        saved = pagestat_test.guest_setup
        pagestat_test.guest_setup = setup
        try:
            names = [n for n, _ in guest_jobs(None, Results(), debug=full)]
        finally:
            pagestat_test.guest_setup = saved
        return names, seen

    def test_quick(self):
        names, flavors = self.jobs(False)
        self.assertEqual(flavors, ['stock', 'patched'])
        self.assertFalse([n for n in names if 'debug' in n])
        self.assertIn('boot kernel runs', names)
        # The real clients of each kernel are a job of their own
        self.assertEqual(names[:2], ['real clients on stock',
                                     'real clients on patched'])
        self.assertIn('quick tier', tier_says(False))
        self.assertIn('--full', tier_says(False))

    def test_kernel_test_argv(self):
        # The quick tier runs migration's two quick cases, --full all
        self.assertEqual(kernel_test_argv('migration', False), [
            '/bin/migration', '-r', 'migration.private_anon_thp_status',
            '-r', 'migration.private_anon_htlb_status'])
        self.assertEqual(kernel_test_argv('migration', True),
                         ['/bin/migration'])
        self.assertEqual(kernel_test_argv('pagemap_ioctl', False),
                         ['/bin/pagemap_ioctl'])

    def test_full(self):
        names, flavors = self.jobs(True)
        # --full's own jobs come after the quick tier's: the debug kernels
        self.assertEqual(flavors, ['stock-debug', 'patched-debug'])
        self.assertEqual(names, ['selftests on stock-debug',
                                 'selftests on patched-debug'])
        self.assertIn('test --full', tier_says(True))


class EstimateTest(unittest.TestCase):
    def test_cache(self):
        with tempfile.TemporaryDirectory() as d:
            build, stock = os.path.join(d, 'build'), os.path.join(d, 'stock')
            cold = run_estimate(build, stock, False)
            self.assertIn('first builds of stock, patched, kunit, w1', cold)
            # the patched kernel's objects come from the stock kernel's
            self.assertIn('about 32 minutes', cold)
            for b in ('patched', 'kunit', 'w1', 'robot-s390x'):
                os.makedirs(os.path.join(build, b))
                open(os.path.join(build, b, '.pagestat-lines'), 'w').close()
            # stock in the old place is not found; built, patched leaves
            # it small
            os.makedirs(os.path.join(build, 'stock'))
            open(os.path.join(build, 'stock', '.pagestat-lines'),
                 'w').close()
            warm = run_estimate(build, stock, False)
            self.assertIn('first builds of stock', warm)
            self.assertIn('about %d minutes' % (3 + 3), warm)
            os.makedirs(os.path.join(stock, 'stock'))
            open(os.path.join(stock, 'stock', '.pagestat-lines'),
                 'w').close()
            self.assertIn('about 3 minutes', run_estimate(build, stock,
                                                          False))
            self.assertIn('every kernel is built', run_estimate(build, stock,
                                                                False))
            # --full adds its own builds and the robot's, each its share
            full = run_estimate(build, stock, True)
            n = len(pagestat_test.ROBOT_DIRS)
            self.assertIn('kunit-arm64, kunit-um-damon, stock-debug, '
                          "patched-debug, %d of the robot's builds" % (n - 1),
                          full)
            self.assertIn('about %d minutes' % (12 + 28 + 6 + 16 + 3 +
                                                100 * (n - 1) // n), full)
            # a checker that cannot run is never built: not counted
            sparse = [r for r in pagestat_test.ROBOT_DIRS if 'sparse' in r]
            self.assertEqual(len(sparse), 1)
            self.assertIn("%d of the robot's builds" % (n - 2),
                          run_estimate(build, stock, True, sparse))
            for b in pagestat_test.ROBOT_DIRS:
                os.makedirs(os.path.join(build, b), exist_ok=True)
                open(os.path.join(build, b, '.pagestat-lines'), 'w').close()
            full = run_estimate(build, stock, True)
            self.assertNotIn('robot', full)
            self.assertIn('about %d minutes' % (12 + 28 + 6 + 16 + 3), full)
            # a built stock-debug leaves patched-debug small
            os.makedirs(os.path.join(stock, 'stock-debug'))
            open(os.path.join(stock, 'stock-debug', '.pagestat-lines'),
                 'w').close()
            full = run_estimate(build, stock, True)
            self.assertIn('first builds of kunit-arm64, kunit-um-damon, '
                          'patched-debug', full)
            self.assertIn('about %d minutes' % (12 + 28 + 6 + 3), full)


class ExpectedSeenTest(unittest.TestCase):
    def test_names_are_the_tests(self):
        """Each expected difference names a case its program has: a
        TEST_F of move_pages_stat.c, a case the walk_end patch adds to
        pagemap_ioctl.c."""
        with open(os.path.join(REPO, 'tools', 'testing',
                               'selftests', 'mm', 'move_pages_stat.c')) as f:
            tests = {'%s.%s' % m for m in re.findall(
                r'^TEST_F(?:_TIMEOUT)?\((\w+), (\w+)', f.read(), re.M)}
        for name in STOCK_MOVE_EBUSY:
            self.assertIn(name, tests)
        with open(os.path.join(REPO, 'patches',
                               'fs-proc-task_mmu-set-PAGEMAP_SCAN-walk_end-'
                               'after-a-complete-walk.patch')) as f:
            patch = f.read()
        for name in STOCK_WALK_END:
            func, msg = name.split(' ', 1)
            self.assertIn('static void %s(void)' % func, patch)
            self.assertIn('"%%s %s\\n", __func__' % msg, patch)

    def test_unseen_fails_on_stock(self):
        r = Results()
        with contextlib.redirect_stdout(io.StringIO()):
            pagestat_test.expected_seen(r, 'stock 64-bit', 'move_pages_stat',
                                        set(STOCK_MOVE_EBUSY))
            pagestat_test.expected_seen(r, 'patched', 'pagemap_ioctl', set())
            pagestat_test.expected_seen(r, 'stock', 'migration',
                                        set(STOCK_MIGRATION_EBUSY))
            pagestat_test.expected_seen(r, 'stock-debug', 'pagemap_ioctl',
                                        {STOCK_WALK_END[0]})
        self.assertEqual((r.passed, r.failed), (2, 1))
        self.assertIn(STOCK_WALK_END[1], r.failures[0][1])


class MissingProgramTest(unittest.TestCase):
    def test_missing_program_fails(self):
        r = Results()
        self.assertTrue(have_prog(r, {'smoke': '/g/smoke'}, 'smoke', 'x'))
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertFalse(have_prog(r, {'smoke': '/g/smoke'},
                                       'pagemap_ioctl', 'stock'))
        self.assertEqual((r.passed, r.failed), (0, 1))
        self.assertEqual(r.failures[0][0], 'pagemap_ioctl on stock: built')

    def test_runs_fail_without_their_programs(self):
        # Every job that would have skipped a program quietly fails
        r = Results()
        a = (None, r, {'stock': 'k', 'patched': 'k'}, 'i', {})
        with contextlib.redirect_stdout(io.StringIO()):
            pagestat_test.client_runs(*a, flavors=('stock',))
            pagestat_test.selftest_runs(*a)
            pagestat_test.vamap_tests(*a)
            pagestat_test.bench_runs(*a)
            pagestat_test.damon_tests(*a)
            pagestat_test.debug_runs(*a, flavors=('stock-debug',))
        names = [n for n, _ in r.failures]
        for prog in ('hwloc_test', 'migration', 'pagemap_ioctl',
                     'move_pages_stat', 'move_pages_stat_32', 'vamap_test',
                     'numa_vamap', 'move_pages_bench', 'damon_test'):
            self.assertTrue([n for n in names if n.startswith(prog + ' ')],
                            prog)
        self.assertEqual(r.passed, 0)


class PlanTest(unittest.TestCase):
    """A kernel selftest must report every case it planned."""

    def run_lines(self, lines, prog='pagemap_ioctl'):
        r = Results()
        t = mock.Mock(logs='/logs')
        with mock.patch.object(pagestat_test, 'PAIRS', Pairs()), \
                contextlib.redirect_stdout(io.StringIO()):
            kernel_test_results(t, r, 'patched', prog, lines)
        return r

    CASES = ['ok %d case %d' % (i, i) for i in range(1, 122)]

    def test_plan_met(self):
        r = self.run_lines(['TAP version 13', '1..121'] + self.CASES +
                           ['# Totals: pass:121 fail:0'])
        self.assertEqual(r.failed, 0)

    def test_plan_short(self):
        # 121 planned, the run stopped (or the plan is wrong) after 119:
        # ksft_finished() fails only the exit status, which no case shows
        r = self.run_lines(['TAP version 13', '1..121'] + self.CASES[:119] +
                           ['# Planned tests != run tests (121 != 119)'])
        self.assertEqual([n for n, _ in r.failures],
                         ['pagemap_ioctl on patched: ran the cases it '
                          'planned'])
        self.assertIn('planned 121 cases and reported 119',
                      r.failures[0][1])

    def test_no_plan(self):
        r = self.run_lines(self.CASES[:3])
        self.assertIn('no plan', r.failures[0][1])


class PairsTest(unittest.TestCase):
    def test_pair(self):
        p = Pairs()
        self.assertIsNone(p.put('x', 'patched-debug', 2))
        self.assertIsNone(p.put('x', 'stock', 3))
        self.assertEqual(p.put('x', 'stock-debug', 1), (1, 2))
        self.assertEqual(p.put('x', 'patched', 4), (3, 4))



class DamonTest(unittest.TestCase):
    VALUE = ['damon: layout 32 MiB on node 0, 16 MiB on node 1, 4 MiB of '
             'THP on node 1', 'damon: measured 6153',
             'damon: expected 6154 6153', 'damon: ok']
    TIERING = ['tiering: hot 64 MiB, cold 32 MiB, on node 1; goal 8000 bp',
               'tiering: t=0 share=0 cold=0',
               'tiering: t=200 share=8750 cold=0',
               'tiering: reached 8750 at 200']

    def record(self, flavor, mode, status, body):
        r = Results()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            pagestat_test.damon_results(r, flavor, mode, status, body)
        return r, out.getvalue()

    def test_stock_refuses(self):
        for mode in ('value', 'tiering'):
            r, _ = self.record('stock', mode, 2, ['damon: on: EINVAL'])
            self.assertEqual((r.passed, r.failed), (1, 0))
            # Started, or refused otherwise: the expected refusal unseen
            for status, body in ((0, self.VALUE), (2, ['damon: on: EBUSY']),
                                 (1, ['damon: on: EINVAL']), (0, [])):
                r, out = self.record('stock', mode, status, body)
                self.assertEqual((r.passed, r.failed), (0, 1))
                self.assertIn('damon %s on stock: on fails with EINVAL '
                              '(expected: stock computes '
                              'node_eligible_mem_bp only for paddr)' % mode,
                              r.failures[0][0])

    def test_patched_value(self):
        r, out = self.record('patched', 'value', 0, self.VALUE)
        self.assertEqual((r.passed, r.failed), (1, 0))
        self.assertIn('measured 6153 bp, expected 6154 or 6153', out)
        for status, body in ((2, ['damon: on: EINVAL']),
                             (1, self.VALUE[:3] + ['damon: FAIL measured '
                                                   '6153, expected 7000']),
                             (1, self.VALUE), (0, self.VALUE[:3])):
            r, _ = self.record('patched', 'value', status, body)
            self.assertEqual((r.passed, r.failed), (0, 1), body)
            self.assertIn('exit %d:\n%s' % (status, body[0]),
                          r.failures[0][1])

    def test_patched_tiering(self):
        r, out = self.record('patched', 'tiering', 0, self.TIERING)
        self.assertEqual((r.passed, r.failed), (1, 0))
        # The share over time is in the log
        self.assertIn('reached 8750 bp at 200 ms', out)
        self.assertIn('0:0 200:8750', out)
        fail = self.TIERING[:3] + ['tiering: FAIL not reached in 30001']
        r, _ = self.record('patched', 'tiering', 1, fail)
        self.assertEqual((r.passed, r.failed), (0, 1))
        # The detail keeps every line of the share over time
        for ln in fail:
            self.assertIn(ln, r.failures[0][1])

    PLACED = [
        'placed: buffer 64 MiB of 4 KiB pages on node 0; the process has '
        '16591 pages, 16591 on node 0',
        'placed: run 1 case=stat applies=30 nr_tried=360 ns=908869 '
        'insns_per_apply=30296 nr_applied=0 sz_applied=0 migrated=0 '
        'migrate_fail=0 max_isolated=0',
        'placed: case=stat action=stat applies=88 insns_per_apply=29967 '
        'nr_applied=0 sz_applied=0 migrated=0 migrate_fail=0 max_isolated=0',
        'placed: case=dests action=migrate_hot dests=0:1 applies=89 '
        'insns_per_apply=2747020 nr_applied=0 sz_applied=0 migrated=0 '
        'migrate_fail=0 max_isolated=0',
        'placed: case=target action=migrate_hot target_nid=0 applies=81 '
        'insns_per_apply=10584284 nr_applied=0 sz_applied=0 migrated=0 '
        'migrate_fail=0 max_isolated=1762',
        'placed: after the runs the process has 16610 pages, 16610 on node 0',
        'placed: folios=16591 extra_per_folio=472.4 walk_per_folio=163.8',
        'placed: verdict=isolates']

    def test_placed(self):
        r = Results()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            pagestat_test.damon_placed_results(r, 'stock', 0, self.PLACED)
        self.assertEqual((r.passed, r.failed), (1, 0))
        # The figures are said
        for s in ('isolates; 16591 folios', 'stat 29967, dests 2747020, '
                  'target 10584284', '472.4 a folio', 'at most 1762'):
            self.assertIn(s, out.getvalue())
        # The fix must skip them; stock must isolate them (the fixes series)
        skips = [ln.replace('isolates', 'skips') for ln in self.PLACED]
        for flavor, body, want in (('patched', skips, (1, 0)),
                                   ('patched', self.PLACED, (0, 1)),
                                   ('stock', skips, (0, 1))):
            r = Results()
            with contextlib.redirect_stdout(io.StringIO()):
                pagestat_test.damon_placed_results(r, flavor, 0, body)
            self.assertEqual((r.passed, r.failed), want, flavor)
        # Not measured to the end, or a FAIL, or a non-zero exit: a failure
        for status, body in ((0, self.PLACED[:-1]),
                             (0, self.PLACED[:3] + self.PLACED[4:]),
                             (1, self.PLACED + ['placed: FAIL pages off '
                                                'node 0']),
                             (1, self.PLACED), (2, ['damon: on: EINVAL'])):
            r = Results()
            with contextlib.redirect_stdout(io.StringIO()):
                pagestat_test.damon_placed_results(r, 'stock', status, body)
            self.assertEqual((r.passed, r.failed), (0, 1), body)
            self.assertIn('exit %d:' % status, r.failures[0][1])

    def test_runs(self):
        runs = []

        def fake_run(t, results, label, flavor, kernel, initrd, argv, **kw):
            runs.append((label, flavor, argv, kw))
            if argv[1] == 'placed':
                return 0, [ln.replace('isolates', 'skips')
                           if flavor == 'patched' else ln
                           for ln in self.PLACED]
            return ((2, ['damon: on: EINVAL']) if flavor == 'stock' else
                    (0, self.VALUE if argv[1] == 'value' else self.TIERING))
        r = Results()
        with mock.patch.object(pagestat_test, 'guest_run', fake_run), \
                contextlib.redirect_stdout(io.StringIO()):
            pagestat_test.damon_tests(None, r, {'stock': 'k', 'patched': 'k'},
                                      'i', {'damon_test': '/g/damon_test'})
        self.assertEqual([(f, a) for _, f, a, _ in runs],
                         [(f, ['/bin/damon_test', m])
                          for f in ('stock', 'patched')
                          for m in ('value', 'tiering')] +
                         [(f, ['/bin/damon_test', 'placed'])
                          for f in ('stock', 'patched')])
        # placed boots as bench does: instructions are its measure
        self.assertTrue(runs[-1][3]['icount'])
        self.assertEqual(runs[-1][3]['cpu'], 'qemu64')
        self.assertEqual((r.passed, r.failed), (6, 0))

    def test_a_job(self):
        names = TierTest().jobs(False)[0]
        self.assertIn('damon', names)


if __name__ == '__main__':
    unittest.main()
