# SPDX-License-Identifier: GPL-2.0
"""pagestat_guest: the guest initramfs."""

import unittest

import harness_util  # noqa: F401 (the modules' path)
from pagestat_guest import initramfs_spec


class InitramfsTest(unittest.TestCase):
    def test_initramfs_spec(self):
        spec = initramfs_spec({'init': '/g/init', 'smoke': '/g/smoke'})
        lines = spec.splitlines()
        self.assertIn('nod /dev/console 0600 0 0 c 5 1', lines)
        self.assertIn('file /init /g/init 0755 0 0', lines)
        self.assertIn('file /bin/smoke /g/smoke 0755 0 0', lines)
        # Directories before the files in them
        self.assertLess(lines.index('dir /bin 0755 0 0'),
                        lines.index('file /bin/smoke /g/smoke 0755 0 0'))
        self.assertTrue(spec.endswith('\n'))


if __name__ == '__main__':
    unittest.main()
