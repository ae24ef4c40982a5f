"""The progress display of ``compact`` / ``branch-summary`` (a spinner on terminals, lines elsewhere)."""

from __future__ import annotations

import io

from lsp_server.cli._summarizing import ProgressPrinter
from lsp_server.compaction.summarize import Progress
from lsp_server.llm.types import RetryNotice


def test_a_terminal_gets_one_redrawn_line_with_phase_and_characters() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, "openai/m", interactive=True)
    printer(Progress("summarizing history"))
    printer(Progress("summarizing history", chars=120))
    printer.clear()
    text = stream.getvalue()
    assert "\n" not in text
    assert text.count("\r\x1b[2K") == 3
    assert "summarizing history (openai/m) 120 chars" in text


def test_other_streams_get_one_line_per_phase() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, "offline", interactive=False)
    for chars in (0, 10, 20):
        printer(Progress("summarizing history", chars=chars))
    printer(Progress("writing"))
    assert stream.getvalue() == "pi-context: summarizing history (offline)\npi-context: writing (offline)\n"


def test_a_retry_is_announced_on_its_own_line() -> None:
    stream = io.StringIO()
    printer = ProgressPrinter(stream, "m", interactive=True)
    printer(Progress("summarizing history", chars=5))
    printer(Progress("summarizing history", retry=RetryNotice(1, 3, 2.0, "500 overloaded")))
    assert "pi-context: retry 1/3 in 2.0s: 500 overloaded\n" in stream.getvalue()
    assert printer.chars == 0
