"""A module imported on first use, for handlers registered at start-up but run later.

Why: start-up time. An editor waits for the answer to ``initialize`` before it shows anything of
the server, and importing ``lsp_server.protocol`` (pydantic and every payload model) costs more
than pygls itself. The feature modules are imported when the server registers its handlers, so
an ordinary ``from lsp_server import protocol`` at their top would put pydantic on that path.

How: each feature module writes

    if TYPE_CHECKING:
        from lsp_server import protocol  # mypy and readers see the real module
    else:
        protocol = lazy_module("lsp_server.protocol")

and keeps writing ``protocol.ChatStartParams`` in its handlers; the module is imported the first
time an attribute is read (by then ``preload_domain`` has usually imported it in a thread).
``tests/server/test_startup.py`` checks that creating the server imports no pydantic and no
protocol; drop this only together with that requirement.
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
    """A stand-in for the module ``name`` that imports it on first attribute use (typed ``Any``:
    mypy reads the ``TYPE_CHECKING`` import instead)."""
    return LazyModule(name)
