"""pytest-lsp harness: the real server over stdio, driven with recorded editor capabilities.

Every test gets its own workspace, HOME and Pi agent dir under ``tmp_path`` (the server never
sees the user's real ``~/.pi``), and a client that records what the server sends. Tests that
should hold for every editor take the ``client_name`` fixture, parametrized with the recorded
capabilities of VS Code and Neovim that ship with pytest-lsp.

Waiting is always on messages (``Session.wait_for``), never on the clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

CLIENTS = ["visual-studio-code", "neovim"]
# What those editors send as initialize's clientInfo (pytest-lsp's recordings of them).
CLIENT_INFO = {
    "visual-studio-code": types.ClientInfo(name="Visual Studio Code", version="1.65.2"),
    "neovim": types.ClientInfo(name="Neovim", version="0.7.0"),
}
WAIT_S = 30.0  # generous: the machine is shared; a pass never waits this long


class RecordingClient(LanguageClient):
    """pytest-lsp's client, also keeping every notification and registration it receives."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: defaultdict[str, list[Any]] = defaultdict(list)
        self.registrations: list[types.Registration] = []


def make_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    register_lsp_features(client)

    @client.feature("pi/debug/watchEvents")
    def watch_events(ls: RecordingClient, params: Any) -> None:
        ls.received["pi/debug/watchEvents"].append(params)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(ls: RecordingClient, params: types.RegistrationParams) -> None:
        ls.registrations.extend(params.registrations)

    return client


def plain(value: Any) -> Any:
    """pytest-lsp's client turns custom notifications' params into namedtuples; back to JSON data."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


@dataclass
class Workspace:
    root: Path
    home: Path
    agent_dir: Path

    def uri(self, path: Path | str) -> str:
        return from_fs_path(str(path)) or ""

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    home = tmp_path / "home"
    agent_dir = home / ".pi" / "agent"
    for folder in (root, agent_dir):
        folder.mkdir(parents=True)
    return Workspace(root=root, home=home, agent_dir=agent_dir)


def server_env(workspace: Workspace, debug: bool = True) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update({"HOME": str(workspace.home), "PI_CODING_AGENT_DIR": str(workspace.agent_dir)})
    if debug:
        env["PI_CONTEXT_DEBUG"] = "1"
    return env


SERVER_COMMAND = [sys.executable, "-m", "lsp_server", "serve"]


@dataclass
class Session:
    """A started, initialized server and what it answered."""

    client: RecordingClient
    workspace: Workspace
    client_name: str
    initialize_result: types.InitializeResult
    versions: dict[str, int] = field(default_factory=dict)

    async def command(self, name: str, *arguments: Any) -> Any:
        params = types.ExecuteCommandParams(command=name, arguments=list(arguments) if arguments else None)
        return await self.client.workspace_execute_command_async(params)

    async def state(self, **options: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self.command("pi.debug.state", options)
        return result

    def open(self, path: Path, text: str, language_id: str = "markdown") -> None:
        uri = self.workspace.uri(path)
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
            )
        )

    def replace(self, path: Path, text: str) -> int:
        """Send a full-text didChange; returns the new version."""
        uri = self.workspace.uri(path)
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return self.versions[uri]

    def close(self, path: Path) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=self.workspace.uri(path)))
        )

    async def wait_for(self, method: str, predicate: Callable[[], bool], timeout: float = WAIT_S) -> None:
        """Wait for notifications of ``method`` until ``predicate()`` holds (checked first)."""
        async with asyncio.timeout(timeout):
            while not predicate():
                await self.client.wait_for_notification(method)


Launch = Callable[..., Awaitable[Session]]


@pytest_asyncio.fixture
async def launch(workspace: Workspace) -> AsyncIterator[Launch]:
    """``await launch(client_name, init_options=..., configuration=..., capabilities=...)``."""
    started: list[RecordingClient] = []

    async def start(
        client_name: str = "visual-studio-code",
        *,
        init_options: Any = None,
        configuration: dict[str, Any] | None = None,
        capabilities: types.ClientCapabilities | None = None,
        debug: bool = True,
        folders: list[Path] | None = None,
    ) -> Session:
        config = ClientServerConfig(
            server_command=SERVER_COMMAND, client_factory=make_client, server_env=server_env(workspace, debug)
        )
        client = await config.start()
        assert isinstance(client, RecordingClient)
        started.append(client)
        if configuration is not None:
            client.set_configuration(configuration)
        roots = folders if folders is not None else [workspace.root]
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities or client_capabilities(client_name),
                root_uri=workspace.uri(roots[0]) if roots else None,
                workspace_folders=[types.WorkspaceFolder(uri=workspace.uri(r), name=r.name) for r in roots],
                initialization_options=init_options,
                client_info=CLIENT_INFO.get(client_name),
            )
        )
        return Session(client, workspace, client_name, result)

    yield start

    for client in started:
        process = client._server
        try:
            if not client.stopped and process is not None and process.returncode is None:
                await asyncio.wait_for(client.shutdown_session(), WAIT_S)
        finally:
            await client.stop()


@pytest.fixture(params=CLIENTS)
def client_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def keepers_folder() -> Iterator[Path]:
    """A test's own keepers' folder for its chats (``PI_CONTEXT_RUNTIME_DIR`` is its parent; short, since a
    socket path has about 100 bytes); no keeper may be left in it (docs/chat.md, *A turn that outlives the window*).
    """
    from lsp_server.pi_rpc.keeper_files import read_records

    base = Path(tempfile.mkdtemp(prefix="pck", dir="/tmp"))
    yield base / "keepers"
    left = read_records(base / "keepers")
    for record in left:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(record.keeper_pid, signal.SIGKILL)
    shutil.rmtree(base, ignore_errors=True)
    assert left == [], "a chat's keeper was left running"
