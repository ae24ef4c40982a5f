"""Entry models: Pi's key order per type, absent vs null, unknown keys and types kept."""

from __future__ import annotations

import json

from lsp_server.session.entries import (
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    EntryShapeError,
    LabelEntry,
    MessageEntry,
    SessionHeader,
    UnknownEntry,
    UserMessage,
    entry_json,
    entry_json_line,
    parse_entry,
)


def _keys(line: str) -> list[str]:
    return list(json.loads(line))


def test_custom_entries_put_custom_type_before_id() -> None:
    custom = CustomEntry(custom_type="ext", data={"a": 1}, id="c", parent_id="p", timestamp="t")
    message = CustomMessageEntry(custom_type="ext", content="hi", display=True, id="m", parent_id=None, timestamp="t")
    assert _keys(entry_json(custom)) == ["type", "customType", "data", "id", "parentId", "timestamp"]
    assert _keys(entry_json(message)) == ["type", "customType", "content", "display", "id", "parentId", "timestamp"]


def test_compaction_keys_in_pi_order_and_unset_optionals_absent() -> None:
    entry = CompactionEntry(
        id="c", parent_id="p", timestamp="t", summary="s", first_kept_entry_id="k", tokens_before=10, from_hook=True
    )
    assert entry_json(entry) == (
        '{"type":"compaction","id":"c","parentId":"p","timestamp":"t","summary":"s",'
        '"firstKeptEntryId":"k","tokensBefore":10,"fromHook":true}'
    )


def test_a_field_given_as_none_is_written_as_null() -> None:
    assert '"parentId":null' in entry_json(
        MessageEntry(id="m", parent_id=None, timestamp="t", message=UserMessage(content="hi", timestamp=1))
    )


def test_label_that_clears_has_no_label_key() -> None:
    assert "label" not in json.loads(entry_json(LabelEntry(id="l", parent_id="p", timestamp="t", target_id="x")))


def test_header_without_parent_session_has_no_such_key() -> None:
    header = SessionHeader(version=3, id="s", timestamp="t", cwd="/p")
    assert _keys(entry_json(header)) == ["type", "version", "id", "timestamp", "cwd"]


def test_unknown_keys_are_kept_after_the_known_ones() -> None:
    raw = {"zz": 1, "type": "session_info", "id": "i", "parentId": None, "timestamp": "t", "name": "n"}
    model = parse_entry(raw)
    assert not isinstance(model, EntryShapeError)
    assert _keys(entry_json(model)) == ["type", "id", "parentId", "timestamp", "name", "zz"]


def test_unknown_entry_types_and_roles_are_kept() -> None:
    model = parse_entry({"type": "future", "x": [1]})
    assert isinstance(model, UnknownEntry)
    assert model.to_json() == {"type": "future", "x": [1]}
    old = parse_entry({"type": "message", "id": "a", "parentId": None, "timestamp": "t", "message": {"role": "hook"}})
    assert isinstance(old, MessageEntry)
    assert old.to_json()["message"] == {"role": "hook"}


def test_shape_errors_are_values_naming_the_fields() -> None:
    error = parse_entry({"type": "message", "id": "a", "timestamp": "t"})
    assert isinstance(error, EntryShapeError)
    assert "parentId" in str(error) and "message" in str(error)


def test_raw_entries_keep_their_own_key_order_with_index_keys_first() -> None:
    assert entry_json({"b": 1, "2": 2, "a": {"1": 0, "x": 1}}) == '{"2":2,"b":1,"a":{"1":0,"x":1}}'


def test_a_line_ends_with_one_newline() -> None:
    assert entry_json_line({"type": "x"}) == '{"type":"x"}\n'
