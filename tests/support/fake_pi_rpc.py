"""A stand-in for ``pi --mode rpc`` that does what each command asks, for testing the client fast.

The real-Pi tests (tests/pi_rpc/test_real_*.py) prove the client against Pi itself; this peer makes
the cases Pi will not produce on demand: answers out of order, interleaved events, bytes split at
any point, over-long or broken lines, a crash with stderr, a process that ignores EOF and SIGTERM, a
detached grandchild. Stdlib only; run as ``python fake_pi_rpc.py [--ignore-eof] [--ignore-term]``
(Pi's own arguments such as ``--mode rpc`` are accepted and ignored).

Commands (one JSON object per line on stdin; every one but ``exit`` is answered by id):

- ``echo``: answers with ``data`` = the command itself;
- ``later``: answers after ``delay`` seconds, so later commands are answered first (with ``"onSignal": true``:
  when the peer gets SIGUSR1, so the test decides the moment, not a timer);
- ``emit``: writes ``lines`` (strings, written as UTF-8 followed by ``\\n`` unless ``raw``), then answers;
- ``chunks``: writes ``chunks`` (latin-1 strings = raw bytes) one write and flush each, then answers;
- ``fail``: answers ``success: false`` with ``error``;
- ``stderr``: writes ``text`` to stderr (``repeat`` times), then answers;
- ``big``: answers with a ``data.text`` of ``size`` bytes;
- ``exit``: writes ``stderr`` text and exits with ``code`` without answering;
- ``schedule``: answers at once, and writes ``lines`` in one write after ``delay`` seconds (a run going on by
  itself), or with ``"onSignal": true`` when the peer gets SIGUSR1;
- ``abort``: writes ``{"type":"agent_settled","aborted":true}``, then answers (as Pi does once the run settled);
- ``spawn``: starts ``sleep 300`` detached (its own session, as Pi's bash tool does) and answers its pid;
- ``hang``: never answers;
- ``get_state``: answers a new, idle session's state (``messageCount`` 0), so a client can start on it.

Any other command is answered ``Unknown command: <type>``, as Pi answers one it does not have: to
the chat, this peer is a Pi whose RPC lacks every command but ``get_state`` and ``abort``. With
``--knows a,b`` it answers those commands too, with empty data (``get_messages``: no messages).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

_lock = threading.Lock()
_signalled = threading.Event()  # SIGUSR1 came: the work held for it is done (each holder waits in a thread)
_KNOWN: set[str] = set()  # --knows: commands answered with empty data


def _when(command: dict[str, Any], work: Any, *args: Any) -> None:
    """Run ``work(*args)`` after the command's ``delay``, or at SIGUSR1 when it asks ``onSignal``."""
    if command.get("onSignal"):
        threading.Thread(target=lambda: (_signalled.wait(), work(*args)), daemon=True).start()
    else:
        threading.Timer(float(command.get("delay", 0.2)), work, args).start()


def write(data: bytes) -> None:
    with _lock:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


def answer(command: dict[str, Any], data: Any = None, success: bool = True, error: str | None = None) -> None:
    record: dict[str, Any] = {"id": command.get("id"), "type": "response", "command": command.get("type")}
    record["success"] = success
    if data is not None:
        record["data"] = data
    if error is not None:
        record["error"] = error
    write(json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")


def handle(command: dict[str, Any]) -> None:
    kind = command.get("type")
    if kind == "echo":
        answer(command, command)
    elif kind == "later":
        _when(command, answer, command, {"late": True})
    elif kind == "emit":
        for line in command.get("lines", []):
            write(line.encode("utf-8") + (b"" if command.get("raw") else b"\n"))
        answer(command, {"emitted": len(command.get("lines", []))})
    elif kind == "chunks":
        for chunk in command.get("chunks", []):
            write(chunk.encode("latin-1"))
            time.sleep(0.002)
        answer(command, {"chunks": len(command.get("chunks", []))})
    elif kind == "schedule":
        lines = [str(line) for line in command.get("lines", [])]
        burst = b"".join(line.encode() + b"\n" for line in lines)  # one write: one read for the client, mostly
        _when(command, write, burst)
        answer(command, {"scheduled": len(lines)})
    elif kind == "abort":
        write(b'{"type":"agent_settled","aborted":true}\n')
        answer(command)
    elif kind == "fail":
        answer(command, success=False, error=command.get("error", "it failed"))
    elif kind == "stderr":
        for _ in range(int(command.get("repeat", 1))):
            sys.stderr.write(command.get("text", ""))
        sys.stderr.flush()
        answer(command)
    elif kind == "big":
        answer(command, {"text": "x" * int(command.get("size", 0))})
    elif kind == "exit":
        sys.stderr.write(command.get("stderr", ""))
        sys.stderr.flush()
        os._exit(int(command.get("code", 1)))
    elif kind == "spawn":
        child = subprocess.Popen(["sleep", "300"], start_new_session=True)
        answer(command, {"pid": child.pid})
    elif kind == "hang":
        pass
    elif kind == "get_state":
        answer(command, {"messageCount": 0, "isStreaming": False, "isCompacting": False})
    elif kind in _KNOWN:
        answer(command, {"messages": []} if kind == "get_messages" else {})
    else:
        answer(command, success=False, error=f"Unknown command: {kind}")


def main() -> int:
    signal.signal(signal.SIGUSR1, lambda *_: _signalled.set())
    if "--knows" in sys.argv:
        _KNOWN.update(sys.argv[sys.argv.index("--knows") + 1].split(","))
    if "--ignore-term" in sys.argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for raw in sys.stdin.buffer:
        line = raw.rstrip(b"\n").rstrip(b"\r")
        if not line:
            continue
        try:
            command = json.loads(line)
        except ValueError as error:
            write(json.dumps({"type": "response", "command": "parse", "success": False, "error": str(error)}).encode())
            write(b"\n")
            continue
        handle(command)
    if "--ignore-eof" in sys.argv:
        while True:
            time.sleep(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
