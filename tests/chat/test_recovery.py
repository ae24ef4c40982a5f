"""A chat's session file deleted or replaced: how the change is told from Pi's appends, and the write-back."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from lsp_server.chat.recovery import SessionGuard, compare, read_mark, write_back
from lsp_server.session.tail import load_session

HEADER = {"type": "session", "version": 3, "id": "0197-abc", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}


def message(entry_id: str, parent: str | None, role: str, text: str) -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-01-01T00:00:01.000Z",
        "message": {"role": role, "content": content, "timestamp": 1},
    }


ENTRIES = [message("a1", None, "user", "hi"), message("a2", "a1", "user", "again"), message("a3", "a2", "user", "more")]


def write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines), encoding="utf-8")


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_append_is_not_a_replacement(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, [HEADER, *ENTRIES[:1]])
    before = read_mark(str(path))
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(ENTRIES[1]) + "\n")
    change, after, _ = compare(before, str(path))
    assert change == "appended" and after is not None
    assert compare(after, str(path))[0] == "same"


def test_a_new_inode_a_shorter_file_and_rewritten_bytes_are_replacements(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, [HEADER, *ENTRIES])
    mark = read_mark(str(path))
    other = tmp_path / "o.jsonl"
    write(other, [HEADER, *ENTRIES])
    os.replace(other, path)
    assert compare(mark, str(path))[:3:2] == ("replaced", "another file now has its name")
    mark = read_mark(str(path))
    write(path, [HEADER, *ENTRIES[:2]])  # same inode, fewer lines
    assert compare(mark, str(path))[0] == "replaced"
    many = [message(f"m{n}", None, "user", f"message {n}") for n in range(60)]  # past the first 4 KiB
    write(path, [HEADER, *many, *ENTRIES])
    mark = read_mark(str(path))
    text = path.read_text(encoding="utf-8").replace('"more"', '"MORE"')  # same size, last line rewritten
    path.write_text(text, encoding="utf-8")
    assert compare(mark, str(path))[:3:2] == ("replaced", "lines it had were rewritten")
    path.unlink()
    assert compare(read_mark(str(tmp_path / "gone")), str(path))[0] == "same"  # it was never there
    assert compare(mark, str(path))[0] == "deleted"


def test_the_guard_reports_a_loss_once_and_keeps_the_header_it_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    guard = SessionGuard(str(path))  # a new chat: Pi writes the file with its first message
    assert guard.check() is None and guard.header is None
    write(path, [HEADER, *ENTRIES[:1]])
    assert guard.check() is None and guard.header == HEADER
    path.unlink()
    loss = guard.check()
    assert loss is not None and loss.change == "deleted"
    assert guard.check() is None  # said once; the guard waits for the write-back


def test_a_missing_file_is_written_back_at_its_path(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    restored = write_back(str(path), HEADER, ENTRIES)
    assert not isinstance(restored, str) and (restored.path, restored.kind) == (str(path), "written")
    assert lines_of(path) == [HEADER, *ENTRIES]
    assert load_session(str(path)).problems == []


def test_a_file_holding_only_lines_of_the_session_is_replaced_by_the_whole_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, ENTRIES[2:])  # what Pi appended after a deletion: no header
    restored = write_back(str(path), HEADER, ENTRIES)
    assert not isinstance(restored, str) and restored.kind == "rewritten"
    assert lines_of(path) == [HEADER, *ENTRIES]
    assert [p.name for p in tmp_path.iterdir()] == ["s.jsonl"]  # no temporary file left


def test_somebody_elses_file_is_left_alone_and_the_session_goes_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    theirs = [{"type": "session", "version": 3, "id": "other", "timestamp": "x", "cwd": "/o"}, ENTRIES[0]]
    write(path, theirs)
    (tmp_path / "s.restored.jsonl").write_text("taken\n", encoding="utf-8")
    restored = write_back(str(path), HEADER, ENTRIES)
    assert not isinstance(restored, str)
    assert (restored.kind, restored.path, restored.foreign_lines) == ("beside", str(tmp_path / "s.restored-2.jsonl"), 1)
    assert lines_of(path) == theirs
    assert lines_of(Path(restored.path)) == [HEADER, *ENTRIES]
    assert "is left as it is" in restored.sentence(str(path))


def test_a_file_that_cannot_be_compared_is_left_alone_and_the_sentence_says_why_not_how_many_lines(
    tmp_path: Path,
) -> None:
    """A dangling symlink (or a FIFO, a folder) in the session's place: no line count, the reason (issue 18)."""
    path = tmp_path / "s.jsonl"
    path.symlink_to(tmp_path / "nowhere.jsonl")
    restored = write_back(str(path), HEADER, ENTRIES)
    assert not isinstance(restored, str)
    assert (restored.kind, restored.path, restored.foreign_lines) == ("beside", str(tmp_path / "s.restored.jsonl"), 0)
    assert restored.unreadable is not None
    said = restored.sentence(str(path))
    assert said.startswith(f"{path} could not be compared with this chat's session (") and "line(s)" not in said
    assert restored.unreadable in said and "is left as it is" in said
    assert path.is_symlink() and not (tmp_path / "nowhere.jsonl").exists()  # never followed, never written
    assert lines_of(Path(restored.path)) == [HEADER, *ENTRIES]


def test_a_file_put_in_place_before_the_guard_first_saw_it_is_not_taken_for_the_session(tmp_path: Path) -> None:
    # Pi's first write and a replacement can fall in one burst of events: the guard's first look then
    # sees a file that appeared, and only its header says whose it is.
    path = tmp_path / "s.jsonl"
    guard = SessionGuard(str(path), HEADER["id"])
    path.write_text('{"type":"note"}\n', encoding="utf-8")
    loss = guard.check()
    assert loss is not None and loss.change == "replaced" and "not a session header" in loss.reason
    other = SessionGuard(str(tmp_path / "t.jsonl"), HEADER["id"])
    write(tmp_path / "t.jsonl", [{**HEADER, "id": "someone-else"}, *ENTRIES[:1]])
    loss = other.check()
    assert loss is not None and "it holds session 'someone-else'" in loss.reason
    mine = SessionGuard(str(tmp_path / "u.jsonl"), HEADER["id"])
    (tmp_path / "u.jsonl").write_bytes(b'{"type":"session","ver')  # Pi's first line still being written
    assert mine.check() is None and mine.mark is None
    write(tmp_path / "u.jsonl", [HEADER, *ENTRIES[:1]])
    assert mine.check() is None and mine.header == HEADER
