"""Exact token counts through an offline tokenizer (the optional ``quicktok-v1`` package).

``quicktok-v1`` ships the o200k, cl100k, Llama 3 and Qwen2.5/3 vocabularies inside its wheel, so it
counts exactly with no download (checked against tiktoken / Hugging Face: 0 mismatches on 203
chunks). It is optional: it is imported only when an exact count is asked for, and its absence is
reported as a note, never as an error. No offline package reproduces Claude 3+/4's tokenizer, so
Claude families have no exact counter.

The note says how to get it, by quicktok-v1's own name on the package index and into the Python that
runs this server (never ``pi-context[tokens]`` by name: the index's ``pi-context`` is not this
project's). The VS Code extension's bundled server does not carry it (quicktok-v1 and numpy add about
20 MB per Python version and target, and have no wheel for Python 3.14, macOS on Intel or Windows on
Arm): there the note says to run an own installation instead.
"""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# family -> quicktok encoding name
EXACT_ENCODINGS: dict[str, str] = {
    "o200k": "o200k_base",
    "cl100k": "cl100k_base",
    "llama3": "llama3",
    "qwen3": "qwen3",
}
# The file the VS Code extension writes into the environment it makes for its bundled server
# (`MARKER_FILE` in vscode-extension/src/bundle.ts): its presence in ``sys.prefix`` means "bundled".
BUNDLE_MARKER = "pi-context-bundle.json"


def install_hint(prefix: str | None = None, executable: str | None = None) -> str:
    """How to get quicktok into *this* server's Python: by the package's own name, or, for the
    extension's bundled server (which installs offline from its wheels only), by running an own one."""
    prefix = sys.prefix if prefix is None else prefix
    executable = sys.executable if executable is None else executable
    if (Path(prefix) / BUNDLE_MARKER).is_file():
        return (
            "the extension's bundled server does not carry it; for exact counts run your own installation: "
            "a Python with pi-context and quicktok-v1 installed, named in the setting piContext.server.python"
        )
    return (
        f"install quicktok-v1 into the Python that runs pi-context ({executable} -m pip install quicktok-v1; "
        "pipx: pipx inject pi-context quicktok-v1; uv: uv tool install --with quicktok-v1 <pi-context wheel>)"
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


class ExactUnavailable(Exception):
    """Why an exact counter cannot be had (missing package, no vocabulary for the family)."""


@dataclass
class ExactCounter:
    """Counts tokens with a real vocabulary; special-token text counts as ordinary text."""

    family: str
    _encoding: Any = field(repr=False)

    @property
    def name(self) -> str:
        return f"exact:{self.family}"

    @property
    def exact(self) -> bool:
        return True

    def count(self, text: str) -> int:
        # A lone surrogate (possible in JSON from a JavaScript program) cannot cross into C++.
        if _SURROGATE.search(text):
            text = _SURROGATE.sub("\ufffd", text)
        return int(self._encoding.count(text))


def load_exact_counter(family: str) -> ExactCounter:
    """The exact counter for ``family``. quicktok keeps each vocabulary once per process (loading
    one takes 0.2-0.5 s), so calling this again is cheap.

    Raises :class:`ExactUnavailable` with a message fit for the user.
    """
    encoding_name = EXACT_ENCODINGS.get(family)
    if encoding_name is None:
        known = ", ".join(EXACT_ENCODINGS)
        raise ExactUnavailable(f"no offline tokenizer for {family!r} (exact counts exist for: {known})")
    try:
        quicktok = importlib.import_module("quicktok")
    except ImportError as exc:
        raise ExactUnavailable(f"exact token counts need the quicktok package: {install_hint()}") from exc
    try:
        encoding = quicktok.get_encoding(encoding_name)
    except Exception as exc:  # a broken install must degrade to the estimate, not crash the server
        raise ExactUnavailable(f"quicktok could not load {encoding_name}: {exc}") from exc
    return ExactCounter(family, encoding)
