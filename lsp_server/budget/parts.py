"""What a request is made of, piece by piece: system prompt parts and messages, each with a category.

The budget and the projected request count the same pieces, so both take them from here:

* a **system message** (the session's stored prompt state, or the workspace's assembled prompt)
  splits into its text content, one part per section and the tool declarations -- exactly the
  characters Pi's ``estimateTokens`` adds up for a system message, so the parts can be apportioned
  Pi's single ``ceil(chars / 4)`` without losing or inventing a token;
* a **message** goes to a category by its agent role (user, assistant, tool result, summary,
  custom/``!`` command, system-prompt update) and is counted twice: Pi's estimate of the *agent*
  message (what Pi decides with) and the chosen counter on the message *as the model receives it*
  after ``convertToLlm`` (wrappers included; a ``!`` command excluded from context counts 0).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from lsp_server.js.json import js_json_stringify
from lsp_server.js.objects import js_key_order
from lsp_server.js.strings import js_len
from lsp_server.js.values import js_get, js_to_string, js_truthy
from lsp_server.session.estimates import estimate_tokens, estimate_tokens_with, message_token_parts
from lsp_server.session.messages import Message, content_text, convert_message_to_llm
from lsp_server.tokens.counter import TokenCounter

if TYPE_CHECKING:
    from lsp_server.prompt.assembly import AssembledPrompt
    from lsp_server.session.projection import SessionProjection

IMAGE_TOKENS: Final = 1200  # an image for a real counter (Pi counts 4,800 characters = 1,200 tokens)

CONTENT_PART: Final = "#content"  # pseudo-section names; a real section name matches [a-z][a-z0-9_-]*
TOOLS_PART: Final = "#tools"

SYSTEM_TEXT: Final = "system.text"
TOOL_DEFINITIONS: Final = "system.tool_definitions"

USER: Final = "messages.user"
ASSISTANT: Final = "messages.assistant"
TOOL_RESULT: Final = "messages.toolResult"
SUMMARY: Final = "messages.summary"
CUSTOM: Final = "messages.custom"
SYSTEM_PATCH: Final = "messages.systemPatch"
MESSAGE_CATEGORIES: Final = (USER, ASSISTANT, TOOL_RESULT, SUMMARY, CUSTOM, SYSTEM_PATCH)

_ROLE_CATEGORY: Final[Mapping[str, str]] = {
    "user": USER,
    "assistant": ASSISTANT,
    "toolResult": TOOL_RESULT,
    "compactionSummary": SUMMARY,
    "branchSummary": SUMMARY,
    "custom": CUSTOM,
    "bashExecution": CUSTOM,
    "system": SYSTEM_PATCH,
}

_LABELS: Final[Mapping[str, str]] = {
    "system.preamble": "Base prompt",
    "system.tools": "Tool list",
    "system.rules": "Guidelines",
    "system.docs": "Pi documentation pointer",
    "system.addendum": "APPEND_SYSTEM.md",
    "system.project_context": "Context files",
    "system.skills": "Skills listing",
    "system.cwd": "Working directory",
    SYSTEM_TEXT: "System prompt text",
    TOOL_DEFINITIONS: "Tool definitions",
    USER: "User messages",
    ASSISTANT: "Assistant messages",
    TOOL_RESULT: "Tool results",
    SUMMARY: "Summaries (compaction, branch)",
    CUSTOM: "Custom and ! command messages",
    SYSTEM_PATCH: "System prompt updates",
}


def category_label(category: str) -> str:
    """A short human label for a category id (custom sections: ``Section "name"``)."""
    label = _LABELS.get(category)
    if label is not None:
        return label
    if category.startswith("system."):
        return f'Section "{category[len("system.") :]}"'
    return category


def section_category(name: str) -> str:
    if name == CONTENT_PART:
        return SYSTEM_TEXT
    if name == TOOLS_PART:
        return TOOL_DEFINITIONS
    return f"system.{name}"


_CONTEXT_FILE_TAG = re.compile(r"<project_instructions path=")


def _items_in(name: str, text: str, tools: Any = None) -> int | None:
    """How many things a part holds: context files, listed skills, declared tools (else ``None``)."""
    if name == "project_context":
        return len(_CONTEXT_FILE_TAG.findall(text))
    if name == "skills":
        return text.count("<skill>")
    if name == TOOLS_PART and isinstance(tools, list):
        return len(tools)
    return None


@dataclass(frozen=True)
class SystemPart:
    """A piece of the system prompt: its name (a section, ``#content`` or ``#tools``) and text.

    ``chars`` is what Pi's estimate counts for it (UTF-16 units; an image is 4,800).
    """

    name: str
    text: str
    chars: int
    count: int | None = None
    images: int = 0
    sources: tuple[str, ...] = ()
    ours: bool = False  # pi-context's stand-in for Pi's built-in prose (workspace prompt only)

    @property
    def category(self) -> str:
        return section_category(self.name)

    def counted(self, counter: TokenCounter) -> int:
        return counter.count(self.text) + self.images * IMAGE_TOKENS


def system_message_parts(message: Mapping[str, Any]) -> list[SystemPart]:
    """The parts Pi's ``estimateTokens`` counts in a system message, in rendering order.

    Content (text blocks or a string; images at 4,800 characters), then each truthy section,
    then ``JSON.stringify(toolsAdded)``. Their ``chars`` add up to Pi's count for the message.
    """
    parts: list[SystemPart] = []
    content = message_token_parts({"role": "user", "content": message.get("content")})
    if sum(part.chars for part in content) > 0:
        texts = [part.text for part in content if part.text is not None]
        images = sum(1 for part in content if part.text is None)
        parts.append(SystemPart(CONTENT_PART, "\n\n".join(texts), sum(part.chars for part in content), images=images))
    sections = message.get("sections")
    if isinstance(sections, Mapping):
        for name in js_key_order(sections):
            value = sections[name]
            if js_truthy(value):
                text = value if isinstance(value, str) else js_to_string(value)
                parts.append(SystemPart(name, text, js_len(text), _items_in(name, text)))
    tools = message.get("toolsAdded")
    if js_truthy(tools):
        text = js_json_stringify(tools)
        parts.append(SystemPart(TOOLS_PART, text, js_len(text), _items_in(TOOLS_PART, text, tools)))
    return parts


def prompt_parts(prompt: AssembledPrompt) -> list[SystemPart]:
    """The workspace's assembled prompt as parts (a forced prompt is one text part)."""
    if prompt.forced:
        return [SystemPart(CONTENT_PART, prompt.text, js_len(prompt.text))]
    return [
        SystemPart(
            section.name,
            section.text,
            js_len(section.text),
            _items_in(section.name, section.text),
            sources=section.sources,
            ours=section.origin == "default",
        )
        for section in prompt.sections
    ]


def apportion(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` in proportion to ``weights`` so that the parts add up to it exactly.

    Largest remainder: each part gets the floor of its share, and the tokens left over go to the
    largest fractional remainders (ties to the earlier part). All-zero weights give everything
    to the first part. Integer arithmetic only, so the result never depends on float rounding.
    """
    if not weights:
        return []
    weight_sum = sum(weights)
    if weight_sum <= 0:
        return [total] + [0] * (len(weights) - 1)
    shares = [total * weight // weight_sum for weight in weights]
    remainders = [total * weight % weight_sum for weight in weights]
    left = total - sum(shares)
    for index in sorted(range(len(weights)), key=lambda i: (-remainders[i], i))[:left]:
        shares[index] += 1
    return shares


# --- messages ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CountedMessage:
    """One projected agent message, where it came from, what the model receives, both counts."""

    index: int  # position in the projection's messages
    entry: Mapping[str, Any]  # the session entry that produced it
    message: Message  # the agent message (Pi's estimate counts this)
    llm: Message | None  # after convertToLlm (None: not sent)
    role: str
    category: str | None  # None: a role Pi neither counts nor sends
    pi_tokens: int
    tokens: int


def message_category(message: Any) -> str | None:
    role = js_get(message, "role")
    return _ROLE_CATEGORY.get(role) if isinstance(role, str) else None


def count_messages(projection: SessionProjection, count_text: Callable[[str], int]) -> list[CountedMessage]:
    """Every message of the projection with its category, Pi's estimate and the counter's count."""
    out: list[CountedMessage] = []
    index = 0
    for projected in projection.entries:
        for message in projected.messages:
            llm = convert_message_to_llm(message)
            role = js_get(message, "role")
            out.append(
                CountedMessage(
                    index=index,
                    entry=projected.source_entry,
                    message=message,
                    llm=llm,
                    role=role if isinstance(role, str) else "",
                    category=message_category(message),
                    pi_tokens=estimate_tokens(message),
                    tokens=0 if llm is None else estimate_tokens_with(llm, count_text, IMAGE_TOKENS),
                )
            )
            index += 1
    return out


def llm_message_text(message: Mapping[str, Any]) -> str:
    """A message as the model receives it, as one text: text blocks, then markers for the rest.

    Images become ``[image]``, thinking ``[thinking] …``, tool calls ``[tool call] name {json}``.
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    if message.get("role") == "system":
        return content_text(content, "\n\n")
    pieces: list[str] = []
    for block in content:
        kind = js_get(block, "type")
        if kind == "text":
            pieces.append(js_to_string(js_get(block, "text")))
        elif kind == "image":
            pieces.append("[image]")
        elif kind == "thinking":
            pieces.append("[thinking] " + js_to_string(js_get(block, "thinking")))
        elif kind == "toolCall":
            arguments = js_get(block, "arguments")
            args = "" if not isinstance(arguments, (dict, list)) else " " + js_json_stringify(arguments)
            pieces.append(f"[tool call] {js_to_string(js_get(block, 'name'))}{args}")
    return "\n".join(pieces)
