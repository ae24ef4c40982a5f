"""One reading of an entry for both one-line descriptions (pi/sessionTree's preview, the CLI's tree)."""

from __future__ import annotations

from typing import Any

import pytest

from lsp_server.cli._session_text import entry_summary
from lsp_server.project.followed_sessions import entry_preview
from lsp_server.session.gist import EntryGist, entry_gist, one_line

ASSISTANT = {
    "role": "assistant",
    "content": [{"type": "text", "text": "Reading."}, {"type": "toolCall", "name": "read"}],
}


@pytest.mark.parametrize(
    ("entry", "gist", "preview", "summary"),
    [
        (
            {"type": "message", "message": ASSISTANT},
            EntryGist("assistant", text="Reading.", tools=("read",)),
            "Reading. → read",
            'assistant "Reading."',
        ),
        (
            {"type": "message", "message": {"role": "system", "sections": {"preamble": "", "cwd": ""}}},
            EntryGist("system", sections=("preamble", "cwd")),
            "system prompt: preamble, cwd",
            "system [preamble, cwd]",
        ),
        (
            {"type": "custom_message", "customType": "note", "content": "a\n  b"},
            EntryGist("custom_message", text="a\n  b", detail="note"),
            "note: a b",
            "custom_message note",
        ),
        (
            {"type": "thinking_level_change", "thinkingLevel": "high"},
            EntryGist("thinking_level_change", detail="high"),
            "thinking: high",
            "thinking_level_change high",
        ),
        ({"type": "label", "targetId": "a1"}, EntryGist("label", detail="→ a1"), "→ a1", "label → a1"),
        ({"type": "custom", "customType": "ext"}, EntryGist("custom", detail="ext"), "ext", "custom ext"),
        ({"type": 5}, EntryGist("?"), "", "?"),
        (None, EntryGist("?"), "", "?"),
    ],
)
def test_each_front_end_lays_out_the_same_parts(entry: Any, gist: EntryGist, preview: str, summary: str) -> None:
    assert entry_gist(entry) == gist
    assert (entry_preview(entry), entry_summary(entry)) == (preview, summary)


def test_one_line_folds_whitespace_and_cuts_with_an_ellipsis() -> None:
    assert one_line(" a \n\t b ", 10) == "a b"
    assert one_line("abcdefghij", 5) == "abcd…"
