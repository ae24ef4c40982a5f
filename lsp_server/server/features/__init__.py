"""The editor features: standard LSP requests answered with pi-context's content, one module each.

Hover (:mod:`.hover`), completion (:mod:`.completion`), quick fixes (:mod:`.code_actions`), code lenses
and document symbols (:mod:`.symbols`): LSP params in, a call into the domain (``lsp_server.editing``)
or the workspace (``ls.ws``), the answer in the client's position encoding out (:mod:`._editing`).
:data:`FEATURES` lists them; :func:`lsp_server.server.create.create_server` calls each. The custom
methods are not here: they are the method table's rows (:mod:`lsp_server.server.handlers`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lsp_server.server.features import code_actions, completion, hover, symbols

if TYPE_CHECKING:
    from lsp_server.server.app import PiLanguageServer

FEATURES: tuple[Callable[[PiLanguageServer], None], ...] = (
    code_actions.register,
    completion.register,
    hover.register,
    symbols.register,
)
