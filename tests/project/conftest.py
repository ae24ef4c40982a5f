"""A project folder, a HOME and an agent dir under ``tmp_path``, with the process environment to match."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from lsp_server.project.project import ProjectInputs, open_project
from lsp_server.project.prompt_state import PromptSnapshot, SkillCache, build_prompt


@dataclass
class Project:
    root: Path
    home: Path
    agent_dir: Path

    def write(self, relative: str, text: str, base: Path | None = None) -> Path:
        path = (base or self.root) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def inputs(self, **changes: object) -> ProjectInputs:
        values: dict[str, object] = {
            "cwd": str(self.root),
            "agent_dir": str(self.agent_dir),
            "env": os.environ,
            "home": str(self.home),
        }
        values.update(changes)
        return ProjectInputs(**values)  # type: ignore[arg-type]

    def build(self, skills: SkillCache | None = None, **changes: object) -> PromptSnapshot:
        return build_prompt(open_project(self.inputs(**changes)), skills=skills)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    root, home = tmp_path / "proj", tmp_path / "home"
    agent_dir = home / ".pi" / "agent"
    root.mkdir()
    agent_dir.mkdir(parents=True)
    for key in [k for k in os.environ if k.startswith("PI_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(home))
    return Project(root, home, agent_dir)


Build = Callable[..., PromptSnapshot]
