"""The characters after which an editor asks for completions (a frontmatter key's colon).

Apart from :mod:`lsp_server.editing.completions` so the server can announce them in its
``initialize`` answer without importing the rules behind the completions.
"""

from __future__ import annotations

TRIGGER_CHARACTERS = (":",)
