"""The pygls server: state, the guard on every handler, and ``create_server()``.

``PiLanguageServer`` holds what the handlers share, each as a typed attribute: the settings, the
open buffers (``documents``), the open projects with their prompts (``projects``), the followed
session files (``sessions``, ``session_lists``), the previews of summaries (``previews``), the
chats with Pi (``chats``), the checker, the watcher, the per-file scheduler, the diagnostics book
and the running operations.
Handlers live in small modules (``lifecycle``, ``sync``, ``debug_commands``, and one per feature in
``features/``, listed in ``features.FEATURES``); each registers itself with ``register(server)`` and
stays a few lines long: LSP params in, a call into the core, LSP result out.

Two pygls behaviours are adjusted here, both in ``PiProtocol``:

* ``$/cancelRequest`` also sets our cancel token for the request, because for
  ``workspace/executeCommand`` pygls cancels only the outer future and the command keeps running;
* ``workspace/executeCommand`` records its params and request id in a context variable, so a
  command can find its ``workDoneToken`` (pygls passes only ``arguments`` to commands).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import importlib
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Generator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import from_fs_path, to_fs_path

from lsp_server import __version__
from lsp_server.base.paths import is_path_within
from lsp_server.redaction.keyring import KeyRing
from lsp_server.server.debug_flag import debug_enabled
from lsp_server.server.diagnostics import to_diagnostics
from lsp_server.server.errors import SENT_TO_CLIENT, guard, is_notification, log_failure
from lsp_server.server.progress import create_progress_token, long_operation
from lsp_server.vocabulary.pi_files import CONTEXT_FILE_CANDIDATES
from lsp_server.workspace.cancellation import CancelRegistry, Operation
from lsp_server.workspace.diagnostics import CheckStats, DiagnosticsBook, FileDiagnostics, left_to_the_editor
from lsp_server.workspace.documents import DocumentStore, path_key
from lsp_server.workspace.scheduler import DebouncedScheduler

if TYPE_CHECKING:  # built on first use (see PiLanguageServer): the server answers initialize without them
    from lsp_server.chat.registry import ChatRegistry
    from lsp_server.checks import WorkspaceChecker
    from lsp_server.project.followed_sessions import SessionListCache, SessionStore
    from lsp_server.project.summaries import PreviewCache
    from lsp_server.project.usage import UsageStore
    from lsp_server.prompt.inclusion import Inclusions
    from lsp_server.server.projects import OpenProjects
    from lsp_server.session.bounds import SessionReadLimits
    from lsp_server.settings.editor import ServerSettings
    from lsp_server.workspace.watch import WatchBatch, WorkspaceWatcher

logger = logging.getLogger(__name__)

CHECK_WORKERS = 2  # files checked at the same time (worker threads); the machine may have two cores
# An edit's check of a file this small runs on the event loop, not in a thread: its rules take about
# a millisecond (YAML and every rule are bounded: tens of milliseconds at worst at this size).
INLINE_CHECK_CHARS = 16_384
WATCHER_HANDOVER_S = 10.0  # longest wait for a new watcher's OS watches (a large tree takes about a second)

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


SERVER_NAME = "pi-context"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class CommandCall:
    """The ``workspace/executeCommand`` request being handled in this context."""

    params: types.ExecuteCommandParams
    request_id: int | str | None


_COMMAND_CALL: contextvars.ContextVar[CommandCall | None] = contextvars.ContextVar("pi_command_call", default=None)


def current_command() -> CommandCall | None:
    return _COMMAND_CALL.get()


class PiProtocol(LanguageServerProtocol):
    _server: PiLanguageServer

    def _handle_cancel_notification(self, msg_id: int | str) -> None:
        self._server.cancels.cancel_request(msg_id)
        super()._handle_cancel_notification(msg_id)

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' shutdown, over a copy of the pending requests: it cancels them while iterating over the
        dictionary, and the future of a running command (``workspace/executeCommand``: a compaction waiting
        for its model) removes itself from it as it is cancelled, so a window closed during a Compact got
        "dictionary changed size during iteration" instead of a clean shutdown."""
        if (user_handler := self.fm.features.get(types.SHUTDOWN)) is not None:
            yield user_handler, args, None
        current_id = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current_id and not future.done():
                future.cancel()
        self._shutdown = True

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Generator[Any, Any, Any]:
        # Runs inside the request's context; the command's task copies it, and with it this var.
        _COMMAND_CALL.set(CommandCall(params=params, request_id=self.msg_id))
        return (yield from super().lsp_workspace__execute_command(params))


class PiLanguageServer(LanguageServer):
    """pi-context's language server. Construct with ``create_server()``."""

    def __init__(
        self, *, debug: bool = False, keys: KeyRing | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(
            SERVER_NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=PiProtocol,
            # lsprotocol's converter without pygls' hook that turns the params of custom methods
            # into namedtuples (lossy for keys that are not identifiers): custom handlers get JSON.
            converter_factory=get_converter,
        )
        self.debug = debug
        # The environment everything below is given (projects, Pi, the summarizer's key): the process's own.
        self.env: Mapping[str, str] = os.environ if env is None else env
        # The keys learned so far (each chat's, the summarizer's): every log line and logMessage is redacted
        # with them (serve's log handler shares this ring).
        self.keys = keys if keys is not None else KeyRing()
        self._checker: WorkspaceChecker | None = None
        self._settings: ServerSettings | None = None
        self.init_options: Any = None
        self.client_name = ""  # initialize's clientInfo.name (which editor's own checks to leave alone)
        self.config_layer: Any = None  # last piContext from workspace/configuration or a push
        self.config_pushes = 0  # didChangeConfiguration notifications handled (a push is newer than a pull)
        self.documents = DocumentStore()
        self.cancels = CancelRegistry()
        self.book = DiagnosticsBook()
        self.stats = CheckStats()
        self.roots: list[str] = []
        self.watcher: WorkspaceWatcher | None = None
        self.pulled: set[str] = set()  # open files the client pulls diagnostics for (no push)
        self.checked: set[str] = set()  # files checked and present (the checker may index them)
        self._propagate: set[str] = set()  # pending checks that must also re-check dependents
        self.listeners: list[Callable[[str, list[str]], None]] = []
        self._projects: OpenProjects | None = None
        self._sessions: SessionStore | None = None
        self._session_lists: SessionListCache | None = None
        self._previews: PreviewCache | None = None
        self._chats: ChatRegistry | None = None
        self._usage: UsageStore | None = None
        self._scheduler: DebouncedScheduler | None = None
        self._check_slots = asyncio.Semaphore(CHECK_WORKERS)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None
        self._started: asyncio.Event | None = None

    def session_limits(self) -> SessionReadLimits:
        """How much of a session file is read: ``piContext.limits.sessionMaxBytes``."""
        from lsp_server.session.bounds import SessionReadLimits

        return SessionReadLimits(max_bytes=self.settings.limits.session_max_bytes)

    def apply_session_limits(self) -> None:
        """Session reads follow the settings (followed files, lists, summaries); stores not built yet wait."""
        if self._sessions is not None:
            self._sessions.read_limits = self.session_limits()
        if self._session_lists is not None:
            self._session_lists.read_limits = self.session_limits()

    # --- the domain's objects, built on first use ---------------------------------------------
    # Importing the domain (rules, YAML, sessions, pydantic models) costs more than the rest of the
    # server: these are built when a handler first asks (``initialized`` does), not at start-up, so
    # ``initialize`` is answered after importing pygls alone. ``preload_domain`` imports them in a
    # thread right after ``initialize`` so that first use finds them loaded.

    @property
    def settings(self) -> ServerSettings:
        """The settings in force: ``initializationOptions`` until ``initialized`` has pulled the client's."""
        if self._settings is None:
            from lsp_server.settings.editor import parse_settings

            self._settings, _ = parse_settings(self.init_options)  # apply_settings logs the problems
        return self._settings

    @settings.setter
    def settings(self, value: ServerSettings) -> None:
        self._settings = value

    def reset_settings(self) -> None:
        """Forget the settings: the next use parses ``init_options`` again."""
        self._settings = None

    @property
    def checker(self) -> WorkspaceChecker:
        if self._checker is None:
            from lsp_server.checks import WorkspaceChecker

            self._checker = WorkspaceChecker()
        return self._checker

    @property
    def projects(self) -> OpenProjects:
        if self._projects is None:
            from lsp_server.server.projects import OpenProjects

            self._projects = OpenProjects(self)
        return self._projects

    @property
    def sessions(self) -> SessionStore:
        if self._sessions is None:
            from lsp_server.project.followed_sessions import SessionStore

            self._sessions = SessionStore(read_limits=self.session_limits())
        return self._sessions

    @property
    def session_lists(self) -> SessionListCache:
        if self._session_lists is None:
            from lsp_server.project.followed_sessions import SessionListCache

            self._session_lists = SessionListCache(self.session_limits())
        return self._session_lists

    @property
    def previews(self) -> PreviewCache:
        if self._previews is None:
            from lsp_server.project.summaries import PreviewCache

            self._previews = PreviewCache()
        return self._previews

    @property
    def chats(self) -> ChatRegistry:
        if self._chats is None:
            from lsp_server.chat.registry import ChatRegistry

            self._chats = ChatRegistry()
        return self._chats

    @property
    def usage(self) -> UsageStore:
        """Usage across sessions (``pi/usage``): one cache for the server's life."""
        if self._usage is None:
            from lsp_server.project.usage import UsageStore

            self._usage = UsageStore(self.env, self.session_limits())
        return self._usage

    # --- readiness: ``initialized`` has loaded the settings (ready), then started the watcher and
    # scheduled the workspace check (started) ----------------------------------------------------

    @property
    def ready(self) -> asyncio.Event:
        if self._ready is None:
            self._ready = asyncio.Event()
        return self._ready

    @property
    def started(self) -> asyncio.Event:
        if self._started is None:
            self._started = asyncio.Event()
        return self._started

    async def wait_ready(self, timeout: float = 30.0) -> bool:
        """For handlers that need settings and roots: wait until ``initialized`` has loaded them."""
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

    # --- registration: every handler goes through the guard --------------------------------

    def feature(self, feature_name: str, options: Any | None = None) -> Callable[[F], F]:
        register = super().feature(feature_name, options)
        request = not is_notification(feature_name)

        def decorator(fn: F) -> F:
            register(guard(fn, what=feature_name, request=request))
            return fn

        return decorator

    def command(self, command_name: str) -> Callable[[F], F]:
        register = super().command(command_name)

        def decorator(fn: F) -> F:
            register(guard(fn, what=f"command {command_name}", request=True))
            return fn

        return decorator

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band errors go to the log, not to a pop-up; request errors were answered."""
        if source is FeatureRequestError:
            return
        log_failure(self, "server", error)

    # --- logging -----------------------------------------------------------------------------

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        level = logging.WARNING if kind <= types.MessageType.Warning else logging.INFO
        logger.log(level, "%s", message, extra={SENT_TO_CLIENT: True})  # stderr shows it once (cli/serve.py)
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:
            logger.exception("could not send window/logMessage")

    def window_log_message(self, params: types.LogMessageParams) -> None:
        """``window/logMessage`` (the editor's output channel) with every key the server knows redacted."""
        message = self.keys.redact(params.message)
        if message is not params.message:
            params = types.LogMessageParams(type=params.type, message=message)
        super().window_log_message(params)

    # --- loop-bound parts --------------------------------------------------------------------

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
        log_failure(self, f"checking {key}", exc)

    # --- paths and URIs ----------------------------------------------------------------------

    @staticmethod
    def uri_to_path(uri: str) -> str | None:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        return path_key(path) if path else None

    def path_to_uri(self, path: str) -> str:
        buffer = self.documents.get(path)
        if buffer is not None:
            return buffer.uri  # the client's own spelling of the URI
        return from_fs_path(path) or f"file://{path}"

    def folder_uri(self, root: str) -> str:
        """The client's own URI for a workspace folder (as it sent it), else a file URI."""
        try:
            folders = list(self.workspace.folders.values())
            root_uri = self.workspace.root_uri
        except RuntimeError:
            folders, root_uri = [], None
        for folder in folders:
            if self.uri_to_path(folder.uri) == root:
                return str(folder.uri)
        if root_uri and self.uri_to_path(root_uri) == root:
            return str(root_uri)
        return self.path_to_uri(root)

    @property
    def agent_dir(self) -> str:
        """The first workspace folder's agent dir (the server's cwd's when no folder is open)."""
        return self.agent_dirs()[0]

    def agent_dirs(self) -> list[str]:
        """Each workspace folder's agent dir, as its project resolves it (a relative ``agentDir`` is per folder)."""
        folders = self.roots or [os.getcwd()]
        return list(dict.fromkeys(self.projects.inputs_for(folder).agent_dir for folder in folders))

    def workspace_roots(self) -> list[str]:
        """Folders from initialize / didChangeWorkspaceFolders, else the root URI."""
        try:
            workspace = self.workspace
        except RuntimeError:
            return []
        uris = [folder.uri for folder in workspace.folders.values()]
        if not uris and workspace.root_uri and not self.client_supports("workspace", "workspace_folders"):
            uris = [workspace.root_uri]  # a client without folders: the root stands in (once folders are known, never)
        paths = [self.uri_to_path(uri) for uri in uris]
        return list(dict.fromkeys(path for path in paths if path))

    def watch_roots(self) -> list[str]:
        """Where Pi reads (workspace folders, the agent dir, ``~/.agents/skills``) and the session folders listed."""
        home = self.env.get("HOME") or os.path.expanduser("~")
        fixed = [*self.roots, *self.agent_dirs(), os.path.join(home, ".agents", "skills")]
        extra = sorted(d for d in self.session_lists.listed_dirs() if not any(is_path_within(r, d) for r in fixed))
        return [*fixed, *extra]

    # --- client capabilities -------------------------------------------------------------------

    def client_supports(self, *attrs: str) -> bool:
        """``client_supports("workspace", "configuration")``: walk the capabilities, truthy at the end."""
        value: Any = getattr(self.protocol, "client_capabilities", None)
        for attr in attrs:
            if value is None:
                return False
            value = getattr(value, attr, None)
        return bool(value)

    # --- long operations -----------------------------------------------------------------------

    @asynccontextmanager
    async def long_operation(
        self, title: str, *, cancellable: bool = True, message: str | None = None
    ) -> AsyncIterator[Operation]:
        """Progress + cancellation for the current command (see ``progress.long_operation``)."""
        call = current_command()
        progress_token = call.params.work_done_token if call is not None else None
        if progress_token is None:
            progress_token = await create_progress_token(
                self.work_done_progress, self.client_supports("window", "work_done_progress")
            )
        async with long_operation(
            title,
            registry=self.cancels,
            progress=self.work_done_progress,
            progress_token=progress_token,
            request_id=call.request_id if call is not None else None,
            cancellable=cancellable,
            message=message,
        ) as operation:
            yield operation

    # --- files: check, publish, watch ------------------------------------------------------------

    def notify_listeners(self, reason: str, paths: list[str]) -> None:
        """Tell feature modules (prompt sections, sessions) that files changed; never raises."""
        for listener in list(self.listeners):
            try:
                listener(reason, paths)
            except Exception as exc:
                log_failure(self, f"listener for {reason}", exc)

    def request_check(self, path: str, *, delay_s: float | None = None, propagate: bool = True) -> None:
        """Validate ``path`` at once, or coalesced with later requests during a burst (see ``scheduler``).

        ``propagate``: also re-check the files whose findings depend on this one (skills sharing
        its old or new name, context files in its folder); those re-checks do not propagate.
        """
        key = path_key(path)
        if (
            key not in self.checked
            and self.book.get(key) is None
            and not self.checker.wants(key, self.settings.check_options())
        ):
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
            if (
                key not in self.checked
                and self.book.get(key) is None
                and not self.checker.wants(key, self.settings.check_options())
            ):
                continue
            self._propagate.add(key)
            items.append((key, functools.partial(self.check_now, key, background=True)))
        self.scheduler.submit_many(items)

    def _worth_checking(self, key: str) -> bool:
        """Checked before, or with diagnostics, or a file the checker wants."""
        return (
            key in self.checked
            or self.book.get(key) is not None
            or self.checker.wants(key, self.settings.check_options())
        )

    async def check_now(self, path: str, *, background: bool = False) -> FileDiagnostics:
        """Validate the file's current text (buffer or disk), record, and push if it changed.

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
        before = self.dependents(path) if propagate else set()
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
        from lsp_server.prompt.inclusion import Inclusions

        holding = [root for root in self.roots if path.startswith(root.rstrip(os.sep) + os.sep)]
        root = max(holding, key=len) if holding else os.path.dirname(path)
        inputs = self.projects.inputs_for(root)
        return Inclusions(inputs.cwd, inputs.agent_dir)

    def _publish_not_fully_checked(
        self, path: str, text: str | None, version: int | None, settings: ServerSettings, budget_s: float
    ) -> None:
        self.stats.over_budget += 1
        from lsp_server.base.findings import Range
        from lsp_server.rules.registry import Emitter

        em = Emitter(path, settings.rule_profile)
        em.emit("file/not-fully-checked", Range.file_start(), {"budget": budget_s})
        entry = FileDiagnostics(path, tuple(em.findings), text, version)
        if self.book.record(entry):
            self.publish(entry)

    def dependents(self, path: str) -> set[str]:
        """Files whose findings may change with ``path``: same-named skills, sibling context files."""
        found: set[str] = set()
        found.update(path_key(p) for p in self.checker.affected_by(path, self.settings.check_options()))
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
        diagnostics = to_diagnostics(entry.findings, entry.text, self.workspace.position_codec)
        self.stats.published += 1
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=self.path_to_uri(entry.path), diagnostics=diagnostics, version=entry.version
            )
        )

    def clear(self, path: str) -> None:
        """Forget a file's diagnostics and clear them in the client."""
        if self.book.forget(path) is not None:
            self.publish(FileDiagnostics(path, (), None, None))

    async def check_workspace(self) -> int:
        """Schedule a check of every file the checker wants; returns how many."""
        roots = [root for root in self.watch_roots() if os.path.isdir(root)]
        await self.projects.foreground_done()  # the folders' first prompts go before this walk
        paths = await self.loop.run_in_executor(
            None, lambda: list(self.checker.workspace_files(roots, self.settings.check_options()))
        )
        for note in self.checker.walk_notes:
            self.log(f"workspace walk: {note.path}: {note.message}", types.MessageType.Warning)
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
        from lsp_server.workspace.watch import (
            WorkspaceWatcher,
        )  # watchfiles, anyio, ctypes: not needed to answer initialize

        loop = self.loop

        def deliver(batch: WatchBatch) -> None:  # watcher thread -> event loop
            loop.call_soon_threadsafe(self.on_watch_batch, batch)

        def failed(exc: BaseException) -> None:
            loop.call_soon_threadsafe(log_failure, self, "file watcher", exc)

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
        self.notify_listeners("disk", batch.paths())
        if self.debug:
            self.protocol.notify("pi/debug/watchEvents", batch.to_json())

    def shutdown_services(self) -> None:
        self.stop_watcher()
        if self._scheduler is not None:
            self._scheduler.close()


DOMAIN_MODULES = (  # what handlers import on first use; preload_domain loads them off the event loop
    "lsp_server.workspace.watch",
    "lsp_server.settings.editor",
    "lsp_server.checks",
    "lsp_server.protocol",
    "lsp_server.server.projects",
    "lsp_server.project.analysis",
    "lsp_server.project.costs",
    "lsp_server.project.followed_sessions",
    "lsp_server.project.summaries",
    "lsp_server.project.prompt_answers",
    "lsp_server.project.file_roles",
    "lsp_server.project.volatile",
    "lsp_server.editing.completions",
    "lsp_server.editing.hovers",
    "lsp_server.editing.fixes",
    "lsp_server.editing.outline",
    "lsp_server.chat.registry",
    "lsp_server.chat.lens",
    "lsp_server.llm.factory",
    "lsp_server.session.tail",
    "lsp_server.session.writer",
)


def preload_domain() -> None:
    """Import the domain (in a worker thread: the event loop keeps answering while it loads)."""
    for name in DOMAIN_MODULES:
        importlib.import_module(name)


def create_server(*, debug: bool | None = None, keys: KeyRing | None = None) -> PiLanguageServer:
    """A ready-to-start server with every handler registered (``keys``: the ring its log handler redacts with)."""
    from lsp_server.server import debug_commands, features, lifecycle, sync

    server = PiLanguageServer(debug=debug_enabled(debug), keys=keys)
    lifecycle.register(server)
    sync.register(server)
    for register in features.FEATURES:
        register(server)
    if server.debug:
        debug_commands.register(server)
    return server
