# SPDX-License-Identifier: GPL-2.0
"""What every part of the harness shares: where things are, errors, output,
files, processes and git, the packages it installs, and the record of
results.
"""

import os
import shlex
import shutil
import subprocess
import threading
import time


REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))

TOOLDIR = os.path.join(REPO, 'tools', 'pagestat')

# The base: Debian's linux-source-7.3 (trixie-backports), an 'all' package
# that a Debian 12 machine fetches with apt through a sources list of the
# harness's own, the system's sources untouched.
BASE_PACKAGE = 'linux-source-7.3'
BASE_SUITE = 'trixie-backports'
BASE_MIRROR = 'http://deb.debian.org/debian'
BASE_KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg'
BASE_SLUG = 'linux-7.3'

# Repository files that are project tooling, not kernel changes.
NOT_OVERLAY = ('README.md', '.ci/', 'patches/', 'tools/pagestat/',
               'tools/numa_vamap/',
               '.kunitconfig', '.gitignore', '.gitattributes')

# Commits are made with fixed identities and dates, so that the same
# inputs give the same commit ids and the same exported series.
BASE_IDENT = ('pagestat', 'pagestat@localhost', '1731888000 +0000')

DEFAULT_AUTHOR = ('pagestat developers', 'pagestat@example.org')

# What the harness needs, as (Debian package, how to tell it is there).
PACKAGES = [
    ('git', 'cmd:git'), ('make', 'cmd:make'), ('gcc', 'cmd:gcc'),
    ('libc6-dev', 'file:/usr/lib/x86_64-linux-gnu/libc.a'),
    # Not gcc-multilib, which conflicts with every cross compiler below:
    # 32-bit programs take <asm/...> from the tree's make headers.
    ('gcc-12-multilib', 'file:/usr/lib/gcc/x86_64-linux-gnu/12/32/libgcc.a'),
    ('libc6-dev-i386', 'file:/usr/lib32/libc.a'),
    ('flex', 'cmd:flex'), ('bison', 'cmd:bison'), ('bc', 'cmd:bc'),
    ('perl', 'cmd:perl'), ('xz-utils', 'cmd:xz'), ('ccache', 'cmd:ccache'),
    ('libelf-dev', 'file:/usr/include/libelf.h'),
    ('libssl-dev', 'file:/usr/include/openssl/ssl.h'),
    ('qemu-system-x86', 'cmd:qemu-system-x86_64'),
    ('qemu-system-data', 'file:/usr/share/qemu/qboot.rom'),
    # KUnit on arm64 (kunit --arch arm64)
    ('qemu-system-arm', 'cmd:qemu-system-aarch64'),
    # checkpatch.pl runs scripts/spdxcheck.py with Debian's python3.
    ('python3-ply', 'file:/usr/lib/python3/dist-packages/ply/__init__.py'),
    ('python3-git', 'file:/usr/lib/python3/dist-packages/git/__init__.py'),
    # The robot builds of check: sparse, clang and the cross compilers.
    # 7.3 needs clang 17 or later: Debian 12's clang-19, run as LLVM=-19.
    ('sparse', 'cmd:sparse'), ('clang-19', 'cmd:clang-19'),
    ('lld-19', 'cmd:ld.lld-19'), ('llvm-19', 'cmd:llvm-ar-19'),
    ('gcc-aarch64-linux-gnu', 'cmd:aarch64-linux-gnu-gcc'),
    ('gcc-powerpc64le-linux-gnu', 'cmd:powerpc64le-linux-gnu-gcc'),
    ('gcc-s390x-linux-gnu', 'cmd:s390x-linux-gnu-gcc'),
    ('gcc-riscv64-linux-gnu', 'cmd:riscv64-linux-gnu-gcc'),
    ('coccinelle', 'cmd:spatch'),
    # spatch compiles the OCaml scripts of some .cocci files with ocamlopt
    ('ocaml-nox', 'cmd:ocamlopt'),
    # The guest's real clients and the kernel's migration selftest
    ('libhwloc-dev', 'file:/usr/include/hwloc.h'),
    ('libnuma-dev', 'file:/usr/include/numa.h'),
]

# Programs every Debian system has (Essential: yes, or the interpreter that
# runs the harness itself): never installed, never missing.
ESSENTIAL_CMDS = {'cp', 'tar', 'python3', 'ldd', 'sh', 'dpkg-deb'}


class Failure(Exception):
    """An error with a message for the user; the run stops with it."""


T0 = time.monotonic()


def say(msg):
    print('[%6.1fs] %s' % (time.monotonic() - T0, msg), flush=True)


class Phase:
    """Prints a phase with its elapsed time."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t = time.monotonic()
        say(self.name + ' ...')
        return self

    def __exit__(self, typ, val, tb):
        dt = time.monotonic() - self.t
        if typ is None:
            say('%s: done in %.1fs' % (self.name, dt))
        elif typ is not KeyboardInterrupt:
            say('%s: FAILED after %.1fs' % (self.name, dt))
        return False


def read(path):
    with open(path, errors='replace') as f:
        return f.read()


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def holds(path, text):
    """Whether the file @path exists and holds @text: a stamp of a step's
    inputs, written after the step succeeded, or a file to rewrite only
    when it changes."""
    return os.path.exists(path) and read(path) == text


def tail(path, n=40):
    try:
        with open(path, errors='replace') as f:
            return ''.join(f.readlines()[-n:])
    except OSError:
        return ''


def run(cmd, log=None, cwd=None, env=None, check=True, stdin=None,
        what=None):
    """Run a command, its output appended to log (or captured).

    Returns (returncode, output); output is '' when logging to a file.
    """
    if log:
        with open(log, 'a') as f:
            f.write('$ %s\n' % ' '.join(shlex.quote(c) for c in cmd))
            f.flush()
            p = subprocess.run(cmd, cwd=cwd, env=env, stdout=f,
                               stderr=subprocess.STDOUT, input=stdin,
                               text=True)
        out = ''
    else:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, input=stdin, text=True)
        out = p.stdout
    if check and p.returncode:
        msg = '%s failed (exit %d)' % (what or cmd[0], p.returncode)
        if log:
            raise Failure('%s; last lines of %s:\n%s' % (msg, log, tail(log)))
        raise Failure('%s:\n%s' % (msg, out[-4000:]))
    return p.returncode, out


def git(args, cwd, env=None, check=True, stdin=None):
    rc, out = run(['git'] + args, cwd=cwd, env=env, check=check, stdin=stdin,
                  what='git ' + args[0])
    return out if check else (rc, out)


def have(check):
    kind, what = check.split(':', 1)
    if kind == 'cmd':
        return shutil.which(what) is not None
    return os.path.exists(what)


def ensure_packages():
    pkgs = list(PACKAGES)
    missing = [p for p, c in pkgs if not have(c)]
    if not missing:
        return
    if os.geteuid() != 0 or not shutil.which('apt-get'):
        raise Failure('missing packages: %s\ninstall them as root with:\n'
                      '  apt-get install %s' % (' '.join(missing),
                                                ' '.join(missing)))
    with Phase('installing %s' % ' '.join(missing)):
        env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
        log = os.path.join(cache_dir(), 'logs', 'apt.log')
        run(['apt-get', 'update', '-q'], log=log, env=env, what='apt-get')
        run(['apt-get', 'install', '-y', '-q', '--no-install-recommends']
            + missing, log=log, env=env, what='apt-get install')
    still = [p for p, c in pkgs if not have(c)]
    if still:
        raise Failure('still missing after apt-get: %s' % ' '.join(still))


def base_tarball():
    """The base's source tarball, fetched once into the cache: apt-get
    update and download with a private sources list, lists and archives,
    then the tarball taken out of the package."""
    top = os.path.join(cache_dir(), 'apt-' + BASE_SLUG)
    tarball = os.path.join(top, 'usr', 'src', BASE_PACKAGE + '.tar.xz')
    if os.path.exists(tarball):
        return tarball
    if not os.path.exists(BASE_KEYRING):
        raise Failure('%s is missing: install debian-archive-keyring, or set '
                      'KERNEL_SRC to a kernel tree' % BASE_KEYRING)
    for d in ('lists/partial', 'archives/partial', 'deb'):
        os.makedirs(os.path.join(top, d), exist_ok=True)
    sources = os.path.join(top, 'sources.list')
    write(sources, 'deb [signed-by=%s] %s %s main\n'
          % (BASE_KEYRING, BASE_MIRROR, BASE_SUITE))
    opts = ['-q', '-o', 'Dir::Etc::SourceList=' + sources,
            '-o', 'Dir::Etc::SourceParts=/dev/null',
            '-o', 'Dir::State::Lists=' + os.path.join(top, 'lists'),
            '-o', 'Dir::Cache=' + top,
            # root downloads into the cache; apt's _apt user cannot
            '-o', 'APT::Sandbox::User=root']
    log = os.path.join(cache_dir(), 'logs', 'base-fetch.log')
    deb = os.path.join(top, 'deb')
    with Phase('fetch %s from %s' % (BASE_PACKAGE, BASE_SUITE)):
        run(['apt-get'] + opts + ['update'], log=log, what='apt-get update')
        for f in os.listdir(deb):
            os.unlink(os.path.join(deb, f))
        run(['apt-get'] + opts + ['download', BASE_PACKAGE], log=log,
            cwd=deb, what='apt-get download %s' % BASE_PACKAGE)
        debs = [f for f in os.listdir(deb) if f.endswith('.deb')]
        if len(debs) != 1:
            raise Failure('apt-get download %s left %s in %s'
                          % (BASE_PACKAGE, debs or 'nothing', deb))
        run(['sh', '-c', 'dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" '
             '"./usr/src/$3.tar.xz"', 'sh', os.path.join(deb, debs[0]),
             top, BASE_PACKAGE], log=log, what='dpkg-deb')
        os.unlink(os.path.join(deb, debs[0]))
    return tarball


def cache_dir():
    d = os.environ.get('PAGESTAT_CACHE') or os.path.expanduser(
        '~/.cache/pagestat')
    os.makedirs(os.path.join(d, 'logs'), exist_ok=True)
    return d


class Results:
    """The counts of a run; test() records from two threads."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.lock = threading.Lock()

    def record(self, name, ok, detail=''):
        with self.lock:
            if ok:
                self.passed += 1
                return
            self.failed += 1
            self.failures.append((name, detail))
            say('FAIL %s' % name)
            if detail.strip():
                print('    ' + detail.strip().replace('\n', '\n    ')[:4000])

    def add(self, passed, failed, skipped=0):
        with self.lock:
            self.passed += passed
            self.failed += failed
            self.skipped += skipped

    def line(self):
        s = '%d passed, %d failed' % (self.passed, self.failed)
        if self.skipped:
            s += ', %d skipped' % self.skipped
        return s
