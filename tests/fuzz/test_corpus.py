"""Issue 12's pathological files through the real CLI, each a child process with its time and memory.

The corpus is generated at test time (``tests/fuzz/corpus.py``): a hundredth of the big sizes in
the default tier, full size (a 1,000,000-key frontmatter, a 50 MB body, a 30 MB session line,
100,000 entries) in the fuzz tier. Asserted: no traceback, exit 0 or 1, valid JSON out, every
input byte-identical. Reported, never asserted: wall time and peak RSS per run (the fuzz report).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fuzz._cli import environment, run_cli
from tests.fuzz._tier import CORPUS, CorpusRun, fuzz_tier
from tests.fuzz.corpus import CASES, write_corpus

ROOT = Path(__file__).resolve().parents[2]
SCALE = 1.0 if fuzz_tier() else 0.01


@pytest.fixture(scope="module")
def corpus() -> Iterator[tuple[Path, dict[str, Path]]]:
    with tempfile.TemporaryDirectory(prefix="pi-context-corpus-") as folder:
        root = Path(folder)
        (root / "home").mkdir()
        (root / "agent").mkdir()
        settings = {"compaction": {"keepRecentTokens": 50}}  # small, so that every session has something to compact
        (root / "agent" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        yield root, write_corpus(root, SCALE)


def _digest(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest()


def _run(root: Path, case: str, label: str, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        "HOME": str(root / "home"),
        "PI_CODING_AGENT_DIR": str(root / "agent"),
        "PI_CONTEXT_STATE_DIR": str(root / "state"),
        "PYTHONPATH": str(ROOT),
    }
    if not fuzz_tier():  # the default tier stays fast: the same CLI in this process, no memory figure
        with environment(env):
            started = time.perf_counter()
            run = run_cli(*argv)
        seconds = time.perf_counter() - started
        CORPUS.append(CorpusRun(case, label, seconds, 0.0, run.code, len(run.out)))
        return subprocess.CompletedProcess(list(argv), run.code, run.out.encode(), run.err.encode())
    started = time.perf_counter()
    child = subprocess.run(
        [sys.executable, "-c", _MEASURED, *argv],
        capture_output=True,
        env={**os.environ, **env},
        timeout=900,
        check=False,
    )
    seconds = time.perf_counter() - started
    err, _, peak = child.stderr.rpartition(b"\nPEAK_RSS_KB ")
    CORPUS.append(CorpusRun(case, label, seconds, int(peak or 0) / 1024, child.returncode, len(child.stdout)))
    return subprocess.CompletedProcess(child.args, child.returncode, child.stdout, err if peak else child.stderr)


# The CLI, telling its own peak RSS on the way out (after main returned or raised). VmHWM, not
# ru_maxrss: Linux carries ru_maxrss over from the parent through fork and exec.
_MEASURED = (
    "import atexit, sys\n"
    "def _peak():\n"
    "    with open('/proc/self/status') as status:\n"
    "        kb = next((line.split()[1] for line in status if line.startswith('VmHWM:')), '0')\n"
    "    sys.__stderr__.write(f'\\nPEAK_RSS_KB {kb}')\n"
    "atexit.register(_peak)\n"
    "from lsp_server.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
_PARSE_LIMIT = 64 * 1024 * 1024  # bigger outputs are checked at both ends only (parsing one costs GBs here)


def _answered(run: subprocess.CompletedProcess[bytes]) -> None:
    err = run.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err[-3000:]
    assert run.returncode in (0, 1), err[-3000:]
    if len(run.stdout) > _PARSE_LIMIT:
        assert run.stdout[:1] in (b"[", b"{") and run.stdout.rstrip()[-1:] in (b"]", b"}")
    elif run.stdout:
        json.loads(run.stdout)
    else:
        assert err.startswith("pi-context: "), err[-3000:]


@pytest.mark.parametrize("case", [c.name for c in CASES if c.kind == "skill"])
def test_check_answers_for_a_pathological_skill(corpus: tuple[Path, dict[str, Path]], case: str) -> None:
    root, paths = corpus
    before = _digest(paths[case])
    _answered(_run(root, case, "check --json", "check", str(paths[case].parent), "--json"))
    assert _digest(paths[case]) == before


def test_prompt_answers_for_a_project_holding_every_pathological_skill(corpus: tuple[Path, dict[str, Path]]) -> None:
    root, paths = corpus
    skills = {name: _digest(path) for name, path in paths.items() if path.name == "SKILL.md"}
    run = _run(
        root, "all skills", "prompt --json --trusted", "prompt", "--json", "--trusted", "--cwd", str(root / "project")
    )
    _answered(run)
    assert {name: _digest(paths[name]) for name in skills} == skills


@pytest.mark.parametrize("case", [c.name for c in CASES if c.kind == "session"])
@pytest.mark.parametrize("command", ["session --json", "compact --dry-run --json"])
def test_session_commands_answer_for_a_pathological_session(
    corpus: tuple[Path, dict[str, Path]], case: str, command: str
) -> None:
    root, paths = corpus
    before = _digest(paths[case])
    name, *flags = command.split()
    _answered(_run(root, case, command, name, str(paths[case]), *flags, "--cwd", str(root / "project")))
    assert _digest(paths[case]) == before
