"""``pi-context check`` as a user runs it: a real subprocess on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", "check", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def skill(root: Path, folder: str, text: str) -> None:
    path = root / ".pi" / "skills" / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


INVALID_NAME = "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"


def test_findings_are_printed_sorted_with_1_based_positions(tmp_path: Path) -> None:
    skill(tmp_path, "b", "---\nname: B\ndescription: d\n---\n")
    skill(tmp_path, "a", "---\nname: a--b\ndescription: d\n---\n")
    result = run(cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        ".pi/skills/a/SKILL.md:2:7: warning skill/name-consecutive-hyphens name must not contain consecutive hyphens",
        ".pi/skills/b/SKILL.md:2:7: warning skill/name-invalid-chars "
        "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
    ]
    assert "2 SKILL.md files, 0 context files checked (pi profile): 0 errors, 2 warnings" in result.stderr


def test_an_error_finding_exits_1(tmp_path: Path) -> None:
    skill(tmp_path, "a", "---\nname: a\n---\n")
    result = run(str(tmp_path), cwd=tmp_path)
    assert result.returncode == 1 and "skill/not-loaded" in result.stdout


def test_the_profile_changes_the_rules(tmp_path: Path) -> None:
    skill(tmp_path, "a", "---\nname: b\ndescription: d\n---\n")
    assert run(cwd=tmp_path).returncode == 0
    strict = run("--profile", "agentskills", cwd=tmp_path)
    assert strict.returncode == 1 and "Directory name 'a' must match skill name 'b'" in strict.stdout


def test_json_output(tmp_path: Path) -> None:
    skill(tmp_path, "a", "---\nname: A\ndescription: d\n---\n")
    findings = json.loads(run("--json", cwd=tmp_path).stdout)
    assert findings[0]["code"] == "skill/name-invalid-chars"
    assert findings[0]["range"] == {"start": {"line": 1, "column": 6}, "end": {"line": 1, "column": 7}}
    assert findings[0]["data"]["fix"] == "rename-skill"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run("--profile", "cursor", cwd=tmp_path).returncode == 2
    missing = run("nope", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr == "pi-context: nope: no such file or directory\n"


def test_hostile_files_never_produce_a_traceback(tmp_path: Path) -> None:
    skill(tmp_path, "big", "---\ndescription: big\n---\n" + "x" * (10 * 1024 * 1024))
    bad = tmp_path / ".pi" / "skills" / "bad" / "SKILL.md"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"---\ndescription: caf\xe9\n---\n")
    fifo = tmp_path / ".pi" / "skills" / "fifo" / "SKILL.md"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    (tmp_path / ".pi" / "skills" / "dir" / "SKILL.md").mkdir(parents=True)
    os.symlink(tmp_path, tmp_path / ".pi" / "skills" / "loop")
    os.mkfifo(tmp_path / "AGENTS.md")
    result = run(cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1  # the FIFO SKILL.md cannot be read
    assert "skill/invalid-utf8" in result.stdout and "skill/too-large" in result.stdout
    assert ".pi/skills/fifo/SKILL.md:1:1: error skill/unreadable" in result.stdout


def test_a_newline_in_a_skill_folder_name_cannot_forge_a_line_of_output(tmp_path: Path) -> None:
    forged = "x\n.pi/skills/ok/SKILL.md:1:1: error skill/forged all is lost\x1b[2K"
    skill(tmp_path, forged, "---\nname: B\ndescription: d\n---\n")
    result = run(cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert len(lines) == 1  # one finding (the invalid name), on one line
    assert lines[0].startswith(".pi/skills/x\\n.pi/skills/ok/SKILL.md:1:1: error skill/forged all is lost\\x1b[2K")
    assert lines[0].endswith("/SKILL.md:2:7: warning skill/name-invalid-chars " + INVALID_NAME)
    assert "\x1b" not in result.stdout


def test_the_settings_file_gives_the_profile_and_the_limits(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n" + "Keep it short.\n" * 8, encoding="utf-8")
    settings = tmp_path / "pi-context.json"
    settings.write_text(json.dumps({"ruleProfile": "agentskills", "limits": {"contextMaxBytes": 40}}))
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "check", str(tmp_path), "--settings", str(settings), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert [f["code"] for f in json.loads(done.stdout)] == ["context/too-large"]
    assert "(agentskills profile)" in done.stderr
