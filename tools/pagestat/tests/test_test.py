# SPDX-License-Identifier: GPL-2.0
"""pagestat_test: the expected differences and the shared guest runs."""

import contextlib
import io
import os
import tempfile
import threading
import time
import unittest
from unittest import mock

import harness_util  # noqa: F401 (the modules' path)
from pagestat_common import Failure, Results
from pagestat_test import (
    STOCK_COMPAT_BUG, STOCK_MOVE_EBUSY, STOCK_WALK_END, Pairs, compare_cases,
    expected_on, guest_jobs, rerun_failed, run_estimate, run_jobs, tier_says)
import pagestat_test


class ExpectedTest(unittest.TestCase):
    def test_expected(self):
        self.assertEqual(expected_on('patched 64-bit'), {})
        self.assertEqual(expected_on('patched 32-bit'), {})
        self.assertEqual(sorted(expected_on('stock 64-bit')),
                         sorted(STOCK_MOVE_EBUSY + STOCK_WALK_END))
        both = expected_on('stock 32-bit')
        for t in STOCK_MOVE_EBUSY + STOCK_COMPAT_BUG:
            self.assertIn(t, both)
        self.assertIn('-EBUSY', both['move.to_node_1'])
        self.assertIn('walk_end', both[STOCK_WALK_END[1]])
        self.assertNotIn(STOCK_WALK_END[1], expected_on('patched 64-bit'))
        self.assertIn('compat', both['stat.layout'])

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
            self.assertIn('about 33 minutes', cold)
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
            self.assertIn('about %d minutes' % (4 + 3), warm)
            os.makedirs(os.path.join(stock, 'stock'))
            open(os.path.join(stock, 'stock', '.pagestat-lines'),
                 'w').close()
            self.assertIn('about 4 minutes', run_estimate(build, stock,
                                                          False))
            self.assertIn('every kernel is built', run_estimate(build, stock,
                                                                False))
            # --full adds its own builds and the robot's, each its share
            full = run_estimate(build, stock, True)
            self.assertIn('kunit-arm64, stock-debug, patched-debug, 11 of '
                          "the robot's builds", full)
            self.assertIn('about %d minutes' % (12 + 28 + 16 + 3 + 100 * 11 //
                                                12), full)
            for b in pagestat_test.ROBOT_DIRS:
                os.makedirs(os.path.join(build, b), exist_ok=True)
                open(os.path.join(build, b, '.pagestat-lines'), 'w').close()
            full = run_estimate(build, stock, True)
            self.assertNotIn('robot', full)
            self.assertIn('about %d minutes' % (12 + 28 + 16 + 3), full)
            # a built stock-debug leaves patched-debug small
            os.makedirs(os.path.join(stock, 'stock-debug'))
            open(os.path.join(stock, 'stock-debug', '.pagestat-lines'),
                 'w').close()
            full = run_estimate(build, stock, True)
            self.assertIn('first builds of kunit-arm64, patched-debug', full)
            self.assertIn('about %d minutes' % (12 + 28 + 3), full)


class PairsTest(unittest.TestCase):
    def test_pair(self):
        p = Pairs()
        self.assertIsNone(p.put('x', 'patched-debug', 2))
        self.assertIsNone(p.put('x', 'stock', 3))
        self.assertEqual(p.put('x', 'stock-debug', 1), (1, 2))
        self.assertEqual(p.put('x', 'patched', 4), (3, 4))


if __name__ == '__main__':
    unittest.main()
