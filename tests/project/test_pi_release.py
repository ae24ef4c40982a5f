"""The lens follows the Pi installed for the project: the prompt's shape and the summary requests are its release's."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_server.compaction.operations import plan_compaction
from lsp_server.compaction.summarize import summary_prompts
from lsp_server.project.project import open_project
from lsp_server.project.prompt_state import build_prompt
from lsp_server.prompt.texts import EARLIER_TEXTS, OUR_TEXTS
from lsp_server.session.writer import load_for_append
from lsp_server.vocabulary.compaction import CompactionSettings
from lsp_server.vocabulary.pi_releases import rules_for
from tests.project.conftest import Project


def _installed(folder: Path, version: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "@earendil-works/pi-coding-agent", "version": version}
    (folder / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    return str(folder)


def _rules_bullets(text: str) -> list[str]:
    body = text.split("<rules>\n", 1)[1].split("\n</rules>", 1)[0]
    return [line[2:] for line in body.split("\n")]


def test_the_prompt_has_the_shape_of_the_installed_release(project: Project, tmp_path: Path) -> None:
    old = _installed(tmp_path / "pi-1.4.0", "1.4.0")
    new = _installed(tmp_path / "pi-1.6.0", "1.6.0")
    earlier = open_project(project.inputs(env={"HOME": str(project.home), "PI_PACKAGE_DIR": old}))
    newest = open_project(project.inputs(env={"HOME": str(project.home), "PI_PACKAGE_DIR": new}))
    assert earlier.pi_rules.basis == "1.4.0" and newest.pi_rules.basis == "1.6.0"
    old_rules = _rules_bullets(build_prompt(earlier).prompt.text)
    new_rules = _rules_bullets(build_prompt(newest).prompt.text)
    assert [g for g in old_rules if g in EARLIER_TEXTS.tools["edit"].guidelines] == list(
        EARLIER_TEXTS.tools["edit"].guidelines
    )  # four edit guidelines before Pi 1.5.0
    assert [g for g in new_rules if g in OUR_TEXTS.tools["edit"].guidelines] == list(OUR_TEXTS.tools["edit"].guidelines)
    assert EARLIER_TEXTS.tools_footer in build_prompt(earlier).prompt.text


def test_without_an_installed_pi_the_newest_release_is_followed(project: Project, tmp_path: Path) -> None:
    nowhere = open_project(project.inputs(env={"HOME": str(project.home), "PI_PACKAGE_DIR": str(tmp_path / "none")}))
    assert nowhere.pi_rules.basis == "1.6.0"


def _session(path: Path) -> Path:
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": str(path.parent)},
    ]
    parent = None
    for index, (role, content) in enumerate(
        [
            ("user", "first question " * 40),
            ("assistant", [{"type": "thinking", "thinking": "let me think " * 50}, {"type": "text", "text": "one"}]),
            ("user", "second question " * 40),
            ("assistant", [{"type": "text", "text": "two " * 40}]),
        ]
    ):
        message: dict[str, object] = {"role": role, "content": content, "timestamp": index}
        if role == "assistant":
            message.update(
                api="openai-completions",
                provider="p",
                model="m",
                stopReason="stop",
                usage={"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
            )
        entry_id = f"e{index}"
        lines.append(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2025-01-01T00:00:01.000Z",
             "message": message}
        )  # fmt: skip
        parent = entry_id
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_compactions_summary_request_reads_the_thinking_only_for_pi_before_1_2(tmp_path: Path) -> None:
    session = load_for_append(str(_session(tmp_path / "s.jsonl")))
    plan = plan_compaction(session, lambda model: CompactionSettings(True, 16384, 10))  # keep the last message
    assert not isinstance(plan, str)
    old = summary_prompts(plan.preparation, "focus", rules_for("1.0.3"))
    new = summary_prompts(plan.preparation, "focus", rules_for("1.6.0"))
    assert any("[Assistant thinking]: let me think" in prompt for prompt in old)
    assert not any("[Assistant thinking]" in prompt for prompt in new)
