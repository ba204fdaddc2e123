# SPDX-License-Identifier: GPL-2.0
"""Export of the series as git format-patch mails, checked to apply to the
pristine tree.
"""

import os
import re
import shutil

from pagestat_common import Failure, git, read
from pagestat_tree import has_diff


# Where each commit goes: a backport of an upstream commit to the stable
# trees, a fix (a Fixes: tag) to the mm fixes branch, the rest to mm.
PARTS = ('stable', 'fixes', 'pagestat')

# The parts sent with a cover letter, and the file in patches/ it comes
# from (a stable backport goes alone, under its upstream commit).
COVERS = {'fixes': 'cover-letter-fixes', 'pagestat': 'cover-letter'}


def part_of(message):
    if re.search(r'^commit [0-9a-f]{40} upstream\.$', message, re.M):
        return 'stable'
    if re.search(r'^Fixes: [0-9a-f]{12}', message, re.M):
        return 'fixes'
    return 'pagestat'


def split_series(t, tip):
    """The commits of base..@tip by part, in series order: a part that
    comes back after a later one would not apply on its own."""
    parts, seen = {p: [] for p in PARTS}, []
    for c in git(['rev-list', '--reverse', 'base..' + tip],
                 cwd=t.tree).split():
        part = part_of(git(['log', '-1', '--format=%B', c], cwd=t.tree))
        if seen and PARTS.index(part) < PARTS.index(seen[-1]):
            raise Failure('patches/series: %s (%s) comes after a patch '
                          'for %s' % (c[:12], part, seen[-1]))
        seen.append(part)
        parts[part].append(c)
    return parts


def export(t, outdir):
    """Write each part of the series as mails to its own directory under
    @outdir: the backports and the fixes, then the feature with the cover
    letter, its prerequisites named by patch id.  Return the files in the
    order they apply."""
    tip = t.update()
    outdir = os.path.abspath(outdir)
    shutil.rmtree(outdir, ignore_errors=True)
    parts, files, start = split_series(t, tip), [], 'base'
    for part in PARTS:
        if not parts[part]:
            continue
        d = os.path.join(outdir, part)
        os.makedirs(d)
        end = parts[part][-1]
        args = ['format-patch', '-q', '--no-signature', '--base=base',
                '-o', d, '%s..%s' % (start, end)]
        if part in COVERS:
            cover = os.path.join(t.repo, 'patches', COVERS[part])
            git(['config', 'branch.pagestat.description',
                 read(cover) if os.path.exists(cover) else
                 'mm: %s\n\n*** BLURB HERE ***\n' % part], cwd=t.base)
            args[2:2] = ['--cover-letter', '--cover-from-description=subject']
        git(args, cwd=t.tree)
        start = end
        # The cover letter is dated now; date it like the last patch so
        # that the same inputs give the same bytes.
        date = git(['log', '-1', '--format=%aD', end], cwd=t.tree).strip()
        for c in sorted(f for f in os.listdir(d) if f.startswith('0000-')):
            text = re.sub(r'^Date: .*$', 'Date: ' + date, read(
                os.path.join(d, c)), count=1, flags=re.M)
            with open(os.path.join(d, c), 'w') as f:
                f.write(text)
        files += sorted(os.path.join(d, f) for f in os.listdir(d))
    return files


def verify_export(t, patches):
    """The exported series applies to base and gives the patched tree."""
    idx = os.path.join(t.cache, 'index-verify.%d' % os.getpid())
    env = dict(os.environ, GIT_INDEX_FILE=idx)
    try:
        git(['read-tree', 'base'], cwd=t.base, env=env)
        for p in patches:
            if os.path.basename(p).startswith('0000-'):
                continue
            rc, out = git(['apply', '--cached', p], cwd=t.base, env=env,
                          check=False)
            if rc and has_diff(read(p)):
                return False, '%s does not apply: %s' % (p, out)
        got = git(['write-tree'], cwd=t.base, env=env).strip()
        want = git(['rev-parse', 'pagestat^{tree}'], cwd=t.base).strip()
        if got != want:
            return False, 'series applies but gives tree %s, not %s' % (
                got, want)
        return True, ''
    finally:
        if os.path.exists(idx):
            os.unlink(idx)
