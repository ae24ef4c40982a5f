"""Writes ``inventory-fix.jsonl``: a made-up Pi 1.6.0 session used by the README's compaction examples.

A user asks the agent to fix a crash and then to add an option; the agent reads files (long tool
results), edits, runs tests; later the user tries one approach, goes back in the tree and takes
another, so the file holds a branch. The stored system message carries the prompt sections, as
Pi 1.6.0 writes it. It is long enough (about 30,000 of Pi's estimated tokens) that the default
``keepRecentTokens`` (20,000) leaves something to summarize.

Run ``python examples/sessions/make_example.py`` to regenerate it (deterministic); ``--help`` says so
and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CWD = "/home/dev/inventory"
RNG = random.Random(2025)


TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "inventory/report.py", line 212, in total\n'
    "    value += item['price'] * item['stock']\n"
    "KeyError: 'price'\n"
)
FAILED_RELOAD = (
    "F........................................ [100%]\n"
    "FAILED tests/test_prices.py::test_rates_reload - stale rate after reload\n"
    "1 failed, 40 passed\n"
)
TOOLS_SECTION = (
    "<tools>\n- read: show a file\n- bash: run a command\n- edit: replace text in a file\n"
    "- write: write a file\n</tools>"
)
CURRENCY = "def report(currency: str = 'EUR', "
RATES = "RATES = {'EUR': 1.0, 'USD': 1.08, 'GBP': 0.85}\n"


def _edit(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("edit", {"path": path, "oldText": old, "newText": new})


def _id() -> str:
    return f"{RNG.getrandbits(32):08x}"


def _usage(total: int) -> dict[str, Any]:
    return {
        "input": total - 300,
        "output": 300,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def _module(name: str, functions: int) -> str:
    parts = [f'"""{name}: part of the inventory tool."""\n\nfrom __future__ import annotations\n\nimport json\n']
    for i in range(functions):
        parts.append(
            f"\ndef {name}_step_{i}(items: list[dict[str, object]]) -> list[dict[str, object]]:\n"
            f'    """Step {i} of the {name} pipeline: keep items whose stock is above {i}."""\n'
            f"    result = []\n"
            f"    for item in items:\n"
            f'        if int(item.get("stock", 0)) > {i}:\n'
            f'            result.append({{**item, "checked_{i}": True}})\n'
            f"    return result\n"
        )
    return "".join(parts)


class Session:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.leaf: str | None = None
        self.second = 0
        self.tokens = 4000
        self.pending: list[str] = []  # ids of the last assistant message's tool calls not yet answered

    def _time(self) -> str:
        self.second += RNG.randint(3, 40)
        s = self.second
        return f"2025-06-02T09:{(s // 60) % 60:02d}:{s % 60:02d}.{RNG.randint(0, 999):03d}Z"

    def entry(self, kind: str, **fields: Any) -> str:
        entry_id = _id()
        self.lines.append({"type": kind, "id": entry_id, "parentId": self.leaf, "timestamp": self._time(), **fields})
        self.leaf = entry_id
        return entry_id

    def message(self, message: dict[str, Any]) -> str:
        return self.entry("message", message={**message, "timestamp": 1748854800000 + self.second * 1000})

    def user(self, text: str) -> str:
        return self.message({"role": "user", "content": text})

    def assistant(self, text: str, calls: Sequence[tuple[str, dict[str, Any]]] = (), stop: str = "stop") -> str:
        self.tokens += 900
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        calls_content = [{"type": "toolCall", "id": f"toolu_{_id()}", "name": n, "arguments": a} for n, a in calls]
        self.pending = [call["id"] for call in calls_content]  # the results that follow answer these
        content += calls_content
        return self.message(
            {
                "role": "assistant",
                "content": content,
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": _usage(self.tokens),
                "stopReason": "toolUse" if calls else stop,
            }
        )

    def result(self, tool: str, text: str) -> str:
        self.tokens += len(text) // 4
        return self.message(
            {
                "role": "toolResult",
                "toolCallId": self.pending.pop(0),
                "toolName": tool,
                "content": [{"type": "text", "text": text}],
                "isError": False,
            }
        )


def build() -> list[dict[str, Any]]:
    s = Session()
    s.entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    s.entry("thinking_level_change", thinkingLevel="medium")
    sections = {
        "preamble": "You are a coding agent working in the user's repository (example text).",
        "tools": TOOLS_SECTION,
        "cwd": f"<cwd>\n{CWD}\n</cwd>",
    }
    s.message({"role": "system", "content": "", "sections": sections})
    s.user(
        "`inventory report` crashes with KeyError: 'price' when an item has no price. "
        "Fix it, and keep the JSON output format exactly as it is."
    )
    s.assistant("Let me look at the store module first.", [("read", {"path": "inventory/store.py"})])
    s.result("read", _module("store", 70))
    s.assistant("And the report command.", [("read", {"path": "inventory/report.py"})])
    s.result("read", _module("report", 70))
    s.assistant("Reproducing the crash.", [("bash", {"command": "python -m inventory report --json"})])
    s.result("bash", TRACEBACK)
    s.assistant(
        "I decided to treat a missing price as 0 in `total()` because the JSON format must not change.",
        [("edit", {"path": "inventory/report.py", "oldText": "item['price']", "newText": "item.get('price', 0)"})],
    )
    s.result("edit", "Successfully replaced text in inventory/report.py.")
    s.assistant("Running the tests.", [("bash", {"command": "pytest -q"})])
    s.result("bash", "........................................ [100%]\n40 passed in 0.81s\n")
    s.assistant("Fixed: items without a price now count as 0; the JSON output is unchanged and all 40 tests pass.")
    s.user("Now add a --currency option to `inventory report` (default EUR). Prices are stored in EUR.")
    s.assistant("Reading the CLI entry point.", [("read", {"path": "inventory/cli.py"})])
    s.result("read", _module("cli", 260))
    s.assistant("And the price helpers.", [("read", {"path": "inventory/prices.py"})])
    s.result("read", _module("prices", 30))
    s.assistant("Adding the option and a conversion table.", [_edit("inventory/cli.py", "def report(", CURRENCY)])
    s.result("edit", "Successfully replaced text in inventory/cli.py.")
    s.assistant("Writing the rates module.", [("write", {"path": "inventory/rates.py", "content": RATES})])
    s.result("write", "Successfully wrote 49 bytes to inventory/rates.py.")
    s.assistant("Running the tests again.", [("bash", {"command": "pytest -q"})])
    s.result("bash", "......................................... [100%]\n41 passed in 0.84s\n")
    ask = s.assistant(
        "`--currency` works (EUR, USD, GBP); 41 tests pass. Next I could cache the rates, which are read on every item."
    )
    s.user("Yes, cache the prices in a module-level dict.")
    s.assistant("Caching in a dict.", [_edit("inventory/prices.py", "def price(", "_CACHE = {}\n\ndef price(")])
    s.result("edit", "Successfully replaced text in inventory/prices.py.")
    s.assistant("Testing.", [("bash", {"command": "pytest -q"})])
    s.result("bash", FAILED_RELOAD)
    abandoned = s.assistant("The dict cache keeps stale rates after `reload_rates()`: test_rates_reload fails.")
    s.leaf = ask  # the user went back in the tree and asked for another approach
    s.user("Use functools.lru_cache on rate() instead, and clear it in reload_rates().")
    s.assistant("Using lru_cache.", [_edit("inventory/rates.py", "def rate(", "@functools.lru_cache\ndef rate(")])
    s.result("edit", "Successfully replaced text in inventory/rates.py.")
    s.assistant("Testing.", [("bash", {"command": "pytest -q"})])
    s.result("bash", "......................................... [100%]\n41 passed in 0.80s\n")
    s.assistant("Rates are cached with lru_cache and the cache is cleared in reload_rates(); 41 tests pass.")
    print(f"abandoned branch ends at {abandoned}, the user went back to {ask}")
    return s.lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Write examples/sessions/inventory-fix.jsonl, the made-up Pi 1.6.0 session of the README "
        "(deterministic: the same bytes every run)."
    )
    parser.parse_args()
    header = {
        "type": "session",
        "version": 3,
        "id": "0197300a-5b1c-7e4d-9a3f-2c6b8d1e4f70",
        "timestamp": "2025-06-02T09:00:00.000Z",
        "cwd": CWD,
    }
    lines = [header, *build()]
    text = "".join(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n" for line in lines)
    (HERE / "inventory-fix.jsonl").write_text(text, encoding="utf-8")
    print(f"wrote {HERE / 'inventory-fix.jsonl'} ({len(lines)} lines, {len(text) // 1024} KiB)")


if __name__ == "__main__":
    main()
