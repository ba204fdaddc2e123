# SPDX-License-Identifier: GPL-2.0
"""check: checkpatch, kernel-doc, MAINTAINERS, the W=1 build, the kernel
test robot's builds and coccicheck.
"""

import hashlib
import os
import re
import shutil
import tempfile

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
            ran = checkpatch_ran(out)
            ok = ran and rc == 0 and not re.search(
                r'^(WARNING|ERROR|CHECK):', out, re.M)
            if not ran:
                # Not a verdict: no stable backport passes it either
                results.record('checkpatch: ' + subj, False,
                               'checkpatch did not check the commit (no '
                               '"total: ... lines checked" line):\n' + out)
                continue
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
    kdoc = kernel_doc_cmd(t.tree)
    with Phase('kernel-doc -Wall over %d files' % len(cfiles)):
        # A kernel-doc that does not flag a known defect checks nothing
        why = kernel_doc_canary(t.tree, kdoc)
        results.record('kernel-doc: flags an undescribed parameter',
                       not why, why)
        for f in cfiles:
            rc, out = run(kdoc + ['-none', '-Wall', f], cwd=t.tree,
                          check=False)
            results.record('kernel-doc: ' + f, rc == 0 and not out.strip(),
                           out)
    rsts = [f for f in added if f.endswith('.rst')]
    for f in rsts:
        refs = re.findall(r'^\.\. kernel-doc:: (\S+)', read(
            os.path.join(t.tree, f)), re.M)
        missing = [r for r in refs if not os.path.exists(
            os.path.join(t.tree, r))]
        # What a docs build would warn about, and a file with nothing to
        # show
        warns = []
        for r in refs:
            if r in missing:
                continue
            _, out = run(kdoc + ['-rst', r], cwd=t.tree, check=False)
            warns += kernel_doc_warnings(out)
            if not out.strip():
                warns.append('%s: kernel-doc -rst renders nothing' % r)
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
                # An object make finds up to date (or left by an older
                # config) is not compiled, and shows no warning
                if os.path.exists(os.path.join(wdir, o)):
                    os.unlink(os.path.join(wdir, o))
                try:
                    log = make(t, 'w1', t.tree, wdir, [o], ['W=1'])
                    text = read(log)
                    warns = [ln for ln in text.splitlines(True)
                             if 'warning:' in ln or 'error:' in ln]
                    if not compiled(text, o):
                        warns.append('%s was not compiled (not in the KUnit '
                                     'config?); log: %s\n' % (o, log))
                    results.record('W=1: ' + o, not warns, ''.join(warns))
                except Failure as e:
                    results.record('W=1: ' + o, False, str(e))
            if not clean and not any(name.startswith('W=1: ')
                                     for name, _ in results.failures):
                write(stamp, key)
    if full:
        robot_check(t, results)


def checkpatch_ran(out):
    """Whether checkpatch's output @out shows that it checked some lines
    (its "total: ... N lines checked", N > 0), and did not just stop."""
    m = re.search(r'^total: \d+ errors, \d+ warnings, (?:\d+ checks, )?'
                  r'(\d+) lines checked$', out, re.M)
    return bool(m) and int(m.group(1)) > 0


def kernel_doc_cmd(tree):
    """How to run @tree's scripts/kernel-doc: on 7.3 a link to the Python
    tools/docs/kernel-doc (which "perl scripts/kernel-doc" runs only by
    perl's handing a foreign #! line over), a Perl script on older
    trees."""
    with open(os.path.join(tree, 'scripts', 'kernel-doc'),
              errors='replace') as f:
        first = f.readline()
    return ['python3' if 'python' in first else 'perl', 'scripts/kernel-doc']


def kernel_doc_warnings(out):
    """kernel-doc's warnings and errors in @out: "warning:" from the Perl
    script, "Warning:" and "Error:" from the Python one."""
    return [ln for ln in out.splitlines()
            if re.search(r'\b(warning|error)\b', ln, re.I)]


# A function with an undescribed parameter, which kernel-doc -Wall must
# flag: else it checks nothing, and every file passes.
KERNEL_DOC_CANARY = """/**
 * pagestat_canary() - a function with a parameter left out
 * @a: the one described
 *
 * Return: the sum.
 */
int pagestat_canary(int a, int b)
{
\treturn a + b;
}
"""


def kernel_doc_canary(tree, kdoc):
    """'' if kernel-doc -Wall flags the canary's parameter, else why
    not."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'canary.c')
        write(path, KERNEL_DOC_CANARY)
        rc, out = run(kdoc + ['-none', '-Wall', path], cwd=tree,
                      check=False)
    if any("'b'" in ln for ln in kernel_doc_warnings(out)):
        return ''
    return ('%s -none -Wall did not flag the undescribed parameter b of a '
            'known-bad file (exit %d), so it checks nothing:\n%s'
            % (' '.join(kdoc), rc, out))


def compiled(log, obj, verb='CC'):
    """Whether kbuild's quiet log @log shows @obj compiled (verb CC) or
    its source checked (verb CHECK, naming the .c file)."""
    name = obj if verb == 'CC' else obj[:-2] + '.c'
    return re.search(r'^\s*%s(?:\s+\[M\])?\s+(?:\S*/)?%s$'
                     % (verb, re.escape(name)), log, re.M) is not None


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
# ARCH, make arguments, config lines.  Every line of a config must hold
# after allnoconfig (config_from_fragment() checks), so a "# ... is not
# set" line is checked too.  On 7.3 MIGRATION has no prompt: move_pages()
# and mm/pagestat.o are built under NUMA_MIGRATION, which selects it.
ROBOT_CONFIG = ['CONFIG_SMP=y', 'CONFIG_MULTIUSER=y', 'CONFIG_PROC_FS=y',
                'CONFIG_SYSFS=y', 'CONFIG_SHMEM=y', 'CONFIG_TMPFS=y',
                'CONFIG_NUMA=y', 'CONFIG_NUMA_MIGRATION=y',
                'CONFIG_MIGRATION=y', 'CONFIG_TRANSPARENT_HUGEPAGE=y',
                'CONFIG_HUGETLBFS=y']

X86_64_CONFIG = ['CONFIG_64BIT=y', 'CONFIG_IA32_EMULATION=y',
                 'CONFIG_COMPAT=y', 'CONFIG_ZONE_DEVICE=y',
                 'CONFIG_MEMORY_HOTPLUG=y', 'CONFIG_MEMORY_HOTREMOVE=y',
                 'CONFIG_SPARSEMEM_VMEMMAP=y', 'CONFIG_DEVICE_PRIVATE=y']

# Without the feature: no NUMA_MIGRATION, so no move_pages() and no
# mm/pagestat.o.
NO_FEATURE = ['# CONFIG_NUMA_MIGRATION is not set']

# Every option of 7.3 that selects MIGRATION (each "select MIGRATION" of
# mm/Kconfig: NUMA_MIGRATION, COMPACTION, MEMORY_HOTREMOVE,
# MEMORY_FAILURE, CMA), and THP, which selects COMPACTION; ZONE_DEVICE
# depends on MEMORY_HOTREMOVE.
NO_MIGRATION = NO_FEATURE + [
    '# CONFIG_TRANSPARENT_HUGEPAGE is not set',
    '# CONFIG_COMPACTION is not set', '# CONFIG_MEMORY_HOTREMOVE is not set',
    '# CONFIG_MEMORY_FAILURE is not set', '# CONFIG_CMA is not set',
    '# CONFIG_MIGRATION is not set']

# 7.3's kbuild needs clang 17 or later (scripts/min-tool-version.sh);
# Debian 12's clang is 14, its clang-19 is 19.  LLVM=-19 names every LLVM
# tool with that suffix (Documentation/kbuild/llvm.rst); the config lines
# check that kbuild took clang and lld.
CLANG = ['LLVM=-19', 'CC=ccache clang-19']

ROBOT_BUILDS = [
    ('x86_64 sparse', 'x86_64', ['C=2'], X86_64_CONFIG),
    ('x86_64 clang W=1', 'x86_64', CLANG,
     X86_64_CONFIG + ['CONFIG_CC_IS_CLANG=y', 'CONFIG_LD_IS_LLD=y']),
    ('arm64', 'arm64', ['CROSS_COMPILE=aarch64-linux-gnu-',
                        'CC=ccache aarch64-linux-gnu-gcc'],
     ['CONFIG_ARM64_4K_PAGES=y', 'CONFIG_COMPAT=y']),
    # 32-bit x86 has no NUMA on 7.3: the feature is not built there, only
    # mm/migrate.o and fs/proc/task_mmu.o (and the link)
    ('i386 PAE', 'i386', [],
     ['# CONFIG_NUMA is not set'] + NO_FEATURE +
     ['CONFIG_HIGHMEM4G=y', 'CONFIG_X86_PAE=y']),
    ('powerpc64le', 'powerpc', ['CROSS_COMPILE=powerpc64le-linux-gnu-',
                                'CC=ccache powerpc64le-linux-gnu-gcc'],
     ['CONFIG_PPC64=y', 'CONFIG_PPC_BOOK3S_64=y', 'CONFIG_PPC_PSERIES=y',
      'CONFIG_CPU_LITTLE_ENDIAN=y']),
    # 7.3's s390 has NUMA (6.12's had none), under SCHED_TOPOLOGY: the
    # one big-endian build of the feature
    ('s390x', 's390', ['CROSS_COMPILE=s390x-linux-gnu-',
                       'CC=ccache s390x-linux-gnu-gcc'],
     ['CONFIG_SCHED_TOPOLOGY=y']),
    ('riscv64', 'riscv', ['CROSS_COMPILE=riscv64-linux-gnu-',
                          'CC=ccache riscv64-linux-gnu-gcc'],
     ['CONFIG_64BIT=y']),
    ('x86_64 without NUMA', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_NUMA is not set'] + NO_FEATURE),
    ('x86_64 without THP', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_TRANSPARENT_HUGEPAGE is not set']),
    ('x86_64 without HUGETLBFS', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_HUGETLBFS is not set']),
    # No huge leaves at all (PGTABLE_HAS_HUGE_LEAVES off): the PMD and PUD
    # leaf helpers, such as vm_normal_page_pmd(), are not built
    ('x86_64 without huge pages', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_TRANSPARENT_HUGEPAGE is not set',
                      '# CONFIG_HUGETLBFS is not set',
                      '# CONFIG_PGTABLE_HAS_HUGE_LEAVES is not set']),
    # NUMA without NUMA_MIGRATION or anything else that selects MIGRATION
    ('x86_64 without MIGRATION', 'x86_64', [],
     ['CONFIG_64BIT=y', 'CONFIG_IA32_EMULATION=y', 'CONFIG_COMPAT=y'] +
     NO_MIGRATION),
    ('x86_64 without COMPAT', 'x86_64', [],
     X86_64_CONFIG + ['# CONFIG_IA32_EMULATION is not set',
                      '# CONFIG_COMPAT is not set']),
]

# Why a build does not build the feature, for its result line.
ROBOT_NO_FEATURE = {
    'i386 PAE': '32-bit x86 has no NUMA on 7.3',
    'x86_64 without NUMA': 'no NUMA',
    'x86_64 without MIGRATION': 'no NUMA_MIGRATION',
}

# The builds that also link vmlinux: all but sparse's, which checks the
# same objects as the x86_64 builds link.  A link finds what the objects
# alone cannot: a 64-bit division that a 32-bit kernel makes a call to
# libgcc, a call into the series from a config in which the callee is a
# stub or not built.
ROBOT_LINKED = tuple(b[0] for b in ROBOT_BUILDS if b[0] != 'x86_64 sparse')
# Where the series' changes build none of ROBOT_OBJECTS.
ROBOT_UNBUILT = ('lib/kunit-tests', 'tools', 'Documentation')

# Which option builds each object the series adds or changes (checked
# against the tree's Makefiles by robot_objects_hold()).
ROBOT_OBJECTS = {'mm/pagestat.o': 'CONFIG_NUMA_MIGRATION',
                 'mm/migrate.o': 'CONFIG_MIGRATION',
                 'fs/proc/task_mmu.o': 'CONFIG_PROC_FS'}

# The object that is the feature.
FEATURE_OBJECT = 'mm/pagestat.o'


def robot_objects_hold(tree):
    """'' if every object of ROBOT_OBJECTS whose directory's Makefile has
    an "obj-$(CONFIG_...) += name.o" line has it under the option
    ROBOT_OBJECTS names, else what differs."""
    bad = []
    for obj, opt in sorted(ROBOT_OBJECTS.items()):
        d, name = os.path.split(obj)
        mk = os.path.join(tree, d, 'Makefile')
        text = read(mk) if os.path.exists(mk) else ''
        got = re.findall(r'^obj-\$\((CONFIG_\w+)\)\s*\+?=.*\b%s\b'
                         % re.escape(name), text, re.M)
        if got and opt not in got:
            bad.append('%s is built under %s (%s/Makefile), not %s'
                       % (obj, ' or '.join(got), d, opt))
    return '\n'.join(bad)


def sparse_valid(tree):
    """'' if the tree's kbuild would run sparse for C=2, else why not: 7.3's
    Makefile runs scripts/checker-valid.sh and, if sparse fails it, turns
    C=2 off with only a make warning (Debian 12's sparse 0.6.4 does not
    know __typeof_unqual__)."""
    if not shutil.which('sparse'):
        return 'sparse is not installed'
    script = os.path.join(tree, 'scripts', 'checker-valid.sh')
    if not os.path.exists(script):
        return ''
    _, out = run(['sh', script, 'sparse'], cwd=tree, check=False)
    if out.strip() == '1':
        return ''
    _, ver = run(['sparse', '--version'], check=False)
    return ('sparse %s fails the tree\'s scripts/checker-valid.sh (too old '
            'for it), so C=2 would check nothing' % ver.strip())


def robot_not_run(t):
    """The build directories of the robot's builds that robot_check() does
    not build on @t's tree: a checker's (C=) that cannot run there."""
    dirs = ['robot-' + robot_slug(b[0]) for b in ROBOT_BUILDS
            if any(a.startswith('C=') for a in b[2])]
    return dirs if sparse_valid(t.tree) else []


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


def robot_label(name, want, objs=None):
    """The result line of the robot's build @name of fragment @want (and
    objects @objs): it says when the build has no feature to build."""
    label = 'robot: ' + name
    if objs is not None:
        label += ' (%s)' % ' '.join(objs)
    if NO_FEATURE[0] in want.splitlines():
        label += ': the feature (%s) is not built here: %s' % (
            FEATURE_OBJECT, ROBOT_NO_FEATURE.get(name, 'no NUMA_MIGRATION'))
    return label


def robot_not_built(name, want, log, objs, verb):
    """What is wrong with the build @name's @log of @objs: no object to
    build, the feature's object missing from a config that has it, or an
    object that was not compiled (verb CC) or checked (CHECK)."""
    why = []
    if not objs:
        why.append('its config builds none of %s'
                   % ' '.join(sorted(ROBOT_OBJECTS)))
    elif FEATURE_OBJECT not in objs and NO_FEATURE[0] not in \
            want.splitlines():
        why.append('its config does not build %s' % FEATURE_OBJECT)
    why += ['%s was not %s' % (o, 'compiled' if verb == 'CC' else
                               'checked by sparse')
            for o in objs if not compiled(log, o, verb)]
    if 'specified, but' in log and 'not up to date' in log:
        why.append('kbuild turned the checker off: ' + ' '.join(
            ln for ln in log.splitlines() if 'not up to date' in ln))
    return why


def robot(t, results, base, tip):
    """The robot's builds, each skipped when tree and config are as at its
    last clean run."""
    added = added_lines(git(['diff', '-U0', base, tip], cwd=t.tree))
    why = robot_objects_hold(t.tree)
    results.record('robot: the objects and their options match the '
                   'Makefiles', not why, why)
    if why:
        coccicheck(t, results)
        return
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
        checker = any(a.startswith('C=') for a in margs)
        if checker:
            # A checker that kbuild turns off checks nothing: not a pass
            why = sparse_valid(t.tree)
            if why:
                say('NOT RUN %s: %s (counted as skipped)'
                    % (robot_label(name, want), why))
                results.add(0, 0, 1)
                continue
        key = hashlib.sha1((src + want + ' '.join(margs) +
                            (' vmlinux' if link else '')).encode()
                           ).hexdigest()
        stamp = os.path.join(bdir, '.pagestat-clean')
        if holds(stamp, key):
            results.record(robot_label(name, want), True)
            if link:
                results.record('robot: %s links vmlinux' % name, True)
            continue
        args = ['ARCH=' + arch] + margs
        if 'W=1' in name or not checker:
            args.append('W=1')
        with Phase('robot build: %s' % name):
            try:
                config_from_fragment(t, 'robot-' + slug, t.tree, bdir, frag,
                                     args)
                cfg = read(os.path.join(bdir, '.config'))
                objs = [o for o, opt in sorted(ROBOT_OBJECTS.items())
                        if '%s=y' % opt in cfg]
                bobjs = [o for o in objs if o != FEATURE_OBJECT]
                if len(bobjs) < len(objs):
                    bobjs.append('mm/mincore.o')
                config_from_fragment(t, 'robot-base-' + slug, t.base,
                                     bdir + '-base', frag, args)
                # Built again, so that their warnings are in the logs
                for d, o in ([(bdir, o) for o in objs] +
                             [(bdir + '-base', o) for o in bobjs]):
                    if os.path.exists(os.path.join(d, o)):
                        os.unlink(os.path.join(d, o))
                # make with no target would build the whole kernel
                logf = make(t, 'robot-' + slug, t.tree, bdir, objs,
                            args) if objs else ''
                log = read(logf) if logf else ''
                blog = read(make(t, 'robot-base-' + slug, t.base,
                                 bdir + '-base', bobjs, args)) \
                    if bobjs else ''
                bad = robot_not_built(name, want, log, objs,
                                      'CHECK' if checker else 'CC')
                warns = new_warnings(log, added, blog)
                results.record(robot_label(name, want, objs),
                               not warns and not bad,
                               '\n'.join(bad + warns) +
                               ('\nlog: %s' % logf if bad else ''))
            except Failure as e:
                results.record(robot_label(name, want), False, str(e))
                continue
            if bad:
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


def cocci_reports(tree):
    """The semantic patches of @tree that coccicheck MODE=report runs."""
    top = os.path.join(tree, 'scripts', 'coccinelle')
    out = []
    for d, _, fs in os.walk(top):
        for f in fs:
            if f.endswith('.cocci') and re.search(
                    r'^virtual\s+report\b', read(os.path.join(d, f)), re.M):
                out.append(os.path.relpath(os.path.join(d, f), tree))
    return sorted(out)


def cocci_ran(log, path, reports):
    """'' if coccicheck's @log shows spatch run over @path with each of
    the semantic patches @reports (but those it skipped for a newer
    coccinelle, which are named), else what it ran."""
    ran = {r[r.find('scripts/coccinelle/'):] for r in re.findall(
        r'^\S*spatch .*--cocci-file (\S+) .*--dir %s(?:\s|$)'
        % re.escape(path), log, re.M)}
    skipped = re.findall(r'^Skipping coccinelle SmPL patch: (\S+)', log,
                         re.M)
    if skipped:
        say('coccicheck: %d semantic patches need a newer coccinelle, not '
            'run: %s' % (len(skipped), ' '.join(skipped)))
    if not ran:
        return 'spatch never ran over %s' % path
    if len(ran) + len(skipped) < len(reports):
        return ('spatch ran %d of the %d semantic patches of report mode '
                'over %s' % (len(ran), len(reports), path))
    return ''


def coccicheck(t, results):
    """make coccicheck MODE=report over each new C file of the series,
    again only when the file changed since its last clean report.  On 7.3
    "M=FILE" alone makes kbuild change into the output directory FILE;
    MO= names another, and coccicheck's --dir is the file, as before."""
    files = [f for _, fs in read_series(t.repo) for f in fs
             if f.endswith(('.c', '.h')) and not f.startswith('tools/')]
    bdir = os.path.join(t.build, 'coccicheck')
    mo = os.path.join(bdir, 'extmod')
    os.makedirs(mo, exist_ok=True)
    reports = cocci_reports(t.tree)
    _, version = run(['spatch', '--version'], check=False)
    for f in files:
        path = os.path.join(t.tree, f)
        key = hashlib.sha1(open(path, 'rb').read() + version.encode() +
                           ' '.join(reports).encode()).hexdigest()
        stamp = os.path.join(bdir, '.pagestat-cocci-' + f.replace('/', '-'))
        if holds(stamp, key):
            results.record('coccicheck: ' + f, True)
            continue
        with Phase('coccicheck: ' + f):
            try:
                logf = make(t, 'coccicheck', t.tree, bdir, ['coccicheck'],
                            ['MODE=report', 'M=' + path, 'MO=' + mo])
            except Failure as e:
                results.record('coccicheck: ' + f, False, str(e))
                continue
            log = read(logf)
            # Report lines name the file; "should X be a metavariable"
            # is the scripts' own chatter
            hits = [ln for ln in log.splitlines()
                    if re.match(r'\S*%s:\d+:' % re.escape(f), ln)]
            why = cocci_ran(log, path, reports)
            results.record('coccicheck: ' + f, not hits and not why,
                           '\n'.join(hits + ([why, 'log: ' + logf]
                                              if why else [])))
            if not hits and not why:
                write(stamp, key)
