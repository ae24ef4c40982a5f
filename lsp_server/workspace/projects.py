"""The workspace's open projects: one per workspace folder (and per other cwd asked about), prompts kept current.

Each project keeps the prompt Pi would build with the folder as cwd (agent dir and trust from the
settings, open buffers as the truth). When a context source is **saved**, changes **on disk** (the
watcher), is **closed** unsaved, or the settings or folders change, the folder's prompt is rebuilt
and compared with the one the client last heard about; if the section map differs, the client gets
``pi/promptSectionsChanged``: Pi's patch with per-section token deltas, the totals and the rendered
update (:mod:`lsp_server.project.prompt_state`). Nothing is sent when nothing changed.

Work follows the change: an event for a file that cannot feed a folder's prompt does nothing for
that folder; a change to AGENTS.md, SYSTEM.md or APPEND_SYSTEM.md reuses the skills found last
time (discovery walks every skill folder); builds run in a worker thread, one at a time per
folder, with a copy of the open buffers. Unsaved edits only mark the prompt stale: requests
(``pi/systemPrompt``, code lenses) rebuild it lazily, while notifications wait for the save.

Every request that needs a project asks this object (``ws.projects``): :meth:`OpenProjects.snapshot`
for the prompt, :meth:`OpenProjects.open` for settings alone; none resolves settings itself. What it
needs of the workspace around it is :class:`ProjectsHost` (the workspace satisfies it; this module
does not import the workspace, which imports it).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from lsp_server.base.fsread import read_text
from lsp_server.project.project import Project, ProjectInputs, open_project
from lsp_server.project.prompt_answers import sections_changed_params
from lsp_server.project.prompt_state import (
    PromptSnapshot,
    SkillCache,
    build_prompt,
    diff_snapshots,
    reader_with_buffers,
    touches_skills,
)
from lsp_server.project.volatile import place_in_snapshots
from lsp_server.protocol_names import PROMPT_SECTIONS_CHANGED
from lsp_server.rules.volatile_content import CODE as VOLATILE_CODE
from lsp_server.vocabulary.pi_files import APPEND_SYSTEM_PROMPT_FILE, CONTEXT_FILE_CANDIDATES, SYSTEM_PROMPT_FILE
from lsp_server.workspace.events import (
    BufferChanged,
    BufferOpened,
    Event,
    FoldersChanged,
    Ready,
    Reloaded,
    SettingsChanged,
)

if TYPE_CHECKING:
    from lsp_server.base.findings import Finding
    from lsp_server.settings.editor import ServerSettings
    from lsp_server.vocabulary.profiles import ProfileId
    from lsp_server.workspace.client import Client
    from lsp_server.workspace.diagnostics import DiagnosticsBook
    from lsp_server.workspace.documents import DocumentStore

logger = logging.getLogger(__name__)

_READER_FILES = frozenset({*CONTEXT_FILE_CANDIDATES, SYSTEM_PROMPT_FILE, APPEND_SYSTEM_PROMPT_FILE})
MAX_EXTRA_CWDS = 8  # projects kept for cwds that are not workspace folders (sessions elsewhere)


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


class ProjectsHost(Protocol):
    """What the open projects need of the workspace around them."""

    env: Mapping[str, str]
    roots: list[str]
    documents: DocumentStore
    book: DiagnosticsBook
    client: Client

    @property
    def settings(self) -> ServerSettings: ...

    def request_check(self, path: str, *, delay_s: float | None = None, propagate: bool = True) -> None: ...

    def schedule(self, key: str, work: Callable[[], Awaitable[None]], *, delay_s: float | None = None) -> None:
        """Run ``work`` once after ``delay_s`` (one pending run per key, on the workspace's scheduler)."""


class OpenProjects:
    """The projects of the workspace folders (and of other cwds asked about), their prompts kept current."""

    def __init__(self, ws: ProjectsHost) -> None:
        self.ws = ws
        self.folders: dict[str, FolderPrompt] = {}
        self._foreground = 0  # prompt builds running or scheduled, and requests waiting for one
        self._no_foreground: asyncio.Event | None = None
        self._refreshes: set[str] = set()  # folders whose refresh is scheduled (foreground until it ends)

    @property
    def no_foreground(self) -> asyncio.Event:
        if self._no_foreground is None:
            self._no_foreground = asyncio.Event()
            self._no_foreground.set()
        return self._no_foreground

    @contextlib.asynccontextmanager
    async def foreground(self) -> AsyncIterator[None]:
        """Prompt work someone waits for (a build, ``pi/systemPrompt``): background checks hold back meanwhile."""
        self._enter_foreground()
        try:
            yield
        finally:
            self._leave_foreground()

    def _enter_foreground(self) -> None:
        self._foreground += 1
        self.no_foreground.clear()

    def _leave_foreground(self) -> None:
        self._foreground -= 1
        if self._foreground == 0:
            self.no_foreground.set()

    async def foreground_done(self) -> None:
        """Return once no prompt work runs or waits: the workspace check waits here before its walk
        and before each file, so a prompt someone waits for (``pi/systemPrompt``, the Context view, a
        hover) does not share the CPU with thousands of background checks (the rules and the builds
        are Python: one core for all their threads)."""
        await self.no_foreground.wait()

    # --- building ------------------------------------------------------------------------------

    def inputs_for(self, cwd: str) -> ProjectInputs:
        """The one place the server turns its settings into a project's inputs (in the server's environment)."""
        return ProjectInputs.create(cwd, env=self.ws.env, settings=self.ws.settings)

    def open(self, cwd: str) -> Project:
        """The project at ``cwd`` with the current settings: the latest build's if still current, else opened now.

        Cheap either way (opening reads trust.json and two settings files); for the prompt, use :meth:`snapshot`.
        """
        state = self.folders.get(cwd)
        inputs = self.inputs_for(cwd)
        current = state.current if state is not None and not state.dirty else None
        if current is not None and current.project.inputs == inputs:
            return current.project
        return open_project(inputs)

    def state(self, cwd: str) -> FolderPrompt:
        state = self.folders.get(cwd)
        if state is None:
            extra = [key for key, value in self.folders.items() if not value.notifies]
            while len(extra) >= MAX_EXTRA_CWDS:
                self.folders.pop(extra.pop(0), None)
            state = FolderPrompt(cwd, notifies=cwd in self.ws.roots)
            self.folders[cwd] = state
        return state

    async def snapshot(self, cwd: str) -> PromptSnapshot:
        """The current prompt of ``cwd`` (rebuilt first if anything it reads changed)."""
        state = self.state(cwd)
        async with state.lock:
            return await self._build(state)

    async def disk_snapshot(self, cwd: str) -> PromptSnapshot:
        """The prompt of ``cwd`` from the files on disk, as a chat's Pi starting now reads them.

        Open buffers are ignored (Pi reads the files), and so is pi-context's ``trust`` setting (the chat
        starts Pi without ``--approve``: Pi decides trust itself). The same as :meth:`snapshot` unless one of
        those applies; then it is built again, with the skills found for :meth:`snapshot` (skills are read
        from disk either way).
        """
        state = self.state(cwd)
        async with state.lock:
            current = await self._build(state)
            inputs = dataclasses.replace(current.project.inputs, trust_override=None)  # the chat's Pi gets no --approve
            unsaved = [
                buffer.path
                for buffer in self.ws.documents
                if current.affects(buffer.path) and buffer.text != read_text(buffer.path).text
            ]
            if not unsaved and inputs == current.project.inputs:
                return current
            skills = state.skills
            return await asyncio.get_running_loop().run_in_executor(
                None, lambda: build_prompt(open_project(inputs), skills=skills)
            )

    async def _build(self, state: FolderPrompt) -> PromptSnapshot:
        inputs = self.inputs_for(state.cwd)
        current = state.current
        if current is not None and not state.dirty and current.project.inputs == inputs:
            return current
        async with self.foreground():
            return await self._rebuild(state, inputs)

    async def _rebuild(self, state: FolderPrompt, inputs: ProjectInputs) -> PromptSnapshot:
        current = state.current
        # Take the pending work first: events that arrive while this build runs mark the next one.
        skill_files, state.skill_files = state.skill_files, set()
        rescan, state.rescan = state.rescan, False
        state.dirty = False
        walk_again = rescan or current is None or current.agent_dir != inputs.agent_dir
        loop = asyncio.get_running_loop()
        if not walk_again and skill_files:
            walk_again = not await loop.run_in_executor(None, state.skills.update_files, sorted(skill_files))
        if walk_again:
            state.skills.clear()
        reader = reader_with_buffers({buffer.path: buffer.text for buffer in self.ws.documents})

        def build() -> PromptSnapshot:
            return build_prompt(open_project(inputs), reader=reader, skills=state.skills)

        snapshot = await loop.run_in_executor(None, build)
        state.builds += 1
        previous, state.current = state.current, snapshot
        if previous is None or previous.prompt.text != snapshot.prompt.text:
            self._recheck_volatile()
        return snapshot

    # --- findings counted in the prompt ----------------------------------------------------------

    def place_findings(self, text: str | None, findings: Sequence[Finding], profile: ProfileId) -> list[Finding]:
        """``prompt/volatile-content`` counted to the end of the latest prompt that holds the file.

        Uses the builds already made (never builds one: a check must not wait for skill discovery);
        a file no built prompt holds keeps the count within the file.
        """
        if not any(finding.code == VOLATILE_CODE for finding in findings):
            return list(findings)
        built = [state.current for state in self.folders.values() if state.current is not None]
        return place_in_snapshots(findings, text, built, profile)

    def _recheck_volatile(self) -> None:
        """The prompt changed: files with volatile findings count to a new end, so check them again."""
        for path in self.ws.book.paths():
            entry = self.ws.book.get(path)
            if entry is not None and any(finding.code == VOLATILE_CODE for finding in entry.findings):
                self.ws.request_check(path, delay_s=0, propagate=False)

    # --- following changes -----------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """The workspace's events: mark affected prompts stale and schedule the notifying rebuilds."""
        if isinstance(event, Ready | FoldersChanged):
            self._sync_folders()  # new folders get their first build (the baseline), nothing is sent
            for state in self.folders.values():
                if state.baseline is None and state.notifies:
                    self._schedule(state)
            return
        if isinstance(event, SettingsChanged | Reloaded):
            for state in self.folders.values():
                state.dirty = state.rescan = True
                if state.notifies:
                    self._schedule(state)
            return
        for state in self.folders.values():
            affected = [path for path in event.paths if self._affects(state, path)]
            if not affected:
                continue
            if isinstance(event, BufferOpened | BufferChanged):
                # Unsaved text: requests will see it; the notification waits for the save. A buffer
                # that now equals the disk is an editor reloading a file changed behind its back
                # (an agent edited it): that counts as a save.
                read_files = [path for path in affected if os.path.basename(path) in _READER_FILES]
                if read_files:
                    state.dirty = True
                synced = [path for path in read_files if isinstance(event, BufferChanged) and self._matches_disk(path)]
                if synced and state.notifies:
                    state.triggers.update(synced)
                    self._schedule(state)
                continue
            state.dirty = True  # saved, on disk, or closed unsaved
            state.skill_files.update(path for path in affected if touches_skills([path]))
            if state.notifies:
                state.triggers.update(affected)
                self._schedule(state)

    def _matches_disk(self, path: str) -> bool:
        buffer = self.ws.documents.get(path)
        return buffer is not None and buffer.text == read_text(path).text

    @staticmethod
    def _affects(state: FolderPrompt, path: str) -> bool:
        known = state.baseline or state.current
        return known is None or known.affects(path)

    def _sync_folders(self) -> None:
        roots = set(self.ws.roots)
        for cwd in list(self.folders):
            state = self.folders[cwd]
            if state.notifies and cwd not in roots:
                del self.folders[cwd]
        for root in self.ws.roots:
            self.state(root).notifies = True

    def _schedule(self, state: FolderPrompt) -> None:
        if state.cwd not in self._refreshes:  # counted once however often it is asked for before it runs
            self._refreshes.add(state.cwd)
            self._enter_foreground()
        self.ws.schedule(f"prompt:{state.cwd}", functools.partial(self.refresh, state.cwd), delay_s=0)

    async def refresh(self, cwd: str) -> None:
        """Rebuild a folder's prompt and tell the client what changed since it last heard."""
        state = self.folders.get(cwd)
        try:
            if state is not None:
                await self._refresh(cwd, state)
        finally:
            if cwd in self._refreshes:
                self._refreshes.discard(cwd)
                self._leave_foreground()

    async def _refresh(self, cwd: str, state: FolderPrompt) -> None:
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
        params = sections_changed_params(self.ws.client.folder_uri(cwd), snapshot.cwd, change)
        self.ws.client.notify(PROMPT_SECTIONS_CHANGED, params.wire())
        self.ws.client.refresh_code_lenses()

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
