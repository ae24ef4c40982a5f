"""What can go wrong talking to a Pi process, one type per thing a caller handles differently.

Every message is one sentence a user can read as is; the details (Pi's stderr, its exit code) are
attributes, so the chat can show the sentence and log the rest.
"""

from __future__ import annotations

import signal


class PiRpcError(Exception):
    """Base of every error raised by :mod:`lsp_server.pi_rpc`."""


class PiStartError(PiRpcError):
    """The process could not be started at all (no such file, not executable, bad folder)."""


class PiCommandError(PiRpcError):
    """Pi answered the command with ``success: false``; ``error`` is Pi's own text."""

    def __init__(self, command: str, error: str) -> None:
        self.command = command
        self.error = error
        super().__init__(f"Pi refused {command}: {error}")


class PiExitedError(PiRpcError):
    """Pi is gone: the command was pending when it exited, or was sent after."""

    def __init__(self, returncode: int | None, stderr_tail: str, *, expected: bool = False) -> None:
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        self.expected = expected
        super().__init__(describe_exit(returncode, stderr_tail, expected=expected))


class PiProtocolError(PiRpcError):
    """Pi's answer could not be read (for example a response line over the length limit)."""


class PiRequestTimeout(PiRpcError):
    """No response within the deadline the caller gave; the process keeps running."""


def describe_exit(returncode: int | None, stderr_tail: str, *, expected: bool = False) -> str:
    """One sentence: how Pi ended, and the last line it wrote to stderr when there is one."""
    if returncode is None:
        how = "Pi is not running"
    elif returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        how = f"Pi was stopped by {name}"
    else:
        how = f"Pi exited with code {returncode}"
    if expected:
        how += " after it was asked to close"
    last = last_line(stderr_tail)
    return f"{how}: {last}" if last else how


def last_line(text: str, limit: int = 300) -> str:
    """The last non-blank line of ``text``, cut to ``limit`` characters."""
    for line in reversed(text.splitlines()):
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
