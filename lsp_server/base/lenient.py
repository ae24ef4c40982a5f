"""Settings problems as values: one line per problem, naming the file, the line and the key path.

Settings come from files people edit by hand (Pi's ``settings.json``) and from editor
configuration. A typo must never stop the server or print a traceback: bad JSON becomes one
problem at the parser's line and column; a wrong type becomes one problem per key, the bad value
is dropped (so the default or the other settings layer applies) and everything else still loads.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from lsp_server.base.findings import Finding, Range, Severity
from lsp_server.base.json_positions import KeyPath, TextPosition, locate, locate_values, nearest
from lsp_server.js.json import js_json_stringify
from lsp_server.js.strings import strip_bom

ModelT = TypeVar("ModelT", bound=BaseModel)

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


@dataclass(frozen=True)
class SettingsProblem:
    """A problem in one settings source: file (or source name), position, key path, message."""

    file: str
    key_path: KeyPath
    message: str
    line: int = 0  # 0-based
    column: int = 0  # 0-based, code points

    @property
    def key(self) -> str:
        return format_key_path(self.key_path)

    def format_line(self) -> str:
        """``file:line:col: key: message`` with 1-based line and column."""
        where = f"{self.key}: " if self.key_path else ""
        return f"{self.file}:{self.line + 1}:{self.column + 1}: {where}{self.message}"

    def to_finding(self, code: str = "settings-invalid", severity: Severity = Severity.WARNING) -> Finding:
        where = f"{self.key}: " if self.key_path else ""
        return Finding(
            path=self.file,
            range=Range.at(self.line, self.column),
            severity=severity,
            code=code,
            message=f"{where}{self.message}",
            data={"keyPath": list(self.key_path)},
        )


def format_key_path(path: KeyPath) -> str:
    """``compaction.modelOverrides["openai/gpt-4o"].reserveTokens``, ``packages[2]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{js_json_stringify(part)}]"
    return out


def _no_constants(name: str) -> Any:
    # JSON.parse rejects NaN and Infinity; Python's json would accept them.
    raise ValueError(f"{name} is not valid JSON")


@dataclass(frozen=True)
class JsonLoad:
    """A JSON text parsed as Node's ``JSON.parse`` would, or the problem that stopped it."""

    value: Any
    problem: SettingsProblem | None


def parse_json_text(text: str, file: str) -> JsonLoad:
    """Parse ``text`` (a leading BOM is ignored); a syntax error names the line and column."""
    body = strip_bom(text)
    shift = len(text) - len(body)
    try:
        return JsonLoad(json.loads(body, parse_constant=_no_constants), None)
    except json.JSONDecodeError as exc:
        column = exc.colno - 1 + (shift if exc.lineno == 1 else 0)
        return JsonLoad(None, SettingsProblem(file, (), f"invalid JSON: {exc.msg}", exc.lineno - 1, column))
    except (ValueError, RecursionError) as exc:
        return JsonLoad(None, SettingsProblem(file, (), f"invalid JSON: {exc}"))


# A run of token characters this long, with a digit, may be a key: such values are not shown.
_TOKEN = re.compile(r"[A-Za-z0-9+/=_.-]{16,}")


def _may_be_secret(text: str) -> bool:
    return any(any(c.isdigit() for c in match.group()) for match in _TOKEN.finditer(text))


def _describe(value: Any) -> str:
    """The value for a message: short, and never something that may be a key (a user may paste one)."""
    text = js_json_stringify(value) if _jsonable(value) else repr(value)
    if _may_be_secret(text):
        return "a value that may be a secret, not shown"
    return text if len(text) <= 60 else text[:57] + "..."


def _jsonable(value: Any) -> bool:
    try:
        js_json_stringify(value)
    except (TypeError, ValueError):
        return False
    return True


def _existing_prefix(data: Any, loc: Iterable[str | int]) -> KeyPath:
    """The longest prefix of a pydantic error location that exists in the data.

    Union members add tags such as ``list[str]`` to the location; they do not exist in the data,
    so the walk stops there and the problem lands on the value the user wrote.
    """
    path: list[str | int] = []
    current = data
    for part in loc:
        in_dict = isinstance(current, dict) and isinstance(part, str) and part in current
        in_list = isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current)
        if not (in_dict or in_list):
            break
        current = current[part]
        path.append(part)
    return tuple(path)


def _value_at(data: Any, path: KeyPath) -> Any:
    current = data
    for part in path:
        current = current[part]
    return current


def _without(data: Any, paths: set[KeyPath], here: KeyPath = ()) -> Any:
    if isinstance(data, dict):
        return {k: _without(v, paths, (*here, k)) for k, v in data.items() if (*here, k) not in paths}
    if isinstance(data, list):
        return [_without(v, paths, (*here, i)) for i, v in enumerate(data) if (*here, i) not in paths]
    return data


def _message(errors: list[dict[str, Any]]) -> str:
    texts: list[str] = []
    for error in errors:
        text = str(error.get("msg", "invalid value"))
        if text.startswith("Value error, "):
            text = text[len("Value error, ") :]
        if texts and text.startswith("Input should be "):
            text = text[len("Input should be ") :]
        if text not in texts:
            texts.append(text)
    return ", or ".join(texts)


def validation_problems(
    error: ValidationError, data: Any, file: str, text: str | None = None
) -> list[tuple[KeyPath, SettingsProblem]]:
    """One problem per bad key of ``data``, paired with the path to drop to get rid of it.

    Positions come from ``text`` when given (the key's line, or the value's for array items).
    """
    grouped: dict[KeyPath, list[dict[str, Any]]] = {}
    for item in error.errors():
        grouped.setdefault(_existing_prefix(data, item["loc"]), []).append(dict(item))
    out: list[tuple[KeyPath, SettingsProblem]] = []
    found = locate_values(text) if text is not None else {}
    for path, errors in grouped.items():
        message = _message(errors)
        named = path
        if len(errors) == 1 and errors[0].get("type") == "missing":
            named = tuple(errors[0]["loc"])  # a missing required key: name the key itself
        elif path:
            message = f"{message} (got {_describe(_value_at(data, path))})"
        position = nearest(found, path) if text is not None else TextPosition(0, 0)
        out.append((path, SettingsProblem(file, named, message, position.line, position.column)))
    return out


def format_validation_error(error: ValidationError, file: str, data: Any = None, text: str | None = None) -> list[str]:
    """A pydantic ``ValidationError`` as one ``file:line:col: key: message`` line per problem."""
    if data is None:
        data = {}
    return [problem.format_line() for _, problem in validation_problems(error, data, file, text)]


def validate_leniently(
    model: type[ModelT], data: Any, file: str, text: str | None = None, *, max_rounds: int = 8
) -> tuple[ModelT, list[SettingsProblem]]:
    """Validate ``data``; drop each bad value (reporting it) and keep everything else.

    Dropping a value lets its default (or another settings layer) apply, which is how a user
    expects one typo to behave. A non-object document gives one problem and all defaults.
    """
    problems: list[SettingsProblem] = []
    if not isinstance(data, dict):
        position = locate(text, ())
        problems.append(
            SettingsProblem(file, (), f"expected a JSON object (got {_describe(data)})", position.line, position.column)
        )
        return model.model_validate({}), problems
    current = copy.deepcopy(data)
    for _ in range(max_rounds):
        try:
            return model.model_validate(current), problems
        except ValidationError as exc:
            found = validation_problems(exc, current, file, text)
            removable = {path for path, _ in found if path}
            problems.extend(problem for _, problem in found)
            if not removable:
                break
            current = _without(current, removable)
    return model.model_validate({}), problems
