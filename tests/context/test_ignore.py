"""Gitignore matching as the npm ``ignore`` package does it, and Pi's re-rooting of nested files."""

from __future__ import annotations

from pathlib import Path

from lsp_server.context.ignore import IgnoreMatcher, add_ignore_rules, prefix_ignore_pattern


def matcher(*patterns: str) -> IgnoreMatcher:
    m = IgnoreMatcher()
    m.add(patterns)
    return m


def test_matching_is_case_insensitive() -> None:
    assert matcher("SECRET").ignores("secret/")


def test_a_trailing_slash_matches_directories_only() -> None:
    m = matcher("build/")
    assert m.ignores("build/") and not m.ignores("build")


def test_negation_re_includes() -> None:
    m = matcher("*.md", "!keep.md")
    assert m.ignores("x.md") and not m.ignores("keep.md")


def test_a_file_under_an_ignored_directory_cannot_be_re_included() -> None:
    m = matcher("out/", "!out/in/")
    assert m.ignores("out/in/")


def test_a_pattern_without_slash_matches_at_any_depth() -> None:
    assert matcher("x").ignores("a/b/x/")


def test_a_pattern_with_an_inner_slash_is_anchored() -> None:
    m = matcher("a/x")
    assert m.ignores("a/x") and not m.ignores("b/a/x")


def test_double_star_segments() -> None:
    m = matcher("a/**/b")
    assert m.ignores("a/b") and m.ignores("a/x/y/b") and not m.ignores("c/a/b")


def test_escaped_hash_and_comments() -> None:
    assert matcher("\\#c").ignores("#c") and not matcher("#c").ignores("#c")


def test_bracket_expressions_follow_wildmatch() -> None:
    m = matcher("f[!o]o", "[[:digit:]]x")
    assert m.ignores("fao") and not m.ignores("foo") and m.ignores("7x")


def test_pi_prefixes_nested_patterns_with_their_folder() -> None:
    assert prefix_ignore_pattern("x", "sub/") == "sub/x"
    assert prefix_ignore_pattern("!/y", "sub/") == "!sub/y"
    assert prefix_ignore_pattern("  # note", "sub/") is None


def test_nested_ignore_files_are_re_rooted(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("x\n")
    m = IgnoreMatcher()
    add_ignore_rules(m, str(tmp_path / "sub"), str(tmp_path))
    assert m.ignores("sub/x/") and not m.ignores("sub/y/x/") and not m.ignores("x/")


def test_all_three_ignore_files_are_read(tmp_path: Path) -> None:
    for name, pattern in ((".gitignore", "a"), (".ignore", "b"), (".fdignore", "c")):
        (tmp_path / name).write_text(pattern)
    m = IgnoreMatcher()
    add_ignore_rules(m, str(tmp_path), str(tmp_path))
    assert all(m.ignores(f"{p}/") for p in "abc")
