"""``docs/rules.md``, generated from the profile table and the rule registry so they cannot drift apart.

Run ``python -m lsp_server.rules.docs > docs/rules.md`` (or ``python docs/gen_vocabularies.py``)
after changing a rule or a profile; a test compares the committed file with this output.
"""

from __future__ import annotations

from lsp_server.context.yaml import limits as yaml_limits
from lsp_server.rules import forged_tags, invisible_chars, key_shapes, placeholders, secrets
from lsp_server.rules.registry import RULES, Rule
from lsp_server.vocabulary.profiles import PROFILE_TABLE, PROFILES, Profile, ProfileId

_INTRO = """# Rules

Generated from `lsp_server/vocabulary/profiles.py` (the profiles) and `lsp_server/rules/registry.py` (the rules)
by `python -m lsp_server.rules.docs`; do not edit by hand.

`pi-context check [PATH...] [--profile P] [--exclude GLOB] [--cwd DIR] [--json]` and the language server report
these rules.
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

_OUTRO = """## When Pi sends a file: one resolution for every sentence

Every finding that says when its text reaches the model (`context/too-large`, `context/token-heavy`,
`context/shadowed`, `prompt/secret`), the hover on a context file's first line and the code lens come from
one function, `Inclusions` in `lsp_server/prompt/inclusion.py`, asked about the project the check speaks of:
`pi-context check --cwd DIR` (default: the PATH when it is one folder, else the current directory; the agent
dir from `--agent-dir`, else Pi's) and, in the editor, the workspace folder holding the file. It answers from
the resolution that builds the prompt (`pi-context prompt`), so the two never disagree. Pi 1.6.0's rule,
checked against Pi by the `load_context_files` conformance requests (links included):

- **One file per folder**: the first of `AGENTS.override.md`, `AGENTS.md`, `AGENTS.MD`, `CLAUDE.md`,
  `CLAUDE.MD` that is a readable regular file (links followed; `agents.md` is not a candidate). A `CLAUDE.md`
  beside an `AGENTS.md` gets `context/shadowed` and no cost finding, and in the `pi` profile none of the
  findings that say the model receives its text (`prompt/forged-tag`, `prompt/invisible-characters`,
  `prompt/volatile-content`; a `prompt/secret` stays, saying Pi does not send it); a `CLAUDE.md` that is a link
  to the folder's `AGENTS.md` (or the same file under another spelling) gets no finding at all: its findings
  are the `AGENTS.md`'s.
- **Only the cwd, its parents and the agent dir**: such a file is "sent with every request". A folder's
  file below the cwd is sent "only when started in DIR or below", and keeps its severity; one in a skill's
  folder (a folder holding a SKILL.md, between it and the cwd) gets its cost findings as information,
  since using the skill does not send it either.
- **Paths, not files**: a folder's `AGENTS.md` that links to its parent's is sent twice when Pi starts
  there (the finding says so); `check` reports the file's content findings once, on the link's target.
- A skill's name and description are sent with every request (in the skills listing, unless
  `disable-model-invocation: true` hides the skill: then only when invoked as `/skill:NAME`), the rest of
  SKILL.md only when the skill is used. `.pi/SYSTEM.md` and `APPEND_SYSTEM.md` with every request when the
  project is trusted; the agent dir's unless a trusted project has its own.

## Which files a check covers

`pi-context check [PATH...]` walks the folders it is given (`.git`, `node_modules`, virtual environments and
tool caches are skipped) for every `SKILL.md`, every loose `.md` file Pi would consider in a `.pi/skills` or
`.agents/skills` folder (its summary names those "loose .md candidates", and how many have a description, so
Pi loads them as skills), every context file and every `SYSTEM.md` / `APPEND_SYSTEM.md` in a `.pi` folder or an
agent dir. A file named on the command line is checked as what its name says; any other named file is checked
as a skill only when it starts with a frontmatter (as Pi's `--skill FILE` would read it), and otherwise is
reported as not checked (`pi-context: README.md: not checked: ...`), not counted.

- `--exclude GLOB` (repeatable) and the `check.exclude` setting leave paths out: a glob without a `/`
  matches a file or folder name at any depth (`fixtures`, `*.draft.md`), one with a `/` the path below the
  checked folder, or in the editor below the workspace folder (`packages/*/test/fixtures`, `**/testdata`), with
  minimatch's rules. An excluded folder is not entered; a file named on the command line is checked anyway.
- **Test fixtures are explained, not hidden.** A finding in a file below a folder named in
  `check.fixtureFolders` (default `fixtures`, `__fixtures__`, `testdata`; below the checked folder, so
  checking a fixture folder itself reports as usual) keeps its code and message, is lowered to info when it
  was an error or a warning, and ends with `[test fixture (<folder>): <severity> lowered to info]`; `--json`
  adds `data.fixture` and the original `data.severity`. So a repository whose tests keep skills broken on
  purpose (pi-mono's `packages/coding-agent/test/fixtures`) passes `check` at its root (exit 0), and the
  summary line counts the findings lowered. `check.fixtureFolders: []` turns this off.

Positions: the text output is `path:line:column` counted from 1 (columns in characters); `--json` gives
each finding an LSP-style `range` counted from 0 (`{"start": {"line": 0, "column": 0}, ...}`, columns in
characters, which the language server converts to the client's encoding).

## YAML errors: where positions can differ from Pi

Valid frontmatter is read by libyaml's event parser under our own YAML 1.2 composer (the values,
nodes and positions the full parser gives, checked by a differential over 300,000 generated
documents); every error is left to the full parser. Pi's `yaml` package and that parser
(ruamel.yaml's scanner, with yaml's rules re-applied) agree on the line and column of every broken
input in
`tests/conformance/requests/parse_frontmatter.jsonl` (about 50 kinds of mistakes); the message
wording is yaml's for the common ones and ours otherwise. Cases where ruamel and yaml part ways and
we follow yaml (each pinned by an oracle golden, `ours/yaml-*`):

- NEL (U+0085), LINE SEPARATOR and PARAGRAPH SEPARATOR are ordinary characters (YAML 1.2), not line
  breaks as in ruamel (YAML 1.1): `x: a<NEL>b` is the string `a<NEL>b`;
- a line that is a key without a value (`a: b` then `notes`) is "Implicit map keys need to be followed
  by map values" at the key, or "Implicit keys need to be on a single line" when yaml's lexer reads the
  key on into the next line: it does so when the next line with content is indented at least as far as
  the key and the key's line has a second character that is not blank (`cc`, `&a c`), one column deeper
  otherwise (`c`, `c d`), for an unclosed quote where a key goes, and for a flow collection not closed
  on its line;
- `!!timestamp` is `Date.UTC` of its fields, which carries out-of-range ones over (`2020-13-45` is
  2021-02-14), with yaml's zone rule (a zone under 30 is hours: `+00:15` is 15 hours); text that is no
  date is yaml's error at the tag;
- `!!binary` is `Buffer.from(text, "base64")`: junk skipped, the first `=` ends it, a string holding a
  character beyond U+00FF read by each UTF-16 unit's low byte (`lsp_server/js/buffers.py`);
- a line of tabs, or a comment indented with tabs, is no content (ruamel calls the tab indentation),
  except where a block scalar may go on: there yaml reads a content line less indented than the first;
  in a flow collection's continuation lines, indentation is spaces only and tabs after them separate;
- a line indented deeper than its mapping's keys after a finished value (`d: 'x'` then `  c`) is "All
  mapping items must start at the same column" (in a sequence, "Sequence item without - indicator") at
  the start of the line after that value's last line;
- a duplicate key right after a pair whose value was left out on the line before (`o:` then `o: 1`) is
  reported at the end of that line, where yaml's offset still stands;
- a stray quote after a finished flow node (`tags: [a] "`) is "Unexpected double-quoted-scalar at node
  end" at the quote, with yaml's excerpt running to the end (its line counter stops in an open quote).

Known residual differences:

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
  with or without attributes. The match runs on the text as the model reads it: each character
  folded with NFKC (fullwidth `＜` U+FF1C and small-form `﹤` U+FE64 brackets, fullwidth letters),
  default-ignorable characters dropped (a soft hyphen or zero-width space inside the tag), character
  references decoded once as HTML decodes them (`&lt;`, `&gt;`, `&sol;`, `&shy;`, `&#60;`, `&#x3C;`;
  `&amp;lt;` reads as `&lt;`), spaces allowed inside the brackets (`</ project_context >`; a spaced
  tag has no attributes, so `a < skills and b > c` is not one) and line breaks inside a tag over up
  to {tag_lines} lines. The finding covers the tag as written, across lines when it is split, and
  says how it reads when that differs (`'&lt;/skill>' (read as '</skill>') closes ...`). Inline code
  spans of the written line are quoted text and not reported; fenced blocks are. Quick fixes: quote
  the tag in a code span (not in a fenced block or around a split tag) or remove it, and quote every
  tag of the file at once; neither is offered when it would empty a description or the file. An
  entity is not a fix: the model reads `&lt;/project_context>` as the tag it spells. In a skill
  description Pi escapes `<` as `&lt;`, so the message says what the model then reads. `<name>`,
  `<description>` and `<location>` are not reported: they are the usual placeholders of
  instructions.
- `prompt/invisible-characters`: every default-ignorable code point ({ignorable}; Unicode's
  `Default_Ignorable_Code_Point`: bidi controls and marks, zero-width characters, U+FEFF after the
  first character, the soft hyphen, Hangul fillers, variation selectors, tag characters) and
  {other}. Tag characters are decoded to the ASCII they hide, a run of variation selectors to the
  bytes it encodes (one byte per selector, as bytes are smuggled after an emoji) when they are
  readable UTF-8, at most {hidden} characters in the message. Not reported, as legitimate: one
  variation selector after a non-ASCII character (U+FE00-U+FE0F: ❤️, ☺︎, ≩︀), after `#`, `*` or a
  digit followed by U+20E3 (the keycap 1️⃣), after a CJK ideograph (U+E0100-U+E01EF) or after a
  Mongolian letter (U+180B-U+180D, U+180F), while two or more selectors in a row are reported
  whole whatever comes before them; a zero-width joiner or non-joiner between two non-ASCII
  characters (👩‍💻, Persian and Indic spelling); a bidi mark beside right-to-left letters; U+180E
  between Mongolian letters; U+034F before a combining mark; U+115F/U+1160 next to a conjoining
  jamo; the shorthand and musical format controls in their scripts; an emoji tag sequence of
  U+1F3F4 with a region code of 3 to 6 tag letters or digits and U+E007F (the flags of England,
  Scotland and Wales). The quick fix removes a run, or every run of the file.
- `skill/name-mixed-scripts` uses Unicode's confusables and script data (`confusable-homoglyphs`).
- `prompt/secret` looks at each line in this order, the first to claim a place naming it:
  1. the shapes of provider keys detect-secrets does not know, anywhere on the line (prose,
     unlabeled fences, YAML values, URLs), on the line as the model reads it (a zero-width space
     or fullwidth letters inside a key do not hide it), inside a percent-encoded URL, and inside a
     base64 or base64url blob (alone or as a Basic `user:key` value) that decodes to one:

     | kind | prefix | then |
     | --- | --- | --- |
{shapes}

     Minimum lengths are below the real ones, so a key cut short in a paste is still found.
  2. detect-secrets' plugins in-process ({plugins}) with its default false-positive filters and
     its `pragma: allowlist secret` comment; never its network verification. Lines are read as the
     language they are in (frontmatter as YAML, fenced blocks by their info string: {fences}; a line
     shaped like a shell assignment, `NAME=value` or `export NAME=value`, as INI wherever it is;
     other prose needs quotes around a keyword's value).
  3. the generic `sk-` shape (OpenAI-style keys of DeepSeek, Moonshot, DashScope, ...), environment-style
     assignments whose name says secret and whose value is a token of 16 characters or more, not a
     path or a URL (`GITHUB_TOKEN=…`, `STRIPE_SECRET: …` with letters and digits; detect-secrets'
     keyword list has no `TOKEN`), and URL query parameters named like a key
     (`key`, `api_key`, `token`, `access_token`, `secret`, `password`, `sig`, `signature`) whose value
     has 16 or more characters mixing letters and digits.

  Placeholders are not reported (`lsp_server/rules/placeholders.py`; a provider's prefix, or the
  prefix of a token detect-secrets knows (`ghp_`, `xoxb-`, `sk_live_`, `AKIA`, ...), is not part of
  the value it judges): a reference or template (`${VAR}`, `$VAR`, `{{x}}`, `<token>`, `%VAR%`,
  `$(cmd)`, `[NAME]`), an elision or mask (`...`, `…`, `****`, `xxxxxx`), three or fewer distinct
  characters, a marker word anywhere ({markers}), an environment variable's name (`TWILIO_API_KEY`:
  the value names where the secret is), or a value made only of common words and short
  or consecutive digits (`mypassword`, `your-api-key`, `changeme`, `secret123`, `12345678`; the word
  list is in the module). A random key of 16 characters or more never meets these (a test draws
  thousands per provider shape). Bounds per file: lines are scanned up to {line_chars} characters,
  files up to {scan_chars} characters, base64 blobs up to {blob_chars} characters, at most
  {max_findings} secrets reported; only lines with a keyword of the keyword plugin, a private-key
  header, a URL with credentials, a token of 16 or more characters with a digit, an
  Artifactory-like token, a quoted token or a provider prefix reach detect-secrets (and it is
  imported then). The message says when the text reaches the provider (a skill's description with
  every request, the rest of a skill when it is used, other files with every request; the `{when}`
  fact). The value is never shown (not in the message, the data, hovers, code actions or logs).

## Left out (for now)

From the superset of agnix, claudelint, skills-ref, quick_validate and VS Code: trigger-phrase,
person and vagueness heuristics on descriptions, word counts, reference depth ("one level deep"),
hard-coded secrets and dangerous commands in bundled scripts, Codex's cumulative AGENTS.md
budget along the folder chain, and CLAUDE.md import graphs (cycles, depth) beyond missing files.
"""


def _ranges(ranges: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"U+{a:04X}" if a == b else f"U+{a:04X}-U+{b:04X}" for a, b in ranges)


def _prompt_facts() -> dict[str, str]:
    """The tables behind the prompt rules, for the section that lists them."""

    fences: dict[str, list[str]] = {}
    for language, name in secrets.FENCE_LANGUAGES.items():
        fences.setdefault(name.rsplit(".", 1)[1].upper(), []).append(f"`{language}`")
    return {
        "pi_tags": ", ".join(f"`{name}`" for name in forged_tags.PI_TAGS),
        "role_tags": ", ".join(f"`{name}`" for name in forged_tags.ROLE_TAGS),
        "tag_lines": str(forged_tags.MAX_TAG_LINES),
        "hidden": str(invisible_chars.HIDDEN_TEXT_SHOWN),
        "ignorable": _ranges(invisible_chars.DEFAULT_IGNORABLE),
        "other": _ranges(invisible_chars.OTHER_INVISIBLE) + " (line and paragraph separators, interlinear annotation)",
        "plugins": ", ".join(f"`{name}`" for _, name in secrets.PLUGINS),
        "fences": "; ".join(f"{', '.join(names)} as {kind}" for kind, names in fences.items()),
        "line_chars": f"{secrets.MAX_LINE_CHARS:,}",
        "scan_chars": f"{secrets.MAX_SCAN_CHARS:,}",
        "max_findings": str(secrets.MAX_FINDINGS),
        "blob_chars": f"{secrets.MAX_BLOB_CHARS:,}",
        "shapes": "\n".join(
            f"     | {shape.kind} | `{shape.written}`"
            + (f" (`{shape.prefix.replace('|', chr(92) + '|')}`)" if shape.prefix else "")
            + f" | {shape.length if shape.exact else f'{shape.min_length}+'} of `[{shape.alphabet}]` |"
            for shape in key_shapes.KEY_SHAPES
        ),
        "markers": ", ".join(f"`{marker}`" for marker in placeholders.MARKERS),
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
