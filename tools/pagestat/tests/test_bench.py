# SPDX-License-Identifier: GPL-2.0
"""pagestat_bench: the benchmark's output and tables."""

import os
import re
import unittest

from harness_util import HERE
from pagestat_common import Failure
from pagestat_parse import parse_bench, parse_checks, parse_vamap_bench
from pagestat_bench import (
    BENCH_CASES, bench_numa, bench_table, parse_size, vamap_table)


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
        with open(os.path.join(HERE, '..', '..', 'mm',
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

    def test_checks(self):
        lines = ['# detail', 'ok - self: numa_vamap exits 0',
                 'not ok - child: the map is what a naive pass implies  ',
                 'okay - not a check', 'PASS']
        self.assertEqual(parse_checks(lines),
                         [('self: numa_vamap exits 0', True),
                          ('child: the map is what a naive pass implies',
                           False)])


if __name__ == '__main__':
    unittest.main()
