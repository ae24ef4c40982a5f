"""``pi.compact`` and ``pi.branchSummary``: summaries with progress, cancellation, and nothing written on failure.

Both commands take one argument object (``CompactArgs`` / ``BranchSummaryArgs``), report progress
(reading, planning, each summary call with the characters received, writing), stop when the user
cancels from the progress UI or the client cancels the request, and answer a ``CommandOutcome``: the
preview, or what was appended. A failure (the model answered 500, the file grew since it was read or
since the preview, nothing to compact) is an error answer, and the session file is byte-identical to
before; so it is after a cancellation.

The summarizer is pi-context's ``summarizer`` setting (offline by default, or an endpoint). The
session's project (``ws.projects``, chosen by the rule of ``session_folder``) gives Pi's
``keepRecentTokens`` for the session's model, the branch-summary reserve and the model's window.
After a write the followed session is refreshed and the client gets ``pi/sessionChanged``. On a
session a chat's Pi holds, the compaction is Pi's (:func:`lsp_server.workspace.chat_requests.compact_in_chat`)
and a branch summary is refused: one writer per session.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsp_server import protocol
from lsp_server.llm.client import CancelToken, LlmClient
from lsp_server.llm.factory import LlmConfigError, api_key_of, build_client
from lsp_server.project.project import Project, header_cwd, session_folder
from lsp_server.project.summaries import (
    Job,
    JobRefused,
    JobResult,
    ProjectFor,
    plan_branch_job,
    plan_compaction_job,
    run_job,
)
from lsp_server.settings.summarizer import config_from_settings
from lsp_server.workspace.chat_requests import compact_in_chat
from lsp_server.workspace.errors import RequestFailed
from lsp_server.workspace.session_access import session_path

if TYPE_CHECKING:
    from lsp_server.chat.chat import Chat
    from lsp_server.compaction.summarize import Progress
    from lsp_server.llm.summarizer_config import SummarizerConfig
    from lsp_server.session.bounds import SessionReadLimits
    from lsp_server.session.writer import SessionForAppend
    from lsp_server.workspace.cancellation import Operation
    from lsp_server.workspace.workspace import Workspace

PHASE_PERCENT = {
    "preparing": 10,
    "summarizing history": 20,
    "summarizing branch": 20,
    "summarizing turn prefix": 60,
    "writing": 95,
}
REPORT_EVERY_S = 0.25  # characters-received reports at most this often


def project_for(ws: Workspace, session: SessionForAppend) -> Project:
    """The project a session belongs to: its header's cwd if that exists here, else the first folder."""
    folder = session_folder(header_cwd(session.header), fallback=lambda: (ws.roots or [os.getcwd()])[0])
    return ws.projects.open(folder.cwd)


class ProgressReporter:
    """Summary progress as the operation's reports: one per phase, characters at most every 0.25 s."""

    def __init__(self, operation: Operation, label: str) -> None:
        self.operation = operation
        self.label = label
        self.phase: str | None = None
        self.last = 0.0

    def __call__(self, progress: Progress) -> None:
        if progress.retry is not None:
            retry = progress.retry
            self.operation.report(
                f"retry {retry.attempt}/{retry.max_retries} in {retry.delay_s:.0f}s: {retry.error_message}"
            )
            return
        now = time.monotonic()
        if progress.phase != self.phase:
            self.phase = progress.phase
            self.last = now
            self.operation.report(f"{progress.phase} ({self.label})", PHASE_PERCENT.get(progress.phase))
        elif progress.chars and now - self.last >= REPORT_EVERY_S:
            self.last = now
            self.operation.report(f"{progress.phase} ({self.label}): {progress.chars:,} characters")


def _summarizer(ws: Workspace) -> tuple[SummarizerConfig, LlmClient]:
    config = config_from_settings(ws.settings.summarizer)
    ws.keys.add([api_key_of(config, ws.env)])  # the server's log lines are redacted with it too
    try:
        return config, build_client(config, ws.env)
    except LlmConfigError as exc:
        raise RequestFailed(f"summarizer: {exc}") from None


async def _run(ws: Workspace, title: str, plan: functools.partial[Job], kind: str) -> dict[str, Any]:
    config, client = _summarizer(ws)
    label = config.label
    try:
        async with ws.client.long_operation(title, message="reading the session") as operation:
            try:
                job = await operation.run_in_thread(plan)
            except JobRefused as exc:
                raise RequestFailed(str(exc)) from None
            if job.session.repaired is not None:
                ws.client.log(f"pi-context: {job.session.repaired}", "warning")
            operation.check()
            operation.report(job.describe(), 5)
            llm_cancel = CancelToken()
            loop = asyncio.get_running_loop()

            def cancel_llm() -> None:  # any thread -> the loop (the LLM token is an asyncio.Event)
                loop.call_soon_threadsafe(llm_cancel.cancel)

            operation.token.on_cancel(cancel_llm)
            result: JobResult = await run_job(
                job,
                client,
                label=label,
                previews=ws.previews,
                cancel=llm_cancel,
                on_progress=ProgressReporter(operation, label),
            )
            if result.failure is not None:
                if result.cancelled:
                    operation.check()  # cancelled by the user: answered as RequestCancelled
                raise RequestFailed(result.failure)
    finally:
        await client.aclose()
    assert result.outcome is not None
    if result.outcome.written:
        await _after_write(ws, job.session.path, kind, result)
    return result.outcome.wire()


async def _after_write(ws: Workspace, path: str, kind: str, result: JobResult) -> None:
    store = ws.sessions
    if store.cached(path):

        def refresh() -> None:
            with store.use(path):
                pass

        await asyncio.get_running_loop().run_in_executor(None, refresh)
    reason: Any = kind
    params = protocol.SessionChangedParams(session=path, reason=reason, entry_id=result.entry_id, size=result.size)
    ws.client.notify(protocol.SESSION_CHANGED, params.wire())


def refuse_if_live(ws: Workspace, path: str, kind: str) -> None:
    """One writer per session: pi-context does not append to a session a chat's Pi holds.

    A compaction of a session a chat of this server holds is Pi's own (``pi.compact`` goes through the
    chat, see ``compact_in_chat``); one held by a keeper (another window, or a Pi that kept running
    after its window closed) is refused. Summarizing a branch means moving the session's leaf, and
    Pi's RPC mode has no command that moves in the tree (no ``/tree``, no ``navigate``): Pi would go
    on from its own leaf, under the summary.
    """
    holder = ws.chats.describe_holder(path, ws.chats.keeping.folder(ws.env))
    if holder is None:
        return
    if kind == "compaction":
        raise RequestFailed(f"{path} is open in {holder} and Pi writes it: compact it from that chat (/compact)")
    raise RequestFailed(
        f"{path} is open in {holder}, and only Pi writes it while the chat holds it; Pi's RPC mode "
        "cannot move to another branch, so a branch summary cannot go through the chat. Stop the chat, then "
        "summarize the branch (the chat can resume the session after), or use /tree in Pi's own terminal"
    )


SummaryArgs = TypeVar("SummaryArgs", protocol.CompactArgs, protocol.BranchSummaryArgs)


async def _command(
    ws: Workspace,
    request: SummaryArgs,
    method: str,
    kind: str,
    plan_job: Callable[[SummaryArgs, ProjectFor, SummarizerConfig, SessionReadLimits], Job],
    verbs: tuple[str, str],
    live: Callable[[Workspace, Chat, Any], Awaitable[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """``pi.compact`` / ``pi.branchSummary``: check the params and the one-writer rule, plan in a thread, run.

    ``verbs`` are the progress title's first words for a preview and for the real run. On a session a
    chat's Pi holds, ``live`` does the work through that chat; without it the command is refused.
    """
    await ws.wait_ready()
    path = session_path(ws, method, request.session)
    request = request.model_copy(update={"session": path})
    holder = ws.chats.holder(path)
    if holder is not None and live is not None:
        return await live(ws, holder, request)
    refuse_if_live(ws, path, kind)
    config = config_from_settings(ws.settings.summarizer)
    plan = functools.partial(plan_job, request, functools.partial(project_for, ws), config, ws.sessions.read_limits)
    verb = verbs[0] if request.preview_only else verbs[1]
    if request.preview_only:
        return await _run(ws, f"{verb} {os.path.basename(path)}", plan, kind)
    with ws.chats.writing(path, "a compaction" if kind == "compaction" else "a branch summary"):
        return await _run(ws, f"{verb} {os.path.basename(path)}", plan, kind)


async def compact(ws: Workspace, params: protocol.CompactArgs) -> dict[str, Any]:
    verbs = ("Previewing the compaction of", "Compacting")
    return await _command(
        ws, params, protocol.CMD_COMPACT, "compaction", plan_compaction_job, verbs, live=compact_in_chat
    )


async def branch_summary(ws: Workspace, params: protocol.BranchSummaryArgs) -> dict[str, Any]:
    verbs = ("Previewing the branch summary of", "Summarizing the branch of")
    return await _command(ws, params, protocol.CMD_BRANCH_SUMMARY, "branchSummary", plan_branch_job, verbs)
