"""``prompt/volatile-content``: text that changes between sessions, with the tokens that miss the cache after it."""

from __future__ import annotations

import pytest

from lsp_server.findings import Severity
from lsp_server.rules.context_rules import check_context_text
from lsp_server.rules.profiles import PROFILE_TABLE
from lsp_server.rules.system_prompt_rules import check_system_prompt_text
from lsp_server.tokens.pi import pi_text_tokens

CODE = "prompt/volatile-content"


def volatile(text: str, path: str = "/p/AGENTS.md", profile: str = "pi") -> list[tuple[int, int, int, str]]:
    findings = check_context_text(path, text, profile)  # type: ignore[arg-type]
    return [(f.range.start.line, f.range.start.column, f.range.end.column, f.message) for f in findings
            if f.code == CODE]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "what", "matched"),
    [
        ("Today is Tuesday.", "today's date", "Today is"),
        ("Generated: 2026-12-01 by docs.sh", "a generated date", "Generated: 2026-12-01"),
        ("Last run 2026-12-01T23:29:00Z.", "a timestamp", "2026-12-01T23:29:00Z"),
        ("Snapshot of Dec 1, 2026, 23:29:05.", "a timestamp", "Dec 1, 2026, 23:29:05"),
        ("CI build #4711 passed.", "a build number", "build #4711"),
        ("Deployed commit 3f2a9c1d to staging.", "a commit hash", "commit 3f2a9c1d"),
        ("Logs: /tmp/pi-run-8731/out.log", "a temporary folder's path", "/tmp/pi-run-8731/out.log"),
        ("Cache in /var/folders/xy/T/build-1", "a temporary folder's path", "/var/folders/xy/T/build-1"),
    ],
)
def test_volatile_content_is_a_hint_naming_what_it_found(line: str, what: str, matched: str) -> None:
    ((row, start, end, message),) = volatile(f"# Rules\n{line}\nUse tabs.\n")
    assert (row, line[start:end]) == (1, matched)
    assert message.startswith(f"{what} '{matched}' may change between sessions")


def test_stable_text_is_not_reported() -> None:
    text = "# Rules\nReleased 2023-05-01 as v2.\nWrite dates as YYYY-MM-DD.\nRun the suite at 10:30.\nSee /usr/tmp.\n"
    assert volatile(text) == []


def test_the_finding_counts_the_tokens_after_it_in_the_file() -> None:
    text = "Generated: 2026-12-01\n" + "x" * 399 + "\n"
    ((_, _, end, message),) = volatile(text)
    after = pi_text_tokens(text[end:])
    assert f"the {after:,} tokens after it here, and the later context files, the skills and the cwd" in message


def test_in_system_md_everything_after_the_preamble_misses_the_cache() -> None:
    findings = check_system_prompt_text("/p/.pi/SYSTEM.md", "You are a bot. Today is Monday.\n")
    (finding,) = [f for f in findings if f.code == CODE]
    assert "every section after the preamble (the whole prompt)" in finding.message
    assert finding.data["tokensAfter"] == pi_text_tokens(" Monday.\n")


def test_it_is_a_hint_in_every_profile() -> None:
    for row in PROFILE_TABLE:
        findings = check_context_text("/p/AGENTS.md", "Today is Monday.\n", row.id)
        assert [f.severity for f in findings if f.code == CODE] == [Severity.HINT], row.id


def test_one_finding_per_line_and_at_most_twenty_per_file() -> None:
    assert len(volatile("Today is 2026-12-01T10:00:00Z, build #3\n")) == 1
    assert len(volatile("Today is Monday.\n" * 50)) == 20
