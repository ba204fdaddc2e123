# SPDX-License-Identifier: GPL-2.0
"""Kernel configs and builds: make with ccache, and the stamps that let a
build whose inputs have not changed be skipped.
"""

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import time

from pagestat_common import (
    Failure, Phase, TOOLDIR, git, holds, read, run, say, tail, write)


def make_env(t):
    ccache = os.path.join(t.cache, 'ccache')
    env = dict(os.environ, CCACHE_DIR=ccache, CCACHE_MAXSIZE='8G',
               CCACHE_BASEDIR=t.cache, KBUILD_BUILD_USER='pagestat',
               KBUILD_BUILD_HOST='pagestat',
               KBUILD_BUILD_TIMESTAMP='Sun Nov 17 00:00:00 UTC 2024')
    return env


def make_args(t):
    return ['CC=ccache gcc', 'HOSTCC=ccache gcc']


def jobs():
    return str(os.cpu_count() or 2)


def make(t, name, srcdir, builddir, targets, extra=()):
    """Run make with progress lines; the output goes to a log."""
    log = t.log(name)
    open(log, 'w').close()
    cmd = (['make', '-C', srcdir, 'O=' + builddir, 'ARCH=x86_64',
            '-j' + jobs()] + make_args(t) + list(extra) + list(targets))
    count_file = os.path.join(builddir, '.pagestat-lines')
    try:
        with open(count_file) as f:
            expect = int(f.read())
    except (OSError, ValueError):
        expect = 0
    n, last = 0, time.monotonic()
    with open(log, 'a') as f:
        f.write('$ %s\n' % ' '.join(shlex.quote(c) for c in cmd))
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             errors='replace', env=make_env(t))
        for line in p.stdout:
            f.write(line)
            n += 1
            if time.monotonic() - last > 30:
                last = time.monotonic()
                pct = ' (~%d%%)' % min(99, 100 * n // expect) if expect > n \
                    else ''
                say('  %s: %d lines%s' % (name, n, pct))
        rc = p.wait()
    if rc:
        errs = [ln for ln in tail(log, 400).splitlines()
                if 'error' in ln.lower() or 'undefined reference' in ln][:20]
        raise Failure('build %s failed; errors:\n%s\nlast lines of %s:\n%s'
                      % (name, '\n'.join(errs), log, tail(log, 25)))
    if n > 100:
        with open(count_file, 'w') as f:
            f.write(str(n))
    return log


def tree_state(src):
    """What a build of @src depends on in it: the tree of its HEAD (not the
    commit: a new message builds nothing) and any change not committed."""
    head = git(['rev-parse', 'HEAD^{tree}'], cwd=src).strip()
    dirty = git(['status', '--porcelain'], cwd=src)
    if dirty:
        dirty += git(['diff', 'HEAD'], cwd=src)
    return head + ' ' + hashlib.sha1(dirty.encode()).hexdigest()


# Each key's inputs, hashed one by one, so that a rebuild can say which
# of them changed.
KEY_INPUTS = {}


def build_key(t, src, *parts):
    """A build's inputs, hashed: the tree, the compiler and @parts (the
    config first)."""
    _, cc = run(['gcc', '--version'], check=False)
    inputs = (tree_state(src), cc) + parts
    key = hashlib.sha1('\n'.join(inputs).encode()).hexdigest()
    KEY_INPUTS[key] = dict(zip(
        ('the tree', 'the compiler', 'the config', 'the make arguments'),
        (hashlib.sha1(i.encode()).hexdigest() for i in inputs)))
    return key


def rebuild_reason(stamp, key, inputs):
    """Why the build stamped @stamp runs again for @key: the inputs that
    differ from those of the last build, as the file @inputs recorded
    them."""
    if not os.path.exists(stamp):
        return 'first build' if not os.path.exists(inputs) else \
            'the last build failed or was stopped'
    if holds(stamp, key):
        return 'its outputs are missing'
    try:
        last = json.loads(read(inputs))
    except (OSError, ValueError):
        return 'its inputs changed'
    now = KEY_INPUTS.get(key, {})
    changed = [k for k in now if last.get(k) != now[k]]
    return '%s changed' % ' and '.join(changed or ['its inputs'])


def stamped_make(t, name, srcdir, builddir, targets, key, outputs,
                 extra=()):
    """make, unless the last make with the same @key succeeded and left
    @outputs (paths in @builddir); True if it ran."""
    stamp = os.path.join(builddir, '.pagestat-built-' + name)
    inputs = os.path.join(builddir, '.pagestat-inputs-' + name)
    if holds(stamp, key) and all(os.path.exists(os.path.join(builddir, o))
                                 for o in outputs):
        say('%s: up to date' % name)
        return False
    say('%s: %s%s' % (name, rebuild_reason(stamp, key, inputs),
                      ', building ' + ' '.join(targets) if targets else ''))
    if os.path.exists(stamp):
        os.unlink(stamp)
    write(inputs, json.dumps(KEY_INPUTS.get(key, {})))
    make(t, name, srcdir, builddir, targets, extra)
    write(stamp, key)
    return True


def config_from_fragment(t, name, srcdir, builddir, fragment, extra=()):
    """allnoconfig + fragment, checked to hold every line of the fragment."""
    os.makedirs(builddir, exist_ok=True)
    stamp = os.path.join(builddir, '.pagestat-fragment')
    want = read(fragment)
    if holds(stamp, want) and os.path.exists(os.path.join(builddir,
                                                          '.config')):
        return
    make(t, name + '-config', srcdir, builddir, ['allnoconfig'],
         ['KCONFIG_ALLCONFIG=' + fragment] + list(extra))
    with open(os.path.join(builddir, '.config')) as f:
        have_cfg = set(f.read().splitlines())
    lost = [ln for ln in want.splitlines()
            if ln.startswith('CONFIG_') and ln not in have_cfg or
            ln.startswith('# CONFIG_') and ln[2:].split()[0] + '=y'
            in have_cfg]
    if lost:
        raise Failure('%s: these options did not hold after allnoconfig '
                      '(a dependency is missing):\n  %s'
                      % (fragment, '\n  '.join(lost)))
    write(stamp, want)


# The boot kernels: stock and patched, and each with debug.config over it.
FLAVORS = ('stock', 'patched')

DEBUG_FLAVORS = ('stock-debug', 'patched-debug')

# The posted v2 on the same base (bench's third kernel, boot flavor only;
# Tree.make_v2() makes its tree).
V2_FLAVOR = 'v2'


def kernel_dirs(t, flavor):
    """The source and build directories of the boot kernel @flavor: stock
    and v2 ones from trees of their own laid out as the patched tree, so
    that they share ccache's objects with the patched ones (see Tree)."""
    if flavor.startswith('stock'):
        return t.stock_tree, os.path.join(t.stock_build, flavor)
    if flavor == V2_FLAVOR:
        return t.v2_tree, os.path.join(t.v2_build, flavor)
    return t.tree, os.path.join(t.build, flavor)


def build_kernel(t, flavor):
    """Build a boot kernel of FLAVORS, DEBUG_FLAVORS or V2_FLAVOR; return
    the bzImage path."""
    src, bdir = kernel_dirs(t, flavor)
    if flavor == V2_FLAVOR and not os.path.isdir(src):
        raise Failure('no v2 tree at %s: Tree.make_v2() makes it' % src)
    with Phase('build %s kernel' % flavor):
        frag = os.path.join(TOOLDIR, 'boot.config')
        if flavor.endswith('-debug'):
            os.makedirs(bdir, exist_ok=True)
            want = read(frag) + read(os.path.join(TOOLDIR, 'debug.config'))
            frag = os.path.join(bdir, 'fragment.config')
            if not holds(frag, want):
                write(frag, want)
        config_from_fragment(t, flavor, src, bdir, frag)
        image = os.path.join('arch', 'x86', 'boot', 'bzImage')
        key = build_key(t, src, read(os.path.join(bdir, '.config')),
                        ' '.join(make_args(t)))
        stamped_make(t, 'build-' + flavor, src, bdir, ['bzImage'], key,
                     [image])
    old = os.path.join(t.build, flavor)
    if old != bdir and os.path.isdir(old):
        say('removing %s: the %s kernel builds in %s now' % (old, flavor,
                                                             bdir))
        shutil.rmtree(old)
    return os.path.join(bdir, image)
