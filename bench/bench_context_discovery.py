"""How long context-file discovery, prompt-file resolution, trust and settings take on a deep tree.

Run: ``python bench/bench_context_discovery.py [depth] [file_kib]``. Builds a temporary tree
``depth`` directories deep with an AGENTS.md of ``file_kib`` KiB in every directory, a nested
linked worktree at the bottom, project settings and SYSTEM.md, then times each step (best of 5).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lsp_server.context.context_files import discover_context_files
from lsp_server.context.pi_settings import load_pi_settings
from lsp_server.context.resources import ResourceOptions, load_resources
from lsp_server.context.trust import project_trust


def best_of(fn: Callable[[], object], runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def build(root: Path, depth: int, file_kib: int) -> tuple[str, str]:
    body = ("Use tabs. Run the tests before committing.\n" * (file_kib * 1024 // 43 + 1))[: file_kib * 1024]
    agent = root / "agent"
    agent.mkdir()
    (agent / "AGENTS.md").write_text(body, encoding="utf-8")
    (agent / "settings.json").write_text('{"compaction": {"reserveTokens": 20000}}', encoding="utf-8")
    repo = root / "repo"
    (repo / ".git" / "worktrees" / "feat").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (repo / ".git" / "worktrees" / "feat" / "HEAD").write_text("ref: refs/heads/feat\n", encoding="utf-8")
    (repo / ".git" / "worktrees" / "feat" / "commondir").write_text("../..\n", encoding="utf-8")
    (repo / ".pi").mkdir()
    (repo / ".pi" / "SYSTEM.md").write_text("project system prompt", encoding="utf-8")
    (repo / ".pi" / "settings.json").write_text('{"compaction": {"keepRecentTokens": 1000}}', encoding="utf-8")
    current = repo
    for level in range(depth):
        (current / "AGENTS.md").write_text(body, encoding="utf-8")
        current = current / f"d{level}"
        current.mkdir()
    (current / ".git").write_text(f"gitdir: {repo}/.git/worktrees/feat\n", encoding="utf-8")
    (current / "AGENTS.md").write_text(body, encoding="utf-8")
    return str(current), str(agent)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="Context discovery, trust, settings and resources on a deep tree.")
    parser.add_argument("depth", nargs="?", type=int, default=30, help="directory levels (default 30)")
    parser.add_argument("file_kib", nargs="?", type=int, default=8, help="AGENTS.md size per level in KiB (default 8)")
    args = parser.parse_args(argv)
    depth, file_kib = args.depth, args.file_kib
    with tempfile.TemporaryDirectory() as tmp:
        cwd, agent = build(Path(tmp), depth, file_kib)
        discovery = discover_context_files(cwd, agent)
        print(f"tree: depth {depth}, AGENTS.md of {file_kib} KiB per level; {len(discovery.files)} files loaded")
        print(f"discover_context_files: {best_of(lambda: discover_context_files(cwd, agent)):.2f} ms")
        print(f"project_trust:          {best_of(lambda: project_trust(cwd, agent)):.2f} ms")
        print(f"load_pi_settings:       {best_of(lambda: load_pi_settings(cwd, agent, project_trusted=True)):.2f} ms")
        options = ResourceOptions(cwd=cwd, agent_dir=agent)
        print(f"load_resources:         {best_of(lambda: load_resources(options)):.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
