"""Inputs shaped like the ones users really have, for the benchmarks that compare us with Pi.

Two generators, both deterministic (a seed):

- :func:`realistic_skills`: skills in a 12-level folder tree whose frontmatter mixes the shapes
  real SKILL.md files have: plain one-line values, double-quoted values with escapes,
  single-quoted values with ``''``, folded ``>`` and literal ``|`` descriptions with chomping
  indicators, ``allowed-tools`` as block or flow lists or a string, nested ``metadata`` maps
  with flow sequences, comments, an anchor and its alias now and then, and non-ASCII text. About
  one skill in five is of the plain ``key: value`` kind; bodies are a few KB of Markdown.
- :func:`chained_session`: Pi's own test fixture ``before-compaction.jsonl`` (a v1 session of a
  real Pi run, every assistant message carrying Pi's ``cost`` floats), migrated to v3 as Pi
  migrates it (ids, ``parentId``, ``firstKeptEntryId``) and repeated, each copy hanging off the
  last entry of the previous one, until the file reaches the size asked for (111 MB in the
  issue): one long branch, what a long real session looks like.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The shared folder (specs, fixtures, oracle) beside the checkout, or beside the worktrees' folder."""
    for candidate in (REPO.parent / "shared", REPO.parent.parent / "shared"):
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared"


FIXTURES = Path(os.environ.get("PI_FIXTURES_DIR") or shared_dir() / "fixtures" / "pi")
SESSION_FIXTURE = FIXTURES / "before-compaction.jsonl"

DEPTH = 12
_TOOLS = ["Read", "Write", "Edit", "Grep", "Glob", "Bash(git:*)", "Bash(npm run test:*)", "WebFetch", "Task"]
_WORDS = " ".join(
    [
        "review the diff and point out risky changes before merging into main when asked to check a pull",
        "request generate release notes from commits tags and issue titles use when preparing a version bump",
        "or changelog analyse failing tests read the logs reproduce locally then propose the smallest fix that",
        "makes them pass",
    ]
).split()
_UNICODE = ["naïve", "café", "résumé", "日本語", "Ünïcödé", "emoji 🚀", "→", "—", "«quoted»", "Ωmega"]


def _sentence(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(low, high))]
    if rng.random() < 0.25:
        words.insert(rng.randrange(len(words)), rng.choice(_UNICODE))
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _description(rng: random.Random, index: int) -> tuple[str, bool]:
    """The description's YAML (after ``description:``) and whether it is of the plain kind."""
    roll = rng.random()
    sentence = _sentence(rng, 12, 40)
    if roll < 0.28:  # plain one-line
        return " " + sentence.replace(": ", " - ").replace(" #", " "), True
    if roll < 0.43:  # double-quoted with escapes
        text = sentence.replace('"', "'")
        escapes = rng.choice(['\\"x\\"', "\\u00e9t\\u00e9", "tab\\there", "line\\nbreak", "back\\\\slash", "\\/"])
        return f' "{text} Handles {escapes}: {index}."', False
    if roll < 0.55:  # single-quoted with '' escapes
        return f" 'It''s for {sentence} Don''t use it for {rng.choice(_WORDS)}.'", False
    if roll < 0.78:  # folded, chomping indicator
        header = rng.choice([">", ">-", ">+", ">2", ">-\n"])
        header = header.rstrip("\n")
        lines = [_sentence(rng, 6, 14) for _ in range(rng.randint(2, 5))]
        if rng.random() < 0.3:
            lines.insert(1, "")  # a paragraph break
        return f" {header}\n" + "".join(("  " + line if line else "") + "\n" for line in lines).rstrip("\n"), False
    # literal, chomping indicator
    header = rng.choice(["|", "|-", "|+"])
    lines = [_sentence(rng, 4, 10) for _ in range(rng.randint(2, 4))]
    lines.append(f"- Use when: {rng.choice(_WORDS)} {rng.choice(_WORDS)}")
    return f" {header}\n" + "\n".join("  " + line for line in lines), False


def _allowed_tools(rng: random.Random) -> str:
    tools = rng.sample(_TOOLS, rng.randint(1, 5))
    roll = rng.random()
    if roll < 0.4:
        return "allowed-tools:\n" + "\n".join(f"  - {tool}" for tool in tools)
    if roll < 0.7:
        return "allowed-tools: [" + ", ".join(f'"{t}"' if "(" in t else t for t in tools) + "]"
    return "allowed-tools: " + " ".join(t for t in tools if "(" not in t or rng.random() < 0.5)


def _metadata(rng: random.Random, index: int, anchor: bool) -> str:
    lines = ["metadata:" + (" &meta" if anchor else "")]
    lines.append(f"  author: {rng.choice(['platform-team', 'Ana Souza', 'jürgen', 'ops'])}")
    lines.append(f'  version: "{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"')
    if rng.random() < 0.6:
        lines.append(f"  tags: [{', '.join(rng.sample(_WORDS, rng.randint(1, 4)))}]")
    if rng.random() < 0.4:
        lines.append("  owners:")
        lines.append(f"    team: {rng.choice(['infra', 'web', 'data'])}")
        lines.append(f"    reviewers: [{rng.choice(['ana', 'bo'])}, {rng.choice(['cy', 'dee'])}]")
        if rng.random() < 0.5:
            lines.append(f"    since: {2020 + index % 6}-0{1 + index % 9}-1{index % 10}  # a date stays a string")
    if rng.random() < 0.3:
        lines.append(f"  internal: {rng.choice(['true', 'false', 'yes', 'no', 'on'])}")
    if rng.random() < 0.3:
        lines.append(f"  priority: {rng.choice(['1', '0o7', '0x1F', '2.50', '.inf', '~'])}")
    return "\n".join(lines)


def skill_text(rng: random.Random, index: int, name: str) -> tuple[str, bool]:
    """One SKILL.md and whether its frontmatter is of the plain ``key: value`` kind."""
    description, plain = _description(rng, index)
    lines = [f"name: {name}", "description:" + description]
    if plain:
        if rng.random() < 0.5:
            lines.append(f"license: {rng.choice(['MIT', 'Apache-2.0', 'Proprietary'])}")
    else:
        anchor = rng.random() < 0.04
        if rng.random() < 0.35:
            lines.insert(0, f"# {rng.choice(['Owned by platform', 'Generated', 'Keep in sync with docs'])}")
        if rng.random() < 0.5:
            lines.append(f"license: {rng.choice(['MIT', 'Apache-2.0', 'Complete terms in LICENSE.txt'])}")
        if rng.random() < 0.55:
            lines.append(_allowed_tools(rng))
        if rng.random() < 0.6 or anchor:
            lines.append(_metadata(rng, index, anchor))
        if anchor:
            lines.append("defaults: *meta")
        if rng.random() < 0.15:
            lines.append("disable-model-invocation: " + rng.choice(["true", "false"]))
        if rng.random() < 0.2:
            lines[-1] += "  # trailing comment"
    body = [f"# {name.replace('-', ' ').title()}", "", _sentence(rng, 10, 30), ""]
    for step in range(rng.randint(3, 12)):
        body.append(f"## Step {step + 1}")
        body.append(_sentence(rng, 20, 80))
        if rng.random() < 0.4:
            body.append("```bash\n" + f"npm run task-{step} -- --flag {index}\n" + "```")
        if rng.random() < 0.3:
            body.append(f"See [the reference](references/ref-{step}.md).")
        body.append("")
    return "---\n" + "\n".join(lines) + "\n---\n" + "\n".join(body), plain


def realistic_skills(root: Path, count: int = 1000, seed: int = 21) -> tuple[list[Path], int]:
    """``count`` skills under ``root`` (a skills folder) in a 12-level tree: their SKILL.md paths, and
    how many have frontmatter of the plain ``key: value`` kind.

    Intermediate folders are shared (a few areas, each with a few groups, ...), a skill sits at a
    depth from 1 to 12, and its folder holds a ``references`` folder now and then, as real ones do.
    """
    rng = random.Random(seed)
    paths = []
    plain = 0
    for index in range(count):
        depth = 1 + index % DEPTH
        parts = [f"{['area', 'group', 'team', 'topic'][level % 4]}-{rng.randint(0, 2)}" for level in range(depth - 1)]
        name = f"skill-{index:04d}-{rng.choice(_WORDS)}"
        folder = root.joinpath(*parts, name)
        folder.mkdir(parents=True, exist_ok=True)
        text, is_plain = skill_text(rng, index, name)
        plain += is_plain
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        if rng.random() < 0.3:
            (folder / "references").mkdir(exist_ok=True)
            (folder / "references" / "ref-0.md").write_text("# Reference\n\nDetails.\n", encoding="utf-8")
        paths.append(folder / "SKILL.md")
    return paths, plain


# --- the session ---------------------------------------------------------------------------------


def _migrated_fixture() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The fixture's header and entries, migrated v1 -> v3 as Pi does (ids in file order, one chain)."""
    lines = [json.loads(line) for line in SESSION_FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
    header, entries = lines[0], lines[1:]
    assert header.get("type") == "session" and "version" not in header, "expected Pi's v1 fixture"
    header = {**header, "version": 3}
    ids = [f"{number:08x}" for number in range(1, len(entries) + 1)]
    migrated = []
    parent = None
    for entry, entry_id in zip(entries, ids, strict=True):
        entry = {**entry, "id": entry_id, "parentId": parent}
        parent = entry_id
        if entry["type"] == "compaction":
            index = entry.pop("firstKeptEntryIndex")  # counts the header, as in Pi's migration
            entry["firstKeptEntryId"] = ids[index - 1]
        migrated.append(entry)
    return header, migrated


def chained_session(path: Path, target_mb: float = 111, seed: int = 0) -> int:
    """Write the migrated fixture, repeated as one branch, to ``path`` until ``target_mb`` MB; returns entries.

    Copy ``k`` renames every id to ``<k><n>`` (8 hex digits) and hangs its first entry off the last
    entry of copy ``k - 1``; the header is written once.
    """
    del seed  # the copies are identical but for their ids
    header, entries = _migrated_fixture()
    target = int(target_mb * 1_000_000)
    written = 0
    count = 0
    parent: str | None = None
    with path.open("w", encoding="utf-8") as out:
        line = json.dumps(header, ensure_ascii=False, separators=(",", ":")) + "\n"
        out.write(line)
        written += len(line.encode("utf-8"))
        copy = 0
        while written < target:

            def rename(old: str, copy: int = copy) -> str:
                return f"{copy:03x}{int(old, 16):05x}"

            for entry in entries:
                renamed = {**entry, "id": rename(entry["id"])}
                renamed["parentId"] = parent if entry["parentId"] is None else rename(entry["parentId"])
                if "firstKeptEntryId" in entry:
                    renamed["firstKeptEntryId"] = rename(entry["firstKeptEntryId"])
                parent = renamed["id"]
                line = json.dumps(renamed, ensure_ascii=False, separators=(",", ":")) + "\n"
                out.write(line)
                written += len(line.encode("utf-8"))
                count += 1
            copy += 1
    return count
