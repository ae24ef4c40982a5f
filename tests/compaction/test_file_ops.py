"""Which files a conversation read and modified."""

from __future__ import annotations

from typing import Any

from lsp_server.compaction.file_ops import (
    FileOps,
    compute_file_lists,
    extract_file_ops_from_message,
    format_file_operations,
)


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": name, "name": name, "arguments": arguments}


def _extract(*messages: dict[str, Any]) -> FileOps:
    ops = FileOps()
    for message in messages:
        extract_file_ops_from_message(message, ops)
    return ops


def test_read_write_edit_calls_with_a_path_are_recorded() -> None:
    ops = _extract({"role": "assistant", "content": [_call("read", path="r"), _call("write", path="w"),
                                                     _call("edit", path="e")]})  # fmt: skip
    assert ops.to_json() == {"read": ["r"], "written": ["w"], "edited": ["e"]}


def test_other_tools_and_other_argument_names_are_ignored() -> None:
    ops = _extract({"role": "assistant", "content": [_call("grep", path="g"), _call("write", file_path="f"),
                                                     _call("read", path="")]})  # fmt: skip
    assert ops.to_json() == {"read": [], "written": [], "edited": []}


def test_codemode_nested_calls_on_tool_results_count() -> None:
    result = {"role": "toolResult", "nestedCalls": {"calls": [{"name": "edit", "arguments": {"path": "n"}}]}}
    assert list(_extract(result).edited) == ["n"]


def test_read_only_files_exclude_modified_ones_and_both_sort_like_javascript() -> None:
    lists = compute_file_lists(FileOps.of(read=["b", "😀", "\uffff", "a"], written=["b"], edited=["Z"]))
    assert lists.read_files == ["a", "😀", "\uffff"]
    assert lists.modified_files == ["Z", "b"]


def test_formatted_blocks_start_with_a_blank_line_and_skip_empty_lists() -> None:
    assert format_file_operations([], []) == ""
    assert format_file_operations(["a"], []) == "\n\n<read-files>\na\n</read-files>"
    assert format_file_operations(["a"], ["b"]) == (
        "\n\n<read-files>\na\n</read-files>\n\n<modified-files>\nb\n</modified-files>"
    )
