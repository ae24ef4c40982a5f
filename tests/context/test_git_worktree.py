"""Finding the repository and the nested linked-worktree layout from .git files alone."""

from __future__ import annotations

from pathlib import Path

from lsp_server.context.git_worktree import find_git_paths, nested_linked_worktree


def write(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def main_repo_with_worktree(tmp_path: Path, gitdir_line: str, worktree: str = "main/wt/feat") -> None:
    write(
        tmp_path,
        {
            "main/.git/HEAD": "ref: refs/heads/main\n",
            "main/.git/worktrees/feat/HEAD": "ref: refs/heads/feat\n",
            "main/.git/worktrees/feat/commondir": "../..\n",
            f"{worktree}/.git": gitdir_line,
        },
    )


def test_ordinary_repo_is_its_own_common_dir(tmp_path: Path) -> None:
    write(tmp_path, {"repo/.git/HEAD": "ref: refs/heads/main\n", "repo/src/x": ""})
    found = find_git_paths(str(tmp_path / "repo" / "src"))
    assert found is not None
    assert found.repo_dir == str(tmp_path / "repo")
    assert found.common_git_dir == str(tmp_path / "repo" / ".git")


def test_linked_worktree_common_dir_comes_from_commondir(tmp_path: Path) -> None:
    main_repo_with_worktree(tmp_path, "gitdir: ../../.git/worktrees/feat\n")
    found = find_git_paths(str(tmp_path / "main" / "wt" / "feat"))
    assert found is not None
    assert found.git_dir == str(tmp_path / "main" / ".git" / "worktrees" / "feat")
    assert found.common_git_dir == str(tmp_path / "main" / ".git")


def test_git_file_without_gitdir_prefix_is_passed_over(tmp_path: Path) -> None:
    main_repo_with_worktree(tmp_path, "something else\n")
    found = find_git_paths(str(tmp_path / "main" / "wt" / "feat"))
    assert found is not None
    assert found.repo_dir == str(tmp_path / "main")


def test_git_dir_without_head_ends_the_search(tmp_path: Path) -> None:
    write(tmp_path, {"outer/.git/HEAD": "x", "outer/inner/.git/config": ""})
    assert find_git_paths(str(tmp_path / "outer" / "inner")) is None


def test_outside_any_repository_there_is_no_answer(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    found = find_git_paths(str(tmp_path / "plain"))
    assert found is None or not found.repo_dir.startswith(str(tmp_path))


def test_worktree_nested_in_its_main_repo_is_detected(tmp_path: Path) -> None:
    main_repo_with_worktree(tmp_path, f"gitdir: {tmp_path}/main/.git/worktrees/feat\n")
    nested = nested_linked_worktree(str(tmp_path / "main" / "wt" / "feat"))
    assert nested is not None
    assert nested.main_repo_root == str(tmp_path / "main")
    assert nested.worktree_root == str(tmp_path / "main" / "wt" / "feat")


def test_sibling_worktree_is_not_nested(tmp_path: Path) -> None:
    main_repo_with_worktree(tmp_path, f"gitdir: {tmp_path}/main/.git/worktrees/feat\n", worktree="feat")
    assert nested_linked_worktree(str(tmp_path / "feat")) is None


def test_bare_layout_is_not_nested(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "proj/.bare/HEAD": "ref: refs/heads/main\n",
            "proj/.bare/worktrees/main/HEAD": "ref: refs/heads/main\n",
            "proj/.bare/worktrees/main/commondir": "../..\n",
            "proj/.git": "gitdir: ./.bare\n",
            "proj/main/.git": f"gitdir: {tmp_path}/proj/.bare/worktrees/main\n",
        },
    )
    assert nested_linked_worktree(str(tmp_path / "proj" / "main")) is None


def test_submodule_is_not_nested(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "super/.git/HEAD": "ref: refs/heads/main\n",
            "super/.git/modules/sub/HEAD": "ref: refs/heads/main\n",
            "super/sub/.git": "gitdir: ../.git/modules/sub\n",
        },
    )
    assert nested_linked_worktree(str(tmp_path / "super" / "sub")) is None


def test_ordinary_repo_is_not_nested(tmp_path: Path) -> None:
    write(tmp_path, {"repo/.git/HEAD": "ref: refs/heads/main\n"})
    assert nested_linked_worktree(str(tmp_path / "repo")) is None
