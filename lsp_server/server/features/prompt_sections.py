"""The assembled prompt per workspace folder, and ``pi/promptSectionsChanged`` when a save changes it.

Each workspace folder keeps the sections Pi would build with the folder as cwd (agent dir and
trust from the settings, open buffers as the truth). When a context source is **saved**, changes
**on disk** (the watcher), is **closed** unsaved, or the settings or folders change, the folder's
prompt is rebuilt and compared with the one the client last heard about; if the section map
differs, the client gets Pi's patch with per-section token deltas, the totals and the rendered
update (:mod:`lsp_server.workspace.prompt_state`). Nothing is sent when nothing changed.

Work follows the change: an event for a file that cannot feed a folder's prompt does nothing for
that folder; a change to AGENTS.md, SYSTEM.md or APPEND_SYSTEM.md reuses the skills found last
time (discovery walks every skill folder); builds run in a worker thread, one at a time per
folder, with a copy of the open buffers. Unsaved edits only mark the prompt stale: requests
(``pi/systemPrompt``, code lenses) rebuild it lazily, while notifications wait for the save.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from dataclasses import dataclass, field
from typing import Any, cast

from lsp_server.context.names import APPEND_SYSTEM_PROMPT_FILE, CONTEXT_FILE_CANDIDATES, SYSTEM_PROMPT_FILE
from lsp_server.fsread import read_text
from lsp_server.protocol import PROMPT_SECTIONS_CHANGED
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.errors import log_failure
from lsp_server.server.features._common import folder_uri, server_state
from lsp_server.workspace.prompt_state import (
    PromptConfig,
    PromptSnapshot,
    SkillCache,
    build_snapshot,
    diff_snapshots,
    reader_with_buffers,
    touches_skills,
)
from lsp_server.workspace.wire import sections_changed_params

logger = logging.getLogger(__name__)

DEBUG_PROMPT_STATE = "pi.debug.promptState"
_READER_FILES = frozenset({*CONTEXT_FILE_CANDIDATES, SYSTEM_PROMPT_FILE, APPEND_SYSTEM_PROMPT_FILE})
_REBUILD_REASONS = frozenset({"saved", "disk", "closed"})
_EVERYTHING_REASONS = frozenset({"settings", "reload"})
MAX_EXTRA_CWDS = 8  # prompts kept for cwds that are not workspace folders (sessions elsewhere)


@dataclass
class FolderPrompt:
    """One cwd's prompt: the latest build, the one the client last heard about, and what is pending."""

    cwd: str
    notifies: bool  # a workspace folder: its changes are sent to the client
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    skills: SkillCache = field(default_factory=SkillCache)
    current: PromptSnapshot | None = None
    baseline: PromptSnapshot | None = None
    dirty: bool = True
    rescan: bool = True  # walk every skill folder again
    skill_files: set[str] = field(default_factory=set)  # changed files that may be skills (re-read in place if exact)
    triggers: set[str] = field(default_factory=set)
    builds: int = 0
    notifications: int = 0


class PromptStates:
    """The prompts of the workspace folders (and of other cwds asked about), kept current."""

    def __init__(self, ls: PiLanguageServer) -> None:
        self.ls = ls
        self.folders: dict[str, FolderPrompt] = {}

    # --- building ------------------------------------------------------------------------------

    def config_for(self, cwd: str) -> PromptConfig:
        settings = self.ls.settings
        return PromptConfig(
            cwd=cwd,
            agent_dir=self.ls.agent_dir,
            trust_override=settings.trust_override,
            estimator=settings.tokens.estimator,
            family=settings.tokens.model_family,
        )

    def state(self, cwd: str) -> FolderPrompt:
        state = self.folders.get(cwd)
        if state is None:
            extra = [key for key, value in self.folders.items() if not value.notifies]
            while len(extra) >= MAX_EXTRA_CWDS:
                self.folders.pop(extra.pop(0), None)
            state = FolderPrompt(cwd, notifies=cwd in self.ls.roots)
            self.folders[cwd] = state
        return state

    async def snapshot(self, cwd: str) -> PromptSnapshot:
        """The current prompt of ``cwd`` (rebuilt first if anything it reads changed)."""
        state = self.state(cwd)
        async with state.lock:
            return await self._build(state)

    async def _build(self, state: FolderPrompt) -> PromptSnapshot:
        config = self.config_for(state.cwd)
        current = state.current
        if current is not None and not state.dirty and current.config == config:
            return current
        # Take the pending work first: events that arrive while this build runs mark the next one.
        skill_files, state.skill_files = state.skill_files, set()
        rescan, state.rescan = state.rescan, False
        state.dirty = False
        walk_again = rescan or current is None or current.config.agent_dir != config.agent_dir
        if not walk_again and skill_files:
            loop = asyncio.get_running_loop()
            walk_again = not await loop.run_in_executor(None, state.skills.update_files, sorted(skill_files))
        if walk_again:
            state.skills.clear()
        reader = reader_with_buffers({buffer.path: buffer.text for buffer in self.ls.documents})
        build = functools.partial(build_snapshot, config, reader=reader, skills=state.skills)
        snapshot = await asyncio.get_running_loop().run_in_executor(None, build)
        state.builds += 1
        state.current = snapshot
        return snapshot

    # --- following changes -----------------------------------------------------------------------

    def on_event(self, reason: str, paths: list[str]) -> None:
        """The server's listener: mark affected prompts stale and schedule the notifying rebuilds."""
        if reason in ("ready", "folders"):
            self._sync_folders()  # new folders get their first build (the baseline), nothing is sent
            for state in self.folders.values():
                if state.baseline is None and state.notifies:
                    self._schedule(state)
            return
        if reason in _EVERYTHING_REASONS:
            for state in self.folders.values():
                state.dirty = state.rescan = True
                if state.notifies:
                    self._schedule(state)
            return
        for state in self.folders.values():
            affected = [path for path in paths if self._affects(state, path)]
            if not affected:
                continue
            if reason in ("opened", "changed"):
                # Unsaved text: requests will see it; the notification waits for the save. A buffer
                # that now equals the disk is an editor reloading a file changed behind its back
                # (an agent edited it): that counts as a save.
                read_files = [path for path in affected if os.path.basename(path) in _READER_FILES]
                if read_files:
                    state.dirty = True
                synced = [path for path in read_files if reason == "changed" and self._matches_disk(path)]
                if synced and state.notifies:
                    state.triggers.update(synced)
                    self._schedule(state)
                continue
            if reason not in _REBUILD_REASONS:
                continue
            state.dirty = True
            state.skill_files.update(path for path in affected if touches_skills([path]))
            if state.notifies:
                state.triggers.update(affected)
                self._schedule(state)

    def _matches_disk(self, path: str) -> bool:
        buffer = self.ls.documents.get(path)
        return buffer is not None and buffer.text == read_text(path).text

    @staticmethod
    def _affects(state: FolderPrompt, path: str) -> bool:
        known = state.baseline or state.current
        return known is None or known.affects(path)

    def _sync_folders(self) -> None:
        roots = set(self.ls.roots)
        for cwd in list(self.folders):
            state = self.folders[cwd]
            if state.notifies and cwd not in roots:
                del self.folders[cwd]
        for root in self.ls.roots:
            self.state(root).notifies = True

    def _schedule(self, state: FolderPrompt) -> None:
        self.ls.scheduler.submit(f"prompt:{state.cwd}", functools.partial(self.refresh, state.cwd), delay_s=0)

    async def refresh(self, cwd: str) -> None:
        """Rebuild a folder's prompt and tell the client what changed since it last heard."""
        state = self.folders.get(cwd)
        if state is None:
            return
        async with state.lock:
            triggers = sorted(state.triggers)
            state.triggers.clear()
            snapshot = await self._build(state)
            before, state.baseline = state.baseline, snapshot
        if before is None or not state.notifies:
            return
        change = diff_snapshots(before, snapshot, triggers)
        if change is None:
            return
        state.notifications += 1
        params = sections_changed_params(folder_uri(self.ls, cwd), snapshot.cwd, change)
        self.ls.protocol.notify(PROMPT_SECTIONS_CHANGED, params.wire())
        if self.ls.client_supports("workspace", "code_lens", "refresh_support"):
            try:
                self.ls.workspace_code_lens_refresh(None)
            except Exception as exc:  # a client that cannot refresh keeps its old lenses
                logger.info("workspace/codeLens/refresh failed: %s", exc)

    def describe(self) -> dict[str, Any]:
        return {
            cwd: {
                "notifies": state.notifies,
                "builds": state.builds,
                "notifications": state.notifications,
                "skillCache": {
                    "hits": state.skills.hits,
                    "misses": state.skills.misses,
                    "updates": state.skills.updates,
                },
                "dirty": state.dirty,
                "sections": list(state.baseline.section_map()) if state.baseline is not None else None,
            }
            for cwd, state in self.folders.items()
        }


def prompt_states(ls: PiLanguageServer) -> PromptStates:
    state = server_state(ls)
    if "prompts" not in state:
        state["prompts"] = PromptStates(ls)
    return cast(PromptStates, state["prompts"])


def register(server: PiLanguageServer) -> None:
    states = prompt_states(server)

    def listener(reason: str, paths: list[str]) -> None:
        try:
            states.on_event(reason, paths)
        except Exception as exc:
            log_failure(server, f"prompt sections ({reason})", exc)

    server.listeners.append(listener)

    if server.debug:

        @server.command(DEBUG_PROMPT_STATE)
        async def debug_prompt_state(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
            """Per cwd: builds, notifications sent, skill cache use (``{"idle": true}`` waits first)."""
            await ls.wait_ready()
            options = args[0] if args and isinstance(args[0], dict) else {}
            if options.get("idle"):
                await asyncio.wait_for(ls.scheduler.idle(), timeout=30)
            return prompt_states(ls).describe()
