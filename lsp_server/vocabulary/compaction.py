"""Pi's compaction settings and their defaults: the one type every layer takes.

Pi resolves ``compaction`` (and ``branchSummary.reserveTokens``) from its settings files per model
(``getCompactionSettings(model)``); pi-context reads the files in :mod:`lsp_server.context.pi_settings`
and resolves them into :class:`CompactionSettings`, which the budget, the cut point, the summarizer's
token cap and the server take as is. Here because the settings reader, the session's estimates and the
summarizer all need it and none of them is below the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

# Pi's defaults (``DEFAULT_COMPACTION_SETTINGS``, also ``SETTINGS_DEFAULTS.compaction``); the only copy here.
DEFAULT_COMPACTION_ENABLED: Final = True
DEFAULT_RESERVE_TOKENS: Final = 16384
DEFAULT_KEEP_RECENT_TOKENS: Final = 20000
DEFAULT_BRANCH_RESERVE_TOKENS: Final = 16384  # branchSummary.reserveTokens


@dataclass(frozen=True)
class CompactionSettings:
    """Pi's compaction settings in force for one model (``getCompactionSettings(model)``).

    The one type for the concept: settings files are read into ``context.settings.CompactionSection``
    and resolved per model into this; the budget, the cut point and the server all take it as is.
    """

    enabled: bool = DEFAULT_COMPACTION_ENABLED
    reserve_tokens: int = DEFAULT_RESERVE_TOKENS
    keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS
    override_key: str | None = None  # the "provider/modelId" of compaction.modelOverrides that applied

    def to_json(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "reserveTokens": self.reserve_tokens,
            "keepRecentTokens": self.keep_recent_tokens,
        }


DEFAULT_COMPACTION_SETTINGS: Final = CompactionSettings()
