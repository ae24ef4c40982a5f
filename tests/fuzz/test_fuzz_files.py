"""Generated skills, context files and settings through the domain and the CLI.

Frontmatter YAML (anchors, tags, flow collections closed and not, duplicate keys, odd scalars),
whole SKILL.md files (fences present, broken or absent; bodies with links, tags, invisible
characters), AGENTS.md files, Pi's ``settings.json`` and pi-context's settings, each through the
function that reads it and then through ``check --json`` and ``prompt --json`` on a workspace
that holds them all. No exception, valid JSON out, every finding inside its file, and every
input file byte-identical afterwards.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lsp_server.base.lenient import parse_json_text
from lsp_server.context.frontmatter import parse_frontmatter
from lsp_server.context.pi_settings import parse_settings_text
from lsp_server.rules.context_rules import check_context_text
from lsp_server.rules.skill_rules import check_skill_text
from lsp_server.settings.pi_context import parse_pi_context_settings
from lsp_server.vocabulary.profiles import PROFILES
from tests.fuzz._cli import environment, run_cli
from tests.fuzz._tier import cases, timed
from tests.fuzz.strategies import (
    PI_CONTEXT_KEYS,
    PI_SETTING_KEYS,
    context_texts,
    settings_texts,
    skill_texts,
    yaml_texts,
)

SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


@pytest.fixture(scope="module")
def home() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="pi-context-fuzz-", dir=SCRATCH) as folder:
        root = Path(folder)
        (root / "agent").mkdir()
        env = {"HOME": str(root), "PI_CODING_AGENT_DIR": str(root / "agent"), "PI_CONTEXT_STATE_DIR": str(root / "s")}
        with environment(env):
            yield root


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@given(text=yaml_texts())
@cases(default=60, fuzz=35_000)
def test_a_generated_frontmatter_parses_to_a_value_or_an_error(text: str) -> None:
    with timed("frontmatter: parse", text):
        parsed = parse_frontmatter("---\n" + text + "\n---\nbody")
    assert parsed is not None


@given(text=skill_texts(), profile=st.sampled_from(PROFILES))
@cases(default=60, fuzz=22_000)
def test_a_generated_skill_is_checked_with_findings_inside_the_file(text: str, profile: str) -> None:
    path = "/fuzz/skills/my-skill/SKILL.md"
    with timed("skill: check", text):
        check = check_skill_text(path, text, profile)  # type: ignore[arg-type]
    lines = text.count("\n") + text.count("\r") + 1
    for finding in check.findings:
        assert finding.code and finding.message
        assert 0 <= finding.range.start.line <= lines, (finding, lines)


@given(text=context_texts(), profile=st.sampled_from(PROFILES))
@cases(default=40, fuzz=10_000)
def test_a_generated_context_file_is_checked_without_an_exception(text: str, profile: str) -> None:
    with timed("context file: check", text):
        findings = check_context_text("/fuzz/AGENTS.md", text, profile)  # type: ignore[arg-type]
    assert all(f.code and f.message for f in findings)


@given(text=settings_texts(PI_SETTING_KEYS), scope=st.sampled_from(["global", "project"]))
@cases(default=40, fuzz=5_000)
def test_a_generated_pi_settings_file_is_a_layer_with_problems_not_an_exception(text: str, scope: str) -> None:
    with timed("Pi settings.json: parse", text):
        layer = parse_settings_text(text, "/fuzz/settings.json", scope)  # type: ignore[arg-type]
    assert all(p.message for p in layer.problems)


@given(text=settings_texts(PI_CONTEXT_KEYS))
@cases(default=40, fuzz=3_000)
def test_generated_pi_context_settings_fall_back_to_defaults_with_problems(text: str) -> None:
    with timed("pi-context settings: parse", text):
        loaded = parse_json_text(text, "/fuzz/pi-context.json")
        settings, problems = parse_pi_context_settings(loaded.value, "/fuzz/pi-context.json", text)
    assert settings is not None and all(p.message for p in problems)


@given(
    skill=skill_texts(),
    context=context_texts(),
    pi_settings=settings_texts(PI_SETTING_KEYS),
    ours=settings_texts(PI_CONTEXT_KEYS),
)
@cases(default=10, fuzz=1_500)
def test_check_and_prompt_answer_for_a_generated_workspace_and_leave_it_untouched(
    home: Path, skill: str, context: str, pi_settings: str, ours: str
) -> None:
    project = home / "project"
    shutil.rmtree(project, ignore_errors=True)
    files = {
        project / ".pi" / "skills" / "my-skill" / "SKILL.md": skill,
        project / "AGENTS.md": context,
        project / ".pi" / "settings.json": pi_settings,
        home / "pi-context.json": ours,
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_encode(text))
    before = {path: path.read_bytes() for path in files}
    with timed("cli: check --json + prompt --json", skill[:100] + " | " + pi_settings[:60]):
        checked = run_cli("check", str(project), "--json", "--settings", str(home / "pi-context.json"))
        prompted = run_cli(
            "prompt", "--json", "--trusted", "--cwd", str(project), "--settings", str(home / "pi-context.json")
        )
    assert checked.code in (0, 1), checked.err
    assert isinstance(checked.json(), (list, dict))
    assert prompted.code in (0, 1), prompted.err
    if prompted.code == 0:
        prompted.json()
    else:
        assert prompted.err.startswith("pi-context: ")
    assert {path: path.read_bytes() for path in files} == before
