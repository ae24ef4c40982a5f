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
successful compaction.

The write faults, done for real as ``tests/cli/test_compact_write_faults.py`` does them, each after
a retried error that quoted the key: the CLI and the server killed (``SIGKILL``) halfway through
the line, then the repairing run; the file-size limit (``RLIMIT_FSIZE``) at the file's size and
inside the line; a full tmpfs, for the CLI and the server. After each, every file under the test's
folder but the planted ones (the session, the note of the write in flight with its bytes decoded,
pi-context's state) is searched too.

What reaches the webviews: ``tests/extension/webview_state.js`` runs the extension's own code
(compiled as its unit tests are) against the real server: the sidebar's ``ContextStore`` asks what
it asks in VS Code and builds the ``view`` message; for the Chat view a real Pi (whose model echoes
the key in a 401 and a 500) is driven through the server and its events folded by the extension's
``Transcript`` into the items and header the view gets.

Everything is searched for the key and for each of its 8-character pieces. Not searched: what is
sent to the model (the fake server's recorded requests carry the key in the auth header by design),
the files Pi writes (its session holds the model's error as Pi received it), and views whose purpose
is to show the prompt text (``pi-context prompt``, ``pi/promptSections``, ``pi/systemPrompt``,
``pi/projectedRequest``): a key in a context file is sent to the model, which is what the
``prompt/secret`` finding warns about.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, client_capabilities

from lsp_server.session.write_journal import JOURNAL_FOLDER, PendingAppend
from tests.cli.test_compact_write_faults import HOLD_AT_WRITE, ROOT, _fill, _mounted
from tests.compaction._sessions import Chain, write_session
from tests.lsp.conftest import WAIT_S, RecordingClient, make_client
from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
from tests.support.pi_agent import write_agent_dir
from tests.support.pi_for_tests import require_test_pi

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


@dataclass
class Served:
    """A real server over stdio whose every byte out is kept: stdout teed to ``traffic``, stderr in ``log``."""

    client: RecordingClient
    traffic: Path
    log: Path

    def assert_clean(self, machine: Machine) -> None:
        client = self.client
        reports = [repr(r) for values in client.progress_reports.values() for r in values]
        assert_clean("$/progress reports", "\n".join(reports))
        assert_clean("window/logMessage", "\n".join(m.message for m in client.log_messages))
        assert_clean("window/showMessage", "\n".join(repr(m) for m in client.messages))
        assert_clean("diagnostics", repr(client.diagnostics))
        assert_clean("the server's stdout (every response and notification)", self.traffic.read_text(encoding="utf-8"))
        assert_clean("the server's log", self.log.read_text(encoding="utf-8"))
        assert_clean("the session file", machine.session.read_text(encoding="utf-8", errors="replace"))


async def _serve(machine: Machine, llm: FakeLlmServer, argv: list[str] | None = None) -> Served:
    """Start ``argv`` (default: ``python -m lsp_server serve``) and initialize it with the key in its settings."""
    traffic, log = machine.root / "server-stdout.jsonrpc", machine.root / "server-stderr.log"
    server = shlex.join(argv or [sys.executable, "-m", "lsp_server", "serve"])
    command = f"{server} 2>{shlex.quote(str(log))} | tee {shlex.quote(str(traffic))}"
    config = ClientServerConfig(
        server_command=["sh", "-c", command], client_factory=make_client, server_env=_with_root(machine)
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
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=machine.project.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=machine.project.as_uri(), name="project")],
            initialization_options={"piContext": {"summarizer": summarizer, "apiKey": KEY, "debounceMs": 20}},
            trace=types.TraceValue.Verbose,
        )
    )
    return Served(client, traffic, log)


async def test_server_compaction_fault_paths_never_show_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    """pi.compact over stdio: every byte the server writes (stdout teed, stderr logged) is searched."""
    served = await _serve(machine, llm)
    client = served.client
    try:
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
    assert any("***" in text for text in errors) and "retry" in served.log.read_text(encoding="utf-8")
    reports = [repr(r) for values in client.progress_reports.values() for r in values]
    assert any("retry" in r for r in reports)  # the retry was announced in $/progress ...
    served.assert_clean(machine)  # ... without the key, and nothing else the server wrote has it


async def test_a_server_compaction_on_a_full_disk_never_shows_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    with _mounted("tmpfs", "-o", "size=256k") as disk:
        path = disk / "session.jsonl"
        data = machine.session.read_bytes()
        path.write_bytes(data + b"\n" * (-len(data) % 4096))  # no slack in the last page: the append needs one
        _fill(disk)
        original = path.read_bytes()
        served = await _serve(machine, llm)
        try:
            llm.enqueue(_stream_error(), ScriptedResponse(text=SUMMARY))
            with pytest.raises(JsonRpcException) as caught:
                await _compact(served.client, path)
            await served.client.shutdown_session()
        finally:
            await served.client.stop()
        assert "No space left on device; nothing was written" in caught.value.message
        assert_clean("the JSON-RPC error of pi.compact on a full disk", f"{caught.value.message} {caught.value.data}")
        assert path.read_bytes() == original
        (disk / "filler").unlink()
        served.assert_clean(machine)
        assert_files_clean(machine, disk)


async def test_a_server_killed_at_its_compaction_write_never_shows_the_key(
    machine: Machine, llm: FakeLlmServer
) -> None:
    """The server dies (kill -9) halfway through the line, after a retried stream error quoting the key."""
    original = machine.session.read_bytes()
    pid_file = machine.root / "server.pid"
    served = await _serve(machine, llm, _hold_at_write(machine, "serve", pid_file=pid_file))
    try:
        llm.enqueue(_stream_error(), ScriptedResponse(text=SUMMARY))
        answer = asyncio.ensure_future(_compact(served.client, machine.session))
        async with asyncio.timeout(WAIT_S):
            while "HOLD " not in served.log.read_text(encoding="utf-8"):
                await asyncio.sleep(0.05)
        os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)
        with pytest.raises(RuntimeError, match="exited") as lost:  # the server is gone: pytest-lsp says so
            await asyncio.wait_for(answer, WAIT_S)
        assert_clean("the client's error when the server died", repr(lost.value))
    finally:
        await served.client.stop()
    torn = machine.session.read_bytes()
    assert torn.startswith(original) and len(torn) > len(original) and not torn.endswith(b"\n")  # really cut
    assert "retry" in served.log.read_text(encoding="utf-8")
    served.assert_clean(machine)
    assert_files_clean(machine)


async def _compact(client: RecordingClient, session: Path) -> Any:
    params = types.ExecuteCommandParams(command="pi.compact", arguments=[{"session": str(session)}])
    return await client.workspace_execute_command_async(params)


# -- faults at the write ------------------------------------------------------------------------

PLANTED = (
    "home/.pi/agent/models.json",
    "home/.pi/agent/auth.json",
    "home/.pi/agent/settings.json",
    "project/.pi/settings.json",
    "project/AGENTS.md",
    "pi-context-settings.json",
)


def assert_files_clean(machine: Machine, *more: Path) -> None:
    """Every file under the test's folder (and ``more``) except where the key was planted: no piece of it.

    That covers the session, pi-context's state folder (the note of a write in flight, whose bytes
    are base64 and are decoded here) and anything else a run leaves behind.
    """
    planted = {machine.root / name for name in PLANTED}
    roots = [machine.root, *more]
    files = [p for root in roots for p in sorted(root.rglob("*")) if p.is_file() and p not in planted]
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        assert_clean(str(path), text)
        if path.parent.name == JOURNAL_FOLDER:
            note = PendingAppend.from_json(text)
            assert note is not None, path
            assert_clean(f"the bytes recorded in {path}", note.data.decode("utf-8", "replace"))


def _hold_at_write(machine: Machine, *args: str, pid_file: Path | None = None) -> list[str]:
    """The child that stops at its write to the session (``HOLD_AT_WRITE``), recording its pid first."""
    script = HOLD_AT_WRITE
    if pid_file is not None:
        script = f"import os\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\n" + script
    return [sys.executable, "-c", script, str(machine.session), "partial", *args]


def _with_root(machine: Machine) -> dict[str, str]:
    return {**machine.env, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}


def test_a_compaction_killed_at_its_write_never_shows_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    """kill -9 in the middle of the line, after a retried stream error quoting the key; then the repair."""
    settings = str(machine.settings(llm))
    original = machine.session.read_bytes()
    llm.enqueue(_stream_error(), ScriptedResponse(text=SUMMARY))
    child = subprocess.Popen(
        _hold_at_write(machine, "compact", str(machine.session), "--settings", settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_with_root(machine),
        cwd=machine.project,
    )
    said: list[str] = []
    try:
        assert child.stderr is not None
        for line in child.stderr:
            said.append(line)
            if line.startswith("HOLD "):
                break
        else:
            pytest.fail(f"the child never reached the write: {child.wait()} {''.join(said)}")
        child.send_signal(signal.SIGKILL)
        out, rest = child.communicate(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert any("retry 1/1" in line for line in said)  # the key-quoting error went through the retry path
    assert_clean("stderr of the compaction killed at its write", "".join(said) + rest)
    assert_clean("stdout of the compaction killed at its write", out)
    torn = machine.session.read_bytes()
    assert torn.startswith(original) and len(torn) > len(original) and not torn.endswith(b"\n")  # really cut
    notes = list((machine.root / "home").rglob(f"{JOURNAL_FOLDER}/*.json"))
    assert len(notes) == 1  # the note of the write in flight survived the kill ...
    assert_files_clean(machine)  # ... and neither it nor the torn line holds the key

    llm.enqueue(echo(500), ScriptedResponse(text=SUMMARY))
    again = cli(machine, "compact", str(machine.session), "--settings", settings)
    assert again.returncode == 0, again.stderr
    assert "removed the incomplete last line" in again.stderr and "retry 1/1" in again.stderr
    assert_clean("the repairing compaction: stdout", again.stdout)
    assert_clean("the repairing compaction: stderr", again.stderr)
    assert machine.session.read_bytes().startswith(original)
    assert_files_clean(machine)


def _fsize(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return apply


@pytest.mark.parametrize("room", [0, 100], ids=["no-room", "room-for-100-bytes"])
def test_a_compaction_refused_by_the_file_size_limit_never_shows_the_key(
    machine: Machine, llm: FakeLlmServer, room: int
) -> None:
    """RLIMIT_FSIZE at the file's size (EFBIG, nothing written) or 100 bytes on (a short write, undone)."""
    settings = str(machine.settings(llm))
    original = machine.session.read_bytes()
    llm.enqueue(echo(500), ScriptedResponse(text=SUMMARY))
    done = subprocess.run(
        [sys.executable, "-m", "lsp_server", "compact", str(machine.session), "--settings", settings, "--json"],
        capture_output=True,
        text=True,
        env=machine.env,
        cwd=machine.project,
        timeout=180,
        check=False,
        preexec_fn=_fsize(len(original) + room),
    )
    assert done.returncode == 1, done.stderr
    said = "File too large; nothing was written" if room == 0 else "the file was restored"
    assert said in done.stderr and "retry 1/1" in done.stderr, done.stderr
    assert_clean("stdout of a compaction over the file size limit", done.stdout)
    assert_clean("stderr of a compaction over the file size limit", done.stderr)
    assert machine.session.read_bytes() == original
    assert_files_clean(machine)


def test_a_compaction_on_a_full_disk_never_shows_the_key(machine: Machine, llm: FakeLlmServer) -> None:
    settings = str(machine.settings(llm))
    with _mounted("tmpfs", "-o", "size=256k") as disk:
        path = disk / "session.jsonl"
        data = machine.session.read_bytes()
        path.write_bytes(data + b"\n" * (-len(data) % 4096))  # no slack in the last page: the append needs one
        _fill(disk)
        original = path.read_bytes()
        llm.enqueue(_stream_error(), ScriptedResponse(text=SUMMARY))
        done = cli(machine, "compact", str(path), "--settings", settings)
        assert done.returncode == 1, done.stderr
        assert "No space left on device; nothing was written" in done.stderr and "retry 1/1" in done.stderr
        assert_clean("stdout of a compaction on a full disk", done.stdout)
        assert_clean("stderr of a compaction on a full disk", done.stderr)
        assert path.read_bytes() == original
        (disk / "filler").unlink()
        assert_files_clean(machine, disk)


# -- what reaches the webviews ------------------------------------------------------------------

EXTENSION = ROOT / "vscode-extension"
DRIVER = ROOT / "tests" / "extension" / "webview_state.js"


@pytest.fixture(scope="module")
def compiled_extension(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension's view models compiled as its unit tests compile them (no VS Code needed)."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("node and npm are not on PATH")
    if not (EXTENSION / "node_modules" / ".bin" / "tsc").exists():
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=EXTENSION, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
    out = tmp_path_factory.mktemp("compiled-extension")
    tsc = EXTENSION / "node_modules" / ".bin" / "tsc"
    done = subprocess.run(
        [str(tsc), "-p", "tsconfig.test.json", "--outDir", str(out)], cwd=EXTENSION, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-4000:]
    return out


def webview_messages(
    machine: Machine, compiled: Path, options: dict[str, Any], chat: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run the driver: the real server, the extension's store and transcript; what the webviews get."""
    config = {
        "compiled": str(compiled),
        "nodeModules": str(EXTENSION / "node_modules"),
        "server": [sys.executable, "-m", "lsp_server", "serve"],
        "env": _with_root(machine),
        "cwd": str(machine.project),
        "rootUri": machine.project.as_uri(),
        "folderName": "project",
        "initializationOptions": {"piContext": options},
        "chat": chat,
    }
    done = subprocess.run(
        ["node", str(DRIVER), json.dumps(config)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert_clean("the server's stderr while the webviews were fed", done.stderr)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _listed_session(machine: Machine) -> Path:
    """The machine's session in Pi's folder for the project, so the sidebar picks it as the newest."""
    folder = machine.agent / "sessions" / ("--" + str(machine.project).lstrip("/").replace("/", "-") + "--")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / machine.session.name
    shutil.copyfile(machine.session, target)
    return target


def _summarizer(llm: FakeLlmServer) -> dict[str, Any]:
    return {
        "mode": "endpoint",
        "url": llm.anthropic_base_url,
        "model": "claude-canary",
        "wireFormat": "anthropic",
        "apiKeyEnv": KEY_ENV,
    }


# Answers whose purpose is the prompt's text: a key in a context file is in them (``prompt/secret`` warns).
PROMPT_TEXT = {"pi/systemPrompt", "pi/projectedRequest"}


def test_the_sidebar_view_never_shows_the_key(machine: Machine, llm: FakeLlmServer, compiled_extension: Path) -> None:
    """The Context view's data: the extension's ContextStore over the real server's answers."""
    session = _listed_session(machine)
    options = {"summarizer": _summarizer(llm), "apiKey": KEY}
    result = webview_messages(machine, compiled_extension, options)
    (last, *_) = reversed(result["sidebar"])
    view = last["view"]
    assert view["budget"] is not None and view["sections"], view  # the view was really built from answers ...
    assert view["request"] is not None and view["trust"] is not None, view
    assert view["sessionLabel"] and session.stem in json.dumps(result["received"]), view
    assert_clean("the messages posted to the sidebar webview", json.dumps(result["sidebar"]))  # ... without the key
    for item in result["received"]:
        if item["method"] not in PROMPT_TEXT:
            assert_clean(f"the server's {item['kind']} {item['method']}", json.dumps(item))


def _openai_echo(status: int) -> ScriptedResponse:
    """An OpenAI-style error that quotes the key it was sent (some servers do)."""
    error = {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error", "code": "bad_key"}
    return ScriptedResponse(status=status, body={"error": error})


@pytest.mark.pi
def test_the_chat_view_never_shows_the_key(machine: Machine, llm: FakeLlmServer, compiled_extension: Path) -> None:
    """The Chat view's transcript and header, folded by the extension's code from a real Pi's chat.

    Pi's provider key is the planted one (models.json); the model answers the first prompt with a
    401 quoting it, the second with a 500 quoting it (Pi retries) and then a reply.
    """
    pi = require_test_pi()
    settings = {
        "defaultProvider": "fake",
        "defaultModel": "fake-1",
        "retry": {"enabled": True, "maxRetries": 1, "baseDelayMs": 1},
        "compaction": {"keepRecentTokens": 150},
        "apiKey": KEY,
    }
    agent = write_agent_dir(machine.agent, llm.openai_base_url, settings=settings)
    models = json.loads((agent.path / "models.json").read_text(encoding="utf-8"))
    models["providers"]["fake"]["apiKey"] = KEY  # Pi sends it to the model: the key Pi's errors may quote
    models["providers"]["anthropic"] = {"apiKey": KEY, "baseUrl": "http://127.0.0.1:9/v1", "models": [{"id": "m"}]}
    (agent.path / "models.json").write_text(json.dumps(models), encoding="utf-8")
    machine.env.update(agent.env({}))  # offline, no version check (the keys stay in the environment)
    llm.enqueue(_openai_echo(401), _openai_echo(500), ScriptedResponse(text="All set."))
    options = {"summarizer": _summarizer(llm), "apiKey": KEY, "pi": {"command": shlex.join(pi.argv)}}
    result = webview_messages(machine, compiled_extension, options, chat={"prompts": ["Hello?", "Again?"]})

    assert llm.received_key(0, KEY)  # Pi did send the planted key ...
    posted = json.dumps(result["chat"])
    assert "All set." in posted, posted[-3000:]  # ... the chat ran through both prompts ...
    assert "Incorrect API key provided: ***" in posted  # ... Pi's errors quoted the key ...
    assert_clean("the messages posted to the chat webview", posted)  # ... and the view never shows it
    sidebar = result["sidebar"][-1]["view"]
    assert sidebar["sessionLabel"] and sidebar["request"] is not None, sidebar  # the chat's session, shown
    assert_clean("the sidebar on the chat's session", json.dumps(result["sidebar"]))
    for item in result["received"]:
        if item["method"] not in PROMPT_TEXT:
            assert_clean(f"the server's {item['kind']} {item['method']}", json.dumps(item))
