"""Where the git repository of a directory is, read from ``.git`` files alone (no git subprocess).

Pi needs this for one rule: a *linked worktree nested inside its main working tree*
(``git worktree add wt/feat`` inside the repo) would otherwise load the main repo's AGENTS.md
and the worktree's own copy of it, i.e. the same instructions twice. Pi finds the repository the
way its footer does (``findGitPaths`` in ``core/footer-data-provider.js``): walk up from cwd to
the first ``.git``; a directory is an ordinary repo, a file holding ``gitdir: <path>`` is a
linked worktree or a submodule, and ``<gitdir>/commondir`` (when present) points at the shared
git dir. A ``.git`` file without ``gitdir:`` is passed over; a git dir without ``HEAD`` ends the
search with no answer.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

from lsp_server.base import fsread
from lsp_server.base.paths import canonicalize_path, is_path_within, node_resolve, paths_equal
from lsp_server.js.strings import js_trim

_GITDIR_PREFIX = "gitdir: "


@dataclass(frozen=True)
class GitPaths:
    """Pi's ``findGitPaths`` result: the working tree root, the shared git dir, and HEAD."""

    repo_dir: str
    common_git_dir: str
    head_path: str
    git_dir: str  # the per-worktree git dir (equals common_git_dir for an ordinary repo)


@dataclass(frozen=True)
class NestedWorktree:
    """A linked worktree inside its main repo's working tree (all paths are real paths)."""

    worktree_root: str
    main_repo_root: str
    common_git_dir: str


def find_git_paths(cwd: str) -> GitPaths | None:
    """The repository containing ``cwd``, found exactly as Pi finds it; ``None`` outside a repo."""
    directory = cwd
    while True:
        git_path = posixpath.join(directory, ".git")
        if fsread.exists(git_path):
            found = _read_git_entry(directory, git_path)
            if found is not _KEEP_WALKING:
                return found if isinstance(found, GitPaths) else None
        parent = posixpath.dirname(directory)
        if parent == directory:
            return None
        directory = parent


class _KeepWalking:
    pass


_KEEP_WALKING = _KeepWalking()


def _read_git_entry(directory: str, git_path: str) -> GitPaths | _KeepWalking | None:
    if fsread.is_regular_file(git_path):
        read = fsread.read_text(git_path)
        if read.text is None:
            return None  # Pi's try/catch: an unreadable .git file ends the search
        content = js_trim(read.text)
        if not content.startswith(_GITDIR_PREFIX):
            return _KEEP_WALKING
        git_dir = node_resolve(directory, js_trim(content[len(_GITDIR_PREFIX) :]))
        head_path = posixpath.join(git_dir, "HEAD")
        if not fsread.exists(head_path):
            return None
        commondir_path = posixpath.join(git_dir, "commondir")
        common_git_dir = git_dir
        if fsread.exists(commondir_path):
            commondir = fsread.read_text(commondir_path)
            if commondir.text is None:
                return None
            common_git_dir = node_resolve(git_dir, js_trim(commondir.text))
        return GitPaths(repo_dir=directory, common_git_dir=common_git_dir, head_path=head_path, git_dir=git_dir)
    if fsread.is_directory(git_path):
        head_path = posixpath.join(git_path, "HEAD")
        if not fsread.exists(head_path):
            return None
        return GitPaths(repo_dir=directory, common_git_dir=git_path, head_path=head_path, git_dir=git_path)
    return _KEEP_WALKING  # a FIFO or other special file named .git


def nested_linked_worktree(cwd: str) -> NestedWorktree | None:
    """The nested-worktree layout Pi's shadowing rule applies to, or ``None``.

    True only when the worktree root lies strictly inside the main repo root (the parent of the
    common git dir) and ``<main>/.git`` really is that common git dir. So sibling worktrees
    (main repo not an ancestor), bare layouts (``proj/.bare`` + ``proj/main``: ``proj/.git`` is not
    the common dir) and submodules (no ``commondir``: the common dir is under ``.git/modules``) are
    all left alone. Real paths are compared, since ``git worktree add`` writes real paths while
    the cwd may go through a symlink.
    """
    git_paths = find_git_paths(cwd)
    if git_paths is None:
        return None
    common_git_dir = canonicalize_path(git_paths.common_git_dir)
    worktree_root = canonicalize_path(git_paths.repo_dir)
    main_repo_root = posixpath.dirname(common_git_dir)
    if not is_path_within(main_repo_root, worktree_root) or paths_equal(worktree_root, main_repo_root):
        return None
    if not paths_equal(canonicalize_path(os.path.join(main_repo_root, ".git")), common_git_dir):
        return None
    return NestedWorktree(worktree_root=worktree_root, main_repo_root=main_repo_root, common_git_dir=common_git_dir)
