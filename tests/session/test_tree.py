"""The session tree: path to a leaf, roots for broken parents, children order, labels, undo."""

from __future__ import annotations

from typing import Any

from lsp_server.js.values import UNDEFINED, JsArray
from lsp_server.session.tree import SessionIndex, build_path, build_tree, collect_labels
from tests.session._entries import message, ts, user


def _ids(entries: list[dict[str, object]]) -> list[object]:
    return [e["id"] for e in entries]


CHAIN = [message("1", None, user("a")), message("2", "1", user("b")), message("3", "1", user("c"))]


def test_null_leaf_gives_an_empty_path() -> None:
    assert build_path(CHAIN, None) == []


def test_absent_leaf_is_the_last_entry_not_the_deepest() -> None:
    assert _ids(build_path(CHAIN)) == ["1", "3"]


def test_unknown_or_empty_leaf_falls_back_to_the_last_entry() -> None:
    assert _ids(build_path(CHAIN, "nope")) == ["1", "3"]
    assert _ids(build_path(CHAIN, "")) == ["1", "3"]


def test_path_follows_parents_root_first() -> None:
    assert _ids(build_path(CHAIN, "2")) == ["1", "2"]


def test_missing_parent_ends_the_path() -> None:
    entries = [message("1", None, user("a")), message("2", "gone", user("b"))]
    assert _ids(build_path(entries, "2")) == ["2"]


def test_parent_cycle_stops_at_the_repeated_entry() -> None:
    entries = [message("1", "2", user("a")), message("2", "1", user("b"))]
    assert _ids(build_path(entries, "2")) == ["1", "2"]


def test_duplicate_ids_resolve_to_the_last_entry() -> None:
    entries = [message("1", None, user("a")), message("2", "1", user("first")), message("2", "1", user("second"))]
    assert build_path(entries, "2")[-1]["message"]["content"] == "second"


def test_orphans_and_self_parents_become_roots_and_are_reported() -> None:
    entries = [message("1", None, user("a")), message("2", "gone", user("b")), message("3", "3", user("c"))]
    view = build_tree(entries)
    assert [n.entry["id"] for n in view.roots] == ["1", "2", "3"]
    assert [(p.index, p.code) for p in view.problems] == [(1, "session/missing-parent"), (2, "session/self-parent")]


def test_entries_in_a_parent_cycle_are_shown_as_a_root() -> None:
    entries = [message("r", None, user("root")), message("1", "2", user("a")), message("2", "1", user("b"))]
    view = build_tree(entries)
    assert [n.entry["id"] for n in view.roots] == ["r", "1"]
    assert [c.entry["id"] for c in view.roots[1].children] == ["2"]
    assert [p.code for p in view.problems] == ["session/parent-cycle"]


def test_children_are_sorted_by_timestamp_and_stable() -> None:
    entries = [
        message("1", None, user("root"), 0),
        {**message("late", "1", user("x")), "timestamp": ts(9)},
        {**message("early", "1", user("x")), "timestamp": ts(3)},
        {**message("early-too", "1", user("x")), "timestamp": ts(3)},
    ]
    children = build_tree(entries).roots[0].children
    assert [c.entry["id"] for c in children] == ["early", "early-too", "late"]


def test_latest_label_wins_and_a_label_without_text_clears_it() -> None:
    set_label = {"type": "label", "id": "l1", "parentId": "1", "timestamp": ts(1), "targetId": "1", "label": "x"}
    clear = {"type": "label", "id": "l2", "parentId": "l1", "timestamp": ts(2), "targetId": "1"}
    assert collect_labels([set_label])["1"].label == "x"
    assert collect_labels([set_label, clear]) == {}
    assert build_tree([message("1", None, user("a")), set_label]).roots[0].label == "x"


def test_index_undo_restores_the_previous_state() -> None:
    index = SessionIndex()
    first = message("1", None, user("a"))
    index.add(first)
    undo = index.add({"type": "label", "id": "1", "parentId": "1", "timestamp": ts(1), "targetId": "1", "label": "x"})
    index.undo(undo)
    assert index.by_id["1"] is first
    assert index.labels == {}
    assert index.leaf_id == "1"
    assert index.get_children("1") == []
    assert index.duplicate_ids == []


def test_index_children_keep_file_order() -> None:
    index = SessionIndex()
    for entry in CHAIN:
        index.add(entry)
    assert _ids(index.get_children("1")) == ["2", "3"]
    assert _ids(index.get_children(None)) == ["1"]
    assert index.get_children(UNDEFINED) == []


def test_an_array_given_an_id_is_a_node_the_path_walks_through() -> None:
    """Pi's v1 migration makes an array line an entry with an id and a parent; plain arrays stay id-less."""
    array = JsArray([1], {"id": "2", "parentId": "1"})
    entries: list[Any] = [message("1", None, user("a")), array, message("3", "2", user("b"))]
    assert build_path(entries) == [entries[0], array, entries[2]]
    assert build_path(entries, "2") == [entries[0], array]
    plain: list[Any] = [message("1", None, user("a")), [1], message("3", "2", user("b"))]
    assert build_path(plain) == [plain[2]]
