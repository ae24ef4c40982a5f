"""What the chat learns from a real Pi release at start: its capabilities in the wire form the view reads.

Shared by ``vscode-extension/scripts/record_capabilities.py`` (which writes one fixture per release
for the view's unit tests) and ``tests/pi_rpc/test_real_capabilities.py`` (which fails when a fixture
is no longer what the release answers).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from lsp_server.pi_rpc import PiRpcProcess
from lsp_server.pi_rpc.capabilities import detect
from lsp_server.vocabulary.pi_releases import rules_for
from tests.support.fake_llm_server import FakeLlmServer
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_for_tests import PiUnderTest

FIXTURES = Path(__file__).resolve().parents[2] / "vscode-extension" / "test" / "fixtures" / "chat" / "capabilities"


STAND_IN = Path(__file__).with_name("fake_pi_rpc.py")


async def capabilities_at_start(pi: PiUnderTest, *, as_version: str | None = None) -> dict[str, Any]:
    """``pi/chat/start``'s ``capabilities`` for a new chat on ``pi`` (before any event corrects them).

    ``as_version``: the version ``pi --version`` would have printed, for the answer a newer release gets.
    """
    with tempfile.TemporaryDirectory() as tmp, FakeLlmServer() as model:
        agent = write_agent_dir(Path(tmp) / "agent", model.openai_base_url)
        workspace = Path(tmp) / "workspace"
        workspace.mkdir()
        process = await PiRpcProcess.start(
            pi.argv, cwd=workspace, env=agent.env(), provider=agent.provider, model=agent.model
        )
        try:
            return await _wire(process, as_version or pi.version)
        finally:
            await process.close()


async def stand_in_capabilities(version: str) -> dict[str, Any]:
    """The answer for the stand-in peer (a Pi whose RPC lacks every probed command), as Pi ``version``."""
    process = await PiRpcProcess.start([sys.executable, str(STAND_IN)], cwd=Path.cwd(), env=os.environ)
    try:
        return await _wire(process, version)
    finally:
        await process.close()


async def _wire(process: PiRpcProcess, version: str) -> dict[str, Any]:
    found = await detect(process, version, process.initial_state)
    note = rules_for(version).note
    wire = found.to_json()
    return {**wire, "note": note} if note else wire


def fixture_path(version: str) -> Path:
    return FIXTURES / f"{version}.json"
