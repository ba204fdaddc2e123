# SPDX-License-Identifier: GPL-2.0
"""Parsers of what the guests and tools print: guest program output,
kselftest TAP, KUnit JSON, benchmark lines and console splats.
"""

import json
import re


# Console lines that fail any guest run.
SPLAT_RE = re.compile(r'(WARNING:|BUG:|Oops|Kernel panic|general protection'
                      r'|KASAN:|UBSAN:|possible circular locking'
                      r'|possible recursive locking|inconsistent lock state'
                      r'|lock inversion|INFO: task .* blocked'
                      r'|Call Trace:)')


def parse_guest_output(text):
    """Split the guest's program output; return (exit status, lines).

    When init ran several programs ("pagestat-run: <program>" lines), the
    lines keep their exit lines, for split_runs(), and the status is the
    highest.
    """
    lines = text.replace('\r', '').split('\n')
    status = None
    body = []
    multi = False
    for ln in lines:
        multi = multi or ln.startswith('pagestat-run: ')
        m = re.match(r'pagestat-exit: (signal )?(\d+)$', ln)
        if m:
            st = int(m.group(2)) + (128 if m.group(1) else 0)
            status = max(status or 0, st) if multi else st
            if multi:
                body.append(ln)
        else:
            body.append(ln)
    while body and not body[-1]:
        body.pop()
    return status, body


def split_runs(body):
    """The output of each program of a boot that ran several:
    {program: (exit status or None, lines)}."""
    runs, prog = {}, None
    for ln in body:
        m = re.match(r'pagestat-(run|exit): (.*)$', ln)
        if m and m.group(1) == 'run':
            prog = m.group(2)
            runs[prog] = (None, [])
        elif m and prog:
            st = m.group(2)
            runs[prog] = (128 + int(st.split()[1]) if st.startswith('signal')
                          else int(st), runs[prog][1])
        elif prog:
            runs[prog][1].append(ln)
    return runs


def console_splats(text):
    return [ln for ln in text.replace('\r', '').split('\n')
            if SPLAT_RE.search(ln)]


# The console's time stamp at the start of a line.
STAMP_RE = re.compile(r'^\[\s*\d+\.\d+\]\s?')

# A frame of a stack dump (its line without the time stamp), "func+0x1c/0x90"
# (a module's after it), or the "RIP: 0010:" of the register dump.  An
# unreliable frame ("? func+...", a stale return address left on the stack)
# is not one.
FRAME_RE = re.compile(r'^(?:RIP: [0-9a-f]{4}:|\s*)'
                      r'([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+')

# What reports a splat rather than causing it: the first frames skip these.
REPORT_FRAMES = re.compile(
    r'^(dump_stack\w*|show_stack|print_report|print_address_description'
    r'|kasan_\w+|__kasan_\w+|__asan_\w+|check_region_inline|__warn'
    r'|warn_slowpath_fmt|report_bug|handle_bug|exc_invalid_op'
    r'|asm_exc_invalid_op|__report_bad_irq|ubsan_\w+|__ubsan_\w+'
    r'|print_circular_bug|check_noncircular|check_prev_add|validate_chain'
    r'|__lock_acquire|lock_acquire|print_usage_bug|mark_lock\w*)$')


def splat_reports(text, series_funcs=frozenset(), nframes=5):
    """Each splat of a console log, as lines: its first line, the first
    @nframes frames of its stack that are not the reporting code's, and
    which of its frames are functions in @series_funcs (the series' own
    code), or "none".  A splat's stack is read up to the next splat's
    first line or the end of its trace."""
    reports, cur = [], None

    def close():
        if cur is None:
            return
        head, frames = cur
        first = [f for f in frames if not REPORT_FRAMES.match(f)][:nframes]
        ours = sorted(set(f for f in frames if f in series_funcs))
        reports.append([head,
                        '  first frames: %s' % (', '.join(first) or 'none'),
                        "  in the series' code: %s" % (', '.join(ours) or
                                                       'none')])

    for ln in text.replace('\r', '').split('\n'):
        ln = STAMP_RE.sub('', ln)
        m = FRAME_RE.match(ln)
        if m and cur is not None:
            cur[1].append(m.group(1).split('.')[0])
        elif SPLAT_RE.search(ln) and 'Call Trace:' not in ln:
            close()
            cur = (ln.strip(), [])
        elif cur is not None and ('---[ end trace' in ln or
                                  ln.strip().startswith('=' * 20)) \
                and cur[1]:
            close()
            cur = None
    close()
    return reports


def splat_summary(text, series_funcs=frozenset(), limit=4):
    """The splats of a console log as one message for a failure, or ''."""
    reports = splat_reports(text, series_funcs)
    if not reports:
        return ''
    lines = [ln for r in reports[:limit] for ln in r]
    if len(reports) > limit:
        lines.append('(%d more)' % (len(reports) - limit))
    return '\n'.join(lines)


def parse_kunit_json(text):
    """Count KUnit leaf cases by status: {'pass': n, 'fail': n, ...}."""
    counts = {'pass': 0, 'fail': 0, 'skip': 0}
    failed = []

    def walk(node, prefix):
        cases = node.get('test_cases', [])
        subs = node.get('sub_groups', [])
        for c in cases:
            st = c.get('status', 'FAIL').lower()
            key = {'pass': 'pass', 'skip': 'skip'}.get(st, 'fail')
            counts[key] += 1
            if key == 'fail':
                # kunit.py reports output it could not parse as a crashed
                # case without a name
                failed.append(prefix + (c.get('name') or
                                        '(unparsed output, see test.log)'))
        for s in subs:
            walk(s, prefix + s.get('name', '?') + '.')
    data = json.loads(text)
    walk(data, '')
    return counts, failed


def parse_tap(lines):
    """Results and dumps of a kselftest_harness run.

    Returns ({test: 'pass'|'fail'|'skip'}, {(test, kind, name): statuses}).
    """
    results, dumps, cur = {}, {}, None
    for ln in lines:
        m = re.match(r'#\s+RUN\s+(\S+) \.\.\.', ln)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r'# dump (\S+) (\S+): ?(.*)$', ln)
        if m:
            dumps[(cur, m.group(1), m.group(2))] = m.group(3)
            continue
        m = re.match(r'(not ok|ok) \d+ (\S+)(.*)$', ln)
        if m:
            if m.group(1) == 'not ok':
                results[m.group(2)] = 'fail'
            elif '# SKIP' in m.group(3):
                results[m.group(2)] = 'skip'
            else:
                results[m.group(2)] = 'pass'
    return results, dumps


def parse_ksft(lines):
    """Per-case results of a kselftest program, kselftest.h's or
    kselftest_harness.h's: {number and name: 'pass'|'fail'|'skip'}, the
    name of a skip being its reason."""
    results = {}
    for ln in lines:
        m = re.match(r'(not ok|ok) (\d+) (.*?)\s*$', ln)
        if not m:
            continue
        num, rest = m.group(2), m.group(3)
        skip = re.match(r'(.*?)\s*# SKIP\s*(.*)$', rest)
        if skip:
            name = ' '.join(x for x in skip.groups() if x)
        else:
            name = re.sub(r'\s*#.*$', '', rest)
        results['%s %s' % (num, name)] = ('fail' if m.group(1) == 'not ok'
                                         else 'skip' if skip else 'pass')
    return results


def ksft_plan(lines):
    """The number of cases a kselftest program planned (its "1..N" line,
    "1..0 # SKIP ..." when it skipped them all), or None."""
    for ln in lines:
        m = re.match(r'1\.\.(\d+)\b', ln)
        if m:
            return int(m.group(1))
    return None


def plan_problem(lines, ncases):
    """'' if a kselftest run whose output is @lines reported @ncases cases,
    as many as it planned, else what is wrong: no plan, a count that
    differs (a run that stopped early, or a plan that the cases do not
    meet, which kselftest.h's ksft_finished() fails without naming a
    case), or kselftest.h's own complaint."""
    plan = ksft_plan(lines)
    if plan is None:
        return 'no plan ("1..N") in its output'
    if plan != ncases:
        return 'it planned %d cases and reported %d' % (plan, ncases)
    said = [ln for ln in lines if 'Planned tests != run tests' in ln]
    return said[0].strip() if said else ''


def decode_dump(text):
    """The statuses of a dump line: '0x3 [0 -2]x2 1' -> [0,0,0,0,-2,0,-2,1]."""
    out = []
    for m in re.finditer(r'\[(-?\d+) (-?\d+)\]x(\d+)|(-?\d+)(?:x(\d+))?',
                         text):
        if m.group(1) is not None:
            out += [int(m.group(1)), int(m.group(2))] * int(m.group(3))
        else:
            out += [int(m.group(4))] * int(m.group(5) or 1)
    return out


def parse_checks(lines):
    """(name, passed) for each 'ok - NAME' or 'not ok - NAME' line."""
    out = []
    for ln in lines:
        m = re.match(r'(not )?ok - (.+?)\s*$', ln)
        if m:
            out.append((m.group(2), not m.group(1)))
    return out


def parse_bench(lines):
    """Cases and the guest line from move_pages_bench output."""
    cases, guest, fails = {}, '', []
    for ln in lines:
        m = re.match(r'case (\S+) pages (\d+) ns_per_(page|call) ([\d.]+) '
                     r'runs ([\d.,]+)$', ln)
        if m:
            cases[m.group(1)] = {'pages': int(m.group(2)),
                                 'unit': m.group(3),
                                 'ns_per_page': float(m.group(4)),
                                 'runs': [float(x) for x in
                                          m.group(5).split(',')]}
        elif ln.startswith('guest '):
            guest = ln[len('guest '):]
        elif ln.startswith(('FAIL', 'SKIP')):
            fails.append(ln)
    return cases, guest, fails


def parse_vamap_bench(lines):
    """Cases of vamap_bench output, and its FAIL lines."""
    cases, fails = {}, []
    for ln in lines:
        m = re.match(r'vamap (\S+) size (\d+) touched (\d+) vamap_ns (\d+) '
                     r'naive_ns (\d+) identical ([01])$', ln)
        if m:
            cases[m.group(1)] = {
                'size': int(m.group(2)), 'touched': int(m.group(3)),
                'vamap_ns': int(m.group(4)), 'naive_ns': int(m.group(5)),
                'identical': m.group(6) == '1'}
        elif ln.startswith(('FAIL', 'SKIP')):
            fails.append(ln)
    return cases, fails


def parse_damon(lines):
    """What damon_test printed: the errno name of a refused `on`
    ('refused', or None), the value it read back ('measured') and what it
    expected ('expected', a list), whether it said "damon: ok" ('ok'), the
    hot set's share on node 0 over time ('shares', (ms, bp) pairs), where
    it reached the goal ('reached', (bp, ms) or None) and its FAIL lines."""
    out = {'refused': None, 'measured': None, 'expected': [], 'ok': False,
           'shares': [], 'reached': None, 'fails': []}
    for ln in lines:
        ln = ln.rstrip()
        if re.match(r'(damon|tiering): FAIL\b', ln):
            out['fails'].append(ln)
        elif ln == 'damon: ok':
            out['ok'] = True
        elif re.match(r'damon: on: E[A-Z0-9]+$', ln):
            out['refused'] = ln.split()[-1]
        elif re.match(r'damon: measured \d+$', ln):
            out['measured'] = int(ln.split()[-1])
        elif re.match(r'damon: expected( \d+)+$', ln):
            out['expected'] = [int(x) for x in ln.split()[2:]]
        elif re.match(r'tiering: t=\d+ share=\d+\b', ln):
            out['shares'].append(tuple(int(x) for x in re.findall(
                r'(?:t|share)=(\d+)', ln)))
        elif re.match(r'tiering: reached \d+ at \d+$', ln):
            out['reached'] = (int(ln.split()[2]), int(ln.split()[4]))
    return out


# damon_test placed's per-case fields that are numbers (all integers)
DAMON_PLACED_INTS = ('applies', 'insns_per_apply', 'nr_applied',
                     'sz_applied', 'migrated', 'migrate_fail', 'max_isolated')


def parse_damon_placed(lines):
    """What damon_test placed printed: {'cases': {case: {'action', 'dests'
    or 'target_nid' where given, and DAMON_PLACED_INTS}}, 'folios',
    'extra_per_folio' and 'walk_per_folio' (None if not said), 'verdict'
    ('isolates', 'skips' or None), 'refused' (the errno name of a refused
    `on`, or None) and its FAIL lines ('fails', a line that cannot be
    parsed among them)}."""
    out = {'cases': {}, 'folios': None, 'extra_per_folio': None,
           'walk_per_folio': None, 'verdict': None, 'refused': None,
           'fails': []}
    for ln in lines:
        ln = ln.rstrip()
        if re.match(r'(placed|damon): FAIL\b', ln):
            out['fails'].append(ln)
        elif re.match(r'damon: on: E[A-Z0-9]+$', ln):
            out['refused'] = ln.split()[-1]
        elif ln.startswith('placed: case='):
            f = dict(kv.split('=', 1) for kv in ln.split()[1:] if '=' in kv)
            try:
                for k in DAMON_PLACED_INTS:
                    f[k] = int(f[k])
            except (KeyError, ValueError):
                out['fails'].append('placed: cannot parse %r' % ln)
                continue
            out['cases'][f.pop('case')] = f
        elif ln.startswith('placed: folios='):
            f = dict(kv.split('=', 1) for kv in ln.split()[1:] if '=' in kv)
            try:
                out['folios'] = int(f['folios'])
                out['extra_per_folio'] = float(f['extra_per_folio'])
                out['walk_per_folio'] = float(f['walk_per_folio'])
            except (KeyError, ValueError):
                out['fails'].append('placed: cannot parse %r' % ln)
        elif re.match(r'placed: verdict=(isolates|skips)$', ln):
            out['verdict'] = ln.split('=', 1)[1]
    return out


# damon_test cost's numbers: integers, but for the per-page figures
DAMON_COST_FLOATS = ('per_page', 'insns_per_eval', 'base_per_eval')


def parse_damon_cost(lines):
    """What damon_test cost printed: ({(case, ops): {'pages', 'evals',
    'insns_per_eval', 'per_page', 'runs' (per page, each pair of runs),
    'base_per_eval' and, for sparse, 'reserved_pages'}}, {(case, ops): the
    errno name of a refused `on`}, its FAIL lines)."""
    cases, refused, fails = {}, {}, []
    for ln in lines:
        ln = ln.rstrip()
        if re.match(r'damon: FAIL\b', ln):
            fails.append(ln)
            continue
        if not ln.startswith('damon-cost: '):
            continue
        f = dict(kv.split('=', 1) for kv in ln.split()[1:] if '=' in kv)
        key = (f.pop('case', '?'), f.pop('ops', '?'))
        if 'refused' in f:
            refused[key] = f['refused']
            continue
        try:
            rec = {k: (float(v) if k in DAMON_COST_FLOATS else
                       [float(x) for x in v.split(',')] if k == 'runs' else
                       int(v)) for k, v in f.items()}
        except ValueError:
            fails.append('damon-cost: cannot parse %r' % ln)
            continue
        if not {'pages', 'evals', 'per_page', 'insns_per_eval'} <= set(rec):
            fails.append('damon-cost: incomplete %r' % ln)
            continue
        cases[key] = rec
    return cases, refused, fails
