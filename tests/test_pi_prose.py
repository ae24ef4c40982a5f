"""Pi's built-in prose stays out of the repository; the recordings of real Pi keep every number.

Recordings of Pi 1.6.0 (a session file, the chat's event streams, the protocol page's chat examples)
hold the system message Pi built. ``tests/support/pi_prose.py`` replaces Pi's own text in it with a
stand-in that keeps its lengths, escapes and character classes, so Pi's estimates, sizes and the
weighted estimator count the same; the recorders apply it as they write. Here: what a stand-in keeps
and what a scrub leaves alone (our own text, no Pi needed), that the committed recordings are scrubbed,
and, with Pi's own sentences read from the installed package (never written here), that no committed
file under ``tests/``, ``docs/``, ``vscode-extension/test/`` or ``examples/`` holds one (the oracle's goldens
included; the sample session real Pi wrote, examples/sessions/release-notes-fix.jsonl, too).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lsp_server.budget.parts import system_message_parts
from lsp_server.js.json import js_json_stringify
from lsp_server.js.strings import js_len
from lsp_server.session.estimates import estimate_tokens
from lsp_server.tokens.weighted import PRESETS, weighted_tokens
from tests.support.pi_prose import (
    require_pi_prose,
    scrub,
    scrub_json_text,
    sentences_of,
    stand_in,
    written_forms,
)

ROOT = Path(__file__).resolve().parents[1]
SESSION_GOLDEN = ROOT / "tests" / "cost" / "golden" / "real-pi.session.jsonl"
EXAMPLE_SESSION = ROOT / "examples" / "sessions" / "release-notes-fix.jsonl"  # tests/pi_rpc/test_example_session.py
CHAT_FIXTURES = ROOT / "vscode-extension" / "test" / "fixtures" / "chat"
PROTOCOL_EXAMPLES = ROOT / "docs" / "protocol-examples.json"
SCANNED = ("tests/", "docs/", "vscode-extension/test/", "examples/")
# Not scanned: Pi's own test fixtures, copied unchanged under Pi's licence (tests/fixtures/pi/README.md),
# whose sessions quote an older Pi's prompt and which the conformance goldens depend on byte for byte.
# The oracle's goldens are scanned: regen_goldens.py stores Pi's answers with its prose taken out
# (tests/conformance/golden_scrub.py, docs/conformance.md).
NOT_SCANNED = ("tests/fixtures/pi/",)

# Our own text, shaped like a system message Pi records (nothing here is Pi's wording).
OURS: dict[str, Any] = {
    "role": "system",
    "content": "",
    "sections": {
        "preamble": "Ein Beispiel: a made-up opening line, 3 clauses long.",
        "tools": '<tools>\n- probe: pokes at things\n- "quoted" tool: a \\ backslash and é\n</tools>',
        "rules": "<rules>\n- The first rule of this made-up list, long enough for a label.\n- Rule two 🙂 …\n</rules>",
        "docs": "<docs>\nOur docs live at /opt/somewhere/docs, next to the examples.\n</docs>",
        "addendum": "<addendum>\nAppended by the user.\n</addendum>",
        "project_context": "<project_context>\nFrom AGENTS.md: keep it short.\n</project_context>",
        "skills": "<skills>\nAn intro line of two sentences. Another one.\n\n<available_skills>\n  <skill>\n"
        "    <name>demo</name>\n  </skill>\n</available_skills>\n</skills>",
        "cwd": "<cwd>\n/work/project\n</cwd>",
    },
    "timestamp": 0,
    "toolsAdded": [
        {
            "name": "probe",
            "description": 'Pokes at things, one by one, until they answer.\nSays "done" when done.',
            "parameters": {"type": "object", "properties": {"depth": {"type": "number", "description": "How far."}}},
        }
    ],
}


def weighted(text: str) -> dict[str, int]:
    return {name: weighted_tokens(text, name) for name in PRESETS}


def counts(message: dict[str, Any]) -> dict[str, Any]:
    """What the project takes from a system message: Pi's estimate, each part's size and weighted counts."""
    parts = system_message_parts(message)
    return {
        "pi": estimate_tokens(message),
        "parts": [(part.name, part.chars, part.count, weighted(part.text)) for part in parts],
        "json": js_len(js_json_stringify(message)),
        "utf8": len(json.dumps(message, ensure_ascii=False).encode("utf-8")),
    }


@pytest.mark.parametrize(
    "text",
    ["a short one", 'Two lines\nwith "quotes", a \\ and 4 digits 2024.', "émoji 🙂 and … stay\n\tput", "x"],
)
def test_a_stand_in_keeps_lengths_escapes_and_character_classes(text: str) -> None:
    label = "[a label, not the text]"
    replaced = stand_in(text, label)
    assert replaced != text
    assert js_len(replaced) == js_len(text)
    assert js_len(js_json_stringify(replaced)) == js_len(js_json_stringify(text))
    assert len(replaced.encode("utf-8")) == len(text.encode("utf-8"))
    assert weighted(replaced) == weighted(text)
    kept = [(i, c) for i, c in enumerate(text) if not (" " <= c <= "~") or c in '"\\']
    assert kept == [(i, replaced[i]) for i, _ in kept]
    assert stand_in(replaced, label) == replaced  # scrubbing a stand-in changes nothing


def test_the_label_says_what_was_there_when_there_is_room() -> None:
    assert stand_in("x" * 20 + " " * 10 + "," * 10, "[ab, cd]").startswith("[ab, cd]")
    assert stand_in("plain words only", "[a label]").startswith("a label")  # no symbols to spend on brackets


def test_pis_sections_and_descriptions_are_stood_in_for_and_every_count_stays() -> None:
    scrubbed = scrub(OURS)
    sections, before = scrubbed["sections"], OURS["sections"]
    assert sections["preamble"].startswith("[Pi's own preamble section")
    for name in ("tools", "rules", "docs"):
        assert sections[name].startswith(f"<{name}>\n[Pi's own {name} section")
        assert sections[name].endswith(f"\n</{name}>")
    assert '\n- "quoted" tool' not in sections["tools"] and '"' in sections["tools"] and "é" in sections["tools"]
    assert sections["skills"].startswith("<skills>\n[Pi's introduction to the skills list")
    assert sections["skills"].endswith(before["skills"][before["skills"].index("\n\n<available_skills>") :])
    for name in ("addendum", "project_context", "cwd"):
        assert sections[name] == before[name]
    tool = scrubbed["toolsAdded"][0]
    assert tool["description"].startswith("[Pi's description of its probe tool")
    assert tool["parameters"]["properties"]["depth"]["description"] != "How far."
    assert {**tool, "description": None, "parameters": None} == {
        **OURS["toolsAdded"][0],
        "description": None,
        "parameters": None,
    }
    assert tool["parameters"]["properties"]["depth"]["type"] == "number"
    assert counts(scrubbed) == counts(OURS)
    assert scrub(scrubbed) == scrubbed


def test_a_prompt_pi_did_not_write_and_other_messages_stay_as_recorded() -> None:
    custom = {"role": "system", "content": "", "sections": {"preamble": "From SYSTEM.md.", "cwd": "<cwd>\n/w\n</cwd>"}}
    assert scrub(custom) == custom  # a SYSTEM.md preamble: no tools, rules or docs beside it
    patch = {"role": "system", "content": "", "sections": {"preamble": "From SYSTEM.md.", "tools": None}}
    assert scrub(patch) == patch
    user = {"role": "user", "content": [{"type": "text", "text": "x"}], "sections": OURS["sections"]}
    assert scrub(user) == user
    assert scrub({"events": [OURS, user]}) == {"events": [scrub(OURS), user]}


def test_a_scrubbed_file_changes_only_the_strings_it_replaces() -> None:
    # Written as Pi's JSON.stringify writes it: no spaces, JavaScript's number forms.
    entry = {"type": "message", "cost": 0.000045, "big": 1e21, "message": OURS}
    line = js_json_stringify(entry) + "\n"
    assert "0.000045" in line and "1e+21" in line
    text = '{"type":"session","version":3}\n' + line + "\n"
    scrubbed = scrub_json_text(text, lines=True)
    assert scrubbed.splitlines()[0] == text.splitlines()[0]
    assert json.loads(scrubbed.splitlines()[1]) == json.loads(js_json_stringify({**entry, "message": scrub(OURS)}))
    assert "0.000045" in scrubbed and "1e+21" in scrubbed and scrubbed.endswith("\n\n")
    assert len(scrubbed) == len(text)
    pretty = json.dumps({"items": [OURS]}, indent=2, ensure_ascii=False) + "\n"
    expected = json.dumps({"items": [scrub(OURS)]}, indent=2, ensure_ascii=False) + "\n"
    assert scrub_json_text(pretty, lines=False) == expected


def recordings() -> list[tuple[str, Any]]:
    """Every committed recording of real Pi, as values: the session golden, the chat streams, the chat examples."""
    found: list[tuple[str, Any]] = []
    for path in [SESSION_GOLDEN, EXAMPLE_SESSION, *sorted(CHAT_FIXTURES.glob("*.jsonl"))]:
        lines = path.read_text(encoding="utf-8").splitlines()
        found.append((path.name, [json.loads(line) for line in lines if line.strip()]))
    examples = json.loads(PROTOCOL_EXAMPLES.read_text(encoding="utf-8"))
    found.append(("protocol-examples.json (chat)", {k: v for k, v in examples.items() if k.startswith("pi/chat/")}))
    return found


def _system_messages(value: Any) -> int:
    if isinstance(value, list):
        return sum(_system_messages(item) for item in value)
    if isinstance(value, dict):
        own = 1 if value.get("role") == "system" and isinstance(value.get("sections"), dict) else 0
        return own + sum(_system_messages(item) for item in value.values())
    return 0


@pytest.mark.parametrize(("name", "value"), recordings(), ids=[name for name, _ in recordings()])
def test_the_committed_recordings_of_real_pi_are_scrubbed(name: str, value: Any) -> None:
    assert _system_messages(value) > 0, f"{name} records no system message: nothing here is checked"
    assert scrub(value) == value, f"{name} holds Pi's prose: python -m tests.support.pi_prose {name}"


def test_the_session_golden_is_scrubbed_byte_for_byte() -> None:
    text = SESSION_GOLDEN.read_text(encoding="utf-8")
    assert scrub_json_text(text, lines=True) == text


# --- with Pi's own sentences, read from the installed package --------------------------------------


@pytest.fixture(scope="module")
def pi_prose() -> dict[str, Any]:
    return require_pi_prose()


@pytest.fixture(scope="module")
def pi_sentences(pi_prose: dict[str, Any]) -> frozenset[str]:
    parts = ("systemPrompt", "skillsIntroduction", "toolDescriptions", "summaryInstructions")
    found = sentences_of(text for part in parts for text in pi_prose[part])
    assert len(found) > 50, "Pi's prose was not read: check tests/support/pi_prose_texts.mjs against Pi"
    return found


def committed_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *SCANNED], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode("utf-8")
    return [name for name in listed.split("\0") if name and not name.startswith(NOT_SCANNED)]


def test_no_committed_file_holds_a_sentence_of_pis_prose(pi_sentences: frozenset[str]) -> None:
    files = committed_files()
    assert any(name.startswith("vscode-extension/test/fixtures/chat/") for name in files)
    assert "tests/conformance/golden/build_sections.jsonl" in files
    forms = {form: sentence for sentence in pi_sentences for form in written_forms(sentence)}
    found: dict[str, list[str]] = {}
    for name in files:
        path = ROOT / name
        if not path.is_file():
            continue  # deleted in the work tree, not yet committed
        text = path.read_bytes().decode("utf-8", errors="replace")
        hits = sorted({sentence for form, sentence in forms.items() if form in text})
        if hits:
            found[name] = hits
    assert found == {}, "Pi's prose is committed; scrub recordings with tests/support/pi_prose.py: " + json.dumps(
        {name: hits[:3] for name, hits in found.items()}, indent=1
    )


def test_a_scrub_takes_every_sentence_out_of_pis_own_system_message_and_keeps_its_counts(
    pi_prose: dict[str, Any], pi_sentences: frozenset[str]
) -> None:
    message = pi_prose["sample"]
    assert [s for s in pi_sentences if s in json.dumps(message, ensure_ascii=False)], "the sample holds Pi's prose"
    scrubbed = scrub(message)
    written = json.dumps(scrubbed, ensure_ascii=False)
    assert [s for s in pi_sentences if any(form in written for form in written_forms(s))] == []
    assert counts(scrubbed) == counts(message)
    assert scrubbed["sections"]["cwd"] == message["sections"]["cwd"]
    skills = message["sections"]["skills"]
    assert scrubbed["sections"]["skills"].endswith(skills[skills.index("<available_skills>") :])
    assert [t["name"] for t in scrubbed["toolsAdded"]] == [t["name"] for t in message["toolsAdded"]]
