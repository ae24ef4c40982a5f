"""``prompt/volatile-content``: text that changes between sessions, with the tokens that miss the cache after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsp_server.base.findings import Severity
from lsp_server.js.strings import js_len
from lsp_server.project.project import ProjectInputs, open_project
from lsp_server.project.prompt_state import PromptSnapshot, build_prompt
from lsp_server.project.volatile import chars_after_files, place_volatile
from lsp_server.rules.context_rules import check_context_text
from lsp_server.rules.system_prompt_rules import check_system_prompt_text
from lsp_server.tokens.pi import pi_text_tokens, pi_tokens_for_chars
from lsp_server.vocabulary.profiles import PROFILE_TABLE

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


# --- counted in the assembled prompt (lsp_server.project.volatile) ----------------------------------


def _project(tmp_path: Path, files: dict[str, str]) -> PromptSnapshot:
    root, agent = tmp_path / "proj", tmp_path / "home" / ".pi" / "agent"
    agent.mkdir(parents=True)
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    inputs = ProjectInputs(
        cwd=str(root), agent_dir=str(agent), env={}, home=str(tmp_path / "home"), trust_override=True
    )
    return build_prompt(open_project(inputs))


def _tokens_after_in_prompt(prompt: str, marker: str) -> int:
    """Counted without our code: the prompt's text after the (unique) matched text."""
    assert prompt.count(marker) == 1
    return pi_tokens_for_chars(js_len(prompt[prompt.index(marker) + len(marker) :]))


SKILL = "---\nname: deploy\ndescription: Deploys the service to staging and production.\n---\nSteps.\n"


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_finding_counts_the_tokens_after_it_in_the_system_prompt(tmp_path: Path, newline: str) -> None:
    agents = newline.join(["# Rules", "Generated: 2026-12-01 by docs.sh", "Use tabs. " * 30, ""])
    snapshot = _project(tmp_path, {"AGENTS.md": agents, ".pi/skills/deploy/SKILL.md": SKILL})
    path = str(tmp_path / "proj" / "AGENTS.md")
    findings = check_context_text(path, agents)
    (placed,) = [f for f in place_volatile(findings, agents, chars_after_files(snapshot), "pi") if f.code == CODE]
    expected = _tokens_after_in_prompt(snapshot.prompt.text, "Generated: 2026-12-01")
    (in_file,) = [f for f in findings if f.code == CODE]
    assert placed.data["tokensAfter"] == expected > in_file.data["tokensAfter"]
    assert placed.data["counted"] == "prompt" and in_file.data["counted"] == "file"
    assert f"the {expected:,} tokens after it in the system prompt miss the prompt cache" in placed.message
    assert "<skill" not in agents and "deploy" in snapshot.prompt.text[snapshot.prompt.text.index("Generated") :]


def test_an_edited_buffer_is_counted_against_the_rest_of_the_last_build(tmp_path: Path) -> None:
    """The part after the file comes from the build, the part inside it from the text being checked."""
    files = {"AGENTS.md": "# Rules\nBe brief.\n", ".pi/APPEND_SYSTEM.md": "Today is Monday.\nx\n"}
    snapshot = _project(tmp_path, files)
    path = str(tmp_path / "proj" / ".pi" / "APPEND_SYSTEM.md")
    edited = "Today is Monday.\n" + "More words here. " * 20 + "\n"
    findings = check_system_prompt_text(path, edited)
    (placed,) = place_volatile(findings, edited, chars_after_files(snapshot), "pi")
    prompt = snapshot.prompt.text
    tail = js_len(prompt[prompt.index("Today is Monday.\nx\n") + len("Today is Monday.\nx\n") :])
    assert placed.data["tokensAfter"] == pi_tokens_for_chars(js_len(edited[len("Today is") :]) + tail)


def test_a_file_outside_the_prompt_keeps_the_count_within_the_file(tmp_path: Path) -> None:
    snapshot = _project(tmp_path, {"AGENTS.md": "# Rules\n"})
    other = str(tmp_path / "elsewhere" / "AGENTS.md")
    text = "Today is Monday.\nMore.\n"
    findings = check_context_text(other, text)
    assert place_volatile(findings, text, chars_after_files(snapshot), "pi") == findings
    assert "after it here" in findings[0].message
