"""One resolution says whether a file is in the prompt, when and why; findings, hovers and lenses ask it.

The first test ties it to Pi itself: for every layout of the ``load_context_files`` oracle requests
(``tests/conformance/requests/``, answered by Pi 1.6.0 in ``golden/``: links between CLAUDE.md and
AGENTS.md, a folder's AGENTS.md linking to its parent's, AGENTS.md below the cwd and in a skill's
folder, lower-case names, worktrees, unreadable and special files), every candidate file on disk
is "sent with every request" exactly when Pi's answer lists it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from lsp_server.base.findings import Severity
from lsp_server.checks import check_workspace
from lsp_server.conformance.harness import materialize_fs
from lsp_server.prompt.inclusion import Inclusions
from lsp_server.rules.context_rules import check_context_file
from lsp_server.vocabulary.limits import Thresholds
from lsp_server.vocabulary.pi_files import CONTEXT_FILE_CANDIDATES

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"


def _layouts() -> list[Any]:
    requests = (CONFORMANCE / "requests" / "load_context_files.jsonl").read_text(encoding="utf-8").splitlines()
    goldens = (CONFORMANCE / "golden" / "load_context_files.jsonl").read_text(encoding="utf-8").splitlines()
    cases = []
    for request, golden in zip(requests, goldens, strict=True):
        req, answer = json.loads(request), json.loads(golden)
        if "env" in req or not answer["ok"]:
            continue  # ~ paths need the request's HOME; the other layouts cover the rule
        cases.append(pytest.param(req, [item["path"] for item in answer["result"]["contextFiles"]], id=req["name"]))
    return cases


@pytest.mark.parametrize(("request_", "pi_list"), _layouts())
def test_sent_with_every_request_is_exactly_pis_list(
    request_: dict[str, Any], pi_list: list[str], tmp_path: Path
) -> None:
    materialize_fs(request_["fs"], tmp_path)
    tmp = str(tmp_path)
    cwd, agent_dir = (request_[key].replace("${TMP}", tmp) for key in ("cwd", "agentDir"))
    places = Inclusions(cwd, agent_dir)
    on_disk = sorted(
        os.path.join(folder, name)
        for folder, dirs, files in os.walk(tmp)
        for name in (*files, *dirs)
        if name in CONTEXT_FILE_CANDIDATES
    )
    expected = [path.replace("${TMP}", tmp) for path in pi_list]
    paths = sorted({*on_disk, *expected})  # Pi's own spelling too (a cwd reached through a link)
    sent = sorted((places.context(path).position, path) for path in paths if places.context(path).sent)
    assert [path for _, path in sent] == expected


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


BIG = "# Rules\n\n" + "Write small functions and test them.\n" * 1200  # 44,409 bytes, 11,103 tokens (chars / 4)


def test_a_claude_md_linked_to_agents_md_is_counted_once(tmp_path: Path) -> None:
    """openai-agents-python's layout: CLAUDE.md -> AGENTS.md. Pi loads AGENTS.md once; the link gets nothing."""
    write(tmp_path / "AGENTS.md", BIG)
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    places = Inclusions(str(tmp_path), str(tmp_path / "agent"))
    link = places.context(str(tmp_path / "CLAUDE.md"))
    assert (link.kind, link.winner, link.sent) == ("same-file", str(tmp_path / "AGENTS.md"), False)
    findings = check_workspace([str(tmp_path)], inclusions=places).findings
    assert [(os.path.basename(f.path), f.code) for f in findings] == [
        ("AGENTS.md", "context/token-heavy"),
        ("AGENTS.md", "context/too-large"),
    ]
    assert all(f.message.endswith("; Pi sends it with every request") for f in findings)


def test_a_regular_claude_md_beside_agents_md_is_ignored_and_never_said_to_be_sent(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "# Rules\n")
    claude = write(tmp_path / "CLAUDE.md", BIG)
    places = Inclusions(str(tmp_path), str(tmp_path / "agent"))
    findings = check_context_file(str(claude), inclusions=places)
    assert [(f.code, f.message) for f in findings] == [
        ("context/shadowed", "Pi ignores this file: AGENTS.md in the same folder is used instead")
    ]


def test_agents_md_in_a_skill_folder_is_not_sent_with_every_request(tmp_path: Path) -> None:
    """vercel-labs/agent-skills' layout: skills/<name>/{SKILL.md, AGENTS.md} checked from the repository root."""
    write(tmp_path / "skills" / "react" / "SKILL.md", "---\nname: react\ndescription: React rules.\n---\n")
    guide = write(tmp_path / "skills" / "react" / "AGENTS.md", BIG)
    places = Inclusions(str(tmp_path), str(tmp_path / "agent"))
    place = places.context(str(guide))
    assert (place.kind, place.skill_folder, place.sent) == ("started-there", str(guide.parent), False)
    findings = check_workspace([str(tmp_path)], inclusions=places).findings
    assert [(f.code, f.severity, f.message) for f in findings] == [
        (
            "context/token-heavy",
            Severity.INFORMATION,
            "context file is about 11103 tokens (limit 8000); Pi sends it with every request only when started in "
            "skills/react or below (it is not in the cwd or a parent of it); using the skill does not send it",
        ),
        (
            "context/too-large",
            Severity.INFORMATION,  # a warning for a file Pi sends; Pi sends this one only when started there
            "context file is 44409 bytes (limit 32768); Pi sends it with every request only when started in "
            "skills/react or below (it is not in the cwd or a parent of it); using the skill does not send it",
        ),
    ]
    # Checked from the skill's own folder, it is that project's context file: sent with every request.
    inside = check_workspace([str(guide.parent)], inclusions=Inclusions(str(guide.parent), str(tmp_path / "a")))
    assert [(f.code, f.severity) for f in inside.findings] == [
        ("context/token-heavy", Severity.INFORMATION),
        ("context/too-large", Severity.WARNING),
    ]


def test_a_package_agents_md_below_the_cwd_keeps_its_severity_and_says_when_it_is_sent(tmp_path: Path) -> None:
    package = write(tmp_path / "packages" / "web" / "AGENTS.md", BIG)
    places = Inclusions(str(tmp_path), str(tmp_path / "agent"))
    (too_large,) = [f for f in check_context_file(str(package), inclusions=places) if f.code == "context/too-large"]
    assert too_large.severity == Severity.WARNING
    assert too_large.message.endswith(
        "; Pi sends it with every request only when started in packages/web or below (it is not in the cwd or a "
        "parent of it)"
    )


def test_a_folder_file_linked_to_its_parents_file_is_sent_twice_and_checked_once(tmp_path: Path) -> None:
    """Pi compares paths, not files: started in pkg it sends the root AGENTS.md twice (oracle-checked above)."""
    root = write(tmp_path / "AGENTS.md", BIG)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "AGENTS.md").symlink_to("../AGENTS.md")
    places = Inclusions(str(tmp_path / "pkg"), str(tmp_path / "agent"))
    assert places.context(str(root)).clause() == (
        "Pi sends it with every request, twice: it is the same file as AGENTS.md, which Pi also sends"
    )
    findings = check_workspace([str(tmp_path)], inclusions=places).findings
    assert {f.path for f in findings} == {str(root)}  # the link's target counted once


def test_secrets_say_when_pi_sends_them(tmp_path: Path) -> None:
    key = "AKIAIOSFODNN7EXAMPLF"  # AWS's documented shape, not a real key
    write(tmp_path / "AGENTS.md", f"Deploy with {key}.\n")
    write(tmp_path / "docs" / "AGENTS.md", f"Deploy with {key}.\n")
    write(
        tmp_path / ".agents" / "skills" / "deploy" / "SKILL.md",
        f"---\nname: deploy\ndescription: Deploys with {key}.\n---\n\nRun it with {key}.\n",
    )
    findings = check_workspace([str(tmp_path)], inclusions=Inclusions(str(tmp_path), str(tmp_path / "a"))).findings
    secrets = [(os.path.relpath(f.path, tmp_path), f.range.start.line, f.message) for f in findings]
    assert secrets == [
        (
            ".agents/skills/deploy/SKILL.md",
            2,
            "possible AWS Access Key: Pi sends it with every request (the skill's name and description are in the "
            "skills listing); move the secret to an environment variable",
        ),
        (
            ".agents/skills/deploy/SKILL.md",
            5,
            "possible AWS Access Key: Pi sends it only when the skill is used; move the secret to an environment "
            "variable",
        ),
        (
            "AGENTS.md",
            0,
            "possible AWS Access Key: Pi sends it with every request; move the secret to an environment variable",
        ),
        (
            "docs/AGENTS.md",
            0,
            "possible AWS Access Key: Pi sends it with every request only when started in docs or below (it is not "
            "in the cwd or a parent of it); move the secret to an environment variable",
        ),
    ]


def test_a_hidden_skills_secret_is_sent_only_when_invoked(tmp_path: Path) -> None:
    key = "AKIAIOSFODNN7EXAMPLF"
    write(
        tmp_path / "s" / "SKILL.md",
        f"---\nname: s\ndescription: Uses {key}.\ndisable-model-invocation: true\n---\n",
    )
    (finding,) = check_workspace([str(tmp_path)], thresholds=Thresholds()).findings
    assert finding.message.startswith(
        "possible AWS Access Key: Pi sends it only when the skill is invoked as /skill:s (disable-model-invocation "
        "keeps the skill out of the listing)"
    )


def test_a_shadowed_file_is_not_said_to_reach_the_model(tmp_path: Path) -> None:
    """Pi never reads a CLAUDE.md beside an AGENTS.md: no 'the model receives' finding on it in the pi profile."""
    write(tmp_path / "AGENTS.md", "# Rules\n")
    claude = write(tmp_path / "CLAUDE.md", "Built on 2026-01-02.\n</project_context>\nzero\u200bwidth\n")
    places = Inclusions(str(tmp_path), str(tmp_path / "agent"))
    assert [f.code for f in check_context_file(str(claude), inclusions=places)] == ["context/shadowed"]
    other = [f.code for f in check_context_file(str(claude), "claude-code", inclusions=places)]
    assert "prompt/forged-tag" in other and "prompt/invisible-characters" in other  # Claude Code reads CLAUDE.md
