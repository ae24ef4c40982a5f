"""Feature handlers: one module per LSP feature or custom method, registered automatically.

Each module here exposes ``register(server: PiLanguageServer) -> None`` and is picked up by
``app.create_server()`` in name order, so adding a feature (hover, code actions, ``pi/systemPrompt``,
``pi.compact``) is adding a file, not editing the app. Keep handlers thin: LSP params in, a call
into the domain, LSP result out; see docs/server.md ("Adding a feature") for the helpers a handler
can use (``ls.documents``, ``ls.wait_ready()``, ``ls.long_operation()``, ``ls.listeners``).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lsp_server.server.app import PiLanguageServer


def register_all(server: PiLanguageServer) -> list[str]:
    """Import every feature module and call its ``register``; returns the module names."""
    names = sorted(module.name for module in pkgutil.iter_modules(__path__) if not module.name.startswith("_"))
    for name in names:
        importlib.import_module(f"{__name__}.{name}").register(server)
    return names
