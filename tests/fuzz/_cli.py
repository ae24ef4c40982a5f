"""The real CLI (``lsp_server.cli.main``) run in this process, so a fuzz case costs milliseconds.

Argument parsing, the sub-command, project opening and printing are the code a user runs; only
the process start is skipped (the subprocess tests in tests/cli cover that). stdout and stderr
are byte streams behind ``TextIOWrapper`` as in a real process, so an unencodable character fails
here as it would in a pipe. An exception escaping ``main`` is the crash the properties look for.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from lsp_server.cli import main


@dataclass(frozen=True)
class CliRun:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(*argv: str) -> CliRun:
    saved = sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    streams = [io.TextIOWrapper(buffer, encoding="utf-8", errors="strict", write_through=True) for buffer in (out, err)]
    sys.stdout, sys.stderr = streams
    try:
        code = main(list(argv))
        for stream in streams:
            stream.flush()
        return CliRun(code, out.getvalue().decode("utf-8"), err.getvalue().decode("utf-8"))
    finally:
        sys.stdout, sys.stderr = saved
        for stream in streams:
            stream.detach()  # the buffers outlive the wrappers


@contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """Set environment variables for a module's worth of cases (hypothesis and monkeypatch do not mix)."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
