"""The size rules' limits: vocabulary, so that the rules and the settings share the type without importing each other.

``lsp_server.settings.pi_context`` holds them as ``limits``; the rules (``rules/skill_rules.py``,
``rules/context_rules.py``) take a :class:`Thresholds` and default to these values, which
docs/rules.md lists. Two are not a rule's threshold: the size above which session files are not read
and the language server's time budget per check (docs/limits.md lists every limit).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class Thresholds(BaseModel):
    """The limits of the size rules, of session reads and of a check: one type for settings and rules."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, strict=True, extra="forbid", frozen=True)

    skill_max_bytes: int = Field(
        default=8 * 1024 * 1024, ge=0, description="skill/too-large above this file size (Claude's skill upload limit)."
    )
    body_max_lines: int = Field(
        default=500, ge=0, description="skill/body-too-long above this many body lines (the spec's recommendation)."
    )
    context_max_bytes: int = Field(
        default=32 * 1024, ge=0, description="context/too-large above this file size (Codex's project_doc_max_bytes)."
    )
    context_max_tokens: int = Field(
        default=8000, ge=0, description="context/token-heavy above this many tokens by Pi's chars/4 estimate."
    )
    session_max_bytes: int = Field(
        default=512 * 1024 * 1024,
        ge=0,
        description="Session files above this size are not read (an error names the limit); Node's string limit.",
    )
    check_budget_ms: int = Field(
        default=2000,
        ge=0,
        description=(
            "The language server publishes file/not-fully-checked for a file whose check is still running after this "
            "many milliseconds, and its findings when the check ends."
        ),
    )
