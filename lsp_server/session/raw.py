"""The raw form of a session entry, without the typed models (so reading a session imports no pydantic).

Reading, following, projecting and compacting a session only ever compute on the parsed dicts;
the pydantic models of :mod:`lsp_server.session.entries` are for code that builds or writes an
entry. Keeping these two names here lets the read path (and its memory) stay free of them: in a
process that only reads a 100 MB session, pydantic and the models were 20 MB of its peak.
"""

from __future__ import annotations

from typing import Any, Final

Entry = dict[str, Any]
"""A session entry exactly as parsed from its line (see :mod:`lsp_server.session.entries`)."""

CURRENT_SESSION_VERSION: Final = 3
