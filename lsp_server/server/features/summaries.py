"""``pi.compact`` and ``pi.branchSummary``: summaries with progress, cancellation, and nothing written on failure.

Both commands take one argument object (``CompactArgs`` / ``BranchSummaryArgs``), report
``$/progress`` (reading, planning, each summary call with the characters received, writing),
stop when the user cancels from the progress UI or the client cancels the request, and answer a
``CommandOutcome``: the preview, or what was appended. A failure (the model answered 500, the file
grew since it was read or since the preview, nothing to compact) is an error answer, and the
session file is byte-identical to before; so it is after a cancellation.

The summarizer is pi-context's ``summarizer`` setting (offline by default, or an endpoint). Pi's
own settings for the session's project give ``keepRecentTokens`` and the branch-summary reserve;
the session model's window comes from the budget's model table. After a write the followed
session is refreshed and the client gets ``pi/sessionChanged``.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from typing import Any, cast

from lsp_server import protocol
from lsp_server.budget.models import ModelWindows, WindowOverrides, model_of
from lsp_server.compaction.summarize import Progress
from lsp_server.context.paths import resolve_path
from lsp_server.context.settings import PiSettings, load_pi_settings
from lsp_server.context.trust import project_trust
from lsp_server.llm.client import CancelToken, LlmClient
from lsp_server.llm.config import config_from_settings
from lsp_server.llm.factory import LlmConfigError, SummarizerConfig, build_client
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features._common import parse_params, request_failed, server_state
from lsp_server.server.features.sessions import notify_session_changed, session_path, session_store
from lsp_server.server.progress import Operation
from lsp_server.session.projection import ModelRef
from lsp_server.session.writer import SessionForAppend
from lsp_server.workspace.summaries import (
    Job,
    JobRefused,
    JobResult,
    PreviewCache,
    plan_branch_job,
    plan_compaction_job,
    run_job,
    summarizer_label,
)

PHASE_PERCENT = {
    "preparing": 10,
    "summarizing history": 20,
    "summarizing branch": 20,
    "summarizing turn prefix": 60,
    "writing": 95,
}
REPORT_EVERY_S = 0.25  # characters-received reports at most this often


def previews(ls: PiLanguageServer) -> PreviewCache:
    state = server_state(ls)
    if "previews" not in state:
        state["previews"] = PreviewCache()
    return cast(PreviewCache, state["previews"])


def pi_settings_for(ls: PiLanguageServer, session: SessionForAppend) -> PiSettings:
    """Pi's settings for the session's project (header cwd), trust as Pi decides it or as overridden."""
    header_cwd = session.header.get("cwd") if session.header else None
    cwd = resolve_path(header_cwd) if isinstance(header_cwd, str) and header_cwd else (ls.roots or [os.getcwd()])[0]
    agent_dir = ls.agent_dir
    trusted = project_trust(cwd, agent_dir, override=ls.settings.trust_override).trusted
    return load_pi_settings(cwd, agent_dir, project_trusted=trusted).effective


def window_for(ls: PiLanguageServer, model: ModelRef | None) -> int | None:
    provider, model_id = model_of(model.provider, model.model_id) if model is not None else (None, None)
    if model_id is None:
        return None
    windows = ModelWindows.for_agent_dir(ls.agent_dir, overrides=WindowOverrides.from_settings(ls.settings.budget))
    return windows.resolve(provider, model_id, "session").context_window


class ProgressReporter:
    """Summary progress as ``$/progress`` reports: one per phase, characters at most every 0.25 s."""

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


def _summarizer(ls: PiLanguageServer) -> tuple[SummarizerConfig, LlmClient]:
    config = config_from_settings(ls.settings.summarizer)
    try:
        return config, build_client(config)
    except LlmConfigError as exc:
        raise request_failed(f"summarizer: {exc}") from None


async def _run(ls: PiLanguageServer, title: str, plan: functools.partial[Job], kind: str) -> dict[str, Any]:
    config, client = _summarizer(ls)
    label = summarizer_label(config)
    try:
        async with ls.long_operation(title, message="reading the session") as operation:
            try:
                job = await operation.run_in_thread(plan)
            except JobRefused as exc:
                raise request_failed(str(exc)) from None
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
                previews=previews(ls),
                cancel=llm_cancel,
                on_progress=ProgressReporter(operation, label),
            )
            if result.failure is not None:
                if result.cancelled:
                    operation.check()  # cancelled by the user: answered as RequestCancelled
                raise request_failed(result.failure)
    finally:
        await client.aclose()
    assert result.outcome is not None
    if result.outcome.written:
        await _after_write(ls, job.session.path, kind, result)
    return result.outcome.wire()


async def _after_write(ls: PiLanguageServer, path: str, kind: str, result: JobResult) -> None:
    store = session_store(ls)
    if store.cached(path):

        def refresh() -> None:
            with store.use(path):
                pass

        await asyncio.get_running_loop().run_in_executor(None, refresh)
    reason: Any = kind
    notify_session_changed(
        ls, protocol.SessionChangedParams(session=path, reason=reason, entry_id=result.entry_id, size=result.size)
    )


def register(server: PiLanguageServer) -> None:
    @server.command(protocol.CMD_COMPACT)
    async def compact(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        request = parse_params(protocol.CompactArgs, list(args), protocol.CMD_COMPACT)
        await ls.wait_ready()
        path = session_path(ls, protocol.CMD_COMPACT, request.session)
        request = request.model_copy(update={"session": path})
        config = config_from_settings(ls.settings.summarizer)
        plan = functools.partial(plan_compaction_job, request, functools.partial(pi_settings_for, ls), config)
        verb = "Previewing the compaction of" if request.preview_only else "Compacting"
        return await _run(ls, f"{verb} {os.path.basename(path)}", plan, "compaction")

    @server.command(protocol.CMD_BRANCH_SUMMARY)
    async def branch_summary(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        request = parse_params(protocol.BranchSummaryArgs, list(args), protocol.CMD_BRANCH_SUMMARY)
        await ls.wait_ready()
        path = session_path(ls, protocol.CMD_BRANCH_SUMMARY, request.session)
        request = request.model_copy(update={"session": path})
        config = config_from_settings(ls.settings.summarizer)
        plan = functools.partial(
            plan_branch_job,
            request,
            functools.partial(pi_settings_for, ls),
            config,
            functools.partial(window_for, ls),
        )
        verb = "Previewing the branch summary of" if request.preview_only else "Summarizing the branch of"
        return await _run(ls, f"{verb} {os.path.basename(path)}", plan, "branchSummary")
