"""The rule profiles: one row per agent a user can write skills for, and everything that differs between them.

A *profile* is the agent the user writes for. The same SKILL.md is valid for Pi (which only warns,
and drops a skill only when its description is missing or its YAML is broken) and invalid for the
Agent Skills reference validator (which requires the name to match the folder and rejects unknown
keys); Claude Code and VS Code accept their own extra keys and boolean spellings. Every fact that
depends on the profile lives in its row here, except the severity and message of each rule, which
live with the rule (:mod:`lsp_server.rules.registry`).

Derived from this table (``tests/vocabulary/test_profiles.py`` checks that they agree): the
:data:`ProfileId` type used in every signature and by the settings model, the ``--profile``
choices, docs/rules.md, the ``ruleProfile`` row of docs/settings.md and the ``piContext.ruleProfile``
choices in the extension's package.json (``python docs/gen_vocabularies.py`` rewrites them).
Adding a profile is adding its id to :data:`ProfileId`, a row to :data:`PROFILE_TABLE` and its
severity to every rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

ProfileId = Literal["pi", "agentskills", "claude-code", "vscode"]
"""The rule profiles, in table order (mypy checks every row's id against it; a test checks the reverse)."""

AgentId = Literal["pi", "claude-code", "vscode", "agentskills", "codex"]
"""The agents whose handling of a frontmatter key hovers describe (:mod:`lsp_server.editing.keys`);
Codex reads only the name and the description and has no profile of its own."""

NameRules = Literal["pi", "spec", "vscode"]
LengthUnit = Literal["utf-16", "code points"]
KeyListing = Literal["python-list", "comma-separated"]


@dataclass(frozen=True)
class BooleanSpellings:
    """What an agent reads as a boolean: the YAML booleans, and maybe words and the numbers 0 and 1.

    ``word_pairs`` are (true, false) spellings, compared trimmed and case-insensitively, as Claude
    Code compares them.
    """

    word_pairs: tuple[tuple[str, str], ...] = ()
    numbers: bool = False

    def read(self, value: Any) -> bool | None:
        """The boolean ``value`` means to the agent, or None when it does not read it as one."""
        if isinstance(value, bool):
            return value
        if self.numbers and isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            lowered = value.strip().lower()
            for true, false in self.word_pairs:
                if lowered == true:
                    return True
                if lowered == false:
                    return False
        return None


YAML_BOOLEANS = BooleanSpellings()
"""Only YAML 1.2's ``true`` and ``false`` (``yes`` and ``on`` are strings): Pi, VS Code, the spec."""

CLAUDE_CODE_BOOLEANS = BooleanSpellings(
    word_pairs=(("true", "false"), ("yes", "no"), ("on", "off"), ("1", "0")),
    numbers=True,
)
"""Claude Code also reads yes/no, on/off and 1/0 (as words or numbers)."""


def guess_boolean(value: Any) -> bool | None:
    """The boolean a user most likely meant by ``value``: the loosest reading any agent has.

    The ``skill/boolean-value`` rule puts it in the finding and the quick fix offers it first, so
    ``disable-model-invocation: yes`` becomes ``true`` whatever the profile.
    """
    return CLAUDE_CODE_BOOLEANS.read(value)


SPEC_ALLOWED_KEYS = ("allowed-tools", "compatibility", "description", "license", "metadata", "name")

CLAUDE_CODE_KEYS = (
    *SPEC_ALLOWED_KEYS,
    "agent",
    "argument-hint",
    "context",
    "default-enabled",
    "disable-model-invocation",
    "disallowed-tools",
    "display-name",
    "effort",
    "fallback",
    "hooks",
    "model",
    "paths",
    "user-invocable",
)

VSCODE_KEYS = (
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "argument-hint",
    "user-invocable",
    "disable-model-invocation",
    "context",
)

BOOLEAN_KEYS = ("disable-model-invocation", "user-invocable")

# What VS Code's own skill validation (promptValidator, /work/shared/spec/ecosystem.md §2.3) already
# reports in a SKILL.md, each with the name of VS Code's check.
VSCODE_REPORTS = frozenset(
    {
        "skill/unknown-key",  # unknownAttribute.skill
        "skill/description-missing",  # skillDescriptionMissing
        "skill/name-missing",  # skillNameMissing
        "skill/name-not-string",  # nameMustBeString / nameShouldNotBeEmpty
        "skill/name-invalid-chars",  # skillNameInvalidChars
        "skill/name-directory-mismatch",  # skillNameFolderMismatch
        "skill/boolean-value",  # userInvocableMustBeBoolean / disableModelInvocationMustBeBoolean
        "skill/missing-reference",  # fileNotFound
    }
)

# ``clientInfo.name`` of the editors that run VS Code's skill validation (VS Code and its builds).
VSCODE_CLIENT_NAMES = ("Visual Studio Code", "Code - OSS", "code-server")


@dataclass(frozen=True)
class Profile:
    """One rule profile: whose rules it applies and how that agent reads a skill.

    ``description`` is the audience column of docs/rules.md; ``summary`` is the one line settings
    UIs show next to the choice (package.json's ``enumDescriptions``, docs/settings.md).

    ``editor_reports`` are the codes the agent's own editor already reports in a SKILL.md, and
    ``editor_clients`` the ``clientInfo.name`` prefixes of that editor: in that editor the language
    server leaves those findings to it, so a problem is listed once (:meth:`left_to_the_editor`).
    Another editor under the same profile (Neovim writing skills for VS Code) has no such checker and
    gets every finding; ``pi-context check`` always reports them all.
    """

    id: ProfileId
    agent: AgentId  # whose handling hovers and completions show first
    description: str
    summary: str
    allowed_keys: tuple[str, ...] | None  # keys accepted without skill/unknown-key; None: the agent ignores others
    key_listing: KeyListing  # how a skill/unknown-key message lists the allowed keys
    boolean_keys: tuple[str, ...]  # keys whose value must be a boolean (skill/boolean-value)
    booleans: BooleanSpellings  # the values the agent reads as booleans
    name_rules: NameRules  # whose name validation runs: Pi's loader, skills-ref's, or VS Code's
    length_unit: LengthUnit  # how the description's length is counted against its limit
    loose_skill_files: bool  # a root .md file in a skills folder is a skill when it has a description
    editor_reports: frozenset[str] = frozenset()  # codes the agent's editor reports itself
    editor_clients: tuple[str, ...] = ()  # clientInfo.name prefixes of that editor

    def list_keys(self) -> str:
        """The allowed keys as the agent's own message lists them."""
        keys = self.allowed_keys or ()
        return repr(sorted(keys)) if self.key_listing == "python-list" else ", ".join(keys)

    def left_to_the_editor(self, client_name: str) -> frozenset[str]:
        """The codes the server does not publish to ``client_name`` (initialize's ``clientInfo.name``)."""
        if any(client_name.startswith(name) for name in self.editor_clients):
            return self.editor_reports
        return frozenset()


PROFILE_TABLE: tuple[Profile, ...] = (
    Profile(
        id="pi",
        agent="pi",
        description="Pi 1.6.0: exactly Pi's loader warnings with Pi's texts, plus what makes Pi drop or hide a skill.",
        summary="What Pi itself enforces when it loads skills and context files.",
        allowed_keys=None,
        key_listing="comma-separated",
        boolean_keys=("disable-model-invocation",),
        booleans=YAML_BOOLEANS,
        name_rules="pi",
        length_unit="utf-16",
        loose_skill_files=True,
    ),
    Profile(
        id="agentskills",
        agent="agentskills",
        description="The Agent Skills specification and its reference validator (skills-ref), errors as it words them.",
        summary="The Agent Skills specification (name must equal the folder, field limits).",
        allowed_keys=SPEC_ALLOWED_KEYS,
        key_listing="python-list",
        boolean_keys=(),
        booleans=YAML_BOOLEANS,
        name_rules="spec",
        length_unit="code points",
        loose_skill_files=False,
    ),
    Profile(
        id="claude-code",
        agent="claude-code",
        description="Claude Code: its extra frontmatter keys and boolean spellings; spec limits as warnings.",
        summary="What Claude Code accepts.",
        allowed_keys=CLAUDE_CODE_KEYS,
        key_listing="comma-separated",
        boolean_keys=BOOLEAN_KEYS,
        booleans=CLAUDE_CODE_BOOLEANS,
        name_rules="pi",
        length_unit="utf-16",
        loose_skill_files=False,
    ),
    Profile(
        id="vscode",
        agent="vscode",
        description="VS Code's built-in skill validation: its supported keys, messages and severities.",
        summary="What VS Code's own agent-file validation accepts.",
        allowed_keys=VSCODE_KEYS,
        key_listing="comma-separated",
        boolean_keys=BOOLEAN_KEYS,
        booleans=YAML_BOOLEANS,
        name_rules="vscode",
        length_unit="utf-16",
        loose_skill_files=False,
        editor_reports=VSCODE_REPORTS,
        editor_clients=VSCODE_CLIENT_NAMES,
    ),
)

PROFILE_BY_ID: Mapping[ProfileId, Profile] = MappingProxyType({row.id: row for row in PROFILE_TABLE})
PROFILES: tuple[ProfileId, ...] = tuple(row.id for row in PROFILE_TABLE)
DEFAULT_PROFILE: ProfileId = "pi"


def get_profile(profile: ProfileId) -> Profile:
    return PROFILE_BY_ID[profile]


def check_profile(profile: str) -> ProfileId:
    """``profile`` as a profile id, or ValueError naming the valid ones (a guard for untyped callers)."""
    for row in PROFILE_TABLE:
        if row.id == profile:
            return row.id
    raise ValueError(f"unknown profile {profile!r} (use one of: {', '.join(PROFILES)})")


def rule_profile_setting_description() -> str:
    """The ``ruleProfile`` setting's description: what each choice checks."""
    choices = " ".join(f'"{row.id}": {row.summary}' for row in PROFILE_TABLE)
    return f"Which rules check skills and context files. {choices}"
