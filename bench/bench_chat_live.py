"""What following a live chat's Pi costs: comparing the files with what Pi read, and its session's analysis.

Usage::

    python bench/bench_chat_live.py [--skills 10,200,1000] [--session-mb 10] [--runs 20]

For each skill count, a workspace with a 20 KB AGENTS.md and that many skills in ``<agentDir>/skills``:

* ``held``: the snapshot taken when the chat's Pi reads its files (``HeldContext.taken`` on a build from disk,
  the skills found once);
* ``save -> drift``: what the server does after a save of AGENTS.md under a live chat: the prompt built again
  from disk with the skills found before (the Context view's own rebuild, which the server shares when no
  unsaved buffer differs from its file), then ``find_drift`` against what Pi read; and ``find_drift`` alone;

and on a generated session (``bench_session.generate``, compacted) the analysis of ``pi/contextBudget`` /
``pi/projectedRequest`` for a session no chat holds, for one a chat holds with the prompt it recorded, and
for one whose Pi read other sections (right after a reload: the system message Pi records next is added to
the projected request). Medians of ``--runs``; the machine's load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_session import generate  # noqa: E402

from lsp_server.chat.live import HeldContext, find_drift  # noqa: E402
from lsp_server.project.analysis import analyze  # noqa: E402
from lsp_server.project.project import ProjectInputs, open_project  # noqa: E402
from lsp_server.project.prompt_state import PromptSnapshot, SkillCache, build_prompt  # noqa: E402
from lsp_server.session.tail import load_session  # noqa: E402


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def workspace(root: Path, skills: int) -> tuple[ProjectInputs, Path]:
    folder, agent = root / "ws", root / "agent"
    folder.mkdir(parents=True)
    agents = folder / "AGENTS.md"
    agents.write_text(
        "# Rules\n" + "- Keep functions small and named after what they return.\n" * 350, encoding="utf-8"
    )
    for n in range(skills):
        skill = agent / "skills" / f"skill-{n:04d}" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text(f"---\nname: skill-{n:04d}\ndescription: Does task {n} of the project.\n---\nSteps.\n")
    env = {"HOME": str(root / "home"), "PATH": os.environ.get("PATH", "")}
    return ProjectInputs.create(str(folder), env=env, agent_dir=str(agent)), agents


def bench_drift(skills: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        inputs, agents = workspace(Path(tmp), skills)
        cache = SkillCache()

        def build() -> PromptSnapshot:
            return build_prompt(open_project(inputs), skills=cache)

        held = HeldContext.taken(build(), time.time())
        agents.write_text(agents.read_text() + "- A line saved during the chat.\n", encoding="utf-8")
        now = build()
        assert find_drift(held, now) is not None
        return {
            "held": median_ms(lambda: HeldContext.taken(build(), time.time()), runs),
            "save -> drift": median_ms(lambda: find_drift(held, build()), runs),
            "find_drift": median_ms(lambda: find_drift(held, now), runs),
        }


def bench_session(megabytes: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        generate(path, megabytes * 1_000_000)
        inputs, agents = workspace(Path(tmp) / "p", 10)
        snapshot = build_prompt(open_project(inputs))
        session = load_session(path)
        recorded = replace(snapshot, pi_holds=True)
        agents.write_text(agents.read_text() + "- Another line.\n", encoding="utf-8")
        reloaded = replace(build_prompt(open_project(inputs)), pi_holds=True)
        return {
            "no chat": median_ms(lambda: analyze(snapshot, session), runs),
            "chat, same prompt": median_ms(lambda: analyze(recorded, session), runs),
            "chat, after a reload": median_ms(lambda: analyze(reloaded, session), runs),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skills", default="10,200,1000")
    parser.add_argument("--session-mb", type=int, default=10)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs")
    for count in (int(n) for n in args.skills.split(",")):
        figures = bench_drift(count, args.runs)
        print(f"{count:>5} skills: " + ", ".join(f"{k} {v:.1f} ms" for k, v in figures.items()))
    figures = bench_session(args.session_mb, max(3, args.runs // 4))
    print(f"{args.session_mb} MB session: " + ", ".join(f"{k} {v:.1f} ms" for k, v in figures.items()))
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
