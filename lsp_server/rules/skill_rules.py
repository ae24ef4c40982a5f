"""Checks for one skill file (SKILL.md, or a loose ``.md`` skill candidate) under a rule profile.

:func:`check_skill_text` runs Pi's own loader on the text first (so the ``pi`` profile reports
exactly Pi's warnings, with Pi's texts) and then the profile's extra rules, placing every finding
on what it is about: the name or description value, the offending key, the frontmatter fence
(the first line when there is no frontmatter). It returns what the workspace index needs for the
one cross-file rule, name collisions: the name Pi would use and whether Pi loads the skill.

Quick-fix details go in ``Finding.data`` (``{"fix": "rename-skill", "name": "pdf-tools"}``, the key
to remove, the boolean to write); the language server turns them into code actions.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from lsp_server.base.findings import Finding, Position, Range
from lsp_server.base.fsread import InvalidUtf8, exists, is_regular_file, read_text
from lsp_server.context.frontmatter import Frontmatter
from lsp_server.context.skills import MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, SkillFileResult, load_skill_from_text
from lsp_server.js.strings import js_len, strip_bom
from lsp_server.prompt.inclusion import skill_clause
from lsp_server.rules.mixed_scripts import find_mixed_scripts
from lsp_server.rules.prompt_rules import check_forged_tags, check_invisible, check_secrets
from lsp_server.rules.references import find_references
from lsp_server.rules.registry import BODY_CHECK_MAX_BYTES, RULES, Emitter
from lsp_server.rules.secrets import could_hold_secret
from lsp_server.vocabulary.limits import Thresholds
from lsp_server.vocabulary.pi_files import SKILL_FILE_NAME
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, ProfileId, check_profile, get_profile, guess_boolean

MAX_COMPATIBILITY_LENGTH = 500
_ARGUMENT_USE = re.compile(r"\$(?:ARGUMENTS|[0-9])")


@dataclass(frozen=True)
class SkillCheck:
    """One file's findings plus what the cross-file collision rule needs."""

    path: str
    findings: tuple[Finding, ...]
    name: str | None = None  # the name Pi uses, when Pi loads the skill
    loaded: bool = False
    name_range: Range = field(default_factory=Range.file_start)


def suggest_name(text: str) -> str:
    """A valid skill name close to ``text`` (lowercase, a-z0-9 and single inner hyphens, <= 64).

    Look-alike letters of another script become the letters they imitate first (``tооls`` -> ``tools``).
    """
    mixed = find_mixed_scripts(text)
    if mixed is not None and mixed.replaced is not None:
        text = mixed.replaced
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", folded).strip("-")
    slug = re.sub(r"-{2,}", "-", slug)[:MAX_NAME_LENGTH].strip("-")
    return slug or "skill"


def _describe_value(value: Any) -> str:
    if isinstance(value, str):
        # Never repeat what may be a key pasted into the wrong field (the message goes to every front end).
        return "a string that may be a secret (not shown)" if could_hold_secret(value) else f'the string "{value}"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return "a list" if isinstance(value, list) else "a mapping"


def _kind_of(value: Any) -> str:
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "null" if value is None else "value"


class _SkillChecker:
    def __init__(self, path: str, text: str, profile: ProfileId, thresholds: Thresholds, declared: bool) -> None:
        self.path = path
        self.text = text
        self.profile = get_profile(profile)
        self.thresholds = thresholds
        self.declared = declared
        self.em = Emitter(path, profile)
        self.folder = os.path.basename(os.path.dirname(path))
        self.body_bytes: int | None = None  # the file's size when it crosses a limit

    # -- anchors ------------------------------------------------------------------------------

    def anchor(self, fm: Frontmatter) -> Range:
        """Where a finding about a missing key goes: the opening fence, else the first line."""
        return fm.opening_fence_range() if fm.split.has_opening_fence else fm.first_line_range()

    # -- entry point ----------------------------------------------------------------------------

    def run(self, pi: SkillFileResult) -> SkillCheck:
        fm = pi.frontmatter
        assert fm is not None
        if not self.declared and not pi.has_description:
            if fm.split.has_opening_fence:
                self.em.emit("skill/candidate-ignored", fm.first_line_range(), data={"fix": "add-description"})
            return SkillCheck(self.path, tuple(self.em.findings))
        if not self.declared and not self.profile.loose_skill_files:
            return SkillCheck(self.path, tuple(self.em.findings))  # loose .md skills are a Pi feature
        if fm.error is not None:
            error = fm.error
            where = fm.error_range()
            # The position in the message counts lines in the file, as the finding's own position does.
            shown = f" at line {where.start.line + 1}, column {where.start.column + 1}" if error.positioned else ""
            self.em.emit("skill/yaml-error", where, {"text": error.text + shown}, {"yamlLine": error.line})
            if not error.is_limit:  # past pi-context's own limits, whether Pi loads the skill is unknown
                self.em.emit("skill/not-loaded", self.anchor(fm), {"reason": "the frontmatter is not valid YAML"})
            return SkillCheck(self.path, tuple(self.em.findings))
        self.check_structure(fm)
        data = fm.data if isinstance(fm.data, dict) else {}
        self.check_keys(fm, data)
        self.check_description(fm, data, pi)
        name_range = self.check_name(fm, data, pi)
        self.check_booleans(fm, data)
        self.check_compatibility(fm, data)
        self.check_invocation(fm, data)
        self.check_body(fm)
        self.check_prompt(fm, pi)
        loaded = pi.skill is not None
        return SkillCheck(self.path, tuple(self.em.findings), pi.name if loaded else None, loaded, name_range)

    # -- structure ------------------------------------------------------------------------------

    def check_structure(self, fm: Frontmatter) -> None:
        if not fm.split.has_opening_fence:
            self.em.emit(
                "skill/frontmatter-missing",
                fm.first_line_range(),
                data={"fix": "insert-frontmatter", "name": suggest_name(self.folder)},
            )
        elif fm.is_unclosed:
            self.em.emit("skill/frontmatter-unclosed", fm.opening_fence_range(), data={"fix": "close-frontmatter"})
        elif fm.yaml is not None and fm.yaml.node is not None and not isinstance(fm.data, dict):
            node = fm.yaml.node
            self.em.emit("skill/frontmatter-not-mapping", fm.node_range(node), {"kind": _kind_of(fm.data)})

    def check_keys(self, fm: Frontmatter, data: dict[str, Any]) -> None:
        allowed = self.profile.allowed_keys
        if allowed is None or not self.em.enabled("skill/unknown-key"):
            return
        listing = self.profile.list_keys()
        for located in fm.fields():
            if located.key not in allowed:
                self.em.emit(
                    "skill/unknown-key",
                    located.key_range,
                    {"key": located.key, "allowed": listing},
                    {"fix": "remove-key", "key": located.key},
                )

    # -- description ----------------------------------------------------------------------------

    def check_description(self, fm: Frontmatter, data: dict[str, Any], pi: SkillFileResult) -> None:
        located = fm.field("description")
        value = data.get("description")
        where = located.value_range if located is not None else self.anchor(fm)
        if not pi.has_description:
            spec = (
                "Missing required field in frontmatter: description"
                if located is None
                else "Field 'description' must be a non-empty string"
            )
            self.em.emit("skill/description-missing", where, {"spec_message": spec}, {"fix": "add-description"})
            if self.declared:
                reason = "the description is missing" if located is None else "the description is blank or not a string"
                self.em.emit("skill/not-loaded", where, {"reason": reason})
            return
        assert isinstance(value, str)
        length = len(value) if self.profile.length_unit == "code points" else js_len(value)
        if length > MAX_DESCRIPTION_LENGTH:
            data = {"fix": "trim-description", "limit": MAX_DESCRIPTION_LENGTH}
            self.em.emit("skill/description-too-long", where, {"length": length}, data)
        if "<" in value or ">" in value:
            self.em.emit("skill/description-angle-brackets", where)

    # -- name -----------------------------------------------------------------------------------

    def check_name(self, fm: Frontmatter, data: dict[str, Any], pi: SkillFileResult) -> Range:
        located = fm.field("name")
        raw = data.get("name")
        anchor = self.anchor(fm)
        from_frontmatter = isinstance(raw, str) and raw != ""
        name_range = located.value_range if located is not None and from_frontmatter else anchor
        if located is None:
            self.em.emit("skill/name-missing", anchor, data={"fix": "add-name", "name": suggest_name(self.folder)})
        elif not from_frontmatter:
            vscode = (
                "The 'name' attribute must not be empty." if raw == "" else "The 'name' attribute must be a string."
            )
            self.em.emit(
                "skill/name-not-string",
                located.value_range,
                {"folder": self.folder, "vscode_message": vscode},
                {"fix": "rename-skill", "name": suggest_name(self.folder)},
            )
        self._mixed_scripts(raw if isinstance(raw, str) and from_frontmatter else (pi.name or self.folder), name_range)
        rules = self.profile.name_rules
        if rules == "pi":
            self._pi_name_rules(pi.name or self.folder, name_range, from_frontmatter)
        elif rules == "spec" and from_frontmatter and isinstance(raw, str):
            self._spec_name_rules(raw, name_range)
        elif rules == "vscode" and from_frontmatter and isinstance(raw, str):
            if not re.fullmatch(r"[a-z0-9-]+", raw):
                self.em.emit("skill/name-invalid-chars", name_range, {"name": raw}, self._rename(raw))
            if self.declared and raw != self.folder:
                self.em.emit(
                    "skill/name-directory-mismatch",
                    name_range,
                    {"name": raw, "folder": self.folder},
                    {"fix": "rename-skill", "name": self.folder},
                )
        return name_range

    def _mixed_scripts(self, name: str, where: Range) -> None:
        mixed = find_mixed_scripts(name) if self.em.enabled("skill/name-mixed-scripts") else None
        if mixed is None:
            return
        scripts = " and ".join(script.title() for script in mixed.scripts)
        facts = {"name": name, "scripts": scripts, "look_alikes": mixed.describe()}
        data: dict[str, Any] = {"fix": "replace-confusables"}
        if mixed.replaced is not None:
            data["name"] = mixed.replaced
        self.em.emit("skill/name-mixed-scripts", where, facts, data)

    def _rename(self, name: str) -> dict[str, Any]:
        return {"fix": "rename-skill", "name": suggest_name(name)}

    def _pi_name_rules(self, name: str, where: Range, from_frontmatter: bool) -> None:
        facts = {"name": name, "length": js_len(name)}
        data = {**self._rename(name), "nameSource": "frontmatter" if from_frontmatter else "folder"}
        if js_len(name) > MAX_NAME_LENGTH:
            self.em.emit("skill/name-too-long", where, facts, data)
        if not re.fullmatch(r"[a-z0-9-]+", name):
            self.em.emit("skill/name-invalid-chars", where, facts, data)
        if name.startswith("-") or name.endswith("-"):
            self.em.emit("skill/name-hyphen-edge", where, facts, data)
        if "--" in name:
            self.em.emit("skill/name-consecutive-hyphens", where, facts, data)

    def _spec_name_rules(self, raw: str, where: Range) -> None:
        """skills-ref's ``_validate_name``: strip + NFKC, Unicode letters and digits allowed."""
        name = unicodedata.normalize("NFKC", raw.strip())
        facts = {"name": name, "length": len(name)}
        data = self._rename(name)
        if len(name) > MAX_NAME_LENGTH:
            self.em.emit("skill/name-too-long", where, facts, data)
        if name != name.lower():
            self.em.emit("skill/name-uppercase", where, facts, data)
        if name.startswith("-") or name.endswith("-"):
            self.em.emit("skill/name-hyphen-edge", where, facts, data)
        if "--" in name:
            self.em.emit("skill/name-consecutive-hyphens", where, facts, data)
        if not all(ch.isalnum() or ch == "-" for ch in name):
            self.em.emit("skill/name-invalid-chars", where, facts, data)
        folder = unicodedata.normalize("NFKC", self.folder)
        if self.declared and folder != name:
            self.em.emit(
                "skill/name-directory-mismatch",
                where,
                {"name": name, "folder": folder},
                {"fix": "rename-skill", "name": self.folder},
            )

    # -- other keys ------------------------------------------------------------------------------

    def check_booleans(self, fm: Frontmatter, data: dict[str, Any]) -> None:
        for key in self.profile.boolean_keys:
            located = fm.field(key)
            if located is None:
                continue
            value = data.get(key)
            if self.profile.booleans.read(value) is not None:
                continue
            guess = guess_boolean(value)
            self.em.emit(
                "skill/boolean-value",
                located.value_range,
                {"key": key, "shown": _describe_value(value)},
                {"fix": "set-boolean", "key": key, "value": bool(guess)},
            )

    def check_compatibility(self, fm: Frontmatter, data: dict[str, Any]) -> None:
        located = fm.field("compatibility")
        if located is None:  # the compatibility rules are the spec's (off in the other profiles)
            return
        value = data.get("compatibility")
        if not isinstance(value, str):
            self.em.emit("skill/compatibility-not-string", located.value_range, data={"fix": "quote-value"})
        elif len(value) > MAX_COMPATIBILITY_LENGTH:
            data = {"fix": "trim-compatibility", "limit": MAX_COMPATIBILITY_LENGTH}
            self.em.emit("skill/compatibility-too-long", located.value_range, {"length": len(value)}, data)

    def check_invocation(self, fm: Frontmatter, data: dict[str, Any]) -> None:
        # Both rules are Claude Code's and VS Code's (off in the other profiles).
        dmi = guess_boolean(data.get("disable-model-invocation"))
        user = guess_boolean(data.get("user-invocable"))
        located = fm.field("user-invocable")
        if dmi is True and user is False and located is not None:
            self.em.emit("skill/unreachable", located.key_range)
        hint = fm.field("argument-hint")
        if hint is not None and self.em.enabled("skill/argument-hint-unused") and not _ARGUMENT_USE.search(fm.body):
            self.em.emit("skill/argument-hint-unused", hint.key_range)

    # -- body -----------------------------------------------------------------------------------

    def check_body(self, fm: Frontmatter) -> None:
        if self.body_bytes is not None and self.body_bytes > BODY_CHECK_MAX_BYTES:
            self.em.emit(
                "file/body-not-checked", Range.file_start(), {"size": self.body_bytes, "limit": BODY_CHECK_MAX_BYTES}
            )
            return
        first, lines = fm.body_lines()
        shift = 1 if fm.has_bom and first == 0 else 0

        def at(line: int, start: int, end: int) -> Range:
            extra = shift if line == 0 else 0
            return Range(Position(line, start + extra), Position(line, end + extra))

        body_lines = len(lines) - (1 if lines and lines[-1] == "" else 0)
        if body_lines > self.thresholds.body_max_lines:
            line = first + self.thresholds.body_max_lines
            self.em.emit(
                "skill/body-too-long",
                at(line, 0, len(lines[self.thresholds.body_max_lines])),
                {"lines": body_lines, "limit": self.thresholds.body_max_lines},
            )
        if self.em.enabled("skill/arguments-not-substituted"):
            for offset, text in enumerate(lines):
                column = text.find("$ARGUMENTS")
                if column >= 0:
                    self.em.emit("skill/arguments-not-substituted", at(first + offset, column, column + 10))
                    break
        check_references(self.em, self.path, lines, first, at, "skill")

    # -- what goes into the prompt ------------------------------------------------------------

    def check_prompt(self, fm: Frontmatter, pi: SkillFileResult) -> None:
        """The ``prompt/*`` rules on the description (in ``<available_skills>``) and the body.

        A secret's message says when Pi sends its line: the name and description with every request
        (in the skills listing, unless the skill is hidden from it), the rest when the skill is used.
        """
        lines = fm.split.normalized.split("\n")
        shift = 1 if fm.has_bom else 0

        def at(line: int, start: int, end: int) -> Range:
            extra = shift if line == 0 else 0
            return Range(Position(line, start + extra), Position(line, end + extra))

        located = fm.field("description")
        if located is not None and isinstance(located.value, str):
            within = _within(lines, located.value_range, shift)
            check_forged_tags(self.em, within, located.value_range.start.line, at, "description")
        first, body = fm.body_lines()
        if self.body_bytes is not None and self.body_bytes > BODY_CHECK_MAX_BYTES:
            # file/body-not-checked already says the body is not read: only the frontmatter is.
            lines, body = lines[:first], []
        check_forged_tags(self.em, body, first, at, "skill-body")
        check_invisible(self.em, lines, 0, at)  # the whole file: name, description and body
        yaml_end = fm.body_start_line() - 1 if fm.has_frontmatter else 0
        listed = [fm.field(key) for key in ("name", "description")]
        listing = {
            line
            for f in listed
            if f is not None
            for line in range(f.value_range.start.line, f.value_range.end.line + 1)
        }
        hidden = pi.skill is not None and pi.skill.disable_model_invocation
        name = pi.skill.name if pi.skill is not None else pi.name

        def when(line: int) -> str:
            return skill_clause(in_listing=line in listing, hidden=hidden, name=name)

        check_secrets(self.em, lines, 0, at, yaml_lines=range(1, yaml_end), when=when)


def _within(lines: list[str], where: Range, shift: int) -> list[str]:
    """The lines of ``where`` with everything outside it blanked (same length, so columns stay)."""
    out = []
    for number in range(where.start.line, min(where.end.line, len(lines) - 1) + 1):
        line = lines[number]
        extra = shift if number == 0 else 0
        start = where.start.column - extra if number == where.start.line else 0
        end = where.end.column - extra if number == where.end.line else len(line)
        out.append(" " * start + line[start:end] + " " * max(0, len(line) - end))
    return out


def check_references(em: Emitter, path: str, lines: list[str], first: int, at: Any, area: str) -> None:
    """Windows separators and missing files among a document's relative references."""
    base = os.path.dirname(path)
    present: dict[str, bool] = {}  # a target linked on every line is looked up once
    for ref in find_references(lines, first):
        if em.capped:
            return  # the findings cap is reached: looking further cannot add a finding
        where = at(ref.line, ref.start, ref.end)
        if ref.has_backslash:
            if area == "skill":
                em.emit(
                    "skill/windows-path",
                    where,
                    {"path": ref.target},
                    {"fix": "forward-slashes", "replacement": ref.target.replace("\\", "/")},
                )
            continue
        if ref.kind != "link":
            continue
        resolved = os.path.normpath(os.path.join(base, ref.path))
        found = present.get(resolved)
        if found is None:
            found = present[resolved] = exists(resolved)
        if not found:
            em.emit(f"{area}/missing-reference", where, {"target": ref.path, "resolved": resolved})


def check_skill_text(
    path: str,
    text: str,
    profile: ProfileId = DEFAULT_PROFILE,
    *,
    thresholds: Thresholds | None = None,
    size: int | None = None,
    invalid_utf8: InvalidUtf8 | None = None,
) -> SkillCheck:
    """Findings for a skill file whose content is ``text`` (an editor buffer or the file on disk).

    Positions are in ``text`` as given; callers reading from disk pass it BOM-stripped, as
    editors show it (:func:`check_skill_file` does).
    """
    profile = check_profile(profile)
    thresholds = thresholds or Thresholds()
    declared = os.path.basename(path) == SKILL_FILE_NAME
    checker = _SkillChecker(path, text, profile, thresholds, declared)
    if size is None:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size <= thresholds.skill_max_bytes and size <= BODY_CHECK_MAX_BYTES:
            size = None  # a buffer's size is only reported when it crosses a limit
    checker.body_bytes = size
    if invalid_utf8 is not None:
        where = Range.at(invalid_utf8.line, invalid_utf8.column, invalid_utf8.line, invalid_utf8.column + 1)
        checker.em.emit("skill/invalid-utf8", where, {"offset": invalid_utf8.byte_offset})
    if size is not None and size > thresholds.skill_max_bytes:
        checker.em.emit("skill/too-large", Range.file_start(), {"size": size, "limit": thresholds.skill_max_bytes})
    return checker.run(load_skill_from_text(path, text, "path"))


def check_skill_file(
    path: str, profile: ProfileId = DEFAULT_PROFILE, *, thresholds: Thresholds | None = None
) -> SkillCheck:
    """Read ``path`` as Pi would (never raising) and check it."""
    profile = check_profile(profile)
    if not is_regular_file(path):
        # A directory named SKILL.md, a FIFO, a dangling link: Pi's walk skips it; reading would block or fail.
        error = "EISDIR: illegal operation on a directory, read" if os.path.isdir(path) else "not a regular file"
        return _unreadable(path, profile, error)
    result = read_text(path)
    if result.text is None:
        return _unreadable(path, profile, result.error or "failed to read skill file")
    invalid = result.invalid_utf8
    if invalid is not None and result.text.startswith("\ufeff") and invalid.line == 0:
        invalid = InvalidUtf8(invalid.line, invalid.column - 1, invalid.byte_offset, invalid.count)
    return check_skill_text(
        path, strip_bom(result.text), profile, thresholds=thresholds, size=result.size, invalid_utf8=invalid
    )


def _unreadable(path: str, profile: ProfileId, error: str) -> SkillCheck:
    em = Emitter(path, profile)
    em.emit("skill/unreadable", Range.file_start(), {"error": error})
    if os.path.basename(path) == SKILL_FILE_NAME:
        em.emit("skill/not-loaded", Range.file_start(), {"reason": "the file cannot be read"})
    return SkillCheck(path, tuple(em.findings))


def collision_finding(check: SkillCheck, winner_path: str, profile: ProfileId) -> Finding | None:
    """The ``skill/collision`` finding for a skill that loses its name to ``winner_path``."""
    rule = RULES["skill/collision"]
    severity = rule.severity(profile)
    if severity is None or check.name is None:
        return None
    message = rule.message(profile, {"name": check.name, "winner": winner_path})
    data = {"name": check.name, "winnerPath": winner_path, "loserPath": check.path}
    return Finding(check.path, check.name_range, severity, "skill/collision", message, data)
