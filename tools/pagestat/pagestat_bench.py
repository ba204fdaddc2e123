# SPDX-License-Identifier: GPL-2.0
"""The benchmark's reports: the reviewers' tables and the guest sizes of
bench --size.
"""

import os
import re

from pagestat_common import Failure
from pagestat_qemu import NODE_MB, qemu_numa
from pagestat_tree import ANCHORS, mail_files


# Every case of tools/pagestat/guest/move_pages_bench.c, which test runs
# small
BENCH_CASES = ('4k', 'thp', 'hugetlb-2m', 'sparse', 'random', 'interleave',
               'call-1', 'call-16', 'call-128', 'move-4k', 'move-thp',
               'move-hugetlb-2m', 'placed-4k', 'placed-thp', 'vma-1', 'vma-2',
               'vma-4', 'vma-8')


# The kernels of a bench run, in the tables' order: v2 (the posted
# patches) only when it was measured.
KERNELS = ('stock', 'v2', 'patched')


def v2_source(paths=None, off=False, anchors=None):
    """What bench measures as v2: (its files in order, or None; the line
    the output says it with).  @paths, named by --v2, must hold patches;
    without them the anchors' patches are v2, and a run without them
    says so and measures stock and patched only."""
    anchors = anchors or ANCHORS
    if off:
        return None, 'v2: not measured (--no-v2)'
    if paths:
        files = mail_files(paths)
        where = ', '.join(paths)
    else:
        try:
            files = mail_files([anchors])
        except Failure as e:
            why = '' if not os.path.exists(anchors) else ' (%s)' % e
            return None, ('v2: not measured: no posted v2 at %s%s; '
                          '--v2 MBOX names its patches' % (anchors, why))
        where = anchors
    return files, 'v2: %s (from %s) on the same base and config' % (
        ', '.join(os.path.basename(f) for f in files), where)


def kernels_of(res):
    """The kernels of @res in the tables' order: stock, v2 if measured
    (a key of @res, even with no case), patched."""
    return [k for k in KERNELS if k != 'v2' or k in res]


def change(a, b):
    """Patched's cost @b against another's @a: the change in percent and
    the ratio a / b (how many times cheaper @b is)."""
    return ('%+.1f%%' % (100.0 * (b - a) / a) if a else '-',
            '%.1fx' % (a / b) if b else '-')


def vamap_table(res):
    """numa_vamap against the naive move_pages() pass, on each kernel."""
    kernels = kernels_of(res)
    out = ['numa_vamap PID against numa_vamap --naive PID (one move_pages() '
           'query per page of every VMA), guest ms from vfork() to exit, '
           'median of 3 runs (naive: 1 run)',
           '',
           '%-22s %8s %8s' % ('case', 'mapping', 'touched') +
           ''.join(' | %9s %9s %7s' % (k, 'naive', 'speedup')
                   for k in kernels) + ' | same map']
    for name, st in res.get('stock', {}).items():
        if name not in res.get('patched', {}):
            continue
        row = '%-22s %7dG %8d' % (name, st['size'] >> 30, st['touched'])
        same = True
        for k in kernels:
            r = res[k].get(name)
            if not r:
                row += ' | %9s %9s %7s' % ('-', '-', '-')
                continue
            same = same and r['identical']
            row += ' | %9.1f %9.1f %6.1fx' % (
                r['vamap_ns'] / 1e6, r['naive_ns'] / 1e6,
                r['naive_ns'] / r['vamap_ns'] if r['vamap_ns'] else 0)
        out.append(row + ' | ' + ('yes' if same else 'NO'))
    return '\n'.join(out)


def bench_table(res, guests, size='1G', spread=False, v2=None):
    """The reviewers' table: per-page cost on stock, v2 (when measured)
    and patched, and patched's change against each of the others.  @v2
    is the line that says what v2 is, or why it was not measured."""
    kernels = kernels_of(res)
    out = ['move_pages(2) status query cost per 4 KiB page (call-N: per '
           'call of N pages), in guest ns (qemu -icount shift=0: 1 ns = '
           '1 guest instruction; median of the runs)',
           'buffer: %s%s' % (size, ', spread over nodes 0 and 1 (node 0 '
                             'fills first): the host cannot hold it on '
                             'one node' if spread else ' on node 0 '
                             '(interleave: nodes 0 and 1)')]
    if any(n.startswith(('move-', 'placed-')) for n in res['stock']):
        out.append('move-* and placed-*: at most 256M, moved to node 1 '
                   'with a node list (placed-*: already there), back to '
                   'node 0 between runs')
    for i, k in enumerate(kernels):
        out.append('%s %s: %s' % ('guest:' if not i else '      ', k,
                                  guests.get(k, '?')))
    if v2:
        out.append(v2)
    others = [k for k in kernels if k != 'patched']
    if 'v2' in kernels:
        out.append('vs stock, vs v2: the change from stock (from v2) to '
                   'patched, and its ratio: how many times cheaper')
    out += ['',
            '%-15s %8s' % ('case', 'pages') +
            ''.join(' %10s' % k for k in kernels) +
            ''.join(' %8s %7s' % ('change' if len(others) == 1 else
                                  'vs ' + k, 'ratio') for k in others) +
            ' per']
    for name in res['stock']:
        st = res['stock'][name]
        pa = res['patched'].get(name)
        if not pa:
            continue
        row = '%-15s %8d' % (name, st['pages'])
        for k in kernels:
            r = res[k].get(name)
            row += ' %10s' % ('%.2f' % r['ns_per_page'] if r else '-')
        b = pa['ns_per_page']
        for k in others:
            r = res[k].get(name)
            row += ' %8s %7s' % (change(r['ns_per_page'], b) if r
                                 else ('-', '-'))
        out.append(row + ' ' + st.get('unit', 'page'))
    return '\n'.join(out)


def bench_json(res, guests, size, spread, vres, v2_files, v2_note,
               dres=None, tier=None):
    """What bench --json writes: each case on each kernel (v2's figures
    null where it was not measured), the guests, numa_vamap's cases,
    DAMON's (@dres, damon_json(); null when not run) and its tiering run
    (@tier, parse_damon()'s; null when not run)."""
    cases = []
    for n in res['stock']:
        if n not in res['patched']:
            continue
        case = {'name': n, 'pages': res['stock'][n]['pages'],
                'per': res['stock'][n].get('unit', 'page')}
        for k in KERNELS:
            r = res.get(k, {}).get(n)
            case['%s_ns_per_page' % k] = r['ns_per_page'] if r else None
            case['%s_runs' % k] = r.get('runs') if r else None
        cases.append(case)
    return {'clock': 'icount', 'guest': guests, 'size': size,
            'spread': spread, 'v2': {'measured': 'v2' in res,
                                     'patches': v2_files or [],
                                     'note': v2_note},
            'cases': cases, 'vamap': vres,
            'damon': damon_json(dres) if dres else None,
            'damon_tiering': {'shares': [list(x) for x in tier['shares']],
                              'reached': list(tier['reached'])
                              if tier['reached'] else None}
            if tier else None}


def parse_size(text):
    """Bytes in a size such as 512M, 4G or 65536 (as move_pages_bench)."""
    m = re.fullmatch(r'(\d+)([KMG]?)', text.strip().upper())
    if not m or not int(m.group(1)):
        raise Failure('--size %s: expected a size such as 1G, 4G or 512M'
                      % text)
    return int(m.group(1)) << {'': 0, 'K': 10, 'M': 20, 'G': 30}[m.group(2)]


def bench_numa(size, host_mb):
    """
    Guest nodes for move_pages_bench --size, and whether the buffer is
    spread: node 0 holds a case's buffer (all but interleave), node 1 half
    of it (interleave), each with 1 GiB to spare and at least NODE_MB.
    When the host cannot hold that, both nodes hold half of the buffer
    (move_pages_bench --spread binds it to both).
    """
    mb = size >> 20
    spare = host_mb - 2048
    node0, node1 = max(NODE_MB, mb + 1024), max(NODE_MB, mb // 2 + 1024)
    if node0 + node1 <= spare:
        return qemu_numa(node0, node1), False
    half = max(NODE_MB, mb // 2 + 1024)
    if 2 * half > spare:
        raise Failure('bench --size %dM needs a guest of %d MiB even with '
                      'the buffer spread over both nodes (%d MiB each); '
                      'this host has %d MiB of memory'
                      % (mb, 2 * half, half, host_mb))
    return qemu_numa(half, half), True


def host_memory_mb():
    with open('/proc/meminfo') as f:
        for ln in f:
            if ln.startswith('MemTotal:'):
                return int(ln.split()[1]) >> 10
    return 0


# bench damon: one boot per buffer of damon_test cost, with the operations
# sets each kernel measures on it.  Stock refuses a vaddr or fvaddr context
# with the goal; v2 does not change DAMON and is not booted for it.  fvaddr
# (one region over the buffer) measures the memory paddr does and is held to
# the bars; vaddr (DAMON's regions of the whole process) is shown beside it.
DAMON_BOOTS = {'stock': (('4k', ('paddr',)), ('thp', ('paddr',))),
               'patched': (('4k', ('fvaddr', 'vaddr', 'paddr')),
                           ('thp', ('fvaddr', 'vaddr', 'paddr')),
                           ('sparse', ('fvaddr',)))}

# The bar of sparse: instructions per evaluation per page of the reservation
DAMON_SPARSE_BAR = 0.1


def damon_bars(res):
    """The issue's bars on @res ({kernel: {(case, ops): result}}), as
    (what, the figures, True/False, or None where not measured): patched's
    fvaddr, over the memory paddr measures, costs no more per page than
    paddr for 4k and thp (patched's paddr, the same code as stock's, or
    stock's where patched's was not measured), and at most DAMON_SPARSE_BAR
    per page of sparse's reservation."""
    pa, st = res.get('patched', {}), res.get('stock', {})
    bars = []
    for case in ('4k', 'thp'):
        v = pa.get((case, 'fvaddr'))
        p = pa.get((case, 'paddr')) or st.get((case, 'paddr'))
        what = '%s: fvaddr <= paddr per page (%s)' % (
            case, 'patched' if (case, 'paddr') in pa else "stock's paddr")
        if not v or not p:
            bars.append((what, 'not measured', None))
            continue
        bars.append((what, '%.4g <= %.4g' % (v['per_page'], p['per_page']),
                     v['per_page'] <= p['per_page']))
    v = pa.get(('sparse', 'fvaddr'))
    what = 'sparse: fvaddr <= %g per page of the reservation' % (
        DAMON_SPARSE_BAR)
    if not v:
        bars.append((what, 'not measured', None))
    else:
        per = v['insns_per_eval'] / v.get('reserved_pages', v['pages'])
        bars.append((what, '%.4g <= %g' % (per, DAMON_SPARSE_BAR),
                     per <= DAMON_SPARSE_BAR))
    return bars


def damon_rows(res):
    """The (case, ops) measured on any kernel of @res, in DAMON_BOOTS'
    order, then the others."""
    order = [(c, o) for k in ('patched', 'stock')
             for c, ops in DAMON_BOOTS[k] for o in ops]
    got = set(key for r in res.values() for key in r)
    keys = sorted(set(order) & got, key=order.index)
    return keys + sorted(got - set(order))


def damon_table(res):
    """damon_test cost on each kernel of @res, and the bars."""
    kernels = kernels_of(res)
    out = ['DAMON node_eligible_mem_bp: guest instructions (qemu -icount '
           'shift=0) per evaluation of the goal, per 4 KiB page of the '
           'eligible regions; median of 3 pairs of runs (the kdamond\'s CPU '
           'time per quota window with the goal, less with a user_input '
           'goal)',
           '4k, thp: 1 GiB on node 0; sparse: 64 MiB of 4 KiB pages at the '
           'start of a 64 GiB MAP_NORESERVE reservation',
           'fvaddr: a kdamond on the process, one region over the buffer '
           '(sparse: the reservation), the memory paddr measures: the bars\' '
           'figures; vaddr: a kdamond on the process, over DAMON\'s regions '
           'of it, which hold its other mappings too (pages: the regions, '
           'patched\'s where both ran); paddr: one region over the '
           'buffer\'s physical span (stock refuses vaddr and fvaddr)',
           '',
           '%-24s |%s | %s' % ('', ' per page'.ljust(11 * len(kernels)),
                               'per evaluation'),
           '%-7s %-6s %9s |' % ('case', 'ops', 'pages') +
           ''.join(' %10s' % k for k in kernels) + ' |' +
           ''.join(' %11s' % k for k in kernels)]
    for key in damon_rows(res):
        rs = [res.get(k, {}).get(key) for k in kernels]
        out.append('%-7s %-6s %9d |' % (key[0], key[1],
                                        [r for r in rs if r][-1]['pages']) +
                   ''.join(' %10s' % ('%.4g' % r['per_page'] if r else '-')
                           for r in rs) + ' |' +
                   ''.join(' %11s' % ('%.0f' % r['insns_per_eval'] if r
                                      else '-') for r in rs))
    out += ['', 'bars:']
    out += ['  %s: %s: %s' % (what, fig, {True: 'pass', False: 'FAIL',
                                          None: '-'}[ok])
            for what, fig, ok in damon_bars(res)]
    return '\n'.join(out)


def damon_tiering(tier):
    """bench damon's tiering run on patched (@tier: parse_damon() of
    damon_test tiering): the hot set's share on node 0 over guest time."""
    out = ['DAMON tiering on patched: a 64 MiB hot set that starts on node 1 '
           '(and a 64 MiB cold set), a vaddr migrate_hot scheme to node 0 '
           'with a node_eligible_mem_bp goal of 8000 bp for node 0; the hot '
           'set\'s share on node 0 by move_pages(NULL), over guest time, '
           'booted as test boots it (not under -icount, where no page of '
           'the hot set moved in 30 s of guest time)', '',
           '%8s %8s' % ('ms', 'bp')]
    out += ['%8d %8d' % s for s in tier['shares']]
    out.append('reached %d bp at %d ms' % tier['reached']
               if tier['reached'] else 'the goal was not reached')
    return '\n'.join(out)


def damon_json(res):
    """bench --json's DAMON rows and bars."""
    rows = []
    for key in damon_rows(res):
        row = {'case': key[0], 'ops': key[1]}
        for k in KERNELS:
            r = res.get(k, {}).get(key)
            row[k] = dict(r) if r else None
        rows.append(row)
    return {'rows': rows,
            'bars': [{'bar': w, 'figures': f, 'pass': ok}
                     for w, f, ok in damon_bars(res)]}
