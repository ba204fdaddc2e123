# SPDX-License-Identifier: GPL-2.0
"""test: the guest runs of the selftests, of numa_vamap and of the
benchmark, on the boot and debug kernels, and what stock and patched
must agree on.
"""

import functools
import glob
import io
import os
import re
import threading
import unittest

from pagestat_common import Failure, Phase, TOOLDIR, say
from pagestat_qemu import (
    BENCH_KERNEL_ARGS, DEBUG_KERNEL_ARGS, DEBUG_NUMA, KERNEL_ARGS,
    SELFTEST_NUMA)
from pagestat_build import DEBUG_FLAVORS, FLAVORS
from pagestat_parse import (
    decode_dump, parse_bench, parse_checks, parse_damon, parse_damon_placed,
    parse_ksft, parse_tap, plan_problem, split_runs)
from pagestat_guest import guest_run, guest_setup
from pagestat_bench import BENCH_CASES
from pagestat_check import ROBOT_BUILDS, robot_slug


def harness_selftests(results):
    with Phase('harness self-tests'):
        suite = unittest.defaultTestLoader.discover(
            os.path.join(TOOLDIR, 'tests'))
        ids = [t.id() for t in iter_tests(suite)]
        res = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
        bad = {t.id(): msg for t, msg in res.failures + res.errors}
        for i in ids:
            results.record('harness: ' + i, i not in bad, bad.get(i, ''))


def iter_tests(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from iter_tests(t)
        else:
            yield t


# The expected differences: what stock 7.3.4 fails by a bug the series
# fixes.  (6.12's compat bug, a 32-bit caller's pointer array misread past
# its 16th entry, is fixed in 7.3 by upstream's 10d04c26ab2b: stock and
# patched must agree on 32-bit callers too.)

# Stock 7.3 reports -EBUSY for the address after the first of a huge page
# that move_pages() moves ("mm/migrate: do not report -EBUSY for addresses
# of a queued folio" fixes it): these move THPs or hugetlb pages, check
# every status, and fail on stock.
STOCK_MOVE_EBUSY = ('stat.hugetlb_1g', 'move.to_node_1', 'move.move_all',
                    'move.reversed_twice', 'move.small_calls')

# The fix's own cases in the kernel's migration selftest, which it adds
# in the same patch: every status of a huge page moved must be its node.
STOCK_MIGRATION_EBUSY = ('migration.private_anon_thp_status',
                         'migration.private_anon_htlb_status')

EBUSY = -16

# Stock 7.3's PAGEMAP_SCAN leaves walk_end where its buffer first filled
# after a walk that ran to the end ("fs/proc/task_mmu: set PAGEMAP_SCAN
# walk_end after a complete walk" fixes it, and adds these two cases to
# the kernel's pagemap_ioctl selftest, whose plan is 121 with them).
STOCK_WALK_END = ('walk_end_tests all regions, walk_end at the end',
                  'walk_end_tests resumed at walk_end, each region once')


# Which program each expected difference is a case of: a stock run of it
# must report each (expected_seen()).
EXPECTED_IN = {'move_pages_stat': STOCK_MOVE_EBUSY,
               'move_pages_stat_32': STOCK_MOVE_EBUSY,
               'migration': STOCK_MIGRATION_EBUSY,
               'pagemap_ioctl': STOCK_WALK_END}


def expected_seen(results, label, prog, names):
    """On a stock kernel (@label), every expected difference of @prog must
    be among @names, the cases its run reported: one removed or renamed
    would leave the expectation, and the test of the fix, unseen."""
    if not label.startswith('stock') or prog not in EXPECTED_IN:
        return
    missing = [n for n in EXPECTED_IN[prog] if n not in names]
    results.record('%s on %s: reports the cases of the expected '
                   'differences' % (prog, label), not missing,
                   'not among its cases: %s' % ', '.join(missing))


def expected_on(label):
    """The selftests a run fails by a known bug of the kernel, and why."""
    out = {}
    if label.startswith('stock'):
        out.update((t, 'the -EBUSY of stock 7.3 for the rest of a queued '
                    'huge page') for t in STOCK_MOVE_EBUSY +
                   STOCK_MIGRATION_EBUSY)
        out.update((t, "the stale walk_end of stock 7.3's PAGEMAP_SCAN")
                   for t in STOCK_WALK_END)
    return out


def first_difference(a, b):
    """A description of the first page where two dumps differ."""
    x, y = decode_dump(a), decode_dump(b)
    for i, (u, v) in enumerate(zip(x, y)):
        if u != v:
            return 'page %d: %d against %d' % (i, u, v)
    return 'lengths %d against %d' % (len(x), len(y))


def ebusy_fixed(a, b):
    """Whether move statuses b are a's but for nodes where a has -EBUSY."""
    x, y = decode_dump(a), decode_dump(b)
    return len(x) == len(y) and all(u == v or (u == EBUSY and v >= 0)
                                    for u, v in zip(x, y))


def compare_dumps(results, what, a, b, skip_tests=()):
    """Every dump of stock a must equal patched b's; name the first
    differing entry.  Move statuses (kind M) may differ where stock 7.3
    reports -EBUSY for a folio queued earlier in the call (the -EBUSY
    fix)."""
    diffs, compared, fixed = [], 0, []
    for key in sorted(set(a) | set(b), key=str):
        if key[0] in skip_tests:
            continue
        compared += 1
        if key not in a or key not in b:
            diffs.append('%s: only in one run' % (key,))
        elif a[key] != b[key] and key[1] == 'M' and ebusy_fixed(a[key],
                                                                 b[key]):
            fixed.append(key[2])
        elif a[key] != b[key]:
            diffs.append('%s %s: %s\n  %s\n  %s' % (
                key[0], key[2], first_difference(a[key], b[key]),
                a[key][:300], b[key][:300]))
    if fixed:
        say('%s: %d move status dumps differ only by the -EBUSY of stock '
            '7.3 (expected difference): %s' % (what, len(fixed),
                                                ' '.join(fixed)))
    results.record(what, not diffs and compared > 0,
                   '\n'.join(diffs[:10]) or 'no dumps to compare')


def ksft_case(name):
    """A kselftest.h case's number and message, which together name it."""
    number, _, message = name.partition(' ')
    return number, message or number


def record_tap(results, label, res, log):
    """Count a run's TAP results, its known failures as expected."""
    expected = expected_on(label)
    for test, r in sorted(res.items()):
        name = test if test in expected else ksft_case(test)[1]
        if r == 'skip':
            results.add(0, 0, 1)
        elif name in expected:
            say('%s: %s %s' % (label, test, 'fails: %s (expected '
                               'difference)' % expected[name]
                               if r == 'fail' else 'passes, though '
                               'it meets %s (the bug went unseen)'
                               % expected[name]))
            results.add(1, 0)
        else:
            results.record('selftest %s: %s' % (label, test), r == 'pass',
                           'log: %s' % log)


# The kernel's own selftests of what the series changes, as (program,
# guest NUMA layout): migration wants three CPUs over two nodes.
# pagemap_ioctl needs userfaultfd write protection (USERFAULTFD and
# PTE_MARKER_UFFD_WP in boot.config): without it, it exits at once with
# a pass.
KERNEL_TESTS = (('migration', SELFTEST_NUMA), ('pagemap_ioctl', None))

# What the quick tier runs of them: migration's other six cases move a page
# back and forth for 20 s each (its RUNTIME), some 2 minutes a kernel, so
# the quick tier runs the two the -EBUSY fix adds, which take none; --full
# runs every case, on the boot and the debug kernels.
QUICK_CASES = {'migration': STOCK_MIGRATION_EBUSY}


def kernel_test_argv(prog, full):
    """The command line of the kernel selftest @prog: every case with
    @full, else the quick tier's (QUICK_CASES)."""
    cases = () if full else QUICK_CASES.get(prog, ())
    return ['/bin/' + prog] + [a for n in cases for a in ('-r', n)]


class Pairs:
    """What each kernel of a pair gave, met from two jobs: the one that
    completes a pair compares it."""

    def __init__(self):
        self.got, self.lock = {}, threading.Lock()

    def put(self, what, flavor, value):
        """Store @flavor's @value of @what; return both kernels' values
        (stock first) once the pair is complete, else None."""
        base = flavor.replace('-debug', '')
        other = (flavor.replace(base, 'patched' if base == 'stock'
                                else 'stock'))
        with self.lock:
            self.got[(what, flavor)] = value
            if (what, other) not in self.got:
                return None
            pair = (value, self.got[(what, other)])
        return pair if base == 'stock' else pair[::-1]


PAIRS = Pairs()


def no_figures(name):
    """A case's name with the figures it measured (the extra pages of
    pagemap_ioctl's transact_test) left out."""
    return re.sub(r'\d+(\.\d+)?', 'N', name)


def case_key(name):
    """A kselftest.h case's number and its message without figures."""
    number, message = ksft_case(name)
    return number, no_figures(message)


def compare_cases(results, what, a, b):
    """Two kernels' per-case results must be the same, case by case, but
    for the cases stock 7.3 fails by a bug the series fixes."""
    known = {no_figures(n) for n in expected_on('stock')}
    a, b = ({case_key(n): r for n, r in x.items()} for x in (a, b))
    diffs = ['%s %s: %s against %s' % (n + (a.get(n, 'absent'),
                                           b.get(n, 'absent')))
             for n in sorted(set(a) | set(b)) if a.get(n) != b.get(n) and
             n[1] not in known]
    results.record(what, not diffs and bool(a), '\n'.join(diffs[:20]))


# The migration selftest moves a page back and forth for 20 s while other
# threads touch it, and fails a case whose page has not reached both
# nodes by then: upstream calls the migration best effort.  A vCPU the
# host leaves unscheduled while it holds a reference to the page can fail
# it, on either kernel (seen once, on stock-debug, both host cores busy).
# Such a program's failed cases run once more, alone; a case fails if it
# fails again, and the first failure is printed either way.
BEST_EFFORT = ('migration',)


def rerun_failed(prog, flavor, res, rerun):
    """@res with the failed cases of best-effort @prog that pass when
    run again on their own by @rerun(argv) (which returns its lines)."""
    failed = [n for n, r in res.items() if r == 'fail']
    if prog not in BEST_EFFORT or not failed or not rerun:
        return res
    names = [ksft_case(n)[1] for n in failed]
    again = {ksft_case(n)[1]: r for n, r in parse_ksft(rerun(
        ['/bin/' + prog] + [a for n in names for a in ('-r', n)])).items()}
    res = dict(res)
    for n in failed:
        r = again.get(ksft_case(n)[1], 'absent')
        say('%s on %s: %s failed; run again alone: %s' % (prog, flavor, n, r))
        res[n] = 'pass' if r == 'pass' else 'fail'
    return res


def kernel_test_results(t, results, flavor, prog, lines, rerun=None):
    """Count a kernel selftest's cases on @flavor, the failed cases of a
    best-effort one as they run again by @rerun; a run that executes no
    case, or skips every one, fails with the reason.  Its results."""
    first = parse_ksft(lines)
    # A run that stopped early, or a plan its cases do not meet (which
    # kselftest.h's ksft_finished() fails by its exit status alone)
    why = plan_problem(lines, len(first))
    results.record('%s on %s: ran the cases it planned' % (prog, flavor),
                   not why, why + '; last lines:\n' + '\n'.join(lines[-15:]))
    res = rerun_failed(prog, flavor, first, rerun)
    skipped = [n for n, r in res.items() if r == 'skip']
    why = ('skipped every case, the first: %s' % skipped[0] if skipped
           else 'no case ran')
    results.record('%s on %s: cases executed' % (prog, flavor),
                   bool(res) and len(skipped) < len(res),
                   why + '; last lines:\n' + '\n'.join(lines[-15:]))
    record_tap(results, flavor, res, t.logs)
    expected_seen(results, flavor, prog, {ksft_case(n)[1] for n in first})
    pair = PAIRS.put(prog, flavor, res)
    if pair:
        compare_cases(results, '%s: %s and %s give the same per-case '
                      'results' % (prog, flavor.replace('patched', 'stock'),
                                   flavor.replace('stock', 'patched')),
                      *pair)
    return res


def hwloc_results(results, flavor, status, body):
    """hwloc_test on @flavor ran to the end; its layouts must be the other
    kernel's."""
    layouts = [ln for ln in body if ln.startswith(('layout ', 'skip '))]
    results.record('hwloc on %s' % flavor, status == 0 and any(
        ln.startswith('layout ') for ln in layouts), '\n'.join(body[-20:]))
    pair = PAIRS.put('hwloc', flavor, layouts)
    if pair:
        results.record('hwloc: %s and %s give the same nodesets and '
                       'statuses' % (flavor.replace('patched', 'stock'),
                                     flavor.replace('stock', 'patched')),
                       pair[0] == pair[1] and bool(pair[0]),
                       'stock:\n%s\npatched:\n%s' % ('\n'.join(pair[0]),
                                                   '\n'.join(pair[1])))


def have_prog(results, progs, prog, where):
    """Whether the guest program @prog is among @progs; one that is not
    fails the run, named as the runs on @where that it leaves out
    (build_guest_progs() fails first on a missing source)."""
    if prog in progs:
        return True
    results.record('%s on %s: built' % (prog, where), False,
                   '%s is not among the guest programs (%s)'
                   % (prog, ' '.join(sorted(progs)) or 'none'))
    return False


def client_runs(t, results, kernels, initrd, progs, flavors, full=False):
    """hwloc's memory location query and the kernel's own selftests on
    the boot kernels @flavors (with @full, every case; else the quick
    tier's); whichever job runs the second kernel of a pair compares the
    two."""
    for flavor in flavors:
        if have_prog(results, progs, 'hwloc_test', flavor):
            got = guest_run(t, results, 'hwloc on %s' % flavor, flavor,
                            kernels[flavor], initrd, ['/bin/hwloc_test'],
                            timeout=600)
            if got:
                hwloc_results(results, flavor, *got)
        for prog, numa in KERNEL_TESTS:
            if not have_prog(results, progs, prog, flavor):
                continue
            kw = {'numa': numa} if numa else {}
            run = functools.partial(guest_run, t, results, flavor=flavor,
                                    kernel=kernels[flavor], initrd=initrd,
                                    timeout=1800, **kw)
            got = run(label='%s on %s' % (prog, flavor),
                      argv=kernel_test_argv(prog, full))
            if got:
                kernel_test_results(
                    t, results, flavor, prog, got[1],
                    lambda argv, p=prog: (run(
                        label='%s again on %s' % (p, flavor),
                        argv=argv) or (1, []))[1])


# On the kernel command line: the kernel passes it to /init, and so to
# the selftest, in the environment.  It prints its statuses as dumps.
DUMP_ENV = 'MOVE_PAGES_STAT_DUMP=1'


def selftest_run(t, results, kernels, initrd, flavor, prog, label,
                 timeout=900):
    """Run selftest @prog on @flavor, printing its dumps, and count its
    results; its dumps."""
    got = guest_run(t, results, '%s %s' % (prog, label), flavor,
                    kernels[flavor], initrd, ['/bin/' + prog],
                    timeout=timeout, kargs=KERNEL_ARGS + [DUMP_ENV])
    if not got:
        return None
    return count_tap(t, results, label, prog, got[1])


def count_tap(t, results, label, prog, lines):
    """Count the TAP results in @prog's output @lines (none fails); its
    dumps."""
    res, dumps = parse_tap(lines)
    why = plan_problem(lines, len(res)) if res else 'no TAP result'
    results.record('selftest %s: %s ran the tests it planned' % (label, prog),
                   not why, why + '; last lines:\n' + '\n'.join(lines[-30:]))
    record_tap(results, label, res, t.logs)
    expected_seen(results, label, prog, set(res))
    return dumps


def selftest_runs(t, results, kernels, initrd, progs):
    """Run the move_pages selftest, 64- and 32-bit, on both kernels."""
    runs = {}
    for flavor in ('stock', 'patched'):
        for prog in ('move_pages_stat', 'move_pages_stat_32'):
            if not have_prog(results, progs, prog, flavor):
                continue
            bits = '32-bit' if prog.endswith('_32') else '64-bit'
            dumps = selftest_run(t, results, kernels, initrd, flavor, prog,
                                 '%s %s' % (flavor, bits))
            if dumps is not None:
                runs[(flavor, bits)] = dumps
    for bits in ('64-bit', '32-bit'):
        if ('stock', bits) in runs and ('patched', bits) in runs:
            compare_dumps(results, 'selftest %s: stock and patched give '
                          'the same statuses' % bits, runs[('stock', bits)],
                          runs[('patched', bits)])
    if ('patched', '64-bit') in runs and ('patched', '32-bit') in runs:
        only_p = [{k: v for k, v in runs[('patched', b)].items()
                   if k[1] == 'P'} for b in ('64-bit', '32-bit')]
        compare_dumps(results, 'selftest patched: 32-bit gives what 64-bit '
                      'gives', only_p[0], only_p[1])


def debug_runs(t, results, kernels, initrd, progs, flavors=DEBUG_FLAVORS):
    """The selftests again, on the debug kernels: what they count is as on
    the boot kernels; a KASAN report, lockdep splat or warning on the
    console fails the run."""
    # One boot per kernel: a debug kernel takes over a minute to boot
    want = [p for p in ('move_pages_stat', 'move_pages_stat_32',
                        'hwloc_test') +
            tuple(k for k, _ in KERNEL_TESTS)
            if have_prog(results, progs, p, ' and '.join(flavors))]
    argv = []
    for p in want:
        argv += ([';'] if argv else []) + ['/bin/' + p]
    for flavor in flavors:
        if not want:
            break
        got = guest_run(t, results, 'selftests on %s' % flavor, flavor,
                        kernels[flavor], initrd, argv, timeout=3600,
                        numa=DEBUG_NUMA, kargs=DEBUG_KERNEL_ARGS)
        if not got:
            continue
        runs = split_runs(got[1])
        for p in want:
            status, lines = runs.get('/bin/' + p, (None, []))
            if p == 'hwloc_test':
                hwloc_results(results, flavor, status, lines)
            elif p in dict(KERNEL_TESTS):
                kernel_test_results(
                    t, results, flavor, p, lines,
                    lambda argv, p=p: (guest_run(
                        t, results, '%s again on %s' % (p, flavor), flavor,
                        kernels[flavor], initrd, argv, timeout=1800,
                        numa=DEBUG_NUMA, kargs=DEBUG_KERNEL_ARGS) or
                        (1, []))[1])
            else:
                bits = '32-bit' if p.endswith('_32') else '64-bit'
                count_tap(t, results, '%s %s' % (flavor, bits), p, lines)


def vamap_tests(t, results, kernels, initrd, progs):
    """tools/numa_vamap/numa_vamap against the layout vamap_test
    builds."""
    if not all([have_prog(results, progs, p, 'stock and patched')
                for p in ('vamap_test', 'numa_vamap')]):
        return
    for flavor in ('stock', 'patched'):
        got = guest_run(t, results, 'numa_vamap on %s' % flavor, flavor,
                        kernels[flavor], initrd, ['/bin/vamap_test'],
                        timeout=1200)
        if not got:
            continue
        status, body = got
        checks = parse_checks(body)
        for name, ok in checks:
            results.record('numa_vamap on %s: %s' % (flavor, name), ok,
                           'log: %s' % t.logs)
        results.record('numa_vamap on %s: the test ran to the end' % flavor,
                       status == 0 and bool(checks),
                       'exit %s; last lines:\n%s' % (status,
                                                     '\n'.join(body[-20:])))


# damon_test's modes, and what each must reach on patched.
DAMON_MODES = {
    'value': 'node_eligible_mem_bp of a vaddr target is the share on '
             'node 0 of its pages',
    'tiering': 'migrate_hot moves the hot set to node 0 until the '
               'node_eligible_mem_bp goal is met',
}

# damon_test's exit status when the kernel refuses to turn the kdamond on.
DAMON_REFUSED = 2


def damon_results(results, flavor, mode, status, body):
    """damon_test @mode on @flavor: stock 7.3 refuses a vaddr context with
    a node_eligible_mem_bp goal (__damon_commit_ctx()) with -EINVAL; the
    patched kernel must give the value, or reach the goal.  Its lines are
    the detail, and on a pass the value or the share over time is said."""
    got = parse_damon(body)
    lines = [ln for ln in body if ln.startswith(('damon: ', 'tiering: '))]
    detail = 'exit %s:\n%s' % (status, '\n'.join(lines or body[-20:]))
    if flavor.startswith('stock'):
        results.record('damon %s on %s: on fails with EINVAL (expected: '
                       'stock computes node_eligible_mem_bp only for paddr)'
                       % (mode, flavor), status == DAMON_REFUSED and
                       got['refused'] == 'EINVAL', detail)
        return
    label = 'damon %s on %s: %s' % (mode, flavor, DAMON_MODES[mode])
    if mode == 'value':
        ok = got['ok'] and got['measured'] is not None
        said = 'measured %s bp, expected %s' % (
            got['measured'], ' or '.join(map(str, got['expected'])))
    else:
        ok = got['reached'] is not None
        said = 'reached %d bp at %d ms; share at each ms: %s' % (
            (got['reached'] or (0, 0)) +
            (' '.join('%d:%d' % s for s in got['shares']),))
    ok = ok and status == 0 and not got['fails']
    results.record(label, ok, detail)
    if ok:
        say('%s: %s' % (label, said))


# damon_test placed: what a vaddr migrate_hot scheme with a target_nid and
# no dests costs on folios already on target_nid.  Stock 7.3 isolates each
# and puts it back (damos_va_migrate_dests_add() checks the node only when
# dests are given), some 470 guest instructions a 4 KiB folio more than
# the dests case: "placed: verdict=isolates", the expected difference.
# The fix in the fixes series skips them: "placed: verdict=skips", the
# target case within PLACED_ISOLATES (damon_test.c) instructions a folio
# of the dests case and no folio isolated.
# Each flavor damon_test placed runs on: its verdict, what that does, why.
DAMON_PLACED = {
    'stock': ('isolates', 'isolates and puts back each',
              'expected: stock 7.3 has no node check for target_nid'),
    'patched': ('skips', 'skips them',
                'mm/damon/vaddr: do not isolate folios already on '
                'target_nid'),
}


def damon_placed_results(results, flavor, status, body):
    """damon_test placed on @flavor: a pass when it measured the three
    cases and gave @flavor's verdict (DAMON_PLACED), with the figures
    said."""
    got = parse_damon_placed(body)
    lines = [ln for ln in body if ln.startswith(('placed: ', 'damon: '))]
    detail = 'exit %s:\n%s' % (status, '\n'.join(lines or body[-20:]))
    cases = got['cases']
    want, does, why = DAMON_PLACED[flavor]
    label = ('damon placed on %s: migrate_hot to target_nid 0 on folios all '
             'on node 0 %s (%s)' % (flavor, does, why))
    ok = (status == 0 and not got['fails'] and got['verdict'] == want
          and got['folios'] is not None and
          {'stat', 'dests', 'target'} <= set(cases))
    results.record(label, ok, detail)
    if ok:
        say('%s: %s; %d folios; instructions per apply: stat %d, dests %d, '
            'target %d; %.1f a folio beyond the walk (the walk: %.1f); '
            'at most %d isolated at once' % (
                label, got['verdict'], got['folios'],
                cases['stat']['insns_per_apply'],
                cases['dests']['insns_per_apply'],
                cases['target']['insns_per_apply'], got['extra_per_folio'],
                got['walk_per_folio'], cases['target']['max_isolated']))


def damon_tests(t, results, kernels, initrd, progs):
    """damon_test value and tiering on both boot kernels, and placed on
    DAMON_PLACED's flavors (as bench boots: -icount, qemu64)."""
    if not have_prog(results, progs, 'damon_test', 'stock and patched'):
        return
    for flavor in ('stock', 'patched'):
        for mode in DAMON_MODES:
            got = guest_run(t, results, 'damon %s on %s' % (mode, flavor),
                            flavor, kernels[flavor], initrd,
                            ['/bin/damon_test', mode], timeout=600)
            if got:
                damon_results(results, flavor, mode, *got)
    for flavor in DAMON_PLACED:
        got = guest_run(t, results, 'damon placed on ' + flavor, flavor,
                        kernels[flavor], initrd,
                        ['/bin/damon_test', 'placed'], timeout=900,
                        icount=True, cpu='qemu64', kargs=BENCH_KERNEL_ARGS)
        if got:
            damon_placed_results(results, flavor, *got)


def boot_runs(t, results, kernels, initrd, progs):
    """The programs on the boot kernels, stock against patched."""
    outs = {}
    for flavor in ('stock', 'patched'):
        if not have_prog(results, progs, 'smoke', 'stock and patched'):
            break
        got = guest_run(t, results, 'smoke on %s' % flavor, flavor,
                        kernels[flavor], initrd, ['/bin/smoke'],
                        timeout=300)
        if got:
            status, body = got
            outs[flavor] = [ln for ln in body if ln.startswith('layout')]
            results.record('smoke on %s' % flavor, status == 0,
                           '\n'.join(body))
    if len(outs) == 2:
        results.record('smoke: stock and patched agree',
                       outs['stock'] == outs['patched'] and outs['stock'],
                       'stock:\n%s\npatched:\n%s' % (
                           '\n'.join(outs['stock']),
                           '\n'.join(outs['patched'])))
    selftest_runs(t, results, kernels, initrd, progs)


def bench_runs(t, results, kernels, initrd, progs):
    """The benchmark checks every status it gets: run it small, as a
    test."""
    for flavor in ('stock', 'patched'):
        if not have_prog(results, progs, 'move_pages_bench',
                         'stock and patched'):
            break
        label = 'move_pages_bench on %s' % flavor
        got = guest_run(t, results, label, flavor, kernels[flavor], initrd,
                        ['/bin/move_pages_bench', '--size', '64M', '--runs',
                         '1'], kargs=BENCH_KERNEL_ARGS, timeout=600)
        if got:
            cases, _, fails = parse_bench(got[1])
            results.record(label, got[0] == 0 and
                           sorted(cases) == sorted(BENCH_CASES) and
                           not fails, '\n'.join(got[1]))


# What each tier of test runs beyond the harness's own tests, checkpatch,
# kernel-doc, the W=1 build of the touched objects, x86-64 KUnit and the
# guest runs of the boot kernels.
TIERS = {
    'quick': (),
    'full': ('robot builds and coccicheck', 'arm64 KUnit',
             'DAMON\'s KUnit under UML', 'the debug kernels'),
}


def tier_says(full):
    """The line that starts a run of test: which tier, and what it
    leaves out."""
    if full:
        return ('test --full: everything, with %s'
                % ', '.join(TIERS['full']))
    return ('test (quick tier): without %s; `test --full` runs them'
            % ', '.join(TIERS['full']))


# The build directories each tier needs, with the minutes their first
# build took on 2 idle cores from an empty cache; and the minutes of a run
# with everything built.  A directory this cache built before (it holds
# make's line count) costs only what changed.  test builds each stock
# kernel before the patched one of its config, which then takes all but
# the series' objects from ccache: SHARED_MINUTES.
FIRST_BUILDS = {
    'quick': (('stock', 12), ('patched', 12), ('kunit', 13), ('w1', 1)),
    'full': (('kunit-arm64', 28), ('kunit-um-damon', 6), ('stock-debug', 16),
             ('patched-debug', 16), ('robot-*', 100)),
}
WARM_MINUTES = {'quick': 3, 'full': 12}
SHARED_MINUTES = 3
ROBOT_DIRS = ['robot-' + robot_slug(b[0]) for b in ROBOT_BUILDS]


def run_estimate(build, stock_build, full, not_run=()):
    """What the first line of test says of how long it will take, from
    what the build directories @build and @stock_build (the stock
    kernels') hold.  A boot kernel whose twin of the same config (stock
    and patched) is built, or is built first in the run (stock), takes
    its objects from ccache.  The robot's builds in @not_run (a checker
    too old for the tree) are never built and cost nothing."""
    tiers = ('quick', 'full') if full else ('quick',)
    dirs = [d for tier in tiers for d, _ in FIRST_BUILDS[tier]]
    built = {d for d in dirs if glob.glob(os.path.join(
        stock_build if d.startswith('stock') else build, d,
        '.pagestat-lines'))}
    todo = []
    for d, m in [dm for tier in tiers for dm in FIRST_BUILDS[tier]]:
        if d == 'robot-*':
            # Each of the robot's builds counts for its share
            left = [n for n in ROBOT_DIRS if n not in not_run and
                    not os.path.exists(os.path.join(
                        build, n, '.pagestat-lines'))]
            if left:
                todo.append(('%d of the robot\'s builds' % len(left),
                             m * len(left) // len(ROBOT_DIRS)))
            continue
        twin = d.replace('stock', 'patched') if d.startswith('stock') \
            else d.replace('patched', 'stock')
        if d not in built:
            todo.append((d, SHARED_MINUTES if twin != d and (
                twin in built or d.startswith('patched')) else m))
    minutes = WARM_MINUTES[tiers[-1]] + sum(m for _, m in todo)
    return ('expect about %d minutes on 2 cores: %s' % (
        minutes, 'first builds of ' + ', '.join(d for d, _ in todo)
        if todo else 'every kernel is built; what changed is rebuilt'))


def guest_jobs(t, results, debug=False, full=False):
    """The guest runs of test, as jobs that need no other, longest first:
    with @debug, each debug kernel's (what --full adds); else the boot
    kernels': the real clients (with @full, migration's every case, 20 s
    each) on each boot kernel apart, so that both run at once, then the
    selftests, numa_vamap's, DAMON's and the benchmark's."""
    flavors = DEBUG_FLAVORS if debug else FLAVORS
    kernels, progs, initrd = guest_setup(t, flavors)
    a = (t, results, kernels, initrd, progs)
    if debug:
        return [('selftests on ' + f, functools.partial(debug_runs, *a,
                                                         flavors=(f,)))
                for f in flavors]
    return ([('real clients on ' + f, functools.partial(
        client_runs, *a, flavors=(f,), full=full)) for f in flavors] +
            [('boot kernel runs', functools.partial(boot_runs, *a)),
             ('numa_vamap', functools.partial(vamap_tests, *a)),
             ('damon', functools.partial(damon_tests, *a)),
             ('move_pages_bench', functools.partial(bench_runs, *a))])


def run_jobs(jobs, results):
    """Run the (name, function) jobs of the list @jobs, taking them one at
    a time, with any other thread that runs the same list; a job that
    fails is a failure of its name."""
    while True:
        try:
            name, job = jobs.pop(0)
        except IndexError:
            return
        try:
            job()
        except Failure as e:
            results.record(name, False, str(e))
