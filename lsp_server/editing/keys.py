"""What every SKILL.md frontmatter key does, and which agents honour it (and how).

The same key means different things to different agents: Pi reads three keys and ignores the
rest; Claude Code reads many more; VS Code accepts its own list and hints at the others; the Agent
Skills reference validator (skills-ref) rejects anything outside the spec; Codex reads the name
and the description. Hovers and completions show this table so a user writing for one agent sees
what the others will do with the same file.

Sources: Pi 1.6.0's ``core/skills.js`` (it reads ``name``, ``description`` and
``disable-model-invocation`` only; ``argument-hint`` is read for prompt templates, not skills);
ecosystem.md §1 (the spec and skills-ref), §1.4 (Claude Code's extra keys, from its changelog),
§2.3 (VS Code's supported keys); Codex's skills documentation (name and description required;
UI metadata lives in ``agents/openai.yaml``, not in the frontmatter).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from lsp_server.vocabulary.profiles import PROFILE_TABLE, AgentId, ProfileId

AGENTS: tuple[AgentId, ...] = ("pi", "claude-code", "vscode", "agentskills", "codex")

AGENT_LABELS: Mapping[AgentId, str] = MappingProxyType(
    {
        "pi": "Pi",
        "claude-code": "Claude Code",
        "vscode": "VS Code",
        "agentskills": "Agent Skills spec (skills-ref)",
        "codex": "Codex",
    }
)

# What an agent does with a key it does not read.
IGNORED: Mapping[AgentId, str] = MappingProxyType(
    {
        "pi": "ignored (Pi reads only name, description and disable-model-invocation)",
        "claude-code": "not a Claude Code key: ignored",
        "vscode": "not supported: VS Code hints that it is ignored",
        "agentskills": "not in the spec: skills-ref rejects it as an unexpected field",
        "codex": "ignored (Codex reads the name and the description)",
    }
)

PI_KEYS: tuple[str, ...] = ("name", "description", "disable-model-invocation")


@dataclass(frozen=True)
class KeyInfo:
    """One frontmatter key: what it is for, its value, and each agent's handling.

    ``agents`` holds the agents that act on the key; ``ignored_notes`` says why one that accepts or
    skips it does nothing (else :data:`IGNORED` applies).
    """

    name: str
    summary: str
    value_type: str  # shown to the user: "string", "boolean", ...
    kind: str  # "string", "boolean", "mapping", "list" or "any": what completion inserts
    agents: Mapping[AgentId, str]
    values: tuple[str, ...] = ()  # values to complete (booleans: true, false)
    limit: int | None = None  # length limit (UTF-16 units in Pi, characters in the spec)
    limit_note: str = ""
    ignored_notes: Mapping[AgentId, str] = field(default_factory=dict)  # why an agent ignores it, when useful

    def handling(self, agent: AgentId) -> str:
        return self.agents.get(agent) or self.ignored_notes.get(agent) or IGNORED[agent]

    def honoured_by(self, agent: AgentId) -> bool:
        return agent in self.agents


def _key(
    name: str,
    summary: str,
    value_type: str,
    kind: str,
    agents: dict[AgentId, str],
    *,
    values: tuple[str, ...] = (),
    limit: int | None = None,
    limit_note: str = "",
    ignored: dict[AgentId, str] | None = None,
) -> KeyInfo:
    return KeyInfo(
        name,
        summary,
        value_type,
        kind,
        MappingProxyType(agents),
        values,
        limit,
        limit_note,
        MappingProxyType(ignored or {}),
    )


_BOOL = ("true", "false")

_KEYS: tuple[KeyInfo, ...] = (
    _key(
        "name",
        "The skill's identifier: the listing shows it and `/skill:<name>` (Claude Code: `/<name>`) invokes it.",
        "string",
        "string",
        {
            "pi": "optional: used when it is a non-empty string, otherwise Pi uses the folder name; warns "
            "(and still loads the skill) above 64 UTF-16 units, outside a-z 0-9 and '-', or with leading, "
            "trailing or double hyphens; a name different from the folder is allowed",
            "claude-code": "optional (defaults to the folder name); lowercase letters, digits and hyphens, "
            "at most 64 characters",
            "vscode": "expected (a warning when missing); lowercase letters, digits and hyphens, and it "
            "should match the folder name",
            "agentskills": "required: 1-64 lowercase letters, digits and hyphens, no leading, trailing or "
            "double hyphen, equal to the folder name",
            "codex": "required: the name Codex lists and `$name` mentions",
        },
        limit=64,
        limit_note="64 (Pi counts UTF-16 units, the spec characters)",
    ),
    _key(
        "description",
        "What the skill does and when to use it: the text the model reads to decide whether to load the "
        "skill. It is part of every request.",
        "string",
        "string",
        {
            "pi": "required: a string that is not blank, or Pi does not load the skill; warns above 1024 "
            "UTF-16 units but loads it; listed in `<available_skills>` in the system prompt",
            "claude-code": "recommended: without it Claude Code uses the first paragraph of the body",
            "vscode": "expected (a warning when missing); added to every request",
            "agentskills": "required: 1-1024 characters",
            "codex": "required: Codex matches tasks against it (and shortens descriptions when many skills "
            "are installed)",
        },
        limit=1024,
        limit_note="1024 (Pi counts UTF-16 units, the spec characters)",
    ),
    _key(
        "disable-model-invocation",
        "Keep the model from loading the skill by itself: only the user can invoke it.",
        "boolean",
        "boolean",
        {
            "pi": "honoured only when it is the YAML boolean `true`: the skill is left out of the "
            '`<available_skills>` listing and `/skill:<name>` still works; `yes`, `on` and `"true"` are '
            "strings in YAML 1.2 and leave it visible",
            "claude-code": "`true`: only you can invoke it with `/<name>`, Claude does not load it by itself "
            "(also accepts yes/no, on/off, 1/0)",
            "vscode": "supported; must be `true` or `false`",
        },
        values=_BOOL,
    ),
    _key(
        "license",
        "The license name, or the name of a license file bundled with the skill.",
        "string",
        "string",
        {"agentskills": "optional; keep it short"},
        ignored={"claude-code": "accepted (a spec key), not used", "vscode": "accepted, not used"},
    ),
    _key(
        "compatibility",
        "Environment requirements: intended product, system packages, network access.",
        "string",
        "string",
        {"agentskills": "optional: a string of 1-500 characters"},
        limit=500,
        limit_note="500 characters (the spec)",
        ignored={"claude-code": "accepted (a spec key), not used", "vscode": "accepted, not used"},
    ),
    _key(
        "metadata",
        "Extra properties for tools and clients: a mapping from string keys to string values.",
        "mapping of strings",
        "mapping",
        {
            "agentskills": "optional: string keys to string values (skills-ref turns values into strings)",
            "claude-code": "accepted (`metadata.*` keys)",
        },
        ignored={"vscode": "accepted, not used"},
    ),
    _key(
        "allowed-tools",
        "Tools the skill may use without asking for permission (space-separated). Experimental in the spec.",
        "string",
        "string",
        {
            "agentskills": "optional and experimental: space-separated tool names",
            "claude-code": "tools Claude may use without asking while the skill is active",
        },
    ),
    _key(
        "user-invocable",
        "Whether the user can run the skill as a slash command.",
        "boolean",
        "boolean",
        {
            "claude-code": "`false` hides it from the `/` menu (the model can still load it); default `true` "
            "(also accepts yes/no, on/off, 1/0)",
            "vscode": "supported; must be `true` or `false`",
        },
        values=_BOOL,
        ignored={"pi": "ignored: in Pi every skill can be run with `/skill:<name>`"},
    ),
    _key(
        "argument-hint",
        "A hint for the arguments of the slash command, shown while completing it, e.g. `[issue-number]`.",
        "string",
        "string",
        {
            "claude-code": "shown in the `/` menu; the body receives the arguments as `$ARGUMENTS`",
            "vscode": "supported",
        },
        ignored={
            "pi": "ignored for skills (Pi reads argument-hint in prompt templates only); arguments after "
            "`/skill:<name>` are appended after the skill text",
        },
    ),
    _key(
        "context",
        "Where the skill runs: `fork` runs it in a separate sub-agent with its own context.",
        "string",
        "string",
        {
            "claude-code": "`fork`: run the skill in a forked sub-agent",
            "vscode": "supported; `fork` needs the skill tool (`github.copilot.chat.skillTool.enabled`)",
        },
        values=("fork",),
    ),
    _key(
        "agent",
        "The sub-agent type that runs the skill when `context` is `fork`.",
        "string",
        "string",
        {"claude-code": "the agent to fork into (with `context: fork`)"},
    ),
    _key(
        "model",
        "The model to use while the skill is active.",
        "string",
        "string",
        {"claude-code": "overrides the session's model while the skill runs"},
    ),
    _key(
        "effort",
        "The reasoning effort to use while the skill is active.",
        "string",
        "string",
        {"claude-code": "overrides the effort level while the skill runs"},
    ),
    _key(
        "hooks",
        "Hooks that run during the skill's lifecycle.",
        "mapping",
        "mapping",
        {"claude-code": "hooks scoped to the skill"},
    ),
    _key(
        "paths",
        "File patterns the skill applies to (a YAML list of globs).",
        "list of globs",
        "list",
        {"claude-code": "limits when the skill is offered to files matching the globs"},
    ),
    _key(
        "disallowed-tools",
        "Tools the skill must not use.",
        "string or list",
        "any",
        {"claude-code": "tools removed while the skill is active"},
    ),
    _key(
        "display-name",
        "A human-readable name shown in menus instead of `name`.",
        "string",
        "string",
        {"claude-code": "the label shown for the skill"},
    ),
    _key(
        "default-enabled",
        "Whether the skill is enabled until the user turns it off.",
        "boolean",
        "boolean",
        {"claude-code": "whether the skill starts enabled"},
        values=_BOOL,
    ),
    _key(
        "fallback",
        "A Claude Code key added in 2.1.186 (see Claude Code's skills documentation).",
        "any",
        "any",
        {"claude-code": "accepted"},
    ),
)

KEYS: Mapping[str, KeyInfo] = MappingProxyType({info.name: info for info in _KEYS})

# Keys each rule profile offers, in this table's order: the keys it accepts without an unknown-key
# finding; a profile without that rule (``pi``) gets every key we know, Pi's own first.
PROFILE_KEYS: Mapping[ProfileId, tuple[str, ...]] = MappingProxyType(
    {
        row.id: (
            (*PI_KEYS, *(info.name for info in _KEYS if info.name not in PI_KEYS))
            if row.allowed_keys is None
            else tuple(info.name for info in _KEYS if info.name in row.allowed_keys)
        )
        for row in PROFILE_TABLE
    }
)


def key_info(name: str) -> KeyInfo | None:
    return KEYS.get(name)


def keys_for_profile(profile: ProfileId) -> tuple[KeyInfo, ...]:
    """The keys to offer under ``profile``, in the order to offer them."""
    return tuple(KEYS[name] for name in PROFILE_KEYS[profile])


def agents_reading(name: str) -> tuple[AgentId, ...]:
    """The agents that do something with key ``name`` (in :data:`AGENTS` order)."""
    info = KEYS.get(name)
    if info is None:
        return ()
    return tuple(agent for agent in AGENTS if info.honoured_by(agent))
