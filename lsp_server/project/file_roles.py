"""Where one file sits in the assembled prompt, and what it costs there: the code lens of a context file.

A user editing an AGENTS.md, a SYSTEM.md or a SKILL.md wants to know, at the top of the file,
whether Pi reads it at all and at what price:

* a context file feeds ``project_context``: it is file *k* of *n*, and its cost is its
  ``<project_instructions>`` block; or it is not loaded, and the reason is Pi's (another candidate
  of the same folder wins, the folder is not on the cwd's ancestor chain, a nested worktree's own
  file shadows it, it cannot be read);
* SYSTEM.md feeds ``preamble`` and APPEND_SYSTEM.md feeds ``addendum`` (section *k* of *n*), unless
  the project is not trusted or the project's own file replaces the agent dir's;
* a skill costs its entry in the ``<available_skills>`` listing (skill *k* of *n*); its body is
  only read when the model opens the file, so that cost is shown apart.

Both token counters are given: Pi's ``ceil(chars/4)`` and the configured estimator.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from lsp_server.base.paths import is_path_within
from lsp_server.js.strings import strip_bom
from lsp_server.project.prompt_state import PromptSnapshot, section_tokens
from lsp_server.prompt.inclusion import ContextInclusion, Inclusions
from lsp_server.prompt.skills_block import escape_xml
from lsp_server.tokens.pair import TokenPair
from lsp_server.tokens.pi import pi_text_tokens
from lsp_server.vocabulary.pi_files import (
    APPEND_SYSTEM_PROMPT_FILE,
    CONTEXT_FILE_CANDIDATES,
    PROJECT_CONFIG_DIR,
    SKILL_FILE_NAME,
    SYSTEM_PROMPT_FILE,
)


@dataclass(frozen=True)
class FileRole:
    """A file's place in the prompt (``section`` set) or why it has none (``reason`` set)."""

    path: str
    section: str | None = None
    position: int | None = None  # 1-based, among the items of the section (files, skills) or the sections
    count: int | None = None
    item: str = "section"  # what position counts: "file", "skill" or "section"
    tokens: TokenPair | None = None  # the cost in the prompt
    body: TokenPair | None = None  # a skill's body, paid only when the model reads it
    reason: str | None = None  # not loaded (or not listed): why
    is_skill: bool = False  # a SKILL.md (or a loose skill file): the title says whether Pi loads it
    inclusion: ContextInclusion | None = None  # a context file: its place, as the rules and the hover say it

    @property
    def loaded(self) -> bool:
        return self.section is not None

    def load_sentence(self) -> str:
        """Whether Pi loads this skill and why: the one sentence the code lens and the hover both show."""
        if self.loaded:
            return f"Pi loads this skill: #{self.position} of {self.count} in the skills listing"
        if self.reason is not None and self.reason.startswith("not listed: "):
            return f"Pi loads this skill but does not list it: {self.reason.removeprefix('not listed: ')}"
        return f"Pi does not load this skill: {self.reason or 'unknown reason'}"

    def title(self) -> str:
        """``project_context #2 of 3, ~1,234 tokens (Pi: 1,300)`` / ``not loaded: shadowed by AGENTS.override.md``."""
        if self.is_skill:
            text = self.load_sentence()
            if self.tokens is not None:
                text += f", ~{self.tokens.estimate:,} tokens (Pi: {self.tokens.pi:,})"
            if self.body is not None:
                text += f"; body ~{self.body.estimate:,} tokens when read"
            return text
        if self.section is None:
            return f"not loaded: {self.reason}" if self.reason else "not loaded"
        where = f"{self.section} #{self.position} of {self.count}"
        if self.item == "section":
            where = f"{self.section} (section {self.position} of {self.count})"
        text = where
        if self.tokens is not None:
            text += f", ~{self.tokens.estimate:,} tokens (Pi: {self.tokens.pi:,})"
        if self.body is not None:
            text += f"; body ~{self.body.estimate:,} tokens when read"
        return text


def count_pair(snapshot: PromptSnapshot, text: str) -> TokenPair:
    return TokenPair(pi_text_tokens(text), snapshot.counter.counter.count(text))


def is_prompt_file(path: str) -> bool:
    """Files that get a code lens: context files, SYSTEM.md, APPEND_SYSTEM.md, SKILL.md."""
    return posixpath.basename(path) in (
        *CONTEXT_FILE_CANDIDATES,
        SYSTEM_PROMPT_FILE,
        APPEND_SYSTEM_PROMPT_FILE,
        SKILL_FILE_NAME,
    )


def file_role(snapshot: PromptSnapshot, path: str, text: str | None = None) -> FileRole | None:
    """The role of ``path`` in the snapshot's prompt; ``text`` (the buffer) prices a skill's body.

    ``None`` when the file is none of the kinds above and no skill of the prompt lives there.
    """
    name = posixpath.basename(path)
    skill = next((s for s in snapshot.resources.skills if s.file_path == path), None)
    if skill is not None or name == SKILL_FILE_NAME:
        return _skill_role(snapshot, path, text)
    if name in CONTEXT_FILE_CANDIDATES:
        return _context_file_role(snapshot, path)
    if name in (SYSTEM_PROMPT_FILE, APPEND_SYSTEM_PROMPT_FILE):
        return _prompt_file_role(snapshot, path, name)
    return None


def _section_position(snapshot: PromptSnapshot, name: str) -> tuple[int, int] | None:
    names = [section.name for section in snapshot.prompt.sections]
    return (names.index(name) + 1, len(names)) if name in names else None


def inclusions(snapshot: PromptSnapshot) -> Inclusions:
    """The snapshot's own context-file resolution, asked about one file (the prompt and the lens agree)."""
    discovery = snapshot.resources.context
    return Inclusions(snapshot.cwd, snapshot.agent_dir, enabled=discovery.enabled, discovery=discovery)


def _context_file_role(snapshot: PromptSnapshot, path: str) -> FileRole:
    inclusion = inclusions(snapshot).context(path)
    if inclusion.sent and inclusion.position is not None:
        item = snapshot.resources.context.loaded[inclusion.position - 1]
        block = f'<project_instructions path="{item.path}">\n{item.content}\n</project_instructions>'
        return FileRole(
            path,
            "project_context",
            inclusion.position,
            inclusion.count,
            "file",
            count_pair(snapshot, block),
            inclusion=inclusion,
        )
    return FileRole(path, reason=inclusion.reason(), inclusion=inclusion)


def _prompt_file_role(snapshot: PromptSnapshot, path: str, name: str) -> FileRole:
    files = snapshot.resources.prompt_files
    section = "preamble" if name == SYSTEM_PROMPT_FILE else "addendum"
    sources = ([files.system] if name == SYSTEM_PROMPT_FILE and files.system is not None else []) + (
        list(files.append) if name == APPEND_SYSTEM_PROMPT_FILE else []
    )
    used = next((source for source in sources if source.source_path == path), None)
    if used is not None:
        position = _section_position(snapshot, section)
        assembled = snapshot.section(section)
        if position is None or assembled is None:
            return FileRole(path, reason="the file is empty")
        # One file is the whole section; several append values share it, each priced alone.
        tokens = section_tokens(assembled) if len(sources) == 1 else count_pair(snapshot, strip_bom(used.text))
        return FileRole(path, section, position[0], position[1], "section", tokens)
    ignored = next((item for item in files.ignored if item.path == path), None)
    if ignored is not None:
        return FileRole(path, reason=ignored.reason)
    project = posixpath.join(snapshot.cwd, PROJECT_CONFIG_DIR, name)
    global_file = posixpath.join(snapshot.agent_dir, name)
    if path == global_file and any(source.source_path == project for source in sources):
        return FileRole(path, reason=f"replaced by the project's {PROJECT_CONFIG_DIR}/{name}")
    if path not in (project, global_file):
        return FileRole(path, reason=f"Pi reads {name} only from {PROJECT_CONFIG_DIR}/ in the cwd and the agent dir")
    return FileRole(path, reason="not part of the prompt")


def _skill_role(snapshot: PromptSnapshot, path: str, text: str | None) -> FileRole:
    body = count_pair(snapshot, text) if text is not None else None
    skills = snapshot.resources.skills
    skill = next((s for s in skills if s.file_path == path), None)
    if skill is None:
        problem = next((d for d in snapshot.resources.skill_diagnostics if d.path == path), None)
        if problem is not None:
            return FileRole(path, body=body, reason=problem.message, is_skill=True)
        untrusted_roots = [posixpath.join(snapshot.cwd, PROJECT_CONFIG_DIR)]
        if not snapshot.trust.trusted and any(is_path_within(root, path) for root in untrusted_roots):
            return FileRole(
                path, body=body, reason="the project is not trusted, so Pi ignores its skills", is_skill=True
            )
        return FileRole(path, body=body, reason="not in a folder Pi scans for skills", is_skill=True)
    if skill.disable_model_invocation:
        return FileRole(
            path,
            body=body,
            reason=f"not listed: disable-model-invocation (reachable as /skill:{skill.name})",
            is_skill=True,
        )
    listed = snapshot.section("skills")
    visible = [s for s in skills if not s.disable_model_invocation]
    if listed is None:
        return FileRole(
            path, body=body, reason="not listed: neither read nor bash is among the selected tools", is_skill=True
        )
    entry = _listing_entry(listed.text, path)
    tokens = count_pair(snapshot, entry) if entry is not None else None
    return FileRole(path, "skills", visible.index(skill) + 1, len(visible), "skill", tokens, body, is_skill=True)


def _listing_entry(section_text: str, path: str) -> str | None:
    """The ``<skill>`` element naming ``path`` in the listing (Pi's escaping of the location)."""
    location = f"<location>{escape_xml(path)}</location>"
    at = section_text.find(location)
    if at < 0:
        return None
    start = section_text.rfind("<skill>", 0, at)
    end = section_text.find("</skill>", at)
    if start < 0 or end < 0:
        return None
    return section_text[start : end + len("</skill>")]
