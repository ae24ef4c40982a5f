"""Checks for context files (AGENTS.md, CLAUDE.md, ...): one file, and one folder's candidates.

A context file's text is sent with every request only where Pi takes it: the folder's first
candidate (``CONTEXT_FILE_CANDIDATES``), in the cwd, one of its parents or the agent dir. Whether
that holds for a file, and the sentence that says so, come from
:class:`~lsp_server.prompt.inclusion.Inclusions`, the resolution that builds the prompt, so a
finding never claims what ``pi-context prompt`` contradicts. The checks are about cost (bytes,
Pi's token estimate: only on the file Pi takes for its folder), content Pi sends but cannot use (an
empty file, ``@imports`` it does not expand, links to missing files, invalid UTF-8) and files that
are not what Pi loads: a directory named AGENTS.md, or a CLAUDE.md shadowed by an AGENTS.md in the
same folder. A CLAUDE.md that is the same file as the folder's AGENTS.md (a link) gets no findings
of its own: they are the AGENTS.md's.
"""

from __future__ import annotations

import os
from dataclasses import replace

from lsp_server.base.findings import Finding, Position, Range, Severity
from lsp_server.base.fsread import InvalidUtf8, exists, is_directory, is_regular_file, read_text
from lsp_server.js.strings import js_trim, normalize_newlines, strip_bom
from lsp_server.prompt.inclusion import ContextInclusion, Inclusions
from lsp_server.rules.prompt_rules import check_prompt_text
from lsp_server.rules.references import find_imports
from lsp_server.rules.registry import BODY_CHECK_MAX_BYTES, Emitter
from lsp_server.rules.skill_rules import check_references
from lsp_server.tokens.pi import pi_text_tokens
from lsp_server.vocabulary.limits import Thresholds
from lsp_server.vocabulary.pi_files import CONTEXT_FILE_CANDIDATES
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, ProfileId, check_profile

COST_CODES = ("context/too-large", "context/token-heavy")
# What a finding says the model receives: not said of a file Pi never sends (pi profile).
RECEIVED_CODES = frozenset({"prompt/forged-tag", "prompt/invisible-characters", "prompt/volatile-content"})


def _lowered_in_skill_folder(findings: list[Finding], inclusion: ContextInclusion) -> list[Finding]:
    """Cost findings on a context file inside a skill's folder are information: Pi sends it only if started there."""
    if inclusion.kind != "started-there" or inclusion.skill_folder is None:
        return findings
    return [
        replace(f, severity=Severity.INFORMATION) if f.code in COST_CODES and f.severity < Severity.INFORMATION else f
        for f in findings
    ]


def check_context_text(
    path: str,
    text: str,
    profile: ProfileId = DEFAULT_PROFILE,
    *,
    thresholds: Thresholds | None = None,
    size: int | None = None,
    invalid_utf8: InvalidUtf8 | None = None,
    inclusion: ContextInclusion | None = None,
) -> list[Finding]:
    """Findings about one context file's content (positions in ``text`` as given).

    ``inclusion`` is the file's place in the project's prompt (:meth:`Inclusions.context`); without
    it the file is taken as its folder's file with Pi started in that folder. The cost rules run
    only on a file Pi takes for its folder, and every finding that says when the text is sent
    says it from ``inclusion``.
    """
    profile = check_profile(profile)
    thresholds = thresholds or Thresholds()
    place = inclusion or ContextInclusion(path, "every-request", os.path.dirname(path))
    when = place.clause()
    em = Emitter(path, profile)
    if place.kind == "same-file":
        return em.findings  # the folder's file under another name: its findings are that file's
    if invalid_utf8 is not None:
        where = Range.at(invalid_utf8.line, invalid_utf8.column, invalid_utf8.line, invalid_utf8.column + 1)
        em.emit("context/invalid-utf8", where, {"offset": invalid_utf8.byte_offset})
    content = strip_bom(text)
    byte_size = size if size is not None else len(content.encode("utf-8", "surrogatepass"))
    if not js_trim(content):
        em.emit("context/empty", Range.file_start())
        return em.findings
    if place.folder_file and byte_size > thresholds.context_max_bytes:
        facts = {"size": byte_size, "limit": thresholds.context_max_bytes, "when": when}
        em.emit("context/too-large", Range.file_start(), facts)
    tokens = pi_text_tokens(content)
    if place.folder_file and tokens > thresholds.context_max_tokens:
        facts = {"tokens": tokens, "limit": thresholds.context_max_tokens, "when": when}
        em.emit("context/token-heavy", Range.file_start(), facts)
    lines = normalize_newlines(content).split("\n")  # without the BOM: ``at`` adds its column
    shift = 1 if text.startswith("\ufeff") else 0

    def at(line: int, start: int, end: int) -> Range:
        extra = shift if line == 0 else 0
        return Range(Position(line, start + extra), Position(line, end + extra))

    if byte_size > BODY_CHECK_MAX_BYTES:
        em.emit("file/body-not-checked", Range.file_start(), {"size": byte_size, "limit": BODY_CHECK_MAX_BYTES})
        return _lowered_in_skill_folder(em.findings, place)
    check_references(em, path, lines, 0, at, "context")
    check_prompt_text(em, lines, 0, at, "context", when=when)
    if profile == "pi" and not place.folder_file:
        # Pi never sends this file (another file of its folder is taken): the rules that say the model
        # receives its text do not apply; a secret stays reported, its message saying Pi does not send it.
        em.findings[:] = [f for f in em.findings if f.code not in RECEIVED_CODES]
    base = os.path.dirname(path)
    for ref in find_imports(lines):
        where = at(ref.line, ref.start - 1, ref.end)
        em.emit("context/import-not-expanded", where, {"target": ref.target})
        if em.enabled("context/import-missing"):
            target = os.path.expanduser(ref.target) if ref.target.startswith("~/") else os.path.join(base, ref.target)
            if not exists(target):
                em.emit("context/import-missing", where, {"target": ref.target})
    return _lowered_in_skill_folder(em.findings, place)


def inclusion_findings(inclusion: ContextInclusion, profile: ProfileId = DEFAULT_PROFILE) -> list[Finding]:
    """What the file's place says by itself: another candidate of its folder wins, or it is not a file."""
    profile = check_profile(profile)
    path = inclusion.path
    if inclusion.kind == "not-a-file" or (inclusion.kind == "absent" and os.path.lexists(path)):
        return _not_a_file(path, profile)  # absent but there: a dangling link (Pi's existsSync says no)
    if inclusion.kind == "shadowed":
        em = Emitter(path, profile)
        winner = os.path.basename(inclusion.winner or "")
        em.emit("context/shadowed", Range.file_start(), {"winner": winner}, {"winnerPath": inclusion.winner})
        return em.findings
    return []


def check_context_folder(
    folder: str, profile: ProfileId = DEFAULT_PROFILE, *, inclusions: Inclusions | None = None
) -> list[Finding]:
    """Findings about which candidate Pi picks in ``folder`` (shadowed files, directories)."""

    places = inclusions or Inclusions.own_folder(folder)
    findings: list[Finding] = []
    for name in CONTEXT_FILE_CANDIDATES:
        path = os.path.join(folder, name)
        if os.path.lexists(path):
            findings.extend(inclusion_findings(places.context(path), profile))
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
    path: str,
    profile: ProfileId = DEFAULT_PROFILE,
    *,
    thresholds: Thresholds | None = None,
    inclusions: Inclusions | None = None,
) -> list[Finding]:
    """One context file from disk: where it stands in the project's prompt, and its content's findings.

    ``inclusions`` is the project's resolution (the check's cwd and agent dir); without it the
    file's own folder stands for the cwd.
    """
    profile = check_profile(profile)
    inclusion = (inclusions or Inclusions.own_folder(os.path.dirname(os.path.abspath(path)))).context(path)
    findings = inclusion_findings(inclusion, profile)
    if inclusion.kind in ("not-a-file", "same-file", "absent") or not is_regular_file(path):
        return findings
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
            path,
            strip_bom(result.text),
            profile,
            thresholds=thresholds,
            size=result.size,
            invalid_utf8=invalid,
            inclusion=inclusion,
        )
    )
    return findings
