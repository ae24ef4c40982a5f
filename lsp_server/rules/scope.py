"""Which files a check covers, and which findings it reports as test fixtures' (``piContext.check.*``).

Repositories keep skills and context files that are broken on purpose: pi-mono's
``packages/coding-agent/test/fixtures`` holds a skill with invalid YAML, one without a description,
names Pi warns about, a collision. Checked from the repository root, they made ``check`` exit 1.
Two answers, both settings (``check.exclude``, ``check.fixtureFolders``) and, for the first, the
``--exclude`` flag:

* **exclude** (globs): such paths are not checked at all. A pattern without a ``/`` matches a file
  or folder name at any depth (``fixtures``, ``*.draft.md``); one with a ``/`` matches the path
  relative to the folder being checked (``packages/*/test/fixtures``, ``**/testdata``), with
  minimatch's rules (:mod:`lsp_server.context.globmatch`). An excluded folder is not entered. A
  file named on the command line is checked whatever the patterns say (it was asked for).
* **fixture folders** (names, default ``fixtures``, ``__fixtures__``, ``testdata``): a finding in
  a file below a folder of that name (below the checked folder: checking a fixture folder itself
  reports as usual) is kept, explained and lowered: an error or warning becomes information, and
  the message ends with ``[test fixture (<folder>): <severity> lowered to info]``. So the findings
  stay visible, and a fixture meant to be broken does not fail the check. ``[]`` turns it off.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from lsp_server.base.findings import Finding, Severity
from lsp_server.context.globmatch import minimatch

DEFAULT_FIXTURE_FOLDERS: tuple[str, ...] = ("fixtures", "__fixtures__", "testdata")


@dataclass(frozen=True)
class CheckScope:
    """The check's exclude patterns and fixture folder names (from settings and flags)."""

    exclude: tuple[str, ...] = ()
    fixture_folders: tuple[str, ...] = DEFAULT_FIXTURE_FOLDERS

    def excluded(self, relative: str) -> bool:
        """Whether ``relative`` (a path below the checked folder, ``/``-separated) is left out."""
        if not self.exclude or not relative or relative == ".":
            return False
        name = relative.rsplit("/", 1)[-1]
        for pattern in self.exclude:
            stripped = pattern.strip().rstrip("/").removeprefix("./")
            if not stripped:
                continue
            if "/" not in stripped:
                if minimatch(name, stripped):
                    return True
            elif minimatch(relative, stripped):
                return True
        return False

    def fixture_folder(self, relative: str) -> str | None:
        """The fixture folder (relative, ``/``-separated) that holds ``relative``, if any."""
        if not self.fixture_folders:
            return None
        parts = relative.split("/")[:-1]  # folders only: the file's own name does not count
        for index, part in enumerate(parts):
            if part in self.fixture_folders:
                return "/".join(parts[: index + 1])
        return None


def relative_below(path: str, roots: Sequence[str]) -> str | None:
    """``path`` relative to the innermost of ``roots`` holding it (``/``-separated), or None."""
    absolute = os.path.abspath(path)
    holding = [root for root in roots if absolute.startswith(root.rstrip(os.sep) + os.sep)]
    if not holding:
        return None
    root = max(holding, key=len)
    return os.path.relpath(absolute, root).replace(os.sep, "/")


def explain_fixtures(findings: Iterable[Finding], roots: Sequence[str], scope: CheckScope) -> list[Finding]:
    """Findings in files below a fixture folder of a checked root: kept, lowered to info at most, explained."""
    out: list[Finding] = []
    absolute_roots = [os.path.abspath(root) for root in roots]
    for finding in findings:
        relative = relative_below(finding.path, absolute_roots)
        folder = scope.fixture_folder(relative) if relative is not None else None
        if folder is None:
            out.append(finding)
            continue
        lowered = finding.severity < Severity.INFORMATION
        note = f"[test fixture ({folder}): {finding.severity.label} lowered to info]" if lowered else ""
        note = note or f"[test fixture ({folder})]"
        data = {**finding.data, "fixture": folder}
        if lowered:
            data["severity"] = finding.severity.label
        out.append(
            replace(
                finding,
                severity=Severity.INFORMATION if lowered else finding.severity,
                message=f"{finding.message} {note}",
                data=data,
            )
        )
    return out
