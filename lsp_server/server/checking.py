"""Per-file checking: which checker runs, and the stats that prove how often it ran.

The rules themselves live in the domain (``lsp_server.checks``). The server only needs three
answers from it, captured by ``FileChecker``: does a path concern us, what are the findings for a
text, and which files of a workspace to check at start (optionally a fourth: ``affected_by(path,
settings)``, the other files whose findings depend on this one, such as same-named skills).
``load_checker`` returns the domain's
checker when it is installed and a checker that wants nothing otherwise, so the server runs
(without diagnostics) before the rules exist.
"""

from __future__ import annotations

import importlib
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from lsp_server.findings import Finding
from lsp_server.server.config import ServerSettings

logger = logging.getLogger(__name__)


class FileChecker(Protocol):
    """What the server needs from the rules."""

    name: str

    def wants(self, path: str, settings: ServerSettings) -> bool:
        """Whether ``path`` is a file we check (a SKILL.md, a context file, ...)."""
        ...

    def check(self, path: str, text: str | None, settings: ServerSettings) -> Sequence[Finding]:
        """Findings for ``path`` with content ``text`` (``None``: the file is gone or unreadable)."""
        ...

    def workspace_files(self, roots: Sequence[str], settings: ServerSettings) -> Iterable[str]:
        """Every file under ``roots`` (and the agent dir) that ``wants`` accepts."""
        ...


class NoChecker:
    """Stands in while no rules are installed: wants nothing, finds nothing."""

    name = "none"

    def wants(self, path: str, settings: ServerSettings) -> bool:
        return False

    def check(self, path: str, text: str | None, settings: ServerSettings) -> Sequence[Finding]:
        return ()

    def workspace_files(self, roots: Sequence[str], settings: ServerSettings) -> Iterable[str]:
        return ()


def load_checker() -> FileChecker:
    """The domain's checker (``lsp_server.checks.server_checker()``), else ``NoChecker``."""
    try:
        module: Any = importlib.import_module("lsp_server.checks")
    except ImportError:
        return NoChecker()
    factory = getattr(module, "server_checker", None)
    if factory is None:
        logger.warning("lsp_server.checks has no server_checker(); diagnostics are off")
        return NoChecker()
    checker: FileChecker = factory()
    return checker


@dataclass
class CheckStats:
    """How often each file was validated, and which version the last validation saw."""

    validations: Counter[str] = field(default_factory=Counter)
    last_version: dict[str, int | None] = field(default_factory=dict)
    published: int = 0
    watch_batches: int = 0
    watch_paths: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "validations": dict(sorted(self.validations.items())),
            "lastVersion": dict(sorted(self.last_version.items())),
            "published": self.published,
            "watchBatches": self.watch_batches,
            "watchPaths": self.watch_paths,
        }
