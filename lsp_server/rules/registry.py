"""Every rule pi-context checks, with its code, explanation, fix, and severity and message per profile.

A rule has one stable code and, per profile (:mod:`lsp_server.vocabulary.profiles`), a severity (or
``None``: not checked) and the message that audience knows: Pi's own warning text in ``pi``,
``skills-ref``'s in ``agentskills``, VS Code's in ``vscode``. Every rule names every profile
(a test checks it), so adding a profile means deciding each rule's severity for it; ``_every``
says that a rule is the same for all of them.

Codes are ``<area>/<problem>`` slugs (``skill/name-invalid-chars``, ``context/shadowed``): stable,
readable in a terminal, and greppable in docs/rules.md, which is generated from this table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lsp_server.base.findings import Finding, Range, Severity
from lsp_server.vocabulary.profiles import PROFILE_TABLE, ProfileId

E, W, INFO, H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT

Severities = Mapping[ProfileId, Severity | None]

MAX_FINDINGS_PER_FILE = 1000  # then one file/too-many-findings (docs/limits.md)
BODY_CHECK_MAX_BYTES = 8 * 1024 * 1024  # larger files get file/body-not-checked instead of body checks


@dataclass(frozen=True)
class Rule:
    code: str
    title: str  # one line
    explanation: str  # why it matters
    severities: Severities  # profile -> severity (None: off)
    messages: Mapping[str, str]  # profile id -> str.format template; "*" for the others
    fix: str | None = None  # what the quick fix does (``Finding.data["fix"]`` names it)
    applies_to: str = "skill"  # "skill", "context", "prompt" (text sent to the model) or "file" (docs/limits.md)

    def severity(self, profile: ProfileId) -> Severity | None:
        return self.severities.get(profile)

    def message(self, profile: ProfileId, facts: Mapping[str, Any]) -> str:
        template = self.messages.get(profile) or self.messages["*"]
        return template.format(**facts)


def _every(severity: Severity) -> Severities:
    """The same severity in every profile: a rule about the file itself, whichever agent reads it."""
    return {row.id: severity for row in PROFILE_TABLE}


_RULES: list[Rule] = [
    # -- reading ------------------------------------------------------------------------------
    Rule(
        "skill/unreadable",
        "The skill file cannot be read.",
        "Pi warns with the read error and skips the file, so the skill is not available.",
        _every(E),
        {"*": "{error}"},
    ),
    Rule(
        "skill/not-a-file",
        "A directory (or FIFO, socket, ...) is named SKILL.md.",
        "Pi loads a skill only from a regular SKILL.md file; a directory of that name is walked as a folder "
        "and whatever was meant to be in it never becomes a skill.",
        _every(INFO),
        {"*": "'SKILL.md' is {what}: Pi loads no skill from it"},
    ),
    Rule(
        "skill/walk-limit",
        "A folder was not searched for skills: a symlink loop, or the walk's depth or folder limit.",
        "A repository is untrusted input: a link to / or to its own parent, or a tree thousands of folders deep, "
        "would make the search walk the whole disk or never end. Pi follows such links until the system stops "
        "it; pi-context stops at once and says where (limits in docs/limits.md).",
        _every(W),
        {"*": "{message}"},
    ),
    Rule(
        "skill/invalid-utf8",
        "The file is not valid UTF-8.",
        "Pi decodes invalid bytes as U+FFFD, so the model sees replacement characters where the bytes were.",
        _every(W),
        {
            "pi": "invalid UTF-8 at byte {offset}: Pi reads it as U+FFFD",
            "*": "invalid UTF-8 at byte {offset}: the agent reads it as U+FFFD",
        },
    ),
    Rule(
        "skill/too-large",
        "The skill file is larger than the configured limit.",
        "Large skill files are slow to load and expensive to read into the context (default limit 8 MiB, "
        "the upload limit for Claude skills).",
        _every(W),
        {"*": "file is {size} bytes (limit {limit})"},
    ),
    Rule(
        "file/body-not-checked",
        "The file is too large for its body to be checked.",
        "Checking the lines and links of a body of many megabytes would cost seconds and gigabytes; above "
        "8 MiB pi-context checks the frontmatter (what Pi reads to load the skill) and says the body was skipped.",
        _every(INFO),
        {"*": "body not checked: the file is {size:,} bytes, over the {limit:,} whose lines and links are checked"},
        applies_to="file",
    ),
    Rule(
        "file/too-many-findings",
        "The file has more findings than are reported for one file.",
        "A generated file can hold a problem on every line (a link per line gave two million findings); "
        "pi-context reports the first ones and this finding instead of the rest.",
        _every(INFO),
        {"*": "more than {limit:,} findings in this file; the rest are not reported (limit per file)"},
        applies_to="file",
    ),
    Rule(
        "file/not-fully-checked",
        "The file's check is taking longer than its time budget.",
        "The language server checks files in worker threads and reports a file whose check outlasts its "
        "budget instead of waiting on it; the findings follow when the check ends.",
        _every(INFO),
        {"*": "not fully checked yet: checking this file takes more than {budget:g} s; its findings follow"},
        applies_to="file",
    ),
    Rule(
        "skill/not-loaded",
        "Pi does not load this skill.",
        "Pi drops a SKILL.md whose description is missing or blank, whose frontmatter is not valid YAML, or "
        "which cannot be read; it only warns at startup, so the skill silently disappears from the prompt.",
        {"pi": E, "agentskills": None, "claude-code": None, "vscode": None},
        {"*": "Pi does not load this skill: {reason}"},
    ),
    # -- frontmatter ----------------------------------------------------------------------------
    Rule(
        "skill/yaml-error",
        "The frontmatter is not valid YAML.",
        "Pi parses frontmatter with the yaml package (YAML 1.2); on an error it warns with the parser's "
        "message and drops the skill. Positions are those Pi reports (line and column in the YAML).",
        {"pi": W, "agentskills": E, "claude-code": E, "vscode": E},
        {"*": "{text}", "agentskills": "Invalid YAML in frontmatter: {text}"},
    ),
    Rule(
        "skill/frontmatter-missing",
        "The file does not start with a --- frontmatter block.",
        "Without frontmatter a SKILL.md has no name or description; the spec requires the block.",
        {"pi": None, "agentskills": E, "claude-code": W, "vscode": None},
        {
            "*": "SKILL.md must start with YAML frontmatter (---)",
            "claude-code": "SKILL.md has no frontmatter (---)",
        },
        fix="insert-frontmatter",
    ),
    Rule(
        "skill/frontmatter-unclosed",
        "The frontmatter block is never closed.",
        "Pi looks for the first line starting with --- after the opening fence; without one the whole file is "
        "body and the skill has no description.",
        {"pi": W, "agentskills": E, "claude-code": E, "vscode": E},
        {
            "*": "SKILL.md frontmatter not properly closed with ---",
            "pi": "frontmatter is not closed with ---: Pi reads the whole file as body",
        },
        fix="close-frontmatter",
    ),
    Rule(
        "skill/frontmatter-not-mapping",
        "The frontmatter is a list or a scalar, not a mapping.",
        "Only a mapping has name and description keys; Pi finds neither in a list or a scalar.",
        {"pi": W, "agentskills": E, "claude-code": E, "vscode": E},
        {
            "*": "SKILL.md frontmatter must be a YAML mapping",
            "pi": "frontmatter is a {kind}, not a mapping: Pi finds no name or description",
        },
    ),
    Rule(
        "skill/unknown-key",
        "A frontmatter key the target agent does not know.",
        "skills-ref rejects keys outside the spec; VS Code ignores unsupported attributes; Claude Code ignores "
        "keys it does not know. Pi ignores unknown keys, so the pi profile does not report them.",
        {"pi": None, "agentskills": E, "claude-code": W, "vscode": H},
        {
            "agentskills": "Unexpected fields in frontmatter: {key}. Only {allowed} are allowed.",
            "claude-code": "'{key}' is not a Claude Code skill frontmatter key",
            "vscode": "Attribute '{key}' is not supported by VS Code agents. Supported: {allowed}.",
            "*": "unknown frontmatter key '{key}'",
        },
        fix="remove-key",
    ),
    # -- description ----------------------------------------------------------------------------
    Rule(
        "skill/description-missing",
        "The description is missing, blank or not a string.",
        "The description is what the model reads to decide when to load the skill. Pi requires a non-blank "
        "string and drops the skill otherwise.",
        {"pi": W, "agentskills": E, "claude-code": INFO, "vscode": W},
        {
            "pi": "description is required",
            "agentskills": "{spec_message}",
            "claude-code": "description is missing: Claude Code falls back to the first paragraph of the body",
            "vscode": "Skill should provide a description.",
            "*": "description is required",
        },
        fix="add-description",
    ),
    Rule(
        "skill/description-too-long",
        "The description is longer than 1024 characters.",
        "The spec limits descriptions to 1024 characters; Pi warns (counting UTF-16 units, so an emoji counts "
        "2) but loads the skill. Every skill's description is in every request.",
        {"pi": W, "agentskills": E, "claude-code": W, "vscode": None},
        {
            "*": "description exceeds 1024 characters ({length})",
            "agentskills": "Description exceeds 1024 character limit ({length} chars)",
        },
        fix="trim-description",
    ),
    Rule(
        "skill/description-angle-brackets",
        "The description contains < or >.",
        "Anthropic's skill validator rejects angle brackets in descriptions (they look like XML tags in the "
        "skill listing). Pi escapes them, so the pi profile does not report them.",
        {"pi": None, "agentskills": W, "claude-code": W, "vscode": None},
        {"*": "Description cannot contain angle brackets (< or >)"},
    ),
    # -- name -----------------------------------------------------------------------------------
    Rule(
        "skill/name-missing",
        "The frontmatter has no name.",
        "The spec and VS Code expect a name. Pi and Claude Code use the folder name instead.",
        {"pi": None, "agentskills": E, "claude-code": None, "vscode": W},
        {
            "agentskills": "Missing required field in frontmatter: name",
            "vscode": "Skill should provide a name.",
            "*": "name is missing",
        },
        fix="add-name",
    ),
    Rule(
        "skill/name-not-string",
        "The name is empty or not a string.",
        "Pi ignores a name that is not a non-empty string and silently uses the folder name.",
        {"pi": INFO, "agentskills": E, "claude-code": W, "vscode": E},
        {
            "pi": 'Pi ignores this name (not a non-empty string) and uses the folder name "{folder}"',
            "agentskills": "Field 'name' must be a non-empty string",
            "vscode": "{vscode_message}",
            "*": "name must be a non-empty string",
        },
        fix="rename-skill",
    ),
    Rule(
        "skill/name-too-long",
        "The name is longer than 64 characters.",
        "The spec limits names to 64 characters (Pi counts UTF-16 units); Pi warns but loads the skill.",
        {"pi": W, "agentskills": E, "claude-code": W, "vscode": None},
        {
            "*": "name exceeds 64 characters ({length})",
            "agentskills": "Skill name '{name}' exceeds 64 character limit ({length} chars)",
        },
        fix="rename-skill",
    ),
    Rule(
        "skill/name-invalid-chars",
        "The name has characters other than lowercase letters, digits and hyphens.",
        "Names are used as identifiers (/skill:<name>); Pi accepts only a-z, 0-9 and '-' and warns otherwise "
        "(the folder name counts when the frontmatter has none).",
        {"pi": W, "agentskills": E, "claude-code": W, "vscode": E},
        {
            "*": "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
            "agentskills": "Skill name '{name}' contains invalid characters. Only letters, digits, and hyphens "
            "are allowed.",
            "vscode": "Skill name may only contain lowercase letters, numbers, and hyphens.",
        },
        fix="rename-skill",
    ),
    Rule(
        "skill/name-uppercase",
        "The name has uppercase letters.",
        "skills-ref reports uppercase separately from other invalid characters (Pi counts it as invalid).",
        {"pi": None, "agentskills": E, "claude-code": None, "vscode": None},
        {"*": "Skill name '{name}' must be lowercase"},
        fix="rename-skill",
    ),
    Rule(
        "skill/name-hyphen-edge",
        "The name starts or ends with a hyphen.",
        "The spec forbids leading and trailing hyphens; Pi warns.",
        {"pi": W, "agentskills": E, "claude-code": W, "vscode": None},
        {
            "*": "name must not start or end with a hyphen",
            "agentskills": "Skill name cannot start or end with a hyphen",
        },
        fix="rename-skill",
    ),
    Rule(
        "skill/name-consecutive-hyphens",
        "The name contains '--'.",
        "The spec forbids consecutive hyphens; Pi warns.",
        {"pi": W, "agentskills": E, "claude-code": W, "vscode": None},
        {
            "*": "name must not contain consecutive hyphens",
            "agentskills": "Skill name cannot contain consecutive hyphens",
        },
        fix="rename-skill",
    ),
    Rule(
        "skill/name-directory-mismatch",
        "The name differs from the skill's folder name.",
        "The spec requires name == folder name (compared after NFKC normalization); VS Code warns. Pi 1.6 "
        "allows a different name on purpose.",
        {"pi": None, "agentskills": E, "claude-code": None, "vscode": W},
        {
            "agentskills": "Directory name '{folder}' must match skill name '{name}'",
            "vscode": "The skill name '{name}' should match the folder name '{folder}'.",
            "*": "name '{name}' does not match the folder name '{folder}'",
        },
        fix="rename-skill",
    ),
    Rule(
        "skill/name-mixed-scripts",
        "The name mixes scripts, with letters that look like those of its main script.",
        "A name such as 'pdf-tооls' spelled with Cyrillic 'о' looks like 'pdf-tools' to the user and the model "
        "but is another name (the homograph trick); Unicode's confusables data says which letters look alike. "
        "Names that mix scripts without look-alikes ('日本-tools') are not reported.",
        _every(W),
        {"*": "name '{name}' mixes {scripts} letters: {look_alikes}"},
        fix="replace-confusables",
    ),
    Rule(
        "skill/collision",
        "Another skill loaded earlier has the same name.",
        "Pi keeps the first skill with a name and reports the later ones as collisions; the later skill is "
        "never offered to the model.",
        _every(W),
        {"pi": 'name "{name}" collision', "*": "skill name '{name}' is already used by {winner}"},
    ),
    Rule(
        "skill/candidate-ignored",
        "A loose .md file in a skills folder that Pi ignores.",
        "Root-level .md files in a skills folder count as skills only with a description; without one Pi "
        "skips them silently.",
        {"pi": H, "agentskills": None, "claude-code": None, "vscode": None},
        {"*": "Pi ignores this file: a loose .md file in a skills folder needs a description to be a skill"},
        fix="add-description",
    ),
    # -- other keys -----------------------------------------------------------------------------
    Rule(
        "skill/boolean-value",
        "A boolean key has a value the agent does not read as a boolean.",
        "Pi hides a skill from the model only when disable-model-invocation is the YAML boolean true (YAML "
        "1.2: yes/on are strings). VS Code requires true/false; Claude Code also accepts yes/no/on/off/1/0.",
        {"pi": W, "agentskills": None, "claude-code": E, "vscode": E},
        {
            "pi": "Pi hides the skill only when disable-model-invocation is the boolean true; {shown} keeps it "
            "visible to the model",
            "claude-code": "'{key}' must be a boolean (true/false, yes/no, on/off, 1/0)",
            "vscode": "The '{key}' attribute must be 'true' or 'false'.",
            "*": "'{key}' must be a boolean",
        },
        fix="set-boolean",
    ),
    Rule(
        "skill/compatibility-not-string",
        "compatibility is not a string.",
        "The spec defines compatibility as a short string.",
        {"pi": None, "agentskills": E, "claude-code": None, "vscode": None},
        {"*": "Field 'compatibility' must be a string"},
        fix="quote-value",
    ),
    Rule(
        "skill/compatibility-too-long",
        "compatibility is longer than 500 characters.",
        "The spec limits compatibility to 500 characters.",
        {"pi": None, "agentskills": E, "claude-code": None, "vscode": None},
        {"*": "Compatibility exceeds 500 character limit ({length} chars)"},
        fix="trim-compatibility",
    ),
    Rule(
        "skill/unreachable",
        "The skill can never run.",
        "With disable-model-invocation: true the model cannot load it, and with user-invocable: false the "
        "user cannot invoke it either.",
        {"pi": None, "agentskills": None, "claude-code": W, "vscode": W},
        {"*": "skill can never run: disable-model-invocation is true and user-invocable is false"},
    ),
    Rule(
        "skill/argument-hint-unused",
        "argument-hint is set but the body never uses $ARGUMENTS.",
        "Claude Code substitutes $ARGUMENTS (and $0, $1, ...) in the body; a hint for arguments that are "
        "never used misleads the user.",
        {"pi": None, "agentskills": None, "claude-code": W, "vscode": INFO},
        {"*": "argument-hint is set but the body never uses $ARGUMENTS"},
    ),
    Rule(
        "skill/arguments-not-substituted",
        "The body uses $ARGUMENTS, which Pi does not substitute.",
        "Pi appends /skill:<name> arguments after the skill text and leaves $ARGUMENTS in place.",
        {"pi": H, "agentskills": None, "claude-code": None, "vscode": None},
        {"*": "Pi does not substitute $ARGUMENTS: arguments are appended after the skill text"},
    ),
    # -- body -----------------------------------------------------------------------------------
    Rule(
        "skill/body-too-long",
        "The body is longer than the configured number of lines.",
        "The spec recommends keeping SKILL.md under 500 lines and moving details to referenced files, which "
        "the model reads only when needed.",
        {"pi": INFO, "agentskills": W, "claude-code": W, "vscode": None},
        {"*": "SKILL.md body has {lines} lines; keep it under {limit} (move details to referenced files)"},
    ),
    Rule(
        "skill/windows-path",
        "A file reference uses backslashes.",
        "Skills run on every platform; use forward slashes in paths (agnix AS-014).",
        _every(W),
        {"*": "use forward slashes in file references: '{path}'"},
        fix="forward-slashes",
    ),
    Rule(
        "skill/missing-reference",
        "A relative link points to a file that does not exist.",
        "The model is told to read referenced files relative to the skill's folder; a missing file wastes a "
        "tool call and leaves the task without its instructions.",
        _every(W),
        {"*": "referenced file '{target}' does not exist", "vscode": "File '{target}' not found at '{resolved}'."},
    ),
    # -- context files --------------------------------------------------------------------------
    Rule(
        "context/unreadable",
        "The context file cannot be read.",
        "Pi prints a warning and tries the next candidate name in the folder.",
        _every(E),
        {"*": "Could not read {path}: {error}"},
        applies_to="context",
    ),
    Rule(
        "context/invalid-utf8",
        "The context file is not valid UTF-8.",
        "Pi decodes invalid bytes as U+FFFD and sends them to the model.",
        _every(W),
        {
            "pi": "invalid UTF-8 at byte {offset}: Pi reads it as U+FFFD",
            "*": "invalid UTF-8 at byte {offset}: the agent reads it as U+FFFD",
        },
        applies_to="context",
    ),
    Rule(
        "context/too-large",
        "The context file is larger than the configured byte limit.",
        "Pi sends the context file of the cwd and of each of its parents with every request. The default limit is "
        "32 KiB (Codex's project_doc_max_bytes). Reported on the file Pi takes for its folder, with when Pi sends it "
        "(a file below the cwd only when Pi starts there; one in a skill's folder is information only).",
        _every(W),
        {"*": "context file is {size} bytes (limit {limit}); {when}"},
        applies_to="context",
    ),
    Rule(
        "context/token-heavy",
        "The context file costs more tokens than the configured limit.",
        "Estimated with Pi's own rule (characters / 4); every request Pi sends it with pays for it (when: as for "
        "context/too-large).",
        _every(INFO),
        {"*": "context file is about {tokens} tokens (limit {limit}); {when}"},
        applies_to="context",
    ),
    Rule(
        "context/empty",
        "The context file is empty.",
        "Pi still adds it to the prompt under its own heading.",
        _every(INFO),
        {"*": "context file is empty; Pi still adds its heading to the prompt"},
        applies_to="context",
    ),
    Rule(
        "context/not-a-file",
        "A directory (or FIFO, socket, ...) is named like a context file.",
        "Pi takes only a regular file for a candidate name (AGENTS.md, CLAUDE.md, ...) and silently tries the "
        "next name; whatever was meant to be in it never reaches the prompt.",
        _every(INFO),
        {"*": "'{name}' is {what}: Pi skips it and tries the next candidate"},
        applies_to="context",
    ),
    Rule(
        "context/shadowed",
        "Another context file in the same folder wins.",
        "Pi loads one file per folder, the first of AGENTS.override.md, AGENTS.md, AGENTS.MD, CLAUDE.md, "
        "CLAUDE.MD that is a regular file; the others are ignored.",
        {"pi": INFO, "agentskills": None, "claude-code": None, "vscode": None},
        {"*": "Pi ignores this file: {winner} in the same folder is used instead"},
        applies_to="context",
    ),
    Rule(
        "context/missing-reference",
        "A relative link points to a file that does not exist.",
        "Links in instructions send the model to read files; a missing file wastes a tool call.",
        _every(W),
        {"*": "referenced file '{target}' does not exist"},
        applies_to="context",
    ),
    Rule(
        "context/import-not-expanded",
        "An @path import line, which Pi does not expand.",
        "Claude Code replaces @path/to/file with the file's content; Pi sends the line as written.",
        {"pi": H, "agentskills": None, "claude-code": None, "vscode": None},
        {"*": "Pi does not expand @imports: '@{target}' is sent as text"},
        applies_to="context",
    ),
    Rule(
        "context/import-missing",
        "An @path import names a file that does not exist.",
        "Claude Code cannot expand an import whose file is missing.",
        {"pi": None, "agentskills": None, "claude-code": W, "vscode": None},
        {"*": "imported file '{target}' does not exist"},
        applies_to="context",
    ),
    # -- text sent to the model (context files, SYSTEM.md, APPEND_SYSTEM.md, skills) ---------
    Rule(
        "prompt/forged-tag",
        "Text that opens or closes one of the prompt's own tags, or a chat role marker, however it is spelled.",
        "Pi sends context files verbatim inside <project_instructions> within <project_context>, APPEND_SYSTEM.md "
        "inside <addendum> and an invoked skill inside <skill>; a '</project_context>' or '<system>' in that text "
        "makes the model read what follows as another part of the prompt (the prompt-injection trick). The match "
        "runs on the text as the model reads it, so a tag disguised with entities (&lt;/project_context&gt;), "
        "fullwidth or small-form brackets, spaces inside the brackets, invisible characters or a line break inside "
        "it is found too, at its exact place. Tags in inline code spans are quoted and not reported.",
        _every(W),
        {"*": "'{tag}'{read} {action} {imitates}: {note}"},
        fix="quote-or-remove-tag",
        applies_to="prompt",
    ),
    Rule(
        "prompt/invisible-characters",
        "Invisible characters in text sent to the model: every default-ignorable code point and more.",
        "The model receives these characters but editors and reviews do not show them: bidi controls reorder "
        "what is displayed, zero-width characters and soft hyphens split words past a search (and past the "
        "forged-tag rule's own match, which is why it reads text without them), Hangul fillers render as blanks, "
        "and tag characters (U+E0000-U+E007F) and runs of variation selectors are invisible data that models "
        "read, the hidden-instruction trick (the message decodes them). Legitimate uses are not reported: one "
        "variation selector after an emoji or another character with variation sequences, a joiner inside an "
        "emoji or a word of a non-Latin script, a bidi mark beside right-to-left letters (the full list in "
        '"Text sent to the model" below).',
        _every(W),
        {"*": "{what}, which the model receives and the editor does not show"},
        fix="remove-invisible",
        applies_to="prompt",
    ),
    Rule(
        "prompt/secret",
        "An API key, token, password or private key in text sent to the model.",
        "Context files, SYSTEM.md, APPEND_SYSTEM.md and skills are sent to the model provider with every request "
        "(a skill's body when it is used), so a secret in them leaves the machine each time and stays in the "
        "provider's logs. Found by the shapes of the model providers' keys (Anthropic, Google, OpenAI, OpenRouter, "
        "Groq, xAI, Hugging Face, ...) anywhere in the text, also percent-encoded in a URL or base64-encoded, by "
        "detect-secrets' plugins and filters, by environment-style assignments and URL query parameters named like "
        "a key (see docs/rules.md). Placeholders (mypassword, <token>, ${VAR}, your-api-key, sk-ant-...) are not "
        "reported. The finding names the kind and the place, never the value. A line with 'pragma: allowlist "
        "secret' is not reported.",
        _every(W),
        {"*": "possible {kind}: {when}; move the secret to an environment variable"},
        applies_to="prompt",
    ),
    # -- prompt cache ---------------------------------------------------------------------------
    Rule(
        "prompt/volatile-content",
        "Content that changes between sessions or runs, in the part of the prompt every request repeats.",
        "A provider's prompt cache only hits on a byte-identical prefix, and SYSTEM.md, APPEND_SYSTEM.md and the "
        "context files are the start of every request. A date, a generated timestamp, a build number, a commit "
        "hash or a temporary folder's path in them (usually written by a script that regenerates the file) makes "
        "every new session miss the cache for everything after it. The finding counts those tokens to the end of "
        "the assembled system prompt where the project is known (the language server, `pi-context check`), else to "
        'the end of the file. Put such facts where they are read when needed instead (docs/cost.md, "Volatile '
        'content").',
        _every(H),
        {"*": "{what} '{text}' may change between sessions: {after} miss the prompt cache in every new session"},
        applies_to="prompt",
    ),
]

RULES: dict[str, Rule] = {rule.code: rule for rule in _RULES}


@dataclass
class Emitter:
    """Turns rule hits into findings for one file and one profile (rules off in it are dropped)."""

    path: str
    profile: ProfileId
    findings: list[Finding] = field(default_factory=list)
    limit: int = MAX_FINDINGS_PER_FILE
    capped: bool = False

    def enabled(self, code: str) -> bool:
        return RULES[code].severity(self.profile) is not None

    def emit(
        self,
        code: str,
        where: Range,
        facts: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
        message: str | None = None,
    ) -> Finding | None:
        rule = RULES[code]
        severity = rule.severity(self.profile)
        if severity is None:
            return None
        if len(self.findings) >= self.limit:
            if not self.capped:
                self.capped = True
                capped = RULES["file/too-many-findings"]
                text = capped.message(self.profile, {"limit": self.limit})
                self.findings.append(
                    Finding(self.path, where, capped.severity(self.profile) or INFO, capped.code, text)
                )
            return None
        text = message if message is not None else rule.message(self.profile, facts or {})
        finding = Finding(self.path, where, severity, code, text, dict(data or {}))
        self.findings.append(finding)
        return finding
