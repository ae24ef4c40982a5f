"""Gitignore matching exactly as the npm ``ignore`` package (7.x) does it, and Pi's use of it.

Pi skips skill directories and files matched by ``.gitignore``, ``.ignore`` and ``.fdignore``
(``core/skills.js``). Which skills Pi loads therefore depends on that package's reading of
gitignore syntax, including its habits: matching is case-insensitive by default, a rule whose
parent directory is ignored can not re-include a child, ``**`` and trailing-slash rules have
git's meaning, bracket expressions follow git's ``wildmatch``. We translate each pattern into a
regular expression with the same steps the package uses, so the two agree pattern for pattern.

Pi adds a twist of its own (:func:`prefix_ignore_pattern`): patterns from a nested directory's
ignore file are re-rooted by prefixing that directory's path relative to the walk root, and the
matcher accumulates rules as the walk descends (one matcher per walk).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from lsp_server.base.fsread import exists, read_text
from lsp_server.vocabulary.pi_files import IGNORE_FILE_NAMES

_ESCAPE = "\\"
_REGEX_LITERAL_SPECIAL = re.compile(r"[.*+?()\[\]{}^$|\\/]")
_PLACEHOLDER = "\u0000"
_RESTORE_PLACEHOLDER = re.compile(f"{_PLACEHOLDER}(\\d+){_PLACEHOLDER}")
_TRAILING_WILDCARD = "\ue000"
_NEVER_MATCH = "(?!)"  # JavaScript's empty class ``[]``; Python rejects ``[]``
_NON_SLASH = "(?!\\/)"

_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-.0-~",
    "lower": "a-z",
    "print": " -.0-~",
    "punct": "!-.:-@\\[-`{-~",
    "space": " \\t\\n\\r",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}
_CLASS_MEMBERS_TO_ESCAPE = "\\]^-["


def _escape_member(char: str) -> str:
    return _ESCAPE + char if char in _CLASS_MEMBERS_TO_ESCAPE else char


def _class_source(negated: bool, body: str) -> str:
    if negated:
        return f"[^\\/{body}]"
    source = f"[{body}]"
    try:
        matches_slash = re.match(source, "/") is not None
    except re.error:
        return _NEVER_MATCH
    return _NON_SLASH + source if matches_slash else source


def _scan_bracket(pattern: str, start: int) -> tuple[int, str] | None:
    """A bracket expression at ``pattern[start] == '['`` (git's ``wildmatch`` member loop)."""
    length = len(pattern)
    index = start + 1
    negated = False
    if index < length and pattern[index] in "!^":
        negated = True
        index += 1
    body = ""
    prev = ""
    while True:
        if index >= length:
            return None
        char = pattern[index]
        if char == _ESCAPE:
            if index + 1 >= length:
                return None
            escaped = pattern[index + 1]
            body += _escape_member(escaped)
            prev = escaped
            index += 1
        elif char == "-" and prev and index + 1 < length and pattern[index + 1] != "]":
            index += 1
            to = pattern[index]
            if to == _ESCAPE:
                index += 1
                to = pattern[index] if index < length else ""
            if prev <= to:
                body += f"-{_escape_member(to)}"
            prev = ""
        elif char == "[" and index + 1 < length and pattern[index + 1] == ":":
            name_start = index + 2
            end = name_start
            while end < length and pattern[end] != "]":
                end += 1
            if end == length:
                return None
            if end > name_start and pattern[end - 1] == ":":
                expanded = _POSIX_CLASSES.get(pattern[name_start : end - 1])
                if expanded is None:
                    return None
                body += expanded
                prev = ""
                index = end
            else:
                body += _escape_member("[")
                prev = "["
                index = name_start - 2
        else:
            body += _escape_member(char)
            prev = char
        index += 1
        if index < length and pattern[index] == "]":
            return index, _class_source(negated, body)


def _extract_brackets(pattern: str) -> tuple[str, list[str]]:
    sources: list[str] = []

    def hold(source: str) -> str:
        sources.append(source)
        return f"{_PLACEHOLDER}{len(sources) - 1}{_PLACEHOLDER}"

    out = ""
    index = 0
    length = len(pattern)
    while index < length:
        char = pattern[index]
        if char == _ESCAPE:
            escaped = pattern[index + 1] if index + 1 < length else ""
            if escaped in ("*", "[", " ", _ESCAPE) and escaped:
                out += pattern[index : index + 2]
            else:
                out += hold(_ESCAPE + escaped if escaped and _REGEX_LITERAL_SPECIAL.match(escaped) else escaped)
            index += 2
        elif char == _PLACEHOLDER:
            out += hold(f"[{_PLACEHOLDER}]")
            index += 1
        elif char == "[":
            scanned = _scan_bracket(pattern, index)
            if scanned is None:
                out += hold(_NEVER_MATCH)
                index = length
            else:
                out += hold(scanned[1])
                index = scanned[0] + 1
        else:
            out += char
            index += 1
    return out, sources


def _trailing_spaces(m: re.Match[str]) -> str:
    return m.group(1) + (" " if m.group(2).startswith("\\") else "")


def _escaped_space(m: re.Match[str]) -> str:
    slashes = m.group(1)
    return slashes[: len(slashes) - len(slashes) % 2] + " "


def _starting(source: str, pattern: str) -> str:
    if not source or source[0] == "^":
        return source
    has_inner_slash = re.search(r"/(?!$)", pattern) is not None
    return ("^" if has_inner_slash else "(?:^|\\/)") + source


def _two_globstars(m: re.Match[str]) -> str:
    index, whole = m.start(), m.string
    if index + 6 < len(whole):
        return "(?:\\/[^\\/]+)+" if whole[index + 6 :] == "\\/" else "(?:\\/[^\\/]+)*"
    return "\\/.+"


def _intermediate_wildcards(m: re.Match[str]) -> str:
    return m.group(1) + m.group(2).replace("\\*", "[^\\/]*")


def _trailing_wildcard(m: re.Match[str]) -> str:
    p1, p2 = m.group(1), m.group(2)
    if (len(p2) // 2) % 2 == 0:
        return p1 + p2 + _TRAILING_WILDCARD
    return m.group(0)


def _literal_bracket(m: re.Match[str]) -> str:
    end_escape = m.group(2)
    cleaned = end_escape[: len(end_escape) - len(end_escape) % 2]
    return f"\\[{m.group(1)}{cleaned}{m.group(3)}"


def _ending(source: str, _pattern: str) -> str:
    last = source[-1:] if source else ""
    if not last or last == _TRAILING_WILDCARD:
        return source
    return f"{source}$" if last == "/" else f"{source}(?=$|\\/$)"


_Replacer = tuple[re.Pattern[str] | None, Callable[..., str] | str, str | None]

# The package's replacer chain, in order (``None`` marks a step done in plain code).
_REPLACERS: list[_Replacer] = [
    (re.compile("^\ufeff"), "", "\ufeff"),
    (re.compile(r"[\r\n]+\Z"), "", None),
    (re.compile(r"((?:\\\\)*?)(\\? +)\Z"), _trailing_spaces, None),
    (re.compile(r"(\\+?) "), _escaped_space, None),
    (re.compile(r"[\\$.|*+(){^]"), lambda m: "\\" + m.group(0), None),
    (re.compile(r"(?!\\)\?"), lambda m: "[^/]", "?"),
    (re.compile(r"^/"), lambda m: "^", "/"),
    (re.compile(r"/"), lambda m: "\\/", "/"),
    (re.compile(r"^\^*(?:\\\*\\\*\\/)+"), lambda m: "^(?:.*\\/)?", "*"),
    (None, _starting, None),
    (re.compile(r"\\/\\\*\\\*(?=\\/|\Z)"), _two_globstars, "*"),
    (re.compile(r"(^|[^\\]+)(\\\*)+(?=.+)"), _intermediate_wildcards, "*"),
    (re.compile(r"(^|[^\\])((?:\\\\)*)\\\*\Z"), _trailing_wildcard, "*"),
    (re.compile(r"\\\\\\(?=[$.|*+(){^])"), lambda m: "\\", "\\\\"),
    (re.compile(r"\\\\"), lambda m: "\\", "\\\\"),
    (re.compile(r"\\\[([^\]/]*?)(\\*)(\Z|\])"), _literal_bracket, "["),
    (None, _ending, None),
]

_TRAILING_WILDCARD_RE = re.compile(f"(^|\\\\\\/)?{_TRAILING_WILDCARD}\\Z")


def _regex_prefix(pattern: str) -> str:
    source, sources = _extract_brackets(pattern)
    for matcher, replacer, required in _REPLACERS:
        if matcher is None:
            assert callable(replacer)
            source = replacer(source, pattern)
            continue
        if required is not None and required not in source:
            continue
        source = matcher.sub(replacer, source)
    if sources:
        source = _RESTORE_PLACEHOLDER.sub(lambda m: sources[int(m.group(1))], source)
    return source


def _ignore_regex(prefix: str) -> str:
    def replace(m: re.Match[str]) -> str:
        p1 = m.group(1)
        return (f"{p1}[^/]+" if p1 else "[^/]*") + "(?=$|\\/$)"

    return _TRAILING_WILDCARD_RE.sub(replace, prefix)


@dataclass(frozen=True)
class IgnoreRule:
    pattern: str
    negative: bool
    regex: re.Pattern[str]


def _check_pattern(pattern: str) -> bool:
    return (
        bool(pattern)
        and re.fullmatch(" +", pattern) is None
        and re.search(r"(?:[^\\]|^)\\\Z", pattern) is None
        and not pattern.startswith("#")
    )


def compile_rule(pattern: str, ignore_case: bool = True) -> IgnoreRule | None:
    """One gitignore line as an :class:`IgnoreRule`, or None for blanks/comments/invalid lines."""
    if not _check_pattern(pattern):
        return None
    negative = pattern.startswith("!")
    body = pattern[1:] if negative else pattern
    body = re.sub(r"^\\!", "!", body)
    body = re.sub(r"^\\#", "#", body)
    source = _ignore_regex(_regex_prefix(body))
    try:
        regex = re.compile(source, re.IGNORECASE if ignore_case else 0)
    except re.error:
        regex = re.compile(_NEVER_MATCH)
    return IgnoreRule(pattern, negative, regex)


def _parent_of(path: str) -> str:
    if path.startswith("/") or "//" in path:
        slices = [s for s in path.split("/") if s]
        slices.pop() if slices else None
        return "/".join(slices) + "/" if slices else ""
    end = len(path) - 1
    cut = path.rfind("/", 0, end if path.endswith("/") else end + 1)
    return "" if cut < 0 else path[: cut + 1]


class IgnoreMatcher:
    """``ignore()``: rules accumulate with :meth:`add`; :meth:`ignores` tests a relative path."""

    def __init__(self, ignore_case: bool = True) -> None:
        self.ignore_case = ignore_case
        self.rules: list[IgnoreRule] = []
        self._cache: dict[str, tuple[bool, bool]] = {}

    def add(self, patterns: Iterable[str]) -> None:
        # Like ``ig.add(array)``: each element is one pattern (no line splitting).
        added = False
        for pattern in patterns:
            rule = compile_rule(pattern, self.ignore_case)
            if rule is not None:
                self.rules.append(rule)
                added = True
        if added:
            self._cache = {}

    def _test(self, path: str) -> tuple[bool, bool]:
        ignored = unignored = False
        for rule in self.rules:
            negative = rule.negative
            if (unignored == negative and ignored != unignored) or (negative and not ignored and not unignored):
                continue
            if rule.regex.search(path):
                ignored, unignored = not negative, negative
        return ignored, unignored

    def _t(self, path: str) -> tuple[bool, bool]:
        cached = self._cache.get(path)
        if cached is not None:
            return cached
        parent = _parent_of(path)
        parent_result = self._t(parent) if parent else None
        result = parent_result if parent_result is not None and parent_result[0] else self._test(path)
        self._cache[path] = result
        return result

    def ignores(self, path: str) -> bool:
        """Whether ``path`` (relative, ``/``-separated, ``dir/`` for directories) is ignored."""
        if not path or _is_not_relative(path):
            return False
        return self._t(path)[0]


def _is_not_relative(path: str) -> bool:
    return path.startswith("/") or path in (".", "..") or path.startswith(("./", "../"))


# ---------------------------------------------------------------------------------------------
# Pi's use: ignore files re-rooted at the walk root


def prefix_ignore_pattern(line: str, prefix: str) -> str | None:
    """Pi's ``prefixIgnorePattern``: one ignore-file line re-rooted under ``prefix`` (or None)."""
    trimmed = line.strip()
    if not trimmed:
        return None
    if trimmed.startswith("#") and not trimmed.startswith("\\#"):
        return None
    pattern = line
    negated = False
    if pattern.startswith("!"):
        negated = True
        pattern = pattern[1:]
    elif pattern.startswith("\\!"):
        pattern = pattern[1:]
    if pattern.startswith("/"):
        pattern = pattern[1:]
    prefixed = f"{prefix}{pattern}" if prefix else pattern
    return f"!{prefixed}" if negated else prefixed


def to_posix(path: str) -> str:
    return path.replace(os.sep, "/")


def add_ignore_rules(matcher: IgnoreMatcher, directory: str, root: str, names: AbstractSet[str] | None = None) -> None:
    """Pi's ``addIgnoreRules``: read this directory's ignore files into the walk's matcher.

    ``names``: the directory's listing when the walk has it; an ignore file not in it does not
    exist, so it is not looked up (three ``stat`` calls per folder saved; a name that is listed
    is still checked as Pi checks it, symlinks followed).
    """
    if names is not None and names.isdisjoint(IGNORE_FILE_NAMES):
        return  # nearly every folder: nothing to read, no relative path to compute
    relative_dir = os.path.relpath(directory, root) if directory != root else ""
    if relative_dir == ".":
        relative_dir = ""
    prefix = f"{to_posix(relative_dir)}/" if relative_dir else ""
    for filename in IGNORE_FILE_NAMES:
        if names is not None and filename not in names:
            continue
        path = os.path.join(directory, filename)
        if not exists(path):
            continue
        result = read_text(path)
        if result.text is None:
            continue
        patterns = [p for p in (prefix_ignore_pattern(line, prefix) for line in re.split(r"\r?\n", result.text)) if p]
        if patterns:
            matcher.add(patterns)
