"""Conformance ops for skills and frontmatter: ``parse_frontmatter`` and ``load_skills``.

The answers have the oracle's shapes (pi-oracle.mjs): ``{frontmatter, body, stripped}`` or
``{error: {name, message}}``; ``{perDir, skills, diagnostics}`` for ``dirs`` requests and
``{skills, diagnostics}`` for ``skillPaths`` requests.
"""

from __future__ import annotations

import copy
import math
import re
from typing import Any

from lsp_server.base.walk import WalkBudget
from lsp_server.conformance.op_table import EvalContext, OpTable
from lsp_server.context.frontmatter import parse_frontmatter
from lsp_server.context.skills import load_skills, load_skills_from_dir

OPS = OpTable()


_POSITION_RE = re.compile(r" at line (\d+), column (\d+)")


def to_json_value(value: Any, _path: frozenset[int] = frozenset()) -> Any:
    """What ``JSON.stringify`` would keep of a parsed YAML value (NaN/Infinity become null).

    A self-referencing alias (``a: &a [*a]``) makes a cyclic value, which Pi parses and its
    ``JSON.stringify`` refuses; so do we, with the same words."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, dict)):
        if id(value) in _path:
            raise TypeError("Converting circular structure to JSON")
        path = _path | {id(value)}
        if isinstance(value, list):
            return [to_json_value(v, path) for v in value]
        return {k: to_json_value(v, path) for k, v in value.items()}
    return value


def mask_yaml_error(_req: dict[str, Any], result: Any) -> Any:
    """Keep a YAML error's name and position; drop the parser's own wording and excerpt."""
    masked = copy.deepcopy(result)
    error = masked.get("error") if isinstance(masked, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        error["message"] = _position_only(error["message"])
    return masked


def mask_skill_diagnostics(_req: dict[str, Any], result: Any) -> Any:
    """YAML errors appear as warning messages in skill diagnostics: keep only their position."""
    masked = copy.deepcopy(result)

    def fix(diagnostics: Any) -> None:
        if isinstance(diagnostics, list):
            for diagnostic in diagnostics:
                if isinstance(diagnostic, dict) and isinstance(diagnostic.get("message"), str):
                    diagnostic["message"] = _position_only(diagnostic["message"])

    if isinstance(masked, dict):
        fix(masked.get("diagnostics"))
        for per_dir in masked.get("perDir") or []:
            if isinstance(per_dir, dict):
                fix(per_dir.get("diagnostics"))
    return masked


def _position_only(message: str) -> str:
    found = _POSITION_RE.search(message)
    if found is None:
        return message
    return f"<yaml error> at line {found.group(1)}, column {found.group(2)}"


@OPS.op("parse_frontmatter", mask=mask_yaml_error)
def parse_frontmatter_op(req: dict[str, Any], _ctx: EvalContext) -> Any:
    parsed = parse_frontmatter(str(req.get("content", "")))
    if parsed.error is not None:
        return {"error": {"name": parsed.error.name, "message": parsed.error.message}}
    return {"frontmatter": to_json_value(parsed.data), "body": parsed.body, "stripped": parsed.body}


@OPS.op("load_skills", mask=mask_skill_diagnostics)
def load_skills_op(req: dict[str, Any], _ctx: EvalContext) -> Any:
    dirs = req.get("dirs")
    if isinstance(dirs, list):
        per_dir = []
        for directory in dirs:
            # Pi's walk follows symlink loops until ELOOP; the depth and folder limits still hold.
            budget = WalkBudget(follow_loops=True)
            result = load_skills_from_dir(str(directory), str(req.get("source") or "path"), budget)
            per_dir.append(
                {
                    "dir": directory,
                    "skills": [s.to_json() for s in result.skills],
                    "diagnostics": [d.to_json() for d in result.diagnostics],
                }
            )
        return {
            "perDir": per_dir,
            "skills": [s for d in per_dir for s in d["skills"]],
            "diagnostics": [x for d in per_dir for x in d["diagnostics"]],
        }
    import os

    result = load_skills(
        str(req.get("cwd") or os.getcwd()),
        [str(p) for p in req.get("skillPaths") or []],
        agent_dir=req.get("agentDir"),
        include_defaults=bool(req.get("includeDefaults", False)),
    )
    return {"skills": [s.to_json() for s in result.skills], "diagnostics": [d.to_json() for d in result.diagnostics]}
