"""The progress display of ``compact`` / ``branch-summary`` (a spinner on terminals, lines elsewhere)."""

from __future__ import annotations

import io

import pytest

from lsp_server.cli._summarizing import EXIT_OK, ProgressPrinter, report_outcome
from lsp_server.compaction.operations import CompactionOutcome
from lsp_server.compaction.summarize import Progress
from lsp_server.llm.types import RetryNotice
from lsp_server.session.writer import AppendResult


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


def _written(entry_id: str) -> CompactionOutcome:
    entry = {"type": "compaction", "id": entry_id}
    written = AppendResult(path="/s.jsonl", entry=entry, offset=0, line=b"{}\n", repaired_newline=False)
    return CompactionOutcome(plan=None, entry=entry, written=written)


def _broken_report() -> None:
    raise ValueError("the report broke")


def test_a_failure_while_reporting_a_written_entry_says_it_was_written_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert report_outcome(_written("c1"), _broken_report, _broken_report, "/s.jsonl") == EXIT_OK
    assert report_outcome(_written("c2"), None, _broken_report, "/s.jsonl") == EXIT_OK
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("pi-context: the entry c1 was written to /s.jsonl, but showing the result failed:")
    assert "the report broke" in err[0] and "entry c2 was written" in err[1]


def test_a_failure_while_reporting_when_nothing_was_written_is_not_hidden() -> None:
    with pytest.raises(ValueError):
        report_outcome(CompactionOutcome(plan=None), _broken_report, _broken_report, "/s.jsonl")
