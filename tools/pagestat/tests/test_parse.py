# SPDX-License-Identifier: GPL-2.0
"""pagestat_parse: the parsers of guest, console, TAP and KUnit output."""

import contextlib
import io
import json
import unittest

import harness_util  # noqa: F401 (the modules' path)
from pagestat_common import Results
from pagestat_parse import (
    console_splats, decode_dump, ksft_plan, parse_damon, parse_damon_cost,
    parse_damon_placed, parse_guest_output, parse_kunit_json, parse_ksft,
    parse_tap, plan_problem, split_runs)
from pagestat_test import compare_dumps, first_difference


class GuestTest(unittest.TestCase):
    def test_exit_status(self):
        st, body = parse_guest_output('a\r\nb\npagestat-exit: 3\n')
        self.assertEqual((st, body), (3, ['a', 'b']))

    def test_signal(self):
        st, _ = parse_guest_output('pagestat-exit: signal 11\n')
        self.assertEqual(st, 139)

    def test_no_exit(self):
        self.assertEqual(parse_guest_output('half')[0], None)

    def test_several_programs(self):
        st, body = parse_guest_output(
            'pagestat-run: /bin/a\nok 1 x\npagestat-exit: 0\n'
            'pagestat-run: /bin/b\nnot ok 1 y\npagestat-exit: 1\n'
            'pagestat-run: /bin/c\npagestat-exit: signal 9\n')
        self.assertEqual(st, 137)
        self.assertEqual(split_runs(body), {
            '/bin/a': (0, ['ok 1 x']), '/bin/b': (1, ['not ok 1 y']),
            '/bin/c': (137, [])})

    def test_splats(self):
        con = ('[ 1.0] ok\n[ 2.0] WARNING: CPU: 0 PID: 1 at mm/x.c:1\n'
               '[ 3.0] BUG: KASAN: slab-out-of-bounds\n')
        self.assertEqual(len(console_splats(con)), 2)
        self.assertEqual(console_splats('[ 1.0] Freeing memory\n'), [])


class KunitJsonTest(unittest.TestCase):
    def test_counts(self):
        doc = {'name': 'main', 'sub_groups': [
            {'name': 'pagestat_range', 'test_cases': [
                {'name': 'a', 'status': 'PASS'},
                {'name': 'b', 'status': 'FAIL'},
                {'name': 'c', 'status': 'SKIP'}]}],
            'test_cases': []}
        counts, failed = parse_kunit_json(json.dumps(doc))
        self.assertEqual(counts, {'pass': 1, 'fail': 1, 'skip': 1})
        self.assertEqual(failed, ['pagestat_range.b'])

    def test_results_line(self):
        r = Results()
        r.add(3, 0, 1)
        with contextlib.redirect_stdout(io.StringIO()):
            r.record('x', False)
        self.assertEqual(r.line(), '3 passed, 1 failed, 1 skipped')


class KsftTest(unittest.TestCase):
    def test_both_formats(self):
        lines = ['TAP version 13', '1..4', '# Starting 2 tests',
                 'ok 1 migration.private_anon',
                 'ok 2 migration.shared_anon # SKIP Not enough threads',
                 'ok 3 # SKIP hugetlb pages not available',
                 'not ok 4 sanity_tests_sd wrong flag specified',
                 '# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:2 error:0']
        self.assertEqual(parse_ksft(lines), {
            '1 migration.private_anon': 'pass',
            '2 migration.shared_anon Not enough threads': 'skip',
            '3 hugetlb pages not available': 'skip',
            '4 sanity_tests_sd wrong flag specified': 'fail'})


class PlanTest(unittest.TestCase):
    def test_plan(self):
        self.assertEqual(ksft_plan(['TAP version 13', '1..121']), 121)
        # kselftest.h's ksft_exit_skip() before any plan
        self.assertEqual(ksft_plan(['1..0 # SKIP Failed to initialize '
                                    'userfaultfd']), 0)
        self.assertIsNone(ksft_plan(['ok 1 a']))

    def test_plan_problem(self):
        lines = ['TAP version 13', '1..3', 'ok 1 a', 'ok 2 b', 'ok 3 c']
        self.assertEqual(plan_problem(lines, 3), '')
        self.assertEqual(plan_problem(lines[:4], 2),
                         'it planned 3 cases and reported 2')
        self.assertIn('no plan', plan_problem(lines[2:], 3))
        # kselftest.h's own count, as ksft_print_cnts() prints it
        self.assertEqual(plan_problem(
            lines + ['# Planned tests != run tests (3 != 4)'], 3),
            '# Planned tests != run tests (3 != 4)')


class TapTest(unittest.TestCase):
    OUT = ['TAP version 13', '1..3',
           '# Starting 3 tests from 1 test cases.',
           '#  RUN           stat.a ...',
           '# dump P x: 0x3 -2',
           '#            OK  stat.a',
           'ok 1 stat.a',
           '#  RUN           stat.b ...',
           '# dump N y: -14',
           'not ok 2 stat.b',
           'ok 3 stat.c # SKIP needs two NUMA nodes']

    def test_parse(self):
        res, dumps = parse_tap(self.OUT)
        self.assertEqual(res, {'stat.a': 'pass', 'stat.b': 'fail',
                               'stat.c': 'skip'})
        self.assertEqual(dumps, {('stat.a', 'P', 'x'): '0x3 -2',
                                 ('stat.b', 'N', 'y'): '-14'})

    def test_decode(self):
        self.assertEqual(decode_dump('0x3 [0 -2]x2 1 -14'),
                         [0, 0, 0, 0, -2, 0, -2, 1, -14])
        self.assertEqual(first_difference('0x3 1', '0x2 1x2'),
                         'page 2: 0 against 1')
        self.assertEqual(first_difference('0x3', '0x4'),
                         'lengths 3 against 4')

    def test_compare(self):
        r = Results()
        a = {('stat.a', 'P', 'x'): '0x3'}
        compare_dumps(r, 'same', a, dict(a))
        with contextlib.redirect_stdout(io.StringIO()) as out:
            compare_dumps(r, 'differ', a, {('stat.a', 'P', 'x'): '1x3'})
        self.assertEqual((r.passed, r.failed), (1, 1))
        self.assertIn('stat.a x: page 0: 0 against 1', out.getvalue())
        with contextlib.redirect_stdout(io.StringIO()):
            compare_dumps(r, 'skipped', a, {}, skip_tests=('stat.a',))
        self.assertEqual(r.failed, 2)  # nothing left to compare

    def test_ebusy_allowed(self):
        """Stock's -EBUSY where patched has a node, in move statuses only."""
        r = Results()
        stock = {('move.a', 'M', 'x'): '1 -16 1x2', ('move.a', 'V', 'x'): '4 0'}
        fixed = {('move.a', 'M', 'x'): '1x4', ('move.a', 'V', 'x'): '4 0'}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            compare_dumps(r, 'ebusy', stock, fixed)
        self.assertEqual((r.passed, r.failed), (1, 0))
        self.assertIn('differ only by the -EBUSY', out.getvalue())
        for bad in ({('move.a', 'M', 'x'): '1 -14 1x2'},     # not -EBUSY
                    {('move.a', 'M', 'x'): '1 -16 1x2',      # other kinds
                     ('move.a', 'V', 'x'): '3 0'}):
            got = dict(fixed)
            got.update(bad)
            with contextlib.redirect_stdout(io.StringIO()):
                compare_dumps(r, 'not ebusy', got, fixed)
        self.assertEqual(r.failed, 2)
        # The other way round: patched -EBUSY where stock has a node
        with contextlib.redirect_stdout(io.StringIO()):
            compare_dumps(r, 'reversed', fixed, stock)
        self.assertEqual(r.failed, 3)



class DamonTest(unittest.TestCase):
    def test_value(self):
        got = parse_damon(['damon: layout 32 MiB on node 0, 16 MiB on node 1',
                           'damon: measured 6153', 'damon: expected 6154 6153',
                           'damon: ok'])
        self.assertEqual((got['measured'], got['expected'], got['ok']),
                         (6153, [6154, 6153], True))
        self.assertEqual((got['refused'], got['reached'], got['fails']),
                         (None, None, []))

    def test_refused(self):
        got = parse_damon(['damon: layout 32 MiB on node 0',
                           'damon: on: EINVAL'])
        self.assertEqual(got['refused'], 'EINVAL')
        self.assertFalse(got['ok'])
        # Another errno is named as it is; a write that failed is a FAIL
        got = parse_damon(['damon: FAIL write vaddr to /sys/x: ENOENT',
                           'damon: on: EBUSY\r'])
        self.assertEqual(got['refused'], 'EBUSY')
        self.assertEqual(got['fails'],
                         ['damon: FAIL write vaddr to /sys/x: ENOENT'])

    def test_mismatch(self):
        got = parse_damon(['damon: measured 0', 'damon: expected 6154 6153',
                           'damon: FAIL measured 0, expected 6154 (before) '
                           'or 6153 (after)'])
        self.assertEqual(got['measured'], 0)
        self.assertFalse(got['ok'])
        self.assertEqual(len(got['fails']), 1)

    def test_tiering(self):
        lines = ['tiering: hot 64 MiB, cold 32 MiB, on node 1; goal 8000 bp',
                 'tiering: t=0 share=0 cold=0',
                 'tiering: t=200 share=1250 cold=0',
                 'tiering: t=400 share=8750 cold=12',
                 'tiering: reached 8750 at 400']
        got = parse_damon(lines)
        self.assertEqual(got['shares'], [(0, 0), (200, 1250), (400, 8750)])
        self.assertEqual(got['reached'], (8750, 400))
        self.assertEqual(got['fails'], [])
        got = parse_damon(lines[:3] + ['tiering: FAIL not reached in 30001'])
        self.assertIsNone(got['reached'])
        self.assertEqual(got['fails'], ['tiering: FAIL not reached in 30001'])
        # Other programs' lines are not damon_test's
        got = parse_damon(['ok - damon: ok', 'share=1', 'damon: okay'])
        self.assertEqual((got['ok'], got['shares'], got['fails']),
                         (False, [], []))



class DamonPlacedTest(unittest.TestCase):
    LINES = [
        'placed: run 1 case=target applies=27 nr_tried=324 ns=285775681 '
        'insns_per_apply=10584284 nr_applied=0 sz_applied=0 migrated=0 '
        'migrate_fail=0 max_isolated=325',
        'placed: case=dests action=migrate_hot dests=0:1 applies=89 '
        'insns_per_apply=2747020 nr_applied=0 sz_applied=0 migrated=0 '
        'migrate_fail=0 max_isolated=0',
        'placed: case=target action=migrate_hot target_nid=0 applies=81 '
        'insns_per_apply=10584284 nr_applied=0 sz_applied=0 migrated=0 '
        'migrate_fail=0 max_isolated=1762\r',
        'placed: folios=16591 extra_per_folio=472.4 walk_per_folio=163.8',
        'placed: verdict=isolates']

    def test_cases(self):
        got = parse_damon_placed(self.LINES)
        self.assertEqual(sorted(got['cases']), ['dests', 'target'])
        t = got['cases']['target']
        self.assertEqual((t['action'], t['target_nid'], t['applies'],
                          t['insns_per_apply'], t['max_isolated']),
                         ('migrate_hot', '0', 81, 10584284, 1762))
        self.assertEqual(got['cases']['dests']['dests'], '0:1')
        self.assertEqual((got['folios'], got['extra_per_folio'],
                          got['walk_per_folio'], got['verdict']),
                         (16591, 472.4, 163.8, 'isolates'))
        self.assertEqual((got['refused'], got['fails']), (None, []))

    def test_bad_lines(self):
        got = parse_damon_placed([
            'placed: case=stat action=stat applies=x',
            'placed: folios=1', 'placed: verdict=maybe',
            'placed: FAIL the kdamond never sleeps', 'damon: on: EINVAL'])
        self.assertEqual(got['cases'], {})
        self.assertIsNone(got['verdict'])
        self.assertEqual(got['refused'], 'EINVAL')
        self.assertEqual(len(got['fails']), 3)
        self.assertEqual(got['fails'][2],
                         'placed: FAIL the kdamond never sleeps')


class DamonCostTest(unittest.TestCase):
    OUT = ['cost: 4k buffer 1024 MiB populated, AnonHugePages 0 kB',
           'cost: 4k vaddr run 1: 26 windows 236102942 ns with the goal, '
           '29 windows 828051 ns without, 263508 pages',
           'damon-cost: case=4k ops=vaddr pages=263508 evals=78 '
           'insns_per_eval=9052329 per_page=34.353 runs=34.353,34.352,34.36 '
           'base_per_eval=28553',
           'damon-cost: case=sparse ops=vaddr pages=16778052 evals=87 '
           'insns_per_eval=671095 per_page=0.04 runs=0.04 '
           'base_per_eval=23318 reserved_pages=16777216\r',
           'damon-cost: case=4k ops=paddr refused=EINVAL',
           'damon-cost: case=thp ops=vaddr pages=x evals=1',
           'damon-cost: case=thp ops=paddr pages=8',
           'damon: FAIL no quota window ended in 3000 ms']

    def test_parse(self):
        cases, refused, fails = parse_damon_cost(self.OUT)
        self.assertEqual(cases[('4k', 'vaddr')], {
            'pages': 263508, 'evals': 78, 'insns_per_eval': 9052329.0,
            'per_page': 34.353, 'runs': [34.353, 34.352, 34.36],
            'base_per_eval': 28553.0})
        self.assertEqual(cases[('sparse', 'vaddr')]['reserved_pages'],
                         16777216)
        self.assertEqual(sorted(cases), [('4k', 'vaddr'),
                                         ('sparse', 'vaddr')])
        self.assertEqual(refused, {('4k', 'paddr'): 'EINVAL'})
        # A line that does not parse, or lacks a figure, is a failure
        self.assertEqual(len(fails), 3)
        self.assertIn('cannot parse', fails[0])
        self.assertIn('incomplete', fails[1])
        self.assertEqual(fails[2],
                         'damon: FAIL no quota window ended in 3000 ms')

    def test_empty(self):
        self.assertEqual(parse_damon_cost(['damon: on: EINVAL']),
                         ({}, {}, []))


if __name__ == '__main__':
    unittest.main()
