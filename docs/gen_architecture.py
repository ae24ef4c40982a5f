"""Draw docs/architecture.md's layer table from the import-linter contract in pyproject.toml.

The layers of ``lsp_server`` are one list, the ``layers`` contract of ``[tool.importlinter]`` in
pyproject.toml, which ``lint-imports`` enforces (.ci/run). This script writes the table of
docs/architecture.md between its ``generated: layers`` markers from that list: one row per module,
highest layer first, with the group it belongs to (:data:`GROUPS`) and the first line of its
docstring, so the page cannot describe a stack the code does not have.

Usage (from the repository root)::

    python docs/gen_architecture.py          # rewrite the table
    python docs/gen_architecture.py --check  # exit 1 when the page is stale

``tests/test_layers.py`` runs the check and also fails when a module of the contract has no group.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "lsp_server"
BEGIN = "<!-- generated: layers (python docs/gen_architecture.py, from pyproject.toml's layers contract) -->"
END = "<!-- end generated: layers -->"

# The groups the layers form, highest first; each module of the contract is in exactly one.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("front ends", ("__main__", "cli", "server", "conformance")),
    ("application", ("workspace", "chat", "project", "pi_rpc")),
    ("settings and wire", ("settings", "protocol")),
    (
        "domain",
        (
            "checks",
            "editing",
            "usage",
            "rules",
            "cost",
            "compaction",
            "budget",
            "llm",
            "session",
            "prompt",
            "redaction",
            "context",
            "tokens",
            "truncate",
        ),
    ),
    ("base", ("base",)),
    ("vocabulary", ("js", "vocabulary", "methods", "protocol_names")),
)


def contract_layers(pyproject: Path = ROOT / "pyproject.toml") -> list[list[str]]:
    """The ``layers`` contract's layers, highest first, each a list of sibling modules (optional ones too)."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c.get("id") == "layers"]
    layers = []
    for line in contract["layers"]:
        separator = "|" if "|" in line else ":"
        layers.append([part.strip().strip("()") for part in line.split(separator)])
    return layers


def group_of(module: str) -> str | None:
    return next((name for name, members in GROUPS if module in members), None)


def summary(module: str) -> str:
    """The first line of the module's docstring (a package's ``__init__``), as Markdown."""
    path = PACKAGE / module / "__init__.py"
    if not path.exists():
        path = PACKAGE / f"{module}.py"
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = docstring.strip().split("\n\n", 1)[0]
    return " ".join(first.split()).replace("``", "`").replace("|", "\\|")


def render_table(layers: Sequence[Sequence[str]]) -> str:
    rows = ["| layer | group | module | holds |", "| --- | --- | --- | --- |"]
    for number, modules in enumerate(layers, start=1):
        for index, module in enumerate(modules):
            kind = "package" if (PACKAGE / module).is_dir() else "module"
            name = f"`{module}/`" if kind == "package" else f"`{module}.py`"
            shown_number = str(number) if index == 0 else ""
            rows.append(f"| {shown_number} | {group_of(module) or '?'} | {name} | {summary(module)} |")
    return "\n".join(rows)


def render(page: str, layers: Sequence[Sequence[str]]) -> str:
    head, found, rest = page.partition(BEGIN)
    if not found:
        raise SystemExit(f"{PAGE.relative_to(ROOT)} has no {BEGIN!r} marker")
    _, found, tail = rest.partition(END)
    if not found:
        raise SystemExit(f"{PAGE.relative_to(ROOT)} has no {END!r} marker")
    return f"{head}{BEGIN}\n\n{render_table(layers)}\n\n{END}{tail}"


def problems(layers: Sequence[Sequence[str]]) -> list[str]:
    """Modules of the contract without a group, groups that are not contiguous in layer order."""
    found = [f"{m}: no group in docs/gen_architecture.py's GROUPS" for ms in layers for m in ms if group_of(m) is None]
    order = [group_of(module) for modules in layers for module in modules]
    seen: list[str | None] = []
    for group in order:
        if seen and seen[-1] == group:
            continue
        if group in seen:
            found.append(f"group {group!r} is split by another group in the layer order")
        seen.append(group)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/architecture.md's table is stale")
    args = parser.parse_args(argv)
    layers = contract_layers()
    wrong = problems(layers)
    if wrong:
        sys.stderr.write("".join(f"{line}\n" for line in wrong))
        return 1
    page = PAGE.read_text(encoding="utf-8")
    updated = render(page, layers)
    if args.check:
        if updated != page:
            sys.stderr.write("docs/architecture.md's layer table is stale: run python docs/gen_architecture.py\n")
            return 1
        return 0
    if updated != page:
        PAGE.write_text(updated, encoding="utf-8")
        sys.stdout.write("wrote docs/architecture.md\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
