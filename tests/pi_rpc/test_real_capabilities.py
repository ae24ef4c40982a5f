"""What each real Pi release answers the chat's probes, and which events it writes (marker ``pi``).

One case per release of :data:`lsp_server.vocabulary.pi_releases.RELEASES`, each installed once
(tests/support/pi_for_tests.py; CI's matrix installs them all, ``.ci/run``). For each: every command
the chat probes is present, the features off are exactly the ones whose event field the release
lacks (pi_releases.CHANGES), the answer is the view's fixture for that release
(``vscode-extension/test/fixtures/chat/capabilities``), and a turn stopped in a tool call writes the
event fields the release has (``durationMs``, ``agent_settled.aborted``) and no others.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_server.pi_rpc.capabilities import EVENT_FIELDS, FEATURES, PROBES, detect
from lsp_server.session.novelty import CODE as NEWER
from lsp_server.session.tail import load_session
from lsp_server.vocabulary.pi_releases import RELEASES, rules_for
from tests.pi_rpc.conftest import Launcher
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_capabilities import fixture_path
from tests.support.pi_for_tests import require_test_pi

pytestmark = pytest.mark.pi

WAIT_S = 60.0


@pytest.mark.parametrize("version", [release.version for release in RELEASES])
async def test_a_release_answers_every_probe_and_lacks_only_its_event_fields(
    version: str, tmp_path: Path, launcher: Launcher
) -> None:
    pi = require_test_pi(version)
    with FakeLlmServer() as model:
        agent = write_agent_dir(tmp_path / "agent", model.openai_base_url)
        workspace = tmp_path / "workspace"
        workspace.mkdir()
        (workspace / "slow.sh").write_text("sleep 30\n")
        started = await launcher.start(
            pi.argv, cwd=workspace, env=agent.env(), provider=agent.provider, model=agent.model
        )
        state = started.process.initial_state
        assert state is not None
        found = await detect(started.process, pi.version, state)
        assert {name: found.command(name) for name in [*PROBES, "get_messages"]} == dict.fromkeys(
            [*PROBES, "get_messages"], "present"
        )
        rules = rules_for(pi.version)
        off = {f.id for f in FEATURES if not found.feature(f.id).available}
        assert off == {f.id for f in FEATURES if f.change is not None and rules.lacks(f.change)}
        assert found.conversation_problem() is None
        recorded = json.loads(fixture_path(version).read_text(encoding="utf-8"))
        assert found.to_json() == recorded, "run: python vscode-extension/scripts/record_capabilities.py"

        # A turn stopped while a tool runs: the events settle the fields as this release writes them.
        model.enqueue(ScriptedResponse(tool_call={"name": "bash", "arguments": {"command": "sh slow.sh"}}))
        events: list[dict[str, Any]] = started.log.events
        await started.process.prompt("run it")
        await started.log.wait_type("tool_execution_start")
        await started.process.abort()
        await started.log.wait_type("agent_settled", timeout=WAIT_S)
        for event in events:
            found.observe(event)
        settled = next(e for e in events if e.get("type") == "agent_settled")
        assert ("aborted" in settled) == rules.has("settled-aborted")
        ended = [e for e in events if e.get("type") == "tool_execution_end"]
        assert ended, "the stopped tool call ends with a result"
        assert all((EVENT_FIELDS["tool-durations"][1] in e) == rules.has("tool-durations") for e in ended)
        assert found.feature("tool-durations").available == rules.has("tool-durations")
        # What this release wrote is nothing new to the reader (no session/newer-pi: session/novelty.py).
        written = load_session((await started.process.get_state())["sessionFile"])
        assert written.is_session and [p for p in written.all_problems() if p.code == NEWER] == []
