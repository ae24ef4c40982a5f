"""Secrets of our own: a planted key never comes out of anything pi-context emits, on any fault path.

One recognisable fake key (:data:`KEY`) is planted wherever a key can live on a user's machine:
the summarizer's and the providers' environment variables, pi-context's settings (an unknown
``apiKey`` field, and a key pasted where the variable *name* belongs), Pi's ``models.json``,
``auth.json`` and ``settings.json`` in the agent dir, the project's ``.pi/settings.json``, and a
context file. Then the fault paths run through the real parts: the fake model server on 127.0.0.1
answering 401 and 500 with the key echoed in the body, a stream error quoting it, a retry, a long
error crossing our cut, a timeout; ``pi-context compact`` / ``branch-summary`` / ``check`` /
``session`` as subprocesses; ``pi.compact`` through the real server over stdio with ``$/progress``
(everything the server writes to stdout is teed to a file, so every response, notification, log
message and trace is there, and its stderr log too); the session file after a failed and a
successful compaction. Everything is searched for the key and for each of its 8-character pieces.

Not searched: what is sent to the model (the fake server's recorded requests carry the key in
the auth header by design) and views whose purpose is to show the prompt text (``pi-context
prompt``, ``pi/promptSections``): a key in a context file is sent to the model, which is what the
``prompt/secret`` finding warns about.
"""

from __future__ import annotations

import asyncio
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
from tests.lsp.conftest import WAIT_S, RecordingClient, make_client
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse

KEY = "sk-ant-api03-PiCtxCanary7q2X9vLmN4pR8sT1wY6zB3cD5fG0hJkQ-Zz8Yx6Wv"
KEY_ENV = "PI_CONTEXT_CANARY_KEY"
X = "x" * 400
SUMMARY = "## Goal\nShip the fix.\n"


def pieces(secret: str, size: int = 8) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


def assert_clean(label: str, text: str) -> None:
    """Neither the key nor any 8-character piece of it is in ``text``."""
    for piece in pieces(KEY):
        assert piece not in text, (
            f"{label} shows {piece!r} of the key: ...{text[max(0, text.find(piece) - 80) :][:200]}"
        )


@dataclass
class Machine:
    """A user's machine with the key planted everywhere: folders, environment, pi-context settings."""

    root: Path
    project: Path
    agent: Path
    env: dict[str, str]
    session: Path

    def settings(self, server: FakeLlmServer, **summarizer: Any) -> Path:
        """pi-context settings (``--settings``) for an Anthropic endpoint on the fake server."""
        values = {
            "mode": "endpoint",
            "url": server.anthropic_base_url,
            "model": "claude-canary",
            "wireFormat": "anthropic",
            "apiKeyEnv": KEY_ENV,
            "retries": 1,
            **summarizer,
        }
        path = self.root / "pi-context-settings.json"
        path.write_text(json.dumps({"summarizer": values, "apiKey": KEY}), encoding="utf-8")
        return path


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    project = tmp_path / "project"
    for folder in (agent, project / ".pi"):
        folder.mkdir(parents=True)
    models = {"providers": {"anthropic": {"apiKey": KEY, "baseUrl": "http://127.0.0.1:9/v1", "models": [{"id": "m"}]}}}
    (agent / "models.json").write_text(json.dumps(models), encoding="utf-8")
    (agent / "auth.json").write_text(json.dumps({"anthropic": {"type": "api_key", "key": KEY}}), encoding="utf-8")
    pi_settings = {"compaction": {"keepRecentTokens": 150}, "apiKey": KEY}
    (agent / "settings.json").write_text(json.dumps(pi_settings), encoding="utf-8")
    (project / ".pi" / "settings.json").write_text(json.dumps({"token": KEY}), encoding="utf-8")
    (project / "AGENTS.md").write_text(f"# Ops\n\n```bash\nexport ANTHROPIC_API_KEY={KEY}\n```\n", encoding="utf-8")
    chain = Chain()
    chain.user("Fix the crash in src/app.ts. " + X)
    chain.assistant("Reading it.", calls=(("read", {"path": "src/app.ts"}),))
    chain.tool_result(X)
    chain.user("Now update the docs. " + X)
    chain.assistant("Done.")
    session = write_session(tmp_path / "session.jsonl", chain.entries, cwd=str(project))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "PI_"))}
    env.update(
        {
            "HOME": str(home),
            "PI_CODING_AGENT_DIR": str(agent),
            KEY_ENV: KEY,
            "ANTHROPIC_API_KEY": KEY,
            "OPENAI_API_KEY": KEY,
            "PI_CONTEXT_DEBUG": "1",
        }
    )
    return Machine(tmp_path, project, agent, env, session)


def cli(machine: Machine, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lsp_server", *args],
        capture_output=True,
        text=True,
        env=env or machine.env,
        cwd=machine.project,
        timeout=180,
        check=False,
    )


def echo(status: int, prefix: str = "Invalid x-api-key: ") -> ScriptedResponse:
    return ScriptedResponse(status=status, body={"type": "error", "error": {"type": "x", "message": prefix + KEY}})


@pytest.fixture
def llm() -> Iterator[FakeLlmServer]:
    with FakeLlmServer(default=ScriptedResponse(text=SUMMARY)) as server:
        yield server


# -- the command line ---------------------------------------------------------------------------


def test_cli_compact_fault_paths_never_show_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    settings = str(machine.settings(llm))
    original = machine.session.read_bytes()
    runs: list[tuple[str, subprocess.CompletedProcess[str]]] = []

    def compact(label: str, *responses: ScriptedResponse, extra: tuple[str, ...] = ()) -> None:
        llm.enqueue(*responses)
        runs.append((label, cli(machine, "compact", str(machine.session), "--settings", settings, *extra)))

    compact("401 echoing the key", echo(401))
    compact("500 echoing the key, retried, 500 again", echo(500), echo(500))
    compact("a long error whose key crosses the 500-character cut", echo(500, "e" * 470 + " "), echo(500, "e" * 490))
    compact("an Anthropic stream error quoting the key, twice", *[_stream_error()] * 2)
    compact("a 401 as JSON output", echo(401), extra=("--json",))
    for label, done in runs:
        assert done.returncode == 1, (label, done.stderr)
        assert_clean(f"{label}: stdout", done.stdout)
        assert_clean(f"{label}: stderr", done.stderr)
    assert "retry 1/1" in runs[1][1].stderr and "***" in runs[0][1].stderr  # the fault paths really ran
    assert machine.session.read_bytes() == original  # failed compactions wrote nothing

    llm.enqueue(_stream_error(), ScriptedResponse(text=SUMMARY))
    done = cli(machine, "compact", str(machine.session), "--settings", settings, "--json")
    assert done.returncode == 0, done.stderr
    assert "retry 1/1" in done.stderr
    assert_clean("a compaction after a retried stream error: stdout", done.stdout)
    assert_clean("a compaction after a retried stream error: stderr", done.stderr)
    assert machine.session.read_bytes().startswith(original)
    assert_clean("the session file after the compaction", machine.session.read_text(encoding="utf-8"))
    assert llm.received_key(0, KEY)  # the key did go where it belongs: the auth header


def test_cli_timeouts_branch_summaries_and_model_args_never_show_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    stalled = ScriptedResponse(text="never finished " * 10, stall_after_chunks=1)
    llm.enqueue(stalled, stalled)
    settings = str(machine.settings(llm, timeoutSeconds=0.5))
    timeout = cli(machine, "compact", str(machine.session), "--settings", settings)
    assert timeout.returncode == 1 and "timed out" in timeout.stderr, timeout.stderr
    llm.enqueue(echo(401))
    settings = str(machine.settings(llm))
    branch = cli(machine, "branch-summary", str(machine.session), "--from", "e5", "--to", "e2", "--settings", settings)
    assert branch.returncode == 1, branch.stderr
    llm.enqueue(echo(401))
    env = {**machine.env, "ANTHROPIC_BASE_URL": llm.anthropic_base_url}
    by_model = cli(machine, "compact", str(machine.session), "--model", "anthropic/claude-canary", env=env)
    assert by_model.returncode == 1 and "***" in by_model.stderr, by_model.stderr
    for label, done in (("timeout", timeout), ("branch-summary 401", branch), ("--model with 401", by_model)):
        assert_clean(f"{label}: stdout", done.stdout)
        assert_clean(f"{label}: stderr", done.stderr)


def test_a_key_pasted_where_the_variable_name_belongs_is_not_echoed(machine: Machine, llm: FakeLlmServer) -> None:
    settings = str(machine.settings(llm, apiKeyEnv=KEY))
    done = cli(machine, "compact", str(machine.session), "--settings", settings)
    assert done.returncode != 0
    assert "apiKeyEnv" in done.stderr, done.stderr  # the problem is named ...
    assert_clean("compact with a key as apiKeyEnv: stderr", done.stderr)  # ... without the key
    assert_clean("compact with a key as apiKeyEnv: stdout", done.stdout)


def test_check_and_session_never_show_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    settings = str(machine.settings(llm))
    outputs = {
        "check": cli(machine, "check", "--settings", settings),
        "check --json": cli(machine, "check", "--json", "--settings", settings),
    }
    assert "prompt/secret" in outputs["check"].stdout  # the context file's key is found ...
    # ``session`` shows the projected request, context files included (the prompt is what it shows):
    # with the key out of AGENTS.md, nothing else may bring it there.
    (machine.project / "AGENTS.md").write_text("# Ops\n", encoding="utf-8")
    outputs |= {
        "session --json": cli(machine, "session", str(machine.session), "--json", "--settings", settings),
        "session": cli(machine, "session", str(machine.session), "--settings", settings),
        "session --list": cli(machine, "session", "--list", "--settings", settings),
        "compact --dry-run --json (offline)": cli(machine, "compact", str(machine.session), "--dry-run", "--json"),
    }
    for label, done in outputs.items():
        assert done.returncode == 0 or label.startswith("check"), (label, done.stderr)
        assert_clean(f"{label}: stdout", done.stdout)  # ... and never shown
        assert_clean(f"{label}: stderr", done.stderr)


def _stream_error() -> ScriptedResponse:
    return ScriptedResponse(text="", error_event={"type": "overloaded_error", "message": f"Overloaded ({KEY})"})


# -- the language server ------------------------------------------------------------------------


async def test_server_compaction_fault_paths_never_show_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    """pi.compact over stdio: every byte the server writes (stdout teed, stderr logged) is searched."""
    traffic, log = machine.root / "server-stdout.jsonrpc", machine.root / "server-stderr.log"
    command = f"{shlex.quote(sys.executable)} -m lsp_server serve 2>{shlex.quote(str(log))} | tee {traffic}"
    config = ClientServerConfig(
        server_command=["sh", "-c", command], client_factory=make_client, server_env=machine.env
    )
    client = await config.start()
    assert isinstance(client, RecordingClient)
    summarizer = {
        "mode": "endpoint",
        "url": llm.anthropic_base_url,
        "model": "claude-canary",
        "wireFormat": "anthropic",
        "apiKeyEnv": KEY_ENV,
        "retries": 1,
    }
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=machine.project.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=machine.project.as_uri(), name="project")],
                initialization_options={"piContext": {"summarizer": summarizer, "apiKey": KEY, "debounceMs": 20}},
                trace=types.TraceValue.Verbose,
            )
        )
        original = machine.session.read_bytes()
        errors: list[str] = []
        for responses in ([echo(401)], [echo(500), echo(500)], [_stream_error(), _stream_error()]):
            llm.enqueue(*responses)
            with pytest.raises(JsonRpcException) as caught:
                await _compact(client, machine.session)
            errors.append(f"{caught.value.code} {caught.value.message} {caught.value.data}")
        assert machine.session.read_bytes() == original
        llm.enqueue(echo(500), ScriptedResponse(text=SUMMARY))
        outcome = await _compact(client, machine.session)
        assert outcome is not None and machine.session.read_bytes().startswith(original)
        uri = (machine.project / "AGENTS.md").as_uri()
        async with asyncio.timeout(WAIT_S):
            while not any(d.code == "prompt/secret" for d in client.diagnostics.get(uri, [])):
                await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        await client.shutdown_session()
    finally:
        await client.stop()
    for text in errors:
        assert_clean("a JSON-RPC error of pi.compact", text)
    assert any("***" in text for text in errors) and "retry" in log.read_text(encoding="utf-8")
    reports = [repr(r) for values in client.progress_reports.values() for r in values]
    assert any("retry" in r for r in reports)  # the retry was announced in $/progress ...
    assert_clean("$/progress reports", "\n".join(reports))  # ... without the key
    assert_clean("window/logMessage", "\n".join(m.message for m in client.log_messages))
    assert_clean("window/showMessage", "\n".join(repr(m) for m in client.messages))
    assert_clean("diagnostics", repr(client.diagnostics))
    assert_clean("the server's stdout (every response and notification)", traffic.read_text(encoding="utf-8"))
    assert_clean("the server's log", log.read_text(encoding="utf-8"))
    assert_clean("the session file", machine.session.read_text(encoding="utf-8"))


async def _compact(client: RecordingClient, session: Path) -> Any:
    params = types.ExecuteCommandParams(command="pi.compact", arguments=[{"session": str(session)}])
    return await client.workspace_execute_command_async(params)
