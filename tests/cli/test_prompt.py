"""``pi-context prompt`` as a user runs it: a real subprocess on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def project(tmp_path: Path) -> dict[str, Path]:
    cwd, agent, home = tmp_path / "proj", tmp_path / "agent", tmp_path / "home"
    for folder in (cwd / ".pi", agent, home):
        folder.mkdir(parents=True)
    (cwd / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")
    (cwd / ".pi" / "APPEND_SYSTEM.md").write_text("Answer in French.", encoding="utf-8")
    return {"cwd": cwd, "agent": agent, "home": home}


def _run(paths: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(paths["home"])}
    env.pop("PI_CODING_AGENT_DIR", None)
    command = [sys.executable, "-m", "lsp_server", "prompt", "--cwd", str(paths["cwd"])]
    command += ["--agent-dir", str(paths["agent"]), "--package-dir", "/opt/pi", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def _json(paths: dict[str, Path], *args: str) -> dict[str, Any]:
    result = _run(paths, "--json", *args)
    assert result.returncode == 0, result.stderr
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def test_prints_the_rendered_prompt(project: dict[str, Path]) -> None:
    result = _run(project, "--trusted")
    assert result.returncode == 0, result.stderr
    assert f'<project_instructions path="{project["cwd"] / "AGENTS.md"}">\nUse tabs.\n\n</project_instructions>' in (
        result.stdout
    )
    assert result.stdout.endswith(f"<cwd>\n{project['cwd']}\n</cwd>\n")


def test_json_lists_sections_with_sources_and_tokens(project: dict[str, Path]) -> None:
    out = _json(project, "--trusted")
    names = [s["name"] for s in out["sections"]]
    assert names == ["preamble", "tools", "rules", "docs", "addendum", "project_context", "cwd"]
    by_name = {s["name"]: s for s in out["sections"]}
    assert by_name["addendum"]["sources"] == [str(project["cwd"] / ".pi" / "APPEND_SYSTEM.md")]
    assert by_name["project_context"]["sources"] == [str(project["cwd"] / "AGENTS.md")]
    assert all(s["piTokens"] > 0 and s["tokens"] > 0 for s in out["sections"])
    assert out["total"]["piTokens"] >= max(s["piTokens"] for s in out["sections"])
    assert out["counter"] == {"name": "weighted:gpt", "exact": False}


def test_untrusted_project_files_are_left_out(project: dict[str, Path]) -> None:
    out = _json(project, "--untrusted")
    assert out["projectTrusted"] is False
    assert "addendum" not in [s["name"] for s in out["sections"]]


def test_tools_option_changes_the_tool_lines(project: dict[str, Path]) -> None:
    out = _json(project, "--tools", "read,grep")
    tools = next(s["text"] for s in out["sections"] if s["name"] == "tools")
    assert [line.split(":")[0] for line in tools.split("\n") if line.startswith("- ")] == ["- read", "- grep"]


def test_pi_estimator_counts_chars_over_four(project: dict[str, Path]) -> None:
    out = _json(project, "--estimator", "pi")
    assert all(s["tokens"] == s["piTokens"] for s in out["sections"])


def test_exact_estimator_for_claude_falls_back_with_a_note(project: dict[str, Path]) -> None:
    out = _json(project, "--estimator", "exact", "--family", "claude")
    assert out["counter"]["name"] == "weighted:claude"
    assert "no offline tokenizer" in out["counter"]["note"]


def test_an_untrusted_project_says_which_of_its_files_were_left_out(project: dict[str, Path]) -> None:
    result = _run(project, "--untrusted")
    assert result.returncode == 0, result.stderr
    assert "Answer in French." not in result.stdout
    assert "project not trusted" in result.stderr and ".pi/APPEND_SYSTEM.md" in result.stderr
    trusted = _run(project, "--trusted")
    assert "Answer in French." in trusted.stdout
    assert "project not trusted" not in trusted.stderr
