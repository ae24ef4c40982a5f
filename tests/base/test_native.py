"""PI_CONTEXT_NATIVE=0 turns every optional C module off, and the Python paths take over."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from lsp_server.base.native import native_module

_WHICH = (
    "from lsp_server.base import fsread\n"
    "from lsp_server.context.yaml.libyaml import native_composer\n"
    "from lsp_server.session import jsonl\n"
    "print(fsread._native_read() is not None, native_composer() is not None,"
    " jsonl._slow_offsets is not jsonl._python_slow_offsets,"
    " jsonl._share_strings is not jsonl._python_share_strings)\n"
)


def _which(native: str) -> list[str]:
    env = {**os.environ, "PI_CONTEXT_NATIVE": native}
    done = subprocess.run([sys.executable, "-c", _WHICH], capture_output=True, text=True, env=env, check=True)
    return done.stdout.split()


def test_native_zero_turns_every_c_module_off() -> None:
    assert _which("0") == ["False"] * 4


def test_the_c_modules_are_used_where_built() -> None:
    if native_module("lsp_server.base._native") is None:
        pytest.skip("built without the C modules")
    assert _which("1") == ["True"] * 4


def test_a_missing_module_is_none() -> None:
    assert native_module("lsp_server.base._no_such_native") is None
