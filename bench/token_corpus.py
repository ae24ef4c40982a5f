"""A token-estimation corpus built from material on this machine (nothing is downloaded).

Categories mirror what a coding agent's context holds: prose and docs, Python and TypeScript
code, JSON tool results, shell logs, text in other scripts, emoji chat and dense symbols (hashes,
base64). Sources are read where they exist; a missing source just makes its category smaller,
and the report prints the size of each category so the numbers can be judged.

Used by ``measure_token_error.py`` (accuracy) and ``bench_tokens.py`` (speed).
"""

from __future__ import annotations

import base64
import gettext
import glob
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import sysconfig
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_CHARS = 28_000
SCRIPT_TARGET_CHARS = 10_000


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _run(*command: str) -> str:
    env = {**os.environ, "MANWIDTH": "100", "MAN_KEEP_FORMATTING": "0", "PAGER": "cat"}
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout


def _take(parts: Iterable[str], limit: int) -> str:
    """Concatenate parts (blank line between) until ``limit`` characters, cutting the last one."""
    out: list[str] = []
    size = 0
    for part in parts:
        if not part:
            continue
        room = limit - size
        if room <= 0:
            break
        piece = part[:room]
        out.append(piece)
        size += len(piece) + 2
    return "\n\n".join(out)


def _mo_strings(language: str) -> Iterable[str]:
    """Translated messages of every gettext catalogue installed for ``language``."""
    for path in sorted(glob.glob(f"/usr/share/locale/{language}/LC_MESSAGES/*.mo")):
        try:
            with open(path, "rb") as handle:
                catalog = gettext.GNUTranslations(handle)
        except Exception:  # a catalogue in an odd encoding is skipped, not fatal
            continue
        messages = getattr(catalog, "_catalog", {})
        yield "\n".join(str(v) for k, v in messages.items() if k and isinstance(v, str) and v.strip())


def en_prose() -> str:
    man = re.sub(r"[ \t]+", " ", _run("man", "-P", "cat", "bash"))
    return _take([_read("/usr/share/common-licenses/GPL-3"), man], TARGET_CHARS)


def markdown_docs() -> str:
    docs = [_read(p) for p in sorted((REPO / "docs").glob("*.md"))]
    docs.append(_read(REPO / "README.md"))
    site = sysconfig.get_paths()["purelib"]
    for name in ("pydantic", "httpx", "rich", "pygls", "typer"):
        for meta in sorted(glob.glob(f"{site}/{name}-*.dist-info/METADATA")):
            docs.append(_read(meta).split("\n\n", 1)[-1])
    return _take(docs, TARGET_CHARS)


def code_python() -> str:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    names = ("textwrap.py", "shlex.py", "json/decoder.py", "json/encoder.py", "fnmatch.py", "bisect.py")
    return _take([_read(stdlib / name) for name in names], TARGET_CHARS)


def code_ts() -> str:
    files = sorted(glob.glob(str(REPO / "vscode-extension" / "src" / "**" / "*.ts"), recursive=True))
    pi = Path.home() / ".cache" / "pi-oracle" / "node_modules" / "@earendil-works"
    files += sorted(glob.glob(str(pi / "pi-coding-agent" / "dist" / "core" / "**" / "*.d.ts"), recursive=True))
    return _take([_read(f) for f in files], TARGET_CHARS)


def json_tool() -> str:
    inspect = _run(sys.executable, "-m", "pip", "inspect")
    try:
        pretty = json.dumps(json.loads(inspect), indent=2)[:12_000]
    except ValueError:
        pretty = ""
    listing = json.dumps(
        [
            {"name": e.name, "size": e.stat(follow_symlinks=False).st_size}
            for e in sorted(os.scandir("/usr/bin"), key=lambda e: e.name)
        ][:300],
        separators=(",", ":"),
    )
    rng = random.Random(7)
    diagnostics = [
        {
            "uri": f"file:///work/project/src/module_{i % 9}.py",
            "range": {
                "start": {"line": rng.randrange(400), "character": rng.randrange(80)},
                "end": {"line": 0, "character": 0},
            },
            "severity": rng.choice([1, 2, 3]),
            "code": rng.choice(["E501", "F401", "W291", "B008"]),
            "message": rng.choice(["line too long (121 > 120)", "unused import 'os'", "trailing whitespace"]),
        }
        for i in range(60)
    ]
    wrapped = json.dumps({"role": "toolResult", "toolName": "bash", "content": pretty[:4000]})
    return _take([pretty, listing, json.dumps(diagnostics, indent=1), wrapped], TARGET_CHARS)


def shell_log() -> str:
    parts = [
        "\n".join(_read("/var/log/dpkg.log").splitlines()[-120:]),
        "\n".join(_read("/var/log/apt/term.log").splitlines()[:150]),
        _run("ls", "-la", "/usr/bin")[:6000],
        _run("ps", "aux")[:3000],
        _run("df", "-h"),
        _run(sys.executable, "-m", "pip", "list", "-v")[:4000],
    ]
    return _take(parts, TARGET_CHARS)


ZH_TEXT = (
    "上下文窗口是模型一次能看到的全部文本。系统提示、项目说明文件、技能列表和对话历史都要占用这个窗口。"
    "当对话越来越长时，代理会把较早的消息压缩成摘要，只保留最近的几轮原文。为了让用户知道还剩多少空间，"
    "编辑器需要估算每一部分大约占用多少个词元。按字符数除以四的办法对英文大致可用，但对中文会严重低估，"
    "因为一个汉字往往就是一个词元，甚至更多。所以我们按文字种类分别计权重，再把结果加起来。"
) * 3
CHAT_WORDS = tuple(
    [
        "ok",
        "thanks",
        "ship",
        "it",
        "looks",
        "good",
        "to",
        "me",
        "will",
        "check",
        "later",
        "nice",
        "work",
        "can",
        "you",
        "rebase",
        "please",
    ]
)
EMOJI_LINES = [
    "Deploy finished 🚀✅ — all 42 checks green 🟢",
    "family: 👨‍👩‍👧‍👦 flags: 🇫🇷 🇯🇵 🇧🇷 skin tones: 👍🏽 👋🏿 🙌🏻",
    "bug? 🐛 fixed 🔧 shipped 📦 coffee ☕️ ×3",
    "Merci beaucoup ! 🙏 à demain 😊",
    "LGTM 👀 but please rename `fooBar` → `foo_bar` 🤔",
]


def cjk_and_scripts() -> dict[str, str]:
    return {
        "zh": _take([ZH_TEXT, *_mo_strings("zh_CN")], TARGET_CHARS // 2),
        "ja": _take(_mo_strings("ja"), SCRIPT_TARGET_CHARS // 2),
        "ko": _take(_mo_strings("ko"), SCRIPT_TARGET_CHARS // 2),
        "ru": _take(_mo_strings("ru"), SCRIPT_TARGET_CHARS),
        "vi": _take(_mo_strings("vi"), TARGET_CHARS // 2),
        "hi_th": _take([*_mo_strings("hi"), *_mo_strings("th")], SCRIPT_TARGET_CHARS // 2),
        "ar": _take(_mo_strings("ar"), SCRIPT_TARGET_CHARS // 2),
    }


def emoji_chat() -> str:
    rng = random.Random(11)
    emoji = [chr(c) for c in (*range(0x1F600, 0x1F64F), *range(0x1F300, 0x1F3F0), *range(0x1F680, 0x1F6C5))]
    words = CHAT_WORDS
    chat = [
        " ".join(rng.choice(words) for _ in range(rng.randint(3, 9)))
        + " "
        + "".join(rng.choice(emoji) for _ in range(rng.randint(1, 4)))
        for _ in range(250)
    ]
    return _take(["\n".join(EMOJI_LINES * 10), "\n".join(chat)], TARGET_CHARS // 2)


def dense_symbols() -> str:
    rng = random.Random(13)
    blob = base64.b64encode(bytes(rng.randrange(256) for _ in range(3000))).decode()
    hashes = "\n".join(f"{hashlib.sha256(str(i).encode()).hexdigest()}  file_{i}.tar.gz" for i in range(40))
    ids = "\n".join(str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(80))
    return _take([blob, hashes, ids], TARGET_CHARS)


CATEGORIES: dict[str, Callable[[], str]] = {
    "en_prose": en_prose,
    "markdown_docs": markdown_docs,
    "code_python": code_python,
    "code_ts": code_ts,
    "json_tool": json_tool,
    "shell_log": shell_log,
    "emoji_chat": emoji_chat,
    "dense_symbols": dense_symbols,
}
MAIN = (
    "en_prose",
    "markdown_docs",
    "code_python",
    "code_ts",
    "json_tool",
    "shell_log",
    "zh",
    "vi",
    "emoji_chat",
    "dense_symbols",
)


def build_corpus() -> dict[str, str]:
    """category -> text; empty categories (sources missing here) are left out."""
    corpus = {name: make() for name, make in CATEGORIES.items()}
    corpus.update(cjk_and_scripts())
    return {name: text for name, text in corpus.items() if text.strip()}
