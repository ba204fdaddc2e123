# SPDX-License-Identifier: GPL-2.0
"""The guest programs and initramfs, and booting a kernel under qemu to run
them.
"""

import hashlib
import os
import re
import shlex
import subprocess

from pagestat_common import (
    NOT_OVERLAY, REPO, Failure, Phase, holds, read, run, tail, write)
from pagestat_qemu import KERNEL_ARGS, QEMU_NUMA, X86_CPU, qemu_accel
from pagestat_tree import series_functions
from pagestat_build import build_kernel, make
from pagestat_parse import console_splats, parse_guest_output, splat_summary


MM_TESTS = 'tools/testing/selftests/mm/'

# Userspace programs for the guest: name -> (source or sources, extra gcc
# flags).  The harness's own sources (under a tooling directory of
# NOT_OVERLAY: tools/pagestat/, tools/numa_vamap/) are the repository's,
# the others the patched tree's.  A missing source fails the build of the
# guest programs, and so the run.
GUEST_PROGS = {
    'init': ('tools/pagestat/guest/init.c', []),
    'smoke': ('tools/pagestat/guest/smoke.c', []),
    'move_pages_bench': ('tools/pagestat/guest/move_pages_bench.c', []),
    'move_pages_stat': ('tools/testing/selftests/mm/move_pages_stat.c', []),
    # As tools/testing/selftests/mm/Makefile builds its _32 programs
    'move_pages_stat_32': ('tools/testing/selftests/mm/move_pages_stat.c',
                           ['-m32', '-mxsave', '-no-pie']),
    'numa_vamap': ('tools/numa_vamap/numa_vamap.c', []),
    'vamap_test': ('tools/pagestat/guest/vamap_test.c', []),
    'vamap_bench': ('tools/pagestat/guest/vamap_bench.c', []),
    # DAMON's node_eligible_mem_bp goal on a vaddr target, through sysfs
    'damon_test': ('tools/pagestat/guest/damon_test.c', []),
    # hwloc, a real client of the status query (Debian's libhwloc)
    'hwloc_test': ('tools/pagestat/guest/hwloc_test.c', ['-lhwloc']),
    # The kernel's own selftests of what the series changes, from the
    # tree's sources, linked as 7.3's tools/testing/selftests/mm/Makefile
    # links them: "$(TEST_GEN_FILES): vm_util.c hugepage_settings.c",
    # LDLIBS -lrt -lpthread -lm, and -lnuma for migration (checked against
    # the tree's Makefile by selftest_link_problems())
    'migration': ((MM_TESTS + 'migration.c', MM_TESTS + 'vm_util.c',
                   MM_TESTS + 'hugepage_settings.c'),
                  ['-lrt', '-lpthread', '-lm', '-lnuma']),
    'pagemap_ioctl': ((MM_TESTS + 'pagemap_ioctl.c', MM_TESTS + 'vm_util.c',
                       MM_TESTS + 'hugepage_settings.c'),
                      ['-lrt', '-lpthread', '-lm']),
}

# Upstream's own code, built as upstream builds it: without -Werror, with
# the flags of 7.3's selftests lib.mk and mm Makefile that change the
# code (lib.mk defines _GNU_SOURCE for every selftest).
KERNEL_SELFTESTS = ('migration', 'pagemap_ioctl')
SELFTEST_CFLAGS = ['-D_GNU_SOURCE=', '-U_FORTIFY_SOURCE']

# Linked against shared libraries, which the initramfs then carries:
# Debian's libhwloc.a needs a static libudev, which Debian does not ship.
DYNAMIC_PROGS = ('hwloc_test',)

# The directories of the harness's own sources, not in the kernel tree.
REPO_DIRS = tuple(p for p in NOT_OVERLAY if p.endswith('/'))


def prog_sources(t, srcs):
    """The paths of the sources @srcs of a guest program: the harness's own
    from the repository, the rest from the patched tree."""
    return [os.path.join(REPO if src.startswith(REPO_DIRS) else t.tree, src)
            for src in srcs]


def selftest_link_problems(tree, progs=KERNEL_SELFTESTS):
    """How the sources and libraries of GUEST_PROGS' kernel selftests
    @progs differ from what @tree's tools/testing/selftests/mm/Makefile
    links each with (its "$(TEST_GEN_FILES): ..." and
    "$(OUTPUT)/prog: ..." prerequisites, its LDLIBS and
    "$(OUTPUT)/prog: LDLIBS += ..."), as lines; none if they agree."""
    mk = os.path.join(tree, MM_TESTS, 'Makefile')
    if not os.path.exists(mk):
        return ['%s is missing' % os.path.join(MM_TESTS, 'Makefile')]
    text = read(mk)
    common = set()
    for m in re.finditer(r'^\$\(TEST_GEN_FILES\):(.*)$', text, re.M):
        common.update(m.group(1).split())
    libs = set()
    for m in re.finditer(r'^LDLIBS\s*:?=(.*)$', text, re.M):
        libs = set(m.group(1).split())
    out = []
    for prog in progs:
        srcs, flags = GUEST_PROGS[prog]
        want = {MM_TESTS + prog + '.c'} | {MM_TESTS + s for s in common}
        want_libs = set(libs)
        for m in re.finditer(r'^\$\(OUTPUT\)/%s:(.*)$' % re.escape(prog),
                             text, re.M):
            rest = m.group(1).split()
            if rest[:2] == ['LDLIBS', '+=']:
                want_libs.update(rest[2:])
            else:
                want.update(MM_TESTS + s for s in rest if s.endswith('.c'))
        have_libs = {f for f in flags if f.startswith('-l')}
        if set(srcs) != want:
            out.append('%s: the Makefile links %s, the harness %s' % (
                prog, ' '.join(sorted(want)), ' '.join(sorted(srcs))))
        if have_libs != want_libs:
            out.append('%s: the Makefile links %s, the harness %s' % (
                prog, ' '.join(sorted(want_libs)),
                ' '.join(sorted(have_libs))))
    return out


def build_guest_progs(t):
    """Build the static guest programs; return {name: path}."""
    out = os.path.join(t.build, 'guest')
    os.makedirs(out, exist_ok=True)
    # The tree's uapi headers (make headers), for 32-bit programs' <asm/...>
    hdrs = os.path.join(t.build, 'headers')
    make(t, 'headers', t.tree, hdrs, ['headers'])
    m32 = ['-idirafter', os.path.join(hdrs, 'usr', 'include')]
    built = {}
    missing = ['%s: %s' % (name, p)
               for name, (srcs, _) in sorted(GUEST_PROGS.items())
               for p in prog_sources(t, (srcs,) if isinstance(srcs, str)
                                     else srcs)
               if not os.path.exists(p)]
    if missing:
        raise Failure('guest programs without their sources (moved or '
                      'renamed?):\n  ' + '\n  '.join(missing))
    problems = selftest_link_problems(t.tree)
    if problems:
        raise Failure('the kernel selftests are not built as the tree\'s '
                      'Makefile builds them:\n  ' + '\n  '.join(problems))
    for name, (srcs, flags) in sorted(GUEST_PROGS.items()):
        srcs = (srcs,) if isinstance(srcs, str) else srcs
        paths = prog_sources(t, srcs)
        binary = os.path.join(out, name)
        # As the selftests Makefile: the tree's top for <lib/...> headers,
        # the kernel's selftests its uapi headers (KHDR_INCLUDES).
        cmd = (['gcc'] + ([] if name in DYNAMIC_PROGS else ['-static']) +
               ['-O2', '-Wall'] +
               ([] if name in KERNEL_SELFTESTS else ['-Werror']) +
               ['-pthread', '-I', t.tree,
                '-I', os.path.join(t.tree, 'tools', 'testing', 'selftests')] +
               (SELFTEST_CFLAGS +
                ['-isystem', os.path.join(hdrs, 'usr', 'include'),
                 '-isystem', os.path.join(t.tree, 'tools', 'include', 'uapi'),
                 # Files they name after __FILE__ go to the guest's /tmp
                 '-fmacro-prefix-map=%s=/tmp' %
                 os.path.join(t.tree, MM_TESTS.rstrip('/'))]
                if name in KERNEL_SELFTESTS else []) +
               ['-o', binary] + paths + flags +
               (m32 if '-m32' in flags else []))
        h = hashlib.sha1(' '.join(cmd).encode())
        for path in paths:
            with open(path, 'rb') as f:
                h.update(f.read())
        key = h.hexdigest()
        stampf = binary + '.key'
        if not (os.path.exists(binary) and holds(stampf, key)):
            run(cmd, what='gcc %s' % ' '.join(srcs))
            write(stampf, key)
        built[name] = binary
    return built


def shared_libs(progs):
    """The shared libraries and loader that the dynamic programs of
    @progs load, as ldd names them."""
    libs = set()
    for name in DYNAMIC_PROGS:
        if name not in progs:
            continue
        p = subprocess.run(['ldd', progs[name]], capture_output=True,
                           text=True)
        if p.returncode:
            raise Failure('ldd %s failed: %s' % (progs[name], p.stderr))
        libs.update(re.findall(r'(/\S+) \(0x', p.stdout))
    return sorted(libs)


def initramfs_spec(progs, libs=()):
    """usr/gen_init_cpio's list for the guest: directories, the console,
    the programs, /init the first, and the shared libraries @libs at the
    paths the loader looks for them, from the files they link to here."""
    dirs = ['/bin', '/dev', '/proc', '/sys', '/tmp']
    for lib in libs:
        d = os.path.dirname(lib)
        while d != '/' and d not in dirs:
            dirs.append(d)
            d = os.path.dirname(d)
    lines = ['dir %s 0755 0 0' % d for d in sorted(dirs)]
    lines.append('nod /dev/console 0600 0 0 c 5 1')
    for name, path in sorted(progs.items()):
        dest = '/init' if name == 'init' else '/bin/' + name
        lines.append('file %s %s 0755 0 0' % (dest, path))
    for lib in libs:
        lines.append('file %s %s 0755 0 0' % (lib, os.path.realpath(lib)))
    return ''.join(ln + '\n' for ln in lines)


def make_initramfs(t, progs):
    """The guest's initramfs, written by the tree's own usr/gen_init_cpio
    (built here from its one source file), every mtime 0."""
    d = os.path.join(t.build, 'guest')
    src = os.path.join(t.tree, 'usr', 'gen_init_cpio.c')
    tool = os.path.join(d, 'gen_init_cpio')
    with open(src, 'rb') as f:
        key = hashlib.sha1(f.read()).hexdigest()
    if not (os.path.exists(tool) and holds(tool + '.key', key)):
        run(['gcc', '-O2', '-o', tool, src], what='gcc usr/gen_init_cpio.c')
        write(tool + '.key', key)
    spec = os.path.join(d, 'initramfs.list')
    write(spec, initramfs_spec(progs, shared_libs(progs)))
    path = os.path.join(d, 'initramfs.cpio')
    with open(path, 'wb') as f:
        p = subprocess.run([tool, '-t', '0', spec], stdout=f,
                           stderr=subprocess.PIPE, text=True)
    if p.returncode:
        raise Failure('gen_init_cpio failed: %s' % p.stderr)
    return path


def console_failure(text):
    """What a console log's splats fail a run with, or '': each splat's
    first line and first frames, and whether any frame is the series'."""
    splats = console_splats(text)
    if not splats:
        return ''
    return splat_summary(text, series_functions()) or '\n'.join(splats[:20])


def check_console(flavor, con):
    """Fail a run whose console log @con holds a splat."""
    msg = console_failure(read(con))
    if msg:
        raise Failure('%s kernel warned (%s):\n%s' % (flavor, con, msg))


def boot(t, flavor, kernel, initrd, argv, timeout=600, icount=False,
         cpu=X86_CPU, kargs=KERNEL_ARGS, numa=QEMU_NUMA, tag=None):
    """Boot a kernel, run argv in the guest; return (status, output).

    Its console and output files are named by @tag (default: @flavor),
    which two guests running at once must not share."""
    d = os.path.join(t.build, 'guest')
    con = os.path.join(t.logs, 'console-%s.log' % (tag or flavor))
    outf = os.path.join(d, 'out-%s.txt' % (tag or flavor))
    for p in (con, outf):
        if os.path.exists(p):
            os.unlink(p)
    cmdline = ['console=ttyS0', 'panic=-1', 'oops=panic',
               'rdinit=/init'] + list(kargs) + ['--'] + argv
    cmd = (['qemu-system-x86_64', '-nodefaults', '-no-reboot', '-display',
            'none', '-accel', qemu_accel(), '-cpu', cpu] + numa +
           ['-kernel', kernel, '-initrd', initrd,
            '-append', ' '.join(cmdline),
            '-serial', 'file:' + con, '-serial', 'file:' + outf])
    if icount:
        cmd += ['-icount', 'shift=0']
    with open(con + '.cmd', 'w') as f:
        f.write(' '.join(shlex.quote(c) for c in cmd) + '\n')
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        qout, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Failure('%s guest hung (no exit after %ds); console tail '
                      '(%s):\n%s' % (flavor, timeout, con, tail(con, 30)))
    if p.returncode:
        raise Failure('qemu failed (exit %d):\n%s' % (p.returncode, qout))
    with open(outf, errors='replace') as f:
        status, body = parse_guest_output(f.read())
    check_console(flavor, con)
    if status is None:
        raise Failure('%s guest died before the program finished; console '
                      'tail (%s):\n%s' % (flavor, con, tail(con, 30)))
    return status, body


def guest_setup(t, flavors):
    t.update()
    kernels = {f: build_kernel(t, f) for f in flavors}
    with Phase('build guest programs'):
        progs = build_guest_progs(t)
        initrd = make_initramfs(t, progs)
    return kernels, progs, initrd


def guest_run(t, results, label, flavor, kernel, initrd, argv, **kw):
    """Boot @flavor and run @argv; keep the output in the logs.

    Returns (status, output lines), or None after recording a failed boot
    (hang, panic, console warning) as a failure named @label.
    """
    tag = '%s-%s' % (flavor, os.path.basename(argv[0]))
    with Phase('boot %s kernel: %s' % (flavor, ' '.join(argv))):
        try:
            status, body = boot(t, flavor, kernel, initrd, argv, tag=tag,
                                **kw)
        except Failure as e:
            results.record(label, False, str(e))
            return None
    name = re.sub(r'[^A-Za-z0-9.-]+', '-', label).strip('-')
    with open(os.path.join(t.logs, name + '.txt'), 'w') as f:
        f.write('\n'.join(body) + '\n')
    return status, body
