"""A session written by a newer Pi: read as far as it goes, with one finding naming what is new."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsp_server.base.findings import Severity
from lsp_server.session.novelty import CODE, ITEMS_SHOWN, LINES_SHOWN
from lsp_server.session.projection import build_session_projection
from lsp_server.session.tail import SessionFile, load_session

USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15}


def header(version: int | None = 3, **more: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"type": "session", "id": "s", "timestamp": "2026-12-01T00:00:00.000Z", "cwd": "/w"}
    if version is not None:
        line["version"] = version
    return {**line, **more}


def message(entry_id: str, parent: str | None, role: str, text: str, **more: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}
    if role == "assistant":
        body.update(api="openai-completions", provider="p", model="m", usage=USAGE, stopReason="stop")
    body["timestamp"] = 1
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-12-01T00:00:01.000Z",
            "message": body, **more}  # fmt: skip


def write(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def newer(session: Any) -> list[Any]:
    return [p for p in session.all_problems() if p.code == CODE]


def test_what_a_newer_pi_wrote_is_named_once_and_the_rest_is_read(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        [
            header(4),
            message("a1", None, "user", "hello"),
            message("a2", "a1", "assistant", "hi"),
            {"type": "checkpoint", "id": "a3", "parentId": "a2", "timestamp": "2026-12-01T00:00:03.000Z"},
            {
                "type": "compaction",
                "id": "a4",
                "parentId": "a3",
                "timestamp": "2026-12-01T00:00:04.000Z",
                "summary": "S",
                "firstKeptEntryId": "a2",
                "tokensBefore": 100,
                "retainedTail": {"entries": 2},
            },
            message("a5", "a4", "note", "a role of its own"),
            message("a6", "a5", "user", "go on"),
        ],
    )
    session = load_session(path)
    assert session.is_session and len(session.entries) == 6
    (found,) = newer(session)
    assert found.line == 1 and found.severity == Severity.WARNING  # where the first new thing is: the header
    assert found.reason == (
        "Written by a newer Pi than pi-context knows (its newest is Pi 1.6.0): session version 4 (pi-context knows "
        "up to 3), entries of type 'checkpoint' (line 4), 'retainedTail' on compaction entries (line 5), messages "
        "with role 'note' (line 6). Read as far as it goes: what is new is kept as written and left out of the "
        "context counts and the projected request."
    )
    # Read as far as it goes: the compaction applies, the user message after it is in the next request.
    projection = build_session_projection(session.entries, session.default_leaf, session.index.by_id)
    roles = [m.get("role") for m in projection.messages]
    assert roles[0] == "compactionSummary" and roles[-1] == "user"
    finding = next(f for f in session.findings() if f.code == CODE)
    assert finding.range.start.line == 0


def test_a_session_of_a_known_pi_has_nothing_new(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl", [header(3), message("a1", None, "user", "hi"), message("a2", "a1", "assistant", "yo")]
    )
    assert newer(load_session(path)) == []


def test_what_older_pi_releases_wrote_is_not_new(tmp_path: Path) -> None:
    """Pi's own test sessions (written by Pi 0.x) carry header keys Pi 1.6.0 no longer writes."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "pi"
    for name in ("large-session.jsonl", "before-compaction.jsonl"):
        assert newer(load_session(str(fixtures / name))) == [], name
    old = write(tmp_path / "v2.jsonl", [header(2), {"type": "mystery", "id": "x", "parentId": None, "timestamp": "t"}])
    assert newer(load_session(old)) == []  # a v2 session is old: what it holds is older, not newer


def test_the_finding_is_bounded(tmp_path: Path) -> None:
    lines: list[dict[str, Any]] = [header(3)]
    parent = None
    for index in range(LINES_SHOWN + 2):
        entry_id = f"c{index}"
        lines.append({"type": "checkpoint", "id": entry_id, "parentId": parent, "timestamp": "t"})
        parent = entry_id
    for index in range(ITEMS_SHOWN + 2):
        lines.append({"type": f"kind{index}", "id": f"k{index}", "parentId": parent, "timestamp": "t"})
    (found,) = newer(load_session(write(tmp_path / "s.jsonl", lines)))
    assert "'checkpoint' (lines 2, 3, 4)" in found.reason  # the first lines only
    assert found.reason.count("entries of type") == ITEMS_SHOWN and " and 3 more." in found.reason


def test_the_finding_follows_the_file_as_it_grows_each_entry_looked_at_once(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write(path, [header(3), message("a1", None, "user", "hi")])
    session = SessionFile(path)
    session.refresh()
    assert newer(session) == []
    with path.open("a", encoding="utf-8") as handle:  # a last line without its newline yet: read provisionally
        handle.write(json.dumps({"type": "checkpoint", "id": "a2", "parentId": "a1", "timestamp": "t"}))
    session.refresh()
    assert [p.line for p in newer(session)] == [3]
    with path.open("a", encoding="utf-8") as handle:  # the line goes on and is no JSON: taken back
        handle.write(" trailing words\n")
    session.refresh()
    assert newer(session) == [] and any(p.code == "session/invalid-json" for p in session.all_problems())
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(message("a3", "a1", "user", "more", extra={"x": 1})) + "\n")
    session.refresh()
    (found,) = newer(session)
    assert found.line == 4 and "'extra' on message entries (line 4)" in found.reason
