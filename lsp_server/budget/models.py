"""Which model a budget is for, and its context window.

Pi takes a model's window from pi-ai's model catalog (``pi-ai/dist/providers/data/<provider>.json``,
chat models keyed ``chat:<id>``), overlaid by the user's ``<agentDir>/models.json``: a provider's
``models`` entries replace or add models (``contextWindow`` defaults to 128,000 there), and
``modelOverrides[<id>]`` patch any model of that provider, last. pi-context cannot import Pi, so
the same facts come from, in order:

1. **settings** -- pi-context's own ``budget.contextWindows`` (``"provider/id"`` before ``"id"``):
   the user always wins, e.g. for a local model or a proxy with a smaller limit;
2. **models.json** -- the user's Pi file, read as Pi reads it (BOM, ``//`` comments, trailing
   commas; a file Pi would reject is ignored, with the reason);
3. **pi** -- the catalog of an installed Pi (found like the prompt's docs folder), when there is one;
4. **table** -- pi-context's own small table of common models (:data:`KNOWN_CONTEXT_WINDOWS`);
5. **default** -- ``budget.defaultContextWindow``, else 128,000 (Pi's default for a custom model).

Every answer says which source gave the window, so the gauge can say "default window" instead of
pretending to know.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from lsp_server.base import fsread
from lsp_server.js.json import JS_JSON
from lsp_server.js.strings import strip_bom
from lsp_server.prompt.package_dir import find_pi_package_dir

DEFAULT_CONTEXT_WINDOW: Final = 128_000  # Pi's default contextWindow for a models.json model
MODELS_JSON: Final = "models.json"
PI_AI_PACKAGE: Final = "@earendil-works/pi-ai"

WindowSource = Literal["settings", "models.json", "pi", "table", "default"]
ModelSource = Literal["session", "pi-settings", "none"]

# Context windows of common models (provider, model id) -> tokens, as the providers publish them.
# Where Pi 1.6.0's catalog lists the same model the value is the same (checked by a test when Pi
# is installed); the table is only a fallback for machines without Pi.
KNOWN_CONTEXT_WINDOWS: Final[Mapping[tuple[str, str], int]] = {
    # Anthropic
    ("anthropic", "claude-opus-4-7"): 1_000_000,
    ("anthropic", "claude-opus-4-6"): 1_000_000,
    ("anthropic", "claude-sonnet-4-6"): 1_000_000,
    ("anthropic", "claude-opus-4-5"): 200_000,
    ("anthropic", "claude-opus-4-5-20251101"): 200_000,
    ("anthropic", "claude-sonnet-4-5"): 200_000,
    ("anthropic", "claude-sonnet-4-5-20250929"): 200_000,
    ("anthropic", "claude-haiku-4-5"): 200_000,
    ("anthropic", "claude-haiku-4-5-20251001"): 200_000,
    ("anthropic", "claude-opus-4-1"): 200_000,
    ("anthropic", "claude-opus-4-1-20250805"): 200_000,
    ("anthropic", "claude-opus-4-0"): 200_000,
    ("anthropic", "claude-opus-4-20250514"): 200_000,
    ("anthropic", "claude-sonnet-4-0"): 200_000,
    ("anthropic", "claude-sonnet-4-20250514"): 200_000,
    ("anthropic", "claude-3-7-sonnet-latest"): 200_000,
    ("anthropic", "claude-3-7-sonnet-20250219"): 200_000,
    ("anthropic", "claude-3-5-sonnet-20241022"): 200_000,
    ("anthropic", "claude-3-5-haiku-20241022"): 200_000,
    ("anthropic", "claude-3-opus-20240229"): 200_000,
    # OpenAI
    ("openai", "gpt-5"): 400_000,
    ("openai", "gpt-5-mini"): 400_000,
    ("openai", "gpt-5-nano"): 400_000,
    ("openai", "gpt-5.1"): 400_000,
    ("openai", "gpt-5.2"): 400_000,
    ("openai", "gpt-5-chat-latest"): 128_000,
    ("openai", "gpt-4.1"): 1_047_576,
    ("openai", "gpt-4.1-mini"): 1_047_576,
    ("openai", "gpt-4.1-nano"): 1_047_576,
    ("openai", "gpt-4o"): 128_000,
    ("openai", "gpt-4o-mini"): 128_000,
    ("openai", "gpt-4-turbo"): 128_000,
    ("openai", "gpt-4"): 8_192,
    ("openai", "o1"): 200_000,
    ("openai", "o3"): 200_000,
    ("openai", "o3-mini"): 200_000,
    ("openai", "o3-pro"): 200_000,
    ("openai", "o4-mini"): 200_000,
    # Google
    ("google", "gemini-2.5-pro"): 1_048_576,
    ("google", "gemini-2.5-flash"): 1_048_576,
    ("google", "gemini-2.5-flash-lite"): 1_048_576,
    ("google", "gemini-2.0-flash"): 1_048_576,
    # Others
    ("xai", "grok-4"): 256_000,
    ("xai", "grok-code-fast-1"): 256_000,
    ("deepseek", "deepseek-chat"): 128_000,
    ("deepseek", "deepseek-reasoner"): 128_000,
    ("mistral", "codestral-latest"): 256_000,
    ("mistral", "devstral-latest"): 262_144,
    ("zai", "glm-4.7"): 204_800,
    ("groq", "llama-3.3-70b-versatile"): 131_072,
    ("groq", "llama-3.1-8b-instant"): 131_072,
    ("groq", "openai/gpt-oss-120b"): 131_072,
    ("groq", "openai/gpt-oss-20b"): 131_072,
}


def _positive_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _as_tokens(value: float) -> int:
    """A window as a whole number of tokens (Pi accepts any positive number; windows are integers)."""
    return int(value)


# --- models.json -------------------------------------------------------------------------------

_STRING_OR_LINE_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*')
_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(\s*[}\]])')


def strip_json_comments(text: str) -> str:
    """Pi's ``stripJsonComments``: ``//`` line comments and trailing commas go, strings stay."""
    text = _STRING_OR_LINE_COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    return _STRING_OR_TRAILING_COMMA.sub(
        lambda m: m.group(1) if m.group(1) is not None else (m.group(0) if m.group(0).startswith('"') else ""), text
    )


def _shape_problem(providers: Any) -> str | None:
    """Why Pi's schema check would reject the parts of models.json that hold windows (``None``: fine).

    Only the keys that decide a window are checked; Pi validates the whole file, so a file it
    rejects for another reason is still read here (the docs say so).
    """
    if not isinstance(providers, dict):
        return "providers: must be an object"
    for provider_id, provider in providers.items():
        if not isinstance(provider, dict):
            return f"providers.{provider_id}: must be an object"
        models = provider.get("models")
        if models is not None:
            if not isinstance(models, list):
                return f"providers.{provider_id}.models: must be an array"
            for index, model in enumerate(models):
                where = f"providers.{provider_id}.models.{index}"
                if not isinstance(model, dict):
                    return f"{where}: must be an object"
                model_id = model.get("id")
                if not isinstance(model_id, str) or not model_id:
                    return f"{where}.id: must be a non-empty string"
                if "contextWindow" in model and not _positive_number(model["contextWindow"]):
                    return f"{where}.contextWindow: must be a number above 0"
        overrides = provider.get("modelOverrides")
        if overrides is not None:
            if not isinstance(overrides, dict):
                return f"providers.{provider_id}.modelOverrides: must be an object"
            for model_id, override in overrides.items():
                where = f"providers.{provider_id}.modelOverrides.{model_id}"
                if not isinstance(override, dict):
                    return f"{where}: must be an object"
                if "contextWindow" in override and not _positive_number(override["contextWindow"]):
                    return f"{where}.contextWindow: must be a number above 0"
    return None


@dataclass(frozen=True)
class ModelsJson:
    """The user's ``models.json`` as far as windows go; ``problem`` says why it was ignored."""

    path: str
    exists: bool = False
    providers: Mapping[str, Any] = field(default_factory=dict)
    problem: str | None = None

    def window_for(self, provider: str | None, model_id: str | None) -> int | None:
        """``modelOverrides[id].contextWindow``, else a ``models`` entry's window (128,000 if unset)."""
        if provider is None or model_id is None:
            return None
        config = self.providers.get(provider)
        if not isinstance(config, dict):
            return None
        override = (config.get("modelOverrides") or {}).get(model_id)
        if isinstance(override, dict) and _positive_number(override.get("contextWindow")):
            return _as_tokens(override["contextWindow"])
        for model in config.get("models") or ():
            if model.get("id") == model_id:
                window = model.get("contextWindow")
                return _as_tokens(window) if _positive_number(window) else DEFAULT_CONTEXT_WINDOW
        return None


def read_models_json(agent_dir: str) -> ModelsJson:
    """``<agentDir>/models.json``: absent is fine; unreadable, bad JSON or a bad shape is ignored, as Pi does."""
    path = posixpath.join(agent_dir, MODELS_JSON)
    if not fsread.exists(path):
        return ModelsJson(path)
    result = fsread.read_text(path)
    if result.text is None:
        return ModelsJson(path, True, problem=f"Failed to load models.json: {result.error}")
    try:
        parsed = JS_JSON.decode(strip_json_comments(strip_bom(result.text)))  # as Pi's JSON.parse reads it
    except (ValueError, RecursionError) as exc:
        return ModelsJson(path, True, problem=f"Failed to parse models.json: {exc}")
    if not isinstance(parsed, dict) or "providers" not in parsed:
        return ModelsJson(path, True, problem="Invalid models.json schema: providers: required")
    problem = _shape_problem(parsed["providers"])
    if problem is not None:
        return ModelsJson(path, True, problem=f"Invalid models.json schema: {problem}")
    return ModelsJson(path, True, parsed["providers"])


# --- Pi's own catalog ------------------------------------------------------------------------


def find_pi_ai_data_dir(package_dir: str | None = None) -> str | None:
    """``pi-ai/dist/providers/data`` next to (or inside) an installed Pi, or ``None``.

    npm puts pi-ai either in Pi's own ``node_modules`` or beside it under ``@earendil-works``.
    """
    pkg = package_dir if package_dir is not None else find_pi_package_dir(os.environ)
    candidates = [
        posixpath.join(pkg, "node_modules", PI_AI_PACKAGE),
        posixpath.join(posixpath.dirname(pkg), "pi-ai"),
    ]
    for candidate in candidates:
        data = posixpath.join(candidate, "dist", "providers", "data")
        if fsread.is_directory(data):
            return data
    return None


class PiCatalog:
    """Windows from pi-ai's catalog files, read lazily (one provider file at a time, ~10 KB each)."""

    def __init__(self, data_dir: str | None) -> None:
        self.data_dir = data_dir
        self._providers: dict[str, dict[str, int]] = {}
        self._all_loaded = False

    def _load(self, provider: str) -> dict[str, int]:
        cached = self._providers.get(provider)
        if cached is not None:
            return cached
        windows: dict[str, int] = {}
        if self.data_dir is not None:
            for model in catalog_chat_models(self.data_dir, provider):  # later groups win
                window = model.get("contextWindow")
                if isinstance(window, (int, float)) and _positive_number(window):
                    windows[model["id"]] = _as_tokens(window)
        self._providers[provider] = windows
        return windows

    def window_for(self, provider: str | None, model_id: str | None) -> int | None:
        if self.data_dir is None or model_id is None:
            return None
        if provider is not None:
            return self._load(provider).get(model_id)
        if not self._all_loaded:
            try:
                names = sorted(os.listdir(self.data_dir))
            except OSError:
                names = []
            for name in names:
                if name.endswith(".json"):
                    self._load(name[: -len(".json")])
            self._all_loaded = True
        for windows in self._providers.values():
            if model_id in windows:
                return windows[model_id]
        return None


def model_name(provider: str | None, model_id: str | None) -> str:
    """``provider/id`` (``id`` alone without a provider), or "unknown model": how a model is named to users."""
    if model_id is None:
        return "unknown model"
    return f"{provider}/{model_id}" if provider else model_id


def catalog_chat_models(data_dir: str, provider: str) -> Iterator[dict[str, Any]]:
    """The chat models of pi-ai's catalog file for ``provider`` (``{api: {"chat:<id>": model}}``), in file
    order, each with a string ``id``; nothing when the name is not a plain file name or the file is
    unreadable. The one reader of the catalog: windows here, prices in :mod:`lsp_server.cost.prices`."""
    if not re.fullmatch(r"[A-Za-z0-9._-]+", provider):
        return
    result = fsread.read_text(posixpath.join(data_dir, provider + ".json"))
    if result.text is None:
        return
    try:
        groups = json.loads(result.text)
    except ValueError:
        return
    if not isinstance(groups, dict):
        return
    for group in groups.values():
        if not isinstance(group, dict):
            continue
        for model in group.values():
            if isinstance(model, dict) and model.get("type") == "chat" and isinstance(model.get("id"), str):
                yield model


# --- resolution ------------------------------------------------------------------------------


@dataclass(frozen=True)
class WindowOverrides:
    """pi-context's own settings: windows per ``"provider/id"`` or ``"id"``, and a default."""

    per_model: Mapping[str, int] = field(default_factory=dict)
    default: int | None = None
    forced: int | None = None  # one window for any model (the CLI's --context-window)


@dataclass(frozen=True)
class ModelWindow:
    """The model a budget is for and its window, with where each came from."""

    provider: str | None
    model_id: str | None
    context_window: int
    window_source: WindowSource
    model_source: ModelSource
    detail: str  # a sentence for humans: "anthropic/claude-opus-4-5: 200,000 tokens (Pi's model catalog)"

    @property
    def name(self) -> str:
        return model_name(self.provider, self.model_id)

    @property
    def coarse_source(self) -> Literal["session", "settings", "default"]:
        """The protocol's three-way label: a known window, one a setting chose, or the default."""
        if self.window_source == "default":
            return "default"
        if self.window_source == "settings" or self.model_source == "pi-settings":
            return "settings"
        return "session"

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "id": self.model_id,
            "contextWindow": self.context_window,
            "windowSource": self.window_source,
            "modelSource": self.model_source,
            "detail": self.detail,
        }


_SOURCE_WORDS: Final[Mapping[WindowSource, str]] = {
    "settings": "pi-context settings",
    "models.json": "models.json",
    "pi": "Pi's model catalog",
    "table": "pi-context's table of common models",
    "default": "default window: model not known",
}


class ModelWindows:
    """Resolves ``(provider, model id)`` to a window through the sources in the module docstring."""

    def __init__(
        self,
        *,
        overrides: WindowOverrides | None = None,
        models_json: ModelsJson | None = None,
        catalog: PiCatalog | None = None,
        table: Mapping[tuple[str, str], int] = KNOWN_CONTEXT_WINDOWS,
    ) -> None:
        self.overrides = overrides or WindowOverrides()
        self.models_json = models_json
        self.catalog = catalog
        self.table = table

    @classmethod
    def for_agent_dir(
        cls, agent_dir: str, *, overrides: WindowOverrides | None = None, package_dir: str | None = None
    ) -> ModelWindows:
        """The usual resolver: the agent dir's models.json and an installed Pi's catalog if any."""
        return cls(
            overrides=overrides,
            models_json=read_models_json(agent_dir),
            catalog=PiCatalog(find_pi_ai_data_dir(package_dir)),
        )

    @property
    def problems(self) -> tuple[str, ...]:
        if self.models_json is not None and self.models_json.problem is not None:
            return (f"{self.models_json.problem} ({self.models_json.path}; Pi ignores the file)",)
        return ()

    def _table_window(self, provider: str | None, model_id: str) -> int | None:
        if provider is not None and (provider, model_id) in self.table:
            return self.table[(provider, model_id)]
        for (_, known_id), window in self.table.items():
            if known_id == model_id:
                return window
        return None

    def _find(self, provider: str | None, model_id: str | None) -> tuple[int, WindowSource]:
        per_model = self.overrides.per_model
        if self.overrides.forced:
            return self.overrides.forced, "settings"
        if model_id is not None:
            if provider is not None and f"{provider}/{model_id}" in per_model:
                return per_model[f"{provider}/{model_id}"], "settings"
            if model_id in per_model:
                return per_model[model_id], "settings"
            if self.models_json is not None:
                window = self.models_json.window_for(provider, model_id)
                if window is not None:
                    return window, "models.json"
            if self.catalog is not None:
                window = self.catalog.window_for(provider, model_id)
                if window is not None:
                    return window, "pi"
            window = self._table_window(provider, model_id)
            if window is not None:
                return window, "table"
        return (self.overrides.default or DEFAULT_CONTEXT_WINDOW), "default"

    def resolve(self, provider: str | None, model_id: str | None, model_source: ModelSource) -> ModelWindow:
        window, source = self._find(provider, model_id)
        where = _SOURCE_WORDS[source]
        if source == "default" and self.overrides.default:
            where = "pi-context's default window: model not known"
        name = f"{provider}/{model_id}" if provider and model_id else (model_id or "unknown model")
        return ModelWindow(provider, model_id, window, source, model_source, f"{name}: {window:,} tokens ({where})")


def model_of(provider: Any, model_id: Any) -> tuple[str | None, str | None]:
    """A session's ``{provider, modelId}`` as strings (anything else counts as unknown)."""
    return (
        provider if isinstance(provider, str) and provider else None,
        model_id if isinstance(model_id, str) and model_id else None,
    )
