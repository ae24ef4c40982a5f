"""Keys in generated disguises (``key_strategies.py``) through the redactor and through the real ``compact``.

The fuzz tier runs the redactor's properties (``tests/redaction/test_properties.py``) by the
thousand, and adds the whole path a user runs: ``compact --json`` (the CLI in this process, as the
other fuzz properties run it) against a model server on 127.0.0.1 that answers a 401 quoting the
generated disguise of the key it was configured with; neither stdout nor stderr may show 8
characters of the key, the session is untouched.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lsp_server.redaction import Redactor
from lsp_server.redaction.forms import is_key_like
from tests.compaction._sessions import Chain, write_session
from tests.fuzz._cli import environment, run_cli
from tests.fuzz._tier import cases, timed
from tests.fuzz.key_strategies import Planted, planted_keys
from tests.redaction.test_properties import stream
from tests.support.disguises import shown_pieces
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

KEY_ENV = "PI_CONTEXT_FUZZ_KEY"
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


@given(planted=planted_keys(), cuts=st.lists(st.integers(0, 400), max_size=30))
@cases(default=30, fuzz=30_000)
def test_a_generated_disguise_never_shows_whole_or_streamed(planted: Planted, cuts: list[int]) -> None:
    assume(is_key_like(planted.key))
    redactor = Redactor([planted.key])
    with timed("redaction: a disguise, whole and streamed", planted.describe()):
        whole = redactor.text(planted.text)
        streamed, _held = stream(redactor, planted.text, cuts)
    assert shown_pieces(whole, planted.core, key=planted.key) == [], planted.describe()
    assert shown_pieces(streamed, planted.core, key=planted.key) == [], planted.describe()


@pytest.fixture(scope="module")
def machine() -> Iterator[tuple[Path, FakeLlmServer]]:
    with tempfile.TemporaryDirectory(prefix="pi-context-fuzz-", dir=SCRATCH) as folder, FakeLlmServer() as llm:
        root = Path(folder)
        agent = root / "agent"
        agent.mkdir()
        (agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 150}}), encoding="utf-8")
        summarizer = {"mode": "endpoint", "url": llm.anthropic_base_url, "model": "m", "wireFormat": "anthropic"}
        summarizer.update({"apiKeyEnv": KEY_ENV, "retries": 0})
        (root / "settings.json").write_text(json.dumps({"summarizer": summarizer}), encoding="utf-8")
        env = {"HOME": str(root), "PI_CODING_AGENT_DIR": str(agent), "PI_CONTEXT_STATE_DIR": str(root / "state")}
        with environment(env):
            yield root, llm


@given(planted=planted_keys())
@cases(default=8, fuzz=600)
def test_compact_never_shows_a_key_its_model_echoes_in_a_generated_disguise(
    machine: tuple[Path, FakeLlmServer], planted: Planted
) -> None:
    assume(is_key_like(planted.key))
    root, llm = machine
    chain = Chain()
    chain.user("Fix the crash. " + "x" * 400)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result("x" * 400)
    chain.user("Now the docs. " + "x" * 400)
    chain.assistant("Done.")
    session = write_session(root / "session.jsonl", chain.entries, cwd=str(root))
    before = session.read_bytes()
    body = {"type": "error", "error": {"type": "authentication_error", "message": f"bad key: {planted.text}"}}
    llm.enqueue(ScriptedResponse(status=401, body=body))
    with environment({KEY_ENV: planted.key}), timed("redaction: compact against an echoing model", planted.describe()):
        done = run_cli("compact", str(session), "--settings", str(root / "settings.json"), "--json")
    assert done.code == 1, done.err
    assert shown_pieces(done.err, planted.core, key=planted.key) == [], (planted.describe(), done.err)
    assert shown_pieces(done.out, planted.core, key=planted.key) == [], (planted.describe(), done.out)
    assert session.read_bytes() == before
