# SPDX-License-Identifier: GPL-2.0
"""pagestat_build: builds skipped while their stamps hold."""

import contextlib
import io
import os
import tempfile
import unittest

import harness_util  # noqa: F401 (the modules' path)
from pagestat_common import Failure
import pagestat_build as ps_build
from pagestat_build import (
    DEBUG_FLAVORS, FLAVORS, V2_FLAVOR, kernel_dirs, stamped_make)
from pagestat_tree import Tree


class StampTest(unittest.TestCase):
    def test_stamped_make(self):
        calls = []
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()):
            orig = ps_build.make
            ps_build.make = lambda *a, **k: calls.append(a[1])
            try:
                open(os.path.join(d, 'out'), 'w').close()
                self.assertTrue(stamped_make(None, 'b', '/s', d, [], 'k1',
                                                ['out']))
                # same key, output there: skipped
                self.assertFalse(stamped_make(None, 'b', '/s', d, [],
                                                 'k1', ['out']))
                # new key, or output gone: made again
                self.assertTrue(stamped_make(None, 'b', '/s', d, [], 'k2',
                                                ['out']))
                os.unlink(os.path.join(d, 'out'))
                self.assertTrue(stamped_make(None, 'b', '/s', d, [], 'k2',
                                                ['out']))
                # a failed make leaves no stamp
                ps_build.make = lambda *a, **k: (_ for _ in ()).throw(
                    Failure('x'))
                with self.assertRaises(Failure):
                    stamped_make(None, 'b', '/s', d, [], 'k3', [])
                ps_build.make = lambda *a, **k: calls.append(a[1])
                self.assertTrue(stamped_make(None, 'b', '/s', d, [], 'k3',
                                                []))
            finally:
                ps_build.make = orig
        self.assertEqual(calls, ['b'] * 4)

    def test_reason(self):
        """A rebuild names what changed since the last build."""
        said = io.StringIO()
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(said):
            orig = ps_build.make
            ps_build.make = lambda *a, **k: None
            try:
                for key, config in (('k1', 'a'), ('k2', 'b'), ('k2', 'b')):
                    ps_build.KEY_INPUTS[key] = {'the tree': 't',
                                                'the config': config}
                    stamped_make(None, 'b', '/s', d, ['bzImage'], key, [])
            finally:
                ps_build.make = orig
        self.assertIn('b: first build, building bzImage', said.getvalue())
        self.assertIn('b: the config changed', said.getvalue())
        self.assertIn('b: up to date', said.getvalue())


class StockLayoutTest(unittest.TestCase):
    """The stock kernels' sources sit where the patched kernels' do,
    relative to their objdirs, so that ccache (base_dir) shares objects."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = dict(os.environ)
        os.environ['PAGESTAT_CACHE'] = os.path.join(self.tmp.name, 'cache')
        os.environ.pop('KERNEL_SRC', None)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        self.tmp.cleanup()

    def check(self, t):
        want = os.path.join('..', '..', 'tree-' + t.slug)
        for f in FLAVORS + DEBUG_FLAVORS + (V2_FLAVOR,):
            self.assertEqual(os.path.relpath(*kernel_dirs(t, f)), want, f)
        self.assertNotEqual(kernel_dirs(t, 'stock'), kernel_dirs(t, 'patched'))
        self.assertTrue(kernel_dirs(t, 'stock')[1].startswith(t.stock_build))
        # v2: a tree and objdir of its own, beside neither of the others
        src, bdir = kernel_dirs(t, V2_FLAVOR)
        self.assertEqual((src, bdir), (t.v2_tree, os.path.join(t.v2_build,
                                                               'v2')))
        self.assertEqual(len({kernel_dirs(t, f)[0] for f in
                              ('stock', 'patched', V2_FLAVOR)}), 3)

    def test_default_slug(self):
        self.check(Tree())

    def test_kernel_src_slug(self):
        src = os.path.join(self.tmp.name, 'my linux')
        os.makedirs(src)
        os.environ['KERNEL_SRC'] = src
        t = Tree()
        self.assertTrue(t.slug.startswith('my-linux-'))
        self.check(t)

    def test_old_stock_objdir_removed(self):
        """A stock build at the new place removes the one at the old."""
        t = Tree()
        old = os.path.join(t.build, 'stock')
        os.makedirs(old)
        saved = (ps_build.config_from_fragment, ps_build.build_key,
                 ps_build.stamped_make)
        ps_build.config_from_fragment = lambda t, n, s, b, *a: write_config(b)
        ps_build.build_key = lambda *a: 'k'
        ps_build.stamped_make = lambda *a, **k: True
        try:
            with contextlib.redirect_stdout(io.StringIO()) as out:
                image = ps_build.build_kernel(t, 'stock')
        finally:
            (ps_build.config_from_fragment, ps_build.build_key,
             ps_build.stamped_make) = saved
        self.assertTrue(image.startswith(t.stock_build))
        self.assertFalse(os.path.exists(old))
        self.assertIn('removing ' + old, out.getvalue())

    def test_v2_needs_its_tree(self):
        with self.assertRaisesRegex(Failure, 'no v2 tree at'), \
                contextlib.redirect_stdout(io.StringIO()):
            ps_build.build_kernel(Tree(), V2_FLAVOR)

    def test_v2_build_stamped(self):
        """The v2 kernel builds from its tree with the boot config, and
        not again while its tree, config and arguments hold."""
        t = Tree()
        os.makedirs(t.v2_tree)
        calls = []
        saved = (ps_build.config_from_fragment, ps_build.build_key,
                 ps_build.make)
        ps_build.config_from_fragment = \
            lambda t, n, s, b, frag, *a: (calls.append((n, s, frag)),
                                          write_config(b))
        ps_build.build_key = lambda t, src, *a: 'key of ' + src

        def make(t, name, src, bdir, targets, extra=()):
            calls.append((name, src, bdir))
            image = os.path.join(bdir, 'arch', 'x86', 'boot', 'bzImage')
            os.makedirs(os.path.dirname(image), exist_ok=True)
            open(image, 'w').close()
        ps_build.make = make
        try:
            with contextlib.redirect_stdout(io.StringIO()) as out:
                image = ps_build.build_kernel(t, V2_FLAVOR)
                ps_build.build_kernel(t, V2_FLAVOR)
        finally:
            (ps_build.config_from_fragment, ps_build.build_key,
             ps_build.make) = saved
        bdir = os.path.join(t.v2_build, 'v2')
        self.assertEqual(image, os.path.join(bdir, 'arch', 'x86', 'boot',
                                             'bzImage'))
        frag = os.path.join(ps_build.TOOLDIR, 'boot.config')
        self.assertEqual(calls, [('v2', t.v2_tree, frag),
                                 ('build-v2', t.v2_tree, bdir),
                                 ('v2', t.v2_tree, frag)])
        self.assertIn('build-v2: up to date', out.getvalue())


def write_config(bdir):
    os.makedirs(bdir, exist_ok=True)
    open(os.path.join(bdir, '.config'), 'w').close()


if __name__ == '__main__':
    unittest.main()
