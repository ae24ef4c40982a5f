"""Whether the server registers its ``pi.debug.*`` commands: ``--debug``, else ``PI_CONTEXT_DEBUG``.

Apart from the server's module so that ``initialize`` can be answered (with or without those
commands among the capabilities) before pygls is imported (:mod:`lsp_server.server.early`).
"""

from __future__ import annotations

import os

DEBUG_ENV = "PI_CONTEXT_DEBUG"


def debug_enabled(flag: bool | None = None) -> bool:
    if flag is not None:
        return flag
    return os.environ.get(DEBUG_ENV, "") not in ("", "0", "false", "no")
