"""What ``compact`` and ``branch-summary`` share: the summarizer, Pi's settings, progress, Ctrl-C.

* The summarizer comes from ``--model`` or pi-context's ``summarizer`` settings (``--settings``),
  offline when neither says otherwise; ``--timeout`` and ``--deadline`` replace its time limits
  for this run (docs/llm.md "Retries, time limits and output limits").
* The session's project is opened as the language server opens it (:mod:`lsp_server.cli._project`):
  ``--cwd``, else the session header's ``cwd`` when it exists here, else the current directory;
  Pi's own settings there (``compaction.keepRecentTokens`` with per-model overrides,
  ``branchSummary.reserveTokens``, project settings only when the project is trusted) and the
  model's window come from it. Planning and summarizing are the server's jobs
  (:mod:`lsp_server.project.summaries`), so ``pi.compact`` previews what this command prints.
* Progress goes to stderr: a spinner line with the phase and the characters received when stderr
  is a terminal, one plain line per phase (and per retry) otherwise, so logs stay readable.
* Ctrl-C cancels the model call (the HTTP stream is closed); the command writes nothing and exits
  130. A second Ctrl-C stops at once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TextIO, TypeVar

from lsp_server.cli import _errors as errors
from lsp_server.cli._errors import EXIT_CANCELLED, EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from lsp_server.cli._ledger_text import economics_text
from lsp_server.cli._project import (
    add_project_arguments,
    cwd_error,
    project_inputs,
    session_limits,
    settings_from_args,
)
from lsp_server.compaction.summarize import Progress
from lsp_server.llm.client import CancelToken, LlmClient
from lsp_server.llm.factory import LlmConfigError, build_client
from lsp_server.llm.policy import OUTPUT_CHARS_PER_TOKEN
from lsp_server.llm.summarizer_config import SummarizerConfig
from lsp_server.project.project import Project, header_cwd, open_project, session_folder
from lsp_server.project.summaries import Job, JobRefused, JobResult, PreviewCache, ProjectFor, run_job
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.session.writer import SessionForAppend
from lsp_server.settings.summarizer import MODEL_ARG_HELP, config_from_model_arg, config_from_settings, with_time_limits

if TYPE_CHECKING:
    from lsp_server import protocol
from lsp_server.settings.pi_context import PiContextSettings, SummarizerSettings

T = TypeVar("T")

__all__ = ["EXIT_CANCELLED", "EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE"]  # the CLI's statuses (_errors.py)


def add_common_arguments(parser: argparse.ArgumentParser, *, instructions_help: str) -> None:
    parser.add_argument("--instructions", default=None, help=instructions_help)
    parser.add_argument("--dry-run", action="store_true", help="show the plan and the summary, write nothing")
    parser.add_argument("--model", default=None, help=f"summarizer: {MODEL_ARG_HELP} (default: settings, else offline)")
    defaults = SummarizerSettings.model_fields
    parser.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        default=None,
        help="the idle limit: the longest the model may stay silent, waiting for its answer included, each attempt "
        f"(default: summarizer.timeoutSeconds, {defaults['timeout_seconds'].default:g})",
    )
    parser.add_argument(
        "--deadline",
        type=_seconds,
        metavar="SECONDS",
        default=None,
        help="the deadline for the whole model call, retries and their waits included "
        f"(default: summarizer.deadlineSeconds, {defaults['deadline_seconds'].default:g}); "
        f"a reply is also cut off past {OUTPUT_CHARS_PER_TOKEN} characters per token of its output limit",
    )
    add_project_arguments(
        parser,
        cwd_help="the session's project (default: its cwd if it exists here, else the current directory)",
        counting=False,
        sessions=True,
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _seconds(text: str) -> float:
    """A positive number of seconds (argparse turns the ValueError into a usage error)."""
    value = float(text)
    if not 0 < value < float("inf"):
        raise ValueError(text)
    return value


_seconds.__name__ = "number of seconds"  # what argparse calls it in "invalid number of seconds value"


def fail(message: str, code: int = EXIT_FAILURE, path: str | None = None) -> int:
    """``pi-context: PATH: reason`` (:func:`lsp_server.cli._errors.fail`)."""
    return errors.fail(path, message, code)


@dataclass(frozen=True)
class Summarizer:
    config: SummarizerConfig
    client: LlmClient

    @property
    def label(self) -> str:
        return self.config.label


def summarizer_from_args(args: argparse.Namespace, settings: SummarizerSettings) -> Summarizer | str:
    """The client ``--model`` / the ``summarizer`` settings describe, or why it cannot be built."""
    config: SummarizerConfig | str = (
        config_from_model_arg(args.model, settings, os.environ) if args.model else config_from_settings(settings)
    )
    if isinstance(config, str):
        return config
    config = with_time_limits(config, idle_s=args.timeout, deadline_s=args.deadline)
    try:
        return Summarizer(config, build_client(config, os.environ))
    except LlmConfigError as exc:
        return str(exc)


def project_for(args: argparse.Namespace, settings: PiContextSettings) -> ProjectFor:
    """How a summary command finds the session's project (the rule of ``session_folder``)."""

    def open_for(session: SessionForAppend) -> Project:
        folder = session_folder(header_cwd(session.header), explicit=args.cwd, fallback=os.getcwd)
        if folder.note is not None:  # its Pi settings (compaction) and prices stand for the session's project
            sys.stderr.write(f"pi-context: {folder.note}; pass --cwd DIR to name the session's project\n")
        return open_project(project_inputs(args, folder.cwd, settings))

    return open_for


def plan_and_run(
    args: argparse.Namespace,
    plan_job: Callable[[ProjectFor, SummarizerConfig, SessionReadLimits], Job],
    show_plan: Callable[[Job, Summarizer], None],
    as_json: Callable[[Job, Summarizer, JobResult], Any],
    as_text: Callable[[Job, JobResult], None],
) -> int:
    """What ``compact`` and ``branch-summary`` do: plan the job (a refusal exits 1, a bad summarizer 2),
    show the plan unless ``--json``, run it with progress and Ctrl-C, and report (:func:`report_outcome`)."""
    settings = settings_from_args(args)
    bad_cwd = cwd_error(args)
    if bad_cwd is not None:
        return bad_cwd
    if not os.path.lexists(args.file):
        return fail("no such file or directory", EXIT_USAGE, args.file)
    summarizer = summarizer_from_args(args, settings.summarizer)
    if isinstance(summarizer, str):
        return fail(summarizer, EXIT_USAGE)
    try:
        job = plan_job(project_for(args, settings), summarizer.config, session_limits(settings))
    except JobRefused as exc:
        return fail(str(exc), path=args.file)
    if not args.json:
        show_plan(job, summarizer)
    result = run_job_cancellable(job, summarizer)
    return report_outcome(
        result.detail,
        (lambda: as_json(job, summarizer, result)) if args.json else None,
        lambda: as_text(job, result),
        job.session.path,
    )


def print_written(
    outcome: _Outcome, where: str, path: str, dry_run: bool, command: protocol.CommandOutcome | None = None
) -> None:
    """The written (or, dry run, would-be) entry in words, its summary, then what it costs and saves."""

    head = f"Dry run: nothing written. It would append {where}." if dry_run else f"Wrote {where} to {path}."
    if outcome.written is not None and outcome.written.repaired_newline:
        head += "\n(The file's missing final newline was added first, as Pi does.)"
    sys.stdout.write(f"\n{head}\n\n--- summary ---\n{outcome.entry['summary']}\n")
    if command is not None and command.economics is not None:
        sys.stdout.write(f"\n--- cost ---\n{economics_text(command.economics)}\n")


def run_job_cancellable(job: Job, summarizer: Summarizer) -> JobResult:
    """Summarize (and, unless a dry run, append) with progress on stderr and Ctrl-C as cancellation."""
    printer = ProgressPrinter(sys.stderr, summarizer.label)
    if job.session.repaired is not None:
        sys.stderr.write(f"pi-context: {job.session.repaired}\n")

    async def work(token: CancelToken) -> JobResult:
        try:
            client, label = summarizer.client, summarizer.label
            return await run_job(job, client, label=label, previews=PreviewCache(), cancel=token, on_progress=printer)
        finally:
            await summarizer.client.aclose()

    return run_cancellable(work, printer)


class ProgressPrinter:
    """Progress on a stream: a redrawn spinner line on a terminal, plain phase lines elsewhere."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

    def __init__(self, stream: TextIO, label: str, interactive: bool | None = None) -> None:
        self.stream = stream
        self.label = label
        self.interactive = stream.isatty() if interactive is None else interactive
        self.phase: str | None = None
        self.chars = 0
        self.started = time.monotonic()
        self._frames = itertools.cycle(self.FRAMES)
        self._drawn = False

    def __call__(self, progress: Progress) -> None:
        if progress.retry is not None:
            notice = progress.retry
            self._line(f"retry {notice.attempt}/{notice.max_retries} in {notice.delay_s:.1f}s: {notice.error_message}")
            self.chars = 0
            return
        if progress.phase != self.phase:
            self.phase = progress.phase
            self.chars = 0
            if not self.interactive:
                self._line(f"{progress.phase} ({self.label})")
        self.chars = progress.chars or self.chars
        self.tick()

    def tick(self) -> None:
        if not self.interactive or self.phase is None:
            return
        elapsed = time.monotonic() - self.started
        text = f"\r\x1b[2K{next(self._frames)} {self.phase} ({self.label}) {self.chars} chars, {elapsed:.0f}s"
        self.stream.write(text)
        self.stream.flush()
        self._drawn = True

    def _line(self, text: str) -> None:
        self.clear()
        self.stream.write(f"pi-context: {text}\n")
        self.stream.flush()

    def clear(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._drawn = False


def run_cancellable(work: Callable[[CancelToken], Awaitable[T]], printer: ProgressPrinter) -> T:
    """Run ``work`` on a fresh event loop; the first Ctrl-C cancels its token, the second interrupts."""

    async def main() -> T:
        token = CancelToken()
        loop = asyncio.get_running_loop()
        presses = 0

        def on_sigint() -> None:
            nonlocal presses
            presses += 1
            if presses == 1:
                token.cancel()
                printer._line("cancelling (Ctrl-C again to stop at once); nothing will be written")
            else:
                for task in asyncio.all_tasks(loop):
                    task.cancel()

        installed = False
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGINT, on_sigint)
            installed = True
        ticker = asyncio.ensure_future(_tick(printer))
        try:
            return await work(token)
        finally:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
            printer.clear()
            if installed:
                loop.remove_signal_handler(signal.SIGINT)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:  # the second Ctrl-C cancelled everything: an interrupt, exit 130
        raise KeyboardInterrupt from None


async def _tick(printer: ProgressPrinter) -> None:
    while True:
        await asyncio.sleep(0.1)
        printer.tick()


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


class _Outcome(Protocol):
    @property
    def entry(self) -> Any: ...
    @property
    def written(self) -> Any: ...
    @property
    def failure(self) -> str | None: ...
    @property
    def cancelled(self) -> bool: ...


def report_outcome(
    outcome: _Outcome, json_report: Callable[[], Any] | None, print_outcome: Callable[[], None], path: str
) -> int:
    """Print the result of a summary run and give its exit status.

    Once the entry is in the file, the run has succeeded whatever happens to the report: failing
    then would tell the user nothing was done, and a retry would append a second entry. So an error
    while reporting a written entry is told as such, with the entry's id, and the exit status stays 0.
    """
    try:
        if json_report is not None:
            print_json(json_report())
        if outcome.failure is not None:
            return fail(outcome.failure, EXIT_CANCELLED if outcome.cancelled else EXIT_FAILURE, path)
        if json_report is None:
            print_outcome()
        return EXIT_OK
    except BrokenPipeError:
        raise
    except Exception as exc:
        if outcome.written is None:
            raise
        entry_id = (outcome.entry or {}).get("id")
        return fail(f"the entry {entry_id} was written to {path}, but showing the result failed: {exc!r}", EXIT_OK)
