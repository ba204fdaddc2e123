# SPDX-License-Identifier: GPL-2.0
"""check: checkpatch, kernel-doc, MAINTAINERS, the W=1 build, the kernel
test robot's builds and coccicheck.
"""

import hashlib
import os
import re
import shutil

from pagestat_common import Failure, Phase, git, holds, read, run, say, write
from pagestat_tree import read_series
from pagestat_build import build_key, config_from_fragment, make
from pagestat_kunit import kunit_config


def backport_of(body):
    """The upstream commit a stable backport names, or None."""
    m = re.match(r'\s*commit ([0-9a-f]{40}) upstream\.\s*$', body, re.M)
    return m.group(1)[:12] if m else None


# The base has no history to look commit ids up in, and new files are
# checked against MAINTAINERS in check() instead.
CHECKPATCH_ARGS = ['--strict', '--color=never', '--show-types', '--ignore',
                   'UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES']


def check(t, results, full=True):
    """checkpatch, MAINTAINERS, kernel-doc and the W=1 build of the touched
    objects; with @full, the robot's builds and coccicheck too."""
    tip = t.update()
    base = git(['rev-parse', 'base'], cwd=t.base).strip()
    commits = git(['rev-list', '--reverse', base + '..' + tip],
                  cwd=t.tree).split()
    with Phase('checkpatch --strict over %d commits' % len(commits)):
        # A commit id names its tree and message (fixed identities and
        # dates): a clean result is kept under it until checkpatch changes
        cpdir = os.path.join(t.cache, 'checkpatch')
        os.makedirs(cpdir, exist_ok=True)
        cpkey = hashlib.sha1(' '.join(CHECKPATCH_ARGS).encode() + b''.join(
            open(os.path.join(t.tree, 'scripts', f), 'rb').read()
            for f in ('checkpatch.pl', 'spelling.txt',
                      'const_structs.checkpatch'))).hexdigest()
        for c in commits:
            subj = git(['log', '-1', '--format=%s', c], cwd=t.tree).strip()
            stamp = os.path.join(cpdir, c)
            if holds(stamp, cpkey):
                results.record('checkpatch: ' + subj, True)
                continue
            rc, out = run(['perl', 'scripts/checkpatch.pl'] +
                          CHECKPATCH_ARGS + ['-g', c], cwd=t.tree,
                          check=False,
                          env=dict(os.environ, PATH='/usr/bin:' +
                                   os.environ.get('PATH', '')))
            ok = rc == 0 and not re.search(r'^(WARNING|ERROR|CHECK):', out,
                                           re.M)
            upstream = backport_of(git(['log', '-1', '--format=%b', c],
                                       cwd=t.tree))
            if not ok and upstream:
                # A stable backport carries upstream's patch as it was
                # merged: its style is upstream's, not ours to change.
                say('checkpatch: %s: a backport of %s, kept as merged'
                    % (subj, upstream))
                ok = True
            results.record('checkpatch: ' + subj, ok, out)
            if ok:
                write(stamp, cpkey)
    added = [f for _, files in read_series(t.repo) for f in files]
    # The kernel C sources and headers among them.
    cfiles = [f for f in added
              if f.endswith(('.c', '.h')) and not f.startswith('tools/')]
    with Phase('MAINTAINERS covers %d new files' % len(added)):
        for f in added:
            rc, out = run(['perl', 'scripts/get_maintainer.pl', '--nogit',
                           '--nogit-fallback', '--norolestats', '-f', f],
                          cwd=t.tree, check=False)
            lists = [ln for ln in out.splitlines()
                     if '@' in ln and 'linux-kernel@vger' not in ln]
            results.record('maintainers: ' + f, rc == 0 and bool(lists),
                           out)
    with Phase('kernel-doc -Wall over %d files' % len(cfiles)):
        for f in cfiles:
            rc, out = run(['perl', 'scripts/kernel-doc', '-none', '-Wall', f],
                          cwd=t.tree, check=False)
            results.record('kernel-doc: ' + f, rc == 0 and not out.strip(),
                           out)
    rsts = [f for f in added if f.endswith('.rst')]
    for f in rsts:
        refs = re.findall(r'^\.\. kernel-doc:: (\S+)', read(
            os.path.join(t.tree, f)), re.M)
        missing = [r for r in refs if not os.path.exists(
            os.path.join(t.tree, r))]
        # What a docs build would warn about: a file with nothing to show
        warns = []
        for r in refs:
            if r in missing:
                continue
            _, out = run(['perl', 'scripts/kernel-doc', '-rst', r],
                         cwd=t.tree, check=False)
            warns += [ln for ln in out.splitlines() if 'warning:' in ln]
        results.record('docs: %s kernel-doc references' % f,
                       bool(refs) and not missing and not warns,
                       'missing: %s\n%s' % (' '.join(missing),
                                            '\n'.join(warns)))
    # The new objects, and the existing ones that the patches change.
    changed = git(['diff', '--name-only', base, tip], cwd=t.tree).split()
    objs = sorted(set(f[:-2] + '.o' for f in cfiles + changed
                      if f.endswith('.c') and not f.startswith('tools/')))
    if objs:
        kconf = os.path.join(t.build, 'kunit', '.config')
        wdir = os.path.join(t.build, 'w1')
        with Phase('W=1 build of %s' % ' '.join(objs)):
            os.makedirs(wdir, exist_ok=True)
            kunit_config(t)
            new = read(kconf)
            old = os.path.join(wdir, '.config')
            if not os.path.exists(old) or read(old) != new:
                shutil.copy(kconf, old)
                make(t, 'w1-config', t.tree, wdir, ['olddefconfig'])
            # A clean result stands until tree or config change
            stamp = os.path.join(wdir, '.pagestat-clean')
            key = build_key(t, t.tree, new, ' '.join(objs))
            clean = holds(stamp, key)
            for o in objs:
                if clean:
                    results.record('W=1: ' + o, True)
                    continue
                try:
                    log = make(t, 'w1', t.tree, wdir, [o], ['W=1'])
                    warns = [ln for ln in open(log)
                             if 'warning:' in ln or 'error:' in ln]
                    results.record('W=1: ' + o, not warns, ''.join(warns))
                except Failure as e:
                    results.record('W=1: ' + o, False, str(e))
            if not clean and not any(name.startswith('W=1: ')
                                     for name, _ in results.failures):
                write(stamp, key)
    if full:
        robot_check(t, results)


def robot_slug(name):
    """What names the directories, stamps and logs of the robot's build
    @name (its build directory is robot-<slug>)."""
    return re.sub(r'\W+', '-', name.lower())


def robot_check(t, results):
    """What --full adds to check: the robot's builds and coccicheck."""
    tip = t.update()
    base = git(['rev-parse', 'base'], cwd=t.base).strip()
    robot(t, results, base, tip)


# The kernel test robot's builds: each makes the objects the series adds or
# changes that its config builds, from allnoconfig plus ROBOT_CONFIG and
# its own lines, and the same objects of the base tree (with mm/mincore.o,
# a page table walker like mm/pagestat.o, in its place), and fails on a
# warning at a line the series adds that the base build does not give too
# (the same message, whatever its line and the function it names).  Name,
# ARCH, make arguments, config lines.
ROBOT_CONFIG = ['CONFIG_SMP=y', 'CONFIG_MULTIUSER=y', 'CONFIG_PROC_FS=y',
                'CONFIG_SYSFS=y', 'CONFIG_SHMEM=y', 'CONFIG_TMPFS=y',
                'CONFIG_NUMA=y', 'CONFIG_MIGRATION=y',
                'CONFIG_TRANSPARENT_HUGEPAGE=y', 'CONFIG_HUGETLBFS=y']

X86_64_CONFIG = ['CONFIG_64BIT=y', 'CONFIG_IA32_EMULATION=y',
                 'CONFIG_COMPAT=y', 'CONFIG_ZONE_DEVICE=y',
                 'CONFIG_MEMORY_HOTPLUG=y', 'CONFIG_MEMORY_HOTREMOVE=y',
                 'CONFIG_SPARSEMEM_VMEMMAP=y', 'CONFIG_DEVICE_PRIVATE=y']

ROBOT_BUILDS = [
    ('x86_64 sparse', 'x86_64', ['C=2'], X86_64_CONFIG),
    ('x86_64 clang W=1', 'x86_64', ['LLVM=1', 'CC=ccache clang'],
     X86_64_CONFIG),
    ('arm64', 'arm64', ['CROSS_COMPILE=aarch64-linux-gnu-',
                        'CC=ccache aarch64-linux-gnu-gcc'],
     ['CONFIG_ARM64_4K_PAGES=y', 'CONFIG_COMPAT=y']),
    ('i386 PAE NUMA', 'i386', [],
     ['CONFIG_HIGHMEM64G=y', 'CONFIG_X86_PAE=y', 'CONFIG_X86_BIGSMP=y']),
    ('powerpc64le', 'powerpc', ['CROSS_COMPILE=powerpc64le-linux-gnu-',
                                'CC=ccache powerpc64le-linux-gnu-gcc'],
     ['CONFIG_PPC64=y', 'CONFIG_PPC_BOOK3S_64=y', 'CONFIG_PPC_PSERIES=y',
      'CONFIG_CPU_LITTLE_ENDIAN=y']),
    # s390 has no NUMA: only the move_pages() stubs' users are built
    ('s390x', 's390', ['CROSS_COMPILE=s390x-linux-gnu-',
                       'CC=ccache s390x-linux-gnu-gcc'],
     ['# CONFIG_NUMA is not set', 'CONFIG_COMPACTION=y']),
    ('riscv64', 'riscv', ['CROSS_COMPILE=riscv64-linux-gnu-',
                          'CC=ccache riscv64-linux-gnu-gcc'],
     ['CONFIG_64BIT=y']),
    ('x86_64 without NUMA', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_NUMA is not set']),
    ('x86_64 without THP', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_TRANSPARENT_HUGEPAGE is not set']),
    ('x86_64 without HUGETLBFS', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_HUGETLBFS is not set']),
    # THP (through COMPACTION), memory hot-remove and device memory
    # select MIGRATION
    ('x86_64 without MIGRATION', 'x86_64', [],
     ['CONFIG_64BIT=y', 'CONFIG_IA32_EMULATION=y', 'CONFIG_COMPAT=y',
      '# CONFIG_TRANSPARENT_HUGEPAGE is not set',
      '# CONFIG_COMPACTION is not set', '# CONFIG_MIGRATION is not set']),
    ('x86_64 without COMPAT', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_IA32_EMULATION is not set',
                      '# CONFIG_COMPAT is not set']),
]

# The builds that also link vmlinux: all but sparse's, which checks the
# same objects as the x86_64 builds link.  A link finds what the objects
# alone cannot: a 64-bit division that a 32-bit kernel makes a call to
# libgcc, a call into the series from a config in which the callee is a
# stub or not built.
ROBOT_LINKED = tuple(b[0] for b in ROBOT_BUILDS if b[0] != 'x86_64 sparse')
# Where the series' changes build none of ROBOT_OBJECTS.
ROBOT_UNBUILT = ('lib/kunit-tests', 'tools', 'Documentation')

# Which option builds each object the series adds or changes.
ROBOT_OBJECTS = {'mm/pagestat.o': 'CONFIG_NUMA', 'mm/migrate.o':
                 'CONFIG_MIGRATION', 'fs/proc/task_mmu.o': 'CONFIG_PROC_FS'}


def robot_fragment(lines):
    """The config: ROBOT_CONFIG with @lines over it (a later line wins)."""
    out = {}
    for ln in ROBOT_CONFIG + lines:
        m = re.match(r'(?:# )?(CONFIG_\w+)', ln)
        out[m.group(1)] = ln
    return ''.join(ln + '\n' for ln in out.values())


def added_lines(diff):
    """{path: set of line numbers} that a unified diff (-U0) adds."""
    out, path = {}, None
    for ln in diff.splitlines():
        m = re.match(r'\+\+\+ b/(.*)', ln)
        if m:
            path = m.group(1)
            continue
        m = re.match(r'@@ -\S+ \+(\d+)(?:,(\d+))? @@', ln)
        if m and path:
            first, n = int(m.group(1)), int(m.group(2) or 1)
            out.setdefault(path, set()).update(range(first, first + n))
    return out


WARNING_RE = re.compile(r'(?:\S*/)?((?:mm|fs|include|lib|arch)/\S+?):(\d+):'
                        r'(?:\d+:)? ((?:warning|error):.*)$')


def warning_kind(text):
    """A warning's message without the names it quotes."""
    return re.sub(r"'[^']*'", "'*'", text)


def new_warnings(log, added, base_log=''):
    """The warnings of a build log at lines the series adds, but those
    whose message the base build gives too."""
    known = set(warning_kind(m.group(3)) for m in map(
        WARNING_RE.match, base_log.splitlines()) if m)
    out = []
    for ln in log.splitlines():
        m = WARNING_RE.match(ln)
        if m and int(m.group(2)) in added.get(m.group(1), ()) and \
                warning_kind(m.group(3)) not in known:
            out.append(ln)
    return out


def robot(t, results, base, tip):
    """The robot's builds, each skipped when tree and config are as at its
    last clean run."""
    added = added_lines(git(['diff', '-U0', base, tip], cwd=t.tree))
    # What the robot's objects are built from: the series outside its
    # tests, tools and documentation (a KUnit change builds nothing here)
    src = hashlib.sha1(git(['diff', base, tip, '--', '.'] +
                           [':(exclude)%s' % d for d in ROBOT_UNBUILT],
                           cwd=t.tree).encode()).hexdigest()
    for name, arch, margs, lines in ROBOT_BUILDS:
        slug = robot_slug(name)
        bdir = os.path.join(t.build, 'robot-' + slug)
        os.makedirs(bdir, exist_ok=True)
        frag = os.path.join(bdir, 'fragment.config')
        want = robot_fragment(lines)
        if not holds(frag, want):
            write(frag, want)
        link = name in ROBOT_LINKED
        key = hashlib.sha1((src + want + ' '.join(margs) +
                            (' vmlinux' if link else '')).encode()
                           ).hexdigest()
        stamp = os.path.join(bdir, '.pagestat-clean')
        if holds(stamp, key):
            results.record('robot: %s' % name, True)
            if link:
                results.record('robot: %s links vmlinux' % name, True)
            continue
        args = ['ARCH=' + arch] + margs
        if 'W=1' in name or not any(a.startswith('C=') for a in margs):
            args.append('W=1')
        with Phase('robot build: %s' % name):
            try:
                config_from_fragment(t, 'robot-' + slug, t.tree, bdir, frag,
                                     args)
                cfg = read(os.path.join(bdir, '.config'))
                objs = [o for o, opt in sorted(ROBOT_OBJECTS.items())
                        if '%s=y' % opt in cfg]
                bobjs = [o for o in objs if o != 'mm/pagestat.o']
                if len(bobjs) < len(objs):
                    bobjs.append('mm/mincore.o')
                config_from_fragment(t, 'robot-base-' + slug, t.base,
                                     bdir + '-base', frag, args)
                # Built again, so that their warnings are in the logs
                for d, o in ([(bdir, o) for o in objs] +
                             [(bdir + '-base', o) for o in bobjs]):
                    if os.path.exists(os.path.join(d, o)):
                        os.unlink(os.path.join(d, o))
                log = read(make(t, 'robot-' + slug, t.tree, bdir, objs,
                                args))
                blog = read(make(t, 'robot-base-' + slug, t.base,
                                 bdir + '-base', bobjs, args))
                warns = new_warnings(log, added, blog)
                results.record('robot: %s (%s)' % (name, ' '.join(objs)),
                               not warns, '\n'.join(warns))
            except Failure as e:
                results.record('robot: %s' % name, False, str(e))
                continue
            if link:
                try:
                    make(t, 'robot-link-' + slug, t.tree, bdir, ['vmlinux'],
                         args)
                except Failure as e:
                    results.record('robot: %s links vmlinux' % name, False,
                                   str(e))
                    continue
                results.record('robot: %s links vmlinux' % name, True)
            if not warns:
                write(stamp, key)
    coccicheck(t, results)


def coccicheck(t, results):
    """make coccicheck MODE=report over each new C file of the series,
    again only when the file changed since its last clean report."""
    files = [f for _, fs in read_series(t.repo) for f in fs
             if f.endswith(('.c', '.h')) and not f.startswith('tools/')]
    bdir = os.path.join(t.build, 'robot-x86_64-sparse')
    for f in files:
        path = os.path.join(t.tree, f)
        key = hashlib.sha1(open(path, 'rb').read()).hexdigest()
        stamp = os.path.join(bdir, '.pagestat-cocci-' + f.replace('/', '-'))
        if holds(stamp, key):
            results.record('coccicheck: ' + f, True)
            continue
        with Phase('coccicheck: ' + f):
            log = read(make(t, 'coccicheck', t.tree, bdir, ['coccicheck'],
                            ['MODE=report', 'M=' + path]))
            # Report lines name the file; "should X be a metavariable"
            # is the scripts' own chatter
            hits = [ln for ln in log.splitlines()
                    if re.match(r'\S*%s:\d+:' % re.escape(f), ln)]
            results.record('coccicheck: ' + f, not hits, '\n'.join(hits))
            if not hits:
                write(stamp, key)
