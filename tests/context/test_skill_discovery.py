"""The resource loader's skill discovery against Pi's own answers.

Every ``load_resources`` request (``requests/load_resources*.jsonl``) is replayed through
:func:`discover_skills` with the settings files the request writes, and its skills and skill
diagnostics must equal Pi's (``golden/load_resources*.jsonl``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from lsp_server.conformance.compare import differences
from lsp_server.conformance.harness import map_strings, materialize_fs
from lsp_server.context.pi_settings import read_settings_layer
from lsp_server.context.skill_discovery import ancestor_agents_skill_dirs, collect_skill_entries, discover_skills

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"


def _cases() -> list[Any]:
    cases = []
    for request_file in sorted((CONFORMANCE / "requests").glob("load_resources*.jsonl")):
        golden_file = CONFORMANCE / "golden" / request_file.name
        requests = [json.loads(x) for x in request_file.read_text(encoding="utf-8").splitlines() if x.strip()]
        goldens = [json.loads(x) for x in golden_file.read_text(encoding="utf-8").splitlines() if x.strip()]
        for request, golden in zip(requests, goldens, strict=True):
            cases.append(pytest.param(request, golden, id=request["name"]))
    return cases


def _settings_skills(path: Path) -> list[str]:
    # Read as Pi does (BOM, old formats migrated, bad JSON ignored): the settings module's reader.
    return list(read_settings_layer(str(path), "global").settings.skills)


@pytest.mark.parametrize(("request_", "golden"), _cases())
def test_discovered_skills_match_pi(
    request_: dict[str, Any], golden: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp = str(tmp_path)
    materialize_fs(request_.get("fs") or {}, tmp_path)
    req = map_strings(request_, lambda s: s.replace("${TMP}", tmp))
    for key, value in (req.get("env") or {}).items():
        monkeypatch.setenv(key, value)
    cwd, agent_dir = req["cwd"], req["agentDir"]
    trusted = req.get("projectTrusted", True)
    found = discover_skills(
        cwd,
        agent_dir,
        home=os.environ.get("HOME"),
        project_trusted=trusted,
        project_skill_entries=_settings_skills(Path(cwd) / ".pi" / "settings.json"),
        global_skill_entries=_settings_skills(Path(agent_dir) / "settings.json"),
        cli_skill_paths=req.get("additionalSkillPaths") or [],
        no_skills=bool(req.get("noSkills")),
    )
    ours = map_strings(
        {"skills": found.skills_json(), "skillDiagnostics": found.diagnostics_json()},
        lambda s: s.replace(tmp, "${TMP}"),
    )
    expected = {"skills": golden["result"]["skills"], "skillDiagnostics": golden["result"]["skillDiagnostics"]}
    assert differences(expected, ours) == []


def test_agents_mode_counts_loose_md_only_below_the_root(tmp_path: Path) -> None:
    (tmp_path / "group").mkdir()
    (tmp_path / "top.md").write_text("x")
    (tmp_path / "group" / "notes.md").write_text("x")
    assert collect_skill_entries(str(tmp_path), "agents") == [str(tmp_path / "group" / "notes.md")]
    assert collect_skill_entries(str(tmp_path), "pi") == [str(tmp_path / "top.md")]


def test_ancestor_agents_dirs_stop_at_the_git_root(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "a").mkdir()
    dirs = ancestor_agents_skill_dirs(str(tmp_path / "repo" / "a"))
    assert dirs == [str(tmp_path / "repo" / "a" / ".agents" / "skills"), str(tmp_path / "repo" / ".agents" / "skills")]
