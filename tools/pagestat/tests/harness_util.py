# SPDX-License-Identifier: GPL-2.0
"""What the harness's tests share: the harness's modules on the path,
a patch in mail form and file helpers."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLDIR = os.path.dirname(HERE)
sys.path.insert(0, TOOLDIR)

from pagestat_common import git  # noqa: E402 (after the path)

PATCH = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A Developer <dev@example.org>
Date: Mon, 2 Nov 2026 10:00:00 +0000
Subject: [PATCH] mm: change a line

Why the line changes.

Signed-off-by: A Developer <dev@example.org>
---
 mm/a.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/mm/a.c b/mm/a.c
--- a/mm/a.c
+++ b/mm/a.c
@@ -1,3 +1,3 @@
 one
-two
+TWO
 three
"""


def sh(cmd, cwd):
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


class ToyTree(unittest.TestCase):
    """A toy kernel and an overlay of two patches, one of them a new file."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.src = os.path.join(d, 'linux')
        write(os.path.join(self.src, 'Makefile'), 'all:\n')
        write(os.path.join(self.src, 'mm', 'a.c'), 'one\ntwo\nthree\n')
        write(os.path.join(self.src, 'mm', 'b.c'), 'b\n')
        self.repo = os.path.join(d, 'repo')
        write(os.path.join(self.repo, 'patches', '0001-a.patch'), PATCH)
        write(os.path.join(self.repo, 'patches', '0002-new.patch'),
              'From: B <b@example.org>\nSubject: [PATCH] mm: add new.c\n\n'
              'Adds it.\n')
        write(os.path.join(self.repo, 'patches', 'series'),
              '0001-a.patch\n0002-new.patch\n\tmm/new.c\n')
        write(os.path.join(self.repo, 'mm', 'new.c'), 'new\n')
        write(os.path.join(self.repo, 'README.md'), 'not kernel\n')
        self.env = dict(os.environ)
        os.environ['KERNEL_SRC'] = self.src
        os.environ['PAGESTAT_CACHE'] = os.path.join(d, 'cache')
        self.out = io.StringIO()
        self.redirect = contextlib.redirect_stdout(self.out)
        self.redirect.__enter__()

    def tearDown(self):
        self.redirect.__exit__(None, None, None)
        os.environ.clear()
        os.environ.update(self.env)
        self.tmp.cleanup()

    def log(self, t):
        return git(['log', '--format=%an|%s', 'base..pagestat'],
                      cwd=t.tree).splitlines()
