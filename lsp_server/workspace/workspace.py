"""The workspace an editor has open: every piece of state the language server keeps, without pygls.

:class:`Workspace` owns the open buffers (``documents``), pi-context's settings as the editor gives
them, the workspace folders, the open projects with their prompts (``projects``), the followed session
files (``sessions``, ``session_lists``), the previews of summaries (``previews``), the chats with Pi
and their supervisor (``chats``, ``chat_supervisor``), the checker with the dependents of each file, the
watcher and its hand-over, the per-file scheduler and the diagnostics book. It speaks to the editor
through its :class:`~lsp_server.workspace.client.Client` and tells its parts what happened through
typed events (:mod:`.events`).

The LSP binding (:mod:`lsp_server.server`) calls it: a notification becomes one method call here, a
custom request one function of this package taking the workspace and the params (the method table's
handlers, :mod:`lsp_server.server.handlers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from lsp_server import protocol
from lsp_server.base.findings import Range
from lsp_server.base.paths import is_path_within
from lsp_server.chat.registry import ChatRegistry
from lsp_server.checks import CheckOptions, WorkspaceChecker
from lsp_server.project.followed_sessions import SessionListCache, SessionStore
from lsp_server.project.summaries import PreviewCache
from lsp_server.project.usage import UsageStore
from lsp_server.prompt.inclusion import Inclusions
from lsp_server.redaction.keyring import KeyRing
from lsp_server.rules.registry import Emitter
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.settings.editor import ServerSettings, parse_settings
from lsp_server.vocabulary.pi_files import CONTEXT_FILE_CANDIDATES
from lsp_server.workspace.chat_supervisor import ChatSupervisor
from lsp_server.workspace.client import Client
from lsp_server.workspace.diagnostics import CheckStats, DiagnosticsBook, FileDiagnostics, left_to_the_editor
from lsp_server.workspace.documents import DocumentStore, path_key
from lsp_server.workspace.events import DiskChanged, Event, Events, FoldersChanged, Ready, Reloaded, SettingsChanged
from lsp_server.workspace.projects import OpenProjects
from lsp_server.workspace.scheduler import DebouncedScheduler
from lsp_server.workspace.watch import WatchBatch, WorkspaceWatcher

CHECK_WORKERS = 2  # files checked at the same time (worker threads); the machine may have two cores
# An edit's check of a file this small runs on the event loop, not in a thread: its rules take about
# a millisecond (YAML and every rule are bounded: tens of milliseconds at worst at this size).
INLINE_CHECK_CHARS = 16_384
WATCHER_HANDOVER_S = 10.0  # longest wait for a new watcher's OS watches (a large tree takes about a second)

# Settings whose change requires a new watcher, or new findings for every file.
WATCH_KEYS = frozenset({"watch", "agent_dir", "debounce_ms"})
CHECK_KEYS = frozenset({"rule_profile", "trust", "agent_dir", "tokens", "limits"})

R = TypeVar("R")


def run_in_daemon_thread(loop: asyncio.AbstractEventLoop, fn: Callable[..., R], *args: Any) -> asyncio.Future[R]:
    """``fn(*args)`` in a new daemon thread: a check that outlives ``shutdown`` never holds up ``exit``.

    (The default executor's threads are joined when the interpreter ends, so a long check there
    would keep a server that was told to exit alive until the check is done.)
    """
    future: asyncio.Future[R] = loop.create_future()

    def settle(value: R | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)  # type: ignore[arg-type]

    def run() -> None:
        try:
            value = fn(*args)
        except BaseException as exc:  # handed to the awaiting task, which reports it
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server is gone
                loop.call_soon_threadsafe(settle, None, exc)
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, value, None)

    threading.Thread(target=run, name="pi-context-check", daemon=True).start()
    return future


def changed_keys(old: ServerSettings, new: ServerSettings) -> set[str]:
    return {name for name in type(new).model_fields if getattr(old, name) != getattr(new, name)}


class Workspace:
    """The state of one editor's workspace, and what keeps it current. Construct with its client."""

    def __init__(
        self, client: Client, *, env: Mapping[str, str], keys: KeyRing | None = None, debug: bool = False
    ) -> None:
        self.client = client
        self.env = env  # the environment everything below is given (projects, Pi, the summarizer's key)
        # The keys learned so far (each chat's, the summarizer's): every log line is redacted with them.
        self.keys = keys if keys is not None else KeyRing()
        self.debug = debug
        self.init_options: Any = None  # initializationOptions: the first settings layer
        self.client_name = ""  # initialize's clientInfo.name (which editor's own checks to leave alone)
        self.config_layer: Any = None  # last piContext from workspace/configuration or a push
        self.config_pushes = 0  # didChangeConfiguration notifications handled (a push is newer than a pull)
        self._settings: ServerSettings | None = None
        self.roots: list[str] = []
        self.documents = DocumentStore()
        self.book = DiagnosticsBook()
        self.stats = CheckStats()
        self.events = Events(client.log_failure)
        self.checker = WorkspaceChecker()
        self.projects = OpenProjects(self)
        self.sessions = SessionStore(read_limits=self.session_limits())
        self.session_lists = SessionListCache(self.session_limits())
        self.previews = PreviewCache()
        self.chats = ChatRegistry()
        self.chat_supervisor = ChatSupervisor(self)
        self.watcher: WorkspaceWatcher | None = None
        self.pulled: set[str] = set()  # open files the client pulls diagnostics for (no push)
        self.checked: set[str] = set()  # files checked and present (the checker may index them)
        self._propagate: set[str] = set()  # pending checks that must also re-check dependents
        self._usage: UsageStore | None = None
        self._scheduler: DebouncedScheduler | None = None
        self._check_slots = asyncio.Semaphore(CHECK_WORKERS)
        self._loop: asyncio.AbstractEventLoop | None = None
        self.ready = asyncio.Event()  # ``initialized`` has loaded the settings
        self.started = asyncio.Event()  # ... and started the watcher and scheduled the workspace check
        self.events.subscribe("chats", self.chat_supervisor.on_event)
        self.events.subscribe("prompt sections", self.projects.on_event)
        self.events.subscribe("followed sessions", self._announce_session_changes)

    # --- settings -------------------------------------------------------------------------------

    @property
    def settings(self) -> ServerSettings:
        """The settings in force: ``initializationOptions`` until ``initialized`` has pulled the client's."""
        if self._settings is None:
            self._settings, _ = parse_settings(self.init_options)  # apply_settings logs the problems
        return self._settings

    def reset_settings(self) -> None:
        """Forget the settings: the next use parses ``init_options`` again."""
        self._settings = None

    def session_limits(self) -> SessionReadLimits:
        """How much of a session file is read: ``piContext.limits.sessionMaxBytes``."""
        return SessionReadLimits(max_bytes=self.settings.limits.session_max_bytes)

    async def apply_settings(self, config_layer: Any, *, initial: bool = False) -> set[str]:
        """Rebuild the settings from ``initializationOptions`` + ``config_layer``; returns the changed keys.

        After ``initialized``, a change re-applies only what it touches: the watcher restarts when its
        roots or debounce change, files are re-checked when the rule profile, trust or agent dir change.
        """
        self.config_layer = config_layer
        new, problems = parse_settings(self.init_options, config_layer)
        for problem in problems:
            self.client.log(f"settings: {problem}", "warning")
        old, self._settings = self.settings, new
        self.sessions.read_limits = self.session_limits()
        self.session_lists.read_limits = self.session_limits()
        self.scheduler.delay_s = new.debounce_ms / 1000
        changed = changed_keys(old, new)
        if initial:
            return changed
        self.client.log(f"settings applied ({'changed: ' + ', '.join(sorted(changed)) if changed else 'no change'})")
        if not changed:
            return changed
        if changed & WATCH_KEYS:
            self.start_watcher()
        if changed & CHECK_KEYS:
            await self.check_workspace()
        self.events.emit(SettingsChanged(frozenset(changed)))
        return changed

    # --- parts built on first use ---------------------------------------------------------------

    @property
    def usage(self) -> UsageStore:
        """Usage across sessions (``pi/usage``): one cache for the server's life."""
        if self._usage is None:
            self._usage = UsageStore(self.env, self.session_limits())
        return self._usage

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    @property
    def scheduler(self) -> DebouncedScheduler:
        if self._scheduler is None:
            self._scheduler = DebouncedScheduler(self.settings.debounce_ms / 1000, on_error=self._job_failed)
        return self._scheduler

    def _job_failed(self, key: str, exc: BaseException) -> None:
        self.client.log_failure(f"checking {key}", exc)

    # --- readiness -----------------------------------------------------------------------------

    async def wait_ready(self, timeout: float = 30.0) -> bool:
        """For requests that need settings and roots: wait until ``initialized`` has loaded them."""
        try:
            await asyncio.wait_for(self.ready.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def wait_started(self, timeout: float = 60.0) -> bool:
        """For what needs the watcher and the workspace check scheduled (the end of ``initialized``)."""
        try:
            await asyncio.wait_for(self.started.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def start(self) -> int:
        """The end of ``initialized``: the folders' first prompts, the watcher, the workspace check (how many files)."""
        self.events.emit(Ready(tuple(self.roots)))  # the folders' first prompt builds start now
        self.start_watcher()
        return await self.check_workspace()

    # --- folders --------------------------------------------------------------------------------

    @property
    def agent_dir(self) -> str:
        """The first workspace folder's agent dir (the server's cwd's when no folder is open)."""
        return self.agent_dirs()[0]

    def agent_dirs(self) -> list[str]:
        """Each workspace folder's agent dir, as its project resolves it (a relative ``agentDir`` is per folder)."""
        folders = self.roots or [os.getcwd()]
        return list(dict.fromkeys(self.projects.inputs_for(folder).agent_dir for folder in folders))

    def watch_roots(self) -> list[str]:
        """Where Pi reads (workspace folders, the agent dir, ``~/.agents/skills``) and the session folders listed."""
        home = self.env.get("HOME") or os.path.expanduser("~")
        fixed = [*self.roots, *self.agent_dirs(), os.path.join(home, ".agents", "skills")]
        extra = sorted(d for d in self.session_lists.listed_dirs() if not any(is_path_within(r, d) for r in fixed))
        return [*fixed, *extra]

    async def set_folders(self, roots: list[str]) -> None:
        """The editor's workspace folders changed: clear what only a removed folder held, watch and check again."""
        before = set(self.roots)
        self.roots = roots
        kept = [*self.roots, *self.agent_dirs()]
        for removed in before - set(self.roots):
            prefix = removed.rstrip(os.sep) + os.sep
            for path in self.book.paths():
                inside_kept = any(path.startswith(root.rstrip(os.sep) + os.sep) for root in kept)
                if path.startswith(prefix) and not inside_kept and not self.documents.is_open(path):
                    self.clear(path)
        self.start_watcher()
        await self.check_workspace()
        self.events.emit(FoldersChanged(tuple(self.roots)))

    async def reload(self, roots: list[str]) -> dict[str, Any]:
        """``pi.reloadWorkspace``: restart the watcher, re-check every file, rebuild the prompts."""
        await self.wait_started()  # after the first watcher and workspace check, not beside them
        self.roots = roots
        self.start_watcher()
        count = await self.check_workspace()
        await self.watcher_settled()  # the answer says what is watched: by then it is
        self.events.emit(Reloaded(tuple(self.roots)))
        watcher = self.watcher
        return {"roots": self.roots, "watching": watcher.roots if watcher is not None else [], "files": count}

    def emit(self, event: Event) -> None:
        self.events.emit(event)

    # --- files: check, publish, watch ------------------------------------------------------------

    def _worth_checking(self, key: str) -> bool:
        """Checked before, or with diagnostics, or a file the checker wants."""
        return key in self.checked or self.book.get(key) is not None or self.checker.wants(key, self.check_options())

    def check_options(self) -> CheckOptions:
        """What the checker takes from the settings in force (profile, limits, scope)."""
        return self.settings.check_options()

    def request_check(self, path: str, *, delay_s: float | None = None, propagate: bool = True) -> None:
        """Validate ``path`` at once, or coalesced with later requests during a burst (see ``scheduler``).

        ``propagate``: also re-check the files whose findings depend on this one (skills sharing
        its old or new name, context files in its folder); those re-checks do not propagate.
        """
        key = path_key(path)
        if not self._worth_checking(key):
            return
        if propagate:
            self._propagate.add(key)
        self.scheduler.submit(key, lambda: self.check_now(key), delay_s=delay_s)

    def request_checks(self, paths: list[str]) -> None:
        """Validate many files (workspace check, watcher batch), one started per loop iteration.

        Requests keep being answered in between (``DebouncedScheduler.submit_many``).
        """
        items = []
        for path in paths:
            key = path_key(path)
            if not self._worth_checking(key):
                continue
            self._propagate.add(key)
            items.append((key, functools.partial(self.check_now, key, background=True)))
        self.scheduler.submit_many(items)

    async def check_now(self, path: str, *, background: bool = False) -> FileDiagnostics:
        """Validate the file's current text (buffer or disk), record, and publish if it changed.

        The rules run in a worker thread (at most ``CHECK_WORKERS`` at a time), so hover,
        completion and other files' diagnostics are answered meanwhile; a ``background`` check (the
        workspace check, a watcher batch) first waits while prompt work runs or waits (``projects``); the skill index is
        updated back here on the loop. A check still running after its time budget
        (``piContext.limits.checkBudgetMs``) publishes ``file/not-fully-checked`` at once and its
        findings when it ends.
        """
        if background:
            await self.projects.foreground_done()  # a prompt someone waits for goes first
        propagate = path in self._propagate
        self._propagate.discard(path)
        source = self.documents.read(path)
        self.stats.count(path, source.version)
        settings = self.settings
        options = settings.check_options()
        budget_s = settings.limits.check_budget_ms / 1000
        inclusions = self.inclusions_for(path)
        async with self._check_slots:
            if not background and source.text is not None and len(source.text) <= INLINE_CHECK_CHARS:
                # An edit of a small file: checked here, on the loop (a millisecond or so); handing it to
                # a thread and back costs two thread wake-ups, which on a busy machine cost more.
                analysis = self.checker.analyze(path, source.text, options, inclusions)
            else:
                work = run_in_daemon_thread(self.loop, self.checker.analyze, path, source.text, options, inclusions)
                try:
                    analysis = await asyncio.wait_for(asyncio.shield(work), budget_s)
                except TimeoutError:
                    self._publish_not_fully_checked(path, source.text, source.version, settings, budget_s)
                    analysis = await work
        # who depends on the file's entry now, just before apply replaces it: other files may have entered
        # the index while this check waited for a slot or ran in a thread
        before = self.dependents(path) if propagate else set()
        findings = self.checker.apply(analysis, options)
        findings = self.projects.place_findings(source.text, findings, settings.rule_profile)
        findings = left_to_the_editor(findings, settings.rule_profile, self.client_name)
        if source.text is None:
            self.checked.discard(path)
        else:
            self.checked.add(path)
        entry = FileDiagnostics(path, tuple(findings), source.text, source.version)
        if self.book.record(entry):
            self.publish(entry)
        if propagate:
            for other in sorted((before | self.dependents(path)) - {path}):
                self.request_check(other, delay_s=0, propagate=False)
        return entry

    def inclusions_for(self, path: str) -> Inclusions:
        """The project a file's findings speak of: the workspace folder holding it (else its own folder).

        Whether a context file is sent with every request depends on the cwd Pi starts in; the server's
        cwd for a file is its workspace folder, with that folder's agent dir (as its prompt is built).
        """
        holding = [root for root in self.roots if path.startswith(root.rstrip(os.sep) + os.sep)]
        root = max(holding, key=len) if holding else os.path.dirname(path)
        inputs = self.projects.inputs_for(root)
        return Inclusions(inputs.cwd, inputs.agent_dir)

    def _publish_not_fully_checked(
        self, path: str, text: str | None, version: int | None, settings: ServerSettings, budget_s: float
    ) -> None:
        self.stats.over_budget += 1
        em = Emitter(path, settings.rule_profile)
        em.emit("file/not-fully-checked", Range.file_start(), {"budget": budget_s})
        entry = FileDiagnostics(path, tuple(em.findings), text, version)
        if self.book.record(entry):
            self.publish(entry)

    def dependents(self, path: str) -> set[str]:
        """Files whose findings may change with ``path``: same-named skills, sibling context files."""
        found: set[str] = set()
        found.update(path_key(p) for p in self.checker.affected_by(path, self.check_options()))
        if os.path.basename(path) in CONTEXT_FILE_CANDIDATES:
            folder = os.path.dirname(path)
            for name in CONTEXT_FILE_CANDIDATES:
                sibling = os.path.join(folder, name)
                if sibling in self.checked or self.documents.is_open(sibling) or os.path.lexists(sibling):
                    found.add(sibling)
        found.discard(path)
        return found

    def publish(self, entry: FileDiagnostics) -> None:
        if entry.path in self.pulled and self.documents.is_open(entry.path):
            return  # the client pulls this one
        self.stats.published += 1
        self.client.publish(entry)

    def clear(self, path: str) -> None:
        """Forget a file's diagnostics and clear them in the client."""
        if self.book.forget(path) is not None:
            self.publish(FileDiagnostics(path, (), None, None))

    async def check_workspace(self) -> int:
        """Schedule a check of every file the checker wants; returns how many."""
        roots = [root for root in self.watch_roots() if os.path.isdir(root)]
        await self.projects.foreground_done()  # the folders' first prompts go before this walk
        options = self.check_options()
        paths = await self.loop.run_in_executor(None, lambda: list(self.checker.workspace_files(roots, options)))
        for note in self.checker.walk_notes:
            self.client.log(f"workspace walk: {note.path}: {note.message}", "warning")
        wanted = {path_key(p) for p in paths} | self.checked | set(self.book.paths()) | set(self.documents.open_paths())
        self.request_checks(sorted(wanted))
        return len(wanted)

    def start_watcher(self) -> None:
        """(Re)start the watcher over the current roots; with watching off, stop it.

        The old watcher goes on until the new one's OS watches are in place, so a change made during the
        restart is not lost (it may be reported twice: batches are re-read from disk, so that is harmless).
        """
        if not self.settings.watch:
            self.stop_watcher()
            return
        loop = self.loop

        def deliver(batch: WatchBatch) -> None:  # watcher thread -> event loop
            loop.call_soon_threadsafe(self.on_watch_batch, batch)

        def failed(exc: BaseException) -> None:
            loop.call_soon_threadsafe(self.client.log_failure, "file watcher", exc)

        old, self.watcher = (
            self.watcher,
            WorkspaceWatcher(
                self.watch_roots(),
                deliver,
                agent_dirs=self.agent_dirs(),
                debounce_ms=self.settings.debounce_ms,
                on_error=failed,
            ),
        )
        new = self.watcher
        new.start()
        if old is not None:

            def hand_over() -> None:
                new.wait_ready(WATCHER_HANDOVER_S)
                old.stop()

            threading.Thread(target=hand_over, name="pi-context-watch-handover", daemon=True).start()

    async def watcher_settled(self) -> None:
        """Wait until the current watcher's OS watches are in place (bounded), also across restarts meanwhile:
        a reply that promises to announce later changes is sent once they can be seen."""
        deadline = self.loop.time() + WATCHER_HANDOVER_S
        while (watcher := self.watcher) is not None and not watcher.ready:
            left = deadline - self.loop.time()
            if left <= 0:
                return
            await asyncio.to_thread(watcher.wait_ready, left)

    def stop_watcher(self) -> None:
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            watcher.stop()

    def on_watch_batch(self, batch: WatchBatch) -> None:
        """Changes on disk: re-check each file unless it is open (the buffer wins)."""
        batch = batch.without(self.documents.is_open)
        if not batch:
            return
        self.stats.watch_batches += 1
        self.stats.watch_paths += len(batch.paths())
        gone = set(batch.deleted)
        for deleted in batch.deleted:  # a deleted folder takes its files with it
            prefix = deleted.rstrip(os.sep) + os.sep
            gone.update(p for p in self.checked | set(self.book.paths()) if p.startswith(prefix))
        self.request_checks(sorted(gone | batch.added | batch.modified))  # the watcher debounced already
        self.events.emit(DiskChanged(tuple(batch.paths())))
        if self.debug:
            self.client.notify("pi/debug/watchEvents", batch.to_json())

    def _announce_session_changes(self, event: Event) -> None:
        """``pi/sessionChanged`` for a followed session file, or one in a listed folder, that changed on disk."""
        if not isinstance(event, DiskChanged):
            return
        listed = self.session_lists.listed_dirs()
        for path in event.paths:
            if path.endswith(".jsonl") and (self.sessions.cached(path) or os.path.dirname(path) in listed):
                try:
                    size = os.path.getsize(path) if os.path.exists(path) else None
                    params = protocol.SessionChangedParams(session=path, reason="disk", size=size)
                    self.client.notify(protocol.SESSION_CHANGED, params.wire())
                except Exception as exc:
                    self.client.log_failure("pi/sessionChanged", exc)

    def schedule(self, key: str, work: Callable[[], Awaitable[None]], *, delay_s: float | None = None) -> None:
        """Run ``work`` once after ``delay_s`` (one pending run per key; a later submission replaces it)."""
        self.scheduler.submit(key, work, delay_s=delay_s)

    async def shutdown(self) -> None:
        """An idle chat's Pi ends in order (stdin closed), none is left behind; a busy one under a keeper
        finishes its turn and waits a while for the next server (a window reload) to take it up."""
        await self.chats.release_all()
        self.stop_watcher()
        if self._scheduler is not None:
            self._scheduler.close()
