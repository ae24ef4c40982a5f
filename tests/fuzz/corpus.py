"""The pathological files of issue 12, generated on demand (never committed: one is 50 MB).

``python -m tests.fuzz.corpus OUT [--scale 0.01]`` writes them under ``OUT``; the corpus test
(``tests/fuzz/test_corpus.py``) does the same into a temporary folder and runs each through the
real CLI. ``scale`` shrinks the big ones (the default tier runs a hundredth; the fuzz tier the
full size); nesting depth is never scaled, since it is what breaks recursion.

Skills (each ``<name>/SKILL.md`` under ``skills/``): a frontmatter with 1,000,000 keys; 100,000
anchors and as many aliases; flow sequences 2,000 deep, closed and unclosed; a valid frontmatter
over a 50 MB body with a link on every line; a lone surrogate and ``1e999`` in the YAML.
Sessions (``sessions/*.jsonl``): lone surrogates in every text, a ``1e999`` timestamp, an object
``role``, ids that are objects, arrays nested as deep as JSON reading allows, a 30 MB line,
100,000 entries, duplicate keys, integers of 5,000 digits, a truncated last line.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HEADER = '{"type":"session","version":3,"id":"corpus","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp/corpus"}'


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "skill" or "session"
    write: Callable[[Path, float], None]


def _n(full: int, scale: float) -> int:
    return max(10, int(full * scale))


def _skill(front: str, body: str = "Body.\n") -> str:
    return f"---\n{front}\n---\n{body}"


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))


def _million_keys(path: Path, scale: float) -> None:
    keys = "".join(f"k{i}: {i}\n" for i in range(_n(1_000_000, scale)))
    _write_text(path, _skill("name: million-keys\ndescription: Many keys.\n" + keys))


def _aliases(path: Path, scale: float) -> None:
    count = _n(100_000, scale)
    anchors = "".join(f"a{i}: &x{i} v{i}\n" for i in range(count))
    aliases = "refs:\n" + "".join(f"  - *x{i}\n" for i in range(count))
    _write_text(path, _skill("name: aliases\ndescription: Anchors.\n" + anchors + aliases))


def _deep_closed(path: Path, _scale: float) -> None:
    _write_text(path, _skill("name: deep-closed\ndescription: Deep.\nx: " + "[" * 2000 + "]" * 2000))


def _deep_unclosed(path: Path, _scale: float) -> None:
    _write_text(path, _skill("name: deep-unclosed\ndescription: Deep.\nx: " + "[" * 2000))


def _big_body(path: Path, scale: float) -> None:
    line = "See [the guide](references/guide.md) for step 1 of many.\n"
    lines = int(50 * 1024 * 1024 * scale) // len(line) + 1
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        handle.write("---\nname: big-body\ndescription: A skill with a 50 MB body.\n---\n")
        for _ in range(lines // 1000):
            handle.write(line * 1000)
        handle.write(line * (lines % 1000))


def _odd_scalars(path: Path, _scale: float) -> None:
    _write_text(
        path, _skill('name: odd-scalars\ndescription: "lone \\ud800 surrogate"\nt: 1e999\nz: -0\nb: 9007199254740993')
    )


def _entry(n: int, message: dict[str, object], parent: str | None) -> dict[str, object]:
    stamp = f"2025-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
    return {"type": "message", "id": f"e{n}", "parentId": parent, "timestamp": stamp, "message": message}


def _chain(count: int, text: str = "work", timestamp: object = 1735689600000) -> list[str]:
    lines = [HEADER]
    parent = None
    for n in range(1, count + 1):
        if n % 2:
            message: dict[str, object] = {"role": "user", "content": f"{text} {n}", "timestamp": timestamp}
        else:
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": f"{text} done {n}"}],
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
                "stopReason": "stop",
                "timestamp": timestamp,
            }
        lines.append(json.dumps(_entry(n, message, parent)))
        parent = f"e{n}"
    return lines


def _lines(path: Path, lines: list[str], end: str = "\n") -> None:
    _write_text(path, "\n".join(lines) + end)


def _surrogates(path: Path, _scale: float) -> None:
    _lines(path, [line.replace("work", "work \\ud800 \\udfff") for line in _chain(40)])


def _infinite_timestamp(path: Path, _scale: float) -> None:
    _lines(path, [line.replace("1735689600000", "1e999") for line in _chain(40)])


def _object_role(path: Path, _scale: float) -> None:
    lines = _chain(40)
    lines[5] = lines[5].replace('"role": "user"', '"role": {"name": "user"}')
    lines[6] = lines[6].replace('"role": "assistant"', '"role": ["assistant"]')
    _lines(path, lines)


def _object_ids(path: Path, _scale: float) -> None:
    lines = _chain(40)
    lines[7] = lines[7].replace('"id": "e7"', '"id": {"x": 1}').replace('"parentId": "e6"', '"parentId": []')
    lines[8] = lines[8].replace('"parentId": "e7"', '"parentId": {"x": 1}')
    _lines(path, lines)


def _deep_arrays(path: Path, _scale: float) -> None:
    lines = _chain(10)
    base = lines[-1]
    for depth in (200, 900, 3000, 100_000):  # the deepest ones are past what JSON reading accepts
        deep = "[" * depth + '"x"' + "]" * depth
        lines.append(base.replace('"work done 10"', deep).replace('"id": "e10"', f'"id": "d{depth}"'))
    _lines(path, lines)


def _huge_line(path: Path, scale: float) -> None:
    lines = _chain(10)
    lines.insert(5, lines[5].replace("work 5", "h" * int(30 * 1024 * 1024 * scale)))
    _lines(path, lines)


def _many_entries(path: Path, scale: float) -> None:
    _lines(path, _chain(_n(100_000, scale)))


def _js_numbers(path: Path, _scale: float) -> None:
    lines = _chain(20)
    lines[3] = lines[3].replace('"timestamp": 1735689600000', '"timestamp": -0, "timestamp": ' + "9" * 5000)
    lines[4] = lines[4].replace('"totalTokens": 15', '"totalTokens": 9007199254740993, "totalTokens": 1e999')
    _lines(path, lines)


def _truncated(path: Path, _scale: float) -> None:
    lines = _chain(20)
    _lines(path, [*lines[:-1], lines[-1][: len(lines[-1]) // 2]], end="")


CASES = [
    Case("million-keys", "skill", _million_keys),
    Case("aliases", "skill", _aliases),
    Case("deep-closed", "skill", _deep_closed),
    Case("deep-unclosed", "skill", _deep_unclosed),
    Case("big-body", "skill", _big_body),
    Case("odd-scalars", "skill", _odd_scalars),
    Case("surrogates", "session", _surrogates),
    Case("infinite-timestamp", "session", _infinite_timestamp),
    Case("object-role", "session", _object_role),
    Case("object-ids", "session", _object_ids),
    Case("deep-arrays", "session", _deep_arrays),
    Case("huge-line", "session", _huge_line),
    Case("many-entries", "session", _many_entries),
    Case("js-numbers", "session", _js_numbers),
    Case("truncated", "session", _truncated),
]


def case_path(root: Path, case: Case) -> Path:
    if case.kind == "skill":
        return root / "project" / ".pi" / "skills" / case.name / "SKILL.md"
    return root / "sessions" / f"{case.name}.jsonl"


def write_corpus(root: Path, scale: float = 1.0) -> dict[str, Path]:
    """Write every case under ``root``; returns the path of each by name."""
    out: dict[str, Path] = {}
    for case in CASES:
        path = case_path(root, case)
        case.write(path, scale)
        out[case.name] = path
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="folder to write the corpus into")
    parser.add_argument("--scale", type=float, default=1.0, help="size factor for the big cases (default 1)")
    args = parser.parse_args(argv)
    for name, path in write_corpus(Path(args.out), args.scale).items():
        print(f"{os.path.getsize(path):>12,}  {name}  {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
