# SPDX-License-Identifier: GPL-2.0
"""pagestat_check: stable backports and the robot builds."""

import unittest

import harness_util  # noqa: F401 (the modules' path)
from pagestat_check import (
    ROBOT_BUILDS, ROBOT_LINKED, added_lines, backport_of, new_warnings,
    robot_fragment)


class BackportTest(unittest.TestCase):
    def test_backport(self):
        sha = '10d04c26ab2b7da31dd66973f5a09d6fd8ff2a46'
        self.assertEqual(backport_of('commit %s upstream.\n\nWhy.\n'
                                        % sha), '10d04c26ab2b')
        self.assertEqual(backport_of('\ncommit %s upstream.\n' % sha),
                         '10d04c26ab2b')
        # Only as the first line, and only the kernel's form
        self.assertIsNone(backport_of('Why.\n\ncommit %s upstream.\n'
                                         % sha))
        self.assertIsNone(backport_of('commit %s\n' % sha))
        self.assertIsNone(backport_of('Upstream commit %s.\n' % sha))


class RobotTest(unittest.TestCase):
    DIFF = """diff --git a/mm/x.c b/mm/x.c
--- a/mm/x.c
+++ b/mm/x.c
@@ -10,0 +11,2 @@ f
+a
+b
@@ -20 +22 @@ g
-c
+d
"""

    def test_added_lines(self):
        self.assertEqual(added_lines(self.DIFF), {'mm/x.c': {11, 12, 22}})

    def test_new_warnings(self):
        added = added_lines(self.DIFF)
        log = ('/t/mm/x.c:11:5: warning: unused variable \'v\'\n'
               '/t/mm/x.c:13:1: warning: unused variable \'w\'\n'
               '/t/mm/x.c:22:9: warning: context imbalance in \'f\' - '
               'unexpected unlock\n')
        base = ('/b/mm/y.c:7:2: warning: context imbalance in \'g\' - '
                'unexpected unlock\n')
        # Line 13 is not the series'; line 22's kind is the base's too
        self.assertEqual(new_warnings(log, added, base),
                         [log.splitlines()[0]])
        self.assertEqual(len(new_warnings(log, added)), 2)

    def test_fragment(self):
        frag = robot_fragment(['# CONFIG_NUMA is not set', 'CONFIG_X=y'])
        self.assertIn('# CONFIG_NUMA is not set\n', frag)
        self.assertNotIn('CONFIG_NUMA=y', frag)
        self.assertIn('CONFIG_X=y\n', frag)
        names = [b[0] for b in ROBOT_BUILDS]
        self.assertEqual(len(names), len(set(names)))
        self.assertTrue(set(ROBOT_LINKED) <= set(names))


if __name__ == '__main__':
    unittest.main()
