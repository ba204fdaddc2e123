# SPDX-License-Identifier: GPL-2.0
"""pagestat_kunit: the kunit.py commands of each architecture."""

import contextlib
import io
import json
import os
import tempfile
import unittest

import harness_util  # noqa: F401 (the modules' path)
from pagestat_common import Results
from pagestat_kunit import damon_uml_cmd, kunit_cmd, kunit_record


class KunitArchTest(unittest.TestCase):
    def test_commands(self):
        t = type('T', (), {'build': '/b'})()
        x86 = kunit_cmd(t, 'config')
        self.assertIn('--arch=x86_64', x86)
        self.assertIn('--build_dir=/b/kunit', x86)
        self.assertFalse([a for a in x86 if 'cross_compile' in a])
        arm = kunit_cmd(t, 'exec', ['--json=j'], arch='arm64')
        self.assertIn('--arch=arm64', arm)
        self.assertIn('--cross_compile=aarch64-linux-gnu-', arm)
        self.assertIn('--build_dir=/b/kunit-arm64', arm)
        self.assertIn('--make_options=CC=ccache aarch64-linux-gnu-gcc', arm)
        self.assertEqual(arm[-1], '--json=j')

    def test_damon_uml(self):
        # DAMON's own .kunitconfig, under kunit.py's default arch
        t = type('T', (), {'build': '/b'})()
        cmd = damon_uml_cmd(t, '/b/um', '/b/um/r.json')
        self.assertIn('--arch=um', cmd)
        self.assertIn('--kunitconfig=mm/damon/tests/.kunitconfig', cmd)
        self.assertIn('--build_dir=/b/um', cmd)
        self.assertIn('--json=/b/um/r.json', cmd)
        self.assertFalse([a for a in cmd if 'qemu' in a or 'cross' in a])


class KunitRecordTest(unittest.TestCase):
    def record(self, doc, rc=0, msg=''):
        r = Results()
        with tempfile.TemporaryDirectory() as d, \
                contextlib.redirect_stdout(io.StringIO()):
            jsonf = os.path.join(d, 'r.json')
            if doc is not None:
                with open(jsonf, 'w') as f:
                    json.dump(doc, f)
            kunit_record(r, 'kunit um (DAMON)', rc, 'log', jsonf, 'test.log',
                         msg)
        return r

    def test_a_failed_case_a_missing_run_a_warning_fail(self):
        cases = [{'name': 'a', 'status': 'PASS'},
                 {'name': 'b', 'status': 'SKIP'}]
        doc = {'name': 'main', 'test_cases': [], 'sub_groups': [
            {'name': 'damon', 'test_cases': cases}]}
        self.assertEqual(self.record(doc).line(),
                         '2 passed, 0 failed, 1 skipped')
        cases.append({'name': 'c', 'status': 'FAIL'})
        self.assertEqual(self.record(doc, rc=1).failed, 1)
        self.assertEqual(self.record(None, rc=1).failed, 1)
        self.assertEqual(self.record(doc, msg='WARNING: at x').failed, 2)
        del cases[:]
        self.assertEqual(self.record(doc).failed, 1)


if __name__ == '__main__':
    unittest.main()
