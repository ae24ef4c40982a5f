"""``create_server()``: the pygls server with every handler registered.

The custom methods come from the method table (:mod:`.handlers`: one handler per client → server row);
the standard ones from their modules: start, settings and folders (:mod:`.lifecycle`), text
synchronisation and pull diagnostics (:mod:`.sync`), the editor features (``features/``, listed in
``features.FEATURES``) and, in debug mode, the ``pi.debug.*`` commands. The registration modules import
the server's class (:mod:`.app`); the server does not import them: only this module lists them.
"""

from __future__ import annotations

from lsp_server.redaction.keyring import KeyRing
from lsp_server.server import debug_commands, features, handlers, lifecycle, sync
from lsp_server.server.app import PiLanguageServer
from lsp_server.server.debug_flag import debug_enabled


def create_server(*, debug: bool | None = None, keys: KeyRing | None = None) -> PiLanguageServer:
    """A ready-to-start server with every handler registered (``keys``: the ring its log handler redacts with)."""
    server = PiLanguageServer(debug=debug_enabled(debug), keys=keys)
    lifecycle.register(server)
    sync.register(server)
    handlers.register(server)
    for register in features.FEATURES:
        register(server)
    if server.debug:
        debug_commands.register(server)
    return server
