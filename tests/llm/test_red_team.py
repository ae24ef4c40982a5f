"""The red team's model servers echo the key in each disguise; nothing pi-context emits shows any of it.

Issue 18 saw a model server echo the key trimmed of its first 7 and last 5 characters, cut to 30
characters and ``...``, as a 96-character piece, base64-encoded (alone or as a ``Basic user:key``
value), base64url, percent-encoded, upper-cased and spaced every 10 characters, and ``compact``
print it on stderr and in ``--json``. Here the fake model server answers with exactly those
(``ScriptedResponse(echo_key=...)`` puts the key the request carried, disguised, in its answer):

* the real ``compact`` and ``branch-summary`` (subprocesses): every disguise in a retried 500 (each
  retry notice on stderr quotes the server), a 401, an Anthropic stream error, and a summary that
  repeats them all (stdout, ``--json``, the session file);
* the real server (``serve --log-file --log-level debug`` over stdio): ``pi.compact`` with the same
  answers; everything it wrote (its stdout, every response, notification and ``$/progress``, and
  its log file) is searched.

The chat's side (a real Pi relaying its model's 401) is ``tests/lsp/test_chat_red_team.py``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, client_capabilities

from tests.compaction._sessions import Chain, write_session
from tests.lsp.conftest import RecordingClient, make_client
from tests.support.disguises import RED_TEAM_KEY, Disguise, assert_nothing_shown, disguises
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

KEY = RED_TEAM_KEY
KEY_ENV = "PI_CONTEXT_RED_TEAM_KEY"
ROOT = Path(__file__).resolve().parents[2]
DISGUISES = disguises(KEY)
X = "x" * 400


def anthropic_echo(disguise: Disguise, status: int = 500) -> ScriptedResponse:
    message = "invalid x-api-key: {echo} (request req_42)"
    body = {"type": "error", "error": {"type": "authentication_error", "message": message}}
    return ScriptedResponse(status=status, body=body, echo_key=disguise.name, retry_after=0)


def openai_echo(disguise: Disguise, status: int = 500) -> ScriptedResponse:
    body = {"error": {"message": "Incorrect API key provided: {echo}.", "type": "invalid_request_error"}}
    return ScriptedResponse(status=status, body=body, echo_key=disguise.name, retry_after=0)


def stream_error(disguise: Disguise) -> ScriptedResponse:
    event = {"type": "overloaded_error", "message": "Overloaded (key {echo})"}
    return ScriptedResponse(text="", error_event=event, echo_key=disguise.name)


ECHO = {"anthropic": anthropic_echo, "openai": openai_echo}


@dataclass
class Machine:
    root: Path
    env: dict[str, str]
    session: Path

    def settings(self, server: FakeLlmServer, wire: str, retries: int) -> str:
        url = server.anthropic_base_url if wire == "anthropic" else server.openai_base_url
        summarizer = {
            "mode": "endpoint",
            "url": url,
            "model": "red-team",
            "wireFormat": wire,
            "apiKeyEnv": KEY_ENV,
            "retries": retries,
        }
        path = self.root / f"settings-{wire}-{retries}.json"
        path.write_text(json.dumps({"summarizer": summarizer}), encoding="utf-8")
        return str(path)


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    agent = tmp_path / "home" / ".pi" / "agent"
    project = tmp_path / "project"
    for folder in (agent, project):
        folder.mkdir(parents=True)
    (agent / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 150}}), encoding="utf-8")
    chain = Chain()
    chain.user("Fix the crash in src/app.ts. " + X)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result(X)
    chain.user("Now update the docs. " + X)
    chain.assistant("Done.")
    session = write_session(tmp_path / "session.jsonl", chain.entries, cwd=str(project))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PI_"))}
    env.update({"HOME": str(tmp_path / "home"), "PI_CODING_AGENT_DIR": str(agent), KEY_ENV: KEY})
    return Machine(tmp_path, env, session)


@pytest.fixture
def llm() -> Iterator[FakeLlmServer]:
    with FakeLlmServer() as server:
        yield server


def cli(machine: Machine, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args],
        capture_output=True,
        text=True,
        env=machine.env,
        cwd=machine.root,
        timeout=300,
        check=False,
    )


def assert_clean(label: str, text: str) -> None:
    assert_nothing_shown(label, text, KEY)


# -- the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_compact_never_shows_the_key_a_server_echoes_in_any_disguise(
    machine: Machine, llm: FakeLlmServer, wire: str
) -> None:
    """Ten retried 500s and a last one, each echoing another disguise: every retry notice and the error."""
    settings = machine.settings(llm, wire, retries=len(DISGUISES) - 1)
    original = machine.session.read_bytes()
    for extra in ((), ("--json",)):
        llm.enqueue(*(ECHO[wire](disguise) for disguise in DISGUISES))
        done = cli(machine, "compact", str(machine.session), "--settings", settings, *extra)
        assert done.returncode == 1, done.stderr
        retries = [line for line in done.stderr.splitlines() if line.startswith("pi-context: retry ")]
        assert len(retries) == len(DISGUISES) - 1 and all("***" in line for line in retries), done.stderr
        assert_clean(f"compact {' '.join(extra)}: stderr", done.stderr)
        assert_clean(f"compact {' '.join(extra)}: stdout", done.stdout)
        if extra:
            assert "***" in json.loads(done.stdout)["failure"]
    assert machine.session.read_bytes() == original
    assert all(llm.received_key(i, KEY) for i in range(len(llm.requests)))  # the key did go where it belongs


def test_a_401_and_a_stream_error_echoing_the_key_are_redacted_too(machine: Machine, llm: FakeLlmServer) -> None:
    settings = machine.settings(llm, "anthropic", retries=1)
    for disguise in (DISGUISES[1], DISGUISES[5], DISGUISES[-1]):  # trimmed, Basic, spaced
        llm.enqueue(anthropic_echo(disguise, status=401))
        unauthorized = cli(machine, "compact", str(machine.session), "--settings", settings, "--json")
        llm.enqueue(stream_error(disguise), stream_error(disguise))
        overloaded = cli(machine, "compact", str(machine.session), "--settings", settings)
        for label, done in (("401", unauthorized), ("stream error", overloaded)):
            assert done.returncode == 1 and "***" in done.stderr, (label, done.stderr)
            assert_clean(f"{label} echoing {disguise.name}: stderr", done.stderr)
            assert_clean(f"{label} echoing {disguise.name}: stdout", done.stdout)


def test_a_summary_that_repeats_the_key_is_stored_and_printed_without_it(machine: Machine, llm: FakeLlmServer) -> None:
    """A model that writes the key into the summary: the entry, stdout and ``--json`` hold ``***`` instead."""
    settings = machine.settings(llm, "anthropic", retries=0)
    original = machine.session.read_bytes()
    for disguise in DISGUISES:
        machine.session.write_bytes(original)  # a session compacts once: start again from the same file
        llm.enqueue(ScriptedResponse(text="## Goal\nShip it. Key: {echo}.\n", echo_key=disguise.name))
        done = cli(machine, "compact", str(machine.session), "--settings", settings, "--json")
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)["entry"]["summary"]
        assert summary.startswith("## Goal\nShip it. Key: ") and "***" in summary, (disguise.name, summary[:200])
        assert_clean(f"a summary echoing {disguise.name}: stdout", done.stdout)
        assert_clean(f"a summary echoing {disguise.name}: stderr", done.stderr)
        written = machine.session.read_bytes()
        assert written.startswith(original) and written.count(b"\n") == original.count(b"\n") + 1
        assert_clean(f"the session file after a summary echoing {disguise.name}", written.decode("utf-8"))


def test_branch_summary_never_shows_the_key_either(machine: Machine, llm: FakeLlmServer) -> None:
    settings = machine.settings(llm, "openai", retries=len(DISGUISES) - 1)
    llm.enqueue(*(openai_echo(disguise) for disguise in DISGUISES))
    arguments = ("--from", "e5", "--to", "e2", "--settings", settings, "--json")
    done = cli(machine, "branch-summary", str(machine.session), *arguments)
    assert done.returncode == 1 and "***" in done.stderr, done.stderr
    assert_clean("branch-summary: stderr", done.stderr)
    assert_clean("branch-summary: stdout", done.stdout)


# -- the language server ------------------------------------------------------------------------


async def test_the_server_and_its_log_never_show_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    """``pi.compact`` over stdio with a debug log file: every byte the server wrote is searched."""
    traffic, log, stderr = machine.root / "traffic.jsonrpc", machine.root / "server.log", machine.root / "stderr"
    serve = [sys.executable, "-m", "lsp_server", "serve", "--log-file", str(log), "--log-level", "debug"]
    command = f"{shlex.join(serve)} 2>{shlex.quote(str(stderr))} | tee {shlex.quote(str(traffic))}"
    env = {**machine.env, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    config = ClientServerConfig(server_command=["sh", "-c", command], client_factory=make_client, server_env=env)
    client = await config.start()
    assert isinstance(client, RecordingClient)
    project = machine.root / "project"
    summarizer = json.loads(Path(machine.settings(llm, "anthropic", len(DISGUISES) - 1)).read_text())["summarizer"]
    failures: list[str] = []
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=project.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="project")],
                initialization_options={"piContext": {"summarizer": summarizer}},
            )
        )
        llm.enqueue(*(anthropic_echo(disguise) for disguise in DISGUISES))
        with pytest.raises(JsonRpcException) as caught:
            await _compact(client, machine.session)
        failures.append(f"{caught.value.code} {caught.value.message} {caught.value.data}")
        llm.enqueue(ScriptedResponse(text="## Goal\nKey: {echo}\n", echo_key=DISGUISES[4].name))
        await _compact(client, machine.session)
        await client.shutdown_session()
    finally:
        await client.stop()
    assert "***" in failures[0]
    reports = [repr(r) for values in client.progress_reports.values() for r in values]
    assert sum("retry" in r for r in reports) == len(DISGUISES) - 1  # each retry was announced ...
    assert_clean("the JSON-RPC error of pi.compact", "\n".join(failures))  # ... and nothing shows the key:
    assert_clean("$/progress", "\n".join(reports))
    assert_clean("window/logMessage", "\n".join(m.message for m in client.log_messages))
    assert_clean("the server's stdout (every response and notification)", traffic.read_text(encoding="utf-8"))
    logged = log.read_text(encoding="utf-8")
    assert "retry" in logged and "pi.compact" in logged  # the debug log has the traffic and the retries
    assert_clean("the server's --log-file", logged)
    assert_clean("the server's stderr", stderr.read_text(encoding="utf-8"))
    assert_clean("the session file", machine.session.read_text(encoding="utf-8"))


async def _compact(client: RecordingClient, session: Path) -> Any:
    params = types.ExecuteCommandParams(command="pi.compact", arguments=[{"session": str(session)}])
    return await client.workspace_execute_command_async(params)
