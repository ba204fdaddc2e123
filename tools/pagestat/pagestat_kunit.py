# SPDX-License-Identifier: GPL-2.0
"""KUnit runs through the tree's tools/testing/kunit/kunit.py, on each
architecture of KUNIT_ARCHES.
"""

import os
import shutil

from pagestat_common import Failure, PACKAGES, Phase, REPO, read, run, say
from pagestat_qemu import (KUNIT_ARCHES, KUNIT_KERNEL_ARGS, KUNIT_NUMA,
                           qemu_accel)
from pagestat_build import (build_key, jobs, make_args, make_env,
                            stamped_make)
from pagestat_parse import parse_kunit_json
from pagestat_guest import console_failure


def kunit_make_args(t, arch):
    """make's compilers for the KUnit kernel of @arch."""
    cross = KUNIT_ARCHES[arch]['cross']
    if not cross:
        return make_args(t)
    return ['CC=ccache %sgcc' % cross, 'HOSTCC=ccache gcc']


def kunit_cmd(t, sub, extra=(), arch='x86_64'):
    a = KUNIT_ARCHES[arch]
    cross = ['--cross_compile=' + a['cross']] if a['cross'] else []
    return (['python3', 'tools/testing/kunit/kunit.py', sub,
             '--arch=' + arch] + cross +
            ['--kunitconfig=' + os.path.join(REPO, '.kunitconfig'),
             '--build_dir=' + os.path.join(t.build, a['build'])]
            + ['--make_options=' + m for m in kunit_make_args(t, arch)]
            + list(extra))


# kunit.py (7.3) asks qemu for '-accel kvm -accel hvf -accel tcg', and qemu
# takes the first that opens: on a machine with /dev/kvm, KVM, under which
# nested guests hang in their decompressor.  kunit.py has no option for it,
# so it finds this qemu first on its PATH, which drops those -accel options
# for the harness's own (qemu_accel(): tcg unless PAGESTAT_ACCEL=kvm).
QEMU_SHIM = '''#!/bin/sh
# Written by tools/pagestat/pagestat_kunit.py: %(qemu)s, -accel %(accel)s only
drop=
for a; do
	shift
	if [ -n "$drop" ]; then drop=; continue; fi
	if [ "$a" = -accel ]; then drop=1; continue; fi
	set -- "$@" "$a"
done
exec %(qemu)s -accel %(accel)s "$@"
'''


def qemu_shim_env(env, bdir, qemu):
    """@env with a directory in @bdir first on PATH whose @qemu runs the
    real one with the harness's accelerator only."""
    real = shutil.which(qemu)
    shim = os.path.join(bdir, 'qemu-shim')
    os.makedirs(shim, exist_ok=True)
    path = os.path.join(shim, qemu)
    with open(path, 'w') as f:
        f.write(QEMU_SHIM % {'qemu': real, 'accel': qemu_accel()})
    os.chmod(path, 0o755)
    return dict(env, PATH=shim + os.pathsep + env.get('PATH', ''))


def kunit_name(arch):
    return 'kunit' if arch == 'x86_64' else 'kunit ' + arch


def kunit_config(t, arch='x86_64'):
    """Make the KUnit .config from .kunitconfig; return the log."""
    os.makedirs(os.path.join(t.build, KUNIT_ARCHES[arch]['build']),
                exist_ok=True)
    name = kunit_name(arch)
    log = t.log(name.replace(' ', '-'))
    open(log, 'w').close()
    with Phase('%s: configure' % name):
        run(kunit_cmd(t, 'config', arch=arch), log=log, cwd=t.tree,
            env=make_env(t), what='kunit.py config')
    return log


def kunit(t, passthrough=(), arch='x86_64'):
    t.update()
    a = KUNIT_ARCHES[arch]
    if not shutil.which(a['qemu']):
        pkg = [p for p, c in PACKAGES if c == 'cmd:' + a['qemu']]
        raise Failure('%s, which kunit.py boots for %s, is missing '
                      '(Debian package %s)' % (a['qemu'], arch,
                                               ' '.join(pkg) or '?'))
    name = kunit_name(arch)
    bdir = os.path.join(t.build, a['build'])
    os.makedirs(bdir, exist_ok=True)
    env = make_env(t)
    log = kunit_config(t, arch)
    with Phase('%s: build' % name):
        key = build_key(t, t.tree, read(os.path.join(bdir, '.config')),
                        ' '.join(kunit_make_args(t, arch)))
        cross = ['CROSS_COMPILE=' + a['cross']] if a['cross'] else []
        stamped_make(t, 'build-' + name.replace(' ', '-'), t.tree, bdir,
                     [], key, [a['image']],
                     ['ARCH=' + arch] + cross + kunit_make_args(t, arch))
    qemu = ['--qemu_args=' + ' '.join(a['qemu_args'] + KUNIT_NUMA)]
    kargs = ['--kernel_args=' + k for k in KUNIT_KERNEL_ARGS + a['kargs']]
    jsonf = os.path.join(bdir, 'results.json')
    if os.path.exists(jsonf):
        os.unlink(jsonf)
    env = qemu_shim_env(env, bdir, a['qemu'])
    with Phase('%s: boot and run' % name):
        timeout = [] if any(p.startswith('--timeout') for p in passthrough) \
            else ['--timeout=1800']
        rc, _ = run(kunit_cmd(t, 'exec', qemu + kargs + timeout +
                              ['--json=' + jsonf] + list(passthrough),
                              arch=arch),
                    log=log, cwd=t.tree, env=env, check=False)
    out = read(log)
    return rc, out, jsonf


def kunit_console_failure(t, arch='x86_64'):
    """The KUnit guest's console log and its splats' summary, or ''."""
    return build_console_failure(os.path.join(t.build,
                                              KUNIT_ARCHES[arch]['build']))


def build_console_failure(bdir):
    """The console log kunit.py kept in @bdir and its splats' summary."""
    path = os.path.join(bdir, 'test.log')
    return path, console_failure(read(path)) if os.path.exists(path) else ''


def kunit_results(t, results, arch):
    """Run the KUnit suites on @arch and count their cases."""
    name = kunit_name(arch)
    try:
        rc, out, jsonf = kunit(t, arch=arch)
    except Failure as e:
        # the other runs go on
        results.record(name, False, str(e))
        return
    kunit_record(results, name, rc, out, jsonf,
                 *kunit_console_failure(t, arch))


# DAMON's own suites as its maintainers run them: kunit.py's default
# architecture, UML, with DAMON's .kunitconfig.  UML has no NUMA: there the
# commit check expects -EINVAL for vaddr, and the node count case skips.
DAMON_KUNITCONFIG = 'mm/damon/tests/.kunitconfig'


def damon_uml_cmd(t, bdir, jsonf):
    return ['python3', 'tools/testing/kunit/kunit.py', 'run', '--arch=um',
            '--kunitconfig=' + DAMON_KUNITCONFIG, '--build_dir=' + bdir,
            '--jobs=' + jobs(), '--make_options=CC=ccache gcc',
            '--timeout=600', '--json=' + jsonf]


def kunit_damon_uml(t, results):
    """Build and run DAMON's .kunitconfig under UML; count its cases."""
    t.update()
    name = 'kunit um (DAMON)'
    bdir = os.path.join(t.build, 'kunit-um-damon')
    os.makedirs(bdir, exist_ok=True)
    log = t.log('kunit-um-damon')
    open(log, 'w').close()
    jsonf = os.path.join(bdir, 'results.json')
    if os.path.exists(jsonf):
        os.unlink(jsonf)
    with Phase('%s: build and run' % name):
        rc, _ = run(damon_uml_cmd(t, bdir, jsonf), log=log, cwd=t.tree,
                    env=make_env(t), check=False)
    if os.path.exists(os.path.join(bdir, 'linux')):
        # built: what run_estimate() looks for, as make() leaves it
        with open(os.path.join(bdir, '.pagestat-lines'), 'w') as f:
            f.write('%d\n' % len(read(log).splitlines()))
    kunit_record(results, name, rc, read(log), jsonf,
                 *build_console_failure(bdir))


def kunit_record(results, name, rc, out, jsonf, path, msg):
    """Count the cases of a kunit.py run's JSON; a case that failed, a run
    that ran none, a kunit.py failure or a console warning fails."""
    if os.path.exists(jsonf):
        counts, failed = parse_kunit_json(read(jsonf))
        for case in failed:
            results.record('%s: %s' % (name, case), False)
        results.add(counts['pass'], 0, counts['skip'])
        say('%s: %d passed, %d failed, %d skipped' %
            (name, counts['pass'], len(failed), counts['skip']))
        if counts['pass'] + len(failed) == 0:
            results.record('%s: no test ran' % name, False, out[-3000:])
        elif rc and not failed:
            results.record('%s: kunit.py' % name, False, out[-3000:])
    else:
        results.record('%s run' % name, False,
                       'no results; kunit.py exited %d:\n%s' % (
                           rc, out[-3000:]))
    results.record('%s: console free of warnings' % name, not msg,
                   '%s:\n%s' % (path, msg))
