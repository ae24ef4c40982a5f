"""An agent dir for a real Pi under test: its model is the fake LLM server, nothing else leaks in.

Pi reads ``models.json`` (custom providers), ``settings.json`` and ``auth.json`` from the folder
``PI_CODING_AGENT_DIR`` names, and writes sessions to ``<agent dir>/sessions/--<cwd>--/``. A test
gets a fresh one pointing at its :class:`~tests.support.fake_llm_server.FakeLlmServer` (provider
``fake``, api ``openai-completions``) and the environment to start Pi with: offline, no version
check, no telemetry, and no provider keys from the machine running the tests.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

PROVIDER: Final = "fake"
MODEL: Final = "fake-1"
_KEY_SUFFIXES: Final = ("_API_KEY", "_AUTH_TOKEN", "_ACCESS_TOKEN")


@dataclass(frozen=True)
class PiAgentDir:
    path: Path
    provider: str = PROVIDER
    model: str = MODEL

    @property
    def sessions(self) -> Path:
        return self.path / "sessions"

    def session_files(self) -> list[Path]:
        return sorted(self.sessions.glob("*/*.jsonl"))

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment to start Pi with (``base`` defaults to this process's, minus provider keys)."""
        env = {
            name: value
            for name, value in (os.environ if base is None else base).items()
            if not name.endswith(_KEY_SUFFIXES) and not name.startswith("PI_")
        }
        env.update(
            PI_CODING_AGENT_DIR=str(self.path),
            PI_OFFLINE="1",
            PI_SKIP_VERSION_CHECK="1",
            PI_TELEMETRY="0",
        )
        return env

    def write_settings(self, settings: Mapping[str, Any]) -> None:
        (self.path / "settings.json").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")


def write_agent_dir(
    path: Path,
    base_url: str,
    *,
    provider: str = PROVIDER,
    model: str = MODEL,
    context_window: int = 32000,
    max_tokens: int = 2000,
    settings: Mapping[str, Any] | None = None,
    model_fields: Mapping[str, Any] | None = None,
    more_models: Sequence[Mapping[str, Any]] = (),
) -> PiAgentDir:
    """Write ``models.json`` (models at ``base_url``, an OpenAI-compatible ``/v1``) and settings.

    The first model is ``model`` (with ``model_fields``); ``more_models`` are further entries of the
    same provider, e.g. ``{"id": "fake-2", "reasoning": True}``.
    """
    path.mkdir(parents=True, exist_ok=True)
    entry: dict[str, Any] = {"id": model, "contextWindow": context_window, "maxTokens": max_tokens}
    entry.update(model_fields or {})
    entries = [entry, *(dict(more) for more in more_models)]
    models = {
        "providers": {
            provider: {"baseUrl": base_url, "api": "openai-completions", "apiKey": "dummy", "models": entries}
        }
    }
    (path / "models.json").write_text(json.dumps(models, indent=2) + "\n", encoding="utf-8")
    agent = PiAgentDir(path, provider, model)
    if settings is not None:
        agent.write_settings(settings)
    return agent
