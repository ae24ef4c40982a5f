"""What the rules on text sent to the model cost: the whole check, and each rule on its own.

Run: ``python bench/bench_prompt_rules.py [--skills N] [--runs R]`` (default 1,000 skills, best of 5).
It builds bench_skills.py's workspace (N skills in a 30-level tree, an AGENTS.md) and times

- ``check_workspace`` on it (what ``pi-context check`` does), best of R runs in this process (so
  detect-secrets' import, about half a second, is paid once, before the runs, like a server does);
- each ``prompt/*`` finder alone over every file's lines: forged tags, invisible characters,
  secrets (how many lines pass the gate to detect-secrets), mixed-script names;
- detect-secrets' plugins on every line without the gate, to show what the gate saves;
- the first import of detect-secrets, in a fresh interpreter.

Then the same finders on **real-shaped context files** (``--context-files N``, default 200): generated
Markdown the way AGENTS.md, CLAUDE.md and skill bodies are written (headings, prose, bash fences with
``export NAME=value`` lines and placeholders, tables, HTML snippets with entities, links and URLs
with query strings, emoji with variation selectors and joiners, CJK and Arabic paragraphs, a data
URI, a commit hash), about 20 KB each; and, with ``--corpus DIR``, every ``*.md`` file under DIR (a
checkout of real repositories, read at run time and never committed). Each finder runs over each
file's lines, best of R. Last, **hostile lines** (``--hostile-mb``, default 8: the size above which a
body is not checked): one line of that size made of entities, of soft hyphens between '<', of
variation selectors after an emoji, of unclosed '<' (each finder once, with the process's peak RSS).

Run it on a checkout without the rules (``PYTHONPATH=<that checkout> python bench/bench_prompt_rules.py``)
for the "before" figure of ``check_workspace``: the per-rule lines are skipped there.

Figures for issue 18 (2 shared cores, load average 7.8-9.3, ``--cpu --runs 3 --corpus`` on snapshots of
anthropics/skills, vercel-labs/agent-skills, openai/openai-agents-python and badlogic/pi-mono; before = the
branch point 289fe11 through ``PYTHONPATH``, CPU time of the process):

| | before | after |
| --- | ---: | ---: |
| ``check_workspace``, 1,000 skills | 352 ms | 376 ms |
| real-shaped, 4.0 M characters: forged tags / invisible / secrets | 44 / 95 / 2,276 ms | 107 / 27 / 3,150 ms |
| real-shaped: secrets found (all ``export ANTHROPIC_API_KEY=your-api-key``) | 3,345 | 0 |
| 851 real ``*.md``, 5.3 M characters: forged tags / invisible / secrets | 51 / 199 / 1,818 ms | 115 / 24 / 2,418 ms |
| 851 real ``*.md``: secrets found (placeholders and variable names) | 87 | 0 |
| 8 M-character line of ``&lt;a `` / ``<`` + soft hyphen: forged tags | 0.2 / 172 ms | 862 / 1,014 ms |
| 8 M-character line of emoji + selectors: invisible | 1,414 ms | 4 ms |

The forged-tag match costs about twice what it did on real text (it reads lines with a '<', an entity
or a fullwidth bracket as the model reads them, exactly only where a quick reading holds a tag) and up
to a second on a hostile 8 MiB line; the secrets scan about a third more (the provider shapes, URLs,
base64 and assignments are regular expressions over every line); the invisible-character scan is
several times faster (one compiled character class per line).

Earlier figures (2 shared cores, load average 11-15, best of 3): ``check_workspace`` 4.4-5.9 s before the
rules and 4.2-5.2 s after (the difference is within the machine's noise); forged tags 19 ms,
invisible characters 1 ms, secrets 78 ms (the gate alone: 0 of 12,002 lines reach detect-secrets),
mixed-script names 1 ms; detect-secrets on every line without the gate 2.2-3.2 s; its first import
1.3-1.7 s.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_skills import build

from lsp_server.checks import check_workspace

CLOCK = time.perf_counter  # --cpu: time.process_time (the process's own CPU time, steadier on a shared machine)


def best_ms(fn: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = CLOCK()
        fn()
        best = min(best, CLOCK() - start)
    return best * 1000


_SECTIONS = (
    "## Setup\n\nInstall the tools, then export the keys the scripts read:\n\n```bash\n"
    "export ANTHROPIC_API_KEY=your-api-key\nexport DB_PASSWORD=${DB_PASSWORD}\nnpm ci && npm run build\n```\n",
    "| column | meaning | default |\n| --- | --- | --- |\n| `timeout` | seconds per call | 30 |\n"
    "| `retries` | attempts after a 429 | 3 |\n",
    "Render <b>bold</b> with &lt;b&gt; and write `&amp;` as &amp;amp; in the <code>docs</code> ({n}).\n",
    "See [the guide](docs/guide.md) and https://example.com/search?q=skills&page={n}&sort=desc for more.\n",
    "Status: ✅ done, ⚠️ careful, ❤️ thanks, 👩🏽‍💻 the maintainer, 1️⃣ first. Release {n} shipped.\n",
    "日本語の説明文です。ファイルを読み込み、結果を返します。項目{n}を確認してください。\n",
    "هذا نص عربي قصير يشرح الخطوة رقم {n} من العملية.\n",
    "![diagram](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)\n",
    "Built from commit 3f786850e387550fdab836ed7e6dc881de23001b on the main branch; issue #{n}.\n",
    "When the user asks for a report, read the data first, then summarize the findings in three bullet points, "
    "each under twenty words, and link the source files you used. Step {n} of the checklist.\n",
    "```python\nclient = Client(api_key=os.environ['API_KEY'], timeout=30)\nresult = client.run(task_{n})\n```\n",
)


def real_shaped(count: int, size: int = 20_000) -> list[list[str]]:
    """``count`` context files of about ``size`` characters, written the way real ones are."""
    files = []
    for index in range(count):
        parts: list[str] = [f"# Project {index}\n\n"]
        written = n = 0
        while written < size:
            part = _SECTIONS[(index + n) % len(_SECTIONS)].replace("{n}", str(n))
            parts.append(part)
            written += len(part)
            n += 1
        files.append("".join(parts).split("\n"))
    return files


def corpus(folder: str) -> list[list[str]]:
    texts = []
    for path in sorted(Path(folder).rglob("*.md")):
        try:
            texts.append(path.read_text(encoding="utf-8", errors="replace").split("\n"))
        except OSError:
            continue
    return texts


def time_finders(label: str, texts: list[list[str]], runs: int) -> None:
    from lsp_server.rules import secrets
    from lsp_server.rules.forged_tags import find_forged_tags
    from lsp_server.rules.invisible_chars import find_invisible

    lines = sum(len(t) for t in texts)
    chars = sum(len(line) + 1 for t in texts for line in t)
    print(f"{label}: {len(texts)} files, {lines} lines, {chars / 1e6:.1f} M characters")
    finders: dict[str, Callable[[], object]] = {
        "forged tags": lambda: [find_forged_tags(t) for t in texts],
        "invisible characters": lambda: [find_invisible(t) for t in texts],
        "secrets": lambda: [secrets.find_secrets(t) for t in texts],
    }
    for name, fn in finders.items():
        print(f"  {name:<22} {best_ms(fn, runs):8.1f} ms")
    found = sum(len(secrets.find_secrets(t)) for t in texts)
    tags = sum(len(find_forged_tags(t)) for t in texts)
    runs_found = sum(len(find_invisible(t)) for t in texts)
    print(f"  found: {found} secrets, {tags} tags, {runs_found} invisible runs")


def hostile(megabytes: float) -> None:
    """Each finder once on one line of ``megabytes`` million characters in each pathological shape."""
    import resource

    from lsp_server.rules import secrets
    from lsp_server.rules.forged_tags import find_forged_tags
    from lsp_server.rules.invisible_chars import find_invisible

    size = int(megabytes * 1_000_000)
    shapes = {
        "entities '&lt;a '": "&lt;a ",
        "'<' + soft hyphen": "<\u00ad",
        "emoji + selectors": "😀" + "\ufe00\ufe01\U000e0100" * 10,
        "unclosed '<a '": "<a ",
    }
    print(f"hostile lines of {size / 1e6:.0f} M characters:")
    for label, piece in shapes.items():
        line = piece * (size // len(piece))
        times = []
        for fn in (find_forged_tags, find_invisible, secrets.find_secrets):
            start = CLOCK()
            fn([line])
            times.append((CLOCK() - start) * 1000)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"  {label:<20} tags {times[0]:8.1f} ms, invisible {times[1]:8.1f} ms, secrets {times[2]:8.1f} ms "
            f"(peak RSS so far {peak:.0f} MB)"
        )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="Cost of the prompt/* rules on the 1,000-skill workspace.")
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--context-files", type=int, default=200)
    parser.add_argument("--corpus", help="a folder whose *.md files are timed too (real repositories)")
    parser.add_argument("--hostile-mb", type=float, default=8.0)
    parser.add_argument("--cpu", action="store_true", help="time the process's CPU time instead of the wall clock")
    args = parser.parse_args(argv)
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    with tempfile.TemporaryDirectory(prefix="bench-prompt-rules-") as tmp:
        root = Path(tmp)
        paths = build(root, args.skills)
        files = [*paths, root / "AGENTS.md"]
        texts = [path.read_text(encoding="utf-8").split("\n") for path in files]
        lines = sum(len(t) for t in texts)
        check_workspace([str(root)])  # warm-up: imports, caches
        total = best_ms(lambda: check_workspace([str(root)]), args.runs)
        label = f"check_workspace, {args.skills} skills + AGENTS.md ({lines} lines)"
        print(f"{label}: {total:8.1f} ms (best of {args.runs})")
        try:
            from lsp_server.rules import secrets
            from lsp_server.rules.forged_tags import find_forged_tags
            from lsp_server.rules.invisible_chars import find_invisible
            from lsp_server.rules.mixed_scripts import find_mixed_scripts
        except ImportError:
            print("(no prompt rules in this checkout: per-rule figures skipped)")
            return
        finders: dict[str, Callable[[], object]] = {
            "forged tags": lambda: [find_forged_tags(t) for t in texts],
            "invisible characters": lambda: [find_invisible(t) for t in texts],
            "secrets (gated)": lambda: [secrets.find_secrets(t) for t in texts],
            "mixed-script names": lambda: [find_mixed_scripts(p.parent.name) for p in paths],
        }
        for label, fn in finders.items():
            print(f"  {label:<22} {best_ms(fn, args.runs):8.1f} ms")
        gated = sum(1 for t in texts for line in t if secrets.could_hold_secret(line))
        print(f"  lines passing the secrets gate: {gated} of {lines}")
        detector = secrets._detector()

        def ungated() -> None:
            for t in texts:
                cut = [line[: secrets.MAX_LINE_CHARS] for line in t]
                for index in range(len(t)):
                    detector.scan(cut, index, secrets.PROSE)

        print(f"  detect-secrets on every line (no gate): {best_ms(ungated, 1):8.1f} ms")
        code = "import time; s = time.perf_counter(); from lsp_server.rules import secrets; secrets._detector(); "
        code += "print((time.perf_counter() - s) * 1000)"
        first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        print(f"  first detect-secrets import and set-up: {float(first):8.1f} ms (once per process)")
    time_finders("real-shaped context files", real_shaped(args.context_files), args.runs)
    if args.corpus:
        time_finders(f"*.md under {args.corpus}", corpus(args.corpus), args.runs)
    hostile(args.hostile_mb)


if __name__ == "__main__":
    main(sys.argv[1:])
