# SPDX-License-Identifier: GPL-2.0
"""The series (patches/series and the overlay) and the git trees it
becomes: the pristine base and the patched tree.
"""

import hashlib
import os
import re
import shutil
import stat
import tempfile

from pagestat_common import (
    BASE_IDENT, BASE_SLUG, DEFAULT_AUTHOR, Failure, NOT_OVERLAY,
    Phase, REPO, base_tarball, cache_dir, git, read, run, say)


def parse_series(text, name='patches/series'):
    """Parse patches/series.

    Each unindented line names a patch file in patches/; the indented lines
    under it name the overlay files (or directories, ending in '/') that
    the same commit adds.  '#' starts a comment.  Returns a list of
    (patch, [paths]).
    """
    entries = []
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split('#', 1)[0].rstrip()
        if not line.strip():
            continue
        if line[0] in ' \t':
            if not entries:
                raise Failure('%s:%d: file %r before any patch'
                              % (name, no, line.strip()))
            path = line.strip()
            if path.startswith('/') or '..' in path.split('/') or ' ' in path:
                raise Failure('%s:%d: bad overlay path %r' % (name, no, path))
            entries[-1][1].append(path)
        else:
            if ' ' in line or '/' in line:
                raise Failure('%s:%d: bad patch name %r' % (name, no, line))
            if any(e[0] == line for e in entries):
                raise Failure('%s:%d: %s listed twice' % (name, no, line))
            entries.append((line, []))
    return entries


def overlay_files(repo=REPO):
    """The repository's kernel files (tracked or new), sorted."""
    if os.path.exists(os.path.join(repo, '.git')):
        out = git(['ls-files', '-z', '--cached', '--others',
                   '--exclude-standard'], cwd=repo)
        files = [f for f in out.split('\0') if f]
        files = [f for f in files if os.path.isfile(os.path.join(repo, f))]
    else:
        files = []
        for top, dirs, names in os.walk(repo):
            dirs[:] = [d for d in dirs if d != '.git']
            for n in names:
                files.append(os.path.relpath(os.path.join(top, n), repo))
    return sorted(f for f in set(files)
                  if not any(f == x or (x.endswith('/') and f.startswith(x))
                             for x in NOT_OVERLAY))


def assign_files(entries, files):
    """Map each series entry to its overlay files; every file exactly once."""
    owner = {}
    result = []
    for patch, claims in entries:
        mine = []
        for c in claims:
            if c.endswith('/'):
                got = [f for f in files if f.startswith(c)]
            else:
                got = [c] if c in files else []
            if not got:
                raise Failure('patches/series: %s lists %s, which is not in '
                              'the overlay' % (patch, c))
            for f in got:
                if f in owner:
                    raise Failure('patches/series: %s is listed by both %s '
                                  'and %s' % (f, owner[f], patch))
                owner[f] = patch
                mine.append(f)
        result.append((patch, sorted(mine)))
    loose = [f for f in files if f not in owner]
    if loose:
        raise Failure('overlay files not listed under any patch in '
                      'patches/series:\n  ' + '\n  '.join(loose))
    return result


def read_series(repo=REPO):
    path = os.path.join(repo, 'patches', 'series')
    if not os.path.exists(path):
        entries = []
    else:
        with open(path) as f:
            entries = parse_series(f.read())
    for patch, _ in entries:
        if not os.path.isfile(os.path.join(repo, 'patches', patch)):
            raise Failure('patches/series names %s, which does not exist'
                          % patch)
    return assign_files(entries, overlay_files(repo))


# The posted patches the series is measured against: "[PATCH v2 0/2]
# mm/migrate: speed up move_pages() node queries", in shared/anchors/
# beside the repository (CI puts a copy of shared/ beside its clone).
ANCHORS = os.path.join(os.path.dirname(REPO), 'shared', 'anchors')

# What a directory given as the v2 source holds: its patches or mboxes,
# applied in the order of their names.
MAIL_SUFFIXES = ('.patch', '.mbox', '.mbx', '.eml')


def mail_files(paths):
    """The files of @paths (mboxes, patches in mail form, or directories
    of them) in order; a directory gives its *.patch, *.mbox, *.mbx and
    *.eml files, sorted by name."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            got = sorted(os.path.join(p, f) for f in os.listdir(p)
                         if f.endswith(MAIL_SUFFIXES) and
                         os.path.isfile(os.path.join(p, f)))
            if not got:
                raise Failure('%s holds no patch (%s)'
                              % (p, ', '.join('*' + s for s in
                                              MAIL_SUFFIXES)))
            files += got
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise Failure('%s does not exist' % p)
    return [os.path.realpath(f) for f in files]


def split_mails(path, outdir):
    """The mails of the mbox @path, each in a file of @outdir, in order
    (git mailsplit; a file with no "From " line is one mail)."""
    os.makedirs(outdir, exist_ok=True)
    n = int(git(['mailsplit', '-b', '-o' + outdir, path],
                cwd=outdir).strip() or 0)
    if not n:
        raise Failure('%s holds no mail' % path)
    return [os.path.join(outdir, '%04d' % i) for i in range(1, n + 1)]


def has_diff(text):
    return re.search(r'^diff --git ', text, re.M) is not None


def parse_mail(path, cwd):
    """Author, date and message of a patch in mail form (git mailinfo)."""
    with tempfile.TemporaryDirectory() as d:
        msg, patch = os.path.join(d, 'msg'), os.path.join(d, 'patch')
        with open(path) as f:
            info = git(['mailinfo', '-b', msg, patch], cwd=cwd,
                       stdin=f.read())
        with open(msg) as f:
            body = f.read().strip()
    fields = dict(line.split(': ', 1) for line in info.splitlines()
                  if ': ' in line)
    subject = fields.get('Subject', '').strip()
    if not subject:
        raise Failure('%s: no Subject: line' % os.path.basename(path))
    author = (fields.get('Author') or DEFAULT_AUTHOR[0],
              fields.get('Email') or DEFAULT_AUTHOR[1])
    return author, fields.get('Date', ''), subject + '\n\n' + body + '\n'


# A C function's definition: its name and "(" on a line that starts at
# column 0 with its type (or with the name, after a type on the line
# before) and is not a declaration.
C_DEF_RE = re.compile(r'^(?:[A-Za-z_][\w \t*]*?[\s*])?([A-Za-z_]\w*)\((?!.*;\s*$)')
C_NOT_NAMES = {'if', 'for', 'while', 'switch', 'return', 'sizeof',
               'defined', 'EXPORT_SYMBOL', 'EXPORT_SYMBOL_GPL',
               'EXPORT_SYMBOL_IF_KUNIT', 'module_init', 'module_exit',
               'kunit_test_suite', 'kunit_test_suites', 'MODULE_LICENSE',
               'MODULE_DESCRIPTION', 'MODULE_IMPORT_NS'}


def c_functions(lines):
    """The names of the functions that @lines (C source) define."""
    names = set()
    for ln in lines:
        ln = re.sub(r'\b(?:__printf|__scanf|__aligned|__section)\([^)]*\)\s*',
                    '', ln)
        m = C_DEF_RE.match(ln)
        if m and m.group(1) not in C_NOT_NAMES and \
                not m.group(1).isupper() and not ln.startswith('#'):
            names.add(m.group(1))
    return names


def series_functions(repo=REPO):
    """The kernel functions that the series adds or changes: those its new
    C files define, and those its patches define or change (a hunk's
    function, as git names it in the hunk's header, and a function whose
    definition is in a hunk, before a changed line of its body), outside
    tools/."""
    names = set()
    for patch, files in read_series(repo):
        for f in files:
            if f.endswith(('.c', '.h')) and not f.startswith('tools/'):
                with open(os.path.join(repo, f), errors='replace') as fh:
                    names |= c_functions(fh.read().split('\n'))
        with open(os.path.join(repo, 'patches', patch),
                  errors='replace') as fh:
            path, cur = None, None
            for ln in fh.read().split('\n'):
                if ln.startswith('+++ '):
                    path = ln[6:] if ln.startswith('+++ b/') else None
                if not path or path.startswith('tools/') or \
                        not path.endswith(('.c', '.h')):
                    continue
                m = re.match(r'^@@ [^@]* @@ (.*)$', ln)
                if m:
                    names |= c_functions([m.group(1)])
                    cur = None
                    continue
                if ln[:1] in (' ', '+') and not ln.startswith('+++'):
                    # the function this line's body is of, as far as
                    # the hunk shows it
                    defs = c_functions([ln[1:]])
                    names |= defs if ln[0] == '+' else set()
                    cur = (sorted(defs)[0] if defs else
                           None if ln[1:].startswith('}') else cur)
                if ln[:1] in ('+', '-') and not ln.startswith(('+++',
                                                                '---')) \
                        and cur:
                    names.add(cur)
    return names


class Tree:
    """The cached kernel trees for one base source."""

    def __init__(self, repo=REPO):
        self.repo = repo
        self.cache = cache_dir()
        src = os.environ.get('KERNEL_SRC')
        if src:
            src = os.path.realpath(src)
            if not os.path.exists(src):
                raise Failure('KERNEL_SRC=%s does not exist' % src)
            slug = re.sub(r'[^A-Za-z0-9.]+', '-', os.path.basename(src))
            slug += '-' + hashlib.sha1(src.encode()).hexdigest()[:8]
        else:
            src = None
            slug = BASE_SLUG
        self.src = src
        self.slug = slug
        self.base = os.path.join(self.cache, 'base-' + slug)
        self.tree = os.path.join(self.cache, 'tree-' + slug)
        self.build = os.path.join(self.cache, 'build-' + slug)
        # The stock kernels build from a worktree of base of their own,
        # laid out as the patched tree and its objdirs are: ccache's
        # base_dir makes paths relative to the objdir, and the same
        # relative path (../../tree-<slug>) shares the objects of every
        # file the series does not touch.
        stock = os.path.join(self.cache, 'stock-' + slug)
        self.stock_tree = os.path.join(stock, 'tree-' + slug)
        self.stock_build = os.path.join(stock, 'build-' + slug)
        # The posted v2's kernel (bench's third): base and its patches, in
        # a worktree laid out as stock's for the same reason.
        v2 = os.path.join(self.cache, 'v2-' + slug)
        self.v2_tree = os.path.join(v2, 'tree-' + slug)
        self.v2_build = os.path.join(v2, 'build-' + slug)
        self.logs = os.path.join(self.cache, 'logs')

    def log(self, name):
        return os.path.join(self.logs, name + '.log')

    def make_base(self):
        if os.path.isdir(os.path.join(self.base, '.git')):
            return
        tmp = self.base + '.tmp'
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        log = self.log('unpack')
        open(log, 'w').close()
        if self.src is None:
            self.src = base_tarball()
        with Phase('unpack %s' % self.src):
            if os.path.isdir(self.src):
                run(['cp', '-a', self.src + '/.', tmp], log=log)
                shutil.rmtree(os.path.join(tmp, '.git'), ignore_errors=True)
            elif os.path.isfile(self.src):
                run(['tar', '-xf', self.src, '-C', tmp,
                     '--strip-components=1'], log=log, what='tar')
            else:
                raise Failure('no base tree: %s is missing' % self.src)
            if not os.path.isfile(os.path.join(tmp, 'Makefile')):
                raise Failure('%s does not hold a kernel tree' % self.src)
        with Phase('commit the pristine tree as "base"'):
            git(['init', '-q', '-b', 'base'], cwd=tmp)
            for k, v in (('core.autocrlf', 'false'), ('gc.auto', '0'),
                         ('user.name', BASE_IDENT[0]),
                         ('user.email', BASE_IDENT[1])):
                git(['config', k, v], cwd=tmp)
            git(['add', '-A', '-f', '.'], cwd=tmp)
            git(['commit', '-q', '-m', 'base: %s' % os.path.basename(self.src)],
                cwd=tmp, env=ident_env(BASE_IDENT[:2], BASE_IDENT[2]))
        os.rename(tmp, self.base)

    def clear_stale_locks(self, worktrees=None):
        """Remove index locks an interrupted git left behind: base's and
        those of @worktrees (default: the patched and stock trees)."""
        dirs = [] if worktrees else [os.path.join(self.base, '.git')]
        for wt in worktrees or (self.tree, self.stock_tree):
            # git names a worktree's directory in base: its .git says which
            gitfile = os.path.join(wt, '.git')
            if os.path.isfile(gitfile):
                dirs.append(os.path.join(wt, read(gitfile).split(
                    'gitdir:', 1)[-1].strip()))
        for d in dirs:
            lock = os.path.join(d, 'index.lock')
            if os.path.exists(lock):
                os.unlink(lock)

    def make_stock(self):
        """The stock tree: a detached worktree of base at base's commit."""
        if not os.path.isfile(os.path.join(self.stock_tree, '.git')):
            shutil.rmtree(self.stock_tree, ignore_errors=True)
            git(['worktree', 'prune'], cwd=self.base)
            with Phase('check out the stock tree'):
                git(['worktree', 'add', '-q', '--detach', self.stock_tree,
                     'base'], cwd=self.base)
            return
        base = git(['rev-parse', 'base'], cwd=self.base).strip()
        if git(['rev-parse', 'HEAD'], cwd=self.stock_tree).strip() != base \
                or git(['status', '--porcelain', '--untracked-files=no'],
                       cwd=self.stock_tree):
            git(['reset', '-q', '--hard', base], cwd=self.stock_tree)

    def make_v2(self, files):
        """The v2 tree: a detached worktree of base at base with the mails
        of @files (mboxes or patches, see mail_files()) committed in
        order, on branch v2; only the files that differ from its last
        state are rewritten, so that its build stays incremental.
        Returns the tip."""
        self.make_base()
        self.clear_stale_locks([self.v2_tree])
        with Phase('apply the v2 patches (%s)'
                   % ', '.join(os.path.basename(f) for f in files)):
            tip = self.compose_mails(files)
            git(['update-ref', 'refs/heads/v2', tip], cwd=self.base)
            if not os.path.isfile(os.path.join(self.v2_tree, '.git')):
                shutil.rmtree(self.v2_tree, ignore_errors=True)
                git(['worktree', 'prune'], cwd=self.base)
                git(['worktree', 'add', '-q', '--detach', self.v2_tree, tip],
                    cwd=self.base)
            elif git(['rev-parse', 'HEAD'], cwd=self.v2_tree).strip() != \
                    tip or git(['status', '--porcelain',
                                '--untracked-files=no'], cwd=self.v2_tree):
                git(['reset', '-q', '--hard', tip], cwd=self.v2_tree)
        return tip

    def compose_mails(self, files):
        """Commit each mail of @files on base in a scratch index (git
        apply, the author, date and message of the mail, as compose()
        does for the series); return the last commit."""
        idx = os.path.join(self.cache, 'index-v2.%d' % os.getpid())
        env = dict(os.environ, GIT_INDEX_FILE=idx)
        skipped = []
        try:
            git(['read-tree', 'base'], cwd=self.base, env=env)
            parent = base = git(['rev-parse', 'base'], cwd=self.base).strip()
            for path in files:
                with tempfile.TemporaryDirectory() as d:
                    for mail in split_mails(path, d):
                        if not has_diff(read(mail)):
                            # a cover letter or a reply of a thread's mbox
                            skipped.append(os.path.basename(path))
                            continue
                        rc, out = git(['apply', '--cached',
                                       '--whitespace=nowarn', mail],
                                      cwd=self.base, env=env, check=False)
                        if rc:
                            raise Failure('%s does not apply to the base:'
                                          '\n%s' % (path, out.strip()))
                        tree = git(['write-tree'], cwd=self.base,
                                   env=env).strip()
                        try:
                            author, date, msg = parse_mail(mail, self.base)
                        except Failure:  # a bare diff: named by its file
                            author, date = DEFAULT_AUTHOR, ''
                            msg = os.path.basename(path) + '\n'
                        parent = git(
                            ['commit-tree', tree, '-p', parent],
                            cwd=self.base, stdin=msg,
                            env=ident_env(author, date or BASE_IDENT[2])
                        ).strip()
            if parent == base:
                raise Failure('no patch in %s: no mail with a diff'
                              % ', '.join(files))
            if skipped:
                say('v2: %d mails without a diff left out (a cover letter, '
                    'replies), in %s' % (len(skipped),
                                         ', '.join(sorted(set(skipped)))))
            return parent
        finally:
            if os.path.exists(idx):
                os.unlink(idx)

    def compose(self, series):
        """Build the pagestat commits in a scratch index; return the tip.

        The worktree is not touched here, so an interrupted run leaves
        nothing half-applied.
        """
        idx = os.path.join(self.cache, 'index.%d' % os.getpid())
        env = dict(os.environ, GIT_INDEX_FILE=idx)
        try:
            git(['read-tree', 'base'], cwd=self.base, env=env)
            parent = git(['rev-parse', 'base'], cwd=self.base).strip()
            for patch, files in series:
                path = os.path.join(self.repo, 'patches', patch)
                with open(path) as f:
                    text = f.read()
                if has_diff(text):
                    rc, out = git(['apply', '--cached', '--whitespace=nowarn',
                                   path], cwd=self.base, env=env, check=False)
                    if rc:
                        raise Failure('patch %s does not apply:\n%s'
                                      % (patch, out.strip()))
                if files:
                    paths = [os.path.join(self.repo, f) for f in files]
                    shas = git(['hash-object', '-w', '--stdin-paths'],
                               cwd=self.base, stdin='\n'.join(paths)).split()
                    info = ''.join(
                        '%s %s\t%s\n' % (file_mode(p), s, f)
                        for p, s, f in zip(paths, shas, files))
                    git(['update-index', '--add', '--index-info'],
                        cwd=self.base, env=env, stdin=info)
                tree = git(['write-tree'], cwd=self.base, env=env).strip()
                author, date, msg = parse_mail(path, self.base)
                cenv = ident_env(author, date or BASE_IDENT[2])
                parent = git(['commit-tree', tree, '-p', parent],
                             cwd=self.base, env=cenv, stdin=msg).strip()
            return parent
        finally:
            if os.path.exists(idx):
                os.unlink(idx)

    def update(self):
        """Make base and the pagestat branch; touch only changed files."""
        if getattr(self, 'tip', None):
            return self.tip
        self.tip = self._update()
        return self.tip

    def _update(self):
        self.make_base()
        self.clear_stale_locks()
        self.make_stock()
        series = read_series(self.repo)
        with Phase('apply %d patches from patches/series' % len(series)):
            tip = self.compose(series)
            if not os.path.isdir(self.tree):
                git(['update-ref', 'refs/heads/pagestat', tip], cwd=self.base)
                shutil.rmtree(self.tree, ignore_errors=True)
                git(['worktree', 'prune'], cwd=self.base)
                git(['worktree', 'add', '-q', self.tree, 'pagestat'],
                    cwd=self.base)
                return tip
            dirty = git(['status', '--porcelain', '--untracked-files=no'],
                        cwd=self.tree)
            old = git(['rev-parse', 'HEAD'], cwd=self.tree).strip()
            if dirty and not os.environ.get('PAGESTAT_FORCE'):
                raise Failure(
                    'the patched tree %s has local edits:\n%s\nmove them into '
                    'the overlay (a patch in patches/), then rerun; or set '
                    'PAGESTAT_FORCE=1 to discard them' % (self.tree, dirty))
            if old != tip or dirty:
                git(['reset', '-q', '--hard', tip], cwd=self.tree)
                changed = git(['diff', '--name-only', old, tip],
                              cwd=self.tree).split()
                say('tree: %d files changed' % len(changed))
        return tip


def file_mode(path):
    return '100755' if os.stat(path).st_mode & stat.S_IXUSR else '100644'


def ident_env(ident, date):
    return dict(os.environ, GIT_AUTHOR_NAME=ident[0],
                GIT_AUTHOR_EMAIL=ident[1], GIT_AUTHOR_DATE=date,
                GIT_COMMITTER_NAME=ident[0], GIT_COMMITTER_EMAIL=ident[1],
                GIT_COMMITTER_DATE=date)
