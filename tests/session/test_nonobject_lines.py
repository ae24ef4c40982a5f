"""Lines holding a number, string, array or ``true``: Pi keeps them as entries, and so do our views of Pi.

Pi's ``loadEntriesFromFile`` keeps every line that parses to a truthy JSON value. Such a line has
no id, type or parent, so in the middle of a file it changes nothing; as the first line it makes
the file no session; as the last line it is Pi's leaf, whose branch holds no message, so the
conversation Pi continues is empty. The editor view, the budget and the compaction plan follow
Pi there (and say why), and every such line is still reported.

A version-1 session is different: Pi's migration gives every entry an id and a parent, an array
line too, so there the array is a node of the tree (the path walks through it, it can be the leaf)
and a number, string or ``true`` makes the migration throw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_server.compaction.operations import plan_compaction
from lsp_server.js.values import UNDEFINED
from lsp_server.session.tail import SessionFile, load_session
from lsp_server.session.writer import load_for_append
from lsp_server.vocabulary.compaction import CompactionSettings
from tests.session._entries import assistant, header, jsonl, message, user

GOLDEN = Path(__file__).resolve().parents[1] / "conformance"


def _session(path: Path, *tail: str, end: str = "\n") -> Path:
    body = jsonl(header(), message("u1", None, user("hi")), message("a1", "u1", assistant("yo"), 2), end="")
    path.write_text("\n".join([body, *tail]) + end, encoding="utf-8")
    return path


@pytest.mark.parametrize("line", ["42", "[1,2]", '"text"', "true"])
def test_a_truthy_non_object_last_line_is_pis_leaf_and_empties_the_context(tmp_path: Path, line: str) -> None:
    session = load_session(_session(tmp_path / "s.jsonl", line))
    assert session.is_session and [e["id"] for e in session.entries] == ["u1", "a1"]
    assert session.nonobject_leaf is not None and session.nonobject_leaf.line == 4
    assert session.leaf_id is None
    projection = session.projection()
    assert (projection.messages, projection.model) == ([], None)
    codes = [(f.range.start.line, f.code) for f in session.findings()]
    assert (3, "session/not-an-object") in codes and (3, "session/nonobject-leaf") in codes
    assert len(session.projection("a1").messages) == 2  # an explicit leaf still reaches the conversation


@pytest.mark.parametrize("line", ["0", "false", '""', "null"])
def test_a_falsy_last_line_is_skipped_as_pi_skips_it(tmp_path: Path, line: str) -> None:
    session = load_session(_session(tmp_path / "s.jsonl", line))
    assert session.nonobject_leaf is None and session.leaf_id == "a1"
    assert len(session.projection().messages) == 2
    assert [p.code for p in session.problems] == ["session/not-an-object"]


@pytest.mark.parametrize("line", ["42", "[1,2]", '"text"', "true", "0", "null"])
def test_a_non_object_in_the_middle_changes_nothing(tmp_path: Path, line: str) -> None:
    path = tmp_path / "s.jsonl"
    entries = [header(), message("u1", None, user("hi")), message("a1", "u1", assistant("yo"), 2)]
    text = jsonl(*entries[:2]) + line + "\n" + jsonl(entries[2])
    path.write_text(text, encoding="utf-8")
    session = load_session(path)
    assert session.leaf_id == "a1" and len(session.projection().messages) == 2
    assert session.leaf_problem() is None


def test_an_entry_appended_after_the_line_becomes_the_leaf_again(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", "42")
    session = SessionFile(path)
    session.refresh()
    assert session.leaf_id is None
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(message("u2", "a1", user("again"), 3)) + "\n")
    assert session.refresh().kind == "appended"
    assert session.leaf_id == "u2" and session.leaf_problem() is None
    assert len(session.projection().messages) == 3


def test_a_last_line_without_newline_is_the_leaf_until_an_entry_follows(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", "[1]", end="")
    session = SessionFile(path)
    session.refresh()
    assert session.nonobject_leaf is not None and session.needs_newline
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n" + json.dumps(message("u2", "a1", user("again"), 3)) + "\n")
    session.refresh()
    assert session.nonobject_leaf is None and session.leaf_id == "u2"


def test_a_second_header_after_the_line_keeps_it_the_leaf(tmp_path: Path) -> None:
    session = load_session(_session(tmp_path / "s.jsonl", "7", json.dumps(header())))
    assert session.nonobject_leaf is not None and session.nonobject_leaf.line == 4


def test_a_truthy_line_before_the_header_makes_the_file_no_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("42\n" + jsonl(header(), message("u1", None, user("hi"))), encoding="utf-8")
    session = load_session(path)
    assert not session.is_session and session.error is not None and "not a valid pi session" in session.error
    assert load_for_append(str(path)).error == f"Session file is not a valid pi session: {path}"


def test_a_falsy_line_before_the_header_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("null\n0\n" + jsonl(header(), message("u1", None, user("hi"))), encoding="utf-8")
    assert load_session(path).is_session
    assert load_for_append(str(path)).error is None


def _v1(text: str, second: int) -> dict[str, Any]:
    return {"type": "message", "timestamp": f"2025-01-01T00:00:0{second}.000Z", "message": user(text, second)}


def _v1_session(path: Path, *lines: str, version: int | None = None, end: str = "\n") -> Path:
    """A session whose entries carry no ids (as v1 wrote them): a header, then ``lines`` as they are."""
    path.write_text("\n".join([json.dumps(header(version=version)), *lines]) + end, encoding="utf-8")
    return path


@pytest.mark.parametrize(("line", "kind"), [("42", "number '42'"), ('"x"', "string 'x'"), ("true", "boolean 'true'")])
@pytest.mark.parametrize("where", ["middle", "end"])
def test_a_v1_session_with_a_number_string_or_true_line_is_one_pi_cannot_open(
    tmp_path: Path, line: str, kind: str, where: str
) -> None:
    """Pi's migration assigns ``entry.id``: on a primitive that throws (strict mode), wherever the line is."""
    after = [json.dumps(_v1("second", 2))] if where == "middle" else []
    session = load_session(_v1_session(tmp_path / "s.jsonl", json.dumps(_v1("first question", 1)), line, *after))
    assert session.error is not None
    assert "Pi cannot open this session" in session.error and "line 3" in session.error
    assert f"Cannot create property 'id' on {kind}" in session.error


def test_a_v1_array_line_in_the_middle_is_a_node_the_conversation_goes_through(tmp_path: Path) -> None:
    """Pi: the array takes id 00000002, the next entry's parent; the context holds both messages."""
    path = _v1_session(tmp_path / "s.jsonl", json.dumps(_v1("first question", 1)), "[1]", json.dumps(_v1("second", 2)))
    session = load_session(path)
    assert session.error is None and session.leaf_id == "00000003"
    assert [m["content"] for m in session.projection().messages] == ["first question", "second"]
    assert (session.entries[1], session.lines[1]) == ({"id": "00000002", "parentId": "00000001"}, 3)
    assert session.entries[2]["parentId"] == "00000002"
    assert [(p.line, p.code) for p in session.all_problems()] == [(3, "session/not-an-object")]
    assert "v1 migration gives it an id and a parent" in session.problems[0].reason
    assert session.tree().problems == []  # no missing parent: the array is the second message's parent


def test_a_v1_array_as_the_last_line_is_pis_leaf_and_keeps_the_conversation(tmp_path: Path) -> None:
    """Pi continues from the array (leaf 00000002), whose branch holds the first message: no warning."""
    path = _v1_session(tmp_path / "s.jsonl", json.dumps(_v1("first question", 1)), "[1]")
    session = load_session(path)
    assert session.nonobject_leaf is None and session.leaf_id == "00000002"
    assert session.default_leaf is UNDEFINED
    assert [m["content"] for m in session.projection().messages] == ["first question"]
    assert "session/nonobject-leaf" not in {f.code for f in session.findings()}


def test_a_v2_array_as_the_last_line_still_leaves_pi_a_leaf_without_an_id(tmp_path: Path) -> None:
    """Only the v1 -> v2 step assigns ids: a v2 session's array keeps none, as in v3."""
    entry = {**_v1("first question", 1), "id": "u1", "parentId": None}
    session = load_session(_v1_session(tmp_path / "s.jsonl", json.dumps(entry), "[1]", version=2))
    assert session.migrated_from == 2 and session.nonobject_leaf is not None and session.leaf_id is None
    assert session.projection().messages == []


def test_a_v1_array_followed_without_its_newline_then_completed_is_the_same_node(tmp_path: Path) -> None:
    """The follower takes a provisional array line back and reads it again: same ids as one full load."""
    path = _v1_session(tmp_path / "s.jsonl", json.dumps(_v1("first question", 1)), "[1]", end="")
    session = SessionFile(path)
    session.refresh()
    assert session.needs_newline and session.leaf_id == "00000002"
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n" + json.dumps(_v1("second", 2)) + "\n")
    assert session.refresh().kind == "appended"
    fresh = load_session(path)
    assert (session.entries, session.lines, session.problems) == (fresh.entries, fresh.lines, fresh.problems)
    assert session.leaf_id == fresh.leaf_id == "00000003"
    assert [m["content"] for m in session.projection().messages] == ["first question", "second"]


def test_a_v1_compaction_can_name_an_array_line_read_in_an_earlier_refresh(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first = {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z", "message": user("hi")}
    path.write_text(jsonl(header(version=None), first) + "[1]\n", encoding="utf-8")
    session = SessionFile(path)
    session.refresh()
    compaction = {"type": "compaction", "timestamp": "2025-01-01T00:00:03.000Z", "summary": "S"}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**compaction, "firstKeptEntryIndex": 2, "tokensBefore": 5}) + "\n")
    session.refresh()
    # Pi: the array took id 00000002 (invisible in its JSON); the compaction is 00000003 and names it.
    assert session.entries[-1]["id"] == "00000003"
    assert session.entries[-1]["firstKeptEntryId"] == "00000002"


def test_load_for_append_knows_pis_leaf_and_compaction_says_why_there_is_nothing(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", '"text"')
    session = load_for_append(str(path))
    assert session.error is None and session.leaf_id is None
    assert session.nonobject_leaf is not None and session.nonobject_leaf.line == 4
    plan = plan_compaction(session, CompactionSettings(keep_recent_tokens=1))
    assert isinstance(plan, str) and "line 4" in plan and "nothing to compact" in plan


def _goldens(op: str, *, ok: bool = True) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The issue-9 and v1 goldens the file loader reads as Pi's text parser does (no falsy last line).

    Pi's text parser (what the goldens ran) keeps ``0``, ``false`` and ``""`` lines; its file
    loader skips them, so a golden whose last line is one of those has a different answer from a file.
    ``ok`` chooses the goldens where Pi answers, or those where it throws.
    """
    requests = (GOLDEN / "requests" / f"{op}.jsonl").read_text(encoding="utf-8").splitlines()
    answers = (GOLDEN / "golden" / f"{op}.jsonl").read_text(encoding="utf-8").splitlines()
    pairs = [(json.loads(r), json.loads(a)) for r, a in zip(requests, answers, strict=True)]
    return [
        (r, a)
        for r, a in pairs
        if r["name"].startswith(("issue9/", "v1/"))
        and "jsonl" in r
        and a["ok"] is ok
        and r["jsonl"].rstrip("\n").rsplit("\n", 1)[-1] not in ("0", "false", '""')
    ]


@pytest.mark.parametrize(
    ("request_", "golden"),
    _goldens("build_session_context"),
    ids=[r["name"] for r, _ in _goldens("build_session_context")],
)
def test_the_editor_view_of_the_file_gives_pis_context(
    tmp_path: Path, request_: dict[str, Any], golden: dict[str, Any]
) -> None:
    """The goldens' jsonl written to a file and followed as the editor does: Pi's messages, model, thinking.

    In a v1 session the path's entries have Pi's ids too (an array line's included); a v2/v3 array
    as the last entry is a path of one entry without an id to Pi and an empty path here (no message either way).
    """
    path = tmp_path / "s.jsonl"
    path.write_text(request_["jsonl"], encoding="utf-8")
    projection = load_session(path).projection(request_.get("leafId", UNDEFINED))
    result = golden["result"]
    assert projection.messages == result["messages"]
    assert (projection.model.to_json() if projection.model else None) == result["model"]
    assert projection.thinking_level == result["thinkingLevel"]
    if request_["name"].startswith("v1/"):
        assert [p.source_entry.get("id") for p in projection.entries] == result["contextEntryIds"]


_V1_THROWS = [(r, a) for r, a in _goldens("build_session_context", ok=False) if r["name"].startswith("v1/")]


@pytest.mark.parametrize(("request_", "golden"), _V1_THROWS, ids=[r["name"] for r, _ in _V1_THROWS])
def test_the_editor_view_of_a_v1_file_pi_cannot_open_says_pis_error(
    tmp_path: Path, request_: dict[str, Any], golden: dict[str, Any]
) -> None:
    """A v1 session with a number, string or ``true`` line: Pi's migration throws, and the view says so.

    (The ``null`` lines Pi's text parser throws on are lines its file loader skips: not compared here.)
    """
    path = tmp_path / "s.jsonl"
    path.write_text(request_["jsonl"], encoding="utf-8")
    session = load_session(path)
    assert session.error is not None and "Pi cannot open this session" in session.error
    assert golden["error"] in session.error
