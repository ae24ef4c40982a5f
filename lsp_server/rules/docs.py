"""``docs/rules.md``, generated from the profile table and the rule registry so they cannot drift apart.

Run ``python -m lsp_server.rules.docs > docs/rules.md`` (or ``python docs/gen_vocabularies.py``)
after changing a rule or a profile; a test compares the committed file with this output.
"""

from __future__ import annotations

from lsp_server.context.yaml import limits as yaml_limits
from lsp_server.rules.profiles import PROFILE_TABLE, PROFILES, Profile, ProfileId
from lsp_server.rules.registry import RULES, Rule

_INTRO = """# Rules

Generated from `lsp_server/rules/profiles.py` (the profiles) and `lsp_server/rules/registry.py` (the rules)
by `python -m lsp_server.rules.docs`; do not edit by hand.

`pi-context check [PATH...] [--profile P] [--cwd DIR] [--json]` and the language server report these rules.
Codes are `<area>/<problem>` slugs. Every finding has a range: the value or key it is about, the
frontmatter's opening fence when a key is missing (the first line when there is no frontmatter),
or the start of the file for whole-file problems. Lengths in Pi's messages are UTF-16 units, as Pi
counts them (an emoji is 2); `agentskills` messages count code points, as skills-ref does.
`Finding.data["fix"]` names the quick fix when there is one.

## Profiles

| profile | audience | frontmatter keys | booleans |
| --- | --- | --- | --- |
{profiles}

{editor_notes}

Severity legend: **E** error, **W** warning, **I** info, **H** hint, `-` not checked in that profile.
`pi` reports exactly Pi's own loader warnings (its texts, severity warning) plus what makes Pi drop
or hide a skill (`skill/not-loaded` is an error because the skill silently disappears).

## Thresholds

The size rules' limits are the `limits` settings (`piContext.limits.*` in the editor, `--settings` on the
command line):

| setting | default | rule |
| --- | --- | --- |
| `limits.skillMaxBytes` | 8 MiB (Claude's skill upload limit) | `skill/too-large` |
| `limits.bodyMaxLines` | 500 (the spec's recommendation) | `skill/body-too-long` |
| `limits.contextMaxBytes` | 32 KiB (Codex's `project_doc_max_bytes`) | `context/too-large` |
| `limits.contextMaxTokens` | 8000 (Pi's chars/4 estimate) | `context/token-heavy` |

`limits.sessionMaxBytes` (512 MiB) and `limits.checkBudgetMs` (2000) are not a rule's threshold: session
files above the first are not read at all, and a check that outlasts the second gets `file/not-fully-checked`
(docs/limits.md lists every limit of the project).

## Summary

| code | {profile_heads} | fix |
| --- | {profile_rules} | --- |
{summary}

"""

_OUTRO = """## YAML errors: where positions can differ from Pi

Valid frontmatter is read by libyaml's event parser under our own YAML 1.2 composer (the values,
nodes and positions the full parser gives, checked by a differential over 300,000 generated
documents); every error is left to the full parser. Pi's `yaml` package and that parser
(ruamel.yaml's scanner, with yaml's rules re-applied) agree on the line and column of every broken
input in
`tests/conformance/requests/parse_frontmatter.jsonl` (about 50 kinds of mistakes); the message
wording is yaml's for the common ones and ours otherwise. Known residual differences:

- a tab inside a block scalar's indentation: same position, our message says "Tabs are not allowed as
  indentation" where yaml says "Block scalar lines must not be less indented than their first line";
- inputs that only the two parsers' internals disagree on (exotic flow/block mixes) may get a
  different position; the conformance cases pin the ones users meet;
- `: :` (an empty key whose value is another empty mapping) is an error for yaml and accepted by us;
  `? ? ?` stringifies its complex key differently;
- `!!set`, `!!omap` and `!!pairs` collections are read as plain mappings/sequences;
- a `!!timestamp` key is named by its ISO form where Pi uses `Date#toString()` (local time), and a
  quoted scalar or tag inside a collection key is written as JSON, without the tag, where yaml keeps
  the source's quotes and tag (`? ['a']` is `[ 'a' ]` for Pi, `[ "a" ]` for us).

## YAML limits

A frontmatter beyond one of these limits is reported as `skill/yaml-error` with a message that
names the limit, at the place where it is crossed; pi-context reads no further, so it does not
claim whether Pi loads the skill (`skill/not-loaded` is not reported). Pi has no such limits:
its parser gives up on deep nesting somewhere between about 750 and 1,700 levels, and takes
seconds to minutes on tens of thousands of keys or aliases, where ours is linear.

| code | limit | error |
| --- | --- | --- |
{limits}

## Text sent to the model

The `prompt/*` rules (and `skill/name-mixed-scripts`) look at what Pi puts into every request:
context files (inside `<project_instructions>`), `.pi/SYSTEM.md` and `<agentDir>/SYSTEM.md` (the
preamble), `APPEND_SYSTEM.md` (the `<addendum>` section) and every skill (its name and description
in `<available_skills>`, its body inside `<skill>` when it is invoked). SYSTEM.md and
APPEND_SYSTEM.md are checked where Pi reads them (a `.pi` folder or an agent dir `.pi/agent`), or
anywhere when named on the command line. These rules go beyond Pi, which checks none of this.

- `prompt/forged-tag` knows Pi's tags {pi_tags}, the role tags {role_tags}, and chat-template
  markers (`<|im_start|>`, `<|eot_id|>`, any `<|word|>`, `<<SYS>>`). Tag names match in any case,
  with or without attributes. Inline code spans are quoted text and not reported; fenced blocks are
  (the code-span fix is not offered there). In a skill description Pi escapes `<` as `&lt;`, so the
  message says what the model then reads, and only the code-span fix is offered (an escape would
  be escaped again: `&amp;lt;`). `<name>`, `<description>` and `<location>` are not reported: they
  are the usual placeholders of instructions.
- `prompt/invisible-characters`: U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C, U+200B-U+200D,
  U+2060, U+FEFF after the first character, and U+E0000-U+E007F (decoded to the ASCII they hide, at
  most {hidden} characters in the message).
- `skill/name-mixed-scripts` uses Unicode's confusables and script data (`confusable-homoglyphs`).
- `prompt/secret` runs detect-secrets' plugins in-process ({plugins}) with its default
  false-positive filters and its `pragma: allowlist secret` comment; never its network
  verification. Lines are read as the language they are in (frontmatter as YAML, fenced blocks by
  their info string: {fences}; prose needs quotes around a keyword's value). Bounds per file: lines
  are scanned up to {line_chars} characters, files up to {scan_chars} characters, at most
  {max_findings} secrets reported; only lines with a keyword of the keyword plugin, a private-key
  header, a URL with credentials, a token of 16 or more characters with a digit, an
  Artifactory-like token or a quoted token reach the plugins (and detect-secrets is imported then).
  The value is never shown (not in the message, the data, hovers, code actions or logs). Known
  gap: detect-secrets has no plugin for Anthropic keys or OpenAI project keys (`sk-ant-...`,
  `sk-proj-...`), which are found only in a keyword assignment (`API_KEY = "..."`, `api_key: ...`
  in YAML, `export API_KEY=...` in a shell block) or as a quoted high-entropy string.

## Left out (for now)

From the superset of agnix, claudelint, skills-ref, quick_validate and VS Code: trigger-phrase,
person and vagueness heuristics on descriptions, word counts, reference depth ("one level deep"),
hard-coded secrets and dangerous commands in bundled scripts, Codex's cumulative AGENTS.md
budget along the folder chain, and CLAUDE.md import graphs (cycles, depth) beyond missing files.
"""


def _prompt_facts() -> dict[str, str]:
    """The tables behind the prompt rules, for the section that lists them."""
    from lsp_server.rules import forged_tags, invisible_chars, secrets

    fences: dict[str, list[str]] = {}
    for language, name in secrets.FENCE_LANGUAGES.items():
        fences.setdefault(name.rsplit(".", 1)[1].upper(), []).append(f"`{language}`")
    return {
        "pi_tags": ", ".join(f"`{name}`" for name in forged_tags.PI_TAGS),
        "role_tags": ", ".join(f"`{name}`" for name in forged_tags.ROLE_TAGS),
        "hidden": str(invisible_chars.HIDDEN_TEXT_SHOWN),
        "plugins": ", ".join(f"`{name}`" for _, name in secrets.PLUGINS),
        "fences": "; ".join(f"{', '.join(names)} as {kind}" for kind, names in fences.items()),
        "line_chars": f"{secrets.MAX_LINE_CHARS:,}",
        "scan_chars": f"{secrets.MAX_SCAN_CHARS:,}",
        "max_findings": str(secrets.MAX_FINDINGS),
    }


def _limits_table() -> str:
    """One row per YAML limit, from the limits' own table."""
    rows = []
    for limit in yaml_limits.LIMITS:
        value = f"{limit.value:,}"
        if limit is yaml_limits.TABS:
            value += f" (fewer above {yaml_limits.TAB_REREAD_CHARACTERS // limit.value:,} characters)"
        rows.append(f"| `{limit.code}` | {value} | {limit.text()} |")
    return "\n".join(rows)


def _keys(profile: Profile) -> str:
    if profile.allowed_keys is None:
        return "any (others are ignored)"
    return ", ".join(f"`{key}`" for key in profile.allowed_keys)


def _booleans(profile: Profile) -> str:
    if not profile.boolean_keys:
        return "not checked"
    pairs = profile.booleans.word_pairs
    spelled = ", ".join(f"`{true}`/`{false}`" for true, false in pairs) if pairs else "YAML `true`/`false` only"
    return f"{', '.join(f'`{key}`' for key in profile.boolean_keys)}: {spelled}"


def _sev(rule: Rule, profile: ProfileId) -> str:
    severity = rule.severity(profile)
    return "-" if severity is None else severity.label[0].upper()


def _messages(rule: Rule) -> str:
    lines = []
    default = rule.messages.get("*")
    for profile in PROFILES:
        if rule.severity(profile) is None:
            continue
        template = rule.messages.get(profile) or default
        lines.append(f"- `{profile}`: {template}")
    return "\n".join(lines)


_AREAS = (
    ("skill", "Skill rules"),
    ("context", "Context-file rules"),
    ("prompt", "Rules for text sent to the model (context files, SYSTEM.md, APPEND_SYSTEM.md, skills)"),
    ("file", "Limits of every file"),
)


def _editor_notes() -> str:
    """What the language server leaves to an agent's own editor (the rows' ``editor_reports``)."""
    lines = [
        "In the language server, a profile whose agent's editor checks skills itself leaves those findings to",
        "it when that editor is the client (initialize's `clientInfo.name`), so each problem is listed once;",
        "other editors under the profile, and `pi-context check`, report them all:",
        "",
    ]
    for profile in PROFILE_TABLE:
        if profile.editor_reports:
            editors = ", ".join(profile.editor_clients)
            codes = ", ".join(f"`{code}`" for code in sorted(profile.editor_reports))
            lines.append(f"- `{profile.id}` in {editors}: {codes}.")
    return "\n".join(lines)


def render_rules_markdown() -> str:
    profiles = "\n".join(f"| `{p.id}` | {p.description} | {_keys(p)} | {_booleans(p)} |" for p in PROFILE_TABLE)
    summary = "\n".join(
        f"| [`{r.code}`](#{r.code.replace('/', '')}) | "
        + " | ".join(_sev(r, p) for p in PROFILES)
        + f" | {r.fix or ''} |"
        for r in RULES.values()
    )
    out = _INTRO.format(
        profiles=profiles,
        editor_notes=_editor_notes(),
        profile_heads=" | ".join(PROFILES),
        profile_rules=" | ".join("---" for _ in PROFILES),
        summary=summary,
    )
    for area, title in _AREAS:
        out += f"## {title}\n\n"
        for rule in RULES.values():
            if rule.applies_to != area:
                continue
            severities = ", ".join(f"{p} {_sev(rule, p)}" for p in PROFILES)
            out += f"### `{rule.code}`\n\n{rule.title} {rule.explanation}\n\n"
            out += f"Severity: {severities}.\n\nMessages:\n\n{_messages(rule)}\n\n"
            out += f"Quick fix: {rule.fix if rule.fix else 'none'}.\n\n"
    outro = _OUTRO.replace("{limits}", _limits_table())
    for key, value in _prompt_facts().items():
        outro = outro.replace(f"{{{key}}}", value)
    return out + outro


if __name__ == "__main__":  # pragma: no cover
    import sys

    sys.stdout.write(render_rules_markdown())
