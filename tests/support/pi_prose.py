"""Pi's built-in prose taken out of the recordings of real Pi we commit, every count kept.

Real Pi's session files, events and messages hold the system message Pi built: its ``sections``
(Pi's own preamble, tool snippets, rules and docs pointer, and the introduction in front of the
skills list) and the tools it declared (``toolsAdded``, with Pi's descriptions). That text is Pi's
and stays out of this repository (CONTRIBUTING.md); the formats and the numbers are what the tests
need. :func:`scrub` replaces each such text with a stand-in that says what was there and keeps every
count taken from it:

* the same UTF-16 length, so Pi's chars/4 estimates and everything derived from lengths stay;
* the same characters wherever JSON escapes them or they are not ASCII (line feeds, quotes,
  backslashes, an abridging ``…``), so ``JSON.stringify`` lengths (Pi counts ``toolsAdded`` that
  way), UTF-8 sizes and line counts stay;
* the same number of ASCII letters, digits, spaces and other symbols, so the weighted estimator
  (``lsp_server/tokens/weighted.py`` counts per character class) gives the same numbers.

What comes from the workspace stays as recorded: the ``<name>`` wrapper lines, ``cwd``,
``project_context``, the skills list, an ``addendum``, a preamble Pi did not write (a SYSTEM.md
prompt has no ``tools``/``rules``/``docs`` beside it), tool names and parameter schemas.

The recorders call it as they write (``tests/pi_rpc/test_real_costs.py`` under
``PI_CONTEXT_REGEN=1``, ``vscode-extension/scripts/record_chat_events.py``,
``docs/gen_protocol.py --examples``); ``python -m tests.support.pi_prose FILE...`` scrubs files in
place (``.jsonl`` line by line), touching only the strings it replaces, so every other byte stays
as Pi or the recorder wrote it.

:func:`require_pi_prose` reads Pi's prose from the installed package at test time (our repository never
holds it) and :func:`sentences_of` cuts it into the sentences ``tests/test_pi_prose.py`` looks for in
the committed files.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

# Sections Pi fills with its own prose when no SYSTEM.md replaces the preamble (Pi's buildSystemPromptSections).
STOCK_SECTIONS: Final = ("preamble", "tools", "rules", "docs")
SKILLS_LIST: Final = "<available_skills>"  # the skills section: Pi's introduction, then this list (kept)
SECTION_LABEL: Final = "[Pi's own {name} section, not reproduced here]"
SKILLS_LABEL: Final = "[Pi's introduction to the skills list, not reproduced here]"
TOOL_LABEL: Final = "[Pi's description of its {name} tool, not reproduced here]"
PARAMETER_LABEL: Final = "[Pi's description, not reproduced here]"
FILL: Final = {"a": "x", "d": "0", "s": " ", "p": "."}  # a stand-in's filler after its label, by class


def _replaceable(char: str) -> bool:
    """A printable ASCII character JSON writes as itself: the only kind a stand-in changes."""
    return " " <= char <= "~" and char not in '"\\'


def _kind(char: str) -> str:
    """The weighted estimator's class of a replaceable character: letter, digit, space, symbol."""
    if char.isalpha():
        return "a"
    if char.isdigit():
        return "d"
    return "s" if char == " " else "p"


def stand_in(original: str, label: str) -> str:
    """``original`` with its replaceable characters rewritten to ``label`` and then filler.

    Every other character stays where it is, and the replaceable ones keep their count per class: a
    label character whose class ``original`` has run out of is left out, and each later position
    takes its original class's filler while that class lasts, else the first class that has some
    left. Scrubbing a stand-in gives it back unchanged (same classes, same choices).
    """
    assert all(_replaceable(char) for char in label), label
    out = list(original)
    slots = [index for index, char in enumerate(original) if _replaceable(char)]
    budget = Counter(_kind(original[index]) for index in slots)
    taken = 0
    for char in label:
        if taken == len(slots):
            break
        kind = _kind(char)
        if budget[kind] > 0:
            out[slots[taken]] = char
            budget[kind] -= 1
            taken += 1
    for index in slots[taken:]:
        kind = _kind(original[index])
        if budget[kind] == 0:
            kind = next(other for other in FILL if budget[other] > 0)
        out[index] = FILL[kind]
        budget[kind] -= 1
    return "".join(out)


def _wrapped(text: str, name: str, label: str, *, upto: str | None = None) -> str:
    """A ``<name>\\n…\\n</name>`` section with its inside (or the inside before ``upto``) stood in for.

    The wrapper lines are Pi's format and stay; a section cut short (an abridged example ending in
    ``…``, no closing line) has the rest of its text stood in for.
    """
    opening, closing = f"<{name}>\n", f"\n</{name}>"
    start = len(opening) if text.startswith(opening) else 0
    end = len(text) - len(closing) if text.endswith(closing) and len(text) - len(closing) >= start else len(text)
    if upto is not None:
        at = text.find(upto, start, end)
        if at < 0:
            return text  # no list where Pi puts one: not Pi's skills block, nothing to take out
        end = at
    return text[:start] + stand_in(text[start:end], label) + text[end:]


def scrub_sections(sections: dict[str, Any]) -> dict[str, Any]:
    """A system message's ``sections`` with Pi's built-in prose stood in for (see the module)."""
    pis_default = any(isinstance(sections.get(name), str) for name in STOCK_SECTIONS[1:])
    out = dict(sections)
    for name, text in sections.items():
        if not isinstance(text, str) or not text:
            continue
        if name == "preamble" and pis_default:
            out[name] = stand_in(text, SECTION_LABEL.format(name=name))
        elif name in STOCK_SECTIONS[1:]:
            out[name] = _wrapped(text, name, SECTION_LABEL.format(name=name))
        elif name == "skills":
            out[name] = _wrapped(text, name, SKILLS_LABEL, upto=SKILLS_LIST)
    return out


def _descriptions(value: Any, label: str) -> Any:
    """``value`` (a tool's parameter schema) with every ``description`` string stood in for."""
    if isinstance(value, dict):
        return {
            key: stand_in(item, label) if key == "description" and isinstance(item, str) else _descriptions(item, label)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_descriptions(item, label) for item in value]
    return value


def scrub_tool(tool: Any) -> Any:
    """One declared tool (``toolsAdded``) with Pi's descriptions stood in for; name and schema kept."""
    if not isinstance(tool, dict):
        return tool
    out = _descriptions(tool, PARAMETER_LABEL)
    description = tool.get("description")
    if isinstance(description, str):
        out["description"] = stand_in(description, TOOL_LABEL.format(name=tool.get("name")))
    return out


def scrub(value: Any) -> Any:
    """A JSON value with the prose of every system message in it stood in for (a new value)."""
    if isinstance(value, list):
        return [scrub(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: scrub(item) for key, item in value.items()}
    if value.get("role") == "system":
        if isinstance(value.get("sections"), dict):
            out["sections"] = scrub_sections(value["sections"])
        if isinstance(value.get("toolsAdded"), list):
            out["toolsAdded"] = [scrub_tool(tool) for tool in value["toolsAdded"]]
    return out


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _scrub_document(text: str) -> str:
    """One JSON document's text with the strings :func:`scrub` changes replaced where they are written.

    Only those strings change, so the document keeps its writer's layout and number formatting
    (Pi's ``JSON.stringify`` or Python's ``json.dumps``); both write a string the same way.
    """
    value = json.loads(text)
    scrubbed = scrub(value)
    if scrubbed == value:
        return text
    for before, after in zip(_strings(value), _strings(scrubbed), strict=True):
        if before != after:
            text = text.replace(json.dumps(before, ensure_ascii=False), json.dumps(after, ensure_ascii=False))
    if json.loads(text) != scrubbed:
        raise ValueError("a scrubbed string is written differently in the document; scrub its value instead")
    return text


def scrub_json_text(text: str, *, lines: bool) -> str:
    """A JSON file's text (``lines``: one document per line, JSONL) with Pi's prose stood in for."""
    if not lines:
        return _scrub_document(text)
    return "".join(_scrub_document(line) if line.strip() else line for line in text.splitlines(keepends=True))


def scrub_file(path: Path) -> bool:
    """Scrub a ``.json`` or ``.jsonl`` file in place; whether it changed."""
    text = path.read_text(encoding="utf-8")
    scrubbed = scrub_json_text(text, lines=path.suffix == ".jsonl")
    if scrubbed != text:
        path.write_text(scrubbed, encoding="utf-8")
    return scrubbed != text


# --- Pi's prose, read from the installed package --------------------------------------------------

TEXTS_SCRIPT: Final = Path(__file__).with_name("pi_prose_texts.mjs")
REQUIRE_ENV: Final = "PI_CONTEXT_REQUIRE_ORACLE"
INTERPOLATED: Final = "\x00"  # where pi_prose_texts.mjs cut out a value Pi interpolates (a path)
# A sentence of Pi's is looked for when it has at least this many words: shorter phrases are common
# English (a tool snippet of three words) or a format the project reproduces on purpose (the tools
# section's closing line, docs/prompt.md); headings are Pi's structure, which our summaries share.
MIN_WORDS: Final = 6
_LIST_MARK: Final = re.compile(r"^\s*(?:[-*]|\d+\.)\s+(?:\[[ x]\]\s+)?")
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+")


def require_pi_prose() -> dict[str, Any]:
    """Pi's prose as ``pi_prose_texts.mjs`` prints it, from the installed Pi 1.6.0 (pi_for_tests.py).

    Skips with the reason when Pi is not installed; fails instead under ``PI_CONTEXT_REQUIRE_ORACLE=1``.
    """
    import pytest

    from tests.support.pi_for_tests import find_test_pi

    found, reason = find_test_pi()
    if found is None:
        message = f"Pi's prose is read from the installed Pi, and {reason} (run tests/support/install_pi.sh)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{REQUIRE_ENV}=1 but {message}")
        pytest.skip(message)
    done = subprocess.run(
        [str(found.node), str(TEXTS_SCRIPT), str(found.package)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    texts: dict[str, Any] = json.loads(done.stdout)
    return texts


def sentences_of(texts: Iterable[str]) -> frozenset[str]:
    """The sentences of ``texts`` worth looking for: one line's sentences, list marks and headings left out."""
    found: set[str] = set()
    for text in texts:
        for piece in text.split(INTERPOLATED):
            for line in piece.splitlines():
                line = _LIST_MARK.sub("", line).strip()
                if line.startswith("#"):
                    continue
                found.update(s for s in _SENTENCE_END.split(line) if len(s.split()) >= MIN_WORDS)
    return frozenset(found)


def written_forms(sentence: str) -> tuple[str, ...]:
    """How a sentence appears in a file: as it is, or inside a JSON string (escaped, or ASCII-only)."""
    forms = {sentence, json.dumps(sentence, ensure_ascii=False)[1:-1], json.dumps(sentence)[1:-1]}
    return tuple(sorted(forms))


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: python -m tests.support.pi_prose FILE.json[l]...\n")
        return 2
    for name in argv:
        print(f"{'scrubbed' if scrub_file(Path(name)) else 'unchanged'}: {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
