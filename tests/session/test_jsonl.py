"""Reading session files: what Pi skips is skipped, and reported with its line; migration stays in memory."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from lsp_server.base.findings import Severity
from lsp_server.js.errors import JsTypeError
from lsp_server.js.values import JsArray
from lsp_server.session.jsonl import (
    migrate_session_entries,
    migrated_array_node,
    parse_bytes,
    parse_json,
    parse_session_text,
    read_entries_from_file,
)
from tests.session._entries import header, jsonl, message, ts, user


def _reasons(text: str) -> list[tuple[int, str]]:
    parsed, _ = parse_bytes(text.encode())
    return [(p.line, p.code) for p in parsed.problems]


def test_unparsable_line_is_skipped_and_reported_with_its_line() -> None:
    parsed, _ = parse_bytes(jsonl(header(), "x", message("a", None, user("hi"))).replace('"x"', "{oops").encode())
    assert [e.get("id") for e in parsed.entries] == ["s1", "a"]
    assert parsed.lines == [1, 3]
    assert [(p.line, p.code, p.severity) for p in parsed.problems] == [(2, "session/invalid-json", Severity.ERROR)]


def test_blank_lines_are_silent() -> None:
    assert _reasons(jsonl(header()) + "\n   \n\t\n" + jsonl(message("a", None, user("hi")))) == []


def test_json_values_that_are_not_objects_are_reported() -> None:
    assert _reasons(jsonl(header()) + "null\n42\n[1]\n") == [
        (2, "session/not-an-object"),
        (3, "session/not-an-object"),
        (4, "session/not-an-object"),
    ]


def test_nan_is_not_json() -> None:
    parsed, _ = parse_bytes(b'{"type":"custom","n":NaN}\n')
    assert parsed.entries == []
    assert parsed.problems[0].code == "session/invalid-json"


def test_integers_beyond_2_pow_53_become_floats_like_javascript() -> None:
    parsed, _ = parse_bytes(b'{"n":12345678901234567890,"m":9007199254740991}\n')
    assert parsed.entries == [{"n": 1.2345678901234567e19, "m": 9007199254740991}]


def test_byte_order_mark_line_is_reported_as_such() -> None:
    parsed, _ = parse_bytes(("\ufeff" + jsonl(header())).encode())
    assert parsed.entries == []
    assert "byte-order mark" in parsed.problems[0].reason


def test_invalid_utf8_is_read_with_replacement_and_reported() -> None:
    parsed, _ = parse_bytes(b'{"t":"a\xffb"}\n')
    assert parsed.entries == [{"t": "a\ufffdb"}]
    assert [p.code for p in parsed.problems] == ["session/invalid-utf8"]


def test_crlf_line_endings_parse() -> None:
    parsed, _ = parse_bytes(jsonl(header(), message("a", None, user("hi"))).replace("\n", "\r\n").encode())
    assert len(parsed.entries) == 2
    assert parsed.problems == []


def test_last_line_without_newline_is_parsed_and_reported_as_partial() -> None:
    parsed, consumed = parse_bytes(jsonl(header(), end="").encode())
    assert len(parsed.entries) == 1
    assert [(p.line, p.code, p.severity) for p in parsed.problems] == [
        (1, "session/partial-line", Severity.INFORMATION)
    ]
    assert consumed == len(jsonl(header(), end=""))


def test_cut_off_last_line_is_an_error_naming_the_cut() -> None:
    parsed, _ = parse_bytes((jsonl(header()) + '{"type":"mess').encode())
    assert "incomplete" in parsed.problems[0].reason


def test_not_final_chunk_leaves_the_partial_line_unread() -> None:
    data = (jsonl(header()) + '{"type":"mess').encode()
    parsed, consumed = parse_bytes(data, final=False)
    assert len(parsed.entries) == 1
    assert data[consumed:] == b'{"type":"mess'


def test_text_parse_counts_lines_after_leading_blank_lines() -> None:
    parsed = parse_session_text("\n\n" + jsonl(header()) + "bad\n")
    assert [(p.line, p.code) for p in parsed.problems] == [(4, "session/invalid-json")]


def test_v1_migration_chains_ids_and_converts_the_kept_index() -> None:
    entries = [
        header(version=None),
        {"type": "message", "timestamp": ts(1), "message": user("a")},
        {"type": "message", "timestamp": ts(2), "message": user("b")},
        {"type": "compaction", "timestamp": ts(3), "summary": "S", "firstKeptEntryIndex": 2, "tokensBefore": 1},
    ]
    assert migrate_session_entries(entries) == 1
    assert [(e.get("id"), e.get("parentId")) for e in entries[1:]] == [
        ("00000001", None),
        ("00000002", "00000001"),
        ("00000003", "00000002"),
    ]
    assert entries[3]["firstKeptEntryId"] == "00000002"
    assert "firstKeptEntryIndex" not in entries[3]
    assert entries[0]["version"] == 3


def test_v1_migration_gives_an_array_line_an_id_and_a_parent_its_json_does_not_show() -> None:
    """Pi's ``migrateV1ToV2`` assigns ``id``/``parentId`` to every file entry, an array's too."""
    entries: list[Any] = [
        header(version=None),
        {"type": "message", "timestamp": ts(1), "message": user("a")},
        [1],
        {"type": "message", "timestamp": ts(2), "message": user("b")},
    ]
    migrate_session_entries(entries)
    array = entries[2]
    assert isinstance(array, JsArray) and array == [1] and json.dumps(array) == "[1]"
    assert array.properties == {"id": "00000002", "parentId": "00000001"}
    assert (entries[3]["id"], entries[3]["parentId"]) == ("00000003", "00000002")
    assert migrated_array_node(array) == {"id": "00000002", "parentId": "00000001"}


@pytest.mark.parametrize("version", [2, 3])
def test_an_array_line_of_a_v2_or_v3_session_gets_no_id(version: int) -> None:
    entries: list[Any] = [header(version=version), message("a", None, user("a")), [1]]
    migrate_session_entries(entries)
    assert type(entries[2]) is list and migrated_array_node(entries[2]) is None


@pytest.mark.parametrize(("line", "kind"), [(42, "number '42'"), ("x", "string 'x'"), (True, "boolean 'true'")])
def test_v1_migration_fails_on_a_number_string_or_boolean_as_pi_does(line: Any, kind: str) -> None:
    """An ES module is strict code: ``(42).id = ...`` throws a TypeError (checked against the oracle)."""
    entries: list[Any] = [header(version=None), {"type": "message", "timestamp": ts(1), "message": user("a")}, line]
    with pytest.raises(JsTypeError, match=re.escape(f"Cannot create property 'id' on {kind}")):
        migrate_session_entries(entries)


def test_v1_kept_index_pointing_at_the_header_is_dropped() -> None:
    entries = [
        header(version=None),
        {"type": "compaction", "summary": "S", "firstKeptEntryIndex": 0, "tokensBefore": 1},
    ]
    migrate_session_entries(entries)
    assert "firstKeptEntryId" not in entries[1]
    assert "firstKeptEntryIndex" not in entries[1]


def test_v2_migration_renames_hook_messages() -> None:
    entries = [header(version=2), message("a", None, {"role": "hookMessage", "content": "x", "timestamp": 1})]
    migrate_session_entries(entries)
    assert entries[1]["message"]["role"] == "custom"
    assert entries[1]["id"] == "a"


def test_current_version_is_left_alone() -> None:
    entries = [header(), message("a", None, {"role": "hookMessage", "content": "x", "timestamp": 1})]
    assert migrate_session_entries(entries) is None
    assert entries[1]["message"]["role"] == "hookMessage"


def test_loading_never_writes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    text = jsonl(header(version=None), {"type": "message", "timestamp": ts(1), "message": user("a")}, end="")
    path.write_text(text)
    result = read_entries_from_file(str(path))
    assert result.needs_newline
    assert path.read_text() == text


def test_file_whose_first_object_is_not_a_header_is_not_a_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(jsonl(message("a", None, user("hi"))))
    result = read_entries_from_file(str(path))
    assert result.entries == []
    assert result.error == f"Session file is not a valid pi session: {path}"


def test_header_needs_a_string_id(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(jsonl({**header(), "id": 7}))
    assert read_entries_from_file(str(path)).entries == []


def test_missing_and_empty_files_are_not_errors(tmp_path: Path) -> None:
    (tmp_path / "e.jsonl").write_text("")
    missing = read_entries_from_file(str(tmp_path / "nope.jsonl"))
    empty = read_entries_from_file(str(tmp_path / "e.jsonl"))
    assert (missing.exists, missing.error) == (False, None)
    assert (empty.exists, empty.error, empty.entries) == (True, None, [])


def test_an_integer_with_thousands_of_digits_is_a_number_as_in_javascript() -> None:
    """Found by fuzzing: Python's int() refuses more than 4,300 digits; JSON.parse reads Infinity."""
    assert parse_json('{"t":' + "9" * 5000 + "}") == {"t": float("inf")}
    assert parse_json('{"t":' + "1" + "0" * 20 + "}") == {"t": 1e20}
    assert parse_json('{"t":9007199254740993}') == {"t": 9007199254740992.0}
