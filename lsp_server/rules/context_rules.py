"""Checks for context files (AGENTS.md, CLAUDE.md, ...): one file, and one folder's candidates.

Pi sends every context file with every request, so the useful checks are about cost (bytes,
Pi's token estimate), content Pi sends but cannot use (an empty file, ``@imports`` it does not
expand, links to missing files, invalid UTF-8) and files that are not what Pi loads: a directory
named AGENTS.md, or a CLAUDE.md shadowed by an AGENTS.md in the same folder (Pi takes one file
per folder, in the order of ``CONTEXT_FILE_CANDIDATES``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from lsp_server.context.names import CONTEXT_FILE_CANDIDATES
from lsp_server.findings import Finding, Position, Range
from lsp_server.fsread import InvalidUtf8, exists, is_directory, is_regular_file, read_text
from lsp_server.js.strings import js_trim, normalize_newlines, strip_bom
from lsp_server.rules.profiles import DEFAULT_PROFILE, ProfileId, check_profile
from lsp_server.rules.prompt_rules import check_prompt_text
from lsp_server.rules.references import find_imports
from lsp_server.rules.registry import BODY_CHECK_MAX_BYTES, Emitter
from lsp_server.rules.skill_rules import check_references
from lsp_server.settings.limits import Thresholds
from lsp_server.tokens.pi import pi_text_tokens


@dataclass(frozen=True)
class FolderCandidates:
    """What Pi sees among a folder's candidate names."""

    folder: str
    winner: str | None  # the file Pi loads from this folder
    shadowed: tuple[str, ...]  # regular files with a candidate name that lose to ``winner``
    directories: tuple[str, ...]  # candidate names that exist but are not regular files (skipped)


def folder_candidates(folder: str) -> FolderCandidates:
    """Pi's per-folder choice: the first candidate that is a regular file wins."""
    winner: str | None = None
    shadowed: list[str] = []
    directories: list[str] = []
    seen: list[str] = []
    for name in CONTEXT_FILE_CANDIDATES:
        path = os.path.join(folder, name)
        if os.path.lexists(path) and not is_regular_file(path):
            directories.append(path)
            continue
        if not is_regular_file(path) or any(_same_file(path, other) for other in seen):
            continue  # missing, or the same file under another spelling (case-insensitive disks)
        seen.append(path)
        if winner is None:
            winner = path
        else:
            shadowed.append(path)
    return FolderCandidates(folder, winner, tuple(shadowed), tuple(directories))


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_context_text(
    path: str,
    text: str,
    profile: ProfileId = DEFAULT_PROFILE,
    *,
    thresholds: Thresholds | None = None,
    size: int | None = None,
    invalid_utf8: InvalidUtf8 | None = None,
) -> list[Finding]:
    """Findings about one context file's content (positions in ``text`` as given)."""
    profile = check_profile(profile)
    thresholds = thresholds or Thresholds()
    em = Emitter(path, profile)
    if invalid_utf8 is not None:
        where = Range.at(invalid_utf8.line, invalid_utf8.column, invalid_utf8.line, invalid_utf8.column + 1)
        em.emit("context/invalid-utf8", where, {"offset": invalid_utf8.byte_offset})
    content = strip_bom(text)
    byte_size = size if size is not None else len(content.encode("utf-8", "surrogatepass"))
    if not js_trim(content):
        em.emit("context/empty", Range.file_start())
        return em.findings
    if byte_size > thresholds.context_max_bytes:
        em.emit("context/too-large", Range.file_start(), {"size": byte_size, "limit": thresholds.context_max_bytes})
    tokens = pi_text_tokens(content)
    if tokens > thresholds.context_max_tokens:
        em.emit("context/token-heavy", Range.file_start(), {"tokens": tokens, "limit": thresholds.context_max_tokens})
    lines = normalize_newlines(content).split("\n")  # without the BOM: ``at`` adds its column
    shift = 1 if text.startswith("\ufeff") else 0

    def at(line: int, start: int, end: int) -> Range:
        extra = shift if line == 0 else 0
        return Range(Position(line, start + extra), Position(line, end + extra))

    if byte_size > BODY_CHECK_MAX_BYTES:
        em.emit("file/body-not-checked", Range.file_start(), {"size": byte_size, "limit": BODY_CHECK_MAX_BYTES})
        return em.findings
    check_references(em, path, lines, 0, at, "context")
    check_prompt_text(em, lines, 0, at, "context")
    base = os.path.dirname(path)
    for ref in find_imports(lines):
        where = at(ref.line, ref.start - 1, ref.end)
        em.emit("context/import-not-expanded", where, {"target": ref.target})
        if em.enabled("context/import-missing"):
            target = os.path.expanduser(ref.target) if ref.target.startswith("~/") else os.path.join(base, ref.target)
            if not exists(target):
                em.emit("context/import-missing", where, {"target": ref.target})
    return em.findings


def check_context_folder(folder: str, profile: ProfileId = DEFAULT_PROFILE) -> list[Finding]:
    """Findings about which candidate Pi picks in ``folder`` (shadowed files, directories)."""
    profile = check_profile(profile)
    candidates = folder_candidates(folder)
    findings: list[Finding] = []
    for directory in candidates.directories:
        findings.extend(_not_a_file(directory, profile))
    for path in candidates.shadowed:
        em = Emitter(path, profile)
        winner = os.path.basename(candidates.winner or "")
        em.emit("context/shadowed", Range.file_start(), {"winner": winner}, {"winnerPath": candidates.winner})
        findings.extend(em.findings)
    return findings


def _not_a_file(path: str, profile: ProfileId) -> list[Finding]:
    if is_directory(path):
        what = "a directory"
    elif os.path.islink(path) and not exists(path):
        what = "a dangling symlink"
    else:
        what = "a special file"
    em = Emitter(path, profile)
    em.emit("context/not-a-file", Range.file_start(), {"name": os.path.basename(path), "what": what})
    return em.findings


def check_context_file(
    path: str, profile: ProfileId = DEFAULT_PROFILE, *, thresholds: Thresholds | None = None
) -> list[Finding]:
    """One context file from disk: content findings plus whether Pi would pick it in its folder."""
    profile = check_profile(profile)
    findings: list[Finding] = []
    folder = os.path.dirname(path) or "."
    candidates = folder_candidates(folder)
    if path in candidates.shadowed:
        findings.extend(f for f in check_context_folder(folder, profile) if f.path == path)
    if not is_regular_file(path):
        return findings + _not_a_file(path, profile)
    result = read_text(path)
    if result.text is None:
        em = Emitter(path, profile)
        em.emit("context/unreadable", Range.file_start(), {"path": path, "error": result.error or "read failed"})
        return findings + em.findings
    invalid = result.invalid_utf8
    if invalid is not None and result.text.startswith("\ufeff") and invalid.line == 0:
        invalid = InvalidUtf8(invalid.line, invalid.column - 1, invalid.byte_offset, invalid.count)
    findings.extend(
        check_context_text(
            path, strip_bom(result.text), profile, thresholds=thresholds, size=result.size, invalid_utf8=invalid
        )
    )
    return findings
