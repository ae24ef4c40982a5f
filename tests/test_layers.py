"""The layers of lsp_server hold: the import-linter contracts, no circle between files, every module in a layer,
the environment read only by the front ends, and docs/architecture.md drawn from the contract.

The graph is grimp's (the library under import-linter): every import, function-local and
``TYPE_CHECKING`` ones included, so an import moved into a function to dodge a circle still counts.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lsp_server"
sys.path.insert(0, str(ROOT / "docs"))

import gen_architecture  # noqa: E402

# The packages and modules whose code may read the process's environment: the front ends hand it down.
FRONT_ENDS = ("lsp_server.__main__", "lsp_server.cli", "lsp_server.server", "lsp_server.conformance")

# What still reads os.environ below the front ends, and why. A new entry needs a reason as good as these.
ENVIRONMENT_FALLBACKS: Mapping[tuple[str, str], str] = {
    ("lsp_server.base.paths", "normalize_path"): (
        "a `~` in a value whose caller gave no home: Node's os.homedir(); the conformance harness sets the "
        "request's environment on the process and calls the domain without a project"
    ),
    ("lsp_server.context.trust", "trust_requiring_project_resources"): "the same: no home given",
    ("lsp_server.context.skill_discovery", "_discover_skills"): "the same: no home given",
    ("lsp_server.context.resources", "load_resources"): "the same: no home given",
    ("lsp_server.context.skills", "_load_skills"): "Pi's loadSkills without an agent dir: $PI_CODING_AGENT_DIR",
    ("lsp_server.session.folders", "default_session_dir"): "Pi's default session folder without an agent dir",
    ("lsp_server.prompt.sections", "render_docs"): "the installed Pi's package folder when the caller gives none",
    ("lsp_server.budget.models", "find_pi_ai_data_dir"): "the same: Pi's catalog beside the installed Pi",
    ("lsp_server.session.write_journal", "state_dir"): (
        "pi-context's own state folder ($PI_CONTEXT_STATE_DIR, $XDG_STATE_HOME) for the note of an append in "
        "flight: every writer of a session shares it, whichever front end runs"
    ),
    ("lsp_server.cost.catalog_snapshot", "main"): "a maintainer's script (python -m), a front end of its own",
    ("lsp_server.base.native", "native_module"): (
        "$PI_CONTEXT_NATIVE=0 turns the optional C modules off for the whole process (the tests and benchmarks "
        "compare them with the Python paths): how the code runs, not what it answers"
    ),
}


def graph() -> grimp.ImportGraph:
    return grimp.build_graph("lsp_server", cache_dir=None)


def circles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_contracts_are_kept() -> None:
    """``lint-imports``: the layers contract and the two forbidden ones (pyproject.toml)."""
    done = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_two_files_import_each_other_in_a_circle() -> None:
    imports = graph()
    edges = {
        module: {target for target in imports.find_modules_directly_imported_by(module) if target != module}
        for module in imports.modules
    }
    assert circles(edges) == []


def test_no_two_packages_import_each_other_in_a_circle() -> None:
    imports = graph()
    edges: dict[str, set[str]] = {}
    for module in imports.modules:
        source = ".".join(module.split(".")[:2])
        for target in imports.find_modules_directly_imported_by(module):
            owner = ".".join(target.split(".")[:2])
            if owner != source and owner != "lsp_server":
                edges.setdefault(source, set()).add(owner)
    assert circles(edges) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_of_the_package_is_in_a_layer() -> None:
    layered = {module for layer in gen_architecture.contract_layers() for module in layer}
    top_level = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    top_level |= {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert top_level - layered == set()


def test_the_architecture_page_draws_the_contract() -> None:
    """docs/architecture.md's layer table is the contract's (python docs/gen_architecture.py)."""
    assert gen_architecture.problems(gen_architecture.contract_layers()) == []
    assert gen_architecture.main(["--check"]) == 0


def _environment_reads(path: Path) -> list[tuple[str, int]]:
    """(enclosing function, line) of each ``os.environ`` / ``os.getenv`` / ``os.environb`` in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child.name)
                continue
            if (
                isinstance(child, ast.Attribute)
                and isinstance(child.value, ast.Name)
                and child.value.id == "os"
                and child.attr in ("environ", "getenv", "environb", "putenv")
            ):
                found.append((function, child.lineno))
            visit(child, function)

    visit(tree, "<module>")
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_only_the_front_ends_read_the_environment() -> None:
    """The environment enters through ``ProjectInputs`` and the server's ``env``, given by a front end."""
    unexpected = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        if module == "lsp_server.__main__" or module.startswith(tuple(f"{front}." for front in FRONT_ENDS)):
            continue
        for function, line in _environment_reads(path):
            if (module, function) not in ENVIRONMENT_FALLBACKS:
                unexpected.append(f"{module}.{function} (line {line})")
    assert unexpected == []


@pytest.mark.parametrize("place", sorted(ENVIRONMENT_FALLBACKS), ids=lambda place: ".".join(place))
def test_each_listed_fallback_still_reads_the_environment(place: tuple[str, str]) -> None:
    """The list shrinks as they go: an entry whose code no longer reads the environment fails here."""
    module, function = place
    path = ROOT / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    assert function in {name for name, _ in _environment_reads(path)}
