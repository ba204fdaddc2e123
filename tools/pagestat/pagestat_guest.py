# SPDX-License-Identifier: GPL-2.0
"""The guest programs and initramfs, and booting a kernel under qemu to run
them.
"""

import hashlib
import os
import re
import shlex
import subprocess

from pagestat_common import Failure, Phase, REPO, holds, read, run, tail, write
from pagestat_qemu import KERNEL_ARGS, QEMU_NUMA, X86_CPU, qemu_accel
from pagestat_tree import series_functions
from pagestat_build import build_kernel, make
from pagestat_parse import console_splats, parse_guest_output, splat_summary


# Userspace programs for the guest: name -> (source, extra gcc flags).
# Sources are relative to the patched tree; missing ones are skipped.
GUEST_PROGS = {
    'init': ('tools/pagestat/guest/init.c', []),
    'smoke': ('tools/pagestat/guest/smoke.c', []),
    'move_pages_bench': ('tools/mm/move_pages_bench.c', []),
    'move_pages_stat': ('tools/testing/selftests/mm/move_pages_stat.c', []),
    'move_pages_stat_32': ('tools/testing/selftests/mm/move_pages_stat.c',
                           ['-m32']),
    'numa_vamap': ('tools/mm/numa_vamap.c', []),
    'pagemap_scan_walk_end': (
        'tools/testing/selftests/mm/pagemap_scan_walk_end.c', []),
    'vamap_test': ('tools/pagestat/guest/vamap_test.c', []),
    'vamap_bench': ('tools/pagestat/guest/vamap_bench.c', []),
}


def build_guest_progs(t):
    """Build the static guest programs; return {name: path}."""
    out = os.path.join(t.build, 'guest')
    os.makedirs(out, exist_ok=True)
    # The tree's uapi headers (make headers), for 32-bit programs' <asm/...>
    hdrs = os.path.join(t.build, 'headers')
    make(t, 'headers', t.tree, hdrs, ['headers'])
    m32 = ['-idirafter', os.path.join(hdrs, 'usr', 'include')]
    built = {}
    for name, (src, flags) in sorted(GUEST_PROGS.items()):
        # The harness's own programs are not in the tree.
        root = REPO if src.startswith('tools/pagestat/') else t.tree
        path = os.path.join(root, src)
        if not os.path.exists(path):
            continue
        binary = os.path.join(out, name)
        # As the selftests Makefile: the tree's top for <lib/...> headers.
        cmd = ['gcc', '-static', '-O2', '-Wall', '-Werror', '-pthread',
               '-I', t.tree,
               '-I', os.path.join(t.tree, 'tools', 'testing', 'selftests'),
               '-o', binary, path] + flags + (m32 if '-m32' in flags
                                              else [])
        with open(path, 'rb') as f:
            key = hashlib.sha1(' '.join(cmd).encode() + f.read()).hexdigest()
        stampf = binary + '.key'
        if not (os.path.exists(binary) and holds(stampf, key)):
            run(cmd, what='gcc %s' % src)
            write(stampf, key)
        built[name] = binary
    return built


def initramfs_spec(progs):
    """usr/gen_init_cpio's list for the guest: directories, the console
    and the programs, /init the first."""
    lines = ['dir /%s 0755 0 0' % d for d in ('bin', 'dev', 'proc', 'sys',
                                              'tmp')]
    lines.append('nod /dev/console 0600 0 0 c 5 1')
    for name, path in sorted(progs.items()):
        dest = '/init' if name == 'init' else '/bin/' + name
        lines.append('file %s %s 0755 0 0' % (dest, path))
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
    write(spec, initramfs_spec(progs))
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
