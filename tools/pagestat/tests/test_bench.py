# SPDX-License-Identifier: GPL-2.0
"""pagestat_bench: the benchmark's output and tables."""

import argparse
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import tempfile
import unittest

from harness_util import HERE, PATCH, TOOLDIR, write
from pagestat_common import Failure
from pagestat_parse import (
    parse_bench, parse_checks, parse_damon_cost, parse_vamap_bench)
import pagestat_bench as ps_bench
from pagestat_bench import (
    BENCH_CASES, DAMON_BOOTS, bench_json, bench_numa, bench_table,
    damon_bars, damon_table, parse_size, v2_source, vamap_table)


def main_script():
    """The command line (tools/pagestat/pagestat) as a module."""
    loader = importlib.machinery.SourceFileLoader(
        'pagestat_main', os.path.join(TOOLDIR, 'pagestat'))
    mod = importlib.util.module_from_spec(
        importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(mod)
    return mod


class BenchTest(unittest.TestCase):
    OUT = ['guest kernel 6.12.117 cpu "QEMU Virtual CPU" nodes 2',
           'case 4k pages 262144 ns_per_page 520.00 runs 519.5,520.0,521',
           'case call-16 pages 16 ns_per_call 2100.00 runs 2100.0',
           'SKIP hugetlb-2m: mmap: Cannot allocate memory']

    def test_parse(self):
        cases, guest, fails = parse_bench(self.OUT)
        self.assertEqual(cases, {'4k': {'pages': 262144, 'unit': 'page',
                                        'ns_per_page': 520.0,
                                        'runs': [519.5, 520.0, 521.0]},
                                 'call-16': {'pages': 16, 'unit': 'call',
                                             'ns_per_page': 2100.0,
                                             'runs': [2100.0]}})
        self.assertIn('nodes 2', guest)
        self.assertEqual(len(fails), 1)

    def test_cases_match_the_benchmark(self):
        # test runs every case of move_pages_bench and counts them
        with open(os.path.join(HERE, '..', 'guest',
                               'move_pages_bench.c')) as f:
            src = f.read()
        table = src[src.index('cases[] = {'):]
        table = table[:table.index('};')]
        self.assertEqual(re.findall(r'\{ "([^"]+)"', table),
                         list(BENCH_CASES))

    def test_size(self):
        self.assertEqual(parse_size('4G'), 4 << 30)
        self.assertEqual(parse_size('512m'), 512 << 20)
        self.assertEqual(parse_size('65536'), 65536)
        for bad in ('0', '4T', 'G', '1.5G'):
            with self.assertRaises(Failure):
                parse_size(bad)

    def test_guest_memory(self):
        # 1 GiB fits the default nodes; 8 GiB grows them
        numa, spread = bench_numa(1 << 30, 24000)
        self.assertIn('size=5120M', ' '.join(numa))
        self.assertFalse(spread)
        numa, spread = bench_numa(8 << 30, 24000)
        numa = ' '.join(numa)
        self.assertIn('id=m0,size=9216M', numa)
        self.assertIn('id=m1,size=5120M', numa)
        self.assertIn('-m 14336', numa)
        self.assertFalse(spread)
        # 16 GiB fits a 24 GiB host only spread over both nodes
        numa, spread = bench_numa(16 << 30, 24000)
        numa = ' '.join(numa)
        self.assertTrue(spread)
        self.assertIn('id=m0,size=9216M', numa)
        self.assertIn('id=m1,size=9216M', numa)
        # 32 GiB does not fit at all: a clear error, not an OOM
        with self.assertRaisesRegex(Failure, 'needs a guest of'):
            bench_numa(32 << 30, 24000)

    def test_table(self):
        st = {'4k': {'pages': 8, 'ns_per_page': 500.0, 'runs': []}}
        pa = {'4k': {'pages': 8, 'ns_per_page': 20.0, 'runs': []}}
        st['call-1'] = {'pages': 1, 'unit': 'call', 'ns_per_page': 800.0}
        pa['call-1'] = {'pages': 1, 'unit': 'call', 'ns_per_page': 760.0}
        table = bench_table({'stock': st, 'patched': pa}, {})
        self.assertRegex(table, r'4k +8 +500.00 +20.00 +-96.0% +25.0x page')
        self.assertRegex(table, r'call-1 +1 +800.00 +760.00 +-5.0% +1.1x call')
        self.assertIn('buffer: 1G on node 0', table)
        self.assertNotIn('move-* and placed-*', table)
        st['move-4k'] = {'pages': 8, 'unit': 'page', 'ns_per_page': 5000.0}
        pa['move-4k'] = {'pages': 8, 'unit': 'page', 'ns_per_page': 5000.0}
        self.assertIn('move-* and placed-*: at most 256M',
                      bench_table({'stock': st, 'patched': pa}, {}))
        table = bench_table({'stock': st, 'patched': pa}, {}, '16G', True)
        self.assertIn('buffer: 16G, spread over nodes 0 and 1', table)

    def test_table_v2(self):
        """Stock, v2 and patched side by side, and patched's change
        against each; a case v2 lacks shows '-'."""
        st = {'4k': {'pages': 8, 'ns_per_page': 400.0},
              'vma-8': {'pages': 8, 'ns_per_page': 540.0},
              'call-1': {'pages': 1, 'unit': 'call', 'ns_per_page': 850.0}}
        v2 = {'4k': {'pages': 8, 'ns_per_page': 80.0},
              'vma-8': {'pages': 8, 'ns_per_page': 180.0}}
        pa = {'4k': {'pages': 8, 'ns_per_page': 40.0},
              'vma-8': {'pages': 8, 'ns_per_page': 270.0},
              'call-1': {'pages': 1, 'unit': 'call', 'ns_per_page': 850.0}}
        table = bench_table({'stock': st, 'v2': v2, 'patched': pa},
                            {'stock': 'g1', 'v2': 'g2', 'patched': 'g3'},
                            v2='v2: two patches')
        lines = table.splitlines()
        head = [ln for ln in lines if ln.startswith('case')][0]
        self.assertEqual(head.split(), ['case', 'pages', 'stock', 'v2',
                                        'patched', 'vs', 'stock', 'ratio',
                                        'vs', 'v2', 'ratio', 'per'])
        self.assertRegex(table, r'4k +8 +400.00 +80.00 +40.00 +-90.0% +10.0x'
                         r' +-50.0% +2.0x page')
        self.assertRegex(table, r'vma-8 +8 +540.00 +180.00 +270.00 +-50.0% '
                         r'+2.0x +\+50.0% +0.7x page')
        self.assertRegex(table, r'call-1 +1 +850.00 +- +850.00 +\+0.0% '
                         r'+1.0x +- +- call')
        self.assertIn('guest: stock: g1', lines)
        self.assertIn('       v2: g2', lines)
        self.assertIn('       patched: g3', lines)
        self.assertIn('v2: two patches', lines)
        # Measured but with no case (its boot failed): the column stays
        table = bench_table({'stock': st, 'v2': {}, 'patched': pa}, {})
        self.assertRegex(table, r'4k +8 +400.00 +- +40.00 +-90.0% +10.0x +-'
                         r' +- page')

    def test_table_without_v2(self):
        """A run without v2 says so and prints stock and patched."""
        st = {'4k': {'pages': 8, 'ns_per_page': 500.0}}
        pa = {'4k': {'pages': 8, 'ns_per_page': 20.0}}
        table = bench_table({'stock': st, 'patched': pa}, {},
                            v2='v2: not measured: no posted v2 at /x')
        self.assertIn('v2: not measured: no posted v2 at /x',
                      table.splitlines())
        self.assertNotIn('vs v2', table)
        self.assertRegex(table, r'\ncase +pages +stock +patched +change '
                         r'+ratio +per\n')

    def test_json(self):
        st = {'4k': {'pages': 8, 'ns_per_page': 400.0, 'runs': [400.0]},
              'call-1': {'pages': 1, 'unit': 'call', 'ns_per_page': 850.0,
                         'runs': [850.0]}}
        v2 = {'4k': {'pages': 8, 'ns_per_page': 80.0, 'runs': [80.0]}}
        pa = {'4k': {'pages': 8, 'ns_per_page': 40.0, 'runs': [40.0]},
              'call-1': {'pages': 1, 'unit': 'call', 'ns_per_page': 800.0,
                         'runs': [800.0]}}
        doc = bench_json({'stock': st, 'v2': v2, 'patched': pa},
                         {'v2': 'g'}, '1G', False, {}, ['/a/1.patch'],
                         'v2: 1.patch')
        json.dumps(doc)
        self.assertEqual(doc['v2'], {'measured': True,
                                     'patches': ['/a/1.patch'],
                                     'note': 'v2: 1.patch'})
        self.assertEqual(doc['guest'], {'v2': 'g'})
        self.assertEqual(doc['cases'][0], {
            'name': '4k', 'pages': 8, 'per': 'page',
            'stock_ns_per_page': 400.0, 'stock_runs': [400.0],
            'v2_ns_per_page': 80.0, 'v2_runs': [80.0],
            'patched_ns_per_page': 40.0, 'patched_runs': [40.0]})
        self.assertIsNone(doc['cases'][1]['v2_ns_per_page'])
        doc = bench_json({'stock': st, 'patched': pa}, {}, '1G', False, {},
                         None, 'v2: not measured (--no-v2)')
        self.assertFalse(doc['v2']['measured'])
        self.assertEqual(doc['v2']['patches'], [])
        self.assertIsNone(doc['cases'][0]['v2_ns_per_page'])


class V2SourceTest(unittest.TestCase):
    """What bench measures as v2: the anchors, --v2's files, or nothing,
    said in one line."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.anchors = os.path.join(self.tmp.name, 'shared', 'anchors')
        write(os.path.join(self.anchors, 'README.md'), 'not a patch\n')
        write(os.path.join(self.anchors, 'v2-0002-b.patch'), PATCH)
        write(os.path.join(self.anchors, 'v2-0001-a.patch'), PATCH)

    def tearDown(self):
        self.tmp.cleanup()

    def test_anchors(self):
        files, note = v2_source(anchors=self.anchors)
        self.assertEqual([os.path.basename(f) for f in files],
                         ['v2-0001-a.patch', 'v2-0002-b.patch'])
        self.assertEqual(note, 'v2: v2-0001-a.patch, v2-0002-b.patch (from '
                         '%s) on the same base and config' % self.anchors)

    def test_default_is_beside_the_repository(self):
        self.assertEqual(ps_bench.ANCHORS, os.path.join(
            os.path.dirname(os.path.dirname(os.path.dirname(TOOLDIR))),
            'shared', 'anchors'))
        saved, ps_bench.ANCHORS = ps_bench.ANCHORS, self.anchors
        try:
            files, _ = v2_source()
        finally:
            ps_bench.ANCHORS = saved
        self.assertEqual(len(files), 2)

    def test_no_anchors(self):
        missing = os.path.join(self.tmp.name, 'none')
        files, note = v2_source(anchors=missing)
        self.assertIsNone(files)
        self.assertEqual(note, 'v2: not measured: no posted v2 at %s; --v2 '
                         'MBOX names its patches' % missing)
        empty = os.path.join(self.tmp.name, 'empty')
        os.makedirs(empty)
        files, note = v2_source(anchors=empty)
        self.assertIsNone(files)
        self.assertIn('holds no patch', note)

    def test_off(self):
        self.assertEqual(v2_source(off=True, anchors=self.anchors),
                         (None, 'v2: not measured (--no-v2)'))

    def test_named(self):
        mbox = os.path.join(self.tmp.name, 'v2.mbox')
        write(mbox, PATCH + PATCH)
        files, note = v2_source([mbox, self.anchors], anchors='/none')
        self.assertEqual([os.path.basename(f) for f in files],
                         ['v2.mbox', 'v2-0001-a.patch', 'v2-0002-b.patch'])
        self.assertIn('(from %s, %s)' % (mbox, self.anchors), note)
        # A path named but missing is an error, not a run without v2
        with self.assertRaisesRegex(Failure, 'nope does not exist'):
            v2_source([os.path.join(self.tmp.name, 'nope')])


class BenchOptionsTest(unittest.TestCase):
    """bench's command line."""

    def parse(self, argv):
        ap = argparse.ArgumentParser()
        main_script().bench_parser(ap.add_subparsers(dest='cmd'))
        with contextlib.redirect_stderr(io.StringIO()):
            return ap.parse_args(['bench'] + argv)

    def test_defaults(self):
        a = self.parse([])
        self.assertEqual((a.v2, a.no_v2, a.cases, a.size, a.runs),
                         (None, False, [], '1G', 5))

    def test_v2(self):
        a = self.parse(['--v2', 'a.mbox', '--v2', 'dir', '4k', 'thp'])
        self.assertEqual(a.v2, ['a.mbox', 'dir'])
        self.assertEqual(a.cases, ['4k', 'thp'])
        a = self.parse(['--no-v2', '--size', '64M', '--runs', '1', '4k'])
        self.assertTrue(a.no_v2)
        self.assertEqual((a.size, a.runs, a.cases), ('64M', 1, ['4k']))

    def test_v2_and_no_v2(self):
        with self.assertRaises(SystemExit):
            self.parse(['--v2', 'a.mbox', '--no-v2'])

    def test_unknown_case(self):
        # refused before anything is built, with the cases it knows
        with self.assertRaisesRegex(Failure, 'no bench case vma-3;.* vma-8 '):
            main_script().cmd_bench(self.parse(['4k', 'vma-3']))


class FakeBench(unittest.TestCase):
    """cmd_bench with the trees, builds and guests faked."""

    COST = {'stock': 400.0, 'v2': 80.0, 'patched': 40.0}

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.main = main_script()
        self.anchors = os.path.join(self.tmp.name, 'anchors')
        write(os.path.join(self.anchors, 'v2-0001-a.patch'), PATCH)
        self.made, self.built, self.booted = [], [], []
        test = self

        class FakeTree:
            logs = self.tmp.name

            def update(self):
                pass

            def make_v2(self, files):
                test.made.append([os.path.basename(f) for f in files])

        def guest_setup(t, flavors):
            self.built.append(list(flavors))
            return ({f: '/k/' + f for f in flavors},
                    {'move_pages_bench': '/p'}, '/initrd')

        def boot(t, flavor, kernel, initrd, argv, **kw):
            self.booted.append(flavor)
            return 0, ['guest kernel 7.3.4 %s' % flavor,
                       'case 4k pages 8 ns_per_page %.2f runs 1'
                       % self.COST[flavor]]
        self.saved = {k: getattr(self.main, k) for k in
                      ('Tree', 'guest_setup', 'boot', 'host_memory_mb')}
        self.main.Tree, self.main.guest_setup, self.main.boot = (
            FakeTree, guest_setup, boot)
        self.main.host_memory_mb = lambda: 64000
        self.saved_anchors = ps_bench.ANCHORS

    def tearDown(self):
        for k, v in self.saved.items():
            setattr(self.main, k, v)
        ps_bench.ANCHORS = self.saved_anchors
        self.tmp.cleanup()

    def bench(self, anchors, v2=None, no_v2=False):
        ps_bench.ANCHORS = anchors
        jsonf = os.path.join(self.tmp.name, 'out.json')
        args = argparse.Namespace(size='64M', runs=1, json=jsonf,
                                  timeout=10, v2=v2, no_v2=no_v2,
                                  cases=['4k'])
        with contextlib.redirect_stdout(io.StringIO()) as out:
            rc = self.main.cmd_bench(args)
        with open(jsonf) as f:
            return rc, out.getvalue(), json.load(f)



class BenchCommandTest(FakeBench):
    """Which kernels cmd_bench builds and boots, and what it prints with
    and without v2."""

    def test_three_kernels(self):
        rc, out, doc = self.bench(self.anchors)
        self.assertEqual(rc, 0)
        self.assertEqual(self.made, [['v2-0001-a.patch']])
        # v2 builds last, from the others' objects; the columns' order
        self.assertEqual(self.built, [['stock', 'patched', 'v2']])
        self.assertEqual(self.booted, ['stock', 'v2', 'patched'])
        self.assertRegex(out, r'4k +8 +400.00 +80.00 +40.00 +-90.0% +10.0x '
                         r'+-50.0% +2.0x page')
        self.assertIn('v2: v2-0001-a.patch (from %s)' % self.anchors, out)
        self.assertEqual(doc['cases'][0]['v2_ns_per_page'], 80.0)
        self.assertIn('7.3.4 v2', doc['guest']['v2'])

    def test_without_anchors(self):
        rc, out, doc = self.bench(os.path.join(self.tmp.name, 'none'))
        self.assertEqual(rc, 0)
        self.assertEqual((self.made, self.built), ([], [['stock',
                                                         'patched']]))
        self.assertEqual(self.booted, ['stock', 'patched'])
        self.assertIn('v2: not measured: no posted v2 at', out)
        self.assertRegex(out, r'4k +8 +400.00 +40.00 +-90.0% +10.0x page')
        self.assertFalse(doc['v2']['measured'])

    def test_no_v2(self):
        rc, out, _ = self.bench(self.anchors, no_v2=True)
        self.assertEqual(self.booted, ['stock', 'patched'])
        self.assertIn('v2: not measured (--no-v2)', out)

    def test_named_v2(self):
        mbox = os.path.join(self.tmp.name, 'v2.mbox')
        write(mbox, PATCH)
        self.bench('/none', v2=[mbox])
        self.assertEqual(self.made, [['v2.mbox']])
        self.assertEqual(self.booted, ['stock', 'v2', 'patched'])


class VamapTest(unittest.TestCase):
    OUT = ['vamap sparse-64g size 68719476736 touched 16384 vamap_ns 2000000 '
           'naive_ns 500000000 identical 1',
           'vamap thp-1g size 1073741824 touched 262144 vamap_ns 10 '
           'naive_ns 1000 identical 0',
           'vamap bad size x',
           'FAIL thp-1g: numa_vamap failed']

    def test_parse(self):
        cases, fails = parse_vamap_bench(self.OUT)
        self.assertEqual(sorted(cases), ['sparse-64g', 'thp-1g'])
        self.assertEqual(cases['sparse-64g'],
                         {'size': 64 << 30, 'touched': 16384,
                          'vamap_ns': 2000000, 'naive_ns': 500000000,
                          'identical': True})
        self.assertFalse(cases['thp-1g']['identical'])
        self.assertEqual(fails, ['FAIL thp-1g: numa_vamap failed'])

    def test_table(self):
        cases, _ = parse_vamap_bench(self.OUT)
        table = vamap_table({'stock': cases, 'patched': cases})
        self.assertRegex(table, r'sparse-64g +64G +16384 \| +2.0 +500.0 '
                         r'+250.0x \| +2.0 +500.0 +250.0x \| yes')
        self.assertRegex(table, r'thp-1g .* \| NO')

    def test_table_v2(self):
        cases, _ = parse_vamap_bench(self.OUT)
        v2 = {'sparse-64g': dict(cases['sparse-64g'], vamap_ns=4000000)}
        table = vamap_table({'stock': cases, 'v2': v2, 'patched': cases})
        self.assertRegex(table, r'case .* \| +stock +naive +speedup \| +v2 '
                         r'+naive +speedup \| +patched +naive +speedup \| '
                         r'same map')
        self.assertRegex(table, r'sparse-64g +64G +16384 \| +2.0 +500.0 '
                         r'+250.0x \| +4.0 +500.0 +125.0x \| +2.0 +500.0 '
                         r'+250.0x \| yes')
        self.assertRegex(table, r'thp-1g .* \| +- +- +- \| .* \| NO')

    def test_checks(self):
        lines = ['# detail', 'ok - self: numa_vamap exits 0',
                 'not ok - child: the map is what a naive pass implies  ',
                 'okay - not a check', 'PASS']
        self.assertEqual(parse_checks(lines),
                         [('self: numa_vamap exits 0', True),
                          ('child: the map is what a naive pass implies',
                           False)])



def damon_line(case, ops, per_page, pages=262144, reserved=None):
    """A line of damon_test cost."""
    return ('damon-cost: case=%s ops=%s pages=%d evals=87 insns_per_eval=%d '
            'per_page=%g runs=%g,%g,%g base_per_eval=25000%s'
            % (case, ops, pages, per_page * pages, per_page, per_page,
               per_page, per_page,
               ' reserved_pages=%d' % reserved if reserved else ''))


class DamonBenchTest(unittest.TestCase):
    """bench damon: the boots, the table and the bars."""

    def res(self, v4k=34.0, vthp=0.49, sparse=671095):
        def parse(*lines):
            return parse_damon_cost(lines)[0]
        return {'stock': parse(damon_line('4k', 'paddr', 90.0),
                               damon_line('thp', 'paddr', 0.5)),
                'patched': parse(damon_line('4k', 'fvaddr', v4k),
                                 damon_line('4k', 'vaddr', 40.0, 263498),
                                 damon_line('4k', 'paddr', 90.0),
                                 damon_line('thp', 'fvaddr', vthp),
                                 damon_line('thp', 'vaddr', 0.6, 263498),
                                 damon_line('thp', 'paddr', 0.5),
                                 damon_line('sparse', 'fvaddr',
                                            sparse / 16777216.0,
                                            16777216, 16777216))}

    def test_boots(self):
        # stock runs no vaddr case (it refuses the goal), sparse only fvaddr
        self.assertEqual(DAMON_BOOTS['stock'],
                         (('4k', ('paddr',)), ('thp', ('paddr',))))
        self.assertNotIn('v2', DAMON_BOOTS)
        self.assertIn(('sparse', ('fvaddr',)), DAMON_BOOTS['patched'])

    def test_cases_match_the_program(self):
        with open(os.path.join(HERE, '..', 'guest', 'damon_test.c')) as f:
            src = f.read()
        for k, boots in DAMON_BOOTS.items():
            for case, ops in boots:
                self.assertIn('!strcmp(name, "%s")' % case, src)

    def test_table(self):
        table = damon_table(self.res())
        self.assertRegex(table, r'\ncase +ops +pages \| +stock +patched \| '
                         r'+stock +patched\n')
        self.assertRegex(table, r'\n4k +fvaddr +262144 \| +- +34 \| +- '
                         r'+8912896\n')
        self.assertRegex(table, r'\n4k +vaddr +263498 \| +- +40 \| +- '
                         r'+10539920\n')
        self.assertRegex(table, r'\nthp +paddr +262144 \| +0.5 +0.5 \| '
                         r'+131072 +131072\n')
        self.assertRegex(table, r'\nsparse +fvaddr +16777216 \| +- +0.04 ')
        # The bars hold fvaddr, over paddr's memory, not vaddr (0.6 > 0.5)
        self.assertIn('4k: fvaddr <= paddr per page (patched): 34 <= 90: '
                      'pass', table)
        self.assertIn('thp: fvaddr <= paddr per page (patched): 0.49 <= 0.5: '
                      'pass', table)
        self.assertIn('sparse: fvaddr <= 0.1 per page of the reservation: '
                      '0.04 <= 0.1: pass', table)
        # The rows' order: patched's boots, then stock's
        rows = [ln.split()[:2] for ln in table.splitlines()
                if ln.startswith(('4k ', 'thp ', 'sparse '))]
        self.assertEqual(rows, [['4k', 'fvaddr'], ['4k', 'vaddr'],
                                ['4k', 'paddr'], ['thp', 'fvaddr'],
                                ['thp', 'vaddr'], ['thp', 'paddr'],
                                ['sparse', 'fvaddr']])

    def test_bars(self):
        bars = damon_bars(self.res(v4k=95.0, vthp=0.51, sparse=2e6))
        self.assertEqual([ok for _, _, ok in bars], [False, False, False])
        # per page of the reservation
        self.assertEqual(bars[2][1], '0.1192 <= 0.1')
        # patched's paddr missing: stock's; fvaddr missing: not measured
        res = self.res()
        del res['patched'][('4k', 'paddr')]
        del res['patched'][('thp', 'fvaddr')]
        del res['patched'][('sparse', 'fvaddr')]
        bars = damon_bars(res)
        self.assertEqual(bars[0], ("4k: fvaddr <= paddr per page (stock's "
                                   "paddr)", '34 <= 90', True))
        self.assertEqual([ok for _, _, ok in bars[1:]], [None, None])
        self.assertIn('not measured: -', damon_table(res))

    def test_json(self):
        doc = bench_json({'stock': {}, 'patched': {}}, {}, '1G', False, {},
                         None, 'v2', self.res())
        json.dumps(doc)
        row = doc['damon']['rows'][0]
        self.assertEqual((row['case'], row['ops'], row['stock'], row['v2']),
                         ('4k', 'fvaddr', None, None))
        self.assertEqual(row['patched']['per_page'], 34.0)
        self.assertEqual([b['pass'] for b in doc['damon']['bars']],
                         [True, True, True])
        self.assertIsNone(bench_json({'stock': {}, 'patched': {}}, {}, '1G',
                                     False, {}, None, 'v2')['damon'])
        doc = bench_json({'stock': {}, 'patched': {}}, {}, '1G', False, {},
                         None, 'v2', None, {'shares': [(400, 0), (600, 8437)],
                                            'reached': (8437, 600)})
        self.assertEqual(doc['damon_tiering'], {
            'shares': [[400, 0], [600, 8437]], 'reached': [8437, 600]})
        json.dumps(doc)


class DamonCommandTest(FakeBench):
    """cmd_bench damon: the boots of each kernel and the table."""

    def setUp(self):
        super().setUp()
        self.argvs = []

        def guest_setup(t, flavors):
            self.built.append(list(flavors))
            return ({f: '/k/' + f for f in flavors},
                    {'move_pages_bench': '/p', 'damon_test': '/d'},
                    '/initrd')

        def boot(t, flavor, kernel, initrd, argv, **kw):
            self.booted.append(flavor)
            self.argvs.append((flavor, argv[1:]))
            if argv[1] == 'tiering':
                return self.tiering
            if flavor == 'stock' and 'vaddr' in argv:
                return 2, ['damon-cost: case=%s ops=vaddr refused=EINVAL'
                           % argv[2]]
            return 0, [damon_line(argv[2], o, 1.0) for o in argv[3:]]
        self.tiering = 0, ['tiering: t=400 share=0 cold=0',
                           'tiering: t=600 share=4687 cold=2000',
                           'tiering: t=800 share=8437 cold=2500',
                           'tiering: reached 8437 at 800']
        self.main.guest_setup, self.main.boot = guest_setup, boot

    def bench(self, anchors, v2=None, no_v2=False, cases=('damon',)):
        ps_bench.ANCHORS = anchors
        args = argparse.Namespace(size='64M', runs=1, json=None,
                                  timeout=10, v2=v2, no_v2=no_v2,
                                  cases=list(cases))
        with contextlib.redirect_stdout(io.StringIO()) as out:
            rc = self.main.cmd_bench(args)
        return rc, out.getvalue(), None

    def test_damon(self):
        rc, out, _ = self.bench(self.anchors)
        self.assertEqual(rc, 0)
        # v2 is built (the anchors are there) but not booted for DAMON
        self.assertEqual(self.argvs, [
            ('stock', ['cost', '4k', 'paddr']),
            ('stock', ['cost', 'thp', 'paddr']),
            ('patched', ['cost', '4k', 'fvaddr', 'vaddr', 'paddr']),
            ('patched', ['cost', 'thp', 'fvaddr', 'vaddr', 'paddr']),
            ('patched', ['cost', 'sparse', 'fvaddr']),
            ('patched', ['tiering'])])
        self.assertIn('DAMON node_eligible_mem_bp', out)
        # The tiering run: the share over guest time, and where it got
        self.assertRegex(out, r'\n +600 +4687\n +800 +8437\nreached 8437 '
                         r'bp at 800 ms')
        self.assertNotIn('move_pages(2) status query cost', out)
        self.assertRegex(out, r'\n4k +paddr +262144 \| +1 +1 \|')

    def test_damon_fails(self):
        saved = DAMON_BOOTS['stock']
        DAMON_BOOTS['stock'] = (('4k', ('vaddr', 'paddr')),)
        try:
            rc, out, _ = self.bench(self.anchors, no_v2=True)
        finally:
            DAMON_BOOTS['stock'] = saved
        self.assertEqual(rc, 1)
        self.assertIn('stock: damon_test exited 2', out)
        self.assertIn('stock: damon 4k vaddr: on fails with EINVAL', out)
        self.assertIn('stock: damon 4k paddr: no result', out)

    def test_damon_tiering_fails(self):
        # A goal not reached, or a FAIL line, fails the bench run
        self.tiering = 1, ['tiering: t=400 share=0 cold=0',
                           'tiering: FAIL not reached in 30000']
        rc, out, _ = self.bench(self.anchors, no_v2=True)
        self.assertEqual(rc, 1)
        self.assertIn('patched: damon tiering: tiering: FAIL not reached in '
                      '30000', out)
        self.tiering = 0, ['tiering: t=400 share=0 cold=0']
        rc, out, _ = self.bench(self.anchors, no_v2=True)
        self.assertEqual(rc, 1)
        self.assertIn('patched: damon tiering: the goal was not reached', out)
        self.assertIn('the goal was not reached', out)


if __name__ == '__main__':
    unittest.main()
