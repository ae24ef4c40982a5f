"""The optional C modules (``*/_native.c``): each is imported here, or is absent and its caller runs Python.

A build without a C compiler has none of them, and ``PI_CONTEXT_NATIVE=0`` turns them all off in a
process that has them: the tests and the benchmarks compare the C paths with the Python ones they
replace, which stay as the fallback and give the same answers.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def native_module(name: str) -> ModuleType | None:
    """The C module ``name`` (say ``lsp_server.session._native``), or ``None`` when absent or turned off."""
    if os.environ.get("PI_CONTEXT_NATIVE", "1") == "0":
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
