"""Quick fixes: for a skill file's text and its findings, the edits that make each finding go away.

Every fix is computed from the text it will be applied to (the language server passes the
current buffer, never the text an old diagnostic came from) and is **verified before it is
offered**: the edits are applied to the text (a folder rename changes the path instead), the
rules run again under the same profile, and the fix is dropped unless the rule it answers reports
fewer findings and no YAML error appears. A rule's fix can therefore never leave the file still
failing that rule, nor break the frontmatter, whatever the file looks like (CRLF, BOM, block
scalars, anchors, a ``---name: x`` fence line).

Fixes by rule (``Finding.data["fix"]`` names them in the registry):

- name rules: lowercase the name; make the name valid (lowercase, a-z 0-9 and single inner
  hyphens, at most 64); rename the skill to its folder name; rename the folder to the name (a
  :class:`FolderRename`; the server offers it only to clients that can rename files); add a
  ``name:`` line when the name comes from an invalid folder name; quote a name YAML reads as a
  number or boolean;
- ``skill/name-missing``: add ``name:``; ``skill/frontmatter-missing``: insert a frontmatter
  block; ``skill/frontmatter-unclosed``: add the closing ``---`` after the YAML-looking lines;
- ``skill/description-missing`` / ``skill/candidate-ignored``: add a placeholder description (a
  line, or a whole frontmatter block), or quote a description YAML reads as a number;
- ``skill/description-too-long`` / ``skill/compatibility-too-long``: trim at a word boundary to
  the limit (1024 / 500; UTF-16 units, which also keeps the spec's character count in bounds);
- ``skill/unknown-key``: remove the key with its nested lines (and all unknown keys at once);
- ``skill/boolean-value``: write ``true`` or ``false``; ``skill/compatibility-not-string``: quote;
- ``skill/windows-path``: forward slashes;
- ``prompt/forged-tag`` (skills, context files, SYSTEM.md, APPEND_SYSTEM.md): wrap the tag in a code span
  (quoted text, not structure; not where a code span cannot go: in a fenced block, or around a tag
  split over lines), or remove it, and quote every tag of the file at once. No escape: the rule reads
  ``&lt;/project_context>`` as the tag it spells (models read entities), so escaping fixes nothing;
- ``skill/name-mixed-scripts``: replace each look-alike letter by its one look-alike in the name's
  main script (``pdf-tооls`` -> ``pdf-tools``);
- ``prompt/invisible-characters``: remove the run of invisible characters (or all of them in the file).

The rules that run again are the ones of the file's kind (:func:`check_text`): a skill's, a context
file's, or a SYSTEM.md's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lsp_server.base.findings import Finding, Position
from lsp_server.context.frontmatter import Frontmatter, parse_frontmatter
from lsp_server.context.yaml import ScalarNode, parse_yaml
from lsp_server.editing.text import (
    LineIndex,
    TextEdit,
    apply_edits,
    delete_lines,
    insert_at,
    line_break_of,
    sorted_edits,
)
from lsp_server.editing.yamltext import (
    FieldSpan,
    double_quoted,
    fence_line_is_plain,
    field_span,
    mapping_indent,
    replace_value,
    yaml_scalar,
)
from lsp_server.js.strings import js_len, js_slice_head, normalize_newlines
from lsp_server.prompt.skills_block import escape_xml
from lsp_server.rules.context_rules import check_context_text
from lsp_server.rules.registry import RULES
from lsp_server.rules.skill_rules import MAX_COMPATIBILITY_LENGTH, check_skill_text, suggest_name
from lsp_server.rules.system_prompt_rules import check_system_prompt_text, is_system_prompt_file
from lsp_server.vocabulary.limits import Thresholds
from lsp_server.vocabulary.pi_files import CONTEXT_FILE_CANDIDATES, SKILL_FILE_NAME
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, ProfileId, guess_boolean

DESCRIPTION_PLACEHOLDER = "Describe what this skill does and when to use it."
DESCRIPTION_LIMIT = 1024

NAME_CODES = frozenset(
    {
        "skill/name-not-string",
        "skill/name-too-long",
        "skill/name-invalid-chars",
        "skill/name-uppercase",
        "skill/name-hyphen-edge",
        "skill/name-consecutive-hyphens",
        "skill/name-directory-mismatch",
    }
)
# A name fix must not trade one name problem for another (renaming to an invalid folder name).
NAME_GUARD = NAME_CODES | {"skill/name-missing", "skill/name-mixed-scripts"}


def check_text(path: str, text: str, profile: ProfileId, thresholds: Thresholds | None) -> tuple[Finding, ...]:
    """The findings of ``text`` by the rules of the file's kind (context file, SYSTEM.md, else a skill)."""
    if os.path.basename(path) in CONTEXT_FILE_CANDIDATES:
        return tuple(check_context_text(path, text, profile, thresholds=thresholds))
    if is_system_prompt_file(path):
        return tuple(check_system_prompt_text(path, text, profile))
    return check_skill_text(path, text, profile, thresholds=thresholds).findings


@dataclass(frozen=True)
class FolderRename:
    """Rename the skill's folder (``old_path`` -> ``new_path``, both absolute)."""

    old_path: str
    new_path: str


@dataclass(frozen=True)
class Fix:
    """One quick fix: text edits and/or a folder rename, and the findings it answers."""

    title: str
    findings: tuple[Finding, ...]
    edits: tuple[TextEdit, ...] = ()
    rename: FolderRename | None = None
    preferred: bool = False
    fix_all: bool = field(default=False, compare=False)  # answers every finding of its rule at once
    guarded: frozenset[str] = field(default=frozenset(), compare=False)  # rules it must not make worse

    @property
    def identity(self) -> tuple[Any, ...]:
        return (self.edits, self.rename)


class _Document:
    """One file's text, parsed once, shared by every fix builder."""

    def __init__(self, path: str, text: str, profile: ProfileId, thresholds: Thresholds | None) -> None:
        self.path = path
        self.text = text
        self.profile = profile
        self.thresholds = thresholds
        self.fm: Frontmatter = parse_frontmatter(text)
        self.index = LineIndex(text)
        self.eol = line_break_of(text)
        self.folder_path = os.path.dirname(path)
        self.folder = os.path.basename(self.folder_path)
        self.declared = os.path.basename(path) == SKILL_FILE_NAME
        self.findings = check_text(path, text, profile, thresholds)
        self._after: dict[tuple[Any, ...], tuple[Finding, ...]] = {}

    # -- locating -------------------------------------------------------------------------------

    def span(self, key: str) -> FieldSpan | None:
        located = self.fm.field(key)
        return field_span(self.fm, located, self.index) if located is not None else None

    def can_insert_lines(self) -> bool:
        """A closed frontmatter whose YAML is empty or a block mapping, under a plain ``---`` line."""
        fm = self.fm
        if not fm.has_frontmatter or fm.error is not None or not fence_line_is_plain(self.index):
            return False
        node = fm.yaml.node if fm.yaml is not None else None
        if node is None:
            return True
        mapping = fm.mapping
        return mapping is not None and not mapping.flow

    def field_line(self, key: str, value: str, indent: str | None = None) -> str:
        prefix = mapping_indent(self.fm) if indent is None else indent
        return f"{prefix}{key}: {yaml_scalar(value)}{self.eol}"

    def insert_field(self, key: str, value: str, *, after: str | None = None) -> TextEdit | None:
        """A new ``key: value`` line: after field ``after`` when present, else first in the mapping."""
        if not self.can_insert_lines():
            return None
        line = 0
        if after is not None:
            span = self.span(after)
            if span is not None:
                line = span.last_line
            elif self.fm.field(after) is not None:
                return None
        return insert_at(Position(line + 1, 0), self.field_line(key, value))

    def frontmatter_block(self, name: str) -> TextEdit:
        """A whole frontmatter block at the top (after a BOM), separated from the text by a blank line."""
        eol = self.eol
        block = (
            f"---{eol}name: {yaml_scalar(name)}{eol}description: {yaml_scalar(DESCRIPTION_PLACEHOLDER)}{eol}---{eol}"
        )
        body = self.text.lstrip("\ufeff")
        if body and not body.startswith(("\n", "\r")):
            block += eol
        start = Position(0, 1 if self.text.startswith("\ufeff") else 0)
        return insert_at(start, block)

    # -- verification ---------------------------------------------------------------------------

    def count(self, findings: Iterable[Finding], code: str) -> int:
        return sum(1 for finding in findings if finding.code == code)

    def after(self, fix: Fix) -> tuple[Finding, ...]:
        """The findings once ``fix`` is applied (checked once per distinct change)."""
        cached = self._after.get(fix.identity)
        if cached is None:
            text = apply_edits(self.text, fix.edits) if fix.edits else self.text
            path = self.path
            if fix.rename is not None:
                path = os.path.join(fix.rename.new_path, os.path.basename(self.path))
            cached = check_text(path, text, self.profile, self.thresholds)
            self._after[fix.identity] = cached
        return cached

    def verified(self, fix: Fix) -> bool:
        """Whether applying ``fix`` makes its rule report less (nothing, for a fix-all) and keeps the YAML valid."""
        after = self.after(fix)
        if self.count(after, "skill/yaml-error") > self.count(self.findings, "skill/yaml-error"):
            return False
        answered = {finding.code for finding in fix.findings}
        for code in answered:
            now = self.count(after, code)
            if (fix.fix_all and now) or now >= self.count(self.findings, code):
                return False
        return all(self.count(after, code) <= self.count(self.findings, code) for code in fix.guarded - answered)


# ---------------------------------------------------------------------------------------------
# Text helpers


def trim_at_word_boundary(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-16 units, at the last whitespace that fits (never mid-pair)."""
    if js_len(text) <= limit:
        return text
    head = js_slice_head(text, limit)
    rest = text[len(head) :]
    if rest[:1].isspace():
        cut = head
    else:
        spaces = [match.start() for match in re.finditer(r"\s+", head)]
        cut = head[: spaces[-1]] if spaces and spaces[-1] > 0 else head
    cut = cut.rstrip()
    trimmed = re.sub(r"[\s,;:]+$", "", cut)
    return trimmed or cut or head


def _plain_non_string(doc: _Document, key: str) -> str | None:
    """The source text of a one-line plain scalar that YAML reads as a number/boolean, else None."""
    located = doc.fm.field(key)
    if located is None or isinstance(located.value, str) or located.value is None:
        return None
    node = located.node
    if not isinstance(node, ScalarNode) or node.style is not None or node.tag is not None:
        return None
    if located.value_range.start.line != located.value_range.end.line:
        return None
    return doc.index.slice(located.value_range) or None


# ---------------------------------------------------------------------------------------------
# Builders: one per fix, each returning candidates (verification happens afterwards)

Builder = Callable[[_Document, Finding], list[Fix]]


def _set_name(doc: _Document, finding: Finding, title: str, name: str, *, preferred: bool = False) -> Fix | None:
    span = doc.span("name")
    if span is not None:
        edit = replace_value(doc.fm, span, doc.index, yaml_scalar(name))
    elif doc.fm.field("name") is None:
        insert = doc.insert_field("name", name)
        if insert is None:
            return None
        edit = insert
    else:
        return None
    return Fix(title, (finding,), (edit,), preferred=preferred, guarded=NAME_GUARD)


def _rename_folder(doc: _Document, finding: Finding, name: str) -> Fix | None:
    if not doc.declared or not name or name == doc.folder or "/" in name or name in (".", ".."):
        return None
    new_path = os.path.join(os.path.dirname(doc.folder_path), name)
    if os.path.lexists(new_path):
        return None
    rename = FolderRename(doc.folder_path, new_path)
    return Fix(f"Rename the folder to '{name}'", (finding,), rename=rename, guarded=NAME_GUARD)


def _with_folder(doc: _Document, fix: Fix | None, match_folder: bool) -> Fix | None:
    """A name fix whose new name is not the folder's: rename the folder to it in the same fix
    (where the profile wants the name to match the folder)."""
    if fix is None or not fix.edits or not match_folder:
        return fix
    name = fix.title.rsplit("'", 2)[-2]
    if name == doc.folder:
        return fix
    rename = _rename_folder(doc, fix.findings[0], name)
    if rename is None or rename.rename is None:
        return fix
    return replace(fix, title=f"{fix.title} and rename the folder to match", rename=rename.rename)


def _name_fixes(doc: _Document, finding: Finding) -> list[Fix]:
    located = doc.fm.field("name")
    raw = located.value if located is not None else None
    from_frontmatter = isinstance(raw, str) and raw != ""
    current = raw if isinstance(raw, str) and from_frontmatter else doc.folder
    candidates: list[Fix | None] = []
    if finding.code == "skill/name-directory-mismatch":
        candidates.append(_set_name(doc, finding, f"Rename the skill to '{doc.folder}' (its folder name)", doc.folder))
        candidates.append(_rename_folder(doc, finding, current))
        return [fix for fix in candidates if fix is not None]
    if finding.code == "skill/name-not-string":
        source = _plain_non_string(doc, "name")
        suggested = str(finding.data.get("name") or suggest_name(doc.folder))
        candidates.append(_set_name(doc, finding, f"Set the name to '{suggested}'", suggested))
        if source is not None and located is not None:
            span = doc.span("name")
            if span is not None:
                edit = replace_value(doc.fm, span, doc.index, double_quoted(source))
                candidates.append(Fix(f'Quote the name: "{source}"', (finding,), (edit,), guarded=NAME_GUARD))
        return [fix for fix in candidates if fix is not None]
    valid = suggest_name(current)
    lowered = current.lower()
    if from_frontmatter:
        # The first survivor is the preferred fix. A valid name that differs from the folder trades this
        # finding for VS Code's "name should match the folder": so the folder's own name comes first when
        # it is valid, and a name that is not the folder's comes with the folder rename.
        # Only where a name must match its folder (vscode, agentskills); Pi does not mind.
        match_folder = RULES["skill/name-directory-mismatch"].severity(doc.profile) is not None
        folder_valid = match_folder and suggest_name(doc.folder) == doc.folder
        if doc.folder != current and folder_valid and valid != doc.folder:
            candidates.append(
                _set_name(doc, finding, f"Rename the skill to '{doc.folder}' (its folder name)", doc.folder)
            )
        if lowered == valid:
            candidates.append(
                _with_folder(doc, _set_name(doc, finding, f"Lowercase the name: '{lowered}'", lowered), match_folder)
            )
        else:
            candidates.append(
                _with_folder(doc, _set_name(doc, finding, f"Make the name valid: '{valid}'", valid), match_folder)
            )
            if lowered != current:
                candidates.append(
                    _with_folder(
                        doc, _set_name(doc, finding, f"Lowercase the name: '{lowered}'", lowered), match_folder
                    )
                )
        if doc.folder != current and not (folder_valid and valid != doc.folder):
            candidates.append(
                _set_name(doc, finding, f"Rename the skill to '{doc.folder}' (its folder name)", doc.folder)
            )
    else:  # Pi uses the folder's name, which breaks the rule: name the skill, or rename the folder
        title = f"Add name: {valid}" if located is None else f"Set the name to '{valid}'"
        candidates.append(_set_name(doc, finding, title, valid))
        candidates.append(_rename_folder(doc, finding, valid))
    return [fix for fix in candidates if fix is not None]


def _add_name(doc: _Document, finding: Finding) -> list[Fix]:
    name = str(finding.data.get("name") or suggest_name(doc.folder))
    edit = doc.insert_field("name", name)
    return [Fix(f"Add name: {name}", (finding,), (edit,), guarded=NAME_GUARD)] if edit is not None else []


def _add_description(doc: _Document, finding: Finding) -> list[Fix]:
    fm = doc.fm
    if not fm.split.has_opening_fence:
        edit = doc.frontmatter_block(suggest_name(doc.folder))
        return [Fix("Insert frontmatter with a placeholder description", (finding,), (edit,))]
    located = fm.field("description")
    if located is None:
        insert = doc.insert_field("description", DESCRIPTION_PLACEHOLDER, after="name")
        return [Fix("Add a placeholder description", (finding,), (insert,))] if insert is not None else []
    span = doc.span("description")
    if span is None:
        return []
    fixes = []
    source = _plain_non_string(doc, "description")
    if source is not None:
        quoted = replace_value(fm, span, doc.index, double_quoted(source))
        fixes.append(Fix(f'Quote the description: "{source}"', (finding,), (quoted,)))
    placeholder = replace_value(fm, span, doc.index, yaml_scalar(DESCRIPTION_PLACEHOLDER))
    fixes.append(Fix("Write a placeholder description", (finding,), (placeholder,)))
    return fixes


def _insert_frontmatter(doc: _Document, finding: Finding) -> list[Fix]:
    name = str(finding.data.get("name") or suggest_name(doc.folder))
    return [Fix("Insert frontmatter (name and a placeholder description)", (finding,), (doc.frontmatter_block(name),))]


_YAML_LOOKING = re.compile(r"^(?:[ \t]+\S|- |-$|[^\s#:][^:]*:(?:[ \t]|$)|['\"].*:(?:[ \t]|$))")


def _close_frontmatter(doc: _Document, finding: Finding) -> list[Fix]:
    lines = doc.index.lines()
    candidates: list[int] = []
    blank = next((n for n in range(1, len(lines)) if not lines[n].strip()), None)
    not_yaml = next((n for n in range(1, len(lines)) if not _YAML_LOOKING.match(lines[n])), None)
    for line in (not_yaml, blank, len(lines)):
        if line is not None and line not in candidates:
            candidates.append(line)

    def parses(line: int) -> bool:
        result = parse_yaml("\n".join(lines[1:line]))
        return result.error is None and (result.value is None or isinstance(result.value, dict))

    chosen = next((line for line in candidates if parses(line)), candidates[0])
    if chosen < len(lines):
        edit = insert_at(Position(chosen, 0), f"---{doc.eol}")
    else:
        edit = insert_at(doc.index.line_end(len(lines) - 1), f"{doc.eol}---{doc.eol}")
    return [Fix("Close the frontmatter with ---", (finding,), (edit,))]


def _remove_key(doc: _Document, finding: Finding) -> list[Fix]:
    key = str(finding.data.get("key", ""))
    span = doc.span(key)
    if span is None:
        return []
    fixes = [Fix(f"Remove '{key}'", (finding,), (delete_lines(span.key_line, span.last_line, doc.index),))]
    unknown = [f for f in doc.findings if f.code == "skill/unknown-key"]
    if len(unknown) > 1:
        spans = [doc.span(str(f.data.get("key", ""))) for f in unknown]
        if all(s is not None for s in spans):
            edits = [delete_lines(s.key_line, s.last_line, doc.index) for s in spans if s is not None]
            title = f"Remove all {len(unknown)} unknown keys"
            fixes.append(Fix(title, tuple(unknown), sorted_edits(edits), fix_all=True))
    return fixes


def _trimmer(key: str, limit: int, label: str) -> Builder:
    def build(doc: _Document, finding: Finding) -> list[Fix]:
        located = doc.fm.field(key)
        span = doc.span(key)
        if located is None or span is None or not isinstance(located.value, str):
            return []
        trimmed = trim_at_word_boundary(located.value, limit)
        edit = replace_value(doc.fm, span, doc.index, yaml_scalar(trimmed))
        title = f"Trim the {label} at a word boundary to fit {limit} characters ({js_len(trimmed)})"
        return [Fix(title, (finding,), (edit,))]

    return build


def _set_boolean(doc: _Document, finding: Finding) -> list[Fix]:
    key = str(finding.data.get("key", ""))
    located = doc.fm.field(key)
    span = doc.span(key)
    if located is None or span is None:
        return []
    guess = guess_boolean(located.value)
    order = [guess] if guess is not None else [True, False]
    if guess is not None:
        order.append(not guess)
    fixes = []
    for value in order:
        word = "true" if value else "false"
        edit = replace_value(doc.fm, span, doc.index, word)
        fixes.append(Fix(f"Set {key}: {word}", (finding,), (edit,), preferred=guess is not None and value == guess))
    return fixes


def _quote_compatibility(doc: _Document, finding: Finding) -> list[Fix]:
    source = _plain_non_string(doc, "compatibility")
    span = doc.span("compatibility")
    if source is None or span is None:
        return []
    edit = replace_value(doc.fm, span, doc.index, double_quoted(source))
    return [Fix(f'Quote compatibility: "{source}"', (finding,), (edit,))]


def _forward_slashes(doc: _Document, finding: Finding) -> list[Fix]:
    written, replacement = doc.index.slice(finding.range), finding.data.get("replacement")
    if not isinstance(replacement, str) or written.replace("\\", "/") != replacement:
        return []  # the text moved since the finding was computed
    return [Fix(f"Use forward slashes: '{replacement}'", (finding,), (TextEdit(finding.range, replacement),))]


# Removing or quoting a tag must not empty the description (or the file) it is the whole of.
TAG_GUARD = frozenset({"skill/description-missing", "skill/not-loaded", "context/empty"})


def _tag_at(doc: _Document, finding: Finding) -> bool:
    """Whether the finding's range still holds the tag it was computed for (line breaks as the rules read them)."""
    return normalize_newlines(doc.index.slice(finding.range)) == finding.data.get("tag")


def _quote_or_remove_tag(doc: _Document, finding: Finding) -> list[Fix]:
    data = finding.data
    if not _tag_at(doc, finding):
        return []  # the text moved since the finding was computed
    fixes = []
    for kind in data.get("fixes", ()):
        if kind == "code-span":
            text = str(data["codeSpan"])
            sent = escape_xml(text) if data.get("place") == "description" else text
            title = f"Quote the tag in a code span: Pi sends '{sent}'"
            fixes.append(Fix(title, (finding,), (TextEdit(finding.range, text),), guarded=TAG_GUARD))
        elif kind == "remove":
            fixes.append(Fix("Remove the tag", (finding,), (TextEdit(finding.range, ""),), guarded=TAG_GUARD))
    quotable = [f for f in doc.findings if f.code == finding.code and "code-span" in f.data.get("fixes", ())]
    if len(quotable) > 1 and "code-span" in data.get("fixes", ()) and all(_tag_at(doc, f) for f in quotable):
        edits = sorted_edits([TextEdit(f.range, str(f.data["codeSpan"])) for f in quotable])
        title = f"Quote all {len(edits)} prompt tags in this file in code spans"
        fixes.append(Fix(title, tuple(quotable), edits, fix_all=True, guarded=TAG_GUARD))
    return fixes


def _replace_confusables(doc: _Document, finding: Finding) -> list[Fix]:
    name = finding.data.get("name")
    if not isinstance(name, str):
        return []  # a look-alike with several candidates: no unambiguous replacement
    fix = _set_name(doc, finding, f"Replace the look-alike letters: '{name}'", name, preferred=True)
    return [fix] if fix is not None else []


def _invisible_at(doc: _Document, finding: Finding) -> bool:
    written = doc.index.slice(finding.range)
    return [f"U+{ord(c):04X}" for c in written] == finding.data.get("codepoints")


def _remove_invisible(doc: _Document, finding: Finding) -> list[Fix]:
    if not _invisible_at(doc, finding):
        return []  # the text moved since the finding was computed
    count = int(finding.data.get("count", 0))
    title = f"Remove the {count} invisible characters" if count != 1 else "Remove the invisible character"
    fixes = [Fix(title, (finding,), (TextEdit(finding.range, ""),))]
    every = [f for f in doc.findings if f.code == finding.code]
    if len(every) > 1 and all(_invisible_at(doc, f) for f in every):
        total = sum(int(f.data.get("count", 0)) for f in every)
        edits = sorted_edits([TextEdit(f.range, "") for f in every])
        fixes.append(Fix(f"Remove all {total} invisible characters in this file", tuple(every), edits, fix_all=True))
    return fixes


BUILDERS: dict[str, Builder] = {
    **dict.fromkeys(NAME_CODES, _name_fixes),
    "skill/name-missing": _add_name,
    "skill/description-missing": _add_description,
    "skill/candidate-ignored": _add_description,
    "skill/frontmatter-missing": _insert_frontmatter,
    "skill/frontmatter-unclosed": _close_frontmatter,
    "skill/unknown-key": _remove_key,
    "skill/description-too-long": _trimmer("description", DESCRIPTION_LIMIT, "description"),
    "skill/compatibility-too-long": _trimmer("compatibility", MAX_COMPATIBILITY_LENGTH, "compatibility"),
    "skill/compatibility-not-string": _quote_compatibility,
    "skill/boolean-value": _set_boolean,
    "skill/windows-path": _forward_slashes,
    "prompt/forged-tag": _quote_or_remove_tag,
    "prompt/invisible-characters": _remove_invisible,
    "skill/name-mixed-scripts": _replace_confusables,
}

FIXABLE_CODES = frozenset(BUILDERS)


# ---------------------------------------------------------------------------------------------
# Entry point


def _merge(fixes: Sequence[Fix]) -> list[Fix]:
    """One fix per distinct change (the first title wins), answering every finding that produced it."""
    merged: dict[tuple[Any, ...], Fix] = {}
    for fix in fixes:
        seen = merged.get(fix.identity)
        if seen is None:
            merged[fix.identity] = fix
            continue
        findings = seen.findings + tuple(f for f in fix.findings if f not in seen.findings)
        merged[fix.identity] = replace(seen, findings=findings, preferred=seen.preferred or fix.preferred)
    return list(merged.values())


def compute_fixes(
    path: str,
    text: str,
    profile: ProfileId = DEFAULT_PROFILE,
    *,
    thresholds: Thresholds | None = None,
    wanted: Callable[[Finding], bool] | None = None,
) -> list[Fix]:
    """The verified fixes for the findings of ``text`` (those ``wanted`` accepts), in finding order.

    Each finding's first surviving fix is marked preferred unless a builder chose otherwise.
    """
    doc = _Document(path, text, profile, thresholds)
    out: list[Fix] = []
    for finding in doc.findings:
        builder = BUILDERS.get(finding.code)
        if builder is None or (wanted is not None and not wanted(finding)):
            continue
        survivors = [fix for fix in builder(doc, finding) if doc.verified(fix)]
        if survivors and not any(fix.preferred for fix in survivors) and finding.code != "skill/boolean-value":
            survivors[0] = replace(survivors[0], preferred=True)
        out.extend(survivors)
    return _merge(out)


def findings_of(
    path: str, text: str, profile: ProfileId = DEFAULT_PROFILE, *, thresholds: Thresholds | None = None
) -> list[Finding]:
    """The findings quick fixes are computed against (the rules on this exact text)."""
    return list(check_text(path, text, profile, thresholds))
