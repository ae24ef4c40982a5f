"""What a chat's Pi holds, and where the files on disk differ from it.

Pi reads its context files, its settings and its project-trust decision when it builds a session
runtime (at start, and on ``new_session``, ``switch_session`` and ``fork``), and keeps them: a file
saved while the chat runs is not what Pi sends next (docs/chat.md, "What Pi takes up, and when";
each rule is a test in ``tests/pi_rpc/test_real_live_changes.py``). So a chat's lens (the budget and
the projected request of its session, the compaction preview, the prices, the preflight) is computed
from :class:`HeldContext`, taken when that Pi read its files, not from the files now; and
:func:`find_drift` says in one sentence where the files now differ and which action makes Pi take
the change up:

* ``reload``: Pi reads everything again on ``switch_session`` to its own session file (or
  ``new_session`` before it wrote one), and records the changed prompt sections before its next
  request;
* ``restart``: a trust decision is kept per folder for the life of the process, so only a new Pi on
  the same session takes a changed one up.

After a window reload the server that takes a kept Pi up did not see it start: the server that
started it left a record (:meth:`HeldContext.to_json`, beside the keeper's own) of the settings,
trust and prompt sections Pi read, and the new server rebuilds the context from it
(:class:`HeldRecord`).
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Literal

from lsp_server.context.pi_settings import (
    LoadedPiSettings,
    SettingsLayer,
    global_settings_path,
    merge_layers,
    parse_settings_text,
    project_settings_path,
)
from lsp_server.js.json import js_json_stringify
from lsp_server.pi_rpc.keeper_files import HELD_SUFFIX
from lsp_server.project.project import Project, ProjectInputs
from lsp_server.project.prompt_state import PromptSnapshot
from lsp_server.prompt.sections import diff_sections
from lsp_server.settings.pi_context import PiContextSettings

MAX_LISTED: Final = 4  # names a drift sentence lists before "and N more"

DriftAction = Literal["reload", "restart"]


@dataclass(frozen=True)
class HeldContext:
    """The project (Pi's settings and trust decision) and the prompt a chat's Pi read, and when."""

    snapshot: PromptSnapshot
    sections: Mapping[str, str]  # the section map Pi built (what the next request's prompt is made of)
    read_at: float  # seconds since the epoch
    _lens: list[tuple[PiContextSettings, PromptSnapshot]] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def taken(cls, snapshot: PromptSnapshot, read_at: float) -> HeldContext:
        """Pi just read its files, and ``snapshot`` was built from the same files (from disk, no open buffers)."""
        return cls(snapshot, dict(snapshot.section_map()), read_at)

    @property
    def project(self) -> Project:
        return self.snapshot.project

    def lens(self, inputs: ProjectInputs) -> PromptSnapshot:
        """The snapshot the chat's numbers come from: what Pi read, counted with pi-context's settings now."""
        last = self._lens[-1] if self._lens else None
        if last is not None and last[0] is inputs.settings:  # built once per settings object (a new one on change)
            return last[1]
        held = self.snapshot.project
        project = Project(replace(held.inputs, settings=inputs.settings), held.trust, held.pi_settings)
        found = replace(self.snapshot, project=project, pi_holds=True)
        self._lens[:] = [(inputs.settings, found)]
        return found

    def to_json(self) -> dict[str, Any]:
        """The record a later server rebuilds this from (:class:`HeldRecord`)."""
        settings = self.project.pi_settings
        project_layer = settings.project_layer
        return {
            "readAt": self.read_at,
            "sections": dict(self.sections),
            "trusted": self.project.trusted,
            "globalSettings": settings.global_layer.raw,
            "projectSettings": project_layer.raw if project_layer.read else None,
        }


@dataclass(frozen=True)
class HeldRecord:
    """:meth:`HeldContext.to_json` read back: enough to rebuild what a kept Pi read."""

    read_at: float
    sections: dict[str, str]
    trusted: bool
    global_settings: dict[str, Any]
    project_settings: dict[str, Any] | None

    @classmethod
    def from_json(cls, data: Any) -> HeldRecord | None:
        if not isinstance(data, dict):
            return None
        sections, global_raw = data.get("sections"), data.get("globalSettings")
        project_raw = data.get("projectSettings")
        read_at, trusted = data.get("readAt"), data.get("trusted")
        if not (
            isinstance(sections, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in sections.items())
            and isinstance(global_raw, dict)
            and (project_raw is None or isinstance(project_raw, dict))
            and isinstance(read_at, int | float)
            and isinstance(trusted, bool)
        ):
            return None
        return cls(float(read_at), dict(sections), trusted, global_raw, project_raw)

    def project(self, now: Project) -> Project:
        """``now``'s inputs with the settings and trust decision Pi read (``now``: the project opened today)."""
        inputs = now.inputs
        global_layer = _layer(self.global_settings, global_settings_path(inputs.agent_dir), "global")
        project_path = project_settings_path(inputs.cwd)
        if self.project_settings is None:
            exists = os.path.exists(project_path)
            project_layer = SettingsLayer("project", project_path, exists=exists, read=False, untrusted=exists)
        else:
            project_layer = _layer(self.project_settings, project_path, "project")
        trust = now.trust
        if trust.trusted != self.trusted:
            trust = replace(trust, trusted=self.trusted, reason="as Pi decided when it started")
        return Project(inputs, trust, merge_layers(global_layer, project_layer))


def _layer(raw: dict[str, Any], path: str, scope: Literal["global", "project"]) -> SettingsLayer:
    return parse_settings_text(js_json_stringify(raw), path, scope)


def write_held(folder: Path, keeper_id: str, held: HeldContext) -> None:
    """Leave the record beside the keeper's (the private keepers' folder); a failure only costs exactness later."""
    target = folder / f"{keeper_id}{HELD_SUFFIX}"
    temporary = folder / f".{keeper_id}{HELD_SUFFIX}.tmp"
    with contextlib.suppress(OSError):
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(held.to_json(), out)
        os.replace(temporary, target)


def read_held(folder: Path, keeper_id: str) -> HeldRecord | None:
    try:
        text = (folder / f"{keeper_id}{HELD_SUFFIX}").read_text(encoding="utf-8")
        return HeldRecord.from_json(json.loads(text))
    except (OSError, ValueError):
        return None


def untrusted_sentence(project: Project) -> str | None:
    """What a Pi that does not trust the project leaves out, and the action; ``None`` when nothing is left out.

    Rests on ``test_rpc_mode_leaves_an_untrusted_projects_skills_out`` and
    ``test_trust_saved_as_pi_saves_it_is_taken_up_by_a_new_pi_and_not_by_switch_session``.
    """
    note = project.untrusted_note()
    if note is None:
        return None
    left_out = note.partition(": left out ")[2]
    return (
        f"Pi does not trust this project ({project.trust.reason}), so it leaves out {left_out}: Trust Project "
        "records trust as Pi's /trust does and restarts Pi on this session, which then loads them."
    )


# --- where the files differ from what Pi holds --------------------------------------------------------


@dataclass(frozen=True)
class Drift:
    """How the files on disk differ from what a chat's Pi read, and what makes Pi take it up."""

    sections: tuple[str, ...]  # prompt sections that differ (Pi's patch keys, in Pi's order)
    files: tuple[str, ...]  # the files behind them, as the user knows them (relative to the folder, or ~/...)
    settings: tuple[str, ...]  # Pi's settings that differ, as dotted keys (compaction.keepRecentTokens)
    trust: bool  # the project's trust decision differs: only a new Pi takes that up
    trusted_now: bool

    @property
    def action(self) -> DriftAction:
        return "restart" if self.trust else "reload"

    @property
    def action_label(self) -> str:
        return "Restart Pi" if self.trust else "Reload Pi"

    @property
    def message(self) -> str:
        """One sentence: what differs, that Pi does not have it, and the action (a rule of test_real_live_changes)."""
        if self.trust:
            word = "trusted" if self.trusted_now else "no longer trusted"
            effect = "load" if self.trusted_now else "leave out"
            return (
                f"The project is {word} now, but this Pi decided trust once, when it started, and keeps that "
                f"decision: Restart Pi to {effect} the project's skills, settings and prompt files."
            )
        parts = []
        if self.files or self.sections:
            parts.append(_listed(self.files or tuple(f"the {name} section" for name in self.sections)))
        if self.settings:
            parts.append(f"Pi's settings ({_listed(self.settings)})")
        records = " (it then records the changed prompt sections before its next request)" if self.sections else ""
        return (
            f"{' and '.join(parts)} changed since this Pi read its files, and Pi keeps what it read: Reload Pi to "
            f"take the change up{records}."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "sections": list(self.sections),
            "files": list(self.files),
            "settings": list(self.settings),
            "trust": self.trust,
            "action": self.action,
            "actionLabel": self.action_label,
            "message": self.message,
        }


def find_drift(held: HeldContext, now: PromptSnapshot) -> Drift | None:
    """Where ``now`` (the files on disk, no open buffers) differs from what Pi read; ``None``: nowhere."""
    patch = diff_sections(held.sections, now.section_map()) or {}
    settings = tuple(_changed_keys(held.project.pi_settings, now.project.pi_settings))
    trust = held.project.trusted != now.project.trusted
    if not patch and not settings and not trust:
        return None
    files: list[str] = []
    for name in patch:
        for snapshot in (now, held.snapshot):
            section = snapshot.section(name)
            if section is not None:
                files.extend(section.sources)
    home = now.project.inputs.home_dir
    shown = tuple(dict.fromkeys(_display(path, now.cwd, home) for path in files))
    return Drift(tuple(patch), shown, settings, trust, now.project.trusted)


def _changed_keys(before: LoadedPiSettings, after: LoadedPiSettings) -> Iterable[str]:
    """Dotted keys whose merged values differ (objects compared key by key, everything else whole)."""

    def walk(old: Any, new: Any, prefix: str) -> Iterable[str]:
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted(set(old) | set(new)):
                yield from walk(old.get(key, _ABSENT), new.get(key, _ABSENT), f"{prefix}{key}.")
        elif old != new:
            yield prefix[:-1]

    return walk(before.merged_raw, after.merged_raw, "")


_ABSENT: Final = object()


def _display(path: str, cwd: str, home: str) -> str:
    if posixpath.commonpath([cwd, path]) == cwd:
        return posixpath.relpath(path, cwd)
    home = home.rstrip("/")
    if home and posixpath.commonpath([home, path]) == home:
        return "~/" + posixpath.relpath(path, home)
    return path


def _listed(names: tuple[str, ...]) -> str:
    head = list(names[:MAX_LISTED])
    more = len(names) - len(head)
    if more:
        return f"{', '.join(head)} and {more} more"
    return head[0] if len(head) == 1 else f"{', '.join(head[:-1])} and {head[-1]}"
