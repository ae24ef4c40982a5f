"""Record real Pi event streams (1.6.0 unless told another release) for the chat view's unit tests (``test/fixtures/chat/*.jsonl``).

Each scenario runs the real Pi in RPC mode against the loopback fake model (``tests/support``), and
writes every record Pi emitted, in order, one per line, followed by a last line
``{"type": "recorded_messages", "messages": <get_messages>}`` so a test can check that folding the
events and rebuilding from ``pi/chat/messages`` give the same transcript. Paths, timestamps and ids
that vary per run are kept as Pi wrote them (the tests never compare them). Pi's own prose in the
system message it records (its built-in sections and tool descriptions) is replaced by stand-ins of
the same length (``tests/support/pi_prose.py``): Pi's text is not copied into the repository.

Run from the repository root: ``.venv/bin/python vscode-extension/scripts/record_chat_events.py [NAME...]``.
With ``PI_CONTEXT_PI_RELEASE=<version>`` another release records, into ``<NAME>-<version>.jsonl``
(``abort-batch-1.0.3.jsonl``: a release whose ``agent_settled`` does not say the run was aborted).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lsp_server.vocabulary.pi_releases import NEWEST  # noqa: E402
from lsp_server.pi_rpc import PiRpcProcess  # noqa: E402
from tests.pi_rpc.conftest import EventLog  # noqa: E402
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse  # noqa: E402
from tests.support.pi_agent import write_agent_dir  # noqa: E402
from tests.support.pi_for_tests import require_test_pi  # noqa: E402
from tests.support.pi_prose import scrub  # noqa: E402

OUT = ROOT / "vscode-extension" / "test" / "fixtures" / "chat"
WAIT_S = 60.0


async def scenario(only: set[str], name: str, *args: Any, **kwargs: Any) -> None:
    """Record one scenario, unless the command line names others."""
    if not only or name in only:
        await _scenario(name, *args, **kwargs)


async def _scenario(
    name: str,
    responses: list[ScriptedResponse],
    prompts: list[str],
    settings: Any = None,
    abort_after: int | None = None,
    model_fields: Any = None,
    abort_on: str = "message_update",
) -> None:
    pi = require_test_pi()
    with tempfile.TemporaryDirectory() as tmp, FakeLlmServer() as model:
        workspace = Path(tmp) / "workspace"
        workspace.mkdir()
        (workspace / "notes.txt").write_text("line one\nline two\n", encoding="utf-8")
        agent = write_agent_dir(
            Path(tmp) / "agent", model.openai_base_url, settings=settings, model_fields=model_fields
        )
        model.enqueue(*responses)
        log = EventLog()
        process = await PiRpcProcess.start(
            pi.argv,
            cwd=workspace,
            env=agent.env(),
            provider=agent.provider,
            model=agent.model,
            on_event=log.on_event,
            on_problem=log.on_problem,
            on_stderr=log.on_stderr,
            on_exit=log.on_exit,
        )
        try:
            for text in prompts:
                mark = log.mark()
                await process.prompt(text)
                if abort_after is not None:
                    await log.wait_for(lambda e: e.get("type") == abort_on, since=mark)
                    await process.abort()
                await log.wait_type("agent_settled", since=mark, timeout=WAIT_S)
            if name == "compaction":
                await process.compact("Keep the file names")
            messages = await process.get_messages()
        finally:
            await process.close()
    lines = [json.dumps(scrub(e), ensure_ascii=False) for e in log.events]
    lines.append(json.dumps({"type": "recorded_messages", "messages": scrub(messages)}, ensure_ascii=False))
    # Another release than the newest (PI_CONTEXT_PI_RELEASE=1.0.3): its own file, named after it.
    stem = name if pi.version == NEWEST.version else f"{name}-{pi.version}"
    (OUT / f"{stem}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{stem}: {len(log.events)} events")


async def main(only: set[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    await scenario(
        only,
        "tool-turn",
        [
            ScriptedResponse(
                tool_calls=[{"name": "read", "arguments": {"path": "notes.txt"}, "id": "call_r1"}],
                finish="tool",
                usage={"input": 120, "output": 9},
            ),
            ScriptedResponse(
                text="The file has **two** lines:\n\n```text\nline one\n```\n", usage={"input": 150, "output": 20}
            ),
        ],
        ["Read notes.txt"],
        model_fields={"cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}},
    )
    await scenario(
        only,
        "thinking",
        [ScriptedResponse(thinking="The user greets me. I answer briefly.", text="Hello!")],
        ["Hi"],
        model_fields={"reasoning": True},
    )
    await scenario(
        only,
        "tool-error",
        [
            ScriptedResponse(
                tool_calls=[{"name": "read", "arguments": {"path": "missing.txt"}, "id": "call_m"}], finish="tool"
            ),
            ScriptedResponse(text="That file does not exist."),
        ],
        ["Read missing.txt"],
    )
    await scenario(
        only,
        "retry",
        [ScriptedResponse(status=503, body={"error": {"message": "overloaded"}}), ScriptedResponse(text="Back again.")],
        ["Are you there?"],
        settings={"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 1}},
    )
    await scenario(
        only,
        "edit-turn",
        [
            ScriptedResponse(
                tool_calls=[
                    {
                        "name": "edit",
                        "arguments": {"path": "notes.txt", "edits": [{"oldText": "line two", "newText": "line 2"}]},
                        "id": "call_e1",
                    }
                ],
                finish="tool",
            ),
            ScriptedResponse(text="Renamed the second line."),
        ],
        ["Rename line two"],
    )
    await scenario(
        only,
        "retry-fail",
        [ScriptedResponse(status=503, body={"error": {"message": "overloaded"}}) for _ in range(3)],
        ["Are you there?"],
        settings={"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 1}},
    )
    await scenario(
        only,
        "error",
        [ScriptedResponse(status=400, body={"error": {"message": "bad request: context too long"}})],
        ["Break"],
    )
    await scenario(
        only,
        "abort",
        [
            ScriptedResponse(
                text="This reply is long and will be cut short by the user.",
                chunks=["This reply ", "is long"],
                stall_after_chunks=1,
            )
        ],
        ["Write a long reply"],
        abort_after=1,
    )
    await scenario(
        only,
        "abort-tool",
        [
            ScriptedResponse(
                tool_calls=[{"name": "bash", "arguments": {"command": "sleep 60"}, "id": "call_sleep"}], finish="tool"
            )
        ],
        ["Run the long job"],
        abort_after=1,
        abort_on="tool_execution_start",
    )
    await scenario(
        only,
        "abort-batch",
        [
            ScriptedResponse(
                tool_calls=[
                    {"name": "bash", "arguments": {"command": "sleep 60"}, "id": "call_sleep"},
                    {"name": "read", "arguments": {"path": "notes.txt"}, "id": "call_read"},
                ],
                finish="tool",
            )
        ],
        ["Run the long job, then read the notes"],
        abort_after=1,
        abort_on="tool_execution_start",
    )
    await scenario(
        only,
        "compaction",
        [
            ScriptedResponse(text="First answer."),
            ScriptedResponse(text="Second answer."),
            ScriptedResponse(text="## Goal\nKeep notes.txt in mind."),
        ],
        ["First question", "Second question"],
        settings={"compaction": {"keepRecentTokens": 10}},
    )


if __name__ == "__main__":
    asyncio.run(main(set(sys.argv[1:])))
