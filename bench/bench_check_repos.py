"""How long ``pi-context check`` takes on real public repositories, and what the prompt's resolution adds.

Run: ``python bench/bench_check_repos.py [--runs N]``. Extracts the pinned commits of the corpus test's
repositories (``tests/corpus/test_public_repositories.py``) from the git snapshots under
``$PI_CONTEXT_CORPUS_DIR`` (default ``/work/.mirror``) into a temporary folder, then times, in this
process, the whole check of each repository's root (walk, rules, the context files' inclusions) and,
apart, the inclusions alone (Pi's context-file discovery for the cwd plus one answer per context file):
best and median of N runs, CPU time, the number of files walked. Repositories without a snapshot are
skipped. Nothing is asserted: the figures go in the report.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lsp_server.checks import Targets, check_workspace, find_targets
from lsp_server.prompt.inclusion import Inclusions

REPOSITORIES = {
    "anthropics+skills": "9d2f1ae187231d8199c64b5b762e1bdf2244733d",
    "vercel-labs+agent-skills": "b9c8ee0643d87d3c5a953d1e22382ff2ead39229",
    "openai+openai-agents-python": "7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7",
    "badlogic+pi-mono": "83378aad7e74a0e2bb8f37c007a9685fb4609d8a",
}


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """(best wall ms, median wall ms, median CPU ms) over ``runs`` calls."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return min(walls), statistics.median(walls), statistics.median(cpus)


def extract(corpus: Path, name: str, commit: str, into: Path) -> Path | None:
    git_dir = corpus / name / "repo"
    if not git_dir.is_dir():
        return None
    target = into / name
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(git_dir), "archive", commit], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def check(root: Path, agent: str) -> object:
    return check_workspace([str(root)], inclusions=Inclusions(str(root), agent))


def inclusions(root: Path, agent: str, targets: Targets) -> object:
    places = Inclusions(str(root), agent)
    return [places.context(path) for path in targets.context_files]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="check on real repositories")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    corpus = Path(os.environ.get("PI_CONTEXT_CORPUS_DIR") or "/work/.mirror")
    print(f"load average {os.getloadavg()[0]:.1f}; best / median wall, median CPU of {args.runs} runs")
    with tempfile.TemporaryDirectory() as tmp:
        for name, commit in REPOSITORIES.items():
            root = extract(corpus, name, commit, Path(tmp))
            if root is None:
                print(f"{name}: no snapshot under {corpus}, skipped")
                continue
            agent = str(Path(tmp) / "agent")
            targets = find_targets([str(root)])
            walked = len(targets.skills) + len(targets.context_files) + len(targets.system_prompt_files)
            whole = timed(lambda root=root, agent=agent: check(root, agent), args.runs)
            alone = timed(lambda root=root, agent=agent, found=targets: inclusions(root, agent, found), args.runs)
            print(
                f"{name}: {walked} files checked; check {whole[0]:.0f} / {whole[1]:.0f} ms (CPU {whole[2]:.0f} ms); "
                f"inclusions of {len(targets.context_files)} context files {alone[0]:.2f} / {alone[1]:.2f} ms "
                f"(CPU {alone[2]:.2f} ms)"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
