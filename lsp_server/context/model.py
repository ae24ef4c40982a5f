"""Values shared by the context modules: a loaded skill, a context file, a Pi diagnostic.

Field names follow Pi's objects (camelCase in JSON via ``to_json``) so conformance answers can
be produced without renaming at every call site.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

SkillSource = str  # "auto", "local", "path", a package name, ...
SkillScope = Literal["user", "project", "temporary"]


@dataclass(frozen=True)
class SourceInfo:
    path: str
    source: SkillSource
    scope: SkillScope
    origin: str  # "top-level" or "package"
    base_dir: str | None  # None: Pi leaves baseDir undefined (skills from settings entries)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "source": self.source, "scope": self.scope, "origin": self.origin}
        if self.base_dir is not None:
            out["baseDir"] = self.base_dir
        return out


@dataclass(frozen=True)
class Skill:
    """A skill as Pi loads it (``core/skills.js``)."""

    name: str
    description: str
    file_path: str
    base_dir: str
    source_info: SourceInfo
    disable_model_invocation: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "filePath": self.file_path,
            "baseDir": self.base_dir,
            "sourceInfo": self.source_info.to_json(),
            "disableModelInvocation": self.disable_model_invocation,
        }


@dataclass(frozen=True)
class ContextFile:
    """An AGENTS.md / CLAUDE.md file Pi puts in the prompt: resolved path and BOM-stripped text."""

    path: str
    content: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "content": self.content}


@dataclass(frozen=True)
class PiDiagnostic:
    """Pi's ``ResourceDiagnostic``: what Pi itself would warn about (no position)."""

    type: Literal["warning", "error", "collision"]
    message: str
    path: str | None = None
    collision: dict[str, Any] | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.path is not None:
            out["path"] = self.path
        if self.collision is not None:
            out["collision"] = self.collision
        return out
