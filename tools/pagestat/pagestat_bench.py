# SPDX-License-Identifier: GPL-2.0
"""The benchmark's reports: the reviewers' tables and the guest sizes of
bench --size.
"""

import re

from pagestat_common import Failure
from pagestat_qemu import NODE_MB, qemu_numa


# Every case of tools/mm/move_pages_bench.c, which test runs small
BENCH_CASES = ('4k', 'thp', 'hugetlb-2m', 'sparse', 'random', 'interleave',
               'call-1', 'call-16', 'call-128', 'move-4k', 'move-thp',
               'move-hugetlb-2m', 'placed-4k', 'placed-thp', 'vma-1', 'vma-2',
               'vma-4', 'vma-8')


def vamap_table(res):
    """numa_vamap against the naive move_pages() pass, both kernels."""
    out = ['numa_vamap PID against numa_vamap --naive PID (one move_pages() '
           'query per page of every VMA), guest ms from vfork() to exit, '
           'median of 3 runs (naive: 1 run)',
           '',
           '%-22s %8s %8s | %9s %9s %7s | %9s %9s %7s | %s' % (
               'case', 'mapping', 'touched', 'stock', 'naive', 'speedup',
               'patched', 'naive', 'speedup', 'same map')]
    for name, st in res.get('stock', {}).items():
        pa = res.get('patched', {}).get(name)
        if not pa:
            continue
        cols = []
        for r in (st, pa):
            cols += [r['vamap_ns'] / 1e6, r['naive_ns'] / 1e6,
                     r['naive_ns'] / r['vamap_ns'] if r['vamap_ns'] else 0]
        out.append('%-22s %7dG %8d | %9.1f %9.1f %6.1fx | %9.1f %9.1f '
                   '%6.1fx | %s' % tuple(
                       [name, st['size'] >> 30, st['touched']] + cols +
                       ['yes' if st['identical'] and pa['identical']
                        else 'NO']))
    return '\n'.join(out)


def bench_table(res, guests, size='1G', spread=False):
    """The reviewers' table: per-page cost, stock against patched."""
    out = ['move_pages(2) status query cost per 4 KiB page (call-N: per '
           'call of N pages), in guest ns (qemu -icount shift=0: 1 ns = '
           '1 guest instruction; median of the runs)',
           'buffer: %s%s' % (size, ', spread over nodes 0 and 1 (node 0 '
                             'fills first): the host cannot hold it on '
                             'one node' if spread else ' on node 0 '
                             '(interleave: nodes 0 and 1)'),
           'guest: stock: %s' % guests.get('stock', '?'),
           '       patched: %s' % guests.get('patched', '?'),
           '',
           '%-15s %8s %10s %10s %9s %7s %s' % (
               'case', 'pages', 'stock', 'patched', 'change', 'ratio',
               'per')]
    if any(n.startswith(('move-', 'placed-')) for n in res['stock']):
        out.insert(2, 'move-* and placed-*: at most 256M, moved to node 1 '
                   'with a node list (placed-*: already there), back to '
                   'node 0 between runs')
    for name in res['stock']:
        st = res['stock'][name]
        pa = res['patched'].get(name)
        if not pa:
            continue
        a, b = st['ns_per_page'], pa['ns_per_page']
        out.append('%-15s %8d %10.2f %10.2f %+8.1f%% %6.1fx %s' % (
            name, st['pages'], a, b, 100.0 * (b - a) / a if a else 0,
            a / b if b else 0, st.get('unit', 'page')))
    return '\n'.join(out)


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
