"""Quick fixes, hover and completion: how long one request takes.

Run: ``python bench/bench_editing.py [--runs N] [--json]``.

* **domain** (in process): ``compute_fixes`` for a broken SKILL.md (every candidate fix is
  verified by re-running the rules on the fixed text, so this is the expensive one), for a
  SKILL.md with a 3,000-character description and 30 unknown keys, ``hover_at`` on a key and
  ``completions_at`` on an empty frontmatter line.
* **client** (over stdio, like an editor): ``textDocument/codeAction`` on the broken file's
  diagnostic, ``textDocument/hover`` and ``textDocument/completion``, from request to answer.

Reports median and p95 in milliseconds. The machine is shared: compare runs made back to back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_lsp import start_client, stop_client, summary

from lsp_server.base.findings import Position
from lsp_server.editing.completions import completions_at
from lsp_server.editing.fixes import compute_fixes
from lsp_server.editing.hovers import hover_at

BROKEN = (
    "---\nname: -PDF--Tools-\ndisable-model-invocation: yes\ncolour: blue\n---\n# PDF tools\nRun `scripts\\fill.py`.\n"
)
HEAVY = (
    "---\nname: heavy\ndescription: "
    + "fill forms and extract text " * 110
    + "\n"
    + "".join(f"extra-{n}:\n  nested: {n}\n" for n in range(30))
    + "---\n"
    + "Body line\n" * 400
)


def timed(fn: Callable[[], object], runs: int) -> dict[str, float]:
    values = []
    for _ in range(runs):
        began = time.perf_counter()
        fn()
        values.append((time.perf_counter() - began) * 1000)
    return summary(values)


def bench_domain(root: Path, runs: int) -> dict[str, Any]:
    broken = root / "pdf-tools" / "SKILL.md"
    heavy = root / "heavy" / "SKILL.md"
    for path, text in ((broken, BROKEN), (heavy, HEAVY)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    fixes = compute_fixes(str(broken), BROKEN, "pi")
    heavy_fixes = compute_fixes(str(heavy), HEAVY, "agentskills")
    return {
        "fixes_broken_pi": {"fixes": len(fixes), **timed(lambda: compute_fixes(str(broken), BROKEN, "pi"), runs)},
        "fixes_heavy_agentskills": {
            "fixes": len(heavy_fixes),
            **timed(lambda: compute_fixes(str(heavy), HEAVY, "agentskills"), runs),
        },
        "hover_key": timed(lambda: hover_at(str(broken), BROKEN, Position(2, 3)), runs),
        "completion_keys": timed(lambda: completions_at(str(broken), "---\n\n---\n", Position(1, 0)), runs),
    }


async def bench_client(root: Path, home: Path, runs: int) -> dict[str, Any]:
    path = root / ".pi" / "skills" / "pdf-tools" / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(BROKEN, encoding="utf-8")
    client, _, _ = await start_client(root, home)
    uri = from_fs_path(str(path)) or ""
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=BROKEN))
    )
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="pi.debug.state", arguments=[{"idle": True}])
    )
    document = types.TextDocumentIdentifier(uri=uri)
    name_range = types.Range(start=types.Position(line=1, character=7), end=types.Position(line=1, character=7))
    requests: dict[str, Callable[[], Any]] = {
        "codeAction": lambda: client.text_document_code_action_async(
            types.CodeActionParams(document, name_range, types.CodeActionContext(diagnostics=[]))
        ),
        "hover": lambda: client.text_document_hover_async(
            types.HoverParams(document, types.Position(line=2, character=3))
        ),
        "completion": lambda: client.text_document_completion_async(
            types.CompletionParams(document, types.Position(line=3, character=2))
        ),
    }
    out: dict[str, Any] = {}
    try:
        for name, send in requests.items():
            values = []
            for _ in range(runs):
                began = time.perf_counter()
                await send()
                values.append((time.perf_counter() - began) * 1000)
            out[name] = summary(values)
    finally:
        await stop_client(client)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp, "ws"), Path(tmp, "home")
        root.mkdir()
        home.mkdir()
        result = {
            "domain": bench_domain(Path(tmp, "domain"), args.runs),
            "client": asyncio.run(bench_client(root, home, args.runs)),
        }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for group, rows in result.items():
        for name, row in rows.items():
            extra = f"  ({row['fixes']} fixes)" if "fixes" in row else ""
            print(f"{group:7} {name:26} median {row['median_ms']:7.1f} ms  p95 {row['p95_ms']:7.1f} ms{extra}")


if __name__ == "__main__":
    main()
