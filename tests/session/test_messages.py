"""convertToLlm: Pi's own message kinds become user messages with exact wrappers."""

from __future__ import annotations

from typing import Any

from lsp_server.session.messages import bash_execution_to_text, content_text, convert_to_llm


def _bash(**fields: Any) -> dict[str, Any]:
    return {"role": "bashExecution", "command": "make", "output": "", "exitCode": 0, "cancelled": False,
            "truncated": False, "timestamp": 1, **fields}  # fmt: skip


def test_llm_roles_pass_through_as_the_same_object() -> None:
    message = {"role": "user", "content": "hi", "timestamp": 1, "extra": True}
    assert convert_to_llm([message])[0] is message


def test_bash_output_is_fenced_and_empty_output_says_so() -> None:
    assert bash_execution_to_text(_bash(output="ok")) == "Ran `make`\n```\nok\n```"
    assert bash_execution_to_text(_bash()) == "Ran `make`\n(no output)"


def test_cancellation_wins_over_the_exit_code() -> None:
    assert bash_execution_to_text(_bash(exitCode=2, cancelled=True)).endswith("\n\n(command cancelled)")
    assert bash_execution_to_text(_bash(exitCode=2)).endswith("\n\nCommand exited with code 2")
    assert "exited" not in bash_execution_to_text(_bash(exitCode=None))


def test_truncation_note_needs_the_full_output_path() -> None:
    assert "Output truncated" not in bash_execution_to_text(_bash(truncated=True))
    assert bash_execution_to_text(_bash(truncated=True, fullOutputPath="/t")).endswith(
        "\n\n[Output truncated. Full output: /t]"
    )


def test_excluded_bash_runs_are_dropped() -> None:
    assert convert_to_llm([_bash(excludeFromContext=True)]) == []


def test_summaries_have_their_exact_wrappers() -> None:
    branch, compaction = convert_to_llm(
        [
            {"role": "branchSummary", "summary": "B", "fromId": "x", "timestamp": 1},
            {"role": "compactionSummary", "summary": "C", "tokensBefore": 1, "timestamp": 2},
        ]
    )
    assert branch["content"][0]["text"] == (
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nB</summary>"
    )
    assert compaction["content"][0]["text"] == (
        "The conversation history before this point was compacted into the following summary:\n\n"
        "<summary>\nC\n</summary>"
    )


def test_custom_string_content_becomes_one_text_block() -> None:
    (out,) = convert_to_llm([{"role": "custom", "customType": "x", "content": "note", "display": True, "timestamp": 3}])
    assert out == {"role": "user", "content": [{"type": "text", "text": "note"}], "timestamp": 3}


def test_unknown_roles_are_dropped() -> None:
    assert convert_to_llm([{"role": "hookMessage", "content": "x"}, "not a message"]) == []


def test_content_text_joins_text_blocks_only() -> None:
    blocks = [
        {"type": "text", "text": "a"},
        {"type": "image", "data": "x"},
        {"type": "text"},
        {"type": "text", "text": "b"},
    ]
    assert content_text(blocks, "|") == "a||b"


def test_a_surrogate_pair_split_across_blocks_joins_into_one_character() -> None:
    blocks = [{"type": "text", "text": "a\ud83d"}, {"type": "text", "text": "\ude00b"}]
    assert content_text(blocks, "") == "a😀b"
