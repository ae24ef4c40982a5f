"""Pi's path rules: ~ and file:// expansion, Node's resolve, the agent dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lsp_server.base.paths import (
    default_agent_dir,
    file_url_to_path,
    is_path_within,
    node_resolve,
    normalize_path,
    resolve_agent_dir,
    resolve_path,
)


def test_bare_tilde_and_tilde_slash_expand_to_home() -> None:
    assert normalize_path("~", home="/h") == "/h"
    assert normalize_path("~/x/y", home="/h") == "/h/x/y"


def test_tilde_user_stays_as_typed() -> None:
    assert normalize_path("~bob/x", home="/h") == "~bob/x"


def test_file_url_is_decoded_with_dot_segments_removed_and_empty_segments_kept() -> None:
    assert file_url_to_path("file:///a%20b/../c") == "/c"
    assert file_url_to_path("file:///a/%2e%2e/b") == "/b"
    assert file_url_to_path("file:///a//b") == "/a//b"
    assert file_url_to_path("file:///a/b/") == "/a/b/"
    assert file_url_to_path("file://localhost/x?q=1#f") == "/x"


def test_file_url_node_rejects_is_kept_as_typed() -> None:
    assert file_url_to_path("file://host/x") is None
    assert normalize_path("file://host/x") == "file://host/x"
    assert normalize_path("file:///a%2Fb") == "file:///a%2Fb"


def test_relative_path_resolves_against_base() -> None:
    assert resolve_path("../c", "/a/b") == "/a/c"
    assert resolve_path("  x  ", "/a", trim=True) == "/a/x"


def test_node_resolve_collapses_leading_double_slash() -> None:
    assert node_resolve("//x/y/") == "/x/y"
    assert node_resolve("/a", "", "b") == "/a/b"


def test_is_path_within_is_by_segment() -> None:
    assert is_path_within("/a/b", "/a/b/c")
    assert is_path_within("/a/b", "/a/b")
    assert not is_path_within("/a/b", "/a/bc")
    assert is_path_within("/", "/x")


def test_agent_dir_comes_from_environment_with_tilde_expanded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/custom")
    assert default_agent_dir(os.environ) == "/home/u/custom"


def test_agent_dir_defaults_to_dot_pi_agent_in_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/u")
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    assert default_agent_dir(os.environ) == "/home/u/.pi/agent"


def test_our_agent_dir_override_beats_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "/from/env")
    assert resolve_agent_dir("agent", cwd="/work", env=os.environ) == "/work/agent"
    assert resolve_agent_dir(None, env=os.environ) == "/from/env"


def test_remembered_real_paths_equal_realpath_through_links_loops_and_missing_parts(tmp_path: Path) -> None:
    """Inside real_paths_remembered() canonicalize_path gives what a fresh os.path.realpath gives."""
    from lsp_server.base.paths import canonicalize_path, real_paths_remembered

    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "real" / "deep" / "SKILL.md").write_text("x", encoding="utf-8")
    (tmp_path / "real" / "file.md").write_text("x", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "up").symlink_to("..")
    (tmp_path / "real" / "deep" / "relative").symlink_to("../file.md")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    paths = [
        tmp_path / "real" / "deep" / "SKILL.md",
        tmp_path / "link" / "deep" / "SKILL.md",
        tmp_path / "link" / "up" / "link" / "file.md",
        tmp_path / "link" / "deep" / "relative",
        tmp_path / "real" / "file.md" / "below-a-file",
        tmp_path / "loop" / "x",
        tmp_path / "dangling",
        tmp_path / "missing" / "SKILL.md",
        tmp_path / "real",
        Path("/"),
    ]
    fresh = [canonicalize_path(str(path)) for path in paths]
    with real_paths_remembered():
        remembered = [canonicalize_path(str(path)) for path in paths * 2]  # twice: the second from memory
    assert remembered == fresh * 2
    assert fresh[1] == str(tmp_path / "real" / "deep" / "SKILL.md")
    assert fresh[4:8] == [str(path) for path in paths[4:8]]  # unresolvable: unchanged
