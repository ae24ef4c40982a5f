"""Project trust as Pi decides it (``core/trust-manager.js``, ``core/project-trust.js``, ``main.js``).

Trust gates what a project can add to the agent: ``.pi/settings.json``, ``.pi/SYSTEM.md`` and
``APPEND_SYSTEM.md``, ``.pi/skills``, ``.agents/skills`` up the ancestors, extensions and more. It
does not gate AGENTS.md. Pi decides, in this order:

1. ``--approve`` / ``--no-approve`` on the command line (our ``trust`` setting plays that role);
2. a project with nothing trust-requiring (no gated entry in ``<cwd>/.pi``, no ``.agents/skills``
   in cwd or an ancestor other than ``~/.agents/skills``): the stored decision, else trusted;
3. otherwise the stored decision (the nearest ancestor entry of ``<agentDir>/trust.json`` that is
   ``true`` or ``false``; ``null`` entries are skipped);
4. otherwise the global setting ``defaultProjectTrust``: ``always`` trusts, ``never`` does not,
   ``ask`` (the default) makes interactive Pi ask on start, while print/RPC mode treats the
   project as untrusted.

A trust store Pi cannot read makes Pi stop with an error; here it is an untrusted decision that
carries Pi's error text, so the editor can show it.
"""

from __future__ import annotations

import json
import os
import posixpath
from dataclasses import dataclass, field
from typing import Any, Literal

from lsp_server.base import fsread
from lsp_server.base.paths import canonicalize_path, home_dir, paths_equal, resolve_path
from lsp_server.context.pi_settings import global_settings_path, read_settings_layer
from lsp_server.js.json import js_json_stringify
from lsp_server.js.strings import strip_bom
from lsp_server.vocabulary.pi_files import AGENTS_SKILLS_DIR, PROJECT_CONFIG_DIR

TRUST_FILE_NAME = "trust.json"

# Entries of <cwd>/.pi whose presence makes a project need trust (Pi's list, in Pi's order).
TRUST_REQUIRING_PROJECT_CONFIG_RESOURCES: tuple[str, ...] = (
    "settings.json",
    "mcp.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)

DefaultProjectTrust = Literal["ask", "always", "never"]
TrustSource = Literal["override", "store", "no-project-resources", "default-setting", "ask", "store-error"]


@dataclass(frozen=True)
class TrustStore:
    """``<agentDir>/trust.json``: path -> true / false / null, or Pi's error text when unreadable."""

    path: str
    entries: dict[str, bool | None] = field(default_factory=dict)
    error: str | None = None
    exists: bool = False


@dataclass(frozen=True)
class TrustEntry:
    """The stored decision that applies to a directory (the nearest ancestor with true/false)."""

    path: str  # the key as written in the store
    decision: bool


@dataclass(frozen=True)
class TrustDecision:
    """Whether Pi would treat ``cwd`` as a trusted project, and why."""

    trusted: bool
    source: TrustSource
    reason: str
    cwd: str  # the canonical path trust is decided for
    store_path: str
    entry: TrustEntry | None = None
    project_resources: tuple[str, ...] = ()  # the trust-requiring paths found
    error: str | None = None  # trust store error (Pi would stop with this message)


def trust_store_path(agent_dir: str) -> str:
    return posixpath.join(resolve_path(agent_dir), TRUST_FILE_NAME)


def _no_constants(name: str) -> Any:
    raise ValueError(f"Unexpected token {name} in JSON")


def read_trust_store(agent_dir: str) -> TrustStore:
    """Read Pi's trust store; never raises (errors use Pi's message shapes)."""
    path = trust_store_path(agent_dir)
    if not fsread.exists(path):
        return TrustStore(path)
    read = fsread.read_text(path)
    if read.text is None:
        return TrustStore(path, error=f"Failed to read trust store {path}: {read.error}", exists=True)
    try:
        parsed = json.loads(strip_bom(read.text), parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        return TrustStore(path, error=f"Failed to read trust store {path}: {exc}", exists=True)
    if not isinstance(parsed, dict):
        return TrustStore(path, error=f"Invalid trust store {path}: expected an object", exists=True)
    entries: dict[str, bool | None] = {}
    for key, value in parsed.items():
        if value is not True and value is not False and value is not None:
            return TrustStore(
                path,
                error=f"Invalid trust store {path}: value for {js_json_stringify(key)} must be true, false, or null",
                exists=True,
            )
        entries[key] = value
    return TrustStore(path, entries, exists=True)


def _normalize_cwd(cwd: str) -> str:
    return canonicalize_path(resolve_path(cwd))


def nearest_trust_entry(store: TrustStore, cwd: str) -> TrustEntry | None:
    """Pi's ``findNearestTrustEntry``: walk from cwd to the root; the first true/false entry wins."""
    current = _normalize_cwd(cwd)
    while True:
        for key, value in store.entries.items():
            if (value is True or value is False) and paths_equal(key, current):
                return TrustEntry(key, value)
        parent = posixpath.dirname(current)
        if parent == current:
            return None
        current = parent


def trust_requiring_project_resources(cwd: str, home: str | None = None, *, every: bool = False) -> tuple[str, ...]:
    """The paths that make ``cwd`` need trust (Pi's ``hasTrustRequiringProjectResources``).

    Pi stops at the first hit; this lists the ``.pi`` entries it checks first and, if none
    exists, the first ``.agents/skills`` found up the ancestors. ``~/.agents/skills`` is a user
    resource and never counts. With ``every``, all of them: the ``.pi`` entries and every
    ``.agents/skills`` up the ancestors (what an untrusted project leaves out of the prompt).
    """
    home_value = home if home is not None else home_dir(os.environ)
    user_agents_skills = posixpath.join(canonicalize_path(resolve_path(home_value)), *AGENTS_SKILLS_DIR)
    current = canonicalize_path(resolve_path(cwd))
    config_dir = posixpath.join(current, PROJECT_CONFIG_DIR)
    found = tuple(
        posixpath.join(config_dir, entry)
        for entry in TRUST_REQUIRING_PROJECT_CONFIG_RESOURCES
        if fsread.exists(posixpath.join(config_dir, entry))
    )
    if found and not every:
        return found
    while True:
        agents_skills = posixpath.join(current, *AGENTS_SKILLS_DIR)
        if not paths_equal(agents_skills, user_agents_skills) and fsread.exists(agents_skills):
            found = (*found, agents_skills)
            if not every:
                return found
        parent = posixpath.dirname(current)
        if parent == current:
            return found
        current = parent


def _global_default_project_trust(agent_dir: str) -> str:
    return read_settings_layer(global_settings_path(agent_dir), "global").settings.default_project_trust


def project_trust(
    cwd: str,
    agent_dir: str,
    *,
    override: bool | None = None,
    default_project_trust: str | None = None,
    home: str | None = None,
) -> TrustDecision:
    """Decide trust for ``cwd`` as Pi would on start (without a trust prompt).

    ``override`` is Pi's ``--approve`` (True) / ``--no-approve`` (False); pi-context's own
    ``trust`` setting maps onto it. ``default_project_trust`` is the global setting of that
    name (read from ``<agentDir>/settings.json`` when not given); only ``always`` and ``never``
    count, anything else means ``ask``.
    """
    canonical_cwd = _normalize_cwd(cwd)
    store = read_trust_store(agent_dir)
    resources = trust_requiring_project_resources(cwd, home)

    def decision(trusted: bool, source: TrustSource, reason: str, entry: TrustEntry | None = None) -> TrustDecision:
        return TrustDecision(
            trusted=trusted,
            source=source,
            reason=reason,
            cwd=canonical_cwd,
            store_path=store.path,
            entry=entry,
            project_resources=resources,
            error=store.error,
        )

    if override is not None:
        word = "trusted" if override else "untrusted"
        return decision(override, "override", f"trust override: the project is treated as {word}")
    if store.error is not None:
        return decision(False, "store-error", f"Pi cannot read its trust store and would stop: {store.error}")
    entry = nearest_trust_entry(store, cwd)
    if not resources:
        if entry is not None:
            word = "trusted" if entry.decision else "not trusted"
            return decision(entry.decision, "store", f"{entry.path} is marked {word} in {store.path}", entry)
        return decision(True, "no-project-resources", "the project has no settings or resources that need trust")
    if entry is not None:
        word = "trusted" if entry.decision else "not trusted"
        return decision(entry.decision, "store", f"{entry.path} is marked {word} in {store.path}", entry)
    if default_project_trust is None:
        default_project_trust = _global_default_project_trust(agent_dir)
    setting = default_project_trust if default_project_trust in ("always", "never") else "ask"
    if setting == "always":
        return decision(True, "default-setting", 'no stored decision; defaultProjectTrust is "always"')
    if setting == "never":
        return decision(False, "default-setting", 'no stored decision; defaultProjectTrust is "never"')
    return decision(
        False,
        "ask",
        "no stored decision: interactive Pi asks on start, print and RPC modes treat the project as untrusted",
    )
