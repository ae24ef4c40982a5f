"""The Chat view's cost per streamed delta: folding Pi's events in the extension host, drawing them in the webview.

Run: ``python bench/bench_chat_view.py [--deltas N] [--rate R] [--json]`` (after ``npm ci`` in
``vscode-extension/``; the webview part needs the VS Code e2e tools: ``tests/e2e/vscode/install.sh``).

* **fold**: ``Transcript.apply`` (``vscode-extension/src/chat/transcript.ts``, bundled with esbuild and run in
  Node) on a reply of N ``text_delta`` records of 16 characters, the shape Pi 1.6.0 streams
  (``test/fixtures/chat/tool-turn.jsonl``): microseconds per event, median and p95 over the reply.
* **render**: the real ``dist/chat.js`` and ``media/chat.css`` in headless Chromium, fed as the host feeds it:
  one ``items`` message per delta at R deltas a second, each carrying the whole reply so far (the host posts
  changed items, at most one message per 16 ms). Latency = from ``postMessage`` to the frame after the DOM
  shows the delta (a ``MutationObserver`` sees the text, then ``requestAnimationFrame`` fires), so it includes
  the Markdown re-render of the growing reply. Reported per delta, median and p95, and for the last 10% of the
  reply (the longest re-renders).

The relay in between (the language server's ``pi/chat/event`` over stdio and ``postMessage`` into the
webview's iframe) is not in these numbers. The machine is shared: compare runs made back to back.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "vscode-extension"
INSTALL = ROOT / "tests" / "e2e" / "vscode" / "install.sh"

FOLD_JS = r"""
const { Transcript } = require(process.argv[2]);
const n = Number(process.argv[3]);
const t = new Transcript();
t.apply({ type: 'agent_start' });
t.apply({ type: 'message_start', message: { role: 'user', content: [{ type: 'text', text: 'Write a lot' }] } });
t.apply({ type: 'message_start', message: { role: 'assistant', content: [], provider: 'fake', model: 'fake-1' } });
t.apply({ type: 'message_update', usage: {}, assistantMessageEvent: { type: 'text_start', contentIndex: 0 } });
const times = [];
for (let i = 0; i < n; i++) {
  const event = { type: 'message_update', usage: { input: 10, output: i, totalTokens: 10 + i, cost: { total: 0 } },
    assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: `word${String(i).padStart(6, '0')} more ` } };
  const s = process.hrtime.bigint();
  t.apply(event);
  times.push(Number(process.hrtime.bigint() - s) / 1000);
}
console.log(JSON.stringify(times));
"""

RENDER_JS = r"""
const { chromium } = require('playwright-core');
const [chromiumPath, url] = [process.argv[2], process.argv[3]];
const [n, rate] = [Number(process.argv[4]), Number(process.argv[5])];
(async () => {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 400, height: 900 } });
  await page.goto(url);
  await page.waitForFunction(() => window.__ready === true);
  const latencies = await page.evaluate(([n, rate]) => new Promise((resolve) => {
    const log = document.querySelector('[role=log]');
    const user = { kind: 'user', id: 'u1', text: 'Write a lot', entryId: null };
    const reply = { kind: 'assistant', id: 'a1', blocks: [{ type: 'text', text: '' }], streaming: true, usage: null,
      model: 'fake/fake-1', stopReason: null, errorMessage: null };
    window.postMessage({ type: 'reset', items: [user, reply] }, '*');
    const sent = new Map();
    const out = [];
    let next = 0;
    const observer = new MutationObserver(() => {
      const text = log.textContent || '';
      while (next < n && text.includes(`word${String(next).padStart(6, '0')} `)) {
        const i = next++;
        requestAnimationFrame(() => {
          out[i] = performance.now() - sent.get(i);
          if (out.filter((v) => v !== undefined).length === n) {
            observer.disconnect();
            resolve(out);
          }
        });
      }
    });
    observer.observe(log, { childList: true, subtree: true, characterData: true });
    let i = 0;
    const timer = setInterval(() => {
      reply.blocks[0].text += `word${String(i).padStart(6, '0')} more ` + (i % 25 === 24 ? '\n\n' : '');
      sent.set(i, performance.now());
      window.postMessage({ type: 'items', items: [reply] }, '*');
      i += 1;
      if (i >= n) clearInterval(timer);
    }, 1000 / rate);
  }), [n, rate]);
  console.log(JSON.stringify(latencies));
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
"""

HARNESS = """<!DOCTYPE html><html><head><meta charset="UTF-8">
<link rel="stylesheet" href="codicons/codicon.css"><link rel="stylesheet" href="chat.css"></head><body>
<div id="chat" data-testid="chat-root" data-state="idle"></div>
<script>function acquireVsCodeApi(){return {postMessage:()=>{},getState:()=>null,setState:()=>{}};}</script>
<script src="chat.js"></script>
<script>window.__ready = true;</script>
</body></html>
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "p95": round(percentile(values, 0.95), 3)}


def e2e_tools() -> dict[str, str] | None:
    found = subprocess.run(["bash", str(INSTALL), "--print"], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        return None
    return dict(line.split("=", 1) for line in found.stdout.splitlines() if "=" in line)


def run(deltas: int, rate: int) -> dict[str, Any]:
    esbuild = EXTENSION / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        sys.exit("run npm ci in vscode-extension/ first")
    results: dict[str, Any] = {"deltas": deltas, "rate": rate}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bundle = folder / "transcript.js"
        subprocess.run(
            [
                str(esbuild),
                "src/chat/transcript.ts",
                "--bundle",
                "--platform=node",
                "--format=cjs",
                f"--outfile={bundle}",
            ],
            cwd=EXTENSION,
            check=True,
            capture_output=True,
        )
        (folder / "fold.js").write_text(FOLD_JS, encoding="utf-8")
        node = shutil.which("node") or sys.exit("node is not on PATH")
        done = subprocess.run(
            [node, str(folder / "fold.js"), str(bundle), str(deltas)], capture_output=True, text=True, check=True
        )
        results["fold_us_per_event"] = summary(json.loads(done.stdout))

        tools = e2e_tools()
        if tools is None:
            results["render_ms"] = "skipped: the VS Code e2e tools are not installed (tests/e2e/vscode/install.sh)"
            return results
        subprocess.run(["node", "esbuild.mjs", "--production"], cwd=EXTENSION, check=True, capture_output=True)
        shutil.copy(EXTENSION / "dist" / "chat.js", folder / "chat.js")
        shutil.copy(EXTENSION / "media" / "chat.css", folder / "chat.css")
        shutil.copytree(EXTENSION / "dist" / "codicons", folder / "codicons")
        (folder / "index.html").write_text(HARNESS, encoding="utf-8")
        (folder / "render.js").write_text(RENDER_JS, encoding="utf-8")
        done = subprocess.run(
            [
                tools["NODE24"],
                str(folder / "render.js"),
                tools["CHROMIUM"],
                (folder / "index.html").as_uri(),
                str(deltas),
                str(rate),
            ],
            capture_output=True,
            text=True,
            check=True,
            env={"NODE_PATH": tools["PLAYWRIGHT_NODE_PATH"], "PATH": "/usr/bin:/bin"},
            timeout=600,
        )
        latencies = json.loads(done.stdout)
        results["render_ms"] = summary(latencies)
        results["render_ms_last_10pct"] = summary(latencies[-max(1, deltas // 10) :])
        results["reply_chars"] = sum(len(f"word{i:06d} more ") for i in range(deltas))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=1000)
    parser.add_argument("--rate", type=int, default=100, help="deltas per second")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = run(args.deltas, args.rate)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{args.deltas} deltas at {args.rate}/s")
    for key, value in results.items():
        if key not in ("deltas", "rate"):
            print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
