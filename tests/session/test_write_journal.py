"""The note of an append in flight: only a cut-off prefix of our own bytes is ever removed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lsp_server.session.write_journal import PendingAppend, note_path, record
from lsp_server.session.writer import load_for_append

HEADER = b'{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'
LINE = b'{"type":"compaction","id":"c0ffee00","parentId":null,"summary":"' + b"S" * 200 + b'"}\n'


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PI_CONTEXT_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def _noted(tmp_path: Path, on_disk: bytes, data: bytes = LINE) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER)
    st = os.stat(path)
    assert record(PendingAppend(str(path), st.st_dev, st.st_ino, len(HEADER), data)) == note_path(str(path))
    with path.open("ab") as handle:
        handle.write(on_disk)
    return path


def test_a_cut_off_prefix_of_our_line_is_removed_and_said(tmp_path: Path) -> None:
    path = _noted(tmp_path, LINE[:50])
    session = load_for_append(str(path))
    assert path.read_bytes() == HEADER
    assert session.repaired is not None and "(50 of " in session.repaired and str(path) in session.repaired
    assert session.error is None and session.snapshot is not None and session.snapshot.size == len(HEADER)
    assert not os.path.exists(note_path(str(path)))


@pytest.mark.parametrize(
    "on_disk",
    [b"", LINE, LINE[:80].replace(b"S", b"T"), LINE + b"more\n"],
    ids=["nothing-landed", "all-landed", "other-bytes", "appended-after"],
)
def test_anything_else_is_left_alone_and_the_note_dropped(tmp_path: Path, on_disk: bytes) -> None:
    path = _noted(tmp_path, on_disk)
    before = path.read_bytes()
    assert load_for_append(str(path)).repaired is None
    assert path.read_bytes() == before
    assert not os.path.exists(note_path(str(path)))


def test_a_note_about_another_file_at_the_same_path_is_ignored(tmp_path: Path) -> None:
    path = _noted(tmp_path, LINE[:50])
    replacement = tmp_path / "other.jsonl"
    replacement.write_bytes(path.read_bytes())
    os.replace(replacement, path)
    before = path.read_bytes()
    assert load_for_append(str(path)).repaired is None
    assert path.read_bytes() == before


def test_an_unreadable_note_changes_nothing(tmp_path: Path) -> None:
    path = _noted(tmp_path, LINE[:50])
    Path(note_path(str(path))).write_text("{not json", encoding="ascii")
    before = path.read_bytes()
    assert load_for_append(str(path)).repaired is None
    assert path.read_bytes() == before
