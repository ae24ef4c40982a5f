"""``pi-context check`` on real public repositories: every finding, exactly, and nothing else (issue 22).

Four repositories people really keep skills and context files in, each pinned to one commit:
anthropics/skills, vercel-labs/agent-skills, openai/openai-agents-python and badlogic/pi-mono. None of
their files is in this repository: each test extracts the pinned commit at test time from a read-only
git snapshot (``git archive``), found under ``$PI_CONTEXT_CORPUS_DIR`` (default ``/work/.mirror``, where
this machine keeps them as ``<owner>+<name>/repo``), runs the real CLI from the repository's root as a new
user would, and compares every line of its output. Without the snapshot (a fresh clone, CI) the tests
skip with the reason: the snapshots are not something a clean checkout can fetch.

What each repository's findings mean, and which a maintainer would take, is in the docstring of its
expected list below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

CORPUS: Final = Path(os.environ.get("PI_CONTEXT_CORPUS_DIR") or "/work/.mirror")


def snapshot(tmp_path_factory: pytest.TempPathFactory, name: str, commit: str) -> Path:
    """The repository ``name`` at ``commit``, extracted into a fresh folder (skips when the snapshot is absent)."""
    git_dir = CORPUS / name / "repo"
    if not git_dir.is_dir():
        pytest.skip(f"no snapshot of {name} at {git_dir} (set PI_CONTEXT_CORPUS_DIR to a folder of snapshots)")
    known = subprocess.run(["git", "-C", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"], check=False)
    if known.returncode != 0:
        pytest.skip(f"the snapshot of {name} does not hold commit {commit}")
    target = tmp_path_factory.mktemp(name.replace("+", "-"))
    archive = subprocess.run(["git", "-C", str(git_dir), "archive", commit], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a new user runs it: no Pi installed, an empty home and agent dir."""
    home = cwd.parent / f"{cwd.name}-home"
    (home / ".pi" / "agent").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update({"HOME": str(home), "PI_PACKAGE_DIR": str(home / "no-pi")})
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_anthropics_skills(tmp_path_factory: pytest.TempPathFactory) -> None:
    """All three are true. Accepted: the 1,068-character description (over the spec's 1,024, which other agents
    enforce), the two 570- and 585-line bodies (the spec's recommendation; info). The pdf skill's
    ``--password=mypassword`` is a placeholder in a code example, not a secret: the placeholder rule (issue 22
    item 3) drops it, and nothing is reported for it."""
    repo = snapshot(tmp_path_factory, "anthropics+skills", "9d2f1ae187231d8199c64b5b762e1bdf2244733d")
    result = run(repo, "check", ".")
    expected = [
        "skills/claude-api/SKILL.md:3:14: warning skill/description-too-long description exceeds 1024 characters "
        "(1068)",
        "skills/claude-api/SKILL.md:509:1: info skill/body-too-long SKILL.md body has 570 lines; keep it under 500 "
        "(move details to referenced files)",
        "skills/docx/SKILL.md:506:1: info skill/body-too-long SKILL.md body has 585 lines; keep it under 500 (move "
        "details to referenced files)",
    ]
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected
    assert result.stderr == (
        "18 SKILL.md files, 0 context files checked (pi profile): 0 errors, 1 warning, 2 info, 0 hints\n"
    )


def test_vercel_labs_agent_skills(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Accepted: the three broken links in the compiled react-best-practices/AGENTS.md (the rule files are not
    there). The size findings of the compiled AGENTS.md files are information: they sit in skill folders, so Pi
    sends them only when started there, and using the skill does not send them. The root CLAUDE.md is a link to
    AGENTS.md: no finding of its own."""
    repo = snapshot(tmp_path_factory, "vercel-labs+agent-skills", "b9c8ee0643d87d3c5a953d1e22382ff2ead39229")
    result = run(repo, "check", ".")

    def below(folder: str) -> str:
        return (
            f"Pi sends it with every request only when started in skills/{folder} or below (it is not in the cwd or a "
            "parent of it); using the skill does not send it"
        )

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "skills/react-best-practices/AGENTS.md:1:1: info context/token-heavy context file is about 27053 tokens "
        f"(limit 8000); {below('react-best-practices')}",
        "skills/react-best-practices/AGENTS.md:1:1: info context/too-large context file is 108261 bytes (limit "
        f"32768); {below('react-best-practices')}",
        "skills/react-best-practices/AGENTS.md:116:56: warning context/missing-reference referenced file "
        "'./async-defer-await.md' does not exist",
        "skills/react-best-practices/AGENTS.md:219:138: warning context/missing-reference referenced file "
        "'./async-cheap-condition-before-await.md' does not exist",
        "skills/react-best-practices/AGENTS.md:892:70: warning context/missing-reference referenced file "
        "'./server-hoist-static-io.md' does not exist",
        "skills/react-native-skills/AGENTS.md:1:1: info context/token-heavy context file is about 18418 tokens "
        f"(limit 8000); {below('react-native-skills')}",
        "skills/react-native-skills/AGENTS.md:1:1: info context/too-large context file is 73771 bytes (limit "
        f"32768); {below('react-native-skills')}",
        "skills/react-view-transitions/AGENTS.md:1:1: info context/token-heavy context file is about 8046 tokens "
        f"(limit 8000); {below('react-view-transitions')}",
    ]
    assert result.stderr == (
        "7 SKILL.md files, 6 context files checked (pi profile): 0 errors, 3 warnings, 5 info, 0 hints\n"
    )
    assert prompt_context_sources(repo) == [str(repo / "AGENTS.md")]


def test_openai_agents_python(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Accepted: AGENTS.md is 34,566 bytes, over Codex's 32 KiB project_doc_max_bytes (Codex cuts it there), and
    about 8,639 tokens in every request. CLAUDE.md links to it: Pi loads AGENTS.md once, and so does the check.
    The nine loose .md candidates are reference files in .agents/skills folders without a SKILL.md; the
    summary names them as such."""
    repo = snapshot(tmp_path_factory, "openai+openai-agents-python", "7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7")
    result = run(repo, "check", ".")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "AGENTS.md:1:1: info context/token-heavy context file is about 8639 tokens (limit 8000); Pi sends it with "
        "every request",
        "AGENTS.md:1:1: warning context/too-large context file is 34566 bytes (limit 32768); Pi sends it with every "
        "request",
    ]
    assert result.stderr == (
        "18 SKILL.md files, 9 loose .md candidates in skills folders (none has a description, so Pi loads none as "
        "a skill), 2 context files checked (pi profile): 0 errors, 1 warning, 1 info, 0 hints\n"
    )
    assert prompt_context_sources(repo) == [str(repo / "AGENTS.md")]


def test_badlogic_pi_mono(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every finding is in packages/coding-agent/test/fixtures, skills broken on purpose for Pi's own tests: kept,
    lowered to info and marked, so the check passes at the root (exit 0). A maintainer keeps them (or passes
    --exclude fixtures). Nothing is reported elsewhere."""
    repo = snapshot(tmp_path_factory, "badlogic+pi-mono", "83378aad7e74a0e2bb8f37c007a9685fb4609d8a")
    result = run(repo, "check", ".")
    fixtures = "packages/coding-agent/test/fixtures"

    def marked(severity: str) -> str:
        return f"[test fixture ({fixtures}): {severity} lowered to info]"

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        f'{fixtures}/skills-collision/second/calendar/SKILL.md:2:7: info skill/collision name "calendar" '
        f"collision {marked('warning')}",
        f"{fixtures}/skills/consecutive-hyphens/SKILL.md:2:7: info skill/name-consecutive-hyphens name must not "
        f"contain consecutive hyphens {marked('warning')}",
        f"{fixtures}/skills/invalid-name-chars/SKILL.md:2:7: info skill/name-invalid-chars name contains invalid "
        f"characters (must be lowercase a-z, 0-9, hyphens only) {marked('warning')}",
        f"{fixtures}/skills/invalid-yaml/SKILL.md:1:1: info skill/not-loaded Pi does not load this skill: the "
        f"frontmatter is not valid YAML {marked('error')}",
        f"{fixtures}/skills/invalid-yaml/SKILL.md:3:31: info skill/yaml-error Flow sequence in block collection "
        f"must be sufficiently indented and end with a ] at line 3, column 31 {marked('warning')}",
        f"{fixtures}/skills/long-name/SKILL.md:2:7: info skill/name-too-long name exceeds 64 characters (94) "
        f"{marked('warning')}",
        f"{fixtures}/skills/missing-description/SKILL.md:1:1: info skill/description-missing description is "
        f"required {marked('warning')}",
        f"{fixtures}/skills/missing-description/SKILL.md:1:1: info skill/not-loaded Pi does not load this skill: "
        f"the description is missing {marked('error')}",
        f"{fixtures}/skills/no-frontmatter/SKILL.md:1:1: info skill/description-missing description is required "
        f"{marked('warning')}",
        f"{fixtures}/skills/no-frontmatter/SKILL.md:1:1: info skill/not-loaded Pi does not load this skill: the "
        f"description is missing {marked('error')}",
    ]
    assert result.stderr == (
        "17 SKILL.md files, 1 context file checked (pi profile): 0 errors, 0 warnings, 10 info, 0 hints; "
        "10 findings in test fixtures lowered to info (see [test fixture] in each)\n"
    )
    excluded = run(repo, "check", ".", "--exclude", "fixtures")
    assert (excluded.returncode, excluded.stdout) == (0, "")


def prompt_context_sources(repo: Path) -> list[str]:
    """The context files ``pi-context prompt`` puts in the prompt at the repository's root."""
    result = run(repo, "prompt", "--json")
    assert result.returncode == 0, result.stderr
    sections = json.loads(result.stdout)["sections"]
    return [source for section in sections if section["name"] == "project_context" for source in section["sources"]]
