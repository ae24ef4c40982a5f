"""Pi session entries (JSONL v3): typed models, Pi's key orders, and the raw form we compute on.

Two representations, on purpose:

* **Raw entries** (:data:`Entry`, a ``dict``) are what a session file holds, exactly as parsed:
  unknown entry types and keys stay, an absent key differs from ``null``, key order is the file's.
  Pi itself never validates a session file, and every Pi-exact computation (path, projection,
  tokens, cut points) reads these dicts with JavaScript's rules (``lsp_server.js``). Loading a 100 MB
  session therefore costs one JSON parse, not a model validation per entry.
* **Models** (:class:`SessionEntryModel` and the message models) type the same data for code
  that builds or inspects entries: the compaction writer creates a ``CompactionEntry`` and writes
  it with :func:`entry_json_line`, which gives Pi's key order for that type (``custom`` and
  ``custom_message`` put ``customType`` before ``id``). A field that was never given is absent
  from the output; a field given as ``None`` is written as ``null``. Unknown keys are kept
  (``extra="allow"``) and written after the known ones. :func:`parse_entry` turns a raw entry
  into its model (unknown types become :class:`UnknownEntry`), reporting problems as values.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Tag, ValidationError
from pydantic.alias_generators import to_camel

from lsp_server.js.json import js_json_stringify
from lsp_server.js.objects import js_ordered
from lsp_server.js.values import js_get
from lsp_server.session.raw import CURRENT_SESSION_VERSION, Entry

__all__ = ["CURRENT_SESSION_VERSION", "Entry"]  # re-exported: the raw form lives in session/raw.py

ThinkingLevel = str  # "off", "minimal", "low", "medium", "high", "xhigh" (kept open: files may hold others)


class _Model(BaseModel):
    """Base for Pi's JSON objects: camelCase keys, unknown keys kept, unset fields not written."""

    model_config = ConfigDict(
        extra="allow",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    # The discriminating key ("type" / "role") has a default but must always be written.
    _always: ClassVar[tuple[str, ...]] = ()

    def model_post_init(self, context: Any, /) -> None:
        self.__pydantic_fields_set__.update(self._always)

    def to_json(self) -> dict[str, Any]:
        """Pi's JSON object: declared keys in Pi's order, then unknown keys; unset keys absent."""
        return self.model_dump(exclude_unset=True)


# --- content blocks ---------------------------------------------------------------------------


class TextContent(_Model):
    _always = ("type",)
    type: Literal["text"] = "text"
    text: str


class ImageContent(_Model):
    _always = ("type",)
    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ThinkingContent(_Model):
    _always = ("type",)
    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class ToolCall(_Model):
    _always = ("type",)
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any]


class Cost(_Model):
    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    total: float = 0


class Usage(_Model):
    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    total_tokens: float = 0
    cost: Cost | None = None


UserBlock = Annotated[TextContent | ImageContent, Discriminator("type")]
AssistantBlock = Annotated[TextContent | ThinkingContent | ToolCall, Discriminator("type")]


# --- agent messages ---------------------------------------------------------------------------


class UserMessage(_Model):
    _always = ("role",)
    role: Literal["user"] = "user"
    content: str | list[UserBlock]
    timestamp: float


class AssistantMessage(_Model):
    _always = ("role",)
    role: Literal["assistant"] = "assistant"
    content: list[AssistantBlock]
    api: str | None = None
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    stop_reason: str | None = None
    error_message: str | None = None
    timestamp: float


class ToolResultMessage(_Model):
    _always = ("role",)
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserBlock]
    details: Any = None
    is_error: bool = False
    nested_calls: dict[str, Any] | None = None
    timestamp: float


class ToolDeclaration(_Model):
    name: str
    description: str | None = None
    parameters: Any = None


class SystemMessage(_Model):
    """Prompt state in the transcript (Pi 1.6.0): text, section patches, tool deltas."""

    _always = ("role",)
    role: Literal["system"] = "system"
    content: str | list[UserBlock] = ""
    sections: dict[str, str | None] | None = None
    tools_added: list[ToolDeclaration] | None = None
    tools_removed: list[dict[str, Any]] | None = None
    timestamp: float


class BashExecutionMessage(_Model):
    _always = ("role",)
    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    exclude_from_context: bool | None = None
    timestamp: float


class CustomMessage(_Model):
    _always = ("role",)
    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserBlock]
    display: bool = True
    details: Any = None
    timestamp: float


class BranchSummaryMessage(_Model):
    _always = ("role",)
    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str
    timestamp: float | None


class CompactionSummaryMessage(_Model):
    _always = ("role",)
    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: float
    timestamp: float | None


class UnknownMessage(_Model):
    """A role Pi does not know (or an old one, e.g. ``hookMessage`` before migration): kept as is."""

    role: Any = None


_MESSAGE_ROLES = {
    "user",
    "assistant",
    "toolResult",
    "system",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
}


def _message_tag(value: Any) -> str:
    role = value.get("role") if isinstance(value, dict) else getattr(value, "role", None)
    return role if isinstance(role, str) and role in _MESSAGE_ROLES else "unknown"


AgentMessage = Annotated[
    Annotated[UserMessage, Tag("user")]
    | Annotated[AssistantMessage, Tag("assistant")]
    | Annotated[ToolResultMessage, Tag("toolResult")]
    | Annotated[SystemMessage, Tag("system")]
    | Annotated[BashExecutionMessage, Tag("bashExecution")]
    | Annotated[CustomMessage, Tag("custom")]
    | Annotated[BranchSummaryMessage, Tag("branchSummary")]
    | Annotated[CompactionSummaryMessage, Tag("compactionSummary")]
    | Annotated[UnknownMessage, Tag("unknown")],
    Discriminator(_message_tag),
]


# --- entries (keys declared in the order Pi writes them) ----------------------------------------


class SessionHeader(_Model):
    """First line of a session file; not part of the tree (no id/parentId of its own in the tree)."""

    _always = ("type",)
    type: Literal["session"] = "session"
    version: int | None = None
    id: str
    timestamp: str
    cwd: str
    parent_session: str | None = None


class MessageEntry(_Model):
    _always = ("type",)
    type: Literal["message"] = "message"
    id: str
    parent_id: str | None
    timestamp: str
    message: AgentMessage


class ThinkingLevelChangeEntry(_Model):
    _always = ("type",)
    type: Literal["thinking_level_change"] = "thinking_level_change"
    id: str
    parent_id: str | None
    timestamp: str
    thinking_level: ThinkingLevel


class ModelChangeEntry(_Model):
    _always = ("type",)
    type: Literal["model_change"] = "model_change"
    id: str
    parent_id: str | None
    timestamp: str
    provider: str
    model_id: str


class UsageEntry(_Model):
    """Model usage that is not part of the context (e.g. a summary request's cost)."""

    _always = ("type",)
    type: Literal["usage"] = "usage"
    id: str
    parent_id: str | None
    timestamp: str
    kind: str
    provider: str
    model: str
    usage: Usage
    note: str | None = None


class CompactionEntry(_Model):
    _always = ("type",)
    type: Literal["compaction"] = "compaction"
    id: str
    parent_id: str | None
    timestamp: str
    summary: str
    first_kept_entry_id: str
    tokens_before: float
    details: Any = None
    usage: Usage | None = None
    from_hook: bool | None = None
    system_message: SystemMessage | None = None


class BranchSummaryEntry(_Model):
    _always = ("type",)
    type: Literal["branch_summary"] = "branch_summary"
    id: str
    parent_id: str | None
    timestamp: str
    from_id: str
    summary: str
    details: Any = None
    usage: Usage | None = None
    from_hook: bool | None = None


class CustomEntry(_Model):
    """Extension state; never reaches the model. Pi writes ``customType`` and ``data`` before ``id``."""

    _always = ("type",)
    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None
    id: str
    parent_id: str | None
    timestamp: str


class CustomMessageEntry(_Model):
    """An extension message that reaches the model as a user message; ``customType`` before ``id``."""

    _always = ("type",)
    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: str | list[UserBlock]
    display: bool
    details: Any = None
    id: str
    parent_id: str | None
    timestamp: str


class SessionInfoEntry(_Model):
    _always = ("type",)
    type: Literal["session_info"] = "session_info"
    id: str
    parent_id: str | None
    timestamp: str
    name: str


class ContextEditReplacement(_Model):
    content: str | list[UserBlock | ThinkingContent | ToolCall]


class ContextEditEntry(_Model):
    """Replaces (``{content}``) or omits (``null``) an earlier entry's messages on this branch."""

    _always = ("type",)
    type: Literal["context_edit"] = "context_edit"
    id: str
    parent_id: str | None
    timestamp: str
    target_id: str
    replacement: ContextEditReplacement | None


class LabelEntry(_Model):
    """Sets (``label`` present and non-empty) or clears (absent/empty) the label of ``targetId``."""

    _always = ("type",)
    type: Literal["label"] = "label"
    id: str
    parent_id: str | None
    timestamp: str
    target_id: str
    label: str | None = None


class UnknownEntry(_Model):
    """An entry type this version does not know; kept, shown, never sent to the model."""

    type: Any = None


ENTRY_MODELS: dict[str, type[_Model]] = {
    "session": SessionHeader,
    "message": MessageEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "model_change": ModelChangeEntry,
    "usage": UsageEntry,
    "compaction": CompactionEntry,
    "branch_summary": BranchSummaryEntry,
    "custom": CustomEntry,
    "custom_message": CustomMessageEntry,
    "session_info": SessionInfoEntry,
    "context_edit": ContextEditEntry,
    "label": LabelEntry,
}

SessionEntryModel = (
    SessionHeader
    | MessageEntry
    | ThinkingLevelChangeEntry
    | ModelChangeEntry
    | UsageEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | SessionInfoEntry
    | ContextEditEntry
    | LabelEntry
    | UnknownEntry
)


class EntryShapeError(ValueError):
    """A raw entry that does not have the shape its type requires (message names the fields)."""


def parse_entry(raw: Entry) -> SessionEntryModel | EntryShapeError:
    """The typed model of a raw entry, or an :class:`EntryShapeError` (returned, not raised)."""
    kind = raw.get("type")
    model = ENTRY_MODELS.get(kind) if isinstance(kind, str) else None
    try:
        if model is None:
            return UnknownEntry.model_validate(raw)
        return model.model_validate(raw)  # type: ignore[return-value]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or '(entry)'}: {error['msg']}" for error in exc.errors()
        )
        return EntryShapeError(f"{raw.get('type')} entry: {problems}")


def entry_json(entry: Entry | _Model) -> str:
    """The JSON line body Pi writes for ``entry`` (``JSON.stringify``; no trailing newline).

    Models are written in Pi's key order for their type; raw entries keep their own order. Object
    keys that look like array indices come first, as in any JavaScript object.
    """
    data = entry.to_json() if isinstance(entry, _Model) else entry
    return js_json_stringify(js_ordered(data))


def entry_json_line(entry: Entry | _Model) -> str:
    """One session-file line: :func:`entry_json` plus ``\\n`` (Pi appends whole lines)."""
    return entry_json(entry) + "\n"


def entry_id(entry: Entry) -> Any:
    """The entry's ``id`` (``UNDEFINED`` when absent): ids are compared with JavaScript's ``===``."""
    return js_get(entry, "id")


def is_header(entry: Any) -> bool:
    return bool(js_get(entry, "type") == "session")
