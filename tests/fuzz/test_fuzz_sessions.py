"""Generated session files through the domain and the CLI: no exception, the file untouched.

Every case is a valid chain of every entry type, then mutated (a field at any depth replaced by a
JavaScript oddity, deleted or repeated; types renamed or unknown; lines truncated, huge, garbage).
The reader, the tree, the projection, the budget and the compaction planner must answer with
values (problems, reasons) and never raise; ``session --json`` and ``compact --dry-run --json``
must exit 0 or 1 with valid JSON or a message, and the file must be byte-identical afterwards.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given

from lsp_server.compaction.operations import plan_compaction
from lsp_server.session.projection import project_path
from lsp_server.session.tail import load_session
from lsp_server.session.tree import build_path, build_tree
from lsp_server.session.writer import load_for_append
from lsp_server.vocabulary.compaction import CompactionSettings
from tests.fuzz._cli import environment, run_cli
from tests.fuzz._tier import cases, timed
from tests.fuzz.strategies import session_texts

SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


@pytest.fixture(scope="module")
def home() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="pi-context-fuzz-", dir=SCRATCH) as folder:
        root = Path(folder)
        (root / "agent").mkdir()
        (root / "project").mkdir()
        env = {
            "HOME": str(root),
            "PI_CODING_AGENT_DIR": str(root / "agent"),
            "PI_CONTEXT_STATE_DIR": str(root / "state"),
        }
        with environment(env):
            yield root


def _write(home: Path, text: str) -> tuple[Path, bytes]:
    data = text.encode("utf-8", "surrogatepass")
    path = home / "session.jsonl"
    path.write_bytes(data)
    return path, data


@given(text=session_texts())
@cases(default=40, fuzz=18_000)
def test_a_generated_session_is_read_projected_and_planned_without_an_exception(home: Path, text: str) -> None:
    path, data = _write(home, text)
    with timed("session: load, project, plan", text[:200]):
        session = load_session(str(path))
        build_tree(session.entries)
        for leaf in [e.get("id") for e in session.entries[-1:] + session.entries[::5]]:
            project_path(build_path(session.entries, leaf))
        appendable = load_for_append(str(path))
        plan = plan_compaction(appendable, CompactionSettings(keep_recent_tokens=50))
        assert isinstance(plan, str) or plan.preparation is not None
    assert path.read_bytes() == data


@given(text=session_texts())
@cases(default=15, fuzz=4_000)
def test_session_json_answers_for_a_generated_session_and_leaves_it_untouched(home: Path, text: str) -> None:
    path, data = _write(home, text)
    with timed("cli: session --json", text[:200]):
        run = run_cli("session", str(path), "--json", "--cwd", str(home / "project"))
    assert run.code in (0, 1), run.err
    if run.code == 0:
        run.json()
    else:
        assert run.err.startswith("pi-context: ") and str(path) in run.err
    assert path.read_bytes() == data


@given(text=session_texts())
@cases(default=15, fuzz=4_000)
def test_compact_dry_run_answers_for_a_generated_session_and_writes_nothing(home: Path, text: str) -> None:
    path, data = _write(home, text)
    with timed("cli: compact --dry-run --json", text[:200]):
        run = run_cli("compact", str(path), "--dry-run", "--json", "--cwd", str(home / "project"))
    assert run.code in (0, 1), run.err
    if run.out:
        run.json()
    if run.code == 1:
        assert "pi-context: " in run.err
    assert path.read_bytes() == data
