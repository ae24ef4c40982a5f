"""A module imported on first use, for handlers registered at start-up but run later.

``protocol = lazy_module("lsp_server.protocol")`` (under ``if not TYPE_CHECKING``, with the real
import under ``if TYPE_CHECKING`` for mypy) lets a feature module keep writing
``protocol.ChatStartParams`` in its handlers while the server answers ``initialize`` without
importing pydantic: the module is imported the first time an attribute is read.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``; reading an attribute imports it (once: ``sys.modules`` keeps it)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name}>"


def lazy_module(name: str) -> Any:
    return LazyModule(name)
