"""Checks for SYSTEM.md and APPEND_SYSTEM.md: the text Pi puts at the top of every request.

Pi reads ``<cwd>/.pi/SYSTEM.md`` (trusted projects) or ``<agentDir>/SYSTEM.md`` as the prompt's
preamble, and APPEND_SYSTEM.md from the same places as the ``<addendum>`` section (the spec's
section 3). Their content is the user's own prompt, so only the ``prompt/*`` rules apply: what
the model should not receive (forged tags, hidden characters, secrets).
"""

from __future__ import annotations

import os

from lsp_server.base.findings import Finding, Position, Range
from lsp_server.base.fsread import is_regular_file, read_text
from lsp_server.js.strings import normalize_newlines, strip_bom
from lsp_server.prompt.inclusion import Inclusions
from lsp_server.rules.prompt_rules import check_prompt_text
from lsp_server.rules.registry import BODY_CHECK_MAX_BYTES, Emitter
from lsp_server.vocabulary.pi_files import APPEND_SYSTEM_PROMPT_FILE, PROJECT_CONFIG_DIR, SYSTEM_PROMPT_FILE
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, ProfileId, check_profile

SYSTEM_PROMPT_NAMES = frozenset({SYSTEM_PROMPT_FILE, APPEND_SYSTEM_PROMPT_FILE})


def is_system_prompt_file(path: str) -> bool:
    """A SYSTEM.md or APPEND_SYSTEM.md where Pi reads one: in a ``.pi`` folder or an agent dir (``.pi/agent``)."""
    if os.path.basename(path) not in SYSTEM_PROMPT_NAMES:
        return False
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.basename(parent) == PROJECT_CONFIG_DIR:
        return True
    return os.path.basename(parent) == "agent" and os.path.basename(os.path.dirname(parent)) == PROJECT_CONFIG_DIR


def check_system_prompt_text(
    path: str, text: str, profile: ProfileId = DEFAULT_PROFILE, *, inclusions: Inclusions | None = None
) -> list[Finding]:
    """Findings about a SYSTEM.md / APPEND_SYSTEM.md whose content is ``text`` (positions in ``text``).

    ``inclusions`` (the project's cwd and agent dir) says when Pi sends it; without it the project
    is the folder that holds the ``.pi`` folder.
    """
    profile = check_profile(profile)
    em = Emitter(path, profile)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > BODY_CHECK_MAX_BYTES:
        em.emit("file/body-not-checked", Range.file_start(), {"size": size, "limit": BODY_CHECK_MAX_BYTES})
        return em.findings
    shift = 1 if text.startswith("\ufeff") else 0
    lines = normalize_newlines(strip_bom(text)).split("\n")

    def at(line: int, start: int, end: int) -> Range:
        extra = shift if line == 0 else 0
        return Range(Position(line, start + extra), Position(line, end + extra))

    place = "append" if os.path.basename(path) == APPEND_SYSTEM_PROMPT_FILE else "system"
    check_prompt_text(em, lines, 0, at, place, when=(inclusions or _own_project(path)).system_prompt(path))
    return em.findings


def _own_project(path: str) -> Inclusions:
    """Without a project: the folder holding ``.pi`` is the cwd, and an agent dir's file is the agent dir's."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(folder) == PROJECT_CONFIG_DIR:
        project = os.path.dirname(folder)
        return Inclusions(project, os.path.join(project, PROJECT_CONFIG_DIR, "agent"))
    return Inclusions(folder, folder)


def check_system_prompt_file(
    path: str, profile: ProfileId = DEFAULT_PROFILE, *, inclusions: Inclusions | None = None
) -> list[Finding]:
    """One SYSTEM.md / APPEND_SYSTEM.md from disk (nothing when it is not a readable regular file)."""
    if not is_regular_file(path):
        return []
    result = read_text(path)
    if result.text is None:
        return []
    return check_system_prompt_text(path, strip_bom(result.text), profile, inclusions=inclusions)
