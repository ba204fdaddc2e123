# SPDX-License-Identifier: GPL-2.0
"""Tests of the pagestat harness's own logic (run by `pagestat test`)."""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader(
    'pagestat', os.path.join(HERE, '..', 'pagestat'))
_spec = importlib.util.spec_from_loader('pagestat', _loader)
ps = importlib.util.module_from_spec(_spec)
_loader.exec_module(ps)

PATCH = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A Developer <dev@example.org>
Date: Mon, 2 Nov 2026 10:00:00 +0000
Subject: [PATCH] mm: change a line

Why the line changes.

Signed-off-by: A Developer <dev@example.org>
---
 mm/a.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/a.c b/mm/a.c
--- a/mm/a.c
+++ b/mm/a.c
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
"""


def sh(cmd, cwd):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


class SeriesTest(unittest.TestCase):
    def test_parse(self):
        text = ('# comment\n0001-a.patch\n\tmm/x.c\n  include/y.h # c\n'
                '\n0002-b.patch\n')
        self.assertEqual(ps.parse_series(text),
                         [('0001-a.patch', ['mm/x.c', 'include/y.h']),
                          ('0002-b.patch', [])])

    def test_file_before_patch(self):
        with self.assertRaisesRegex(ps.Failure, 'series:1: file'):
            ps.parse_series('\tmm/x.c\n')

    def test_duplicate_patch(self):
        with self.assertRaisesRegex(ps.Failure, 'listed twice'):
            ps.parse_series('a.patch\na.patch\n')

    def test_bad_paths(self):
        for bad in ('\t../x', '\t/abs', 'dir/p.patch', 'a b.patch'):
            with self.assertRaises(ps.Failure, msg=bad):
                ps.parse_series('p.patch\n' + bad + '\n')

    def test_assign(self):
        files = ['lib/t/Kconfig', 'lib/t/a.c', 'mm/p.c']
        got = ps.assign_files([('1.patch', ['mm/p.c']),
                               ('2.patch', ['lib/t/'])], files)
        self.assertEqual(got, [('1.patch', ['mm/p.c']),
                               ('2.patch', ['lib/t/Kconfig', 'lib/t/a.c'])])

    def test_assign_unlisted(self):
        with self.assertRaisesRegex(ps.Failure, 'not listed.*\n  mm/q.c'):
            ps.assign_files([('1.patch', ['mm/p.c'])], ['mm/p.c', 'mm/q.c'])

    def test_assign_twice(self):
        with self.assertRaisesRegex(ps.Failure, 'both 1.patch and 2.patch'):
            ps.assign_files([('1.patch', ['mm/']), ('2.patch', ['mm/p.c'])],
                            ['mm/p.c'])

    def test_assign_missing(self):
        with self.assertRaisesRegex(ps.Failure, 'lists mm/none.c'):
            ps.assign_files([('1.patch', ['mm/none.c'])], [])

    def test_has_diff(self):
        self.assertTrue(ps.has_diff(PATCH))
        self.assertFalse(ps.has_diff('Subject: x\n\nbody only\n'))


class GuestTest(unittest.TestCase):
    def test_exit_status(self):
        st, body = ps.parse_guest_output('a\r\nb\npagestat-exit: 3\n')
        self.assertEqual((st, body), (3, ['a', 'b']))

    def test_signal(self):
        st, _ = ps.parse_guest_output('pagestat-exit: signal 11\n')
        self.assertEqual(st, 139)

    def test_no_exit(self):
        self.assertEqual(ps.parse_guest_output('half')[0], None)

    def test_several_programs(self):
        st, body = ps.parse_guest_output(
            'pagestat-run: /bin/a\nok 1 x\npagestat-exit: 0\n'
            'pagestat-run: /bin/b\nnot ok 1 y\npagestat-exit: 1\n'
            'pagestat-run: /bin/c\npagestat-exit: signal 9\n')
        self.assertEqual(st, 137)
        self.assertEqual(ps.split_runs(body), {
            '/bin/a': (0, ['ok 1 x']), '/bin/b': (1, ['not ok 1 y']),
            '/bin/c': (137, [])})

    def test_splats(self):
        con = ('[ 1.0] ok\n[ 2.0] WARNING: CPU: 0 PID: 1 at mm/x.c:1\n'
               '[ 3.0] BUG: KASAN: slab-out-of-bounds\n')
        self.assertEqual(len(ps.console_splats(con)), 2)
        self.assertEqual(ps.console_splats('[ 1.0] Freeing memory\n'), [])

    def test_initramfs_spec(self):
        spec = ps.initramfs_spec({'init': '/g/init', 'smoke': '/g/smoke'})
        lines = spec.splitlines()
        self.assertIn('nod /dev/console 0600 0 0 c 5 1', lines)
        self.assertIn('file /init /g/init 0755 0 0', lines)
        self.assertIn('file /bin/smoke /g/smoke 0755 0 0', lines)
        # Directories before the files in them
        self.assertLess(lines.index('dir /bin 0755 0 0'),
                        lines.index('file /bin/smoke /g/smoke 0755 0 0'))
        self.assertTrue(spec.endswith('\n'))


class ExpectedTest(unittest.TestCase):
    def test_expected(self):
        self.assertEqual(ps.expected_on('patched 64-bit'), {})
        self.assertEqual(ps.expected_on('patched 32-bit'), {})
        self.assertEqual(sorted(ps.expected_on('stock 64-bit')),
                         sorted(ps.STOCK_MOVE_EBUSY + ps.STOCK_WALK_END))
        both = ps.expected_on('stock 32-bit')
        for t in ps.STOCK_MOVE_EBUSY + ps.STOCK_COMPAT_BUG:
            self.assertIn(t, both)
        self.assertIn('-EBUSY', both['stat.move_thp'])
        self.assertIn('walk_end', both['walk_end.resume'])
        self.assertNotIn('walk_end.resume', ps.expected_on('patched 64-bit'))
        self.assertIn('compat', both['stat.thp'])

    def test_debug_kernels(self):
        # the debug kernels' runs meet the same known bugs
        self.assertEqual(ps.expected_on('stock-debug 32-bit'),
                         ps.expected_on('stock 32-bit'))
        self.assertEqual(ps.expected_on('patched-debug 64-bit'), {})


class BackportTest(unittest.TestCase):
    def test_backport(self):
        sha = '10d04c26ab2b7da31dd66973f5a09d6fd8ff2a46'
        self.assertEqual(ps.backport_of('commit %s upstream.\n\nWhy.\n'
                                        % sha), '10d04c26ab2b')
        self.assertEqual(ps.backport_of('\ncommit %s upstream.\n' % sha),
                         '10d04c26ab2b')
        # Only as the first line, and only the kernel's form
        self.assertIsNone(ps.backport_of('Why.\n\ncommit %s upstream.\n'
                                         % sha))
        self.assertIsNone(ps.backport_of('commit %s\n' % sha))
        self.assertIsNone(ps.backport_of('Upstream commit %s.\n' % sha))


class PackagesTest(unittest.TestCase):
    """Every program the harness and its tests run is on the install list."""

    # A command list written out in the source: ['prog', ... or ('prog', ...
    CMD_RE = re.compile(r"(?:run|Popen|cmd\s*=\s*\(?)\s*\(?\[\s*'([\w.+-]+)'")

    def programs(self):
        found = set()
        paths = [os.path.join(HERE, '..', 'pagestat')]
        paths += [os.path.join(HERE, f) for f in os.listdir(HERE)
                  if f.endswith('.py')]
        for path in paths:
            with open(path) as f:
                found.update(self.CMD_RE.findall(f.read()))
        return found

    def test_scan_finds_programs(self):
        # The scan must see the calls it is meant to judge.
        progs = self.programs()
        for p in ('git', 'make', 'qemu-system-x86_64', 'gcc', 'perl'):
            self.assertIn(p, progs)

    def test_kunit_programs_are_installed(self):
        # kunit.py runs qemu and make runs the cross compiler, unseen above
        listed = {c.split(':', 1)[1] for _, c in ps.PACKAGES
                  if c.startswith('cmd:')}
        for arch, a in ps.KUNIT_ARCHES.items():
            self.assertIn(a['qemu'], listed, arch)
            if a['cross']:
                self.assertIn(a['cross'] + 'gcc', listed, arch)

    def test_every_program_is_installed(self):
        listed = {c.split(':', 1)[1] for _, c in ps.PACKAGES
                  if c.startswith('cmd:')}
        missing = self.programs() - listed - ps.ESSENTIAL_CMDS - {'apt-get'}
        self.assertEqual(missing, set(),
                         'programs run but not in PACKAGES: %s' %
                         ' '.join(sorted(missing)))


class KunitJsonTest(unittest.TestCase):
    def test_counts(self):
        doc = {'name': 'main', 'sub_groups': [
            {'name': 'pagestat_range', 'test_cases': [
                {'name': 'a', 'status': 'PASS'},
                {'name': 'b', 'status': 'FAIL'},
                {'name': 'c', 'status': 'SKIP'}]}],
            'test_cases': []}
        counts, failed = ps.parse_kunit_json(json.dumps(doc))
        self.assertEqual(counts, {'pass': 1, 'fail': 1, 'skip': 1})
        self.assertEqual(failed, ['pagestat_range.b'])

    def test_results_line(self):
        r = ps.Results()
        r.add(3, 0, 1)
        with contextlib.redirect_stdout(io.StringIO()):
            r.record('x', False)
        self.assertEqual(r.line(), '3 passed, 1 failed, 1 skipped')


class KunitArchTest(unittest.TestCase):
    def test_commands(self):
        t = type('T', (), {'build': '/b'})()
        x86 = ps.kunit_cmd(t, 'config')
        self.assertIn('--arch=x86_64', x86)
        self.assertIn('--build_dir=/b/kunit', x86)
        self.assertFalse([a for a in x86 if 'cross_compile' in a])
        arm = ps.kunit_cmd(t, 'exec', ['--json=j'], arch='arm64')
        self.assertIn('--arch=arm64', arm)
        self.assertIn('--cross_compile=aarch64-linux-gnu-', arm)
        self.assertIn('--build_dir=/b/kunit-arm64', arm)
        self.assertIn('--make_options=CC=ccache aarch64-linux-gnu-gcc', arm)
        self.assertEqual(arm[-1], '--json=j')


class StampTest(unittest.TestCase):
    def test_stamped_make(self):
        calls = []
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()):
            orig = ps.make
            ps.make = lambda *a, **k: calls.append(a[1])
            try:
                open(os.path.join(d, 'out'), 'w').close()
                self.assertTrue(ps.stamped_make(None, 'b', '/s', d, [], 'k1',
                                                ['out']))
                # same key, output there: skipped
                self.assertFalse(ps.stamped_make(None, 'b', '/s', d, [],
                                                 'k1', ['out']))
                # new key, or output gone: made again
                self.assertTrue(ps.stamped_make(None, 'b', '/s', d, [], 'k2',
                                                ['out']))
                os.unlink(os.path.join(d, 'out'))
                self.assertTrue(ps.stamped_make(None, 'b', '/s', d, [], 'k2',
                                                ['out']))
                # a failed make leaves no stamp
                ps.make = lambda *a, **k: (_ for _ in ()).throw(
                    ps.Failure('x'))
                with self.assertRaises(ps.Failure):
                    ps.stamped_make(None, 'b', '/s', d, [], 'k3', [])
                ps.make = lambda *a, **k: calls.append(a[1])
                self.assertTrue(ps.stamped_make(None, 'b', '/s', d, [], 'k3',
                                                []))
            finally:
                ps.make = orig
        self.assertEqual(calls, ['b'] * 4)


class SetupTest(unittest.TestCase):
    def test_missing_packages_named(self):
        have, euid = ps.have, os.geteuid
        ps.have = lambda check: 'ccache' not in check and 'qboot' not in check
        os.geteuid = lambda: 1000
        try:
            with self.assertRaisesRegex(
                    ps.Failure, 'missing packages: ccache qemu-system-data\n'
                    '(.|\n)*apt-get install ccache qemu-system-data'):
                ps.ensure_packages(False)
        finally:
            ps.have, os.geteuid = have, euid

    def test_nothing_missing(self):
        have = ps.have
        ps.have = lambda check: True
        try:
            ps.ensure_packages(True)
        finally:
            ps.have = have


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
        res, dumps = ps.parse_tap(self.OUT)
        self.assertEqual(res, {'stat.a': 'pass', 'stat.b': 'fail',
                               'stat.c': 'skip'})
        self.assertEqual(dumps, {('stat.a', 'P', 'x'): '0x3 -2',
                                 ('stat.b', 'N', 'y'): '-14'})

    def test_decode(self):
        self.assertEqual(ps.decode_dump('0x3 [0 -2]x2 1 -14'),
                         [0, 0, 0, 0, -2, 0, -2, 1, -14])
        self.assertEqual(ps.first_difference('0x3 1', '0x2 1x2'),
                         'page 2: 0 against 1')
        self.assertEqual(ps.first_difference('0x3', '0x4'),
                         'lengths 3 against 4')

    def test_compare(self):
        r = ps.Results()
        a = {('stat.a', 'P', 'x'): '0x3'}
        ps.compare_dumps(r, 'same', a, dict(a))
        with contextlib.redirect_stdout(io.StringIO()) as out:
            ps.compare_dumps(r, 'differ', a, {('stat.a', 'P', 'x'): '1x3'})
        self.assertEqual((r.passed, r.failed), (1, 1))
        self.assertIn('stat.a x: page 0: 0 against 1', out.getvalue())
        with contextlib.redirect_stdout(io.StringIO()):
            ps.compare_dumps(r, 'skipped', a, {}, skip_tests=('stat.a',))
        self.assertEqual(r.failed, 2)  # nothing left to compare

    def test_ebusy_allowed(self):
        """Stock's -EBUSY where patched has a node, in move statuses only."""
        r = ps.Results()
        stock = {('move.a', 'M', 'x'): '1 -16 1x2', ('move.a', 'V', 'x'): '4 0'}
        fixed = {('move.a', 'M', 'x'): '1x4', ('move.a', 'V', 'x'): '4 0'}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            ps.compare_dumps(r, 'ebusy', stock, fixed)
        self.assertEqual((r.passed, r.failed), (1, 0))
        self.assertIn('differ only by the -EBUSY', out.getvalue())
        for bad in ({('move.a', 'M', 'x'): '1 -14 1x2'},     # not -EBUSY
                    {('move.a', 'M', 'x'): '1 -16 1x2',      # other kinds
                     ('move.a', 'V', 'x'): '3 0'}):
            got = dict(fixed)
            got.update(bad)
            with contextlib.redirect_stdout(io.StringIO()):
                ps.compare_dumps(r, 'not ebusy', got, fixed)
        self.assertEqual(r.failed, 2)
        # The other way round: patched -EBUSY where stock has a node
        with contextlib.redirect_stdout(io.StringIO()):
            ps.compare_dumps(r, 'reversed', fixed, stock)
        self.assertEqual(r.failed, 3)


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
        self.assertEqual(ps.added_lines(self.DIFF), {'mm/x.c': {11, 12, 22}})

    def test_new_warnings(self):
        added = ps.added_lines(self.DIFF)
        log = ('/t/mm/x.c:11:5: warning: unused variable \'v\'\n'
               '/t/mm/x.c:13:1: warning: unused variable \'w\'\n'
               '/t/mm/x.c:22:9: warning: context imbalance in \'f\' - '
               'unexpected unlock\n')
        base = ('/b/mm/y.c:7:2: warning: context imbalance in \'g\' - '
                'unexpected unlock\n')
        # Line 13 is not the series'; line 22's kind is the base's too
        self.assertEqual(ps.new_warnings(log, added, base),
                         [log.splitlines()[0]])
        self.assertEqual(len(ps.new_warnings(log, added)), 2)

    def test_fragment(self):
        frag = ps.robot_fragment(['# CONFIG_NUMA is not set', 'CONFIG_X=y'])
        self.assertIn('# CONFIG_NUMA is not set\n', frag)
        self.assertNotIn('CONFIG_NUMA=y', frag)
        self.assertIn('CONFIG_X=y\n', frag)
        names = [b[0] for b in ps.ROBOT_BUILDS]
        self.assertEqual(len(names), len(set(names)))
        self.assertTrue(set(ps.ROBOT_LINKED) <= set(names))


class JobsTest(unittest.TestCase):
    def test_two_threads_share_the_jobs(self):
        import threading
        done, results = [], ps.Results()

        def job(i):
            time.sleep(0.01)
            if i == 2:
                raise ps.Failure('job 2 failed')
            done.append(i)
        jobs = [('job %d' % i, lambda i=i: job(i)) for i in range(6)]
        other = threading.Thread(target=ps.run_jobs, args=(jobs, results))
        other.start()
        ps.run_jobs(jobs, results)
        other.join()
        # Every job ran once; the failure is its own and the rest went on
        self.assertEqual(sorted(done), [0, 1, 3, 4, 5])
        self.assertEqual([n for n, _ in results.failures], ['job 2'])
        self.assertEqual(jobs, [])


class BenchTest(unittest.TestCase):
    OUT = ['guest kernel 6.12.117 cpu "QEMU Virtual CPU" nodes 2',
           'case 4k pages 262144 ns_per_page 520.00 runs 519.5,520.0,521',
           'case call-16 pages 16 ns_per_call 2100.00 runs 2100.0',
           'SKIP hugetlb-2m: mmap: Cannot allocate memory']

    def test_parse(self):
        cases, guest, fails = ps.parse_bench(self.OUT)
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
                         list(ps.BENCH_CASES))

    def test_size(self):
        self.assertEqual(ps.parse_size('4G'), 4 << 30)
        self.assertEqual(ps.parse_size('512m'), 512 << 20)
        self.assertEqual(ps.parse_size('65536'), 65536)
        for bad in ('0', '4T', 'G', '1.5G'):
            with self.assertRaises(ps.Failure):
                ps.parse_size(bad)

    def test_guest_memory(self):
        # 1 GiB fits the default nodes; 8 GiB grows them
        numa, spread = ps.bench_numa(1 << 30, 24000)
        self.assertIn('size=5120M', ' '.join(numa))
        self.assertFalse(spread)
        numa, spread = ps.bench_numa(8 << 30, 24000)
        numa = ' '.join(numa)
        self.assertIn('id=m0,size=9216M', numa)
        self.assertIn('id=m1,size=5120M', numa)
        self.assertIn('-m 14336', numa)
        self.assertFalse(spread)
        # 16 GiB fits a 24 GiB host only spread over both nodes
        numa, spread = ps.bench_numa(16 << 30, 24000)
        numa = ' '.join(numa)
        self.assertTrue(spread)
        self.assertIn('id=m0,size=9216M', numa)
        self.assertIn('id=m1,size=9216M', numa)
        # 32 GiB does not fit at all: a clear error, not an OOM
        with self.assertRaisesRegex(ps.Failure, 'needs a guest of'):
            ps.bench_numa(32 << 30, 24000)

    def test_table(self):
        st = {'4k': {'pages': 8, 'ns_per_page': 500.0, 'runs': []}}
        pa = {'4k': {'pages': 8, 'ns_per_page': 20.0, 'runs': []}}
        st['call-1'] = {'pages': 1, 'unit': 'call', 'ns_per_page': 800.0}
        pa['call-1'] = {'pages': 1, 'unit': 'call', 'ns_per_page': 760.0}
        table = ps.bench_table({'stock': st, 'patched': pa}, {})
        self.assertRegex(table, r'4k +8 +500.00 +20.00 +-96.0% +25.0x page')
        self.assertRegex(table, r'call-1 +1 +800.00 +760.00 +-5.0% +1.1x call')
        self.assertIn('buffer: 1G on node 0', table)
        self.assertNotIn('move-* and placed-*', table)
        st['move-4k'] = {'pages': 8, 'unit': 'page', 'ns_per_page': 5000.0}
        pa['move-4k'] = {'pages': 8, 'unit': 'page', 'ns_per_page': 5000.0}
        self.assertIn('move-* and placed-*: at most 256M',
                      ps.bench_table({'stock': st, 'patched': pa}, {}))
        table = ps.bench_table({'stock': st, 'patched': pa}, {}, '16G', True)
        self.assertIn('buffer: 16G, spread over nodes 0 and 1', table)


class VamapTest(unittest.TestCase):
    OUT = ['vamap sparse-64g size 68719476736 touched 16384 vamap_ns 2000000 '
           'naive_ns 500000000 identical 1',
           'vamap thp-1g size 1073741824 touched 262144 vamap_ns 10 '
           'naive_ns 1000 identical 0',
           'vamap bad size x',
           'FAIL thp-1g: numa_vamap failed']

    def test_parse(self):
        cases, fails = ps.parse_vamap_bench(self.OUT)
        self.assertEqual(sorted(cases), ['sparse-64g', 'thp-1g'])
        self.assertEqual(cases['sparse-64g'],
                         {'size': 64 << 30, 'touched': 16384,
                          'vamap_ns': 2000000, 'naive_ns': 500000000,
                          'identical': True})
        self.assertFalse(cases['thp-1g']['identical'])
        self.assertEqual(fails, ['FAIL thp-1g: numa_vamap failed'])

    def test_table(self):
        cases, _ = ps.parse_vamap_bench(self.OUT)
        table = ps.vamap_table({'stock': cases, 'patched': cases})
        self.assertRegex(table, r'sparse-64g +64G +16384 \| +2.0 +500.0 '
                         r'+250.0x \| +2.0 +500.0 +250.0x \| yes')
        self.assertRegex(table, r'thp-1g .* \| NO')

    def test_checks(self):
        lines = ['# detail', 'ok - self: numa_vamap exits 0',
                 'not ok - child: the map is what a naive pass implies  ',
                 'okay - not a check', 'PASS']
        self.assertEqual(ps.parse_checks(lines),
                         [('self: numa_vamap exits 0', True),
                          ('child: the map is what a naive pass implies',
                           False)])


class TreeTest(unittest.TestCase):
    """The tree, update and export steps on a toy kernel and overlay."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.src = os.path.join(d, 'linux')
        write(os.path.join(self.src, 'Makefile'), 'all:\n')
        write(os.path.join(self.src, 'mm', 'a.c'), 'one\ntwo\nthree\n')
        write(os.path.join(self.src, 'mm', 'b.c'), 'b\n')
        self.repo = os.path.join(d, 'repo')
        write(os.path.join(self.repo, 'patches', '0001-a.patch'), PATCH)
        write(os.path.join(self.repo, 'patches', '0002-new.patch'),
              'From: B <b@example.org>\nSubject: [PATCH] mm: add new.c\n\n'
              'Adds it.\n')
        write(os.path.join(self.repo, 'patches', 'series'),
              '0001-a.patch\n0002-new.patch\n\tmm/new.c\n')
        write(os.path.join(self.repo, 'mm', 'new.c'), 'new\n')
        write(os.path.join(self.repo, 'README.md'), 'not kernel\n')
        self.env = dict(os.environ)
        os.environ['KERNEL_SRC'] = self.src
        os.environ['PAGESTAT_CACHE'] = os.path.join(d, 'cache')
        self.out = io.StringIO()
        self.redirect = contextlib.redirect_stdout(self.out)
        self.redirect.__enter__()

    def tearDown(self):
        self.redirect.__exit__(None, None, None)
        os.environ.clear()
        os.environ.update(self.env)
        self.tmp.cleanup()

    def log(self, t):
        return ps.git(['log', '--format=%an|%s', 'base..pagestat'],
                      cwd=t.tree).splitlines()

    def test_update(self):
        t = ps.Tree(self.repo)
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
        self.assertEqual(ps.Tree(self.repo).update(), tip)
        # An edit rewrites the edited file only.
        time.sleep(0.01)
        write(os.path.join(self.repo, 'mm', 'new.c'), 'newer\n')
        self.assertNotEqual(ps.Tree(self.repo).update(), tip)
        self.assertEqual(os.stat(b).st_mtime, 1000)
        self.assertEqual(os.stat(a).st_mtime, 1000)
        with open(os.path.join(t.tree, 'mm', 'new.c')) as f:
            self.assertEqual(f.read(), 'newer\n')

    def test_deterministic(self):
        tip = ps.Tree(self.repo).update()
        os.environ['PAGESTAT_CACHE'] = os.path.join(self.tmp.name, 'c2')
        self.assertEqual(ps.Tree(self.repo).update(), tip)

    def test_bad_patch(self):
        write(os.path.join(self.src, 'mm', 'a.c'), 'other\n')
        with self.assertRaisesRegex(ps.Failure,
                                    '0001-a.patch does not apply:'
                                    '(.|\n)*mm/a.c:1'):
            ps.Tree(self.repo).update()

    def test_local_edit_refused(self):
        t = ps.Tree(self.repo)
        t.update()
        write(os.path.join(t.tree, 'mm', 'b.c'), 'edited\n')
        with self.assertRaisesRegex(ps.Failure, 'local edits'):
            ps.Tree(self.repo).update()

    def test_interrupted_lock(self):
        t = ps.Tree(self.repo)
        t.update()
        lock = os.path.join(t.base, '.git', 'worktrees',
                            os.path.basename(t.tree), 'index.lock')
        open(lock, 'w').close()
        write(os.path.join(self.repo, 'mm', 'new.c'), 'again\n')
        ps.Tree(self.repo).update()
        with open(os.path.join(t.tree, 'mm', 'new.c')) as f:
            self.assertEqual(f.read(), 'again\n')

    def test_missing_base(self):
        os.environ['KERNEL_SRC'] = os.path.join(self.tmp.name, 'nope.tar')
        with self.assertRaisesRegex(ps.Failure, 'does not exist'):
            ps.Tree(self.repo)

    def test_export(self):
        t = ps.Tree(self.repo)
        t.update()
        out = os.path.join(self.tmp.name, 'series')
        files = ps.export(t, out)
        self.assertEqual([os.path.basename(f) for f in files],
                         ['0000-cover-letter.patch',
                          '0001-mm-change-a-line.patch',
                          '0002-mm-add-new.c.patch'])
        self.assertEqual(ps.verify_export(t, files), (True, ''))
        first = [ps.read(f) for f in files]
        files = ps.export(t, out)
        self.assertEqual([ps.read(f) for f in files], first)


if __name__ == '__main__':
    unittest.main()
