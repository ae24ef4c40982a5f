"""The server's settings: one typed object built from what the editor sends.

Editors hand settings over in three ways, and we accept all of them under the section
``piContext``: ``initializationOptions`` at start (Neovim 0.7 has nothing else), the answer to
``workspace/configuration`` (VS Code, Emacs, newer Neovim), and the ``settings`` of
``workspace/didChangeConfiguration`` when the client pushes them. Later layers win key by key.

The keys are pi-context's own settings (``lsp_server.settings.pi_context``, shared with the CLI
and the VS Code extension's ``package.json``) plus ``watch``, which only the server reads. A bad
value never stops the server: the key falls back to its default and the problem comes back as a
line the server logs (``piContext.debounceMs: ...``), because a typo in a settings file must not
cost the user their diagnostics.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from lsp_server.base.lenient import validate_leniently
from lsp_server.settings.pi_context import CLIENT_ONLY_KEYS, PiContextSettings

SECTION = "piContext"


class ServerSettings(PiContextSettings):
    """pi-context's settings, plus what only the language server reads."""

    watch: bool = Field(
        default=True,
        description="Watch workspace folders and the agent dir for changes on disk (off: open files only).",
    )

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
            # A later layer's null is the user clearing the setting: back to the default.
            merged.pop(key, None)
            continue
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            merged[key] = _deep_merge(current, value)
        else:
            merged[key] = value
    return merged


def parse_settings(*layers: Any) -> tuple[ServerSettings, list[str]]:
    """Merge settings layers (earliest first) and validate; bad keys fall back to their defaults.

    Returns the settings and one line per rejected value, e.g.
    ``piContext.debounceMs: greater than or equal to 0 (got -1)``. A ``null`` value resets the key
    to its default: a later layer is the editor's current state, and VS Code sends ``null`` for a
    setting the user cleared, which must undo what ``initializationOptions`` said at start.
    """
    merged: dict[str, Any] = {}
    for layer in layers:
        section = section_of(layer)
        if section is not None:
            merged = _deep_merge(merged, section)
    merged = {key: value for key, value in merged.items() if key not in CLIENT_ONLY_KEYS}
    settings, problems = validate_leniently(ServerSettings, merged, SECTION)
    lines = [f"{SECTION}.{problem.key}: {problem.message}" for problem in problems]
    return settings, lines
