"""The labels that start each part of a serialized conversation (Pi's ``serializeConversation``).

Compaction writes them (:mod:`lsp_server.compaction.serialize`) and the offline summarizer reads
them back (:mod:`lsp_server.llm.offline_prompt`), so both use these definitions. Parts are joined
by a blank line.
"""

from __future__ import annotations

from typing import Final, Literal

TurnRole = Literal["user", "assistant", "tool_calls", "tool_result", "thinking"]

USER: Final = "[User]: "
ASSISTANT: Final = "[Assistant]: "
ASSISTANT_TOOL_CALLS: Final = "[Assistant tool calls]: "
TOOL_RESULT: Final = "[Tool result]: "
ASSISTANT_THINKING: Final = "[Assistant thinking]: "
"""Written by Pi 0.85 and older; Pi 1.6.0 leaves thinking out, so only the reader knows it."""

PART_SEPARATOR: Final = "\n\n"

MARKERS: Final[tuple[tuple[str, TurnRole], ...]] = (
    (USER, "user"),
    (ASSISTANT, "assistant"),
    (ASSISTANT_TOOL_CALLS, "tool_calls"),
    (TOOL_RESULT, "tool_result"),
    (ASSISTANT_THINKING, "thinking"),
)
