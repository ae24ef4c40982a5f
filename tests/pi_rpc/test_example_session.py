"""The sample session with real costs (``examples/sessions/release-notes-fix.jsonl``), written by the real Pi 1.6.0.

Pi runs in a copy of ``examples/workspace`` with its ``anthropic`` provider pointed at the loopback model
server (models.json's ``baseUrl``, which also applies to the provider's built-in models), so the model is
``anthropic/claude-sonnet-4-5`` from Pi's own catalog and every ``usage.cost`` in the file is Pi's
``calculateCost`` at Pi's prices (the prices pi-context bundles too: ``session --costs`` needs no
installed Pi). The model's answers and token counts are scripted; the tools run for real in the workspace.

Each run compares the fresh recording with the committed example (every number; not the ids and instants
Pi draws anew, nor the machine's paths). ``PI_CONTEXT_REGEN=1`` writes a new example: Pi's own prose in
its system message replaced by stand-ins of the same length (``tests/support/pi_prose.py``), the
temporary workspace's path by :data:`CWD` and Pi's install folder by :data:`PI_HOME`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from lsp_server.cost.ledger import build_ledger
from lsp_server.cost.prices import PriceCatalog
from lsp_server.session.tail import load_session
from lsp_server.session.tree import build_path
from tests.pi_rpc.conftest import RealPi, settled
from tests.pi_rpc.test_real_costs import drawn_anew
from tests.support.fake_llm_server import ScriptedResponse
from tests.support.pi_prose import scrub_json_text

pytestmark = pytest.mark.pi

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "sessions" / "release-notes-fix.jsonl"
WORKSPACE = ROOT / "examples" / "workspace"
CWD = "/home/dev/example-project"
PI_HOME = "/usr/lib/node_modules/@earendil-works/pi-coding-agent"
SKILL = ".agents/skills/Release_Notes/SKILL.md"

# What the model answers, call by call, with the usage it reports (an Anthropic API: input is what was
# not read from the cache; the first request of each prompt writes it to the cache).
SCRIPT = (
    ScriptedResponse(
        text="Let me look at the skill.",
        tool_calls=[{"name": "read", "arguments": {"path": SKILL}, "id": "toolu_01"}],
        finish="tool",
        usage={"input": 4, "output": 62, "cacheRead": 0, "cacheWrite": 3180},
    ),
    ScriptedResponse(
        text="The skill's name is `Release_Notes`: capitals and an underscore, which Pi warns about. Its folder "
        "has the same name. Shall I rename both to `release-notes`?",
        usage={"input": 3, "output": 48, "cacheRead": 3180, "cacheWrite": 156},
    ),
    ScriptedResponse(
        text="Renaming the folder and the name.",
        tool_calls=[
            {
                "name": "bash",
                "arguments": {
                    "command": "mv .agents/skills/Release_Notes .agents/skills/release-notes && sed -i "
                    "'s/^name: Release_Notes$/name: release-notes/' .agents/skills/release-notes/SKILL.md"
                },
                "id": "toolu_02",
            }
        ],
        finish="tool",
        usage={"input": 3, "output": 97, "cacheRead": 3336, "cacheWrite": 64},
    ),
    ScriptedResponse(
        text="Done: the skill is now `release-notes`, in `.agents/skills/release-notes/`.",
        usage={"input": 3, "output": 24, "cacheRead": 3400, "cacheWrite": 121},
    ),
)
PROMPTS = ("Why does pi warn about the release notes skill?", "Yes, rename it.")


def make_portable(text: str, workspace: Path, package: Path) -> str:
    """The recording with the machine's paths replaced (the costs do not depend on them)."""
    return text.replace(str(workspace), CWD).replace(str(package), PI_HOME)


async def test_the_example_session_holds_the_costs_pi_recorded(real_pi: RealPi) -> None:
    shutil.rmtree(real_pi.workspace)
    shutil.copytree(WORKSPACE, real_pi.workspace)
    models = {"providers": {"anthropic": {"baseUrl": real_pi.model.anthropic_base_url, "apiKey": "dummy"}}}
    (real_pi.agent.path / "models.json").write_text(json.dumps(models), encoding="utf-8")
    real_pi.agent.write_settings({"defaultThinkingLevel": "off"})
    real_pi.model.enqueue(*SCRIPT)
    chat = await real_pi.start(provider="anthropic", model="claude-sonnet-4-5")
    for text in PROMPTS:
        since = chat.log.mark()
        await chat.process.prompt(text)
        await settled(chat.log, since)
    path = Path((await chat.process.get_state())["sessionFile"])
    assert (real_pi.workspace / ".agents" / "skills" / "release-notes" / "SKILL.md").is_file()  # the tool ran

    recorded = make_portable(path.read_text(encoding="utf-8"), real_pi.workspace, real_pi.pi.package)
    if os.environ.get("PI_CONTEXT_REGEN"):
        EXAMPLE.write_text(scrub_json_text(recorded, lines=True), encoding="utf-8")
    fresh, example = ledger_of(path), ledger_of(EXAMPLE)
    assert drawn_anew(fresh["turns"]) == drawn_anew(example["turns"])
    assert fresh["totals"] == example["totals"]
    turns = example["turns"]
    assert len(turns) == len(SCRIPT)
    assert all(turn["costSource"] == "recorded" and turn["cost"] > 0 for turn in turns)
    assert [turn["cost"] for turn in turns] == [turn["computedCost"] for turn in turns]  # Pi's arithmetic is ours


def ledger_of(path: Path) -> dict[str, Any]:
    session = load_session(path)
    branch = build_path(session.entries, by_id=session.index.by_id)
    return build_ledger(
        branch, PriceCatalog.for_agent_dir(str(path.parent), package_dir="/nonexistent").prices_for
    ).to_json()
