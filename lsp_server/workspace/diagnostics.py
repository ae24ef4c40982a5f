"""The book of what each file currently has, and how often files were checked.

``DiagnosticsBook`` remembers the last findings per path so the workspace publishes only when
something changed, clears a file exactly once when it is fixed or deleted, and can answer a pull
request (``textDocument/diagnostic``) without re-checking. ``CheckStats`` counts how often each file
was validated, so tests can prove that work follows the change. The conversion of findings to the
client's positions is the LSP binding's (:mod:`lsp_server.server.diagnostics`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lsp_server.base.findings import Finding
from lsp_server.vocabulary.profiles import get_profile

if TYPE_CHECKING:
    from lsp_server.vocabulary.profiles import ProfileId


@dataclass(frozen=True)
class FileDiagnostics:
    """What was computed for one file: from which text (and editor version), and the findings."""

    path: str
    findings: tuple[Finding, ...]
    text: str | None
    version: int | None


class DiagnosticsBook:
    """Current findings per path. ``record`` says whether the client needs a new publish."""

    def __init__(self) -> None:
        self._files: dict[str, FileDiagnostics] = {}

    def record(self, entry: FileDiagnostics) -> bool:
        previous = self._files.get(entry.path)
        if not entry.findings:
            if previous is None:
                return False  # never published anything: nothing to clear
            del self._files[entry.path]
            return bool(previous.findings)
        self._files[entry.path] = entry
        if previous is None:
            return True
        # Same findings from other text can still move ranges in the client's units: republish.
        return previous.findings != entry.findings or previous.text != entry.text

    def forget(self, path: str) -> FileDiagnostics | None:
        return self._files.pop(path, None)

    def get(self, path: str) -> FileDiagnostics | None:
        return self._files.get(path)

    def paths(self) -> list[str]:
        return sorted(self._files)

    def __len__(self) -> int:
        return len(self._files)


def left_to_the_editor(findings: Sequence[Finding], profile: ProfileId, client_name: str) -> list[Finding]:
    """The findings the server publishes: without those the profile's own editor reports itself.

    The profile's row says which codes and which editors (``editor_reports``, ``editor_clients``:
    under ``vscode``, in VS Code). Another editor (Neovim with the ``vscode`` profile, to write
    skills for VS Code's agent) has no such checker, so it gets every finding. Quick fixes are
    computed from the file, not from what was published, so VS Code's own diagnostics still get ours.
    """

    dropped = get_profile(profile).left_to_the_editor(client_name)
    if not dropped:
        return list(findings)
    return [finding for finding in findings if finding.code not in dropped]


@dataclass
class CheckStats:
    """How often each file was validated, and which version the last validation saw."""

    validations: Counter[str] = field(default_factory=Counter)
    last_version: dict[str, int | None] = field(default_factory=dict)
    repeats: Counter[str] = field(default_factory=Counter)  # validations of the buffer version validated just before
    published: int = 0
    watch_batches: int = 0
    watch_paths: int = 0
    over_budget: int = 0  # checks that outlasted their time budget (file/not-fully-checked)

    def count(self, path: str, version: int | None) -> None:
        """One validation of ``path`` at editor ``version`` (``None``: from disk)."""
        if version is not None and self.last_version.get(path) == version:
            self.repeats[path] += 1
        self.validations[path] += 1
        self.last_version[path] = version

    def to_json(self) -> dict[str, Any]:
        return {
            "validations": dict(sorted(self.validations.items())),
            "lastVersion": dict(sorted(self.last_version.items())),
            "repeats": dict(sorted(self.repeats.items())),
            "overBudget": self.over_budget,
            "published": self.published,
            "watchBatches": self.watch_batches,
            "watchPaths": self.watch_paths,
        }
