"""Projection rules (Pi-exactness is proved by the oracle goldens; these pin each rule on its own)."""

from __future__ import annotations

from typing import Any

from lsp_server.session.projection import build_context_entries, build_session_context, build_session_projection
from tests.session._entries import assistant, message, ts, user


def _compaction(entry_id: str, parent: str, first_kept: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "compaction",
        "id": entry_id,
        "parentId": parent,
        "timestamp": ts(5),
        "summary": f"summary {entry_id}",
        "firstKeptEntryId": first_kept,
        "tokensBefore": 100,
        **extra,
    }


def _edit(entry_id: str, parent: str, target: str, replacement: Any) -> dict[str, Any]:
    return {"type": "context_edit", "id": entry_id, "parentId": parent, "timestamp": ts(6), "targetId": target,
            "replacement": replacement}  # fmt: skip


def test_only_the_latest_compaction_selects() -> None:
    entries = [
        message("u1", None, user("one")),
        _compaction("c1", "u1", "u1"),
        message("u2", "c1", user("two")),
        _compaction("c2", "u2", "u2"),
        message("u3", "c2", user("three")),
    ]
    assert [e["id"] for e in build_context_entries(entries)] == ["c2", "u2", "u3"]


def test_stored_system_messages_before_the_compaction_are_not_kept() -> None:
    system = message("s", "u1", {"role": "system", "content": "", "sections": {"preamble": "P"}, "timestamp": 0})
    entries = [message("u1", None, user("one")), system, _compaction("c", "s", "u1"), message("u2", "c", user("two"))]
    assert [e["id"] for e in build_context_entries(entries)] == ["c", "u1", "u2"]


def test_compaction_contributes_its_system_message_then_the_summary() -> None:
    stored = {"role": "system", "content": "", "sections": {"preamble": "P"}, "timestamp": 3}
    entries = [message("u1", None, user("one")), _compaction("c", "u1", "c", systemMessage=stored)]
    messages = build_session_context(entries).messages
    assert [m["role"] for m in messages] == ["system", "compactionSummary"]
    assert messages[1]["timestamp"] == 1735689605000


def test_edit_before_the_kept_range_is_not_applied() -> None:
    entries = [
        message("u1", None, user("one")),
        _edit("e", "u1", "u2", None),
        message("u2", "e", user("two")),
        _compaction("c", "u2", "u2"),
    ]
    assert [m.get("content") for m in build_session_context(entries).messages][1:] == ["two"]


def test_string_replacement_becomes_a_text_block_for_assistant_messages_only() -> None:
    entries = [
        message("u", None, user("question")),
        message("a", "u", assistant("answer")),
        _edit("e1", "a", "u", {"content": "new question"}),
        _edit("e2", "e1", "a", {"content": "new answer"}),
    ]
    messages = build_session_context(entries).messages
    assert messages[0]["content"] == "new question"
    assert messages[1]["content"] == [{"type": "text", "text": "new answer"}]
    assert entries[1]["message"]["content"] == [{"type": "text", "text": "answer"}]  # stored message untouched


def test_edit_without_a_replacement_changes_nothing() -> None:
    entries = [message("u", None, user("question")), {**_edit("e", "u", "u", None), "replacement": None}]
    del entries[1]["replacement"]
    assert build_session_context(entries).messages[0]["content"] == "question"


def test_every_selected_entry_keeps_its_provenance() -> None:
    entries = [
        message("u", None, user("q")),
        {"type": "model_change", "id": "m", "parentId": "u", "timestamp": ts(2), "provider": "p", "modelId": "x"},
        message("a", "m", assistant()),
    ]
    projection = build_session_projection(entries)
    assert [(p.source_entry["id"], len(p.messages)) for p in projection.entries] == [("u", 1), ("m", 0), ("a", 1)]


def test_model_is_the_latest_of_model_changes_and_assistant_messages() -> None:
    entries = [
        message("a", None, assistant()),
        {
            "type": "model_change",
            "id": "m",
            "parentId": "a",
            "timestamp": ts(2),
            "provider": "openai",
            "modelId": "gpt",
        },
    ]
    context = build_session_context(entries)
    assert context.to_json()["model"] == {"provider": "openai", "modelId": "gpt"}
    assert context.thinking_level == "off"


def test_session_settings_read_from_the_end_are_the_latest_changes() -> None:
    """The latest thinking level and model along the path win (read backwards, stopping early),
    an undefined ``thinkingLevel`` included; compared with a forward walk over generated paths."""
    import random

    from lsp_server.js.values import UNDEFINED, js_get
    from lsp_server.session.projection import ModelRef, session_settings

    def forward(path: list[Any]) -> tuple[Any, Any]:
        thinking: Any = "off"
        model: Any = None
        for entry in path:
            kind = entry.get("type") if isinstance(entry, dict) else None
            if kind == "message" and js_get(entry.get("message", UNDEFINED), "role") == "assistant":
                model = ModelRef(js_get(entry["message"], "provider"), js_get(entry["message"], "model"))
            elif kind == "thinking_level_change":
                thinking = js_get(entry, "thinkingLevel")
            elif kind == "model_change":
                model = ModelRef(js_get(entry, "provider"), js_get(entry, "modelId"))
        return thinking, model

    rng = random.Random(21)
    shapes = [
        lambda n: {"type": "message", "message": {"role": "assistant", "provider": f"p{n}", "model": f"m{n}"}},
        lambda n: {"type": "message", "message": {"role": "user", "content": "x"}},
        lambda n: {"type": "message", "message": "not an object"},
        lambda n: {"type": "thinking_level_change", "thinkingLevel": f"t{n}"},
        lambda n: {"type": "thinking_level_change"},  # undefined: a value the latest change may set
        lambda n: {"type": "model_change", "provider": f"q{n}", "modelId": f"id{n}"},
        lambda n: {"type": "label"},
        lambda n: 42,
        lambda n: [1],
    ]
    for _ in range(500):
        path = [rng.choice(shapes)(n) for n in range(rng.randint(0, 12))]
        settings = session_settings(path)
        assert (settings.thinking_level, settings.model) == forward(path), path
