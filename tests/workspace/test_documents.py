"""The document store: an open buffer is the truth for its file, the disk otherwise."""

from __future__ import annotations

from pathlib import Path

from lsp_server.workspace.documents import DocumentStore, path_key


def test_closed_file_is_read_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("disk", encoding="utf-8")
    source = DocumentStore().read(str(path))
    assert (source.text, source.version, source.from_buffer) == ("disk", None, False)


def test_open_buffer_wins_over_disk(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("disk", encoding="utf-8")
    store = DocumentStore()
    store.open(str(path), "file:///x", "buffer", 3)
    source = store.read(str(path))
    assert (source.text, source.version, source.from_buffer) == ("buffer", 3, True)


def test_update_replaces_text_and_version(tmp_path: Path) -> None:
    store = DocumentStore()
    store.open(str(tmp_path / "a.md"), "file:///a", "one", 1)
    store.update(str(tmp_path / "a.md"), "two", 2)
    assert store.read(str(tmp_path / "a.md")).text == "two"


def test_update_of_a_file_that_is_not_open_is_ignored(tmp_path: Path) -> None:
    store = DocumentStore()
    assert store.update(str(tmp_path / "a.md"), "late", 9) is None
    assert not store.is_open(str(tmp_path / "a.md"))


def test_closing_hands_the_file_back_to_the_disk(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text("disk", encoding="utf-8")
    store = DocumentStore()
    store.open(str(path), "file:///s", "buffer", 1)
    store.close(str(path))
    assert store.read(str(path)).text == "disk"


def test_missing_file_reads_as_none_with_node_style_error(tmp_path: Path) -> None:
    source = DocumentStore().read(str(tmp_path / "gone.md"))
    assert source.text is None
    assert source.error is not None and source.error.startswith("ENOENT: no such file or directory")


def test_paths_are_normalised_so_spellings_of_one_file_meet(tmp_path: Path) -> None:
    store = DocumentStore()
    store.open(f"{tmp_path}/x/../a.md", "file:///a", "t", 1)
    assert store.is_open(str(tmp_path / "a.md"))
    assert store.open_paths() == [path_key(str(tmp_path / "a.md"))]
