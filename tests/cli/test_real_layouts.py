"""Issue 22: what ``pi-context`` said on real public repositories, reproduced on layouts of the same shape.

Each test builds, in a temporary folder, the layout one repository has (our own files, same shape:
a CLAUDE.md linked to AGENTS.md as in openai-agents-python, compiled AGENTS.md files in skill
folders as in vercel-labs/agent-skills, test fixtures broken on purpose as in pi-mono, reference
files in ``.agents/skills`` folders), runs the real CLI in a subprocess and checks every line it
prints. ``tests/corpus/test_public_repositories.py`` runs the same on the snapshots themselves.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sessions" / "inventory-fix.jsonl"
BIG = "# Rules\n\n" + "Run the tests before every commit, and keep the changes small.\n" * 600  # 37,809 bytes


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update({"HOME": str(cwd.parent / "home"), "PI_CODING_AGENT_DIR": str(cwd.parent / "agent")})
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill(name: str, body: str = "") -> str:
    return f"---\nname: {name}\ndescription: Does {name} things.\n---\n\n# {name}\n{body}"


def test_a_claude_md_linked_to_agents_md_is_reported_once_and_loose_candidates_are_named(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / "AGENTS.md", BIG)
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    for name in ("docs-sync", "final-review"):
        write(repo / ".agents" / "skills" / name / "SKILL.md", skill(name))
        write(repo / ".agents" / "skills" / name / "references" / "checklist.md", "# Checklist\n\n- one\n")
    result = run(repo, "check")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "AGENTS.md:1:1: info context/token-heavy context file is about 9453 tokens (limit 8000); Pi sends it with "
        "every request",
        "AGENTS.md:1:1: warning context/too-large context file is 37809 bytes (limit 32768); Pi sends it with every "
        "request",
    ]
    assert result.stderr == (
        "2 SKILL.md files, 2 loose .md candidates in skills folders (none has a description, so Pi loads none as a "
        "skill), 2 context files checked (pi profile): 0 errors, 1 warning, 1 info, 0 hints\n"
    )
    prompt = run(repo, "prompt", "--json")
    (context,) = [section for section in json.loads(prompt.stdout)["sections"] if section["name"] == "project_context"]
    assert context["sources"] == [str(repo / "AGENTS.md")]  # the prompt agrees: AGENTS.md, once


def test_agents_md_files_in_skill_folders_are_not_called_sent_with_every_request(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / "skills" / "react" / "SKILL.md", skill("react", "Read AGENTS.md for every rule.\n"))
    write(repo / "skills" / "react" / "AGENTS.md", BIG + "\nSee [the rule](./rules/missing.md).\n")
    result = run(repo, "check")
    assert result.returncode == 0, result.stderr
    when = (
        "Pi sends it with every request only when started in skills/react or below (it is not in the cwd or a "
        "parent of it); using the skill does not send it"
    )
    assert result.stdout.splitlines() == [
        f"skills/react/AGENTS.md:1:1: info context/token-heavy context file is about 9462 tokens (limit 8000); {when}",
        f"skills/react/AGENTS.md:1:1: info context/too-large context file is 37846 bytes (limit 32768); {when}",
        "skills/react/AGENTS.md:604:16: warning context/missing-reference referenced file './rules/missing.md' does "
        "not exist",
    ]
    started_there = run(repo / "skills" / "react", "check")
    assert "warning context/too-large context file is 37846 bytes (limit 32768); Pi sends it with every request\n" in (
        started_there.stdout
    )


def test_a_secret_in_a_skill_body_says_it_is_sent_only_when_the_skill_is_used(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    token = "ghp_" + "Zq7mW2xK9pL4vR8tY3nB6cJ1hF5dG0sA2eU7"  # GitHub's shape, made up
    write(repo / "skills" / "pdf" / "SKILL.md", skill("pdf", f"\n```bash\nexport GH_TOKEN={token}\n```\n"))
    result = run(repo, "check")
    assert result.stdout == (
        "skills/pdf/SKILL.md:9:17: warning prompt/secret possible GitHub Token: Pi sends it only when the skill is "
        "used; move the secret to an environment variable\n"
    )


def fixtures_repo(tmp_path: Path) -> Path:
    """pi-mono's shape: skills broken on purpose under packages/coding-agent/test/fixtures."""
    repo = tmp_path / "repo"
    write(repo / "AGENTS.md", "# Monorepo\n\nUse npm workspaces.\n")
    fixtures = repo / "packages" / "coding-agent" / "test" / "fixtures" / "skills"
    write(fixtures / "missing-description" / "SKILL.md", "---\nname: missing-description\n---\n\n# Broken\n")
    write(fixtures / "long-name" / "SKILL.md", f"---\nname: {'x' * 70}\ndescription: Too long a name.\n---\n")
    write(repo / ".pi" / "skills" / "release" / "SKILL.md", skill("release"))
    return repo


def test_findings_in_test_fixtures_are_explained_and_do_not_fail_the_check(tmp_path: Path) -> None:
    repo = fixtures_repo(tmp_path)
    result = run(repo, "check")
    assert result.returncode == 0, result.stdout + result.stderr
    note = "[test fixture (packages/coding-agent/test/fixtures): {} lowered to info]"
    prefix = "packages/coding-agent/test/fixtures/skills"
    assert result.stdout.splitlines() == [
        f"{prefix}/long-name/SKILL.md:2:7: info skill/name-too-long name exceeds 64 characters (70) "
        + note.format("warning"),
        f"{prefix}/missing-description/SKILL.md:1:1: info skill/description-missing description is required "
        + note.format("warning"),
        f"{prefix}/missing-description/SKILL.md:1:1: info skill/not-loaded Pi does not load this skill: the "
        "description is missing " + note.format("error"),
    ]
    assert result.stderr.endswith(
        "0 errors, 0 warnings, 3 info, 0 hints; 3 findings in test fixtures lowered to info (see [test fixture] in "
        "each)\n"
    )
    as_json = json.loads(run(repo, "check", "--json").stdout)
    assert as_json[2]["severity"] == "info" and as_json[2]["data"] == {
        "fixture": "packages/coding-agent/test/fixtures",
        "severity": "error",
    }
    # Checking the fixture folder itself reports them as they are.
    inside = run(repo / "packages" / "coding-agent" / "test" / "fixtures", "check")
    assert inside.returncode == 1 and "error skill/not-loaded" in inside.stdout


@pytest.mark.parametrize("pattern", ["fixtures", "packages/*/test/fixtures", "**/test"])
def test_exclude_leaves_paths_out(tmp_path: Path, pattern: str) -> None:
    repo = fixtures_repo(tmp_path)
    result = run(repo, "check", "--exclude", pattern)
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr.startswith("1 SKILL.md file, 1 context file checked")


def test_the_settings_exclude_and_fixture_folders(tmp_path: Path) -> None:
    repo = fixtures_repo(tmp_path)
    settings = write(tmp_path / "settings.json", json.dumps({"check": {"exclude": ["long-name"]}}))
    excluded = run(repo, "check", "--settings", str(settings))
    assert [line.split(":")[0].rsplit("/", 2)[-2] for line in excluded.stdout.splitlines()] == [
        "missing-description",
        "missing-description",
    ]
    strict = write(tmp_path / "strict.json", json.dumps({"check": {"fixtureFolders": []}}))
    failing = run(repo, "check", "--settings", str(strict))
    assert failing.returncode == 1 and "[test fixture" not in failing.stdout


def test_a_named_file_that_is_no_skill_is_not_counted_as_one(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / "README.md", "# A project\n")
    result = run(repo, "check", "README.md")
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == (
        f"pi-context: {repo / 'README.md'}: not checked: not a SKILL.md, context or system prompt file, and no "
        "frontmatter (not a skill)\n"
        "0 SKILL.md files, 0 context files checked (pi profile): 0 errors, 0 warnings, 0 info, 0 hints\n"
    )


def test_check_json_documents_its_0_based_ranges(tmp_path: Path) -> None:
    assert "0-based lines and columns (the text output is 1-based)" in " ".join(
        run(tmp_path, "check", "-h").stdout.split()
    )


def test_errors_have_one_style_and_documented_statuses(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    not_a_session = write(project / "notes.jsonl", '{"hello": 1}\n')
    cases = [
        (("prompt", "--cwd", "/nope"), 2, "pi-context: /nope: no such folder (--cwd)\n"),
        (("prompt", "--cwd", str(not_a_session)), 2, f"pi-context: {not_a_session}: not a folder (--cwd)\n"),
        (("session", "--list", "--cwd", "/nope"), 2, "pi-context: /nope: no such folder (--cwd)\n"),
        (("check", "nope"), 2, "pi-context: nope: no such file or directory\n"),
        (("session", "gone.jsonl"), 2, f"pi-context: {project / 'gone.jsonl'}: no such file or directory\n"),
        (("compact", "gone.jsonl"), 2, "pi-context: gone.jsonl: no such file or directory\n"),
        (
            ("session", str(not_a_session)),
            1,
            f"pi-context: {not_a_session}: not a valid Pi session\n",
        ),
        (("compact", str(not_a_session)), 1, f"pi-context: {not_a_session}: not a valid Pi session\n"),
    ]
    for args, status, stderr in cases:
        result = run(project, *args)
        assert (result.returncode, result.stderr, result.stdout) == (status, stderr, ""), args


def test_session_says_which_folder_stands_for_a_missing_cwd(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    session = project / "s.jsonl"
    shutil.copy(EXAMPLE, session)  # its cwd /home/dev/inventory does not exist here
    note = (
        f"Workspace  {project}\n  the session's cwd /home/dev/inventory does not exist here; using {project}: its "
        "prompt, settings and models.json stand for the session's project; pass --cwd DIR to name the project\n\n"
    )
    for args in ((), ("--costs",)):
        result = run(project, "session", str(session), *args)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(note + ("Costs  " if args else "Session  "))
    named = run(project, "session", str(session), "--cwd", str(project))
    assert named.stdout.startswith("Session  ")


def test_the_estimators_fallback_is_in_the_text_output(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    result = run(project, "session", str(EXAMPLE), "--estimator", "exact", "--cwd", str(project))
    assert "\n  note: no offline tokenizer for 'claude' (exact counts exist for: " in result.stdout
    assert "using the weighted 'claude' estimate\n" in result.stdout
