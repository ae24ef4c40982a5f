"""The server's settings: one typed object built from what the editor sends.

Editors hand settings over in three ways, and we accept all of them under the section
``piContext``: ``initializationOptions`` at start (Neovim 0.7 has nothing else), the answer to
``workspace/configuration`` (VS Code, Emacs, newer Neovim), and the ``settings`` of
``workspace/didChangeConfiguration`` when the client pushes them. Later layers win key by key.

A bad value never stops the server: the key falls back to its default and the problem comes back
as a message the server logs (``piContext.debounceMs: ...``), because a typo in a settings file
must not cost the user their diagnostics.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from lsp_server.context.names import AGENT_DIR_ENV, DEFAULT_AGENT_DIR
from lsp_server.rules.registry import DEFAULT_PROFILE, PROFILES

SECTION = "piContext"

EstimatorName = Literal["pi", "weighted", "exact"]


class _Settings(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)


class SummarizerSettings(_Settings):
    """Who writes compaction and branch summaries: the offline extractive one, or an LLM endpoint."""

    kind: Literal["offline", "endpoint"] = "offline"
    endpoint: str | None = Field(default=None, description="Base URL of an OpenAI-compatible or Anthropic API.")
    api: Literal["openai", "anthropic"] = "openai"
    model: str | None = None
    api_key_env: str | None = Field(default=None, description="Name of the environment variable holding the key.")
    timeout_s: float = Field(default=120.0, gt=0)


class ServerSettings(_Settings):
    """Everything a user can set for pi-context in their editor (section ``piContext``)."""

    rule_profile: str = Field(default=DEFAULT_PROFILE, description=f"Rule profile: one of {', '.join(PROFILES)}.")
    token_estimator: EstimatorName = "weighted"
    token_family: str = Field(default="gpt", min_length=1)
    summarizer: SummarizerSettings = SummarizerSettings()
    agent_dir: str | None = Field(
        default=None, description="Pi's agent dir; default $PI_CODING_AGENT_DIR or ~/.pi/agent."
    )
    trust_override: bool | None = Field(default=None, description="Treat every project as trusted (true) or not.")
    debounce_ms: int = Field(default=150, ge=0, le=10_000)
    watch: bool = Field(default=True, description="Watch workspace folders and the agent dir for changes on disk.")

    @field_validator("rule_profile")
    @classmethod
    def _known_profile(cls, value: str) -> str:
        if value not in PROFILES:
            raise ValueError(f"unknown rule profile (use {', '.join(PROFILES)})")
        return value

    def wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, mode="json")


def section_of(value: Any) -> Mapping[str, Any] | None:
    """The ``piContext`` object inside a settings payload, or the payload itself when it is flat.

    ``{"piContext": {...}}`` is what VS Code pushes; a flat object is what most
    ``initializationOptions`` and ``workspace/configuration`` answers look like.
    """
    if not isinstance(value, Mapping):
        return None
    inner = value.get(SECTION)
    if isinstance(inner, Mapping):
        return inner
    return value


def _deep_merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if value is None:
            continue
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            merged[key] = _deep_merge(current, value)
        else:
            merged[key] = value
    return merged


def _drop(data: dict[str, Any], loc: Sequence[int | str]) -> None:
    """Remove the value at ``loc`` (a pydantic error location, by alias) from nested dicts."""
    target: Any = data
    for part in loc[:-1]:
        if not isinstance(target, dict) or part not in target:
            return
        target = target[part]
    if isinstance(target, dict) and loc:
        target.pop(loc[-1], None)


def parse_settings(*layers: Any) -> tuple[ServerSettings, list[str]]:
    """Merge settings layers (earliest first) and validate; bad keys fall back to their defaults.

    Returns the settings and one message per rejected value, e.g.
    ``piContext.debounceMs: Input should be greater than or equal to 0 (got -1)``.
    """
    merged: dict[str, Any] = {}
    for layer in layers:
        section = section_of(layer)
        if section is not None:
            merged = _deep_merge(merged, section)
    problems: list[str] = []
    for _ in range(64):  # each pass drops at least one bad value
        try:
            return ServerSettings.model_validate(merged), problems
        except ValidationError as exc:
            for error in exc.errors():
                loc = [part for part in error["loc"] if isinstance(part, str | int)]
                where = ".".join(str(part) for part in (SECTION, *loc))
                problems.append(f"{where}: {error['msg']} (got {error.get('input')!r})")
                _drop(merged, loc)
    return ServerSettings(), problems


def resolve_agent_dir(settings: ServerSettings, env: Mapping[str, str] | None = None) -> str:
    """Pi's agent dir: the setting, else ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent`` (absolute)."""
    environ = os.environ if env is None else env
    chosen = settings.agent_dir or environ.get(AGENT_DIR_ENV) or DEFAULT_AGENT_DIR
    if chosen == "~" or chosen.startswith("~/"):
        home = environ.get("HOME") or os.path.expanduser("~")
        chosen = home + chosen[1:]
    return os.path.abspath(chosen)
