"""Sessions as the editor sees them: followed per path, listed with a cache, shown as a tree."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from lsp_server.project.followed_sessions import (
    SessionListCache,
    SessionStore,
    entry_preview,
    session_summary_wire,
    session_tree_result,
)
from lsp_server.session.folders import SessionSummary
from lsp_server.session.tail import SessionFile

HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/proj"}


def entry(entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": f"2025-01-01T00:00:0{entry_id[-1]}.000Z",
        **fields,
    }


def user(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    return entry(entry_id, parent, message={"role": "user", "content": text, "timestamp": 1})


def write(path: Path, *entries: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in (HEADER, *entries)), encoding="utf-8")
    return path


def test_the_store_reads_only_what_was_appended(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", user("e1", None, "hello"))
    store = SessionStore()
    with store.use(str(path)) as (_, first):
        assert first.kind == "loaded"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(user("e2", "e1", "again")) + "\n")
    with store.use(str(path)) as (session, second):
        assert (second.kind, second.new_entries) == ("appended", 1)
        assert session.index.leaf_id == "e2"
    with store.use(str(path)) as (_, third):
        assert third.kind == "unchanged"


def test_the_store_keeps_the_most_recently_used_sessions(tmp_path: Path) -> None:
    store = SessionStore(limit=2)
    paths = [str(write(tmp_path / f"{n}.jsonl", user("e1", None, "x"))) for n in range(3)]
    for path in paths:
        with store.use(path):
            pass
    assert store.paths() == paths[1:]


def test_the_list_is_newest_first_and_filtered_by_cwd(tmp_path: Path) -> None:
    old = write(tmp_path / "old.jsonl", user("e1", None, "x"))
    new = write(tmp_path / "new.jsonl", user("e1", None, "y"))
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({**HEADER, "cwd": "/elsewhere"}) + "\n", encoding="utf-8")
    os.utime(old, (1_000, 1_000))
    cache = SessionListCache()
    assert [s.path for s in cache.list(str(tmp_path), "/proj")] == [str(new), str(old)]
    assert len(cache.list(str(tmp_path))) == 3


def test_the_list_sees_a_session_that_grew(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", user("e1", None, "x"))
    cache = SessionListCache()
    assert cache.list(str(tmp_path))[0].entry_lines == 1
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(user("e2", "e1", "y")) + "\n")
    assert cache.list(str(tmp_path))[0].entry_lines == 2


def test_a_summary_on_the_wire_has_seconds_and_the_header_time() -> None:
    summary = SessionSummary("/s.jsonl", "s1", "/proj", "2025-01-01T00:00:00.000Z", None, "demo", 3, 120, 1_500.0)
    assert session_summary_wire(summary).wire() == {
        "path": "/s.jsonl",
        "id": "s1",
        "cwd": "/proj",
        "name": "demo",
        "created": "2025-01-01T00:00:00.000Z",
        "modified": 1.5,
        "size": 120,
        "entryCount": 3,
        "title": "demo",
    }


def test_the_title_on_the_wire_is_the_first_message_when_pi_has_no_name_and_carries_model_and_cost() -> None:
    summary = SessionSummary(
        "/s.jsonl",
        "s1",
        "/proj",
        None,
        None,
        None,
        3,
        120,
        1_500.0,
        first_message="fix the\nbug",
        model="anthropic/claude-test",
        cost=0.0125,
    )
    wire = session_summary_wire(summary).wire()
    assert (wire["title"], wire["firstMessage"], wire["model"], wire["cost"]) == (
        "fix the bug",
        "fix the\nbug",
        "anthropic/claude-test",
        0.0125,
    )


def test_the_tree_has_children_labels_and_the_active_path(tmp_path: Path) -> None:
    path = write(
        tmp_path / "s.jsonl",
        user("e1", None, "start"),
        user("e2", "e1", "branch a"),
        user("e3", "e1", "branch b"),
        {
            "type": "label",
            "id": "e4",
            "parentId": "e3",
            "timestamp": "2025-01-01T00:00:04.000Z",
            "targetId": "e2",
            "label": "A",
        },
    )
    session = SessionFile(path)
    session.refresh()
    tree = session_tree_result(session).wire()
    nodes = {node["id"]: node for node in tree["nodes"]}
    assert (tree["leafId"], tree["roots"]) == ("e4", ["e1"])
    assert nodes["e1"]["children"] == ["e2", "e3"]
    assert nodes["e2"]["label"] == "A"
    assert [n for n, node in nodes.items() if node["onActivePath"]] == ["e1", "e3", "e4"]
    assert nodes["e3"]["preview"] == "branch b" and nodes["e3"]["role"] == "user"
    other = session_tree_result(session, "e2").wire()
    assert [node["id"] for node in other["nodes"] if node["onActivePath"]] == ["e1", "e2"]


def test_an_array_line_of_a_v1_session_is_a_node_of_the_tree_as_in_pi(tmp_path: Path) -> None:
    """Pi's ``getTree`` after its v1 migration: the array (id 00000002) is the second message's parent."""
    v1_header = {key: value for key, value in HEADER.items() if key != "version"}
    first, second = (
        {"type": "message", "timestamp": f"2025-01-01T00:00:0{n}.000Z", "message": {"role": "user", "content": text}}
        for n, text in ((1, "first question"), (2, "second"))
    )
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([json.dumps(v1_header), json.dumps(first), "[1]", json.dumps(second)]) + "\n")
    session = SessionFile(path)
    session.refresh()
    tree = session_tree_result(session).wire()
    nodes = {node["id"]: node for node in tree["nodes"]}
    assert (tree["leafId"], tree["roots"]) == ("00000003", ["00000001"])
    assert [(n, node["children"], node["onActivePath"]) for n, node in nodes.items()] == [
        ("00000001", ["00000002"], True),
        ("00000002", ["00000003"], True),
        ("00000003", [], True),
    ]
    assert [p for p in tree["problems"] if "missing-parent" in p] == []


def test_the_tree_lists_skipped_lines_with_their_numbers(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", user("e1", None, "x"), user("e2", "gone", "orphan"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    session = SessionFile(path)
    session.refresh()
    problems = session_tree_result(session).problems
    assert any(p.startswith("line 4: ") and "session/invalid-json" in p for p in problems)
    assert any(p.startswith("line 3: ") and "session/missing-parent" in p for p in problems)


def test_previews_say_what_an_entry_holds() -> None:
    assistant = {
        "role": "assistant",
        "content": [{"type": "text", "text": "Reading."}, {"type": "toolCall", "name": "read"}],
    }
    assert entry_preview(entry("e1", None, message=assistant)) == "Reading. → read"
    assert entry_preview({"type": "compaction", "summary": "## Goal\n  Fix it"}) == "## Goal Fix it"
    assert entry_preview({"type": "model_change", "provider": "anthropic", "modelId": "m"}) == "anthropic/m"
    assert entry_preview(entry("e1", None, message={"role": "user", "content": "x" * 200})).endswith("…")
