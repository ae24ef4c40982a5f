"""Following a growing session: only new lines are read; rewrites reload; a partial line is provisional."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_server.session import jsonl as jsonl_module
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.session.tail import SessionFile, load_session
from tests.session._entries import header, jsonl, message, ts, user


def _line(entry_id: str, parent: str | None, text: str = "x") -> str:
    return json.dumps(message(entry_id, parent, user(text))) + "\n"


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def test_first_refresh_loads_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + _line("a", None) + _line("b", "a"))
    session = SessionFile(path)
    result = session.refresh()
    assert (result.kind, result.new_entries) == ("loaded", 2)
    assert [e["id"] for e in session.entries] == ["a", "b"]
    assert session.lines == [2, 3]
    assert session.index.leaf_id == "b"


def test_appended_lines_are_added_without_reparsing_earlier_ones(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + "not json\n" + _line("a", None))
    session = load_session(path)
    _append(path, _line("b", "a") + _line("c", "b"))
    result = session.refresh()
    assert (result.kind, result.new_entries) == ("appended", 2)
    assert [e["id"] for e in session.entries] == ["a", "b", "c"]
    assert [p.line for p in session.problems] == [2]  # the bad line is reported once, not again
    assert session.lines == [3, 4, 5]


def test_unchanged_file_is_not_read_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + _line("a", None))
    session = load_session(path)
    assert session.refresh().kind == "unchanged"


def test_last_line_without_newline_is_shown_then_replaced_when_complete(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + _line("a", None) + _line("b", "a", "draft").rstrip("\n"))
    session = load_session(path)
    assert [e["id"] for e in session.entries] == ["a", "b"]
    assert session.needs_newline
    _write(path, jsonl(header()) + _line("a", None) + _line("b", "a", "draft") + _line("c", "b"))
    result = session.refresh()
    assert (result.kind, result.retracted, result.new_entries) == ("appended", 1, 2)
    assert [e["id"] for e in session.entries] == ["a", "b", "c"]
    assert not session.needs_newline
    assert session.problems == []


def test_line_cut_mid_write_is_never_kept_half_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    full = _line("b", "a", "complete text")
    _write(path, jsonl(header()) + _line("a", None) + full[:25])
    session = load_session(path)
    assert [e["id"] for e in session.entries] == ["a"]
    assert [p.code for p in session.problems] == ["session/invalid-json"]
    _append(path, full[25:])
    session.refresh()
    assert session.entries[-1]["message"]["content"] == "complete text"
    assert session.problems == []


def test_provisional_label_is_taken_back_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    label = {"type": "label", "id": "l", "parentId": "a", "timestamp": ts(2), "targetId": "a", "label": "x"}
    _write(path, jsonl(header()) + _line("a", None) + json.dumps(label)[:-1])
    session = load_session(path)
    assert session.index.labels == {}
    assert session.index.leaf_id == "a"


def test_replaced_file_is_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + _line("a", None))
    session = load_session(path)
    other = tmp_path / "new.jsonl"
    _write(other, jsonl(header(session_id="s2")) + _line("z", None) + _line("y", "z"))
    os.replace(other, path)
    result = session.refresh()
    assert (result.kind, result.reason) == ("reloaded", "the file was replaced")
    assert session.header is not None and session.header["id"] == "s2"
    assert [e["id"] for e in session.entries] == ["z", "y"]


def test_shrunk_file_is_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + _line("a", None) + _line("b", "a"))
    session = load_session(path)
    _write(path, jsonl(header()) + _line("a", None))
    assert session.refresh().reason == "the file shrank"
    assert [e["id"] for e in session.entries] == ["a"]


def test_rewritten_start_is_noticed_even_when_the_file_grew(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header(version=None)) + _line("a", None))
    session = load_session(path)
    _write(path, jsonl(header(version=3)) + _line("a", None) + _line("b", "a"))
    result = session.refresh()
    assert result.reason == "the start of the file changed"
    assert session.migrated_from is None


def test_deleted_file_reports_missing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + _line("a", None))
    session = load_session(path)
    path.unlink()
    assert session.refresh().kind == "missing"
    assert session.entries == []


def test_v1_session_is_migrated_as_it_grows_with_the_ids_a_full_load_gives(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    old = [{"type": "message", "timestamp": ts(i), "message": user(f"m{i}")} for i in range(4)]
    _write(path, jsonl(header(version=None), *old[:2]))
    session = load_session(path)
    _append(path, jsonl(*old[2:]))
    session.refresh()
    fresh = load_session(path)
    assert [(e["id"], e["parentId"]) for e in session.entries] == [(e["id"], e["parentId"]) for e in fresh.entries]
    assert session.entries[-1]["parentId"] == "00000003"
    assert session.migrated_from == 1
    assert path.read_text().count('"id"') == 1  # only the header's: nothing written back


def test_not_a_session_is_reported_as_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, _line("a", None))
    session = load_session(path)
    assert session.error == f"Session file is not a valid pi session: {path}"
    assert session.findings()[0].code == "session/not-a-session"


def test_tree_problems_become_findings_on_the_entry_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + _line("a", None) + _line("b", "gone"))
    findings = load_session(path).findings()
    assert [(f.code, f.range.start.line) for f in findings] == [("session/missing-parent", 2)]


def test_a_separate_writer_process_appending_in_two_writes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, jsonl(header()) + _line("a", None))
    session = load_session(path)
    line = _line("b", "a", "from another process")
    writer = "import sys\nwith open(sys.argv[1], 'a') as f:\n    f.write(sys.argv[2])\n"
    subprocess.run([sys.executable, "-c", writer, str(path), line[:30]], check=True)
    session.refresh()
    assert [e["id"] for e in session.entries] == ["a"]
    subprocess.run([sys.executable, "-c", writer, str(path), line[30:]], check=True)
    session.refresh()
    assert [e["id"] for e in session.entries] == ["a", "b"]
    assert session.projection().messages[-1]["content"] == "from another process"


def _state(session: SessionFile) -> tuple[object, ...]:
    return (
        repr(session.entries),
        session.lines,
        session.problems,
        session.offset,
        session._mark,
        session._next_line,
        session.needs_newline,
        None if session.nonobject_leaf is None else (session.nonobject_leaf.line, session.nonobject_leaf.value),
        session.index.leaf_id,
    )


@pytest.mark.parametrize("version", [3, None], ids=["v3", "v1"])
@pytest.mark.parametrize("seed", range(4))
def test_following_in_small_chunks_and_pieces_ends_as_one_full_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, version: int | None
) -> None:
    """Lines cut across chunks and across writes: the followed view equals a fresh load of the file.

    In a v1 session (migrated as it is read) the array lines become nodes of the tree; numbers and
    strings are left out there, since Pi cannot open a v1 session holding one.
    """
    rng = random.Random(seed)
    lines = [jsonl(header(version=version))]
    odd_lines = ["42\n", "{broken\n", "\n", "[1]\n", '"x"\n'] if version else ["{broken\n", "\n", "[1]\n", "[[2],3]\n"]
    parent = None
    for n in range(60):
        roll = rng.random()
        if roll < 0.08:
            lines.append(rng.choice(odd_lines))
            continue
        entry_id = f"e{n}"
        lines.append(_line(entry_id, parent, "w" * rng.randint(0, 150)))
        parent = entry_id
    text = "".join(lines).encode()
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    limits = SessionReadLimits(max_line_bytes=250)  # some lines are over it
    followed = SessionFile(path, limits)
    monkeypatch.setattr(jsonl_module, "READ_CHUNK_BYTES", rng.choice([3, 17, 64, 100]))
    written = 0
    while written < len(text):
        piece = rng.randint(1, 300)
        with path.open("ab") as handle:
            handle.write(text[written : written + piece])
        written += piece
        followed.refresh()
    monkeypatch.setattr(jsonl_module, "READ_CHUNK_BYTES", 4 * 1024 * 1024)
    fresh = SessionFile(path, limits)
    fresh.refresh()
    assert _state(followed) == _state(fresh)
    assert followed._mark == text[: followed.offset][-64:]
    assert fresh.entries and "session/line-too-long" in {p.code for p in fresh.problems}
    assert fresh.error is None
