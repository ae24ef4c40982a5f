"""Transcript system messages (pi-behavior.md §2.6): replay and update rendering."""

from __future__ import annotations

from typing import Any

from lsp_server.prompt.system_messages import (
    content_text,
    current_system_message,
    current_system_prompt,
    current_tools,
    render_system_message_update,
    system_message_text,
)


def _system(timestamp: int | None, content: Any = "", **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "system", "content": content, **extra}
    if timestamp is not None:
        message["timestamp"] = timestamp
    return message


def test_update_renders_text_then_sections_by_name() -> None:
    message = _system(0, "Note.", sections={"cwd": "<cwd>\n/b\n</cwd>", "skills": None})
    assert render_system_message_update(message) == (
        'Note.\n\nUpdated system prompt section "cwd":\n\n<cwd>\n/b\n</cwd>\n\nRemoved system prompt section "skills".'
    )


def test_update_writes_non_string_values_as_template_literals_do() -> None:
    # Pi 1.6.0's answer for the same message: ``${value}`` joins arrays and names objects.
    message = _system(0, sections={"a": ["x", 1.5, None], "b": 2, "c": {"k": 1}, "d": False})
    assert render_system_message_update(message) == (
        'Updated system prompt section "a":\n\nx,1.5,\n\nUpdated system prompt section "b":\n\n2\n\n'
        'Updated system prompt section "c":\n\n[object Object]\n\nUpdated system prompt section "d":\n\nfalse'
    )


def test_content_text_writes_a_null_text_block_as_nothing() -> None:
    assert content_text([{"type": "text", "text": None}, {"type": "text", "text": "x"}]) == "\nx"


def test_replay_concatenates_text_contents_with_blank_lines() -> None:
    current = current_system_message([_system(1, "A"), {"role": "user", "content": "u"}, _system(2, "B")])
    assert current is not None
    assert current["content"] == "A\n\nB"


def test_replay_updated_section_keeps_position_readded_goes_last() -> None:
    messages = [
        _system(1, sections={"a": "A", "b": "B", "c": "C"}),
        _system(2, sections={"a": None, "b": "B2"}),
        _system(3, sections={"a": "A3"}),
    ]
    current = current_system_message(messages)
    assert current is not None
    assert list(current["sections"].items()) == [("b", "B2"), ("c", "C"), ("a", "A3")]


def test_replay_timestamp_is_the_first_given() -> None:
    current = current_system_message([_system(None, "x"), _system(9, "y"), _system(10, "z")])
    assert current is not None
    assert current["timestamp"] == 9


def test_replay_without_timestamp_or_tools_is_none() -> None:
    assert current_system_message([_system(None, "x")]) is None
    assert current_system_message([{"role": "user", "content": "hi"}]) is None


def test_replay_tools_removals_then_additions_per_message() -> None:
    messages = [
        _system(1, toolsAdded=[{"name": "read"}, {"name": "bash"}]),
        _system(2, toolsRemoved=[{"name": "bash"}], toolsAdded=[{"name": "bash", "description": "v2"}]),
        _system(3, toolsAdded=[{"name": "read", "description": "r2"}]),
    ]
    assert current_tools(messages) == [{"name": "read", "description": "r2"}, {"name": "bash", "description": "v2"}]


def test_replay_has_no_sections_key_when_all_removed() -> None:
    current = current_system_message([_system(1, sections={"a": "A"}), _system(2, sections={"a": None})])
    assert current == {"role": "system", "content": "", "timestamp": 1}


def test_message_text_is_content_then_sections() -> None:
    assert system_message_text(_system(0, "T", sections={"preamble": "P", "x": None})) == "T\n\nP"


def test_content_text_joins_text_blocks_and_skips_images() -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "image", "data": ""}, {"type": "text", "text": "b"}]
    assert content_text(blocks) == "a\nb"


def test_integer_like_section_names_replay_first() -> None:
    messages = [_system(1, sections={"preamble": "P", "2": "two"}), _system(2, sections={"1": "one"})]
    assert current_system_prompt(messages) == "one\n\ntwo\n\nP"
