"""``initialize`` answered before pygls and lsprotocol are imported: they are most of the start-up.

An editor sends ``initialize`` first and waits for its answer before anything else. Importing
lsprotocol's types alone (the models of every LSP message) takes a third of a second or more, and
the answer needs none of it: it is the server's name and version and its capabilities, which are
fixed by the features it registers (a snapshot, :mod:`~lsp_server.server.capabilities_snapshot`,
written by ``python -m lsp_server.server.early`` and checked against pygls's own answer by
``tests/server/test_early_initialize.py`` for every recorded editor), and, for those features, by
two client capabilities: the position encoding, chosen as pygls chooses it, and whether the client
states its ``willSave`` flags (pygls then writes them, false: the server registers neither).

On stdio, ``pi-context serve`` reads the first message itself (:func:`answer_initialize`). When it
is ``initialize``, the answer is written at once; then pygls gets a stdin that gives that same
message first (so pygls records the client's capabilities and folders and our ``initialize`` handler
runs, as always) and a stdout that drops pygls's own answer to it, after checking it equals the one
sent (a difference is logged: the snapshot is stale). Any other first message, or one that cannot be
read, is handed to pygls untouched.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, BinaryIO

from lsp_server import __version__

# pygls's encodings and default (``ServerCapabilitiesBuilder.choose_position_encoding``).
_ENCODINGS = ("utf-8", "utf-16", "utf-32")
_DEFAULT_ENCODING = "utf-16"
_CONTENT_TYPE = "application/vscode-jsonrpc; charset=utf-8"
_MAX_HEADER_LINES = 32

logger = logging.getLogger(__name__)


def position_encoding(capabilities: Any) -> str:
    """The client's first position encoding that pygls supports, else UTF-16 (pygls's choice)."""
    general = capabilities.get("general") if isinstance(capabilities, dict) else None
    encodings = general.get("positionEncodings") if isinstance(general, dict) else None
    if not isinstance(encodings, list):
        return _DEFAULT_ENCODING
    return next((encoding for encoding in encodings if encoding in _ENCODINGS), _DEFAULT_ENCODING)


def initialize_result(params: Any, *, debug: bool) -> dict[str, Any]:
    """The ``InitializeResult`` pygls would send for ``params`` (the request's JSON parameters)."""
    from lsp_server.server.capabilities_snapshot import CAPABILITIES, COMMANDS_WITH_DEBUG

    capabilities = json.loads(json.dumps(CAPABILITIES))  # a copy the caller may change
    if debug:
        capabilities["executeCommandProvider"]["commands"] = list(COMMANDS_WITH_DEBUG)
    client = params.get("capabilities") if isinstance(params, dict) else None
    capabilities["positionEncoding"] = position_encoding(client)
    # pygls writes the client's willSave flags and'ed with "registered" (never): false when given
    synchronization = _field(_field(client, "textDocument"), "synchronization")
    for key in ("willSave", "willSaveWaitUntil"):
        if _field(synchronization, key) is not None:
            capabilities["textDocumentSync"][key] = False
    return {"capabilities": capabilities, "serverInfo": {"name": "pi-context", "version": __version__}}


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


READ_CHUNK = 1 << 16


def _read_message(stream: BinaryIO) -> tuple[bytes, Any]:
    """Every byte read (the first message and whatever came with it), and the first message's JSON
    (``None`` when it cannot be read as one).

    Read with ``read1`` alone: a ``BufferedReader`` (``sys.stdin.buffer``) then keeps nothing in its
    own buffer, so the bytes returned are all the bytes taken from the stream, and the transport may go
    on reading its file descriptor (:mod:`lsp_server.server.stdio`).
    """
    read1: Callable[[int], bytes] = stream.read1  # type: ignore[attr-defined]
    data = b""
    start = 0  # where the next header line begins
    length: int | None = None
    for _ in range(_MAX_HEADER_LINES):
        while (newline := data.find(b"\n", start)) < 0:
            chunk = read1(READ_CHUNK)
            if not chunk:
                return data, None  # the stream ended inside the headers
            data += chunk
        line, start = data[start : newline + 1], newline + 1
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = int(value.strip())
    else:
        return data, None
    if length is None:
        return data, None
    while len(data) - start < length:
        chunk = read1(READ_CHUNK)
        if not chunk:
            return data, None
        data += chunk
    try:
        return data, json.loads(data[start : start + length])
    except ValueError:
        return data, None


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message)  # ASCII: pygls counts characters for Content-Length, and so may we
    return f"Content-Length: {len(body)}\r\nContent-Type: {_CONTENT_TYPE}\r\n\r\n{body}".encode()


class ReplayingReader:
    """A stdin that gives ``first`` (the bytes already read) before the rest of ``stream``."""

    def __init__(self, first: bytes, stream: BinaryIO) -> None:
        self._first = first
        self._stream = stream

    def take_rest(self) -> tuple[bytes, BinaryIO]:
        """The bytes not given yet and the stream after them (for a transport that reads on its own)."""
        first, self._first = self._first, b""
        return first, self._stream

    def readline(self) -> bytes:
        if not self._first:
            return self._stream.readline()
        newline = self._first.find(b"\n")
        if newline < 0:
            line, self._first = self._first, b""
            return line + self._stream.readline()
        line, self._first = self._first[: newline + 1], self._first[newline + 1 :]
        return line

    def read1(self, size: int = -1, /) -> bytes:
        """What is at hand: the rest of ``first``, else one read of the stream (``BufferedReader.read1``)."""
        if not self._first:
            return self._stream.read1(size)  # type: ignore[attr-defined,no-any-return]
        if size < 0:
            size = len(self._first)
        data, self._first = self._first[:size], self._first[size:]
        return data

    def read(self, size: int = -1) -> bytes:
        if not self._first:
            return self._stream.read(size)
        if size < 0:
            data, self._first = self._first, b""
            return data + self._stream.read()
        data, self._first = self._first[:size], self._first[size:]
        if len(data) < size:
            data += self._stream.read(size - len(data))
        return data


class AnsweredWriter:
    """A stdout that drops pygls's answer to the ``initialize`` already answered, checking it first."""

    def __init__(self, stream: BinaryIO, request_id: Any, sent: dict[str, Any]) -> None:
        self._stream = stream
        self._id = request_id
        self._sent: dict[str, Any] | None = sent

    def write(self, data: bytes) -> int:
        if self._sent is not None and self._is_answer(data):
            return len(data)
        return self._stream.write(data)

    def _is_answer(self, data: bytes) -> bool:
        _, _, body = data.partition(b"\r\n\r\n")
        try:
            message = json.loads(body)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != self._id or "method" in message:
            return False
        sent, self._sent = self._sent, None
        if message.get("result") != sent:
            logger.warning(
                "initialize was answered early with capabilities that differ from pygls's (the snapshot is"
                " stale: run python -m lsp_server.server.early): sent %s, pygls %s",
                json.dumps(sent, sort_keys=True),
                json.dumps(message.get("result"), sort_keys=True),
            )
        return True

    def flush(self) -> None:
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()


def answer_initialize(stdin: BinaryIO, stdout: BinaryIO, *, debug: bool) -> tuple[ReplayingReader, BinaryIO]:
    """Read the first message; answer it when it is ``initialize``. Returns the stdin and stdout for pygls."""
    raw, message = _read_message(stdin)
    if not (isinstance(message, dict) and message.get("method") == "initialize" and "id" in message):
        return ReplayingReader(raw, stdin), stdout
    result = initialize_result(message.get("params"), debug=debug)
    stdout.write(_frame({"jsonrpc": "2.0", "id": message["id"], "result": result}))
    stdout.flush()
    return ReplayingReader(raw, stdin), AnsweredWriter(stdout, message["id"], result)  # type: ignore[return-value]


# --- the snapshot ---------------------------------------------------------------------------------


def computed_capabilities(client_capabilities: Any, *, debug: bool) -> dict[str, Any]:
    """pygls's ``InitializeResult`` for a server with every feature registered (imports pygls and lsprotocol)."""
    from lsprotocol import types
    from lsprotocol.converters import get_converter
    from pygls.capabilities import ServerCapabilitiesBuilder

    from lsp_server.server.create import create_server

    converter = get_converter()
    server = create_server(debug=debug)
    features = server.protocol.fm
    client = converter.structure(client_capabilities, types.ClientCapabilities)
    built = ServerCapabilitiesBuilder(
        client,
        set({**features.features, **features.builtin_features}.keys()),
        features.feature_options,
        list(features.commands.keys()),
        server._text_document_sync_kind,
        server._notebook_document_sync,
        ServerCapabilitiesBuilder.choose_position_encoding(client),
    ).build()  # type: ignore[no-untyped-call]
    result = types.InitializeResult(capabilities=built, server_info=server.protocol.server_info)
    unstructured: dict[str, Any] = converter.unstructure(result)
    return unstructured


def write_snapshot(path: str) -> None:
    """Write :mod:`~lsp_server.server.capabilities_snapshot` from pygls's answer to a client without capabilities."""
    import subprocess
    import sys

    plain = computed_capabilities({}, debug=False)["capabilities"]
    debug = computed_capabilities({}, debug=True)["capabilities"]
    plain.pop("positionEncoding", None)
    with_debug = debug["executeCommandProvider"]["commands"]
    text = (
        '"""The server\'s capabilities, as pygls computes them from the registered features: generated\n'
        "by ``python -m lsp_server.server.early`` (do not edit); :mod:`lsp_server.server.early` answers\n"
        "``initialize`` with them before pygls is imported. ``tests/server/test_early_initialize.py`` fails\n"
        'when they are stale."""\n\n'
        "from typing import Any\n\n"
        f"CAPABILITIES: dict[str, Any] = {json.dumps(plain, indent=4, sort_keys=True)}\n\n"
        "# The commands with the pi.debug.* ones, registered with --debug or PI_CONTEXT_DEBUG=1.\n"
        f"COMMANDS_WITH_DEBUG: list[str] = {json.dumps(with_debug, indent=4)}\n"
    )
    text = text.replace(": true", ": True").replace(": false", ": False").replace(": null", ": None")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    # the repository's formatting, when ruff is at hand (a development install has it)
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", path], check=False, capture_output=True)


if __name__ == "__main__":
    import os

    write_snapshot(os.path.join(os.path.dirname(__file__), "capabilities_snapshot.py"))
