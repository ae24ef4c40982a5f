"""Pi's context-file rules (pi-behavior §3), one test per rule, on real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lsp_server.base import fsread
from lsp_server.context.context_files import choose_context_file, discover_context_files, load_project_context_files


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def paths(tmp_path: Path, discovery_files: list[str]) -> list[str]:
    return [os.path.relpath(p, tmp_path) for p in discovery_files]


def test_first_regular_candidate_wins_and_later_ones_are_outranked(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "a", "CLAUDE.md": "c"})
    choice = choose_context_file(str(tmp_path))
    assert choice.chosen is not None and choice.chosen.content == "a"
    assert [(c.name, c.status) for c in choice.candidates] == [("AGENTS.md", "chosen"), ("CLAUDE.md", "outranked")]


def test_override_file_beats_agents_md(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.override.md": "o", "AGENTS.md": "a"})
    chosen = choose_context_file(str(tmp_path)).chosen
    assert chosen is not None and chosen.path.endswith("AGENTS.override.md")


def test_directory_named_like_a_candidate_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").mkdir()
    write(tmp_path, {"CLAUDE.md": "c"})
    choice = choose_context_file(str(tmp_path))
    assert choice.chosen is not None and choice.chosen.path.endswith("CLAUDE.md")
    assert choice.candidates[0].status == "not-a-file"


def test_fifo_named_like_a_candidate_is_skipped_without_reading(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "AGENTS.md")
    write(tmp_path, {"CLAUDE.md": "c"})
    choice = choose_context_file(str(tmp_path))
    assert choice.chosen is not None and choice.chosen.content == "c"
    assert choice.candidates[0].status == "not-a-file"


def test_symlink_loop_counts_as_missing(tmp_path: Path) -> None:
    os.symlink(tmp_path / "AGENTS.md", tmp_path / "AGENTS.md")
    write(tmp_path, {"CLAUDE.md": "c"})
    choice = choose_context_file(str(tmp_path))
    assert choice.chosen is not None and choice.chosen.content == "c"
    assert [c.name for c in choice.candidates] == ["CLAUDE.md"]


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux /proc")
def test_unreadable_candidate_warns_and_the_next_one_is_tried(tmp_path: Path) -> None:
    # /proc/self/mem is a regular file whose read fails (EIO), even for root.
    os.symlink("/proc/self/mem", tmp_path / "AGENTS.md")
    write(tmp_path, {"CLAUDE.md": "fallback"})
    choice = choose_context_file(str(tmp_path))
    assert choice.chosen is not None and choice.chosen.content == "fallback"
    assert choice.candidates[0].status == "unreadable"
    assert choice.warnings == (f"Warning: Could not read {tmp_path}/AGENTS.md: Error: {choice.candidates[0].error}",)


def test_one_leading_bom_is_stripped(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "\ufeff\ufeffx"})
    chosen = choose_context_file(str(tmp_path)).chosen
    assert chosen is not None and chosen.content == "\ufeffx" and chosen.had_bom


def test_invalid_utf8_is_replaced_and_located(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": b"ok\nab\xffc"})
    chosen = choose_context_file(str(tmp_path)).chosen
    assert chosen is not None and chosen.content == "ok\nab\ufffdc"
    assert chosen.invalid_utf8 is not None
    assert (chosen.invalid_utf8.line, chosen.invalid_utf8.column) == (1, 2)


def test_global_file_first_then_ancestors_root_most_first(tmp_path: Path) -> None:
    write(tmp_path, {"agent/AGENTS.md": "g", "repo/CLAUDE.md": "r", "repo/pkg/AGENTS.md": "p"})
    files = load_project_context_files(str(tmp_path / "repo" / "pkg"), str(tmp_path / "agent"))
    assert paths(tmp_path, [f.path for f in files]) == ["agent/AGENTS.md", "repo/CLAUDE.md", "repo/pkg/AGENTS.md"]


def test_agent_dir_in_the_ancestor_chain_is_taken_once(tmp_path: Path) -> None:
    write(tmp_path, {"repo/AGENTS.md": "r", "repo/pkg/AGENTS.md": "p"})
    discovery = discover_context_files(str(tmp_path / "repo" / "pkg"), str(tmp_path / "repo"))
    assert paths(tmp_path, [f.path for f in discovery.files]) == ["repo/AGENTS.md", "repo/pkg/AGENTS.md"]
    repo_dirs = [d for d in discovery.directories if d.directory == str(tmp_path / "repo")]
    assert [(d.scope, d.excluded) for d in repo_dirs] == [("global", None), ("ancestor", "duplicate")]


def nested_worktree(tmp_path: Path, main_file: str, worktree_file: str | None) -> Path:
    files: dict[str, str | bytes] = {
        "agent/.keep": "",
        "main/.git/HEAD": "ref: refs/heads/main\n",
        "main/.git/worktrees/feat/HEAD": "ref: refs/heads/feat\n",
        "main/.git/worktrees/feat/commondir": "../..\n",
        f"main/{main_file}": "main",
        "main/wt/feat/.git": f"gitdir: {tmp_path}/main/.git/worktrees/feat\n",
    }
    if worktree_file is not None:
        files[f"main/wt/feat/{worktree_file}"] = "worktree"
    write(tmp_path, files)
    return tmp_path / "main" / "wt" / "feat"


def test_nested_worktree_shadows_the_main_repo_file_of_the_same_name(tmp_path: Path) -> None:
    cwd = nested_worktree(tmp_path, "AGENTS.md", "AGENTS.md")
    discovery = discover_context_files(str(cwd), str(tmp_path / "agent"))
    assert [f.content for f in discovery.files] == ["worktree"]
    assert discovery.shadowed_path == str(tmp_path / "main" / "AGENTS.md")
    main_dir = next(d for d in discovery.directories if d.directory == str(tmp_path / "main"))
    assert main_dir.excluded == "worktree-shadowed"


def test_nested_worktree_keeps_a_main_repo_file_of_another_name(tmp_path: Path) -> None:
    cwd = nested_worktree(tmp_path, "AGENTS.md", "CLAUDE.md")
    assert [f.content for f in discover_context_files(str(cwd), str(tmp_path / "agent")).files] == ["main", "worktree"]


def test_nested_worktree_without_its_own_file_inherits_the_main_file(tmp_path: Path) -> None:
    cwd = nested_worktree(tmp_path, "AGENTS.md", None)
    discovery = discover_context_files(str(cwd), str(tmp_path / "agent"))
    assert [f.content for f in discovery.files] == ["main"]
    assert discovery.worktree is None


def test_switching_discovery_off_reads_nothing(tmp_path: Path) -> None:
    write(tmp_path, {"agent/AGENTS.md": "g", "repo/AGENTS.md": "r"})
    discovery = discover_context_files(str(tmp_path / "repo"), str(tmp_path / "agent"), enabled=False)
    assert discovery.files == () and discovery.directories == () and not discovery.enabled


def test_open_buffer_text_replaces_the_file_on_disk(tmp_path: Path) -> None:
    write(tmp_path, {"AGENTS.md": "on disk"})
    target = str(tmp_path / "AGENTS.md")

    def reader(path: str) -> fsread.ReadResult:
        if path == target:
            return fsread.ReadResult(path, "unsaved edit", size=12)
        return fsread.read_text(path)

    chosen = choose_context_file(str(tmp_path), reader).chosen
    assert chosen is not None and chosen.content == "unsaved edit"
