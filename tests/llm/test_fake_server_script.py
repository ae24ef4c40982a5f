"""The fake LLM server also runs as a standalone script, for editor end-to-end tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsp_server.llm.openai_compat import OpenAiCompatClient
from lsp_server.llm.types import CompletionRequest

SCRIPT = Path(__file__).resolve().parents[1] / "support" / "fake_llm_server.py"


async def test_script_mode_serves_the_scripted_responses_and_records_requests(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "from the script"}], "default": {"text": "default"}}))
    record = tmp_path / "requests.jsonl"
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--port", "0", "--script", str(script), "--record", str(record)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready = process.stdout.readline().split()
        assert ready[0] == "FAKE_LLM_LISTENING"
        async with OpenAiCompatClient(base_url=ready[1] + "/v1", model="m") as client:
            first = await client.complete(CompletionRequest.single_prompt("s", "p1"))
            second = await client.complete(CompletionRequest.single_prompt("s", "p2"))
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert (first.text, second.text) == ("from the script", "default")
    recorded = [json.loads(line) for line in record.read_text().splitlines()]
    assert [r["body"]["messages"][1]["content"] for r in recorded] == ["p1", "p2"]
    assert process.returncode == 0
