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
from pagestat_build import stamped_make


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


if __name__ == '__main__':
    unittest.main()
