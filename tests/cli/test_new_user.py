"""What a new user ran into (issue 12), as real ``pi-context`` subprocesses on real files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sessions" / "inventory-fix.jsonl"
SKILL = "---\nname: {name}\ndescription: Does {name} things.\n---\n"


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update({"HOME": str(cwd.parent / "home"), "PI_CODING_AGENT_DIR": str(cwd.parent / "agent")})
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def untrusted_project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    for folder, name in ((".pi/skills/a", "a"), (".agents/skills/b", "b")):
        (project / folder).mkdir(parents=True)
        (project / folder / "SKILL.md").write_text(SKILL.format(name=name), encoding="utf-8")
    (project / ".pi" / "SYSTEM.md").write_text("Be brief.\n", encoding="utf-8")
    return project


def test_the_untrusted_note_of_prompt_names_every_resource_it_leaves_out(tmp_path: Path) -> None:
    project = untrusted_project(tmp_path)
    result = run(project, "prompt", "--untrusted")
    assert result.returncode == 0, result.stderr
    assert "left out .pi/skills, .pi/SYSTEM.md, .agents/skills\n" in result.stderr


def test_session_says_when_it_counts_with_the_untrusted_prompt(tmp_path: Path) -> None:
    project = untrusted_project(tmp_path)
    session = project / "s.jsonl"
    shutil.copy(EXAMPLE, session)
    result = run(project, "session", "--untrusted", "--cwd", str(project), str(session))
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        "pi-context: the next request is counted with the untrusted project's prompt: project not trusted "
        "(trust override: the project is treated as untrusted): left out .pi/skills, .pi/SYSTEM.md, "
        ".agents/skills; trust the project in Pi or pass --trusted to count them\n"
    )
    trusted = run(project, "session", "--trusted", "--cwd", str(project), str(session))
    assert trusted.returncode == 0 and trusted.stderr == ""


def test_session_list_counts_only_lines_that_hold_an_entry(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    folder = project / "sessions"
    folder.mkdir(parents=True)
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    entries = len(lines) - 1
    broken = [lines[0], *lines[1:3], "not json\n", '{"cut": \n', "[1, 2]\n", "\n", *lines[3:]]
    (folder / "s.jsonl").write_text("".join(broken), encoding="utf-8")
    listed = run(project, "session", "--json", str(folder))
    assert listed.returncode == 0, listed.stderr
    assert [s["entryCount"] for s in json.loads(listed.stdout)["sessions"]] == [entries]
    shown = run(project, "session", "--json", str(folder / "s.jsonl"))
    assert json.loads(shown.stdout)["session"]["entryCount"] == entries  # the list and the file agree


def test_a_skill_md_that_is_a_directory_gets_a_finding(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".pi" / "skills" / "x" / "SKILL.md").mkdir(parents=True)
    result = run(project, "check")
    assert result.stdout == (
        ".pi/skills/x/SKILL.md:1:1: info skill/not-a-file 'SKILL.md' is a directory: Pi loads no skill from it\n"
    )


def test_a_yaml_error_counts_file_lines_in_its_position_and_its_message(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".pi" / "skills" / "y").mkdir(parents=True)
    (project / ".pi" / "skills" / "y" / "SKILL.md").write_text("---\nname: y\ndescription: [oops\n---\n")
    result = run(project, "check")
    (line,) = [line for line in result.stdout.splitlines() if "skill/yaml-error" in line]
    assert line.startswith(".pi/skills/y/SKILL.md:3:19: ") and line.endswith(" at line 3, column 19")


def test_every_tool_result_of_the_sample_answers_a_call(tmp_path: Path) -> None:
    result = run(tmp_path, "session", "--json", str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["session"]["problems"] == []


def test_session_reports_a_tool_result_that_answers_no_call_on_its_path(tmp_path: Path) -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if '"role":"toolResult"' in line)
    entry = json.loads(lines[number])
    entry["message"]["toolCallId"] = "toolu_nobody"
    lines[number] = json.dumps(entry, separators=(",", ":")) + "\n"
    session = tmp_path / "s.jsonl"
    session.write_text("".join(lines), encoding="utf-8")
    result = run(tmp_path, "session", "--json", str(session))
    assert json.loads(result.stdout)["session"]["problems"] == [
        {
            "line": number + 1,
            "code": "session/orphan-tool-result",
            "reason": "tool result for call 'toolu_nobody', which no tool call on this path made "
            "(the provider would reject the next request)",
            "severity": "warning",
        }
    ]


def test_make_example_help_prints_help_and_writes_nothing(tmp_path: Path) -> None:
    before = EXAMPLE.stat().st_mtime_ns
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "sessions" / "make_example.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.startswith("usage: make_example.py")
    assert EXAMPLE.stat().st_mtime_ns == before
