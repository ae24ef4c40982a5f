"""Pi's ``settings.json`` files: models, Pi's migration and deep merge, and per-model compaction.

Pi reads ``<agentDir>/settings.json`` (global) and ``<cwd>/.pi/settings.json`` (project, only
when the project is trusted), applies its format migrations to each, and deep-merges project over
global (objects merge key by key, everything else is replaced; ``defaultTools`` lists made only of
``+name``/``-name`` entries extend the inherited list). Pi itself does not validate the files; it
falls back to a default where a getter finds nothing usable and throws where it cannot
(``compaction.reserveTokens: "lots"``). Here every layer is validated against the keys we read: a
bad value becomes a problem naming file, line and key, is dropped, and the rest still applies.
Keys we do not model are kept as they are.
"""

from __future__ import annotations

import copy
import posixpath
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.alias_generators import to_camel

from lsp_server.base import fsread
from lsp_server.base.lenient import SettingsProblem, parse_json_text, validate_leniently
from lsp_server.base.paths import resolve_path
from lsp_server.js.numbers import MAX_SAFE_INTEGER
from lsp_server.vocabulary.compaction import (
    DEFAULT_BRANCH_RESERVE_TOKENS,
    DEFAULT_COMPACTION_ENABLED,
    DEFAULT_KEEP_RECENT_TOKENS,
    DEFAULT_RESERVE_TOKENS,
    CompactionSettings,
)
from lsp_server.vocabulary.pi_files import PROJECT_CONFIG_DIR, SETTINGS_FILE

# Pi's SETTINGS_DEFAULTS for the token settings pi-context reads live in session.tokens, beside their rules.

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


def _safe_integer(value: Any) -> Any:
    """Pi's check for compaction token settings: a non-negative safe integer (``2.0`` counts)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("Expected a non-negative safe integer")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("Expected a non-negative safe integer")
        value = int(value)
    if value < 0 or value > MAX_SAFE_INTEGER:
        raise ValueError("Expected a non-negative safe integer")
    return value


NonNegativeSafeInt = Annotated[int, BeforeValidator(_safe_integer)]


class _PiModel(BaseModel):
    """camelCase keys as in the file, strict types (no "12" for 12), unknown keys kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, strict=True, extra="allow", frozen=True)


class CompactionModelOverride(_PiModel):
    reserve_tokens: NonNegativeSafeInt | None = Field(default=None, description="Overrides compaction.reserveTokens.")
    keep_recent_tokens: NonNegativeSafeInt | None = Field(
        default=None, description="Overrides compaction.keepRecentTokens."
    )


class CompactionSection(_PiModel):
    """The ``compaction`` object of a settings file; :meth:`resolve` gives the values for one model."""

    enabled: bool = Field(default=DEFAULT_COMPACTION_ENABLED, description="Compact automatically near the window.")
    reserve_tokens: NonNegativeSafeInt = Field(
        default=DEFAULT_RESERVE_TOKENS,
        description="Tokens kept free for the prompt and the reply; compaction starts above window - reserve.",
    )
    keep_recent_tokens: NonNegativeSafeInt = Field(
        default=DEFAULT_KEEP_RECENT_TOKENS, description="Recent conversation kept verbatim after compaction."
    )
    model_overrides: dict[str, CompactionModelOverride] = Field(
        default_factory=dict, description='Per-model overrides keyed by exact "provider/modelId" strings.'
    )

    def resolve(self, provider: str | None = None, model_id: str | None = None) -> CompactionSettings:
        """Pi's ``getCompactionSettings(model)``: model override, then the setting, then the default."""
        key = f"{provider}/{model_id}" if provider is not None and model_id is not None else None
        entry = self.model_overrides.get(key) if key is not None else None
        reserve = entry.reserve_tokens if entry and entry.reserve_tokens is not None else self.reserve_tokens
        keep = entry.keep_recent_tokens if entry and entry.keep_recent_tokens is not None else self.keep_recent_tokens
        return CompactionSettings(self.enabled, reserve, keep, key if entry is not None else None)


class BranchSummarySettings(_PiModel):
    reserve_tokens: int | float = Field(
        default=DEFAULT_BRANCH_RESERVE_TOKENS, description="Tokens reserved for the prompt and LLM response."
    )
    skip_prompt: bool = Field(default=False, description='Skip the "Summarize branch?" question (no summary).')


class PackageFilter(_PiModel):
    source: str = Field(description="npm: or git: package source.")
    autoload: bool | None = None
    extensions: list[str] | None = None
    skills: list[str] | None = None
    prompts: list[str] | None = None
    themes: list[str] | None = None


class PiSettings(_PiModel):
    """The keys of Pi's settings.json that pi-context reads; every other key is kept as is."""

    default_provider: str | None = Field(default=None, description="Provider of the default model.")
    default_model: str | None = Field(default=None, description="Id of the default model.")
    default_thinking_level: ThinkingLevel | None = None
    model_thinking_levels: dict[str, ThinkingLevel] = Field(default_factory=dict)
    compaction: CompactionSection = Field(default_factory=CompactionSection)
    branch_summary: BranchSummarySettings = Field(default_factory=BranchSummarySettings)
    skills: list[str] = Field(default_factory=list, description="Local skill files or directories (+/-/! patterns).")
    packages: list[str | PackageFilter] = Field(default_factory=list, description="npm or git package sources.")
    extensions: list[str] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)
    themes: list[str] = Field(default_factory=list)
    enable_skill_commands: bool = Field(default=True, description="Register skills as /skill:name commands.")
    default_project_trust: Literal["ask", "always", "never"] = Field(
        default="ask", description="Global only: trust for projects with no stored decision."
    )
    default_tools: list[str] | None = None
    session_dir: str | None = None

    def compaction_for(self, provider: str | None = None, model_id: str | None = None) -> CompactionSettings:
        return self.compaction.resolve(provider, model_id)


def migrate_settings(raw: dict[str, Any]) -> dict[str, Any]:
    """Pi's ``migrateSettings`` on a copy: old key names and shapes become the current ones."""
    settings = copy.deepcopy(raw)
    if "queueMode" in settings and "steeringMode" not in settings:
        settings["steeringMode"] = settings.pop("queueMode")
    if "transport" not in settings and isinstance(settings.get("websockets"), bool):
        settings["transport"] = "websocket" if settings.pop("websockets") else "sse"
    skills = settings.get("skills")
    if isinstance(skills, dict):
        if skills.get("enableSkillCommands") is not None and settings.get("enableSkillCommands") is None:
            settings["enableSkillCommands"] = skills["enableSkillCommands"]
        custom = skills.get("customDirectories")
        if isinstance(custom, list) and custom:
            settings["skills"] = custom
        else:
            del settings["skills"]
    retry = settings.get("retry")
    if isinstance(retry, dict):
        provider = retry.get("provider") if isinstance(retry.get("provider"), dict) else None
        max_delay = retry.get("maxDelayMs")
        if (
            isinstance(max_delay, (int, float))
            and not isinstance(max_delay, bool)
            and (provider is None or provider.get("maxRetryDelayMs") is None)
        ):
            retry["provider"] = {**(provider or {}), "maxRetryDelayMs": max_delay}
        retry.pop("maxDelayMs", None)
    return settings


def _is_tool_modifier(entry: Any) -> bool:
    return isinstance(entry, str) and (entry.startswith("+") or entry.startswith("-"))


def _deep_merge_objects(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    result = dict(base)
    for key, value in overrides.items():
        current = base.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            result[key] = _deep_merge_objects(current, value)
        else:
            result[key] = value
    return result


def deep_merge_settings(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Pi's ``deepMergeSettings``: objects merge recursively, the rest is replaced.

    ``defaultTools``: an override made only of ``+name``/``-name`` entries is appended to the
    inherited list (so it modifies it); any other override list replaces it.
    """
    merged = _deep_merge_objects(base, overrides)
    if "defaultTools" in overrides:
        inherited, override = base.get("defaultTools"), overrides["defaultTools"]
        if isinstance(inherited, list) and isinstance(override, list) and all(map(_is_tool_modifier, override)):
            merged["defaultTools"] = [*inherited, *override]
    return merged


SettingsScope = Literal["global", "project"]


@dataclass(frozen=True)
class SettingsLayer:
    """One settings file: what it holds (after migration, bad values dropped) and its problems."""

    scope: SettingsScope
    path: str
    exists: bool
    read: bool  # False when absent, or a project file of an untrusted project (Pi does not read it)
    raw: dict[str, Any] = field(default_factory=dict)
    settings: PiSettings = field(default_factory=PiSettings)
    problems: tuple[SettingsProblem, ...] = ()
    untrusted: bool = False


@dataclass(frozen=True)
class LoadedPiSettings:
    """Global and project layers, and the merged settings Pi would use."""

    global_layer: SettingsLayer
    project_layer: SettingsLayer
    merged_raw: dict[str, Any]
    effective: PiSettings

    @property
    def problems(self) -> tuple[SettingsProblem, ...]:
        return (*self.global_layer.problems, *self.project_layer.problems)


def global_settings_path(agent_dir: str) -> str:
    return posixpath.join(resolve_path(agent_dir), SETTINGS_FILE)


def project_settings_path(cwd: str) -> str:
    return posixpath.join(resolve_path(cwd), PROJECT_CONFIG_DIR, SETTINGS_FILE)


def parse_settings_text(text: str, path: str, scope: SettingsScope) -> SettingsLayer:
    """One settings file's text (an open buffer or the file) as a validated layer."""
    if not text:
        return SettingsLayer(scope, path, exists=True, read=True)  # Pi: an empty file is {}
    loaded = parse_json_text(text, path)
    if loaded.problem is not None:
        return SettingsLayer(scope, path, exists=True, read=True, problems=(loaded.problem,))
    raw = migrate_settings(loaded.value) if isinstance(loaded.value, dict) else loaded.value
    settings, problems = validate_leniently(PiSettings, raw, path, text)
    kept = settings.model_dump(by_alias=True, exclude_unset=True) if isinstance(raw, dict) else {}
    return SettingsLayer(scope, path, exists=True, read=True, raw=kept, settings=settings, problems=tuple(problems))


def read_settings_layer(path: str, scope: SettingsScope, *, allowed: bool = True) -> SettingsLayer:
    """Read one settings file; ``allowed=False`` is an untrusted project (noted, not read)."""
    exists = fsread.exists(path)
    if not exists:
        return SettingsLayer(scope, path, exists=False, read=False)
    if not allowed:
        return SettingsLayer(scope, path, exists=True, read=False, untrusted=True)
    result = fsread.read_text(path)
    if result.text is None:
        problem = SettingsProblem(path, (), f"cannot read settings file: {result.error}")
        return SettingsLayer(scope, path, exists=True, read=False, problems=(problem,))
    return parse_settings_text(result.text, path, scope)


def merge_layers(global_layer: SettingsLayer, project_layer: SettingsLayer) -> LoadedPiSettings:
    merged = deep_merge_settings(global_layer.raw, project_layer.raw)
    effective, _ = validate_leniently(PiSettings, merged, "<merged settings>")
    return LoadedPiSettings(global_layer, project_layer, merged, effective)


def load_pi_settings(cwd: str, agent_dir: str, *, project_trusted: bool) -> LoadedPiSettings:
    """Pi's ``SettingsManager.create(cwd, agentDir, {projectTrusted})``, as values."""
    global_layer = read_settings_layer(global_settings_path(agent_dir), "global")
    project_layer = read_settings_layer(project_settings_path(cwd), "project", allowed=project_trusted)
    return merge_layers(global_layer, project_layer)
