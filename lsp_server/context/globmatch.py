"""Glob matching with ``minimatch``'s default rules, for Pi's settings resource patterns.

Pi filters resources named in ``settings.json`` (``"skills": ["../shared", "!**/drafts/**"]``)
with ``minimatch(path, pattern)`` and default options: ``*`` and ``?`` stay inside one path
segment, ``**`` alone in a segment spans any number of segments, brace lists expand, and a
wildcard never matches a segment starting with ``.`` unless the pattern segment does. That is
the subset implemented here (no extglobs, no ``{1..3}`` ranges).
"""

from __future__ import annotations

import re
from functools import lru_cache


def expand_braces(pattern: str) -> list[str]:
    """``a{b,c}d`` -> ``abd``, ``acd`` (nested lists too); unbalanced braces stay literal."""
    depth = 0
    start = -1
    for index, char in enumerate(pattern):
        if char == "\\":
            continue
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                body = pattern[start + 1 : index]
                options = _split_top_level(body)
                if len(options) < 2:
                    continue
                head, tail = pattern[:start], pattern[index + 1 :]
                out: list[str] = []
                for option in options:
                    out.extend(expand_braces(head + option + tail))
                return out
    return [pattern]


def _split_top_level(body: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for char in body:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


@lru_cache(maxsize=1024)
def _segment_regex(segment: str) -> re.Pattern[str] | None:
    """Regex for one pattern segment, or None when it has no magic (compare literally)."""
    if not any(ch in segment for ch in "*?[\\"):
        return None
    out = ""
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "\\" and index + 1 < len(segment):
            out += re.escape(segment[index + 1])
            index += 2
            continue
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "[":
            close = segment.find("]", index + 2)
            if close < 0:
                out += re.escape(char)
            else:
                body = segment[index + 1 : close]
                negate = body[:1] in ("!", "^")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\")
                out += f"[{'^' if negate else ''}{body}]"
                index = close
        else:
            out += re.escape(char)
        index += 1
    try:
        return re.compile(out)
    except re.error:
        return re.compile(re.escape(segment))


def _segment_matches(pattern: str, name: str) -> bool:
    if name in (".", "..") and pattern != name:
        return False
    regex = _segment_regex(pattern)
    if regex is None:
        return pattern == name
    if not name or (name.startswith(".") and not pattern.startswith(".")):
        return False
    return regex.fullmatch(name) is not None


def _match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    head = pattern[0]
    if head == "**":
        if len(pattern) == 1:
            # A trailing ``**`` needs at least one more segment ("a/**" matches "a/x", not "a").
            return bool(parts) and not any(part.startswith(".") for part in parts)
        if _match(pattern[1:], parts):
            return True
        return bool(parts) and not parts[0].startswith(".") and _match(pattern, parts[1:])
    return bool(parts) and _segment_matches(head, parts[0]) and _match(pattern[1:], parts[1:])


def minimatch(path: str, pattern: str) -> bool:
    """``minimatch(path, pattern)`` with default options (see the module docstring)."""
    if pattern.startswith("#"):
        return False
    if not pattern:
        return path == ""
    parts = path.split("/")
    candidates = [parts]
    if len(parts) > 1 and parts[-1] == "":
        candidates.append(parts[:-1])  # "a/" matches what "a" matches
    return any(_match(variant.split("/"), c) for variant in expand_braces(pattern) for c in candidates)
