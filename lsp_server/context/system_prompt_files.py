"""SYSTEM.md and APPEND_SYSTEM.md, resolved as Pi's resource loader does (pi-behavior §4).

The custom system prompt (which replaces Pi's default preamble) comes from an explicit value
(``--system-prompt``), else ``<cwd>/.pi/SYSTEM.md`` when the project is trusted, else
``<agentDir>/SYSTEM.md``. The append texts come from the explicit list (``--append-system-prompt``,
repeatable), else the single discovered ``APPEND_SYSTEM.md`` with the same precedence: a trusted
project's file *replaces* the global one, they are never combined.

Every value is a path or literal text: if something exists at that path its content is used (BOM
stripped), otherwise the value itself is the text. So a mistyped explicit path silently becomes the
prompt, which is worth showing to the user; each ``PromptSource`` says which case applied.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from lsp_server.base import fsread
from lsp_server.base.paths import node_resolve, resolve_path
from lsp_server.js.strings import strip_bom
from lsp_server.vocabulary.pi_files import APPEND_SYSTEM_PROMPT_FILE, PROJECT_CONFIG_DIR, SYSTEM_PROMPT_FILE

Reader = Callable[[str], fsread.ReadResult]

# Where a value came from: given explicitly, or discovered in the project or the agent dir.
PromptOrigin = Literal["explicit", "project", "global"]
# How the value was used: a file's content, literal text, or literal text because the file at
# that path could not be read (Pi warns and uses the value itself).
PromptKind = Literal["file", "literal", "unreadable-file"]


@dataclass(frozen=True)
class PromptSource:
    """One system-prompt or append value and what Pi makes of it."""

    value: str  # as given (explicit) or the discovered file's path
    origin: PromptOrigin
    kind: PromptKind
    text: str  # the text Pi uses
    source_path: str | None  # resolved path when something exists at the value (Pi's "source")
    error: str | None = None
    invalid_utf8: fsread.InvalidUtf8 | None = None


@dataclass(frozen=True)
class IgnoredPromptFile:
    """A project file Pi does not use because the project is not trusted."""

    path: str
    reason: str


@dataclass(frozen=True)
class PromptFiles:
    """Pi's ``systemPrompt`` / ``appendSystemPrompt`` with their sources."""

    system: PromptSource | None
    append: tuple[PromptSource, ...]
    warnings: tuple[str, ...]
    ignored: tuple[IgnoredPromptFile, ...] = ()

    @property
    def system_prompt(self) -> str | None:
        return self.system.text if self.system is not None else None

    @property
    def system_prompt_source(self) -> str | None:
        return self.system.source_path if self.system is not None else None

    @property
    def append_system_prompt(self) -> list[str]:
        return [source.text for source in self.append]

    @property
    def append_system_prompt_sources(self) -> list[str]:
        return [source.source_path for source in self.append if source.source_path is not None]

    @property
    def append_joined(self) -> str:
        """The ``addendum`` text: Pi's agent session joins the append texts with a blank line."""
        return "\n\n".join(self.append_system_prompt)


def prompt_read_warning(description: str, value: str, error: str) -> str:
    """Pi's warning when an existing prompt file cannot be read (the value is then used as text)."""
    return f"Warning: Could not read {description} file {value}: Error: {error}"


def resolve_prompt_input(
    value: str,
    origin: PromptOrigin,
    description: str,
    *,
    base_dir: str,
    reader: Reader = fsread.read_text,
) -> tuple[PromptSource | None, str | None]:
    """Pi's ``resolvePromptInput`` for one value: file content if the path exists, else the value.

    Returns the source (None for an empty value, which Pi drops) and a warning, if any.
    Relative values are looked up from ``base_dir`` (Pi uses its process cwd).
    """
    if not value:
        return None, None
    path = node_resolve(base_dir, value)
    if not fsread.exists(path):
        return PromptSource(value, origin, "literal", value, None), None
    read = reader(path)
    if read.text is None:
        error = read.error or "unknown error"
        warning = prompt_read_warning(description, value, error)
        return PromptSource(value, origin, "unreadable-file", value, path, error=error), warning
    return PromptSource(value, origin, "file", strip_bom(read.text), path, invalid_utf8=read.invalid_utf8), None


def _discover(cwd: str, agent_dir: str, name: str, trusted: bool) -> tuple[str | None, PromptOrigin, str | None]:
    """The discovered file for ``name``: (path, origin, ignored untrusted project path)."""
    project = posixpath.join(cwd, PROJECT_CONFIG_DIR, name)
    ignored = None
    if fsread.exists(project):
        if trusted:
            return project, "project", None
        ignored = project
    global_path = posixpath.join(agent_dir, name)
    if fsread.exists(global_path):
        return global_path, "global", ignored
    return None, "global", ignored


def resolve_prompt_files(
    cwd: str,
    agent_dir: str,
    *,
    project_trusted: bool,
    system_prompt: str | None = None,
    append_system_prompt: Sequence[str] | None = None,
    base_dir: str | None = None,
    reader: Reader = fsread.read_text,
) -> PromptFiles:
    """Pi's SYSTEM.md / APPEND_SYSTEM.md resolution (``DefaultResourceLoader.reload``).

    ``system_prompt`` / ``append_system_prompt`` are the explicit values (``None``: not given).
    As in Pi, an explicit empty string means "no custom prompt" and stops discovery, and an
    explicit empty list means "no append". ``base_dir`` is where relative explicit values are
    looked up (default: the cwd, which is Pi's process cwd when it runs in the project).
    """
    resolved_cwd = resolve_path(cwd)
    resolved_agent_dir = resolve_path(agent_dir)
    lookup_base = base_dir if base_dir is not None else resolved_cwd
    warnings: list[str] = []
    ignored: list[IgnoredPromptFile] = []
    untrusted = "the project is not trusted, so Pi ignores it"

    system: PromptSource | None = None
    if system_prompt is not None:
        system, warning = resolve_prompt_input(
            system_prompt, "explicit", "system prompt", base_dir=lookup_base, reader=reader
        )
    else:
        found, origin, ignored_path = _discover(resolved_cwd, resolved_agent_dir, SYSTEM_PROMPT_FILE, project_trusted)
        if ignored_path is not None:
            ignored.append(IgnoredPromptFile(ignored_path, untrusted))
        system, warning = (
            resolve_prompt_input(found, origin, "system prompt", base_dir=lookup_base, reader=reader)
            if found is not None
            else (None, None)
        )
    if warning is not None:
        warnings.append(warning)

    append_values: list[tuple[str, PromptOrigin]]
    if append_system_prompt is not None:
        append_values = [(value, "explicit") for value in append_system_prompt]
    else:
        found, origin, ignored_path = _discover(
            resolved_cwd, resolved_agent_dir, APPEND_SYSTEM_PROMPT_FILE, project_trusted
        )
        if ignored_path is not None:
            ignored.append(IgnoredPromptFile(ignored_path, untrusted))
        append_values = [(found, origin)] if found is not None else []
    append: list[PromptSource] = []
    for value, origin in append_values:
        source, warning = resolve_prompt_input(
            value, origin, "append system prompt", base_dir=lookup_base, reader=reader
        )
        if warning is not None:
            warnings.append(warning)
        if source is not None:
            append.append(source)
    return PromptFiles(system, tuple(append), tuple(warnings), tuple(ignored))
