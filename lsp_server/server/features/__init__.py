"""Feature handlers: one module per LSP feature or custom method, each with ``register(server)``.

:data:`FEATURES` lists them; ``app.create_server()`` calls each in that order. Adding a feature
(hover, code actions, ``pi/systemPrompt``, ``pi.compact``) is adding a module and a line here.
Keep handlers thin: LSP params in, a call into the domain or ``ls.projects``, LSP result out; see
docs/server.md ("Adding a feature") for the helpers a handler can use (``ls.documents``,
``ls.projects``, ``ls.sessions``, ``ls.wait_ready()``, ``ls.long_operation()``, ``ls.listeners``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lsp_server.server.features import (
    budget,
    chat,
    code_actions,
    completion,
    costs,
    hover,
    prompt_sections,
    reload,
    sessions,
    summaries,
    symbols,
    system_prompt,
    usage,
)

if TYPE_CHECKING:
    from lsp_server.server.app import PiLanguageServer

FEATURES: tuple[Callable[[PiLanguageServer], None], ...] = (
    budget.register,
    chat.register,
    code_actions.register,
    completion.register,
    costs.register,
    hover.register,
    prompt_sections.register,
    reload.register,
    sessions.register,
    summaries.register,
    symbols.register,
    system_prompt.register,
    usage.register,
)
