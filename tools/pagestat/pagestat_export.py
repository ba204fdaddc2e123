# SPDX-License-Identifier: GPL-2.0
"""Export of the series as git format-patch mails, checked to apply to the
pristine tree.
"""

import os
import re
import shutil

from pagestat_common import git, read
from pagestat_tree import has_diff


def export(t, outdir):
    tip = t.update()
    outdir = os.path.abspath(outdir)
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    cover = os.path.join(t.repo, 'patches', 'cover-letter')
    git(['config', 'branch.pagestat.description',
         read(cover) if os.path.exists(cover) else
         'mm: pagestat\n\n*** BLURB HERE ***\n'], cwd=t.base)
    files = git(['format-patch', '-q', '--cover-letter',
                 '--cover-from-description=subject', '--no-signature',
                 '--base=base', '-o', outdir, 'base..' + tip],
                cwd=t.tree).split()
    # The cover letter is dated now; date it like the last patch so that
    # the same inputs give the same bytes.
    date = git(['log', '-1', '--format=%aD', tip], cwd=t.tree).strip()
    covers = sorted(f for f in os.listdir(outdir) if f.startswith('0000-'))
    for c in covers:
        p = os.path.join(outdir, c)
        text = read(p)
        text = re.sub(r'^Date: .*$', 'Date: ' + date, text, count=1,
                      flags=re.M)
        with open(p, 'w') as f:
            f.write(text)
    return sorted(os.path.join(outdir, f) for f in os.listdir(outdir))


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
